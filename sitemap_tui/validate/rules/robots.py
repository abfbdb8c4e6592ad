"""robots.txt: its Sitemap: lines, and what it disallows of the sitemaps and their URLs."""

from __future__ import annotations

from sitemap_tui.validate.rules import ERR, INFO, WARN, Rule

RULES: tuple[Rule, ...] = (
    Rule(
        id="video-files-not-accessible",
        scope="robots",
        severity=ERR,
        title="Video files not accessible to Googlebot",
        message="{element} {value!r} is not accessible to Googlebot: {reason}",
        explanation=(
            "The page, `content_loc`, `player_loc` or thumbnail URL is disallowed by robots.txt, "
            "needs a login, uses a streaming-only protocol, or is not an absolute URL at all "
            "(`None` written by a CMS, a relative path). Google requires every file referenced "
            "by a video sitemap to be accessible to Googlebot over HTTP or FTP."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
        decided_by=("checker", "cross-file"),
    ),
    Rule(
        id="robots-no-sitemap-line",
        scope="robots",
        severity=INFO,
        title="robots.txt has no Sitemap: line",
        message="robots.txt has no Sitemap: line",
        explanation=(
            "The site's robots.txt has no `Sitemap:` line. This is the engine-neutral way to "
            "announce sitemaps now that the ping endpoints are gone."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §Informing search engine crawlers ; "
            "https://blogs.bing.com/webmaster/may-2022/Spring-cleaning-Removed-Bing-anonymous-sitemap-submission"
        ),
        decided_by=("checker",),
    ),
    Rule(
        id="robots-sitemap-not-absolute",
        scope="robots",
        severity=ERR,
        title="Sitemap: value not absolute",
        message="Sitemap: {value!r} is not a fully-qualified absolute URL",
        explanation="A `Sitemap:` value is not a fully-qualified absolute URL.",
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt ; "
            "https://www.sitemaps.org/protocol.html §Informing search engine crawlers"
        ),
        decided_by=("checker",),
    ),
    Rule(
        id="robots-sitemap-unfetchable",
        scope="robots",
        severity=ERR,
        title="Sitemap listed in robots.txt cannot be used",
        message="the sitemap {url} named in robots.txt cannot be used: {reason}",
        explanation=(
            "A sitemap named in robots.txt fails fetch-http-error, fetch-private-address or "
            "file-is-html."
        ),
        source="https://support.google.com/webmasters/answer/7451001",
        decided_by=("checker",),
    ),
    Rule(
        id="robots-url-disallowed",
        scope="robots",
        severity=WARN,
        title="URL disallowed by robots.txt",
        message="the URL is disallowed by robots.txt for {agent}",
        explanation=(
            "A `<loc>` is disallowed by robots.txt for Googlebot or Bingbot (the group rules of "
            'RFC 9309, falling back to `*`). Google: "Sitemap contains URLs which are blocked by '
            'robots.txt".'
        ),
        source=(
            "https://support.google.com/webmasters/answer/7451001 ; "
            "https://www.rfc-editor.org/rfc/rfc9309"
        ),
        decided_by=("cross-file",),
    ),
    Rule(
        id="robots-sitemap-file-disallowed",
        scope="robots",
        severity=WARN,
        title="Sitemap file disallowed by robots.txt",
        message="the sitemap file {url} is disallowed by its own robots.txt",
        explanation=(
            "The sitemap file's own URL is disallowed by robots.txt. Some engines (Yandex, for "
            "example) then refuse to download it."
        ),
        source="https://yandex.com/support/webmaster/en/error-dictionary/sitemap",
        decided_by=("cross-file",),
    ),
    Rule(
        id="robots-cross-submit-ok",
        scope="robots",
        severity=INFO,
        title="Valid cross-submission via robots.txt",
        message="URLs on {host!r} are accepted: {robots_url} names this sitemap (cross-submission)",
        explanation=(
            "A sitemap on host A lists URLs of host B, and B's robots.txt "
            "(`<scheme>://B/robots.txt`) has a `Sitemap:` line naming that exact sitemap URL. "
            "This is a valid cross-submission, so location-different-host and "
            "location-outside-path are not reported for host B."
        ),
        source="https://www.sitemaps.org/protocol.html §Sitemaps & Cross Submits",
        decided_by=("checker",),
    ),
    Rule(
        id="robots-fetch-error",
        scope="robots",
        severity=WARN,
        title="robots.txt could not be fetched",
        message="robots.txt could not be fetched: {reason}",
        explanation=(
            "robots.txt answers 5xx or cannot be reached. Google then treats the site as fully "
            "disallowed for a while. A 4xx means no restrictions."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt",
        decided_by=("checker",),
    ),
    Rule(
        id="ping-endpoint-deprecated",
        scope="robots",
        severity=INFO,
        title="Sitemap ping endpoint is gone",
        message="{url} uses the {engine} sitemap ping endpoint, which no longer works",
        explanation=(
            "The tooling or configuration being checked submits sitemaps through "
            "`google.com/ping?sitemap=` or `bing.com/ping?sitemap=`. Bing removed anonymous ping "
            "in May 2022. Google deprecated its ping in June 2023, and it has returned 404 since "
            "the end of 2023. Use robots.txt, Search Console, Bing Webmaster Tools or IndexNow "
            "instead."
        ),
        source=(
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping ; "
            "https://blogs.bing.com/webmaster/may-2022/Spring-cleaning-Removed-Bing-anonymous-sitemap-submission"
        ),
        decided_by=("checker",),
    ),
)

"""robots.txt: its Sitemap: lines, and what it disallows of the sitemaps and their URLs."""

from __future__ import annotations

from sitemap_tui.engine.model import Issue
from sitemap_tui.engine.robots import RobotsFile
from sitemap_tui.validate.checkstate import _PING_RE, FileContext
from sitemap_tui.validate.rules import ERR, INFO, WARN, Rule, make_issue
from sitemap_tui.validate.urlcheck import site_label, split_base

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
        decided_by=("cross-file", "video.check_videos"),
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
        decided_by=("robots.check_robots",),
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
        decided_by=("robots.check_robots",),
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
        decided_by=("checker", "robots.check_robots"),
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
        message="the sitemap file {url} is disallowed for {agent} by its own robots.txt",
        explanation=(
            "The sitemap file's own URL is disallowed by robots.txt. Some engines (Yandex, for "
            "example) then refuse to download it."
        ),
        source="https://yandex.com/support/webmaster/en/error-dictionary/sitemap",
        decided_by=("cross-file",),
    ),
    Rule(
        id="robots-cross-submit-ok",
        sample=True,
        scope="robots",
        severity=INFO,
        title="Valid cross-submission via robots.txt",
        message="URLs on {host!r} are accepted: {robots_url} names this sitemap or an index that lists it (cross-submission)",
        explanation=(
            "A sitemap on host A lists URLs of host B, and B's robots.txt "
            "(`<scheme>://B/robots.txt`) has a `Sitemap:` line naming that exact sitemap URL, or an index "
            "that lists it. "
            "This is a valid cross-submission, so location-different-host and "
            "location-outside-path are not reported for host B."
        ),
        source="https://www.sitemaps.org/protocol.html §Sitemaps & Cross Submits",
        decided_by=("location.check_location", "robots.cross_submitted"),
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
        decided_by=("robots.robots_fetch_failed",),
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
        decided_by=("checker", "robots.check_robots"),
    ),
)


# -- checks (called by the streaming checker, validate/checker.py) --------------------


def _host_port(url: str | None) -> str:
    p = split_base(url)
    return "?" if p is None else site_label(p)


def cross_submitted(issue: Issue, robots_url: str) -> list[Issue]:
    """``robots-cross-submit-ok`` in place of a location finding (one of
    ``CROSS_SUBMIT_RULES``) that a cross-submission voids: the robots.txt read at
    ``robots_url`` for the host of ``issue.url`` names this sitemap or an index above it.
    The explorer calls this once it read that robots.txt (after the file was parsed)."""
    return (
        [
            make_issue(
                "robots-cross-submit-ok",
                node_id=issue.node_id,
                line=issue.line,
                url=issue.url,
                host=_host_port(issue.url),
                robots_url=robots_url,
            )
        ]
    )

def robots_fetch_failed(ctx: FileContext | None, status: int | None, reason: str
) -> list[Issue]:
    """``robots-fetch-error`` for a robots.txt that answered 5xx or could not be reached.

    ``status`` is the HTTP status (``None`` when there was no response). A 4xx is not an
    error: it means "no restrictions"."""
    if status is not None and status < 500:
        return []
    url = ctx.url if ctx is not None else None
    nid = ctx.node_id if ctx is not None else None
    return ([make_issue("robots-fetch-error", node_id=nid, url=url, reason=reason)])

def check_robots(robots: RobotsFile, ctx: FileContext | None = None) -> list[Issue]:
    """The robots rules that depend on the robots.txt alone."""
    nid = ctx.node_id if ctx is not None else None
    out: list[Issue] = []
    if not robots.sitemaps:
        out.append(make_issue("robots-no-sitemap-line", node_id=nid, url=robots.url))
    for sl in robots.sitemaps:
        value = sl.value
        if not value or sl.relative:
            out.append(
                make_issue(
                    "robots-sitemap-not-absolute",
                    node_id=nid,
                    line=sl.line,
                    url=sl.url or None,
                    value=value,
                )
            )
            if not value:
                continue
        elif sl.unfetchable is not None:
            out.append(
                make_issue(
                    "robots-sitemap-unfetchable",
                    node_id=nid,
                    line=sl.line,
                    url=sl.url,
                    reason=sl.unfetchable,
                )
            )
        m = _PING_RE.match(sl.url)
        if m:
            out.append(
                make_issue(
                    "ping-endpoint-deprecated",
                    node_id=nid,
                    line=sl.line,
                    url=sl.url,
                    engine=m.group(1).capitalize(),
                )
            )
    return (out)

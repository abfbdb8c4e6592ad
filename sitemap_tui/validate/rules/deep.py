"""Deep checks: rules that fetch the listed pages and media (--deep)."""

from __future__ import annotations

from sitemap_tui.validate.rules import ERR, INFO, WARN, Rule

RULES: tuple[Rule, ...] = (
    Rule(
        id="video-content-not-media",
        scope="extension",
        severity=WARN,
        title="Video content_loc is not a media file",
        message="content_loc {url} returns {content_type}, not a video file",
        explanation=(
            "Deep check: `video:content_loc` returns HTML or Flash instead of a video file. Google "
            'says HTML and Flash are not supported formats. Google: "Video location URL appears to '
            'be a play page URL".'
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
        deep=True,
        decided_by=("deep",),
    ),
    Rule(
        id="video-thumbnail-problem",
        scope="extension",
        severity=WARN,
        title="Video thumbnail problem",
        message="thumbnail {url}: {reason}",
        explanation=(
            "Deep check: `video:thumbnail_loc` cannot be fetched, is not an image, or Search "
            'Console would call it too small or too large ("Thumbnail too small/large").'
        ),
        source=(
            "https://support.google.com/webmasters/answer/7451001 ; "
            "https://developers.google.com/search/docs/appearance/video"
        ),
        deep=True,
        decided_by=("deep",),
    ),
    Rule(
        id="hreflang-target-not-indexable",
        scope="cross-file",
        severity=WARN,
        title="hreflang target not indexable",
        message="alternate {target} will not be indexed: {reason}",
        explanation=(
            "Deep check: An alternate `href` answers non-200, redirects, is `noindex`, or has a "
            "canonical pointing elsewhere. The annotation then points at a URL that will not be "
            "indexed. This is a heuristic."
        ),
        source=(
            "https://developers.google.com/search/docs/specialty/international/localized-versions "
            "; "
            "https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls"
        ),
        deep=True,
        decided_by=("deep",),
    ),
    Rule(
        id="hreflang-html-conflict",
        scope="cross-file",
        severity=WARN,
        title="hreflang in the page contradicts the sitemap",
        message="the page's own hreflang annotations differ from the sitemap's: {detail}",
        explanation=(
            'Deep check: The page\'s own HTML `<link rel="alternate" hreflang>` or HTTP `Link` '
            "annotations contradict the sitemap's. Google treats the three methods as equivalent "
            "and recommends using one."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
        deep=True,
        decided_by=("deep",),
    ),
    Rule(
        id="deep-status-3xx",
        scope="url",
        severity=WARN,
        title="URL redirects",
        message="the URL redirects to {target}",
        explanation=(
            "Deep check: `<loc>` redirects. List the final URL instead, and fix any trailing-slash "
            'mismatch. Google may also report "URLs not followed" for long redirect chains.'
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
        deep=True,
        decided_by=("deep",),
    ),
    Rule(
        id="deep-status-4xx",
        scope="url",
        severity=ERR,
        title="URL answers 4xx",
        message="the URL answers HTTP {status}",
        explanation=(
            "Deep check: `<loc>` answers 4xx (404, 410, 401 or 403, for example). The page cannot "
            "be indexed, so the entry is wasted."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/http-network-errors ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap"
        ),
        deep=True,
        decided_by=("deep",),
    ),
    Rule(
        id="deep-status-5xx",
        scope="url",
        severity=WARN,
        title="URL answers 5xx or times out",
        message="the URL answers {status}",
        explanation=(
            "Deep check: `<loc>` answers 5xx or times out. This may be temporary: re-test before "
            "acting on it."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/http-network-errors",
        deep=True,
        decided_by=("deep",),
    ),
    Rule(
        id="deep-soft-404",
        scope="url",
        severity=INFO,
        title="Page looks like an error page",
        message="the page looks like an error page: {reason}",
        explanation=(
            'Deep check: A 200 response whose content looks like an error or "not found" page. '
            "This is a heuristic."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/http-network-errors",
        deep=True,
        decided_by=("deep",),
    ),
    Rule(
        id="deep-noindex",
        scope="url",
        severity=ERR,
        title="Page is noindex",
        message="the page is noindex ({where})",
        explanation=(
            'Deep check: The page has `<meta name="robots" content="noindex">` (or '
            "googlebot/bingbot variants) or an `X-Robots-Tag: noindex` header. Listing it in a "
            "sitemap contradicts the noindex, and the URL will not be indexed."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/block-indexing ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap"
        ),
        deep=True,
        decided_by=("deep",),
    ),
    Rule(
        id="deep-non-canonical",
        scope="url",
        severity=WARN,
        title="Page canonical points elsewhere",
        message="the page's canonical URL is {target}",
        explanation=(
            "Deep check: The page's `rel=canonical` (in HTML or the `Link` header) points to a "
            "different URL. Sitemaps should list canonical URLs only."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls",
        deep=True,
        decided_by=("deep",),
    ),
    Rule(
        id="deep-lastmod-vs-header",
        scope="url",
        severity=INFO,
        title="lastmod far from Last-Modified",
        message="lastmod {value!r} differs from Last-Modified {header!r} by {days:,} days",
        explanation=(
            "Deep check: `<lastmod>` differs a lot (for example by more than 1 year) from the "
            "page's HTTP `Last-Modified`. The protocol notes the two are separate signals that "
            "engines may use differently."
        ),
        source="https://www.sitemaps.org/protocol.html §XML tag definitions",
        deep=True,
        decided_by=("deep",),
    ),
)

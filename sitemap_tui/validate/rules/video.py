"""The video extension (<video:video>)."""

from __future__ import annotations

from sitemap_tui.validate.rules import ERR, WARN, Rule

RULES: tuple[Rule, ...] = (
    Rule(
        id="video-required-missing",
        scope="extension",
        severity=ERR,
        title="Required video tag missing",
        message="<video:video> is missing {missing}",
        explanation=(
            "A `<video:video>` is missing `video:thumbnail_loc`, `video:title` or "
            '`video:description`. Google: "Missing video title", "Missing thumbnail URL".'
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
        decided_by=("checker",),
    ),
    Rule(
        id="video-no-media-url",
        scope="extension",
        severity=ERR,
        title="Video without content_loc or player_loc",
        message="<video:video> has neither <video:content_loc> nor <video:player_loc>",
        explanation=(
            "A `<video:video>` has neither `video:content_loc` nor `video:player_loc`. At least "
            "one is required."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
        decided_by=("checker",),
    ),
    Rule(
        id="video-url-equals-page",
        scope="extension",
        severity=ERR,
        title="Video URL is the page URL",
        message="<video:{element}> is the same URL as the page",
        explanation=(
            "`video:content_loc` or `video:player_loc` equals the `<loc>` of the page. Google: "
            '"Video location and play page location are the same".'
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
        decided_by=("checker",),
    ),
    Rule(
        id="video-description-too-long",
        scope="extension",
        severity=ERR,
        title="Video description too long",
        message="the video description is {length:,} characters long (limit 2,048)",
        explanation="`video:description` is longer than 2,048 characters.",
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://www.google.com/schemas/sitemap-video/1.1/sitemap-video.xsd"
        ),
        decided_by=("checker",),
    ),
    Rule(
        id="video-title-too-long",
        scope="extension",
        severity=WARN,
        title="Video title too long",
        message="the video title is {length:,} characters long (schema limit 100)",
        explanation=(
            "`video:title` is longer than 100 characters. The limit is an XSD `maxLength`; the "
            "current Google doc only asks the title to match the page."
        ),
        source="https://www.google.com/schemas/sitemap-video/1.1/sitemap-video.xsd",
        decided_by=("checker",),
    ),
    Rule(
        id="video-duration-range",
        scope="extension",
        severity=ERR,
        title="Video duration out of range",
        message="video duration {value!r} is not an integer from 1 to 28,800 seconds",
        explanation=(
            "`video:duration` is not an integer from 1 to 28,800 seconds (8 hours). Note that the "
            "XSD accepts 0, but Google's minimum is 1."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
        decided_by=("checker",),
    ),
    Rule(
        id="video-rating-range",
        scope="extension",
        severity=ERR,
        title="Video rating out of range",
        message="video rating {value!r} is not a number from 0.0 to 5.0",
        explanation="`video:rating` is not a number from 0.0 to 5.0 inclusive.",
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
        decided_by=("checker",),
    ),
    Rule(
        id="video-view-count-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid video view count",
        message="video view_count {value!r} is not a non-negative integer",
        explanation="`video:view_count` is not a non-negative integer.",
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://www.google.com/schemas/sitemap-video/1.1/sitemap-video.xsd"
        ),
        decided_by=("checker",),
    ),
    Rule(
        id="video-date-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid video date",
        message=(
            "<video:{element}> {value!r} is not a full date or a date-time with seconds and time "
            "zone"
        ),
        explanation=(
            "`video:publication_date` or `video:expiration_date` is not W3C format: a complete "
            "date (`YYYY-MM-DD`), or a date-time with seconds and time zone."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
        decided_by=("checker",),
    ),
    Rule(
        id="video-expired",
        scope="extension",
        severity=WARN,
        title="Video expired",
        message="the video expired on {value}",
        explanation=(
            "`video:expiration_date` is already in the past. Google does not show the video after "
            "that date."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
        decided_by=("checker",),
    ),
    Rule(
        id="video-publication-future",
        scope="extension",
        severity=WARN,
        title="Video publication date in the future",
        message="video publication_date {value!r} is in the future",
        explanation="`video:publication_date` is later than the fetch time plus 24 h. This is a heuristic.",
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
        decided_by=("checker",),
    ),
    Rule(
        id="video-yes-no-invalid",
        scope="extension",
        severity=ERR,
        title="Video yes/no value invalid",
        message="<video:{element}> {value!r} is not 'yes' or 'no'",
        explanation=(
            "`video:family_friendly`, `video:requires_subscription` or `video:live` is not `yes` "
            "or `no`. The XSD also allows `Yes`/`YES`/`No`/`NO`."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://www.google.com/schemas/sitemap-video/1.1/sitemap-video.xsd"
        ),
        decided_by=("checker",),
    ),
    Rule(
        id="video-restriction-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid video restriction",
        message="<video:restriction>: {reason}",
        explanation=(
            "One of: more than one `video:restriction` per video; the `relationship` attribute "
            "missing or not `allow`/`deny`; the value not a space-separated list of ISO 3166-1 "
            "alpha-2 codes (the XSD pattern wants upper case)."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://www.google.com/schemas/sitemap-video/1.1/sitemap-video.xsd"
        ),
        decided_by=("checker",),
    ),
    Rule(
        id="video-platform-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid video platform",
        message="<video:platform>: {reason}",
        explanation=(
            "One of: more than one `video:platform` per video; `relationship` missing or not "
            "`allow`/`deny`; values other than space-separated `web`, `mobile`, `tv`."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
        decided_by=("checker",),
    ),
    Rule(
        id="video-tag-too-many",
        scope="extension",
        severity=ERR,
        title="More than 32 video tags",
        message="{count} <video:tag> elements in one video (limit 32)",
        explanation="More than 32 `video:tag` elements in one video.",
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://www.google.com/schemas/sitemap-video/1.1/sitemap-video.xsd"
        ),
        decided_by=("checker",),
    ),
    Rule(
        id="video-uploader-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid video uploader",
        message="<video:uploader>: {reason}",
        explanation=(
            "One of: more than one `video:uploader`; the name is over 255 characters; the `info` "
            "attribute URL is not on the same domain as `<loc>`."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
        decided_by=("checker",),
    ),
    Rule(
        id="video-deprecated-tags",
        scope="extension",
        severity=WARN,
        title="Deprecated video tag",
        message="deprecated {tag}, without effect since August 2022 (occurrences: {count:,})",
        explanation=(
            "One of `video:category`, `video:gallery_loc`, `video:price` (and its attributes), "
            "`video:tvshow` (and its children), or `video:player_loc` with `allow_embed` or "
            "`autoplay` is present. Google deprecated them in May 2022 and they have had no effect "
            "since 6 Aug 2022. The bundled XSD still defines them."
        ),
        source="https://developers.google.com/search/blog/2022/05/spring-cleaning-sitemap-extensions",
        decided_by=("checker",),
    ),
    Rule(
        id="video-element-order",
        scope="extension",
        severity=WARN,
        title="<video:video> children out of schema order",
        message="<video:video> children are not in schema order: {order}",
        explanation=(
            "The children of `<video:video>` are not in the XSD sequence (`thumbnail_loc`, "
            "`title`, `description`, `content_loc`, `player_loc`, `duration`, `expiration_date`, "
            "`rating`, `content_segment_loc`, `view_count`, `publication_date`, `tag`, `category`, "
            "`family_friendly`, `restriction`, `gallery_loc`, `price`, `requires_subscription`, "
            "`uploader`, `tvshow`, `platform`, `live`, `id`). Only the schema requires this order."
        ),
        source="https://www.google.com/schemas/sitemap-video/1.1/sitemap-video.xsd",
        decided_by=("checker",),
    ),
)

"""The video extension (<video:video>)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sitemap_tui.engine import urlpolicy
from sitemap_tui.engine.model import Entry, Issue, Video
from sitemap_tui.engine.values import parse_w3c_datetime
from sitemap_tui.validate.checkstate import (
    _DECIMAL_RE,
    _INT_RE,
    _RESTRICTION_RE,
    _VIDEO_DATE_RE,
    FUTURE_MARGIN,
    MAX_UPLOADER_NAME,
    MAX_VIDEO_DESCRIPTION,
    MAX_VIDEO_DURATION,
    MAX_VIDEO_TAGS,
    MAX_VIDEO_TITLE,
    PLATFORMS,
    VIDEO_DEPRECATED,
    VIDEO_DEPRECATED_ATTRS,
    VIDEO_FILES,
    VIDEO_ORDER,
    VIDEO_REQUIRED,
    VIDEO_YES_NO,
    YES_NO,
    FileContext,
    FileState,
    _local,
    tally,
    video_file_problem,
)
from sitemap_tui.validate.codes import ISO3166_ALPHA2
from sitemap_tui.validate.rules import ERR, WARN, Rule, make_issue

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
        decided_by=("video.check_videos",),
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
        decided_by=("video.check_videos",),
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
        decided_by=("video.check_videos",),
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
        decided_by=("video.check_videos",),
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
        decided_by=("video.check_videos",),
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
        decided_by=("video.check_videos",),
    ),
    Rule(
        id="video-rating-range",
        scope="extension",
        severity=ERR,
        title="Video rating out of range",
        message="video rating {value!r} is not a number from 0.0 to 5.0",
        explanation="`video:rating` is not a number from 0.0 to 5.0 inclusive.",
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
        decided_by=("video.check_videos",),
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
        decided_by=("video.check_videos",),
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
        decided_by=("video.check_videos",),
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
        decided_by=("video.check_videos",),
    ),
    Rule(
        id="video-publication-future",
        scope="extension",
        severity=WARN,
        title="Video publication date in the future",
        message="video publication_date {value!r} is in the future",
        explanation="`video:publication_date` is later than the fetch time plus 24 h. This is a heuristic.",
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
        decided_by=("video.check_videos",),
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
        decided_by=("video.check_videos",),
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
        decided_by=("video._video_relationship",),
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
        decided_by=("video._video_relationship",),
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
        decided_by=("video.check_videos",),
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
        decided_by=("video._video_uploader",),
    ),
    Rule(
        id="video-deprecated-tags",
        sample=True,
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
        decided_by=("video.check_videos",),
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
        decided_by=("video.check_videos",),
    ),
)


# -- checks (called by the streaming checker, validate/checker.py) --------------------


def _count(v: Video, name: str) -> int:
    n = len(v.multi.get(name, ()))
    if v.tags:
        n = max(n, sum(1 for t in v.tags if _local(t) == name))
    if not n and name in v.fields:
        n = 1
    return n

def check_videos(ctx: FileContext,
    st: FileState,
    entry: Entry,
    page: str,
    line: int | None,
    url: str | None,
    out: list[Issue],
) -> None:
    nid = ctx.node_id
    now = ctx.now
    page_norm: str | None = None
    v: Video
    for v in entry.videos:
        vline = v.line or line

        def add(rule: str, _vline: int | None = vline, **fields: Any) -> None:
            out.append(make_issue(rule, node_id=nid, line=_vline, url=url, **fields))

        def at(name: str, _v: Video = v, _vline: int | None = vline) -> int | None:
            """The line of the child a value's finding is about (found from outside: the GitHub
            and SARIF annotations pointed at <video:video>, several lines above)."""
            return _v.lines.get(name) or _vline

        f = v.fields

        def val(name: str, _f: dict[str, str] = f) -> str | None:
            x = _f.get(name)
            return x.strip() if x is not None else None

        # one written but blank is said so: "missing" sent users looking for a tag that is there
        missing = [f"<video:{n}>" + (" (empty)" if n in f else "") for n in VIDEO_REQUIRED if not val(n)]
        if missing:
            add("video-required-missing", missing=", ".join(missing))
        content, player = val("content_loc"), val("player_loc")
        if not content and not player:
            add("video-no-media-url")
        for name in VIDEO_FILES:
            target = val(name)
            if not target:
                continue
            why = video_file_problem(target)
            if why is not None:
                # "None" from a CMS, a relative path, rtmp://: Googlebot cannot fetch it
                add(
                    "video-files-not-accessible",
                    at(name),
                    element=f"<video:{name}>",
                    value=target,
                    reason=why,
                )
                continue
            if name == "thumbnail_loc" or not page:
                continue
            if target == page:
                add("video-url-equals-page", at(name), element=name)
            else:
                if page_norm is None:
                    page_norm = urlpolicy.normalize(page)
                if urlpolicy.normalize(target) == page_norm:
                    add("video-url-equals-page", at(name), element=name)
        desc = f.get("description")
        if desc is not None and len(desc) > MAX_VIDEO_DESCRIPTION:
            add("video-description-too-long", at("description"), length=len(desc))
        title = f.get("title")
        if title is not None and len(title) > MAX_VIDEO_TITLE:
            add("video-title-too-long", at("title"), length=len(title))
        x = val("duration")
        if x is not None and not (_INT_RE.fullmatch(x) and 1 <= int(x) <= MAX_VIDEO_DURATION):
            add("video-duration-range", at("duration"), value=f["duration"])
        x = val("rating")
        if x is not None and not (_DECIMAL_RE.fullmatch(x) and 0.0 <= float(x) <= 5.0):
            add("video-rating-range", at("rating"), value=f["rating"])
        x = val("view_count")
        if x is not None and not _INT_RE.fullmatch(x):
            add("video-view-count-invalid", at("view_count"), value=f["view_count"])
        for name in ("publication_date", "expiration_date"):
            x = val(name)
            if x is None:
                continue
            dt = parse_w3c_datetime(x) if _VIDEO_DATE_RE.fullmatch(x) else None
            if dt is None:
                add("video-date-invalid", at(name), element=name, value=f[name])
            elif name == "expiration_date" and dt < now:
                add("video-expired", at(name), value=x)
            elif name == "publication_date" and dt > now + FUTURE_MARGIN:
                add("video-publication-future", at(name), value=x)
        for name in VIDEO_YES_NO:
            x = val(name)
            if x is not None and x not in YES_NO:
                add("video-yes-no-invalid", at(name), element=name, value=f[name])
        # (each at its element's line, as the values above)
        _video_relationship(v, "restriction", lambda rule, **f: add(rule, at("restriction"), **f))
        _video_relationship(v, "platform", lambda rule, **f: add(rule, at("platform"), **f))
        n = _count(v, "tag")
        if n > MAX_VIDEO_TAGS:
            add("video-tag-too-many", count=n)
        _video_uploader(v, page, lambda rule, **f: add(rule, at("uploader"), **f))
        for name in VIDEO_DEPRECATED:
            if name in f or name in v.multi or any(_local(t) == name for t in v.tags):
                tally(  # (on the tag's own line: found from outside, it was the video's)
                    st, "video-deprecated-tags", name, at(name), url, tag=f"<video:{name}>"
                )
        for key in VIDEO_DEPRECATED_ATTRS:
            if key in v.attrs:
                attr = key.partition("@")[2]
                tally(
                    st,
                    "video-deprecated-tags",
                    key,
                    at("player_loc"),
                    url,
                    tag=f"<video:player_loc {attr}=...>",
                )
        if v.tags:
            last = -1
            for t in v.tags:
                rank = VIDEO_ORDER.get(_local(t))
                if rank is None:
                    continue
                if rank < last:
                    add("video-element-order", order=", ".join(_local(t) for t in v.tags))
                    break
                last = rank

def _video_relationship(v: Video, name: str, add: Any) -> None:
    n = _count(v, name)
    if not n:
        return
    # the ids spelt out, so that the rule-coverage test finds their decider
    rule = "video-restriction-invalid" if name == "restriction" else "video-platform-invalid"
    if n > 1:
        add(rule, reason=f"{n} <video:{name}> elements; at most one is allowed")
    rel = v.attrs.get(f"{name}@relationship")
    if rel is None or not rel.strip():
        add(rule, reason="the relationship attribute (allow or deny) is missing")
    elif rel.strip() not in ("allow", "deny"):
        add(rule, reason=f"relationship {rel!r} is not 'allow' or 'deny'")
    value = v.fields.get(name, "")
    if name == "restriction":
        codes = value.split()
        if _RESTRICTION_RE.fullmatch(value.strip()) is None:
            add(
                rule,
                reason=f"{value.strip()[:60]!r} is not a space-separated list of upper-case country codes",
            )
        else:
            unknown = [c for c in codes if c not in ISO3166_ALPHA2]
            if unknown:
                add(
                    rule,
                    reason=f"not ISO 3166-1 alpha-2 country codes: {' '.join(unknown[:10])}",
                )
    else:
        words = value.split()
        bad = [w for w in words if w not in PLATFORMS]
        if bad:  # (an empty list is the schema's, as an empty <video:restriction>)
            add(
                rule,
                reason=f"{value.strip()[:60]!r} is not a space-separated list of web, mobile, tv",
            )

@lru_cache(maxsize=1)
def _suffixes() -> Any:
    """The Public Suffix List, bundled with publicsuffixlist, loaded once (~0.1 s) by the first
    uploader page checked, in the process that meets it."""
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList()


def _same_domain(a: str, b: str) -> bool:
    """Whether two hosts are one site's: equal, one under the other, or under one registrable
    domain (blog.example.com and shop.example.com: found from outside, a sibling subdomain was an
    error and www's sibling not). The registrable domain is the Public Suffix List's, private
    suffixes included: victim.github.io and attacker.github.io are two sites, as are
    shop.example.me.uk and evil.me.uk. An address matches only itself."""
    if a == b or a.endswith("." + b) or b.endswith("." + a):
        return True
    if ":" in a or ":" in b or a.replace(".", "").isdigit() or b.replace(".", "").isdigit():
        return False
    psl = _suffixes()
    site = psl.privatesuffix(a)
    return site is not None and site == psl.privatesuffix(b)


def _video_uploader(v: Video, page: str, add: Any) -> None:
    n = _count(v, "uploader")
    if not n:
        return
    if n > 1:
        add(
            "video-uploader-invalid",
            reason=f"{n} <video:uploader> elements; at most one is allowed",
        )
    name = v.fields.get("uploader", "")
    if len(name.strip()) > MAX_UPLOADER_NAME:
        add(
            "video-uploader-invalid",
            reason=f"the name is {len(name.strip()):,} characters long (limit 255)",
        )
    info = v.attrs.get("uploader@info")
    if info and info.strip() and page:
        a = urlpolicy.registrable_host(info.strip())
        b = urlpolicy.registrable_host(page)
        if a is None:  # "/users/me": no host to compare (the message named it as the page's domain)
            add("video-uploader-invalid", reason=f"the info URL {info.strip()[:60]!r} is not an absolute URL")
        elif b is not None and not _same_domain(a, b):
            add("video-uploader-invalid", reason=f"the info URL is on {a!r}, not on the page's domain {b!r}")

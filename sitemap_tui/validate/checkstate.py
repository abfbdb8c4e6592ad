"""What the streaming checks share: the catalogue's limits and tables, the per-file state
and context, and the helpers the rule families' checks use (``validate/rules/``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sitemap_tui.engine.model import (
    FoundBy,
    NodeKind,
)
from sitemap_tui.engine.values import (
    CHANGEFREQS,
)
from sitemap_tui.engine.xmlns import (  # noqa: F401 - the families import them from here
    ATOM03_NS,
    IMAGE_NS,
    MOBILE_NS,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
)
from sitemap_tui.validate.urlcheck import (
    Origin,
    UrlParts,
    absolute_url_problem,
)

# -- limits and constants from the catalogue ---------------------------------------------------

MAX_URLS = 50_000
NEAR_URLS = 45_000
MAX_BYTES = 52_428_800
NEAR_BYTES = 47_185_920
MAX_IMAGES = 1_000
MAX_NEWS = 1_000
MAX_VIDEO_TAGS = 32
MAX_VIDEO_DESCRIPTION = 2_048
MAX_VIDEO_TITLE = 100
MAX_VIDEO_DURATION = 28_800
MAX_UPLOADER_NAME = 255
FUTURE_MARGIN = timedelta(hours=24)
NEWS_MAX_AGE = timedelta(hours=48)
FIRST_WEB_PAGE = datetime(1991, 8, 6, tzinfo=UTC)


def period_before(raw: str, listed: datetime, other: datetime) -> bool:
    """Whether the W3C date ``raw`` (parsed: ``listed``) ends before ``other``: a year or a
    month is a period, and "2026-11" includes the 20th (found from outside: it was compared as
    its first instant, and said to be older than a lastmod inside it); a day is a calendar day."""
    n = len(raw)
    if n == 4:
        return listed.year < other.year
    if n == 7:
        return (listed.year, listed.month) < (other.year, other.month)
    if n == 10:
        return listed.date() < other.date()
    return listed < other

#: Canonical prefix of each extension namespace, as the parser writes it in ``Entry.tags``.
EXTENSION_PREFIXES = {
    IMAGE_NS: "image",
    VIDEO_NS: "video",
    NEWS_NS: "news",
    XHTML_NS: "xhtml",
    MOBILE_NS: "mobile",
}
_PREFIX_NS = {prefix: ns for ns, prefix in EXTENSION_PREFIXES.items()}

CORE_ORDER = {"loc": 0, "lastmod": 1, "changefreq": 2, "priority": 3}
INDEX_CHILD_TAGS = frozenset({"loc", "lastmod"})
INDEX_ORDER = {"loc": 0, "lastmod": 1}
_URL_EXPECTED = "loc, lastmod, changefreq, priority, extensions"
_SITEMAP_EXPECTED = "loc, lastmod, extensions"
# every in-order, unrepeated sequence of core elements: the common case, checked in one lookup
_PLAIN_TAGS = frozenset(
    tuple(name for bit, name in enumerate(CORE_ORDER) if mask & (1 << bit)) for mask in range(1, 16)
)
IMAGE_ORDER = {"loc": 0, "caption": 1, "geo_location": 2, "title": 3, "license": 4}
IMAGE_DEPRECATED = ("caption", "title", "geo_location", "license")
VIDEO_SEQUENCE = (
    "thumbnail_loc", "title", "description", "content_loc", "player_loc", "duration",
    "expiration_date", "rating", "content_segment_loc", "view_count", "publication_date", "tag",
    "category", "family_friendly", "restriction", "gallery_loc", "price", "requires_subscription",
    "uploader", "tvshow", "platform", "live", "id",
)  # fmt: skip
VIDEO_ORDER = {name: i for i, name in enumerate(VIDEO_SEQUENCE)}
VIDEO_REQUIRED = ("thumbnail_loc", "title", "description")
VIDEO_DEPRECATED = ("category", "gallery_loc", "price", "tvshow")
VIDEO_DEPRECATED_ATTRS = ("player_loc@allow_embed", "player_loc@autoplay")
VIDEO_YES_NO = ("family_friendly", "requires_subscription", "live")
YES_NO = frozenset({"yes", "no", "Yes", "No", "YES", "NO"})
PLATFORMS = frozenset({"web", "mobile", "tv"})
STREAMING_SCHEMES = frozenset({"rtmp", "rtmpe", "rtmps", "rtmpt", "rtsp", "rtsps", "mms", "rtp"})
VIDEO_FILES = ("thumbnail_loc", "content_loc", "player_loc")  # URLs Googlebot fetches
VIDEO_SCHEMES = frozenset({"http", "https", "ftp"})
NEWS_LEGACY = ("access", "genres", "keywords", "stock_tickers")
CHANGEFREQ_SET = frozenset(CHANGEFREQS)

_APP_LINK_SCHEMES = ("android-app:", "ios-app:")  # rel=alternate deep links into an app


_PING_RE = re.compile(
    r"^https?://(?:www\.)?(google|bing)\.com/(?:webmasters?/(?:tools/)?)?ping(?:\.aspx)?\?", re.I
)
_HREFLANG_RE = re.compile(r"([a-z]{2,3})(?:-([a-z]{4}))?(?:-([a-z]{2}|\d{3}))?", re.I | re.ASCII)
_NEWS_LANG_RE = re.compile(r"zh-cn|zh-tw|[a-z]{2,3}", re.ASCII)
_PAREN_TAIL_RE = re.compile(r"\([^()]*\)\s*$")
_INT_RE = re.compile(r"\+?\d{1,12}", re.ASCII)
# xsd:decimal's lexical form, sign included: "-0" is 0, which a 0.0..1.0 range accepts
_DECIMAL_RE = re.compile(r"[+-]?(?:\d{1,12}(?:\.\d{0,20})?|\.\d{1,20})", re.ASCII)
_VIDEO_DATE_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))?", re.ASCII
)
_RFC3339_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})", re.ASCII
)
_RESTRICTION_RE = re.compile(r"(?:[A-Z]{2}(?: +[A-Z]{2})*)?", re.ASCII)
_HREFLANG_HINTS = {
    "en-uk": " (the United Kingdom is GB: use en-GB)",
    "es-la": " (LA is Laos; Latin America has no ISO 3166-1 code)",
}


def _ns_key(ns: str) -> str:
    """Namespace URI reduced for near-miss comparison (scheme, www., case, trailing / dropped)."""
    k = ns.strip().lower()
    for p in ("http://", "https://"):
        if k.startswith(p):
            k = k[len(p) :]
            break
    if k.startswith("www."):
        k = k[4:]
    return k.rstrip("/#")


_KNOWN_NS_KEYS = {_ns_key(ns): ns for ns in (*EXTENSION_PREFIXES, SITEMAP_NS)}
_NS_HINTS = (
    ("sitemap-image", IMAGE_NS),
    ("sitemap-video", VIDEO_NS),
    ("sitemap-news", NEWS_NS),
    ("sitemap-mobile", MOBILE_NS),
    ("w3.org/1999/xhtml", XHTML_NS),
)


def expected_namespace(ns: str) -> str | None:
    """The extension namespace that ``ns`` (not an exact known one) was probably meant to be."""
    key = _ns_key(ns)
    hit = _KNOWN_NS_KEYS.get(key)
    if hit is not None:
        return hit
    for needle, target in _NS_HINTS:
        if needle in key:
            return target
    return None


def video_file_problem(target: str) -> str | None:
    """Why Googlebot cannot fetch a video's content, player or thumbnail URL (stripped), or
    None. Google fetches them over HTTP(S) or FTP."""
    scheme = target.partition(":")[0].lower()
    if scheme in STREAMING_SCHEMES:
        return f"streaming-only protocol {scheme}:"
    return absolute_url_problem(target, VIDEO_SCHEMES)


def _local(tag: str) -> str:
    """Local name of a tag as written in ``Entry.tags`` / ``Video.tags`` (prefix/ns removed)."""
    if tag[:1] == "{":
        return tag[tag.find("}") + 1 :]
    return tag.rpartition(":")[2]


# -- context and per-file state -----------------------------------------------------------------


@dataclass(slots=True)
class Tally:
    """A per-file reminder: how often, and where first."""

    count: int
    line: int | None
    url: str | None
    fields: dict[str, Any]


@dataclass(slots=True)
class FileState:
    entries: int = 0
    # entries with a URL: the "N of TOTAL" of the per-file reminders counts URLs, as the
    # statistics do (an empty <loc> is no URL: "URLs without <lastmod>: 2 of 3" beside "1 URL")
    urls: int = 0
    children: int = 0
    base_key: tuple[str, str | None] | None = None
    base: UrlParts | None = None
    base_dir: str = "/"
    requested: UrlParts | None = None  # the requested URL, when the file was redirected
    requested_dir: str = "/"
    # (scheme, host, port) of each robots.txt that names this sitemap: a cross-submission is one
    # site's (an origin's), not every port and scheme of its host name
    robots_origins: frozenset[Origin] = frozenset()
    seen: dict[int, int] = field(default_factory=dict)  # hash(normalised URL) -> first line
    seen_children: dict[int, int] = field(default_factory=dict)
    tallies: dict[tuple[str, str], Tally] = field(default_factory=dict)
    cross_ok: set[Origin] = field(default_factory=set)
    # check_location's verdicts by URL shape, valid for the base they were made against
    location_base: UrlParts | None = None
    location_verdicts: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    news: int = 0
    news_name: str | None = None
    news_names_reported: set[str] = field(default_factory=set)
    lastmod_max: datetime | None = None
    index_extension_reported: set[str] = field(default_factory=set)
    # the per-entry reminders, pre-registered (first in the report) and bumped in place
    lastmod_missing: Tally = field(default_factory=lambda: Tally(0, None, None, {}))
    changefreq_seen: Tally = field(default_factory=lambda: Tally(0, None, None, {}))
    priority_seen: Tally = field(default_factory=lambda: Tally(0, None, None, {}))

    def __post_init__(self) -> None:
        self.tallies[("lastmod-missing", "")] = self.lastmod_missing
        self.tallies[("changefreq-ignored", "")] = self.changefreq_seen
        self.tallies[("priority-ignored", "")] = self.priority_seen


@dataclass
class FileContext:
    """What the checker needs to know about the file being checked.

    ``kind`` and ``final_url`` may be updated while the file streams (the explorer sets them
    once the response and the root element are known). The optional ``parent_*`` and
    ``listed_lastmod_raw`` fields let index-scope rules that are decided while checking a
    *child* (``index-child-is-feed-or-text``, ``index-lastmod-stale``,
    ``index-child-unfetchable``, ``robots-sitemap-unfetchable``) point at the parent's line.
    """

    node_id: int | None
    url: str
    final_url: str | None = None
    kind: NodeKind = NodeKind.UNKNOWN
    found_by: FoundBy = FoundBy.USER
    parent_url: str | None = None
    parent_kind: NodeKind | None = None
    robots_listed_by: set[str] = field(default_factory=set)
    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    parent_node_id: int | None = None
    parent_line: int | None = None  # line of the parent (index or robots.txt) naming this file
    listed_lastmod_raw: str | None = None  # the parent index's <lastmod> for this file
    _state: FileState | None = field(default=None, init=False, repr=False, compare=False)
    _xsd: Any = field(default=None, init=False, repr=False, compare=False)


def tally(
    st: FileState, rule: str, key: str, line: int | None, url: str | None, **fields: object
) -> None:
    """Count one occurrence of a per-file reminder (reported once by ``end_file``)."""
    t = st.tallies.get((rule, key))
    if t is None:
        st.tallies[(rule, key)] = Tally(1, line, url, fields)
    else:
        if not t.count:
            t.line, t.url = line, url
        t.count += 1


def bump(t: Tally, line: int | None, url: str | None) -> None:
    """Count one occurrence of a pre-registered reminder."""
    if not t.count:
        t.line, t.url = line, url
    t.count += 1

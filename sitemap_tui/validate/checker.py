"""The streaming checker: per-entry, per-child, per-file and robots.txt rules.

The explorer calls, for every sitemap file::

    checker.begin_file(ctx)
    checker.check_entry(ctx, entry)   # for every <url> / text line / feed item
    checker.check_child(ctx, child)   # for every <sitemap> of an index
    checker.end_file(ctx, info, stats)

and ``check_robots(robots, ctx)`` for every robots.txt. Each returns a list of
:class:`~sitemap_tui.engine.model.Issue`. Per-file state lives on the :class:`FileContext`
(``begin_file`` creates it), so one ``Checker`` can serve files parsed concurrently.

Noise policy: rules about one entry are reported on that entry (with its line). Rules that are
reminders about the generator rather than about one entry (``lastmod-missing``,
``changefreq-ignored``, ``priority-ignored``, deprecated/legacy extension tags, unknown
namespaces, images on another host, ``hreflang-x-default-missing`` ...) are counted while the
file streams and reported once per file by ``end_file``, at the first occurrence, with a count.

Rules that need other files, the XSD or HTTP fetches of the listed pages are not decided here:
each rule's ``decided_by`` (in its family module, ``validate/rules/``) names what decides it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from functools import lru_cache
from typing import Any

from sitemap_tui.engine import urlpolicy
from sitemap_tui.engine.model import (
    Alternate,
    ChildRef,
    Entry,
    FileStats,
    FoundBy,
    Image,
    Issue,
    News,
    NodeKind,
    Video,
)
from sitemap_tui.engine.robots import RobotsFile
from sitemap_tui.engine.values import (
    CHANGEFREQS,
    is_xsd_datetime,
    parse_any_feed_date,
    parse_rfc822_datetime,
    parse_w3c_datetime,
)
from sitemap_tui.validate.codes import ISO639_1, ISO3166_ALPHA2, ISO15924
from sitemap_tui.validate.registry import RULES, RegistryJudge, make_issue
from sitemap_tui.validate.urlcheck import (
    LocFinding,
    UrlParts,
    absolute_url_problem,
    analyze_loc,
    directory_of,
    split_base,
    url_problem,
    url_problem_and_host,
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

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
MOBILE_NS = "http://www.google.com/schemas/sitemap-mobile/1.0"
ATOM03_NS = "http://purl.org/atom/ns#"

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
_DECIMAL_RE = re.compile(r"\+?(?:\d{1,12}(?:\.\d{0,20})?|\.\d{1,20})", re.ASCII)
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


def lastmod_findings(
    raw: str, dt: datetime | None, now: datetime, invalid_rule: str
) -> tuple[list[tuple[str, dict[str, object]]], datetime | None]:
    """The findings about one ``<lastmod>`` value and the instant it gives (None: invalid).

    The same checks for a ``<url>`` and for an index's ``<sitemap>``; ``invalid_rule`` is the
    rule for a value that is not W3C Datetime (``lastmod-invalid-format``,
    ``index-lastmod-invalid``). A value the XSD accepts but W3C Datetime does not gets only
    the milder lastmod-xsd-valid-but-not-w3c: one fault, one finding. ``dt``: the parser's
    reading of ``raw``, when it has one.
    """
    stripped = raw.strip()
    if stripped != raw:
        dt = None  # surrounding whitespace: not W3C Datetime (the XSD collapses it)
    elif dt is None:
        dt = parse_w3c_datetime(raw)
    if dt is None:
        if not is_xsd_datetime(raw):
            return [(invalid_rule, {"value": raw})], None
        if stripped != raw:
            why = "surrounding whitespace"
        elif "T" in stripped:
            why = "a time without a time zone is ambiguous"
        elif len(stripped) > 10 and stripped[4] == "-":
            why = "a date cannot carry a time zone"
        else:
            why = "year outside 0000-9999"
        return [("lastmod-xsd-valid-but-not-w3c", {"value": raw, "reason": why})], None
    found: list[tuple[str, dict[str, object]]] = []
    # W3C-valid: the XSD also accepts YYYY-MM-DD and date-times with seconds and a zone
    # within +-14:00; YYYY, YYYY-MM and hh:mm without seconds it rejects.
    n = len(raw)
    if n != 10 and not (n >= 20 and raw[16] == ":" and _xsd_zone_ok(raw)):
        found.append(("lastmod-w3c-but-xsd-invalid", {"value": raw}))
    if dt > now + FUTURE_MARGIN:
        found.append(("lastmod-future", {"value": raw}))
    elif dt < FIRST_WEB_PAGE:
        found.append(("lastmod-implausibly-old", {"value": raw}))
    return found, dt


def video_file_problem(target: str) -> str | None:
    """Why Googlebot cannot fetch a video's content, player or thumbnail URL (stripped), or
    None. Google fetches them over HTTP(S) or FTP."""
    scheme = target.partition(":")[0].lower()
    if scheme in STREAMING_SCHEMES:
        return f"streaming-only protocol {scheme}:"
    return absolute_url_problem(target, VIDEO_SCHEMES)


def _xsd_zone_ok(raw: str) -> bool:
    """For a W3C date-time with seconds: is its zone within the XSD's +-14:00?"""
    if raw[-1] == "Z":
        return True
    hh, mm = raw[-5:-3], raw[-2:]
    return hh < "14" or (hh == "14" and mm == "00")


def _local(tag: str) -> str:
    """Local name of a tag as written in ``Entry.tags`` / ``Video.tags`` (prefix/ns removed)."""
    if tag[:1] == "{":
        return tag[tag.find("}") + 1 :]
    return tag.rpartition(":")[2]


# -- context and per-file state -----------------------------------------------------------------


@dataclass(slots=True)
class _Tally:
    """A per-file reminder: how often, and where first."""

    count: int
    line: int | None
    url: str | None
    fields: dict[str, object]


@dataclass(slots=True)
class _FileState:
    entries: int = 0
    children: int = 0
    base_key: tuple[str, str | None] | None = None
    base: UrlParts | None = None
    base_dir: str = "/"
    requested: UrlParts | None = None  # the requested URL, when the file was redirected
    requested_dir: str = "/"
    robots_hosts: frozenset[str] = frozenset()
    seen: dict[int, int] = field(default_factory=dict)  # hash(normalised URL) -> first line
    seen_children: dict[int, int] = field(default_factory=dict)
    tallies: dict[tuple[str, str], _Tally] = field(default_factory=dict)
    cross_ok: set[str] = field(default_factory=set)
    news: int = 0
    news_name: str | None = None
    news_names_reported: set[str] = field(default_factory=set)
    lastmod_max: datetime | None = None
    index_extension_reported: set[str] = field(default_factory=set)
    # the per-entry reminders, pre-registered (first in the report) and bumped in place
    lastmod_missing: _Tally = field(default_factory=lambda: _Tally(0, None, None, {}))
    changefreq_seen: _Tally = field(default_factory=lambda: _Tally(0, None, None, {}))
    priority_seen: _Tally = field(default_factory=lambda: _Tally(0, None, None, {}))

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
    _state: _FileState | None = field(default=None, init=False, repr=False, compare=False)
    _xsd: Any = field(default=None, init=False, repr=False, compare=False)


class Checker:
    """Runs the single-file rules. ``enabled``: the rule ids to report (``None``: all)."""

    def __init__(self, enabled: Iterable[str] | None = None, xsd_mode: str = "lax") -> None:
        if xsd_mode not in ("lax", "strict", "off"):
            raise ValueError(f"xsd_mode must be lax, strict or off, not {xsd_mode!r}")
        self.xsd_mode = xsd_mode
        self.enabled: frozenset[str] | None = None
        if enabled is not None:
            self.enabled = frozenset(enabled)
            unknown = self.enabled - RULES.keys()
            if unknown:
                raise KeyError(f"unknown rule ids: {', '.join(sorted(unknown))}")
        # the user's selection, applied here and by the judge the engine words its findings
        # through (the checker's issues and the engine's alike)
        self.judge = RegistryJudge(self.enabled)
        self.selection = self.judge.selection

    # -- plumbing ----------------------------------------------------------------------------

    def _keep(self, issues: list[Issue]) -> list[Issue]:
        return self.selection.keep(issues)

    def _state(self, ctx: FileContext) -> _FileState:
        st = ctx._state
        if st is None:
            st = ctx._state = _FileState()
        key = (ctx.url, ctx.final_url)
        if st.base_key != key:
            st.base_key = key
            final = ctx.final_url or ctx.url
            st.base = split_base(final)
            st.base_dir = directory_of(st.base.path) if st.base else "/"
            st.requested = None
            if ctx.final_url and ctx.final_url != ctx.url:
                st.requested = split_base(ctx.url)
                st.requested_dir = directory_of(st.requested.path) if st.requested else "/"
            hosts = {urlpolicy.host_of(u) for u in ctx.robots_listed_by}
            st.robots_hosts = frozenset(h for h in hosts if h)
        return st

    @staticmethod
    def _tally(
        st: _FileState, rule: str, key: str, line: int | None, url: str | None, **fields: object
    ) -> None:
        t = st.tallies.get((rule, key))
        if t is None:
            st.tallies[(rule, key)] = _Tally(1, line, url, fields)
        else:
            if not t.count:
                t.line, t.url = line, url
            t.count += 1

    @staticmethod
    def _bump(t: _Tally, line: int | None, url: str | None) -> None:
        if not t.count:
            t.line, t.url = line, url
        t.count += 1

    # -- per file ----------------------------------------------------------------------------

    def begin_file(self, ctx: FileContext) -> None:
        """Start a file: fresh per-file state (duplicates, counters, reminders)."""
        ctx._state = None
        ctx._xsd = None
        self._state(ctx)

    def element_hook(self, ctx: FileContext) -> Callable[[Any], bool] | None:
        """For the XML parser: each finished <url>/<sitemap> element goes through the chunked
        XSD validator (after the parser took its fields). The validator takes the element
        itself, which costs half of copying its content out (the parser then leaves it be)."""
        xsd_rules = {"xsd-invalid", "core-unknown-attribute", "xsd-schema-location-odd"}
        if self.xsd_mode == "off" or (self.enabled is not None and not xsd_rules & self.enabled):
            return None
        from sitemap_tui.validate.xsd import XsdValidator

        # ext-namespace-unknown comes from the tag checks already; don't report it twice
        validator = XsdValidator(self.xsd_mode, node_id=ctx.node_id, namespace_info=False)
        ctx._xsd = validator
        begun = False

        def hook(el: Any) -> bool:
            nonlocal begun
            if not begun:
                begun = True
                root = el.getparent()
                if root is None:
                    return False
                validator.begin_root(root)
            return validator.take(el)

        return hook

    def end_file(self, ctx: FileContext, info: Any, stats: FileStats | None) -> list[Issue]:
        """File-level rules, once the whole file went through ``check_entry``/``check_child``."""
        st = self._state(ctx)
        out: list[Issue] = []
        nid = ctx.node_id
        kind = ctx.kind
        stopped = bool(getattr(info, "stopped", False)) or bool(getattr(info, "truncated_at", None))
        fmt = getattr(info, "format", None)

        def add(
            rule: str, line: int | None = None, url: str | None = None, **fields: object
        ) -> None:
            out.append(make_issue(rule, node_id=nid, line=line, url=url, **fields))

        count = max(st.entries, stats.url_count if stats else 0)
        if kind is NodeKind.INDEX:
            count = max(st.children, stats.child_count if stats else 0)
        # a file cut at a limit is over it (its own issue says so), not near it
        cuts = getattr(info, "cuts", None) or ()
        if (
            kind in (NodeKind.URLSET, NodeKind.TEXT, NodeKind.INDEX)
            and NEAR_URLS < count <= MAX_URLS
            and "url-count-over-limit" not in cuts
            and "index-too-many-sitemaps" not in cuts
        ):
            add("url-count-near-limit", count=count)
        size = stats.decoded_bytes if stats else 0
        if NEAR_BYTES < size <= MAX_BYTES and "size-over-limit" not in cuts:
            add("size-near-limit", size=size)
        if kind is NodeKind.URLSET and count == 0 and not stopped:
            namespaces = getattr(info, "namespaces", None) or {}
            news = NEWS_NS in namespaces.values()
            add("urlset-empty", news=news)  # the rule grades an empty news sitemap lower
        if kind is NodeKind.INDEX and count == 0 and not stopped:
            add("index-empty")
        if kind is NodeKind.INDEX and ctx.parent_kind is NodeKind.INDEX:
            add("index-nested", parent_url=ctx.parent_url or "?")
        if kind in (NodeKind.RSS, NodeKind.ATOM):
            add("feed-partial-coverage", format="RSS" if kind is NodeKind.RSS else "Atom")
            if fmt == "atom0.3" or getattr(info, "namespace", None) == ATOM03_NS:
                add("feed-atom03")
        if st.news > MAX_NEWS:
            add("news-too-many", count=st.news)
        if ctx.parent_kind is NodeKind.INDEX and kind in (
            NodeKind.RSS,
            NodeKind.ATOM,
            NodeKind.TEXT,
        ):
            what = {
                NodeKind.RSS: "an RSS feed",
                NodeKind.ATOM: "an Atom feed",
                NodeKind.TEXT: "a text sitemap",
            }
            out.append(
                make_issue(
                    "index-child-is-feed-or-text",
                    node_id=ctx.parent_node_id if ctx.parent_node_id is not None else nid,
                    line=ctx.parent_line,
                    url=ctx.url,
                    format=what[kind],
                )
            )
        if ctx.listed_lastmod_raw and ctx.parent_kind is NodeKind.INDEX:
            out += self._stale(ctx, st, stats)
        m = _PING_RE.match(ctx.url)
        if m:
            add("ping-endpoint-deprecated", url=ctx.url, engine=m.group(1).capitalize())

        # per-file reminders, in a stable order
        total = st.entries
        for (rule, _key), t in st.tallies.items():
            if not t.count:
                continue
            fields = dict(t.fields)
            fields["count"] = t.count
            if rule in (
                "lastmod-missing",
                "changefreq-ignored",
                "priority-ignored",
                "feed-item-no-date",
            ):
                fields["total"] = total
            elif rule == "index-lastmod-missing":
                fields["total"] = st.children
            add(rule, line=t.line, url=t.url, **fields)

        if ctx._xsd is not None:
            out.extend(ctx._xsd.finish())
            ctx._xsd = None
        return self._keep(out)

    def _stale(self, ctx: FileContext, st: _FileState, stats: FileStats | None) -> list[Issue]:
        raw = (ctx.listed_lastmod_raw or "").strip()
        listed = parse_w3c_datetime(raw)
        if listed is None:
            return []
        date_only = len(raw) <= 10

        def older(other: datetime) -> bool:
            return listed.date() < other.date() if date_only else listed < other

        reason = None
        if st.lastmod_max is not None and older(st.lastmod_max):
            reason = f"the newest lastmod inside it ({st.lastmod_max.isoformat()})"
        elif stats is not None and stats.last_modified:
            try:
                lm = parsedate_to_datetime(stats.last_modified)
            except (TypeError, ValueError, IndexError, OverflowError):
                lm = None
            if lm is not None and lm.tzinfo is not None and older(lm.astimezone(UTC)):
                reason = f"its HTTP Last-Modified ({stats.last_modified})"
        if reason is None:
            return []
        return [
            make_issue(
                "index-lastmod-stale",
                node_id=ctx.parent_node_id if ctx.parent_node_id is not None else ctx.node_id,
                line=ctx.parent_line,
                url=ctx.url,
                value=raw,
                reason=reason,
            )
        ]

    def file_failed(self, ctx: FileContext, rule_id: str, reason: str) -> list[Issue]:
        """A listed file could not be used (``rule_id``: why, e.g. ``fetch-http-error``).

        Gives ``index-child-unfetchable`` on the index line, or ``robots-sitemap-unfetchable``
        on the robots.txt line, that listed the file (``ctx.parent_*``).
        """
        out: list[Issue] = []
        node = ctx.parent_node_id if ctx.parent_node_id is not None else ctx.node_id
        if ctx.parent_kind is NodeKind.INDEX:
            out.append(
                make_issue(
                    "index-child-unfetchable",
                    node_id=node,
                    line=ctx.parent_line,
                    url=ctx.url,
                    reason=reason,
                )
            )
        elif (ctx.found_by is FoundBy.ROBOTS or ctx.parent_kind is NodeKind.ROBOTS) and rule_id in (
            "fetch-http-error",
            "fetch-private-address",
            "file-is-html",
        ):
            out.append(
                make_issue(
                    "robots-sitemap-unfetchable",
                    node_id=node,
                    line=ctx.parent_line,
                    url=ctx.url,
                    reason=reason,
                )
            )
        return self._keep(out)

    # -- per entry ---------------------------------------------------------------------------

    def check_entry(self, ctx: FileContext, entry: Entry) -> list[Issue]:
        """Every rule that one ``<url>`` (text line, feed item) decides on its own."""
        st = ctx._state
        if st is None or st.base_key is None or st.base_key[1] is not ctx.final_url:
            st = self._state(ctx)
        st.entries += 1
        out: list[Issue] = []
        nid = ctx.node_id
        line = entry.line or None
        kind = ctx.kind
        loc = entry.loc
        s = loc.strip() if loc else ""
        url = s or None

        if kind is NodeKind.INDEX:
            out.append(
                make_issue(
                    "index-wrong-children",
                    node_id=nid,
                    line=line,
                    url=url,
                    element="url",
                    where="in a sitemapindex",
                )
            )
            return self._keep(out)
        feed = kind is NodeKind.RSS or kind is NodeKind.ATOM

        tags = entry.tags
        if tags and not feed and kind is not NodeKind.TEXT and tuple(tags) not in _PLAIN_TAGS:
            self._tags(ctx, st, tags, line, url, out)

        parts: UrlParts | None = None
        if not s:
            if feed:
                out.append(make_issue("feed-item-no-link", node_id=nid, line=line))
            elif loc is None:
                if "loc" not in entry.tags:
                    out.append(make_issue("loc-missing", node_id=nid, line=line))
                elif ctx._xsd is not None:
                    # the parser reported the markup inside <loc> (core-unknown-element)
                    ctx._xsd.reported(line, None, ("core-unknown-element",))
            else:
                out.append(make_issue("loc-empty", node_id=nid, line=entry.loc_line or line))
        else:
            # findings about the URL itself point at <loc>, as the XSD's do
            loc_line = entry.loc_line or line
            findings: list[LocFinding] = []
            parts, normal = analyze_loc(s, findings)
            for f in findings:
                if f.rule == "loc-private-host":
                    # a leaked staging host is a fact about the file, not about each URL; and a
                    # sitemap served from that same host (a dev server) is not a leak at all
                    if st.base is not None and parts is not None and st.base.host == parts.host:
                        continue
                    self._tally(st, "loc-private-host", str(f.fields.get("host", "")), loc_line, url, **f.fields)
                    continue
                out.append(make_issue(f.rule, node_id=nid, line=loc_line, url=url, **f.fields))
            if parts is not None and st.base is not None:
                self._location(ctx, st, parts, loc_line, url, out)
            key = hash(s if normal else urlpolicy.normalize(s))
            first = st.seen.get(key)
            if first is None:
                st.seen[key] = entry.line
            else:
                out.append(
                    make_issue(
                        "duplicate-url-in-file", node_id=nid, line=line, url=url, first_line=first
                    )
                )

        if feed:
            self._feed_date(ctx, st, entry, line, url, out)
        elif kind is not NodeKind.TEXT:
            # value rules point at the element holding the value (lastmod-missing at <url>)
            self._lastmod(ctx, st, entry, entry.lastmod_line or line, url, out)
            raw = entry.changefreq_raw
            if raw is not None:
                vline = entry.changefreq_line or line
                self._bump(st.changefreq_seen, vline, url)
                if raw.strip() not in CHANGEFREQ_SET:
                    out.append(
                        make_issue("changefreq-invalid", node_id=nid, line=vline, url=url, value=raw)
                    )
            raw = entry.priority_raw
            if raw is not None:
                vline = entry.priority_line or line
                self._bump(st.priority_seen, vline, url)
                self._priority(ctx, st, entry, raw, vline, url, out)

        if entry.images:
            self._images(ctx, st, entry, parts, line, url, out)
        if entry.videos:
            self._videos(ctx, st, entry, s, line, url, out)
        if entry.news:
            self._news(ctx, st, entry, line, url, out)
        if entry.alternates:
            self._alternates(ctx, st, entry, s, line, url, out)
        if out and ctx._xsd is not None:
            # schema errors in this entry that these findings already name are left to them
            ctx._xsd.reported(line, url, [i.rule for i in out])
        return self._keep(out)

    # tags ------------------------------------------------------------------------------------

    def _tags(
        self,
        ctx: FileContext,
        st: _FileState,
        tags: list[str],
        line: int | None,
        url: str | None,
        out: list[Issue],
    ) -> None:
        nid = ctx.node_id
        last = -1
        ext_seen = False
        out_of_order = False
        repeated: dict[str, int] | None = None
        seen_core = 0  # bit set of core elements seen
        for tag in tags:
            rank = CORE_ORDER.get(tag)
            if rank is not None:
                bit = 1 << rank
                if seen_core & bit:
                    if repeated is None:
                        repeated = {}
                    repeated[tag] = repeated.get(tag, 1) + 1
                seen_core |= bit
                if rank < last or ext_seen:
                    out_of_order = True
                last = max(last, rank)
                continue
            if tag[:1] == "{":
                ext_seen = True
                self._foreign_tag(ctx, st, tag, line, url, out)
            elif ":" in tag:
                ext_seen = True
                if tag == "mobile:mobile":
                    self._tally(st, "mobile-extension-obsolete", "", line, url)
            else:
                where = " (a <sitemap> belongs in a sitemapindex)" if tag == "sitemap" else ""
                out.append(
                    make_issue(
                        "core-unknown-element",
                        node_id=nid,
                        line=line,
                        url=url,
                        element=tag,
                        where=where,
                    )
                )
        if repeated:
            for tag, n in repeated.items():
                out.append(
                    make_issue(
                        "core-element-repeated",
                        node_id=nid,
                        line=line,
                        url=url,
                        element=tag,
                        count=n,
                        parent="url",
                    )
                )
        if out_of_order:
            out.append(
                make_issue(
                    "core-element-order",
                    node_id=nid,
                    line=line,
                    url=url,
                    parent="url",
                    expected=_URL_EXPECTED,
                    order=", ".join(tags),
                )
            )

    def _foreign_tag(
        self,
        ctx: FileContext,
        st: _FileState,
        tag: str,
        line: int | None,
        url: str | None,
        out: list[Issue],
    ) -> None:
        ns, _, local = tag[1:].partition("}")
        if not ns:
            # no namespace: an undeclared prefix ("{}xhtml:link"); the parser reports
            # ext-prefix-undeclared once per prefix, hreflang links get their own rule here
            if local == "xhtml:link":
                self._tally(
                    st,
                    "hreflang-namespace-missing",
                    "",
                    line,
                    url,
                    element=local,
                    detail=" (prefix not declared)",
                )
            elif ":" not in local:
                self._tally(st, "ext-namespace-unknown", "", line, url, namespace="")
            return
        if local == "xhtml:link":
            # written <xhtml:link>, with xmlns:xhtml bound to another URI (the parser keeps the
            # prefix for this case): the hreflang links are lost, one error, not also "unknown"
            self._tally(
                st,
                "hreflang-namespace-missing",
                ns,
                line,
                url,
                element=local,
                detail=f" (declared as {ns!r})",
            )
            return
        if ns == MOBILE_NS:
            self._tally(st, "mobile-extension-obsolete", "", line, url)
            return
        if ns in EXTENSION_PREFIXES:
            return  # a known namespace written in Clark form: fine
        expected = expected_namespace(ns)
        if expected == XHTML_NS and local == "link":
            self._tally(
                st,
                "hreflang-namespace-missing",
                ns,
                line,
                url,
                element="xhtml:link",
                detail=f" (declared as {ns!r})",
            )
        elif expected is not None and expected != SITEMAP_NS:
            self._tally(st, "ext-namespace-wrong", ns, line, url, namespace=ns, expected=expected)
        else:
            self._tally(st, "ext-namespace-unknown", ns, line, url, namespace=ns)

    # location --------------------------------------------------------------------------------

    @staticmethod
    def _location_rules(
        base: UrlParts, base_dir: str, robots_hosts: frozenset[str], p: UrlParts
    ) -> tuple[list[tuple[str, dict[str, object]]], bool]:
        found: list[tuple[str, dict[str, object]]] = []
        cross = False
        if p.host != base.host:
            # another host: only the host rule (scheme, port and path compare within one site)
            if p.host in robots_hosts:
                cross = True
            else:
                found.append(
                    ("location-different-host", {"host": p.host, "sitemap_host": base.host})
                )
        else:
            if p.scheme != base.scheme:
                found.append(
                    (
                        "location-different-scheme",
                        {"scheme": p.scheme, "sitemap_scheme": base.scheme},
                    )
                )
            if p.port != base.port:
                found.append(
                    (
                        "location-port-mismatch",
                        {"port": p.port or "(default)", "sitemap_port": base.port or "(default)"},
                    )
                )
            if not (p.path or "/").startswith(base_dir):
                if p.host in robots_hosts:
                    cross = True
                else:
                    found.append(("location-outside-path", {"directory": base_dir}))
        return found, cross

    def _location(
        self,
        ctx: FileContext,
        st: _FileState,
        p: UrlParts,
        line: int | None,
        url: str | None,
        out: list[Issue],
    ) -> None:
        base = st.base
        assert base is not None
        found, cross = self._location_rules(base, st.base_dir, st.robots_hosts, p)
        if cross and p.host not in st.cross_ok:
            st.cross_ok.add(p.host)
            robots_url = next(
                (u for u in sorted(ctx.robots_listed_by) if urlpolicy.host_of(u) == p.host),
                "robots.txt",
            )
            out.append(
                make_issue(
                    "robots-cross-submit-ok",
                    node_id=ctx.node_id,
                    line=line,
                    url=url,
                    host=p.host,
                    robots_url=robots_url,
                )
            )
        if not found:
            return
        against_requested: set[str] | None = None
        if st.requested is not None:
            req, _ = self._location_rules(st.requested, st.requested_dir, st.robots_hosts, p)
            against_requested = {rule for rule, _ in req}
        for rule, fields in found:
            note = ""
            if against_requested is not None:
                if rule in against_requested:
                    note = " (also against the requested URL before the redirect)"
                else:
                    note = f" (against the requested URL {ctx.url} it would pass)"
            # a misplaced sitemap usually misplaces every URL: one issue per host, scheme,
            # port or directory with a count (and the first entry), not 50,000 copies
            key = "|".join(str(v) for v in fields.values()) + note
            self._tally(st, rule, key, line, url, note=note, **fields)

    # lastmod, priority, feed dates -----------------------------------------------------------

    def _lastmod(
        self,
        ctx: FileContext,
        st: _FileState,
        entry: Entry,
        line: int | None,
        url: str | None,
        out: list[Issue],
    ) -> None:
        raw = entry.lastmod_raw
        if raw is None:
            self._bump(st.lastmod_missing, line, url)
            return
        found, dt = lastmod_findings(raw, entry.lastmod, ctx.now, "lastmod-invalid-format")
        for rule, fields in found:
            out.append(make_issue(rule, node_id=ctx.node_id, line=line, url=url, **fields))
        if dt is not None and (st.lastmod_max is None or dt > st.lastmod_max):
            st.lastmod_max = dt

    def _priority(
        self,
        ctx: FileContext,
        st: _FileState,
        entry: Entry,
        raw: str,
        line: int | None,
        url: str | None,
        out: list[Issue],
    ) -> None:
        value = entry.priority
        if value is None:
            s = raw.strip()
            if _DECIMAL_RE.fullmatch(s) is not None:
                f = float(s)
                if 0.0 <= f <= 1.0:
                    value = f
        if value is None:
            out.append(
                make_issue("priority-invalid", node_id=ctx.node_id, line=line, url=url, value=raw)
            )

    def _feed_date(
        self,
        ctx: FileContext,
        st: _FileState,
        entry: Entry,
        line: int | None,
        url: str | None,
        out: list[Issue],
    ) -> None:
        raw = entry.lastmod_raw
        if raw is None or not raw.strip():
            self._tally(st, "feed-item-no-date", "", line, url)
            return
        s = raw.strip()
        if ctx.kind is NodeKind.RSS:
            ok = parse_rfc822_datetime(s) is not None
            expected = "an RFC 822 date (e.g. Tue, 10 Jun 2003 04:00:00 GMT)"
            if ok and parse_rfc822_datetime(s, assume_utc=False) is None:
                # readable, but without the zone RFC 822 requires: say what was assumed
                ok = False
                expected = (
                    "an RFC 822 date: it has no time zone (RFC 822 requires one), so UTC was"
                    " assumed"
                )
        else:
            ok = _RFC3339_RE.fullmatch(s) is not None and parse_any_feed_date(s) is not None
            expected = "an RFC 3339 date-time (e.g. 2003-12-13T18:30:02Z)"
        if not ok:
            out.append(
                make_issue(
                    "feed-date-invalid",
                    node_id=ctx.node_id,
                    line=line,
                    url=url,
                    value=raw,
                    expected=expected,
                )
            )

    # images ----------------------------------------------------------------------------------

    def _images(
        self,
        ctx: FileContext,
        st: _FileState,
        entry: Entry,
        page: UrlParts | None,
        line: int | None,
        url: str | None,
        out: list[Issue],
    ) -> None:
        nid = ctx.node_id
        images = entry.images
        if len(images) > MAX_IMAGES:
            out.append(
                make_issue("image-too-many", node_id=nid, line=line, url=url, count=len(images))
            )
        img: Image
        for img in images:
            iline = img.line or line
            s = img.loc.strip() if img.loc else ""
            if not s:
                out.append(make_issue("image-loc-missing", node_id=nid, line=iline, url=url))
            else:
                why, host = url_problem_and_host(s)
                if why is not None:
                    out.append(
                        make_issue(
                            "image-loc-invalid",
                            node_id=nid,
                            line=iline,
                            url=url,
                            value=s,
                            reason=why,
                        )
                    )
                elif page is not None and host and host != page.host:
                    self._tally(
                        st,
                        "image-loc-other-host",
                        host,
                        iline,
                        url,
                        host=host,
                        page_host=page.host,
                    )
            tags = img.tags
            if tags:
                last = -1
                bad_order = False
                for t in tags:
                    rank = IMAGE_ORDER.get(_local(t))
                    if rank is None:
                        continue
                    if rank < last:
                        bad_order = True
                    last = max(last, rank)
                    if rank:
                        name = _local(t)
                        self._tally(st, "image-deprecated-tags", name, iline, url, tag=name)
                if bad_order:
                    out.append(
                        make_issue(
                            "image-element-order",
                            node_id=nid,
                            line=iline,
                            url=url,
                            order=", ".join(tags),
                        )
                    )
            else:
                for name in IMAGE_DEPRECATED:
                    if getattr(img, name) is not None:
                        self._tally(st, "image-deprecated-tags", name, iline, url, tag=name)

    # videos ----------------------------------------------------------------------------------

    @staticmethod
    def _count(v: Video, name: str) -> int:
        n = len(v.multi.get(name, ()))
        if v.tags:
            n = max(n, sum(1 for t in v.tags if _local(t) == name))
        if not n and name in v.fields:
            n = 1
        return n

    def _videos(
        self,
        ctx: FileContext,
        st: _FileState,
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

            def add(rule: str, _vline: int | None = vline, **fields: object) -> None:
                out.append(make_issue(rule, node_id=nid, line=_vline, url=url, **fields))

            f = v.fields

            def val(name: str, _f: dict[str, str] = f) -> str | None:
                x = _f.get(name)
                return x.strip() if x is not None else None

            missing = [f"<video:{n}>" for n in VIDEO_REQUIRED if not val(n)]
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
                        element=f"<video:{name}>",
                        value=target,
                        reason=why,
                    )
                    continue
                if name == "thumbnail_loc" or not page:
                    continue
                if target == page:
                    add("video-url-equals-page", element=name)
                else:
                    if page_norm is None:
                        page_norm = urlpolicy.normalize(page)
                    if urlpolicy.normalize(target) == page_norm:
                        add("video-url-equals-page", element=name)
            desc = f.get("description")
            if desc is not None and len(desc) > MAX_VIDEO_DESCRIPTION:
                add("video-description-too-long", length=len(desc))
            title = f.get("title")
            if title is not None and len(title) > MAX_VIDEO_TITLE:
                add("video-title-too-long", length=len(title))
            x = val("duration")
            if x is not None and not (_INT_RE.fullmatch(x) and 1 <= int(x) <= MAX_VIDEO_DURATION):
                add("video-duration-range", value=f["duration"])
            x = val("rating")
            if x is not None and not (_DECIMAL_RE.fullmatch(x) and 0.0 <= float(x) <= 5.0):
                add("video-rating-range", value=f["rating"])
            x = val("view_count")
            if x is not None and not _INT_RE.fullmatch(x):
                add("video-view-count-invalid", value=f["view_count"])
            for name in ("publication_date", "expiration_date"):
                x = val(name)
                if x is None:
                    continue
                dt = parse_w3c_datetime(x) if _VIDEO_DATE_RE.fullmatch(x) else None
                if dt is None:
                    add("video-date-invalid", element=name, value=f[name])
                elif name == "expiration_date" and dt < now:
                    add("video-expired", value=x)
                elif name == "publication_date" and dt > now + FUTURE_MARGIN:
                    add("video-publication-future", value=x)
            for name in VIDEO_YES_NO:
                x = val(name)
                if x is not None and x not in YES_NO:
                    add("video-yes-no-invalid", element=name, value=f[name])
            self._video_relationship(v, "restriction", add)
            self._video_relationship(v, "platform", add)
            n = self._count(v, "tag")
            if n > MAX_VIDEO_TAGS:
                add("video-tag-too-many", count=n)
            self._video_uploader(v, page, add)
            for name in VIDEO_DEPRECATED:
                if name in f or name in v.multi or any(_local(t) == name for t in v.tags):
                    self._tally(
                        st, "video-deprecated-tags", name, vline, url, tag=f"<video:{name}>"
                    )
            for key in VIDEO_DEPRECATED_ATTRS:
                if key in v.attrs:
                    attr = key.partition("@")[2]
                    self._tally(
                        st,
                        "video-deprecated-tags",
                        key,
                        vline,
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

    def _video_relationship(self, v: Video, name: str, add: Any) -> None:
        n = self._count(v, name)
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
            if bad or not words:
                add(
                    rule,
                    reason=f"{value.strip()[:60]!r} is not a space-separated list of web, mobile, tv",
                )

    @staticmethod
    def _video_uploader(v: Video, page: str, add: Any) -> None:
        n = Checker._count(v, "uploader")
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
            if a is None or b is None or not (a == b or a.endswith("." + b) or b.endswith("." + a)):
                add(
                    "video-uploader-invalid",
                    reason=f"the info URL is not on the page's domain ({a or info.strip()[:60]!r})",
                )

    # news ------------------------------------------------------------------------------------

    def _news(
        self,
        ctx: FileContext,
        st: _FileState,
        entry: Entry,
        line: int | None,
        url: str | None,
        out: list[Issue],
    ) -> None:
        nid = ctx.node_id
        blocks = entry.news
        st.news += len(blocks)
        if len(blocks) > 1:
            out.append(
                make_issue(
                    "news-multiple-per-url", node_id=nid, line=line, url=url, count=len(blocks)
                )
            )
        n: News
        for n in blocks:
            nline = n.line or line

            def add(rule: str, _nline: int | None = nline, **fields: object) -> None:
                out.append(make_issue(rule, node_id=nid, line=_nline, url=url, **fields))

            name = n.publication_name.strip() if n.publication_name else ""
            lang = n.publication_language.strip() if n.publication_language else ""
            date = n.publication_date.strip() if n.publication_date else ""
            title = n.title.strip() if n.title else ""
            missing = []
            if not name and not lang:
                missing.append("<news:publication>")
            else:
                if not name:
                    missing.append("<news:name>")
                if not lang:
                    missing.append("<news:language>")
            if not date:
                missing.append("<news:publication_date>")
            if not title:
                missing.append("<news:title>")
            if missing:
                add("news-required-missing", missing=", ".join(missing))
            if date:
                dt = parse_w3c_datetime(date)
                if dt is None:
                    add(
                        "news-date-invalid",
                        value=n.publication_date,
                        reason="is not a W3C Datetime",
                    )
                elif len(date) < 10:
                    add(
                        "news-date-invalid",
                        value=n.publication_date,
                        reason="needs at least a complete date (YYYY-MM-DD)",
                    )
                else:
                    if len(date) > 10 and date[16:17] != ":":
                        add(
                            "news-date-invalid",
                            no_seconds=True,  # the rule grades this lower
                            value=n.publication_date,
                            reason="has no seconds: Google accepts it but the news XSD rejects it",
                        )
                    if dt > ctx.now + FUTURE_MARGIN:
                        add("news-date-future", value=date)
                    elif dt < ctx.now - NEWS_MAX_AGE:
                        add("news-article-too-old", value=date)
            if lang and not (
                _NEWS_LANG_RE.fullmatch(lang) and (len(lang) != 2 or lang in ISO639_1)
            ):
                add("news-language-invalid", value=n.publication_language)
            if name:
                if st.news_name is None:
                    st.news_name = name
                if name not in st.news_names_reported:
                    if _PAREN_TAIL_RE.search(name):
                        st.news_names_reported.add(name)
                        add(
                            "news-name-inconsistent",
                            value=name,
                            reason="ends with a parenthetical; use the name exactly as on news.google.com",
                        )
                    elif name != st.news_name:
                        st.news_names_reported.add(name)
                        add(
                            "news-name-inconsistent",
                            value=name,
                            reason=f"differs from {st.news_name!r} used earlier in this sitemap",
                        )
            for tag in NEWS_LEGACY:
                if tag in n.extra:
                    self._tally(st, "news-legacy-tags", tag, nline, url, tag=tag)

    # hreflang --------------------------------------------------------------------------------

    def _alternates(
        self,
        ctx: FileContext,
        st: _FileState,
        entry: Entry,
        page: str,
        line: int | None,
        url: str | None,
        out: list[Issue],
    ) -> None:
        nid = ctx.node_id
        codes: dict[str, set[str]] = {}
        spelled: dict[str, str] = {}
        hrefs: list[str] = []
        a: Alternate
        for a in entry.alternates:
            aline = a.line or line
            rel = (a.rel or "").strip()
            code = (a.hreflang or "").strip()
            href = (a.href or "").strip()
            if not code and rel.lower() == "alternate" and (
                (a.media or "").strip() or href.lower().startswith(_APP_LINK_SCHEMES)
            ):
                # Google's annotation of a separate mobile URL, or an app deep link (the former
                # App Indexing): not hreflang links
                continue
            problems = []
            if not rel:
                problems.append("has no rel")
            elif rel.lower() != "alternate":
                problems.append(f'has rel={rel[:40]!r} instead of "alternate"')
            if not code:
                problems.append("has no hreflang")
            if not href:
                problems.append("has no href")
            if problems:
                out.append(
                    make_issue(
                        "hreflang-link-incomplete",
                        node_id=nid,
                        line=aline,
                        url=url,
                        reason=" and ".join(problems),
                    )
                )
            if rel and rel.lower() != "alternate":
                continue
            if href:
                why = absolute_url_problem(href)
                if why is not None:
                    out.append(
                        make_issue(
                            "hreflang-href-not-absolute",
                            node_id=nid,
                            line=aline,
                            url=url,
                            value=href,
                            reason=why,
                        )
                    )
                hrefs.append(href)
            if code:
                hint = hreflang_problem(code)
                if hint is not None:
                    out.append(
                        make_issue(
                            "hreflang-code-invalid",
                            node_id=nid,
                            line=aline,
                            url=url,
                            value=code,
                            hint=hint,
                        )
                    )
                key = code.lower()
                spelled.setdefault(key, code)
                if href:
                    codes.setdefault(key, set()).add(href)
        if not hrefs and not codes:
            return
        for key, targets in codes.items():
            if len(targets) > 1:
                out.append(
                    make_issue(
                        "hreflang-duplicate-code",
                        node_id=nid,
                        line=line,
                        url=url,
                        value=spelled[key],
                        hrefs=", ".join(sorted(targets)),
                    )
                )
        if page and hrefs and page not in hrefs:
            mine = urlpolicy.normalize(page)
            if all(urlpolicy.normalize(h) != mine for h in hrefs):
                out.append(make_issue("hreflang-missing-self", node_id=nid, line=line, url=url))
        if codes and "x-default" not in codes:
            self._tally(st, "hreflang-x-default-missing", "", line, url)
        regional: dict[str, list[str]] = {}
        for key in codes:
            lang, sep, rest = key.partition("-")
            if sep and rest and lang != "x":
                regional.setdefault(lang, []).append(spelled[key])
        for lang, variants in regional.items():
            if len(variants) >= 2 and lang not in codes:
                self._tally(
                    st,
                    "hreflang-no-generic-language",
                    lang,
                    line,
                    url,
                    language=lang,
                    variants=", ".join(sorted(variants)),
                )

    # -- index children ----------------------------------------------------------------------

    def check_child(self, ctx: FileContext, child: ChildRef) -> list[Issue]:
        """The index rules about one ``<sitemap>`` entry."""
        st = self._state(ctx)
        st.children += 1
        out: list[Issue] = []
        nid = ctx.node_id
        line = child.line or None
        s = child.loc.strip() if child.loc else ""
        url = s or None
        if child.tags and child.tags != ["loc", "lastmod"] and child.tags != ["loc"]:
            self._child_order(nid, child.tags, line, url, out)
        for tag in child.tags:
            if tag in INDEX_CHILD_TAGS:
                continue
            if tag[:1] == "{" or ":" in tag:
                local = _local(tag)
                if tag not in st.index_extension_reported:
                    st.index_extension_reported.add(tag)
                    out.append(
                        make_issue(
                            "index-extension-elements",
                            node_id=nid,
                            line=line,
                            url=url,
                            element=tag if tag[:1] != "{" else local,
                        )
                    )
            else:
                out.append(
                    make_issue(
                        "index-wrong-children",
                        node_id=nid,
                        line=line,
                        url=url,
                        element=tag,
                        where="inside <sitemap>",
                    )
                )
        if not s:
            out.append(
                make_issue("index-sitemap-loc-missing", node_id=nid, line=child.loc_line or line)
            )
        else:
            why = url_problem(s)
            if why is not None:
                out.append(
                    make_issue(
                        "index-loc-invalid",
                        node_id=nid,
                        line=child.loc_line or line,
                        url=url,
                        value=s,
                        reason=why,
                    )
                )
            else:
                self._child_location(ctx, st, s, line, url, out)
                key = hash(urlpolicy.normalize(s))
                first = st.seen_children.get(key)
                if first is None:
                    st.seen_children[key] = child.line
                else:
                    out.append(
                        make_issue(
                            "index-child-duplicate",
                            node_id=nid,
                            line=line,
                            url=url,
                            first_line=first,
                        )
                    )
            m = _PING_RE.match(s)
            if m:
                out.append(
                    make_issue(
                        "ping-endpoint-deprecated",
                        node_id=nid,
                        line=line,
                        url=s,
                        engine=m.group(1).capitalize(),
                    )
                )
        raw = child.lastmod_raw
        if raw is None or not raw.strip():
            self._tally(st, "index-lastmod-missing", "", line, url)
        else:
            # the same checks as a <url>'s lastmod (the XSD's date types are the same)
            found, _ = lastmod_findings(raw, child.lastmod, ctx.now, "index-lastmod-invalid")
            for rule, fields in found:
                out.append(
                    make_issue(rule, node_id=nid, line=child.lastmod_line or line, url=url, **fields)
                )
        if ctx._xsd is not None and out:
            ctx._xsd.reported(line, url, [i.rule for i in out])
        return self._keep(out)

    @staticmethod
    def _child_order(
        nid: int | None, tags: list[str], line: int | None, url: str | None, out: list[Issue]
    ) -> None:
        """core-element-order and core-element-repeated for a <sitemap>: the same sequence
        rules as a <url>'s (loc, lastmod, then extensions), with the same severities."""
        last = -1
        ext_seen = out_of_order = False
        seen: dict[str, int] = {}
        for tag in tags:
            rank = INDEX_ORDER.get(tag)
            if rank is None:
                ext_seen = ext_seen or tag[:1] == "{" or ":" in tag
                continue
            seen[tag] = seen.get(tag, 0) + 1
            if rank < last or ext_seen:
                out_of_order = True
            last = max(last, rank)
        for tag, n in seen.items():
            if n > 1:
                out.append(
                    make_issue(
                        "core-element-repeated",
                        node_id=nid,
                        line=line,
                        url=url,
                        element=tag,
                        count=n,
                        parent="sitemap",
                    )
                )
        if out_of_order:
            out.append(
                make_issue(
                    "core-element-order",
                    node_id=nid,
                    line=line,
                    url=url,
                    parent="sitemap",
                    expected=_SITEMAP_EXPECTED,
                    order=", ".join(tags),
                )
            )

    def _child_location(
        self,
        ctx: FileContext,
        st: _FileState,
        s: str,
        line: int | None,
        url: str | None,
        out: list[Issue],
    ) -> None:
        base = st.base
        if base is None:
            return
        p = split_base(s)
        if p is None:
            return
        if p.host != base.host or p.scheme != base.scheme:
            if p.host in st.robots_hosts and p.host != base.host:
                return  # cross-submitted: the child's host names this index in its robots.txt
            host = p.host if p.host != base.host else f"{p.scheme}://{p.host}"
            index_host = base.host if p.host != base.host else f"{base.scheme}://{base.host}"
            out.append(
                make_issue(
                    "index-child-different-host",
                    node_id=ctx.node_id,
                    line=line,
                    url=url,
                    host=host,
                    index_host=index_host,
                    note="",
                )
            )
        elif not (p.path or "/").startswith(st.base_dir):
            out.append(
                make_issue(
                    "index-child-outside-path",
                    node_id=ctx.node_id,
                    line=line,
                    url=url,
                    directory=st.base_dir,
                )
            )

    def cross_submitted(self, issue: Issue, robots_url: str) -> list[Issue]:
        """``robots-cross-submit-ok`` in place of a location finding (one of
        ``CROSS_SUBMIT_RULES``) that a cross-submission voids: the robots.txt read at
        ``robots_url`` for the host of ``issue.url`` names this sitemap or an index above it.
        The explorer calls this once it read that robots.txt (after the file was parsed)."""
        return self._keep(
            [
                make_issue(
                    "robots-cross-submit-ok",
                    node_id=issue.node_id,
                    line=issue.line,
                    url=issue.url,
                    host=urlpolicy.host_of(issue.url) or "?",
                    robots_url=robots_url,
                )
            ]
        )

    # -- robots.txt --------------------------------------------------------------------------

    def robots_fetch_failed(
        self, ctx: FileContext | None, status: int | None, reason: str
    ) -> list[Issue]:
        """``robots-fetch-error`` for a robots.txt that answered 5xx or could not be reached.

        ``status`` is the HTTP status (``None`` when there was no response). A 4xx is not an
        error: it means "no restrictions"."""
        if status is not None and status < 500:
            return []
        url = ctx.url if ctx is not None else None
        nid = ctx.node_id if ctx is not None else None
        return self._keep([make_issue("robots-fetch-error", node_id=nid, url=url, reason=reason)])

    def check_robots(self, robots: RobotsFile, ctx: FileContext | None = None) -> list[Issue]:
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
        return self._keep(out)


#: Location findings that a cross-submission voids (sitemaps.org "Sitemaps & Cross Submits").
CROSS_SUBMIT_RULES = frozenset(
    {"location-different-host", "location-outside-path", "index-child-different-host"}
)


# -- hreflang codes -------------------------------------------------------------------------------


@lru_cache(maxsize=4096)  # a set repeats a few dozen codes millions of times
def hreflang_problem(code: str) -> str | None:
    """``None`` when ``code`` is a valid hreflang value, else a hint ("" when none fits)."""
    low = code.lower()
    if low == "x-default":
        return None
    hint = _HREFLANG_HINTS.get(low)
    if hint is not None:
        return hint
    if "_" in code:
        return f" (use '-' not '_': {code.replace('_', '-')})"
    m = _HREFLANG_RE.fullmatch(code)
    if m is None:
        return ""
    lang, script, region = m.groups()
    if lang.lower() not in ISO639_1:
        if len(lang) == 2 and lang.upper() in ISO3166_ALPHA2 and not script and not region:
            return " (a country code alone; hreflang needs a language first)"
        return f" ({lang!r} is not an ISO 639-1 language code)"
    if script and script.lower() not in ISO15924:
        return f" ({script!r} is not an ISO 15924 script)"
    if region:
        if region.isdigit():
            return f" ({region!r}: the region must be an ISO 3166-1 alpha-2 code)"
        if region.upper() not in ISO3166_ALPHA2:
            return f" ({region!r} is not an ISO 3166-1 alpha-2 country code)"
    return None

"""Plain data shared by every layer of the engine (no I/O, no Textual)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class NodeKind(StrEnum):
    """What a node of the exploration tree is, as far as we know yet."""

    SITE = "site"  # the synthetic root for a site target
    DIRECTORY = "directory"  # the synthetic root for a local directory target
    ROBOTS = "robots"
    INDEX = "index"
    URLSET = "urlset"
    RSS = "rss"
    ATOM = "atom"
    TEXT = "text"
    HTML = "html"  # an HTML page served where a sitemap was expected
    JSON = "json"
    UNKNOWN = "unknown"  # not fetched yet, or not recognised


class NodeState(StrEnum):
    PENDING = "pending"
    FETCHING = "fetching"
    PARSING = "parsing"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"  # cycle, over a cap, not http(s), or not requested


class FoundBy(StrEnum):
    USER = "user"
    ROBOTS = "robots"
    PROBE = "probe"
    HTML_LINK = "html-link"
    INDEX = "index"


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 2, "warning": 1, "info": 0}[self.value]


@dataclass(slots=True)
class Image:
    loc: str | None = None
    title: str | None = None
    caption: str | None = None
    geo_location: str | None = None
    license: str | None = None
    line: int = 0
    # child element local names in document order (validator: order, unknown tags)
    tags: list[str] = field(default_factory=list)
    loc_line: int = 0  # the first <image:loc>'s line: its findings point at it


@dataclass(slots=True)
class Video:
    """A video:video block; every child element's text keyed by local name.

    Repeated children (tag, price, ...) keep every value in ``multi``; ``attrs`` holds the
    attributes of children that carry them (e.g. ``player_loc@allow_embed``)."""

    fields: dict[str, str] = field(default_factory=dict)
    multi: dict[str, list[str]] = field(default_factory=dict)
    attrs: dict[str, str] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    line: int = 0
    # the line of each child's first occurrence, by local name: a value's finding points at it
    lines: dict[str, int] = field(default_factory=dict)

    def get(self, name: str) -> str | None:
        return self.fields.get(name)


@dataclass(slots=True)
class News:
    publication_name: str | None = None
    publication_language: str | None = None
    publication_date: str | None = None
    title: str | None = None
    # other children (keywords, genres, stock_tickers, access, ...) by local name
    extra: dict[str, str] = field(default_factory=dict)
    line: int = 0


@dataclass(slots=True)
class Alternate:
    rel: str | None
    hreflang: str | None
    href: str | None
    line: int = 0
    # Google's annotation of a separate mobile URL: rel="alternate" with a media query and no
    # hreflang (not an hreflang link)
    media: str | None = None


@dataclass(slots=True)
class Entry:
    """One URL of a urlset, a text sitemap line, or a feed item."""

    loc: str | None
    line: int = 0
    lastmod_raw: str | None = None
    lastmod: datetime | None = None  # timezone-aware UTC, or None when missing/invalid
    changefreq_raw: str | None = None
    changefreq: str | None = None  # one of the seven words, lower-cased, else None
    priority_raw: str | None = None
    priority: float | None = None  # 0.0..1.0, else None
    images: list[Image] = field(default_factory=list)
    videos: list[Video] = field(default_factory=list)
    news: list[News] = field(default_factory=list)
    alternates: list[Alternate] = field(default_factory=list)
    # child element local names of <url>, in order, with namespace prefix for extensions
    # ("loc", "lastmod", "image:image", "{ns}name" for unknown namespaces)
    tags: list[str] = field(default_factory=list)
    # lines of the first <loc>, <lastmod>, <changefreq>, <priority> (None: absent, not XML, or
    # unknown): findings about a value point at its element, as the XSD's do
    loc_line: int | None = None
    lastmod_line: int | None = None
    changefreq_line: int | None = None
    priority_line: int | None = None
    title: str | None = None  # feeds only
    # the lines of the children no field holds, by their name in tags, in order: unknown
    # elements, a core one repeated (from its second); None when there is none (findings point
    # at the element)
    odd_lines: dict[str, list[int]] | None = None


@dataclass(slots=True)
class ChildRef:
    """One <sitemap> of a sitemap index (or one Sitemap: line of robots.txt)."""

    loc: str | None
    line: int = 0
    lastmod_raw: str | None = None
    lastmod: datetime | None = None
    tags: list[str] = field(default_factory=list)
    loc_line: int | None = None  # lines of the first <loc>/<lastmod>, as in Entry
    lastmod_line: int | None = None
    text: str | None = None  # a <sitemap> without <loc>: its own text, often the URL itself
    odd_lines: dict[str, list[int]] | None = None  # as Entry's: where its odd children are


@dataclass(slots=True)
class Issue:
    rule: str
    severity: Severity
    message: str
    node_id: int | None = None
    line: int | None = None
    column: int | None = None
    url: str | None = None  # the entry's URL, when the issue is about one entry
    sitemap: str | None = None  # filled from the node when stored
    # how many findings it counts for: a cap's summary issue ("N more ... not listed") stands
    # for the N it did not list, so every count says how many there are, not how many rows
    weight: int = 1


@dataclass(slots=True)
class FileStats:
    """Transport and parse facts of one fetched file."""

    http_status: int | None = None
    final_url: str | None = None
    content_type: str | None = None
    content_encoding: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    wire_bytes: int = 0
    decoded_bytes: int = 0
    gzipped: bool = False  # the body (after transport decoding) was a gzip file
    xml_encoding: str | None = None
    redirects: int = 0
    ttfb: float | None = None
    fetch_time: float | None = None
    parse_time: float | None = None
    url_count: int = 0
    child_count: int = 0
    truncated_at: str | None = None  # "line:col" where parsing stopped early
    # answered 304 to a re-exploration: its rows are the previous exploration's, unchanged
    # since this date (ISO 8601; engine/refetch.py)
    unchanged_since: str | None = None


@dataclass(slots=True)
class Node:
    id: int
    url: str
    kind: NodeKind = NodeKind.UNKNOWN
    state: NodeState = NodeState.PENDING
    found_by: FoundBy = FoundBy.USER
    parent_id: int | None = None
    depth: int = 0
    error: str | None = None
    stats: FileStats = field(default_factory=FileStats)
    # children are known (the file was parsed) but not necessarily fetched
    expandable: bool = False
    line: int | None = None  # line in the parent where this node was listed
    lastmod_raw: str | None = None  # <lastmod> from the parent index

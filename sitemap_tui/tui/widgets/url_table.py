"""The URL pane: a filter bar over a Line-API virtual table of the store's entries.

How a million rows stay smooth (TEXTUAL-NOTES.md (c), tracker "Performance"):

* Rows are never all in memory. The grid asks for *pages* of :data:`PAGE` rows by position. A page
  is read with a keyset query starting from a neighbouring cached page, from a sparse *anchor*
  (the sort key of every :data:`ANCHOR_EVERY`-th row), or backwards from the end (the tail). Pages
  live in an LRU; rendered lines in a second LRU.
* A background scan (thread worker, its own connection) counts the rows (the scrollbar; the status
  says "counting…" meanwhile and ``virtual_size`` follows what is loaded) and then collects the
  anchors: ``LIMIT 1 OFFSET 999`` hops from anchor to anchor (SQLite skips rows in C: ~60 ms for
  a million ids), or one table scan + sort when a filter and a sort by loc/lastmod meet.
* A query on the UI thread gets a time budget (SQLite progress handler). When a page needs longer
  (a selective filter over millions of rows) a thread worker loads it and the rows show "…".
* Keyset queries are our own (:class:`Query`): same order as ``Store.page`` (sort value, id; NULL
  values last) but written so SQLite walks the ``entries_loc`` / ``entries_lastmod`` indexes
  instead of sorting a million rows for every page.

Every string from the web goes through :func:`sanitize.display` and becomes Segments / ``Text``,
never markup, and no Segment carries an action: clicking a URL only moves the cursor.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer
from textual.widgets import Checkbox, Input, Select, Static
from textual.worker import get_current_worker

from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store import (
    ENTRY_COLUMNS,
    EXTENSIONS,
    INDEXES,
    SORTS,
    EntryFilter,
    EntryRow,
    Store,
    connect,
    search_candidates,
    search_glob,
)
from sitemap_tui.words import plural

PAGE = 100
"""Rows per cached page (a page is one keyset query, ~0.3 ms on a million rows)."""
ANCHOR_EVERY = 1000
"""The background scan keeps the sort key of every ANCHOR_EVERY-th row (a multiple of PAGE)."""
PAGES_CACHED = 100
UI_QUERY_BUDGET = 0.03
"""Seconds a page query may take on the UI thread before a worker takes over."""
SCAN_FIRST_BUDGET = 0.15
"""Seconds the scan worker gives a filter to fill the first page walking the listing's order,
before it considers the search index or a table scan + sort."""
SEARCH_CAP = 300_000
"""A substring whose index lookup would read more rows than this is left to the scan."""
MARK_CAP = 1_000_000
"""``marked_ids`` materialises at most this many ids (and warns)."""
SYNC_RANGE = 5000
"""A shift-click range up to this many rows is marked at once; longer ones in a worker."""
SORT_ORDER = ("id", "loc", "lastmod")
EXT_MARKERS = (("I", "n_images"), ("V", "n_videos"), ("N", "n_news"), ("H", "n_alternates"))

Key = tuple[Any, int]
"""A keyset position: (sort value, entry id)."""


class _End:
    """Sentinel key: after the last row (for "jump to end", a descending query)."""

    def __repr__(self) -> str:
        return "END"


END = _End()


def row_key(row: EntryRow, sort: str) -> Key:
    if sort == "loc":
        return (row.loc, row.id)
    if sort == "lastmod":
        return (row.lastmod, row.id)
    return (row.id, row.id)


# -- SQL -----------------------------------------------------------------------------------------


Segment_ = tuple[str, list[Any], str]  # (extra condition, its params, ORDER BY)


class Query:
    """One filter and sort compiled to SQL; immutable, shared by the UI thread and workers.

    Order: ascending (sort value, id) with NULL sort values last, as ``Store.page``. For loc and
    lastmod the listing is two segments (non-NULL values by the index, then NULLs by id) so each
    keyset query is an index range scan."""

    def __init__(self, store: Store, flt: EntryFilter, sort: str = "id", *, search_upto: int | None = None) -> None:
        if sort not in SORTS:
            raise ValueError(f"unknown sort {sort!r}")
        where, params = store._where(flt, search_upto=search_upto)
        self.flt = flt
        self.sort = sort
        self.search: tuple[str, int] | None = None
        if search_upto is not None and flt.substring and (pattern := search_glob(flt.substring)):
            self.search = (pattern, search_upto)
        self._cond = where[len(" WHERE ") :] if where else ""
        self._params = tuple(params)
        self.col: str | None = None if sort == "id" else SORTS[sort]

    @property
    def searched(self) -> bool:
        """The substring is looked up in the search index (see :meth:`narrowed`)."""
        return self.search is not None

    def narrowed(self, conn: sqlite3.Connection) -> bool:
        """True when the index lookup reads few enough rows to beat a scan: a rare substring.
        A common one is found at once by a scan that stops after a page."""
        if self.search is None:
            return False
        return search_candidates(conn, *self.search, SEARCH_CAP) < SEARCH_CAP

    # segments in ascending / descending order, starting after / before a key
    def _asc(self, after: Key | None) -> list[Segment_]:
        c = self.col
        if c is None:
            return [("e.id > ?", [after[1]], "e.id")] if after is not None else [("", [], "e.id")]
        nulls: Segment_ = (f"{c} IS NULL", [], "e.id")
        if after is None:
            return [(f"{c} IS NOT NULL", [], f"{c}, e.id"), nulls]
        if after[0] is None:
            return [(f"{c} IS NULL AND e.id > ?", [after[1]], "e.id")]
        return [(f"{c} IS NOT NULL AND ({c}, e.id) > (?, ?)", [after[0], after[1]], f"{c}, e.id"), nulls]

    def _desc(self, before: Key | _End) -> list[Segment_]:
        c = self.col
        if c is None:
            if isinstance(before, _End):
                return [("", [], "e.id DESC")]
            return [("e.id < ?", [before[1]], "e.id DESC")]
        values: Segment_ = (f"{c} IS NOT NULL", [], f"{c} DESC, e.id DESC")
        if isinstance(before, _End):
            return [(f"{c} IS NULL", [], "e.id DESC"), values]
        if before[0] is None:
            return [(f"{c} IS NULL AND e.id < ?", [before[1]], "e.id DESC"), values]
        return [
            (f"{c} IS NOT NULL AND ({c}, e.id) < (?, ?)", [before[0], before[1]], f"{c} DESC, e.id DESC")
        ]

    @property
    def filtered(self) -> bool:
        return bool(self._cond)

    def _sql(self, columns: str, extra: str, extra_params: Sequence[Any], order: str | None, scan: bool = False) -> tuple[str, list[Any]]:
        # scan=True: a table scan + sort instead of walking the sort index with a lookup per
        # row, which is far slower when a filter rejects most rows (workers only)
        conds = [c for c in (self._cond, extra) if c]
        sql = f"SELECT {columns} FROM entries e" + (" NOT INDEXED" if scan else "")
        if conds:
            sql += " WHERE " + " AND ".join(f"({c})" for c in conds)
        if order:
            sql += f" ORDER BY {order}"
        return sql, [*self._params, *extra_params]

    def _run(self, conn: sqlite3.Connection, segments: list[Segment_], limit: int, offset: int = 0, scan: bool = False) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        for extra, params, order in segments:
            want = limit - len(out)
            if want <= 0:
                break
            sql, p = self._sql(ENTRY_COLUMNS, extra, params, order, scan)
            rows = conn.execute(sql + " LIMIT ? OFFSET ?", [*p, want, offset]).fetchall()
            out += rows
            if offset and not rows:
                # the whole segment was skipped: the next one skips what is left
                sql, p = self._sql("1", extra, params, None, scan)
                offset -= int(conn.execute(f"SELECT COUNT(*) FROM ({sql} LIMIT ?)", [*p, offset]).fetchone()[0])
            else:
                offset = 0
        return out

    def rows(
        self,
        conn: sqlite3.Connection,
        *,
        after: Key | None = None,
        before: Key | _End | None = None,
        limit: int = PAGE,
        skip: int = 0,
        scan: bool = False,
    ) -> list[EntryRow]:
        """Up to ``limit`` rows strictly after ``after`` (or before ``before``), ascending;
        ``skip`` rows after ``after`` are passed over first (SQL OFFSET, done in C)."""
        if limit <= 0:
            return []
        if before is not None:
            raw = self._run(conn, self._desc(before), limit, scan=scan)
            raw.reverse()
        else:
            raw = self._run(conn, self._asc(after), limit, skip, scan=scan)
        return [EntryRow(*r) for r in raw]

    def rows_at_offset(self, conn: sqlite3.Connection, offset: int, limit: int = PAGE, scan: bool = False) -> list[EntryRow]:
        """Rows by position with OFFSET: O(offset), for workers only (a far jump before the
        anchors are known)."""
        return self.rows(conn, limit=limit, skip=offset, scan=scan)

    def count(self, conn: sqlite3.Connection) -> int:
        sql, p = self._sql("COUNT(*)", "", [], None)
        return int(conn.execute(sql, p).fetchone()[0])

    def key_batches(self, conn: sqlite3.Connection, after: Key | None = None, batch: int = 20000, scan: bool = False) -> Iterator[list[Key]]:
        """Every key after ``after`` in order, in batches."""
        columns = "e.id, e.id" if self.col is None else f"{self.col}, e.id"
        for extra, params, order in self._asc(after):
            sql, p = self._sql(columns, extra, params, order, scan)
            cur = conn.execute(sql, p)
            try:
                while rows := cur.fetchmany(batch):
                    yield rows
            finally:
                cur.close()

    def hop(self, conn: sqlite3.Connection, after: Key | None, n: int) -> tuple[Key | None, int]:
        """The key of the ``n``-th row after ``after`` (SQLite skips the rows with OFFSET, in C),
        or ``(None, rows_left)`` when fewer than ``n`` rows follow."""
        columns = "e.id, e.id" if self.col is None else f"{self.col}, e.id"
        remaining = n
        for extra, params, order in self._asc(after):
            sql, p = self._sql(columns, extra, params, order)
            row = conn.execute(sql + " LIMIT 1 OFFSET ?", [*p, remaining - 1]).fetchone()
            if row is not None:
                return (row[0], row[1]), n
            sql, p = self._sql("1", extra, params, None)
            remaining -= int(conn.execute(f"SELECT COUNT(*) FROM ({sql} LIMIT ?)", [*p, remaining]).fetchone()[0])
        return None, n - remaining

    def entry_key(self, conn: sqlite3.Connection, entry_id: int) -> Key | None:
        columns = "e.id, e.id" if self.col is None else f"{self.col}, e.id"
        row = conn.execute(f"SELECT {columns} FROM entries e WHERE e.id=?", (entry_id,)).fetchone()
        return None if row is None else (row[0], row[1])

    def matches(self, conn: sqlite3.Connection, entry_id: int) -> bool:
        sql, p = self._sql("1", "e.id = ?", [entry_id], None)
        return conn.execute(sql, p).fetchone() is not None


@contextmanager
def time_budget(conn: sqlite3.Connection, seconds: float | None) -> Iterator[None]:
    """Interrupt queries on ``conn`` after ``seconds`` (sqlite3.OperationalError "interrupted")."""
    if seconds is None:
        yield
        return
    deadline = time.perf_counter() + seconds
    conn.set_progress_handler(lambda: 1 if time.perf_counter() > deadline else 0, 4000)
    try:
        yield
    finally:
        conn.set_progress_handler(None, 0)


# -- the user's filter bar -------------------------------------------------------------------------

_PERIOD_RE = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$")
_EXT_ALIASES = {
    "image": "image", "images": "image", "img": "image", "i": "image",
    "video": "video", "videos": "video", "v": "video",
    "news": "news", "n": "news",
    "hreflang": "hreflang", "alternate": "hreflang", "alternates": "hreflang", "alt": "hreflang", "h": "hreflang",
}


def _period(text: str, *, end: bool) -> int:
    """Unix seconds of the start of a YYYY[-MM[-DD]] period (of the next one when ``end``)."""
    m = _PERIOD_RE.match(text)
    if not m:
        raise ValueError(f"bad date {text!r} (use YYYY, YYYY-MM or YYYY-MM-DD)")
    year, month, day = int(m.group(1)), m.group(2), m.group(3)
    try:
        if day is not None:
            start = datetime(year, int(month), int(day), tzinfo=UTC)
            if end:
                return int(start.timestamp()) + 86400
        elif month is not None:
            mo = int(month)
            start = datetime(year, mo, 1, tzinfo=UTC)
            if end:
                nxt = datetime(year + (mo == 12), 1 if mo == 12 else mo + 1, 1, tzinfo=UTC)
                return int(nxt.timestamp())
        else:
            start = datetime(year, 1, 1, tzinfo=UTC)
            if end:
                return int(datetime(year + 1, 1, 1, tzinfo=UTC).timestamp())
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"bad date {text!r}") from exc
    return int(start.timestamp())


@dataclasses.dataclass(slots=True)
class UserFilter:
    """What the filter bar asks for (combined with the scope the app gives in ``show``)."""

    substring: str | None = None
    regex: str | None = None
    lastmod_from: int | None = None
    lastmod_to: int | None = None
    has_issue: bool = False
    extension: str | None = None

    @property
    def empty(self) -> bool:
        return self == UserFilter()


def parse_filter(text: str, *, regex_mode: bool = False) -> UserFilter:
    """Parse the filter bar. Raises ValueError with a message for the user.

    Plain words are a substring (or a regex in regex mode); ``re:PATTERN`` is a regex;
    ``lastmod:2024-01..2024-06`` (either end may be left out; ``lastmod:2024-03`` is one month)
    a lastmod range; ``has:issue`` and ``has:image|video|news|hreflang`` narrow further."""
    uf = UserFilter()
    plain: list[str] = []
    for tok in text.split():
        low = tok.lower()
        if low.startswith("re:"):
            if tok[3:]:
                uf.regex = tok[3:]
        elif low.startswith("lastmod:"):
            spec = tok[len("lastmod:") :]
            if ".." in spec:
                a, b = spec.split("..", 1)
                uf.lastmod_from = _period(a, end=False) if a else None
                uf.lastmod_to = _period(b, end=True) if b else None
            elif spec:
                uf.lastmod_from = _period(spec, end=False)
                uf.lastmod_to = _period(spec, end=True)
        elif low.startswith("has:"):
            what = low[4:]
            if what in ("issue", "issues", "!"):
                uf.has_issue = True
            elif what in _EXT_ALIASES:
                uf.extension = _EXT_ALIASES[what]
            else:
                raise ValueError(f"has:{what}? use has:issue, has:image, has:video, has:news or has:hreflang")
        else:
            plain.append(tok)
    words = " ".join(plain)
    if words:
        if regex_mode:
            if uf.regex:
                raise ValueError("regex mode and re: together; use one")
            uf.regex = words
        else:
            uf.substring = words
    if uf.regex is not None:
        try:
            re.compile(uf.regex)
        except re.error as exc:
            raise ValueError(f"bad regex: {exc}") from exc
    return uf


def combine(scope: EntryFilter, user: UserFilter) -> EntryFilter:
    """The scope from the app narrowed by the user's filter-bar criteria."""
    f = dataclasses.replace(scope)
    if user.substring:
        f.substring = user.substring
    if user.regex:
        f.regex = user.regex
    if user.lastmod_from is not None:
        f.lastmod_from = user.lastmod_from if f.lastmod_from is None else max(f.lastmod_from, user.lastmod_from)
    if user.lastmod_to is not None:
        f.lastmod_to = user.lastmod_to if f.lastmod_to is None else min(f.lastmod_to, user.lastmod_to)
    f.has_issue = f.has_issue or user.has_issue
    if user.extension:
        f.extension = user.extension
    return f


def row_matches(
    flt: EntryFilter,
    row: EntryRow,
    rule_check: Callable[[int, str], bool] | None = None,
    sets: tuple[frozenset[int] | None, frozenset[int] | None] | None = None,
) -> bool:
    """The filter evaluated in Python on one row (to show "all filtered" marks).

    ``sets``: the filter's node_ids and entry_ids as frozensets, when the caller keeps them."""
    nodes, ids = sets if sets is not None else (
        None if flt.node_ids is None else frozenset(flt.node_ids),
        None if flt.entry_ids is None else frozenset(flt.entry_ids),
    )
    if nodes is not None and row.node_id not in nodes:
        return False
    if ids is not None and row.id not in ids:
        return False
    loc = row.loc
    if flt.substring and (loc is None or flt.substring not in loc):
        return False
    if flt.regex and (loc is None or re.search(flt.regex, loc) is None):
        return False
    if flt.lastmod_from is not None and (row.lastmod is None or row.lastmod < flt.lastmod_from):
        return False
    if flt.lastmod_to is not None and (row.lastmod is None or row.lastmod >= flt.lastmod_to):
        return False
    if flt.has_issue and not row.n_issues:
        return False
    if flt.extension and not getattr(row, EXTENSIONS[flt.extension]):
        return False
    return not (flt.rule and rule_check is not None and not rule_check(row.id, flt.rule))


# -- marks ---------------------------------------------------------------------------------------


@dataclasses.dataclass(slots=True)
class Marks:
    """Marked rows: explicit ids, or "all rows of a filter" plus exceptions (never a million ids)."""

    all_filter: EntryFilter | None = None
    added: set[int] = dataclasses.field(default_factory=set)
    removed: set[int] = dataclasses.field(default_factory=set)
    sets: tuple[frozenset[int] | None, frozenset[int] | None] | None = None

    def __post_init__(self) -> None:
        f = self.all_filter
        if f is not None:
            self.sets = (
                None if f.node_ids is None else frozenset(f.node_ids),
                None if f.entry_ids is None else frozenset(f.entry_ids),
            )

    @property
    def empty(self) -> bool:
        return self.all_filter is None and not self.added


# -- the grid --------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class _Layout:
    width: int
    loc: int
    lastmod: int


class _Scanned(Message, bubble=False):
    """Progress of the count/anchor scan: anchors from index ``first`` on; ``count`` is the
    exact row count when ``counted``; ``done`` when the scan has finished."""

    def __init__(self, gen: int, first: int, anchors: list[Key], count: int, counted: bool, done: bool, full: bool, seconds: float) -> None:
        super().__init__()
        self.gen, self.first, self.anchors, self.count, self.counted = gen, first, anchors, count, counted
        self.done, self.full, self.seconds = done, full, seconds
        self.error: str | None = None


class _Searched(Message, bubble=False):
    """The scan chose the search index for listing ``gen`` (a rare substring)."""

    def __init__(self, gen: int) -> None:
        super().__init__()
        self.gen = gen


class _PageLoaded(Message, bubble=False):
    def __init__(self, gen: int, data_gen: int, k: int, plan: tuple[Any, ...], rows: list[EntryRow] | None) -> None:
        super().__init__()
        self.gen, self.data_gen, self.k, self.plan, self.rows = gen, data_gen, k, plan, rows


class _Located(Message, bubble=False):
    def __init__(self, gen: int, entry_id: int, pos: int | None, rows: list[EntryRow], base: int, why: str = "") -> None:
        super().__init__()
        self.gen, self.entry_id, self.pos, self.rows, self.base, self.why = gen, entry_id, pos, rows, base, why


class _Indexed(Message, bubble=False):
    def __init__(self, sort: str, error: str | None) -> None:
        super().__init__()
        self.sort, self.error = sort, error


class _Materialised(Message, bubble=False):
    def __init__(self, flt: EntryFilter, ids: set[int], truncated: bool) -> None:
        super().__init__()
        self.flt, self.ids, self.truncated = flt, ids, truncated


class _Ranged(Message, bubble=False):
    def __init__(self, ids: list[int], truncated: bool) -> None:
        super().__init__()
        self.ids, self.truncated = ids, truncated


class UrlGrid(ScrollView, can_focus=True):
    """The virtual table itself (a Line-API ScrollView); :class:`UrlTable` wraps it."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "url-grid--cursor",
        "url-grid--cursor-blur",
        "url-grid--marked",
        "url-grid--issue",
        "url-grid--dim",
        "url-grid--invalid",
        "url-grid--header",
    }

    DEFAULT_CSS = """
    UrlGrid {
        overflow-x: hidden;
        overflow-y: scroll;
        height: 1fr;
        & > .url-grid--cursor { background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold; }
        & > .url-grid--cursor-blur { background: $block-cursor-blurred-background; }
        & > .url-grid--marked { color: $warning; text-style: bold; }
        & > .url-grid--issue { color: $error; text-style: bold; }
        & > .url-grid--dim { color: $text-muted; }
        & > .url-grid--invalid { color: $error; }
        & > .url-grid--header { color: $text-accent; text-style: bold; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False, id="url_table.up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="url_table.down"),
        Binding("pageup", "page_up", "Page up", show=False, id="url_table.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="url_table.page_down"),
        Binding("home,g", "first", "First", show=False, id="url_table.first"),
        Binding("end,G", "last", "Last", show=False, id="url_table.last"),
        Binding("space", "toggle_mark", "Mark", id="url_table.mark"),
        Binding("shift+down", "extend_down", "Extend marks", show=False, id="url_table.extend_down"),
        Binding("shift+up", "extend_up", "Extend marks", show=False, id="url_table.extend_up"),
        Binding("a", "mark_all", "Mark all", id="url_table.mark_all"),
        Binding("A", "clear_marks", "Clear marks", show=False, id="url_table.clear_marks"),
        Binding("escape", "escape", "Close/clear", show=False, id="url_table.escape"),
        Binding("s", "cycle_sort", "Sort", id="url_table.sort"),
        Binding("enter", "select", "Details", id="url_table.select"),
        Binding("slash", "focus_filter", "Filter", id="url_table.filter"),
    ]

    def __init__(self, db_path: Path, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.db_path = Path(db_path)
        self.store: Store | None = None
        self.store_error: str | None = None
        self.filter = EntryFilter()
        self.sort = "id"
        self.listing: Query | None = None
        self.search_listing: Query | None = None  # the same listing through the search index
        self.searched = False  # the scan chose search_listing for this listing
        self.gen = 0
        self.data_gen = 0
        self.pages: LRUCache[int, list[EntryRow]] = LRUCache(PAGES_CACHED)
        self.anchors: list[Key | None] = [None]
        self.total: int | None = None
        self.seen = 0
        self.scanning = False
        self.cursor = 0
        self.marks = Marks()
        self.marks_version = 0
        self.materialised: tuple[int, set[int], bool] | None = None
        self.pending_end = False
        self.indexing: str | None = None
        self.message_text = ""
        self.on_change: Callable[[], None] | None = None
        self.on_select: Callable[[EntryRow], None] | None = None
        self.on_escape: Callable[[], bool] | None = None
        self.on_focus_filter: Callable[[], None] | None = None
        self._pending: set[int] = set()
        self._scan_brings_first_page = False
        self._loaded_end = 0
        self._strips: LRUCache[tuple[Any, ...], Strip] = LRUCache(512)
        self._styles: dict[bool, dict[str, Style]] = {}
        self._width_key: Any = None
        self._width = 0
        self._rescan: bool = False
        self._last_full_scan = 0.0
        self._last_full_seconds = 0.0
        self._scan_timer: Timer | None = None
        self._range_anchor: int | None = None
        self._rule_cache: dict[tuple[int, str], bool] = {}

    # -- store -----------------------------------------------------------------------------
    def _open(self) -> Store | None:
        if self.store is None:
            try:
                if not self.db_path.exists():
                    raise sqlite3.OperationalError(f"no store at {self.db_path}")
                self.store = Store(self.db_path, readonly=True)
                self.store_error = None
            except sqlite3.Error as exc:
                self.store_error = f"cannot open the store: {exc}"
                self.store = None
        return self.store

    def on_unmount(self) -> None:
        if self.store is not None:
            with contextlib.suppress(sqlite3.Error):
                self.store.conn.close()
            self.store = None

    # -- listing lifecycle -----------------------------------------------------------------
    def set_listing(self, flt: EntryFilter, sort: str | None = None, *, keep_cursor: bool = False) -> None:
        """Show ``flt`` in ``sort`` order from the top (or on the previously highlighted entry)."""
        follow = self.highlighted.id if keep_cursor and self.highlighted is not None else None
        self.filter = flt
        if sort is not None:
            self.sort = sort
        self.gen += 1
        self.pages.clear()
        self._loaded_end = 0
        self._strips.clear()
        self._pending.clear()
        self.anchors = [None]
        self.total = None
        self.seen = 0
        self.cursor = 0
        self.pending_end = False
        self._rescan = False
        self.listing = self.search_listing = None
        self.searched = False
        store = self._open()
        if store is not None:
            try:
                self.listing = Query(store, flt, self.sort)
                upto = store.search_upto() if flt.substring else None
                if upto is not None:
                    searched = Query(store, flt, self.sort, search_upto=upto)
                    self.search_listing = searched if searched.searched else None
            except (re.error, ValueError, sqlite3.Error) as exc:
                self.store_error = f"bad filter: {exc}"
        if self.listing is None:
            self.total = 0
        self._update_virtual_size()
        self.scroll_to(y=0, animate=False)
        self.refresh()
        if self.listing is not None:
            self._start_scan(full=True, progressive=True)
            if follow is not None:
                self.locate(follow)
        self._changed()

    def data_changed(self) -> None:
        """New entries (or issue counts) may exist: reload visible pages and recount."""
        if self.listing is None:
            if self.store is None and self._open() is not None:
                self.set_listing(self.filter)
            return
        self.data_gen += 1
        self._scan_brings_first_page = False
        self.pages.clear()
        self._loaded_end = 0
        self._strips.clear()
        self._pending.clear()
        self._rule_cache.clear()
        self.refresh()
        self._request_scan()

    def _request_scan(self) -> None:
        if self.scanning:
            self._rescan = True
            return
        flt = self.filter
        resumable = (
            self.sort == "id"
            and not flt.has_issue
            and not flt.rule
            and self.total is not None
            and time.monotonic() - self._last_full_scan < 5.0
        )
        if resumable:
            self._start_scan(full=False, progressive=False)
            return
        wait = self._last_full_scan + max(1.0, 3 * self._last_full_seconds) - time.monotonic()
        if wait > 0:
            if self._scan_timer is None:
                self._scan_timer = self.set_timer(wait, self._scan_timer_fired)
            return
        self._start_scan(full=True, progressive=False)

    def _scan_timer_fired(self) -> None:
        self._scan_timer = None
        if not self.scanning:
            self._start_scan(full=True, progressive=False)

    def _start_scan(self, *, full: bool, progressive: bool) -> None:
        if self.listing is None:
            return
        self.scanning = True
        if full:
            start_j, start_key = 0, None
        else:
            start_j = len(self.anchors) - 1
            start_key = self.anchors[start_j]
        self._scan_brings_first_page = progressive
        # the index-or-scan choice is made once per listing, by its first (progressive) scan
        search = self.search_listing if progressive or self.searched else None
        self._scan(self.gen, self.data_gen, self.listing, search, start_j, start_key, progressive)

    @work(thread=True, exclusive=True, group="url-scan", exit_on_error=False, description="count URLs")
    def _scan(self, gen: int, data_gen: int, query: Query, search: Query | None, start_j: int, start_key: Key | None, progressive: bool) -> None:
        """For a new listing, read the first page (the UI thread gives up on it when a filter is
        selective); then count the rows (the scrollbar); then collect the anchors. A rare
        substring goes through the search index (``search``) instead of a scan."""
        worker = get_current_worker()
        t0 = time.perf_counter()
        full = start_j == 0
        try:
            conn = connect(self.db_path, readonly=True)
        except sqlite3.Error:
            self.post_message(_Scanned(gen, start_j + 1, [], 0, True, True, full, 0.0))
            return
        def cancelled() -> int:
            return 1 if worker.is_cancelled else 0

        conn.set_progress_handler(cancelled, 20000)
        first = start_j + 1
        anchors: list[Key] = []
        total: int | None = None
        try:
            scan = query.col is not None and query.filtered
            rows: list[EntryRow] | None = None
            if progressive and SCAN_FIRST_BUDGET and (scan or search is not None):
                # a common match fills the first page at once walking the sort order (a table
                # scan + sort of every match would take seconds on millions of rows); only
                # when it does not is the search index asked, or the scan + sort done
                with contextlib.suppress(sqlite3.OperationalError), time_budget(conn, SCAN_FIRST_BUDGET):
                    rows = query.rows(conn, limit=PAGE)
                conn.set_progress_handler(cancelled, 20000)
            if rows is None and search is not None and (not progressive or search.narrowed(conn)):
                query, scan = search, False
                self.post_message(_Searched(gen))
            if progressive:
                plan = ("after", None, 0, PAGE)
                if rows is None:
                    rows = query.rows(conn, limit=PAGE, scan=scan)
                self.post_message(_PageLoaded(gen, data_gen, 0, plan, rows))
            total = query.count(conn)
            self.post_message(_Scanned(gen, first, [], total, True, False, full, time.perf_counter() - t0))
            last_post = time.perf_counter()
            wanted = total // ANCHOR_EVERY  # anchors[1..wanted]; none needed below ANCHOR_EVERY rows
            if wanted < first:
                pass
            elif not scan and not query.searched:
                # hop ANCHOR_EVERY rows at a time with LIMIT 1 OFFSET n-1 (the skipping is in C)
                key = start_key
                for _j in range(first, wanted + 1):
                    if worker.is_cancelled:
                        break
                    key, _n = query.hop(conn, key, ANCHOR_EVERY)
                    if key is None:
                        break
                    anchors.append(key)
                    now = time.perf_counter()
                    if progressive and now - last_post > 0.1:
                        self.post_message(_Scanned(gen, first, anchors, total, False, False, full, now - t0))
                        first += len(anchors)
                        anchors = []
                        last_post = now
            else:
                # sorted and filtered: one table scan + sort beats walking the index
                count = start_j * ANCHOR_EVERY
                # (an index lookup is one query too: each hop would repeat it)
                for batch in query.key_batches(conn, after=start_key, scan=scan):
                    if worker.is_cancelled:
                        break
                    i0 = (ANCHOR_EVERY - 1 - count) % ANCHOR_EVERY
                    anchors.extend(batch[i0::ANCHOR_EVERY])
                    count += len(batch)
        except sqlite3.Error as exc:
            if not worker.is_cancelled and total is None:
                msg = _Scanned(gen, first, [], 0, True, True, full, 0.0)
                msg.error = f"cannot read the store: {exc}"
                self.post_message(msg)
                return
        finally:
            conn.close()
        if not worker.is_cancelled:
            self.post_message(_Scanned(gen, first, anchors, -1, False, True, full, time.perf_counter() - t0))

    @on(_Scanned)
    def _on_scanned(self, msg: _Scanned) -> None:
        if msg.gen != self.gen:
            return
        del self.anchors[msg.first :]
        self.anchors.extend(msg.anchors)
        if msg.error:
            self.store_error = msg.error
        if msg.counted:
            self.total = msg.count
            self.seen = msg.count
            if self.cursor >= max(1, self.total):
                self.cursor = max(0, self.total - 1)
            if self.pending_end:
                self.pending_end = False
                self.call_after_refresh(self.action_last)
        if msg.done:
            self.scanning = False
            if msg.full:
                self._last_full_scan = time.monotonic()
                self._last_full_seconds = msg.seconds
            if self._rescan:
                self._rescan = False
                self._request_scan()
        self._update_virtual_size()
        self.refresh()
        self._changed()

    # -- sizes ------------------------------------------------------------------------------
    @property
    def row_count(self) -> int:
        """Rows the scrollbar covers: the exact count once known, else what was seen so far."""
        if self.total is not None:
            return self.total
        return max(self.seen, self._loaded_end)

    def _update_virtual_size(self) -> None:
        height = self.row_count
        if self.virtual_size.height != height:
            # the row count grows with every batch while streaming; assigning ``virtual_size``
            # would lay out the whole screen each time, but our own size does not change
            # (the vertical scrollbar is always shown), so only the scrollbar needs to know
            size = Size(self.scrollable_content_region.width, height)
            if size.width != self.virtual_size.width or not self.size:
                self.virtual_size = size
                return
            self.set_reactive(UrlGrid.virtual_size, size)
            self._scroll_update(size)
            self.refresh()

    # -- pages -------------------------------------------------------------------------------
    def _plan(self, k: int) -> tuple[Any, ...] | None:
        """How to read page ``k``: ('after', key, base, limit), ('skip', anchor, base, limit,
        skip), ('before', key, base, limit), ('end', base, limit) or ('offset', base, limit)
        (workers only)."""
        start = k * PAGE
        if self.total is not None and start >= self.total:
            return None
        if k == 0:
            return ("after", None, 0, PAGE)
        prev = self.pages.get(k - 1)
        if prev is not None and len(prev) == PAGE:
            return ("after", row_key(prev[-1], self.sort), start, PAGE)
        nxt = self.pages.get(k + 1)
        if nxt:
            return ("before", row_key(nxt[0], self.sort), start, PAGE)
        if self.total is not None and self.total - start <= ANCHOR_EVERY:
            return ("end", start, self.total - start)
        j = min(start // ANCHOR_EVERY, len(self.anchors) - 1)
        if start - j * ANCHOR_EVERY <= ANCHOR_EVERY:
            # from the anchor, SQLite skips to the page (OFFSET < ANCHOR_EVERY, in C)
            return ("skip", self.anchors[j], start, PAGE, start - j * ANCHOR_EVERY)
        return ("offset", start, PAGE)

    @staticmethod
    def _run_plan(conn: sqlite3.Connection, query: Query, plan: tuple[Any, ...], scan: bool = False) -> list[EntryRow]:
        kind = plan[0]
        if kind == "after":
            return query.rows(conn, after=plan[1], limit=plan[3], scan=scan)
        if kind == "skip":
            return query.rows(conn, after=plan[1], limit=plan[3], skip=plan[4], scan=scan)
        if kind == "before":
            return query.rows(conn, before=plan[1], limit=plan[3], scan=scan)
        if kind == "end":
            return query.rows(conn, before=END, limit=plan[2], scan=scan)
        return query.rows_at_offset(conn, plan[1], plan[2], scan=scan)

    def _store_rows(self, plan: tuple[Any, ...], rows: list[EntryRow]) -> None:
        kind = plan[0]
        base, limit = (plan[2], plan[3]) if kind in ("after", "before", "skip") else (plan[1], plan[2])
        if kind in ("before", "end") and len(rows) != limit:
            return  # the data moved under us; a rescan is on its way
        for i in range(0, max(len(rows), 1), PAGE):
            self.pages.set((base + i) // PAGE, rows[i : i + PAGE])
        self._loaded_end = max(self._loaded_end, base + len(rows))
        if len(rows) < limit and kind in ("after", "skip", "offset"):
            end = base + len(rows)
            if self.total is None or self.scanning:
                self.seen = max(self.seen, end)
            if len(rows) % PAGE == 0:
                self.pages.set(end // PAGE, [])

    def _page(self, k: int) -> list[EntryRow] | None:
        page = self.pages.get(k)
        if page is not None:
            return page
        if self.listing is None or self.store is None or k in self._pending:
            return None
        plan = self._plan(k)
        if plan is None:
            return []
        if plan[0] == "offset":
            self._load_async(k, plan)
            return None
        conn = self.store.conn
        try:
            with time_budget(conn, UI_QUERY_BUDGET):
                rows = self._run_plan(conn, self.listing, plan)
        except sqlite3.OperationalError as exc:
            if "interrupt" in str(exc):
                if k == 0 and self._scan_brings_first_page:
                    self._pending.add(0)  # the scan worker reads it first (one scan at a time)
                else:
                    self._load_async(k, plan)
            else:
                self.store_error = f"cannot read the store: {exc}"
                self.pages.set(k, [])
            return None
        except sqlite3.Error as exc:
            self.store_error = f"cannot read the store: {exc}"
            self.pages.set(k, [])
            return None
        self._store_rows(plan, rows)
        return self.pages.get(k)

    def _load_async(self, k: int, plan: tuple[Any, ...]) -> None:
        assert self.listing is not None
        self._pending.add(k)
        query = self.search_listing if self.searched and self.search_listing is not None else self.listing
        self._load_page(self.gen, self.data_gen, query, k, plan)

    @work(thread=True, group="url-page", exit_on_error=False, description="load URL rows")
    def _load_page(self, gen: int, data_gen: int, query: Query, k: int, plan: tuple[Any, ...]) -> None:
        rows: list[EntryRow] | None
        try:
            conn = connect(self.db_path, readonly=True)
            try:
                rows = self._run_plan(conn, query, plan, scan=query.col is not None and query.filtered and not query.searched)
            finally:
                conn.close()
        except sqlite3.Error:
            rows = None
        self.post_message(_PageLoaded(gen, data_gen, k, plan, rows))

    @on(_Searched)
    def _on_searched(self, msg: _Searched) -> None:
        if msg.gen == self.gen:
            self.searched = True

    @on(_PageLoaded)
    def _on_page_loaded(self, msg: _PageLoaded) -> None:
        if msg.gen != self.gen or msg.data_gen != self.data_gen:
            return
        if msg.k == 0:
            self._scan_brings_first_page = False
        self._pending.discard(msg.k)
        if msg.rows is None:
            self.pages.set(msg.k, [])
        else:
            self._store_rows(msg.plan, msg.rows)
        self._update_virtual_size()
        self.refresh()
        self._changed()

    def row_at(self, pos: int) -> EntryRow | None:
        if pos < 0 or pos >= self.row_count:
            return None
        k, i = divmod(pos, PAGE)
        page = self._page(k)
        if page is None or i >= len(page):
            return None
        return page[i]

    @property
    def loading(self) -> bool:
        return bool(self._pending)

    @property
    def highlighted(self) -> EntryRow | None:
        return self.row_at(self.cursor) if self.row_count else None

    # -- marks ------------------------------------------------------------------------------
    def _rule_check(self, entry_id: int, rule: str) -> bool:
        key = (entry_id, rule)
        hit = self._rule_cache.get(key)
        if hit is None and self.store is not None:
            if len(self._rule_cache) > 20000:
                self._rule_cache.clear()
            hit = self._rule_cache[key] = (
                self.store.conn.execute(
                    "SELECT 1 FROM issues WHERE entry_id=? AND rule=? LIMIT 1", (entry_id, rule)
                ).fetchone()
                is not None
            )
        return bool(hit)

    def is_marked(self, row: EntryRow) -> bool:
        m = self.marks
        if row.id in m.added:
            return True
        if m.all_filter is None or row.id in m.removed:
            return False
        return row_matches(m.all_filter, row, self._rule_check, m.sets)

    def _marks_changed(self) -> None:
        self.marks_version += 1
        self._strips.clear()
        self.refresh()
        self._changed()

    def toggle_mark(self, row: EntryRow) -> None:
        m = self.marks
        if self.is_marked(row):
            m.added.discard(row.id)
            if m.all_filter is not None:
                m.removed.add(row.id)
        else:
            m.removed.discard(row.id)
            if m.all_filter is None or not row_matches(m.all_filter, row, self._rule_check, m.sets):
                m.added.add(row.id)
        self._marks_changed()

    def mark(self, row: EntryRow) -> None:
        if not self.is_marked(row):
            self.toggle_mark(row)

    def mark_ids(self, ids: Sequence[int]) -> None:
        self.marks.removed.difference_update(ids)
        self.marks.added.update(ids)
        self._marks_changed()

    def mark_range(self, a: int, b: int) -> None:
        """Mark the rows at positions a..b (inclusive)."""
        lo, hi = min(a, b), max(a, b)
        first = self.row_at(lo)
        if first is None or self.listing is None or self.store is None:
            return
        n = hi - lo + 1
        if n <= SYNC_RANGE:
            rows = [first] + self.listing.rows(self.store.conn, after=row_key(first, self.sort), limit=n - 1)
            self.mark_ids([r.id for r in rows])
        else:
            self.notify(f"marking {plural(min(n, MARK_CAP), 'row')}…", timeout=2)
            self._range_worker(self.listing, first, min(n, MARK_CAP), n > MARK_CAP)

    @work(thread=True, exclusive=True, group="url-range", exit_on_error=False, description="mark a range")
    def _range_worker(self, query: Query, first: EntryRow, n: int, truncated: bool) -> None:
        ids = [first.id]
        after = row_key(first, query.sort)
        conn = connect(self.db_path, readonly=True)
        try:
            while len(ids) < n:
                rows = query.rows(conn, after=after, limit=min(5000, n - len(ids)))
                if not rows:
                    break
                ids += [r.id for r in rows]
                after = row_key(rows[-1], query.sort)
        finally:
            conn.close()
        self.post_message(_Ranged(ids, truncated))

    @on(_Ranged)
    def _on_ranged(self, msg: _Ranged) -> None:
        self.mark_ids(msg.ids)
        if msg.truncated:
            self.notify(f"marked the first {MARK_CAP:,} rows of the range only", severity="warning")

    def mark_all(self) -> None:
        self.marks = Marks(all_filter=dataclasses.replace(self.filter))
        self.materialised = None
        self._marks_changed()
        store = self._open()
        if store is not None:
            self._materialise(self.marks.all_filter, Query(store, self.marks.all_filter, "id"))

    def clear_marks(self) -> None:
        self.marks = Marks()
        self.materialised = None
        self._marks_changed()

    @staticmethod
    def _collect(conn: sqlite3.Connection, query: Query, is_cancelled: Callable[[], bool]) -> tuple[set[int], bool]:
        ids: set[int] = set()
        for batch in query.key_batches(conn):
            if is_cancelled():
                break
            ids.update(k[1] for k in batch)
            if len(ids) >= MARK_CAP:
                return set(sorted(ids)[:MARK_CAP]), True
        return ids, False

    @work(thread=True, exclusive=True, group="url-marks", exit_on_error=False, description="collect marked rows")
    def _materialise(self, flt: EntryFilter, query: Query) -> None:
        worker = get_current_worker()
        conn = connect(self.db_path, readonly=True)
        try:
            ids, truncated = self._collect(conn, query, lambda: worker.is_cancelled)
        except sqlite3.Error:
            return
        finally:
            conn.close()
        if not worker.is_cancelled:
            self.post_message(_Materialised(flt, ids, truncated))

    @on(_Materialised)
    def _on_materialised(self, msg: _Materialised) -> None:
        if msg.flt is not self.marks.all_filter:
            return  # the marks changed meanwhile
        self.materialised = (self.marks_version, msg.ids, msg.truncated)
        if msg.truncated:
            self.notify(f"more than {MARK_CAP:,} rows marked: only the first {MARK_CAP:,} are used", severity="warning")
        self._changed()

    def _all_ids(self) -> tuple[set[int], bool]:
        m = self.marks
        assert m.all_filter is not None
        mat = self.materialised
        if mat is not None:
            base, truncated = mat[1], mat[2]
        else:
            store = self._open()
            if store is None:
                return set(), False
            conn = connect(self.db_path, readonly=True)
            try:
                base, truncated = self._collect(conn, Query(store, m.all_filter, "id"), lambda: False)
            finally:
                conn.close()
            self.materialised = (self.marks_version, base, truncated)
            if truncated:
                self.notify(f"more than {MARK_CAP:,} rows marked: only the first {MARK_CAP:,} are used", severity="warning")
        return base, truncated

    @property
    def marked_ids(self) -> set[int]:
        m = self.marks
        if m.all_filter is None:
            return set(m.added)
        base, _ = self._all_ids()
        return (base - m.removed) | m.added

    @property
    def marked_filter(self) -> EntryFilter | None:
        """The marks as a filter for export: the "all filtered" filter itself when there are no
        exceptions (no id list at all), else the materialised ids."""
        m = self.marks
        if m.empty:
            return None
        if m.all_filter is not None and not m.added and not m.removed:
            return dataclasses.replace(m.all_filter)
        return EntryFilter(entry_ids=sorted(self.marked_ids))

    @property
    def marked_count(self) -> int | None:
        """How many rows are marked (None while "all filtered" is being counted)."""
        m = self.marks
        if m.all_filter is None:
            return len(m.added)
        mat = self.materialised
        if mat is None:
            return None
        return len((mat[1] - m.removed) | m.added)

    # -- locating an entry -------------------------------------------------------------------
    def locate(self, entry_id: int) -> None:
        if self.listing is None:
            return
        self._locate(self.gen, self.listing, entry_id)

    @work(thread=True, exclusive=True, group="url-locate", exit_on_error=False, description="find an entry")
    def _locate(self, gen: int, query: Query, entry_id: int) -> None:
        try:
            store = Store(self.db_path, readonly=True)
        except sqlite3.Error as exc:
            self.post_message(_Located(gen, entry_id, None, [], 0, f"cannot open the store: {exc}"))
            return
        try:
            conn = store.conn
            key = query.entry_key(conn, entry_id)
            if key is None:
                self.post_message(_Located(gen, entry_id, None, [], 0, "missing"))
                return
            if not query.matches(conn, entry_id):
                self.post_message(_Located(gen, entry_id, None, [], 0, "filtered"))
                return
            pos = store.entry_position(query.flt, entry_id, query.sort)
            if pos is None:
                self.post_message(_Located(gen, entry_id, None, [], 0, "missing"))
                return
            base = (pos // PAGE) * PAGE
            before = query.rows(conn, before=key, limit=pos - base)
            me = _row_by_id(conn, entry_id)
            after = query.rows(conn, after=key, limit=PAGE - len(before) - 1)
            rows = before + me + after
            if len(before) != pos - base:
                rows, base = [], pos  # moved under us; just position the cursor
            self.post_message(_Located(gen, entry_id, pos, rows, base))
        except sqlite3.Error as exc:
            self.post_message(_Located(gen, entry_id, None, [], 0, f"cannot read the store: {exc}"))
        finally:
            store.conn.close()

    @on(_Located)
    def _on_located(self, msg: _Located) -> None:
        if msg.gen != self.gen:
            return
        if msg.pos is None:
            owner = self.parent_table
            if msg.why == "filtered" and owner is not None and owner.clear_user_filter_for(msg.entry_id):
                return
            text = {
                "missing": "that entry is no longer in the store",
                "filtered": "that entry is not in the rows shown here",
            }.get(msg.why, msg.why)
            self.notify(text, severity="warning", markup=False)
            return
        if msg.rows and msg.base % PAGE == 0:
            self.pages.set(msg.base // PAGE, msg.rows)
        if self.total is None:
            self.seen = max(self.seen, msg.pos + 1)
        self._update_virtual_size()
        self.move_cursor(msg.pos, center=True)
        self._changed()

    @property
    def parent_table(self) -> UrlTable | None:
        node = self.parent
        while node is not None and not isinstance(node, UrlTable):
            node = node.parent
        return node

    # -- sorting -------------------------------------------------------------------------------
    def set_sort(self, sort: str) -> None:
        if sort not in SORTS:
            raise ValueError(f"unknown sort {sort!r}")
        if sort == self.sort:
            self.indexing = None
            self._changed()
            return
        if sort != "id" and not self._has_index(sort):
            self.indexing = sort
            self.notify(f"building the {sort} index for sorting…", timeout=3)
            self._changed()
            self._build_index(sort)
            return
        self.set_listing(self.filter, sort, keep_cursor=True)

    def _has_index(self, sort: str) -> bool:
        store = self._open()
        if store is None:
            return False
        m = re.search(r"EXISTS (\w+)", INDEXES[sort])
        name = m.group(1) if m else ""
        try:
            return store.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='index' AND name=?", (name,)
            ).fetchone() is not None
        except sqlite3.Error:
            return False

    @work(thread=True, exclusive=True, group="url-index", exit_on_error=False, description="build a sort index")
    def _build_index(self, sort: str) -> None:
        error = None
        try:
            store = Store(self.db_path)  # a writer connection: CREATE INDEX
            try:
                store.ensure_index(sort)
            finally:
                store.close()
        except sqlite3.Error as exc:
            error = str(exc)
        self.post_message(_Indexed(sort, error))

    @on(_Indexed)
    def _on_indexed(self, msg: _Indexed) -> None:
        if self.indexing != msg.sort:
            return
        self.indexing = None
        if msg.error:
            self.notify(
                f"cannot build the {msg.sort} index ({display(msg.error)}); sorting may be slow",
                severity="warning",
                markup=False,
            )
        self.set_listing(self.filter, msg.sort, keep_cursor=True)

    # -- cursor and scrolling ----------------------------------------------------------------------
    @property
    def page_height(self) -> int:
        return max(1, self.scrollable_content_region.height)

    def move_cursor(self, pos: int, *, center: bool = False) -> None:
        n = self.row_count
        pos = max(0, min(pos, n - 1)) if n else 0
        old = self.cursor
        self.cursor = pos
        h = self.page_height
        top = int(self.scroll_y)
        if center and not (top <= pos < top + h):
            self.scroll_to(y=max(0, pos - h // 2), animate=False)
        elif pos < top:
            self.scroll_to(y=pos, animate=False)
        elif pos >= top + h:
            self.scroll_to(y=pos - h + 1, animate=False)
        self.refresh_line(old)
        self.refresh_line(pos)
        if old != pos:
            self._changed()

    def action_cursor_down(self) -> None:
        self._range_anchor = None
        self.move_cursor(self.cursor + 1)

    def action_cursor_up(self) -> None:
        self._range_anchor = None
        self.move_cursor(self.cursor - 1)

    def action_page_down(self) -> None:
        h = self.page_height
        self.scroll_to(y=self.scroll_y + h, animate=False)
        self.move_cursor(self.cursor + h)

    def action_page_up(self) -> None:
        h = self.page_height
        self.scroll_to(y=self.scroll_y - h, animate=False)
        self.move_cursor(self.cursor - h)

    def action_first(self) -> None:
        self.scroll_to(y=0, animate=False)
        self.move_cursor(0)

    def action_last(self) -> None:
        if self.total is None:
            self.pending_end = True
            self.notify("counting rows… jumping to the end when done", timeout=2)
            return
        self.scroll_to(y=self.max_scroll_y, animate=False)
        self.move_cursor(self.total - 1)

    def action_toggle_mark(self) -> None:
        row = self.highlighted
        if row is not None:
            self.toggle_mark(row)

    def _extend(self, delta: int) -> None:
        row = self.highlighted
        if row is not None:
            self.mark(row)
        self.move_cursor(self.cursor + delta)
        row = self.highlighted
        if row is not None:
            self.mark(row)

    def action_extend_down(self) -> None:
        self._extend(+1)

    def action_extend_up(self) -> None:
        self._extend(-1)

    def action_mark_all(self) -> None:
        self.mark_all()

    def action_clear_marks(self) -> None:
        self.clear_marks()

    def action_escape(self) -> None:
        if self.on_escape is not None and self.on_escape():
            return
        self.clear_marks()

    def action_cycle_sort(self) -> None:
        current = self.indexing or self.sort  # a sort waiting for its index counts as chosen
        nxt = SORT_ORDER[(SORT_ORDER.index(current) + 1) % len(SORT_ORDER)]
        self.set_sort(nxt)

    def action_select(self) -> None:
        row = self.highlighted
        if row is not None and self.on_select is not None:
            self.on_select(row)

    def action_focus_filter(self) -> None:
        if self.on_focus_filter is not None:
            self.on_focus_filter()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        pos = int(self.scroll_y) + offset.y
        if pos >= self.row_count:
            return
        event.stop()
        self.focus()
        if event.shift:
            self.mark_range(self.cursor, pos)
        elif event.ctrl:
            row = self.row_at(pos)
            if row is not None:
                self.toggle_mark(row)
        self.move_cursor(pos)
        if event.chain == 2:
            self.action_select()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def on_resize(self) -> None:
        self._strips.clear()
        self._update_virtual_size()
        self._changed()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()
        self._styles.clear()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    # -- rendering -------------------------------------------------------------------------------
    def layout_for(self, width: int) -> _Layout:
        lastmod = 25 if width >= 110 else 10
        fixed = 2 + (1 + lastmod) + (1 + 7) + (1 + 4) + (1 + 4) + (1 + 1)
        return _Layout(width, max(8, width - fixed), lastmod)

    def header_text(self, width: int) -> Text:
        lay = self.layout_for(width)
        arrow = " ▲"

        def title(name: str, sort: str | None, w: int) -> str:
            return _fit(name + (arrow if sort == self.sort else ""), w)

        loc_title = "loc" + (" (id order)" if self.sort == "id" else "")
        line = (
            "  " + title(loc_title, "loc", lay.loc) + " " + title("lastmod", "lastmod", lay.lastmod)
            + " " + _fit("chgfreq", 7) + " " + _fit("prio", 4) + " " + "IVNH" + " " + "!"
        )
        return Text(set_cell_size(line, width), style=self.get_component_rich_style("url-grid--header"), no_wrap=True)

    def _style_bundle(self) -> dict[str, Style]:
        """Rich styles of the row parts, computed once per theme/focus (``rich_style`` is slow)."""
        bundle = self._styles.get(self.has_focus)
        if bundle is None:
            base = self.rich_style
            comp = self.get_component_rich_style
            cursor = base + comp("url-grid--cursor" if self.has_focus else "url-grid--cursor-blur", partial=True)
            bundle = {"base": base, "cursor": cursor}
            for name in ("dim", "marked", "invalid", "issue"):
                part = comp(f"url-grid--{name}", partial=True)
                bundle[name] = base + part
                bundle[f"cursor-{name}"] = cursor + part
            self._styles[self.has_focus] = bundle
        return bundle

    def _content_width(self) -> int:
        key = (self.size, self.show_vertical_scrollbar)
        if key != self._width_key:
            self._width_key = key
            self._width = self.scrollable_content_region.width
        return self._width

    def render_line(self, y: int) -> Strip:
        width = self._content_width()
        pos = int(self.scroll_y) + y
        styles = self._style_bundle()
        if pos >= self.row_count:
            return Strip.blank(width, styles["base"])
        row = self.row_at(pos)
        if row is None:
            return Strip([Segment(_fit("  …", width), styles["dim"])], width)
        cursor = pos == self.cursor
        marked = self.is_marked(row)
        key = (row.id, width, cursor, cursor and self.has_focus, marked)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._row_strip(row, width, cursor, marked, styles)
            self._strips.set(key, strip)
        return strip

    def _row_strip(self, row: EntryRow, width: int, cursor: bool, marked: bool, styles: dict[str, Style]) -> Strip:
        lay = self.layout_for(width)
        pre = "cursor-" if cursor else ""
        base = styles["cursor" if cursor else "base"]
        mark_style = styles[pre + "marked"]
        lm_style = styles[pre + "invalid"] if row.lastmod_raw is not None and row.lastmod is None else base
        ext = "".join(ch if getattr(row, attr) else "·" for ch, attr in EXT_MARKERS)
        segments = [
            Segment("● " if marked else "  ", mark_style),
            Segment(_fit(display(row.loc, lay.loc + 1), lay.loc) + " ", mark_style if marked else base),
            Segment(_fit(display(row.lastmod_raw, lay.lastmod + 1), lay.lastmod) + " ", lm_style),
            Segment(_fit(display(row.changefreq_raw, 8), 7) + " " + _fit(display(row.priority_raw, 5), 4) + " ", base),
            Segment(ext + " ", styles[pre + "dim"] if ext == "····" else base),
            Segment("!" if row.n_issues else " ", styles[pre + "issue"]),
        ]
        return Strip(segments).crop_extend(0, width, base)


def _row_by_id(conn: sqlite3.Connection, entry_id: int) -> list[EntryRow]:
    row = conn.execute(f"SELECT {ENTRY_COLUMNS} FROM entries e WHERE e.id=?", (entry_id,)).fetchone()
    return [] if row is None else [EntryRow(*row)]


def _fit(s: str, width: int) -> str:
    """``s`` padded or cut (with an ellipsis) to exactly ``width`` cells."""
    if width <= 0:
        return ""
    n = cell_len(s)
    if n <= width:
        return s + " " * (width - n)
    return set_cell_size(s, width - 1) + "…"


# -- the detail panel ------------------------------------------------------------------------


def detail_text(detail: dict[str, Any], sitemap: str | None) -> Text:
    """Everything about one entry as a Text (every value sanitised, no markup)."""
    t = Text(no_wrap=False)
    if not detail:
        t.append("(entry not found)")
        return t
    e: EntryRow = detail["entry"]

    def field(label: str, value: Any, style: str = "") -> None:
        t.append(f"{label}: ", style="bold")
        t.append(display(None if value is None else str(value)), style=style)
        t.append("\n")

    field("loc", e.loc)
    if sitemap:
        field("sitemap", f"{sitemap} (line {e.line})" if e.line else sitemap)
    field("lastmod", e.lastmod_raw if e.lastmod_raw is not None else "—",
          "red" if e.lastmod_raw is not None and e.lastmod is None else "")
    field("changefreq", e.changefreq_raw if e.changefreq_raw is not None else "—")
    field("priority", e.priority_raw if e.priority_raw is not None else "—")
    for loc, title, caption, geo, lic, _line in detail.get("images", []):
        t.append("image: ", style="bold")
        t.append(display(loc))
        for extra in (title, caption, geo, lic):
            if extra:
                t.append(" · " + display(extra))
        t.append("\n")
    for video in detail.get("videos", []):
        fields = video.get("fields", {}) if isinstance(video, dict) else {}
        t.append("video: ", style="bold")
        shown = [f"{k}={display(str(fields[k]), 200)}" for k in
                 ("title", "content_loc", "player_loc", "thumbnail_loc", "duration") if k in fields]
        t.append(" · ".join(shown) if shown else "(no fields)")
        t.append("\n")
    for name, lang, date, title in detail.get("news", []):
        t.append("news: ", style="bold")
        t.append(" · ".join(display(x) for x in (name, lang, date, title) if x))
        t.append("\n")
    for rel, hreflang, href, _line, media in detail.get("alternates", []):
        t.append("alternate: ", style="bold")
        what = f"media {display(media, 80)}" if media and not hreflang else display(hreflang) or "?"
        t.append(f"{what} → {display(href)}" + (f" ({display(rel)})" if rel and rel != "alternate" else ""))
        t.append("\n")
    issues = detail.get("issues", [])
    if issues:
        t.append(f"issues ({len(issues)}):\n", style="bold")
        for iss in issues:
            style = {"error": "red", "warning": "yellow"}.get(iss.severity, "")
            t.append(f"  {iss.severity} ", style=style)
            t.append(display(iss.rule), style="bold")
            t.append(" " + display(iss.message))
            if iss.line:
                t.append(f" (line {iss.line})")
            t.append("\n")
    t.rstrip()
    return t


# -- the composite widget --------------------------------------------------------------------


class UrlTable(Vertical):
    """Filter bar + virtual table + status line + entry detail panel (see the module docstring)."""

    DEFAULT_CSS = """
    UrlTable {
        height: 1fr;
        #url-filter-bar { height: 1; }
        #url-filter { width: 1fr; }
        #url-regex, #url-issues { width: auto; }
        #url-ext { width: 18; }
        #url-header { height: 1; padding: 0; }
        #url-status { height: 1; color: $text-muted; }
        #url-status.-error { color: $error; }
        #url-detail { height: 40%; display: none; border-top: solid $primary; }
        #url-detail.-open { display: block; }
    }
    """

    class EntrySelected(Message):
        """Enter (or a double click) on a row."""

        def __init__(self, entry_id: int, table: UrlTable | None = None) -> None:
            super().__init__()
            self.entry_id = entry_id
            self.table = table

        @property
        def control(self) -> UrlTable | None:
            return self.table

    def __init__(self, db_path: Path, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.db_path = Path(db_path)
        self.scope = EntryFilter()
        self.user = UserFilter()
        self.filter_error: str | None = None
        self._debounce: Timer | None = None
        self._dc_timer: Timer | None = None
        self._dc_dirty = False
        self._detail_id: int | None = None
        self._header_key: tuple[int, str] | None = None
        self._status_line = ""
        self.grid = UrlGrid(self.db_path, id="url-grid")

    def compose(self) -> ComposeResult:
        with Horizontal(id="url-filter-bar"):
            yield Input(
                placeholder="/ filter: text  re:regex  lastmod:2024-01..2024-06  has:issue  has:image",
                id="url-filter",
                compact=True,
            )
            yield Checkbox("re", id="url-regex", compact=True)
            yield Checkbox("issues", id="url-issues", compact=True)
            yield Select(
                [(Text("ext: any"), "any")] + [(Text(f"ext: {x}"), x) for x in EXTENSIONS],
                value="any",
                allow_blank=False,
                id="url-ext",
                compact=True,
            )
        yield Static(id="url-header", markup=False)
        yield self.grid
        yield Static(id="url-status", markup=False)
        with VerticalScroll(id="url-detail"):
            yield Static(id="url-detail-body", markup=False)

    def on_mount(self) -> None:
        g = self.grid
        g.on_change = self._refresh_chrome
        g.on_select = self._select_row
        g.on_escape = self._escape
        g.on_focus_filter = lambda: self.query_one("#url-filter", Input).focus()
        g.set_listing(self.current_filter)

    # -- public API -------------------------------------------------------------------------
    def show(self, flt: EntryFilter) -> None:
        """Show the rows of a scope (node/subtree) from the app, narrowed by the filter bar."""
        self.scope = flt
        if self.is_mounted:
            self.grid.set_listing(self.current_filter)

    def data_changed(self) -> None:
        """New entries may exist; refreshes at most ~3 times per second."""
        if self._dc_timer is not None:
            self._dc_dirty = True
            return
        self.grid.data_changed()
        self._dc_timer = self.set_timer(0.3, self._dc_fire)

    def _dc_fire(self) -> None:
        self._dc_timer = None
        if self._dc_dirty:
            self._dc_dirty = False
            self.data_changed()

    def jump_to_entry(self, entry_id: int) -> None:
        """Scroll to an entry and highlight it (its position is found in a worker)."""
        self.grid.locate(entry_id)

    @property
    def current_filter(self) -> EntryFilter:
        return combine(self.scope, self.user)

    @property
    def marked_ids(self) -> set[int]:
        return self.grid.marked_ids

    @property
    def marked_filter(self) -> EntryFilter | None:
        return self.grid.marked_filter

    @property
    def highlighted_entry(self) -> EntryRow | None:
        return self.grid.highlighted

    @property
    def sort(self) -> str:
        return self.grid.sort

    def set_sort(self, sort: str) -> None:
        self.grid.set_sort(sort)

    def set_filter_text(self, text: str, *, regex: bool | None = None) -> None:
        """Set the filter bar (as if typed) and apply it now."""
        if regex is not None:
            self.query_one("#url-regex", Checkbox).value = regex
        inp = self.query_one("#url-filter", Input)
        inp.value = text
        self._apply_filter()

    def clear_user_filter_for(self, entry_id: int) -> bool:
        """The entry to jump to is hidden by the filter bar: clear it and retry once."""
        if self.user.empty:
            return False
        with self.prevent(Input.Changed, Checkbox.Changed, Select.Changed):
            self.query_one("#url-filter", Input).value = ""
            self.query_one("#url-issues", Checkbox).value = False
            self.query_one("#url-ext", Select).value = "any"
        self.user = UserFilter()
        self.filter_error = None
        self.grid.set_listing(self.current_filter)
        self.notify("filter cleared to show the entry", timeout=2)
        self.grid.locate(entry_id)
        return True

    # -- filter bar -----------------------------------------------------------------------
    @on(Input.Changed, "#url-filter")
    def _filter_typed(self) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(0.25, self._apply_filter)

    @on(Input.Submitted, "#url-filter")
    def _filter_submitted(self) -> None:
        self._apply_filter()
        self.grid.focus()

    @on(Checkbox.Changed)
    @on(Select.Changed)
    def _toggles_changed(self, event: Message) -> None:
        event.stop()
        self._apply_filter()

    def _apply_filter(self) -> None:
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        text = self.query_one("#url-filter", Input).value
        regex_mode = self.query_one("#url-regex", Checkbox).value
        try:
            user = parse_filter(text, regex_mode=regex_mode)
        except ValueError as exc:
            self.filter_error = str(exc)
            self._refresh_chrome()
            return
        if self.query_one("#url-issues", Checkbox).value:
            user.has_issue = True
        ext = self.query_one("#url-ext", Select).value
        if isinstance(ext, str) and ext in EXTENSIONS:
            user.extension = ext
        self.filter_error = None
        if user != self.user or self.grid.listing is None:
            self.user = user
            self.grid.set_listing(self.current_filter)
        else:
            self._refresh_chrome()

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape" and self.query_one("#url-filter", Input).has_focus:
            event.stop()
            self.grid.focus()

    # -- detail ---------------------------------------------------------------------------
    def _select_row(self, row: EntryRow) -> None:
        self.post_message(self.EntrySelected(row.id, self))
        self.show_detail(row.id)

    def show_detail(self, entry_id: int) -> None:
        store = self.grid.store
        if store is None:
            return
        try:
            detail = store.entry_detail(entry_id)
            node = store.node(detail["entry"].node_id) if detail else None
        except sqlite3.Error as exc:
            detail, node = {}, None
            self.notify(f"cannot read the entry: {display(str(exc))}", severity="error", markup=False)
        sitemap = (node.stats.final_url or node.url) if node is not None else None
        self.query_one("#url-detail-body", Static).update(detail_text(detail, sitemap))
        self.query_one("#url-detail").add_class("-open")
        self._detail_id = entry_id

    def hide_detail(self) -> bool:
        panel = self.query_one("#url-detail")
        if panel.has_class("-open"):
            panel.remove_class("-open")
            self._detail_id = None
            return True
        return False

    @property
    def detail_open(self) -> bool:
        return self._detail_id is not None

    def _escape(self) -> bool:
        return self.hide_detail()

    # -- chrome ---------------------------------------------------------------------------
    def _refresh_chrome(self) -> None:
        if not self.is_mounted:
            return
        g = self.grid
        width = g.scrollable_content_region.width or self.size.width
        if (width, g.sort) != self._header_key:  # Static.update costs a layout: only on change
            self._header_key = (width, g.sort)
            self.query_one("#url-header", Static).update(g.header_text(width))
        status = self.query_one("#url-status", Static)
        parts: list[str] = []
        error = self.filter_error or g.store_error
        if g.total is not None:
            parts.append(plural(g.total, "row"))
        else:
            parts.append(f"≥{plural(g.row_count, 'row')}, counting…" if g.row_count else "counting…")
        if g.row_count:
            parts.append(f"row {g.cursor + 1:,}")
        parts.append(f"sort: {g.sort}")
        if g.indexing:
            parts.append(f"building {g.indexing} index…")
        n = g.marked_count
        if not g.marks.empty:
            parts.append("marking…" if n is None else f"{n:,} marked")
        if g.loading:
            parts.append("loading…")
        if error:
            parts.append(error)
        line = display(" · ".join(parts), 1000)
        if line != self._status_line:
            self._status_line = line
            status.set_class(bool(error), "-error")
            status.update(Text(line), layout=False)  # height 1: no layout pass per refresh

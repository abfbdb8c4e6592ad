"""The URL grid's rows: a listing of the store's entries read a page at a time, and its cursor.

How a million rows stay smooth (TEXTUAL-NOTES.md (c), tracker "Performance"):

* Rows are never all in memory. The grid asks for *pages* of :data:`PAGE` rows by position. A page
  is read with a keyset query starting from a neighbouring cached page, from a sparse *anchor*
  (the sort key of every :data:`ANCHOR_EVERY`-th row), or backwards from the end (the tail). Pages
  live in an LRU; rendered lines in a second LRU.
* A background scan (``scan``: a thread worker, its own connection) counts the rows (the scrollbar; the status
  says "counting…" meanwhile and ``virtual_size`` follows what is loaded) and then collects the
  anchors: ``LIMIT 1 OFFSET 999`` hops from anchor to anchor (SQLite skips rows in C: ~60 ms for
  a million ids), or one table scan + sort when a filter and a sort by loc/lastmod meet.
* A query on the UI thread gets a time budget (SQLite progress handler). When a page needs longer
  (a selective filter over millions of rows) a thread worker loads it and the rows show "…".
* The keyset queries themselves are the store's (``engine.store.urls.Query``): any sort column,
  ascending or descending (NULL values last either way).

:class:`Listing` is the part of the grid that knows rows and positions; :class:`UrlGrid
<sitemap_tui.tui.widgets.url_table.grid.UrlGrid>` adds the marks, the keys and the drawing.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import on, work
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer
from textual.worker import get_current_worker

from sitemap_tui.engine.store import EntryFilter, EntryRow, Store, connect
from sitemap_tui.engine.store.urls import END, PAGE, Key, Query, row_key, time_budget
from sitemap_tui.tui.widgets.url_table.messages import Located, PageLoaded, Scanned, Searched
from sitemap_tui.tui.widgets.url_table.scan import (
    ANCHOR_EVERY,
    ScanJob,
    resumes_safely,
    scan_listing,
)

PAGES_CACHED = 100
UI_QUERY_BUDGET = 0.03
"""Seconds a page query may take on the UI thread before a worker takes over."""
SCAN_FIRST_BUDGET = 0.15
"""Seconds the scan worker gives a filter to fill the first page walking the listing's order,
before it considers the search index or a table scan + sort."""


class Listing(ScrollView):
    """Rows of an entry filter in a sort order, by position, with a cursor (see the module
    docstring); ``on_change`` is called whenever what the status line shows may have changed."""

    def __init__(self, db_path: Path, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.db_path = Path(db_path)
        self.store: Store | None = None
        self.store_error: str | None = None
        self.filter = EntryFilter()
        self.sort = "id"
        self.descending = False
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
        self.pending_end = False
        self.on_change: Callable[[], None] | None = None
        self.on_filtered_out: Callable[[int], bool] | None = None
        """Called with an entry to jump to that the filter hides; True when it cleared the filter."""
        self._pending: set[int] = set()
        self._stale: dict[int, list[EntryRow]] = {}
        """Pages read before the store last changed: shown until a worker brings them afresh."""
        self._scan_brings_first_page = False
        self._loaded_end = 0
        self._strips: LRUCache[tuple[Any, ...], Strip] = LRUCache(512)  # rendered rows
        self._rescan: bool = False
        self._last_full_scan = 0.0
        self._last_full_seconds = 0.0
        self._scan_timer: Timer | None = None
        # rows removed (rows_removed): each time told, and the last of those times a whole count
        # has covered; ``_removing`` while the removal may not be committed yet
        self._told = 0
        self._recounted = 0
        self._removing = False
        self._scan_told: int | None = None  # the scan under way counts the whole listing: _told then

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
    def set_listing(self, flt: EntryFilter, sort: str | None = None, *, descending: bool | None = None,
                    keep_cursor: bool = False) -> None:
        """Show ``flt`` in ``sort`` order (``descending``: reversed; None keeps the current
        column and direction) from the top, or on the previously highlighted entry."""
        follow = self.highlighted.id if keep_cursor and self.highlighted is not None else None
        self.filter = flt
        if sort is not None:
            self.sort = sort
        if descending is not None:
            self.descending = descending
        self.gen += 1
        self.pages.clear()
        self._stale = {}
        self._loaded_end = 0
        self._rows_dropped(data=False)
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
            self.store_error = None  # (an earlier filter's error goes with it)
            try:
                self.listing = Query(store, flt, self.sort, descending=self.descending)
                upto = store.search_upto() if flt.substring else None
                if upto is not None:
                    searched = Query(store, flt, self.sort, descending=self.descending, search_upto=upto)
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
        # While a big index streams in, this runs a few times a second: a page read on the UI
        # thread then competes with the engine's writes and took up to its whole 30 ms budget,
        # a frame's worth of stall each time (issue 19). The rows shown stay on screen and
        # workers read them afresh.
        stale = self._stale
        for k in list(self.pages.keys()):  # (an LRUCache: no iteration of its own)
            rows = self.pages.get(k)
            if rows:
                stale[k] = rows
        if len(stale) > PAGES_CACHED:  # (pages visited since the last listing: keep the latest)
            self._stale = dict(list(stale.items())[-PAGES_CACHED:])
        self.pages.clear()
        self._loaded_end = 0
        self._rows_dropped(data=True)
        self._pending.clear()
        self.refresh()
        self._request_scan()

    def rows_removed(self, *, ongoing: bool = False) -> None:
        """The app's word that rows of the store may have gone (a file fetched again: its rows
        are deleted, the new ones come at the end). Until then a rescan of a listing whose rows
        only come at its end counts only the rows after its last anchor (``ScanJob.added_only``);
        now the next one counts the whole listing and checks its anchors (starting over when
        they moved), and so does every one while ``ongoing`` (the deletion may not be committed
        yet: a rescan before it would see the old rows)."""
        self._told += 1
        self._removing = ongoing
        if not ongoing:
            self.data_changed()

    def _request_scan(self) -> None:
        if self.scanning:
            self._rescan = True
            return
        flt = self.filter
        resumable = (
            self.sort == "id"
            and not self.descending  # new rows come last only in ascending id order
            and not flt.has_issue
            and not flt.rule
            and self.total is not None
            # a listing whose rows only come at its end resumes as long as its anchors hold (the
            # scan checks them): a full rescan of 1 M rows every few seconds while an index streams
            # kept a thread busy for 100-250 ms of CPU, and the UI loop's longest stalls came then
            and (resumes_safely(flt) or time.monotonic() - self._last_full_scan < 5.0)
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
        verify = resumes_safely(self.filter)
        added_only = verify and start_j > 0 and not self._removing and self._recounted == self._told
        self._scan_told = None if added_only else self._told
        job = ScanJob(self.db_path, self.gen, self.data_gen, self.listing, search, start_j, start_key, progressive,
                      SCAN_FIRST_BUDGET, verify=verify, added_only=added_only,
                      first_key=self.anchors[1] if added_only else None,
                      prev_key=self.anchors[start_j - 1] if added_only else None)
        self._scan(job)

    @work(thread=True, exclusive=True, group="url-scan", exit_on_error=False, description="count URLs")
    def _scan(self, job: ScanJob) -> None:
        worker = get_current_worker()
        scan_listing(job, self.post_message, lambda: worker.is_cancelled)

    @on(Scanned)
    def _on_scanned(self, msg: Scanned) -> None:
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
            if self._scan_told is not None and not msg.error:
                self._recounted = self._scan_told
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
            self.set_reactive(Listing.virtual_size, size)
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
        stale = self._stale.get(k)
        if stale is not None:
            return self._refresh_stale(k, stale)
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

    def _refresh_stale(self, k: int, stale: list[EntryRow]) -> list[EntryRow] | None:
        """The rows of page ``k`` from before the store changed, while a worker reads them again."""
        if self.listing is None or self.store is None:
            return None
        if k not in self._pending:
            plan = self._plan(k)
            if plan is None:  # (the listing is shorter now)
                self._stale.pop(k, None)
                return []
            self._load_async(k, plan)
        return stale

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
        self.post_message(PageLoaded(gen, data_gen, k, plan, rows))

    @on(Searched)
    def _on_searched(self, msg: Searched) -> None:
        if msg.gen == self.gen:
            self.searched = True

    @on(PageLoaded)
    def _on_page_loaded(self, msg: PageLoaded) -> None:
        if msg.gen != self.gen or msg.data_gen != self.data_gen:
            return
        if msg.k == 0:
            self._scan_brings_first_page = False
        self._pending.discard(msg.k)
        was_stale = self._stale.pop(msg.k, None) is not None
        if msg.rows is None:
            self.pages.set(msg.k, [])
        else:
            self._store_rows(msg.plan, msg.rows)
        if was_stale:
            self._rows_dropped(data=True)  # (the lines drawn from the old rows)
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
    def pages_loading(self) -> bool:
        """A page is being read by a worker. (Not ``loading``: that is Textual's reactive, and
        a widget whose ``loading`` is true loses the keyboard: ``App.focused`` is None then, so
        every PageDown pressed while a page loaded was dropped, and the scrollbar went away.)"""
        return bool(self._pending)

    @property
    def highlighted(self) -> EntryRow | None:
        return self.row_at(self.cursor) if self.row_count else None

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
            self.post_message(Located(gen, entry_id, None, [], 0, f"cannot open the store: {exc}"))
            return
        try:
            conn = store.conn
            key = query.entry_key(conn, entry_id)
            if key is None:
                self.post_message(Located(gen, entry_id, None, [], 0, "missing"))
                return
            if not query.matches(conn, entry_id):
                self.post_message(Located(gen, entry_id, None, [], 0, "filtered"))
                return
            pos = query.position(conn, entry_id)
            if pos is None:
                self.post_message(Located(gen, entry_id, None, [], 0, "missing"))
                return
            base = (pos // PAGE) * PAGE
            before = query.rows(conn, before=key, limit=pos - base)
            # through the listing: a pseudo-row (a missing page, a removed URL) is in no entries
            # table, and an entry's audit cells come with it
            me = query.row(conn, entry_id)
            after = query.rows(conn, after=key, limit=PAGE - len(before) - 1)
            rows = before + me + after
            if len(before) != pos - base:
                rows, base = [], pos  # moved under us; just position the cursor
            self.post_message(Located(gen, entry_id, pos, rows, base))
        except sqlite3.Error as exc:
            self.post_message(Located(gen, entry_id, None, [], 0, f"cannot read the store: {exc}"))
        finally:
            store.conn.close()

    @on(Located)
    def _on_located(self, msg: Located) -> None:
        if msg.gen != self.gen:
            return
        if msg.pos is None:
            if msg.why == "filtered" and self.on_filtered_out is not None and self.on_filtered_out(msg.entry_id):
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

    # -- cursor ---------------------------------------------------------------------------------
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

    def action_cursor_down(self) -> None:
        self.move_cursor(self.cursor + 1)

    def action_cursor_up(self) -> None:
        self.move_cursor(self.cursor - 1)

    def _rows_dropped(self, *, data: bool) -> None:
        """The cached rows were dropped (``data``: because the store changed): so are the lines
        drawn from them."""
        self._strips.clear()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

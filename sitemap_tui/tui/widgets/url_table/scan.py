"""The URL listing's background scan (a thread worker's body, its own connection): the first
page of a new listing, then the row count (the scrollbar), then the anchors (the sort key of
every :data:`ANCHOR_EVERY`-th row) that let a far page be read by a keyset seek.

Results go back as messages (``post``): :class:`Scanned` (count, anchors, done) and
:class:`PageLoaded` (the first page) and :class:`Searched` (the search index was chosen).
"""

from __future__ import annotations

import contextlib
import dataclasses
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from textual.message import Message

from sitemap_tui.engine.store import EntryFilter, EntryRow, connect
from sitemap_tui.engine.store.urls import PAGE, Key, Query, time_budget
from sitemap_tui.tui.widgets.url_table.messages import PageLoaded, Scanned, Searched

ANCHOR_EVERY = 1000
"""The background scan keeps the sort key of every ANCHOR_EVERY-th row (a multiple of PAGE)."""


@dataclasses.dataclass(frozen=True, slots=True)
class ScanJob:
    """What one scan reads: listing ``gen`` (data ``data_gen``) from anchor ``start_j`` on."""

    db_path: Path
    gen: int
    data_gen: int
    query: Query
    search: Query | None
    start_j: int
    start_key: Key | None
    progressive: bool
    first_budget: float
    """Seconds to fill the first page walking the listing's order before the search index or
    a table scan + sort is considered (0: go straight to them)."""
    verify: bool = False
    """A resumed scan (``start_j`` > 0) of a listing whose rows only come at its end
    (:func:`resumes_safely`): first check that the anchors before ``start_j`` still hold, and
    start over when they do not (rows were removed)."""
    added_only: bool = False
    """As ``verify``, and nothing was removed since the listing was last counted whole, as far
    as the app knows (``Listing.rows_removed``): count only the rows after anchor ``start_j``
    (the whole count took 70-250 ms of a thread's CPU per rescan of 1 M rows while an index
    streamed in), after a cheap check of the first and the resumed anchor (:func:`_anchors_stand`);
    when it fails, start over."""
    first_key: Key | None = None
    """Anchor 1 (``added_only``)."""
    prev_key: Key | None = None
    """Anchor ``start_j - 1`` (``added_only``; None: the start)."""


def resumes_safely(flt: EntryFilter) -> bool:
    """Whether a new row of this filter's id-ordered listing can only come at its end: a scope
    of nodes and nothing else (an entry's node never changes and new entries get higher ids;
    an issue, an audit result or a comparison can put a row anywhere)."""
    return flt == EntryFilter(node_ids=flt.node_ids)


def _anchors_hold(conn: sqlite3.Connection, query: Query, start_j: int, start_key: Key | None, total: int) -> bool:
    """The rows up to anchor ``start_j`` are still ``start_j * ANCHOR_EVERY`` rows: those after
    it and those add up to the count (rows removed before it leave fewer). One OFFSET over the
    rows after the anchor, in C: the rows a resumed scan hops over anyway."""
    before = start_j * ANCHOR_EVERY
    if total < before:
        return False
    _key, after = query.hop(conn, start_key, total - before + 1)
    return before + after == total


def _anchors_stand(conn: sqlite3.Connection, query: Query, job: ScanJob) -> bool:
    """The first anchor is still the ANCHOR_EVERY-th row, and the resumed one still ANCHOR_EVERY
    rows after the one before it: two OFFSET hops of ANCHOR_EVERY rows. It catches rows removed
    near the start or around the resumed anchor, not in between: for those the app tells the
    listing (``Listing.rows_removed``)."""
    return (query.hop(conn, None, ANCHOR_EVERY)[0] == job.first_key
            and query.hop(conn, job.prev_key, ANCHOR_EVERY)[0] == job.start_key)


def scan_listing(job: ScanJob, post: Callable[[Message], object], is_cancelled: Callable[[], bool]) -> None:
    """For a new listing, read the first page (the UI thread gives up on it when a filter is
    selective); then count the rows (the scrollbar); then collect the anchors. A rare
    substring goes through the search index (``job.search``) instead of a scan."""
    gen, query, search, start_j, progressive = job.gen, job.query, job.search, job.start_j, job.progressive
    t0 = time.perf_counter()
    full = start_j == 0
    try:
        conn = connect(job.db_path, readonly=True)
    except sqlite3.Error:
        post(Scanned(gen, start_j + 1, [], 0, True, True, full, 0.0))
        return

    def cancelled() -> int:
        return 1 if is_cancelled() else 0

    conn.set_progress_handler(cancelled, 20000)
    first = start_j + 1
    anchors: list[Key] = []
    total: int | None = None
    try:
        scan = query.col is not None and query.filtered
        rows: list[EntryRow] | None = None
        if progressive and job.first_budget and (scan or search is not None):
            # a common match fills the first page at once walking the sort order (a table
            # scan + sort of every match would take seconds on millions of rows); only
            # when it does not is the search index asked, or the scan + sort done
            with contextlib.suppress(sqlite3.OperationalError), time_budget(conn, job.first_budget):
                rows = query.rows(conn, limit=PAGE)
            conn.set_progress_handler(cancelled, 20000)
        if rows is None and search is not None and (not progressive or search.narrowed(conn)):
            query, scan = search, False
            post(Searched(gen))
        if progressive:
            plan = ("after", None, 0, PAGE)
            if rows is None:
                rows = query.rows(conn, limit=PAGE, scan=scan)
            post(PageLoaded(gen, job.data_gen, 0, plan, rows))
        start_key = job.start_key
        if job.added_only and not full and _anchors_stand(conn, query, job):
            total = start_j * ANCHOR_EVERY + query.count(conn, after=start_key)
        else:
            if job.added_only:
                start_j, start_key, first, full = 0, None, 1, True
            total = query.count(conn)
            if job.verify and not full and not _anchors_hold(conn, query, start_j, start_key, total):
                start_j, start_key, first, full = 0, None, 1, True
        post(Scanned(gen, first, [], total, True, False, full, time.perf_counter() - t0))
        last_post = time.perf_counter()
        wanted = total // ANCHOR_EVERY  # anchors[1..wanted]; none needed below ANCHOR_EVERY rows
        if wanted < first:
            pass
        elif not scan and not query.searched:
            # hop ANCHOR_EVERY rows at a time with LIMIT 1 OFFSET n-1 (the skipping is in C)
            key = start_key
            for _j in range(first, wanted + 1):
                if is_cancelled():
                    break
                key, _n = query.hop(conn, key, ANCHOR_EVERY)
                if key is None:
                    break
                anchors.append(key)
                now = time.perf_counter()
                if progressive and now - last_post > 0.1:
                    post(Scanned(gen, first, anchors, total, False, False, full, now - t0))
                    first += len(anchors)
                    anchors = []
                    last_post = now
        else:
            # sorted and filtered: one table scan + sort beats walking the index
            count = start_j * ANCHOR_EVERY
            # (an index lookup is one query too: each hop would repeat it)
            for batch in query.key_batches(conn, after=start_key, scan=scan):
                if is_cancelled():
                    break
                i0 = (ANCHOR_EVERY - 1 - count) % ANCHOR_EVERY
                anchors.extend(batch[i0::ANCHOR_EVERY])
                count += len(batch)
    except sqlite3.Error as exc:
        if not is_cancelled() and total is None:
            msg = Scanned(gen, first, [], 0, True, True, full, 0.0)
            msg.error = f"cannot read the store: {exc}"
            post(msg)
            return
    finally:
        conn.close()
    if not is_cancelled():
        post(Scanned(gen, first, anchors, -1, False, True, full, time.perf_counter() - t0))

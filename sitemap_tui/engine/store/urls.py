"""The URL table's queries: keyset listings of the entries in any filter and sort order.

The TUI's URL pane (``tui/widgets/url_table``) reads a million rows a page at a time through
:class:`Query`: same order as ``Store.page`` (sort value, id; NULL values last) but written so
SQLite walks the ``entries_loc`` / ``entries_lastmod`` indexes instead of sorting a million rows
for every page. Every statement is run on a connection the caller gives (the UI thread's reader,
or a worker's own), so a time budget (:func:`time_budget`) or a cancel handler can be set on it.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sitemap_tui.engine.store import (
    ENTRY_COLUMNS,
    INDEXES,
    SORTS,
    EntryFilter,
    EntryRow,
    Store,
    search_candidates,
    search_glob,
)
from sitemap_tui.engine.store.audit import STORED_COLUMNS, AuditRow
from sitemap_tui.engine.store.audit_filters import AUDIT_KEY, SORT_KEYS, AuditView
from sitemap_tui.engine.store.coverage_filters import MISSING_VIEW, entry_source
from sitemap_tui.engine.store.diff_view import REMOVED_SOURCE, attach, is_removed
from sitemap_tui.engine.store.rule_filter import COUNTED, hreflang_condition, rule_condition
from sitemap_tui.engine.values import CHANGEFREQS, parse_changefreq

PAGE = 100
"""Rows per page the URL table reads and caches (a keyset query, ~0.3 ms on a million rows)."""
SEARCH_CAP = 300_000
"""A substring whose index lookup would read more rows than this is left to the scan."""

Key = tuple[Any, int]
"""A keyset position: (sort value, entry id)."""


class _End:
    """Sentinel key: after the last row (for "jump to end", a descending query)."""

    def __repr__(self) -> str:
        return "END"


END = _End()


def row_key(row: EntryRow, sort: str) -> Key:
    """The row's keyset position in a ``sort`` order: (sort value, id)."""
    if sort in SORT_KEYS:
        cells = row.audit
        if cells is None:
            return (None, row.id)
        value = {
            "status": cells.status, "indexable": cells.indexable, "reason": cells.reason,
            "canonical": cells.canonical, "time": cells.response_time, "blocked": cells.blocked_key,
        }[sort]
        return (value, row.id)
    if sort == "loc":
        return (row.loc, row.id)
    if sort == "lastmod":
        return (row.lastmod, row.id)
    if sort == "priority":
        return (row.priority, row.id)
    if sort == "issues":
        return (row.n_issues, row.id)
    if sort == "sitemap":
        return (row.node_id, row.id)
    if sort == "changefreq":
        word = parse_changefreq(row.changefreq_raw)  # what the store's changefreq column holds
        return (None if word is None else CHANGEFREQS.index(word), row.id)
    if sort == "ext":
        return (row.n_images + row.n_videos + row.n_news + row.n_alternates, row.id)
    return (row.id, row.id)


ROW_COLUMNS = ENTRY_COLUMNS + ", e.priority"
"""The columns of an EntryRow as the table reads it: with the parsed priority (a sort key)."""
_ROW_WIDTH = ROW_COLUMNS.count(",") + 1


Segment_ = tuple[str, list[Any], str]  # (extra condition, its params, ORDER BY)


class Query:
    """One filter and sort compiled to SQL; immutable, shared by the UI thread and workers.

    Order: (sort value, id) ascending, or both descending, with NULL sort values last either
    way (a missing lastmod or priority is never "the newest" nor "the oldest"). For a sort
    other than id the listing is two segments (non-NULL values by the index, then NULLs by id)
    so each keyset query is an index range scan. "Forward" below means in listing order."""

    def __init__(self, store: Store, flt: EntryFilter, sort: str = "id", *, descending: bool = False,
                 search_upto: int | None = None) -> None:
        if sort not in SORTS and sort not in SORT_KEYS:
            raise ValueError(f"unknown sort {sort!r}")
        # compare mode's removed URLs are OLD's rows, copied into the comparison's scratch
        # database (engine.store.diff_view): listed from there; NEW's search index knows none
        self.source = REMOVED_SOURCE if flt.diff == "removed" else entry_source(flt.coverage)
        # coverage:missing lists the pages of no sitemap (engine.store.coverage_filters)
        if flt.diff == "removed" or flt.coverage == "missing":
            search_upto = None
        where, params = store.where(flt, search_upto=search_upto)
        self.flt = flt
        self.sort = sort
        self.descending = descending
        self.search: tuple[str, int] | None = None
        if search_upto is not None and flt.substring and (pattern := search_glob(flt.substring)):
            self.search = (pattern, search_upto)
        self._cond = where[len(" WHERE ") :] if where else ""
        self._params = tuple(params)
        # the audit and access results joined in (none for compare mode's removed rows: OLD's)
        # coverage:missing's pages, which no sitemap lists, carry their own fetch's verdict
        if flt.diff == "removed":
            self.view = AuditView(False, False, None)
        elif flt.coverage == "missing":
            self.view = MISSING_VIEW
        else:
            self.view = AuditView.of(store.conn)
        self._joins = self.view.joins()
        self._columns = f"{ROW_COLUMNS}, {self.view.columns()}"
        if sort in SORT_KEYS:
            if not self.view.sortable(sort):
                raise ValueError(f"no audit results to sort by {sort}: run sitemap-tui audit first")
            self.col: str | None = self.view.sort_column(sort)
        else:
            self.col = None if sort == "id" else SORTS[sort]

    def _ready(self, conn: sqlite3.Connection) -> None:
        """A diff: filter reads the comparison's scratch database: ATTACHed to ``conn`` once."""
        if self.flt.diff_db:
            attach(conn, self.flt.diff_db)

    @property
    def searched(self) -> bool:
        """The substring is looked up in the search index (see :meth:`narrowed`)."""
        return self.search is not None

    def narrowed(self, conn: sqlite3.Connection) -> bool:
        """True when the index lookup reads few enough rows to beat a scan: a rare substring.
        A common one is found at once by a scan that stops after a page."""
        if self.search is None:
            return False
        self._ready(conn)
        return search_candidates(conn, *self.search, SEARCH_CAP) < SEARCH_CAP

    def _segments(self, key: Key | _End | None, back: bool) -> list[Segment_]:
        """The listing's segments walking forward from after ``key`` (None: the start), or
        backward from before it (END: the end), each as (condition, params, ORDER BY)."""
        down = self.descending != back  # values walked from high to low
        op, d = ("<", " DESC") if down else (">", "")
        c = self.col
        if c is None:
            if key is None or isinstance(key, _End):
                return [("", [], f"e.id{d}")]
            return [(f"e.id {op} ?", [key[1]], f"e.id{d}")]
        by_value = f"{c}{d}, e.id{d}"
        values: Segment_ = (f"{c} IS NOT NULL", [], by_value)
        nulls: Segment_ = (f"{c} IS NULL", [], f"e.id{d}")
        if key is None or isinstance(key, _End):
            return [nulls, values] if back else [values, nulls]
        if key[0] is None:
            within: Segment_ = (f"{c} IS NULL AND e.id {op} ?", [key[1]], f"e.id{d}")
            return [within, values] if back else [within]
        if c.startswith("("):
            # an expression's order (changefreq, extensions): the key's own value by id, then the
            # values beyond it, each one seek in the index (SQLite seeks none for a row value
            # against an expression: it read the index from its start, ~90 ms a page on 1 M rows)
            same: Segment_ = (f"{c} = ? AND e.id {op} ?", [key[0], key[1]], f"e.id{d}")
            beyond: Segment_ = (f"{c} {op} ?", [key[0]], by_value)
            return [same, beyond] if back else [same, beyond, nulls]
        within = (f"{c} IS NOT NULL AND ({c}, e.id) {op} (?, ?)", [key[0], key[1]], by_value)
        return [within] if back else [within, nulls]

    def _asc(self, after: Key | None) -> list[Segment_]:
        """Segments forward (in listing order) from after ``after``."""
        return self._segments(after, back=False)

    def _desc(self, before: Key | _End) -> list[Segment_]:
        """Segments backward (against listing order) from before ``before``."""
        return self._segments(before, back=True)

    @property
    def filtered(self) -> bool:
        return bool(self._cond)

    def _sql(self, columns: str, extra: str, extra_params: Sequence[Any], order: str | None, scan: bool = False) -> tuple[str, list[Any]]:
        # scan=True: a table scan + sort instead of walking the sort index with a lookup per
        # row, which is far slower when a filter rejects most rows (workers only)
        conds = [c for c in (self._cond, extra) if c]
        # (coverage:missing reads a subquery, which has no index to refuse)
        scan = scan and not self.source.startswith("(")
        sql = f"SELECT {columns} FROM {self.source} e" + (" NOT INDEXED" if scan else "") + self._joins
        if conds:
            sql += " WHERE " + " AND ".join(f"({c})" for c in conds)
        if order:
            sql += f" ORDER BY {order}"
        return sql, [*self._params, *extra_params]

    def _run(self, conn: sqlite3.Connection, segments: list[Segment_], limit: int, offset: int = 0, scan: bool = False) -> list[tuple[Any, ...]]:
        self._ready(conn)
        out: list[tuple[Any, ...]] = []
        for extra, params, order in segments:
            want = limit - len(out)
            if want <= 0:
                break
            sql, p = self._sql(self._columns, extra, params, order, scan)
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
        return [self._row(r) for r in raw]

    def _row(self, raw: Sequence[Any]) -> EntryRow:
        n = _ROW_WIDTH
        row = EntryRow(*raw[:n])
        row.audit = self.view.cells(tuple(raw[n:]))
        return row

    def rows_at_offset(self, conn: sqlite3.Connection, offset: int, limit: int = PAGE, scan: bool = False) -> list[EntryRow]:
        """Rows by position with OFFSET: O(offset), for workers only (a far jump before the
        anchors are known)."""
        return self.rows(conn, limit=limit, skip=offset, scan=scan)

    def count(self, conn: sqlite3.Connection, after: Key | None = None) -> int:
        """The listing's rows; ``after``: only those after that key (a resumed count reads the
        rows added since, not the whole listing again)."""
        self._ready(conn)
        if after is None:
            sql, p = self._sql("COUNT(*)", "", [], None)
            return int(conn.execute(sql, p).fetchone()[0])
        n = 0
        for extra, params, _order in self._asc(after):
            sql, p = self._sql("COUNT(*)", extra, params, None)
            n += int(conn.execute(sql, p).fetchone()[0])
        return n

    def key_batches(self, conn: sqlite3.Connection, after: Key | None = None, batch: int = 20000, scan: bool = False) -> Iterator[list[Key]]:
        """Every key after ``after`` in order, in batches."""
        self._ready(conn)
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
        self._ready(conn)
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
        self._ready(conn)
        columns = "e.id, e.id" if self.col is None else f"{self.col}, e.id"
        row = conn.execute(f"SELECT {columns} FROM {self.source} e{self._joins} WHERE e.id=?", (entry_id,)).fetchone()
        return None if row is None else (row[0], row[1])

    def position(self, conn: sqlite3.Connection, entry_id: int) -> int | None:
        """The entry's row index in this listing (None when it is gone): the rows before it
        in listing order, counted."""
        key = self.entry_key(conn, entry_id)
        if key is None:
            return None
        n = 0
        for extra, params, _order in self._desc(key):
            sql, p = self._sql("1", extra, params, None)
            n += int(conn.execute(f"SELECT COUNT(*) FROM ({sql})", p).fetchone()[0])
        return n

    def iter_rows(self, conn: sqlite3.Connection, batch: int = 5000) -> Iterator[EntryRow]:
        """Every row in listing order, a keyset page at a time (export in the table's order)."""
        after: Key | None = None
        while True:
            rows = self.rows(conn, after=after, limit=batch)
            yield from rows
            if len(rows) < batch:
                return
            after = row_key(rows[-1], self.sort)

    def matches(self, conn: sqlite3.Connection, entry_id: int) -> bool:
        self._ready(conn)
        sql, p = self._sql("1", "e.id = ?", [entry_id], None)
        return conn.execute(sql, p).fetchone() is not None

    def row(self, conn: sqlite3.Connection, entry_id: int) -> list[EntryRow]:
        """The listing's row of ``entry_id`` as its pages hold it (from its source, with its
        audit cells), or none: a ``coverage:missing`` page or a removed row is no entry."""
        self._ready(conn)
        sql, p = self._sql(self._columns, "e.id = ?", [entry_id], None)
        return [self._row(r) for r in conn.execute(sql, p).fetchall()]


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


def row_by_id(conn: sqlite3.Connection, entry_id: int) -> list[EntryRow]:
    """The entry as a one-row list (empty when it is gone)."""
    view = AuditView.of(conn)
    row = conn.execute(
        f"SELECT {ROW_COLUMNS}, {view.columns()} FROM entries e{view.joins()} WHERE e.id=?", (entry_id,)
    ).fetchone()
    if row is None:
        return []
    entry = EntryRow(*row[:_ROW_WIDTH])
    entry.audit = view.cells(tuple(row[_ROW_WIDTH:]))
    return [entry]


def rule_names_entries(conn: sqlite3.Connection, rule: str) -> bool | None:
    """Whether any issue of ``rule`` is on an entry, or counts a file's entries (a ``rule:``
    filter can list it); False when all are a file's or the site's; None when the store has none."""
    # (two walks of the rule's index, each stopping at its first row: no sort of its issues)
    if conn.execute("SELECT 1 FROM issues WHERE rule=? AND entry_id IS NOT NULL LIMIT 1", (rule,)).fetchone():
        return True
    if conn.execute("SELECT 1 FROM issues WHERE rule=? LIMIT 1", (rule,)).fetchone() is None:
        return None
    return rule in COUNTED  # a file's count of its URLs names those URLs (store.rule_filter)


def has_hreflang(conn: sqlite3.Connection, entry_id: int, code: str) -> bool:
    """Whether the entry is one ``lang:CODE`` lists (for marks of a language's URLs; a removed
    row's links are in the comparison, which the marks' diff check attached)."""
    cond = hreflang_condition(removed=is_removed(entry_id))
    return conn.execute(f"SELECT 1 FROM (SELECT ? AS id) e WHERE {cond}", (entry_id, code)).fetchone() is not None


def has_rule(conn: sqlite3.Connection, entry_id: int, rule: str) -> bool:
    """Whether the entry is one ``rule:RULE`` lists (for marks of a rule's URLs)."""
    # (by the issues' index first: rule_condition's IN reads all the rule's issues each call)
    if conn.execute("SELECT 1 FROM issues WHERE entry_id=? AND rule=? LIMIT 1", (entry_id, rule)).fetchone():
        return True
    if rule not in COUNTED:
        return False
    cond, params = rule_condition(rule)
    return conn.execute(f"SELECT 1 FROM entries e WHERE e.id=? AND {cond}", (entry_id, *params)).fetchone() is not None


def has_sort_index(conn: sqlite3.Connection, sort: str) -> bool:
    """Whether the index a ``sort`` order walks exists (``Store.ensure_index`` builds it)."""
    if sort in SORT_KEYS:
        return True  # an audit column: no index of its own to build (a page sorts the listing)
    m = re.search(r"EXISTS (\w+)", INDEXES[sort])
    name = m.group(1) if m else ""
    return conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='index' AND name=?", (name,)
    ).fetchone() is not None


def distinct_locs(conn: sqlite3.Connection, node_ids: Sequence[int]) -> int | None:
    """How many different URLs the files hold together (a scan of their entries: the overview
    asks only up to a size)."""
    marks = ",".join(str(int(i)) for i in node_ids) or "NULL"
    row = conn.execute(f"SELECT COUNT(DISTINCT loc) FROM entries WHERE node_id IN ({marks})").fetchone()
    return int(row[0]) if row else None


def audit_of_entry(conn: sqlite3.Connection, entry_id: int) -> AuditRow | None:
    """Every stored audit field of the entry's URL (the detail panel), None when not audited."""
    if not AuditView.of(conn).audit:
        return None
    names = ", ".join(f"a.{c}" for c in STORED_COLUMNS)  # (AuditRow.links is not stored)
    row = conn.execute(
        f"SELECT {names} FROM entries e JOIN audit a ON a.key = {AUDIT_KEY} WHERE e.id = ?", (entry_id,)
    ).fetchone()
    return None if row is None else AuditRow.of(row)

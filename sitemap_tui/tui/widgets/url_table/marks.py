"""The URL grid's marked rows: explicit ids, or "every row of a filter" plus exceptions, so
that marking a million rows never holds a million ids until they are asked for."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

from textual import on, work
from textual.worker import get_current_worker

from sitemap_tui.engine.store import EntryFilter, EntryRow, connect
from sitemap_tui.engine.store.audit_filters import is_skipped
from sitemap_tui.engine.store.coverage_filters import has_coverage
from sitemap_tui.engine.store.diff_view import attach, has_mark
from sitemap_tui.engine.store.urls import Query, has_hreflang, has_rule, row_key
from sitemap_tui.tui.url_filter import row_matches, to_files
from sitemap_tui.tui.widgets.url_table.listing import Listing
from sitemap_tui.tui.widgets.url_table.messages import Materialised, Ranged
from sitemap_tui.words import plural

MARK_CAP = 1_000_000
"""``marked_ids`` materialises at most this many ids (and warns)."""
SYNC_RANGE = 5000
"""A shift-click range up to this many rows is marked at once; longer ones in a worker."""


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


class MarkedListing(Listing):
    """The listing with marks (the grid adds the keys and the drawing)."""

    def __init__(self, db_path: Path, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(db_path, name=name, id=id, classes=classes)
        self.marks = Marks()
        self.marks_version = 0
        self.materialised: tuple[int, set[int], bool] | None = None
        self.cleared: Marks | None = None  # what the last clear took, until the marks change again
        self._rule_cache: dict[tuple[int, str], bool] = {}

    def _rows_dropped(self, *, data: bool) -> None:
        super()._rows_dropped(data=data)
        if data:
            self._rule_cache.clear()

    def _rule_check(self, entry_id: int, rule: str) -> bool:
        key = (entry_id, rule)
        hit = self._rule_cache.get(key)
        if hit is None and self.store is not None:
            if len(self._rule_cache) > 20000:
                self._rule_cache.clear()
            hit = self._rule_cache[key] = has_rule(self.store.conn, entry_id, rule)
        return bool(hit)

    def _diff_check(self, entry_id: int, what: str) -> bool:
        """Whether a row is in compare mode's change category ``what`` (an index lookup in the
        comparison's scratch database, ATTACHed to the table's connection)."""
        flt = self.marks.all_filter
        if self.store is None or flt is None or not flt.diff_db:
            return False
        attach(self.store.conn, flt.diff_db)
        return has_mark(self.store.conn, entry_id, what)

    def _coverage_check(self, entry_id: int, word: str) -> bool:
        """Whether a row is an orphan / not in the user's list / skipped by the audit (a lookup
        per row, as rules)."""
        if self.store is None:
            return False
        if word == "skipped":
            return is_skipped(self.store.conn, entry_id)
        return has_coverage(self.store.conn, entry_id, word)

    def _lang_check(self, entry_id: int, code: str) -> bool:
        """Whether a row has an alternate in the hreflang language ``code`` (a lookup per row)."""
        return self.store is not None and has_hreflang(self.store.conn, entry_id, code)

    def is_marked(self, row: EntryRow) -> bool:
        m = self.marks
        if row.id in m.added:
            return True
        if m.all_filter is None or row.id in m.removed:
            return False
        return row_matches(m.all_filter, row, self._rule_check, m.sets, self._diff_check, self._coverage_check,
                           self._lang_check)

    def _marks_changed(self, *, undoable: bool = False) -> None:
        if not undoable:
            self.cleared = None  # a mark made after a clear: bringing the old ones back would lose it
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
            if m.all_filter is None or not row_matches(m.all_filter, row, self._rule_check, m.sets, self._diff_check,
                                                        self._coverage_check, self._lang_check):
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
        self.post_message(Ranged(ids, truncated))

    @on(Ranged)
    def _on_ranged(self, msg: Ranged) -> None:
        self.mark_ids(msg.ids)
        if msg.truncated:
            self.notify(f"marked the first {MARK_CAP:,} rows of the range only", severity="warning")

    def mark_all(self) -> None:
        flt = dataclasses.replace(self.filter)
        store = self._open()
        if flt.sitemap is not None:  # (the marks tell a row's file by its node: to_files)
            flt = to_files(flt, store.nodes_at(flt.sitemap) if store is not None else ())
        self._set_marks(Marks(all_filter=flt))

    def _set_marks(self, marks: Marks, *, undoable: bool = False) -> None:
        self.marks = marks
        self.materialised = None
        self._marks_changed(undoable=undoable)
        store = self._open()
        if store is not None and marks.all_filter is not None:
            self._materialise(marks.all_filter, Query(store, marks.all_filter, "id"))

    def clear_marks(self, *, undoable: bool = True) -> int | None:
        """Unmark every row; ``restore_marks`` brings them back until the marks change again
        (a few hundred rows marked by hand were lost to one Esc). The number cleared (None while
        "all filtered" was still being counted); not ``undoable`` when they belonged to rows no
        longer shown (another node's)."""
        count = self.marked_count
        self.cleared = self.marks if undoable and not self.marks.empty else None
        self._set_marks(Marks(), undoable=True)
        return count

    def restore_marks(self) -> bool:
        """The marks the last clear took, back; False when there is nothing to restore."""
        if self.cleared is None:
            return False
        marks, self.cleared = self.cleared, None
        self._set_marks(marks, undoable=True)
        return True

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
            self.post_message(Materialised(flt, ids, truncated))

    @on(Materialised)
    def _on_materialised(self, msg: Materialised) -> None:
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
        exceptions (no id list at all), else the materialised ids, with the comparison that lists
        compare mode's removed rows (the export reads each kind of row from its own source:
        store/exports.marked_parts)."""
        m = self.marks
        if m.empty:
            return None
        if m.all_filter is not None and not m.added and not m.removed:
            return dataclasses.replace(m.all_filter)
        diff_db = self.filter.diff_db or (m.all_filter.diff_db if m.all_filter is not None else None)
        return EntryFilter(entry_ids=sorted(self.marked_ids), diff_db=diff_db)

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

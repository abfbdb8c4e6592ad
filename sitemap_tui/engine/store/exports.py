"""The export's queries: a filter's rows in the URL table's order, and each URL's rule ids.

The TUI's export writes what the user sees, in the order the table shows it: the rows are read
through the table's own :class:`~sitemap_tui.engine.store.urls.Query` (same sort column, NULL
values last either way; a descending sort walks it backwards), a page at a time. A long list of
marked ids is not one huge ``IN (...)`` re-parsed per page: its sort keys are read a chunk at a
time and sorted here, then its rows are read in that order.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

from sitemap_tui.engine.store import EntryFilter, EntryRow, Store
from sitemap_tui.engine.store.audit import STORED_COLUMNS, AuditRow
from sitemap_tui.engine.store.audit_filters import AUDIT_KEY
from sitemap_tui.engine.store.coverage_filters import is_unlisted, unlisted_page
from sitemap_tui.engine.store.diff_view import is_removed
from sitemap_tui.engine.store.rows import chunks
from sitemap_tui.engine.store.urls import END, Key, Query, row_key

ID_CHUNK = 500
"""Marked rows are read in chunks of this many ids."""
PAGE_ROWS = 2000
"""Rows per keyset page of an export walk."""


def marked_parts(flt: EntryFilter) -> list[EntryFilter]:
    """``flt`` as one filter per source its rows are read from. Marked rows (an id list) may
    be of three kinds, each listed from a source of its own (``Query.source``): the sitemaps'
    entries, ``coverage:missing``'s pages of no sitemap and compare mode's removed rows (OLD's,
    in the comparison's scratch database ``flt.diff_db``). An id list read from ``entries``
    alone lost the other two, so a few missing pages marked exported nothing. Any other filter
    is itself. Raises ValueError for removed rows without the comparison that lists them."""
    ids = flt.entry_ids
    if ids is None or flt.coverage is not None or flt.diff is not None:
        return [flt]
    unlisted = [i for i in ids if is_unlisted(i)]
    removed = [i for i in ids if is_removed(i)]
    if not unlisted and not removed:
        return [flt]
    parts = [dataclasses.replace(flt, entry_ids=entries)] if (entries := [i for i in ids if i > 0]) else []
    if unlisted:
        parts.append(dataclasses.replace(flt, entry_ids=unlisted, coverage="missing"))
    if removed:
        if not flt.diff_db:
            raise ValueError(f"{len(removed):,} of the marked rows were removed since an earlier exploration,"
                             " and no comparison lists them: open compare mode again")
        parts.append(dataclasses.replace(flt, entry_ids=removed, diff="removed"))
    return parts


def count_rows(store: Store, flt: EntryFilter) -> int:
    """How many rows ``flt`` lists, each kind counted from the source the table lists it from
    (:func:`marked_parts`; ``Store.count`` reads the entries or the missing pages only)."""
    return sum(Query(store, part).count(store.conn) for part in marked_parts(flt))


def ordered_rows(store: Store, flt: EntryFilter, sort: str = "id", *, descending: bool = False) -> Iterator[EntryRow]:
    """Every row of ``flt`` in the URL table's order: (sort value, id) ascending, or both
    descending, with NULL sort values last either way (by id, in the same direction)."""
    parts = marked_parts(flt)
    if len(parts) > 1:  # rows of several sources: ordered together here
        yield from _ordered_ids(store, parts, sort, descending)
        return
    flt = parts[0]
    ids = flt.entry_ids
    if ids is not None and len(ids) > ID_CHUNK:
        yield from _ordered_ids(store, [flt], sort, descending)
        return
    query = Query(store, flt, sort)
    conn = store.conn
    if not descending:
        after: Key | None = None
        while rows := query.rows(conn, after=after, limit=PAGE_ROWS):
            yield from rows
            after = row_key(rows[-1], sort)
        return
    # walked backwards from the end, the NULL values come first: they are held back and
    # written last, as the table shows them
    nulls: list[EntryRow] = []
    before: Any = END
    while rows := query.rows(conn, before=before, limit=PAGE_ROWS):
        for row in reversed(rows):  # a page comes back ascending
            if sort != "id" and row_key(row, sort)[0] is None:
                nulls.append(row)
            else:
                yield row
        before = row_key(rows[0], sort)
    yield from nulls


def _ordered_ids(store: Store, parts: list[EntryFilter], sort: str, descending: bool) -> Iterator[EntryRow]:
    """The rows of id lists (one filter per source: :func:`marked_parts`) in the table's order."""
    conn = store.conn
    keys: list[Key] = []
    source: dict[int, EntryFilter] = {}  # each id's filter (the ids of the parts never overlap)
    for flt in parts:
        for chunk in chunks(sorted(set(flt.entry_ids or ())), ID_CHUNK):
            part = Query(store, dataclasses.replace(flt, entry_ids=chunk), sort)
            for batch in part.key_batches(conn):
                keys.extend((k[0], k[1]) for k in batch)
                source.update((k[1], flt) for k in batch)
    # the table's order: (value, id) with NULL values last, by id, both ways reversible
    values = sorted((k for k in keys if k[0] is not None), reverse=descending)
    nulls = sorted((k for k in keys if k[0] is None), key=lambda k: k[1], reverse=descending)
    for chunk in chunks([k[1] for k in values + nulls], ID_CHUNK):
        by_id: dict[int, EntryRow] = {}
        for flt in {id(source[i]): source[i] for i in chunk}.values():
            ids = [i for i in chunk if source[i] is flt]
            part = Query(store, dataclasses.replace(flt, entry_ids=ids), "id")
            by_id.update((r.id, r) for r in part.rows(conn, limit=len(ids)))
        yield from (by_id[i] for i in chunk if i in by_id)  # a row deleted meanwhile is skipped


def rule_ids_for(conn: sqlite3.Connection, rows: Sequence[EntryRow]) -> dict[int, list[str]]:
    """The distinct rule ids of each row's issues, in the order they were found.

    Only rows with issues are looked up, through their files (``issues_node``): an entry's
    issues carry its file's node id, and the issues table has no index on entry_id."""
    wanted = [r for r in rows if r.n_issues]
    out: dict[int, list[str]] = {}
    if not wanted:
        return out
    nodes = ",".join(str(int(n)) for n in sorted({r.node_id for r in wanted}))
    for chunk in chunks([r.id for r in wanted], 900):
        marks = ",".join("?" * len(chunk))
        for eid, rule in conn.execute(
            f"SELECT entry_id, rule FROM issues WHERE node_id IN ({nodes}) AND entry_id IN ({marks}) ORDER BY id",
            chunk,
        ):
            rules = out.setdefault(eid, [])
            if rule not in rules:
                rules.append(rule)
    return out


def audit_values_for(conn: sqlite3.Connection, rows: Sequence[EntryRow]) -> dict[int, dict[str, Any]]:
    """Each row's audit result as ``sitemap-tui audit --format jsonl`` writes it (the export's
    audit columns); ``blocked_for`` from the crawler-access table when the row carries that
    verdict (``EntryRow.audit``, as the URL table shows it). Rows with neither are left out."""
    out: dict[int, dict[str, Any]] = {}
    names = ", ".join(f"a.{c}" for c in STORED_COLUMNS)  # (AuditRow.links is not stored)
    for chunk in chunks([r.id for r in rows], 900):
        marks = ",".join("?" * len(chunk))
        for raw in conn.execute(
            f"SELECT e.id, {names} FROM entries e JOIN audit a ON a.key = {AUDIT_KEY} WHERE e.id IN ({marks})", chunk
        ):
            row = AuditRow.of(raw[1:])
            out[int(raw[0])] = {
                "status": row.status, "final_url": row.final_url, "redirects": row.redirects,
                "indexable": row.indexable, "reason": row.reason, "canonical": row.canonical,
                "blocked_for": row.blocked_for, "last_modified": row.last_modified,
                "content_type": row.content_type,
                "response_time": None if row.response_time is None else round(row.response_time, 4),
            }
    for r in rows:
        # a coverage:missing page: the verdict of the crawl's or the list's own fetch
        if is_unlisted(r.id) and (page := unlisted_page(conn, r.id)) is not None:
            out[r.id] = {**dict.fromkeys(("final_url", "redirects", "canonical", "blocked_for", "last_modified",
                                          "content_type", "response_time")),
                         "status": page.status, "indexable": True, "reason": page.reason}
            if (f := page.fetch) is not None:
                out[r.id].update(final_url=f.final_url, redirects=f.redirects, canonical=f.canonical,
                                 blocked_for=f.blocked_for, last_modified=f.last_modified,
                                 content_type=f.content_type,
                                 response_time=None if f.response_time is None else round(f.response_time, 4))
        cells = r.audit
        if cells is not None and cells.access_known:
            out.setdefault(r.id, {})["blocked_for"] = list(cells.blocked)
    return out

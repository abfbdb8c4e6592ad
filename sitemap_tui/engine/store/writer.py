"""The writer: what the engine and the checks add to a store (nodes, entries, issues, the search
index), on top of the reads."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from sitemap_tui.engine.model import Entry, Issue, Node
from sitemap_tui.engine.stats import Aggregate
from sitemap_tui.engine.store.access import forget_entries as forget_access
from sitemap_tui.engine.store.base import writes
from sitemap_tui.engine.store.reads import StoreReads
from sitemap_tui.engine.store.rows import EntryRows, IssueScope, entry_rows, insert_entries
from sitemap_tui.engine.store.schema import INDEXES, NODE_STAT_COLUMNS
from sitemap_tui.engine.store.search import SEARCH_SQL, SEARCH_TABLE, SEARCH_UPTO
from sitemap_tui.engine.store.shard import ShardCopier, ShardRows
from sitemap_tui.engine.tree_order import place


class Store(StoreReads):
    """One store file: the writer side, plus the read queries (StoreReads; readers open their
    own Store, read-only). Which files it opens, and what a write SQLite refuses does: see
    StoreBase."""

    _shards: ShardCopier | None = None  # the worker shards attached (engine/store/shard.py)

    # -- nodes -----------------------------------------------------------------------------
    @writes
    def add_node(self, node: Node) -> None:
        parent_path, parent_place = "/", None
        if node.parent_id is not None:
            row = self.conn.execute(
                "SELECT path, place FROM nodes WHERE id=?", (node.parent_id,)
            ).fetchone()
            if row:
                parent_path, parent_place = row
        self.conn.execute(
            "INSERT INTO nodes(id, parent_id, path, url, kind, state, found_by, depth, line,"
            " lastmod_raw, error, expandable, place) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                node.id, node.parent_id, f"{parent_path}{node.id}/", node.url, node.kind.value,
                node.state.value, node.found_by.value, node.depth, node.line, node.lastmod_raw,
                node.error, int(node.expandable), place(parent_place, node.line, node.id),
            ),
        )

    @writes
    def update_node(self, node: Node, agg: Aggregate | None = None) -> None:
        s = node.stats
        values = [getattr(s, c) for c in NODE_STAT_COLUMNS]
        values[NODE_STAT_COLUMNS.index("gzipped")] = int(s.gzipped)
        sql = (
            "UPDATE nodes SET kind=?, state=?, error=?, expandable=?, "
            + ", ".join(f"{c}=?" for c in NODE_STAT_COLUMNS)
            # (a carried file fetched again in full is no longer unchanged: the column follows it)
            + ", unchanged_since=?"
        )
        params: list[Any] = [node.kind.value, node.state.value, node.error, int(node.expandable)]
        params += values
        params.append(s.unchanged_since)
        if agg is not None:
            sql += ", agg=?"
            params.append(json.dumps(agg.to_json()))
        sql += " WHERE id=?"
        params.append(node.id)
        self.conn.execute(sql, params)

    @writes
    def delete_node_data(self, node_ids: Sequence[int], *, remove_node: bool = False) -> None:
        """Drop what a node's file produced (before a reload), optionally the node itself."""
        ids = ",".join(str(int(n)) for n in node_ids) or "NULL"
        c = self.conn
        sub = f"SELECT id FROM entries WHERE node_id IN ({ids})"
        upto = self.search_upto()
        if upto:
            # an external-content index forgets a row only when told its old content
            c.execute(
                f"INSERT INTO {SEARCH_TABLE}({SEARCH_TABLE}, rowid, loc) SELECT 'delete', id, loc"
                f" FROM entries WHERE node_id IN ({ids}) AND id <= ? AND loc IS NOT NULL",
                (upto,),
            )
            c.execute(f"DELETE FROM search_nul WHERE id IN ({sub})")
        for table in ("images", "videos", "news", "alternates"):
            c.execute(f"DELETE FROM {table} WHERE entry_id IN ({sub})")
        forget_access(c, sub)
        c.execute(f"DELETE FROM issues WHERE node_id IN ({ids})")
        c.execute(f"DELETE FROM entries WHERE node_id IN ({ids})")
        if remove_node:
            c.execute(f"DELETE FROM nodes WHERE id IN ({ids})")
        else:
            c.execute(f"UPDATE nodes SET agg=NULL WHERE id IN ({ids})")


    # -- entries ---------------------------------------------------------------------------
    def add_entries(self, node_id: int, entries: Sequence[Entry]) -> list[int]:
        """Insert a batch; returns the new entry ids in order."""
        return self.add_rows(node_id, entry_rows(entries, self.signature_key()))

    @writes
    def add_rows(self, node_id: int, rows: EntryRows) -> list[int]:
        """Insert a batch prepared by entry_rows() (possibly in another process)."""
        if not rows.entries:
            return []
        c = self.conn
        first = self._next_entry_id()
        insert_entries(c, node_id, rows, first)
        for table, marks, items in (
            ("images", "?,?,?,?,?,?,?", rows.images),
            ("videos", "?,?,?", rows.videos),
            ("news", "?,?,?,?,?,?,?", rows.news),
            ("alternates", "?,?,?,?,?,?,?,?", rows.alternates),
        ):
            if items:
                c.executemany(
                    f"INSERT INTO {table} VALUES({marks})",
                    [(first + item[0], *item[1:]) for item in items],
                )
        return list(range(first, first + len(rows.entries)))

    def _next_entry_id(self) -> int:
        # ids are never reused below what the search index covers (a reload deletes rows)
        return int(self.conn.execute(
            "SELECT MAX(COALESCE((SELECT MAX(id) FROM entries), 0),"
            " COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?), 0))",
            (SEARCH_UPTO,),
        ).fetchone()[0]) + 1

    def copy_rows(self, node_id: int, shard: ShardRows) -> list[int]:
        """Insert a batch a worker wrote into its shard (engine/store/shard.py), as add_rows
        would have inserted it; returns the new entry ids in order. Raises ShardGone when the
        shard file is no longer there (its worker died)."""
        if shard.count == 0:
            return []
        if self._shards is None:
            self._shards = ShardCopier(self.conn, self.commit, self.begin)
        with self.guarded():
            return self._shards.copy(node_id, shard, self._next_entry_id())

    def detach_shards(self) -> None:
        """Let go of the shard files (before their folder is removed); commits what is pending."""
        if self._shards is not None:
            in_tx = self._in_tx
            self.commit()
            self._shards.detach_all()
            if in_tx:
                self.begin()

    # -- the substring search index -----------------------------------------------------------
    @writes
    def extend_search(self, limit: int) -> int:
        """Index up to ``limit`` more entries (in id order); returns how many it covered, 0 when
        the index is complete (or FTS5 is missing from this SQLite: then the table scan stays)."""
        upto = self.search_upto()
        c = self.conn
        if upto is None:
            try:
                for statement in SEARCH_SQL:
                    c.execute(statement)
            except sqlite3.OperationalError:
                return 0
            upto = 0
        row = c.execute(
            "SELECT MAX(id), COUNT(*) FROM (SELECT id FROM entries WHERE id > ? ORDER BY id LIMIT ?)",
            (upto, limit),
        ).fetchone()
        last, n = row[0], int(row[1])
        if not n:
            self.set_meta(SEARCH_UPTO, upto)
            return 0
        c.execute(
            f"INSERT INTO {SEARCH_TABLE}(rowid, loc) SELECT id, loc FROM entries"
            " WHERE id > ? AND id <= ? AND loc IS NOT NULL",
            (upto, last),
        )
        c.execute(
            "INSERT INTO search_nul SELECT id FROM entries WHERE id > ? AND id <= ? AND instr(loc, char(0)) > 0",
            (upto, last),
        )
        self.set_meta(SEARCH_UPTO, int(last))
        return n

    @writes
    def ensure_index(self, name: str) -> None:
        """Sorted listings need an index; built on first use, not on every insert."""
        self.conn.execute(INDEXES[name])


    # -- issues ----------------------------------------------------------------------------
    @writes
    def add_issues(self, issues: Sequence[Issue], entry_ids: Sequence[int | None] | None = None) -> None:
        if not issues:
            return
        rows = []
        bumps: dict[int, int] = {}
        for i, iss in enumerate(issues):
            eid = entry_ids[i] if entry_ids is not None else None
            rows.append(
                (iss.rule, iss.severity.value, iss.node_id, eid, iss.line, iss.column, iss.url,
                 iss.message, iss.weight)
            )
            if eid is not None:
                bumps[eid] = bumps.get(eid, 0) + 1
        self.conn.executemany(
            "INSERT INTO issues(rule, severity, node_id, entry_id, line, col, url, message, weight)"
            " VALUES(?,?,?,?,?,?,?,?,?)",
            rows,
        )
        if bumps:
            self.conn.executemany(
                "UPDATE entries SET n_issues = n_issues + ? WHERE id=?",
                [(n, eid) for eid, n in bumps.items()],
            )

    @writes
    def forget_issues(self, scope: IssueScope) -> None:
        """Drop the issues a stage wrote on an earlier run (``scope``), before it writes its new
        ones with :meth:`add_issues`: with add_issues, the one place that keeps each entry's
        ``n_issues`` equal to the issues stored on it."""
        where, params = scope.where()
        c = self.conn
        # Count per entry first: a correlated COUNT per entry would scan the issues table
        # (no index on entry_id) once per entry.
        c.execute("DROP TABLE IF EXISTS temp.forget_issues")
        c.execute("CREATE TEMP TABLE forget_issues(entry_id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
        try:
            c.execute(
                "INSERT INTO temp.forget_issues SELECT entry_id, COUNT(*) FROM issues"
                f" WHERE {where} AND entry_id IS NOT NULL GROUP BY entry_id",
                params,
            )
            c.execute(
                "UPDATE entries SET n_issues = MAX(0, n_issues -"
                " (SELECT n FROM temp.forget_issues f WHERE f.entry_id = entries.id))"
                " WHERE id IN (SELECT entry_id FROM temp.forget_issues)"
            )
            c.execute(f"DELETE FROM issues WHERE {where}", params)
        finally:
            c.execute("DROP TABLE IF EXISTS temp.forget_issues")

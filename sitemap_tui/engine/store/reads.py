"""The store's read queries: nodes, entry listings (keyset-paged, filtered), entry details and
issues."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from sitemap_tui.engine.model import Node, Severity
from sitemap_tui.engine.stats import Aggregate
from sitemap_tui.engine.store.audit_filters import audit_clauses
from sitemap_tui.engine.store.base import StoreBase
from sitemap_tui.engine.store.coverage_filters import coverage_clauses, entry_source
from sitemap_tui.engine.store.diff_view import attach as attach_diff
from sitemap_tui.engine.store.diff_view import mark_condition
from sitemap_tui.engine.store.rows import (
    ENTRY_COLUMNS,
    EntryFilter,
    EntryRow,
    IssueRow,
    chunks,
    row_to_node,
)
from sitemap_tui.engine.store.rule_filter import hreflang_condition, rule_condition
from sitemap_tui.engine.store.schema import (
    EXTENSIONS,
    NODE_STAT_COLUMNS,
    SORTS,
    compiled_regex,
    issue_count,
    issue_weight,
    tree_order,
)
from sitemap_tui.engine.store.search import (
    SEARCH_TABLE,
    SEARCH_UPTO,
    search_candidates,
    search_glob,
)

# the files a `sitemap:URL` filter names: by the URL listed or the one it redirected to (the
# Issues pane shows the latter)
NODES_AT = "SELECT id FROM nodes WHERE url = ? OR final_url = ?"


# what the writer stores for a file with no entries (a sitemap that failed, a 404): merging it
# changes nothing, and 4,600 of them cost 0.1 s of the root's Overview on an index fan-out
_EMPTY_AGG = json.dumps(Aggregate(unique=0).to_json())


class StoreReads(StoreBase):
    """The read queries (every connection, the writer's included, may ask them)."""

    # -- nodes -----------------------------------------------------------------------------
    def next_node_id(self) -> int:
        row = self.conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM nodes").fetchone()
        return int(row[0])


    def node(self, node_id: int) -> Node | None:
        row = self.conn.execute(
            "SELECT id, url, kind, state, found_by, parent_id, depth, error, expandable, line,"
            " lastmod_raw, " + ", ".join(NODE_STAT_COLUMNS) + f", {self._since_column()} FROM nodes WHERE id=?",
            (node_id,),
        ).fetchone()
        return None if row is None else row_to_node(row)

    def _since_column(self) -> str:
        """``unchanged_since`` (a file carried over by a re-exploration), or NULL in a store
        written before the column, which a read-only connection cannot add."""
        if not hasattr(self, "_since"):
            have = {row[1] for row in self.conn.execute("PRAGMA table_info(nodes)")}
            self._since = "unchanged_since" if "unchanged_since" in have else "NULL"
        return self._since

    def root_url(self) -> str | None:
        """The URL of the first root node: the target the exploration was started on."""
        row = self.conn.execute(
            "SELECT url FROM nodes WHERE parent_id IS NULL ORDER BY id LIMIT 1"
        ).fetchone()
        return None if row is None else str(row[0])

    def first_loc(self) -> str | None:
        """The first entry's URL (the site a local file or folder stands for), or None."""
        row = self.conn.execute("SELECT loc FROM entries ORDER BY id LIMIT 1").fetchone()
        return None if row is None else row[0]

    def nodes(self, parent_id: int | None = ..., ) -> list[Node]:  # type: ignore[assignment]
        sql = (
            "SELECT id, url, kind, state, found_by, parent_id, depth, error, expandable, line,"
            " lastmod_raw, " + ", ".join(NODE_STAT_COLUMNS) + f", {self._since_column()} FROM nodes"
        )
        if parent_id is ...:
            rows = self.conn.execute(sql + " ORDER BY id").fetchall()
        elif parent_id is None:
            rows = self.conn.execute(sql + " WHERE parent_id IS NULL ORDER BY id").fetchall()
        else:
            rows = self.conn.execute(
                sql + " WHERE parent_id=? ORDER BY id", (parent_id,)
            ).fetchall()
        return [row_to_node(r) for r in rows]

    def nodes_at(self, url: str) -> list[int]:
        """The files at ``url``, as listed or where they redirected (``sitemap:URL``)."""
        return [int(r[0]) for r in self.conn.execute(NODES_AT, (url, url))]

    def subtree_ids(self, node_id: int) -> list[int]:
        row = self.conn.execute("SELECT path FROM nodes WHERE id=?", (node_id,)).fetchone()
        if row is None:
            return []
        return [
            r[0]
            for r in self.conn.execute(
                f"SELECT id FROM nodes WHERE substr(path, 1, ?) = ? ORDER BY {tree_order()}",
                (len(row[0]), row[0]),
            )
        ]

    def ids_in_tree_order(self) -> list[int]:
        """Every node's id, level by level in the tree's order (schema.tree_order): the order
        the report, the audit and the deep checks take files in."""
        return [r[0] for r in self.conn.execute(f"SELECT id FROM nodes ORDER BY {tree_order()}")]

    def aggregate(self, node_ids: Iterable[int] | None) -> Aggregate:
        """Stats merged over the given nodes (each file's aggregate was kept while streaming);
        None: over every file of the exploration, in one query (the explorer's root on an
        index fan-out: 120,000 ids took 240 queries and 0.26 s a refresh)."""
        rows: Iterable[tuple[str]]
        if node_ids is None:
            rows = self.conn.execute("SELECT agg FROM nodes WHERE agg IS NOT NULL"
                                     " AND kind NOT IN ('site', 'directory')")
        else:
            ids = list(node_ids)
            if len(ids) == 1:  # one file's own aggregate, its unique count kept (a merge drops it)
                row = self.conn.execute("SELECT agg FROM nodes WHERE id=?", (ids[0],)).fetchone()
                return Aggregate.from_json(json.loads(row[0])) if row and row[0] else Aggregate()
            rows = (row for chunk in chunks(ids, 500) for row in self.conn.execute(
                f"SELECT agg FROM nodes WHERE agg IS NOT NULL AND id IN ({','.join('?' * len(chunk))})", chunk))
        total = Aggregate()
        for (agg,) in rows:
            if agg != _EMPTY_AGG:
                total.merge(Aggregate.from_json(json.loads(agg)))
        return total

    # -- entries ---------------------------------------------------------------------------
    def last_entry_id(self) -> int:
        """The highest entry id (0 without entries): how far the search index has to go."""
        return int(self.conn.execute("SELECT COALESCE(MAX(id), 0) FROM entries").fetchone()[0])

    def search_upto(self) -> int | None:
        """The last entry id the search index covers, or None when there is no index."""
        value = self.get_meta(SEARCH_UPTO)
        return int(value) if value is not None else None

    def search_candidates(self, substring: str, cap: int) -> int | None:
        """How many rows an index lookup of ``substring`` would read (stopping at ``cap``), or
        None when the index cannot serve it."""
        upto = self.search_upto()
        pattern = search_glob(substring)
        if upto is None or pattern is None:
            return None
        return search_candidates(self.conn, pattern, upto, cap)

    def where(self, f: EntryFilter, *, search_upto: int | None = None) -> tuple[str, list[Any]]:
        """The SQL conditions of ``f`` (``" WHERE ..."`` or ``""``) and their parameters, for the
        query modules of this package (``store.urls``) that build their own statements on them."""
        return self._where(f, search_upto=search_upto)

    def _where(self, f: EntryFilter, *, search_upto: int | None = None) -> tuple[str, list[Any]]:
        """SQL conditions for ``f``. With ``search_upto`` (what the search index covers), a
        substring is looked up in the index (plus the rows it does not cover yet) instead of
        scanning the table: for rare substrings; a common one is faster as a scan."""
        clauses: list[str] = []
        params: list[Any] = []
        if f.substring and search_upto is not None and (pattern := search_glob(f.substring)):
            clauses.append(
                f"e.id IN (SELECT rowid FROM {SEARCH_TABLE} WHERE loc GLOB ?"
                " UNION ALL SELECT id FROM search_nul UNION ALL SELECT id FROM entries WHERE id > ?)"
            )
            params += [pattern, search_upto]
        # coverage:missing lists pages no sitemap lists: a node's scope cannot narrow them
        if f.node_ids is not None and f.coverage != "missing":
            ids = list(f.node_ids)
            if not ids:
                clauses.append("0")
            else:
                clauses.append(f"e.node_id IN ({','.join(str(int(i)) for i in ids)})")
        if f.entry_ids is not None:
            ids = list(f.entry_ids)
            clauses.append(f"e.id IN ({','.join(str(int(i)) for i in ids)})" if ids else "0")
        for text in (f.substring, *f.also_contains):
            if text:
                clauses.append("instr(e.loc, ?) > 0")
                params.append(text)
        if f.url is not None:
            clauses.append("e.loc = ?")
            params.append(f.url)
        if f.sitemap is not None:
            clauses.append(f"e.node_id IN ({NODES_AT})")
            params += [f.sitemap, f.sitemap]
        if f.regex:
            compiled_regex(f.regex)  # raise re.error here, not inside SQLite
            clauses.append("e.loc REGEXP ?")
            params.append(f.regex)
        if f.lastmod_from is not None:
            clauses.append("e.lastmod >= ?")
            params.append(f.lastmod_from)
        if f.lastmod_to is not None:
            clauses.append("e.lastmod < ?")
            params.append(f.lastmod_to)
        if f.has_issue:
            clauses.append("e.n_issues > 0")
        if f.extension:
            clauses.append(f"e.{EXTENSIONS[f.extension]} > 0")
        if f.hreflang:
            clauses.append(hreflang_condition(removed=f.diff == "removed"))
            params.append(f.hreflang)
        if f.rule:
            cond, more = rule_condition(f.rule)
            clauses.append(cond)
            params += more
        if f.diff:
            if not f.diff_db:
                raise ValueError(f"diff:{f.diff} lists what changed since an earlier exploration: open compare mode"
                                 " first (\"Compare with…\" in the palette, or sitemap-tui diff OLD NEW --tui)")
            attach_diff(self.conn, f.diff_db)
            cond, more = mark_condition(f.diff)
            clauses.append(cond)
            params += more
        for raw, parsed, want, bucket in (
            ("e.lastmod_raw", "e.lastmod", f.lastmod_state, None),
            ("e.changefreq_raw", "e.changefreq", f.changefreq, "e.changefreq"),
            ("e.priority_raw", "e.priority", f.priority, "PRIORITY_BUCKET(e.priority)"),
        ):
            if want is None:
                continue
            if want == "missing":
                clauses.append(f"{raw} IS NULL")
            elif want == "any":
                clauses.append(f"{raw} IS NOT NULL")
            elif want == "invalid":  # written but not understood (as stats.FileAccumulator counts)
                clauses.append(f"{parsed} IS NULL AND {raw} IS NOT NULL")
            elif bucket is not None:
                clauses.append(f"{bucket} = ?")
                params.append(want)
            else:
                raise ValueError(f"lastmod state {want!r}? use missing or invalid")
        more_clauses, more = audit_clauses(self.conn, f)
        clauses += more_clauses
        params += more
        clauses += coverage_clauses(self.conn, f.orphan, f.coverage)
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", params

    def page(
        self,
        f: EntryFilter,
        *,
        sort: str = "id",
        after: tuple[Any, int] | None = None,
        before: tuple[Any, int] | None = None,
        limit: int = 200,
    ) -> list[EntryRow]:
        """One keyset page: rows strictly after (or before) the (sort value, id) key.

        With ``before`` the rows come back in ascending order all the same."""
        col = SORTS[sort]
        where, params = self._where(f)
        conds = []
        if after is not None:
            if sort == "id":
                conds.append("e.id > ?")
                params.append(after[1])
            else:
                conds.append(f"({col} > ? OR ({col} IS ? AND e.id > ?) OR ({col} IS NULL AND ? IS NOT NULL))")
                params += [after[0], after[0], after[1], after[0]]
        if before is not None:
            if sort == "id":
                conds.append("e.id < ?")
                params.append(before[1])
            else:
                conds.append(f"({col} < ? OR ({col} IS ? AND e.id < ?) OR (? IS NULL AND {col} IS NOT NULL))")
                params += [before[0], before[0], before[1], before[0]]
        if conds:
            where = (where + " AND " if where else " WHERE ") + " AND ".join(conds)
        # NULLs sort last in both directions of the keyset (missing lastmod at the end)
        null_last = f"{col} IS NULL, " if sort != "id" else ""
        if before is not None:
            order = (f"{col} IS NOT NULL, {col} DESC, e.id DESC" if sort != "id" else "e.id DESC")
        else:
            order = f"{null_last}{col}, e.id" if sort != "id" else "e.id"
        sql = f"SELECT {ENTRY_COLUMNS}, e.priority FROM entries e{where} ORDER BY {order} LIMIT ?"
        params.append(limit)
        rows = [EntryRow(*r) for r in self.conn.execute(sql, params)]
        if before is not None:
            rows.reverse()
        return rows

    def sort_key(self, row: EntryRow, sort: str) -> tuple[Any, int]:
        value = {"loc": row.loc, "lastmod": row.lastmod, "priority": row.priority,
                 "issues": row.n_issues, "sitemap": row.node_id}.get(sort, row.id)
        return (value, row.id)

    def count(self, f: EntryFilter, *, search: bool = False) -> int:
        """Entries matching ``f``; ``search`` looks a substring up in the search index (if any)."""
        search = search and f.coverage != "missing"  # the search index knows entries only
        where, params = self._where(f, search_upto=self.search_upto() if search else None)
        return int(self.conn.execute(f"SELECT COUNT(*) FROM {entry_source(f.coverage)} e{where}", params).fetchone()[0])

    def iter_entries(self, f: EntryFilter, *, sort: str = "id", batch: int = 5000) -> Iterator[EntryRow]:
        """Every matching row, page by page (export, headless output)."""
        after: tuple[Any, int] | None = None
        while True:
            rows = self.page(f, sort=sort, after=after, limit=batch)
            yield from rows
            if len(rows) < batch:
                return
            after = self.sort_key(rows[-1], sort)

    def entry_detail(self, entry_id: int) -> dict[str, Any]:
        """Everything about one entry, for a detail view."""
        c = self.conn
        row = c.execute(
            f"SELECT {ENTRY_COLUMNS}, e.changefreq, e.priority, e.title FROM entries e WHERE e.id=?",
            (entry_id,),
        ).fetchone()
        if row is None:
            return {}
        base = EntryRow(*row[:13])
        return {
            "entry": base,
            "images": c.execute(
                "SELECT loc, title, caption, geo_location, license, line FROM images WHERE entry_id=?",
                (entry_id,),
            ).fetchall(),
            "videos": [json.loads(d) for (d,) in c.execute(
                "SELECT data FROM videos WHERE entry_id=?", (entry_id,))],
            "news": c.execute(
                "SELECT publication_name, language, publication_date, title FROM news WHERE entry_id=?",
                (entry_id,),
            ).fetchall(),
            "alternates": c.execute(
                "SELECT rel, hreflang, href, line, media FROM alternates WHERE entry_id=?", (entry_id,)
            ).fetchall(),
            "issues": self.issues(entry_id=entry_id),
        }

    def alternates_for(self, entry_ids: Sequence[int], tables: Mapping[str, str] | None = None,
                       ) -> dict[int, list[tuple[str | None, str | None, str | None]]]:
        """(hreflang, href, media) of each entry's xhtml:links (``tables``: other tables of the
        same columns by name, compare mode's removed rows')."""
        table = (tables or {}).get("alternates", "alternates")
        out: dict[int, list[tuple[str | None, str | None, str | None]]] = {}
        for chunk in chunks(list(entry_ids), 900):
            marks = ",".join("?" * len(chunk))
            for eid, hreflang, href, media in self.conn.execute(
                f"SELECT entry_id, hreflang, href, media FROM {table} WHERE entry_id IN ({marks})", chunk
            ):
                out.setdefault(eid, []).append((hreflang, href, media))
        return out

    def extensions_for(self, entry_ids: Sequence[int], tables: Mapping[str, str] | None = None,
                       ) -> dict[int, tuple[list[Any], list[Any], list[Any]]]:
        """Each entry's images (loc, title, caption, geo_location, license), videos (the stored
        dict: fields, multi, attrs, tags) and news (name, language, date, title, extra dict);
        ``tables`` as for :meth:`alternates_for`."""
        named = tables or {}
        images, videos, news = (named.get(t, t) for t in ("images", "videos", "news"))
        out: dict[int, tuple[list[Any], list[Any], list[Any]]] = {}
        for chunk in chunks(list(entry_ids), 900):
            marks = ",".join("?" * len(chunk))
            for eid, *image in self.conn.execute(
                f"SELECT entry_id, loc, title, caption, geo_location, license FROM {images}"
                f" WHERE entry_id IN ({marks}) ORDER BY rowid", chunk
            ):
                out.setdefault(eid, ([], [], []))[0].append(tuple(image))
            for eid, data in self.conn.execute(
                f"SELECT entry_id, data FROM {videos} WHERE entry_id IN ({marks}) ORDER BY rowid", chunk
            ):
                out.setdefault(eid, ([], [], []))[1].append(json.loads(data))
            for eid, name, lang, date, title, extra in self.conn.execute(
                f"SELECT entry_id, publication_name, language, publication_date, title, extra FROM {news}"
                f" WHERE entry_id IN ({marks}) ORDER BY rowid", chunk
            ):
                out.setdefault(eid, ([], [], []))[2].append((name, lang, date, title, json.loads(extra) if extra else None))
        return out

    def entry_position(self, f: EntryFilter, entry_id: int, sort: str = "id") -> int | None:
        """Row index of an entry within a filtered listing (to jump the table to it)."""
        row = self.conn.execute(
            f"SELECT {SORTS[sort]} FROM entries e WHERE e.id=?", (entry_id,)
        ).fetchone()
        if row is None:
            return None
        where, params = self._where(f)
        if sort == "id":
            cond, extra = "e.id < ?", [entry_id]
        else:
            col = SORTS[sort]
            value = row[0]
            if value is None:
                cond, extra = f"({col} IS NOT NULL OR e.id < ?)", [entry_id]
            else:
                cond, extra = f"({col} < ? OR ({col} = ? AND e.id < ?))", [value, value, entry_id]
        where = (where + " AND " if where else " WHERE ") + cond
        return int(
            self.conn.execute(f"SELECT COUNT(*) FROM entries e{where}", params + extra).fetchone()[0]
        )


    # -- issues ----------------------------------------------------------------------------
    def issues(self, **filters: Any) -> list[IssueRow]:
        """:meth:`iter_issues` as a list (same keyword filters)."""
        return list(self.iter_issues(**filters))

    def iter_issues(
        self,
        *,
        node_ids: Sequence[int] | None = None,
        entry_id: int | None = None,
        rule: str | None = None,
        min_severity: Severity | None = None,
        limit: int | None = None,
    ) -> Iterator[IssueRow]:
        """Issues in report order (file, line), streamed: a report of millions never sits in
        memory. Files in the tree's order level by level (:meth:`ids_in_tree_order`), not by
        node id: under nested indexes the ids follow which index a worker finished first, and
        the report's order changed from run to run. An issue of no file comes first, one of a
        file the tree lacks last."""
        clauses: list[str] = []
        params: list[Any] = []
        if entry_id is not None:
            clauses.append("i.entry_id = ?")
            params.append(entry_id)
        if rule is not None:
            clauses.append("i.rule = ?")
            params.append(rule)
        if min_severity is not None:
            allowed = [s.value for s in Severity if s.rank >= min_severity.rank]
            clauses.append(f"i.severity IN ({','.join('?' * len(allowed))})")
            params += allowed
        select = ("SELECT i.id, i.rule, i.severity, i.node_id, i.entry_id, i.line, i.col, i.url, i.message,"
                  f" COALESCE(n.final_url, n.url), {issue_weight(self.conn, 'i')}"
                  " FROM issues i LEFT JOIN nodes n ON n.id = i.node_id WHERE ")
        # one query per file, each through the issues_node index, in the tree's order: no sort
        # of the whole report, and nothing left on the connection (a temporary rank table was)
        groups: list[tuple[str, tuple[Any, ...]]] = []
        if entry_id is not None:  # one entry: one file
            groups.append(("1", ()))
        else:
            if node_ids is None:
                groups.append(("i.node_id IS NULL", ()))
            order = self.ids_in_tree_order()
            if node_ids is not None:
                wanted = {int(n) for n in node_ids}
                order = [nid for nid in order if nid in wanted]
            groups += [("i.node_id = ?", (nid,)) for nid in order]
            if node_ids is None:
                groups.append(("i.node_id NOT IN (SELECT id FROM nodes)", ()))
        left = limit
        for condition, args in groups:
            if left is not None and left <= 0:
                return
            sql = select + " AND ".join([condition, *clauses]) + " ORDER BY i.line, i.id"
            if left is not None:
                sql += f" LIMIT {int(left)}"
            for r in self.conn.execute(sql, (*args, *params)):
                if left is not None:
                    left -= 1
                yield IssueRow(*r)

    def issue_counts(self, node_ids: Sequence[int] | None = None, *, filed: bool = False) -> dict[str, int]:
        """Counts by severity over the given nodes (all when None; ``filed``: all filed under a
        node, what the nodes' own counts add up to, without a list of their ids)."""
        where = " WHERE node_id IS NOT NULL" if filed and node_ids is None else ""
        if node_ids is not None:
            where = f" WHERE node_id IN ({','.join(str(int(n)) for n in node_ids) or 'NULL'})"
        counts = {s.value: 0 for s in Severity}
        count = issue_count(self.conn)
        for sev, n in self.conn.execute(f"SELECT severity, {count} FROM issues{where} GROUP BY severity"):
            counts[sev] = n
        return counts

    def issue_counts_by_node(self) -> dict[int, dict[str, int]]:
        out: dict[int, dict[str, int]] = {}
        for node_id, sev, n in self.conn.execute(
            f"SELECT node_id, severity, {issue_count(self.conn)} FROM issues GROUP BY node_id, severity"
        ):
            out.setdefault(node_id, {s.value: 0 for s in Severity})[sev] = n
        return out

    def rule_counts(self, node_ids: Sequence[int] | None = None) -> list[tuple[str, str, int]]:
        where = ""
        if node_ids is not None:
            where = f" WHERE node_id IN ({','.join(str(int(n)) for n in node_ids) or 'NULL'})"
        return list(
            self.conn.execute(
                f"SELECT rule, severity, {issue_count(self.conn)} FROM issues{where} GROUP BY rule, severity"
                " ORDER BY CASE severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END, rule"
            )
        )

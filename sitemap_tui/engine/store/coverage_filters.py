"""The URL table's view of ``audit --compare-list`` / ``audit --crawl`` results (issue 22 §3):
the filter words ``orphan:yes``, ``coverage:missing`` and ``coverage:not-in-list`` in SQL, and
the Overview's counts of them, which are counts of what those filters list.

``orphan:yes`` and ``coverage:not-in-list`` narrow the entries (clauses on ``entries e``).
``coverage:missing`` lists pages that are *not* entries: the ``coverage`` rows of no sitemap
judged indexable, read through :data:`MISSING_SOURCE`, a subquery in the columns of
``entries`` (as compare mode lists OLD's removed rows from ``diff_view.v_removed``). Their ids
are the coverage row's rowid minus :data:`MISSING_BASE`: negative and below compare mode's
removed ids, so the table tells the two apart (:func:`is_unlisted`). They sit under the root
node: no sitemap lists them, so a node's scope does not narrow them."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitemap_tui.engine.store.audit_filters import AuditView
from sitemap_tui.engine.store.diff_view import REMOVED_BASE

if TYPE_CHECKING:
    from sitemap_tui.engine.store.audit import AuditRow

WORDS = ("missing", "not-in-list")
"""What ``coverage:WORD`` names."""
MISSING_BASE = 2 * REMOVED_BASE
"""A ``coverage:missing`` row's id is its coverage rowid minus this (below every removed id)."""

# A listed URL is an orphan when no crawled page links to it; the crawl's start (depth 0) is
# reached without a link and is none.
ORPHAN = ("NOT EXISTS(SELECT 1 FROM coverage_links l WHERE l.dst = {k})"
          " AND NOT EXISTS(SELECT 1 FROM coverage h WHERE h.key = {k} AND h.depth = 0)")
_CRAWLED = "EXISTS(SELECT 1 FROM coverage WHERE crawl = 'crawled')"
_LISTED = "EXISTS(SELECT 1 FROM coverage WHERE in_list = 1)"
MISSING = "c.in_sitemaps = 0 AND c.indexable = 1"
"""A page of the list or the crawl in no sitemap, judged indexable: ``coverage:missing``."""

MISSING_SOURCE = (
    f"(SELECT c.rowid - {MISSING_BASE} AS id, (SELECT min(id) FROM nodes WHERE parent_id IS NULL) AS node_id,"
    " c.loc AS loc, NULL AS line, NULL AS lastmod_raw, NULL AS lastmod, NULL AS changefreq_raw,"
    " NULL AS changefreq, NULL AS priority_raw, NULL AS priority, 0 AS n_images, 0 AS n_videos,"
    " 0 AS n_news, 0 AS n_alternates, 0 AS n_issues, c.key AS key,"
    " c.status AS status, c.indexable AS indexable, c.reason AS reason"
    f" FROM coverage c WHERE {MISSING})"
)
"""What a ``coverage:missing`` listing reads instead of ``entries``."""


class MissingView(AuditView):
    """The audit cells of ``coverage:missing`` rows: the verdict of the page's own fetch (the
    crawl's or the list's), read from :data:`MISSING_SOURCE`, no join (the audit table holds
    only listed URLs). Sortable on every audit column: by the cells it shows (status,
    indexable, reason), and the others, which it has none of, as unknown (NULL: by id)."""

    __slots__ = ()

    def columns(self) -> str:
        return "1, e.status, 0, e.indexable, e.reason, NULL, NULL, e.loc, NULL, NULL, NULL, NULL"

    def sortable(self, sort: str) -> bool:
        return True

    def sort_column(self, sort: str) -> str:
        return MISSING_SORTS.get(sort, "NULL")


MISSING_SORTS = {"status": "e.status", "indexable": "e.indexable", "reason": "e.reason"}
"""The audit sorts a ``coverage:missing`` row has a value for (:meth:`MissingView.columns`'s cells)."""


MISSING_VIEW = MissingView(False, True, None)


def entry_source(coverage: str | None) -> str:
    """What a listing of the filter word ``coverage:WORD`` reads from (``entries`` but for
    ``coverage:missing``)."""
    return MISSING_SOURCE if coverage == "missing" else "entries"


def is_unlisted(entry_id: int) -> bool:
    """Whether a URL table row is a ``coverage:missing`` page (no entry of any sitemap)."""
    return entry_id <= -REMOVED_BASE


def has_table(conn: sqlite3.Connection, name: str = "coverage") -> bool:
    return conn.execute(
        "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def orphan_condition(alias: str = "e") -> tuple[str, list[Any]]:
    """SQL over ``entries AS alias`` for the filter ``orphan:yes`` (EntryFilter's clauses take
    it as they take diff_view.mark_condition's): entries no crawled page links to. Without a
    crawl in the store it selects nothing: no crawl, no orphan."""
    k = f"COALESCE({alias}.key, {alias}.loc)"
    return f"({alias}.key IS NOT '' AND {_CRAWLED} AND {ORPHAN.format(k=k)})", []


def not_in_list_condition(alias: str = "e") -> str:
    """``coverage:not-in-list``: entries the user's list lacks (nothing without a list)."""
    k = f"COALESCE({alias}.key, {alias}.loc)"
    return (f"({alias}.key IS NOT '' AND {_LISTED} AND NOT EXISTS"
            f" (SELECT 1 FROM coverage c WHERE c.key = {k} AND c.in_list = 1))")


def coverage_clauses(conn: sqlite3.Connection, orphan: bool, coverage: str | None) -> list[str]:
    """The conditions (on ``entries e``) of ``orphan:yes`` and ``coverage:not-in-list``;
    ``coverage:missing`` has none here (its rows are :data:`MISSING_SOURCE`'s). Raises
    ValueError (one line) when the store holds no list or crawl to answer them."""
    if not orphan and coverage is None:
        return []
    if coverage is not None and coverage not in WORDS:
        raise ValueError(f"coverage:{coverage}? use {', '.join('coverage:' + w for w in WORDS)}")
    if not has_table(conn):
        raise ValueError("this exploration has no coverage results: run sitemap-tui audit --crawl N or"
                         " --compare-list FILE on it first")
    if coverage == "missing" and not conn.execute(f"SELECT {_LISTED} OR {_CRAWLED}").fetchone()[0]:
        raise ValueError("coverage:missing needs a link crawl or a URL list: run sitemap-tui audit --crawl N"
                         " or --compare-list FILE on this site first")
    out = []
    if orphan:
        if not conn.execute(f"SELECT {_CRAWLED}").fetchone()[0]:
            raise ValueError("orphan:yes needs a link crawl: run sitemap-tui audit --crawl N on this site first")
        out.append(orphan_condition("e")[0])
    if coverage == "not-in-list":
        if not conn.execute(f"SELECT {_LISTED}").fetchone()[0]:
            raise ValueError("coverage:not-in-list needs a URL list: run sitemap-tui audit --compare-list FILE first")
        out.append(not_in_list_condition("e"))
    return out


def has_coverage(conn: sqlite3.Connection, entry_id: int, word: str) -> bool:
    """Whether entry ``entry_id`` is ``orphan`` (orphan:yes) or ``not-in-list``, as the
    clauses above decide it (for marks of a filter's rows)."""
    if not has_table(conn):
        return False
    cond = orphan_condition("e")[0] if word == "orphan" else not_in_list_condition("e")
    return conn.execute(f"SELECT 1 FROM entries e WHERE e.id = ? AND {cond}", (entry_id,)).fetchone() is not None


@dataclass(frozen=True, slots=True)
class UnlistedPage:
    """A ``coverage:missing`` row as the detail panel tells it: where it was found and the
    verdict of its fetch (the ``coverage`` table's columns, docs/store.md)."""

    loc: str
    in_list: bool
    depth: int | None  # link hops from the home page; None: not reached by the crawl
    linked_from: int  # crawled pages linking to it
    status: int | None
    reason: str | None
    fetch: AuditRow | None = None  # the fetch's whole row; None: a store from before it was kept


def unlisted_page(conn: sqlite3.Connection, entry_id: int) -> UnlistedPage | None:
    """The page behind a ``coverage:missing`` row id (None: gone, or not such a row)."""
    if not is_unlisted(entry_id) or not has_table(conn):
        return None
    query = ("SELECT c.loc, c.in_list, c.depth, (SELECT COUNT(*) FROM coverage_links l WHERE l.dst = c.key),"
             " c.status, c.reason{} FROM coverage c WHERE c.rowid = ?")
    try:
        row = conn.execute(query.format(", c.page_row"), (entry_id + MISSING_BASE,)).fetchone()
    except sqlite3.OperationalError:  # an earlier version's store, opened read-only: no page_row
        row = conn.execute(query.format(", NULL"), (entry_id + MISSING_BASE,)).fetchone()
    if row is None:
        return None
    # (not at the top: audit.py imports the store package, which imports this module)
    from sitemap_tui.engine.store.audit import AuditRow

    fetch = AuditRow.of(json.loads(row[6])) if row[6] else None
    return UnlistedPage(str(row[0]), bool(row[1]), row[2], int(row[3]), row[4], row[5], fetch)


@dataclass(frozen=True, slots=True)
class CoverageCounts:
    """The Overview's coverage rows: each the number of rows its filter lists (``orphans`` and
    ``not_in_list`` over the selection's sitemaps; ``missing`` over the whole site)."""

    listed: bool  # the store holds a --compare-list
    crawled: bool  # ... a --crawl with a page crawled
    missing: int
    orphans: int
    not_in_list: int


def coverage_overview(conn: sqlite3.Connection, file_ids: list[int]) -> CoverageCounts | None:
    """The counts for these sitemaps; None when the store holds neither a list nor a crawl."""
    if not has_table(conn):
        return None
    listed, crawled = conn.execute(f"SELECT {_LISTED}, {_CRAWLED}").fetchone()
    if not listed and not crawled:
        return None
    missing = int(conn.execute(f"SELECT COUNT(*) FROM coverage c WHERE {MISSING}").fetchone()[0])
    ids = ",".join(str(int(i)) for i in file_ids) or "NULL"

    def entries(cond: str) -> int:
        return int(conn.execute(f"SELECT COUNT(*) FROM entries e WHERE e.node_id IN ({ids}) AND {cond}").fetchone()[0])

    return CoverageCounts(bool(listed), bool(crawled), missing,
                          entries(orphan_condition("e")[0]) if crawled else 0,
                          entries(not_in_list_condition("e")) if listed else 0)

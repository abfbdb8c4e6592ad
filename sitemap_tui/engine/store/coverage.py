"""The store's queries for ``audit --compare-list`` and ``audit --crawl`` (engine/coverage.py):
the URLs of a user's list and of a bounded link crawl (table ``coverage``), the links the crawl
read (``coverage_links``), and what the report and the explorer read back: counts, one record
per URL, the orphans and the URLs missing from the sitemaps.

A URL is its key (engine.keys.url_key), the key entries are matched on
(``COALESCE(entries.key, entries.loc)``), so ``http://Host/a`` in a list is ``http://host/a`` in
a sitemap. Every write commits: a stopped run goes on from what is stored."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.audit import _COLUMNS as _AUDIT_COLUMNS
from sitemap_tui.engine.store.audit import FIRST_LISTING, RANKED_ENTRIES, AuditRow
from sitemap_tui.engine.store.coverage_filters import ORPHAN as _ORPHAN
from sitemap_tui.engine.store.coverage_filters import orphan_condition
from sitemap_tui.engine.store.packed import entry_of
from sitemap_tui.engine.store.schema import tree_order

__all__ = [
    "CoverageRecord",
    "CrawlResult",
    "add_crawl_results",
    "add_list",
    "coverage_counts",
    "coverage_missing",
    "coverage_parts",
    "coverage_records",
    "crawl_todo",
    "crawled",
    "list_todo",
    "orphan_condition",
    "queue_home",
    "set_fetched",
    "sitemap_coverage",
]

_KEY = "COALESCE(e.key, e.loc)"
_IN_SITEMAPS = "EXISTS(SELECT 1 FROM entries e WHERE COALESCE(e.key, e.loc) = ?)"


def _prepare(store: Store) -> None:
    """The index that matches a key to the entries (once per store; a cache, like the URL
    table's sort indexes)."""
    with store.guarded():
        store.conn.execute("CREATE INDEX IF NOT EXISTS entries_cov_key ON entries(COALESCE(key, loc))")


def add_list(store: Store, urls: Iterable[tuple[str, str]]) -> None:
    """The (key, loc) of a user's URL list; a URL already known (the crawl's) is marked in_list."""
    _prepare(store)
    with store.guarded():
        store.conn.executemany(
            f"INSERT INTO coverage(key, loc, in_sitemaps, in_list) VALUES(?, ?, {_IN_SITEMAPS}, 1)"
            " ON CONFLICT(key) DO UPDATE SET in_list = 1",
            ((k, loc, k) for k, loc in urls),
        )
    store.publish()


def list_todo(store: Store, limit: int) -> list[tuple[str, str]]:
    """The list's URLs of no sitemap not fetched yet, in list order."""
    return store.conn.execute(
        "SELECT key, loc FROM coverage WHERE in_list = 1 AND in_sitemaps = 0 AND fetched_at IS NULL"
        " ORDER BY rowid LIMIT ?", (limit,)).fetchall()


def list_fetched(store: Store) -> int:
    return int(store.conn.execute(
        "SELECT COUNT(*) FROM coverage WHERE in_list = 1 AND in_sitemaps = 0 AND fetched_at IS NOT NULL"
        " AND crawl IS NOT 'crawled'").fetchone()[0])


def set_fetched(store: Store, rows: Sequence[AuditRow]) -> None:
    """The verdicts of URLs fetched for the list (not their links)."""
    with store.guarded():
        store.conn.executemany(
            "UPDATE coverage SET status = ?, indexable = ?, reason = ?, note = ?, fetched_at = ?, page_row = ?"
            " WHERE key = ?", [_verdict(r) + (r.key,) for r in rows])
    store.publish()


def _verdict(r: AuditRow) -> tuple[Any, ...]:
    unknown = r.fetched_at is None  # not fetched at all (another host): no verdict
    # the whole row too: a page of no sitemap's record carries what a listed page's does (its
    # canonical, robots, final URL; found from outside: they were all null)
    return (r.status, None if unknown else int(r.indexable), None if unknown else r.reason, r.note,
            r.fetched_at if r.fetched_at is not None else time.time(),
            None if unknown else json.dumps(r.values()))


def queue_home(store: Store, key: str, loc: str) -> None:
    """The crawl's start: depth 0, queued unless already crawled."""
    _prepare(store)
    with store.guarded():
        store.conn.execute(
            f"INSERT INTO coverage(key, loc, in_sitemaps, depth, crawl) VALUES(?, ?, {_IN_SITEMAPS}, 0, 'queued')"
            " ON CONFLICT(key) DO UPDATE SET depth = 0, crawl = COALESCE(crawl, 'queued')",
            (key, loc, key))
    store.publish()


def crawled(store: Store) -> int:
    """Pages the crawl fetched (what ``--crawl N`` bounds)."""
    return int(store.conn.execute("SELECT COUNT(*) FROM coverage WHERE crawl = 'crawled'").fetchone()[0])


def crawl_todo(store: Store, limit: int) -> list[tuple[str, str, int]]:
    """Queued pages, nearest the home page first, then in the order they were found."""
    return store.conn.execute(
        "SELECT key, loc, depth FROM coverage WHERE crawl = 'queued' ORDER BY depth, rowid LIMIT ?",
        (limit,)).fetchall()


def queued(store: Store) -> int:
    return int(store.conn.execute("SELECT COUNT(*) FROM coverage WHERE crawl = 'queued'").fetchone()[0])


@dataclass(slots=True)
class CrawlResult:
    """One crawled page: its verdict, whether robots.txt kept it unfetched, the (key, loc) of
    the same-host pages it links to."""

    row: AuditRow
    depth: int
    blocked: bool
    links: list[tuple[str, str]]


def add_crawl_results(store: Store, results: Sequence[CrawlResult]) -> None:
    """Store a batch of crawled pages, their links, and the pages newly found (queued one hop
    deeper); commit it."""
    with store.guarded():
        c = store.conn
        for res in results:
            state = "robots" if res.blocked else "crawled"
            c.execute("UPDATE coverage SET crawl = ?, status = ?, indexable = ?, reason = ?, note = ?,"
                      " fetched_at = ?, page_row = ? WHERE key = ?", (state, *_verdict(res.row), res.row.key))
            c.executemany(
                f"INSERT INTO coverage(key, loc, in_sitemaps, depth, crawl) VALUES(?, ?, {_IN_SITEMAPS}, ?, 'queued')"
                " ON CONFLICT(key) DO UPDATE SET depth = MIN(COALESCE(depth, excluded.depth), excluded.depth),"
                " crawl = COALESCE(crawl, 'queued')",
                [(k, loc, k, res.depth + 1) for k, loc in res.links])
            c.executemany("INSERT OR IGNORE INTO coverage_links(dst, src) VALUES(?, ?)",
                          [(k, res.row.key) for k, _ in res.links if k != res.row.key])
    store.publish()


def coverage_parts(store: Store) -> tuple[bool, bool]:
    """Whether the store holds a URL list and a crawl (at least one page crawled); (False,
    False) in a store from before these tables (opened read-only, not upgraded)."""
    try:
        listed, crawl = store.conn.execute(
            "SELECT EXISTS(SELECT 1 FROM coverage WHERE in_list = 1),"
            " EXISTS(SELECT 1 FROM coverage WHERE crawl = 'crawled')").fetchone()
    except sqlite3.OperationalError:
        return False, False
    return bool(listed), bool(crawl)


def coverage_missing(store: Store) -> Iterator[str]:
    """``coverage:missing``: the URLs of the list or the crawl that are in no sitemap and were
    judged indexable when fetched, in the order they were found."""
    for (loc,) in store.conn.execute(
            "SELECT loc FROM coverage WHERE in_sitemaps = 0 AND indexable = 1 ORDER BY rowid"):
        yield str(loc)


def coverage_counts(store: Store, *, listed: bool, crawl: bool) -> dict[str, int]:
    """The summary's coverage keys (0 for the part that did not run; no orphan without a page
    crawled)."""
    c = store.conn
    one = lambda sql: int(c.execute(sql).fetchone()[0])  # noqa: E731
    keys = f"SELECT DISTINCT {_KEY} AS k FROM entries e WHERE e.key IS NOT ''"
    out = {
        "missing_from_sitemaps": one("SELECT COUNT(*) FROM coverage WHERE in_sitemaps = 0 AND indexable = 1"),
        "unlisted_not_judged": one("SELECT COUNT(*) FROM coverage WHERE in_sitemaps = 0 AND indexable IS NULL"
                                   + ("" if crawl else " AND in_list = 1")),
        "list_urls": one("SELECT COUNT(*) FROM coverage WHERE in_list = 1"),
        "list_in_sitemaps": one("SELECT COUNT(*) FROM coverage WHERE in_list = 1 AND in_sitemaps = 1"),
        "not_in_list": one(f"SELECT COUNT(*) FROM ({keys}) s WHERE NOT EXISTS"
                           " (SELECT 1 FROM coverage c WHERE c.key = s.k AND c.in_list = 1)") if listed else 0,
        "crawled": one("SELECT COUNT(*) FROM coverage WHERE crawl = 'crawled'"),
        "crawl_robots": one("SELECT COUNT(*) FROM coverage WHERE crawl = 'robots'"),
        "crawl_queued": one("SELECT COUNT(*) FROM coverage WHERE crawl = 'queued'"),
    }
    out["orphans"] = one(f"SELECT COUNT(*) FROM ({keys}) s WHERE {_ORPHAN.format(k='s.k')}") \
        if crawl and out["crawled"] else 0
    return out


def coverage_samples(store: Store, limit: int, *, listed: bool, crawl: bool) -> dict[str, list[str]]:
    """Up to ``limit`` URLs of each count, in the order they were found or listed."""
    c = store.conn
    keys = (f"SELECT {_KEY} AS k, MIN(e.loc) AS loc, {FIRST_LISTING} AS first FROM {RANKED_ENTRIES}"
            " WHERE e.key IS NOT ''"
            " GROUP BY k")
    out = {"missing_from_sitemaps": list(coverage_missing_limited(store, limit))}
    if listed:
        out["not_in_list"] = [r[0] for r in c.execute(
            f"SELECT loc FROM ({keys}) s WHERE NOT EXISTS (SELECT 1 FROM coverage c WHERE c.key = s.k AND"
            " c.in_list = 1) ORDER BY first LIMIT ?", (limit,))]
    if crawl:
        out["orphans"] = [r[0] for r in c.execute(
            f"SELECT loc FROM ({keys}) s WHERE {_ORPHAN.format(k='s.k')} ORDER BY first LIMIT ?", (limit,))]
    return out


def coverage_missing_limited(store: Store, limit: int) -> list[str]:
    return [str(r[0]) for r in store.conn.execute(
        "SELECT loc FROM coverage WHERE in_sitemaps = 0 AND indexable = 1 ORDER BY rowid LIMIT ?", (limit,))]


def sitemap_coverage(store: Store) -> list[tuple[str, int, int]]:
    """Per sitemap with URLs: (its URL, distinct URLs, how many of them the list has)."""
    return [(str(u), int(n), int(m)) for u, n, m in store.conn.execute(
        f"SELECT n.url, COUNT(DISTINCT {_KEY}),"
        f" COUNT(DISTINCT CASE WHEN c.in_list = 1 THEN {_KEY} END)"
        " FROM entries e JOIN nodes n ON n.id = e.node_id"
        f" LEFT JOIN coverage c ON c.key = {_KEY}"
        f" WHERE e.key IS NOT '' GROUP BY e.node_id ORDER BY {tree_order('n')}")]


@dataclass(slots=True)
class CoverageRecord:
    """One URL of the sitemaps, the list or the crawl: its audit row when the audit fetched
    it, else the verdict this table holds (None: not fetched)."""

    loc: str
    sitemap: str
    lastmod: str | None
    in_sitemaps: bool
    in_list: bool
    linked_from: int
    audit: AuditRow | None
    status: int | None
    indexable: bool | None
    reason: str | None
    note: str | None
    crawl_start: bool  # the crawl's home page: reached without a link, no orphan


def coverage_records(store: Store) -> Iterator[CoverageRecord]:
    """Every sitemap URL (first listing order), then every URL of the list or the crawl that
    no sitemap lists (in the order found)."""
    cols = ", ".join(f"a.{c.strip()}" for c in _AUDIT_COLUMNS.split(","))
    linked = "(SELECT COUNT(*) FROM coverage_links l WHERE l.dst = {k})"
    for row in store.conn.execute(
        f"SELECT s.loc, n.url, e.lastmod_raw, COALESCE(c.in_list, 0), {linked.format(k='s.k')},"
        f" c.status, c.indexable, c.reason, c.note, c.depth IS 0, a.key IS NOT NULL, {cols}"
        f" FROM (SELECT {_KEY} AS k, {FIRST_LISTING} AS first, MIN(e.loc) AS loc FROM {RANKED_ENTRIES}"
        "   WHERE e.key IS NOT '' GROUP BY k) s"
        f" JOIN entries e ON e.id = {entry_of('s.first')} JOIN nodes n ON n.id = e.node_id"
        " LEFT JOIN coverage c ON c.key = s.k LEFT JOIN audit a ON a.key = s.k ORDER BY s.first"
    ):
        audit = AuditRow.of(row[11:]) if row[10] else None
        yield CoverageRecord(row[0], row[1] or "", row[2], True, bool(row[3]), int(row[4]), audit,
                             row[5], None if row[6] is None else bool(row[6]), row[7], row[8], bool(row[9]))
    for row in store.conn.execute(
        f"SELECT c.loc, c.in_list, {linked.format(k='c.key')}, c.status, c.indexable, c.reason, c.note, c.depth IS 0,"
        " c.page_row FROM coverage c WHERE c.in_sitemaps = 0 ORDER BY c.rowid"
    ):
        page = AuditRow.of(json.loads(row[8])) if row[8] else None
        yield CoverageRecord(row[0], "", None, False, bool(row[1]), int(row[2]), page, row[3],
                             None if row[4] is None else bool(row[4]), row[5], row[6], bool(row[7]))

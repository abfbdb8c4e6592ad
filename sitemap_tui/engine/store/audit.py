"""The store's queries for ``sitemap-tui audit`` (engine/audit.py): which listed URLs are still to
fetch, the results as they arrive, and what the report reads back (records, summary counts).

A URL is its entries' key (``COALESCE(entries.key, entries.loc)``: the key the duplicate rules
use; ``''`` marks a loc that is no fetchable URL, never audited), so a URL listed twice is fetched
once; its row names its first listing (entry and sitemap)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.audit_filters import GROUP_CONDITIONS
from sitemap_tui.engine.store.packed import first_of
from sitemap_tui.engine.store.schema import NODE_RANKS, tree_order
from sitemap_tui.engine.urlpolicy import server_of

__all__ = [
    "AuditRecord",
    "AuditRow",
    "TodoUrl",
    "add_results",
    "audit_counts",
    "audit_records",
    "audited",
    "indexability_counts",
    "group_samples",
    "result_of",
    "sitemap_urls",
    "todo_count",
    "todo_pages",
]

_KEY = "COALESCE(e.key, e.loc)"
# A URL's first listing as the audit takes the entries (todo_pages): sitemap by sitemap in the
# tree's order (schema.tree_order), then each file's own order (entry id); packed
# (store/packed.py) so one MIN() finds it. Not the least entry id, nor the least node id: both
# follow the order files were parsed in, which varies with several workers (node ids under
# nested indexes), so the sitemap a URL was reported under changed from run to run.
RANKED_ENTRIES = f"entries e JOIN {NODE_RANKS} r ON r.id = e.node_id"
FIRST_LISTING = first_of("r.rk", "e.id")


_COLUMNS = (
    "key, loc, entry_id, node_id, status, final_url, redirects, content_type, response_time,"
    " last_modified, robots, canonical, indexable, reason, error, note, blocked_for, fetched_at, page"
)
STORED_COLUMNS = tuple(c.strip() for c in _COLUMNS.split(","))  # AuditRow's fields the table keeps


@dataclass(frozen=True, slots=True)
class TodoUrl:
    key: str
    loc: str
    entry_id: int | None  # None: a URL of no sitemap (audit --compare-list / --crawl)
    node_id: int | None


@dataclass(slots=True)
class AuditRow:
    """One audited URL, as the table keeps it."""

    key: str
    loc: str
    entry_id: int | None = None
    node_id: int | None = None
    status: int | None = None
    final_url: str | None = None
    redirects: int = 0
    content_type: str | None = None
    response_time: float | None = None
    last_modified: str | None = None
    robots: list[str] = field(default_factory=list)
    canonical: str | None = None
    indexable: bool = False
    reason: str = ""
    error: str | None = None
    note: str | None = None
    blocked_for: list[str] = field(default_factory=list)
    fetched_at: float | None = None
    page: dict[str, object] | None = None  # what the deep checks read (schema.py); None: not fetched
    links: list[str] = field(default_factory=list)  # not stored: <a href> read for audit --crawl

    def values(self) -> tuple[object, ...]:
        return (
            self.key, self.loc, self.entry_id, self.node_id, self.status, self.final_url,
            self.redirects, self.content_type, self.response_time, self.last_modified,
            json.dumps(self.robots), self.canonical, int(self.indexable), self.reason, self.error,
            self.note, json.dumps(self.blocked_for), self.fetched_at,
            None if self.page is None else json.dumps(self.page),
        )

    @classmethod
    def of(cls, row: Sequence[object]) -> AuditRow:
        r = list(row)
        r[10] = json.loads(str(r[10])) if r[10] else []
        r[12] = bool(r[12])
        r[16] = json.loads(str(r[16])) if r[16] else []
        r[18] = json.loads(str(r[18])) if r[18] else None
        return cls(*r)  # type: ignore[arg-type]


@dataclass(slots=True)
class AuditRecord:
    """An audited URL with what its first listing says (for the report)."""

    row: AuditRow
    sitemap: str
    lastmod: str | None


def _sample_ranks(n: int, sample: int | None) -> set[int] | None:
    """Ranks of an evenly spaced sample, as the deep checks take it (``i * n // sample``); None:
    every entry."""
    if sample is None or sample >= n:
        return None
    return {(i * n) // sample for i in range(max(0, sample))}


def todo_pages(store: Store, sample: int | None, size: int = 2000,
               node_ids: Sequence[int] | None = None) -> Iterator[list[TodoUrl]]:
    """The listed URLs without a result yet, sitemap by sitemap in entry order, ``size`` entries
    read at a time (keyset pages: nothing grows with the listing). ``sample``: that many entries
    per sitemap, evenly spaced. A URL listed again appears again while its first listing has no
    row yet: the caller skips keys it has in flight. ``node_ids``: only these sitemaps' entries
    (the explorer's audit of one node's subtree); None: every sitemap."""
    # counted through the covering index (a join to the ranks made SQLite group 1 M rows in a
    # temporary tree: 0.54 s against 0.12 s), then put in the tree's order here
    order = {nid: i for i, nid in enumerate(store.ids_in_tree_order())}
    nodes = sorted(store.conn.execute("SELECT node_id, COUNT(*) FROM entries GROUP BY node_id").fetchall(),
                   key=lambda row: (order.get(row[0], len(order)), row[0]))
    if node_ids is not None:
        wanted = set(node_ids)
        nodes = [(n, c) for n, c in nodes if n in wanted]
    for node_id, n in nodes:
        ranks = _sample_ranks(n, sample)
        if ranks is not None and not ranks:
            continue
        last, rank = 0, 0
        while True:
            page = store.conn.execute(
                f"SELECT e.id, {_KEY}, e.loc, EXISTS(SELECT 1 FROM audit a WHERE a.key = {_KEY})"
                " FROM entries e WHERE e.node_id = ? AND e.id > ? ORDER BY e.id LIMIT ?",
                (node_id, last, size),
            ).fetchall()
            if not page:
                break
            out = []
            for eid, key, loc, done in page:
                picked = ranks is None or rank in ranks
                rank += 1
                if picked and not done and key and loc:
                    out.append(TodoUrl(key, loc.strip(), eid, node_id))
            if out:
                yield out
            last = page[-1][0]
            if len(page) < size or (ranks is not None and rank > max(ranks)):
                break


def todo_count(store: Store, node_ids: Sequence[int] | None = None) -> int:
    """How many distinct URLs of ``node_ids``'s sitemaps (all: None) have no result yet."""
    where = ""
    params: tuple[int, ...] = ()
    if node_ids is not None:
        where, params = f" AND e.node_id IN ({','.join('?' * len(node_ids))})", tuple(node_ids)
    return int(store.conn.execute(
        f"SELECT COUNT(DISTINCT {_KEY}) FROM entries e WHERE e.key IS NOT '' AND e.loc IS NOT NULL{where}"
        f" AND NOT EXISTS(SELECT 1 FROM audit a WHERE a.key = {_KEY})", params).fetchone()[0])


def add_results(store: Store, rows: Sequence[AuditRow]) -> None:
    """Store a batch of results and commit it: an interrupted audit keeps every finished URL."""
    if not rows:
        return
    with store.guarded():
        store.conn.executemany(
            f"INSERT OR REPLACE INTO audit({_COLUMNS}) VALUES({','.join('?' * 19)})",
            [r.values() for r in rows],
        )
        # (fetched now, --ignore-robots: no longer skipped)
        store.conn.executemany("DELETE FROM audit_skipped WHERE key = ?", [(r.key,) for r in rows])
    store.publish()


def add_skipped(store: Store, rows: Sequence[AuditRow]) -> None:
    """Listed URLs the audit did not fetch and gives no verdict (robots.txt shuts our agent out,
    not Googlebot; the row's note says why): kept, so the Overview says so and an audit that
    reached every URL is done (found from outside: "u goes on" stayed, and u did nothing)."""
    if not rows:
        return
    with store.guarded():
        store.conn.executemany("INSERT OR REPLACE INTO audit_skipped(key, why, blocked_for) VALUES(?, ?, ?)",
                               [(r.key, r.note or "", json.dumps(r.blocked_for)) for r in rows])
    store.publish()


def sitemap_urls(store: Store) -> list[str]:
    """The URLs of the exploration's files (their hosts are the audit's own)."""
    return [str(u) for (u,) in store.conn.execute("SELECT DISTINCT url FROM nodes")]


def audited(store: Store) -> int:
    return int(store.conn.execute("SELECT COUNT(*) FROM audit").fetchone()[0])


def result_of(store: Store, key: str) -> AuditRow | None:
    """The stored result of the URL whose key (engine.keys.url_key) is ``key``, or None; also
    None in a store without the table (a reader of an older version's file)."""
    try:
        row = store.conn.execute(f"SELECT {_COLUMNS} FROM audit WHERE key = ?", (key,)).fetchone()
    except sqlite3.OperationalError:
        return None
    return None if row is None else AuditRow.of(row)


def audit_records(store: Store) -> Iterator[AuditRecord]:
    """Every audited URL in listing order, with its first sitemap and that entry's lastmod."""
    cols = ", ".join(f"a.{c}" for c in STORED_COLUMNS)
    for row in store.conn.execute(
        f"SELECT {cols}, COALESCE(n.final_url, n.url), e.lastmod_raw FROM audit a"
        " LEFT JOIN nodes n ON n.id = a.node_id LEFT JOIN entries e ON e.id = a.entry_id"
        f" ORDER BY {tree_order('n')}, a.node_id, a.entry_id"
    ):
        yield AuditRecord(AuditRow.of(row[:19]), row[19] or "", row[20])


# (summary key, SQL condition on the audit row): the groups of the text summary and --fail-if
GROUPS: tuple[tuple[str, str], ...] = (
    ("indexable", "indexable = 1"),
    ("non_indexable", "indexable = 0"),
    ("redirects", "redirects > 0 OR reason LIKE 'non-indexable: redirect%'"),
    ("client_errors", "redirects = 0 AND status BETWEEN 400 AND 499"),
    ("server_errors", "redirects = 0 AND status >= 500"),
    # a 2xx that is not 200 (204 No Content, 206), or a 3xx not followed: non-indexable, and
    # in no group above (found from outside: the groups added up to one less than non-indexable)
    ("other_status", "indexable = 0 AND redirects = 0 AND status BETWEEN 201 AND 399"
                     " AND reason NOT LIKE 'non-indexable: redirect%'"),
    ("noindex", "reason LIKE 'non-indexable: noindex%'"),
    ("canonicalised", "reason LIKE 'non-indexable: canonicalised%'"),
    ("blocked", "reason = 'non-indexable: blocked by robots.txt'"),
    ("not_html", "reason LIKE 'non-indexable: not HTML%'"),
    ("timeouts", "reason = 'non-indexable: timeout'"),
    ("no_response", "reason LIKE 'non-indexable: no response%'"),
)


def audit_counts(store: Store) -> dict[str, int]:
    """The summary: audited URLs, one count per group, URLs listed in more than one sitemap,
    and listed URLs with no result (not audited: sampled out, other hosts, stopped)."""
    sums = ", ".join(f"COALESCE(SUM(CASE WHEN {cond} THEN 1 ELSE 0 END), 0)" for _, cond in GROUPS)
    row = store.conn.execute(f"SELECT COUNT(*), {sums} FROM audit").fetchone()
    counts = {"audited": int(row[0])}
    counts.update({name: int(v) for (name, _), v in zip(GROUPS, row[1:], strict=True)})
    counts["multiple_sitemaps"] = int(store.conn.execute(
        f"SELECT COUNT(*) FROM (SELECT {_KEY} AS k FROM entries e WHERE e.key IS NOT ''"
        " GROUP BY k HAVING COUNT(DISTINCT e.node_id) > 1)"
    ).fetchone()[0])
    listed = int(store.conn.execute(
        f"SELECT COUNT(DISTINCT {_KEY}) FROM entries e WHERE e.key IS NOT ''"
    ).fetchone()[0])
    # a loc that is no fetchable URL (key ''): listed, as stats counts it, and never audited
    counts["unfetchable"] = unfetchable(store)[0]
    listed += counts["unfetchable"]
    counts["listed"] = listed
    counts["not_audited"] = max(0, listed - counts["audited"])
    return counts


def unfetchable(store: Store) -> tuple[int, str | None]:
    """The distinct listed locs that are no fetchable http(s) URL (a space, a malformed host,
    another scheme: key ''), and the first of them."""
    n, first = store.conn.execute(
        "SELECT COUNT(DISTINCT e.loc), MIN(e.loc) FROM entries e WHERE e.key = '' AND e.loc IS NOT NULL"
    ).fetchone()
    return int(n), first


def group_samples(store: Store, limit: int) -> dict[str, list[tuple[str, str]]]:
    """Up to ``limit`` (loc, reason) of each group, in listing order; the URLs listed in more
    than one sitemap with their sitemap count."""
    out: dict[str, list[tuple[str, str]]] = {}
    for name, cond in GROUPS:
        if name == "indexable":
            continue
        out[name] = [
            (loc, reason) for loc, reason in store.conn.execute(
                f"SELECT loc, reason FROM audit LEFT JOIN {NODE_RANKS} r ON r.id = audit.node_id WHERE {cond}"
                " ORDER BY r.rk, node_id, entry_id LIMIT ?", (limit,))
        ]
    out["multiple_sitemaps"] = [
        (loc, f"in {n} sitemaps") for loc, n in store.conn.execute(
            f"SELECT MIN(e.loc), COUNT(DISTINCT e.node_id) AS n FROM {RANKED_ENTRIES} WHERE e.key IS NOT ''"
            f" GROUP BY {_KEY} HAVING n > 1 ORDER BY {FIRST_LISTING} LIMIT ?", (limit,))
    ]
    return out


# The Overview's indexability rows (issue 22 §4): (key, condition on the audit row ``a``). Each
# condition counts what the URL table's filter word of that key lists (STATUS.md's filter words):
# ``reason:X`` is a case-insensitive substring of the reason, as LIKE is for ASCII; ``error``
# gathers the other non-indexable answers (an error status, a timeout, no answer).
INDEXABILITY: tuple[tuple[str, str], ...] = (
    ("indexable", "a.indexable = 1"),
    ("non-indexable", "a.indexable = 0"),
    # one group a URL, reason:GROUP lists what each counts (audit_filters.REASON_GROUPS)
    *((key, GROUP_CONDITIONS[key]) for key in ("404", "redirect", "noindex", "canonical", "robots", "not-html",
                                                "error")),
)


@dataclass(frozen=True, slots=True)
class IndexabilityCounts:
    """The listed URLs of some sitemaps (entries: a URL listed twice counts twice, as the URL
    table lists it twice) with an audit result, and how many fall in each INDEXABILITY group."""

    listed: int
    audited: int
    groups: dict[str, int]
    unfetchable: int = 0  # listed, but no fetchable http(s) URL (key ''): never audited
    more: bool = False  # an audit would fetch more of them: no result yet, on the sitemaps' hosts
    skipped: int = 0  # not fetched, no verdict: robots.txt shuts sitemap-tui out, not Googlebot


def indexability_counts(conn: sqlite3.Connection, node_ids: Sequence[int]) -> IndexabilityCounts | None:
    """The indexability of the entries of ``node_ids``; None when nothing of them was audited
    (or the store predates the audit table)."""
    if not node_ids:
        return None
    marks = ",".join("?" * len(node_ids))
    sums = ", ".join(f"COALESCE(SUM(CASE WHEN {cond} THEN 1 ELSE 0 END), 0)" for _, cond in INDEXABILITY)
    try:
        if conn.execute("SELECT 1 FROM audit LIMIT 1").fetchone() is None and not _any_skipped(conn):
            return None  # never audited: no pass over the entries (the Overview asks at every refresh)
        skipped = _skipped_listings(conn, node_ids)
        row = conn.execute(
            f"SELECT COUNT(*), {sums} FROM entries e JOIN audit a ON a.key = {_KEY}"
            f" WHERE e.node_id IN ({marks}) AND e.key IS NOT ''", tuple(node_ids)).fetchone()
        # the listings that are no fetchable URL count as listed (found from outside: "18 of 18
        # listed URLs audited" beside the headless audit's "Not audited: 1"), and are said
        listed, unfetchable = conn.execute(
            f"SELECT COUNT(*), COALESCE(SUM(e.key = ''), 0) FROM entries e WHERE e.node_id IN ({marks})"
            " AND e.loc IS NOT NULL", tuple(node_ids)).fetchone()
    except sqlite3.OperationalError:
        return None
    if not row or not (row[0] or skipped):
        return None
    groups = {key: int(v) for (key, _), v in zip(INDEXABILITY, row[1:], strict=True)}
    more = int(row[0]) + skipped < int(listed) - int(unfetchable) and _more_to_audit(conn, node_ids)
    return IndexabilityCounts(int(listed), int(row[0]), groups, int(unfetchable), more, skipped)


def _any_skipped(conn: sqlite3.Connection) -> bool:
    try:
        return conn.execute("SELECT 1 FROM audit_skipped LIMIT 1").fetchone() is not None
    except sqlite3.OperationalError:  # a store from before the table, opened read-only
        return False


def _skipped_listings(conn: sqlite3.Connection, node_ids: Sequence[int]) -> int:
    """The listings of ``node_ids`` whose URL the audit skipped (audit_skipped)."""
    if not _any_skipped(conn):
        return 0
    marks = ",".join("?" * len(node_ids))
    return int(conn.execute(
        f"SELECT COUNT(*) FROM entries e JOIN audit_skipped s ON s.key = {_KEY}"
        f" WHERE e.node_id IN ({marks}) AND e.key IS NOT ''", tuple(node_ids)).fetchone()[0])


def _more_to_audit(conn: sqlite3.Connection, node_ids: Sequence[int]) -> bool:
    """Whether a listed URL of ``node_ids`` with no result is on a host an audit fetches (the
    sitemaps' own, engine.audit.Auditor): the rest are other hosts' (found from outside: the
    Overview said "u goes on" and u fetched nothing)."""
    hosts = {h.lower() for (u,) in conn.execute("SELECT DISTINCT url FROM nodes") if (h := server_of(u))}
    if not hosts:
        return False
    prefixes = [f"{scheme}://{_like(h)}/%" for h in sorted(hosts) for scheme in ("http", "https")]
    on_hosts = " OR ".join(["k LIKE ? ESCAPE '\\'"] * len(prefixes))
    marks = ",".join("?" * len(node_ids))
    skipped = f" AND NOT EXISTS(SELECT 1 FROM audit_skipped s WHERE s.key = {_KEY})" if _any_skipped(conn) else ""
    return conn.execute(
        f"SELECT 1 FROM (SELECT {_KEY} AS k FROM entries e WHERE e.node_id IN ({marks}) AND e.key IS NOT ''"
        f" AND e.loc IS NOT NULL AND NOT EXISTS(SELECT 1 FROM audit a WHERE a.key = {_KEY}){skipped})"
        f" WHERE {on_hosts} LIMIT 1", (*node_ids, *prefixes)).fetchone() is not None


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")

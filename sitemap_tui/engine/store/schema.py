"""The store's tables and indexes, and how a connection to a store file is opened."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from sitemap_tui.engine.store.file import STORE_VERSION
from sitemap_tui.engine.tree_order import places
from sitemap_tui.engine.values import CHANGEFREQS

SCHEMA_VERSION = str(STORE_VERSION)


def tree_order(alias: str = "") -> str:
    """ORDER BY terms for nodes in the tree's order level by level, whatever order the files
    were parsed in (engine/tree_order.py). Places are unique; the id comes last for a node
    without one (a LEFT JOIN that found no node)."""
    a = f"{alias}." if alias else ""
    return f"length({a}place), {a}place, {a}id"


def issue_weight(conn: sqlite3.Connection, alias: str = "", schema: str = "main") -> str:
    """The column expression of an issue's weight (``alias``: the issues table's in the query):
    how many findings it counts for, where a cap's summary issue counts for those it did not
    list; 1 in a store from before the column (``schema``: the database the table is in)."""
    have = any(row[1] == "weight" for row in conn.execute(f"PRAGMA {schema}.table_info(issues)"))
    return f"{alias + '.' if alias else ''}weight" if have else "1"


def issue_count(conn: sqlite3.Connection, alias: str = "", schema: str = "main") -> str:
    """The aggregate that counts issues: the sum of their weights (:func:`issue_weight`)."""
    return f"COALESCE(SUM({issue_weight(conn, alias, schema)}), 0)"


NODE_RANKS = f"(SELECT id, ROW_NUMBER() OVER (ORDER BY {tree_order()}) AS rk FROM nodes)"
"""Each node's rank in :func:`tree_order` as an integer (``rk``), for a first listing packed
in one ``MIN()`` (store/packed.py): joined to a million entries it costs ~20 % of the query
(0.30 s against 0.25 s of the grouping by node id, measured)."""


SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS nodes(
    id INTEGER PRIMARY KEY,
    parent_id INTEGER,
    path TEXT NOT NULL,             -- '/1/4/9/': ancestors and self, for subtree queries
    url TEXT NOT NULL,
    kind TEXT NOT NULL,
    state TEXT NOT NULL,
    found_by TEXT NOT NULL,
    depth INTEGER NOT NULL,
    line INTEGER,
    lastmod_raw TEXT,
    error TEXT,
    expandable INTEGER NOT NULL DEFAULT 0,
    http_status INTEGER, final_url TEXT, content_type TEXT, content_encoding TEXT,
    etag TEXT, last_modified TEXT, wire_bytes INTEGER, decoded_bytes INTEGER,
    gzipped INTEGER, xml_encoding TEXT, redirects INTEGER, ttfb REAL, fetch_time REAL,
    parse_time REAL, url_count INTEGER, child_count INTEGER, truncated_at TEXT,
    agg TEXT,                       -- JSON of stats.Aggregate for this file
    unchanged_since TEXT,           -- answered 304: its rows are the previous exploration's (store/carry.py)
    place TEXT                      -- its place in the tree (engine/tree_order.place): tree_order()
);
CREATE TABLE IF NOT EXISTS entries(
    id INTEGER PRIMARY KEY,
    node_id INTEGER NOT NULL,
    loc TEXT,
    line INTEGER,
    lastmod_raw TEXT,
    lastmod INTEGER,                -- unix seconds UTC; NULL when missing or invalid
    changefreq_raw TEXT,
    changefreq TEXT,
    priority_raw TEXT,
    priority REAL,
    n_images INTEGER NOT NULL DEFAULT 0,
    n_videos INTEGER NOT NULL DEFAULT 0,
    n_news INTEGER NOT NULL DEFAULT 0,
    n_alternates INTEGER NOT NULL DEFAULT 0,
    n_issues INTEGER NOT NULL DEFAULT 0,
    title TEXT,
    key TEXT,                       -- engine.keys.stored_key of url_key(loc)
    alt_n INTEGER,                  -- hreflang set signature: 0 without links, NULL when the
    alt_h INTEGER                   -- row's keys were never computed (an earlier version's)
);
CREATE INDEX IF NOT EXISTS entries_node ON entries(node_id, id);
CREATE TABLE IF NOT EXISTS images(
    entry_id INTEGER NOT NULL, loc TEXT, title TEXT, caption TEXT, geo_location TEXT,
    license TEXT, line INTEGER);
CREATE INDEX IF NOT EXISTS images_entry ON images(entry_id);
CREATE TABLE IF NOT EXISTS videos(entry_id INTEGER NOT NULL, line INTEGER, data TEXT);
CREATE INDEX IF NOT EXISTS videos_entry ON videos(entry_id);
CREATE TABLE IF NOT EXISTS news(
    entry_id INTEGER NOT NULL, publication_name TEXT, language TEXT, publication_date TEXT,
    title TEXT, extra TEXT, line INTEGER);
CREATE INDEX IF NOT EXISTS news_entry ON news(entry_id);
CREATE TABLE IF NOT EXISTS alternates(
    entry_id INTEGER NOT NULL, rel TEXT, hreflang TEXT, href TEXT, line INTEGER,
    lang TEXT,                      -- engine.keys.hreflang_link, NULL for other links
    tgt TEXT,                       -- its target, as stored_key
    media TEXT);                    -- a separate mobile URL's media query
CREATE INDEX IF NOT EXISTS alternates_entry ON alternates(entry_id);
CREATE TABLE IF NOT EXISTS issues(
    id INTEGER PRIMARY KEY,
    rule TEXT NOT NULL,
    severity TEXT NOT NULL,
    node_id INTEGER,
    entry_id INTEGER,
    line INTEGER,
    col INTEGER,
    url TEXT,
    message TEXT NOT NULL,
    weight INTEGER NOT NULL DEFAULT 1);
CREATE INDEX IF NOT EXISTS issues_node ON issues(node_id, severity);
CREATE INDEX IF NOT EXISTS issues_rule ON issues(rule);
CREATE TABLE IF NOT EXISTS audit(  -- sitemap-tui audit: one row per listed URL fetched
    key TEXT PRIMARY KEY,           -- COALESCE(entries.key, entries.loc); none for key = ''
    loc TEXT NOT NULL,              -- the URL as listed (its first entry)
    entry_id INTEGER, node_id INTEGER,  -- that first entry and its sitemap
    status INTEGER,                 -- the final answer's; NULL: none (error says why)
    final_url TEXT, redirects INTEGER NOT NULL DEFAULT 0, content_type TEXT,
    response_time REAL,             -- seconds, all hops
    last_modified TEXT,
    robots TEXT,                    -- JSON list: meta robots + X-Robots-Tag, 'googlebot: noindex'
    canonical TEXT,
    indexable INTEGER NOT NULL,
    reason TEXT NOT NULL,           -- 'indexable' or 'non-indexable: ...'
    error TEXT,                     -- no answer, a refused redirect: why
    note TEXT,                      -- what was not read (a head past the byte cap)
    blocked_for TEXT,               -- JSON list of the agents robots.txt disallows it for
    fetched_at REAL,
    page TEXT);                     -- JSON: raw X-Robots-Tag and Link values, robots metas,
                                    -- hreflang links, title, h1, refused (the deep checks')
CREATE TABLE IF NOT EXISTS audit_skipped(  -- audit: a listed URL not fetched, with no verdict
    key TEXT PRIMARY KEY,           -- as audit.key
    why TEXT NOT NULL,              -- robots.txt shuts sitemap-tui out, not Googlebot
    blocked_for TEXT) WITHOUT ROWID;  -- as audit.blocked_for (NULL: a store from before it)
CREATE TABLE IF NOT EXISTS coverage(  -- audit --compare-list / --crawl: a URL of the list or found by links
    key TEXT PRIMARY KEY,           -- engine.keys.url_key: matches COALESCE(entries.key, entries.loc)
    loc TEXT NOT NULL,              -- as the list wrote it or the link resolved
    in_sitemaps INTEGER NOT NULL,   -- 1: some entry has this key
    in_list INTEGER NOT NULL DEFAULT 0,
    depth INTEGER,                  -- link hops from the home page; NULL: not reached by the crawl
    crawl TEXT,                     -- NULL, 'queued', 'crawled' (links read), 'robots' (disallowed)
    status INTEGER, indexable INTEGER, reason TEXT,  -- this table's own fetch; NULL: not fetched here
    note TEXT,                      -- why not fetched, what was not read
    fetched_at REAL,
    page_row TEXT);                 -- JSON list: the fetch's audit row (store.audit STORED_COLUMNS)
CREATE TABLE IF NOT EXISTS coverage_links(  -- audit --crawl: src links to dst (both coverage keys)
    dst TEXT NOT NULL, src TEXT NOT NULL, PRIMARY KEY(dst, src)) WITHOUT ROWID;
"""

NODE_STAT_COLUMNS = (
    "http_status", "final_url", "content_type", "content_encoding", "etag", "last_modified",
    "wire_bytes", "decoded_bytes", "gzipped", "xml_encoding", "redirects", "ttfb",
    "fetch_time", "parse_time", "url_count", "child_count", "truncated_at",
)

def _changefreq_rank(alias: str) -> str:
    """A changefreq's place from "always" to "never" (NULL: missing or not one of the words)."""
    whens = " ".join(f"WHEN '{w}' THEN {i}" for i, w in enumerate(CHANGEFREQS))
    return f"(CASE {alias}changefreq {whens} END)"


def _extension_count(alias: str) -> str:
    """How many extension elements an entry carries (images, videos, news, alternate links)."""
    return f"({alias}n_images + {alias}n_videos + {alias}n_news + {alias}n_alternates)"


SORTS = {
    "id": "e.id", "loc": "e.loc", "lastmod": "e.lastmod", "priority": "e.priority",
    "issues": "e.n_issues", "sitemap": "e.node_id",
    "changefreq": _changefreq_rank("e."), "ext": _extension_count("e."),
}
EXTENSIONS = {"image": "n_images", "video": "n_videos", "news": "n_news", "hreflang": "n_alternates"}
INDEXES = {
    "loc": "CREATE INDEX IF NOT EXISTS entries_loc ON entries(loc, id)",
    "lastmod": "CREATE INDEX IF NOT EXISTS entries_lastmod ON entries(lastmod, id)",
    "priority": "CREATE INDEX IF NOT EXISTS entries_priority ON entries(priority, id)",
    "issues": "CREATE INDEX IF NOT EXISTS entries_issues ON entries(n_issues, id)",
    "sitemap": "CREATE INDEX IF NOT EXISTS entries_node ON entries(node_id, id)",  # in SCHEMA
    # indexes on the expressions: SQLite walks one when a query names the same expression
    "changefreq": f"CREATE INDEX IF NOT EXISTS entries_changefreq ON entries({_changefreq_rank('')}, id)",
    "ext": f"CREATE INDEX IF NOT EXISTS entries_ext ON entries({_extension_count('')}, id)",
}


def _regexp(pattern: str, value: str | None) -> bool:
    if value is None:
        return False
    return compiled_regex(pattern).search(value) is not None


def priority_bucket(value: float | None) -> str | None:
    """A priority as the Overview groups it (``stats.FileAccumulator``: one decimal, Python's
    rounding); the PRIORITY_BUCKET function of every connection, so SQL and Python agree."""
    return None if value is None else f"{value:.1f}"


_regex_cache: dict[str, re.Pattern[str]] = {}


def compiled_regex(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled (the REGEXP function's cache: one filter asks for it on every row)."""
    rx = _regex_cache.get(pattern)
    if rx is None:
        if len(_regex_cache) > 64:
            _regex_cache.clear()
        rx = _regex_cache[pattern] = re.compile(pattern)
    return rx


def readonly_uri(path: str | Path, *, immutable: bool = False) -> str:
    """A ``?mode=ro`` URI of ``path`` (quoted: a path may hold ? or #); ``immutable``: SQLite
    leaves no -wal/-shm files beside it, for a finished store that nothing writes."""
    return Path(path).resolve().as_uri() + "?mode=ro" + ("&immutable=1" if immutable else "")


def at_rest(path: str | Path) -> bool:
    """No writer's log beside the store (``PATH-wal``): a one-shot reader may open it
    immutable, and leaves nothing beside the user's file (a read-only connection to a WAL file
    cannot remove the -wal and -shm files it made)."""
    return not Path(f"{path}-wal").exists()


def connect(path: str | Path, *, readonly: bool = False, immutable: bool = False) -> sqlite3.Connection:
    """``immutable`` (read-only, a finished store): SQLite leaves no -wal/-shm files beside it."""
    if readonly:
        conn = sqlite3.connect(readonly_uri(path, immutable=immutable), uri=True, check_same_thread=False)
    else:
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    conn.create_function("REGEXP", 2, _regexp, deterministic=True)
    conn.create_function("PRIORITY_BUCKET", 1, priority_bucket, deterministic=True)
    conn.execute("PRAGMA busy_timeout=5000")
    if readonly:
        _shadow_missing_places(conn)
    return conn


def _shadow_missing_places(conn: sqlite3.Connection) -> None:
    """A store from before ``nodes.place`` read without writing (a file this user cannot write
    is never upgraded): its tree order goes to a TEMP copy of its nodes, which unqualified names
    find before main's, so every read sorts as in a store of this version. Without it each pane
    said "no such column: place". (A few ms per thousand files, per reader.)"""
    try:
        columns = {row[1] for row in conn.execute("PRAGMA main.table_info(nodes)")}
    except sqlite3.DatabaseError:
        return  # not a database: identify() says what it is
    if not columns or "place" in columns:
        return  # not a store (said by identify), or one of this version
    conn.execute("CREATE TEMP TABLE nodes AS SELECT *, NULL AS place FROM main.nodes")
    conn.execute("CREATE INDEX temp.nodes_by_id ON nodes(id)")
    fill_places(conn, "temp.nodes")


def fill_places(conn: sqlite3.Connection, table: str) -> None:
    """Each node's place in ``table`` (main.nodes, or a TEMP copy), from the tree itself: an
    earlier version's store has none (a few ms per thousand files)."""
    tree = conn.execute("SELECT id, parent_id, line FROM main.nodes").fetchall()
    conn.executemany(f"UPDATE {table} SET place=? WHERE id=?", [(p, nid) for nid, p in places(tree).items()])


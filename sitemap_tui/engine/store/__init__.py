"""The exploration store: one SQLite file (WAL) per exploration.

One writer (the engine) appends in batches; any number of readers (the TUI's URL table, export,
the cross-file rules) open their own connection. Entry listings are keyset-paged so the cost of a
page does not grow with its position."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitemap_tui.engine.keys import SIGNATURE_KEY_BYTES, entry_columns, link_columns
from sitemap_tui.engine.model import (
    Entry,
    FileStats,
    FoundBy,
    Issue,
    Node,
    NodeKind,
    NodeState,
    Severity,
)
from sitemap_tui.engine.stats import Aggregate
from sitemap_tui.engine.storefile import (
    STORE_VERSION,
    StoreError,
    StoreLock,
    identify,
    inspect_store,
    partial_path,
    remove_partial,
    replace_store,
)

__all__ = ["Store", "StoreError", "StoreRun"]  # (StoreError: the one error of the store layer)

SCHEMA_VERSION = str(STORE_VERSION)

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
    agg TEXT                        -- JSON of stats.Aggregate for this file
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
    message TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS issues_node ON issues(node_id, severity);
CREATE INDEX IF NOT EXISTS issues_rule ON issues(rule);
"""

NODE_STAT_COLUMNS = (
    "http_status", "final_url", "content_type", "content_encoding", "etag", "last_modified",
    "wire_bytes", "decoded_bytes", "gzipped", "xml_encoding", "redirects", "ttfb",
    "fetch_time", "parse_time", "url_count", "child_count", "truncated_at",
)

SORTS = {"id": "e.id", "loc": "e.loc", "lastmod": "e.lastmod"}
EXTENSIONS = {"image": "n_images", "video": "n_videos", "news": "n_news", "hreflang": "n_alternates"}
INDEXES = {
    "loc": "CREATE INDEX IF NOT EXISTS entries_loc ON entries(loc, id)",
    "lastmod": "CREATE INDEX IF NOT EXISTS entries_lastmod ON entries(lastmod, id)",
}

SEARCH_TABLE = "loc_search"
SEARCH_SQL = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {SEARCH_TABLE} USING fts5(loc, content='entries',"
    " content_rowid='id', tokenize='trigram case_sensitive 1', detail='none')",
    # GLOB stops at a NUL (a text sitemap can carry one): such rows are always candidates
    "CREATE TABLE IF NOT EXISTS search_nul(id INTEGER PRIMARY KEY)",
)
"""A trigram index of ``loc`` (external content: no second copy of the URLs). It answers a rare
substring over millions of rows in milliseconds where a table scan takes seconds. The engine
extends it in chunks while idle; ``search_upto`` (meta) is the last entry id it covers."""
SEARCH_UPTO = "search_upto"
SIGNATURE_KEY = "signature_key"  # meta: hex secret of the hreflang set signatures
# printable ASCII other than GLOB's metacharacters * ? [
_PLAIN_RUN = re.compile(r"[\x20-\x29\x2b-\x3e\x40-\x5a\x5c-\x7e]{3,}")


def search_glob(substring: str) -> str | None:
    """The FTS5 GLOB pattern that narrows a substring search: ``*RUN*`` for the substring's
    longest run of plain ASCII, or None when it has no such run of three characters (the index
    could not narrow it). Exactness comes from ``instr`` on each candidate row, so one run is
    enough; and the pattern stays this simple because SQLite 3.40's trigram GLOB crashed on a
    pattern mixing a bracket escape and 4-byte characters (found by the hypothesis test)."""
    runs = _PLAIN_RUN.findall(substring)
    if not runs:
        return None
    return "*" + max(runs, key=len) + "*"


def search_candidates(conn: sqlite3.Connection, pattern: str, upto: int, cap: int) -> int:
    """Rows an index lookup reads for a GLOB ``pattern`` (index hits plus the rows after
    ``upto`` it does not cover yet), counted up to ``cap``: a rare substring is looked up, a
    common one is faster as a scan that stops after a page."""
    tail = int(conn.execute(
        "SELECT COUNT(*) FROM (SELECT 1 FROM entries WHERE id > ? LIMIT ?)", (upto, cap)
    ).fetchone()[0])
    if tail >= cap:
        return cap
    hits = conn.execute(
        f"SELECT COUNT(*) FROM (SELECT 1 FROM {SEARCH_TABLE} WHERE loc GLOB ? LIMIT ?)",
        (pattern, cap - tail),
    ).fetchone()[0]
    return tail + int(hits)


@dataclass(slots=True)
class EntryFilter:
    """What the URL table and export ask for; every field narrows the result."""

    node_ids: Sequence[int] | None = None  # None = every node
    substring: str | None = None
    regex: str | None = None
    lastmod_from: int | None = None  # unix seconds, inclusive
    lastmod_to: int | None = None  # unix seconds, exclusive
    has_issue: bool = False
    extension: str | None = None  # one of EXTENSIONS
    rule: str | None = None  # entries with an issue of this rule
    entry_ids: Sequence[int] | None = None  # marked rows


@dataclass(slots=True)
class EntryRow:
    id: int
    node_id: int
    loc: str | None
    line: int | None
    lastmod_raw: str | None
    lastmod: int | None
    changefreq_raw: str | None
    priority_raw: str | None
    n_images: int
    n_videos: int
    n_news: int
    n_alternates: int
    n_issues: int

    @property
    def sort_value(self) -> Any:
        return self.id


ENTRY_COLUMNS = (
    "e.id, e.node_id, e.loc, e.line, e.lastmod_raw, e.lastmod, e.changefreq_raw, e.priority_raw,"
    " e.n_images, e.n_videos, e.n_news, e.n_alternates, e.n_issues"
)


@dataclass(slots=True)
class IssueRow:
    id: int
    rule: str
    severity: str
    node_id: int | None
    entry_id: int | None
    line: int | None
    col: int | None
    url: str | None
    message: str
    sitemap: str | None = None


def _regexp(pattern: str, value: str | None) -> bool:
    if value is None:
        return False
    return _compiled(pattern).search(value) is not None


_regex_cache: dict[str, re.Pattern[str]] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    rx = _regex_cache.get(pattern)
    if rx is None:
        if len(_regex_cache) > 64:
            _regex_cache.clear()
        rx = _regex_cache[pattern] = re.compile(pattern)
    return rx


CANNOT_WRITE = frozenset({
    sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN,
    sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_PERM, sqlite3.SQLITE_NOLFS,
})
"""SQLite's (primary) result codes that say the file cannot take a write: a full disk, an I/O error,
a read-only or damaged file. Others (an interrupted statement, a bug in a query) are not about
the store, and stay what they are."""


def _writes(method: Callable[..., Any]) -> Callable[..., Any]:
    """A method that writes to the store: see :meth:`Store.guarded`."""

    @functools.wraps(method)
    def guarded(self: Store, *args: Any, **kwargs: Any) -> Any:
        with self.guarded():
            return method(self, *args, **kwargs)

    return guarded


def connect(path: str | Path, *, readonly: bool = False) -> sqlite3.Connection:
    if readonly:
        uri = Path(path).resolve().as_uri() + "?mode=ro"  # (quoted: a path may hold ? or #)
        conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
    else:
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    conn.create_function("REGEXP", 2, _regexp, deterministic=True)
    conn.execute("PRAGMA busy_timeout=5000")
    return conn


class Store:
    """Writer side, plus the read queries (used by readers through their own Store).

    Only a sitemap-tui store of this version or an earlier one is opened (an earlier one is
    upgraded in place by the writer); anything else raises :class:`StoreError` before a byte of it
    is written. So does a write SQLite refuses (a full disk): from then on every write raises
    that same error, since the store no longer holds everything the run found."""

    def __init__(self, path: str | Path, *, readonly: bool = False, shown_as: str | Path | None = None) -> None:
        self.path = Path(path)
        self.shown = Path(shown_as) if shown_as is not None else self.path  # the name in messages
        self.readonly = readonly
        self.failure: StoreError | None = None  # the write that failed, raised again by every write
        self._lock = threading.RLock()
        self._signature_key: bytes | None = None  # read once (asked for every file and batch)
        self._in_tx = False
        if not readonly or not Path(f"{self.path}-wal").exists():
            # checked without a connection that could leave files beside another program's
            # database; a reader of a store being written (its log exists) checks on its own
            # connection, below
            inspect_store(self.path)
        try:
            self.conn = connect(self.path, readonly=readonly)
        except sqlite3.Error as exc:
            raise StoreError(self.shown, f"cannot be opened ({exc})") from exc
        try:
            if readonly:
                identify(self.conn, self.shown)
            else:
                with self.guarded():
                    self.conn.execute("PRAGMA journal_mode=WAL")
                    # The store is a cache of what the web said: durability across power loss
                    # is not worth the fsyncs.
                    self.conn.execute("PRAGMA synchronous=OFF")
                    self.conn.executescript(SCHEMA)
                    self._add_missing_columns()
                    self.set_meta("schema", SCHEMA_VERSION)
                    self.begin()
        except BaseException as exc:
            self.conn.close()
            if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, StoreError):
                raise StoreError(self.shown, f"cannot be opened ({exc})") from exc
            raise

    @contextlib.contextmanager
    def guarded(self) -> Iterator[None]:
        """Writes in here that SQLite refuses for the file's sake (CANNOT_WRITE) raise
        StoreError("FILE: cannot write: why"), and so does every write after the first such one."""
        if self.failure is not None:
            raise self.failure
        try:
            yield
        except sqlite3.Error as exc:
            code = None if isinstance(exc, StoreError) else getattr(exc, "sqlite_errorcode", None)
            if code is None or code & 0xFF not in CANNOT_WRITE:
                raise
            self.failure = StoreError(self.shown, f"cannot write: {exc}")
            raise self.failure from exc

    def _add_missing_columns(self) -> None:
        """A store written by an earlier version gains the columns added since, empty (NULL):
        the cross-file pass fills the keys in before it uses them."""
        for table, columns in (("entries", ("key TEXT", "alt_n INTEGER", "alt_h INTEGER")),
                               ("alternates", ("lang TEXT", "tgt TEXT", "media TEXT"))):
            have = {row[1] for row in self.conn.execute(f"PRAGMA table_info({table})")}
            for column in columns:
                if column.split()[0] not in have:
                    self.conn.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
        # finds the rows to fill in without a scan (and stays empty once they are)
        self.conn.execute("CREATE INDEX IF NOT EXISTS entries_nokey ON entries(id) WHERE alt_n IS NULL")

    def signature_key(self) -> bytes:
        """The secret of this store's hreflang set signatures (engine.keys.set_signature),
        made on first use; every process that builds rows for this store gets it."""
        if self._signature_key is None:
            value = self.get_meta(SIGNATURE_KEY)
            if not isinstance(value, str):
                value = os.urandom(SIGNATURE_KEY_BYTES).hex()
                if not self.readonly:
                    self.set_meta(SIGNATURE_KEY, value)
            self._signature_key = bytes.fromhex(value)
        return self._signature_key

    # -- lifecycle -------------------------------------------------------------------------
    def close(self) -> None:
        """Commit and close; a store whose writes failed is closed without a commit."""
        with self._lock:
            try:
                if self._in_tx and self.failure is None:
                    self.commit()
            finally:
                self.conn.close()

    def discard(self) -> None:
        """Close without committing what the open transaction holds."""
        with self._lock:
            self.conn.close()

    def reader(self) -> Store:
        """A new read-only connection to the same file (for another thread)."""
        return Store(self.path, readonly=True)

    @_writes
    def begin(self) -> None:
        if not self._in_tx:
            self.conn.execute("BEGIN")
            self._in_tx = True

    @_writes
    def commit(self) -> None:
        if self._in_tx:
            self.conn.execute("COMMIT")
            self._in_tx = False

    def rollback(self) -> None:
        """Drop what the open transaction wrote and start a new one."""
        # an interrupted write statement makes SQLite roll the transaction back by itself
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")
        self._signature_key = None  # it may have been made in the transaction just undone
        self._in_tx = False
        self.begin()

    @_writes
    def publish(self) -> None:
        """Commit what is pending, so other connections see it, and go on in a transaction."""
        if self._in_tx:
            self.commit()
            self.begin()

    @_writes
    def set_meta(self, key: str, value: Any) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, json.dumps(value))
        )

    def get_meta(self, key: str, default: Any = None) -> Any:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    # -- nodes -----------------------------------------------------------------------------
    def next_node_id(self) -> int:
        row = self.conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM nodes").fetchone()
        return int(row[0])

    @_writes
    def add_node(self, node: Node) -> None:
        parent_path = "/"
        if node.parent_id is not None:
            row = self.conn.execute(
                "SELECT path FROM nodes WHERE id=?", (node.parent_id,)
            ).fetchone()
            parent_path = row[0] if row else "/"
        self.conn.execute(
            "INSERT INTO nodes(id, parent_id, path, url, kind, state, found_by, depth, line,"
            " lastmod_raw, error, expandable) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                node.id, node.parent_id, f"{parent_path}{node.id}/", node.url, node.kind.value,
                node.state.value, node.found_by.value, node.depth, node.line, node.lastmod_raw,
                node.error, int(node.expandable),
            ),
        )

    @_writes
    def update_node(self, node: Node, agg: Aggregate | None = None) -> None:
        s = node.stats
        values = [getattr(s, c) for c in NODE_STAT_COLUMNS]
        values[NODE_STAT_COLUMNS.index("gzipped")] = int(s.gzipped)
        sql = (
            "UPDATE nodes SET kind=?, state=?, error=?, expandable=?, "
            + ", ".join(f"{c}=?" for c in NODE_STAT_COLUMNS)
        )
        params: list[Any] = [node.kind.value, node.state.value, node.error, int(node.expandable)]
        params += values
        if agg is not None:
            sql += ", agg=?"
            params.append(json.dumps(agg.to_json()))
        sql += " WHERE id=?"
        params.append(node.id)
        self.conn.execute(sql, params)

    def node(self, node_id: int) -> Node | None:
        row = self.conn.execute(
            "SELECT id, url, kind, state, found_by, parent_id, depth, error, expandable, line,"
            " lastmod_raw, " + ", ".join(NODE_STAT_COLUMNS) + " FROM nodes WHERE id=?",
            (node_id,),
        ).fetchone()
        return None if row is None else _row_to_node(row)

    def root_url(self) -> str | None:
        """The URL of the first root node: the target the exploration was started on."""
        row = self.conn.execute(
            "SELECT url FROM nodes WHERE parent_id IS NULL ORDER BY id LIMIT 1"
        ).fetchone()
        return None if row is None else str(row[0])

    def nodes(self, parent_id: int | None = ..., ) -> list[Node]:  # type: ignore[assignment]
        sql = (
            "SELECT id, url, kind, state, found_by, parent_id, depth, error, expandable, line,"
            " lastmod_raw, " + ", ".join(NODE_STAT_COLUMNS) + " FROM nodes"
        )
        if parent_id is ...:
            rows = self.conn.execute(sql + " ORDER BY id").fetchall()
        elif parent_id is None:
            rows = self.conn.execute(sql + " WHERE parent_id IS NULL ORDER BY id").fetchall()
        else:
            rows = self.conn.execute(
                sql + " WHERE parent_id=? ORDER BY id", (parent_id,)
            ).fetchall()
        return [_row_to_node(r) for r in rows]

    def subtree_ids(self, node_id: int) -> list[int]:
        row = self.conn.execute("SELECT path FROM nodes WHERE id=?", (node_id,)).fetchone()
        if row is None:
            return []
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT id FROM nodes WHERE substr(path, 1, ?) = ? ORDER BY id",
                (len(row[0]), row[0]),
            )
        ]

    def aggregate(self, node_ids: Iterable[int]) -> Aggregate:
        """Stats merged over the given nodes (each file's aggregate was kept while streaming)."""
        ids = list(node_ids)
        total = Aggregate()
        if len(ids) == 1:
            row = self.conn.execute("SELECT agg FROM nodes WHERE id=?", (ids[0],)).fetchone()
            return Aggregate.from_json(json.loads(row[0])) if row and row[0] else Aggregate()
        for chunk in _chunks(ids, 500):
            marks = ",".join("?" * len(chunk))
            for (agg,) in self.conn.execute(
                f"SELECT agg FROM nodes WHERE agg IS NOT NULL AND id IN ({marks})", chunk
            ):
                total.merge(Aggregate.from_json(json.loads(agg)))
        return total

    @_writes
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

    @_writes
    def add_rows(self, node_id: int, rows: EntryRows) -> list[int]:
        """Insert a batch prepared by entry_rows() (possibly in another process)."""
        if not rows.entries:
            return []
        c = self.conn
        # ids are never reused below what the search index covers (a reload deletes rows)
        first = int(c.execute(
            "SELECT MAX(COALESCE((SELECT MAX(id) FROM entries), 0),"
            " COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?), 0))",
            (SEARCH_UPTO,),
        ).fetchone()[0]) + 1
        c.executemany(
            "INSERT INTO entries(id, node_id, loc, line, lastmod_raw, lastmod, changefreq_raw,"
            " changefreq, priority_raw, priority, n_images, n_videos, n_news, n_alternates, title,"
            " key, alt_n, alt_h) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [(first + i, node_id, *row) for i, row in enumerate(rows.entries)],
        )
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

    # -- the substring search index -----------------------------------------------------------
    def search_upto(self) -> int | None:
        """The last entry id the search index covers, or None when there is no index."""
        value = self.get_meta(SEARCH_UPTO)
        return int(value) if value is not None else None

    @_writes
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

    def search_candidates(self, substring: str, cap: int) -> int | None:
        """How many rows an index lookup of ``substring`` would read (stopping at ``cap``), or
        None when the index cannot serve it."""
        upto = self.search_upto()
        pattern = search_glob(substring)
        if upto is None or pattern is None:
            return None
        return search_candidates(self.conn, pattern, upto, cap)

    @_writes
    def ensure_index(self, name: str) -> None:
        """Sorted listings need an index; built on first use, not on every insert."""
        self.conn.execute(INDEXES[name])

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
        if f.node_ids is not None:
            ids = list(f.node_ids)
            if not ids:
                clauses.append("0")
            else:
                clauses.append(f"e.node_id IN ({','.join(str(int(i)) for i in ids)})")
        if f.entry_ids is not None:
            ids = list(f.entry_ids)
            clauses.append(f"e.id IN ({','.join(str(int(i)) for i in ids)})" if ids else "0")
        if f.substring:
            clauses.append("instr(e.loc, ?) > 0")
            params.append(f.substring)
        if f.regex:
            _compiled(f.regex)  # raise re.error here, not inside SQLite
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
        if f.rule:
            clauses.append("e.id IN (SELECT entry_id FROM issues WHERE rule = ?)")
            params.append(f.rule)
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
        sql = f"SELECT {ENTRY_COLUMNS} FROM entries e{where} ORDER BY {order} LIMIT ?"
        params.append(limit)
        rows = [EntryRow(*r) for r in self.conn.execute(sql, params)]
        if before is not None:
            rows.reverse()
        return rows

    def sort_key(self, row: EntryRow, sort: str) -> tuple[Any, int]:
        if sort == "loc":
            return (row.loc, row.id)
        if sort == "lastmod":
            return (row.lastmod, row.id)
        return (row.id, row.id)

    def count(self, f: EntryFilter, *, search: bool = False) -> int:
        """Entries matching ``f``; ``search`` looks a substring up in the search index (if any)."""
        where, params = self._where(f, search_upto=self.search_upto() if search else None)
        return int(self.conn.execute(f"SELECT COUNT(*) FROM entries e{where}", params).fetchone()[0])

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

    def alternates_for(self, entry_ids: Sequence[int]) -> dict[int, list[tuple[str | None, str | None, str | None]]]:
        """(hreflang, href, media) of each entry's xhtml:links."""
        out: dict[int, list[tuple[str | None, str | None, str | None]]] = {}
        for chunk in _chunks(list(entry_ids), 900):
            marks = ",".join("?" * len(chunk))
            for eid, hreflang, href, media in self.conn.execute(
                f"SELECT entry_id, hreflang, href, media FROM alternates WHERE entry_id IN ({marks})", chunk
            ):
                out.setdefault(eid, []).append((hreflang, href, media))
        return out

    def extensions_for(self, entry_ids: Sequence[int]) -> dict[int, tuple[list[Any], list[Any], list[Any]]]:
        """Each entry's images (loc, title, caption, geo_location, license), videos (the stored
        dict: fields, multi, attrs, tags) and news (name, language, date, title, extra dict)."""
        out: dict[int, tuple[list[Any], list[Any], list[Any]]] = {}
        for chunk in _chunks(list(entry_ids), 900):
            marks = ",".join("?" * len(chunk))
            for eid, *image in self.conn.execute(
                f"SELECT entry_id, loc, title, caption, geo_location, license FROM images"
                f" WHERE entry_id IN ({marks}) ORDER BY rowid", chunk
            ):
                out.setdefault(eid, ([], [], []))[0].append(tuple(image))
            for eid, data in self.conn.execute(
                f"SELECT entry_id, data FROM videos WHERE entry_id IN ({marks}) ORDER BY rowid", chunk
            ):
                out.setdefault(eid, ([], [], []))[1].append(json.loads(data))
            for eid, name, lang, date, title, extra in self.conn.execute(
                f"SELECT entry_id, publication_name, language, publication_date, title, extra FROM news"
                f" WHERE entry_id IN ({marks}) ORDER BY rowid", chunk
            ):
                out.setdefault(eid, ([], [], []))[2].append((name, lang, date, title, json.loads(extra) if extra else None))
        return out

    def entry_position(self, f: EntryFilter, entry_id: int, sort: str = "id") -> int | None:
        """Row index of an entry within a filtered listing (to jump the table to it)."""
        row = self.conn.execute(
            "SELECT loc, lastmod FROM entries WHERE id=?", (entry_id,)
        ).fetchone()
        if row is None:
            return None
        where, params = self._where(f)
        if sort == "id":
            cond, extra = "e.id < ?", [entry_id]
        else:
            col = SORTS[sort]
            value = row[0] if sort == "loc" else row[1]
            if value is None:
                cond, extra = f"({col} IS NOT NULL OR e.id < ?)", [entry_id]
            else:
                cond, extra = f"({col} < ? OR ({col} = ? AND e.id < ?))", [value, value, entry_id]
        where = (where + " AND " if where else " WHERE ") + cond
        return int(
            self.conn.execute(f"SELECT COUNT(*) FROM entries e{where}", params + extra).fetchone()[0]
        )

    # -- issues ----------------------------------------------------------------------------
    @_writes
    def add_issues(self, issues: Sequence[Issue], entry_ids: Sequence[int | None] | None = None) -> None:
        if not issues:
            return
        rows = []
        bumps: dict[int, int] = {}
        for i, iss in enumerate(issues):
            eid = entry_ids[i] if entry_ids is not None else None
            rows.append(
                (iss.rule, iss.severity.value, iss.node_id, eid, iss.line, iss.column, iss.url,
                 iss.message)
            )
            if eid is not None:
                bumps[eid] = bumps.get(eid, 0) + 1
        self.conn.executemany(
            "INSERT INTO issues(rule, severity, node_id, entry_id, line, col, url, message)"
            " VALUES(?,?,?,?,?,?,?,?)",
            rows,
        )
        if bumps:
            self.conn.executemany(
                "UPDATE entries SET n_issues = n_issues + ? WHERE id=?",
                [(n, eid) for eid, n in bumps.items()],
            )

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
        """Issues in report order (node, line), streamed: a report of millions never sits in memory."""
        clauses, params = [], []
        if node_ids is not None:
            clauses.append(f"i.node_id IN ({','.join(str(int(n)) for n in node_ids) or 'NULL'})")
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
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        sql = (
            "SELECT i.id, i.rule, i.severity, i.node_id, i.entry_id, i.line, i.col, i.url, i.message,"
            " COALESCE(n.final_url, n.url) FROM issues i LEFT JOIN nodes n ON n.id = i.node_id"
            f"{where} ORDER BY i.node_id, i.line, i.id"
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        for r in self.conn.execute(sql, params):
            yield IssueRow(*r)

    def issue_counts(self, node_ids: Sequence[int] | None = None) -> dict[str, int]:
        """Counts by severity over the given nodes (all when None)."""
        where = ""
        if node_ids is not None:
            where = f" WHERE node_id IN ({','.join(str(int(n)) for n in node_ids) or 'NULL'})"
        counts = {s.value: 0 for s in Severity}
        for sev, n in self.conn.execute(f"SELECT severity, COUNT(*) FROM issues{where} GROUP BY severity"):
            counts[sev] = n
        return counts

    def issue_counts_by_node(self) -> dict[int, dict[str, int]]:
        out: dict[int, dict[str, int]] = {}
        for node_id, sev, n in self.conn.execute(
            "SELECT node_id, severity, COUNT(*) FROM issues GROUP BY node_id, severity"
        ):
            out.setdefault(node_id, {s.value: 0 for s in Severity})[sev] = n
        return out

    def rule_counts(self, node_ids: Sequence[int] | None = None) -> list[tuple[str, str, int]]:
        where = ""
        if node_ids is not None:
            where = f" WHERE node_id IN ({','.join(str(int(n)) for n in node_ids) or 'NULL'})"
        return list(
            self.conn.execute(
                f"SELECT rule, severity, COUNT(*) FROM issues{where} GROUP BY rule, severity"
                " ORDER BY CASE severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END, rule"
            )
        )


class StoreRun:
    """The store of a headless run with ``--db PATH``.

    The new exploration is written beside PATH (``.PATH.partial``) and takes its place in one
    rename when :meth:`finish` is told the run is complete. Until then, and for good when the run
    never reached its target, is interrupted or cannot write, PATH keeps what it held, byte for
    byte: a cron job that runs against a site that is down keeps its last good exploration. Only a store (or
    nothing) is ever replaced: another program's file raises StoreError first. One run per PATH
    at a time (StoreLock); a partial file left by a killed run is removed by the next one."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.lock = StoreLock.acquire(self.path)
        try:
            inspect_store(self.path)
            remove_partial(self.path)
            self.partial = partial_path(self.path)
            self.store = Store(self.partial, shown_as=self.path)
        except BaseException:
            self.lock.release()
            raise

    def finish(self, complete: bool) -> None:
        """Put the new exploration in place (``complete``), or drop it; release PATH either way."""
        try:
            if complete:
                self.store.close()  # the last commit may fail too (StoreError): then PATH stays
                try:
                    replace_store(self.partial, self.path)
                except OSError as exc:
                    raise StoreError(self.path, f"cannot write: {exc.strerror or exc}") from exc
            else:
                self.store.discard()
        finally:
            remove_partial(self.path)
            self.lock.release()


@dataclass(slots=True)
class EntryRows:
    """A batch of entries flattened to plain tuples: cheap to pickle between processes.

    Extension tuples start with the entry's index within the batch."""

    entries: list[tuple[Any, ...]] = field(default_factory=list)
    images: list[tuple[Any, ...]] = field(default_factory=list)
    videos: list[tuple[Any, ...]] = field(default_factory=list)
    news: list[tuple[Any, ...]] = field(default_factory=list)
    alternates: list[tuple[Any, ...]] = field(default_factory=list)


def entry_rows(entries: Sequence[Entry], signature_key: bytes) -> EntryRows:
    """The rows of a batch, with the keys the cross-file rules join on (engine.keys);
    ``signature_key`` is the store's (Store.signature_key)."""
    out = EntryRows()
    rows, images, videos, news, alternates = out.entries, out.images, out.videos, out.news, out.alternates
    for i, e in enumerate(entries):
        lm = e.lastmod
        links: list[tuple[str, str]] = []
        for a in e.alternates:
            link, lang, tgt = link_columns(a.rel, a.hreflang, a.href)
            alternates.append((i, a.rel, a.hreflang, a.href, a.line, lang, tgt, a.media))
            if link is not None:
                links.append(link)
        rows.append(
            (
                e.loc, e.line, e.lastmod_raw, int(lm.timestamp()) if lm is not None else None,
                e.changefreq_raw, e.changefreq, e.priority_raw, e.priority,
                len(e.images), len(e.videos), len(e.news), len(e.alternates), e.title,
                *entry_columns(e.loc, links, signature_key),
            )
        )
        for im in e.images:
            images.append((i, im.loc, im.title, im.caption, im.geo_location, im.license, im.line))
        for v in e.videos:
            videos.append(
                (i, v.line, json.dumps({"fields": v.fields, "multi": v.multi, "attrs": v.attrs, "tags": v.tags}))
            )
        for n in e.news:
            news.append(
                (i, n.publication_name, n.publication_language, n.publication_date, n.title,
                 json.dumps(n.extra) if n.extra else None, n.line)
            )
    return out


def _chunks(items: list[Any], n: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), n):
        yield items[i : i + n]


def _row_to_node(row: Sequence[Any]) -> Node:
    (nid, url, kind, state, found_by, parent_id, depth, error, expandable, line, lastmod_raw) = row[:11]
    stats = FileStats(**dict(zip(NODE_STAT_COLUMNS, row[11:], strict=True)))
    stats.gzipped = bool(stats.gzipped)
    stats.wire_bytes = stats.wire_bytes or 0
    stats.decoded_bytes = stats.decoded_bytes or 0
    stats.url_count = stats.url_count or 0
    stats.child_count = stats.child_count or 0
    return Node(
        id=nid, url=url, kind=NodeKind(kind), state=NodeState(state), found_by=FoundBy(found_by),
        parent_id=parent_id, depth=depth, error=error, stats=stats, expandable=bool(expandable),
        line=line, lastmod_raw=lastmod_raw,
    )

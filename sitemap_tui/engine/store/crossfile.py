"""The store's queries for the cross-file rules (validate/crossfile.py): the SQL, the temporary
tables it works on, and how it is run; the rules decide what the rows mean.

Everything that compares URLs across files works on a temporary table of normalised URL keys
(``cf_keys``: one row per entry, indexed on the key), so duplicate detection, host variants and
trailing-slash variants are GROUP BYs and index joins inside SQLite, never a Python dict of
every URL. The keys, hreflang targets and hreflang set signatures come with the rows
(engine.keys, computed in the parser workers); only rows stored without them are filled in here
(:meth:`CrossFileQueries.fill_keys`).

Queries whose rows a rule reports (up to its cap) return the open cursor: the rule reads what it
reports and counts the rest by reading on (see ``validate.crossfile``).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from sitemap_tui.engine.keys import entry_columns, link_columns
from sitemap_tui.engine.store import Store, connect
from sitemap_tui.engine.store.packed import entry_of, first_of

__all__ = ["CrossFileQueries", "SideQueries", "entry_id_bound"]

FILL_BATCH = 5000  # entries per keyset batch when filling in missing keys
ORIGIN_WALK = 2000  # origins counted range by range before one GROUP BY does the rest
SIDE_SAMPLE = 100_000  # keys looked at to pick the rarer side of trailing-slash pairs
DAY = 86400
# the temporary tables the rules read (built here, or per part in crossfile_parts.py)
CF_KEYS = "CREATE TEMP TABLE cf_keys(entry_id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL, key TEXT NOT NULL)"
CF_ALT = (
    "CREATE TEMP TABLE cf_alt(entry_id INTEGER NOT NULL, src TEXT NOT NULL,"
    " lang TEXT NOT NULL, tgt TEXT NOT NULL, href TEXT)"
)
# what the hreflang rules look up in cf_alt: an entry's links, and who links what
CF_ALT_INDEXES = (
    "CREATE INDEX temp.cf_alt_entry ON cf_alt(entry_id, lang, tgt, src)",
    "CREATE INDEX temp.cf_alt_src ON cf_alt(src, tgt)",
)
CF_SIG = "CREATE TEMP TABLE cf_sig(entry_id INTEGER PRIMARY KEY, src TEXT NOT NULL, n INTEGER NOT NULL, h INTEGER NOT NULL)"

# lastmod-all-identical and priority-all-equal read the entries table only. Calendar day in
# UTC; the modulo dance keeps days before 1970 right. Per file: (node, top day, its count,
# lastmods); then one row (NULL, top day of the whole set, its count, NULL).
_DAY_SQL = "((lastmod - ((lastmod % 86400) + 86400) % 86400) / 86400)"
LASTMOD_SQL = (
    f"WITH d AS (SELECT node_id, {_DAY_SQL} AS day, COUNT(*) AS c FROM entries"
    " WHERE lastmod IS NOT NULL GROUP BY node_id, day)"
    " SELECT node_id, day, MAX(c), SUM(c) FROM d GROUP BY node_id"
    " UNION ALL SELECT * FROM (SELECT NULL, day, SUM(c) AS s, NULL FROM d"
    "  GROUP BY day ORDER BY s DESC, day LIMIT 1)"
)
# per file: (node, entries, entries with a priority, lowest, highest)
PRIORITY_SQL = (
    "SELECT node_id, COUNT(*), COUNT(priority), MIN(priority), MAX(priority)"
    " FROM entries GROUP BY node_id ORDER BY node_id"
)
SIDE_SQL = {"lastmod": LASTMOD_SQL, "priority": PRIORITY_SQL}


def entry_id_bound(store: Store) -> int:
    """The highest entry id: the entries held, or more (ids are not reused), read off the end of
    the table's B-tree without counting."""
    row = store.conn.execute("SELECT MAX(id) FROM entries").fetchone()
    return int(row[0] or 0)


class SideQueries:
    """Queries over the entries table alone, run on a second (read-only) connection in a
    thread while the main one builds its key tables. sqlite3 lets go of the GIL while a
    statement steps, so both cores work (10 M URLs: the two GROUP BYs, ~9 s, disappear
    behind the key table). Without a database file to share they run inline when asked."""

    def __init__(self, store: Store, names: Iterable[str]) -> None:
        self.queries = {name: SIDE_SQL[name] for name in names}
        self.results: dict[str, list[tuple[Any, ...]]] = {}
        self.thread: threading.Thread | None = None
        self._conn: sqlite3.Connection | None = None
        self._stop = threading.Event()
        if self.queries and store.path.is_file():
            store.publish()  # the other connection sees committed rows only
            self.thread = threading.Thread(
                target=self._run, args=(store.path,), name="sitemap-tui-crossfile", daemon=True
            )
            self.thread.start()

    def _run(self, path: Any) -> None:
        try:
            conn = self._conn = connect(path, readonly=True)
        except sqlite3.Error:
            return
        try:
            for name, sql in self.queries.items():
                if self._stop.is_set():
                    return
                self.results[name] = conn.execute(sql).fetchall()
        except sqlite3.Error:
            return  # rows() runs what is missing inline
        finally:
            conn.close()

    def rows(self, name: str, conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
        """``name``'s rows ("lastmod": LASTMOD_SQL, "priority": PRIORITY_SQL): from the thread,
        or run on ``conn`` when the thread could not."""
        if self.thread is not None:
            self.thread.join()
        got = self.results.pop(name, None)
        return got if got is not None else conn.execute(self.queries[name]).fetchall()

    def close(self) -> None:
        """Stop (when the run ended early, interrupt the running statement) and wait."""
        if self.thread is not None and self.thread.is_alive():
            self._stop.set()
            conn = self._conn
            if conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    conn.interrupt()
            self.thread.join()


class CrossFileQueries:
    """The cross-file rules' queries on one store's connection, and the temporary tables they
    build. ``check`` is called before each statement (it raises to cancel the run)."""

    def __init__(self, store: Store, check: Callable[[], None] = lambda: None) -> None:
        self.store = store
        self.conn: sqlite3.Connection = store.conn
        self.check = check
        self._temp: list[str] = []
        self._threads: int | None = None
        self._entry_cache: dict[int, tuple[int, int | None, str | None]] = {}
        self.side = SideQueries(store, ())

    # -- plumbing ----------------------------------------------------------------------------
    def _q(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self.check()
        return self.conn.execute(sql, params).fetchall()

    def _cursor(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        self.check()
        return self.conn.execute(sql, params)

    def _batches(self, sql: str, size: int) -> Iterator[list[tuple[Any, ...]]]:
        """Rows of ``sql`` (id first; ``id > ?`` and ``ORDER BY id LIMIT ?``) in keyset batches,
        so millions of entries never sit in memory at once."""
        last = 0
        while rows := self._q(sql, (last, size)):
            last = rows[-1][0]
            yield rows

    def temp(self, name: str, ddl: str) -> None:
        """(Re)create the temporary table ``name`` (dropped by :meth:`finish`)."""
        self.conn.execute(f"DROP TABLE IF EXISTS temp.{name}")
        self.conn.execute(ddl)
        self._temp.append(name)

    def start(self, side: Iterable[str]) -> None:
        """Before the first step: sorter threads for the indexes, and the ``side`` queries
        (SideQueries) started on their own connection."""
        self._threads = self._q("PRAGMA threads")[0][0]
        # CREATE INDEX sorts in parallel with sorter threads (10 M keys: 13.6 s -> 9.4 s)
        self.conn.execute(f"PRAGMA threads={min(4, os.cpu_count() or 1)}")
        self.side = SideQueries(self.store, side)

    def side_rows(self, name: str) -> list[tuple[Any, ...]]:
        return self.side.rows(name, self.conn)

    def finish(self, keep_temp: bool) -> None:
        """Stop the side queries; drop the temporary tables unless ``keep_temp`` (a DROP walks
        every page: closing the connection discards them at once); restore the threads."""
        self.side.close()
        for name in reversed(self._temp if not keep_temp else []):
            self.conn.execute(f"DROP TABLE IF EXISTS temp.{name}")
        if self._threads is not None:
            self.conn.execute(f"PRAGMA threads={int(self._threads)}")

    # -- entries and nodes -------------------------------------------------------------------
    def entry(self, entry_id: int) -> tuple[int, int | None, str | None]:
        """(node_id, line, loc) of one entry."""
        got = self._entry_cache.get(entry_id)
        if got is None:
            row = self._q("SELECT node_id, line, loc FROM entries WHERE id=?", (entry_id,))
            got = row[0] if row else (0, None, None)
            if len(self._entry_cache) < 4096:
                self._entry_cache[entry_id] = got
        return got

    def entry_runs(self) -> list[tuple[int, int]]:
        """(first entry id, node id) of each run of consecutive entry ids from one file, in id
        order: the file of any entry id, by bisection. A file's rows arrive in batches of
        thousands, so millions of entries make a few thousand runs."""
        return self._q(
            "SELECT id, node_id FROM (SELECT id, node_id, LAG(node_id) OVER (ORDER BY id) AS prev"
            " FROM entries) WHERE prev IS NULL OR prev <> node_id"
        )

    def node_id_ranges(self) -> list[tuple[int, int, int]]:
        """(node id, lowest entry id, highest) of each file with entries (through
        ``entries_node``: 0.09 s per 1 M entries)."""
        return self._q("SELECT node_id, MIN(id), MAX(id) FROM entries GROUP BY node_id")

    def root_node(self) -> int | None:
        row = self._q("SELECT id FROM nodes WHERE parent_id IS NULL ORDER BY id LIMIT 1")
        return row[0][0] if row else None

    def node_tree(self) -> list[tuple[int, int | None, int | None]]:
        """(id, parent id, line in the parent) of every node."""
        return self._q("SELECT id, parent_id, line FROM nodes")

    def node_last_modified(self) -> dict[int, str | None]:
        """Each node's Last-Modified header."""
        return dict(self._q("SELECT id, last_modified FROM nodes"))

    def index_nodes(self) -> list[tuple[int, str]]:
        """(id, url) of the sitemap indexes, in id order."""
        return self._q("SELECT id, url FROM nodes WHERE kind = 'index' ORDER BY id")

    def sitemap_files(self) -> list[tuple[int, str]]:
        """(id, url) of the nodes that are files of the set (not a site, folder or robots.txt)."""
        return self._q(
            "SELECT id, url FROM nodes WHERE kind NOT IN ('site', 'directory', 'robots')"
            " ORDER BY id"
        )

    def robots_bodies(self) -> list[tuple[str, str]]:
        """(meta key ``robots:<url>``, JSON of its body) of the robots.txt files kept."""
        return self._q("SELECT key, value FROM meta WHERE key LIKE 'robots:%'")

    def entry_batches(self, size: int) -> Iterator[list[tuple[Any, ...]]]:
        """(id, node_id, line, loc) of every entry, in keyset batches."""
        return self._batches(
            "SELECT id, node_id, line, loc FROM entries WHERE id > ? ORDER BY id LIMIT ?", size
        )

    def video_batches(self, size: int) -> Iterator[list[tuple[Any, ...]]]:
        """(video rowid, entry id, node_id, line of the video or its entry, loc, data JSON) of
        every video, in keyset batches."""
        return self._batches(
            "SELECT v.rowid, e.id, e.node_id, COALESCE(v.line, e.line), e.loc, v.data"
            " FROM videos v JOIN entries e ON e.id = v.entry_id"
            " WHERE v.rowid > ? ORDER BY v.rowid LIMIT ?",
            size,
        )

    def lastmod_instant(self, day: int, node_id: int | None) -> tuple[int, int, str | None] | None:
        """(lastmod, count, a raw value) of the most frequent instant on ``day`` (in one file,
        or the whole set when ``node_id`` is None)."""
        where = "node_id = ? AND " if node_id is not None else ""
        params: list[Any] = [node_id] if node_id is not None else []
        inst = self._q(
            f"SELECT lastmod, COUNT(*) AS c, MIN(lastmod_raw) FROM entries WHERE {where}"
            " lastmod >= ? AND lastmod < ? GROUP BY lastmod ORDER BY c DESC LIMIT 1",
            (*params, day * DAY, (day + 1) * DAY),
        )
        return inst[0] if inst else None

    # -- keys --------------------------------------------------------------------------------
    def fill_keys(self) -> None:
        """Compute the keys of entries stored without them (a store written by an earlier
        version): rows from the parser arrive with them (engine.keys, in the workers)."""
        secret = self.store.signature_key()
        for batch in self._batches(
            "SELECT id, loc FROM entries WHERE alt_n IS NULL AND id > ? ORDER BY id LIMIT ?", FILL_BATCH
        ):
            first, last = batch[0][0], batch[-1][0]
            links: dict[int, list[tuple[str, str]]] = defaultdict(list)
            updates: list[tuple[str | None, str | None, int]] = []
            for rowid, eid, rel, lang, href in self._q(
                "SELECT rowid, entry_id, rel, hreflang, href FROM alternates"
                " WHERE entry_id BETWEEN ? AND ?",
                (first, last),
            ):
                link, link_lang, tgt = link_columns(rel, lang, href)
                updates.append((link_lang, tgt, rowid))
                if link is not None:
                    links[eid].append(link)
            self.conn.executemany("UPDATE alternates SET lang=?, tgt=? WHERE rowid=?", updates)
            self.conn.executemany(
                "UPDATE entries SET key=?, alt_n=?, alt_h=? WHERE id=?",
                [(*entry_columns(loc, links.get(eid, []), secret), eid) for eid, loc in batch],
            )

    def build_keys(self) -> None:
        """``cf_keys``: every entry's URL key (its loc when it has none), indexed on the key."""
        self.temp("cf_keys", CF_KEYS)
        self.conn.execute(
            "INSERT INTO temp.cf_keys(entry_id, node_id, key)"
            " SELECT id, node_id, COALESCE(key, loc) FROM entries WHERE key IS NULL OR key <> ''"
        )
        self.conn.execute("CREATE INDEX temp.cf_keys_key ON cf_keys(key, node_id)")

    def build_alternates(self) -> None:
        """``cf_alt``: the hreflang links of each entry (engine.keys.hreflang_link), with the
        entry's own key as ``src``; ``cf_sig``: per entry, the signature of its set of links."""
        self.temp("cf_alt", CF_ALT)
        self.temp("cf_sig", CF_SIG)
        self.conn.execute(
            "INSERT INTO temp.cf_alt(entry_id, src, lang, tgt, href)"
            " SELECT a.entry_id, k.key, a.lang, COALESCE(a.tgt, a.href), trim(a.href)"
            " FROM alternates a JOIN temp.cf_keys k ON k.entry_id = a.entry_id"
            " WHERE a.lang IS NOT NULL"
        )
        for index in CF_ALT_INDEXES:
            self.conn.execute(index)
        self.conn.execute(
            "INSERT INTO temp.cf_sig SELECT k.entry_id, k.key, e.alt_n, e.alt_h FROM entries e"
            " JOIN temp.cf_keys k ON k.entry_id = e.id WHERE alt_n > 0"
        )
        self.conn.execute("CREATE INDEX temp.cf_sig_src ON cf_sig(src)")

    # -- duplicates --------------------------------------------------------------------------
    def build_duplicates(self, node_order: Sequence[int]) -> None:
        """``cf_dup``: one row per (key in more than one file, file): its first entry in that
        file; ``cf_first``: per such key, the entry of the file first in ``node_order`` (the
        copy the others are reported against). Needs :meth:`build_keys`."""
        self.temp(
            "cf_dup",
            "CREATE TEMP TABLE cf_dup(key TEXT NOT NULL, node_id INTEGER NOT NULL,"
            " entry_id INTEGER NOT NULL)",
        )
        self.conn.execute(
            "INSERT INTO temp.cf_dup SELECT key, node_id, MIN(entry_id) FROM temp.cf_keys"
            " WHERE key IN (SELECT key FROM temp.cf_keys GROUP BY key"
            "  HAVING MIN(node_id) <> MAX(node_id))"
            " GROUP BY key, node_id"
        )
        self.temp(
            "cf_first",
            "CREATE TEMP TABLE cf_first(key TEXT PRIMARY KEY, first_id INTEGER NOT NULL)",
        )
        self.build_rank(node_order)
        # SQLite takes entry_id from the row that has the MIN.
        self.conn.execute(
            "INSERT INTO temp.cf_first SELECT key, entry_id FROM (SELECT d.key AS key,"
            " d.entry_id AS entry_id, MIN(r.rank) FROM temp.cf_dup d"
            " JOIN temp.cf_rank r ON r.node_id = d.node_id GROUP BY d.key)"
        )

    def build_rank(self, node_order: Sequence[int]) -> None:
        """``cf_rank``: each file's place in ``node_order`` (once per run)."""
        if "cf_rank" in self._temp:
            return
        self.temp("cf_rank", "CREATE TEMP TABLE cf_rank(node_id INTEGER PRIMARY KEY, rank INTEGER)")
        self.conn.executemany(
            "INSERT INTO temp.cf_rank VALUES(?, ?)", ((nid, i) for i, nid in enumerate(node_order))
        )

    _DUP_BASE = (
        " FROM temp.cf_dup d JOIN temp.cf_first f ON f.key = d.key"
        " JOIN entries e ON e.id = d.entry_id JOIN entries fe ON fe.id = f.first_id"
        " JOIN nodes n ON n.id = fe.node_id"
    )

    def duplicate_copies(self) -> sqlite3.Cursor:
        """(entry id, node, line, loc, first copy's file URL, its line) of every copy other
        than the first, by entry id."""
        return self._cursor(
            "SELECT d.entry_id, e.node_id, e.line, e.loc, n.url, fe.line"
            + self._DUP_BASE
            + " WHERE d.entry_id <> f.first_id ORDER BY d.entry_id",
        )

    def conflicting_copies(self) -> sqlite3.Cursor:
        """Copies whose lastmod, priority, changefreq or hreflang set differ from the first
        copy's: (entry id, node, line, loc, first's file URL, first's line, lastmod, first's,
        raw lastmod, first's, priority, first's, raw priority, first's, changefreq, first's,
        set signature, first's, set size, first's), by entry id."""
        # An RSS item's date is its publication date, not a modification date: comparing it
        # with a <lastmod> would flag every post that was ever edited.
        no_rss = "ne.kind <> 'rss' AND n.kind <> 'rss'"
        lastmod = f"CASE WHEN {no_rss} THEN e.lastmod END"
        first_lastmod = f"CASE WHEN {no_rss} THEN fe.lastmod END"
        return self._cursor(
            "SELECT d.entry_id, e.node_id, e.line, e.loc, n.url, fe.line,"
            f" {lastmod} AS lm, {first_lastmod} AS flm, e.lastmod_raw, fe.lastmod_raw,"
            " e.priority, fe.priority, e.priority_raw, fe.priority_raw,"
            " e.changefreq, fe.changefreq, se.h, sf.h, se.n, sf.n"
            + self._DUP_BASE
            + " JOIN nodes ne ON ne.id = e.node_id"
            " LEFT JOIN temp.cf_sig se ON se.entry_id = d.entry_id"
            " LEFT JOIN temp.cf_sig sf ON sf.entry_id = f.first_id"
            " WHERE d.entry_id <> f.first_id AND (lm <> flm"
            "  OR e.priority <> fe.priority OR e.changefreq <> fe.changefreq"
            "  OR se.h <> sf.h OR se.n <> sf.n)"
            " ORDER BY d.entry_id",
        )

    # -- hosts -------------------------------------------------------------------------------
    def origin_counts(self, walk: int = ORIGIN_WALK) -> list[tuple[str, str, int, int]]:
        """(scheme, host[:port], keys, first entry id) per origin of the keys.

        A site has few origins, and the keys of one origin are one range of the key index
        (they share the prefix ``scheme://host/``): so hop from range to range and count each
        in the index, which reads no table and sorts nothing (10 M keys: ~1 s, against 12 s
        for a GROUP BY). After ``walk`` hops (a set spread over very many hosts), one GROUP BY
        does the rest. Both give a key without "/" after its host the host "/", as the
        GROUP BY's substr arithmetic always did; the caller ignores it.
        """
        rows: list[tuple[str, str, int, int]] = []
        bound, strict = "", False
        for _ in range(walk):
            op = ">" if strict else ">="
            got = self._q(f"SELECT key FROM temp.cf_keys WHERE key {op} ? ORDER BY key LIMIT 1", (bound,))
            if not got:
                return rows
            key = got[0][0]
            p = key.find("://")
            slash = key.find("/", p + 3) if p >= 0 else -1
            if slash < 0:  # an odd key: counted on its own (GROUP BY below gives the same)
                n, first = self._q(
                    "SELECT COUNT(*), MIN(entry_id) FROM temp.cf_keys WHERE key = ?", (key,)
                )[0]
                if p >= 0:
                    rows.append((key[:p], "/", n, first))
                bound, strict = key, True
                continue
            prefix = key[: slash + 1]
            upper = key[:slash] + "0"  # the first string after every "…/…" with this prefix
            n, first = self._q(
                "SELECT COUNT(*), MIN(entry_id) FROM temp.cf_keys WHERE key >= ? AND key < ?",
                (prefix, upper),
            )[0]
            rows.append((key[:p], key[p + 3 : slash], n, first))
            bound, strict = upper, False
        op = ">" if strict else ">="
        rows += self._q(
            "SELECT scheme, host, COUNT(*), MIN(entry_id) FROM ("
            " SELECT substr(key, 1, p - 1) AS scheme,"
            "  substr(key, p + 3, instr(substr(key, p + 3), '/') - 1) AS host, entry_id"
            f" FROM (SELECT key, instr(key, '://') AS p, entry_id FROM temp.cf_keys WHERE key {op} ?)"
            " WHERE p > 0) GROUP BY scheme, host",
            (bound,),
        )
        return rows

    def first_listed(self, prefixes: Sequence[str], node_order: Sequence[int], lowest: int) -> int:
        """The first entry in the listing's order (the files in ``node_order``, each in its own
        order) whose key starts with one of ``prefixes`` (each ``scheme://host/``); ``lowest``
        is the lowest such entry id, so only the files listed before its file are looked at,
        each through ``entries_node`` up to its first match (a file without one is read
        whole: the price of an answer that does not depend on which file's rows came first)."""
        ranges = [(p, p[:-1] + "0") for p in prefixes]  # "0" is the character after "/"
        match = " OR ".join("(COALESCE(key, loc) >= ? AND COALESCE(key, loc) < ?)" for _ in ranges)
        sql = (
            "SELECT id FROM entries INDEXED BY entries_node WHERE node_id = ?"
            f" AND (key IS NULL OR key <> '') AND ({match}) ORDER BY id LIMIT 1"
        )
        bounds = [b for r in ranges for b in r]
        (hint_node,) = self._q("SELECT node_id FROM entries WHERE id = ?", (lowest,))[0]
        for node_id in node_order:
            if node_id == hint_node:
                break
            got = self._q(sql, (node_id, *bounds))
            if got:
                return int(got[0][0])
        return lowest

    def slash_variants(self, index_names: Sequence[str], node_order: Sequence[int]) -> sqlite3.Cursor:
        """(variant entry id, plain entry id) per pair of keys that differ only by a trailing
        slash (``/a`` and ``/a/``) or by an index page (``/dir/`` and ``/dir/<index name>``),
        one per pair of keys, by variant. A key listed more than once is named by its first
        copy in the listing (``node_order``, then the file's own order), not by its lowest
        entry id, which follows the order the files' rows arrived in."""
        self.build_rank(node_order)
        # Each pair is found by probing the key index from one side. Probing from every key costs
        # a B-tree descent per URL (35 s on 10 M URLs); a site's URLs mostly either end in "/" or
        # do not, so probe from the rarer side, and for /dir/ vs /dir/index.html from the index
        # pages (few). Which side is rarer only matters for speed: a sample of the keys tells
        # (counting all of them is a scan of its own, 1.5 s on 10 M URLs).
        slashed, total = self._q(
            "SELECT COALESCE(SUM(substr(key, -1) = '/'), 0), COUNT(*) FROM"
            f" (SELECT key FROM temp.cf_keys ORDER BY entry_id LIMIT {SIDE_SAMPLE})"
        )[0]
        if slashed <= total - slashed:
            plain_pairs = (
                " SELECT b.entry_id AS v, a.entry_id AS p, b.node_id AS vn, a.node_id AS pn,"
                " a.key AS ak, b.key AS bk"
                " FROM temp.cf_keys b JOIN temp.cf_keys a ON a.key = substr(b.key, 1, length(b.key) - 1)"
                " WHERE substr(b.key, -1) = '/' AND substr(a.key, -1) <> '/' AND instr(a.key, '?') = 0"
            )
        else:
            plain_pairs = (
                " SELECT b.entry_id AS v, a.entry_id AS p, b.node_id AS vn, a.node_id AS pn,"
                " a.key AS ak, b.key AS bk"
                " FROM temp.cf_keys a JOIN temp.cf_keys b ON b.key = a.key || '/'"
                " WHERE substr(a.key, -1) <> '/' AND instr(a.key, '?') = 0"
            )
        # one scan for every index page name (a key ends in at most one of them)
        cut = " ".join(
            f"WHEN substr(key, -{len(name) + 1}) = '/{name}' THEN {len(name)}" for name in index_names
        )
        index_pairs = (
            " SELECT b.entry_id, a.entry_id, b.node_id, a.node_id, a.key, b.key"
            f" FROM (SELECT entry_id, node_id, key, CASE {cut} END AS cut FROM temp.cf_keys) b"
            " JOIN temp.cf_keys a ON a.key = substr(b.key, 1, length(b.key) - b.cut)"
            " WHERE b.cut IS NOT NULL AND substr(a.key, -1) = '/' AND instr(a.key, '?') = 0"
        )
        # each side's first copy: the lowest (rank, entry id), packed in one integer
        return self._cursor(
            f"SELECT {entry_of(first_of('rv.rank', 'v'))}, {entry_of(first_of('rp.rank', 'p'))}"
            f" FROM ({plain_pairs} UNION ALL {index_pairs})"
            " JOIN temp.cf_rank rv ON rv.node_id = vn JOIN temp.cf_rank rp ON rp.node_id = pn"
            " GROUP BY ak, bk ORDER BY 1"
        )

    # -- hreflang ----------------------------------------------------------------------------
    def hreflang_targets_not_listed(self) -> sqlite3.Cursor:
        """(entry id, href) per hreflang target of an entry that no entry of the set is."""
        return self._cursor(
            "SELECT a.entry_id, MIN(a.href) FROM temp.cf_alt a WHERE a.tgt <> a.src"
            " AND NOT EXISTS (SELECT 1 FROM temp.cf_keys k WHERE k.key = a.tgt)"
            " GROUP BY a.entry_id, a.tgt ORDER BY a.entry_id, a.tgt",
        )

    def hreflang_without_return(self) -> sqlite3.Cursor:
        """(entry id, href) per listed hreflang target that does not link back to the entry."""
        return self._cursor(
            "SELECT a.entry_id, MIN(a.href) FROM temp.cf_alt a WHERE a.tgt <> a.src"
            " AND EXISTS (SELECT 1 FROM temp.cf_keys k WHERE k.key = a.tgt)"
            " AND NOT EXISTS (SELECT 1 FROM temp.cf_alt r WHERE r.src = a.tgt"
            "  AND r.tgt = a.src)"
            " GROUP BY a.entry_id, a.tgt ORDER BY a.entry_id, a.tgt",
        )

    def hreflang_other_sets(self) -> sqlite3.Cursor:
        """(entry id, an entry of its cluster with another set of links) per entry whose
        hreflang set differs from one of its targets' sets."""
        return self._cursor(
            "SELECT a.entry_id, MIN(sb.entry_id) FROM temp.cf_alt a"
            " JOIN temp.cf_sig sa ON sa.entry_id = a.entry_id"
            " JOIN temp.cf_sig sb ON sb.src = a.tgt AND (sb.h <> sa.h OR sb.n <> sa.n)"
            " WHERE a.tgt <> a.src GROUP BY a.entry_id ORDER BY a.entry_id",
        )

    def hreflang_source(self, entry_id: int) -> str | None:
        """The key of an entry with hreflang links (what its links' targets are compared with)."""
        row = self._q("SELECT src FROM temp.cf_sig WHERE entry_id=?", (entry_id,))
        return row[0][0] if row else None

    def hreflang_links(self, entry_id: int) -> list[tuple[str, str]]:
        """(language, target key) of one entry's hreflang links."""
        return self._q("SELECT lang, tgt FROM temp.cf_alt WHERE entry_id=?", (entry_id,))

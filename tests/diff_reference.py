"""The comparison's SQL as it was before the one-pass rewrite (engine/store/diff.py and
diff_view.build_view at 04d0c77), kept verbatim as the reference that
tests/test_diff_equivalence.py holds the rewrite to: every count, list and compare-mode table
the same on generated pairs of explorations. Not used by the program.

One change since: a URL's first listing in a tree is the one in the file first in the listing's
order (the caller's order of load_files, OLD's files first), not the least entry id, which
varied with the order files were parsed in (``franks``)."""
# ruff: noqa
from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitemap_tui.engine.keys import url_key
from sitemap_tui.engine.store.file import StoreError, identify
from sitemap_tui.engine.store.schema import connect

SIDES = ("old", "new")
NOT_FILES = ("site", "directory")  # synthetic roots: no file of their own
NOT_SITEMAPS = ("site", "directory", "robots")
CACHE_KIB = 16_384  # SQLite's page cache per database: the comparison's memory, whatever the size


@dataclass(frozen=True, slots=True)
class NodeRow:
    """A node of one store, for the caller to key."""

    id: int
    url: str
    kind: str
    parent_id: int | None
    line: int | None = None


@dataclass(frozen=True, slots=True)
class SitemapChange:
    key: str
    old_url: str | None
    new_url: str | None
    old_state: str | None
    new_state: str | None
    old_urls: int | None
    new_urls: int | None
    urls_added: int  # listings of this file that the other tree's same file lacks
    urls_removed: int
    error: str | None  # NEW's error (a failing file), else OLD's
    unlisted_by: str | None = None  # (set after the comparison: session.diff.mark_unlisted)

    @property
    def status(self) -> str:
        if self.old_url is None:
            return "added"
        if self.new_url is None:
            return "removed"
        if self.new_state == "failed" and self.old_state != "failed":
            return "failing"
        if self.old_state == "failed" and self.new_state != "failed":
            return "recovered"
        if self.urls_added or self.urls_removed or (self.old_urls or 0) != (self.new_urls or 0):
            return "changed"
        return "same"


def _key(e: str, has_key: bool) -> str:
    """The URL key of entries row ``e``: stored_key's NULL means the loc itself, '' none; a row
    whose keys were never computed (alt_n NULL, an earlier version's) gets it computed here."""
    if not has_key:
        return f"urlkey({e}.loc)"
    return (f"CASE WHEN {e}.key IS NULL THEN CASE WHEN {e}.alt_n IS NULL THEN urlkey({e}.loc) ELSE {e}.loc END"
            f" WHEN {e}.key = '' THEN NULL ELSE {e}.key END")


class DiffQueries:
    """OLD and NEW attached to a scratch database at ``scratch`` (created, and left for the
    caller to remove)."""

    def __init__(self, old: Path, new: Path, scratch: Path, *,
                 map_host: Callable[[str | None], str | None] | None = None) -> None:
        self.paths = {"old": Path(old), "new": Path(new)}
        for side in SIDES:
            probe = connect(self.paths[side], readonly=True)
            try:
                identify(probe, self.paths[side])  # another program's database is refused here
            except sqlite3.DatabaseError as exc:
                if isinstance(exc, StoreError):
                    raise
                raise StoreError(self.paths[side], f"cannot be read ({exc})") from exc
            finally:
                probe.close()
        # a URI connection of its own: ATTACH reads the stores through ``?mode=ro`` URIs, so that
        # not a byte of a saved exploration can change
        self.conn = sqlite3.connect(Path(scratch).resolve().as_uri(), uri=True, isolation_level=None)
        try:
            self.conn.create_function("urlkey", 1, url_key, deterministic=True)
            self.mapped = map_host is not None
            if map_host is not None:
                self.conn.create_function("maphost", 1, map_host, deterministic=True)
            self.conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
            self.conn.execute("PRAGMA temp_store=FILE")  # sorts spill to disk rather than grow
            self.conn.execute("PRAGMA journal_mode=OFF")  # scratch: nothing to recover
            for side in SIDES:
                uri = self.paths[side].resolve().as_uri() + "?mode=ro"
                self.conn.execute(f"ATTACH DATABASE ? AS {side}", (uri,))
                self.conn.execute(f"PRAGMA {side}.cache_size=-{CACHE_KIB}")
            self.columns = {side: self._columns(side) for side in SIDES}
        except BaseException:
            self.conn.close()
            raise

    def _columns(self, side: str) -> dict[str, set[str]]:
        return {table: {row[1] for row in self.conn.execute(f"PRAGMA {side}.table_info({table})")}
                for table in ("entries", "alternates")}

    def close(self) -> None:
        self.conn.close()

    def _m(self, expr: str) -> str:
        return f"maphost({expr})" if self.mapped else expr

    # -- what each store holds -------------------------------------------------------------------
    def meta(self, side: str, key: str) -> str | None:
        row = self.conn.execute(f"SELECT value FROM {side}.meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def nodes(self, side: str) -> list[NodeRow]:
        return [NodeRow(*row) for row in self.conn.execute(
            f"SELECT id, url, kind, parent_id, line FROM {side}.nodes ORDER BY id")]

    def totals(self, side: str) -> tuple[int, int]:
        """(files fetched or failed, entries with a URL key)."""
        files = self.conn.execute(
            f"SELECT count(*) FROM {side}.nodes WHERE kind NOT IN {NOT_FILES} AND state IN ('done', 'failed')"
        ).fetchone()[0]
        urls = self.conn.execute(f"SELECT count(*) FROM {side[0]}_first").fetchone()[0]
        return int(files), int(urls)

    def load_files(self, side: str, keys: Iterable[tuple[int, str]]) -> None:
        """Each node's file key (``(node id, key)``), from the caller."""
        s = side[0]
        self.conn.execute(f"CREATE TABLE {s}_files(id INTEGER PRIMARY KEY, fk TEXT NOT NULL)")
        keys = list(keys)
        self.conn.executemany(f"INSERT INTO {s}_files VALUES(?, ?)", keys)
        self.conn.execute("CREATE TABLE IF NOT EXISTS franks(fk TEXT PRIMARY KEY, r INTEGER)")
        for _, fk in keys:
            self.conn.execute("INSERT OR IGNORE INTO franks VALUES(?, (SELECT count(*) FROM franks))", (fk,))

    # -- the comparison ----------------------------------------------------------------------------
    def build(self) -> None:
        """Every table of the comparison (module docstring); load_files first, for both sides."""
        c = self.conn
        c.execute("BEGIN")
        for side in SIDES:
            s = side[0]
            has_key = "key" in self.columns[side]["entries"]
            c.execute(f"CREATE TABLE {s}_pairs(k TEXT, fk TEXT, e INTEGER, PRIMARY KEY(k, fk)) WITHOUT ROWID")
            # entries are scanned in id order: OR IGNORE keeps a file's first listing of a URL
            c.execute(
                f"INSERT OR IGNORE INTO {s}_pairs SELECT k, fk, id FROM ("
                f" SELECT {self._m(_key('e', has_key))} AS k, f.fk AS fk, e.id AS id"
                f" FROM {side}.entries e JOIN {s}_files f ON f.id = e.node_id ORDER BY e.id)"
                " WHERE k IS NOT NULL")
            c.execute(f"CREATE TABLE {s}_first(k TEXT PRIMARY KEY, e INTEGER, fk TEXT) WITHOUT ROWID")
            # (OR IGNORE keeps each key's row of the file first in the listing's order)
            c.execute(f"INSERT OR IGNORE INTO {s}_first SELECT p.k, p.e, p.fk FROM {s}_pairs p"
                      " JOIN franks r ON r.fk = p.fk ORDER BY p.k, r.r")
            c.execute(f"CREATE TABLE {s}_sm(fk TEXT PRIMARY KEY, id INTEGER, url TEXT, kind TEXT, state TEXT,"
                      " urls INTEGER, error TEXT) WITHOUT ROWID")
            c.execute(f"INSERT OR IGNORE INTO {s}_sm SELECT f.fk, n.id, n.url, n.kind, n.state, n.url_count, n.error"
                      f" FROM {side}.nodes n JOIN {s}_files f ON f.id = n.id"
                      f" WHERE n.kind NOT IN {NOT_SITEMAPS} ORDER BY n.id")
        c.execute("CREATE TABLE common(k TEXT PRIMARY KEY, oe INTEGER, ne INTEGER, ofk TEXT, nfk TEXT) WITHOUT ROWID")
        c.execute("INSERT INTO common SELECT o.k, o.e, n.e, o.fk, n.fk FROM o_first o JOIN n_first n ON n.k = o.k")
        for table, one, other in (("added", "n", "o"), ("removed", "o", "n")):
            c.execute(f"CREATE TABLE {table}(k TEXT PRIMARY KEY, e INTEGER, fk TEXT) WITHOUT ROWID")
            c.execute(f"INSERT INTO {table} SELECT k, e, fk FROM {one}_first a"
                      f" WHERE NOT EXISTS (SELECT 1 FROM {other}_first b WHERE b.k = a.k)")
        # moved: in both trees, but no sitemap file lists it in both
        c.execute("CREATE TABLE moved(k TEXT PRIMARY KEY) WITHOUT ROWID")
        # (a URL first listed by the same file in both lists that file in both: not moved, and
        # that is nearly every URL, which then costs no lookup in the pair tables)
        c.execute("INSERT INTO moved SELECT c.k FROM common c WHERE c.ofk IS NOT c.nfk AND NOT EXISTS ("
                  " SELECT 1 FROM o_pairs p JOIN n_pairs q ON q.k = p.k AND q.fk = p.fk WHERE p.k = c.k)")
        self._build_entry_changes()
        self._build_extensions()
        self._build_issues()
        c.execute("COMMIT")

    def _build_entry_changes(self) -> None:
        """One pass over the URLs in both trees (two entry lookups each) keeps those whose lastmod,
        changefreq or priority differ, or that have extension elements on either side; the
        tables below read only those."""
        c = self.conn
        # the parsed value when there is one ('0.5' and '0.50' are one priority), else the raw text
        differs = {what: (f"CASE WHEN trim(o.{what}_raw) IS trim(n.{what}_raw) THEN 0"
                          f" WHEN o.{what} IS NULL AND n.{what} IS NULL"
                          f" THEN trim(o.{what}_raw) IS NOT trim(n.{what}_raw) ELSE o.{what} IS NOT n.{what} END")
                   for what in ("changefreq", "priority")}
        counts = ("n_images", "n_videos", "n_news", "n_alternates")
        c.execute("CREATE TABLE touched(k TEXT PRIMARY KEY, oe INTEGER, ne INTEGER, lastmod TEXT,"
                  " changefreq INTEGER, priority INTEGER, ext INTEGER) WITHOUT ROWID")
        c.execute(
            "INSERT INTO touched SELECT * FROM (SELECT c.k, c.oe, c.ne,"
            " CASE WHEN o.lastmod IS n.lastmod THEN NULL WHEN o.lastmod IS NULL THEN 'set'"
            " WHEN n.lastmod IS NULL THEN 'cleared' WHEN n.lastmod > o.lastmod THEN 'forward' ELSE 'backward' END AS lm,"
            f" {differs['changefreq']} AS cf, {differs['priority']} AS pr,"
            f" ({' + '.join(f'o.{n} + n.{n}' for n in counts)}) > 0 AS ext"
            " FROM common c JOIN old.entries o ON o.id = c.oe JOIN new.entries n ON n.id = c.ne)"
            " WHERE lm IS NOT NULL OR cf OR pr OR ext")
        c.execute("CREATE TABLE lastmod(k TEXT PRIMARY KEY, direction TEXT) WITHOUT ROWID")
        c.execute("INSERT INTO lastmod SELECT k, lastmod FROM touched WHERE lastmod IS NOT NULL")
        c.execute("CREATE TABLE attrs(k TEXT, what TEXT, PRIMARY KEY(what, k)) WITHOUT ROWID")
        for what in ("changefreq", "priority"):
            c.execute(f"INSERT INTO attrs SELECT k, '{what}' FROM touched WHERE {what}")

    def _identity(self, kind: str, x: str, side: str) -> str:
        """What tells two of an entry's extension elements apart (one per kind)."""
        if kind == "images":
            return self._m(f"{x}.loc")
        if kind == "videos":
            return self._m(f"COALESCE(json_extract({x}.data, '$.fields.content_loc'),"
                           f" json_extract({x}.data, '$.fields.player_loc'), {x}.data)")
        if kind == "news":
            return (f"COALESCE({x}.publication_name, '') || char(31) || COALESCE({x}.language, '') || char(31)"
                    f" || COALESCE({x}.title, '') || char(31) || COALESCE({x}.publication_date, '')")
        target = f"COALESCE({x}.tgt, {x}.href)" if "tgt" in self.columns[side]["alternates"] else f"{x}.href"
        return (f"lower(trim(COALESCE({x}.hreflang, ''))) || ' ' || COALESCE({x}.rel, '') || ' '"
                f" || COALESCE({self._m(target)}, '')")

    def _build_extensions(self) -> None:
        c = self.conn
        c.execute("CREATE TABLE ext(k TEXT, kind TEXT, added INTEGER, removed INTEGER,"
                  " PRIMARY KEY(k, kind)) WITHOUT ROWID")
        for kind, table, count in (("images", "images", "n_images"), ("videos", "videos", "n_videos"),
                                   ("news", "news", "n_news"), ("hreflang", "alternates", "n_alternates")):
            xn, yo = self._identity(kind, "x", "new"), self._identity(kind, "y", "old")
            xo, yn = self._identity(kind, "x", "old"), self._identity(kind, "y", "new")
            c.execute(
                f"INSERT INTO ext SELECT k, '{kind}', a, r FROM (SELECT c.k AS k,"
                f" (SELECT count(DISTINCT {xn}) FROM new.{table} x WHERE x.entry_id = c.ne AND {xn} NOT IN"
                f"  (SELECT {yo} FROM old.{table} y WHERE y.entry_id = c.oe AND {yo} IS NOT NULL)) AS a,"
                f" (SELECT count(DISTINCT {xo}) FROM old.{table} x WHERE x.entry_id = c.oe AND {xo} NOT IN"
                f"  (SELECT {yn} FROM new.{table} y WHERE y.entry_id = c.ne AND {yn} IS NOT NULL)) AS r"
                f" FROM touched c JOIN old.entries o ON o.id = c.oe JOIN new.entries n ON n.id = c.ne"
                f" WHERE c.ext AND (o.{count} > 0 OR n.{count} > 0)) WHERE a > 0 OR r > 0")

    def _build_issues(self) -> None:
        """A finding is the same in both trees when its rule, file and URL are: line numbers and
        messages (which may quote a line) move with any edit above them."""
        c = self.conn
        for side in SIDES:
            s = side[0]
            has_key = "key" in self.columns[side]["entries"]
            uk = f"CASE WHEN e.id IS NOT NULL THEN {self._m(_key('e', has_key))} ELSE {self._m('urlkey(i.url)')} END"
            c.execute(f"CREATE TABLE {s}_iss(rule TEXT, fk TEXT, uk TEXT, n INTEGER, first INTEGER,"
                      " PRIMARY KEY(rule, fk, uk)) WITHOUT ROWID")
            c.execute(f"INSERT INTO {s}_iss SELECT rule, fk, uk, count(*), min(id) FROM ("
                      f" SELECT i.rule AS rule, COALESCE(f.fk, '') AS fk, COALESCE({uk}, i.url, '') AS uk, i.id AS id"
                      f" FROM {side}.issues i LEFT JOIN {s}_files f ON f.id = i.node_id"
                      f" LEFT JOIN {side}.entries e ON e.id = i.entry_id) GROUP BY rule, fk, uk")

    # -- counts ----------------------------------------------------------------------------------
    def count(self, table: str, where: str = "") -> int:
        return int(self.conn.execute(f"SELECT count(*) FROM {table} {where}").fetchone()[0])

    def lastmod_counts(self) -> dict[str, int]:
        return {d: int(n) for d, n in self.conn.execute("SELECT direction, count(*) FROM lastmod GROUP BY direction")}

    def attr_counts(self) -> dict[str, int]:
        return {w: int(n) for w, n in self.conn.execute("SELECT what, count(*) FROM attrs GROUP BY what")}

    def ext_counts(self) -> dict[str, int]:
        """URLs whose extension elements of each kind changed."""
        return {k: int(n) for k, n in self.conn.execute("SELECT kind, count(*) FROM ext GROUP BY kind")}

    def issue_counts(self, new: bool) -> dict[str, int]:
        """Findings new (or resolved) by rule: a (rule, file, URL) found more often than before."""
        one, other = ("n", "o") if new else ("o", "n")
        return {rule: int(n) for rule, n in self.conn.execute(
            f"SELECT a.rule, sum(a.n - COALESCE(b.n, 0)) FROM {one}_iss a LEFT JOIN {other}_iss b"
            " ON b.rule = a.rule AND b.fk = a.fk AND b.uk = a.uk WHERE a.n > COALESCE(b.n, 0)"
            " GROUP BY a.rule ORDER BY a.rule")}

    # -- the lists, streamed in key order ------------------------------------------------------
    def _stream(self, sql: str, params: tuple[Any, ...] = (), limit: int | None = None) -> Iterator[tuple[Any, ...]]:
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        cur = self.conn.execute(sql, params)
        while rows := cur.fetchmany(2000):
            yield from rows

    def urls(self, table: str, limit: int | None = None) -> Iterator[tuple[str, str | None, str | None]]:
        """(key, loc as listed, sitemap file key) of ``added`` or ``removed``."""
        side = "new" if table == "added" else "old"
        return self._stream(f"SELECT a.k, e.loc, a.fk FROM {table} a LEFT JOIN {side}.entries e ON e.id = a.e"
                            " ORDER BY a.k", limit=limit)

    def moved(self, limit: int | None = None) -> Iterator[tuple[str, str, str]]:
        """(key, OLD's sitemap file key, NEW's)."""
        return self._stream("SELECT m.k, c.ofk, c.nfk FROM moved m JOIN common c ON c.k = m.k ORDER BY m.k",
                            limit=limit)

    def lastmod(self, direction: str | None = None, limit: int | None = None) -> Iterator[tuple[Any, ...]]:
        """(key, direction, old raw, new raw, old unix s, new unix s, NEW's sitemap file key)."""
        where = "WHERE l.direction = ?" if direction else ""
        return self._stream(
            "SELECT l.k, l.direction, o.lastmod_raw, n.lastmod_raw, o.lastmod, n.lastmod, c.nfk FROM lastmod l"
            " JOIN common c ON c.k = l.k JOIN old.entries o ON o.id = c.oe JOIN new.entries n ON n.id = c.ne"
            f" {where} ORDER BY l.k", (direction,) if direction else (), limit)

    def attrs(self, what: str, limit: int | None = None) -> Iterator[tuple[Any, ...]]:
        """(key, old raw, new raw, NEW's sitemap file key) of a changefreq or priority change."""
        return self._stream(
            f"SELECT a.k, o.{what}_raw, n.{what}_raw, c.nfk FROM attrs a JOIN common c ON c.k = a.k"
            " JOIN old.entries o ON o.id = c.oe JOIN new.entries n ON n.id = c.ne"
            " WHERE a.what = ? ORDER BY a.k", (what,), limit)

    def extensions(self, kind: str | None = None, limit: int | None = None) -> Iterator[tuple[Any, ...]]:
        """(key, kind, added, removed, NEW's sitemap file key)."""
        where = "WHERE x.kind = ?" if kind else ""
        return self._stream(f"SELECT x.k, x.kind, x.added, x.removed, c.nfk FROM ext x JOIN common c ON c.k = x.k"
                            f" {where} ORDER BY x.k, x.kind", (kind,) if kind else (), limit)

    def issues(self, new: bool, limit: int | None = None) -> Iterator[tuple[Any, ...]]:
        """(rule, severity, file key, URL key, how many more, message) of findings new (or
        resolved), the message of their first occurrence in the tree that has them."""
        one, other, side = ("n", "o", "new") if new else ("o", "n", "old")
        return self._stream(
            f"SELECT a.rule, i.severity, a.fk, a.uk, a.n - COALESCE(b.n, 0), i.message FROM {one}_iss a"
            f" LEFT JOIN {other}_iss b ON b.rule = a.rule AND b.fk = a.fk AND b.uk = a.uk"
            f" JOIN {side}.issues i ON i.id = a.first"
            " WHERE a.n > COALESCE(b.n, 0) ORDER BY a.rule, a.fk, a.uk", limit=limit)

    def sitemaps(self) -> Iterator[SitemapChange]:
        """Every sitemap file of either tree, by file key, with its listings added and removed."""
        c = self.conn
        c.execute("CREATE TEMP TABLE IF NOT EXISTS pair_counts(fk TEXT PRIMARY KEY, added INTEGER, removed INTEGER)"
                  " WITHOUT ROWID")
        c.execute("DELETE FROM pair_counts")
        for one, other, column in (("n", "o", "added"), ("o", "n", "removed")):
            c.execute(
                f"INSERT INTO pair_counts(fk, {column}) SELECT fk, count(*) FROM {one}_pairs p"
                f" WHERE NOT EXISTS (SELECT 1 FROM {other}_pairs q WHERE q.k = p.k AND q.fk = p.fk) GROUP BY fk"
                f" ON CONFLICT(fk) DO UPDATE SET {column} = excluded.{column}")
        rows = self._stream(
            "SELECT k.fk, o.url, n.url, o.state, n.state, o.urls, n.urls,"
            " COALESCE(p.added, 0), COALESCE(p.removed, 0), COALESCE(n.error, o.error)"
            " FROM (SELECT fk FROM o_sm UNION SELECT fk FROM n_sm) k"
            " LEFT JOIN o_sm o ON o.fk = k.fk LEFT JOIN n_sm n ON n.fk = k.fk"
            " LEFT JOIN pair_counts p ON p.fk = k.fk ORDER BY k.fk")
        for row in rows:
            yield SitemapChange(*row)


REMOVED_BASE = 1 << 40


def build_view(conn: sqlite3.Connection) -> None:
    """The tables of the module docstring, on the DiffQueries connection ``conn`` (after build)."""
    c = conn
    c.execute("BEGIN")
    c.execute("CREATE TABLE v_marks(what TEXT, e INTEGER, PRIMARY KEY(what, e)) WITHOUT ROWID")
    changed_keys = ("SELECT k FROM lastmod UNION SELECT k FROM attrs UNION SELECT k FROM ext")
    marks = [("added", "SELECT k FROM added"), ("moved", "SELECT k FROM moved"),
             ("lastmod", "SELECT k FROM lastmod"), ("attrs", "SELECT k FROM attrs"), ("ext", "SELECT k FROM ext")]
    marks += [(f"lastmod-{name}", f"SELECT k FROM lastmod WHERE direction = '{direction}'")
              for name, direction in (("forward", "forward"), ("back", "backward"), ("set", "set"),
                                      ("cleared", "cleared"))]
    marks += [(what, f"SELECT k FROM attrs WHERE what = '{what}'") for what in ("changefreq", "priority")]
    marks += [(kind, f"SELECT k FROM ext WHERE kind = '{kind}'") for kind in ("images", "videos", "news", "hreflang")]
    for what, keys in marks:  # one row per URL: NEW's first listing
        c.execute(f"INSERT OR IGNORE INTO v_marks SELECT '{what}', n.e FROM n_first n WHERE n.k IN ({keys})")
    root = "(SELECT min(id) FROM new.nodes WHERE parent_id IS NULL)"
    c.execute("CREATE TABLE v_removed(id INTEGER PRIMARY KEY, node_id INTEGER, loc TEXT, line INTEGER,"
              " lastmod_raw TEXT, lastmod INTEGER, changefreq_raw TEXT, priority_raw TEXT, n_images INTEGER,"
              " n_videos INTEGER, n_news INTEGER, n_alternates INTEGER, n_issues INTEGER, priority REAL,"
              " changefreq TEXT, sitemap TEXT, sitemap_lastmod TEXT)")
    c.execute(
        f"INSERT OR IGNORE INTO v_removed SELECT o.id - {REMOVED_BASE}, COALESCE((SELECT min(f.id) FROM n_files f WHERE f.fk = r.fk),"
        f" {root}), o.loc, o.line, o.lastmod_raw, o.lastmod, o.changefreq_raw, o.priority_raw,"
        " o.n_images, o.n_videos, o.n_news, o.n_alternates, 0, o.priority, o.changefreq,"
        " (SELECT COALESCE(n.final_url, n.url) FROM old.nodes n WHERE n.id = o.node_id),"
        " (SELECT n.lastmod_raw FROM old.nodes n WHERE n.id = o.node_id)"
        " FROM removed r JOIN old.entries o ON o.id = r.e")
    for column in ("loc", "lastmod", "priority", "node_id"):  # the URL table's sort orders walk these
        c.execute(f"CREATE INDEX v_removed_{column} ON v_removed({column}, id)")
    c.execute("INSERT INTO v_marks SELECT 'removed', id FROM v_removed")
    c.execute("CREATE TABLE v_files(id INTEGER PRIMARY KEY, added INTEGER, removed INTEGER, changed INTEGER)")
    c.execute("INSERT INTO v_files(id, added, removed, changed) SELECT id, 0, 0, 0 FROM new.nodes")
    per_fk = {
        "added": "SELECT p.fk, count(*) AS n FROM n_pairs p WHERE NOT EXISTS"
                 " (SELECT 1 FROM o_pairs q WHERE q.k = p.k AND q.fk = p.fk) GROUP BY p.fk",
        "removed": "SELECT p.fk, count(*) AS n FROM o_pairs p WHERE NOT EXISTS"
                   " (SELECT 1 FROM n_pairs q WHERE q.k = p.k AND q.fk = p.fk) GROUP BY p.fk",
        "changed": f"SELECT p.fk, count(*) AS n FROM n_pairs p WHERE p.k IN ({changed_keys}) GROUP BY p.fk",
    }
    c.execute("CREATE TEMP TABLE v_fk(fk TEXT, what TEXT, n INTEGER)")
    for what, sql in per_fk.items():
        c.execute(f"INSERT INTO v_fk SELECT x.fk, '{what}', x.n FROM ({sql}) x")
    for what in per_fk:
        # a file NEW has gets its own counts; one it lacks (a removed sitemap) counts at the root
        c.execute(f"UPDATE v_files SET {what} = {what} + COALESCE((SELECT sum(v.n) FROM v_fk v"
                  f" JOIN n_files f ON f.fk = v.fk WHERE f.id = v_files.id AND v.what = '{what}'), 0)")
        c.execute(f"UPDATE v_files SET {what} = {what} + (SELECT COALESCE(sum(v.n), 0) FROM v_fk v"
                  f" WHERE v.what = '{what}' AND NOT EXISTS (SELECT 1 FROM n_files f WHERE f.fk = v.fk))"
                  f" WHERE id = {root}")
    c.execute("CREATE TABLE v_badges(id INTEGER PRIMARY KEY, added INTEGER, removed INTEGER, changed INTEGER)")
    c.execute(
        "INSERT INTO v_badges WITH RECURSIVE up(id, node) AS ("
        " SELECT id, id FROM new.nodes"
        " UNION ALL SELECT u.id, n.parent_id FROM up u JOIN new.nodes n ON n.id = u.node WHERE n.parent_id IS NOT NULL)"
        " SELECT u.node, sum(f.added), sum(f.removed), sum(f.changed) FROM up u JOIN v_files f ON f.id = u.id"
        " GROUP BY u.node")
    c.execute("COMMIT")



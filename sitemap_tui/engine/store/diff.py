"""The queries of ``sitemap-tui diff``: two stores compared in SQL, never as Python sets.

A scratch database (a temporary file the caller names) ATTACHes both stores read-only as
``old`` and ``new`` and holds the comparison's tables, built once by :meth:`DiffQueries.build`:

- ``fks``: each sitemap file key of either tree as a small integer (``o_files`` / ``n_files``:
  each node's key and integer);
- ``pairs``: one row per (URL key, file) of either tree, with each tree's first entry listing it
  there; ``pair_counts``: per file, the listings the other tree's same file lacks;
- ``delta``: from one pass over ``pairs`` in key order, the URL keys that changed in any way,
  with each tree's first listing (entry, file): in the file first in the listing's order that
  lists the key, its first entry there; from it ``added`` / ``removed`` (the keys of one
  tree only), ``moved``, ``lastmod``, ``attrs`` (changefreq, priority) and ``ext`` (extension
  changes);
- ``o_iss`` / ``n_iss``: findings counted by (rule, file key, URL key).

The tables are B-trees on disk with SQLite's page cache capped, so two 10 M-URL stores compare
in bounded memory; the unchanged keys (nearly all) are written nowhere but ``pairs``, and the
lists are streamed back in key order.

URL keys are the stores' own ``entries.key`` (engine.keys.url_key, the key the duplicate rules
join on); rows of a store written before the key existed get it from the ``urlkey`` function.
File keys are the caller's (a local tree's files are keyed by their path under its folder), given
to :meth:`DiffQueries.load_files` in the listing's order (engine.tree_order), OLD's first: a
file's place in that order, not its id (ids follow the order files were parsed in, which varies
with several workers), picks a URL's first listing, so the same two explorations compare the
same every time and a URL two files list is compared in the same file on both sides.
``map_host``, when given, rewrites every key (URL, file, image, hreflang target) before it is
compared.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitemap_tui.engine.findings import words_of
from sitemap_tui.engine.keys import url_key
from sitemap_tui.engine.store.file import StoreError, identify
from sitemap_tui.engine.store.packed import ENTRY_MASK, PLACE_MAX, entry_of, first_of, place_of
from sitemap_tui.engine.store.schema import at_rest, connect, readonly_uri

SIDES = ("old", "new")
NOT_FILES = ("site", "directory")  # synthetic roots: no file of their own
NOT_SITEMAPS = ("site", "directory", "robots")
CACHE_KIB = 16_384  # SQLite's page cache per database: the comparison's memory, whatever the size
SCRATCH_PAGE = 16_384
FILE_MASK = PLACE_MAX  # a first listing is its file and entry id packed (store/packed.py)


@dataclass(frozen=True, slots=True)
class NodeRow:
    """A node of one store, for the caller to key."""

    id: int
    url: str
    kind: str
    parent_id: int | None
    line: int | None = None  # its line in its parent (the listing's order: engine.tree_order)


CUT = "({0}.state = 'done' AND {0}.truncated_at IS NOT NULL)"
"""A fetched file whose parse stopped early (SQL over the nodes row ``{0}``)."""

UNREAD = ("pending", "skipped")
"""A listed file's states when its exploration never fetched it."""


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
    # read in part: its parse stopped early (a fatal XML error, a cap on a hostile file), what
    # came after it unknown (nodes.truncated_at)
    old_cut: bool = False
    new_cut: bool = False
    # a file of one side only, because the file that lists it (or one above) failed, was cut
    # short or was not fetched on the other: that file's key and its state there, "cut" for
    # cut short (session.diff.mark_unlisted)
    unlisted_by: str | None = None
    unlisted_state: str | None = None

    def broken_on(self, side: str) -> bool:
        """``side`` fetched this file and could not read it whole: failed, or cut short."""
        return (self.old_state == "failed" or self.old_cut) if side == "old" else \
            (self.new_state == "failed" or self.new_cut)

    def unread_on(self, side: str) -> bool:
        """``side`` ("old" or "new") never read this file: listed there but not fetched, or
        not listed because what lists it could not be read there."""
        state, url = (self.old_state, self.old_url) if side == "old" else (self.new_state, self.new_url)
        return state in UNREAD or (url is None and self.unlisted_by is not None)

    @property
    def one_side_unread(self) -> bool:
        """Fetched (or failed) on one side, never read on the other."""
        return self.unread_on("old") != self.unread_on("new")

    @property
    def status(self) -> str:
        if self.unlisted_by is not None:
            return "unfetched"  # (its index failed on a side: not "removed", nor "added")
        if self.old_url is None:
            return "added"
        if self.new_url is None:
            return "removed"
        if self.broken_on("new") and not self.broken_on("old"):
            # (whatever OLD knew of it: it fails now; cut short, its URLs after the break are
            # not known removed: found from outside, a broken file read as "changed", -4 URLs)
            return "failing"
        if self.one_side_unread:
            # listed but not fetched on one side (a depth limit, a file budget, a stop): neither
            # "recovered" nor "changed" (found from outside: a skipped file that failed before
            # read as recovered, and one that had URLs as changed to 0); unread on both, "same"
            return "unfetched"
        if self.broken_on("old") and not self.broken_on("new"):
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
                 map_host: Callable[[str | None], str | None] | None = None,
                 map_text: Callable[[str | None], str | None] | None = None,
                 sampled: Iterable[str] = ()) -> None:
        self.paths = {"old": Path(old), "new": Path(new)}
        # rules that name one file's many URLs by a sample (the first): such a finding is matched
        # by its words, the numbers left out, as a baseline matches it (validate/baseline.py)
        self.sampled = sorted(sampled)
        for side in SIDES:
            probe = connect(self.paths[side], readonly=True, immutable=at_rest(self.paths[side]))
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
            self.conn.create_function("wordsof", 1, words_of, deterministic=True)
            self.mapped = map_host is not None
            self.pairs = 0  # rows of ``pairs`` (build)
            if map_host is not None:
                self.conn.create_function("maphost", 1, map_host, deterministic=True)
            # a sampled finding's words name hosts too: mapped alike (``map_text``, with map_host)
            self.conn.create_function("maptext", 1, map_text or (lambda text: text), deterministic=True)
            self.conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
            self.conn.execute("PRAGMA temp_store=FILE")  # sorts spill to disk rather than grow
            self.conn.execute("PRAGMA journal_mode=OFF")  # scratch: nothing to recover
            # (before its first table: 16 KiB pages make the B-trees shallower and the pair
            # table's sorted inserts fewer page writes; measured 3.9 -> 3.6 CPU s at 1 M URLs)
            self.conn.execute(f"PRAGMA main.page_size={SCRATCH_PAGE}")
            for side in SIDES:
                # (immutable when nothing writes it: no -wal/-shm left beside the user's file)
                uri = readonly_uri(self.paths[side], immutable=at_rest(self.paths[side]))
                self.conn.execute(f"ATTACH DATABASE ? AS {side}", (uri,))
                self.conn.execute(f"PRAGMA {side}.cache_size=-{CACHE_KIB}")
            self.columns = {side: self._columns(side) for side in SIDES}
        except BaseException:
            self.conn.close()
            raise

    def _columns(self, side: str) -> dict[str, set[str]]:
        return {table: {row[1] for row in self.conn.execute(f"PRAGMA {side}.table_info({table})")}
                for table in ("entries", "alternates", "issues")}

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

    def node_states(self, side: str) -> dict[int, str]:
        """Each node's state, "cut" for a file read in part (:data:`CUT`)."""
        return {nid: "cut" if cut else state for nid, state, cut in
                self.conn.execute(f"SELECT id, state, {CUT.format('n')} FROM {side}.nodes n")}

    def totals(self, side: str) -> tuple[int, int]:
        """(files fetched or failed, entries with a URL key)."""
        files = self.conn.execute(
            f"SELECT count(*) FROM {side}.nodes WHERE kind NOT IN {NOT_FILES} AND state IN ('done', 'failed')"
        ).fetchone()[0]
        # the keys a tree lists: all keys (the pairs less those beyond a key's first) less the
        # other tree's own (the keys without this tree's first listing)
        keys = self.pairs - int(self.conn.execute("SELECT COALESCE(sum(more), 0) FROM delta").fetchone()[0])
        mine = "oe" if side == "old" else "ne"
        return int(files), keys - int(self.conn.execute(f"SELECT count(*) FROM delta WHERE {mine} IS NULL")
                                      .fetchone()[0])

    def load_files(self, side: str, keys: Iterable[tuple[int, str]]) -> None:
        """Each node's file key (``(node id, key)``), from the caller in the listing's order,
        OLD's first. Each distinct file key of either side gets a small integer (``fks.f``) in
        that order: the pair table carries that, not the key, and the least ``f`` of a URL's
        files is the first to list it."""
        s = side[0]
        c = self.conn
        c.execute("CREATE TABLE IF NOT EXISTS fks(f INTEGER PRIMARY KEY, fk TEXT NOT NULL UNIQUE)")
        c.execute(f"CREATE TABLE {s}_files(id INTEGER PRIMARY KEY, fk TEXT NOT NULL, f INTEGER, pos INTEGER)")
        c.executemany(f"INSERT INTO {s}_files(id, fk, pos) VALUES(?, ?, ?)",
                      ((nid, fk, pos) for pos, (nid, fk) in enumerate(keys)))
        c.execute(f"INSERT OR IGNORE INTO fks(fk) SELECT fk FROM {s}_files ORDER BY pos")
        c.execute(f"UPDATE {s}_files SET f = (SELECT x.f FROM fks x WHERE x.fk = {s}_files.fk)")
        files = c.execute("SELECT count(*) FROM fks").fetchone()[0]
        if files > FILE_MASK:  # the first listing's file is packed beside its entry id (build)
            raise StoreError(self.paths[side], f"{files:,} sitemap files: a comparison takes at most {FILE_MASK:,}")

    # -- the comparison ----------------------------------------------------------------------------
    def build(self) -> None:
        """Every table of the comparison (module docstring); load_files first, for both sides."""
        c = self.conn
        for side in SIDES:  # a first listing's entry id is packed beside its file (_build_delta)
            top = c.execute(f"SELECT max(id) FROM {side}.entries").fetchone()[0]
            if top is not None and top > ENTRY_MASK:
                raise StoreError(self.paths[side], f"entry ids up to {top:,}: a comparison takes at most {ENTRY_MASK:,}")
        c.execute("BEGIN")
        self._build_pairs()
        self._build_delta()
        for side in SIDES:
            s = side[0]
            c.execute(f"CREATE TABLE {s}_sm(fk TEXT PRIMARY KEY, id INTEGER, url TEXT, kind TEXT, state TEXT,"
                      " urls INTEGER, error TEXT, cut INTEGER) WITHOUT ROWID")
            c.execute(f"INSERT OR IGNORE INTO {s}_sm SELECT f.fk, n.id, n.url, n.kind, n.state, n.url_count, n.error,"
                      f" {CUT.format('n')}"
                      f" FROM {side}.nodes n JOIN {s}_files f ON f.id = n.id"
                      f" WHERE n.kind NOT IN {NOT_SITEMAPS} ORDER BY n.id")
        for table, one, other in (("added", "n", "o"), ("removed", "o", "n")):
            c.execute(f"CREATE TABLE {table}(k TEXT PRIMARY KEY, e INTEGER, fk TEXT) WITHOUT ROWID")
            c.execute(f"INSERT INTO {table} SELECT d.k, d.{one}e, x.fk FROM delta d CROSS JOIN fks x"
                      f" ON x.f = d.{one}f WHERE d.{other}e IS NULL")
        # moved: in both trees, but no sitemap file lists it in both
        c.execute("CREATE TABLE moved(k TEXT PRIMARY KEY) WITHOUT ROWID")
        c.execute("INSERT INTO moved SELECT k FROM delta WHERE moved")
        c.execute("CREATE TABLE lastmod(k TEXT PRIMARY KEY, direction TEXT) WITHOUT ROWID")
        c.execute("INSERT INTO lastmod SELECT k, lastmod FROM delta WHERE lastmod IS NOT NULL")
        c.execute("CREATE TABLE attrs(k TEXT, what TEXT, PRIMARY KEY(what, k)) WITHOUT ROWID")
        for what in ("changefreq", "priority"):
            c.execute(f"INSERT INTO attrs SELECT k, '{what}' FROM delta WHERE {what}")
        self._build_extensions()
        self._build_issues()
        c.execute("COMMIT")

    def keyless(self, side: str) -> int:
        """Entries of ``side`` with no URL key (a relative path, a space, no http(s)): they take
        no part in the comparison, which says so (one more scan of the entries)."""
        has_key = "key" in self.columns[side]["entries"]
        row = self.conn.execute(f"SELECT count(*) FROM {side}.entries e NOT INDEXED"
                                f" WHERE ({_key('e', has_key)}) IS NULL").fetchone()
        return int(row[0])

    def _build_pairs(self) -> None:
        """``pairs``: one row per (URL key, file) of either tree, with each tree's first entry
        listing it there (``oe``, ``ne``; NULL: that tree's file does not list it), and from it
        ``pair_counts``: per file key, its listings that the other tree's same file lacks.

        Both trees go into the one table, each sorted by key first (SQLite's external sort, in
        bounded memory): the B-tree then grows at its end and the second tree's rows find the
        first's in order, where inserting in entry order would visit a random page per row once
        the table outgrows the page cache."""
        c = self.conn
        c.execute("CREATE TABLE pairs(k TEXT NOT NULL, f INTEGER NOT NULL, oe INTEGER, ne INTEGER,"
                  " PRIMARY KEY(k, f)) WITHOUT ROWID")
        for side in SIDES:
            s = side[0]
            source = (f"SELECT {self._m(_key('e', 'key' in self.columns[side]['entries']))} AS k, f.f AS f,"
                      f" e.id AS id FROM {side}.entries e NOT INDEXED JOIN {s}_files f ON f.id = e.node_id")
            # (NOT INDEXED: read in table order, not through entries_node and a row lookup each)
            # sorted by entry id within a (key, file): a file's first listing of a URL goes in first
            # and its later ones are ignored (the old tree) or leave ``ne`` as it is (the new one)
            rows = f"SELECT k, f, id FROM ({source}) WHERE k IS NOT NULL ORDER BY k, f, id"
            if side == "old":
                c.execute(f"INSERT OR IGNORE INTO pairs(k, f, oe) {rows}")
            else:
                c.execute(f"INSERT INTO pairs(k, f, ne) {rows}"
                          " ON CONFLICT(k, f) DO UPDATE SET ne = excluded.ne WHERE ne IS NULL")
        c.execute("CREATE TABLE pair_counts(fk TEXT PRIMARY KEY, added INTEGER, removed INTEGER) WITHOUT ROWID")
        # one scan of the pairs; only the one-sided ones (a few per cent) are grouped
        c.execute("INSERT INTO pair_counts SELECT x.fk, p.added, p.removed FROM (SELECT f, sum(oe IS NULL) AS added,"
                  " sum(ne IS NULL) AS removed FROM pairs WHERE oe IS NULL OR ne IS NULL GROUP BY f) p"
                  " CROSS JOIN fks x ON x.f = p.f")
        self.pairs = int(c.execute("SELECT count(*) FROM pairs").fetchone()[0])

    def _build_delta(self) -> None:
        """One pass over ``pairs`` in key order, each URL key's rows grouped (its first listing in
        each tree: the least file, then that file's least entry id, packed in one integer by
        store/packed.py), and the two first entries looked up by id: ``delta`` keeps the keys
        that changed in any way (added, removed, moved, lastmod, changefreq, priority, extension
        elements on either side)
        or that have more than one pair (``more``: the pairs beyond the first, for the totals).
        The tables of each category are read from it."""
        c = self.conn
        # the parsed value when there is one ('0.5' and '0.50' are one priority), else the raw text;
        # the same text is no change whatever the values (a store an earlier version parsed read
        # '.5' as no priority: the first diff after an upgrade called it changed, found by a review)
        differs = {what: (f"CASE WHEN trim(o.{what}_raw) IS trim(n.{what}_raw) THEN 0"
                          f" WHEN o.{what} IS NULL AND n.{what} IS NULL"
                          f" THEN trim(o.{what}_raw) IS NOT trim(n.{what}_raw) ELSE o.{what} IS NOT n.{what} END")
                   for what in ("changefreq", "priority")}
        counts = ("n_images", "n_videos", "n_news", "n_alternates")
        c.execute("CREATE TABLE delta(k TEXT PRIMARY KEY, oe INTEGER, ne INTEGER, of INTEGER, nf INTEGER,"
                  " moved INTEGER, lastmod TEXT, changefreq INTEGER, priority INTEGER, ext INTEGER,"
                  " more INTEGER) WITHOUT ROWID")
        both = "g.o IS NOT NULL AND g.n IS NOT NULL"
        # three aggregates a key (five cost 0.3 CPU s more per 1 M keys, as much as the two
        # lookups): whether a file lists the URL in both trees is asked only of a key first
        # listed by two different files, the one way it can have moved
        column = {
            "moved": f"{both} AND {place_of('g.o')} <> {place_of('g.n')} AND NOT EXISTS (SELECT 1 FROM pairs p"
                     " WHERE p.k = g.k AND p.oe IS NOT NULL AND p.ne IS NOT NULL)",
            "lastmod": f"CASE WHEN NOT ({both}) OR o.lastmod IS n.lastmod THEN NULL WHEN o.lastmod IS NULL THEN 'set'"
                       " WHEN n.lastmod IS NULL THEN 'cleared' WHEN n.lastmod > o.lastmod THEN 'forward'"
                       " ELSE 'backward' END",
            "changefreq": f"{both} AND {differs['changefreq']}",
            "priority": f"{both} AND {differs['priority']}",
            "ext": f"{both} AND ({' + '.join(f'o.{n} + n.{n}' for n in counts)}) > 0",
        }
        # the condition spelled out, not a WHERE over the named columns of a subquery: SQLite
        # then computes every column of every key before it filters (1.7 -> 1.2 CPU s at 1 M URLs)
        changed = " OR ".join(f"({column[name]})" for name in ("moved", "changefreq", "priority", "ext"))
        c.execute(
            f"INSERT INTO delta SELECT g.k, {entry_of('g.o')}, {entry_of('g.n')}, {place_of('g.o')},"
            f" {place_of('g.n')}, {column['moved']}, {column['lastmod']}, {column['changefreq']},"
            f" {column['priority']}, {column['ext']}, g.c - 1"
            f" FROM (SELECT k, {first_of('f', 'oe')} AS o, {first_of('f', 'ne')} AS n, count(*) AS c"
            "  FROM pairs GROUP BY k) g"
            f" LEFT JOIN old.entries o ON o.id = {entry_of('g.o')} LEFT JOIN new.entries n ON n.id = {entry_of('g.n')}"
            f" WHERE g.o IS NULL OR g.n IS NULL OR g.c > 1 OR ({column['lastmod']}) IS NOT NULL OR {changed}")

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
                f" FROM delta c JOIN old.entries o ON o.id = c.oe JOIN new.entries n ON n.id = c.ne"
                f" WHERE c.ext AND (o.{count} > 0 OR n.{count} > 0)) WHERE a > 0 OR r > 0")

    def _build_issues(self) -> None:
        """A finding is the same in both trees when its rule, file and URL are: line numbers and
        messages (which may quote a line) move with any edit above them. A sampled rule's
        finding (``sampled``) is by its rule, file and words instead."""
        c = self.conn
        for side in SIDES:
            s = side[0]
            has_key = "key" in self.columns[side]["entries"]
            uk = f"CASE WHEN e.id IS NOT NULL THEN {self._m(_key('e', has_key))} ELSE {self._m('urlkey(i.url)')} END"
            if self.sampled:  # (a URL added at the top of a file changes such a finding's sample)
                rules = ", ".join("'" + r.replace("'", "''") + "'" for r in self.sampled)
                uk = f"CASE WHEN i.rule IN ({rules}) THEN 'words:' || wordsof(maptext(i.message)) ELSE {uk} END"
            c.execute(f"CREATE TABLE {s}_iss(rule TEXT, fk TEXT, uk TEXT, n INTEGER, first INTEGER,"
                      " PRIMARY KEY(rule, fk, uk)) WITHOUT ROWID")
            # a cap's summary issue counts for the findings it stands for (issues.weight): one of
            # 2,000 against one of 500 is 1,500 new (found from outside: "0 new")
            weight = "i.weight" if "weight" in self.columns[side]["issues"] else "1"
            c.execute(f"INSERT INTO {s}_iss SELECT rule, fk, uk, sum(w), min(id) FROM ("
                      f" SELECT i.rule AS rule, COALESCE(f.fk, '') AS fk, COALESCE({uk}, i.url, '') AS uk, i.id AS id,"
                      f" {weight} AS w"
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
        return self._stream("SELECT m.k, x.fk, y.fk FROM moved m JOIN delta c ON c.k = m.k"
                            " JOIN fks x ON x.f = c.of JOIN fks y ON y.f = c.nf ORDER BY m.k", limit=limit)

    def lastmod(self, direction: str | None = None, limit: int | None = None) -> Iterator[tuple[Any, ...]]:
        """(key, direction, old raw, new raw, old unix s, new unix s, NEW's sitemap file key)."""
        where = "WHERE l.direction = ?" if direction else ""
        return self._stream(
            "SELECT l.k, l.direction, o.lastmod_raw, n.lastmod_raw, o.lastmod, n.lastmod, y.fk FROM lastmod l"
            " JOIN delta c ON c.k = l.k JOIN fks y ON y.f = c.nf"
            " JOIN old.entries o ON o.id = c.oe JOIN new.entries n ON n.id = c.ne"
            f" {where} ORDER BY l.k", (direction,) if direction else (), limit)

    def attrs(self, what: str, limit: int | None = None) -> Iterator[tuple[Any, ...]]:
        """(key, old raw, new raw, NEW's sitemap file key) of a changefreq or priority change."""
        return self._stream(
            f"SELECT a.k, o.{what}_raw, n.{what}_raw, y.fk FROM attrs a JOIN delta c ON c.k = a.k"
            " JOIN fks y ON y.f = c.nf JOIN old.entries o ON o.id = c.oe JOIN new.entries n ON n.id = c.ne"
            " WHERE a.what = ? ORDER BY a.k", (what,), limit)

    def extensions(self, kind: str | None = None, limit: int | None = None) -> Iterator[tuple[Any, ...]]:
        """(key, kind, added, removed, NEW's sitemap file key)."""
        where = "WHERE x.kind = ?" if kind else ""
        return self._stream(f"SELECT x.k, x.kind, x.added, x.removed, y.fk FROM ext x JOIN delta c ON c.k = x.k"
                            f" JOIN fks y ON y.f = c.nf {where} ORDER BY x.k, x.kind", (kind,) if kind else (), limit)

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
        rows = self._stream(
            "SELECT k.fk, o.url, n.url, o.state, n.state, o.urls, n.urls,"
            " COALESCE(p.added, 0), COALESCE(p.removed, 0), COALESCE(n.error, o.error),"
            " COALESCE(o.cut, 0), COALESCE(n.cut, 0)"
            " FROM (SELECT fk FROM o_sm UNION SELECT fk FROM n_sm) k"
            " LEFT JOIN o_sm o ON o.fk = k.fk LEFT JOIN n_sm n ON n.fk = k.fk"
            " LEFT JOIN pair_counts p ON p.fk = k.fk ORDER BY k.fk")
        for row in rows:
            yield SitemapChange(*row)  # (the cut columns are 0 or 1)

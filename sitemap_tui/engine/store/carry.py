"""A conditional re-exploration's queries (issue 20 §3): what the previous exploration of a site
says about each file (its validators), and, for a file that answered 304 Not Modified, its stored
rows copied into the new store.

The copy is SQL on the new store's connection, with the previous store ATTACHed read-only as
``prev`` (a ``?mode=ro`` URI: not a byte of a saved exploration can change), INSERT..SELECT with
the entry ids remapped through a temporary table; nothing is loaded into Python but the node's own
row. The previous store is never written, so it stays a complete record of its own run."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitemap_tui.engine.leftout import RELATIVE_CHILD
from sitemap_tui.engine.model import ChildRef
from sitemap_tui.engine.store.base import MADE_BY_KEY, SIGNATURE_KEY
from sitemap_tui.engine.store.file import StoreError, _readonly_uri
from sitemap_tui.engine.store.reads import StoreReads
from sitemap_tui.engine.store.rows import EntryFilter, EntryRow
from sitemap_tui.engine.store.schema import NODE_STAT_COLUMNS, at_rest
from sitemap_tui.engine.store.search import SEARCH_UPTO
from sitemap_tui.engine.store.writer import Store

ALIAS = "prev"
# meta: what a store's cross-file issues were decided from (session/validation.py words it)
CROSSFILE_KEY = "crossfile_from"
# what the cross-file rules read of a node besides its rows: equal on both sides to carry them
NODE_FACTS = ("url", "kind", "state", "found_by", "depth", "line", "lastmod_raw", "error", "final_url",
              "last_modified", "url_count")
NOT_FILES = ("site", "directory", "robots")  # no rows of their own to carry (robots: read anew)
# the entries columns of every store version; the keys (key, alt_n, alt_h) came later
ENTRY_COLUMNS = ("loc", "line", "lastmod_raw", "lastmod", "changefreq_raw", "changefreq", "priority_raw",
                 "priority", "n_images", "n_videos", "n_news", "n_alternates", "title")
KEY_COLUMNS = ("key", "alt_n", "alt_h")
EXTENSION_COUNTS = {"images": "n_images", "videos": "n_videos", "news": "n_news", "alternates": "n_alternates"}
EXTENSION_TABLES = {
    "images": ("loc", "title", "caption", "geo_location", "license", "line"),
    "videos": ("line", "data"),
    "news": ("publication_name", "language", "publication_date", "title", "extra", "line"),
    "alternates": ("rel", "hreflang", "href", "line", "lang", "tgt", "media"),
}


@dataclass(frozen=True, slots=True)
class OldFile:
    """A file of the previous exploration that can be asked for conditionally."""

    id: int
    etag: str | None
    last_modified: str | None
    unchanged_since: str | None  # since when it has answered 304 (its own carried date), else None
    decoded_bytes: int | None = None  # what it decoded to: over this run's --max-size, it is cut now
    read_in_part: bool = False  # cut (a size cap, a failed download): its rows are not the whole file
    # holds dates whose verdict moves with the day (news, video, a lastmod in the future, its own
    # or an index child's): its findings then were that day's, not this run's (found from outside:
    # a lastmod-future stayed); or its statistics lack counts this version says (_DATED)
    dated: bool = False


# (a lastmod that was not in the future then is not now; news and video dates expire, age or arrive;
# an index child's lastmod dated after that run's day may have been in the future: found by a
# review. And an aggregate an earlier version wrote lacks the counts urls and stats say: noted,
# no_url, relative, found by a review too: carried on, they were never said while it answered 304)
_DATED = ("COALESCE(json_extract(agg, '$.news'), 0) + COALESCE(json_extract(agg, '$.videos'), 0)"
          " + COALESCE(json_extract(agg, '$.lastmod_future'), 0) > 0"
          " OR (agg IS NOT NULL AND json_type(agg, '$.noted') IS NULL)"
          " OR EXISTS(SELECT 1 FROM nodes c WHERE c.parent_id = nodes.id AND c.found_by = 'index'"
          " AND substr(c.lastmod_raw, 1, 10) > substr(?, 1, 10))")


@dataclass(slots=True)
class Carried:
    """What the new exploration's node takes from the previous one's."""

    kind: str
    error: str | None
    stats: dict[str, Any]  # NODE_STAT_COLUMNS
    agg: dict[str, Any] | None
    children: list[ChildRef]
    count: int  # entries copied (or, without a new store, entries of the old file)
    rules: set[str] = field(default_factory=set)  # of the issues carried
    unchanged_since: str | None = None


@dataclass(frozen=True, slots=True)
class LocText:
    """A run of a file's URLs as lines (no newline after the last), in UTF-8 as SQLite holds
    them: written out as they are, never decoded into a str and encoded again."""

    data: bytes
    lines: int  # URLs in ``text``: one more than its newlines, unless a URL holds one
    after: int  # the URLs are those of ids in (after, last]
    last: int


@dataclass(frozen=True, slots=True)
class Pending:
    """A carried file whose rows are copied at the end of the run (PreviousExploration.copy_all)."""

    old: OldFile
    new_id: int
    skip_rules: frozenset[str]
    parent_rules: frozenset[str]
    url: str
    new_parent: int | None


def _started(reads: StoreReads) -> str | None:
    value = reads.get_meta("started")
    return value if isinstance(value, str) else None


def _as_listed(url: str, state: str, error: str | None) -> str:
    """A carried index child's <loc>: its URL, or for one its index wrote relative (not fetched,
    for that: RELATIVE_CHILD) a scheme-relative form of it, which resolves to the same URL and is
    still no absolute one (found from outside: a re-run carrying the index fetched it)."""
    if state == "skipped" and error == RELATIVE_CHILD:
        return "//" + url.partition("//")[2]
    return url


class PreviousExploration:
    """The saved exploration a re-exploration asks against: read-only, its files by URL."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            # a finished store (no log beside it) is read as immutable: nothing is left beside it
            self.reads = StoreReads(self.path, readonly=True, immutable=at_rest(self.path))
        except sqlite3.DatabaseError as exc:
            raise exc if isinstance(exc, StoreError) else StoreError(self.path, f"cannot be read ({exc})") from exc
        try:
            self.started = _started(self.reads)
            self.signature = self.reads.get_meta(SIGNATURE_KEY)
            made_by = self.reads.get_meta(MADE_BY_KEY)
            self.made_by = made_by if isinstance(made_by, str) else None  # None: before it was kept
            node_columns = self._columns("main", "nodes")
            since = "unchanged_since" if "unchanged_since" in node_columns else "NULL"
            self.files: dict[str, OldFile] = {}
            # a file read in part (an earlier run's --max-size, a download cut short) is asked
            # for in full: carried, its rows would pass for the whole file
            for nid, url, etag, modified, carried, decoded, in_part, dated in self.reads.conn.execute(
                f"SELECT id, url, etag, last_modified, {since}, decoded_bytes,"
                " error IS NOT NULL OR truncated_at IS NOT NULL OR EXISTS("
                "SELECT 1 FROM issues WHERE issues.node_id = nodes.id AND issues.rule = 'size-over-limit'),"
                f" {_DATED}"
                " FROM nodes WHERE state = 'done'"
                f" AND kind NOT IN {NOT_FILES} AND (etag IS NOT NULL OR last_modified IS NOT NULL) ORDER BY id",
                (self.started or "",),
            ):
                self.files.setdefault(url, OldFile(nid, etag, modified, carried, decoded, bool(in_part), bool(dated)))
            self.entry_columns = self._columns("main", "entries")
            # an issue's weight (a cap's summary issue: how many it stands for) goes with it
            self.weight = "weight" if "weight" in self._columns("main", "issues") else "1"
        except sqlite3.DatabaseError as exc:
            self.reads.close()
            raise StoreError(self.path, f"cannot be read ({exc})") from exc
        self._attached: Store | None = None
        self._main_for: Store | None = None
        self.moved: dict[int, tuple[int, int]] = {}  # old file id -> (new node id, id offset of its rows)
        self._main: dict[str, set[str]] = {}

    def _columns(self, schema: str, table: str) -> set[str]:
        return {row[1] for row in self.reads.conn.execute(f"PRAGMA {schema}.table_info({table})")}

    def _main_columns(self, store: Store, table: str) -> set[str]:
        """The columns of ``store``'s ``table``, asked once per table (a PRAGMA per file and
        table was a tenth of a carried file's fixed cost)."""
        if self._main_for is not store:
            self._main_for, self._main = store, {}
        if table not in self._main:
            self._main[table] = {row[1] for row in store.conn.execute(f"PRAGMA main.table_info({table})")}
        return self._main[table]

    def close(self) -> None:
        self.reads.close()

    def validators(self, url: str) -> OldFile | None:
        return self.files.get(url)

    def since(self, old: OldFile) -> str | None:
        """When the file last changed as far as the history knows: its own carried date, else
        the previous exploration's start."""
        return old.unchanged_since or self.started

    # -- the node -----------------------------------------------------------------------------
    def carried(self, old: OldFile, skip_rules: Iterable[str] = ()) -> Carried:
        """The old node's facts, its index children (from its child nodes, in order) and the
        rules of its issues but ``skip_rules``."""
        row = self.reads.conn.execute(
            "SELECT kind, error, agg, " + ", ".join(NODE_STAT_COLUMNS) + " FROM nodes WHERE id = ?", (old.id,)
        ).fetchone()
        if row is None:
            raise StoreError(self.path, f"holds no file {old.id} any more")
        stats = dict(zip(NODE_STAT_COLUMNS, row[3:], strict=True))
        children = [ChildRef(_as_listed(url, state, error), line=line or 0, lastmod_raw=lastmod)
                    for url, line, lastmod, state, error in self.reads.conn.execute(
            "SELECT url, line, lastmod_raw, state, error FROM nodes WHERE parent_id = ? AND found_by = 'index'"
            " ORDER BY id", (old.id,))]
        count = int(self.reads.conn.execute("SELECT count(*) FROM entries WHERE node_id = ?", (old.id,)).fetchone()[0])
        agg = json.loads(row[2]) if row[2] else None
        skip = set(skip_rules)
        rules = {r for (r,) in self.reads.conn.execute("SELECT DISTINCT rule FROM issues WHERE node_id = ?", (old.id,))}
        return Carried(row[0], row[1], stats, agg, children, count, rules - skip, self.since(old))

    def loc_text(self, old: OldFile, size: int = 20_000) -> Iterator[LocText]:
        """The old file's URLs in id order (``urls``' txt records), ``size`` at a time as one
        text of lines, joined by SQLite (a string and a tuple per URL cost more than the line);
        an empty loc is no URL."""
        after = -1 << 62
        while True:
            last, lines, data = self.reads.conn.execute(
                "SELECT max(id), count(*), CAST(group_concat(loc, char(10)) AS BLOB) FROM (SELECT id, loc FROM entries"
                " WHERE node_id = ? AND id > ? AND loc <> '' ORDER BY id LIMIT ?)", (old.id, after, size)).fetchone()
            if last is None:
                return
            yield LocText(data, lines, after, last)
            after = last

    def locs(self, old: OldFile, chunk: LocText) -> list[str]:
        """The URLs of one ``chunk`` of :meth:`loc_text`, one string each."""
        return [loc for (loc,) in self.reads.conn.execute(
            "SELECT loc FROM entries WHERE node_id = ? AND id > ? AND id <= ? AND loc <> '' ORDER BY id",
            (old.id, chunk.after, chunk.last))]

    def rows(self, old: OldFile) -> Iterator[EntryRow]:
        """The old file's entries, in id order (the URL records of ``urls``)."""
        return self.reads.iter_entries(EntryFilter(node_ids=[old.id]))

    def record_rows(self, old: OldFile, size: int = 2000) -> Iterator[list[tuple[Any, ...]]]:
        """The old file's entries in id order as plain tuples (formats.STORED_ROW), ``size`` at a
        time: ``urls``' JSON lines are written straight from them (an EntryRow and a record per
        URL were half the CPU time of a carried 50k file)."""
        cur = self.reads.conn.execute(
            "SELECT id, loc, lastmod_raw, changefreq_raw, priority_raw, n_images, n_videos, n_news, n_alternates"
            " FROM entries WHERE node_id = ? ORDER BY id", (old.id,))
        while rows := cur.fetchmany(size):
            yield rows

    # -- the copy -------------------------------------------------------------------------------
    def attach(self, store: Store) -> None:
        """ATTACH this exploration to ``store``'s connection, read-only (outside a transaction,
        as SQLite wants), and give ``store`` the previous run's signature key when it has made
        none yet, so carried hreflang signatures compare with new ones."""
        if self._attached is store:
            return
        store.commit()
        try:
            store.conn.execute(f"ATTACH DATABASE ? AS {ALIAS}", (_readonly_uri(self.path),))
            if isinstance(self.signature, str) and store.get_meta(SIGNATURE_KEY) is None:
                store.set_meta(SIGNATURE_KEY, self.signature)
        finally:
            store.begin()
        self._attached = store

    def detach(self) -> None:
        store, self._attached = self._attached, None
        if store is None or store.readonly:
            return
        store.commit()
        try:
            store.conn.execute(f"DETACH DATABASE {ALIAS}")
        finally:
            store.begin()

    def copy(self, store: Store, old: OldFile, new_id: int, skip_rules: Iterable[str], *,
             parent_rules: Iterable[str] = (), url: str = "", new_parent: int | None = None) -> tuple[int, int]:
        """Copy the old file's entries, their extension rows and the file's issues (but those of
        ``skip_rules``: the stages that run over the whole new store write their own) to node
        ``new_id`` of ``store``; returns (entries copied, issues copied).

        ``parent_rules`` are those a file's checks put on the file that lists it (on the line
        that lists it, with its ``url``): they go with the file, from its old parent to
        ``new_parent``, and never with the parent."""
        self.attach(store)
        n, delta = self._copy_rows(store, old, new_id)
        issues = self._insert_issues(store, old, new_id, delta, skip_rules, parent_rules, url, new_parent)
        self._fix_counts(store, old, new_id, delta, set(skip_rules) | set(parent_rules))
        return n, issues

    def _copy_rows(self, store: Store, old: OldFile, new_id: int) -> tuple[int, int]:
        """The entries and extension rows of :meth:`copy`; returns (entries, the ids' shift)."""
        c = store.conn
        same_key = store.signature_key().hex() == self.signature
        keys = [k if k in self.entry_columns and same_key else "NULL" for k in KEY_COLUMNS]
        # ids are never reused below what the search index covers (as Store.add_rows)
        first = int(c.execute(
            "SELECT MAX(COALESCE((SELECT MAX(id) FROM main.entries), 0),"
            " COALESCE((SELECT CAST(value AS INTEGER) FROM main.meta WHERE key = ?), 0)) + 1",
            (SEARCH_UPTO,)).fetchone()[0])
        # the file's first id and its size, from the index alone (not a row read), and which
        # extension tables have rows in its id range (a table with none is not joined: 4
        # lookups per entry saved; another file's rows in the range only cost the join)
        lo, hi, n = c.execute(f"SELECT min(id), max(id), count(*) FROM {ALIAS}.entries WHERE node_id = ?",
                              (old.id,)).fetchone()
        extended = [n and c.execute(f"SELECT EXISTS(SELECT 1 FROM {ALIAS}.{table} WHERE entry_id BETWEEN ? AND ?)",
                                    (lo, hi)).fetchone()[0] for table in EXTENSION_TABLES]
        # the old ids shifted by one offset: their order kept, no id map to build or join (the
        # gaps other files' rows left between them stay gaps, harmless in a rowid)
        delta = first - (lo or first)
        columns = ", ".join(ENTRY_COLUMNS)
        c.execute(f"INSERT INTO main.entries(id, node_id, {columns}, n_issues, {', '.join(KEY_COLUMNS)})"
                  f" SELECT e.id + :delta, :node, {', '.join('e.' + x for x in ENTRY_COLUMNS)}, e.n_issues,"
                  f" {', '.join(k if k == 'NULL' else 'e.' + k for k in keys)}"
                  f" FROM {ALIAS}.entries e WHERE e.node_id = :old ORDER BY e.id",
                  {"delta": delta, "node": new_id, "old": old.id})
        for (table, cols), most in zip(EXTENSION_TABLES.items(), extended, strict=True):
            if not most:
                continue
            have = self._main_columns(store, table)  # (alternates' lang, tgt, media came later)
            picked = [f"x.{col}" if col in have else "NULL" for col in cols]
            # only the entries that have some: the count on the row saves a lookup per entry
            c.execute(f"INSERT INTO main.{table}(entry_id, {', '.join(cols)})"
                      f" SELECT x.entry_id + :delta, {', '.join(picked)} FROM {ALIAS}.entries e"
                      f" JOIN {ALIAS}.{table} x ON x.entry_id = e.id WHERE e.node_id = :old AND e.{EXTENSION_COUNTS[table]} > 0",
                      {"delta": delta, "old": old.id})
        return int(n), delta

    def _insert_issues(self, store: Store, old: OldFile, new_id: int, delta: int, skip_rules: Iterable[str],
                       parent_rules: Iterable[str], url: str, new_parent: int | None) -> int:
        """The file's issues of :meth:`copy`, on entries whose ids moved by ``delta``; returns
        how many the node (and its line on ``new_parent``) has."""
        c = store.conn
        skip = sorted(set(skip_rules) | set(parent_rules))
        c.execute(
            "INSERT INTO main.issues(rule, severity, node_id, entry_id, line, col, url, message, weight)"
            f" SELECT rule, severity, ?, entry_id + ?, line, col, url, message, {self.weight}"
            f" FROM {ALIAS}.issues WHERE node_id = ? AND rule NOT IN ({','.join('?' * len(skip))}) ORDER BY id",
            (new_id, delta, old.id, *skip))
        theirs = sorted(set(parent_rules))
        if theirs and new_parent is not None:
            c.execute(
                "INSERT INTO main.issues(rule, severity, node_id, entry_id, line, col, url, message, weight)"
                f" SELECT rule, severity, ?, NULL, line, col, url, message, {self.weight} FROM {ALIAS}.issues"
                f" WHERE node_id = (SELECT parent_id FROM {ALIAS}.nodes WHERE id = ?) AND url = ?"
                f" AND entry_id IS NULL AND rule IN ({','.join('?' * len(theirs))}) ORDER BY id",
                (new_parent, old.id, url, *theirs))
        issues = int(c.execute("SELECT count(*) FROM main.issues WHERE node_id = ?", (new_id,)).fetchone()[0])
        if theirs and new_parent is not None:
            issues += int(c.execute(f"SELECT count(*) FROM main.issues WHERE node_id = ? AND url = ? AND rule IN"
                                    f" ({','.join('?' * len(theirs))})", (new_parent, url, *theirs)).fetchone()[0])
        return issues

    def _fix_counts(self, store: Store, old: OldFile, new_id: int, delta: int, skipped: set[str]) -> None:
        """The copied entries' issue counts came with them: take off those of the issues left
        behind, counted per entry first (issues has no index on entry_id, as
        Store.forget_issues says)."""
        c = store.conn
        skip = sorted(skipped)
        c.execute("CREATE TEMP TABLE IF NOT EXISTS carry_n(entry_id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
        c.execute("DELETE FROM temp.carry_n")
        c.execute(f"INSERT INTO temp.carry_n SELECT entry_id + ?, count(*) FROM {ALIAS}.issues"
                  f" WHERE node_id = ? AND entry_id IS NOT NULL AND rule IN ({','.join('?' * len(skip))}) GROUP BY entry_id",
                  (delta, old.id, *skip))
        c.execute("UPDATE main.entries SET n_issues = max(0, n_issues - (SELECT n FROM temp.carry_n k"
                  " WHERE k.entry_id = entries.id)) WHERE id IN (SELECT entry_id FROM temp.carry_n)")
        c.execute("DELETE FROM temp.carry_n")
        self.moved[old.id] = (new_id, delta)

    def copy_issues(self, store: Store, f: Pending) -> int:
        """A file's issues copied now, its rows later (:meth:`copy_all`): the issues keep their
        place in the store's order, on the entries' old ids until the rows are in."""
        self.attach(store)
        return self._insert_issues(store, f.old, f.new_id, 0, f.skip_rules, f.parent_rules, f.url, f.new_parent)

    def copy_all(self, store: Store, files: list[Pending]) -> None:
        """The rows of the files whose issues :meth:`copy_issues` copied, copied now. When they
        are the whole previous exploration, under the same node ids, into a store that has no
        rows yet, its tables are copied whole: SQLite then moves their records as they are
        (its transfer optimisation: half the CPU time of a copy row by row at a million URLs);
        else file by file as :meth:`copy`, the issues moved onto the entries' new ids."""
        if not files:
            return
        self.attach(store)
        c = store.conn
        whole = self._whole(store, files)
        if whole:
            with store.appending():
                for table in ("entries", *EXTENSION_TABLES):
                    # (exactly this form: a whole table into an empty one of the same shape)
                    c.execute(f"INSERT INTO main.{table} SELECT * FROM {ALIAS}.{table}")
        for f in files:
            delta = 0
            if not whole:
                _, delta = self._copy_rows(store, f.old, f.new_id)
                if delta:
                    c.execute("UPDATE main.issues SET entry_id = entry_id + ? WHERE node_id = ? AND entry_id IS NOT NULL",
                              (delta, f.new_id))
            self._fix_counts(store, f.old, f.new_id, delta, set(f.skip_rules) | set(f.parent_rules))

    def _whole(self, store: Store, files: list[Pending]) -> bool:
        c = store.conn
        if any(f.old.id != f.new_id for f in files) or store.signature_key().hex() != self.signature:
            return False
        if c.execute("SELECT value FROM main.meta WHERE key = ?", (SEARCH_UPTO,)).fetchone() is not None:
            return False
        for table in ("entries", *EXTENSION_TABLES):
            if (list(c.execute(f"PRAGMA main.table_info({table})")) != list(c.execute(f"PRAGMA {ALIAS}.table_info({table})"))
                    or c.execute(f"SELECT EXISTS(SELECT 1 FROM main.{table})").fetchone()[0]):
                return False
        having = {nid for (nid,) in c.execute(f"SELECT DISTINCT node_id FROM {ALIAS}.entries")}
        return having <= {f.old.id for f in files}

    def mark(self, store: Store, node_id: int, since: str | None) -> None:
        """The node's "unchanged since" date, kept with it in the new store."""
        store.conn.execute("UPDATE nodes SET unchanged_since = ? WHERE id = ?", (since, node_id))


    # -- the cross-file issues ------------------------------------------------------------------
    def carry_crossfile(self, store: Store, rules: Iterable[str], marker: Any) -> int | None:
        """Copy the issues of the cross-file ``rules`` from the previous exploration when nothing
        they are decided from can differ: it decided them from the same ``marker`` (its meta
        CROSSFILE_KEY: the rules, robots.txt, the day; session/validation.py) and this run's
        tree is its tree node for node (NODE_FACTS equal, the same parents, in the same order),
        every file with rows carried from it. Returns the issues copied; None when it cannot
        (then the caller runs the rules over the new store)."""
        if self._attached is not store or not self.moved:
            return None
        c = store.conn
        if {row[1] for row in c.execute("PRAGMA database_list")} & {ALIAS} != {ALIAS}:
            return None
        row = c.execute(f"SELECT value FROM {ALIAS}.meta WHERE key = ?", (CROSSFILE_KEY,)).fetchone()
        if row is None or json.loads(row[0]) != marker:
            return None
        same = " AND ".join(f"o.{col} IS n.{col}" for col in NODE_FACTS)
        pairs = c.execute(f"SELECT o.id, n.id, o.parent_id, n.parent_id FROM main.nodes n"
                          f" JOIN {ALIAS}.nodes o ON {same} ORDER BY o.id").fetchall()
        to_new = {o: n for o, n, _, _ in pairs}
        counts = c.execute(f"SELECT (SELECT count(*) FROM main.nodes), (SELECT count(*) FROM {ALIAS}.nodes)").fetchone()
        news = [n for _, n, _, _ in pairs]
        if (len(pairs) != len(to_new) or len(set(news)) != len(news) or counts != (len(news), len(news))
                or news != sorted(news)  # (files are ordered by id)
                or any(to_new.get(op) != np for _, _, op, np in pairs if op is not None or np is not None)
                or any(to_new.get(o) != n for o, (n, _) in self.moved.items())):
            return None
        # rows: the carried files' are the old ones by construction; no other node has any
        others = [o for o in to_new if o not in self.moved]
        for side, ids in ((ALIAS, others), ("main", [to_new[o] for o in others])):
            for at in range(0, len(ids), 500):
                part = ids[at:at + 500]
                if c.execute(f"SELECT EXISTS(SELECT 1 FROM {side}.entries WHERE node_id IN"
                             f" ({','.join('?' * len(part))}))", part).fetchone()[0]:
                    return None
        c.execute("CREATE TEMP TABLE IF NOT EXISTS carry_nodes(old INTEGER PRIMARY KEY, new INTEGER NOT NULL,"
                  " delta INTEGER)")
        c.execute("DELETE FROM temp.carry_nodes")
        c.executemany("INSERT INTO temp.carry_nodes VALUES (?, ?, ?)",
                      [(o, n, self.moved[o][1] if o in self.moved else None) for o, n in to_new.items()])
        wanted = sorted(set(rules))
        after = int(c.execute("SELECT COALESCE(MAX(id), 0) FROM main.issues").fetchone()[0])
        c.execute("SAVEPOINT carry_crossfile")  # all or nothing: the rules run over what is left
        try:
            copied = self._copy_crossfile(store, wanted, after)
        except sqlite3.DatabaseError:
            c.execute("ROLLBACK TO carry_crossfile")
            raise
        finally:
            c.execute("RELEASE carry_crossfile")
        return copied

    def _copy_crossfile(self, store: Store, wanted: list[str], after: int) -> int:
        c = store.conn
        c.execute("INSERT INTO main.issues(rule, severity, node_id, entry_id, line, col, url, message, weight)"
                  " SELECT i.rule, i.severity, m.new, i.entry_id + em.delta, i.line, i.col, i.url, i.message,"
                  f" {'i.' if self.weight == 'weight' else ''}{self.weight}"
                  f" FROM {ALIAS}.issues i LEFT JOIN temp.carry_nodes m ON m.old = i.node_id"
                  f" LEFT JOIN {ALIAS}.entries e ON e.id = i.entry_id LEFT JOIN temp.carry_nodes em ON em.old = e.node_id"
                  f" WHERE i.rule IN ({','.join('?' * len(wanted))}) ORDER BY i.id", wanted)
        # each entry's count of its issues, as the rules' writes keep it (Store.add_issues)
        c.execute("CREATE TEMP TABLE IF NOT EXISTS carry_n(entry_id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
        c.execute("DELETE FROM temp.carry_n")
        c.execute("INSERT INTO temp.carry_n SELECT entry_id, count(*) FROM main.issues"
                  " WHERE id > ? AND entry_id IS NOT NULL GROUP BY entry_id", (after,))
        c.execute("UPDATE main.entries SET n_issues = n_issues + (SELECT n FROM temp.carry_n k"
                  " WHERE k.entry_id = entries.id) WHERE id IN (SELECT entry_id FROM temp.carry_n)")
        c.execute("DELETE FROM temp.carry_n")
        return int(c.execute("SELECT count(*) FROM main.issues WHERE id > ?", (after,)).fetchone()[0])

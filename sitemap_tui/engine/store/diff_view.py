"""Compare mode's queries (issue 20 §2): what the explorer shows of a comparison, in SQL.

:func:`build_view` runs once on the scratch database of :class:`~.diff.DiffQueries` (both stores
ATTACHed, its tables built) and adds what the explorer reads afterwards, so that the explorer's
own connections need only the scratch file (ATTACHed as ``cmp`` by :func:`attach`), never OLD:

- ``v_marks(what, e)``: NEW's entry ids in each change category (:data:`MARKS`), the rows a
  ``diff:WHAT`` filter lists. A URL is marked on each file's first listing of it (``pairs.ne``);
  a removed URL's rows are those of ``v_removed``;
- ``v_removed``: OLD's listings of the removed URLs, in the columns of NEW's ``entries``, so the
  URL table pages through them as it does through NEW's rows. Each is filed under NEW's node of
  the same sitemap file (file key), else under NEW's root (its file is gone); its id is OLD's
  entry id minus :data:`REMOVED_BASE`: negative, so it never collides with a NEW row, and in
  OLD's order; its issue count is 0 (OLD's findings are not NEW's);
- ``v_files`` and ``v_badges``: per NEW node, the listings added, removed and changed in that
  file (listings: a URL moved between two files is +1 in one and -1 in the other) and summed
  over its subtree (a recursive walk of NEW's nodes). Listings of files NEW lacks count at the
  root.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

SCHEMA = "cmp"
"""The name the scratch database is ATTACHed under on the explorer's connections."""
MARKS = ("added", "removed", "moved", "lastmod", "lastmod-forward", "lastmod-back", "lastmod-set",
         "lastmod-cleared", "attrs", "changefreq", "priority", "ext", "images", "videos", "news", "hreflang")
"""The change categories a ``diff:WHAT`` filter names."""
REMOVED_SOURCE = f"{SCHEMA}.v_removed"
REMOVED_BASE = 1 << 40
"""A removed row's id is OLD's entry id minus this (SQLite's ids reach 2**63: no store has 2**40 rows)."""
"""What a ``diff:removed`` listing reads instead of NEW's ``entries``."""


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
    for what, keys in marks:
        # one row per URL, NEW's first listing of it (each file's was a row of its own: a URL
        # added in two files made "URLs added (2)" list three rows, found from outside)
        c.execute(f"INSERT OR IGNORE INTO v_marks SELECT '{what}', d.ne FROM delta d"
                  f" WHERE d.k IN ({keys}) AND d.ne IS NOT NULL")
    root = "(SELECT min(id) FROM new.nodes WHERE parent_id IS NULL)"
    c.execute("CREATE TABLE v_removed(id INTEGER PRIMARY KEY, node_id INTEGER, loc TEXT, line INTEGER,"
              " lastmod_raw TEXT, lastmod INTEGER, changefreq_raw TEXT, priority_raw TEXT, n_images INTEGER,"
              " n_videos INTEGER, n_news INTEGER, n_alternates INTEGER, n_issues INTEGER, priority REAL,"
              " changefreq TEXT, sitemap TEXT, sitemap_lastmod TEXT)")
    # OLD's sitemap file of each (an export named NEW's root for a file that is gone)
    c.execute(
        f"INSERT OR IGNORE INTO v_removed SELECT o.id - {REMOVED_BASE}, COALESCE((SELECT min(f.id) FROM n_files f WHERE f.fk = r.fk),"
        f" {root}), o.loc, o.line, o.lastmod_raw, o.lastmod, o.changefreq_raw, o.priority_raw,"
        " o.n_images, o.n_videos, o.n_news, o.n_alternates, 0, o.priority, o.changefreq,"
        " COALESCE(n.final_url, n.url), n.lastmod_raw"
        " FROM removed r JOIN old.entries o ON o.id = r.e LEFT JOIN old.nodes n ON n.id = o.node_id")  # (one row per URL: OLD's first listing)
    for column in ("loc", "lastmod", "priority", "node_id"):  # the URL table's sort orders walk these
        c.execute(f"CREATE INDEX v_removed_{column} ON v_removed({column}, id)")
    # and their extensions, under the rows' ids (an export of them had no images, news, links)
    for table in ("images", "videos", "news", "alternates"):
        c.execute(f"CREATE TABLE v_removed_{table} AS SELECT * FROM old.{table} WHERE 0")
        c.execute(f"INSERT INTO v_removed_{table} SELECT * FROM old.{table}"
                  f" WHERE entry_id IN (SELECT id + {REMOVED_BASE} FROM v_removed)")
        c.execute(f"UPDATE v_removed_{table} SET entry_id = entry_id - {REMOVED_BASE}")
        c.execute(f"CREATE INDEX v_removed_{table}_entry ON v_removed_{table}(entry_id)")
    c.execute("INSERT INTO v_marks SELECT 'removed', id FROM v_removed")
    # what a changed or moved URL's first listing said in OLD, by NEW's entry id: the detail
    # panel's "earlier" line (found from outside: a lastmod change showed the new date alone)
    c.execute("CREATE TABLE v_was(e INTEGER PRIMARY KEY, lastmod_raw TEXT, changefreq_raw TEXT, priority_raw TEXT,"
              " sitemap TEXT)")
    c.execute("INSERT OR IGNORE INTO v_was SELECT d.ne, o.lastmod_raw, o.changefreq_raw, o.priority_raw,"
              " COALESCE(n.final_url, n.url) FROM delta d JOIN old.entries o ON o.id = d.oe"
              " LEFT JOIN old.nodes n ON n.id = o.node_id"
              " WHERE d.ne IS NOT NULL AND (d.moved OR d.lastmod IS NOT NULL OR d.changefreq OR d.priority)")
    c.execute("CREATE TABLE v_files(id INTEGER PRIMARY KEY, added INTEGER, removed INTEGER, changed INTEGER)")
    c.execute("INSERT INTO v_files(id, added, removed, changed) SELECT id, 0, 0, 0 FROM new.nodes")
    per_fk = {  # (the listings a file gained and lost are the diff's pair_counts)
        "added": "SELECT fk, added AS n FROM pair_counts WHERE added",
        "removed": "SELECT fk, removed AS n FROM pair_counts WHERE removed",
        "changed": "SELECT x.fk, y.n FROM (SELECT p.f AS f, count(*) AS n FROM pairs p"
                   f" WHERE p.k IN ({changed_keys}) AND p.ne IS NOT NULL GROUP BY p.f) y CROSS JOIN fks x ON x.f = y.f",
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


def attach(conn: sqlite3.Connection, scratch: str | Path) -> None:
    """ATTACH the comparison's scratch database read-only as ``cmp`` (once per connection; a
    connection that holds an earlier comparison's lets it go first)."""
    path = Path(scratch).resolve()
    attached = {row[1]: row[2] for row in conn.execute("PRAGMA database_list")}
    if SCHEMA in attached:
        if attached[SCHEMA] and Path(attached[SCHEMA]).resolve() == path:
            return
        conn.execute(f"DETACH DATABASE {SCHEMA}")
    uri = path.as_uri() + "?mode=ro"
    try:
        conn.execute(f"ATTACH DATABASE ? AS {SCHEMA}", (uri,))
    except sqlite3.OperationalError as exc:  # a plain-path connection cannot take a URI
        if "unable to open" not in str(exc):
            raise
        conn.execute(f"ATTACH DATABASE ? AS {SCHEMA}", (str(path),))


def mark_condition(what: str) -> tuple[str, list[str]]:
    """The SQL condition (on ``e``, NEW's entries or ``v_removed``) of a ``diff:WHAT`` filter."""
    if what not in MARKS:
        raise ValueError(f"diff:{what}? use one of {', '.join('diff:' + m for m in MARKS)}")
    return f"e.id IN (SELECT e FROM {SCHEMA}.v_marks WHERE what = ?)", [what]


def is_removed(entry_id: int) -> bool:
    """Whether a URL table row is one of OLD's removed rows (``v_removed``), not NEW's (ids
    from -REMOVED_BASE down are coverage_filters' pages of no sitemap)."""
    return -REMOVED_BASE < entry_id < 0


REMOVED_EXTENSIONS = {t: f"{SCHEMA}.v_removed_{t}" for t in ("images", "videos", "news", "alternates")}
"""Where the removed rows' extensions are (Store.extensions_for / alternates_for's ``tables``)."""


def removed_sitemaps(conn: sqlite3.Connection, entry_ids: list[int]) -> dict[int, tuple[str | None, str | None]]:
    """(OLD's sitemap URL, its lastmod in OLD's index) of removed rows (``conn`` has ``cmp``)."""
    out: dict[int, tuple[str | None, str | None]] = {}
    for at in range(0, len(entry_ids), 900):
        chunk = entry_ids[at : at + 900]
        marks = ",".join("?" * len(chunk))
        for eid, url, lastmod in conn.execute(
                f"SELECT id, sitemap, sitemap_lastmod FROM {SCHEMA}.v_removed WHERE id IN ({marks})", chunk):
            out[eid] = (url, lastmod)
    return out


@dataclass(frozen=True, slots=True)
class Earlier:
    """What OLD's first listing of a changed or moved URL said (``v_was``)."""

    lastmod_raw: str | None
    changefreq_raw: str | None
    priority_raw: str | None
    sitemap: str | None


def earlier(conn: sqlite3.Connection, entry_id: int) -> Earlier | None:
    """OLD's values of NEW's row ``entry_id`` when its URL changed or moved (``conn`` has
    ``cmp``); None for a URL that did neither."""
    row = conn.execute(f"SELECT lastmod_raw, changefreq_raw, priority_raw, sitemap FROM {SCHEMA}.v_was WHERE e = ?",
                       (entry_id,)).fetchone()
    return None if row is None else Earlier(*row)


def has_mark(conn: sqlite3.Connection, entry_id: int, what: str) -> bool:
    """Whether row ``entry_id`` is in change category ``what`` (``conn`` has ``cmp`` attached)."""
    return conn.execute(f"SELECT 1 FROM {SCHEMA}.v_marks WHERE what = ? AND e = ?",
                        (what, entry_id)).fetchone() is not None


def badges(conn: sqlite3.Connection, schema: str = SCHEMA) -> dict[int, tuple[int, int, int]]:
    """Each NEW node's (added, removed, changed) listings over its subtree, for the nodes with any."""
    return {int(i): (int(a), int(r), int(c)) for i, a, r, c in conn.execute(
        f"SELECT id, added, removed, changed FROM {schema}.v_badges WHERE added OR removed OR changed")}


def mark_counts(conn: sqlite3.Connection, schema: str = SCHEMA) -> dict[str, int]:
    """The rows each ``diff:WHAT`` filter lists over the whole tree."""
    found = {str(w): int(n) for w, n in conn.execute(f"SELECT what, count(*) FROM {schema}.v_marks GROUP BY what")}
    return {what: found.get(what, 0) for what in MARKS}


def url_delta(old: Path, new: Path, scratch: Path) -> tuple[int, int]:
    """(URLs added, URLs removed) from OLD to NEW, by URL key (the diff's key), in SQL: only the
    two key sets, without the diff's per-file tables (the Overview's "since" line). ``scratch``
    is a new file the caller removes."""
    from sitemap_tui.engine.keys import url_key
    from sitemap_tui.engine.store.diff import CACHE_KIB, _key

    conn = sqlite3.connect(Path(scratch).resolve().as_uri(), uri=True, isolation_level=None)
    try:
        conn.create_function("urlkey", 1, url_key, deterministic=True)
        conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        conn.execute("PRAGMA temp_store=FILE")
        conn.execute("PRAGMA journal_mode=OFF")
        for side, path in (("old", old), ("new", new)):
            conn.execute(f"ATTACH DATABASE ? AS {side}", (Path(path).resolve().as_uri() + "?mode=ro",))
            has_key = any(row[1] == "key" for row in conn.execute(f"PRAGMA {side}.table_info(entries)"))
            conn.execute(f"CREATE TABLE {side[0]}_k(k TEXT PRIMARY KEY) WITHOUT ROWID")
            conn.execute(f"INSERT OR IGNORE INTO {side[0]}_k SELECT k FROM"
                         f" (SELECT {_key('e', has_key)} AS k FROM {side}.entries e) WHERE k IS NOT NULL")
        added = conn.execute("SELECT count(*) FROM n_k WHERE k NOT IN (SELECT k FROM o_k)").fetchone()[0]
        removed = conn.execute("SELECT count(*) FROM o_k WHERE k NOT IN (SELECT k FROM n_k)").fetchone()[0]
        return int(added), int(removed)
    finally:
        conn.close()

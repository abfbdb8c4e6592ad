"""The crawler-access table (engine/access.py decides, this module stores and counts).

``access``: one row per entry, ``blocked`` the bitmask of the agents its origin's robots.txt
disallows (bit i: the i-th agent of meta ``access``'s list) and ``unknown`` 1 when that origin's
robots.txt was never read. One integer per entry instead of a row per (entry, agent): 1 M URLs x
10 agents is 1 M rows, written and counted in one pass (``SUM(blocked >> i & 1)`` per agent).

The table is computed the first time it is asked for and kept with what it was computed from
(meta ``access``: the agents, a digest of the robots.txt files, the last entry id judged), so a
second question costs a query, entries added since are judged alone, and a new robots.txt or
another list of agents recomputes it. A saved exploration opened read-only gets a TEMP table of
its own instead: the user's file is never written.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from sitemap_tui.engine.store.schema import tree_order

BATCH = 20_000


@dataclass(frozen=True, slots=True)
class AccessCounts:
    """A node's (or the whole exploration's) matrix: per agent, how many listed URLs it may
    fetch and may not; ``unknown``: URLs whose origin's robots.txt was not read."""

    agents: tuple[str, ...]
    urls: int
    unknown: int
    blocked: tuple[int, ...]  # per agent
    listed: int | None = None  # the listed URLs, judged or not (stored_counts): more than urls when stopped

    def allowed(self, i: int) -> int:
        return self.urls - self.unknown - self.blocked[i]


ROBOTS_UNREAD = "robots-unread:"  # meta key prefix: a robots.txt that answered no rules


def robots_unread(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(robots.txt URL, why it could not be read; "" for a 4xx, which means no rules) of every
    robots.txt the exploration asked for and got no rules from."""
    out = []
    for key, value in conn.execute("SELECT key, value FROM meta WHERE key LIKE ? ORDER BY key", (ROBOTS_UNREAD + "%",)):
        try:
            why = json.loads(value)
        except (TypeError, ValueError):
            continue
        if isinstance(why, str):
            out.append((key[len(ROBOTS_UNREAD):], why))
    return out


def robots_texts(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(robots.txt URL, its text) of every robots.txt the exploration kept."""
    out = []
    for key, value in conn.execute("SELECT key, value FROM meta WHERE key LIKE 'robots:%' ORDER BY key"):
        try:
            text = json.loads(value)
        except (TypeError, ValueError):
            continue
        if isinstance(text, str):
            out.append((key[len("robots:"):], text))
    return out


def access_robots(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """What crawler access judges by: every robots.txt kept, and one that answered 4xx as an
    empty file. A 4xx is "no robots.txt", so nothing is disallowed (RFC 9309 §2.3.1.3); counted
    as unread, a site without one had every URL "unknown" and an audit no crawler table."""
    kept = robots_texts(conn)
    have = {url for url, _ in kept}
    return sorted(kept + [(url, "") for url, why in robots_unread(conn) if why == "" and url not in have])


def digest(robots: Sequence[tuple[str, str]], agents: Sequence[str]) -> str:
    h = hashlib.sha256()
    for url, text in robots:
        h.update(url.encode("utf-8", "replace") + b"\0" + text.encode("utf-8", "replace") + b"\0")
    h.update("\0".join(agents).encode())
    return h.hexdigest()


def forget_entries(conn: sqlite3.Connection, entries: str) -> None:
    """The entries the query ``entries`` selects are about to be deleted (their file fetched
    again): their verdicts go, and the table reads as computed only up to the first of them,
    since the new rows may take their ids (SQLite gives a new row the largest id + 1)."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'access'").fetchone() is None:
        return
    first = conn.execute(f"SELECT MIN(id) FROM ({entries})").fetchone()[0]
    if first is None:
        return
    conn.execute(f"DELETE FROM access WHERE entry_id IN ({entries})")
    row = conn.execute("SELECT value FROM meta WHERE key = 'access'").fetchone()
    state = json.loads(row[0]) if row else None
    if isinstance(state, dict) and isinstance(state.get("upto"), int) and state["upto"] >= first:
        state["upto"] = first - 1
        conn.execute("UPDATE meta SET value = ? WHERE key = 'access'", (json.dumps(state),))


def computed(conn: sqlite3.Connection) -> bool:
    """The table was computed for this store (it may have rows to judge since)."""
    return conn.execute("SELECT 1 FROM meta WHERE key = 'access'").fetchone() is not None


class AccessTable:
    """The table on one connection: ``temp`` when that connection may not write the store (a
    saved exploration opened read-only)."""

    def __init__(self, conn: sqlite3.Connection, *, temp: bool = False,
                 publish: Callable[[], None] | None = None) -> None:
        """``publish``: the store's own commit-and-go-on (``Store.publish``) when ``conn`` is a
        store's writer connection, which is always in a transaction of the store's; None for a
        connection of this table's own (read-only store, TEMP table)."""
        self.conn = conn
        self.temp = temp
        self._publish = publish
        self.schema = "temp" if self.temp else "main"
        conn.execute(f"CREATE TABLE IF NOT EXISTS {self.schema}.access("
                     "entry_id INTEGER PRIMARY KEY, blocked INTEGER NOT NULL, unknown INTEGER NOT NULL)")

    # -- what it was computed from ------------------------------------------------------------
    def state(self) -> dict[str, object]:
        if self.temp:
            row = self.conn.execute("SELECT value FROM temp.access_meta").fetchone() if self._has_temp_meta() else None
        else:
            row = self.conn.execute("SELECT value FROM meta WHERE key = 'access'").fetchone()
        try:
            value = json.loads(row[0]) if row else {}
        except (TypeError, ValueError):
            value = {}
        return value if isinstance(value, dict) else {}

    def _has_temp_meta(self) -> bool:
        return self.conn.execute(
            "SELECT 1 FROM temp.sqlite_master WHERE name = 'access_meta'").fetchone() is not None

    def _save_state(self, state: dict[str, object]) -> None:
        value = json.dumps(state)
        if self.temp:
            self.conn.execute("CREATE TABLE IF NOT EXISTS temp.access_meta(value TEXT)")
            self.conn.execute("DELETE FROM temp.access_meta")
            self.conn.execute("INSERT INTO temp.access_meta VALUES(?)", (value,))
        else:
            self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('access', ?)", (value,))

    # -- computing ----------------------------------------------------------------------------
    def last_entry(self) -> int:
        return int(self.conn.execute("SELECT COALESCE(MAX(id), 0) FROM entries").fetchone()[0])

    def reset(self) -> None:
        self.conn.execute(f"DELETE FROM {self.schema}.access")
        self._settle()

    def _settle(self) -> None:
        if self._publish is not None:
            self._publish()
        elif self.conn.in_transaction:
            # a read-only store's connection opens transactions implicitly (Python's sqlite3
            # default): end them, so the explicit BEGIN below never nests
            self.conn.commit()

    def pending(self, after: int, upto: int) -> Iterator[list[tuple[int, str | None]]]:
        """The entries after id ``after`` up to ``upto``, (id, loc) in batches."""
        while True:
            rows = self.conn.execute(
                "SELECT id, loc FROM entries WHERE id > ? AND id <= ? ORDER BY id LIMIT ?",
                (after, upto, BATCH)).fetchall()
            if not rows:
                return
            yield rows
            after = rows[-1][0]

    def write(self, rows: Sequence[tuple[int, int, int]], state: dict[str, object]) -> None:
        """(entry id, blocked, unknown) rows and what they were computed from, in one
        transaction: a run stopped between two batches leaves a table that says how far it got."""
        if self._publish is not None:  # in the store's transaction, committed by publish
            self.conn.executemany(f"INSERT OR REPLACE INTO {self.schema}.access VALUES(?, ?, ?)", rows)
            self._save_state(state)
            self._publish()
            return
        self._settle()
        self.conn.execute("BEGIN")
        try:
            self.conn.executemany(
                f"INSERT OR REPLACE INTO {self.schema}.access VALUES(?, ?, ?)", rows)
            self._save_state(state)
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def save_state(self, state: dict[str, object]) -> None:
        self._save_state(state)
        self._settle()

    # -- counting -----------------------------------------------------------------------------
    def counts(self, agents: Sequence[str], node_path: str | None = None) -> AccessCounts:
        """The matrix of the entries under the node whose ``nodes.path`` is ``node_path`` (all
        entries when None)."""
        sums = ", ".join(f"COALESCE(SUM(a.blocked >> {i} & 1), 0)" for i in range(len(agents)))
        sql = (f"SELECT COUNT(*), COALESCE(SUM(a.unknown), 0){', ' + sums if sums else ''} "
               f"FROM {self.schema}.access a")
        params: tuple[object, ...] = ()
        if node_path is not None:
            sql += (" JOIN entries e ON e.id = a.entry_id WHERE e.node_id IN "
                    "(SELECT id FROM nodes WHERE path LIKE ? ESCAPE '\\')")
            params = (_like_prefix(node_path),)
        row = self.conn.execute(sql, params).fetchone()
        return AccessCounts(tuple(agents), int(row[0]), int(row[1]), tuple(int(v) for v in row[2:]))

    def per_file(self, agents: Sequence[str]) -> list[tuple[int, str, AccessCounts]]:
        """(node id, its URL, its matrix) of every file with entries, in node order."""
        sums = "".join(f", COALESCE(SUM(a.blocked >> {i} & 1), 0)" for i in range(len(agents)))
        out = []
        for row in self.conn.execute(
                f"SELECT n.id, COALESCE(n.final_url, n.url), COUNT(*), COALESCE(SUM(a.unknown), 0){sums} "
                f"FROM {self.schema}.access a JOIN entries e ON e.id = a.entry_id "
                f"JOIN nodes n ON n.id = e.node_id GROUP BY n.id ORDER BY {tree_order('n')}"):
            out.append((int(row[0]), str(row[1]),
                        AccessCounts(tuple(agents), int(row[2]), int(row[3]), tuple(int(v) for v in row[4:]))))
        return out

    def rows(self, mask: int | None = None) -> Iterator[tuple[str | None, str, int, int]]:
        """(loc, sitemap URL, blocked, unknown) of every entry in entry order; with ``mask``,
        only those blocked for one of its agents."""
        where = "" if mask is None else " WHERE a.blocked & ? != 0"
        params: tuple[object, ...] = () if mask is None else (mask,)
        yield from self.conn.execute(
            f"SELECT e.loc, COALESCE(n.final_url, n.url), a.blocked, a.unknown FROM {self.schema}.access a "
            "JOIN entries e ON e.id = a.entry_id JOIN nodes n ON n.id = e.node_id"
            f"{where} ORDER BY a.entry_id", params)


def _like_prefix(path: str) -> str:
    return path.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def blocked_condition(index: int, blocked: bool = True) -> tuple[str, list[object]]:
    """The URL table's ``blocked:AGENT`` (``allowed:AGENT``) condition on entries ``e``, for the
    agent at ``index`` of the table's list: URLs of unknown access match neither."""
    op = "!=" if blocked else "="
    return (f"e.id IN (SELECT entry_id FROM access WHERE unknown = 0 AND (blocked >> ? & 1) {op} 0)",
            [index])


def stored_counts(conn: sqlite3.Connection, node_ids: Sequence[int]) -> AccessCounts | None:
    """The matrix of the entries of ``node_ids`` as the store keeps it, read-only (the explorer's
    Overview): None when the table was never computed on this store or covers none of them.
    Entries added since it was computed are not counted: ``urls`` says how many were."""
    if not node_ids:
        return None
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'access'").fetchone()
        state = json.loads(row[0]) if row else None
        agents = state.get("agents") if isinstance(state, dict) else None
        if not isinstance(agents, list) or not agents or not all(isinstance(a, str) for a in agents):
            return None
        sums = "".join(f", COALESCE(SUM(a.blocked >> {i} & 1), 0)" for i in range(len(agents)))
        marks = ",".join("?" * len(node_ids))
        got = conn.execute(
            f"SELECT COUNT(*), COALESCE(SUM(a.unknown), 0){sums} FROM access a"
            f" JOIN entries e ON e.id = a.entry_id WHERE e.node_id IN ({marks})", tuple(node_ids)).fetchone()
        # (a run cancelled with x, or rows fetched since: the Overview says how many wait)
        listed = conn.execute(f"SELECT COUNT(*) FROM entries WHERE node_id IN ({marks})", tuple(node_ids)).fetchone()
    except (sqlite3.OperationalError, TypeError, ValueError):
        return None  # no access table (never computed), or a meta value this version cannot read
    if not got or not got[0]:
        return None
    return AccessCounts(tuple(agents), int(got[0]), int(got[1]), tuple(int(v) for v in got[2:]), int(listed[0]))

"""Cross-file rules: checks over the whole set of sitemaps, run as SQL over the store.

Everything that compares URLs across files works on a temporary table of normalised URL keys
(``cf_keys``: one row per entry, indexed on the key), so duplicate detection, host variants and
trailing-slash variants are GROUP BYs and index joins inside SQLite, never a Python dict of
every URL. The keys, hreflang targets and hreflang set signatures come with the rows
(engine.keys, computed in the parser workers); only rows stored without them are filled in here.
Python only loops over small results (duplicate keys, distinct hosts, nodes) and, for
robots.txt, over entries and videos streamed in keyset batches (protego has to look at each URL;
hosts whose robots.txt has no Disallow line are skipped without calling it).

Each rule reports at most :data:`ISSUE_CAP` issues, plus one summary issue saying how many more
there were. Running again first deletes the issues of the rules it is about to run, so the TUI
can re-run the rules after expanding more of the tree.

``index-cycle`` is a cross-file rule of the catalogue, but the explorer reports it while it
walks the tree (it is the one that sees the cycle), so it is not repeated here.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from sitemap_tui.engine.keys import entry_columns, link_columns
from sitemap_tui.engine.model import Issue
from sitemap_tui.engine.robots import RobotsFile, parse_robots
from sitemap_tui.engine.store import Store, connect
from sitemap_tui.engine.urlpolicy import canonical_host, host_of
from sitemap_tui.validate.registry import RULES, format_message, make_issue, template_fields
from sitemap_tui.words import noun, plural

__all__ = [
    "CROSSFILE_RULES",
    "CrossFileCancelled",
    "ISSUE_CAP",
    "issue",
    "run_crossfile",
]

#: The rules this module produces (index-cycle comes from the explorer).
CROSSFILE_RULES: tuple[str, ...] = (
    "cross-duplicate-url",
    "cross-duplicate-conflicting",
    "cross-mixed-scheme",
    "cross-mixed-www",
    "cross-trailing-slash-variants",
    "cross-mobile-and-desktop",
    "hreflang-no-return-link",
    "hreflang-cluster-inconsistent",
    "hreflang-target-not-in-sitemaps",
    "lastmod-all-identical",
    "priority-all-equal",
    "index-gsc-limit",
    "robots-url-disallowed",
    "robots-sitemap-file-disallowed",
    "video-files-not-accessible",  # robots.txt here; streaming-only protocols in the checker
)

ISSUE_CAP = 10_000  # issues per rule; the rest is one summary issue
LASTMOD_MIN_VALUES = 20  # lastmod-all-identical: only with at least this many lastmods
LASTMOD_SHARE = 0.95  # ... and at least this share on one instant / calendar day
# priority-all-equal: a handful of URLs before "no relative signal" means anything
PRIORITY_MIN_URLS = 5
GSC_INDEX_LIMIT = 500  # index-gsc-limit
ROBOTS_BATCH = 5000  # entries per keyset batch for robots-url-disallowed
FILL_BATCH = 5000  # entries per keyset batch when filling in missing keys
COUNT_CHUNK = 10_000  # rows read at a time when counting what is over the cap
URL_AGENTS = ("Googlebot", "Bingbot")  # robots-url-disallowed
VIDEO_AGENT = "Googlebot"  # video-files-not-accessible: Google's requirement
VIDEO_FILES = ("content_loc", "player_loc", "thumbnail_loc")
# The reason this module gives for video-files-not-accessible; the checker's (streaming-only
# protocols) ends otherwise, so a re-run replaces only its own findings.
VIDEO_REASON = "{robots} disallows it for " + VIDEO_AGENT
FILE_AGENTS = ("Googlebot", "Bingbot", "YandexBot")  # robots-sitemap-file-disallowed
INDEX_NAMES = ("index.html", "index.htm", "index.php")  # /dir/ vs /dir/index.html
MOBILE_PREFIXES = ("m.", "mobile.")
DAY = 86400
ORIGIN_WALK = 2000  # origins counted range by range before one GROUP BY does the rest
SIDE_SAMPLE = 100_000  # keys looked at to pick the rarer side of trailing-slash pairs

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
PRIORITY_SQL = (
    "SELECT node_id, COUNT(*), COUNT(priority), MIN(priority), MAX(priority)"
    " FROM entries GROUP BY node_id ORDER BY node_id"
)

_ORIGIN_RE = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://([^/?#\s]*)")
_DISALLOW_RE = re.compile(r"^[ \t]*disallow[ \t]*:[ \t]*[^\s#]", re.IGNORECASE | re.MULTILINE)
_AGENT_GROUP_RE = re.compile(
    r"^[ \t]*user-?agent[ \t]*:[ \t]*[^\n#]*(google|bing|yandex)", re.IGNORECASE | re.MULTILINE
)
_DEFAULT_PORTS = {"http": "80", "https": "443"}


def issue(
    rule_id: str,
    node_id: int | None = None,
    line: int | None = None,
    url: str | None = None,
    **fields: object,
) -> Issue:
    """``make_issue``, where a template's ``{url}`` may name another URL than the issue's.

    The issue's ``url`` is the entry's URL; ``url_field=`` (default: ``url``) is what a
    ``{url}`` in the message shows (the video file, the thumbnail ...).
    """
    rule = RULES[rule_id]
    if "url" in template_fields(rule):
        value = fields.pop("url_field", None)
        fields["url"] = url if value is None else value
        return Issue(
            rule=rule_id,
            severity=rule.severity,
            message=format_message(rule, fields),
            node_id=node_id,
            line=line,
            url=url,
        )
    fields.pop("url_field", None)
    return make_issue(rule_id, node_id=node_id, line=line, url=url, **fields)


def _origin(url: str | None) -> str | None:
    """``scheme://host[:port]`` lower-cased (IDNA for an IDN host), default port dropped (the
    robots.txt scope)."""
    if not url:
        return None
    m = _ORIGIN_RE.match(url.strip())
    if m is None:
        return None
    scheme = m.group(1).lower()
    hostport = m.group(2).rpartition("@")[2].lower()
    host, sep, port = hostport.rpartition(":")
    if sep and not host.endswith("]") and "]" not in port and port == _DEFAULT_PORTS.get(scheme):
        hostport = host
    if not hostport:
        return None
    if not hostport.isascii():
        # an IDN host in its one form: robots.txt read from bücher.example covers the
        # xn--bcher-kva.example URLs, and the other way round
        name, colon, port = hostport.rpartition(":")
        if not colon or not port.isdigit():
            name, colon, port = hostport, "", ""
        hostport = canonical_host(name) + colon + port
    return f"{scheme}://{hostport}"


def _bare_host(hostport: str) -> str:
    h = hostport.rpartition("@")[2]
    if h.startswith("["):
        return h.partition("]")[0] + "]"
    return h.partition(":")[0]


def _day(day: int) -> str:
    """A day number (days since 1970-01-01 UTC) as YYYY-MM-DD."""
    try:
        return datetime.fromtimestamp(day * DAY, UTC).strftime("%Y-%m-%d")
    except (OverflowError, OSError, ValueError):
        return f"day {day}"


class _Sink:
    """Issues on their way to the store: capped per rule, written in batches."""

    def __init__(self, store: Store, cap: int) -> None:
        self.store = store
        self.cap = cap
        self.count: Counter[str] = Counter()
        self.extra: Counter[str] = Counter()
        self.written = 0
        self._issues: list[Issue] = []
        self._ids: list[int | None] = []

    def room(self, rule: str) -> int:
        return max(0, self.cap - self.count[rule])

    def add(self, issue: Issue, entry_id: int | None = None) -> None:
        if self.count[issue.rule] >= self.cap:
            self.extra[issue.rule] += 1
            return
        self.count[issue.rule] += 1
        self._issues.append(issue)
        self._ids.append(entry_id)
        if len(self._issues) >= 2000:
            self.flush()

    def more(self, rule: str, n: int) -> None:
        if n > 0:
            self.extra[rule] += n

    def flush(self) -> None:
        if self._issues:
            self.store.add_issues(self._issues, self._ids)
            self.written += len(self._issues)
            self._issues, self._ids = [], []

    def finish(self, node_id: int | None) -> int:
        for rule_id, n in sorted(self.extra.items()):
            rule = RULES[rule_id]
            self._issues.append(
                Issue(
                    rule=rule_id,
                    severity=rule.severity,
                    message=f"{n:,} more {rule_id} {noun(n, 'issue')} not listed (at most {self.cap:,} per rule)",
                    node_id=node_id,
                )
            )
            self._ids.append(None)
        self.flush()
        return self.written


class CrossFileCancelled(Exception):
    """``cancel`` was set: the run stopped between two steps (the caller rolls back)."""


class _SideQueries:
    """Queries over the entries table alone, run on a second (read-only) connection in a
    thread while the main one builds its key tables. sqlite3 lets go of the GIL while a
    statement steps, so both cores work (10 M URLs: the two GROUP BYs, ~9 s, disappear
    behind the key table). Without a database file to share they run inline when asked."""

    def __init__(self, store: Store, queries: dict[str, str]) -> None:
        self.queries = queries
        self.results: dict[str, list[tuple[Any, ...]]] = {}
        self.thread: threading.Thread | None = None
        self._conn: sqlite3.Connection | None = None
        self._stop = threading.Event()
        if queries and store.path.is_file():
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


class _CrossFile:
    def __init__(
        self,
        store: Store,
        enabled: set[str] | None,
        robots: dict[str, RobotsFile] | None,
        cap: int,
        cancel: threading.Event | None = None,
        keep_temp: bool = False,
        on_step: Callable[[str], None] | None = None,
    ) -> None:
        self.store = store
        self.cancel = cancel
        self.keep_temp = keep_temp
        self.on_step = on_step
        self.conn: sqlite3.Connection = store.conn
        self.rules = {r for r in CROSSFILE_RULES if enabled is None or r in enabled}
        self.robots = robots
        self.sink = _Sink(store, cap)
        self._temp: list[str] = []
        self.side = _SideQueries(store, {})
        self._entry_cache: dict[int, tuple[int, int | None, str | None]] = {}

    # -- plumbing ----------------------------------------------------------------------------
    def on(self, *rules: str) -> bool:
        self.check_cancel()  # asked before every step
        return any(r in self.rules for r in rules)

    def step(self, what: str) -> None:
        if self.on_step is not None:
            self.on_step(what)

    def check_cancel(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise CrossFileCancelled("cross-file checks cancelled")

    def q(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self.check_cancel()
        return self.conn.execute(sql, params).fetchall()

    def batches(self, sql: str, size: int) -> Iterator[list[tuple[Any, ...]]]:
        """Rows of ``sql`` (id first; ``id > ?`` and ``ORDER BY id LIMIT ?``) in keyset batches,
        so millions of entries never sit in memory at once."""
        last = 0
        while rows := self.q(sql, (last, size)):
            last = rows[-1][0]
            yield rows

    def temp(self, name: str, ddl: str) -> None:
        self.conn.execute(f"DROP TABLE IF EXISTS temp.{name}")
        self.conn.execute(ddl)
        self._temp.append(name)

    def capped(self, rule: str, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of ``sql`` up to the rule's remaining room; the rest is only counted.

        The rest is counted by reading on, not by a second ``SELECT COUNT(*)``: most of these
        queries group or join their way to every row before the first one comes out, so a
        second run cost as much as the first (1 M hreflang URLs: 3.2 s of 6.3 s)."""
        room = self.sink.room(rule)
        self.check_cancel()
        cursor = self.conn.execute(sql, params)
        rows = cursor.fetchmany(room) if room else []
        extra = 0
        while chunk := cursor.fetchmany(COUNT_CHUNK):
            extra += len(chunk)
        self.sink.more(rule, extra)
        return rows

    def entry(self, entry_id: int) -> tuple[int, int | None, str | None]:
        """(node_id, line, loc) of one entry."""
        got = self._entry_cache.get(entry_id)
        if got is None:
            row = self.q("SELECT node_id, line, loc FROM entries WHERE id=?", (entry_id,))
            got = row[0] if row else (0, None, None)
            if len(self._entry_cache) < 4096:
                self._entry_cache[entry_id] = got
        return got

    def add_for_entry(self, rule: str, entry_id: int, **fields: object) -> None:
        node_id, line, loc = self.entry(entry_id)
        self.sink.add(make_issue(rule, node_id=node_id, line=line, url=loc, **fields), entry_id)

    def root_node(self) -> int | None:
        row = self.q("SELECT id FROM nodes WHERE parent_id IS NULL ORDER BY id LIMIT 1")
        return row[0][0] if row else None

    def node_urls(self) -> dict[int, str]:
        return dict(self.q("SELECT id, url FROM nodes"))

    # -- run ---------------------------------------------------------------------------------
    def run(self) -> int:
        if not self.rules:
            return 0
        threads = self.q("PRAGMA threads")[0][0]
        # CREATE INDEX sorts in parallel with sorter threads (10 M keys: 13.6 s -> 9.4 s)
        self.conn.execute(f"PRAGMA threads={min(4, os.cpu_count() or 1)}")
        side: dict[str, str] = {}
        if self.on("lastmod-all-identical"):
            side["lastmod"] = LASTMOD_SQL
        if self.on("priority-all-equal"):
            side["priority"] = PRIORITY_SQL
        self.side = _SideQueries(self.store, side)
        try:
            self._forget_previous()
            url_rules = (
                "cross-duplicate-url",
                "cross-duplicate-conflicting",
                "cross-mixed-scheme",
                "cross-mixed-www",
                "cross-trailing-slash-variants",
                "cross-mobile-and-desktop",
                "hreflang-no-return-link",
                "hreflang-cluster-inconsistent",
                "hreflang-target-not-in-sitemaps",
            )
            if self.on(*url_rules):
                self.step("normalising the URLs")
                self._fill_keys()
                self._build_keys()
            if self.on(
                "hreflang-no-return-link",
                "hreflang-cluster-inconsistent",
                "hreflang-target-not-in-sitemaps",
                "cross-duplicate-conflicting",
            ):
                self.step("collecting the hreflang links")
                self._build_alternates()
            if self.on("cross-duplicate-url", "cross-duplicate-conflicting"):
                self.step("duplicate URLs")
                self._duplicates()
            if self.on("cross-mixed-scheme", "cross-mixed-www", "cross-mobile-and-desktop"):
                self.step("hosts and schemes")
                self._hosts()
            if self.on("cross-trailing-slash-variants"):
                self.step("trailing-slash variants")
                self._trailing_slash()
            if self.on(
                "hreflang-no-return-link",
                "hreflang-cluster-inconsistent",
                "hreflang-target-not-in-sitemaps",
            ):
                self.step("hreflang return links")
                self._hreflang()
            if self.on("lastmod-all-identical"):
                self.step("lastmod and priority")
                self._lastmod_identical()
            if self.on("priority-all-equal"):
                self._priority_equal()
            if self.on("index-gsc-limit"):
                self._gsc_limit()
            if self.on(
                "robots-url-disallowed",
                "robots-sitemap-file-disallowed",
                "video-files-not-accessible",
            ):
                self.step("robots.txt rules")
                self._robots()
            return self.sink.finish(self.root_node())
        finally:
            self.side.close()
            for name in reversed(self._temp if not self.keep_temp else []):
                self.conn.execute(f"DROP TABLE IF EXISTS temp.{name}")
            self.conn.execute(f"PRAGMA threads={int(threads)}")

    def _forget_previous(self) -> None:
        """Drop issues of these rules from an earlier run (keeping entries.n_issues right)."""
        rules = sorted(self.rules - {"video-files-not-accessible"})
        marks = ",".join("?" * len(rules))
        mine = f"rule IN ({marks})"
        params: list[Any] = list(rules)
        if "video-files-not-accessible" in self.rules:
            # shared with the checker: only the robots.txt findings (and a cap summary) are ours
            mine = f"({mine} OR (rule = ? AND (entry_id IS NULL OR message LIKE ?)))"
            params += ["video-files-not-accessible", "%" + VIDEO_REASON.format(robots="")]
        # Count per entry first: a correlated COUNT per entry would scan the issues table
        # (no index on entry_id) once per entry.
        self.temp(
            "cf_forget",
            "CREATE TEMP TABLE cf_forget(entry_id INTEGER PRIMARY KEY, n INTEGER NOT NULL)",
        )
        self.conn.execute(
            "INSERT INTO temp.cf_forget SELECT entry_id, COUNT(*) FROM issues"
            f" WHERE {mine} AND entry_id IS NOT NULL GROUP BY entry_id",
            params,
        )
        self.conn.execute(
            "UPDATE entries SET n_issues = MAX(0, n_issues -"
            " (SELECT n FROM temp.cf_forget f WHERE f.entry_id = entries.id))"
            " WHERE id IN (SELECT entry_id FROM temp.cf_forget)"
        )
        self.conn.execute(f"DELETE FROM issues WHERE {mine}", params)

    # -- keys --------------------------------------------------------------------------------
    def _fill_keys(self) -> None:
        """Compute the keys of entries stored without them (a store written by an earlier
        version): rows from the parser arrive with them (engine.keys, in the workers)."""
        secret = self.store.signature_key()
        for batch in self.batches(
            "SELECT id, loc FROM entries WHERE alt_n IS NULL AND id > ? ORDER BY id LIMIT ?", FILL_BATCH
        ):
            first, last = batch[0][0], batch[-1][0]
            links: dict[int, list[tuple[str, str]]] = defaultdict(list)
            updates: list[tuple[str | None, str | None, int]] = []
            for rowid, eid, rel, lang, href in self.q(
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

    def _build_keys(self) -> None:
        self.temp(
            "cf_keys",
            "CREATE TEMP TABLE cf_keys(entry_id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL,"
            " key TEXT NOT NULL)",
        )
        self.conn.execute(
            "INSERT INTO temp.cf_keys(entry_id, node_id, key)"
            " SELECT id, node_id, COALESCE(key, loc) FROM entries WHERE key IS NULL OR key <> ''"
        )
        self.conn.execute("CREATE INDEX temp.cf_keys_key ON cf_keys(key, node_id)")

    def _build_alternates(self) -> None:
        """``cf_alt``: the hreflang links of each entry (engine.keys.hreflang_link), with the
        entry's own key as ``src``; ``cf_sig``: per entry, the signature of its set of links."""
        self.temp(
            "cf_alt",
            "CREATE TEMP TABLE cf_alt(entry_id INTEGER NOT NULL, src TEXT NOT NULL,"
            " lang TEXT NOT NULL, tgt TEXT NOT NULL, href TEXT)",
        )
        self.temp(
            "cf_sig",
            "CREATE TEMP TABLE cf_sig(entry_id INTEGER PRIMARY KEY, src TEXT NOT NULL,"
            " n INTEGER NOT NULL, h INTEGER NOT NULL)",
        )
        self.conn.execute(
            "INSERT INTO temp.cf_alt(entry_id, src, lang, tgt, href)"
            " SELECT a.entry_id, k.key, a.lang, COALESCE(a.tgt, a.href), trim(a.href)"
            " FROM alternates a JOIN temp.cf_keys k ON k.entry_id = a.entry_id"
            " WHERE a.lang IS NOT NULL"
        )
        self.conn.execute("CREATE INDEX temp.cf_alt_entry ON cf_alt(entry_id, lang, tgt, src)")
        self.conn.execute("CREATE INDEX temp.cf_alt_src ON cf_alt(src, tgt)")
        self.conn.execute(
            "INSERT INTO temp.cf_sig SELECT k.entry_id, k.key, e.alt_n, e.alt_h FROM entries e"
            " JOIN temp.cf_keys k ON k.entry_id = e.id WHERE alt_n > 0"
        )
        self.conn.execute("CREATE INDEX temp.cf_sig_src ON cf_sig(src)")

    # -- duplicates --------------------------------------------------------------------------
    def _duplicates(self) -> None:
        # One row per (duplicated key, node): its first entry in that node.
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
        # the copy in the file listed first (not the lowest entry id: ids follow the order the
        # parsed rows arrived in, which varies with the files in flight); within one file, its
        # first occurrence. SQLite takes entry_id from the row that has the MIN.
        self._rank_nodes()
        self.conn.execute(
            "INSERT INTO temp.cf_first SELECT key, entry_id FROM (SELECT d.key AS key,"
            " d.entry_id AS entry_id, MIN(r.rank) FROM temp.cf_dup d"
            " JOIN temp.cf_rank r ON r.node_id = d.node_id GROUP BY d.key)"
        )
        base = (
            " FROM temp.cf_dup d JOIN temp.cf_first f ON f.key = d.key"
            " JOIN entries e ON e.id = d.entry_id JOIN entries fe ON fe.id = f.first_id"
            " JOIN nodes n ON n.id = fe.node_id"
        )
        if self.on("cross-duplicate-url"):
            for eid, node_id, line, loc, other_url, other_line in self.capped(
                "cross-duplicate-url",
                "SELECT d.entry_id, e.node_id, e.line, e.loc, n.url, fe.line"
                + base
                + " WHERE d.entry_id <> f.first_id ORDER BY d.entry_id",
            ):
                self.sink.add(
                    make_issue(
                        "cross-duplicate-url",
                        node_id=node_id,
                        line=line,
                        url=loc,
                        other=_where(other_url, other_line),
                    ),
                    eid,
                )
        if self.on("cross-duplicate-conflicting"):
            # An RSS item's date is its publication date, not a modification date: comparing it
            # with a <lastmod> would flag every post that was ever edited.
            no_rss = "ne.kind <> 'rss' AND n.kind <> 'rss'"
            lastmod = f"CASE WHEN {no_rss} THEN e.lastmod END"
            first_lastmod = f"CASE WHEN {no_rss} THEN fe.lastmod END"
            rows = self.capped(
                "cross-duplicate-conflicting",
                "SELECT d.entry_id, e.node_id, e.line, e.loc, n.url, fe.line,"
                f" {lastmod} AS lm, {first_lastmod} AS flm, e.lastmod_raw, fe.lastmod_raw,"
                " e.priority, fe.priority, e.priority_raw, fe.priority_raw,"
                " e.changefreq, fe.changefreq, se.h, sf.h, se.n, sf.n"
                + base
                + " JOIN nodes ne ON ne.id = e.node_id"
                " LEFT JOIN temp.cf_sig se ON se.entry_id = d.entry_id"
                " LEFT JOIN temp.cf_sig sf ON sf.entry_id = f.first_id"
                " WHERE d.entry_id <> f.first_id AND (lm <> flm"
                "  OR e.priority <> fe.priority OR e.changefreq <> fe.changefreq"
                "  OR se.h <> sf.h OR se.n <> sf.n)"
                " ORDER BY d.entry_id",
            )
            for (
                eid,
                node_id,
                line,
                loc,
                other_url,
                other_line,
                lm,
                flm,
                lmr,
                flmr,
                pr,
                fpr,
                prr,
                fprr,
                cf,
                fcf,
                sig,
                fsig,
                n,
                fn,
            ) in rows:
                what = []
                if lm is not None and flm is not None and lm != flm:
                    what.append(f"lastmod ({(lmr or '').strip()!r} vs {(flmr or '').strip()!r})")
                if pr is not None and fpr is not None and pr != fpr:
                    what.append(f"priority ({(prr or '').strip()} vs {(fprr or '').strip()})")
                if cf is not None and fcf is not None and cf != fcf:
                    what.append(f"changefreq ({cf} vs {fcf})")
                if sig is not None and fsig is not None and (sig != fsig or n != fn):
                    what.append(f"hreflang set ({n} vs {fn} alternates)")
                self.sink.add(
                    make_issue(
                        "cross-duplicate-conflicting",
                        node_id=node_id,
                        line=line,
                        url=loc,
                        other=_where(other_url, other_line),
                        what=", ".join(what),
                    ),
                    eid,
                )

    def _rank_nodes(self) -> None:
        """``temp.cf_rank``: each file's place in the listing, a stable order whatever order
        the files were parsed in: parents before their children, siblings in the order their
        parent lists them (its line), then by id (a folder's files are added sorted)."""
        children: dict[int | None, list[tuple[bool, int, int]]] = defaultdict(list)
        ids: list[int] = []
        for nid, parent, line in self.q("SELECT id, parent_id, line FROM nodes"):
            children[parent].append((line is None, line or 0, nid))
            ids.append(nid)
        order: list[int] = []
        stack = sorted(children.get(None, ()), reverse=True)
        while stack:
            nid = stack.pop()[2]
            order.append(nid)
            stack.extend(sorted(children.get(nid, ()), reverse=True))
        seen = set(order)
        order += sorted(n for n in ids if n not in seen)  # a parent not in the store
        self.temp("cf_rank", "CREATE TEMP TABLE cf_rank(node_id INTEGER PRIMARY KEY, rank INTEGER)")
        self.conn.executemany(
            "INSERT INTO temp.cf_rank VALUES(?, ?)", ((nid, i) for i, nid in enumerate(order))
        )

    # -- hosts -------------------------------------------------------------------------------
    def _hosts(self) -> None:
        rows = self.origin_counts()
        # bare host -> scheme -> [count, first entry id]
        hosts: dict[str, dict[str, list[int]]] = defaultdict(dict)
        for scheme, hostport, n, first in rows:
            host = _bare_host(hostport or "")
            if not host:
                continue
            slot = hosts[host].setdefault(scheme, [0, first])
            slot[0] += n
            slot[1] = min(slot[1], first)
        totals = {
            h: (sum(v[0] for v in s.values()), min(v[1] for v in s.values()))
            for h, s in hosts.items()
        }
        if self.on("cross-mixed-scheme"):
            for host in sorted(hosts):
                schemes = hosts[host]
                if "http" in schemes and "https" in schemes:
                    minority = "http" if schemes["http"][0] <= schemes["https"][0] else "https"
                    self.add_for_entry("cross-mixed-scheme", schemes[minority][1], host=host)
        if self.on("cross-mixed-www"):
            for host in sorted(totals):
                if not host.startswith("www.") or host[4:] not in totals:
                    continue
                bare = host[4:]
                (nw, fw), (nb, fb) = totals[host], totals[bare]
                minority, majority, first = (host, bare, fw) if nw <= nb else (bare, host, fb)
                self.add_for_entry("cross-mixed-www", first, host=minority, other_host=majority)
        if self.on("cross-mobile-and-desktop"):
            for host in sorted(totals):
                for prefix in MOBILE_PREFIXES:
                    if not host.startswith(prefix) or len(host) <= len(prefix):
                        continue
                    base = host[len(prefix) :]
                    desktop = next((d for d in (base, "www." + base) if d in totals), None)
                    if desktop is not None:
                        self.add_for_entry(
                            "cross-mobile-and-desktop",
                            totals[host][1],
                            host=host,
                            other_host=desktop,
                        )
                    break

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
            got = self.q(f"SELECT key FROM temp.cf_keys WHERE key {op} ? ORDER BY key LIMIT 1", (bound,))
            if not got:
                return rows
            key = got[0][0]
            p = key.find("://")
            slash = key.find("/", p + 3) if p >= 0 else -1
            if slash < 0:  # an odd key: counted on its own (GROUP BY below gives the same)
                n, first = self.q(
                    "SELECT COUNT(*), MIN(entry_id) FROM temp.cf_keys WHERE key = ?", (key,)
                )[0]
                if p >= 0:
                    rows.append((key[:p], "/", n, first))
                bound, strict = key, True
                continue
            prefix = key[: slash + 1]
            upper = key[:slash] + "0"  # the first string after every "…/…" with this prefix
            n, first = self.q(
                "SELECT COUNT(*), MIN(entry_id) FROM temp.cf_keys WHERE key >= ? AND key < ?",
                (prefix, upper),
            )[0]
            rows.append((key[:p], key[p + 3 : slash], n, first))
            bound, strict = upper, False
        op = ">" if strict else ">="
        rows += self.q(
            "SELECT scheme, host, COUNT(*), MIN(entry_id) FROM ("
            " SELECT substr(key, 1, p - 1) AS scheme,"
            "  substr(key, p + 3, instr(substr(key, p + 3), '/') - 1) AS host, entry_id"
            f" FROM (SELECT key, instr(key, '://') AS p, entry_id FROM temp.cf_keys WHERE key {op} ?)"
            " WHERE p > 0) GROUP BY scheme, host",
            (bound,),
        )
        return rows

    def _trailing_slash(self) -> None:
        rule = "cross-trailing-slash-variants"
        # Each pair is found by probing the key index from one side. Probing from every key costs
        # a B-tree descent per URL (35 s on 10 M URLs); a site's URLs mostly either end in "/" or
        # do not, so probe from the rarer side, and for /dir/ vs /dir/index.html from the index
        # pages (few). Which side is rarer only matters for speed: a sample of the keys tells
        # (counting all of them is a scan of its own, 1.5 s on 10 M URLs).
        slashed, total = self.q(
            "SELECT COALESCE(SUM(substr(key, -1) = '/'), 0), COUNT(*) FROM"
            f" (SELECT key FROM temp.cf_keys ORDER BY entry_id LIMIT {SIDE_SAMPLE})"
        )[0]
        if slashed <= total - slashed:
            plain_pairs = (
                " SELECT b.entry_id AS v, a.entry_id AS p, a.key AS ak, b.key AS bk"
                " FROM temp.cf_keys b JOIN temp.cf_keys a ON a.key = substr(b.key, 1, length(b.key) - 1)"
                " WHERE substr(b.key, -1) = '/' AND substr(a.key, -1) <> '/' AND instr(a.key, '?') = 0"
            )
        else:
            plain_pairs = (
                " SELECT b.entry_id AS v, a.entry_id AS p, a.key AS ak, b.key AS bk"
                " FROM temp.cf_keys a JOIN temp.cf_keys b ON b.key = a.key || '/'"
                " WHERE substr(a.key, -1) <> '/' AND instr(a.key, '?') = 0"
            )
        # one scan for every index page name (a key ends in at most one of them)
        cut = " ".join(
            f"WHEN substr(key, -{len(name) + 1}) = '/{name}' THEN {len(name)}" for name in INDEX_NAMES
        )
        index_pairs = (
            " SELECT b.entry_id, a.entry_id, a.key, b.key"
            f" FROM (SELECT entry_id, key, CASE {cut} END AS cut FROM temp.cf_keys) b"
            " JOIN temp.cf_keys a ON a.key = substr(b.key, 1, length(b.key) - b.cut)"
            " WHERE b.cut IS NOT NULL AND substr(a.key, -1) = '/' AND instr(a.key, '?') = 0"
        )
        sql = f"SELECT MIN(v), MIN(p) FROM ({plain_pairs} UNION ALL {index_pairs}) GROUP BY ak, bk ORDER BY 1"
        for variant_id, plain_id in self.capped(rule, sql):
            node_id, line, loc = self.entry(variant_id)
            other = self.entry(plain_id)[2]
            self.sink.add(
                issue(rule, node_id=node_id, line=line, url=loc, other=other),
                variant_id,
            )

    # -- hreflang ----------------------------------------------------------------------------
    def _hreflang(self) -> None:
        if self.on("hreflang-target-not-in-sitemaps"):
            rule = "hreflang-target-not-in-sitemaps"
            for eid, href in self.capped(
                rule,
                "SELECT a.entry_id, MIN(a.href) FROM temp.cf_alt a WHERE a.tgt <> a.src"
                " AND NOT EXISTS (SELECT 1 FROM temp.cf_keys k WHERE k.key = a.tgt)"
                " GROUP BY a.entry_id, a.tgt ORDER BY a.entry_id, a.tgt",
            ):
                self.add_for_entry(rule, eid, target=href)
        if self.on("hreflang-no-return-link"):
            rule = "hreflang-no-return-link"
            for eid, href in self.capped(
                rule,
                "SELECT a.entry_id, MIN(a.href) FROM temp.cf_alt a WHERE a.tgt <> a.src"
                " AND EXISTS (SELECT 1 FROM temp.cf_keys k WHERE k.key = a.tgt)"
                " AND NOT EXISTS (SELECT 1 FROM temp.cf_alt r WHERE r.src = a.tgt"
                "  AND r.tgt = a.src)"
                " GROUP BY a.entry_id, a.tgt ORDER BY a.entry_id, a.tgt",
            ):
                self.add_for_entry(rule, eid, target=href)
        if self.on("hreflang-cluster-inconsistent"):
            rule = "hreflang-cluster-inconsistent"
            for eid, other_id in self.capped(
                rule,
                "SELECT a.entry_id, MIN(sb.entry_id) FROM temp.cf_alt a"
                " JOIN temp.cf_sig sa ON sa.entry_id = a.entry_id"
                " JOIN temp.cf_sig sb ON sb.src = a.tgt AND (sb.h <> sa.h OR sb.n <> sa.n)"
                " WHERE a.tgt <> a.src GROUP BY a.entry_id ORDER BY a.entry_id",
            ):
                self.add_for_entry(rule, eid, detail=self._cluster_detail(eid, other_id))

    def _alt_set(self, entry_id: int) -> dict[str, set[str]]:
        out: dict[str, set[str]] = defaultdict(set)
        for lang, tgt in self.q("SELECT lang, tgt FROM temp.cf_alt WHERE entry_id=?", (entry_id,)):
            out[tgt].add(lang)
        return out

    def _cluster_detail(self, entry_id: int, other_id: int) -> str:
        mine, theirs = self._alt_set(entry_id), self._alt_set(other_id)
        other_loc = (self.entry(other_id)[2] or "").strip()
        parts: list[str] = []
        for tgt in sorted(mine.keys() & theirs.keys()):
            if mine[tgt] != theirs[tgt]:
                parts.append(
                    f"{tgt} is {'/'.join(sorted(mine[tgt]))} here but"
                    f" {'/'.join(sorted(theirs[tgt]))} there"
                )
        for tgt in sorted(mine.keys() - theirs.keys()):
            parts.append(f"{tgt} ({'/'.join(sorted(mine[tgt]))}) is missing there")
        for tgt in sorted(theirs.keys() - mine.keys()):
            parts.append(f"{tgt} ({'/'.join(sorted(theirs[tgt]))}) is only there")
        shown = "; ".join(parts[:3]) + (f"; {len(parts) - 3} more" if len(parts) > 3 else "")
        return (
            f"{other_loc} lists {plural(sum(len(v) for v in theirs.values()), 'alternate')}, this entry"
            f" {sum(len(v) for v in mine.values())}: {shown or 'different sets'}"
        )

    # -- per-file and set-wide value checks ----------------------------------------------------
    def _lastmod_identical(self) -> None:
        rule = "lastmod-all-identical"
        got = self.side.rows("lastmod", self.conn)
        rows = sorted(r for r in got if r[0] is not None)
        g = [(day, c) for node_id, day, c, _ in got if node_id is None]
        fetch_day = _fetch_day(self.store)
        headers = dict(self.q("SELECT id, last_modified FROM nodes"))
        for node_id, top_day, top, total in rows:
            if total < LASTMOD_MIN_VALUES or top < LASTMOD_SHARE * total:
                continue
            share, value = self._lastmod_value(top_day, top, total, node_id)
            value += _day_notes(top_day, fetch_day, headers.get(node_id))
            self.sink.add(make_issue(rule, node_id=node_id, share=share, total=total, value=value))
        if len(rows) < 2:
            return  # the set is one file: already said above
        total = sum(r[3] for r in rows)
        if not g or total < LASTMOD_MIN_VALUES or g[0][1] < LASTMOD_SHARE * total:
            return
        share, value = self._lastmod_value(g[0][0], g[0][1], total, None)
        value += _day_notes(g[0][0], fetch_day, None) + f" across all {len(rows)} sitemaps"
        self.sink.add(
            make_issue(rule, node_id=self.root_node(), share=share, total=total, value=value)
        )

    def _lastmod_value(
        self, day: int, top: int, total: int, node_id: int | None
    ) -> tuple[float, str]:
        """(share, wording): the same instant when one instant carries the share, else the day."""
        where = "node_id = ? AND " if node_id is not None else ""
        params: list[Any] = [node_id] if node_id is not None else []
        inst = self.q(
            f"SELECT lastmod, COUNT(*) AS c, MIN(lastmod_raw) FROM entries WHERE {where}"
            " lastmod >= ? AND lastmod < ? GROUP BY lastmod ORDER BY c DESC LIMIT 1",
            (*params, day * DAY, (day + 1) * DAY),
        )
        if inst and inst[0][1] >= LASTMOD_SHARE * total:
            return inst[0][1] / total, f"the same instant ({(inst[0][2] or '').strip()})"
        return top / total, f"on the same day ({_day(day)})"

    def _priority_equal(self) -> None:
        rule = "priority-all-equal"
        rows = self.side.rows("priority", self.conn)
        for node_id, n, with_p, lo, hi in rows:
            if n >= PRIORITY_MIN_URLS and with_p == n and lo == hi:
                self.sink.add(make_issue(rule, node_id=node_id, total=n, value=_fmt_priority(lo)))
        if len(rows) < 2:
            return
        n = sum(r[1] for r in rows)
        if (
            n >= PRIORITY_MIN_URLS
            and all(r[2] == r[1] for r in rows)
            and len({r[3] for r in rows} | {r[4] for r in rows}) == 1
        ):
            self.sink.add(
                make_issue(
                    rule,
                    node_id=self.root_node(),
                    total=n,
                    value=f"{_fmt_priority(rows[0][3])} in all {len(rows)} sitemaps",
                )
            )

    def _gsc_limit(self) -> None:
        by_host: dict[str, list[int]] = defaultdict(list)
        for node_id, url in self.q("SELECT id, url FROM nodes WHERE kind = 'index' ORDER BY id"):
            by_host[host_of(url) or ""].append(node_id)
        for _host, ids in sorted(by_host.items()):
            if len(ids) > GSC_INDEX_LIMIT:
                self.sink.add(make_issue("index-gsc-limit", node_id=ids[0], count=len(ids)))

    # -- robots.txt ----------------------------------------------------------------------------
    def _robots_by_origin(self) -> dict[str, RobotsFile]:
        robots = self.robots
        if robots is None:
            robots = {}
            for key, value in self.q("SELECT key, value FROM meta WHERE key LIKE 'robots:%'"):
                url = key[len("robots:") :]
                try:
                    text = json.loads(value)
                except (TypeError, ValueError):
                    continue
                if isinstance(text, str):
                    robots[url] = parse_robots(text.encode("utf-8"), url)
        out: dict[str, RobotsFile] = {}
        for url, rf in robots.items():
            for u in (url, rf.url):
                origin = _origin(u)
                if origin is not None:
                    out.setdefault(origin, rf)
        return out

    def _robots(self) -> None:
        by_origin = self._robots_by_origin()
        # Only robots files with a Disallow rule can disallow anything.
        active = {o: rf for o, rf in by_origin.items() if _DISALLOW_RE.search(rf.text or "")}
        if not active:
            return
        # Without a group naming these crawlers, every agent falls back to "*": ask once.
        agents_for = {
            o: (URL_AGENTS if _AGENT_GROUP_RE.search(rf.text) else URL_AGENTS[:1])
            for o, rf in active.items()
        }
        if self.on("robots-sitemap-file-disallowed"):
            for node_id, url in self.q(
                "SELECT id, url FROM nodes WHERE kind NOT IN ('site', 'directory', 'robots')"
                " ORDER BY id"
            ):
                rf = active.get(_origin(url) or "")
                if rf is None:
                    continue
                if any(not rf.allowed(url, agent) for agent in FILE_AGENTS):
                    self.sink.add(issue("robots-sitemap-file-disallowed", node_id=node_id, url=url))
        if self.on("video-files-not-accessible"):
            self._video_files(active)
        if not self.on("robots-url-disallowed"):
            return
        rule = "robots-url-disallowed"
        for rows in self.batches(
            "SELECT id, node_id, line, loc FROM entries WHERE id > ? ORDER BY id LIMIT ?", ROBOTS_BATCH
        ):
            groups: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
            for row in rows:
                origin = _origin(row[3])
                if origin in active:
                    groups[origin].append(row)
            for origin, items in groups.items():
                rf, agents = active[origin], agents_for[origin]
                for eid, node_id, line, loc in items:
                    u = loc.strip()
                    blocked = [a for a in agents if not rf.allowed(u, a)]
                    if not blocked:
                        continue
                    if len(agents) == 1:
                        agent = "Googlebot and Bingbot (the * group)"
                    else:
                        agent = " and ".join(blocked)
                    self.sink.add(
                        make_issue(rule, node_id=node_id, line=line, url=loc, agent=agent), eid
                    )

    def _video_files(self, active: dict[str, RobotsFile]) -> None:
        """video-files-not-accessible: a video's content, player or thumbnail URL that the
        robots.txt of its own origin keeps Googlebot from (on the video's line)."""
        rule = "video-files-not-accessible"
        for rows in self.batches(
            "SELECT v.rowid, e.id, e.node_id, COALESCE(v.line, e.line), e.loc, v.data"
            " FROM videos v JOIN entries e ON e.id = v.entry_id"
            " WHERE v.rowid > ? ORDER BY v.rowid LIMIT ?",
            ROBOTS_BATCH,
        ):
            for _rowid, eid, node_id, line, loc, data in rows:
                try:
                    fields = json.loads(data).get("fields") or {}
                except (TypeError, ValueError, AttributeError):
                    continue
                for name in VIDEO_FILES:
                    value = fields.get(name)
                    target = value.strip() if isinstance(value, str) else ""
                    rf = active.get(_origin(target) or "")
                    if rf is None or rf.allowed(target, VIDEO_AGENT):
                        continue
                    self.sink.add(
                        make_issue(
                            rule,
                            node_id=node_id,
                            line=line,
                            url=loc,
                            element=f"<video:{name}>",
                            value=target,
                            reason=VIDEO_REASON.format(robots=rf.url),
                        ),
                        eid,
                    )


def _where(url: str | None, line: int | None) -> str:
    return f"{url} (line {line})" if line else (url or "?")


def _fmt_priority(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{value:.1f}" if value * 10 == int(value * 10) else f"{value:g}"


def _fetch_day(store: Store) -> int | None:
    started = store.get_meta("started")
    if not isinstance(started, str):
        return None
    try:
        when = datetime.fromisoformat(started)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp()) // DAY


def _header_day(value: str | None) -> int | None:
    if not value:
        return None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp()) // DAY


def _day_notes(day: int, fetch_day: int | None, last_modified: str | None) -> str:
    notes = []
    if fetch_day is not None and day == fetch_day:
        notes.append("the day the sitemaps were fetched")
    if _header_day(last_modified) == day:
        notes.append("the sitemap's own Last-Modified day")
    return f" ({'; '.join(notes)}: very likely generated)" if notes else ""


def run_crossfile(
    store: Store,
    *,
    enabled: set[str] | None = None,
    robots: dict[str, RobotsFile] | None = None,
    cap: int = ISSUE_CAP,
    cancel: threading.Event | None = None,
    keep_temp: bool = False,
    on_step: Callable[[str], None] | None = None,
) -> int:
    """Run every enabled cross-file rule over the store; store the issues and return how many.

    ``enabled``: rule ids to run (None = all). ``robots``: robots.txt URL -> parsed file (the
    explorer's ``robots``); when None, the bodies kept in the store's meta (``robots:<url>``)
    are parsed again. ``cap``: at most this many issues per rule, then one summary issue.
    ``cancel``: once set, the run raises :class:`CrossFileCancelled` before its next step (set it
    and ``interrupt()`` the store's connection to stop a long statement too); what it wrote so
    far is in the store's open transaction, for the caller to roll back. ``keep_temp``: leave
    the temporary tables for the connection's close to discard (a DROP walks every page: ~5 s
    for the key table of 10 M URLs; closing deletes the file at once); the next run replaces them.
    ``on_step``: called with a short label as each step starts (progress for a long run).
    """
    return _CrossFile(store, enabled, robots, max(1, cap), cancel, keep_temp, on_step).run()

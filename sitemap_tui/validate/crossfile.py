"""Cross-file rules: checks over the whole set of sitemaps, run as SQL over the store.

The queries (and the temporary key tables they work on) are the store's
(engine.store.crossfile.CrossFileQueries); this module decides what their rows mean and what is
reported. Python only loops over small results (duplicate keys, distinct hosts, nodes) and, for
robots.txt, over entries and videos streamed in keyset batches. The robots.txt rules are in
crossfile_robots, the lastmod and priority rules in crossfile_values; this module runs them all.

Each rule reports at most :data:`ISSUE_CAP` issues, plus one summary issue saying how many more
there were. Running again first deletes the issues of the rules it is about to run, so the TUI
can re-run the rules after expanding more of the tree.

``index-cycle`` is a cross-file rule of the catalogue, but the explorer reports it while it
walks the tree (it is the one that sees the cycle), so it is not repeated here.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from sitemap_tui.engine.model import Issue
from sitemap_tui.engine.robots import RobotsFile
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.crossfile import CrossFileQueries
from sitemap_tui.engine.tree_order import listing_order
from sitemap_tui.engine.urlpolicy import host_of
from sitemap_tui.validate.crossfile_order import Positions, first_listed
from sitemap_tui.validate.crossfile_robots import (
    disallowed_entries,
    disallowed_files,
    disallowed_videos,
    disallowing,
    robots_by_origin,
)
from sitemap_tui.validate.crossfile_sink import Sink, forget
from sitemap_tui.validate.crossfile_values import fetch_day, lastmod_identical, priority_equal
from sitemap_tui.validate.registry import RULES, format_message, make_issue, template_fields
from sitemap_tui.words import plural


class SplitFound(Protocol):
    """What a split run (validate/crossfile_split.py) found, as this module takes it."""

    origins: list[tuple[str, str, int, int]]

    def give(self, sink: Sink, *rules: str, position: Callable[[], Positions]) -> None: ...


# (store, rules (and MISSING_SELF when it is said), cap, check for a cancel, step, origin ->
# (url, text) of each robots.txt that disallows something) -> what the children found
Split = Callable[
    [Store, set[str], int, Callable[[], None], Callable[[str], None], dict[str, tuple[str, str]]], SplitFound
]

__all__ = [
    "CROSSFILE_RULES",
    "CrossFileCancelled",
    "ISSUE_CAP",
    "issue",
    "run_crossfile",
]

#: The rules this module produces (index-cycle comes from the explorer).
KEY_RULES = (  # the rules over the URL keys alone
    "cross-duplicate-url",
    "cross-duplicate-conflicting",
    "cross-mixed-scheme",
    "cross-mixed-www",
    "cross-trailing-slash-variants",
    "cross-mobile-and-desktop",
)
CROSSFILE_RULES: tuple[str, ...] = (
    *KEY_RULES,
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
GSC_INDEX_LIMIT = 500  # index-gsc-limit
ROBOTS_BATCH = 5000  # entries per keyset batch for robots-url-disallowed
COUNT_CHUNK = 10_000  # rows read at a time when counting what is over the cap
INDEX_NAMES = ("index.html", "index.htm", "index.php")  # /dir/ vs /dir/index.html
MOBILE_PREFIXES = ("m.", "mobile.")
HREFLANG_RULES = (  # in the order they are reported
    "hreflang-target-not-in-sitemaps",
    "hreflang-no-return-link",
    "hreflang-cluster-inconsistent",
)
URL_RULES = (*KEY_RULES, *HREFLANG_RULES)  # the rules that need the URL keys
# a per-file rule: while it is said, a cluster whose sets differ only by a missing self link is
# its finding, not also hreflang-cluster-inconsistent's (_inconsistent_clusters)
MISSING_SELF = "hreflang-missing-self"



def issue(
    rule_id: str,
    node_id: int | None = None,
    line: int | None = None,
    url: str | None = None,
    **fields: Any,
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


def _bare_host(hostport: str) -> str:
    h = hostport.rpartition("@")[2]
    if h.startswith("["):
        return h.partition("]")[0] + "]"
    return h.partition(":")[0]


class CrossFileCancelled(Exception):
    """``cancel`` was set: the run stopped between two steps (the caller rolls back)."""


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
        split: Split | None = None,
    ) -> None:
        self.store = store
        self.cancel = cancel
        self.keep_temp = keep_temp
        self.on_step = on_step
        self.rules = {r for r in CROSSFILE_RULES if enabled is None or r in enabled}
        self.missing_self_said = enabled is None or MISSING_SELF in enabled
        self.robots = robots
        self.sink = self.make_sink(store, cap)
        self.db = self.make_queries(store)
        self._order: list[int] | None = None  # the listing order of the files (_node_order)
        self._positions: Positions | None = None  # the entries' places in it (_position)
        self._active: dict[str, RobotsFile] | None = None  # (_active_robots)
        self.split = split

    def make_sink(self, store: Store, cap: int) -> Sink:
        return Sink(store, cap)

    def make_queries(self, store: Store) -> CrossFileQueries:
        return CrossFileQueries(store, self.check_cancel)

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

    def capped(self, rule: str, cursor: sqlite3.Cursor | Iterator[tuple[Any, ...]],
               node_column: int | None = None) -> list[tuple[Any, ...]]:
        """Rows of ``cursor`` (entry id first, its file's id in ``node_column`` if the rows have
        it) up to the rule's remaining room, the rest only counted; over the cap, the first
        ones in the listing's order (crossfile_order).

        The rest is counted by reading on, not by a second ``SELECT COUNT(*)``: most of these
        queries group or join their way to every row before the first one comes out, so a
        second run cost as much as the first (1 M hreflang URLs: 3.2 s of 6.3 s)."""
        def key() -> Callable[[tuple[Any, ...]], tuple[int, int]]:
            at = self._position()
            return at.of_entry(0) if node_column is None else at.of_node(node_column, 0)

        # (every capped query is in entry id order)
        rows, extra = first_listed(_rows(cursor) if isinstance(cursor, sqlite3.Cursor) else cursor,
                                   self.sink.room(rule), key,
                                   lambda: self._position().ids_follow_listing())
        self.sink.more(rule, extra)
        return rows

    def add_for_entry(self, rule: str, entry_id: int, **fields: Any) -> None:
        node_id, line, loc = self.db.entry(entry_id)
        self.sink.add(make_issue(rule, node_id=node_id, line=line, url=loc, **fields), entry_id)

    # -- run ---------------------------------------------------------------------------------
    def run(self) -> int:
        if not self.rules:
            return 0
        side: list[str] = []
        if self.on("lastmod-all-identical"):
            side.append("lastmod")
        if self.on("priority-all-equal"):
            side.append("priority")
        try:
            found = self._run_split() if self.split is not None else None
            if found is None:
                self.db.start(side)
                self._forget_previous()
            if found is None and self.on(*URL_RULES):
                self.step("normalising the URLs")
                self.db.fill_keys()
                self.db.build_keys()
            if found is None and self.on(*HREFLANG_RULES, "cross-duplicate-conflicting"):
                self.step("collecting the hreflang links")
                self.db.build_alternates()
            if self.on("cross-duplicate-url", "cross-duplicate-conflicting"):
                self.step("duplicate URLs")
                if found is None:
                    self._duplicates()
                else:
                    found.give(self.sink, "cross-duplicate-url", "cross-duplicate-conflicting",
                               position=self._position)
            if self.on("cross-mixed-scheme", "cross-mixed-www", "cross-mobile-and-desktop"):
                self.step("hosts and schemes")
                self._hosts(None if found is None else found.origins)
            if self.on("cross-trailing-slash-variants"):
                self.step("trailing-slash variants")
                if found is None:
                    self._trailing_slash()
                else:
                    found.give(self.sink, "cross-trailing-slash-variants", position=self._position)
            if self.on(*HREFLANG_RULES):
                self.step("hreflang return links")
                if found is None:
                    self._hreflang()
                else:
                    found.give(self.sink, *HREFLANG_RULES, position=self._position)
            if self.on("lastmod-all-identical"):
                self.step("lastmod and priority")
                if found is None:
                    for got in lastmod_identical(self.db, fetch_day(self.store)):
                        self.sink.add(got)
                else:
                    found.give(self.sink, "lastmod-all-identical", position=self._position)
            if self.on("priority-all-equal"):
                if found is None:
                    for got in priority_equal(self.db):
                        self.sink.add(got)
                else:
                    found.give(self.sink, "priority-all-equal", position=self._position)
            if self.on("index-gsc-limit"):
                self._gsc_limit()
            if self.on(
                "robots-url-disallowed",
                "robots-sitemap-file-disallowed",
                "video-files-not-accessible",
            ):
                self.step("robots.txt rules")
                self._robots(found)
            return self.finish()
        finally:
            self.db.finish(self.keep_temp)

    def finish(self) -> int:
        return self.sink.finish(self.db.root_node())

    def _run_split(self) -> SplitFound:
        """The rules over every key, in the split's processes (validate/crossfile_split.py); the
        rows they read are committed first, the earlier issues forgotten after, so a cancel
        (a rollback) keeps them."""
        assert self.split is not None
        if self.on(*URL_RULES):
            self.step("normalising the URLs")
            self.db.fill_keys()  # a store of an earlier version: the children read the keys
        self.store.publish()
        self._forget_previous()
        robots = {}
        if self.on("robots-url-disallowed"):  # the part children check their share of the entries
            robots = {origin: (rf.url, rf.text) for origin, rf in self._active_robots().items()}
        # (the hreflang child judges clusters as this process would: it must know what is said)
        said = self.rules | ({MISSING_SELF} if self.missing_self_said else set())
        return self.split(self.store, said, self.sink.cap, self.check_cancel, self.step, robots)

    def _forget_previous(self) -> None:
        forget(self.store, self.rules)

    # -- duplicates --------------------------------------------------------------------------
    def _duplicates(self) -> None:
        # the copy in the file listed first (not the lowest entry id: ids follow the order the
        # parsed rows arrived in, which varies with the files in flight); within one file, its
        # first occurrence.
        self.db.build_duplicates(self._node_order())
        if self.on("cross-duplicate-url"):
            for eid, node_id, line, loc, other_url, other_line in self.capped(
                "cross-duplicate-url", self.db.duplicate_copies(), node_column=1
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
            rows = self.capped("cross-duplicate-conflicting", self.db.conflicting_copies(), node_column=1)
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

    def _node_order(self) -> list[int]:
        """Each file's place in the listing (engine.tree_order.listing_order), a stable order
        whatever order the files were parsed in. Worked out once a run."""
        if self._order is None:
            self._order = listing_order(self.db.node_tree())
        return self._order

    def _position(self) -> Positions:
        """Each entry's place in the listing (made once a run, when a rule is first over its
        cap)."""
        if self._positions is None:
            self._positions = Positions(self._node_order(), self.db.entry_runs, self.db.node_id_ranges)
        return self._positions

    # -- hosts -------------------------------------------------------------------------------
    def _hosts(self, rows: Iterable[tuple[str, str, int, int]] | None = None) -> None:
        """``rows``: (scheme, host, keys, first entry id) per origin, summed here when an
        origin comes in several rows (one per part of a split run); None: counted here."""
        if rows is None:
            rows = self.db.origin_counts()
        # bare host -> scheme -> [count, lowest entry id, its hosts with their ports]
        hosts: dict[str, dict[str, tuple[list[int], set[str]]]] = defaultdict(dict)
        for scheme, hostport, n, first in rows:
            host = _bare_host(hostport or "")
            if not host:
                continue
            slot, ports = hosts[host].setdefault(scheme, ([0, first], set()))
            slot[0] += n
            slot[1] = min(slot[1], first)
            ports.add(hostport)
        totals = {h: sum(v[0][0] for v in s.values()) for h, s in hosts.items()}

        def first_listed(host: str, scheme: str | None = None) -> int:
            """The host's (and scheme's) first URL in the listing's order, which is the same
            whatever order the files were parsed in: the lowest entry id is not (with several
            workers, ids follow the order the files' rows arrived in)."""
            picked = [(sch, v) for sch, v in hosts[host].items() if scheme is None or sch == scheme]
            prefixes = [f"{sch}://{hp}/" for sch, (_, ports) in picked for hp in sorted(ports)]
            lowest = min(v[0][1] for _, v in picked)
            return self.db.first_listed(prefixes, self._node_order(), lowest)

        if self.on("cross-mixed-scheme"):
            for host in sorted(hosts):
                schemes = hosts[host]
                if "http" in schemes and "https" in schemes:
                    minority = "http" if schemes["http"][0][0] <= schemes["https"][0][0] else "https"
                    self.add_for_entry("cross-mixed-scheme", first_listed(host, minority), host=host)
        if self.on("cross-mixed-www"):
            for host in sorted(totals):
                if not host.startswith("www.") or host[4:] not in totals:
                    continue
                bare = host[4:]
                minority, majority = (host, bare) if totals[host] <= totals[bare] else (bare, host)
                self.add_for_entry("cross-mixed-www", first_listed(minority), host=minority, other_host=majority)
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
                            first_listed(host),
                            host=host,
                            other_host=desktop,
                        )
                    break

    def _trailing_slash(self) -> None:
        rule = "cross-trailing-slash-variants"
        variants = self.db.slash_variants(INDEX_NAMES, self._node_order())
        for variant_id, plain_id in self.capped(rule, variants):
            node_id, line, loc = self.db.entry(variant_id)
            other = self.db.entry(plain_id)[2]
            self.sink.add(
                issue(rule, node_id=node_id, line=line, url=loc, other=other),
                variant_id,
            )

    # -- hreflang ----------------------------------------------------------------------------
    def _hreflang(self) -> None:
        if self.on("hreflang-target-not-in-sitemaps"):
            rule = "hreflang-target-not-in-sitemaps"
            for eid, href in self.capped(rule, self.db.hreflang_targets_not_listed()):
                self.add_for_entry(rule, eid, target=href)
        if self.on("hreflang-no-return-link"):
            rule = "hreflang-no-return-link"
            for eid, href in self.capped(rule, self.db.hreflang_without_return()):
                self.add_for_entry(rule, eid, target=href)
        if self.on("hreflang-cluster-inconsistent"):
            rule = "hreflang-cluster-inconsistent"
            for eid, other_id in self.capped(rule, self._inconsistent_clusters()):
                self.add_for_entry(rule, eid, detail=self._cluster_detail(eid, other_id))

    def _inconsistent_clusters(self) -> Iterator[tuple[int, int]]:
        """(entry, one of its cluster's with another set), less a difference that is only a missing
        self link (hreflang-missing-self's: one omitted link gave three findings)."""
        for eid, other_id in self.db.hreflang_other_sets():
            mine, theirs = self._alt_set(eid), self._alt_set(other_id)
            if self.missing_self_said and _only_missing_self(mine, theirs, self.db.hreflang_source(eid),
                                                self.db.hreflang_source(other_id)):
                continue
            yield eid, other_id

    def _alt_set(self, entry_id: int) -> dict[str, set[str]]:
        out: dict[str, set[str]] = defaultdict(set)
        for lang, tgt in self.db.hreflang_links(entry_id):
            out[tgt].add(lang)
        return out

    def _cluster_detail(self, entry_id: int, other_id: int) -> str:
        mine, theirs = self._alt_set(entry_id), self._alt_set(other_id)
        other_loc = (self.db.entry(other_id)[2] or "").strip()
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
    def _gsc_limit(self) -> None:
        by_host: dict[str, list[int]] = defaultdict(list)
        for node_id, url in self.db.index_nodes():
            by_host[host_of(url) or ""].append(node_id)
        for _host, ids in sorted(by_host.items()):
            if len(ids) > GSC_INDEX_LIMIT:
                self.sink.add(make_issue("index-gsc-limit", node_id=ids[0], count=len(ids)))

    # -- robots.txt ----------------------------------------------------------------------------
    def _active_robots(self) -> dict[str, RobotsFile]:
        """Origin -> its robots.txt, of those that disallow something (read once a run: a split
        run passes them to its children first, then checks the files and videos here)."""
        if self._active is None:
            kept = self.db.robots_bodies() if self.robots is None else ()
            self._active = disallowing(robots_by_origin(self.robots, kept))
        return self._active

    def _robots(self, found: SplitFound | None = None) -> None:
        """``found``: a split run's, which checked the entries against robots.txt."""
        active = self._active_robots()
        if not active:
            return
        if self.on("robots-sitemap-file-disallowed"):
            for got in disallowed_files(active, self.db.sitemap_files()):
                self.sink.add(got)
        if self.on("video-files-not-accessible"):
            self._add_capped("video-files-not-accessible",
                             disallowed_videos(active, self.db.video_batches(ROBOTS_BATCH)), in_id_order=False)
        if self.on("robots-url-disallowed"):
            if found is not None:
                found.give(self.sink, "robots-url-disallowed", position=self._position)
            else:
                self._add_capped("robots-url-disallowed",
                                 disallowed_entries(active, self.db.entry_batches(ROBOTS_BATCH)), in_id_order=True)

    def _add_capped(self, rule: str, found: Iterable[tuple[Issue, int]], in_id_order: bool) -> None:
        """``found`` ((issue, entry id) each; ``in_id_order``: by entry id) to the sink, capped as
        :meth:`capped`."""
        kept, extra = first_listed(found, self.sink.room(rule), lambda: self._position().of_issue(0, 1),
                                   (lambda: self._position().ids_follow_listing()) if in_id_order else None)
        for issue, eid in kept:
            self.sink.add(issue, eid)
        self.sink.more(rule, extra)


def _rows(cursor: sqlite3.Cursor) -> Iterable[tuple[Any, ...]]:
    while chunk := cursor.fetchmany(COUNT_CHUNK):
        yield from chunk


def _where(url: str | None, line: int | None) -> str:
    return f"{url} (line {line})" if line else (url or "?")


def run_crossfile(
    store: Store,
    *,
    enabled: set[str] | None = None,
    robots: dict[str, RobotsFile] | None = None,
    cap: int = ISSUE_CAP,
    cancel: threading.Event | None = None,
    keep_temp: bool = False,
    on_step: Callable[[str], None] | None = None,
    split: Split | None = None,
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
    ``split``: runs the rules over the URL keys in child processes (validate/crossfile_split.py's
    ``splitter``, which may raise its ``CrossFileFailed``); None runs them all in this process.
    """
    return _CrossFile(store, enabled, robots, max(1, cap), cancel, keep_temp, on_step, split).run()


def _only_missing_self(mine: dict[str, set[str]], theirs: dict[str, set[str]], me: str | None,
                       other: str | None) -> bool:
    """Whether two entries' hreflang sets (target -> languages) differ only by the link that
    one of them lacks to itself."""
    for tgt in mine.keys() | theirs.keys():
        if mine.get(tgt) == theirs.get(tgt):
            continue
        if (tgt == me and me not in mine) or (tgt == other and other not in theirs):
            continue
        return False
    return True

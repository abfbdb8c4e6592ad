"""The explorer's state and its node tree: the options, what every part of the explorer shares
(set up here), and the bookkeeping of nodes (added, changed, claimed by URL, reset), with their
fetch and their validator context. The parts above it: explore_robots.py (robots.txt), the
files' processing (explore_files.py), and the commands (explorer.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import operator
import sqlite3
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sitemap_tui.engine import urlpolicy
from sitemap_tui.engine.events import (
    Event,
    EventBuffer,
    IssuesAdded,
    NodeAdded,
    NodeChanged,
    Progress,
)
from sitemap_tui.engine.fetch import FetchConfig, Fetcher, FetchOutcome, fetch_local
from sitemap_tui.engine.filejob import (
    JobMessage,
)
from sitemap_tui.engine.findings import Finding, Judge, PlainJudge
from sitemap_tui.engine.leftout import LeftOut
from sitemap_tui.engine.limits import Limiter
from sitemap_tui.engine.localdir import FolderScan
from sitemap_tui.engine.model import (
    FileStats,
    FoundBy,
    Issue,
    Node,
    NodeKind,
    NodeState,
)
from sitemap_tui.engine.pool_gate import PoolGate
from sitemap_tui.engine.refetch import Refetch
from sitemap_tui.engine.robots import RobotsFile, SitemapLine
from sitemap_tui.engine.stats import Aggregate
from sitemap_tui.engine.store import Store, StoreError
from sitemap_tui.engine.validator import FileFacts, Validator
from sitemap_tui.engine.workers import WorkerPool

ROBOTS_MAX_BYTES = 500 * 1024
HOME_MAX_BYTES = 1024 * 1024
SITEMAP_KINDS = {NodeKind.INDEX, NodeKind.URLSET, NodeKind.RSS, NodeKind.ATOM, NodeKind.TEXT}
_NO_LEVEL = frozenset({NodeKind.SITE, NodeKind.ROBOTS, NodeKind.DIRECTORY})  # not counted by --depth
# parser findings after which a file is not usable as a sitemap, though entries before them
# were kept: its index gets index-child-unfetchable, like for a child that answers 404. A fatal
# error with a rule of its own (xml-unescaped-char, ...) says so at the end of its message.
UNPARSABLE_RULES = frozenset({"xml-not-well-formed", "xml-dtd-forbidden"})
# parser findings that say a file was read only up to a cap
CUT_RULES = {
    "url-count-over-limit": LeftOut.CUT_ENTRIES,
    "index-too-many-sitemaps": LeftOut.CUT_ENTRIES,
    "size-over-limit": LeftOut.CUT_SIZE,
}
FILE_KINDS = SITEMAP_KINDS | {NodeKind.UNKNOWN, NodeKind.HTML, NodeKind.JSON}


@dataclass
class ExploreOptions:
    recursive: bool = True
    max_depth: int = 10  # index levels below the first sitemaps (see _index_level)
    max_files: int = 10_000
    max_children: int = 50_000  # per index / robots.txt
    max_entries: int = 50_000  # entries kept per file (the protocol's limit; tests inject less)
    probe: bool = False  # probe common paths even when robots.txt names sitemaps
    # a site target's sitemaps read beside those discovery finds: a build folder's files that
    # nothing lists (cli/options.py, when the folder is read as the site its robots.txt names)
    also: tuple[str, ...] = ()
    follow_cross_host: bool = False  # index children on another host
    # seconds a headless run's explore() may take (0: no limit): then it stops as a cancel does,
    # and what it left is said as the time budget's (LeftOut.TIME)
    max_time: float = 0.0
    batch_size: int = 2000
    event_interval: float = 0.15
    # a file's batch also goes out this long after its last one (None: event_interval, what
    # a live view wants); a headless run, where nothing watches, sends fewer, larger batches
    flush_interval: float | None = None
    now: datetime | None = None  # injectable clock for checks and stats
    body_cache: Path | None = None  # keep decoded bodies here (the TUI's source view)
    output_format: str | None = None  # "txt"/"csv"/"jsonl": URL records go to on_output
    workers: int = 0  # worker processes for parsing (0: parse in this process)
    # with workers: they start only when the exploration has work enough to pay for them
    # (engine/pool_gate.py); False: from its first child file (`--workers N` given)
    lazy_pool: bool = False
    # per-file aggregates (the stats and lastmod panes, `stats`); a store that is thrown away
    # after `validate` needs none, and they cost about a tenth of a worker's time there
    file_stats: bool = True
    # with file_stats: a snapshot of a file's aggregates with each of its batches (the panes
    # show a file while it streams); False: at its end only (a headless run reads no more)
    live_stats: bool = True
    # other hosts whose robots.txt is read to settle cross-submissions (with a checker only;
    # 0: none, every location finding stays)
    cross_submit_hosts: int = 100
    # output_format only: also format URLs whose scheme is not http(s) (`urls --keep-non-http`)
    keep_non_http: bool = True
    # with a checker: read the site's robots.txt to judge the sitemaps (blocked URLs, the
    # cross-submission that voids location findings), whatever the target; False:
    # `validate --no-robots-checks`, said in robots_gaps
    robots_checks: bool = True
    # the explorer's re-exploration: its host asks each file against the site's latest saved
    # exploration (session/history.py open_previous, then Explorer.use_previous); --no-cache:
    # False. The headless commands hand their Refetch to the Explorer themselves.
    refetch: bool = False
    # the pages the explorer fetches, its audit's (u) and its deep checks': requests per second
    # per host, as `audit --rate` (0: no limit, for one's own servers); `sitemap-tui TARGET --rate`
    page_rate: float = 5.0


@dataclass
class DiscoveryRecord:
    url: str
    found_by: FoundBy
    detail: str
    node_id: int | None = None
    # what its first bytes showed (Explorer.check_discovered): None while unchecked, when a
    # node stands for it (a listed URL) and found means "listed"
    there: bool | None = None

    @property
    def found(self) -> bool:
        return self.node_id is not None if self.there is None else self.there


class ExplorerState:
    """What every part of the explorer shares, and the node tree's bookkeeping."""

    def __init__(
        self,
        *,
        store: Store | None = None,
        fetch_config: FetchConfig | None = None,
        options: ExploreOptions | None = None,
        checker: Validator | None = None,
        on_events: Callable[[list[Event]], None] | None = None,
        on_output: Callable[[str | bytes], None] | None = None,
        judge: Judge | None = None,
        previous: Refetch | None = None,
    ) -> None:
        self.store = store
        self.previous: Refetch | None = None
        if previous is not None:
            self.use_previous(previous)
        self.fetch_config = fetch_config or FetchConfig()
        self.options = options or ExploreOptions()
        self.checker = checker
        # words and grades the engine's findings: the validation layer's registry (the
        # checker's, with its rule selection, unless given); PlainJudge only when nothing is
        # plugged in
        self.judge: Judge = judge or (checker.judge if checker is not None else PlainJudge())
        self.on_output = on_output  # formatted URL records (options.output_format)
        self.output_left_out = 0  # URLs not formatted: not http(s) (options.keep_non_http)
        self._pool: WorkerPool | None = None
        self._aggs: dict[int, dict[str, Any]] = {}  # per-file stats when there is no store
        self.events = EventBuffer(on_events, self.options.event_interval)
        self.nodes: dict[int, Node] = {}
        self.children: dict[int | None, list[int]] = {}
        self.visited: dict[str, int] = {}  # normalised URL -> node id
        self.robots: dict[str, RobotsFile] = {}
        self.robots_listed: dict[str, set[str]] = {}  # normalised sitemap URL -> robots URLs
        self.sitemap_lines: dict[int, list[SitemapLine]] = {}  # per robots.txt node, its Sitemap: lines
        self.discovery: list[DiscoveryRecord] = []
        self.files_started = 0
        self._gate = PoolGate()  # when a lazy pool starts (FileProcessing._use_pool)
        self._next_id = store.next_node_id() if store is not None else 1
        self._fetcher: Fetcher | None = None
        self._running: dict[int, asyncio.Task[None]] = {}
        self._cancel = False
        self._local_ok: set[int] = set()  # nodes whose file: URL the user gave us
        self._last_error: dict[int, str] = {}  # node -> last error issue while parsing it
        self._unparsable: dict[int, Issue] = {}  # node -> the finding that made it unusable
        # the exploration's request slots: this process's fetches and the workers' share them
        self._limiter = Limiter(self.fetch_config.concurrency, self.fetch_config.per_host)
        # redirects (see _claim): node -> why its file is not parsed, and the final URL's key
        # each redirected node claimed in `visited`
        self._superseded: dict[int, str] = {}
        # nodes being fetched again by reload: never asked against the previous exploration
        self._in_full: set[int] = set()
        self._claimed: dict[int, str] = {}
        # robots.txt per origin for cross-submission (_robots_of): discovery's and other hosts'
        self._other_robots: dict[str, asyncio.Future[tuple[str, RobotsFile] | None]] = {}
        self._robots_reads = 0
        self._robots_not_read: set[str] = set()  # origins over options.cross_submit_hosts
        # what was left out (see left_out()): node -> cause, and causes with no node
        self._left: dict[int, LeftOut] = {}
        self._left_uncounted: Counter[LeftOut] = Counter()
        self._cut: dict[int, LeftOut] = {}  # node -> why its file was read only in part
        # nodes not fetched (again) because they are explored above themselves: nothing is
        # missing, but the site has a cycle, which headless urls says (validate: index-cycle)
        self.cycles: list[int] = []
        # files that failed inside this program (a worker process killed, a bug), not at the
        # site: a headless run's result is then incomplete through no fault of the site's
        self.internal_errors: list[int] = []
        self._stopped = False  # an expand-all was cancelled: what it left pending is too
        self._timed_out = False  # the headless run's --max-time ran out (Explorer.explore)
        self._explored = False  # explore() ran: pending files under --no-recursive are left out
        # a directory target: which of its files are sitemaps, and what was skipped and why
        self.folder: FolderScan | None = None
        # why the robots-based rules did not run (for a host, or at all), in words; only with a
        # checker, since nothing else judges by robots.txt
        self.robots_gaps: list[str] = []
        # what was cut of a robots.txt read with no node of its own (a sitemap URL target's)
        self.robots_notes: list[str] = []
        # the read of a sitemap URL target's robots.txt (see _start_target_robots)
        self._target_robots: asyncio.Future[None] | None = None
        self._robots_failed: dict[str, str] = {}  # origin -> why its robots.txt could not be read
        self._reached: set[int] = set()  # robots.txt nodes whose server took the request, then failed

    @property
    def now(self) -> datetime:
        return self.options.now or datetime.now(UTC)

    # -- tree ------------------------------------------------------------------------------
    def _new_node(
        self,
        url: str,
        *,
        parent: Node | None,
        found_by: FoundBy,
        kind: NodeKind = NodeKind.UNKNOWN,
        line: int | None = None,
        lastmod_raw: str | None = None,
    ) -> Node:
        node = Node(
            id=self._next_id,
            url=url,
            kind=kind,
            found_by=found_by,
            parent_id=parent.id if parent else None,
            depth=(parent.depth + 1) if parent else 0,
            line=line,
            lastmod_raw=lastmod_raw,
            expandable=kind in FILE_KINDS | {NodeKind.ROBOTS},
        )
        self._next_id += 1
        self.nodes[node.id] = node
        self.children.setdefault(node.parent_id, []).append(node.id)
        if self.store is not None:
            self.store.add_node(node)
        self.events.emit(NodeAdded(_snapshot(node)))
        return node

    def _changed(self, node: Node, *, persist: bool = True, agg: Any = None) -> None:
        if persist and self.store is not None:
            if isinstance(agg, dict):
                agg = Aggregate.from_json(agg)
            self.store.update_node(node, agg)
        self.events.emit(NodeChanged(_snapshot(node)))

    def _add_issues(self, node: Node | None, issues: Sequence[Issue], entry_ids: Sequence[int | None] | None = None) -> None:
        if not issues:
            return
        for iss in issues:
            if iss.node_id is None and node is not None:
                iss.node_id = node.id
        if self.store is not None:
            self.store.add_issues(issues, entry_ids)
        self.events.emit(IssuesAdded(node.id if node else None, len(issues)))

    def ancestors(self, node: Node) -> list[Node]:
        out = []
        pid = node.parent_id
        while pid is not None:
            parent = self.nodes[pid]
            out.append(parent)
            pid = parent.parent_id
        return out

    def _index_level(self, parent: Node) -> int:
        """The index level of a new child of ``parent``: the sitemaps above it. The site, its
        robots.txt and a folder are no level, so that --depth reads a site as it reads the
        sitemap robots.txt lists (`--depth 1 example.com` used to stop at robots.txt's list)."""
        return sum(1 for n in (parent, *self.ancestors(parent)) if n.kind not in _NO_LEVEL)

    def _add_child(
        self,
        parent: Node,
        url: str,
        found_by: FoundBy,
        *,
        line: int | None = None,
        lastmod_raw: str | None = None,
        follow: bool = True,
        why_not: str | None = None,
        cause: LeftOut | None = None,
        key: str | None = None,
    ) -> Node:
        """A child file node; repeated, cyclic, unfetchable or over-cap children are shown but
        skipped. ``follow=False``: not followed, for ``why_not`` (``cause`` for left_out()).
        ``key``: ``urlpolicy.normalize(url)`` when the caller has it already."""
        node = self._new_node(url, parent=parent, found_by=found_by, line=line, lastmod_raw=lastmod_raw)
        if key is None:
            key = urlpolicy.normalize(url)
        # local files are read only when the user named them (a directory's files): a file: URL
        # inside a sitemap is untrusted data like any other and is never opened
        local_ok = url.startswith("file:") and found_by == FoundBy.USER
        reason = None if local_ok else urlpolicy.unfetchable_reason(url)
        if reason:
            self._skip(node, f"not fetched: {reason}")
            self._left[node.id] = LeftOut.UNFETCHABLE
        elif key in self.visited:
            other = self.nodes.get(self.visited[key])
            if other is not None and (other is parent or other in self.ancestors(parent)):
                self._skip(node, f"cycle: this sitemap is already explored above (node {other.id})")
                self.cycles.append(node.id)
                self._add_issues(parent, self._cycle_issue(node, url, other))
            else:
                # the place that listed it first (its own URL named itself: found from outside)
                lister = self.nodes.get(other.parent_id) if other is not None and other.parent_id is not None else None
                where = ("found first by the site's discovery" if lister is not None and lister.kind == NodeKind.SITE
                         else f"listed also by {lister.url}" if lister is not None else "listed also elsewhere")
                self._skip(node, f"already explored ({where})")
        elif not follow:
            self._skip(node, why_not or "not followed")
            if cause is not None:
                self._left[node.id] = cause
        elif self._index_level(parent) > self.options.max_depth:
            self._skip(node, f"depth limit reached (--depth {self.options.max_depth})")
            self._left[node.id] = LeftOut.DEPTH
        else:
            self.visited[key] = node.id
            if local_ok:
                self._local_ok.add(node.id)
            if not urlpolicy.names_robots_txt(url):
                self._gate.listed += 1  # (a robots.txt is read here, never by the workers)
        return node

    def _judged(self, findings: Sequence[Finding]) -> list[Issue]:
        """The issues of the user's selection among ``findings``."""
        return [i for i in map(self.judge.issue, findings) if i is not None]

    def _cycle_issue(self, node: Node, target: str, other: Node) -> list[Issue]:
        """index-cycle on the line of the file that lists ``node`` (its parent), not on the
        node: that line is where the cycle is made."""
        chain = [n.url for n in reversed(self.ancestors(node))]
        chain = chain[chain.index(other.url):] if other.url in chain else chain
        hops = [*chain, node.url] + ([target] if target != node.url else [])
        path = " -> ".join(hops)
        found = self.judge.issue(Finding("index-cycle", {"path": path}, line=node.line, url=target), node.parent_id)
        return [found] if found is not None else []

    def _claim(self, node: Node, final_url: str) -> None:
        """A fetch of ``node`` was redirected to ``final_url``; its body is not parsed yet.

        Design: whether a URL is explored is decided here, on the explorer's loop, which alone
        owns ``visited``; a fetch may run in a worker process, so the worker sends
        ``JobRedirected`` as soon as the final response's headers are in, before any batch of
        that file, and the explorer applies each file's messages in the order they were sent.
        So the verdict is in before any row of the file could be applied: from then on its
        batches are dropped (no rows stored, printed or counted twice) and the job is told to
        stop (``WorkerPool.stop``; in this process the job sees the verdict through
        ``cancelled`` before reading the body). Checking here rather than in the worker also
        settles races: of two files redirected to one URL, the first to report claims it.

        A final URL already explored above this node is a cycle (index-cycle on the line that
        lists this node); one explored elsewhere makes this node a copy ("same as ...")."""
        key = urlpolicy.normalize(final_url)
        if key == urlpolicy.normalize(node.url) or self._claimed.get(node.id) == key:
            return
        owner = self.visited.get(key)
        other = self.nodes.get(owner) if owner is not None else None
        if other is None or other is node:
            self.visited[key] = node.id
            self._claimed[node.id] = key
            return
        if other in self.ancestors(node):
            self._superseded[node.id] = (
                f"cycle: redirects to {final_url}, which is explored above (node {other.id})"
            )
            self.cycles.append(node.id)
            parent = self.nodes.get(node.parent_id) if node.parent_id is not None else None
            self._add_issues(parent, self._cycle_issue(node, final_url, other))
        else:
            self._superseded[node.id] = (
                f"redirects to {final_url}: same as {other.url} (node {other.id}), explored there"
            )
        if self._pool is not None:
            self._pool.stop(node.id)

    def _skip(self, node: Node, reason: str) -> None:
        node.state = NodeState.SKIPPED
        node.error = reason
        node.expandable = False
        self._changed(node)

    def _mark_cancelled(self, node: Node) -> None:
        if node.state in (NodeState.FETCHING, NodeState.PARSING):
            node.state = NodeState.PENDING
            node.error = "cancelled"
            self._left[node.id] = LeftOut.CANCELLED
            self._changed(node)

    def use_previous(self, previous: Refetch) -> bool:
        """Ask each file from now on against ``previous`` (engine/refetch.py); False when its
        store cannot be attached (said in its notes: every file is fetched in full)."""
        if self.store is not None:
            # before any row is built: the previous store's signature key, so carried hreflang
            # signatures and URL keys stay valid (else the cross-file pass computes them again)
            try:
                previous.previous.attach(self.store)
            except sqlite3.DatabaseError as exc:
                previous.notes.append(f"the previous exploration cannot be read ({exc}): every file is fetched in full")
                return False
        self.previous = previous
        return True

    def _reset(self, node: Node) -> None:
        """Forget a node's data and descendants before fetching it again."""
        for cid in self.children.pop(node.id, []):
            self._forget(cid)
        if self.store is not None:
            self.store.delete_node_data([node.id])
        self._unclaim(node.id)
        node.state = NodeState.PENDING
        node.error = None
        node.stats = type(node.stats)()
        self._changed(node)

    def _forget(self, node_id: int) -> None:
        for cid in self.children.pop(node_id, []):
            self._forget(cid)
        node = self.nodes.pop(node_id, None)
        if node is None:
            return
        key = urlpolicy.normalize(node.url)
        if self.visited.get(key) == node_id:
            del self.visited[key]
        self._unclaim(node_id)
        if self.store is not None:
            self.store.delete_node_data([node_id], remove_node=True)

    def _unclaim(self, node_id: int) -> None:
        """Forget what a node's redirect claimed (it is fetched again, or gone)."""
        self._superseded.pop(node_id, None)
        key = self._claimed.pop(node_id, None)
        if key is not None and self.visited.get(key) == node_id:
            del self.visited[key]

    def _ctx(self, node: Node, final_url: str | None = None) -> Any:
        if self.checker is None:
            return None
        parent = self.nodes.get(node.parent_id) if node.parent_id is not None else None
        listed = parent is not None and parent.kind not in (NodeKind.SITE, NodeKind.DIRECTORY)
        return self.checker.file_context(FileFacts(
            node_id=node.id,
            url=node.url,
            final_url=final_url or node.stats.final_url or node.url,
            kind=node.kind,
            found_by=node.found_by,
            parent_url=parent.url if listed and parent else None,
            parent_kind=parent.kind if parent else None,
            robots_listed_by=self._robots_listing(node) if self.options.robots_checks else set(),
            now=self.now,
            parent_node_id=parent.id if listed and parent else None,
            parent_line=node.line if listed else None,
            listed_lastmod_raw=node.lastmod_raw,
        ))

    def _robots_listing(self, node: Node) -> set[str]:
        """The robots.txt URLs that name this file or an index above it: a cross-submission
        via robots.txt covers the sitemaps an index lists, too."""
        listed: set[str] = set()
        for n in (node, *self.ancestors(node)):
            if n.kind in (NodeKind.SITE, NodeKind.DIRECTORY, NodeKind.ROBOTS):
                break
            listed |= self.robots_listed.get(urlpolicy.normalize(n.url), set())
        return listed

    async def _fetch(self, node: Node, sink: Callable[[bytes], None], on_response: Callable[[FetchOutcome], None] | None = None, max_decoded: int | None = None) -> FetchOutcome:
        if node.url.startswith("file:"):
            if node.id not in self._local_ok:
                raise Refused("file: URLs are only read when given on the command line")
            path = urlpolicy.local_path(node.url)
            return await fetch_local(path, sink, max_decoded=max_decoded or self.fetch_config.max_decoded)

        def progress(wire: int, total: int | None) -> None:
            self.events.emit(Progress(node.id, wire, total))

        assert self._fetcher is not None, "use the Explorer as an async context manager"
        return await self._fetcher.fetch(node.url, sink, on_progress=progress, on_response=on_response)

    def _in_folder(self, node: Node, url: str) -> str | None:
        """Why a file that a robots.txt or an index of a directory target lists is not fetched:
        it is one of the folder's own sitemaps (the folder is the site's root, engine/localdir.py),
        read from there; None when it is not."""
        if self.folder is None or not node.url.startswith("file:"):
            return None
        local = self.folder.local_for(url)
        return None if local is None else f"read from the folder: {local.name}"

    def _commit(self) -> None:
        # a store whose write failed has raised that failure already: committing would only
        # raise it again, from a finally block that still has its own work to do
        if self.store is not None and self.store.failure is None:
            self.store.commit()
            self.store.begin()

    def cancel(self) -> None:
        """Stop starting new files and cancel the running ones."""
        self._cancel = True
        if self._pool is not None:
            self._pool.cancel_running()
        for task in list(self._running.values()):
            task.cancel()

    def _store_guard(self, apply: Callable[[JobMessage], None]) -> Callable[[JobMessage], None]:
        """``apply`` runs inside the fetch's sink or the worker pool's delivery, where an
        exception would pass for the file's own (or be lost): a store that cannot be written
        stops the exploration instead, and the file's end raises its failure again (every write
        after the first failed one does)."""

        def guarded(msg: JobMessage) -> None:
            try:
                apply(msg)
            except StoreError:
                self.cancel()

        return guarded


_NODE_FIELDS = operator.attrgetter(*(f.name for f in dataclasses.fields(Node)))
_STATS_FIELDS = operator.attrgetter(*(f.name for f in dataclasses.fields(FileStats)))


def _snapshot(node: Node) -> Node:
    """A copy for another thread: the engine keeps mutating its own node. The fields are read
    at once and passed to the constructor: ``copy.copy`` of a slots dataclass (a getattr and a
    setattr per slot) took 10 µs a node, twice per child of an index (a sixth of the CPU of
    listing 50,000 children); this takes 1.7 µs."""
    snap = Node(*_NODE_FIELDS(node))
    snap.stats = FileStats(*_STATS_FIELDS(node.stats))
    return snap



class Refused(Exception):
    """A fetch the URL policy forbids (reported as the node's error)."""

"""The orchestrator: the node tree, lazy and eager expansion, caps, cycles, cancellation.

Everything runs on one asyncio loop. Each file is one task whose failure becomes an error on
that node; the rest of the tree carries on. Data flows fetch -> parse -> check -> store in
batches, and front ends hear about it through time-sliced event batches."""

from __future__ import annotations

import asyncio
import copy
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sitemap_tui.engine import urlpolicy
from sitemap_tui.engine.discover import Target, candidate_probe_urls, find_sitemap_links
from sitemap_tui.engine.events import (
    EntriesAdded,
    Event,
    EventBuffer,
    ExplorationDone,
    IssuesAdded,
    NodeAdded,
    NodeChanged,
    Progress,
)
from sitemap_tui.engine.fetch import FetchConfig, Fetcher, FetchOutcome, StopFetch, fetch_local
from sitemap_tui.engine.filejob import (
    FileJob,
    JobBatch,
    JobDone,
    JobKind,
    JobMessage,
    JobProgress,
    JobRedirected,
    JobSpec,
)
from sitemap_tui.engine.findings import Finding, Judge, PlainJudge
from sitemap_tui.engine.leftout import LeftOut, Omission, describe
from sitemap_tui.engine.limits import Limiter
from sitemap_tui.engine.localdir import FolderScan
from sitemap_tui.engine.model import (
    FoundBy,
    Issue,
    Node,
    NodeKind,
    NodeState,
    Severity,
)
from sitemap_tui.engine.parse_xml import PARSE_STOPPED
from sitemap_tui.engine.robots import RobotsFile, parse_robots
from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.sniff import SniffingParser
from sitemap_tui.engine.stats import Aggregate
from sitemap_tui.engine.store import Store, StoreError
from sitemap_tui.engine.validator import FileFacts, Validator
from sitemap_tui.engine.workers import WorkerPool
from sitemap_tui.words import plural

ROBOTS_MAX_BYTES = 500 * 1024
HOME_MAX_BYTES = 1024 * 1024
SITEMAP_KINDS = {NodeKind.INDEX, NodeKind.URLSET, NodeKind.RSS, NodeKind.ATOM, NodeKind.TEXT}
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
    max_depth: int = 10
    max_files: int = 10_000
    max_children: int = 50_000  # per index / robots.txt
    max_entries: int = 50_000  # entries kept per file (the protocol's limit; tests inject less)
    probe: bool = False  # probe common paths even when robots.txt names sitemaps
    follow_cross_host: bool = False  # index children on another host
    batch_size: int = 2000
    event_interval: float = 0.15
    now: datetime | None = None  # injectable clock for checks and stats
    body_cache: Path | None = None  # keep decoded bodies here (the TUI's source view)
    output_format: str | None = None  # "txt"/"csv"/"jsonl": URL records go to on_output
    workers: int = 0  # worker processes for parsing (0: parse in this process)
    # per-file aggregates (the stats and lastmod panes, `stats`); a store that is thrown away
    # after `validate` needs none, and they cost about a tenth of a worker's time there
    file_stats: bool = True
    # other hosts whose robots.txt is read to settle cross-submissions (with a checker only;
    # 0: none, every location finding stays)
    cross_submit_hosts: int = 100
    # output_format only: also format URLs whose scheme is not http(s) (`urls --keep-non-http`)
    keep_non_http: bool = True
    # with a checker: read the site's robots.txt to judge the sitemaps (blocked URLs, the
    # cross-submission that voids location findings), whatever the target; False:
    # `validate --no-robots-checks`, said in robots_gaps
    robots_checks: bool = True


@dataclass
class DiscoveryRecord:
    url: str
    found_by: FoundBy
    detail: str
    node_id: int | None = None


class Explorer:
    def __init__(
        self,
        *,
        store: Store | None = None,
        fetch_config: FetchConfig | None = None,
        options: ExploreOptions | None = None,
        checker: Validator | None = None,
        on_events: Callable[[list[Event]], None] | None = None,
        on_output: Callable[[str], None] | None = None,
        judge: Judge | None = None,
    ) -> None:
        self.store = store
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
        self.discovery: list[DiscoveryRecord] = []
        self.files_started = 0
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
        self._claimed: dict[int, str] = {}
        # robots.txt per origin for cross-submission (_robots_of): discovery's and other hosts'
        self._other_robots: dict[str, asyncio.Future[tuple[str, RobotsFile] | None]] = {}
        self._robots_reads = 0
        self._robots_not_read: set[str] = set()  # origins over options.cross_submit_hosts
        # what was left out (see left_out()): node -> cause, and causes with no node
        self._left: dict[int, LeftOut] = {}
        self._left_uncounted: Counter[LeftOut] = Counter()
        self._cut: dict[int, LeftOut] = {}  # node -> why its file was read only in part
        self._stopped = False  # an expand-all was cancelled: what it left pending is too
        self._explored = False  # explore() ran: pending files under --no-recursive are left out
        # a directory target: which of its files are sitemaps, and what was skipped and why
        self.folder: FolderScan | None = None
        # why the robots-based rules did not run (for a host, or at all), in words; only with a
        # checker, since nothing else judges by robots.txt
        self.robots_gaps: list[str] = []
        # the read of a sitemap URL target's robots.txt (see _start_target_robots)
        self._target_robots: asyncio.Future[None] | None = None
        self._robots_failed: dict[str, str] = {}  # origin -> why its robots.txt could not be read

    # -- lifecycle -------------------------------------------------------------------------
    async def __aenter__(self) -> Explorer:
        if self.fetch_config.target is None and self.store is not None:
            # a saved exploration: its root is the target the user once named (issue 15)
            self._set_target(self.store.root_url())
        self._fetcher = Fetcher(self.fetch_config, slots=self._limiter)
        await self._fetcher.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._target_robots is not None and not self._target_robots.done():
            self._target_robots.cancel()  # opened, never expanded: nothing waits for it
        if self._pool is not None:
            await self._pool.aclose()
            self._pool = None
        if self._fetcher is not None:
            await self._fetcher.__aexit__(None, None, None)
            self._fetcher = None
        self.events.flush()
        if self.store is not None:
            self.store.commit()

    @property
    def now(self) -> datetime:
        return self.options.now or datetime.now(UTC)

    @property
    def busy(self) -> bool:
        """True while any file is being fetched or parsed."""
        return bool(self._running)

    def cancel(self) -> None:
        """Stop starting new files and cancel the running ones."""
        self._cancel = True
        if self._pool is not None:
            self._pool.cancel_running()
        for task in list(self._running.values()):
            task.cancel()

    # -- what was left out -----------------------------------------------------------------
    def left_out(self) -> list[Omission]:
        """What this exploration did not fetch or read whole, one Omission per cause (in a
        fixed order), from the causes recorded as it went: never from node.error's text."""
        counts: Counter[LeftOut] = Counter(self._left_uncounted)
        examples: dict[LeftOut, str] = {}
        for node in self.nodes.values():
            cause = self._cause(node)
            if cause is not None:
                counts[cause] += 1
                examples.setdefault(cause, node.url)
        if self._robots_not_read:
            counts[LeftOut.ROBOTS_CAP] = len(self._robots_not_read)
        o = self.options
        return [
            describe(
                cause, counts[cause], max_depth=o.max_depth, max_files=o.max_files,
                max_children=o.max_children, max_decoded=self.fetch_config.max_decoded,
                robots_hosts=o.cross_submit_hosts, example=examples.get(cause),
            )
            for cause in LeftOut
            if counts[cause]
        ]

    def _cause(self, node: Node) -> LeftOut | None:
        if node.kind in (NodeKind.SITE, NodeKind.DIRECTORY):
            return None
        cause = self._left.get(node.id)
        if node.state == NodeState.SKIPPED:
            # cycles, copies and files listed twice are explored elsewhere: not left out
            return cause if cause in (LeftOut.DEPTH, LeftOut.FAN_OUT, LeftOut.CROSS_HOST, LeftOut.UNFETCHABLE) else None
        if node.state == NodeState.PENDING:
            if cause in (LeftOut.BUDGET, LeftOut.CANCELLED):
                return cause
            if self._stopped:
                return LeftOut.CANCELLED
            return LeftOut.NOT_RECURSIVE if self._explored and not self.options.recursive else None
        if node.state == NodeState.FAILED:
            if node.kind == NodeKind.ROBOTS and (node.stats.http_status or 0) in range(400, 500):
                return None  # no robots.txt: nothing of the site is missing
            return LeftOut.FAILED
        if node.state == NodeState.DONE:
            return self._cut.get(node.id)
        return None

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
    ) -> Node:
        """A child file node; repeated, cyclic, unfetchable or over-cap children are shown but
        skipped. ``follow=False``: not followed, for ``why_not`` (``cause`` for left_out())."""
        node = self._new_node(url, parent=parent, found_by=found_by, line=line, lastmod_raw=lastmod_raw)
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
                self._add_issues(parent, self._cycle_issue(node, url, other))
            else:
                where = other.url if other is not None else "elsewhere"
                self._skip(node, f"already explored (listed also via {where})")
        elif not follow:
            self._skip(node, why_not or "not followed")
            if cause is not None:
                self._left[node.id] = cause
        elif node.depth > self.options.max_depth:
            self._skip(node, f"depth limit reached (--depth {self.options.max_depth})")
            self._left[node.id] = LeftOut.DEPTH
        else:
            self.visited[key] = node.id
            if local_ok:
                self._local_ok.add(node.id)
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

    # -- targets ---------------------------------------------------------------------------
    async def open(self, target: str | Target) -> Node:
        """Create the root for a target (a site gets discovery); fetches nothing else."""
        t = target if isinstance(target, Target) else Target.parse(target)
        self._set_target(t.url)
        if self.store is not None:
            self.store.set_meta("target", t.raw)
            self.store.set_meta("started", datetime.now(UTC).isoformat())
        if self._judging_robots and not self.options.robots_checks:
            self.robots_gaps.append("--no-robots-checks")
        if t.kind == "directory":
            root = self._new_node(t.url, parent=None, found_by=FoundBy.USER, kind=NodeKind.DIRECTORY)
            self.folder = t.scan()
            if self.folder.robots is None and self._robots_wanted:
                self.robots_gaps.append("a local folder, and no robots.txt in it")
            for path in self.folder.files():
                self._add_child(root, path.as_uri(), FoundBy.USER)
            root.state = NodeState.DONE
            root.stats.child_count = len(self.children.get(root.id, []))
            self._changed(root)
        elif t.kind == "site":
            root = self._new_node(t.url, parent=None, found_by=FoundBy.USER, kind=NodeKind.SITE)
            self.visited[urlpolicy.normalize(t.url)] = root.id
            await self._discover_site(root, t)
        else:
            kind = NodeKind.ROBOTS if t.kind == "robots" else NodeKind.UNKNOWN
            root = self._new_node(t.url, parent=None, found_by=FoundBy.USER, kind=kind)
            self.visited[urlpolicy.normalize(t.url)] = root.id
            if t.url.startswith("file:"):
                self._local_ok.add(root.id)
                if t.kind == "file":
                    self._robots_beside(_file_path(t.url))
            elif t.kind == "sitemap":
                self._start_target_robots(t.url)
        self._commit()
        self.events.flush()
        return root

    # -- the site's robots.txt for the checks ---------------------------------------------------
    @property
    def _judging_robots(self) -> bool:
        return self.checker is not None

    @property
    def _robots_wanted(self) -> bool:
        return self.checker is not None and self.options.robots_checks

    def checked_robots(self) -> dict[str, RobotsFile]:
        """The robots.txt files the robots-based rules judge by (robots.txt URL -> file): none
        under ``robots_checks=False``, although a site's robots.txt is still read to find its
        sitemaps."""
        return self.robots if self.options.robots_checks else {}

    def _start_target_robots(self, url: str) -> None:
        """A sitemap URL target: read its host's robots.txt, as a site target's discovery does,
        so that the verdict does not depend on how the sitemap was named (issue 16). Read
        alongside the sitemap rather than before it, once: the cross-submission check of the
        sitemap's own host shares the read (``_other_robots``); every file waits for it before
        it is finished (``_process_sitemap``), and ``explore`` before it returns."""
        origin = urlpolicy.origin_of(url)
        if origin is None or not self._robots_wanted:
            return
        fut = self._other_robots.get(origin)
        if fut is None:  # the target's own host, whatever the cap of other hosts
            fut = self._other_robots[origin] = asyncio.ensure_future(self._read_robots(origin))
        self._target_robots = asyncio.ensure_future(self._use_target_robots(origin, fut))

    async def _use_target_robots(self, origin: str, fut: asyncio.Future[tuple[str, RobotsFile] | None]) -> None:
        read = await asyncio.shield(fut)
        if read is None:
            failed = self._robots_failed.get(origin)
            if failed is not None:
                self.robots_gaps.append(f"{origin}/robots.txt could not be read ({failed})")
            return  # none (4xx): nothing is disallowed, and nothing submits the sitemap
        read_at, robots = read
        self._use_robots(origin + "/robots.txt", robots)
        for line in robots.sitemaps:
            self.robots_listed.setdefault(urlpolicy.normalize(line.url), set()).add(read_at)

    async def _target_robots_read(self) -> None:
        if self._target_robots is not None:
            # shielded: a file cancelled while it waits must not cancel the read
            await asyncio.shield(self._target_robots)

    def _use_robots(self, url: str, robots: RobotsFile) -> None:
        """``robots`` is the robots.txt at ``url`` for the robots-based rules (kept in the store
        too, for the cross-file rules of a saved exploration)."""
        self.robots.setdefault(url, robots)
        if self.store is not None:
            self.store.set_meta(f"robots:{url}", robots.text)

    def _robots_beside(self, path: Path) -> None:
        """A local file target: a robots.txt beside it is its site's (a build output)."""
        if not self._robots_wanted:
            return
        beside = path.parent / "robots.txt"
        try:
            with beside.open("rb") as fh:
                data = fh.read(ROBOTS_MAX_BYTES + 1)
        except OSError:
            self.robots_gaps.append("a local file, and no robots.txt beside it")
            return
        self._adopt_local_robots(parse_robots(data, beside.as_uri(), max_bytes=ROBOTS_MAX_BYTES), beside)

    def _adopt_local_robots(self, robots: RobotsFile, path: Path) -> None:
        """A local robots.txt (the target, in the folder, or beside the file) has no host of its
        own: it judges the URLs of the sites its Sitemap: lines name, where it is to be served."""
        if not self._robots_wanted:
            return
        origins = sorted({o for line in robots.sitemaps if (o := urlpolicy.origin_of(line.url)) is not None})
        if not origins:
            self.robots_gaps.append(
                f"{display(str(path))} has no Sitemap: line, so the site it belongs to is unknown")
            return
        for origin in origins:
            self._use_robots(origin + "/robots.txt", robots)

    def _set_target(self, url: str | None) -> None:
        """The target the user named decides where -H headers go and which address ranges the
        URLs found on the way may reach (fetch.py, netpolicy.py); set before anything is
        fetched, and before worker processes get a copy of the config."""
        if url is None or url == self.fetch_config.target:
            return
        self.fetch_config = replace(self.fetch_config, target=url)
        if self._fetcher is not None:
            self._fetcher.config = self.fetch_config

    async def explore(self, target: str | Target) -> Node:
        """Headless: the whole tree within the caps (or just the target with recursive=False)."""
        self._explored = True
        root = await self.open(target)
        if self.options.recursive:
            await self.expand_all(root.id)
        else:
            await self.expand(root.id)
            for child_id in list(self.children.get(root.id, [])):
                if root.kind in (NodeKind.SITE, NodeKind.DIRECTORY):
                    await self.expand(child_id)
        await self._target_robots_read()  # the cross-file rules judge by it
        return root

    # -- expansion -------------------------------------------------------------------------
    async def expand(self, node_id: int) -> None:
        """Lazy mode: fetch and parse this node if it has not been yet."""
        node = self.nodes[node_id]
        if node.state != NodeState.PENDING or node.kind in (NodeKind.SITE, NodeKind.DIRECTORY):
            return
        task = asyncio.current_task()
        if task is not None:
            self._running[node_id] = task
        try:
            await self._process(node)
        finally:
            self._running.pop(node_id, None)
            self._commit()
            self.events.flush()

    async def expand_all(self, node_id: int) -> None:
        """Fetch the whole subtree under a node within depth, file and fan-out caps."""
        self._cancel = False
        self._stopped = False
        queue: deque[int] = deque([node_id])
        running: dict[asyncio.Task[None], int] = {}
        limit = max(1, self.fetch_config.concurrency)
        cancelled = False
        failure: BaseException | None = None
        try:
            while queue or running:
                while queue and len(running) < limit and not self._cancel:
                    nid = queue.popleft()
                    node = self.nodes[nid]
                    if node.state == NodeState.PENDING and node.kind not in (NodeKind.SITE, NodeKind.DIRECTORY):
                        task = asyncio.create_task(self._process(node))
                        running[task] = nid
                        self._running[nid] = task
                    else:
                        queue.extend(self.children.get(nid, []))
                if self._cancel:
                    cancelled = True
                    for task in running:
                        task.cancel()
                    await asyncio.gather(*running, return_exceptions=True)
                    for nid in running.values():
                        self._mark_cancelled(self.nodes[nid])
                    break
                if not running:
                    continue
                done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    nid = running.pop(task)
                    self._running.pop(nid, None)
                    if task.cancelled():
                        self._mark_cancelled(self.nodes[nid])
                        continue
                    if task.exception() is not None:
                        # _process keeps a file's own failures to its node: this is the store
                        # failing, and the rest would not be kept either
                        failure = failure or task.exception()
                        self.cancel()
                        continue
                    queue.extend(self.children.get(nid, []))
            if failure is not None:
                raise failure
        except asyncio.CancelledError:
            cancelled = True
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)
            for nid in running.values():
                self._mark_cancelled(self.nodes[nid])
            raise
        finally:
            self._commit()
            # a cancel that caught every running file ends the loop before the check above
            cancelled = cancelled or self._cancel
            self._stopped = cancelled  # what is still pending was left out by the cancel
            self.events.emit(ExplorationDone("expand-all", cancelled=cancelled, files=self.files_started))
            self._cancel = False
            if self._pool is not None:
                self._pool.resume()

    def _mark_cancelled(self, node: Node) -> None:
        if node.state in (NodeState.FETCHING, NodeState.PARSING):
            node.state = NodeState.PENDING
            node.error = "cancelled"
            self._left[node.id] = LeftOut.CANCELLED
            self._changed(node)

    async def reload(self, node_id: int) -> bool:
        """Fetch a node again with a conditional GET; returns False when it was not modified."""
        node = self.nodes[node_id]
        if node.kind in (NodeKind.SITE, NodeKind.DIRECTORY) or self._fetcher is None:
            return False
        if node.url.startswith("file:"):
            self._reset(node)
            await self.expand(node_id)
            return True
        s = node.stats
        conditional = (s.etag, s.last_modified) if (s.etag or s.last_modified) else None
        if conditional is not None:
            probe = await self._fetcher.fetch(node.url, _discard, conditional=conditional)
            if probe.not_modified:
                return False
        self._reset(node)
        await self.expand(node_id)
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

    # -- one file --------------------------------------------------------------------------
    async def _process(self, node: Node) -> None:
        if self.files_started >= self.options.max_files:
            self._skip(node, f"file budget reached (--max-files {self.options.max_files})")
            self._left[node.id] = LeftOut.BUDGET
            node.state = NodeState.PENDING  # can still be asked for explicitly
            return
        self.files_started += 1
        self._left.pop(node.id, None)  # fetched after all (asked for, or resumed)
        self._cut.pop(node.id, None)
        try:
            if node.kind == NodeKind.ROBOTS or node.url.lower().split("?")[0].endswith("/robots.txt"):
                await self._process_robots(node)
            else:
                await self._process_sitemap(node)
        except asyncio.CancelledError:
            self._mark_cancelled(node)
            raise
        except StoreError:
            raise  # not this file's fault: nothing more can be kept (expand_all stops)
        except _Refused as exc:
            node.state = NodeState.FAILED
            node.error = str(exc)
            self._changed(node)
        except Exception as exc:  # one bad file never takes the tree down
            node.state = NodeState.FAILED
            node.error = f"internal error while processing: {type(exc).__name__}: {exc}"
            self._changed(node)

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
                raise _Refused("file: URLs are only read when given on the command line")
            path = _file_path(node.url)
            return await fetch_local(path, sink, max_decoded=max_decoded or self.fetch_config.max_decoded)

        def progress(wire: int, total: int | None) -> None:
            self.events.emit(Progress(node.id, wire, total))

        assert self._fetcher is not None, "use the Explorer as an async context manager"
        return await self._fetcher.fetch(node.url, sink, on_progress=progress, on_response=on_response)

    async def _process_sitemap(self, node: Node) -> None:
        node.state = NodeState.FETCHING
        node.error = None
        self._changed(node)
        spec = JobSpec(
            node_id=node.id,
            url=node.url,
            local_path=str(_file_path(node.url)) if node.id in self._local_ok else None,
            ctx=self._ctx(node),
            output_format=self.options.output_format,
            want_rows=self.store is not None,
            want_stats=self.options.file_stats and (self.store is not None or not self.options.output_format),
            batch_size=self.options.batch_size,
            interval=self.options.event_interval,
            now=self.now,
            body_cache=str(self.options.body_cache) if self.options.body_cache else None,
            max_decoded=self.fetch_config.max_decoded,
            max_entries=self.options.max_entries,
            signature_key=self.store.signature_key() if self.store is not None else b"",
            keep_non_http=self.options.keep_non_http,
            sitemap_lastmod=node.lastmod_raw,
            judge=self.judge,
        )
        if node.url.startswith("file:") and spec.local_path is None:
            raise _Refused("file: URLs are only read when given on the command line")
        apply = self._store_guard(self._applier(node))
        if self._use_pool(node):
            assert self._pool is not None
            try:
                done = await self._pool.run(spec, apply)
            except asyncio.CancelledError:
                self._pool.cancel_running()
                raise
        else:
            job = FileJob(spec, apply, self.checker,
                          cancelled=lambda: self._cancel or node.id in self._superseded)
            done = await job.run(self._fetcher)
        await self._target_robots_read()  # no file is judged before the site's robots.txt is in
        if node.id not in self._superseded:
            await self._settle_cross_submit(node, done)
        self._finish_file(node, done)

    # -- cross-submission ------------------------------------------------------------------
    async def _settle_cross_submit(self, node: Node, done: JobDone) -> None:
        """Location findings of a file that a cross-submission voids become
        ``robots-cross-submit-ok``: the robots.txt of the listed URL's host names this sitemap
        or an index above it (sitemaps.org "Sitemaps & Cross Submits").

        Why after the file is parsed rather than up front: which hosts a sitemap lists is known
        only from its entries (any of up to 50,000, anywhere in the file), and the per-entry
        checks run in workers while the file streams. Fetching a host's robots.txt there would
        stall the worker's other files on each new host and need a round trip to share the
        answer. Settled here, it costs nothing per entry (the checker already tallies these
        findings once per file and host, so a file gives a handful), each other host's
        robots.txt is read once per exploration (shared, capped by
        ``ExploreOptions.cross_submit_hosts``), and the findings are still settled before they
        are stored or shown. robots.txt files read during discovery are reused."""
        if self.checker is None or not self.options.robots_checks:
            return
        cross_submit_rules = self.checker.cross_submit_rules
        if not any(i.rule in cross_submit_rules and i.url for i in done.issues):
            return
        names: set[str] = set()
        for n in (node, *self.ancestors(node)):
            if n.kind in (NodeKind.SITE, NodeKind.DIRECTORY, NodeKind.ROBOTS):
                break
            names.add(urlpolicy.normalize(n.url))
            if n.stats.final_url:
                names.add(urlpolicy.normalize(n.stats.final_url))
        if done.outcome.final_url:
            names.add(urlpolicy.normalize(done.outcome.final_url))
        own_host = urlpolicy.host_of(done.outcome.final_url or node.url)
        kept: list[Issue] = []
        accepted: set[str] = set()
        for issue in done.issues:
            read = None
            if (
                issue.rule in cross_submit_rules
                and issue.url
                # a child on this very host under another scheme is no cross-submission
                and not (issue.rule == "index-child-different-host" and urlpolicy.host_of(issue.url.strip()) == own_host)
            ):
                read = await self._robots_of(urlpolicy.origin_of(issue.url.strip()))
            if read is None or not names & {urlpolicy.normalize(sl.url) for sl in read[1].sitemaps}:
                kept.append(issue)
                continue
            host = urlpolicy.host_of(issue.url.strip()) or ""
            if host not in accepted:  # one note per host and file, like the streaming check
                accepted.add(host)
                kept.extend(self.checker.cross_submitted(issue, read[0]))
        done.issues = kept

    def _remember_robots(self, urls: set[str], read_at: str, robots: RobotsFile) -> None:
        """A robots.txt read at ``read_at``: the answer for the origin of each of ``urls`` (the
        one asked, and the one a redirect led to) that has none yet."""
        loop = asyncio.get_running_loop()
        for url in urls:
            origin = urlpolicy.origin_of(url)
            if origin is not None and origin not in self._other_robots:
                fut: asyncio.Future[tuple[str, RobotsFile] | None] = loop.create_future()
                fut.set_result((read_at, robots))
                self._other_robots[origin] = fut

    async def _robots_of(self, origin: str | None) -> tuple[str, RobotsFile] | None:
        """(URL it was read at, parsed file) of the robots.txt of ``origin``, read once per
        exploration; None when there is none, or it is not asked for (documentation hosts
        such as *.example, or over the cap of hosts)."""
        if origin is None or urlpolicy.is_documentation_host(urlpolicy.host_of(origin)):
            return None
        fut = self._other_robots.get(origin)
        if fut is None:
            if self._robots_reads >= self.options.cross_submit_hosts:
                self._robots_not_read.add(origin)
                return None
            self._robots_reads += 1
            fut = self._other_robots[origin] = asyncio.ensure_future(self._read_robots(origin))
        # shielded: the read is shared, a file cancelled while waiting must not cancel it
        return await asyncio.shield(fut)

    async def _read_robots(self, origin: str) -> tuple[str, RobotsFile] | None:
        assert self._fetcher is not None
        url = origin + "/robots.txt"
        buf = bytearray()

        def sink(chunk: bytes) -> None:
            buf.extend(chunk[: ROBOTS_MAX_BYTES - len(buf)])
            if len(buf) >= ROBOTS_MAX_BYTES:
                raise StopFetch()

        outcome = await self._fetcher.fetch(url, sink)
        if outcome.error and not buf:
            status = outcome.stats.http_status
            if status is None or status >= 500:  # a 4xx is "no robots.txt": nothing disallowed
                self._robots_failed[origin] = outcome.error
            return None  # no robots.txt (4xx), or none to be had: no cross-submission
        read_at = outcome.final_url or url
        robots = parse_robots(bytes(buf), read_at, max_bytes=ROBOTS_MAX_BYTES)
        self._remember_robots({read_at}, read_at, robots)  # it redirected: that host's too
        return read_at, robots

    def _in_folder(self, node: Node, url: str) -> str | None:
        """Why a file that a robots.txt or an index of a directory target lists is not fetched:
        it is one of the folder's own sitemaps (the folder is the site's root, engine/localdir.py),
        read from there; None when it is not."""
        if self.folder is None or not node.url.startswith("file:"):
            return None
        local = self.folder.local_for(url)
        return None if local is None else f"read from the folder: {local.name}"

    def _use_pool(self, node: Node) -> bool:
        """Worker processes pay off for many files; a single file is parsed right here."""
        if self.options.workers <= 0:
            return False
        if node.parent_id is None:
            return False
        if self._pool is not None and not self._pool.alive:
            return False  # every worker died: parse here, as with --workers 0
        if self._pool is None:
            self._pool = WorkerPool(self.options.workers, self.fetch_config, self.checker, self._limiter)
        return True

    def _applier(self, node: Node) -> Callable[[JobMessage], None]:
        def apply(msg: JobMessage) -> None:
            if isinstance(msg, JobRedirected):
                self._claim(node, msg.final_url)
            elif node.id in self._superseded:
                return  # a copy of a file explored elsewhere: nothing of it is applied
            elif isinstance(msg, JobProgress):
                self.events.emit(Progress(node.id, msg.wire_bytes, msg.total))
            elif isinstance(msg, JobKind):
                node.kind = msg.kind
                node.state = NodeState.PARSING
                self._changed(node)
            elif isinstance(msg, JobBatch):
                self._apply_batch(node, msg)

        return apply

    def _apply_batch(self, node: Node, batch: JobBatch) -> None:
        issues = [i for i, _ in batch.issues]
        entry_ids: list[int | None] = [None] * len(issues)
        if batch.rows is not None and self.store is not None:
            ids = self.store.add_rows(node.id, batch.rows)
            entry_ids = [ids[idx] if idx is not None and idx < len(ids) else None for _, idx in batch.issues]
        if batch.text and self.on_output is not None:
            self.on_output(batch.text)
        self.output_left_out += batch.left_out
        node.stats.url_count = batch.count
        self.events.emit(EntriesAdded(node.id, batch.count))
        for iss in [*issues, *batch.unselected]:  # the file's account reads all of them
            if iss.severity == Severity.ERROR:
                self._last_error[node.id] = iss.message  # the parse stops at its last error
                if iss.rule in UNPARSABLE_RULES or iss.message.endswith(PARSE_STOPPED):
                    self._unparsable.setdefault(node.id, iss)
            if iss.rule in CUT_RULES:
                self._cut.setdefault(node.id, CUT_RULES[iss.rule])
        self._add_issues(node, issues, entry_ids)
        if batch.agg is not None:
            self._aggs[node.id] = batch.agg
        self._changed(node, agg=batch.agg)
        self._commit()

    def aggregate(self, node_id: int) -> Aggregate:
        """Stats of one file (kept even without a store)."""
        return Aggregate.from_json(self._aggs.get(node_id))

    def _finish_file(self, node: Node, done: JobDone) -> None:
        outcome = done.outcome
        last_error = self._last_error.pop(node.id, None)
        unparsable = self._unparsable.pop(node.id, None)
        if node.id in self._superseded:
            self._finish_superseded(node, done)
            return
        s = outcome.stats
        node.stats = s
        if done.kind is not None:
            node.kind = done.kind
        self._add_issues(node, done.issues)
        self._aggs[node.id] = done.agg
        for iss in [*done.issues, *done.unselected]:
            if iss.rule in CUT_RULES:
                self._cut.setdefault(node.id, CUT_RULES[iss.rule])
        if unparsable is not None:
            self._cut.setdefault(node.id, LeftOut.CUT_PARSE)
        # children of an index become pending nodes: fetched when asked (lazy) or by expand_all
        cap = self.options.max_children
        base = outcome.final_url or node.url
        for i, child in enumerate(done.children):
            if child.loc is None or not child.loc.strip():
                continue
            url = urlpolicy.resolve(base, child.loc.strip())
            follow, why = True, None
            cause = None
            local = self._in_folder(node, url)
            if local is not None:
                follow, why = False, local
            elif i >= cap:
                follow, why, cause = False, f"over the fan-out cap of {cap} children", LeftOut.FAN_OUT
            elif (
                not self.options.follow_cross_host
                and not url.startswith("file:")
                and not urlpolicy.same_host(url, base)
            ):
                follow, why = False, "on another host (not followed; use --follow-cross-host)"
                cause = LeftOut.CROSS_HOST
            self._add_child(node, url, FoundBy.INDEX, line=child.line, lastmod_raw=child.lastmod_raw,
                            follow=follow, why_not=why, cause=cause)
        if outcome.cancelled:
            node.state = NodeState.PENDING
            node.error = "cancelled"
            self._left[node.id] = LeftOut.CANCELLED
        elif outcome.error and done.count == 0 and not done.children:
            node.state = NodeState.FAILED
            node.error = outcome.error
        elif node.kind in (NodeKind.HTML, NodeKind.JSON, NodeKind.UNKNOWN):
            node.state = NodeState.FAILED
            node.error = {
                NodeKind.HTML: "not a sitemap: the server sent an HTML page",
                NodeKind.JSON: "not a sitemap: the server sent JSON",
            }.get(node.kind, "not a sitemap: the content was not recognised")
            if node.kind == NodeKind.UNKNOWN and last_error:
                # say why (a refused DOCTYPE, an unknown root element...), not only that
                node.error = f"not a sitemap: {last_error}"
        else:
            node.state = NodeState.DONE
            problems = []
            if outcome.error:
                problems.append(outcome.error)
            if s.truncated_at:
                problems.append(f"parsing stopped at line:col {s.truncated_at}; {plural(done.count, 'entry')} kept")
            node.error = "; ".join(problems) or None
        node.expandable = bool(done.children)
        if node.state == NodeState.FAILED and self.checker is not None:
            rule = "file-is-html" if node.kind == NodeKind.HTML else (outcome.error_rule or "fetch-http-error")
            self._add_issues(node, self.checker.file_failed(self._ctx(node), rule, node.error or ""))
        elif unparsable is not None and self.checker is not None and not outcome.cancelled:
            where = f" at line {unparsable.line}" if unparsable.line else ""
            kept = ""
            if done.count:
                kept = ("; the entry before it was kept" if done.count == 1
                        else f"; the {done.count:,} entries before it were kept")
            reason = f"it cannot be parsed ({unparsable.rule}{where}: {unparsable.message}){kept}"
            self._add_issues(node, self.checker.file_failed(self._ctx(node), unparsable.rule, reason))
        self._changed(node, agg=Aggregate.from_json(done.agg))
        self._commit()

    def _finish_superseded(self, node: Node, done: JobDone) -> None:
        """A node whose redirect landed on a file explored elsewhere (see _claim): the fetch
        facts and the redirect warning stay, nothing of the body does."""
        node.stats = done.outcome.stats
        node.stats.url_count = 0
        node.stats.child_count = 0
        node.stats.truncated_at = None
        node.state = NodeState.SKIPPED
        node.error = self._superseded[node.id]
        node.expandable = False
        self._aggs.pop(node.id, None)
        self._add_issues(node, self._judged(done.outcome.findings))
        self._changed(node, agg=Aggregate())
        self._commit()

    async def _process_robots(self, node: Node) -> None:
        node.kind = NodeKind.ROBOTS
        node.state = NodeState.FETCHING
        self._changed(node)
        buf = bytearray()

        def sink(chunk: bytes) -> None:
            room = ROBOTS_MAX_BYTES - len(buf)
            buf.extend(chunk[:room])
            if len(buf) >= ROBOTS_MAX_BYTES:
                raise StopFetch()

        outcome = await self._fetch(node, sink, max_decoded=ROBOTS_MAX_BYTES + 65536)
        node.stats = outcome.stats
        if outcome.error and not buf:
            node.state = NodeState.FAILED
            node.error = outcome.error
            status = outcome.stats.http_status
            if self._robots_wanted and (status is None or status >= 500):
                self.robots_gaps.append(f"{display(node.url)} could not be read ({display(outcome.error)})")
            if self.checker is not None:
                # a 4xx robots.txt means "no restrictions"; only 5xx or no answer is a problem
                self._add_issues(node, self.checker.robots_fetch_failed(
                    self._ctx(node), outcome.stats.http_status, outcome.error))
            self._changed(node)
            return
        robots = parse_robots(bytes(buf), outcome.final_url or node.url, max_bytes=ROBOTS_MAX_BYTES)
        self.robots[node.url] = robots
        if self.store is not None:
            self.store.set_meta(f"robots:{node.url}", bytes(buf).decode("utf-8", "replace"))
        if node.url.startswith("file:"):
            self._adopt_local_robots(robots, _file_path(node.url))
        issues = self._judged(outcome.findings)
        if self.checker is not None:
            issues += self.checker.check_robots(robots, self._ctx(node, outcome.final_url))
        self._add_issues(node, issues)
        # cross-submission follows the robots.txt that was read: a robots.txt that redirects
        # (example.com -> www.example.com) speaks for both hosts
        read_from = {node.url, outcome.final_url or node.url}
        self._remember_robots(read_from, outcome.final_url or node.url, robots)
        count = 0
        for line in robots.sitemaps:
            self.robots_listed.setdefault(urlpolicy.normalize(line.url), set()).update(read_from)
            if line.duplicate:
                continue
            follow = count < self.options.max_children
            count += 1
            if line.unfetchable:
                # reported by the checker; nothing to show a node for, but still left out
                self._left_uncounted[LeftOut.UNFETCHABLE] += 1
                continue
            local = self._in_folder(node, line.url)
            if local is not None:
                self._add_child(node, line.url, FoundBy.ROBOTS, line=line.line, follow=False, why_not=local)
                continue
            self._add_child(node, line.url, FoundBy.ROBOTS, line=line.line, follow=follow,
                            why_not=f"over the cap of {self.options.max_children} Sitemap lines",
                            cause=LeftOut.FAN_OUT)
        node.stats.child_count = count
        node.state = NodeState.DONE
        node.expandable = count > 0
        self._changed(node)
        self._commit()

    # -- discovery -------------------------------------------------------------------------
    async def _discover_site(self, root: Node, target: Target) -> None:
        robots_url = urlpolicy.resolve(target.url, "/robots.txt")
        robots_node = self._new_node(robots_url, parent=root, found_by=FoundBy.PROBE, kind=NodeKind.ROBOTS)
        self.visited[urlpolicy.normalize(robots_url)] = robots_node.id
        await self._process(robots_node)
        if robots_node.state == NodeState.FAILED and robots_node.stats.http_status is None:
            # no HTTP answer at all: the site is unreachable, probing further only burns time
            root.state = NodeState.FAILED
            root.error = f"site unreachable: {robots_node.error}"
            self._changed(root)
            return
        listed = list(self.children.get(robots_node.id, []))
        for nid in listed:
            self.discovery.append(DiscoveryRecord(self.nodes[nid].url, FoundBy.ROBOTS, f"robots.txt line {self.nodes[nid].line}", nid))
        if not listed or self.options.probe:
            for url in candidate_probe_urls(target.url):
                if urlpolicy.normalize(url) in self.visited:
                    continue
                found, detail = await self._probe(url)
                if found:
                    node = self._add_child(root, url, FoundBy.PROBE)
                    self.discovery.append(DiscoveryRecord(url, FoundBy.PROBE, detail, node.id))
                else:
                    self.discovery.append(DiscoveryRecord(url, FoundBy.PROBE, detail, None))
        for url in await self._home_links(target):
            if urlpolicy.normalize(url) in self.visited:
                self.discovery.append(DiscoveryRecord(url, FoundBy.HTML_LINK, "already found", self.visited[urlpolicy.normalize(url)]))
                continue
            node = self._add_child(root, url, FoundBy.HTML_LINK)
            self.discovery.append(DiscoveryRecord(url, FoundBy.HTML_LINK, "<link rel=sitemap> in the home page", node.id))
        root.state = NodeState.DONE
        root.expandable = True
        root.stats.child_count = len(self.children.get(root.id, []))
        self._changed(root)
        if self.store is not None:
            self.store.set_meta("discovery", [[d.url, d.found_by.value, d.detail, d.node_id] for d in self.discovery])

    async def _probe(self, url: str) -> tuple[bool, str]:
        assert self._fetcher is not None
        parser = SniffingParser(url)

        def sink(chunk: bytes) -> None:
            parser.feed(chunk)
            if parser.kind is not None:
                raise StopFetch()

        outcome = await self._fetcher.fetch(url, sink)
        if outcome.error:
            return False, outcome.error
        parser.close()
        if parser.kind in SITEMAP_KINDS:
            return True, f"probed: {parser.kind.value}"
        return False, f"probed: not a sitemap ({parser.kind.value if parser.kind else 'empty'})"

    async def _home_links(self, target: Target) -> list[str]:
        assert self._fetcher is not None
        buf = bytearray()

        def sink(chunk: bytes) -> None:
            buf.extend(chunk[: HOME_MAX_BYTES - len(buf)])
            if len(buf) >= HOME_MAX_BYTES:
                raise StopFetch()

        outcome = await self._fetcher.fetch(target.url, sink)
        if outcome.error or not buf:
            return []
        return find_sitemap_links(bytes(buf), outcome.final_url or target.url)

    def _commit(self) -> None:
        # a store whose write failed has raised that failure already: committing would only
        # raise it again, from a finally block that still has its own work to do
        if self.store is not None and self.store.failure is None:
            self.store.commit()
            self.store.begin()

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


def _snapshot(node: Node) -> Node:
    """A copy for another thread: the engine keeps mutating its own node."""
    snap = copy.copy(node)
    snap.stats = copy.copy(node.stats)
    return snap


def _file_path(url: str) -> Path:
    from urllib.parse import unquote, urlsplit

    return Path(unquote(urlsplit(url).path))


class _Refused(Exception):
    """A fetch the URL policy forbids (reported as the node's error)."""


def _discard(_chunk: bytes) -> None:
    raise StopFetch()

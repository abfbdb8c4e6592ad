"""The orchestrator: the node tree, lazy and eager expansion, caps, cycles, cancellation.

Everything runs on one asyncio loop. Each file is one task whose failure becomes an error on
that node; the rest of the tree carries on. Data flows fetch -> parse -> check -> store in
batches, and front ends hear about it through time-sliced event batches."""

from __future__ import annotations

import asyncio
import copy
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

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
    JobSpec,
)
from sitemap_tui.engine.model import (
    ChildRef,
    Entry,
    FoundBy,
    Issue,
    Node,
    NodeKind,
    NodeState,
    Severity,
)
from sitemap_tui.engine.robots import RobotsFile, parse_robots
from sitemap_tui.engine.sniff import SniffingParser
from sitemap_tui.engine.stats import Aggregate
from sitemap_tui.engine.store import Store, StoreError
from sitemap_tui.engine.workers import WorkerPool

ROBOTS_MAX_BYTES = 500 * 1024
HOME_MAX_BYTES = 1024 * 1024
SITEMAP_KINDS = {NodeKind.INDEX, NodeKind.URLSET, NodeKind.RSS, NodeKind.ATOM, NodeKind.TEXT}
FILE_KINDS = SITEMAP_KINDS | {NodeKind.UNKNOWN, NodeKind.HTML, NodeKind.JSON}


class CheckerLike(Protocol):
    """What the explorer needs from a validator (see sitemap_tui.validate.checker)."""

    def begin_file(self, ctx: Any) -> None: ...
    def check_entry(self, ctx: Any, entry: Entry) -> list[Issue]: ...
    def check_child(self, ctx: Any, child: ChildRef) -> list[Issue]: ...
    def end_file(self, ctx: Any, info: Any, stats: Any) -> list[Issue]: ...
    def check_robots(self, robots: RobotsFile, ctx: Any) -> list[Issue]: ...


@dataclass
class ExploreOptions:
    recursive: bool = True
    max_depth: int = 10
    max_files: int = 10_000
    max_children: int = 50_000  # per index / robots.txt
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
        checker: CheckerLike | None = None,
        on_events: Callable[[list[Event]], None] | None = None,
        on_output: Callable[[str], None] | None = None,
    ) -> None:
        self.store = store
        self.fetch_config = fetch_config or FetchConfig()
        self.options = options or ExploreOptions()
        self.checker = checker
        self.on_output = on_output  # formatted URL records (options.output_format)
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

    # -- lifecycle -------------------------------------------------------------------------
    async def __aenter__(self) -> Explorer:
        if self.fetch_config.target is None and self.store is not None:
            # a saved exploration: its root is the target the user once named (issue 15)
            self._set_target(self.store.root_url())
        self._fetcher = Fetcher(self.fetch_config)
        await self._fetcher.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._pool is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._pool.close)
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
    ) -> Node:
        """A child file node; repeated, cyclic, unfetchable or over-cap children are shown but skipped."""
        node = self._new_node(url, parent=parent, found_by=found_by, line=line, lastmod_raw=lastmod_raw)
        key = urlpolicy.normalize(url)
        # local files are read only when the user named them (a directory's files): a file: URL
        # inside a sitemap is untrusted data like any other and is never opened
        local_ok = url.startswith("file:") and found_by == FoundBy.USER
        reason = None if local_ok else urlpolicy.unfetchable_reason(url)
        if reason:
            self._skip(node, f"not fetched: {reason}")
        elif key in self.visited:
            other = self.nodes.get(self.visited[key])
            if other is not None and (other is parent or other in self.ancestors(parent)):
                self._skip(node, f"cycle: this sitemap is already explored above (node {other.id})")
                self._add_issues(node, [_issue("index-cycle", f"index cycle: {url} lists an ancestor", url=url, line=line)])
            else:
                where = other.url if other is not None else "elsewhere"
                self._skip(node, f"already explored (listed also via {where})")
        elif not follow:
            self._skip(node, why_not or "not followed")
        elif node.depth > self.options.max_depth:
            self._skip(node, f"depth limit reached (--depth {self.options.max_depth})")
        else:
            self.visited[key] = node.id
            if local_ok:
                self._local_ok.add(node.id)
        return node

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
        if t.kind == "directory":
            root = self._new_node(t.url, parent=None, found_by=FoundBy.USER, kind=NodeKind.DIRECTORY)
            for path in t.files():
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
        self._commit()
        self.events.flush()
        return root

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
        root = await self.open(target)
        if self.options.recursive:
            await self.expand_all(root.id)
        else:
            await self.expand(root.id)
            for child_id in list(self.children.get(root.id, [])):
                if root.kind in (NodeKind.SITE, NodeKind.DIRECTORY):
                    await self.expand(child_id)
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
            self.events.emit(ExplorationDone("expand-all", cancelled=cancelled, files=self.files_started))
            self._cancel = False
            if self._pool is not None:
                self._pool.resume()

    def _mark_cancelled(self, node: Node) -> None:
        if node.state in (NodeState.FETCHING, NodeState.PARSING):
            node.state = NodeState.PENDING
            node.error = "cancelled"
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
        if self.store is not None:
            self.store.delete_node_data([node_id], remove_node=True)

    # -- one file --------------------------------------------------------------------------
    async def _process(self, node: Node) -> None:
        if self.files_started >= self.options.max_files:
            self._skip(node, f"file budget reached (--max-files {self.options.max_files})")
            node.state = NodeState.PENDING  # can still be asked for explicitly
            return
        self.files_started += 1
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
        from sitemap_tui.validate.checker import FileContext

        parent = self.nodes.get(node.parent_id) if node.parent_id is not None else None
        listed = parent is not None and parent.kind not in (NodeKind.SITE, NodeKind.DIRECTORY)
        return FileContext(
            node_id=node.id,
            url=node.url,
            final_url=final_url or node.stats.final_url or node.url,
            kind=node.kind,
            found_by=node.found_by,
            parent_url=parent.url if listed and parent else None,
            parent_kind=parent.kind if parent else None,
            robots_listed_by=self.robots_listed.get(urlpolicy.normalize(node.url), set()),
            now=self.now,
            parent_node_id=parent.id if listed and parent else None,
            parent_line=node.line if listed else None,
            listed_lastmod_raw=node.lastmod_raw,
        )

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
            signature_key=self.store.signature_key() if self.store is not None else b"",
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
            job = FileJob(spec, apply, self.checker, cancelled=lambda: self._cancel)
            done = await job.run(self._fetcher)
        self._finish_file(node, done)

    def _use_pool(self, node: Node) -> bool:
        """Worker processes pay off for many files; a single file is parsed right here."""
        if self.options.workers <= 0:
            return False
        if node.parent_id is None:
            return False
        if self._pool is None:
            self._pool = WorkerPool(self.options.workers, self.fetch_config, self.checker)
        return True

    def _applier(self, node: Node) -> Callable[[JobMessage], None]:
        def apply(msg: JobMessage) -> None:
            if isinstance(msg, JobProgress):
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
        node.stats.url_count = batch.count
        self.events.emit(EntriesAdded(node.id, batch.count))
        for iss in issues:
            if iss.severity == Severity.ERROR:
                self._last_error[node.id] = iss.message  # the parse stops at its last error
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
        s = outcome.stats
        node.stats = s
        if done.kind is not None:
            node.kind = done.kind
        self._add_issues(node, done.issues)
        self._aggs[node.id] = done.agg
        # children of an index become pending nodes: fetched when asked (lazy) or by expand_all
        cap = self.options.max_children
        base = outcome.final_url or node.url
        for i, child in enumerate(done.children):
            if child.loc is None or not child.loc.strip():
                continue
            url = urlpolicy.resolve(base, child.loc.strip())
            follow, why = True, None
            if i >= cap:
                follow, why = False, f"over the fan-out cap of {cap} children"
            elif (
                not self.options.follow_cross_host
                and not url.startswith("file:")
                and not urlpolicy.same_host(url, base)
            ):
                follow, why = False, "on another host (not followed; use --follow-cross-host)"
            self._add_child(node, url, FoundBy.INDEX, line=child.line, lastmod_raw=child.lastmod_raw,
                            follow=follow, why_not=why)
        if outcome.cancelled:
            node.state = NodeState.PENDING
            node.error = "cancelled"
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
                problems.append(f"parsing stopped at line:col {s.truncated_at}; {done.count} entries kept")
            node.error = "; ".join(problems) or None
        node.expandable = bool(done.children)
        if node.state == NodeState.FAILED and self.checker is not None:
            rule = "file-is-html" if node.kind == NodeKind.HTML else (outcome.error_rule or "fetch-http-error")
            self._add_issues(node, self.checker.file_failed(self._ctx(node), rule, node.error or ""))
        self._changed(node, agg=Aggregate.from_json(done.agg))
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
        issues = list(outcome.issues)
        if self.checker is not None:
            issues += self.checker.check_robots(robots, self._ctx(node, outcome.final_url))
        self._add_issues(node, issues)
        count = 0
        for line in robots.sitemaps:
            self.robots_listed.setdefault(urlpolicy.normalize(line.url), set()).add(node.url)
            if line.duplicate:
                continue
            follow = count < self.options.max_children
            count += 1
            if line.unfetchable:
                continue  # reported by the checker; nothing to show a node for
            self._add_child(node, line.url, FoundBy.ROBOTS, line=line.line, follow=follow,
                            why_not=f"over the cap of {self.options.max_children} Sitemap lines")
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


def make_engine_issue(rule: str, message: str) -> Issue:
    return _issue(rule, message)


def _issue(rule: str, message: str, *, severity: Severity | None = None, url: str | None = None, line: int | None = None) -> Issue:
    return Issue(rule=rule, severity=severity or _severity_of(rule), message=message, url=url, line=line)


def _severity_of(rule: str) -> Severity:
    try:
        from sitemap_tui.validate.rules import RULES

        return RULES[rule].severity
    except (ImportError, KeyError):
        return Severity.ERROR


def _file_path(url: str) -> Path:
    from urllib.parse import unquote, urlsplit

    return Path(unquote(urlsplit(url).path))


class _Refused(Exception):
    """A fetch the URL policy forbids (reported as the node's error)."""


def _discard(_chunk: bytes) -> None:
    raise StopFetch()

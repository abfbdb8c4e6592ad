"""The orchestrator: the node tree, lazy and eager expansion, caps, cycles, cancellation.

Everything runs on one asyncio loop. Each file is one task whose failure becomes an error on
that node; the rest of the tree carries on. Data flows fetch -> parse -> check -> store in
batches, and front ends hear about it through time-sliced event batches."""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import replace
from datetime import UTC, datetime
from urllib.parse import urlsplit

from sitemap_tui import USER_AGENT
from sitemap_tui.engine import urlpolicy
from sitemap_tui.engine.discover import Target, candidate_probe_urls, find_sitemap_links
from sitemap_tui.engine.events import (
    ExplorationDone,
)
from sitemap_tui.engine.explore_account import ExplorationAccount
from sitemap_tui.engine.explore_tree import (  # (ExploreOptions, DiscoveryRecord: their users import them from here)
    HOME_MAX_BYTES,
    SITEMAP_KINDS,
    DiscoveryRecord,
    ExploreOptions,
)
from sitemap_tui.engine.fetch import Fetcher, StopFetch
from sitemap_tui.engine.leftout import CROSS_HOST_CHILD, LeftOut
from sitemap_tui.engine.model import (
    FoundBy,
    Node,
    NodeKind,
    NodeState,
)
from sitemap_tui.engine.robots import RobotsFile
from sitemap_tui.engine.robots_gate import agent_token
from sitemap_tui.engine.sniff import SniffingParser
from sitemap_tui.engine.store.base import MADE_BY_KEY
from sitemap_tui.engine.workers import files_in_flight

__all__ = ["NO_SITEMAP", "DiscoveryRecord", "ExploreOptions", "Explorer"]


class Explorer(ExplorationAccount):
    """The exploration of one target: open it, expand its sitemaps one at a time or all the way
    down, reload or cancel them; the tree, the store and the events follow (explore_tree.py,
    explore_robots.py, explore_files.py), and what it left out is told (explore_account.py)."""

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
            if self.store is not None and self.store.failure is None:
                self.store.detach_shards()  # before the pool removes the files
            await self._pool.aclose()
            self._pool = None
        if self._fetcher is not None:
            await self._fetcher.__aexit__(None, None, None)
            self._fetcher = None
        self.events.flush()
        if self.store is not None:
            self.store.commit()

    @property
    def busy(self) -> bool:
        """True while any file is being fetched or parsed."""
        return bool(self._running)

    # -- targets ---------------------------------------------------------------------------
    async def open(self, target: str | Target) -> Node:
        """Create the root for a target (a site gets discovery); fetches nothing else."""
        t = target if isinstance(target, Target) else Target.parse(target)
        self._set_target(t.url)
        if self.store is not None:
            self.store.set_meta("target", t.raw)
            self.store.set_meta("started", datetime.now(UTC).isoformat())
            # a re-exploration carries a file's findings only from a store this version made
            self.store.set_meta(MADE_BY_KEY, USER_AGENT)
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
                    self._robots_beside(urlpolicy.local_path(t.url))
            elif t.kind == "sitemap":
                self._start_target_robots(t.url)
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
        self._explored = True
        budget = self.options.max_time
        deadline = asyncio.get_running_loop().call_later(budget, self._out_of_time) if budget > 0 else None
        try:
            root = await self.open(target)
            if self.options.recursive:
                await self.expand_all(root.id)
            else:
                for node_id in [root.id, *self.children.get(root.id, [])]:
                    if self._timed_out:
                        break
                    if node_id == root.id or root.kind in (NodeKind.SITE, NodeKind.DIRECTORY):
                        await self.expand(node_id)
            if not self._timed_out:
                await self._target_robots_read()  # the cross-file rules judge by it
        finally:
            if deadline is not None:
                deadline.cancel()
        return root

    def _out_of_time(self) -> None:
        """The run's time budget ran out: stop as a cancel does (what is left is LeftOut.TIME)."""
        self._timed_out = True
        self._stopped = True  # what is still pending, not only what was running
        self.cancel()

    # -- expansion -------------------------------------------------------------------------
    async def expand(self, node_id: int) -> None:
        """Lazy mode: fetch and parse this node if it has not been yet."""
        node = self.nodes[node_id]
        if node.state != NodeState.PENDING or node.kind in (NodeKind.SITE, NodeKind.DIRECTORY):
            return
        if not self._running:
            # a cancel stopped everything that ran: it is over, and must not stop this new fetch
            # at its first chunk (an expand-all still being cancelled keeps its flag), in a
            # worker neither (found by a review: after x every file a worker fetched stopped at once)
            self._cancel = False
            if self._pool is not None:
                self._pool.resume()
        task = asyncio.current_task()
        if task is not None:
            self._running[node_id] = task
        try:
            await self._process(node)
        finally:
            self._running.pop(node_id, None)
            self._commit()
            self.events.flush()

    @property
    def files_in_flight(self) -> int:
        """Files expand_all keeps going at once: --concurrency, or one per worker if more."""
        return files_in_flight(self.fetch_config.concurrency, self.options.workers)

    async def expand_all(self, node_id: int) -> None:
        """Fetch the whole subtree under a node within depth, file and fan-out caps."""
        self._cancel = self._timed_out  # (run out during open(): nothing more is started)
        self._stopped = False
        queue: deque[int] = deque([node_id])
        running: dict[asyncio.Task[None], int] = {}
        limit = self.files_in_flight
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

    async def reload(self, node_id: int, *, conditional: bool = True) -> bool:
        """Fetch a node again with a conditional GET (``conditional=False``: a plain one);
        returns False when it was not modified."""
        node = self.nodes[node_id]
        if node.kind in (NodeKind.SITE, NodeKind.DIRECTORY) or self._fetcher is None:
            return False
        if node.url.startswith("file:"):
            self._reset(node)
            await self.expand(node_id)
            return True
        s = node.stats
        # a file carried over from the previous exploration (unchanged_since) is asked with its
        # carried validators, the previous exploration's: a 304 keeps the copy, which is then the
        # server's file. Once asked again, it is fetched in full, never against the previous
        # exploration: r and f are the user asking for the server's file now, and a second 304
        # would only bring the same old copy back (f: with the children it skipped).
        validators = (s.etag, s.last_modified) if conditional and (s.etag or s.last_modified) else None
        if validators is not None:
            probe = await self._fetcher.fetch(node.url, _discard, conditional=validators)
            if probe.not_modified:
                return False
        self._reset(node)
        self._in_full.add(node_id)
        try:
            await self.expand(node_id)
        finally:
            self._in_full.discard(node_id)
        return True

    # -- discovery -------------------------------------------------------------------------
    async def _discover_site(self, root: Node, target: Target) -> None:
        robots_url = urlpolicy.resolve(target.url, "/robots.txt")
        robots_node = self._new_node(robots_url, parent=root, found_by=FoundBy.PROBE, kind=NodeKind.ROBOTS)
        self.visited[urlpolicy.normalize(robots_url)] = robots_node.id
        await self._process(robots_node)
        if (robots_node.state == NodeState.FAILED and robots_node.stats.http_status is None
                and not robots_node.stats.redirects and robots_node.id not in self._reached):
            # no HTTP answer at all: the site is unreachable, probing further only burns time
            # (a redirect is an answer: the hop it led to failed, the site did not; a server that
            # took the request and then stalled is there: its other paths may well answer)
            root.state = NodeState.FAILED
            root.error = f"site unreachable: {robots_node.error}"
            self._changed(root)
            return
        listed = list(self.children.get(robots_node.id, []))
        self._robots_records(robots_node, listed)
        # a host that took robots.txt's request and gave nothing back: one more path is asked,
        # and when it stalls too the other paths are not, only the home page (found from
        # outside: 7 x --timeout, 210 s, on a server that never answered, then "no sitemap found")
        stalls = int(robots_node.state == NodeState.FAILED and robots_node.stats.http_status is None
                     and robots_node.stats.wire_bytes == 0)
        silent = ""
        if not listed or self.options.probe:
            for url in candidate_probe_urls(target.url):
                if urlpolicy.normalize(url) in self.visited:
                    continue
                if silent:
                    self.discovery.append(DiscoveryRecord(url, FoundBy.PROBE, f"not probed: {silent}", None))
                    continue
                found, detail, answered = await self._probe_answer(url)
                if found:
                    node = self._add_child(root, url, FoundBy.PROBE)
                    self.discovery.append(DiscoveryRecord(url, FoundBy.PROBE, detail, node.id))
                else:
                    self.discovery.append(DiscoveryRecord(url, FoundBy.PROBE, detail, None))
                stalls = 0 if answered else stalls + 1
                if stalls >= 2:
                    silent = (f"the host answered neither robots.txt nor {urlsplit(url).path} within"
                              f" --timeout {self.fetch_config.total_timeout:g} s")
        for url in self.options.also:
            if urlpolicy.normalize(url) in self.visited:
                continue  # listed after all (an index read from robots.txt's)
            node = self._add_child(root, url, FoundBy.USER)
            self.discovery.append(DiscoveryRecord(url, FoundBy.USER, "in the build folder, listed by nothing there", node.id))
        # (asked even of a host silent so far: a page may answer where robots.txt and a sitemap
        # path stall, and its link is the one way left; found from outside, it was not asked)
        links, home_detail, home_at = await self._home_links(target, self.robots.get(robots_node.url))
        if not links:  # said like a probed path that held nothing (discover lists it)
            self.discovery.append(DiscoveryRecord(target.url, FoundBy.HTML_LINK, home_detail, None))
        for url, why in links:
            if why is not None:
                self.discovery.append(DiscoveryRecord(url, FoundBy.HTML_LINK,
                                                      f"<link rel=sitemap> in the home page: {why}", None))
                continue
            if urlpolicy.normalize(url) in self.visited:
                self.discovery.append(DiscoveryRecord(url, FoundBy.HTML_LINK, "already found", self.visited[urlpolicy.normalize(url)]))
                continue
            if not self.options.follow_cross_host and not urlpolicy.same_server(url, home_at):
                # as an index's child on another host than the index: listed, not fetched (found
                # from outside: a link, or a <base href>, led the run elsewhere). The host is the
                # page's as read: example.com redirected to www.example.com links files there
                why = CROSS_HOST_CHILD
                node = self._add_child(root, url, FoundBy.HTML_LINK, follow=False, why_not=why,
                                       cause=LeftOut.LINK_CROSS_HOST)
                self.discovery.append(DiscoveryRecord(url, FoundBy.HTML_LINK,
                                                      f"<link rel=sitemap> in the home page: {why}", node.id))
                continue
            node = self._add_child(root, url, FoundBy.HTML_LINK)
            self.discovery.append(DiscoveryRecord(url, FoundBy.HTML_LINK, "<link rel=sitemap> in the home page", node.id))
        root.state = NodeState.DONE
        root.expandable = True
        root.stats.child_count = len(self.children.get(root.id, []))
        if not any(n.kind not in (NodeKind.SITE, NodeKind.ROBOTS) for n in self.nodes.values()):
            root.error = self.no_sitemap_note()  # said on the site's node (the explorer's Overview)
        self._changed(root)
        if self.store is not None:
            self.store.set_meta("discovery", [[d.url, d.found_by.value, d.detail, d.node_id] for d in self.discovery])

    def _robots_records(self, robots_node: Node, listed: list[int]) -> None:
        """One discovery record per Sitemap: line of the site's robots.txt, in its order: a
        repeated line and one that cannot be fetched are said too (found from outside: a file of
        8 lines read as "6 Sitemap: lines", the rest nowhere but a count on stderr)."""
        by_line = {self.nodes[nid].line: nid for nid in listed}
        first: dict[str, int] = {}
        for sl in self.sitemap_lines.get(robots_node.id, []):
            nid = by_line.pop(sl.line, None)
            where = f"robots.txt line {sl.line}"
            if nid is not None:
                first.setdefault(urlpolicy.normalize(sl.url), nid)
                self.discovery.append(DiscoveryRecord(sl.url, FoundBy.ROBOTS, where, nid))
            elif sl.duplicate:
                self.discovery.append(DiscoveryRecord(sl.url, FoundBy.ROBOTS, f"{where}: repeats an earlier line",
                                                      first.get(urlpolicy.normalize(sl.url))))
            elif sl.unfetchable is not None:
                self.discovery.append(DiscoveryRecord(sl.url or sl.value, FoundBy.ROBOTS,
                                                      f"{where}: {sl.unfetchable}", None))
        for nid in by_line.values():  # (a child whose line was not recorded)
            self.discovery.append(DiscoveryRecord(self.nodes[nid].url, FoundBy.ROBOTS,
                                                  f"robots.txt line {self.nodes[nid].line}", nid))

    def no_sitemap_note(self) -> str:
        """"no sitemap found: tried robots.txt (HTTP 404), /sitemap.xml, ..." for a site whose
        discovery found none (raw text: its reader sanitises it)."""
        tried = []
        robots = next((n for n in self.nodes.values() if n.kind == NodeKind.ROBOTS), None)
        if robots is not None:
            why = ((robots.error or "failed") if robots.state == NodeState.FAILED
                   # (read in part: a Sitemap: line after the cap is not seen, found from outside)
                   else (_unusable_lines(len(self.sitemap_lines.get(robots.id, [])))
                         + (f"; {robots.error}" if robots.error else "")))
            tried.append(f"robots.txt ({why})")
        unasked = ""
        for record in self.discovery:
            if record.detail.startswith("not probed: "):
                unasked = record.detail.removeprefix("not probed: ")
            elif record.found_by == FoundBy.PROBE and record.node_id is None:
                tried.append(urlsplit(record.url).path or record.url)
        tried.append("<link rel=sitemap> in the home page")
        if unasked:  # (a silent host: the other paths were not asked, and that is no "tried")
            return f"{NO_SITEMAP}: tried " + ", ".join(tried) + f"; the other common paths were not asked: {unasked}"
        return f"{NO_SITEMAP}: tried " + ", ".join(tried)

    async def check_discovered(self, limit: int) -> int:
        """Read the first bytes of each sitemap discovery took from a list (robots.txt's
        Sitemap: lines, the home page's links) without reading it, as a probed path is read:
        a listed sitemap that answers 404, or an HTML page, is not there. The first ``limit``
        distinct URLs are checked (the limiter spaces the requests per host); returns how many
        were left unchecked."""
        asked: dict[int, asyncio.Task[tuple[bool, str]]] = {}
        left: set[int] = set()  # (a URL both robots.txt and the home page list is one)
        # per host, as many checks at once as --per-host; a host that answered one with nothing
        # (a stall to the deadline) is not asked the rest: 100 stalled sitemaps cost 25 deadlines
        hosts: dict[str, asyncio.Semaphore] = {}
        silent: set[str] = set()
        for record in self.discovery:
            nid = record.node_id
            if nid is None or record.found_by == FoundBy.PROBE or self.nodes[nid].state == NodeState.SKIPPED:
                continue  # (a skipped one, a home page's link to another host: not asked either)
            if nid not in asked:
                if len(asked) >= limit:
                    left.add(nid)
                    continue
                asked[nid] = asyncio.ensure_future(self._check(self.nodes[nid].url, hosts, silent))
        if asked:
            await asyncio.gather(*asked.values())
        for record in self.discovery:
            task = asked.get(record.node_id) if record.node_id is not None else None
            if task is None or record.found_by == FoundBy.PROBE:
                continue
            there, detail = task.result()
            record.there = there
            record.detail += "; " + detail.removeprefix("probed: ")
        return len(left)

    async def _check(self, url: str, hosts: dict[str, asyncio.Semaphore], silent: set[str]) -> tuple[bool, str]:
        """One listed sitemap's check (check_discovered), unless its host left one unanswered."""
        host = urlpolicy.host_of(url) or ""
        gate = hosts.setdefault(host, asyncio.Semaphore(max(1, self.fetch_config.per_host)))
        async with gate:
            if host in silent:
                return False, "not checked: its host answered an earlier check with nothing"
            found, detail, answered = await self._probe_answer(url)
            if not answered:
                silent.add(host)
            return found, detail

    async def _probe_answer(self, url: str) -> tuple[bool, str, bool]:
        """(a sitemap is there, in words, whether the host answered at all)."""
        assert self._fetcher is not None
        parser = SniffingParser(url)

        def sink(chunk: bytes) -> None:
            parser.feed(chunk)
            if parser.kind is not None:
                raise StopFetch()

        outcome = await self._fetcher.fetch(url, sink)
        if outcome.error:
            # a host that gave nothing until a deadline (no status, not a byte): a stall, not an
            # answer; a refused connection or address is quick and says so itself
            stalled = outcome.timed_out and outcome.stats.http_status is None and outcome.stats.wire_bytes == 0
            return False, outcome.error, not stalled
        parser.close()
        final = outcome.final_url
        # where it led, said (found from outside: a probed path that redirected read as a second
        # sitemap beside the one the home page linked, the same file)
        at = f" at {final} (redirected)" if final and urlpolicy.normalize(final) != urlpolicy.normalize(url) else ""
        if parser.kind in SITEMAP_KINDS:
            return True, f"probed: {parser.kind.value}{at}", True
        return False, f"probed: not a sitemap ({parser.kind.value if parser.kind else 'empty'}){at}", True

    async def _home_links(self, target: Target,
                          robots: RobotsFile | None) -> tuple[list[tuple[str, str | None]], str, str]:
        """The home page's <link rel=sitemap> URLs (find_sitemap_links), in words why there are
        none, and where the page was read (after its redirects). A page, unlike a sitemap: not
        fetched when the site's robots.txt disallows it for this tool (found from outside:
        `Disallow: /` and the home page fetched all the same)."""
        assert self._fetcher is not None
        agent = agent_token(self.fetch_config.user_agent)
        if robots is not None and not robots.allowed(target.url, agent):
            return [], f"home page: not fetched: robots.txt disallows it for {agent}", target.url
        buf = bytearray()

        def sink(chunk: bytes) -> None:
            buf.extend(chunk[: HOME_MAX_BYTES - len(buf)])
            if len(buf) >= HOME_MAX_BYTES:
                raise StopFetch()

        outcome = await self._fetcher.fetch(target.url, sink)
        read_at = outcome.final_url or target.url
        if outcome.error or not buf:
            return [], f"home page: {outcome.error or 'empty'}", read_at
        links = find_sitemap_links(bytes(buf), read_at)
        if len(buf) >= HOME_MAX_BYTES:  # a link further down is not seen: say how far it looked
            return links, f"no <link rel=sitemap> in the home page's first {HOME_MAX_BYTES // 1048576} MiB", read_at
        return links, "no <link rel=sitemap> in the home page", read_at


NO_SITEMAP = "no sitemap found"
"""How a site node's error begins when discovery found no sitemap (its readers test it)."""


def _unusable_lines(lines: int) -> str:
    """A robots.txt that named no sitemap to fetch: no lines, or only unusable ones (discover
    lists them one by one: "1 Sitemap: line" there and "no Sitemap: lines" here disagreed)."""
    if not lines:
        return "no Sitemap: lines"
    return f"{lines} Sitemap: line{'s' if lines > 1 else ''}, none that may be fetched"


def _discard(_chunk: bytes) -> None:
    raise StopFetch()

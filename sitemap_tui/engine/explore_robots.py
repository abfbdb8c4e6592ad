"""The explorer's robots.txt: the target site's, read for the robots-based rules; the robots.txt
files found or given, processed into their sitemaps; and other hosts' robots.txt read to settle
cross-submissions (a sitemap that another host's robots.txt names)."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

from sitemap_tui.engine import urlpolicy
from sitemap_tui.engine.explore_tree import ROBOTS_MAX_BYTES, ExplorerState
from sitemap_tui.engine.fetch import FetchOutcome, StopFetch
from sitemap_tui.engine.filejob import (
    JobDone,
)
from sitemap_tui.engine.leftout import LeftOut
from sitemap_tui.engine.model import (
    FoundBy,
    Issue,
    Node,
    NodeKind,
    NodeState,
)
from sitemap_tui.engine.robots import RobotsFile, parse_robots
from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store.access import ROBOTS_UNREAD


class RobotsReading(ExplorerState):
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
        origins = {o for line in robots.sitemaps if (o := urlpolicy.origin_of(line.url)) is not None}
        named = Counter(urlpolicy.host_of(line.url) for line in robots.sitemaps
                        if urlpolicy.origin_of(line.url) is not None)
        if not named:
            self.robots_gaps.append(
                f"{display(str(path))} has no Sitemap: line, so the site it belongs to is unknown")
            return
        # A robots.txt judges its own host only; its Sitemap: lines may name other sites'
        # files (cross-submission), which their own robots.txt judges (found from outside: a
        # local robots.txt naming a second site's sitemap said its own Disallow kept that one).
        # By host: http:// and https:// of one host (a migration) are one site.
        (host, most), *others = named.most_common()
        if others and others[0][1] == most:
            self.robots_gaps.append(
                f"{display(str(path))} names sitemaps on {len(named)} sites, none more often than the"
                " others, so the site it belongs to is unknown")
            return
        if others:
            self.robots_notes.append(
                f"{display(str(path))} is read as {display(host or '')}'s robots.txt ({most} of its"
                f" {sum(named.values())} Sitemap: lines name files there); it judges no URL of the"
                f" {len(others)} other {'site' if len(others) == 1 else 'sites'} it names")
        for origin in sorted(origins):
            if urlpolicy.host_of(origin) == host:
                self._use_robots(origin + "/robots.txt", robots)

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
            origin = (urlpolicy.origin_of(issue.url.strip()) if issue.url else None) or ""
            if origin not in accepted:  # one note per site and file, like the streaming check
                accepted.add(origin)
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
            # one byte past the cap tells parse_robots that the file went on (as _process_robots)
            buf.extend(chunk[: ROBOTS_MAX_BYTES + 1 - len(buf)])
            if len(buf) > ROBOTS_MAX_BYTES:
                raise StopFetch()

        outcome = await self._fetcher.fetch(url, sink)
        if outcome.error and not buf:
            status = outcome.stats.http_status
            if status is None or status >= 500:  # a 4xx is "no robots.txt": nothing disallowed
                self._robots_failed[origin] = outcome.error
            self._keep_unread(url, outcome)
            return None  # no robots.txt (4xx), or none to be had: no cross-submission
        if outcome.error and not outcome.stopped_early:
            # broke off part-way: the rules after the break are unknown (a Disallow among them),
            # so it is not judged or obeyed by, as a site target's robots.txt node (found from
            # outside: the deep checks fetched a page the rest of the file disallowed)
            self._robots_failed[origin] = f"it broke off after {len(buf):,} bytes ({outcome.error})"
            self._keep_unread(url, outcome)
            return None
        read_at = outcome.final_url or url
        robots = parse_robots(bytes(buf), read_at, max_bytes=ROBOTS_MAX_BYTES)
        if robots.truncated and self._robots_wanted:  # said, as on a site target's robots.txt node
            self.robots_notes.append(f"{read_at}: only the first {ROBOTS_MAX_BYTES // 1024} KiB read, as Google"
                                     " reads it: the lines after it are ignored")
        self._remember_robots({read_at}, read_at, robots)  # it redirected: that host's too
        return read_at, robots

    def _keep_unread(self, url: str, outcome: FetchOutcome) -> None:
        """A robots.txt that did not answer with rules, kept as such (``robots_unread``): the
        deep checks, which obey robots.txt, then do not ask (and wait) for it a second time. A
        4xx is kept as "none"; a host that never took the request is not kept (the pages' own
        fetches fail and say so)."""
        if self.store is None:
            return
        status = outcome.stats.http_status
        if outcome.headers is not None and status is not None and 400 <= status < 500:
            self.store.set_meta(f"{ROBOTS_UNREAD}{url}", "")
        elif outcome.reached or (status is not None and status >= 500):
            self.store.set_meta(f"{ROBOTS_UNREAD}{url}", outcome.error or f"HTTP {status}")

    async def _process_robots(self, node: Node) -> None:
        node.kind = NodeKind.ROBOTS
        node.state = NodeState.FETCHING
        self._changed(node)
        buf = bytearray()

        def sink(chunk: bytes) -> None:
            # one byte past the cap tells parse_robots that the file went on (its truncated)
            room = ROBOTS_MAX_BYTES + 1 - len(buf)
            buf.extend(chunk[:room])
            if len(buf) > ROBOTS_MAX_BYTES:
                raise StopFetch()

        outcome = await self._fetch(node, sink, max_decoded=ROBOTS_MAX_BYTES + 65536)
        node.stats = outcome.stats
        if outcome.error and not buf:
            node.state = NodeState.FAILED
            node.error = outcome.error
            if outcome.reached:
                self._reached.add(node.id)
            self._keep_unread(node.url, outcome)
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
        read_from = {node.url, outcome.final_url or node.url}
        # A download that broke off part-way (a stall, a dropped connection) is no robots.txt to
        # obey or judge by: the rules after the break are unknown (a Disallow among them). Its
        # Sitemap lines read so far are still followed; the file counts as cut short.
        cut = outcome.error is not None and not outcome.stopped_early
        if cut:
            self._cut.setdefault(node.id, LeftOut.CUT_FETCH)
            self._keep_unread(node.url, outcome)
            why = f"it broke off after {len(buf):,} bytes ({outcome.error})"
            if self._robots_wanted:
                self.robots_gaps.append(f"{display(node.url)} could not be read whole ({display(why)})")
            if self.checker is not None:
                self._add_issues(node, self.checker.robots_fetch_failed(self._ctx(node), None, why))
        else:
            self.robots[node.url] = robots
            if self.store is not None:
                self.store.set_meta(f"robots:{node.url}", bytes(buf).decode("utf-8", "replace"))
            if node.url.startswith("file:"):
                self._adopt_local_robots(robots, urlpolicy.local_path(node.url))
            issues = self._judged(outcome.findings)
            if self.checker is not None:
                issues += self.checker.check_robots(robots, self._ctx(node, outcome.final_url))
            self._add_issues(node, issues)
            # cross-submission follows the robots.txt that was read: a robots.txt that redirects
            # (example.com -> www.example.com) speaks for both hosts
            self._remember_robots(read_from, outcome.final_url or node.url, robots)
        count = 0
        self.sitemap_lines[node.id] = robots.sitemaps
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
        if cut:
            node.error = (f"cut short: {outcome.error}; its rules are not obeyed or judged by, the "
                          "Sitemap lines before the break were followed")
        elif robots.truncated:  # said on the node (stderr in headless runs), not only obeyed
            node.error = (f"only the first {ROBOTS_MAX_BYTES // 1024} KiB read, as Google reads it: "
                          "the lines after it are ignored")
        elif _html_page(buf):
            # (found from outside: a site's fallback page served for every path read as an
            # empty robots.txt, unsaid: no rules, no Sitemap: line)
            node.error = ("the server sent an HTML page, not robots.txt text: read line by line as search"
                          " engines read it (a fallback page served for every path?)")
        node.expandable = count > 0
        self._changed(node)
        self._commit()


def _html_page(body: bytes | bytearray) -> bool:
    """A robots.txt answered with an HTML page: by its first bytes, whatever its Content-Type
    (a plain robots.txt labelled text/html is read as it is: found from outside, it was called
    a fallback page)."""
    head = bytes(body[:64]).lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith((b"<!doctype html", b"<html", b"<head", b"<body", b"<!--"))

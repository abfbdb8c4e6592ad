"""robots.txt as a gate on the pages a run fetches (``audit``, the deep checks): each origin's
file read once, through the run's own Fetcher and pacing, the way RFC 9309 asks a crawler to
read it: a 4xx means no rules at all, a 5xx or no answer disallows the whole origin, and at most
``MAX_ROBOTS_BYTES`` are read (``no_answer_disallows=False``: a host that never answered is
left to the pages' own failures).

A redirect's target is a URL of its own: ``hop_check`` makes a fetch's ``before_hop`` stop a
chain at a hop its origin's robots.txt disallows (the first URL is the caller's to judge)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from sitemap_tui.engine.fetch import Fetcher, FetchOutcome, StopFetch
from sitemap_tui.engine.fetch_outcome import (
    RULE_PRIVATE_ADDRESS,
    HopCallback,
    Sink,
    parse_retry_after,
)
from sitemap_tui.engine.robots import MAX_ROBOTS_BYTES, RobotsFile, parse_robots

# what an unreadable robots.txt is read as (RFC 9309 §2.3.1.4: "complete disallow")
_DISALLOW_ALL = b"User-agent: *\nDisallow: /\n"
CRAWL_DELAY_CAP = 60.0  # seconds: a Crawl-delay of a day would hold a run for weeks
# A robots.txt answering 429 or 5xx is asked once more, after its Retry-After (at most
# RETRY_AFTER_CAP s, else half a second): every worker of a run waits on the file of the host
# whose URLs come next, so a long wait holds the whole run, host after host (a review measured
# 16 s for four hosts at three tries, 2 s apart)
ROBOTS_ATTEMPTS = 2
RETRY_AFTER_CAP = 2.0
_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


def agent_token(user_agent: str) -> str:
    """The product token robots.txt groups are matched against: "sitemap-tui" of
    "sitemap-tui/0.1"."""
    return user_agent.split("/", 1)[0].strip() or user_agent


def crawl_delay(robots: RobotsFile, agent: str, spacing: float) -> float | None:
    """The Crawl-delay ``agent``'s group asks for where it is wider than ``spacing`` (the run's
    own), else None; a run waits at most CRAWL_DELAY_CAP of it (``crawl_delay_said``)."""
    delay = robots.crawl_delay(agent)
    return float(delay) if delay and float(delay) > spacing else None


def origin(url: str) -> str:
    p = urlsplit(url)
    return f"{p.scheme}://{p.netloc}".lower()


class RobotsGate:
    """``fetcher()``: the run's open Fetcher; ``pace(url)``: awaited before each request (the
    run's per-host spacing); ``on_unreadable(origin, why)``: a robots.txt that could not be read
    (its origin is then disallowed: the caller says so); ``on_read(url, body, robots)``: one that
    was."""

    def __init__(
        self,
        fetcher: Callable[[], Fetcher | None],
        pace: HopCallback,
        on_unreadable: Callable[[str, str], None],
        on_read: Callable[[str, bytes, RobotsFile], None] | None = None,
        *,
        no_answer_disallows: bool = True,
    ) -> None:
        # False: a robots.txt that got no HTTP answer at all (nothing listens, no DNS) gates
        # nothing; the pages' own fetches fail the same way and say so (the deep checks' findings)
        self._no_answer_disallows = no_answer_disallows
        self._fetcher = fetcher
        self._pace = pace
        self._on_unreadable = on_unreadable
        self._on_read = on_read
        self._tasks: dict[str, asyncio.Task[RobotsFile | None]] = {}
        self._known: dict[str, RobotsFile | None] = {}  # origin -> what the caller read already
        self._unread: dict[str, str] = {}  # origin -> why the caller could not read it

    def of(self, url: str) -> asyncio.Task[RobotsFile | None]:
        """The robots.txt of ``url``'s origin (read on the first ask, shared after); None when
        there is none."""
        key = origin(url)
        task = self._tasks.get(key)
        if task is None:
            if key in self._unread:  # said when its origin is first asked about, not before
                self._on_unreadable(key, self._unread[key])
                self._known[key] = parse_robots(_DISALLOW_ALL, f"{key}/robots.txt")
            work = _given(self._known[key]) if key in self._known else self._read(key)
            task = self._tasks[key] = asyncio.ensure_future(work)
        return task

    def know(self, url: str, robots: RobotsFile | None) -> None:
        """A robots.txt the exploration read (``url``: where it was asked for; None: it had
        none, a 4xx): not asked again."""
        self._known[origin(url)] = robots

    def know_unread(self, url: str, why: str) -> None:
        """A robots.txt the exploration could not read (a 5xx, a stall, a broken-off body): its
        origin is disallowed, as when read here, and said once; not asked (and waited for) again."""
        self._unread[origin(url)] = why

    def carry(self, other: RobotsGate) -> None:
        """Take the files ``other`` (an earlier run's gate, its fetcher closed since) has read:
        robots.txt is not asked twice."""
        self._tasks.update({k: t for k, t in other._tasks.items() if t.done() and not t.cancelled()})

    async def allowed(self, url: str, agent: str) -> bool:
        robots = await self.of(url)
        return robots is None or robots.allowed(url, agent)

    def hop_check(self, first: str, agent: str, blocked: list[str]) -> HopCallback:
        """A ``before_hop`` for a fetch of ``first``: a later hop that ``agent`` may not fetch
        ends the fetch (StopFetch) and is appended to ``blocked``; every hop is paced."""

        async def before_hop(hop: str) -> None:
            if hop != first and not await self.allowed(hop, agent):
                blocked.append(hop)
                raise StopFetch()
            await self._pace(hop)

        return before_hop

    async def fetch(self, url: str, sink: Sink, agent: str, **kwargs: Any) -> FetchOutcome:
        """The run's fetch of ``url`` (its own pacing at each hop), stopped at a redirect into a
        path that hop's robots.txt disallows for ``agent``: a redirect error naming it, with the
        3xx that led there as the status (as for a refused target)."""
        fetcher = self._fetcher()
        assert fetcher is not None, "the gate is used while its run's fetcher is open"
        blocked: list[str] = []
        out = await fetcher.fetch(url, sink, before_hop=self.hop_check(url, agent, blocked), **kwargs)
        if blocked:
            out.error = f"redirect to {blocked[0]} not followed: robots.txt disallows it for {agent}"
            out.redirect_error = True
            out.stats.http_status = out.redirect_status
            out.headers = None
        return out

    async def close(self) -> None:
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def _read(self, key: str) -> RobotsFile | None:
        fetcher = self._fetcher()
        assert fetcher is not None, "the gate is used while its run's fetcher is open"
        url = f"{key}/robots.txt"
        buf = bytearray()

        def sink(chunk: bytes) -> None:
            buf.extend(chunk[: MAX_ROBOTS_BYTES - len(buf)])
            if len(buf) >= MAX_ROBOTS_BYTES:
                raise StopFetch()

        for attempt in range(1, ROBOTS_ATTEMPTS + 1):
            buf.clear()
            out = await fetcher.fetch(url, sink, before_hop=self._pace)
            status = out.stats.http_status
            if attempt == ROBOTS_ATTEMPTS or out.headers is None or status not in _RETRY_STATUSES:
                break
            # a 503 of a moment (a deploy, a rate limit) read once disallowed every URL of the
            # host, though the next request got the file (found by a review); the run's pages
            # are fetched once each, robots.txt is asked again as the exploration asks it
            wait = parse_retry_after(out.header_map().get("retry-after"), RETRY_AFTER_CAP)
            await asyncio.sleep(0.5 if wait is None else wait)
        if out.error_rule == RULE_PRIVATE_ADDRESS:
            # an address the policy refuses: no robots.txt to obey there, and the page's own
            # fetch is refused with the policy's reason (a redirect there was blamed on robots.txt)
            return None
        status = out.stats.http_status
        # a status is an answer, headers or not: a file read through --map has none (found from
        # outside: a build's robots.txt read as "could not be read (HTTP 200)", every URL blocked)
        answered = out.headers is not None or status is not None
        if answered and status is not None and 400 <= status < 500:
            # no robots.txt: nothing disallowed (RFC 9309), said to the caller as an empty file
            # (found by a review: an audit of a sitemap URL printed no crawler table for it)
            if self._on_read is not None:
                self._on_read(url, b"", parse_robots(b"", url))
            return None
        if not answered and not out.reached and not self._no_answer_disallows:
            return None
        if not answered or status is None or status >= 500 or (out.error and not out.stopped_early):
            tries = f", asked {attempt} times" if attempt > 1 else ""
            self._on_unreadable(key, (out.error or f"HTTP {status}") + tries)
            return parse_robots(_DISALLOW_ALL, url)
        robots = parse_robots(bytes(buf), url)
        if self._on_read is not None:
            self._on_read(url, bytes(buf), robots)
        return robots


async def _given(robots: RobotsFile | None) -> RobotsFile | None:
    return robots


def crawl_delay_said(asked: float, cap: float = CRAWL_DELAY_CAP) -> str:
    """A Crawl-delay as obeyed: honoured, or cut to ``cap`` seconds (said, not hidden)."""
    if asked <= cap:
        return f"Crawl-delay {asked:g} s honoured (requests {asked:g} s apart)"
    return f"Crawl-delay {asked:g} s asked, at most {cap:g} s waited (requests {cap:g} s apart)"

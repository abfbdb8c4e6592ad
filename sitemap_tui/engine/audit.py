"""``sitemap-tui audit``'s fetching: every listed URL of an exploration, politely, its answer kept
in the store's ``audit`` table as it arrives (engine/store/audit.py), so an interrupted audit
goes on where it stopped.

Fetch policy, per URL:

* only hosts that served the exploration's sitemaps (and the target's), unless
  ``follow_cross_host``: sitemaps.org asks a sitemap to list its own host's URLs; the others are
  counted and said, not fetched;
* robots.txt of the URL's origin, read once (RFC 9309 via protego): a URL disallowed for our user
  agent is not fetched (``ignore_robots`` fetches it), nor is a redirect's target that its own
  origin's robots.txt disallows (the chain stops there), a robots.txt that cannot be read for a
  server or network error disallows its whole origin, as RFC 9309 asks; its ``Crawl-delay``
  widens the host's spacing;
* per host a token bucket (``rate`` requests/s, burst 1; 0: none), at most ``concurrency``
  requests in flight (and the fetch config's ``per_host``);
* HEAD for a URL whose extension names a file that is no web page; else GET, stopped at the
  headers when the answer is not a 200 HTML page, and read up to ``</head>`` or ``max_head``
  decoded bytes (whichever comes first) when it is;
* 429 and 503 with ``Retry-After``: the host waits (at most ``retry_after_cap`` seconds, said),
  then the URL is asked again, twice at most;
* every request through the engine's ``Fetcher``: -H headers to the target's origin only, the
  address policy (netpolicy), redirects by hand (http/https, ``max_redirects``, loops), one
  deadline per URL (``timeout``), bounded decoding.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from sitemap_tui.engine.access import DEFAULT_AGENTS
from sitemap_tui.engine.audit_page import (
    HTML_TYPES,
    charset_of,
    head_end,
    head_facts,
    link_canonical,
    mime_of,
    verdict,
    x_robots_directives,
)
from sitemap_tui.engine.fetch import (
    RULE_PRIVATE_ADDRESS,
    FetchConfig,
    Fetcher,
    FetchOutcome,
    StopFetch,
    parse_retry_after,
)
from sitemap_tui.engine.fetch_outcome import content_length
from sitemap_tui.engine.robots import RobotsFile
from sitemap_tui.engine.robots_gate import (
    CRAWL_DELAY_CAP,
    RobotsGate,
    agent_token,
    crawl_delay,
    crawl_delay_said,
)
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.audit import (
    AuditRow,
    TodoUrl,
    add_results,
    add_skipped,
    sitemap_urls,
    todo_pages,
)
from sitemap_tui.engine.urlpolicy import server_of

__all__ = ["AuditOptions", "Auditor", "REPORTED_AGENTS"]

# httpcore imports sniffio on every request (current_async_library); without sniffio installed each
# failed import searches sys.path again: a third of an audit's CPU time (measured, 3,000 pages).
# A None entry makes that import fail at once; an installed sniffio is left alone.
if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
    sys.modules["sniffio"] = None  # type: ignore[assignment]

# The crawlers blocked_for names besides our own agent: the crawler-access matrix's (engine/access.py)
REPORTED_AGENTS = DEFAULT_AGENTS
# Extensions of files that are no web page: their headers say all the audit needs (HEAD).
_FILE_EXTENSIONS = frozenset({
    "pdf", "jpg", "jpeg", "png", "gif", "webp", "avif", "svg", "ico", "bmp", "tif", "tiff",
    "mp4", "webm", "mov", "avi", "mkv", "mp3", "wav", "ogg", "m4a", "zip", "gz", "tgz", "rar",
    "7z", "tar", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "csv", "txt", "xml", "json",
    "css", "js", "woff", "woff2", "ttf", "eot", "exe", "dmg", "apk", "iso",
})
_HEAD_END = b"</head"
_SMALL_BODY = 64 * 1024  # read whole (keeps the connection); a larger one stops at </head>
_BATCH = 200  # results per commit
_BATCH_SECONDS = 0.5
_RETRY_STATUSES = frozenset({429, 503})
_RETRIES = 2


@dataclass(frozen=True, slots=True)
class AuditOptions:
    sample: int | None = None  # URLs per sitemap, evenly spaced; None: all
    rate: float = 5.0  # requests per second per host; <= 0: no limit
    concurrency: int = 8
    timeout: float = 15.0  # all hops of one URL
    max_head: int = 256 * 1024  # decoded bytes of a page read for its head
    max_redirects: int = 10
    ignore_robots: bool = False
    follow_cross_host: bool = False
    retry_after_cap: float = 30.0
    links: bool = False  # read a 200 HTML page's <a href> up to max_head (audit --crawl), not only its head
    node_ids: tuple[int, ...] | None = None  # only these sitemaps' URLs (the explorer's node audit)


class HostPace:
    """Per host, requests spaced ``interval`` apart (burst 1); a host can be paused (Retry-After).
    Each caller reserves the next slot synchronously, so concurrent tasks queue in order."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self.delay: dict[str, float] = {}  # host -> Crawl-delay, when wider than the rate
        self._next: dict[str, float] = {}
        self._paused: dict[str, float] = {}  # host -> when its Retry-After ends

    async def wait(self, host: str) -> None:
        interval = max(self.interval, self.delay.get(host, 0.0))
        if interval <= 0 and host not in self._next:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        slot = max(now, self._next.get(host, now))
        self._next[host] = slot + interval
        if slot > now:
            await asyncio.sleep(slot - now)
        if self._paused.get(host, 0.0) > loop.time():
            # paused while this one slept on its earlier slot: a new slot, after the pause
            # (found by a review: 7 requests went out during a 429's Retry-After: 3)
            await self.wait(host)

    def pause(self, host: str, seconds: float) -> None:
        now = asyncio.get_running_loop().time()
        self._next[host] = max(self._next.get(host, now), now + seconds)
        self._paused[host] = max(self._paused.get(host, now), now + seconds)


def _host(url: str) -> str:
    # (with a port that is not the scheme's default: another port is another server)
    return (server_of(url) or "").lower()


def _wants_head(url: str) -> bool:
    name = urlsplit(url).path.rsplit("/", 1)[-1]
    return "." in name and name.rsplit(".", 1)[-1].lower() in _FILE_EXTENSIONS


class Auditor:
    """Audit the URLs of ``store``'s exploration; ``await run()`` returns the URLs fetched.

    ``on_note(text)``: what the user must be told (a skipped host, a wait, an unreadable
    robots.txt), once each; ``on_progress(done)``: after each stored batch."""

    def __init__(
        self,
        store: Store,
        config: FetchConfig,
        options: AuditOptions,
        *,
        on_note: Callable[[str], None] = lambda _t: None,
        on_progress: Callable[[int], None] | None = None,
    ) -> None:
        self.store = store
        self.options = options
        self.on_note = on_note
        self.on_progress = on_progress
        read = options.max_head
        self.config = replace(
            config,
            target=config.target if config.target is not None else (store.root_url() or ""),
            total_timeout=options.timeout, retries=0, max_redirects=options.max_redirects,
            concurrency=max(1, options.concurrency), max_decoded=read + 65536, max_wire=4 * read + 65536,
        )
        self.agent = agent_token(self.config.user_agent)
        self.pace = HostPace(options.rate)
        self.fetcher: Fetcher | None = None
        self.gate = RobotsGate(lambda: self.fetcher, lambda u: self.pace.wait(_host(u)), self._unreadable, self._read)
        self.hosts = self._own_hosts()
        self.skipped_hosts: dict[str, int] = {}
        self.busy: set[str] = set()  # keys in flight or waiting for their batch's commit
        # keys robots.txt disallows for our agent and not for Googlebot: not fetched, no verdict
        self.ours_only: set[str] = set()
        self.batch: list[AuditRow] = []
        self.last_flush = time.monotonic()
        self.fetched = 0
        self.stored = 0

    def _own_hosts(self) -> set[str]:
        hosts = {_host(self.config.target or "")} | {_host(u) for u in sitemap_urls(self.store)}
        hosts.discard("")
        return hosts

    # -- driving ---------------------------------------------------------------------------
    async def open(self) -> None:
        """Open the fetcher (``run`` does it; engine/coverage.py calls audit_one between these)."""
        self.fetcher = Fetcher(self.config)
        await self.fetcher.__aenter__()

    async def close(self) -> None:
        await self.gate.close()
        if self.fetcher is not None:
            await self.fetcher.aclose()

    async def run(self) -> int:
        todo = self._todo()
        await self.open()
        try:
            workers = [asyncio.create_task(self._worker(todo)) for _ in range(max(1, self.options.concurrency))]
            try:
                await asyncio.gather(*workers)
            finally:
                for w in workers:
                    w.cancel()
                await asyncio.gather(*workers, return_exceptions=True)
                self.flush()  # what finished before a stop is kept
        finally:
            await self.close()
        for host, n in sorted(self.skipped_hosts.items()):
            self.on_note(f"{n} listed URL(s) on {host} not fetched: another host or port than the sitemaps' "
                         "(--follow-cross-host fetches them)")
        if self.ours_only:
            self.on_note(f"{len(self.ours_only)} listed URL(s) not fetched: robots.txt disallows them for "
                         f"{self.agent}, not for Googlebot, so their indexability is unknown and they are not "
                         "audited (sitemap-tui audit --ignore-robots fetches them)")
        return self.fetched

    def _todo(self) -> Iterator[TodoUrl]:
        for page in todo_pages(self.store, self.options.sample, node_ids=self.options.node_ids):
            for url in page:
                if url.key in self.busy or url.key in self.ours_only:
                    continue  # listed again while its first listing is in flight
                host = _host(url.loc)
                if not self.options.follow_cross_host and host not in self.hosts:
                    self.skipped_hosts[host] = self.skipped_hosts.get(host, 0) + 1
                    continue
                self.busy.add(url.key)
                yield url

    async def _worker(self, todo: Iterator[TodoUrl]) -> None:
        for url in todo:
            row = await self.audit_one(url)
            if self.robots_ours_only(row):  # no verdict: kept apart (store.audit.add_skipped), said at the end
                self.ours_only.add(row.key)
            self.batch.append(row)
            if len(self.batch) >= _BATCH or time.monotonic() - self.last_flush > _BATCH_SECONDS:
                self.flush()

    def flush(self) -> None:
        batch, self.batch = self.batch, []
        self.last_flush = time.monotonic()
        if not batch:
            return
        add_results(self.store, [r for r in batch if not self.robots_ours_only(r)])
        add_skipped(self.store, [r for r in batch if self.robots_ours_only(r)])
        self.busy.difference_update(r.key for r in batch)
        self.stored += len(batch)
        if self.on_progress is not None:
            self.on_progress(self.stored)

    # -- robots.txt ------------------------------------------------------------------------
    def _robots_of(self, url: str) -> asyncio.Task[RobotsFile | None]:
        return self.gate.of(url)

    def _unreadable(self, origin: str, why: str) -> None:
        self.on_note(f"robots.txt of {origin} could not be read ({why}): its URLs count as "
                     "disallowed (RFC 9309; --ignore-robots fetches them)")

    def _read(self, url: str, body: bytes, robots: RobotsFile) -> None:
        self._keep_robots(url, body)
        asked = None if self.options.ignore_robots else crawl_delay(robots, self.agent, self.pace.interval)
        if asked is not None:
            host = _host(url)
            self.pace.delay[host] = min(asked, CRAWL_DELAY_CAP)
            self.on_note(f"{host}: {crawl_delay_said(asked)}")

    def _keep_robots(self, url: str, body: bytes) -> None:
        """Keep a robots.txt the exploration did not (a sitemap URL's exploration reads none) as
        it keeps its own (meta ``robots:URL``): the crawler-access table judges URLs by it."""
        key = f"robots:{url}"
        if self.store.get_meta(key) is None:
            self.store.set_meta(key, body.decode("utf-8", "replace"))
            self.store.publish()

    # -- one URL ---------------------------------------------------------------------------
    def robots_ours_only(self, row: AuditRow) -> bool:
        """Whether :meth:`audit_one` left ``row`` unfetched for robots.txt shutting out our agent
        alone: it has no verdict (Googlebot may fetch and index the page)."""
        return row.fetched_at is None and self.agent in row.blocked_for

    async def audit_one(self, url: TodoUrl) -> AuditRow:
        row = AuditRow(url.key, url.loc, url.entry_id, url.node_id, fetched_at=time.time())
        robots = await self._robots_of(url.loc)
        if robots is not None:
            row.blocked_for = [a for a in (self.agent, *REPORTED_AGENTS) if not robots.allowed(url.loc, a)]
        own_blocked = self.agent in row.blocked_for
        if own_blocked and not self.options.ignore_robots and "Googlebot" not in row.blocked_for:
            # shut out as an unknown bot, Googlebot let in (found from outside: such a site's every
            # URL read "non-indexable: blocked by robots.txt", its pages indexable all along)
            row.fetched_at = None
            row.note = (f"not fetched: robots.txt disallows it for {self.agent}, not for Googlebot: "
                        "indexability unknown (sitemap-tui audit --ignore-robots fetches it)")
            return row
        if own_blocked and not self.options.ignore_robots:
            v = verdict(status=None, error=None, timed_out=False, redirects=0, redirect_problem=None,
                        final_url=url.loc, content_type=None, robots=(), canonical=None, blocked=True)
            row.indexable, row.reason = v.indexable, v.reason
            row.note = f"not fetched: robots.txt disallows it for {self.agent}"
            return row
        self.fetched += 1
        out, body = await self._fetch(url.loc)
        self._fill(row, out, body)
        return row

    async def _fetch(self, url: str) -> tuple[FetchOutcome, bytes | None]:
        method = "HEAD" if _wants_head(url) else "GET"
        out, body = await self._request(url, method)
        if method == "HEAD" and out.headers is not None and (
                out.stats.http_status in (405, 501)  # HEAD not allowed here
                # a page after all (/page.txt, /data.xml served as HTML): its head is read, as the
                # deep checks read it (found from outside: its noindex went unseen, "indexable")
                or out.stats.http_status == 200 and mime_of(out.stats.content_type) in HTML_TYPES):
            method = "GET"  # (and so is a Retry-After's retry below: a HEAD again read no body)
            out, body = await self._request(url, method)
        for _ in range(_RETRIES):
            status = out.stats.http_status
            if out.headers is None or status not in _RETRY_STATUSES:
                break
            wait = parse_retry_after(out.header_map().get("retry-after"), self.options.retry_after_cap)
            if wait is None:
                break
            host = _host(out.final_url or url)
            self.on_note(f"{host} answered {status} with Retry-After: waiting {wait:g} s before asking again"
                         f" (at most {self.options.retry_after_cap:g} s)")
            self.pace.pause(host, wait)
            out, body = await self._request(url, method)
        return out, body

    async def _request(self, url: str, method: str) -> tuple[FetchOutcome, bytes | None]:
        assert self.fetcher is not None
        limit = self.options.max_head
        buf = bytearray()
        state = {"read": False, "whole": True}

        def on_response(out: FetchOutcome) -> None:
            if method != "GET" or out.stats.http_status != 200:
                raise StopFetch()  # the status and headers are all the verdict needs
            mime = mime_of(out.stats.content_type)
            if mime is not None and mime not in HTML_TYPES:
                raise StopFetch()
            state["read"] = True
            length = content_length(next((v for k, v in out.headers or () if k.lower() == "content-length"), None))
            # a small body is read to its end: stopping early would close a keep-alive connection
            state["whole"] = length is not None and length <= _SMALL_BODY

        def sink(chunk: bytes) -> None:
            start = max(0, len(buf) - len(_HEAD_END))
            buf.extend(chunk[: limit - len(buf)])
            if len(buf) >= limit:
                raise StopFetch()
            if state["whole"] or self.options.links:
                return
            # the head's end as head_facts finds it: a "</head>" in a comment, script or style
            # stopped the read before the metas after it (a chunked page's noindex went unread)
            state["end_seen"] = state.get("end_seen") or _HEAD_END in bytes(buf[start:]).lower()
            if state["end_seen"] and head_end(bytes(buf)) >= 0:
                raise StopFetch()

        headers = {"Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"}
        if self.options.ignore_robots:
            out = await self.fetcher.fetch(url, sink, method=method, on_response=on_response, headers=headers,
                                           before_hop=lambda u: self.pace.wait(_host(u)))
        else:  # a redirect's target is a URL of its own: its robots.txt is obeyed too
            out = await self.gate.fetch(url, sink, self.agent, method=method, on_response=on_response,
                                        headers=headers)
        if not state["read"]:
            return out, None
        return out, bytes(buf)

    def _fill(self, row: AuditRow, out: FetchOutcome, body: bytes | None) -> None:
        row.redirects = out.stats.redirects or 0
        row.final_url = out.redirect_chain[-1] if out.redirect_chain else row.loc
        row.response_time = out.stats.fetch_time
        redirect_problem = out.error if out.redirect_error else None
        refresh: str | None = None  # a meta refresh's target: a redirect, as Google reads it
        timed_out = False
        # a 200 whose body broke off (the deadline, a reset) is no answer: the head is not whole
        answered = out.headers is not None and not out.redirect_error and (
            out.error is None or out.stats.http_status != 200)
        if answered:
            row.status = out.stats.http_status
            row.final_url = out.final_url or row.final_url
            h = out.header_map()
            row.content_type = (h.get("content-type") or "")[:200] or None
            row.last_modified = (h.get("last-modified") or "")[:100] or None
            row.robots = x_robots_directives(h.get_list("x-robots-tag"))
            row.canonical = link_canonical(h.get_list("link"), row.final_url)
            page: dict[str, object] = {"x_robots": [v[:1000] for v in h.get_list("x-robots-tag")[:20]],
                                       "links": [v[:16384] for v in h.get_list("link")[:20]]}
            row.page = page
            if body is not None:
                facts = head_facts(body, row.final_url, links=self.options.links,
                                   charset=charset_of(row.content_type))
                row.links = facts.links
                row.robots = [*facts.robots, *row.robots]  # meta first, then the header's
                row.canonical = facts.canonical or row.canonical
                page.update(metas=facts.metas, canonical=facts.canonical, alternates=facts.alternates,
                            title=facts.title, h1=facts.h1)
                refresh = facts.refresh
                if facts.conflicting:  # none of them is judged, as Google judges none
                    row.canonical = None
                    row.note = (f"{len(facts.conflicting)} different canonicals in the head "
                                f"({', '.join(facts.conflicting)}): Google ignores conflicting ones")
                if self.options.links and len(body) >= self.options.max_head:
                    row.note = f"read the first {self.options.max_head // 1024} KiB only: links after that were not read"
                elif len(body) >= self.options.max_head and _HEAD_END not in body.lower():
                    row.note = (f"read the first {self.options.max_head // 1024} KiB only: no </head> in them, "
                                "directives after that were not read")
        else:
            row.error = out.error or "no response"
            row.page = {"refused": out.error_rule == RULE_PRIVATE_ADDRESS}
            row.status = out.stats.http_status if out.redirect_error else None
            timed_out = row.error.startswith("no complete response within")
        googlebot_blocked = "Googlebot" in row.blocked_for
        v = verdict(status=row.status if not redirect_problem else None, error=row.error, timed_out=timed_out,
                    redirects=row.redirects, redirect_problem=redirect_problem, final_url=row.final_url or row.loc,
                    content_type=row.content_type, robots=row.robots, canonical=row.canonical,
                    blocked=googlebot_blocked, refresh=refresh)
        row.indexable, row.reason = v.indexable, v.reason



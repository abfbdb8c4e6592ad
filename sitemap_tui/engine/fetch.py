"""HTTP fetching of one file at a time, hardened against hostile servers (SECURITY.md §5-§8, §10).

One ``httpx.AsyncClient`` (keep-alive) per ``Fetcher``. Every fetch:

* refuses URLs ``urlpolicy`` calls unfetchable, before any request, and so every redirect hop;
* sends the ``-H`` headers to the target's origin only, and connects only to addresses the
  address policy allows (``netpolicy``: checked on the resolved address, before any byte is
  sent), on every hop;
* follows redirects by hand (hop limit, http(s) only, loop detection, host changes flagged);
* runs under one overall deadline (``asyncio.timeout``) covering headers and body, because
  httpx timeouts are per read and a 1 byte/s server never trips them; the time this process
  spends in sinks (parsing, for this file or another one sharing the loop) does not count
  against it (``BusyClock``);
* reads the body only with ``aiter_raw()`` and decodes it with ``BodyDecoder`` (bounded inflate),
  counting wire bytes against their own cap;
* never raises for network, protocol or content trouble: it returns a ``FetchOutcome`` whose
  ``error``/``error_rule`` say what went wrong. Task cancellation still propagates.
"""

from __future__ import annotations

import asyncio
import socket
import time
from dataclasses import dataclass, field
from http.cookiejar import CookieJar, DefaultCookiePolicy

import httpx

from sitemap_tui.engine import localmap
from sitemap_tui.engine.decode import BodyDecoder, CapExceeded
from sitemap_tui.engine.fetch_local import BusyClock, fetch_local, fetch_mapped, timed_sink
from sitemap_tui.engine.fetch_outcome import (
    ACCEPT_ENCODING,
    CHUNK,
    REDIRECT_STATUSES,
    RULE_FETCH_ERROR,
    RULE_PRIVATE_ADDRESS,
    RULE_REDIRECTED,
    YIELD_EVERY,
    FetchConfig,
    FetchOutcome,
    HopCallback,
    PaceCallback,
    ProgressCallback,
    ResponseCallback,
    Sink,
    StopFetch,
    causes,
    content_length,
    error_for,
    fail,
    note_decoding,
    parse_retry_after,
    phrase,
    retries_said,
    tls_failure,
)
from sitemap_tui.engine.fetch_response import LOCATION_KEY, discard_if_poisoned, take_location
from sitemap_tui.engine.findings import Finding
from sitemap_tui.engine.limits import Lease, Limiter, Slots
from sitemap_tui.engine.model import FileStats
from sitemap_tui.engine.netpolicy import NetPolicy, guarded_transport, origin_of, tls_context
from sitemap_tui.engine.urlpolicy import (
    host_of,
    normalize,
    resolve,
    same_host,
    unfetchable_reason,
)

# Failures that happen before the server said anything useful: worth another attempt.
_RETRYABLE_ERRORS: tuple[type[BaseException], ...] = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.ReadTimeout,  # a stall (--timeout's third): before the body began, asked again
    httpx.ReadError,
    httpx.WriteError,
    httpx.RemoteProtocolError,
)


def _refused(exc: BaseException) -> bool:
    """Nothing listens there, or the name does not exist: the answer came at once, and asking
    again 0.5 + 1 + 2 s later only delays it (curl, too, retries a refused connection only when
    told to). A DNS answer of "try again" (EAI_AGAIN) is retried."""
    if tls_failure(exc) is not None:  # a handshake that failed fails the same way again
        return True
    return any(isinstance(e, ConnectionRefusedError)
               or (isinstance(e, socket.gaierror) and e.errno in _NO_SUCH_NAME) for e in causes(exc))


def _malformed(exc: BaseException) -> bool:
    """An answer that breaks HTTP itself (a 2 MiB header, two Content-Lengths, no status line):
    asked again once (a kept-alive connection that an earlier answer left bytes on gives "illegal
    status line" too, and a new one cures it), not three times. A connection closed early (a
    keep-alive race, a dropped link) is another protocol error, retried as any."""
    if not isinstance(exc, httpx.RemoteProtocolError):
        return False
    text = str(exc).lower()
    return not any(word in text for word in ("disconnect", "closed", "terminat", "reset"))


def _retries_for(exc: BaseException, retries: int) -> int:
    """The retries a failure earns: ``retries``, one at most for a malformed answer."""
    return min(retries, 1) if _malformed(exc) else retries


_NO_SUCH_NAME = frozenset({socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)})


__all__ = [
    "FetchConfig",
    "FetchOutcome",
    "Fetcher",
    "StopFetch",
    "fetch_local",
    "parse_retry_after",
    "RULE_FETCH_ERROR",
    "RULE_PRIVATE_ADDRESS",
    "RULE_REDIRECTED",
]


class _Watchdog:
    """Expires a fetch's deadline once ``total`` seconds have passed that this process did not
    spend in sinks (see BusyClock)."""

    def __init__(self, deadline: asyncio.Timeout, total: float, run: _Run) -> None:
        self._deadline = deadline
        self._total = total
        self._run = run
        self._loop = asyncio.get_running_loop()
        self._t0 = self._loop.time()
        self._busy0 = BusyClock.seconds
        self._handle = self._loop.call_at(self._t0 + total, self._check)

    def _check(self) -> None:
        spent = self._loop.time() - self._t0 - (BusyClock.seconds - self._busy0) - self._run.paused
        if spent >= self._total:
            self._deadline.reschedule(self._loop.time())
        else:
            self._handle = self._loop.call_later(self._total - spent, self._check)

    def cancel(self) -> None:
        self._handle.cancel()


@dataclass(slots=True)
class _Run:
    """Mutable state of one fetch across hops and attempts."""

    url: str
    conditional: tuple[str | None, str | None] | None
    started: float | None = None  # perf_counter when the first request could start
    attempt: int = 0  # retries used so far
    hops: int = 0
    visited: set[str] = field(default_factory=set)
    delivered: bool = False  # some decoded byte reached the sink: no more retries
    last_failure: str | None = None  # why the last attempt is being retried (for the deadline)
    asked_wait: float = 0.0  # the longest Retry-After the server asked for (waits are capped)
    method: str = "GET"
    headers: dict[str, str] = field(default_factory=dict)
    before_hop: HopCallback | None = None
    watchdog: _Watchdog | None = None
    pace: PaceCallback | None = None
    paused: float = 0.0  # loop seconds spent awaiting pace(): the caller's, not the server's
    lease: Lease | None = None  # the request's slot, lent back while a read chunk is parsed


@dataclass(slots=True)
class _Step:
    kind: str  # "done" | "redirect" | "retry"
    url: str | None = None
    delay: float = 0.0


_DONE = _Step("done")


class Fetcher:
    """Fetch files over HTTP with one shared client; use as ``async with Fetcher(cfg) as f``."""

    def __init__(self, config: FetchConfig | None = None, slots: Slots | None = None) -> None:
        self.config = config or FetchConfig()
        self._client: httpx.AsyncClient | None = None
        # request slots (limits.py): the exploration's, shared with every other Fetcher of it,
        # or limits of this Fetcher alone
        self.slots: Slots = slots or Limiter(self.config.concurrency, self.config.per_host)
        # One per connection of the client's pool, taken before a request slot and held until
        # the response is closed. A fetch lends its slot back while its sink parses a chunk,
        # keeping its connection: without these, callers with more fetches going than the pool
        # has connections (discover's checks, the deep checks' pages and alternates) let slots
        # go to requests that then waited for a connection held by fetches waiting for a slot,
        # until httpx's pool timeout failed them ("timeout: PoolTimeout").
        self._connections = asyncio.Semaphore(max(1, self.config.concurrency))
        self.http2_enabled = False
        self._policy: NetPolicy | None = None
        self._policy_key: tuple[object, ...] = ()

    async def __aenter__(self) -> Fetcher:
        if self._client is None:
            self._client = self._make_client()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    def policy(self) -> NetPolicy:
        """The address policy of the current config (the Explorer sets ``target`` after the
        client exists, so it is looked up per connection, not frozen at creation)."""
        cfg = self.config
        key = (cfg.target, cfg.allow_private, tuple(sorted(cfg.resolve.items())))
        if self._policy is None or key != self._policy_key:
            self._policy = NetPolicy(cfg.target, allow_private=cfg.allow_private, resolve=cfg.resolve)
            self._policy_key = key
        return self._policy

    def user_headers(self, url: str) -> dict[str, str]:
        """The ``-H`` headers for one request: only on the target's origin (scheme, host,
        port), unless ``header_all_hosts``; never Accept-Encoding (we decode what we ask for)."""
        cfg = self.config
        if not cfg.headers:
            return {}
        if not (cfg.header_all_hosts or cfg.target is None):
            target = origin_of(cfg.target)
            if target is None or origin_of(url) != target:
                return {}
        return {k: v for k, v in cfg.headers.items() if k.lower() != "accept-encoding"}

    def _make_client(self) -> httpx.AsyncClient:
        cfg = self.config
        # -H headers are added per request (user_headers): they may not go to every host
        headers = httpx.Headers({"User-Agent": cfg.user_agent})
        headers["Accept-Encoding"] = ACCEPT_ENCODING  # never ask for what we cannot decode
        timeout = httpx.Timeout(
            connect=cfg.connect_timeout,
            read=cfg.read_timeout,
            write=cfg.read_timeout,
            pool=cfg.connect_timeout,
        )
        n = max(1, cfg.concurrency)
        limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)
        # Like search engine crawlers, keep no cookies: responses must not change what later
        # requests to any host look like (and a hostile server cannot bloat our headers).
        jar = CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))

        def make(http2: bool) -> httpx.AsyncClient:
            return httpx.AsyncClient(
                headers=headers,
                timeout=timeout,
                # every connection goes through the address policy (netpolicy.GuardedBackend)
                transport=guarded_transport(self.policy, http2=http2, limits=limits,
                                            ssl_context=tls_context(cfg.insecure, cfg.cacert),
                                            proxy=cfg.proxy),
                follow_redirects=False,
                event_hooks={"response": [take_location]},
                cookies=jar,
                http2=http2,
            )

        if cfg.http2:
            try:
                client = make(True)
                self.http2_enabled = True
                return client
            except ImportError:  # h2 not installed: plain HTTP/1.1 it is
                pass
        return make(False)

    async def fetch(
        self,
        url: str,
        sink: Sink,
        *,
        conditional: tuple[str | None, str | None] | None = None,
        on_progress: ProgressCallback | None = None,
        on_response: ResponseCallback | None = None,
        method: str = "GET",
        headers: dict[str, str] | None = None,
        before_hop: HopCallback | None = None,
        pace: PaceCallback | None = None,
    ) -> FetchOutcome:
        """Fetch ``url`` and call ``sink(chunk)`` with each decoded chunk; never raises for
        network, protocol or content trouble (see ``FetchOutcome.error``).

        ``pace()``, when given, is awaited after each chunk read from the network: the caller's
        backpressure (a worker whose results wait for the explorer), so that this file pauses
        while others sharing the loop go on. Time spent there is not charged to the deadline.

        ``method`` GET or HEAD; ``headers`` extra request headers for every hop (the -H
        headers still follow their own policy); ``before_hop(url)`` is awaited before each
        request, outside the concurrency slots (the deep checks' per-host rate limit).

        ``conditional`` = (etag, last_modified) of an earlier fetch: sent as If-None-Match /
        If-Modified-Since; a 304 gives ``not_modified=True``. ``on_progress(wire_bytes,
        content_length)`` is called about every 64 KiB; ``on_response(outcome)`` when the final
        response's headers are in (stats filled, body not read yet; again if the body read is
        retried). Both callbacks and the sink may raise StopFetch to end the fetch quietly.
        A URL ``urlpolicy`` refuses gives an error without any request.
        """
        cfg = self.config
        out = FetchOutcome(stats=FileStats(final_url=url), final_url=url, redirect_chain=[url])
        reason = unfetchable_reason(url)
        if reason is not None:
            fail(out, f"not fetched: {reason}")
            out.stats.fetch_time = 0.0
            return out
        hit = localmap.lookup(cfg.maps, url)
        if hit is not None:
            return await fetch_mapped(hit, sink, max_decoded=cfg.max_decoded, max_wire=cfg.max_wire,
                                      on_progress=on_progress, on_response=on_response)
        if self._client is None:
            raise RuntimeError("Fetcher is not open: use 'async with Fetcher(config)'")
        run = _Run(
            url=url, conditional=conditional, visited={normalize(url)}, method=method,
            headers=headers or {}, before_hop=before_hop, pace=pace,
        )
        called = time.perf_counter()
        deadline: asyncio.Timeout | None = None
        try:
            async with asyncio.timeout(None) as deadline:
                await self._run(run, sink, on_progress, on_response, out, deadline)
        except StopFetch:
            out.stopped_early = True
        except TimeoutError as exc:
            out.timed_out = True
            if deadline is not None and deadline.expired():
                message = f"no complete response within {cfg.total_timeout:g} s"
                if run.last_failure is not None:  # say why it kept failing, not only that
                    # ("earlier": the deadline may have cut an attempt whose own end is unknown)
                    message += f" (an earlier attempt: {run.last_failure})"
                fail(out, message)
            else:
                fail(out, *error_for(exc, cfg))
        except Exception as exc:  # every other failure becomes this node's error
            if self._client is None:
                out.cancelled = True
            out.timed_out = isinstance(exc, httpx.TimeoutException)
            fail(out, *error_for(exc, cfg))
        finally:
            if run.watchdog is not None:
                run.watchdog.cancel()
            start = run.started if run.started is not None else called
            out.stats.fetch_time = time.perf_counter() - start
        if out.error is not None and run.attempt and "earlier attempt:" not in out.error:
            out.error += retries_said(run.attempt, run.asked_wait, cfg.retry_after_cap)
        self._add_redirect_issue(out, run)
        return out

    async def _run(
        self,
        run: _Run,
        sink: Sink,
        on_progress: ProgressCallback | None,
        on_response: ResponseCallback | None,
        out: FetchOutcome,
        deadline: asyncio.Timeout,
    ) -> None:
        cfg = self.config
        current = run.url
        while True:
            if run.before_hop is not None:
                await run.before_hop(current)
            async with self._connections, self.slots.slot(host_of(current) or "") as run.lease:
                if run.started is None:
                    # The deadline starts when we may send, not while queued behind other files.
                    run.started = time.perf_counter()
                    run.watchdog = _Watchdog(deadline, cfg.total_timeout, run)
                step = await self._hop(current, run, sink, on_progress, on_response, out)
            if step.kind == "done":
                return
            if step.kind == "retry":
                run.attempt += 1
                if step.delay > 0:
                    await asyncio.sleep(step.delay)  # outside the semaphores
                continue
            assert step.url is not None
            current = step.url

    def _backoff(self, attempt: int) -> float:
        return max(0.0, self.config.backoff_base) * (2 ** min(attempt, 16))

    async def _hop(
        self,
        current: str,
        run: _Run,
        sink: Sink,
        on_progress: ProgressCallback | None,
        on_response: ResponseCallback | None,
        out: FetchOutcome,
    ) -> _Step:
        """One request: a redirect to follow, a retry to schedule, or the final answer."""
        cfg = self.config
        client = self._client
        if client is None:
            raise RuntimeError("the Fetcher was closed")
        headers: dict[str, str | bytes] = {**self.user_headers(current)}
        headers.update(run.headers)
        if run.conditional is not None:
            etag, last_modified = run.conditional
            # (a server's non-ASCII validator, legal obs-text, goes back as bytes: a str that
            # httpx encodes as ASCII failed every later run of the file, found from outside)
            if etag:
                headers["If-None-Match"] = _header_bytes(etag)
            if last_modified:
                headers["If-Modified-Since"] = _header_bytes(last_modified)

        async def trace(event: str, _info: object) -> None:
            if event.endswith("send_request_headers.complete"):
                out.reached = True  # the server has a request: reachable, whatever follows

        url = httpx.URL(current)
        if url.userinfo:
            # credentials a fetched document (or a redirect) wrote into a URL are never sent:
            # httpx made them Basic auth, replacing the user's own -H Authorization there; the
            # user's are the target's, sent as a scoped header (session.fetching)
            url = url.copy_with(userinfo=b"")
        request = client.build_request(run.method, url, headers=headers, extensions={"trace": trace})  # type: ignore[arg-type]  # (httpx takes str and bytes values mixed)
        sent = time.perf_counter()
        try:
            response = await client.send(request, stream=True)
        except _RETRYABLE_ERRORS as exc:
            if run.attempt < _retries_for(exc, cfg.retries) and not _refused(exc):
                run.last_failure = error_for(exc, cfg)[0]
                return _Step("retry", delay=self._backoff(run.attempt))
            raise
        try:
            status = response.status_code
            if status in REDIRECT_STATUSES:
                return self._redirect(current, response, run, out)
            if (status == 429 or 500 <= status <= 599) and run.attempt < cfg.retries:
                run.last_failure = f"HTTP {status} {phrase(status)}"
                delay = parse_retry_after(response.headers.get("retry-after"), cfg.retry_after_cap)
                asked = parse_retry_after(response.headers.get("retry-after"), float("inf")) or 0.0
                run.asked_wait = max(run.asked_wait, asked)
                if asked > cfg.retry_after_cap:  # said if the deadline ends it
                    run.last_failure += f", Retry-After {asked:g} s of which {cfg.retry_after_cap:g} s waited"
                return _Step("retry", delay=self._backoff(run.attempt) if delay is None else delay)
            self._record(out, response, current, sent)
            if on_response is not None:
                on_response(out)
            if status == 304 and run.conditional is not None:
                out.not_modified = True
                return _DONE
            if status != 200:
                fail(out, f"HTTP {status} {phrase(status)}")
                return _DONE
            try:
                await self._read_body(response, run, sink, on_progress, out)
            except _RETRYABLE_ERRORS as exc:
                # The connection broke before the sink saw anything: start this hop again.
                if not run.delivered and run.attempt < _retries_for(exc, cfg.retries):
                    run.last_failure = error_for(exc, cfg)[0]
                    return _Step("retry", delay=self._backoff(run.attempt))
                raise
            await discard_if_poisoned(response)
            return _DONE
        finally:
            # Also on StopFetch, errors and cancellation: an unfinished response makes httpcore
            # close its connection instead of returning it to the pool.
            await response.aclose()

    def _redirect(
        self, current: str, response: httpx.Response, run: _Run, out: FetchOutcome
    ) -> _Step:
        cfg = self.config
        status = response.status_code
        location = str(response.extensions.get(LOCATION_KEY) or "").strip()
        if not location:
            out.stats.http_status = status
            fail(out, f"HTTP {status} {phrase(status)} without a Location header")
            out.redirect_error = True
            return _DONE
        target = resolve(current, location)
        reason = unfetchable_reason(target)
        if reason is not None:
            out.stats.http_status = status
            fail(out, f"redirect to {target} refused: {reason}")
            out.redirect_error = True
            return _DONE
        key = normalize(target)
        if key in run.visited:
            out.stats.http_status = status
            fail(out, f"redirect loop: {current} redirects back to {target}")
            out.redirect_error = True
            return _DONE
        if run.hops >= cfg.max_redirects:
            out.stats.http_status = status
            fail(out, f"too many redirects (more than {cfg.max_redirects})")
            out.redirect_error = True
            return _DONE
        run.visited.add(key)
        run.hops += 1
        out.stats.redirects = run.hops
        out.redirect_chain.append(target)
        out.redirect_status = status
        return _Step("redirect", url=target)

    @staticmethod
    def _record(out: FetchOutcome, response: httpx.Response, url: str, sent: float) -> None:
        h = response.headers
        s = out.stats
        s.http_status = response.status_code
        s.final_url = url
        s.content_type = h.get("content-type")
        s.content_encoding = h.get("content-encoding")
        s.etag = h.get("etag")
        s.last_modified = h.get("last-modified")
        s.ttfb = time.perf_counter() - sent
        out.headers = list(h.multi_items())
        s.wire_bytes = 0
        s.decoded_bytes = 0
        s.gzipped = False
        out.final_url = url

    async def _read_body(
        self,
        response: httpx.Response,
        run: _Run,
        sink: Sink,
        on_progress: ProgressCallback | None,
        out: FetchOutcome,
    ) -> None:
        cfg = self.config
        stats = out.stats
        decoder = BodyDecoder(stats.content_encoding, cfg.max_decoded)
        total = content_length(response.headers.get("content-length"))
        wire = 0
        next_report = CHUNK
        try:
            # aiter_raw only: aiter_bytes() would let httpx inflate a whole read in one call.
            async for raw in response.aiter_raw():
                if run.lease is not None:
                    run.lease.give()  # parsing is no request: other files may read meanwhile
                wire += len(raw)
                over = wire > cfg.max_wire
                if over:
                    raw = raw[: len(raw) - (wire - cfg.max_wire)]
                    wire = cfg.max_wire
                stats.wire_bytes = wire
                for i, chunk in enumerate(decoder.feed(raw), 1):
                    run.delivered = True
                    timed_sink(sink, chunk)
                    if i % YIELD_EVERY == 0:
                        # one compressed read can inflate to tens of MiB: let the other files on
                        # this loop read their sockets meanwhile (servers drop a client that
                        # stops reading)
                        await asyncio.sleep(0)
                if over:
                    raise CapExceeded(
                        cfg.max_wire, f"more than {cfg.max_wire:,} bytes received (wire limit)"
                    )
                if on_progress is not None and wire >= next_report:
                    on_progress(wire, total)
                    next_report = wire + CHUNK
                t0 = time.monotonic()
                if run.pace is not None:
                    await run.pace()
                if run.lease is not None and (total is None or wire < total):
                    # the next read is a request's again; not once all Content-Length bytes came:
                    # that read only ends the body, from what the connection already holds (in a
                    # worker a take is a round trip to the explorer, three of a small file's 12
                    # messages)
                    await run.lease.take()
                run.paused += time.monotonic() - t0  # the caller's wait, not the server's
            if run.lease is not None:
                run.lease.give()
            for chunk in decoder.finish():
                run.delivered = True
                timed_sink(sink, chunk)
            if on_progress is not None:
                on_progress(wire, total)
        finally:
            note_decoding(out, decoder)

    @staticmethod
    def _add_redirect_issue(out: FetchOutcome, run: _Run) -> None:
        if run.hops == 0 or out.final_url == run.url:
            return
        chain = out.redirect_chain
        hosts: list[str] = []
        for u in chain:
            h = host_of(u) or "?"
            if not hosts or hosts[-1] != h:
                hosts.append(h)
        fields: dict[str, object] = {"from_url": run.url, "final_url": out.final_url, "hops": run.hops}
        if not same_host(run.url, out.final_url) or len(hosts) > 1:
            fields["hosts"] = tuple(hosts)  # the host changes on the way
        out.findings.append(Finding(RULE_REDIRECTED, fields))


def _header_bytes(value: str) -> str | bytes:
    """A stored header value to send again: as it is when ASCII, else its UTF-8 bytes."""
    return value if value.isascii() else value.encode("utf-8", "replace")

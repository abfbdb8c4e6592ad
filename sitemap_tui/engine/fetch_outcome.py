"""What a fetch is asked (``FetchConfig``) and what it answers (``FetchOutcome``), and how a
failure is told: one sentence and one rule id per exception, the server's own words never
trusted (its reason phrase and digit strings are not read as they come)."""

from __future__ import annotations

import email.utils
import re
import ssl
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import h11
import httpx

from sitemap_tui import USER_AGENT
from sitemap_tui.engine.decode import BodyDecoder, DecodeError
from sitemap_tui.engine.findings import Finding
from sitemap_tui.engine.localmap import LocalMap
from sitemap_tui.engine.model import FileStats
from sitemap_tui.engine.netpolicy import AddressRefused

Sink = Callable[[bytes], None]
ProgressCallback = Callable[[int, int | None], None]
ResponseCallback = Callable[["FetchOutcome"], None]
PaceCallback = Callable[[], Awaitable[None]]
HopCallback = Callable[[str], Awaitable[None]]

RULE_FETCH_ERROR = "fetch-http-error"
RULE_REDIRECTED = "fetch-redirected"
RULE_PRIVATE_ADDRESS = "fetch-private-address"
RULE_ENCODING_MISMATCH = "content-encoding-mismatch"
RULE_GZIP_DOUBLE = "gzip-double"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
CHUNK = 64 * 1024  # local read size and progress granularity
YIELD_EVERY = 16  # decoded chunks (1 MiB) handed to the sink before the loop gets a turn
MIB = 1024 * 1024
# What we can decode ourselves (decode.py); httpx's default would add br/zstd when installed.
ACCEPT_ENCODING = "gzip, deflate"
_SECONDS_RE = re.compile(r"\d+(?:\.\d+)?")  # float() of <= 64 chars: no int() digit limit
_DIGITS_RE = re.compile(r"\d{1,18}")


class StopFetch(Exception):  # noqa: N818 - a signal, not an error
    """Raised by a sink (or ``on_response``) to end the download early; not an error."""


@dataclass(slots=True)
class FetchConfig:
    user_agent: str = USER_AGENT
    headers: dict[str, str] = field(default_factory=dict)
    connect_timeout: float = 5.0
    read_timeout: float = 10.0  # per read (httpx); also used for writes
    total_timeout: float = 30.0  # per file: all hops, retries, headers and body
    max_redirects: int = 10
    retries: int = 3  # extra attempts on 429/5xx and connection errors
    retry_after_cap: float = 5.0  # seconds; longer Retry-After values are clamped
    backoff_base: float = 0.5  # seconds; doubled per retry when there is no Retry-After
    concurrency: int = 8  # files in flight over the whole Fetcher
    per_host: int = 4  # requests in flight per host
    max_decoded: int = 50 * MIB  # size-over-limit after decompression (sitemaps.org)
    max_wire: int = 64 * MIB  # bytes read from the network per response
    http2: bool = False  # needs the optional h2 package; falls back to HTTP/1.1 without it
    # Who the user named (issue 15, netpolicy.py): ``headers`` go to this URL's origin only,
    # its host may be any address, and URLs found on the way may reach the special address
    # ranges its own addresses are in. The Explorer sets it to the target it opens; None (a
    # bare Fetcher) means every URL is the caller's own: headers everywhere, any address.
    target: str | None = None
    header_all_hosts: bool = False  # --header-all-hosts: ``headers`` to every host
    allow_private: bool = False  # --allow-private: any address for any URL
    resolve: dict[str, str] = field(default_factory=dict)  # --resolve HOST:IP (user-named)
    maps: tuple[LocalMap, ...] = ()  # --map URL=DIR: those URLs are read from the directory
    cacert: str | None = None  # --cacert FILE: the only CAs trusted (as curl's)
    insecure: bool = False  # --insecure: no certificate check at all (staging servers)
    proxy: str | None = None  # --proxy URL: every request through it (netpolicy._GuardedProxy)


@dataclass(slots=True)
class FetchOutcome:
    """What happened to one fetch; ``error is None`` means the body reached the sink whole
    (or the sink stopped it on purpose with StopFetch)."""

    stats: FileStats = field(default_factory=FileStats)
    error: str | None = None
    error_rule: str | None = None  # fetch-http-error, size-over-limit, gzip-corrupt, ...
    findings: list[Finding] = field(default_factory=list)  # redirect, encoding mismatch
    not_modified: bool = False  # 304 to a conditional request
    final_url: str = ""
    # every URL requested, in order: the original first, the final one last
    redirect_chain: list[str] = field(default_factory=list)
    # the fetch was abandoned because the Fetcher was closed under it (not task cancellation,
    # which propagates as CancelledError, and not StopFetch, which is a normal end)
    cancelled: bool = False
    stopped_early: bool = False  # the sink raised StopFetch
    # the final response's headers (name, value), once it came in; None without one
    headers: list[tuple[str, str]] | None = None
    redirect_error: bool = False  # the error is about following a redirect (loop, target...)
    # a request's headers reached a server (or the proxy): a host that then answers nothing (a
    # stall) is there, unlike one that refused, was refused or never accepted the connection
    reached: bool = False
    redirect_status: int | None = None  # the last redirect followed (a caller may stop at its target)
    timed_out: bool = False  # it failed on a deadline or a timeout: no answer in time
    # a --map's build answered it as static hosts do, not from its own path (localmap.MapHit)
    served_as: str | None = None

    def header_map(self) -> httpx.Headers:
        """The final response's headers, case-insensitive. Built from bytes: ``httpx.Headers``
        of the decoded strings encodes them as ASCII again, and a page whose header held one
        other byte (``X-Served-By: café``) ended an audit in a traceback."""
        return httpx.Headers([(k.encode("latin-1", "replace"), v.encode("utf-8", "surrogateescape"))
                              for k, v in self.headers or ()])

    @property
    def ok(self) -> bool:
        return self.error is None and not self.cancelled


def retries_said(attempts: int, asked: float, cap: float) -> str:
    """What a failure after retries adds: that they were made (--retries), and a Retry-After
    longer than was waited, not only the last answer."""
    said = f" (after {attempts} {'retry' if attempts == 1 else 'retries'}"
    if asked > cap:
        said += f"; it asked to wait {asked:g} s (Retry-After), {cap:g} s were waited each time"
    return said + ")"


def parse_retry_after(
    value: str | None, cap: float, *, now: datetime | None = None
) -> float | None:
    """Seconds to wait from a Retry-After header, clamped to ``[0, cap]``; None when unusable.

    Negative, non-numeric and unparseable values give None (the caller falls back to its own
    backoff); a huge number or a far-future date gives ``cap``; a past date gives 0.
    """
    if value is None:
        return None
    v = value.strip()
    if not v or len(v) > 64:
        return None
    if _SECONDS_RE.fullmatch(v):
        seconds = float(v)
    else:
        try:
            when = email.utils.parsedate_to_datetime(v)
        except (TypeError, ValueError, OverflowError, IndexError):
            return None
        if when is None:  # older Pythons returned None instead of raising
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        try:
            seconds = (when - (now or datetime.now(UTC))).total_seconds()
        except OverflowError:
            return None
        seconds = max(seconds, 0.0)
    if seconds != seconds:  # NaN cannot come from the regex, but never sleep on one
        return None
    return min(seconds, max(cap, 0.0))


def content_length(value: str | None) -> int | None:
    # Never int() an arbitrary digit string (4,300-digit limit); 18 digits is plenty.
    if value is None:
        return None
    v = value.strip()
    return int(v) if _DIGITS_RE.fullmatch(v) else None


def phrase(status: int) -> str:
    # The standard phrase, not the server's (which may be anything, in any length).
    return httpx.codes.get_reason_phrase(status) or "Unknown Status"


def describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return text if text else type(exc).__name__


def causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it wraps: httpx's error wraps httpcore's, which wraps the OSError (a
    few levels; bounded, as a chain may loop)."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return
        yield seen
        seen = seen.__cause__ or seen.__context__


def tls_failure(exc: BaseException) -> ssl.SSLError | None:
    """The TLS error behind a failed connection, when the handshake itself failed (a plain
    http server, a certificate that does not verify): the same answer every time. A connection
    closed during it (an EOF) is not one: that may pass."""
    return next((e for e in causes(exc) if isinstance(e, ssl.SSLError)
                 and not isinstance(e, (ssl.SSLEOFError, ssl.SSLZeroReturnError))), None)


def fail(out: FetchOutcome, message: str, rule: str = RULE_FETCH_ERROR) -> None:
    if out.error is None:  # the first problem is the one worth reporting
        out.error = message
        out.error_rule = rule


def error_for(exc: BaseException, cfg: FetchConfig | None) -> tuple[str, str]:
    """(message, rule) for an exception that ended a fetch. Order matters: TimeoutError and
    SSLError are OSErrors; InvalidURL and StreamError are not HTTPErrors."""
    if isinstance(exc, DecodeError):
        return exc.message, exc.rule
    if isinstance(exc, AddressRefused):
        return str(exc), RULE_PRIVATE_ADDRESS
    if isinstance(exc, httpx.TimeoutException):
        if cfg is not None:
            if isinstance(exc, httpx.ConnectTimeout):
                return f"could not connect within {cfg.connect_timeout:g} s", RULE_FETCH_ERROR
            if isinstance(exc, httpx.ReadTimeout):
                return f"no data from the server for {cfg.read_timeout:g} s", RULE_FETCH_ERROR
            if isinstance(exc, httpx.WriteTimeout):
                return f"could not send the request within {cfg.read_timeout:g} s", RULE_FETCH_ERROR
        return f"timeout: {describe(exc)}", RULE_FETCH_ERROR
    if isinstance(exc, httpx.ProxyError):  # --proxy answered CONNECT with a non-2xx status
        return f"the proxy refused the tunnel: {describe(exc)}", RULE_FETCH_ERROR
    if isinstance(exc, httpx.ConnectError):
        tls = tls_failure(exc)
        if tls is not None and "WRONG_VERSION_NUMBER" in str(tls):
            # (found from outside: `127.0.0.1:8000`, read as https://, said OpenSSL's words)
            return ("TLS handshake failed: the server answered without TLS, as a plain http:// server"
                    " does (give the URL with http://)"), RULE_FETCH_ERROR
        if isinstance(tls, ssl.SSLCertVerificationError):  # (what to do about it, said too)
            why = tls.verify_message or describe(tls)
            return (f"the server's TLS certificate did not verify ({why}): --cacert FILE trusts the CA"
                    " that signed it, --insecure skips the check"), RULE_FETCH_ERROR
        return f"connection failed: {describe(exc)}", RULE_FETCH_ERROR
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.LocalProtocolError, h11.ProtocolError)):
        return f"HTTP protocol error: {describe(exc)}", RULE_FETCH_ERROR
    if isinstance(exc, httpx.HTTPError):
        return f"network error: {describe(exc)}", RULE_FETCH_ERROR
    if isinstance(exc, httpx.InvalidURL):
        return f"invalid URL: {describe(exc)}", RULE_FETCH_ERROR
    if isinstance(exc, httpx.StreamError):
        return f"stream error: {describe(exc)}", RULE_FETCH_ERROR
    if isinstance(exc, TimeoutError):
        return f"timed out: {describe(exc)}", RULE_FETCH_ERROR
    if isinstance(exc, ssl.SSLError):
        return f"TLS error: {describe(exc)}", RULE_FETCH_ERROR
    if isinstance(exc, OSError):
        return f"network error: {describe(exc)}", RULE_FETCH_ERROR
    return f"unexpected error: {type(exc).__name__}: {describe(exc)}", RULE_FETCH_ERROR


def note_decoding(out: FetchOutcome, decoder: BodyDecoder) -> None:
    """What the decoder saw, on the outcome: its sizes, and the findings of a body it read
    although a reader that follows the protocol would not (a gzip label on a plain body, a
    file gzipped twice)."""
    stats = out.stats
    stats.decoded_bytes = decoder.decoded_bytes
    stats.gzipped = decoder.gzipped
    if decoder.plain_body:
        out.findings.append(Finding(RULE_ENCODING_MISMATCH, {"starts_with": decoder.plain_body}))
    if decoder.gzip_layers > 1 and not decoder.failed:  # (a third layer: compression-not-gzip says it)
        out.findings.append(Finding(RULE_GZIP_DOUBLE, {"layers": decoder.gzip_layers}))

"""Who may be sent what, and which addresses a URL the tool found on its own may reach (issue 15).

Two policies, both enforced by the ``Fetcher`` (so the explorer, the worker processes and the deep
checks share them):

* **Headers** given with ``-H`` (tokens, cookies) go to the target's origin only: the same scheme,
  host and port (:func:`origin_of`); a redirect to another origin goes without them.
* **Addresses**: the target the user typed may be anything, and so may a host given with
  ``--resolve``. Everything else — robots.txt ``Sitemap:`` lines, index ``<loc>`` values,
  redirects, deep-check URLs — is refused when the address it would connect to is loopback,
  private, link-local, multicast, unspecified or otherwise not globally routable
  (:func:`special_range`), unless the target's own addresses are in that same range (a target
  on 127.0.0.1 opens loopback, not 10/8) or ``--allow-private`` is given. The target's name
  is looked up once per process (worker processes take the parent's answer) and every
  connection to it uses that answer; it opens a range only when *all* its addresses are
  special (a name answering public and 127.0.0.1 opens nothing: that mix is a rebinding trick,
  not a local server), and its own connections are checked like any other. Before, the target's host was dialled by name, unchecked: a public
  target whose name re-resolved to 127.0.0.1 (DNS rebinding), with a robots.txt ``Sitemap:``
  on another port of the same name, reached a loopback-only service (found by a review). The
  cost: the target is dialled address by address, in the resolver's order, without happy
  eyeballs.

Where the address check runs, and why there: :class:`GuardedBackend` is an httpcore network
backend (``AsyncConnectionPool(network_backend=...)``). httpcore calls its ``connect_tcp(host,
port)`` for every new connection, before TLS and before a single byte of the request (headers
included) is written, and with the *host name*, not an address. The backend resolves the name
itself, drops the refused addresses, and dials the remaining ones by address; once connected it
checks the socket's peer address again (``server_addr``) and closes the stream unused if that
one is refused. So:

* a name that resolves to 127.0.0.1, and a redirect to such a name, are caught (the check is on
  what DNS answered, not on the URL's text);
* there is no gap between checking and connecting for DNS rebinding to use: the address that was
  checked is the address that is dialled;
* a refused address is never even sent a SYN.

Checking earlier (on the URL before the request) would miss names that resolve to private
addresses; checking later (a response hook, ``response.extensions["network_stream"]``) would
come after the request — and its headers — went out. httpx's own transport has no
``network_backend`` parameter, so :func:`guarded_transport` builds httpx's ``AsyncHTTPTransport``
and gives it a connection pool made with this backend.

Through ``--proxy`` (an http:// or https:// proxy the user chose) the only TCP peer is the
proxy, so the backend connects to it alone, whatever its address, and the check moves up to
the pool (:class:`_GuardedProxy`): before a request is handed to the proxy, the host a document
chose is resolved here and refused when any of its addresses is (the proxy would pick one of
them, and we cannot see which). That is a weaker guarantee than without a proxy (the proxy's
DNS may answer otherwise, and rebinding between our lookup and its connect is its business),
said in docs/safety.md. Proxies from the environment (``HTTPS_PROXY`` ...) are never used:
only --proxy names one.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import re
import socket
import ssl
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx

__all__ = [
    "AddressRange",
    "AddressRefused",
    "GuardedBackend",
    "NetPolicy",
    "guarded_transport",
    "make_connector",
    "origin_of",
    "parse_proxy",
    "parse_resolve",
    "pin_answers",
    "pinned_answers",
    "shown_proxy",
    "special_range",
    "system_resolve",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class AddressRange:
    """A special-purpose address range. ``key`` is what "the same range" means (loopback is one
    range in IPv4 and IPv6; each private block is its own); ``label`` is said to the user."""

    key: str
    label: str


def _ranges(*rows: tuple[str, str, str]) -> tuple[tuple[Any, AddressRange], ...]:
    return tuple((ipaddress.ip_network(net), AddressRange(key, label)) for net, key, label in rows)


# IANA's special-purpose registries (RFC 6890 and updates), the blocks a fetch from a server or a
# CI runner must not be steered to. Order matters only where blocks nest (none do here).
_V4 = _ranges(
    ("0.0.0.0/8", "0.0.0.0/8", "unspecified address ('this network')"),
    ("10.0.0.0/8", "10.0.0.0/8", "private address (RFC 1918)"),
    ("100.64.0.0/10", "100.64.0.0/10", "shared address (carrier-grade NAT, RFC 6598)"),
    ("127.0.0.0/8", "loopback", "loopback address"),
    ("169.254.0.0/16", "169.254.0.0/16", "link-local address (where cloud metadata services live)"),
    ("172.16.0.0/12", "172.16.0.0/12", "private address (RFC 1918)"),
    ("192.0.0.0/24", "192.0.0.0/24", "reserved address (IETF protocol assignments)"),
    ("192.0.2.0/24", "192.0.2.0/24", "reserved address (documentation)"),
    ("192.168.0.0/16", "192.168.0.0/16", "private address (RFC 1918)"),
    ("198.18.0.0/15", "198.18.0.0/15", "reserved address (benchmarking)"),
    ("198.51.100.0/24", "198.51.100.0/24", "reserved address (documentation)"),
    ("203.0.113.0/24", "203.0.113.0/24", "reserved address (documentation)"),
    ("224.0.0.0/4", "224.0.0.0/4", "multicast address"),
    ("240.0.0.0/4", "240.0.0.0/4", "reserved address (future use, broadcast)"),
)
_V6 = _ranges(
    ("::/128", "::/128", "unspecified address"),
    ("::1/128", "loopback", "loopback address"),
    # deprecated IPv4-compatible addresses (::a.b.c.d, RFC 4291 §2.5.5.1) and the rest of the
    # IETF-reserved ::/8, which Python calls global (IPv4-mapped ::ffff:0:0/96 is judged above)
    ("::/8", "::/8", "reserved address (::/8: IPv4-compatible IPv6 and other reserved forms)"),
    ("64:ff9b:1::/48", "64:ff9b:1::/48", "reserved address (local-use NAT64)"),
    ("100::/64", "100::/64", "reserved address (discard-only)"),
    ("2001:db8::/32", "2001:db8::/32", "reserved address (documentation)"),
    ("fc00::/7", "fc00::/7", "private address (unique local)"),
    ("fe80::/10", "fe80::/10", "link-local address"),
    ("fec0::/10", "fec0::/10", "private address (site-local, deprecated)"),
    ("ff00::/8", "ff00::/8", "multicast address"),
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NOT_GLOBAL = AddressRange("not-global", "reserved address (not globally routable)")


def special_range(address: str | IPAddress) -> AddressRange | None:
    """The special-purpose range of an address, or None for an ordinary public address.

    IPv6 forms that carry an IPv4 address (IPv4-mapped ``::ffff:a.b.c.d``, NAT64
    ``64:ff9b::/96``, 6to4 ``2002::/16``) are judged by that IPv4 address, since that is where
    the packets end up. Anything Python does not call globally routable is "reserved"."""
    try:
        ip = ipaddress.ip_address(address) if isinstance(address, str) else address
    except ValueError:
        return _NOT_GLOBAL
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            return special_range(embedded)
        table = _V6
    else:
        table = _V4
    for network, found in table:
        if ip in network:
            return found
    return None if ip.is_global else _NOT_GLOBAL


def _parse_ip(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


def origin_of(url: str | None) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an http(s) URL, the unit -H headers are confined to; None for
    anything else (a local file has no origin). Hosts compare in their IDNA form."""
    if not url:
        return None
    try:
        parsed = httpx.URL(url)
        scheme = parsed.scheme.lower()
        if scheme not in DEFAULT_PORTS or not parsed.raw_host:
            return None
        host = parsed.raw_host.decode("ascii").lower()
        return scheme, host, parsed.port or DEFAULT_PORTS[scheme]
    except (httpx.InvalidURL, ValueError, UnicodeError):
        return None


def _host_of(url: str | None) -> str | None:
    origin = origin_of(url)
    return origin[1] if origin is not None else None


def parse_resolve(values: Iterable[str]) -> dict[str, str]:
    """``--resolve HOST:IP`` values (curl's ``HOST:PORT:IP`` is taken too; the port is then
    ignored) -> {host: address}. Raises ValueError with a one-line reason."""
    out: dict[str, str] = {}
    for value in values:
        host, sep, rest = value.strip().partition(":")
        if not sep or not host or not rest:
            raise ValueError(f"bad --resolve {value!r}: expected HOST:IP")
        ip = _parse_ip(rest)
        if ip is None:
            port, sep2, after = rest.partition(":")
            ip = _parse_ip(after) if sep2 and port.isdigit() else None
            if ip is not None and not 0 < int(port) < 65536:
                raise ValueError(f"bad --resolve {value!r}: port {port} is not from 1 to 65535")
        if ip is None:
            raise ValueError(f"bad --resolve {value!r}: {rest!r} is not an IP address")
        key = _host_of(f"http://{host}/")
        if key is None:
            raise ValueError(f"bad --resolve {value!r}: {host!r} is not a host name")
        out[key] = str(ip)
    return out


def shown_proxy(url: httpx.URL | str) -> str:
    """A proxy URL as said to the user: its password never (it goes in Proxy-Authorization)."""
    return _PASSWORD.sub(r"\1***@", str(url))


# (to the last "@" before the host, as a URL parser reads it: a password with an "@" in it showed
# its tail, found by a review)
_PASSWORD = re.compile(r"(//[^/@:]*:)[^/]*@")


def parse_proxy(value: str, what: str = "--proxy") -> httpx.URL:
    """``--proxy URL``: ``http://`` or ``https://`` (the connection to the proxy is TLS),
    optional ``user:password@`` (sent as Proxy-Authorization, to the proxy only), a host and an
    optional port; nothing after it. SOCKS is not supported. Raises ValueError with a one-line
    reason that never shows the password."""
    text = value.strip()
    shown = shown_proxy(text)
    try:
        url = httpx.URL(text)
        port = url.port
    except (httpx.InvalidURL, ValueError, UnicodeError) as exc:
        if _PASSWORD.search(text):  # its message may quote a piece of the password ("Invalid port: 's3cret'")
            raise ValueError(f"bad {what} {shown}: not a valid URL (in a password, / ? # @ and : are written"
                             " percent-encoded: %2F %3F %23 %40 %3A)") from None
        raise ValueError(f"bad {what} {shown}: {shown_proxy(str(exc))}") from None
    scheme = url.scheme.lower()
    if scheme.startswith("socks"):
        raise ValueError(f"bad {what} {shown}: SOCKS proxies are not supported, only http:// and https://")
    if scheme not in DEFAULT_PORTS:
        raise ValueError(f"bad {what} {shown}: expected http://HOST:PORT or https://HOST:PORT")
    if not url.raw_host:
        raise ValueError(f"bad {what} {shown}: no host")
    if url.raw_path not in (b"", b"/") or url.fragment:
        raise ValueError(f"bad {what} {shown}: a proxy URL has no path, query or fragment")
    if port is not None and not 0 < port < 65536:
        raise ValueError(f"bad {what} {shown}: port {port} (a port is 1-65535)")
    return url


def proxy_origin(url: httpx.URL) -> tuple[str, int]:
    """(host, port) the proxy is dialled at, as httpcore names them to ``connect_tcp``."""
    return url.raw_host.decode("ascii").strip("[]").lower(), url.port or DEFAULT_PORTS[url.scheme.lower()]


async def system_resolve(host: str, port: int) -> list[str]:
    """The addresses of ``host``, in the resolver's preferred order (getaddrinfo)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    out: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        address = str(sockaddr[0])
        if address not in out:
            out.append(address)
    return out


def make_connector() -> httpcore.AsyncNetworkBackend:
    """The backend that really dials (tests replace it to watch what is dialled)."""
    return httpcore.AnyIOBackend()


class AddressRefused(Exception):  # noqa: N818 - a verdict, reported as the node's error
    """A connection the address policy refuses; nothing was sent (often nothing was dialled)."""

    def __init__(self, host: str, address: str, found: AddressRange) -> None:
        self.host = host
        self.address = address
        self.range = found
        subject = f"{address} is" if _parse_ip(host) is not None else f"{host} resolves to {address},"
        super().__init__(
            f"not fetched: {subject} {'an' if found.label[0] in 'aeiou' else 'a'} {found.label}; what a site lists may only reach the"
            " target's own kind of address (--allow-private allows it)"
        )


# The target's first answer, per host, for the life of the process (a new Fetcher — a reload in
# the TUI, the deep checks — would otherwise be a new first lookup for a rebinding DNS to answer
# 127.0.0.1 to); worker processes are handed the parent's (pin_answers).
_PINNED: dict[str, tuple[str, ...]] = {}


def pinned_answers() -> dict[str, tuple[str, ...]]:
    """The target answers this process has pinned, to hand to a worker process."""
    return dict(_PINNED)


def pin_answers(table: dict[str, tuple[str, ...]]) -> None:
    """Take a parent process's pinned answers (before any lookup here)."""
    for host, found in table.items():
        _PINNED.setdefault(host, tuple(found))


class NetPolicy:
    """The address policy for one target (``target=None``: no policy, every host is the
    caller's own — a bare Fetcher fetches what its caller names)."""

    def __init__(
        self,
        target: str | None,
        *,
        allow_private: bool = False,
        resolve: dict[str, str] | None = None,
    ) -> None:
        self.target = target
        self.allow_private = allow_private or target is None
        self.resolve = {k.lower(): v for k, v in (resolve or {}).items()}
        self._target_host = _host_of(target)
        self._target_lookup: asyncio.Future[list[str]] | None = None

    def user_named(self, host: str) -> bool:
        """The target's host and the --resolve hosts: the user named them (headers, the proxy
        check and the first lookup's ranges follow from that)."""
        h = host.strip("[]").lower()
        return self.target is None or h == self._target_host or h in self.resolve

    async def addresses(self, host: str, port: int) -> list[str]:
        """--resolve first, then an address literal as is, then the target's first answer
        (pinned for the run), then DNS."""
        h = host.strip("[]").lower()
        if h in self.resolve:
            return [self.resolve[h]]
        if _parse_ip(h) is not None:
            return [h]
        if h == self._target_host:
            pinned = await self._target_addresses()
            if pinned:
                return pinned
            # its first lookup failed: later answers are judged against no range of its own
        return await system_resolve(h, port)

    async def _lookup_target(self) -> list[str]:
        host = self._target_host
        assert host is not None
        if host in _PINNED:
            return list(_PINNED[host])
        try:
            found = await system_resolve(host, 443)
        except OSError:  # the target does not resolve: it opens no range
            return []
        return list(_PINNED.setdefault(host, tuple(found)))

    async def _target_addresses(self) -> list[str]:
        """The target host's addresses, looked up once for the whole run: a name that answers
        public, then 127.0.0.1, then public again would otherwise have its robots.txt served
        from the public address and its ``Sitemap:`` lines reach the loopback one."""
        if self._target_lookup is None:
            self._target_lookup = asyncio.ensure_future(self._lookup_target())
        return list(await asyncio.shield(self._target_lookup))

    async def target_keys(self) -> frozenset[str]:
        """The special ranges the target's own addresses are in; none when any of them is
        public (a public name that also answers 127.0.0.1 is a rebinding trick, not a local
        server) or when it does not resolve."""
        host = self._target_host
        if host is None:
            return frozenset()
        if host in self.resolve or _parse_ip(host) is not None:
            found = await self.addresses(host, 443)
        else:
            found = await self._target_addresses()
        ranges = [special_range(a) for a in found]
        if not ranges or any(r is None for r in ranges):
            return frozenset()
        return frozenset(r.key for r in ranges if r is not None)

    async def refusal(self, host: str, address: IPAddress | str) -> str | None:
        """None when ``host`` may be reached at ``address``; else why not (the error text).
        The target's own host is checked too (its ranges are those of its first lookup); a
        --resolve host is the user's own address, never checked."""
        if self.allow_private or host.strip("[]").lower() in self.resolve:
            return None
        found = special_range(address)
        if found is None or found.key in await self.target_keys():
            return None
        return str(AddressRefused(host, str(address), found))

    async def check_host(self, host: str, port: int, timeout: float | None = None) -> None:
        """Through a proxy, which dials for us: refuse ``host`` when the policy refuses any of
        its addresses here (the proxy may connect to any of them). A host that does not
        resolve here cannot be judged, so it is not sent either. Raises AddressRefused or
        httpcore.ConnectError, before anything reaches the proxy."""
        h = host.strip("[]").lower()
        if self.allow_private or self.user_named(h):
            return
        try:
            async with asyncio.timeout(timeout):
                found = await self.addresses(h, port)
        except (OSError, TimeoutError) as exc:
            raise httpcore.ConnectError(
                f"{h} does not resolve here, so its address cannot be checked before the proxy is"
                " asked; not sent (--allow-private sends it)") from exc
        for address in found:
            await self.check(h, address)

    async def check(self, host: str, address: str) -> None:
        """Raise AddressRefused when ``refusal`` says no."""
        if await self.refusal(host, address) is not None:
            found = special_range(address) or _NOT_GLOBAL
            raise AddressRefused(host, address, found)


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore network backend that applies :class:`NetPolicy` to every connection it opens
    (see the module docstring for why the check lives here)."""

    def __init__(
        self,
        get_policy: Callable[[], NetPolicy],
        connector: httpcore.AsyncNetworkBackend | None = None,
        proxy: tuple[str, int] | None = None,
    ) -> None:
        self._get_policy = get_policy  # looked up per connection: the target may be set later
        self.connector = connector or make_connector()
        self.proxy = proxy  # (host, port) of --proxy: then the only peer (see _GuardedProxy)

    @property
    def policy(self) -> NetPolicy:
        return self._get_policy()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        policy = self.policy
        kw: dict[str, Any] = {
            "timeout": timeout, "local_address": local_address, "socket_options": socket_options,
        }
        h = host.strip("[]").lower()
        if self.proxy is not None:
            return await self._connect_proxy(h, port, kw)
        try:
            async with asyncio.timeout(timeout):
                candidates = await policy.addresses(h, port)
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(f"resolving {host} took more than {timeout:g} s") from exc
        except OSError as exc:
            raise httpcore.ConnectError(str(exc) or f"cannot resolve {host}") from exc
        allowed: list[str] = []
        refused: AddressRefused | None = None
        for address in candidates:
            try:
                await policy.check(h, address)
            except AddressRefused as exc:
                refused = refused or exc
                continue
            allowed.append(address)
        if not allowed:
            if refused is not None:
                raise refused
            raise httpcore.ConnectError(f"{host}: no address")
        failure: Exception | None = None
        for address in allowed:
            try:
                stream = await self.connector.connect_tcp(address, port, **kw)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc  # the next address, as happy eyeballs would
                continue
            await self._check_peer(h, stream)
            return stream
        assert failure is not None
        raise failure

    async def _connect_proxy(self, host: str, port: int, kw: dict[str, Any]) -> httpcore.AsyncNetworkStream:
        """The user's proxy, at whatever address; it is the only peer (requests are checked
        before they are handed to it, in _GuardedProxy)."""
        if (host, port) != self.proxy:
            raise httpcore.ConnectError(f"{host}:{port}: only the --proxy is connected to")
        try:
            return await self.connector.connect_tcp(host, port, **kw)
        except httpcore.ConnectTimeout as exc:
            raise httpcore.ConnectTimeout(f"cannot reach the proxy {host}:{port} (timed out)") from exc
        except httpcore.ConnectError as exc:  # `from`: a refused proxy is not retried either
            raise httpcore.ConnectError(f"cannot reach the proxy {host}:{port} ({exc})") from exc

    async def _check_peer(self, host: str, stream: httpcore.AsyncNetworkStream) -> None:
        """Defence in depth: the address the socket really is connected to."""
        peer = stream.get_extra_info("server_addr")
        if not peer:
            return
        address = str(peer[0] if isinstance(peer, tuple) else peer)
        try:
            await self.policy.check(host, address)
        except AddressRefused:
            await stream.aclose()
            raise

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are never used")

    async def sleep(self, seconds: float) -> None:
        await self.connector.sleep(seconds)


@functools.cache
def _default_context(http2: bool) -> ssl.SSLContext:
    """What httpx's default transport would use, made once per process: loading the CA bundle
    took 20 ms of every run, a third of validating a small local file. One per ``http2``,
    because httpcore sets the context's ALPN protocols to its pool's own choice."""
    return httpx.create_ssl_context()


class _GuardedProxy(httpcore.AsyncHTTPProxy):
    """httpcore's proxy pool (absolute-form requests for http://, CONNECT tunnels for https://)
    that asks the address policy about each request's host before the proxy sees it."""

    def __init__(self, get_policy: Callable[[], NetPolicy], **kw: Any) -> None:
        super().__init__(**kw)
        self._get_policy = get_policy

    async def handle_async_request(self, request: httpcore.Request) -> httpcore.Response:
        url = request.url
        port = url.port or DEFAULT_PORTS.get(url.scheme.decode("ascii").lower(), 80)
        timeout = request.extensions.get("timeout", {}).get("connect")
        await self._get_policy().check_host(url.host.decode("ascii"), port, timeout)
        return await super().handle_async_request(request)


class _GuardedTransport(httpx.AsyncHTTPTransport):
    """httpx's own transport (exception mapping, streaming) over a pool that connects through
    :class:`GuardedBackend` (through the user's proxy when ``proxy`` is given)."""

    def __init__(self, backend: GuardedBackend, *, http2: bool, limits: httpx.Limits,
                 ssl_context: ssl.SSLContext | None = None, proxy: httpx.URL | None = None) -> None:
        if ssl_context is None:
            ssl_context = _default_context(http2)
        super().__init__(verify=ssl_context, http2=http2, limits=limits)
        if not isinstance(getattr(self, "_pool", None), httpcore.AsyncConnectionPool):
            # never fall back to an unguarded pool if httpx changes its internals
            raise RuntimeError("httpx.AsyncHTTPTransport has no connection pool to guard")
        pool: dict[str, Any] = dict(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=True,
            http2=http2,
            network_backend=backend,
        )
        if proxy is None:
            self._pool = httpcore.AsyncConnectionPool(**pool)
            return
        # httpx.Proxy moves the userinfo out of the URL into Proxy-Authorization, which
        # httpcore sends on the proxy's requests only (CONNECT, or the absolute-form request)
        spec = httpx.Proxy(proxy)
        self._pool = _GuardedProxy(
            backend._get_policy,
            proxy_url=httpcore.URL(scheme=spec.url.raw_scheme, host=spec.url.raw_host,
                                   port=spec.url.port, target=spec.url.raw_path),
            proxy_auth=spec.raw_auth,
            # an https:// proxy's own certificate: the system's CAs (--cacert and --insecure
            # are about the sites, as curl's are; curl has --proxy-cacert for the proxy)
            proxy_ssl_context=httpx.create_ssl_context() if spec.url.scheme == "https" else None,
            **pool,
        )


def guarded_transport(
    get_policy: Callable[[], NetPolicy], *, http2: bool, limits: httpx.Limits,
    ssl_context: ssl.SSLContext | None = None, proxy: str | None = None,
) -> httpx.AsyncHTTPTransport:
    """An httpx transport whose every connection obeys ``get_policy()``; ``ssl_context`` None:
    httpx's default verification (--cacert and --insecure give their own); ``proxy``: the
    --proxy URL every request goes through."""
    url = parse_proxy(proxy) if proxy is not None else None
    backend = GuardedBackend(get_policy, proxy=proxy_origin(url) if url is not None else None)
    return _GuardedTransport(backend, http2=http2, limits=limits, ssl_context=ssl_context, proxy=url)


def tls_context(insecure: bool, cacert: str | None) -> ssl.SSLContext | None:
    """The certificate check of ``--insecure`` / ``--cacert``; None: httpx's default.
    ``--cacert`` replaces the system CAs, as curl's does (a staging CA vouches for nothing else).
    Raises OSError / ssl.SSLError for a CA file that cannot be used (the session checks early)."""
    if insecure:
        return httpx.create_ssl_context(verify=False)
    if cacert is not None:
        return ssl.create_default_context(cafile=cacert)
    return None

"""The fetch configuration built from the user's fetching options, with the warnings it owes
(headers that go nowhere or everywhere, proxy variables that are not used)."""

from __future__ import annotations

import base64
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import unquote

from sitemap_tui.session.exits import UsageError

if TYPE_CHECKING:
    from sitemap_tui.engine.fetch import FetchConfig

PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY")
DEFAULT_CONCURRENCY = 8
_warned: set[str] = set()


@dataclass(frozen=True, slots=True)
class FetchOptions:
    """The fetching options of a command (its defaults are the command line's)."""

    target: str | None = None  # what the user named: its origin alone gets the -H headers
    header: tuple[str, ...] = ()
    header_all_hosts: bool = False
    allow_private: bool = False
    resolve: tuple[str, ...] = ()
    user_agent: str | None = None
    timeout: float = 30.0
    retries: int = 3  # extra attempts on 429/5xx and connection errors
    concurrency: int = DEFAULT_CONCURRENCY
    per_host: int = 4
    max_size: int = 50  # MiB
    maps: tuple[str, ...] = ()  # --map URL=DIR
    cacert: str | None = None
    insecure: bool = False
    proxy: str | None = None  # --proxy URL (http:// or https://)


def default_concurrency(workers: int) -> int:
    """Parallel downloads when ``--concurrency`` is not given: 8, or one per worker when there are
    more workers (a download feeds one worker: fewer would leave workers idle, issue 19)."""
    return max(DEFAULT_CONCURRENCY, workers)


def warn(message: str) -> None:
    """A warning on stderr, once per process (fetch_config runs once per fetching phase)."""
    if message not in _warned:
        _warned.add(message)
        print(f"sitemap-tui: warning: {message}", file=sys.stderr)


def parse_headers(values: tuple[str, ...] | list[str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for value in values:
        name, sep, rest = value.partition(":")
        if not sep or not name.strip():
            raise UsageError(f"bad header {value!r}: expected 'Name: value'")
        headers[name.strip()] = rest.strip()
    return headers


def _target_url(raw: str | None, headers: dict[str, str]) -> str | None:
    """The target's URL; the "user:password@" it may carry becomes an Authorization header in
    ``headers``, so that it goes where -H headers go (the target's origin), never into what is
    shown, reported or stored (curl sends it to every host a redirect leads to)."""
    if raw is None:
        return None
    from sitemap_tui.engine.discover import Target, TargetError

    try:
        target = Target.parse(raw)
    except TargetError:
        return raw  # not a URL: it has no origin, so it gets no headers and opens no range
    if target.userinfo:
        if any(name.lower() == "authorization" for name in headers):
            warn("the user name and password in the target URL are not used: -H Authorization is sent instead")
        else:
            user, _, password = target.userinfo.partition(":")
            token = base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode("ascii")
            headers["Authorization"] = f"Basic {token}"
            warn("the user name and password in the target URL are sent as Basic authentication, "
                 "to the target's origin only (as -H headers are), and kept out of reports and the history")
    return target.url


def _proxy(options: FetchOptions) -> str | None:
    """--proxy, checked (the parser checks it too; a FetchOptions may be made elsewhere)."""
    if options.proxy is None:
        return None
    from sitemap_tui.engine.netpolicy import parse_proxy

    try:
        parse_proxy(options.proxy)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    if options.resolve:  # the proxy resolves names, and would silently ignore --resolve
        raise UsageError("--resolve cannot be used with --proxy: the proxy resolves host names "
                         "itself (point its DNS or hosts file at the staging address instead)")
    return options.proxy.strip()


def fetch_config(options: FetchOptions) -> FetchConfig:
    from sitemap_tui import USER_AGENT
    from sitemap_tui.engine.fetch import FetchConfig
    from sitemap_tui.engine.localmap import parse_maps
    from sitemap_tui.engine.netpolicy import origin_of, parse_resolve

    headers = parse_headers(options.header)
    try:
        resolve = parse_resolve(list(options.resolve))
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    try:
        maps = parse_maps(options.maps)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    target = _target_url(options.target, headers)
    all_hosts = options.header_all_hosts
    if headers and all_hosts:
        warn("--header-all-hosts: the -H headers go to every host the sitemaps lead to, "
             "not only to the target")
    elif headers and origin_of(target) is None:
        warn("the target is a local path, which has no origin: the -H headers are sent to no "
             "host (--header-all-hosts sends them to every host)")
    if options.insecure:
        warn("--insecure: TLS certificates are not checked; anyone on the path can answer for "
             "the site")
    elif options.cacert is not None:
        import ssl

        try:  # a CA file that cannot be used is the user's error, said before anything runs
            ssl.create_default_context(cafile=options.cacert)
        except (OSError, ssl.SSLError, ValueError) as exc:
            reason = getattr(exc, "strerror", None) or getattr(exc, "reason", None) or exc
            raise UsageError(f"--cacert {options.cacert}: cannot load certificates ({reason})") from exc
    proxy = _proxy(options)
    for name in PROXY_VARIABLES:
        if os.environ.get(name) or os.environ.get(name.lower()):
            how = "through --proxy only" if proxy else "directly (--proxy URL names a proxy)"
            warn(f"{name} is set but not used: sitemap-tui connects {how}, to check the "
                 "address of every request (see docs/safety.md)")
            break
    return FetchConfig(
        user_agent=options.user_agent or USER_AGENT,
        headers=headers,
        total_timeout=options.timeout,
        # a stall is a third of the deadline without data (10 s by default): a longer --timeout
        # waits longer for a slow first byte, and leaves room to retry a stall
        read_timeout=max(10.0, options.timeout / 3),
        retries=options.retries,
        concurrency=options.concurrency,
        per_host=options.per_host,
        max_decoded=options.max_size * 1024 * 1024,
        target=target,
        header_all_hosts=all_hosts,
        allow_private=options.allow_private,
        resolve=resolve,
        maps=maps,
        cacert=options.cacert,
        insecure=options.insecure,
        proxy=proxy,
    )

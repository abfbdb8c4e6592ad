"""DNS rebinding on the target's own name (found by a security review).

The target's host was dialled by name and never checked: a public site whose name answered a
public address for robots.txt, then 127.0.0.1, with a robots.txt ``Sitemap:`` on another port of
the same name, made the tool fetch a loopback-only service. Now the target's name is looked up
once per run, every connection to it uses that answer and is checked like any other, and a name
that answers public *and* special addresses opens no special range.

No real DNS and no public address is reached: the test's resolver answers from a script, and
the connector plays the "public" address 93.184.216.34 with a server on 127.0.0.1 (reporting
the public address as its peer, as a real connection would)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpcore
import pytest
from pytest_httpserver import HTTPServer

from sitemap_tui.engine import netpolicy
from sitemap_tui.engine.fetch import FetchConfig, Fetcher, FetchOutcome

PUBLIC = "93.184.216.34"


class Script:
    """A resolver whose answers for a name change from one lookup to the next (the last one
    repeats), as a rebinding attacker's DNS server with TTL 0 does."""

    def __init__(self) -> None:
        self.answers: dict[str, list[list[str]]] = {}
        self.asked: list[str] = []

    def answer(self, host: str) -> list[str]:
        self.asked.append(host)
        queue = self.answers[host]
        return queue.pop(0) if len(queue) > 1 else queue[0]

    async def __call__(self, host: str, port: int) -> list[str]:
        if host not in self.answers:
            raise OSError(f"{host}: not in the test's DNS table")
        return self.answer(host)


class Peer(httpcore.AsyncNetworkStream):
    """A loopback stream that says it is connected to the public address it stands for."""

    def __init__(self, inner: httpcore.AsyncNetworkStream, port: int) -> None:
        self.inner, self.port = inner, port

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self.inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self.inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self.inner.aclose()

    def get_extra_info(self, info: str) -> Any:
        return (PUBLIC, self.port) if info == "server_addr" else self.inner.get_extra_info(info)


class World(httpcore.AsyncNetworkBackend):
    """The network as the machine sees it: names resolve through the script (as the OS
    resolver would, for code that dials a name), PUBLIC is served on 127.0.0.1."""

    def __init__(self, dns: Script) -> None:
        self.dns = dns
        self.real = httpcore.AnyIOBackend()
        self.dialled: list[tuple[str, int]] = []
        self.public_ports: set[int] = set()  # where PUBLIC listens (on 127.0.0.1 here)

    async def connect_tcp(self, host: str, port: int, **kw: Any) -> httpcore.AsyncNetworkStream:
        address = host if netpolicy._parse_ip(host) is not None else self.dns.answer(host)[0]
        self.dialled.append((address, port))
        if address == PUBLIC:
            if port not in self.public_ports:
                raise httpcore.ConnectError(f"{PUBLIC}:{port}: connection refused")
            return Peer(await self.real.connect_tcp("127.0.0.1", port, **kw), port)
        return await self.real.connect_tcp(address, port, **kw)

    async def sleep(self, seconds: float) -> None:
        await self.real.sleep(seconds)


@pytest.fixture()
def dns(monkeypatch: pytest.MonkeyPatch) -> Script:
    script = Script()
    monkeypatch.setattr(netpolicy, "system_resolve", script)
    return script


@pytest.fixture()
def world(monkeypatch: pytest.MonkeyPatch, dns: Script) -> World:
    backend = World(dns)
    monkeypatch.setattr(netpolicy, "make_connector", lambda: backend)
    return backend


@pytest.fixture()
def secret() -> Iterator[HTTPServer]:
    """A service that listens on loopback only (an admin API, a database's HTTP port)."""
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()
    server.expect_request("/s.xml").respond_with_data("<urlset/>")
    try:
        yield server
    finally:
        server.clear()
        server.stop()


def cfg(target: str) -> FetchConfig:
    return FetchConfig(connect_timeout=2.0, read_timeout=2.0, total_timeout=5.0, retries=0, target=target)


async def fetch_both(target: str, second: str) -> tuple[FetchOutcome, FetchOutcome]:
    async with Fetcher(cfg(target)) as fetcher:
        first = await fetcher.fetch(target + "robots.txt", lambda chunk: None)
        return first, await fetcher.fetch(second, lambda chunk: None)


async def test_a_public_target_that_rebinds_to_loopback_is_not_followed_there(
    httpserver: HTTPServer, secret: HTTPServer, world: World, dns: Script
) -> None:
    httpserver.expect_request("/robots.txt").respond_with_data("Sitemap: /s.xml\n")
    dns.answers["rebind.test"] = [[PUBLIC], ["127.0.0.1"]]
    world.public_ports.add(httpserver.port)
    target = f"http://rebind.test:{httpserver.port}/"
    robots, listed = await fetch_both(target, f"http://rebind.test:{secret.port}/s.xml")
    assert robots.ok
    assert secret.log == []
    # the name was looked up once; the second connection went to that same public address
    assert dns.asked == ["rebind.test"]
    assert world.dialled == [(PUBLIC, httpserver.port), (PUBLIC, secret.port)]
    assert not listed.ok and "connection refused" in (listed.error or "")


async def test_a_target_answering_public_and_loopback_opens_no_range(
    httpserver: HTTPServer, secret: HTTPServer, world: World, dns: Script
) -> None:
    """Such a name dials its public address only, and what it lists may not reach loopback
    (a name that answered only 127.0.0.1 would open it: tests/test_private_addresses.py)."""
    httpserver.expect_request("/robots.txt").respond_with_data("Sitemap: /s.xml\n")
    dns.answers["mixed.test"] = [["127.0.0.1", PUBLIC]]
    dns.answers["lan.test"] = [["127.0.0.1"]]
    world.public_ports.add(httpserver.port)
    robots, listed = await fetch_both(
        f"http://mixed.test:{httpserver.port}/", f"http://lan.test:{secret.port}/s.xml")
    assert robots.ok and world.dialled == [(PUBLIC, httpserver.port)]
    assert listed.error_rule == "fetch-private-address", listed.error
    assert "lan.test resolves to 127.0.0.1, a loopback address" in (listed.error or "")
    assert secret.log == []


async def test_a_target_whose_own_connection_lands_on_a_refused_peer_is_closed(
    httpserver: HTTPServer, world: World, dns: Script
) -> None:
    """The target's own connections get the peer check too: its first answer was public, so a
    stream that turns out to be connected to 127.0.0.1 is closed unused."""
    dns.answers["rebind.test"] = [[PUBLIC]]
    world.public_ports.add(httpserver.port)
    real = world.connect_tcp

    async def liar(host: str, port: int, **kw: Any) -> httpcore.AsyncNetworkStream:
        stream = await real(host, port, **kw)
        assert isinstance(stream, Peer)
        return stream.inner  # the loopback stream, which says where it really is

    world.connect_tcp = liar  # type: ignore[method-assign]
    httpserver.expect_request("/robots.txt").respond_with_data("")
    async with Fetcher(cfg(f"http://rebind.test:{httpserver.port}/")) as fetcher:
        out = await fetcher.fetch(f"http://rebind.test:{httpserver.port}/robots.txt", lambda c: None)
    assert out.error_rule == "fetch-private-address" and "127.0.0.1" in (out.error or "")
    assert httpserver.log == []


async def test_a_new_fetcher_keeps_the_first_answer(
    httpserver: HTTPServer, secret: HTTPServer, world: World, dns: Script
) -> None:
    """A reload in the TUI or the deep checks make a new Fetcher: its first lookup would be a
    new chance for the DNS to answer 127.0.0.1, which would then open loopback."""
    httpserver.expect_request("/robots.txt").respond_with_data("")
    dns.answers["rebind.test"] = [[PUBLIC], ["127.0.0.1"]]
    world.public_ports.add(httpserver.port)
    target = f"http://rebind.test:{httpserver.port}/"
    for _ in range(2):
        async with Fetcher(cfg(target)) as fetcher:
            assert (await fetcher.fetch(target + "robots.txt", lambda c: None)).ok
    async with Fetcher(cfg(target)) as fetcher:
        out = await fetcher.fetch(f"http://rebind.test:{secret.port}/s.xml", lambda c: None)
    assert not out.ok and secret.log == [] and dns.asked == ["rebind.test"]


async def test_worker_processes_take_the_parent_answer(httpserver: HTTPServer, dns: Script) -> None:
    """A worker process's own first lookup would be another chance; it is handed the parent's
    answer. (pinned.test is in no real DNS: a worker that looked it up would fail the files.)"""
    from sitemap_tui.engine.explorer import ExploreOptions, Explorer
    from sitemap_tui.engine.model import NodeState

    ns = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    base = f"http://pinned.test:{httpserver.port}"
    children = "".join(f"<sitemap><loc>{base}/c{i}.xml</loc></sitemap>" for i in range(2))
    httpserver.expect_request("/index.xml").respond_with_data(f"<sitemapindex {ns}>{children}</sitemapindex>")
    for i in range(2):
        httpserver.expect_request(f"/c{i}.xml").respond_with_data(
            f"<urlset {ns}><url><loc>{base}/p{i}</loc></url></urlset>")
    dns.answers["pinned.test"] = [["127.0.0.1"]]
    async with Explorer(fetch_config=FetchConfig(total_timeout=20, retries=0),
                        options=ExploreOptions(workers=1)) as ex:
        await asyncio.wait_for(ex.explore(f"{base}/index.xml"), 60)
        assert ex._pool is not None  # the children were fetched by the worker process
        states = {n.url.rsplit("/", 1)[-1]: (n.state, n.error) for n in ex.nodes.values()}
    assert states["c0.xml"] == (NodeState.DONE, None) and states["c1.xml"] == (NodeState.DONE, None), states
    assert dns.asked == ["pinned.test"]

"""Issue 15 §4: addresses a public site cannot make us fetch.

The user's target may be anything; what the tool finds on its own (robots.txt Sitemap: lines,
index <loc>s, redirects, --deep URLs) is checked on the address it is about to connect to, after
DNS resolution, and refused when it is loopback/private/link-local/... unless the target is in
that same range or --allow-private is given.

All servers are on 127.0.0.1 / 127.0.0.2 and all hosts are literal addresses, except where a
test injects the resolver (no DNS query ever leaves the machine). Addresses outside loopback
(10.255.255.1, 169.254.169.254) are never really dialled: a spy on the connector proves that no
connection to them is even attempted."""

from __future__ import annotations

import ipaddress
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cli_process
import httpcore
import pytest
from pytest_httpserver import HTTPServer

from sitemap_tui.engine import netpolicy
from sitemap_tui.engine.fetch import FetchConfig, Fetcher, FetchOutcome
from sitemap_tui.engine.model import Entry, Node, NodeKind, NodeState
from sitemap_tui.engine.netpolicy import NetPolicy, special_range
from sitemap_tui.engine.store import Store
from sitemap_tui.validate.deep import DeepOptions, run_deep

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
METADATA = "http://169.254.169.254/latest/meta-data/"
PRIVATE = "http://10.255.255.1/sitemap.xml"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return cli_process.run(
        [sys.executable, "-m", "sitemap_tui", *args], capture_output=True, text=True, timeout=120
    )


def urlset(*locs: str) -> str:
    return f'<urlset xmlns="{NS}">' + "".join(f"<url><loc>{u}</loc></url>" for u in locs) + "</urlset>"


def index(*locs: str) -> str:
    items = "".join(f"<sitemap><loc>{u}</loc></sitemap>" for u in locs)
    return f'<sitemapindex xmlns="{NS}">{items}</sitemapindex>'


def cfg(**kw: Any) -> FetchConfig:
    base: dict[str, Any] = dict(connect_timeout=2.0, read_timeout=2.0, total_timeout=5.0, retries=0)
    base.update(kw)
    return FetchConfig(**base)


async def get(url: str, config: FetchConfig) -> FetchOutcome:
    async with Fetcher(config) as f:
        return await f.fetch(url, lambda chunk: None)


class SpyBackend(httpcore.AsyncNetworkBackend):
    """The real connector, recording every address it is asked to dial."""

    def __init__(self) -> None:
        self.inner = httpcore.AnyIOBackend()
        self.dialled: list[str] = []

    async def connect_tcp(self, host: str, port: int, **kw: Any) -> httpcore.AsyncNetworkStream:
        self.dialled.append(host)
        return await self.inner.connect_tcp(host, port, **kw)

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


@pytest.fixture()
def spy(monkeypatch: pytest.MonkeyPatch) -> SpyBackend:
    backend = SpyBackend()
    monkeypatch.setattr(netpolicy, "make_connector", lambda: backend)
    return backend


@pytest.fixture()
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Names the test resolves itself; any other name fails (no real DNS in tests)."""
    table: dict[str, list[str]] = {}

    async def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise OSError(f"{host}: not in the test's DNS table")
        return table[host]

    monkeypatch.setattr(netpolicy, "system_resolve", resolve)
    return table


@pytest.fixture()
def other_host() -> Iterator[HTTPServer]:
    server = HTTPServer(host="127.0.0.2", port=0)
    try:
        server.start()
    except OSError as exc:
        pytest.skip(f"cannot listen on 127.0.0.2: {exc}")
    try:
        yield server
    finally:
        server.clear()
        server.stop()


# -- the ranges ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("address", "label"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),  # IPv4-mapped: judged as the IPv4 address it is
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("172.31.255.254", "private"),
        ("192.168.1.1", "private"),
        ("::ffff:10.0.0.1", "private"),
        ("fd00::2", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("100.64.0.1", "shared"),
        ("192.0.2.1", "documentation"),
        ("2001:db8::1", "documentation"),
        ("64:ff9b::a00:1", "private"),  # NAT64 of 10.0.0.1
        ("2002:a00:1::1", "private"),  # 6to4 of 10.0.0.1
        # IPv4-compatible (deprecated, in ::/8), which Python calls global: found from outside
        ("::a9fe:a9fe", "reserved"),
        ("::127.0.0.1", "reserved"),
        ("::8.8.8.8", "reserved"),
    ],
)
def test_special_ranges(address: str, label: str) -> None:
    found = special_range(address)
    assert found is not None and label in found.label, (address, found)


@pytest.mark.parametrize(
    "address", ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "64:ff9b::808:808"]
)
def test_public_addresses_are_not_special(address: str) -> None:
    assert special_range(address) is None


async def test_the_target_allows_its_own_range_only(fake_dns: dict[str, list[str]]) -> None:
    loop = NetPolicy("http://127.0.0.1:8000/")
    assert await loop.refusal("127.0.0.2", ipaddress.ip_address("127.0.0.2")) is None
    assert await loop.refusal("localhost", ipaddress.ip_address("::1")) is None
    assert "private" in (await loop.refusal("10.0.0.1", ipaddress.ip_address("10.0.0.1")) or "")
    metadata = ipaddress.ip_address("169.254.169.254")
    assert "link-local" in (await loop.refusal("169.254.169.254", metadata) or "")
    lan = NetPolicy("http://10.1.2.3/")
    assert await lan.refusal("10.200.0.1", ipaddress.ip_address("10.200.0.1")) is None
    assert await lan.refusal("192.168.0.1", ipaddress.ip_address("192.168.0.1")) is not None
    assert await lan.refusal("127.0.0.1", ipaddress.ip_address("127.0.0.1")) is not None
    # a target known by name: its addresses decide
    fake_dns["intranet.test"] = ["192.168.7.7"]
    named = NetPolicy("https://intranet.test/")
    assert await named.refusal("192.168.1.1", ipaddress.ip_address("192.168.1.1")) is None
    assert await named.refusal("10.0.0.1", ipaddress.ip_address("10.0.0.1")) is not None
    # a public target allows nothing special; a local file has no range at all
    fake_dns["example.test"] = ["93.184.216.34"]
    for target in ("https://example.test/", "file:///tmp/sitemap.xml"):
        policy = NetPolicy(target)
        assert await policy.refusal("127.0.0.1", ipaddress.ip_address("127.0.0.1")) is not None
    assert await NetPolicy("https://example.test/", allow_private=True).refusal(
        "10.0.0.1", ipaddress.ip_address("10.0.0.1")
    ) is None


def test_user_named_hosts() -> None:
    policy = NetPolicy("https://Example.test/", resolve={"cdn.test": "10.0.0.9"})
    assert policy.user_named("example.test") and policy.user_named("cdn.test")
    assert not policy.user_named("other.test")


# -- the fetcher ---------------------------------------------------------------------------
async def test_redirect_to_a_private_address_is_not_dialled(
    httpserver: HTTPServer, spy: SpyBackend
) -> None:
    httpserver.expect_request("/meta").respond_with_data("", 302, headers={"Location": METADATA})
    httpserver.expect_request("/lan").respond_with_data("", 302, headers={"Location": PRIVATE})
    config = cfg(target=httpserver.url_for("/"))
    for path, label in (("/meta", "link-local"), ("/lan", "private")):
        out = await get(httpserver.url_for(path), config)
        assert out.error_rule == "fetch-private-address", out.error
        assert out.error is not None and label in out.error and "--allow-private" in out.error
    assert spy.dialled == ["127.0.0.1", "127.0.0.1"]


async def test_a_name_that_resolves_to_loopback_is_caught(
    httpserver: HTTPServer, spy: SpyBackend, fake_dns: dict[str, list[str]]
) -> None:
    """The check runs on the resolved address, not on the URL's text: a harmless-looking name
    that resolves to 127.0.0.1 is refused for a target outside loopback, and fetched (from that
    very address) with --allow-private."""
    httpserver.expect_request("/s.xml").respond_with_data(urlset("https://example.com/"))
    fake_dns["sneaky.test"] = ["127.0.0.1"]
    url = f"http://sneaky.test:{httpserver.port}/s.xml"
    out = await get(url, cfg(target="file:///tmp/index.xml"))
    assert out.error_rule == "fetch-private-address"
    assert out.error is not None and "sneaky.test" in out.error and "127.0.0.1" in out.error
    assert spy.dialled == [] and httpserver.log == []
    out = await get(url, cfg(target="file:///tmp/index.xml", allow_private=True))
    assert out.ok and out.stats.http_status == 200
    assert spy.dialled == ["127.0.0.1"] and len(httpserver.log) == 1


async def test_public_and_private_answers_only_the_public_one_is_dialled(
    spy: SpyBackend, fake_dns: dict[str, list[str]]
) -> None:
    """A name with a private address among its answers never gets a connection to it."""
    fake_dns["mixed.test"] = ["10.255.255.1", "127.0.0.1"]
    out = await get("http://mixed.test:9/x.xml", cfg(target="http://127.0.0.2:1/"))
    assert out.error_rule == "fetch-http-error"  # port 9 on 127.0.0.1: connection refused
    assert spy.dialled == ["127.0.0.1"]


async def test_the_connected_peer_is_checked_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the connector does, a stream whose peer is refused is closed unused."""

    class Stream(httpcore.AsyncNetworkStream):
        closed = False

        def get_extra_info(self, info: str) -> Any:
            return ("169.254.169.254", 80) if info == "server_addr" else None

        async def aclose(self) -> None:
            Stream.closed = True

    class Liar(httpcore.AsyncNetworkBackend):
        async def connect_tcp(self, host: str, port: int, **kw: Any) -> httpcore.AsyncNetworkStream:
            return Stream()

    monkeypatch.setattr(netpolicy, "make_connector", Liar)
    out = await get("http://127.0.0.2:80/x.xml", cfg(target="http://127.0.0.1/"))
    assert out.error_rule == "fetch-private-address" and "169.254.169.254" in (out.error or "")
    assert Stream.closed


async def test_user_named_addresses_are_always_allowed(
    httpserver: HTTPServer, spy: SpyBackend, fake_dns: dict[str, list[str]]
) -> None:
    httpserver.expect_request("/s.xml").respond_with_data(urlset("https://example.com/"))
    # the target itself, on loopback
    out = await get(httpserver.url_for("/s.xml"), cfg(target=httpserver.url_for("/")))
    assert out.ok
    # --resolve HOST:IP names an address for a host: used, never refused, no DNS
    url = f"http://pinned.test:{httpserver.port}/s.xml"
    out = await get(url, cfg(target="https://example.test/", resolve={"pinned.test": "127.0.0.1"}))
    assert out.ok
    assert spy.dialled == ["127.0.0.1", "127.0.0.1"]


# -- findings, end to end ------------------------------------------------------------------
def issues_of(proc: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    return json.loads(proc.stdout)["issues"]


def test_robots_sitemap_lines_to_private_addresses_are_refused(
    httpserver: HTTPServer, other_host: HTTPServer
) -> None:
    """A robots.txt on a loopback target may lead to another loopback host (same range), not
    to the metadata service or the LAN; each refusal is a finding on its Sitemap: line."""
    robots = f"User-agent: *\nSitemap: {METADATA}\nSitemap: {PRIVATE}\nSitemap: {other_host.url_for('/s.xml')}\n"
    httpserver.expect_request("/robots.txt").respond_with_data(robots, content_type="text/plain")
    other_host.expect_request("/s.xml").respond_with_data(urlset("https://example.com/"))
    proc = run("validate", httpserver.url_for("/"), "--format", "json", "--timeout", "5")
    assert proc.returncode in (0, 1), proc.stderr
    found = issues_of(proc)
    lines = {i["line"]: i for i in found if i["rule"] == "robots-sitemap-unfetchable"}
    assert set(lines) == {2, 3}
    assert "link-local" in lines[2]["message"] and "private" in lines[3]["message"]
    private = [i for i in found if i["rule"] == "fetch-private-address"]
    assert sorted(i["sitemap"] for i in private) == [PRIVATE, METADATA]
    assert [req.path for req, _ in other_host.log] == ["/s.xml"]
    stats = run("stats", httpserver.url_for("/"), "--timeout", "5")
    assert "169.254.169.254" in stats.stdout and "--allow-private" in stats.stdout


def test_index_child_on_loopback_is_refused_for_a_local_target(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    """A local file has no address range: the loopback child it lists is refused (a finding
    on the index line), and fetched with --allow-private."""
    httpserver.expect_request("/child.xml").respond_with_data(urlset("https://example.com/c"))
    local = tmp_path / "index.xml"
    local.write_text(index(httpserver.url_for("/child.xml")))
    proc = run("validate", str(local), "--follow-cross-host", "--format", "json")
    found = issues_of(proc)
    assert httpserver.log == []
    child = [i for i in found if i["rule"] == "index-child-unfetchable"]
    assert len(child) == 1 and child[0]["line"] == 1 and "loopback" in child[0]["message"]
    assert any(i["rule"] == "fetch-private-address" for i in found)
    urls = run("urls", str(local), "--follow-cross-host", "--allow-private")
    assert urls.returncode == 0, urls.stderr
    assert urls.stdout.split() == ["https://example.com/c"]
    assert [req.path for req, _ in httpserver.log] == ["/child.xml"]


def test_resolve_option(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/s.xml").respond_with_data(urlset("https://example.com/r"))
    url = f"http://sitemap.test:{httpserver.port}/s.xml"
    proc = run("urls", url, "--resolve", "sitemap.test:127.0.0.1")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["https://example.com/r"]
    assert httpserver.log[0][0].headers["Host"] == f"sitemap.test:{httpserver.port}"
    bad = run("urls", url, "--resolve", "sitemap.test:not-an-address")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--resolve" in bad.stderr


def test_help_mentions_allow_private() -> None:
    for cmd in ("urls", "stats", "discover", "validate", "explore"):
        out = " ".join(run(cmd, "--help").stdout.split())
        assert "--allow-private" in out and "--resolve" in out, cmd


# -- deep checks ---------------------------------------------------------------------------
async def test_deep_checks_refuse_private_addresses(
    tmp_path: Path, httpserver: HTTPServer, other_host: HTTPServer, spy: SpyBackend
) -> None:
    httpserver.expect_request("/page").respond_with_data("ok")
    other_host.expect_request("/page").respond_with_data("ok")
    other_host.expect_request("/robots.txt").respond_with_data("", status=404)
    store = Store(tmp_path / "deep.db")
    try:
        nid = store.next_node_id()
        store.add_node(
            Node(id=nid, url=httpserver.url_for("/sitemap.xml"), kind=NodeKind.URLSET,
                 state=NodeState.DONE)
        )
        locs = [httpserver.url_for("/page"), other_host.url_for("/page"), METADATA, PRIVATE]
        store.add_entries(nid, [Entry(loc=u, line=i + 1) for i, u in enumerate(locs)])
        await run_deep(store, cfg(), DeepOptions(sample=None, rate=0, timeout=5))
        store.commit()
        refused = {i.url: i for i in store.issues(rule="fetch-private-address")}
    finally:
        store.close()
    assert set(refused) == {METADATA, PRIVATE}
    assert refused[METADATA].line == 3 and "link-local" in refused[METADATA].message
    # the public hosts were dialled (their robots.txt, then the page), the private ones never
    assert set(spy.dialled) == {"127.0.0.1", "127.0.0.2"}
    for server in (httpserver, other_host):
        assert [req.path for req, _ in server.log] == ["/robots.txt", "/page"]


def test_parse_resolve() -> None:
    from sitemap_tui.engine.netpolicy import parse_resolve

    assert parse_resolve(["Example.test:127.0.0.1", "v6.test:[::1]", "curl.test:443:10.0.0.2"]) == {
        "example.test": "127.0.0.1", "v6.test": "::1", "curl.test": "10.0.0.2",
    }
    for bad in ("example.test", "example.test:", ":127.0.0.1", "example.test:nowhere",
                "example.test:99999:127.0.0.1", "example.test:0:127.0.0.1"):
        with pytest.raises(ValueError, match="--resolve"):
            parse_resolve([bad])


def test_a_robots_txt_redirected_to_a_refused_address_is_not_an_unreachable_site(httpserver) -> None:
    """Found from outside: robots.txt answering 302 to 10.0.0.5 made the whole site
    "unreachable" (exit 2) though it answered, and its /sitemap.xml was never probed. The
    redirect is refused (never dialled) and said; discovery goes on."""
    httpserver.expect_request("/robots.txt").respond_with_data(
        "", status=302, headers={"Location": "http://10.0.0.5/robots.txt"})
    ns = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    httpserver.expect_request("/sitemap.xml").respond_with_data(
        f"<urlset {ns}><url><loc>{httpserver.url_for('/p')}</loc></url></urlset>", content_type="application/xml")
    proc = run("urls", httpserver.url_for("/"), "--no-history")
    assert proc.returncode == 0 and proc.stdout.splitlines() == [httpserver.url_for("/p")], proc.stderr
    assert "10.0.0.5 is a private address" in proc.stderr and "unreachable" not in proc.stderr


def test_a_refusal_reads_as_english() -> None:
    from sitemap_tui.engine.netpolicy import AddressRefused

    for address, words in (("0.0.0.0", "0.0.0.0 is an unspecified address"), ("10.0.0.1", "10.0.0.1 is a private address")):
        found = special_range(address)
        assert found is not None and words in str(AddressRefused(address, address, found))

"""--proxy URL (issue 21, staging checks): every request goes through a real forwarding proxy on
127.0.0.1 (tests/forward_proxy.py), the address policy still holds for what documents chose,
proxy credentials go to the proxy only and -H headers to the target only."""

from __future__ import annotations

import json
import os
import socket
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cli_process
import pytest
import trustme
from forward_proxy import ForwardProxy
from pytest_httpserver import HTTPServer

from sitemap_tui.engine.fetch import FetchConfig, Fetcher
from sitemap_tui.engine.fetch_outcome import FetchOutcome

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return cli_process.run([sys.executable, "-m", "sitemap_tui", *args], capture_output=True,
                          text=True, timeout=120, env=env)


def urlset(*locs: str) -> str:
    return f'<urlset xmlns="{NS}">' + "".join(f"<url><loc>{u}</loc></url>" for u in locs) + "</urlset>"


def index(*locs: str) -> str:
    return f'<sitemapindex xmlns="{NS}">' + "".join(f"<sitemap><loc>{u}</loc></sitemap>" for u in locs) + "</sitemapindex>"


@pytest.fixture
def proxy() -> Iterator[ForwardProxy]:
    p = ForwardProxy().start()
    try:
        yield p
    finally:
        p.stop()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_requests_go_through_the_proxy_which_resolves_staging_names(
    httpserver: HTTPServer, proxy: ForwardProxy
) -> None:
    """The staging name resolves only at the proxy (as before a DNS cutover): every fetch,
    robots.txt included, is a request to the proxy in absolute form."""
    proxy.hosts["staging.invalid"] = "127.0.0.1"
    base = f"http://staging.invalid:{httpserver.port}"
    httpserver.expect_request("/index.xml").respond_with_data(index(f"{base}/child.xml"))
    httpserver.expect_request("/child.xml").respond_with_data(urlset("https://example.com/a"))
    proc = run("urls", f"{base}/index.xml", "--proxy", proxy.url, "--no-history", "--timeout", "10")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["https://example.com/a"]
    got = [(r.method, r.target) for r in proxy.log]
    assert ("GET", f"{base}/index.xml") in got and ("GET", f"{base}/child.xml") in got
    assert {req.headers["Host"] for req, _ in httpserver.log} == {f"staging.invalid:{httpserver.port}"}


def test_env_proxy_variables_are_not_used(httpserver: HTTPServer, proxy: ForwardProxy) -> None:
    """The same run without --proxy (env proxy variables set) connects directly: the env is not used."""
    env = {**os.environ, "HTTP_PROXY": proxy.url, "http_proxy": proxy.url}
    proc = run("urls", httpserver.url_for("/none.xml"), "--no-history", "--timeout", "5", env=env)
    assert proxy.log == []
    assert "HTTP_PROXY is set but not used" in proc.stderr and "--proxy" in proc.stderr


def test_private_address_listed_by_a_document_is_refused_before_the_proxy(
    httpserver: HTTPServer, proxy: ForwardProxy
) -> None:
    """A loopback target opens loopback, not 10/8: the index child on 10.0.0.7 is refused (a
    node error, as without a proxy) and the proxy is never asked for it; --allow-private asks."""
    proxy.hosts["10.0.0.7"] = "127.0.0.1"  # never dial outside 127.0.0.1, even when allowed
    child = f"http://10.0.0.7:{httpserver.port}/child.xml"
    httpserver.expect_request("/index.xml").respond_with_data(index(child))
    httpserver.expect_request("/child.xml").respond_with_data(urlset("https://example.com/c"))
    target = httpserver.url_for("/index.xml")
    proc = run("validate", target, "--follow-cross-host", "--format", "json", "--proxy", proxy.url,
               "--no-history", "--timeout", "10")
    issues = json.loads(proc.stdout)["issues"]
    refused = [i for i in issues if i["rule"] == "fetch-private-address"]
    assert refused and "10.0.0.7 is a private address" in refused[0]["message"], issues
    assert [r.target for r in proxy.log if "10.0.0.7" in r.target] == []
    assert any(r.target == target for r in proxy.log)
    allowed = run("urls", target, "--follow-cross-host", "--allow-private", "--proxy", proxy.url,
                  "--no-history", "--timeout", "10")
    assert allowed.returncode == 0, allowed.stderr
    assert allowed.stdout.split() == ["https://example.com/c"]
    assert any(r.target == child for r in proxy.log)


async def test_a_name_resolving_to_a_private_address_is_refused_through_the_proxy(
    proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host a document chose is resolved here, before the proxy is asked."""
    async def resolve(host: str, port: int) -> list[str]:
        return {"intranet.example": ["93.184.215.14", "10.1.2.3"], "public.example": ["93.184.215.14"]}[host]

    monkeypatch.setattr("sitemap_tui.engine.netpolicy.system_resolve", resolve)
    config = FetchConfig(target="https://public.example/", proxy=proxy.url, retries=0, total_timeout=5)
    async with Fetcher(config) as fetcher:
        out: FetchOutcome = await fetcher.fetch("http://intranet.example/s.xml", lambda chunk: None)
    assert out.error is not None and "intranet.example resolves to 10.1.2.3" in out.error
    assert out.error_rule == "fetch-private-address"
    assert proxy.log == []


async def test_a_host_that_does_not_resolve_here_is_not_sent_to_the_proxy(
    proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its address cannot be judged, so the policy cannot let it through; --allow-private can."""
    async def resolve(host: str, port: int) -> list[str]:
        if host == "public.example":
            return ["93.184.215.14"]
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr("sitemap_tui.engine.netpolicy.system_resolve", resolve)
    proxy.hosts["only-the-proxy-knows.example"] = "127.0.0.1"
    url = f"http://only-the-proxy-knows.example:{closed_port()}/s.xml"
    config = FetchConfig(target="https://public.example/", proxy=proxy.url, retries=0, total_timeout=5)
    async with Fetcher(config) as fetcher:
        out: FetchOutcome = await fetcher.fetch(url, lambda chunk: None)
    assert out.error is not None and "does not resolve here" in out.error and "--allow-private" in out.error
    assert proxy.log == []
    config.allow_private = True
    async with Fetcher(config) as fetcher:
        allowed: FetchOutcome = await fetcher.fetch(url, lambda chunk: None)
    assert [r.target for r in proxy.log] == [url]
    assert allowed.stats.http_status == 502  # the proxy asked, and found nothing listening


def test_proxy_credentials_reach_the_proxy_only(httpserver: HTTPServer) -> None:
    proxy = ForwardProxy(credentials="user:s3cret").start()
    try:
        httpserver.expect_request("/s.xml").respond_with_data(urlset("https://example.com/p"))
        url = f"http://user:s3cret@127.0.0.1:{proxy.port}"
        proc = run("urls", httpserver.url_for("/s.xml"), "--proxy", url, "--no-history", "--timeout", "10")
        assert proc.returncode == 0, proc.stderr
        assert proxy.log[0].headers["proxy-authorization"].startswith("Basic ")
        site = httpserver.log[0][0].headers
        assert "Authorization" not in site and "Proxy-Authorization" not in site
        wrong = run("urls", httpserver.url_for("/s.xml"), "--proxy", f"http://user:nope@127.0.0.1:{proxy.port}",
                    "--no-history", "--timeout", "10", "--retries", "0")
        assert wrong.returncode == 2 and "407" in wrong.stderr and "nope" not in wrong.stderr, wrong.stderr
        tunnel = run("urls", "https://127.0.0.1:9/s.xml", "--proxy", f"http://user:nope@127.0.0.1:{proxy.port}",
                     "--no-history", "--timeout", "10")
        assert tunnel.returncode == 2 and "nope" not in tunnel.stderr, tunnel.stderr
        assert "the proxy refused the tunnel: 407 Proxy Authentication Required" in tunnel.stderr, tunnel.stderr
    finally:
        proxy.stop()


@pytest.fixture
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def tls_server(ca: trustme.CA) -> Iterator[HTTPServer]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("staging.invalid").configure_cert(context)
    server = HTTPServer(host="127.0.0.1", port=0, ssl_context=context)
    server.start()
    try:
        yield server
    finally:
        server.clear()
        server.stop()


def test_https_goes_through_connect_with_cacert_for_the_site(
    tls_server: HTTPServer, ca: trustme.CA, tmp_path: Path
) -> None:
    """An https site through the proxy is a CONNECT tunnel: the proxy sees host:port and its
    credentials; the site sees neither, and its certificate is checked with --cacert."""
    proxy = ForwardProxy(hosts={"staging.invalid": "127.0.0.1"}, credentials="u:pw").start()
    try:
        ca_file = tmp_path / "ca.pem"
        ca.cert_pem.write_to_path(str(ca_file))
        tls_server.expect_request("/s.xml").respond_with_data(urlset("https://staging.invalid/a"))
        url = f"https://staging.invalid:{tls_server.port}/s.xml"
        via = f"http://u:pw@127.0.0.1:{proxy.port}"
        untrusted = run("urls", url, "--proxy", via, "--no-history", "--timeout", "10")
        assert untrusted.returncode == 2 and "certificate" in untrusted.stderr.lower(), untrusted.stderr
        proc = run("urls", url, "--proxy", via, "--cacert", str(ca_file), "-H", "X-Token: t",
                   "--no-history", "--timeout", "10")
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.split() == ["https://staging.invalid/a"]
        connects = [r for r in proxy.log if r.method == "CONNECT"]
        assert connects and connects[0].target == f"staging.invalid:{tls_server.port}"
        assert "x-token" not in connects[0].headers and "proxy-authorization" in connects[0].headers
        site = tls_server.log[-1][0].headers
        assert site["X-Token"] == "t"
        assert "Proxy-Authorization" not in site and "Authorization" not in site
    finally:
        proxy.stop()


def test_an_https_proxy_is_reached_over_tls(
    httpserver: HTTPServer, ca: trustme.CA, tmp_path: Path
) -> None:
    """https://PROXY: TLS to the proxy, its certificate checked with the system's CAs (here
    SSL_CERT_FILE), not with --cacert, which is about the sites."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    proxy = ForwardProxy(tls=context).start()
    try:
        ca_file = tmp_path / "ca.pem"
        ca.cert_pem.write_to_path(str(ca_file))
        httpserver.expect_request("/s.xml").respond_with_data(urlset("https://example.com/t"))
        args = ("urls", httpserver.url_for("/s.xml"), "--proxy", proxy.url, "--no-history", "--timeout", "10")
        untrusted = run(*args, "--cacert", str(ca_file))
        assert untrusted.returncode == 2 and "certificate" in untrusted.stderr.lower(), untrusted.stderr
        proc = run(*args, env={**os.environ, "SSL_CERT_FILE": str(ca_file)})
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.split() == ["https://example.com/t"]
        assert [r.target for r in proxy.log][-1] == httpserver.url_for("/s.xml")
    finally:
        proxy.stop()


def test_headers_go_to_the_target_origin_only_through_the_proxy(
    httpserver: HTTPServer, proxy: ForwardProxy
) -> None:
    other = f"http://localhost:{httpserver.port}/child.xml"  # same server, another origin
    proxy.hosts["localhost"] = "127.0.0.1"
    httpserver.expect_request("/index.xml").respond_with_data(index(other))
    httpserver.expect_request("/child.xml").respond_with_data(urlset("https://example.com/h"))
    proc = run("urls", httpserver.url_for("/index.xml"), "--follow-cross-host", "-H", "X-Token: t",
               "--proxy", proxy.url, "--no-history", "--timeout", "10")
    assert proc.returncode == 0, proc.stderr
    seen = {req.path: req.headers.get("X-Token") for req, _ in httpserver.log}
    assert seen == {"/index.xml": "t", "/child.xml": None}
    assert any(r.target == other for r in proxy.log)


@pytest.mark.parametrize(("value", "why"), [
    ("socks5://127.0.0.1:1080", "SOCKS"),
    ("ftp://127.0.0.1:21", "http://"),
    ("127.0.0.1:3128", "http://"),
    ("http://", "host"),
    ("http://127.0.0.1:3128/path", "has no path"),
    ("http://u:hidden@127.0.0.1:99999", "port"),
    # httpx's message quoted a piece of it ("Invalid port: 'hidden'"): found by a review
    ("http://u:hidden#x@127.0.0.1:3128", "percent-encoded"),
])
def test_bad_proxy_values_are_one_line_exit_2(value: str, why: str) -> None:
    proc = run("urls", "http://127.0.0.1:9/s.xml", "--proxy", value)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "--proxy" in proc.stderr and why in proc.stderr, proc.stderr
    assert "hidden" not in proc.stderr and "Traceback" not in proc.stderr


def test_resolve_and_proxy_do_not_combine(proxy: ForwardProxy) -> None:
    proc = run("urls", "http://a.invalid/s.xml", "--proxy", proxy.url, "--resolve", "a.invalid:127.0.0.1")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "--resolve" in proc.stderr and "--proxy" in proc.stderr
    assert proxy.log == []


def test_an_unreachable_proxy_is_a_clear_error() -> None:
    port = closed_port()
    proc = run("urls", "http://127.0.0.1:9/s.xml", "--proxy", f"http://u:hidden@127.0.0.1:{port}",
               "--no-history", "--timeout", "10")
    assert proc.returncode == 2, proc.stderr
    assert f"cannot reach the proxy 127.0.0.1:{port}" in proc.stderr, proc.stderr
    assert "hidden" not in proc.stderr


@pytest.mark.parametrize("command", ["explore", "urls", "stats", "discover", "validate", "audit", "diff", "access"])
def test_every_fetching_command_takes_proxy(command: str) -> None:
    from sitemap_tui.cli.options import fetch_options
    from sitemap_tui.cli.parser import build_parser

    targets = ["a.xml", "b.xml"] if command == "diff" else ["a.xml"]
    ns: Any = build_parser().parse_args([command, *targets, "--proxy", "http://127.0.0.1:3128"])
    ns.target = "a.xml"  # diff names its two targets old and new; the fetch options are the same
    assert fetch_options(ns).proxy == "http://127.0.0.1:3128"
    assert "--proxy" in " ".join(run(command, "--help").stdout.split())


# -- the project config (validate, session/config.py) ---------------------------------------
def run_in(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return cli_process.run([sys.executable, "-m", "sitemap_tui", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env={**os.environ, **(env or {})})


@pytest.mark.parametrize("form", ["url", "env"])
def test_the_project_config_names_the_proxy(
    form: str, tmp_path: Path, httpserver: HTTPServer, proxy: ForwardProxy
) -> None:
    """``proxy = "http://HOST:PORT"`` or ``"env:VARIABLE"`` (a URL with credentials comes from
    the environment, never the file); --proxy wins; --show-config says where it came from."""
    key = proxy.url if form == "url" else "env:STAGING_PROXY"
    (tmp_path / ".sitemap-tui.toml").write_text(f'proxy = "{key}"\n')
    env = {"STAGING_PROXY": proxy.url.replace("//", "//u:s3cret@")}
    httpserver.expect_request("/s.xml").respond_with_data(urlset(httpserver.url_for("/c")))
    proc = run_in(tmp_path, "validate", httpserver.url_for("/s.xml"), "--no-history", "--timeout", "10", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert httpserver.url_for("/s.xml") in [r.target for r in proxy.log]
    assert len(proxy.log) == len(httpserver.log)  # robots.txt too: every request went through it
    seen = len(proxy.log)
    if form == "env":
        assert proxy.log[0].headers["proxy-authorization"].startswith("Basic ")
    shown = run_in(tmp_path, "validate", "--show-config", env=env)
    config = str(tmp_path.resolve() / ".sitemap-tui.toml")
    assert f'proxy = "{key}"    ({config})' in shown.stdout, shown.stdout
    assert "s3cret" not in shown.stdout
    # one given on the command line shows without its password too (found by a review)
    given = run_in(tmp_path, "validate", "--show-config", "--proxy", env["STAGING_PROXY"], env=env)
    assert "s3cret" not in given.stdout and '//u:***@' in given.stdout, given.stdout
    # an "@" in the password: the whole of it, up to the last "@" a URL parser reads it to
    given = run_in(tmp_path, "validate", "--show-config", "--proxy",
                   env["STAGING_PROXY"].replace("s3cret", "s3cret@tail"), env=env)
    assert "tail" not in given.stdout and '//u:***@127.0.0.1' in given.stdout, given.stdout
    bypass = run_in(tmp_path, "validate", httpserver.url_for("/s.xml"), "--no-history", "--proxy",
                    f"http://127.0.0.1:{closed_port()}", "--retries", "0", env=env)
    assert bypass.returncode == 2 and "cannot reach the proxy" in bypass.stderr, bypass.stderr
    assert len(proxy.log) == seen


@pytest.mark.parametrize(("content", "words"), [
    ('proxy = "http://u:secret@127.0.0.1:3128"\n', ["proxy", "env:VARIABLE"]),
    ('proxy = "socks5://127.0.0.1:1080"\n', ["proxy", "SOCKS"]),
    ("proxy = 3128\n", ["proxy", "http://"]),
    ('proxy = "env:UNSET_PROXY_VARIABLE"\n', ["proxy", "UNSET_PROXY_VARIABLE", "not set"]),
])
def test_bad_proxy_in_the_project_config_is_one_line_exit_2(
    content: str, words: list[str], tmp_path: Path
) -> None:
    (tmp_path / ".sitemap-tui.toml").write_text(content)
    proc = run_in(tmp_path, "validate", "http://127.0.0.1:9/s.xml", "--no-history")
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("sitemap-tui: error:")]
    assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert all(w in lines[0] for w in words), lines[0]
    assert "secret" not in proc.stderr

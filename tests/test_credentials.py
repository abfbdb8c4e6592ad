"""Issue 15 §3: -H headers go to the target's origin only.

Two real origins: pytest-httpserver on 127.0.0.1 (the target) and a second server on
127.0.0.2 (another host) or on another port of 127.0.0.1 (another origin, same host). Every test
runs the real command in a child process and asserts what each server saw."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import cli_process
import pytest
from pytest_httpserver import HTTPServer

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
TOKEN = "Bearer s3cret-token"
COOKIE = "sid=s3cret-cookie"
SECRET_HEADERS = ("-H", f"Authorization: {TOKEN}", "-H", f"Cookie: {COOKIE}")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return cli_process.run(
        [sys.executable, "-m", "sitemap_tui", *args], capture_output=True, text=True, timeout=120
    )


def index(*locs: str) -> str:
    items = "".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
    return f'<sitemapindex xmlns="{NS}">{items}</sitemapindex>'


def urlset(*locs: str) -> str:
    items = "".join(f"<url><loc>{loc}</loc></url>" for loc in locs)
    return f'<urlset xmlns="{NS}">{items}</urlset>'


def serve_xml(server: HTTPServer, path: str, body: str) -> None:
    server.expect_request(path).respond_with_data(body, content_type="application/xml")


def seen(server: HTTPServer) -> list[tuple[str, str, str | None, str | None]]:
    """(method, path, Authorization, Cookie) of every request the server received."""
    return [
        (req.method, req.path, req.headers.get("Authorization"), req.headers.get("Cookie"))
        for req, _ in server.log
    ]


def start_server(host: str) -> HTTPServer:
    server = HTTPServer(host=host, port=0)
    try:
        server.start()
    except OSError as exc:  # 127.0.0.2 is loopback on Linux, not on every system
        pytest.skip(f"cannot listen on {host}: {exc}")
    return server


@pytest.fixture()
def other_host() -> Iterator[HTTPServer]:
    """A second origin on another loopback address."""
    server = start_server("127.0.0.2")
    try:
        yield server
    finally:
        server.clear()
        server.stop()


@pytest.fixture()
def other_port() -> Iterator[HTTPServer]:
    """A second origin on the same host, another port."""
    server = start_server("127.0.0.1")
    try:
        yield server
    finally:
        server.clear()
        server.stop()


@pytest.mark.parametrize("workers", ["0", "2"])
def test_index_child_on_another_host_gets_no_credentials(
    httpserver: HTTPServer, other_host: HTTPServer, workers: str
) -> None:
    """The bearer token and the cookie reach the target, not the child on 127.0.0.2 — in the
    main process and in worker processes alike."""
    child = other_host.url_for("/child.xml")
    serve_xml(httpserver, "/index.xml", index(httpserver.url_for("/local.xml"), child))
    serve_xml(httpserver, "/local.xml", urlset("https://example.com/a"))
    serve_xml(other_host, "/child.xml", urlset("https://example.com/b"))
    proc = run(
        "urls", httpserver.url_for("/index.xml"), "--follow-cross-host", "--workers", workers,
        *SECRET_HEADERS,
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.split()) == ["https://example.com/a", "https://example.com/b"]
    assert sorted(seen(httpserver)) == [
        ("GET", "/index.xml", TOKEN, COOKIE),
        ("GET", "/local.xml", TOKEN, COOKIE),
    ]
    assert seen(other_host) == [("GET", "/child.xml", None, None)]


def test_another_port_is_another_origin(httpserver: HTTPServer, other_port: HTTPServer) -> None:
    serve_xml(httpserver, "/index.xml", index(other_port.url_for("/child.xml")))
    serve_xml(other_port, "/child.xml", urlset("https://example.com/b"))
    proc = run("urls", httpserver.url_for("/index.xml"), "--follow-cross-host", *SECRET_HEADERS)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["https://example.com/b"]
    assert seen(httpserver) == [("GET", "/index.xml", TOKEN, COOKIE)]
    assert seen(other_port) == [("GET", "/child.xml", None, None)]


def test_a_child_on_another_port_is_not_followed_unasked(httpserver: HTTPServer, other_port: HTTPServer) -> None:
    """Found from outside: an index could send the tool to any port of its host (a public
    index, the site's :6379) while children on other hosts wait for --follow-cross-host."""
    serve_xml(httpserver, "/index.xml", index(other_port.url_for("/child.xml"), httpserver.url_for("/own.xml")))
    serve_xml(httpserver, "/own.xml", urlset("https://example.com/own"))
    serve_xml(other_port, "/child.xml", urlset("https://example.com/b"))
    proc = run("urls", httpserver.url_for("/index.xml"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["https://example.com/own"]
    assert seen(other_port) == []
    assert "1 file not fetched: on another host or port than its index (--follow-cross-host)" in proc.stderr


def test_redirect_to_another_origin_drops_the_headers(
    httpserver: HTTPServer, other_host: HTTPServer
) -> None:
    """A same-origin redirect keeps them; the hop to 127.0.0.2 goes without them."""
    httpserver.expect_request("/old.xml").respond_with_data(
        "", 301, headers={"Location": "/sitemap.xml"}
    )
    httpserver.expect_request("/sitemap.xml").respond_with_data(
        "", 302, headers={"Location": other_host.url_for("/moved.xml")}
    )
    serve_xml(other_host, "/moved.xml", urlset("https://example.com/moved"))
    proc = run("urls", httpserver.url_for("/old.xml"), *SECRET_HEADERS)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["https://example.com/moved"]
    assert seen(httpserver) == [
        ("GET", "/old.xml", TOKEN, COOKIE),
        ("GET", "/sitemap.xml", TOKEN, COOKIE),
    ]
    assert seen(other_host) == [("GET", "/moved.xml", None, None)]


def test_header_all_hosts_sends_them_everywhere_with_a_warning(
    httpserver: HTTPServer, other_host: HTTPServer
) -> None:
    serve_xml(httpserver, "/index.xml", index(other_host.url_for("/child.xml")))
    serve_xml(other_host, "/child.xml", urlset("https://example.com/b"))
    proc = run(
        "urls", httpserver.url_for("/index.xml"), "--follow-cross-host", "--header-all-hosts",
        *SECRET_HEADERS,
    )
    assert proc.returncode == 0, proc.stderr
    assert seen(httpserver) == [("GET", "/index.xml", TOKEN, COOKIE)]
    assert seen(other_host) == [("GET", "/child.xml", TOKEN, COOKIE)]
    assert "warning" in proc.stderr and "--header-all-hosts" in proc.stderr
    # without -H there is nothing to warn about
    quiet = run("urls", httpserver.url_for("/index.xml"), "--header-all-hosts")
    assert quiet.returncode == 0 and "--header-all-hosts" not in quiet.stderr


def test_deep_checks_send_the_headers_to_the_target_origin_only(
    httpserver: HTTPServer, other_host: HTTPServer
) -> None:
    """--deep fetches through the same fetcher: the page on the target's origin gets the
    headers, the page on 127.0.0.2 does not (nor does the redirect hop that leads there)."""
    here = httpserver.url_for("/page")
    there = other_host.url_for("/page")
    hop = httpserver.url_for("/hop")
    serve_xml(httpserver, "/sitemap.xml", urlset(here, there, hop))
    httpserver.expect_request("/robots.txt").respond_with_data("", 404)
    httpserver.expect_request("/page").respond_with_data("ok", content_type="text/plain")
    httpserver.expect_request("/hop").respond_with_data(
        "", 301, headers={"Location": other_host.url_for("/landed")}
    )
    other_host.expect_request("/page").respond_with_data("ok", content_type="text/plain")
    other_host.expect_request("/landed").respond_with_data("ok", content_type="text/plain")
    other_host.expect_request("/robots.txt").respond_with_data("", 404)
    proc = run(
        "validate", httpserver.url_for("/sitemap.xml"), "--deep", "--rate", "0",
        "--select", "deep-status-4xx", *SECRET_HEADERS,
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(seen(httpserver)) == [
        ("GET", "/robots.txt", TOKEN, COOKIE),  # the target's own origin (issue 16 §2), once: the
        # deep checks, which obey it, read the exploration's answer (a 404) from the store
        ("GET", "/sitemap.xml", TOKEN, COOKIE),
        ("HEAD", "/hop", TOKEN, COOKIE),
        ("HEAD", "/page", TOKEN, COOKIE),
    ]
    assert sorted(seen(other_host)) == [("GET", "/robots.txt", None, None), ("HEAD", "/landed", None, None),
                                        ("HEAD", "/page", None, None)]


def test_local_target_sends_the_headers_nowhere_and_says_so(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    """A local file has no origin: its URLs are all someone else's."""
    httpserver.expect_request("/page").respond_with_data("ok", content_type="text/plain")
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(urlset(httpserver.url_for("/page")))
    proc = run(
        "validate", str(sitemap), "--deep", "--rate", "0", "--allow-private",
        "--select", "deep-status-4xx", *SECRET_HEADERS,
    )
    assert proc.returncode == 0, proc.stderr
    assert seen(httpserver) == [("GET", "/robots.txt", None, None), ("HEAD", "/page", None, None)]
    assert "warning" in proc.stderr and "local" in proc.stderr


def test_help_says_where_the_headers_go() -> None:
    for cmd in ("urls", "stats", "discover", "validate", "explore"):
        out = " ".join(run(cmd, "--help").stdout.split())
        assert "--header-all-hosts" in out, cmd
        assert "origin" in out, cmd


def test_origin_is_scheme_host_and_port() -> None:
    from sitemap_tui.engine.netpolicy import origin_of

    assert origin_of("https://Example.COM/a?b") == ("https", "example.com", 443)
    assert origin_of("https://example.com:443/") == origin_of("https://example.com/")
    assert origin_of("http://example.com/") != origin_of("https://example.com/")
    assert origin_of("http://example.com:8080/") != origin_of("http://example.com/")
    assert origin_of("http://bücher.example/") == ("http", "xn--bcher-kva.example", 80)
    assert origin_of("http://[::1]:8000/") == ("http", "::1", 8000)
    for nothing in ("file:///tmp/s.xml", "", None, "not a url", "ftp://example.com/"):
        assert origin_of(nothing) is None


async def test_fetcher_header_policy(httpserver: HTTPServer, other_port: HTTPServer) -> None:
    """In process: -H headers (a custom User-Agent included) only on the target's origin; our
    Accept-Encoding everywhere, whatever -H says."""
    from sitemap_tui.engine.fetch import FetchConfig, Fetcher

    httpserver.expect_request("/a").respond_with_data("a")
    other_port.expect_request("/b").respond_with_data("b")
    config = FetchConfig(
        target=httpserver.url_for("/"),
        headers={"User-Agent": "mine/1", "Authorization": TOKEN, "Accept-Encoding": "br"},
        retries=0,
    )
    async with Fetcher(config) as fetcher:
        for url in (httpserver.url_for("/a"), other_port.url_for("/b")):
            assert (await fetcher.fetch(url, lambda chunk: None)).ok
    (here, _), = httpserver.log
    (there, _), = other_port.log
    assert (here.headers["User-Agent"], here.headers["Authorization"]) == ("mine/1", TOKEN)
    assert there.headers["User-Agent"].startswith("sitemap-tui/")
    assert "Authorization" not in there.headers
    assert here.headers["Accept-Encoding"] == there.headers["Accept-Encoding"] == "gzip, deflate"


def test_user_and_password_in_the_target_url_go_as_basic_auth_to_its_origin_only(
    httpserver: HTTPServer, other_host: HTTPServer, tmp_path: Path
) -> None:
    """http://alice:hunter2@host/... was shown in every finding, written to the JSON and stored
    in the history, and the password went on the first request only (a same-origin child got
    none): now it is an Authorization header, scoped as -H is, and nowhere else."""
    target = httpserver.url_for("/index.xml").replace("http://", "http://alice:hunter2@")
    serve_xml(httpserver, "/index.xml", index(httpserver.url_for("/local.xml"), other_host.url_for("/child.xml")))
    serve_xml(httpserver, "/local.xml", urlset("https://example.com/a"))
    serve_xml(other_host, "/child.xml", urlset("https://example.com/b"))
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = cli_process.run(
        [sys.executable, "-m", "sitemap_tui", "validate", target, "--follow-cross-host", "--format", "json"],
        capture_output=True, text=True, timeout=120, env=env,
    )
    assert proc.returncode in (0, 1), proc.stderr
    basic = "Basic " + base64.b64encode(b"alice:hunter2").decode()
    files = {r for r in seen(httpserver) if r[1] != "/robots.txt"}  # (validate asks for it too)
    assert files == {("GET", "/index.xml", basic, None), ("GET", "/local.xml", basic, None)}
    assert ("GET", "/child.xml", None, None) in seen(other_host)
    assert all(auth is None for _, _, auth, _ in seen(other_host))
    assert "hunter2" not in proc.stdout and "alice" not in proc.stdout
    assert "sent as Basic authentication, to the target's origin only" in proc.stderr
    assert "hunter2" not in proc.stderr
    stored = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert stored, "the history was not written"
    assert not any(b"hunter2" in p.read_bytes() for p in stored)


def test_the_urls_password_is_in_no_report_of_diff_or_audit(httpserver: HTTPServer, tmp_path: Path) -> None:
    """Found from outside: `diff` printed both sides as typed (text, JSON "source", the CSV and
    GitHub formats' stderr), `audit`'s text summary "Audit of http://alice:hunter2@...", and a
    target that is no valid URL its password in the one-line error. Every one of them is
    written without it; the request still carries it."""
    serve_xml(httpserver, "/sitemap.xml", urlset(httpserver.url_for("/a")))
    httpserver.expect_request("/a").respond_with_data("<html><head><title>a</title></head></html>",
                                                      content_type="text/html")
    target = httpserver.url_for("/sitemap.xml").replace("http://", "http://alice:hunter2@")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    runs = [["diff", target, target], ["diff", target, target, "--format", "json"],
            ["diff", target, target, "--format", "github"], ["diff", target],
            ["audit", target, "--rate", "0"], ["stats", "http://alice:hunter2@[::1/"]]
    outs = []
    for args in runs:
        proc = cli_process.run([sys.executable, "-m", "sitemap_tui", *args], capture_output=True, text=True,
                               timeout=120, env=env)
        assert proc.returncode in (0, 1, 2) and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert "hunter2" not in proc.stdout + proc.stderr, (args, proc.stdout, proc.stderr)
        outs.append(proc.stdout + proc.stderr)
    assert f"--- OLD {httpserver.url_for('/sitemap.xml')} (explored now)" in outs[0], outs[0]
    assert outs[4].startswith(f"Audit of {httpserver.url_for('/sitemap.xml')}: "), outs[4]
    assert "cannot explore 'http://[::1/'" in outs[5], outs[5]
    basic = "Basic " + base64.b64encode(b"alice:hunter2").decode()
    assert {auth for _, path, auth, _ in seen(httpserver) if path == "/sitemap.xml"} == {basic}


def test_an_authorization_header_wins_over_the_urls_password(httpserver: HTTPServer) -> None:
    serve_xml(httpserver, "/sitemap.xml", urlset("https://example.com/a"))
    target = httpserver.url_for("/sitemap.xml").replace("http://", "http://alice:hunter2@")
    proc = run("urls", target, "-H", f"Authorization: {TOKEN}")
    assert proc.returncode == 0, proc.stderr
    assert seen(httpserver) == [("GET", "/sitemap.xml", TOKEN, None)]
    assert "user name and password in the target URL are not used" in proc.stderr


@pytest.mark.parametrize("command", ["urls", "stats", "validate"])
def test_a_redirect_to_another_host_is_said_with_the_headers_left_behind(
    httpserver: HTTPServer, other_host: HTTPServer, command: str
) -> None:
    """Found from outside: urls and stats (which report no findings) said nothing of a target
    read from another host, nor that the -H headers stayed behind; stats named the first URL.
    validate reported fetch-redirected, but not the headers left behind (found from outside)."""
    httpserver.expect_request("/old.xml").respond_with_data("", 301, headers={"Location": "/same.xml"})
    httpserver.expect_request("/same.xml").respond_with_data(
        "", 302, headers={"Location": other_host.url_for("/moved.xml")})
    serve_xml(other_host, "/moved.xml", urlset("https://example.com/moved"))
    proc = run(command, httpserver.url_for("/old.xml"), *SECRET_HEADERS)
    assert proc.returncode == (1 if command == "validate" else 0), proc.stderr  # (validate: its findings)
    assert (f"sitemap-tui: {httpserver.url_for('/old.xml')} redirects to {other_host.url_for('/moved.xml')}, "
            "another host: read from there; the headers given for the target (-H, a URL's user and password) "
            "were not sent there") in proc.stderr.splitlines()


def test_a_redirect_on_the_same_origin_is_not_a_note(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/old.xml").respond_with_data("", 301, headers={"Location": "/sitemap.xml"})
    serve_xml(httpserver, "/sitemap.xml", urlset("https://example.com/a"))
    proc = run("urls", httpserver.url_for("/old.xml"), *SECRET_HEADERS)
    assert proc.returncode == 0 and "redirects to" not in proc.stderr, proc.stderr


def test_a_local_file_is_no_redirect(tmp_path: Path) -> None:
    """Found from outside: every local file was said to redirect to itself, "another host"."""
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(urlset("https://example.com/a"))
    for command in ("urls", "stats"):
        proc = run(command, str(sitemap), "--no-history")
        assert proc.returncode == 0 and "redirects to" not in proc.stderr, proc.stderr


def test_one_server_is_one_host_and_port_with_the_defaults_left_out() -> None:
    from sitemap_tui.engine.urlpolicy import same_server, server_of

    assert same_server("http://example.com/a", "https://example.com/b")  # robots.txt on http, sitemaps on https
    assert same_server("https://example.com:443/a", "https://EXAMPLE.com/b")
    assert not same_server("https://example.com/a", "https://example.com:6379/b")
    assert not same_server("http://example.com:8080/a", "http://example.com/b")
    assert server_of("http://example.com:8080/a") == "example.com:8080" and server_of("mailto:x@y") is None
    # found from outside: IPv6 hosts without brackets made [::1]:8873 and [::1:8873] one server
    assert not same_server("http://[::1]:8873/a", "http://[::1:8873]/b")
    assert same_server("http://[::1]/a", "https://[::1]/b") and server_of("http://[::1]:8873/") == "[::1]:8873"


@pytest.mark.parametrize("value", ["Authorization: Bearer SECR\u00c9T1", "Authorization: Bearer SECR\x01T1",
                                   "Bearer SECRET1", "X-Api-Key=pk_SECRET:sk_SECRET", "Authorization Basic SECRET:pw"])
def test_a_refused_header_is_named_never_echoed(value: str) -> None:
    """Found from outside: a pasted non-ASCII or control character, or a missing colon, printed
    the whole value, the bearer token in the CI log. Near miss: a good header runs."""
    import contextlib
    import io

    from sitemap_tui import cli

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            code = cli.main(["urls", "https://example.invalid/s.xml", "-H", value])
        except SystemExit as exc:  # (argparse's own refusals)
            code = exc.code
    assert code == 2
    assert "SECR" not in err.getvalue() and len(err.getvalue().strip().splitlines()) <= 3, err.getvalue()
    assert ("'Authorization'" in err.getvalue()) == value.startswith("Authorization:"), err.getvalue()


@pytest.mark.parametrize("workers", ["0", "2"])
def test_credentials_a_document_writes_into_a_url_are_not_sent(
    httpserver: HTTPServer, other_host: HTTPServer, workers: str
) -> None:
    """Found from outside: an index's child written ``http://doc:secret@host/child.xml`` was
    fetched with ``Authorization: Basic`` of the document's choosing, on another host too, and
    on the target's origin it replaced the user's own -H Authorization. The user's header still
    reaches its origin; near miss, the same child without user info is fetched alike."""
    base, other = httpserver.url_for("/"), other_host.url_for("/")
    doc = "http://doc:secret@"
    serve_xml(httpserver, "/index.xml", index(base.replace("http://", doc) + "local.xml",
                                              other.replace("http://", doc) + "child.xml"))
    serve_xml(httpserver, "/local.xml", urlset("https://example.com/a"))
    serve_xml(other_host, "/child.xml", urlset("https://example.com/b"))
    proc = run("urls", httpserver.url_for("/index.xml"), "--follow-cross-host", "--workers", workers,
               *SECRET_HEADERS)
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.split()) == ["https://example.com/a", "https://example.com/b"]
    assert sorted(seen(httpserver)) == [("GET", "/index.xml", TOKEN, COOKIE), ("GET", "/local.xml", TOKEN, COOKIE)]
    assert seen(other_host) == [("GET", "/child.xml", None, None)]
    assert "secret" not in str(seen(httpserver) + seen(other_host))

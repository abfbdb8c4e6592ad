"""`discover` reads the first bytes of each sitemap it took from a list (robots.txt's Sitemap:
lines, the home page's links): `found` said "a sitemap is there" (docs/json.md) of a listed URL
that answered 404, or was an HTML page, or an address it may not reach."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator

import cli_process
from pytest_httpserver import HTTPServer

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return cli_process.run([sys.executable, "-m", "sitemap_tui", *args], capture_output=True, text=True,
                          timeout=120)


def _site(httpserver: HTTPServer, lines: list[str]) -> None:
    robots = "User-agent: *\nDisallow:\n" + "".join(f"Sitemap: {u}\n" for u in lines)
    httpserver.expect_request("/robots.txt").respond_with_data(robots, content_type="text/plain")
    urlset = f"<urlset {NS}><url><loc>{httpserver.url_for('/p')}</loc></url></urlset>"
    httpserver.expect_request(re.compile(r"/ok.*\.xml")).respond_with_data(urlset, content_type="application/xml")
    httpserver.expect_request("/page.html").respond_with_data("<!doctype html><html><body>hi</body></html>",
                                                              content_type="text/html")
    httpserver.expect_request("/").respond_with_data("<html><head></head><body></body></html>",
                                                     content_type="text/html")


@contextlib.contextmanager
def silent_host() -> Iterator[tuple[int, list[socket.socket]]]:
    """A host on 127.0.0.1 that takes every connection and never answers: (its port, the
    connections it holds)."""
    held: list[socket.socket] = []
    listener = socket.create_server(("127.0.0.1", 0))

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)  # read nothing, answer nothing

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield listener.getsockname()[1], held
    finally:
        listener.close()
        for conn in held:
            conn.close()


def test_a_listed_sitemap_that_is_not_there_is_not_found(threaded_httpserver: HTTPServer) -> None:
    httpserver = threaded_httpserver
    _site(httpserver, [httpserver.url_for("/ok.xml"), httpserver.url_for("/missing.xml"),
                       httpserver.url_for("/page.html"), "http://10.255.255.1/private.xml"])
    proc = run("discover", httpserver.url_for("/"))
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[2]: line for line in proc.stdout.splitlines()[1:]}
    assert rows[httpserver.url_for("/ok.xml")].startswith("found  robots ")
    assert rows[httpserver.url_for("/ok.xml")].endswith("(robots.txt line 3; urlset)")
    assert rows[httpserver.url_for("/missing.xml")].startswith("no     robots ")
    assert rows[httpserver.url_for("/missing.xml")].endswith("(robots.txt line 4; HTTP 404 Not Found)")
    assert rows[httpserver.url_for("/page.html")].endswith("(robots.txt line 5; not a sitemap (html))")
    private = rows["http://10.255.255.1/private.xml"]
    assert private.startswith("no ") and "private address" in private
    assert (f"sitemap-tui: 3 listed sitemaps not found, first {httpserver.url_for('/missing.xml')}"
            " (HTTP 404 Not Found)") in proc.stderr

    data = json.loads(run("discover", httpserver.url_for("/"), "--json").stdout)
    found = {s["url"]: s["found"] for s in data["sitemaps"] if s["found_by"] == "robots"}
    assert found == {httpserver.url_for("/ok.xml"): True, httpserver.url_for("/missing.xml"): False,
                     httpserver.url_for("/page.html"): False, "http://10.255.255.1/private.xml": False}

    strict = run("discover", httpserver.url_for("/"), "--strict")
    assert strict.returncode == 1 and "3 listed sitemaps not found" in strict.stderr


def test_all_there_passes_strict_and_the_checks_stop_at_their_cap(threaded_httpserver: HTTPServer) -> None:
    """More checks going than the fetcher's pool has connections: each one answers (before the
    fix of fetch.py's connection semaphore, all but the first 8 failed with PoolTimeout)."""
    httpserver = threaded_httpserver
    _site(httpserver, [httpserver.url_for(f"/ok{i}.xml") for i in range(103)])
    proc = run("discover", httpserver.url_for("/"), "--strict")
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if " robots " in line]
    assert len(rows) == 103
    # the first 100 were read and found; the 3 past them are listed, not said to be found (they
    # were not checked: found from outside, one that answered 404 read "found")
    assert all(r.startswith("found ") and r.endswith("; urlset)") for r in rows[:100])
    assert all(r.startswith("listed ") for r in rows[100:])
    assert rows[-1].endswith(f"(robots.txt line {103 + 2})")
    assert "sitemap-tui: 3 listed sitemaps not checked: discover reads the first 100" in proc.stderr
    assert "not found" not in proc.stderr
    # each checked sitemap was asked once, and only its first bytes were wanted
    asked = [r for r, _ in httpserver.log if r.path.startswith("/ok")]
    assert len(asked) == 100


def test_a_host_that_stalls_is_not_asked_for_every_listed_sitemap(threaded_httpserver: HTTPServer) -> None:
    """Each check of a host that takes the connection and never answers waits out the deadline:
    100 listed sitemaps there cost 25 deadlines (--per-host 4). The first stall ends the rest."""
    with silent_host() as (port, held):
        httpserver = threaded_httpserver
        _site(httpserver, [f"http://127.0.0.1:{port}/s{i}.xml" for i in range(12)])
        proc = run("discover", httpserver.url_for("/"), "--timeout", "2", "--retries", "0")
        assert proc.returncode == 0, proc.stderr
        rows = [line for line in proc.stdout.splitlines() if " robots " in line]
        assert len(rows) == 12 and all(r.startswith("no ") for r in rows)
        skipped = [r for r in rows if r.endswith("; not checked: its host answered an earlier check with nothing)")]
        assert len(skipped) >= 8, rows  # at most --per-host (4) were asked
        assert len(held) <= 4


def test_every_sitemap_line_and_link_is_said_and_links_follow_the_base(threaded_httpserver: HTTPServer) -> None:
    """Found from outside: robots.txt lines that repeat an earlier one or cannot be fetched were
    left out of discover's rows ("6 Sitemap: lines" for 8), a <link rel=sitemap> to ftp: read as
    "no <link rel=sitemap> in the home page", and `<base href="/sub/">` was not obeyed (the
    link's sitemap fetched at the wrong path, a 404)."""
    httpserver = threaded_httpserver
    ok = httpserver.url_for("/ok.xml")
    robots = (f"Sitemap: {ok}\nSitemap: ftp://127.0.0.1/s.xml\nSitemap:\nSitemap: {ok}\n"
              "Sitemap: https://exa mple.com/s.xml\n")
    httpserver.expect_request("/robots.txt").respond_with_data(robots, content_type="text/plain")
    urlset = f"<urlset {NS}><url><loc>{httpserver.url_for('/p')}</loc></url></urlset>"
    httpserver.expect_request(re.compile(r"/(sub/)?ok.*\.xml")).respond_with_data(urlset, content_type="application/xml")
    home = ('<html><head><base href="/sub/"><link rel="sitemap" href="ok-linked.xml">'
            '<link rel="sitemap" href="ftp://127.0.0.1/l.xml"></head><body></body></html>')
    httpserver.expect_request("/").respond_with_data(home, content_type="text/html")
    proc = run("discover", httpserver.url_for("/"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].endswith("(5 Sitemap: lines)"), lines[0]
    robots_rows = [" ".join(line.split()) for line in lines if line.split()[1] == "robots"]
    assert robots_rows == [
        f"found robots {ok} (robots.txt line 1; urlset)",
        "no robots ftp://127.0.0.1/s.xml (robots.txt line 2: scheme 'ftp' is not http(s))",
        "no robots (empty) (robots.txt line 3: empty URL)",
        f"found robots {ok} (robots.txt line 4: repeats an earlier line; urlset)",
        "no robots https://exa mple.com/s.xml (robots.txt line 5: contains whitespace)"], robots_rows
    links = [" ".join(line.split()) for line in lines if line.split()[1] == "html-link"]
    assert links == [
        f"found html-link {httpserver.url_for('/sub/ok-linked.xml')} (<link rel=sitemap> in the home page; urlset)",
        "no html-link ftp://127.0.0.1/l.xml (<link rel=sitemap> in the home page: scheme 'ftp' is not http(s))"], links
    data = json.loads(run("discover", httpserver.url_for("/"), "--json").stdout)
    assert [s["url"] for s in data["sitemaps"]][2] == ""


def test_a_probed_path_that_redirects_says_where_it_led(threaded_httpserver: HTTPServer) -> None:
    """Found from outside: /sitemap.xml answering 301 to /en/sitemap-en.xml read as a sitemap at
    /sitemap.xml, beside the same file found again by the home page's link."""
    httpserver = threaded_httpserver
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    httpserver.expect_request("/sitemap.xml").respond_with_data(
        "", status=301, headers={"Location": httpserver.url_for("/en/sitemap-en.xml")})
    urlset = f"<urlset {NS}><url><loc>{httpserver.url_for('/p')}</loc></url></urlset>"
    httpserver.expect_request("/en/sitemap-en.xml").respond_with_data(urlset, content_type="application/xml")
    httpserver.expect_request(re.compile(r"/.+")).respond_with_data("", status=404)
    httpserver.expect_request("/").respond_with_data("<html></html>", content_type="text/html")
    proc = run("discover", httpserver.url_for("/"))
    row = next(line for line in proc.stdout.splitlines() if line.startswith("found "))
    assert " ".join(row.split()) == (f"found probe {httpserver.url_for('/sitemap.xml')} (probed: urlset at"
                                     f" {httpserver.url_for('/en/sitemap-en.xml')} (redirected))"), proc.stdout
    assert "(probed: urlset)" not in proc.stdout


def test_a_robots_txt_of_unusable_lines_alone_probes_and_says_so(threaded_httpserver: HTTPServer) -> None:
    """Found by a review: with robots.txt's only line `Sitemap: ftp://...`, discover probed the
    common paths (and found one) yet said "common paths not probed: robots.txt lists sitemaps";
    `urls` said "no Sitemap: lines" where discover listed one. Also the first <base> with an
    href counts, an empty one too (the page's own URL), as a browser reads it."""
    httpserver = threaded_httpserver
    httpserver.expect_request("/robots.txt").respond_with_data("Sitemap: ftp://127.0.0.1/s.xml\n",
                                                               content_type="text/plain")
    httpserver.expect_request("/").respond_with_data(
        '<html><head><base href=""><base href="/sub/"><link rel="sitemap" href="linked.xml"></head></html>',
        content_type="text/html")
    urlset = f"<urlset {NS}><url><loc>{httpserver.url_for('/p')}</loc></url></urlset>"
    httpserver.expect_request("/linked.xml").respond_with_data(urlset, content_type="application/xml")
    httpserver.expect_request(re.compile(r"/.+")).respond_with_data("", status=404)
    proc = run("discover", httpserver.url_for("/"))
    assert "common paths not probed" not in proc.stderr, proc.stderr
    assert sum(line.split()[1] == "probe" for line in proc.stdout.splitlines()) == 5, proc.stdout
    assert f"found  html-link  {httpserver.url_for('/linked.xml')} " in proc.stdout, proc.stdout
    httpserver.clear()
    httpserver.expect_request("/robots.txt").respond_with_data("Sitemap: ftp://127.0.0.1/s.xml\n",
                                                               content_type="text/plain")
    httpserver.expect_request(re.compile(r"/.*")).respond_with_data("", status=404)
    proc = run("urls", httpserver.url_for("/"), "--no-history")
    assert proc.returncode == 2 and "tried robots.txt (1 Sitemap: line, none that may be fetched)" in proc.stderr, \
        proc.stderr


def test_the_home_page_is_not_fetched_where_robots_txt_disallows_it(httpserver: HTTPServer) -> None:
    """Found from outside: with `Disallow: /` for every crawler the home page was fetched all
    the same, for its <link rel=sitemap> (sitemaps are read whatever robots.txt says: it is
    what they are for; a page is not)."""
    link = f'<html><head><link rel="sitemap" href="{httpserver.url_for("/linked.xml")}"></head></html>'
    urlset = f"<urlset {NS}><url><loc>{httpserver.url_for('/p')}</loc></url></urlset>"
    httpserver.expect_request("/").respond_with_data(link, content_type="text/html")
    httpserver.expect_request("/linked.xml").respond_with_data(urlset, content_type="application/xml")
    for rules, fetched in (("Disallow: /\n", False), ("Disallow: /private/\n", True)):  # (near miss)
        httpserver.expect_oneshot_request("/robots.txt").respond_with_data(f"User-agent: *\n{rules}",
                                                                          content_type="text/plain")
        httpserver.clear_log()
        proc = run("discover", httpserver.url_for("/"))
        assert ("/" in [r.path for r, _ in httpserver.log]) is fetched, rules
        assert (httpserver.url_for("/linked.xml") in proc.stdout) is fetched, proc.stdout
        said = "home page: not fetched: robots.txt disallows it for sitemap-tui" in proc.stdout + proc.stderr
        assert said is not fetched, proc.stdout


def test_a_home_page_link_to_another_host_is_listed_not_fetched(httpserver: HTTPServer) -> None:
    """Found from outside: a <link rel=sitemap> on another port (or one the home page's
    redirect or <base href> led to) was fetched and explored, where an index's child there is
    listed and not fetched. It is now the same, and said. Near miss: --follow-cross-host."""
    from pytest_httpserver import HTTPServer as Server

    other = Server(host="127.0.0.1", port=0)
    other.start()
    try:
        urlset = f"<urlset {NS}><url><loc>{other.url_for('/p')}</loc></url></urlset>"
        other.expect_request("/linked.xml").respond_with_data(urlset, content_type="application/xml")
        link = f'<html><head><link rel="sitemap" href="{other.url_for("/linked.xml")}"></head></html>'
        httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
        httpserver.expect_request("/").respond_with_data(link, content_type="text/html")
        httpserver.expect_request(re.compile(r"/.+")).respond_with_data("", status=404)
        proc = run("urls", httpserver.url_for("/"), "--no-history")
        assert proc.returncode == 0 and proc.stdout == "" and not other.log, proc.stderr
        assert ("1 sitemap the home page links to not fetched: on another host or port than the page, first"
                f" {other.url_for('/linked.xml')} (--follow-cross-host)") in proc.stderr, proc.stderr
        proc = run("discover", httpserver.url_for("/"))
        assert "on another host or port (not followed; use --follow-cross-host)" in proc.stdout, proc.stdout
        assert not other.log  # not even its first bytes checked
        # robots.txt redirected to the other port: read there, and said, as urls and stats say it
        httpserver.clear()
        httpserver.expect_request("/robots.txt").respond_with_data("", status=301,
                                                                   headers={"Location": other.url_for("/robots.txt")})
        other.expect_request("/robots.txt").respond_with_data(f"Sitemap: {other.url_for('/linked.xml')}\n",
                                                             content_type="text/plain")
        httpserver.expect_request(re.compile(r"/.*")).respond_with_data("", status=404)
        proc = run("discover", httpserver.url_for("/"), "-H", "Authorization: Bearer T")
        assert (f"{httpserver.url_for('/robots.txt')} redirects to {other.url_for('/robots.txt')}, another origin:"
                " read from there; the headers given for the target") in proc.stderr, proc.stderr
        proc = run("urls", httpserver.url_for("/"), "--no-history", "--follow-cross-host")
        assert proc.stdout.split() == [other.url_for("/p")], proc.stderr
        # near miss: the home page redirected to another host (example.com to www.example.com)
        # links files there, on the host it was read from: followed
        httpserver.clear()
        www = f"http://localhost:{httpserver.port}"
        httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
        httpserver.expect_request("/").respond_with_data("", status=301, headers={"Location": f"{www}/home"})
        httpserver.expect_request("/home").respond_with_data('<link rel="sitemap" href="/sm.xml">',
                                                             content_type="text/html")
        httpserver.expect_request("/sm.xml").respond_with_data(
            f"<urlset {NS}><url><loc>{www}/p</loc></url></urlset>", content_type="application/xml")
        httpserver.expect_request(re.compile(r"/.+")).respond_with_data("", status=404)
        proc = run("urls", httpserver.url_for("/"), "--no-history")
        assert proc.stdout.split() == [f"{www}/p"], proc.stderr
    finally:
        other.clear()
        other.stop()


def test_a_host_that_answers_nothing_is_not_asked_path_after_path() -> None:
    """Found from outside: a server that took each request and never answered cost robots.txt,
    five probes and the home page one --timeout each (210 s with the defaults), then "no
    sitemap found". After robots.txt and one probe gave nothing, the other paths are not asked
    (the home page still is: its link may be the one way left), and that is said."""
    with silent_host() as (port, held):
        proc = run("discover", f"http://127.0.0.1:{port}/", "--timeout", "1", "--retries", "0")
        assert proc.returncode == 2, proc.stderr
        assert ("/sitemap.xml, <link rel=sitemap> in the home page; the other common paths were not asked: the"
                " host answered neither robots.txt nor /sitemap.xml within --timeout 1 s") in proc.stderr, proc.stderr
        assert len(held) == 3, held  # robots.txt, /sitemap.xml and the home page, nothing more


def test_a_robots_txt_that_is_an_html_page_is_said(httpserver: HTTPServer) -> None:
    """Found from outside: a site's fallback page served for /robots.txt read as an empty
    robots.txt (no rules, no Sitemap: line), unsaid. Near miss: a plain-text one is not said."""
    page = "<!doctype html><html><head><title>App</title></head><body>Not found</body></html>"
    urlset = f"<urlset {NS}><url><loc>{httpserver.url_for('/p')}</loc></url></urlset>"
    httpserver.expect_request("/sitemap.xml").respond_with_data(urlset, content_type="application/xml")
    plain = "User-agent: *\nDisallow:\n"
    # near misses: a plain robots.txt, and one labelled text/html (found from outside: called a
    # fallback page); an HTML page labelled text/plain is one all the same
    for body, kind, said in ((page, "text/html", True), (page, "text/plain", True), (plain, "text/plain", False),
                             (plain, "text/html; charset=utf-8", False)):
        httpserver.expect_oneshot_request("/robots.txt").respond_with_data(body, content_type=kind)
        proc = run("urls", httpserver.url_for("/"), "--no-history")
        assert proc.returncode == 0, proc.stderr
        assert ("robots.txt: the server sent an HTML page, not robots.txt text" in proc.stderr) is said, proc.stderr

"""``sitemap-tui audit`` (issue 22 section 1) against a real site on 127.0.0.1: a page for every
verdict, robots.txt groups for several crawlers, the formats, --fail-if, and an audit stopped by
SIGTERM then resumed (no URL fetched twice)."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from sitemap_tui import cli
from sitemap_tui.engine.audit_page import (
    head_facts,
    noindex_directive,
    page_key,
    verdict,
    x_robots_directives,
)

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


@pytest.fixture()
def site(threaded_httpserver: HTTPServer) -> HTTPServer:
    """A threaded server (tests/conftest.py): the slow page must not hold the others up."""
    return threaded_httpserver


def html(head: str = "", body: str = "<p>content</p>") -> str:
    return f"<!DOCTYPE html><html><head><title>Page</title>{head}</head><body>{body}</body></html>"


def sitemap(server: HTTPServer, paths: list[str], name: str = "/sitemap.xml") -> str:
    base = server.url_for("").rstrip("/")
    body = f'<?xml version="1.0"?>\n<urlset {NS}>' + "".join(
        f"<url><loc>{base}{p}</loc><lastmod>2024-01-01</lastmod></url>" for p in paths) + "</urlset>\n"
    server.expect_request(name).respond_with_data(body, content_type="application/xml")
    return server.url_for(name)


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([*args])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def audit(target: str, *args: str) -> tuple[int, str, str]:
    return run("audit", target, "--workers", "0", "--rate", "0", "--no-history", *args)


def records(out: str) -> dict[str, dict]:
    rows = [json.loads(line) for line in out.splitlines()]
    return {r["loc"].rsplit("/", 1)[-1] or "/": r for r in rows}


ROBOTS = """User-agent: *
Disallow: /private/

User-agent: Googlebot
Disallow: /nogoogle
Disallow: /private/

User-agent: Bingbot
Disallow: /nobing
"""


def verdict_site(server: HTTPServer) -> str:
    """Every verdict the audit gives, one page each."""
    base = server.url_for("").rstrip("/")
    server.expect_request("/robots.txt").respond_with_data(ROBOTS, content_type="text/plain")
    ok = server.expect_request
    ok("/ok").respond_with_data(html(), content_type="text/html; charset=utf-8",
                                headers={"Last-Modified": "Wed, 01 Jan 2025 00:00:00 GMT"})
    ok("/gone404").respond_with_data("nope", status=404, content_type="text/html")
    ok("/gone410").respond_with_data("gone", status=410, content_type="text/html")
    ok("/broken").respond_with_data("oops", status=500, content_type="text/html")
    ok("/moved").respond_with_data("", status=301, headers={"Location": f"{base}/ok"})
    ok("/loop-a").respond_with_data("", status=302, headers={"Location": f"{base}/loop-b"})
    ok("/loop-b").respond_with_data("", status=302, headers={"Location": f"{base}/loop-a"})
    ok("/meta-noindex").respond_with_data(html('<meta name="robots" content="noindex, follow">'),
                                          content_type="text/html")
    ok("/header-noindex").respond_with_data(html(), content_type="text/html", headers={"X-Robots-Tag": "noindex"})
    ok("/googlebot-noindex").respond_with_data(html('<meta name="googlebot" content="noindex">'),
                                               content_type="text/html")
    ok("/gptbot-noindex").respond_with_data(html(), content_type="text/html",
                                            headers={"X-Robots-Tag": "gptbot: noindex"})
    ok("/canon-link").respond_with_data(html(f'<link rel="canonical" href="{base}/ok">'), content_type="text/html")
    ok("/canon-header").respond_with_data(html(), content_type="text/html",
                                          headers={"Link": f'<{base}/ok>; rel="canonical"'})
    ok("/self-canon").respond_with_data(html(f'<link rel="canonical" href="{base}/self-canon">'),
                                        content_type="text/html")
    ok("/file.pdf").respond_with_data(b"%PDF-1.4", content_type="application/pdf")
    ok("/data").respond_with_data("{}", content_type="application/json")
    ok("/private/page").respond_with_data(html(), content_type="text/html")
    ok("/nogoogle").respond_with_data(html(), content_type="text/html")
    ok("/nobing").respond_with_data(html(), content_type="text/html")

    def slow(_request: Request) -> Response:
        time.sleep(3)
        return Response(html(), content_type="text/html")

    ok("/slow").respond_with_handler(slow)
    # a head longer than the byte cap: its noindex comes after the first 256 KiB
    big = html("<style>" + "x" * (300 * 1024) + '</style><meta name="robots" content="noindex">')
    ok("/huge").respond_with_data(big, content_type="text/html")
    return sitemap(server, [
        "/ok", "/gone404", "/gone410", "/broken", "/moved", "/loop-a", "/meta-noindex", "/header-noindex",
        "/googlebot-noindex", "/gptbot-noindex", "/canon-link", "/canon-header", "/self-canon", "/file.pdf",
        "/data", "/private/page", "/nogoogle", "/nobing", "/slow", "/huge",
    ])


def test_every_verdict_of_a_real_site(site: HTTPServer) -> None:
    target = verdict_site(site)
    code, out, err = audit(target, "--format", "jsonl", "--timeout", "1")
    assert code == 0, err
    r = records(out)
    assert len(r) == 20
    schema = json.loads((Path(__file__).resolve().parents[1] / "docs/schemas/audit-record.schema.json").read_text())
    for rec in r.values():  # the documented shape (docs/json.md), on every verdict
        assert not list(Draft202012Validator(schema).iter_errors(rec)), rec
    assert r["ok"]["indexable"] is True and r["ok"]["reason"] == "indexable" and r["ok"]["status"] == 200
    assert r["ok"]["last_modified"] == "Wed, 01 Jan 2025 00:00:00 GMT" and r["ok"]["lastmod"] == "2024-01-01"
    assert r["ok"]["sitemap"] == target
    assert (r["gone404"]["status"], r["gone404"]["reason"]) == (404, "non-indexable: 404")
    assert (r["gone410"]["status"], r["gone410"]["reason"]) == (410, "non-indexable: 410")
    assert (r["broken"]["status"], r["broken"]["reason"]) == (500, "non-indexable: 500")
    moved = r["moved"]
    assert (moved["status"], moved["redirects"], moved["final_url"]) == (200, 1, site.url_for("/ok"))
    assert moved["reason"] == f"non-indexable: redirect to {site.url_for('/ok')}" and not moved["indexable"]
    assert r["loop-a"]["reason"].startswith("non-indexable: redirect (redirect loop")
    assert r["meta-noindex"]["reason"] == "non-indexable: noindex (noindex)"
    assert r["meta-noindex"]["robots"] == ["noindex", "follow"]
    assert r["header-noindex"]["reason"] == "non-indexable: noindex (noindex)"
    assert r["googlebot-noindex"]["robots"] == ["googlebot: noindex"]
    assert r["googlebot-noindex"]["reason"] == "non-indexable: noindex (googlebot: noindex)"
    # a directive for another crawler is kept, and does not decide Google's indexability
    assert r["gptbot-noindex"]["robots"] == ["gptbot: noindex"] and r["gptbot-noindex"]["indexable"] is True
    assert r["canon-link"]["reason"] == f"non-indexable: canonicalised to {site.url_for('/ok')}"
    assert r["canon-link"]["canonical"] == site.url_for("/ok")
    assert r["canon-header"]["reason"] == f"non-indexable: canonicalised to {site.url_for('/ok')}"
    assert r["self-canon"]["indexable"] is True
    assert r["file.pdf"]["reason"] == "non-indexable: not HTML (application/pdf)"
    assert r["data"]["reason"] == "non-indexable: not HTML (application/json)"
    # robots.txt: ours (the * group) is obeyed, nothing fetched; the crawlers' groups are reported
    private = r["page"]
    assert private["reason"] == "non-indexable: blocked by robots.txt" and private["status"] is None
    # every crawler of the access matrix that falls to the * group too (engine/access.py), and
    # Googlebot's own group; Applebot follows Googlebot's when none names it (Apple's documentation)
    assert private["blocked_for"] == ["sitemap-tui", "Googlebot", "Applebot", "GPTBot", "OAI-SearchBot", "ClaudeBot",
                                      "PerplexityBot", "CCBot", "Google-Extended"]
    assert "not fetched" in private["note"]
    assert r["nogoogle"]["blocked_for"] == ["Googlebot", "Applebot"]
    assert r["nogoogle"]["reason"] == "non-indexable: blocked by robots.txt" and r["nogoogle"]["status"] == 200
    assert r["nobing"]["blocked_for"] == ["Bingbot"] and r["nobing"]["indexable"] is True
    assert r["slow"]["reason"] == "non-indexable: timeout" and r["slow"]["status"] is None
    assert "1 s" in r["slow"]["error"]
    huge = r["huge"]  # the byte cap: the head past 256 KiB is not read, and that is said
    assert huge["indexable"] is True and "256 KiB" in huge["note"]
    # HEAD where headers suffice (a .pdf), no fetch of a disallowed URL, every other page once
    methods = Counter((req.method, req.path) for req, _ in site.log)
    assert methods[("HEAD", "/file.pdf")] == 1 and ("GET", "/file.pdf") not in methods
    assert ("GET", "/private/page") not in methods
    assert methods[("GET", "/ok")] == 2  # itself, and as the end of /moved's redirect


def test_text_summary_groups_and_fail_if(site: HTTPServer) -> None:
    target = verdict_site(site)
    code, out, err = audit(target, "--timeout", "1", "--fail-if", "non_indexable>0", "--fail-if", "server_errors>5")
    assert code == 1
    assert "--fail-if 'non_indexable>0' is met (non_indexable = 15)" in err and "server_errors>5" not in err
    assert out.startswith(f"Audit of {target}: 20 URLs listed, 20 audited, 5 indexable, 15 non-indexable")
    for line in ("Non-indexable URLs in sitemap: 15", "Redirects (3xx): 2", "Client errors (4xx): 2",
                 "Server errors (5xx): 1", "Noindex: 3", "Canonicalised: 2", "Blocked by robots.txt: 2",
                 "Not HTML: 2", "Timeouts: 1", "URLs in multiple sitemaps: 0"):
        assert f"\n{line}\n" in out, line
    assert f"  {site.url_for('/gone404')}  non-indexable: 404\n" in out
    code, _, err = audit(target, "--timeout", "1", "--fail-if", "server_errors>5", "--fail-if", "timeouts>=2")
    assert code == 0, err
    code, _, err = audit(target, "--fail-if", "nonsense>1")
    assert code == 2 and "unknown name 'nonsense'" in err and "Traceback" not in err
    code, _, err = audit(target, "--fail-if", "noindex>abc")  # (its examples were diff's names)
    assert code == 2 and "(non_indexable, 'non_indexable>100'" in err and "removed" not in err


def test_csv_and_urls_in_several_sitemaps_fetched_once(site: HTTPServer, tmp_path: Path) -> None:
    site.expect_request("/robots.txt").respond_with_data("", status=404)
    site.expect_request("/a").respond_with_data(html(), content_type="text/html")
    site.expect_request("/b").respond_with_data(html(), content_type="text/html")
    sitemap(site, ["/a", "/b"], "/one.xml")
    sitemap(site, ["/a"], "/two.xml")
    index = f'<?xml version="1.0"?><sitemapindex {NS}>' + "".join(
        f"<sitemap><loc>{site.url_for(n)}</loc></sitemap>" for n in ("/one.xml", "/two.xml")) + "</sitemapindex>"
    site.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")
    out_file = tmp_path / "audit.csv"
    code, out, err = audit(site.url_for("/index.xml"), "--format", "csv", "--output", str(out_file))
    assert code == 0 and out == "", err
    rows = list(csv.DictReader(out_file.read_text().splitlines()))
    assert [r["loc"].rsplit("/", 1)[-1] for r in rows] == ["a", "b"]
    assert rows[0]["indexable"] == "true" and rows[0]["sitemap"] == site.url_for("/one.xml")
    assert rows[0]["blocked_for"] == "" and rows[0]["status"] == "200"
    assert sum(1 for req, _ in site.log if req.path == "/a") == 1
    code, out, _ = audit(site.url_for("/index.xml"))
    assert "\nURLs in multiple sitemaps: 1\n" in out and f"{site.url_for('/a')}  in 2 sitemaps" in out


def test_listed_urls_that_cannot_be_fetched_are_counted_and_said(site: HTTPServer) -> None:
    """Found from outside: a loc with a space or a malformed host was left out of "URLs listed"
    and of every count, unsaid (stats counted it)."""
    site.expect_request("/robots.txt").respond_with_data("", status=404)
    site.expect_request("/ok").respond_with_data(html(), content_type="text/html")
    base = site.url_for("").rstrip("/")
    port = base.rsplit(":", 1)[1]
    body = (f'<?xml version="1.0"?>\n<urlset {NS}><url><loc>{base}/ok</loc></url><url><loc>{base}/a b</loc></url>'
            f"<url><loc>http://0177.0.0.1:{port}/oct</loc></url></urlset>\n")
    site.expect_request("/sitemap.xml").respond_with_data(body, content_type="application/xml")
    code, out, err = audit(site.url_for("/sitemap.xml"))
    assert code == 0, err
    assert "3 URLs listed, 1 audited" in out and "Not audited: 2 (" in out
    assert f"sitemap-tui: 2 listed URLs not fetched: no fetchable http(s) URL (a space, a malformed host, another scheme;" \
           f" validate names each), first http://0177.0.0.1:{port}/oct" in err.splitlines()


def test_sample_takes_evenly_spaced_urls_and_other_hosts_are_said(site: HTTPServer) -> None:
    site.expect_request("/robots.txt").respond_with_data("", status=404)
    for i in range(10):
        site.expect_request(f"/p{i}").respond_with_data(html(), content_type="text/html")
    target = sitemap(site, [f"/p{i}" for i in range(10)])
    code, out, err = audit(target, "--sample", "3", "--format", "jsonl")
    assert code == 0, err
    assert sorted(records(out)) == ["p0", "p3", "p6"]
    # a listed URL on another host: not fetched without --follow-cross-host, and said
    base = site.url_for("").rstrip("/")
    body = f'<?xml version="1.0"?><urlset {NS}><url><loc>{base}/p1</loc></url>' \
           f"<url><loc>http://localhost:{site.port}/p2</loc></url></urlset>"
    site.expect_request("/mixed.xml").respond_with_data(body, content_type="application/xml")
    code, out, err = audit(site.url_for("/mixed.xml"), "--format", "jsonl")
    assert code == 0 and list(records(out)) == ["p1"]
    assert f"1 listed URL(s) on localhost:{site.port} not fetched" in err and "--follow-cross-host" in err


def test_retry_after_and_crawl_delay_are_honoured_and_said(site: HTTPServer) -> None:
    site.expect_request("/robots.txt").respond_with_data("User-agent: *\nCrawl-delay: 0.2\n")
    calls = {"n": 0}

    def busy(_request: Request) -> Response:
        calls["n"] += 1
        if calls["n"] == 1:
            return Response("slow down", status=429, headers={"Retry-After": "1"})
        return Response(html(), content_type="text/html")

    site.expect_request("/busy").respond_with_handler(busy)
    target = sitemap(site, ["/busy"])
    code, out, err = audit(target, "--format", "jsonl")
    assert code == 0, err
    assert records(out)["busy"]["indexable"] is True and calls["n"] == 2
    assert "answered 429 with Retry-After: waiting 1 s" in err
    assert "Crawl-delay 0.2 s honoured" in err


def test_a_retry_after_holds_the_requests_already_waiting_for_the_host(site: HTTPServer) -> None:
    """Found by a review: a 429's Retry-After: 3 moved the host's next slot, but the requests
    already asleep on earlier slots went out during the wait (7 at the default rate). Now none
    reaches the host between the 429 and the end of its wait."""
    import time

    sent: list[tuple[str, float]] = []
    calls = {"n": 0}

    def busy(request: Request) -> Response:
        sent.append((request.path, time.monotonic()))
        calls["n"] += 1
        if calls["n"] == 1:
            return Response("slow down", status=429, headers={"Retry-After": "2"})
        return Response(html(), content_type="text/html")

    def page(request: Request) -> Response:
        sent.append((request.path, time.monotonic()))
        return Response(html(), content_type="text/html")

    site.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n")
    site.expect_request("/busy").respond_with_handler(busy)
    paths = [f"/p{i}" for i in range(6)]
    for path in paths:
        site.expect_request(path).respond_with_handler(page)
    code, out, err = audit(sitemap(site, ["/busy", *paths]), "--format", "jsonl", "--rate", "10")
    assert code == 0, err
    assert "answered 429 with Retry-After: waiting 2 s" in err
    first = sent[0][1]
    assert sent[0][0] == "/busy"
    early = [(path, round(at - first, 2)) for path, at in sent[1:] if at - first < 1.9]
    assert early == [], sent
    assert len(sent) == 8  # every page once, /busy twice


def test_unreadable_robots_disallows_unless_ignored(site: HTTPServer) -> None:
    site.expect_request("/robots.txt").respond_with_data("down", status=503)
    site.expect_request("/a").respond_with_data(html(), content_type="text/html")
    target = sitemap(site, ["/a"])
    code, out, err = audit(target, "--format", "jsonl")
    assert records(out)["a"]["reason"] == "non-indexable: blocked by robots.txt"
    assert "could not be read (HTTP 503" in err and "RFC 9309" in err
    code, out, err = audit(target, "--format", "jsonl", "--ignore-robots")
    assert records(out)["a"]["status"] == 200


def test_head_parser_on_untrusted_html() -> None:
    facts = head_facts(b'<!DOCTYPE x [<!ENTITY a "aaaa">]><html><head><base href="/sub/">'
                       b'<meta name="ROBOTS" content="NoIndex,NoFollow"><link rel="Canonical" href="page">'
                       b"</head></html>", "http://h.test/dir/x")
    assert facts.robots == ["noindex", "nofollow"] and facts.canonical == "http://h.test/sub/page"
    assert head_facts(b"\x00\xff<<<", "http://h.test/").robots == []
    assert x_robots_directives(["googlebot: noindex, nofollow", "max-snippet: 20", "none"]) == [
        "googlebot: noindex", "googlebot: nofollow", "max-snippet: 20", "none"]
    assert noindex_directive(["bingbot: none"]) == "bingbot: none"
    assert noindex_directive(["otherbot: noindex", "max-snippet: 20"]) is None


def test_conflicting_canonicals_name_none_and_an_escaped_tilde_is_the_page_itself() -> None:
    """Found from outside: of two canonicals the first won, unsaid (Google ignores conflicting
    ones); and a page at /%7Euser whose canonical wrote /~user was "canonicalised to" itself.
    Near misses: two spellings of one canonical are one; an escaped reserved character is not
    the character (/%2F is no /)."""
    two = head_facts(b'<head><link rel=canonical href="/a1"><link rel=canonical href="/a2"></head>', "http://h.test/p")
    assert two.canonical is None and two.conflicting == ["http://h.test/a1", "http://h.test/a2"]
    same = head_facts(b'<head><link rel=canonical href="/a1"><link rel=canonical href="http://H.test/a1#x">'
                      b"</head>", "http://h.test/p")
    assert same.canonical == "http://h.test/a1" and same.conflicting == []
    assert page_key("http://h.test/%7Euser") == page_key("http://h.test/~user")
    assert page_key("http://h.test/a%2Fb") != page_key("http://h.test/a/b")
    ok = verdict(status=200, error=None, timed_out=False, redirects=0, redirect_problem=None,
                 final_url="http://h.test/%7Euser", content_type="text/html", robots=[],
                 canonical="http://h.test/~user", blocked=False)
    assert ok.indexable


def test_an_unavailable_after_date_that_has_passed_is_noindex() -> None:
    """Found from outside: X-Robots-Tag unavailable_after was not judged (a page past its date was
    "indexable"), and an RFC 822 date was cut at its comma into two directives. Near misses: a
    future date, another crawler's, and a date that cannot be read are not judged."""
    rfc822 = x_robots_directives(["unavailable_after: Fri, 25 Jun 2010 15:00:00 GMT"])
    assert rfc822 == ["unavailable_after: fri, 25 jun 2010 15:00:00 gmt"]

    def reason(robots: list[str]) -> str:
        return verdict(status=200, error=None, timed_out=False, redirects=0, redirect_problem=None,
                       final_url="http://h.test/p", content_type="text/html", robots=robots, canonical=None,
                       blocked=False).reason

    assert reason(rfc822) == "non-indexable: noindex (unavailable_after: fri, 25 jun 2010 15:00:00 gmt: the date has passed)"
    assert reason(x_robots_directives(["googlebot: unavailable_after: 2010-06-25"])).startswith("non-indexable: noindex")
    for fine in (["unavailable_after: 2999-01-01"], ["otherbot: unavailable_after: 2010-06-25"],
                 ["unavailable_after: someday"]):
        assert reason(x_robots_directives(fine)) == "indexable", fine


def test_a_chunked_page_is_read_past_a_head_end_in_a_comment(site: HTTPServer) -> None:
    """Found from outside (a second regression hunt): the read of a page without a small
    Content-Length (chunked, as WordPress and Shopify send theirs) stopped at the first raw
    "</head" bytes, so a "</head>" in a comment, script or title still hid the noindex after it."""
    site.expect_request("/robots.txt").respond_with_data("", status=404)
    for name, hiding in (("comment", "<!-- app block: </head> below -->"), ("script", '<script>var t="</head>";</script>'),
                         ("title", "<title>a </head> b</title>")):
        page = (f"<!doctype html><html><head>{hiding}" + "<style>" + ".c{color:red}\n" * 3000 + "</style>"
                + '<meta name="robots" content="noindex"></head><body>' + "z" * 70000 + "</body></html>").encode()

        def chunked(_req: Request, page: bytes = page) -> Response:  # a generator: no Content-Length
            return Response((page[i:i + 4096] for i in range(0, len(page), 4096)), mimetype="text/html")

        site.expect_request(f"/{name}").respond_with_handler(chunked)
    code, out, err = audit(sitemap(site, ["/comment", "/script", "/title"]), "--format", "jsonl")
    assert code == 0, err
    assert {k: r["reason"] for k, r in records(out).items()} == {
        k: "non-indexable: noindex (noindex)" for k in ("comment", "script", "title")}


def test_a_meta_refresh_to_another_page_is_a_redirect() -> None:
    """Found from outside: <meta http-equiv=refresh content="0; url=/ok"> was "indexable"; Google
    reads it as a redirect. Near miss: a refresh of the page itself (no url, or its own) is not."""
    def reason(head: bytes) -> str:
        facts = head_facts(b"<html><head>" + head + b"</head><body>x</body></html>", "http://h.test/p")
        return verdict(status=200, error=None, timed_out=False, redirects=0, redirect_problem=None,
                       final_url="http://h.test/p", content_type="text/html", robots=facts.robots,
                       canonical=facts.canonical, blocked=False, refresh=facts.refresh).reason

    assert reason(b'<meta http-equiv="refresh" content="0; url=/ok">') == \
        "non-indexable: redirect (meta refresh to http://h.test/ok)"
    assert reason(b"<meta http-equiv=Refresh content=\"5;URL='https://other.test/'\">").startswith(
        "non-indexable: redirect (meta refresh to https://other.test/")
    assert reason(b'<meta http-equiv="refresh" content="30">') == "indexable"
    assert reason(b'<meta http-equiv="refresh" content="0; url=/p">') == "indexable"
    assert reason(b'<meta http-equiv="refresh" content="0; url=javascript:go()">') == "indexable"  # no page
    assert reason(b'<meta http-equiv="refresh" content="0;url=httpx://a/">') == "indexable"
    # (a second regression hunt) the target without "url=", and an apostrophe inside an unquoted one
    assert reason(b'<meta http-equiv="refresh" content="0; https://other.test/x">') == \
        "non-indexable: redirect (meta refresh to https://other.test/x)"
    assert reason(b'<meta http-equiv="refresh" content="0;url=/it\'s">') == \
        "non-indexable: redirect (meta refresh to http://h.test/it's)"


def test_a_canonical_or_robots_meta_in_the_body_is_not_the_pages() -> None:
    """Found from outside: a canonical after the body's first element counted when the server
    sent a Content-Length (the whole small page was read) and not when it sent the page chunked
    (read up to </head>); Google takes rel=canonical from the head only. Near miss: a head
    without its tags written (the parser's implied head) still counts."""
    body = head_facts(b"<!doctype html><html><head><title>t</title></head><body><p>x</p>"
                      b'<link rel="canonical" href="/ok"><meta name="robots" content="noindex"></body></html>',
                      "http://h.test/p")
    assert body.canonical is None and body.robots == []
    implied = head_facts(b'<link rel=canonical href=/ok><meta name=robots content=noindex><p>x', "http://h.test/p")
    assert implied.canonical == "http://h.test/ok" and implied.robots == ["noindex"]
    # a "</head>" in a comment, a script or a style is not the head's end (a regression hunt found
    # the noindex after it missed, and the page called indexable)
    for hiding in (b"<!-- end of </head> -->", b'<script>document.write("</head>");</script>',
                   b"<style>/* </head> */ body{}</style>"):
        page = head_facts(b"<!DOCTYPE html><html><head><title>t</title>" + hiding
                          + b'<meta name="robots" content="noindex"><link rel="canonical" href="/ok"></head>'
                          b"<body><p>x</p></body></html>", "http://h.test/p")
        assert page.robots == ["noindex"] and page.canonical == "http://h.test/ok", hiding
    from sitemap_tui.validate.deep_page import analyse_html  # the deep checks read the page alike

    deep = analyse_html(b"<!DOCTYPE html><html><head><title>t</title></head><body>"
                        b'<link rel="canonical" href="/other"><p>x</p></body></html>', "http://h.test/p")
    assert deep.canonical is None
    two = analyse_html(b'<html><head><link rel="canonical" href="/a"><link rel="canonical" href="/b"></head></html>',
                       "http://h.test/p")
    assert two.canonical is None  # conflicting: none, as the audit reads them


PAGES = 60


def resumable_site(server: HTTPServer, hits: Counter) -> str:
    server.expect_request("/robots.txt").respond_with_data("", status=404)

    def page(request: Request) -> Response:
        hits[request.path] += 1
        return Response(html(), content_type="text/html")

    for i in range(PAGES):
        server.expect_request(f"/r{i}").respond_with_handler(page)
    return sitemap(server, [f"/r{i}" for i in range(PAGES)])


def test_sigterm_mid_audit_then_resume_fetches_each_url_once(site: HTTPServer, tmp_path: Path) -> None:
    hits: Counter = Counter()
    target = resumable_site(site, hits)
    db = tmp_path / "site.db"
    cmd = [sys.executable, "-m", "sitemap_tui", "audit", target, "--db", str(db), "--workers", "0",
           "--rate", "20", "--format", "jsonl"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 60
    while sum(hits.values()) < 15 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "stopped by SIGTERM" in err.decode()
    first = sum(hits.values())
    assert 15 <= first < PAGES
    code, out, err = run("audit", target, "--db", str(db), "--workers", "0", "--rate", "0", "--format", "jsonl")
    assert code == 0, err
    assert "continuing the unfinished audit" in err
    assert len(records(out)) == PAGES and all(r["indexable"] for r in records(out).values())
    # each URL fetched once over both runs: at most the few in flight at the signal come twice
    assert set(hits) == {f"/r{i}" for i in range(PAGES)}
    twice = [p for p, n in hits.items() if n > 1]
    assert len(twice) <= 8 and max(hits.values()) <= 2
    # a complete audit is not continued: the same command audits afresh (here: the same answers)
    code, _, err = run("audit", target, "--db", str(db), "--workers", "0", "--rate", "0")
    assert code == 0 and "continuing" not in err
    assert all(n >= 2 for n in hits.values())


@pytest.mark.parametrize("kept", ["db", "history"])
def test_resume_of_a_stopped_audit_in_process(site: HTTPServer, tmp_path: Path, kept: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The same, without a subprocess: the store keeps each finished batch, a second run fetches
    exactly the rest (a KeyboardInterrupt in the middle of the audit, as Ctrl-C gives); kept in
    --db's file, or without --db in the site's history in the cache."""
    from sitemap_tui.engine import audit as audit_mod

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    hits: Counter = Counter()
    target = resumable_site(site, hits)
    where = ["--db", str(tmp_path / "site.db")] if kept == "db" else []
    original = audit_mod.Auditor.audit_one
    done = {"n": 0}
    lock = threading.Lock()

    async def stopping(self, url):  # noqa: ANN001, ANN202 - the patched method
        with lock:
            done["n"] += 1
            if done["n"] == 25:
                self.flush()  # what finished so far is stored, as the batches are
                raise KeyboardInterrupt
        return await original(self, url)

    audit_mod.Auditor.audit_one = stopping  # type: ignore[method-assign]
    try:
        code, _, err = run("audit", target, *where, "--workers", "0", "--rate", "0", "--concurrency", "1")
    finally:
        audit_mod.Auditor.audit_one = original  # type: ignore[method-assign]
    assert code == 130 and "interrupted" in err
    assert sum(hits.values()) == 24
    code, out, err = run("audit", target, *where, "--workers", "0", "--rate", "0", "--format", "jsonl")
    assert code == 0, err
    assert "continuing the unfinished audit" in err and "24 URLs already done" in err
    assert len(records(out)) == PAGES and all(n == 1 for n in hits.values()) and len(hits) == PAGES


def test_deep_checks_read_the_stored_audit_instead_of_fetching(site: HTTPServer, tmp_path: Path) -> None:
    """validate's deep rules over an audited exploration: the same findings as when they fetch
    the pages themselves, and not one page request."""
    import asyncio

    from sitemap_tui.engine.fetch import FetchConfig
    from sitemap_tui.engine.store import Store
    from sitemap_tui.validate.deep import DEEP_RULES, DeepOptions, run_deep

    base = site.url_for("").rstrip("/")
    site.expect_request("/robots.txt").respond_with_data("", status=404)
    site.expect_request("/ok").respond_with_data(html(), content_type="text/html")
    site.expect_request("/gone").respond_with_data("nope", status=404, content_type="text/html")
    site.expect_request("/moved").respond_with_data("", status=301, headers={"Location": f"{base}/ok"})
    site.expect_request("/noindex").respond_with_data(html('<meta name="robots" content="NoIndex">'),
                                                      content_type="text/html")
    site.expect_request("/xrt").respond_with_data(html(), content_type="text/html",
                                                  headers={"X-Robots-Tag": "googlebot: noindex"})
    site.expect_request("/canon").respond_with_data(html(f'<link rel="canonical" href="{base}/ok">'),
                                                    content_type="text/html")
    site.expect_request("/soft").respond_with_data("<html><head><title>Page not found</title></head></html>",
                                                   content_type="text/html")
    site.expect_request("/old").respond_with_data(html(), content_type="text/html",
                                                  headers={"Last-Modified": "Mon, 01 Jan 2018 00:00:00 GMT"})
    target = sitemap(site, ["/ok", "/gone", "/moved", "/noindex", "/xrt", "/canon", "/soft", "/old"])

    def deep_issues(db: Path) -> set[tuple[str, str | None, str]]:
        store = Store(db)
        try:
            asyncio.run(run_deep(store, FetchConfig(retries=0), DeepOptions(sample=None, rate=0, timeout=5)))
            store.commit()
            return {(i.rule, i.url, i.message) for i in store.iter_issues() if i.rule in DEEP_RULES}
        finally:
            store.close()

    assert run("validate", target, "--db", str(tmp_path / "fetched.db"), "--workers", "0")[0] in (0, 1)
    fetched = deep_issues(tmp_path / "fetched.db")
    assert {rule for rule, _, _ in fetched} == {
        "deep-status-3xx", "deep-status-4xx", "deep-noindex", "deep-non-canonical", "deep-soft-404",
        "deep-lastmod-vs-header"}
    code, _, err = audit(target, "--db", str(tmp_path / "audited.db"))
    assert code == 0, err
    site.clear_log()
    assert deep_issues(tmp_path / "audited.db") == fetched
    assert [req.path for req, _ in site.log] == []


def test_headers_go_only_to_the_target_host_and_other_hosts_need_follow(site: HTTPServer) -> None:
    """-H reaches the target's origin only, also for the listed pages; a page on another host
    (localhost vs 127.0.0.1) is fetched with --follow-cross-host, without the header."""
    site.expect_request("/robots.txt").respond_with_data("", status=404)
    site.expect_request("/p1").respond_with_data(html(), content_type="text/html")
    site.expect_request("/p2").respond_with_data(html(), content_type="text/html")
    base = site.url_for("").rstrip("/")
    body = f'<?xml version="1.0"?><urlset {NS}><url><loc>{base}/p1</loc></url>' \
           f"<url><loc>http://localhost:{site.port}/p2</loc></url></urlset>"
    site.expect_request("/mixed.xml").respond_with_data(body, content_type="application/xml")
    code, out, err = audit(site.url_for("/mixed.xml"), "--format", "jsonl", "--follow-cross-host",
                           "-H", "X-Token: secret")
    assert code == 0, err
    assert sorted(records(out)) == ["p1", "p2"]
    tokens = {req.path: req.headers.get("X-Token") for req, _ in site.log if req.path in ("/p1", "/p2")}
    assert tokens == {"/p1": "secret", "/p2": None}


def test_files_left_out_are_said_before_the_audit(site: HTTPServer) -> None:
    """An audit of a file budget's part of the site said "N URLs listed, N audited", exit 0,
    an empty stderr: the files it never fetched were not mentioned."""
    b = site.url_for("").rstrip("/")
    for name in ("a", "b"):
        site.expect_request(f"/{name}").respond_with_data(html(), content_type="text/html")
        sitemap(site, [f"/{name}"], name=f"/{name}.xml")
    index = (f"<sitemapindex {NS}>" + "".join(f"<sitemap><loc>{b}/{n}.xml</loc></sitemap>" for n in ("a", "b"))
             + "</sitemapindex>")
    site.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")
    code, out, err = audit(f"{b}/index.xml", "--max-files", "2", "--format", "jsonl")
    assert code == 0, err
    assert len(records(out)) == 1
    assert "sitemap-tui: 1 file not fetched: file budget of 2 reached (--max-files)" in err.splitlines()


def test_the_crawler_table_says_it_counts_listings(site: HTTPServer) -> None:
    """"2 URLs listed" above, "3 listed URLs" in the crawler table of the same report: the
    table counts a URL once per sitemap that lists it, which it now says."""
    site.expect_request("/robots.txt").respond_with_data("User-agent: GPTBot\nDisallow: /\n",
                                                         content_type="text/plain")
    for path in ("/a", "/b"):
        site.expect_request(path).respond_with_data(html(), content_type="text/html")
    sitemap(site, ["/a", "/b"], "/one.xml")
    sitemap(site, ["/a"], "/two.xml")
    index = f'<?xml version="1.0"?><sitemapindex {NS}>' + "".join(
        f"<sitemap><loc>{site.url_for(n)}</loc></sitemap>" for n in ("/one.xml", "/two.xml")) + "</sitemapindex>"
    site.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")
    code, out, err = audit(site.url_for("/index.xml"))
    assert code == 0, err
    assert ": 2 URLs listed, 2 audited" in out
    assert ("\nCrawler access (robots.txt) of 3 listings of the 2 URLs (a URL in several sitemaps counts in"
            " each)\n") in out, out


def test_a_header_with_a_byte_beyond_ascii_is_read_not_a_traceback(site: HTTPServer) -> None:
    """A page whose header held "café" ended the whole audit in a UnicodeEncodeError traceback
    (its decoded headers were made into httpx.Headers again, as ASCII); the deep checks lost the
    URL in silence."""
    site.expect_request("/robots.txt").respond_with_data("", status=404)
    site.expect_request("/page").respond_with_data(html(), content_type="text/html",
                                                   headers={"X-Served-By": "café"})
    site.expect_request("/gone").respond_with_data("no", status=404, headers={"X-Served-By": "café"})
    target = sitemap(site, ["/page", "/gone"])
    code, out, err = audit(target, "--format", "jsonl")
    assert code == 0 and "Traceback" not in err, err
    rows = records(out)
    assert rows["page"]["status"] == 200 and rows["gone"]["status"] == 404
    code, out, err = run("validate", target, "--deep", "--rate", "0", "--no-history", "--workers", "0")
    assert code == 1, err
    assert f"deep-status-4xx the URL answers HTTP 404 <{site.url_for('/gone')}>" in out
    assert "could not be checked" not in err


def test_csv_cells_that_would_run_as_formulas_are_quoted_and_jsonl_is_ascii(site: HTTPServer) -> None:
    """Found from outside: a robots meta of `=HYPERLINK(...)` and a lastmod of `-1+1` reached
    audit's CSV as they were (urls and diff quote them), and its JSONL held a raw U+202E."""
    site.expect_request("/robots.txt").respond_with_data("", status=404)
    site.expect_request("/a").respond_with_data(
        html('<meta name="robots" content="=HYPERLINK(&quot;http://evil&quot;),noindex">'), content_type="text/html")
    site.expect_request("/\u00fc\u202egpj").respond_with_data(html(), content_type="text/html")
    base = site.url_for("").rstrip("/")
    body = (f'<?xml version="1.0"?>\n<urlset {NS}><url><loc>{base}/a</loc><lastmod>-1+1</lastmod></url>'
            f"<url><loc>{base}/\u00fc\u202egpj</loc></url></urlset>\n")
    site.expect_request("/sitemap.xml").respond_with_data(body.encode(), content_type="application/xml")
    code, out, err = audit(site.url_for("/sitemap.xml"), "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(out.splitlines()))
    a = next(r for r in rows if r["loc"].endswith("/a"))
    assert a["lastmod"] == "'-1+1"
    assert a["robots"].startswith("'=") and "noindex" in a["robots"]
    assert not any(cell.startswith(("=", "+", "-", "@")) for r in rows for cell in r.values())
    assert "\u202e" not in out
    code, out, err = audit(site.url_for("/sitemap.xml"), "--format", "jsonl")
    assert code == 0, err
    assert out.isascii() and "\\u202e" in out
    assert {json.loads(line)["loc"] for line in out.splitlines()} == {f"{base}/a", f"{base}/\u00fc\u202egpj"}


def test_a_redirect_to_a_refused_address_is_not_blamed_on_robots_txt(site: HTTPServer) -> None:
    """Found from outside: a page redirecting to 169.254.169.254 came out "not followed:
    robots.txt disallows it": no robots.txt said so, the address policy refused to go there."""
    site.expect_request("/robots.txt").respond_with_data("", status=404)
    site.expect_request("/meta").respond_with_data("", status=301, headers={"Location": "http://10.255.255.1/latest/"})
    code, out, err = audit(sitemap(site, ["/meta"]), "--format", "jsonl")
    (row,) = [json.loads(line) for line in out.splitlines()]
    assert "robots.txt" not in (row["reason"] or "") + (row["error"] or ""), row
    assert "10.255.255.1" in (row["reason"] or "") + (row["error"] or ""), row


def test_a_listed_url_on_another_port_is_not_audited_unasked(site: HTTPServer, httpserver: HTTPServer) -> None:
    """Found from outside: audit sent HEAD to a listed URL on another port of the host while
    saying it audits the sitemaps' hosts only."""
    site.expect_request("/robots.txt").respond_with_data("", status=404)
    site.expect_request("/a").respond_with_data(html(), content_type="text/html")
    httpserver.expect_request("/other").respond_with_data(html(), content_type="text/html")
    base = site.url_for("").rstrip("/")
    body = (f'<?xml version="1.0"?>\n<urlset {NS}><url><loc>{base}/a</loc></url>'
            f"<url><loc>{httpserver.url_for('/other')}</loc></url></urlset>\n")
    site.expect_request("/sitemap.xml").respond_with_data(body, content_type="application/xml")
    code, out, err = audit(site.url_for("/sitemap.xml"), "--format", "jsonl")
    assert [req.path for req, _ in httpserver.log] == []
    assert f"on 127.0.0.1:{httpserver.port} not fetched: another host or port than the sitemaps'" in err, err


def test_an_audit_leaves_nothing_beside_the_sites_previous_exploration(site: HTTPServer, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Found from outside: each audit looked at the site's latest kept exploration (was its audit
    stopped?) through a read-only connection, which left a -wal and a -shm beside it for good."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    site.expect_request("/robots.txt").respond_with_data("", status=404)
    site.expect_request("/a").respond_with_data(html(), content_type="text/html")
    target = sitemap(site, ["/a"])
    for _ in range(3):
        code, _, err = run("audit", target, "--workers", "0", "--rate", "0")
        assert code == 0, err
    kept = sorted(p.name for p in (tmp_path / "cache").rglob("*") if p.is_file())
    assert not [name for name in kept if name.endswith(("-wal", "-shm"))], kept

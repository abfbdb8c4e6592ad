"""``audit --compare-list`` and ``audit --crawl`` (issue 22 section 3) against a real site on
127.0.0.1: pages no sitemap lists, orphans, a crawl that hits its cap, links robots.txt
disallows, a CSV and a plain list, bad lists; the store's queries for the explorer's
``orphan:yes`` and ``coverage:missing``."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from sitemap_tui import cli
from sitemap_tui.engine.audit_page import head_facts
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.coverage import coverage_missing, coverage_parts, orphan_condition
from sitemap_tui.engine.store.coverage_filters import MISSING_BASE, unlisted_page
from sitemap_tui.engine.store.exports import audit_values_for
from sitemap_tui.engine.store.rows import EntryRow

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


@pytest.fixture()
def site(threaded_httpserver: HTTPServer) -> HTTPServer:
    """A threaded server (tests/conftest.py): the slow page must not hold the others up."""
    return threaded_httpserver


def page(links: list[str], head: str = "") -> str:
    body = "".join(f'<a href="{href}">link</a>' for href in links)
    return f"<!DOCTYPE html><html><head><title>P</title>{head}</head><body>{body}</body></html>"


# path -> (its links, extra head); the sitemap lists /, /a, /b, /orphan, /secret/listed
PAGES: dict[str, tuple[list[str], str]] = {
    "/": (["/a", "b", "/unlisted", "/secret/x", "/noindexed#top", "http://other.invalid/", "#top", "/"], ""),
    "/a": (["/", "/b", "/deep/1", "/deep/2", "/deep/3", "/deep/4"], ""),
    "/b": (["/a"], ""),
    "/unlisted": (["/a"], ""),
    "/noindexed": ([], '<meta name="robots" content="noindex">'),
    "/orphan": (["/a"], ""),
    "/secret/x": ([], ""),
    "/secret/listed": ([], ""),
    "/from-list": ([], ""),
    "/deep/1": ([], ""), "/deep/2": ([], ""), "/deep/3": ([], ""), "/deep/4": ([], ""),
}
LISTED = ["/", "/a", "/b", "/orphan", "/secret/listed"]


def coverage_site(server: HTTPServer, hits: Counter[str] | None = None) -> str:
    base = server.url_for("").rstrip("/")
    server.expect_request("/robots.txt").respond_with_data("User-agent: *\nDisallow: /secret/\n",
                                                           content_type="text/plain")

    def handler(request: Request) -> Response:
        if hits is not None:
            hits[request.path] += 1
        if request.path not in PAGES:
            return Response("nope", status=404, content_type="text/html")
        links, head = PAGES[request.path]
        return Response(page(links, head), content_type="text/html")

    for path in PAGES:
        server.expect_request(path).respond_with_handler(handler)
    server.expect_request("/gone").respond_with_data("nope", status=404, content_type="text/html")
    body = f'<?xml version="1.0"?>\n<urlset {NS}>' + "".join(
        f"<url><loc>{base}{p}</loc></url>" for p in LISTED) + "</urlset>\n"
    server.expect_request("/sitemap.xml").respond_with_data(body, content_type="application/xml")
    return server.url_for("/sitemap.xml")


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


def by_path(out: str, base: str) -> dict[str, dict]:
    return {r["loc"].removeprefix(base): r for r in map(json.loads, out.splitlines())}


def test_crawl_finds_unlisted_pages_and_orphans(site: HTTPServer) -> None:
    target = coverage_site(site)
    base = site.url_for("").rstrip("/")
    code, out, err = audit(target, "--crawl", "100", "--format", "jsonl")
    assert code == 0, err
    recs = by_path(out, base)
    # found by links, in no sitemap, indexable: missing; the noindex page is not
    assert recs["/unlisted"]["in_sitemaps"] is False and recs["/unlisted"]["indexable"] is True
    assert recs["/noindexed"]["indexable"] is False and recs["/noindexed"]["in_sitemaps"] is False
    assert recs["/unlisted"]["linked_from"] == 1 and recs["/a"]["linked_from"] == 3  # /, /b, /unlisted (not /orphan: not crawled)
    # /orphan links out, nothing links to it; /secret/listed: robots keeps the crawl off it anyway
    assert recs["/orphan"]["orphan"] is True and recs["/secret/listed"]["orphan"] is True
    assert recs["/"]["orphan"] is False  # the crawl's start, reached without a link
    assert recs["/a"]["orphan"] is False and recs["/b"]["orphan"] is False
    assert recs["/a"]["in_list"] is None  # no list given: unknown, not false
    assert recs["/secret/x"]["reason"] == "non-indexable: blocked by robots.txt"
    # a page of no sitemap carries its fetch's fields as a listed page does (found from outside:
    # content type, robots, final URL and response time were null)
    assert recs["/noindexed"]["robots"] == ["noindex"] and recs["/noindexed"]["final_url"] == f"{base}/noindexed"
    assert recs["/unlisted"]["content_type"].startswith("text/html") and recs["/unlisted"]["response_time"] is not None
    assert recs["/secret/x"]["blocked_for"] and recs["/unlisted"]["sitemap"] is None
    assert "--crawl: 1 page(s) not crawled: robots.txt disallows them for sitemap-tui" in err
    assert f"--crawl: 1 link(s) to other hosts or ports than {base.removeprefix('http://')} not followed" in err
    assert "stopped at" not in err  # 9 pages, under the cap
    code, out, err = audit(target, "--crawl", "100", "--fail-if", "orphans>=3")
    assert code == 0, err
    assert "Orphans (listed URLs not linked from the 9 crawled pages): 2\n" in out
    assert f"Indexable pages in no sitemap: 5\n  {base}/unlisted\n" in out  # /unlisted and /deep/1..4
    code, _, err = audit(target, "--crawl", "100", "--fail-if", "orphans", "--fail-if", "missing_from_sitemaps>5")
    assert code == 1 and "--fail-if 'orphans' is met (orphans = 2)" in err and "missing_from_sitemaps" not in err


def test_crawl_cap_is_said_and_orphans_are_relative_to_it(site: HTTPServer) -> None:
    target = coverage_site(site)
    base = site.url_for("").rstrip("/")
    code, out, err = audit(target, "--crawl", "2", "--format", "jsonl")
    assert code == 0, err
    assert "--crawl: stopped at 2 pages (the cap)" in err and "not linked from the 2 crawled pages" in err
    recs = by_path(out, base)
    crawled_from = {p for p, r in recs.items() if r["linked_from"]}
    # / then /a (breadth first: the home page's first link): /b is linked from both, /deep/* from /a
    assert {"/a", "/b", "/unlisted", "/deep/1"} <= crawled_from
    assert recs["/unlisted"]["indexable"] is None  # found but never fetched: not counted as missing
    assert recs["/orphan"]["orphan"] is True


def test_plain_list_compare(site: HTTPServer, tmp_path: Path) -> None:
    target = coverage_site(site)
    base = site.url_for("").rstrip("/")
    listing = tmp_path / "urls.txt"
    listing.write_text(f"{base}/a\n{base}/from-list\n\n{base}/gone\nnot a url\nftp://x/y\n{base}/A/../a\n"
                       f"{base}/noindexed\n")
    code, out, err = audit(target, "--compare-list", str(listing), "--fail-if", "not_in_list>4")
    assert code == 0, err
    assert f"--compare-list {listing}: 4 URLs read (one URL per line); 2 value(s) that are no http(s) URL" \
           " skipped; 1 repeated" in err
    assert "URL list: 4 URLs, 1 of them in the sitemaps\n" in out
    # /gone answers 404 and /noindexed is noindex: only /from-list is missing
    assert f"Indexable pages in no sitemap: 1\n  {base}/from-list\n" in out
    assert "Sitemap URLs not in the list: 4\n" in out
    assert f"  {target}  1/5 (20%)\n" in out
    assert "Orphans" not in out  # no crawl, no orphan count
    code, out, _ = audit(target, "--compare-list", str(listing), "--format", "jsonl")
    recs = by_path(out, base)
    assert recs["/a"]["in_list"] is True and recs["/b"]["in_list"] is False
    assert recs["/from-list"] == {**recs["/from-list"], "in_sitemaps": False, "in_list": True, "indexable": True,
                                  "sitemap": None, "orphan": None, "linked_from": None}
    assert recs["/gone"]["status"] == 404 and recs["/gone"]["indexable"] is False
    assert recs["/from-list"]["content_type"].startswith("text/html") and recs["/from-list"]["final_url"]
    assert recs["/noindexed"]["robots"] == ["noindex"]
    # the published shape holds these records too (found from outside: 12 schema errors)
    schema = json.loads((Path(__file__).resolve().parents[1] / "docs/schemas/audit-record.schema.json").read_text())
    for rec in recs.values():
        assert [(list(e.path), e.message) for e in Draft202012Validator(schema).iter_errors(rec)] == [], rec


def test_csv_list_names_its_column_and_sample_bounds_fetches(site: HTTPServer, tmp_path: Path) -> None:
    hits: Counter[str] = Counter()
    target = coverage_site(site, hits)
    base = site.url_for("").rstrip("/")
    export = tmp_path / "crawl.csv"
    with export.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Status Code", "Address", "Indexability"])
        for p in ("/a", "/unlisted", "/from-list", "/deep/1"):
            w.writerow(["200", f"{base}{p}", "Indexable"])
    code, out, err = audit(target, "--compare-list", str(export), "--sample", "2", "--format", "csv",
                           "--fail-if", "missing_from_sitemaps>=3")
    assert code == 0, err
    assert "4 URLs read (its column 'Address')" in err
    assert "--compare-list: 1 URL(s) of the list in no sitemap were not fetched (--sample 2" in err
    assert hits["/deep/1"] == 0 and hits["/unlisted"] == 1 and hits["/from-list"] == 1
    rows = {r["loc"].removeprefix(base): r for r in csv.DictReader(io.StringIO(out))}
    assert rows["/unlisted"]["in_list"] == "true" and rows["/unlisted"]["in_sitemaps"] == "false"
    assert rows["/deep/1"]["indexable"] == "" and rows["/orphan"]["in_list"] == "false"


@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot read it"),
    ("Status,Title\n200,Home\n", "a CSV without a url, Address, loc or page column (its columns: Status, Title)"),
    ("just words\nno urls here\n", "no http(s) URL in it (2 value(s) that are none)"),
    (b"\xff\xfe\x00garbage", "not UTF-8 text"),
])
def test_bad_lists_are_one_line_exit_2(site: HTTPServer, tmp_path: Path, content: str | bytes | None,
                                       message: str) -> None:
    target = coverage_site(site)
    path = tmp_path / "list.csv"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    code, out, err = audit(target, "--compare-list", str(path))
    assert code == 2 and out == ""
    (line,) = err.splitlines()
    assert line.startswith("sitemap-tui: error:") and message in line, line


def test_fail_if_over_a_part_not_run_and_bad_crawl_are_usage_errors(site: HTTPServer) -> None:
    target = coverage_site(site)
    code, _, err = audit(target, "--fail-if", "orphans")
    assert code == 2 and "orphans is counted only with --crawl" in err and len(err.splitlines()) == 1
    for bad in ("0", "many"):
        code, _, err = audit(target, "--crawl", bad)
        assert code == 2 and "--crawl" in err and "Traceback" not in err


def test_store_queries_for_the_explorer(site: HTTPServer, tmp_path: Path) -> None:
    target = coverage_site(site)
    base = site.url_for("").rstrip("/")
    db = tmp_path / "site.db"
    code, _, err = audit(target, "--crawl", "100", "--db", str(db))
    assert code == 0, err
    store = Store(db, readonly=True)
    try:
        cond, params = orphan_condition("e")
        locs = [r[0] for r in store.conn.execute(f"SELECT e.loc FROM entries e WHERE {cond} ORDER BY e.id", params)]
        assert locs == [f"{base}/orphan", f"{base}/secret/listed"]
        missing = list(coverage_missing(store))
        assert missing == [f"{base}/unlisted", *(f"{base}/deep/{i}" for i in range(1, 5))]
        assert coverage_parts(store) == (False, True)
        # the explorer's detail and export of such a page: its fetch's whole row
        rowid = store.conn.execute("SELECT rowid FROM coverage WHERE loc = ?", (f"{base}/unlisted",)).fetchone()[0]
        page = unlisted_page(store.conn, rowid - MISSING_BASE)
        assert page is not None and page.fetch is not None and page.fetch.final_url == f"{base}/unlisted"
        row = EntryRow(rowid - MISSING_BASE, 1, page.loc, None, None, None, None, None, 0, 0, 0, 0, 0)
        values = audit_values_for(store.conn, [row])
        assert values[rowid - MISSING_BASE]["content_type"].startswith("text/html")
    finally:
        store.close()
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM coverage_links").fetchone()[0] > 0
    # a store from before the fetch's row was kept, opened read-only: the verdict alone
    con.execute("ALTER TABLE coverage DROP COLUMN page_row")
    con.commit()
    old = Store(db, readonly=True)
    try:
        page = unlisted_page(old.conn, rowid - MISSING_BASE)
        assert page is not None and page.fetch is None and page.status == 200
    finally:
        old.close()
    # a store from before the tables, opened read-only: no list, no crawl, no error
    con.execute("DROP TABLE coverage")
    con.commit()
    con.close()
    old = Store(db, readonly=True)
    try:
        assert coverage_parts(old) == (False, False)
    finally:
        old.close()


def test_links_are_read_only_when_asked_and_within_the_prefix() -> None:
    body = page(["/x", "y#frag", "mailto:a@b", "javascript:void(0)", "/x", "#top"]).encode()
    assert head_facts(body, "http://h/dir/").links == []
    assert head_facts(body, "http://h/dir/", links=True).links == ["http://h/x", "http://h/dir/y"]
    cut = body[: body.index(b"y#frag")]  # a prefix: what the byte cap leaves
    assert head_facts(cut, "http://h/dir/", links=True).links == ["http://h/x"]


def test_stopped_crawl_goes_on_where_it_stopped(site: HTTPServer, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C in the middle of the crawl (after the audit of the 5 listed URLs and 3 crawled
    pages); the same command goes on: no page is crawled twice, the result is a whole crawl's."""
    from sitemap_tui.engine import audit as audit_mod

    hits: Counter[str] = Counter()
    target = coverage_site(site, hits)
    base = site.url_for("").rstrip("/")
    where = ["--db", str(tmp_path / "site.db"), "--concurrency", "1"]
    original = audit_mod.Auditor.audit_one
    calls = {"n": 0}

    async def stopping(self, url):  # noqa: ANN001, ANN202 - the patched method
        calls["n"] += 1
        if calls["n"] == len(LISTED) + 4:
            raise KeyboardInterrupt
        return await original(self, url)

    monkeypatch.setattr(audit_mod.Auditor, "audit_one", stopping)
    code, _, err = audit(target, "--crawl", "100", *where)
    monkeypatch.setattr(audit_mod.Auditor, "audit_one", original)
    assert code == 130 and "interrupted" in err
    # the audit fetched the 4 listed pages robots.txt allows, the crawl /, /a and /b
    assert hits == Counter({"/": 2, "/a": 2, "/b": 2, "/orphan": 1})
    code, out, err = audit(target, "--crawl", "100", *where, "--format", "jsonl")
    assert code == 0, err
    assert "continuing the unfinished audit" in err
    assert hits == Counter({"/": 2, "/a": 2, "/b": 2, "/orphan": 1, "/unlisted": 1, "/noindexed": 1,
                            "/deep/1": 1, "/deep/2": 1, "/deep/3": 1, "/deep/4": 1})
    recs = by_path(out, base)
    assert [p for p, r in recs.items() if r["orphan"]] == ["/orphan", "/secret/listed"]
    assert recs["/a"]["linked_from"] == 3 and recs["/unlisted"]["indexable"] is True


def test_home_page_redirecting_to_the_sitemaps_host_moves_the_crawl_there(site: HTTPServer) -> None:
    """example.com -> www.example.com: here localhost -> 127.0.0.1, whose sitemap robots.txt names."""
    base = site.url_for("").rstrip("/")
    site.expect_request("/", headers={"Host": f"localhost:{site.port}"}).respond_with_data(
        "", status=301, headers={"Location": f"{base}/"})
    site.expect_request("/robots.txt").respond_with_data(f"User-agent: *\nDisallow: /secret/\nSitemap: {base}/sitemap.xml\n")
    coverage_site(site)
    code, out, err = audit(f"http://localhost:{site.port}/", "--crawl", "100", "--format", "jsonl")
    assert code == 0, err
    assert f"--crawl: the home page http://localhost:{site.port}/ redirects to {base}/: the crawl follows links" \
           " on 127.0.0.1" in err
    recs = by_path(out, base)
    assert [p for p, r in recs.items() if r["orphan"]] == ["/orphan", "/secret/listed"]
    assert recs["/"]["linked_from"] == 2  # the redirect and /a (a link to itself does not count)
    assert recs["/unlisted"]["in_sitemaps"] is False and recs["/unlisted"]["indexable"] is True


def test_links_past_the_byte_cap_are_not_read_and_said(site: HTTPServer) -> None:
    base = site.url_for("").rstrip("/")
    filler = "<p>" + "x" * (300 * 1024) + "</p>"
    site.expect_request("/robots.txt").respond_with_data("", status=404)
    site.expect_request("/").respond_with_data(page(["/early"]).replace("</body>", filler + '<a href="/late">l</a></body>'),
                                               content_type="text/html")
    site.expect_request("/early").respond_with_data(page([]), content_type="text/html")
    site.expect_request("/late").respond_with_data(page([]), content_type="text/html")
    site.expect_request("/sitemap.xml").respond_with_data(
        f'<?xml version="1.0"?>\n<urlset {NS}><url><loc>{base}/late</loc></url></urlset>\n',
        content_type="application/xml")
    code, out, err = audit(site.url_for("/sitemap.xml"), "--crawl", "10", "--format", "jsonl")
    assert code == 0, err
    assert "--crawl: 1 page(s) longer than 256 KiB: their links after the first 256 KiB were not read" in err
    recs = by_path(out, base)
    assert recs["/late"]["orphan"] is True and recs["/early"]["linked_from"] == 1


def test_no_page_crawled_judges_no_orphan(site: HTTPServer) -> None:
    """robots.txt disallows the home page: nothing is crawled, so nothing is called an orphan."""
    base = site.url_for("").rstrip("/")
    site.expect_request("/robots.txt").respond_with_data("User-agent: *\nDisallow: /\n", content_type="text/plain")
    site.expect_request("/sitemap.xml").respond_with_data(
        f'<?xml version="1.0"?>\n<urlset {NS}><url><loc>{base}/a</loc></url></urlset>\n',
        content_type="application/xml")
    target = site.url_for("/sitemap.xml")
    code, out, err = audit(target, "--crawl", "10", "--fail-if", "orphans")
    assert code == 0, err
    assert "--crawl: 1 page(s) not crawled: robots.txt disallows them for sitemap-tui" in err
    assert "Crawl: 0 pages crawled from the home page (at most 10), 1 disallowed by robots.txt\n" in out
    assert "Orphans: not judged, no page was crawled\n" in out
    code, out, _ = audit(target, "--crawl", "10", "--format", "jsonl")
    assert [(r["orphan"], r["linked_from"]) for r in map(json.loads, out.splitlines())] == [(None, None), (None, None)]


def test_a_url_two_sitemaps_list_is_reported_under_the_first_whatever_the_parse_order(tmp_path: Path) -> None:
    """/both is listed by a.xml (node 2, 2024-01-01) and b.xml (node 3, 2024-02-01), and b.xml
    was parsed first, as happens with several workers: its entries have the lower ids. The
    coverage records report /both under a.xml with a.xml's lastmod, where the audit takes it
    (sitemap by sitemap, then each file's order), and in that order; by the least entry id
    they said b.xml, or a.xml, depending on which file a worker finished first."""
    from datetime import UTC, datetime

    from sitemap_tui.engine.model import Entry, FoundBy, Node, NodeKind, NodeState
    from sitemap_tui.engine.store.audit import group_samples
    from sitemap_tui.engine.store.coverage import coverage_records, coverage_samples

    store = Store(tmp_path / "s.db")
    base = "https://a.example"
    store.add_node(Node(id=1, url=f"{base}/index.xml", kind=NodeKind.INDEX, state=NodeState.DONE))
    for nid, name in ((2, "a.xml"), (3, "b.xml")):
        store.add_node(Node(id=nid, url=f"{base}/{name}", kind=NodeKind.URLSET, state=NodeState.DONE,
                            found_by=FoundBy.INDEX, parent_id=1, depth=1, line=nid))
    day = {2: datetime(2024, 1, 1, tzinfo=UTC), 3: datetime(2024, 2, 1, tzinfo=UTC)}
    for nid, locs in ((3, ["/b-only", "/both"]), (2, ["/a-only", "/both"])):  # b.xml parsed first
        store.add_entries(nid, [Entry(loc=base + loc, lastmod=day[nid], lastmod_raw=day[nid].date().isoformat())
                                for loc in locs])
    store.commit()
    try:
        records = [(r.loc.removeprefix(base), r.sitemap.removeprefix(base), r.lastmod)
                   for r in coverage_records(store)]
        assert records == [("/a-only", "/a.xml", "2024-01-01"), ("/both", "/a.xml", "2024-01-01"),
                           ("/b-only", "/b.xml", "2024-02-01")]
        store.conn.execute("INSERT INTO coverage(key, loc, in_sitemaps, in_list) VALUES('x', 'x', 0, 1)")
        assert coverage_samples(store, 5, listed=True, crawl=False)["not_in_list"] == [
            f"{base}/a-only", f"{base}/both", f"{base}/b-only"]
        assert group_samples(store, 5)["multiple_sitemaps"] == [(f"{base}/both", "in 2 sitemaps")]
    finally:
        store.close()


def test_a_list_url_not_fetched_keeps_the_published_shape(site: HTTPServer, tmp_path: Path) -> None:
    """Found from outside: a list URL on another host (not fetched) had indexable and reason
    null, which the schema did not allow: now it does, and says why (no verdict without a fetch)."""
    target = coverage_site(site)
    listing = tmp_path / "urls.txt"
    listing.write_text("https://other.example/zzz\n")
    code, out, err = audit(target, "--compare-list", str(listing), "--format", "jsonl")
    assert code == 0, err
    recs = {r["loc"]: r for r in map(json.loads, out.splitlines())}
    other = recs["https://other.example/zzz"]
    assert other["indexable"] is None and other["reason"] is None and other["in_list"] is True
    schema = json.loads((Path(__file__).resolve().parents[1] / "docs/schemas/audit-record.schema.json").read_text())
    for rec in recs.values():
        assert [(list(e.path), e.message) for e in Draft202012Validator(schema).iter_errors(rec)] == [], rec


def test_the_crawl_stays_on_its_port(site: HTTPServer, httpserver: HTTPServer) -> None:
    """Found from outside: the home page's link to another port of the same host was crawled,
    and that site's pages counted as indexable pages in no sitemap (which cannot list them)."""
    base = site.url_for("").rstrip("/")
    elsewhere = httpserver.url_for("/x")
    site.expect_request("/robots.txt").respond_with_data("User-agent: *\nDisallow:\n", content_type="text/plain")
    site.expect_request("/").respond_with_data(page(["/a", elsewhere]), content_type="text/html")
    site.expect_request("/a").respond_with_data(page([]), content_type="text/html")
    site.expect_request("/sitemap.xml").respond_with_data(
        f'<?xml version="1.0"?>\n<urlset {NS}><url><loc>{base}/</loc></url></urlset>\n', content_type="application/xml")
    httpserver.expect_request("/x").respond_with_data(page([]), content_type="text/html")
    code, out, err = audit(f"{base}/sitemap.xml", "--crawl", "100", "--format", "jsonl")
    assert code == 0, err
    assert set(by_path(out, base)) == {"/", "/a"}  # /a: in no sitemap, found by its link
    assert not [r for r, _ in httpserver.log if r.path == "/x"]  # never fetched
    assert "--crawl: 1 link(s) to other hosts or ports than" in err



def test_a_crawl_the_time_budget_stops_says_how_far_it_got(site: HTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found from outside: --max-time ended the crawl and stderr said only how many URLs were
    audited; what the crawl left, and what its orphans then mean, went unsaid."""
    import asyncio

    from sitemap_tui.engine import audit as audit_mod

    target = coverage_site(site)
    original = audit_mod.Auditor.audit_one
    calls = {"n": 0}

    async def slowing(self, url):  # noqa: ANN001, ANN202 - the patched method
        calls["n"] += 1
        if calls["n"] > len(LISTED) + 3:  # the crawl's pages after its first three
            await asyncio.sleep(5)
        return await original(self, url)

    monkeypatch.setattr(audit_mod.Auditor, "audit_one", slowing)
    code, _, err = audit(target, "--crawl", "100", "--max-time", "2", "--concurrency", "1")
    assert "ran out (--max-time)" in err, err
    assert "--crawl: the time budget stopped it after" in err and "were not crawled" in err, err
    # near miss: a crawl that ends by itself says no such thing
    monkeypatch.setattr(audit_mod.Auditor, "audit_one", original)
    code, _, err = audit(target, "--crawl", "100")
    assert code == 0 and "time budget" not in err, err

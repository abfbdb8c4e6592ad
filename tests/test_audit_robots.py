"""``sitemap-tui audit`` of a sitemap URL (not a site) against a real 127.0.0.1 server: the
exploration of a sitemap URL reads no robots.txt, so the crawler-access table had nothing to
judge by; the audit reads the host's robots.txt for its own user agent anyway, and keeps it, so
the text summary shows the crawler table and a store opened in the explorer its matrix."""

from __future__ import annotations

import io
import json
from pathlib import Path
from urllib.parse import urlsplit

from pytest_httpserver import HTTPServer
from test_audit import audit, html, sitemap

from sitemap_tui.engine.access import DEFAULT_AGENTS, compute
from sitemap_tui.engine.formats import AUDIT_COLUMNS, UrlWriter, records_from_rows
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.access import AccessTable, robots_texts, stored_counts
from sitemap_tui.engine.store.audit import indexability_counts
from sitemap_tui.engine.store.audit_filters import is_skipped
from sitemap_tui.engine.store.rows import EntryFilter
from sitemap_tui.engine.store.schema import connect
from sitemap_tui.engine.store.urls import Query
from sitemap_tui.tui.url_filter import combine, parse_filter, row_matches
from sitemap_tui.tui.widgets.overview_audit import _indexability

ROBOTS = "User-agent: GPTBot\nDisallow: /private/\n\nUser-agent: sitemap-tui\nDisallow: /private/own\n"


def _site(server: HTTPServer, robots: str | None = ROBOTS) -> str:
    if robots is not None:
        server.expect_request("/robots.txt").respond_with_data(robots, content_type="text/plain")
    for path in ("/a", "/private/b", "/private/own"):
        server.expect_request(path).respond_with_data(html(), content_type="text/html")
    return sitemap(server, ["/a", "/private/b", "/private/own"])


def test_audit_of_a_sitemap_url_keeps_robots_txt_and_shows_the_crawler_table(httpserver: HTTPServer,
                                                                              tmp_path: Path) -> None:
    db = tmp_path / "site.db"
    code, out, err = audit(_site(httpserver), "--format", "text", "--db", str(db))
    assert code == 0, err
    # the audit obeyed it for itself: its own page was not fetched
    assert "/private/own" not in {req.path for req, _ in httpserver.log}
    assert "Crawler access (robots.txt) of 3 listed URLs\n" in out, out
    lines = {line.split()[0]: line.split()[1:] for line in out.split("Crawler access", 1)[1].splitlines()[2:]
             if line.strip() and not line.startswith(" ")}
    assert lines["GPTBot"] == ["1", "2"] and lines["Googlebot"] == ["3", "0"], lines
    assert "no robots.txt" not in err
    conn = connect(db, readonly=True)
    try:
        kept = dict(robots_texts(conn))
        assert kept == {httpserver.url_for("/robots.txt"): ROBOTS}
        files = [n for (n,) in conn.execute("SELECT DISTINCT node_id FROM entries")]
        assert stored_counts(conn, files) is None  # the text's table was a TEMP one: the store is as it was
    finally:
        conn.close()
    # the explorer on that store computes its matrix (palette "Crawler access", or by itself) by it
    store = Store(db)
    try:
        compute(AccessTable(store.conn, publish=store.publish), DEFAULT_AGENTS)
        store.publish()
        counts = stored_counts(store.conn, files)  # what the explorer's Overview matrix reads
    finally:
        store.close()
    assert counts is not None and counts.unknown == 0 and counts.urls == 3
    assert counts.blocked[DEFAULT_AGENTS.index("GPTBot")] == 2


def test_audit_without_robots_txt_lets_every_crawler_in(httpserver: HTTPServer) -> None:
    """A 404 robots.txt is no robots.txt: nothing disallowed (RFC 9309), for the audit's own
    fetches and in its crawler table. Found by a review: with a sitemap URL as the target the
    table was left out ("no robots.txt was read") where `access` said every crawler allowed."""
    httpserver.expect_request("/robots.txt").respond_with_data("not here", status=404)
    code, out, err = audit(_site(httpserver, robots=None), "--format", "text")
    assert code == 0, err
    assert {"/a", "/private/b", "/private/own"} <= {req.path for req, _ in httpserver.log}
    table = [line.split() for line in out.splitlines() if line.startswith(("GPTBot ", "Googlebot "))]
    assert table and all(row[1:] == ["3", "0"] for row in table), out
    assert "no robots.txt was read" not in err, err


def test_a_redirect_is_not_followed_into_a_path_its_hosts_robots_txt_disallows(httpserver: HTTPServer) -> None:
    """A listed URL's robots.txt allows it, but it redirects into a path robots.txt disallows:
    on the same host, and on another host (localhost) whose own robots.txt disallows it. Neither
    target is fetched; the verdict says why the chain stopped."""
    from werkzeug import Request, Response

    def robots(request: Request) -> Response:
        if request.host.startswith("localhost"):
            return Response("User-agent: *\nDisallow: /elsewhere/\n", content_type="text/plain")
        return Response("User-agent: *\nDisallow: /private/\n", content_type="text/plain")

    httpserver.expect_request("/robots.txt").respond_with_handler(robots)
    port = httpserver.port
    httpserver.expect_request("/here").respond_with_data("", status=301, headers={"Location": "/private/x"})
    httpserver.expect_request("/away").respond_with_data(
        "", status=302, headers={"Location": f"http://localhost:{port}/elsewhere/y"})
    httpserver.expect_request("/fine").respond_with_data(
        "", status=301, headers={"Location": f"http://localhost:{port}/open"})
    for path in ("/private/x", "/elsewhere/y", "/open"):
        httpserver.expect_request(path).respond_with_data(html(), content_type="text/html")
    code, out, err = audit(sitemap(httpserver, ["/here", "/away", "/fine"]), "--format", "jsonl")
    assert code == 0, err
    fetched = {(req.host.split(":")[0], req.path) for req, _ in httpserver.log}
    assert ("127.0.0.1", "/private/x") not in fetched and ("localhost", "/elsewhere/y") not in fetched
    assert ("localhost", "/robots.txt") in fetched and ("localhost", "/open") in fetched  # near miss
    rows = {json.loads(line)["loc"].rsplit("/", 1)[-1]: json.loads(line) for line in out.splitlines()}
    here, away, fine = rows["here"], rows["away"], rows["fine"]
    assert here["final_url"] == httpserver.url_for("/private/x")
    assert (here["status"], away["status"], here["redirects"]) == (301, 302, 1)  # the answers that led there
    assert here["reason"] == ("non-indexable: redirect (redirect to " + httpserver.url_for("/private/x")
                              + " not followed: robots.txt disallows it for sitemap-tui)"), here
    assert away["final_url"] == f"http://localhost:{port}/elsewhere/y" and "not followed" in away["reason"]
    assert fine["reason"] == f"non-indexable: redirect to http://localhost:{port}/open"


def test_a_mapped_builds_robots_txt_is_obeyed_not_read_as_unreadable(tmp_path: Path) -> None:
    """Found from outside: `audit --map SITE=DIR` read the build's robots.txt through the map
    (status 200, no headers) as "could not be read (HTTP 200)": every URL counted as disallowed.
    Now its rules are obeyed: /x blocked, /p fetched (near miss)."""
    from test_audit import records

    site = "http://127.0.0.1:9"  # (nothing listens there: every byte comes from the folder)
    (tmp_path / "robots.txt").write_text("User-agent: *\nDisallow: /x\n")
    (tmp_path / "sitemap.xml").write_text(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{site}/p.html</loc></url><url><loc>{site}/x.html</loc></url></urlset>")
    for name in ("p.html", "x.html"):
        (tmp_path / name).write_text("<html><head><title>t</title></head><body>hi</body></html>")
    code, out, err = audit(str(tmp_path / "sitemap.xml"), "--map", f"{site}/={tmp_path}/", "--format", "jsonl")
    assert "could not be read" not in err, err
    rows = records(out)
    assert rows["p.html"]["status"] == 200 and rows["p.html"]["indexable"] is True, rows["p.html"]
    assert rows["x.html"]["reason"] == "non-indexable: blocked by robots.txt", rows["x.html"]


def test_a_robots_txt_shutting_out_this_tool_alone_gives_no_verdict(httpserver: HTTPServer, tmp_path: Path) -> None:
    """Found from outside: a site whose robots.txt lets Googlebot in and every other bot out (a
    common guard against scrapers) read "0 indexable, N non-indexable: blocked by robots.txt",
    nothing said, its pages indexable all along. Those URLs are not fetched (obeyed) and not
    judged: said on stderr, "not audited" in the summary. Near misses: --ignore-robots fetches
    them; a URL disallowed for Googlebot too is still blocked."""
    robots = "User-agent: Googlebot\nDisallow: /private/\n\nUser-agent: *\nDisallow: /\n"
    target = _site(httpserver, robots)
    db = tmp_path / "site.db"
    code, out, err = audit(target, "--format", "text", "--db", str(db))
    assert code == 0, err
    # the explorer's Overview: the skipped URL said, and the audit done (found by a review: "u
    # goes on" stayed, u fetched nothing)
    conn = connect(db, readonly=True)
    try:
        files = [n for (n,) in conn.execute("SELECT DISTINCT node_id FROM entries")]
        counts = indexability_counts(conn, files)
    finally:
        conn.close()
    assert counts is not None and (counts.audited, counts.skipped, counts.more) == (2, 1, False), counts
    rows = _indexability(counts)
    head = rows[0].label.plain
    assert "1 not fetched: robots.txt shuts sitemap-tui out" in head and "u goes on" not in head, head
    # found using it: the skipped URLs could not be listed; their own row drills to status:skipped,
    # which lists exactly them, in SQL (the table, its count, an export) and row by row (marks)
    drill = [r for r in rows if r.filter_text == "status:skipped"]
    assert len(drill) == 1 and drill[0].label.plain.split() == ["skipped:", "robots.txt", "1"], drill
    store = Store(db, readonly=True)
    try:
        flt = combine(EntryFilter(), parse_filter("status:skipped"))
        listed = Query(store, flt).rows(store.conn)
        assert [r.loc for r in listed] == [target.rsplit("/", 1)[0] + "/a"], listed
        every = Query(store, EntryFilter()).rows(store.conn)
        assert [r.loc for r in every if row_matches(flt, r, coverage_check=lambda i, w: is_skipped(store.conn, i))] \
            == [r.loc for r in listed]
        with_audit = combine(EntryFilter(), parse_filter("status:skipped indexable:no"))  # (none: no verdict)
        assert Query(store, with_audit).rows(store.conn) == []
        # found by a review: robots.txt was read for it, yet it had no crawler verdict
        # (blocked:Bingbot left it out, the export said blocked_for "?", "no robots.txt read")
        cells = listed[0].audit
        assert cells is not None and cells.access_known and not cells.audited, cells
        assert "sitemap-tui" in cells.blocked and "Bingbot" in cells.blocked and "Googlebot" not in cells.blocked
        for words, wanted in (("blocked:bingbot", {"/a", "/private/b", "/private/own"}),
                              ("allowed:Googlebot", {"/a"}), ("allowed:Bingbot", set())):
            f = combine(EntryFilter(), parse_filter(words))
            got = Query(store, f).rows(store.conn)
            assert {urlsplit(r.loc or "").path for r in got} == wanted, (words, got)
            assert {r.loc for r in every if row_matches(f, r)} == {r.loc for r in got}, words  # row by row too
        record = next(records_from_rows(store, listed, audit=True))
        assert record.audit is not None and "Bingbot" in record.audit["blocked_for"], record.audit
        buf = io.StringIO()
        UrlWriter(buf, "csv", audit=AUDIT_COLUMNS).write([record])
        cell = buf.getvalue().splitlines()[1].split(",")[len(buf.getvalue().splitlines()[0].split(",")) - len(AUDIT_COLUMNS)
                                                          + AUDIT_COLUMNS.index("blocked_for")]
        assert "Bingbot" in cell and "?" not in cell, buf.getvalue()
    finally:
        store.close()
    assert "1 listed URL(s) not fetched: robots.txt disallows them for sitemap-tui, not for Googlebot" in err
    assert out.startswith(f"Audit of {target}: 3 URLs listed, 2 audited, 0 indexable, 2 non-indexable\n"), out
    assert "Not audited: 1 " in out and "Blocked by robots.txt: 2\n" in out, out
    assert not {"/a", "/private/b", "/private/own"} & {req.path for req, _ in httpserver.log}
    code, out, err = audit(target, "--format", "jsonl", "--fail-if", "non_indexable>2")
    assert code == 0, err
    rows = {json.loads(line)["loc"].rsplit("/", 1)[-1]: json.loads(line) for line in out.splitlines()}
    assert sorted(rows) == ["b", "own"] and rows["b"]["reason"] == "non-indexable: blocked by robots.txt", rows
    # the URL list's pages in no sitemap: not judged either (not counted as missing)
    listing = tmp_path / "list.txt"
    listing.write_text(httpserver.url_for("/elsewhere") + "\n")
    code, out, err = audit(target, "--format", "jsonl", "--compare-list", str(listing))
    assert "--compare-list: 1 URL(s) of the list in no sitemap not fetched: robots.txt disallows them for " \
           "sitemap-tui, not for Googlebot" in err and "another host" not in err, err
    other = [json.loads(line) for line in out.splitlines() if json.loads(line)["loc"].endswith("/elsewhere")]
    assert other[0]["indexable"] is None and not other[0]["in_sitemaps"], other
    code, out, err = audit(target, "--format", "jsonl", "--ignore-robots")
    assert code == 0 and len(out.splitlines()) == 3 and "not fetched" not in err, err


def test_a_robots_txt_that_answers_503_once_is_asked_again(httpserver: HTTPServer) -> None:
    """Found by a review: one 503 (Retry-After: 1) on robots.txt, then the file: the audit of a
    sitemap URL asked once, read the 503 as "disallow everything", and failed a CI gate on every
    URL "blocked by robots.txt". Near miss: one that answers 503 every time still disallows,
    after a second try, and says so."""
    from werkzeug import Request, Response

    answers = iter([Response("busy", status=503, headers={"Retry-After": "1"})])

    def robots(request: Request) -> Response:
        return next(answers, None) or Response("User-agent: *\nDisallow: /private/\n", content_type="text/plain")

    httpserver.expect_request("/robots.txt").respond_with_handler(robots)
    for path in ("/a", "/b"):
        httpserver.expect_request(path).respond_with_data(html(), content_type="text/html")
    code, out, err = audit(sitemap(httpserver, ["/a", "/b"]), "--format", "jsonl", "--fail-if", "non_indexable")
    assert code == 0, (out, err)
    assert {json.loads(line)["reason"] for line in out.splitlines()} == {"indexable"}, out
    assert [req.path for req, _ in httpserver.log].count("/robots.txt") == 2

    httpserver.clear()
    httpserver.expect_request("/robots.txt").respond_with_data("down", status=500)
    httpserver.expect_request("/a").respond_with_data(html(), content_type="text/html")
    code, out, err = audit(sitemap(httpserver, ["/a"]), "--format", "jsonl")
    assert "(HTTP 500 Internal Server Error, asked 2 times)" in err, err
    assert [req.path for req, _ in httpserver.log].count("/robots.txt") == 2
    assert "blocked by robots.txt" in out, out

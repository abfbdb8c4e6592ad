"""The store's counts behind the explorer's Overview (issue 22 §2, §4) against a real audit of a
127.0.0.1 site: the indexability groups agree with the records ``sitemap-tui audit`` writes, an
audit limited to some sitemaps (the explorer's node audit) fetches only theirs, and the
crawler-access matrix is read without writing, only once it was computed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from test_audit import NS, audit, html, run, sitemap, verdict_site

from sitemap_tui.engine.access import DEFAULT_AGENTS, compute
from sitemap_tui.engine.audit import AuditOptions
from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.store import EntryFilter, Store
from sitemap_tui.engine.store.access import AccessTable, stored_counts
from sitemap_tui.engine.store.audit import audited, indexability_counts, todo_count
from sitemap_tui.engine.store.schema import connect
from sitemap_tui.session.audit import run_audit


@pytest.fixture()
def site(threaded_httpserver: HTTPServer) -> HTTPServer:
    """A threaded server (tests/conftest.py): the slow page must not hold the others up."""
    return threaded_httpserver


def _file_ids(conn: sqlite3.Connection) -> list[int]:
    return [n for (n,) in conn.execute("SELECT DISTINCT node_id FROM entries ORDER BY node_id")]


def _expected(rec: dict) -> set[str]:
    """The groups a record belongs to, decided from its JSONL fields (not the SQL)."""
    reason = rec["reason"].lower()
    groups = {"indexable" if rec["indexable"] else "non-indexable"}
    for key, word in (("redirect", "redirect"), ("noindex", "noindex"), ("canonical", "canonical"),
                      ("robots", "robots"), ("not-html", "not html")):
        if word in reason:
            groups.add(key)
    if rec["status"] == 404:
        groups.add("404")
    if (not rec["indexable"] and (rec["status"] is None or rec["status"] >= 400) and rec["status"] != 404
            and "redirect" not in reason and "robots" not in reason):
        groups.add("error")
    return groups


def test_indexability_groups_agree_with_the_audit_records(site: HTTPServer, tmp_path: Path) -> None:
    db = tmp_path / "site.db"
    code, out, err = audit(verdict_site(site), "--format", "jsonl", "--timeout", "1", "--db", str(db))
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    conn = connect(db, readonly=True)
    try:
        counts = indexability_counts(conn, _file_ids(conn))
    finally:
        conn.close()
    assert counts is not None
    assert counts.listed == counts.audited == len(records) == 20
    expected: dict[str, int] = {}
    for rec in records:
        for group in _expected(rec):
            expected[group] = expected.get(group, 0) + 1
    assert {k: v for k, v in counts.groups.items() if v} == expected
    # every kind the Overview names is in this site: 404, 410/500/timeout (error), redirect ...
    assert counts.groups["404"] == 1 and counts.groups["error"] >= 3 and counts.groups["noindex"] >= 2
    assert counts.groups["indexable"] + counts.groups["non-indexable"] == 20
    # each Overview row drills to a filter that lists exactly the URLs it counts
    from sitemap_tui.engine.store.urls import Query
    from sitemap_tui.tui.url_filter import combine, parse_filter, row_matches
    from sitemap_tui.tui.widgets.overview_audit import _ROWS

    store = Store(db)
    try:
        scope = EntryFilter(node_ids=_file_ids(store.conn))
        for key, _label, words, _style in _ROWS:
            flt = combine(scope, parse_filter(words))
            assert store.count(flt) == counts.groups[key], (key, words)
            rows = Query(store, scope).rows_at_offset(store.conn, 0, 100)  # as the URL table reads them
            assert sum(row_matches(flt, r) for r in rows) == counts.groups[key], (key, words)
    finally:
        store.close()


def _two_sitemaps(site: HTTPServer) -> None:
    site.expect_request("/robots.txt").respond_with_data("User-agent: GPTBot\nDisallow: /b\n", content_type="text/plain")
    for page in ("/a1", "/a2", "/b1", "/b2", "/b3"):
        site.expect_request(page).respond_with_data(html(), content_type="text/html")
    sitemap(site, ["/a1", "/a2"], "/one.xml")
    sitemap(site, ["/b1", "/b2", "/b3"], "/two.xml")
    index = f'<?xml version="1.0"?><sitemapindex {NS}>' + "".join(
        f"<sitemap><loc>{site.url_for(n)}</loc></sitemap>" for n in ("/one.xml", "/two.xml")) + "</sitemapindex>"
    site.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")


def test_a_node_audit_fetches_only_its_sitemaps_and_access_is_read_once_computed(site: HTTPServer, tmp_path: Path) -> None:
    db = tmp_path / "site.db"
    _two_sitemaps(site)
    # an exploration kept in a file (as the explorer keeps one), nothing audited yet
    code, _, err = run("validate", site.url_for("/index.xml"), "--db", str(db), "--workers", "0")
    assert code == 0, err
    store = Store(db)
    try:
        one, two = (store.conn.execute("SELECT id FROM nodes WHERE url = ?", (site.url_for(n),)).fetchone()[0]
                    for n in ("/one.xml", "/two.xml"))
        assert audited(store) == 0 and todo_count(store) == 5 and todo_count(store, [two]) == 3
        assert stored_counts(store.conn, [one, two]) is None  # never computed: nothing to show
        fetched = run_audit(store, FetchConfig(), AuditOptions(rate=0, node_ids=(two,)), on_note=lambda _t: None)
        assert fetched == 3 and todo_count(store, [two]) == 0 and todo_count(store) == 2
        assert {p for req, _ in site.log if (p := req.path) in ("/a1", "/a2")} == set()
        assert indexability_counts(store.conn, [one]) is None  # nothing of it audited
        c = indexability_counts(store.conn, [one, two])
        assert c is not None and (c.listed, c.audited, c.groups["indexable"]) == (5, 3, 3)
        compute(AccessTable(store.conn, publish=store.publish), DEFAULT_AGENTS)
        store.publish()
    finally:
        store.close()
    conn = connect(db, readonly=True)  # as the Overview reads it: no write
    try:
        got = stored_counts(conn, [two])
        both = stored_counts(conn, [one, two])
    finally:
        conn.close()
    assert got is not None and both is not None
    gpt = DEFAULT_AGENTS.index("GPTBot")
    assert (got.urls, got.unknown, got.blocked[gpt], got.allowed(gpt)) == (3, 0, 3, 0)
    assert (both.urls, both.blocked[gpt], both.allowed(gpt), both.allowed(0)) == (5, 3, 2, 5)

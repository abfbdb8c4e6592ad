"""The store's counts behind the explorer's Overview (issue 22 §2, §4) against a real audit of a
127.0.0.1 site: the indexability groups agree with the records ``sitemap-tui audit`` writes, an
audit limited to some sitemaps (the explorer's node audit) fetches only theirs, and the
crawler-access matrix is read without writing, only once it was computed."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

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

T = TypeVar("T")


@pytest.fixture()
def site(threaded_httpserver: HTTPServer) -> HTTPServer:
    """A threaded server (tests/conftest.py): the slow page must not hold the others up."""
    return threaded_httpserver


def _file_ids(conn: sqlite3.Connection) -> list[int]:
    return [n for (n,) in conn.execute("SELECT DISTINCT node_id FROM entries ORDER BY node_id")]


def _read(db: Path, counts: Callable[[sqlite3.Connection, list[int]], T]) -> T:
    """``counts`` over every sitemap of the store, read as the Overview reads it: no write."""
    conn = connect(db, readonly=True)
    try:
        return counts(conn, _file_ids(conn))
    finally:
        conn.close()


def _expected(rec: dict) -> set[str]:
    """The groups a record belongs to, decided from its JSONL fields (not the SQL): a
    non-indexable URL in one group, by its verdict's first words (the first reason wins)."""
    reason = rec["reason"].lower()
    if rec["indexable"]:
        return {"indexable"}
    for key, start in (("404", "404"), ("redirect", "redirect"), ("noindex", "noindex"),
                       ("canonical", "canonicalised"), ("robots", "blocked by robots"), ("not-html", "not html")):
        if reason.startswith("non-indexable: " + start):
            return {"non-indexable", key}
    return {"non-indexable", "error"}


def test_indexability_groups_agree_with_the_audit_records(site: HTTPServer, tmp_path: Path) -> None:
    db = tmp_path / "site.db"
    code, out, err = audit(verdict_site(site), "--format", "jsonl", "--timeout", "1", "--db", str(db))
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    counts = _read(db, indexability_counts)
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


def test_each_non_indexable_url_is_in_one_overview_row(site: HTTPServer, tmp_path: Path) -> None:
    """Found by a review: the rows matched words anywhere in the reason, so a redirect that
    robots.txt stopped counted as robots too, a redirect to a 404 as 404 (its final status),
    a canonical URL with "robots" in it as robots, and a 201 or a 204 in no row at all: the
    rows summed to the non-indexable count only by chance. Each drill lists what its row counts."""
    base = site.url_for("").rstrip("/")
    site.expect_request("/robots.txt").respond_with_data("User-agent: *\nDisallow: /private/\n")
    site.expect_request("/ok").respond_with_data(html(), content_type="text/html")
    site.expect_request("/r-robots").respond_with_data("", status=301, headers={"Location": f"{base}/private/x"})
    site.expect_request("/r-404").respond_with_data("", status=301, headers={"Location": f"{base}/gone"})
    site.expect_request("/gone").respond_with_data("nope", status=404, content_type="text/html")
    site.expect_request("/created").respond_with_data(html(), status=201, content_type="text/html")
    site.expect_request("/empty").respond_with_data("", status=204)
    site.expect_request("/canon").respond_with_data(
        html(f'<link rel="canonical" href="{base}/robots-and-redirect-guide">'), content_type="text/html")
    target = sitemap(site, ["/ok", "/r-robots", "/r-404", "/gone", "/created", "/empty", "/canon", "/private/p"])
    db = tmp_path / "site.db"
    code, out, err = audit(target, "--format", "jsonl", "--db", str(db))
    counts = _read(db, indexability_counts)
    assert counts is not None
    shown = {k: v for k, v in counts.groups.items() if v}
    assert shown == {"indexable": 1, "non-indexable": 7, "redirect": 2, "404": 1, "error": 2, "canonical": 1,
                     "robots": 1}, (shown, out)
    assert sum(v for k, v in counts.groups.items() if k not in ("indexable", "non-indexable")) == 7
    from sitemap_tui.engine.store.urls import Query
    from sitemap_tui.tui.url_filter import combine, parse_filter, row_matches
    from sitemap_tui.tui.widgets.overview_audit import _ROWS

    store = Store(db)
    try:
        scope = EntryFilter(node_ids=_file_ids(store.conn))
        rows = Query(store, scope).rows_at_offset(store.conn, 0, 100)
        for key, _label, words, _style in _ROWS:
            flt = combine(scope, parse_filter(words))
            assert store.count(flt) == counts.groups[key] == sum(row_matches(flt, r) for r in rows), (key, words)
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
        finished = run_audit(store, FetchConfig(), AuditOptions(rate=0, node_ids=(two,)), on_note=lambda _t: None)
        assert finished and audited(store) == 3 and todo_count(store, [two]) == 0 and todo_count(store) == 2
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
    from sitemap_tui.tui.widgets.overview_audit import _access

    assert _access(both)[0].label.plain == "Crawler access   by robots.txt: 5 listed URLs"
    # a run stopped part-way (x), or rows fetched since: the header says how many were judged,
    # where it read as the whole (found by a review: 120,000 "listed" beside a header's 149,000)
    conn = connect(db)
    try:
        conn.execute("DELETE FROM access WHERE entry_id IN (SELECT id FROM entries WHERE node_id = ?)", (two,))
        conn.commit()
        part = stored_counts(conn, [one, two])
    finally:
        conn.close()
    assert part is not None and (part.urls, part.listed) == (2, 5)
    assert _access(part)[0].label.plain == ("Crawler access   by robots.txt: 2 of 5 listed URLs judged; the rest:"
                                            " Crawler access, in the palette")


def test_coverage_rows_count_what_their_filters_list(site: HTTPServer, tmp_path: Path) -> None:
    """The Overview's "Missing from sitemaps", "Orphans" and "Not in your list" (issue 22 §3)
    against a real --crawl and --compare-list: each count is what its filter word lists, in
    SQL (the count, the URL table's query, the export's walk) and in row_matches; the missing
    pages are rows of no sitemap, told apart from entries and from compare mode's removed rows."""
    from test_coverage import audit as coverage_audit
    from test_coverage import coverage_site

    from sitemap_tui.engine.formats import records_from_rows
    from sitemap_tui.engine.store.coverage_filters import (
        coverage_overview,
        has_coverage,
        is_unlisted,
    )
    from sitemap_tui.engine.store.diff_view import is_removed
    from sitemap_tui.engine.store.exports import ordered_rows
    from sitemap_tui.engine.store.urls import Query
    from sitemap_tui.tui.url_filter import combine, parse_filter, row_matches
    from sitemap_tui.tui.widgets.overview_audit import coverage_rows

    target = coverage_site(site)
    base = site.url_for("").rstrip("/")
    db = tmp_path / "site.db"
    listing = tmp_path / "urls.txt"
    listing.write_text(f"{base}/a\n{base}/from-list\n{base}/b\n")
    code, _, err = coverage_audit(target, "--crawl", "100", "--compare-list", str(listing), "--db", str(db))
    assert code == 0, err
    counts = _read(db, coverage_overview)
    assert counts is not None and counts.listed and counts.crawled
    # the headless audit's numbers (test_coverage): 5 indexable pages in no sitemap from the crawl
    # (/unlisted, /deep/1..4) and /from-list from the list; /orphan and /secret/listed; 3 not listed
    assert (counts.missing, counts.orphans, counts.not_in_list) == (6, 2, 3)
    rows = coverage_rows(counts)
    drills = {row.filter_text: row for row in rows if row.filter_text}
    assert set(drills) == {"coverage:missing", "orphan:yes", "coverage:not-in-list"}
    want = {"coverage:missing": 6, "orphan:yes": 2, "coverage:not-in-list": 3}
    store = Store(db, readonly=True)
    try:
        scope = EntryFilter(node_ids=_file_ids(store.conn))
        every = Query(store, scope).rows_at_offset(store.conn, 0, 100)
        for words, n in want.items():
            flt = combine(scope, parse_filter(words))
            listed = Query(store, flt).rows_at_offset(store.conn, 0, 100)
            exported = list(ordered_rows(store, flt))
            assert store.count(flt) == Query(store, flt).count(store.conn) == len(listed) == n, words
            assert [r.loc for r in exported] == [r.loc for r in listed]
            assert f"{n:,}" in drills[words].label.plain
            if words == "coverage:missing":
                assert all(is_unlisted(r.id) and not is_removed(r.id) for r in listed)
                assert sorted(r.loc for r in listed) == sorted(
                    f"{base}{p}" for p in ("/from-list", "/unlisted", "/deep/1", "/deep/2", "/deep/3", "/deep/4"))
                assert all(row_matches(flt, r) for r in listed) and not any(row_matches(flt, r) for r in every)
                # exported as pages of no sitemap, with the verdict of their own fetch
                records = list(records_from_rows(store, exported, issues=True, audit=True))
                assert [r.loc for r in records] == [r.loc for r in listed]
                assert all(r.sitemap == "" and r.audit is not None and r.audit["indexable"] is True
                           and r.audit["status"] == 200 for r in records), records[0]
            else:
                check = lambda entry_id, word: has_coverage(store.conn, entry_id, word)  # noqa: E731
                assert sum(row_matches(flt, r, coverage_check=check) for r in every) == n, words
        orphans = Query(store, combine(scope, parse_filter("orphan:yes"))).rows_at_offset(store.conn, 0, 100)
        assert sorted(r.loc for r in orphans) == [f"{base}/orphan", f"{base}/secret/listed"]
        # a substring narrows the missing pages too; a node scope does not (they are in no sitemap)
        deep = combine(EntryFilter(node_ids=[10_000]), parse_filter("coverage:missing deep"))
        assert store.count(deep) == 4
    finally:
        store.close()


def test_coverage_words_without_a_crawl_or_list_say_so(site: HTTPServer, tmp_path: Path) -> None:
    from sitemap_tui.engine.store.coverage_filters import coverage_overview
    from sitemap_tui.tui.url_filter import parse_filter

    db = tmp_path / "site.db"
    _two_sitemaps(site)
    code, _, err = run("validate", site.url_for("/index.xml"), "--db", str(db), "--workers", "0")
    assert code == 0, err
    store = Store(db, readonly=True)
    try:
        assert coverage_overview(store.conn, _file_ids(store.conn)) is None
        for words in ("orphan:yes", "coverage:missing", "coverage:not-in-list"):
            flt = EntryFilter(**{k: v for k, v in vars_of(parse_filter(words)).items() if v is not None})
            with pytest.raises(ValueError, match="sitemap-tui audit"):
                store.count(flt)
    finally:
        store.close()
    with pytest.raises(ValueError, match="use missing or not-in-list"):
        parse_filter("coverage:everything")
    with pytest.raises(ValueError, match="orphan:yes"):
        parse_filter("orphan:no")


def vars_of(uf: object) -> dict:
    import dataclasses

    return {f.name: getattr(uf, f.name) for f in dataclasses.fields(uf)  # type: ignore[arg-type]
            if f.name in ("orphan", "coverage")}


def test_a_listed_loc_that_is_no_fetchable_url_is_listed_and_said(site: HTTPServer, tmp_path: Path) -> None:
    """Found from outside: a loc with a space (no fetchable URL) was left out of the listed
    URLs, and the Overview said "3 of 3 listed URLs audited" where `sitemap-tui audit` said
    "Not audited: 1". It is listed, never audited, and said; "u goes on" is not offered for it."""
    from sitemap_tui.tui.widgets.overview_audit import _indexability

    for page in ("/a1", "/a2"):
        site.expect_request(page).respond_with_data(html(), content_type="text/html")
    target = sitemap(site, ["/a1", "/a2", "/a1", "/bad page"])
    db = tmp_path / "site.db"
    code, _, err = audit(target, "--db", str(db))
    assert code == 0, err
    counts = _read(db, indexability_counts)
    assert counts is not None and (counts.listed, counts.audited, counts.unfetchable) == (4, 3, 1)
    head = _indexability(counts)[0].label.plain
    assert "3 of 4 listed URLs audited, 1 no fetchable URL" in head and "u goes on" not in head


def test_u_goes_on_only_while_an_audit_would_fetch_more(site: HTTPServer, tmp_path: Path) -> None:
    """Found from outside: with a URL left on another host, the Overview said "(u goes on)" and
    u fetched nothing (an audit fetches the sitemaps' hosts alone). Near miss: a URL of the
    sitemap's own host with no result yet is what u goes on with."""
    from sitemap_tui.tui.widgets.overview_audit import _indexability

    site.expect_request("/a1").respond_with_data(html(), content_type="text/html")
    base = site.url_for("").rstrip("/")
    body = (f'<?xml version="1.0"?><urlset {NS}><url><loc>{base}/a1</loc></url>'
            "<url><loc>https://other.invalid/x</loc></url></urlset>")
    site.expect_request("/sitemap.xml").respond_with_data(body, content_type="application/xml")
    db = tmp_path / "site.db"
    code, _, err = audit(site.url_for("/sitemap.xml"), "--db", str(db))
    assert code == 0, err
    counts = _read(db, indexability_counts)
    assert counts is not None and (counts.listed, counts.audited, counts.more) == (2, 1, False)
    head = _indexability(counts)[0].label.plain
    assert "u goes on" not in head and "the rest on other hosts" in head
    store = Store(db)
    try:  # the sitemap's own URL's result forgotten (moved): u would fetch it again
        store.conn.execute("UPDATE audit SET key = 'https://other.invalid/x'")  # its result, moved
        store.commit()
        counts = indexability_counts(store.conn, _file_ids(store.conn))
    finally:
        store.close()
    assert counts is not None and counts.more and "u goes on" in _indexability(counts)[0].label.plain

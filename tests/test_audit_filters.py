"""The URL table's audit filters and columns at the store level (issue 22 §2 and §4): a store filled by
a real ``sitemap-tui audit`` run against 127.0.0.1, each filter word's rows, the Python evaluation
(row_matches) agreeing with the SQL, sorting on audit columns, and crawler access from both the
audit's own lists and the access table."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from audit_site import ELSEWHERE, PAGES, ROBOTS, audit_into, name
from pytest_httpserver import HTTPServer

from sitemap_tui.engine.access import compute
from sitemap_tui.engine.store import EntryFilter, Store
from sitemap_tui.engine.store.access import AccessTable
from sitemap_tui.engine.store.urls import Query
from sitemap_tui.tui.url_filter import combine, parse_filter, row_matches


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()
    try:
        db = tmp_path_factory.mktemp("audited") / "site.db"
        audit_into(server, db)
        yield db
    finally:
        server.clear()
        server.stop()


@pytest.fixture()
def with_access(audited: Path, tmp_path: Path) -> Path:
    """The audited store with the crawler-access table computed (as ``sitemap-tui access`` keeps it).
    The audit of a sitemap URL keeps no robots.txt in the store (the exploration started at the
    sitemap, not the site): it is kept here as an exploration of the site's root keeps it."""
    db = tmp_path / "access.db"
    shutil.copy(audited, db)
    store = Store(db)
    try:
        origin = store.conn.execute("SELECT loc FROM entries ORDER BY id LIMIT 1").fetchone()[0].rsplit("/", 1)[0]
        store.set_meta(f"robots:{origin}/robots.txt", ROBOTS)
        store.commit()
        store.begin()
        compute(AccessTable(store.conn, publish=store.publish), ("Googlebot", "GPTBot", "ClaudeBot"))
    finally:
        store.close()
    return db


def listed(db: Path, text: str, sort: str = "id", descending: bool = False) -> list[str]:
    """The rows the filter text lists, by name, in the table's order; and row_matches must say
    the same of every row of the store."""
    store = Store(db, readonly=True)
    try:
        flt = combine(EntryFilter(), parse_filter(text))
        rows = Query(store, flt, sort, descending=descending).rows(store.conn, limit=1000)
        every = Query(store, EntryFilter()).rows(store.conn, limit=1000)
        assert {r.id for r in every if row_matches(flt, r)} == {r.id for r in rows}, text
        return [name(r.loc) for r in rows]
    finally:
        store.conn.close()


ALL = [*PAGES, ELSEWHERE]


@pytest.mark.parametrize(("text", "expected"), [
    ("status:404", ["gone"]),
    ("status:4xx", ["gone"]),
    ("status:3xx", ["moved"]),  # the redirect was followed: its final status is 200
    ("status:200", ["ok", "moved", "noindex", "canon", "gpt/page", "selfcanon"]),
    ("status:none", []),
    ("indexable:yes", ["ok", "gpt/page", "selfcanon"]),
    ("indexable:no", ["gone", "moved", "noindex", "canon"]),
    ("reason:noindex", ["noindex"]),
    ("reason:redirect", ["moved"]),
    ("reason:404", ["gone"]),
    ("reason:canonical", ["canon"]),
    ("canonical:other", ["canon"]),
    ("canonical:self", ["selfcanon"]),
    ("canonical:none", ["ok", "gone", "moved", "noindex", "gpt/page"]),
    ("blocked:GPTBot", ["gpt/page"]),
    ("blocked:gptbot", ["gpt/page"]),
    ("allowed:GPTBot", ["ok", "gone", "moved", "noindex", "canon", "selfcanon"]),
    ("blocked:ClaudeBot", []),
    ("indexable:no status:200", ["moved", "noindex", "canon"]),
    ("indexable:no gone", ["gone"]),
])
def test_each_filter_lists_the_audited_urls_it_names(audited: Path, text: str, expected: list[str]) -> None:
    assert listed(audited, text) == expected


def test_unaudited_url_has_no_cells_and_matches_no_audit_filter(audited: Path) -> None:
    store = Store(audited, readonly=True)
    try:
        rows = {name(r.loc): r for r in Query(store, EntryFilter()).rows(store.conn)}
    finally:
        store.conn.close()
    assert rows[ELSEWHERE].audit is None
    cells = rows["gone"].audit
    assert cells is not None and cells.status == 404 and cells.indexable == 0 and cells.reason == "non-indexable: 404"
    assert rows["gpt/page"].audit is not None and rows["gpt/page"].audit.blocked == ("GPTBot",)
    assert rows["moved"].audit is not None and rows["moved"].audit.redirects == 1
    assert rows["ok"].audit is not None and rows["ok"].audit.response_time is not None


def test_sorting_on_audit_columns_puts_unaudited_urls_last_both_ways(audited: Path) -> None:
    up = listed(audited, "", sort="status")
    assert up[0] == "ok" and up.index("gone") == 6 and up[-1] == ELSEWHERE  # 200s by id, then the 404
    down = listed(audited, "", sort="status", descending=True)
    assert down[0] == "gone" and down[-1] == ELSEWHERE
    assert listed(audited, "", sort="indexable")[:4] == ["gone", "moved", "noindex", "canon"]
    assert listed(audited, "", sort="reason")[0] == "ok"  # "indexable" < "non-indexable: ..."
    assert listed(audited, "", sort="blocked", descending=True)[0] == "gpt/page"
    assert listed(audited, "", sort="time")[-1] == ELSEWHERE


def test_access_table_decides_blocked_for_when_the_store_has_one(with_access: Path) -> None:
    assert listed(with_access, "blocked:GPTBot") == ["gpt/page"]
    # the access table judged the URL on the other origin too: unknown, so neither blocked nor allowed
    assert listed(with_access, "allowed:gptbot") == ["ok", "gone", "moved", "noindex", "canon", "selfcanon"]
    assert listed(with_access, "allowed:Googlebot") == list(PAGES)
    assert listed(with_access, "blocked:GPTBot", sort="blocked") == ["gpt/page"]


@pytest.mark.parametrize("text", ["blocked:Nobot", "allowed:CCBot"])
def test_an_agent_the_access_table_does_not_know_is_a_one_line_error(with_access: Path, text: str) -> None:
    store = Store(with_access, readonly=True)
    try:
        with pytest.raises(ValueError, match=r"no crawler .* in this exploration's access data; known: Googlebot, GPTBot, ClaudeBot"):
            Query(store, combine(EntryFilter(), parse_filter(text)))
    finally:
        store.conn.close()


def test_an_agent_the_audit_did_not_judge_is_a_one_line_error(audited: Path) -> None:
    store = Store(audited, readonly=True)
    try:
        with pytest.raises(ValueError, match="the audit judged no crawler 'nobot'"):
            Query(store, combine(EntryFilter(), parse_filter("blocked:nobot")))
    finally:
        store.conn.close()


def test_store_not_audited_yet_lists_nothing_and_has_no_cells(tmp_path: Path, httpserver: HTTPServer) -> None:
    """(An audit may start later, in the TUI: the filter stays, its rows come as results do.)"""
    from audit_site import serve

    from sitemap_tui import cli
    from sitemap_tui.engine.store.audit_filters import AuditView

    db = tmp_path / "plain.db"
    assert cli.main(["validate", serve(httpserver), "--db", str(db), "--workers", "0", "--no-history"]) in (0, 1)
    assert listed(db, "status:404") == [] and listed(db, "blocked:GPTBot") == []
    store = Store(db, readonly=True)
    try:
        assert not AuditView.of(store.conn).any
        rows = Query(store, EntryFilter()).rows(store.conn)
        assert rows and all(r.audit is None for r in rows)
        with pytest.raises(ValueError, match="the audit judged no crawler 'nobot'"):
            Query(store, combine(EntryFilter(), parse_filter("blocked:nobot")))
    finally:
        store.conn.close()


@pytest.mark.parametrize(("text", "error"), [
    ("status:abc", "status:abc? use 404, 3xx, none or skipped"),
    ("indexable:maybe", "indexable:maybe? use yes or no"),
    ("canonical:elsewhere", "canonical:elsewhere? use other, self or none"),
    ("blocked:", "blocked:? name a crawler"),
    ("reason:", "reason:? add a word"),
])
def test_bad_filter_words_are_one_line_errors(text: str, error: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_filter(text)
    assert str(exc.value).startswith(error) and "\n" not in str(exc.value)

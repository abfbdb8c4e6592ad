"""Compare mode's queries (issue 20 §2, engine.store.diff_view): two versions of a site served on
127.0.0.1 and saved as explorations; the comparison's tree badges, and the ``diff:`` filters of
the URL table, whose SQL agrees with ``row_matches`` on every category."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_cli_diff import run, site

from sitemap_tui.engine.store import EntryFilter, Store, connect
from sitemap_tui.engine.store.diff_view import (
    MARKS,
    attach,
    badges,
    has_mark,
    is_removed,
    mark_counts,
)
from sitemap_tui.engine.store.urls import Query, has_hreflang
from sitemap_tui.session.diff import compare_for_view
from sitemap_tui.tui.url_filter import combine, parse_filter, row_matches


@pytest.fixture(scope="module")
def compared(make_httpserver, tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("diffview")
    old, new, scratch = folder / "old.db", folder / "new.db", folder / "cmp.db"
    target = site(make_httpserver, 1)
    assert run("validate", target, "--db", str(old), "--fail-on", "never")[0] == 0
    site(make_httpserver, 2)
    assert run("validate", target, "--db", str(new), "--fail-on", "never")[0] == 0
    diff = compare_for_view(old, new, scratch)
    store = Store(new, readonly=True)
    yield diff, store, scratch, target.rsplit("/", 1)[0]
    store.conn.close()


def _locs(store: Store, scratch: Path, what: str) -> list[str]:
    rows = Query(store, EntryFilter(diff=what, diff_db=str(scratch)), "loc").rows(store.conn, limit=1000)
    return [r.loc or "" for r in rows]


def test_each_diff_filter_lists_the_urls_of_its_category(compared) -> None:
    diff, store, scratch, b = compared
    short = {what: [loc.removeprefix(b) for loc in _locs(store, scratch, what)] for what in MARKS}
    assert short["added"] == ["/f1", "/n1", "/p4", "/t"]
    # OLD's rows, shown although NEW's store has none of them
    assert short["removed"] == ["/g1", "/k1", "/p3", "/t/"]
    assert short["moved"] == ["/moved"]
    assert short["lastmod"] == ["/p1", "/p2"]
    assert short["lastmod-back"] == ["/p1"]
    assert short["attrs"] == ["/p1", "/p2"]
    assert short["ext"] == [f"{b.replace('http://', 'HTTP://')}/x/../b1".removeprefix(b), "/moved", "/p1"]
    # the summary's URL counts are the rows the filters list, row by row of the Changes pane
    # (found from outside: a URL in two files was two rows, and changefreq listed priority's)
    assert len(short["added"]) == diff.summary["urls_added"] == mark_counts(store.conn)["added"]
    for what, key in (("removed", "urls_removed"), ("moved", "urls_moved"), ("lastmod", "lastmod_changed"),
                      ("lastmod-forward", "lastmod_forward"), ("lastmod-back", "lastmod_backward"),
                      ("lastmod-set", "lastmod_set"), ("lastmod-cleared", "lastmod_cleared"),
                      ("changefreq", "changefreq_changed"), ("priority", "priority_changed"),
                      ("images", "images_changed"), ("videos", "videos_changed"), ("news", "news_changed"),
                      ("hreflang", "hreflang_changed")):
        assert len(short[what]) == diff.summary[key], what


def test_removed_rows_are_old_rows_filed_under_new_files(compared) -> None:
    _diff, store, scratch, b = compared
    rows = Query(store, EntryFilter(diff="removed", diff_db=str(scratch)), "loc").rows(store.conn)
    nodes = {n.id: n.url for n in store.nodes()}
    by_loc = {r.loc.removeprefix(b): r for r in rows if r.loc}
    assert all(is_removed(r.id) for r in rows)  # never one of NEW's rows
    assert nodes[by_loc["/p3"].node_id] == f"{b}/a.xml"
    assert nodes[by_loc["/k1"].node_id] == f"{b}/broken.xml"  # failing now: NEW has the node
    assert nodes[by_loc["/g1"].node_id] == f"{b}/index.xml"  # gone.xml: NEW's root
    # a node scope narrows them as it does NEW's rows
    a_id = next(i for i, u in nodes.items() if u.endswith("/a.xml"))
    scoped = Query(store, EntryFilter(node_ids=[a_id], diff="removed", diff_db=str(scratch)), "loc")
    assert [r.loc.removeprefix(b) for r in scoped.rows(store.conn) if r.loc] == ["/p3", "/t/"]
    assert scoped.count(store.conn) == 2


def test_sql_and_row_matches_agree_on_every_diff_filter(compared, tmp_path: Path) -> None:
    _diff, store, scratch, _b = compared
    conn = connect(store.path, readonly=True)  # another connection: the query attaches the scratch itself
    try:
        every = list(store.iter_entries(EntryFilter()))
        attach(conn, scratch)
        for what in MARKS:
            flt = combine(EntryFilter(diff_db=str(scratch)), parse_filter(f"diff:{what}"))
            q = Query(store, flt, "id")
            sql = [r.id for r in q.rows(conn, limit=1000)]
            pool = every + (q.rows(conn, limit=1000) if what == "removed" else [])
            python = [r.id for r in pool if row_matches(flt, r, diff_check=lambda i, w: has_mark(conn, i, w))]
            assert sorted(sql) == sorted(python), what
            # (the fixture sets and clears no lastmod; the other categories each list rows)
            assert sql or what in ("lastmod-set", "lastmod-cleared"), what
    finally:
        conn.close()


def test_badges_per_file_and_subtree(compared) -> None:
    _diff, store, scratch, b = compared
    conn = connect(store.path, readonly=True)
    try:
        attach(conn, scratch)
        got = badges(conn)
    finally:
        conn.close()
    by_url = {n.url.removeprefix(b): got.get(n.id, (0, 0, 0)) for n in store.nodes()}
    assert by_url["/a.xml"] == (2, 3, 2)  # +p4 +t, −p3 −moved −t/, ~p1 ~p2
    assert by_url["/b.xml"] == (1, 0, 2)  # +moved, ~b1 (video) ~moved (news)
    assert by_url["/new.xml"] == (1, 0, 0)
    assert by_url["/flaky.xml"] == (1, 0, 0)
    assert by_url["/broken.xml"] == (0, 1, 0)
    # the root sums its subtree, and the listings of gone.xml, which NEW lacks
    assert by_url["/index.xml"] == (5, 5, 4)


def test_a_diff_filter_without_a_comparison_says_how_to_get_one(compared) -> None:
    _diff, store, _scratch, _b = compared
    with pytest.raises(ValueError, match="compare mode"):
        Query(store, EntryFilter(diff="added"), "id")
    with pytest.raises(ValueError, match="use added, removed, moved"):
        parse_filter("diff:nope")


def test_a_word_given_twice_is_an_error_not_the_last_one_alone() -> None:
    """Found by a review: "diff:moved diff:removed" listed the removed rows alone, the second
    word silently replacing the first. Words of one name that set one field are refused; two
    plain words, two words of different fields, or one word twice alike still filter."""
    for text in ("diff:moved diff:removed", "rule:loc-empty rule:loc-missing", "has:image has:video",
                 "lastmod:2020 lastmod:2021"):
        with pytest.raises(ValueError, match="is given twice"):
            parse_filter(text)
    assert parse_filter("diff:moved diff:moved").diff == "moved"
    both = parse_filter("has:issue has:image example")
    assert both.has_issue and both.extension == "image" and both.substring == "example"


def test_scratch_is_read_only_for_the_explorer(compared) -> None:
    _diff, store, scratch, _b = compared
    conn = connect(store.path, readonly=True)
    try:
        attach(conn, scratch)
        with pytest.raises(sqlite3.OperationalError):
            conn.execute("DELETE FROM cmp.v_marks")
    finally:
        conn.close()


def test_a_connection_follows_the_latest_comparison(compared, tmp_path: Path) -> None:
    """A new comparison (another "Compare with…") replaces the scratch a connection reads."""
    _diff, store, scratch, _b = compared
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE v_marks(what TEXT, e INTEGER)")
    conn.commit()
    conn.close()
    reader = connect(store.path, readonly=True)
    try:
        attach(reader, scratch)
        assert mark_counts(reader)["added"] == 4
        attach(reader, other)
        assert mark_counts(reader)["added"] == 0
    finally:
        reader.close()


def test_diff_tui_opens_the_explorer_on_new_against_old(compared) -> None:
    """``diff OLD NEW --tui`` hands NEW and OLD to the explorer instead of writing a report; the
    report's own options are refused with it (one line, exit 2)."""
    import contextlib
    import io

    from sitemap_tui import cli

    diff, _store, _scratch, _b = compared
    old, new = diff.queries.paths["old"], diff.queries.paths["new"]
    calls: list[dict] = []

    def launch(**kw) -> int:
        calls.append(kw)
        return 0

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert cli.main(["diff", str(old), str(new), "--tui"], launch=launch) == 0
    assert calls == [{"db_path": new, "compare_with": old}]
    assert out.getvalue() == ""  # no report
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert cli.main(["diff", str(old), str(new), "--tui", "--format", "json"], launch=launch) == 2
    assert "--tui opens the explorer instead of writing a report: it does not take --format" in err.getvalue()
    assert len(calls) == 1


def test_removed_rows_match_no_counting_rule_of_new(compared) -> None:
    """Found by a review: rule:lastmod-missing counts a file's URLs without one; in compare mode
    `diff:removed rule:lastmod-missing` listed OLD's removed /p3 and /t/, filed under NEW's a.xml,
    which NEW's finding did not count (their issues show 0). Near miss: NEW's own, listed."""
    _, store, scratch, b = compared
    flt = EntryFilter(diff="removed", rule="lastmod-missing", diff_db=str(scratch))
    assert Query(store, flt, "loc").rows(store.conn) == []
    own = Query(store, EntryFilter(rule="lastmod-missing"), "loc").rows(store.conn)
    assert {r.loc.removeprefix(b) for r in own if r.loc} >= {"/t", "/café"}, own


def test_lang_over_removed_rows_reads_the_links_kept_beside_them(compared) -> None:
    """``lang:CODE`` on compare mode's removed rows reads OLD's links, copied beside them under
    their ids (NEW's ``alternates`` has none of theirs). Near miss: another language."""
    _, store, scratch, _ = compared
    removed = Query(store, EntryFilter(diff="removed", diff_db=str(scratch)), "loc").rows(store.conn)
    one = removed[0].id
    with sqlite3.connect(scratch) as conn:
        conn.execute("INSERT INTO v_removed_alternates(entry_id, rel, hreflang, href) VALUES (?, 'alternate', ' DE ', ?)",
                     (one, "https://example.com/de/"))
    try:
        for code, want in (("de", [one]), ("fr", [])):
            flt = EntryFilter(diff="removed", diff_db=str(scratch), hreflang=code)
            assert [r.id for r in Query(store, flt, "loc").rows(store.conn)] == want, code
            # the marks' per-row check of the same filter agrees (the comparison attached)
            attach(store.conn, str(scratch))
            assert has_hreflang(store.conn, one, code) == bool(want), code
    finally:
        with sqlite3.connect(scratch) as conn:
            conn.execute("DELETE FROM v_removed_alternates WHERE entry_id = ?", (one,))

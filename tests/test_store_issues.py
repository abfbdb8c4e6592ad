"""Store.forget_issues: the one place that drops a stage's earlier issues and keeps each
entry's issue counter (entries.n_issues) equal to the issues stored on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemap_tui.engine.model import Entry, Issue, Node, NodeKind, NodeState, Severity
from sitemap_tui.engine.store import IssueScope, Store


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "i.db")
    for nid in (1, 2):
        s.add_node(Node(id=nid, url=f"https://a.com/{nid}.xml", kind=NodeKind.URLSET, state=NodeState.DONE))
    yield s
    s.close()


def _issue(rule: str, node_id: int, message: str = "m") -> Issue:
    return Issue(rule, Severity.WARNING, message, node_id=node_id)


def _counters_match(store: Store) -> None:
    """Every entry's n_issues is the number of issues stored on it."""
    rows = store.conn.execute(
        "SELECT e.id, e.n_issues, (SELECT COUNT(*) FROM issues i WHERE i.entry_id = e.id)"
        " FROM entries e"
    ).fetchall()
    assert [(eid, n) for eid, n, _ in rows] == [(eid, real) for eid, _, real in rows]


def test_forget_drops_the_rules_issues_and_their_counts(store: Store) -> None:
    a, b = store.add_entries(1, [Entry(loc="https://a.com/a"), Entry(loc="https://a.com/b")])
    store.add_issues(
        [_issue("x", 1), _issue("x", 1), _issue("y", 1), _issue("x", 1), _issue("x", 1)],
        [a, a, a, b, None],
    )
    store.forget_issues(IssueScope(rules=("x",)))
    assert [(i.rule, i.entry_id) for i in store.issues()] == [("y", a)]
    _counters_match(store)
    # the scratch table it counts in is gone: nothing is left on the connection
    assert not store.conn.execute("SELECT name FROM sqlite_temp_master").fetchall()


def test_forget_on_some_files_only_their_entry_issues(store: Store) -> None:
    (a,) = store.add_entries(1, [Entry(loc="https://a.com/a")])
    (b,) = store.add_entries(2, [Entry(loc="https://a.com/b")])
    store.add_issues([_issue("x", 1), _issue("x", 1), _issue("x", 2)], [a, None, b])
    store.forget_issues(IssueScope(rules=("x",), node_ids=(1,), entries_only=True))
    # the file's own issue (no entry) and the other file's stay
    assert sorted((i.node_id, i.entry_id) for i in store.issues()) == [(1, None), (2, b)]
    _counters_match(store)


def test_forget_a_shared_rule_keeps_the_other_stages_findings(store: Store) -> None:
    """A rule two stages report: only its issues with no entry or with this stage's wording go."""
    (a,) = store.add_entries(1, [Entry(loc="https://a.com/a")])
    store.add_issues(
        [_issue("v", 1, "bad: robots.txt disallows it"), _issue("v", 1, "bad: not a video"),
         _issue("v", 1, "3 more"), _issue("x", 1)],
        [a, a, None, a],
    )
    store.forget_issues(IssueScope(rules=("x",), shared=(("v", "robots.txt disallows it"),)))
    assert [i.message for i in store.issues()] == ["bad: not a video"]
    _counters_match(store)


def test_a_caps_summary_issue_counts_for_the_findings_it_did_not_list(store: Store, tmp_path: Path) -> None:
    """A rule over its cap lists 10,000 findings and one "N more ... not listed" issue: every
    count (the headless summary, the issues pane's groups, the tree's badges, a site's history)
    says 10,000 + N, not the 10,001 rows (found from outside: 42,000 duplicates read 10,001)."""
    from sitemap_tui.engine.store.issues import IssueFilter, issue_groups
    from sitemap_tui.engine.store.summary import issue_counts

    more = Issue("x", Severity.WARNING, "40 more x issues not listed", node_id=1, weight=40)
    store.add_issues([_issue("x", 1), _issue("x", 1), more, _issue("y", 2)])
    assert store.rule_counts() == [("x", "warning", 42), ("y", "warning", 1)]
    assert store.issue_counts()["warning"] == 43
    assert store.issue_counts([2])["warning"] == 1
    assert store.issue_counts_by_node()[1]["warning"] == 42
    flt = IssueFilter((1, 2), ("error", "warning", "info"))
    assert issue_groups(store.conn, flt) == [("warning", "x", 42), ("warning", "y", 1)]
    store.commit()
    assert issue_counts(store.path)["warning"] == 43


def test_a_store_from_before_the_weight_column_counts_rows(tmp_path: Path) -> None:
    """A saved exploration without ``issues.weight`` is still counted, read only (a site's
    history, ``open`` on a file one cannot write), and gains the column when opened to write."""
    from sitemap_tui.engine.store.reads import StoreReads
    from sitemap_tui.engine.store.summary import issue_counts

    path = tmp_path / "old.db"
    s = Store(path)
    s.add_node(Node(id=1, url="https://a.com/1.xml", kind=NodeKind.URLSET, state=NodeState.DONE))
    s.add_issues([_issue("x", 1), _issue("x", 1)])
    s.conn.execute("ALTER TABLE issues DROP COLUMN weight")
    s.close()
    assert issue_counts(path)["warning"] == 2
    reads = StoreReads(path, readonly=True)
    try:
        assert reads.rule_counts() == [("x", "warning", 2)]
    finally:
        reads.close()
    s = Store(path)
    try:
        assert s.issue_counts()["warning"] == 2
        s.add_issues([Issue("x", Severity.WARNING, "5 more", node_id=1, weight=5)])
        assert s.rule_counts() == [("x", "warning", 7)]
    finally:
        s.close()


def test_diff_counts_a_caps_summary_as_the_findings_it_stands_for(tmp_path: Path) -> None:
    """Found from outside: a rule grown past its cap (a summary of 500 more, then of 2,000
    more) compared as "0 new"; a summary is as many findings as it stands for, there too."""
    from sitemap_tui.session.diff import compare

    paths = []
    for name, more in (("old", 500), ("new", 2000)):
        s = Store(tmp_path / f"{name}.db")
        s.add_node(Node(id=1, url="https://a.com/1.xml", kind=NodeKind.URLSET, state=NodeState.DONE))
        (e,) = s.add_entries(1, [Entry(loc="https://a.com/a")])
        s.add_issues([_issue("x", 1), Issue("x", Severity.WARNING, f"{more} more x issues not listed", node_id=1,
                                            weight=more)], [e, None])
        s.close()
        paths.append(s.path)
    diff = compare(paths[0], paths[1], tmp_path / "scratch.db")
    try:
        assert diff.issues_new_by_rule == {"x": 1500} and diff.issues_resolved_by_rule == {}
    finally:
        diff.queries.close()

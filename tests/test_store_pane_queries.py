"""The store layer's named queries for the TUI's panes (engine/store/issues.py, urls.py): the
issues pane's groups and rule listings, the overview's distinct URL count, the URL table's
lookups. The panes' own tests drive them through the widgets; these pin them without Textual."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from sitemap_tui.engine.model import Entry, Issue, Node, NodeKind, NodeState, Severity
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.issues import IssueFilter, issue_groups, rule_issues, rules_with_urls
from sitemap_tui.engine.store.urls import distinct_locs, has_rule, has_sort_index, row_by_id


def _store(path: Path) -> tuple[Store, list[int]]:
    store = Store(path)
    for nid in (1, 2):
        store.add_node(Node(id=nid, url=f"https://example.com/s{nid}.xml", kind=NodeKind.URLSET,
                            state=NodeState.DONE, depth=0))
    ids = store.add_entries(1, [Entry(loc="https://example.com/a", line=3), Entry(loc="https://example.com/b", line=4)])
    ids += store.add_entries(2, [Entry(loc="https://example.com/a", line=5)])
    store.add_issues(
        [
            Issue(rule="loc-bad", severity=Severity.ERROR, message="Bad URL here", node_id=1, line=3),
            Issue(rule="loc-bad", severity=Severity.ERROR, message="another", node_id=1, line=4),
            Issue(rule="lastmod-x", severity=Severity.WARNING, message="old date", node_id=2, line=5),
            Issue(rule="zz-info", severity=Severity.INFO, message="fyi", node_id=2),
        ],
        [ids[0], ids[1], ids[2], None],
    )
    store.commit()
    return store, ids


def test_issue_groups_errors_first_and_filtered(tmp_path: Path) -> None:
    store, _ = _store(tmp_path / "x.db")
    conn = store.conn
    every = IssueFilter((1, 2), ("error", "warning", "info"))
    assert issue_groups(conn, every) == [("error", "loc-bad", 2), ("warning", "lastmod-x", 1), ("info", "zz-info", 1)]
    assert issue_groups(conn, IssueFilter((2,), ("error", "warning"))) == [("warning", "lastmod-x", 1)]
    assert issue_groups(conn, IssueFilter((1, 2), ())) == []
    # the text matches a message or a rule id, case-insensitively, or names the rules by title
    assert issue_groups(conn, IssueFilter((1, 2), ("error", "warning", "info"), "bad url")) == [("error", "loc-bad", 1)]
    assert issue_groups(conn, IssueFilter((1, 2), ("error", "warning", "info"), "LASTMOD")) == [("warning", "lastmod-x", 1)]
    titled = IssueFilter((1, 2), ("error", "warning", "info"), "some title", titled=("zz-info",))
    assert issue_groups(conn, titled) == [("info", "zz-info", 1)]
    store.close()


def test_rule_issues_capped_with_the_total_and_the_sitemap(tmp_path: Path) -> None:
    store, _ = _store(tmp_path / "x.db")
    every = IssueFilter((1, 2), ("error", "warning", "info"))
    rows, total = rule_issues(store.conn, every, "error", "loc-bad", cap=1)
    assert total == 2 and [(r.line, r.message, r.sitemap) for r in rows] == [(3, "Bad URL here", "https://example.com/s1.xml")]
    rows, total = rule_issues(store.conn, every, "warning", "loc-bad", cap=10)
    assert (rows, total) == ([], 0)
    store.close()


def test_rules_with_urls_are_the_groups_with_an_issue_on_an_entry(tmp_path: Path) -> None:
    """The groups the Issues pane can drill into (issue 18): zz-info is on its file only."""
    store, _ = _store(tmp_path / "x.db")
    every = IssueFilter((1, 2), ("error", "warning", "info"))
    assert rules_with_urls(store.conn, every) == {("error", "loc-bad"), ("warning", "lastmod-x")}
    assert rules_with_urls(store.conn, IssueFilter((1,), ("warning", "info"))) == set()
    assert rules_with_urls(store.conn, IssueFilter((1, 2), ("error",), "another")) == {("error", "loc-bad")}
    store.close()


def test_url_lookups(tmp_path: Path) -> None:
    store, ids = _store(tmp_path / "x.db")
    conn = store.conn
    assert distinct_locs(conn, [1, 2]) == 2 and distinct_locs(conn, [1]) == 2 and distinct_locs(conn, []) == 0
    assert [r.loc for r in row_by_id(conn, ids[1])] == ["https://example.com/b"] and row_by_id(conn, 999) == []
    assert has_rule(conn, ids[0], "loc-bad") and not has_rule(conn, ids[2], "loc-bad")
    assert not has_sort_index(conn, "loc")
    store.ensure_index("loc")
    assert has_sort_index(conn, "loc")
    store.close()


def test_the_whole_explorations_totals_come_without_a_list_of_ids(tmp_path: Path) -> None:
    """The explorer's root asks for every file (Store.aggregate(None), issue_counts(filed=True)):
    the same totals as the list of every file's id, in one query instead of one per 500 ids."""
    from sitemap_tui.engine.stats import Aggregate

    store, _ = _store(tmp_path / "x.db")
    store.add_node(Node(id=0, url="https://example.com/", kind=NodeKind.SITE, state=NodeState.DONE, depth=0))
    for nid, (urls, images) in {0: (99, 99), 1: (2, 1), 2: (1, 3)}.items():
        node = Node(id=nid, url=f"https://example.com/s{nid}.xml" if nid else "https://example.com/",
                    kind=NodeKind.URLSET if nid else NodeKind.SITE, state=NodeState.DONE, depth=0)
        store.update_node(node, agg=Aggregate(urls=urls, images=images, hreflang=Counter({"de": nid})))
    # a finding filed under no node (counted by no node's badge, so by no subtree either)
    store.add_issues([Issue(rule="zz-info", severity=Severity.INFO, message="no node", node_id=None)], [None])
    store.commit()
    # a file with no entries (a 404): what the writer stores is the empty aggregate that the
    # reads skip (a merge that changes nothing, 4,600 of them 0.1 s on an index fan-out)
    from sitemap_tui.engine.store.reads import _EMPTY_AGG

    store.add_node(Node(id=3, url="https://example.com/gone.xml", kind=NodeKind.URLSET, state=NodeState.FAILED, depth=0))
    store.update_node(Node(id=3, url="https://example.com/gone.xml", kind=NodeKind.URLSET, state=NodeState.FAILED,
                           depth=0), agg=Aggregate(unique=0))
    assert store.conn.execute("SELECT agg FROM nodes WHERE id = 3").fetchone()[0] == _EMPTY_AGG
    store.commit()
    whole, listed = store.aggregate(None), store.aggregate([1, 2, 3])
    assert whole.to_json() == listed.to_json() and (whole.urls, whole.images) == (3, 4)  # (the site's 99 apart)
    assert store.issue_counts(filed=True) == store.issue_counts([0, 1, 2]) == {"error": 2, "warning": 1, "info": 1}
    assert store.issue_counts()["info"] == 2
    store.close()

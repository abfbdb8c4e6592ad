"""The tree's orders (engine/tree_order.py), and the report's order of issues built on one: the
same site gives the same report whichever file a worker finished first."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from sitemap_tui.engine.model import Issue, Node, NodeKind, NodeState, Severity
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.issues import IssueFilter, rule_issues
from sitemap_tui.engine.store.schema import tree_order
from sitemap_tui.engine.tree_order import KEY_WIDTH, listing_order, places

# index 1 lists ia (line 3) and ib (line 4); ib was parsed first, so its files got the lower ids
NESTED = [(1, None, None), (2, 1, 3), (3, 1, 4), (4, 3, 3), (5, 3, 4), (6, 2, 3), (7, 2, 4)]


def generation_order(tree) -> list[int]:
    """Level by level in Python (the roots, their children in their order, theirs...): what
    the store's ORDER BY length(place), place is held to."""
    rows = list(tree)
    kids: dict = {}
    for nid, parent, _line in sorted(rows, key=lambda r: (r[2] is None, r[2] or 0, r[0])):
        kids.setdefault(parent, []).append(nid)
    order, level = [], kids.get(None, [])
    while level:
        order += level
        level = [nid for parent in level for nid in kids.get(parent, [])]
    return order


def store_of(tmp_path: Path, tree, name: str = "s.db") -> Store:
    """A store holding ``tree``'s nodes, added parents first as the explorer adds them."""
    store = Store(tmp_path / name)
    added: set[int] = set()
    pending = list(tree)
    while pending:
        for row in [r for r in pending if r[1] is None or r[1] in added]:
            nid, parent, line = row
            store.add_node(Node(id=nid, url=f"https://a.example/{nid}.xml", kind=NodeKind.URLSET,
                                state=NodeState.DONE, parent_id=parent, line=line))
            added.add(nid)
            pending.remove(row)
    store.commit()
    return store


def test_the_two_orders_of_a_nested_tree(tmp_path: Path) -> None:
    assert listing_order(NESTED) == [1, 2, 6, 7, 3, 4, 5]  # depth first: ia, its files, ib, its files
    assert generation_order(NESTED) == [1, 2, 3, 6, 7, 4, 5]  # level by level: ia's files, then ib's
    store = store_of(tmp_path, NESTED)
    try:
        assert [r[0] for r in store.conn.execute(f"SELECT id FROM nodes ORDER BY {tree_order()}")] \
            == [1, 2, 3, 6, 7, 4, 5]
        assert [r[0] for r in store.conn.execute("SELECT id FROM nodes ORDER BY place")] == [1, 2, 6, 7, 3, 4, 5]
    finally:
        store.close()


@given(st.lists(st.integers(0, 1000), max_size=30), st.randoms())
def test_an_order_does_not_depend_on_which_file_got_which_id(parents: list[int], rng) -> None:
    """One tree under ids handed out in another order (files parsed in another order) gives
    the same files in the same order: each node i > 1 is listed on its own line by one of the
    nodes before it."""
    tree: list[tuple[int, int | None, int | None]] = [(1, None, None)]
    tree += [(i, 1 + p % (i - 1), i) for i, p in enumerate(parents, start=2)]
    ids = [nid for nid, _, _ in tree]
    shuffled = ids[:]
    rng.shuffle(shuffled)
    rename = dict(zip(ids, shuffled, strict=True))
    back = {new: old for old, new in rename.items()}
    other = [(rename[n], None if p is None else rename[p], line) for n, p, line in tree]
    for order in (listing_order, generation_order):
        assert [back[n] for n in order(other)] == order(tree)


@given(st.lists(st.tuples(st.integers(0, 1000), st.one_of(st.none(), st.integers(1, 50))), max_size=25))
def test_the_stores_places_give_both_orders(tmp_path_factory, shape) -> None:
    """The places add_node keeps, and those places() gives an earlier version's store, sort as
    the two orders do (lines repeat: a minified index lists every child on one line; no line:
    a folder's files; ids break those ties, as the explorer gives one file's children theirs
    in its order)."""
    tree: list[tuple[int, int | None, int | None]] = [(1, None, None)]
    tree += [(i, 1 + p % (i - 1), line) for i, (p, line) in enumerate(shape, start=2)]
    store = store_of(tmp_path_factory.mktemp("t"), tree)
    try:
        kept = dict(store.conn.execute("SELECT id, place FROM nodes"))
        assert kept == places(tree)
        assert all(len(p) % KEY_WIDTH == 0 for p in kept.values())
        assert [r[0] for r in store.conn.execute(f"SELECT id FROM nodes ORDER BY {tree_order()}")] \
            == generation_order(tree)
        assert [r[0] for r in store.conn.execute("SELECT id FROM nodes ORDER BY place")] == listing_order(tree)
    finally:
        store.close()


def test_an_earlier_versions_store_gets_its_places_on_opening(tmp_path: Path) -> None:
    store = store_of(tmp_path, NESTED)
    kept = dict(store.conn.execute("SELECT id, place FROM nodes"))
    store.conn.execute("UPDATE nodes SET place = NULL")
    store.commit()
    store.close()
    store = Store(tmp_path / "s.db")
    try:
        assert dict(store.conn.execute("SELECT id, place FROM nodes")) == kept
    finally:
        store.close()


def test_an_earlier_versions_store_opened_read_only_sorts_as_a_new_one(tmp_path: Path) -> None:
    """A store from before nodes.place in a file this user cannot write is opened read-only
    and never upgraded: every read that sorts by the tree raised "no such column: place". Its
    places go to a TEMP copy of its nodes, and the file keeps its bytes."""
    store = store_of(tmp_path, NESTED)
    store.add_issues([Issue("priority-invalid", Severity.ERROR, "x", node_id=nid, line=5) for nid in (5, 4, 7, 6)],
                     [None] * 4)
    expected = store.ids_in_tree_order()
    issues_order = [i.node_id for i in store.iter_issues()]
    store.conn.execute("ALTER TABLE nodes DROP COLUMN place")  # as 8675f33 wrote it
    store.commit()
    store.close()
    before = (tmp_path / "s.db").read_bytes()
    reader = Store(tmp_path / "s.db", readonly=True)
    try:
        assert expected == generation_order(NESTED)
        assert reader.ids_in_tree_order() == expected
        assert [i.node_id for i in reader.iter_issues()] == issues_order == [6, 7, 4, 5]
        rows, total = rule_issues(reader.conn, IssueFilter(node_ids=tuple(range(1, 8)), severities=("error",)),
                                  "error", "priority-invalid", 10)
        assert [r.node_id for r in rows] == [6, 7, 4, 5] and total == 4
    finally:
        reader.conn.close()
    assert (tmp_path / "s.db").read_bytes() == before


def test_the_report_lists_files_level_by_level_whatever_their_ids(tmp_path: Path) -> None:
    """Nested indexes with several workers: ib's files were parsed (and got their ids) before
    ia's. The report still lists ia's files first, as when ia was parsed first; by node id it
    listed b1, b2 before a1, a2 in one run and after them in the next."""
    store = Store(tmp_path / "s.db")
    names = {1: "index.xml", 2: "ia.xml", 3: "ib.xml", 4: "b1.xml", 5: "b2.xml", 6: "a1.xml", 7: "a2.xml"}
    for nid, parent, line in NESTED:
        kind = NodeKind.INDEX if nid <= 3 else NodeKind.URLSET
        store.add_node(Node(id=nid, url=f"https://a.example/{names[nid]}", kind=kind, state=NodeState.DONE,
                            parent_id=parent, line=line, depth=0 if parent is None else (1 if parent == 1 else 2)))
    store.add_issues([Issue("priority-invalid", Severity.ERROR, "x", node_id=nid, line=5) for nid in (5, 4, 7, 6)],
                     [None] * 4)
    store.add_issues([Issue("loc-empty", Severity.ERROR, "y")], [None])  # one without a file: first
    store.commit()
    try:
        assert [names.get(i.node_id) for i in store.iter_issues()] == [None, "a1.xml", "a2.xml", "b1.xml", "b2.xml"]
    finally:
        store.close()


def test_panes_and_the_audit_take_files_in_the_trees_order_whatever_their_ids(tmp_path: Path) -> None:
    """The same nested tree (ib's files b1, b2 parsed first: ids 4, 5; ia's a1, a2: 6, 7), /both
    listed by a1 and by b1. The issues pane, the audit's walk and its coverage records take a1,
    a2 before b1, b2, as when ia was parsed first; by node id they took b1 first in this run
    and a1 first in the next."""
    from sitemap_tui.engine.model import Entry
    from sitemap_tui.engine.store.audit import todo_pages
    from sitemap_tui.engine.store.coverage import coverage_records

    store = store_of(tmp_path, NESTED)
    base = "https://a.example"
    for nid, locs in ((4, ["/b1", "/both"]), (5, ["/b2"]), (6, ["/a1", "/both"]), (7, ["/a2"])):
        ids = store.add_entries(nid, [Entry(loc=base + loc) for loc in locs])
        store.add_issues([Issue("priority-invalid", Severity.ERROR, "x", node_id=nid, line=5)], [ids[0]])
    store.commit()
    try:
        flt = IssueFilter(node_ids=tuple(range(1, 8)), severities=("error",))
        rows, total = rule_issues(store.conn, flt, "error", "priority-invalid", 10)
        assert ([r.node_id for r in rows], total) == ([6, 7, 4, 5], 4)
        assert [u.node_id for page in todo_pages(store, None) for u in page] == [6, 6, 7, 4, 4, 5]
        assert [(r.loc.removeprefix(base), r.sitemap.removeprefix(base)) for r in coverage_records(store)] == [
            ("/a1", "/6.xml"), ("/both", "/6.xml"), ("/a2", "/7.xml"), ("/b1", "/4.xml"), ("/b2", "/5.xml")]
    finally:
        store.close()

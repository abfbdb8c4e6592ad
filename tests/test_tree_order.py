"""The tree's orders (engine/tree_order.py), and the report's order of issues built on one: the
same site gives the same report whichever file a worker finished first."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from sitemap_tui.engine.model import Issue, Node, NodeKind, NodeState, Severity
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.tree_order import generation_order, listing_order

# index 1 lists ia (line 3) and ib (line 4); ib was parsed first, so its files got the lower ids
NESTED = [(1, None, None), (2, 1, 3), (3, 1, 4), (4, 3, 3), (5, 3, 4), (6, 2, 3), (7, 2, 4)]


def test_the_two_orders_of_a_nested_tree() -> None:
    assert listing_order(NESTED) == [1, 2, 6, 7, 3, 4, 5]  # depth first: ia, its files, ib, its files
    assert generation_order(NESTED) == [1, 2, 3, 6, 7, 4, 5]  # level by level: ia's files, then ib's


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

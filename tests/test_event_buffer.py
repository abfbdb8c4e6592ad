"""The engine's event buffer: repeated changes of a node collapse to the latest within a slice,
but a change of its state is kept, in order (found by CI: a file fetched again went DONE ->
PENDING -> DONE in one slice; collapsed, the interface never saw it start again and kept its old
children beside the new ones)."""

from __future__ import annotations

from sitemap_tui.engine.events import EventBuffer, NodeAdded, NodeChanged
from sitemap_tui.engine.model import Node, NodeKind, NodeState


def node(state: NodeState, url_count: int = 0, node_id: int = 1) -> Node:
    n = Node(id=node_id, url="https://example.com/index.xml", kind=NodeKind.INDEX, state=state)
    n.stats.url_count = url_count
    return n


def test_a_change_of_state_is_kept_in_order_and_the_rest_collapse() -> None:
    got: list[list[object]] = []
    buf = EventBuffer(got.append, interval=3600)  # one slice: nothing flushes until asked
    buf.emit(NodeChanged(node(NodeState.PENDING)))
    buf.emit(NodeChanged(node(NodeState.FETCHING)))
    buf.emit(NodeAdded(node(NodeState.PENDING, node_id=2)))
    buf.emit(NodeChanged(node(NodeState.DONE, 1)))
    buf.emit(NodeChanged(node(NodeState.DONE, 5)))  # near miss: the same state collapses
    buf.flush()
    (events,) = got
    shown = [(type(e).__name__, e.node.id, e.node.state.value, e.node.stats.url_count) for e in events]  # type: ignore[attr-defined]
    assert shown == [("NodeChanged", 1, "pending", 0), ("NodeChanged", 1, "fetching", 0),
                     ("NodeAdded", 2, "pending", 0), ("NodeChanged", 1, "done", 5)]


def test_a_nodes_snapshot_is_a_copy_of_every_field_that_its_node_does_not_change() -> None:
    """What the events carry to the interface's thread (``explore_tree._snapshot``, built from
    the fields rather than by ``copy.copy``): equal to the node, then unmoved by its changes."""
    from dataclasses import fields

    from sitemap_tui.engine.explore_tree import _snapshot
    from sitemap_tui.engine.model import FileStats, FoundBy

    n = Node(id=7, url="https://example.com/a.xml", kind=NodeKind.URLSET, state=NodeState.DONE,
             found_by=FoundBy.INDEX, parent_id=3, depth=2, error="e", expandable=True, line=12,
             lastmod_raw="2024-01-01")
    for i, f in enumerate(fields(FileStats)):  # a value of its own in every field
        setattr(n.stats, f.name, i + 1 if f.type in ("int", "int | None") else f"v{i}")
    snap = _snapshot(n)
    assert snap == n and snap is not n and snap.stats is not n.stats
    n.state, n.stats.url_count, n.stats.final_url = NodeState.FETCHING, 99, "https://example.com/b.xml"
    assert snap.state is NodeState.DONE and snap.stats.url_count != 99 and snap.stats.final_url != "https://example.com/b.xml"

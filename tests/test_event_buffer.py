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

"""The UI thread's copy of the exploration tree, apart from the widget that draws it (the tree's
keyboard mixin and the widget both read it, and neither imports the other for it)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sitemap_tui.engine.model import Node, NodeKind, NodeState

ACTIVE = (NodeState.FETCHING, NodeState.PARSING)
CONTAINERS = (NodeKind.SITE, NodeKind.DIRECTORY)


@dataclass
class NodeModel:
    """The UI thread's view of the exploration tree (only ever touched on the UI thread)."""

    nodes: dict[int, Node] = field(default_factory=dict)
    children: dict[int | None, list[int]] = field(default_factory=dict)
    progress: dict[int, tuple[int, int | None]] = field(default_factory=dict)
    issues: dict[int, tuple[int, int]] = field(default_factory=dict)  # errors, warnings
    stopped: set[int] = field(default_factory=set)  # files the engine left unfinished when it stopped
    notes: dict[int, str] = field(default_factory=dict)  # said on the node (f: "other hosts followed")
    # compare mode: (added, removed, changed) listings over the node's subtree (tui/compare.py)
    changes: dict[int, tuple[int, int, int]] = field(default_factory=dict)

    def add(self, node: Node) -> None:
        if node.id in self.nodes:
            self.nodes[node.id] = node
            return
        self.nodes[node.id] = node
        self.children.setdefault(node.parent_id, []).append(node.id)

    def roots(self) -> list[int]:
        return list(self.children.get(None, []))

    def subtree_ids(self, node_id: int) -> list[int]:
        out: list[int] = []
        stack = [node_id]
        while stack:
            nid = stack.pop()
            if nid not in self.nodes:
                continue
            out.append(nid)
            stack.extend(reversed(self.children.get(nid, [])))
        return out

    def forget_descendants(self, node_id: int) -> list[int]:
        """Drop the children (recursively) of a node that is being fetched again."""
        gone: list[int] = []
        stack = list(self.children.pop(node_id, []))
        while stack:
            nid = stack.pop()
            gone.append(nid)
            self.nodes.pop(nid, None)
            self.progress.pop(nid, None)
            self.issues.pop(nid, None)
            stack.extend(self.children.pop(nid, []))
        return gone

    def file_nodes(self) -> Iterable[Node]:
        return (n for n in self.nodes.values() if n.kind not in CONTAINERS)

    def totals(self) -> tuple[int, int, int, int]:
        """(files done, files known, active, urls) over the whole tree."""
        done = total = active = urls = 0
        for n in self.file_nodes():
            if n.state == NodeState.SKIPPED:
                continue
            total += 1
            if n.state in (NodeState.DONE, NodeState.FAILED):
                done += 1
            elif n.state in ACTIVE:
                active += 1
            urls += n.stats.url_count
        return done, total, active, urls

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
    # totals() kept up to date by the nodes that changed (touch), not recounted over all of them:
    # 74 ms a call at 100,000 nodes, once per engine batch, was a third of the UI loop's time
    # during an expand-all of hostile indexes (found by a review)
    _dirty: set[int] = field(default_factory=set)
    _counted: dict[int, tuple[int, int, int, int]] = field(default_factory=dict)
    _sums: list[int] = field(default_factory=lambda: [0, 0, 0, 0])

    def add(self, node: Node) -> None:
        self._dirty.add(node.id)
        if node.id in self.nodes:
            self.nodes[node.id] = node
            return
        self.nodes[node.id] = node
        self.children.setdefault(node.parent_id, []).append(node.id)

    def touch(self, node_ids: Iterable[int]) -> None:
        """These nodes were replaced or changed in place (state, URL count): recount them."""
        self._dirty.update(node_ids)

    def roots(self) -> list[int]:
        return list(self.children.get(None, []))

    def is_only_root(self, node_id: int) -> bool:
        """The node is the exploration's one root: what is under it is everything explored."""
        node = self.nodes.get(node_id)
        return node is not None and node.parent_id is None and len(self.children.get(None, ())) == 1

    def subtree_ids(self, node_id: int) -> list[int]:
        out: list[int] = []
        stack = [node_id]
        nodes, children = self.nodes, self.children
        while stack:  # (leaves, most of a big tree, make no list: 160 ms -> 60 ms at 160,000 nodes)
            nid = stack.pop()
            if nid not in nodes:
                continue
            out.append(nid)
            kids = children.get(nid)
            if kids:
                stack.extend(reversed(kids))
        return out

    def forget_descendants(self, node_id: int) -> list[int]:
        """Drop the children (recursively) of a node that is being fetched again."""
        gone: list[int] = []
        stack = list(self.children.pop(node_id, []))
        while stack:
            nid = stack.pop()
            gone.append(nid)
            self._dirty.add(nid)
            self.nodes.pop(nid, None)
            self.progress.pop(nid, None)
            self.issues.pop(nid, None)
            stack.extend(self.children.pop(nid, []))
        return gone

    def file_nodes(self) -> Iterable[Node]:
        return (n for n in self.nodes.values() if n.kind not in CONTAINERS)

    def totals(self) -> tuple[int, int, int, int]:
        """(files done, files known, active, urls) over the whole tree."""
        sums, counted = self._sums, self._counted
        for nid in self._dirty:
            before = counted.pop(nid, None)
            node = self.nodes.get(nid)
            now = _share(node) if node is not None else None
            if before is not None:
                for i in range(4):
                    sums[i] -= before[i]
            if now is not None:
                counted[nid] = now
                for i in range(4):
                    sums[i] += now[i]
        self._dirty.clear()
        return sums[0], sums[1], sums[2], sums[3]

    def recount(self) -> tuple[int, int, int, int]:
        """:meth:`totals` counted over every node (what the kept sums must equal; tests)."""
        shares = [_share(n) for n in self.nodes.values()]
        return (sum(s[0] for s in shares), sum(s[1] for s in shares), sum(s[2] for s in shares),
                sum(s[3] for s in shares))


def _share(n: Node) -> tuple[int, int, int, int]:
    """One node's part of the totals: (done, known, active, urls)."""
    if n.kind in CONTAINERS or n.state == NodeState.SKIPPED:
        return 0, 0, 0, 0
    done = 1 if n.state in (NodeState.DONE, NodeState.FAILED) else 0
    active = 1 if n.state in ACTIVE else 0
    return done, 1, active, n.stats.url_count

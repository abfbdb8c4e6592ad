"""The tree's keyboard moves (→ / ←, as in every file-tree TUI) and its opening while an
expand-all runs: a mixin of :class:`~sitemap_tui.tui.widgets.sitemap_tree.SitemapTree`, kept
apart so that the tree's own module stays about nodes and labels."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widgets.tree import TreeNode

from sitemap_tui.tui.widgets.tree_model import ACTIVE

if TYPE_CHECKING:
    from sitemap_tui.tui.widgets.tree_model import NodeModel

CHUNK = 500  # tree nodes added per UI-loop turn
OPEN_MAX_CHILDREN = 5 * CHUNK
"""An index with more files than this is not opened by an expand-all (its 50,000 rows would fill
the tree and the UI loop); it says so, and → opens it."""

EVERYTHING = -1
"""``open_as_they_arrive`` scope: the whole exploration."""


class TreeNavigation:
    """→ expands a closed node or moves to the first child of an open one; ← closes an open node
    or moves to the parent. Replaces the tree's horizontal scroll on those keys (its labels are
    cut with an ellipsis, so nothing is lost)."""

    # (the keys are bound in SitemapTree.BINDINGS; the tree's state is SitemapTree's)
    model: NodeModel
    _tnodes: dict[int, TreeNode[int]]
    _queue: Any

    def _init_opening(self) -> None:
        self._opening: int | None = None  # the subtree (EVERYTHING: all) an expand-all opens
        self._open_later: set[int] = set()  # to open once their tree node exists
        self._too_big: set[int] = set()  # said once: not opened, too many files
        # indexes whose children are still streaming in: how many there will be is not known yet
        self._open_when_done: set[int] = set()

    # -- keys ---------------------------------------------------------------------------------
    def action_expand_or_child(self) -> None:
        tnode = self.cursor_node
        if tnode is None:
            return
        if tnode.allow_expand and not tnode.is_expanded:
            tnode.expand()  # (NodeExpanded: the children are shown or fetched)
            return
        if tnode.is_expanded:
            # the first real child; a "loading…" placeholder carries no node id
            first = next((c for c in tnode.children if c.data is not None), None)
            if first is not None:
                self.move_cursor_to(first)

    def action_collapse_or_parent(self) -> None:
        tnode = self.cursor_node
        if tnode is None:
            return
        if tnode.is_expanded and tnode.allow_expand:
            tnode.collapse()
            return
        parent = tnode.parent
        if parent is not None and parent is not self.root:
            self.move_cursor_to(parent)

    def action_expand_loaded(self) -> None:
        """Open every node under the cursor whose children are already known (fetches nothing)."""
        nid = self.cursor_id
        if nid is not None:
            self.expand_loaded(nid)

    # -- an expand-all opens what it fetches ----------------------------------------------------
    def open_as_they_arrive(self, node_id: int) -> None:
        """From now until :meth:`stop_opening`, every node under ``node_id`` (or EVERYTHING)
        opens in the tree as its children arrive; what is known already opens now."""
        self._opening = node_id
        for nid in self.model.roots() if node_id == EVERYTHING else [node_id]:
            self._open(nid)
            self.expand_loaded(nid)

    def stop_opening(self) -> None:
        self._opening = None
        self._open_later.clear()
        self._open_when_done.clear()

    def _in_opening(self, node_id: int | None) -> bool:
        if self._opening is None:
            return False
        if self._opening == EVERYTHING:
            return True
        while node_id is not None:
            if node_id == self._opening:
                return True
            node = self.model.nodes.get(node_id)
            node_id = node.parent_id if node is not None else None
        return False

    def _arrived(self, parent_ids: set[int], changed: set[int]) -> None:
        """New children arrived under these nodes, and these nodes changed (one engine batch).
        A file still being read is opened when it is done: its first batch of children said
        nothing of the 50,000 that followed, and the cap below let such an index open (found by
        a review: an expand-all over hostile indexes made a tree node of every child, its
        rebuilds stalled the UI for seconds and `x` took a minute)."""
        for pid in parent_ids:
            if not self._in_opening(pid):
                continue
            node = self.model.nodes.get(pid)
            if node is not None and node.state in ACTIVE:
                self._open_when_done.add(pid)
            else:
                self._open(pid)
        for nid in self._open_when_done & changed:
            node = self.model.nodes.get(nid)
            if node is None or node.state not in ACTIVE:
                self._open_when_done.discard(nid)
                if node is not None and self._in_opening(nid):
                    self._open(nid)

    def _open(self, node_id: int) -> None:
        kids = self.model.children.get(node_id)
        if not kids:
            return
        if len(kids) > OPEN_MAX_CHILDREN:
            if node_id not in self._too_big:
                self._too_big.add(node_id)
                node = self.model.nodes.get(node_id)
                name = node.url if node is not None else "an index"
                self.notify(f"{name} lists {len(kids):,} files: not opened by expand all (→ opens it).",  # type: ignore[attr-defined]
                            markup=False)
            return
        tnode = self._tnodes.get(node_id)
        if tnode is None:
            self._open_later.add(node_id)  # its own tree node is still in the queue
            return
        self.materialize(node_id)
        if not tnode.is_expanded:
            tnode.expand()

    def _created(self, node_ids: list[int]) -> None:
        """Tree nodes were just created: open those an expand-all is waiting for."""
        waiting = [nid for nid in node_ids if nid in self._open_later]
        for nid in waiting:
            self._open_later.discard(nid)
            if self._in_opening(nid):
                self._open(nid)

    def expand_loaded(self, node_id: int) -> None:
        """Open every node under ``node_id`` whose children are known (fetches nothing)."""
        for nid in self.model.subtree_ids(node_id):
            if not self.model.children.get(nid):
                continue
            self.materialize(nid)
            if len(self._queue) > OPEN_MAX_CHILDREN:
                self._flush_queue()  # a huge index: added in chunks, not opened further
                return
            self._add_some(len(self._queue))
            tnode = self._tnodes.get(nid)
            if tnode is not None and not tnode.is_expanded:
                tnode.expand()

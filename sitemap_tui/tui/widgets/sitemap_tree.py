"""The lazy tree of sitemaps: robots.txt -> indexes -> sitemaps / feeds / text files.

The tree keeps its own copy of the engine's nodes (``NodeModel``, fed by event batches) and
only creates Textual tree nodes for children of nodes the user expanded, so an index with
50,000 children costs nothing until it is opened, and then is added in chunks.

Every label is a ``rich.text.Text`` built from sanitised strings: nothing a server sends is
ever parsed as markup.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Iterable
from typing import cast

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.widgets import Tree
from textual.widgets._tree import _TreeLine
from textual.widgets.tree import TreeNode

from sitemap_tui.engine.events import (
    EntriesAdded,
    Event,
    ExplorationDone,
    IssuesAdded,
    NodeAdded,
    NodeChanged,
    Progress,
)
from sitemap_tui.engine.model import Node, NodeState
from sitemap_tui.tui.widgets.tree_labels import (  # noqa: F401 (the panes import them from here)
    ICONS,
    SPINNER,
    human_bytes,
    node_label,
    short_name,
    since_text,
)
from sitemap_tui.tui.widgets.tree_model import ACTIVE, CONTAINERS, NodeModel
from sitemap_tui.tui.widgets.tree_nav import CHUNK, TreeNavigation


class SitemapTree(TreeNavigation, Tree[int]):
    """Lazy tree over :class:`NodeModel`; asks for fetches with :class:`FetchRequested`."""

    BINDINGS = [
        Binding("shift+space", "expand_loaded", "Open loaded subtree", show=False, id="tree.expand_loaded"),
        Binding("right", "expand_or_child", "Open / first child", show=False, id="tree.expand_or_child"),
        Binding("left", "collapse_or_parent", "Close / parent", show=False, id="tree.collapse_or_parent"),
    ]

    class FetchRequested(Message):
        """The user opened a node whose file has not been fetched yet."""

        def __init__(self, node_id: int) -> None:
            super().__init__()
            self.node_id = node_id

    class NodeFocused(Message):
        """The cursor moved to a node (panes follow it)."""

        def __init__(self, node_id: int) -> None:
            super().__init__()
            self.node_id = node_id

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(Text("exploration"), name=name, id=id, classes=classes)
        self.show_root = False
        self.guide_depth = 3
        self.model = NodeModel()
        self._tnodes: dict[int, TreeNode[int]] = {}
        self._materialized: set[int] = set()  # children are (being) shown in the tree
        self._placeholders: dict[int, TreeNode[int]] = {}
        self._queue: deque[tuple[int | None, int]] = deque()
        self._draining = False
        self._requested: set[int] = set()
        self.refetched: set[int] = set()
        """Files seen fetched again in the events (their rows deleted): the app takes them."""
        self._frame = 0
        self.read_only = False
        self._init_opening()

    # -- rendering --------------------------------------------------------------------------
    def render_label(self, node: TreeNode[int], base_style: Style, style: Style) -> Text:
        label = cast(Text, node.label)  # (every label went through process_label)
        room = self._label_room(node)
        model_node = self.model.nodes.get(node.data) if node.data is not None else None
        if label.cell_len > room and model_node is not None:
            label = node_label(model_node, self.model, self._frame, width=room)
        label = label.copy()
        label.stylize(style)
        if node.allow_expand:
            prefix = (self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE, base_style + Style(bold=True))
        else:
            prefix = ("  ", base_style)
        return Text.assemble(prefix, label)

    def get_label_width(self, node: TreeNode[int]) -> int:
        # The stock implementation renders every label on each rebuild; with 50,000 nodes
        # that is a long stall. The label's own width plus the 2-cell prefix is the same.
        return min(cast(Text, node.label).cell_len, max(self._label_room(node), 1)) + 2

    def _build(self) -> None:
        """Textual's ``Tree._build`` (8.2) without its two costs on a big tree: a recursive
        closure that holds itself, and so the whole list of lines, in a reference cycle (each
        rebuild of a 50,000-line tree was 100,000 objects only the cyclic collector frees, and
        gc_tuning froze them for good: 540 MB after 35,000 nodes, found by a review); and a
        label width worked out from the widget's region once per line (35 µs each: 0.4 s a
        rebuild). Same lines, line numbers, virtual size and cursor."""
        lines: list[_TreeLine[int]] = []
        pending: list[tuple[list[TreeNode[int]], TreeNode[int], bool]] = []
        tops = [self.root] if self.show_root else list(self.root._children)
        pending.extend(([], node, True) for node in reversed(tops))
        while pending:
            path, node, last = pending.pop()
            child_path = [*path, node]
            node._line = len(lines)
            lines.append(_TreeLine(child_path, last))
            if node._expanded and node._children:
                kids = node._children
                pending.extend((child_path, kid, i == len(kids) - 1) for i, kid in reversed(list(enumerate(kids))))
        self._tree_lines_cached = lines
        room = self.scrollable_content_region.width - 2
        width = self.size.width
        if lines:
            guide, show_root = self.guide_depth, self.show_root
            above = 2 if show_root else 1  # path entries that are not guides (_label_room's depth)
            width = max(
                min(cast(Text, line.node._label).cell_len, max(room - (len(line.path) - above) * guide, 1)) + 2
                + line._get_guide_width(guide, show_root)
                for line in lines
            )
        self.virtual_size = Size(width, len(lines))
        if self.cursor_line != -1:
            if self.cursor_node is not None:
                self.cursor_line = self.cursor_node._line
            if self.cursor_line >= len(lines):
                self.cursor_line = -1

    def _label_room(self, node: TreeNode[int]) -> int:
        """Cells left for a label on its line: the width less the guides and the 2-cell prefix,
        and less the scrollbar (``size`` holds it: found from outside, at 80x24 a scrolling tree
        drew "●31" for 310 errors, the last digit under the scrollbar)."""
        depth = 0
        parent = node.parent
        while parent is not None and parent is not self.root:
            depth += 1
            parent = parent.parent
        return self.scrollable_content_region.width - depth * self.guide_depth - 2

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        # the labels' room changes with it: drawn again to fit
        self._invalidate()

    def label_for(self, node_id: int) -> Text:
        node = self.model.nodes[node_id]
        return node_label(node, self.model, self._frame)

    def refresh_label(self, node_id: int) -> None:
        tnode = self._tnodes.get(node_id)
        node = self.model.nodes.get(node_id)
        if tnode is None or node is None:
            return
        label = self.process_label(node_label(node, self.model, self._frame))
        allow = self._can_expand(node)
        if label == tnode.label and allow == tnode.allow_expand:
            return  # most batches change a few counters only: repaint nothing else
        # The stock set_label repaints the node's line and every line below it in its subtree
        # (an index's label changes with every batch: 20+ lines per batch). A label is drawn on
        # its own line only, so repaint just that one. No public TreeNode API sets a label
        # without that repaint: the label and the line cache's key are set here.
        tnode._label = label
        tnode._updates += 1  # part of the line cache's key
        tnode.allow_expand = allow
        line = tnode.line
        top = self.scroll_offset.y
        if line >= 0 and top <= line < top + self.size.height:
            self._refresh_line(line)

    def _can_expand(self, node: Node) -> bool:
        if self.model.children.get(node.id):
            return True
        if node.state in ACTIVE:
            return True
        if self.read_only:
            return False
        return node.expandable and node.state == NodeState.PENDING

    def tick_spinner(self) -> bool:
        """Advance the spinner of fetching nodes; False when nothing is fetching."""
        self._frame += 1
        nodes = self.model.nodes  # (the tree's nodes, not the model's: 28 ms a tick at 160,000)
        active = [nid for nid in self._tnodes if (n := nodes.get(nid)) is not None and n.state in ACTIVE]
        for nid in active:
            self.refresh_label(nid)
        return bool(active)

    # -- model updates ----------------------------------------------------------------------
    def load_nodes(self, nodes: Iterable[Node], issue_counts: dict[int, dict[str, int]] | None = None) -> None:
        """Build the model from stored nodes (``sitemap-tui open FILE.db``)."""
        for node in nodes:
            self.model.add(node)
        for nid, counts in (issue_counts or {}).items():
            if nid is not None:
                self.model.issues[nid] = (counts.get("error", 0), counts.get("warning", 0))
        for rid in self.model.roots():
            self._enqueue(None, rid)
        self._flush_queue()

    def apply_events(self, events: list[Event]) -> tuple[set[int], set[int], list[ExplorationDone]]:
        """Apply one engine batch. Returns (changed node ids, nodes with new issues, done events)."""
        changed: set[int] = set()
        issue_nodes: set[int] = set()
        done: list[ExplorationDone] = []
        parents: set[int] = set()  # of new nodes (an expand-all opens them)
        model = self.model
        for ev in events:
            if isinstance(ev, NodeAdded):
                node = ev.node
                if node.id in model.nodes:
                    model.nodes[node.id] = node
                    changed.add(node.id)
                    continue
                model.add(node)
                changed.add(node.id)
                self._node_added(node)
                if node.parent_id is not None:
                    parents.add(node.parent_id)
            elif isinstance(ev, NodeChanged):
                node = ev.node
                old = model.nodes.get(node.id)
                if old is None:
                    continue  # forgotten by a reload
                again = old.state in (NodeState.DONE, NodeState.FAILED) or (old.error == "cancelled" and node.error != "cancelled")
                if again and node.state in (NodeState.PENDING, *ACTIVE):
                    # fetched again (a reload, a cancelled file): the old children are gone from the store
                    for gone in model.forget_descendants(node.id):
                        changed.add(gone)
                    model.issues.pop(node.id, None)
                    self._remove_tree_children(node.id)
                    self.refetched.add(node.id)
                model.nodes[node.id] = node
                if node.state not in ACTIVE:
                    model.progress.pop(node.id, None)
                    self._requested.discard(node.id)
                changed.add(node.id)
            elif isinstance(ev, Progress):
                if ev.node_id in model.nodes:
                    model.progress[ev.node_id] = (ev.wire_bytes, ev.total)
                    changed.add(ev.node_id)
            elif isinstance(ev, EntriesAdded):
                node = model.nodes.get(ev.node_id)
                if node is not None:
                    node.stats.url_count = max(node.stats.url_count, ev.count)
                    changed.add(ev.node_id)
            elif isinstance(ev, IssuesAdded):
                if ev.node_id is not None:
                    issue_nodes.add(ev.node_id)
            elif isinstance(ev, ExplorationDone):
                done.append(ev)
        model.touch(changed)
        for nid in changed:
            if nid in model.nodes:
                self._settle(nid)
                self.refresh_label(nid)
        self._arrived(parents, changed)
        self._flush_queue()
        return changed, issue_nodes, done

    def set_issue_counts(self, counts: dict[int, tuple[int, int]]) -> None:
        for nid, value in counts.items():
            if nid in self.model.nodes:
                self.model.issues[nid] = value
                self.refresh_label(nid)

    def _node_added(self, node: Node) -> None:
        pid = node.parent_id
        if pid is None:
            self._enqueue(None, node.id)
            return
        if pid in self._materialized:
            self._enqueue(pid, node.id)
        elif pid in self._tnodes:
            self._tnodes[pid].allow_expand = True

    def _settle(self, node_id: int) -> None:
        """Drop a 'loading…' placeholder once the node has finished without children."""
        node = self.model.nodes[node_id]
        if node.state in ACTIVE or node.state == NodeState.PENDING and node_id in self._requested:
            return
        placeholder = self._placeholders.get(node_id)
        if placeholder is not None and not self.model.children.get(node_id):
            self._placeholders.pop(node_id, None)
            self._remove_tnode(placeholder)
            tnode = self._tnodes.get(node_id)
            if tnode is not None and node.state != NodeState.PENDING:
                self._materialized.discard(node_id)
                tnode.collapse()
                tnode.allow_expand = False
            elif tnode is not None:
                self._materialized.discard(node_id)
                tnode.collapse()

    # -- tree nodes -------------------------------------------------------------------------
    def _enqueue(self, parent_id: int | None, node_id: int) -> None:
        self._queue.append((parent_id, node_id))

    def _flush_queue(self) -> None:
        if not self._queue or self._draining:
            return
        if len(self._queue) <= CHUNK:
            self._add_some(len(self._queue))
        else:
            self._draining = True
            self._drain()

    @work(group="tree-drain", exclusive=False, description="add tree nodes")
    async def _drain(self) -> None:
        try:
            while self._queue:
                self._add_some(CHUNK)
                await asyncio.sleep(0)
        finally:
            self._draining = False

    def _add_some(self, count: int) -> None:
        queue = self._queue
        created: list[int] = []
        for _ in range(min(count, len(queue))):
            parent_id, node_id = queue.popleft()
            node = self.model.nodes.get(node_id)
            if node is None or node_id in self._tnodes:
                continue
            if parent_id is None:
                parent_t = self.root
            else:
                parent_t = self._tnodes.get(parent_id)
                if parent_t is None:
                    continue
                placeholder = self._placeholders.pop(parent_id, None)
                if placeholder is not None:
                    self._remove_tnode(placeholder)
            tnode = parent_t.add(node_label(node, self.model, self._frame), node_id, allow_expand=self._can_expand(node))
            self._tnodes[node_id] = tnode
            created.append(node_id)
        if self._open_later and created:
            self._created(created)  # (what they enqueue waits for the next flush or drain turn)
            if self._queue and not self._draining:
                self.call_later(self._flush_queue)

    def _remove_tnode(self, tnode: TreeNode[int]) -> None:
        with contextlib.suppress(Exception):  # already gone
            tnode.remove()

    def _remove_tree_children(self, node_id: int) -> None:
        """Remove the tree nodes under a node (fast for 50,000 children)."""
        tnode = self._tnodes.get(node_id)
        self._placeholders.pop(node_id, None)
        self._materialized.discard(node_id)
        if tnode is None:
            return
        # TreeNode.remove_children() finds each child with list.index (quadratic: minutes for
        # 50,000 children), so the children are dropped here, by Textual's private fields
        stack = list(tnode.children)
        while stack:
            child = stack.pop()
            stack.extend(child.children)
            if child.data is not None:
                self._tnodes.pop(child.data, None)
                self._materialized.discard(child.data)
                self._placeholders.pop(child.data, None)
            self._tree_nodes.pop(child.id, None)
        tnode._children.clear()
        tnode._updates += 1
        tnode.collapse()
        self._invalidate()

    def materialize(self, node_id: int) -> None:
        """Show the known children of a node (or a loading placeholder and ask for a fetch)."""
        tnode = self._tnodes.get(node_id)
        node = self.model.nodes.get(node_id)
        if tnode is None or node is None or node_id in self._materialized:
            return
        kids = self.model.children.get(node_id, [])
        if kids:
            self._materialized.add(node_id)
            for cid in kids:
                self._enqueue(node_id, cid)
            self._flush_queue()
        elif node.state in ACTIVE or (node.state == NodeState.PENDING and node.expandable and not self.read_only):
            self._materialized.add(node_id)
            if node_id not in self._placeholders:
                self._placeholders[node_id] = tnode.add_leaf(Text("loading…", style="dim italic"))
            if node.state == NodeState.PENDING:
                self.request_fetch(node_id)
        else:
            tnode.allow_expand = False

    def request_fetch(self, node_id: int) -> None:
        node = self.model.nodes.get(node_id)
        if node is None or self.read_only or node_id in self._requested:
            return
        if node.state != NodeState.PENDING or node.kind in CONTAINERS:
            return
        self._requested.add(node_id)
        self.post_message(self.FetchRequested(node_id))

    def fetch_finished(self, node_id: int) -> None:
        """A fetch request ended (or could not start): allow asking again, drop placeholders."""
        self._requested.discard(node_id)
        if node_id in self.model.nodes:
            self._settle(node_id)

    def engine_stopped(self, reason: str) -> list[int]:
        """The engine stopped (or can keep nothing more): the files it was fetching are marked
        failed with ``reason`` ("× stopped"), no placeholder waits for a fetch, and no node
        offers one any more. Returns the nodes that changed."""
        self.read_only = True
        model = self.model
        stopped = [nid for nid, n in model.nodes.items() if n.state in ACTIVE]
        for nid in stopped:
            node = model.nodes[nid]
            node.state = NodeState.FAILED
            node.error = reason
            model.progress.pop(nid, None)
            model.stopped.add(nid)
        model.touch(stopped)
        for nid in {*stopped, *self._requested}:
            self.fetch_finished(nid)
        for nid in list(self._tnodes):  # (pending nodes lose their expand arrow)
            self.refresh_label(nid)
        return stopped

    def reset(self) -> None:
        """Forget everything shown (another exploration is opened)."""
        self.clear()
        self.model = NodeModel()
        self._tnodes.clear()
        self._materialized.clear()
        self._placeholders.clear()
        self._queue.clear()
        self._requested.clear()
        self.refetched.clear()
        self.read_only = False
        self.stop_opening()

    @property
    def is_idle(self) -> bool:
        """No fetch asked for is unanswered and every known child is in the tree."""
        return not self._requested and not self._queue

    def materialize_now(self, node_id: int) -> None:
        """Put a node's children into the tree at once (not a chunk per UI turn)."""
        self.materialize(node_id)
        self._add_some(len(self._queue))

    def tree_node(self, node_id: int) -> TreeNode[int] | None:
        return self._tnodes.get(node_id)

    def open_subtree(self, node_id: int) -> int:
        """Open every node under ``node_id`` that has children (a saved exploration's e: what
        it holds, nothing fetched); how many were opened. Depth first, each node's children
        put into the tree before theirs are looked up."""
        opened = 0
        for nid in self.model.subtree_ids(node_id):
            t = self._tnodes.get(nid)
            if t is None or not self.model.children.get(nid):
                continue
            if not t.is_expanded:
                t.expand()
                opened += 1
            self.materialize_now(nid)
        return opened

    def reveal(self, node_id: int) -> bool:
        """Expand the ancestors of a node and move the cursor to it (when it is shown)."""
        chain: list[int] = []
        nid: int | None = node_id
        while nid is not None and nid in self.model.nodes:
            chain.append(nid)
            nid = self.model.nodes[nid].parent_id
        for anc in reversed(chain[1:]):
            t = self._tnodes.get(anc)
            if t is not None and not t.is_expanded:
                t.expand()
            self.materialize_now(anc)
        t = self._tnodes.get(node_id)
        if t is None:
            return False
        self.move_cursor_to(t)
        return True

    def move_cursor_to(self, tnode: TreeNode[int]) -> None:
        """``move_cursor`` after bringing the line numbers up to date (new nodes have none)."""
        _ = self._tree_lines  # rebuilds the lines if nodes were added since the last render
        self.move_cursor(tnode)

    @property
    def cursor_id(self) -> int | None:
        node = self.cursor_node
        return node.data if node is not None else None

    # -- events -----------------------------------------------------------------------------
    @on(Tree.NodeExpanded)
    def _expanded(self, event: Tree.NodeExpanded[int]) -> None:
        if event.node.data is not None:
            self.materialize(event.node.data)

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted[int]) -> None:
        event.stop()
        if event.node.data is not None:
            self.post_message(self.NodeFocused(event.node.data))

    @on(Tree.NodeSelected)
    def _selected(self, event: Tree.NodeSelected[int]) -> None:
        nid = event.node.data
        if nid is None:
            return
        node = self.model.nodes.get(nid)
        if node is not None and node.state == NodeState.PENDING:
            self.request_fetch(nid)
        self.post_message(self.NodeFocused(nid))

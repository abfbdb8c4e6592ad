"""The Issues pane's list: what each row stands for, and the keys that act on a row."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from sitemap_tui.engine.store import IssueRow


@dataclasses.dataclass(frozen=True, slots=True)
class IssueItem:
    """What a tree node stands for."""

    kind: str  # "severity" | "rule" | "issue" | "more" | "loading"
    severity: str
    rule: str | None = None
    issue: IssueRow | None = None
    count: int = 0

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.kind, self.severity, self.rule, self.issue.id if self.issue else None)


class IssueTree(Tree[IssueItem]):
    """The issue list. Enter drills into a rule's URLs rather than opening it (Space, → or a
    click open it); → and ← open and close, or go to the first child and to the parent, as in
    every file-tree TUI."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "drill", "Show URLs", id="issues.drill",
                tooltip="A rule: its URLs in the URL table; an issue: its URL"),
        Binding("right", "open_or_child", "Open", show=False, id="issues.open"),
        Binding("left", "close_or_parent", "Close", show=False, id="issues.close"),
    ]

    class Drill(Message):
        """Enter on a rule or on its "… N more" line."""

        def __init__(self, node: TreeNode[IssueItem]) -> None:
            super().__init__()
            self.node = node

    def render_label(self, node: TreeNode[IssueItem], base_style: Style, style: Style) -> Text:
        """The row, ending in "…" where the pane cuts it: scrolled off to the side, a line
        number read whole when it was not ("feed.rss line 2" of line 24, found from outside);
        the detail below the list holds the whole issue. (Tree sizes itself by these labels,
        and builds them again when it is resized.)"""
        text = super().render_label(node, base_style, style)
        depth, up = 0, node.parent
        while up is not None and up is not self.root:
            depth, up = depth + 1, up.parent
        # the vertical scrollbar's cells kept free whether it shows or not: it comes and goes
        # with the rows, and a label sized before it came ran under it (a snapshot differed)
        room = self.content_region.width - self.styles.scrollbar_size_vertical - depth * self.guide_depth
        if room > 1 and text.cell_len > room:
            text.truncate(room, overflow="ellipsis")
        return text

    def on_resize(self) -> None:
        # the detail below takes rows from the list as its source lines come: the highlighted
        # row stays in view (at 80x24 it went below the list's new end)
        node = self.cursor_node
        if node is not None:
            self.call_after_refresh(self.scroll_to_node, node, animate=False)

    def action_drill(self) -> None:
        node = self.cursor_node
        if node is None:  # nothing highlighted yet (the list just shown): the first rule
            node = next((rule for group in self.root.children for rule in group.children), None)
            if node is None:
                return
            self.move_cursor(node)
        if node is not None and node.data is not None and node.data.kind in ("rule", "more"):
            self.post_message(self.Drill(node))
        else:  # a severity opens or closes; an issue is "selected" (the pane jumps to its URL)
            self.action_select_cursor()

    def action_open_or_child(self) -> None:
        node = self.cursor_node
        if node is None or not node.allow_expand:
            return
        if not node.is_expanded:
            node.expand()
        elif node.children:
            self.move_cursor(node.children[0])

    def action_close_or_parent(self) -> None:
        node = self.cursor_node
        if node is None:
            return
        if node.allow_expand and node.is_expanded:
            node.collapse()
        elif node.parent is not None and not node.parent.is_root:
            self.move_cursor(node.parent)

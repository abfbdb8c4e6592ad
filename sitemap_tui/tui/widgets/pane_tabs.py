"""The tab bar over the panes, which keeps every tab's name whole on a narrow terminal.

At 80 columns beside the tree the panes get 52 cells, and the six tabs with Textual's padding
(one cell each side) need 54: the bar scrolled, showing "verview" or "Change". Tight, each tab
keeps one cell before its name only (48 cells).

Textual moves the active tab's underline when a tab is chosen or the bar is resized, not when
its tabs' padding changes: at 80 columns the underline ran one cell past "Overview" from the
start. It is moved here whenever a tab's size changes.

The class sits on the bar, not on the whole TabbedContent: a class change restyles the node and
every node under it, and under the TabbedContent are all six panes (~60 widgets). Measured under
cProfile over test_app_layout.py and test_app_drill.py: 5.0 of 184 s went to the restyles that
one class change on each narrow start and resize caused.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Tab, TabbedContent, Tabs


class PaneTabs(TabbedContent):
    """TabbedContent whose tab bar turns tight (class ``-tight`` on its Tabs) when its tabs would
    not fit."""

    DEFAULT_CSS = """
    PaneTabs Tabs.-tight Tab {
        padding: 0 0 0 1;
    }
    """

    def on_mount(self) -> None:
        tabs = self.query_one(Tabs)
        for tab in self.query(Tab):
            # (Textual's own method, as its resize handler calls it; a tab's size changes in
            # the layout after its padding did, which no refresh callback waits for)
            self.watch(tab, "virtual_size", lambda _old, _new: tabs._highlight_active(animate=False), init=False)

    def on_resize(self, event: events.Resize) -> None:
        self.query_one(Tabs).set_class(event.size.width < self.room_needed(), "-tight")

    @property
    def tight(self) -> bool:
        """Whether the tabs keep one cell before their names only."""
        return self.query_one(Tabs).has_class("-tight")

    def room_needed(self) -> int:
        """Cells the visible tabs take with the default padding."""
        return sum(tab.label.cell_length + 2 for tab in self.query(Tab) if tab.display)

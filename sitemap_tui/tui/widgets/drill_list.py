"""A list of counted rows a user can drill into: Enter (or a click) on a row opens the URL table
on exactly the URLs it counts (``messages.ShowUrls``, issue 18).

The Overview's changefreq / priority / lastmod groups and the Extensions pane's rows are drawn
with it. Each row carries the filter text that names its URLs; the rows are replaced in place
while the data streams in, so the cursor stays on the same row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on
from textual._widget_navigation import find_next_enabled_no_wrap
from textual.containers import ScrollableContainer
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from sitemap_tui.tui.messages import ShowUrls


@dataclass(frozen=True)
class DrillRow:
    """One row: what is drawn, the filter its URLs answer to, and the title of the drill."""

    label: Text
    filter_text: str | None  # None: a heading or a row with nothing to list
    title: str = ""


class DrillList(OptionList):
    """Counted rows; Enter on one shows its URLs (see the module docstring)."""

    # the whole list, no scrolling of its own: it sits in a pane's scrolling body, which scrolls
    # to the highlighted row (found from outside: capped to the pane's height, at 80x24 the list
    # scrolled inside itself and the pane's keys stopped at the Priority table, the audit's
    # Indexability and the crawler access below it out of reach)
    DEFAULT_CSS = """
    DrillList, DrillList:focus {
        height: auto;
        max-height: initial;
        border: none;
        padding: 0;
        background: transparent;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, compact=True, markup=False)
        self.rows: list[DrillRow] = []

    def set_rows(self, rows: list[DrillRow]) -> None:
        """Show these rows, keeping the cursor on the row of the same filter while focused."""
        if rows == self.rows:
            return
        before = self.highlighted_row
        if [r.filter_text for r in rows] == [r.filter_text for r in self.rows]:
            # the same groups with new counts (streaming): new labels, the cursor stays
            for i, (old, new) in enumerate(zip(self.rows, rows, strict=True)):
                if old.label != new.label:
                    self.replace_option_prompt_at_index(i, new.label)
            self.rows = rows
            return
        self.rows = rows
        self.clear_options()
        self.add_options(
            [Option(row.label, id=f"r{i}", disabled=row.filter_text is None) for i, row in enumerate(rows)]
        )
        # the user's row is kept while they use the list; otherwise the first row, so what is
        # highlighted does not depend on the order the data streamed in
        keep = next((i for i, row in enumerate(rows) if self.has_focus and before is not None
                     and row.filter_text == before.filter_text), None)
        if keep is None:
            keep = next((i for i, row in enumerate(rows) if row.filter_text is not None), None)
        self.highlighted = keep

    def scroll_to_highlight(self, top: bool = False) -> None:
        container = self.parent
        highlighted = self.highlighted
        if not isinstance(container, ScrollableContainer) or highlighted is None or not self.is_mounted:
            super().scroll_to_highlight(top)
            return
        if not self.has_focus:
            return  # rows set while the data streams in: the pane stays where the user put it
        self._update_lines()
        first = highlighted  # the headings just above the row come into view with it
        while first > 0 and self.rows[first - 1].filter_text is None:
            first -= 1
        try:
            y = self._index_to_line[first]
            end = self._index_to_line[highlighted] + self._heights[highlighted]
        except (KeyError, IndexError):
            return
        container.scroll_to_region(Region(0, self.virtual_region.y + y, self.size.width, end - y),
                                   animate=False, top=top, immediate=True, force=True)

    def on_focus(self) -> None:
        # (Tab or Enter into the rows: the highlighted one in view, after the screen's own
        # scroll_visible, which shows the list's top: found by a review, the row was off screen)
        self.call_after_refresh(self.scroll_to_highlight)

    def _move_page(self, direction: Any) -> None:
        """A page is the pane's height, not the list's (the whole list, now): PageDown jumped to
        the last row, and PageUp onto the first heading left no row highlighted (a review)."""
        container = self.parent
        if not isinstance(container, ScrollableContainer) or not self._options:
            super()._move_page(direction)
            return
        self._update_lines()
        height = max(1, container.scrollable_content_region.height - 1)
        y = max(0, min(self._index_to_line[self.highlighted or 0] + direction * height, len(self._lines) - 1))
        anchor = self._lines[y][0]
        found = find_next_enabled_no_wrap(self._options, anchor, direction, with_anchor=True)
        if found is None:  # (a heading at the end: the nearest row the other way)
            found = find_next_enabled_no_wrap(self._options, anchor, -direction, with_anchor=True)
        if found is not None:
            self.highlighted = found

    @property
    def highlighted_row(self) -> DrillRow | None:
        i = self.highlighted
        return self.rows[i] if i is not None and 0 <= i < len(self.rows) else None

    def select_filter(self, filter_text: str) -> bool:
        """Put the cursor on the row of ``filter_text`` (tests, and a user's way back)."""
        for i, row in enumerate(self.rows):
            if row.filter_text == filter_text:
                self.highlighted = i
                return True
        return False

    # Rows no cursor can take (headings, counts with nothing to list) may end the list: once
    # the cursor is on the last row it can take, the keys that go on scroll them into view, in
    # the list or in the pane around it (found from outside: the Changes pane's sitemap and
    # issue counts were out of reach at 80x24)
    def _scrollers(self) -> list[Widget]:
        return [w for w in (self, *self.ancestors) if isinstance(w, Widget) and w.max_scroll_y > w.scroll_y]

    def action_cursor_down(self) -> None:
        before = self.highlighted
        super().action_cursor_down()
        if before is not None and (self.highlighted is None or self.highlighted <= before):  # (none further: it wrapped)
            self.highlighted = before
            for w in self._scrollers()[:1]:
                w.scroll_down(animate=False)

    def action_last(self) -> None:
        super().action_last()
        for w in self._scrollers():
            w.scroll_end(animate=False)

    def action_page_down(self) -> None:
        before = self.highlighted
        super().action_page_down()
        if self.highlighted is None or self.highlighted == before:  # (a page into rows none takes: no row)
            self.highlighted = before
            for w in self._scrollers()[:1]:
                w.scroll_page_down(animate=False)

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        row = self.rows[event.option_index] if 0 <= event.option_index < len(self.rows) else None
        if row is not None and row.filter_text is not None:
            self.post_message(ShowUrls(row.filter_text, origin=self, title=row.title))

"""The explorer's footer: Textual's, with what a narrow terminal can spare left out.

At 80 columns Textual's footer cut the last keys off (Export, Filter, Zoom: issue 18) while it
spent room on keys a user seldom needs there. Below :data:`NARROW_COLUMNS` it is compact (one
space less around each key), leaves out :data:`WIDE_ONLY`, and if the rest still does not fit,
drops keys from the end, never :data:`PINNED`. Every key left out keeps working and stays in the
help (?) and the palette; x (cancel) also in the header, which says "x cancels" whenever
something runs."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Footer

NARROW_COLUMNS = 100
"""Below this terminal width the tree narrows and the footer leaves :data:`WIDE_ONLY` out."""
WIDE_ONLY: frozenset[str] = frozenset({"cancel", "reload", "copy_url", "check_files", "mark_all", "select"})
"""Actions the footer shows only on a wide terminal (Enter, "select", is what a user tries first)."""
PINNED: frozenset[str] = frozenset({"help", "command_palette"})
"""Actions the narrow footer keeps whatever else it drops: the ways to find every other key."""
PALETTE_COLUMNS = 12
"""What the palette's key takes at the right end ("▏^p palette ")."""


def key_columns(widget: Widget) -> int:
    """The columns a compact footer key takes: "k Description" and one of margin."""
    key = str(getattr(widget, "key_display", ""))
    description = str(getattr(widget, "description", ""))
    return len(key) + (1 + len(description) if description else 0) + 1


class AppFooter(Footer):
    """Textual's footer; narrow, it is compact and keeps what fits (see the module docstring)."""

    narrow: reactive[bool] = reactive(False, recompose=True)

    def watch_narrow(self, narrow: bool) -> None:
        self.compact = narrow

    def compose(self) -> ComposeResult:
        widgets = list(super().compose())
        if self.narrow:
            widgets = self._fit([w for w in widgets if getattr(w, "action", None) not in WIDE_ONLY])
        yield from widgets

    def _fit(self, widgets: list[Widget]) -> list[Widget]:
        room = self.app.size.width - PALETTE_COLUMNS + 1  # the last key's margin may go under it
        keys = [w for w in widgets if hasattr(w, "action") and not w.has_class("-command-palette")]
        used = sum(key_columns(w) for w in keys)
        for widget in reversed(keys):
            if used <= room:
                break
            if getattr(widget, "action", None) not in PINNED:
                widgets.remove(widget)
                used -= key_columns(widget)
        return widgets

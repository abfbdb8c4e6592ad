"""The explorer's footer: Textual's, keeping the keys a user needs most when room is short.

Textual's footer cuts whatever passes the right edge: at 80 columns that was Export, Filter and
Zoom (issue 18), at 120 the last keys added, while keys a user seldom needs there took the room.
This one drops keys until the rest fits: first :data:`SPARE` ones, then others from the end,
never :data:`PINNED` ones. Below :data:`NARROW_COLUMNS` it is also compact (one space less per
key). A key left out keeps working and stays in the help (?) and the palette; x (cancel) also in
the header, which says "x cancels" whenever something runs.

It also rebuilds less than Textual's. Textual's footer recomposes on every change of focus or of
the bindings, though most leave the keys it shows as they were (41 of 58 in two Pilot tests of
the drill and the export), and each key it built restyled itself twice on mount (its `compact`
starts True, then the footer's False is bound in): ~2 ms each under cProfile at 200 columns, so a
rebuild of 12 keys took tens of milliseconds of the UI thread. Here a rebuild with nothing new to
show is skipped, and each key starts with the footer's `compact`."""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not exported; Textual is pinned (constraints.txt)

NARROW_COLUMNS = 100
"""Below this terminal width the tree narrows and the footer is compact."""
SPARE: frozenset[str] = frozenset({"cancel", "reload", "copy_url", "check_files", "mark_all", "select"})
"""Actions the footer leaves out first (Enter, "select", is what a user tries first anyway)."""
PINNED: frozenset[str] = frozenset({"help"})
"""What the footer keeps whatever else it drops: the way to find every other key."""


def key_columns(widget: Widget, compact: bool) -> int:
    """The columns a footer key takes: " k Description " wide; compact "k Description" and a
    margin of one."""
    key = cell_len(str(getattr(widget, "key_display", "")))
    description = cell_len(str(getattr(widget, "description", "")))
    return key + (1 + description if description else 0) + (1 if compact else 2)


def palette_columns(compact: bool) -> int:
    """The palette's key at the right end: "▏^p palette " (one more space each side, wide)."""
    return 12 if compact else 14


class AppFooter(Footer):
    """Textual's footer that keeps what fits (see the module docstring)."""

    _shown: tuple[object, ...] | None = None
    """What the keys on show were built from (see :meth:`recompose`)."""

    def on_resize(self, event: events.Resize) -> None:
        # the footer spans the terminal: what fits changes with every width
        self.compact = event.size.width < NARROW_COLUMNS
        self.refresh(recompose=True)

    async def recompose(self) -> None:
        """Rebuild the keys when what they show changed: the bindings, the width, compactness."""
        shown = self._what_is_shown()
        if shown == self._shown and self.children:
            return
        self._shown = shown
        await super().recompose()

    def _what_is_shown(self) -> tuple[object, ...]:
        bindings = tuple(
            (key, binding.action, binding.description, binding.show, binding.group, binding.tooltip, enabled, tooltip)
            for key, (_node, binding, enabled, tooltip) in self.screen.active_bindings.items()
        )
        return (self._bindings_ready, self.size.width, self.compact, self.show_command_palette, self.combine_groups,
                bindings)

    def compose(self) -> ComposeResult:
        compact = self.compact
        for widget in self._fit(list(super().compose())):
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                # the footer's value from the start: the one its binding sets on mount, so neither
                # that nor the first value restyles the key (the palette's key, which Textual
                # leaves compact, and a binding group's, which this app has none of, as Textual
                # builds them)
                widget.set_reactive(FooterKey.compact, compact)
                widget.set_class(compact, "-compact", update=False)
            yield widget

    def _fit(self, widgets: list[Widget]) -> list[Widget]:
        compact = self.compact
        room = self.size.width - palette_columns(compact)
        if compact:
            room += 1  # the last key's margin may go under the palette's key
        keys = [w for w in widgets if hasattr(w, "action") and not w.has_class("-command-palette")]
        used = sum(key_columns(w, compact) for w in keys)
        spare = [w for w in reversed(keys) if getattr(w, "action", None) in SPARE]
        rest = [w for w in reversed(keys) if getattr(w, "action", None) not in SPARE | PINNED]
        dropped: list[Widget] = []
        for widget in spare + rest:
            if used <= room:
                break
            dropped.append(widget)
            used -= key_columns(widget, compact)
        # a long key dropped late can leave room for a short one dropped before it (z Zoom
        # after "e Expand subtree" went): those come back, the ones not spare first
        for widget in sorted(dropped, key=lambda w: getattr(w, "action", None) in SPARE):
            width = key_columns(widget, compact)
            if used + width <= room:
                dropped.remove(widget)
                used += width
        return [w for w in widgets if w not in dropped]

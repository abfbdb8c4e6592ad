"""Two renderables side by side when both fit whole, else one above the other.

The Overview decided by the pane's width when it built its text (>= 120 columns for two
sections, >= 90 for the two distributions), so the sections were squeezed into a width they did
not fit, or kept a layout made for a width the pane no longer had after a resize (issue 18: words
cut in two at 80 columns). This decides each time Rich draws it, by the widths the two need."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text


@dataclass(frozen=True)
class SideBySide:
    """``left`` and ``right`` in two columns ``gap`` apart when both fit at their widest, else
    stacked with a blank line between (each then gets the whole width)."""

    left: RenderableType
    right: RenderableType
    gap: int = 4
    # the answer per width: Textual draws one Overview two or three times at a width (its height,
    # then its lines), and measuring its tables was 4.0 of 184 CPU-s under cProfile over two test
    # files of the explorer (the renderables do not change once built)
    _fit_at: dict[int, bool] = field(default_factory=dict, compare=False, repr=False)

    def _fits(self, console: Console, options: ConsoleOptions) -> bool:
        fits = self._fit_at.get(options.max_width)
        if fits is None:
            need = sum(Measurement.get(console, options, r).maximum for r in (self.left, self.right))
            fits = self._fit_at[options.max_width] = need + self.gap <= options.max_width
        return fits

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if not self._fits(console, options):
            yield self.left
            yield Text("")
            yield self.right
            return
        grid = Table.grid(padding=(0, self.gap, 0, 0))
        grid.add_column()
        grid.add_column()
        grid.add_row(self.left, self.right)
        yield grid

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        left = Measurement.get(console, options, self.left)
        right = Measurement.get(console, options, self.right)
        # at the least stacked (the wider minimum); at the most side by side
        return Measurement(max(left.minimum, right.minimum),
                           left.maximum + right.maximum + self.gap).clamp(max_width=options.max_width)

"""The Lastmod pane: a hand-drawn bar chart of lastmod dates by year, month or day.

Columns when the periods fit the width (block characters with eighth steps), horizontal bars
(one line per period) when they do not. Missing, invalid and future dates are called out under
the chart. A cursor picks a period (Left/Right); Enter lists its URLs in the URL table
(``lastmod:PERIOD``, a drill-through)."""

from __future__ import annotations

from collections import Counter
from datetime import date, timedelta
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from sitemap_tui.engine.stats import Aggregate
from sitemap_tui.tui.messages import ShowUrls
from sitemap_tui.tui.widgets import NodePane, Selection, update_static
from sitemap_tui.tui.widgets.overview import fmt_ts
from sitemap_tui.tui.widgets.sitemap_tree import short_name
from sitemap_tui.words import plural

MODES = ("month", "year", "day")
BLOCKS = " ▁▂▃▄▅▆▇█"
HBLOCKS = " ▏▎▍▌▋▊▉█"
MAX_FILLED = 400  # periods; beyond this only periods with data are drawn
# empty years drawn between two years with data: one URL dated 2099 (a typo) drew 74 empty rows
# after 2024 (found by a review); a longer run of empty years is left out, its labels say the jump
YEAR_GAP_FILLED = 5
BAR_STYLE = "cyan"
CURSOR_STYLE = "bold yellow"


def periods(agg: Aggregate, mode: str) -> list[tuple[str, int]]:
    """(label, count) per period, in order, with empty periods filled in when the span is short."""
    if mode == "year":
        counts: Counter[str] = agg.by_year()
    elif mode == "day":
        counts = agg.by_day
    else:
        counts = agg.by_month
    keys = sorted(k for k, v in counts.items() if v)
    if not keys:
        return []
    if mode == "year":
        years = [int(k) for k in keys if k.isdigit()]
        shown: list[int] = []
        for year, after in zip(years, [*years[1:], None], strict=True):
            shown.append(year)
            if after is not None and after - year - 1 <= YEAR_GAP_FILLED:
                shown.extend(range(year + 1, after))
        return [(f"{y:04d}", counts.get(f"{y:04d}", 0)) for y in shown]
    filled = _fill(keys[0], keys[-1], mode)
    if filled is not None and len(filled) <= MAX_FILLED:
        return [(k, counts.get(k, 0)) for k in filled]
    return [(k, counts[k]) for k in keys]


def _fill(first: str, last: str, mode: str) -> list[str] | None:
    try:
        if mode == "month":
            ya, ma = int(first[:4]), int(first[5:7])
            yb, mb = int(last[:4]), int(last[5:7])
            n = (yb - ya) * 12 + (mb - ma)
            if n > MAX_FILLED:
                return None
            out = []
            y, m = ya, ma
            for _ in range(n + 1):
                out.append(f"{y:04d}-{m:02d}")
                m += 1
                if m > 12:
                    y, m = y + 1, 1
            return out
        da, db = date.fromisoformat(first), date.fromisoformat(last)
        n = (db - da).days
        if n > MAX_FILLED:
            return None
        return [(da + timedelta(days=i)).isoformat() for i in range(n + 1)]
    except (ValueError, OverflowError):
        return None


class LastmodChart(Widget, can_focus=True):
    """Bars of lastmod counts; ``m`` cycles month → year → day; a cursor over the bars, and
    Enter drills into the period under it."""

    DEFAULT_CSS = """
    LastmodChart { height: auto; padding: 0 1; }
    LastmodChart:focus { background: $boost; }
    """
    BINDINGS = [
        Binding("m", "cycle_mode", "Year/month/day", id="lastmod.mode"),
        Binding("left,up", "move(-1)", "Previous period", show=False, id="lastmod.previous"),
        Binding("right,down", "move(1)", "Next period", show=False, id="lastmod.next"),
        Binding("home", "move_to(0)", "First period", show=False, id="lastmod.first"),
        Binding("end", "move_to(-1)", "Last period", show=False, id="lastmod.last"),
        Binding("enter", "drill", "URLs of the period", id="lastmod.drill"),
    ]

    mode: reactive[str] = reactive("month")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.agg = Aggregate()
        self.chart_height = 12
        # the period under the cursor, by its label, so it stays put while data streams in;
        # None: the most recent period
        self.cursor_key: str | None = None

    def set_data(self, agg: Aggregate) -> None:
        before = self._lines()
        self.agg = agg
        # a layout pass only when the chart's height changes (not on every streamed batch)
        self.refresh(layout=self._lines() != before)

    def _geometry(self, data: list[tuple[str, int]]) -> tuple[int, int, int, bool]:
        """(top count, axis width, columns available, draw as columns) for ``data``."""
        top = max(n for _, n in data) or 1
        axis_w = len(f"{top:,}") + 1
        avail = max(self.size.width, 20) - axis_w - 1
        return top, axis_w, avail, len(data) <= avail

    def _lines(self) -> int:
        """The chart's height in lines, as :meth:`render` draws it."""
        data = periods(self.agg, self.mode)
        if not data:
            return 1
        return (self.chart_height + 2 if self._geometry(data)[3] else len(data)) + 1  # + the cursor's line

    def action_cycle_mode(self) -> None:
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]

    def watch_mode(self) -> None:
        self.cursor_key = None  # the labels of the other mode are not this one's
        self.refresh(layout=True)

    # -- the cursor -----------------------------------------------------------------------------
    def cursor_index(self, data: list[tuple[str, int]]) -> int:
        """Where the cursor is in ``data`` (the last period when its own is gone)."""
        for i, (key, _) in enumerate(data):
            if key == self.cursor_key:
                return i
        return len(data) - 1

    @property
    def cursor_period(self) -> tuple[str, int] | None:
        """(label, count) of the period under the cursor, or None without dated URLs."""
        data = periods(self.agg, self.mode)
        return data[self.cursor_index(data)] if data else None

    def action_move(self, step: int) -> None:
        data = periods(self.agg, self.mode)
        if data:
            self._put_cursor(data, max(0, min(len(data) - 1, self.cursor_index(data) + step)))

    def action_move_to(self, index: int) -> None:
        data = periods(self.agg, self.mode)
        if data:
            self._put_cursor(data, index % len(data))

    def _put_cursor(self, data: list[tuple[str, int]], index: int) -> None:
        self.cursor_key = data[index][0]
        self.refresh()
        self._cursor_in_view()

    def _cursor_in_view(self) -> None:
        data = periods(self.agg, self.mode)
        if data and not self._geometry(data)[3] and isinstance(self.parent, Widget):
            # one line per period: keep the cursor's line (and the line naming it) in view
            index = self.cursor_index(data)
            if index == 0:
                # the first period: the pane's top, title included (a region scroll made while the
                # pane was still being laid out hid the title, or not, by timing)
                self.parent.scroll_home(animate=False)
                return
            self.parent.scroll_to_region(Region(0, self.virtual_region.y + index, 1, 2), animate=False)

    def on_focus(self) -> None:
        # the focus scrolls the chart's top into view; the cursor is what the keys act on
        self.call_after_refresh(self._cursor_in_view)

    def on_resize(self) -> None:
        # the first time the pane is shown its data and its height arrive after the focus, so
        # the scroll above was made against no chart: 80x24 showed 2019's empty months, not
        # the cursor on the latest (seen in tmux; from the second visit on it was right)
        if self.has_focus:
            self.call_after_refresh(self._cursor_in_view)

    def action_drill(self) -> None:
        period = self.cursor_period
        if period is not None:
            key, count = period
            self.post_message(ShowUrls(f"lastmod:{key}", origin=self, title=f"lastmod in {key} ({plural(count, 'URL')})"))

    def on_click(self, event: events.Click) -> None:
        """A click on a bar moves the cursor there (a second click drills, as Enter)."""
        data = periods(self.agg, self.mode)
        if not data:
            return
        _top, axis_w, avail, columns = self._geometry(data)
        if columns:
            cw = max(1, min(8, avail // len(data)))
            index = (event.x - 1 - axis_w - 1) // cw  # the padding, the axis labels, the axis line
        else:
            index = event.y
        if 0 <= index < len(data):
            if data[index][0] == self.cursor_key and self.has_focus:
                self.action_drill()
            self.cursor_key = data[index][0]
            self.refresh()

    def render(self) -> Text:
        data = periods(self.agg, self.mode)
        if not data:
            return Text("No valid lastmod dates.", style="dim")
        top, axis_w, avail, columns = self._geometry(data)
        cursor = self.cursor_index(data)
        if columns:
            text = self._columns(data, top, axis_w, avail, cursor)
        else:
            text = self._rows(data, top, max(self.size.width, 20), cursor)
        key, count = data[cursor]
        text.append("\n▸ ", style=CURSOR_STYLE)
        text.append(f"{key}: {plural(count, 'URL')}", style="bold")
        text.append("  ←/→ period · enter: list them", style="dim italic")
        return text

    def _columns(self, data: list[tuple[str, int]], top: int, axis_w: int, avail: int, cursor: int = -1) -> Text:
        n = len(data)
        cw = max(1, min(8, avail // n))
        gap = 1 if cw >= 2 else 0
        bar_w = cw - gap
        h = self.chart_height
        text = Text(no_wrap=True)
        for row in range(h, 0, -1):
            label = f"{top:,}" if row == h else (f"{top // 2:,}" if row == (h + 1) // 2 and top > 3 else "")
            text.append(label.rjust(axis_w - 1) + " ", style="dim")
            text.append("┤" if label else "│", style="dim")
            for i, (_, count) in enumerate(data):
                level = count / top * h * 8
                filled = level - (row - 1) * 8
                if filled >= 8:
                    ch = "█"
                elif filled <= 0:
                    ch = " "
                else:
                    ch = BLOCKS[max(1, round(filled))]
                if count and row == 1 and ch == " ":
                    ch = "▁"
                if i == cursor and ch == " " and row == 1:
                    ch = "·"  # an empty period under the cursor is still seen
                text.append(ch * bar_w, style=CURSOR_STYLE if i == cursor else BAR_STYLE)
                text.append(" " * gap)
            text.append("\n")
        text.append("0".rjust(axis_w - 1) + " └", style="dim")
        for i in range(n):  # the axis marks the cursor's column, for the empty periods too
            text.append("─" * cw if i != cursor else "▲" * bar_w + "─" * gap, style=CURSOR_STYLE if i == cursor else "dim")
        text.append("\n")
        text.append_text(self._x_labels(data, axis_w + 1, cw))
        return text

    def _x_labels(self, data: list[tuple[str, int]], indent: int, cw: int) -> Text:
        n = len(data)
        line = [" "] * (cw * n + 12)
        if self.mode == "year":
            step = max(1, -(-5 // cw))
            picks = [(i, key) for i, (key, _) in enumerate(data) if i % step == 0]
        elif self.mode == "month":
            # a label per year (at its first month); when months are wide, every few months
            if cw >= 8:
                picks = [(i, key) for i, (key, _) in enumerate(data)]
            else:
                picks = [(i, key[:4]) for i, (key, _) in enumerate(data) if key.endswith("-01") or i == 0]
                if len(picks) == 1 and n > 1:
                    picks = [(0, data[0][0]), (n - 1, data[-1][0])]
        else:
            step = max(1, -(-11 // cw))
            picks = [(i, key) for i, (key, _) in enumerate(data) if i % step == 0]
        last_end = -1
        room = max(self.size.width, 20) - indent  # a label past the edge wrapped onto a line of its own
        for i, label in picks:
            pos = i * cw
            if pos <= last_end or pos + len(label) > room:
                continue
            for j, ch in enumerate(label):
                if pos + j < len(line):
                    line[pos + j] = ch
            last_end = pos + len(label)
        return Text(" " * indent + "".join(line).rstrip(), style="dim", no_wrap=True)

    def _rows(self, data: list[tuple[str, int]], top: int, width: int, cursor: int = -1) -> Text:
        label_w = max(len(k) for k, _ in data)
        count_w = len(f"{top:,}")
        bar_w = max(5, width - label_w - count_w - 4)
        text = Text(no_wrap=True)
        for i, (key, count) in enumerate(data):
            eighths = round(count / top * bar_w * 8)
            full, part = divmod(eighths, 8)
            text.append(key.ljust(label_w) + " │", style="reverse bold" if i == cursor else "dim")
            text.append("█" * full + (HBLOCKS[part] if part else ""), style=CURSOR_STYLE if i == cursor else BAR_STYLE)
            text.append(" " + f"{count:,}".rjust(count_w) if count else "", style="dim")
            if i < len(data) - 1:
                text.append("\n")
        return text


class LastmodPane(NodePane):
    DEFAULT_CSS = """
    LastmodPane { height: 1fr; }
    LastmodPane > VerticalScroll { height: 1fr; }
    LastmodPane #lm-title, LastmodPane #lm-notes { padding: 0 1; height: auto; }
    LastmodPane #lm-notes { margin-top: 1; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(Text("Select a node in the tree.", style="dim"), id="lm-title")
            yield LastmodChart(id="lm-chart")
            yield Static("", id="lm-notes")

    @property
    def chart(self) -> LastmodChart:
        return self.query_one(LastmodChart)

    @property
    def body(self) -> Widget:
        """The chart: `3` puts the bar cursor under the arrow keys, Enter drills at once."""
        return self.chart

    def on_mount(self) -> None:
        self.watch(self.chart, "mode", self._mode_changed, init=False)

    def _mode_changed(self, _mode: str) -> None:
        if self.selection is not None:
            self._title(self.chart.agg)

    def fetch_data(self, store: Any, selection: Selection) -> Aggregate:
        return store.aggregate(selection.store_file_ids) if selection.file_ids else Aggregate()

    def render_data(self, data: Any) -> None:
        agg = data if isinstance(data, Aggregate) else Aggregate()
        self.chart.set_data(agg)
        if self.selection is None:
            self.query_one("#lm-title", Static).update(Text("Select a node in the tree.", style="dim"))
            self.query_one("#lm-notes", Static).update("")
            return
        self._title(agg)
        notes = Text()
        dated = agg.urls - agg.lastmod_missing - agg.lastmod_invalid
        notes.append(f"{dated:,} dated", style="bold")
        if agg.lastmod_min is not None:
            notes.append(f" ({fmt_ts(agg.lastmod_min)} → {fmt_ts(agg.lastmod_max)})", style="dim")
        notes.append("  ·  ")
        notes.append(f"{agg.lastmod_missing:,} missing", style="yellow" if agg.lastmod_missing else "dim")
        notes.append("  ·  ")
        notes.append(f"{agg.lastmod_invalid:,} invalid", style="bold red" if agg.lastmod_invalid else "dim")
        notes.append("  ·  ")
        notes.append(f"{agg.lastmod_future:,} in the future", style="bold red" if agg.lastmod_future else "dim")
        update_static(self.query_one("#lm-notes", Static), notes)

    def _title(self, agg: Aggregate) -> None:
        assert self.selection is not None
        title = Text()
        title.append(short_name(self.selection.node), style="bold")
        title.append(f"   lastmod by {self.chart.mode} · {plural(agg.urls, 'URL')}", style="dim")
        title.append("   (m: year / month / day)", style="dim italic")
        update_static(self.query_one("#lm-title", Static), title)

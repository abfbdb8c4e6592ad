"""The recent explorations kept in the cache, to reopen one: ``sitemap-tui open`` without a file
starts here (:class:`RecentPicker`), and the explorer shows the same list (ctrl+r, the palette).

One line each, newest first: date, site, URLs, size (the file's path below the list for the
highlighted one). The list is read in a thread: each file's summary is a small read, but a cache
of many explorations should not hold the first frame."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, OptionList, Static
from textual.widgets.option_list import Option

from sitemap_tui.engine.sanitize import display
from sitemap_tui.session.recent import Saved, format_size, list_saved
from sitemap_tui.tui.screens import SafeActions


def row_text(s: Saved, width: int, urls_width: int = 9, size_width: int = 10) -> Text:
    """One exploration on one line of ``width`` cells: the site keeps what the date, counts,
    size and command leave (an 80-column terminal shows all five). The counts' columns are as
    wide as the list's widest (:func:`column_widths`), not the widest there could be."""
    when = s.date_text
    if s.summary.problem:
        tail = Text("unreadable", style="bold red")
    else:
        # the command that kept it: a urls run and a diff's in one second read alike otherwise
        by = (s.summary.command or "explorer")[:8]
        tail = Text(f"{s.summary.urls:>{urls_width},} URLs {format_size(s.size):>{size_width}}  {by:<8}")
    site_width = max(8, width - len(when) - tail.cell_len - 4)
    site = display(s.site, 500)
    if len(site) > site_width:
        # the middle goes: a folder's path differs at its end, a host with a port at both ends
        head = (site_width - 1) // 2
        site = site[:head] + "…" + site[len(site) - (site_width - 1 - head):]
    line = Text(f"{when}  ")
    line.append(f"{site:<{site_width}}", style="bold")
    line.append("  ")
    line.append_text(tail)
    return line


def column_widths(saved: list[Saved]) -> tuple[int, int]:
    """The URL count's and the size's widths that every row of ``saved`` needs."""
    urls = max((len(f"{s.summary.urls:,}") for s in saved), default=1)
    size = max((len(format_size(s.size)) for s in saved), default=1)
    return urls, size


class RecentScreen(SafeActions, ModalScreen[Path | None]):
    """Pick a saved exploration: arrows and Enter open it, Esc leaves (quits when nothing else
    is open). Modal, and drawn over the whole screen: the explorer's keys (e, x, r...) would
    act on the exploration hidden behind it."""

    DEFAULT_CSS = """
    RecentScreen { layout: vertical; background: $background; }
    RecentScreen > Vertical { height: 1fr; padding: 0 1; }
    RecentScreen .title { text-style: bold; height: 1; margin: 1 0 0 0; }
    RecentScreen #recent-list { height: 1fr; border: round $primary; }
    RecentScreen #recent-detail { height: auto; max-height: 6; color: $text-muted; }
    RecentScreen #recent-empty { height: auto; }
    """
    BINDINGS = [Binding("escape,q", "cancel", "Close", id="recent.close")]

    def __init__(self, *, closes_app: bool, compare_to: Path | None = None) -> None:
        super().__init__()
        self.closes_app = closes_app
        # "Compare with…" (issue 20): only the other explorations of this one's site
        self.compare_to = compare_to
        self.saved: list[Saved] | None = None  # None while the list is being read

    def compose(self) -> ComposeResult:
        with Vertical():
            title = ("Compare with… an earlier exploration of this site (dates in UTC)" if self.compare_to
                     else "Recent explorations (dates in UTC)")
            yield Label(Text(title), classes="title")
            yield OptionList(id="recent-list")
            yield Static(Text("Reading the cache…"), id="recent-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self._read()

    @work(thread=True, exclusive=True, description="read recent explorations")
    def _read(self) -> None:
        saved = list_saved()
        if self.compare_to is not None:
            from sitemap_tui.engine.store.summary import read_summary
            from sitemap_tui.session.history import explorations_of

            me = read_summary(self.compare_to)
            site, mine, started = Saved(me, 0).site, self.compare_to.resolve(), me.started
            # earlier ones only (found from outside: a newer one was offered, and its changes
            # shown backwards as "Since" it)
            saved = [s for s in explorations_of(site, saved) if s.path.resolve() != mine
                     and not (started and s.summary.started and s.summary.started >= started)]
        self.app.call_from_thread(self._show, saved)

    def _show(self, saved: list[Saved]) -> None:
        self.saved = saved
        listing = self.query_one(OptionList)
        # before its first layout the list has no width: the screen's (0 - 4 was taken as one,
        # and 80 columns showed 13 of a site's characters)
        width = max(40, listing.size.width - 4 if listing.size.width else self.app.size.width - 6)
        listing.clear_options()
        urls_width, size_width = column_widths(saved)
        listing.add_options([Option(row_text(s, width, urls_width, size_width), id=str(i))
                             for i, s in enumerate(saved)])
        if saved:
            listing.highlighted = 0
        else:
            from sitemap_tui.session.recent import cache_folder

            if self.compare_to is not None:
                # (a run made now is newer than this exploration: it helps the next one, which
                # the advice said nothing of; found from outside)
                self._detail(Text(f"No earlier exploration of this site in {display(str(cache_folder()))}: "
                                  "this one is the first kept. Explore the site again later (sitemap-tui SITE, "
                                  "or sitemap-tui urls SITE in a script), and that exploration can be compared "
                                  "with this one. Esc: back."))
                return
            self._detail(Text(f"No saved explorations in {display(str(cache_folder()))} yet. "
                              "Explore a site first (sitemap-tui SITE). Esc: back."))

    def _detail(self, text: Text) -> None:
        self.query_one("#recent-detail", Static).update(text)

    @on(OptionList.OptionHighlighted, "#recent-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        s = self._saved_at(event.option_index)
        if s is None:
            return
        # the name whole, its folder elided in the middle: at 80 columns a cache path wraps
        folder = display(str(s.path.parent), 500)
        room = max(12, self.app.size.width - len(s.path.name) - 8)
        if len(folder) > room:
            folder = folder[: room // 3] + "…" + folder[-(room - room // 3 - 1):]
        text = Text(display(s.path.name, 200), style="bold")
        text.append(f" in {folder}")
        if s.summary.problem:
            text.append(f"\n{display(s.summary.problem, 500)}", style="red")
        else:
            target = display(s.summary.target or s.site, 300)
            enter = "Enter compares this exploration with it" if self.compare_to else "Enter opens it offline"
            text.append(f"\n{target} · {s.summary.files:,} files · {enter}, Esc goes back")
        self._detail(text)

    @on(OptionList.OptionSelected, "#recent-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        s = self._saved_at(event.option_index)
        if s is not None:
            self.dismiss(s.path)

    def _saved_at(self, index: int) -> Saved | None:
        if self.saved is None or not 0 <= index < len(self.saved):
            return None
        return self.saved[index]

    def action_cancel(self) -> None:
        self.dismiss(None)


class RecentPicker(App[Path | None]):
    """``sitemap-tui open`` with no file: the list alone, until one is picked (the explorer then
    opens it) or Esc quits."""

    TITLE = "sitemap-tui"

    def on_mount(self) -> None:
        def chosen(path: Path | None) -> None:
            self.exit(path)

        self.push_screen(RecentScreen(closes_app=True), chosen)

    def check_action(self, action: str, parameters: tuple[Any, ...]) -> bool | None:
        return action in {"quit", "focus_next", "focus_previous"}

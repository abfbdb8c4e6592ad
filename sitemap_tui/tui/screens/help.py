"""The help screen: the key bindings that are active right now (remapped keys included), and
the words the URL table's filter bar takes (tui/url_filter.WORDS)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from sitemap_tui.tui.screens import SafeActions
from sitemap_tui.tui.url_filter import filter_help


@dataclass(frozen=True)
class HelpEntry:
    keys: str
    description: str
    binding_id: str
    where: str


INTRO = (
    "Explore a site's sitemaps: the tree on the left loads lazily (expand a node to fetch it), "
    "the panes on the right follow the highlighted node. Everything a server sends is shown "
    "literally. Keys can be remapped in config.toml ([keymap] binding_id = \"key\")."
)


class HelpScreen(SafeActions, ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 90%; max-width: 110; height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    HelpScreen #help-title { text-style: bold; padding: 0 1; }
    HelpScreen #help-intro { padding: 0 1 1 1; color: $text-muted; }
    HelpScreen VerticalScroll { height: 1fr; }
    HelpScreen #help-foot { color: $text-muted; padding: 0 1; }
    HelpScreen #help-filter-title { padding: 1 0 0 0; }
    """
    BINDINGS = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close", id="help.close"),
    ]

    def __init__(self, entries: list[HelpEntry], config_path: str | None = None) -> None:
        super().__init__()
        self.entries = entries
        self.config_path = config_path

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("sitemap-tui · keys"), id="help-title")
            yield Static(Text(INTRO), id="help-intro")
            with VerticalScroll(id="help-scroll"):
                yield Static(self._table(), id="help-table")
                yield Static(Text("Filter words (the URL table's filter bar, /): combine any, "
                                  "separated by spaces", style="bold"), id="help-filter-title")
                yield Static(self._filter_table(), id="help-filter")
            foot = "escape closes this screen"
            if self.config_path:
                foot += f" · keymap file: {self.config_path}"
            yield Static(Text(foot), id="help-foot")

    NARROW = 100
    """Below this many terminal columns the table has two columns: the four left the action
    about 3 columns on 80x24 ("Expand" over "subtr…"), so where and the binding id go under it."""

    def _table(self) -> Table:
        table = Table(box=None, padding=(0, 2), show_edge=False, header_style="bold", expand=True)
        table.add_column("Key", no_wrap=True, style="bold cyan")
        if self.app.size.width < self.NARROW:
            table.add_column("Action · where · binding id", ratio=1)
            for e in self.entries:
                action = Text(e.description)
                action.append(f"\n{e.where} · {e.binding_id}", style="dim")
                table.add_row(Text(e.keys), action)
            return table
        table.add_column("Action")
        table.add_column("Where", no_wrap=True, style="dim")
        table.add_column("Binding id", no_wrap=True, style="dim")
        for e in self.entries:
            table.add_row(Text(e.keys), Text(e.description), Text(e.where), Text(e.binding_id))
        return table

    def on_resize(self) -> None:
        self.query_one("#help-table", Static).update(self._table())

    @staticmethod
    def _filter_table() -> Table:
        table = Table(box=None, padding=(0, 2), show_edge=False, show_header=False, expand=True)
        table.add_column("Word", no_wrap=True, style="bold cyan")  # (none over 28 columns)
        table.add_column("Lists", ratio=1)
        for syntax, what in filter_help():
            table.add_row(Text(syntax), Text(what))
        return table

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(None)

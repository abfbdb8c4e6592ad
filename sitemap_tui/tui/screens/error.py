"""The screen shown instead of the explorer when a saved exploration cannot be opened."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Label, Static

from sitemap_tui.engine.sanitize import display
from sitemap_tui.tui.screens import SafeActions


class StoreErrorScreen(SafeActions, Screen[None]):
    """The file and why it cannot be opened (another program's database, a text file, a store of
    a newer version): a whole screen, so that no empty explorer passes for the exploration."""

    DEFAULT_CSS = """
    StoreErrorScreen { align: center middle; }
    StoreErrorScreen > Vertical {
        width: 90%; max-width: 110; height: auto; padding: 1 2; border: thick $error; background: $surface;
    }
    StoreErrorScreen .title { text-style: bold; margin-bottom: 1; }
    StoreErrorScreen .hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS = [Binding("escape,enter,q", "dismiss", "Close", id="store_error.close")]

    def __init__(self, path: Path, reason: str, *, closes_app: bool) -> None:
        super().__init__()
        self.path = path
        self.reason = reason
        self.closes_app = closes_app

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(f"Cannot open {display(self.path.name, 200)}"), classes="title")
            yield Static(Text(display(self.reason, 1000)), id="store-error-reason")
            action = "quit" if self.closes_app else "go back"
            yield Static(Text(f"The file was not changed. Enter, Esc or q to {action}."), classes="hint")

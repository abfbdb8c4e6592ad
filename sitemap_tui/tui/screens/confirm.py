"""Small modal dialogs: a yes/no confirmation and a path prompt."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from sitemap_tui.tui.screens import SafeActions

DIALOG_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 80%; max-width: 100; height: auto; padding: 1 2;
    border: thick $primary; background: $surface;
}}
{name} .title {{ text-style: bold; margin-bottom: 1; }}
{name} .buttons {{ height: auto; margin-top: 1; align-horizontal: right; }}
{name} .buttons Button {{ margin-left: 2; }}
{name} .hint {{ color: $text-muted; margin-top: 1; }}
"""


class ConfirmScreen(SafeActions, ModalScreen[bool]):
    """Ask a yes/no question; the body is a Text (untrusted parts are shown literally)."""

    DEFAULT_CSS = DIALOG_CSS.format(name="ConfirmScreen")
    BINDINGS = [
        Binding("y", "yes", "Yes", id="confirm.yes"),
        Binding("n,escape", "no", "No", id="confirm.no"),
        # (tried in tmux: Right then Enter on the audit's question answered No, the focused
        # button, and nothing said so; the arrows now move between the buttons)
        Binding("left", "app.focus_previous", show=False, id="confirm.previous"),
        Binding("right", "app.focus_next", show=False, id="confirm.next"),
    ]

    def __init__(self, title: str, body: Text, *, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self._title = title
        self._body = body
        self._yes = yes
        self._no = no

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(self._title), classes="title")
            yield Static(self._body, id="confirm-body")
            yield Static(Text(f"y: {self._yes} · n or escape: {self._no} · ← → tab: move, enter: press"),
                         classes="hint")
            with Horizontal(classes="buttons"):
                yield Button(Text(self._no), id="no")
                yield Button(Text(self._yes), id="yes", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed, "#yes")
    def action_yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def action_no(self) -> None:
        self.dismiss(False)


class PathPrompt(SafeActions, ModalScreen[Path | None]):
    """Ask for a local path: a sitemap file, a directory, or a saved exploration (.db)."""

    DEFAULT_CSS = DIALOG_CSS.format(name="PathPrompt") + """
    PathPrompt #path-error { color: $error; height: auto; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]

    def __init__(self, title: str = "Open a local file", default: str = "") -> None:
        super().__init__()
        self._title = title
        self._default = default

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(self._title), classes="title")
            yield Input(value=self._default, placeholder="path to a sitemap, a directory or an exploration .db", id="path")
            yield Static("", id="path-error")
            yield Static(
                Text("A .db file reopens a saved exploration (offline); any other path is explored."),
                classes="hint",
            )
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Open", id="open", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#path", Input).focus()

    @on(Input.Submitted, "#path")
    @on(Button.Pressed, "#open")
    def action_submit(self) -> None:
        raw = self.query_one("#path", Input).value.strip()
        if not raw:
            self.query_one("#path-error", Static).update(Text("Type a path."))
            return
        path = Path(raw).expanduser()
        if not path.exists():
            self.query_one("#path-error", Static).update(Text(f"No such file or directory: {raw}"))
            return
        self.dismiss(path)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

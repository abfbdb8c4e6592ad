"""The export dialog: scope, format and path, then an atomic write in a thread worker.

``ExportScreen(db_path, scopes, default_dir)`` is a ``ModalScreen[tuple[int, Path] | None]``: it
dismisses with ``(count, path)`` after writing, or ``None`` when cancelled (escape); ``scope``
and ``fmt`` hold the last choices (the app remembers them). An existing file is never
overwritten, nor a missing folder created, without a confirm step; the file is written by
:func:`sitemap_tui.session.urlfile.write_atomic` (temp file, then rename), so a cancelled export
leaves nothing behind. The rows are written in the URL table's order (``sort``, ``descending``)
and CSV / JSON Lines carry each URL's rule ids.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, ProgressBar, RadioButton, RadioSet, Static
from textual.worker import Worker, get_current_worker

from sitemap_tui.engine.formats import (
    AUDIT_COLUMNS,
    EXPORT_FORMATS,
    MEDIA_FORMATS,
    UrlRecord,
    records_from_rows,
)
from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store import EntryFilter, Store
from sitemap_tui.engine.store.audit_filters import AuditView
from sitemap_tui.engine.store.exports import ID_CHUNK, count_rows, ordered_rows
from sitemap_tui.session.urlfile import missing_dir, names_folder, write_atomic
from sitemap_tui.tui.screens import SCREEN_ACTIONS, SafeActions

# short, to sit side by side at 80 columns; FORMAT_HINTS says what the chosen one holds, in a
# line (all five took three lines at 80 columns: with five scopes the Path field was pushed out
# of the dialog, the file's place unseen before Export)
FORMAT_LABELS = {"txt": "Text", "csv": "CSV", "jsonl": "JSONL", "images": "Images", "videos": "Videos"}
FORMAT_HINTS = {
    "txt": "Text: one URL a line",
    "csv": "CSV: every field and the URL's issue ids, a row a URL",
    "jsonl": "JSONL: every field and the URL's issue ids, a JSON object a line",
    "images": "Images: the image URLs of those URLs, one a line",
    "videos": "Videos: the video URLs (content, player) of those URLs, one a line",
}


def slug(scope: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", scope.lower()).strip("-")
    return s or "export"


def default_path(default_dir: Path, scope: str, fmt: str) -> Path:
    # the media lists are text files: their format names the list, not the extension
    tail = f"-{fmt}.txt" if fmt in MEDIA_FORMATS else f".{fmt}"
    return Path(default_dir) / f"sitemap-urls-{slug(scope)}{tail}"


def export_records(store: Store, flt: EntryFilter, sort: str = "id", descending: bool = False,
                   audit: bool = False) -> Iterator[UrlRecord]:
    """Records of a filter in the URL table's order, each with its issues' rule ids (and, with
    ``audit``, its audit results)."""
    return records_from_rows(store, ordered_rows(store, flt, sort, descending=descending), issues=True, audit=audit)


class _Cancelled(Exception):
    pass


class _Counted(Message, bubble=False):
    def __init__(self, scope: str, count: int | None) -> None:
        super().__init__()
        self.scope, self.count = scope, count


class _Progress(Message, bubble=False):
    def __init__(self, done: int, total: int | None) -> None:
        super().__init__()
        self.done, self.total = done, total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, _Progress)


class _Finished(Message, bubble=False):
    def __init__(self, count: int | None, path: Path, error: str | None = None, exists: bool = False) -> None:
        super().__init__()
        self.count, self.path, self.error, self.exists = count, path, error, exists


def nothing_to_export(scope: str) -> str:
    """What the dialog says of a scope with no URL (a rule about files names none)."""
    why = ": the rule is reported on sitemap files, not on URLs" if scope.startswith("URLs with rule") else ""
    return f"0 URLs in this scope{why}. Nothing to export: pick another scope."


class ExportScreen(SafeActions, ModalScreen[tuple[int, Path] | None]):
    """Choose what to export, in which format, where; then write it."""

    ALLOWED_ACTIONS: ClassVar[frozenset[str]] = SCREEN_ACTIONS | {"export"}

    # a short terminal (80x24): no blank lines, and the fields scroll while the confirm step and
    # the buttons stay in view
    VERTICAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = [(0, "-short"), (36, "-tall")]

    DEFAULT_CSS = """
    ExportScreen { align: center middle; }
    ExportScreen > #export-dialog {
        width: 90%; max-width: 100; height: auto; max-height: 95%;
        border: thick $primary; background: $surface; padding: 0 2;
    }
    ExportScreen #export-body { height: auto; }
    ExportScreen.-short > #export-dialog { height: 100%; max-height: 100%; width: 96%; padding: 0 1; }
    ExportScreen.-short #export-body { height: 1fr; }
    ExportScreen .title { text-style: bold; margin-bottom: 1; }
    ExportScreen .field { margin-top: 1; text-style: bold; }
    ExportScreen.-short .title { margin-bottom: 0; }
    ExportScreen.-short .field { margin-top: 0; }
    ExportScreen RadioSet { width: 100%; }
    ExportScreen #export-format { layout: horizontal; }
    ExportScreen #export-count, ExportScreen #export-hint { color: $text-muted; }
    ExportScreen #export-error { color: $error; height: auto; }
    ExportScreen #export-confirm { display: none; height: auto; border: round $warning; padding: 0 1; }
    ExportScreen #export-confirm.-open { display: block; }
    ExportScreen #export-progress { display: none; margin-top: 1; }
    ExportScreen #export-progress.-open { display: block; }
    ExportScreen .buttons { height: auto; margin-top: 1; align-horizontal: right; }
    ExportScreen.-short .buttons { margin-top: 0; }
    ExportScreen .buttons Button { margin-left: 2; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="export.cancel"),
        # the app's export key, pressed again in the dialog, writes (the modal screen holds the keys)
        Binding("ctrl+s", "export", "Export", id="export.go", show=False),
    ]

    def __init__(self, db_path: Path, scopes: dict[str, EntryFilter], default_dir: Path, *,
                 scope: str | None = None, fmt: str = "txt", sort: str = "id", descending: bool = False) -> None:
        super().__init__()
        if not scopes:
            raise ValueError("nothing to export: no scopes")
        self.db_path = Path(db_path)
        self.scopes = dict(scopes)
        self.default_dir = Path(default_dir)
        self.scope = scope if scope in self.scopes else next(iter(self.scopes))
        self.fmt = fmt if fmt in EXPORT_FORMATS else "txt"
        self.sort, self.descending = sort, descending
        self._auto_path = str(default_path(self.default_dir, self.scope, self.fmt))
        self._writer: Worker[None] | None = None
        # the confirm step waiting for an answer: ("overwrite" | "create", the path)
        self._pending: tuple[str, Path] | None = None
        self._counts: dict[str, int | None] = {}  # URLs in each scope, once counted

    # -- layout ---------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog"):
            with VerticalScroll(id="export-body", can_focus=False):
                yield Label(Text("Export URLs"), classes="title")
                yield Label(Text("Scope"), classes="field")
                with RadioSet(id="export-scope"):
                    for name in self.scopes:
                        yield RadioButton(Text(display(name, 200)), value=name == self.scope, name=name)
                yield Static(Text("counting…"), id="export-count", markup=False)
                yield Label(Text("Format"), classes="field")
                with RadioSet(id="export-format"):
                    for fmt in EXPORT_FORMATS:
                        yield RadioButton(Text(FORMAT_LABELS.get(fmt, fmt)), value=fmt == self.fmt, name=fmt)
                yield Static(Text(FORMAT_HINTS.get(self.fmt, "")), id="export-hint", markup=False)
                yield Label(Text("Path"), classes="field")
                yield Input(value=self._auto_path, id="export-path")
                yield Static("", id="export-error", markup=False)
            with Vertical(id="export-confirm"):
                yield Static("", id="export-confirm-text", markup=False)
                with Horizontal(classes="buttons"):
                    yield Button(Text("Keep the file"), id="export-keep")
                    yield Button(Text("Overwrite"), id="export-overwrite", variant="warning")
            yield ProgressBar(id="export-progress", show_eta=False)
            with Horizontal(classes="buttons", id="export-buttons"):
                yield Button(Text("Cancel"), id="export-cancel")
                yield Button(Text("Export"), id="export-go", variant="primary")

    def on_mount(self) -> None:
        # the keyboard's cursor on the choice made, not the first: Textual's RadioSet starts it on
        # its first button, and Tab, Tab, Enter turned a remembered CSV into Text (found from outside)
        for radios in self.query(RadioSet):
            if radios.pressed_index >= 0:
                radios._selected = radios.pressed_index
        self.query_one("#export-go", Button).focus()
        self._count(self.scope, self.scopes[self.scope])

    # -- choices --------------------------------------------------------------------------------
    @on(RadioSet.Changed, "#export-scope")
    def _scope_changed(self, event: RadioSet.Changed) -> None:
        name = event.pressed.name
        if name in self.scopes:
            self.scope = name
            self._update_default_path()
            self.query_one("#export-count", Static).update(Text("counting…"))
            self._count(name, self.scopes[name])

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self, event: RadioSet.Changed) -> None:
        name = event.pressed.name
        if name in EXPORT_FORMATS:
            self.fmt = name
            self.query_one("#export-hint", Static).update(Text(FORMAT_HINTS.get(name, "")))
            self._update_default_path()

    def _update_default_path(self) -> None:
        inp = self.query_one("#export-path", Input)
        new = str(default_path(self.default_dir, self.scope, self.fmt))
        if inp.value == self._auto_path:  # the user has not typed a path of their own
            inp.value = new
        self._auto_path = new
        self._hide_confirm()

    @on(Input.Changed, "#export-path")
    def _path_changed(self) -> None:
        self._hide_confirm()
        self.query_one("#export-error", Static).update("")

    @work(thread=True, exclusive=True, group="export-count", exit_on_error=False, description="count URLs to export")
    def _count(self, scope: str, flt: EntryFilter) -> None:
        try:
            store = Store(self.db_path, readonly=True)
            try:
                if flt.entry_ids is not None and len(flt.entry_ids) > ID_CHUNK:
                    n: int | None = len(set(flt.entry_ids))
                else:
                    n = count_rows(store, flt)
            finally:
                store.conn.close()
        except (sqlite3.Error, ValueError):
            n = None
        self.post_message(_Counted(scope, n))

    @on(_Counted)
    def _counted(self, msg: _Counted) -> None:
        self._counts[msg.scope] = msg.count
        if msg.scope != self.scope:
            return
        if msg.count == 0:
            self.query_one("#export-count", Static).update(Text(nothing_to_export(msg.scope)))
            return
        text = "cannot count" if msg.count is None else f"{msg.count:,} URL{'s' if msg.count != 1 else ''}"
        order = ("as found" if self.sort == "id" else f"by {self.sort}") + (", reversed" if self.descending else "")
        self.query_one("#export-count", Static).update(Text(f"{text} · in the table's order ({order})"))

    # -- writing --------------------------------------------------------------------------------
    def _target(self) -> Path | None:
        raw = self.query_one("#export-path", Input).value.strip()
        error = self.query_one("#export-error", Static)
        if not raw:
            error.update(Text("Type a path."))
            return None
        path = Path(raw).expanduser()
        if path.is_dir() or names_folder(raw):
            what = "is a directory" if path.is_dir() else "names a directory, as typed"
            error.update(Text(f"{display(raw)} {what}; add a file name."))
            return None
        error.update("")
        return path

    @on(Button.Pressed, "#export-go")
    @on(Input.Submitted, "#export-path")
    def action_export(self) -> None:
        if self._writer is not None:
            return
        if self._counts.get(self.scope, -1) == 0:
            # (an empty file under the user's name said "Exported 0 URLs" as if that were done)
            self.query_one("#export-error", Static).update(Text(nothing_to_export(self.scope)))
            return
        path = self._target()
        if path is None:
            return
        self._proceed(path, overwrite=False, create=False)

    def _proceed(self, path: Path, *, overwrite: bool, create: bool) -> None:
        """Ask before creating a folder, then before overwriting a file, then write."""
        folder = missing_dir(path)
        if folder is not None and not create:
            self._ask("create", path, f"The folder {display(str(folder), 500)} does not exist. Create it?",
                      keep="Back", go="Create the folder")
        elif path.exists() and not overwrite:
            self._ask("overwrite", path, f"{display(str(path), 500)} already exists. Overwrite it?",
                      keep="Keep the file", go="Overwrite")
        else:
            self._start(path, overwrite=overwrite, create=create)

    def _ask(self, kind: str, path: Path, question: str, *, keep: str, go: str) -> None:
        self._pending = (kind, path)
        self.query_one("#export-confirm-text", Static).update(Text(question))
        self.query_one("#export-keep", Button).label = Text(keep)
        self.query_one("#export-overwrite", Button).label = Text(go)
        self.query_one("#export-confirm").add_class("-open")
        self.query_one("#export-keep", Button).focus()

    def _hide_confirm(self) -> bool:
        confirm = self.query_one("#export-confirm")
        self._pending = None
        if confirm.has_class("-open"):
            confirm.remove_class("-open")
            return True
        return False

    def _edit_path(self) -> None:
        """Focus the path with its text selected, so that what is typed next replaces it."""
        inp = self.query_one("#export-path", Input)
        inp.focus()
        inp.select_all()

    @on(Button.Pressed, "#export-keep")
    def _keep(self) -> None:
        self._hide_confirm()
        self._edit_path()

    @on(Button.Pressed, "#export-overwrite")
    def _confirmed(self) -> None:
        pending = self._pending
        self._hide_confirm()
        if pending is None:
            return
        kind, path = pending
        if kind == "create":  # the file may exist no more than the folder did: go on checking
            self._proceed(path, overwrite=False, create=True)
        else:
            self._proceed(path, overwrite=True, create=False)

    def _start(self, path: Path, *, overwrite: bool, create: bool) -> None:
        for wid in ("#export-go", "#export-scope", "#export-format", "#export-path"):
            self.query_one(wid).disabled = True
        bar = self.query_one("#export-progress", ProgressBar)
        bar.add_class("-open")
        bar.update(total=None, progress=0)
        self._writer = self._write(self.scopes[self.scope], self.fmt, path, overwrite, create)

    @work(thread=True, exclusive=True, group="export-write", exit_on_error=False, description="export URLs")
    def _write(self, flt: EntryFilter, fmt: str, path: Path, overwrite: bool, create: bool) -> None:
        worker = get_current_worker()
        try:
            store = Store(self.db_path, readonly=True)
        except sqlite3.Error as exc:
            self.post_message(_Finished(None, path, f"cannot open the store: {exc}"))
            return
        try:
            ids = flt.entry_ids
            total = len(set(ids)) if ids is not None and len(ids) > ID_CHUNK else count_rows(store, flt)
            self.post_message(_Progress(0, total))
            audit = AuditView.of(store.conn).export_columns(AUDIT_COLUMNS)  # those the store has results for

            def records() -> Iterator[UrlRecord]:
                last = time.monotonic()
                for done, rec in enumerate(export_records(store, flt, self.sort, self.descending, bool(audit)), 1):
                    if worker.is_cancelled:
                        raise _Cancelled
                    yield rec
                    now = time.monotonic()
                    if now - last > 0.1:
                        last = now
                        self.post_message(_Progress(done, total))

            count = write_atomic(path, fmt, records(), overwrite=overwrite, create_dirs=create, issues=True, audit=audit)
            self.post_message(_Progress(count, total))
            self.post_message(_Finished(count, path))
        except _Cancelled:
            return
        except FileExistsError:
            self.post_message(_Finished(None, path, exists=True))
        except (OSError, sqlite3.Error, ValueError) as exc:
            self.post_message(_Finished(None, path, str(exc)))
        finally:
            store.conn.close()

    @on(_Progress)
    def _progress(self, msg: _Progress) -> None:
        bar = self.query_one("#export-progress", ProgressBar)
        bar.update(total=msg.total if msg.total else None, progress=msg.done)

    @on(_Finished)
    def _finished(self, msg: _Finished) -> None:
        self._writer = None
        for wid in ("#export-go", "#export-scope", "#export-format", "#export-path"):
            self.query_one(wid).disabled = False
        self.query_one("#export-progress").remove_class("-open")
        if msg.exists:  # appeared between the check and the write
            self._proceed(msg.path, overwrite=False, create=True)
            return
        if msg.error is not None or msg.count is None:
            self.query_one("#export-error", Static).update(
                Text(f"Export failed: {display(msg.error or 'unknown error', 500)}")
            )
            # the disabled widgets lost the focus: give it to the path, ready to be replaced
            self._edit_path()
            return
        self.dismiss((msg.count, msg.path))

    # -- leaving --------------------------------------------------------------------------------
    @on(Button.Pressed, "#export-cancel")
    def action_cancel(self) -> None:
        if self._writer is not None:
            self._writer.cancel()  # the records generator stops; write_atomic removes its temp file
            self._writer = None
            self.dismiss(None)
            return
        if self._hide_confirm():
            self._edit_path()
            return
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[Any, ...]) -> bool | None:
        return action in self.ALLOWED_ACTIONS

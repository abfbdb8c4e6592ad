"""Widgets of the explorer, and the base class of the per-node panes.

A pane shows one :class:`Selection` (a file, or a subtree of files). Its data is read from the
store in a thread worker with its own read-only connection (SQLite connections are never
shared across threads), and the result comes back as a message handled on the UI thread.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual import on, work
from textual.containers import ScrollableContainer
from textual.message import Message
from textual.visual import VisualType
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import get_current_worker

from sitemap_tui.engine.model import Node


@dataclass(frozen=True)
class Selection:
    """What the panes show: one node, and the ids it covers (itself, or its subtree)."""

    node: Node
    ids: tuple[int, ...]
    subtree: bool
    children: tuple[Node, ...] = ()
    nodes: dict[int, Node] = field(default_factory=dict)  # snapshots of every node in ids
    issues: dict[int, tuple[int, int]] = field(default_factory=dict)
    whole: bool = False
    """The subtree is the whole exploration (its one root): the store is asked without a list
    of ids (Store.aggregate(None), issue_counts(filed=True))."""

    @property
    def store_file_ids(self) -> list[int] | None:
        """``file_ids`` for a store query; None (every file) for the whole exploration."""
        return None if self.whole else self.file_ids

    @property
    def store_node_ids(self) -> list[int] | None:
        """``ids`` for a store query; None (every node) for the whole exploration."""
        return None if self.whole else list(self.ids)

    @property
    def node_id(self) -> int:
        return self.node.id

    @property
    def file_ids(self) -> list[int]:
        from sitemap_tui.engine.model import NodeKind

        return [i for i in self.ids if (n := self.nodes.get(i)) is None or n.kind not in (NodeKind.SITE, NodeKind.DIRECTORY)]


class NodePane(Widget):
    """Base of the Overview / Extensions / Lastmod panes."""

    @dataclass
    class Loaded(Message):
        token: int
        data: Any

    def __init__(self, db_path: Path | None = None, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.db_path = db_path
        self.selection: Selection | None = None
        self._token = 0
        self.loaded_token = -1
        self.stale = False

    @property
    def body(self) -> Widget:
        """The widget a pane key focuses: the pane's scrollable body (every pane composes one)."""
        return self.query_one(ScrollableContainer)

    def show(self, selection: Selection | None) -> None:
        self.selection = selection
        self.reload()

    def data_changed(self) -> None:
        """New data arrived for the selection; reload (the app calls this at a steady rate)."""
        if self.selection is not None:
            self.reload()

    def reload(self) -> None:
        self._token += 1
        if self.selection is None or self.db_path is None:
            self.render_data(None)
            self.loaded_token = self._token
            return
        self._load(self._token, [self.selection], self.db_path)

    @work(thread=True, exclusive=True, exit_on_error=False, group="pane", description="load the pane")
    def _load(self, token: int, box: list[Selection], db_path: Path) -> None:
        """``box`` holds the selection and is emptied here: a finished Textual worker is garbage
        in a reference cycle, with its arguments, and the app's collector tuning keeps such
        cycles for good (tui/gc_tuning.py). A selection of a 200,000-node subtree is a 10 MB
        dict, one per refresh: 1 GB a minute and a half into an expand-all of hostile indexes
        (found by a review)."""
        from sitemap_tui.engine.store import Store

        selection = box.pop()
        worker = get_current_worker()
        if not db_path.exists():
            self.post_message(self.Loaded(token, None))
            return
        try:
            store = Store(db_path, readonly=True)
        except sqlite3.Error:
            self.post_message(self.Loaded(token, None))
            return
        try:
            data = self.fetch_data(store, selection)
        except sqlite3.Error as exc:
            data = {"error": f"cannot read the store: {exc}"}
        finally:
            store.conn.close()
        if not worker.is_cancelled:
            self.post_message(self.Loaded(token, data))

    @on(Loaded)
    def _loaded(self, message: NodePane.Loaded) -> None:
        message.stop()
        if message.token != self._token:
            return
        self.render_data(message.data)
        self.loaded_token = message.token

    @property
    def is_current(self) -> bool:
        """True when the last requested data has been rendered (tests wait on this)."""
        return self.loaded_token == self._token

    # -- abstract hooks: every pane implements both (Widget's metaclass rules out ABC) ----------
    def fetch_data(self, store: Any, selection: Selection) -> Any:  # runs in a thread
        raise NotImplementedError

    def render_data(self, data: Any) -> None:  # runs on the UI thread
        raise NotImplementedError


def update_static(static: Static, content: VisualType) -> None:
    """``Static.update``, laying the screen out again only when the widget's height changes.

    While a subtree streams, the panes re-render several times a second with numbers that grow
    but keep their shape. A layout pass of the whole screen per update was the largest source of
    event-loop stalls (bench/bench_tui.py), and is not needed when the height stays the same."""
    region = static.content_region
    static.update(content, layout=False)
    if not static.is_mounted or region.width <= 0:
        static.refresh(layout=True)
        return
    needed = static.get_content_height(static.size, static.app.size, region.width)
    if needed != region.height:
        static.refresh(layout=True)

"""Helpers of the explorer's Pilot tests: bounded polling (no sleeps) and rendered text."""

from __future__ import annotations

import asyncio
import io
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from rich.console import Console

from sitemap_tui import screenshots
from sitemap_tui.demo import server as demo_server_module
from sitemap_tui.demo.server import DemoServer
from sitemap_tui.screenshots import ACTIVE, workers_done
from sitemap_tui.tui.app import SitemapApp

__all__ = ["ACTIVE", "workers_done"]  # used by the tests from here

FIXED_NOW = datetime(2025, 1, 15, 12, 0, tzinfo=UTC)


async def wait_for(pilot: Any, predicate: Callable[[], bool], timeout: float = 15.0, what: str = "condition",
                   seen: Callable[[], Any] | None = None) -> None:
    """Poll ``predicate`` between UI turns (no sleeps): at most ``timeout`` seconds. ``seen``
    says what there was instead, in the failure (a rare failure is read once, from CI's log)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            instead = f"; instead: {seen()!r}" if seen is not None else ""
            raise AssertionError(f"timed out waiting for {what}{instead}")
        await pilot.pause(0.05)


async def wait_started(app: SitemapApp, pilot: Any) -> None:
    await wait_for(pilot, lambda: app.root_opened and bool(app.tree.model.roots()), what="the exploration to open")
    await wait_for(pilot, lambda: app.selected_id is not None, what="the first selection")
    await settle(app, pilot)


async def settle(app: SitemapApp, pilot: Any, timeout: float = 15.0) -> None:
    """Wait for the engine to be idle, the panes to be refreshed and the workers to finish."""
    await screenshots.settle(app, pilot, timeout)


async def select(app: SitemapApp, pilot: Any, node_id: int) -> None:
    """Move the tree cursor to a node (revealing it) and wait for the panes."""
    assert app.tree.reveal(node_id), f"node {node_id} is not in the tree"
    await wait_for(pilot, lambda: app.selected_id == node_id, what=f"node {node_id} to be selected")
    await workers_done(app)
    await pilot.pause()


def node_by_name(app: SitemapApp, name: str) -> int:
    for nid, node in app.tree.model.nodes.items():
        if node.url.rstrip("/").endswith("/" + name) or node.url.endswith(name):
            return nid
    raise KeyError(name)


def capture_notes(app: Any) -> list[str]:
    """Every notification the app shows from now on, as text (the notification still shows)."""
    notes: list[str] = []
    original = app.notify

    def notify(message: Any, *args: Any, **kw: Any) -> Any:
        notes.append(str(message))
        return original(message, *args, **kw)

    app.notify = notify
    return notes


def screen_text(app: Any) -> str:
    """The plain text on screen (the same composition export_screenshot renders)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False, safe_box=False)
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    console.print(update)
    return console.export_text(styles=False)


def plain(renderable: Any, width: int = 120) -> str:
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return console.export_text(styles=False)


def static_text(widget: Any, width: int = 120) -> str:
    return plain(widget.content if hasattr(widget, "content") else widget.render(), width)


class Gate:
    """Holds every answer of a gated demo server until the test opens it: a test that must see
    a fetch in flight ("loading…", cancelling) sees it however slow the machine is, instead of
    hoping that a fixed server delay outlasts its polling."""

    def __init__(self) -> None:
        self._open = threading.Event()

    def open(self) -> None:
        self._open.set()

    def close(self) -> None:
        self._open.clear()

    def _hold(self, _delay: float) -> None:  # stands in for the server's time.sleep(delay)
        self._open.wait(60)  # a guard: a request is never held longer than this


@contextmanager
def gated_demo_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[DemoServer, Gate]]:
    """The demo server with its answers held by a Gate, closed at first."""
    gate = Gate()
    monkeypatch.setattr(demo_server_module, "time", types.SimpleNamespace(sleep=gate._hold))
    with DemoServer(delay=1.0) as srv:  # any delay > 0 makes each request wait on the gate
        try:
            yield srv, gate
        finally:
            gate.open()  # let held requests end so that the server can stop

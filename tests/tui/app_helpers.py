"""Helpers of the explorer's Pilot tests: bounded polling (no sleeps) and rendered text."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from rich.console import Console

from sitemap_tui import screenshots
from sitemap_tui.screenshots import ACTIVE, workers_done
from sitemap_tui.tui.app import SitemapApp

__all__ = ["ACTIVE", "workers_done"]  # used by the tests from here

FIXED_NOW = datetime(2025, 1, 15, 12, 0, tzinfo=UTC)


async def wait_for(pilot: Any, predicate: Callable[[], bool], timeout: float = 15.0, what: str = "condition") -> None:
    """Poll ``predicate`` between UI turns (no sleeps): at most ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


async def wait_started(app: SitemapApp, pilot: Any) -> None:
    await wait_for(pilot, lambda: app._root_opened and bool(app.tree.model.roots()), what="the exploration to open")
    await wait_for(pilot, lambda: app._selected is not None, what="the first selection")
    await settle(app, pilot)


async def settle(app: SitemapApp, pilot: Any, timeout: float = 15.0) -> None:
    """Wait for the engine to be idle, the panes to be refreshed and the workers to finish."""
    await screenshots.settle(app, pilot, timeout)


async def select(app: SitemapApp, pilot: Any, node_id: int) -> None:
    """Move the tree cursor to a node (revealing it) and wait for the panes."""
    assert app.tree.reveal(node_id), f"node {node_id} is not in the tree"
    await wait_for(pilot, lambda: app._selected == node_id, what=f"node {node_id} to be selected")
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

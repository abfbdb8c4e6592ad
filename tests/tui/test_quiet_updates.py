"""Pane updates while streaming lay the screen out only when a widget's height changes."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from sitemap_tui.tui.widgets import update_static


class _Probe(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("one line", id="s")
            yield Static("below", id="below")


def _count_layouts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    original = Screen._refresh_layout

    def counting(self: Screen[Any], size: Any = None, scroll: bool = False) -> None:
        if not scroll:
            calls.append(1)
        original(self, size, scroll)

    monkeypatch.setattr(Screen, "_refresh_layout", counting)
    return calls


@pytest.mark.asyncio
async def _quiet(pilot: Any, calls: list[int]) -> None:
    """Pauses until a pause brings no more layouts (one change may take two passes)."""
    for _ in range(20):
        n = len(calls)
        await pilot.pause()
        await pilot.pause()
        if len(calls) == n:
            return


async def test_update_static_lays_out_only_when_height_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    app = _Probe()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        static = app.query_one("#s", Static)
        below = app.query_one("#below", Static)
        calls = _count_layouts(monkeypatch)
        await _quiet(pilot, calls)
        calls.clear()

        update_static(static, Text("1,234 URLs"))  # same height: repaint only
        await pilot.pause()
        assert calls == []
        assert "1,234 URLs" in str(static.render())

        update_static(static, Text("a\nb\nc"))  # taller: laid out, the next widget moves down
        await pilot.pause()
        assert calls
        assert static.size.height == 3
        assert below.region.y == static.region.y + 3

        await _quiet(pilot, calls)  # (the layout's own second pass is not the next update's)
        calls.clear()
        update_static(static, Text("d\ne\nf"))
        await pilot.pause()
        assert calls == []

        update_static(static, Text("x" * 90))  # wraps to three lines at width 40: same height
        await pilot.pause()
        assert calls == []

        update_static(static, Text("short"))  # shorter again
        await pilot.pause()
        assert calls
        assert static.size.height == 1
        assert below.region.y == static.region.y + 1

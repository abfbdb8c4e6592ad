"""Focus follows intent (issue 18): the pane a key switches to gets the focus, so the arrow keys act
on what is shown, and Enter on an issue lands on its URL in the URL table, focused."""

from __future__ import annotations

from typing import Any

import pytest
from app_helpers import settle, wait_for, wait_started
from textual.containers import VerticalScroll
from textual.widgets import TabbedContent, Tree

from sitemap_tui.tui.widgets.drill_list import DrillList
from sitemap_tui.tui.widgets.extensions import ExtensionsPane
from sitemap_tui.tui.widgets.lastmod_chart import LastmodPane
from sitemap_tui.tui.widgets.overview import OverviewPane

SIZES = [(200, 50), (80, 24)]


def active_tab(app: Any) -> str:
    return app.query_one("#tabs", TabbedContent).active


def issue_list(app: Any) -> Tree[Any]:
    return app.issues_pane.query_one("#issues-tree", Tree)


async def explored(app: Any, pilot: Any) -> None:
    """The demo site, expanded all (e) from the root, as a user starts."""
    await wait_started(app, pilot)
    await pilot.press("e")
    await settle(app, pilot)


async def press_until(pilot: Any, key: str, predicate: Any, what: str, most: int = 80) -> None:
    """Press ``key`` until ``predicate()`` holds (a user moving a cursor to a row), at most ``most`` times."""
    for _ in range(most):
        if predicate():
            return
        await pilot.press(key)
        await pilot.pause()
    assert predicate(), f"{what}: not reached after {most} presses of {key}"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_enter_on_an_issue_shows_its_url_focused_in_the_url_table(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        root = app.selected_id
        await pilot.press("4")
        await settle(app, pilot)
        assert active_tab(app) == "issues"
        issues = issue_list(app)
        # the user's way in: Tab until the issue list has the focus (the 4 alone does it now)
        await press_until(pilot, "tab", lambda: app.focused is issues, "focus on the issue list", most=8)
        # open a rule whose issue is on one URL, then Enter on that issue
        await press_until(pilot, "down", lambda: app.issues_pane.selected_rule == "loc-session-id"
                          and issues.cursor_node is not None and issues.cursor_node.data.kind == "rule",
                          "the loc-session-id rule")
        rule_node = issues.cursor_node
        await pilot.press("right")  # → opens a rule (Enter on a rule drills into its URLs now)
        await wait_for(pilot, lambda: bool(rule_node.children), what="the rule's issues")
        await pilot.press("down")
        await pilot.pause()
        issue = app.issues_pane.selected_issue
        assert issue is not None and issue.entry_id is not None and issue.url
        await pilot.press("enter")
        table = app.url_table
        await wait_for(pilot, lambda: table.highlighted_entry is not None and table.highlighted_entry.id == issue.entry_id,
                       what="the issue's row under the cursor")
        await settle(app, pilot)
        assert active_tab(app) == "urls"
        assert app.focused is table.grid
        assert table.highlighted_entry.loc == issue.url
        assert app.selected_id == root  # the tree keeps its node: the table shows the issue within it
        # the arrow keys act on the table, and the pane keys keep working afterwards
        row = table.grid.cursor
        await pilot.press("down")
        await pilot.pause()
        assert table.grid.cursor != row or table.grid.row_count == 1
        await pilot.press("1")
        await settle(app, pilot)
        assert active_tab(app) == "overview"
        await pilot.press("5")
        await settle(app, pilot)
        assert active_tab(app) == "urls" and app.focused is table.grid
        await pilot.press("0")
        await pilot.pause()
        assert app.focused is app.tree


def pane_body(app: Any, tab: str) -> Any:
    """The widget a pane key must focus: the issue list, the URL grid, or the pane's scrollable body."""
    if tab == "issues":
        return issue_list(app)
    if tab == "urls":
        return app.url_table.grid
    if tab == "lastmod":  # the chart: its bar cursor takes the arrows, Enter drills
        return app.query_one(LastmodPane).chart
    if tab == "extensions":  # the rows, Enter drills (the demo's root has extension rows)
        return app.query_one(ExtensionsPane).query_one(DrillList)
    return app.query_one(OverviewPane).query_one(VerticalScroll)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_pane_keys_focus_the_pane_they_show(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        tree_cursor = app.tree.cursor_id
        # from the tree, and from pane to pane (each key leaves focus in the pane it showed)
        for key, tab in [("4", "issues"), ("5", "urls"), ("1", "overview"), ("2", "extensions"),
                         ("3", "lastmod"), ("5", "urls"), ("4", "issues"), ("1", "overview")]:
            await pilot.press(key)
            await settle(app, pilot)
            assert active_tab(app) == tab, f"{key}: the {active_tab(app)} tab is shown"
            assert app.focused is pane_body(app, tab), f"{key}: focus is on {app.focused!r}"
            await pilot.press("down")  # acts on the pane, never on the hidden-behind tree
            await pilot.pause()
            assert app.tree.cursor_id == tree_cursor
        # the arrow keys move the cursors of the lists
        await pilot.press("5")
        await settle(app, pilot)
        grid = app.url_table.grid
        before = grid.cursor
        await pilot.press("down")
        await pilot.pause()
        assert grid.cursor == before + 1
        await pilot.press("4")
        await settle(app, pilot)
        issues = issue_list(app)
        line = issues.cursor_line
        await pilot.press("down")
        await pilot.pause()
        assert issues.cursor_line == line + 1
        await pilot.press("0")
        await pilot.pause()
        assert app.focused is app.tree


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_click_on_a_tab_focuses_the_pane_it_shows(demo_server, make_app, size):
    """Clicking a tab put the focus on the tab bar (Textual's own), where the arrows only switch
    tabs; it goes on into the pane shown, as the keys 1-5 do."""
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        for tab in ("urls", "issues", "lastmod"):
            await pilot.click(f"#--content-tab-{tab}")
            await settle(app, pilot)
            assert active_tab(app) == tab
            await wait_for(pilot, lambda t=tab: app.focused is pane_body(app, t), what=f"focus in the {tab} pane")

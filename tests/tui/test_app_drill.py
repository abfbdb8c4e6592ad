"""Drill-through everywhere (issue 18): Enter on a lastmod bar, an Overview group or an extension
row opens the URL table on exactly those URLs, focused, with the filter visible and editable; Esc
(or backspace) returns to where the user was; Esc with nothing to close or go back to focuses the
tree. Driven with real key presses on the demo site at 200x50 and 80x24."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from app_helpers import (
    gated_demo_server,
    node_by_name,
    screen_text,
    select,
    settle,
    wait_for,
    wait_started,
)
from test_app_focus import active_tab, explored, press_until
from textual.widgets import Input

from sitemap_tui.engine.store import Store
from sitemap_tui.tui.widgets.extensions import ExtensionsPane
from sitemap_tui.tui.widgets.lastmod_chart import LastmodPane
from sitemap_tui.tui.widgets.overview import OverviewPane
from sitemap_tui.tui.widgets.sitemap_tree import ACTIVE

SIZES = [(200, 50), (80, 24)]
sizes = pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")


def filter_input(app: Any) -> Input:
    return app.url_table.query_one("#url-filter", Input)


def listed(app: Any) -> list[Any]:
    """Every row the URL table's filter lists, read from the store."""
    store = Store(app.db_path, readonly=True)
    try:
        return list(store.iter_entries(app.url_table.current_filter))
    finally:
        store.conn.close()


async def landed(app: Any, pilot: Any, text: str) -> None:
    """The URL table shows ``text`` in its filter bar, on screen, with the grid focused and counted."""
    table = app.url_table
    await wait_for(pilot, lambda: active_tab(app) == "urls" and filter_input(app).value == text
                   and table.grid.total is not None and not table.grid.loading, what=f"the table on {text}")
    await settle(app, pilot)
    assert app.focused is table.grid
    bar = filter_input(app)
    assert bar.display and bar.region.width > 0 and bar.region.y < app.size[1], "the filter bar is on screen"
    shown = bar.render_line(0).text.rstrip()
    if bar.region.width > len(text):
        assert shown == text
    else:  # at 80x24 the filter bar's input is ~13 columns wide (beside its toggles): a part shows
        assert len(shown) >= 10 and shown in text, shown


@sizes
async def test_lastmod_bar_opens_its_urls_and_esc_returns_to_the_chart(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        await select(app, pilot, node_by_name(app, "sitemap-products.xml.gz"))
        await pilot.press("3")
        await settle(app, pilot)
        chart = app.query_one(LastmodPane).chart
        await press_until(pilot, "tab", lambda: app.focused is chart, "focus on the chart", most=6)
        # the cursor starts on the last period; back one with data
        last = chart.cursor_period
        assert last is not None
        await pilot.press("left")
        await press_until(pilot, "left", lambda: chart.cursor_period[1] > 0, "a month with URLs")
        key, count = chart.cursor_period
        assert key != last[0] and len(key) == 7  # months, YYYY-MM
        assert f"{key}: {count} URL" in chart.render().plain  # the cursor's period is named
        await pilot.press("enter")
        await landed(app, pilot, f"lastmod:{key}")
        rows = listed(app)
        assert app.url_table.grid.total == len(rows) == count
        start = datetime.strptime(key, "%Y-%m").replace(tzinfo=UTC).timestamp()
        assert all(r.lastmod is not None and r.lastmod >= start and r.lastmod_raw.startswith(key[:4]) for r in rows)
        # the filter is the user's to edit: narrowing it works as typed
        await pilot.press("escape")  # nothing open: back to the chart, its cursor where it was
        await wait_for(pilot, lambda: active_tab(app) == "lastmod", what="the lastmod tab again")
        await pilot.pause()
        assert app.focused is chart
        assert chart.cursor_period == (key, count)
        # Esc again: nothing to go back to, the tree
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is app.tree


async def products_overview(app: Any, pilot: Any) -> OverviewPane:
    """The demo expanded, sitemap-products.xml.gz selected and its Overview shown (1)."""
    await explored(app, pilot)
    await select(app, pilot, node_by_name(app, "sitemap-products.xml.gz"))
    await pilot.press("1")
    await settle(app, pilot)
    return app.query_one(OverviewPane)


@sizes
async def test_changefreq_row_opens_its_urls_and_backspace_returns(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        pane = await products_overview(app, pilot)
        groups = pane.groups
        await press_until(pilot, "tab", lambda: app.focused is groups, "focus on the changefreq / priority groups", most=6)
        await press_until(pilot, "down", lambda: groups.highlighted_row is not None
                          and groups.highlighted_row.filter_text == "changefreq:weekly", "the weekly row")
        row_text = groups.highlighted_row.label.plain
        count = int(row_text.split()[1].replace(",", ""))
        await pilot.press("enter")
        await landed(app, pilot, "changefreq:weekly")
        rows = listed(app)
        assert app.url_table.grid.total == len(rows) == count > 0
        assert all(r.changefreq_raw.strip().lower() == "weekly" for r in rows)
        # Esc closes the detail first, then goes back
        await pilot.press("enter")
        await pilot.pause()
        assert app.url_table.detail_open
        await pilot.press("escape")
        await pilot.pause()
        assert not app.url_table.detail_open and active_tab(app) == "urls" and app.focused is app.url_table.grid
        await pilot.press("backspace")
        await wait_for(pilot, lambda: active_tab(app) == "overview", what="the overview again")
        await pilot.pause()
        assert app.focused is groups
        assert groups.highlighted_row.filter_text == "changefreq:weekly"

        # a priority row and a lastmod line drill the same way
        await press_until(pilot, "down", lambda: groups.highlighted_row.filter_text == "lastmod:invalid", "the invalid lastmod line")
        await pilot.press("enter")
        await landed(app, pilot, "lastmod:invalid")
        rows = listed(app)
        assert len(rows) == 1 and rows[0].lastmod is None and rows[0].lastmod_raw


@sizes
async def test_enter_on_the_overview_goes_to_its_rows_then_lists_one(demo_server, make_app, size):
    """Tried in tmux at 80x24: 1, then Enter did nothing, though the groups' heading says
    "enter: list a row's URLs" (the focus was on the pane's body, the rows a tab away). Enter
    now takes the focus to the rows; a second Enter lists the first row's URLs."""
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        pane = await products_overview(app, pilot)
        groups = pane.groups
        assert app.focused is pane.body
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.focused is groups, what="the rows focused")
        first = groups.highlighted_row
        assert first is not None and first.filter_text is not None
        await pilot.press("enter")
        await landed(app, pilot, first.filter_text)


@sizes
async def test_the_overview_reaches_its_last_row_from_the_body_and_from_the_rows(demo_server, make_app, size):
    """Found from outside at 80x24: the groups' list was capped to the pane's height and scrolled
    inside itself, so End, PageDown and Down on the pane stopped at the Priority table: the
    lastmod, indexability and crawler-access rows below it were out of reach. Now the pane
    scrolls over the whole list, and follows the highlighted row when the rows have the focus."""
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        pane = await products_overview(app, pilot)
        groups, body = pane.groups, pane.body

        def shown(line: int) -> bool:
            y = groups.region.y + line
            return body.region.y <= y < body.region.bottom

        last = groups.virtual_size.height - 1
        assert app.focused is body
        await pilot.press("end")
        await pilot.pause()
        assert shown(last), (groups.region, body.region, last)
        await pilot.press("home")
        await pilot.pause()
        await pilot.press("enter")  # the rows take the focus
        await wait_for(pilot, lambda: app.focused is groups, what="the rows focused")
        await pilot.press("end")
        await pilot.pause()
        assert groups.highlighted == len(groups.rows) - 1 or groups.rows[-1].filter_text is None
        assert shown(last) or shown(last - 1), (groups.region, body.region, last)
        await pilot.press("home")
        await pilot.pause()
        assert shown(0)
        # a page is the pane's height (found by a review: PageDown went to the last row, PageUp
        # onto the first heading left none highlighted)
        line_of = groups._index_to_line
        await pilot.press("pagedown")
        await pilot.pause()
        row = groups.highlighted
        assert row is not None and shown(line_of[row])
        if groups.virtual_size.height > body.size.height + 2:  # (the list is taller than the pane)
            assert row < len(groups.rows) - 1
        await pilot.press("pageup")
        await pilot.pause()
        assert groups.highlighted is not None and shown(line_of[groups.highlighted])
        # the rows focused again from the body: their highlighted row comes into view
        await pilot.press("end")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.press("1")
        await wait_for(pilot, lambda: app.focused is body, what="the pane's body focused")
        await pilot.press("home")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.focused is groups, what="the rows focused again")
        # (the scroll comes on a later refresh: under a loaded parallel run two pauses were not enough)
        await wait_for(pilot, lambda: groups.highlighted is not None and shown(line_of[groups.highlighted]),
                       what=f"the highlighted row in view ({groups.highlighted}, {body.scroll_y})")


@sizes
async def test_extension_row_opens_its_urls(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        await select(app, pilot, node_by_name(app, "sitemap_index.xml"))
        await pilot.press("2")
        await settle(app, pilot)
        rows_list = app.query_one(ExtensionsPane).rows
        await press_until(pilot, "tab", lambda: app.focused is rows_list, "focus on the extension rows", most=6)
        await press_until(pilot, "down", lambda: rows_list.highlighted_row.filter_text == "has:video", "the video row")
        count = int(rows_list.highlighted_row.label.plain.split()[1].replace(",", ""))
        await pilot.press("enter")
        await landed(app, pilot, "has:video")
        rows = listed(app)
        assert app.url_table.grid.total == len(rows) == count > 0
        assert all(r.n_videos > 0 for r in rows)
        # Esc in the tree stays there; back in the table, Esc still returns to the drill's origin
        await pilot.press("0", "escape")
        await pilot.pause()
        assert app.focused is app.tree and active_tab(app) == "urls"
        await pilot.press("5")
        await pilot.pause()
        assert app.focused is app.url_table.grid
        await pilot.press("escape")
        await wait_for(pilot, lambda: active_tab(app) == "extensions", what="the extensions again")
        await pilot.pause()
        assert app.focused is rows_list
        # the arrows go on into the hreflang languages, and Enter on one lists the URLs with an
        # alternate in it (found from outside: the languages were a picture, Down stopped above)
        await press_until(pilot, "down", lambda: rows_list.highlighted_row.filter_text == "lang:de", "the de row")
        links = int(rows_list.highlighted_row.label.plain.split()[1].replace(",", ""))
        await pilot.press("enter")
        await landed(app, pilot, "lang:de")
        rows = listed(app)
        store = Store(app.db_path, readonly=True)
        try:
            with_de = {eid for (eid,) in store.conn.execute(
                "SELECT DISTINCT entry_id FROM alternates WHERE lower(hreflang) = 'de'")}
        finally:
            store.conn.close()
        # (each of these URLs links de once: the pane counts links, the table URLs)
        assert app.url_table.grid.total == len(rows) == links == len(with_de) > 0
        assert {r.id for r in rows} == with_de


@sizes
async def test_escape_with_nothing_open_focuses_the_tree(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        # the URL table reached by its key, not a drill: Esc closes the detail, then the tree
        await pilot.press("5")
        await settle(app, pilot)
        grid = app.url_table.grid
        assert app.focused is grid
        await pilot.press("enter")
        await pilot.pause()
        assert app.url_table.detail_open
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is grid and not app.url_table.detail_open
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is app.tree
        # the filter input: Esc leaves it for the grid first
        await pilot.press("5", "slash")
        await pilot.pause()
        assert app.focused is filter_input(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is grid
        # a pane's body, and a drill left by another key (no way back then)
        for key in ("1", "2", "3", "4"):
            await pilot.press(key)
            await settle(app, pilot)
            assert app.focused is not app.tree
            await pilot.press("escape")
            await pilot.pause()
            assert app.focused is app.tree, key


async def test_escape_does_not_cancel_expand_all(make_app, monkeypatch):
    """Esc went to cancel before issue 18; now only x cancels, and Esc only moves the focus."""
    with gated_demo_server(monkeypatch) as (srv, gate):
        app = make_app(srv.base_url + "/")
        async with app.run_test(size=(80, 24)) as pilot:
            gate.open()
            await wait_started(app, pilot)
            gate.close()
            await pilot.press("e")
            model = app.tree.model
            await wait_for(pilot, lambda: any(n.state in ACTIVE for n in model.nodes.values()), what="a fetch to start")
            await pilot.press("escape")
            await pilot.pause()
            assert app.jobs.expand_all_node is not None
            assert app.focused is app.tree
            await pilot.press("x")
            await wait_for(pilot, lambda: app.jobs.expand_all_node is None, what="expand all to stop")
            gate.open()


@sizes
async def test_show_urls_of_a_rule_from_the_issues_pane(demo_server, make_app, size):
    """The message the issues pane posts for a rule group (ShowUrls("rule:ID")) lands on that
    rule's URLs; Esc returns to the issue list."""
    from test_app_focus import issue_list

    from sitemap_tui.tui.messages import ShowUrls

    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        await pilot.press("4")
        await settle(app, pilot)
        issues = issue_list(app)
        assert app.focused is issues
        issues.post_message(ShowUrls("rule:loc-session-id", origin=issues, title="loc-session-id"))
        await landed(app, pilot, "rule:loc-session-id")
        rows = listed(app)
        assert len(rows) == app.url_table.grid.total >= 1
        assert all(r.n_issues for r in rows)
        await pilot.press("escape")
        await wait_for(pilot, lambda: active_tab(app) == "issues", what="the issues again")
        await pilot.pause()
        assert app.focused is issues


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_drilled_filter_can_be_read_whole_in_the_bar(demo_server, make_app, size):
    """At 80x24 the bar's unset toggles fold away, so the drilled filter reads whole (it had 16
    columns: "rule:lastmod-inv"); a toggle that is set stays shown."""
    from sitemap_tui.tui.messages import ShowUrls

    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        text = "rule:lastmod-invalid-format"
        app.tree.post_message(ShowUrls(text, origin=app.tree, title=text))
        await landed(app, pilot, text)
        await pilot.pause()
        assert text in screen_text(app)
        table = app.url_table
        table.query_one("#url-issues").value = True
        await pilot.pause()
        assert table.query_one("#url-issues").display and "issues" in screen_text(app)

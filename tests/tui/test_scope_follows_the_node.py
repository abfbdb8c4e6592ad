"""What the URL table and the Issues pane hold for one node does not follow the user to another
(an outside review in tmux, 80x24): the export offered the previous node's filtered rows and
marks as this node's, a drill's rule filter stayed on the next node (0 rows), Esc from an
issue's entry went to the tree, not back to the issue. Real key presses on the demo site."""

from __future__ import annotations

from typing import Any

import pytest
from app_helpers import capture_notes, node_by_name, select, settle, wait_for
from test_app_export import explored, export_into, export_now, open_export, table_rows
from test_issues_drill import RULE, to_rule

from sitemap_tui.engine.store import EntryFilter, Store

SIZES = [(200, 50), (80, 24)]
sizes = pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")


def locs_of(app: Any, node_id: int) -> list[str]:
    store = Store(app.db_path, readonly=True)
    try:
        return [e.loc for e in store.iter_entries(EntryFilter(node_ids=[node_id]))]
    finally:
        store.conn.close()


def filter_text(app: Any) -> str:
    return app.url_table.query_one("#url-filter").value


@sizes
async def test_marks_and_filtered_rows_stay_with_their_node(demo_server, make_app, tmp_path, size):
    export_into(tmp_path)
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        products, blog = node_by_name(app, "sitemap-products.xml.gz"), node_by_name(app, "sitemap-blog.xml")
        await select(app, pilot, products)
        await pilot.press("5")
        await settle(app, pilot)
        await pilot.press("slash", *"kitchen", "enter")
        await settle(app, pilot)
        assert await table_rows(app, pilot)
        app.url_table.grid.focus()
        await pilot.press("home", "space", "down", "space", "enter")  # two marks, a row's detail
        await wait_for(pilot, lambda: app.url_table.detail_open, what="the row's detail")
        screen = await open_export(app, pilot)  # here: the marks, then the filter
        assert {"marked rows", "filtered rows"} <= set(screen.scopes)
        await pilot.press("escape")
        await pilot.pause()
        notes = capture_notes(app)
        await pilot.press("1")  # the Overview, then another node: the table is not shown, not synced
        await settle(app, pilot)
        await select(app, pilot, blog)
        await settle(app, pilot)
        screen = await open_export(app, pilot)
        assert not {"marked rows", "filtered rows"} & set(screen.scopes), screen.scopes
        assert screen.scope == "this node"
        path = await export_now(app, pilot, screen)
        assert path.read_text().splitlines() == locs_of(app, blog)
        await pilot.press("5")  # the table on the blog: no marks, no detail of a product
        await settle(app, pilot)
        assert app.url_table.grid.marks.empty and not app.url_table.detail_open
        assert "marks cleared: they were of the rows of the node left" in notes
        app.url_table.grid.focus()
        await pilot.press("ctrl+z")  # they belonged to the rows left: not brought back here
        await pilot.pause()
        assert app.url_table.grid.marks.empty and "no cleared marks to bring back" in notes, notes
        assert filter_text(app) == "kitchen"  # a filter the user typed stays, as typed
        # nor marks cleared (A) before the move (found by a review: w then exported the blog's
        # rows as the products' "marked rows")
        app.url_table.set_filter_text("")  # (no blog post is a kitchen's)
        await settle(app, pilot)
        app.url_table.grid.focus()
        await pilot.press("home", "space", "A")
        await pilot.pause()
        assert app.url_table.grid.cleared is not None
        await select(app, pilot, products)
        await pilot.press("5")
        await settle(app, pilot)
        app.url_table.grid.focus()
        notes.clear()
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert app.url_table.grid.marks.empty and "no cleared marks to bring back" in notes, notes


@sizes
async def test_a_drill_ends_with_esc_or_on_another_node_and_an_issue_returns_to_its_pane(
        demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        blog = node_by_name(app, "sitemap-blog.xml")
        await pilot.press("4")  # the site's issues (the rule's URL is a product's)
        await settle(app, pilot)
        pane = app.issues_pane
        issues = pane.issue_list
        await to_rule(app, pilot, issues, RULE)
        await pilot.press("enter")
        await wait_for(pilot, lambda: filter_text(app) == f"rule:{RULE}", what="the drill")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.focused is issues, what="back in the issues")
        assert filter_text(app) == ""  # the drill's filter went with it
        # an issue's entry, and back to that issue
        await pilot.press("right")
        await wait_for(pilot, lambda: bool(issues.cursor_node.children), what="the rule's issues")
        await pilot.press("right")
        await pilot.pause()
        issue = pane.selected_issue
        assert issue is not None and issue.entry_id is not None
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.focused is app.url_table.grid, what="the issue's entry")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.focused is issues, what="back at the issue")
        assert pane.selected_issue == issue
        # a drill left without Esc: the next node's table has no rule filter of this one
        await pilot.press("up")  # from the rule's first issue to the rule
        await to_rule(app, pilot, issues, RULE)
        await pilot.press("enter")
        await wait_for(pilot, lambda: filter_text(app) == f"rule:{RULE}", what="the drill")
        await select(app, pilot, blog)
        await pilot.press("5")
        await settle(app, pilot)
        assert filter_text(app) == ""
        assert await table_rows(app, pilot) == locs_of(app, blog)


async def test_marks_stay_while_the_selected_subtree_grows(tmp_path):
    """The table's contract the app keeps: a subtree that grows while an index streams in is the
    same node (its marks, detail and drill stay); another node ends them."""
    from test_export_screen import Host, ready, store_of

    from sitemap_tui.tui.widgets.url_table import UrlTable

    store_of(tmp_path)
    app = Host(tmp_path / "x.db")
    async with app.run_test(size=(120, 40)) as pilot:
        table = app.query_one(UrlTable)
        table.show(EntryFilter(node_ids=[1]))
        await ready(pilot, table)
        table.drill("re:p/1")
        await ready(pilot, table)
        table.grid.focus()
        await pilot.press("home", "space")
        await pilot.pause()
        assert not table.grid.marks.empty
        table.show(EntryFilter(node_ids=[1, 2]), new_node=False)  # the same node's subtree, grown
        await ready(pilot, table)
        assert not table.grid.marks.empty and table.query_one("#url-filter").value == "re:p/1"
        table.show(EntryFilter(node_ids=[2]))  # another node
        await ready(pilot, table)
        assert table.grid.marks.empty and table.query_one("#url-filter").value == ""

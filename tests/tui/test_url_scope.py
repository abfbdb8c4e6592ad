"""The URL table on the exploration's root lists every entry without naming the nodes (issue 19).

With the root's node list in its WHERE clause SQLite read the rows through the node index and
sorted all of them for each page, count and anchor (~200 ms of CPU per page of 1 M URLs, in
threads of the UI's process, several times a second while an index streamed in). A sitemap below
the root still lists its own rows only.
"""

from __future__ import annotations

from typing import Any

import pytest
from app_helpers import node_by_name, select, settle, static_text, wait_for, wait_started

SIZES = [(200, 50), (80, 24)]


def status(app: Any) -> str:
    """The URL pane's status line (cut on a narrow screen: its text whole)."""
    return static_text(app.query_one("#url-status"))


def entries(app: Any, node_id: int | None = None) -> int:
    conn = app.url_table.grid.store.conn
    if node_id is None:
        return int(conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0])
    return int(conn.execute("SELECT COUNT(*) FROM entries WHERE node_id = ?", (node_id,)).fetchone()[0])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_root_lists_every_url_without_a_node_list(demo_server: Any, make_app: Any, size: tuple[int, int]) -> None:
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        await pilot.press("e")  # expand all, on the root, as a user starts
        await settle(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        table, grid = app.url_table, app.url_table.grid
        assert app.selected_id == app.tree.model.roots()[0]
        # every entry, read in the store's order: no node filter for SQLite to sort by
        assert table.scope.node_ids is None
        assert grid.listing is not None and not grid.listing.filtered
        total = entries(app)
        assert total > 1
        await wait_for(pilot, lambda: grid.total == total, what="the root's count")
        assert status(app).startswith(f"{total:,} rows")

        # one sitemap below the root: its own rows
        child = node_by_name(app, "sitemap-blog.xml")
        await select(app, pilot, child)
        await pilot.press("5")
        await settle(app, pilot)
        assert list(table.scope.node_ids or []) == [child]
        own = entries(app, child)
        assert 0 < own < total
        await wait_for(pilot, lambda: grid.total == own, what="the sitemap's count")
        assert status(app).startswith(f"{own:,} rows")

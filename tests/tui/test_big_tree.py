"""The explorer under a hostile fan-out (found by a review: robots.txt listing 6 indexes of 50,000
children each; `E` grew the interface's process to 4 GB in 5 minutes and `x`/`q` took 30-60 s).

What made it so, each pinned here: an index whose children streamed in was opened by the
expand-all on its first batch, so every one of its 50,000 children became a tree node; each
rebuild of such a tree was a reference cycle holding all its lines, which the collector tuning
kept for good, and worked out each label's room from the widget's region (0.4 s a rebuild); the
header recounted every node once per engine batch; a pane's worker was named by the repr of a
200,000-node selection, and kept it (a cycle) after it finished."""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Iterator

import pytest
from app_helpers import (
    FIXED_NOW,
    capture_notes,
    node_by_name,
    select,
    settle,
    wait_for,
    wait_started,
)
from pytest_httpserver import HTTPServer
from textual.widgets import Tree
from werkzeug import Response

from sitemap_tui.engine.explorer import ExploreOptions
from sitemap_tui.tui.widgets.tree_nav import OPEN_MAX_CHILDREN

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
CHILDREN = OPEN_MAX_CHILDREN + 500


def slow_index(base: str) -> Response:
    """An index sent in pieces, so that its children reach the interface over several batches."""
    items = [f"<sitemap><loc>{base}/c{i}.xml</loc></sitemap>" for i in range(CHILDREN)]

    def body() -> Iterator[bytes]:
        yield f"<sitemapindex {NS}>".encode()
        for start in range(0, CHILDREN, 500):
            yield "".join(items[start:start + 500]).encode()
            time.sleep(0.3)
        yield b"</sitemapindex>"

    return Response(body(), content_type="application/xml")


@pytest.fixture()
def fan_site(httpserver: HTTPServer) -> str:
    base = httpserver.url_for("").rstrip("/")
    httpserver.expect_request("/robots.txt").respond_with_data(f"Sitemap: {base}/index.xml\n")
    httpserver.expect_request("/index.xml").respond_with_handler(lambda request: slow_index(base))
    httpserver.expect_request("/c0.xml").respond_with_data(
        f"<urlset {NS}><url><loc>{base}/p</loc></url></urlset>", content_type="application/xml")
    return base + "/"


@pytest.mark.parametrize("size", [(200, 50), (80, 24)], ids=["200x50", "80x24"])
async def test_expand_all_leaves_a_streamed_big_index_closed(fan_site, make_app, size) -> None:
    app = make_app(fan_site, options=ExploreOptions(now=FIXED_NOW, max_files=5, batch_size=100))
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        notes = capture_notes(app)
        await pilot.press("E")
        model = app.tree.model
        await wait_for(pilot, lambda: app.jobs.expand_all_node is None and len(model.nodes) > CHILDREN,
                       timeout=60, what="expand all to end")
        await settle(app, pilot)
        index = node_by_name(app, "index.xml")
        assert not app.tree.tree_node(index).is_expanded
        assert len(app.tree.tree_node(index).children) < OPEN_MAX_CHILDREN
        assert any(f"lists {CHILDREN:,} files: not opened by expand all" in n for n in notes), notes
        # the header's totals, kept by the nodes that changed, are those counted over all of them
        assert model.totals() == model.recount()
        # → still opens it, by hand
        await select(app, pilot, index)
        await pilot.press("right")
        await wait_for(pilot, lambda: len(app.tree.tree_node(index).children) == CHILDREN, timeout=30,
                       what="the index's children in the tree")
        assert model.totals() == model.recount()


async def test_a_big_tree_rebuilds_as_textual_would_and_leaves_no_cycles(fan_site, make_app) -> None:
    app = make_app(fan_site, options=ExploreOptions(now=FIXED_NOW, max_files=5, batch_size=100))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_started(app, pilot)
        tree = app.tree
        await select(app, pilot, node_by_name(app, "index.xml"))
        await pilot.press("right")  # fetched, and opened: the user asked for it
        await wait_for(pilot, lambda: len(tree.tree_node(node_by_name(app, "index.xml")).children) == CHILDREN,
                       timeout=30, what="the children in the tree")
        await settle(app, pilot)

        def lines() -> tuple[list[tuple[tuple[int | None, ...], bool, int]], object]:
            return ([(tuple(n.data for n in line.path), line.last, line.node._line) for line in tree._tree_lines],
                    tree.virtual_size)

        Tree._build(tree)  # Textual's own
        expected = lines()
        tree._build()
        assert lines() == expected and len(expected[0]) > CHILDREN
        gc.collect()
        gc.disable()
        try:
            for _ in range(3):
                tree._build()
            assert gc.collect() == 0  # each rebuild is freed by reference counting alone
        finally:
            gc.enable()


async def test_a_pane_keeps_no_selection_it_is_done_with(demo_server, make_app) -> None:
    """A finished worker is a cycle: what it was given must not be in it (the collector tuning
    keeps such cycles for good, and a big subtree's selection is megabytes)."""
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_started(app, pilot)
        await settle(app, pilot)
        pane = app.query_one("#overview-pane")
        gone = weakref.ref(pane.selection)
        gc.collect()
        gc.disable()
        try:
            await select(app, pilot, node_by_name(app, "robots.txt"))
            await settle(app, pilot)
            assert gone() is None
        finally:
            gc.enable()

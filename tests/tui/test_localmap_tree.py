"""The explorer on a --map'ped build directory (issue 21): the tree expands the mapped children."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import node_by_name, screen_text, select, settle, static_text, wait_for

from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.localmap import parse_maps
from sitemap_tui.engine.model import NodeState
from sitemap_tui.tui.widgets.overview import OverviewPane

BUILD = Path(__file__).parent.parent / "fixtures" / "localbuild"


@pytest.mark.parametrize("size", [(200, 50), (80, 24)])
async def test_tree_expands_mapped_children(make_app, size):
    target = "https://example.com/sitemap.xml"
    config = FetchConfig(target=target, maps=parse_maps([f"https://example.com/={BUILD}"]))
    app = make_app(target, fetch_config=config)
    async with app.run_test(size=size) as pilot:
        model = app.tree.model
        await wait_for(pilot, lambda: bool(model.roots()), what="the root")
        root = model.roots()[0]
        await wait_for(pilot, lambda: len(model.children.get(root, [])) == 2, what="the two children")
        await wait_for(pilot, lambda: app.selected_id is not None, what="the first selection")
        await pilot.press("e")  # expand the subtree: both children are read from the directory
        posts = node_by_name(app, "sitemap-posts.xml")
        pages = node_by_name(app, "sitemap-pages.xml")
        await wait_for(pilot, lambda: model.nodes[posts].state == NodeState.DONE
                       and model.nodes[pages].state == NodeState.DONE, what="the children read")
        await settle(app, pilot)
        # the nodes keep the deployed URLs, and nothing was refused as another host
        assert model.nodes[posts].url == "https://example.com/sitemap-posts.xml"
        assert model.nodes[posts].error is None and model.nodes[pages].error is None
        assert "sitemap-posts" in screen_text(app)  # (a narrow tree drops the ".xml")
        # the Overview says where the selected file's bytes came from
        await select(app, pilot, posts)
        overview = static_text(app.query_one(OverviewPane).query_one("#ov-summary"), 200)
        assert "Read from" in overview and "sitemap-posts.xml" in overview.split("Read from")[1]


@pytest.mark.parametrize("size", [(200, 50), (80, 24)])
async def test_insecure_is_a_lasting_notice(make_app, size):
    target = "https://example.com/sitemap.xml"
    config = FetchConfig(target=target, insecure=True, maps=parse_maps([f"https://example.com/={BUILD}"]))
    app = make_app(target, fetch_config=config)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: bool(app.tree.model.roots()), what="the root")
        await pilot.pause()
        notes = [str(n.message) for n in app._notifications]
        assert any("--insecure: TLS certificates are not checked" in n for n in notes), notes

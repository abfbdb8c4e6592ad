"""The tree's arrows, expand all (e: the subtree, E: the whole exploration, the tree opening as
the files arrive), cancel (x, ctrl+c) and quitting during an expand-all (issue 18), at 200×50 and
80×24."""

from __future__ import annotations

import os
import signal

import pytest
from app_helpers import (
    ACTIVE,
    capture_notes,
    gated_demo_server,
    node_by_name,
    settle,
    wait_for,
    wait_started,
)

from sitemap_tui.engine.model import NodeState
from sitemap_tui.tui.app import prestart_multiprocessing

SIZES = [(200, 50), (80, 24)]


@pytest.fixture(autouse=True, scope="module")
def _tracker() -> None:
    prestart_multiprocessing()  # (the quit tests run the engine in a process, as sitemap-tui does)

FINISHED = (NodeState.DONE, NodeState.FAILED, NodeState.SKIPPED)


def _cursor(app) -> int | None:
    return app.tree.cursor_id


@pytest.mark.parametrize("size", SIZES)
async def test_right_opens_and_enters_left_closes_and_leaves(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        tree = app.tree
        robots = node_by_name(app, "robots.txt")
        index = node_by_name(app, "sitemap_index.xml")
        tree.move_cursor_to(tree.tree_node(index))
        await pilot.pause()
        assert app.focused is tree
        itnode = tree.tree_node(index)
        assert not itnode.is_expanded
        await pilot.press("right")  # a closed node opens (and its file is fetched)
        await wait_for(pilot, lambda: len([c for c in itnode.children if c.data is not None]) == 7, what="the index's children")
        assert itnode.is_expanded and _cursor(app) == index
        await pilot.press("right")  # an open node: to its first child
        assert _cursor(app) == node_by_name(app, "sitemap-products.xml.gz")
        await pilot.press("left")  # a closed leaf: to its parent
        assert _cursor(app) == index
        await pilot.press("left")  # an open node closes, the cursor stays
        assert not itnode.is_expanded and _cursor(app) == index
        await pilot.press("left")  # a closed node: to its parent
        assert _cursor(app) == robots
        assert tree.scroll_x == 0  # the arrows never scrolled sideways
        await settle(app, pilot)


@pytest.mark.parametrize("size", SIZES)
async def test_e_fetches_the_subtree_E_the_whole_exploration(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        model = app.tree.model
        index = node_by_name(app, "sitemap_index.xml")
        feed, pages = node_by_name(app, "feed.rss"), node_by_name(app, "sitemap-pages.txt")
        app.tree.move_cursor_to(app.tree.tree_node(index))
        await pilot.pause()
        await pilot.press("e")
        await settle(app, pilot, timeout=30)
        under = [n for n in app.tree.model.subtree_ids(index) if n != index]
        assert len(under) == 8 and all(model.nodes[n].state in FINISHED for n in under)
        # e stayed in the index's subtree: robots.txt's other files were not fetched
        assert model.nodes[feed].state == NodeState.PENDING and model.nodes[pages].state == NodeState.PENDING
        await pilot.press("E")  # the cursor is still on the index: E covers everything anyway
        await settle(app, pilot, timeout=30)
        assert model.nodes[feed].state == NodeState.DONE and model.nodes[pages].state == NodeState.DONE
        assert all(n.state in FINISHED for n in model.nodes.values())
        # the keys say which is which (help, palette)
        help_lines = {e.description: e.keys for e in app.help_entries()}
        assert help_lines.get("Expand subtree") == "e" and help_lines.get("Expand everything") == "E"
        titles = [c.name for c in app.palette_commands()]
        assert "Expand subtree (e)" in titles and "Expand everything (E)" in titles


@pytest.mark.parametrize("size", SIZES)
async def test_the_tree_opens_as_expand_all_runs(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        tree = app.tree
        await pilot.press("e")  # on the root (where the cursor starts): everything
        await settle(app, pilot, timeout=30)
        index = node_by_name(app, "sitemap_index.xml")
        archive = node_by_name(app, "sitemap-archive-index.xml")
        old = node_by_name(app, "sitemap-archive-2019.xml")
        # every node with children opened, down to the nested index's own sitemap
        for nid in (index, archive):
            assert tree.tree_node(nid) is not None and tree.tree_node(nid).is_expanded, tree.model.nodes[nid].url
        assert tree.tree_node(old) is not None
        shown = {c.data for c in tree.tree_node(index).children}
        assert shown == set(tree.model.children[index])
        # a node the user closes stays closed when the next expand-all is over
        tree.tree_node(archive).collapse()
        await pilot.pause()
        assert not tree.tree_node(archive).is_expanded


@pytest.mark.parametrize("size", SIZES)
async def test_x_cancels_escape_does_not(make_app, monkeypatch, size):
    with gated_demo_server(monkeypatch) as (srv, gate):
        app = make_app(srv.base_url + "/")
        async with app.run_test(size=size) as pilot:
            gate.open()
            await wait_started(app, pilot)
            gate.close()
            await pilot.press("e")  # on the root (where the cursor starts): everything
            model = app.tree.model
            await wait_for(pilot, lambda: any(n.state in ACTIVE for n in model.nodes.values()), what="a fetch to start")
            await pilot.press("escape")
            await pilot.pause(0.2)
            assert app.jobs.expand_all_node is not None, "Escape no longer cancels (it closes and goes back)"
            await pilot.press("x")
            await wait_for(pilot, lambda: app.jobs.expand_all_node is None, what="expand all to stop")
            gate.open()
            await settle(app, pilot)
            assert not any(n.state in ACTIVE for n in model.nodes.values())


@pytest.mark.parametrize("size", SIZES)
async def test_ctrl_c_cancels_running_work_and_says_so(make_app, monkeypatch, size):
    with gated_demo_server(monkeypatch) as (srv, gate):
        app = make_app(srv.base_url + "/")
        async with app.run_test(size=size) as pilot:
            gate.open()
            await wait_started(app, pilot)
            notes = capture_notes(app)
            await pilot.press("ctrl+c")  # nothing runs: Textual's hint
            await pilot.pause()
            assert any("to quit" in n for n in notes), notes
            assert app.is_running
            gate.close()
            await pilot.press("e")  # on the root (where the cursor starts): everything
            model = app.tree.model
            await wait_for(pilot, lambda: any(n.state in ACTIVE for n in model.nodes.values()), what="a fetch to start")
            notes.clear()
            await pilot.press("ctrl+c")
            await wait_for(pilot, lambda: app.jobs.expand_all_node is None, what="expand all to stop")
            gate.open()
            await settle(app, pilot)
            assert any("ctrl+c cancelled" in n for n in notes), notes
            assert not any("to quit" in n for n in notes)
            cancelled = [n for n in model.nodes.values() if n.state == NodeState.PENDING and n.error == "cancelled"]
            assert cancelled and app.is_running


@pytest.mark.parametrize("key", ["q", "ctrl+q"])
async def test_quit_during_expand_all_cancels_and_exits(make_app, monkeypatch, key):
    with gated_demo_server(monkeypatch) as (srv, gate):
        app = make_app(srv.base_url + "/", engine_process=True)
        async with app.run_test(size=(80, 24)) as pilot:
            gate.open()
            await wait_started(app, pilot)
            gate.close()  # the files expand all asks for stay in flight
            await pilot.press("e")  # on the root (where the cursor starts): everything
            await wait_for(pilot, lambda: any(n.state in ACTIVE for n in app.tree.model.nodes.values()), what="a fetch")
            bridge = app.bridge
            await pilot.press(key)
            await wait_for(pilot, lambda: not app.is_running, what="the app to exit")
        assert app.return_code == 0
        assert not bridge.alive and bridge.exitcode == 0  # it stopped on its own: cancelled, store closed


async def test_quit_ends_an_engine_that_does_not_stop(make_app, demo_server):
    """An engine that cannot answer (here: stopped with SIGSTOP, as a starved low-priority
    process nearly is) is ended after a grace time: the app still exits."""
    app = make_app(demo_server.base_url + "/", engine_process=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_started(app, pilot)
        bridge = app.bridge
        os.kill(bridge.pid, signal.SIGSTOP)
        try:
            await pilot.press("q")
            await wait_for(pilot, lambda: not app.is_running, timeout=30, what="the app to exit")
        finally:
            if bridge.alive:
                os.kill(bridge.pid, signal.SIGCONT)
    assert not bridge.alive and bridge.exitcode == -signal.SIGKILL

"""Expand all (e) with live progress in the header, and cancelling it (x; Escape no longer cancels,
issue 18: it closes and goes back, tests/tui/test_tree_keys.py)."""

from __future__ import annotations

from app_helpers import (
    ACTIVE,
    capture_notes,
    gated_demo_server,
    node_by_name,
    screen_text,
    select,
    settle,
    wait_for,
    wait_started,
)

from sitemap_tui.engine.model import NodeState


async def test_expand_all_can_be_cancelled(make_app, monkeypatch):
    with gated_demo_server(monkeypatch) as (srv, gate):
        app = make_app(srv.base_url + "/")
        async with app.run_test(size=(120, 36)) as pilot:
            gate.open()
            await wait_started(app, pilot)
            notes = capture_notes(app)
            gate.close()  # the files expand all asks for stay in flight until the cancel
            await pilot.press("e")
            model = app.tree.model
            await wait_for(pilot, lambda: any(n.state in ACTIVE for n in model.nodes.values()), what="a fetch to start")
            await wait_for(pilot, lambda: "expanding" in screen_text(app), what="progress in the header")
            await pilot.press("x")
            await wait_for(pilot, lambda: app.jobs.expand_all_node is None, what="expand all to stop")
            await settle(app, pilot)
            assert any("cancelled" in n.lower() for n in notes)
            assert not any(n.state in ACTIVE for n in model.nodes.values())
            # the exploration stopped early: the index's seven sitemaps were never fetched
            assert sum(n.state == NodeState.DONE for n in model.nodes.values()) < 8
            cancelled = [n for n in model.nodes.values() if n.state == NodeState.PENDING and n.error == "cancelled"]
            assert cancelled, "the files in flight go back to pending"
            assert "cancelled" in app.tree.tree_node(cancelled[0].id).label.plain
            assert app.is_running
            # and it can be started again and run to the end
            gate.open()
            await pilot.press("e")
            await wait_for(pilot, lambda: app.jobs.expand_all_node is None and all(
                n.state in (NodeState.DONE, NodeState.FAILED, NodeState.SKIPPED) for n in model.nodes.values()
            ) and len(model.nodes) == 13, timeout=30, what="expand all to finish")
            await settle(app, pilot)
            assert "files 12/12 · 436 URLs" in screen_text(app)
            # x with nothing left to stop says so (found from outside: it did nothing, unsaid)
            await pilot.press("x")
            await wait_for(pilot, lambda: any(n.startswith("Nothing is running") for n in notes), what="the note")


async def test_expand_all_streams_into_the_selected_pane(demo_server, make_app):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_started(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        assert "436" in screen_text(app)
        model = app.tree.model
        assert len(model.nodes) == 13
        # a tree node was created for each child of an expanded node only
        index = next(n.id for n in model.nodes.values() if n.url.endswith("/sitemap_index.xml"))
        assert app.tree.tree_node(index) is not None


async def test_overview_children_table_follows_the_stream(demo_server, make_app):
    """The index's children table is updated in place while its sitemaps stream in."""
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_started(app, pilot)
        await pilot.press("e")
        await wait_for(pilot, lambda: any(n.url.endswith("/sitemap_index.xml") for n in app.tree.model.nodes.values()),
                       what="the index")
        index = node_by_name(app, "sitemap_index.xml")
        await select(app, pilot, index)
        await pilot.press("1")
        table = app.query_one("#ov-children")
        await wait_for(pilot, lambda: table.row_count == 7, what="the children rows")
        await settle(app, pilot)
        counts = [table.get_cell_at((i, 1)).plain for i in range(table.row_count)]  # (the URLs column)
        failed = sum(app.tree.model.nodes[c].state == NodeState.FAILED for c in app.tree.model.children[index])
        assert counts.count("—") == failed == 1  # every other child's row was updated with its count
        assert sum(int(c.replace(",", "")) for c in counts if c[0].isdigit() and not c.endswith(("file", "files"))) == 376  # + 25 under the nested index = 401
        assert all(table.get_cell_at((i, 3)).plain for i in range(table.row_count))  # (the state column)


async def test_at_80_columns_the_header_keeps_x_cancels(make_app, monkeypatch):
    """Found from outside: at 80x24 the expand-all's name pushed "(… fetching; x cancels)" off the
    header, and the footer had no room for x: no visible way to stop."""
    with gated_demo_server(monkeypatch) as (srv, gate):
        app = make_app(srv.base_url + "/")
        async with app.run_test(size=(80, 24)) as pilot:
            gate.open()
            await wait_started(app, pilot)
            gate.close()
            await pilot.press("E")
            await wait_for(pilot, lambda: app.jobs.expand_all_node is not None, what="expand all running")
            await wait_for(pilot, lambda: "expanding" in screen_text(app).splitlines()[0], what="the header")
            header = screen_text(app).splitlines()[0].rstrip()
            assert header.endswith("x cancels)"), header
            await pilot.press("x")
            gate.open()
            await wait_for(pilot, lambda: app.jobs.expand_all_node is None, what="expand all to stop")


async def test_a_sort_just_before_expand_all_does_not_lock_the_engine_out(demo_server, make_app):
    """Found from outside (a first-time user in tmux, 4 times of 4): sorting the URL table built
    its index with a writer connection of the interface's; its commit fell between the engine's
    reads and its next write, which failed ("database is locked"): the expand-all stopped, and
    no file could be fetched after it. The engine builds the index now."""
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_started(app, pilot)
        notes = capture_notes(app)
        index = node_by_name(app, "sitemap_index.xml")
        await select(app, pilot, index)
        await pilot.press("e")
        await settle(app, pilot)
        await pilot.press("5", "s", "E")  # sort (a new index), then expand everything at once
        await settle(app, pilot)
        assert not [n for n in notes if "locked" in n or "engine:" in n], notes
        states = {n.url.rsplit("/", 1)[-1]: n.state for n in app.tree.model.nodes.values()}
        assert states["feed.rss"] == NodeState.DONE and states["sitemap-pages.txt"] == NodeState.DONE, states
        assert app.url_table.grid.sort == "loc"

"""Pilot tests of the explorer on the demo site: lazy tree, panes, failed node, reload."""

from __future__ import annotations

import re
from typing import Any

from app_helpers import (
    FIXED_NOW,
    gated_demo_server,
    node_by_name,
    screen_text,
    select,
    settle,
    static_text,
    wait_for,
    wait_started,
)

from sitemap_tui.engine.model import NodeKind, NodeState
from sitemap_tui.tui.widgets.extensions import ExtensionsPane
from sitemap_tui.tui.widgets.lastmod_chart import LastmodPane
from sitemap_tui.tui.widgets.overview import OverviewPane


async def test_start_shows_site_robots_and_sitemaps_without_fetching_them(demo_server, make_app):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_started(app, pilot)
        model = app.tree.model
        root = model.nodes[model.roots()[0]]
        assert root.kind == NodeKind.SITE
        robots = node_by_name(app, "robots.txt")
        assert model.nodes[robots].state == NodeState.DONE
        index = node_by_name(app, "sitemap_index.xml")
        # lazy: listed by robots.txt but not fetched until asked for
        assert model.nodes[index].state == NodeState.PENDING
        labels = [app.tree.tree_node(c).label.plain for c in model.children[robots]]
        assert any("sitemap_index.xml" in label for label in labels)
        assert any("feed.rss" in label for label in labels)
        text = screen_text(app)
        assert "sitemap-pages.txt" in text
        assert "files 1/4" in text  # robots.txt done; index, feed and text file pending


async def test_expanding_an_index_fetches_it_lazily(make_app, monkeypatch):
    # the server holds its answers until the test has seen the "loading…" placeholders
    with gated_demo_server(monkeypatch) as (srv, gate):
        app = make_app(srv.base_url + "/sitemap_index.xml")
        async with app.run_test(size=(120, 36)) as pilot:
            tree = app.tree
            await wait_for(pilot, lambda: bool(tree.model.roots()), what="the root")
            root = tree.model.roots()[0]
            tnode = tree.tree_node(root)
            # the target itself is fetched at once; a placeholder shows meanwhile
            await wait_for(pilot, lambda: [c.label.plain for c in tnode.children] == ["loading…"], what="placeholder")
            gate.open()
            await wait_for(pilot, lambda: len(tnode.children) == 7, what="the 7 children")
            await settle(app, pilot)
            names = [c.label.plain.split("  ")[0][2:] for c in tnode.children]
            assert names == [
                "sitemap-products.xml.gz", "sitemap-blog.xml", "sitemap-images.xml", "sitemap-video.xml",
                "sitemap-news.xml", "sitemap-archive-index.xml", "sitemap-missing.xml",
            ]
            # the children are known but not fetched (lazy)
            assert all(tree.model.nodes[c].state == NodeState.PENDING for c in tree.model.children[root])
            # expanding a child index fetches it, with a placeholder until its children arrive
            archive = node_by_name(app, "sitemap-archive-index.xml")
            atnode = tree.tree_node(archive)
            tree.move_cursor_to(atnode)  # (Tree.move_cursor trusts line numbers a batch of new nodes may not have yet)
            gate.close()
            await pilot.press("space")
            await wait_for(pilot, lambda: [c.label.plain for c in atnode.children] == ["loading…"], what="placeholder")
            gate.open()
            await wait_for(pilot, lambda: len(atnode.children) == 1 and "archive-2019" in atnode.children[0].label.plain,
                           what="the archive's child")
            # selecting a pending sitemap fetches it
            products = node_by_name(app, "sitemap-products.xml.gz")
            tree.move_cursor_to(tree.tree_node(products))
            await pilot.press("enter")
            await wait_for(pilot, lambda: tree.model.nodes[products].state == NodeState.DONE, what="products fetched")
            await settle(app, pilot)
            assert "300 URLs" in tree.tree_node(products).label.plain
            # nothing else was fetched
            blog = node_by_name(app, "sitemap-blog.xml")
            assert tree.model.nodes[blog].state == NodeState.PENDING
            archive_2019 = node_by_name(app, "sitemap-archive-2019.xml")
            assert tree.model.nodes[archive_2019].state == NodeState.PENDING


def extensions_text(app: Any) -> str:
    """The Extensions pane's words: its extension rows (a drill list since issue 18), then the
    hreflang languages."""
    pane = app.query_one(ExtensionsPane)
    return "\n".join(row.label.plain for row in pane.rows.rows) + "\n" + static_text(pane.query_one("#ext-body"), 130)


async def test_selecting_nodes_shows_their_numbers(demo_server, make_app):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(140, 42)) as pilot:
        await wait_started(app, pilot)
        await pilot.press("e")  # expand all from the site root
        await settle(app, pilot)
        overview = app.query_one(OverviewPane)

        products = node_by_name(app, "sitemap-products.xml.gz")
        await select(app, pilot, products)
        text = static_text(overview.query_one("#ov-summary"), 130)
        assert "URLs" in text and "300" in text
        assert "urlset" in text and "done" in text
        assert "Gzip file      yes" in text or "Gzip file  yes" in " ".join(text.split("  ")) or "yes" in text
        assert "2022-01-22 → 2024-12-28" in text
        assert "1 invalid" in text

        blog = node_by_name(app, "sitemap-blog.xml")
        await select(app, pilot, blog)
        text = static_text(overview.query_one("#ov-summary"), 130)
        assert " 42" in text
        await pilot.press("2")  # extensions
        await settle(app, pilot)
        ext = extensions_text(app)
        assert "xhtml:link" in ext and "hreflang languages (4)" in ext
        assert "166" in ext  # 14 x 3 x 4 - 2 alternates
        for lang in ("en", "de", "fr", "x-default"):
            assert lang in ext

        images = node_by_name(app, "sitemap-images.xml")
        await select(app, pilot, images)
        ext = extensions_text(app)
        line = next(ln for ln in ext.splitlines() if "image:image" in ln)
        assert "20" in line and "39" in line and "100%" in line

        # the index: aggregated over its subtree, plus a table of its children
        index = node_by_name(app, "sitemap_index.xml")
        await select(app, pilot, index)
        await pilot.press("1")
        await settle(app, pilot)
        text = static_text(overview.query_one("#ov-summary"), 130)
        assert "401" in text  # 300 + 42 + 20 + 6 + 8 + 25
        table = overview.query_one("#ov-children")
        assert table.row_count == 7

        # site root: everything
        await select(app, pilot, app.tree.model.roots()[0])
        text = static_text(overview.query_one("#ov-summary"), 130)
        assert "436" in text  # 401 + 15 feed items + 20 text lines
        assert "files 12/12 · 436 URLs" in screen_text(app)

        # lastmod chart: month, then year
        await select(app, pilot, products)
        await pilot.press("3")
        await settle(app, pilot)
        pane = app.query_one(LastmodPane)
        notes = static_text(pane.query_one("#lm-notes"), 130)
        assert "299 dated" in notes and "1 invalid" in notes and "0 missing" in notes
        assert "2023" in pane.chart.render().plain
        pane.chart.action_cycle_mode()
        await pilot.pause()
        assert pane.chart.mode == "year"
        rendered = pane.chart.render().plain
        assert "2022" in rendered and "2024" in rendered


async def test_failed_node_is_shown_with_its_reason(demo_server, make_app):
    app = make_app(demo_server.base_url + "/sitemap_index.xml")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_started(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        missing = node_by_name(app, "sitemap-missing.xml")
        node = app.tree.model.nodes[missing]
        assert node.state == NodeState.FAILED
        label = app.tree.tree_node(missing).label
        assert "HTTP 404" in label.plain
        assert any("red" in str(span.style) for span in label.spans)
        await select(app, pilot, missing)
        text = static_text(app.query_one(OverviewPane).query_one("#ov-summary"), 120)
        assert "Failed:" in text and "404" in text


async def test_reload_refetches_a_node(demo_server, make_app):
    app = make_app(demo_server.base_url + "/sitemap-video.xml")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_started(app, pilot)
        root = app.tree.model.roots()[0]
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.tree.model.nodes[root].state == NodeState.DONE, what="fetched")
        await settle(app, pilot)
        notes: list[str] = []
        app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        await pilot.press("r")
        # the demo server answers 304 to the conditional GET
        await wait_for(pilot, lambda: any("not modified" in n for n in notes), what="not-modified notice")
        assert app.tree.model.nodes[root].stats.url_count == 6


async def test_tree_width_keys_and_small_terminal(demo_server, make_app):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_started(app, pilot)
        width = app.tree.size.width
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert app.tree.size.width == width + 4
        await pilot.press("left_square_bracket", "left_square_bracket")
        await pilot.pause()
        assert app.tree.size.width == width - 4
        text = screen_text(app)
        assert "robots.txt" in text and "Overview" in text


async def test_deep_checks_say_the_pages_robots_txt_kept_out(httpserver, make_app):
    """The explorer's deep checks obey robots.txt as the audit does, and a notification says
    how many sampled pages it kept out (80x24: the note is the whole answer there too)."""
    ns = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nDisallow: /private/\n",
                                                               content_type="text/plain")
    locs = "".join(f"<url><loc>{httpserver.url_for(p)}</loc></url>" for p in ("/ok", "/private/p"))
    httpserver.expect_request("/s.xml").respond_with_data(f"<urlset {ns}>{locs}</urlset>", content_type="application/xml")
    httpserver.expect_request("/ok").respond_with_data("<html><title>ok</title></html>", content_type="text/html")
    app = make_app(httpserver.url_for("/s.xml"))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_started(app, pilot)
        root = app.tree.model.nodes[app.tree.model.roots()[0]]
        await wait_for(pilot, lambda: root.state == NodeState.DONE, what="the sitemap to be read")
        await pilot.press("v")
        await wait_for(pilot, lambda: any("Deep checks done" in str(n.message) for n in app._notifications),
                       timeout=60, what="deep checks to finish")
        await settle(app, pilot)
        notes = [(n.title, str(n.message)) for n in app._notifications]
    assert ("deep checks", "deep checks: 1 URL not fetched: robots.txt disallows it for sitemap-tui"
            " (--ignore-robots fetches them)") in notes, notes
    assert "/private/p" not in {req.path for req, _ in httpserver.log}


def test_icons_and_badges_are_one_cell_wide():
    """Rich and the terminal must agree on widths (Rich counts ☰ as 2 cells, terminals 1)."""
    from rich.cells import cell_len

    from sitemap_tui.tui.widgets.sitemap_tree import ICONS, SPINNER

    for ch in "".join(ICONS.values()) + SPINNER + "●▲×":
        assert cell_len(ch) == 1, ch


async def test_validate_deep_adds_issues_for_the_selected_file(demo_server, make_app):
    app = make_app(demo_server.base_url + "/sitemap-video.xml")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_started(app, pilot)
        root = app.tree.model.roots()[0]
        errors_before, warnings_before = app.tree.model.issues.get(root, (0, 0))
        await pilot.press("v")  # (its action marks the checks running: unpaced, they may be done already)
        await wait_for(pilot, lambda: app.jobs.deep is None, timeout=60, what="deep checks to finish")
        await settle(app, pilot)
        errors, warnings = app.tree.model.issues.get(root, (0, 0))
        # the demo's video pages do not exist: the live checks report them
        assert errors + warnings > errors_before + warnings_before


async def test_the_explorers_rate_paces_its_deep_checks(httpserver, make_app):
    """`sitemap-tui TARGET --rate R` paces the deep checks (v) as it paces the audit (u)."""
    import time

    from werkzeug import Response

    from sitemap_tui.engine.explorer import ExploreOptions

    base = httpserver.url_for("").rstrip("/")
    paths = [f"/p{i}" for i in range(3)]
    asked: list[float] = []

    def page(request):
        asked.append(time.monotonic())
        return Response("<html><head><title>p</title></head><body>p</body></html>", content_type="text/html")

    for path in paths:
        httpserver.expect_request(path).respond_with_handler(page)
    urls = "".join(f"<url><loc>{base}{p}</loc></url>" for p in paths)
    httpserver.expect_request("/sitemap.xml").respond_with_data(
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>', content_type="application/xml")
    app = make_app(base + "/sitemap.xml", options=ExploreOptions(now=FIXED_NOW, page_rate=2))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_started(app, pilot)
        await settle(app, pilot)
        await pilot.press("v")
        await wait_for(pilot, lambda: app.jobs.deep is None, timeout=60, what="deep checks to finish")
    assert len(asked) == len(paths)
    gaps = [b - a for a, b in zip(asked, asked[1:], strict=False)]
    assert min(gaps) >= 0.4, gaps  # one each half second (the default's 5/s: 0.2 s)


async def test_a_scrolling_trees_badges_are_whole_beside_its_scrollbar(make_app, tmp_path):
    """Found from outside: at 80x24 a tree longer than the screen drew "●31" for a file's 310
    errors, its last cell under the scrollbar (the labels were cut to the width with it). The
    badge is whole; near miss: a tree that fits has no scrollbar to leave room for."""
    ns = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    bad = "".join(f"<url><loc>https://e.com/b{i}</loc><lastmod>2024-13-01</lastmod></url>" for i in range(310))
    (tmp_path / "sitemap-products-category-00-bad.xml").write_text(f"<urlset {ns}>{bad}</urlset>")
    for i in range(1, 30):  # (names longer than the tree is wide: each label is cut to fit)
        (tmp_path / f"sitemap-products-category-{i:02d}.xml").write_text(
            f"<urlset {ns}><url><loc>https://e.com/{i}</loc></url></urlset>")
    app = make_app(str(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_started(app, pilot)
        await pilot.press("E")
        await settle(app, pilot)
        bad_id = node_by_name(app, "sitemap-products-category-00-bad.xml")
        await wait_for(pilot, lambda: app.tree.model.nodes[bad_id].state == NodeState.DONE, what="the bad file")
        await settle(app, pilot)
        assert app.tree.show_vertical_scrollbar
        line = next(row for row in screen_text(app).splitlines() if "●3" in row)
        assert "●310" in line, line


async def test_a_full_issue_recount_is_waited_for_until_its_counts_are_on_the_tree(demo_server, make_app):
    """The recount after a run (the cross-file checks' findings) answers after its worker ends:
    the app said it was settled between the two, and a screenshot under load showed the tree
    without those counts. It is settled again only once the counts are there."""
    from sitemap_tui.engine.store import Store

    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_started(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        app.tree.model.issues.clear()  # as if the run's findings were not counted yet
        app.recount_issues()
        assert not app.panes_quiet()
        await wait_for(pilot, app.panes_quiet, what="the recount")
        store = Store(app.db_path, readonly=True)
        try:
            expected = {n: (c.get("error", 0), c.get("warning", 0))
                        for n, c in store.issue_counts_by_node().items() if n is not None}
        finally:
            store.conn.close()
        shown = {n: v for n, v in app.tree.model.issues.items() if v != (0, 0)}
        assert shown == {n: v for n, v in expected.items() if v != (0, 0)} and shown


async def test_only_the_one_roots_selection_is_the_whole_exploration(demo_server, make_app):
    """The root's panes ask the store for every file at once (Selection.whole); any other
    node's, for its own ids; the totals shown are the same either way (test_store_pane_queries)."""
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_started(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        root = app.tree.model.roots()[0]
        sel = app.make_selection(root)
        assert sel.whole and sel.store_file_ids is None and len(sel.file_ids) > 1
        # (copied from the model, not walked: the same nodes as the walk)
        assert set(sel.ids) == set(app.tree.model.subtree_ids(root)) == set(sel.nodes)
        assert sel.issues == {i: v for i, v in app.tree.model.issues.items() if i in sel.nodes}
        index = node_by_name(app, "sitemap_index.xml")
        sel = app.make_selection(index)
        assert not sel.whole and sel.store_file_ids == sel.file_ids
        # the Overview of the root: the demo's URLs and findings, as every file adds them up
        await select(app, pilot, root)
        await settle(app, pilot)
        text = screen_text(app)
        total = sum(n.stats.url_count for n in app.tree.model.nodes.values())
        assert re.search(rf"URLs +{total:,}\b", text), text

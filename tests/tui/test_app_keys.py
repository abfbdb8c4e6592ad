"""Keymap and theme from config.toml, help screen, command palette, copy / open URL, offline .db."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from app_helpers import (
    FIXED_NOW,
    capture_notes,
    node_by_name,
    screen_text,
    select,
    settle,
    static_text,
    wait_for,
    wait_started,
    workers_done,
)

from sitemap_tui.engine.discover import Target
from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.model import NodeState
from sitemap_tui.engine.store import Store
from sitemap_tui.tui.config import load_config
from sitemap_tui.tui.screens.confirm import ConfirmScreen, PathPrompt
from sitemap_tui.tui.screens.help import HelpScreen
from sitemap_tui.tui.widgets.overview import OverviewPane


async def test_keymap_and_theme_from_the_config_file(demo_server, make_app, tmp_path, monkeypatch):
    cfg = tmp_path / "config.toml"
    # (E is bound by default to "expand everything" since issue 18: g is free)
    cfg.write_text('theme = "nord"\n\n[keymap]\nexpand_all = "g"\nhelp = "f2"\n')
    monkeypatch.setenv("SITEMAP_TUI_CONFIG", str(cfg))
    app = make_app(demo_server.base_url + "/", config=load_config())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_started(app, pilot)
        assert app.theme == "nord"
        await pilot.press("e")  # no longer bound
        await pilot.pause()
        assert app.jobs.expand_all_node is None
        index = node_by_name(app, "sitemap_index.xml")
        assert app.tree.model.nodes[index].state == NodeState.PENDING
        await pilot.press("g")
        await settle(app, pilot)
        assert app.tree.model.nodes[index].state == NodeState.DONE
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help screen")
        entry = next(e for e in app.screen.entries if e.binding_id == "expand_all")
        assert entry.keys == "g"
        assert "g" in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen), what="help to close")
        # the palette names the keys as the keymap has them (it said "(e)" whatever the keymap)
        names = {c.name for c in app.palette_commands()}
        assert "Expand subtree (g)" in names and "Help (f2)" in names, names
        assert "Export URLs (w)" in names and "Expand everything (E)" in names, names


async def test_a_broken_config_is_reported_not_fatal(demo_server, make_app, tmp_path, monkeypatch):
    cfg = tmp_path / "config.toml"
    cfg.write_text("theme = [\n")
    monkeypatch.setenv("SITEMAP_TUI_CONFIG", str(cfg))
    app = make_app(demo_server.base_url + "/sitemap-video.xml", config=load_config())
    notes = capture_notes(app)  # (Textual keeps the notifications in a private field)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await wait_started(app, pilot)
        assert app.config.problems
        assert any("config.toml" in n for n in notes)
        assert app.is_running


async def test_help_lists_the_bindings(demo_server, make_app):
    app = make_app(demo_server.base_url + "/sitemap-video.xml")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_started(app, pilot)
        for key in ("question_mark", "f1"):
            await pilot.press(key)
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
            ids = {e.binding_id for e in app.screen.entries}
            assert {"expand_all", "cancel", "reload", "export", "filter", "copy_url", "open_browser",
                    "toggle_theme", "open_file", "help", "tree_wider", "tree_narrower"} <= ids
            text = screen_text(app)
            assert "Expand subtree" in text and "Expand everything" in text and "Copy URL" in text
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen), what="help to close")


async def test_every_binding_has_an_id(make_app):
    from sitemap_tui.tui.app import SitemapApp
    from sitemap_tui.tui.widgets.lastmod_chart import LastmodChart

    for cls in (SitemapApp, LastmodChart, ConfirmScreen, PathPrompt, HelpScreen):
        for binding in cls.BINDINGS:
            assert binding.id, f"{cls.__name__}: {binding.key} has no id"


async def test_command_palette_runs_commands(demo_server, make_app):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_started(app, pilot)
        names = {c.name for c in app.palette_commands()}
        assert {"Expand subtree (e)", "Expand everything (E)", "Export URLs (w)", "Filter URLs (/)", "Validate deep (v)",
                "Toggle theme (t)", "Open file (^o)", "Help (?)", "Copy URL (c)", "Show Overview pane (1)", "Show URLs pane (5)"} <= names, names
        # the site root is not a file: no reload there (context-aware)
        assert "Reload node (r)" not in names
        await pilot.press("down")
        await wait_for(pilot, lambda: "Reload node (r)" in {c.name for c in app.palette_commands()}, what="context")
        # discover() lists them for an empty query
        from sitemap_tui.tui.palette import SitemapCommands

        provider = SitemapCommands(app.screen)
        found = [hit.text async for hit in provider.discover()]
        assert "Expand subtree (e)" in [str(t) for t in found]
        # end to end: ctrl+p, type, enter
        dark = app.current_theme.dark
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "CommandPalette", what="the palette")
        await pilot.press(*"toggle theme")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.current_theme.dark != dark, what="the theme to change")


async def test_copy_and_open_url(demo_server, make_app, monkeypatch):
    import webbrowser

    def no_browser() -> None:
        raise webbrowser.Error("could not locate runnable browser")

    app = make_app(demo_server.base_url + "/sitemap_index.xml")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_started(app, pilot)
        # no browser on this machine (over SSH): said, not a silent nothing (found from outside)
        monkeypatch.setattr(webbrowser, "get", no_browser)
        notes = capture_notes(app)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the confirmation")
        await pilot.press("y")
        await wait_for(pilot, lambda: any("No web browser found" in n for n in notes), what="the notice")
        monkeypatch.setattr(webbrowser, "get", lambda: object())
        opened: list[str] = []
        app.open_url = lambda url, **kw: opened.append(url)  # type: ignore[method-assign]
        await pilot.press("c")
        assert app.clipboard == demo_server.base_url + "/sitemap_index.xml"
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the confirmation")
        assert "sitemap_index.xml" in screen_text(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), what="the dialog to close")
        assert opened == []
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the confirmation")
        await pilot.press("y")
        await wait_for(pilot, lambda: opened == [demo_server.base_url + "/sitemap_index.xml"], what="open_url")


async def test_open_refuses_non_http_urls(make_app, tmp_path):
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>https://example.com/a</loc></url></urlset>"
    )
    app = make_app(str(sitemap))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_started(app, pilot)
        notes = capture_notes(app)
        await pilot.press("o")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
        assert any("Only http(s)" in n for n in notes)


def _explore_to_db(url: str, db: Path) -> None:
    async def go() -> None:
        store = Store(db)
        async with Explorer(store=store, options=ExploreOptions(now=FIXED_NOW)) as explorer:
            await explorer.explore(Target.parse(url))
        store.close()

    asyncio.run(go())


async def test_open_a_saved_exploration_offline(demo_server, make_app, tmp_path):
    db = tmp_path / "saved.db"
    await asyncio.to_thread(_explore_to_db, demo_server.base_url + "/", db)
    app = make_app(None, db_path=db)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: app.selected_id is not None, what="the stored tree")
        await workers_done(app)
        await pilot.pause()
        assert app.offline
        assert len(app.tree.model.nodes) == 13
        text = screen_text(app)
        assert "offline" in text and "files 12/12 · 436 URLs" in text
        notes = capture_notes(app)
        # e opens what the file holds under the node (found from outside: "fetches from the web"
        # for a subtree that is all there); r would fetch, and says why it cannot
        archive = node_by_name(app, "sitemap-archive-2019.xml")  # (under the nested index)
        assert app.tree.tree_node(archive) is None
        await pilot.press("e")
        await wait_for(pilot, lambda: any("Opened what this exploration holds" in n for n in notes), what="e's notice")
        await wait_for(pilot, lambda: app.tree.tree_node(archive) is not None, what="the nested file in the tree")
        await pilot.press("r")
        await wait_for(pilot, lambda: sum("opened from a file (offline)" in n for n in notes) == 1, what="r's refusal")
        products = node_by_name(app, "sitemap-products.xml.gz")
        await select(app, pilot, products)
        summary = static_text(app.query_one(OverviewPane).query_one("#ov-summary"), 130)
        assert "300" in summary and "2022-01-22 → 2024-12-28" in summary
        # the cross-file rules need only the store: they run on a saved exploration too
        await wait_for(pilot, lambda: app.bridge is not None and app.bridge.running, what="the offline engine")
        await pilot.press("k")
        await wait_for(pilot, lambda: any("Cross-file checks done" in n for n in notes), timeout=30, what="the checks")
        assert not any("not running" in n for n in notes), notes
    store = Store(db, readonly=True)
    try:
        assert {"hreflang-no-return-link", "robots-url-disallowed"} <= {i.rule for i in store.issues()}
    finally:
        store.close()


async def test_a_saved_exploration_that_is_not_writable_is_still_shown(demo_server, make_app, tmp_path, monkeypatch):
    import sitemap_tui.tui.app_base as app_module

    db = tmp_path / "saved.db"
    await asyncio.to_thread(_explore_to_db, demo_server.base_url + "/sitemap-video.xml", db)
    real_access = os.access
    # (chmod does not stop root, who runs the tests in CI)
    monkeypatch.setattr(app_module.os, "access", lambda p, mode: False if Path(p) == db else real_access(p, mode))
    app = make_app(None, db_path=db)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: app.selected_id is not None, what="the stored tree")
        await pilot.pause()
        assert app.bridge is None and "6 URLs" in screen_text(app)
        notes = capture_notes(app)
        await pilot.press("k")
        await pilot.pause()
        assert any("not writable" in n for n in notes), notes


async def test_open_file_dialog_switches_to_a_saved_exploration(demo_server, make_app, tmp_path):
    db = tmp_path / "other.db"
    await asyncio.to_thread(_explore_to_db, demo_server.base_url + "/sitemap-video.xml", db)
    app = make_app(demo_server.base_url + "/sitemap-news.xml")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_started(app, pilot)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, PathPrompt), what="the path prompt")
        await pilot.press(*str(db))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.offline and app.selected_id is not None, what="the saved exploration")
        await workers_done(app)
        await pilot.pause()
        roots = app.tree.model.roots()
        assert len(roots) == 1 and app.tree.model.nodes[roots[0]].url.endswith("sitemap-video.xml")
        assert "6 URLs" in screen_text(app)

"""Keymap / config errors are shown on start and the app still works; the theme toggle comes back
to the configured theme and the chosen theme is saved (issue 18, bugs 3 and 7)."""

from __future__ import annotations

import tomllib

from app_helpers import capture_notes, node_by_name, screen_text, settle, wait_for, wait_started

from sitemap_tui.engine.model import NodeState
from sitemap_tui.tui.config import load_config


def _lasting(app) -> list[str]:
    # a start-up problem must stay until it is dismissed, not vanish after a few seconds
    return [str(n.message) for n in app._notifications if n.timeout >= 3600]


async def test_keymap_errors_are_shown_and_expand_all_keeps_its_key(demo_server, make_app, tmp_path, monkeypatch):
    cfg = tmp_path / "config.toml"
    cfg.write_text('[keymap]\nexport = "e"\nexpand_al = "E"\n')
    monkeypatch.setenv("SITEMAP_TUI_CONFIG", str(cfg))
    app = make_app(demo_server.base_url + "/", config=load_config())
    notes = capture_notes(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_started(app, pilot)
        lasting = _lasting(app)
        clash = [n for n in lasting if "export" in n and "expand_all" in n and '"e"' in n]
        unknown = [n for n in lasting if "expand_al " in n or "expand_al:" in n or "'expand_al'" in n]
        assert clash and unknown, notes
        assert all(str(cfg) in n for n in clash + unknown)
        assert "expand_all" in unknown[0]  # the nearest valid id
        assert "config" in screen_text(app)
        # the app works, and expand-all still answers to its own key
        index = node_by_name(app, "sitemap_index.xml")
        assert app.tree.model.nodes[index].state == NodeState.PENDING
        await pilot.press("e")
        await settle(app, pilot)
        assert app.tree.model.nodes[index].state == NodeState.DONE


async def test_theme_toggle_returns_to_the_configured_theme_and_is_saved(demo_server, make_app, tmp_path, monkeypatch):
    cfg = tmp_path / "config.toml"
    cfg.write_text('theme = "nord"\n\n[keymap]\nhelp = "f2"\n')
    monkeypatch.setenv("SITEMAP_TUI_CONFIG", str(cfg))
    app = make_app(demo_server.base_url + "/sitemap-video.xml", config=load_config())
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_started(app, pilot)
        assert app.theme == "nord"
        assert tomllib.loads(cfg.read_text()) == {"theme": "nord", "keymap": {"help": "f2"}}
        await pilot.press("t")
        await wait_for(pilot, lambda: app.theme == "textual-light", what="the light theme")
        await wait_for(pilot, lambda: load_config(cfg).theme == "textual-light", what="the theme to be saved")
        assert load_config(cfg).keymap == {"help": "f2"}
        await pilot.press("t")
        await wait_for(pilot, lambda: app.theme == "nord", what="the configured theme again")
        await wait_for(pilot, lambda: load_config(cfg).theme == "nord", what="the theme to be saved")


async def test_a_theme_that_cannot_be_saved_is_reported(demo_server, make_app, tmp_path, monkeypatch):
    cfg = tmp_path / "config.toml"
    cfg.write_text("theme = [\n")  # broken: saving must not overwrite what the user wrote
    monkeypatch.setenv("SITEMAP_TUI_CONFIG", str(cfg))
    app = make_app(demo_server.base_url + "/sitemap-video.xml", config=load_config())
    notes = capture_notes(app)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_started(app, pilot)
        assert any(str(cfg) in n and "not valid TOML" in n for n in _lasting(app))
        await pilot.press("t")
        await wait_for(pilot, lambda: any("not saved" in n for n in notes), what="the save error")
        assert app.is_running and cfg.read_text() == "theme = [\n"


def test_files_nested_too_deeply_are_read_as_broken_not_a_traceback(tmp_path):
    """Found by a review: a config.toml or state file nested thousands deep raised RecursionError
    (a traceback at start) where a broken one is said and the defaults used."""
    from sitemap_tui.session.recent import load_limits
    from sitemap_tui.tui.state import load_export_prefs

    deep_toml = tmp_path / "config.toml"
    deep_toml.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    cfg = load_config(deep_toml)
    assert cfg.broken and cfg.problems
    assert load_limits(deep_toml).problems
    deep_json = tmp_path / "state.json"
    deep_json.write_text("[" * 100_000)
    assert load_export_prefs(deep_json) == load_export_prefs(tmp_path / "none.json")

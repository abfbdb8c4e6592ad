"""Fixtures for the explorer's Pilot tests (helpers live in app_helpers.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from app_helpers import FIXED_NOW

from sitemap_tui.engine.discover import Target
from sitemap_tui.engine.explorer import ExploreOptions
from sitemap_tui.tui.app import SitemapApp
from sitemap_tui.tui.config import TuiConfig


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never read the developer's own config.toml."""
    monkeypatch.setenv("SITEMAP_TUI_CONFIG", str(tmp_path / "no-such-config.toml"))
    # nor its remembered export folder / format, nor one an earlier test left
    monkeypatch.setenv("SITEMAP_TUI_STATE", str(tmp_path / "state.json"))


@pytest.fixture()
def make_app(tmp_path: Path) -> Callable[..., SitemapApp]:
    def factory(target: str | None, *, db_path: Path | None = None, config: TuiConfig | None = None, **kw: Any) -> SitemapApp:
        # page_rate 0: the tests' own servers on 127.0.0.1, what --rate 0 is for (an audit of 20
        # pages waited 4 s at the default 5/s; the pacing has its own test in test_app_audit.py)
        options = kw.pop("options", None) or ExploreOptions(now=FIXED_NOW, page_rate=0)
        app_cls = kw.pop("app_cls", SitemapApp)
        kw.setdefault("refresh_interval", 0.1)  # the panes' steady refresh, faster for tests
        # the Overview's history line reads the cache, which the headless runs of other tests
        # fill: only the tests of that line turn it on
        kw.setdefault("site_history", False)
        return app_cls(
            target=Target.parse(target) if target is not None else None,
            db_path=db_path or tmp_path / "exploration.db",
            options=options,
            config=config or TuiConfig(),
            **kw,
        )

    return factory




def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "snapshot: SVG snapshot tests (skip with -m 'not snapshot')")

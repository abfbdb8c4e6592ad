"""The cross-file rules from the explorer: they follow an expand-all of a small set by themselves,
and key k (or the palette) runs them in the engine over what was fetched; their issues join the
per-file ones in the tree's counts and the Issues pane."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from app_helpers import (
    capture_notes,
    node_by_name,
    screen_text,
    select,
    settle,
    wait_for,
    wait_started,
)

from sitemap_tui.demo.server import serve_directory
from sitemap_tui.engine.store import Store
from sitemap_tui.tui.messages import CrossfileProgress

URLSET = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{urls}</urlset>\n'
)


def _site(root: Path) -> None:
    index = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<sitemap><loc>{{BASE}}/a.xml</loc></sitemap>\n"
        "<sitemap><loc>{{BASE}}/b.xml</loc></sitemap>\n"
        "</sitemapindex>\n"
    )
    (root / "index.xml").write_text(index)
    a = "".join(f"<url><loc>{{{{BASE}}}}/page-{i}</loc></url>\n" for i in range(5))
    b = "<url><loc>{{BASE}}/page-3</loc></url>\n<url><loc>{{BASE}}/other</loc></url>\n"
    (root / "a.xml").write_text(URLSET.format(urls=a))
    (root / "b.xml").write_text(URLSET.format(urls=b))


@contextlib.asynccontextmanager
async def _started(tmp_path: Path, make_app) -> AsyncIterator[tuple[Any, Any]]:
    """The app on the two-file site, its exploration open."""
    site = tmp_path / "site"
    site.mkdir()
    _site(site)
    srv = serve_directory(site)
    try:
        app = make_app(srv.base_url + "/index.xml", db_path=tmp_path / "x.db")
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_started(app, pilot)
            yield app, pilot
    finally:
        srv.stop()


async def test_cross_file_checks_follow_an_expand_all_and_run_again_on_k(tmp_path, make_app):
    async with _started(tmp_path, make_app) as (app, pilot):
        notes = capture_notes(app)
        await pilot.press("k")  # nothing fetched under the index yet
        await pilot.pause()
        assert any("Nothing fetched yet" in n for n in notes)
        asked: list[dict[str, bool]] = []
        engine_crossfile = app.bridge.crossfile
        app.bridge.crossfile = lambda **kw: asked.append(kw) or engine_crossfile(**kw)
        await pilot.press("e")  # a set this small is checked across files right after
        await settle(app, pilot)
        await wait_for(pilot, lambda: any("Cross-file checks done: 1 issue" in n for n in notes), what="the checks")
        assert not any("Cross-file checks started" in n for n in notes)  # (no toast of its own)
        await settle(app, pilot)
        # page-3's second listing (in whichever file was stored last) shows in the index's pane
        await select(app, pilot, node_by_name(app, "index.xml"))
        await pilot.press("4")
        await wait_for(pilot, lambda: "cross-duplicate-url" in screen_text(app), what="the issue in the pane")
        # the header names the step the engine reports while the rules run
        app.jobs.crossfile = True
        app.post_message(CrossfileProgress("duplicate URLs"))
        await wait_for(pilot, lambda: "checking across files: duplicate URLs" in screen_text(app), what="the step")
        app.jobs.crossfile = False
        app.update_header()
        # running them again replaces the earlier results instead of adding to them
        await pilot.press("k")
        await wait_for(pilot, lambda: not app.jobs.crossfile, timeout=30, what="the second run")
        await settle(app, pilot)
        assert sum("Cross-file checks done: 1 issue" in n for n in notes) == 2, notes
        # the automatic run waits for fetches the user may have started; k is refused instead
        assert asked == [{"when_idle": True}, {"when_idle": False}]
    store = Store(tmp_path / "x.db", readonly=True)
    try:
        assert [i.rule for i in store.issues() if i.rule.startswith("cross-")] == ["cross-duplicate-url"]
    finally:
        store.close()


async def test_a_big_set_waits_for_k(tmp_path, make_app, monkeypatch):
    import sitemap_tui.tui.app_engine as app_module

    monkeypatch.setattr(app_module, "AUTO_CROSSFILE_URLS", 6)  # the set has 7 URLs
    async with _started(tmp_path, make_app) as (app, pilot):
        notes = capture_notes(app)
        await pilot.press("e")
        await settle(app, pilot)
        assert any("Press k to check across files (7 URLs" in n for n in notes), notes
        assert not any("Cross-file checks done" in n for n in notes)
        assert all(c == (0, 0) for c in app.tree.model.issues.values())
        await pilot.press("k")
        await wait_for(pilot, lambda: any("Cross-file checks done: 1 issue" in n for n in notes), timeout=30, what="the checks")


async def test_a_late_recount_cannot_overwrite_a_newer_one(tmp_path, make_app, monkeypatch):
    """The recount that follows an expand-all overlaps the cross-file run that follows it; when
    the older one's thread ends last, its counts (read before the cross-file issues) must not
    replace the newer ones in the tree."""
    import threading

    async with _started(tmp_path, make_app) as (app, pilot):
        await pilot.press("e")
        await settle(app, pilot)
        root = app.tree.model.roots()[0]
        real = Store.issue_counts_by_node
        release = threading.Event()
        calls: list[int] = []

        def counts(self):
            calls.append(1)
            if len(calls) == 1:
                release.wait(10)
                return {root: {"error": 99}}  # what a read from before the newer run saw
            return real(self)

        monkeypatch.setattr(Store, "issue_counts_by_node", counts)
        app.recount_issues()
        await wait_for(pilot, lambda: len(calls) == 1, what="the first recount")
        app.recount_issues()
        await wait_for(pilot, lambda: len(calls) == 2, what="the second recount")
        await pilot.pause(0.3)  # the newer counts are applied ...
        release.set()  # ... then the older thread ends
        await wait_for(pilot, lambda: not any(w.is_running for w in app.workers), what="the threads")
        await pilot.pause()
        assert app.tree.model.issues.get(root, (0, 0)) != (99, 0)

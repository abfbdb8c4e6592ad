"""Reopening (issue 18): the recent explorations kept in the cache, picked with the arrows and
Enter (``sitemap-tui open`` without a file, ctrl+r in the explorer), and a damaged exploration
file, which gets a screen that names it and says what is wrong instead of an empty tree and a
toast that vanishes. At 200x50 and 80x24, with real key presses."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from app_helpers import FIXED_NOW, screen_text, wait_for, wait_started

from sitemap_tui.engine.discover import Target
from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.store import Store
from sitemap_tui.tui.screens.recent import RecentPicker, RecentScreen

SIZES = [(200, 50), (80, 24)]
DAY = 86400


def explore_to(url: str, db: Path) -> None:
    async def go() -> None:
        store = Store(db)
        async with Explorer(store=store, options=ExploreOptions(now=FIXED_NOW, workers=0)) as explorer:
            await explorer.explore(Target.parse(url))
        store.close()

    asyncio.run(go())


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    folder = tmp_path / "xdg-cache" / "sitemap-tui" / "explorations"
    folder.mkdir(parents=True)
    return folder


async def two_saved(demo_server, cache: Path) -> tuple[Path, Path]:
    """The video sitemap explored two days ago, the news sitemap yesterday (newest first: news)."""
    video, news = cache / "127.0.0.1-video.db", cache / "127.0.0.1-news.db"
    await asyncio.to_thread(explore_to, demo_server.base_url + "/sitemap-video.xml", video)
    await asyncio.to_thread(explore_to, demo_server.base_url + "/sitemap-news.xml", news)
    for db, days in ((video, 2), (news, 1)):
        os.utime(db, (FIXED_NOW.timestamp() - days * DAY,) * 2)
    return video, news


def damage(db: Path, table: str) -> None:
    """Overwrite ``table``'s first page, as a disk fault or a copy cut short would."""
    conn = sqlite3.connect(db)
    (page,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name=?", (table,)).fetchone()
    (size,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    with db.open("r+b") as fh:
        fh.seek((page - 1) * size)
        fh.write(b"\xde\xad" * (size // 2))


def flat(app) -> str:
    return " ".join(screen_text(app).replace("█", " ").replace("▌", " ").split())


async def list_read(app, pilot) -> RecentScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, RecentScreen) and app.screen.saved is not None,
                   what="the recent explorations")
    await pilot.pause()
    return app.screen


@pytest.mark.parametrize("size", SIZES)
async def test_ctrl_r_lists_recent_explorations_and_enter_opens_the_one_picked(size, demo_server, cache, make_app):
    video, news = await two_saved(demo_server, cache)
    app = make_app(None, db_path=news)
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        await pilot.press("ctrl+r")
        screen = await list_read(app, pilot)
        assert [s.path for s in screen.saved] == [news, video]
        text = flat(app)
        assert "Recent explorations" in text and text.count("127.0.0.1") >= 2
        assert "6 URLs" in text, text  # the video sitemap's count, read without its entries
        assert news.name in text, "the highlighted one's file is named"
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.db_path == video and app.selected_id is not None, what="the picked exploration")
        await wait_started(app, pilot)
        roots = app.tree.model.roots()
        assert len(roots) == 1 and app.tree.model.nodes[roots[0]].url.endswith("sitemap-video.xml")
        assert app.offline and "6 URLs" in screen_text(app)


@pytest.mark.parametrize("size", SIZES)
async def test_open_without_a_file_picks_from_the_list_and_escape_quits(size, demo_server, cache):
    video, _news = await two_saved(demo_server, cache)
    picker = RecentPicker()
    async with picker.run_test(size=size) as pilot:
        await list_read(picker, pilot)
        await pilot.press("down")
        await pilot.pause()
        assert video.name in flat(picker) and "explorations" in flat(picker)
        await pilot.press("enter")
        await wait_for(pilot, lambda: picker.return_value is not None, what="the pick")
    assert picker.return_value == video
    quitter = RecentPicker()
    async with quitter.run_test(size=size) as pilot:
        await list_read(quitter, pilot)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not quitter.is_running, what="the picker to quit")
    assert quitter.return_value is None


async def test_an_empty_cache_says_so(cache):
    picker = RecentPicker()
    async with picker.run_test(size=(80, 24)) as pilot:
        await list_read(picker, pilot)
        assert "No saved explorations" in flat(picker)


async def test_compare_with_no_earlier_exploration_is_read_whole_at_80_columns(cache, tmp_path):
    """Found from outside: the advice of "Compare with…" on a site's first exploration was cut
    after three lines at 80 columns, its end ("Esc: back.") with it."""
    from textual.app import App

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(RecentScreen(closes_app=False, compare_to=tmp_path / "only.db"))

    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await list_read(app, pilot)
        await pilot.pause()
        shown = " ".join(screen_text(app).split())
        assert "this one is the first kept" in shown and "compared with this one. Esc: back." in shown, shown


@pytest.mark.parametrize("size", SIZES)
async def test_a_damaged_exploration_opens_an_error_screen_that_names_it(size, demo_server, cache, make_app):
    """Damage deep in the entries: the tree would load, and only the panes would fail."""
    video, _ = await two_saved(demo_server, cache)
    damaged = cache / "damaged.db"
    shutil.copy(video, damaged)
    damage(damaged, "entries")
    before = hashlib.sha256(damaged.read_bytes()).hexdigest()
    app = make_app(None, db_path=damaged)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: type(app.screen).__name__ == "StoreErrorScreen", what="the error screen")
        await pilot.pause()
        text = flat(app)
        assert "Cannot open damaged.db" in text and "is damaged" in text, text
        assert app.bridge is None, "no engine: nothing writes into a damaged file"
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_code == 2
    assert hashlib.sha256(damaged.read_bytes()).hexdigest() == before


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("table", ["nodes", "entries"])
async def test_picking_a_damaged_exploration_names_it_and_keeps_the_one_shown(table, size, demo_server, cache, make_app):
    """Damaged nodes: listed as unreadable. Damaged entries: the summary reads, the check before
    opening does not; either way the exploration shown stays, tree and all."""
    video, news = await two_saved(demo_server, cache)
    damage(video, table)
    os.utime(video, (FIXED_NOW.timestamp() - 2 * DAY,) * 2)
    app = make_app(None, db_path=news)
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        shown = dict(app.tree.model.nodes)
        await pilot.press("ctrl+r")
        await list_read(app, pilot)
        await pilot.press("down")
        await pilot.pause()
        if table == "nodes":
            assert "unreadable" in flat(app) and "malformed" in flat(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "StoreErrorScreen", what="the error screen")
        assert video.name in flat(app) and ("malformed" in flat(app) or "is damaged" in flat(app))
        await pilot.press("escape")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "MainScreen", what="the explorer again")
        assert app.db_path == news and app.is_running
        assert app.tree.model.nodes.keys() == shown.keys()
        assert "cannot read the store" not in flat(app)


def test_two_runs_in_one_minute_read_apart() -> None:
    """Tried in tmux: two runs of the demo 45 seconds apart were two rows "2026-11-26 22:24
    127.0.0.1:8811 436 URLs" told apart by their size alone. Rows give the second."""
    from sitemap_tui.engine.store.summary import ExplorationSummary
    from sitemap_tui.session.recent import Saved
    from sitemap_tui.tui.screens.recent import row_text

    def saved(started: str) -> Saved:
        summary = ExplorationSummary(path=Path("/x/127.0.0.1-20261126-222402.db"), size=1, mtime=0.0,
                                     target="http://127.0.0.1:8811/", started=started, files=13, urls=436)
        return Saved(summary, 1000)

    first = row_text(saved("2026-11-26T22:24:02+00:00"), 76).plain
    second = row_text(saved("2026-11-26T22:24:47+00:00"), 76).plain
    assert first.startswith("2026-11-26 22:24:02  127.0.0.1:8811"), first
    assert second.startswith("2026-11-26 22:24:47  127.0.0.1:8811"), second
    assert len(first) == 76 and "436 URLs" in first
    # and the command that kept each: a urls run and a diff's in the same second read alike
    diff = saved("2026-11-26T22:24:47+00:00")
    diff = Saved(dataclasses.replace(diff.summary, command="diff"), 1000)
    assert row_text(diff, 76).plain.rstrip().endswith("1000 B  diff"), row_text(diff, 76).plain
    assert second.rstrip().endswith("1000 B  explorer"), second


async def test_the_site_is_read_whole_at_80_columns(demo_server, cache):
    """Before its first layout the list had no width, and 0 - 4 was taken as one: at 80 columns
    a row showed 8 of the site's characters ("127.0.…") with room for all of them."""
    await two_saved(demo_server, cache)
    site = demo_server.base_url.split("//", 1)[1]  # 127.0.0.1:PORT
    picker = RecentPicker()
    async with picker.run_test(size=(80, 24)) as pilot:
        await list_read(picker, pilot)
        rows = [ln for ln in screen_text(picker).splitlines() if " URLs " in ln]
        assert len(rows) == 2 and all(site in row for row in rows), rows


def test_a_long_site_keeps_its_both_ends() -> None:
    """A host and its port differ at both ends: the middle is what goes."""
    from sitemap_tui.engine.store.summary import ExplorationSummary
    from sitemap_tui.session.recent import Saved
    from sitemap_tui.tui.screens.recent import row_text

    host = "www.a-very-long-subdomain-name.example-company.co.uk:8443"
    summary = ExplorationSummary(path=Path("/x/a.db"), size=1, mtime=0.0, target=f"https://{host}/",
                                 started="2026-11-26T22:24:02+00:00", files=1, urls=3)
    text = row_text(Saved(summary, 1000), 76, 1, 6).plain
    assert "www.a-very" in text and "co.uk:8443" in text and "…" in text, text

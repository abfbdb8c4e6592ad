"""The TUI under attack (SECURITY.md T14-T16): the display cases of the attack corpus, opened in
the explorer. Every place a URL or an extension field is shown (tree labels, overview, extension
and lastmod panes, issues pane, URL table rows, entry detail) is clicked wherever hostile text is
on screen; the app must keep running, run no action it did not bind itself, write no file, and
never put a raw ESC / C1 / bidi / zero-width character on the screen."""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sitemap_tui.tui.app")

from rich.console import Console  # noqa: E402
from textual.worker import WorkerCancelled  # noqa: E402

from sitemap_tui.engine.discover import Target  # noqa: E402
from sitemap_tui.engine.explorer import ExploreOptions  # noqa: E402
from sitemap_tui.engine.fetch import FetchConfig  # noqa: E402
from sitemap_tui.engine.model import NodeState  # noqa: E402
from sitemap_tui.tui.app import SitemapApp  # noqa: E402
from sitemap_tui.tui.config import TuiConfig  # noqa: E402

from .attacks import IMG, MARKUP, NEWS, SM, VID, XHTML, index  # noqa: E402
from .conftest import AttackEnv  # noqa: E402

UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064"
    "\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)
# what to click: markup-looking brackets and the visible escapes of control characters
SPOTS = re.compile(r"\[[@/lb]|\\x[0-9a-f]{2}|\\u[0-9a-f]{4}|https?://")
BAD_ACTIONS = ("quit", "screenshot", "suspend", "simulate", "bell", "push_screen", "link", "open_url",
               "toggle_dark", "notify", "exit")
MAX_CLICKS_PER_VIEW = 4


class RecordingApp(SitemapApp):
    """Records every action that runs, whatever triggered it (keys, clicks, markup)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.actions: list[str] = []

    async def run_action(self, action: Any, *args: Any, **kw: Any) -> Any:  # type: ignore[override]
        self.actions.append(str(action))
        return await super().run_action(action, *args, **kw)


def screen_text(app: Any) -> str:
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False, safe_box=False)
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    console.print(update)
    return console.export_text(styles=False)


async def wait_for(pilot: Any, predicate: Callable[[], bool], timeout: float = 30.0, what: Any = "") -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what() if callable(what) else what}")
        await pilot.pause(0.05)


def _extra_sitemap(base_dir: Path) -> bytes:
    """A urlset whose URLs and extension fields carry markup aimed at this test's shots dir."""
    shot = f"[@click=app.screenshot('x.svg','{base_dir}')]"
    hostile = (shot, *MARKUP, "\u009b2J\u202eevil\u200b", "&#x9d;52;c;aGk=&#x9c;")
    urls = []
    for i, h in enumerate(hostile):
        h_xml = h.replace("'", "&apos;")
        urls.append(
            f"<url><loc>{{{{BASE}}}}/x{i}/{h_xml}</loc><lastmod>{h_xml}</lastmod>"
            f"<changefreq>{h_xml}</changefreq><priority>{h_xml}</priority>"
            f"<image:image><image:loc>{{{{BASE}}}}/{h_xml}.png</image:loc><image:title>{h_xml}</image:title>"
            f"<image:caption>{h_xml}</image:caption></image:image>"
            f"<news:news><news:publication><news:name>{h_xml}</news:name><news:language>{h_xml}</news:language>"
            f"</news:publication><news:publication_date>{h_xml}</news:publication_date>"
            f"<news:title>{h_xml}</news:title></news:news>"
            f"<video:video><video:thumbnail_loc>{{{{BASE}}}}/{h_xml}.jpg</video:thumbnail_loc>"
            f"<video:title>{h_xml}</video:title><video:description>{h_xml}</video:description>"
            f"<video:content_loc>{{{{BASE}}}}/{h_xml}.mp4</video:content_loc></video:video>"
            f'<xhtml:link rel="alternate" hreflang="{h_xml}" href="{{{{BASE}}}}/{h_xml}"/></url>\n'
        )
    ns = f'xmlns="{SM}" xmlns:image="{IMG}" xmlns:news="{NEWS}" xmlns:video="{VID}" xmlns:xhtml="{XHTML}"'
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {ns}>\n{"".join(urls)}</urlset>\n'.encode()


def _assert_clean(app: RecordingApp, token: str, *, svg: bool = False) -> str:
    text = screen_text(app)
    bad = UNSAFE.search(text)
    assert bad is None, f"raw {bad.group()!r} on screen"
    assert token not in text, "canary content on screen"
    if svg:  # the SVG export goes through its own rendering path; slower, so not every time
        shot = app.export_screenshot()
        bad = UNSAFE.search(shot.replace("\n", " ").replace("\t", " "))
        assert bad is None, f"raw {bad.group()!r} in the screenshot"
    return text


def _assert_inert(app: RecordingApp, watched: list[Path]) -> None:
    assert app.is_running, "the app stopped"
    assert app.return_code is None, f"the app exited with {app.return_code}"
    ran = [a for a in app.actions if any(b in a for b in BAD_ACTIONS)]
    assert not ran, f"actions ran: {ran}"
    for d in watched:
        assert not list(d.iterdir()), f"a file was written in {d}: {list(d.iterdir())}"


async def _click_spots(app: RecordingApp, pilot: Any, watched: list[Path], *, x_from: int = 0,
                       x_to: int | None = None, limit: int = MAX_CLICKS_PER_VIEW,
                       every_line: bool = False) -> int:
    """Click hostile-looking spots on screen (one per line; with ``every_line`` the first word
    of lines without one too, e.g. issue rows) and check after each click that nothing ran."""
    text = screen_text(app)
    x_to = app.size.width if x_to is None else x_to
    clicks = 0
    for y, line in enumerate(text.splitlines()[1:-1], start=1):  # not the header and footer
        xs = [m.start() + 1 for m in SPOTS.finditer(line) if x_from <= m.start() < x_to]
        if not xs and every_line:
            word = re.search(r"[^\s│┃|─━╭╮╰╯]", line[x_from:x_to])
            xs = [x_from + word.start()] if word else []
        for x in xs[:1]:
            if clicks >= limit:
                return clicks
            await pilot.click(offset=(min(x, app.size.width - 1), y))
            clicks += 1
            _assert_inert(app, watched)
    await pilot.pause()
    return clicks


@pytest.mark.asyncio
async def test_display_cases_in_the_tui(attack_env: AttackEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SITEMAP_TUI_CONFIG", str(tmp_path / "no-config.toml"))
    shots = tmp_path / "shots"
    shots.mkdir()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    watched = [shots, cwd]
    server = attack_env.server
    server.add("/tui/extra.xml", _extra_sitemap(shots))
    # the XML escape case stops at its first raw ESC (a parse error): headless tests cover it
    cases = [c for c in attack_env.cases.values() if c.display and c.name != "display-escapes-xml"]
    locs = [server.url(c.target) for c in cases] + [
        server.url("/tui/extra.xml"),
        server.url("/tui/gone[@click=app.quit]x[/].xml"),  # a 404 whose URL is markup
    ]
    server.add("/tui/index.xml", index(*locs))

    app = RecordingApp(
        target=Target.parse(server.url("/tui/index.xml")),
        db_path=tmp_path / "exploration.db",
        fetch_config=FetchConfig(total_timeout=10),
        options=ExploreOptions(),
        config=TuiConfig(),
    )
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: bool(app.tree.model.roots()) and app.selected_id is not None, what="the root")
        root_id = app.tree.model.roots()[0]
        await wait_for(pilot, lambda: app.bridge is not None and app.bridge.running, what="the engine")
        assert app.tree.reveal(root_id)
        await wait_for(pilot, lambda: app.selected_id == root_id, what="the root selected")
        app.tree.focus()
        for _ in range(3):  # expand all; again if the key came before the root was parsed
            await pilot.press("e")
            try:
                await wait_for(pilot, lambda: app.jobs.expand_all_node is not None or any(
                    n.state != NodeState.PENDING for n in app.tree.model.nodes.values() if n.parent_id),
                    timeout=3, what="expand all to start")
                break
            except AssertionError:
                continue
        model = app.tree.model
        await wait_for(
            pilot,
            lambda: len(model.nodes) >= len(locs) + 1
            and all(n.state not in (NodeState.PENDING, NodeState.FETCHING, NodeState.PARSING)
                    for n in model.nodes.values()),
            what=lambda: f"the exploration: {[(n.url[-40:], n.state.value) for n in model.nodes.values()]}",
        )
        # an exclusive worker superseded by a newer one (the history line's read, every second
        # while the URL count grows: seen on a loaded box) ends cancelled; that is not a failure
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete()
        await pilot.pause(0.6)  # a pane refresh tick
        token = attack_env.token
        clicks = 0
        literal: set[str] = set()

        # the tree: hostile labels (clicking there only moves the selection)
        _assert_clean(app, token, svg=True)
        clicks += await _click_spots(app, pilot, watched, x_to=app.tree.size.width)

        for node in list(model.nodes.values()):
            if node.parent_id is None:
                continue
            assert app.tree.reveal(node.id), node.url
            await wait_for(pilot, lambda nid=node.id: app.selected_id == nid, what=f"select {node.url}")
            for key in "12345":
                await pilot.press(key)
                await app.workers.wait_for_complete()
                await pilot.pause()
                text = _assert_clean(app, token, svg=key == "5")
                literal.update(m for m in ("[@click=app.quit]", "[/]", "[link=file:///etc/passwd]",
                                           "\\x1b", "\\x9b", "\\u202e", "\\u200b") if m in text)
                clicks += await _click_spots(app, pilot, watched, x_from=app.tree.size.width,
                                             every_line=key in "14")
                _assert_clean(app, token)
                if app.selected_id != node.id:  # a click in a pane may jump; come back
                    app.tree.reveal(node.id)
                    await wait_for(pilot, lambda nid=node.id: app.selected_id == nid, what="reselect")
            # the entry detail of the first rows of the URL table
            table = app.url_table
            if table is not None and node.stats.url_count:
                # (a click above on a hostile language row of the Extensions pane drilled into
                # its URLs, lang:…, as Enter does: the rows below are the node's own)
                table.set_filter_text("")
                await app.workers.wait_for_complete()
                await pilot.press("5")
                await pilot.pause()
                table.focus()
                for _ in range(min(node.stats.url_count, 2)):
                    await pilot.press("enter")
                    await app.workers.wait_for_complete()
                    await pilot.pause()
                    if hasattr(table, "detail_open"):
                        assert table.detail_open, "the entry detail did not open"
                    text = _assert_clean(app, token)
                    literal.update(m for m in ("[@click=app.quit]", "[/]", "\\x1b", "\\x9b") if m in text)
                    clicks += await _click_spots(app, pilot, watched, x_from=app.tree.size.width, limit=3)
                    _assert_inert(app, watched)
                    table.focus()
                    await pilot.press("escape")
                    await pilot.press("down")
                app.tree.focus()

        _assert_inert(app, watched)
        assert clicks >= 40, clicks
        # the hostile text was shown, literally
        assert {"[@click=app.quit]", "[/]", "\\x9b", "\\u202e"} <= literal, literal
        assert "\\x1b" in literal, literal
    assert not list(shots.iterdir())
    assert not list(cwd.iterdir())
    assert attack_env.token.encode() not in b"".join(p.read_bytes() for p in tmp_path.glob("exploration.db*"))

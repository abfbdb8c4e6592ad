"""Every string from the web is shown literally, and clicking it runs nothing (SECURITY.md T14-T16).

A served site whose sitemap file names and URLs carry Rich/Textual markup (``[@click=app.quit]``,
``[/]``, ``[link=file:///etc/passwd]``), C1 controls, a bidi override and raw ESC bytes. The test
opens every pane for the hostile nodes, clicks every place where a ``[`` is on screen, and checks
the app still runs, no action ran, and the screen holds no ESC / C1 / bidi character."""

from __future__ import annotations

from pathlib import Path

from app_helpers import screen_text, select, settle, wait_for, wait_started, workers_done

from sitemap_tui.demo.server import serve_directory
from sitemap_tui.tui.app import SitemapApp

FORBIDDEN = ("\x1b", "\x07", "\u202e", "\u009b", "\u009d", "\u009c")


def _site(root: Path, shot_dir: Path) -> None:
    (root / "robots.txt").write_text("User-agent: *\nSitemap: {{BASE}}/index.xml\n")
    (root / "index.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "  <sitemap><loc>{{BASE}}/evil.xml</loc></sitemap>\n"
        "  <sitemap><loc>{{BASE}}/[@click=app.quit]x.xml</loc><lastmod>[/]</lastmod></sitemap>\n"
        "  <sitemap><loc>{{BASE}}/urls.txt</loc></sitemap>\n"
        "  <sitemap><loc>{{BASE}}/gone[@click=app.quit]q.xml</loc></sitemap>\n"
        "</sitemapindex>\n"
    )
    shot = f"[@click=app.screenshot('x.svg','{shot_dir}')]"
    locs = [
        "{{BASE}}/p[@click=app.quit]x[/]",
        "{{BASE}}/q[/]",
        "{{BASE}}/r[link=file:///etc/passwd]y[/link]",
        "{{BASE}}/s&#x9b;31mred&#x9d;52;c;aGk=&#x9c;",
        "{{BASE}}/t&#x202e;gnp.exe",
        "{{BASE}}/u[bold red]big[/bold red]",
        "{{BASE}}/v" + shot.replace("'", "&apos;"),
    ]
    body = "".join(
        f"  <url><loc>{loc}</loc><lastmod>[@click=app.quit]</lastmod><changefreq>[/]</changefreq></url>\n"
        for loc in locs
    )
    (root / "evil.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' + body + "</urlset>\n"
    )
    (root / "[@click=app.quit]x.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "  <url><loc>{{BASE}}/z[@click=app.bell]</loc></url>\n"
        "</urlset>\n"
    )
    (root / "urls.txt").write_bytes(
        b"{{BASE}}/ok\n{{BASE}}/w\x1b]52;c;aGk=\x07\n{{BASE}}/y\x1b[2J[/]\n{{BASE}}/c1\xc2\x9b31m\n"
    )


class RecordingApp(SitemapApp):
    """Records every action that runs, whatever triggered it."""

    def __init__(self, *args, **kw) -> None:
        super().__init__(*args, **kw)
        self.actions: list[str] = []

    async def run_action(self, action, *args, **kw):  # type: ignore[override]
        self.actions.append(str(action))
        return await super().run_action(action, *args, **kw)


def _bad_actions(app: RecordingApp) -> list[str]:
    bad = ("quit", "screenshot", "suspend", "simulate", "bell", "push_screen", "link")
    return [a for a in app.actions if any(b in a for b in bad)]


async def _click_brackets(app: RecordingApp, pilot, x_from: int = 0, x_to: int | None = None) -> int:
    """Click on the markup-looking '[' on screen ('[@', '[/', '[link', '[bold'), two per line."""
    text = screen_text(app)
    clicks = 0
    x_to = app.size.width if x_to is None else x_to
    for y, line in enumerate(text.splitlines()):
        spots = [
            x for x, ch in enumerate(line)
            if x_from <= x < x_to and ch == "[" and line[x + 1 : x + 2] in ("@", "/", "l", "b")
        ]
        for x in spots[:2]:
            await pilot.click(offset=(min(x + 1, app.size.width - 1), y))
            clicks += 1
            assert app.is_running, f"the app stopped after a click at {(x + 1, y)}"
    await pilot.pause()
    return clicks


def _assert_clean(app: RecordingApp) -> str:
    text = screen_text(app)
    for ch in FORBIDDEN:
        assert ch not in text, f"{ch!r} reached the screen"
    assert not any(0x80 <= ord(c) <= 0x9F for c in text), "a C1 control reached the screen"
    svg = app.export_screenshot()
    assert "\x1b" not in svg and not any(0x80 <= ord(c) <= 0x9F for c in svg)
    return text


async def test_hostile_strings_are_literal_and_inert(tmp_path, make_app):
    site = tmp_path / "site"
    site.mkdir()
    shots = tmp_path / "shots"
    shots.mkdir()
    _site(site, shots)
    srv = serve_directory(site)
    try:
        app = make_app(srv.base_url + "/", app_cls=RecordingApp)
        async with app.run_test(size=(150, 40)) as pilot:
            await wait_started(app, pilot)
            await pilot.press("e")
            await settle(app, pilot)
            model = app.tree.model
            assert len(model.nodes) >= 7
            total_clicks = 0
            seen_literal = set()
            # the tree: hostile file names
            total_clicks += await _click_brackets(app, pilot, x_to=app.tree.size.width)
            assert not _bad_actions(app), _bad_actions(app)
            views = {
                "evil.xml": "12345",
                "[@click=app.quit]x.xml": "145",
                "urls.txt": "45",
                "gone[@click=app.quit]q.xml": "14",
            }
            for name, keys in views.items():
                nid = next(n.id for n in model.nodes.values() if n.url.endswith("/" + name))
                await select(app, pilot, nid)
                for key in keys:
                    await pilot.press(key)
                    await workers_done(app)
                    await pilot.pause()
                    text = _assert_clean(app)
                    for marker in ("[@click=app.quit]", "[/]", "[link=file:///etc/passwd]", "\\x9b", "\\u202e", "\\x1b"):
                        if marker in text:
                            seen_literal.add(marker)
                    # the panes only: a click in the tree would change the selection
                    total_clicks += await _click_brackets(app, pilot, x_from=app.tree.size.width)
                    assert app.is_running
                    assert not _bad_actions(app), _bad_actions(app)
                    assert app.selected_id == nid
            # the markup and the escapes were shown as text, somewhere
            assert {"[@click=app.quit]", "[/]"} <= seen_literal, seen_literal
            assert "\\x9b" in seen_literal or "\\u202e" in seen_literal, seen_literal
            assert total_clicks > 10

            # copying and the open-in-browser confirmation show the URL literally too
            evil = next(n.id for n in model.nodes.values() if n.url.endswith("/[@click=app.quit]x.xml"))
            await select(app, pilot, evil)
            await pilot.press("c")
            await pilot.pause()
            assert app.clipboard.endswith("/[@click=app.quit]x.xml")
            _assert_clean(app)
            await pilot.press("o")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", what="the confirm dialog")
            text = _assert_clean(app)
            assert "[@click=app.quit]x.xml" in text
            await _click_brackets(app, pilot)
            if type(app.screen).__name__ == "ConfirmScreen":
                await pilot.press("n")
            await pilot.pause()
            assert app.is_running
            assert not _bad_actions(app), _bad_actions(app)
            assert not list(shots.iterdir()), "a screenshot was written"
            # a listed URL's control characters reach the clipboard percent-encoded, as a text
            # export writes them (found from outside: a raw CR, pasted into a shell, ran what
            # followed it; and display's escapes made a URL nobody listed)
            txt = next(n.id for n in model.nodes.values() if n.url.endswith("/urls.txt"))
            await select(app, pilot, txt)
            await pilot.press("5")
            grid = app.url_table.grid
            await wait_for(pilot, lambda: grid.total == 4 and not grid.scanning, what="urls.txt's rows")
            grid.focus()
            await pilot.press("down")
            await wait_for(pilot, lambda: "\x1b" in (app.url_table.highlighted_entry.loc or ""), what="the ESC row")
            await pilot.press("c")
            await pilot.pause()
            assert app.clipboard.endswith("/w%1B]52;c;aGk=%07"), repr(app.clipboard)
            assert not any(ord(ch) < 32 or 0x7F <= ord(ch) <= 0x9F for ch in app.clipboard), repr(app.clipboard)
    finally:
        srv.stop()


async def test_check_action_refuses_foreign_actions(demo_server, make_app, tmp_path):
    app = make_app(demo_server.base_url + "/sitemap-video.xml")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_started(app, pilot)
        for action in ("screenshot", "suspend_process", "simulate_key", "push_screen", "bell", "toggle_dark", "notify"):
            assert app.check_action(action, ()) is False, action
            assert app.screen.check_action(action, ()) is False, action
        assert app.check_action("expand_all", ()) is True
        assert app.check_action("quit", ()) is True
        await app.run_action(f"app.screenshot('x.svg','{tmp_path}')")
        await app.run_action("screen.maximize")  # allowed on the main screen
        await pilot.pause()
        assert not list(tmp_path.glob("*.svg"))
        assert app.is_running

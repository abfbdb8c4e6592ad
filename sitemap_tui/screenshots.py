"""Write SVG screenshots of the explorer on the bundled demo site.

    python -m sitemap_tui.screenshots [--out screenshots] [--size 140x42]

Drives the app headless (``App.run_test``) against the demo server: expands the whole site, then
captures the main screen and each pane. The same scenes back the snapshot tests
(tests/tui/test_snapshots.py), so the README images and the tests show the same thing.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sitemap_tui.engine.model import NodeState

FIXED_NOW = datetime(2025, 1, 15, 12, 0, tzinfo=UTC)
SCREENSHOT_PORT = 47813
SCENES = ("main", "overview", "extensions", "lastmod", "issues", "urls", "audit", "help")
SMALL_SCENES = ("main", "issues", "urls", "audit")  # also written at SMALL_SIZE, as NAME-80x24.svg
SMALL_SIZE = (80, 24)
COMPARE_SCENE = "compare"
EARLIER_STARTED = "2025-01-08T12:00:00+00:00"  # a week before FIXED_NOW
"""Compare mode (issue 20): the demo site against an earlier version of it (earlier_demo)."""
ACTIVE = (NodeState.FETCHING, NodeState.PARSING)


def build_app(base_url: str, db_path: Path, *, header_target: str | None = None, refresh_interval: float = 0.5) -> Any:
    from sitemap_tui.engine.discover import Target
    from sitemap_tui.engine.explorer import ExploreOptions
    from sitemap_tui.tui.app import SitemapApp
    from sitemap_tui.tui.config import TuiConfig

    return SitemapApp(
        target=Target.parse(base_url.rstrip("/") + "/"),
        db_path=db_path,
        options=ExploreOptions(now=FIXED_NOW, page_rate=0),  # (the demo is our own server: --rate 0)
        config=TuiConfig(),  # the default look, whatever the user configured
        header_target=header_target,
        refresh_interval=refresh_interval,
        site_history=False,  # the user's cache never changes a screenshot
    )


async def _until(pilot: Any, predicate: Callable[[], bool], timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise TimeoutError("the demo exploration did not settle")
        await pilot.pause(0.05)


async def settle(app: Any, pilot: Any, timeout: float = 30.0) -> None:
    """Wait until the engine is idle and every pane has drawn its latest data (the Pilot tests
    use this too)."""
    for _ in range(20):  # workers may post results that make the panes refresh once more
        await _until(pilot, app.engine_idle, timeout)
        await _until(pilot, app.panes_quiet, timeout)
        await workers_done(app)
        await pilot.pause()
        if app.is_settled() and not any(w.is_running for w in app.workers):
            break


async def workers_done(app: Any) -> None:
    """Wait for every worker; a worker cancelled by a newer one (exclusive) is fine here."""
    for _ in range(100):
        pending = [w for w in app.workers if not w.is_finished]
        if not pending:
            return
        await asyncio.gather(*(w.wait() for w in pending), return_exceptions=True)


def _node(app: Any, name: str) -> int:
    for nid, node in app.tree.model.nodes.items():
        if node.url.endswith("/" + name) or (name == "/" and node.parent_id is None):
            return nid
    raise KeyError(name)


async def _select(app: Any, pilot: Any, name: str) -> None:
    nid = _node(app, name)
    app.tree.reveal(nid)
    await _until(pilot, lambda: app.selected_id == nid)
    await settle(app, pilot)


async def explore_all(app: Any, pilot: Any) -> None:
    """Open the demo site, expand everything (the cross-file checks follow by themselves on a set
    this small), open the whole tree."""
    await _until(pilot, lambda: app.root_opened and app.selected_id is not None)
    await settle(app, pilot)
    await pilot.press("e")
    await settle(app, pilot)
    app.tree.expand_loaded(app.tree.model.roots()[0])
    await settle(app, pilot)


async def _tab(app: Any, pilot: Any, key: str) -> None:
    app.tree.focus()
    await pilot.press(key)
    await settle(app, pilot)


async def scene(app: Any, pilot: Any, name: str) -> None:
    """Bring an explored app to one of SCENES (after explore_all)."""
    steps: dict[str, Callable[[], Awaitable[None]]] = {
        "main": lambda: _main(app, pilot),
        "overview": lambda: _file(app, pilot, "sitemap-products.xml.gz", "1"),
        "extensions": lambda: _file(app, pilot, "/", "2"),
        "lastmod": lambda: _lastmod(app, pilot),
        "issues": lambda: _file(app, pilot, "/", "4"),
        "urls": lambda: _file(app, pilot, "sitemap-blog.xml", "5"),
        "audit": lambda: _audit(app, pilot),
        "help": lambda: _help(app, pilot),
    }
    await steps[name]()
    app.clear_notifications()  # toasts time out: never part of a screenshot
    await pilot.pause()


async def _main(app: Any, pilot: Any) -> None:
    await _select(app, pilot, "sitemap_index.xml")
    await _tab(app, pilot, "1")


async def _file(app: Any, pilot: Any, name: str, key: str) -> None:
    await _select(app, pilot, name)
    await _tab(app, pilot, key)


async def _lastmod(app: Any, pilot: Any) -> None:
    await _file(app, pilot, "/", "3")
    # the focused chart scrolls to its cursor once its data is in, which may come before or
    # after the focus: the cursor on the first period puts the top in view either way
    await pilot.press("home")
    await settle(app, pilot)


async def _audit(app: Any, pilot: Any) -> None:
    """The pages of sitemap-pages.txt audited from the explorer (u, y): the URL table's audit
    columns, the demo's faulty pages among them (demo/pages.py)."""
    await _select(app, pilot, "sitemap-pages.txt")
    await pilot.press("u")
    await _until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen")
    ended = app.jobs.audits_ended
    await pilot.press("y")
    # the answer starts the audit on a later message: an idle engine may be the moment before it
    await _until(pilot, lambda: app.jobs.audits_ended > ended, 60)
    await settle(app, pilot, timeout=60)
    await _tab(app, pilot, "5")


async def _help(app: Any, pilot: Any) -> None:
    await _select(app, pilot, "sitemap_index.xml")
    await _tab(app, pilot, "1")
    # a toast still up (it times out after 5 s: up on a fast machine, gone on a slow one) would
    # stay visible behind the modal, where clearing it afterwards no longer repaints
    app.clear_notifications()
    await pilot.pause()
    await pilot.press("question_mark")
    await _until(pilot, lambda: type(app.screen).__name__ == "HelpScreen")
    await pilot.pause()


def earlier_demo(root: Path) -> Path:
    """A copy of the demo site at ``root`` as it was "before": three pages it no longer lists,
    two it did not list yet, a video sitemap it did not have, two posts dated otherwise."""
    import shutil

    from sitemap_tui.demo.server import default_site_root

    shutil.copytree(default_site_root(), root)
    pages = root / "sitemap-pages.txt"
    lines = pages.read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if line not in ("{{BASE}}/stores/harbour", "{{BASE}}/warranty")]
    pages.write_text("\n".join(kept + ["{{BASE}}/jobs", "{{BASE}}/press", "{{BASE}}/stores/airport"]) + "\n",
                     encoding="utf-8")
    blog = root / "sitemap-blog.xml"
    text = blog.read_text(encoding="utf-8")
    # the first post's lastmod moves forward since, the second's back
    text = text.replace("<lastmod>2024-01-01</lastmod>", "<lastmod>2023-11-01</lastmod>", 1)
    text = text.replace("<lastmod>2024-01-02</lastmod>", "<lastmod>2024-06-01</lastmod>", 1)
    blog.write_text(text, encoding="utf-8")
    index = root / "sitemap_index.xml"
    text = index.read_text(encoding="utf-8")
    start = text.index("  <sitemap>\n    <loc>{{BASE}}/sitemap-video.xml</loc>")
    end = text.index("</sitemap>\n", start) + len("</sitemap>\n")
    index.write_text(text[:start] + text[end:], encoding="utf-8")
    return root


def explore_earlier(port: int, db: Path) -> None:
    """The earlier demo site served on ``port`` (where the demo will be served next, so that its
    URLs are the same) and explored into ``db`` as `sitemap-tui validate --db` does."""
    import contextlib
    import io

    from sitemap_tui import cli
    from sitemap_tui.demo.server import DemoServer

    with tempfile.TemporaryDirectory(prefix="sitemap-tui-earlier-") as tmp:
        server = DemoServer(earlier_demo(Path(tmp) / "site"), port=port).start()
        try:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = cli.main(["validate", server.base_url + "/", "--db", str(db), "--fail-on", "never",
                                 "--workers", "0", "--no-history"])
            if code != 0:
                raise RuntimeError(f"exploring the earlier demo site failed: {err.getvalue()}")
        finally:
            server.stop()
    from sitemap_tui.engine.store import Store

    store = Store(db)  # dated as the demo's other dates are, so that the picture is the same each run
    try:
        store.set_meta("started", EARLIER_STARTED)
        store.commit()
    finally:
        store.close()


async def compare_scene(app: Any, pilot: Any, earlier: Path) -> None:
    """An explored app compared with ``earlier`` ("Compare with…"): badges, the Changes tab."""
    # the cross-file checks write findings after the fetches end: compared before they are all
    # in, the badges count some of them (the picture then depended on timing)
    await settle(app, pilot)
    app.start_comparison(earlier)
    await _until(pilot, lambda: app.comparison is not None)
    await settle(app, pilot)
    await _select(app, pilot, "/")
    await _tab(app, pilot, "6")
    app.clear_notifications()
    await pilot.pause()


async def write_screenshots(out: Path, size: tuple[int, int], scenes: tuple[str, ...] = SCENES,
                            suffix: str = "") -> list[Path]:
    from sitemap_tui.demo.server import DemoServer

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    server = _demo_server(DemoServer)
    with server, tempfile.TemporaryDirectory(prefix="sitemap-tui-shots-") as tmp:
        app = build_app(server.base_url, Path(tmp) / "demo.db")
        async with app.run_test(size=size) as pilot:
            await explore_all(app, pilot)
            for name in scenes:
                if type(app.screen).__name__ == "HelpScreen":
                    await pilot.press("escape")
                    await pilot.pause()
                await scene(app, pilot, name)
                path = out / f"{name}{suffix}.svg"
                path.write_text(app.export_screenshot(title="sitemap-tui"), encoding="utf-8")
                written.append(path)
    return written


def write_compare(out: Path, size: tuple[int, int]) -> list[Path]:
    """compare.svg: the demo site explored, compared with its earlier version (explored first,
    outside the app's event loop: it is a headless run of its own)."""
    from sitemap_tui.demo.server import DemoServer

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="sitemap-tui-shots-") as tmp:
        port = SCREENSHOT_PORT
        try:
            explore_earlier(port, Path(tmp) / "earlier.db")
        except OSError:  # the fixed port is busy: any port, the same for both versions
            probe = DemoServer().start()
            port = probe.port
            probe.stop()
            explore_earlier(port, Path(tmp) / "earlier.db")
        with DemoServer(port=port).start() as server:
            path = out / f"{COMPARE_SCENE}.svg"
            asyncio.run(_shoot_compare(server.base_url, Path(tmp), size, path))
    return [path]


async def _shoot_compare(base_url: str, tmp: Path, size: tuple[int, int], path: Path) -> None:
    app = build_app(base_url, tmp / "demo.db")
    async with app.run_test(size=size) as pilot:
        await explore_all(app, pilot)
        await compare_scene(app, pilot, tmp / "earlier.db")
        path.write_text(app.export_screenshot(title="sitemap-tui"), encoding="utf-8")


def _demo_server(cls: Any) -> Any:
    """The demo server on a fixed port when it is free (stable images), else any port."""
    try:
        return cls(port=SCREENSHOT_PORT).start()
    except OSError:
        return cls().start()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sitemap_tui.screenshots", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="screenshots", help="output directory (default: screenshots)")
    parser.add_argument("--size", default="140x42", help="terminal size WIDTHxHEIGHT (default: 140x42)")
    parser.add_argument("scenes", nargs="*", help=f"scenes to write (default: all of {', '.join(SCENES)})")
    args = parser.parse_args(argv)
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        parser.error("--size must look like 140x42")
    unknown = [s for s in args.scenes if s not in (*SCENES, COMPARE_SCENE)]
    if unknown:
        parser.error(f"unknown scene(s): {', '.join(unknown)}")
    scenes = tuple(s for s in args.scenes if s != COMPARE_SCENE) if args.scenes else SCENES
    written = asyncio.run(write_screenshots(Path(args.out), (width, height), scenes)) if scenes else []
    if not args.scenes:  # and the small-terminal layout (issue 18): tree narrowed, URLs elided
        small = tuple(s for s in SMALL_SCENES if s in scenes)
        written += asyncio.run(write_screenshots(Path(args.out), SMALL_SIZE, small, suffix="-80x24"))
    if not args.scenes or COMPARE_SCENE in args.scenes:
        written += write_compare(Path(args.out), (width, height))
    for path in written:
        print(path, file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

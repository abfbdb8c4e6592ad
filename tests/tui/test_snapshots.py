"""SVG snapshot tests (pytest-textual-snapshot) of the main screen and each pane on the demo site.

The demo server runs on a fixed port so URLs on screen are the same on every run; times are
shown as a constant. Skip them with ``-m "not snapshot"``; update with ``--snapshot-update``
(only on the pinned Textual version)."""

from __future__ import annotations

import fcntl
import tempfile
import time
from pathlib import Path

import pytest

from sitemap_tui.demo.server import DemoServer
from sitemap_tui.screenshots import SCENES, build_app, explore_all, scene
from sitemap_tui.tui.widgets import overview
from sitemap_tui.tui.widgets.url_table import columns as url_columns

pytestmark = pytest.mark.snapshot

SNAPSHOT_PORT = 47814
SIZE = (120, 40)


@pytest.fixture(scope="module")
def snap_server():
    # The port is one per machine: test runs side by side (xdist workers, which the
    # xdist_group in tests/conftest.py keeps to one, or two checkouts) take turns on it
    # through a lock file instead of skipping. A process that holds the port without the lock
    # (an older checkout's run) is waited for a while; only one that keeps it skips.
    lock_path = Path(tempfile.gettempdir()) / f"sitemap-tui-snapshot-port-{SNAPSHOT_PORT}.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for attempt in range(120):
            try:
                server = DemoServer(port=SNAPSHOT_PORT).start()
                break
            except OSError:
                if attempt == 119:
                    pytest.skip(f"port {SNAPSHOT_PORT} stayed busy; the snapshots need a fixed demo URL")
                time.sleep(0.5)
        try:
            yield server
        finally:
            server.stop()


@pytest.fixture(autouse=True)
def _stable_times(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(overview, "fmt_seconds", lambda s: "—" if s is None else "12 ms")
    # the audit scene's response times (the URL table's Time column)
    monkeypatch.setattr(url_columns, "time_text", lambda cells: "" if cells.response_time is None else "3ms")


@pytest.mark.parametrize("name", SCENES)
def test_scene(name, snap_compare, snap_server, tmp_path):
    app = build_app(snap_server.base_url, tmp_path / "snapshot.db", refresh_interval=0.1)

    async def run_before(pilot) -> None:
        await explore_all(app, pilot)
        await scene(app, pilot, name)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("name", ["main", "issues", "urls", "audit"])
def test_scene_80x24(name, snap_compare, snap_server, tmp_path):
    """The layout at 80 columns (issue 18): the tree narrowed, the panes readable, the footer's
    most needed keys in view."""
    app = build_app(snap_server.base_url, tmp_path / "snapshot.db", refresh_interval=0.1)

    async def run_before(pilot) -> None:
        await explore_all(app, pilot)
        await scene(app, pilot, name)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


COMPARE_PORT = 47815


def test_compare_scene(snap_compare, tmp_path):
    """Compare mode (issue 20 §2): the demo site against its earlier version, served on one fixed
    port in turn (the URLs of both must be the same), with the port's own lock as above."""
    from sitemap_tui.screenshots import compare_scene, explore_earlier

    lock_path = Path(tempfile.gettempdir()) / f"sitemap-tui-snapshot-port-{COMPARE_PORT}.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for attempt in range(120):
            try:
                explore_earlier(COMPARE_PORT, tmp_path / "earlier.db")
                break
            except OSError:
                if attempt == 119:
                    pytest.skip(f"port {COMPARE_PORT} stayed busy; the snapshot needs a fixed demo URL")
                time.sleep(0.5)
        with DemoServer(port=COMPARE_PORT).start() as server:
            app = build_app(server.base_url, tmp_path / "snapshot.db", refresh_interval=0.1)

            async def run_before(pilot) -> None:
                await explore_all(app, pilot)
                await compare_scene(app, pilot, tmp_path / "earlier.db")

            assert snap_compare(app, terminal_size=SIZE, run_before=run_before)

"""The engine in a process of its own, as ``sitemap-tui`` runs it (``engine_process=True``).

The other Pilot tests run the engine on a thread of the test's process (quicker to start); these prove
the same commands and messages work across the process boundary, and that the engine process is
started at lower priority, keeps its output off the terminal, and ends with the app.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from app_helpers import (
    FIXED_NOW,
    capture_notes,
    gated_demo_server,
    screen_text,
    settle,
    wait_for,
    wait_started,
)

from sitemap_tui.demo.server import DemoServer
from sitemap_tui.engine.explorer import ExploreOptions
from sitemap_tui.engine.model import NodeState
from sitemap_tui.session.host import ENGINE_NICENESS
from sitemap_tui.tui.app import prestart_multiprocessing
from sitemap_tui.tui.bridge import EngineProcess

pytestmark = pytest.mark.skipif(not hasattr(os, "nice"), reason="POSIX process priorities")


@pytest.fixture(autouse=True, scope="module")
def _tracker() -> None:
    prestart_multiprocessing()


def _niceness(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[16])


async def test_expand_all_through_the_engine_process(demo_server, make_app, tmp_path):
    app = make_app(demo_server.base_url + "/", engine_process=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_started(app, pilot)
        bridge = app.bridge
        assert isinstance(bridge, EngineProcess)
        pid = bridge.pid
        assert pid != os.getpid() and bridge.alive
        if os.path.exists(f"/proc/{pid}/stat"):
            assert _niceness(pid) - _niceness(os.getpid()) == min(ENGINE_NICENESS, 19 - _niceness(os.getpid()))
        await pilot.press("e")
        await settle(app, pilot, timeout=30)
        model = app.tree.model
        assert len(model.nodes) == 13
        assert all(n.state in (NodeState.DONE, NodeState.FAILED, NodeState.SKIPPED) for n in model.nodes.values())
        assert "436 URLs" in screen_text(app)
    # the app's exit stops the engine process, which closes the store (the WAL is checkpointed)
    assert not bridge.alive and bridge.exitcode == 0
    assert not (tmp_path / "exploration.log").exists(), "an empty log is not left behind"


def test_engine_output_goes_to_a_log_beside_the_exploration(tmp_path):
    """Run in a child: it redirects that process's own stdout/stderr."""
    import multiprocessing as mp

    def child(db: str) -> None:  # pragma: no cover - runs in the child
        from sitemap_tui.session.host import _quiet_stderr

        _quiet_stderr(Path(db))
        print("stray print")
        os.write(2, b"stray stderr\n")

    ctx = mp.get_context("fork")
    proc = ctx.Process(target=child, args=(str(tmp_path / "x.db"),))
    proc.start()
    proc.join(10)
    assert proc.exitcode == 0
    assert (tmp_path / "x.log").read_text() == "stray print\nstray stderr\n"


def _children(pid: int) -> set[int]:
    kids: set[int] = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            kids.update(int(x) for x in f.read().split())
    return kids


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads /proc")
async def test_engine_process_that_dies_is_reported_not_fatal(make_app):
    with DemoServer(delay=0.3) as srv:
        app = make_app(srv.base_url + "/", engine_process=True,
                       options=ExploreOptions(now=FIXED_NOW, workers=1))
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_started(app, pilot)
            notes = capture_notes(app)
            engine = app.bridge.pid
            await pilot.press("e")  # sitemaps are parsed in the worker processes
            await wait_for(pilot, lambda: len(_children(engine)) >= 1, what="the engine's worker process")
            workers = _children(engine)
            os.kill(engine, signal.SIGKILL)
            await wait_for(pilot, lambda: any("ended unexpectedly" in n for n in notes), what="the error notice")
            # its orphaned workers notice and end on their own
            await wait_for(pilot, lambda: not any(_alive(w) for w in workers), timeout=10, what="the workers to end")
            assert not app.bridge.running
            await pilot.press("e")  # a command now explains instead of failing
            await wait_for(pilot, lambda: any("not running" in n for n in notes), what="the not-running notice")
            assert app.is_running


async def test_cancel_reaches_the_engine_process(make_app, monkeypatch):
    with gated_demo_server(monkeypatch) as (srv, gate):
        app = make_app(srv.base_url + "/", engine_process=True)
        async with app.run_test(size=(120, 36)) as pilot:
            gate.open()
            await wait_started(app, pilot)
            gate.close()  # what expand all fetches stays in flight until the cancel
            await pilot.press("e")
            model = app.tree.model
            await wait_for(pilot, lambda: any(n.state in (NodeState.FETCHING, NodeState.PARSING)
                                              for n in model.nodes.values()), what="a fetch to start")
            await pilot.press("x")
            await wait_for(pilot, lambda: app.jobs.expand_all_node is None, timeout=20, what="expand all to stop")
            await settle(app, pilot)
            assert sum(n.state == NodeState.DONE for n in model.nodes.values()) < 8

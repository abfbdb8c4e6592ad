"""The explorer when its store or its engine fails (issue 15 §2): a file that is not an exploration
gets an error screen naming it (and stays as it was), a store that cannot be written and an
engine process that dies are said in the tree, the header and a notification that stays, and
nothing is shown as running once the process doing it is gone."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from app_helpers import ACTIVE, FIXED_NOW, screen_text, wait_for, wait_started

from sitemap_tui.demo.server import DemoServer
from sitemap_tui.engine.explorer import ExploreOptions
from sitemap_tui.engine.model import NodeState
from sitemap_tui.tui.app import prestart_multiprocessing

DAY = 24 * 3600


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record_notes(app: Any) -> list[tuple[str, str, float]]:
    """(title, message, seconds it stays) of every notification from now on."""
    notes: list[tuple[str, str, float]] = []
    original = app.notify

    def notify(message: Any, *args: Any, **kw: Any) -> Any:
        timeout = kw.get("timeout")
        notes.append((str(kw.get("title", "")), str(message), app.NOTIFICATION_TIMEOUT if timeout is None else timeout))
        return original(message, *args, **kw)

    app.notify = notify
    return notes


def header(app: Any) -> str:
    return screen_text(app).splitlines()[0]


# -- a file that is not an exploration ------------------------------------------------------------
def _text(path: Path) -> None:
    path.write_text("https://example.com/a\n")


def _sqlite(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes(body TEXT)")
    conn.execute("INSERT INTO notes VALUES ('mine')")
    conn.commit()
    conn.close()


def _newer(path: Path) -> None:
    from sitemap_tui.engine.store import SCHEMA_VERSION, Store

    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value=? WHERE key='schema'", (f'"{int(SCHEMA_VERSION) + 1}"',))
    conn.commit()
    conn.close()


@pytest.mark.parametrize(("kind", "says"), [
    ("text", "not an SQLite database"), ("sqlite", "tables notes"), ("newer", "newer sitemap-tui"),
])
async def test_opening_a_file_that_is_no_exploration_shows_an_error_screen(kind, says, make_app, tmp_path):
    path = tmp_path / "data.db"
    {"text": _text, "sqlite": _sqlite, "newer": _newer}[kind](path)
    before, files = sha(path), sorted(os.listdir(tmp_path))
    app = make_app(None, db_path=path)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: type(app.screen).__name__ == "StoreErrorScreen", what="the error screen")
        await pilot.pause()
        text = " ".join(screen_text(app).replace("█", " ").split())  # (the message wraps in a frame)
        assert "data.db" in text and says in text, text
        assert "Overview" not in text, "not an empty explorer behind it"
        assert app.bridge is None, "no engine: nothing would write into the file"
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_code == 2
    assert sha(path) == before
    assert sorted(os.listdir(tmp_path)) == files


async def test_ctrl_o_of_a_file_that_is_no_exploration_keeps_the_one_shown(make_app, demo_server, tmp_path):
    other = tmp_path / "other.db"
    _sqlite(other)
    before = sha(other)
    app = make_app(demo_server.base_url + "/sitemap.xml", options=ExploreOptions(now=FIXED_NOW, workers=0))
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_started(app, pilot)
        nodes = dict(app.tree.model.nodes)
        await app.open_path(other)
        await wait_for(pilot, lambda: type(app.screen).__name__ == "StoreErrorScreen", what="the error screen")
        await pilot.pause()
        assert "other.db" in " ".join(screen_text(app).split())
        await pilot.press("escape")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "MainScreen", what="the explorer again")
        assert app.is_running and app.tree.model.nodes.keys() == nodes.keys()
        assert app.bridge is not None and app.bridge.running, "the exploration shown goes on"
    assert sha(other) == before


# -- the engine process dies ----------------------------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "nice"), reason="POSIX processes")
async def test_an_engine_process_that_dies_is_said_and_nothing_shows_as_running(make_app):
    prestart_multiprocessing()
    with DemoServer(delay=0.5) as srv:
        app = make_app(srv.base_url + "/", engine_process=True, options=ExploreOptions(now=FIXED_NOW, workers=0))
        async with app.run_test(size=(160, 40)) as pilot:
            await wait_started(app, pilot)
            notes = record_notes(app)
            model = app.tree.model
            await pilot.press("e")
            await wait_for(pilot, lambda: any(n.state in ACTIVE for n in model.nodes.values()), what="a fetch")
            fetching = [nid for nid, n in model.nodes.items() if n.state in ACTIVE]
            os.kill(app.bridge.pid, signal.SIGKILL)
            await wait_for(pilot, lambda: any("ended unexpectedly" in m for _, m, _ in notes), what="the notice")
            await pilot.pause()
            assert not app.bridge.running
            # nothing spins for a process that is gone: the files it was fetching are stopped
            assert not any(n.state in ACTIVE for n in model.nodes.values())
            for nid in fetching:
                assert model.nodes[nid].state == NodeState.FAILED and "engine" in (model.nodes[nid].error or "")
                assert "stopped" in app.tree.label_for(nid).plain
            assert not app.tree.tick_spinner()
            # the notification stays (until clicked), the header says so
            (stays,) = [t for _, m, t in notes if "ended unexpectedly" in m]
            assert stays > DAY
            line = header(app)
            assert "engine stopped" in line and "fetching" not in line and "expanding" not in line
            await pilot.press("e")  # explained, not sent
            await wait_for(pilot, lambda: any("not running" in m for _, m, _ in notes[1:]), what="the refusal")


# -- the store cannot be written --------------------------------------------------------------------
async def test_a_store_that_cannot_be_written_reaches_the_ui_and_stays_said(demo_server, make_app, tmp_path):
    db = tmp_path / "exploration.db"
    app = make_app(demo_server.base_url + "/", db_path=db, options=ExploreOptions(now=FIXED_NOW, workers=0))
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_started(app, pilot)
        notes = record_notes(app)
        store = app.bridge.host.explorer.store
        # the file may not grow any more: SQLite answers "database or disk is full", as it does
        # when the disk is full (the engine is idle: its connection is free)
        pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
        store.conn.execute(f"PRAGMA max_page_count={pages}")
        await pilot.press("e")
        await wait_for(pilot, lambda: any("disk is full" in m for _, m, _ in notes), timeout=30, what="the store error")
        await wait_for(pilot, lambda: not any(n.state in ACTIVE for n in app.tree.model.nodes.values()),
                       what="no file shown as fetching")
        (note,) = [(title, m, t) for title, m, t in notes if "disk is full" in m]
        assert str(db) in note[1] and note[2] > DAY
        assert app.jobs.expand_all_node is None
        line = header(app)
        assert "cannot be written" in line and "expanding" not in line
        assert any("stopped" in app.tree.label_for(nid).plain for nid in app.tree.model.nodes), \
            "the file being fetched says it was stopped"
        await pilot.press("k")  # the cross-file checks would write: refused with the reason
        await wait_for(pilot, lambda: sum("disk is full" in m for _, m, _ in notes) >= 2, what="the refusal")


async def test_a_store_of_an_earlier_version_still_opens_and_is_upgraded_in_place(make_app, tmp_path):
    """Saved explorations stay readable: one written before the key columns existed opens as
    usual, and its engine (the writer) adds them."""
    from sitemap_tui.engine.model import Entry, Node, NodeKind, NodeState
    from sitemap_tui.engine.store import Store

    path = tmp_path / "old.db"
    store = Store(path)
    store.add_node(Node(id=1, url="https://a.com/s.xml", kind=NodeKind.URLSET, state=NodeState.DONE))
    store.add_entries(1, [Entry(loc="https://a.com/p")])
    store.conn.execute("DROP INDEX entries_nokey")
    for column in ("key", "alt_n", "alt_h"):
        store.conn.execute(f"ALTER TABLE entries DROP COLUMN {column}")
    store.close()
    app = make_app(None, db_path=path)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: app.bridge is not None and app.bridge.running, what="the engine")
        assert type(app.screen).__name__ == "MainScreen"
        assert [n.url for n in app.tree.model.nodes.values()] == ["https://a.com/s.xml"]
    conn = sqlite3.connect(path)
    try:
        assert {"key", "alt_n", "alt_h"} <= {r[1] for r in conn.execute("PRAGMA table_info(entries)")}
        assert conn.execute("SELECT loc FROM entries").fetchall() == [("https://a.com/p",)]
    finally:
        conn.close()


async def test_an_earlier_versions_store_that_cannot_be_written_shows_its_issues(make_app, tmp_path, monkeypatch):
    """A store from before nodes.place in a file this user cannot write gets no engine, so it is
    never upgraded: the Issues pane, which sorts by the tree, said "no such column: place"."""
    import os

    from sitemap_tui.engine.model import Entry, Issue, Node, NodeKind, NodeState, Severity
    from sitemap_tui.engine.store import Store
    from sitemap_tui.tui.widgets.issues_pane import IssuesPane

    path = tmp_path / "old.db"
    store = Store(path)
    store.add_node(Node(id=1, url="https://a.com/s.xml", kind=NodeKind.URLSET, state=NodeState.DONE))
    store.add_entries(1, [Entry(loc="https://a.com/p")])
    store.add_issues([Issue("priority-invalid", Severity.ERROR, "priority 'x' is not a number", node_id=1, line=3)],
                     [None])
    store.conn.execute("ALTER TABLE nodes DROP COLUMN place")
    store.close()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if str(p) == str(path) and mode & os.W_OK
                        else real(p, mode, **kw))
    app = make_app(None, db_path=path)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: app.selected_id is not None, what="the first selection")
        assert app.bridge is None  # read-only: no engine, nothing upgraded
        await pilot.press("4")
        pane = app.query_one(IssuesPane)
        await wait_for(pilot, lambda: pane.is_current and bool(pane.issue_list.root.children), what="the rules")
        rule = pane.issue_list.root.children[0].children[0]
        rule.expand()
        await wait_for(pilot, lambda: rule.children and "loading" not in str(rule.children[0].label),
                       what="the rule's issues")
        assert "priority 'x' is not a number" in str(rule.children[0].label)
    conn = sqlite3.connect(path)
    try:
        assert "place" not in {r[1] for r in conn.execute("PRAGMA table_info(nodes)")}  # left as it was
    finally:
        conn.close()

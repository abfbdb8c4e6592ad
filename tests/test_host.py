"""EngineHost: commands in, plain picklable messages out (what crosses to the interface's process)."""

from __future__ import annotations

import asyncio
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

from host_wire import as_tuple, command

from sitemap_tui.engine.discover import Target
from sitemap_tui.session.host import EngineHost


async def _drive(
    db: Path,
    commands: list[tuple[Any, ...]],
    until: int,
    react: Callable[[EngineHost, tuple[Any, ...]], None] | None = None,
    wait_for: Callable[[tuple[Any, ...]], bool] | None = None,
) -> list[tuple[Any, ...]]:
    """Start a host, send the commands once it is ready, stop after ``until`` done/error messages
    (or at the first message ``wait_for`` accepts). ``react(host, msg)`` sees every message first
    (on whatever thread posted it)."""
    got: list[tuple[Any, ...]] = []
    finished = asyncio.Event()
    loop = asyncio.get_running_loop()
    host: EngineHost

    def post(message: Any) -> None:
        pickle.dumps(message)  # everything a host says must cross a process boundary
        msg = as_tuple(message)
        got.append(msg)
        if react is not None:
            react(host, msg)
        if msg[0] == "ready":
            for cmd in commands:
                host.command(command(*cmd))
        done = wait_for(msg) if wait_for is not None else sum(m[0] in ("done", "error") for m in got) >= until
        if done:
            loop.call_soon_threadsafe(finished.set)

    host = EngineHost(post, db, checker_factory=None)
    server = asyncio.create_task(host.serve())
    await asyncio.wait_for(finished.wait(), 30)
    host.command(command("stop"))
    await asyncio.wait_for(server, 30)
    return got


async def test_engine_on_a_saved_store_indexes_it_without_being_asked(tmp_path, monkeypatch):
    """A saved exploration reopened (no target opened): the idle engine builds the search index
    it may lack, and the cross-file rules read its robots.txt from the store."""
    import sitemap_tui.session.host as host_module
    from sitemap_tui.engine.store import Store

    monkeypatch.setattr(host_module, "SEARCH_MIN_ENTRIES", 1)
    db = tmp_path / "saved.db"
    _store_with_a_duplicate(db)
    store = Store(db)
    store.set_meta("robots:https://a.com/robots.txt", "User-agent: *\nDisallow: /p3\n")
    store.close()
    got = await _drive(db, [], until=0, wait_for=lambda m: m[0] == "search" and m[1] == m[2])
    assert [m for m in got if m[0] == "search"][-1] == ("search", 4, 4)
    store = Store(db, readonly=True)
    assert store.search_upto() == 4
    store.close()
    got = await _drive(db, [("crossfile",)], until=1)
    assert [m for m in got if m[0] == "done"] == [("done", "crossfile", None, 2)]
    assert _rules(db) == ["cross-duplicate-url", "robots-url-disallowed"]


async def test_commands_answer_with_plain_messages(demo_server, tmp_path):
    got = await _drive(tmp_path / "e.db", [
        ("open", Target.parse(demo_server.base_url + "/sitemap.xml")),
        ("no-such-command",),
        ("expand", 987654),
    ], until=3)
    kinds = [m[0] for m in got]
    assert kinds[0] == "ready"
    assert "events" in kinds
    done = [m for m in got if m[0] == "done"]
    assert done == [("done", "open", None, done[0][3])] and isinstance(done[0][3], int)
    errors = {m[1]: m[2] for m in got if m[0] == "error"}
    assert "unknown engine command" in errors["no-such-command"]
    assert "unknown node" in errors["expand"]


async def test_a_store_that_cannot_open_is_an_error_message(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    got: list[tuple[Any, ...]] = []
    host = EngineHost(lambda m: got.append(as_tuple(m)), blocker / "e.db", checker_factory=None)
    await asyncio.wait_for(host.serve(), 10)
    assert [m[0] for m in got] == ["error"] and got[0][1] == "engine"


async def test_idle_engine_builds_the_search_index(demo_server, tmp_path, monkeypatch):
    import sitemap_tui.session.host as host_module
    from sitemap_tui.engine.store import EntryFilter, Store

    monkeypatch.setattr(host_module, "SEARCH_MIN_ENTRIES", 1)
    monkeypatch.setattr(host_module, "SEARCH_CHUNK", 5)
    got: list[tuple[Any, ...]] = []
    complete = asyncio.Event()
    host: EngineHost

    def post(message: Any) -> None:
        pickle.dumps(message)
        msg = as_tuple(message)
        got.append(msg)
        if msg[0] == "ready":
            host.command(command("open", Target.parse(demo_server.base_url + "/sitemap_index.xml")))
        if msg[:2] == ("done", "open"):
            host.command(command("expand-all", msg[3]))
        if msg[0] == "search" and msg[1] == msg[2]:
            complete.set()

    db = tmp_path / "e.db"
    host = EngineHost(post, db, checker_factory=None)
    server = asyncio.create_task(host.serve())
    await asyncio.wait_for(complete.wait(), 30)
    host.command(command("stop"))
    await asyncio.wait_for(server, 30)
    progress = [m for m in got if m[0] == "search"]
    assert len(progress) >= 1 and progress[-1][1] == progress[-1][2] > 0
    store = Store(db, readonly=True)
    total = store.conn.execute("SELECT MAX(id) FROM entries").fetchone()[0]
    assert store.search_upto() == total
    some = store.conn.execute("SELECT loc FROM entries ORDER BY id DESC LIMIT 1").fetchone()[0][-12:]
    assert store.count(EntryFilter(substring=some), search=True) == store.count(EntryFilter(substring=some)) >= 1
    store.close()


def _store_with_a_duplicate(db: Path) -> None:
    from sitemap_tui.engine.model import Entry, FoundBy, Node, NodeKind, NodeState
    from sitemap_tui.engine.store import Store

    store = Store(db)
    store.add_node(Node(id=1, url="https://a.com/index.xml", kind=NodeKind.INDEX, state=NodeState.DONE))
    for nid, name, locs in ((2, "a.xml", ["/p1", "/p2"]), (3, "b.xml", ["/p2", "/p3"])):
        store.add_node(Node(id=nid, url=f"https://a.com/{name}", kind=NodeKind.URLSET, state=NodeState.DONE,
                            found_by=FoundBy.INDEX, parent_id=1, depth=1))
        store.add_entries(nid, [Entry(loc="https://a.com" + loc, line=i + 3) for i, loc in enumerate(locs)])
    store.close()


def _rules(db: Path) -> list[str]:
    from sitemap_tui.engine.store import Store

    store = Store(db, readonly=True)
    try:
        return sorted(i.rule for i in store.issues())
    finally:
        store.close()


async def test_crossfile_checks_run_alone_then_commands_go_on(tmp_path):
    db = tmp_path / "c.db"
    _store_with_a_duplicate(db)
    got = await _drive(db, [("crossfile",), ("crossfile",), ("expand", 987654)], until=3)
    finished = [m[:2] for m in got if m[0] in ("done", "error")]
    # the second request is refused while the first runs; the expand waited for the checks
    assert finished == [("error", "crossfile"), ("done", "crossfile"), ("error", "expand")]
    assert [m[3] for m in got if m[:2] == ("done", "crossfile")] == [1]
    # progress: each step's label, all of them before the result
    steps = [i for i, m in enumerate(got) if m[0] == "crossfile"]
    assert [got[i][1] for i in steps][:3] == ["normalising the URLs", "collecting the hreflang links", "duplicate URLs"]
    assert max(steps) < next(i for i, m in enumerate(got) if m[:2] == ("done", "crossfile"))
    assert "already running" in next(m[2] for m in got if m[:2] == ("error", "crossfile"))
    assert _rules(db) == ["cross-duplicate-url"]


async def test_crossfile_checks_cancelled_leave_the_store_as_it_was(tmp_path):
    db = tmp_path / "c.db"
    _store_with_a_duplicate(db)
    await _drive(db, [("crossfile",)], until=1)
    assert _rules(db) == ["cross-duplicate-url"]
    got = await _drive(db, [("crossfile",), ("cancel",)], until=1)
    assert [m for m in got if m[0] == "done"] == [("done", "crossfile", None, "cancelled")]
    assert _rules(db) == ["cross-duplicate-url"]  # the earlier results survive the cancelled run


async def test_stopping_during_crossfile_checks_commits_nothing_of_them(tmp_path, monkeypatch):
    """The engine stops while the rules run: the thread ends before the store closes, and the
    half-written results are rolled back (closing would otherwise commit them)."""
    from sitemap_tui.engine.model import Issue, Severity
    from sitemap_tui.validate import crossfile

    db = tmp_path / "c.db"
    _store_with_a_duplicate(db)
    await _drive(db, [("crossfile",)], until=1)
    started = asyncio.Event()
    ended: list[str] = []

    def slow(store, *, robots=None, cancel=None, **_kw):
        store.conn.execute("DELETE FROM issues")  # what forgetting the earlier run does
        store.add_issues([Issue("cross-duplicate-url", Severity.INFO, "half-written", node_id=2)])
        loop.call_soon_threadsafe(started.set)
        assert cancel is not None and cancel.wait(10)  # a long statement, until interrupted
        ended.append("thread")
        raise crossfile.CrossFileCancelled("cancelled")

    monkeypatch.setattr(crossfile, "run_crossfile", slow)
    loop = asyncio.get_running_loop()
    got: list[tuple[Any, ...]] = []
    host = EngineHost(lambda m: got.append(as_tuple(m)) or (got[-1][0] == "ready" and host.command(command("crossfile"))), db,
                      checker_factory=None)
    server = asyncio.create_task(host.serve())
    await asyncio.wait_for(started.wait(), 10)
    host.command(command("stop"))
    await asyncio.wait_for(server, 15)
    assert ended == ["thread"]
    rules = _rules(db)
    assert rules == ["cross-duplicate-url"]  # the earlier run's issue, not the half-written one
    from sitemap_tui.engine.store import Store

    store = Store(db, readonly=True)
    try:
        assert all(i.message != "half-written" for i in store.issues())
    finally:
        store.close()


async def test_crossfile_checks_interrupted_mid_statement(tmp_path, monkeypatch):
    """x while a long statement runs: SQLite rolls the transaction back by itself when it
    interrupts a write; the host still reports the cancellation and the store is as before."""
    import time

    from sitemap_tui.engine.store.crossfile import CrossFileQueries

    db = tmp_path / "c.db"
    _store_with_a_duplicate(db)
    await _drive(db, [("crossfile",)], until=1)

    build_keys = CrossFileQueries.build_keys

    def slow_build_keys(self: Any) -> None:
        build_keys(self)
        # a write statement that runs for two seconds (0.5 s for each of the four keys)
        self.conn.create_function("slow", 1, lambda v: time.sleep(0.5) or v)
        self.conn.execute("UPDATE temp.cf_keys SET key = slow(key)")

    monkeypatch.setattr(CrossFileQueries, "build_keys", slow_build_keys)
    loop = asyncio.get_running_loop()

    def react(host: EngineHost, msg: tuple[Any, ...]) -> None:
        if msg == ("crossfile", "normalising the URLs"):  # the INSERT starts right after
            # (posted from the rules' thread: hand over to the loop first)
            loop.call_soon_threadsafe(loop.call_later, 0.3, host.command, command("cancel"))

    got = await _drive(db, [("crossfile",)], until=1, react=react)
    assert [m for m in got if m[0] in ("done", "error")] == [("done", "crossfile", None, "cancelled")]
    assert _rules(db) == ["cross-duplicate-url"]


async def test_crossfile_checks_asked_for_after_an_expand_all_wait_for_the_fetches(tmp_path):
    """The app asks for them by itself when an expand-all ends; a fetch the user started
    elsewhere may still be running. Asked with when_idle they wait for it instead of being
    refused, and x (cancel) while they wait ends them as cancelled."""
    db = tmp_path / "c.db"
    _store_with_a_duplicate(db)
    fetch_ends = asyncio.Event()

    def fetch_running(host: EngineHost, msg: tuple[Any, ...]) -> None:
        if msg[0] == "ready":  # (on the engine loop, before the commands are sent)
            host._spawn(fetch_ends.wait())
            asyncio.get_running_loop().call_later(0.3, fetch_ends.set)

    got = await _drive(db, [("crossfile", False), ("crossfile", True)], until=2, react=fetch_running)
    finished = [m for m in got if m[0] in ("done", "error")]
    assert finished[0][:2] == ("error", "crossfile") and "still being fetched" in finished[0][2]
    assert finished[1] == ("done", "crossfile", None, 1)
    assert _rules(db) == ["cross-duplicate-url"]

    def fetch_never_ends(host: EngineHost, msg: tuple[Any, ...]) -> None:
        if msg[0] == "ready":
            host._spawn(asyncio.Event().wait())  # (the host cancels it when it stops)

    got = await _drive(db, [("crossfile", True), ("cancel",)], until=1, react=fetch_never_ends)
    assert [m for m in got if m[0] in ("done", "error")] == [("done", "crossfile", None, "cancelled")]

"""The store on disk (``--db``, ``open``), as a user runs the commands: real processes against a real
server on 127.0.0.1, and the file checked byte for byte afterwards (issue 15 §2).

- a new run replaces the exploration a ``--db`` holds, and only once it is complete: a run that
  fails, is interrupted or cannot write keeps the previous file as it was;
- a file that is not a sitemap-tui store (another program's SQLite database, a text file, bytes)
  and a store written by a newer version are refused with one line and exit 2, and never changed;
- two runs on one ``--db`` at once: the second says the store is in use and exits 2;
- a store of an earlier version is still upgraded in place, so saved explorations stay readable.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import cli_process
import pytest
from werkzeug import Request, Response

from sitemap_tui.engine.store import SCHEMA_VERSION

STORE_VERSION = int(SCHEMA_VERSION)  # the store version this code writes

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def run(*args: str | Path, timeout: float = 60, **kw: object) -> subprocess.CompletedProcess[str]:
    return cli_process.run(
        [sys.executable, "-m", "sitemap_tui", *map(str, args)],
        capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, **kw,  # type: ignore[call-overload]
    )


def urlset(base: str, paths: list[str]) -> str:
    urls = "".join(f"<url><loc>{base}{p}</loc></url>\n" for p in paths)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n{urls}</urlset>\n'


def serve(httpserver, paths: list[str], name: str = "/sitemap.xml") -> str:  # type: ignore[no-untyped-def]
    httpserver.clear()
    httpserver.expect_request(name).respond_with_data(
        urlset("https://example.com", paths), content_type="application/xml")
    return httpserver.url_for(name)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tree(db: Path) -> tuple[list[str], list[str]]:
    """(root URLs, entry locs) of a store, read with a plain sqlite3 connection (immutable: a
    read-only connection would leave -wal/-shm files beside it)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    try:
        roots = [r for (r,) in conn.execute("SELECT url FROM nodes WHERE parent_id IS NULL ORDER BY id")]
        locs = [r for (r,) in conn.execute("SELECT loc FROM entries ORDER BY id")]
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()
    return roots, locs


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("sitemap-tui: error:")]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# -- a new run replaces the exploration ------------------------------------------------------------
@pytest.mark.parametrize("command", ["urls", "stats", "validate"])
def test_a_second_run_replaces_what_the_db_held(command: str, httpserver, tmp_path: Path) -> None:
    db = tmp_path / "site.db"
    url = serve(httpserver, ["/a", "/b", "/c"])
    assert run(command, url, "--db", db, "--workers", "0").returncode in (0, 1)
    assert tree(db) == ([url], ["https://example.com/a", "https://example.com/b", "https://example.com/c"])
    url = serve(httpserver, ["/d", "/e"])
    proc = run(command, url, "--db", db, "--workers", "0")
    assert proc.returncode in (0, 1), proc.stderr
    # one exploration, the new one: today's main appended a second tree to the first
    assert tree(db) == ([url], ["https://example.com/d", "https://example.com/e"])
    assert listing(tmp_path) == ["site.db"], "no temporary store, lock or journal is left"


def test_a_db_given_as_a_symlink_is_written_through_it(httpserver, tmp_path: Path) -> None:
    """Found from outside: `--db cur.db`, a link to store/real.db, replaced the link with a
    regular file and left real.db stale; --output writes through a link (docs/safety.md)."""
    (tmp_path / "store").mkdir()
    real = tmp_path / "store" / "real.db"
    url = serve(httpserver, ["/a"])
    assert run("urls", url, "--db", real, "--workers", "0").returncode == 0
    link = tmp_path / "cur.db"
    link.symlink_to("store/real.db")
    url = serve(httpserver, ["/b", "/c"])
    proc = run("urls", url, "--db", link, "--workers", "0")
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and tree(real) == ([url], ["https://example.com/b", "https://example.com/c"])
    assert listing(tmp_path) == ["cur.db", "store"] and listing(tmp_path / "store") == ["real.db"]


@pytest.mark.parametrize("command", ["urls", "audit"])
def test_a_run_on_a_db_link_and_one_on_its_store_exclude_each_other(command: str, httpserver, tmp_path: Path) -> None:
    """Found by a review: an audit (or the explorer) given --db LINK locked beside the link, so a
    run on the store itself replaced what the audit was writing. Every command resolves --db."""
    from sitemap_tui.engine.store.file import StoreLock

    (tmp_path / "store").mkdir()
    real = tmp_path / "store" / "real.db"
    url = serve(httpserver, ["/a"])
    assert run("urls", url, "--db", real, "--workers", "0").returncode == 0
    if command == "audit":  # an audit stopped before its end: the next one continues it
        from sitemap_tui.engine.store import Store
        from sitemap_tui.session.audit import AUDIT_STATE, PARTIAL

        store = Store(real)
        store.set_meta(AUDIT_STATE, PARTIAL)
        store.commit()
        store.close()
    link = tmp_path / "cur.db"
    link.symlink_to("store/real.db")
    lock = StoreLock.acquire(real)  # another run holds the store itself
    try:
        proc = run(command, url, "--db", link, "--workers", "0", "--rate", "0") if command == "audit" \
            else run(command, url, "--db", link, "--workers", "0")
    finally:
        lock.release()
    assert proc.returncode == 2 and "in use by another sitemap-tui process" in proc.stderr, proc.stderr


def test_a_failed_run_keeps_the_previous_exploration_byte_for_byte(httpserver, tmp_path: Path) -> None:
    db = tmp_path / "site.db"
    url = serve(httpserver, ["/a", "/b"])
    assert run("urls", url, "--db", db, "--workers", "0").returncode == 0
    before = sha(db)
    proc = run("urls", "http://127.0.0.1:9/sitemap.xml", "--db", db, "--workers", "0")
    assert proc.returncode == 2
    assert sha(db) == before
    assert listing(tmp_path) == ["site.db"]
    assert tree(db) == ([url], ["https://example.com/a", "https://example.com/b"])


def test_a_target_that_answers_with_an_error_is_a_result_and_replaces(httpserver, tmp_path: Path) -> None:
    """An HTTP error or a file that is no sitemap is what the target says now (with findings,
    for `open` and `validate`): it replaces the previous exploration. A broken sitemap is a
    finding, so validate exits 1 (issue 16's exit-code contract)."""
    db = tmp_path / "site.db"
    url = serve(httpserver, ["/a"])
    assert run("validate", url, "--db", db, "--workers", "0").returncode in (0, 1)
    httpserver.clear()
    httpserver.expect_request("/sitemap.xml").respond_with_data(
        '<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY a "b">]>\n<urlset/>', content_type="application/xml")
    assert run("validate", url, "--db", db, "--workers", "0").returncode == 1
    conn = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    try:
        assert conn.execute("SELECT url, state FROM nodes").fetchall() == [(url, "failed")]
        assert ("xml-dtd-forbidden",) in conn.execute("SELECT rule FROM issues").fetchall()
    finally:
        conn.close()
    assert listing(tmp_path) == ["site.db"]


def _gate(httpserver, body: str) -> tuple[threading.Event, threading.Event]:  # type: ignore[no-untyped-def]
    """A sitemap whose answer waits for ``release``; ``asked`` is set when a run requested it."""
    asked, release = threading.Event(), threading.Event()

    def slow(_request: Request) -> Response:
        asked.set()
        release.wait(30)
        return Response(body, content_type="application/xml")

    httpserver.clear()
    httpserver.expect_request("/slow.xml").respond_with_handler(slow)
    return asked, release


def _wait(predicate: Callable[[], bool], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_an_interrupted_run_keeps_the_previous_exploration(httpserver, tmp_path: Path) -> None:
    db = tmp_path / "site.db"
    url = serve(httpserver, ["/a"])
    assert run("urls", url, "--db", db, "--workers", "0").returncode == 0
    before = sha(db)
    asked, release = _gate(httpserver, urlset("https://example.com", ["/z"]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "sitemap_tui", "urls", httpserver.url_for("/slow.xml"), "--db", str(db),
         "--workers", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
    )
    try:
        _wait(asked.is_set, "the run to fetch")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        release.set()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert sha(db) == before
    assert listing(tmp_path) == ["site.db"]


# -- files that are not a sitemap-tui store of this version ---------------------------------------
def _other_sqlite(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("INSERT INTO notes(body) VALUES ('my notes')")
    conn.commit()
    conn.close()


def _other_sqlite_wal(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE nodes(id INTEGER PRIMARY KEY)")  # one table name in common
    conn.commit()
    conn.close()


def _text(path: Path) -> None:
    path.write_text("https://example.com/a\nhttps://example.com/b\n")


def _gzip(path: Path) -> None:
    path.write_bytes(gzip.compress(b"<urlset/>" * 100))


def _store_of_version(path: Path, version: str) -> None:
    from sitemap_tui.engine.store import Store

    store = Store(path)
    store.set_meta("target", "https://example.com/")
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value=? WHERE key='schema'", (f'"{version}"',))
    conn.commit()
    conn.close()


def _newer(path: Path) -> None:
    _store_of_version(path, str(STORE_VERSION + 1))


FOREIGN: dict[str, Callable[[Path], None]] = {
    "sqlite": _other_sqlite, "sqlite-wal": _other_sqlite_wal, "text": _text, "gzip": _gzip,
    "newer": _newer,
}
COMMANDS: dict[str, tuple[str, ...]] = {
    # the target is never fetched: the store is refused first
    "urls": ("urls", "http://127.0.0.1:9/sitemap.xml", "--db"),
    "stats": ("stats", "http://127.0.0.1:9/sitemap.xml", "--db"),
    "validate": ("validate", "http://127.0.0.1:9/sitemap.xml", "--db"),
    "explore": ("explore", "http://127.0.0.1:9/sitemap.xml", "--db"),
    "open": ("open",),
}


@pytest.mark.parametrize("kind", list(FOREIGN))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_file_that_is_not_our_store_is_refused_and_left_as_it_was(command: str, kind: str, tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    FOREIGN[kind](path)
    before, files = sha(path), listing(tmp_path)
    # (the explorer would open a screen: today's main did, so it is bounded here)
    line = one_error_line(run(*COMMANDS[command], path, timeout=30))
    assert str(path) in line
    if kind == "newer":
        assert f"store version {STORE_VERSION + 1}" in line and f"up to {STORE_VERSION}" in line
    else:
        assert "not a sitemap-tui" in line
    assert sha(path) == before
    assert listing(tmp_path) == files, "nothing is written beside it either"


def test_a_directory_missing_folder_or_empty_file_is_one_line(tmp_path: Path) -> None:
    line = one_error_line(run("urls", "http://127.0.0.1:9/x.xml", "--db", tmp_path))
    assert "is a folder" in line
    line = one_error_line(run("urls", "http://127.0.0.1:9/x.xml", "--db", tmp_path / "no" / "x.db"))
    assert "does not exist" in line
    line = one_error_line(run("open", tmp_path / "missing.db"))
    assert "missing.db" in line
    (tmp_path / "empty.db").write_bytes(b"")
    line = one_error_line(run("open", tmp_path / "empty.db"))
    assert "is empty, not an exploration" in line
    assert (tmp_path / "empty.db").read_bytes() == b""


def test_the_explorer_does_not_replace_a_saved_exploration(httpserver, tmp_path: Path) -> None:
    """The interactive explorer has no moment when its run is complete (it grows as you open
    nodes), so it cannot keep the old exploration until then: it refuses, names --db and says how
    to reopen the saved one."""
    db = tmp_path / "site.db"
    url = serve(httpserver, ["/a"])
    assert run("urls", url, "--db", db, "--workers", "0").returncode == 0
    before = sha(db)
    line = one_error_line(run("explore", url, "--db", db, timeout=30))
    assert "--db" in line and f"sitemap-tui open {db}" in line
    assert sha(db) == before and listing(tmp_path) == ["site.db"]


# -- two runs on one store -------------------------------------------------------------------------
def test_a_second_run_on_a_store_in_use_exits_2_and_the_first_finishes(httpserver, tmp_path: Path) -> None:
    db = tmp_path / "site.db"
    url = serve(httpserver, ["/old"])
    assert run("urls", url, "--db", db, "--workers", "0").returncode == 0
    before = sha(db)
    asked, release = _gate(httpserver, urlset("https://example.com", ["/new1", "/new2"]))
    slow = httpserver.url_for("/slow.xml")
    first = subprocess.Popen(
        [sys.executable, "-m", "sitemap_tui", "urls", slow, "--db", str(db), "--workers", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
    )
    try:
        _wait(asked.is_set, "the first run to fetch")
        for second in (("urls", slow), ("validate", slow), ("explore", slow)):
            line = one_error_line(run(*second, "--db", db, "--workers", "0", timeout=30))
            assert "in use" in line and str(first.pid) in line, line
        assert sha(db) == before, "the old exploration stays until the first run is complete"
        release.set()
        out, err = first.communicate(timeout=60)
    finally:
        release.set()
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0, err
    assert out.splitlines() == ["https://example.com/new1", "https://example.com/new2"]
    assert tree(db) == ([slow], ["https://example.com/new1", "https://example.com/new2"])
    assert listing(tmp_path) == ["site.db"]


def test_the_lock_is_released_by_a_process_that_dies(tmp_path: Path) -> None:
    """A run killed with SIGKILL leaves its lock file behind; the kernel drops the lock itself."""
    from sitemap_tui.engine.store.file import StoreError, StoreLock

    db = tmp_path / "site.db"
    code = (
        "import sys, time\n"
        "from sitemap_tui.engine.store.file import StoreLock\n"
        "StoreLock.acquire(sys.argv[1]); print('locked', flush=True); time.sleep(60)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code, str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        with pytest.raises(StoreError, match=rf"in use .*{holder.pid}"):
            StoreLock.acquire(db)
    finally:
        holder.kill()
        holder.wait(10)
    lock = StoreLock.acquire(db)
    lock.release()
    assert not (tmp_path / "site.db.lock").exists()


def test_a_run_killed_mid_way_leaves_nothing_the_next_run_trips_on(httpserver, tmp_path: Path) -> None:
    db = tmp_path / "site.db"
    url = serve(httpserver, ["/a"])
    assert run("urls", url, "--db", db, "--workers", "0").returncode == 0
    before = sha(db)
    asked, release = _gate(httpserver, urlset("https://example.com", ["/z"]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "sitemap_tui", "urls", httpserver.url_for("/slow.xml"), "--db", str(db),
         "--workers", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
    )
    try:
        _wait(asked.is_set, "the run to fetch")
        proc.kill()
        proc.wait(10)
    finally:
        release.set()
    assert sha(db) == before
    assert any(name != "site.db" for name in listing(tmp_path)), "SIGKILL leaves its temporary files"
    url = serve(httpserver, ["/b"])
    assert run("urls", url, "--db", db, "--workers", "0").returncode == 0
    assert tree(db) == ([url], ["https://example.com/b"])
    assert listing(tmp_path) == ["site.db"], "the next run on the same --db removes them"


# -- a store that cannot be written ----------------------------------------------------------------
def _limit_file_size(limit: int) -> Callable[[], None]:
    def limit_child() -> None:  # runs in the child, before exec
        import resource

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return limit_child


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs RLIMIT_FSIZE and SIGXFSZ (POSIX)")
def test_a_store_that_cannot_be_written_ends_the_run_with_one_line(httpserver, tmp_path: Path) -> None:
    """A full disk, simulated with a file size limit on the child process: SQLite's writes fail
    like they do on a full disk. One line, exit 2, the previous exploration kept."""
    db = tmp_path / "site.db"
    url = serve(httpserver, ["/a"])
    assert run("urls", url, "--db", db, "--workers", "0").returncode == 0
    before = sha(db)
    url = serve(httpserver, [f"/page/{i:06d}/a-long-enough-path-segment" for i in range(20_000)])
    proc = run("urls", url, "--db", db, "--workers", "0", preexec_fn=_limit_file_size(256 * 1024))
    line = one_error_line(proc)
    assert "cannot write" in line and str(db) in line, line
    assert sha(db) == before
    assert listing(tmp_path) == ["site.db"]


# -- the store layer itself --------------------------------------------------------------------------
def test_inspect_reads_without_leaving_files_beside_a_wal_database(tmp_path: Path) -> None:
    from sitemap_tui.engine.store.file import StoreError, inspect_store

    path = tmp_path / "other.db"
    _other_sqlite_wal(path)
    before = listing(tmp_path)
    with pytest.raises(StoreError, match="not a sitemap-tui"):
        inspect_store(path)
    assert listing(tmp_path) == before


def test_inspect_tells_an_exploration_from_an_empty_or_missing_file(tmp_path: Path) -> None:
    from sitemap_tui.engine.model import Node, NodeKind, NodeState
    from sitemap_tui.engine.store import Store
    from sitemap_tui.engine.store.file import inspect_store

    assert inspect_store(tmp_path / "none.db") is None
    (tmp_path / "empty.db").write_bytes(b"")
    empty = inspect_store(tmp_path / "empty.db")
    assert empty is not None and not empty.holds_exploration
    store = Store(tmp_path / "x.db")
    store.set_meta("target", "https://example.com/")
    store.add_node(Node(id=1, url="https://example.com/", kind=NodeKind.SITE, state=NodeState.DONE))
    store.close()
    saved = inspect_store(tmp_path / "x.db")
    assert saved is not None and saved.holds_exploration and saved.version == STORE_VERSION
    assert saved.target == "https://example.com/"


@pytest.mark.parametrize("readonly", [False, True])
def test_store_refuses_a_newer_store_and_never_rewrites_it(readonly: bool, tmp_path: Path) -> None:
    from sitemap_tui.engine.store import Store, StoreError

    path = tmp_path / "new.db"
    _newer(path)
    before = sha(path)
    with pytest.raises(StoreError, match=rf"version {STORE_VERSION + 1}.*up to {STORE_VERSION}"):
        Store(path, readonly=readonly)
    assert sha(path) == before


def test_store_of_an_earlier_version_is_upgraded_in_place_and_stays_readable(tmp_path: Path) -> None:
    """What `open` does with an exploration saved by an earlier version: its engine's writer adds
    the columns added since (test_crossfile checks the rules give the same results on it)."""
    from sitemap_tui.engine.model import Entry, Node, NodeKind, NodeState
    from sitemap_tui.engine.store import EntryFilter, Store
    from sitemap_tui.engine.store.file import inspect_store

    path = tmp_path / "old.db"
    store = Store(path)
    store.add_node(Node(id=1, url="https://a.com/s.xml", kind=NodeKind.URLSET, state=NodeState.DONE))
    store.add_entries(1, [Entry(loc="https://a.com/p")])
    store.conn.execute("DROP INDEX entries_nokey")
    for table, column in (("entries", "key"), ("entries", "alt_n"), ("entries", "alt_h")):
        store.conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    store.close()
    old = inspect_store(path)
    assert old is not None and old.holds_exploration
    Store(path).close()  # the writer upgrades it
    reader = Store(path, readonly=True)
    try:
        columns = {r[1] for r in reader.conn.execute("PRAGMA table_info(entries)")}
        assert {"key", "alt_n", "alt_h"} <= columns
        assert [r.loc for r in reader.page(EntryFilter())] == ["https://a.com/p"]
        assert reader.get_meta("schema") == str(STORE_VERSION)
    finally:
        reader.close()


def test_a_write_failure_is_a_store_error_and_sticks(tmp_path: Path) -> None:
    """SQLite says "database or disk is full" (here: a page limit): every later write says the
    same, so a run cannot go on with half its results missing."""
    from sitemap_tui.engine.model import Entry, Node, NodeKind, NodeState
    from sitemap_tui.engine.store import Store, StoreError

    store = Store(tmp_path / "x.db")
    store.add_node(Node(id=1, url="https://a.com/s.xml", kind=NodeKind.URLSET, state=NodeState.DONE))
    store.commit()
    store.begin()
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count={pages}")
    with pytest.raises(StoreError, match=rf"{re.escape(str(tmp_path / 'x.db'))}: cannot write: .*full"):
        store.add_entries(1, [Entry(loc=f"https://a.com/{i}" + "x" * 200) for i in range(500)])
    with pytest.raises(StoreError, match="full"):
        store.set_meta("k", "v")  # a small write that would fit: refused all the same
    assert store.failure is not None
    store.close()  # no commit of a half-written run, no exception either


def test_lock_waits_for_nobody_and_names_the_holder(tmp_path: Path) -> None:
    from sitemap_tui.engine.store.file import StoreError, StoreLock

    db = tmp_path / "x.db"
    lock = StoreLock.acquire(db)
    try:
        assert (tmp_path / "x.db.lock").read_text().strip() == str(os.getpid())
        with pytest.raises(StoreError, match=rf"x.db: in use by another sitemap-tui process \(pid {os.getpid()}\)"):
            StoreLock.acquire(db)
    finally:
        lock.release()
    StoreLock.acquire(db).release()


def test_a_reader_of_another_programs_wal_database_leaves_nothing_beside_it(tmp_path: Path) -> None:
    """The explorer's panes open readers on the file they are given: one that is not a store
    must not get -wal/-shm files beside it from them."""
    from sitemap_tui.engine.store import Store, StoreError

    path = tmp_path / "other.db"
    _other_sqlite_wal(path)
    before, files = sha(path), listing(tmp_path)
    with pytest.raises(StoreError, match="not a sitemap-tui"):
        Store(path, readonly=True)
    assert sha(path) == before and listing(tmp_path) == files


async def test_a_second_engine_on_a_store_in_use_says_so_and_the_first_goes_on(tmp_path: Path) -> None:
    """What the explorer's engine does when another run holds its store (two `open` of one file)."""
    import asyncio

    from host_wire import as_tuple, command

    from sitemap_tui.session.host import EngineHost

    db = tmp_path / "e.db"
    loop = asyncio.get_running_loop()
    ready = asyncio.Event()

    def first_post(message: object) -> None:
        msg = as_tuple(message)
        if msg[0] == "ready":
            loop.call_soon_threadsafe(ready.set)

    first = EngineHost(first_post, db, checker_factory=None)
    serving = asyncio.create_task(first.serve())
    await asyncio.wait_for(ready.wait(), 10)
    got: list[tuple[object, ...]] = []
    second = EngineHost(lambda m: got.append(as_tuple(m)), db, checker_factory=None)
    await asyncio.wait_for(second.serve(), 10)
    assert [m[:2] for m in got] == [("error", "engine")]
    assert f"{db}: in use by another sitemap-tui process (pid {os.getpid()})" in str(got[0][2])
    assert first.explorer is not None, "the first engine is not disturbed"
    first.command(command("stop"))
    await asyncio.wait_for(serving, 10)
    assert not (tmp_path / "e.db.lock").exists()


def test_opening_a_saved_exploration_to_look_leaves_its_bytes(tmp_path: Path) -> None:
    """`open FILE.db` wrote the schema's version into it on every open: the file's bytes and its
    time changed when it was only viewed (a file kept in a repository showed as modified)."""
    from sitemap_tui.engine.store import Store

    path = tmp_path / "saved.db"
    sitemap = tmp_path / "s.xml"
    sitemap.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                       "<url><loc>https://example.com/a</loc></url></urlset>")
    proc = cli_process.run([sys.executable, "-m", "sitemap_tui", "urls", str(sitemap), "--db", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    before = hashlib.sha256(path.read_bytes()).hexdigest(), os.stat(path).st_mtime_ns
    store = Store(path)  # as the explorer opens it
    assert store.get_meta("target")
    store.close()
    assert (hashlib.sha256(path.read_bytes()).hexdigest(), os.stat(path).st_mtime_ns) == before
    assert not (tmp_path / "saved.db-wal").exists()


def test_a_reader_that_outlived_the_writer_leaves_no_log_once_folded(tmp_path: Path) -> None:
    """Found from outside: the explorer quit with its URL table's reader still open, and the
    .db alone was 4 KiB (a copy of it held no table), its exploration in the -wal beside it.
    fold_log (run when the explorer ends) writes the log back into the file."""
    from sitemap_tui.engine.store import Store, fold_log

    path = tmp_path / "x.db"
    store = Store(path)
    store.set_meta("target", "https://example.com/")
    store.commit()
    reader = Store(path, readonly=True)
    reader.get_meta("target")  # (a read: the reader holds the log open)
    store.close()
    assert Path(f"{path}-wal").stat().st_size > 0
    fold_log(path)
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
    copy = tmp_path / "copy.db"
    copy.write_bytes(path.read_bytes())  # the file alone, as a user copies it
    assert Store(copy, readonly=True).get_meta("target") == "https://example.com/"
    reader.close()


@pytest.mark.parametrize("fails", ["making the store", "its first write"])
def test_a_store_that_cannot_be_written_leaves_no_partial_files(tmp_path: Path, monkeypatch, fails: str) -> None:
    """Found from outside on a full tmpfs: `stats --db PATH` said the one-line error, but left
    .PATH.partial and its -wal/-shm beside PATH, holding the space until the next run."""
    import contextlib
    import io

    from sitemap_tui import cli
    from sitemap_tui.engine.store import run as store_run
    from sitemap_tui.engine.store.file import StoreError
    from sitemap_tui.engine.store.writer import Store

    def full(path: Path) -> StoreError:
        return StoreError(path, "cannot write: database or disk is full")

    if fails == "making the store":
        def make(partial: Path, shown_as: Path) -> Store:
            for suffix in ("", "-wal", "-shm"):  # what SQLite had made when the disk filled
                Path(f"{partial}{suffix}").write_bytes(b"x")
            raise full(shown_as)
        monkeypatch.setattr(store_run, "Store", make)
    else:
        def set_meta(self: Store, key: str, value: str) -> None:
            raise full(Path(self.path))
        monkeypatch.setattr(Store, "set_meta", set_meta)
    sitemap = tmp_path / "s.xml"
    sitemap.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/a</loc></url></urlset>')
    (tmp_path / "out").mkdir()
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(["stats", str(sitemap), "--db", str(tmp_path / "out" / "new.db")])
    assert code == 2 and "disk is full" in err.getvalue(), err.getvalue()
    assert listing(tmp_path / "out") == []


def test_inspecting_a_live_store_keeps_its_locks_and_its_log(tmp_path: Path) -> None:
    """Found from outside: the explorer's engine inspects its own live store (the recent
    explorations' list); the header read on a descriptor of its own, once closed, dropped every
    POSIX lock the process held on the file, SQLite's too. A `sqlite3 FILE.db "select ..."`
    of the user's then took the database as unused, folded the write-ahead log and deleted
    it, and the exploration's later writes (an audit's results) were lost for good. Near miss:
    with no inspection between, the same outside reader leaves the log alone."""
    from sitemap_tui.engine.model import Node, NodeKind, NodeState
    from sitemap_tui.engine.store import Store
    from sitemap_tui.engine.store.file import inspect_store

    for inspect in (False, True):
        path = tmp_path / f"live-{inspect}.db"
        store = Store(path)
        store.add_node(Node(id=1, url="https://example.com/", kind=NodeKind.SITE, state=NodeState.DONE))
        store.commit()
        store.begin()
        try:
            if inspect:
                assert inspect_store(path) is not None
            outside = subprocess.run([sys.executable, "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                                      "c.execute('select count(*) from nodes').fetchone(); c.close()", str(path)],
                                     capture_output=True, text=True, timeout=30)
            assert outside.returncode == 0, outside.stderr
            assert Path(f"{path}-wal").exists(), "the live store's log was deleted under it"
            store.add_node(Node(id=2, url="https://example.com/robots.txt", kind=NodeKind.ROBOTS, state=NodeState.DONE))
            store.commit()
        finally:
            store.close()
        check = sqlite3.connect(path)
        assert check.execute("select count(*) from nodes").fetchone() == (2,)
        check.close()

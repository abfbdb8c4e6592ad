"""Store.appending: a whole carried exploration is copied into the new store under a rollback
journal, so its pages are written once instead of twice through the WAL (issue 20 §3: a
re-exploration where every file answers 304 costs <= 10 % of the first), and only when no other
connection has the file open; the store is back in WAL mode afterwards."""

from __future__ import annotations

import os
from pathlib import Path

from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.schema import connect

ROWS = 3000
VALUE = "x" * 200  # ~600 kB in all: many pages appended past the file's end


def _fill(store: Store) -> None:
    store.conn.executemany("INSERT INTO meta(key, value) VALUES(?, ?)",
                           ((f"k{i}", VALUE) for i in range(ROWS)))


def _wal_bytes(path: Path) -> int:
    wal = Path(f"{path}-wal")
    return wal.stat().st_size if wal.exists() else 0


def test_appended_pages_skip_the_wal_and_the_store_stays_in_wal_mode(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    before = _wal_bytes(store.path)
    with store.appending():
        assert store.conn.execute("PRAGMA main.journal_mode").fetchone()[0] == "delete"
        _fill(store)
    assert store.conn.execute("PRAGMA main.journal_mode").fetchone()[0] == "wal"
    assert _wal_bytes(store.path) <= max(before, 64 * 1024)  # not the ~600 kB the rows took
    assert os.path.getsize(store.path) > ROWS * len(VALUE)
    store.set_meta("after", 1)  # later writes go through the WAL again
    store.close()
    conn = connect(store.path, readonly=True)
    assert conn.execute("SELECT count(*) FROM meta WHERE key LIKE 'k%'").fetchone()[0] == ROWS
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_with_a_reader_open_the_copy_runs_in_the_wal(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    store.publish()
    reader = connect(store.path, readonly=True)
    reader.execute("PRAGMA busy_timeout=50")
    reader.execute("SELECT count(*) FROM meta").fetchone()  # holds the file open, as the explorer's panes do
    with store.appending():
        assert store.conn.execute("PRAGMA main.journal_mode").fetchone()[0] == "wal"
        _fill(store)
    assert _wal_bytes(store.path) > ROWS * len(VALUE)
    assert reader.execute("SELECT count(*) FROM meta WHERE key LIKE 'k%'").fetchone()[0] == ROWS
    reader.close()
    store.close()

"""The store's connection: opening (and upgrading) a store file, transactions, meta values, and
the guard that turns a write SQLite refuses into a StoreError."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Self

from sitemap_tui.engine.keys import SIGNATURE_KEY_BYTES
from sitemap_tui.engine.store.file import StoreError, identify, inspect_store
from sitemap_tui.engine.store.schema import SCHEMA, SCHEMA_VERSION, connect, fill_places

SIGNATURE_KEY = "signature_key"  # meta: hex secret of the hreflang set signatures
MADE_BY_KEY = "made_by"  # meta: the User-Agent (name/version) of the sitemap-tui that explored it

CANNOT_WRITE = frozenset({
    sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN,
    sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_PERM, sqlite3.SQLITE_NOLFS,
})
"""SQLite's (primary) result codes that say the file cannot take a write: a full disk, an I/O error,
a read-only or damaged file. Others (an interrupted statement, a bug in a query) are not about
the store, and stay what they are."""


def writes(method: Callable[..., Any]) -> Callable[..., Any]:
    """A method that writes to the store: see :meth:`StoreBase.guarded`."""

    @functools.wraps(method)
    def guarded(self: StoreBase, *args: Any, **kwargs: Any) -> Any:
        with self.guarded():
            return method(self, *args, **kwargs)

    return guarded


class StoreBase:
    """A connection to a store file (the reads and writes are its subclasses').

    Only a sitemap-tui store of this version or an earlier one is opened (an earlier one is
    upgraded in place by the writer); anything else raises :class:`StoreError` before a byte of it
    is written. So does a write SQLite refuses (a full disk): from then on every write raises
    that same error, since the store no longer holds everything the run found."""

    def __init__(self, path: str | Path, *, readonly: bool = False, shown_as: str | Path | None = None,
                 immutable: bool = False) -> None:
        self.path = Path(path)
        self.shown = Path(shown_as) if shown_as is not None else self.path  # the name in messages
        self.readonly = readonly
        self.failure: StoreError | None = None  # the write that failed, raised again by every write
        self._lock = threading.RLock()
        self._signature_key: bytes | None = None  # read once (asked for every file and batch)
        self._in_tx = False
        if not readonly or not Path(f"{self.path}-wal").exists():
            # checked without a connection that could leave files beside another program's
            # database; a reader of a store being written (its log exists) checks on its own
            # connection, below
            inspect_store(self.path)
        try:
            self.conn = connect(self.path, readonly=readonly, immutable=immutable)
        except sqlite3.Error as exc:
            raise StoreError(self.shown, f"cannot be opened ({exc})") from exc
        try:
            if readonly:
                identify(self.conn, self.shown)
            else:
                with self.guarded():
                    # The store is a cache of what the web said: durability across power loss
                    # is not worth the fsyncs. Set before the switch to WAL, which on a new file
                    # otherwise writes its first page through a synced rollback journal (~40 % of
                    # making an empty store, measured on this box's disk).
                    self.conn.execute("PRAGMA synchronous=OFF")
                    self.conn.execute("PRAGMA journal_mode=WAL")
                    self.conn.executescript(SCHEMA)
                    self._add_missing_columns()
                    if self.get_meta("schema") != SCHEMA_VERSION:
                        # (only then: a write on every open changed a saved exploration's bytes
                        # and time when it was only viewed, `open FILE.db`)
                        self.set_meta("schema", SCHEMA_VERSION)
                    self.begin()
        except BaseException as exc:
            self.conn.close()
            if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, StoreError):
                raise StoreError(self.shown, f"cannot be opened ({exc})") from exc
            raise

    @contextlib.contextmanager
    def guarded(self) -> Iterator[None]:
        """Writes in here that SQLite refuses for the file's sake (CANNOT_WRITE) raise
        StoreError("FILE: cannot write: why"), and so does every write after the first such one."""
        if self.failure is not None:
            raise self.failure
        try:
            yield
        except sqlite3.Error as exc:
            code = None if isinstance(exc, StoreError) else getattr(exc, "sqlite_errorcode", None)
            if code is None or code & 0xFF not in CANNOT_WRITE:
                raise
            self.failure = StoreError(self.shown, f"cannot write: {exc}")
            raise self.failure from exc

    def _add_missing_columns(self) -> None:
        """A store written by an earlier version gains the columns added since, empty (NULL):
        the cross-file pass fills the keys in before it uses them."""
        for table, columns in (("entries", ("key TEXT", "alt_n INTEGER", "alt_h INTEGER")),
                               ("alternates", ("lang TEXT", "tgt TEXT", "media TEXT")),
                               ("nodes", ("unchanged_since TEXT", "place TEXT")),
                               ("coverage", ("page_row TEXT",)), ("audit_skipped", ("blocked_for TEXT",)),
                               ("issues", ("weight INTEGER NOT NULL DEFAULT 1",))):
            have = {row[1] for row in self.conn.execute(f"PRAGMA table_info({table})")}
            for column in columns:
                if column.split()[0] not in have:
                    self.conn.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
        # the tree's order of an earlier version's files: from the tree itself (a few ms per
        # thousand files), so its panes and reports sort as a new store's do
        if self.conn.execute("SELECT 1 FROM nodes WHERE place IS NULL LIMIT 1").fetchone():
            fill_places(self.conn, "main.nodes")
        # finds the rows to fill in without a scan (and stays empty once they are)
        self.conn.execute("CREATE INDEX IF NOT EXISTS entries_nokey ON entries(id) WHERE alt_n IS NULL")

    def signature_key(self) -> bytes:
        """The secret of this store's hreflang set signatures (engine.keys.set_signature),
        made on first use; every process that builds rows for this store gets it."""
        if self._signature_key is None:
            value = self.get_meta(SIGNATURE_KEY)
            if not isinstance(value, str):
                value = os.urandom(SIGNATURE_KEY_BYTES).hex()
                if not self.readonly:
                    self.set_meta(SIGNATURE_KEY, value)
            self._signature_key = bytes.fromhex(value)
        return self._signature_key

    # -- lifecycle -------------------------------------------------------------------------
    def close(self) -> None:
        """Commit and close; a store whose writes failed is closed without a commit."""
        with self._lock:
            try:
                if self._in_tx and self.failure is None:
                    self.commit()
            finally:
                self.conn.close()

    def discard(self) -> None:
        """Close without committing what the open transaction holds."""
        with self._lock:
            self.conn.close()

    def reader(self) -> Self:
        """A new read-only connection to the same file (for another thread)."""
        return type(self)(self.path, readonly=True)

    @writes
    def begin(self) -> None:
        if not self._in_tx:
            self.conn.execute("BEGIN")
            self._in_tx = True

    @writes
    def commit(self) -> None:
        if self._in_tx:
            self.conn.execute("COMMIT")
            self._in_tx = False

    def rollback(self) -> None:
        """Drop what the open transaction wrote and start a new one."""
        # an interrupted write statement makes SQLite roll the transaction back by itself
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")
        self._signature_key = None  # it may have been made in the transaction just undone
        self._in_tx = False
        self.begin()

    @contextlib.contextmanager
    def appending(self) -> Iterator[None]:
        """One transaction of rows appended to empty tables (a carried exploration's whole
        tables, ``store/carry.py``), under a rollback journal instead of the WAL when no other
        connection has the file open. Pages added past the file's end are not journaled, so each
        is written once; the WAL writes every page twice (the log, then the checkpoint): 170 MB
        more for 1 M URLs, ~0.3 s of the 2.3 s CPU of a re-run whose files all answered 304.
        Safe for the headless store, a partial file renamed into place only when its run is
        complete. With another connection open SQLite keeps the WAL, and the copy runs in it."""
        self.commit()
        with self.guarded():
            try:
                switched = self.conn.execute("PRAGMA main.journal_mode=DELETE").fetchone()[0] == "delete"
            except sqlite3.OperationalError:  # "database is locked": another connection reads it
                switched = False
        self.begin()
        yield  # (a failed copy leaves the transaction open: its run's store is dropped)
        self.commit()
        if switched:
            with self.guarded():
                self.conn.execute("PRAGMA main.journal_mode=WAL")
        self.begin()

    @writes
    def publish(self) -> None:
        """Commit what is pending, so other connections see it, and go on in a transaction."""
        if self._in_tx:
            self.commit()
            self.begin()

    @writes
    def set_meta(self, key: str, value: Any) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, json.dumps(value))
        )

    def get_meta(self, key: str, default: Any = None) -> Any:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

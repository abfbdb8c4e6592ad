"""The exploration file on disk: what a path holds, who may write it, and how a new run takes its
place.

- :func:`inspect_store` says whether a path is nothing yet, a sitemap-tui store (and which version),
  or something else; it reads without writing anything, so another program's database, a text
  file or a store of a newer version is refused before a byte of it could change.
- :class:`StoreLock` lets one process at a time write a store (``flock`` on ``FILE.lock`` beside
  it); a second run is told the store is in use, by which process.
- :func:`replace_store` puts a complete new exploration in place of the old one in one rename.

Every problem is a :class:`StoreError` with a one-line message naming the file: the command line
prints it and exits 2, the explorer shows it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

STORE_VERSION = 2
"""The store version this code writes (meta ``schema``). Earlier stores are upgraded in place
(store.Store adds the columns added since); a higher one was written by a newer sitemap-tui."""

OUR_TABLES = frozenset({"meta", "nodes", "entries"})
JOURNALS = ("-wal", "-shm", "-journal")
"""SQLite's companion files of a database (write-ahead log, its index, rollback journal)."""


class StoreError(sqlite3.DatabaseError):
    """A store that cannot be used or written, said in one line: ``FILE: reason``. (A kind of
    sqlite3.DatabaseError: the interface's readers, which already cope with a database that
    refuses a query, cope with this one too.) ``reason`` alone serves a caller that names the
    file its own way (``--db FILE: reason``)."""

    def __init__(self, path: str | Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = Path(path)
        self.reason = reason

    def __reduce__(self) -> tuple[type[StoreError], tuple[Path, str]]:
        return (StoreError, (self.path, self.reason))


@dataclass(frozen=True, slots=True)
class StoreFile:
    """What an existing file holds: a sitemap-tui store, possibly still empty."""

    path: Path
    version: int | None  # None: an empty database (nothing written yet)
    nodes: int = 0
    target: str | None = None

    @property
    def holds_exploration(self) -> bool:
        return self.nodes > 0


def inspect_store(path: str | Path) -> StoreFile | None:
    """None when nothing is at ``path``; else what the file holds. Raises StoreError for a file
    that is not a sitemap-tui store, or one written by a newer version. Writes nothing, not even
    the journal files SQLite would leave beside a database it reads."""
    path = Path(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        if not path.parent.is_dir():
            raise StoreError(path, f"its folder {path.parent} does not exist") from None
        return None
    except OSError as exc:
        raise StoreError(path, f"cannot be used ({exc.strerror or exc})") from exc
    if not path.is_file():
        raise StoreError(path, "is not a file")
    if st.st_size == 0:
        return StoreFile(path, None)  # SQLite's own idea of an empty database: nothing to lose
    # Read through SQLite alone, never a file descriptor of our own: closing any descriptor of a
    # file drops every POSIX lock this process holds on it (fcntl's rule), SQLite's included.
    # The explorer's engine inspects its own live store (the recent explorations' list); its
    # header read so let another program's connection take the database as unused, fold the
    # write-ahead log and delete it, and every later write of the exploration was lost (found
    # from outside, with `sqlite3 FILE.db "select ..."`). SQLite's own opens share one
    # descriptor per file within a process and keep it while a lock is held.
    try:
        conn = sqlite3.connect(_readonly_uri(path), uri=True)
    except sqlite3.Error as exc:
        raise _unreadable(path, exc) from exc
    try:
        try:
            conn.execute("PRAGMA schema_version").fetchone()
        except sqlite3.DatabaseError as exc:
            if "not a database" in str(exc):  # (SQLite checks the header: SQLITE_NOTADB)
                raise StoreError(path, "is not a sitemap-tui exploration (not an SQLite database); it was left "
                                       "as it is") from None
            raise _unreadable(path, exc) from exc
        return identify(conn, path)
    except StoreError:
        raise
    except sqlite3.Error as exc:
        raise StoreError(path, f"cannot be read as a database ({exc})") from exc
    finally:
        conn.close()


def _unreadable(path: Path, exc: sqlite3.Error) -> StoreError:
    if not os.access(path, os.R_OK):  # (SQLite says only "unable to open database file")
        return StoreError(path, "cannot be read (Permission denied)")
    return StoreError(path, f"cannot be read as a database ({exc})")


def identify(conn: sqlite3.Connection, path: Path) -> StoreFile:
    """What the database on ``conn`` is (see :func:`inspect_store`)."""
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not tables:
        return StoreFile(path, None)
    if not tables >= OUR_TABLES:
        some = ", ".join(sorted(tables)[:4]) + (", …" if len(tables) > 4 else "")
        raise StoreError(
            path, f"is not a sitemap-tui exploration (an SQLite database with the tables {some}); it was left as it is"
        )
    version = _version(conn)
    if version is None:
        raise StoreError(path, "is not a sitemap-tui exploration (it has no store version); it was left as it is")
    if version > STORE_VERSION:
        raise StoreError(
            path, f"was written by a newer sitemap-tui (store version {version}; this version reads "
            f"up to {STORE_VERSION}): update sitemap-tui to use it; it was left as it is"
        )
    nodes = int(conn.execute("SELECT COUNT(*) FROM (SELECT 1 FROM nodes LIMIT 1)").fetchone()[0])
    row = conn.execute("SELECT value FROM meta WHERE key='target'").fetchone()
    target = _json_text(row[0]) if row else None
    return StoreFile(path, version, nodes, target)


def _version(conn: sqlite3.Connection) -> int | None:
    """The store version in meta: the JSON string "2" so far (a number is taken too)."""
    row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    value = _json(row[0]) if row else None
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _json(value: object) -> object:
    """A meta value is JSON (None when it is not)."""
    import json

    try:
        return json.loads(value) if isinstance(value, str | bytes) else None
    except ValueError:
        return None


def _json_text(value: object) -> str | None:
    decoded = _json(value)
    return decoded if isinstance(decoded, str) else None


def _readonly_uri(path: Path) -> str:
    """A read-only URI for ``path``. Without a write-ahead log beside it the file is opened as
    immutable: SQLite then creates no ``-wal``/``-shm`` files, which a read-only connection to a
    WAL database would otherwise leave behind. With one (a store whose writer was killed), it is
    read through the log, or the last writes would be missed."""
    uri = path.resolve().as_uri() + "?mode=ro"
    if not Path(f"{path}-wal").exists():
        uri += "&immutable=1"
    return uri


# -- one writer at a time --------------------------------------------------------------------------
def lock_path(store: Path) -> Path:
    return store.with_name(store.name + ".lock")


class StoreLock:
    """An exclusive, non-blocking ``flock`` on ``STORE.lock``. The kernel drops it when its process
    ends, however it ends; the file itself goes on release (a killed run leaves it, harmlessly)."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, store: str | Path) -> StoreLock:
        import fcntl

        store = Path(store)
        path = lock_path(store)
        while True:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except FileNotFoundError:
                raise StoreError(store, f"its folder {store.parent} does not exist") from None
            except OSError as exc:
                raise StoreError(store, f"cannot create its lock file {path.name} ({exc.strerror or exc})") from exc
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read_pid(fd)
                os.close(fd)
                who = f" (pid {holder})" if holder else ""
                raise StoreError(
                    store, f"in use by another sitemap-tui process{who}: wait for it to end, or use another file"
                ) from None
            except OSError as exc:
                os.close(fd)
                raise StoreError(store, f"cannot be locked ({exc.strerror or exc})") from exc
            # the holder before us may have removed the file after we opened it: a lock on a
            # removed file excludes nobody, so take the one on the file that is there now
            with contextlib.suppress(FileNotFoundError):
                if os.path.samestat(os.fstat(fd), os.stat(path)):
                    break
            os.close(fd)
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        return cls(path, fd)

    def release(self) -> None:
        if self._fd is None:
            return
        # removed while still held: whoever opened it meanwhile sees it is gone and retries
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        os.close(self._fd)
        self._fd = None


def writer_of(store: str | Path) -> int | None:
    """The pid of the sitemap-tui process writing ``store`` now (its lock held), 0 when that
    process is not known, None when nothing writes it. Creates nothing: no lock file, no lock."""
    import fcntl

    try:
        fd = os.open(lock_path(Path(store)), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None  # no lock file: no writer
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _read_pid(fd) or 0
    except OSError:
        return None
    finally:
        os.close(fd)  # (closing drops a lock we took)
    return None


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


# -- a new run in place of the old one ----------------------------------------------------------------
def fold_log(store: str | Path) -> None:
    """Write the store's write-ahead log back into the file and empty it, so that the ``.db``
    alone holds the whole exploration (a user copies that file, not its ``-wal``). SQLite folds
    the log in when the last connection closes, but not when a reader outlived the writer: the
    explorer's quit left a 4 KiB file beside a log of hundreds. Nothing when the file is gone,
    or busy (another process reads it: folded when that one is done)."""
    path = Path(store)
    if not Path(f"{path}-wal").exists():
        return
    try:
        conn = sqlite3.connect(path, timeout=1.0)
    except sqlite3.Error:
        return
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.Error:
        pass
    finally:
        conn.close()


def partial_path(store: Path) -> Path:
    """Where a run writes its new exploration until it is complete: beside the store, hidden."""
    return store.with_name(f".{store.name}.partial")


def remove_partial(store: Path) -> None:
    """Remove a run's partial exploration (and its journals). Only with the store's lock held:
    then no other process is writing it, and one found is what a killed run left."""
    partial = partial_path(store)
    for name in (partial.name, *(partial.name + j for j in JOURNALS)):
        with contextlib.suppress(FileNotFoundError):
            (store.parent / name).unlink()


def replace_store(partial: Path, store: Path) -> None:
    """Put a closed, complete exploration in place of ``store`` (whose lock is held), atomically:
    at every moment ``store`` is the old exploration or the new one, never a mix or nothing."""
    _fsync(partial)
    # a killed writer of the old store may have left its write-ahead log: SQLite would apply it
    # to the new file (a different database) and corrupt it
    for journal in JOURNALS:
        with contextlib.suppress(FileNotFoundError):
            Path(f"{store}{journal}").unlink()
    os.replace(partial, store)
    _fsync_dir(store.parent)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every file system lets a directory be synced
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

"""Shards: the store rows a worker process builds, written by that worker into a SQLite file of its
own and copied from there into the store with ``INSERT … SELECT`` (issue 19, docs/scale.md "What
the store's process costs").

Why: the store's process is the single SQLite writer. Receiving pickled row batches and
``executemany``-ing them cost it ~4.4 s of CPU per million entry rows; copying rows another
process already wrote costs it ~1.5 s, and no row is pickled at all. A ``JobBatch`` then carries a
:class:`ShardRows` (where the rows are) instead of the rows.

How a shard stays bounded (it must never grow into a second copy of the store): a worker writes
into one file until it holds ``rotate`` entry rows, then seals it and starts the next one. The
pool tells each worker, through a shared counter, the last of its local entry ids the store has
copied (set after the batch was applied, or dropped); a sealed file whose rows are all copied is
deleted by its worker before its next write. So a worker's files hold at most the rows still in
flight (its results pipe and the per-file backlog) plus one file's worth.

The store attaches at most ``MAX_ATTACHED`` shard files at once (SQLite's limit is 10 by default;
64 workers take turns: least recently used first, and a worker's older file as soon as it writes
into a newer one). Every shard file lives in the pool's temp directory, removed when the pool
closes (the run ended, failed or was cancelled), by ``scratch`` after a signal or when a later run
finds it orphaned; a dead worker's files are removed when the pool notices the death.

The tables are the store's own (``schema.SCHEMA``'s statements for them, without indexes): the
copy is a column-for-column ``SELECT``, ids shifted into the store's range, in the same order and
batch by batch, as ``Store.add_rows`` would have written them."""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sitemap_tui.engine.store.rows import EntryRows, insert_entries
from sitemap_tui.engine.store.schema import SCHEMA

_ENTRY_VALUES = ("loc, line, lastmod_raw, lastmod, changefreq_raw, changefreq, priority_raw, priority,"
                " n_images, n_videos, n_news, n_alternates, title, key, alt_n, alt_h")
_ENTRY_COLUMNS = f"node_id, {_ENTRY_VALUES}"
# the extension tables, in the order add_rows writes them
_EXTENSIONS = ("images", "videos", "news", "alternates")
_TABLES = ("entries", *_EXTENSIONS)
ROTATE = 50_000  # entry rows per shard file before its worker starts the next one
MAX_ATTACHED = 8  # shard files attached to the store at once (SQLite allows 10 by default)


class ShardGone(RuntimeError):
    """The shard file a batch points to is gone (its worker died and its files were removed)."""


def shard_schema() -> list[str]:
    """The CREATE TABLE statements of the tables a shard holds, taken from the store's schema."""
    statements, part = [], ""
    for line in SCHEMA.splitlines(keepends=True):  # (a comment may hold a ';')
        part += line
        if sqlite3.complete_statement(part):
            statements.append(part.strip())
            part = ""
    out = []
    for table in _TABLES:
        head = re.compile(rf"CREATE TABLE IF NOT EXISTS {table}\(")
        out.append(next(s for s in statements if head.match(s)))
    return out


@dataclass(frozen=True, slots=True)
class ShardRows:
    """Where a batch's rows are: entry ids ``first`` … ``first + count - 1`` of the shard file
    ``path`` (local to it), and for each extension table the rowid span of its rows."""

    path: str
    worker: int
    first: int
    count: int
    spans: tuple[tuple[int, int], ...]  # (first rowid, last rowid) per extension table; (1, 0) none

    @property
    def last(self) -> int:
        return self.first + self.count - 1


def shard_dir_files(folder: Path, worker: int) -> list[Path]:
    """Every file of one worker's shards in ``folder`` (databases and their -wal / -shm)."""
    return sorted(folder.glob(f"w{worker}-*"))


class ShardWriter:
    """A worker's side: writes each batch's rows into its current shard file (one transaction
    per batch), seals a file at ``rotate`` entry rows, and deletes sealed files once
    ``copied()`` (the last local entry id the store took) passes their last row."""

    def __init__(self, folder: Path, worker: int, copied: Callable[[], int], rotate: int = ROTATE) -> None:
        self.folder = folder
        self.worker = worker
        self.copied = copied
        self.rotate = max(1, rotate)
        self._next_id = 1  # local entry ids run on across a worker's files: the watermark is one number
        self._next_rowid = [1] * len(_EXTENSIONS)
        self._generation = 0
        self._conn: sqlite3.Connection | None = None
        self._path = ""
        self._in_file = 0
        self._sealed: list[tuple[Path, int]] = []  # (file, its last local entry id)
        self._insert: dict[str, str] = {}

    def _open(self) -> None:
        self._generation += 1
        path = self.folder / f"w{self.worker}-{self._generation}.db"
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        # WAL: the store reads committed batches while this process writes the next ones;
        # a shard is scratch, so no fsyncs
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=OFF")
        for statement in shard_schema():
            conn.execute(statement)
        self._insert = {}
        for table in _EXTENSIONS:
            names = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
            self._insert[table] = (f"INSERT INTO {table}(rowid, {', '.join(names)})"
                                   f" VALUES({','.join('?' * (len(names) + 1))})")
        self._conn, self._path, self._in_file = conn, str(path), 0

    def _seal(self) -> None:
        assert self._conn is not None
        # the log into the file now, here: else the store's DETACH, the file's last
        # connection, would do it in the store's process (a checkpoint on close)
        self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._conn.close()
        self._sealed.append((Path(self._path), self._next_id - 1))
        self._conn = None

    def _forget_copied(self) -> None:
        upto = self.copied()
        while self._sealed and self._sealed[0][1] <= upto:
            path, _ = self._sealed.pop(0)
            remove_shard(path)

    def write(self, node_id: int, rows: EntryRows) -> ShardRows:
        self._forget_copied()
        if self._conn is not None and self._in_file >= self.rotate:
            self._seal()
        if self._conn is None:
            self._open()
        c = self._conn
        assert c is not None
        first = self._next_id
        c.execute("BEGIN")
        insert_entries(c, node_id, rows, first)
        spans = []
        for k, (table, items) in enumerate(zip(
                _EXTENSIONS, (rows.images, rows.videos, rows.news, rows.alternates), strict=True)):
            start = self._next_rowid[k]
            if items:
                c.executemany(
                    self._insert[table],
                    [(start + j, first + item[0], *item[1:]) for j, item in enumerate(items)],
                )
            self._next_rowid[k] = start + len(items)
            spans.append((start, start + len(items) - 1))
        c.execute("COMMIT")
        self._next_id = first + len(rows.entries)
        self._in_file += len(rows.entries)
        return ShardRows(self._path, self.worker, first, len(rows.entries), tuple(spans))

    def close(self) -> None:
        """Close the current file (the pool removes the folder)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def remove_shard(path: Path) -> None:
    """A shard file and SQLite's files beside it (a -journal too: a worker killed while its new
    file switched to WAL leaves the rollback journal of that switch)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


class ShardCopier:
    """The store's side: attaches shard files (at most MAX_ATTACHED at once) and copies a batch's
    rows into the store's tables with ids starting at the store's next id."""

    def __init__(self, conn: sqlite3.Connection, commit: Callable[[], None], begin: Callable[[], None]) -> None:
        self.conn = conn
        self._commit = commit
        self._begin = begin
        self._attached: OrderedDict[str, str] = OrderedDict()  # path -> alias, least recent first
        self._free = [f"shard{i}" for i in range(MAX_ATTACHED)]
        self._cols: dict[str, str] = {}

    def _alias(self, shard: ShardRows) -> str:
        alias = self._attached.get(shard.path)
        if alias is not None:
            self._attached.move_to_end(shard.path)
            return alias
        # a worker writes into one file at a time: its older one is done with
        owner = _worker_of(shard.path)
        stale = [p for p in self._attached if _worker_of(p) == owner]
        if not self._free and not stale:
            stale = [next(iter(self._attached))]
        if stale:
            # DETACH is refused inside a transaction: what is pending is committed first (a commit
            # the next batch would have made anyway)
            self._commit()
            try:
                for path in stale:
                    name = self._attached.pop(path)
                    self.conn.execute(f"DETACH DATABASE {name}")
                    self._free.append(name)
            finally:
                self._begin()
        if not Path(shard.path).exists():  # ATTACH would create an empty database
            raise ShardGone(f"shard file {shard.path} is gone")
        alias = self._free.pop()
        try:
            self.conn.execute(f"ATTACH DATABASE ? AS {alias}", (shard.path,))
        except sqlite3.Error as exc:
            self._free.append(alias)
            raise ShardGone(f"shard file {shard.path} cannot be read: {exc}") from exc
        self._attached[shard.path] = alias
        return alias

    def copy(self, node_id: int, shard: ShardRows, first: int) -> list[int]:
        """Copy the batch as entry ids ``first`` …; returns them in order."""
        alias = self._alias(shard)
        shift = first - shard.first
        c = self.conn
        sql = (f"INSERT INTO entries(id, {_ENTRY_COLUMNS}) SELECT id + ?, ?, {_ENTRY_VALUES}"
               f" FROM {alias}.entries WHERE id BETWEEN ? AND ? ORDER BY id")
        params = (shift, node_id, shard.first, shard.last)
        try:
            if c.execute(sql, params).rowcount != shard.count:
                # the store's open transaction read this shard before the batch was written
                # there (WAL: a reader keeps its snapshot): nothing was copied; a new
                # transaction sees the batch
                self._commit()
                self._begin()
                if c.execute(sql, params).rowcount != shard.count:
                    raise ShardGone(f"shard file {shard.path} lacks the rows of a batch")
            for table, (lo, hi) in zip(_EXTENSIONS, shard.spans, strict=True):
                if hi >= lo:
                    rest = self._columns(alias, table)
                    c.execute(
                        f"INSERT INTO main.{table}(entry_id, {rest}) SELECT entry_id + ?, {rest}"
                        f" FROM {alias}.{table} WHERE rowid BETWEEN ? AND ? ORDER BY rowid",
                        (shift, lo, hi),
                    )
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                raise ShardGone(f"shard file {shard.path} is gone") from exc
            raise
        return list(range(first, first + shard.count))

    def _columns(self, alias: str, table: str) -> str:
        """The table's columns after entry_id, by name (a store upgraded from an earlier version
        has them in the order they were added)."""
        cols = self._cols.get(table)
        if cols is None:
            names = [row[1] for row in self.conn.execute(f"PRAGMA {alias}.table_info({table})")]
            cols = self._cols[table] = ", ".join(n for n in names if n != "entry_id")
        return cols

    def detach_all(self) -> None:
        """Let go of every shard file (outside a transaction)."""
        for alias in self._attached.values():
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute(f"DETACH DATABASE {alias}")
        self._free += list(self._attached.values())
        self._attached.clear()


def _worker_of(path: str) -> tuple[int, Path]:
    """The worker a shard file belongs to (its name is ``w<worker>-<generation>.db``)."""
    p = Path(path)
    return int(p.name[1:].split("-", 1)[0]), p.parent

"""The exploration store: one SQLite file (WAL) per exploration.

One writer (the engine) appends in batches; any number of readers (the TUI's URL table, export,
the cross-file rules) open their own connection. Entry listings are keyset-paged so the cost of a
page does not grow with its position.

The package, bottom up: ``file`` (what a path holds, the lock, replacing a store), ``schema``
(tables, connection), ``search`` (the URL search index), ``rows`` (row types), ``base`` (the
connection's lifecycle), ``reads`` and ``writer`` (the Store class), ``run`` (a headless run's
store), ``shard`` (the rows a worker writes for the store to copy); one query module per client
beside them (``crossfile``, ``deep``, ...), so no SQL on these tables lives outside this package.
"""

from __future__ import annotations

from sitemap_tui.engine.store.base import CANNOT_WRITE, MADE_BY_KEY, SIGNATURE_KEY
from sitemap_tui.engine.store.file import (
    STORE_VERSION,
    StoreError,
    StoreLock,
    fold_log,
    inspect_store,
)
from sitemap_tui.engine.store.rows import (
    ENTRY_COLUMNS,
    EntryFilter,
    EntryRow,
    EntryRows,
    IssueRow,
    IssueScope,
    entry_rows,
)
from sitemap_tui.engine.store.run import StoreRun
from sitemap_tui.engine.store.schema import (
    EXTENSIONS,
    INDEXES,
    NODE_STAT_COLUMNS,
    SCHEMA,
    SCHEMA_VERSION,
    SORTS,
    connect,
    priority_bucket,
)
from sitemap_tui.engine.store.search import (
    SEARCH_SQL,
    SEARCH_TABLE,
    SEARCH_UPTO,
    search_candidates,
    search_glob,
)
from sitemap_tui.engine.store.shard import ShardGone, ShardRows, ShardWriter, remove_shard
from sitemap_tui.engine.store.writer import Store

__all__ = [
    "CANNOT_WRITE",
    "ENTRY_COLUMNS",
    "EXTENSIONS",
    "INDEXES",
    "NODE_STAT_COLUMNS",
    "SCHEMA",
    "SCHEMA_VERSION",
    "SEARCH_SQL",
    "SEARCH_TABLE",
    "SEARCH_UPTO",
    "SIGNATURE_KEY",
    "MADE_BY_KEY",
    "SORTS",
    "STORE_VERSION",
    "EntryFilter",
    "EntryRow",
    "EntryRows",
    "IssueRow",
    "IssueScope",
    "ShardGone",
    "ShardRows",
    "ShardWriter",
    "Store",
    "StoreError",
    "fold_log",  # the one error of the store layer
    "StoreLock",
    "StoreRun",
    "connect",
    "entry_rows",
    "inspect_store",
    "priority_bucket",
    "remove_shard",
    "search_candidates",
    "search_glob",
]

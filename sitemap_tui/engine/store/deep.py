"""The store's queries for the deep checks (validate/deep.py): which sitemaps have entries, their
entries page by page, and what an entry lists (hreflang links, videos). The checks decide which
entries to sample and what to fetch."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from sitemap_tui.engine.store import Store

__all__ = ["entry_alternates", "entry_counts", "entry_pages", "entry_videos"]


def entry_counts(store: Store, node_ids: Sequence[int] | None) -> list[tuple[int, int]]:
    """(node id, entry count) of the given nodes (None: every node, in the tree's order), those
    with entries."""
    ids = (
        list(node_ids)
        if node_ids is not None
        else store.ids_in_tree_order()
    )
    out = []
    for nid in ids:
        n = store.conn.execute("SELECT COUNT(*) FROM entries WHERE node_id=?", (nid,)).fetchone()[0]
        if n:
            out.append((nid, n))
    return out


def entry_pages(store: Store, node_id: int, size: int = 5000) -> Iterator[list[tuple[Any, ...]]]:
    """(id, node_id, loc, line, lastmod, lastmod_raw) of a node's entries in id order, ``size``
    at a time (keyset pages: the caller may stop early at no cost)."""
    last = 0
    while True:
        page = store.conn.execute(
            "SELECT id, node_id, loc, line, lastmod, lastmod_raw FROM entries"
            " WHERE node_id=? AND id > ? ORDER BY id LIMIT ?",
            (node_id, last, size),
        ).fetchall()
        if not page:
            return
        yield page
        if len(page) < size:
            return
        last = page[-1][0]


def entry_alternates(store: Store, entry_id: int) -> list[tuple[str | None, str | None, str | None]]:
    """(rel, hreflang, href) of an entry's xhtml:links, as stored."""
    return store.conn.execute(
        "SELECT rel, hreflang, href FROM alternates WHERE entry_id=?", (entry_id,)
    ).fetchall()


def entry_videos(store: Store, entry_id: int, limit: int) -> list[dict[str, Any]]:
    """An entry's first ``limit`` videos: the stored dict (fields, multi, attrs, tags) each."""
    return [
        json.loads(d)
        for (d,) in store.conn.execute(
            "SELECT data FROM videos WHERE entry_id=? LIMIT ?", (entry_id, limit)
        )
    ]

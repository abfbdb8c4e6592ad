"""The listing's order of a set of sitemaps, for the cross-file rules: which finding comes first
must not depend on the order the files were parsed in.

Entry ids follow the order the parsed rows reached the store, and with several workers that
varies from run to run; within one file they follow the file's own order. So an entry's place in
the listing is its file's place in the tree (engine.tree_order.listing_order), then its id; and
a rule with more findings than its cap keeps the first ones in that order (:func:`first_listed`),
not the lowest ids, so the same run gives the same report and a baseline sees no new finding.
"""

from __future__ import annotations

import heapq
import itertools
from bisect import bisect_right
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

__all__ = ["Positions", "first_listed"]

T = TypeVar("T")


class Positions:
    """An entry's place in the listing, ``(its file's rank, its id)``: from its file's id where
    the row has it, else from the runs of consecutive entry ids of one file (``runs``, read
    from the store when first needed: CrossFileQueries.entry_runs, ~0.6 s per 1 M entries).
    Each ``of_*`` gives the key of one kind of row: one call a row, which runs for every
    finding past a cap (millions, on a large set)."""

    def __init__(self, order: list[int], runs: Callable[[], list[tuple[int, int]]],
                 ranges: Callable[[], list[tuple[int, int, int]]]) -> None:
        self._rank = {nid: i for i, nid in enumerate(order)}
        self._read_runs = runs
        self._runs: tuple[list[int], list[int]] | None = None
        self._read_ranges = ranges
        self._follow: bool | None = None

    def ids_follow_listing(self) -> bool:
        """Whether the entry ids are already in the listing's order: each file's ids above
        the ids of every file listed before it (one file, or files parsed one after the other
        in their order; ``ranges``: (node id, lowest id, highest) of each file)."""
        if self._follow is None:
            last = len(self._rank)
            spans = sorted((self._rank.get(nid, last), low, high) for nid, low, high in self._read_ranges())
            self._follow = all(a[2] < b[1] and a[0] < b[0] for a, b in zip(spans, spans[1:], strict=False))
        return self._follow

    def of_node(self, node_column: int, entry_column: int) -> Callable[[Any], tuple[int, int]]:
        """Rows with their file's id and their entry id."""
        rank, last = self._rank, len(self._rank)

        def key(row: Any) -> tuple[int, int]:
            return (rank.get(row[node_column], last), row[entry_column])

        return key

    def of_issue(self, issue_column: int, entry_column: int) -> Callable[[Any], tuple[int, int]]:
        """Rows with an issue (its node is the entry's file) and the entry id."""
        rank, last = self._rank, len(self._rank)

        def key(row: Any) -> tuple[int, int]:
            eid = row[entry_column]
            if eid is None:  # a file's own finding (lastmod-all-identical): first, as they came
                return (-1, 0)
            return (rank.get(row[issue_column].node_id, last), eid)

        return key

    def of_entry(self, column: int) -> Callable[[Any], tuple[int, int]]:
        """Rows with only the entry id (its file found among the runs)."""
        if self._runs is None:
            runs = self._read_runs()
            last = len(self._rank)
            self._runs = ([first for first, _ in runs], [self._rank.get(nid, last) for _, nid in runs])
        starts, ranks = self._runs

        def key(row: Any) -> tuple[int, int]:
            eid = row[column]
            i = bisect_right(starts, eid) - 1
            return (ranks[i] if i >= 0 else -1, eid)

        return key


def first_listed(rows: Iterable[T], room: int, key: Callable[[], Callable[[T], tuple[int, int]]],
                 in_listing_order: Callable[[], bool] | None = None) -> tuple[list[T], int]:
    """At most ``room`` of ``rows`` and how many were left out. Rows that fit are kept as they
    come (the query's order); over the cap, the ``room`` first in the listing's order (``key()``
    gives a row's place: asked for only then, as it may read the store), in that order.
    ``in_listing_order()``: whether the rows already come in it (rows in entry id order, ids
    that follow the listing): then the first ones are kept as they come, with no sort."""
    it = iter(rows)
    head = list(itertools.islice(it, room))
    peek = list(itertools.islice(it, 1))
    if not peek:
        return head, 0
    if room <= 0:
        return [], sum(1 for _ in it) + 1
    total = len(head) + 1
    if in_listing_order is not None and in_listing_order():
        return head, total - len(head) + sum(1 for _ in it)

    def counted() -> Iterable[T]:
        nonlocal total
        for row in it:
            total += 1
            yield row

    kept = heapq.nsmallest(room, itertools.chain(head, peek, counted()), key=key())
    return kept, total - len(kept)

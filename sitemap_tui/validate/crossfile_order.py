"""The listing's order of a set of sitemaps, for the cross-file rules: which finding comes first
must not depend on the order the files were parsed in.

Entry ids follow the order the parsed rows reached the store, and with several workers that
varies from run to run; within one file they follow the file's own order. So an entry's place in
the listing is its file's place in the tree (:func:`listing_order`), then its id; and a rule with
more findings than its cap keeps the first ones in that order (:func:`first_listed`), not the
lowest ids, so the same run gives the same report and a baseline sees no new finding.
"""

from __future__ import annotations

import heapq
import itertools
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

__all__ = ["Positions", "first_listed", "listing_order"]

T = TypeVar("T")


def listing_order(tree: Iterable[tuple[int, int | None, int | None]]) -> list[int]:
    """The node ids of ``tree`` ((id, parent id, line in the parent) each) in the listing's
    order: parents before their children, siblings in the order their parent lists them (its
    line), then by id (a folder's files are added sorted); a node whose parent is not in the
    tree last, by id."""
    children: dict[int | None, list[tuple[bool, int, int]]] = defaultdict(list)
    ids: list[int] = []
    for nid, parent, line in tree:
        children[parent].append((line is None, line or 0, nid))
        ids.append(nid)
    order: list[int] = []
    stack = sorted(children.get(None, ()), reverse=True)
    while stack:
        nid = stack.pop()[2]
        order.append(nid)
        stack.extend(sorted(children.get(nid, ()), reverse=True))
    seen = set(order)
    order += sorted(n for n in ids if n not in seen)
    return order


class Positions:
    """An entry's place in the listing, ``(its file's rank, its id)``, from the files' order
    and the runs of consecutive entry ids of one file (CrossFileQueries.entry_runs)."""

    def __init__(self, order: list[int], runs: list[tuple[int, int]]) -> None:
        rank = {nid: i for i, nid in enumerate(order)}
        self._starts = [first for first, _ in runs]
        self._ranks = [rank.get(nid, len(rank)) for _, nid in runs]

    def of_column(self, column: int) -> Callable[[Any], tuple[int, int]]:
        """The place of a row whose entry id is its ``column``: one call a row (this runs for
        every finding past a cap, millions on a large set: 0.3 µs a row)."""
        starts, ranks = self._starts, self._ranks

        def key(row: Any) -> tuple[int, int]:
            eid = row[column]
            if eid is None:
                return (-1, 0)
            i = bisect_right(starts, eid) - 1
            return (ranks[i] if i >= 0 else -1, eid)

        return key


def first_listed(rows: Iterable[T], room: int, column: int,
                 positions: Callable[[], Positions]) -> tuple[list[T], int]:
    """At most ``room`` of ``rows`` and how many were left out. Rows that fit are kept as they
    come (the query's order); over the cap, the ``room`` first in the listing's order (the
    entry id is each row's ``column``), in that order. ``positions`` is asked for only then:
    it reads the store."""
    it = iter(rows)
    head = list(itertools.islice(it, room))
    peek = list(itertools.islice(it, 1))
    if not peek:
        return head, 0
    if room <= 0:
        return [], sum(1 for _ in it) + 1
    total = len(head) + 1

    def counted() -> Iterable[T]:
        nonlocal total
        for row in it:
            total += 1
            yield row

    kept = heapq.nsmallest(room, itertools.chain(head, peek, counted()), key=positions().of_column(column))
    return kept, total - len(kept)

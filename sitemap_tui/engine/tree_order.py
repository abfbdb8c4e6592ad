"""The listing's order of an explored tree: which file comes first must not depend on the order
the files were fetched and parsed in.

Node and entry ids follow the order rows reached the store, and with several workers that
varies from run to run. A file's place in the listing is its place in the tree: parents before
their children, siblings in the order their parent lists them. The cross-file rules' caps
(validate/crossfile_order.py) and a comparison's "first listing" of a URL (store/diff.py) both
rest on it, so the same site gives the same report and the same comparison every run.

Two orders, both of them the tree's: :func:`listing_order` goes depth first (a file, then what
it lists); :func:`generation_order` goes level by level, the order node ids take when the
explorer finds files one level after the other, which is what reports are sorted by.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

__all__ = ["generation_order", "listing_order"]


Tree = Iterable[tuple[int, int | None, int | None]]  # (id, parent id, line in the parent)


def _siblings(tree: Tree) -> tuple[dict[int | None, list[int]], list[int]]:
    """Each parent's children in its order (line, then id: a folder's files are added sorted;
    a node without a line after those with one), and every id."""
    children: dict[int | None, list[tuple[bool, int, int]]] = defaultdict(list)
    ids: list[int] = []
    for nid, parent, line in tree:
        children[parent].append((line is None, line or 0, nid))
        ids.append(nid)
    return {parent: [nid for *_, nid in sorted(kids)] for parent, kids in children.items()}, ids


def _rest(order: list[int], ids: list[int]) -> list[int]:
    """``order`` and then the nodes it did not reach (a parent not in the tree), by id."""
    seen = set(order)
    return order + sorted(n for n in ids if n not in seen)


def listing_order(tree: Tree) -> list[int]:
    """The node ids of ``tree`` in the listing's order: parents before their children,
    siblings in the order their parent lists them; a node whose parent is not in the tree
    last, by id."""
    children, ids = _siblings(tree)
    order: list[int] = []
    stack = children.get(None, [])[::-1]
    while stack:
        nid = stack.pop()
        order.append(nid)
        stack.extend(children.get(nid, [])[::-1])
    return _rest(order, ids)


def generation_order(tree: Tree) -> list[int]:
    """The node ids of ``tree`` level by level: the roots, then their children, then theirs;
    within a level by the parent's place, then the parent's order; a node whose parent is not
    in the tree last, by id.

    This is the order of node ids wherever the explorer found each level before the next,
    which is not the case under nested indexes with several workers: an index's children get
    their ids when it is parsed, so two child indexes' files took turns by which one a worker
    finished first (a report listed a1, a2, b1, b2 in one run and b1, b2, a1, a2 in the next)."""
    children, ids = _siblings(tree)
    order: list[int] = []
    level = children.get(None, [])
    while level:
        order += level
        level = [nid for parent in level for nid in children.get(parent, [])]
    return _rest(order, ids)

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


def generation_order(tree: Iterable[tuple[int, int | None, int | None]]) -> list[int]:
    """The node ids of ``tree`` ((id, parent id, line in the parent) each) level by level: the
    roots, then their children, then theirs; within a level by the parent's place, then the
    parent's order (line, then id); a node whose parent is not in the tree last, by id.

    This is the order of node ids wherever the explorer found each level before the next,
    which is not the case under nested indexes with several workers: an index's children get
    their ids when it is parsed, so two child indexes' files took turns by which one a worker
    finished first (a report listed a1, a2, b1, b2 in one run and b1, b2, a1, a2 in the next)."""
    children: dict[int | None, list[tuple[bool, int, int]]] = defaultdict(list)
    ids: list[int] = []
    for nid, parent, line in tree:
        children[parent].append((line is None, line or 0, nid))
        ids.append(nid)
    order: list[int] = []
    level = [nid for *_, nid in sorted(children.get(None, ()))]
    while level:
        order += level
        level = [nid for parent in level for *_, nid in sorted(children.get(parent, ()))]
    seen = set(order)
    order += sorted(n for n in ids if n not in seen)
    return order


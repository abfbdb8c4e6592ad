"""The listing's order of an explored tree: which file comes first must not depend on the order
the files were fetched and parsed in.

Node and entry ids follow the order rows reached the store, and with several workers that
varies from run to run. A file's place in the listing is its place in the tree: parents before
their children, siblings in the order their parent lists them. The cross-file rules' caps
(validate/crossfile_order.py) and a comparison's "first listing" of a URL (store/diff.py) both
rest on it, so the same site gives the same report and the same comparison every run.

Two orders, both of them the tree's: :func:`listing_order` goes depth first (a file, then what
it lists); level by level is the order node ids take when the explorer finds files one level
after the other, which is what reports and panes are sorted by. The store keeps each node's
:func:`place` (its ancestors' and its own :func:`sibling_key`), so SQL gets both orders without
this module: ``ORDER BY place`` is depth first, ``ORDER BY length(place), place`` level by level
(store/schema.tree_order). Level by level is the order of node ids wherever the explorer found
each level before the next, which is not the case under nested indexes with several workers: an
index's children get their ids when it is parsed, so two child indexes' files took turns by
which one a worker finished first (a report listed a1, a2, b1, b2 in one run and b1, b2, a1, a2
in the next).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

__all__ = ["KEY_WIDTH", "listing_order", "place", "places", "sibling_key"]


Tree = Iterable[tuple[int, int | None, int | None]]  # (id, parent id, line in the parent)

KEY_WIDTH = 23
"""Characters of one :func:`sibling_key`: every level of a place is this long, so a place's
length is its level (for ``ORDER BY length(place), place``)."""
_LINE_MAX = 16**10 - 1
_ID_MAX = 16**12 - 1


def sibling_key(line: int | None, nid: int) -> str:
    """A node's key among its siblings, as a string that sorts as (line is None, line, id)
    does: a file's children by their line in it (ids break ties: children of one file get
    theirs in its order), nodes without a line (a folder's files, added sorted) after them."""
    flag = "1" if line is None else "0"
    return f"{flag}{min(max(line or 0, 0), _LINE_MAX):010x}{min(max(nid, 0), _ID_MAX):012x}"


def place(parent_place: str | None, line: int | None, nid: int) -> str:
    """A node's place: its parent's (None or "": a root) and then its own sibling key."""
    return (parent_place or "") + sibling_key(line, nid)


def places(tree: Tree) -> dict[int, str]:
    """Every node's :func:`place` (a node whose parent is not in the tree as a root): what a
    store written before the column existed is given on opening."""
    rows = list(tree)
    ids = {nid for nid, _, _ in rows}
    kids: dict[int | None, list[tuple[int, int | None]]] = defaultdict(list)
    for nid, parent, line in rows:
        kids[parent if parent in ids else None].append((nid, line))
    out: dict[int, str] = {}
    stack: list[tuple[int | None, str]] = [(None, "")]
    while stack:
        parent, prefix = stack.pop()
        for nid, line in kids.get(parent, []):
            out[nid] = place(prefix, line, nid)
            stack.append((nid, out[nid]))
    for nid, _, line in rows:  # a cycle no root reaches (not written by the explorer): roots
        out.setdefault(nid, place(None, line, nid))
    return out


def listing_order(tree: Tree) -> list[int]:
    """The node ids of ``tree`` in the listing's order: parents before their children,
    siblings in the order their parent lists them (``ORDER BY place``)."""
    return [nid for nid, _ in sorted(places(tree).items(), key=lambda item: item[1])]

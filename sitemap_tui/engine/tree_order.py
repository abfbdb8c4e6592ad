"""The listing's order of an explored tree: which file comes first must not depend on the order
the files were fetched and parsed in.

Node and entry ids follow the order rows reached the store, and with several workers that
varies from run to run. A file's place in the listing is its place in the tree: parents before
their children, siblings in the order their parent lists them. The cross-file rules' caps
(validate/crossfile_order.py) and a comparison's "first listing" of a URL (store/diff.py) both
rest on it, so the same site gives the same report and the same comparison every run.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

__all__ = ["listing_order"]


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

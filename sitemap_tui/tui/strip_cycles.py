"""Rendered lines that reference counting frees: no Textual ``Strip`` keeps itself in its own cache,
and no cleared ``LRUCache`` leaves its ring of links behind.

Textual (8.2) caches the result of ``Strip.divide`` and ``Strip.crop_extend`` on the strip; when the
result is the strip itself (a line divided at its own length, cropped to its own width: every line
of a full-width widget, on every frame) the strip holds a reference to itself. Each such line, its
seven caches and its segments are then garbage that only the cyclic collector can free: while an
index streams, ~10,000 objects a second, a young-generation collection (a UI stall) every second and
survivors that grow the older generations (bench/bench_tui.py ``--garbage``). The identity results
are returned uncached here, which is what the originals return; every other result is theirs.

``LRUCache`` keeps its entries in a ring of linked lists; ``clear()`` drops the dict and the head,
so the ring, with every value in it, is again garbage for the cyclic collector. The tree clears its
line cache (up to 1,024 lines) whenever a label changes, the URL table its rendered rows and row
pages whenever the store grows: while an index streams, that is most of what is left. The links
are emptied here before the cache lets go of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.style import Style
from textual.cache import LRUCache
from textual.strip import Strip

_divide = Strip.divide
_crop_extend = Strip.crop_extend
_lru_clear = LRUCache.clear


def _divide_uncyclic(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    cuts = list(cuts)
    length = self.cell_length
    if [cut for cut in cuts if cut <= length] == [length]:
        return [self]
    return _divide(self, cuts)


def _crop_extend_uncyclic(self: Strip, start: int, end: int, style: Style | None) -> Strip:
    if start <= 0 and end == self.cell_length:
        return self
    return _crop_extend(self, start, end, style)


def _lru_clear_unlinked(self: LRUCache[Any, Any]) -> None:
    for link in self._cache.values():
        link.clear()  # [previous, next, key, value]: no link refers to another any more
    _lru_clear(self)


def patch_strips() -> None:
    """Install the uncached identity cases on ``Strip`` and the unlinking ``LRUCache.clear``
    (idempotent)."""
    Strip.divide = _divide_uncyclic  # type: ignore[method-assign]
    Strip.crop_extend = _crop_extend_uncyclic  # type: ignore[method-assign]
    LRUCache.clear = _lru_clear_unlinked  # type: ignore[method-assign]

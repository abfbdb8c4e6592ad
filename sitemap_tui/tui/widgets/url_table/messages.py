"""What the URL grid's thread workers post back to it (the grid's own, never bubbling)."""

from __future__ import annotations

from typing import Any

from textual.message import Message

from sitemap_tui.engine.store import EntryFilter, EntryRow
from sitemap_tui.engine.store.urls import Key


class Scanned(Message, bubble=False):
    """Progress of the count/anchor scan: anchors from index ``first`` on; ``count`` is the
    exact row count when ``counted``; ``done`` when the scan has finished."""

    def __init__(self, gen: int, first: int, anchors: list[Key], count: int, counted: bool, done: bool, full: bool, seconds: float) -> None:
        super().__init__()
        self.gen, self.first, self.anchors, self.count, self.counted = gen, first, anchors, count, counted
        self.done, self.full, self.seconds = done, full, seconds
        self.error: str | None = None


class Searched(Message, bubble=False):
    """The scan chose the search index for listing ``gen`` (a rare substring)."""

    def __init__(self, gen: int) -> None:
        super().__init__()
        self.gen = gen


class PageLoaded(Message, bubble=False):
    def __init__(self, gen: int, data_gen: int, k: int, plan: tuple[Any, ...], rows: list[EntryRow] | None) -> None:
        super().__init__()
        self.gen, self.data_gen, self.k, self.plan, self.rows = gen, data_gen, k, plan, rows


class Located(Message, bubble=False):
    def __init__(self, gen: int, entry_id: int, pos: int | None, rows: list[EntryRow], base: int, why: str = "") -> None:
        super().__init__()
        self.gen, self.entry_id, self.pos, self.rows, self.base, self.why = gen, entry_id, pos, rows, base, why


class Indexed(Message, bubble=False):
    def __init__(self, sort: str, error: str | None) -> None:
        super().__init__()
        self.sort, self.error = sort, error


class Materialised(Message, bubble=False):
    def __init__(self, flt: EntryFilter, ids: set[int], truncated: bool) -> None:
        super().__init__()
        self.flt, self.ids, self.truncated = flt, ids, truncated


class Ranged(Message, bubble=False):
    def __init__(self, ids: list[int], truncated: bool) -> None:
        super().__init__()
        self.ids, self.truncated = ids, truncated

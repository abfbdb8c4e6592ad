"""A file's place and an entry id packed in one SQLite integer, so that one ``MIN()`` over a
group finds its first listing (the least place, then that file's least entry id) without a
sort or a second lookup. The cross-file rules, the audit's coverage and ``diff`` all pack this
way: entry ids below 2**40 (a million times more than a large set holds) leave the place 23 bits
of SQLite's signed 64."""

from __future__ import annotations

__all__ = ["ENTRY_BITS", "ENTRY_MASK", "PLACE_MAX", "entry_of", "first_of", "place_of"]

ENTRY_BITS = 40
ENTRY_MASK = (1 << ENTRY_BITS) - 1
PLACE_MAX = (1 << (63 - ENTRY_BITS)) - 1  # the largest place that keeps the packed value positive


def first_of(place: str, entry: str) -> str:
    """SQL: the least (``place``, ``entry``) of a group, packed."""
    return f"MIN(({place} << {ENTRY_BITS}) | {entry})"


def entry_of(packed: str) -> str:
    """SQL: the entry id of a packed value."""
    return f"({packed} & {ENTRY_MASK})"


def place_of(packed: str) -> str:
    """SQL: the place of a packed value."""
    return f"({packed} >> {ENTRY_BITS})"

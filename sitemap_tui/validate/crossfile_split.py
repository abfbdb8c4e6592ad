"""The cross-file rules split across processes (issue 19, round 4): on a large set, the work
over the URL keys runs in child processes in parallel, and the store's process only merges and
writes what they found.

* ``parts`` *part* children (crossfile_part.py): each builds the key table of the keys in its
  part (engine/store/crossfile_parts.py: a function of the key that the duplicates and the
  trailing-slash pairs agree on) and reports its part's duplicates, conflicting copies and
  trailing-slash variants, and its per-origin key counts; then checks every ``parts``-th entry
  against robots.txt (``robots-url-disallowed``: protego over each URL, 3–12 µs a URL);
* one *side* child: the hreflang rules (they look up every linked key, so they cannot be
  split by key; built from the entries and the targets only, without the whole key table) and
  the lastmod / priority groupings (over the entries table, beside the hreflang tables).

Each child sends, per rule, its issues up to the cap (all of them in the rule's order, by entry
id, or over the cap its first ones in the listing's order: validate/crossfile_order.py) and a
count of the rest; the parent merges the parts the same way, so it writes the same issues in the
same order, and the same "N more" summaries, as the rules run in one process. The host rules
(a few rows) and the robots.txt rules over the files and the videos (few rows) stay in the
parent.

Small sets (``SPLIT_MIN_ENTRIES``) and in-memory stores keep the in-process run: a child costs a
fresh interpreter (~0.2 s of CPU) and each part child reads every entry.
"""

from __future__ import annotations

import heapq
import itertools
import multiprocessing as mp
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from multiprocessing.connection import Connection, wait
from typing import TYPE_CHECKING, Any

from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.crossfile import entry_id_bound
from sitemap_tui.engine.store.crossfile_parts import choose_spread, key_sample

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

    from sitemap_tui.engine.model import Issue
    from sitemap_tui.validate.crossfile_order import Positions
    from sitemap_tui.validate.crossfile_part import Part
    from sitemap_tui.validate.crossfile_sink import Sink

__all__ = ["CrossFileFailed", "Found", "MAX_PARTS", "SPLIT_MIN_ENTRIES", "run_crossfile_parts", "run_split", "splitter"]

SPLIT_MIN_ENTRIES = 200_000  # below this the whole tail costs less than starting the children
# Each part child reads every entry (~0.45 s of CPU per 1 M URLs) besides its share of the keys
# (~1.7 s per 1 M over all parts), and the side child's groupings (~0.9 s per 1 M) cannot be split
# by key: past 4 parts a part is shorter than the side child, so more parts only add reads.
MAX_PARTS = 4
POLL_S = 0.1  # how often the parent looks at ``cancel`` while the children work


class CrossFileFailed(RuntimeError):
    """A child stopped without its result: its error (``detail``: the traceback) or exit status."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail


@dataclass(slots=True)
class Found:
    """The children's findings, per rule: one list per child, each in the rule's order."""

    lists: dict[str, list[list[tuple[int | None, Issue]]]] = field(default_factory=dict)
    extra: Counter[str] = field(default_factory=Counter)
    origins: list[tuple[str, str, int, int]] = field(default_factory=list)

    def add(self, part: Part) -> None:
        for rule, rows in part.found.items():
            self.lists.setdefault(rule, []).append(rows)
        self.extra.update(part.extra)
        self.origins += part.origins

    def give(self, sink: Sink, *rules: str, position: Callable[[], Positions]) -> None:
        """Each rule's issues to ``sink`` as the in-process run adds them, then how many more
        there were: when all fit, the parts merged by entry id (a key, and so an entry, is in
        one part only); over the cap, the first in the listing's order (``position``), which
        are among each part's first (a part over the cap sent those)."""
        for rule in rules:
            lists = self.lists.get(rule, [])
            total = sum(map(len, lists)) + self.extra[rule]
            room = sink.room(rule)
            if total <= room or position().ids_follow_listing():
                merged = heapq.merge(*lists, key=_entry_id) if len(lists) > 1 else iter(lists[0] if lists else ())
                kept = list(itertools.islice(merged, room))
            else:
                kept = heapq.nsmallest(room, itertools.chain(*lists), key=position().of_issue(1, 0))
            for eid, issue in kept:
                sink.add(issue, eid)
            sink.more(rule, total - len(kept))


def _entry_id(row: tuple[int | None, Issue]) -> int:
    return row[0] or 0


def run_crossfile_parts(store: Store, *, parts: int, **options: Any) -> int:
    """``run_crossfile(store, **options)`` with the rules over the URL keys split across
    ``parts`` children when :func:`splitter` says the set is large enough."""
    from sitemap_tui.validate.crossfile import run_crossfile

    return run_crossfile(store, split=splitter(store, parts), **options)


def splitter(store: Store, parts: int, minimum: int | None = None) -> Callable[..., Found] | None:
    """The split run for ``store`` over ``parts`` part children (at least 2, at most
    :data:`MAX_PARTS`), or None when the rules run in this process: a store without a file
    other processes can open, or fewer than ``minimum`` (default :data:`SPLIT_MIN_ENTRIES`)
    entries."""
    least = SPLIT_MIN_ENTRIES if minimum is None else minimum
    if parts <= 0 or not store.path.is_file() or entry_id_bound(store) < least:
        return None
    return partial(run_split, parts=max(2, min(parts, MAX_PARTS)))


def run_split(store: Store, rules: set[str], cap: int, check: Callable[[], None],
              step: Callable[[str], None], robots: dict[str, tuple[str, str]] | None = None, *,
              parts: int, path: str | None = None) -> Found:
    """Run the children for ``rules`` over ``store``'s committed rows and gather what they found
    (``rules`` may name per-file rules of ``SIDE_SAID``: said, they change what the side child
    reports).
    ``check`` is called while they work (it raises to cancel: the children are stopped);
    a child that fails raises :class:`CrossFileFailed` (the others are stopped).
    ``robots``: origin -> (URL, text) of each robots.txt that disallows something, for the
    part children's share of ``robots-url-disallowed``. ``path``: the file the children open
    (default the store's)."""
    from sitemap_tui.validate.crossfile_part import PART_RULES, SIDE_RULES, SIDE_SAID, child_main

    jobs: list[tuple[str, int, list[str]]] = []
    part_rules = sorted(rules & set(PART_RULES))
    side_rules = sorted(rules & set(SIDE_RULES))
    spread = False
    if part_rules:
        jobs += [("part", i, part_rules) for i in range(parts)]
        spread = choose_spread(key_sample(store), parts)  # URLs of one length: see crossfile_parts
    if side_rules:
        jobs.append(("side", 0, side_rules + sorted(rules & set(SIDE_SAID))))
    found = Found()
    if not jobs:
        return found
    step(f"the cross-file rules in {len(jobs)} processes")
    target = str(store.path) if path is None else path
    ctx = mp.get_context("spawn")  # never fork a process that may run threads
    children: dict[Connection, tuple[BaseProcess, str]] = {}
    try:
        for kind, part, job_rules in jobs:
            receive, send = ctx.Pipe(duplex=False)
            name = f"sitemap-tui-crossfile-{kind}{part if kind == 'part' else ''}"
            child = ctx.Process(target=child_main,
                                args=(target, kind, part, parts, spread, job_rules, cap, robots or {}, send),
                                name=name, daemon=True)
            child.start()
            send.close()
            children[receive] = (child, name)
        while children:
            check()
            ready = wait([*children, *(c.sentinel for c, _ in children.values())], POLL_S)
            for conn in [c for c in children if c in ready or children[c][0].sentinel in ready]:
                found.add(_result(conn, *children.pop(conn)))
        return found
    finally:
        for conn, (proc, _) in children.items():  # cancelled, failed or interrupted
            if proc.is_alive():
                proc.terminate()
            proc.join()
            conn.close()


def _result(conn: Connection, child: BaseProcess, name: str) -> Part:
    """What ``child`` sent on ``conn`` (it is then joined), or :class:`CrossFileFailed`."""
    got: tuple[str, Any] | None
    try:
        got = conn.recv()  # (its end is readable: a message, or closed)
    except EOFError:  # closed without a word: its exit code says why
        got = None
    finally:
        conn.close()
        child.join()
    if got is None:
        raise CrossFileFailed(f"{name} ended with exit code {child.exitcode}")
    kind, value = got
    if kind != "ok":
        message, detail = value
        raise CrossFileFailed(f"{name} failed: {message}", detail)
    part: Part = value
    return part


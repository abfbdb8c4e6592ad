"""One child process of the cross-file rules split across processes (crossfile_split.py).

A child opens the committed store read-only, builds the temporary tables of its share of the
work and runs the same rules (validate.crossfile) on them; instead of writing issues it hands
them back in their final form, per rule up to the cap in the order the rule reports them, with
a count of the rest. Two kinds of child:

* a *part* (``PartQueries``): the keys whose part is this child's; duplicates, conflicting
  copies and trailing-slash variants, plus the per-origin key counts of the host rules (the
  parent adds them up and decides those few issues itself); and every ``parts``-th entry
  checked against the robots.txt files the parent passes (those that disallow something);
* the *side* child (``HreflangQueries``): the hreflang rules, which need every entry's links and
  every linked key, and the lastmod / priority groupings (on a second connection, in a thread,
  beside the hreflang tables, as the store's process ran them before).
"""

from __future__ import annotations

import contextlib
import signal
import traceback
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from sitemap_tui.engine.model import Issue
from sitemap_tui.engine.robots import RobotsFile, parse_robots
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.crossfile import CrossFileQueries
from sitemap_tui.engine.store.crossfile_parts import HreflangQueries, PartQueries
from sitemap_tui.validate.crossfile import HREFLANG_RULES, MISSING_SELF, _CrossFile
from sitemap_tui.validate.crossfile_sink import Sink

__all__ = ["PART_RULES", "SIDE_RULES", "HOST_RULES", "Part", "child_main"]

HOST_RULES = ("cross-mixed-scheme", "cross-mixed-www", "cross-mobile-and-desktop")
PART_RULES = (
    "cross-duplicate-url",
    "cross-duplicate-conflicting",
    "cross-trailing-slash-variants",
    *HOST_RULES,
    "robots-url-disallowed",  # every parts-th entry (PartQueries.entry_batches)
)
SIDE_RULES = (*HREFLANG_RULES, "lastmod-all-identical", "priority-all-equal")
# per-file rules the side child is told of when they are said: they change what it reports
SIDE_SAID = (MISSING_SELF,)


@dataclass(slots=True)
class Part:
    """What one child hands back: per rule, (entry id, issue) up to the cap in the rule's order,
    the count of the rest; the per-origin key counts (part children, when the host rules run)."""

    found: dict[str, list[tuple[int | None, Issue]]] = field(default_factory=dict)
    extra: dict[str, int] = field(default_factory=dict)
    origins: list[tuple[str, str, int, int]] = field(default_factory=list)


class _Collect(Sink):
    """A sink that keeps the issues (capped and counted as the store's sink does)."""

    def __init__(self, cap: int) -> None:
        super().__init__(None, cap)  # type: ignore[arg-type]  # nothing is written
        self.found: defaultdict[str, list[tuple[int | None, Issue]]] = defaultdict(list)

    def flush(self) -> None:
        for issue, eid in zip(self._issues, self._ids, strict=True):
            self.found[issue.rule].append((eid, issue))
        self._issues, self._ids = [], []


class _ChildRules(_CrossFile):
    """The rules on a read-only store: nothing forgotten, nothing written, no summaries."""

    origins: list[tuple[str, str, int, int]]

    def make_sink(self, store: Store, cap: int) -> Sink:
        return _Collect(cap)

    def _forget_previous(self) -> None:
        pass

    def finish(self) -> int:
        self.sink.flush()
        return 0

    def result(self) -> Part:
        sink = self.sink
        assert isinstance(sink, _Collect)
        return Part(dict(sink.found), dict(sink.extra), getattr(self, "origins", []))


class _PartRules(_ChildRules):
    def __init__(self, store: Store, rules: set[str], cap: int, part: int, parts: int, spread: bool,
                 robots: dict[str, tuple[str, str]]) -> None:
        self.part, self.parts, self.spread = part, parts, spread  # (before make_queries runs)
        super().__init__(store, rules, None, cap, keep_temp=True)
        self._robots_texts = robots

    def _active_robots(self) -> dict[str, RobotsFile]:
        """The parent's (origin -> (URL, text)), parsed again: the whole text, as the parent
        read it (no cap: it was capped when fetched)."""
        out: dict[str, RobotsFile] = {}
        for origin, (url, text) in self._robots_texts.items():
            data = text.encode("utf-8")
            out[origin] = parse_robots(data, url, max_bytes=len(data))
        return out

    def make_queries(self, store: Store) -> CrossFileQueries:
        return PartQueries(store, self.part, self.parts, self.spread)

    def _hosts(self, rows: Iterable[tuple[str, str, int, int]] | None = None) -> None:
        self.origins = self.db.origin_counts()  # the parent adds the parts up


class _SideRules(_ChildRules):
    def make_queries(self, store: Store) -> CrossFileQueries:
        return HreflangQueries(store, self.check_cancel)


def run_child(path: str, kind: str, part: int, parts: int, spread: bool, rules: Iterable[str], cap: int,
              robots: dict[str, tuple[str, str]] | None = None) -> Part:
    """The child's work, in this process (``kind``: "part" or "side"; ``spread``: how keys are
    shared out, crossfile_parts.choose_spread)."""
    store = Store(path, readonly=True)
    try:
        rules_run: _ChildRules
        if kind == "part":
            rules_run = _PartRules(store, set(rules), cap, part, parts, spread, robots or {})
        else:
            rules_run = _SideRules(store, set(rules), None, cap, keep_temp=True)
        rules_run.run()
        return rules_run.result()
    finally:
        store.discard()


def child_main(path: str, kind: str, part: int, parts: int, spread: bool, rules: list[str], cap: int,
               robots: dict[str, tuple[str, str]], send: Connection) -> None:
    """A child's entry point: its :class:`Part`, or its error with the traceback, sent back."""
    # Ctrl-C reaches the whole process group: the parent decides, and stops the children
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    got: tuple[str, Any]
    try:
        got = ("ok", run_child(path, kind, part, parts, spread, rules, cap, robots))
    except BaseException as exc:  # said by the parent
        got = ("error", (f"{type(exc).__name__}: {exc}", traceback.format_exc()))
    with contextlib.suppress(OSError):  # a parent that stopped first has closed its end
        send.send(got)
    send.close()


"""What an exploration left out or read otherwise than written, told from what it recorded as
it went (the causes per file, the files' aggregates): never from a node's error text. The
headless commands say it on stderr (cli.verdict), a report's summary holds it."""

from __future__ import annotations

from collections import Counter

from sitemap_tui.engine.explore_files import FileProcessing
from sitemap_tui.engine.leftout import LeftOut, Omission, describe
from sitemap_tui.engine.model import Node, NodeKind, NodeState
from sitemap_tui.engine.stats import Aggregate


class ExplorationAccount(FileProcessing):
    """The account of an exploration: its omissions, counts over its files' statistics."""

    def left_out(self) -> list[Omission]:
        """What this exploration did not fetch or read whole, one Omission per cause (in a
        fixed order), from the causes recorded as it went: never from node.error's text."""
        counts: Counter[LeftOut] = Counter(self._left_uncounted)
        examples: dict[LeftOut, str] = {}
        for node in self.nodes.values():
            cause = self._cause(node)
            if cause is not None:
                counts[cause] += 1
                examples.setdefault(cause, node.url)
        if self._robots_not_read:
            counts[LeftOut.ROBOTS_CAP] = len(self._robots_not_read)
        if self.checker is None:  # (a checker's findings name each instead)
            n, first = self.entry_count("no_url")  # entries, not files
            if n:
                counts[LeftOut.NO_URL], examples[LeftOut.NO_URL] = n, first
        o = self.options
        return [
            describe(
                cause, counts[cause], max_depth=o.max_depth, max_files=o.max_files,
                max_children=o.max_children, max_decoded=self.fetch_config.max_decoded,
                robots_hosts=o.cross_submit_hosts, example=examples.get(cause), max_time=o.max_time,
            )
            for cause in LeftOut
            if counts[cause]
        ]

    def entry_count(self, name: str) -> tuple[int, str]:
        """The sum of one count of the files' statistics (stats.Aggregate: ``no_url``,
        ``relative``) over this exploration, and the first file (in the order found) with any."""
        total, first = 0, ""
        for node in self.nodes.values():
            n = (self._aggs.get(node.id) or {}).get(name, 0)
            if n:
                total += n
                first = first or node.url
        return total, first

    def noted(self) -> dict[str, tuple[int, str]]:
        """Of each thing read otherwise than written (stats.Aggregate.noted, filejob.noted_kind):
        how many over this exploration, and the first file (in the order found) with one."""
        out: dict[str, tuple[int, str]] = {}
        for node in self.nodes.values():
            for kind, n in ((self._aggs.get(node.id) or {}).get("noted") or {}).items():
                total, first = out.get(kind, (0, node.url))
                out[kind] = (total + n, first)
        return out

    @property
    def timed_out(self) -> bool:
        """The headless run's time budget (ExploreOptions.max_time) ran out."""
        return self._timed_out

    def left_out_of(self, node: Node) -> LeftOut | None:
        """Why ``node``'s file was not read whole (or at all), None when it was or is no file."""
        return self._cause(node)

    def _cause(self, node: Node) -> LeftOut | None:
        cause = self._cause_of(node)
        return LeftOut.TIME if cause == LeftOut.CANCELLED and self._timed_out else cause

    def _cause_of(self, node: Node) -> LeftOut | None:
        if node.kind in (NodeKind.SITE, NodeKind.DIRECTORY):
            return None
        cause = self._left.get(node.id)
        if node.state == NodeState.SKIPPED:
            # cycles, copies and files listed twice are explored elsewhere: not left out
            skipped = (LeftOut.DEPTH, LeftOut.FAN_OUT, LeftOut.CROSS_HOST, LeftOut.LINK_CROSS_HOST,
                       LeftOut.FROM_LOCAL, LeftOut.UNFETCHABLE, LeftOut.RELATIVE)
            return cause if cause in skipped else None
        if node.state == NodeState.PENDING:
            if cause in (LeftOut.BUDGET, LeftOut.CANCELLED):
                return cause
            if self._stopped:
                return LeftOut.CANCELLED
            return LeftOut.NOT_RECURSIVE if self._explored and not self.options.recursive else None
        if node.state == NodeState.FAILED:
            if node.kind == NodeKind.ROBOTS and (node.stats.http_status or 0) in range(400, 500):
                return None  # no robots.txt: nothing of the site is missing
            return LeftOut.FAILED
        if node.state == NodeState.DONE:
            return self._cut.get(node.id)
        return None

    def aggregate(self, node_id: int) -> Aggregate:
        """Stats of one file (kept even without a store)."""
        return Aggregate.from_json(self._aggs.get(node_id))

"""Where the cross-file rules' issues go: capped per rule (the rest counted, then said in one
summary issue per rule), written to the store in batches; and how an earlier run's go."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from sitemap_tui.engine.model import Issue
from sitemap_tui.engine.store import IssueScope, Store
from sitemap_tui.validate.crossfile_robots import VIDEO_REASON
from sitemap_tui.validate.registry import RULES
from sitemap_tui.words import noun

__all__ = ["Sink", "forget"]


def forget(store: Store, rules: Iterable[str]) -> None:
    """Drop the issues of these cross-file rules from an earlier run."""
    mine = set(rules)
    shared: tuple[tuple[str, str], ...] = ()
    if "video-files-not-accessible" in mine:
        # shared with the checker: only the robots.txt findings (and a cap summary) are ours
        shared = (("video-files-not-accessible", VIDEO_REASON.format(robots="")),)
    store.forget_issues(IssueScope(sorted(mine - {"video-files-not-accessible"}), shared=shared))


class Sink:
    """Issues on their way to the store: capped per rule, written in batches."""

    def __init__(self, store: Store, cap: int) -> None:
        self.store = store
        self.cap = cap
        self.count: Counter[str] = Counter()
        self.extra: Counter[str] = Counter()
        self.written = 0
        self._issues: list[Issue] = []
        self._ids: list[int | None] = []

    def room(self, rule: str) -> int:
        return max(0, self.cap - self.count[rule])

    def add(self, issue: Issue, entry_id: int | None = None) -> None:
        if self.count[issue.rule] >= self.cap:
            self.extra[issue.rule] += 1
            return
        self.count[issue.rule] += 1
        self._issues.append(issue)
        self._ids.append(entry_id)
        if len(self._issues) >= 2000:
            self.flush()

    def more(self, rule: str, n: int) -> None:
        if n > 0:
            self.extra[rule] += n

    def flush(self) -> None:
        if self._issues:
            self.store.add_issues(self._issues, self._ids)
            self.written += len(self._issues)
            self._issues, self._ids = [], []

    def finish(self, node_id: int | None) -> int:
        for rule_id, n in sorted(self.extra.items()):
            rule = RULES[rule_id]
            self._issues.append(
                Issue(
                    rule=rule_id,
                    severity=rule.severity,
                    message=f"{n:,} more {rule_id} {noun(n, 'issue')} not listed (at most {self.cap:,} per rule)",
                    node_id=node_id,
                    weight=n,
                )
            )
            self._ids.append(None)
        self.flush()
        return self.written

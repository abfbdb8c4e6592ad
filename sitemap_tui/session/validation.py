"""The validation pipeline, assembled in one place for the headless ``validate`` and the
explorer's engine host: the streaming checker (with XSD) that runs while files are parsed, then
the cross-file rules over the store, then the deep checks of a sample of pages."""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitemap_tui.session.exits import UsageError

if TYPE_CHECKING:
    import asyncio

    from sitemap_tui.engine.fetch import FetchConfig
    from sitemap_tui.engine.findings import Finding, Judge
    from sitemap_tui.engine.model import Issue, Severity
    from sitemap_tui.engine.refetch import Refetch
    from sitemap_tui.engine.robots import RobotsFile
    from sitemap_tui.engine.store import Store
    from sitemap_tui.validate.checker import Checker
    from sitemap_tui.validate.deep import DeepOptions


@dataclass(frozen=True, slots=True)
class Validation:
    """Which rules run and how XML Schema is checked; every stage below honours ``enabled``."""

    enabled: frozenset[str] | None = None  # None: every rule
    xsd_mode: str = "lax"

    @classmethod
    def selected(cls, select: list[str] | None, ignore: list[str] | None, min_severity: Severity,
                 xsd_mode: str = "lax") -> Validation:
        """The user's rule selection; an unknown rule or pattern is a usage error."""
        from sitemap_tui.validate.registry import select_rules

        try:
            enabled = select_rules(select, ignore, min_severity)
        except (KeyError, ValueError) as exc:
            raise UsageError(f"{exc.args[0]} (see `sitemap-tui rules`)") from exc
        if not enabled:
            # a run that judges nothing passes whatever the sitemaps hold (found from outside:
            # `--select lastmod --ignore lastmod` reported 0 errors and exit 0 in a CI job)
            from sitemap_tui.engine.model import Severity as Level

            floor = Level(min_severity)
            given = [f"--select {','.join(select)}" if select else "", f"--ignore {','.join(ignore)}" if ignore else "",
                     f"--min-severity {floor.value}" if floor.rank else ""]
            raise UsageError(f"{' with '.join(g for g in given if g)} leaves no rule to run (see `sitemap-tui rules`)")
        return cls(frozenset(enabled), xsd_mode)

    def judge(self) -> Judge:
        """Words and grades the engine's findings from the registry, dropping unselected rules."""
        return DeferredJudge(self.enabled)

    def checker(self) -> Checker:
        """The streaming stage: issues stored while each file is parsed (XSD included)."""
        from sitemap_tui.validate.checker import Checker

        return Checker(enabled=self.enabled, xsd_mode=self.xsd_mode)

    def crossfile(self, store: Store, *, robots: dict[str, RobotsFile] | None,
                  cancel: threading.Event | None = None, on_step: Callable[[str], None] | None = None,
                  keep_temp: bool = False, previous: Refetch | None = None, parts: int = 0,
                  on_note: Callable[[str], None] | None = None) -> int:
        """The cross-file rules over everything stored, replacing their earlier issues; returns
        the issues kept. ``keep_temp``: the store is closed right after, its temporary tables
        need no DROP. ``previous``: the exploration a re-exploration asked against; when every
        file answered 304 and the rules were decided there from the same rules, robots.txt and
        day, its issues are copied instead (engine/refetch.py): the whole-tree pass was most of
        a carried validate. The store records what they were decided from, for the next run.
        ``parts``: on a large set, the rules over the URL keys run split across this many child
        processes (the run's parser workers; 0: all in this process, as the TUI runs them); a
        child that fails is said through ``on_note`` and the rules run here instead."""
        from sitemap_tui.engine.store.carry import CROSSFILE_KEY
        from sitemap_tui.validate.crossfile import CROSSFILE_RULES, run_crossfile

        with store.guarded():  # (they write through the store's connection directly)
            marker = self._crossfile_marker(store, robots)
            rules = [r for r in CROSSFILE_RULES if self.enabled is None or r in self.enabled]
            kept = None if previous is None else previous.carry_crossfile(store, rules, marker)
            if kept is None and parts > 0:
                from sitemap_tui.validate.crossfile_split import (
                    CrossFileFailed,
                    run_crossfile_parts,
                )

                try:
                    kept = run_crossfile_parts(store, enabled=self._set(), robots=robots, cancel=cancel,
                                               keep_temp=keep_temp, on_step=on_step, parts=parts)
                except CrossFileFailed as exc:
                    if on_note is not None:
                        on_note(f"the cross-file checks' process {exc}; they ran in this process instead")
            if kept is None:
                kept = run_crossfile(store, enabled=self._set(), robots=robots, cancel=cancel,
                                     keep_temp=keep_temp, on_step=on_step)
            store.set_meta(CROSSFILE_KEY, marker)
            return kept

    def crossfile_outdated(self, store: Store) -> bool:
        """A file was fetched again (its rows new) after the cross-file rules ran: their issues
        (on any file: a duplicate on another file names this one's old copy) are dropped, and so
        is the record of what they were decided from, so no later exploration copies them
        (engine/store/carry.py). True when they had run."""
        from sitemap_tui.engine.store.carry import CROSSFILE_KEY
        from sitemap_tui.validate.crossfile import CROSSFILE_RULES
        from sitemap_tui.validate.crossfile_sink import forget

        with store.guarded():
            if store.get_meta(CROSSFILE_KEY) is None:
                return False
            forget(store, CROSSFILE_RULES)
            store.set_meta(CROSSFILE_KEY, None)
            store.publish()
        return True

    def _crossfile_marker(self, store: Store, robots: dict[str, RobotsFile] | None) -> dict[str, Any]:
        """What the cross-file rules decide from besides the tree and its rows: the rules, the
        robots.txt files (those kept in the store when none are given, as the rules read
        them), the day the exploration started (lastmod-all-identical compares with it) and
        the version that decided them."""
        from sitemap_tui import __version__
        from sitemap_tui.engine.store.access import robots_texts
        from sitemap_tui.validate.crossfile_values import fetch_day

        texts = sorted((url, f.text) for url, f in robots.items()) if robots is not None else robots_texts(store.conn)
        digest = hashlib.sha256(json.dumps(texts).encode("utf-8", "surrogatepass")).hexdigest()
        rules = None if self.enabled is None else sorted(self.enabled)
        return {"version": __version__, "rules": rules, "robots": digest, "day": fetch_day(store)}

    async def deep(self, store: Store, fetch_config: FetchConfig | None, options: DeepOptions | None = None, *,
                   node_ids: Sequence[int] | None = None, cancel_event: asyncio.Event | None = None,
                   on_progress: Callable[[int, int], None] | None = None,
                   on_note: Callable[[str], None] = lambda _t: None) -> int:
        """Deep checks (live URL checks) on a sample of each sitemap's entries; returns the
        issues stored. ``on_note``: what the user must be told (pages robots.txt kept out)."""
        from sitemap_tui.validate.deep import DeepOptions, run_deep

        return await run_deep(store, fetch_config, options or DeepOptions(), enabled=self._set(),
                              node_ids=node_ids, cancel_event=cancel_event, on_progress=on_progress,
                              on_note=on_note)

    def _set(self) -> set[str] | None:
        return None if self.enabled is None else set(self.enabled)


@dataclass(frozen=True, slots=True)
class DeferredJudge:
    """The registry's judge, imported at the first finding rather than up front.

    Most files of a `urls` or `stats` run give no finding at all, and the registry (every rule
    family with its checks) costs about 30 ms of imports: on a 50,000-URL list that is 4 % of the
    run (bench/, issue 17). Plain data, so it pickles into worker processes like the judge itself.
    """

    enabled: frozenset[str] | None = None

    def issue(self, finding: Finding, node_id: int | None = None) -> Issue | None:
        return _registry_judge(self.enabled).issue(finding, node_id)

    def word(self, finding: Finding, node_id: int | None = None) -> Issue:
        return _registry_judge(self.enabled).word(finding, node_id)


@functools.cache
def _registry_judge(enabled: frozenset[str] | None) -> Judge:
    from sitemap_tui.validate.registry import RegistryJudge

    return RegistryJudge(enabled)


def site_based_rules() -> tuple[str, ...]:
    """The rules that judge URLs against the site a file is served from (named when a local
    file read as no site left them nothing to judge)."""
    from sitemap_tui.validate.registry import SITE_BASED_RULES

    return SITE_BASED_RULES


def robots_based_rules() -> tuple[str, ...]:
    """The rules that need the site's robots.txt (named when they did not run)."""
    from sitemap_tui.validate.registry import ROBOTS_BASED_RULES

    return ROBOTS_BASED_RULES

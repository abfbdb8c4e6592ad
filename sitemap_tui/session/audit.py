"""Where an audit runs and how it goes on: the exploration an unfinished audit of the same target
left (``--db FILE``, else the site's latest exploration kept in the cache by ``audit``), and the
audit itself over a store, with its state in the store's meta (``audit``: ``partial`` while it
runs or after a stop, ``complete`` once every URL has its answer)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from sitemap_tui import signals
from sitemap_tui.engine.audit import AuditOptions, Auditor
from sitemap_tui.engine.coverage import CoverageOptions, CoverageRun
from sitemap_tui.engine.discover import Target, TargetError
from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.store import Store, StoreError, StoreLock, inspect_store
from sitemap_tui.engine.store.schema import at_rest

AUDIT_STATE = "audit"  # meta key
PARTIAL, COMPLETE = "partial", "complete"


def _target_of(store: Store) -> str | None:
    raw = store.get_meta("target")
    if not isinstance(raw, str):
        return None
    try:
        return Target.parse(raw).url
    except TargetError:
        return None


def unfinished_audit(path: Path, target: Target) -> bool:
    """Whether ``path`` holds an exploration of ``target`` whose audit was stopped before its end."""
    try:
        found = inspect_store(path)
        if found is None or not found.holds_exploration:
            return False
        # immutable when nothing writes it: a read-only connection leaves -wal/-shm files it
        # cannot remove (found from outside: one pair beside the kept exploration per audit)
        store = Store(path, readonly=True, immutable=at_rest(path))
    except (StoreError, OSError):
        return False
    try:
        return store.get_meta(AUDIT_STATE) == PARTIAL and _target_of(store) == target.url
    finally:
        store.close()


def continued_audit(target: Target, db: str | None, history: bool) -> Path | None:
    """The exploration an audit of ``target`` goes on in, or None for a fresh one: ``--db``'s
    file, else (history on) the site's latest kept exploration, when its audit is unfinished."""
    if db:
        path = Path(db)
        return path if path.exists() and unfinished_audit(path, target) else None
    if not history:
        return None
    from sitemap_tui.session.history import explorations_of, site_key

    for saved in explorations_of(site_key(target))[:1]:
        if saved.summary.command == "audit" and unfinished_audit(saved.path, target):
            return saved.path
    return None


class AuditStore:
    """A kept exploration opened in place for its audit (the lock held: one run per file)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = StoreLock.acquire(path)
        try:
            self.store = Store(path)
        except BaseException:
            self.lock.release()
            raise

    def close(self) -> None:
        try:
            self.store.close()  # commits: every stored result is a finished URL
        finally:
            self.lock.release()


def run_audit(store: Store, config: FetchConfig, options: AuditOptions, *, on_note: Callable[[str], None],
              on_progress: Callable[[int], None] | None = None, coverage: CoverageOptions | None = None,
              time_left: float | None = None) -> bool:
    """Audit ``store``'s URLs (engine/audit.py), then the list and the crawl of ``coverage``
    (engine/coverage.py); the store's meta says whether all of it finished. A stop (Ctrl-C,
    SIGTERM) keeps what was stored and propagates; so does the end of ``time_left`` seconds
    (the run's budget), which returns False: the audit stays partial, for the next run to go on."""
    store.set_meta(AUDIT_STATE, PARTIAL)
    store.publish()
    auditor = Auditor(store, config, options, on_note=on_note, on_progress=on_progress)

    async def both() -> bool:
        try:
            async with asyncio.timeout(time_left):
                await auditor.run()
                if coverage is not None:
                    await CoverageRun(store, config, options, coverage, on_note=on_note, after=auditor).run()
        except TimeoutError:
            return False
        return True

    finished = asyncio.run(both())
    signals.check()  # a signal cancelled the run: it stays partial
    if finished:
        store.set_meta(AUDIT_STATE, COMPLETE)
        store.publish()
    return finished


async def audit_in_place(store: Store, config: FetchConfig, options: AuditOptions, *,
                         on_note: Callable[[str], None], on_progress: Callable[[int], None] | None = None,
                         whole: bool = False) -> int:
    """The explorer's audit, on the engine's own loop: as :func:`run_audit`, cancelled by
    cancelling its task (what was stored stays, the state stays partial). Only an audit of every
    sitemap (``whole``) marks the state complete: a node's audit leaves the others' URLs to do."""
    store.set_meta(AUDIT_STATE, PARTIAL)
    store.publish()
    fetched = await Auditor(store, config, options, on_note=on_note, on_progress=on_progress).run()
    if whole:
        store.set_meta(AUDIT_STATE, COMPLETE)
        store.publish()
    return fetched

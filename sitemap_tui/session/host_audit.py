"""The engine host's audit jobs (issue 22 §4): the explorer's audit of a node's URLs and the
crawler-access table, run on the host's loop beside its other commands (session/host.py); and
what a file fetched again makes out of date among the whole-tree results.

An audit is one task of the host's: cancelling it keeps every stored result, so the next audit
goes on where it stopped (the store's ``audit`` table is the record of what is done). The access
table is computed on a thread holding the store, as the cross-file rules are."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from sitemap_tui.engine.store.file import StoreError
from sitemap_tui.session.messages import AuditNote, AuditProgress, Done, Failed, Outdated, Reply

if TYPE_CHECKING:
    from sitemap_tui.engine.explorer import Explorer
    from sitemap_tui.session.validation import Validation


class AuditJobs:
    """Mixed into EngineHost: these are its attributes and methods the jobs use."""

    post: Callable[[Reply], None]
    explorer: Explorer | None
    store_failure: str | None
    validation: Validation
    _store_free: asyncio.Event
    _audit: asyncio.Task[None] | None = None  # the explorer's audit (x cancels it)
    _access_cancel: threading.Event | None = None  # set: the access table stops between batches
    _access_waiting: asyncio.Task[None] | None = None  # access(auto=True), waiting for idle

    if TYPE_CHECKING:  # EngineHost's own, for the type checker
        def _busy(self) -> bool: ...
        def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]: ...
        async def _run(self, what: str, fn: Callable[[Explorer], Awaitable[Any]], node_id: int | None) -> None: ...
        def _store_failed(self, exc: StoreError, node_id: int | None = None) -> None: ...

    def audit(self, node_ids: tuple[int, ...], *, whole: bool = False) -> None:
        """Fetch the URLs of these sitemaps not audited yet (``sitemap-tui audit``'s fetching,
        session/audit.py), with the explorer's fetch policy: its user agent, headers, address
        policy, concurrency and other-hosts choice; robots.txt obeyed, at the explorer's --rate."""
        if self._audit is not None and not self._audit.done():
            self.post(Failed("audit", "an audit is already running (x cancels it)", None))
            return
        if self.explorer is None:
            self.post(Failed("audit", "the engine is not running", None))
            return
        if self.store_failure is not None:
            self.post(Failed("store", self.store_failure, None))
            return

        async def go(ex: Explorer) -> int:
            from sitemap_tui.engine.audit import AuditOptions
            from sitemap_tui.engine.fetch import FetchConfig
            from sitemap_tui.engine.store.audit import todo_count
            from sitemap_tui.session.audit import audit_in_place

            assert ex.store is not None
            scope = None if whole else node_ids
            total = todo_count(ex.store, scope)
            self.post(AuditProgress(0, total))
            config = ex.fetch_config or FetchConfig()
            # as `sitemap-tui audit` with the same options: --concurrency, --timeout, other hosts
            options = AuditOptions(rate=ex.options.page_rate, concurrency=config.concurrency,
                                   timeout=config.total_timeout, node_ids=scope,
                                   follow_cross_host=ex.options.follow_cross_host)
            last = [0.0]

            def progress(done: int) -> None:
                now = time.monotonic()
                if now - last[0] >= 0.2:
                    last[0] = now
                    self.post(AuditProgress(done, total))

            said: set[str] = set()

            def note(text: str) -> None:
                if text not in said:
                    said.add(text)
                    self.post(AuditNote(text))

            from sitemap_tui.engine.store.access import robots_texts

            kept = len(robots_texts(ex.store.conn))
            fetched = await audit_in_place(ex.store, config, options, on_note=note, on_progress=progress,
                                           whole=whole)
            # the audit read a robots.txt the exploration had not (another host's): the crawler
            # matrix judges by it once the access table is computed again
            if len(robots_texts(ex.store.conn)) != kept and self._access_cancel is None and self._access_waiting is None:
                self.access(auto=True)
            return fetched

        self._audit = self._spawn(self._run("audit", go, None))

    def _say_outdated(self, node_id: int) -> None:
        """A file fetched again (not a 304: its rows are new): the cross-file issues describe the tree
        before it (a duplicate or a missing return link names the old copy, on other files too),
        so they are dropped; the crawler-access table, if computed, has its new rows to judge.
        Found by a review: after r, "listed with a different lastmod" stayed, quoting the old one."""
        from sitemap_tui.engine.store.access import computed

        store = self.explorer.store if self.explorer is not None else None
        if store is None or self.store_failure is not None:
            return
        try:
            parts: tuple[str, ...] = ("crossfile",) if self.validation.crossfile_outdated(store) else ()
            if computed(store.conn):
                parts += ("access",)
        except StoreError as exc:
            self._store_failed(exc, node_id)
            return
        if parts:
            self.post(Outdated(node_id, parts))

    def access(self, *, auto: bool = False) -> None:
        """Bring the crawler-access table up to date (robots.txt only; about 15 s of CPU for 1 M
        URLs × 10 agents): on a thread, holding the store as the cross-file rules do, so only
        while nothing is fetched; ``auto`` (the app's own run) waits for that instead."""
        if self.explorer is None or self.explorer.store is None:
            self.post(Failed("access", "the engine is not running", None))
            return
        if self.store_failure is not None:
            self.post(Failed("store", self.store_failure, None))
            return
        if self._access_cancel is not None or self._access_waiting is not None:
            self.post(Failed("access", "crawler access is already being computed", None))
            return
        if self._busy() or not self._store_free.is_set():
            if not auto:
                self.post(Failed("access", "files or checks are still running: wait for them, or cancel (x)", None))
                return
            # not in _tasks: the cross-file rules' own wait for idle would wait for this one
            self._access_waiting = asyncio.get_running_loop().create_task(self._access_when_idle())
            return
        self._spawn(self._access_run())

    async def _access_when_idle(self) -> None:
        while self._busy() or not self._store_free.is_set():
            await asyncio.sleep(0.05)
        self._access_waiting = None
        if self.explorer is not None and self.store_failure is None:
            self._spawn(self._access_run())

    async def _access_run(self) -> None:
        from sitemap_tui.engine.access import DEFAULT_AGENTS, compute
        from sitemap_tui.engine.store.access import AccessTable

        assert self.explorer is not None and self.explorer.store is not None
        store = self.explorer.store
        stop = self._access_cancel = threading.Event()
        self._store_free.clear()

        def work() -> int:
            with store.guarded():
                table = AccessTable(store.conn, publish=store.publish)
                compute(table, DEFAULT_AGENTS, stop=stop.is_set)
                counts = table.counts(DEFAULT_AGENTS)
                return counts.urls - counts.unknown  # judged: their origin's robots.txt was read

        job = asyncio.get_running_loop().run_in_executor(None, work)
        try:
            judged = await asyncio.shield(job)
        except asyncio.CancelledError:
            stop.set()  # the engine is stopping: the thread ends after its batch
            with contextlib.suppress(BaseException):
                await job
            raise
        except StoreError as exc:
            self._store_failed(exc)
        except Exception as exc:  # noqa: BLE001 - a failed computation is a message, never a crash
            self.post(Failed("access", f"{type(exc).__name__}: {exc}", None))
        else:
            self.post(Done("access", None, "cancelled" if stop.is_set() else judged))
        finally:
            self._access_cancel = None
            self._store_free.set()

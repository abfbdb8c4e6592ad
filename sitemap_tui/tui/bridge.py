"""The engine on its own thread with its own asyncio loop.

Fetching, parsing, validation and store writes never run on the UI loop: the UI sends
commands through thread-safe methods (``asyncio.run_coroutine_threadsafe``) and hears back
through one Textual message per engine event batch (``App.post_message`` is thread-safe).
A failing command becomes an :class:`EngineError` message, never a crash of the app.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitemap_tui.engine.discover import Target
from sitemap_tui.engine.events import Event
from sitemap_tui.tui.messages import (
    CommandDone,
    DeepProgress,
    EngineError,
    EngineEvents,
    EngineReady,
)

if TYPE_CHECKING:
    from textual.app import App

    from sitemap_tui.engine.explorer import ExploreOptions, Explorer
    from sitemap_tui.engine.fetch import FetchConfig


def make_checker() -> Any:
    """The validator: it streams issues into the store while files are parsed."""
    from sitemap_tui.validate.checker import Checker

    return Checker()


class EngineBridge:
    """Owns the Store writer and the Explorer, on a private thread."""

    def __init__(
        self,
        app: App[Any],
        db_path: Path,
        fetch_config: FetchConfig | None = None,
        options: ExploreOptions | None = None,
        *,
        checker_factory: Callable[[], Any] | None = make_checker,
    ) -> None:
        self.app = app
        self.db_path = Path(db_path)
        self.fetch_config = fetch_config
        self.options = options
        self.checker_factory = checker_factory
        self.explorer: Explorer | None = None
        self.start_error: str | None = None
        self.has_checker = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_event: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sitemap-engine", daemon=True)
        self._stopped = False
        self._deep_cancel: asyncio.Event | None = None

    # -- lifecycle (UI thread) -------------------------------------------------------------
    def start(self, timeout: float = 15.0) -> bool:
        """Start the engine thread; True once the store and explorer are ready."""
        self._thread.start()
        self._ready.wait(timeout)
        return self.explorer is not None and self.start_error is None

    @property
    def running(self) -> bool:
        return self._loop is not None and not self._stopped and self.explorer is not None

    def stop(self, timeout: float = 10.0) -> None:
        """Cancel everything, close the store and end the thread."""
        if self._stopped:
            return
        self._stopped = True
        loop, stop = self._loop, self._stop_event
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    # -- commands (any thread) -------------------------------------------------------------
    def open(self, target: Target | str) -> Future[Any] | None:
        return self._submit("open", lambda ex: ex.open(target), None)

    def expand(self, node_id: int) -> Future[Any] | None:
        return self._submit("expand", lambda ex: ex.expand(node_id), node_id)

    def expand_all(self, node_id: int) -> Future[Any] | None:
        return self._submit("expand-all", lambda ex: ex.expand_all(node_id), node_id)

    def reload(self, node_id: int) -> Future[Any] | None:
        return self._submit("reload", lambda ex: ex.reload(node_id), node_id)

    def deep(self, node_ids: list[int]) -> Future[Any] | None:
        """Deep checks (live URL checks) on a sample of the given sitemaps' entries."""
        try:
            from sitemap_tui.validate.deep import DeepOptions, run_deep
        except Exception:  # noqa: BLE001 - optional part of the validator
            self._post(EngineError("deep", "deep validation is not available in this build"))
            return None

        async def go(ex: Explorer) -> int:
            self._deep_cancel = asyncio.Event()
            last = [0.0]

            def progress(done: int, total: int) -> None:
                now = time.monotonic()
                if now - last[0] >= 0.2 or done >= total:
                    last[0] = now
                    self._post(DeepProgress(done, total))

            try:
                assert ex.store is not None
                found = await run_deep(
                    ex.store, ex.fetch_config, DeepOptions(), node_ids=node_ids,
                    cancel_event=self._deep_cancel, on_progress=progress,
                )
            finally:
                self._deep_cancel = None
                if ex.store is not None:
                    ex.store.commit()
                    ex.store.begin()
            return int(found or 0)

        return self._submit("deep", go, None)

    def cancel(self) -> None:
        """Stop an expand-all, deep checks and every file being fetched (back to pending)."""
        loop = self._loop
        if loop is None or loop.is_closed() or self._stopped:
            return

        def do_cancel() -> None:
            if self.explorer is not None:
                self.explorer.cancel()
            if self._deep_cancel is not None:
                self._deep_cancel.set()

        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(do_cancel)

    def call(self, what: str, fn: Callable[[Explorer], Awaitable[Any]], node_id: int | None = None) -> Future[Any] | None:
        """Run any coroutine against the explorer on the engine loop (deep checks, ...)."""
        return self._submit(what, fn, node_id)

    # -- engine thread ---------------------------------------------------------------------
    def _post(self, message: Any) -> None:
        with contextlib.suppress(Exception):  # the app may be gone while the engine winds down
            self.app.post_message(message)

    def _on_events(self, events: list[Event]) -> None:
        if events:
            self._post(EngineEvents(list(events)))

    def _submit(self, what: str, fn: Callable[[Explorer], Awaitable[Any]], node_id: int | None) -> Future[Any] | None:
        loop = self._loop
        if loop is None or loop.is_closed() or self._stopped or self.explorer is None:
            self._post(EngineError(what, "the engine is not running", node_id))
            return None

        async def run() -> Any:
            task = asyncio.current_task()
            if task is not None:
                self._tasks.add(task)
            try:
                assert self.explorer is not None
                result = await fn(self.explorer)
            except asyncio.CancelledError:
                self._post(CommandDone(what, node_id, "cancelled"))
                return None
            except KeyError as exc:
                self._post(EngineError(what, f"unknown node {exc}", node_id))
                return None
            except Exception as exc:  # noqa: BLE001 - never let an engine error kill the UI
                self._post(EngineError(what, f"{type(exc).__name__}: {exc}", node_id))
                return None
            finally:
                if task is not None:
                    self._tasks.discard(task)
            self._post(CommandDone(what, node_id, _plain(result)))
            return result

        try:
            return asyncio.run_coroutine_threadsafe(run(), loop)
        except RuntimeError as exc:
            self._post(EngineError(what, str(exc), node_id))
            return None

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        except Exception as exc:  # noqa: BLE001
            self.start_error = self.start_error or f"{type(exc).__name__}: {exc}"
            self._post(EngineError("engine", self.start_error))
        finally:
            self._ready.set()
            try:
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()

    async def _main(self) -> None:
        from sitemap_tui.engine.explorer import ExploreOptions, Explorer
        from sitemap_tui.engine.store import Store

        self._stop_event = asyncio.Event()
        store = None
        try:
            self.db_path.parent.mkdir(parents=True, exist_ok=True)
            store = Store(self.db_path)
            options = self.options or ExploreOptions()
            if options.body_cache is None:
                options = replace(options, body_cache=self.db_path.with_suffix(".bodies"))
            checker = self.checker_factory() if self.checker_factory else None
            self.has_checker = checker is not None
            async with Explorer(
                store=store,
                fetch_config=self.fetch_config,
                options=options,
                checker=checker,
                on_events=self._on_events,
            ) as explorer:
                self.explorer = explorer
                self._ready.set()
                self._post(EngineReady())
                await self._stop_event.wait()
                explorer.cancel()
                tasks = list(self._tasks)
                for task in tasks:
                    task.cancel()
                if tasks:
                    await asyncio.gather(*tasks, return_exceptions=True)
        except Exception as exc:  # noqa: BLE001
            self.start_error = f"{type(exc).__name__}: {exc}"
            self._post(EngineError("engine", self.start_error))
        finally:
            self.explorer = None
            if store is not None:
                with contextlib.suppress(Exception):
                    store.close()
            self._ready.set()


def _plain(result: Any) -> Any:
    """Command results cross threads; keep only simple values (a root node becomes its id)."""
    if isinstance(result, bool | int | str) or result is None:
        return result
    node_id = getattr(result, "id", None)
    return node_id if isinstance(node_id, int) else None

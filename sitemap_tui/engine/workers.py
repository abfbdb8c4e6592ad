"""Worker processes that run FileJobs, so parsing and checking use every core and never block
the explorer's event loop.

Each worker owns its own event loop, Fetcher and checker copy, and handles one file at a time.
Messages come back through one bounded queue: when the explorer (the single SQLite writer)
falls behind, workers block instead of piling batches up in memory."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing as mp
import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.filejob import JobDone, JobMessage, JobSpec

RESULT_QUEUE_SIZE = 64


@dataclass(slots=True)
class _Crashed:
    node_id: int
    error: str


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def _exit_when_orphaned(parent: int) -> None:
    """A worker whose explorer's process was killed ends at once: nobody reads its results any more,
    and the queues' feeder threads would otherwise block its exit forever."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


def _worker_main(jobs: Any, results: Any, cancel: Any, fetch_config: FetchConfig, checker: Any, parent: int) -> None:
    import gc

    from sitemap_tui.engine.fetch import Fetcher
    from sitemap_tui.engine.filejob import FileJob

    # batches of short-lived entries trip the cyclic collector constantly; none of them form
    # cycles, so collect far less often
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)

    # the creator's pid comes as an argument: it may be gone before this process got this far
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        async with Fetcher(fetch_config) as fetcher:
            while True:
                spec = await loop.run_in_executor(None, jobs.get)
                if spec is None:
                    return
                try:
                    job = FileJob(spec, results.put, checker, cancelled=cancel.is_set)
                    done = await job.run(fetcher)
                    results.put(done)
                except Exception as exc:  # the explorer turns this into a node error
                    results.put(_Crashed(spec.node_id, f"{type(exc).__name__}: {exc}"))

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())


class WorkerPool:
    """Started lazily; ``run(spec, emit)`` awaits one file's JobDone, routing its messages."""

    def __init__(self, size: int, fetch_config: FetchConfig, checker: Any = None) -> None:
        self.size = size
        self._ctx = mp.get_context("spawn")  # never fork a process that may run threads
        self._jobs: Any = self._ctx.Queue()
        self._results: Any = self._ctx.Queue(RESULT_QUEUE_SIZE)
        self._cancel: Any = self._ctx.Event()
        self._procs: list[Any] = []
        self._fetch_config = fetch_config
        self._checker = checker
        self._routes: dict[int, tuple[Callable[[JobMessage], None], asyncio.Future[JobDone]]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reader: threading.Thread | None = None
        self._slots: asyncio.Semaphore | None = None

    def _start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._slots = asyncio.Semaphore(self.size)
        for _ in range(self.size):
            proc = self._ctx.Process(
                target=_worker_main,
                args=(self._jobs, self._results, self._cancel, self._fetch_config, self._checker, os.getpid()),
                daemon=True,
            )
            proc.start()
            self._procs.append(proc)
        self._reader = threading.Thread(target=self._read, name="sitemap-tui-results", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._loop is not None
        while True:
            try:
                msg = self._results.get(timeout=0.5)
            except queue.Empty:
                if not any(p.is_alive() for p in self._procs):
                    return
                continue
            except (EOFError, OSError):
                return
            if msg is None:
                return
            self._loop.call_soon_threadsafe(self._deliver, msg)

    def _deliver(self, msg: Any) -> None:
        route = self._routes.get(msg.node_id)
        if route is None:
            return
        emit, fut = route
        if isinstance(msg, JobDone):
            if not fut.done():
                fut.set_result(msg)
        elif isinstance(msg, _Crashed):
            if not fut.done():
                fut.set_exception(RuntimeError(msg.error))
        else:
            emit(msg)

    async def run(self, spec: JobSpec, emit: Callable[[JobMessage], None]) -> JobDone:
        if not self._procs:
            self._start()
        assert self._slots is not None and self._loop is not None
        async with self._slots:
            fut: asyncio.Future[JobDone] = self._loop.create_future()
            self._routes[spec.node_id] = (emit, fut)
            try:
                self._jobs.put(spec)
                return await fut
            finally:
                self._routes.pop(spec.node_id, None)

    def cancel_running(self) -> None:
        """Ask the running files to stop at their next chunk (they report back as cancelled)."""
        self._cancel.set()

    def resume(self) -> None:
        self._cancel.clear()

    def close(self) -> None:
        for _ in self._procs:
            self._jobs.put(None)
        for proc in self._procs:
            proc.join(timeout=2)
            if proc.is_alive():
                proc.terminate()
        self._results.put(None)
        if self._reader is not None:
            self._reader.join(timeout=2)
        self._procs.clear()

"""The engine as a service: one Store writer and one Explorer on an asyncio loop, driven by commands
and reporting through plain, picklable messages (sitemap_tui/session/messages.py).

It runs on the interface's behalf either on a thread of the interface's process or, for real use,
in a process of its own (:func:`run_in_process`): there, store writes, result unpickling and event
batching never compete with the interface for its interpreter lock, so the interface's event loop
is not stalled by the engine's work.

Replies (``post(message)``): ``Ready`` once commands are accepted; ``Events`` batches; ``Done``
when a command finished (``"cancelled"`` when it was); ``Failed`` when a command, the store
(``"store"``: nothing more is written) or the engine itself (``"engine"``) failed;
``DeepProgress``, ``CrossfileStep`` and ``SearchProgress`` while the deep checks, the cross-file
rules and the search index run. The validation stages come from one
:class:`~sitemap_tui.session.validation.Validation`, as for the headless ``validate``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitemap_tui.engine.events import Event
from sitemap_tui.engine.store.file import StoreError, StoreLock
from sitemap_tui.session.host_audit import AuditJobs
from sitemap_tui.session.messages import (
    Access,
    Audit,
    AuditNote,
    Cancel,
    Command,
    Crossfile,
    CrossfileStep,
    Deep,
    DeepProgress,
    Done,
    Events,
    Exited,
    Expand,
    Failed,
    Follow,
    Index,
    Open,
    Ready,
    Reply,
    SearchProgress,
    Stop,
)
from sitemap_tui.session.validation import Validation

if TYPE_CHECKING:
    from sitemap_tui.engine.explorer import ExploreOptions, Explorer
    from sitemap_tui.engine.fetch import FetchConfig
    from sitemap_tui.engine.refetch import Refetch

Post = Callable[[Reply], None]
ENGINE_NICENESS = 19
SEARCH_MIN_ENTRIES = 200_000
"""Below this many stored URLs a substring filter scans fast enough; no search index is built."""
SEARCH_CHUNK = 10_000
"""Entries indexed per step (~0.1 s of the engine loop, so a command waits at most that long)."""


VALIDATION = Validation()
"""The explorer runs every rule; its panes filter what they show."""


def make_checker() -> Any:
    """The validator: it streams issues into the store while files are parsed."""
    return VALIDATION.checker()


class EngineHost(AuditJobs):
    """Owns the Store writer and the Explorer while :meth:`serve` runs on the engine's loop."""

    def __init__(
        self,
        post: Post,
        db_path: Path,
        fetch_config: FetchConfig | None = None,
        options: ExploreOptions | None = None,
        checker_factory: Callable[[], Any] | None = make_checker,
        validation: Validation = VALIDATION,
    ) -> None:
        self.post = post
        self.validation = validation  # the cross-file rules and deep checks
        self.db_path = Path(db_path)
        self.fetch_config = fetch_config
        self.options = options
        self.checker_factory = checker_factory
        self.explorer: Explorer | None = None
        self.start_error: str | None = None
        self._stop: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._deep_cancel: asyncio.Event | None = None
        self._indexing: asyncio.Task[None] | None = None
        # open while the cross-file rules own the store: commands wait for them
        self._store_free = asyncio.Event()
        self._store_free.set()
        self._crossfile_cancel: threading.Event | None = None
        self._crossfile_waiting: asyncio.Task[None] | None = None  # crossfile(when_idle=True)
        self.store_failure: str | None = None  # why the store cannot be written, once it cannot
        self.previous: Refetch | None = None  # what the exploration asks against (options.refetch)
        self._notes_said = 0  # of previous.notes
        self._audit: asyncio.Task[None] | None = None
        self._access_cancel: threading.Event | None = None
        self._access_waiting: asyncio.Task[None] | None = None

    # -- commands (on the engine loop) -------------------------------------------------------
    def command(self, cmd: Command) -> None:
        """Dispatch one command message; unknown ones are reported, never raised."""
        if isinstance(cmd, Stop):
            self.stop()
        elif isinstance(cmd, Cancel):
            self.cancel()
        elif isinstance(cmd, Open):
            self.submit("open", partial(self._open, cmd.target), None)
        elif isinstance(cmd, Expand) and cmd.what in ("expand", "expand-all", "reload", "refetch"):
            node_id = int(cmd.node_id)
            run: Callable[[Explorer], Awaitable[Any]] = {
                "expand": lambda ex: ex.expand(node_id),
                "expand-all": lambda ex: ex.expand_all(node_id),
                "reload": lambda ex: ex.reload(node_id),
                "refetch": lambda ex: ex.reload(node_id, conditional=False),
            }[cmd.what]
            self.submit(cmd.what, run, node_id)
        elif isinstance(cmd, Deep):
            self.deep(list(cmd.node_ids))
        elif isinstance(cmd, Crossfile):
            self.crossfile(when_idle=cmd.when_idle)
        elif isinstance(cmd, Follow):
            self.follow(cmd.cross_host)
        elif isinstance(cmd, Audit):
            self.audit(cmd.node_ids, whole=cmd.whole)
        elif isinstance(cmd, Access):
            self.access(auto=cmd.auto)
        elif isinstance(cmd, Index):
            self.index(cmd.name)
        else:  # a message from a newer or foreign interface
            what = str(getattr(cmd, "what", type(cmd).__name__))
            self.post(Failed(what, f"unknown engine command {what!r}", None))

    def index(self, name: str) -> None:
        """A sort's index, built on the engine's writer between two of its own writes."""
        store = self.explorer.store if self.explorer is not None else None
        if store is None or self.store_failure is not None:
            self.post(Failed("index", self.store_failure or "the engine is not running", None))
            return
        try:
            store.ensure_index(name)
            store.publish()
        except (StoreError, sqlite3.Error, KeyError) as exc:
            self.post(Failed("index", str(exc), None))
            return
        self.post(Done("index", None, name))

    def follow(self, cross_host: bool) -> None:
        """Follow index children on other hosts from the next file on (a copy of the options:
        on a thread, the interface's own object must not change under it)."""
        if self.explorer is None:
            self.post(Failed("follow", "the engine is not running", None))
            return
        self.explorer.options = replace(self.explorer.options, follow_cross_host=cross_host)
        self.post(Done("follow", None, cross_host))

    def stop(self) -> None:
        if self._access_waiting is not None:
            self._access_waiting.cancel()
        if self._stop is not None:
            self._stop.set()

    def cancel(self) -> None:
        """Stop an expand-all, deep checks and every file being fetched (back to pending)."""
        if self.explorer is not None:
            self.explorer.cancel()
        if self._deep_cancel is not None:
            self._deep_cancel.set()
        if self._audit is not None:
            self._audit.cancel()  # what was stored stays: a second audit goes on from there
        if self._access_cancel is not None:
            self._access_cancel.set()
        if self._access_waiting is not None:
            self._access_waiting.cancel()
            self._access_waiting = None
            self.post(Done("access", None, "cancelled"))
        if self._crossfile_waiting is not None:
            # (a task cancelled before its first step never runs: the answer is given here)
            self._crossfile_waiting.cancel()
            self._crossfile_waiting = None
            self.post(Done("crossfile", None, "cancelled"))
        self._interrupt_crossfile()

    def _interrupt_crossfile(self) -> None:
        if self._crossfile_cancel is not None:
            self._crossfile_cancel.set()  # the rules stop before their next step ...
            if self.explorer is not None and self.explorer.store is not None:
                self.explorer.store.conn.interrupt()  # ... or in the middle of a long statement

    def submit(self, what: str, fn: Callable[[Explorer], Awaitable[Any]], node_id: int | None) -> None:
        if self.explorer is None:
            self.post(Failed(what, "the engine is not running", node_id))
            return
        if self.store_failure is not None:
            self.post(Failed("store", self.store_failure, node_id))
            return
        self._spawn(self._run(what, fn, node_id))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """A task the host waits for on stop and counts as work in progress (``_busy``)."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _run(self, what: str, fn: Callable[[Explorer], Awaitable[Any]], node_id: int | None) -> None:
        try:
            assert self.explorer is not None
            await self._store_free.wait()
            result = await fn(self.explorer)
        except asyncio.CancelledError:
            self.post(Done(what, node_id, "cancelled"))
            return
        except StoreError as exc:
            self._store_failed(exc, node_id)
            return
        except KeyError as exc:
            self.post(Failed(what, f"unknown node {exc}", node_id))
            return
        except Exception as exc:  # noqa: BLE001 - an engine error is a message, never a crash
            self.post(Failed(what, f"{type(exc).__name__}: {exc}", node_id))
            return
        finally:
            self._index_when_idle()
            self._say_refetch_notes()
        self.post(Done(what, node_id, _plain(result)))
        if what in ("reload", "refetch") and result is True and node_id is not None:
            self._say_outdated(node_id)

    # -- the re-exploration (issue 20 §3) ----------------------------------------------------
    async def _open(self, target: Any, ex: Explorer) -> Any:
        """Open ``target``, keyed in the store by its site as a headless run keys its own
        (session/history.py): a local target's key is its absolute path, which the file's name
        ("local-STAMP.db") cannot give, so the explorer's explorations join the site's history.
        With ``options.refetch``, its files are asked for against the site's latest exploration."""
        from sitemap_tui.engine.discover import Target
        from sitemap_tui.session.history import site_key

        t = target if isinstance(target, Target) else Target.parse(target)
        # judged by every rule with the defaults (VALIDATION), as validate without options: a
        # later run judged alike may carry this one's files (open_previous matches on it)
        checks = "all" if self.checker_factory is not None else "none"
        if ex.store is not None:
            ex.store.set_meta("site", site_key(t))
            ex.store.set_meta("checks", checks)
        if ex.options.refetch and self.previous is None:
            self._use_previous(t, ex, checks)
        return await ex.open(t)

    def _use_previous(self, target: Any, ex: Explorer, checks: str) -> None:
        from sitemap_tui.session.history import open_previous

        # the explorer's own store is in the cache already, the newest of its site: excluded,
        # so that it is never ATTACHed to itself; the previous one is only ever read
        previous, problem = open_previous(target, checks, exclude=self.db_path)
        if problem:
            self.post(Failed("cache", problem, None))
        if previous is None:
            return
        if ex.use_previous(previous):
            self.previous = previous
        else:
            self._say_refetch_notes(previous)
            previous.close()

    def _say_refetch_notes(self, previous: Refetch | None = None) -> None:
        """What the re-exploration could not carry over (fetched in full instead): said, once."""
        previous = previous or self.previous
        if previous is None:
            return
        for note in previous.notes[self._notes_said:]:
            self.post(Failed("cache", note, None))
        self._notes_said = len(previous.notes)

    def _store_failed(self, exc: StoreError, node_id: int | None = None) -> None:
        """The store refused a write: stop every fetch (what they found could not be kept) and
        say so, for the command's node too (its fetch is over)."""
        if self.explorer is not None:
            self.explorer.cancel()
        if self.store_failure is None:
            self.store_failure = str(exc)
        self.post(Failed("store", self.store_failure, node_id))

    # -- the substring search index, built while nothing else runs ----------------------------
    def _busy(self) -> bool:
        current = asyncio.current_task()
        return any(t is not current and not t.done() for t in self._tasks) or bool(
            self.explorer is not None and self.explorer.busy
        )

    def _index_when_idle(self) -> None:
        if self._indexing is None or self._indexing.done():
            self._indexing = asyncio.get_running_loop().create_task(self._index())

    async def _index(self) -> None:
        """Extend the search index a chunk at a time until it covers every entry, yielding to
        the loop between chunks and stopping as soon as a command runs (its end restarts this)."""
        await asyncio.sleep(0.5)  # let a burst of commands (expand one node after another) start
        explorer = self.explorer
        store = explorer.store if explorer is not None else None
        if store is None or self._busy():
            return
        try:
            total = store.last_entry_id()
            if total < SEARCH_MIN_ENTRIES:
                return
            last_post = 0.0
            while not self._busy() and not (self._stop is not None and self._stop.is_set()):
                added = store.extend_search(SEARCH_CHUNK)
                store.publish()
                covered = store.search_upto() or 0
                now = time.monotonic()
                if not added or now - last_post >= 0.5:
                    last_post = now
                    self.post(SearchProgress(min(covered, total), total))
                if not added:
                    return
                await asyncio.sleep(0)
        except StoreError as exc:
            self._store_failed(exc)
        except Exception as exc:  # noqa: BLE001 - the scan still answers every filter
            self.post(Failed("search", f"cannot build the search index: {exc}", None))

    def deep(self, node_ids: list[int]) -> None:
        """Deep checks (live URL checks) on a sample of the given sitemaps' entries."""

        async def go(ex: Explorer) -> int:
            self._deep_cancel = asyncio.Event()
            last = [0.0]

            def progress(done: int, total: int) -> None:
                now = time.monotonic()
                if now - last[0] >= 0.2 or done >= total:
                    last[0] = now
                    self.post(DeepProgress(done, total))

            from sitemap_tui.validate.deep import DeepOptions

            try:
                assert ex.store is not None
                found = await self.validation.deep(
                    ex.store, ex.fetch_config, DeepOptions(rate=ex.options.page_rate), node_ids=node_ids,
                    cancel_event=self._deep_cancel, on_progress=progress,
                    on_note=lambda text: self.post(AuditNote(text, "deep checks")),
                )
            finally:
                self._deep_cancel = None
                if ex.store is not None:
                    ex.store.publish()
            return int(found or 0)

        self.submit("deep", go, None)

    def crossfile(self, when_idle: bool = False) -> None:
        """The cross-file rules (duplicates across sitemaps, hreflang reciprocity, robots.txt,
        mixed hosts ...) over everything stored so far, replacing their earlier issues.

        They read and write the whole store for seconds (~30 s on 10 M URLs), on a thread so
        the loop still answers; commands that arrive meanwhile wait, and ``cancel`` interrupts
        them (the store is left as it was). They only start when no fetch is running: asked
        while one is, they are refused, or with ``when_idle`` (the app's own request after an
        expand-all, which a fetch the user started may outlast) they start once it ends."""
        if self.explorer is None:
            self.post(Failed("crossfile", "the engine is not running", None))
            return
        if self.store_failure is not None:
            self.post(Failed("store", self.store_failure, None))
            return
        if self._crossfile_cancel is not None or self._crossfile_waiting is not None:
            self.post(Failed("crossfile", "the cross-file checks are already running", None))
            return
        if self._busy() or not self._store_free.is_set():  # (crawler access holds it too)
            if when_idle:
                self._crossfile_waiting = self._spawn(self._crossfile_when_idle())
            else:
                what = "files are still being fetched" if self._busy() else "another check is running"
                self.post(Failed("crossfile", f"{what}: wait for them, or cancel (x)", None))
            return
        store = self.explorer.store
        if store is None:
            self.post(Failed("crossfile", "there is no store to check", None))
            return
        # a saved exploration (nothing opened here) has its robots.txt files in the store only
        robots = dict(self.explorer.robots) or None
        self._store_free.clear()
        cancel = self._crossfile_cancel = threading.Event()

        def step(what: str) -> None:  # on the rules' thread; post is thread-safe
            self.post(CrossfileStep(what))

        def rules() -> int:
            return self.validation.crossfile(store, robots=robots, cancel=cancel, on_step=step)

        async def run() -> None:
            work = asyncio.get_running_loop().run_in_executor(None, rules)
            try:
                found = await asyncio.shield(work)
            except asyncio.CancelledError:
                # the engine is stopping: the thread must be done with the store before it is
                # closed, and what it wrote must not be committed by the close
                self._interrupt_crossfile()
                with contextlib.suppress(BaseException):
                    await work
                with contextlib.suppress(Exception):
                    store.rollback()
                raise
            except Exception as exc:  # noqa: BLE001 - a failed check is a message, never a crash
                with contextlib.suppress(Exception):  # the message below must go out regardless
                    store.rollback()
                if isinstance(exc, StoreError):
                    self._store_failed(exc)
                elif cancel.is_set():
                    self.post(Done("crossfile", None, "cancelled"))
                else:
                    self.post(Failed("crossfile", f"{type(exc).__name__}: {exc}", None))
            else:
                try:
                    store.publish()
                except StoreError as exc:
                    self._store_failed(exc)
                else:
                    self.post(Done("crossfile", None, found))
            finally:
                self._crossfile_cancel = None
                self._store_free.set()
                if not (self._stop is not None and self._stop.is_set()):
                    self._index_when_idle()

        self._spawn(run())

    async def _crossfile_when_idle(self) -> None:
        while self._busy() or not self._store_free.is_set():  # (this task is not counted)
            await asyncio.sleep(0.05)
        self._crossfile_waiting = None
        self.crossfile()

    # -- lifetime ----------------------------------------------------------------------------
    def _on_events(self, events: list[Event]) -> None:
        if events:
            self.post(Events(list(events)))

    async def serve(self, started: Callable[[], None] = lambda: None) -> None:
        """Open the store and explorer, report ready, and run until :meth:`stop`."""
        from sitemap_tui.engine.explorer import ExploreOptions, Explorer
        from sitemap_tui.engine.store import Store

        self._stop = asyncio.Event()
        store = None
        lock: StoreLock | None = None
        try:
            self.db_path.parent.mkdir(parents=True, exist_ok=True)
            lock = StoreLock.acquire(self.db_path)  # one writer per store, across processes
            store = Store(self.db_path)
            options = self.options or ExploreOptions()
            if options.body_cache is None:
                from sitemap_tui.engine.bodycache import bodies_beside

                options = replace(options, body_cache=bodies_beside(self.db_path))
            checker = self.checker_factory() if self.checker_factory else None
            async with Explorer(
                store=store,
                fetch_config=self.fetch_config,
                options=options,
                checker=checker,
                on_events=self._on_events,
                judge=self.validation.judge(),
            ) as explorer:
                self.explorer = explorer
                started()
                self.post(Ready())
                self._index_when_idle()  # a saved exploration may still lack its search index
                await self._stop.wait()
                explorer.cancel()
                tasks = list(self._tasks)
                if self._indexing is not None:
                    tasks.append(self._indexing)  # it stops between chunks
                for task in tasks:
                    task.cancel()
                if tasks:
                    await asyncio.gather(*tasks, return_exceptions=True)
        except Exception as exc:  # noqa: BLE001
            self.start_error = str(exc) if isinstance(exc, StoreError) else f"{type(exc).__name__}: {exc}"
            self.post(Failed("engine", self.start_error, None))
        finally:
            self.explorer = None
            if self.previous is not None:
                with contextlib.suppress(Exception):
                    self.previous.close()
                self.previous = None
            if store is not None:
                with contextlib.suppress(Exception):
                    store.close()
            if lock is not None:
                lock.release()
            started()


def _plain(result: Any) -> Any:
    """Command results cross threads or processes; keep only simple values (a node becomes its id)."""
    if isinstance(result, bool | int | str) or result is None:
        return result
    node_id = getattr(result, "id", None)
    return node_id if isinstance(node_id, int) else None


# -- the engine in a process of its own --------------------------------------------------------
def run_in_process(conn: Any, db_path: Path, fetch_config: FetchConfig | None, options: ExploreOptions | None,
                   with_checker: bool) -> None:
    """Entry point of the engine process (``spawn``): commands arrive on ``conn`` and replies go
    back on it (both sitemap_tui/session/messages.py). The process ends when told to stop or when the interface's end of the
    pipe closes (the interface quit or died)."""
    import gc

    from sitemap_tui.signals import leave_hangup_to_parent

    leave_hangup_to_parent(term_as_interrupt=True)
    log = _quiet_stderr(Path(db_path))
    # the interface must win the CPU when it needs it: on a machine with fewer cores than busy
    # processes, the engine and its workers (which inherit this) yield to the interface's frames
    with contextlib.suppress(OSError, AttributeError):
        os.nice(ENGINE_NICENESS)
    # the engine's many short-lived rows trip the cyclic collector constantly, none form cycles
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)

    send_lock = threading.Lock()

    def post(msg: Reply) -> None:
        with send_lock, contextlib.suppress(OSError, ValueError):
            conn.send(msg)

    host = EngineHost(post, db_path, fetch_config, options, make_checker if with_checker else None)

    async def main() -> None:
        loop = asyncio.get_running_loop()

        def read_commands() -> None:
            while True:
                try:
                    msg = conn.recv()
                except (EOFError, OSError):
                    msg = Stop()
                try:
                    loop.call_soon_threadsafe(host.command, msg)
                except RuntimeError:  # the loop is closed: the engine is gone already
                    return
                if isinstance(msg, Stop):
                    return

        threading.Thread(target=read_commands, name="sitemap-engine-commands", daemon=True).start()
        await host.serve()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
    post(Exited())
    with contextlib.suppress(OSError):
        conn.close()
        if log is not None and log.stat().st_size == 0:
            log.unlink()  # nothing went wrong: no log left beside the exploration


def _quiet_stderr(db_path: Path) -> Path | None:
    """The interface owns the terminal: the engine's (and its workers') stray output goes to a log
    beside the exploration instead of over the screen, and nothing reads the terminal's input."""
    path: Path | None = db_path.with_suffix(".log")
    try:
        log = open(db_path.with_suffix(".log"), "ab", buffering=0)  # noqa: SIM115 - lives as long as the process
    except OSError:
        path = None
        log = open(os.devnull, "wb", buffering=0)  # noqa: SIM115
    os.dup2(log.fileno(), 1)
    os.dup2(log.fileno(), 2)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
    return path


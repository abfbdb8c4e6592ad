"""The interface's side of the engine (:class:`sitemap_tui.session.host.EngineHost`).

Two ways to run it, with the same commands and the same Textual messages back:

- :class:`EngineProcess` (what ``sitemap-tui`` uses): the engine in a process of its own. The
  interface's process then only renders; the engine's store writes, result unpickling and event
  batching cannot hold its interpreter lock, which is what stalled the UI loop for 100–300 ms at a
  time while a big index streamed in.
- :class:`EngineBridge`: the engine on a thread of this process (quick to start; used by tests that
  exercise the panes, and where processes cannot be spawned).

Commands are fire-and-forget (sitemap_tui/session/messages.py); results arrive as :class:`CommandDone` / :class:`EngineError`
messages, events as :class:`EngineEvents` (``App.post_message`` is thread-safe). A failing command
becomes an error message, never a crash of the app.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitemap_tui.engine.discover import Target
from sitemap_tui.session import messages as wire  # what crosses to and from the engine
from sitemap_tui.session.host import EngineHost, make_checker
from sitemap_tui.tui.messages import (
    AuditNote,
    AuditProgress,
    CommandDone,
    CrossfileProgress,
    DeepProgress,
    EngineError,
    EngineEvents,
    EngineReady,
    Outdated,
    SearchProgress,
)

if TYPE_CHECKING:
    from textual.app import App

    from sitemap_tui.engine.explorer import ExploreOptions
    from sitemap_tui.engine.fetch import FetchConfig

__all__ = ["EngineBridge", "EngineProcess", "make_checker"]


class _Base(ABC):
    def __init__(self, app: App[Any], db_path: Path, fetch_config: FetchConfig | None,
                 options: ExploreOptions | None) -> None:
        self.app = app
        self.db_path = Path(db_path)
        self.fetch_config = fetch_config
        self.options = options
        self._ready = False
        self._stopped = False

    @property
    def running(self) -> bool:
        return self._ready and not self._stopped

    def _post(self, message: Any) -> None:
        with contextlib.suppress(Exception):  # the app may be gone while the engine winds down
            self.app.post_message(message)

    def _receive(self, msg: wire.Reply) -> None:
        """One engine message, as the matching Textual message."""
        if isinstance(msg, wire.Events):
            self._post(EngineEvents(list(msg.events)))
        elif isinstance(msg, wire.Done):
            self._post(CommandDone(msg.what, msg.node_id, msg.result))
        elif isinstance(msg, wire.Failed):
            self._post(EngineError(msg.what, msg.message, msg.node_id))
        elif isinstance(msg, wire.DeepProgress):
            self._post(DeepProgress(msg.done, msg.total))
        elif isinstance(msg, wire.SearchProgress):
            self._post(SearchProgress(msg.covered, msg.total))
        elif isinstance(msg, wire.CrossfileStep):
            self._post(CrossfileProgress(msg.step))
        elif isinstance(msg, wire.AuditProgress):
            self._post(AuditProgress(msg.done, msg.total))
        elif isinstance(msg, wire.AuditNote):
            self._post(AuditNote(msg.text, msg.title))
        elif isinstance(msg, wire.Outdated):
            self._post(Outdated(msg.node_id, msg.parts))
        elif isinstance(msg, wire.Ready):
            self._ready = True
            self._post(EngineReady())

    @abstractmethod
    def _send(self, command: wire.Command) -> bool:
        """Hand one command to the engine; False when it cannot be delivered."""

    def _command(self, command: wire.Command, node_id: int | None = None) -> bool:
        if not self.running or not self._send(command):
            self._post(EngineError(command.what, "the engine is not running", node_id))
            return False
        return True

    # -- commands (any thread); True when sent ----------------------------------------------
    def open(self, target: Target | str) -> bool:
        return self._command(wire.Open(Target.parse(target) if isinstance(target, str) else target))

    def expand(self, node_id: int) -> bool:
        return self._command(wire.Expand(node_id, "expand"), node_id)

    def expand_all(self, node_id: int) -> bool:
        return self._command(wire.Expand(node_id, "expand-all"), node_id)

    def reload(self, node_id: int) -> bool:
        return self._command(wire.Expand(node_id, "reload"), node_id)

    def refetch(self, node_id: int) -> bool:
        """Fetch the node again, unconditionally (its children are decided anew)."""
        return self._command(wire.Expand(node_id, "refetch"), node_id)

    def follow_hosts(self, cross_host: bool) -> bool:
        """Follow index children on other hosts (or not) from now on."""
        return self._command(wire.Follow(cross_host))

    def deep(self, node_ids: list[int]) -> bool:
        """Deep checks (live URL checks) on a sample of the given sitemaps' entries."""
        return self._command(wire.Deep(tuple(node_ids)))

    def crossfile(self, *, when_idle: bool = False) -> bool:
        """The cross-file rules over the whole store (replacing their earlier issues);
        ``when_idle``: start once the fetches in progress end instead of being refused."""
        return self._command(wire.Crossfile(when_idle))

    def audit(self, node_ids: list[int], *, whole: bool = False) -> bool:
        """Fetch these sitemaps' URLs not audited yet (status, indexability); ``whole``: every
        sitemap of the exploration."""
        return self._command(wire.Audit(tuple(node_ids), whole))

    def access(self, *, auto: bool = False) -> bool:
        """Bring the crawler-access table up to date (robots.txt only); ``auto``: once idle."""
        return self._command(wire.Access(auto))

    def index(self, name: str) -> bool:
        """Have the engine build a sort's index (messages.Index): the interface writes nothing.
        False, silently, without a running engine (the caller builds it itself then)."""
        return self.running and self._command(wire.Index(name))

    def cancel(self) -> None:
        """Stop an expand-all, deep checks, cross-file checks and every file being fetched."""
        if self.running:
            self._send(wire.Cancel())


class EngineBridge(_Base):
    """The engine on a private thread with its own asyncio loop."""

    def __init__(
        self,
        app: App[Any],
        db_path: Path,
        fetch_config: FetchConfig | None = None,
        options: ExploreOptions | None = None,
        *,
        checker_factory: Callable[[], Any] | None = make_checker,
    ) -> None:
        super().__init__(app, db_path, fetch_config, options)
        self.host = EngineHost(self._receive, self.db_path, fetch_config, options, checker_factory)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sitemap-engine", daemon=True)

    def start(self, timeout: float = 15.0) -> bool:
        """Start the engine thread; True once the store and explorer are ready."""
        self._thread.start()
        self._started.wait(timeout)
        return self.running

    def _send(self, command: wire.Command) -> bool:
        loop = self._loop
        if loop is None or loop.is_closed():
            return False
        try:
            loop.call_soon_threadsafe(self.host.command, command)
        except RuntimeError:
            return False
        return True

    def stop(self, timeout: float = 10.0) -> None:
        """Cancel everything, close the store and end the thread."""
        if self._stopped:
            return
        self._send(wire.Stop())
        self._stopped = True
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        try:
            loop.run_until_complete(self.host.serve(self._started.set))
        finally:
            self._started.set()
            try:
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()


class EngineProcess(_Base):
    """The engine in a spawned process; messages cross a pipe, read by a thread of this process."""

    def __init__(
        self,
        app: App[Any],
        db_path: Path,
        fetch_config: FetchConfig | None = None,
        options: ExploreOptions | None = None,
        *,
        with_checker: bool = True,
    ) -> None:
        super().__init__(app, db_path, fetch_config, options)
        self.with_checker = with_checker
        self._conn: Any = None
        self._proc: Any = None
        self._reader: threading.Thread | None = None
        self._started = threading.Event()
        self._send_lock = threading.Lock()

    @property
    def running(self) -> bool:
        # a process killed from outside is gone before its pipe says so
        return super().running and self.alive

    # -- the engine process, as tests and diagnostics see it ---------------------------------
    @property
    def pid(self) -> int | None:
        """The engine process's id, once started."""
        return None if self._proc is None else self._proc.pid

    @property
    def alive(self) -> bool:
        """Whether the engine process is running (a process killed from outside is not)."""
        return self._proc is not None and self._proc.is_alive()

    @property
    def exitcode(self) -> int | None:
        """The engine process's exit status once it ended (None while it runs)."""
        return None if self._proc is None else self._proc.exitcode

    def start(self, timeout: float = 30.0) -> bool:
        """Spawn the engine process; True once it reports ready."""
        import multiprocessing as mp

        from sitemap_tui.session.host import run_in_process

        ctx = mp.get_context("spawn")  # never fork a process that runs threads
        ours, theirs = ctx.Pipe(duplex=True)
        # not a daemon: the engine starts worker processes of its own
        self._proc = ctx.Process(
            target=run_in_process,
            args=(theirs, self.db_path, self.fetch_config, self.options, self.with_checker),
            name="sitemap-engine",
            daemon=False,
        )
        try:
            self._proc.start()
        except Exception as exc:  # noqa: BLE001 - reported, the app keeps running
            self._post(EngineError("engine", f"cannot start the engine process: {type(exc).__name__}: {exc}"))
            self._started.set()
            return False
        theirs.close()
        self._conn = ours
        self._reader = threading.Thread(target=self._read, name="sitemap-engine-reader", daemon=True)
        self._reader.start()
        self._started.wait(timeout)
        return self.running

    def _read(self) -> None:
        conn = self._conn
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                break
            except Exception as exc:  # noqa: BLE001 - an unreadable message ends the engine, not the app
                self._post(EngineError("engine", f"bad message from the engine: {type(exc).__name__}: {exc}"))
                break
            if isinstance(msg, wire.Exited):
                break
            self._receive(msg)
            if isinstance(msg, wire.Ready | wire.Failed) and not self._started.is_set():
                self._started.set()
        was_running = self._ready and not self._stopped
        self._ready = False
        self._started.set()
        if was_running and not self._stopped:
            self._post(EngineError("engine", "the engine process ended unexpectedly"))

    def _send(self, command: wire.Command) -> bool:
        if self._conn is None:
            return False
        with self._send_lock:
            try:
                self._conn.send(command)
            except (OSError, ValueError):
                return False
        return True

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the engine to cancel and close its store; kill it if it does not end in time."""
        if self._stopped:
            return
        self._stopped = True
        proc = self._proc
        if proc is None:
            return
        self._send(wire.Stop())
        proc.join(timeout)
        if proc.is_alive():
            proc.terminate()
            proc.join(1)
        if proc.is_alive():
            # a stopped (SIGSTOP) or wedged process ignores SIGTERM: the store is SQLite's
            # crash-safe WAL, what was committed stays
            proc.kill()
            proc.join(1)
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(2)
        with contextlib.suppress(OSError):
            self._conn.close()

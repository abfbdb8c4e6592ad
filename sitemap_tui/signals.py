"""SIGTERM and SIGHUP as an orderly stop (``kill``, a CI job's timeout, a closed terminal or SSH
session), so that they clean up like Ctrl-C does: temp files and the temp store removed, the
previous output left as it was, worker processes stopped, the terminal restored.

By default both end the process on the spot, and nothing of the above happens: the TUI left the
terminal in the alternate screen, a killed ``validate`` left its temp store (255 MB after a 10 M
URL run) in the temp folder.

- Headless commands (:func:`headless`): the signal does what SIGINT does. Inside ``asyncio.run``
  that is its handler, which cancels the main task (the explorer's ``async with`` stops the
  workers); elsewhere it is :class:`KeyboardInterrupt`. Either way every ``finally`` runs.
- The TUI (:func:`exit_app`): the app is asked to exit, with 128 + the signal's number as its
  return code, so Textual leaves the alternate screen and restores the terminal modes. After
  SIGHUP the terminal is gone: its output goes to /dev/null from then on (a write to a hung-up
  terminal fails, Textual's writer thread dies of it, and its stop then waits forever on a full
  queue: found from outside, a closed tmux session left the explorer running, its store locked).
  Should the app still not have ended ``GRACE_S`` later, the process ends there: the engine's
  process sees its pipe close and stops on its own, releasing the store.

:func:`received` says which signal it was, for the exit status (128 + number) and the message.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

# SIGHUP does not exist everywhere (Windows)
STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n))
_received: int | None = None
_settled = False  # the run's result is in place (an --output file replaced): see settled()
_holding = False  # in held(): a stop signal waits for the block's end
_deferred = False  # one came meanwhile
GRACE_S = 5.0
"""How long the TUI may take to exit after a stop signal before the process ends anyway."""


def received() -> int | None:
    """The stop signal that came during the current command, if any."""
    return _received


def name(signum: int) -> str:
    return signal.Signals(signum).name


def _note(signum: int) -> None:
    global _received
    if _received is None:
        _received = signum


def settled() -> None:
    """The run's result is in place (an --output file was replaced): a stop signal from now on
    is noted, not acted on, since the command ends on its own in moments and its exit status is
    its result's. Found by a review: a SIGTERM just after the rename exited 143, which says the
    file keeps its previous content, over a file holding the new, complete one."""
    global _settled
    _settled = True
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # (not inside asyncio.run)
        signal.signal(signal.SIGINT, _noted)


def after_result() -> bool:
    """A stop signal came once the result was in place (:func:`settled`)."""
    return _settled and _received is not None


@contextlib.contextmanager
def held() -> Iterator[None]:
    """A stop signal (SIGINT too) waits until the block ends, then stops the command as before,
    unless the block put the result in place (:func:`settled`). Around an output's rename and
    the command's knowing of it: between the two, "stopped, the previous output kept" would be
    said of a file already replaced. Python-level: a signal mask would not do, since the kernel
    hands a process's signal to any thread that does not block it (an executor's)."""
    global _holding, _deferred
    if _holding or threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(STOP_SIGNALS[0]) is not _as_interrupt:  # (headless commands only)
        yield
        return
    swap = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if swap:
        signal.signal(signal.SIGINT, _held_interrupt)
    _holding, _deferred = True, False
    try:
        yield
    finally:
        _holding = False
        if swap and signal.getsignal(signal.SIGINT) is _held_interrupt:
            signal.signal(signal.SIGINT, _noted if _settled else signal.default_int_handler)
    if _deferred and not _settled:
        raise KeyboardInterrupt


def _held_interrupt(signum: int, frame: FrameType | None) -> None:
    global _deferred
    _note(signum)
    _deferred = True


def _as_interrupt(signum: int, frame: FrameType | None) -> None:
    global _deferred
    _note(signum)
    if _settled:
        return
    if _holding:
        _deferred = True
        return
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler) and handler is not _as_interrupt:
        handler(signal.SIGINT, frame)  # asyncio.run's (cancel its task) or Python's (raise)
        return
    raise KeyboardInterrupt  # SIGINT ignored (a background job): stop all the same


def check() -> None:
    """Raise KeyboardInterrupt when a stop signal came: a run whose task was cancelled may still
    have returned normally, and its result is not complete."""
    if _received is not None and not _settled:
        raise KeyboardInterrupt


def _noted(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C once the result is in place (settled): noted, as a stop signal is."""
    _note(signum)


def quiet_exit() -> None:
    """The process is about to end with its result in place: a stop signal during the
    interpreter's shutdown no longer kills it silently (the shell would read 128 + N, "stopped",
    over a complete result). Only for the process's own entry: it is never undone."""
    if _settled and threading.current_thread() is threading.main_thread():
        for s in (*STOP_SIGNALS, signal.SIGINT):
            with contextlib.suppress(ValueError, OSError):
                signal.signal(s, signal.SIG_IGN)


@contextlib.contextmanager
def _handlers(handler: Callable[[int, FrameType | None], Any]) -> Iterator[None]:
    global _received, _settled
    _settled = False
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers (commands run in-process by tests)
        return
    _received = None
    previous = {s: signal.getsignal(s) for s in STOP_SIGNALS}
    for s in STOP_SIGNALS:
        if previous[s] != signal.SIG_IGN:  # nohup: the user asked to keep running on SIGHUP
            signal.signal(s, handler)
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old)
        if signal.getsignal(signal.SIGINT) is _noted:
            signal.signal(signal.SIGINT, signal.default_int_handler)


def headless() -> contextlib.AbstractContextManager[None]:
    """SIGTERM/SIGHUP stop the command as Ctrl-C does, for the duration of the block."""
    return _handlers(_as_interrupt)


@contextlib.contextmanager
def exit_app(app: Any) -> Iterator[None]:
    """SIGTERM/SIGHUP make the Textual ``app`` exit with 128 + the signal's number, within
    ``GRACE_S`` (module docstring)."""
    timers: list[threading.Timer] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        _note(signum)
        if signum == getattr(signal, "SIGHUP", None):
            _terminal_gone()
        if not timers:
            timers.append(threading.Timer(GRACE_S, os._exit, (128 + signum,)))
            timers[0].daemon = True
            timers[0].start()
        try:
            loop = asyncio.get_running_loop()  # the app's: handlers run on the main thread
        except RuntimeError:
            raise KeyboardInterrupt from None  # before or after the app's loop: stop as Ctrl-C
        loop.call_soon_threadsafe(functools.partial(app.exit, return_code=128 + signum))

    try:
        with _handlers(on_signal):
            yield
    finally:
        for timer in timers:  # the app ended: what follows (the engine's stop) runs as usual
            timer.cancel()


def leave_hangup_to_parent(*, term_as_interrupt: bool = False) -> None:
    """In a child process of the explorer (its engine, a worker): a hang-up of the whole job (a
    closed terminal) is the interface's to act on, which stops the child (or its pipe ends);
    dying of it left the store's lock and the log beside it. ``term_as_interrupt``: SIGTERM stops
    as Ctrl-C does, so that every ``finally`` runs."""
    with contextlib.suppress(ValueError, AttributeError, OSError):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        if term_as_interrupt:
            signal.signal(signal.SIGTERM, signal.default_int_handler)


def _terminal_gone() -> None:
    """Standard output and error write to /dev/null from now on where they are a terminal that
    hung up (its ioctls fail with EIO; a ``kill -HUP`` leaves a live terminal as it is)."""
    import errno
    import termios

    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        for fd in (1, 2):
            try:
                termios.tcgetattr(fd)
            except termios.error as exc:
                if exc.args and exc.args[0] == errno.EIO:
                    os.dup2(null, fd)
        os.close(null)

"""``bench_tui.py --explain``: what each long stall of the UI loop was made of.

A stall is a gap between two ticks of the bench's 5 ms ticker. While it runs, this records on the
UI thread every asyncio callback (``Handle._run``) and every Textual message dispatch that took
more than ``MIN_ITEM`` seconds (wall time and the UI thread's own CPU time, ``time.thread_time``),
every GC pass, and the time the loop's ``select`` overslept its timeout (no core, or another thread
held the interpreter lock when it woke); the ticker adds each thread's CPU time in the stall (Linux
per-thread clocks). Afterwards every stall over ``threshold`` is listed with what overlapped it, and
the causes are summed by label: a repeatable cause shows as the same label in many stalls, however
busy the machine (a diagnosis: the hooks cost a little time themselves).
"""

from __future__ import annotations

import asyncio
import asyncio.events
import collections
import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

MIN_ITEM = 0.002


@dataclass
class Item:
    start: float
    end: float
    cpu: float  # the UI thread's CPU seconds in it (0 where not measured)
    kind: str  # "handle", "message", "render", "gc", "select", "worker" (a thread's)
    label: str


@dataclass
class StallLog:
    threshold: float = 0.020
    items: list[Item] = field(default_factory=list)
    threads: list[tuple[float, float, dict[str, float]]] = field(default_factory=list)
    """(stall start, end, CPU seconds per thread name) for each stall over the threshold."""
    _undo: list[Any] = field(default_factory=list)
    _last_cpu: dict[str, float] = field(default_factory=dict)

    # -- hooks ----------------------------------------------------------------------------------
    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        from textual.message_pump import MessagePump

        ui = threading.get_ident()
        items = self.items
        perf, tcpu = time.perf_counter, time.thread_time

        @contextlib.contextmanager
        def timed(kind: str, label: Callable[[], str]) -> Iterator[None]:
            """What runs inside, kept as an Item when it took more than MIN_ITEM."""
            a, c = perf(), tcpu()
            try:
                yield
            finally:
                d = perf() - a
                if d > MIN_ITEM:
                    items.append(Item(a, a + d, tcpu() - c, kind, label()))

        orig_run = asyncio.events.Handle._run

        def _run(handle: asyncio.Handle) -> None:
            if threading.get_ident() != ui:
                return orig_run(handle)
            with timed("handle", lambda: _handle_label(handle)):
                return orig_run(handle)

        asyncio.events.Handle._run = _run  # type: ignore[method-assign]
        self._undo.append(lambda: setattr(asyncio.events.Handle, "_run", orig_run))

        orig_dispatch = MessagePump._dispatch_message

        async def _dispatch(pump: MessagePump, message: Any) -> Any:
            with timed("message", lambda: f"{type(pump).__name__} <- {_message_label(message)}"):
                return await orig_dispatch(pump, message)

        MessagePump._dispatch_message = _dispatch  # type: ignore[method-assign]
        self._undo.append(lambda: setattr(MessagePump, "_dispatch_message", orig_dispatch))

        from textual.widget import Widget
        from textual.worker import Worker

        orig_threaded = Worker._run_threaded

        async def _run_threaded(worker: Worker[Any]) -> Any:
            work = worker._work
            if callable(work) and not asyncio.iscoroutinefunction(getattr(work, "func", work)):
                label = f"{worker.group}: {getattr(getattr(work, 'func', work), '__qualname__', worker.name)}"

                def timed() -> Any:
                    a, c = perf(), tcpu()
                    try:
                        return work()
                    finally:
                        items.append(Item(a, perf(), tcpu() - c, "worker", label))

                worker._work = timed
            return await orig_threaded(worker)

        Worker._run_threaded = _run_threaded  # type: ignore[method-assign]
        self._undo.append(lambda: setattr(Worker, "_run_threaded", orig_threaded))

        orig_render = Widget.render_lines

        def render_lines(widget: Widget, crop: Any) -> Any:
            with timed("render", lambda: f"{type(widget).__name__} {crop.height} lines"):
                return orig_render(widget, crop)

        Widget.render_lines = render_lines  # type: ignore[method-assign]
        self._undo.append(lambda: setattr(Widget, "render_lines", orig_render))

        selector = loop._selector  # type: ignore[attr-defined]
        orig_select = selector.select

        def select(timeout: float | None = None) -> Any:
            a = perf()
            out = orig_select(timeout)
            d = perf() - a
            over = d - (timeout or 0.0) if timeout is not None else 0.0
            if over > MIN_ITEM:
                items.append(Item(a + d - over, a + d, 0.0, "select", "select woke late (no core / GIL held)"))
            return out

        selector.select = select
        self._undo.append(lambda: setattr(selector, "select", orig_select))

        gc_start = [0.0]

        def on_gc(phase: str, info: dict[str, int]) -> None:
            if threading.get_ident() != ui:
                return
            if phase == "start":
                gc_start[0] = perf()
            else:
                now = perf()
                items.append(Item(gc_start[0], now, now - gc_start[0], "gc",
                                  f"gen-{info.get('generation', 2)} GC pass"))

        import gc

        gc.callbacks.append(on_gc)
        self._undo.append(lambda: gc.callbacks.remove(on_gc))

    def uninstall(self) -> None:
        while self._undo:
            self._undo.pop()()

    def thread_cpu(self) -> dict[str, float]:
        """Each live thread's CPU seconds so far, by name (Linux: per-thread clocks)."""
        out: dict[str, float] = {}
        for t in threading.enumerate():
            if t.ident is None:
                continue
            try:
                out[t.name] = time.clock_gettime(time.pthread_getcpuclockid(t.ident))
            except (OSError, AttributeError):
                continue
        return out

    def tick(self, start: float, end: float, asked: float) -> None:
        """Called by the ticker after each tick (``asked``: the sleep it asked for): keeps each
        thread's CPU time in a long stall."""
        now = self.thread_cpu()
        if end - start - asked > self.threshold and self._last_cpu:
            spent = {n: now[n] - self._last_cpu.get(n, 0.0) for n in now}
            self.threads.append((start, end, {n: s for n, s in spent.items() if s > 0.0005}))
        self._last_cpu = now

    # -- report ---------------------------------------------------------------------------------
    def report(self, stalls: list[tuple[float, float, float]], limit: int = 40) -> None:
        """``stalls``: (start, end, the process's CPU seconds in it) of each stall over the
        threshold, in order. Causes are summed in the UI thread's CPU time (and the other threads'),
        which a busy machine does not inflate: the stalls whose process CPU time is over the
        threshold are the ones summed."""
        items = sorted(self.items, key=lambda i: i.start)
        threads = {e: spent for _s, e, spent in self.threads}
        causes: collections.Counter[str] = collections.Counter()
        counts: collections.Counter[str] = collections.Counter()
        heavy = [(s, e) for s, e, cpu in stalls if cpu > self.threshold]
        print(f"stalls over {self.threshold * 1000:.0f} ms: {len(stalls)}, {len(heavy)} of them with as much CPU time"
              " (what overlapped each, wall/CPU ms of the UI thread; threads: CPU ms in the stall)")
        for n, (s, e) in enumerate(heavy):
            inside = [i for i in items if i.end > s and i.start < e]
            seen: set[str] = set()
            for i in inside:
                key = f"{i.kind}: {i.label}"
                overlap = min(i.end, e) - max(i.start, s)
                if i.kind == "select":
                    causes[key] += overlap
                elif i.kind == "worker":  # (its CPU time spread evenly over its run)
                    causes[key] += i.cpu * overlap / max(i.end - i.start, 1e-9)
                else:
                    causes[key] += i.cpu
                if key not in seen:
                    counts[key] += 1
                    seen.add(key)
            for name, spent_s in threads.get(e, {}).items():
                causes[f"thread CPU: {name}"] += spent_s
                counts[f"thread CPU: {name}"] += 1
            if n < limit:
                parts = [f"{i.kind} {i.label} {(i.end - i.start) * 1000:.0f}/{i.cpu * 1000:.0f}" for i in inside]
                spent = threads.get(e, {})
                cpu = ", ".join(f"{k} {v * 1000:.0f}" for k, v in sorted(spent.items(), key=lambda kv: -kv[1]))
                print(f"  {(e - s) * 1000:4.0f} ms: " + ("; ".join(parts) or "nothing over 2 ms")
                      + (f"  [threads: {cpu}]" if cpu else ""))
        print("causes summed over those stalls (UI thread CPU ms; select: wall ms; in how many stalls):")
        for key, total in causes.most_common(40):
            print(f"  {total * 1000:7.0f} ms  {counts[key]:4d}x  {key}")


def _handle_label(handle: asyncio.Handle) -> str:
    cb = handle._callback  # type: ignore[attr-defined]
    task = getattr(cb, "__self__", None)
    if isinstance(task, asyncio.Task):
        coro = task.get_coro()
        name = getattr(coro, "__qualname__", repr(coro))
        frame = getattr(coro, "cr_frame", None)
        owner = frame.f_locals.get("self") if frame is not None else None
        if owner is not None and type(owner).__name__ == "Timer":
            return f"timer {getattr(owner, 'name', '?')}"
        return f"task {name}" + (f" of {type(owner).__name__}" if owner is not None else "")
    return f"callback {getattr(cb, '__qualname__', repr(cb))}"


def _message_label(message: Any) -> str:
    name = type(message).__name__
    callback = getattr(message, "callback", None)
    if name == "Callback" and callback is not None:
        return f"Callback {getattr(callback, '__qualname__', repr(callback))}"
    return name

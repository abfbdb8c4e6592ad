"""How the explorer keeps Python's cyclic garbage collector (and its other threads) from stalling
its UI loop.

A collection walks every object of the generations it collects. Measured on the 1 M expand-all
(bench/bench_tui.py, issue 19): a full collection of Textual's widgets and caches took 80-120 ms on a
slow core; 50,000 young objects per young pass meant 45-55 ms pauses; a middle-generation pass, which
walks everything that survived the young passes since the last one, 18-28 ms and still up to 24 ms
with it made rare (one per 1,000 young passes). Hence:

- at start-up, what is alive (modules, widgets) is frozen (moved out of the collector's sight; it is
  still freed by reference counting), and young passes are kept small (``YOUNG_GC_OBJECTS``);
- while a large phase streams (the exploration opening, an expand-all), what survives each young pass
  is frozen right after it: it is the tree, its labels and the panes' rows, alive for the session, so
  the middle generation stays empty and its passes cost nothing;
- when the phase ends, one young+middle pass, then everything alive is frozen again.

The price: a cycle among frozen objects that dies later stays until the process ends (rendered lines
and rows form none any more, strip_cycles.py; the tree's nodes live as long as the app).

The other threads of the process (the URL table's page reads and scans, the engine's reader) hold
the interpreter lock while they run Python: the UI loop, waking for a frame, waits until the holder
is asked to let go, after ``sys.getswitchinterval()`` (5 ms by default), and again at each later
wake-up in the same frame. While the app runs that interval is ``SWITCH_SECONDS``.
"""

from __future__ import annotations

import gc
import sys
from typing import Any

YOUNG_GC_OBJECTS = 5_000
"""New tracked objects between two young-generation passes: a pass walks them (~1 µs each), so
this bounds each pass to a few milliseconds."""
MIDDLE_GC_PASSES = 1_000
"""Young passes between two middle-generation passes (outside a streaming phase)."""
SWITCH_SECONDS = 0.001
"""How long the UI thread waits for the interpreter lock before its holder is asked to let go
(Python's default: 5 ms, a sixth of a 30 fps frame per wait)."""

_streaming = False
_switch_before: float | None = None


def _freeze_survivors(phase: str, info: dict[str, Any]) -> None:
    """gc callback: after a young pass during a streaming phase, freeze what survived it (a list
    splice: O(1)). The pass has just freed the young generation's unreachable cycles, so nothing
    unreachable is frozen with it."""
    if _streaming and phase == "stop" and info.get("generation") == 0:
        gc.freeze()


def quiet_gc() -> None:
    """From the app's first frame: freeze what is alive, keep young passes small, and start the
    first streaming phase (the exploration opening)."""
    global _switch_before
    gc.freeze()
    gc.set_threshold(YOUNG_GC_OBJECTS, MIDDLE_GC_PASSES, 100)
    if _switch_before is None:
        _switch_before = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_SECONDS)
    if _freeze_survivors not in gc.callbacks:
        gc.callbacks.append(_freeze_survivors)
    streaming(True)


def streaming(on: bool) -> None:
    """A large phase starts (True) or ends (False)."""
    global _streaming
    _streaming = on


def settle_gc() -> None:
    """After a large phase: collect the young generations once (their garbage is small: rendered
    lines are freed by reference counting, strip_cycles.py), then freeze what survived, as at
    start-up. The tree, its labels and the panes' caches built by the phase are then never walked
    again by a collection while the next phase streams."""
    streaming(False)
    gc.collect(1)
    gc.freeze()


def stop() -> None:
    """The app ends (tests run many apps in one process): the callback goes, the switch interval
    is what it was."""
    global _switch_before
    streaming(False)
    if _switch_before is not None:
        sys.setswitchinterval(_switch_before)
        _switch_before = None
    if _freeze_survivors in gc.callbacks:
        gc.callbacks.remove(_freeze_survivors)

"""The explorer's rendered lines are freed by reference counting, not left to the cyclic collector
(whose passes stall the UI loop while an index streams: bench/RESULTS-TUI.md, issue 19)."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from app_helpers import settle, wait_started
from rich.segment import Segment
from rich.style import Style
from textual.cache import LRUCache
from textual.strip import Strip

from sitemap_tui.engine.store.rows import EntryRow
from sitemap_tui.tui import strip_cycles

SIZES = [(200, 50), (80, 24)]


@contextmanager
def cyclic_garbage() -> Iterator[list[object]]:
    """Collect nothing meanwhile; at the end, the objects only the cyclic collector would free."""
    found: list[object] = []
    gc.collect()
    gc.disable()
    try:
        yield found
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        found.extend(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
        gc.collect()


@pytest.fixture()
def patched(monkeypatch: pytest.MonkeyPatch) -> None:
    """The patch for one test, undone after it (the app test must see whether the app installs it)."""
    monkeypatch.setattr(Strip, "divide", Strip.divide)
    monkeypatch.setattr(Strip, "crop_extend", Strip.crop_extend)
    monkeypatch.setattr(LRUCache, "clear", LRUCache.clear)
    strip_cycles.patch_strips()


def refers_to_itself(strip: Strip) -> bool:
    """Whether the strip reaches itself through its own containers (caches, lists), not through
    another line or a widget: the cycle that made every drawn line cyclic garbage."""
    todo = [o for o in gc.get_referents(strip) if not isinstance(o, Strip)]
    seen: set[int] = set()
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        for ref in gc.get_referents(obj):
            if ref is strip:
                return True
            if isinstance(ref, dict | list | tuple) or type(ref).__name__ == "FIFOCache":
                todo.append(ref)
    return False


def _strip() -> Strip:
    return Strip([Segment("hello ", Style(bold=True)), Segment("wörld"), Segment("界", Style(italic=True))])


def test_whole_strip_divide_and_crop_leave_no_cycle(patched: None) -> None:
    with cyclic_garbage() as garbage:
        for _ in range(50):
            s = _strip()
            s.divide([s.cell_length])
            s.divide([s.cell_length, s.cell_length + 4])  # cuts past the end are ignored
            s.crop_extend(0, s.cell_length, None)
            s.crop_extend(-2, s.cell_length, Style(bold=True))
            del s
    assert not [o for o in garbage if isinstance(o, Strip)]
    s = _strip()
    s.divide([4])
    assert not refers_to_itself(s)


def test_a_cleared_lru_cache_leaves_no_cycle(patched: None) -> None:
    cache: LRUCache[int, Strip] = LRUCache(8)
    with cyclic_garbage() as garbage:
        for round_ in range(20):
            for i in range(12):  # past its size: the oldest are dropped on the way
                cache.set(i, _strip())
            assert cache.get(11) is not None and cache.get(0) is None
            cache.clear()
            assert len(cache) == 0 and cache.get(11) is None
            cache.set(round_, _strip())  # and it works on after a clear
            assert cache.get(round_) is not None
    assert not [o for o in garbage if isinstance(o, Strip)]


@pytest.mark.parametrize("cuts", [[13], [13, 20], [3, 13], [5], [0, 13], [2, 7, 13], []])
def test_divide_answers_as_textual_does(patched: None, cuts: list[int]) -> None:
    s = _strip()
    assert s.cell_length == 13
    ours = s.divide(cuts)
    theirs = strip_cycles._divide(_strip(), cuts)
    assert [(p.text, p.cell_length) for p in ours] == [(p.text, p.cell_length) for p in theirs]
    assert list(s.divide(cuts)) == list(ours)  # and again (from the cache, where there is one)


@pytest.mark.parametrize(("start", "end"), [(0, 13), (-1, 13), (0, 20), (0, 5), (3, 13), (3, 20), (13, 20), (5, 5)])
def test_crop_extend_answers_as_textual_does(patched: None, start: int, end: int) -> None:
    style = Style(underline=True)
    ours = _strip().crop_extend(start, end, style)
    theirs = strip_cycles._crop_extend(_strip(), start, end, style)
    assert (ours.text, ours.cell_length, list(ours)) == (theirs.text, theirs.cell_length, list(theirs))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_exploring_renders_no_line_only_the_cyclic_collector_frees(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        with cyclic_garbage() as garbage:
            await pilot.press("e")  # expand all: the tree and the panes redraw as files arrive
            for key in ("5", "1", "down", "down", "3", "2", "5", "up"):
                await pilot.press(key)
                await pilot.pause()
            await settle(app, pilot)
        # (lines of the panes' widgets that were replaced are garbage with their widget: that
        # cycle is Textual's DOM, and widgets are few)
        strips = [o for o in garbage if isinstance(o, Strip) and refers_to_itself(o)]
        assert not strips, f"{len(strips)} rendered lines were cyclic garbage by themselves"
        rows = [o for o in garbage if isinstance(o, EntryRow)]
        assert not rows, f"{len(rows)} URL-table rows were cyclic garbage"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_large_batch_is_applied_in_slices_with_the_loop_running_between(
        demo_server, make_app, size, monkeypatch: pytest.MonkeyPatch):
    from sitemap_tui.engine.events import NodeChanged
    from sitemap_tui.tui import app_engine
    from sitemap_tui.tui.messages import EngineEvents

    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        # as if the slice took its whole share of the frame, every time
        monkeypatch.setattr(app_engine, "APPLY_SLICE_SECONDS", 0.0)
        turns = [0]
        slices: list[int] = []  # the loop turns seen when each slice was applied
        apply = app.tree.apply_events

        def counting(events):
            slices.append(turns[0])
            return apply(events)

        monkeypatch.setattr(app.tree, "apply_events", counting)
        stop = asyncio.Event()

        async def ticker() -> None:
            while not stop.is_set():
                turns[0] += 1
                await asyncio.sleep(0)

        tick = asyncio.create_task(ticker())
        nodes = list(app.tree.model.nodes.values())
        batch = [NodeChanged(nodes[i % len(nodes)]) for i in range(3 * app_engine.APPLY_SLICE_EVENTS + 1)]
        app.post_message(EngineEvents(batch))
        await pilot.pause()
        await settle(app, pilot)
        stop.set()
        await tick
        assert len(slices) == 4
        assert slices[0] < slices[1] < slices[2] < slices[3], slices  # the loop ran between slices
        await pilot.press("down")  # and the explorer still answers keys
        await settle(app, pilot)
        assert app.selected_id == app.tree.cursor_node.data


@contextmanager
def app_gc_tuning() -> Iterator[None]:
    """The app's collector tuning tried in the test process, then undone: its callback, the
    switch interval, the thresholds, and the run's own freeze (tests/conftest.py) put back."""
    from sitemap_tui.tui import gc_tuning

    thresholds = gc.get_threshold()
    run_frozen = gc.get_freeze_count()
    try:
        yield
    finally:
        gc_tuning.stop()
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        gc.collect()
        if run_frozen:
            gc.freeze()


def test_while_a_phase_streams_young_survivors_are_frozen_so_middle_passes_walk_nothing() -> None:
    from sitemap_tui.tui import gc_tuning

    gc.collect()
    with app_gc_tuning():
        gc_tuning.quiet_gc()  # the app's first frame: a streaming phase starts
        frozen = gc.get_freeze_count()
        # five passes' worth of survivors: at least three whole passes freeze, wherever the
        # young generation's count stood when the list began (four left one pass to chance)
        kept = [[i] for i in range(5 * gc_tuning.YOUNG_GC_OBJECTS)]
        assert gc.get_freeze_count() - frozen >= 3 * gc_tuning.YOUNG_GC_OBJECTS
        assert len(gc.get_objects(generation=1)) < gc_tuning.YOUNG_GC_OBJECTS // 10

        gc_tuning.settle_gc()  # the phase ended: survivors of young passes stay in the middle
        more = [[i] for i in range(5 * gc_tuning.YOUNG_GC_OBJECTS)]
        assert len(gc.get_objects(generation=1)) >= 2 * gc_tuning.YOUNG_GC_OBJECTS
        assert len(kept) == len(more)


def test_while_the_app_runs_other_threads_hand_the_interpreter_lock_over_within_a_millisecond() -> None:
    import sys

    from sitemap_tui.tui import gc_tuning

    before = sys.getswitchinterval()
    with app_gc_tuning():
        gc_tuning.quiet_gc()  # the app's first frame
        # a thread worker running Python makes the waking UI loop wait this long for the lock
        assert sys.getswitchinterval() == gc_tuning.SWITCH_SECONDS <= 0.001
        gc_tuning.quiet_gc()  # (again: what it restores stays the first value)
        gc_tuning.stop()  # the app ends: as it was
        assert sys.getswitchinterval() == before

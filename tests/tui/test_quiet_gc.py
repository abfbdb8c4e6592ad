"""The app's garbage-collector settings bound how long one automatic collection stalls the UI loop."""

from __future__ import annotations

import gc

from sitemap_tui.tui.app_engine import quiet_gc

WALK_BUDGET = 12_000
"""Objects one young (generation 0 or 1) collection may walk: at ~1 µs per object on a slow, busy
core that is ~12 ms, a third of the 33 ms frame budget (issue 19)."""


def test_young_collections_walk_few_objects_and_full_ones_stay_rare() -> None:
    before = gc.get_threshold()
    try:
        quiet_gc()
        t0, t1, t2 = gc.get_threshold()
        # a generation-1 collection walks generation 0 (up to t0 new objects) and what survived
        # the t1 generation-0 collections before it
        assert t0 * (t1 + 1) <= WALK_BUDGET
        # smaller young generations must not make full collections (every unfrozen object,
        # 40-70 ms after a 10 M expand-all) more frequent: as many allocations between them as
        # the 10,000 x 3 x 100 the app used before
        assert t0 * t1 * t2 >= 3_000_000
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)

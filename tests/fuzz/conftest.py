"""Hypothesis profiles for the fuzz suite.

``ci`` (the default) keeps every property to a modest number of examples so the whole
hostile + fuzz suite stays within a few minutes; ``long`` is what ``bench/fuzz_long.py`` uses.
Select one with ``HYPOTHESIS_PROFILE=long pytest tests/fuzz``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = {
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
    "print_blob": True,
}
# No per-example deadline in CI: it is a wall-clock assertion, and on a loaded 2-core runner it
# fails examples that are merely slow. The long run keeps it ("never hang": any single example
# slower than 3 s is a failure there, not a slow test).
settings.register_profile("ci", max_examples=120, derandomize=False, deadline=None, **_COMMON)
settings.register_profile(
    "long", max_examples=int(os.environ.get("FUZZ_EXAMPLES", "20000")), deadline=3000, **_COMMON
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

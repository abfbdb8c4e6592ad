"""Sizes read the same everywhere: binary units (KiB, MiB), as ``stats`` and the engine's limits
say them (issue 18 bug 7: the TUI said kB/MB)."""

from __future__ import annotations

import pytest

from sitemap_tui.tui.sizes import format_size
from sitemap_tui.tui.widgets.overview import fmt_size
from sitemap_tui.tui.widgets.sitemap_tree import human_bytes


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (0, "0 B"),
        (1, "1 B"),
        (1023, "1023 B"),
        (1024, "1.0 KiB"),
        (1536, "1.5 KiB"),
        (10_900, "10.6 KiB"),
        (50 * 1024 * 1024, "50.0 MiB"),
        (3 * 1024**3, "3.0 GiB"),
        (5 * 1024**4, "5.0 TiB"),
        (2048 * 1024**4, "2048.0 TiB"),  # the largest unit goes on counting
    ],
)
def test_binary_units(n, text):
    assert format_size(n) == text


def test_a_value_that_rounds_up_to_the_next_unit_is_said_in_that_unit():
    # 1048575 B is 1023.999 KiB: "1024.0 KiB" would be the same size in the wrong unit
    assert format_size(1024 * 1024 - 1) == "1.0 MiB"
    assert format_size(1024 * 1024 - 1024) == "1023.0 KiB"


def test_a_negative_difference_keeps_its_sign():
    assert format_size(-1536) == "-1.5 KiB"


def test_tree_and_overview_use_it():
    for n in (5, 1536, 50 * 1024 * 1024):
        assert human_bytes(n) == format_size(n)
        assert fmt_size(n) == format_size(n)
    assert fmt_size(None) == "—"
    assert human_bytes(None) == "?"

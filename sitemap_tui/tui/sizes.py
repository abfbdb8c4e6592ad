"""Byte sizes as the explorer shows them: binary units (KiB, MiB, GiB), one convention.

``sitemap-tui stats`` and the engine's limits (``--max-size`` in MiB) count in powers of 1024;
the TUI said kB/MB (powers of 1000) for the same files (issue 18), so a 50 MiB cap read as
"52.4 MB". Every size the TUI shows goes through :func:`format_size`."""

from __future__ import annotations

UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def format_size(n: int) -> str:
    """``n`` bytes: ``"652 B"``, ``"1.5 KiB"``, ``"50.0 MiB"`` (one decimal above bytes)."""
    if n < 0:
        return "-" + format_size(-n)
    if n < 1024:
        return f"{n} B"
    value, power = float(n), 0
    # compare what is printed: 1023.96 KiB would read "1024.0 KiB", which is 1.0 MiB
    while round(value, 1) >= 1024 and power < len(UNITS) - 1:
        value /= 1024
        power += 1
    return f"{value:.1f} {UNITS[power]}"  # past the last unit it goes on counting in TiB

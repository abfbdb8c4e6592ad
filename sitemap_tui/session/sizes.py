"""Sizes and ages as a user types them (``2GiB``, ``30d``) and as the cache's messages write them.
Standard library only: the command line's grammar checks these values before ``--help`` could
get slower."""

from __future__ import annotations

import re

_UNITS = {"": 1, "b": 1, "k": 1000, "kb": 1000, "kib": 1024, "m": 1000**2, "mb": 1000**2, "mib": 1024**2,
          "g": 1000**3, "gb": 1000**3, "gib": 1024**3, "t": 1000**4, "tb": 1000**4, "tib": 1024**4}
_AGES = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


class LimitError(ValueError):
    """A size or an age that cannot be read; the message says what was expected."""


def parse_size(text: str) -> int:
    """``2GiB``, ``500MB``, ``1.5g``, ``0`` → bytes (MB is 1000², MiB 1024²)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    unit = m.group(2).lower() if m else ""
    if not m or unit not in _UNITS:
        raise LimitError(f"{text!r} is not a size (e.g. 2GiB, 500MB, 800MiB)")
    return int(float(m.group(1)) * _UNITS[unit])


def parse_age(text: str) -> float:
    """``30d``, ``12h``, ``2w``, ``90m``, ``45s`` → seconds (a number alone is days)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*", text.lower())
    if not m:
        raise LimitError(f"{text!r} is not an age (e.g. 30d, 12h, 2w)")
    return float(m.group(1)) * _AGES[m.group(2) or "d"]


def format_size(n: int) -> str:
    """Bytes in binary units, as ``stats`` and the explorer write them (KiB, MiB, GiB)."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"

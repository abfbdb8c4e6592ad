"""A small local file the user names (a baseline, a project config) read whole, but only when it
is a regular file under a cap: ``--baseline /dev/zero`` read until the machine ran out of memory
(23 GB before the OOM killer), and a FIFO never ends."""

from __future__ import annotations

import os
import stat
from pathlib import Path


class NotReadable(ValueError):
    """Why the file is not read: not a regular file, or larger than the cap (one line)."""


def read_bounded(path: Path | str, cap: int) -> bytes:
    """The bytes of ``path``; NotReadable for a device, a FIFO, a folder or more than ``cap``
    bytes; OSError as raised for a file that cannot be opened."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # (a FIFO's open would wait)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotReadable("not a regular file")
        data = fh.read(cap + 1)
    if len(data) > cap:
        raise NotReadable(f"larger than {cap // (1024 * 1024):,} MiB")
    return data

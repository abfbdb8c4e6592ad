"""Where a new exploration is kept when the user names no file (the CLI's explore and the
explorer's own "open another site" use the same place)."""

from __future__ import annotations

import hashlib
import os
import re
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from sitemap_tui.engine.discover import Target


_HOST_KEPT = 100  # characters of a host in a file name; a longer one is cut and told apart by a hash


def file_prefix(target: Target) -> str:
    """The start of the file names of ``target``'s explorations: its host, or for a local target
    ``local-`` and its file name (a re-exploration reads the summaries of the files named so:
    with one name for every local target, each run read them all)."""
    host = urlsplit(target.url).hostname
    if host:
        host = host.replace(":", "_")
        if len(host) > _HOST_KEPT:  # a 253-character DNS name is no file name (255 bytes at most)
            host = f"{host[:_HOST_KEPT - 11]}-{hashlib.sha1(host.encode()).hexdigest()[:10]}"
        return host
    base = PurePosixPath(unquote(urlsplit(target.url).path)).name
    return "local-" + (re.sub(r"[^A-Za-z0-9._-]+", "_", base)[:60] or "root")


def default_db_path(target: Target) -> Path:
    """A new exploration file in the user's cache directory, named as the headless runs name
    theirs (session/history.py), so a re-exploration finds either."""
    from platformdirs import user_cache_dir

    from sitemap_tui.engine.store.file import partial_path

    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    folder = Path(user_cache_dir("sitemap-tui")) / "explorations"
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{file_prefix(target)}-{stamp}"
    # a name no run of the same second has taken, as the headless runs' (-1, -2...): the explorer
    # opened a headless run's file of that second and added its tree to it, every URL twice
    # (found from outside)
    for n in range(1000):
        path = folder / (f"{stem}.db" if n == 0 else f"{stem}-{n}.db")
        if not path.exists() and not partial_path(path).exists():
            return path
    return folder / f"{stem}-{os.getpid()}.db"

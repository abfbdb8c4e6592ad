"""Where a new exploration is kept when the user names no file (the CLI's explore and the
explorer's own "open another site" use the same place)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sitemap_tui.engine.discover import Target


def default_db_path(target: Target) -> Path:
    """A new exploration file in the user's cache directory."""
    from urllib.parse import urlsplit

    from platformdirs import user_cache_dir

    host = urlsplit(target.url).hostname or "local"
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    folder = Path(user_cache_dir("sitemap-tui")) / "explorations"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{host.replace(':', '_')}-{stamp}.db"

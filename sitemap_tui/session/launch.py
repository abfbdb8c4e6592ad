"""What the command line needs from the explorer: one call that runs it and returns the exit
code. The command line never imports the TUI (the layers in pyproject.toml); the program's
front door (sitemap_tui/main.py) hands the TUI's launcher to it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from sitemap_tui.engine.discover import Target
    from sitemap_tui.engine.explorer import ExploreOptions
    from sitemap_tui.engine.fetch import FetchConfig


class Launch(Protocol):
    def __call__(self, target: Target | None = None, db_path: Path | None = None,
                 fetch_config: FetchConfig | None = None, options: ExploreOptions | None = None,
                 compare_with: Path | None = None) -> int:
        """Run the explorer on ``target`` (None: reopen ``db_path`` offline; both None: pick
        from the recent explorations first) until the user quits; ``compare_with``: an earlier
        exploration to open compare mode against (``diff OLD NEW --tui``)."""
        ...

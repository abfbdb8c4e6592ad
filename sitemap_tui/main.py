"""The program's front door (the ``sitemap-tui`` command, ``python -m sitemap_tui``): the command
line, with the explorer plugged in. It sits above both front ends so that neither imports the
other; the TUI (and Textual) is imported only when the explorer opens."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sitemap_tui.cli import main as cli_main
from sitemap_tui.stderr_guard import kept_stderr

if TYPE_CHECKING:
    from sitemap_tui.engine.discover import Target
    from sitemap_tui.engine.explorer import ExploreOptions
    from sitemap_tui.engine.fetch import FetchConfig


def launch_explorer(target: Target | None = None, db_path: Path | None = None,
                    fetch_config: FetchConfig | None = None, options: ExploreOptions | None = None,
                    compare_with: Path | None = None) -> int:
    from sitemap_tui.tui.app import launch

    return launch(target=target, db_path=db_path, fetch_config=fetch_config, options=options,
                  compare_with=compare_with)


launch_explorer.needs_terminal = True  # type: ignore[attr-defined]  # (cli: said before any work)


def main(argv: Sequence[str] | None = None) -> int:
    # (its line too: on a closed stderr it went to stdout, into the data; on /dev/full it made 1)
    with kept_stderr():
        try:
            code = cli_main(argv, launch=launch_explorer)
            if argv is None:  # the process's own run (tests pass their arguments): it ends now
                from sitemap_tui import signals

                signals.quiet_exit()
            return code
        except KeyboardInterrupt:  # Ctrl-C before the command's own handling began (its imports)
            import sys

            print("sitemap-tui: interrupted (Ctrl-C)", file=sys.stderr)
            return 130

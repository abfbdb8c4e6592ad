"""``open``: reopen a saved exploration offline. With a FILE, that one; without, the recent
explorations in the cache to pick from (the explorer's list on a terminal; ``--list``, or a
stdout that is no terminal, prints them instead)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from sitemap_tui.cli.cache import print_list
from sitemap_tui.cli.headless import exploration_problem
from sitemap_tui.engine.sanitize import display
from sitemap_tui.session.exits import EXIT_OK, EXIT_USAGE, UsageError
from sitemap_tui.session.launch import Launch
from sitemap_tui.session.recent import list_saved


@dataclass(frozen=True, slots=True)
class OpenOptions:
    db: str | None = None
    list: bool = False
    json: bool = False


def open_options(ns: argparse.Namespace) -> OpenOptions:
    return OpenOptions(ns.db, ns.list, ns.json)


def cmd_open(opts: OpenOptions, launch: Launch | None) -> int:
    if opts.list or opts.json:
        if opts.db is not None:
            raise UsageError("--list lists the recent explorations; name no FILE with it")
        print_list(list_saved(), as_json_output=opts.json)
        return EXIT_OK
    if opts.db is None:
        return _pick(launch)
    path = Path(opts.db)
    problem = exploration_problem(path, must_exist=True)
    if problem:
        raise UsageError(f"{display(opts.db)}: {problem}")
    if launch is None:
        raise UsageError("the explorer is not part of this program; use a headless command")
    from sitemap_tui.cli.explorer import require_terminal

    require_terminal(launch, "history, diff FILE.db NEW or cache list read saved explorations")
    return launch(target=None, db_path=path, fetch_config=None, options=None)


def lists(args: object, launch: Launch | None) -> bool:
    """Whether ``open`` will print the recent list (``--list``, ``--json``, or no FILE and no
    terminal to pick in): its stdout is then a headless command's, guarded against write
    errors (found from outside: /dev/full gave a traceback, a closed stdout a silent exit 0)."""
    if getattr(args, "list", False) or getattr(args, "json", False):
        return True
    if getattr(args, "db", None) is not None:
        return False
    out = sys.stdout
    try:
        return launch is None or out is None or not out.isatty()
    except (OSError, ValueError):  # a closed stream
        return True


def _pick(launch: Launch | None) -> int:
    saved = list_saved()
    if not sys.stdout.isatty() or launch is None:
        # nothing to pick with: a script gets the list, and is told why it got it
        print("sitemap-tui: open: no FILE and stdout is not a terminal: listing the recent explorations "
              "(as --list); reopen one with `sitemap-tui open FILE`", file=sys.stderr)
        print_list(saved, as_json_output=False)
        return EXIT_OK
    if not saved:
        print("sitemap-tui: error: no saved explorations in the cache yet; explore a site first, "
              "or name a FILE.db", file=sys.stderr)
        return EXIT_USAGE
    return launch(target=None, db_path=None, fetch_config=None, options=None)

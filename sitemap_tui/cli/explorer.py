"""The commands that open the explorer: ``explore`` a target (``open``, a saved exploration,
is cli/open.py), ``demo`` (the bundled sample site, served on 127.0.0.1). The explorer itself comes in as a
:class:`~sitemap_tui.session.launch.Launch`: the command line does not import the TUI."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from sitemap_tui.cli.headless import exploration_problem, explore_options, parse_target
from sitemap_tui.cli.options import TreeOptions, fetch_options, say_pending, tree_options
from sitemap_tui.engine.sanitize import display
from sitemap_tui.session.exits import EXIT_OK, UsageError
from sitemap_tui.session.fetching import FetchOptions, fetch_config
from sitemap_tui.session.launch import Launch
from sitemap_tui.session.paths import default_db_path


@dataclass(frozen=True, slots=True)
class ExploreCommand:
    """``explore``: the explorer on a target (its tree has no --no-recursive)."""

    target: str
    fetch: FetchOptions = field(default_factory=FetchOptions)
    tree: TreeOptions = field(default_factory=TreeOptions)
    rate: float = 5.0
    """Pages per second per host for the audit (u) and the deep checks (0: no limit)."""


@dataclass(frozen=True, slots=True)
class DemoOptions:
    serve: bool = False
    port: int = 0
    headless: bool = False


def explore_command(ns: argparse.Namespace) -> ExploreCommand:
    # (explore has no --no-recursive: the explorer expands what the user opens)
    return ExploreCommand(ns.target, fetch_options(ns), tree_options(ns, recursive=True), ns.rate)


def terminal_missing(ns: argparse.Namespace, launch: Launch | None) -> str | None:
    """Why `diff --tui` cannot open the explorer, said before it explores anything (`explore`
    and `open FILE` say it once their --db or FILE is checked: a bad file is the better news).
    None when it may run."""
    if ns.command == "diff" and getattr(ns, "tui", False):
        return no_terminal(launch, "diff without --tui writes the comparison")
    return None


def require_terminal(launch: Launch | None, instead: str = "use urls, stats or validate") -> None:
    """UsageError when the explorer ``launch`` opens has no terminal to run in."""
    missing = no_terminal(launch, instead)
    if missing:
        raise UsageError(missing)


def no_terminal(launch: Launch | None, instead: str) -> str | None:
    """Without a terminal the explorer waits for keys that never come, drawing escape codes
    into whatever stdout is (`sitemap-tui example.com > out` hung for ever). Only the real
    explorer's plug (main.py) needs one: a test's ``launch`` runs nothing."""
    if not getattr(launch, "needs_terminal", False):
        return None
    missing = [name for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout))
               if stream is None or not stream.isatty()]
    if not missing:
        return None
    return (f"the explorer needs a terminal, and {' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} "
            f"not one: in scripts, {instead} (sitemap-tui --help)")


def demo_options(ns: argparse.Namespace) -> DemoOptions:
    return DemoOptions(ns.serve, ns.port, ns.headless)


def cmd_explore(opts: ExploreCommand, launch: Launch) -> int:
    target = parse_target(opts.target)
    db_path = opts.tree.db
    if db_path:
        problem = exploration_problem(Path(db_path), must_exist=False)
        if problem:
            raise UsageError(f"--db {display(db_path)}: {problem}")
        _check_explore_db(Path(db_path))
    require_terminal(launch)
    if not db_path:
        from sitemap_tui.cli.cache import prune_at_start

        prune_at_start()  # a new exploration joins the cache: the old ones beyond its limits go
    db = Path(db_path) if db_path else default_db_path(target)
    # re-explored conditionally against the site's latest exploration in the cache, as the
    # headless commands are (session/host.py asks once the target is opened); --no-cache: not
    options = replace(explore_options(opts.tree), refetch=opts.tree.cache, page_rate=opts.rate)
    say_pending()  # how the target is read, before the explorer takes the screen
    return launch(target=target, db_path=db, fetch_config=fetch_config(opts.fetch), options=options)


def _check_explore_db(path: Path) -> None:
    """The explorer writes into --db while you browse: no moment of it is a complete run that
    could replace a saved exploration (as urls, stats and validate do), so it refuses one."""
    from sitemap_tui.engine.store.file import StoreLock, inspect_store

    StoreLock.acquire(path).release()  # in use: say so now, not from inside the explorer
    saved = inspect_store(path)
    if saved is not None and saved.holds_exploration:
        of = f" (of {display(saved.target, 200)})" if saved.target else ""
        raise UsageError(
            f"--db {path} already holds an exploration{of}; the explorer does not replace one: "
            f"reopen it with `sitemap-tui open {path}`, or name another file"
        )


def cmd_demo(opts: DemoOptions, launch: Launch) -> int:
    import errno

    from sitemap_tui.demo.server import DemoServer

    server = DemoServer(port=opts.port)
    try:
        server.start()
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(f"--port {opts.port} is in use (choose another, or 0 for a free one)") from exc
        raise UsageError(f"--port {opts.port}: cannot listen on it ({exc.strerror or exc})") from exc
    try:
        url = f"{server.base_url}/"
        if opts.serve:
            print(f"serving the demo site at {url} (Ctrl-C stops)", file=sys.stderr)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                return EXIT_OK
        # the command line's defaults, on the demo site
        fetch = FetchOptions(target=url)
        if opts.headless or not (sys.stdout.isatty() and sys.stdin.isatty()):
            from sitemap_tui.cli.stats import StatsOptions, cmd_stats

            return cmd_stats(StatsOptions(url, fetch=fetch))
        return cmd_explore(ExploreCommand(url, fetch=fetch), launch)
    finally:
        server.stop()

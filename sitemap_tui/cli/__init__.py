"""Command line: the explorer by default, and headless commands for scripts and CI.

One module per command (urls, stats, discover, validate, audit, rules, diff, cache, history, access, completion; open; explorer: explore, demo),
each defining and taking its typed options (options.py: the groups they share); parser.py is the grammar. Only argparse is imported
before a command runs, so `--help` stays fast, and the headless commands never import Textual:
the explorer is handed in as ``launch`` by the program's front door (sitemap_tui/main.py)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from sitemap_tui.cli.arrange import arrange
from sitemap_tui.cli.options import map_targets, one_file_twice
from sitemap_tui.cli.parser import HEADLESS, build_parser
from sitemap_tui.engine.sanitize import display
from sitemap_tui.session.exits import EXIT_OK, EXIT_USAGE, UsageError
from sitemap_tui.session.launch import Launch
from sitemap_tui.stderr_guard import kept_stderr


def main(argv: Sequence[str] | None = None, launch: Launch | None = None) -> int:
    """Run the command ``argv`` names; returns the exit code (docs/exit-codes.md). ``launch``
    runs the explorer (explore, open, demo); without it those commands are a usage error. A
    stderr that cannot be written loses the messages, never the exit code (stderr_guard)."""
    with kept_stderr():
        return _main(argv, launch)


def _main(argv: Sequence[str] | None, launch: Launch | None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not args_list:
        try:
            parser.print_help()
        except OSError as exc:
            return _write_failed(exc)
        return _flushed(EXIT_USAGE)
    try:
        # options anywhere: the command word (or the implicit explore) first, for argparse
        args_list = arrange(args_list, parser)
    except UsageError as exc:
        print(f"sitemap-tui: error: {display(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # --help, --version (0) or a bad option (2, said by argparse)
        return _flushed(exc.code if isinstance(exc.code, int) else EXIT_USAGE)
    except OSError as exc:  # the help or the version could not be written
        return _write_failed(exc)
    twice = one_file_twice(args)
    if twice is not None:
        print(f"sitemap-tui: error: {display(str(twice))}", file=sys.stderr)
        return EXIT_USAGE
    if launch is not None:
        from sitemap_tui.cli.explorer import terminal_missing

        no_terminal = terminal_missing(args, launch)
        if no_terminal is not None:
            print(f"sitemap-tui: error: {display(str(no_terminal))}", file=sys.stderr)
            return EXIT_USAGE
    import contextlib

    from sitemap_tui import output, scratch, signals
    from sitemap_tui.cli.options import say_pending
    from sitemap_tui.engine.store.file import StoreError

    scratch.sweep_temp()  # what runs killed outright (SIGKILL, the OOM killer) left in $TMPDIR
    # the headless commands' stdout: a write error (a full disk, a closed stdout) is an error
    # naming stdout, not a traceback, nor a silent success
    # (diff --tui opens the explorer: its stdout is the terminal's, not a result)
    headless = args.command in HEADLESS and not getattr(args, "tui", False)
    if args.command == "open":  # (imported here: the store's modules, 70 ms of every start)
        from sitemap_tui.cli.open import lists

        headless = lists(args, launch)
    guard = output.guarded_stdout() if headless else contextlib.nullcontext()
    say_pending(drop=True)  # (an earlier call's in this process, one that failed: not this one's)
    try:
        with signals.headless(), guard:
            code = _run(args, launch)
            say_pending()  # a run that read its targets without exploring them: said all the same
            if headless:
                sys.stdout.flush()
        signum = signals.received()  # the TUI exits on its own after SIGTERM/SIGHUP
        if signum is not None and signals.after_result():
            print(f"sitemap-tui: {signals.name(signum)} came once the output was written: the run"
                  " finished, its output is complete", file=sys.stderr)
        elif signum is not None:
            print(f"sitemap-tui: stopped by {signals.name(signum)}", file=sys.stderr)
            return 128 + signum
        return code
    except KeyboardInterrupt:
        signum = signals.received()
        if signum is not None:  # SIGTERM/SIGHUP, stopped as Ctrl-C stops
            print(f"sitemap-tui: stopped by {signals.name(signum)}", file=sys.stderr)
            return 128 + signum
        print("sitemap-tui: interrupted (Ctrl-C)", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # a closed pipe (| head) is the reader's choice, not an error
        output.silence_stdout()
        return EXIT_OK
    except output.OutputError as exc:
        say_pending(drop=True)
        print(f"sitemap-tui: error: {display(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except (UsageError, StoreError) as exc:
        say_pending(drop=True)  # the one line of a usage error (notes found before it unsaid)
        # StoreError: a --db or FILE.db that is not a store of ours, is in use, or cannot be written
        print(f"sitemap-tui: error: {display(str(exc))}", file=sys.stderr)
        return EXIT_USAGE


def _flushed(code: int) -> int:
    """``code``, once what argparse printed (--help, --version) is out: a full disk or a closed
    stdout is an error (exit 2), not a success with nothing written."""
    try:
        sys.stdout.flush()
    except OSError as exc:
        return _write_failed(exc)
    return code


def _write_failed(exc: OSError) -> int:
    from sitemap_tui import output

    output.silence_stdout()
    if isinstance(exc, BrokenPipeError):  # | head: the reader's choice
        return EXIT_OK
    print(f"sitemap-tui: error: cannot write to stdout ({exc.strerror or exc})", file=sys.stderr)
    return EXIT_USAGE


def _offline(ns: argparse.Namespace) -> bool:
    """``diff`` of two saved explorations and ``access`` of one read files only: the project
    config's fetching keys are not theirs (found by a review: a header whose variable a
    developer lacks stopped `diff a.db b.db`)."""
    from sitemap_tui.output import is_database

    if ns.command == "diff":
        sides = [getattr(ns, "old", None), getattr(ns, "new", None)]
    elif ns.command == "access":
        sides = [getattr(ns, "target", None)]
    else:
        return False
    return all(isinstance(side, str) and is_database(Path(side)) for side in sides)


def _run(ns: argparse.Namespace, launch: Launch | None) -> int:
    """The command ``ns`` names, on its typed options (each module imported only when its
    command runs, and it defines those options)."""
    command = ns.command
    if isinstance(getattr(ns, "db", None), str) and ns.db:
        # --db through its symlinks, once for every command (the headless store, an audit that
        # continues, the explorer): the lock sits beside the store itself, and a run on the
        # link and one on the store exclude each other (found by a review: only the headless
        # store did, and a second run replaced the store an explorer was writing)
        from sitemap_tui.engine.sanitize import display
        from sitemap_tui.output import OutputError, names_folder, resolve

        label = "FILE" if command == "open" else "--db"
        if names_folder(str(ns.db)) and not Path(ns.db).is_dir():  # (Path drops the slash)
            raise UsageError(f"{label} {display(ns.db)}: names a folder, as typed; name a file")
        try:
            real = resolve(Path(ns.db), label)
        except OutputError as exc:
            raise UsageError(f"{label} {display(ns.db)}: {exc.reason}") from exc
        if real != Path(os.path.abspath(ns.db)):  # (no link on the way: the name as typed, for messages)
            ns.db = str(real)
    if command != "validate" and hasattr(ns, "header") and not getattr(ns, "no_config", False) \
            and not _offline(ns):
        # the project config's headers, proxy and map reach every fetching command, as the
        # README says (found from outside: audit, diff, access and urls went around its proxy
        # and without its token); validate merges the whole file itself
        from sitemap_tui.cli.validate_config import apply_fetch_keys

        apply_fetch_keys(ns)
    if getattr(ns, "map", None):
        map_targets(ns)
    elif command in ("urls", "stats", "explore", "audit", "access") and hasattr(ns, "map"):
        map_targets(ns, imply=True)  # (validate: after its project config, which may hold a map)
    if command == "urls":
        from sitemap_tui.cli import urls

        return urls.cmd_urls(urls.options(ns))
    if command == "stats":
        from sitemap_tui.cli import stats

        return stats.cmd_stats(stats.options(ns))
    if command == "discover":
        from sitemap_tui.cli import discover

        return discover.cmd_discover(discover.options(ns))
    if command == "validate":
        from sitemap_tui.cli import validate

        return validate.cmd_validate(validate.options(ns))
    if command == "audit":
        from sitemap_tui.cli import audit

        return audit.cmd_audit(audit.options(ns))
    if command == "diff":
        from sitemap_tui.cli import diff

        return diff.cmd_diff(diff.options(ns), launch)
    if command == "rules":
        from sitemap_tui.cli import rules

        return rules.cmd_rules(rules.options(ns))
    if command == "cache":
        from sitemap_tui.cli import cache

        return cache.cmd_cache(cache.options(ns))
    if command == "history":
        from sitemap_tui.cli import history

        return history.cmd_history(history.options(ns))
    if command == "access":
        from sitemap_tui.cli import access

        return access.cmd_access(access.options(ns))
    if command == "completion":
        from sitemap_tui.cli import completion

        return completion.cmd_completion(completion.options(ns))
    if command == "open":
        from sitemap_tui.cli import open as open_command

        return open_command.cmd_open(open_command.open_options(ns), launch)
    from sitemap_tui.cli import explorer

    if launch is None:  # (only a caller that embeds the headless commands leaves it out)
        raise UsageError("the explorer is not part of this program; use a headless command")
    if command == "explore":
        return explorer.cmd_explore(explorer.explore_command(ns), launch)
    if command == "demo":
        return explorer.cmd_demo(explorer.demo_options(ns), launch)
    raise ValueError(f"unknown command {command!r}")

"""``cache list`` and ``cache prune``: the explorations the explorer kept in the cache, and their
removal by size and age (limits from the options, else the config file's ``[cache]`` table).

A prune never removes an exploration named with ``--keep`` or one another process has open, and
says each file it removes (or would, with ``--dry-run``) on stdout, with why."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sitemap_tui.engine.sanitize import display
from sitemap_tui.session.exits import EXIT_OK, UsageError
from sitemap_tui.session.recent import (
    CacheLimits,
    Saved,
    by_site,
    cache_folder,
    format_size,
    list_saved,
    load_limits,
    parse_age,
    parse_size,
    prune,
)


@dataclass(frozen=True, slots=True)
class CacheOptions:
    action: str  # list | prune
    json: bool = False
    max_size: str | None = None
    older_than: str | None = None
    dry_run: bool = False
    keep: tuple[str, ...] = ()


def options(ns: argparse.Namespace) -> CacheOptions:
    return CacheOptions(ns.action, ns.json, ns.cache_max_size, ns.older_than, ns.dry_run, tuple(ns.keep))


def limits_for(opts: CacheOptions) -> CacheLimits:
    """The options' limits over the config file's (whose problems are said on stderr)."""
    limits = load_limits()
    for problem in limits.problems:
        print(f"sitemap-tui: warning: {display(problem)}", file=sys.stderr)
    size = parse_size(opts.max_size) if opts.max_size is not None else limits.max_size
    age = parse_age(opts.older_than) if opts.older_than is not None else limits.max_age
    return CacheLimits(size, age)


def line_of(s: Saved) -> str:
    """One exploration on one line: date, site, URLs, files, size, path (or why it is unreadable)."""
    if s.summary.problem:
        what = f"unreadable: {display(s.summary.problem, 200)}"
    else:
        urls, files = s.summary.urls, s.summary.files
        what = f"{urls:>9,} {'URL ' if urls == 1 else 'URLs'} {files:>6,} {'file ' if files == 1 else 'files'}"
    return f"{s.date_text}  {display(s.site, 60):<28} {what}  {format_size(s.size):>10}  {display(str(s.path))}"


def as_json(saved: list[Saved]) -> dict[str, object]:
    """The explorations by site (issue 20's history builds on this key), newest first."""
    def one(s: Saved) -> dict[str, object]:
        return {"path": str(s.path), "target": s.summary.target, "started": s.summary.started,
                "modified": datetime.fromtimestamp(s.when, UTC).isoformat(), "bytes": s.size,
                "files": s.summary.files, "urls": s.summary.urls, "problem": s.summary.problem}

    return {"folder": str(cache_folder()),
            "sites": [{"site": site, "explorations": [one(s) for s in items]} for site, items in by_site(saved).items()]}


def print_list(saved: list[Saved], *, as_json_output: bool) -> None:
    if as_json_output:
        print(json.dumps(as_json(saved), indent=2))
        return
    for s in saved:
        print(line_of(s))
    total = sum(s.size for s in saved)
    print(f"sitemap-tui: {len(saved)} exploration{'s' * (len(saved) != 1)}, {format_size(total)}, "
          f"in {display(str(cache_folder()))}", file=sys.stderr)


def cmd_cache(opts: CacheOptions) -> int:
    if opts.action == "list":
        if opts.dry_run or opts.keep or opts.max_size or opts.older_than:
            raise UsageError("--max-size, --older-than, --keep and --dry-run are options of `cache prune`")
        print_list(list_saved(), as_json_output=opts.json)
        return EXIT_OK
    keep = [Path(k) for k in opts.keep]
    for k in keep:
        if not k.exists():
            raise UsageError(f"--keep {display(str(k))}: no such exploration file")
    return run_prune(limits_for(opts), keep=keep, dry_run=opts.dry_run, as_json_output=opts.json)


def run_prune(limits: CacheLimits, *, keep: list[Path], dry_run: bool, as_json_output: bool = False,
              quiet_when_nothing: bool = False) -> int:
    """Prune the cache to ``limits`` and say what went (stdout for ``cache prune``, stderr for the
    explorer's own prune at start: its stdout is the terminal it draws on)."""
    saved = list_saved(read=False)
    result = prune(saved, limits, now=time.time(), keep=keep, dry_run=dry_run)
    out = sys.stderr if quiet_when_nothing else sys.stdout
    verb = "would remove" if dry_run else "removed"
    if as_json_output:
        print(json.dumps({
            "dry_run": dry_run,
            "removed": [{"path": str(s.path), "bytes": s.size, "why": why} for s, why in result.removed],
            "kept": [{"path": str(s.path), "why": why} for s, why in result.kept_back],
            "failed": [{"path": str(s.path), "why": why} for s, why in result.failed],
            "bytes_after": result.total_after,
        }, indent=2))
    else:
        for s, why in result.removed:
            print(f"sitemap-tui: cache: {verb} {display(str(s.path))} ({format_size(s.size)}): {why}", file=out)
        for s, why in result.kept_back:
            print(f"sitemap-tui: cache: {display(str(s.path))} is over a limit but {why}", file=sys.stderr)
    for s, why in result.failed:
        print(f"sitemap-tui: cache: could not remove {display(str(s.path))}: {why}", file=sys.stderr)
    if not (quiet_when_nothing and not result.removed and not result.failed):
        n = len(result.removed)
        print(f"sitemap-tui: cache: {n} exploration{'s' * (n != 1)} {'would be removed' if dry_run else 'removed'}; "
              f"{format_size(result.total_after)} {'would be ' if dry_run else ''}left "
              f"(limits {format_size(limits.max_size)}, {_age(limits.max_age)})", file=sys.stderr)
    return EXIT_OK if not result.failed else 1


def _age(seconds: float) -> str:
    """An age limit as a person writes it: "30 days", "12 hours", "90 seconds" (--older-than 1s
    was "1.15741e-05 days")."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = seconds / size
            return f"{n:.3g} {unit}{'s' * (n != 1)}"
    return f"{seconds:.3g} second{'s' * (seconds != 1)}"


def prune_at_start() -> None:
    """The explorer keeps a new exploration in the cache: the old ones beyond the configured
    limits go first, each said on stderr (before the explorer takes the screen)."""
    limits = load_limits()
    for problem in limits.problems:
        print(f"sitemap-tui: warning: {display(problem)}", file=sys.stderr)
    run_prune(limits, keep=[], dry_run=False, quiet_when_nothing=True)

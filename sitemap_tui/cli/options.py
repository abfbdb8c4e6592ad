"""Each command's options as a typed object, built once from argparse's Namespace: the commands
read fields that exist, with the command line's defaults, never ``getattr(args, ...)``."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from sitemap_tui.session.fetching import FetchOptions


@dataclass(frozen=True, slots=True)
class TreeOptions:
    """How far an exploration goes and where it is kept (the "exploring" option group)."""

    recursive: bool = True
    depth: int = 10
    max_files: int = 10_000
    probe: bool = False
    follow_cross_host: bool = False
    db: str | None = None
    workers: int | None = None  # None: one per core (engine.workers.default_workers)


@dataclass(frozen=True, slots=True)
class UrlsOptions:
    target: str
    format: str = "txt"
    csv_raw: bool = False
    output: str | None = None
    keep_non_http: bool = False
    strict: bool = False
    fetch: FetchOptions = field(default_factory=FetchOptions)
    tree: TreeOptions = field(default_factory=TreeOptions)


@dataclass(frozen=True, slots=True)
class StatsOptions:
    target: str
    json: bool = False
    output: str | None = None
    strict: bool = False
    fetch: FetchOptions = field(default_factory=FetchOptions)
    tree: TreeOptions = field(default_factory=TreeOptions)


@dataclass(frozen=True, slots=True)
class DiscoverOptions:
    target: str
    json: bool = False
    strict: bool = False
    fetch: FetchOptions = field(default_factory=FetchOptions)
    tree: TreeOptions = field(default_factory=lambda: TreeOptions(recursive=False))


@dataclass(frozen=True, slots=True)
class ValidateOptions:
    target: str
    format: str = "text"
    output: str | None = None
    select: str | None = None
    ignore: str | None = None
    min_severity: str = "info"
    fail_on: str = "error"
    robots_checks: bool = True
    xsd: str = "lax"
    deep: bool = False
    sample: int | None = 100
    rate: float = 5.0
    strict: bool = False
    fetch: FetchOptions = field(default_factory=FetchOptions)
    tree: TreeOptions = field(default_factory=TreeOptions)


@dataclass(frozen=True, slots=True)
class RulesOptions:
    rule: str | None = None
    json: bool = False


@dataclass(frozen=True, slots=True)
class ExploreCommand:
    """``explore``: the explorer on a target (its tree has no --no-recursive)."""

    target: str
    fetch: FetchOptions = field(default_factory=FetchOptions)
    tree: TreeOptions = field(default_factory=TreeOptions)


@dataclass(frozen=True, slots=True)
class OpenOptions:
    db: str


@dataclass(frozen=True, slots=True)
class DemoOptions:
    serve: bool = False
    port: int = 0
    headless: bool = False


Options = (UrlsOptions | StatsOptions | DiscoverOptions | ValidateOptions | RulesOptions | ExploreCommand
           | OpenOptions | DemoOptions)


def fetch_options(ns: argparse.Namespace) -> FetchOptions:
    return FetchOptions(
        target=ns.target, header=tuple(ns.header), header_all_hosts=ns.header_all_hosts,
        allow_private=ns.allow_private, resolve=tuple(ns.resolve), user_agent=ns.user_agent,
        timeout=ns.timeout, concurrency=ns.concurrency, per_host=ns.per_host, max_size=ns.max_size,
    )


def tree_options(ns: argparse.Namespace, *, recursive: bool) -> TreeOptions:
    return TreeOptions(
        recursive=recursive, depth=ns.depth, max_files=ns.max_files, probe=ns.probe, follow_cross_host=ns.follow_cross_host,
        db=ns.db, workers=ns.workers,
    )


def from_namespace(ns: argparse.Namespace) -> Options:
    """The typed options of the command that ``ns`` (build_parser's result) names."""
    command = ns.command
    if command == "urls":
        return UrlsOptions(ns.target, ns.format, ns.csv_raw, ns.output, ns.keep_non_http, ns.strict,
                           fetch_options(ns), tree_options(ns, recursive=not ns.no_recursive))
    if command == "stats":
        return StatsOptions(ns.target, ns.json, ns.output, ns.strict, fetch_options(ns),
                            tree_options(ns, recursive=not ns.no_recursive))
    if command == "discover":
        # only the target's own files: robots.txt, the probed paths and the home page
        return DiscoverOptions(ns.target, ns.json, ns.strict, fetch_options(ns),
                               TreeOptions(recursive=False, probe=ns.probe))
    if command == "validate":
        return ValidateOptions(
            ns.target, ns.format, ns.output, ns.select, ns.ignore, ns.min_severity, ns.fail_on,
            not ns.no_robots_checks, ns.xsd, ns.deep, ns.sample, ns.rate, ns.strict,
            fetch_options(ns), tree_options(ns, recursive=not ns.no_recursive))
    if command == "rules":
        return RulesOptions(ns.rule, ns.json)
    if command == "explore":
        # (explore has no --no-recursive: the explorer expands what the user opens)
        return ExploreCommand(ns.target, fetch_options(ns), tree_options(ns, recursive=True))
    if command == "open":
        return OpenOptions(ns.db)
    if command == "demo":
        return DemoOptions(ns.serve, ns.port, ns.headless)
    raise ValueError(f"unknown command {command!r}")

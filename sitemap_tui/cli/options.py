"""What the commands' typed options share: the exploring group and the fetching group, read from
argparse's Namespace. Each command module defines its own options dataclass and ``options(ns)``
beside the command, so a run creates only its own (a frozen dataclass costs about a millisecond
to define, and ``urls`` starts in ~0.3 s)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from sitemap_tui.session.fetching import FetchOptions, default_concurrency


@dataclass(frozen=True, slots=True)
class TreeOptions:
    """How far an exploration goes and where it is kept (the "exploring" option group)."""

    recursive: bool = True
    depth: int = 10
    max_files: int = 10_000
    probe: bool = False
    follow_cross_host: bool = False
    db: str | None = None
    workers: int | None = None  # None: one per usable core (engine.cores.default_workers)
    history: bool = True  # keep the exploration in the cache when no --db is named (--no-history)


def worker_count(ns: argparse.Namespace) -> int:
    """The parser processes of a command that has ``--workers``: the option, else one per usable
    core; 0 for a command without it (it parses nothing)."""
    if not hasattr(ns, "workers"):
        return 0
    if ns.workers is not None:
        return int(ns.workers)
    from sitemap_tui.engine.cores import default_workers

    return default_workers()


def fetch_options(ns: argparse.Namespace) -> FetchOptions:
    # --concurrency not given: at least one download per worker, so `--workers N` alone is
    # never slower than the default (issue 19); a command without --workers keeps 8
    concurrency = ns.concurrency if ns.concurrency is not None else default_concurrency(worker_count(ns))
    return FetchOptions(
        target=ns.target, header=tuple(ns.header), header_all_hosts=ns.header_all_hosts,
        allow_private=ns.allow_private, resolve=tuple(ns.resolve), user_agent=ns.user_agent,
        timeout=ns.timeout, concurrency=concurrency, per_host=ns.per_host, max_size=ns.max_size,
        maps=tuple(ns.map), cacert=ns.cacert, insecure=ns.insecure,
    )


def tree_options(ns: argparse.Namespace, *, recursive: bool) -> TreeOptions:
    return TreeOptions(
        recursive=recursive, depth=ns.depth, max_files=ns.max_files, probe=ns.probe, follow_cross_host=ns.follow_cross_host,
        db=ns.db, workers=worker_count(ns), history=not getattr(ns, "no_history", False),
    )

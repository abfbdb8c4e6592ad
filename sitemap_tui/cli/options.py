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
    cache: bool = True  # ask conditionally against the site's latest exploration (--no-cache: not)


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
        timeout=ns.timeout, retries=ns.retries, concurrency=concurrency, per_host=ns.per_host, max_size=ns.max_size,
        maps=tuple(ns.map), cacert=ns.cacert, insecure=ns.insecure, proxy=ns.proxy,
    )


def tree_options(ns: argparse.Namespace, *, recursive: bool) -> TreeOptions:
    return TreeOptions(
        recursive=recursive, depth=ns.depth, max_files=ns.max_files, probe=ns.probe, follow_cross_host=ns.follow_cross_host,
        db=ns.db, workers=worker_count(ns), history=not getattr(ns, "no_history", False),
        cache=not getattr(ns, "no_cache", False),
    )


def map_targets(ns: argparse.Namespace) -> None:
    """A local target inside a ``--map``ped directory becomes the URL it stands for, so the
    build is judged as the deployed site (its index children are on the same host); a bad
    --map is a usage error here, before anything runs. ``validate``'s several TARGETs each."""
    import sys
    from pathlib import Path

    from sitemap_tui.engine.localmap import parse_maps, url_for_path
    from sitemap_tui.session.exits import UsageError

    try:
        maps = parse_maps(getattr(ns, "map", None) or [])
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    if not maps:
        return

    def mapped(raw: object) -> object:
        if not isinstance(raw, str) or "://" in raw or not Path(raw).expanduser().exists():
            return raw
        url = url_for_path(maps, Path(raw))
        if url is None:
            return raw
        print(f"sitemap-tui: {raw} is read as {url} (--map)", file=sys.stderr)
        return url

    for name in ("target", "old", "new"):
        raw = getattr(ns, name, None)
        if isinstance(raw, list):
            setattr(ns, name, [mapped(r) for r in raw])
        elif raw is not None:
            setattr(ns, name, mapped(raw))

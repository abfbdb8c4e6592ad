"""What the commands' typed options share: the exploring group and the fetching group, read from
argparse's Namespace. Each command module defines its own options dataclass and ``options(ns)``
beside the command, so a run creates only its own (a frozen dataclass costs about a millisecond
to define, and ``urls`` starts in ~0.3 s)."""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sitemap_tui.session.fetching import FetchOptions, default_concurrency

if TYPE_CHECKING:
    from sitemap_tui.engine.localmap import LocalMap

# a headless run, at most (--max-time): a set of 10 M URLs takes minutes to explore; a hostile
# index of slow children took children x --timeout / --per-host (21 h with the defaults), and
# validate --deep's or audit's pages as long again
DEFAULT_MAX_TIME = 1800.0

# The notes on how the targets are read (a build folder read as its site, its unlisted files),
# said when the run starts (:func:`say_pending`): a usage error found after them (a --select
# typo, a --baseline that is not there) is then the one line it should be, not the second.
_PENDING: list[str] = []


def say_later(text: str) -> None:
    _PENDING.append(text)


def say_pending(*, drop: bool = False) -> None:
    """Say the notes :func:`say_later` kept (``drop``: forget them, the run did not start)."""
    import sys

    from sitemap_tui.engine.sanitize import display

    notes = list(_PENDING)
    _PENDING.clear()
    if not drop:
        for text in notes:
            # (escaped here, once: a build folder's file names, a typed path, are untrusted bytes)
            print(f"sitemap-tui: {display(text)}", file=sys.stderr)


@dataclass(frozen=True, slots=True)
class TreeOptions:
    """How far an exploration goes and where it is kept (the "exploring" option group)."""

    recursive: bool = True
    depth: int = 10
    max_files: int = 10_000
    probe: bool = False
    follow_cross_host: bool = False
    db: str | None = None
    # None: one per usable core (engine.cores.default_workers), started when the run has work
    # for them (ExploreOptions.lazy_pool); a number, the user's `--workers N` (0: a command
    # that parses nothing)
    workers: int | None = None
    history: bool = True  # keep the exploration in the cache when no --db is named (--no-history)
    cache: bool = True  # ask conditionally against the site's latest exploration (--no-cache: not)
    also: tuple[str, ...] = ()  # a build folder's sitemaps that nothing lists, read as the site's too
    max_time: float = DEFAULT_MAX_TIME  # seconds; 0: no limit (the explorer has none)


def time_left(tree: TreeOptions, started: float) -> float | None:
    """Seconds of the run's budget (--max-time) left after the exploration that began at
    ``started`` (time.monotonic()): the fetches after it (validate --deep, audit's pages) get
    only those; None when there is no budget (--max-time 0)."""
    if tree.max_time <= 0:
        return None
    return max(0.0, tree.max_time - (time.monotonic() - started))


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
        db=ns.db, workers=None if getattr(ns, "workers", 0) is None else worker_count(ns),
        history=not getattr(ns, "no_history", False),
        cache=not getattr(ns, "no_cache", False), also=tuple(getattr(ns, "also", None) or ()),
        max_time=getattr(ns, "max_time", 0.0),
    )


def map_targets(ns: argparse.Namespace, *, imply: bool = False) -> None:
    """A local target inside a ``--map``ped directory becomes the URL it stands for, so the
    build is judged as the deployed site (its index children are on the same host); a bad
    --map is a usage error here, before anything runs. ``validate``'s several TARGETs each.
    ``imply``: with no --map, a local target whose folder's robots.txt names one site is read
    as that site, as ``--map SITE=FOLDER`` would read it (said on stderr)."""

    from sitemap_tui.engine.localmap import parse_maps, url_for_path
    from sitemap_tui.engine.sanitize import display
    from sitemap_tui.session.exits import UsageError

    try:
        maps = parse_maps(getattr(ns, "map", None) or [])
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    why = "(--map)"
    if not maps and imply:
        ns.map, by_index = _implied_maps(ns)
        try:
            maps = parse_maps(ns.map)
        except ValueError:  # (a site the folder's files name that no map can say): read as files
            ns.map, maps = [], ()
        where = {m.partition("=")[2] for m in ns.map}
        there = f" in {display(_as_typed(where.pop()), 200)}" if len(where) == 1 else ""
        named = f"an index{there} lists files of" if by_index else f"the robots.txt{there} names"
        why = f"(the site {named}; --map URL=DIR names another)"
    if not maps:
        return
    given = why == "(--map)"  # (an implied map's folder said its unlisted files already)
    also_of: dict[str, list[str]] = {}

    def mapped(raw: object) -> object:
        if not isinstance(raw, str) or "://" in raw or not _local(raw):
            return raw
        url = url_for_path(maps, Path(raw))
        if url is None:
            return raw
        say_later(f"{raw} is read as {url} {why}")
        if given and Path(raw).expanduser().is_dir():
            also_of[url] = _mapped_also(maps, Path(raw).expanduser().resolve(), url)
        return url

    for name in ("target", "old", "new"):
        raw = getattr(ns, name, None)
        if isinstance(raw, list):
            setattr(ns, name, [mapped(r) for r in raw])
        elif raw is not None:
            setattr(ns, name, mapped(raw))
    if given:
        # each folder TARGET's sitemaps that nothing lists, read as the mapped site's too
        # (TreeOptions.also; validate's several TARGETs and diff's sides take theirs by URL)
        ns.also_by_target = also_of
        raw_target = getattr(ns, "target", None)  # (diff has OLD and NEW instead)
        targets = raw_target if isinstance(raw_target, list) else [raw_target]
        if len(targets) == 1 and isinstance(targets[0], str) and targets[0] in also_of:
            ns.also = also_of[targets[0]]


def _mapped_also(maps: tuple[LocalMap, ...], folder: Path, url: str) -> list[str]:
    """The URLs of a mapped folder TARGET's sitemaps that neither its robots.txt nor an index
    there lists, as the folder read as its robots.txt's site reads them (:func:`_implied_maps`);
    said on stderr. A file TARGET reads only itself, as without --map."""
    from sitemap_tui.engine.localdir import mapped_unlisted
    from sitemap_tui.engine.localmap import lookup, url_for_path

    def local_of(url: str) -> Path | None:
        hit = lookup(maps, url)
        return hit.path if hit is not None else None

    try:
        names = mapped_unlisted(folder, url, local_of)
    except OSError:
        return []
    urls = [u for name in names if (u := url_for_path(maps, folder / name)) is not None]
    _say_unlisted(folder, names)
    return urls


def _say_unlisted(folder: Path, names: tuple[str, ...]) -> None:

    from sitemap_tui.engine.sanitize import display
    from sitemap_tui.words import plural

    if not names:
        return
    shown = ", ".join(display(n, 100) for n in names[:5])
    more = f", and {len(names) - 5:,} more" if len(names) > 5 else ""
    say_later(f"{plural(len(names), 'sitemap file')} in {display(str(folder), 200)} "
              f"listed by neither its robots.txt nor an index there, read as well: {shown}{more}")


def map_each_target(ns: argparse.Namespace,
                    raws: list[object] | None = None) -> list[tuple[object, tuple[str, ...], tuple[str, ...]]]:
    """``validate``'s several TARGETs (or ``diff``'s two sides, ``raws``) with no --map: each
    read as it would be alone, with the site its own folder names (two builds of one site,
    ``public/`` and ``staging/``, each stand for it in their own run). Each as mapped, with its
    map and the folder's files nothing lists that it reads too (``also``: found by a review,
    `diff DIR1 DIR2` said it read them and did not); an exploration file (``.db``) as it is."""
    import copy

    each: list[tuple[object, tuple[str, ...], tuple[str, ...]]] = []
    by_map: dict[str, list[str]] = getattr(ns, "also_by_target", None) or {}
    for raw in ns.target if raws is None else raws:
        if isinstance(raw, str) and raw in by_map:  # (a folder the config's map covers)
            each.append((raw, (), tuple(by_map[raw])))
            continue
        if not isinstance(raw, str) or Path(raw).suffix == ".db":
            each.append((raw, (), ()))
            continue
        alone = copy.copy(ns)
        alone.target, alone.map, alone.also = [raw], [], []
        alone.old = alone.new = None  # (diff's sides: this one is mapped as the target alone)
        map_targets(alone, imply=True)
        each.append((alone.target[0], tuple(alone.map or ()), tuple(alone.also or ())))
    return each


def _local(raw: str) -> bool:
    """``raw`` names a path that is there (``~nosuchuser/`` names none: no such home, and a
    traceback before the target's own one-line error), and not a saved exploration (``access
    saved.db`` in a build's folder was read as a sitemap of the site: found by a review)."""
    from sitemap_tui.output import is_database

    try:
        path = Path(raw).expanduser()
        return path.exists() and not (path.is_file() and is_database(path))
    except (RuntimeError, OSError, ValueError):
        return False


def _implied_maps(ns: argparse.Namespace) -> tuple[list[str], bool]:
    """``SITE=FOLDER`` for each local target's folder whose robots.txt names one site, or
    without a ``Sitemap:`` line whose index does (localdir.named_site; none when two folders
    name the same site: which one stands for it is the user's choice, --map), and whether an
    index named one. Without it, an index's children on that site were "on another host" and
    the location rules had no site to judge by."""
    from urllib.parse import quote

    from sitemap_tui.engine.localdir import NamedSite, target_site
    from sitemap_tui.engine.sanitize import display
    from sitemap_tui.words import plural

    raws = ns.target if isinstance(ns.target, list) else [ns.target]
    found: dict[str, NamedSite] = {}
    for raw in raws:
        if not isinstance(raw, str) or "://" in raw:
            continue
        if not _local(raw):
            continue
        path = Path(raw).expanduser()
        folder = (path if path.is_dir() else path.parent).resolve()
        if folder in {s.folder for s in found.values()}:
            continue
        site = target_site(path)
        if site is None:
            _say_no_site(folder if path.is_dir() else None)
            continue
        if site.origin in found:
            if found[site.origin].folder == site.folder:
                continue  # two files of one build (public/de/, public/en/)
            return [], False
        found[site.origin] = site
        if site.others and path.is_dir():  # (a file target reads no Sitemap: line of robots.txt)
            shown = ", ".join(display(o, 100) for o in site.others[:5])
            say_later(f"{display(str(site.folder / 'robots.txt'), 200)} names {plural(len(site.others) + 1, 'site')}: "
                      f"the folder is read as {display(site.origin, 100)} (whose Sitemap: lines name its files); "
                      f"{shown} {'is' if len(site.others) == 1 else 'are'} read from the network as named")
    # A folder target: its sitemaps that nothing lists are read beside what robots.txt names, as
    # a folder's sitemaps were read before it was a site (a crawler would not find them: said).
    if len(raws) == 1 and len(found) == 1 and _local(str(raws[0])) and Path(str(raws[0])).expanduser().is_dir():
        site = next(iter(found.values()))
        if site.unlisted:
            ns.also = [site.origin + quote(name) for name in site.unlisted]
            _say_unlisted(site.folder, site.unlisted)
    return [f"{origin}={site.folder}" for origin, site in found.items()], any(s.by_index for s in found.values())


def _as_typed(folder: str) -> str:
    """A resolved folder as relative to the working directory when it is inside it."""
    import os

    try:
        relative = os.path.relpath(folder)
    except (OSError, ValueError):
        return folder
    return folder if relative.startswith("..") else relative


def _say_no_site(folder: Path | None) -> None:
    """Why a folder TARGET whose robots.txt names several sites stands for none (its files
    then read as ``file:`` URLs, the host and location rules silent, its index's children
    unread): the user's --map decides."""

    from sitemap_tui.engine.localdir import here_of, robots_sites
    from sitemap_tui.engine.sanitize import display

    if folder is None:
        return
    try:
        named = robots_sites(folder)
    except OSError:
        return
    if len(named) < 2:
        return
    here = here_of(folder, named)
    shown = ", ".join(display(o, 100) for o in sorted(here or named)[:5])
    why = f"the Sitemap: lines of {len(here)} of them ({shown}) name its files" if here else \
        f"none of them ({shown}) names one of its files"
    say_later(f"{display(str(folder / 'robots.txt'), 200)} names {len(named)} sites and {why}: the "
              f"folder is read as no site (host and location rules judge nothing); give --map SITE=FOLDER")


_OUTPUTS = (("--db", "db"), ("--output", "output"), ("--write-baseline", "write_baseline"))


# what a run reads from files: an output naming one of them would replace it (`urls
# sitemap.xml -o sitemap.xml`, `-o base.json --baseline base.json`). --write-baseline may name
# the --baseline it renews: it writes every finding, the known ones included.
_INPUTS = (("TARGET", "target"), ("OLD", "old"), ("NEW", "new"), ("--baseline", "baseline"),
           ("--compare-list", "compare_list"))


def _same_file(path: str, other: str) -> bool:
    import os

    if os.path.realpath(path) == os.path.realpath(other):
        return True
    return os.path.exists(path) and os.path.exists(other) and os.path.samefile(path, other)  # a hard link


def _within(path: str, folder: str) -> bool:
    import os

    return os.path.commonpath([os.path.realpath(path), os.path.realpath(folder)]) == os.path.realpath(folder)


def one_file_twice(ns: argparse.Namespace) -> str | None:
    """Two of a run's outputs (--db, -o, --write-baseline) naming one file, or an output naming
    a file the run reads, in words; None when they are apart. Each would replace the other when
    the run completes (a report lost under the store, a sitemap under its URL list), so the run
    is refused before any work, as for a file that already is a store."""
    import os

    seen: list[tuple[str, str]] = []
    for flag, attr in _OUTPUTS:
        path = getattr(ns, attr, None)
        if not path:  # not given, or -o - (stdout)
            continue
        for other_flag, other in seen:
            if _same_file(path, other):
                return f"{other_flag} and {flag} name the same file ({path}): each would replace the other"
        seen.append((flag, path))
    inputs: list[tuple[str, object]] = [(in_flag, getattr(ns, attr, None)) for in_flag, attr in _INPUTS]
    # a --map URL=DIR build folder is read as a folder TARGET is (found from outside: -o into it
    # replaced the build's child sitemap, or its robots.txt, with the run's output)
    inputs += [("--map", [m.partition("=")[2] for m in getattr(ns, "map", None) or () if isinstance(m, str)])]
    for in_flag, value in inputs:
        for source in value if isinstance(value, list) else [value]:
            if isinstance(source, str) and "://" not in source and os.path.isdir(source):
                # a folder the run reads: a file in it named as a sitemap may be one (a report
                # beside it, report.json, is no sitemap: it may be replaced)
                from sitemap_tui.engine.localdir import LOCAL_SUFFIXES

                for flag, path in seen:
                    if path.lower().endswith(LOCAL_SUFFIXES) and os.path.isfile(path) and _within(path, source):
                        return f"{flag} names a file in the {in_flag} folder ({path}): the run would replace a file it reads"
                continue
            if not isinstance(source, str) or "://" in source or not os.path.isfile(source):
                continue  # a URL, a host name: no file to replace
            for flag, path in seen:
                if not (flag == "--write-baseline" and in_flag == "--baseline") and _same_file(path, source):
                    return f"{flag} names {in_flag} ({path}): the run would replace the file it reads"
    return None

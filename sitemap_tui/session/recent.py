"""The explorations kept in the cache: which there are (newest first, keyed by site), the cache's
limits (size and age; the ``[cache]`` table of the config file, or options), and pruning.

Each exploration is ``<cache>/explorations/HOST-STAMP.db`` (session/paths.py) with its source
bodies in ``HOST-STAMP.bodies/`` and its engine's ``HOST-STAMP.log`` beside it; they count
toward its size and go when it is pruned. The history of a site (issue 20) builds on :func:`by_site`."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import time
import tomllib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from sitemap_tui.engine.store.file import JOURNALS, StoreError, StoreLock, lock_path
from sitemap_tui.engine.store.summary import ExplorationSummary, read_summary, stat_summary
from sitemap_tui.session.sizes import LimitError, format_size, parse_age, parse_size

CONFIG_ENV = "SITEMAP_TUI_CONFIG"  # the same file as the explorer's keymap and theme (tui/config.py)
DEFAULT_MAX_SIZE = 2 * 1024**3
DEFAULT_MAX_AGE = 90 * 24 * 3600.0

def cache_folder() -> Path:
    """Where the explorer keeps explorations nobody named a file for."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("sitemap-tui")) / "explorations"


# -- the site key --------------------------------------------------------------------------------
DEFAULT_PORTS = {"http": 80, "https": 443}
_PORTED = re.compile(r"(?:\[(?P<v6>[^\]]+)\]|(?P<host>[^:/\[\]]+)):(?P<port>\d+)")


def url_site_key(url: str, *, bare: bool = False) -> str | None:
    """The site key of an http(s) URL: its host, with ``:port`` when the port is not its scheme's
    default (a server on another port is another site: the demo's runs, a new port each, shared
    one history and compared as every URL changed). None for any other URL; ``bare``: a URL
    without a scheme is read as a TARGET reads it (https)."""
    text = url.strip()
    if bare and "://" not in text:
        text = "https://" + text
    parts = urlsplit(text)
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    try:
        port = parts.port
    except ValueError:  # not a port: the host alone, as before the port was in the key
        port = None
    if port is None or port == DEFAULT_PORTS[parts.scheme]:
        return parts.hostname
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{host}:{port}"


def key_host(key: str) -> str:
    """The host of a site key (``host:port`` or ``[v6]:port`` without its port)."""
    m = _PORTED.fullmatch(key)
    return key if m is None else (m["v6"] or m["host"])


def key_port(key: str) -> int | None:
    """The port a site key names, None for a default port's (or a local path's) key."""
    m = _PORTED.fullmatch(key)
    return None if m is None else int(m["port"])


# -- the limits ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CacheLimits:
    max_size: int = DEFAULT_MAX_SIZE  # bytes, all explorations together
    max_age: float = DEFAULT_MAX_AGE  # seconds since an exploration was last written
    problems: tuple[str, ...] = ()  # what the config file got wrong (the defaults are used instead)


def config_file() -> Path:
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("sitemap-tui")) / "config.toml"


def load_limits(path: Path | None = None) -> CacheLimits:
    """The ``[cache]`` table of the config file (``max_size = "2GiB"``, ``max_age = "90d"``); a
    missing file or table gives the defaults, a bad value the default plus a problem to say."""
    path = path or config_file()
    try:
        data = tomllib.loads(path.read_bytes().decode("utf-8", "replace"))
    except FileNotFoundError:
        return CacheLimits()
    except (OSError, tomllib.TOMLDecodeError, RecursionError) as exc:
        return CacheLimits(problems=(f"{path}: cannot read the [cache] limits ({exc}); using the defaults",))
    table = data.get("cache", {})
    if not isinstance(table, dict):
        return CacheLimits(problems=(f"{path}: [cache] must be a table; using the default limits",))
    size, age, problems = DEFAULT_MAX_SIZE, DEFAULT_MAX_AGE, []
    problems += [f"{path}: cache.{key}: no such limit (max_size, max_age)" for key in table
                 if key not in ("max_size", "max_age")]
    for key, parse in (("max_size", parse_size), ("max_age", parse_age)):
        if key not in table:
            continue
        try:
            value = parse(str(table[key]))
        except LimitError as exc:
            problems.append(f"{path}: cache.{key}: {exc}; using the default")
            continue
        if key == "max_size":
            size = int(value)
        else:
            age = float(value)
    return CacheLimits(size, age, tuple(problems))


# -- what is there -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Saved:
    """One exploration in the cache: its summary, and what it takes on disk (bodies included)."""

    summary: ExplorationSummary
    size: int

    @property
    def path(self) -> Path:
        return self.summary.path

    @property
    def site(self) -> str:
        """The key of a site's history (session/history.py): the one a headless run wrote, else
        the target's host (and port), else the file name's (an explorer's local target: "local")."""
        if self.summary.site:
            # runs before the port joined the key wrote the host alone: their target has the port
            if self.summary.target and "/" not in self.summary.site:
                key = url_site_key(self.summary.target, bare=True)
                if key is not None and key_host(key) == self.summary.site:
                    return key
            return self.summary.site
        if self.summary.target:
            key = url_site_key(self.summary.target)
            if key:
                return key
        stem = self.path.stem
        return re.sub(r"-\d{8}-\d{6}(-\d+)?$", "", stem) or stem  # (-N: a second run in that second)

    @property
    def date_text(self) -> str:
        """When it was started (UTC), to the second: two runs in one minute (a re-run after a
        fix) read apart in every list."""
        return self.date.strftime("%Y-%m-%d %H:%M:%S")

    @property
    def date(self) -> datetime:
        """When the exploration was started (UTC), or last written when the file does not say."""
        if self.summary.started:
            with contextlib.suppress(ValueError):
                return datetime.fromisoformat(self.summary.started).astimezone(UTC)
        return datetime.fromtimestamp(self.when, UTC)

    @property
    def when(self) -> float:
        """When it was last written (seconds since the epoch): its age counts from there."""
        return self.summary.mtime


def _tree_size(folder: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def unusable(folder: Path, exc: OSError) -> StoreError:
    """The cache folder that cannot be listed, as the one-line error every command gives for a
    store it cannot use (exit 2; XDG_CACHE_HOME or the folder is to be fixed)."""
    return StoreError(folder, f"the cache folder cannot be read ({exc.strerror or exc}): fix it, set XDG_CACHE_HOME, or run with --no-history --no-cache")


def bodies_of(db: Path) -> Path:
    from sitemap_tui.engine.bodycache import bodies_beside

    return bodies_beside(db)


def list_saved(folder: Path | None = None, *, prefix: str = "", read: bool = True) -> list[Saved]:
    """The explorations in ``folder`` (the cache's by default), newest first (by start; an
    unreadable file by when it was last written); with ``prefix``, only files named so (each
    summary is a database opened: a re-exploration reads its site's files, not the cache's all).
    ``read=False`` opens none and knows only each file's size and age, all that pruning needs: every
    headless run prunes first, and reading 330 summaries cost it 0.23 s."""
    folder = folder or cache_folder()
    try:
        paths = [p for p in folder.iterdir() if p.suffix == ".db" and p.is_file() and not p.name.startswith(".")
                 and p.name.startswith(prefix)]
    except FileNotFoundError:
        return []
    except OSError as exc:  # a file where the folder should be, no permission: one line, not a traceback
        raise unusable(folder, exc) from exc
    saved = [_saved(path, read) for path in paths]
    saved.sort(key=lambda s: (s.date, s.when, s.path.name), reverse=True)  # as the lists show the date
    return saved


def _saved(path: Path, read: bool = True) -> Saved:
    summary = read_summary(path) if read else stat_summary(path)
    bodies = bodies_of(path)
    extra = _tree_size(bodies) if bodies.is_dir() else 0
    with contextlib.suppress(OSError):
        extra += path.with_suffix(".log").stat().st_size
    return Saved(summary, summary.size + extra)


_STAMP = re.compile(r"-(\d{8})-(\d{6})(?:-(\d+))?$")


def newest_named(folder: Path | None = None, *, prefix: str) -> Iterator[Saved]:
    """The explorations whose file names start with ``prefix``, newest first by the UTC second
    in their names (the run's start, as :func:`list_saved` orders by it), each summary read only
    when the caller asks for the next: a re-exploration wants the latest one judged as it is,
    usually the first, and every run on 127.0.0.1 shares one prefix."""
    folder = folder or cache_folder()
    try:
        paths = [p for p in folder.iterdir() if p.suffix == ".db" and p.name.startswith(prefix) and p.is_file()]
    except FileNotFoundError:
        return
    except OSError as exc:
        raise unusable(folder, exc) from exc

    def order(path: Path) -> tuple[str, str, int]:
        m = _STAMP.search(path.stem)
        return (m.group(1), m.group(2), int(m.group(3) or 0)) if m else ("", "", 0)

    for path in sorted(paths, key=order, reverse=True):
        yield _saved(path)


def by_site(saved: Iterable[Saved]) -> dict[str, list[Saved]]:
    """The explorations of each site, newest first (the order of ``saved`` kept)."""
    sites: dict[str, list[Saved]] = {}
    for s in saved:
        sites.setdefault(s.site, []).append(s)
    return sites


# -- pruning -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PruneResult:
    removed: list[tuple[Saved, str]] = field(default_factory=list)  # (exploration, why)
    kept_back: list[tuple[Saved, str]] = field(default_factory=list)  # over a limit, but kept: why
    failed: list[tuple[Saved, str]] = field(default_factory=list)  # could not be removed: why
    total_after: int = 0


def _span(seconds: float) -> str:
    """A length of time in its largest whole unit: "45 days", "1 second" (--older-than 1s said
    "limit 1.15741e-05 days")."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        if seconds >= size or unit == "second":
            n = float(f"{seconds / size:.3g}")
            return f"{n:g} {unit}{'' if n == 1 else 's'}"
    raise AssertionError("unreachable")


def plan_prune(saved: Sequence[Saved], limits: CacheLimits, now: float,
               keep: Iterable[Path] = ()) -> tuple[list[tuple[Saved, str]], list[tuple[Saved, str]]]:
    """Which explorations go (oldest first) and why, and which over a limit stay: those older
    than the age limit, then the oldest until the rest fit in the size limit. ``keep`` (the
    exploration open, one the user named) is never chosen."""
    protected = {_key(p) for p in keep}
    chosen: list[tuple[Saved, str]] = []
    spared: list[tuple[Saved, str]] = []
    total = sum(s.size for s in saved)
    for s in sorted(saved, key=lambda s: (s.when, s.path.name)):  # oldest first
        if now - s.when > limits.max_age:
            why = f"older than the age limit ({_span(now - s.when)} old, limit {_span(limits.max_age)})"
        elif total > limits.max_size:
            why = f"the cache is over its size limit ({format_size(total)} > {format_size(limits.max_size)})"
        else:
            continue
        if _key(s.path) in protected:
            spared.append((s, "kept: it is the exploration open or named"))
            continue
        chosen.append((s, why))
        total -= s.size
    return chosen, spared


def prune(saved: Sequence[Saved], limits: CacheLimits, now: float | None = None,
          keep: Iterable[Path] = (), dry_run: bool = False) -> PruneResult:
    """Remove what :func:`plan_prune` chooses (nothing with ``dry_run``). An exploration another
    process has open (its lock is held) is kept and said."""
    chosen, spared = plan_prune(saved, limits, time.time() if now is None else now, keep)
    result = PruneResult(kept_back=spared)
    removed_bytes = 0
    for s, why in chosen:
        if dry_run:
            result.removed.append((s, why))
            removed_bytes += s.size
            continue
        problem = remove_exploration(s.path)
        if problem is None:
            result.removed.append((s, why))
            removed_bytes += s.size
        elif problem.startswith("in use"):
            result.kept_back.append((s, "kept: " + problem))
        else:
            result.failed.append((s, problem))
    return PruneResult(result.removed, result.kept_back, result.failed,
                       sum(s.size for s in saved) - removed_bytes)


def remove_exploration(db: Path) -> str | None:
    """Remove one exploration (its file, journals and bodies) with its lock held, so that one a
    running explorer has open is never pulled from under it; None when done, else why not."""
    try:
        lock = StoreLock.acquire(db)
    except StoreError as exc:
        return "in use by another sitemap-tui process" if "in use" in exc.reason else exc.reason
    try:
        for name in (db.name, *(db.name + j for j in JOURNALS), db.with_suffix(".log").name):
            with contextlib.suppress(FileNotFoundError):
                (db.parent / name).unlink()
        bodies = bodies_of(db)
        if bodies.is_dir():
            shutil.rmtree(bodies)
    except OSError as exc:
        return f"cannot be removed ({exc.strerror or exc})"
    finally:
        lock.release()
    with contextlib.suppress(FileNotFoundError):
        lock_path(db).unlink()
    return None


def _key(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path.absolute()

"""What a saved exploration is, read cheaply (the recent list, ``cache list``), and whether its
pages are sound (a damaged file gets an error screen, not an empty explorer).

The summary reads ``meta`` and sums ``nodes.url_count`` (one row per file, never the entries
table), through a read-only connection that leaves no files beside the database; the health
check is SQLite's ``quick_check``, which reads every page and so runs off the UI's loop."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sitemap_tui.engine.store.file import StoreError, _json_text, _readonly_uri, inspect_store
from sitemap_tui.engine.store.schema import issue_count


@dataclass(frozen=True, slots=True)
class ExplorationSummary:
    """A saved exploration as a list shows it; ``problem`` is why it cannot be opened (then the
    counts are 0 and the target None)."""

    path: Path
    size: int  # bytes on disk, its write-ahead log included
    mtime: float
    target: str | None = None
    started: str | None = None  # ISO 8601 UTC, as the explorer wrote it
    files: int = 0
    urls: int = 0
    problem: str | None = None
    site: str | None = None  # the history's key, as the headless run that kept it wrote it
    command: str | None = None  # what made it: urls, stats, validate, diff (None: the explorer)
    checks: str | None = None  # the rules it was judged by: all, selected, none (None: not said)


def disk_size(path: Path) -> int:
    """The bytes the exploration takes: the file and the companions SQLite keeps beside it."""
    total = 0
    for name in (path.name, path.name + "-wal", path.name + "-shm"):
        try:
            total += (path.parent / name).stat().st_size
        except OSError:
            continue
    return total


def stat_summary(path: Path) -> ExplorationSummary:
    """What the file system says of the exploration at ``path`` (size and age), the database
    left unopened; ``problem`` when it cannot be looked at."""
    try:
        mtime = path.stat().st_mtime
    except OSError as exc:
        return ExplorationSummary(path, 0, 0.0, problem=f"cannot be read ({exc.strerror or exc})")
    return ExplorationSummary(path, disk_size(path), mtime)


def read_summary(path: Path) -> ExplorationSummary:
    """The summary of the exploration at ``path``; a file that cannot be read says why in
    ``problem`` instead of raising (a list goes on with the other files)."""
    try:
        mtime = path.stat().st_mtime
    except OSError as exc:
        return ExplorationSummary(path, 0, 0.0, problem=f"cannot be read ({exc.strerror or exc})")
    size = disk_size(path)
    try:
        found = inspect_store(path)
    except StoreError as exc:
        return ExplorationSummary(path, size, mtime, problem=exc.reason)
    if found is None or found.version is None:
        return ExplorationSummary(path, size, mtime, problem="holds no exploration (empty)")
    try:
        conn = sqlite3.connect(_readonly_uri(path), uri=True)
    except sqlite3.Error as exc:
        return ExplorationSummary(path, size, mtime, problem=f"cannot be read as a database ({exc})")
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN"
                                 " ('target', 'started', 'site', 'command', 'checks')").fetchall())
        # files as the explorer's header counts them: not the site's or a folder's synthetic
        # root, not a file skipped (the picker said 13 files where the header said 12)
        files, urls = conn.execute(
            "SELECT COUNT(*) FILTER (WHERE kind NOT IN ('site', 'directory') AND state != 'skipped'),"
            " COALESCE(SUM(url_count), 0) FROM nodes").fetchone()
    except sqlite3.Error as exc:
        return ExplorationSummary(path, size, mtime, problem=f"is damaged ({exc})")
    finally:
        conn.close()
    return ExplorationSummary(path, size, mtime, target=_json_text(meta.get("target")),
                              started=_json_text(meta.get("started")), files=int(files), urls=int(urls),
                              site=_json_text(meta.get("site")), command=_json_text(meta.get("command")),
                              checks=_json_text(meta.get("checks")))


def issue_counts(path: Path) -> dict[str, int]:
    """The findings of the exploration at ``path`` by severity (a site's history lists them; it
    reads the issues table's severity index, so only one site's explorations are asked)."""
    try:
        conn = sqlite3.connect(_readonly_uri(path), uri=True)
    except sqlite3.Error:
        return {}
    try:
        return {str(sev): int(n) for sev, n in
                conn.execute(f"SELECT severity, {issue_count(conn)} FROM issues GROUP BY severity").fetchall()}
    except sqlite3.Error:
        return {}
    finally:
        conn.close()


def damage(path: Path, limit: int = 3) -> str | None:
    """None when every page of the database at ``path`` is sound; else what SQLite's quick_check
    found (its first ``limit`` problems, on one line). Reads the whole file: call it off the UI."""
    try:
        conn = sqlite3.connect(_readonly_uri(path), uri=True)
    except sqlite3.Error as exc:
        return f"cannot be read as a database ({exc})"
    try:
        rows = [str(r[0]) for r in conn.execute(f"PRAGMA quick_check({int(limit)})").fetchall()]
    except sqlite3.Error as exc:
        return f"is damaged ({exc})"
    finally:
        conn.close()
    if rows == ["ok"]:
        return None
    # (the first row names the database, "*** in database main ***": not a problem of its own)
    found = [" ".join(line.split()) for r in rows for line in r.replace("*** in database main ***", "").splitlines()]
    return "is damaged (SQLite's check: " + "; ".join(f for f in found if f) + ")"

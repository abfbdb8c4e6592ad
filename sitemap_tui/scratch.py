"""The process's own temporary files and directories: named after the process, removed when it
ends (normally, on an exception, or on SIGTERM/SIGHUP turned into an orderly stop by
:mod:`sitemap_tui.signals`), and removed by a later run when the process that made them is gone
(killed outright: SIGKILL, the OOM killer, a power cut).

Each one is named ``…sitemap-tui-<pid>-<random>…`` and holds an ``flock`` for as long as its
process lives (a temp file: on itself; a temp directory: on its ``.owner`` file). A later run
removes one only when both say its owner is gone: no process has that pid, and the lock is free.
The pid alone is not enough (a pid from another container's namespace looks dead here), nor the
lock alone (it is taken a moment after the name exists).

The headless commands and the TUI use it, and the engine's worker pool for the folder of its
shard files (engine/workers.py)."""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import secrets
import shutil
import tempfile
import threading
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: no locks, the pid alone says whether the owner is gone
    fcntl = None  # type: ignore[assignment]

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)  # POSIX flags; 0 where the platform has none
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
TAG = "sitemap-tui"
OWNER_FILE = ".owner"
_DIR_NAME = re.compile(rf"{TAG}-(\d+)-[0-9a-z_]+")
_FILE_TAG = re.compile(rf"{TAG}-(\d+)-[0-9a-f]+\.tmp")

_lock = threading.Lock()
_owned: dict[Path, int | None] = {}  # path -> the fd holding its lock (None: not locked by us)
_atexit_registered = False


def tag() -> str:
    """``sitemap-tui-<pid>-<random>``: the part of a temp name that says whose it is."""
    return f"{TAG}-{os.getpid()}-{secrets.token_hex(4)}"


def temp_file_name(target_name: str) -> str:
    """The name of a temp file that becomes ``target_name``: hidden, and short enough for any
    file system (NAME_MAX is 255 bytes)."""
    return f".{target_name[:100]}.{tag()}.tmp"


def own(path: Path, lock_fd: int | None) -> None:
    """Remove ``path`` when this process ends, unless :func:`release` is called first."""
    global _atexit_registered
    with _lock:
        _owned[path] = lock_fd
        if not _atexit_registered:
            atexit.register(cleanup)
            _atexit_registered = True


def release(path: Path) -> None:
    """``path`` is no longer ours to remove (renamed into place, or removed already)."""
    with _lock:
        fd = _owned.pop(path, None)
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)


def remove(path: Path) -> None:
    """Remove a file or directory of ours now."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    release(path)


def cleanup() -> None:
    """Remove everything this process still owns (at exit, and after a signal)."""
    with _lock:
        paths = list(_owned)
    for path in paths:
        with contextlib.suppress(OSError):
            remove(path)


def lock(fd: int) -> None:
    """Hold the lock that tells a later run this file's owner is alive."""
    if fcntl is None:
        return
    with contextlib.suppress(OSError):  # a file system without flock: the pid check remains
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def sweep_temp() -> list[Path]:
    """Remove the leftovers of dead runs in the temp folder (``$TMPDIR``); every command does it
    on start."""
    return sweep_dirs(Path(tempfile.gettempdir()))


def temp_dir() -> Path:
    """A new directory in the temp folder (``$TMPDIR``), removed when the process ends; the
    leftovers of dead runs there are removed first."""
    base = Path(tempfile.gettempdir())
    sweep_dirs(base)
    path = Path(tempfile.mkdtemp(prefix=f"{TAG}-{os.getpid()}-", dir=base))
    own(path, None)
    fd = os.open(path / OWNER_FILE, os.O_WRONLY | os.O_CREAT | _CLOEXEC, 0o600)
    lock(fd)
    own(path, fd)
    return path


def _mine(entry: os.DirEntry[str]) -> bool:
    """Owned by this user (other users' leftovers are theirs to remove)."""
    if not hasattr(os, "getuid"):
        return True
    return entry.stat(follow_symlinks=False).st_uid == os.getuid()


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    except OverflowError:
        return False
    return True


def _lock_free(path: Path) -> bool:
    """Whether nobody holds the lock on ``path`` (a missing file holds none)."""
    if fcntl is None:
        return True
    try:
        fd = os.open(path, os.O_RDONLY | _CLOEXEC | _NOFOLLOW | _NONBLOCK)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:
        return True  # no flock here: the pid decides
    finally:
        os.close(fd)
    return True


def owner_gone(pid: int, lock_path: Path) -> bool:
    return not _pid_alive(pid) and _lock_free(lock_path)


def sweep_dirs(base: Path) -> list[Path]:
    """Remove ``sitemap-tui-<pid>-*`` directories in ``base`` whose process is gone; returns
    them. Directories of other users, of live processes, and any other name are left alone."""
    removed: list[Path] = []
    with contextlib.suppress(OSError), os.scandir(base) as entries:
        for entry in entries:
            match = _DIR_NAME.fullmatch(entry.name)
            if match is None:
                continue
            with contextlib.suppress(OSError):
                if not entry.is_dir(follow_symlinks=False) or not _mine(entry):
                    continue
                path = Path(entry.path)
                if owner_gone(int(match.group(1)), path / OWNER_FILE):
                    shutil.rmtree(path, ignore_errors=True)
                    removed.append(path)
    return removed


def sweep_files(folder: Path, target_name: str) -> list[Path]:
    """Remove the temp files of ``target_name`` in ``folder`` whose process is gone."""
    removed: list[Path] = []
    prefix = f".{target_name[:100]}."
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if not entry.name.startswith(prefix):
                continue
            match = _FILE_TAG.fullmatch(entry.name[len(prefix):])
            if match is None:
                continue
            with contextlib.suppress(OSError):
                if not entry.is_file(follow_symlinks=False) or not _mine(entry):
                    continue
                path = Path(entry.path)
                if owner_gone(int(match.group(1)), path):
                    path.unlink()
                    removed.append(path)
    return removed

"""Where a command's result goes, for every command that writes one (``urls``, ``stats``,
``validate``, the TUI's export): one way to write, so that each keeps the same promises.

- **A regular file, or a new one**: written to a temp file beside it, then flushed, fsynced and
  renamed over it only when the caller commits (the run produced a complete result). Failure,
  an exception or a signal removes the temp file and leaves the previous file byte for byte as
  it was. A new file gets the mode the umask gives (as with a shell's ``>``); a replaced file
  keeps its permission bits, and its owner and group where the user may set them.
- **Not a regular file** (``/dev/null``, a FIFO, a terminal): written to directly, never
  replaced. ``/dev/stdout``, ``/dev/stderr`` and ``/dev/fd/N`` write to that descriptor itself
  (an ``>>`` stays an append).
- **A symlink**: the file it points to gets the result (as with curl, wget or ``sort -o``); the
  link stays. A link in a shared sticky folder (``/tmp``) owned by someone else is not followed,
  the rule of Linux's ``protected_symlinks``: it could aim the output at the user's own files.
- **stdout**: written as the result streams. A reader that goes away (``| head``) raises
  :class:`BrokenPipeError` for the caller to end quietly; any other error, like every error on a
  file, is an :class:`OutputError` that names the output.

Paths are resolved here, not by the caller: the temp file must sit in the folder of the file it
replaces (a rename does not cross file systems).
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import json
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, cast

from sitemap_tui import scratch, signals
from sitemap_tui.engine.sanitize import display

STDOUT = "stdout"
# POSIX flags; 0 where the platform has none (Windows)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_FD_PATHS = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}


class OutputError(OSError):
    """Writing the output failed: ``str()`` is ``"<output>: <what happened>"``, one line. An
    ``OSError`` so that callers that report file errors (the TUI's export) show it as is."""

    def __init__(self, label: str, reason: str, code: int | None = None) -> None:
        super().__init__(code, reason)
        self.label = label
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.label}: {self.reason}"


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


class Stream:
    """The text stream the formatters write to: every OS error on it becomes an OutputError
    naming the output (a BrokenPipeError stays one where the reader may leave: stdout)."""

    def __init__(self, raw: IO[str] | None, label: str, *, quiet_epipe: bool, on_error: Any = None) -> None:
        self._raw = raw
        self.label = label
        self._quiet_epipe = quiet_epipe
        self._on_error = on_error

    def _fail(self, exc: OSError) -> BaseException:
        if isinstance(exc, BrokenPipeError) and self._quiet_epipe:
            return exc
        if self._on_error is not None:
            self._on_error()
        return OutputError(self.label, f"cannot write it ({_why(exc)})", exc.errno)

    @property
    def closed_at_start(self) -> bool:
        return self._raw is None

    def _target(self) -> IO[str]:
        if self._raw is None:
            raise OutputError(self.label, "cannot write it: it is closed", errno.EBADF)
        return self._raw

    def write(self, text: str) -> int:
        raw = self._target()
        try:
            return raw.write(text)
        except OSError as exc:
            raise self._fail(exc) from exc

    def write_utf8(self, data: bytes) -> None:
        """Text already in UTF-8 (a re-run's carried URLs, as SQLite joined them): straight to
        the binary buffer under a UTF-8 text stream, after what the text layer holds, instead of
        decoding it to write it encoded again (0.15 s of CPU per million URLs); decoded and
        written as text to any other stream."""
        raw = self._target()
        buffer = getattr(raw, "buffer", None)
        if buffer is None or codecs.lookup(getattr(raw, "encoding", None) or "ascii").name != "utf-8":
            self.write(data.decode("utf-8"))
            return
        try:
            raw.flush()
            buffer.write(data)
        except OSError as exc:
            raise self._fail(exc) from exc

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._raw is None:
            return  # nothing was written to a closed stdout (a write would have said so)
        raw = self._raw
        try:
            raw.flush()
        except OSError as exc:
            raise self._fail(exc) from exc

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, ...
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._target(), name)


def write_utf8(file: IO[str], data: bytes) -> None:
    """``data`` (UTF-8) written to one of this module's outputs as its bytes, to any other text
    file decoded."""
    if isinstance(file, Stream):
        file.write_utf8(data)
    else:
        file.write(data.decode("utf-8"))


JSON_CHUNK = 1 << 16  # characters of encoded JSON per write


def write_json(file: IO[str], obj: Any, **options: Any) -> None:
    """``obj`` as JSON (``json.dump``'s ``options``) written in chunks of ~64 KiB.

    ``json.dump`` writes every token on its own: ~880,000 writes for the stats tree of a
    robots.txt listing 10,000 sitemaps, 4.6 of its 6.2 s; joined here, the same bytes cost one
    write per chunk, and memory stays bounded by the chunk, not the document."""
    parts: list[str] = []
    size = 0
    for part in json.JSONEncoder(**options).iterencode(obj):
        parts.append(part)
        size += len(part)
        if size >= JSON_CHUNK:
            file.write("".join(parts))
            parts.clear()
            size = 0
    file.write("".join(parts))


class Output:
    """One command's output. ``file`` is what to write to; :meth:`commit` when the result is
    complete, :meth:`discard` otherwise (leaving the ``with`` block without a commit discards)."""

    label: str
    file: IO[str]

    def __init__(self, label: str) -> None:
        self.label = label
        self.committed = False
        self.created_folders: list[Path] = []  # made by open_output, removed if discarded
        self.on_commit: Callable[[], None] | None = None  # once the result is in place

    def ready(self) -> None:
        """Everything written is where it goes but for the last step (the rename): called on
        each output of a run before any is committed, so that one that cannot be written
        (a full disk) fails the run before another has replaced its file."""
        self.file.flush()

    def commit(self) -> None:
        self.committed = True
        if self.on_commit is not None:
            self.on_commit()

    def discard(self) -> None:
        """Nothing more is written; what a stream already got stays with its reader."""

    def __enter__(self) -> Output:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.committed:
            self.discard()
            _remove_folders(self.created_folders)


class _Stdout(Output):
    def __init__(self) -> None:
        super().__init__(STDOUT)
        current = sys.stdout
        if isinstance(current, Stream):
            stream = current
        else:
            stream = Stream(current, STDOUT, quiet_epipe=True, on_error=silence_stdout)
        if stream.closed_at_start:  # started with file descriptor 1 closed
            raise OutputError(STDOUT, "cannot write it: it is closed", errno.EBADF)
        self.file = cast(IO[str], stream)

    def commit(self) -> None:
        self.file.flush()
        super().commit()


class _Direct(Output):
    """A device, FIFO, terminal or inherited descriptor: written to where it is."""

    def __init__(self, label: str, fd: int, *, quiet_epipe: bool = False) -> None:
        super().__init__(label)
        self._text = open(fd, "w", encoding="utf-8", newline="")  # noqa: PTH123, SIM115 - closed on commit/discard
        self.file = cast(IO[str], Stream(self._text, label, quiet_epipe=quiet_epipe))

    def commit(self) -> None:
        self.file.flush()
        try:
            self._text.close()
        except OSError as exc:
            raise OutputError(self.label, f"cannot write it ({_why(exc)})", exc.errno) from exc
        super().commit()

    def discard(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._text.close()


class _AtomicFile(Output):
    """A temp file beside the target, renamed over it on commit."""

    def __init__(self, label: str, target: Path, previous: os.stat_result | None) -> None:
        super().__init__(label)
        self.target = target
        scratch.sweep_files(target.parent, target.name)  # left by runs that were killed outright
        self.tmp = target.parent / scratch.temp_file_name(target.name)
        try:
            # 0o666 less the umask, as for any new file (mkstemp would make it 0600)
            fd = os.open(self.tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC | _NOFOLLOW, 0o666)
        except OSError as exc:
            raise OutputError(label, f"cannot write there ({_why(exc)})", exc.errno) from exc
        self._fd = fd
        try:
            scratch.own(self.tmp, None)
            lock_fd = os.open(self.tmp, os.O_RDONLY | _CLOEXEC)
            scratch.lock(lock_fd)
            scratch.own(self.tmp, lock_fd)
            if previous is not None:
                _keep_owner_and_mode(fd, previous)
        except OSError as exc:
            os.close(fd)
            scratch.remove(self.tmp)
            raise OutputError(label, f"cannot write there ({_why(exc)})", exc.errno) from exc
        self._text = open(fd, "w", encoding="utf-8", newline="")  # noqa: PTH123, SIM115
        self.file = cast(IO[str], Stream(self._text, label, quiet_epipe=False))

    def ready(self) -> None:
        try:
            self._text.flush()
            os.fsync(self._fd)  # the bytes are on disk before the name points at them
        except OSError as exc:
            raise OutputError(self.label, f"cannot write it ({_why(exc)})", exc.errno) from exc

    def commit(self) -> None:
        if is_database(self.target):
            # made while the run went on (--db X -o X): the exploration is not replaced
            self.discard()
            raise OutputError(self.label, "is an SQLite database (a saved exploration, or another "
                                          "program's): not replaced; name another file", errno.EEXIST)
        try:
            self._text.flush()
            os.fsync(self._fd)  # the bytes are on disk before the name points at them
            self._text.close()
        except OSError as exc:
            self.discard()
            raise OutputError(self.label, f"cannot write it ({_why(exc)})", exc.errno) from exc
        with signals.held():  # replaced and said so (on_commit) as one step
            try:
                os.replace(self.tmp, self.target)
            except OSError as exc:
                self.discard()
                raise OutputError(self.label, f"cannot write it ({_why(exc)})", exc.errno) from exc
            scratch.release(self.tmp)
            _fsync_folder(self.target.parent)
            super().commit()

    def discard(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._text.close()
        with contextlib.suppress(OSError):
            os.close(self._fd)  # when close() failed on its flush: the descriptor may still be open
        scratch.remove(self.tmp)


def _keep_owner_and_mode(fd: int, previous: os.stat_result) -> None:
    """The replaced file's permission bits (not the umask's), and its owner and group where
    allowed (root replacing a user's file; a group the user belongs to)."""
    for uid in (previous.st_uid, -1) if hasattr(os, "fchown") else ():
        try:
            os.fchown(fd, uid, previous.st_gid)
            break
        except PermissionError:
            continue
    # after chown, which clears set-id bits; those are not kept anyway: a report is no program
    os.fchmod(fd, stat.S_IMODE(previous.st_mode) & 0o777)


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable; file systems that cannot sync a folder are skipped."""
    try:
        fd = os.open(folder, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF, errno.EACCES):
            raise
    finally:
        os.close(fd)


def _descriptor(path: Path) -> int | None:
    """The file descriptor that ``/dev/stdout``, ``/dev/fd/N`` or ``/proc/self/fd/N`` name."""
    text = os.path.normpath(os.path.abspath(path))
    if text in _FD_PATHS:
        return _FD_PATHS[text]
    for prefix in ("/dev/fd/", "/proc/self/fd/", f"/proc/{os.getpid()}/fd/"):
        if text.startswith(prefix) and text[len(prefix):].isdigit():
            return int(text[len(prefix):])
    return None


def _check_link(link: Path, link_stat: os.stat_result, label: str) -> None:
    folder = os.stat(link.parent)
    shared = folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH
    if shared and link_stat.st_uid not in (os.geteuid(), folder.st_uid):
        raise OutputError(
            label, "is a symlink owned by another user in a shared sticky folder: not followed "
                   "(it could point anywhere; remove it or name the file it points to)", errno.EACCES)


SQLITE_MAGIC = b"SQLite format 3\x00"


def is_database(path: Path) -> bool:
    """Whether ``path`` is a regular file that starts as an SQLite database does."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def resolve(path: Path, label: str) -> Path:
    """The file that ``path`` names after its symlinks (which need not exist yet)."""
    current = Path(os.path.abspath(path))
    for _ in range(40):  # the kernel's own limit on links
        folder = Path(os.path.realpath(current.parent))
        current = folder / current.name
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return current
        except OSError as exc:
            raise OutputError(label, f"cannot write there ({_why(exc)})", exc.errno) from exc
        if not stat.S_ISLNK(st.st_mode):
            return current
        _check_link(current, st, label)
        current = folder / os.readlink(current)
    raise OutputError(label, "cannot write there (too many levels of symbolic links)", errno.ELOOP)


def names_folder(raw: str) -> bool:
    """Whether the path as typed names a folder whatever is there: it ends in a slash, or in
    ``/.`` or ``/..`` (pathlib drops the slash and the dot: a file was written under the
    folder's name, ``x.txt/`` and ``x.txt/.`` replaced x.txt; found from outside)."""
    tail = raw.rstrip().replace(os.sep, "/")
    return tail.endswith("/") or tail.rpartition("/")[2] in (".", "..")


def missing_folders(path: Path) -> list[Path]:
    """The folders above ``path`` that do not exist yet, outermost first."""
    missing: list[Path] = []
    for folder in Path(os.path.abspath(path)).parents:
        if os.path.lexists(folder):
            break
        missing.append(folder)
    return missing[::-1]


def check_folders(path: Path, label: str) -> None:
    """Before any work: the folders ``path`` needs exist or can be made (the nearest one that
    exists is a folder this user may write in), else an OutputError."""
    missing = missing_folders(path)
    above = missing[0].parent if missing else Path(os.path.abspath(path)).parent
    if not above.is_dir():
        raise OutputError(label, f"cannot write there: {display(str(above))} is not a folder", errno.ENOTDIR)
    # (an existing folder is not asked: /dev/null's is not the user's to write in)
    if missing and not os.access(above, os.W_OK | os.X_OK):
        raise OutputError(label, f"cannot create its folder in {display(str(above))} (Permission denied)", errno.EACCES)


def open_output(path: Path | str | None, label: str | None = None, *, create_folders: bool = False) -> Output:
    """The output for ``path`` (``None``: stdout), described in errors as ``label`` (default:
    the path). ``create_folders``: the missing folders above a file are made, and removed again
    (when still empty) if the output is discarded: a failed run leaves no trace."""
    if path is None:
        return _Stdout()
    path = Path(path)
    label = label or display(str(path))
    created: list[Path] = []
    if create_folders and _descriptor(path) is None:
        for folder in missing_folders(path):
            try:
                folder.mkdir()
            except FileExistsError:
                continue
            except OSError as exc:
                _remove_folders(created)
                raise OutputError(label, f"cannot create its folder ({_why(exc)})", exc.errno) from exc
            created.append(folder)
    try:
        out = _open_path(path, label)
    except BaseException:
        _remove_folders(created)
        raise
    out.created_folders = created
    return out


def _remove_folders(created: list[Path]) -> None:
    """The folders an output made, innermost first, where nothing else was put in them."""
    for folder in reversed(created):
        try:
            folder.rmdir()
        except OSError:
            return


def _open_path(path: Path, label: str) -> Output:
    fd = _descriptor(path)
    if fd is not None:
        try:
            return _Direct(label, os.dup(fd), quiet_epipe=fd == 1)
        except OSError as exc:
            raise OutputError(label, f"cannot write it ({_why(exc)})", exc.errno) from exc
    target = resolve(path, label)
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(label, f"cannot write there ({_why(exc)})", exc.errno) from exc
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError(label, "is a folder; name a file", errno.EISDIR)
    if st is not None and stat.S_ISREG(st.st_mode) and is_database(target):
        # a saved exploration (--db X -o X), or another program's database: never replaced
        raise OutputError(label, "is an SQLite database (a saved exploration, or another program's): "
                                 "not replaced; name another file", errno.EEXIST)
    if st is not None and not stat.S_ISREG(st.st_mode):
        try:
            # no O_TRUNC, no O_CREAT: a device or FIFO is written to as it is
            fd = os.open(target, os.O_WRONLY | _CLOEXEC | _NOCTTY)
        except OSError as exc:
            raise OutputError(label, f"cannot write it ({_why(exc)})", exc.errno) from exc
        return _Direct(label, fd)
    return _AtomicFile(label, target, st)


def silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null: after a failed write to stdout, the interpreter's
    last flush at exit must not fail again (exit status 120 and a second message)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass


@contextlib.contextmanager
def guarded_stdout() -> Iterator[None]:
    """``sys.stdout`` as a :class:`Stream` for the headless commands: every print to it either
    works or ends the command with an OutputError naming stdout (a closed stdout included,
    which ``print`` would otherwise skip without a word)."""
    original = sys.stdout
    escaping = _escape_unencodable(original)
    sys.stdout = cast(Any, Stream(original, STDOUT, quiet_epipe=True, on_error=silence_stdout))
    try:
        yield
    finally:
        sys.stdout = original
        if escaping is not None:
            with contextlib.suppress(Exception):
                cast(Any, original).reconfigure(errors=escaping)
        if _ESCAPED:
            _ESCAPED.clear()
            encoding = getattr(original, "encoding", "?")
            print(f"sitemap-tui: stdout's encoding ({encoding}) cannot show some characters of the output:"
                  " written as \\x, \\u or \\U escapes (--output FILE writes UTF-8)", file=sys.stderr)


# not empty once a character stdout's encoding could not encode was escaped (_escape_unencodable)
_ESCAPED: list[int] = []
_ESCAPE_HANDLER = "sitemap-tui-escaped"


def _escaped(exc: UnicodeError) -> tuple[str | bytes, int]:
    if not _ESCAPED:
        _ESCAPED.append(1)
    return codecs.backslashreplace_errors(exc)


codecs.register_error(_ESCAPE_HANDLER, _escaped)


def _escape_unencodable(stream: Any) -> str | None:
    """A stdout whose encoding is not UTF-8 (a Latin-1 locale, PYTHONIOENCODING) cannot encode
    every URL: such a character becomes an escape, as Python's stderr writes it, and the
    command says so once at the end, instead of failing the file being listed with a
    UnicodeEncodeError. Returns the error handler to restore (None: nothing changed)."""
    encoding = getattr(stream, "encoding", None)
    errors = getattr(stream, "errors", None)
    if not encoding or errors != "strict" or codecs.lookup(encoding).name == "utf-8" or not hasattr(stream, "reconfigure"):
        return None
    try:
        stream.reconfigure(errors=_ESCAPE_HANDLER)
    except Exception:  # (a stream that cannot be reconfigured keeps its own way)
        return None
    return errors

"""``python -m sitemap_tui …`` runs forked from a process that has already imported the program.

Why: a full run of the suite starts the CLI about 940 times, and each fresh interpreter spent
~0.2 s of CPU importing before it read its arguments (the median run took 0.26 s of CPU in
all): ~190 of the suite's ~950 CPU-seconds. A zygote process per test process imports the CLI's
modules once and forks one child per run. The child is still a process of its own, with the
run's arguments, environment, working folder, stdin/stdout/stderr, exit status and rusage; only
the imports are shared. What the fork cannot give goes through a real subprocess: an
environment that changes how the interpreter itself starts (``PYTHON*``, the locale's
variables), options this module does not model (``preexec_fn``, ``pass_fds``, ...), or a request
too large for one socket message. Tests of the start itself (signals, imports, the installed
script) use ``subprocess`` directly.

What sharing the zygote's imports cannot show: a module the program uses without importing it
works here when the zygote imported it (``CLI_PROCESS_FRESH=1 pytest ...`` runs every CLI run in a
fresh interpreter, as .ci/smoke and the tests of the start do); and every forked run of one test
process hashes strings with the same seed, so a test of output that must not depend on set
order runs the CLI with ``subprocess`` twice.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import locale
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

CLI = (sys.executable, "-m", "sitemap_tui")
_ZYGOTE = Path(__file__).with_name("cli_zygote.py")
# read when the interpreter starts: a run that changes one needs a fresh interpreter
_STARTUP_VARS = ("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES")
_HARMLESS_PYTHON_VARS = ("PYTHONDONTWRITEBYTECODE",)  # bytecode is already loaded in the zygote
_MAX_REQUEST = 100_000  # arguments and environment, as JSON: one socket message must hold them
_MODELLED = {"capture_output", "text", "timeout", "cwd", "env", "input", "stdin", "stdout", "stderr",
             "check", "encoding", "errors"}


@dataclass
class Finished:
    """A forked run's end: wait status, CPU seconds and peak RSS (KiB), as ``os.wait4`` says."""

    status: int
    cpu_seconds: float
    maxrss_kb: int
    killed: bool  # by the caller's timeout

    @property
    def returncode(self) -> int:
        return os.waitstatus_to_exitcode(self.status)


class _Zygote:
    def __init__(self) -> None:
        self._folder = tempfile.mkdtemp(prefix="cli-zygote-")
        self.path = os.path.join(self._folder, "s")
        self.startup_env = {k: v for k, v in os.environ.items() if _starts_the_interpreter(k)}
        # its stdin is a pipe it watches: when this process ends, the zygote ends too
        self.proc = subprocess.Popen([sys.executable, "-c", _ZYGOTE.read_text(), self.path],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=self._folder)
        assert self.proc.stdout is not None
        ready = self.proc.stdout.readline()
        if ready != b"ready\n":
            raise RuntimeError(f"the CLI zygote did not start: {ready!r}")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def start(self, args: list[str], env: dict[str, str], cwd: str, fds: tuple[int, int, int],
              new_session: bool) -> tuple[socket.socket, int]:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            conn.connect(self.path)
            request = json.dumps({"args": args, "env": env, "cwd": cwd, "new_session": new_session})
            socket.send_fds(conn, [request.encode()], list(fds))
            pid = int(conn.recv(64))
        except BaseException:
            conn.close()
            raise
        return conn, pid

    def stop(self) -> None:
        if self.alive():
            self.proc.kill()
            self.proc.wait()
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        with contextlib.suppress(OSError):
            os.rmdir(self._folder)


_zygote: _Zygote | None = None
_lock = threading.Lock()


def _starts_the_interpreter(name: str) -> bool:
    return name in _STARTUP_VARS or (name.startswith("PYTHON") and name not in _HARMLESS_PYTHON_VARS)


def _get() -> _Zygote:
    global _zygote
    with _lock:
        if _zygote is None or not _zygote.alive():
            _zygote = _Zygote()
            import atexit

            atexit.register(_zygote.stop)
        return _zygote


def forkable(env: dict[str, str] | None) -> bool:
    """Whether a run with ``env`` starts as the zygote did (else it needs an interpreter of its own)."""
    if env is None:
        env = dict(os.environ)
    wanted = {k: v for k, v in env.items() if _starts_the_interpreter(k)}
    return wanted == _get().startup_env


def run_forked(args: list[str], *, stdin: int, stdout: int, stderr: int, cwd: str | os.PathLike[str] | None = None,
               env: dict[str, str] | None = None, timeout: float | None = None,
               new_session: bool = False) -> Finished:
    """``python -m sitemap_tui *args`` with these file descriptors, forked from the zygote.

    ``timeout``: the run (with its process group, under ``new_session``) is killed after so many
    seconds. With ``new_session`` the child leads a session of its own and whatever it leaves
    running in its group is killed when it ends (as a terminal would on hang-up)."""
    conn, pid = _start(args, (stdin, stdout, stderr), cwd, env, new_session)
    return _wait(conn, pid, timeout, new_session)


def _start(args: list[str], fds: tuple[int, int, int], cwd: str | os.PathLike[str] | None,
           env: dict[str, str] | None, new_session: bool) -> tuple[socket.socket, int]:
    folder = os.path.abspath(cwd if cwd is not None else os.getcwd())
    if not os.path.isdir(folder):  # as subprocess says it, in this process
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(cwd))
    return _get().start(list(args), dict(os.environ if env is None else env), folder, fds, new_session)


def _wait(conn: socket.socket, pid: int, timeout: float | None, new_session: bool) -> Finished:
    killed = False
    with conn:
        conn.settimeout(timeout)
        try:
            answer = conn.recv(4096)
        except TimeoutError:
            killed = True
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL) if new_session else os.kill(pid, signal.SIGKILL)
            conn.settimeout(None)
            answer = conn.recv(4096)
    if not answer:
        raise RuntimeError(f"the CLI zygote ended before it reported run {pid}")
    report = json.loads(answer)
    return Finished(report["status"], report["cpu"], report["maxrss_kb"], killed)


class _Reader(threading.Thread):
    """One end of a pipe read to EOF, as ``communicate`` reads it."""

    def __init__(self, fd: int) -> None:
        super().__init__(daemon=True)
        self.fd = fd
        self.data = bytearray()

    def run(self) -> None:
        with open(self.fd, "rb", buffering=0) as f:
            while chunk := f.read(65536):
                self.data += chunk


def _fd_for(spec: Any, default: int) -> tuple[int, IO[Any] | None]:
    """A descriptor for a stream argument of ``subprocess.run`` (not PIPE); the file to close
    once the child holds it, if any."""
    if spec == subprocess.DEVNULL:
        f = open(os.devnull, "r+b")  # noqa: SIM115  (closed by run() once the child ended)
        return f.fileno(), f
    if spec is None:
        return default, None
    if isinstance(spec, int):
        return spec, None
    return spec.fileno(), None


def run(argv: list[str], **kw: Any) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run(argv, **kw)`` for ``[sys.executable, "-m", "sitemap_tui", ...]``, forked
    from the zygote when the run allows it (see the module's docstring). ``CLI_PROCESS_FRESH=1``
    in the tests' environment runs every one in a fresh interpreter instead."""
    args = [os.fsdecode(a) for a in argv[3:]]
    if (tuple(argv[:3]) != CLI or set(kw) - _MODELLED or os.environ.get("CLI_PROCESS_FRESH") == "1"
            or len(json.dumps([args, kw.get("env")])) > _MAX_REQUEST or not forkable(kw.get("env"))):
        return subprocess.run(argv, **kw)
    capture = kw.get("capture_output", False)
    specs = {"stdout": subprocess.PIPE if capture else kw.get("stdout"),
             "stderr": subprocess.PIPE if capture else kw.get("stderr")}
    text = kw.get("text") or kw.get("encoding") is not None or kw.get("errors") is not None
    encoding = kw.get("encoding") or locale.getpreferredencoding(False)
    timeout = kw.get("timeout")
    deadline = None if timeout is None else time.monotonic() + timeout
    opened: list[IO[Any]] = []
    readers: dict[str, _Reader] = {}
    ours: list[int] = []  # the write ends of the pipes, closed once the child holds them
    with tempfile.TemporaryFile() as in_file:
        data = kw.get("input")
        if data is not None:
            in_file.write(data.encode(encoding) if isinstance(data, str) else data)
            in_file.seek(0)
            in_fd = in_file.fileno()
        else:
            in_fd, f = _fd_for(kw.get("stdin"), 0)
            opened += [f] if f else []
        fds = {}
        for name, default in (("stdout", 1), ("stderr", 2)):
            spec = specs[name]
            if spec == subprocess.STDOUT:
                fds[name] = fds["stdout"]
            elif spec == subprocess.PIPE:  # a real pipe: the run ends when every writer let go
                r, w = os.pipe()
                readers[name] = _Reader(r)
                fds[name], ours = w, [*ours, w]
            else:
                fds[name], f = _fd_for(spec, default)
                opened += [f] if f else []
        try:
            conn, pid = _start(args, (in_fd, fds["stdout"], fds["stderr"]), kw.get("cwd"), kw.get("env"), False)
        except BaseException:
            for r in readers.values():
                os.close(r.fd)
            raise
        finally:
            for fd in ours:
                os.close(fd)
            for f in opened:
                f.close()
        for r in readers.values():
            r.start()
        done = _wait(conn, pid, timeout, False)
    for r in readers.values():
        r.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
    late = any(r.is_alive() for r in readers.values())  # a process the run left holds its output

    def output(name: str) -> Any:
        if name not in readers:
            return None
        raw = bytes(readers[name].data)
        if not text:
            return raw
        # as subprocess reads a pipe in text mode: universal newlines
        return io.TextIOWrapper(io.BytesIO(raw), encoding=encoding, errors=kw.get("errors") or "strict").read()

    stdout, stderr = output("stdout"), output("stderr")
    if done.killed or late:
        raise subprocess.TimeoutExpired(argv, timeout, output=stdout, stderr=stderr)
    proc = subprocess.CompletedProcess(argv, done.returncode, stdout, stderr)
    if kw.get("check"):
        proc.check_returncode()
    return proc

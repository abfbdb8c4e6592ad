"""``python -m sitemap_tui …`` runs forked from a process that has already imported the program.

Why: a full run of the suite starts the CLI about 940 times, and each fresh interpreter spent
~0.2 s of CPU importing before it read its arguments (the median run took 0.26 s of CPU in
all): ~190 of the suite's ~950 CPU-seconds. A zygote process per test process imports the CLI's
modules once and forks one child per run. The child is still a process of its own, with the
run's arguments, environment, working folder, stdin/stdout/stderr, exit status and rusage; only
the imports are shared. What the fork cannot give goes through a real subprocess: an
environment that changes how the interpreter itself starts (``PYTHON*``, the locale's
variables), or options this module does not model (``preexec_fn``, ``pass_fds``, ...). Tests of
the start itself (signals, imports, the installed script) use ``subprocess`` directly.
"""

from __future__ import annotations

import contextlib
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
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

CLI = (sys.executable, "-m", "sitemap_tui")
_ZYGOTE = Path(__file__).with_name("cli_zygote.py")
# read when the interpreter starts: a run that changes one needs a fresh interpreter
_STARTUP_VARS = ("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES")
_HARMLESS_PYTHON_VARS = ("PYTHONDONTWRITEBYTECODE",)  # bytecode is already loaded in the zygote
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
        conn.connect(self.path)
        request = json.dumps({"args": args, "env": env, "cwd": cwd, "new_session": new_session})
        socket.send_fds(conn, [request.encode()], list(fds))
        pid = int(conn.recv(64))
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
    zygote = _get()
    conn, pid = zygote.start(list(args), dict(os.environ if env is None else env),
                             os.path.abspath(cwd if cwd is not None else os.getcwd()),
                             (stdin, stdout, stderr), new_session)
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
        raise RuntimeError(f"the CLI zygote ended before it reported run {args!r}")
    report = json.loads(answer)
    return Finished(report["status"], report["cpu"], report["maxrss_kb"], killed)


def _fd_for(spec: Any, default: int, pipe_file: IO[bytes] | None) -> tuple[int, IO[Any] | None]:
    """A descriptor for a stream argument of ``subprocess.run``; the file to close after, if any."""
    if spec == subprocess.PIPE:
        assert pipe_file is not None
        return pipe_file.fileno(), None
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
    from the zygote when the run allows it (see the module's docstring)."""
    if tuple(argv[:3]) != CLI or set(kw) - _MODELLED or not forkable(kw.get("env")):
        return subprocess.run(argv, **kw)
    args = [str(a) for a in argv[3:]]
    capture = kw.get("capture_output", False)
    out_spec = subprocess.PIPE if capture else kw.get("stdout")
    err_spec = subprocess.PIPE if capture else kw.get("stderr")
    text = kw.get("text") or kw.get("encoding") is not None or kw.get("errors") is not None
    data = kw.get("input")
    with tempfile.TemporaryFile() as out_file, tempfile.TemporaryFile() as err_file, \
            tempfile.TemporaryFile() as in_file:
        opened: list[IO[Any]] = []
        if data is not None:
            in_file.write(data.encode(kw.get("encoding") or locale.getpreferredencoding(False))
                          if isinstance(data, str) else data)
            in_file.seek(0)
            in_fd = in_file.fileno()
        else:
            in_fd, f = _fd_for(kw.get("stdin"), 0, None)
            opened += [f] if f else []
        out_fd, f = _fd_for(out_spec, 1, out_file)
        opened += [f] if f else []
        if err_spec == subprocess.STDOUT:
            err_fd = out_fd
        else:
            err_fd, f = _fd_for(err_spec, 2, err_file)
            opened += [f] if f else []
        try:
            done = run_forked(args, stdin=in_fd, stdout=out_fd, stderr=err_fd, cwd=kw.get("cwd"),
                              env=kw.get("env"), timeout=kw.get("timeout"))
        finally:
            for f in opened:
                f.close()

        def read(spec: Any, f: IO[bytes]) -> Any:
            if spec != subprocess.PIPE:
                return None
            f.seek(0)
            raw = f.read()
            if not text:
                return raw
            encoding = kw.get("encoding") or locale.getpreferredencoding(False)
            # as subprocess reads a pipe in text mode: universal newlines
            return io.TextIOWrapper(io.BytesIO(raw), encoding=encoding, errors=kw.get("errors") or "strict").read()

        stdout, stderr = read(out_spec, out_file), read(err_spec, err_file)
    if done.killed:
        raise subprocess.TimeoutExpired(argv, kw["timeout"], output=stdout, stderr=stderr)
    proc = subprocess.CompletedProcess(argv, done.returncode, stdout, stderr)
    if kw.get("check"):
        proc.check_returncode()
    return proc

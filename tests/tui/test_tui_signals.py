"""SIGTERM/SIGHUP to the explorer (issue 15 §1): the real ``sitemap-tui`` in a pseudo-terminal
leaves the alternate screen and exits, and its engine process and workers end with it.

Before, both signals killed it on the spot: the terminal stayed in the alternate screen (and in
raw mode, mouse reporting on) until ``reset``."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs a pty and /proc")

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
ENTER_ALT = b"\x1b[?1049h"
LEAVE_ALT = b"\x1b[?1049l"


class Terminal:
    """The app on the slave side of a pty; everything it writes is collected from the master."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: a 100x30 terminal, then the app
            import fcntl
            import struct
            import termios

            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
            os.execve(sys.executable, [sys.executable, "-m", "sitemap_tui", *argv], env)
        self.pid = pid
        self.fd = fd
        self.data = bytearray()
        self.status: int | None = None

    def read(self, timeout: float) -> bool:
        """Read what is there within ``timeout``; False at the end (the slave side closed)."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: every process holding the slave side has exited
            return False
        if not chunk:
            return False
        self.data.extend(chunk)
        return True

    def wait_for(self, needle: bytes, start: int = 0, timeout: float = 90.0) -> int:
        deadline = time.monotonic() + timeout
        while needle not in self.data[start:]:
            if time.monotonic() > deadline or not self.read(0.5):
                pytest.fail(f"{needle!r} never came; the terminal got {bytes(self.data[-2000:])!r}")
        return self.data.index(needle, start)

    def wait_exit(self, timeout: float = 90.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid == self.pid:
                self.status = status
                while self.read(0.2):  # what is left in the pty
                    pass
                return os.waitstatus_to_exitcode(status)
            self.read(0.2)
        pytest.fail(f"the app did not exit; the terminal got {bytes(self.data[-2000:])!r}")

    def close(self) -> None:
        if self.status is None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(self.pid, 0)
        with contextlib.suppress(OSError):
            os.close(self.fd)


def descendants(pid: int) -> set[int]:
    found: set[int] = set()
    todo = [pid]
    while todo:
        current = todo.pop()
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{current}/task"):
                with contextlib.suppress(OSError):
                    kids = {int(c) for c in Path(f"/proc/{current}/task/{task}/children").read_text().split()}
                    todo.extend(kids - found)
                    found |= kids
    return found


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def explorer_on_50_urls(tmp_path: Path) -> Terminal:
    """The explorer in a pty on a 50-URL sitemap, its exploration in tmp_path/x.db."""
    sitemap = tmp_path / "sitemap.xml"
    locs = "".join(f"<url><loc>https://example.com/page-{i}</loc></url>" for i in range(50))
    sitemap.write_text(f'<?xml version="1.0"?><urlset {NS}>{locs}</urlset>')
    env = dict(os.environ, TERM="xterm-256color", HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"),
               XDG_CONFIG_HOME=str(tmp_path / "config"), TMPDIR=str(tmp_path))
    env.pop("NO_COLOR", None)
    return Terminal(["explore", str(sitemap), "--db", str(tmp_path / "x.db")], env)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_restores_the_terminal(tmp_path: Path, sig: signal.Signals) -> None:
    term = explorer_on_50_urls(tmp_path)
    try:
        start = term.wait_for(ENTER_ALT)
        term.wait_for(b"50 missing", start)  # the app runs, and the engine has read the sitemap
        engine = descendants(term.pid)
        assert engine, "the explorer has no engine process"
        mark = len(term.data)
        os.kill(term.pid, sig)
        code = term.wait_exit()
        assert LEAVE_ALT in term.data[mark:], bytes(term.data[-500:])
        assert code == 128 + sig, code
        assert b"stopped by " + sig.name.encode() in term.data[mark:]
        deadline = time.monotonic() + 60
        while not all(gone(p) for p in engine) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert all(gone(p) for p in engine), [p for p in engine if not gone(p)]
    finally:
        term.close()


def test_a_hang_up_of_the_whole_job_leaves_no_lock_nor_log(tmp_path: Path) -> None:
    """Found by a review: a closed terminal sends SIGHUP to the whole foreground job; the engine
    process died of it, leaving the store's .lock and its .log beside the exploration. The
    engine now leaves the hang-up to the interface, which stops it."""
    term = explorer_on_50_urls(tmp_path)
    try:
        term.wait_for(b"50 missing", term.wait_for(ENTER_ALT))
        engine = descendants(term.pid)
        assert engine
        os.killpg(term.pid, signal.SIGHUP)  # (pty.fork: the app leads its own session and group)
        assert term.wait_exit() == 128 + signal.SIGHUP
        deadline = time.monotonic() + 60
        while not all(gone(p) for p in engine) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert all(gone(p) for p in engine)
        left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("x."))
        assert "x.db" in left and not {"x.db.lock", "x.log"} & set(left), left
    finally:
        term.close()


STUCK_APP = """
import asyncio, sys, time
from sitemap_tui import signals

signals.GRACE_S = 1.0

class App:
    def exit(self, return_code=0):
        time.sleep(600)  # as Textual's writer thread's stop waits on a dead thread's full queue

async def main():
    print("ready", flush=True)
    await asyncio.sleep(600)

with signals.exit_app(App()):
    asyncio.run(main())
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_an_app_that_does_not_end_after_a_stop_signal_ends_within_the_grace(sig: signal.Signals) -> None:
    """Found from outside: a closed tmux session (SIGHUP) left the explorer running for good,
    its store locked: Textual's writer thread had died writing to the hung-up terminal, and the
    app's exit waited on it forever. The process now ends GRACE_S after the signal whatever the
    app does, with 128 + the signal's number."""
    import subprocess

    proc = subprocess.Popen([sys.executable, "-c", STUCK_APP], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        started = time.monotonic()
        proc.send_signal(sig)
        assert proc.wait(timeout=30) == 128 + sig
        assert time.monotonic() - started < 20
    finally:
        proc.kill()
        proc.wait()

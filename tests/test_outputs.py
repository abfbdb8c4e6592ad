"""What the commands write (issue 15 §1), run as a cron job or CI runner runs them: real child
processes, real signals, real devices, a real full disk.

- a previous output survives, byte for byte, every run that did not produce a complete result
  (unreachable target, nothing to list, a write error, SIGINT/SIGTERM/SIGHUP mid-run);
- every write error ends the command with one line naming the output, and a non-zero exit;
- an existing device, FIFO or terminal is written to, never replaced by a regular file;
- a symlink keeps pointing where it did, and the file it points to gets the result;
- new files get the mode the umask gives; a replaced file keeps its mode;
- temp files and temp directories are gone after a signal, and a later run removes those of a
  run that was killed outright.

Devices are made with mknod in the test's own folder (same major/minor as /dev/null and
/dev/full): a regression that replaced the target with a regular file must never take the
system's /dev/null with it."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import cli_process
import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from sitemap_tui.output import JSON_CHUNK, write_json

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
PREVIOUS = b"the previous export\r\nwith bytes \xff\x00 that must survive\n"


def urlset(base: str, n: int, prefix: str = "p") -> str:
    locs = "".join(f"<url><loc>{base}{prefix}{i}</loc></url>\n" for i in range(n))
    return f'<?xml version="1.0"?>\n<urlset {NS}>\n{locs}</urlset>\n'


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "sitemap_tui", *args]


def run(*args: str, env: dict[str, str] | None = None, **kw) -> subprocess.CompletedProcess[str]:
    return cli_process.run(cli(*args), capture_output=True, text=True, timeout=180, env=env, **kw)


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if "error" in line]
    assert "Traceback" not in stderr, stderr
    assert len(lines) == 1, stderr
    return lines[0]


def previous(path: Path, mode: int = 0o640) -> Path:
    path.write_bytes(PREVIOUS)
    path.chmod(mode)
    return path


def device(folder: Path, name: str, minor: int) -> Path:
    """A character device like /dev/null (minor 3) or /dev/full (minor 7), made in ``folder``."""
    path = folder / name
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    except PermissionError:
        if os.geteuid() == 0:
            raise
        # without the right to make one, the system's own device is safe from us anyway
        return Path("/dev/null" if minor == 3 else "/dev/full")
    return path


@pytest.fixture()
def local_sitemap(tmp_path: Path) -> Path:
    path = tmp_path / "in" / "sitemap.xml"
    path.parent.mkdir()
    path.write_text(urlset("https://example.com/", 3))
    return path


@pytest.fixture()
def big_sitemap(tmp_path: Path) -> Path:
    """Far more output than a pipe or a stream buffer holds (about 1 MB of URLs)."""
    path = tmp_path / "in" / "big.xml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(urlset("https://example.com/a-rather-long-path/to-make-lines-longer/", 20_000))
    return path


def env_with(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    return env


# -- 1. a failed run leaves the previous output as it was ------------------------------------
UNREACHABLE = "http://127.0.0.1:9/sitemap.xml"


@pytest.mark.parametrize("command", [
    ["urls", UNREACHABLE],
    ["urls", UNREACHABLE, "--format", "csv"],
    ["validate", UNREACHABLE, "--format", "sarif"],
    ["stats", UNREACHABLE, "--json"],
])
def test_an_unreachable_target_leaves_the_previous_output_intact(tmp_path: Path, command: list[str]) -> None:
    out = previous(tmp_path / "out.txt")
    proc = run(*command, "--output", str(out))
    assert proc.returncode == 2, proc.stderr
    assert "127.0.0.1:9" in one_error_line(proc.stderr)
    assert out.read_bytes() == PREVIOUS
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]  # the temp file is gone


def test_a_target_with_nothing_to_list_leaves_the_previous_output_intact(httpserver, tmp_path: Path) -> None:
    httpserver.expect_request("/page").respond_with_data("<html><body>hi</body></html>", content_type="text/html")
    out = previous(tmp_path / "urls.txt")
    proc = run("urls", httpserver.url_for("/page"), "--output", str(out))
    assert proc.returncode == 1, proc.stderr
    assert out.read_bytes() == PREVIOUS
    assert [p.name for p in tmp_path.iterdir()] == ["urls.txt"]


@pytest.mark.parametrize(("command", "marker"), [
    (["urls"], b"https://example.com/p2\n"),
    (["validate", "--format", "json"], b'"summary"'),
    (["stats", "--json"], b'"nodes"'),
])
def test_a_complete_run_replaces_the_output(local_sitemap: Path, tmp_path: Path, command: list[str],
                                            marker: bytes) -> None:
    out = previous(tmp_path / "out.txt")
    proc = run(command[0], str(local_sitemap), *command[1:], "--output", str(out))
    assert proc.returncode in (0, 1), proc.stderr
    assert marker in out.read_bytes()
    assert proc.stdout == ""
    # a replaced file keeps the mode its owner gave it
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "out.txt"]


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_replaced_file_keeps_its_owner(local_sitemap: Path, tmp_path: Path) -> None:
    """A root cron job that refreshes a user's export leaves it the user's."""
    out = previous(tmp_path / "out.txt", 0o664)
    os.chown(out, 54321, 54322)
    proc = run("urls", str(local_sitemap), "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    st = out.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (54321, 54322, 0o664)
    assert out.read_text().count("\n") == 3


# -- 2. the mode the umask gives ----------------------------------------------------------------
@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
@pytest.mark.parametrize("command", ["urls", "validate", "stats"])
def test_a_new_output_gets_the_mode_of_the_umask(local_sitemap: Path, tmp_path: Path, umask: int, mode: int,
                                                 command: str) -> None:
    out = tmp_path / "new" / "out.txt"
    proc = run(command, str(local_sitemap), "--output", str(out), preexec_fn=lambda: os.umask(umask))
    assert proc.returncode in (0, 1), proc.stderr
    assert stat.S_IMODE(out.stat().st_mode) == mode


def test_the_tui_export_gets_the_mode_of_the_umask(tmp_path: Path) -> None:
    from sitemap_tui.engine.formats import UrlRecord
    from sitemap_tui.engine.model import Entry
    from sitemap_tui.session.urlfile import write_atomic

    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "export.csv", "csv", [UrlRecord.from_entry(Entry(loc="https://e.com/"), "s")])
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "export.csv").stat().st_mode) == 0o644


# -- 3. write errors: one line naming the output, non-zero, never the input's fault -------------
@pytest.mark.parametrize("command", [["urls"], ["urls", "--format", "jsonl"], ["validate"], ["stats"]])
def test_a_full_device_as_output_is_an_error_naming_it(local_sitemap: Path, tmp_path: Path,
                                                       command: list[str]) -> None:
    full = device(tmp_path, "full", 7)
    proc = run(command[0], str(local_sitemap), *command[1:], "--output", str(full))
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    line = one_error_line(proc.stderr)
    assert str(full) in line and "No space left on device" in line, line
    assert "sitemap.xml" not in proc.stderr  # not blamed on the input
    assert stat.S_ISCHR(full.stat().st_mode)  # written to, not replaced
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    if command == ["validate"]:  # explored whole before the report: not "did not complete" (found from outside)
        assert "did not complete" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("command", [["urls"], ["urls", "--format", "csv"], ["validate"], ["stats", "--json"]])
def test_stdout_on_a_full_device_is_an_error_naming_stdout(local_sitemap: Path, command: list[str]) -> None:
    with open("/dev/full", "wb") as full:  # noqa: PTH123 - written through, never replaced
        proc = cli_process.run(cli(command[0], str(local_sitemap), *command[1:]), stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=180)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    line = one_error_line(proc.stderr)
    assert "stdout" in line and "No space left on device" in line, line
    assert "sitemap.xml" not in proc.stderr


@pytest.mark.parametrize("args", [["--help"], ["urls", "--help"], ["--version"]])
def test_help_and_version_on_a_full_device_are_an_error(args: list[str]) -> None:
    """Found from outside: argparse drops write errors, so `--help > /dev/full` exited 0."""
    with open("/dev/full", "wb") as full:  # noqa: PTH123
        proc = cli_process.run(cli(*args), stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "stdout" in one_error_line(proc.stderr) and "No space left on device" in proc.stderr


def test_a_big_result_on_stdout_on_a_full_device_stops_with_the_error(big_sitemap: Path) -> None:
    """The error comes while the URLs stream (not only at the end): it stops the run."""
    with open("/dev/full", "wb") as full:  # noqa: PTH123
        proc = cli_process.run(cli("urls", str(big_sitemap)), stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=180)
    assert proc.returncode == 2
    assert "stdout" in one_error_line(proc.stderr)
    assert "internal error" not in proc.stderr and "big.xml" not in proc.stderr


@pytest.mark.parametrize("command", [["urls"], ["validate"], ["stats"], ["rules"]])
def test_a_closed_stdout_is_an_error(local_sitemap: Path, command: list[str]) -> None:
    args = [command[0]] if command[0] == "rules" else [command[0], str(local_sitemap)]
    proc = cli_process.run(cli(*args), stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          timeout=180, pass_fds=(), preexec_fn=lambda: os.close(1))
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    line = one_error_line(proc.stderr)
    assert "stdout" in line and "closed" in line, line


def test_a_closed_stdout_does_not_matter_with_output(local_sitemap: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    proc = cli_process.run(cli("urls", str(local_sitemap), "--output", str(out)), stderr=subprocess.PIPE,
                          text=True, timeout=180, preexec_fn=lambda: os.close(1))
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().count("\n") == 3


def test_a_fifo_whose_reader_leaves_is_an_error_naming_it(big_sitemap: Path, tmp_path: Path) -> None:
    """EPIPE on a file is the output failing (unlike stdout in a pipeline, which is the reader's
    choice: see test_cli.py::test_closed_pipe_is_not_an_error)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def reader() -> None:
        with open(fifo, "rb") as fh:  # noqa: PTH123
            got.append(fh.read(100))

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    proc = run("urls", str(big_sitemap), "--output", str(fifo))
    thread.join(30)
    assert got and got[0].startswith(b"https://example.com/")
    assert proc.returncode == 2, proc.stderr
    line = one_error_line(proc.stderr)
    assert str(fifo) in line and "Broken pipe" in line, line
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_full_tmpfs_keeps_the_previous_output(big_sitemap: Path, tmp_path: Path) -> None:
    """A real file system that fills up mid-run: the previous file stays, the temp file goes."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    try:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)],
                                 capture_output=True, text=True, timeout=30)
    except FileNotFoundError:
        pytest.skip("no mount command to make a small tmpfs with")
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({mounted.stderr.strip() or 'not permitted'})")
    try:
        out = previous(mnt / "urls.txt")
        proc = run("urls", str(big_sitemap), "--output", str(out))
        assert proc.returncode == 2, proc.stderr
        line = one_error_line(proc.stderr)
        assert str(out) in line and "No space left on device" in line, line
        assert "big.xml" not in proc.stderr
        assert out.read_bytes() == PREVIOUS
        assert [p.name for p in mnt.iterdir()] == ["urls.txt"]
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True, timeout=30)


def test_the_tui_export_to_a_full_device_raises_naming_it(tmp_path: Path) -> None:
    from sitemap_tui.engine.formats import UrlRecord
    from sitemap_tui.engine.model import Entry
    from sitemap_tui.session.urlfile import write_atomic

    full = device(tmp_path, "full", 7)
    with pytest.raises(OSError, match="No space left on device") as info:
        write_atomic(full, "txt", [UrlRecord.from_entry(Entry(loc="https://e.com/"), "s")], overwrite=True)
    assert str(full) in str(info.value)
    assert stat.S_ISCHR(full.stat().st_mode)


# -- 4. targets that are not regular files: written to, never replaced ------------------------
@pytest.mark.parametrize("command", ["urls", "validate", "stats"])
def test_a_null_device_stays_a_device(local_sitemap: Path, tmp_path: Path, command: str) -> None:
    null = device(tmp_path, "null", 3)
    proc = run(command, str(local_sitemap), "--output", str(null))
    assert proc.returncode in (0, 1), proc.stderr
    assert stat.S_ISCHR(null.stat().st_mode)
    assert os.major(null.stat().st_rdev) == 1 and os.minor(null.stat().st_rdev) == 3
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_fifo_gets_the_whole_result_and_stays_a_fifo(local_sitemap: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def reader() -> None:
        with open(fifo, "rb") as fh:  # noqa: PTH123
            got.append(fh.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    proc = run("urls", str(local_sitemap), "--output", str(fifo))
    thread.join(30)
    assert proc.returncode == 0, proc.stderr
    assert got == [b"https://example.com/p0\nhttps://example.com/p1\nhttps://example.com/p2\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_dev_stdout_writes_to_stdout_itself(local_sitemap: Path, tmp_path: Path) -> None:
    """``--output /dev/stdout`` with stdout appending to a file: appended, not replaced."""
    log = tmp_path / "log.txt"
    log.write_bytes(b"earlier line\n")
    with log.open("ab") as fh:
        proc = cli_process.run(cli("urls", str(local_sitemap), "--output", "/dev/stdout"), stdout=fh,
                              stderr=subprocess.PIPE, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert log.read_bytes() == b"earlier line\nhttps://example.com/p0\nhttps://example.com/p1\nhttps://example.com/p2\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "log.txt"]


# -- 5. symlinks: the file it points to gets the result, the link stays -----------------------
@pytest.mark.parametrize("command", ["urls", "validate"])
def test_a_symlink_output_writes_the_file_it_points_to(local_sitemap: Path, tmp_path: Path, command: str) -> None:
    (tmp_path / "reports").mkdir()
    real = previous(tmp_path / "reports" / "2024.txt")
    link = tmp_path / "latest.txt"
    link.symlink_to(Path("reports") / "2024.txt")
    proc = run(command, str(local_sitemap), "--output", str(link))
    assert proc.returncode in (0, 1), proc.stderr
    assert link.is_symlink() and os.readlink(link) == str(Path("reports") / "2024.txt")
    assert b"example.com" in real.read_bytes()
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in (tmp_path / "reports").iterdir()) == ["2024.txt"]


def test_a_dangling_symlink_output_creates_the_file_it_points_to(local_sitemap: Path, tmp_path: Path) -> None:
    link = tmp_path / "latest.txt"
    link.symlink_to("made.txt")
    proc = run("urls", str(local_sitemap), "--output", str(link))
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink()
    assert (tmp_path / "made.txt").read_text().count("\n") == 3


def test_a_failed_run_through_a_symlink_leaves_both_alone(tmp_path: Path) -> None:
    (tmp_path / "reports").mkdir()
    real = previous(tmp_path / "reports" / "2024.txt")
    link = tmp_path / "latest.txt"
    link.symlink_to(real)
    proc = run("urls", UNREACHABLE, "--output", str(link))
    assert proc.returncode == 2
    assert link.is_symlink() and real.read_bytes() == PREVIOUS
    assert [p.name for p in (tmp_path / "reports").iterdir()] == ["2024.txt"]


@pytest.mark.skipif(os.geteuid() != 0, reason="making a link owned by another user needs root")
def test_a_strangers_symlink_in_a_sticky_folder_is_refused(local_sitemap: Path, tmp_path: Path) -> None:
    """/tmp-like folder (sticky, world-writable): a link someone else planted there is not followed
    (the kernel's protected_symlinks rule), so it cannot aim our output at our own files."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    victim = previous(tmp_path / "victim.txt")
    link = shared / "out.txt"
    link.symlink_to(victim)
    os.lchown(link, 54321, 54321)
    proc = run("urls", str(local_sitemap), "--output", str(link))
    assert proc.returncode == 2
    line = one_error_line(proc.stderr)
    assert str(link) in line and "symlink" in line, line
    assert victim.read_bytes() == PREVIOUS
    assert link.is_symlink()


# -- 6. signals mid-run -----------------------------------------------------------------------
class SlowSite:
    """An index on 127.0.0.1 whose first child answers at once and whose second hangs until
    released: a run against it is mid-run for as long as the test wants."""

    def __init__(self) -> None:
        self.server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        self.arrived = threading.Event()
        self.release = threading.Event()

    def start(self) -> None:
        self.server.start()
        base = self.server.url_for("/")
        index = (f'<?xml version="1.0"?>\n<sitemapindex {NS}>\n'
                 f"<sitemap><loc>{base}fast.xml</loc></sitemap>\n"
                 f"<sitemap><loc>{base}slow.xml</loc></sitemap>\n</sitemapindex>\n")
        self.server.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")
        self.server.expect_request("/fast.xml").respond_with_data(urlset(base, 500), content_type="application/xml")
        self.server.expect_request("/slow.xml").respond_with_handler(self._slow)
        self.server.expect_request("/robots.txt").respond_with_data("", status=404)

    def _slow(self, request: Request) -> Response:
        self.arrived.set()
        self.release.wait(120)
        return Response(urlset(self.server.url_for("/"), 3, "slow"), content_type="application/xml")

    @property
    def url(self) -> str:
        return self.server.url_for("/index.xml")

    def stop(self) -> None:
        self.release.set()
        self.server.clear()
        if self.server.is_running():
            self.server.stop()


@pytest.fixture()
def slow_site() -> Iterator[SlowSite]:
    site = SlowSite()
    site.start()
    try:
        yield site
    finally:
        site.stop()


def wait_for(predicate, timeout: float = 60.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def scratch(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.iterdir())


def start_mid_run(site: SlowSite, tmp_path: Path, *args: str,
                  cache: Path | None = None) -> tuple[subprocess.Popen[str], Path]:
    tmp = tmp_path / "tmpdir"
    tmp.mkdir(exist_ok=True)
    extra = {"XDG_CACHE_HOME": str(cache)} if cache is not None else {}
    proc = subprocess.Popen(cli(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env_with(TMPDIR=str(tmp), **extra))
    if not site.arrived.wait(120):
        proc.kill()
        pytest.fail(f"the run never reached the slow file: {proc.communicate()[1]}")
    return proc, tmp


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_urls_stopped_by_a_signal_keeps_the_previous_output(slow_site: SlowSite, tmp_path: Path,
                                                             sig: signal.Signals) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = previous(out_dir / "urls.txt")
    proc, tmp = start_mid_run(slow_site, tmp_path, "urls", slow_site.url, "--output", str(out))
    # the temp file beside the output exists: the test checks that it is removed, not that it never was
    assert len(list(out_dir.iterdir())) == 2, list(out_dir.iterdir())
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + sig, (proc.returncode, err)
    assert "Traceback" not in err
    assert out.read_bytes() == PREVIOUS
    assert [p.name for p in out_dir.iterdir()] == ["urls.txt"]
    assert scratch(tmp) == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_validate_stopped_by_a_signal_removes_its_temp_store(slow_site: SlowSite, tmp_path: Path,
                                                              sig: signal.Signals) -> None:
    out = previous(tmp_path / "report.sarif")
    # (--no-history: a run that keeps its exploration writes it in the cache instead, below)
    proc, tmp = start_mid_run(slow_site, tmp_path, "validate", slow_site.url, "--format", "sarif",
                              "--output", str(out), "--no-history")
    assert any(name.startswith("sitemap-tui-") for name in scratch(tmp)), scratch(tmp)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + sig, (proc.returncode, err)
    assert "Traceback" not in err
    assert out.read_bytes() == PREVIOUS
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.sarif", "tmpdir"]
    assert scratch(tmp) == []


def test_a_run_stopped_by_a_signal_keeps_nothing_in_the_history(slow_site: SlowSite, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    proc, _ = start_mid_run(slow_site, tmp_path, "validate", slow_site.url, cache=cache)
    folder = cache / "sitemap-tui" / "explorations"
    assert any(p.name.endswith(".partial") for p in folder.iterdir())  # written in place, hidden
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM, (proc.returncode, err)
    assert "not kept in the history" in err
    assert list(folder.iterdir()) == []


def test_a_signal_says_what_stopped_the_run(slow_site: SlowSite, tmp_path: Path) -> None:
    proc, _ = start_mid_run(slow_site, tmp_path, "urls", slow_site.url)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert err.splitlines()[-1] == "sitemap-tui: stopped by SIGTERM", err


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                found.update(int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split())
    return found


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")  # a zombie has ended; only its parent's reaping is left


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc to find the worker processes")
def test_workers_end_when_their_parent_is_killed(slow_site: SlowSite, tmp_path: Path) -> None:
    proc, _ = start_mid_run(slow_site, tmp_path, "urls", slow_site.url, "--workers", "2")
    workers = _children(proc.pid)
    assert workers, "the run has no worker processes"
    proc.kill()
    proc.wait(30)
    wait_for(lambda: all(_gone(w) for w in workers), 60, f"workers {workers} to end")


@pytest.mark.parametrize("later", ["validate", "urls"])
def test_a_later_run_removes_the_temp_store_of_a_killed_run(slow_site: SlowSite, local_sitemap: Path,
                                                            tmp_path: Path, later: str) -> None:
    proc, tmp = start_mid_run(slow_site, tmp_path, "validate", slow_site.url, "--no-history")  # a temp store
    left = [name for name in scratch(tmp) if name.startswith("sitemap-tui-")]
    # the temp store's folder, and the worker pool's shard folder once the pool started
    assert 1 <= len(left) <= 2 and all(name.startswith(f"sitemap-tui-{proc.pid}-") for name in left), left
    proc.kill()  # SIGKILL: nothing can clean up
    proc.wait(30)
    assert all((tmp / name).is_dir() for name in left)
    # a directory of a process that is alive, and folders that are not ours, stay
    alive = tmp / f"sitemap-tui-{os.getpid()}-keep"
    alive.mkdir()
    other = tmp / "sitemap-tui-shots-abc"
    other.mkdir()
    done = run(later, str(local_sitemap), env=env_with(TMPDIR=str(tmp)))
    assert done.returncode in (0, 1), done.stderr
    assert scratch(tmp) == sorted([alive.name, other.name])


def test_a_later_run_removes_the_temp_file_of_a_killed_run(slow_site: SlowSite, local_sitemap: Path,
                                                           tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = previous(out_dir / "urls.txt")
    proc, _ = start_mid_run(slow_site, tmp_path, "urls", slow_site.url, "--output", str(out))
    proc.kill()
    proc.wait(30)
    assert len(list(out_dir.iterdir())) == 2  # SIGKILL left the temp file
    assert out.read_bytes() == PREVIOUS
    done = run("urls", str(local_sitemap), "--output", str(out))
    assert done.returncode == 0, done.stderr
    assert [p.name for p in out_dir.iterdir()] == ["urls.txt"]
    assert out.read_text().count("\n") == 3


def test_a_folder_whose_lock_is_held_is_kept_though_its_pid_looks_dead(tmp_path: Path) -> None:
    """A pid from another pid namespace (a container sharing /tmp) looks dead here; its lock says
    it is alive. The sweep needs both: no such pid, and a free lock."""
    import fcntl

    from sitemap_tui import scratch

    dead = subprocess.Popen(["true"])
    dead.wait()
    held = tmp_path / f"sitemap-tui-{dead.pid}-held"
    held.mkdir()
    fd = os.open(held / scratch.OWNER_FILE, os.O_WRONLY | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        assert scratch.sweep_dirs(tmp_path) == []
        assert held.is_dir()
    finally:
        os.close(fd)  # the owner ends: its lock goes with it
    assert scratch.sweep_dirs(tmp_path) == [held]
    assert not held.exists()


def test_a_stdout_that_is_not_utf8_gets_escapes_said_once_not_a_failed_file(httpserver, tmp_path: Path) -> None:
    """A stdout in Latin-1 (a locale, PYTHONIOENCODING) cannot encode an Arabic URL: it is
    written as Python's stderr writes such a character, the run lists every URL and says once
    why some are escaped, instead of failing the file with a UnicodeEncodeError."""
    base = httpserver.url_for("").rstrip("/")
    body = ('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            f"<url><loc>{base}/caf\u00e9</loc></url><url><loc>{base}/\u0645\u062b\u0627\u0644</loc></url>"
            f"<url><loc>{base}/plain</loc></url></urlset>")
    httpserver.expect_request("/s.xml").respond_with_data(body.encode(), content_type="application/xml")
    env = {**os.environ, "PYTHONIOENCODING": "latin-1", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = cli_process.run(cli("urls", f"{base}/s.xml"), capture_output=True, timeout=180, env=env)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode("latin-1").splitlines()
    assert lines == [f"{base}/caf\u00e9", f"{base}/\\u0645\\u062b\\u0627\\u0644", f"{base}/plain"]
    said = proc.stderr.decode()
    assert "Traceback" not in said and "internal error" not in said
    assert said.count("cannot show some characters") == 1


class _CountingFile(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, s: str) -> int:
        self.writes += 1
        return super().write(s)


@pytest.mark.parametrize("options", [{"ensure_ascii": True, "indent": 2}, {"indent": None}, {}])
def test_write_json_is_json_dump_in_a_few_writes(options: dict[str, object]) -> None:
    """A stats tree of 10,000 nodes was written by json.dump one token at a time (~880,000
    writes, 4.6 of 6.2 s); write_json gives the same text in ~64 KiB chunks."""
    tree = {"nodes": [{"url": f"https://example.com/s{i}.xml", "é": i, "children": [{"n": None}]}
                      for i in range(10_000)]}
    expected = json.dumps(tree, **options)  # type: ignore[arg-type]
    out = _CountingFile()
    write_json(out, tree, **options)
    assert out.getvalue() == expected
    assert out.writes <= len(expected) // JSON_CHUNK + 2
    small = _CountingFile()
    write_json(small, [], **options)
    assert (small.getvalue(), small.writes) == ("[]", 1)


@pytest.mark.parametrize("args", [
    ("validate", "{url}", "--db", "{a}", "-o", "{a}", "--format", "json"),
    ("stats", "{url}", "--db", "{a}", "--output", "{a}", "--json"),
    ("validate", "{url}", "--db", "{a}", "--write-baseline", "{a}"),
    ("validate", "{url}", "-o", "{a}", "--write-baseline", "{b}"),  # {b}: ./ + the same name
    ("urls", "{url}", "--db", "{a}", "-o", "{link}"),  # a hard link to it
])
def test_two_outputs_naming_one_file_are_refused_before_any_work(httpserver: HTTPServer, tmp_path: Path,
                                                                 args: tuple[str, ...]) -> None:
    """Found from outside: `validate --db X -o X` exited 0 with X a store and the report gone;
    `-o r.txt --write-baseline r.txt` kept the baseline alone. Refused up front, nothing fetched."""
    from sitemap_tui import cli as cli_module

    a = tmp_path / "out.db"
    link = tmp_path / "link.db"
    if "{link}" in args:
        a.write_bytes(b"")
        os.link(a, link)
    url = httpserver.url_for("/s.xml")
    argv = [x.format(url=url, a=a, b=f"{tmp_path}/./out.db", link=link) for x in args]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli_module.main([*argv, "--no-history"] if "--db" not in argv else argv)
    assert code == 2 and "name the same file" in err.getvalue() and "each would replace the other" in err.getvalue()
    assert len(err.getvalue().strip().splitlines()) == 1
    assert httpserver.log == []  # nothing was fetched
    assert not a.exists() or a.read_bytes() == b""


@pytest.mark.parametrize("args", [
    ("urls", "{s}", "-o", "{s}"),
    ("validate", "{s}", "-o", "{s}"),
    ("validate", "{s}", "--format", "json", "--baseline", "{base}", "-o", "{base}"),
    ("stats", "{s}", "--json", "--output", "{link}"),
])
def test_an_output_naming_a_file_the_run_reads_is_refused(tmp_path: Path, args: tuple[str, ...]) -> None:
    """Found from outside: `urls s.xml -o s.xml` turned the sitemap into its URL list, and
    `-o base.json --baseline base.json` emptied the baseline of its known findings, exit 0."""
    from sitemap_tui import cli as cli_module

    s = tmp_path / "s.xml"
    s.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/a</loc></url></urlset>')
    base = tmp_path / "base.json"
    base.write_text('{"issues": []}')
    os.link(s, tmp_path / "link.xml")
    before = {p: p.read_bytes() for p in (s, base)}
    argv = [x.format(s=s, base=base, link=tmp_path / "link.xml") for x in args]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli_module.main([*argv, "--no-history"])
    assert code == 2, err.getvalue()
    assert "the run would replace the file it reads" in err.getvalue()
    assert len(err.getvalue().strip().splitlines()) == 1
    assert {p: p.read_bytes() for p in before} == before


def test_write_baseline_may_renew_the_baseline_it_reads(tmp_path: Path) -> None:
    from sitemap_tui import cli as cli_module

    s = tmp_path / "s.xml"
    s.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/a</loc></url></urlset>')
    base = tmp_path / "base.json"
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        assert cli_module.main(["validate", str(s), "--write-baseline", str(base), "--no-history"]) in (0, 1)
        code = cli_module.main(["validate", str(s), "--baseline", str(base), "--write-baseline", str(base), "--no-history"])
    assert code == 0 and base.exists()


def test_an_output_naming_a_sitemap_in_a_target_folder_is_refused(tmp_path: Path) -> None:
    """Found from outside: `urls public -o public/a.xml` replaced a sitemap the run read with
    its URL list (a file target was refused already); a report beside them may be replaced."""
    from sitemap_tui import cli as cli_module

    folder = tmp_path / "public"
    folder.mkdir()
    sitemap = folder / "a.xml"
    sitemap.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/a</loc></url></urlset>')
    before = sitemap.read_bytes()
    for args in (["urls", str(folder), "-o", str(sitemap)], ["validate", str(folder), "--write-baseline", str(sitemap)]):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = cli_module.main([*args, "--no-history"])
        assert code == 2 and "names a file in the TARGET folder" in err.getvalue(), err.getvalue()
        assert sitemap.read_bytes() == before
    report = folder / "report.json"
    report.write_text("{}")
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        code = cli_module.main(["validate", str(folder), "--format", "json", "-o", str(report), "--no-history"])
    assert code in (0, 1) and report.read_text() != "{}"


def test_an_output_naming_a_file_of_a_map_folder_is_refused(tmp_path: Path) -> None:
    """Found from outside: with --map URL=DIR the build folder is read as a folder TARGET is,
    but -o into it replaced the build's child sitemap (or its robots.txt) with the output."""
    from sitemap_tui import cli as cli_module

    build = tmp_path / "public"
    build.mkdir()
    (build / "index.xml").write_text('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                                     "<sitemap><loc>https://example.com/s2.xml</loc></sitemap></sitemapindex>")
    child = build / "s2.xml"
    child.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/a</loc></url></urlset>')
    robots = build / "robots.txt"
    robots.write_text("Sitemap: https://example.com/index.xml\n")
    before = {p: p.read_bytes() for p in (child, robots)}
    mapping = f"https://example.com/={build}"
    for args in (["urls", str(build / "index.xml"), "-o", str(child)], ["validate", "https://example.com/", "-o", str(robots)]):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = cli_module.main([*args, "--map", mapping, "--no-history"])
        assert code == 2 and "names a file in the --map folder" in err.getvalue(), err.getvalue()
    assert {p: p.read_bytes() for p in (child, robots)} == before
    report = build / "report.json"  # near miss: no file the run reads
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        code = cli_module.main(["validate", "https://example.com/", "--map", mapping, "--format", "json",
                                "-o", str(report), "--no-history"])
    assert code in (0, 1) and report.exists()


def test_open_listing_to_a_full_or_closed_stdout_is_an_error(local_sitemap: Path, tmp_path: Path) -> None:
    """Found from outside: `open --list > /dev/full` ended in a traceback, and a closed stdout
    in a silent exit 0; `cache list`, which prints the same list, said one line and exit 2."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    cli_process.run(cli("urls", str(local_sitemap)), env=env, capture_output=True, timeout=180, check=True)
    for args in (["open", "--list"], ["open"]):  # (no FILE and no terminal: the list)
        with open("/dev/full", "wb") as full:  # noqa: PTH123
            proc = cli_process.run(cli(*args), stdout=full, stderr=subprocess.PIPE, text=True, env=env, timeout=60)
        assert proc.returncode == 2, (args, proc.returncode, proc.stderr)
        assert "stdout" in one_error_line(proc.stderr) and "Traceback" not in proc.stderr
    proc = cli_process.run(cli("open", "--list"), stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env=env, timeout=60, preexec_fn=lambda: os.close(1))
    assert proc.returncode == 2 and "closed" in one_error_line(proc.stderr), proc.stderr


@pytest.mark.parametrize("option", [("urls", "-o"), ("validate", "--write-baseline"), ("urls", "--db"),
                                    ("stats", "--output")])
def test_an_output_ending_in_a_slash_names_a_folder_and_is_refused(local_sitemap: Path, tmp_path: Path,
                                                                   option: tuple[str, str]) -> None:
    """Found from outside: ``-o reports/`` wrote a file named ``reports`` (pathlib drops the
    slash), and ``-o x.txt/`` replaced x.txt; the shell's ``>`` and ``curl -o`` refuse both.
    Near miss: the same name without the slash is a file, written."""
    command, flag = option
    out = tmp_path / "reports"
    proc = run(command, str(local_sitemap), flag, f"{out}/")
    assert proc.returncode == 2 and "names a folder, as typed" in one_error_line(proc.stderr), proc.stderr
    assert not out.exists()
    kept = previous(tmp_path / "x.txt")
    for tail in ("/", "/."):  # (pathlib drops "/." too: found from outside)
        proc = run(command, str(local_sitemap), flag, f"{kept}{tail}")
        assert proc.returncode == 2 and kept.read_bytes() == PREVIOUS
    proc = run(command, str(local_sitemap), flag, str(out))
    assert proc.returncode == 0 and out.is_file(), proc.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_once_the_output_is_in_place_ends_nothing_of_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str],
                                                                 sig: signal.Signals) -> None:
    """Found by a review: a SIGTERM just after the rename exited 143 ("stopped": --help says the
    output keeps its previous content) over a file that held the new, complete result. Run in
    this process, the signal sent the moment the file is in place."""
    from sitemap_tui import cli, scratch

    sitemap = tmp_path / "s.txt"
    sitemap.write_text("".join(f"https://example.com/{i}\n" for i in range(100)))
    out = previous(tmp_path / "urls.txt")
    release = scratch.release

    def and_a_signal(path: Path) -> None:  # (the temp file, just renamed over the output)
        os.kill(os.getpid(), sig)
        release(path)

    monkeypatch.setattr(scratch, "release", and_a_signal)
    capsys.readouterr()
    code = cli.main(["urls", str(sitemap), "--output", str(out), "--no-history"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert f"sitemap-tui: {sig.name} came once the output was written: the run finished, its output is complete" in err
    assert out.read_text().splitlines() == [f"https://example.com/{i}" for i in range(100)]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # as it was before the run

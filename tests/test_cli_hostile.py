"""Every command with hostile option values: one line on stderr naming the problem, exit 2, no
traceback, and nothing left behind (no temp file, no database created)."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import cli_process
import pytest

URLSET = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/</loc></url></urlset>\n'
)

FETCHING = [
    (["--timeout", "0"], "--timeout"),
    (["--timeout", "-1"], "--timeout"),
    (["--timeout", "nan"], "--timeout"),
    (["--timeout", "inf"], "--timeout"),
    (["--timeout", "abc"], "--timeout"),
    (["--concurrency", "0"], "--concurrency"),
    (["--concurrency", "-3"], "--concurrency"),
    (["--per-host", "0"], "--per-host"),
    (["--max-size", "0"], "--max-size"),
    (["--max-size", "-1"], "--max-size"),
    (["--max-size", "99999999999"], "--max-size"),
    (["-H", "X-Ü: é"], "header"),
    (["-H", "X-A: é"], "header"),
    (["-H", "no colon"], "header"),
    (["-H", "X-A: a\r\nInjected: 1"], "header"),
    (["--user-agent", "agent\nInjected: 1"], "--user-agent"),
    (["--user-agent", "agént"], "--user-agent"),
]
EXPLORING = [
    (["--depth", "-1"], "--depth"),
    (["--depth", "x"], "--depth"),
    (["--max-files", "0"], "--max-files"),
    (["--max-files", "-5"], "--max-files"),
    (["--workers", "-1"], "--workers"),
    (["--workers", "1e3"], "--workers"),
    (["--db", "{missing}/x.db"], "--db"),
    (["--db", "{text}"], "--db"),
    (["--db", "{dir}"], "--db"),
    (["--db", "{foreign}"], "--db"),
]
VALIDATE = [
    (["--deep", "--sample", "abc"], "--sample"),
    (["--deep", "--sample", "-5"], "--sample"),
    (["--sample", "0"], "--sample"),
    (["--rate", "inf"], "--rate"),
    (["--rate", "-2"], "--rate"),
    (["--rate", "nan"], "--rate"),
    (["--output", "{text}/r.json"], "--output"),
    (["--output", "{dir}"], "--output"),
    (["--select", "no-such-rule"], "no-such-rule"),
]
URLS = [
    (["--output", "{dir}"], "--output"),
    (["--output", "{text}/urls.txt"], "--output"),
]


def _cases() -> Iterator[tuple[str, list[str], str]]:
    for command in ("urls", "stats", "validate", "explore"):
        for args, needle in FETCHING + EXPLORING:
            yield command, args, needle
    for args, needle in FETCHING:
        yield "discover", args, needle
    for args, needle in VALIDATE:
        yield "validate", args, needle
    for args, needle in URLS:
        yield "urls", args, needle
    for args, needle in (
        (["--port", "80000"], "--port"), (["--port", "-1"], "--port"), (["--port", "abc"], "--port"),
        (["--port", "{busy}"], "in use"), (["--serve", "--port", "{busy}"], "in use"),
    ):
        yield "demo", args, needle
    for path in ("{missing}/x.db", "{text}", "{dir}", "{foreign}", "{empty}"):
        yield "open", [path], "exploration"
    yield "rules", ["no-such-rule"], "no-such-rule"
    yield "urls", ["--format", "pdf"], "--format"


CASES = list(_cases())


@pytest.fixture(scope="module")
def busy_port() -> Iterator[int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


@pytest.mark.parametrize(("command", "args", "needle"), CASES, ids=[f"{c}-{' '.join(a)}" for c, a, _ in CASES])
def test_hostile_option_values(httpserver, tmp_path: Path, busy_port: int, command: str, args: list[str],
                               needle: str) -> None:
    httpserver.expect_request("/s.xml").respond_with_data(URLSET, content_type="application/xml")
    work = tmp_path / "work"
    work.mkdir()
    text = work / "notes.txt"
    text.write_text("not a database\n")
    folder = work / "folder"
    folder.mkdir()
    foreign = work / "other.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE t(x)")
    conn.commit()
    conn.close()
    empty = work / "empty.db"
    empty.write_bytes(b"")
    fill = {"missing": str(work / "no" / "such"), "text": str(text), "dir": str(folder),
            "foreign": str(foreign), "busy": str(busy_port), "empty": str(empty)}
    argv = [a.format(**fill) for a in args]
    target = [] if command in ("demo", "open", "rules") else [httpserver.url_for("/s.xml")]
    if command == "discover":
        target = [httpserver.url_for("/")]
    if command == "explore":
        target = [str(work / "s.xml")]
        (work / "s.xml").write_text(URLSET)
    before = sorted(p.name for p in work.rglob("*"))
    text_before, foreign_before = text.read_bytes(), foreign.read_bytes()

    proc = cli_process.run(
        [sys.executable, "-m", "sitemap_tui", command, *target, *argv],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, cwd=work,
    )
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("sitemap-tui") and "error" in lines[0]
    assert needle in lines[0], lines[0]
    # nothing created or changed: no temp file, no database, the user's files untouched
    assert sorted(p.name for p in work.rglob("*")) == before
    assert text.read_bytes() == text_before and foreign.read_bytes() == foreign_before


def test_validate_output_in_a_missing_folder_is_created(httpserver, tmp_path: Path) -> None:
    """Like `urls --output`, `validate --output` creates the folders it needs (no traceback)."""
    httpserver.expect_request("/s.xml").respond_with_data(URLSET, content_type="application/xml")
    out = tmp_path / "missing" / "dir" / "r.json"
    proc = cli_process.run(
        [sys.executable, "-m", "sitemap_tui", "validate", httpserver.url_for("/s.xml"), "--format", "json",
         "--output", str(out)], capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert out.read_text().startswith("{")
    assert [p.name for p in out.parent.iterdir()] == ["r.json"]
    # said, so that a mistyped folder is not made in silence
    assert f"--output {out}: created the folder {tmp_path / 'missing'}" in proc.stderr, proc.stderr
    assert f"created the folder {tmp_path / 'missing' / 'dir'}" in proc.stderr, proc.stderr


@pytest.mark.parametrize("command", ["urls", "validate"])
def test_a_failed_run_leaves_no_folder_for_its_output(tmp_path: Path, command: str) -> None:
    """Tried by hand: `validate http://127.0.0.1:1/x.xml --output /new/dir/r.json` made /new/dir
    before the run, which then failed (exit 2) and left it behind. Folders are made when the
    output opens, and removed again when it is discarded; `urls` opens it before the run."""
    out = tmp_path / "new" / "dir" / "r.txt"
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there: the connection is refused
    proc = cli_process.run(
        [sys.executable, "-m", "sitemap_tui", command, f"http://127.0.0.1:{port}/s.xml", "--no-history",
         "--output", str(out)], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == [], proc.stderr


def test_a_folder_that_cannot_be_made_is_a_usage_error_before_any_work(httpserver, tmp_path: Path) -> None:
    httpserver.expect_request("/s.xml").respond_with_data(URLSET, content_type="application/xml")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        proc = cli_process.run(
            [sys.executable, "-m", "sitemap_tui", "validate", httpserver.url_for("/s.xml"), "--no-history",
             "--write-baseline", str(locked / "a" / "b.json")], capture_output=True, text=True, timeout=60,
        )
    finally:
        locked.chmod(0o700)
    if os.geteuid() == 0:  # root may write anywhere: then the folder is made
        assert (locked / "a" / "b.json").exists(), proc.stderr
        return
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"sitemap-tui: error: --write-baseline {locked / 'a' / 'b.json'}: cannot create"), proc.stderr
    assert httpserver.log == [] and list(locked.iterdir()) == []

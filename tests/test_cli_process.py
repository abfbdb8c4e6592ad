"""The forked CLI runs of tests/cli_process.py behave as `subprocess.run` of a fresh interpreter."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import cli_process
import pytest

CLI = [sys.executable, "-m", "sitemap_tui"]
URLSET = ('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
          "<url><loc>https://example.com/a</loc></url><url><loc>https://example.com/b</loc></url></urlset>")


def test_a_forked_run_reads_as_a_fresh_one(tmp_path: Path) -> None:
    (tmp_path / "s.xml").write_text(URLSET)
    for args in (["urls", "s.xml", "--format", "csv"], ["validate", "s.xml", "--no-history"], ["urls", "nope.xml"], ["--help"]):
        kw = {"capture_output": True, "text": True, "timeout": 60, "cwd": tmp_path}
        forked = cli_process.run([*CLI, *args], **kw)
        fresh = subprocess.run([*CLI, *args], **kw)  # type: ignore[call-overload]
        assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr), args


def test_environment_working_folder_and_streams_are_the_runs(tmp_path: Path) -> None:
    (tmp_path / "s.xml").write_text(URLSET)
    # the config file named by the environment: a bad one is an error naming it
    bad = tmp_path / "bad.toml"
    bad.write_text("this is not toml ===")
    proc = cli_process.run([*CLI, "urls", "s.xml"], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                           env={**os.environ, "SITEMAP_TUI_CONFIG": str(bad)})
    assert "bad.toml" in proc.stderr
    # a relative path is read from the run's folder, and stdout goes where it was sent
    with open(tmp_path / "out.txt", "w") as out:
        proc = cli_process.run([*CLI, "urls", "s.xml"], stdout=out, stderr=subprocess.PIPE, timeout=60,
                               cwd=tmp_path, env={k: v for k, v in os.environ.items() if k != "SITEMAP_TUI_CONFIG"})
    assert proc.returncode == 0 and proc.stdout is None
    assert (tmp_path / "out.txt").read_text().split() == ["https://example.com/a", "https://example.com/b"]


def test_a_run_past_its_timeout_is_killed(tmp_path: Path) -> None:
    with socket.socket() as silent:  # accepts, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/s.xml"
        with pytest.raises(subprocess.TimeoutExpired):
            cli_process.run([*CLI, "urls", url, "--timeout", "60", "--no-history"], capture_output=True, timeout=1)
        done = cli_process.run_forked(["urls", url, "--timeout", "60", "--no-history"], stdin=0, stdout=1, stderr=2,
                                      timeout=1, new_session=True)
    assert done.killed and done.returncode == -9


def test_an_interpreter_setting_gets_an_interpreter_of_its_own() -> None:
    assert cli_process.forkable(None)
    assert not cli_process.forkable({**os.environ, "PYTHONPATH": "/elsewhere"})
    assert not cli_process.forkable({**os.environ, "LC_ALL": "C"})
    assert cli_process.forkable({**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"})


def test_odd_requests_go_as_subprocess_would_and_leave_the_zygote_serving(tmp_path: Path) -> None:
    """Found by a review: a request over one socket message's size raised in the test and, with
    a connection dropped half-way, ended the zygote under every run in flight."""
    (tmp_path / "s.xml").write_text(URLSET)
    kw = {"capture_output": True, "text": True, "timeout": 60, "cwd": tmp_path}
    many = [*CLI, "urls", "s.xml", *(f"extra-{i}.xml" for i in range(6000))]
    assert cli_process.run(many, **kw).returncode == subprocess.run(many, **kw).returncode  # type: ignore[call-overload]
    zygote = cli_process._get()
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as broken:
        broken.connect(zygote.path)
        broken.send(b"{not json")
        assert broken.recv(64) == b""  # refused, that request alone
    assert cli_process._get() is zygote and zygote.alive()
    proc = cli_process.run([*CLI, "urls", b"s.xml"], **kw)  # bytes, as subprocess takes them
    assert proc.returncode == 0 and proc.stdout.split() == ["https://example.com/a", "https://example.com/b"]
    with pytest.raises(FileNotFoundError):
        cli_process.run([*CLI, "urls", "s.xml"], capture_output=True, cwd=tmp_path / "gone")

"""A run that could list nothing still says what it left out (found from outside): ``urls``,
``stats``, ``audit`` and ``access`` returned on the target's error before their "left out"
lines, so an index whose only reachable children 404 hid the child on another host (where the
URLs may well be) and the one that is no http URL; ``stats``'s error said "(said above)" of
failures it never said. Run as a user runs the commands, against a server on 127.0.0.1."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import cli_process
import pytest

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
CROSS = "1 file not fetched: on another host or port than its index (--follow-cross-host)"
FTP = "1 listed file not fetched: not a URL that may be fetched"


def _index(httpserver) -> str:
    children = [httpserver.url_for("/missing.xml"), "ftp://127.0.0.1/a.xml", "http://example.org/a.xml"]
    body = (f'<?xml version="1.0"?>\n<sitemapindex {NS}>\n'
            + "".join(f"<sitemap><loc>{c}</loc></sitemap>\n" for c in children) + "</sitemapindex>\n")
    httpserver.expect_request("/index.xml").respond_with_data(body, content_type="application/xml")
    httpserver.expect_request("/missing.xml").respond_with_data("gone", status=404)
    return httpserver.url_for("/index.xml")


def _run(args: list[str], tmp_path: Path) -> cli_process.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "SITEMAP_TUI_CONFIG": str(tmp_path / "c.toml")}
    return cli_process.run([sys.executable, "-m", "sitemap_tui", *args], env=env, capture_output=True, text=True)


@pytest.mark.parametrize("command", ["urls", "stats", "audit", "access"])
def test_nothing_listed_still_says_what_was_left_out_then_the_error(httpserver, tmp_path: Path, command: str) -> None:
    run = _run([command, _index(httpserver), "--no-history"], tmp_path)
    assert run.returncode == 1, run.stderr
    lines = run.stderr.splitlines()
    assert f"sitemap-tui: {httpserver.url_for('/missing.xml')}: HTTP 404 Not Found" in lines, run.stderr
    assert f"sitemap-tui: {CROSS}" in lines, run.stderr
    assert any(line.startswith(f"sitemap-tui: {FTP}") for line in lines), run.stderr
    assert lines[-1].startswith("sitemap-tui: error: nothing could be listed"), run.stderr  # the error last
    assert "Traceback" not in run.stderr


def test_diff_says_each_sides_omissions_before_its_error(httpserver, tmp_path: Path) -> None:
    index = _index(httpserver)
    run = _run(["diff", index, index], tmp_path)
    assert run.returncode == 0, run.stderr
    old = [line for line in run.stderr.splitlines() if line.startswith(f"sitemap-tui: OLD {index}: ")]
    assert old[-1].endswith("before the first entry (said above)"), run.stderr
    assert any(line.endswith(CROSS) for line in old[:-1]), run.stderr


@pytest.mark.parametrize("command", ["urls", "stats", "audit", "access"])
def test_a_target_that_fails_is_said_once(httpserver, tmp_path: Path, command: str) -> None:
    """The near miss, found by a regression review: when the target alone failed, the omission
    line ("1 file could not be fetched or read, first X") repeated the error that names X."""
    httpserver.expect_request("/gone.xml").respond_with_data("gone", status=404)
    run = _run([command, httpserver.url_for("/gone.xml"), "--no-history"], tmp_path)
    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines() == [f"sitemap-tui: error: {httpserver.url_for('/gone.xml')}: HTTP 404 Not Found"]

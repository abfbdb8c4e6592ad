"""The run's time budget (``--max-time``) keeps what arrived, as a download cut by ``--timeout``
does (found from outside): a file dripping one URL every half second listed nothing after 3 s
or 6 s, its first KiB still in the format sniffer (or its entries since the last batch) when
the budget stopped it, and the run said "ran out before anything could be listed". Both ways a
file runs: in the explorer's process, and in a worker process (an index's child, ``--workers
2``), whose batches a cancel used to drop. Against a server on 127.0.0.1."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import cli_process
import pytest
from werkzeug import Response

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def _drip(base: str) -> Iterator[bytes]:
    yield f'<?xml version="1.0"?>\n<urlset {NS}>\n'.encode()
    for i in range(200):
        yield f"<url><loc>{base}/d{i}</loc></url>\n".encode()
        time.sleep(0.2)


@pytest.mark.parametrize("through_index", [False, True], ids=["in-process", "worker"])
def test_the_time_budget_keeps_the_entries_that_arrived(httpserver, tmp_path: Path, through_index: bool) -> None:
    base = "https://example.com"
    httpserver.expect_request("/drip.xml").respond_with_handler(
        lambda _req: Response(_drip(base), content_type="application/xml"))
    target = httpserver.url_for("/drip.xml")
    args = ["--workers", "0"]
    if through_index:
        httpserver.expect_request("/index.xml").respond_with_data(
            f'<?xml version="1.0"?><sitemapindex {NS}><sitemap><loc>{target}</loc></sitemap></sitemapindex>',
            content_type="application/xml")
        target, args = httpserver.url_for("/index.xml"), ["--workers", "2"]
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"), "SITEMAP_TUI_CONFIG": str(tmp_path / "c.toml")}
    run = cli_process.run([sys.executable, "-m", "sitemap_tui", "urls", target, "--max-time", "2.5", "--no-history", *args],
                          env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    listed = run.stdout.split()
    assert len(listed) >= 4, run.stderr  # ~12 arrived in 2.5 s; the first KiB alone holds ~25
    assert listed == [f"{base}/d{i}" for i in range(len(listed))]
    assert "stopped part-way: the run's time budget of 2.5 s ran out (--max-time)" in run.stderr, run.stderr
    assert "premature" not in run.stderr and "before anything could be listed" not in run.stderr


def _stalled(base: str, first: int) -> Iterator[bytes]:
    yield f'<?xml version="1.0"?>\n<urlset {NS}>\n'.encode()
    yield "".join(f"<url><loc>{base}/s{i}</loc></url>\n" for i in range(first)).encode()
    time.sleep(30)  # then nothing: the budget stops it with no next chunk to stop at


def _silent() -> Iterator[bytes]:
    time.sleep(30)  # not a byte, not even the headers
    yield b""


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_stalled_file_keeps_what_came_and_an_unfetched_one_invents_no_finding(
        threaded_httpserver, tmp_path: Path, workers: str) -> None:
    """Found by a review: a worker stopped a file at its next chunk only, so one that stalled
    lost the entries that had come; and a file the budget stopped before any byte of its body
    (waiting for a request slot, or a server that never answers) got "root-unknown: Empty
    document", which failed a CI validate on nothing."""
    httpserver = threaded_httpserver  # (the two stalls answered at once)
    base = "https://example.com"
    httpserver.expect_request("/stall.xml").respond_with_handler(
        lambda _req: Response(_stalled(base, 5), content_type="application/xml"))
    httpserver.expect_request("/silent.xml").respond_with_handler(
        lambda _req: Response(_silent(), content_type="application/xml"))
    index = (f'<?xml version="1.0"?><sitemapindex {NS}>'
             + "".join(f"<sitemap><loc>{httpserver.url_for(p)}</loc></sitemap>" for p in ("/stall.xml", "/silent.xml"))
             + "</sitemapindex>")
    httpserver.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"), "SITEMAP_TUI_CONFIG": str(tmp_path / "c.toml")}

    def run(*args: str) -> cli_process.CompletedProcess:
        return cli_process.run([sys.executable, "-m", "sitemap_tui", *args, "--max-time", "2", "--no-history",
                                "--workers", workers], env=env, capture_output=True, text=True, timeout=60)

    listed = run("urls", httpserver.url_for("/index.xml"))
    assert sorted(listed.stdout.split()) == sorted(f"{base}/s{i}" for i in range(5)), listed.stderr
    checked = run("validate", httpserver.url_for("/index.xml"), "--format", "json")
    assert "root-unknown" not in checked.stdout and "Empty document" not in checked.stdout, checked.stdout

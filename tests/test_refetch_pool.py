"""A re-exploration starts its worker processes only when a file needs parsing (issue 20 §3: a
re-exploration where every file answers 304 costs <= 10 % of the first). A 304 is never parsed,
so files the previous exploration holds validators for are asked for in the explorer's own
process until one answers with a body; from then on the pool takes the files as in a first run.
Run as a user runs ``urls``, against a site on 127.0.0.1 that honours the validators and counts
the bodies it sends; the worker processes counted where the pool starts them."""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from test_refetch import SITEMAPS, Site, sent, urlset

from sitemap_tui import cli
from sitemap_tui.engine import explore_files
from sitemap_tui.engine.workers import WorkerPool


@pytest.fixture()
def started(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The worker processes each pool of the test started (one number per pool started)."""
    counts: list[int] = []

    class Counted(WorkerPool):
        def _start(self) -> None:
            super()._start()
            counts.append(len(self._procs))

    monkeypatch.setattr(explore_files, "WorkerPool", Counted)
    return counts


@pytest.fixture()
def site(httpserver, tmp_path, monkeypatch: pytest.MonkeyPatch) -> Site:
    """An index of three files, every one with validators (ETag, or Last-Modified alone)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("SITEMAP_TUI_CONFIG", str(tmp_path / "config.toml"))
    base = httpserver.url_for("").rstrip("/")
    s = Site(base)
    s.put("/index.xml", '<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
          + "".join(f"<sitemap><loc>{base}{p}</loc></sitemap>" for p in SITEMAPS[1:]) + "</sitemapindex>\n")
    s.put("/a.xml", urlset(base, ["a1", "a2"]))
    s.put("/b.xml", urlset(base, ["b1", "a1"]))
    s.put("/c.xml", urlset(base, ["c1"]), etag=False)  # Last-Modified alone: If-Modified-Since
    httpserver.expect_request(re.compile(".*")).respond_with_handler(s.handle)
    return s


def urls(*args: str, workers: int = 2) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([*args, "--workers", str(workers)])
    return code, out.getvalue(), err.getvalue()


def test_every_file_answering_304_starts_no_worker_process(site: Site, started: list[int]) -> None:
    target = f"{site.base}/index.xml"
    code, first, _ = urls("urls", target, "--format", "jsonl")
    assert code == 0 and started == [2]  # the first run parses in its two workers
    code, second, err = urls("urls", target, "--format", "jsonl")
    assert code == 0, err
    assert started == [2]  # nothing to parse: not one process more
    assert sorted(second.splitlines()) == sorted(first.splitlines()) and len(first.splitlines()) == 5
    assert sent(site) == 4 and "4 files unchanged since the previous exploration" in err


def test_a_changed_file_starts_the_pool_for_the_files_after_it(site: Site, started: list[int]) -> None:
    """One file in flight at a time: a.xml answers with a body and is parsed where it was asked
    for; the pool starts for b.xml and c.xml, whose 304s then come back from a worker."""
    target = f"{site.base}/index.xml"
    urls("urls", target, "--concurrency", "1")
    site.put("/a.xml", urlset(site.base, ["a1", "a2", "a3"]))
    code, out, err = urls("urls", target, "--concurrency", "1", workers=1)
    assert code == 0, err
    assert started == [2, 1]
    assert f"{site.base}/a3" in out.splitlines() and len(out.splitlines()) == 6
    assert site.bodies["/a.xml"] == 2 and site.bodies["/b.xml"] == 1 and site.bodies["/c.xml"] == 1
    assert "3 files unchanged since the previous exploration" in err  # the index, b.xml, c.xml

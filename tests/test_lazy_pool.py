"""Without --workers, the worker processes start only when a run has work enough for them
(engine/cores.py pool_pays): a small site is parsed in the explorer's process, a larger one
by the pool, with the same results; `--workers N` starts its N processes at the first child file
whatever the site's size. Run as a user runs the commands, against a site on 127.0.0.1; the
worker processes counted where the pool starts them."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from sitemap_tui import cli
from sitemap_tui.engine import cores, explore_files
from sitemap_tui.engine.cores import POOL_AFTER_FILES, default_workers, pool_pays
from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.model import NodeState
from sitemap_tui.engine.workers import WorkerPool

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


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


def _site(httpserver: HTTPServer, sizes: list[int]) -> str:
    """An index of one file per size, each with that many URLs (a bad lastmod on the first
    URL of each, so that validate has a finding per file); the index's URL."""
    base = httpserver.url_for("").rstrip("/")
    names = [f"s{i}.xml" for i in range(len(sizes))]
    httpserver.expect_request("/index.xml").respond_with_data(
        f'<?xml version="1.0"?>\n<sitemapindex {NS}>'
        + "".join(f"<sitemap><loc>{base}/{n}</loc></sitemap>" for n in names) + "</sitemapindex>\n",
        content_type="application/xml")
    for name, size in zip(names, sizes, strict=True):
        body = "".join(f"<url><loc>{base}/{name}/p{j}</loc>{'<lastmod>yesterday</lastmod>' if j == 0 else ''}</url>\n"
                       for j in range(size))
        httpserver.expect_request(f"/{name}").respond_with_data(
            f'<?xml version="1.0"?>\n<urlset {NS}>\n{body}</urlset>\n', content_type="application/xml")
    return f"{base}/index.xml"


def _run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([*args, "--no-history", "--no-config"])
    return code, out.getvalue(), err.getvalue()


def _findings(report: str) -> list[dict[str, object]]:
    """The report's issues, in its order (the same whichever process parsed which file)."""
    return json.loads(report)["issues"]


def test_a_small_site_is_parsed_without_worker_processes(httpserver: HTTPServer, started: list[int]) -> None:
    target = _site(httpserver, [3] * POOL_AFTER_FILES)
    code, lazy, _ = _run("urls", target, "--format", "csv")
    assert code == 0 and started == []  # no process started
    code, pooled, _ = _run("urls", target, "--format", "csv", "--workers", "2")
    assert code == 0 and started == [2]  # the user's word: two processes, for three small files
    assert sorted(lazy.splitlines()) == sorted(pooled.splitlines()) and len(lazy.splitlines()) == 1 + 9
    code, report, err = _run("validate", target, "--format", "json", "--fail-on", "never")
    assert code == 0, err
    assert started == [2]
    found = _findings(report)
    base = target.rsplit("/", 1)[0]
    assert [(f["url"], f["line"]) for f in found if f["rule"] == "lastmod-invalid-format"] == [
        (f"{base}/s{i}.xml/p0", 3) for i in range(POOL_AFTER_FILES)]
    code, pooled_report, _ = _run("validate", target, "--format", "json", "--fail-on", "never", "--workers", "1")
    assert started == [2, 1] and _findings(pooled_report) == found


def test_more_files_than_a_few_start_the_default_workers(httpserver: HTTPServer, started: list[int]) -> None:
    target = _site(httpserver, [2] * (POOL_AFTER_FILES + 1))
    code, out, err = _run("urls", target, "--format", "csv")
    assert code == 0, err
    assert started == [default_workers()]
    assert len(out.splitlines()) == 1 + 2 * (POOL_AFTER_FILES + 1)


async def test_a_large_file_parsed_here_hands_the_next_files_to_the_workers(
        httpserver: HTTPServer, tmp_path: Path, started: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """One file at a time (one worker): the first file's entries reach the threshold, so the
    second and third go to the pool, which starts once."""
    monkeypatch.setattr(cores, "POOL_AFTER_ENTRIES", 50)
    target = _site(httpserver, [50, 2, 2])
    options = ExploreOptions(workers=1, lazy_pool=True, event_interval=0)
    async with Explorer(fetch_config=FetchConfig(concurrency=1, retries=0), options=options) as ex:
        await ex.explore(target)
        assert started == [1]
        files = [n for n in ex.nodes.values() if n.url.endswith((".xml",)) and n.parent_id is not None]
        assert [n.stats.url_count for n in files] == [50, 2, 2]
        assert all(n.state == NodeState.DONE for n in files)


def test_what_pays_for_the_pool() -> None:
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text().split())
    said = f"started only once a run lists more than {POOL_AFTER_FILES} files or parses {cores.POOL_AFTER_ENTRIES:,} URLs"
    assert said in readme  # what the README says is what the code does
    assert not pool_pays(POOL_AFTER_FILES, 0)
    assert pool_pays(POOL_AFTER_FILES + 1, 0)
    assert not pool_pays(1, cores.POOL_AFTER_ENTRIES - 1)
    assert pool_pays(1, cores.POOL_AFTER_ENTRIES)


def test_the_requests_of_a_lazy_run_are_the_same(httpserver: HTTPServer, started: list[int]) -> None:
    """Each file once, inline or pooled (nothing fetched twice when the pool takes over)."""
    target = _site(httpserver, [2] * (POOL_AFTER_FILES + 2))
    code, _, err = _run("urls", target, "--format", "csv")
    assert code == 0, err
    paths = [r.path for r, _ in httpserver.log]
    assert sorted(paths) == sorted({*paths}) and len([p for p in paths if re.fullmatch(r"/s\d+\.xml", p)]) == 5

"""Without --workers, the worker processes start only when a run has work enough for them
(engine/pool_gate.py): a small site is parsed in the explorer's process, a larger one by the
pool, with the same results; `--workers N` starts its N processes at the first child file
whatever the site's size. Run as a user runs the commands, against a site on 127.0.0.1; the
worker processes counted where the pool starts them."""

from __future__ import annotations

import contextlib
import io
import json
import re
import time
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Response

from sitemap_tui import cli
from sitemap_tui.engine import cores, explore_files
from sitemap_tui.engine.cores import POOL_AFTER_FILES, default_workers
from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.model import NodeState
from sitemap_tui.engine.pool_gate import pool_pays
from sitemap_tui.engine.workers import WorkerPool

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


@pytest.fixture()
def started(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The worker processes each pool of the test started (one number per pool started). The
    files after the probe wait for it as long as it takes (a busy test machine is no slow site)."""
    monkeypatch.setattr(cores, "PROBE_WAIT", 60.0)
    counts: list[int] = []

    class Counted(WorkerPool):
        def _start(self) -> None:
            super()._start()
            counts.append(len(self._procs))

        async def run(self, spec, emit):  # type: ignore[no-untyped-def]
            POOLED.append(spec.url.rsplit("/", 1)[-1])
            WHEN.append(time.monotonic())
            return await super().run(spec, emit)

    POOLED.clear()
    WHEN.clear()
    monkeypatch.setattr(explore_files, "WorkerPool", Counted)
    return counts


POOLED: list[str] = []  # the files the test's pools were given, by name
WHEN: list[float] = []  # and when (time.monotonic())


def _site(httpserver: HTTPServer, sizes: list[int], skip: tuple[str, ...] = ()) -> str:
    """An index of one file per size, each with that many URLs (a bad lastmod on the first
    URL of each, so that validate has a finding per file), but for the files named in ``skip``
    (the test serves them); the index's URL."""
    base = httpserver.url_for("").rstrip("/")
    names = [f"s{i}.xml" for i in range(len(sizes))]
    httpserver.expect_request("/index.xml").respond_with_data(
        f'<?xml version="1.0"?>\n<sitemapindex {NS}>'
        + "".join(f"<sitemap><loc>{base}/{n}</loc></sitemap>" for n in names) + "</sitemapindex>\n",
        content_type="application/xml")
    for name, size in zip(names, sizes, strict=True):
        if name in skip:
            continue
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
    said = (f"started only once a run lists more than {POOL_AFTER_FILES} files or parses {cores.POOL_AFTER_ENTRIES:,}"
            f" URLs, or its first file takes over {cores.PROBE_WAIT:g} s")
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


async def _explore_lazy(target: str, workers: int = 2) -> list[int]:
    options = ExploreOptions(workers=workers, lazy_pool=True, event_interval=0, batch_size=10)
    async with Explorer(fetch_config=FetchConfig(retries=0), options=options) as ex:
        await ex.explore(target)
        files = sorted((n for n in ex.nodes.values() if n.parent_id is not None and n.url.endswith(".xml")
                        and not n.url.endswith("/index.xml")),
                       key=lambda n: n.url)
        assert all(n.state == NodeState.DONE for n in files)
        return [n.stats.url_count for n in files]


async def test_a_probe_that_turns_out_large_sends_the_files_waiting_for_it_to_the_pool(
        httpserver: HTTPServer, started: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Three files at once: the first is parsed here, the two after it wait; its entries pass
    the threshold mid-file, so the two go to the pool (started once) while it goes on here."""
    monkeypatch.setattr(cores, "POOL_AFTER_ENTRIES", 30)
    target = _site(httpserver, [200, 2, 2], skip=("s0.xml",))
    base = target.rsplit("/", 1)[0]
    urls = "".join(f"<url><loc>{base}/p{j}</loc></url>\n" for j in range(200))

    def streamed(request):  # type: ignore[no-untyped-def]
        def body():  # (its first 200 URLs at once, its end 2 s later)
            yield f'<?xml version="1.0"?>\n<urlset {NS}>\n{urls}'
            time.sleep(2.0)
            yield "</urlset>\n"
        return Response(body(), content_type="application/xml")

    httpserver.expect_request("/s0.xml").respond_with_handler(streamed)
    began = time.monotonic()
    assert await _explore_lazy(target) == [200, 2, 2]
    assert started == [2] and sorted(POOLED) == ["s1.xml", "s2.xml"]
    assert max(WHEN) - began < 1.5  # given to the pool while s0 was still coming, not after it


async def test_a_slow_probe_sends_the_files_waiting_for_it_to_the_pool(
        httpserver: HTTPServer, started: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """A first file whose server takes its time: the files after it wait PROBE_WAIT, not as long
    as it takes, then go to the pool."""
    monkeypatch.setattr(cores, "PROBE_WAIT", 0.2)
    target = _site(httpserver, [2, 2, 2], skip=("s0.xml",))
    body = f'<?xml version="1.0"?>\n<urlset {NS}><url><loc>http://x.test/a</loc></url>' \
           "<url><loc>http://x.test/b</loc></url></urlset>\n"

    def late(request):  # type: ignore[no-untyped-def]
        time.sleep(1.5)
        return Response(body, content_type="application/xml")

    httpserver.expect_request("/s0.xml").respond_with_handler(late)
    assert await _explore_lazy(target) == [2, 2, 2]
    assert started == [2] and sorted(POOLED) == ["s1.xml", "s2.xml"]
    # near miss: a quick probe keeps them here (the small-site test above, with no pool at all)


async def test_an_index_is_no_probe_its_first_file_is(
        httpserver: HTTPServer, started: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Found from outside: a site whose robots.txt names its index made the index the probe;
    it ended with no entries, so its three heavy files were all parsed here, one after the other
    (1.35x the wall of --workers 2). The index hands the probe on to its first file, whose
    entries pass the threshold: the two after it go to the pool."""
    monkeypatch.setattr(cores, "POOL_AFTER_ENTRIES", 30)
    target = _site(httpserver, [200, 2, 2])
    base = target.rsplit("/", 1)[0]
    httpserver.expect_request("/robots.txt").respond_with_data(f"User-agent: *\nSitemap: {target}\n",
                                                               content_type="text/plain")
    assert await _explore_lazy(base + "/") == [200, 2, 2]
    assert started == [2] and sorted(POOLED) == ["s1.xml", "s2.xml"]


"""A file is explored once, whatever URL leads to it (issue 14 §3): a redirect onto a file
already explored is reported on the child that redirects and not parsed again; a redirect onto
an ancestor is a cycle on that child; spellings of one URL are fetched once. Real server on
127.0.0.1; with and without worker processes, since the fetch may run in either."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cli_process
import pytest
from pytest_httpserver import HTTPServer

from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.model import NodeKind, NodeState
from sitemap_tui.engine.store import EntryFilter, Store
from sitemap_tui.validate.checker import Checker

URLSET = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{}</urlset>\n'
INDEX = '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{}</sitemapindex>\n'
XML = "application/xml"


def urlset(*locs: str) -> str:
    return URLSET.format("".join(f"  <url><loc>{loc}</loc></url>\n" for loc in locs))


def index(*locs: str) -> str:
    return INDEX.format("".join(f"  <sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs))


async def explore(target: str, store: Store | None = None, checker: Checker | None = None, **opts) -> Explorer:
    config = FetchConfig(total_timeout=10, retries=0)
    async with Explorer(store=store, fetch_config=config, options=ExploreOptions(**opts), checker=checker) as ex:
        await ex.explore(target)
        return ex


def by_path(ex: Explorer, path: str):
    return [n for n in ex.nodes.values() if n.url.endswith(path)]


@pytest.fixture()
def redirect_to_sibling(httpserver: HTTPServer) -> str:
    """/index.xml lists /a.xml and /b.xml; /b.xml answers 301 -> /a.xml."""
    base = httpserver.url_for("").rstrip("/")
    httpserver.expect_request("/index.xml").respond_with_data(index(f"{base}/a.xml", f"{base}/b.xml"), content_type=XML)
    httpserver.expect_request("/a.xml").respond_with_data(urlset(f"{base}/p1", f"{base}/p2"), content_type=XML)
    httpserver.expect_request("/b.xml").respond_with_data("", 301, headers={"Location": f"{base}/a.xml"})
    return f"{base}/index.xml"


@pytest.mark.parametrize("workers", [0, 2])
async def test_redirect_onto_an_explored_sibling_is_not_parsed_again(redirect_to_sibling: str, tmp_path: Path, workers: int) -> None:
    store = Store(tmp_path / "x.db")
    ex = await explore(redirect_to_sibling, store, Checker(), workers=workers)
    store.commit()
    assert store.count(EntryFilter()) == 2
    assert sum(n.stats.url_count for n in ex.nodes.values()) == 2
    (a,) = by_path(ex, "/a.xml")
    (b,) = by_path(ex, "/b.xml")
    assert a.state == NodeState.DONE and a.stats.url_count == 2
    assert b.state == NodeState.SKIPPED and b.stats.url_count == 0
    assert "same as" in (b.error or "") and a.url in (b.error or "")
    rules = [i.rule for i in store.iter_issues()]
    assert "cross-duplicate-url" not in rules
    assert "duplicate-url-in-file" not in rules
    store.close()


async def test_redirect_onto_the_index_itself_is_a_cycle_on_the_listing_line(httpserver: HTTPServer, tmp_path: Path) -> None:
    base = httpserver.url_for("").rstrip("/")
    httpserver.expect_request("/index.xml").respond_with_data(index(f"{base}/leaf.xml", f"{base}/r.xml"), content_type=XML)
    httpserver.expect_request("/leaf.xml").respond_with_data(urlset(f"{base}/p1"), content_type=XML)
    httpserver.expect_request("/r.xml").respond_with_data("", 301, headers={"Location": f"{base}/index.xml"})
    store = Store(tmp_path / "x.db")
    ex = await explore(f"{base}/index.xml", store, Checker(), workers=0)
    store.commit()
    (root,) = [n for n in ex.nodes.values() if n.parent_id is None]
    (r,) = by_path(ex, "/r.xml")
    assert r.state == NodeState.SKIPPED and "cycle" in (r.error or "")
    assert [n.kind for n in ex.nodes.values()].count(NodeKind.INDEX) == 1
    issues = list(store.iter_issues())
    assert "index-nested" not in [i.rule for i in issues]
    (cycle,) = [i for i in issues if i.rule == "index-cycle"]
    # on the index, at the line that lists /r.xml (line 4: declaration, root, leaf, r)
    assert cycle.node_id == root.id and cycle.line == 4
    assert store.count(EntryFilter()) == 1
    store.close()


async def test_spellings_of_one_url_are_fetched_once(httpserver: HTTPServer) -> None:
    base = httpserver.url_for("").rstrip("/")
    host_port = base.split("//", 1)[1]
    spellings = [f"{base}/s.xml", f"{base}/./s.xml", f"{base}/x/../s.xml", f"HTTP://{host_port}/s.xml"]
    httpserver.expect_request("/index.xml").respond_with_data(index(*spellings), content_type=XML)
    httpserver.expect_request("/s.xml").respond_with_data(urlset(f"{base}/p1"), content_type=XML)
    ex = await explore(f"{base}/index.xml")
    assert [req.path for req, _ in httpserver.log].count("/s.xml") == 1
    assert sum(n.stats.url_count for n in ex.nodes.values()) == 1
    skipped = [n for n in ex.nodes.values() if n.state == NodeState.SKIPPED]
    assert len(skipped) == 3 and all("already explored" in (n.error or "") for n in skipped)
    # each says where the file was listed first, not its own URL (found from outside)
    assert all(n.error == f"already explored (listed also by {base}/index.xml)" for n in skipped), skipped


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return cli_process.run([sys.executable, "-m", "sitemap_tui", *args], capture_output=True, text=True, timeout=120)


def test_headless_commands_count_a_redirected_duplicate_once(redirect_to_sibling: str) -> None:
    urls = run_cli("urls", redirect_to_sibling, "--workers", "2")
    assert urls.returncode == 0, urls.stderr
    assert len(urls.stdout.split()) == 2 and len(set(urls.stdout.split())) == 2
    stats = run_cli("stats", redirect_to_sibling)
    assert "2 URLs" in stats.stdout.splitlines()[-1], stats.stdout
    report = run_cli("validate", redirect_to_sibling, "--format", "json")
    rules = [f["rule"] for f in json.loads(report.stdout)["issues"]]
    assert "cross-duplicate-url" not in rules

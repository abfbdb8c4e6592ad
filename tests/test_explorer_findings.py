"""Findings the explorer settles with what it fetched (issue 14 §5): index-child-unfetchable
for a child that cannot be parsed, and cross-submission read from the other host's robots.txt.
Real servers on 127.0.0.1 and 127.0.0.2/.3 (different hosts)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.model import Issue
from sitemap_tui.engine.store import Store
from sitemap_tui.validate.checker import Checker

URLSET = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{}</urlset>\n'
INDEX = '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{}</sitemapindex>\n'
XML = "application/xml"


def urlset(*locs: str) -> str:
    return URLSET.format("".join(f"  <url><loc>{loc}</loc></url>\n" for loc in locs))


def index(*locs: str) -> str:
    return INDEX.format("".join(f"  <sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs))


async def validate(target: str, tmp_path: Path, **opts) -> tuple[Explorer, list[Issue]]:
    store = Store(tmp_path / "x.db")
    config = FetchConfig(total_timeout=10, retries=0)
    async with Explorer(store=store, fetch_config=config, options=ExploreOptions(**opts), checker=Checker()) as ex:
        await ex.explore(target)
    store.commit()
    issues = list(store.iter_issues())
    store.close()
    return ex, issues


def base_of(server: HTTPServer) -> str:
    return server.url_for("").rstrip("/")


@pytest.fixture()
def other_hosts() -> Iterator[tuple[HTTPServer, HTTPServer]]:
    servers = (HTTPServer(host="127.0.0.2", port=0), HTTPServer(host="127.0.0.3", port=0))
    for s in servers:
        s.start()
    yield servers
    for s in servers:
        s.clear()
        s.stop()


# -- index-child-unfetchable ---------------------------------------------------------------------


@pytest.mark.parametrize("workers", [0, 2])
async def test_a_child_that_cannot_be_parsed_is_unusable_for_its_index(httpserver: HTTPServer, tmp_path: Path, workers: int) -> None:
    base = base_of(httpserver)
    httpserver.expect_request("/index.xml").respond_with_data(
        index(f"{base}/good.xml", f"{base}/broken.xml", f"{base}/cut.xml", f"{base}/gone.xml"), content_type=XML)
    httpserver.expect_request("/good.xml").respond_with_data(urlset(f"{base}/a"), content_type=XML)
    # broken before any entry, and after one
    httpserver.expect_request("/broken.xml").respond_with_data(URLSET.format("<url><loc>x</url>"), content_type=XML)
    httpserver.expect_request("/cut.xml").respond_with_data(URLSET.format(f"<url><loc>{base}/b</loc></url>\n<url><loc>"), content_type=XML)
    httpserver.expect_request("/gone.xml").respond_with_data("no", 404)
    ex, issues = await validate(f"{base}/index.xml", tmp_path, workers=workers)
    root = next(n for n in ex.nodes.values() if n.parent_id is None)
    unusable = {i.url.rsplit("/", 1)[-1]: i for i in issues if i.rule == "index-child-unfetchable"}
    assert set(unusable) == {"broken.xml", "cut.xml", "gone.xml"}
    for name, line in (("broken.xml", 4), ("cut.xml", 5), ("gone.xml", 6)):
        assert unusable[name].node_id == root.id and unusable[name].line == line
    assert "cannot be parsed (xml-not-well-formed at line 3: " in unusable["broken.xml"].message
    assert "the entry before it was kept" in unusable["cut.xml"].message
    # the child's own finding stays on the child
    assert any(i.rule == "xml-not-well-formed" and i.node_id != root.id for i in issues)

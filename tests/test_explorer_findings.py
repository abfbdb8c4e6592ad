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
        index(f"{base}/good.xml", f"{base}/broken.xml", f"{base}/cut.xml", f"{base}/gone.xml", f"{base}/amp.xml"),
        content_type=XML)
    httpserver.expect_request("/good.xml").respond_with_data(urlset(f"{base}/a"), content_type=XML)
    # broken before any entry, and after one
    httpserver.expect_request("/broken.xml").respond_with_data(URLSET.format("<url><loc>x</url>"), content_type=XML)
    httpserver.expect_request("/cut.xml").respond_with_data(URLSET.format(f"<url><loc>{base}/b</loc></url>\n<url><loc>"), content_type=XML)
    httpserver.expect_request("/gone.xml").respond_with_data("no", 404)
    # a raw '&' stops the parser too; its finding is xml-unescaped-char alone (issue 16 §1)
    httpserver.expect_request("/amp.xml").respond_with_data(URLSET.format(f"<url><loc>{base}/?a=1&b=2</loc></url>"), content_type=XML)
    ex, issues = await validate(f"{base}/index.xml", tmp_path, workers=workers)
    root = next(n for n in ex.nodes.values() if n.parent_id is None)
    unusable = {i.url.rsplit("/", 1)[-1]: i for i in issues if i.rule == "index-child-unfetchable"}
    assert set(unusable) == {"broken.xml", "cut.xml", "gone.xml", "amp.xml"}
    assert "cannot be parsed (xml-unescaped-char at line 3: " in unusable["amp.xml"].message
    for name, line in (("broken.xml", 4), ("cut.xml", 5), ("gone.xml", 6), ("amp.xml", 7)):
        assert unusable[name].node_id == root.id and unusable[name].line == line
    assert "cannot be parsed (xml-not-well-formed at line 3: " in unusable["broken.xml"].message
    assert "the entry before it was kept" in unusable["cut.xml"].message
    # the child's own finding stays on the child
    assert any(i.rule == "xml-not-well-formed" and i.node_id != root.id for i in issues)


# -- cross-submission ----------------------------------------------------------------------------


def rules_by_file(ex: Explorer, issues: list[Issue]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for i in issues:
        node = ex.nodes.get(i.node_id) if i.node_id is not None else None
        out.setdefault(node.url.rsplit("/", 1)[-1] if node else "?", set()).add(i.rule)
    return out


def requests(server: HTTPServer, path: str) -> int:
    return [req.path for req, _ in server.log].count(path)


@pytest.mark.parametrize("workers", [0, 2])
async def test_urls_on_a_host_whose_robots_txt_names_the_sitemap_are_accepted(
    httpserver: HTTPServer, other_hosts: tuple[HTTPServer, HTTPServer], tmp_path: Path, workers: int
) -> None:
    b_server, c_server = other_hosts
    a, b, c = base_of(httpserver), base_of(b_server), base_of(c_server)
    httpserver.expect_request("/index.xml").respond_with_data(index(f"{a}/s1.xml", f"{a}/s2.xml"), content_type=XML)
    httpserver.expect_request("/s1.xml").respond_with_data(urlset(f"{b}/p1", f"{b}/p2"), content_type=XML)
    httpserver.expect_request("/s2.xml").respond_with_data(urlset(f"{b}/p3", f"{c}/q1"), content_type=XML)
    # B names the index (so every sitemap under it); C names some other sitemap
    b_server.expect_request("/robots.txt").respond_with_data(f"User-agent: *\nAllow: /\n\nSitemap: {a}/index.xml\n")
    c_server.expect_request("/robots.txt").respond_with_data(f"Sitemap: {a}/other.xml\n")
    ex, issues = await validate(f"{a}/index.xml", tmp_path, workers=workers)
    found = rules_by_file(ex, issues)
    assert "location-different-host" not in found["s1.xml"]
    assert "robots-cross-submit-ok" in found["s1.xml"] and "robots-cross-submit-ok" in found["s2.xml"]
    wrong = [i for i in issues if i.rule == "location-different-host"]
    assert len(wrong) == 1 and wrong[0].url == f"{c}/q1"
    ok = next(i for i in issues if i.rule == "robots-cross-submit-ok" and ex.nodes[i.node_id].url.endswith("/s1.xml"))
    assert f"{b}/robots.txt" in ok.message
    # each other host's robots.txt read once, however many files list its URLs
    assert requests(b_server, "/robots.txt") == 1 and requests(c_server, "/robots.txt") == 1
    # the sitemap's own host: read once, for the robots-based rules (issue 16 §2), not again
    assert requests(httpserver, "/robots.txt") == 1


async def test_a_cross_submission_accepts_its_own_port_of_the_host_only(
    httpserver: HTTPServer, other_hosts: tuple[HTTPServer, HTTPServer], tmp_path: Path
) -> None:
    """Found from outside: the robots.txt of 127.0.0.2:PORT naming the index accepted the URLs of
    every port (and scheme) of 127.0.0.2, whose own robots.txt names nothing."""
    b_server, _ = other_hosts
    b_other = HTTPServer(host="127.0.0.2", port=0)
    b_other.start()
    try:
        a, b, b2 = base_of(httpserver), base_of(b_server), base_of(b_other)
        httpserver.expect_request("/index.xml").respond_with_data(index(f"{a}/s1.xml"), content_type=XML)
        httpserver.expect_request("/s1.xml").respond_with_data(urlset(f"{b}/p1", f"{b2}/p2"), content_type=XML)
        b_server.expect_request("/robots.txt").respond_with_data(f"Sitemap: {a}/index.xml\n")
        b_other.expect_request("/robots.txt").respond_with_data("no", 404)
        _, issues = await validate(f"{a}/index.xml", tmp_path)
        assert [i.url for i in issues if i.rule == "robots-cross-submit-ok"] == [f"{b}/p1"]
        (wrong,) = [i for i in issues if i.rule == "location-different-host"]
        assert wrong.url == f"{b2}/p2" and f"'127.0.0.2:{b_other.port}'" in wrong.message
    finally:
        b_other.clear()
        b_other.stop()


async def test_no_robots_txt_to_read_without_a_checker(httpserver: HTTPServer, other_hosts: tuple[HTTPServer, HTTPServer]) -> None:
    b_server, _ = other_hosts
    a, b = base_of(httpserver), base_of(b_server)
    httpserver.expect_request("/s1.xml").respond_with_data(urlset(f"{b}/p1"), content_type=XML)
    config = FetchConfig(total_timeout=10, retries=0)
    async with Explorer(fetch_config=config) as ex:
        await ex.explore(f"{a}/s1.xml")
    assert requests(b_server, "/robots.txt") == 0


async def test_cross_submission_follows_the_robots_txt_that_was_read(
    httpserver: HTTPServer, other_hosts: tuple[HTTPServer, HTTPServer], tmp_path: Path
) -> None:
    """example.com/robots.txt -> www.example.com/robots.txt names a CDN sitemap listing www URLs."""
    www_server, cdn_server = other_hosts
    site, www, cdn = base_of(httpserver), base_of(www_server), base_of(cdn_server)
    httpserver.expect_request("/robots.txt").respond_with_data("", 301, headers={"Location": f"{www}/robots.txt"})
    www_server.expect_request("/robots.txt").respond_with_data(f"Sitemap: {cdn}/sitemap.xml\n")
    cdn_server.expect_request("/sitemap.xml").respond_with_data(urlset(f"{www}/a", f"{www}/b"), content_type=XML)
    cdn_server.expect_request("/robots.txt").respond_with_data("no", 404)
    ex, issues = await validate(f"{site}/", tmp_path)
    found = rules_by_file(ex, issues)
    assert "location-different-host" not in found.get("sitemap.xml", set())
    assert "robots-cross-submit-ok" in found["sitemap.xml"]
    assert requests(www_server, "/robots.txt") == 1  # read in discovery, not again


async def test_children_of_a_cross_submitted_index_are_accepted_too(
    httpserver: HTTPServer, other_hosts: tuple[HTTPServer, HTTPServer], tmp_path: Path
) -> None:
    _, cdn_server = other_hosts
    site, cdn = base_of(httpserver), base_of(cdn_server)
    httpserver.expect_request("/robots.txt").respond_with_data(f"Sitemap: {cdn}/index.xml\n")
    cdn_server.expect_request("/index.xml").respond_with_data(index(f"{cdn}/s1.xml"), content_type=XML)
    cdn_server.expect_request("/s1.xml").respond_with_data(urlset(f"{site}/a", f"{site}/b"), content_type=XML)
    ex, issues = await validate(f"{site}/", tmp_path)
    found = rules_by_file(ex, issues)
    assert "location-different-host" not in found.get("s1.xml", set())
    assert "robots-cross-submit-ok" in found["s1.xml"]


async def test_an_index_child_on_a_host_that_names_the_index_is_accepted(
    httpserver: HTTPServer, other_hosts: tuple[HTTPServer, HTTPServer], tmp_path: Path
) -> None:
    b_server, c_server = other_hosts
    a, b, c = base_of(httpserver), base_of(b_server), base_of(c_server)
    httpserver.expect_request("/index.xml").respond_with_data(index(f"{b}/s.xml", f"{c}/s.xml"), content_type=XML)
    b_server.expect_request("/robots.txt").respond_with_data(f"Sitemap: {a}/index.xml\n")
    c_server.expect_request("/robots.txt").respond_with_data("User-agent: *\nDisallow:\n")
    _, issues = await validate(f"{a}/index.xml", tmp_path)
    different = [i.url for i in issues if i.rule == "index-child-different-host"]
    assert different == [f"{c}/s.xml"]
    assert [i.url for i in issues if i.rule == "robots-cross-submit-ok"] == [f"{b}/s.xml"]

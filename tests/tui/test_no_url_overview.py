"""The Overview says how many of a file's entries had no URL in them (an empty or missing
``<loc>``, a feed item without a link): they are not in the URL count nor the URL table, and the
explorer said nothing of them. The index's Overview sums its files' counts."""

from __future__ import annotations

import pytest
from app_helpers import select, settle, static_text, wait_started
from pytest_httpserver import HTTPServer

from sitemap_tui.tui.widgets.overview import OverviewPane

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


@pytest.mark.parametrize("size", [(200, 50), (80, 24)])
async def test_the_overview_counts_the_entries_without_a_url(httpserver: HTTPServer, make_app, size) -> None:
    urlset = (f'<?xml version="1.0"?><urlset {NS}><url><loc>https://example.com/a</loc></url>'
              "<url><lastmod>2024-01-01</lastmod></url><url><loc></loc></url></urlset>")
    clean = f'<?xml version="1.0"?><urlset {NS}><url><loc>https://example.com/b</loc></url></urlset>'
    httpserver.expect_request("/a.xml").respond_with_data(urlset, content_type="application/xml")
    httpserver.expect_request("/b.xml").respond_with_data(clean, content_type="application/xml")
    index = "".join(f"<sitemap><loc>{httpserver.url_for(p)}</loc></sitemap>" for p in ("/a.xml", "/b.xml"))
    httpserver.expect_request("/index.xml").respond_with_data(
        f'<?xml version="1.0"?><sitemapindex {NS}>{index}</sitemapindex>', content_type="application/xml")
    app = make_app(httpserver.url_for("/index.xml"))
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        await pilot.press("e")  # expand the subtree: both files fetched
        await settle(app, pilot)

        def overview() -> str:
            return " ".join(static_text(app.query_one(OverviewPane).query_one("#ov-summary"), 130).split())

        nodes = app.tree.model.nodes
        by_name = {n.url.rsplit("/", 1)[-1]: nid for nid, n in nodes.items()}
        await select(app, pilot, by_name["a.xml"])
        await settle(app, pilot)
        assert "No URL 2 entries not listed (see Issues)" in overview()
        assert "URLs 1 " in overview()
        await select(app, pilot, by_name["b.xml"])
        await settle(app, pilot)
        assert "No URL" not in overview()  # the near miss: every entry had its URL
        await select(app, pilot, by_name["index.xml"])
        await settle(app, pilot)
        assert "No URL 2 entries not listed" in overview()

"""A file cancelled half-way (issue 18, bug 6): the Overview says it was cancelled, with its
partial URL count and the HTTP status it got (not "Not fetched yet" and "—"), and fetching it
again never counts the old rows with the new ones."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from app_helpers import ACTIVE, FIXED_NOW, settle, static_text, wait_for, wait_started
from pytest_httpserver import HTTPServer
from werkzeug import Response

from sitemap_tui.engine.explorer import ExploreOptions
from sitemap_tui.engine.model import NodeState
from sitemap_tui.engine.store import EntryFilter, Store
from sitemap_tui.tui.widgets.overview import OverviewPane

URLS = 60
HEAD = b'<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'


def _urls(start: int, stop: int) -> bytes:
    return b"".join(f"<url><loc>https://example.com/p{i}</loc></url>\n".encode() for i in range(start, stop))


def _stream(release: threading.Event) -> Iterator[bytes]:
    yield HEAD + _urls(0, 20)
    for start in (20, 40):
        time.sleep(0.3)  # past the batch interval: the rows so far are sent on
        yield _urls(start, start + 20)
    release.wait(30)  # the first fetch stops here, until the test lets it end
    yield b"</urlset>\n"


@pytest.mark.parametrize("size", [(200, 50), (80, 24)])
async def test_a_cancelled_file_shows_what_it_got_and_refetches_cleanly(httpserver: HTTPServer, make_app, size):
    release = threading.Event()
    httpserver.expect_request("/sitemap.xml").respond_with_handler(
        lambda _req: Response(_stream(release), content_type="application/xml"))
    app = make_app(httpserver.url_for("/sitemap.xml"), options=ExploreOptions(now=FIXED_NOW, batch_size=10))
    try:
        async with app.run_test(size=size) as pilot:
            model = app.tree.model
            await wait_for(pilot, lambda: bool(model.roots()), what="the root")
            root = model.roots()[0]
            await wait_for(pilot, lambda: model.nodes[root].state in ACTIVE and model.nodes[root].stats.url_count >= 40,
                           what="part of the file")
            await pilot.press("x")
            await wait_for(pilot, lambda: model.nodes[root].state == NodeState.PENDING, what="the cancel")
            await wait_started(app, pilot)
            node = model.nodes[root]
            assert node.error == "cancelled"
            partial = node.stats.url_count
            assert partial >= 40
            await pilot.press("1")
            await settle(app, pilot)
            text = static_text(app.query_one(OverviewPane).query_one("#ov-summary"), 130)
            assert "Not fetched yet" not in text
            assert f"Cancelled: the fetch was stopped after {partial} URLs (partial)" in text
            assert "HTTP status   200" in text or "HTTP status  200" in text, text
            assert f"URLs     {partial}" in text or f"URLs {partial}" in " ".join(text.split()), text
            assert "cancelled" in app.tree.tree_node(root).label.plain
            # fetched again: the partial rows are replaced, not counted with the new ones
            release.set()
            await pilot.press("0", "enter")  # the tree, then enter on the file
            await wait_for(pilot, lambda: model.nodes[root].state == NodeState.DONE, what="the second fetch")
            await settle(app, pilot)
            store = Store(app.db_path, readonly=True)
            try:
                assert store.count(EntryFilter(node_ids=[root])) == URLS
            finally:
                store.conn.close()
            text = " ".join(static_text(app.query_one(OverviewPane).query_one("#ov-summary"), 130).split())
            assert f"URLs {URLS}" in text and f"Unique {URLS}" in text and "duplicate" not in text, text
            assert "Cancelled" not in text
    finally:
        release.set()


async def test_the_subtree_counts_a_file_stopped_by_a_cancel_as_cancelled(httpserver: HTTPServer, make_app):
    """The index's Overview counted its children a cancel stopped part-way as "pending"; their
    own Overview and the tree said "cancelled"."""
    release = threading.Event()
    index = ('<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
             f"<sitemap><loc>{httpserver.url_for('/a.xml')}</loc></sitemap>"
             f"<sitemap><loc>{httpserver.url_for('/b.xml')}</loc></sitemap></sitemapindex>")
    httpserver.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")
    httpserver.expect_request("/a.xml").respond_with_data(HEAD + _urls(0, 5) + b"</urlset>\n",
                                                          content_type="application/xml")
    httpserver.expect_request("/b.xml").respond_with_handler(
        lambda _req: Response(_stream(release), content_type="application/xml"))
    app = make_app(httpserver.url_for("/index.xml"), options=ExploreOptions(now=FIXED_NOW, batch_size=10))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_started(app, pilot)
            model = app.tree.model
            await pilot.press("E")
            await wait_for(pilot, lambda: any(n.url.endswith("/b.xml") and n.state in ACTIVE and n.stats.url_count >= 40
                                              for n in model.nodes.values()), what="b.xml part-way")
            await pilot.press("x")
            await wait_for(pilot, lambda: any(n.url.endswith("/b.xml") and n.error == "cancelled"
                                              for n in model.nodes.values()), what="the cancel")
            await pilot.press("1")
            await settle(app, pilot)
            text = " ".join(static_text(app.query_one(OverviewPane).query_one("#ov-summary"), 130).split())
            assert "Files 3 (2 done, 1 cancelled)" in text, text
    finally:
        release.set()


def test_the_subtrees_file_counts_each_have_their_separators():
    """Found in tmux on an index fan-out: "Files 120,007 (117959 pending, ...)"."""
    from sitemap_tui.engine.model import FoundBy, Node, NodeKind
    from sitemap_tui.tui.widgets import Selection
    from sitemap_tui.tui.widgets.overview import SubtreeSums, files_text

    site = Node(id=0, url="https://example.com/", kind=NodeKind.SITE, state=NodeState.DONE,
                found_by=FoundBy.USER, parent_id=None)
    nodes = {0: site}
    for i in range(1, 1502):
        state = NodeState.DONE if i == 1 else (NodeState.FAILED if i < 1203 else NodeState.PENDING)
        nodes[i] = Node(id=i, url=f"https://example.com/s{i}.xml", kind=NodeKind.URLSET, state=state,
                        found_by=FoundBy.INDEX, parent_id=0)
    sel = Selection(node=site, ids=tuple(nodes), subtree=True, nodes=nodes)
    assert files_text(sel) == "1,501 (299 pending, 1 done, 1,201 failed)"
    # the Files, Size and Times rows, added up in one pass on the pane's worker thread
    for i in (1, 2):
        nodes[i].stats.wire_bytes, nodes[i].stats.decoded_bytes = 100 * i, 1000 * i
        nodes[i].stats.fetch_time, nodes[i].stats.parse_time = 0.5 * i, 0.25 * i
    assert SubtreeSums.of(sel) == SubtreeSums(files_text(sel), 300, 3000, 1.5, 0.75)

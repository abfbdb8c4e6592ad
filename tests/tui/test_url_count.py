"""The URL table's row count stays right while its rescans count only the rows added since the
last one (issue 19): after an index streamed in, after one of its sitemaps was fetched again
(its rows deleted, the new ones added at the end: the app tells the table, which then counts the
whole listing again), after a filter change.

The index has 5 sitemaps of 1,200 URLs, so the listing has anchors (every 1,000th row) on both
sides of the sitemap fetched again: the table's own cheap check (the first anchor and the resumed
one still where they were) cannot see its rows go, only the app's word can.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from app_helpers import settle, static_text, wait_for, wait_started
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from sitemap_tui.engine.model import NodeState
from sitemap_tui.tui.widgets.url_table.scan import ANCHOR_EVERY

SIZES = [(200, 50), (80, 24)]
SITEMAPS = 5
URLS = 1200
AGAIN = 3  # the sitemap fetched again
FEWER = 700  # its URLs the second time


def urlset(base: str, n: int, count: int) -> str:
    urls = "".join(f"<url><loc>{base}/s{n}/page-{i}</loc></url>" for i in range(count))
    return f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'


class Site:
    """The index and its sitemaps on the test server; a sitemap's answer can be changed, and
    those in ``held`` are held until the test sets their gate."""

    def __init__(self, httpserver: HTTPServer) -> None:
        self.base = f"http://127.0.0.1:{httpserver.port}"
        self.bodies = {f"/s{n}.xml": urlset(self.base, n, URLS) for n in range(1, SITEMAPS + 1)}
        self.held: dict[str, threading.Event] = {}
        index = "".join(f"<sitemap><loc>{self.base}/s{n}.xml</loc></sitemap>" for n in range(1, SITEMAPS + 1))
        httpserver.expect_request("/index.xml").respond_with_data(
            f'<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{index}</sitemapindex>',
            content_type="application/xml")
        for path in self.bodies:
            httpserver.expect_request(path).respond_with_handler(self._answer)

    def _answer(self, request: Request) -> Response:
        body = self.bodies[request.path]
        gate = self.held.get(request.path)
        if gate is None:
            return Response(body, content_type="application/xml")
        head, rest = body.split("<url>", 1)

        def trickle() -> Iterator[str]:
            # the start of the file, then a line break every 0.1 s until the gate opens: the
            # engine hears from the server meanwhile (it gives up on a silent one after 10 s)
            yield head
            for _ in range(300):  # (a guard: never held longer than 30 s)
                if gate.wait(0.1):
                    break
                yield "\n"
            yield "<url>" + rest

        return Response(trickle(), content_type="application/xml")


def status(app: Any) -> str:
    return static_text(app.query_one("#url-status"), 200)


def stored(app: Any, where: str = "", params: tuple[Any, ...] = ()) -> int:
    conn = app.url_table.grid.store.conn
    return int(conn.execute(f"SELECT COUNT(*) FROM entries{where}", params).fetchone()[0])


async def counted(app: Any, pilot: Any, expected: int, what: str) -> None:
    """The table's count is ``expected`` once its rescans are over, and its status line says so."""
    grid = app.url_table.grid
    try:
        await wait_for(pilot, lambda: grid.total == expected and not grid.scanning, timeout=20, what=what)
    except AssertionError:
        failed = {n.url: n.error for n in app.tree.model.nodes.values() if n.state != NodeState.DONE}
        raise AssertionError(f"{what}: the table counts {grid.total} rows, {expected} expected, the store"
                             f" holds {stored(app)}; files not done: {failed}") from None
    assert status(app).startswith(f"{expected:,} rows"), status(app)


def node_named(app: Any, name: str) -> int:
    return next(nid for nid, n in app.tree.model.nodes.items() if n.url.endswith("/" + name))


async def tree_cursor_to(app: Any, pilot: Any, node_id: int, key: str) -> None:
    """Press ``key`` in the tree until the panes show ``node_id`` (a user moving the cursor)."""
    for _ in range(20):
        if app.selected_id == node_id:
            return
        await pilot.press(key)
        await pilot.pause()
    await wait_for(pilot, lambda: app.selected_id == node_id, what=f"node {node_id} under the tree's cursor")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_count_is_right_after_streaming_a_refetch_and_a_filter_change(
        httpserver: HTTPServer, make_app: Any, size: tuple[int, int]) -> None:
    site = Site(httpserver)
    app = make_app(f"{site.base}/index.xml")
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        root = app.selected_id
        await pilot.press("5", "e")  # the URL pane first, then expand all: the table rescans as rows stream in
        await settle(app, pilot)
        grid = app.url_table.grid
        assert app.url_table.scope.node_ids is None  # the root: every entry, rows only ever come at its end
        total = SITEMAPS * URLS
        assert stored(app) == total
        await counted(app, pilot, total, "the count after streaming")
        assert len(grid.anchors) - 1 == total // ANCHOR_EVERY

        # sitemap 3 fetched again (r) with fewer URLs; the user goes back to the root while it
        # loads: the root's listing is counted before the old rows go, the new ones come after
        again = node_named(app, f"s{AGAIN}.xml")
        gate = site.held[f"/s{AGAIN}.xml"] = threading.Event()
        site.bodies[f"/s{AGAIN}.xml"] = urlset(site.base, AGAIN, FEWER)
        await pilot.press("0")
        await tree_cursor_to(app, pilot, again, "down")
        await pilot.press("r")
        await wait_for(pilot, lambda: app.tree.model.nodes[again].state != NodeState.DONE, what="the reload to start")
        await tree_cursor_to(app, pilot, root, "up")
        await pilot.press("5")
        await counted(app, pilot, total, "the root's count while the sitemap is held")
        gate.set()
        await wait_for(pilot, lambda: app.tree.model.nodes[again].state == NodeState.DONE, what="the reload")
        await settle(app, pilot)
        after = total - URLS + FEWER
        assert stored(app) == after
        await counted(app, pilot, after, "the count after the reload")

        # a filter change: the rows of one sitemap, then none filtered again
        await pilot.press("slash")
        await pilot.press(*f"/s{AGAIN}/")
        await pilot.press("enter")
        await settle(app, pilot)
        assert stored(app, " WHERE loc LIKE ?", (f"%/s{AGAIN}/%",)) == FEWER
        await counted(app, pilot, FEWER, "the count of the filter")
        await pilot.press("slash", "ctrl+u", "enter")  # (ctrl+u: Input's delete to the start)
        await settle(app, pilot)
        await counted(app, pilot, after, "the count with the filter cleared")


async def test_a_rescan_counts_only_the_rows_added_after_its_last_anchor_until_told_rows_went(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The URL table alone on a store written meanwhile, as the engine does while an index
    streams in: the whole count read every row again at each rescan (70-250 ms of a thread's CPU
    on 1 M rows, in the UI's process); with nothing removed a rescan resumes from its last anchor
    and counts the rows after it. Rows removed between its anchors it cannot see: once told
    (``rows_removed``, what the app does for a file fetched again) it counts them all again."""
    from urltui_helpers import Host, add_node, build_store, entry

    from sitemap_tui.engine.store.urls import Query
    from sitemap_tui.tui.widgets.url_table import UrlTable

    calls: list[bool] = []
    real = Query.count

    def count(self: Query, conn: Any, *args: Any, **kw: Any) -> int:
        calls.append(bool(args or kw))
        return real(self, conn, *args, **kw)

    monkeypatch.setattr(Query, "count", count)

    def urls(n: int, count: int = URLS) -> list[Any]:
        return [entry(f"https://example.com/s{n}/page-{i}", i + 1) for i in range(count)]

    db = tmp_path / "x.db"
    store, _ids = build_store(db, {n: urls(n) for n in (1, 2, 3)})
    app = Host(lambda: UrlTable(db, id="url-table"))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(UrlTable)
        grid = table.grid

        async def counted(expected: int) -> None:
            await wait_for(pilot, lambda: grid.total == expected and not grid.scanning, timeout=10,
                           what=f"{expected} rows counted (the table has {grid.total})")
            assert static_text(table.query_one("#url-status"), 200).startswith(f"{expected:,} rows")

        await counted(3 * URLS)
        assert len(grid.anchors) - 1 == 3 * URLS // ANCHOR_EVERY
        for n in (4, 5):  # two more sitemaps stream in
            calls.clear()
            add_node(store, n)
            store.add_entries(n, urls(n))
            store.commit()
            store.begin()
            table.data_changed()
            await counted(n * URLS)
            assert calls == [True]  # only the rows after the last anchor were counted

        # sitemap 3 fetched again with fewer URLs: its rows deleted, the new ones at the end.
        # Anchors 1 and 6 stand where they were: the table's own check does not see it.
        store.delete_node_data([AGAIN])
        store.add_entries(AGAIN, urls(AGAIN, FEWER))
        store.commit()
        store.begin()
        after = SITEMAPS * URLS - URLS + FEWER
        calls.clear()
        table.data_changed()
        await wait_for(pilot, lambda: bool(calls) and not grid.scanning, what="the rescan")
        assert grid.total == SITEMAPS * URLS + FEWER != after  # what an untold rescan counts
        calls.clear()
        table.rows_removed()
        await counted(after)
        assert calls == [False]  # the whole listing, once
        anchors = list(grid.anchors)
        conn = store.conn
        assert [a[1] for a in anchors[1:]] == [
            r[0] for r in conn.execute("SELECT id FROM entries ORDER BY id").fetchall()[ANCHOR_EVERY - 1::ANCHOR_EVERY]]
        calls.clear()
        table.data_changed()  # (nothing new): counts only the rows after its last anchor again
        await wait_for(pilot, lambda: bool(calls) and not grid.scanning, what="the rescan")
        assert calls == [True] and grid.total == after
    store.close()

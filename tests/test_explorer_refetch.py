"""A file cancelled half-way and fetched again (issue 18, bug 6): it keeps the HTTP status it got,
the second fetch is not stopped by the finished cancel, and its rows replace the partial ones."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from pytest_httpserver import HTTPServer
from werkzeug import Response

from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.fetch_outcome import FetchConfig
from sitemap_tui.engine.model import NodeState
from sitemap_tui.engine.store import EntryFilter, Store

HEAD = b'<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'


def _urls(start: int, stop: int) -> bytes:
    return b"".join(f"<url><loc>https://example.com/p{i}</loc></url>\n".encode() for i in range(start, stop))


def _stream(release: threading.Event) -> Iterator[bytes]:
    yield HEAD + _urls(0, 30)
    time.sleep(0.3)  # past the batch interval: the first rows are applied
    yield _urls(30, 60)
    release.wait(30)
    yield b"</urlset>\n"


async def test_a_cancelled_file_fetched_again(httpserver: HTTPServer, tmp_path: Path) -> None:
    release = threading.Event()
    httpserver.expect_request("/s.xml").respond_with_handler(lambda _r: Response(_stream(release), content_type="application/xml"))
    store = Store(tmp_path / "x.db")
    try:
        async with Explorer(store=store, fetch_config=FetchConfig(retries=0),
                            options=ExploreOptions(batch_size=10)) as ex:
            root = await ex.open(httpserver.url_for("/s.xml"))
            task = asyncio.create_task(ex.expand(root.id))
            while root.stats.url_count < 30:
                await asyncio.sleep(0.01)
            ex.cancel()
            await asyncio.gather(task, return_exceptions=True)
            assert root.state == NodeState.PENDING and root.error == "cancelled"
            assert root.stats.http_status == 200  # what the server answered, known before the end
            assert store.count(EntryFilter(node_ids=[root.id])) >= 30
            release.set()
            await ex.expand(root.id)
            assert root.state == NodeState.DONE, root.error
            assert store.count(EntryFilter(node_ids=[root.id])) == 60  # the partial rows were replaced
    finally:
        release.set()
        store.close()

"""Worker shards (issue 19, engine/store/shard.py): a worker writes its batches' rows into a
SQLite file of its own and the store copies them with INSERT … SELECT. What the store holds must
be what add_rows writes; shard files stay bounded and are gone after a run, even one whose worker
was killed."""

from __future__ import annotations

import asyncio
import functools
import os
import signal
import tempfile
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from sitemap_tui.engine import explore_files
from sitemap_tui.engine.events import EntriesAdded, Event
from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.model import Alternate, Entry, Image, Issue, News, Severity, Video
from sitemap_tui.engine.store import ShardGone, ShardWriter, Store, entry_rows
from sitemap_tui.engine.store.shard import MAX_ATTACHED
from sitemap_tui.engine.workers import WorkerPool
from sitemap_tui.validate.checker import Checker

NS = ('xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
      ' xmlns:xhtml="http://www.w3.org/1999/xhtml"')
TABLES = ("entries", "images", "videos", "news", "alternates", "issues")


def heavy_urlset(base: str, prefix: str, n: int) -> str:
    """URLs with images and hreflang links, a few with problems (so batches carry issues)."""
    urls = []
    for i in range(n):
        loc = f"{base}/{prefix}/{i}" if i % 97 else f"{base}/{prefix}/bad path {i}"
        urls.append(
            f"<url><loc>{loc}</loc><lastmod>2024-01-{i % 28 + 1:02d}</lastmod>"
            f"<image:image><image:loc>{base}/img/{prefix}{i}.jpg</image:loc></image:image>"
            f'<xhtml:link rel="alternate" hreflang="en" href="{base}/{prefix}/{i}"/>'
            f'<xhtml:link rel="alternate" hreflang="de" href="{base}/de/{prefix}/{i}"/></url>\n'
        )
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n{"".join(urls)}</urlset>\n'


def serve_index(httpserver: HTTPServer, children: int, urls: int) -> str:
    base = httpserver.url_for("").rstrip("/")
    locs = "".join(f"<sitemap><loc>{base}/c{k}.xml</loc></sitemap>" for k in range(children))
    httpserver.expect_request("/index.xml").respond_with_data(
        f'<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</sitemapindex>',
        content_type="application/xml")
    for k in range(children):
        httpserver.expect_request(f"/c{k}.xml").respond_with_data(
            heavy_urlset(base, f"c{k}", urls), content_type="application/xml")
    return f"{base}/index.xml"


def table(store: Store, name: str) -> list[tuple[object, ...]]:
    return store.conn.execute(f"SELECT * FROM {name} ORDER BY rowid").fetchall()


def sample_entries(n: int, tag: str) -> list[Entry]:
    out = []
    for i in range(n):
        e = Entry(loc=f"https://example.com/{tag}/{i}", line=i + 3)
        e.lastmod_raw, e.priority_raw, e.priority = "2024-05-01", "0.5", 0.5
        e.images = [Image(loc=f"https://example.com/{tag}/{i}.jpg", title="t", line=i + 4)] * (i % 3)
        if i % 4 == 0:
            e.videos = [Video(line=i + 5, fields={"title": "v"})]
        if i % 5 == 0:
            e.news = [News(publication_name="P", publication_language="en", title="n", line=i + 6)]
        e.alternates = [Alternate(rel="alternate", hreflang=lang, href=f"https://example.com/{lang}/{i}", line=i + 7)
                        for lang in ("en", "fr")[: i % 3]]
        out.append(e)
    return out


def test_copying_a_shard_stores_exactly_what_add_rows_stores(tmp_path: Path) -> None:
    """Every table, every column, the ids included, batch after batch over rotated shard files,
    after rows already in the store (so the ids are shifted)."""
    direct, copied = Store(tmp_path / "direct.db"), Store(tmp_path / "copied.db")
    key = direct.signature_key()
    copied.set_meta("signature_key", key.hex())
    (tmp_path / "shards").mkdir()
    writer = ShardWriter(tmp_path / "shards", 3, lambda: 0, rotate=7)
    batches = [entry_rows(sample_entries(n, f"b{k}"), key) for k, n in enumerate((5, 9, 1, 12))]
    first = entry_rows(sample_entries(4, "before"), key)
    direct_ids = [direct.add_rows(1, first)]
    copied_ids = [copied.add_rows(1, first)]
    for k, rows in enumerate(batches):
        # a file-level issue (no entry), and two on the same entry, one on the last
        issues: list[tuple[Issue, int | None]] = [
            (Issue("file-rule", Severity.ERROR, "on the file", node_id=None, line=1), None),
            (Issue("loc-rule", Severity.WARNING, "first", line=3, column=2, url="u"), 0),
            (Issue("loc-rule", Severity.INFO, "again", url="u"), 0),
            (Issue("other", Severity.WARNING, "last", node_id=10 + k), len(rows.entries) - 1),
        ]
        for iss, _ in issues:  # as the explorer's _add_issues does
            iss.node_id = 10 + k if iss.node_id is None else iss.node_id
        for store, got in ((direct, direct_ids), (copied, copied_ids)):
            # the explorer maps each issue's index in the batch to the ids the store returned
            ids = store.add_rows(10 + k, rows) if store is direct else store.copy_rows(10 + k, writer.write(10 + k, rows))
            store.add_issues([i for i, _ in issues], [None if idx is None else ids[idx] for _, idx in issues])
            got.append(ids)
    writer.close()
    assert copied_ids == direct_ids
    for name in TABLES:
        assert table(copied, name) == table(direct, name), name
    assert len(table(direct, "videos")) and len(table(direct, "news")) and len(table(direct, "alternates"))
    assert len(list((tmp_path / "shards").glob("*.db"))) == 2  # the writer rotated its file


def test_a_sealed_shard_is_deleted_once_the_store_copied_it(tmp_path: Path) -> None:
    copied_upto = 0
    writer = ShardWriter(tmp_path, 0, lambda: copied_upto, rotate=10)
    store = Store(tmp_path / "store.db")
    refs = [writer.write(1, entry_rows(sample_entries(10, f"b{k}"), b"k")) for k in range(3)]
    assert len(list(tmp_path.glob("w0-*.db"))) == 3  # nothing was copied yet: all kept
    store.copy_rows(1, refs[0])
    copied_upto = refs[0].last
    writer.write(1, entry_rows(sample_entries(10, "b3"), b"k"))
    assert sorted(p.name for p in tmp_path.glob("w0-*.db")) == ["w0-2.db", "w0-3.db", "w0-4.db"]
    assert not list(tmp_path.glob("w0-1.db*"))  # its -wal and -shm too
    writer.close()


def test_many_workers_take_turns_under_sqlites_attach_limit(tmp_path: Path) -> None:
    """64 workers' shards through one store: never more than MAX_ATTACHED attached at once."""
    store = Store(tmp_path / "store.db")
    writers = [ShardWriter(tmp_path, w, lambda: 0) for w in range(64)]
    for round_ in range(2):
        for w, writer in enumerate(writers):
            ids = store.copy_rows(w + 1, writer.write(w + 1, entry_rows(sample_entries(2, f"{w}-{round_}"), b"k")))
            assert len(ids) == 2
            attached = store.conn.execute("PRAGMA database_list").fetchall()
            assert len(attached) <= MAX_ATTACHED + 1
    store.commit()
    assert store.conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == 256
    for writer in writers:
        writer.close()


def test_a_shard_file_that_is_gone_is_said_so(tmp_path: Path) -> None:
    writer = ShardWriter(tmp_path, 0, lambda: 0)
    ref = writer.write(1, entry_rows(sample_entries(3, "x"), b"k"))
    writer.close()
    for p in tmp_path.glob("w0-*"):
        p.unlink()
    store = Store(tmp_path / "store.db")
    with pytest.raises(ShardGone):
        store.copy_rows(1, ref)
    assert not (tmp_path / "w0-1.db").exists()  # ATTACH did not create an empty one


async def _explore(target: str, store: Store, workers: int, on_events=None) -> Explorer:
    config = FetchConfig(total_timeout=60, retries=0)
    options = ExploreOptions(workers=workers, batch_size=20, event_interval=0)
    async with Explorer(store=store, fetch_config=config, options=options, on_events=on_events,
                        checker=Checker()) as ex:
        await ex.explore(target)
        return ex


def _content(store: Store) -> dict[str, list[tuple[object, ...]]]:
    """The store's rows without ids (files interleave differently with workers)."""
    store.commit()
    q = store.conn.execute
    return {
        "entries": sorted(q("SELECT n.url, e.loc, e.line, e.lastmod, e.n_images, e.n_alternates, e.n_issues,"
                            " e.key, e.alt_n, e.alt_h FROM entries e JOIN nodes n ON n.id = e.node_id").fetchall()),
        "images": sorted(q("SELECT e.loc, i.loc, i.line FROM images i JOIN entries e ON e.id = i.entry_id").fetchall()),
        "alternates": sorted(q("SELECT e.loc, a.hreflang, a.href, a.lang, a.tgt"
                               " FROM alternates a JOIN entries e ON e.id = a.entry_id").fetchall()),
        "issues": sorted(q("SELECT i.rule, i.url, i.message, e.loc FROM issues i"
                           " LEFT JOIN entries e ON e.id = i.entry_id").fetchall(), key=repr),
    }


async def test_workers_write_shards_the_store_copies(httpserver: HTTPServer, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """With workers, no batch carries rows (they are in the worker's shard), the shard files
    exist while the run goes on, the sealed ones are deleted during the run, the folder is gone
    after it, and the store holds what the inline run stores."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the pool's scratch folder goes here
    monkeypatch.setattr(explore_files, "WorkerPool", functools.partial(WorkerPool, rotate=60))
    # 300 batches of 20: more than the results queue (64) and the files' backlogs hold, so the
    # workers cannot run ahead of the store by all of them, and 100 shard files in all
    target = serve_index(httpserver, 3, 2000)
    inline = Store(tmp_path / "inline.db")
    await _explore(target, inline, 0)

    store = Store(tmp_path / "pool.db")
    store.set_meta("signature_key", inline.signature_key().hex())  # (the hreflang set signatures)
    seen: set[str] = set()
    most = 0
    pools: list[WorkerPool] = []
    batches = []
    real_apply = explore_files.FileProcessing._apply_batch

    def spy(self, node, batch):  # what reaches the store's process
        batches.append((batch.rows, batch.shard))
        pools.append(self._pool)
        return real_apply(self, node, batch)

    monkeypatch.setattr(explore_files.FileProcessing, "_apply_batch", spy)

    def on_events(events: list[Event]) -> None:
        nonlocal most
        if pools and any(isinstance(e, EntriesAdded) for e in events):
            names = {p.name for p in pools[-1].shard_dir.glob("*.db")}
            seen.update(names)
            most = max(most, len(names))

    await _explore(target, store, 2, on_events)
    shard_batches = [s for r, s in batches if s is not None]
    assert shard_batches and all(r is None for r, _ in batches)
    assert most >= 1
    assert len(seen) > most  # sealed files were deleted while the run went on
    # bounded by what can be in flight (the queue, the files' backlogs), not by the files: a copied
    # file goes at its worker's next write, so up to twice that
    assert most <= 2 * (2 + (64 + 3 * 8) * 20 // 60)
    content = _content(store)
    assert content == _content(inline)
    # the issues found on entries (in the workers, by index in their batch) landed on them
    on_entries = [i for i in content["issues"] if i[3] is not None]
    assert len(on_entries) >= 3 * (2000 // 97)
    assert all(i[1] == i[3] for i in on_entries)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("sitemap-tui-")]


async def test_a_killed_worker_leaves_no_shard_file(httpserver: HTTPServer, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    target = serve_index(httpserver, 4, 3000)
    store = Store(tmp_path / "pool.db")
    killed: list[int] = []
    holder: list[Explorer] = []

    def on_events(events: list[Event]) -> None:
        ex = holder[0]
        pool = ex._pool
        if killed or pool is None or not any(isinstance(e, EntriesAdded) for e in events):
            return
        proc = pool._procs[0]
        if list(pool.shard_dir.glob("w0-*.db")):  # it wrote something: now it dies
            os.kill(proc.pid, signal.SIGKILL)
            killed.append(proc.pid)

    config = FetchConfig(total_timeout=30, retries=0)
    options = ExploreOptions(workers=2, batch_size=100, event_interval=0)
    async with Explorer(store=store, fetch_config=config, options=options, on_events=on_events) as ex:
        holder.append(ex)
        await ex.explore(target)
        assert killed
        pool = ex._pool
        assert pool is not None and pool.shard_dir is not None
        for _ in range(200):  # the pool notices a death when its results queue is idle
            if 0 in pool._dead:
                break
            await asyncio.sleep(0.05)
        assert 0 in pool._dead
        # its files went when its death was noticed, while the other worker's stay until the end
        assert not list(pool.shard_dir.glob("w0-*"))
        assert pool.shard_dir.is_dir()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("sitemap-tui-")]

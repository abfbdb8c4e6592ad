"""The explorer re-explores conditionally (issue 20 §3): a site explored before in the explorer is
asked for each file with the validators of its latest exploration in the cache; a file that
answers 304 is carried over from it (no body sent), shows "unchanged since" in the Overview and a
dim 304 in the tree, and a notice says how many were carried. Reload (r) and f still fetch the
server's file. Driven with real keys against a site on 127.0.0.1 (tests/test_refetch.py's Site,
which honours the validators and counts the bodies it sends), in this test's own cache folder."""

from __future__ import annotations

import asyncio
import re
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from app_helpers import (
    FIXED_NOW,
    capture_notes,
    screen_text,
    select,
    settle,
    static_text,
    wait_for,
    wait_started,
)
from test_refetch import NS, SITEMAPS, Site, conditional, sent, urlset

from sitemap_tui.engine.explorer import ExploreOptions
from sitemap_tui.engine.store import Store
from sitemap_tui.session.recent import cache_folder

SIZES = [(200, 50), (80, 24)]


@pytest.fixture()
def site(httpserver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Site:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    base = httpserver.url_for("").rstrip("/")
    s = Site(base)
    s.put("/index.xml", f'<?xml version="1.0"?>\n<sitemapindex {NS}>'
          + "".join(f"<sitemap><loc>{base}{p}</loc></sitemap>" for p in SITEMAPS[1:]) + "</sitemapindex>\n")
    s.put("/a.xml", urlset(base, ["a1", "a2", "a3"]))
    s.put("/b.xml", urlset(base, ["b1"]))
    s.put("/c.xml", urlset(base, ["c1", "c2"]), etag=False)  # Last-Modified alone: If-Modified-Since
    httpserver.expect_request(re.compile(".*")).respond_with_handler(s.handle)
    return s


def kept(stamp: str) -> Path:
    """An exploration file in the cache, named as the explorer names its own (host and UTC
    second): two explorations of a test run in the same second would share one name."""
    folder = cache_folder()
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"127.0.0.1-{stamp}.db"


def node_id(app: Any, name: str) -> int:
    return next(i for i, n in app.tree.model.nodes.items() if n.url.endswith("/" + name))


async def explore_all(app: Any, pilot: Any) -> None:
    """As a user starts: the exploration opens, e expands everything from the root."""
    await wait_started(app, pilot)
    await pilot.press("e")
    await settle(app, pilot)
    await wait_for(pilot, lambda: all(app.tree.model.nodes[node_id(app, p.strip("/"))].stats.url_count
                                      for p in SITEMAPS[1:]), what="every sitemap fetched")
    await settle(app, pilot)


async def url_rows(app: Any, pilot: Any) -> list[tuple[str, str | None, int]]:
    """The URL table's rows for the whole exploration (the root selected, tab 5)."""
    await select(app, pilot, app.tree.model.roots()[0])
    await pilot.press("5")
    table = app.url_table
    await wait_for(pilot, lambda: app._active_tab() == "urls" and table.grid.total == 6, what="the URL table")
    await wait_for(pilot, lambda: all(r is not None for r in [table.grid.row_at(i) for i in range(6)]), what="rows")
    rows = [table.grid.row_at(i) for i in range(6)]
    return sorted((r.loc, r.lastmod_raw, r.n_issues) for r in rows)


def explorer(make_app: Any, site: Site, db: Path, *, refetch: bool = True) -> Any:
    return make_app(f"{site.base}/index.xml", db_path=db, options=ExploreOptions(now=FIXED_NOW, refetch=refetch))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_second_exploration_gets_304s_shows_unchanged_and_the_same_urls(site, make_app, size) -> None:
    first_db, second_db = kept("20261125-140200"), kept("20261125-150000")
    app = explorer(make_app, site, first_db)
    async with app.run_test(size=size) as pilot:
        await explore_all(app, pilot)
        first_rows = await url_rows(app, pilot)
    assert sent(site) == 4 and not conditional(site)  # nothing to ask against the first time

    app = explorer(make_app, site, second_db)
    async with app.run_test(size=size) as pilot:
        notes = capture_notes(app)
        await explore_all(app, pilot)
        assert sent(site) == 4  # not one body more: every file answered 304
        asked = conditional(site)
        assert set(asked) == set(SITEMAPS)
        assert asked["/a.xml"][0] == site.files["/a.xml"][1]  # the ETag as If-None-Match
        assert asked["/c.xml"] == (None, site.files["/c.xml"][2])  # Last-Modified alone
        assert await url_rows(app, pilot) == first_rows
        with closing(Store(first_db, readonly=True)) as old:
            started = old.get_meta("started")
        since = f"{started[:10]} {started[11:16]} UTC"
        await wait_for(pilot, lambda: any("4 files unchanged since" in n for n in notes), what="the carried notice")
        assert any(f"4 files unchanged since {since}: their URLs were copied from that exploration" in n
                   for n in notes), notes

        await pilot.press("1")
        await select(app, pilot, node_id(app, "a.xml"))
        await wait_for(pilot, lambda: "Unchanged since" in screen_text(app), what="the Overview line")
        overview = static_text(app.query_one("#ov-summary"), width=200)
        assert f"Unchanged since {since} (304 Not Modified): its URLs were copied from that exploration" in overview
        text = screen_text(app)
        assert f"Unchanged since {since}" in text  # on screen, 80 columns wide too
        assert "a.xml  3 URLs 304" in app.tree.label_for(node_id(app, "a.xml")).plain
        assert "a.xml  3 URLs 304" in text  # the tree's mark fits, 80 columns wide too
    app = make_app(None, db_path=second_db)  # reopened offline: the marks come from the store
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        assert "a.xml  3 URLs 304" in app.tree.label_for(node_id(app, "a.xml")).plain
    # the new exploration keeps its own rows (the first one's store is not written)
    with closing(Store(second_db, readonly=True)) as new, closing(Store(first_db, readonly=True)) as old:
        assert new.get_meta("checks") == "all"
        assert sorted(n.stats.unchanged_since is not None for n in new.nodes() if n.url.endswith(SITEMAPS)) == [True] * 4
        assert all(n.stats.unchanged_since is None for n in old.nodes())
        assert new.conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 6


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_no_cache_sends_no_validators(site, make_app, size) -> None:
    app = explorer(make_app, site, kept("20261125-140200"))
    async with app.run_test(size=size) as pilot:
        await explore_all(app, pilot)
    app = explorer(make_app, site, kept("20261125-150000"), refetch=False)  # --no-cache
    async with app.run_test(size=size) as pilot:
        await explore_all(app, pilot)
        assert not conditional(site)
        assert sent(site) == 8
        assert "304" not in app.tree.label_for(node_id(app, "a.xml")).plain


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_reload_and_refetch_of_a_carried_file_fetch_the_servers_file(site, make_app, size) -> None:
    app = explorer(make_app, site, kept("20261125-140200"))
    async with app.run_test(size=size) as pilot:
        await explore_all(app, pilot)
    app = explorer(make_app, site, kept("20261125-150000"))
    async with app.run_test(size=size) as pilot:
        notes = capture_notes(app)
        await explore_all(app, pilot)
        a = node_id(app, "a.xml")
        await select(app, pilot, a)
        # unchanged on the server: r asks with the carried validators, the copy stays
        await pilot.press("r")
        await wait_for(pilot, lambda: any("not modified since the last fetch" in n for n in notes), what="the 304 notice")
        assert site.bodies["/a.xml"] == 1 and app.tree.model.nodes[a].stats.unchanged_since
        # changed on the server: r fetches it in full, and it is no longer "unchanged"
        site.put("/a.xml", urlset(site.base, ["a1", "a4"]))
        await pilot.press("r")
        # (the probe's 200 counts as a body too: the server sent it)
        await wait_for(pilot, lambda: site.bodies["/a.xml"] >= 2, what="a.xml fetched again")
        await settle(app, pilot)
        a = node_id(app, "a.xml")
        await wait_for(pilot, lambda: app.tree.model.nodes[a].stats.url_count == 2, what="the new a.xml")
        assert app.tree.model.nodes[a].stats.unchanged_since is None
        assert "304" not in app.tree.label_for(a).plain
        await select(app, pilot, a)
        assert "Unchanged since" not in screen_text(app)
        # R on the carried index fetches it unconditionally: never the previous exploration's
        # copy again; no setting changes (found from outside: the README named f, which turned
        # on following other hosts)
        index = node_id(app, "index.xml")
        await select(app, pilot, index)
        await pilot.press("R")
        await wait_for(pilot, lambda: site.bodies["/index.xml"] >= 2, what="the index fetched in full")
        await settle(app, pilot)
        assert app.tree.model.nodes[node_id(app, "index.xml")].stats.unchanged_since is None
        assert not app.following_hosts() and any("again in full" in n for n in notes), notes
        db = app.db_path
    with closing(Store(db, readonly=True)) as store:
        since = dict(store.conn.execute("SELECT url, unchanged_since FROM nodes"))
        assert since[f"{site.base}/a.xml"] is None and since[f"{site.base}/index.xml"] is None


async def test_a_file_that_answers_304_keeps_its_source_lines(site, make_app) -> None:
    """Found from outside: after any earlier run the explorer asked conditionally, and a 304
    kept an empty body: every issue's source view said "line 5 is past the end of the cached
    body". A file is asked conditionally only when the earlier exploration kept its body, which
    a 304 then carries: a headless run kept none, so the explorer after it fetches in full; the
    explorer after that one gets 304s and shows the same lines."""
    from test_refetch import run

    from sitemap_tui.engine.bodycache import bodies_beside, read_lines

    target = f"{site.base}/index.xml"
    code, _, err = await asyncio.to_thread(run, "validate", target, "--format", "json")  # (its own loop)
    assert code in (0, 1) and sent(site) == 4, err
    first_db, second_db = kept("20991231-000000"), kept("20991231-000100")  # both newer than the headless run
    lines: dict[str, list[tuple[int, bytes]]] = {}
    for db, fetched in ((first_db, 8), (second_db, 8)):
        app = explorer(make_app, site, db)
        async with app.run_test(size=(80, 24)) as pilot:
            await explore_all(app, pilot)
            ids = {p: node_id(app, p.strip("/")) for p in SITEMAPS}
        assert sent(site) == fetched, "the first explorer fetches in full, the second gets 304s"
        got = {p: read_lines(bodies_beside(db), i, 2, context=1) for p, i in ids.items()}
        assert all(got.values()), got
        assert lines.setdefault("first", got) == got  # the carried bodies are the fetched ones
    assert set(conditional(site)) == set(SITEMAPS)  # asked so by the second explorer alone

"""A file fetched again (r) makes the whole-tree results out of date (its rows are new): the
cross-file issues named its old copy, on other files too, and the crawler-access table had not
judged its new rows. Found by a review: after r, "listed with a different lastmod" stayed,
quoting the old value, the duplicates on the other file dropped to half, and the Overview's
crawler matrix counted 20 of 26 URLs. Driven with real keys against a site on 127.0.0.1."""

from __future__ import annotations

import re
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from app_helpers import FIXED_NOW, capture_notes, select, settle, wait_for, wait_started
from test_refetch import NS, Site

from sitemap_tui.engine.access import DEFAULT_AGENTS
from sitemap_tui.engine.explorer import ExploreOptions
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.access import AccessTable

SIZES = [(200, 50), (80, 24)]


def urlset(base: str, rows: list[tuple[str, str]]) -> str:
    body = "".join(f"<url><loc>{base}/{p}</loc><lastmod>{d}</lastmod></url>" for p, d in rows)
    return f'<?xml version="1.0"?>\n<urlset {NS}>{body}</urlset>\n'


@pytest.fixture()
def site(httpserver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Site:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    base = httpserver.url_for("").rstrip("/")
    s = Site(base)
    s.put("/robots.txt", "User-agent: *\nDisallow: /private/\n")
    s.put("/index.xml", f'<?xml version="1.0"?>\n<sitemapindex {NS}>'
          + "".join(f"<sitemap><loc>{base}/{p}</loc></sitemap>" for p in ("a.xml", "b.xml")) + "</sitemapindex>\n")
    s.put("/a.xml", urlset(base, [("dup", "2020-06-05"), ("same", "2024-01-01"), ("a1", "2024-01-01")]))
    s.put("/b.xml", urlset(base, [("dup", "2024-01-10"), ("same", "2024-01-01"), ("private/b1", "2024-01-01")]))
    httpserver.expect_request(re.compile(".*")).respond_with_handler(s.handle)
    return s


def rules(db: Path) -> dict[str, int]:
    with closing(Store(db, readonly=True)) as store:
        return {rule: n for rule, _, n in store.rule_counts()}


def access(db: Path) -> tuple[int, int]:
    """(URLs the Overview's matrix counts, URLs listed)."""
    with closing(Store(db, readonly=True)) as store:
        counts = AccessTable(store.conn).counts(DEFAULT_AGENTS)
        listed = store.conn.execute("SELECT count(*) FROM entries").fetchone()[0]
        return counts.urls, listed


def node_id(app: Any, name: str) -> int:
    return next(i for i, n in app.tree.model.nodes.items() if n.url.endswith("/" + name))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_reload_of_a_changed_file_checks_across_files_again(site, make_app, tmp_path, size) -> None:
    db = tmp_path / "x.db"
    app = make_app(f"{site.base}/index.xml", db_path=db, options=ExploreOptions(now=FIXED_NOW))
    async with app.run_test(size=size) as pilot:
        notes = capture_notes(app)
        await wait_started(app, pilot)
        await pilot.press("e")  # expand all: the cross-file checks and crawler access run by themselves
        await wait_for(pilot, lambda: any("Crawler access computed" in n for n in notes), what="crawler access")
        await settle(app, pilot)
        before = rules(db)
        assert before["cross-duplicate-conflicting"] == 1 and before["cross-duplicate-url"] == 2, before
        assert access(db) == (6, 6)

        # the conflict is mended in b.xml; the duplicates stay
        site.put("/b.xml", urlset(site.base, [("dup", "2020-06-05"), ("same", "2024-01-01"),
                                              ("private/b1", "2024-01-01")]))
        await select(app, pilot, node_id(app, "b.xml"))
        notes.clear()
        await pilot.press("r")
        await wait_for(pilot, lambda: any("Cross-file checks done" in n for n in notes), what=f"the checks again {notes}")
        await wait_for(pilot, lambda: any("Crawler access computed" in n for n in notes), what="access again")
        await settle(app, pilot)
        assert any("b.xml fetched again: checking across files again" in n for n in notes), notes
        after = rules(db)
        assert "cross-duplicate-conflicting" not in after, after
        assert after["cross-duplicate-url"] == 2, after
        assert access(db) == (6, 6)  # b.xml's new rows judged too


async def test_reload_on_a_large_set_drops_the_cross_file_issues_and_says_k(site, make_app, tmp_path,
                                                                            monkeypatch) -> None:
    """Over the size whose checks run by themselves, the issues that spoke of the old copy are
    dropped (none is left to read as current, nor copied by a later exploration) and k is named."""
    from sitemap_tui.engine.store.carry import CROSSFILE_KEY
    from sitemap_tui.tui import app_engine

    db = tmp_path / "x.db"
    app = make_app(f"{site.base}/index.xml", db_path=db, options=ExploreOptions(now=FIXED_NOW))
    async with app.run_test(size=(80, 24)) as pilot:
        notes = capture_notes(app)
        await wait_started(app, pilot)
        await pilot.press("e")
        await wait_for(pilot, lambda: any("Crawler access computed" in n for n in notes), what="crawler access")
        await settle(app, pilot)
        assert rules(db)["cross-duplicate-url"] == 2
        monkeypatch.setattr(app_engine, "AUTO_CROSSFILE_URLS", 5)
        site.put("/a.xml", urlset(site.base, [("dup", "2024-01-10"), ("same", "2024-01-01"), ("a2", "2024-01-01")]))
        await select(app, pilot, node_id(app, "a.xml"))
        notes.clear()
        await pilot.press("r")
        await wait_for(pilot, lambda: any("k checks across files again" in n for n in notes), what=f"the note {notes}")
        await settle(app, pilot)
        assert any("a.xml fetched again: the cross-file issues, found before, were dropped" in n for n in notes)
        after = rules(db)
        assert not {"cross-duplicate-url", "cross-duplicate-conflicting"} & set(after), after
        with closing(Store(db, readonly=True)) as store:
            assert store.get_meta(CROSSFILE_KEY) is None
        # a run cancelled now keeps nothing "earlier": they were dropped (found by a review)
        from sitemap_tui.tui.messages import CommandDone

        app.post_message(CommandDone("crossfile", None, "cancelled"))
        await wait_for(pilot, lambda: any("Cross-file checks cancelled" in n for n in notes), what="the cancel")
        assert any("their issues were dropped when a.xml was fetched again: k checks across files again" in n
                   for n in notes), notes
        await pilot.press("k")
        await wait_for(pilot, lambda: any("Cross-file checks done" in n for n in notes), what="k's checks")
        await settle(app, pilot)
        assert rules(db)["cross-duplicate-url"] == 2

"""The explorer on a store that ``sitemap-tui audit --crawl N --compare-list FILE`` filled
(issue 22 §3), driven with real keys at 200x50 and 80x24: the Overview's "Coverage" rows count
the pages missing from the sitemaps, the orphans and the URLs not in the user's list; Enter on
each lists exactly those URLs (the missing pages as rows of no sitemap, marked and explained in
the detail panel), and the same words typed into the filter bar list the same rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from app_helpers import settle, wait_for, wait_started
from pytest_httpserver import HTTPServer
from test_app_audit import drill, group_filters, groups
from test_app_export import export_now, open_export
from test_coverage import audit, coverage_site
from textual.widgets import Static
from urltui_helpers import grid_lines

from sitemap_tui.tui.state import ExportPrefs, save_export_prefs
from sitemap_tui.tui.widgets.url_table.grid import SORT_ORDER

SIZES = [(200, 50), (80, 24)]
MISSING = ["/from-list", "/unlisted", "/deep/1", "/deep/2", "/deep/3", "/deep/4"]


@pytest.fixture()
def covered(threaded_httpserver: HTTPServer, tmp_path: Path) -> tuple[Path, str]:
    """A store of a headless audit with a link crawl and a URL list; the site's origin."""
    target = coverage_site(threaded_httpserver)
    base = threaded_httpserver.url_for("").rstrip("/")
    listing = tmp_path / "urls.txt"
    listing.write_text(f"{base}/a\n{base}/from-list\n{base}/b\n")
    db = tmp_path / "site.db"
    code, _, err = audit(target, "--crawl", "100", "--compare-list", str(listing), "--db", str(db))
    assert code == 0, err
    return db, base


async def shown(app: Any, pilot: Any) -> list[str]:
    """The URL table's rows once it has read them, as drawn."""
    grid = app.url_table.grid
    await wait_for(pilot, lambda: grid.total is not None and not grid.scanning and not grid.pages_loading)
    await pilot.pause()
    return [line for line in grid_lines(grid) if line.strip()][: grid.total]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_overview_coverage_rows_drill_and_the_words_filter(covered, make_app, size) -> None:
    db, base = covered
    app = make_app(None, db_path=db)  # as `sitemap-tui open FILE.db`
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        await pilot.press("1")
        await wait_for(pilot, lambda: "coverage:missing" in group_filters(app), what="the Coverage rows")
        labels = {r.filter_text: " ".join(r.label.plain.split()) for r in groups(app).rows if r.filter_text}
        assert labels["coverage:missing"] == "Missing from sitemaps 6"
        assert labels["orphan:yes"] == "Orphans 2"
        assert labels["coverage:not-in-list"] == "Not in your list 3"
        heads = [r.label.plain for r in groups(app).rows if r.filter_text is None]
        assert any(h.startswith("Coverage") and "link crawl and URL list" in h for h in heads), heads

        await drill(app, pilot, "coverage:missing")
        lines = await shown(app, pilot)
        assert len(lines) == 6 and all(line.startswith("+ ") for line in lines), lines
        # their own fetch's verdict: 200, indexable (that is why they are missing)
        assert all(" 200 " in line and " yes" in line for line in lines), lines
        assert sorted(line[2:].split()[0] for line in lines) == sorted(MISSING)
        if size[0] >= 200:  # the Reason column says what these rows are
            assert all("in no sitemap" in line for line in lines), lines
        status = str(app.url_table.query_one("#url-status", Static).render())
        assert "6 rows" in status and "+ in no sitemap" in status, status
        await pilot.press("enter")  # the detail panel of the first row
        body = str(app.url_table.query_one("#url-detail-body", Static).render())
        assert "Not in any sitemap:" in body and "An indexable page no sitemap lists" in body, body
        assert "content type: text/html" in body, body  # the fetch's own facts, as a listed page's
        await pilot.press("escape")

        await drill(app, pilot, "orphan:yes")
        lines = await shown(app, pilot)
        assert sorted(line[2:].split()[0] for line in lines) == ["/orphan", "/secret/listed"], lines
        assert not any(line.startswith("+ ") for line in lines)  # entries of a sitemap

        await drill(app, pilot, "coverage:not-in-list")
        assert len(await shown(app, pilot)) == 3

        # typed: the words narrow like any other (a substring on top of coverage:missing)
        table = app.url_table
        table.grid.focus()
        await pilot.press("slash")
        table.query_one("#url-filter").value = ""
        await pilot.press(*"coverage:missing deep", "enter")
        lines = await shown(app, pilot)
        assert sorted(line[2:].split()[0] for line in lines) == MISSING[2:], lines
        await settle(app, pilot)


def column_starts(head: str, titles: list[str]) -> dict[str, int]:
    return {t: head.index(t) for t in titles if t in head}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_audit_columns_in_the_explorer_fit_and_line_up(covered, make_app, size) -> None:
    """The URL tab (5) of an audited site beside the tree: at 200x50 Status, Idx, Reason and
    Canonical (and Time), at 80x24 Status and Idx; every cell starts under its title."""
    db, _ = covered
    app = make_app(None, db_path=db)
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        await pilot.press("5")
        table = app.url_table
        lines = await shown(app, pilot)
        head = str(table.query_one("#url-header", Static).render())
        wide = ["Status", "Idx", "Reason", "Canon", "Time"] if size[0] >= 200 else ["Status", "Idx"]
        starts = column_starts(head, ["Status", "Idx", "Indexable", "Reason", "Canon", "Time", "Blocked"])
        for title in wide:
            assert title in starts or (title == "Idx" and "Indexable" in starts), head
        if size[0] < 200:
            assert "Reason" not in head, head
        rows = {line[2:].split()[0]: line for line in lines}
        orphan, blocked = rows["/orphan"], rows["/secret/listed"]
        for title, at in starts.items():
            if title in ("Canon", "Blocked"):  # (empty here: no canonical, no crawler shut out)
                continue
            # the row's cell starts where its title does: the cell before it ends one blank earlier
            assert orphan[at] != " " and orphan[at - 1] == " ", (title, head, orphan)
        idx = starts.get("Idx", starts.get("Indexable"))
        assert orphan[idx:].startswith("yes ") and blocked[idx:].startswith("no "), (head, orphan, blocked)
        assert orphan[starts["Status"]:].startswith("200 ")
        if "Reason" in starts:
            assert blocked[starts["Reason"]:].startswith("blocked by robo"), blocked


async def sort_to(app: Any, pilot: Any, sort: str) -> None:
    """``s`` until the table sorts by ``sort`` (as a user steps through the columns)."""
    grid = app.url_table.grid
    for _ in range(len(SORT_ORDER) + 8):
        if grid.sort == sort and not grid.indexing:
            return
        await pilot.press("s")
        await settle(app, pilot)
    raise AssertionError(f"s never sorted by {sort}: {grid.sort}")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_marked_missing_pages_export_exactly_and_sort_on_audit_columns(covered, make_app, tmp_path, size):
    """Pages of no sitemap are pseudo-rows (negative ids, coverage_filters.MISSING_SOURCE): a
    few of them marked with space were exported as nothing (the marks became a plain id list
    read from ``entries``), and ``s`` onto an audit column was a "bad filter" error."""
    db, base = covered
    out = tmp_path / "out"
    out.mkdir()
    save_export_prefs(ExportPrefs(directory=str(out)))
    app = make_app(None, db_path=db)
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        await drill(app, pilot, "coverage:missing")
        assert len(await shown(app, pilot)) == 6
        grid = app.url_table.grid
        grid.focus()
        await pilot.press("home", "space", "down", "down", "space")
        picked = [grid.row_at(0).loc, grid.row_at(2).loc]
        assert grid.marked_count == 2
        screen = await open_export(app, pilot)
        assert screen.scope == "marked rows"
        await wait_for(pilot, lambda: "2 URLs" in str(screen.query_one("#export-count").render()), what="the count")
        path = await export_now(app, pilot, screen)
        assert path.read_text().splitlines() == picked  # exactly the marked rows, in the table's order
        path.unlink()

        # s steps onto the audit columns: they sort these rows too (by their own fetch's verdict;
        # what they have none of, as canonical, sorts them as unknown: in table order)
        grid.focus()
        for sort in ("status", "reason", "canonical"):
            await sort_to(app, pilot, sort)
            lines = await shown(app, pilot)
            assert grid.store_error is None and len(lines) == 6, (sort, grid.store_error)
            assert "bad filter" not in str(app.url_table.query_one("#url-status", Static).render())
            if size[0] >= 200:  # (at 80 columns the URL column cuts the drawn paths short)
                assert sorted(line[2:].split()[0] for line in lines) == sorted(MISSING), lines

        # a listed URL marked beside them (another filter): the export holds both kinds
        await drill(app, pilot, "orphan:yes")
        await shown(app, pilot)
        grid.focus()
        await pilot.press("home", "space")
        orphan = grid.row_at(0).loc
        screen = await open_export(app, pilot)
        assert screen.scope == "marked rows"
        await wait_for(pilot, lambda: "3 URLs" in str(screen.query_one("#export-count").render()), what="the count")
        path = await export_now(app, pilot, screen)
        assert sorted(path.read_text().splitlines()) == sorted([*picked, orphan])

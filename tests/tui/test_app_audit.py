"""The explorer's audit (issue 22 §2, §4), driven with real key presses on a 127.0.0.1 site at
200x50 and 80x24: "Audit URLs of this node…" from the palette, the Overview's Indexability and
Crawler access sections, Enter on their rows (the URL table receives the filter words of
STATUS.md), and an audit cancelled (x) half-way that a second run (u) finishes without fetching
again what the first one stored."""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

import pytest
from app_helpers import (
    FIXED_NOW,
    capture_notes,
    screen_text,
    settle,
    static_text,
    wait_for,
    wait_started,
)
from pytest_httpserver import HTTPServer
from test_app_drill import filter_input
from test_app_focus import active_tab
from textual.widgets import Input, Static
from werkzeug import Request, Response

from sitemap_tui.engine.explorer import ExploreOptions
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.audit import audited
from sitemap_tui.tui.widgets.drill_list import DrillList
from sitemap_tui.tui.widgets.overview import OverviewPane

SIZES = [(200, 50), (80, 24)]
sizes = pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
ROBOTS = "User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\n"
HTML = "<html><head><title>{t}</title>{extra}</head><body>{t}</body></html>"


def _sitemap(base: str, paths: list[str]) -> str:
    urls = "".join(f"<url><loc>{base}{p}</loc></url>" for p in paths)
    return f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'


def serve_site(httpserver: HTTPServer) -> str:
    """A site with one page for each verdict and a robots.txt that shuts GPTBot out."""
    base = httpserver.url_for("").rstrip("/")
    httpserver.expect_request("/robots.txt").respond_with_data(
        ROBOTS + f"Sitemap: {base}/sitemap.xml\n", content_type="text/plain")
    httpserver.expect_request("/sitemap.xml").respond_with_data(
        _sitemap(base, ["/ok", "/gone", "/moved", "/hidden"]), content_type="application/xml")
    httpserver.expect_request("/ok").respond_with_data(HTML.format(t="ok", extra=""), content_type="text/html")
    httpserver.expect_request("/hidden").respond_with_data(
        HTML.format(t="hidden", extra='<meta name="robots" content="noindex">'), content_type="text/html")
    httpserver.expect_request("/moved").respond_with_response(Response("", status=301, headers={"Location": f"{base}/ok"}))
    # /gone: the tests' server answers 404 for what nobody set up (tests/conftest.py)
    return base + "/"


def groups(app: Any) -> DrillList:
    return app.query_one(OverviewPane).groups


def group_filters(app: Any) -> list[str]:
    return [r.filter_text for r in groups(app).rows if r.filter_text is not None]


async def expanded(app: Any, pilot: Any) -> int:
    """The site opened and expanded (e); the sitemap's node id."""
    await wait_started(app, pilot)
    await pilot.press("e")
    await wait_for(pilot, lambda: any(n.url.endswith("/sitemap.xml") and n.stats.url_count
                                      for n in app.tree.model.nodes.values()), what="the sitemap")
    await wait_for(pilot, lambda: not app.work_running(), what="the expand-all and its checks", timeout=60)
    await settle(app, pilot)
    return next(i for i, n in app.tree.model.nodes.items() if n.url.endswith("/sitemap.xml"))


async def palette_run(app: Any, pilot: Any, name: str) -> None:
    """Ctrl+P, type the command's name, Enter: as a user runs a command."""
    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: app.screen.query("CommandInput"), what="the palette")
    await pilot.press(*name)
    await wait_for(pilot, lambda: app.screen.query("CommandList") and app.screen.query_one("CommandList").option_count,
                   what=f"the palette's hit for {name}")
    await pilot.press("enter")


async def confirm_audit(app: Any, pilot: Any) -> None:
    await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", what="the audit's question")
    ended = app.jobs.audits_ended
    await pilot.press("y")
    # (unpaced, on the tests' server, an audit may end before a poll sees it run)
    await wait_for(pilot, lambda: app.jobs.audit is not None or app.jobs.audits_ended > ended,
                   what="the audit to start")


async def audit_question(app: Any, pilot: Any) -> None:
    """The site expanded, its sitemap selected and u pressed: the audit's question on screen."""
    sitemap = await expanded(app, pilot)
    assert app.tree.reveal(sitemap)
    await wait_for(pilot, lambda: app.selected_id == sitemap, what="the sitemap selected")
    await pilot.press("u")
    await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", what="the audit's question")
    await pilot.pause()


async def drill(app: Any, pilot: Any, filter_text: str) -> None:
    """Overview (1), the cursor on the row of ``filter_text``, Enter: the URL table gets it."""
    await pilot.press("0", "1")
    await settle(app, pilot)
    rows = groups(app)
    rows.focus()
    await pilot.pause()
    assert rows.select_filter(filter_text), group_filters(app)
    await pilot.press("enter")
    await wait_for(pilot, lambda: active_tab(app) == "urls" and filter_input(app).value == filter_text,
                   what=f"the URL table on {filter_text}")
    assert isinstance(filter_input(app), Input)


@sizes
async def test_audit_from_the_palette_fills_the_overview_and_its_rows_drill(httpserver: HTTPServer, make_app, size):
    app = make_app(serve_site(httpserver))
    async with app.run_test(size=size) as pilot:
        notes = capture_notes(app)
        sitemap = await expanded(app, pilot)
        # the crawler access was computed by itself after the expand-all, and said so
        await wait_for(pilot, lambda: any(n.startswith("Crawler access computed") for n in notes),
                       what="the automatic crawler access", timeout=60)
        assert app.tree.reveal(sitemap)
        await wait_for(pilot, lambda: app.selected_id == sitemap, what="the sitemap selected")
        await settle(app, pilot)
        assert "blocked:GPTBot" in group_filters(app)
        assert not any(f.startswith("indexable:") for f in group_filters(app))  # no audit yet
        await palette_run(app, pilot, "Audit URLs of this node")
        await confirm_audit(app, pilot)
        await wait_for(pilot, lambda: app.jobs.audit is None, what="the audit to end", timeout=60)
        assert any(n.startswith("Audit done: 4 URLs fetched") for n in notes), notes
        await settle(app, pilot)
        filters = group_filters(app)
        for word in ("indexable:yes", "indexable:no", "reason:404", "reason:redirect", "reason:noindex",
                     "blocked:GPTBot", "allowed:Googlebot"):
            assert word in filters, (word, filters)
        labels = [r.label.plain for r in groups(app).rows]
        assert any(line.startswith("Indexability") and "4 of 4 listed URLs audited" in line for line in labels), labels
        counts = {r.filter_text: r.label.plain.split() for r in groups(app).rows if r.filter_text}
        assert counts["indexable:yes"][1] == "1" and counts["indexable:no"][1] == "3", counts
        assert counts["blocked:GPTBot"][-1] == "4" and counts["allowed:Googlebot"][-2] == "4", counts
        await drill(app, pilot, "reason:noindex")
        await drill(app, pilot, "blocked:GPTBot")
        await drill(app, pilot, "reason:404")


def serve_slow_site(httpserver: HTTPServer, release: threading.Event, pages: int, quick: int) -> str:
    """``pages`` pages listed; all but the first ``quick`` wait for ``release`` before answering."""
    base = httpserver.url_for("").rstrip("/")
    httpserver.expect_request("/robots.txt").respond_with_data(
        f"User-agent: *\nDisallow:\nSitemap: {base}/sitemap.xml\n", content_type="text/plain")
    httpserver.expect_request("/sitemap.xml").respond_with_data(
        _sitemap(base, [f"/p{i}" for i in range(pages)]), content_type="application/xml")

    def page(request: Request) -> Response:
        if int(request.path[2:]) >= quick:
            release.wait(30)
        return Response(HTML.format(t=request.path, extra=""), content_type="text/html")

    for i in range(pages):
        httpserver.expect_request(f"/p{i}").respond_with_handler(page)
    return base + "/"


def fetched_pages(httpserver: HTTPServer) -> list[str]:
    return [req.path for req, _ in httpserver.log if req.path.startswith("/p")]


@sizes
async def test_a_cancelled_audit_keeps_its_results_and_u_goes_on(httpserver: HTTPServer, make_app, size):
    release = threading.Event()
    pages, quick = 12, 3
    app = make_app(serve_slow_site(httpserver, release, pages, quick))
    try:
        async with app.run_test(size=size) as pilot:
            notes = capture_notes(app)
            sitemap = await expanded(app, pilot)
            assert app.tree.reveal(sitemap)
            await wait_for(pilot, lambda: app.selected_id == sitemap, what="the sitemap selected")
            await pilot.press("u")
            await confirm_audit(app, pilot)
            await wait_for(pilot, lambda: app.jobs.audit is not None and app.jobs.audit[1] == pages,
                           what="the audit's progress")
            await wait_for(pilot, lambda: len(fetched_pages(httpserver)) >= quick, what="the quick pages")
            assert "auditing" in static_text(app.query_one("#header"), size[0])
            await pilot.press("x")
            await wait_for(pilot, lambda: app.jobs.audit is None, what="the cancel", timeout=60)
            assert any(n.startswith("Audit cancelled") for n in notes), notes
            store = Store(app.db_path, readonly=True)
            try:
                kept = {loc.rsplit("/", 1)[-1] for (loc,) in store.conn.execute("SELECT loc FROM audit")}
                assert audited(store) == len(kept)
            finally:
                store.conn.close()
            # the held pages had no answer: not kept; the answered ones are (unless the cancel
            # came between their answer and its reading, on a loaded machine: then fetched again)
            assert len(kept) < pages and all(int(p[1:]) < quick for p in kept), kept
            release.set()
            await pilot.press("u")
            await confirm_audit(app, pilot)
            await wait_for(pilot, lambda: app.jobs.audit is None, what="the second audit", timeout=60)
            assert any(n.startswith(f"Audit done: {pages - len(kept)} URLs fetched") for n in notes), notes
            asked = Counter(p.lstrip("/") for p in fetched_pages(httpserver))
            assert all(asked[p] == 1 for p in kept), asked  # none kept was asked again
            await settle(app, pilot)
            labels = [r.label.plain for r in groups(app).rows]
            assert any(f"{pages} of {pages} listed URLs audited" in line for line in labels), labels
    finally:
        release.set()


async def test_the_audits_question_says_its_keys_and_the_arrows_reach_the_buttons(httpserver: HTTPServer, make_app):
    """Tried in tmux at 80x24: u, then Right and Enter, answered No (Enter pressed the focused
    button; the arrows moved nothing) and nothing said which keys the question takes."""
    app = make_app(serve_site(httpserver))
    async with app.run_test(size=(80, 24)) as pilot:
        notes = capture_notes(app)
        await audit_question(app, pilot)
        assert "y: Audit · n or escape: No" in screen_text(app)
        # the header counts distinct URLs, fewer than listed: the question counts listings as such
        # (found from outside: "Fetch the 436 listed URLs", then "auditing 12/420 URLs")
        text = " ".join(screen_text(app).replace("█", " ").split())
        assert "(4 listings: a URL listed twice is one request)" in text and "listed URLs" not in text, text
        await pilot.press("enter")  # the focused button is No: nothing is fetched
        await wait_for(pilot, lambda: type(app.screen).__name__ != "ConfirmScreen", what="the question to close")
        assert app.jobs.audit is None
        await pilot.press("u")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", what="the audit's question")
        await pilot.press("right", "enter")
        await wait_for(pilot, lambda: any(n.startswith("Audit done") for n in notes), what="the audit", timeout=60)
        assert sum(n.startswith("Audit done") for n in notes) == 1, notes  # the first Enter started none


@pytest.mark.parametrize("rate", [0.0, 2.0])
async def test_the_explorers_rate_paces_its_audit_and_the_question_says_it(httpserver: HTTPServer, make_app,
                                                                           rate: float):
    """`sitemap-tui TARGET --rate R` (ExploreOptions.page_rate): the audit's question says the
    pace and the pages are asked at it; 0, for one's own server, says there is no limit."""
    base = httpserver.url_for("").rstrip("/")
    paths = [f"/p{i}" for i in range(4)]
    asked: list[float] = []

    def page(request: Request) -> Response:
        asked.append(time.monotonic())
        return Response(HTML.format(t="p", extra=""), content_type="text/html")

    httpserver.expect_request("/robots.txt").respond_with_data(f"Sitemap: {base}/sitemap.xml\n",
                                                              content_type="text/plain")
    httpserver.expect_request("/sitemap.xml").respond_with_data(_sitemap(base, paths), content_type="application/xml")
    for path in paths:
        httpserver.expect_request(path).respond_with_handler(page)
    app = make_app(base + "/", options=ExploreOptions(now=FIXED_NOW, page_rate=rate))
    async with app.run_test(size=(80, 24)) as pilot:
        notes = capture_notes(app)
        await audit_question(app, pilot)
        text = " ".join(screen_text(app).replace("█", " ").split())  # (the dialog's border apart)
        assert ("At most 2 requests/s per host" if rate else "No rate limit (--rate 0)") in text, text
        await pilot.press("y")
        await wait_for(pilot, lambda: any(n.startswith("Audit done") for n in notes), what="the audit", timeout=60)
    assert len(asked) == len(paths)
    if rate:  # one each half second at most (the first at once); the default's 5/s: 0.2 s
        gaps = [b - a for a, b in zip(asked, asked[1:], strict=False)]
        assert min(gaps) >= 0.4, gaps


async def test_a_folder_without_robots_txt_has_no_crawler_table_of_zeros(make_app, tmp_path) -> None:
    """Tried in tmux on a folder of sitemap files: the expand-all's crawler access said
    "computed: 68 listed URLs × 9 crawlers, from robots.txt" when no robots.txt had been read,
    and the Overview listed nine crawlers with 0 allowed, 0 disallowed."""
    from sitemap_tui.tui.widgets.overview import OverviewPane

    folder = tmp_path / "build"
    folder.mkdir()
    urls = "".join(f"<url><loc>https://example.com/p{i}</loc></url>" for i in range(3))
    (folder / "sitemap.xml").write_text(
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>')
    app = make_app(str(folder))
    async with app.run_test(size=(80, 24)) as pilot:
        notes = capture_notes(app)
        await wait_started(app, pilot)
        await pilot.press("E")
        await wait_for(pilot, lambda: any(n.startswith("Crawler access") for n in notes),
                       what="the automatic crawler access", timeout=60)
        said = next(n for n in notes if n.startswith("Crawler access"))
        assert "no robots.txt was read" in said and "computed" not in said, said
        await settle(app, pilot)
        pane = app.query_one(OverviewPane)
        labels = [r.label.plain for r in pane.groups.rows]
        access = [line for line in labels if line.startswith("Crawler access")]
        assert access and "3 listed URLs, all unknown: no robots.txt read" in access[0], labels
        assert not any(line.startswith("Googlebot") for line in labels), labels


@sizes
async def test_urls_robots_txt_shuts_this_tool_out_of_are_listed_from_their_own_row(
        httpserver: HTTPServer, make_app, size):
    """Found using it: "1 not fetched: robots.txt shuts sitemap-tui out" was a heading that
    listed nothing, and the URL table showed those URLs only as "–" among the rest. Their own
    row drills to status:skipped, exactly them; a mark of every row takes them alone. Here the
    audit skips every URL: no verdict is stored at all."""
    base = httpserver.url_for("").rstrip("/")
    httpserver.expect_request("/robots.txt").respond_with_data(
        f"User-agent: Googlebot\nDisallow:\n\nUser-agent: *\nDisallow: /members/\nSitemap: {base}/sitemap.xml\n",
        content_type="text/plain")
    httpserver.expect_request("/sitemap.xml").respond_with_data(
        _sitemap(base, ["/members/a", "/members/b"]), content_type="application/xml")
    app = make_app(base + "/")
    async with app.run_test(size=size) as pilot:
        sitemap = await expanded(app, pilot)
        assert app.tree.reveal(sitemap)
        await wait_for(pilot, lambda: app.selected_id == sitemap, what="the sitemap selected")
        notes = capture_notes(app)
        await palette_run(app, pilot, "Audit URLs of this node")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", what="the audit's question")
        await pilot.press("y")  # (it may end before a check of it running: nothing is fetched)
        await wait_for(pilot, lambda: app.jobs.audit is None and any(n.startswith("Audit") for n in notes),
                       what="the audit to end", timeout=60)
        await settle(app, pilot)
        counts = {r.filter_text: r.label.plain.split() for r in groups(app).rows if r.filter_text}
        assert counts.get("status:skipped") == ["skipped:", "robots.txt", "2"], counts
        await drill(app, pilot, "status:skipped")
        grid = app.url_table.grid
        await wait_for(pilot, lambda: grid.total == 2 and not grid.scanning, what="the two skipped URLs")
        assert sorted(grid.row_at(i).loc for i in range(2)) == [f"{base}/members/a", f"{base}/members/b"]
        # an audit that skipped every URL stored no verdict at all: still an audit (found by a
        # review: the status line said "no audit yet (u, …)", and u skips them again)
        assert "no audit yet" not in str(app.url_table.query_one("#url-status", Static).render())
        grid.focus()
        await pilot.press("a")
        await wait_for(pilot, lambda: grid.marked_count == 2, what="both marked")
        assert all(grid.is_marked(grid.row_at(i)) for i in range(2))
        await pilot.press("enter")  # the row's detail says why it has no verdict
        await wait_for(pilot, lambda: app.url_table.detail_open, what="the row's detail")
        detail = str(app.url_table.query_one("#url-detail-body", Static).render())
        assert "audit: not fetched: robots.txt shuts sitemap-tui out and lets Googlebot in" in " ".join(detail.split())
        # robots.txt was read: its verdict for each crawler is there (the crawler-access table)
        assert "blocked for: Bingbot, GPTBot" in " ".join(detail.split()), detail
    assert not any(req.path.startswith("/members/") for req, _ in httpserver.log)


def test_the_one_root_is_the_whole_exploration_until_a_second_root_comes() -> None:
    """What the audit (u) and the panes' selection take as "the whole exploration": an audit of
    it marks every URL's audit done; a child or a second root's node is not the whole."""
    from sitemap_tui.engine.model import Node, NodeKind
    from sitemap_tui.tui.widgets.tree_model import NodeModel

    model = NodeModel()
    model.add(Node(id=1, url="https://example.com/", kind=NodeKind.SITE))
    model.add(Node(id=2, url="https://example.com/sitemap.xml", kind=NodeKind.URLSET, parent_id=1))
    assert model.is_only_root(1) and not model.is_only_root(2) and not model.is_only_root(99)
    model.add(Node(id=3, url="https://example.org/sitemap.xml", kind=NodeKind.URLSET))
    assert not model.is_only_root(1) and not model.is_only_root(3)

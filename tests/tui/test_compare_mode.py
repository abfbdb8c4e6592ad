"""Compare mode (issue 20 §2) driven as a user drives it: two versions of a site served on
127.0.0.1 (the files swapped between runs) and explored headless; the explorer opens the later one
in compare mode (``diff OLD NEW --tui``, or "Compare with…" in the palette): the tree's badges,
the Changes tab (6), Enter on a row to the URL table filtered ``diff:...``, removed URLs shown,
Esc back."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest
from app_helpers import screen_text, settle, wait_for, wait_started

from sitemap_tui import cli
from sitemap_tui.engine.formats import records_from_rows
from sitemap_tui.engine.model import NodeState
from sitemap_tui.engine.store import EntryFilter, Store
from sitemap_tui.engine.store.diff_view import is_removed
from sitemap_tui.engine.store.exports import count_rows, ordered_rows
from sitemap_tui.engine.store.summary import read_summary
from sitemap_tui.session.recent import list_saved

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"


def urlset(base: str, *paths: str, lastmod: dict[str, str] | None = None) -> str:
    rows = "".join(f"<url><loc>{base}/{p}</loc>"
                   + (f"<lastmod>{(lastmod or {})[p]}</lastmod>" if p in (lastmod or {}) else "") + "</url>\n"
                   for p in paths)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n{rows}</urlset>\n'


def serve(httpserver, version: int, *, robots: bool = False) -> str:
    """Version 1 or 2 of the site (what was served before is cleared); returns the index URL.
    From 1 to 2: posts.xml gains post/4..post/6 and loses post/0, post/1; post/2's lastmod goes
    back; pages.xml is unchanged; old.xml (page/x) is gone."""
    httpserver.clear()
    b = httpserver.url_for("").rstrip("/")
    files = ["posts.xml", "pages.xml"] + (["old.xml"] if version == 1 else [])
    index = (f'<?xml version="1.0"?>\n<sitemapindex {NS}>\n'
             + "".join(f"<sitemap><loc>{b}/{f}</loc></sitemap>\n" for f in files) + "</sitemapindex>\n")
    posts = ["post/0", "post/1", "post/2", "post/3"] if version == 1 else ["post/2", "post/3", "post/4", "post/5", "post/6"]
    lastmod = {"post/2": "2024-05-01" if version == 1 else "2024-01-01"}
    bodies = {"/index.xml": index, "/posts.xml": urlset(b, *posts, lastmod=lastmod),
              "/pages.xml": urlset(b, "page/a", "page/b"),
              "/old.xml": urlset(b, "page/x").replace("<urlset ", f'<urlset xmlns:image="{IMAGE_NS}" ').replace(
                  "</loc></url>", f"</loc><image:image><image:loc>{b}/x.jpg</image:loc></image:image></url>")}
    for path, body in bodies.items():
        if path != "/old.xml" or version == 1:
            httpserver.expect_request(path).respond_with_data(body, content_type="application/xml")
    if robots:  # the site is the target: its robots.txt names the index
        httpserver.expect_request("/robots.txt").respond_with_data(f"Sitemap: {b}/index.xml\n")
    else:
        httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    return f"{b}/index.xml"


def headless(*args: str) -> None:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = cli.main([*args, "--workers", "0"])
    assert code == 0, err.getvalue()


@pytest.fixture
def two_versions(httpserver, tmp_path: Path) -> tuple[Path, Path]:
    old, new = tmp_path / "old.db", tmp_path / "new.db"
    target = serve(httpserver, 1)
    headless("urls", target, "--db", str(old))
    serve(httpserver, 2)
    headless("urls", target, "--db", str(new))
    return old, new


def rows_of(grid) -> list:
    return [grid.row_at(i) for i in range(grid.total)]


def flat(app) -> str:
    """The screen's text with its line breaks and runs of spaces as one space (a wrapped line),
    without the tree's border (a pane's wrapped line continues after it)."""
    return " ".join(screen_text(app).replace("▕", " ").split())


def label(app, name: str) -> str:
    nid = next(i for i, n in app.tree.model.nodes.items() if n.url.endswith("/" + name))
    return app.tree.label_for(nid).plain


@pytest.mark.parametrize("size", [(200, 50), (80, 24)])
async def test_compare_mode_badges_changes_tab_and_drill_through(two_versions, make_app, size, httpserver) -> None:
    old, new = two_versions
    app = make_app(None, db_path=new, compare_with=old)
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        await wait_for(pilot, lambda: app.comparison is not None, what="the comparison")
        c = app.comparison
        assert (c.summary["urls_added"], c.summary["urls_removed"], c.summary["lastmod_backward"]) == (3, 3, 1)
        # badges: per file, and the root's over its subtree (old.xml's listing counts there)
        assert "+3 −2 ~1 posts.xml" in label(app, "posts.xml")
        assert "+" not in label(app, "pages.xml") and "−" not in label(app, "pages.xml")
        assert "+3 −3 ~1 index.xml" in label(app, "index.xml")
        assert "+3 −3" in screen_text(app)  # the root's badge is on screen, even 80 columns wide

        await pilot.press("6")
        await wait_for(pilot, lambda: app._active_tab() == "changes", what="the Changes tab")
        # (the tab is active before its pane is drawn: seen in CI on a loaded box at 80x24)
        await wait_for(pilot, lambda: "URLs added" in screen_text(app), what="the Changes tab's rows")
        text = screen_text(app)
        assert "URLs added" in text and "URLs removed" in text
        rows = app.changes_pane.rows
        assert app.focused is rows and rows.highlighted_row.filter_text == "diff:added"

        await pilot.press("enter")
        table = app.url_table
        await wait_for(pilot, lambda: app._active_tab() == "urls" and table.grid.total == 3, what="the added URLs")
        assert table.query_one("#url-filter").value == "diff:added"
        assert sorted(r.loc.rsplit("/", 1)[-1] for r in rows_of(table.grid)) == ["4", "5", "6"]
        # "mark all" marks the rows the diff: filter lists, not the others (row_matches agrees)
        await pilot.press("a")
        everything = table.grid.store.iter_entries(EntryFilter())
        marked = sorted(r.loc.rsplit("/", 1)[-1] for r in everything if table.grid.is_marked(r))
        assert marked == ["4", "5", "6"]
        table.grid.clear_marks()  # (Esc would clear them first, before going back)

        await pilot.press("escape")
        await wait_for(pilot, lambda: app._active_tab() == "changes", what="back to the Changes tab")
        assert app.focused is rows
        # the counts no cursor takes (sitemaps, issues) come into view from the keyboard too
        # (found from outside: at 80x24 they were out of reach)
        await pilot.press("end")
        await wait_for(pilot, lambda: "resolved" in screen_text(app), what="the last counts in view")
        for _ in range(3):  # (a page into those rows kept no cursor, found by a review)
            await pilot.press("pagedown")
            await pilot.pause()
            assert rows.highlighted is not None

        rows.select_filter("diff:removed")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app._active_tab() == "urls" and table.grid.total == 3, what="the removed URLs")
        removed = rows_of(table.grid)
        assert all(is_removed(r.id) for r in removed)
        assert sorted(r.loc.rsplit("/", 1)[-1] for r in removed) == ["0", "1", "x"]
        # marked as removed in the table's gutter (once drawn: the total comes before the rows)
        await wait_for(pilot, lambda: "− " in screen_text(app), what="the removed rows drawn")
        # one removed row marked (space) is what the export and copy read: OLD's row, from the
        # comparison (an id list read from NEW's entries alone found nothing)
        await pilot.press("home", "space")
        first = table.grid.row_at(0)
        store = Store(new, readonly=True)
        try:
            assert [r.loc for r in ordered_rows(store, table.marked_filter)] == [first.loc]
            assert count_rows(store, table.marked_filter) == 1
            # exported with OLD's sitemap and extensions: page/x's file is gone from NEW (it
            # was exported under NEW's root, without its image)
            records = {r.loc.rsplit("/", 1)[-1]: r for r in records_from_rows(store, ordered_rows(store, table.grid.filter))}
            assert records["x"].sitemap.endswith("/old.xml") and records["0"].sitemap.endswith("/posts.xml")
            assert [i["loc"] for i in records["x"].images] == [httpserver.url_for("/x.jpg")]
        finally:
            store.conn.close()
        await pilot.press("enter")  # the detail of a removed row says what it is
        await wait_for(pilot, lambda: table.detail_open, what="the detail")
        await wait_for(pilot, lambda: "Removed:" in screen_text(app), what="the detail drawn")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    return tmp_path / "xdg-cache" / "sitemap-tui" / "explorations"


@pytest.fixture
def kept(httpserver, cache: Path) -> tuple[Path, Path]:
    """Both versions explored headless into the cache's history, as every headless run is kept:
    (newest, earlier)."""
    target = serve(httpserver, 1)
    headless("urls", target)
    serve(httpserver, 2)
    headless("urls", target)
    newest, earlier = (s.path for s in list_saved())
    return newest, earlier


async def history_line(app: Any, pilot: Any, earlier: Path) -> str:
    """Once the app started, its Overview's line on the site's history since ``earlier``
    (drawn on the refresh after the history is read); returns that exploration's date."""
    await wait_started(app, pilot)
    await wait_for(pilot, lambda: app.site_history is not None, what="the site's history")
    when = read_summary(earlier).started[:10]
    await wait_for(pilot, lambda: f"Site since {when}" in screen_text(app), what="the history line")
    return when


async def test_compare_with_from_the_palette_lists_the_site_s_earlier_explorations(kept, make_app) -> None:
    newest, earlier = kept
    app = make_app(None, db_path=newest, site_history=True)
    async with app.run_test(size=(80, 24)) as pilot:
        # the Overview: since the site's earlier exploration, and the URL count over its history
        when = await history_line(app, pilot, earlier)
        assert ": +3 −3 URLs" in screen_text(app)
        # (the sparkline's caption on its own line, whole at 80 columns, not "URLs   URLs over …")
        lines = screen_text(app).splitlines()
        since = next(i for i, line in enumerate(lines) if f"Site since {when}" in line)
        assert lines[since].rstrip().endswith(": +3 −3 URLs"), lines[since]
        assert "URLs over 2 explorations (7 → 7):" in lines[since + 1], lines[since + 1]
        spark = app.query_one("#ov-spark")
        assert spark.display and list(spark.data) == [7, 7]
        assert "Compare with…" in {c.name for c in app.palette_commands()}
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "CommandPalette", what="the palette")
        await pilot.press(*"compare with")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "RecentScreen", what="the list")
        screen = app.screen
        await wait_for(pilot, lambda: screen.saved is not None, what="the list to be read")
        assert [s.path for s in screen.saved] == [earlier]  # the site's other exploration, not this one
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.comparison is not None, what="the comparison")
        assert app.comparison.old == earlier
        assert app._active_tab() == "changes"
        await wait_for(pilot, lambda: "URLs added" in screen_text(app), what="the Changes tab's rows")
    # near miss: the earlier one is offered nothing newer (found from outside: it was, and its
    # changes were shown backwards as "Since" it)
    app = make_app(None, db_path=earlier)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_started(app, pilot)
        app.action_compare_with()
        await wait_for(pilot, lambda: type(app.screen).__name__ == "RecentScreen", what="the list")
        screen = app.screen
        await wait_for(pilot, lambda: screen.saved is not None, what="the list to be read")
        assert screen.saved == [] and "No earlier exploration of this site" in screen_text(app)


async def test_the_explorer_keys_its_explorations_by_site(tmp_path: Path, make_app) -> None:
    """As a headless run does (session/history.py): a local folder by its absolute path, which
    its file name ("local-STAMP.db") cannot give, so "Compare with…" finds it."""
    folder = tmp_path / "public"
    folder.mkdir()
    (folder / "sitemap.xml").write_text(urlset("https://example.com", "a"))
    db = tmp_path / "local-20260101-000000.db"
    app = make_app(str(folder), db_path=db)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_started(app, pilot)
    assert read_summary(db).site == str(folder.resolve())


@pytest.fixture
def explored_once(httpserver, cache: Path) -> str:
    """Version 1 explored headless into the cache (7 URLs); the index URL."""
    target = serve(httpserver, 1)
    headless("urls", target)
    return target


@pytest.mark.parametrize("size", [(200, 50), (80, 24)])
async def test_the_history_line_counts_a_live_exploration_once_it_is_expanded(explored_once, make_app, size) -> None:
    """The explorer expands lazily: at its first idle moment a live exploration has read the
    index alone (0 URLs); the history line is read again once the files it expands are counted,
    not left saying "7 → 0"."""
    app = make_app(explored_once, site_history=True)
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        await wait_for(pilot, lambda: app.site_history is not None, what="the first history")
        assert app.site_history.url_counts == (7, 0)
        # what the index lists is not read yet: "−7" is said as that, not as URLs removed
        await wait_for(pilot, lambda: "not read here: their URLs count as removed" in flat(app),
                       what="the unread files said")
        await pilot.press("e")
        await wait_for(pilot, lambda: app.site_history.url_counts == (7, 7), what="the history read again")
        await wait_for(pilot, lambda: ": +0 −0 URLs" in screen_text(app), what="the line redrawn")
        assert "Site since" in screen_text(app) and "not read here" not in flat(app)


@pytest.mark.parametrize("size", [(200, 50), (80, 24)])
async def test_the_history_line_leaves_out_the_same_host_on_another_port(explored_once, threaded_httpserver, make_app,
                                                                          size) -> None:
    """Another port is another site (session/history.py's key): the demo, a new port each run,
    showed "+419 −419" against its previous run, every URL differing by its port."""
    app = make_app(serve(threaded_httpserver, 1), site_history=True)
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        await wait_for(pilot, lambda: app.site_history is not None, what="the first history")
        await pilot.press("e")
        await wait_for(pilot, lambda: app.site_history.url_counts == (7,), what="the history read again")
        await settle(app, pilot)
        assert app.site_history.since is None
        assert "Site since" not in screen_text(app) and "−7" not in screen_text(app)
    assert read_summary(app.db_path).site == f"127.0.0.1:{threaded_httpserver.port}"


@pytest.fixture
def two_site_versions(httpserver, tmp_path: Path) -> tuple[Path, Path]:
    """two_versions, explored from the site (robots.txt names the index) rather than the index."""
    old, new = tmp_path / "old.db", tmp_path / "new.db"
    for version, db in ((1, old), (2, new)):
        serve(httpserver, version, robots=True)
        headless("urls", httpserver.url_for("/"), "--db", str(db))
    return old, new


async def test_a_removed_sitemaps_urls_are_listed_when_the_root_is_a_site(two_site_versions, make_app) -> None:
    """Found from outside: with a site as the target, "URLs removed (3)" opened a table of 2
    rows: a sitemap NEW no longer has files its URLs under the site's root, which the table's
    scope (the files of the subtree) left out."""
    old, new = two_site_versions
    app = make_app(None, db_path=new, compare_with=old)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_started(app, pilot)
        await wait_for(pilot, lambda: app.comparison is not None, what="the comparison")
        assert app.comparison.summary["urls_removed"] == 3
        await pilot.press("6")
        await wait_for(pilot, lambda: app._active_tab() == "changes", what="the Changes tab")
        app.changes_pane.rows.select_filter("diff:removed")
        await pilot.press("enter")
        table = app.url_table
        await wait_for(pilot, lambda: app._active_tab() == "urls" and not table.grid.scanning
                       and table.grid.total is not None and table.grid.total > 0, what="the removed URLs")
        assert sorted(r.loc.rsplit("/", 1)[-1] for r in rows_of(table.grid)) == ["0", "1", "x"]


@pytest.fixture
def first_kept(httpserver, cache: Path) -> tuple[str, Path]:
    """Version 1 explored headless into the cache, version 2 served: (the index URL, the kept one)."""
    target = serve(httpserver, 1)
    headless("urls", target)
    (earlier,) = (s.path for s in list_saved())
    serve(httpserver, 2)
    return target, earlier


async def test_a_live_exploration_that_grows_is_compared_again(first_kept, make_app) -> None:
    """Found from outside: "Compare with…" before the files were read froze the comparison (every
    URL "removed"), and it stayed so after E read them, unsaid."""
    target, earlier = first_kept
    app = make_app(target)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_started(app, pilot)
        await settle(app, pilot)
        app.start_comparison(earlier)
        await wait_for(pilot, lambda: app.comparison is not None, what="the comparison")
        assert app.comparison.summary["urls_removed"] == 7  # nothing read yet but the index
        await pilot.press("6")
        await wait_for(pilot, lambda: "not read yet" in screen_text(app), what="the unread note")
        await pilot.press("E")
        await wait_for(pilot, lambda: app.comparison is not None and app.comparison.summary["urls_removed"] == 3,
                       timeout=30, what="the comparison made again")
        assert app.comparison.summary["urls_added"] == 3
        await wait_for(pilot, lambda: "not read yet" not in screen_text(app), what="the note gone")


async def _detail_of_the_one_row(app, pilot, text: str) -> str:
    """The URL table filtered by ``text`` (one row), that row's detail as drawn."""
    table = app.url_table
    await pilot.press("slash", "ctrl+u", *text, "enter")
    await wait_for(pilot, lambda: table.grid.total == 1 and not table.grid.scanning, what=f"the row of {text}")
    table.grid.focus()
    await pilot.press("home", "enter")
    await wait_for(pilot, lambda: table.detail_open, what="the detail")
    body = str(table.query_one("#url-detail-body").render())
    await pilot.press("escape")
    return body


@pytest.mark.parametrize("size", [(200, 50), (80, 24)])
async def test_a_changed_urls_detail_says_what_it_was(two_versions, make_app, size) -> None:
    """Found from outside: in compare mode a URL whose lastmod went back showed its new date
    alone; what it was is what the user asks next. The detail says it; near miss: an
    unchanged URL says nothing of the earlier exploration."""
    old, new = two_versions
    app = make_app(None, db_path=new, compare_with=old)
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        await wait_for(pilot, lambda: app.comparison is not None, what="the comparison")
        await pilot.press("5")
        body = await _detail_of_the_one_row(app, pilot, "diff:lastmod")
        assert "lastmod: 2024-01-01" in body and "earlier: lastmod 2024-05-01" in body, body
        assert "earlier:" not in await _detail_of_the_one_row(app, pilot, "page/a")


async def test_the_history_line_of_a_target_that_could_not_be_read_compares_nothing(kept, make_app) -> None:
    """Found from outside: an unreachable https:// read "Site since …: +0 −3 URLs", as if the
    site had lost its URLs. A target that could not be read is said to be not compared."""
    newest, earlier = kept
    app = make_app(None, db_path=newest, site_history=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await history_line(app, pilot, earlier)
        # the target's node as a run that found no sitemap leaves it (found from outside: a
        # site whose robots.txt and paths stalled read "+0 −1 URLs")
        root = next(n for n in app.tree.model.nodes.values() if n.parent_id is None)
        root.error = "no sitemap found: tried robots.txt (no complete response within 3 s)"
        app._show_history(app.db_path, app.site_history)
        await pilot.pause()
        text = flat(app)
        assert "not compared, this exploration could not read the target" in text and "−3" not in text, text
        # a file not read yet (a lazy tree): said, and this exploration's count is no point of
        # the sparkline (found from outside: "URLs over 3 explorations (436 → 0)" before any
        # expansion); near miss: read whole, it is one
        root.error = None
        leaf = next(n for n in app.tree.model.nodes.values() if n.parent_id is not None)
        state, leaf.state = leaf.state, NodeState.PENDING
        app._show_history(app.db_path, app.site_history)
        await pilot.pause()
        assert "(1 file not read here" in flat(app) and not app.query_one("#ov-spark").display, flat(app)
        leaf.state = state
        app._show_history(app.db_path, app.site_history)
        await pilot.pause()
        assert list(app.query_one("#ov-spark").data) == [7, 7] and app.query_one("#ov-spark").display


@pytest.fixture
def judged_unalike(httpserver, tmp_path: Path) -> tuple[Path, Path, Path]:
    """OLD kept by `urls` (no rule run); NEW by `urls` too, and by `validate` (every rule)."""
    old, alike, new = tmp_path / "old.db", tmp_path / "alike.db", tmp_path / "new.db"
    target = serve(httpserver, 1)
    headless("urls", target, "--db", str(old))
    serve(httpserver, 2)
    headless("urls", target, "--db", str(alike))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        cli.main(["validate", target, "--db", str(new), "--workers", "0"])
    return old, alike, new


@pytest.mark.parametrize("size", [(200, 50), (80, 24)])
async def test_the_changes_tab_says_when_the_findings_do_not_compare(judged_unalike, make_app, size) -> None:
    """Found by a review: against an exploration `urls` kept (no rule run), `diff --tui` showed
    "Issues new N" as new faults, without the caveat the report gives. The near miss: two
    explorations judged alike (both by `urls`) carry none."""
    old, alike, new = judged_unalike
    for db, caveat in ((new, True), (alike, False)):
        app = make_app(None, db_path=db, compare_with=old)
        async with app.run_test(size=size) as pilot:
            await wait_started(app, pilot)
            await wait_for(pilot, lambda app=app: app.comparison is not None, what="the comparison")
            await pilot.press("6")
            await wait_for(pilot, lambda app=app: "URLs added" in screen_text(app), what="the Changes tab's rows")
            text = [r.label.plain for r in app.changes_pane.rows.rows]
            at = text.index("Issues")
            said = "not like for like: OLD was kept by `urls`, which checks no rules" in text[at + 1]
            assert said is caveat, text[at:]

"""The explorer's layout at 80 columns (issue 18 bug 2): the tree narrows below 100 columns, also
after a live resize, and keeps the user's own [ / ] width; ctrl+b hides it; z zooms the focused
pane; the Overview never cuts a word in two; the footer keeps the keys a user needs most."""

from __future__ import annotations

from typing import Any

import pytest
from app_helpers import (
    node_by_name,
    screen_text,
    select,
    settle,
    static_text,
    wait_for,
    wait_started,
)
from textual.widgets import Static

from sitemap_tui.tui.widgets.pane_tabs import PaneTabs

SIZES = [(200, 50), (80, 24)]
WIDE_TREE = 64  # what the tree took at 200 columns before, and still takes: 40% of the width, at most 64
NARROW_TREE = 28  # the most it takes below 100 columns (issue 18)


def ids(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


def tree_columns(app: Any) -> int:
    """The columns the tree takes on screen, its border included (0 when hidden)."""
    return app.tree.outer_size.width if app.tree.display else 0


def tabs(app: Any) -> PaneTabs:
    return app.query_one("#tabs", PaneTabs)


async def explored(app: Any, pilot: Any) -> None:
    """The demo site, expanded all (e) from the root, as a user starts."""
    await wait_started(app, pilot)
    await pilot.press("e")
    await settle(app, pilot)


async def resize(app: Any, pilot: Any, width: int, height: int) -> None:
    await pilot.resize_terminal(width, height)
    await pilot.pause()
    await settle(app, pilot)
    await pilot.pause()


# -- the tree's width ---------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES, ids=ids)
async def test_tree_width_at_start(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        expected = WIDE_TREE if size[0] >= 100 else NARROW_TREE
        assert tree_columns(app) == expected
        assert tabs(app).outer_size.width == size[0] - expected


async def test_tree_narrows_after_a_live_resize_and_widens_back(demo_server, make_app):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(200, 50)) as pilot:
        await explored(app, pilot)
        assert tree_columns(app) == WIDE_TREE
        await resize(app, pilot, 80, 24)
        assert tree_columns(app) == NARROW_TREE
        assert tabs(app).outer_size.width == 80 - NARROW_TREE
        await resize(app, pilot, 60, 24)
        assert tree_columns(app) <= NARROW_TREE and tabs(app).outer_size.width >= 36
        await resize(app, pilot, 200, 50)
        assert tree_columns(app) == WIDE_TREE


async def test_user_tree_width_survives_resizes(demo_server, make_app):
    """[ and ] set the width for wide or for narrow terminals; a resize within the same kind of
    terminal keeps it, and one across 100 columns takes the width the user chose for that kind."""
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_started(app, pilot)
        await pilot.press("right_square_bracket", "right_square_bracket")
        await pilot.pause()
        assert tree_columns(app) == WIDE_TREE + 8
        await resize(app, pilot, 180, 50)
        assert tree_columns(app) == WIDE_TREE + 8, "a resize undid the user's width"
        await resize(app, pilot, 80, 24)
        assert tree_columns(app) == NARROW_TREE
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert tree_columns(app) == NARROW_TREE - 4
        await resize(app, pilot, 90, 30)
        assert tree_columns(app) == NARROW_TREE - 4
        await resize(app, pilot, 200, 50)
        assert tree_columns(app) == WIDE_TREE + 8
        await resize(app, pilot, 80, 24)
        assert tree_columns(app) == NARROW_TREE - 4


# -- ctrl+b and z -------------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES, ids=ids)
async def test_ctrl_b_hides_and_shows_the_tree_from_any_pane(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        width = tree_columns(app)
        # from the tree: the tree goes, the focus goes to the pane shown
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert tree_columns(app) == 0
        assert tabs(app).outer_size.width == size[0]
        assert app.focused is not None and app.focused is not app.tree
        assert tabs(app) in app.focused.ancestors
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert tree_columns(app) == width
        # from the URL table: the table keeps the focus
        await pilot.press("5")
        await settle(app, pilot)
        grid = app.url_table.grid
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert tree_columns(app) == 0 and app.focused is grid
        # 0 (focus the tree) brings a hidden tree back
        await pilot.press("0")
        await pilot.pause()
        assert tree_columns(app) == width and app.focused is app.tree


@pytest.mark.parametrize("size", SIZES, ids=ids)
async def test_z_zooms_the_focused_pane_and_back(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        width = tree_columns(app)
        # the tree, zoomed: it takes the whole width, the panes are gone
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is app.tree
        assert app.tree.outer_size.width == size[0]
        assert "Overview" not in screen_text(app)
        assert " sitemap-tui " in screen_text(app).splitlines()[0], "the header stays"
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is None and tree_columns(app) == width
        # the URL table, zoomed: the tabs take the whole width and the pane keys keep working
        await pilot.press("5")
        await settle(app, pilot)
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is tabs(app)
        assert tabs(app).outer_size.width == size[0]
        assert app.focused is app.url_table.grid
        await pilot.press("1")
        await settle(app, pilot)
        assert tabs(app).active == "overview" and app.screen.maximized is tabs(app)
        # 0 goes to the tree: the zoom follows the focus there
        await pilot.press("0")
        await pilot.pause()
        assert app.focused is app.tree and app.screen.maximized is app.tree
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is None and tree_columns(app) == width
        assert tabs(app).outer_size.width == size[0] - width
        # found from outside: the Overview's focused scroll is no widget Textual maximizes, and z
        # (in the footer) did nothing there: its tabs zoom as the other panes' do
        await pilot.press("1")
        await settle(app, pilot)
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is tabs(app) and tabs(app).outer_size.width == size[0]
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is None


# -- the Overview -------------------------------------------------------------------------------
def cut_words(narrow: str, wide: str) -> list[str]:
    """The words of ``narrow`` that are not whole words of ``wide`` (the same content, drawn
    without width limits): a word cut by a wrap. A word cut short with "…" is whole (it says it is
    cut), and a URL may fold: shown whole, it can still be read."""
    whole = set(wide.split())
    urls = [w for w in whole if "://" in w]
    cut = []
    for word in narrow.split():
        if word in whole or any(word in url for url in urls):
            continue
        if word.endswith("…") and any(w.startswith(word[:-1]) for w in whole):
            continue
        cut.append(word)
    return cut


def overview_cuts(app: Any) -> list[str]:
    summary = app.query_one("#ov-summary", Static)
    width = summary.content_size.width
    assert width > 0
    return cut_words(static_text(summary, width), static_text(summary, 400))


def side_by_side(app: Any, left: str, right: str) -> bool:
    summary = app.query_one("#ov-summary", Static)
    text = static_text(summary, summary.content_size.width)
    return any(left in line and right in line for line in text.splitlines())


@pytest.mark.parametrize("size", [*SIZES, (120, 40)], ids=ids)
async def test_overview_never_cuts_a_word(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        for name in (None, "sitemap_index.xml", "sitemap-blog.xml"):
            if name is not None:
                await select(app, pilot, node_by_name(app, name))
                await settle(app, pilot)
            assert overview_cuts(app) == [], name
        await pilot.press("ctrl+b")  # the pane gets the whole width
        await pilot.pause()
        assert overview_cuts(app) == []


async def test_overview_follows_a_resize_without_cutting_words(demo_server, make_app):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(200, 50)) as pilot:
        await explored(app, pilot)
        await select(app, pilot, node_by_name(app, "sitemap_index.xml"))
        await settle(app, pilot)
        assert overview_cuts(app) == []
        assert side_by_side(app, "Subtree", "Content")  # wide: the two sections share lines
        await resize(app, pilot, 80, 24)
        assert overview_cuts(app) == []
        assert not side_by_side(app, "Subtree", "Content")
        await resize(app, pilot, 200, 50)
        assert overview_cuts(app) == []
        assert side_by_side(app, "Subtree", "Content")


@pytest.mark.parametrize("size", SIZES, ids=ids)
async def test_overview_sizes_in_binary_units(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        text = static_text(app.query_one("#ov-summary", Static), 400)
        assert "KiB wire" in text and " kB" not in text


# -- the footer ---------------------------------------------------------------------------------
def footer(app: Any) -> str:
    return screen_text(app).splitlines()[-1]


NEEDED = ("Expand subtree", "Help", "Export", "Filter", "Zoom", "^b", "palette")


@pytest.mark.parametrize("size", [*SIZES, (120, 40)], ids=ids)
async def test_footer_shows_the_keys_a_user_needs_most(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        line = footer(app)
        assert all(word in line for word in NEEDED), line
        await pilot.press("5")  # the URL table's own keys come first, the app's still fit
        await settle(app, pilot)
        line = footer(app)
        assert all(word in line for word in ("Mark", "Sort", "Help", "Zoom", "palette")), line


@pytest.mark.parametrize("size", [(200, 50), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_footer_offers_no_filter_key_while_typing_in_the_filter(demo_server, make_app, size):
    """Found by a review: "/ Filter" stayed in the footer while the filter box had the focus,
    where "/" types itself. Near miss: back in the table, it is offered again."""
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        assert "/ Filter" in footer(app) or "/Filter" in footer(app).replace(" ", ""), footer(app)
        await pilot.press("slash", "b", "l", "o", "g", "slash")
        await pilot.pause()
        assert app.url_table.query_one("Input").value == "blog/"
        assert "Filter" not in footer(app), footer(app)
        await pilot.press("escape")
        await settle(app, pilot)
        assert "Filter" in footer(app), footer(app)


async def test_help_and_palette_name_zoom_and_the_tree_toggle(demo_server, make_app):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_started(app, pilot)
        keys = {entry.binding_id: entry.keys for entry in app.help_entries()}
        assert keys.get("zoom") == "z" and keys.get("toggle_tree") == "^b"
        # ctrl+c cancels (the README says so); the help named it only as the screen's copy key
        assert keys.get("cancel") == "x, ^c"
        copy = next(e for e in app.help_entries() if e.description.startswith("Copy selected text"))
        assert "none selected: cancel the running work" in copy.description
        palette = {cmd.action: cmd.name for cmd in app.palette_commands()}
        assert "zoom" in palette and "toggle_tree" in palette


async def test_footer_fits_again_after_a_resize(demo_server, make_app):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(200, 50)) as pilot:
        await explored(app, pilot)
        for width, height in ((80, 24), (120, 40), (70, 24)):
            await resize(app, pilot, width, height)
            line = footer(app)
            assert all(word in line for word in ("Help", "Export", "Filter", "Zoom", "palette")), line


def same_compact(key: Any, compact: bool) -> bool:
    """A key is as compact as the footer, but the palette's (Textual leaves that one compact)."""
    if key.has_class("-command-palette"):
        return bool(key.compact)
    return key.compact is compact and key.has_class("-compact") is compact


@pytest.mark.parametrize("size", SIZES, ids=ids)
async def test_the_footer_rebuilds_its_keys_only_when_what_they_show_changes(demo_server, make_app, size):
    """Textual's footer rebuilt its keys on every change of focus or bindings, most of which
    left them as they were, and each key restyled itself twice on mount (~50 ms of the UI
    thread a rebuild). Near miss: a pane with other keys gets them."""
    from textual.widgets._footer import FooterKey

    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        keys = list(app.query(FooterKey))
        compact = size[0] < 100
        assert keys and all(same_compact(k, compact) for k in keys)
        app.refresh_bindings()  # what focus changes and the app's own state changes do
        await settle(app, pilot)
        await pilot.pause()
        assert list(app.query(FooterKey)) == keys
        await pilot.press("5")  # the URL table's own keys
        await settle(app, pilot)
        now = list(app.query(FooterKey))
        assert not set(now) & set(keys) and "Mark" in footer(app), footer(app)
        assert all(same_compact(k, compact) for k in now)


# -- the issues pane at 80x24 -------------------------------------------------------------------
async def issues_shown(app: Any, pilot: Any) -> Any:
    """The demo expanded and the Issues pane (4) showing its rules; the pane."""
    from sitemap_tui.tui.widgets.issues_pane import IssuesPane

    await explored(app, pilot)
    await pilot.press("4")
    pane = app.query_one(IssuesPane)
    await wait_for(pilot, lambda: pane.is_current and bool(pane.issue_list.root.children))
    return pane


async def test_the_issues_list_takes_the_pane_until_a_rule_is_highlighted(demo_server, make_app):
    """At 80x24 the list had 5 rows above an empty detail half (60 %) that only a highlighted
    rule or issue fills: now the list takes the pane while there is nothing to explain, and
    the detail comes back, as tall as its text (at most 60 %), on a rule."""
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await issues_shown(app, pilot)
        detail = pane.query_one("#issues-detail")
        await pilot.pause()
        assert not detail.display
        assert pane.issue_list.size.height >= 14
        pane.issue_list.focus()
        pane.issue_list.move_cursor(pane.issue_list.root.children[0].children[0])
        await wait_for(pilot, lambda: bool(detail.display) and detail.size.height > 0)
        await pilot.pause()
        assert 0 < detail.outer_size.height <= pane.size.height * 0.6 + 1
        assert pane.issue_list.size.height >= 8


async def test_an_expired_toast_is_painted_over(demo_server, make_app, monkeypatch):
    """Textual 8.2 leaves expired toasts painted in the terminal when several overflowed their
    rack (an expand-all on 80x24, seen in tmux): the app paints its screen again once a
    toast's time is up."""
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_started(app, pilot)
        repaints: list[float] = []
        screen = app.screen
        real = screen.refresh
        monkeypatch.setattr(screen, "refresh", lambda *a, **k: (repaints.append(1), real(*a, **k))[1])
        app.notify("one", timeout=0.2)
        await pilot.pause(0.6)
        assert repaints
    # a toast's timer that fires while the app closes finds no screen: it does nothing (CI saw
    # "ScreenStackError: No screens on stack" raised from it on quitting)
    app.repaint_after_toast()


@pytest.mark.parametrize("size", SIZES, ids=ids)
async def test_the_help_keeps_each_action_whole(demo_server, make_app, size):
    """Tried in tmux at 80x24: four columns left the action 3 columns ("Expand" over "subtr…",
    "Copy" over "URL"). Narrower than 100 columns, where and the binding id go under the
    action; wide, they keep their columns."""
    from sitemap_tui.tui.screens.help import HelpScreen

    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        await pilot.pause()
        shown = screen_text(app)
        assert "Expand subtree" in shown and "subtr…" not in shown, shown
        if size[0] < 100:
            assert "everywhere · expand_all" in shown, shown
        else:
            assert "Binding id" in shown, shown


async def test_the_lastmod_cursor_is_in_view_the_first_time_the_pane_is_shown(demo_server, make_app):
    """Tried in tmux at 80x24: 3 right after the expand-all showed 2019's empty months at the
    top (72 months, one line each) and not the cursor on the latest one; going to 1 and back
    to 3 showed it. The pane's data and height arrive after the focus the first time."""
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(80, 24)) as pilot:
        await explored(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        await wait_for(pilot, lambda: "▸ 2024-12" in screen_text(app), what="the cursor's line on screen")


async def children_shown(app: Any, pilot: Any, node: int, rows: int) -> None:
    """``node`` selected, its Overview (1) scrolled to its ``rows`` children."""
    await select(app, pilot, node)
    await pilot.press("1")
    await settle(app, pilot)
    table = app.query_one("#ov-children")
    await wait_for(pilot, lambda: table.row_count == rows, what="the children rows")
    table.scroll_visible(animate=False)  # (after the next refresh: waited for, not assumed)
    await wait_for(pilot, lambda: table.region.y > 0 and table.region.y + 3 < app.size.height - 1,
                   what="the children table in view")
    await pilot.pause()


async def test_the_childrens_counts_are_in_view_at_80_columns(demo_server, make_app):
    """Tried in tmux at 80x24: the index's children table showed Name, Kind and State and cut
    the URL count and the issues off. The counts come right after the name now."""
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(80, 24)) as pilot:
        await explored(app, pilot)
        await children_shown(app, pilot, node_by_name(app, "sitemap_index.xml"), 7)
        rows = [line for line in screen_text(app).splitlines() if "sitemap-products.xml.gz" in line and "▕" in line]
        assert rows and "300" in rows[-1] and "●4" in rows[-1], rows


@pytest.mark.parametrize("size", SIZES, ids=ids)
async def test_every_tab_name_is_whole_beside_the_tree(demo_server, make_app, size):
    """Tried in tmux at 80x24: beside the 28-column tree the six tabs needed 54 cells of 52, and
    the bar scrolled to the active one ("verview … Changes", or "Overview … Change"). Tight,
    they fit; with the room for it (the tree hidden, or 200 columns) they keep their padding."""
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        await underlined(app, pilot, "Overview")  # (was one cell too long at 80 columns)
        for key, name in (("1", "Overview"), ("4", "Issues"), ("6", "Changes")):
            await pilot.press(key)
            await settle(app, pilot)
            bar = screen_text(app).splitlines()[1]
            assert " Overview " in bar and " Changes" in bar.rstrip() + " ", (key, bar)
            assert bar.rstrip().endswith("Changes"), (key, bar)
            await underlined(app, pilot, name)
        assert tabs(app).tight == (size[0] < 100)
        await pilot.press("ctrl+b")
        await settle(app, pilot)
        assert not tabs(app).tight
        assert " Overview  Extensions  Lastmod " in screen_text(app).splitlines()[1]
        await underlined(app, pilot, "Changes")


async def underlined(app: Any, pilot: Any, name: str) -> None:
    """The underline of the tab bar spans the active tab's name, and only its name."""
    from textual.widgets import Tabs
    from textual.widgets._tabs import Underline

    bar = tabs(app).query_one(Tabs)
    line = bar.query_one(Underline)

    def spans() -> tuple[tuple[int, int], tuple[float, float]]:
        tab = bar.active_tab
        assert tab is not None and tab.label.plain == name
        return tab.virtual_region.shrink(tab.styles.gutter).column_span, (line.highlight_start, line.highlight_end)

    await wait_for(pilot, lambda: (now := spans())[0] == now[1], timeout=5, what=f"the underline under {name}", seen=spans)


async def test_every_rule_row_shows_its_count_at_80_columns(demo_server, make_app):
    """Tried in tmux at 80x24: "fetch-http-error Sitemap could not be fetche" — the count came
    after the title and the pane cut it off on most rows. It comes right after the rule id."""
    import re

    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(80, 24)) as pilot:
        await issues_shown(app, pilot)
        await pilot.pause()
        rows = [line for line in screen_text(app).splitlines() if "── ▶ " in line]
        assert len(rows) >= 10, rows
        for row in rows:
            assert re.search(r"▶ [a-z0-9-]+ \(\d+\)", row), row


@pytest.mark.parametrize("size", SIZES, ids=ids)
async def test_the_hreflang_rows_keep_their_share(demo_server, make_app, size):
    """Tried in tmux at 80x24: the hreflang table's long headings and 16-cell bars pushed the
    share off the pane ("Share of UR", a lone "1") and cut x-default to "x-defau…"."""
    import re

    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        await wait_for(pilot, lambda: "hreflang languages" in screen_text(app), what="the hreflang table")
        rows = {lang: line for line in screen_text(app).splitlines()
                for lang in ("de", "x-default") if re.search(rf"▕\s+{lang}\s", line)}
        assert re.search(r"▕\s+x-default\s+41\s+█+[▏▎▍▌▋▊▉]?\s+9%\s*$", rows["x-default"]), rows
        assert re.search(r"▕\s+de\s+42\s+█+\s+10%\s*$", rows["de"]), rows


URLSET_OF = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
             '{}</urlset>\n')


async def test_a_folders_long_file_names_leave_the_counts_in_view(make_app, tmp_path):
    """Tried in tmux at 80x24 on a folder of corpus files: the children table showed only the
    names (60 cells each) and pushed the URL counts and issues out of the pane. Names are cut
    in the middle to what the counts leave; at 200 columns they are not."""
    folder = tmp_path / "build"
    folder.mkdir()
    names = {"apache_incubator-stormcrawler__core_src_test_resources_links.xml": 6,
             "crawler-commons_crawler-commons__src_test_resources_sitemap-links.xml": 3}
    for name, n in names.items():
        urls = "".join(f"<url><loc>https://example.com/{name[:6]}/{i}</loc></url>" for i in range(n))
        (folder / name).write_text(URLSET_OF.format(urls))
    app = make_app(str(folder))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_started(app, pilot)
        await pilot.press("E")
        await settle(app, pilot)
        await children_shown(app, pilot, app.tree.model.roots()[0], 2)
        shown = screen_text(app)
        for name, n in names.items():
            rows = [line for line in shown.splitlines() if name[:8] in line and "…" in line and "▕" in line]
            assert rows and f" {n} " in rows[-1].split("▕")[-1], (name, shown)
        await resize(app, pilot, 200, 50)

        def in_table(name: str, n: int) -> bool:  # (right of the tree's border)
            return any(name[:25] in pane and name[-25:] in pane and f" {n} " in pane
                       for pane in (line.split("▕")[-1] for line in screen_text(app).splitlines()))

        # up to 60 cells, cut in the middle
        await wait_for(pilot, lambda: all(in_table(name, n) for name, n in names.items()), what="the longer names")


async def test_a_long_target_leaves_the_progress_in_the_header(make_app, tmp_path):
    """Tried in tmux at 80x24 on a corpus file (an 85-character path): the header showed
    " sitemap-tui" and nothing else, the target and the progress wrapped to a line below it,
    out of view. The target takes what the progress leaves, cut in the middle."""
    folder = tmp_path / "a-rather-long-folder-name-for-a-build-output" / "public"
    folder.mkdir(parents=True)
    sitemap = folder / "sitemap-for-the-whole-site-with-a-long-name.xml"
    sitemap.write_text(URLSET_OF.format("<url><loc>https://example.com/</loc></url>"))
    app = make_app(str(sitemap))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_started(app, pilot)
        await settle(app, pilot)
        header = screen_text(app).splitlines()[0]
        assert header.startswith(" sitemap-tui   ") and "…" in header, header
        assert header.rstrip().endswith("files 1/1 · 1 URL"), header
        assert "with-a-long-name.xml   files" in header, header
        await resize(app, pilot, 200, 50)
        wide = screen_text(app).splitlines()[0]
        # (the whole path where it fits: the test's own folder is longer under xdist)
        whole = f"{sitemap}   files 1/1" in wide
        assert whole or len(str(sitemap)) > 150, wide
        assert "-for-a-build-output/public/sitemap-for-the-whole-site-with-a-long-name.xml   files 1/1" in wide


@pytest.mark.parametrize("size", SIZES, ids=ids)
async def test_esc_in_a_zoomed_pane_unzooms_it(demo_server, make_app, size):
    """Found from outside: 5, z, Esc gave the whole screen to the tree (Esc focused the tree and
    the zoom followed the focus) with the panes hidden until z."""
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        width = tree_columns(app)
        await pilot.press("5")
        await settle(app, pilot)
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is tabs(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.maximized is None and tree_columns(app) == width
        assert app.focused is app.url_table.grid  # where it was, unzoomed
        await pilot.press("escape")  # then, as ever, to the tree
        await pilot.pause()
        assert app.focused is app.tree and app.screen.maximized is None


@pytest.mark.parametrize("width", [36, 48])
async def test_the_lastmod_charts_date_labels_stay_on_their_line(width):
    """Found by a review: in the day view the last x-axis label ran past the pane's edge and
    wrapped onto a line of its own, between the axis and the period line. Near miss: the first
    label is drawn."""
    from collections import Counter

    from rich.cells import cell_len
    from textual.app import App, ComposeResult

    from sitemap_tui.engine.stats import Aggregate
    from sitemap_tui.tui.widgets.lastmod_chart import LastmodChart

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield LastmodChart(id="chart")

    app = Host()
    async with app.run_test(size=(width, 24)) as pilot:
        chart = app.query_one(LastmodChart)
        agg = Aggregate()
        agg.by_day = Counter({f"20{10 + i}-0{1 + i}-1{i}": 1 + i for i in range(7)})  # years apart
        chart.set_data(agg)
        chart.mode = "day"
        await pilot.pause()
        lines = chart.render().plain.splitlines()
        # (the last line is the period under the cursor and its hint)
        assert all(cell_len(line) <= chart.size.width for line in lines[:-1]), (chart.size.width, lines)
        assert "2010-01-10" in lines[-2], lines


def test_the_year_view_leaves_out_a_long_run_of_empty_years() -> None:
    """Found by a review: one URL dated 2099 stretched the year view over 81 rows, almost all of
    them empty. A long run of empty years is left out; a short one stays, it says a gap (a
    regression review: over a 30-year span every empty year had gone, 1996 between 1995 and 1997)."""
    from collections import Counter

    from sitemap_tui.engine.stats import Aggregate
    from sitemap_tui.tui.widgets.lastmod_chart import periods

    agg = Aggregate()
    agg.by_month = Counter({"2019-05": 3, "2024-01": 5, "2099-12": 1})
    assert periods(agg, "year") == [("2019", 3), ("2020", 0), ("2021", 0), ("2022", 0), ("2023", 0), ("2024", 5),
                                    ("2099", 1)]
    agg.by_month = Counter({"1995-05": 3, "1997-01": 5, "2026-02": 1})
    assert [key for key, _ in periods(agg, "year")] == ["1995", "1996", "1997", "2026"]

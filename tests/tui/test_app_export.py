"""Export and copy from the explorer (issue 18), driven by the keys a user presses on the demo
site, at 200x50 and 80x24: `w` opens the export in every pane (`s` stays the table's sort); the
default scope is what the user looks at (marks, else the filter, else the node); rows come out
in the table's order; the folder, format and scope kind are remembered across dialogs and runs;
`c` copies the marked URLs through OSC 52, cut to what terminals accept."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from app_helpers import capture_notes, screen_text, settle, wait_for, wait_started

from sitemap_tui.tui import clipboard
from sitemap_tui.tui.screens.export import ExportScreen, default_path
from sitemap_tui.tui.state import ExportPrefs, load_export_prefs, save_export_prefs

SIZES = [(200, 50), (80, 24)]
ids = pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")


def export_into(tmp_path: Path) -> Path:
    """The export dialog's folder for this test (remembered, as a user's last choice)."""
    out = tmp_path / "out"
    out.mkdir()
    save_export_prefs(ExportPrefs(directory=str(out)))
    return out


async def explored(app: Any, pilot: Any) -> None:
    await wait_started(app, pilot)
    await pilot.press("e")
    await settle(app, pilot)


async def open_export(app: Any, pilot: Any) -> ExportScreen:
    await pilot.press("w")
    await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen), what="the export dialog")
    await pilot.pause()
    return app.screen


async def close_export(app: Any, pilot: Any) -> None:
    await pilot.press("escape")
    await wait_for(pilot, lambda: not isinstance(app.screen, ExportScreen), what="the dialog to close")


async def export_now(app: Any, pilot: Any, screen: ExportScreen) -> Path:
    """Enter on the focused Export button; the file written."""
    notes = capture_notes(app)
    assert app.focused is screen.query_one("#export-go")
    await pilot.press("enter")
    await wait_for(pilot, lambda: not isinstance(app.screen, ExportScreen), what="the export to finish")
    await wait_for(pilot, lambda: any(n.startswith("Exported") for n in notes), what="the notice")
    note = next(n for n in notes if n.startswith("Exported"))
    return Path(note.rsplit(" to ", 1)[1])


async def on_rule(app: Any, pilot: Any, rule: str) -> tuple[Any, Any]:
    """The Issues tab (4), its tree's cursor moved down to ``rule`` with the arrow keys, as a
    user does: (the pane, its tree)."""
    await pilot.press("4")
    await settle(app, pilot)
    pane = app.issues_pane
    tree = pane.query_one("#issues-tree")
    assert app.focused is tree
    for _ in range(120):
        if pane.selected_rule == rule and pane.selected_issue is None:
            break
        await pilot.press("down")
        await pilot.pause()
    assert pane.selected_rule == rule
    return pane, tree


async def first_issue(pilot: Any, pane: Any, tree: Any) -> Any:
    """Space opens the rule under the cursor, down to its first issue: that issue."""
    rule_node = tree.cursor_node
    await pilot.press("space")
    await wait_for(pilot, lambda: bool(rule_node.children), what="the rule's issues")
    await pilot.press("down")
    await pilot.pause()
    return pane.selected_issue


async def table_rows(app: Any, pilot: Any) -> list[str]:
    grid = app.url_table.grid
    await wait_for(pilot, lambda: grid.total is not None and not grid.scanning, what="the table's count")
    return [grid.row_at(i).loc for i in range(grid.total)]


@ids
async def test_w_opens_the_export_in_every_pane_and_s_stays_sort(demo_server, make_app, tmp_path, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        for key in ("1", "2", "3", "4", "5", "0"):
            await pilot.press(key)
            await settle(app, pilot)
            await open_export(app, pilot)
            await close_export(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        assert app.focused is app.url_table.grid
        # the URL pane's footer shows the export key next to the table's own keys
        footer = screen_text(app).splitlines()[-1]
        assert "w Export" in footer.replace("\xa0", " "), footer
        before = app.url_table.sort
        await pilot.press("s")
        await pilot.pause()
        assert app.url_table.sort != before and not isinstance(app.screen, ExportScreen)
        await open_export(app, pilot)  # ctrl+s too
        await close_export(app, pilot)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen), what="ctrl+s")


@ids
async def test_default_scope_is_marks_else_filter_else_node_in_the_tables_order(
        demo_server, make_app, tmp_path, monkeypatch, size):
    monkeypatch.chdir(tmp_path)
    export_into(tmp_path)
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        everything = await table_rows(app, pilot)
        # nothing marked nor filtered: the node (the root is a folder of files: its subtree)
        screen = await open_export(app, pilot)
        assert screen.scope in ("this node", "subtree") and screen.scope in screen.scopes
        path = await export_now(app, pilot, screen)
        assert path.read_text().splitlines() == everything
        # a filter, sorted by loc: the filtered rows, in the table's order
        await pilot.press("slash", *"blog", "enter")
        await pilot.press("s")  # id -> loc
        await settle(app, pilot)
        assert app.url_table.sort == "loc"
        shown = await table_rows(app, pilot)
        assert shown and len(shown) < len(everything) and shown == sorted(shown)
        screen = await open_export(app, pilot)
        assert screen.scope == "filtered rows" and {"filtered rows", "subtree"} <= set(screen.scopes)
        path = await export_now(app, pilot, screen)
        assert path.name == "sitemap-urls-filtered-rows.txt"
        assert path.read_text().splitlines() == shown
        # a filter the bar cannot read (a bad regex) leaves the last one's rows shown, beside its
        # error: they are no "filtered rows" of what the bar says (found from outside)
        await pilot.press("slash", "ctrl+u", *"re:(", "enter")
        await settle(app, pilot)
        assert app.url_table.filter_error and await table_rows(app, pilot) == shown
        screen = await open_export(app, pilot)
        assert "filtered rows" not in screen.scopes, screen.scopes
        await close_export(app, pilot)
        await pilot.press("slash", "ctrl+u", *"blog", "enter")
        await settle(app, pilot)
        assert not app.url_table.filter_error and await table_rows(app, pilot) == shown
        # S reverses the table, and the export with it
        path.unlink()  # (an existing file is asked about first)
        app.url_table.grid.focus()
        await pilot.press("S")
        await settle(app, pilot)
        assert app.url_table.row_order == ("loc", True)
        assert await table_rows(app, pilot) == shown[::-1]
        screen = await open_export(app, pilot)
        path = await export_now(app, pilot, screen)
        assert path.read_text().splitlines() == shown[::-1]
        await pilot.press("S")
        await settle(app, pilot)
        # marks win over the filter: the second row marked, then the first; written in the
        # table's order
        assert len(shown) > 1
        app.url_table.grid.focus()
        await pilot.press("home", "down", "space", "up", "space")
        await pilot.pause()
        screen = await open_export(app, pilot)
        assert screen.scope == "marked rows"
        path = await export_now(app, pilot, screen)
        assert path.read_text().splitlines() == [shown[0], shown[1]]
        # found from outside: a filter that hides a marked row left it in the export, unseen;
        # what w takes is what is on screen
        path.unlink()
        app.url_table.set_filter_text(shown[1])
        await settle(app, pilot)
        assert shown[0] not in await table_rows(app, pilot)
        app.url_table.grid.focus()
        screen = await open_export(app, pilot)
        assert screen.scope == "marked rows"
        path = await export_now(app, pilot, screen)
        assert path.read_text().splitlines() == [shown[1]]
        # a filter that shows none of the marks (a drill after marking): its rows, not "marked
        # rows" with "0 URLs in this scope" (found from outside)
        app.url_table.set_filter_text("no-such-url-at-all")
        await settle(app, pilot)
        app.url_table.grid.focus()
        screen = await open_export(app, pilot)
        assert "marked rows" not in screen.scopes and screen.scope == "filtered rows", screen.scopes
        await close_export(app, pilot)
        # and marks made with "mark all" under another filter (found from outside: all 436)
        path.unlink()
        app.url_table.set_filter_text("")
        await settle(app, pilot)
        app.url_table.grid.focus()
        notes = capture_notes(app)
        await pilot.press("escape")  # (the marks so far go, said: unseen under a filter, Esc seemed to do nothing)
        await pilot.pause()
        assert app.url_table.grid.marks.empty and "2 marks cleared (^z brings them back; Esc again goes back)" in notes, notes
        await pilot.press("a")
        await settle(app, pilot)
        app.url_table.set_filter_text(shown[1])
        await settle(app, pilot)
        app.url_table.grid.focus()
        screen = await open_export(app, pilot)
        assert screen.scope == "marked rows"
        path = await export_now(app, pilot, screen)
        assert path.read_text().splitlines() == await table_rows(app, pilot)


@ids
async def test_folder_format_and_scope_are_remembered_across_dialogs_and_runs(
        demo_server, make_app, tmp_path, monkeypatch, size):
    monkeypatch.chdir(tmp_path)
    first = make_app(demo_server.base_url + "/")
    chosen = tmp_path / "exports"
    chosen.mkdir()
    async with first.run_test(size=size) as pilot:
        await explored(first, pilot)
        screen = await open_export(first, pilot)
        assert screen.query_one("#export-path").value.startswith(str(tmp_path))  # cwd at first
        # JSON Lines, by the keys: Tab to the format list, down to JSON Lines, Enter
        await pilot.click("#export-format")
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        assert screen.fmt == "jsonl"
        path_input = screen.query_one("#export-path")
        path_input.value = str(chosen / "mine.jsonl")
        path_input.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(first.screen, ExportScreen), what="the export")
        assert (chosen / "mine.jsonl").exists()
        # reopened in the same run: the same folder, format and scope kind
        screen = await open_export(first, pilot)
        assert screen.fmt == "jsonl" and screen.query_one("#export-path").value.startswith(str(chosen))
        await close_export(first, pilot)
    assert load_export_prefs().fmt == "jsonl"
    second = make_app(demo_server.base_url + "/", db_path=tmp_path / "second.db")
    async with second.run_test(size=size) as pilot:
        await explored(second, pilot)
        screen = await open_export(second, pilot)
        assert screen.fmt == "jsonl"
        assert screen.query_one("#export-path").value == str(default_path(chosen, screen.scope, "jsonl"))


@ids
async def test_c_copies_the_marked_urls_through_osc52(demo_server, make_app, monkeypatch, size):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        written: list[str] = []
        monkeypatch.setattr(app._driver, "write", written.append)
        notes = capture_notes(app)
        await pilot.press("5")
        await settle(app, pilot)
        rows = await table_rows(app, pilot)
        await pilot.press("home", "space", "down", "down", "space", "c")
        await wait_for(pilot, lambda: any(w.startswith("\x1b]52;c;") for w in written), what="the OSC 52 write")
        osc = [w for w in written if w.startswith("\x1b]52;c;")]
        assert len(osc) == 1 and osc[0].endswith("\a")
        assert base64.b64decode(osc[0][len("\x1b]52;c;"):-1]).decode() == f"{rows[0]}\n{rows[2]}\n"
        assert "Copied 2 marked URLs" in notes
        # over what terminals accept: whole URLs up to the limit, and the notice says what was cut
        full_payload = clipboard.MAX_PAYLOAD
        monkeypatch.setattr(clipboard, "MAX_PAYLOAD", len(rows[0]) + 1)
        await pilot.press("c")
        await wait_for(pilot, lambda: app.clipboard == f"{rows[0]}\n", what="the cut copy")
        assert any("Copied 1 of 2 marked URLs" in n and "100,000 bytes" in n and "other 1 were left out" in n
                   for n in notes), notes
        # no marks: the current URL (rows[2]), as before; one longer than terminals accept is
        # said, not cut. (The limit is set from that row: the rows' order is the order the files
        # arrived in, which a busy machine changes, and rows[0] was once as long as rows[2].)
        monkeypatch.setattr(clipboard, "MAX_PAYLOAD", len(rows[2]))
        await pilot.press("A", "c")
        await wait_for(pilot, lambda: any("Nothing copied: the URL is longer than" in n for n in notes),
                       what="the notice of a URL too long",
                       seen=lambda: (notes[-3:], app.focused, app.url_table.highlighted_entry))
        monkeypatch.setattr(clipboard, "MAX_PAYLOAD", full_payload)
        await pilot.press("c")
        await wait_for(pilot, lambda: app.clipboard == app.url_table.highlighted_entry.loc, what="the URL copied")


def test_fit_urls_cuts_at_whole_lines():
    fit = clipboard.fit_urls(["https://a/1", None, "https://a/\x1b2", "https://a/3"], max_payload=30)
    assert fit.urls == ["https://a/1", "https://a/%1B2"] and fit.cut
    assert fit.text == "https://a/1\nhttps://a/%1B2\n"
    # as a text export writes them: a real U+200B and the six characters "\u200b" stay apart
    assert clipboard.fit_urls(["https://a/\u200b", "https://a/\\u200b"]).urls == [
        "https://a/%E2%80%8B", "https://a/\\u200b"]
    assert clipboard.fit_urls(["https://a/1"]).cut is False
    # the whole sequence (ESC ] 52 ; c ; base64 BEL) stays within the documented 100,000 bytes
    full = "x" * clipboard.MAX_PAYLOAD
    assert len("\x1b]52;c;" + base64.b64encode(full.encode()).decode() + "\a") <= clipboard.OSC52_MAX_SEQUENCE


@ids
async def test_on_the_issues_tab_the_default_is_the_issue_or_its_rule(demo_server, make_app, tmp_path, size):
    """"URLs of the selected issue" means that issue's URL; a highlighted rule's URLs are
    offered as that rule, named."""
    out = tmp_path / "out"
    out.mkdir()
    save_export_prefs(ExportPrefs(directory=str(out)))
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        pane, tree = await on_rule(app, pilot, "loc-session-id")  # a rule on URLs
        screen = await open_export(app, pilot)
        assert screen.scope == "URLs with rule loc-session-id"
        await close_export(app, pilot)
        issue = await first_issue(pilot, pane, tree)
        assert issue is not None and issue.entry_id is not None
        screen = await open_export(app, pilot)
        assert screen.scope == "URL of the selected issue"
        path = await export_now(app, pilot, screen)
        assert path.read_text() == f"{issue.url}\n"


@pytest.mark.parametrize(("rule", "scope", "size"), [
    ("lastmod-missing", "URLs the selected issue counts", (200, 50)),
    ("lastmod-missing", "URLs the selected issue counts", (80, 24)),
    # (one size each: the dialog's scopes do not depend on it, and CI's minutes are few)
    ("location-different-host", "URL the selected issue names", (80, 24)),
    ("index-lastmod-stale", None, (80, 24)),
])
async def test_w_on_a_files_finding_exports_the_urls_enter_shows(demo_server, make_app, tmp_path, size,
                                                                  rule, scope):
    """Found from outside: ``w`` on a file's finding naming other-host URLs (or counting the URLs
    without a lastmod) offered its rule's "0 URLs: reported on sitemap files", while Enter on
    it showed them. Now the dialog offers, and defaults to, the URLs Enter shows."""
    export_into(tmp_path)
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=size) as pilot:
        await explored(app, pilot)
        pane, tree = await on_rule(app, pilot, rule)
        issue = await first_issue(pilot, pane, tree)
        assert issue is not None and issue.entry_id is None
        screen = await open_export(app, pilot)
        if scope is None:
            # an index's finding names a child sitemap: Enter shows that file in the tree, and
            # there is no URL of it to export (found from outside: the default read "0 URLs")
            assert not any("selected issue" in label for label in screen.scopes), screen.scopes
            await close_export(app, pilot)
            return
        assert screen.scope == scope
        path = await export_now(app, pilot, screen)
        exported = path.read_text().splitlines()
        await pilot.press("enter")  # the same finding's URLs in the table
        shown = await table_rows(app, pilot)
        assert exported == shown and exported, (exported, shown)
        if scope.startswith("URL the"):
            assert exported == [issue.url]

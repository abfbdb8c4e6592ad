"""The export dialog: marks in the URL table + export write exactly the expected lines in all
three formats; default paths; never overwrite silently; escape cancels."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Button, RadioButton, RadioSet
from urltui_helpers import build_store, entry, issue, wait_for

from sitemap_tui.engine.store import EntryFilter
from sitemap_tui.tui.screens.export import ExportScreen, default_path, slug
from sitemap_tui.tui.widgets.url_table import UrlTable

SITEMAP1 = "https://example.com/sitemap-1.xml"


class Host(App[None]):
    def __init__(self, db: Path) -> None:
        super().__init__()
        self.db = db
        self.results: list[tuple[int, Path] | None] = []

    def compose(self) -> ComposeResult:
        yield UrlTable(self.db)

    def export(self, scopes: dict[str, EntryFilter], default_dir: Path, **kw) -> ExportScreen:
        screen = ExportScreen(self.db, scopes, default_dir, **kw)
        self.push_screen(screen, callback=self.results.append)
        return screen


def store_of(tmp_path: Path):
    entries = [
        entry(f"https://example.com/p/{i}", i + 3, lastmod=f"2024-01-{i + 1:02d}", changefreq="weekly",
              priority="0.8", images=1 if i == 2 else 0,
              alternates=[("de", f"https://example.com/de/p/{i}")] if i == 4 else ())
        for i in range(12)
    ]
    entries.append(entry('https://example.com/q?a=1,b="2"', 20))
    # p/2 has two issues of one rule and one of another (its rule ids are listed once each),
    # p/4 one; the file-level issue belongs to no URL
    issues = [(issue("url-lastmod-future", "in the future", node_id=1), 2),
              (issue("url-priority-invalid", "bad priority", node_id=1), 2),
              (issue("url-lastmod-future", "again", node_id=1), 2),
              (issue("url-loc-too-long", "long", node_id=1), 4),
              (issue("xml-encoding", "file level", node_id=1), None)]
    return build_store(tmp_path / "x.db", {1: entries}, issues)


def radio(screen: ExportScreen, radio_set: str, name: str) -> RadioButton:
    return next(b for b in screen.query_one(radio_set).query(RadioButton) if b.name == name)


async def ready(pilot, table: UrlTable) -> None:
    await wait_for(pilot, lambda: table.grid.total is not None and not table.grid.scanning)


async def click(pilot, selector: str) -> None:
    """Click a button as a person does: not within its 0.2 s pressed look, when Textual's
    Button ignores a second press (a click or Enter)."""
    button = pilot.app.screen.query_one(selector, Button)
    await wait_for(pilot, lambda: not button.has_class("-active"))
    await pilot.click(selector)


async def run_export(pilot, app: Host, screen: ExportScreen, fmt: str) -> tuple[int, Path]:
    await pilot.pause()
    radio(screen, "#export-format", fmt).value = True
    await pilot.pause()
    n = len(app.results)
    await click(pilot, "#export-go")
    await wait_for(pilot, lambda: len(app.results) > n)
    result = app.results[-1]
    assert result is not None
    return result


@pytest.mark.parametrize("fmt", ["txt", "csv", "jsonl"])
async def test_marked_rows_export_exact_lines(tmp_path: Path, fmt: str):
    store, ids = store_of(tmp_path)
    app = Host(tmp_path / "x.db")
    async with app.run_test(size=(120, 50)) as pilot:
        table = app.query_one(UrlTable)
        await ready(pilot, table)
        table.grid.focus()
        # mark rows 0, 2, 3, 4 (space, then a shift range) and 12 (the CSV-hostile URL)
        await pilot.press("space", "down", "down", "shift+down", "shift+down", "end", "space")
        expected_ids = {ids[1][i] for i in (0, 2, 3, 4, 12)}
        assert table.marked_ids == expected_ids
        screen = app.export({"filtered rows": table.current_filter, "marked rows": table.marked_filter},
                            tmp_path, scope="marked rows")
        count, path = await run_export(pilot, app, screen, fmt)
        assert count == 5
        assert path == tmp_path / f"sitemap-urls-marked-rows.{fmt}"
        text = path.read_text(encoding="utf-8")
    locs = [f"https://example.com/p/{i}" for i in (0, 2, 3, 4)] + ['https://example.com/q?a=1,b="2"']
    if fmt == "txt":
        assert text == "".join(f"{u}\n" for u in locs)
    elif fmt == "csv":
        rows = list(csv.reader(io.StringIO(text)))
        # issue 18: the export's CSV carries each URL's rule ids (space-separated)
        assert rows[0] == ["loc", "lastmod", "changefreq", "priority", "sitemap", "sitemap_lastmod", "images",
                           "videos", "news", "alternates", "issues"]
        assert rows[1:] == [
            [locs[0], "2024-01-01", "weekly", "0.8", SITEMAP1, "", "0", "0", "0", "0", ""],
            [locs[1], "2024-01-03", "weekly", "0.8", SITEMAP1, "", "1", "0", "0", "0",
             "url-lastmod-future url-priority-invalid"],
            [locs[2], "2024-01-04", "weekly", "0.8", SITEMAP1, "", "0", "0", "0", "0", ""],
            [locs[3], "2024-01-05", "weekly", "0.8", SITEMAP1, "", "0", "0", "0", "1", "url-loc-too-long"],
            [locs[4], "", "", "", SITEMAP1, "", "0", "0", "0", "0", ""],
        ]
        assert text.splitlines()[5] == '"https://example.com/q?a=1,b=""2""",,,,' + SITEMAP1 + ",,0,0,0,0,"
    else:
        lines = text.splitlines()
        assert len(lines) == 5
        recs = [json.loads(line) for line in lines]
        assert [r["loc"] for r in recs] == locs
        assert recs[0] == {"loc": locs[0], "lastmod": "2024-01-01", "changefreq": "weekly", "priority": "0.8",
                           "sitemap": SITEMAP1, "sitemap_lastmod": None, "images": [], "videos": [], "news": [],
                           "alternates": [], "issues": []}
        # issue 18: JSON Lines carries each URL's rule ids
        assert [r["issues"] for r in recs] == [[], ["url-lastmod-future", "url-priority-invalid"], [],
                                               ["url-loc-too-long"], []]
        assert [len(r["images"]) for r in recs] == [0, 1, 0, 0, 0]
        assert recs[3]["alternates"] == [{"hreflang": "de", "href": "https://example.com/de/p/4"}]
    assert not list(tmp_path.glob(".*.tmp"))
    store.close()


async def test_all_filtered_marks_export_as_a_filter(tmp_path: Path):
    store, ids = store_of(tmp_path)
    app = Host(tmp_path / "x.db")
    async with app.run_test(size=(120, 50)) as pilot:
        table = app.query_one(UrlTable)
        await ready(pilot, table)
        table.set_filter_text("re:/p/1")  # p/1, p/10, p/11
        await ready(pilot, table)
        table.grid.focus()
        await pilot.press("a")
        flt = table.marked_filter
        assert flt is not None and flt.entry_ids is None and flt.regex == "/p/1"
        screen = app.export({"marked rows": flt}, tmp_path)
        count, path = await run_export(pilot, app, screen, "txt")
        assert path.read_text() == "https://example.com/p/1\nhttps://example.com/p/10\nhttps://example.com/p/11\n"
        # one exception turns it into an id list
        await pilot.press("down", "space")
        flt = table.marked_filter
        assert flt.entry_ids == [ids[1][1], ids[1][11]]
        (tmp_path / "sub").mkdir()  # a missing folder is asked about first (test_missing_folder_is_asked_about)
        screen = app.export({"marked rows": flt}, tmp_path / "sub")
        count, path = await run_export(pilot, app, screen, "txt")
        assert count == 2 and path.read_text() == "https://example.com/p/1\nhttps://example.com/p/11\n"
    store.close()


async def test_default_path_follows_scope_and_format(tmp_path: Path):
    store, ids = store_of(tmp_path)
    app = Host(tmp_path / "x.db")
    async with app.run_test(size=(120, 50)) as pilot:
        table = app.query_one(UrlTable)
        await ready(pilot, table)
        scopes = {"this node": EntryFilter(node_ids=[1]), "subtree": EntryFilter(node_ids=[1]),
                  "URLs of the selected issue": EntryFilter(node_ids=[1], rule="x")}
        screen = app.export(scopes, tmp_path)
        await pilot.pause()
        path_input = screen.query_one("#export-path")
        assert path_input.value == str(tmp_path / "sitemap-urls-this-node.txt")
        await wait_for(pilot, lambda: "13 URLs" in str(screen.query_one("#export-count").render()))
        radio(screen, "#export-scope", "URLs of the selected issue").value = True
        await pilot.pause()
        assert path_input.value == str(tmp_path / "sitemap-urls-urls-of-the-selected-issue.txt")
        await wait_for(pilot, lambda: "0 URLs" in str(screen.query_one("#export-count").render()))
        radio(screen, "#export-format", "jsonl").value = True
        await pilot.pause()
        assert path_input.value.endswith("sitemap-urls-urls-of-the-selected-issue.jsonl")
        # a path the user typed is kept
        path_input.value = str(tmp_path / "mine.txt")
        radio(screen, "#export-format", "csv").value = True
        await pilot.pause()
        assert path_input.value == str(tmp_path / "mine.txt")
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == [None]
        assert not (tmp_path / "mine.txt").exists()
    assert slug("Filtered rows!") == "filtered-rows" and slug("***") == "export"
    assert default_path(Path("/x"), "subtree", "csv") == Path("/x/sitemap-urls-subtree.csv")
    store.close()


async def test_never_overwrites_without_asking(tmp_path: Path):
    store, ids = store_of(tmp_path)
    target = tmp_path / "sitemap-urls-this-node.txt"
    target.write_text("precious\n")
    app = Host(tmp_path / "x.db")
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot, app.query_one(UrlTable))
        screen = app.export({"this node": EntryFilter(node_ids=[1])}, tmp_path)
        await pilot.pause()
        await click(pilot, "#export-go")
        await pilot.pause()
        confirm = screen.query_one("#export-confirm")
        assert confirm.has_class("-open") and "already exists" in str(screen.query_one("#export-confirm-text").render())
        assert target.read_text() == "precious\n" and app.results == []
        await click(pilot, "#export-keep")  # back out
        await pilot.pause()
        assert not confirm.has_class("-open") and target.read_text() == "precious\n"
        await click(pilot, "#export-go")
        await pilot.pause()
        await pilot.press("escape")  # escape leaves the confirm step first
        await pilot.pause()
        assert not confirm.has_class("-open") and app.results == []
        await click(pilot, "#export-go")
        await pilot.pause()
        await click(pilot, "#export-overwrite")
        await wait_for(pilot, lambda: app.results)
        assert app.results == [(13, target)]
        assert target.read_text().splitlines()[0] == "https://example.com/p/0"
    store.close()


async def test_escape_while_writing_cancels_and_leaves_nothing(tmp_path: Path):
    from urltui_helpers import build_big_store

    db = tmp_path / "big.db"
    build_big_store(db, 200_000, nodes=2)
    app = Host(db)
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot, app.query_one(UrlTable))
        (tmp_path / "out").mkdir()  # a missing folder is asked about first (test_missing_folder_is_asked_about)
        screen = app.export({"subtree": EntryFilter(node_ids=[1, 2])}, tmp_path / "out")
        await pilot.pause()
        await click(pilot, "#export-go")
        await wait_for(pilot, lambda: screen.query_one("#export-progress").has_class("-open"))
        assert screen.query_one("#export-go").disabled
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.results == [None])
        await app.workers.wait_for_complete()
        assert not (tmp_path / "out" / "sitemap-urls-subtree.txt").exists()
        # the writing thread removes its temp file once it sees the cancel: a moment after the
        # worker reads as cancelled (the parallel suite on a loaded box saw it still there)
        await wait_for(pilot, lambda: not list((tmp_path / "out").glob(".*.tmp")))


async def this_node_dialog(app: Host, pilot: Any, folder: Path) -> tuple[Any, Any]:
    """The export dialog on node 1 ("this node"), once the table is ready: (it, its path box)."""
    await ready(pilot, app.query_one(UrlTable))
    screen = app.export({"this node": EntryFilter(node_ids=[1])}, folder)
    await pilot.pause()
    return screen, screen.query_one("#export-path")


async def test_after_a_failed_export_typing_replaces_the_path(tmp_path: Path):
    """Bug 4 of issue 18: after a failed export (/proc/nope) the next path typed replaced nothing."""
    store, ids = store_of(tmp_path)
    app = Host(tmp_path / "x.db")
    async with app.run_test(size=(80, 24)) as pilot:
        screen, path_input = await this_node_dialog(app, pilot, tmp_path)
        path_input.focus()
        path_input.value = "/proc/nope"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Export failed" in str(screen.query_one("#export-error").render()))
        good = tmp_path / "good.txt"
        await pilot.press(*str(good), "ctrl+s")  # ctrl+s writes, as Enter does
        await wait_for(pilot, lambda: app.results)
        assert app.results == [(13, good)]
        assert good.read_text().splitlines()[0] == "https://example.com/p/0"
    store.close()


async def test_missing_folder_is_asked_about(tmp_path: Path):
    """Issue 18 item 8: the dialog created missing folders without asking."""
    store, ids = store_of(tmp_path)
    app = Host(tmp_path / "x.db")
    folder = tmp_path / "new" / "deeper"
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app.query_one(UrlTable))
        screen = app.export({"this node": EntryFilter(node_ids=[1])}, folder)
        await pilot.pause()
        await pilot.press("enter")  # the Export button has the focus
        await pilot.pause()
        confirm = screen.query_one("#export-confirm")
        question = str(screen.query_one("#export-confirm-text").render())
        assert confirm.has_class("-open") and str(tmp_path / "new") in question and "does not exist" in question
        assert not (tmp_path / "new").exists() and app.results == []
        await pilot.press("enter")  # "Back" has the focus: nothing is created
        await pilot.pause()
        assert not confirm.has_class("-open") and not (tmp_path / "new").exists()
        assert app.focused is screen.query_one("#export-path")
        await click(pilot, "#export-go")
        await pilot.pause()
        await click(pilot, "#export-overwrite")  # "Create the folder"
        await wait_for(pilot, lambda: app.results)
        assert app.results == [(13, folder / "sitemap-urls-this-node.txt")]
        assert (folder / "sitemap-urls-this-node.txt").read_text().startswith("https://example.com/p/0\n")
    store.close()


async def test_image_urls_of_the_selection(tmp_path: Path):
    """Issue 18: export can carry the image / video URLs of the selection, one a line."""
    store, ids = store_of(tmp_path)
    app = Host(tmp_path / "x.db")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app.query_one(UrlTable))
        screen = app.export({"this node": EntryFilter(node_ids=[1])}, tmp_path)
        count, path = await run_export(pilot, app, screen, "images")
        assert path == tmp_path / "sitemap-urls-this-node-images.txt"
        assert (count, path.read_text()) == (1, "https://example.com/p/2/img0.png\n")
    store.close()


async def test_rows_come_out_in_the_sort_given(tmp_path: Path):
    """Issue 18 item 8: export order followed the id order, whatever the table's sort."""
    store, ids = store_of(tmp_path)
    app = Host(tmp_path / "x.db")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app.query_one(UrlTable))
        screen = ExportScreen(tmp_path / "x.db", {"this node": EntryFilter(node_ids=[1])}, tmp_path,
                              sort="lastmod", descending=True)
        app.push_screen(screen, callback=app.results.append)
        await pilot.pause()
        await wait_for(pilot, lambda: "by lastmod, reversed" in str(screen.query_one("#export-count").render()))
        count, path = await run_export(pilot, app, screen, "txt")
    # lastmod descending, the URL without one last
    assert path.read_text().splitlines() == [f"https://example.com/p/{i}" for i in range(11, -1, -1)] + [
        'https://example.com/q?a=1,b="2"']
    store.close()


async def test_a_scope_without_urls_is_said_and_writes_no_empty_file(tmp_path: Path):
    """Tried in tmux: w on fetch-http-error (a rule about a sitemap file) offered "URLs with
    rule fetch-http-error", counted 0 and wrote an empty file, "Exported 0 URLs"."""
    store, ids = store_of(tmp_path)
    app = Host(tmp_path / "x.db")
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot, app.query_one(UrlTable))
        screen = app.export({"URLs with rule xml-encoding": EntryFilter(node_ids=[1], rule="xml-encoding"),
                             "this node": EntryFilter(node_ids=[1])}, tmp_path,
                            scope="URLs with rule xml-encoding")
        await pilot.pause()
        count = screen.query_one("#export-count")
        await wait_for(pilot, lambda: "0 URLs in this scope" in str(count.render()))
        assert "reported on sitemap files, not on URLs" in str(count.render())
        # (keys, not clicks: a click aims at where the button was before the dialog's layout
        # moved it, and under load it missed)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "Nothing to export" in str(screen.query_one("#export-error").render())
        assert app.results == [] and list(tmp_path.glob("*.txt")) == []
        radio(screen, "#export-scope", "this node").value = True  # another scope: it writes
        await wait_for(pilot, lambda: "13 URLs" in str(count.render()))
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.results)
        assert app.results[-1] is not None and app.results[-1][0] == 13
    store.close()


async def test_the_path_is_in_view_with_five_scopes_at_80x24(tmp_path: Path):
    """Every format's hint took three lines at 80 columns: with five scopes the Path field was
    pushed out of the dialog (a tmux review), the file's place unseen before Export."""
    store_of(tmp_path)
    app = Host(tmp_path / "x.db")
    async with app.run_test(size=(80, 24)) as pilot:
        scopes = {name: EntryFilter(node_ids=[1]) for name in (
            "marked rows", "filtered rows", "this node", "URL of the selected issue", "URLs with rule x-y")}
        screen = app.export(scopes, tmp_path)
        await pilot.pause()
        path = screen.query_one("#export-path")
        body = screen.query_one("#export-body")
        assert path.region.height > 0 and body.region.contains_region(path.region), (path.region, body.region)
        hint = screen.query_one("#export-hint")
        assert str(hint.render()) == "Text: one URL a line"
        radio(screen, "#export-format", "images").value = True
        await pilot.pause()
        assert str(hint.render()).startswith("Images: the image URLs")


@pytest.mark.parametrize("size", [(160, 30), (80, 24)])
async def test_a_rule_whose_findings_name_no_entry_says_why_it_lists_none(tmp_path: Path, size):
    """rule:location-different-host listed "0 rows" with no word: its findings (one per host,
    file or namespace, naming a sample URL) are linked to no entry; so are a cross-file rule's
    about a file (rule:priority-all-equal, found from outside), and a rule with no finding at
    all lists none either. Said first: at 80 columns the sort and the rest cut it."""
    build_store(tmp_path / "x.db", {1: [entry("https://example.com/a", 3), entry("https://elsewhere.example/b", 4)]},
                [(issue("location-different-host", "1 URL on elsewhere.example", node_id=1), None),
                 (issue("url-lastmod-future", "in the future", node_id=1), 0)])
    app = Host(tmp_path / "x.db")
    async with app.run_test(size=size) as pilot:
        table = app.query_one(UrlTable)
        await ready(pilot, table)

        async def status_of(text: str) -> str:
            table.set_filter_text(text)
            await ready(pilot, table)
            await pilot.pause()
            return str(table.query_one("#url-status").render())

        status = await status_of("rule:location-different-host")
        assert status.startswith("0 rows: the rule names no URL: see Issues (4)"), status
        status = await status_of("rule:priority-all-equal")
        assert status.startswith("0 rows: the rule has no finding here"), status
        # near miss: a rule on entries, its rows filtered out by another word: the filter's doing
        status = await status_of("rule:url-lastmod-future zzzz")
        assert status.startswith("0 rows: no URL matches the filter"), status


async def test_the_keyboard_starts_on_the_remembered_choices(tmp_path: Path):
    """Found from outside: with CSV remembered (shown pressed), Tab into Format and Enter made it
    Text: Textual's RadioSet puts its cursor on its first button. It starts on the pressed one,
    in Scope too; a move goes on from there."""
    store, ids = store_of(tmp_path)
    app = Host(tmp_path / "x.db")
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot, app.query_one(UrlTable))
        screen = app.export({"this node": EntryFilter(node_ids=[1]), "subtree": EntryFilter(node_ids=[1])},
                            tmp_path, scope="subtree", fmt="csv")
        await pilot.pause()
        scope, fmt = screen.query_one("#export-scope", RadioSet), screen.query_one("#export-format", RadioSet)
        fmt.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert fmt.pressed_button is not None and fmt.pressed_button.name == "csv"
        await pilot.press("down", "enter")  # the one after CSV
        await pilot.pause()
        assert fmt.pressed_index == 2, fmt.pressed_button
        scope.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert scope.pressed_button is not None and scope.pressed_button.name == "subtree"
    store.close()


async def test_a_path_ending_in_a_slash_names_a_folder(tmp_path: Path):
    """Found from outside: "…/tuifolder/" in the Path box wrote a file named tuifolder (pathlib
    drops the slash). It names a folder: said, nothing written; near miss, a file name in it."""
    store, ids = store_of(tmp_path)
    app = Host(tmp_path / "x.db")
    async with app.run_test(size=(80, 24)) as pilot:
        screen, path_input = await this_node_dialog(app, pilot, tmp_path)
        for typed in (f"{tmp_path / 'tuifolder'}/", f"{tmp_path / 'tuifolder'}/."):
            path_input.value = typed
            await click(pilot, "#export-go")
            await pilot.pause()
            assert "names a directory, as typed; add a file name" in str(screen.query_one("#export-error").render())
            assert not (tmp_path / "tuifolder").exists() and app.results == []
        path_input.value = str(tmp_path / "urls.txt")
        await click(pilot, "#export-go")
        await wait_for(pilot, lambda: app.results)
        assert app.results == [(13, tmp_path / "urls.txt")]
    store.close()

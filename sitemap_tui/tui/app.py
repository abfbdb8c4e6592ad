"""The explorer app: a lazy sitemap tree on the left, panes for the highlighted node on the right.

The engine runs in its own process (``bridge.EngineProcess``; or on a thread,
``bridge.EngineBridge``) and reports in event batches; the tree applies each batch at once, while
the panes refresh at a steady rate (a 0.5 s timer that only does work when something changed).
``sitemap-tui open FILE.db`` shows a saved exploration offline: nothing is fetched, and its engine
only runs the store-only work (cross-file checks on request, the search index when idle).

The app is assembled from one class per job, bottom up: ``app_base`` (state, layout, header),
``app_panes`` (the panes follow the tree), ``app_engine`` (the engine's messages), ``app_actions``
(the commands); this module adds the key bindings, the palette and ``launch``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input

from sitemap_tui.engine.discover import Target
from sitemap_tui.tui.app_actions import Actions
from sitemap_tui.tui.palette import SitemapCommands

# The actions of the app; anything else (screenshot, suspend_process, simulate_key, push_screen,
# or whatever a markup string might name) is refused by check_action.
APP_ACTIONS: frozenset[str] = frozenset(
    {
        "expand_all", "cancel", "reload", "refetch", "export", "filter", "validate_deep", "check_files", "copy_url",
        "open_browser", "toggle_theme", "open_file", "help", "tree_narrower", "tree_wider",
        "tab_overview", "tab_extensions", "tab_lastmod", "tab_issues", "tab_urls",
        "focus_tree", "lastmod_mode", "toggle_tree", "zoom", "open_recent", "back",
        "expand_everything", "interrupt", "follow_hosts",
        "tab_changes", "compare_with",
        "audit", "crawler_access",
        # Textual's own, used by its default bindings and the palette
        "quit", "help_quit", "command_palette", "focus_next", "focus_previous", "change_theme",
        "show_help_panel", "hide_help_panel",
    }
)


class SitemapApp(Actions):
    """The explorer (see the module docstring)."""

    CSS_PATH = str(Path(__file__).with_name("app.tcss"))
    TITLE = "sitemap-tui"
    COMMANDS = {SitemapCommands} | App.COMMANDS
    ENABLE_COMMAND_PALETTE = True

    BINDINGS: ClassVar[list[Any]] = [
        # "w" (write): "s" is the URL table's sort, and an app key must work in every pane. First
        # of the app's keys: the footer lists the focused pane's keys before them and is cut at
        # 80 columns, and the URL pane's footer must still show Export
        Binding("w,ctrl+s", "export", "Export", id="export", tooltip="Export URLs to txt / CSV / JSONL, or their image / video URLs"),
        Binding("e", "expand_all", "Expand subtree", id="expand_all",
                tooltip="Fetch the whole subtree of the highlighted node (E: the whole exploration)"),
        Binding("x", "cancel", "Cancel", id="cancel", tooltip="Stop expand-all, checks and running fetches"),
        # early in the footer: on an 80-column terminal the last bindings are cut off
        Binding("question_mark,f1", "help", "Help", id="help"),
        Binding("r", "reload", "Reload", id="reload", tooltip="Fetch the highlighted file again (conditional GET)"),
        Binding("R", "refetch", "Fetch in full", id="refetch", show=False,
                tooltip="Fetch the highlighted file again in full (no conditional GET)"),
        Binding("slash", "filter", "Filter", id="filter", tooltip="Filter the URL table"),
        Binding("c", "copy_url", "Copy URL", id="copy_url", tooltip="Copy the marked URLs, else the current URL, to the clipboard (OSC 52)"),
        Binding("o", "open_browser", "Open in browser", id="open_browser", show=False, tooltip="Open an http(s) URL in the browser"),
        Binding("v", "validate_deep", "Deep check", id="validate_deep", show=False),
        Binding("k", "check_files", "Cross-file checks", id="check_files",
                tooltip="Duplicates across sitemaps, hreflang return links, robots.txt, mixed hosts"),
        Binding("t", "toggle_theme", "Theme", id="toggle_theme", show=False),
        Binding("ctrl+o", "open_file", "Open file", id="open_file", show=False),
        Binding("left_square_bracket,ctrl+left", "tree_narrower", "Narrower tree", id="tree_narrower", show=False),
        Binding("right_square_bracket,ctrl+right", "tree_wider", "Wider tree", id="tree_wider", show=False),
        Binding("1", "tab_overview", "Overview", id="tab_overview", show=False),
        Binding("2", "tab_extensions", "Extensions", id="tab_extensions", show=False),
        Binding("3", "tab_lastmod", "Lastmod", id="tab_lastmod", show=False),
        Binding("4", "tab_issues", "Issues", id="tab_issues", show=False),
        Binding("5", "tab_urls", "URLs", id="tab_urls", show=False),
        Binding("0", "focus_tree", "Tree", id="focus_tree", show=False),
        Binding("z", "zoom", "Zoom", id="zoom", tooltip="Give the focused pane the whole screen, or back"),
        Binding("ctrl+b", "toggle_tree", "Tree on/off", id="toggle_tree", tooltip="Hide or show the tree"),
        Binding("ctrl+r", "open_recent", "Recent explorations", id="open_recent", show=False),
        Binding("escape,backspace", "back", "Back", id="back", show=False,
                tooltip="Back to the pane a drill-through came from, else to the tree"),
        Binding("E", "expand_everything", "Expand everything", id="expand_everything",
                tooltip="Fetch the whole exploration, whatever node is highlighted (e: its subtree only)"),
        Binding("f", "follow_hosts", "Follow other hosts", id="follow_hosts", show=False,
                tooltip="Toggle following index children on other hosts, and fetch the highlighted node again"),
        # ctrl+c cancels running work (and says so); with nothing running, Textual's quit hint
        Binding("ctrl+c", "interrupt", "Cancel (or how to quit)", id="interrupt", show=False),
        Binding("q", "quit", "Quit", id="quit", show=False),
        # compare mode (issue 20): the Changes tab, after the others
        Binding("6", "tab_changes", "Changes", id="tab_changes", show=False),
        # issue 22 §4: the highlighted node's URLs audited (status, indexability), resumable
        Binding("u", "audit", "Audit URLs", id="audit", show=False,
                tooltip="Fetch the URLs under the highlighted node: status, indexability (x cancels; again: goes on)"),
    ]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "filter" and isinstance(self.focused, Input):
            return False  # "/" types itself there: the footer does not offer it (found by a review)
        return action in APP_ACTIONS

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield SystemCommand("Theme", "Change the current theme", self.action_change_theme)
        yield SystemCommand("Quit", "Quit sitemap-tui", self.action_quit)


def prestart_multiprocessing() -> None:
    """Start multiprocessing's resource tracker while sys.stderr is the real one.

    The engine may parse in ``spawn`` worker processes. Starting the tracker later, inside the
    running app, passes ``sys.stderr.fileno()`` to the child; Textual's captured stderr answers
    -1 and every spawn fails with "bad value(s) in fds_to_keep"."""
    try:
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    except Exception:  # noqa: BLE001 - no pool then; the engine reports its own errors
        pass


def launch(
    target: Target | None = None,
    db_path: Path | None = None,
    fetch_config: Any = None,
    options: Any = None,
    compare_with: Path | None = None,
) -> int:
    """Run the explorer; returns the exit code. With neither a target nor a file, the recent
    explorations come first, to pick the one to reopen (Esc there quits)."""
    if target is None and db_path is None:
        from sitemap_tui.tui.screens.recent import RecentPicker

        db_path = RecentPicker().run()
        if db_path is None:
            return 0
    prestart_multiprocessing()  # the engine runs in a process of its own (and "open file" may start one)
    app = SitemapApp(target=target, db_path=db_path, fetch_config=fetch_config, options=options,
                     engine_process=True, tune_gc=True, compare_with=compare_with)
    from sitemap_tui import signals

    try:
        # SIGTERM/SIGHUP: the app exits, so Textual leaves the alternate screen and restores the
        # terminal; the engine process is stopped below
        with signals.exit_app(app):
            app.run()
    finally:
        app.shutdown_engine()
        from sitemap_tui.engine.store import fold_log

        for path in {Path(p) for p in (db_path, app.db_path, *app.left_dbs) if p is not None}:
            fold_log(path)  # the .db alone holds the exploration (a reader may have outlived the writer)
    # (ctrl+o may have opened another target: the file named is the one shown last)
    saved = app.db_path if app.target is not None else None
    if saved is not None and Path(saved).exists():
        print(f"sitemap-tui: exploration saved to {saved} (reopen: sitemap-tui open {saved})", file=sys.stderr)
    return int(app.return_code or 0)


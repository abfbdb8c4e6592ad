"""The explorer app: a lazy sitemap tree on the left, panes for the highlighted node on the right.

The engine runs in its own process (``bridge.EngineProcess``; or on a thread,
``bridge.EngineBridge``) and reports in event batches; the tree applies each batch at once, while
the panes refresh at a steady rate (a 0.5 s timer that only does work when something changed).
``sitemap-tui open FILE.db`` shows a saved exploration offline: nothing is fetched, and its engine
only runs the store-only work (cross-file checks on request, the search index when idle).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sqlite3
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Static, TabbedContent, TabPane

from sitemap_tui.engine import urlpolicy
from sitemap_tui.engine.discover import Target, TargetError
from sitemap_tui.engine.model import Node, NodeKind, NodeState
from sitemap_tui.engine.sanitize import display
from sitemap_tui.tui.bridge import EngineBridge, EngineProcess, make_checker
from sitemap_tui.tui.config import TuiConfig, load_config
from sitemap_tui.tui.messages import (
    CommandDone,
    CrossfileProgress,
    DeepProgress,
    EngineError,
    EngineEvents,
    EngineReady,
    IssueCounts,
    SearchProgress,
)
from sitemap_tui.tui.palette import PaletteCommand, SitemapCommands
from sitemap_tui.tui.screens import SafeActions
from sitemap_tui.tui.screens.confirm import ConfirmScreen, PathPrompt
from sitemap_tui.tui.screens.error import StoreErrorScreen
from sitemap_tui.tui.screens.help import HelpEntry, HelpScreen
from sitemap_tui.tui.widgets import NodePane, Selection
from sitemap_tui.tui.widgets.extensions import ExtensionsPane
from sitemap_tui.tui.widgets.lastmod_chart import LastmodPane
from sitemap_tui.tui.widgets.overview import OverviewPane
from sitemap_tui.tui.widgets.sitemap_tree import ACTIVE, CONTAINERS, SitemapTree, short_name
from sitemap_tui.words import plural

SUBTREE_KINDS = (NodeKind.SITE, NodeKind.DIRECTORY, NodeKind.ROBOTS, NodeKind.INDEX)
TABS = ("overview", "extensions", "lastmod", "issues", "urls")
REFRESH_SECONDS = 0.5
SPINNER_SECONDS = 0.2
ISSUE_COUNTS_PER_TICK = 200
LASTING_NOTICE_SECONDS = 10 * 365 * 24 * 3600.0
"""A notification that stays until it is clicked: for what goes on being true (the engine stopped,
the store cannot be written), where a toast that vanishes after seconds could go unseen."""
STOPPED_ENGINE = "engine stopped"  # what the header says then
STOPPED_STORE = "the store cannot be written"
AUTO_CROSSFILE_URLS = 200_000
"""After an expand-all of at most this many URLs the cross-file checks run by themselves (about a
second of SQL); above it they wait for k, since they hold the store (~30 s on 10 M URLs)."""

# The actions of the app; anything else (screenshot, suspend_process, simulate_key, push_screen,
# or whatever a markup string might name) is refused by check_action.
APP_ACTIONS: frozenset[str] = frozenset(
    {
        "expand_all", "cancel", "reload", "export", "filter", "validate_deep", "check_files", "copy_url",
        "open_browser", "toggle_theme", "open_file", "help", "tree_narrower", "tree_wider",
        "tab_overview", "tab_extensions", "tab_lastmod", "tab_issues", "tab_urls",
        "focus_tree", "lastmod_mode",
        # Textual's own, used by its default bindings and the palette
        "quit", "help_quit", "command_palette", "focus_next", "focus_previous", "change_theme",
        "show_help_panel", "hide_help_panel",
    }
)
WHERE = {"MainScreen": "screen", "SitemapTree": "tree", "UrlTable": "URL table", "IssuesPane": "issues", "LastmodChart": "lastmod chart"}
MAIN_SCREEN_ACTIONS: frozenset[str] = frozenset(
    {"focus_next", "focus_previous", "copy_text", "maximize", "minimize"}
)


class MainScreen(SafeActions, Screen[None]):
    ALLOWED_ACTIONS = MAIN_SCREEN_ACTIONS


class StatusHeader(Static):
    """One line: app name, target, overall progress, what is running."""

    DEFAULT_CSS = """
    StatusHeader { dock: top; height: 1; background: $panel; color: $foreground; }
    """


class SitemapApp(App[int]):
    CSS_PATH = str(Path(__file__).with_name("app.tcss"))
    TITLE = "sitemap-tui"
    COMMANDS = {SitemapCommands} | App.COMMANDS
    ENABLE_COMMAND_PALETTE = True

    BINDINGS: ClassVar[list[Any]] = [
        Binding("e", "expand_all", "Expand all", id="expand_all", tooltip="Fetch the whole subtree of the highlighted node"),
        Binding("x,escape", "cancel", "Cancel", id="cancel", tooltip="Stop expand-all and running fetches"),
        # early in the footer: on an 80-column terminal the last bindings are cut off
        Binding("question_mark,f1", "help", "Help", id="help"),
        Binding("r", "reload", "Reload", id="reload", tooltip="Fetch the highlighted file again (conditional GET)"),
        Binding("s", "export", "Export", id="export", tooltip="Export URLs to txt / CSV / JSONL"),
        Binding("slash", "filter", "Filter", id="filter", tooltip="Filter the URL table"),
        Binding("c", "copy_url", "Copy URL", id="copy_url", tooltip="Copy the URL to the clipboard (OSC 52)"),
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
    ]

    tree_width: reactive[int] = reactive(0)

    def __init__(
        self,
        target: Target | None = None,
        db_path: Path | None = None,
        fetch_config: Any = None,
        options: Any = None,
        *,
        config: TuiConfig | None = None,
        header_target: str | None = None,
        checker_factory: Any = make_checker,
        refresh_interval: float = REFRESH_SECONDS,
        engine_process: bool = False,
        tune_gc: bool = False,
    ) -> None:
        super().__init__()
        self.tune_gc = tune_gc
        # the engine in a process of its own (as ``sitemap-tui`` runs it) or on a thread of this one
        self.engine_process = engine_process
        self.refresh_interval = refresh_interval
        self.target = target
        self.db_path = Path(db_path) if db_path is not None else None
        self.fetch_config = fetch_config
        self.options = options
        self.config = config if config is not None else load_config()
        self.header_target = header_target
        self.checker_factory = checker_factory
        self.offline = target is None
        self.bridge: EngineBridge | EngineProcess | None = None
        self._reader: Any = None
        self._selected: int | None = None
        self._selection: Selection | None = None
        self._dirty: set[int] = set()
        self._issue_dirty: set[int] = set()
        self._events_seen = False
        self._expand_all_node: int | None = None
        self._recount_generation = 0  # of the latest full issue recount (_recount_issues)
        self._pane_shown: dict[str, tuple[int | None, int]] = {}
        self._root_opened = False
        self._stored_target: str | None = None
        self._deep: tuple[int, int] | None = None
        self._crossfile = False  # the cross-file rules are running in the engine
        self._crossfile_step: str | None = None  # the step they are at
        self._search: tuple[int, int] | None = None  # search index being built: (covered, total)
        self._counting = False
        # set once the engine stopped or its store cannot be written: (short header text, why)
        self._stopped: tuple[str, str] | None = None
        self._tree = SitemapTree(id="tree")
        if self.config.keymap:
            self.set_keymap(self.config.keymap)

    # -- composition ----------------------------------------------------------------------------
    def get_default_screen(self) -> Screen[Any]:
        return MainScreen(id="_default")

    def compose(self) -> ComposeResult:
        yield StatusHeader(Text(" sitemap-tui"), id="header")
        with Horizontal(id="main"):
            yield self._tree
            with TabbedContent(id="tabs", initial="overview"):
                with TabPane("Overview", id="overview"):
                    yield OverviewPane(self.db_path, id="overview-pane")
                with TabPane("Extensions", id="extensions"):
                    yield ExtensionsPane(self.db_path, id="extensions-pane")
                with TabPane("Lastmod", id="lastmod"):
                    yield LastmodPane(self.db_path, id="lastmod-pane")
                with TabPane("Issues", id="issues"):
                    yield self._make_issues_pane()
                with TabPane("URLs", id="urls"):
                    yield self._make_url_table()
        yield Footer()

    def _make_issues_pane(self) -> Any:
        from sitemap_tui.tui.widgets.issues_pane import IssuesPane

        assert self.db_path is not None
        return IssuesPane(self.db_path, self.db_path.with_suffix(".bodies"), id="issues-pane")

    def _make_url_table(self) -> Any:
        from sitemap_tui.tui.widgets.url_table import UrlTable

        assert self.db_path is not None
        return UrlTable(self.db_path, id="url-table")

    @property
    def tree(self) -> SitemapTree:
        return self._tree

    @property
    def url_table(self) -> Any:
        widget = self.query_one_optional("#url-table")
        return widget if hasattr(widget, "show") else None

    @property
    def issues_pane(self) -> Any:
        widget = self.query_one_optional("#issues-pane")
        return widget if hasattr(widget, "show") else None

    # -- lifecycle ------------------------------------------------------------------------------
    def on_mount(self) -> None:
        cfg = self.config
        if cfg.theme:
            if cfg.theme in self.available_themes:
                self.theme = cfg.theme
            else:
                cfg.problems.append(f"unknown theme {cfg.theme!r} (try: {', '.join(sorted(self.available_themes)[:6])}, …)")
        for problem in cfg.problems:
            self.notify(display(problem), title="config", severity="warning", markup=False)
        self.tree_width = self._initial_tree_width()
        self.tree.focus()
        self.set_interval(self.refresh_interval, self._tick, name="pane-refresh")
        self.set_interval(SPINNER_SECONDS, self._spin, name="spinner")
        if self.offline:
            self._load_offline(at_start=True)
        else:
            self._start_engine()
        self._update_header()
        if self.tune_gc:
            self.call_after_refresh(quiet_gc)

    def on_unmount(self) -> None:
        self._shutdown_engine()

    def _shutdown_engine(self) -> None:
        if self.bridge is not None:
            self.bridge.stop()
            self.bridge = None
        if self._reader is not None:
            with contextlib.suppress(sqlite3.Error):
                self._reader.conn.close()
            self._reader = None

    def _start_engine(self) -> None:
        """The live engine for a target; for a saved exploration, an engine that fetches nothing
        but owns the file for the store-only work (cross-file checks, the search index)."""
        if self.db_path is None or (self.target is None and not self.offline):
            return
        if self._saved_read_only():
            return  # browsing still works; cross-file checks say why they cannot run
        if self.engine_process and self.checker_factory in (None, make_checker):
            self.bridge = EngineProcess(self, self.db_path, self.fetch_config, self.options,
                                        with_checker=self.checker_factory is not None)
        else:
            self.bridge = EngineBridge(self, self.db_path, self.fetch_config, self.options, checker_factory=self.checker_factory)
        self._start_bridge(self.bridge)

    @work(thread=True, group="engine-start", exit_on_error=False)
    def _start_bridge(self, bridge: EngineBridge | EngineProcess) -> None:
        # EngineReady (or EngineError) arrives as a message when the thread is up
        bridge.start()

    def _load_offline(self, *, at_start: bool = False) -> None:
        from sitemap_tui.engine.store import Store, StoreError
        from sitemap_tui.engine.storefile import inspect_store

        self.tree.read_only = True
        if self.db_path is None:
            return
        try:
            # before any connection: SQLite would leave files beside a database it reads
            inspect_store(self.db_path)
            store = Store(self.db_path, readonly=True)
            nodes = store.nodes()
            counts = store.issue_counts_by_node()
            self._stored_target = store.get_meta("target")
        except StoreError as exc:
            self._cannot_open(self.db_path, exc, closes_app=at_start)
            return
        except (sqlite3.Error, ValueError) as exc:
            self.notify(f"Cannot read {self.db_path}: {exc}", severity="error", markup=False)
            return
        self._reader = store
        self.tree.load_nodes(nodes, counts)
        roots = self.tree.model.roots()
        self.call_after_refresh(self._open_roots, roots)
        self._start_engine()

    def _cannot_open(self, path: Path, exc: Exception, *, closes_app: bool) -> None:
        """A file that is no exploration this version can open: a screen that names it (not an
        empty explorer); closing it quits when there is nothing else to show."""

        def closed(_result: None) -> None:
            if closes_app:
                self.exit(return_code=2)

        self.push_screen(StoreErrorScreen(path, str(exc), closes_app=closes_app), closed)

    def _open_roots(self, roots: list[int]) -> None:
        tree = self.tree
        for rid in roots:
            t = tree.tree_node(rid)
            if t is not None:
                t.expand()
            # show the next level too when it is already known (site -> robots.txt -> sitemaps)
            for cid in tree.model.children.get(rid, []):
                child = tree.model.nodes.get(cid)
                if child is not None and child.kind == NodeKind.ROBOTS and tree.model.children.get(cid):
                    tree.materialize(rid)
                    tree._add_some(len(tree._queue))
                    ct = tree.tree_node(cid)
                    if ct is not None:
                        ct.expand()
        if roots:
            first = tree.tree_node(roots[0])
            if first is not None:
                tree.move_cursor_to(first)
            self._select(roots[0])
        # only now: this runs after a refresh, and moves the cursor (tests and screenshots wait
        # for it before they move the cursor themselves)
        self._root_opened = True

    # -- engine messages --------------------------------------------------------------------------
    @on(EngineReady)
    def _engine_ready(self, _message: EngineReady) -> None:
        if self.bridge is not None and self.target is not None:
            self.bridge.open(self.target)

    @on(EngineEvents)
    def _engine_events(self, message: EngineEvents) -> None:
        changed, issue_nodes, done = self.tree.apply_events(message.events)
        self._dirty |= changed
        self._issue_dirty |= issue_nodes
        # an issue about a child (e.g. an unfetchable sitemap) may be filed under its parent
        model = self.tree.model
        self._issue_dirty |= {p for n in issue_nodes if (node := model.nodes.get(n)) is not None and (p := node.parent_id) is not None}
        self._events_seen = True
        if done:
            self._recount_issues()
        for ev in done:
            if ev.what == "expand-all":
                self._expand_all_node = None
                if ev.cancelled and self._stopped is None:  # (a stop says why on its own)
                    self.notify("Expand all cancelled.", markup=False)
                else:
                    self._expand_all_done(ev.files)
        self._update_header()

    def _expand_all_done(self, files: int) -> None:
        urls = sum(n.stats.url_count for n in self.tree.model.nodes.values())
        if urls <= AUTO_CROSSFILE_URLS and not self._crossfile:
            self.notify(f"Expand all done ({plural(files, 'file')} fetched in this session); checking across files…", markup=False)
            self._start_crossfile(auto=True)
        else:
            self.notify(
                f"Expand all done ({plural(files, 'file')} fetched in this session). Press k to check across"
                f" files ({plural(urls, 'URL')}: duplicates across sitemaps, hreflang return links, robots.txt).",
                markup=False,
            )

    def _recount_issues(self) -> None:
        """Every node's issue counts, after a run (catches issues filed under another node)."""
        self._recount_generation += 1
        self._recount_worker(self._recount_generation)

    @work(thread=True, exclusive=True, group="issue-counts", exit_on_error=False)
    def _recount_worker(self, generation: int) -> None:
        # exclusive only flags the older thread: its counts, read before the newer run's
        # issues were committed, may still arrive after the newer ones (IssueCounts.generation)
        from sitemap_tui.engine.store import Store

        if self.db_path is None or not self.db_path.exists():
            return
        try:
            store = Store(self.db_path, readonly=True)
        except sqlite3.Error:
            return
        try:
            counts = store.issue_counts_by_node()
        except sqlite3.Error:
            return
        finally:
            store.conn.close()
        self.post_message(IssueCounts({n: (c.get("error", 0), c.get("warning", 0)) for n, c in counts.items() if n is not None}, generation=generation))

    @work(thread=True, group="issue-counts-live", exit_on_error=False)
    def _count_issues(self, node_ids: list[int]) -> None:
        """Issue counts of the nodes that got new issues (index lookups, off the UI thread)."""
        from sitemap_tui.engine.store import Store

        counts: dict[int, tuple[int, int]] = {}
        try:
            if self.db_path is not None and self.db_path.exists():
                store = Store(self.db_path, readonly=True)
                try:
                    for nid in node_ids:
                        c = store.issue_counts([nid])
                        counts[nid] = (c.get("error", 0), c.get("warning", 0))
                finally:
                    store.conn.close()
        except sqlite3.Error:
            pass
        self.post_message(IssueCounts(counts, full=False))

    @on(IssueCounts)
    def _issue_counts(self, message: IssueCounts) -> None:
        tree = self.tree
        fresh = message.counts
        if not message.full:
            self._counting = False
        elif message.generation != self._recount_generation:
            return  # a newer recount is on its way
        stale = [n for n in tree.model.issues if n not in fresh] if message.full else []
        updates = {n: v for n, v in fresh.items() if tree.model.issues.get(n) != v}
        updates.update({n: (0, 0) for n in stale})
        if updates:
            tree.set_issue_counts(updates)
            self._dirty.update(updates)

    @on(CommandDone)
    def _command_done(self, message: CommandDone) -> None:
        if message.what == "open":
            root_id = message.result if isinstance(message.result, int) else None
            roots = [root_id] if root_id is not None else self.tree.model.roots()
            self.call_after_refresh(self._open_roots, roots)
        elif message.what == "expand" and message.node_id is not None:
            self.tree.fetch_finished(message.node_id)
            self._recount_issues()
        elif message.what == "reload" and message.node_id is not None:
            self.tree.fetch_finished(message.node_id)
            self._recount_issues()
            if message.result is False:
                node = self.tree.model.nodes.get(message.node_id)
                name = short_name(node) if node else "the file"
                self.notify(f"{name}: not modified since the last fetch.", markup=False)
        elif message.what == "expand-all" and message.result == "cancelled":
            self._expand_all_node = None
        elif message.what == "crossfile":
            self._crossfile = False
            self._crossfile_step = None
            if message.result == "cancelled":
                self.notify("Cross-file checks cancelled; the earlier results are kept.", markup=False)
            else:
                found = message.result if isinstance(message.result, int) else 0
                self.notify(f"Cross-file checks done: {plural(found, 'issue')} across the sitemaps (Issues pane, 4).", markup=False)
            self._issues_changed()
        elif message.what == "deep":
            self._deep = None
            found = message.result
            if found == "cancelled":
                self.notify("Deep checks cancelled; the issues found so far are kept.", markup=False)
            else:
                self.notify(f"Deep checks done: {plural(found if isinstance(found, int) else 0, 'issue')} found.", markup=False)
            self._issues_changed()
        self._update_header()

    def _issues_changed(self) -> None:
        """A run filed issues anywhere in the store: recount the tree, refresh the panes."""
        self._recount_issues()
        self._events_seen = True
        if self._selected is not None:
            self._dirty.add(self._selected)

    @on(DeepProgress)
    def _deep_progress(self, message: DeepProgress) -> None:
        if self._deep is not None:
            self._deep = (message.done, message.total)
            self._update_header()

    @on(CrossfileProgress)
    def _crossfile_progress(self, message: CrossfileProgress) -> None:
        if self._crossfile:
            self._crossfile_step = message.step
            self._update_header()

    @on(SearchProgress)
    def _search_progress(self, message: SearchProgress) -> None:
        self._search = (message.covered, message.total) if message.covered < message.total else None
        self._update_header()

    @on(EngineError)
    def _engine_error(self, message: EngineError) -> None:
        if message.node_id is not None:
            self.tree.fetch_finished(message.node_id)
        if message.what in ("engine", "store"):
            self._engine_stopped(message.what, message.message)
            return
        if message.what == "expand-all":
            self._expand_all_node = None
        if message.what == "deep":
            self._deep = None
        if message.what == "crossfile":
            self._crossfile = False
            self._crossfile_step = None
        self.notify(display(message.message), title=f"engine: {message.what}", severity="error", markup=False)
        self._update_header()

    def _engine_stopped(self, what: str, why: str) -> None:
        """The engine is gone (``engine``) or can keep nothing more (``store``: a write failed,
        say a full disk). Either way no file is fetched any more: the tree stops showing any as
        running and offers no fetch, the header says so, and so does a notification that stays.
        Said once; what the store holds can still be browsed."""
        if self._stopped is not None:
            return
        if what == "store":
            self._stopped = (STOPPED_STORE, why)
            title, marker = "the exploration cannot be saved", f"not finished: {why}"
        else:
            self._stopped = (STOPPED_ENGINE, why)
            title, marker = STOPPED_ENGINE, f"not finished: the engine stopped ({why})"
        self._expand_all_node = None
        self._deep = None
        self._crossfile = False
        self._crossfile_step = None
        self._search = None
        stopped = self.tree.engine_stopped(display(marker))
        self._dirty.update(stopped)
        self._events_seen = True
        after = "What was saved can still be browsed." if self.offline else (
            "Nothing more is fetched; what was saved can still be browsed.")
        self.notify(f"{display(why)}. {after}", title=title, severity="error",
                    timeout=LASTING_NOTICE_SECONDS, markup=False)
        self._update_header()

    # -- steady refresh -------------------------------------------------------------------------
    def _spin(self) -> None:
        self.tree.tick_spinner()

    def _tick(self) -> None:
        with contextlib.suppress(NoMatches):  # the app is shutting down
            self._tick_inner()

    def _tick_inner(self) -> None:
        if self._issue_dirty and not self._counting:
            batch = list(self._issue_dirty)[:ISSUE_COUNTS_PER_TICK]
            self._issue_dirty.difference_update(batch)
            self._counting = True
            self._count_issues(batch)
        if not self._events_seen and not self._dirty:
            return
        dirty, self._dirty = self._dirty, set()
        self._events_seen = False
        self._update_header()
        if self._selected is None:
            return
        sel = self._selection
        if sel is None or self._selected in dirty or dirty & set(sel.ids) or self._subtree_grew(sel, dirty):
            self._refresh_selection(force=False)

    def _subtree_grew(self, sel: Selection, dirty: set[int]) -> bool:
        if not sel.subtree:
            return False
        model = self.tree.model
        ids = set(sel.ids)
        return any((n := model.nodes.get(i)) is not None and n.parent_id in ids for i in dirty)

    # -- selection and panes --------------------------------------------------------------------
    @on(SitemapTree.NodeFocused)
    def _node_focused(self, message: SitemapTree.NodeFocused) -> None:
        if message.node_id != self._selected:
            self._select(message.node_id)

    @on(SitemapTree.FetchRequested)
    def _fetch_requested(self, message: SitemapTree.FetchRequested) -> None:
        if self.bridge is None or self.offline:
            self.tree.fetch_finished(message.node_id)
            if self.offline:
                self.notify("This exploration was opened from a file (offline): nothing is fetched.", markup=False)
            return
        self.bridge.expand(message.node_id)

    @on(OverviewPane.ChildChosen)
    def _child_chosen(self, message: OverviewPane.ChildChosen) -> None:
        if self.tree.reveal(message.node_id):
            self._select(message.node_id)
            self.tree.focus()

    def _select(self, node_id: int) -> None:
        self._selected = node_id
        self._refresh_selection(force=True)

    def make_selection(self, node_id: int) -> Selection | None:
        model = self.tree.model
        node = model.nodes.get(node_id)
        if node is None:
            return None
        kids = model.children.get(node_id, [])
        subtree = node.kind in SUBTREE_KINDS or bool(kids)
        ids = tuple(model.subtree_ids(node_id)) if subtree else (node_id,)
        nodes = {i: model.nodes[i] for i in ids if i in model.nodes}
        children = tuple(model.nodes[c] for c in kids if c in model.nodes)
        issues = {i: model.issues[i] for i in ids if i in model.issues}
        return Selection(node=node, ids=ids, subtree=subtree, children=children, nodes=nodes, issues=issues)

    def _refresh_selection(self, *, force: bool) -> None:
        if self._selected is None:
            return
        sel = self.make_selection(self._selected)
        if sel is None:
            return
        self._selection = sel
        self._pane_version = getattr(self, "_pane_version", 0) + 1
        self._sync_active_pane(force=force)

    def _active_tab(self) -> str:
        try:
            return self.query_one("#tabs", TabbedContent).active or "overview"
        except Exception:  # noqa: BLE001
            return "overview"

    def _sync_active_pane(self, *, force: bool = False) -> None:
        sel = self._selection
        if sel is None:
            return
        tab = self._active_tab()
        version = getattr(self, "_pane_version", 0)
        shown = self._pane_shown.get(tab)
        if shown == (sel.node_id, version) and not force:
            return
        same_node = shown is not None and shown[0] == sel.node_id
        self._pane_shown[tab] = (sel.node_id, version)
        if tab in ("overview", "extensions", "lastmod"):
            pane = self.query_one(f"#{tab}-pane", NodePane)
            pane.show(sel)
        elif tab == "urls":
            table = self.url_table
            if table is None:
                return
            flt = self._entry_filter(sel)
            scope = getattr(table, "scope", None)
            if same_node and not force and scope is not None and list(flt.node_ids or []) == list(scope.node_ids or []):
                table.data_changed()
            else:
                table.show(flt)
        elif tab == "issues":
            pane = self.issues_pane
            if pane is None:
                return
            if same_node and not force and getattr(self, "_issues_ids", None) == sel.ids:
                pane.data_changed()
            else:
                self._issues_ids = sel.ids
                pane.show(list(sel.ids))

    def _entry_filter(self, sel: Selection) -> Any:
        """The scope of the URL table (its own filter bar narrows it further)."""
        from sitemap_tui.engine.store import EntryFilter

        return EntryFilter(node_ids=sel.file_ids)

    @on(TabbedContent.TabActivated, "#tabs")
    def _tab_activated(self, _event: TabbedContent.TabActivated) -> None:
        self._sync_active_pane()

    # -- header ---------------------------------------------------------------------------------
    def _update_header(self) -> None:
        try:
            header = self.query_one("#header", StatusHeader)
        except Exception:  # noqa: BLE001
            return
        done, total, active, urls = self.tree.model.totals()
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(" sitemap-tui ", style="bold reverse")
        text.append("  ")
        target = self.header_target
        if target is None:
            if self.target is not None:
                target = self.target.raw
            elif self._stored_target:
                target = str(self._stored_target)
            elif self.db_path is not None:
                target = str(self.db_path)
            else:
                target = ""
        text.append(display(target, 80), style="bold")
        text.append("   ")
        text.append(f"files {done:,}/{total:,}", style="")
        text.append(" · ")
        text.append(plural(urls, "URL"))
        if self.offline:
            text.append("   offline", style="italic yellow")
        if self._stopped is not None:
            text.append(f"   {self._stopped[0]}", style="bold red")
        if self._expand_all_node is not None:
            node = self.tree.model.nodes.get(self._expand_all_node)
            name = short_name(node) if node else ""
            text.append(f"   expanding {name} … ({active} fetching; x cancels)", style="bold magenta")
        elif active:
            text.append(f"   {active} fetching", style="magenta")
        if self._deep is not None:
            done_n, total_n = self._deep
            text.append(f"   deep checks {done_n:,}/{total_n:,} (x cancels)", style="bold magenta")
        if self._crossfile:
            step = f": {self._crossfile_step}" if self._crossfile_step else ""
            text.append(f"   checking across files{step} … (x cancels)", style="bold magenta")
        if self._search is not None:
            covered, total = self._search
            text.append(f"   indexing URLs for search {covered / max(total, 1):.0%}", style="dim")
        header.update(text, layout=False)  # one docked line: a layout pass per batch cost ~6 ms

    # -- helpers ----------------------------------------------------------------------------------
    def _cursor_node(self) -> Node | None:
        nid = self.tree.cursor_id
        if nid is None:
            nid = self._selected
        return self.tree.model.nodes.get(nid) if nid is not None else None

    def _focused_url(self) -> str | None:
        """The URL the user is looking at: the URL table's current row, else the tree node."""
        focused = self.focused
        table = self.url_table
        if table is not None and focused is not None and (focused is table or table in focused.ancestors):
            row = getattr(table, "highlighted_entry", None)
            loc = getattr(row, "loc", None)
            if isinstance(loc, str) and loc:
                return loc
        node = self._cursor_node()
        if node is None:
            return None
        if node.kind == NodeKind.DIRECTORY:
            return None
        return node.stats.final_url or node.url

    def _saved_read_only(self) -> bool:
        """A saved exploration in a file this process cannot write: shown without an engine."""
        return self.offline and self.db_path is not None and not os.access(self.db_path, os.W_OK)

    def _require_engine(self, what: str, *, fetches: bool = True) -> bool:
        """Whether a command can go to the engine; ``fetches=False`` for the ones that only
        work on the store, which a saved exploration (opened from a file) can run too."""
        if self.offline and fetches:
            self.notify(f"{what} fetches from the web: this exploration was opened from a file (offline).", markup=False, severity="warning")
            return False
        if self._stopped is not None:
            short, why = self._stopped
            state = "the engine is not running" if short == STOPPED_ENGINE else short
            self.notify(f"{what}: {state} ({display(why)}).", markup=False, severity="warning")
            return False
        if self.bridge is not None and self.bridge.running:
            return True
        if self._saved_read_only():
            self.notify(f"{what} writes its results into {self.db_path}, which is not writable.", markup=False, severity="warning")
        else:
            self.notify(f"{what}: the engine is not running yet.", markup=False, severity="warning")
        return False

    # -- actions ----------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action in APP_ACTIONS

    def action_expand_all(self) -> None:
        node = self._cursor_node()
        if node is None or not self._require_engine("Expand all"):
            return
        if self._expand_all_node is not None:
            self.notify("Expand all is already running (x cancels it).", markup=False)
            return
        assert self.bridge is not None
        if not self.bridge.expand_all(node.id):
            return
        self._expand_all_node = node.id
        tnode = self.tree.tree_node(node.id)
        if tnode is not None:
            tnode.expand()
        self._update_header()

    def action_cancel(self) -> None:
        active = any(n.state in ACTIVE for n in self.tree.model.nodes.values())
        if self.bridge is None or (
            self._expand_all_node is None and not active and self._deep is None and not self._crossfile
        ):
            return
        self.bridge.cancel()
        self.notify("Cancelling…", markup=False)

    def action_reload(self) -> None:
        node = self._cursor_node()
        if node is None or not self._require_engine("Reload"):
            return
        if node.kind in CONTAINERS:
            self.notify("Reload works on a file (robots.txt, an index or a sitemap).", markup=False)
            return
        if node.state in ACTIVE:
            self.notify("This file is being fetched right now.", markup=False)
            return
        assert self.bridge is not None
        self.bridge.reload(node.id)
        self.notify(f"Reloading {short_name(node)}…", markup=False)

    def action_export(self) -> None:
        from sitemap_tui.tui.screens.export import ExportScreen as export_cls

        if self.db_path is None:
            return
        scopes = self._export_scopes()
        if not scopes:
            self.notify("Select a node first.", markup=False)
            return

        def done(result: tuple[int, Path] | None) -> None:
            if result:
                count, path = result
                self.notify(f"Exported {plural(count, 'URL')} to {path}", title="export", markup=False)

        default_dir = Path.cwd()
        self.push_screen(export_cls(self.db_path, scopes, default_dir), done)

    def _export_scopes(self) -> dict[str, Any]:
        from sitemap_tui.engine.store import EntryFilter

        scopes: dict[str, Any] = {}
        sel = self._selection
        if sel is not None:
            if not sel.subtree or sel.node.kind not in CONTAINERS:
                scopes["this node"] = EntryFilter(node_ids=[sel.node_id])
            if sel.subtree:
                scopes["subtree"] = EntryFilter(node_ids=sel.file_ids)
        table = self.url_table
        if table is not None:
            flt = getattr(table, "current_filter", None)
            if flt is not None:
                scopes["filtered rows"] = flt
            marked = getattr(table, "marked_filter", None)
            if marked is None and getattr(table, "marked_ids", None):
                marked = EntryFilter(entry_ids=sorted(table.marked_ids))
            if marked is not None:
                scopes["marked rows"] = marked
        pane = self.issues_pane
        rule = getattr(pane, "selected_rule", None) if pane is not None else None
        if rule and sel is not None:
            scopes["URLs of the selected issue"] = EntryFilter(node_ids=sel.file_ids, rule=rule)
        return scopes

    def action_filter(self) -> None:
        self.query_one("#tabs", TabbedContent).active = "urls"
        table = self.url_table
        if table is None:
            return
        from textual.widgets import Input

        box = table.query_one_optional("#url-filter", Input)
        self.call_after_refresh((box or table).focus)

    def action_validate_deep(self) -> None:
        node = self._cursor_node()
        if node is None:
            return

        if not self._require_engine("Deep validation"):
            return
        if self._deep is not None:
            self.notify("Deep checks are already running (x cancels them).", markup=False)
            return
        sel = self.make_selection(node.id)
        ids = [i for i in (sel.file_ids if sel else [node.id]) if (n := self.tree.model.nodes.get(i)) is not None and n.state == NodeState.DONE]
        if not ids:
            self.notify("Nothing fetched here yet: expand it first (e), then run the deep checks.", markup=False)
            return
        assert self.bridge is not None
        if self.bridge.deep(ids):
            self._deep = (0, 0)
            self.notify(f"Deep checks started on {plural(len(ids), 'file')}: a sample of URLs is fetched (x cancels).", markup=False)
            self._update_header()

    def action_check_files(self) -> None:
        """The cross-file rules over everything fetched so far (they replace their earlier issues)."""
        if not self._require_engine("Cross-file checks", fetches=False):
            return
        if self._crossfile:
            self.notify("Cross-file checks are already running (x cancels them).", markup=False)
            return
        if self._expand_all_node is not None or any(n.state in ACTIVE for n in self.tree.model.nodes.values()):
            self.notify("Files are still being fetched: wait for them, or cancel (x), then check across files.", markup=False)
            return
        if not any(n.state == NodeState.DONE and n.stats.url_count for n in self.tree.model.nodes.values()):
            self.notify("Nothing fetched yet: expand the sitemaps first (e), then check across files.", markup=False)
            return
        self._start_crossfile(auto=False)

    def _start_crossfile(self, *, auto: bool) -> None:
        """``auto``: the app's own run after an expand-all, without a toast of its own, and
        waiting in the engine for any fetch the user started meanwhile (k refuses instead)."""
        if self.bridge is None or not self.bridge.crossfile(when_idle=auto):
            return
        self._crossfile = True
        self._crossfile_step = None
        if not auto:
            self.notify(
                "Cross-file checks started: duplicates across sitemaps, hreflang return links,"
                " robots.txt rules, mixed hosts (x cancels).",
                markup=False,
            )
        self._update_header()

    def action_copy_url(self) -> None:
        url = self._focused_url()
        if not url:
            self.notify("Nothing to copy.", markup=False)
            return
        self.copy_to_clipboard(url)
        self.notify(f"Copied {display(url, 200)}", markup=False)

    def action_open_browser(self) -> None:
        url = self._focused_url()
        if not url:
            return
        reason = urlpolicy.unfetchable_reason(url)
        if reason is not None:
            self.notify(f"Only http(s) URLs are opened in the browser ({reason}).", markup=False, severity="warning")
            return
        body = Text("Open this URL in your web browser?\n\n")
        body.append(display(url, 500), style="bold")

        def answer(ok: bool | None) -> None:
            if ok:
                self.open_url(url)

        self.push_screen(ConfirmScreen("Open in browser", body, yes="Open"), answer)

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.current_theme.dark else "textual-dark"

    def action_open_file(self) -> None:
        async def chosen(path: Path | None) -> None:
            if path is not None:
                await self.open_path(path)

        self.push_screen(PathPrompt(), chosen)

    async def open_path(self, path: Path) -> None:
        """Show another exploration: a saved .db offline, or explore a local path."""
        if path.suffix.lower() == ".db" and path.is_file():
            from sitemap_tui.engine.store import StoreError
            from sitemap_tui.engine.storefile import inspect_store

            try:
                inspect_store(path)
            except StoreError as exc:  # the exploration shown stays
                self._cannot_open(path, exc, closes_app=False)
                return
            self._reset()
            self.offline = True
            self.target = None
            self.db_path = path
            await self._set_pane_db(path)
            self._load_offline()
        else:
            try:
                target = Target.parse(str(path))
            except TargetError as exc:
                self.notify(str(exc), severity="error", markup=False)
                return
            from sitemap_tui.session.paths import default_db_path

            self._reset()
            self.offline = False
            self.target = target
            self.db_path = default_db_path(target)
            await self._set_pane_db(self.db_path)
            self._start_engine()
        self._update_header()

    async def _set_pane_db(self, path: Path) -> None:
        for pane in self.query(NodePane):
            pane.db_path = path
        # the URL table and issues pane hold their own store handles: rebuild them
        for pane_id, factory in (("urls", self._make_url_table), ("issues", self._make_issues_pane)):
            tab = self.query_one(f"#{pane_id}", TabPane)
            await tab.remove_children()
            await tab.mount(factory())

    def _reset(self) -> None:
        self._shutdown_engine()
        tree = self.tree
        tree.clear()
        tree.model = type(tree.model)()
        tree._tnodes.clear()
        tree._materialized.clear()
        tree._placeholders.clear()
        tree._queue.clear()
        tree._requested.clear()
        tree.read_only = False
        self._selected = None
        self._selection = None
        self._pane_shown.clear()
        self._expand_all_node = None
        self._root_opened = False
        self._stored_target = None
        self._stopped = None
        for pane in self.query(NodePane):
            pane.show(None)

    def action_help(self) -> None:
        path = str(self.config.path) if self.config.path else None
        self.push_screen(HelpScreen(self.help_entries(), path))

    def help_entries(self) -> list[HelpEntry]:
        """Active bindings of the main screen (keymap applied), app bindings first."""
        screen = self.screen
        entries: dict[tuple[str, str], HelpEntry] = {}
        by_action: dict[tuple[int, str], list[str]] = {}
        infos: dict[tuple[int, str], tuple[Any, Any]] = {}
        for key, active in screen.active_bindings.items():
            b = active.binding
            ident = (id(active.node), b.action)
            by_action.setdefault(ident, []).append(self.get_key_display(b) if key == b.key else key)
            infos[ident] = (active.node, b)
        for ident, keys in by_action.items():
            namespace, b = infos[ident]
            if not b.description:
                continue
            where = "everywhere" if namespace is self else WHERE.get(type(namespace).__name__, type(namespace).__name__)
            entry = HelpEntry(", ".join(dict.fromkeys(keys)), b.description, b.id or "", where)
            entries[(where, b.action)] = entry
        order = {"everywhere": 0, "tree": 1, "screen": 3}
        return sorted(entries.values(), key=lambda e: (order.get(e.where, 2), e.where))

    def action_tree_narrower(self) -> None:
        self.tree_width = self.tree_width - 4

    def action_tree_wider(self) -> None:
        self.tree_width = self.tree_width + 4

    def _initial_tree_width(self) -> int:
        width = self.size.width or 80
        return max(24, min(64, int(width * 0.4)))

    def validate_tree_width(self, value: int) -> int:
        width = self.size.width or 80
        return max(16, min(value, max(16, width - 30)))

    def watch_tree_width(self, value: int) -> None:
        with contextlib.suppress(Exception):  # before compose
            self.tree.styles.width = value

    def _show_tab(self, tab: str) -> None:
        self.query_one("#tabs", TabbedContent).active = tab

    def action_tab_overview(self) -> None:
        self._show_tab("overview")

    def action_tab_extensions(self) -> None:
        self._show_tab("extensions")

    def action_tab_lastmod(self) -> None:
        self._show_tab("lastmod")

    def action_tab_issues(self) -> None:
        self._show_tab("issues")

    def action_tab_urls(self) -> None:
        self._show_tab("urls")

    def action_focus_tree(self) -> None:
        self.tree.focus()

    def action_lastmod_mode(self) -> None:
        self._show_tab("lastmod")
        self.query_one(LastmodPane).chart.action_cycle_mode()

    # -- messages from the other panes ------------------------------------------------------------
    def on_issues_pane_jump_to_entry(self, message: Any) -> None:
        entry_id = getattr(message, "entry_id", None)
        if entry_id is None:
            return
        self._show_tab("urls")
        table = self.url_table
        if table is not None:
            self.call_after_refresh(table.jump_to_entry, entry_id)

    # -- command palette --------------------------------------------------------------------------
    def palette_commands(self) -> list[PaletteCommand]:
        node = self._cursor_node()
        live = self.bridge is not None and self.bridge.running
        cmds: list[PaletteCommand] = []
        name = short_name(node) if node is not None else ""
        if node is not None:
            cmds.append(PaletteCommand("Expand all", f"Fetch the whole subtree of {name}" + ("" if live else " (needs the live engine)"), "expand_all"))
        if self._expand_all_node is not None or self._deep is not None or self._crossfile or any(n.state in ACTIVE for n in self.tree.model.nodes.values()):
            cmds.append(PaletteCommand("Cancel", "Stop expand-all, deep checks, cross-file checks and the fetches in progress", "cancel"))
        cmds.append(PaletteCommand("Export URLs", "Write URLs (this node, subtree, filtered or marked rows) to txt / CSV / JSONL", "export"))
        cmds.append(PaletteCommand("Filter URLs", "Filter the URL table (substring, regex, lastmod, issues, extensions)", "filter"))
        if node is not None and node.kind not in CONTAINERS:
            cmds.append(PaletteCommand("Reload node", f"Fetch {name} again with a conditional GET", "reload"))
        if node is not None:
            cmds.append(PaletteCommand("Validate deep", f"Live checks of a sample of the URLs under {name} (status, redirects, robots, canonical)", "validate_deep"))
            cmds.append(PaletteCommand("Copy URL", "Copy the highlighted URL to the clipboard", "copy_url"))
            url = node.stats.final_url or node.url
            if urlpolicy.unfetchable_reason(url) is None:
                cmds.append(PaletteCommand("Open in browser", "Open the highlighted http(s) URL (asks first)", "open_browser"))
        cmds.append(PaletteCommand("Cross-file checks", "Duplicate URLs across sitemaps, hreflang return links, robots.txt rules, mixed http/https and www" + ("" if live else " (needs the live engine)"), "check_files"))
        cmds.append(PaletteCommand("Toggle theme", "Switch between the dark and the light theme", "toggle_theme"))
        cmds.append(PaletteCommand("Open file", "Explore a local sitemap / directory, or reopen a saved .db", "open_file"))
        cmds.append(PaletteCommand("Lastmod: year / month / day", "Change the lastmod chart's period", "lastmod_mode"))
        cmds.append(PaletteCommand("Help", "Show the key bindings", "help"))
        for tab in TABS:
            cmds.append(PaletteCommand(f"Show {tab} pane", f"Switch to the {tab} tab", f"tab_{tab}"))
        return cmds

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield SystemCommand("Theme", "Change the current theme", self.action_change_theme)
        yield SystemCommand("Quit", "Quit sitemap-tui", self.action_quit)


def quiet_gc() -> None:
    """Keep the cyclic garbage collector from stalling the UI loop.

    A full collection walks every tracked object: with Textual, the widgets and their caches that is
    over 100,000 objects and 80-120 ms on a slow core, a visible freeze. Objects alive now (modules,
    widgets) are moved out of the collector's sight (they are freed by reference counting as usual),
    and the young generations are kept small: a collection costs about a microsecond per object it
    walks, so 50,000 young objects meant 45-55 ms pauses, while 10,000 (and the middle generation
    collected every third time) keeps each pass under ~15 ms (bench/bench_tui.py, GC pauses)."""
    gc.freeze()
    gc.set_threshold(10_000, 3, 100)


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
) -> int:
    """Run the explorer; returns the exit code."""
    prestart_multiprocessing()  # the engine runs in a process of its own (and "open file" may start one)
    app = SitemapApp(target=target, db_path=db_path, fetch_config=fetch_config, options=options,
                     engine_process=True, tune_gc=True)
    from sitemap_tui import signals

    try:
        # SIGTERM/SIGHUP: the app exits, so Textual leaves the alternate screen and restores the
        # terminal; the engine process is stopped below
        with signals.exit_app(app):
            app.run()
    finally:
        app._shutdown_engine()
    if target is not None and db_path is not None and Path(db_path).exists():
        print(f"sitemap-tui: exploration saved to {db_path} (reopen: sitemap-tui open {db_path})", file=sys.stderr)
    return int(app.return_code or 0)


_ = NodeState

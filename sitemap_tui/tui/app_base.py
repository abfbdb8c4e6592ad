"""The explorer app's state and layout: the tree, the panes, the header, and what is running.

:class:`AppBase` is the bottom of the app's classes (each module one job): ``app_panes`` keeps
the panes on the highlighted node, ``app_engine`` talks to the engine, ``app_actions`` holds the
user's commands, and ``app`` assembles them with the key bindings. What tests and the screenshot
script read is public here: :attr:`AppBase.selected_id`, :attr:`AppBase.root_opened`,
:attr:`AppBase.jobs`, :meth:`AppBase.is_settled`.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult, ScreenStackError
from textual.containers import Horizontal
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static, TabPane

from sitemap_tui.engine.discover import Target
from sitemap_tui.engine.model import Node, NodeKind
from sitemap_tui.engine.sanitize import display
from sitemap_tui.tui.bridge import EngineBridge, EngineProcess, make_checker
from sitemap_tui.tui.config import TuiConfig, load_config
from sitemap_tui.tui.footer import NARROW_COLUMNS, AppFooter
from sitemap_tui.tui.keymap_check import check_keymap
from sitemap_tui.tui.keymap_specs import binding_specs
from sitemap_tui.tui.refetches import Refetches
from sitemap_tui.tui.screens import SafeActions
from sitemap_tui.tui.widgets import Selection
from sitemap_tui.tui.widgets.changes_pane import ChangesPane
from sitemap_tui.tui.widgets.extensions import ExtensionsPane
from sitemap_tui.tui.widgets.lastmod_chart import LastmodPane
from sitemap_tui.tui.widgets.overview import OverviewPane
from sitemap_tui.tui.widgets.pane_tabs import PaneTabs
from sitemap_tui.tui.widgets.sitemap_tree import ACTIVE, SitemapTree, short_name
from sitemap_tui.tui.widgets.url_table.columns import elide_middle
from sitemap_tui.words import plural

REFRESH_SECONDS = 0.5
STOPPED_ENGINE = "engine stopped"  # what the header says then
STOPPED_STORE = "the store cannot be written"
MAIN_SCREEN_ACTIONS: frozenset[str] = frozenset(
    {"focus_next", "focus_previous", "copy_text", "maximize", "minimize"}
)
MIN_TREE = 16
"""The narrowest tree ([ stops there)."""
MIN_PANES = 30
"""The columns the tree always leaves to the panes (] stops there)."""
NARROW_TREE = 28
"""The most the tree takes by default below :data:`NARROW_COLUMNS` (issue 18: at 80 columns it
took 32, after a resize from a wide terminal 63, leaving the panes ~16)."""


def default_tree_width(columns: int) -> int:
    """The tree's width on a terminal ``columns`` wide, before the user changes it: 40% of a
    wide terminal (at most 64), 35% of a narrow one (at most :data:`NARROW_TREE`)."""
    if columns < NARROW_COLUMNS:
        return max(MIN_TREE, min(NARROW_TREE, int(columns * 0.35)))
    return max(24, min(64, int(columns * 0.4)))


class MainScreen(SafeActions, Screen[None]):
    ALLOWED_ACTIONS = MAIN_SCREEN_ACTIONS
    # zoomed (z), the header stays: it says what runs and that x cancels it
    ALLOW_IN_MAXIMIZED_VIEW = "Footer, StatusHeader"
    # Escape keeps its own meanings (close a filter, go back, focus the tree); z unzooms
    ESCAPE_TO_MINIMIZE = False

    def watch_maximized(self) -> None:
        if isinstance(self.app, AppBase):
            self.app.zoom_changed()


class StatusHeader(Static):
    """One line: app name, target, overall progress, what is running."""

    DEFAULT_CSS = """
    StatusHeader { dock: top; height: 1; background: $panel; color: $foreground; text-wrap: nowrap; text-overflow: ellipsis; }
    """


@dataclass(slots=True)
class Jobs:
    """What the engine runs for the app (the header shows it; x cancels it)."""

    expand_all_node: int | None = None
    """The node an expand-all runs on."""
    deep: tuple[int, int] | None = None
    """Deep checks running: (URLs done, URLs in all)."""
    crossfile: bool = False
    """The cross-file rules are running in the engine."""
    crossfile_step: str | None = None
    """The step they are at."""
    search: tuple[int, int] | None = None
    """The search index being built: (covered, total)."""
    audit: tuple[int, int] | None = None
    """The explorer's audit running: (URLs stored, URLs to fetch when it started)."""
    audits_ended: int = 0
    """Audits ended (done or cancelled) so far: the answer to "Audit?" starts one on a later
    message, so an idle engine may still be the moment before it (the screenshot script waits
    on this)."""
    access: bool = False
    """The crawler-access table is being computed."""
    stopped: tuple[str, str] | None = None
    """Set once the engine stopped or its store cannot be written: (short header text, why)."""


class AppBase(App[int]):
    """The app's state, its widgets and the header (see the module docstring)."""

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
        compare_with: Path | None = None,
        site_history: bool = True,
    ) -> None:
        super().__init__()
        self.compare_with = Path(compare_with) if compare_with is not None else None  # diff --tui
        # the Overview's history line reads the cache: screenshots and most tests leave it out,
        # so that what the cache holds never changes what they show
        self.reads_site_history = site_history
        self.tune_gc = tune_gc
        # the engine in a process of its own (as ``sitemap-tui`` runs it) or on a thread of this one
        self.engine_process = engine_process
        self.refresh_interval = refresh_interval
        self.target = target
        self.db_path = Path(db_path) if db_path is not None else None
        self.left_dbs: set[Path] = set()  # explorations shown before this one (ctrl+o): logs folded at exit
        self.fetch_config = fetch_config
        self.options = options
        self.config = config if config is not None else load_config()
        self._home_theme: str | None = None  # the theme at start: the toggle comes back to it
        self._saved_theme: str | None = None  # what the config file holds
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
        self.jobs = Jobs()
        self._recount_generation = 0  # of the latest full issue recount (recount_issues)
        self._recounted = 0  # the latest generation whose counts are on the tree (or that could not read)
        self._pane_shown: dict[str, tuple[int | None, int]] = {}
        self._pane_version = 0
        self._issues_ids: tuple[int, ...] | None = None
        self._root_opened = False
        self._stored_target: str | None = None
        self._counting = False
        self.refetches = Refetches(self._rows_removed)
        self._tree = SitemapTree(id="tree")
        self._tree_chosen: dict[bool, int] = {}  # the user's tree width ([ / ]), narrow or wide terminal
        if self.config.keymap:
            # only what passes is applied: Textual would take a clashing key from its owner silently
            applied, problems = check_keymap(self.config.keymap, binding_specs(type(self)), str(self.config.path or "config"))
            self.config.problems.extend(problems)
            self.set_keymap(applied)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)
        # Textual 8.2 leaves an expired toast painted where it was when the toasts overflowed
        # their rack (an expand-all on 80x24 shows five): the screen is painted again just
        # after each one expires (seen in tmux; a Pilot picture renders afresh and never shows it)
        wait = self.NOTIFICATION_TIMEOUT if timeout is None else timeout
        self.set_timer(wait + 0.1, self.repaint_after_toast)

    def repaint_after_toast(self) -> None:
        """Paint the screen again (see :meth:`notify`); nothing once the app is closing."""
        try:
            screen = self.screen
        except ScreenStackError:  # the timer outlived the screens (CI saw it on quitting)
            return
        screen.refresh()

    # -- composition ----------------------------------------------------------------------------
    def get_default_screen(self) -> Screen[Any]:
        return MainScreen(id="_default")

    def compose(self) -> ComposeResult:
        yield StatusHeader(Text(" sitemap-tui"), id="header")
        with Horizontal(id="main"):
            yield self._tree
            with PaneTabs(id="tabs", initial="overview"):
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
                with TabPane("Changes", id="changes"):
                    yield ChangesPane(id="changes-pane")
        yield AppFooter()

    def _make_issues_pane(self) -> Any:
        from sitemap_tui.engine.bodycache import bodies_beside
        from sitemap_tui.tui.widgets.issues_pane import IssuesPane

        assert self.db_path is not None
        return IssuesPane(self.db_path, bodies_beside(self.db_path), id="issues-pane")

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

    def _rows_removed(self, ongoing: bool) -> None:
        """Files are being fetched again (``ongoing``), or the last one is over: the URL table
        counts its whole listing again (tui/refetches.py)."""
        table = self.url_table
        if table is not None:
            table.rows_removed(ongoing=ongoing)

    @property
    def issues_pane(self) -> Any:
        widget = self.query_one_optional("#issues-pane")
        return widget if hasattr(widget, "show") else None

    # -- what tests and the screenshot script read ---------------------------------------------
    @property
    def selected_id(self) -> int | None:
        """The node the panes show (the tree's cursor, once the panes followed it)."""
        return self._selected

    @property
    def root_opened(self) -> bool:
        """The exploration's root is shown and selected (set after a refresh: tests and the
        screenshot script wait for it before they move the cursor themselves)."""
        return self._root_opened

    def engine_idle(self) -> bool:
        """Nothing is being fetched, expanded or checked, and the tree has shown what it asked for."""
        return (
            self._root_opened
            and self.jobs.expand_all_node is None
            and not self.jobs.crossfile  # (an expand-all of a small set runs them by itself)
            and not self.jobs.access and self.jobs.audit is None  # (crawler access: after an expand-all too)
            and not any(n.state in ACTIVE for n in self.tree.model.nodes.values())
            and self.tree.is_idle
        )

    def panes_quiet(self) -> bool:
        """The panes have drawn the latest data and the tree's issue counts are current."""
        # (a full recount's counts came after its worker ended, and a snapshot could be taken
        # between the two: a tree without the cross-file checks' counts, found under load)
        return (not self._dirty and not self._events_seen and not self._issue_dirty and not self._counting
                and self._recounted == self._recount_generation)

    def is_settled(self) -> bool:
        """The engine is idle and every pane shows its latest data (workers aside)."""
        return self.engine_idle() and self.panes_quiet()

    # -- header ---------------------------------------------------------------------------------
    def _progress_text(self, done: int, total: int, active: int, urls: int, short: int) -> Text:
        """The header's counts and what runs; ``short`` 1 and 2 leave out an expand-all's node,
        then its count of fetches, keeping "x cancels"."""
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"files {done:,}/{total:,}", style="")
        text.append(" · ")
        text.append(plural(urls, "URL"))
        if self.offline:
            text.append("   offline", style="italic yellow")
        if self.jobs.stopped is not None:
            text.append(f"   {self.jobs.stopped[0]}", style="bold red")
        if self.jobs.expand_all_node is not None:
            node = self.tree.model.nodes.get(self.jobs.expand_all_node)
            name = short_name(node) if node else ""
            what = (f"expanding {name} … ({active} fetching; x cancels)", f"expanding … ({active} fetching; x cancels)",
                    "expanding … (x cancels)")[short]
            text.append(f"   {what}", style="bold magenta")
        elif active:
            text.append(f"   {active} fetching", style="magenta")
        if self.jobs.deep is not None:
            done_n, total_n = self.jobs.deep
            text.append(f"   deep checks {done_n:,}/{total_n:,} (x cancels)", style="bold magenta")
        if self.jobs.crossfile:
            step = f": {self.jobs.crossfile_step}" if self.jobs.crossfile_step else ""
            text.append(f"   checking across files{step} … (x cancels)", style="bold magenta")
        if self.jobs.audit is not None:
            done_a, total_a = self.jobs.audit
            counted = f" {done_a:,}/{total_a:,} URLs" if total_a else " …"  # (0, 0): not counted yet
            text.append(f"   auditing{counted} (x cancels)", style="bold magenta")
        if self.jobs.access:
            text.append("   crawler access …", style="magenta")
        comparing = getattr(self, "comparing", None)  # compare mode (app_compare)
        if comparing:
            text.append(f"   comparing with {comparing} …", style="bold magenta")
        if self.jobs.search is not None:
            covered, total = self.jobs.search
            text.append(f"   indexing URLs for search {covered / max(total, 1):.0%}", style="dim")
        return text

    def update_header(self) -> None:
        try:
            header = self.query_one("#header", StatusHeader)
        except Exception:  # noqa: BLE001
            return
        done, total, active, urls = self.tree.model.totals()
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
        # shorter and shorter: at 80 columns the expand-all's name pushed "x cancels" off the
        # line, and the footer had no room for x either
        for short in range(3):
            text = self._progress_text(done, total, active, urls, short)
            if 13 + 2 + 12 + 3 + text.cell_len <= (self.size.width or 80):
                break
        # The target takes what the progress leaves, cut in the middle: a long path or URL
        # wrapped to the line below (out of view) at 80 columns, and took the progress with it.
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(" sitemap-tui ", style="bold reverse")
        line.append("  ")
        room = (self.size.width or 80) - line.cell_len - text.cell_len - 3
        line.append(elide_middle(display(target, 300), max(12, room)), style="bold")
        line.append("   ")
        line.append_text(text)
        header.update(line, layout=False)  # one docked line: a layout pass per batch cost ~6 ms

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
        if self.jobs.stopped is not None:
            short, why = self.jobs.stopped
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

    # -- tree width ---------------------------------------------------------------------------
    def _initial_tree_width(self) -> int:
        """The tree's width for the terminal as it is: the user's own ([ / ]) for this kind of
        terminal (narrow or wide), else the default."""
        width = self.size.width or 80
        narrow = width < NARROW_COLUMNS
        return self._tree_chosen.get(narrow, default_tree_width(width))

    def remember_tree_width(self) -> None:
        """The width the tree has now is the user's choice for this kind of terminal."""
        self._tree_chosen[(self.size.width or 80) < NARROW_COLUMNS] = self.tree_width

    def validate_tree_width(self, value: int) -> int:
        width = self.size.width or 80
        return max(MIN_TREE, min(value, max(MIN_TREE, width - MIN_PANES)))

    def watch_tree_width(self, value: int) -> None:
        self._apply_tree_width()

    def _apply_tree_width(self) -> None:
        with contextlib.suppress(Exception):  # before compose
            # zoomed, the tree takes the whole width; its inline width would beat any CSS
            self.tree.styles.width = "1fr" if self.tree.is_maximized else self.tree_width

    def on_resize(self, event: events.Resize) -> None:
        # after App's own handler has taken the new size (validate_tree_width reads it)
        self.call_next(self._fit_tree)

    def _fit_tree(self) -> None:
        if self.tree_width:  # set at mount: a resize before it has nothing to fit
            self.tree_width = self._initial_tree_width()
        self.update_header()  # the target is cut to the new width

    # -- hiding and zooming --------------------------------------------------------------------
    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """A zoomed view follows the focus (0 from a zoomed pane zooms the tree), and a hidden
        tree that gets the focus shows again."""
        widget = event.widget
        if widget is self.tree and not self.tree.display:
            self.tree.display = True
        screen = self.screen
        if screen.maximized is not None and not widget.is_in_maximized_view:
            screen.maximize(widget)

    def zoom_changed(self) -> None:
        """The screen's zoom changed (z, or the focus moving out of a zoomed pane)."""
        self._apply_tree_width()
        pane = self.issues_pane
        if pane is not None:
            # a maximized pane gets its new width without a Resize of its own: its source lines
            # kept the narrow cut (z at 80x24), its compact layout too
            pane.call_after_refresh(pane.on_resize)


"""The app's side of the engine: starting it, and what its messages change in the app.

The engine runs in its own process (``bridge.EngineProcess``; or on a thread,
``bridge.EngineBridge``) and reports in event batches; the tree applies each batch (in 8 ms
slices when it is large), the panes follow at their steady rate (``app_panes``). A saved exploration (``sitemap-tui open``)
gets an engine that fetches nothing and only runs the store-only work.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from pathlib import Path

from textual import on, work
from textual.theme import Theme

from sitemap_tui.engine.events import Event, ExplorationDone
from sitemap_tui.engine.model import NodeKind
from sitemap_tui.engine.sanitize import display
from sitemap_tui.tui import gc_tuning
from sitemap_tui.tui.app_base import STOPPED_ENGINE, STOPPED_STORE
from sitemap_tui.tui.app_panes import PaneSync
from sitemap_tui.tui.bridge import EngineBridge, EngineProcess, make_checker
from sitemap_tui.tui.config import save_theme
from sitemap_tui.tui.gc_tuning import quiet_gc, settle_gc
from sitemap_tui.tui.messages import (
    CommandDone,
    CrossfileProgress,
    DeepProgress,
    EngineError,
    EngineEvents,
    EngineReady,
    IssueCounts,
    Outdated,
    SearchProgress,
)
from sitemap_tui.tui.screens.error import StoreErrorScreen
from sitemap_tui.tui.strip_cycles import patch_strips
from sitemap_tui.tui.widgets.sitemap_tree import SitemapTree, short_name, since_text
from sitemap_tui.tui.widgets.url_table.messages import Indexed
from sitemap_tui.words import plural

SPINNER_SECONDS = 0.2
LASTING_NOTICE_SECONDS = 10 * 365 * 24 * 3600.0
"""A notification that stays until it is clicked: for what goes on being true (the engine stopped,
the store cannot be written), where a toast that vanishes after seconds could go unseen."""
AUTO_CROSSFILE_URLS = 200_000
"""After an expand-all of at most this many URLs the cross-file checks run by themselves (about a
second of SQL); above it they wait for k, since they hold the store (~30 s on 10 M URLs)."""
APPLY_SLICE_EVENTS = 256
"""Events of one batch applied to the tree between two looks at the clock."""
APPLY_SLICE_SECONDS = 0.008
"""A batch that takes longer to apply (thousands of sitemaps listed by one index, a reload) hands
the event loop back after this long, a quarter of a 30 fps frame, so the screen is drawn and keys
are read between its slices."""


class EngineLink(PaneSync):
    """Starts the engine and applies what it reports (see the module docstring)."""

    quitting = False
    """Set when the user quits: what the engine still reports is not applied any more."""

    # -- lifecycle ------------------------------------------------------------------------------
    def on_mount(self) -> None:
        patch_strips()  # before the first frame: every line drawn is freed by reference counting
        cfg = self.config
        if cfg.theme:
            if cfg.theme in self.available_themes:
                self.theme = cfg.theme
            else:
                cfg.problems.append(f"{cfg.path or 'config'}: unknown theme {cfg.theme!r} "
                                    f"(try: {', '.join(sorted(self.available_themes)[:6])}, …)")
        self.follow_theme()
        for problem in cfg.problems:
            # lasting: read at start, while the eye is on the tree, a toast would vanish unread
            self.notify(display(problem), title="config", severity="warning", markup=False,
                        timeout=LASTING_NOTICE_SECONDS)
        if getattr(self.fetch_config, "insecure", False):
            # the stderr warning is hidden under the TUI: say it where the user looks, and keep it
            self.notify("--insecure: TLS certificates are not checked; anyone on the path can "
                        "answer for the site.", title="insecure", severity="warning", markup=False,
                        timeout=LASTING_NOTICE_SECONDS)
        self.tree_width = self._initial_tree_width()
        self.tree.focus()
        self.set_interval(self.refresh_interval, self._tick, name="pane-refresh")
        self.set_interval(SPINNER_SECONDS, self._spin, name="spinner")
        if self.offline:
            self._load_offline(at_start=True)
        else:
            self._start_engine()
        self.update_header()
        if self.tune_gc:
            self.call_after_refresh(quiet_gc)

    def follow_theme(self) -> None:
        """Remember the theme the app starts with, and save the theme whenever the user changes it."""
        self._home_theme = self.theme
        self._saved_theme = self.config.theme or self.theme
        self.theme_changed_signal.subscribe(self, self._save_theme)

    def _save_theme(self, theme: Theme) -> None:
        path = self.config.path
        if path is None or theme.name == self._saved_theme:
            return
        problem = save_theme(path, theme.name)
        if problem:
            self.notify(display(problem), title="config", severity="error", markup=False)
        else:
            self._saved_theme = theme.name

    def on_unmount(self) -> None:
        self.shutdown_engine()
        if self.tune_gc:
            gc_tuning.stop()

    def shutdown_engine(self) -> None:
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

    @work(thread=True, group="engine-start", exit_on_error=False, description="start the engine")
    def _start_bridge(self, bridge: EngineBridge | EngineProcess) -> None:
        # EngineReady (or EngineError) arrives as a message when the thread is up
        bridge.start()

    def _load_offline(self, *, at_start: bool = False, checked: bool = False) -> None:
        from sitemap_tui.engine.store import Store, StoreError, inspect_store

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
            # a damaged file (or one no store can read): a screen that names it, not an empty tree
            self._cannot_open(self.db_path, StoreError(self.db_path, f"is damaged ({exc})"), closes_app=at_start)
            return
        self._reader = store
        self.tree.load_nodes(nodes, counts)
        roots = self.tree.model.roots()
        self.call_after_refresh(self._open_roots, roots)
        if checked:  # (open_path read every page before it let the shown exploration go)
            self._start_engine()
        else:
            self._check_then_start(self.db_path, at_start)

    @work(thread=True, group="store-check", exit_on_error=False, description="check the store")
    def _check_then_start(self, path: Path, at_start: bool) -> None:
        """Every page of a reopened file is read once (SQLite's quick_check) before its engine may
        write to it: damage deep in the entries would otherwise show as empty panes and a toast.
        Off the UI loop: on a 10 M-URL file this reads gigabytes."""
        from sitemap_tui.engine.store import StoreError
        from sitemap_tui.engine.store.summary import damage

        problem = damage(path)

        def then() -> None:
            if self.db_path != path:
                return  # another exploration was opened meanwhile
            if problem is None:
                self._start_engine()
            else:
                self._cannot_open(path, StoreError(path, problem), closes_app=at_start)

        self.call_from_thread(then)

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
                    tree.materialize_now(rid)
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
        self._phase_done()

    def _phase_done(self) -> None:
        """A large phase ended (the exploration opened, an expand-all finished): what it left alive
        leaves the collector's sight, after the next frame (see :func:`settle_gc`)."""
        if self.tune_gc:
            self.call_after_refresh(settle_gc)

    # -- the tree asks --------------------------------------------------------------------------
    @on(SitemapTree.FetchRequested)
    def _fetch_requested(self, message: SitemapTree.FetchRequested) -> None:
        if self.bridge is None or self.offline:
            self.tree.fetch_finished(message.node_id)
            if self.offline:
                self.notify("This exploration was opened from a file (offline): nothing is fetched.", markup=False)
            return
        self.bridge.expand(message.node_id)

    # -- engine messages --------------------------------------------------------------------------
    @on(EngineReady)
    def _engine_ready(self, _message: EngineReady) -> None:
        if self.bridge is not None and self.target is not None:
            self.bridge.open(self.target)

    @on(EngineEvents)
    async def _engine_events(self, message: EngineEvents) -> None:
        # the app's other messages wait for this handler (so batches apply in order), the
        # screen and the other widgets do not
        if self.quitting:
            return
        events = message.events
        done: list[ExplorationDone] = []
        began = time.perf_counter()
        for start in range(0, len(events), APPLY_SLICE_EVENTS):
            if start and time.perf_counter() - began >= APPLY_SLICE_SECONDS:
                await asyncio.sleep(0)
                if self.quitting:
                    return
                began = time.perf_counter()
            done += self._apply_events(events[start:start + APPLY_SLICE_EVENTS])
        if done:
            self.recount_issues()
        for ev in done:
            if ev.what == "expand-all":
                self.jobs.expand_all_node = None
                self.tree.stop_opening()
                if ev.cancelled and self.jobs.stopped is None:  # (a stop says why on its own)
                    self.notify("Expand all cancelled.", markup=False)
                else:
                    self._expand_all_done(ev.files)
                self._phase_done()
        if done:
            self.refetches.settled()
        self.update_header()

    def _apply_events(self, events: list[Event]) -> list[ExplorationDone]:
        changed, issue_nodes, done = self.tree.apply_events(events)
        self._dirty |= changed
        self._issue_dirty |= issue_nodes
        # an issue about a child (e.g. an unfetchable sitemap) may be filed under its parent
        model = self.tree.model
        self._issue_dirty |= {p for n in issue_nodes if (node := model.nodes.get(n)) is not None and (p := node.parent_id) is not None}
        self._events_seen = True
        refetched, self.tree.refetched = self.tree.refetched, set()
        self.refetches.seen(refetched, model.nodes)
        return done

    def _expand_all_done(self, files: int) -> None:
        urls = sum(n.stats.url_count for n in self.tree.model.nodes.values())
        if urls <= AUTO_CROSSFILE_URLS and not self.jobs.crossfile:
            self.notify(f"Expand all done ({plural(files, 'file')} fetched in this session); checking across files…", markup=False)
            self._start_crossfile(auto=True)
        else:
            self.notify(
                f"Expand all done ({plural(files, 'file')} fetched in this session). Press k to check across"
                f" files ({plural(urls, 'URL')}: duplicates across sitemaps, hreflang return links, robots.txt).",
                markup=False,
            )

    def recount_issues(self) -> None:
        """Every node's issue counts, after a run (catches issues filed under another node)."""
        self._recount_generation += 1
        self._recount_worker(self._recount_generation)

    @work(thread=True, exclusive=True, group="issue-counts", exit_on_error=False, description="count issues")
    def _recount_worker(self, generation: int) -> None:
        # exclusive only flags the older thread: its counts, read before the newer run's
        # issues were committed, may still arrive after the newer ones (IssueCounts.generation)
        from sitemap_tui.engine.store import Store

        # always answered, counts or not: panes_quiet waits for this generation's message
        counts: dict[int, tuple[int, int]] | None = None
        try:
            if self.db_path is not None and self.db_path.exists():
                store = Store(self.db_path, readonly=True)
                try:
                    counts = {n: (c.get("error", 0), c.get("warning", 0))
                              for n, c in store.issue_counts_by_node().items() if n is not None}
                finally:
                    store.conn.close()
        except sqlite3.Error:
            counts = None
        finally:
            self.post_message(IssueCounts(counts or {}, generation=generation, unread=counts is None))

    @on(IssueCounts)
    def _issue_counts(self, message: IssueCounts) -> None:
        tree = self.tree
        fresh = message.counts
        if not message.full:
            self._counting = False
        elif message.generation != self._recount_generation:
            return  # a newer recount is on its way
        else:
            self._recounted = message.generation
        if message.unread:
            return
        stale = [n for n in tree.model.issues if n not in fresh] if message.full else []
        updates = {n: v for n, v in fresh.items() if tree.model.issues.get(n) != v}
        updates.update({n: (0, 0) for n in stale})
        if updates:
            tree.set_issue_counts(updates)
            self._dirty.update(updates)

    def engine_index(self, sort: str) -> bool:
        """The URL table's sort index, built by the engine (True) when one is running."""
        if self.bridge is None or not self.bridge.index(sort):
            return False
        self._index_pending = sort
        return True

    _index_pending: str | None = None

    def _indexed(self, error: str | None) -> None:
        sort, self._index_pending = self._index_pending, None
        if sort is not None:
            self.url_table.grid.post_message(Indexed(sort, error))

    @on(CommandDone)
    def _command_done(self, message: CommandDone) -> None:
        if message.what == "index":
            self._indexed(None)
            return
        if message.what == "open":
            root_id = message.result if isinstance(message.result, int) else None
            roots = [root_id] if root_id is not None else self.tree.model.roots()
            self.call_after_refresh(self._open_roots, roots)
        elif message.what == "expand" and message.node_id is not None:
            self.tree.fetch_finished(message.node_id)
            self.refetches.settled()
            self.recount_issues()
        elif message.what in ("reload", "refetch") and message.node_id is not None:
            self.tree.fetch_finished(message.node_id)
            self.refetches.done(message.node_id)
            self.recount_issues()
            if message.result is False:
                node = self.tree.model.nodes.get(message.node_id)
                name = short_name(node) if node else "the file"
                self.notify(f"{name}: not modified since the last fetch.", markup=False)
        elif message.what == "expand-all" and message.result == "cancelled":
            self.jobs.expand_all_node = None
            self.tree.stop_opening()
        elif message.what == "crossfile":
            self.jobs.crossfile = False
            self.jobs.crossfile_step = None
            if message.result == "cancelled" and self._crossfile_dropped:
                # (found by a review: "the earlier results are kept" of issues already dropped)
                self.notify(f"Cross-file checks cancelled; their issues were dropped when {self._crossfile_dropped}"
                            " was fetched again: k checks across files again.", markup=False)
            elif message.result == "cancelled":
                self.notify("Cross-file checks cancelled; the earlier results are kept.", markup=False)
            else:
                self._crossfile_dropped = None
                found = message.result if isinstance(message.result, int) else 0
                self.notify(f"Cross-file checks done: {plural(found, 'issue')} across the sitemaps (Issues pane, 4).", markup=False)
            self._issues_changed()
        elif message.what == "deep":
            self.jobs.deep = None
            found = message.result
            if found == "cancelled":
                self.notify("Deep checks cancelled; the issues found so far are kept.", markup=False)
            else:
                self.notify(f"Deep checks done: {plural(found if isinstance(found, int) else 0, 'issue')} found.", markup=False)
            self._issues_changed()
        if message.what in ("open", "expand", "expand-all"):
            self._say_carried()
        self.update_header()

    _crossfile_dropped: str | None = None  # the file whose fetch dropped the cross-file issues

    @on(Outdated)
    def _crossfile_outdated(self, message: Outdated) -> None:
        """A file was fetched again: the engine dropped the cross-file issues, which spoke of its
        old rows. A set small enough to have them run by itself has them run again."""
        if "crossfile" not in message.parts:
            return
        self.recount_issues()
        self._issues_changed()
        node = self.tree.model.nodes.get(message.node_id)
        name = short_name(node) if node else "A file"
        self._crossfile_dropped = name
        urls = sum(n.stats.url_count for n in self.tree.model.nodes.values())
        if self.jobs.crossfile:  # (the app's own run, waiting for the fetch to end: it runs next)
            return
        # ("fetched again", not "changed": its rows are new either way, and the issues on the other
        # files that named them went with the file's own; found by a review)
        if urls <= AUTO_CROSSFILE_URLS:
            self.notify(f"{name} fetched again: checking across files again…", markup=False)
            self._start_crossfile(auto=True)
        else:
            self.notify(f"{name} fetched again: the cross-file issues, found before, were dropped;"
                        " k checks across files again.", markup=False)

    _carried_said: tuple[Path | None, int] = (None, 0)  # (of the exploration, files said)

    def _say_carried(self) -> None:
        """How many files answered 304 to the re-exploration and were carried over from the
        previous exploration (session/host.py), said when a command brought more of them."""
        carried = [s for n in self.tree.model.nodes.values() if (s := n.stats.unchanged_since)]
        said_of, said = self._carried_said
        if len(carried) <= (said if said_of == self.db_path else 0):
            return
        self._carried_said = (self.db_path, len(carried))
        # each is unchanged since its own date (the exploration that last fetched it whole),
        # so all are since the latest of them
        self.notify(f"{plural(len(carried), 'file')} unchanged since {since_text(max(carried))}: their URLs"
                    " were copied from that exploration (r fetches one again).", title="re-exploration",
                    markup=False)

    def _issues_changed(self) -> None:
        """A run filed issues anywhere in the store: recount the tree, refresh the panes."""
        self.recount_issues()
        self._events_seen = True
        if self._selected is not None:
            self._dirty.add(self._selected)

    @on(DeepProgress)
    def _deep_progress(self, message: DeepProgress) -> None:
        if self.jobs.deep is not None:
            self.jobs.deep = (message.done, message.total)
            self.update_header()

    @on(CrossfileProgress)
    def _crossfile_progress(self, message: CrossfileProgress) -> None:
        if self.jobs.crossfile:
            self.jobs.crossfile_step = message.step
            self.update_header()

    @on(SearchProgress)
    def _search_progress(self, message: SearchProgress) -> None:
        self.jobs.search = (message.covered, message.total) if message.covered < message.total else None
        self.update_header()

    @on(EngineError)
    def _engine_error(self, message: EngineError) -> None:
        if message.what == "index":  # (the table says it, and sorts without the index)
            self._indexed(message.message)
            return
        if message.node_id is not None:
            self.tree.fetch_finished(message.node_id)
        if message.what in ("engine", "store"):
            self._engine_stopped(message.what, message.message)
            return
        if message.what == "expand-all":
            self.jobs.expand_all_node = None
            self.tree.stop_opening()
        if message.what == "deep":
            self.jobs.deep = None
        if message.what == "crossfile":
            self.jobs.crossfile = False
            self.jobs.crossfile_step = None
        if message.what == "cache":  # the file (or every file) was fetched in full instead
            self.notify(display(message.message), title="re-exploration", severity="warning", markup=False)
            return
        self.notify(display(message.message), title=f"engine: {message.what}", severity="error", markup=False)
        self.update_header()

    def _engine_stopped(self, what: str, why: str) -> None:
        """The engine is gone (``engine``) or can keep nothing more (``store``: a write failed,
        say a full disk). Either way no file is fetched any more: the tree stops showing any as
        running and offers no fetch, the header says so, and so does a notification that stays.
        Said once; what the store holds can still be browsed."""
        if self.jobs.stopped is not None:
            return
        if what == "store":
            self.jobs.stopped = (STOPPED_STORE, why)
            title, marker = "the exploration cannot be saved", f"not finished: {why}"
        else:
            self.jobs.stopped = (STOPPED_ENGINE, why)
            title, marker = STOPPED_ENGINE, f"not finished: the engine stopped ({why})"
        self.jobs.expand_all_node = None
        self.tree.stop_opening()
        self.jobs.deep = None
        self.jobs.crossfile = False
        self.jobs.crossfile_step = None
        self.jobs.search = None
        self.refetches.clear()  # (no refetch finishes now: what they deleted is counted)
        stopped = self.tree.engine_stopped(display(marker))
        self._dirty.update(stopped)
        self._events_seen = True
        after = "What was saved can still be browsed." if self.offline else (
            "Nothing more is fetched; what was saved can still be browsed.")
        self.notify(f"{display(why)}. {after}", title=title, severity="error",
                    timeout=LASTING_NOTICE_SECONDS, markup=False)
        self.update_header()

    def _start_crossfile(self, *, auto: bool) -> None:
        """``auto``: the app's own run after an expand-all, without a toast of its own, and
        waiting in the engine for any fetch the user started meanwhile (k refuses instead)."""
        if self.bridge is None or not self.bridge.crossfile(when_idle=auto):
            return
        self.jobs.crossfile = True
        self.jobs.crossfile_step = None
        if not auto:
            self.notify(
                "Cross-file checks started: duplicates across sitemaps, hreflang return links,"
                " robots.txt rules, mixed hosts (x cancels).",
                markup=False,
            )
        self.update_header()

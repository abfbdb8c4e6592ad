"""The user's commands (keys, palette): on the tree's node, the panes, the whole exploration.

Each command checks what it needs (a node, the live engine, nothing already running) and says
why when it cannot run; the engine's answers come back through ``app_engine``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

from sitemap_tui.engine import urlpolicy
from sitemap_tui.engine.discover import Target, TargetError
from sitemap_tui.engine.model import NodeState
from sitemap_tui.engine.sanitize import display
from sitemap_tui.tui import gc_tuning
from sitemap_tui.tui.app_export import ExportLink
from sitemap_tui.tui.palette import PaletteCommand, action_keys, with_keys
from sitemap_tui.tui.screens.confirm import ConfirmScreen, PathPrompt
from sitemap_tui.tui.screens.help import HelpEntry, HelpScreen
from sitemap_tui.tui.widgets import NodePane
from sitemap_tui.tui.widgets.lastmod_chart import LastmodPane
from sitemap_tui.tui.widgets.sitemap_tree import ACTIVE, CONTAINERS, short_name
from sitemap_tui.tui.widgets.tree_nav import EVERYTHING
from sitemap_tui.words import plural

QUIT_GRACE_SECONDS = 3.0
"""How long quitting waits for the engine to stop on its own before ending it (nothing it still
had was asked for: its work was cancelled, and the store is committed as it goes)."""
TABS = ("overview", "extensions", "lastmod", "issues", "urls", "changes")
# the help names where a key works; the pane keys focus the URL grid or a pane's scrollable body
WHERE = {"MainScreen": "screen", "SitemapTree": "tree", "UrlTable": "URL table", "UrlGrid": "URL table",
         "IssuesPane": "issues", "LastmodChart": "lastmod chart", "VerticalScroll": "pane"}
WHERE["IssueTree"] = "issues"  # the issue list's own keys: Enter drills, → and ← open and close


class Actions(ExportLink):
    """The ``action_*`` methods (bound to keys in ``app``) and the palette's list."""

    _remembered_export: Any = None  # the export dialog's last choices (tui.state.ExportPrefs)
    _follow: bool | None = None  # f: follow other hosts, once toggled (else the options say)

    def action_expand_all(self) -> None:
        node = self._cursor_node()
        if node is None:
            return
        if self.offline:  # nothing to fetch: what the saved exploration holds under it, opened
            self.tree.open_subtree(node.id)
            self.notify(f"Opened what this exploration holds under {short_name(node)} (opened from a file:"
                        " nothing is fetched).", markup=False)
            return
        self._expand_all(node.id, name=short_name(node))

    def _expand_all(self, node_id: int, *, name: str, scope: int | None = None) -> None:
        """Fetch everything under ``node_id``; the tree opens ``scope`` (default: that node's
        subtree) as the files arrive."""
        if not self._require_engine("Expand all"):
            return
        if self.jobs.expand_all_node is not None:
            self.notify("Expand all is already running (x cancels it).", markup=False)
            return
        assert self.bridge is not None
        if not self.bridge.expand_all(node_id):
            return
        self.jobs.expand_all_node = node_id
        self.tree.open_as_they_arrive(node_id if scope is None else scope)
        if self.tune_gc:
            gc_tuning.streaming(True)  # until it ends (_phase_done)
        self.update_header()

    def work_running(self) -> bool:
        """An expand-all, deep or cross-file checks, or a fetch is running (x cancels them)."""
        return bool(
            self.jobs.expand_all_node is not None or self.jobs.deep is not None or self.jobs.crossfile
            or self.jobs.audit is not None or self.jobs.access
            or any(n.state in ACTIVE for n in self.tree.model.nodes.values())
        )

    def action_cancel(self) -> None:
        if self.bridge is None or not self.work_running():
            # (found from outside: x with nothing running did nothing, without a word)
            self.notify("Nothing is running: x stops an expand-all, checks, an audit and fetches.", markup=False)
            return
        self.bridge.cancel()
        self.notify("Cancelling…", markup=False)

    def action_reload(self) -> None:
        """r: the highlighted file again, asked with its validators (a 304 keeps the copy)."""
        self._fetch_again(in_full=False)

    def action_refetch(self) -> None:
        """R: the highlighted file again in full, no validators sent (found from outside: the
        README named f for it, which toggles following other hosts)."""
        self._fetch_again(in_full=True)

    def _fetch_again(self, *, in_full: bool) -> None:
        node = self._cursor_node()
        what = "Fetch in full" if in_full else "Reload"
        if node is None or not self._require_engine(what):
            return
        if node.kind in CONTAINERS:
            self.notify(f"{what} works on a file (robots.txt, an index or a sitemap).", markup=False)
            return
        if node.state in ACTIVE:
            self.notify("This file is being fetched right now.", markup=False)
            return
        assert self.bridge is not None
        if (self.bridge.refetch if in_full else self.bridge.reload)(node.id):
            self.refetches.asked(node.id)  # its rows go: the URL table counts them all again
        self.notify(f"Fetching {short_name(node)} again in full…" if in_full else f"Reloading {short_name(node)}…",
                    markup=False)

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
        if self.jobs.deep is not None:
            self.notify("Deep checks are already running (x cancels them).", markup=False)
            return
        sel = self.make_selection(node.id)
        ids = [i for i in (sel.file_ids if sel else [node.id]) if (n := self.tree.model.nodes.get(i)) is not None and n.state == NodeState.DONE]
        if not ids:
            self.notify("Nothing fetched here yet: expand it first (e), then run the deep checks.", markup=False)
            return
        assert self.bridge is not None
        if self.bridge.deep(ids):
            self.jobs.deep = (0, 0)
            self.notify(f"Deep checks started on {plural(len(ids), 'file')}: a sample of URLs is fetched (x cancels).", markup=False)
            self.update_header()

    def action_check_files(self) -> None:
        """The cross-file rules over everything fetched so far (they replace their earlier issues)."""
        if not self._require_engine("Cross-file checks", fetches=False):
            return
        if self.jobs.crossfile:
            self.notify("Cross-file checks are already running (x cancels them).", markup=False)
            return
        if self.jobs.expand_all_node is not None or any(n.state in ACTIVE for n in self.tree.model.nodes.values()):
            self.notify("Files are still being fetched: wait for them, or cancel (x), then check across files.", markup=False)
            return
        if not any(n.state == NodeState.DONE and n.stats.url_count for n in self.tree.model.nodes.values()):
            self.notify("Nothing fetched yet: expand the sitemaps first (e), then check across files.", markup=False)
            return
        self._start_crossfile(auto=False)

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
            if not ok:
                return
            if not self.is_web:  # (a served app's browser is its client's)
                import webbrowser

                try:
                    webbrowser.get()
                except webbrowser.Error:  # (opening then failed in silence: over SSH, in a container)
                    self.notify("No web browser found on this machine: c copies the URL.", markup=False,
                                severity="warning")
                    return
            self.open_url(url)

        self.push_screen(ConfirmScreen("Open in browser", body, yes="Open"), answer)

    def action_toggle_theme(self) -> None:
        # between the configured (or starting) theme and its opposite, so it always comes back
        home = self._home_theme or self.theme
        home_dark = self.available_themes[home].dark if home in self.available_themes else True
        other = "textual-light" if home_dark else "textual-dark"
        self.theme = other if self.theme == home else home

    def action_open_file(self) -> None:
        async def chosen(path: Path | None) -> None:
            if path is not None:
                await self.open_path(path)

        self.push_screen(PathPrompt(), chosen)

    async def open_path(self, path: Path) -> None:
        """Show another exploration: a saved .db offline, or explore a local path."""
        if path.suffix.lower() == ".db" and path.is_file():
            from sitemap_tui.engine.store import StoreError, inspect_store
            from sitemap_tui.engine.store.summary import damage

            try:
                inspect_store(path)
                # every page read before the exploration shown is let go (off the UI loop)
                problem = await asyncio.to_thread(damage, path)
                if problem is not None:
                    raise StoreError(path, problem)
            except StoreError as exc:  # the exploration shown stays
                self._cannot_open(path, exc, closes_app=False)
                return
            self._reset()
            self.offline = True
            self.target = None
            self.db_path = path
            await self._set_pane_db(path)
            self._load_offline(checked=True)
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
        self.update_header()

    async def _set_pane_db(self, path: Path) -> None:
        for pane in self.query(NodePane):
            pane.db_path = path
        # the URL table and issues pane hold their own store handles: rebuild them
        for pane_id, factory in (("urls", self._make_url_table), ("issues", self._make_issues_pane)):
            tab = self.query_one(f"#{pane_id}", TabPane)
            await tab.remove_children()
            await tab.mount(factory())

    def _reset(self) -> None:
        self.shutdown_engine()
        if self.db_path is not None:
            self.left_dbs.add(self.db_path)
        self.tree.reset()
        self._selected = None
        self._selection = None
        self._pane_shown.clear()
        self.jobs.expand_all_node = None
        self._root_opened = False
        self._stored_target = None
        self.jobs.stopped = None
        self.refetches.clear()
        self.forget_comparison()  # another exploration: the comparison was of the one shown
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
            description = b.description
            if b.action == "cancel":  # ctrl+c is the screen's copy key, and cancels without a selection
                keys = [*keys, self.get_key_display(Binding("ctrl+c", ""))]
            elif b.action == "screen.copy_text" or b.action == "copy_text":
                description = f"{description} (none selected: cancel the running work)"
            entry = HelpEntry(", ".join(dict.fromkeys(keys)), description, b.id or "", where)
            entries[(where, b.action)] = entry
        order = {"everywhere": 0, "tree": 1, "screen": 3}
        return sorted(entries.values(), key=lambda e: (order.get(e.where, 2), e.where))

    def action_tree_narrower(self) -> None:
        self.tree_width = self.tree_width - 4
        self.remember_tree_width()

    def action_tree_wider(self) -> None:
        self.tree_width = self.tree_width + 4
        self.remember_tree_width()

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

    def action_back(self) -> None:
        self.go_back()

    # -- command palette --------------------------------------------------------------------------
    def palette_commands(self) -> list[PaletteCommand]:
        node = self._cursor_node()
        live = self.bridge is not None and self.bridge.running
        cmds: list[PaletteCommand] = []
        name = short_name(node) if node is not None else ""
        if node is not None:
            cmds.append(PaletteCommand("Expand subtree", f"Fetch the whole subtree of {name}" + ("" if live else " (needs the live engine)"), "expand_all"))
        cmds.append(PaletteCommand("Expand everything", "Fetch the whole exploration, whatever node is highlighted" + ("" if live else " (needs the live engine)"), "expand_everything"))
        if self.work_running():
            cmds.append(PaletteCommand("Cancel", "Stop expand-all, deep checks, cross-file checks and the fetches in progress", "cancel"))
        cmds.append(PaletteCommand("Export URLs", "Write URLs (marked or filtered rows, this node, subtree, an issue's) to txt / CSV / JSONL, or their image / video URLs", "export"))
        cmds.append(PaletteCommand("Filter URLs", "Filter the URL table (substring, regex, lastmod, issues, extensions)", "filter"))
        if node is not None and node.kind not in CONTAINERS:
            cmds.append(PaletteCommand("Reload node", f"Fetch {name} again with a conditional GET", "reload"))
            cmds.append(PaletteCommand("Fetch node in full", f"Fetch {name} again, no conditional GET (a 304 copy is replaced)", "refetch"))
        if node is not None:
            cmds.extend(self.audit_commands(name))
            cmds.append(PaletteCommand("Validate deep", f"Live checks of a sample of the URLs under {name} (status, redirects, robots, canonical)", "validate_deep"))
            cmds.append(PaletteCommand("Copy URL", "Copy the marked URLs, or else the highlighted URL, to the clipboard", "copy_url"))
            url = node.stats.final_url or node.url
            if urlpolicy.unfetchable_reason(url) is None:
                cmds.append(PaletteCommand("Open in browser", "Open the highlighted http(s) URL (asks first)", "open_browser"))
        cmds.append(PaletteCommand("Cross-file checks", "Duplicate URLs across sitemaps, hreflang return links, robots.txt rules, mixed http/https and www" + ("" if live else " (needs the live engine)"), "check_files"))
        follow = "Stop following" if self.following_hosts() else "Follow"
        cmds.append(PaletteCommand(f"{follow} other hosts", "Index children on other hosts: toggle, and fetch the highlighted file again (-H headers stay on the site you named)", "follow_hosts"))
        cmds.append(PaletteCommand("Toggle theme", "Switch between the dark and the light theme", "toggle_theme"))
        cmds.append(PaletteCommand("Open file", "Explore a local sitemap / directory, or reopen a saved .db", "open_file"))
        cmds.append(PaletteCommand("Open recent", "Reopen an exploration kept in the cache (site, date, URLs, size)", "open_recent"))
        cmds.append(PaletteCommand("Compare with…", "Compare this exploration with an earlier one of the same site: "
                                   "tree badges +added −removed ~changed, the Changes tab (6)", "compare_with"))
        cmds.append(PaletteCommand("Lastmod: year / month / day", "Change the lastmod chart's period", "lastmod_mode"))
        cmds.append(PaletteCommand("Zoom pane", "Give the focused pane (or the tree) the whole screen, or back", "zoom"))
        cmds.append(PaletteCommand("Hide / show tree", "Give the panes the tree's columns, or show it again", "toggle_tree"))
        cmds.append(PaletteCommand("Help", "Show the key bindings", "help"))
        for tab in TABS:
            title = "URLs" if tab == "urls" else tab.title()  # as the tabs spell them
            cmds.append(PaletteCommand(f"Show {title} pane", f"Switch to the {title} tab", f"tab_{tab}"))
        return with_keys(cmds, action_keys(self))

    def action_toggle_tree(self) -> None:
        """ctrl+b: hide the tree (its columns go to the panes) or show it; a hidden tree hands
        the focus to the pane shown."""
        if self.screen.maximized is not None:
            self.screen.minimize()  # unzoomed first, so that the change is seen
        shown = not self.tree.display
        self.tree.display = shown
        if not shown and self.focused is self.tree:
            target = self._pane_focus(self.query_one("#tabs", TabbedContent).active)
            if target is not None:
                target.focus()

    def action_zoom(self) -> None:
        """z: the focused pane (the tabs around it) or the tree takes the whole screen, or back."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
        elif self.focused is not None and not screen.maximize(self.focused):
            # a focused widget Textual does not maximize (the Overview's scroll: z did nothing
            # there, found from outside): the nearest ancestor that may be, its pane's tabs
            zoom = next((w for w in self.focused.ancestors if isinstance(w, Widget) and w.allow_maximize), None)
            if zoom is not None:
                screen.maximized = zoom

    def action_open_recent(self) -> None:
        from sitemap_tui.tui.screens.recent import RecentScreen

        async def chosen(path: Path | None) -> None:
            if path is not None:
                await self.open_path(path)

        self.push_screen(RecentScreen(closes_app=False), chosen)

    # -- expand everything, ctrl+c, quit, follow other hosts (issue 18) ----------------------------
    def action_expand_everything(self) -> None:
        roots = self.tree.model.roots()
        if not roots:
            return
        node = self.tree.model.nodes[roots[0]]  # an exploration has one root: its target
        self._expand_all(node.id, name=short_name(node), scope=EVERYTHING)

    def action_interrupt(self) -> None:
        """ctrl+c: what a terminal user presses to stop something. It cancels the running work
        (and says so); with nothing running, Textual's hint of how to quit."""
        if self.bridge is not None and self.work_running():
            self.action_cancel()
            self.notify("ctrl+c cancelled the running work; q or ctrl+q quits.", markup=False)
        else:
            self.action_help_quit()

    async def action_quit(self) -> None:
        """q / ctrl+q: cancel what runs and stop the engine while the screen still shows (a
        slow stop was a blank screen for seconds, the engine running at low priority), at most
        ``QUIT_GRACE_SECONDS`` before it is ended, then exit."""
        if self.quitting:
            return
        self.quitting = True
        bridge = self.bridge
        if bridge is None:
            self.exit()
            return
        if self.work_running():
            bridge.cancel()
        self.tree.stop_opening()
        header = "Quitting: cancelling the running work and stopping the engine…"
        self.notify(header, markup=False)
        self._stop_then_exit(bridge)

    @work(thread=True, group="quit", exit_on_error=False, description="quit")
    def _stop_then_exit(self, bridge: Any) -> None:
        try:
            bridge.stop(QUIT_GRACE_SECONDS)
        finally:
            self.call_from_thread(self.exit)

    def action_follow_hosts(self) -> None:
        """f: follow index children on other hosts (or stop), said in a notice and on the
        highlighted file, which is fetched again so that its children are decided anew."""
        if not self._require_engine("Follow other hosts"):
            return
        on = not self.following_hosts()
        assert self.bridge is not None
        if not self.bridge.follow_hosts(on):
            return
        self._follow = on
        state = "on: index children on other hosts are fetched" if on else "off: index children on other hosts are skipped"
        # netpolicy: the -H headers are decided per request by the target's origin, not by this
        said = [f"Follow other hosts {state} (f toggles). -H headers still go only to the site you named."]
        node = self._cursor_node()
        if node is None or node.kind in CONTAINERS:
            said.append("Highlight an index and press f again, or r, to fetch it with this setting.")
        elif node.state in ACTIVE:
            said.append(f"{short_name(node)} is being fetched: press r once it is done.")
        elif self.bridge.refetch(node.id):
            self.refetches.asked(node.id)
            self.tree.model.notes[node.id] = "other hosts followed" if on else "other hosts not followed"
            self.tree.refresh_label(node.id)
            said.append(f"Fetching {short_name(node)} again…")
        self.notify(" ".join(said), title="other hosts", markup=False)

    def following_hosts(self) -> bool:
        """Whether index children on other hosts are followed (--follow-cross-host, then f)."""
        if self._follow is not None:
            return self._follow
        return bool(getattr(self.options, "follow_cross_host", False))

    # -- compare mode (issue 20 §2; tui/app_compare.py) ------------------------------------------
    def action_tab_changes(self) -> None:
        self._show_tab("changes")

    def action_compare_with(self) -> None:
        """"Compare with…": the earlier explorations of this site, the one picked compared."""
        from sitemap_tui.tui.screens.recent import RecentScreen

        if self.db_path is None:
            return

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.start_comparison(path)
                self._show_tab("changes")

        self.push_screen(RecentScreen(closes_app=False, compare_to=self.db_path), chosen)

"""The panes follow the tree: the highlighted node's selection, refreshed at a steady rate.

The engine's batches mark nodes dirty; a 0.5 s timer refreshes the active pane only when its
selection changed, so a fast exploration costs the panes a few redraws a second.
"""

from __future__ import annotations

import contextlib
import sqlite3
from typing import Any

from textual import on, work
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import TabbedContent, Tabs

from sitemap_tui.engine.model import NodeKind
from sitemap_tui.engine.sanitize import display
from sitemap_tui.tui.app_base import AppBase
from sitemap_tui.tui.messages import IssueCounts, ShowUrls
from sitemap_tui.tui.widgets import NodePane, Selection
from sitemap_tui.tui.widgets.overview import OverviewPane
from sitemap_tui.tui.widgets.sitemap_tree import SitemapTree

SUBTREE_KINDS = (NodeKind.SITE, NodeKind.DIRECTORY, NodeKind.ROBOTS, NodeKind.INDEX)
ISSUE_COUNTS_PER_TICK = 200


class PaneSync(AppBase):
    """Keeps the active pane on the selected node (see the module docstring)."""

    # where a drill-through (ShowUrls) came from: (tab, widget), so Esc / back returns there;
    # forgotten when the user leaves the URL table any other way
    _drill_origin: tuple[str, Widget | None] | None = None

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
        self.update_header()
        if self._selected is None:
            return
        sel = self._selection
        if sel is None or (dirty and (sel.whole or self._selected in dirty or not dirty.isdisjoint(sel.ids)
                                      or self._subtree_grew(sel, dirty))):
            self._refresh_selection(force=False)

    @work(thread=True, group="issue-counts-live", exit_on_error=False, description="count new issues")
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
        whole = subtree and model.is_only_root(node_id)
        if whole:
            # the one root's subtree is every node: copied whole, not walked (rebuilt on each
            # engine batch while it is selected: 120 ms -> 20 ms at 210,000 nodes)
            nodes = dict(model.nodes)
            ids = tuple(nodes)
            issues = dict(model.issues)
        else:
            ids = tuple(model.subtree_ids(node_id)) if subtree else (node_id,)
            nodes = {i: model.nodes[i] for i in ids if i in model.nodes}
            issues = {i: model.issues[i] for i in ids if i in model.issues}
        children = tuple(model.nodes[c] for c in kids if c in model.nodes)
        return Selection(node=node, ids=ids, subtree=subtree, children=children, nodes=nodes, issues=issues,
                         whole=whole)

    def _refresh_selection(self, *, force: bool) -> None:
        if self._selected is None:
            return
        sel = self.make_selection(self._selected)
        if sel is None:
            return
        self._selection = sel
        self._pane_version += 1
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
        version = self._pane_version
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
            if same_node and not force and scope is not None and same_nodes(flt.node_ids, scope.node_ids):
                table.data_changed()
            else:
                # another node: what the table held for the last one ends (a subtree that grew
                # while an index streams in is the same node: its marks and drill stay)
                table.show(flt, new_node=not same_node)
        elif tab == "issues":
            pane = self.issues_pane
            if pane is None:
                return
            if same_node and not force and self._issues_ids == sel.ids:
                pane.data_changed()
            else:
                self._issues_ids = sel.ids
                pane.show(list(sel.ids))

    def _shows_node(self, tab: str) -> int | None:
        """The node whose data a pane holds (it follows the selection only while shown)."""
        shown = self._pane_shown.get(tab)
        return shown[0] if shown is not None else None

    def _entry_filter(self, sel: Selection) -> Any:
        """The scope of the URL table (its own filter bar narrows it further). A subtree that
        holds every node of the exploration (its root) is every entry: no node list. With one,
        SQLite reads the rows through the node index and sorts them all for each page, count and
        anchor: 200 ms of CPU per page of a 1 M-URL listing, in threads of this process, several
        times a second while an index streams in (the UI loop's longest stalls, issue 19)."""
        from sitemap_tui.engine.store import EntryFilter

        if len(sel.ids) == len(self.tree.model.nodes):
            return EntryFilter()
        return EntryFilter(node_ids=sel.file_ids)

    @on(TabbedContent.TabActivated, "#tabs")
    def _tab_activated(self, _event: TabbedContent.TabActivated) -> None:
        if self._active_tab() != "urls":
            self._drill_origin = None
        self._sync_active_pane()
        if isinstance(self.focused, Tabs):
            # a click on a tab focuses the tab bar, where the arrows would only switch tabs:
            # the focus goes on into the pane shown, as 1-5 and the palette do (issue 18)
            target = self._pane_focus(self._active_tab())
            if target is not None:
                self.call_after_refresh(target.focus)

    def _show_tab(self, tab: str, focus: Widget | None = None) -> None:
        """Show a pane with the focus in its main widget, so the arrow keys act on what is shown.

        The focus moves before the switch: a focused widget in the pane being hidden hands the
        focus to a sibling in that same pane, and TabbedContent follows the focus back to it (the
        tab stayed on Issues after Enter on an issue, and 1-5 did nothing until 0, issue 18).
        ``focus``: a widget of that pane to focus instead of its main one (back from a drill)."""
        target = focus if focus is not None and focus.is_attached and focus.focusable else self._pane_focus(tab)
        if target is not None:
            target.screen.set_focus(target, scroll_visible=False)
        self.query_one("#tabs", TabbedContent).active = tab

    def _pane_focus(self, tab: str) -> Widget | None:
        """The widget a pane's key focuses: the URL grid, the issue list, or the scrollable body."""
        if tab == "urls":
            table = self.url_table
            return table.grid if table is not None else None
        if tab == "issues":
            pane = self.issues_pane
            return pane.issue_list if pane is not None else None
        if tab == "changes":
            changes = self.query_one_optional("#changes-pane")
            rows = getattr(changes, "rows", None)
            return rows if rows is not None and rows.option_count else getattr(changes, "body", None)
        pane = self.query_one_optional(f"#{tab}-pane", NodePane)
        return pane.body if pane is not None else None

    # -- messages from the other panes ------------------------------------------------------------
    def on_issues_pane_jump_to_entry(self, message: Any) -> None:
        entry_id = getattr(message, "entry_id", None)
        if entry_id is None:
            return
        origin_tab = self._active_tab()
        self._show_tab("urls")
        # the table takes the selection's rows now, not on TabActivated: a listing set after
        # the jump started would drop the row it finds
        self._sync_active_pane()
        table = self.url_table
        if table is not None:
            table.jump_to_entry(entry_id)
        # Esc goes back to the issue, as from a rule's drill (it went to the tree)
        self._drill_origin = (origin_tab, None) if origin_tab != "urls" else None


    # -- drill-through: a pane asks for the URL table on a subset; Esc / back returns ------------
    @on(ShowUrls)
    def _show_urls(self, message: ShowUrls) -> None:
        """The URL table, filtered by ``message.filter_text`` within the selected node, focused."""
        message.stop()
        if self._show_listed_file(message.filter_text.removeprefix("url:")):
            return
        table = self.url_table
        if table is None:
            return
        origin_tab = self._active_tab()
        self.drill_scope(message.filter_text)
        self._show_tab("urls")
        self._sync_active_pane()  # the node's rows now, so the filter narrows the right scope
        table.drill(message.filter_text)
        # after the switch: leaving the origin tab forgets an older origin (_tab_activated)
        origin = message.origin if isinstance(message.origin, Widget) else None
        self._drill_origin = (origin_tab, origin) if origin_tab != "urls" else None
        what = message.title or message.filter_text
        self.notify(f"URLs: {what}" + (" · Esc goes back" if self._drill_origin else ""), timeout=3, markup=False)

    def _show_listed_file(self, url: str) -> bool:
        """An issue that names a sitemap file of the tree (a child that could not be fetched, a
        duplicate child): that file's node, not a URL table of its (no) entries (found from
        outside: Enter on index-child-unfetchable opened an empty table)."""
        node = next((n for n in self.tree.model.nodes.values() if n.url == url), None)
        if node is None or not self.tree.reveal(node.id):
            return False
        self._select(node.id)
        self.tree.focus()
        self.notify(f"The sitemap file {display(url, 80)}, in the tree.", timeout=3, markup=False)
        return True

    def drill_scope(self, filter_text: str) -> None:
        """Before a drill: the selection it lists within. Here the selected node's, as it is;
        compare mode (app_compare) selects the root for its whole-exploration counts."""

    def drill_back(self) -> bool:
        """Back to where the URL table was drilled from (the pane and its widget, focused), when
        the focus is in the table (Esc in the tree stays in the tree)."""
        origin = self._drill_origin
        table, focused = self.url_table, self.focused
        if origin is None or self._active_tab() != "urls" or table is None or focused is None:
            return False
        if focused is not table and table not in focused.ancestors:
            return False
        self._drill_origin = None
        table.undrill()  # the filter bar as before the drill (a rule's or a bar's filter is not the user's)
        tab, widget = origin
        self._show_tab(tab, focus=widget)
        return True

    def go_back(self) -> None:
        """Esc with nothing left to close, or the back key: the drill's origin, else out of a
        zoomed pane (the tree took the whole screen instead: the focus moving there zooms it),
        else the tree."""
        if self.drill_back():
            return
        screen = self.screen
        if screen.maximized is not None and not self.tree.is_in_maximized_view:
            screen.minimize()
            return
        self.tree.focus()

    def on_url_table_back(self, message: Any) -> None:
        message.stop()
        self.go_back()


def same_nodes(a: Any, b: Any) -> bool:
    """Two scopes' node lists are the same (None, every entry, is no list: not even an empty one)."""
    return a is None and b is None or a is not None and b is not None and list(a) == list(b)

"""The export dialog (w) and the clipboard copy (c): which URLs each offers (marks, the filter,
the node, an issue's), in the URL table's order."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from textual.widgets import TabbedContent

from sitemap_tui.engine.model import NodeKind
from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store.exports import count_rows, ordered_rows
from sitemap_tui.tui.app_audit import AuditLink
from sitemap_tui.tui.widgets.issue_rows import file_issue_urls
from sitemap_tui.tui.widgets.sitemap_tree import CONTAINERS
from sitemap_tui.words import plural


def marked_shown(table: Any) -> Any:
    """The marked rows that the URL table shows, as a filter: under a filter, the marks it
    hides are left out (they were exported and copied too, unseen), as what is on screen is
    what w and c take; None without marks."""
    marked = table.marked_filter if table is not None else None
    if marked is None or table.user.empty:
        return marked
    flt = table.current_filter
    if marked.entry_ids is None:  # "mark all" under another filter: its rows, as ids
        if marked == flt:
            return marked
        marked = dataclasses.replace(marked, entry_ids=sorted(table.grid.marked_ids))
    if marked.diff_db or flt.diff or flt.coverage or any(i < 0 for i in marked.entry_ids or ()):
        # compare mode's removed rows and the pages of no sitemap come from sources of their
        # own (store/exports.marked_parts): their marks are taken as they are
        return marked
    return dataclasses.replace(flt, entry_ids=marked.entry_ids)


class ExportLink(AuditLink):
    """The export and copy commands (a base of the app's Actions)."""

    def action_export(self) -> None:
        from sitemap_tui.tui.screens.export import ExportScreen as export_cls
        from sitemap_tui.tui.state import ExportPrefs, save_export_prefs

        if self.db_path is None:
            return
        scopes, kinds, default = self._export_scopes()
        if not scopes:
            self.notify("Select a node first.", markup=False)
            return
        prefs = self._export_prefs()
        sort, descending = self._table_order()
        # a remembered folder that is gone is offered all the same: the dialog asks to create it
        folder = Path(prefs.directory) if prefs.directory else Path.cwd()
        screen = export_cls(self.db_path, scopes, folder, scope=default, fmt=prefs.fmt or "txt",
                            sort=sort, descending=descending)

        def done(result: tuple[int, Path] | None) -> None:
            # scope and format are remembered however the dialog closed; the folder only
            # from an export that worked (a failed /proc/nope is no folder to come back to)
            chosen = ExportPrefs(directory=str(result[1].parent) if result else prefs.directory,
                                 fmt=screen.fmt, scope=kinds.get(screen.scope, prefs.scope))
            if chosen != prefs:
                self._remembered_export = chosen
                problem = save_export_prefs(chosen)
                if problem:
                    self.notify(problem, severity="warning", markup=False)
            if result:
                count, path = result
                what = {"images": "image URL", "videos": "video URL"}.get(screen.fmt, "URL")
                self.notify(f"Exported {plural(count, what)} to {path}", title="export", markup=False)

        self.push_screen(screen, done)

    def _export_prefs(self) -> Any:
        """The export dialog's last choices: read from the state file once, then kept."""
        if self._remembered_export is None:
            from sitemap_tui.tui.state import load_export_prefs

            self._remembered_export = load_export_prefs()
        return self._remembered_export

    def _table_order(self) -> tuple[str, bool]:
        """The URL table's order as (column, descending), read from ``UrlTable.row_order`` (the
        one accessor); the export writes its rows in this order."""
        table = self.url_table
        return table.row_order if table is not None else ("id", False)

    def _export_scopes(self) -> tuple[dict[str, Any], dict[str, str], str | None]:
        """The scopes the dialog offers (label -> filter), each label's kind (what is
        remembered), and the default: what the user is looking at. On the Issues tab that is
        the highlighted issue (or rule); elsewhere the marked rows, else the URL table's
        filter; else the scope kind chosen last time, else the node."""
        from sitemap_tui.engine.store import EntryFilter

        scopes: dict[str, Any] = {}
        kinds: dict[str, str] = {}

        def add(kind: str, label: str, flt: Any) -> None:
            scopes[label] = flt
            kinds[label] = kind

        sel = self._selection
        table = self.url_table
        # the table and the Issues pane follow the selection only while shown: what they hold
        # for another node is not offered (its filtered rows and marks were exported as this one's)
        if table is not None and sel is not None and self._shows_node("urls") != sel.node_id:
            table = None
        marked = marked_shown(table)
        if marked is not None and not self._none_shown(table, marked):
            add("marked", "marked rows", marked)
        if table is not None and not table.user.empty and not table.filter_error:
            # (a filter the bar cannot read leaves the last one's rows shown, with the error:
            # found from outside, the bar read "re:(" and its 11 rows were "filtered rows")
            add("filter", "filtered rows", table.current_filter)
        if sel is not None:
            if not sel.subtree or sel.node.kind not in CONTAINERS:
                add("node", "this node", EntryFilter(node_ids=[sel.node_id]))
            if sel.subtree:
                add("subtree", "subtree", EntryFilter(node_ids=sel.file_ids))
        pane = self.issues_pane
        if pane is not None and sel is not None and self._shows_node("issues") != sel.node_id:
            pane = None
        if self.query_one("#tabs", TabbedContent).active != "issues":
            pane = None  # (a rule opened there earlier was offered in the URL table, stale)
        issue = pane.selected_issue if pane is not None else None
        if issue is not None and issue.entry_id is not None:
            add("issue", "URL of the selected issue", EntryFilter(entry_ids=[issue.entry_id]))
        elif (issue is not None and sel is not None and (urls := file_issue_urls(issue)) is not None
              and not self._names_a_file(issue)):
            # a file's finding: the URLs Enter shows for it (found from outside: w offered its
            # rule's 0 URLs, "reported on sitemap files", for a finding naming 3 other-host URLs)
            from sitemap_tui.tui.url_filter import combine, parse_filter

            label = "URL the selected issue names" if urls[0].startswith("url:") else "URLs the selected issue counts"
            add("issue", label, combine(EntryFilter(node_ids=sel.file_ids), parse_filter(urls[0])))
        rule = pane.selected_rule if pane is not None else None
        if rule and sel is not None:
            add("rule", f"URLs with rule {rule}", EntryFilter(node_ids=sel.file_ids, rule=rule))
        by_kind = {kind: label for label, kind in kinds.items()}
        looking: list[str | None] = []
        if self.query_one("#tabs", TabbedContent).active == "issues":
            looking += ["issue", "rule"]
        looking += ["marked", "filter", self._export_prefs().scope, "node", "subtree"]
        default = next((by_kind[k] for k in looking if k in by_kind), next(iter(scopes), None))
        return scopes, kinds, default

    def _names_a_file(self, issue: Any) -> bool:
        """An issue of an index or a robots.txt (its URL a listed sitemap's, as written: perhaps
        relative), or one naming a sitemap file of the tree: Enter shows that file, which has no
        rows to export (found from outside: the default scope read "0 URLs")."""
        nodes = self.tree.model.nodes
        node = nodes.get(issue.node_id) if issue.node_id is not None else None
        if node is not None and node.kind in (NodeKind.INDEX, NodeKind.ROBOTS):
            return True
        return any(n.url == issue.url for n in nodes.values())

    def _none_shown(self, table: Any, marked: Any) -> bool:
        """Marks made before a filter (a drill) that it shows none of: "marked rows" was then
        the dialog's default, with "0 URLs in this scope", while the status line said 2 marked."""
        if table is None or table.user.empty or marked.entry_ids is None or self.db_path is None:
            return False
        import sqlite3

        from sitemap_tui.engine.store import Store

        try:
            store = Store(self.db_path, readonly=True)
            try:
                return count_rows(store, marked) == 0
            finally:
                store.conn.close()
        except (sqlite3.Error, ValueError):
            return False

    def action_copy_url(self) -> None:
        """The marked URLs (one a line, in the table's order) when any, else the current URL."""
        table = self.url_table
        marked = marked_shown(table)
        if marked is not None and table is not None:
            # (under a filter the marks it shows are counted from the store)
            self._copy_marked(marked, table.grid.marked_count if table.user.empty else None)
            return
        url = self._focused_url()
        if not url:
            self.notify("Nothing to copy.", markup=False)
            return
        # escaped as every other output is: a listed URL's raw CR or ESC, pasted into a shell,
        # ran a command (found from outside); the marked rows' copy was escaped already
        from sitemap_tui.tui.clipboard import fit_urls

        fit = fit_urls([url])
        if not fit.urls:
            self.notify(f"Nothing copied: the URL is longer than the {fit.limit:,} bytes terminals take through "
                        "the clipboard (OSC 52). Export (w) writes it.", severity="warning", markup=False)
            return
        self.copy_to_clipboard(fit.urls[0])
        self.notify(f"Copied {display(fit.urls[0], 200)}", markup=False)

    def _copy_marked(self, marked: Any, count: int | None) -> None:
        import sqlite3

        from sitemap_tui.engine.store import Store
        from sitemap_tui.tui.clipboard import fit_urls

        if self.db_path is None:
            return
        sort, descending = self._table_order()
        try:
            store = Store(self.db_path, readonly=True)
            try:
                fit = fit_urls(r.loc for r in ordered_rows(store, marked, sort, descending=descending))
                total = count if count is not None else count_rows(store, marked)
            finally:
                store.conn.close()
        except (sqlite3.Error, ValueError) as exc:
            self.notify(f"Cannot read the marked rows: {display(str(exc))}", severity="error", markup=False)
            return
        if not fit.urls:
            self.notify("Nothing to copy: the marked rows have no URL that fits the clipboard.", markup=False)
            return
        self.copy_to_clipboard(fit.text)
        if fit.cut:
            self.notify(
                f"Copied {len(fit.urls):,} of {plural(total, 'marked URL')}: terminals take at most "
                f"{fit.limit:,} bytes through the clipboard (OSC 52); the other {total - len(fit.urls):,} "
                "were left out. Export (w) writes them all.",
                severity="warning", markup=False, timeout=10)
        else:
            self.notify(f"Copied {plural(len(fit.urls), 'marked URL')}", markup=False)

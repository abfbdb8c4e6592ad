"""Compare mode in the app (issue 20 §2): start a comparison off the UI thread, show it (the
Changes tab, the tree's badges, the header), drill from it, and pick an earlier exploration of
the same site to compare with ("Compare with…").

The work is tui/compare.py's; the app holds the :class:`~sitemap_tui.tui.compare.Comparison`
in ``comparison`` and the URL table's scope carries its scratch path (``diff:`` filters).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on, work

from sitemap_tui.engine.explorer import NO_SITEMAP
from sitemap_tui.engine.model import NodeKind, NodeState
from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store import StoreError
from sitemap_tui.tui.app_engine import EngineLink
from sitemap_tui.tui.compare import CompareDone, Comparison, forget, label_of, run_comparison
from sitemap_tui.tui.widgets.changes_pane import ChangesPane


class CompareLink(EngineLink):
    """The app's compare mode (see the module docstring)."""

    comparison: Comparison | None = None
    comparing: str | None = None  # OLD's label while a comparison runs
    site_history: Any = None  # session.diff.SiteHistory, once read
    _history_timer: Any = None  # polls for the exploration to be idle, then reads the history
    _history_urls: int | None = None  # the tree's URL count the history line was read at
    _history_tries: int = 0  # reads at that count whose store showed another (bounded: a read compares key sets)
    _compared_urls: int | None = None  # the tree's URL count the comparison shown was made at
    _comparing_again: bool = False  # the comparison running is the one shown, made again

    def on_mount(self) -> None:
        if self.compare_with is not None:  # sitemap-tui diff OLD NEW --tui
            self.start_comparison(self.compare_with)
        # the Overview's history line, once the exploration is complete enough to count
        if self.reads_site_history:
            self._history_timer = self.set_interval(1.0, self._history_when_idle, name="site-history")
        self.set_interval(1.0, self._compare_again_when_idle, name="compare-again")

    def _compare_again_when_idle(self) -> None:
        """A live exploration that grew since its comparison (files fetched after "Compare
        with…") is compared again once idle: the Changes pane went on counting "removed" the
        URLs the tree held again (found from outside)."""
        c = self.comparison
        if c is None or self.comparing is not None or self.offline or not self.engine_idle():
            return
        if self.tree.model.totals()[3] != self._compared_urls:
            self.start_comparison(c.old, again=True)

    def _history_when_idle(self) -> None:
        """Read the site's history whenever the exploration shown is idle with a URL count the
        line has not counted yet (a saved one at once): the explorer expands lazily, so the first
        idle moment of a live one may have read only robots.txt and the index ("436 -> 0")."""
        if self.db_path is None or not self.engine_idle():
            return
        urls = self.tree.model.totals()[3]
        if urls == self._history_urls:
            return
        self._history_tries = self._history_tries + 1 if self._history_urls is None else 0
        self._history_urls = urls
        self._read_history(self.db_path)

    @work(thread=True, group="site-history", exclusive=True, exit_on_error=False, description="read the site history")
    def _read_history(self, db: Path) -> None:
        from sitemap_tui import scratch
        from sitemap_tui.session.diff import site_history

        folder = scratch.temp_dir()
        try:
            history = site_history(db, folder / "history.db")
        except (StoreError, OSError) as exc:
            self.call_from_thread(self.notify, f"The site's history cannot be read: {display(str(exc))}",
                                  severity="warning", markup=False)
            return
        finally:
            scratch.remove(folder)
        self.call_from_thread(self._show_history, db, history)

    def unread_files(self) -> int:
        """Files of this exploration not read: pending (a lazy tree, a cancel) or being read."""
        return sum(1 for n in self.tree.model.nodes.values()
                   if n.kind not in (NodeKind.SITE, NodeKind.DIRECTORY)
                   and n.state in (NodeState.PENDING, NodeState.FETCHING, NodeState.PARSING))

    def _show_history(self, db: Path, history: Any) -> None:
        if db != self.db_path:
            return  # another exploration was opened meanwhile
        self.site_history = history
        if history.url_counts and history.url_counts[-1] != self._history_urls and self._history_tries < 3:
            self._history_urls = None  # the store had not written them all yet: read again when idle
        overview = self.query_one_optional("#overview-pane")
        if overview is not None:
            # a target that could not be read at all is no site that lost its URLs (found from
            # outside: an unreachable https:// read "Site since …: +0 −3 URLs")
            failed = any(n.parent_id is None and (n.state == NodeState.FAILED
                                                  or (n.error or "").startswith(NO_SITEMAP))
                         for n in self.tree.model.nodes.values())  # (nor one that found no sitemap)
            overview.show_history(history.since, history.added, history.removed, history.url_counts,
                                  unread=self.unread_files(), unreadable=failed)

    def on_unmount(self) -> None:
        forget(self.comparison)  # its scratch folder (the process's exit would remove it too)
        self.comparison = None

    def forget_comparison(self) -> None:
        """No comparison any more (another exploration is shown, or the app ends)."""
        forget(self.comparison)
        self.comparison = None
        if self.tree.model.changes:
            ids, self.tree.model.changes = list(self.tree.model.changes), {}
            for nid in ids:
                self.tree.refresh_label(nid)
        pane = self.changes_pane
        if pane is not None and self.comparing is None:
            pane.show_comparison(None)
        # the history line was this exploration's: read again for the one opened next
        self.site_history = None
        overview = self.query_one_optional("#overview-pane")
        if overview is not None:
            overview.show_history(None, 0, 0, ())
        self._history_urls, self._history_tries = None, 0

    @property
    def changes_pane(self) -> ChangesPane | None:
        return self.query_one_optional("#changes-pane", ChangesPane)

    def start_comparison(self, old: Path, *, again: bool = False) -> None:
        """Compare this exploration (NEW) with ``old`` on a worker thread; the Changes tab and
        the header say it runs (``again``: the same one, over what the exploration read since)."""
        if self.db_path is None:
            return
        if self.comparing is not None:
            self.notify(f"A comparison with {self.comparing} is running already.", markup=False)
            return
        if Path(old).resolve() == Path(self.db_path).resolve():
            self.notify("That is the exploration shown: pick an earlier one.", markup=False, severity="warning")
            return
        self.comparing = label_of(old)
        self._comparing_again = again
        self._compared_urls = self.tree.model.totals()[3]
        pane = self.changes_pane
        if pane is not None and not again:  # (again: the counts stay until the new ones come)
            pane.show_running(self.comparing)
        self.update_header()
        self._compare(Path(old), Path(self.db_path))

    @work(thread=True, group="compare", exclusive=True, exit_on_error=False, description="compare")
    def _compare(self, old: Path, new: Path) -> None:
        try:
            self.post_message(CompareDone(run_comparison(old, new)))
        except (StoreError, OSError) as exc:
            self.post_message(CompareDone(None, str(exc)))

    @on(CompareDone)
    def _compare_done(self, message: CompareDone) -> None:
        label, self.comparing = self.comparing, None
        if message.comparison is not None and message.comparison.new != self.db_path:
            forget(message.comparison)  # another exploration was opened meanwhile
            self.update_header()
            return
        pane = self.changes_pane
        if message.comparison is None:
            if pane is not None:
                pane.show_error(message.error or "unknown error")
            self.notify(f"The comparison with {label} failed: {display(message.error or '')}",
                        severity="error", markup=False)
            self.update_header()
            return
        forget(self.comparison)  # the one it replaces
        c = self.comparison = message.comparison
        model = self.tree.model
        before = set(model.changes)
        model.changes = dict(c.badges)
        for nid in before | set(c.badges):
            self.tree.refresh_label(nid)
        if pane is not None:
            pane.show_comparison(c, unread=self.unread_files())
        s = c.summary
        if not self._comparing_again:
            self.notify(f"Compared with {c.old_label}: +{s['urls_added']:,} −{s['urls_removed']:,} URLs "
                        "(6: the Changes tab)", title="compare", markup=False)
        self.update_header()
        self._pane_version += 1  # the URL table's scope now carries the comparison
        self._sync_active_pane(force=True)

    def _entry_filter(self, sel: Any) -> Any:
        flt = super()._entry_filter(sel)
        if self.comparison is not None:
            # the files, and a site's or folder's root when the subtree holds it: OLD's removed
            # rows of a sitemap NEW no longer has are filed under the root (engine.store.diff_view),
            # and "URLs removed (3)" listed 2, the removed sitemap's own missing
            roots = [i for i in sel.ids if (n := sel.nodes.get(i)) is not None and n.parent_id is None]
            flt.node_ids = sel.file_ids + [i for i in roots if i not in sel.file_ids]
            flt.diff_db = str(self.comparison.scratch)
        return flt

    def drill_scope(self, filter_text: str) -> None:
        """A ``diff:`` drill lists the Changes tab's counts: over the whole exploration, so
        the tree's root is selected first."""
        if not filter_text.startswith("diff:") or self.comparison is None:
            return
        roots = self.tree.model.roots()
        if roots and self._selected != roots[0]:
            first = self.tree.tree_node(roots[0])
            if first is not None:
                self.tree.move_cursor_to(first)
            self._select(roots[0])

"""The URL pane: a filter bar over the URL grid, a status line and the entry detail panel."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from rich.cells import cell_len
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Checkbox, Input, Select, Static

from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store import EXTENSIONS, EntryFilter, EntryRow
from sitemap_tui.engine.store.audit_filters import asks_verdict, is_skipped
from sitemap_tui.engine.store.coverage_filters import is_unlisted, unlisted_page
from sitemap_tui.engine.store.diff_view import attach, earlier, is_removed
from sitemap_tui.engine.store.urls import audit_of_entry, row_by_id, rule_names_entries
from sitemap_tui.tui.url_filter import UserFilter, combine, parse_filter
from sitemap_tui.tui.widgets.url_table.columns import LEGEND, SORT_NAMES
from sitemap_tui.tui.widgets.url_table.detail import (
    audit_text,
    detail_text,
    removed_text,
    unlisted_text,
)
from sitemap_tui.tui.widgets.url_table.grid import UrlGrid
from sitemap_tui.words import plural

FOLD_WIDTH = 70  # below it the unset toggles of the filter bar fold away (see _fold_toggles)
STATUS_LINES = 4  # the most lines the status takes: an error names the words it knows


class UrlTable(Vertical):
    """Filter bar + virtual table + status line + entry detail panel (see the module docstring)."""

    DEFAULT_CSS = """
    UrlTable {
        height: 1fr;
        #url-filter-bar { height: 1; }
        #url-filter { width: 1fr; }
        #url-regex, #url-issues { width: auto; }
        #url-ext { width: 18; }
        #url-issues.-folded, #url-ext.-folded { display: none; }
        #url-header { height: 1; padding: 0; }
        #url-status { height: 1; color: $text-muted; }
        #url-status.-error { color: $error; }
        #url-detail { height: 40%; display: none; border-top: solid $primary; }
        #url-detail.-open { display: block; }
    }
    """

    class Back(Message):
        """Esc with nothing open in the table: the app goes back (a drill's origin, or the tree)."""

    class EntrySelected(Message):
        """Enter (or a double click) on a row."""

        def __init__(self, entry_id: int, table: UrlTable | None = None) -> None:
            super().__init__()
            self.entry_id = entry_id
            self.table = table

        @property
        def control(self) -> UrlTable | None:
            return self.table

    def __init__(self, db_path: Path, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.db_path = Path(db_path)
        self.scope = EntryFilter()
        self.user = UserFilter()
        self.filter_error: str | None = None
        self._debounce: Timer | None = None
        self._dc_timer: Timer | None = None
        self._dc_dirty = False
        self._detail_id: int | None = None
        # the filter bar as it was before a drill-through (text, regex), put back by undrill():
        # a drill's filter is the issue's or the chart's, not the user's
        self._before_drill: tuple[str, bool] | None = None
        self._header_key: tuple[int, str, bool, frozenset[str]] | None = None
        self._status_line = ""
        self._status_rows = 1
        self._status_key: tuple[str, int] = ("", 0)
        self.grid = UrlGrid(self.db_path, id="url-grid")

    def compose(self) -> ComposeResult:
        with Horizontal(id="url-filter-bar"):
            yield Input(
                placeholder="/ filter: text  re:regex  lastmod:2024-01..2024-06  has:issue  has:image",
                id="url-filter",
                compact=True,
            )
            yield Checkbox("re", id="url-regex", compact=True)
            yield Checkbox("issues", id="url-issues", compact=True)
            yield Select(
                [(Text("ext: any"), "any")] + [(Text(f"ext: {x}"), x) for x in EXTENSIONS],
                value="any",
                allow_blank=False,
                id="url-ext",
                compact=True,
            )
        header = Static(id="url-header", markup=False)
        header.tooltip = LEGEND
        yield header
        yield self.grid
        yield Static(id="url-status", markup=False)
        with VerticalScroll(id="url-detail"):
            yield Static(id="url-detail-body", markup=False)

    def on_mount(self) -> None:
        g = self.grid
        g.on_change = self._refresh_chrome
        g.on_select = self._select_row
        g.on_escape = self._escape
        g.on_focus_filter = lambda: self.query_one("#url-filter", Input).focus()
        g.on_filtered_out = self.clear_user_filter_for
        g.set_listing(self.current_filter)

    # -- public API -------------------------------------------------------------------------
    def show(self, flt: EntryFilter, *, new_node: bool = True) -> None:
        """Show the rows of a scope (node/subtree) from the app, narrowed by the filter bar.
        Another node's rows (``new_node``) end what belonged to the rows left: the detail
        shown, the marks (unseen there, they were still exported as "marked rows") and a
        drill's filter (the other node's rule or chart bar)."""
        moved = new_node and flt.node_ids != self.scope.node_ids
        self.scope = flt
        if not self.is_mounted:
            return
        if moved:
            self.hide_detail()
            self.grid.cleared = None  # (marks cleared here before the move were of those rows too)
            if not self.grid.marks.empty:
                self.grid.clear_marks(undoable=False)
                self.notify("marks cleared: they were of the rows of the node left", timeout=3, markup=False)
            self._restore_filter()
        self.grid.set_listing(self.current_filter)

    def undrill(self) -> bool:
        """The filter bar as before the last drill-through (back from it), applied."""
        if not self._restore_filter():
            return False
        self.grid.set_listing(self.current_filter)
        return True

    def _restore_filter(self) -> bool:
        """The filter bar's text before the drill, put back without a listing of its own."""
        if self._before_drill is None:
            return False
        text, regex = self._before_drill
        self._before_drill = None
        with self.prevent(Input.Changed, Checkbox.Changed):
            self.query_one("#url-filter", Input).value = text
            self.query_one("#url-regex", Checkbox).value = regex
        try:
            self.user = parse_filter(text, regex_mode=regex)
            self.filter_error = None
        except ValueError as exc:  # (it was in the bar before: as it was then)
            self.user = UserFilter()
            self.filter_error = str(exc)
        return True

    def data_changed(self) -> None:
        """New entries may exist; refreshes at most ~3 times per second."""
        if self._dc_timer is not None:
            self._dc_dirty = True
            return
        self.grid.data_changed()
        self._dc_timer = self.set_timer(0.3, self._dc_fire)

    def rows_removed(self, *, ongoing: bool = False) -> None:
        """Rows may have gone from the store (files fetched again; ``ongoing``: until told
        again): the grid counts its whole listing again (``Listing.rows_removed``)."""
        self.grid.rows_removed(ongoing=ongoing)

    def _dc_fire(self) -> None:
        self._dc_timer = None
        if self._dc_dirty:
            self._dc_dirty = False
            self.data_changed()

    def jump_to_entry(self, entry_id: int) -> None:
        """Scroll to an entry and highlight it (its position is found in a worker)."""
        self.grid.locate(entry_id)

    @property
    def current_filter(self) -> EntryFilter:
        return combine(self.scope, self.user)

    @property
    def marked_ids(self) -> set[int]:
        return self.grid.marked_ids

    @property
    def marked_filter(self) -> EntryFilter | None:
        return self.grid.marked_filter

    @property
    def highlighted_entry(self) -> EntryRow | None:
        return self.grid.highlighted

    @property
    def sort(self) -> str:
        return self.grid.sort

    @property
    def row_order(self) -> tuple[str, bool]:
        """The rows' order: (column, descending), the column a key of ``engine.store.SORTS``
        ("id": the files' order). ``engine.store.urls.Query(store, flt, column,
        descending=...).iter_rows(conn)`` reads rows in this order."""
        return self.grid.row_order

    def set_sort(self, sort: str, descending: bool = False) -> None:
        self.grid.set_sort(sort, descending)

    def set_filter_text(self, text: str, *, regex: bool | None = None) -> None:
        """Set the filter bar (as if typed) and apply it now."""
        if regex is not None:
            self.query_one("#url-regex", Checkbox).value = regex
        inp = self.query_one("#url-filter", Input)
        inp.value = text
        self._apply_filter()

    def drill(self, text: str) -> None:
        """Show exactly the rows ``text`` names (a drill-through, ``messages.ShowUrls``): the
        filter bar holds it, visible and editable; the toggles that would narrow it further are
        cleared; the grid has the focus. The filter bar's text before it comes back with
        :meth:`undrill`."""
        if self._before_drill is None:
            self._before_drill = (self.query_one("#url-filter", Input).value,
                                  self.query_one("#url-regex", Checkbox).value)
        self.hide_detail()
        with self.prevent(Checkbox.Changed, Select.Changed):
            self.query_one("#url-issues", Checkbox).value = False
            self.query_one("#url-ext", Select).value = "any"
        self._fold_toggles()
        self.set_filter_text(text, regex=False)
        self.grid.focus()

    def clear_user_filter_for(self, entry_id: int) -> bool:
        """The entry to jump to is hidden by the filter bar: clear it and retry once."""
        if self.user.empty:
            return False
        with self.prevent(Input.Changed, Checkbox.Changed, Select.Changed):
            self.query_one("#url-filter", Input).value = ""
            self.query_one("#url-issues", Checkbox).value = False
            self.query_one("#url-ext", Select).value = "any"
        self._fold_toggles()
        self.user = UserFilter()
        self.filter_error = None
        self.grid.set_listing(self.current_filter)
        self.notify("filter cleared to show the entry", timeout=2)
        self.grid.locate(entry_id)
        return True

    # -- filter bar -----------------------------------------------------------------------
    @on(Input.Changed, "#url-filter")
    def _filter_typed(self) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(0.25, self._apply_filter)

    @on(Input.Submitted, "#url-filter")
    def _filter_submitted(self) -> None:
        self._apply_filter()
        self.grid.focus()

    @on(Checkbox.Changed)
    @on(Select.Changed)
    def _toggles_changed(self, event: Message) -> None:
        event.stop()
        self._fold_toggles()
        self._apply_filter()

    def on_resize(self) -> None:
        self._fold_toggles()
        self.call_after_refresh(self._refresh_chrome)  # (the status's lines at the new width)

    def _fold_toggles(self) -> None:
        """Below FOLD_WIDTH the "issues" and "ext" toggles fold away while unset, so the filter
        text a drill puts in the bar can be read (at 80x24 it had 16 columns: "rule:lastmod-inv");
        `has:issue` and `has:image` say the same in the filter. A set toggle stays shown: a
        filter in force is never hidden."""
        narrow = self.size.width < FOLD_WIDTH
        issues = self.query_one("#url-issues", Checkbox)
        ext = self.query_one("#url-ext", Select)
        issues.set_class(narrow and not issues.value, "-folded")
        ext.set_class(narrow and ext.value == "any", "-folded")

    def _apply_filter(self) -> None:
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        text = self.query_one("#url-filter", Input).value
        regex_mode = self.query_one("#url-regex", Checkbox).value
        try:
            user = parse_filter(text, regex_mode=regex_mode)
        except ValueError as exc:
            self.filter_error = str(exc)
            self._refresh_chrome()
            return
        if self.query_one("#url-issues", Checkbox).value:
            user.has_issue = True
        ext = self.query_one("#url-ext", Select).value
        if isinstance(ext, str) and ext in EXTENSIONS:
            user.extension = ext
        self.filter_error = None
        if user != self.user or self.grid.listing is None:
            self.user = user
            self.hide_detail()  # (the new listing starts at its top: the old row may be gone)
            self.grid.set_listing(self.current_filter)
        else:
            self._refresh_chrome()

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape" and self.query_one("#url-filter", Input).has_focus:
            event.stop()
            self.grid.focus()

    # -- detail ---------------------------------------------------------------------------
    def _select_row(self, row: EntryRow) -> None:
        self.post_message(self.EntrySelected(row.id, self))
        self.show_detail(row.id)

    def show_detail(self, entry_id: int) -> None:
        store = self.grid.store
        if store is None:
            return
        if is_removed(entry_id) or is_unlisted(entry_id):
            # compare mode: OLD's row, which NEW's store does not hold; coverage:missing: a
            # page of no sitemap (engine.store.coverage_filters)
            row = self.grid.highlighted
            loc = row.loc if row is not None else None
            try:
                body = removed_text(loc) if is_removed(entry_id) else unlisted_text(loc, unlisted_page(store.conn, entry_id))
            except sqlite3.Error as exc:
                body = Text(f"cannot read the page: {display(str(exc))}")
            self.query_one("#url-detail-body", Static).update(body)
            self.query_one("#url-detail").add_class("-open")
            self._detail_id = entry_id
            return
        try:
            detail = store.entry_detail(entry_id)
            node = store.node(detail["entry"].node_id) if detail else None
            result = audit_of_entry(store.conn, entry_id)
            rows = row_by_id(store.conn, entry_id)
            skipped = result is None and is_skipped(store.conn, entry_id)
        except sqlite3.Error as exc:
            detail, node, result, rows, skipped = {}, None, None, [], False
            self.notify(f"cannot read the entry: {display(str(exc))}", severity="error", markup=False)
        sitemap = (node.stats.final_url or node.url) if node is not None else None
        was = None
        if (diff_db := self.current_filter.diff_db) is not None:  # compare mode: what it said before
            try:
                attach(store.conn, diff_db)
                was = earlier(store.conn, entry_id)
            except sqlite3.Error:
                was = None  # (the comparison closed meanwhile: the entry alone)
        text = detail_text(detail, sitemap, was)
        if detail:
            audit_text(text, result, rows[0].audit if rows else None, skipped=skipped)
        self.query_one("#url-detail-body", Static).update(text)
        self.query_one("#url-detail").add_class("-open")
        self._detail_id = entry_id

    def hide_detail(self) -> bool:
        panel = self.query_one("#url-detail")
        if panel.has_class("-open"):
            panel.remove_class("-open")
            self._detail_id = None
            return True
        return False

    @property
    def detail_open(self) -> bool:
        return self._detail_id is not None

    def _escape(self) -> bool:
        """Esc in the grid: closes the detail, then clears the marks (the grid does), then asks
        the app to go back."""
        if self.hide_detail():
            return True
        if not self.grid.marks.empty:
            # said: marks the filter hides went unseen, and Esc seemed to do nothing
            self.grid.say_cleared(self.grid.clear_marks(), "; Esc again goes back")
            return True
        self.post_message(self.Back())
        return True

    def _rule_lists_none(self, rule: str) -> str | None:
        """Why ``rule:RULE`` lists no URL, when the rule is the reason: its findings are a
        file's or the site's (a count per file, a cross-file verdict), or there are none (found
        from outside: rule:priority-all-equal said a bare "no URL matches")."""
        store = self.grid.store
        if store is None:
            return None
        try:
            named = rule_names_entries(store.conn, rule)
        except sqlite3.Error:
            return None
        if named is None:
            return _unknown_rule(rule) or "the rule has no finding here"
        if not named:
            return "the rule names no URL: see Issues (4)"
        return None

    # -- chrome ---------------------------------------------------------------------------
    def _refresh_chrome(self) -> None:
        if not self.is_mounted:
            return
        g = self.grid
        width = g.scrollable_content_region.width or self.size.width
        if (width, g.sort, g.descending, g.audit_keys) != self._header_key:  # Static.update costs a layout: only on change
            self._header_key = (width, g.sort, g.descending, g.audit_keys)
            self.query_one("#url-header", Static).update(g.header_text(width))
        status = self.query_one("#url-status", Static)
        parts: list[str] = []
        error = self.filter_error or g.store_error
        # the audit's words need its results, blocked:/allowed: the crawler access (computed
        # alone, without an audit: found in use, status:404 then said a bare "no URL matches")
        # (status:skipped lists URLs with no audit row: an audit that skipped them all has none)
        page_asked = asks_verdict(self.user.status, self.user.indexable, self.user.reason, self.user.canonical)
        access_asked = (self.user.blocked, self.user.allowed) != (None, None)
        missing = ("no audit yet (u, or sitemap-tui audit)" if page_asked and "status" not in g.audit_keys
                   else "no crawler access yet (sitemap-tui access)" if access_asked and "blocked" not in g.audit_keys
                   else None)
        if g.total == 0 and not error:  # an empty table says why, as the Issues pane does
            if missing:  # the why first: after "no URL matches" and the sort, 80 columns cut it
                parts.append(f"0 rows: {missing}")
            elif self.user.rule and (why := self._rule_lists_none(self.user.rule)):
                parts.append(f"0 rows: {why}")
            else:
                parts.append("0 rows: no URL matches the filter" if not self.user.empty else "0 rows: no URL here")
        elif g.total is not None:
            parts.append(plural(g.total, "row"))
        else:
            parts.append(f"≥{plural(g.row_count, 'row')}, counting…" if g.row_count else "counting…")
        if g.row_count:
            parts.append(f"row {g.cursor + 1:,}")
        if g.filter.coverage == "missing":
            parts.append("+ in no sitemap")  # pages of the crawl or the list, not entries
        parts.append(f"sort: {SORT_NAMES[g.sort]} {'▼' if g.descending else '▲'}")
        if g.indexing:
            parts.append(f"building {g.indexing} index…")
        n = g.marked_count
        if not g.marks.empty:
            parts.append("marking…" if n is None else f"{n:,} marked")
        if g.pages_loading:
            parts.append("loading…")
        # (not beside an error, which comes first)
        if g.row_count and g.audit_keys and not error and not g.audit_keys <= {c.key for c in g.layout_for(width)}:
            parts.append("Enter: detail")  # (the audit columns that did not fit are in it; "Enter: audit" read as a command)
        if missing and g.total != 0:
            parts.append(missing)
        if error:
            # first: at 80 columns the line is cut at its end, and with it went the reason
            # (found from outside: "436 rows · row 1 · sort: file order ▲ · bad regex:")
            parts.insert(0, error)
        wrap = max(1, status.size.width or width)
        if not error and not (parts and parts[0].startswith("0 rows:")):  # (a why takes more lines)
            # the usual line is one line: what says least goes first, so that the end is not
            # cut mid-word (found by a review at 80x24: "... sort: file order ▲ · Enter:")
            for drop in ("Enter: detail", "sort: "):
                if cell_len(display(" · ".join(parts), 1000)) <= wrap:
                    break
                parts = [p.removeprefix(drop) for p in parts if p != drop]
        line = display(" · ".join(parts), 1000)
        # as many lines as the text takes at the pane's width, up to STATUS_LINES (found from
        # outside: an error's known words, and a hint's nearest rule id, were cut at the pane's
        # 52 columns), worked out again when the width changes (zoom, a resize: a review); an
        # error or a why only: the usual counts stay one line, the table's height steady
        if (line, wrap) != self._status_key:
            self._status_key = (line, wrap)
            explains = bool(error) or line.startswith("0 rows:")
            rows = (min(STATUS_LINES, len(Text(line).wrap(self.app.console, wrap)))
                    if explains and cell_len(line) > wrap else 1)
            if rows != self._status_rows:
                self._status_rows = rows
                status.styles.height = rows  # (a layout pass, only when the height changes)
        if line != self._status_line:
            self._status_line = line
            status.set_class(bool(error), "-error")
            status.update(Text(line), layout=False)


def _unknown_rule(rule: str) -> str | None:
    """Why ``rule:RULE`` names no rule of the catalogue, with the nearest id (found from outside:
    a typo and a prefix both read as "the rule has no finding here")."""
    import difflib

    from sitemap_tui.tui.widgets.issue_rows import RULES

    if not RULES or rule in RULES:
        return None
    starting = sorted(r for r in RULES if r.startswith(rule))
    if starting:
        return f"rule: takes one rule id, not a prefix: {', '.join(starting[:3])}{', …' if len(starting) > 3 else ''}"
    near = difflib.get_close_matches(rule, list(RULES), n=1, cutoff=0.6)
    return f"no rule {rule!r}" + (f": did you mean {near[0]}?" if near else " (sitemap-tui rules lists them)")

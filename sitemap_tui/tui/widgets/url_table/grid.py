"""The URL grid: the Line-API table of the URL pane, its keys, sort and drawing (the marks are
``marks``, the rows ``listing``, the cells' texts ``columns``).

Every string from the web goes through :func:`sanitize.display` and becomes Segments / ``Text``,
never markup, and no Segment carries an action: clicking a URL only moves the cursor.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from rich.cells import set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, on, work
from textual.binding import Binding, BindingType
from textual.strip import Strip

from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store import SORTS, EntryFilter, EntryRow, Store
from sitemap_tui.engine.store.audit_filters import SORT_KEYS, AuditView
from sitemap_tui.engine.store.coverage_filters import is_unlisted
from sitemap_tui.engine.store.diff_view import is_removed
from sitemap_tui.engine.store.urls import has_sort_index
from sitemap_tui.tui.palette import action_keys
from sitemap_tui.tui.widgets.url_table import columns
from sitemap_tui.tui.widgets.url_table.columns import AUDIT_KEYS, Column, fit
from sitemap_tui.tui.widgets.url_table.marks import MarkedListing
from sitemap_tui.tui.widgets.url_table.messages import Indexed
from sitemap_tui.words import plural

SORT_ORDER = ("id", "loc", "lastmod", "issues", "ext", "priority", "changefreq", "sitemap")
"""The columns ``s`` steps through (file order, then every column in its place on the screen;
then the audit columns the store has data for)."""


class UrlGrid(MarkedListing, can_focus=True):
    """The virtual table itself (a Line-API ScrollView); ``UrlTable`` wraps it."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "url-grid--cursor",
        "url-grid--cursor-blur",
        "url-grid--marked",
        "url-grid--issue",
        "url-grid--dim",
        "url-grid--invalid",
        "url-grid--header",
    }

    DEFAULT_CSS = """
    UrlGrid {
        overflow-x: hidden;
        overflow-y: scroll;
        height: 1fr;
        & > .url-grid--cursor { background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold; }
        & > .url-grid--cursor-blur { background: $block-cursor-blurred-background; }
        & > .url-grid--marked { color: $warning; text-style: bold; }
        & > .url-grid--issue { color: $error; text-style: bold; }
        & > .url-grid--dim { color: $text-muted; }
        & > .url-grid--invalid { color: $error; }
        & > .url-grid--header { color: $text-accent; text-style: bold; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False, id="url_table.up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="url_table.down"),
        Binding("pageup", "page_up", "Page up", show=False, id="url_table.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="url_table.page_down"),
        Binding("home,g", "first", "First", show=False, id="url_table.first"),
        Binding("end,G", "last", "Last", show=False, id="url_table.last"),
        Binding("space", "toggle_mark", "Mark", id="url_table.mark"),
        Binding("shift+down", "extend_down", "Extend marks", show=False, id="url_table.extend_down"),
        Binding("shift+up", "extend_up", "Extend marks", show=False, id="url_table.extend_up"),
        Binding("a", "mark_all", "Mark all", id="url_table.mark_all"),
        Binding("A", "clear_marks", "Clear marks", show=False, id="url_table.clear_marks"),
        Binding("ctrl+z", "restore_marks", "Restore cleared marks", show=False, id="url_table.restore_marks"),
        Binding("escape", "escape", "Close/clear", show=False, id="url_table.escape"),
        Binding("s", "cycle_sort", "Sort", id="url_table.sort"),
        Binding("S", "reverse_sort", "Reverse sort", id="url_table.reverse_sort"),
        Binding("enter", "select", "Details", id="url_table.select"),
        Binding("slash", "focus_filter", "Filter", id="url_table.filter"),
    ]

    def __init__(self, db_path: Path, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(db_path, name=name, id=id, classes=classes)
        self.indexing: str | None = None
        self.on_select: Callable[[EntryRow], None] | None = None
        self.on_escape: Callable[[], bool] | None = None
        self.on_focus_filter: Callable[[], None] | None = None
        self._styles: dict[bool, dict[str, Style]] = {}
        self._width_key: Any = None
        self._width = 0
        self._pending_descending = False  # the direction of the sort whose index is being built
        self._origin: str | None = None  # the exploration root's scheme://host (read once)
        self._sitemaps: dict[int, str] = {}  # node id -> sitemap file name
        self._audit_keys: frozenset[str] = frozenset()  # the audit columns with data (columns.AUDIT_KEYS)

    # -- sorting -------------------------------------------------------------------------------
    @property
    def row_order(self) -> tuple[str, bool]:
        """The order the rows are shown in: (column, descending); a sort waiting for its index
        counts as chosen. The key of ``engine.store.SORTS`` ("id" is the files' order)."""
        return (self.indexing or self.sort, self._pending_descending if self.indexing else self.descending)

    def set_sort(self, sort: str, descending: bool = False) -> None:
        if sort not in SORTS and sort not in SORT_KEYS:
            raise ValueError(f"unknown sort {sort!r}")
        if (sort, descending) == (self.sort, self.descending):
            self.indexing = None
            self._changed()
            return
        if sort != "id" and not self._has_index(sort):
            self.indexing = sort
            self._pending_descending = descending
            self.notify(f"building the {columns.SORT_NAMES[sort]} index for sorting…", timeout=3)
            self._changed()
            self._build_index(sort)
            return
        self.indexing = None
        self.set_listing(self.filter, sort, descending=descending, keep_cursor=True)

    def _has_index(self, sort: str) -> bool:
        store = self._open()
        if store is None:
            return False
        try:
            return has_sort_index(store.conn, sort)
        except sqlite3.Error:
            return False

    def _build_index(self, sort: str) -> None:
        # the app's engine, when one writes the store, builds it (a second writer's commit made
        # the engine's next write fail); an offline store is indexed here
        ask = getattr(self.app, "engine_index", None)
        if ask is not None and ask(sort):
            return
        self._build_index_here(sort)

    @work(thread=True, exclusive=True, group="url-index", exit_on_error=False, description="build a sort index")
    def _build_index_here(self, sort: str) -> None:
        error = None
        try:
            store = Store(self.db_path)  # a writer connection: building an index writes
            try:
                store.ensure_index(sort)
            finally:
                store.close()
        except sqlite3.Error as exc:
            error = str(exc)
        self.post_message(Indexed(sort, error))

    @on(Indexed)
    def _on_indexed(self, msg: Indexed) -> None:
        if self.indexing != msg.sort:
            return
        self.indexing = None
        if msg.error:
            self.notify(
                f"cannot build the {msg.sort} index ({display(msg.error)}); sorting may be slow",
                severity="warning",
                markup=False,
            )
        self.set_listing(self.filter, msg.sort, descending=self._pending_descending, keep_cursor=True)

    # -- audit columns (engine.store.audit_filters) ---------------------------------------------
    @property
    def audit_keys(self) -> frozenset[str]:
        """The audit columns the store has data for: all after an audit, "blocked" with only the
        crawler-access table, none without either (the columns are hidden)."""
        return self._audit_keys

    def _read_audit_view(self) -> AuditView | None:
        store = self._open()
        if store is None:
            return None
        try:
            return AuditView.of(store.conn)
        except sqlite3.Error:
            return None

    def _show_audit(self, view: AuditView | None) -> None:
        keys: frozenset[str] = frozenset()
        if view is not None and view.audited:
            keys = frozenset(AUDIT_KEYS)
        elif view is not None and view.agents is not None:
            keys = frozenset({"blocked"})
        if keys != self._audit_keys:
            self._audit_keys = keys
            self._strips.clear()
            self.refresh()
            self._changed()

    def set_listing(self, flt: EntryFilter, sort: str | None = None, *, descending: bool | None = None,
                    keep_cursor: bool = False) -> None:
        super().set_listing(flt, sort, descending=descending, keep_cursor=keep_cursor)
        self._show_audit(self._read_audit_view())

    def data_changed(self) -> None:
        """Also: audit results may have arrived (an audit running), so the columns show; a new
        crawler-access table changes the listing's joins, so it is read again."""
        view = self._read_audit_view()
        query = self.listing
        # (compare mode's removed rows and coverage:missing's pages have views of their own)
        if (view is not None and query is not None and self.filter.diff != "removed"
                and self.filter.coverage != "missing" and (view.audit, view.agents) != (query.view.audit, query.view.agents)):
            self.set_listing(self.filter, keep_cursor=True)
            return
        self._show_audit(view)
        super().data_changed()

    # -- keys ---------------------------------------------------------------------------------
    def action_toggle_mark(self) -> None:
        row = self.highlighted
        if row is not None:
            self.toggle_mark(row)

    def _extend(self, delta: int) -> None:
        row = self.highlighted
        if row is not None:
            self.mark(row)
        self.move_cursor(self.cursor + delta)
        row = self.highlighted
        if row is not None:
            self.mark(row)

    def action_extend_down(self) -> None:
        self._extend(+1)

    def action_extend_up(self) -> None:
        self._extend(-1)

    def action_mark_all(self) -> None:
        self.mark_all()

    def action_clear_marks(self) -> None:
        if not self.marks.empty:
            self.say_cleared(self.clear_marks())

    def say_cleared(self, count: int | None, then: str = "") -> None:
        what = "marks" if count is None else plural(count, "mark")
        key = action_keys(self.app, self).get("restore_marks")  # (a keymap may have moved it)
        back = f"{key} brings {'it' if count == 1 else 'them'} back" if key else "they cannot be brought back: no key"
        self.notify(f"{what} cleared ({back}{then})", timeout=4, markup=False)

    def action_restore_marks(self) -> None:
        if self.restore_marks():
            self.notify("marks restored", timeout=2, markup=False)
        else:
            self.notify("no cleared marks to bring back", timeout=2, markup=False)

    def action_escape(self) -> None:
        if self.on_escape is not None and self.on_escape():
            return
        if not self.marks.empty:
            self.say_cleared(self.clear_marks())

    def action_cycle_sort(self) -> None:
        """The next column, ascending."""
        current, _ = self.row_order
        order = SORT_ORDER + tuple(k for k in AUDIT_KEYS if k in self._audit_keys)
        at = order.index(current) if current in order else -1
        self.set_sort(order[(at + 1) % len(order)])

    def action_reverse_sort(self) -> None:
        current, descending = self.row_order
        self.set_sort(current, not descending)

    def action_select(self) -> None:
        row = self.highlighted
        if row is not None and self.on_select is not None:
            self.on_select(row)

    def action_focus_filter(self) -> None:
        if self.on_focus_filter is not None:
            self.on_focus_filter()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        pos = int(self.scroll_y) + offset.y
        if pos >= self.row_count:
            return
        event.stop()
        self.focus()
        if event.shift:
            self.mark_range(self.cursor, pos)
        elif event.ctrl:
            row = self.row_at(pos)
            if row is not None:
                self.toggle_mark(row)
        self.move_cursor(pos)
        if event.chain == 2:
            self.action_select()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def on_resize(self) -> None:
        self._strips.clear()
        self._update_virtual_size()
        self._changed()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()
        self._styles.clear()

    # -- rendering -------------------------------------------------------------------------------
    def layout_for(self, width: int) -> list[Column]:
        return columns.layout(width, self.sort, self._audit_keys)

    def header_text(self, width: int) -> Text:
        line = columns.header(self.layout_for(width), self.sort, self.descending)
        return Text(set_cell_size(line, width), style=self.get_component_rich_style("url-grid--header"), no_wrap=True)

    @property
    def origin(self) -> str | None:
        """The exploration root's ``scheme://host``: URLs on it are shown without it."""
        if self._origin is None and self.store is not None:
            try:
                root = self.store.root_url()
            except sqlite3.Error:
                return None
            if root is None:
                return None  # no node yet (a new exploration): asked again on the next row
            origin = columns.origin_of(root)
            if origin is None and root.startswith("file:"):
                # a local file or build folder: the site its URLs are on (the first entry's),
                # whose origin 15 of 29 columns repeated at 80x24
                try:
                    first = self.store.first_loc()
                except sqlite3.Error:
                    return None
                if first is None:
                    return None  # no entry yet: asked again on the next row
                origin = columns.origin_of(first)
            self._origin = origin or ""
        return self._origin or None

    def _sitemap_name(self, node_id: int) -> str:
        name = self._sitemaps.get(node_id)
        if name is None and self.store is not None:
            try:
                node = self.store.node(node_id)
            except sqlite3.Error:
                return ""
            name = self._sitemaps[node_id] = columns.sitemap_name(node.url if node else None)
        return name or ""

    def _style_bundle(self) -> dict[str, Style]:
        """Rich styles of the row parts, computed once per theme/focus (``rich_style`` is slow)."""
        bundle = self._styles.get(self.has_focus)
        if bundle is None:
            base = self.rich_style
            comp = self.get_component_rich_style
            cursor = base + comp("url-grid--cursor" if self.has_focus else "url-grid--cursor-blur", partial=True)
            bundle = {"base": base, "cursor": cursor}
            for name in ("dim", "marked", "invalid", "issue"):
                part = comp(f"url-grid--{name}", partial=True)
                bundle[name] = base + part
                bundle[f"cursor-{name}"] = cursor + part
            self._styles[self.has_focus] = bundle
        return bundle

    def _content_width(self) -> int:
        key = (self.size, self.show_vertical_scrollbar)
        if key != self._width_key:
            self._width_key = key
            self._width = self.scrollable_content_region.width
        return self._width

    def render_line(self, y: int) -> Strip:
        width = self._content_width()
        pos = int(self.scroll_y) + y
        styles = self._style_bundle()
        if pos >= self.row_count:
            return Strip.blank(width, styles["base"])
        row = self.row_at(pos)
        if row is None:
            return Strip([Segment(fit("  …", width), styles["dim"])], width)
        cursor = pos == self.cursor
        marked = self.is_marked(row)
        key = (row.id, width, cursor, cursor and self.has_focus, marked)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._row_strip(row, width, cursor, marked, styles)
            self._strips.set(key, strip)
        return strip

    def _row_strip(self, row: EntryRow, width: int, cursor: bool, marked: bool, styles: dict[str, Style]) -> Strip:
        pre = "cursor-" if cursor else ""
        base = styles["cursor" if cursor else "base"]
        # compare mode's removed URLs (OLD's rows, engine.store.diff_view) carry a red minus,
        # coverage:missing's pages of no sitemap (engine.store.coverage_filters) a yellow plus
        removed, unlisted = is_removed(row.id), is_unlisted(row.id)
        gutter = "● " if marked else ("− " if removed else "+ " if unlisted else "  ")
        gutter_style = "marked" if marked or not (removed or unlisted) else "invalid" if removed else "issue"
        segments = [Segment(gutter, styles[pre + gutter_style])]
        for col in self.layout_for(width):
            text, style = self._cell(row, col, pre, marked, styles)
            segments.append(Segment(fit(text, col.width) + " ", style or base))
        return Strip(segments).crop_extend(0, width, base)

    def _cell(self, row: EntryRow, col: Column, pre: str, marked: bool, styles: dict[str, Style]) -> tuple[str, Style | None]:
        """One cell's text and style (None: the row's)."""
        key = col.key
        if key == "url":
            return columns.url_text(row.loc, self.origin, col.width), styles[pre + "marked"] if marked else None
        if key == "lastmod":
            invalid = row.lastmod_raw is not None and row.lastmod is None
            return columns.lastmod_text(row, col.width), styles[pre + "invalid"] if invalid else None
        if key == "issues":
            return (f"{row.n_issues:,}" if row.n_issues else ""), styles[pre + "issue"]
        if key == "ext":
            return columns.extensions_text(row), None
        if key == "priority":
            invalid = row.priority_raw is not None and row.priority is None
            return display(row.priority_raw, col.width + 1), styles[pre + "invalid"] if invalid else None
        if key == "changefreq":
            return display(row.changefreq_raw, col.width + 1), None
        if key in AUDIT_KEYS:
            return self._audit_cell(row, col, pre, styles)
        if is_unlisted(row.id):
            return "in no sitemap", styles[pre + "issue"]
        return columns.elide_middle(self._sitemap_name(row.node_id), col.width), styles[pre + "dim"]

    def _audit_cell(self, row: EntryRow, col: Column, pre: str, styles: dict[str, Style]) -> tuple[str, Style | None]:
        """An audit column's cell: a dim "–" for a URL not audited (blocked-for may come from the
        crawler-access table alone); failures in the error style."""
        cells = row.audit
        key = col.key
        if is_unlisted(row.id) and key == "reason":
            return "in no sitemap", styles[pre + "issue"]
        if cells is None or (not cells.audited and key != "blocked"):
            return "–", styles[pre + "dim"]
        bad = styles[pre + "invalid"]
        if key == "status":
            failed = cells.status is None or cells.status >= 400
            return columns.status_text(cells), bad if failed else None
        if key == "indexable":
            return ("yes", None) if cells.indexable else ("no", bad)
        if key == "reason":
            return display(columns.reason_text(cells), col.width + 1), None if cells.indexable else bad
        if key == "time":
            return columns.time_text(cells), None
        if key == "blocked":
            text = columns.blocked_text(cells)
            return display(text, col.width + 1), styles[pre + "dim"] if text == "?" else (bad if text else None)
        return columns.canonical_text(cells, self.origin, col.width), None

"""The Issues pane: issues of the selected scope grouped by severity then rule.

A filter bar (text over rule ids, titles and messages; severity toggles) above a ``Tree``
(severity → rule (count) → issues, at most :data:`RULE_CAP` listed per rule then "… N more"),
and a detail area: the rule's title, explanation and source from the registry, the issue itself,
and the raw lines of the cached body around the issue's line, that line highlighted.

Enter on a rule (or its "… N more" line) drills into its URLs: :class:`ShowUrls` with a ``rule:``
filter, for the app to open the URL table on (issue 18); Enter on an issue jumps to its URL. In a
small pane the explanation folds to one line (``i`` unfolds it) so the source lines stay on screen.
The rows and texts are worded in :mod:`issue_rows`.

Counts and issue lists are read by thread workers with their own read-only connection. Every
string from the web (messages, URLs, body lines) goes through :func:`sanitize.display` and is a
``Text``: Tree labels given as ``str`` would be parsed as markup.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Checkbox, Input, Static, Tree
from textual.widgets.tree import TreeNode
from textual.worker import get_current_worker

from sitemap_tui.engine.bodycache import body_path, read_lines
from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store import IssueRow, connect
from sitemap_tui.engine.store.issues import IssueFilter, issue_groups, rule_issues, rules_with_urls
from sitemap_tui.tui.messages import ShowUrls
from sitemap_tui.tui.widgets import update_static
from sitemap_tui.tui.widgets.issue_rows import (
    RULES,
    SEVERITY_STYLE,
    file_issue_urls,
    issue_label,
    issue_text,
    rule_folded,
    rule_text,
    rule_title,
    source_text,
    where_to_look,
)
from sitemap_tui.tui.widgets.issue_tree import IssueItem as _Item
from sitemap_tui.tui.widgets.issue_tree import IssueTree

RULE_CAP = 1000
"""Issues listed per rule; the rest is summarised as "… N more"."""
SOURCE_CONTEXT = 5
SEVERITIES = ("error", "warning", "info")
SEVERITY_TITLE = {"error": "Errors", "warning": "Warnings", "info": "Info"}


class _Counted(Message, bubble=False):
    def __init__(self, token: int, groups: list[tuple[str, str, int]], error: str | None = None,
                 with_urls: set[tuple[str, str]] | None = None) -> None:
        super().__init__()
        self.token, self.groups, self.error = token, groups, error
        self.with_urls = with_urls or set()


class _RuleLoaded(Message, bubble=False):
    def __init__(self, token: int, severity: str, rule: str, rows: list[IssueRow], total: int) -> None:
        super().__init__()
        self.token, self.severity, self.rule, self.rows, self.total = token, severity, rule, rows, total


class _SourceLoaded(Message, bubble=False):
    def __init__(self, issue_id: int, lines: list[tuple[int, bytes]] | None, error: str | None = None) -> None:
        super().__init__()
        self.issue_id, self.lines, self.error = issue_id, lines, error


class IssuesPane(Vertical):
    """Issues of a scope (see the module docstring)."""

    # until a rule or an issue is highlighted; a class given at construction costs no restyle, one
    # added on mount restyles the pane and all under it
    DEFAULT_CLASSES = "-no-detail"

    DEFAULT_CSS = """
    IssuesPane {
        height: 1fr;
        #issues-bar { height: 1; }
        #issues-filter { width: 1fr; }
        #issues-bar Checkbox { width: auto; }
        /* rows are cut to the width with a "…" (IssueTree.render_label): no scrollbar takes a row */
        #issues-tree { height: 1fr; min-height: 4; overflow-x: hidden; }
        #issues-status { height: 1; color: $text-muted; }
        #issues-detail { height: auto; max-height: 50%; border-top: solid $primary; }
        #issues-source { margin-top: 1; }
        &.-compact #issues-detail { max-height: 60%; }
        &.-compact #issues-source { margin-top: 0; }
        &.-no-detail #issues-detail { display: none; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_filter", "Filter", show=False, id="issues.filter"),
        Binding("i", "toggle_explain", "Explain", id="issues.explain",
                tooltip="Show or fold the rule's explanation (folded in a small pane)"),
    ]
    COMPACT_HEIGHT = 30
    COMPACT_WIDTH = 70
    """A pane under these sizes (80x24: about 52x20) folds the explanation so the source shows."""

    class JumpToEntry(Message):
        """Enter on an issue that belongs to one URL: show it in the URL table."""

        def __init__(self, entry_id: int, pane: IssuesPane | None = None) -> None:
            super().__init__()
            self.entry_id = entry_id
            self.pane = pane

        @property
        def control(self) -> IssuesPane | None:
            return self.pane

    def __init__(self, db_path: Path, body_cache: Path | None = None, *, name: str | None = None,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.db_path = Path(db_path)
        self.body_cache = Path(body_cache) if body_cache is not None else None
        self.node_ids: tuple[int, ...] = ()
        self._token = 0
        self.loaded_token = -1
        self._groups: list[tuple[str, str, int]] = []
        self._rule_nodes: dict[tuple[str, str], TreeNode[_Item]] = {}
        self._loaded_rules: set[tuple[str, str]] = set()
        self._restore: tuple[Any, ...] | None = None
        self._debounce: Timer | None = None
        self._dc_timer: Timer | None = None
        self._dc_dirty = False
        self._source_for: int | None = None
        self._source_msg: _SourceLoaded | None = None  # the lines shown, to cut them again on a resize
        self._cut_at = 0  # the room the source lines were last cut to
        self._recut_of = 0  # the source read cut again after a layout (once each)
        self._with_urls: set[tuple[str, str]] = set()  # the groups a rule: filter can show
        self._explain: bool | None = None  # the user's choice (i); None: folded in a small pane
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="issues-bar"):
            yield Input(placeholder="/ filter rules and messages", id="issues-filter", compact=True)
            yield Checkbox("errors", True, id="sev-error", compact=True)
            yield Checkbox("warnings", True, id="sev-warning", compact=True)
            yield Checkbox("info", True, id="sev-info", compact=True)
        tree = IssueTree(Text("issues"), id="issues-tree")
        tree.show_root = False
        tree.auto_expand = True
        yield tree
        yield Static(id="issues-status", markup=False)
        with VerticalScroll(id="issues-detail"):
            yield Static(id="issues-explain", markup=False)
            yield Static(id="issues-source", markup=False)

    # -- public API --------------------------------------------------------------------------
    def show(self, node_ids: list[int]) -> None:
        """Show the issues of these nodes (a file, or every node of a subtree)."""
        self.node_ids = tuple(int(n) for n in node_ids)
        self._restore = None
        self._rule_nodes.clear()
        self._loaded_rules.clear()
        if self.is_mounted:
            self.query_one("#issues-tree", Tree).clear()
            self._clear_detail()
            self.reload()

    def data_changed(self) -> None:
        """New issues may exist; recount at most ~2 times per second, keeping the open rules."""
        if self._dc_timer is not None:
            self._dc_dirty = True
            return
        self.reload(keep=True)
        self._dc_timer = self.set_timer(0.5, self._dc_fire)

    def _dc_fire(self) -> None:
        self._dc_timer = None
        if self._dc_dirty:
            self._dc_dirty = False
            self.data_changed()

    @property
    def issue_list(self) -> Tree[_Item]:
        """The list of rules and issues (the widget the Issues key focuses)."""
        return self.query_one("#issues-tree", Tree)

    @property
    def selected_issue(self) -> IssueRow | None:
        item = self._cursor_item()
        return item.issue if item is not None and item.kind == "issue" else None

    @property
    def selected_rule(self) -> str | None:
        item = self._cursor_item()
        return item.rule if item is not None else None

    @property
    def compact(self) -> bool:
        """A small pane: the explanation is folded unless the user unfolded it."""
        width, height = self.size
        return 0 < height < self.COMPACT_HEIGHT or 0 < width < self.COMPACT_WIDTH

    @property
    def explaining(self) -> bool:
        """Whether the detail area shows the rule's whole explanation."""
        return self._explain if self._explain is not None else not self.compact

    @property
    def is_current(self) -> bool:
        """True when the last requested counts are shown (tests wait on this)."""
        return self.loaded_token == self._token

    def on_mount(self) -> None:
        self.reload()

    def on_resize(self) -> None:
        if self.has_class("-compact") != self.compact:
            self.set_class(self.compact, "-compact")
            self._explain = None  # i chose for the other size: this one starts from its default
            self._show_detail(read=True)  # and it shows more or fewer lines around the issue
        elif self._source_msg is not None and self._source_msg.issue_id == self._source_for:
            # long lines cut at the new width, once the detail has it: the pane hears of its
            # resize before its children are laid out (z kept the narrow pane's cut)
            self.call_after_refresh(self._recut)

    def _recut(self) -> None:
        msg = self._source_msg
        if self.is_mounted and msg is not None and msg.issue_id == self._source_for:
            self._on_source(msg)

    # -- loading ------------------------------------------------------------------------------
    def _filter(self) -> IssueFilter:
        sevs = tuple(s for s in SEVERITIES if self.query_one(f"#sev-{s}", Checkbox).value)
        text = self.query_one("#issues-filter", Input).value
        needle = text.strip().lower()
        titled = tuple(rid for rid, rule in RULES.items() if needle and needle in str(getattr(rule, "title", "")).lower())
        return IssueFilter(self.node_ids, sevs, text, titled)

    def reload(self, keep: bool = False) -> None:
        if not self.is_mounted:
            return
        self._token += 1
        if not keep:
            self._loaded_rules.clear()
        self._count(self._token, self._filter())

    def _open(self) -> sqlite3.Connection:
        if not self.db_path.exists():
            raise sqlite3.OperationalError(f"no store at {self.db_path}")
        return connect(self.db_path, readonly=True)

    @work(thread=True, exclusive=True, group="issues-count", exit_on_error=False, description="count issues")
    def _count(self, token: int, flt: IssueFilter) -> None:
        worker = get_current_worker()
        try:
            conn = self._open()
        except sqlite3.Error as exc:
            self.post_message(_Counted(token, [], f"cannot open the store: {exc}"))
            return
        with_urls: set[tuple[str, str]] = set()
        try:
            groups = issue_groups(conn, flt)
            with_urls = rules_with_urls(conn, flt)
            error = None
        except sqlite3.Error as exc:
            groups, error = [], f"cannot read the issues: {exc}"
        finally:
            conn.close()
        if not worker.is_cancelled:
            self.post_message(_Counted(token, groups, error, with_urls))

    @on(_Counted)
    def _on_counted(self, msg: _Counted) -> None:
        if msg.token != self._token:
            return
        self.loaded_token = msg.token
        self.error = msg.error
        self._with_urls = msg.with_urls
        changed = msg.groups != self._groups or not self._rule_nodes and bool(msg.groups)
        self._groups = msg.groups
        if changed:
            self._populate()
        self._update_status()

    def _populate(self) -> None:
        tree: Tree[_Item] = self.query_one("#issues-tree", Tree)
        expanded = {key for key, node in self._rule_nodes.items() if node.is_expanded}
        cursor = self._cursor_item()
        if cursor is not None:
            self._restore = cursor.key
        tree.clear()
        self._rule_nodes.clear()
        self._loaded_rules.clear()
        by_sev: dict[str, list[tuple[str, int]]] = {}
        for sev, rule, n in self._groups:
            by_sev.setdefault(sev, []).append((rule, n))
        for sev in sorted(by_sev, key=lambda s: SEVERITIES.index(s) if s in SEVERITIES else 9):
            rules = by_sev[sev]
            total = sum(n for _, n in rules)
            label = Text(f"{SEVERITY_TITLE.get(sev, display(sev))} ({total:,})", style=SEVERITY_STYLE.get(sev, "bold"))
            snode = tree.root.add(label, _Item("severity", sev, count=total), expand=True)
            for rule, n in rules:
                # the count before the title, which a narrow pane cuts (at 80 columns most were)
                rlabel = Text(display(rule), style="bold")
                rlabel.append(f" ({n:,})", style="dim")
                title = rule_title(rule)
                if title:
                    rlabel.append(" " + display(title, 120))
                rnode = snode.add(rlabel, _Item("rule", sev, rule, count=n), allow_expand=True)
                self._rule_nodes[(sev, rule)] = rnode
                if (sev, rule) in expanded:
                    rnode.expand()
        self._try_restore()
        # the row under the cursor may be another now, on the same line (no highlight message):
        # its detail, not the one of a row that is gone (found by a review)
        self.call_after_refresh(self._show_detail, None, read=True)

    def _try_restore(self) -> None:
        if self._restore is None:
            return
        tree: Tree[_Item] = self.query_one("#issues-tree", Tree)

        def walk(node: TreeNode[_Item]) -> TreeNode[_Item] | None:
            for child in node.children:
                if child.data is not None and child.data.key == self._restore:
                    return child
                found = walk(child)
                if found is not None:
                    return found
            return None

        found = walk(tree.root)
        if found is not None:
            # the node's line is known once the tree has laid its lines out again
            self.call_after_refresh(tree.move_cursor, found)
            self._restore = None

    @on(Tree.NodeExpanded, "#issues-tree")
    def _expanded(self, event: Tree.NodeExpanded[_Item]) -> None:
        item = event.node.data
        if item is None or item.kind != "rule":
            return
        key = (item.severity, item.rule or "")
        if key in self._loaded_rules:
            return
        self._loaded_rules.add(key)
        if not event.node.children:
            event.node.add_leaf(Text("loading…", style="dim italic"), _Item("loading", item.severity, item.rule))
        self._load_rule(self._token, item.severity, item.rule or "", self._filter())

    @work(thread=True, group="issues-rule", exit_on_error=False, description="list issues of a rule")
    def _load_rule(self, token: int, severity: str, rule: str, flt: IssueFilter) -> None:
        try:
            conn = self._open()
        except sqlite3.Error:
            self.post_message(_RuleLoaded(token, severity, rule, [], 0))
            return
        try:
            rows, total = rule_issues(conn, flt, severity, rule, RULE_CAP)
        except sqlite3.Error:
            rows, total = [], 0
        finally:
            conn.close()
        self.post_message(_RuleLoaded(token, severity, rule, rows, total))

    @on(_RuleLoaded)
    def _on_rule_loaded(self, msg: _RuleLoaded) -> None:
        node = self._rule_nodes.get((msg.severity, msg.rule))
        if node is None:
            return
        if msg.token != self._token:
            # a recount happened meanwhile: load again with the current filter
            self._loaded_rules.discard((msg.severity, msg.rule))
            if node.is_expanded:
                self._loaded_rules.add((msg.severity, msg.rule))
                self._load_rule(self._token, msg.severity, msg.rule, self._filter())
            return
        node.remove_children()
        # a subtree's rows name their sitemap, even when one file has them all: on the site's
        # root, "fetch-http-error: HTTP 404 Not Found" said nowhere which file it was
        with_sitemap = len(self.node_ids) > 1 or len({r.node_id for r in msg.rows}) > 1
        for iss in msg.rows:
            node.add_leaf(issue_label(iss, with_sitemap), _Item("issue", msg.severity, msg.rule, iss))
        if msg.total > len(msg.rows):
            more = msg.total - len(msg.rows)
            node.add_leaf(
                Text(f"… {more:,} more (export them or narrow the filter)", style="dim italic"),
                _Item("more", msg.severity, msg.rule, count=more),
            )
        self._try_restore()

    # -- selection and detail ------------------------------------------------------------------
    def _cursor_item(self) -> _Item | None:
        if not self.is_mounted:
            return None
        node = self.query_one("#issues-tree", Tree).cursor_node
        return node.data if node is not None else None

    def _clear_detail(self) -> None:
        self.query_one("#issues-explain", Static).update(Text(""))
        self.query_one("#issues-source", Static).update(Text(""))
        self._source_for = None
        # nothing to explain (a severity row, no issues): the list takes the whole pane, which
        # on 80x24 is 14 rows where it was 5 above an empty half
        self.add_class("-no-detail")

    @on(Tree.NodeHighlighted, "#issues-tree")
    def _highlighted(self, event: Tree.NodeHighlighted[_Item]) -> None:
        self._show_detail(event.node.data, read=True)

    def _show_detail(self, item: _Item | None = None, *, read: bool = False) -> None:
        """The detail of the highlighted row (``read``: read its source lines again)."""
        item = item or self._cursor_item()
        if item is None or item.kind == "severity":
            self._clear_detail()
            return
        self.remove_class("-no-detail")
        explaining = self.explaining
        text = rule_text(item.rule or "") if explaining else rule_folded(item.rule or "")
        source = self.query_one("#issues-source", Static)
        if item.kind == "issue" and item.issue is not None:
            text.append("\n\n" if explaining else "\n")
            text.append_text(issue_text(item.issue, brief=not explaining, where=len(self.node_ids) > 1))
            if read or self._source_for != item.issue.id:
                self._show_source(item.issue)
        else:
            source.update(Text(""))
            self._source_for = None
        self.query_one("#issues-explain", Static).update(text)
        if not explaining:
            self.query_one("#issues-detail", VerticalScroll).scroll_home(animate=False)

    def action_toggle_explain(self) -> None:
        self._explain = not self.explaining
        self._show_detail()

    def _show_source(self, iss: IssueRow) -> None:
        source = self.query_one("#issues-source", Static)
        self._source_for = iss.id
        if not iss.line or iss.node_id is None:
            source.update(Text("(no line number: no source to show)", style="dim"))
            return
        if self.body_cache is None:
            source.update(Text("(the body of this file is not cached)", style="dim"))
            return
        source.update(Text("reading the cached body…", style="dim italic"))
        # a small pane shows fewer lines around the issue, so that all of them fit
        context = SOURCE_CONTEXT if not self.compact else SOURCE_CONTEXT - 2
        self._read_source(iss.id, self.body_cache, iss.node_id, iss.line, context)

    @work(thread=True, exclusive=True, group="issues-source", exit_on_error=False, description="read the source")
    def _read_source(self, issue_id: int, folder: Path, node_id: int, line: int, context: int) -> None:
        try:
            lines = read_lines(folder, node_id, line, context)
            if not lines and body_path(folder, node_id).exists():
                raise ValueError(f"line {line} is past the end of the cached body")
            self.post_message(_SourceLoaded(issue_id, lines))
        except (OSError, EOFError, ValueError) as exc:  # zlib.error is an Exception subclass too
            self.post_message(_SourceLoaded(issue_id, None, str(exc)))
        except Exception as exc:  # a corrupt cache must not kill the pane
            self.post_message(_SourceLoaded(issue_id, None, str(exc)))

    @on(_SourceLoaded)
    def _on_source(self, msg: _SourceLoaded) -> None:
        if msg.issue_id != self._source_for:
            return
        self._source_msg = msg
        iss = self.selected_issue
        source = self.query_one("#issues-source", Static)
        if msg.lines is None:
            source.update(Text(f"(cannot read the cached body: {display(msg.error)})", style="dim"))
        elif not msg.lines:
            source.update(Text("(the body of this file is not cached)", style="dim"))
        else:
            line = iss.line if iss is not None and iss.line else 0
            col = iss.col if iss is not None else None
            # each line cut to the room beside its number ("▶50003 │ ") and a scrollbar, which
            # appears when the lines arrive: the Static would wrap a longer one
            room = self._source_room()
            gutter = len(str(msg.lines[-1][0])) + 4
            find = where_to_look(iss.url, iss.message) if iss is not None else ()
            source.update(source_text(msg.lines, line, col, max(20, room - gutter), find))
            self._cut_at = room
            # the lines around the issue are what the detail is for: keep them on screen
            self.call_after_refresh(self._source_into_view)

    def _source_room(self) -> int:
        detail = self.query_one("#issues-detail", VerticalScroll)
        return (detail.content_region.width or self.size.width) - detail.styles.scrollbar_size_vertical

    def _source_into_view(self) -> None:
        if self.is_mounted:
            # lines cut before a layout that changed the detail's width (z, right after a move:
            # the source came in between) are cut again at the width now
            msg = self._source_msg
            if (msg is not None and msg.issue_id == self._source_for and self._source_room() != self._cut_at
                    and self._recut_of != id(msg)):
                self._recut_of = id(msg)  # once per source read: a width that kept moving would loop
                self._on_source(msg)
                return
            detail = self.query_one("#issues-detail", VerticalScroll)
            detail.scroll_to_widget(self.query_one("#issues-source", Static), animate=False, top=False)

    @on(Tree.NodeSelected, "#issues-tree")
    def _selected(self, event: Tree.NodeSelected[_Item]) -> None:
        item = event.node.data
        issue = item.issue if item is not None and item.kind == "issue" else None
        if issue is None:
            return
        if issue.entry_id is not None:
            self.post_message(self.JumpToEntry(issue.entry_id, self))
        elif (urls := file_issue_urls(issue)) is not None:  # (Enter did nothing on these)
            self.post_message(ShowUrls(urls[0], origin=self.issue_list, title=urls[1]))
        else:  # about the file as a whole (a 404, a parse error): said, not silence under "⏎ Show URLs"
            self.notify("This issue is about the sitemap file itself: no URL to show (its source, "
                        "when there is one, is below).", timeout=4, markup=False)

    @on(IssueTree.Drill)
    def _drill(self, event: IssueTree.Drill) -> None:
        """Enter on a rule: the URL table on the URLs with an issue of it (in this pane's scope,
        which the app gives the table). A rule whose issues are on no URL opens instead."""
        event.stop()
        item = event.node.data
        if item is None or item.rule is None:
            return
        if (item.severity, item.rule) not in self._with_urls:
            if item.kind == "rule":
                event.node.toggle()
            return
        rule_node = self._rule_nodes.get((item.severity, item.rule))
        count = rule_node.data.count if rule_node is not None and rule_node.data is not None else item.count
        title = rule_title(item.rule)
        name = f"{item.rule} — {title}" if title else item.rule
        self.post_message(ShowUrls(f"rule:{item.rule}", origin=self.issue_list, title=f"{name} ({count:,})"))

    # -- filter bar ------------------------------------------------------------------------------
    @on(Input.Changed, "#issues-filter")
    def _typed(self) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(0.3, self._refilter)

    @on(Input.Submitted, "#issues-filter")
    def _submitted(self) -> None:
        self._refilter()
        self.query_one("#issues-tree", Tree).focus()

    @on(Checkbox.Changed)
    def _toggled(self, event: Checkbox.Changed) -> None:
        event.stop()
        self._refilter()

    def _refilter(self) -> None:
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        self.reload()

    def set_filter(self, text: str | None = None, *, severities: tuple[str, ...] | None = None) -> None:
        """Set the filter bar programmatically and apply it now."""
        with self.prevent(Input.Changed, Checkbox.Changed):
            if text is not None:
                self.query_one("#issues-filter", Input).value = text
            if severities is not None:
                for s in SEVERITIES:
                    self.query_one(f"#sev-{s}", Checkbox).value = s in severities
        self._refilter()

    def action_focus_filter(self) -> None:
        self.query_one("#issues-filter", Input).focus()

    def _update_status(self) -> None:
        status = self.query_one("#issues-status", Static)
        if self.error:
            status.update(Text(display(self.error, 500)))
            return
        total = sum(n for _, _, n in self._groups)
        rules = len({r for _, r, _ in self._groups})
        if not self.node_ids:
            status.update(Text("select a sitemap in the tree"))
        elif total == 0:
            status.update(Text("no issues" + (" match the filter" if self._filter().text or len(self._filter().severities) < 3 else "")))
        else:
            counts = f"{total:,} issue{'s' * (total != 1)} · {rules} rule{'s' * (rules != 1)}"
            update_static(status, Text(f"{counts} · enter: URLs · space: open"))

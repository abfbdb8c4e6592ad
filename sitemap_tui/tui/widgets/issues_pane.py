"""The Issues pane: issues of the selected scope grouped by severity then rule.

A filter bar (text over rule ids, titles and messages; severity toggles) above a ``Tree``
(severity → rule (count) → issues, at most :data:`RULE_CAP` listed per rule then "… N more"),
and a detail area: the rule's title, explanation and source from the registry, the issue itself,
and the raw lines of the cached body around the issue's line, that line highlighted.

Counts and issue lists are read by thread workers with their own read-only connection. Every
string from the web (messages, URLs, body lines) goes through :func:`sanitize.display` and is a
``Text``: Tree labels given as ``str`` would be parsed as markup.
"""

from __future__ import annotations

import dataclasses
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

from sitemap_tui.engine.bodycache import read_lines
from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store import IssueRow, connect
from sitemap_tui.engine.store.issues import IssueFilter, issue_groups, rule_issues
from sitemap_tui.tui.widgets import update_static

try:  # the registry is written in parallel; the pane works without it
    from sitemap_tui.validate.registry import RULES as _RULES
except Exception:  # pragma: no cover - depends on the registry being importable
    _RULES = {}

RULES: dict[str, Any] = _RULES
RULE_CAP = 1000
"""Issues listed per rule; the rest is summarised as "… N more"."""
SOURCE_CONTEXT = 5
SEVERITIES = ("error", "warning", "info")
SEVERITY_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold cyan"}
SEVERITY_TITLE = {"error": "Errors", "warning": "Warnings", "info": "Info"}


@dataclasses.dataclass(frozen=True, slots=True)
class _Item:
    """What a tree node stands for."""

    kind: str  # "severity" | "rule" | "issue" | "more" | "loading"
    severity: str
    rule: str | None = None
    issue: IssueRow | None = None
    count: int = 0

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.kind, self.severity, self.rule, self.issue.id if self.issue else None)


def rule_title(rule_id: str) -> str | None:
    rule = RULES.get(rule_id)
    title = getattr(rule, "title", None) if rule is not None else None
    return str(title) if title else None


def rule_text(rule_id: str) -> Text:
    """The registry's explanation of a rule (or just its id when unknown)."""
    t = Text()
    rule = RULES.get(rule_id)
    t.append(display(rule_id), style="bold")
    if rule is None:
        t.append("\n(no description of this rule in the registry)", style="dim")
        return t
    title = getattr(rule, "title", "")
    if title:
        t.append(" — " + display(str(title)), style="bold")
    sev = getattr(rule, "severity", None)
    scope = getattr(rule, "scope", None)
    meta = ", ".join(str(getattr(x, "value", x)) for x in (sev, scope) if x)
    if meta:
        t.append(f"  ({meta})", style="dim")
    explanation = getattr(rule, "explanation", "")
    if explanation:
        t.append("\n" + display(str(explanation), 4000))
    source = getattr(rule, "source", "")
    if source:
        t.append("\nsource: ", style="bold")
        t.append(display(str(source), 1000))
    return t


def issue_text(iss: IssueRow) -> Text:
    t = Text()
    t.append(f"{iss.severity} ", style=SEVERITY_STYLE.get(iss.severity, ""))
    t.append(display(iss.message, 4000))
    if iss.sitemap:
        t.append("\nin ", style="dim")
        t.append(display(iss.sitemap))
        if iss.line:
            t.append(f" line {iss.line}" + (f", column {iss.col}" if iss.col else ""), style="dim")
    if iss.url:
        t.append("\nURL: ", style="dim")
        t.append(display(iss.url))
    if iss.entry_id is not None:
        t.append("\nenter: show this URL in the URL table", style="dim italic")
    return t


def source_text(lines: list[tuple[int, bytes]], line: int, col: int | None = None, width: int = 300) -> Text:
    """Numbered raw lines (decoded UTF-8 with replacement, sanitised), ``line`` highlighted.

    A long line is shown from a little before ``col`` so the problem is on screen."""
    t = Text(no_wrap=True, overflow="ellipsis")
    if not lines:
        return t
    digits = len(str(lines[-1][0]))
    start = max(0, col - width // 3) if col and col > width // 2 else 0
    for n, raw in lines:
        s = raw.decode("utf-8", "replace").expandtabs(4)
        shown = display(s[start:], width)
        if start:
            shown = "…" + shown
        mark = "▶" if n == line else " "
        style = "reverse" if n == line else ""
        t.append(f"{mark}{n:>{digits}} │ ", style="bold" if n == line else "dim")
        t.append(shown, style=style)
        t.append("\n")
    t.rstrip()
    return t


class _Counted(Message, bubble=False):
    def __init__(self, token: int, groups: list[tuple[str, str, int]], error: str | None = None) -> None:
        super().__init__()
        self.token, self.groups, self.error = token, groups, error


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

    DEFAULT_CSS = """
    IssuesPane {
        height: 1fr;
        #issues-bar { height: 1; }
        #issues-filter { width: 1fr; }
        #issues-bar Checkbox { width: auto; }
        #issues-tree { height: 1fr; min-height: 4; }
        #issues-status { height: 1; color: $text-muted; }
        #issues-detail { height: 45%; border-top: solid $primary; }
        #issues-source { margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_filter", "Filter", show=False, id="issues.filter"),
    ]

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
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="issues-bar"):
            yield Input(placeholder="/ filter rules and messages", id="issues-filter", compact=True)
            yield Checkbox("errors", True, id="sev-error", compact=True)
            yield Checkbox("warnings", True, id="sev-warning", compact=True)
            yield Checkbox("info", True, id="sev-info", compact=True)
        tree: Tree[_Item] = Tree(Text("issues"), id="issues-tree")
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
    def is_current(self) -> bool:
        """True when the last requested counts are shown (tests wait on this)."""
        return self.loaded_token == self._token

    def on_mount(self) -> None:
        self.reload()

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
        try:
            groups = issue_groups(conn, flt)
            error = None
        except sqlite3.Error as exc:
            groups, error = [], f"cannot read the issues: {exc}"
        finally:
            conn.close()
        if not worker.is_cancelled:
            self.post_message(_Counted(token, groups, error))

    @on(_Counted)
    def _on_counted(self, msg: _Counted) -> None:
        if msg.token != self._token:
            return
        self.loaded_token = msg.token
        self.error = msg.error
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
                rlabel = Text(display(rule), style="bold")
                title = rule_title(rule)
                if title:
                    rlabel.append(" " + display(title, 120))
                rlabel.append(f" ({n:,})", style="dim")
                rnode = snode.add(rlabel, _Item("rule", sev, rule, count=n), allow_expand=True)
                self._rule_nodes[(sev, rule)] = rnode
                if (sev, rule) in expanded:
                    rnode.expand()
        self._try_restore()

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
        multi_node = len({r.node_id for r in msg.rows}) > 1
        for iss in msg.rows:
            node.add_leaf(self._issue_label(iss, multi_node), _Item("issue", msg.severity, msg.rule, iss))
        if msg.total > len(msg.rows):
            more = msg.total - len(msg.rows)
            node.add_leaf(
                Text(f"… {more:,} more (export them or narrow the filter)", style="dim italic"),
                _Item("more", msg.severity, msg.rule, count=more),
            )
        self._try_restore()

    @staticmethod
    def _issue_label(iss: IssueRow, with_sitemap: bool) -> Text:
        t = Text(no_wrap=True, overflow="ellipsis")
        where = f"line {iss.line}" if iss.line else "file"
        if with_sitemap and iss.sitemap:
            t.append(display(iss.sitemap.rsplit("/", 1)[-1], 40) + " ", style="dim")
        t.append(f"{where}: ", style="dim")
        t.append(display(iss.message, 300))
        if iss.url and iss.url not in iss.message:
            t.append(" — " + display(iss.url, 300), style="dim")
        return t

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

    @on(Tree.NodeHighlighted, "#issues-tree")
    def _highlighted(self, event: Tree.NodeHighlighted[_Item]) -> None:
        item = event.node.data
        if item is None or item.kind == "severity":
            self._clear_detail()
            return
        text = rule_text(item.rule or "")
        source = self.query_one("#issues-source", Static)
        if item.kind == "issue" and item.issue is not None:
            text.append("\n\n")
            text.append_text(issue_text(item.issue))
            self._show_source(item.issue)
        else:
            source.update(Text(""))
            self._source_for = None
        self.query_one("#issues-explain", Static).update(text)

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
        self._read_source(iss.id, self.body_cache, iss.node_id, iss.line)

    @work(thread=True, exclusive=True, group="issues-source", exit_on_error=False, description="read the source")
    def _read_source(self, issue_id: int, folder: Path, node_id: int, line: int) -> None:
        try:
            lines = read_lines(folder, node_id, line, SOURCE_CONTEXT)
            self.post_message(_SourceLoaded(issue_id, lines))
        except (OSError, EOFError, ValueError) as exc:  # zlib.error is an Exception subclass too
            self.post_message(_SourceLoaded(issue_id, None, str(exc)))
        except Exception as exc:  # a corrupt cache must not kill the pane
            self.post_message(_SourceLoaded(issue_id, None, str(exc)))

    @on(_SourceLoaded)
    def _on_source(self, msg: _SourceLoaded) -> None:
        if msg.issue_id != self._source_for:
            return
        iss = self.selected_issue
        source = self.query_one("#issues-source", Static)
        if msg.lines is None:
            source.update(Text(f"(cannot read the cached body: {display(msg.error)})", style="dim"))
        elif not msg.lines:
            source.update(Text("(the body of this file is not cached)", style="dim"))
        else:
            line = iss.line if iss is not None and iss.line else 0
            col = iss.col if iss is not None else None
            source.update(source_text(msg.lines, line, col, max(40, self.size.width - 10)))

    @on(Tree.NodeSelected, "#issues-tree")
    def _selected(self, event: Tree.NodeSelected[_Item]) -> None:
        item = event.node.data
        if item is not None and item.kind == "issue" and item.issue is not None and item.issue.entry_id is not None:
            self.post_message(self.JumpToEntry(item.issue.entry_id, self))

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
            update_static(status, Text(f"{counts} · enter on an issue: show its URL"))

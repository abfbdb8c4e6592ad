"""The Overview pane: transfer and content statistics of a file, or aggregated over a subtree,
plus a table of the children of an index / robots.txt / site, and the changefreq / priority /
lastmod groups of its URLs: Enter on a group lists its URLs in the URL table (a drill-through)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Sparkline, Static

from sitemap_tui.engine.leftout import CROSS_HOST_CHILD
from sitemap_tui.engine.localmap import read_from
from sitemap_tui.engine.model import FoundBy, Node, NodeKind, NodeState
from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.stats import Aggregate
from sitemap_tui.engine.store.urls import distinct_locs
from sitemap_tui.tui.sizes import format_size
from sitemap_tui.tui.widgets import NodePane, Selection, update_static
from sitemap_tui.tui.widgets.drill_list import DrillList, DrillRow
from sitemap_tui.tui.widgets.overview_audit import audit_rows, fetch_audit
from sitemap_tui.tui.widgets.side_by_side import SideBySide
from sitemap_tui.tui.widgets.sitemap_tree import ICONS, short_name, since_text
from sitemap_tui.tui.widgets.url_table.columns import elide_middle
from sitemap_tui.words import plural

CHANGEFREQ_ORDER = ["always", "hourly", "daily", "weekly", "monthly", "yearly", "never", "invalid", "missing"]
MAX_CHILD_ROWS = 500
# the cells the URL count and the issues take with their padding, the name's padding, the
# table's margin and the scrollbar: at 80 columns the name gets the 27 they leave of the 52 (the
# state comes next, as much of it as fits: the tree's icons and colours say it too)
CHILD_COLUMNS_AFTER_NAME = 25
UNIQUE_SQL_LIMIT = 200_000
EIGHTHS = " ▏▎▍▌▋▊▉█"


def fmt_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.2f} s"


def fmt_size(n: int | None) -> str:
    if n is None:
        return "—"
    return format_size(n)


def fmt_ts(ts: int | None) -> str:
    if ts is None:
        return "—"
    try:
        return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d")
    except (OverflowError, OSError, ValueError):
        return "?"


def bar(fraction: float, width: int) -> str:
    fraction = min(max(fraction, 0.0), 1.0)
    eighths = round(fraction * width * 8)
    full, part = divmod(eighths, 8)
    out = "█" * full + (EIGHTHS[part] if part else "")
    return out.ljust(width)


def kv(rows: list[tuple[str, Text | str]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for key, value in rows:
        table.add_row(Text(key), value if isinstance(value, Text) else Text(value))
    return table


def distribution(title: str, token: str, counts: Counter[str], order: list[str], total: int) -> list[DrillRow]:
    """A heading and a row per value with URLs (count, bar, share); each row drills into
    ``token:VALUE`` (the filter that lists exactly the URLs it counts)."""
    rows = [DrillRow(Text(title, style="bold"), None)]
    keys = [k for k in order if counts.get(k)] + sorted(k for k in counts if k not in order and counts[k])
    if not keys:
        rows.append(DrillRow(Text("—", style="dim"), None))
    width = max([len(f"{counts[k]:,}") for k in keys] + [1])
    for key in keys:
        n = counts[key]
        share = n / total if total else 0.0
        style = "yellow" if key in ("invalid",) else ("dim" if key == "missing" else "cyan")
        label = Text(no_wrap=True, end="")
        label.append(display(key, 20).ljust(10) + " ")
        label.append(f"{n:,}".rjust(width) + " ")
        label.append(bar(share, 16), style=style)
        label.append(f" {share:.0%}".rjust(5), style="dim")
        rows.append(DrillRow(label, f"{token}:{key}", f"{title.lower()} {key} ({plural(n, 'URL')})"))
    return rows


BLANK = DrillRow(Text(""), None)


def lastmod_rows(agg: Aggregate) -> list[DrillRow]:
    """The lastmod groups that need a look (missing, invalid, in the future), when there are any."""
    groups = [("missing", agg.lastmod_missing, "dim"), ("invalid", agg.lastmod_invalid, "yellow"),
              ("future", agg.lastmod_future, "yellow")]
    shown = [(key, n, style) for key, n, style in groups if n]
    if not shown:
        return []
    width = max(len(f"{n:,}") for _, n, _ in shown)
    rows = [DrillRow(Text("Lastmod", style="bold"), None)]
    for key, n, style in shown:
        name = "in the future" if key == "future" else key
        label = Text(no_wrap=True, end="")
        label.append(name.ljust(14), style=style)
        label.append(f"{n:,}".rjust(width))
        rows.append(DrillRow(label, f"lastmod:{key}", f"lastmod {name} ({plural(n, 'URL')})"))
    return rows


def priority_order(counts: Counter[str]) -> list[str]:
    numeric = sorted((k for k in counts if k not in ("invalid", "missing")), key=lambda k: -float(k) if _is_float(k) else 0)
    return numeric + ["invalid", "missing"]


def _is_float(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def found_text(node: Node) -> str:
    """How the exploration came to a file: the robots.txt or index line that lists it, a probe
    of a common path, the home page's link; "" for the target itself and the containers."""
    line = f" {node.line:,}" if node.line else ""
    return {
        FoundBy.ROBOTS: f"Found: listed on line{line} of robots.txt",
        FoundBy.INDEX: f"Found: listed on line{line} of its index",
        FoundBy.PROBE: "Found: by probing a common path" if node.kind != NodeKind.ROBOTS else "",
        FoundBy.HTML_LINK: 'Found: linked from the home page (<link rel="sitemap">)',
    }.get(node.found_by, "")


def state_text(node: Node) -> Text:
    styles = {
        NodeState.DONE: "green",
        NodeState.FAILED: "bold red",
        NodeState.FETCHING: "magenta",
        NodeState.PARSING: "magenta",
        NodeState.SKIPPED: "dim",
        NodeState.PENDING: "dim",
    }
    return Text(_state_word(node), style=styles.get(node.state, ""))


def _state_word(node: Node) -> str:
    """A node's state in a word: a pending file a cancel stopped is "cancelled"."""
    if node.state == NodeState.PENDING and node.error == "cancelled":
        return "cancelled"
    return node.state.value


@dataclass(frozen=True, slots=True)
class SubtreeSums:
    """The subtree's Files, Size and Times rows, added up on the pane's worker thread: at
    210,000 nodes the five passes over them took the UI thread 0.22 s per refresh."""

    files: str
    wire: int
    decoded: int
    fetch: float
    parse: float

    @classmethod
    def of(cls, sel: Selection) -> SubtreeSums:
        wire = decoded = 0
        fetch = parse = 0.0
        for n in sel.nodes.values():
            s = n.stats
            wire += s.wire_bytes
            decoded += s.decoded_bytes
            fetch += s.fetch_time or 0.0
            parse += s.parse_time or 0.0
        return cls(files_text(sel), wire, decoded, fetch, parse)


def files_text(sel: Selection) -> str:
    """The subtree's files and how many are in each state: "120,007 (117,959 pending, ...)"."""
    # a file a cancel stopped is "cancelled", as its own Overview and the tree say (it was
    # counted "pending" here, 8 stopped part-way among them)
    states = Counter(_state_word(n) for i in sel.ids if (n := sel.nodes.get(i)) is not None
                     and n.kind not in (NodeKind.SITE, NodeKind.DIRECTORY))
    order = [st.value for st in NodeState] + ["cancelled"]
    # (every count with its separators: "117959 pending" beside "120,007", found in tmux)
    detail = ", ".join(f"{states[w]:,} {w}" for w in order if states.get(w))
    return f"{sum(states.values()):,}" + (f" ({detail})" if detail else "")


class OverviewPane(NodePane):
    """Per-file stats, or the same aggregated over an index / robots / site subtree."""

    DEFAULT_CSS = """
    OverviewPane { height: 1fr; }
    OverviewPane > VerticalScroll { height: 1fr; }
    OverviewPane #ov-summary { padding: 0 1; height: auto; }
    OverviewPane #ov-history { padding: 0 1; height: auto; }
    OverviewPane #ov-spark { height: 1; margin: 0 1; max-width: 40; }
    OverviewPane .-hidden { display: none; }
    OverviewPane #ov-children { height: auto; max-height: 100%; margin: 1 1 0 1; }
    OverviewPane #ov-children.-empty { display: none; }
    OverviewPane #ov-groups { margin: 1 0 0 1; }
    OverviewPane #ov-groups.-empty { display: none; }
    """

    class ChildChosen(Message):
        """A row of the children table was chosen: the tree moves to that node."""

        def __init__(self, node_id: int) -> None:
            super().__init__()
            self.node_id = node_id

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            # the site's history (issue 20): shown once the app has read it from the cache
            yield Static(Text(""), id="ov-history", classes="-hidden")
            yield Sparkline([], id="ov-spark", classes="-hidden")
            yield Static(Text("Select a node in the tree.", style="dim"), id="ov-summary")
            table: DataTable[Text] = DataTable(id="ov-children", cursor_type="row", zebra_stripes=True, classes="-empty")
            yield table
            yield DrillList(id="ov-groups", classes="-empty")

    def on_mount(self) -> None:
        self._child_rows: list[tuple[str, tuple[Text, ...]]] = []
        self._name_width = 0
        table = self.query_one("#ov-children", DataTable)
        # the counts first after the name: at 80x24 the pane is ~52 columns and the name ~25,
        # so kind and state (which the tree's icons and colours say too) came before the URL
        # count and the issues did and pushed them out of view (seen in tmux)
        for key, label in (("name", "Name"), ("urls", "URLs"), ("issues", "Issues"), ("state", "State"), ("size", "Size"), ("kind", "Kind")):
            table.add_column(Text(label), key=key)

    # -- data (worker thread) -----------------------------------------------------------------
    def fetch_data(self, store: Any, selection: Selection) -> dict[str, Any]:
        file_ids = selection.file_ids
        agg = store.aggregate(selection.store_file_ids) if file_ids else Aggregate()
        unique = agg.unique
        if selection.subtree:
            unique = None
            if 0 < agg.urls <= UNIQUE_SQL_LIMIT:
                unique = distinct_locs(store.conn, file_ids)
        issues = store.issue_counts(selection.store_node_ids, filed=True)
        sums = SubtreeSums.of(selection) if selection.subtree else None
        return {"agg": agg, "unique": unique, "issues": issues, "audit": fetch_audit(store.conn, file_ids), "sums": sums}

    # -- rendering (UI thread) ----------------------------------------------------------------
    def render_data(self, data: Any) -> None:
        summary = self.query_one("#ov-summary", Static)
        table = self.query_one("#ov-children", DataTable)
        sel = self.selection
        if sel is None:
            summary.update(Text("Select a node in the tree.", style="dim"))
            table.add_class("-empty")
            self.groups.add_class("-empty")
            return
        if data is None:
            data = {"agg": Aggregate(), "unique": None, "issues": {}}
        if "error" in data:
            summary.update(Text(data["error"], style="red"))
            return
        update_static(summary, self._summary(sel, data))
        self._fill_children(table, sel)
        self._fill_groups(data["agg"], sel.node.stats.url_count, audit_rows(data.get("audit")))

    @property
    def groups(self) -> DrillList:
        """The changefreq / priority / lastmod groups, each a drill-through to its URLs."""
        return self.query_one("#ov-groups", DrillList)

    def _fill_groups(self, agg: Aggregate, url_count: int, audit: list[DrillRow]) -> None:
        urls = agg.urls if agg.urls else url_count
        rows: list[DrillRow] = []
        if urls:
            rows += distribution("Changefreq", "changefreq", agg.changefreq, CHANGEFREQ_ORDER, urls)
            rows[0].label.append("   enter: list a row's URLs", style="dim italic")
            rows += [BLANK, *distribution("Priority", "priority", agg.priority, priority_order(agg.priority), urls)]
            if lastmod := lastmod_rows(agg):
                rows += [BLANK, *lastmod]
            rows += [BLANK, *audit] if audit else []  # indexability, crawler access (issue 22)
        self.groups.set_class(not rows, "-empty")
        self.groups.set_rows(rows)

    def _summary(self, sel: Selection, data: dict[str, Any]) -> Group:
        node = sel.node
        s = node.stats
        agg: Aggregate = data["agg"]
        parts: list[Any] = []
        title = Text()
        title.append(ICONS.get(node.kind, "·") + " ", style="bold cyan")
        title.append(short_name(node), style="bold")
        title.append(f"   {node.kind.value} · ", style="dim")
        title.append_text(state_text(node))
        parts.append(title)
        parts.append(Text(display(node.url), style="dim"))
        found = found_text(node)
        if found:  # (how discovery came to it: found from outside, said nowhere in the explorer)
            parts.append(Text(found, style="dim"))
        cancelled = node.state == NodeState.PENDING and node.error == "cancelled"
        if cancelled:
            # what the cancelled fetch got stays in the store: say it is partial, not "not fetched"
            n = s.url_count
            parts.append(Text(f"Cancelled: the fetch was stopped after {n:,} URL{'s' if n != 1 else ''} (partial);"
                              " press enter to fetch the file again.", style="yellow"))
        elif node.error:
            style = "bold red" if node.state == NodeState.FAILED else "yellow"
            label = "Failed: " if node.state == NodeState.FAILED else ("Skipped: " if node.state == NodeState.SKIPPED else "Note: ")
            parts.append(Text(label + display(node.error), style=style))
            if node.state == NodeState.SKIPPED and node.found_by == FoundBy.INDEX and node.error == CROSS_HOST_CHILD:
                # (the option is the command line's: here it is a key)
                parts.append(Text("Here: f follows other hosts, then r on the file that lists it.", style="italic"))
        if s.unchanged_since:  # a re-exploration's 304 (engine/refetch.py)
            parts.append(Text(f"Unchanged since {since_text(s.unchanged_since)} (304 Not Modified): its URLs were"
                              " copied from that exploration; r fetches it again.", style="cyan"))
        if node.state == NodeState.PENDING and not cancelled and node.kind not in (NodeKind.SITE, NodeKind.DIRECTORY) and not sel.subtree:
            parts.append(Text("Not fetched yet: press enter (or expand it) to fetch this file.", style="italic"))
        parts.append(Text(""))

        left: list[tuple[str, Text | str]] = []
        if sel.subtree:
            sums = data.get("sums") or SubtreeSums.of(sel)  # (no data: the store could not be read)
            left.append(("Files", sums.files))
            left.append(("Size", f"{fmt_size(sums.wire)} wire · {fmt_size(sums.decoded)} decoded"))
            left.append(("Times", f"fetch {fmt_seconds(sums.fetch)} · parse {fmt_seconds(sums.parse)} (sum)"))
            if node.kind not in (NodeKind.SITE, NodeKind.DIRECTORY):
                left.extend(self._transfer_rows(node)[:2])
        else:
            left.extend(self._transfer_rows(node))
        config = getattr(self.app, "fetch_config", None)
        source = read_from(config.maps, node.url) if config is not None else None
        if source is not None:  # --map: the bytes came from the build directory, not the URL
            left.append(("Read from", Text(display(source))))

        right: list[tuple[str, Text | str]] = []
        urls = agg.urls if agg.urls else s.url_count
        right.append(("URLs", f"{urls:,}"))
        if agg.no_url:  # (an empty or missing <loc>, a feed item without a link: the Issues pane names each)
            n = agg.no_url
            right.append(("No URL", Text(f"{n:,} entr{'y' if n == 1 else 'ies'} not listed (see Issues)", style="yellow")))
        unique = data.get("unique")
        if unique is not None:
            dupes = urls - unique
            right.append(("Unique", f"{unique:,}" + (f" ({dupes:,} duplicate{'s' if dupes != 1 else ''})" if dupes > 0 else "")))
        else:
            right.append(("Unique", "—"))
        if node.kind in (NodeKind.INDEX, NodeKind.ROBOTS):
            right.append(("Sitemaps listed", f"{s.child_count:,}" if s.child_count else str(len(sel.children))))
        if node.lastmod_raw:  # what the parent index says of this file
            right.append(("Index lastmod", Text(display(node.lastmod_raw, 60))))
        right.append(("Lastmod", f"{fmt_ts(agg.lastmod_min)} → {fmt_ts(agg.lastmod_max)}" if agg.lastmod_min is not None else "—"))
        lm = Text()
        lm.append(f"{agg.lastmod_missing:,} missing", style="dim" if not agg.lastmod_missing else "")
        lm.append(" · ")
        lm.append(f"{agg.lastmod_invalid:,} invalid", style="yellow" if agg.lastmod_invalid else "dim")
        lm.append(" · ")
        lm.append(f"{agg.lastmod_future:,} in the future", style="yellow" if agg.lastmod_future else "dim")
        right.append(("", lm))
        issues = data.get("issues") or {}
        it = Text()
        n_err, n_warn = issues.get("error", 0), issues.get("warning", 0)
        it.append(f"{n_err:,} error{'s' if n_err != 1 else ''}", style="bold red" if n_err else "dim")
        it.append(" · ")
        it.append(f"{n_warn:,} warning{'s' if n_warn != 1 else ''}", style="yellow" if n_warn else "dim")
        it.append(" · ")
        it.append(f"{issues.get('info', 0):,} info", style="dim")
        right.append(("Issues", it))

        first = self._section("Transfer" if not sel.subtree else "Subtree", left)
        second = self._section("Content", right)
        parts.extend(self._side_by_side(first, second))
        if sel.children:
            parts.append(Text(""))
            more = len(sel.children) - MAX_CHILD_ROWS
            label = f"Children ({len(sel.children):,})" + (f", first {MAX_CHILD_ROWS} shown" if more > 0 else "")
            parts.append(Text(label, style="bold"))
        return Group(*parts)

    @staticmethod
    def _side_by_side(a: Any, b: Any) -> list[Any]:
        # decided when drawn, by the widths both need: a resize lays it out again (issue 18)
        return [SideBySide(a, b)]

    @staticmethod
    def _section(title: str, rows: list[tuple[str, Text | str]]) -> Group:
        return Group(Text(title, style="bold underline"), kv(rows))

    @staticmethod
    def _transfer_rows(node: Node) -> list[tuple[str, Text | str]]:
        s = node.stats
        rows: list[tuple[str, Text | str]] = []
        status = Text(str(s.http_status) if s.http_status is not None else "—")
        if s.http_status is not None and s.http_status >= 400:
            status.stylize("bold red")
        if s.redirects:
            status.append(f" after {s.redirects} redirect{'s' if s.redirects != 1 else ''}", style="dim")
        rows.append(("HTTP status", status))
        if s.final_url and s.final_url != node.url:
            rows.append(("Final URL", Text(display(s.final_url))))
        rows.append(("Content type", Text(display(s.content_type, 120) or "—")))
        enc = display(s.xml_encoding, 40) or "—"
        transport = display(s.content_encoding, 40)
        rows.append(("Encoding", Text(enc + (f" · transfer {transport}" if transport else ""))))
        rows.append(("Gzip file", "yes" if s.gzipped else "no"))
        rows.append(("Size", f"{fmt_size(s.wire_bytes)} wire · {fmt_size(s.decoded_bytes)} decoded"))
        rows.append(("Times", f"ttfb {fmt_seconds(s.ttfb)} · fetch {fmt_seconds(s.fetch_time)} · parse {fmt_seconds(s.parse_time)}"))
        if s.truncated_at:
            rows.append(("Truncated", Text(f"at line:col {display(s.truncated_at, 40)}", style="yellow")))
        return rows

    def _children_name_width(self) -> int:
        """The cells a child's name may take: what the URL count and the issues leave of the
        pane (at 80 columns a folder's long file names pushed them all out), at most 60."""
        return min(60, max(16, self.size.width - CHILD_COLUMNS_AFTER_NAME))

    def on_key(self, event: events.Key) -> None:
        """Enter on the body, where 1 leaves the focus: the rows that list URLs take it, on
        their first row (their heading says "enter: list a row's URLs", and Enter did nothing
        until a tab reached them). A second Enter lists that row's URLs."""
        groups = self.groups
        if event.key == "enter" and self.screen.focused is self.body and groups.option_count:
            event.stop()
            event.prevent_default()
            groups.focus()  # (it brings its highlighted row into view: DrillList.on_focus)

    def on_resize(self, event: events.Resize) -> None:
        sel = self.selection
        if sel is not None and self._child_rows and self._children_name_width() != self._name_width:
            self._child_rows = []  # the names are cut anew: the rows are laid out again
            self._fill_children(self.query_one("#ov-children", DataTable), sel)

    def _fill_children(self, table: DataTable[Any], sel: Selection) -> None:
        rows: list[tuple[str, tuple[Text, ...]]] = []
        name_width = self._name_width = self._children_name_width()
        for child in sel.children[:MAX_CHILD_ROWS]:
            errors, warnings = sel.issues.get(child.id, (0, 0))
            badge = Text()
            if errors:
                badge.append(f"●{errors:,}", style="bold red")
            if warnings:
                badge.append((" " if errors else "") + f"▲{warnings:,}", style="yellow")
            is_file = child.kind not in (NodeKind.INDEX, NodeKind.ROBOTS, NodeKind.SITE, NodeKind.DIRECTORY)
            count = child.stats.url_count if is_file else child.stats.child_count
            count_text = (f"{count:,}" if is_file else plural(count, "file")) if child.state == NodeState.DONE else "—"
            rows.append((str(child.id), (
                # cut once, in the middle: the end (.xml, -2024.xml.gz) tells files apart
                Text(elide_middle(short_name(child, 500), name_width)),
                Text(count_text, justify="right"),
                badge,
                state_text(child),
                Text(fmt_size(child.stats.decoded_bytes) if child.stats.decoded_bytes else "—", justify="right"),
                Text(child.kind.value),
            )))
        if not rows:
            table.clear()
            self._child_rows = []
            table.add_class("-empty")
            return
        table.remove_class("-empty")
        shown = self._child_rows
        if [key for key, _ in shown] == [key for key, _ in rows]:
            # same children as shown (a refresh while streaming): change the cells that changed,
            # instead of clearing the table (which lays the whole pane out again)
            columns = [column.key for column in table.ordered_columns]
            for (key, old), (_, new) in zip(shown, rows, strict=True):
                for column, before, after in zip(columns, old, new, strict=True):
                    if before != after:
                        table.update_cell(key, column, after, update_width=True)
        else:
            table.clear()
            for key, cells in rows:
                table.add_row(*cells, key=key)
        self._child_rows = rows

    @on(DataTable.RowSelected, "#ov-children")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = event.row_key.value
        if key is not None and key.isdigit():
            self.post_message(self.ChildChosen(int(key)))

    def show_history(self, since: str | None, added: int, removed: int, url_counts: tuple[int, ...],
                     unread: int = 0, unreadable: bool = False) -> None:
        """The site's history line: "since DATE: +N −N" against the latest earlier exploration
        of the site kept in the cache, and its URL counts over time as a sparkline. ``unread``:
        files of this exploration not read (yet, or a cancel stopped them): what they list is
        counted as removed, and the line says so (it said "−1,000,000" before an expansion)."""
        line = self.query_one("#ov-history", Static)
        spark = self.query_one("#ov-spark", Sparkline)
        text = Text()
        if since is not None:
            when = datetime.fromisoformat(since).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
            # "Site": the line is the whole site's whatever node is selected (found from outside:
            # under a file's own "−1" in the tree it read as that file's +2 −0)
            text.append("Site since ", style="bold")
            text.append(when, style="bold cyan")
            if unreadable:  # (``unreadable``: the target itself failed: nothing to compare)
                text.append(": not compared, this exploration could not read the target", style="italic")
            else:
                text.append(f": +{added:,}", style="bold green")
                text.append(f" −{removed:,}", style="bold red")
                text.append(" URLs", style="")
            if unread and not unreadable:
                text.append(f" ({unread:,} {'file' if unread == 1 else 'files'} not read here: their URLs"
                            " count as removed)", style="italic")
        kind = "explorations"
        if unread and not unreadable and url_counts:
            # this one's count is not the site's while its files are unread: a lazy tree drew
            # "436 → 0" before anything was expanded (found from outside); the earlier ones only
            url_counts, kind = url_counts[:-1], "earlier explorations"
        if len(url_counts) > 1:
            # on a line of its own, just above its sparkline (after "+N −N URLs" it read
            # "URLs   URLs over …" and wrapped mid-phrase at 80 columns)
            # ("Site's" only without the "Site since" line above it: 80 columns wrapped it)
            text.append(("\n" if since else "Site's ") + f"URLs over {len(url_counts)} {kind} "
                        f"({url_counts[0]:,} → {url_counts[-1]:,}):", style="dim")
        line.update(text)
        line.set_class(not text.plain, "-hidden")
        spark.data = list(url_counts)
        spark.styles.width = min(40, 3 * len(url_counts))  # a few cells each: 2 points are no ramp
        spark.set_class(len(url_counts) < 2, "-hidden")


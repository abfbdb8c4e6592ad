"""The Changes pane (compare mode, issue 20 §2): what changed since an earlier exploration.

The summary of ``sitemap-tui diff`` (session.diff.SUMMARY_KEYS), counted once by the comparison
(tui/compare.py); Enter on a URL row opens the URL table on exactly those URLs (``diff:WHAT``,
drilled over the whole exploration). The sitemap and issue rows are counts only: their lists
are the report's (``sitemap-tui diff OLD NEW``).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from sitemap_tui.engine.sanitize import display
from sitemap_tui.tui.compare import Comparison
from sitemap_tui.tui.widgets.drill_list import DrillList, DrillRow
from sitemap_tui.words import plural

HINT = ("No comparison. \"Compare with…\" in the palette (ctrl+p) compares this exploration with an earlier "
        "one of the same site; `sitemap-tui diff OLD NEW --tui` opens one.")

# (summary key, label, the diff: filter that lists its URLs or None, style)
URL_ROWS: tuple[tuple[str, str, str | None, str], ...] = (
    ("urls_added", "URLs added", "added", "green"),
    ("urls_removed", "URLs removed", "removed", "red"),
    ("urls_moved", "URLs moved to another sitemap", "moved", "yellow"),
    ("lastmod_changed", "lastmod changed", "lastmod", "yellow"),
    ("lastmod_forward", "  forward", "lastmod-forward", ""),
    ("lastmod_backward", "  backward (suspicious)", "lastmod-back", "red"),
    ("lastmod_set", "  set", "lastmod-set", ""),
    ("lastmod_cleared", "  cleared", "lastmod-cleared", ""),
    ("changefreq_changed", "changefreq changed", "changefreq", "yellow"),
    ("priority_changed", "priority changed", "priority", "yellow"),
)
# (summary key, label, its diff: filter): each row lists its own URLs (one filter for all four
# listed a URL whose hreflang changed under "images", found from outside)
EXT_ROWS = (("images_changed", "images", "images"), ("videos_changed", "videos", "videos"),
            ("news_changed", "news", "news"), ("hreflang_changed", "hreflang alternates", "hreflang"))
SITEMAP_ROWS = (("sitemaps_added", "added"), ("sitemaps_removed", "removed"), ("sitemaps_failing", "failing now"),
                ("sitemaps_recovered", "recovered"), ("sitemaps_changed", "changed"),
                ("sitemaps_unfetched", "not fetched on a side"))
ISSUE_ROWS = (("issues_new", "new"), ("issues_resolved", "resolved"))


def _row(label: str, n: int, style: str, what: str | None) -> DrillRow:
    text = Text(f"  {label:<34}", style="" if n else "dim")
    text.append(f"{n:>9,}", style=f"bold {style}" if n and style else ("bold" if n else "dim"))
    return DrillRow(text, f"diff:{what}" if what and n else None, f"{label.strip()} ({plural(n, 'URL')})")


def changes_rows(c: Comparison) -> list[DrillRow]:
    """The pane's rows: the URL counts (each a drill), extensions, sitemaps, issues."""
    s = c.summary
    head = Text("URLs", style="bold")
    head.append("   enter: list a row's URLs", style="dim italic")
    rows = [DrillRow(head, None)]
    for key, label, what, style in URL_ROWS:
        rows.append(_row(label, s.get(key, 0), style, what))
    rows.append(DrillRow(Text("Extensions changed", style="bold"), None))
    for key, label, what in EXT_ROWS:
        rows.append(_row(label, s.get(key, 0), "yellow", what))
    rows.append(DrillRow(Text("Sitemap files", style="bold"), None))
    for key, label in SITEMAP_ROWS:
        rows.append(_row(label, s.get(key, 0), "red" if key in ("sitemaps_removed", "sitemaps_failing") else "", None))
    rows.append(DrillRow(Text("Issues", style="bold"), None))
    if c.unlike:  # (a side judged by fewer rules: its "new" are not new faults)
        rows.append(DrillRow(Text(f"  {c.unlike}", style="yellow"), None))
    for key, label in ISSUE_ROWS:
        rows.append(_row(label, s.get(key, 0), "red" if key == "issues_new" else "green", None))
    return rows


class ChangesPane(Widget):
    """The comparison's summary, or how to start one (see the module docstring)."""

    DEFAULT_CSS = """
    ChangesPane { height: 1fr; }
    ChangesPane #ch-title { padding: 0 1; height: auto; }
    ChangesPane DrillList { margin-top: 1; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="ch-body"):
            yield Static(Text(HINT, style="dim"), id="ch-title")
            yield DrillList(id="ch-rows")

    @property
    def rows(self) -> DrillList:
        return self.query_one("#ch-rows", DrillList)

    @property
    def body(self) -> VerticalScroll:
        return self.query_one("#ch-body", VerticalScroll)

    def show_running(self, old_label: str) -> None:
        self.query_one("#ch-title", Static).update(
            Text(f"Comparing with the exploration of {display(old_label)} …", style="bold magenta"))
        self.rows.set_rows([])

    def show_error(self, error: str) -> None:
        self.query_one("#ch-title", Static).update(Text(f"The comparison failed: {display(error)}", style="red"))
        self.rows.set_rows([])

    def show_comparison(self, c: Comparison | None, *, unread: int = 0) -> None:
        title = self.query_one("#ch-title", Static)
        if c is None:
            title.update(Text(HINT, style="dim"))
            self.rows.set_rows([])
            return
        s = c.summary
        text = Text("Since ", style="bold")
        text.append(display(c.old_label), style="bold cyan")
        text.append(f":  +{s.get('urls_added', 0):,}", style="bold green")
        text.append(f"  −{s.get('urls_removed', 0):,}", style="bold red")
        text.append(" URLs")
        if unread:  # (compared again once they are read: app_compare)
            text.append(f"\n{plural(unread, 'file')} of this exploration not read yet: what they list counts as"
                        " removed until they are", style="yellow")
        title.update(text)
        self.rows.set_rows(changes_rows(c))

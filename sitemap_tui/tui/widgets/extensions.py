"""The Extensions pane: image / video / news / hreflang usage, and a per-language table."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.stats import Aggregate
from sitemap_tui.tui.widgets import NodePane, Selection, update_static
from sitemap_tui.tui.widgets.overview import bar
from sitemap_tui.tui.widgets.sitemap_tree import short_name
from sitemap_tui.words import plural

MAX_LANGS = 200


def _share(n: int, total: int) -> str:
    return f"{n / total:.0%}" if total else "—"


class ExtensionsPane(NodePane):
    DEFAULT_CSS = """
    ExtensionsPane { height: 1fr; }
    ExtensionsPane > VerticalScroll { height: 1fr; }
    ExtensionsPane #ext-body { padding: 0 1; height: auto; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(Text("Select a node in the tree.", style="dim"), id="ext-body")

    def fetch_data(self, store: Any, selection: Selection) -> Aggregate:
        ids = selection.file_ids
        return store.aggregate(ids) if ids else Aggregate()

    def render_data(self, data: Any) -> None:
        body = self.query_one("#ext-body", Static)
        sel = self.selection
        if sel is None:
            body.update(Text("Select a node in the tree.", style="dim"))
            return
        agg: Aggregate = data if isinstance(data, Aggregate) else Aggregate()
        urls = agg.urls
        title = Text()
        title.append(short_name(sel.node), style="bold")
        title.append(f"   {plural(urls, 'URL')}" + (" in this subtree" if sel.subtree else ""), style="dim")

        table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
        table.add_column("Extension", no_wrap=True, min_width=19)
        table.add_column("URLs with it", justify="right", no_wrap=True, min_width=12)
        table.add_column("", no_wrap=True, width=16)
        table.add_column("Share of URLs", justify="right", no_wrap=True, min_width=13)
        table.add_column("Items", justify="right", no_wrap=True, min_width=5)
        rows = (
            ("image:image", agg.urls_with_images, agg.images),
            ("video:video", agg.urls_with_videos, agg.videos),
            ("news:news", agg.urls_with_news, agg.news),
            ("xhtml:link", agg.urls_with_alternates, agg.alternates),  # hreflang, mobile and app links alike
        )
        widest = max((w for _, w, _ in rows), default=0) or 1
        for name, with_it, items in rows:
            frac = with_it / widest  # bars relative to the most used extension
            style = "cyan" if with_it else "dim"
            table.add_row(
                Text(name, style="" if with_it else "dim"),
                Text(f"{with_it:,}"),
                Text(bar(frac, 16).rstrip(), style=style),
                Text(_share(with_it, urls), style="dim"),
                Text(f"{items:,}"),
            )
        parts: list[Any] = [title, Text(""), table, Text("")]
        langs = agg.hreflang
        if langs:
            parts.append(Text(f"hreflang languages ({len(langs):,})", style="bold underline"))
            lt = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
            lt.add_column("hreflang", no_wrap=True, min_width=8)
            lt.add_column("Alternates", justify="right", no_wrap=True, min_width=10)
            lt.add_column("", no_wrap=True, width=16)
            lt.add_column("Share of URLs", justify="right", no_wrap=True, min_width=13)
            top = max(langs.values())
            for lang, n in sorted(langs.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_LANGS]:
                lt.add_row(
                    Text(display(lang, 40)),
                    Text(f"{n:,}"),
                    Text(bar(n / top if top else 0.0, 16).rstrip(), style="magenta"),
                    Text(_share(n, urls), style="dim"),
                )
            parts.append(lt)
            if len(langs) > MAX_LANGS:
                parts.append(Text(f"… and {len(langs) - MAX_LANGS:,} more", style="dim"))
        else:
            parts.append(Text("No hreflang alternates.", style="dim"))
        update_static(body, Group(*parts))

"""The Extensions pane: image / video / news / hreflang usage, and a per-language table.

Enter on an extension's row lists the URLs that use it (``has:video``, ...) in the URL table, and
on a language's row the URLs with an alternate in it (``lang:de``): one list, the arrows go on
from the extensions into the languages (found from outside: the languages were a picture)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.stats import Aggregate
from sitemap_tui.tui.widgets import NodePane, Selection, update_static
from sitemap_tui.tui.widgets.drill_list import DrillList, DrillRow
from sitemap_tui.tui.widgets.overview import bar
from sitemap_tui.tui.widgets.sitemap_tree import short_name
from sitemap_tui.words import plural

MAX_LANGS = 200
# the row of each extension: its name, the URL filter of the URLs that use it
EXTENSION_ROWS = (
    ("image:image", "has:image"),
    ("video:video", "has:video"),
    ("news:news", "has:news"),
    ("xhtml:link", "has:hreflang"),  # hreflang, mobile and app links alike
)
# the columns of the extension rows (name, URLs with it, bar, share, items) and their headings;
# below WIDE columns the short ones, with a bar as wide as what is left (the rows never wrap)
COLUMNS = (19, 12, 16, 13, 5)
HEADINGS = ("Extension", "URLs with it", "", "Share of URLs", "Items")
SHORT_HEADINGS = ("Extension", "URLs", "", "Share", "Items")
WIDE = sum(COLUMNS) + len(COLUMNS) + 2


def columns(width: int) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The column widths and headings of the extension rows for a pane ``width`` wide."""
    if width >= WIDE:
        return COLUMNS, HEADINGS
    fixed = (11, 6, 0, 5, 6)
    bar_w = max(3, width - sum(fixed) - len(fixed) - 3)
    return (11, 6, bar_w, 5, 6), SHORT_HEADINGS


def _share(n: int, total: int) -> str:
    return f"{n / total:.0%}" if total else "—"


class ExtensionsPane(NodePane):
    DEFAULT_CLASSES = "-empty"  # until a node's numbers come (at construction: no restyle)

    DEFAULT_CSS = """
    ExtensionsPane { height: 1fr; }
    ExtensionsPane > VerticalScroll { height: 1fr; }
    ExtensionsPane #ext-title, ExtensionsPane #ext-head, ExtensionsPane #ext-body { padding: 0 1; height: auto; }
    ExtensionsPane #ext-title, ExtensionsPane #ext-body { margin-bottom: 1; }
    ExtensionsPane #ext-rows { margin: 0 0 1 1; }
    ExtensionsPane.-empty #ext-title, ExtensionsPane.-empty #ext-head, ExtensionsPane.-empty #ext-rows { display: none; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("", id="ext-title")
            yield Static("", id="ext-head")
            yield DrillList(id="ext-rows")
            yield Static(Text("Select a node in the tree.", style="dim"), id="ext-body")

    _shown: Aggregate | None = None

    @property
    def body(self) -> Widget:
        """The rows when there are any (`2` then Enter drills), else the scrollable body."""
        if self.has_class("-empty"):
            return super().body
        return self.query_one(DrillList)

    @property
    def rows(self) -> DrillList:
        return self.query_one("#ext-rows", DrillList)

    def on_resize(self) -> None:
        # the rows fit the width: drawn again for the new one
        if self.selection is not None and self._shown is not None:
            self.render_data(self._shown)

    def fetch_data(self, store: Any, selection: Selection) -> Aggregate:
        return store.aggregate(selection.store_file_ids) if selection.file_ids else Aggregate()

    def render_data(self, data: Any) -> None:
        body = self.query_one("#ext-body", Static)
        sel = self.selection
        if sel is None:
            self.add_class("-empty")
            self.query_one("#ext-title", Static).update("")
            body.update(Text("Select a node in the tree.", style="dim"))
            return
        self.remove_class("-empty")
        agg: Aggregate = data if isinstance(data, Aggregate) else Aggregate()
        self._shown = agg
        urls = agg.urls
        title = Text()
        title.append(short_name(sel.node), style="bold")
        title.append(f"   {plural(urls, 'URL')}" + (" in this subtree" if sel.subtree else ""), style="dim")

        update_static(self.query_one("#ext-title", Static), title)
        counts = (
            (agg.urls_with_images, agg.images),
            (agg.urls_with_videos, agg.videos),
            (agg.urls_with_news, agg.news),
            (agg.urls_with_alternates, agg.alternates),
        )
        widest = max((w for w, _ in counts), default=0) or 1
        widths, headings = columns(self.size.width)
        update_static(self.query_one("#ext-head", Static), _row(widths, *(Text(h, style="bold") for h in headings)))
        drill: list[DrillRow] = []
        for (name, filter_text), (with_it, items) in zip(EXTENSION_ROWS, counts, strict=True):
            frac = with_it / widest  # bars relative to the most used extension
            style = "cyan" if with_it else "dim"
            label = _row(
                widths,
                Text(name, style="" if with_it else "dim"),
                Text(f"{with_it:,}"),
                Text(bar(frac, widths[2]).rstrip(), style=style),
                Text(_share(with_it, urls), style="dim"),
                Text(f"{items:,}"),
            )
            drill.append(DrillRow(label, filter_text, f"URLs with {name} ({plural(with_it, 'URL')})"))
        langs = agg.hreflang
        if langs:
            drill += self._language_rows(langs, urls)
        self.rows.set_rows(drill)
        if self.screen.focused is super().body:
            self.rows.focus()  # `2` came before the rows: they are the pane's main widget now
        if not langs:
            update_static(body, Text("No hreflang alternates.", style="dim"))
        elif len(langs) > MAX_LANGS:
            update_static(body, Text(f"… and {len(langs) - MAX_LANGS:,} more languages", style="dim"))
        else:
            update_static(body, Text(""))
        body.display = not langs or len(langs) > MAX_LANGS

    def _language_rows(self, langs: Mapping[str, int], urls: int) -> list[DrillRow]:
        """A heading and one row per language (the most linked first, at most MAX_LANGS), each
        drilling to ``lang:CODE``: its alternates, a bar relative to the most linked, and the
        share of the URLs (one URL may link a language more than once: a rough share)."""
        shown = sorted(langs.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_LANGS]
        names = [display(lang, 40) for lang, _ in shown]
        top = max(langs.values())
        numbers = max(5, len(f"{top:,}"))
        if self.size.width >= WIDE:
            widths, headings = (16, max(10, numbers), 16, 13), ("hreflang", "Alternates", "", "Share of URLs")
        else:
            # at 80 columns the long headings cut the share off: short ones, and the bar takes
            # what the name and the numbers leave (as the extension rows above)
            name_w = max(9, min(16, max(len(n) for n in names)))  # (x-default whole)
            bar_w = max(3, self.size.width - name_w - numbers - 5 - 3 - 4)
            widths, headings = (name_w, numbers, bar_w, 5), ("hreflang", "Links", "", "Share")
        rows = [DrillRow(Text(""), None),
                DrillRow(Text(f"hreflang languages ({len(langs):,})", style="bold underline"), None),
                DrillRow(_row(widths, *(Text(h, style="bold") for h in headings)), None)]
        for name, (lang, n) in zip(names, shown, strict=True):
            label = _row(
                widths,
                Text(name if len(name) <= widths[0] else name[: widths[0] - 1] + "…"),
                Text(f"{n:,}"),
                Text(bar(n / top if top else 0.0, widths[2]).rstrip(), style="magenta"),
                Text(_share(n, urls), style="dim"),
            )
            # (a code the filter bar cannot take as one word is shown, not drilled)
            word = f"lang:{lang}" if lang.isprintable() and not any(c.isspace() for c in lang) else None
            rows.append(DrillRow(label, word, f"URLs with an hreflang {name} alternate ({plural(n, 'link')})"))
        return rows


def _row(widths: tuple[int, ...], *cells: Text) -> Text:
    """One line of the extension rows in these column widths: the name and the bar to the
    left, the numbers to the right."""
    out = Text(no_wrap=True, end="")
    for i, (cell, width) in enumerate(zip(cells, widths, strict=True)):
        pad = " " * max(0, width - len(cell))
        if i:
            out.append(" ")
        right = i in (1, 3, 4)
        if right:
            out.append(pad)
        out.append_text(cell)
        if not right:
            out.append(pad)
    return out

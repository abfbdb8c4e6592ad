"""The URL pane: a filter bar over a Line-API virtual table of the store's entries.

- ``table``: :class:`UrlTable`, the pane (filter bar, header, grid, status line, detail panel);
- ``grid``: :class:`UrlGrid`, the table's keys, sort and drawing;
- ``columns``: the columns' names and widths, and each cell's text (URL elision, dates,
  extension counts);
- ``marks``: the marked rows;
- ``listing``: the rows by position (pages, the cursor); ``scan``: its background count/anchor scan;
- ``detail``: the detail panel's text.

The filter language is ``tui.url_filter`` and the SQL ``engine.store.urls``: neither knows Textual.
"""

from sitemap_tui.tui.widgets.url_table.grid import UrlGrid
from sitemap_tui.tui.widgets.url_table.table import UrlTable

__all__ = ["UrlGrid", "UrlTable"]

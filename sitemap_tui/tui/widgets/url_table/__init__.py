"""The URL pane: a filter bar over a Line-API virtual table of the store's entries.

- ``table``: :class:`UrlTable`, the pane (filter bar, header, grid, status line, detail panel);
- ``grid``: :class:`UrlGrid`, the table's keys, marks, sort and drawing;
- ``listing``: the rows by position (pages, the background count/anchor scan, the cursor);
- ``detail``: the detail panel's text.

The filter language is ``tui.url_filter`` and the SQL ``engine.store.urls``: neither knows Textual.
"""

from sitemap_tui.tui.widgets.url_table.grid import UrlGrid
from sitemap_tui.tui.widgets.url_table.table import UrlTable

__all__ = ["UrlGrid", "UrlTable"]

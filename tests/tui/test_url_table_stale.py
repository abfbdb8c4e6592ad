"""While the store grows, the URL table's refresh reads no rows on the UI thread: the rows shown
stay on screen until a worker brings them afresh (issue 19: a page read there competed with the
engine's writes and could take a whole 30 ms frame)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from urltui_helpers import Host, build_store, entry, grid_lines, wait_for

from sitemap_tui.tui.widgets.url_table import UrlTable
from sitemap_tui.tui.widgets.url_table.listing import Listing


async def test_refresh_keeps_rows_shown_and_reads_them_in_a_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store, _ids = build_store(tmp_path / "x.db", {1: [entry(f"https://example.com/{i}", i) for i in range(5)]})
    app = Host(lambda: UrlTable(tmp_path / "x.db"))
    async with app.run_test(size=(100, 20)) as pilot:
        table = app.query_one(UrlTable)
        grid = table.grid
        await wait_for(pilot, lambda: grid.total == 5 and not grid.scanning)
        before = grid_lines(grid)
        assert any("/4 " in line for line in before)

        ui_thread = threading.get_ident()
        reads_on_ui: list[tuple[object, ...]] = []
        run_plan = Listing._run_plan

        def recording(conn, query, plan, scan=False):  # type: ignore[no-untyped-def]
            if threading.get_ident() == ui_thread:
                reads_on_ui.append(plan)
            return run_plan(conn, query, plan, scan)

        monkeypatch.setattr(Listing, "_run_plan", staticmethod(recording))
        store.add_entries(1, [entry(f"https://example.com/new-{i}", 100 + i) for i in range(3)])
        store.commit()
        store.begin()
        table.data_changed()
        # drawn at once, as the next frame would: the old rows, not "…" placeholders
        assert grid_lines(grid)[:5] == before[:5]
        assert reads_on_ui == []
        await wait_for(pilot, lambda: grid.total == 8 and not grid.scanning and not grid.pages_loading
                       and any("/new-2 " in line for line in grid_lines(grid)))
        assert reads_on_ui == []
    store.close()

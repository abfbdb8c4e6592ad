"""The cross-file rules from the explorer: key k (or the palette) runs them in the engine over what
was fetched; their issues join the per-file ones in the tree's counts and the Issues pane."""

from __future__ import annotations

from pathlib import Path

from app_helpers import (
    capture_notes,
    node_by_name,
    screen_text,
    select,
    settle,
    wait_for,
    wait_started,
)

from sitemap_tui.demo.server import serve_directory
from sitemap_tui.engine.store import Store
from sitemap_tui.tui.messages import CrossfileProgress

URLSET = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{urls}</urlset>\n'
)


def _site(root: Path) -> None:
    index = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<sitemap><loc>{{BASE}}/a.xml</loc></sitemap>\n"
        "<sitemap><loc>{{BASE}}/b.xml</loc></sitemap>\n"
        "</sitemapindex>\n"
    )
    (root / "index.xml").write_text(index)
    a = "".join(f"<url><loc>{{{{BASE}}}}/page-{i}</loc></url>\n" for i in range(5))
    b = "<url><loc>{{BASE}}/page-3</loc></url>\n<url><loc>{{BASE}}/other</loc></url>\n"
    (root / "a.xml").write_text(URLSET.format(urls=a))
    (root / "b.xml").write_text(URLSET.format(urls=b))


async def test_cross_file_checks_find_a_duplicate_across_sitemaps(tmp_path, make_app):
    site = tmp_path / "site"
    site.mkdir()
    _site(site)
    srv = serve_directory(site)
    db = tmp_path / "x.db"
    try:
        app = make_app(srv.base_url + "/index.xml", db_path=db)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_started(app, pilot)
            notes = capture_notes(app)
            await pilot.press("k")  # nothing fetched under the index yet
            await pilot.pause()
            assert any("Nothing fetched yet" in n for n in notes)
            await pilot.press("e")
            await settle(app, pilot)
            assert all(c == (0, 0) for c in app.tree.model.issues.values())
            await pilot.press("k")
            await wait_for(pilot, lambda: not app._crossfile, timeout=30, what="cross-file checks to finish")
            await settle(app, pilot)
            assert any("Cross-file checks done: 1 issue" in n for n in notes), notes
            # page-3's second listing (in whichever file was stored last) shows in the index's pane
            await select(app, pilot, node_by_name(app, "index.xml"))
            await pilot.press("4")
            await wait_for(pilot, lambda: "cross-duplicate-url" in screen_text(app), what="the issue in the pane")
            # the header names the step the engine reports while the rules run
            app._crossfile = True
            app.post_message(CrossfileProgress("duplicate URLs"))
            await wait_for(pilot, lambda: "checking across files: duplicate URLs" in screen_text(app), what="the step")
            app._crossfile = False
            app._update_header()
            # running them again replaces the earlier results instead of adding to them
            await pilot.press("k")
            await wait_for(pilot, lambda: not app._crossfile, timeout=30, what="the second run")
            await settle(app, pilot)
            assert sum("Cross-file checks done: 1 issue" in n for n in notes) == 2, notes
    finally:
        srv.stop()
    store = Store(db, readonly=True)
    try:
        dups = [i for i in store.issues() if i.rule == "cross-duplicate-url"]
        assert len(dups) == 1 and dups[0].url.endswith("/page-3") and dups[0].entry_id is not None
    finally:
        store.close()

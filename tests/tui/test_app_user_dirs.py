"""The explorer keeps a new exploration in the user's cache directory, which in tests is the
session's temporary one (tests/conftest.py): the real ~/.cache/sitemap-tui is never touched."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

from app_helpers import wait_for
from platformdirs import user_cache_dir

SITEMAP = (
    '<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    "<url><loc>https://example.com/a</loc></url>\n</urlset>\n"
)
REAL_CACHE = Path(pwd.getpwuid(os.getuid()).pw_dir) / ".cache" / "sitemap-tui"


def _state(d: Path) -> list[tuple[str, int]] | None:
    return sorted((str(p.relative_to(d)), p.stat().st_mtime_ns) for p in d.rglob("*")) if d.exists() else None


async def test_a_target_opened_in_the_app_is_explored_into_the_temporary_cache(make_app, tmp_path):
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(SITEMAP)
    before = _state(REAL_CACHE)
    app = make_app(None)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.open_path(sitemap)  # what "Open file" (ctrl+o) does with a path that is no .db
        await wait_for(pilot, lambda: app._root_opened, what="the exploration to open")
        db = app.db_path
        assert Path(user_cache_dir("sitemap-tui")) in db.parents and db.is_file()
        assert Path(os.environ["XDG_CACHE_HOME"]) in db.parents
    assert _state(REAL_CACHE) == before

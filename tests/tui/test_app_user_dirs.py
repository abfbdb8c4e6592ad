"""The explorer keeps a new exploration in the user's cache directory, which in tests is the
session's temporary one (tests/conftest.py): the real ~/.cache/sitemap-tui is never written."""

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


async def test_a_target_opened_in_the_app_is_explored_into_the_temporary_cache(make_app, tmp_path):
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(SITEMAP)
    app = make_app(None)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.open_path(sitemap)  # what "Open file" (ctrl+o) does with a path that is no .db
        await wait_for(pilot, lambda: app.root_opened, what="the exploration to open")
        db = app.db_path
        assert Path(os.environ["XDG_CACHE_HOME"]) in db.parents and db.is_file()
        cache = Path(user_cache_dir("sitemap-tui"))
        assert cache in db.parents
    # not also written under the real cache (other programs may use that directory meanwhile:
    # only this exploration's own file is looked for)
    assert not (REAL_CACHE / db.relative_to(cache)).exists()

"""A headless `urls` sends a file's rows in fewer, larger batches than the live view (issue 19,
task urls2w): nothing watches them stream, and each batch costs the store's process a commit, the
node's row and a message. The rows and the output stay the same. Run as a user runs the command,
against a server on 127.0.0.1, with this test's own cache folder."""

from __future__ import annotations

import contextlib
import io
import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest

from sitemap_tui import cli
from sitemap_tui.engine import filejob
from sitemap_tui.engine.explore_files import FileProcessing
from sitemap_tui.engine.explore_tree import ExploreOptions
from sitemap_tui.engine.filejob import JobBatch

URLS = 12_000


@pytest.fixture()
def target(httpserver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("SITEMAP_TUI_CONFIG", str(tmp_path / "config.toml"))
    base = httpserver.url_for("").rstrip("/")
    body = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            + "".join(f"<url><loc>{base}/p/{i}</loc></url>\n" for i in range(URLS)) + "</urlset>\n")
    index = ('<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
             f"<sitemap><loc>{base}/c.xml</loc></sitemap></sitemapindex>")
    httpserver.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")
    httpserver.expect_request("/c.xml").respond_with_data(body, content_type="application/xml")
    return f"{base}/index.xml"


def test_a_headless_urls_run_sends_a_files_rows_in_batches_of_5000(
        target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the clock held still (no batch goes out for lack of time), a 12,000-URL file arrives
    in three batches, each but the last of 5,000 rows or a few more (a batch goes out after the
    read that filled it; five of 2,000 or more before), and every URL is printed and stored."""
    # the file's clock stands still: only the batch size decides (the parse's own timer stays)
    monkeypatch.setattr(filejob, "time", SimpleNamespace(monotonic=lambda: 0.0, perf_counter=filejob.time.perf_counter))
    sizes: list[int] = []
    apply = FileProcessing._apply_batch

    def counted(self: FileProcessing, node: object, batch: JobBatch) -> None:
        sizes.append((batch.text or "").count("\n"))
        apply(self, node, batch)  # type: ignore[arg-type]

    monkeypatch.setattr(FileProcessing, "_apply_batch", counted)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["urls", target, "--workers", "0", "--no-cache"])
    assert code == 0, err.getvalue()
    assert len(sizes) == 3 and sum(sizes) == URLS, sizes
    # (a read is at most 64 KiB, ~1,300 of these URLs: CI once saw 6,222 where reads came in whole)
    per_read = 65536 // len("<url><loc>http://127.0.0.1:1/p/1</loc></url>\n")
    assert all(5000 <= n < 5000 + per_read for n in sizes[:2]), sizes
    lines = out.getvalue().splitlines()
    assert len(lines) == URLS and sorted(lines) == sorted(f"{target.rsplit('/', 1)[0]}/p/{i}" for i in range(URLS))
    (db,) = (tmp_path / "xdg-cache").rglob("*.db")
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        assert con.execute("SELECT count(*), count(DISTINCT loc) FROM entries").fetchone() == (URLS, URLS)
    finally:
        con.close()


def test_the_live_view_keeps_its_small_frequent_batches() -> None:
    """The TUI's explorer shows rows as they stream: 2,000 at a time, or every 0.15 s."""
    options = ExploreOptions()
    assert (options.batch_size, options.event_interval, options.flush_interval) == (2000, 0.15, None)

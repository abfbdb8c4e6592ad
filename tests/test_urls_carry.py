"""`urls` run again on a file that answers 304 Not Modified (issue 19: `urls` on one file as close
to a bare script as it can be): the file is carried over from the previous exploration in the
cache without loading what a clean file's copy does not need. Run as a user runs the command, in
a process of its own, against a server on 127.0.0.1 that honours If-None-Match."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cli_process
from werkzeug import Request, Response

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
BODY = (f'<?xml version="1.0"?>\n<urlset {NS}><url><loc>https://example.com/a</loc><lastmod>2024-01-01</lastmod>'
        "</url><url><loc>https://example.com/b</loc></url></urlset>\n").encode()
ETAG = '"v1"'


def test_a_clean_unchanged_file_is_carried_without_the_rule_registry(httpserver, tmp_path: Path) -> None:
    """The rules a carry leaves behind (cross-file, deep, the tree's own) filter only the file's
    own issues; a file without any is copied the same without them, so the rule registry (40 ms
    of imports, a tenth of such a run on a 50k file) is not loaded; the output is the first run's."""
    bodies: list[str] = []

    def handle(request: Request) -> Response:
        if request.headers.get("If-None-Match") == ETAG:
            return Response(status=304, headers={"ETag": ETAG})
        bodies.append(request.path)
        return Response(BODY, content_type="application/xml", headers={"ETag": ETAG})

    httpserver.expect_request("/s.xml").respond_with_handler(handle)
    code = (
        "import sys\n"
        "from sitemap_tui import cli\n"
        f"assert cli.main(['urls', {httpserver.url_for('/s.xml')!r}, '--format', 'jsonl', '--workers', '0']) == 0\n"
        "print('registry' if 'sitemap_tui.validate.registry' in sys.modules else 'no registry', file=sys.stderr)\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"), "SITEMAP_TUI_CONFIG": str(tmp_path / "c.toml")}
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert "1 file unchanged since the previous exploration" in second.stderr, second.stderr
    assert second.stdout == first.stdout and first.stdout.count("\n") == 2
    assert bodies == ["/s.xml"]  # the second run got a 304
    assert "no registry" in first.stderr and "no registry" in second.stderr, second.stderr


def test_a_file_an_earlier_run_cut_is_not_carried_as_whole_nor_a_whole_one_past_this_runs_cap(
        httpserver, tmp_path: Path) -> None:
    """Found from outside: after `--max-size 1` cut a 1.1 MiB file, the plain run got a 304 and
    printed the cut list as the file (and said it was cut at 50 MiB); after a whole run,
    `--max-size 1 --strict` carried every URL and exited 0. A file read in part, or larger
    than this run's cap, is now asked for in full."""
    urls = [f"https://example.com/product/{i:06d}-{'x' * 30}" for i in range(20_000)]
    body = (f'<?xml version="1.0"?>\n<urlset {NS}>\n'
            + "".join(f"<url><loc>{u}</loc></url>\n" for u in urls) + "</urlset>\n").encode()
    assert 1024 * 1024 < len(body) < 2 * 1024 * 1024

    def handle(request: Request) -> Response:
        if request.headers.get("If-None-Match") == ETAG:
            return Response(status=304, headers={"ETag": ETAG})
        return Response(body, content_type="application/xml", headers={"ETag": ETAG})

    httpserver.expect_request("/big.xml").respond_with_handler(handle)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"), "SITEMAP_TUI_CONFIG": str(tmp_path / "c.toml")}

    def urls_run(*options: str) -> subprocess.CompletedProcess[str]:
        return cli_process.run([sys.executable, "-m", "sitemap_tui", "urls", httpserver.url_for("/big.xml"),
                               "--workers", "0", *options], env=env, capture_output=True, text=True)

    cut = urls_run("--max-size", "1")
    assert 0 < len(cut.stdout.splitlines()) < len(urls) and "cut short" in cut.stderr
    whole = urls_run()
    assert whole.stdout.splitlines() == urls and "cut short" not in whole.stderr, whole.stderr
    assert "unchanged since" not in whole.stderr  # fetched in full, not carried
    again = urls_run()
    assert "1 file unchanged since the previous exploration" in again.stderr  # a whole file: carried
    capped = urls_run("--max-size", "1", "--strict")
    assert len(capped.stdout.splitlines()) < len(urls) and "cut short" in capped.stderr
    assert capped.returncode == 1

"""Found from outside (a security review): a server's non-ASCII ETag failed every later run of
its file, and a build folder's file name reached the terminal raw on stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from werkzeug import Response

SITEMAP = ('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
           "<url><loc>https://e.com/a</loc></url></urlset>")


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "sitemap_tui", *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=tmp_path)


def test_a_non_ascii_etag_is_sent_back_and_the_next_run_works(httpserver, tmp_path: Path) -> None:
    def answer(_request: object) -> Response:
        r = Response(SITEMAP, content_type="application/xml")
        r.headers["ETag"] = '"x\u202e\u00e9"'.encode().decode("latin-1")  # its UTF-8 bytes on the wire
        return r

    httpserver.expect_request("/e.xml").respond_with_handler(answer)
    url = httpserver.url_for("/e.xml")
    for _ in range(2):  # the second sends the stored ETag back
        proc = _run(tmp_path, "urls", url)
        assert proc.returncode == 0 and proc.stdout == "https://e.com/a\n", proc.stderr


def test_a_file_names_escapes_are_escaped_on_stderr(tmp_path: Path) -> None:
    hostile = "s\x1b]0;PWN\x07\x1b[2JX\u202e.xml"
    (tmp_path / "robots.txt").write_text(f"Sitemap: http://e.com/{hostile}\n")
    (tmp_path / hostile).write_text(SITEMAP)
    proc = _run(tmp_path, "validate", str(tmp_path), "--no-history")
    assert "is read as" in proc.stderr and "\x1b" not in proc.stderr and "\u202e" not in proc.stderr, proc.stderr
    proc = _run(tmp_path, "urls", str(tmp_path / ("nope" + hostile)))
    assert proc.returncode == 2 and "\x1b" not in proc.stderr and "\\x1b" in proc.stderr, proc.stderr


def test_a_stray_arguments_escapes_are_escaped_in_the_usage_error(tmp_path: Path) -> None:
    (tmp_path / "s.xml").write_text(SITEMAP)
    proc = _run(tmp_path, "urls", "s.xml", "extra\x1b]0;PWN\x07\nline")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "\x1b" not in proc.stderr and "\x07" not in proc.stderr
    assert "unrecognized arguments: extra\\x1b]0;PWN\\x07\\x0aline" in proc.stderr

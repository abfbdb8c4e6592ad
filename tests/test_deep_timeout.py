"""validate --deep over a page that hangs: found from outside, a page that stalled after its
headers passed every check in silence, and --timeout did not reach the pages (15 s each)."""

from __future__ import annotations

import contextlib
import io
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from sitemap_tui import cli


@pytest.fixture
def origin() -> Iterator[str]:
    done = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            base = f"http://127.0.0.1:{self.server.server_address[1]}"
            if self.path == "/sitemap.xml":
                body = (f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{base}/stall</loc>'
                        f"</url><url><loc>{base}/silent</loc></url></urlset>").encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/xml")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if self.path == "/robots.txt":  # none: nothing disallowed
                self.send_error(404)
                return
            if self.path == "/stall":  # headers and the page's start, then nothing
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", "5000")
                self.end_headers()
                self.wfile.write(b"<html><head>")
                self.wfile.flush()
            done.wait(30)  # /silent: not even headers

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        done.set()
        server.shutdown()
        server.server_close()


def test_deep_pages_that_hang_are_reported_within_the_timeout(origin: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["validate", f"{origin}/sitemap.xml", "--deep", "--rate", "0", "--timeout", "1",
                         "--workers", "0", "--no-history", "--no-robots-checks", "--select", "deep-",
                         "--format", "json"])
    assert code == 0, err.getvalue()
    issues = {i["url"].rpartition("/")[2]: i for i in json.loads(out.getvalue())["issues"]}
    assert issues["stall"]["rule"] == "deep-status-5xx" and "broke off after its headers" in issues["stall"]["message"]
    assert issues["silent"]["rule"] == "deep-status-5xx"
    for issue in issues.values():
        assert "within 1 s" in issue["message"], issue["message"]  # --timeout, not the 15 s default
    assert time.monotonic() - started < 12  # (the default 15 s deadline would take longer)

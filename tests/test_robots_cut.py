"""A sitemap URL target's robots.txt (read beside the sitemap, with no node of its own) that
breaks off part-way or runs past its cap: judged as a site target's is (found from outside:
a robots.txt cut at 2,000 bytes was obeyed as if whole, and the deep checks fetched a page
its later ``Disallow: /`` shut out)."""

from __future__ import annotations

import contextlib
import io
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from sitemap_tui import cli

ROBOTS_HEAD = b"User-agent: *\nAllow: /public/\n" + b"# " + b"x" * 4000 + b"\n"
ROBOTS_WHOLE = ROBOTS_HEAD + b"Disallow: /\n"


@pytest.fixture
def site() -> Iterator[tuple[str, list[str], dict[str, bytes]]]:
    """A site whose robots.txt sends its first 2,000 bytes and hangs up; the paths asked for."""
    asked: list[str] = []
    robots = {"body": ROBOTS_WHOLE}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            asked.append(self.path)
            if self.path == "/robots.txt":
                body = robots["body"]
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                cut = robots.get("cut")
                self.wfile.write(body[: int(cut)] if cut else body)
                self.close_connection = True
                return
            if self.path == "/sitemap.xml":
                page = f"http://127.0.0.1:{self.server.server_address[1]}/secret/page"
                body = (f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{page}</loc>'
                        "<lastmod>2024-01-01</lastmod></url></urlset>").encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/xml")
            else:
                body = b"<html><head><title>secret</title></head><body>secret</body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", asked, robots  # type: ignore[misc]
    finally:
        server.shutdown()
        server.server_close()


def validate(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["validate", *args, "--workers", "0", "--no-history"])
    return code, out.getvalue(), err.getvalue()


def test_a_robots_txt_that_breaks_off_is_not_obeyed_as_whole(site) -> None:
    origin, asked, robots = site
    robots["cut"] = 2000  # type: ignore[assignment]
    code, out, err = validate(f"{origin}/sitemap.xml", "--deep", "--rate", "0", "--format", "json")
    notes = json.loads(out)["summary"]["notes"]
    said = f"{origin}/robots.txt could not be read (it broke off after 2,000 bytes"
    assert any(said in n for n in notes) and said in err, err
    assert "/secret/page" not in asked  # no page fetched against rules not read whole
    assert "count as disallowed" in err


def test_the_whole_robots_txt_is_obeyed(site) -> None:
    origin, asked, _ = site  # near miss: read whole, its Disallow: / is obeyed and judged by
    code, out, err = validate(f"{origin}/sitemap.xml", "--deep", "--rate", "0", "--format", "json")
    assert "could not be read" not in err and "/secret/page" not in asked
    assert "robots-url-disallowed" in {i["rule"] for i in json.loads(out)["issues"]}


def test_a_robots_txt_past_its_cap_is_said(site) -> None:
    origin, _, robots = site
    robots["body"] = b"User-agent: *\nAllow: /\n" + (b"# " + b"y" * 98 + b"\n") * 5200 + b"Disallow: /\n"
    code, out, err = validate(f"{origin}/sitemap.xml", "--format", "json")
    cut = f"{origin}/robots.txt: only the first 500 KiB read, as Google reads it: the lines after it are ignored"
    assert cut in json.loads(out)["summary"]["notes"] and err.count(cut) == 1, err

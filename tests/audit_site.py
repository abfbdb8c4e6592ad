"""A site on 127.0.0.1 with a page for each audit verdict the URL table filters on, audited by a
real ``sitemap-tui audit --db`` run (shared by the store-level and the Pilot tests)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from pytest_httpserver import HTTPServer

from sitemap_tui import cli

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
ROBOTS = "User-agent: GPTBot\nDisallow: /gpt/\n\nUser-agent: *\nAllow: /\n"
# the listed pages, by their last path segment: what each answers
PAGES = ("ok", "gone", "moved", "noindex", "canon", "gpt/page", "selfcanon")
ELSEWHERE = "elsewhere"  # listed on another origin: never audited, its robots.txt never read


def html(head: str = "") -> str:
    return f"<!DOCTYPE html><html><head><title>Page</title>{head}</head><body><p>content</p></body></html>"


def serve(server: HTTPServer) -> str:
    """Set the site up on ``server``; returns its sitemap's URL."""
    base = server.url_for("").rstrip("/")
    other = base.replace("127.0.0.1", "localhost")
    locs = [f"{base}/{p}" for p in PAGES] + [f"{other}/{ELSEWHERE}"]
    body = f'<?xml version="1.0"?>\n<urlset {NS}>' + "".join(f"<url><loc>{loc}</loc></url>" for loc in locs) + "</urlset>\n"
    server.expect_request("/sitemap.xml").respond_with_data(body, content_type="application/xml")
    server.expect_request("/robots.txt").respond_with_data(ROBOTS, content_type="text/plain")
    page = {"content_type": "text/html"}
    server.expect_request("/ok").respond_with_data(html(), **page)
    server.expect_request("/gone").respond_with_data(html(), status=404, **page)
    server.expect_request("/moved").respond_with_data("", status=301, headers={"Location": f"{base}/ok"})
    server.expect_request("/noindex").respond_with_data(html('<meta name="robots" content="noindex">'), **page)
    server.expect_request("/canon").respond_with_data(html(f'<link rel="canonical" href="{base}/ok">'), **page)
    server.expect_request("/gpt/page").respond_with_data(html(), **page)
    server.expect_request("/selfcanon").respond_with_data(html(f'<link rel="canonical" href="{base}/selfcanon">'), **page)
    return server.url_for("/sitemap.xml")


def audit_into(server: HTTPServer, db: Path) -> None:
    """``sitemap-tui audit`` of the site, its store kept at ``db``."""
    target = serve(server)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["audit", target, "--db", str(db), "--workers", "0", "--rate", "0", "--no-history",
                         "--format", "jsonl"])
    assert code == 0, err.getvalue()


def name(loc: str | None) -> str:
    """A listed URL by its path (without the origin): "ok", "gpt/page", ..."""
    return (loc or "").split("/", 3)[-1]

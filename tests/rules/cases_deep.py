"""Deep checks (``--deep``): the listed pages, alternates and video files are fetched."""

from __future__ import annotations

import struct
import zlib

from .cases import Case, Fixture, Resp, case, site, urlset

DEEP = ("--deep", "--rate", "1000")


def png(width: int, height: int) -> bytes:
    """A real (blank, grey) PNG image of this size."""
    raw = b"".join(b"\x00" + b"\x80" * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def html(title: str = "Shoes", head: str = "", body: str = "<h1>Shoes</h1>") -> str:
    return f"<!DOCTYPE html>\n<html><head><title>{title}</title>{head}</head><body>{body}</body></html>\n"


def deep(page: str | Resp, *, entry: str = "<url><loc>http://a.test/shoes</loc></url>", ext: str = "", more: dict[str, str | bytes | Resp] | None = None, line: int | None = None) -> Fixture:
    """``sitemap.xml`` with ``entry`` (line 3), ``/shoes`` answering ``page``."""
    files: dict[str, str | bytes | Resp] = {"sitemap.xml": urlset(entry, ext=ext), "shoes": page if isinstance(page, Resp) else Resp(page, content_type="text/html; charset=utf-8")}
    files.update(more or {})
    return site(files, line=line, args=DEEP)


def video(content: Resp, thumb: Resp, *, line: int | None = None) -> Fixture:
    entry = (
        "<url><loc>http://a.test/shoes</loc><video:video>"
        "<video:thumbnail_loc>http://a.test/thumbs/t.png</video:thumbnail_loc><video:title>Shoes</video:title>"
        "<video:description>How they are made</video:description>"
        "<video:content_loc>http://a.test/media/shoes.mp4</video:content_loc></video:video></url>"
    )
    return deep(html(), entry=entry, ext="video", more={"thumbs/t.png": thumb, "media/shoes.mp4": content}, line=line)


def hreflang(*links: tuple[str, str]) -> str:
    body = "".join(f'<xhtml:link rel="alternate" hreflang="{c}" href="{h}"/>' for c, h in links)
    return f"<url><loc>http://a.test/shoes</loc>{body}</url>"


MP4 = Resp(b"\x00\x00\x00\x18ftypmp42", content_type="video/mp4")
THUMB = Resp(png(160, 90), content_type="image/png")
EN, DE = ("en", "http://a.test/shoes"), ("de", "http://a.test/de/schuhe")
LAST_MODIFIED = {"Last-Modified": "Wed, 01 May 2024 10:00:00 GMT"}

CASES: list[Case] = [
    case(
        "deep-status-3xx",
        deep(Resp(status=301, headers={"Location": "http://a.test/shoes/"}), more={"shoes/": Resp(html(), content_type="text/html")}, line=3),
        deep(html()),
    ),
    case("deep-status-4xx", deep(Resp(html("Gone"), status=410, content_type="text/html"), line=3), deep(html())),
    case("deep-status-5xx", deep(Resp("busy", status=503, content_type="text/plain"), line=3), deep(html())),
    case(
        "deep-soft-404",
        deep(html("Page not found", body="<h1>Sorry, this page does not exist</h1>"), line=3),
        deep(html("Shoes in stock", body="<h1>We found 40 shoes for you</h1>")),  # found, not "not found"
    ),
    case(
        "deep-noindex",
        deep(html(head='<meta name="robots" content="noindex, follow">'), line=3),
        deep(html(head='<meta name="robots" content="index, follow">')),
    ),
    case(
        "deep-non-canonical",
        deep(html(head='<link rel="canonical" href="http://a.test/shoes?sort=price">'), line=3),
        deep(html(head='<link rel="canonical" href="http://a.test/shoes">')),
    ),
    case(
        "deep-lastmod-vs-header",
        deep(Resp(html(), content_type="text/html", headers=LAST_MODIFIED), entry="<url><loc>http://a.test/shoes</loc><lastmod>2021-03-01</lastmod></url>", line=3),
        deep(Resp(html(), content_type="text/html", headers=LAST_MODIFIED), entry="<url><loc>http://a.test/shoes</loc><lastmod>2024-04-20</lastmod></url>"),
    ),
    case(
        "video-content-not-media",
        video(Resp(html("Watch"), content_type="text/html"), THUMB, line=3),
        video(MP4, THUMB),
    ),
    case(
        "video-thumbnail-problem",
        video(MP4, Resp(png(40, 20), content_type="image/png"), line=3),
        video(MP4, THUMB),
    ),
    case(
        "hreflang-target-not-indexable",
        deep(html(), entry=hreflang(EN, DE), ext="xhtml", more={"de/schuhe": Resp(html("Schuhe", head='<meta name="robots" content="noindex">'), content_type="text/html")}, line=3),
        deep(html(), entry=hreflang(EN, DE), ext="xhtml", more={"de/schuhe": Resp(html("Schuhe"), content_type="text/html")}),
    ),
    case(
        "hreflang-html-conflict",
        deep(html(head='<link rel="alternate" hreflang="en" href="http://a.test/shoes"><link rel="alternate" hreflang="de" href="http://a.test/de/stiefel">'), entry=hreflang(EN, DE), ext="xhtml", line=3),
        deep(html(head='<link rel="alternate" hreflang="en" href="http://a.test/shoes"><link rel="alternate" hreflang="de" href="http://a.test/de/schuhe">'), entry=hreflang(EN, DE), ext="xhtml"),
    ),
]

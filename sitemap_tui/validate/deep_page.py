"""What the deep checks read from a fetched page or image: meta robots, canonical and hreflang
links (HTML and ``Link`` headers), ``X-Robots-Tag``, an image's dimensions. Pure functions of the
bytes and headers; nothing here fetches."""

from __future__ import annotations

import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from sitemap_tui.engine.audit_page import (
    canonical_of,
    charset_of,
    expired_directive,
    head_part,
    html_document,
    mime_of,
    noindex_directive,
    title_and_h1,
    x_robots_directives,
)
from sitemap_tui.engine.urlpolicy import resolve

__all__ = [
    "PageFacts",
    "analyse_html",
    "image_size",
    "mime_of",
    "parse_http_date",
    "parse_link_header",
    "x_robots_noindex",
]

_NOINDEX_AGENTS = frozenset({"robots", "googlebot", "bingbot"})
_LINK_RE = re.compile(r"<([^>]*)>((?:\s*;\s*[^;,<]*)*)")
_PARAM_RE = re.compile(r';\s*([A-Za-z*-]+)\s*(?:=\s*(?:"([^"]*)"|([^;,\s]*)))?')


def parse_link_header(values: Sequence[str]) -> list[tuple[str, dict[str, str]]]:
    """``Link`` header values -> [(target, {param: value})], params lower-cased."""
    out: list[tuple[str, dict[str, str]]] = []
    for value in values:
        for m in _LINK_RE.finditer(value[:16384]):
            params = {
                p.group(1).lower(): (p.group(2) if p.group(2) is not None else (p.group(3) or ""))
                for p in _PARAM_RE.finditer(m.group(2))
            }
            out.append((m.group(1).strip(), params))
    return out


def x_robots_noindex(values: Sequence[str]) -> str | None:
    """The ``X-Robots-Tag`` directive that makes the page noindex for Google or Bing, or None:
    read as the audit reads it (engine.audit_page: an agent may scope any item of a merged
    list, an ``unavailable_after`` date that has passed is noindex; the two disagreed)."""
    directives = x_robots_directives(values)
    hit = noindex_directive(directives) or expired_directive(directives)
    return hit[:200] if hit else None


@dataclass(slots=True)
class PageFacts:
    """What the deep checks read from an HTML page."""

    noindex: str | None = None  # where: "<meta name=robots content=noindex>"
    canonical: str | None = None  # absolute URL
    alternates: list[tuple[str, str]] = field(default_factory=list)  # (hreflang lower, href abs)
    title: str | None = None
    h1: str | None = None


def analyse_html(body: bytes, base_url: str, content_type: str | None = None) -> PageFacts:
    """Meta robots, canonical, hreflang links, title and first heading of an HTML page (read in
    the Content-Type's charset, as the audit reads it).

    lxml's HTML parser with ``no_network`` and ``recover``; never raises."""
    facts = PageFacts()
    charset = charset_of(content_type)
    parsed = html_document(body, base_url, charset)
    if parsed is None:
        return facts
    doc, base = parsed
    head = head_part(body, base_url, doc, charset)  # (the head's, as the audit reads them)
    for el in head.iter("meta"):
        name = (el.get("name") or "").strip().lower()
        if name in _NOINDEX_AGENTS and facts.noindex is None:
            content = (el.get("content") or "").lower()
            tokens = {t.strip() for t in content.split(",")}
            # a passed unavailable_after is noindex, as the audit reads it
            if "noindex" in tokens or "none" in tokens or expired_directive([content.strip()]):
                facts.noindex = f'<meta name="{name}" content="{content.strip()[:80]}">'
    for el in head.iter("link"):
        rels = (el.get("rel") or "").lower().split()
        href = (el.get("href") or "").strip()
        if not href:
            continue
        if "alternate" in rels and el.get("hreflang"):
            facts.alternates.append((el.get("hreflang", "").strip().lower(), resolve(base, href)))
    facts.canonical, _ = canonical_of(head, base)
    facts.title, facts.h1 = title_and_h1(doc)
    return facts


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the first bytes of a PNG, GIF, JPEG or WebP file, else None."""
    try:
        if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
            w, h = struct.unpack(">II", data[16:24])
            return w, h
        if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
            w, h = struct.unpack("<HH", data[6:10])
            return w, h
        if data.startswith(b"\xff\xd8"):
            i = 2
            while i + 9 < len(data):
                if data[i] != 0xFF:
                    i += 1
                    continue
                marker = data[i + 1]
                if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
                    i += 1 if marker == 0xFF else 2
                    continue
                length = struct.unpack(">H", data[i + 2 : i + 4])[0]
                if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                    h, w = struct.unpack(">HH", data[i + 5 : i + 9])
                    return w, h
                i += 2 + length
            return None
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP" and len(data) >= 30:
            chunk = data[12:16]
            if chunk == b"VP8X":
                w = int.from_bytes(data[24:27], "little") + 1
                h = int.from_bytes(data[27:30], "little") + 1
                return w, h
            if chunk == b"VP8 ":
                w, h = struct.unpack("<HH", data[26:30])
                return w & 0x3FFF, h & 0x3FFF
            if chunk == b"VP8L" and len(data) >= 25:
                b = data[21:25]
                w = 1 + (((b[1] & 0x3F) << 8) | b[0])
                h = 1 + (((b[3] & 0xF) << 10) | (b[2] << 2) | ((b[1] & 0xC0) >> 6))
                return w, h
    except (struct.error, IndexError):
        return None
    return None



def parse_http_date(value: str | None) -> datetime | None:
    if not value or len(value) > 100:
        return None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)

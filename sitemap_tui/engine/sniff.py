"""Decide what a fetched body is (XML sitemap/feed, text sitemap, HTML, JSON) and parse it.

`SniffingParser` buffers the first bytes of a body, decides the format and then hands every byte
to the matching streaming parser (`parse_xml.XmlSitemapParser` or `parse_text.TextSitemapParser`).
It never decodes the body for XML: libxml2 gets the raw bytes and follows BOM and declaration
(SECURITY.md §11).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from .model import ChildRef, Entry, Issue, NodeKind, Severity
from .parse_text import TextSitemapParser, looks_like_url
from .parse_xml import XmlSitemapParser

Item: TypeAlias = Entry | ChildRef | Issue

# Bytes after the leading whitespace needed before deciding; an XML prolog or a first text line
# is far shorter. close() decides with whatever arrived.
SNIFF_BYTES = 1024
# Never buffer more than this while sniffing (a body of nothing but whitespace).
SNIFF_MAX = 64 * 1024

_HTML_START = re.compile(r"<(?:!doctype\s+html|html)[\s>/]", re.IGNORECASE)
# a robots.txt record line: a robots.txt saved under another name, or served at a sitemap URL
_ROBOTS_LINE = re.compile(r"^[ \t]*(?:user-agent|disallow|allow|sitemap|crawl-delay)[ \t]*:", re.IGNORECASE | re.MULTILINE)


@dataclass(slots=True)
class ParseInfo:
    """File-level facts found while parsing, for the checker and the UI."""

    root: str | None = None  # Clark name of the root element, e.g. "{ns}urlset"
    namespace: str | None = None  # namespace of the root element
    namespaces: dict[str, str] = field(default_factory=dict)  # declared on the root ("" = default)
    format: str | None = None  # urlset, sitemapindex, rss2.0, rss1.0, atom1.0, atom0.3, text, ...
    xml_encoding: str | None = None  # as declared in <?xml ... encoding="..."?>
    has_declaration: bool = False
    bom: str | None = None  # "utf-8", "utf-16" or None
    leading_whitespace: bool = False  # whitespace (or other bytes) before the first markup/line
    truncated_at: str | None = None  # "line:col" of the fatal syntax error that stopped parsing
    entries: int = 0  # Entry + ChildRef items produced
    stopped: bool = False  # parsing ended early (entry cap, DOCTYPE, fatal error, unusable root)
    lines: int = 0  # text sitemaps: lines read


class SniffingParser:
    """Incremental parser for one sitemap body of unknown format.

    ``feed(bytes)`` and ``close()`` return the items (Entry, ChildRef, Issue) found so far.
    ``kind`` is ``None`` until the format (and for XML the root element) is known; ``done``
    turns true when nothing more will be parsed, so the caller can stop downloading.
    """

    def __init__(
        self,
        url: str,
        content_type: str | None = None,
        max_entries: int = 50000,
        element_hook: Callable[[Any], bool] | None = None,
    ) -> None:
        self.url = url
        self.element_hook = element_hook
        self.content_type = content_type
        self.max_entries = max_entries
        self.info = ParseInfo()
        self._buf = bytearray()
        self._kind: NodeKind | None = None
        self._delegate: XmlSitemapParser | TextSitemapParser | None = None
        self._finished = False  # decided on a format with nothing to parse (HTML, JSON, unknown)
        self._closed = False

    @property
    def kind(self) -> NodeKind | None:
        if self._delegate is not None:
            return self._delegate.kind
        return self._kind

    @property
    def done(self) -> bool:
        if self._delegate is not None:
            return self._delegate.done
        return self._finished

    def feed(self, data: bytes) -> list[Item]:
        if self._closed or self._finished:
            return []
        if self._delegate is not None:
            return self._delegate.feed(data)
        self._buf += data
        if not self._ready():
            return []
        return self._decide(final=False)

    def close(self) -> list[Item]:
        if self._closed:
            return []
        self._closed = True
        out: list[Item] = []
        if self._delegate is None and not self._finished:
            out.extend(self._decide(final=True))
        if self._delegate is not None:
            out.extend(self._delegate.close())
        return out

    # -- deciding ----------------------------------------------------------------------------

    def _ready(self) -> bool:
        if len(self._buf) >= SNIFF_MAX:
            return True
        if len(self._buf) < SNIFF_BYTES:
            return False
        # Enough only once SNIFF_BYTES follow the leading whitespace.
        head = bytes(self._buf)
        return len(head) - len(_lstrip_ws(head)) + SNIFF_BYTES <= len(head)

    def _decide(self, final: bool) -> list[Item]:
        data = bytes(self._buf)
        self._buf = bytearray()
        codec, bom_len = _detect_codec(data)
        if bom_len:
            self.info.bom = "utf-8" if bom_len == 3 else "utf-16"
        # Decide on the same window however the bytes were chunked: the first SNIFF_BYTES
        # after leading whitespace (what _ready waits for), never on whatever else is buffered.
        window = min(len(data) - len(_lstrip_ws(data)) + SNIFF_BYTES, SNIFF_MAX)
        head = data[bom_len:window] if window > bom_len else b""
        text = head.decode(codec, errors="replace")
        body = text.lstrip(" \t\r\n\f\v")
        self.info.leading_whitespace = len(body) != len(text)
        first = body[:1]

        if first == "<":
            if _HTML_START.match(body):
                return self._finish(NodeKind.HTML, "html", _html_issue())
            self._delegate = XmlSitemapParser(
                max_entries=self.max_entries, info=self.info, element_hook=self.element_hook
            )
            return self._delegate.feed(data)
        if first in ("{", "["):
            issue = Issue(
                "root-unknown", Severity.ERROR, "JSON document served as a sitemap", line=1
            )
            return self._finish(NodeKind.JSON, "json", issue)
        if self._is_text(body, complete=final and window >= len(data)):
            self._delegate = TextSitemapParser(max_entries=self.max_entries, info=self.info)
            return self._delegate.feed(data)
        if not body:
            message = "Empty document: no sitemap content"
        elif _ROBOTS_LINE.search(body):
            message = (
                "This is a robots.txt file (explore the site, or a path named robots.txt, to"
                " follow its Sitemap: lines)"
            )
        else:
            # (the explorer puts "not a sitemap: " before this on the node)
            message = "Neither XML nor a list of URLs"
        return self._finish(
            NodeKind.UNKNOWN, "unknown", Issue("root-unknown", Severity.ERROR, message, line=1)
        )

    def _is_text(self, body: str, complete: bool) -> bool:
        if not body:
            return False
        ctype = (self.content_type or "").split(";", 1)[0].strip().lower()
        if ctype == "text/plain":
            return True
        lines = body.splitlines()
        # Unless the whole body is here, the last line may be cut: ignore it unless alone.
        candidates = lines if complete or len(lines) == 1 else lines[:-1]
        # A header line followed by URLs is still a (bad) text sitemap; the text parser reports it.
        return any(looks_like_url(line.strip(" \t")) for line in candidates[:20])

    def _finish(self, kind: NodeKind, fmt: str, issue: Issue) -> list[Item]:
        self._kind = kind
        self._finished = True
        self.info.format = fmt
        self.info.stopped = True
        return [issue]


def _html_issue() -> Issue:
    return Issue("file-is-html", Severity.ERROR, "The body is an HTML page, not a sitemap", line=1)


def _lstrip_ws(data: bytes) -> bytes:
    # UTF-16 whitespace has NUL bytes; treat those as whitespace for the length estimate only.
    return data.lstrip(b" \t\r\n\f\v\x00\xef\xbb\xbf\xff\xfe")


def _detect_codec(data: bytes) -> tuple[str, int]:
    """Codec to read the head with, and the BOM length; only for sniffing, never for XML."""
    if data.startswith(b"\xef\xbb\xbf"):
        return "utf-8", 3
    if data.startswith(b"\xff\xfe"):
        return "utf-16-le", 2
    if data.startswith(b"\xfe\xff"):
        return "utf-16-be", 2
    if data[:2] == b"<\x00":
        return "utf-16-le", 0
    if data[:2] == b"\x00<":
        return "utf-16-be", 0
    return "utf-8", 0

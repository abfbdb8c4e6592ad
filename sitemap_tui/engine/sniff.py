"""Decide what a fetched body is (XML sitemap/feed, text sitemap, HTML, JSON) and parse it.

`SniffingParser` buffers the first bytes of a body, decides the format and then hands every byte
to the matching streaming parser (`parse_xml.XmlSitemapParser` or `parse_text.TextSitemapParser`).
It never decodes the body for XML: libxml2 gets the raw bytes and follows BOM and declaration
(SECURITY.md §11).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from .findings import Finding
from .model import NodeKind
from .parse_text import TextSitemapParser, looks_like_url
from .parse_xml import XmlSitemapParser
from .parsed import Item, ParseInfo

__all__ = ["Item", "ParseInfo", "SniffingParser"]  # Item and ParseInfo: re-exported for callers

# Bytes after the leading whitespace needed before deciding; an XML prolog or a first text line
# is far shorter. close() decides with whatever arrived.
SNIFF_BYTES = 1024
# Never buffer more than this while sniffing (a body of nothing but whitespace).
SNIFF_MAX = 64 * 1024
# Other content before the XML (a PHP notice or warning printed by a WordPress plugin before the
# sitemap) is skipped when the XML starts within this many bytes and is a sitemap or feed.
MAX_LEADING_JUNK = 4096

_HTML_START = re.compile(r"<(?:!doctype\s+html|html)[\s>/]", re.IGNORECASE)
# the root elements we parse (any prefix), and the start of an XML declaration
_ROOT_NAMES = rb"(?:[A-Za-z_][\w.-]*:)?(?:urlset|sitemapindex|rss|feed|RDF)"
_ROOT_START = re.compile(rb"<" + _ROOT_NAMES + rb"[ \t\r\n>/]")
_XML_START = re.compile(rb"<\?xml[ \t\r\n]|<" + _ROOT_NAMES + rb"[ \t\r\n>/]")
_BOM = b"\xef\xbb\xbf"
# a robots.txt record line: a robots.txt saved under another name, or served at a sitemap URL
_ROBOTS_LINE = re.compile(r"^[ \t]*(?:user-agent|disallow|allow|sitemap|crawl-delay)[ \t]*:", re.IGNORECASE | re.MULTILINE)


# a line meant as a URL, right or wrong (http..., /relative, example.com/a): a text/plain body
# with one is a text sitemap whose faults are each named; "Not Found" has none
_URLISH = re.compile(r"(?i)(?:https?:|/|www\.|[\w-]+(?:\.[\w-]+)+/)\S")


def type_by_name(url: str) -> str | None:
    """The Content-Type a static host sends for ``url``'s file name, where no header says one
    (a local file, a --map build): ``text/plain`` for ``.txt``. The text sniffing then reads a
    list of URLs whose first lines are no URL (a long comment header, a notice printed first)
    as the text sitemap it is, with those lines reported, not as no sitemap at all."""
    path = urlsplit(url).path.lower()
    return "text/plain" if path.endswith((".txt", ".txt.gz")) else None


class SniffingParser:
    """Incremental parser for one sitemap body of unknown format.

    ``feed(bytes)`` and ``close()`` return the items (Entry, ChildRef, Finding) found so far.
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
        return self._finished or self._closed

    def feed(self, data: bytes) -> list[Item]:
        if self._closed or self._finished:
            return []
        if self._delegate is not None:
            return self._delegate.feed(data)
        self._buf += data
        if not self._ready():
            return []
        return self._decide(final=False)

    def close(self, cut: str | None = None) -> list[Item]:
        """End of the body. ``cut``: the rule id of why the body ended early (``size-over-limit``,
        a fetch error): its end is then not reported as a parse error."""
        if self._closed:
            return []
        self._closed = True
        if cut:
            self.info.cuts.append(cut)
            self.info.stopped = True
        out: list[Item] = []
        if self._delegate is None and not self._finished:
            out.extend(self._decide(final=True))
        if self._delegate is not None:
            out.extend(self._delegate.close(cut))
        return out

    # -- deciding ----------------------------------------------------------------------------

    def _ready(self) -> bool:
        if len(self._buf) >= SNIFF_MAX:
            return True
        if len(self._buf) < SNIFF_BYTES:
            return False
        # Enough only once SNIFF_BYTES follow the leading whitespace; when that window does not
        # start like XML, also the room for other content before the XML (MAX_LEADING_JUNK).
        head = bytes(self._buf)
        ws = len(head) - len(_lstrip_ws(head))
        if ws + SNIFF_BYTES > len(head):
            return False
        return len(head) >= ws + MAX_LEADING_JUNK + SNIFF_BYTES or not _maybe_junk(
            head[ws : ws + SNIFF_BYTES]
        )

    def _decide(self, final: bool) -> list[Item]:
        data = bytes(self._buf)
        self._buf = bytearray()
        codec, bom_len = _detect_codec(data)
        if bom_len:
            self.info.bom = "utf-8" if bom_len == 3 else "utf-16"
        # Decide on the same window however the bytes were chunked: the first SNIFF_BYTES
        # after leading whitespace (what _ready waits for), never on whatever else is buffered.
        ws = len(data) - len(_lstrip_ws(data))
        window = min(ws + SNIFF_BYTES, SNIFF_MAX)
        head = data[bom_len:window] if window > bom_len else b""
        text = head.decode(codec, errors="replace")
        body = text.lstrip(" \t\r\n\f\v")
        self.info.leading_whitespace = len(body) != len(text)
        first = body[:1]

        if codec == "utf-8" and not _HTML_START.match(body):
            # whitespace, BOMs or other content before the XML: parse what follows, on the
            # lines it has in the file (see _skip_leading)
            junk = _maybe_junk(data[ws:window])
            limit = min(ws + MAX_LEADING_JUNK + SNIFF_BYTES, SNIFF_MAX) if junk else window
            skipped = _skip_leading(data, limit, junk=junk)
            if skipped is not None:
                rewritten, issue = skipped
                self.info.leading_whitespace = True
                self._delegate = self._xml()
                return ([issue] if issue is not None else []) + self._delegate.feed(rewritten)

        if first == "<":
            if _HTML_START.match(body):
                return self._finish(NodeKind.HTML, "html", _html_issue())
            self._delegate = self._xml()
            return self._delegate.feed(data)
        if first in ("{", "["):
            return self._finish(NodeKind.JSON, "json", Finding("root-unknown", {"found": "json"}, line=1))
        if self._is_text(body, complete=final and window >= len(data)):
            self._delegate = TextSitemapParser(max_entries=self.max_entries, info=self.info)
            return self._delegate.feed(data)
        if not body:
            # (a whole 64 KiB of whitespace is no empty document: what follows was not read)
            found = "blank" if len(data) >= SNIFF_MAX else "empty"
        elif _ROBOTS_LINE.search(body):
            found = "robots.txt"
        else:
            found = "other"  # neither XML nor a list of URLs
        return self._finish(
            NodeKind.UNKNOWN, "unknown", Finding("root-unknown", {"found": found}, line=1)
        )

    def _xml(self) -> XmlSitemapParser:
        return XmlSitemapParser(
            max_entries=self.max_entries, info=self.info, element_hook=self.element_hook
        )

    def _is_text(self, body: str, complete: bool) -> bool:
        if not body:
            return False
        lines = body.splitlines()
        # Unless the whole body is here, the last line may be cut: ignore it unless alone.
        candidates = lines[:20] if complete or len(lines) == 1 else lines[:-1][:20]
        urls = sum(1 for line in candidates if looks_like_url(line.strip(" \t")))
        # A robots.txt with a bare URL among its records (crawler-commons keeps one) is a
        # robots.txt, said once, not a text sitemap with an error on every record line.
        if urls <= sum(1 for line in candidates if _ROBOTS_LINE.match(line)):
            urls = 0
        ctype = (self.content_type or "").split(";", 1)[0].strip().lower()
        if ctype == "text/plain" and not _ROBOTS_LINE.search(body):
            # served (or named) as text: a URL on any whole line of the window makes it a list
            # of URLs whose first lines are not (a comment header); none at all, it is no
            # sitemap ("Not Found" as text/plain was one error per line)
            whole = lines if complete or len(lines) == 1 else lines[:-1]
            return any(_URLISH.match(line.strip(" \t")) for line in whole)
        # A header line followed by URLs is still a (bad) text sitemap; the text parser reports it.
        return urls > 0

    def _finish(self, kind: NodeKind, fmt: str, finding: Finding) -> list[Item]:
        self._kind = kind
        self._finished = True
        self.info.format = fmt
        self.info.stopped = True
        return [finding]


def _html_issue() -> Finding:
    return Finding("file-is-html", line=1)


def _maybe_junk(head: bytes) -> bool:
    """The first bytes after leading whitespace do not start an XML document (nor JSON): they
    may be other content printed before the sitemap."""
    while head.startswith(_BOM):
        head = head[3:].lstrip(b" \t\r\n")
    if head[:1] in (b"{", b"["):
        return False
    if head[:1] != b"<":
        return bool(head)
    return not (head[1:2] in (b"?", b"!") or _ROOT_START.match(head))


def _skip_leading(data: bytes, window: int, *, junk: bool) -> tuple[bytes, Finding | None] | None:
    """``data`` with what comes before the XML left out, and the issue that says so; ``None``
    when there is nothing to leave out (or no sitemap follows).

    Whitespace and BOMs before the XML declaration, and (``junk``) up to MAX_LEADING_JUNK bytes
    of other content before a declaration or root element that belongs to a sitemap or feed.
    libxml2 accepts neither, so the declaration is moved to the start and followed by as many
    newlines as were left out: every element keeps its line number in the file as served."""
    bom = _BOM if data.startswith(_BOM) else b""
    i = len(bom)
    while True:  # whitespace and further BOMs (one after a newline is a common artefact)
        while i < len(data) and data[i] in b" \t\r\n":
            i += 1
        if not data.startswith(_BOM, i):
            break
        i += 3
    start = i
    if junk:
        m = _XML_START.search(data, i, min(window, i + MAX_LEADING_JUNK + 64))
        if m is None or m.start() - i > MAX_LEADING_JUNK:
            return None
        start = m.start()
    elif not data.startswith(b"<", start):
        return None
    skipped = data[len(bom) : start]
    if not skipped:
        return None  # the XML comes first already
    if _XML_START.match(data, start) and data[start + 1 : start + 2] == b"?":
        end = data.find(b"?>", start, window)
        if end < 0 or (junk and not _ROOT_START.search(data, end, window)):
            return None  # no usable declaration, or no sitemap after it
        decl, rest = data[start : end + 2], data[end + 2 :]
    elif junk or _BOM in skipped:
        decl, rest = b"", data[start:]
    else:
        return None  # whitespace before the root (no declaration): legal XML, nothing to do
    rewritten = bom + decl + b"\n" * skipped.count(b"\n") + rest
    if junk:
        snippet = " ".join(skipped.decode("utf-8", "replace").split())[:160]
        fields: dict[str, object] = {"skipped": len(skipped), "snippet": snippet}
    elif decl and skipped.strip(_BOM):
        fields = {}
    else:
        return rewritten, None  # BOMs only, or before a root without declaration: dropped
    return rewritten, Finding("xml-leading-whitespace", fields, line=1, column=1)


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

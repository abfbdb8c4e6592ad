"""Streaming parser for plain-text sitemaps (one absolute URL per line, UTF-8).

Lines are split incrementally across chunks; a line is never buffered beyond `MAX_LINE` bytes,
so a 200 MB line costs no memory (SECURITY.md §4).
"""

from __future__ import annotations

import codecs
import re

from .findings import Finding
from .model import Entry, NodeKind
from .parsed import Item, ParseInfo

MAX_LINE = 65536  # bytes; longer lines are reported and skipped without being kept
MAX_LINE_ISSUES = 1000  # text-line-not-url issues per file before one summary issue
_SNIPPET = 200  # characters of a bad line quoted in its issue

# Absolute http(s) URL with a non-empty host and no whitespace anywhere.
_URL_RE = re.compile(r"https?://[^\s/?#]+[^\s]*", re.IGNORECASE)
_STRIP = " \t\r\f\v"  # not str.strip(): NBSP and other Unicode spaces belong to the URL check


def looks_like_url(s: str) -> bool:
    """True when ``s`` is exactly one absolute http(s) URL (no surrounding text, no spaces)."""
    return _URL_RE.fullmatch(s) is not None


class TextSitemapParser:
    """Incremental text-sitemap parser; ``feed``/``close`` return Entry and Finding items."""

    kind = NodeKind.TEXT

    def __init__(self, max_entries: int = 50000, info: ParseInfo | None = None) -> None:
        self.info = info if info is not None else ParseInfo()
        self.info.format = "text"
        self.max_entries = max_entries
        self._pending = bytearray()
        self._lineno = 1  # number of the line being accumulated
        self._skipping = False  # inside an over-long line: drop bytes until the next newline
        self._at_start = True  # BOM check pending
        self._bad_utf8 = False
        # a UTF-16 file (its BOM says so): decoded to UTF-8 as it comes, as libxml2 reads a
        # UTF-16 XML sitemap; read as UTF-8 it gave no URL at all, silently
        self._utf16: codecs.IncrementalDecoder | None = None
        self._sniffed = False
        self._head = b""
        self._blank = 0
        self._first_blank: int | None = None
        self._closed = False
        # After the entry cap, lines are only counted (so the cap's issue can give the numbers):
        # the line of the first URL not kept, and the length of the unfinished last line.
        self._cap_line: int | None = None
        self._partial = 0
        self._cr = False  # the last chunk ended in CR: a CRLF may be split across chunks

    @property
    def done(self) -> bool:
        return self._closed

    def feed(self, data: bytes) -> list[Item]:
        out: list[Item] = []
        if self._closed:
            return out
        self._split(self._newlines(self._transcoded(data, out)), out)
        return out

    def _split(self, data: bytes, out: list[Item]) -> None:
        """The lines of ``data`` (UTF-8, LF line ends) to the line handler; the unfinished last
        one kept for the next chunk."""
        if self._cap_line is not None:
            self._count(data)
            return
        start = 0
        n = len(data)
        while start < n:
            nl = data.find(b"\n", start)
            if nl < 0:
                self._accumulate(data[start:], out)
                break
            if self._skipping:
                self._skipping = False
            else:
                if len(self._pending) + (nl - start) > MAX_LINE:
                    self._long_line(out)
                else:
                    self._pending += data[start:nl]
                    self._line(bytes(self._pending), out)
                self._pending.clear()
            self._lineno += 1
            start = nl + 1
            if self._cap_line is not None:
                self._count(data[start:])
                return
        self.info.lines = self._lineno - 1

    def _newlines(self, data: bytes) -> bytes:
        """CRLF and a lone CR as LF (found from outside: a file with CR line ends, as classic Mac
        tools write them, listed no URL, unsaid; robots.txt is read so, and Python's
        ``splitlines``, which other parsers use). A CR at a chunk's end waits for the next."""
        if self._cr:
            data = b"\r" + data
            self._cr = False
        if b"\r" not in data:
            return data
        if data.endswith(b"\r"):
            self._cr = True
            data = data[:-1]
        return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")

    def _transcoded(self, data: bytes, out: list[Item], final: bool = False) -> bytes:
        """``data`` as UTF-8: itself, or a UTF-16 file's bytes (found by its BOM) decoded."""
        if not self._sniffed:
            data = self._head + data
            if len(data) < 2 and not final:  # a server that sends a byte at a time
                self._head = data
                return b""
            self._sniffed = True
            if data.startswith((b"\xff\xfe", b"\xfe\xff")):
                self._utf16 = codecs.getincrementaldecoder("utf-16")(errors="replace")
                self.info.bom = "utf-16"
                out.append(Finding("encoding-not-utf8", {"found": "utf-16"}, line=1))
        if self._utf16 is None:
            return data
        return self._utf16.decode(data, final).encode("utf-8", errors="replace")

    def _count(self, data: bytes) -> None:
        """Past the entry cap: count the lines, read nothing."""
        newlines = data.count(b"\n")
        if newlines:
            self._lineno += newlines
            self._partial = len(data) - data.rfind(b"\n") - 1
        else:
            self._partial += len(data)
        self.info.lines = self._lineno - (0 if self._partial else 1)

    def close(self, cut: str | None = None) -> list[Item]:
        """End of input. ``cut``: the body ended early for that reason (a size cap, a fetch
        error): an unfinished last line is then left out, and parsing stopped there."""
        out: list[Item] = []
        if self._closed:
            return out
        if self._utf16 is not None or not self._sniffed:  # what was held back: half a character, a byte
            self._split(self._newlines(self._transcoded(b"", out, final=True)), out)
        if self._cr:  # the body's last byte: a line end
            self._cr = False
            self._split(b"\n", out)
        self._closed = True
        if self._cap_line is None:
            if cut:
                self.info.truncated_at = f"{self._lineno}:{len(self._pending) + 1}"
                self.info.lines = self._lineno - (0 if self._pending else 1)
            elif self._pending:  # last line without a newline
                self._line(bytes(self._pending), out)
                self._pending.clear()
                self.info.lines = self._lineno
            elif self._skipping:
                self.info.lines = self._lineno
        if self._cap_line is not None:
            if cut:
                self.info.truncated_at = f"{self._lineno}:{self._partial + 1}"
            self._over_cap(out, cut)
        if self._blank:
            out.append(Finding("text-blank-lines", {"count": self._blank}, line=self._first_blank))
        if self.info.no_url > MAX_LINE_ISSUES:
            hidden = self.info.no_url - MAX_LINE_ISSUES
            out.append(Finding("text-line-not-url", {"hidden": hidden}))
        return out

    # -- lines -------------------------------------------------------------------------------

    def _accumulate(self, chunk: bytes, out: list[Item]) -> None:
        if self._skipping:
            return
        if len(self._pending) + len(chunk) > MAX_LINE:
            self._long_line(out)
            self._pending.clear()
            self._skipping = True
            return
        self._pending += chunk

    def _long_line(self, out: list[Item]) -> None:
        self._not_url_issue({"longer_than": MAX_LINE}, out)

    def _line(self, raw: bytes, out: list[Item]) -> None:
        if self._at_start:
            self._at_start = False
            if raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
                self.info.bom = "utf-8"
                out.append(Finding("encoding-bom", line=1))
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", errors="replace")
            if not self._bad_utf8:
                self._bad_utf8 = True
                self.info.replaced_at = self._lineno
                out.append(Finding("encoding-not-utf8", {"found": "text"}, line=self._lineno))
        s = text.strip(_STRIP)
        if not s:
            self._blank += 1
            if self._first_blank is None:
                self._first_blank = self._lineno
            return
        if not looks_like_url(s):
            self._not_url_issue({"value": s[:_SNIPPET]}, out)
            return
        if self.info.entries >= self.max_entries:
            # the rest is only counted (see _count); the issue comes at close, with the numbers
            self._cap_line = self._lineno
            self.info.stopped = True
            return
        self.info.entries += 1
        out.append(Entry(loc=s, line=self._lineno))

    def _over_cap(self, out: list[Item], cut: str | None) -> None:
        cap, first = self.max_entries, self._cap_line or 0
        lines = self.info.lines
        rest = lines - first + 1
        self.info.cuts.insert(0, "url-count-over-limit")  # it came before any cut of the body
        self.info.stopped = True
        fields = {"cap": cap, "lines": lines, "first": first, "unread": rest, "cut": bool(cut)}
        out.append(Finding("url-count-over-limit", fields, line=first))

    def _not_url_issue(self, fields: dict[str, object], out: list[Item]) -> None:
        self.info.no_url += 1
        if self.info.no_url <= MAX_LINE_ISSUES:
            out.append(Finding("text-line-not-url", fields, line=self._lineno))

"""Before libxml2 sees a byte: the parser options, the refusing resolver and the guard that
scans the prolog for a DOCTYPE (SECURITY.md §1-4, see parse_xml.py); element text helpers."""

from __future__ import annotations

import re
from itertools import islice
from typing import Any

from lxml import etree

_XML_WS = " \t\r\n"
_MAX_DECL = 4096  # units of an XML declaration we are willing to hold back
_DOCTYPE_LOOKAHEAD = 80  # units after "<!" needed to read the DOCTYPE name
_POS_SUFFIX = re.compile(r", line \d+, column \d+$")
#: Ends the message of the finding at which a fatal XML error stopped the parser.
PARSE_STOPPED = " (parsing stopped here)"
_ENCODING_RE = re.compile(rb"""\bencoding\s*=\s*["']([A-Za-z0-9._:-]{1,64})["']""")
_DOCTYPE_NAME = re.compile(rb"<!doctype\s+([^\s>\[]*)", re.IGNORECASE)


_UNESCAPED = (
    "EntityRef: expecting ';'",
    "xmlParseEntityRef: no name",
    "StartTag: invalid element name",
    "Unescaped '<' not allowed in attributes values",
)
_ILLEGAL = ("invalid Char value", "invalid xmlChar value", "out of allowed range", "Char 0x")
_BAD_UTF8 = ("not proper UTF-8", "Invalid bytes in character encoding")
_NS_ERR_UNDEFINED = 201  # libxml2 XML_NS_ERR_UNDEFINED_NAMESPACE (non-fatal, raised at close)


def _parser_options() -> dict[str, Any]:
    return {
        # "internal" (SECURITY.md says False): no DOCTYPE ever reaches libxml2 (see _PrologGuard),
        # so only the five predefined entities exist either way. With False, an undefined
        # reference such as &nbsp; makes the pull parser stop *silently*; the next feed then fails
        # with a bogus "Extra content at the end of the document" at a wrong position, or close()
        # with "no element found" at 0:0. "internal" reports "Entity 'nbsp' not defined" where it
        # is. External entities stay unresolved in both modes.
        "resolve_entities": "internal",
        "no_network": True,
        "load_dtd": False,
        "dtd_validation": False,
        "attribute_defaults": False,
        "huge_tree": False,  # keeps libxml2's depth (256) and text-node (10 MB) limits
        # Deliberately True (SECURITY.md says False): with lxml 6.1.3 / libxml2 2.14,
        # collect_ids=False makes a pull parser load external DTD subsets from local files.
        "collect_ids": True,
        "remove_comments": True,
        "remove_pis": True,
    }


class _RefuseResolver(etree.Resolver):  # type: ignore[misc]
    """Third line of defence: every external resource resolves to nothing."""

    def resolve(self, system_url: str, public_id: str, context: Any) -> Any:
        return self.resolve_string("", context)


def _split(tag: Any) -> tuple[str | None, str] | None:
    """``(namespace, local)`` of an element tag; ``None`` for comments, PIs and entity nodes."""
    if not isinstance(tag, str):
        return None
    if tag[:1] == "{":
        ns, _, local = tag[1:].partition("}")
        return ns, local
    return None, tag


def _more_nodes_than(el: Any, limit: int) -> bool:
    """``el`` and its descendants are more than ``limit`` nodes (counts at most limit + 1)."""
    return sum(1 for _node in islice(el.iter(), limit + 1)) > limit


def _text(el: Any) -> str:
    """Direct text of an element, stripped of XML whitespace."""
    return (el.text or "").strip(_XML_WS)


def _deep_text(el: Any) -> str:
    if not len(el):  # no child nodes: the direct text is all there is
        text = el.text
        return text.strip(_XML_WS) if text else ""
    return "".join(t for t in el.itertext() if isinstance(t, str)).strip(_XML_WS)


class _PrologGuard:
    """Scans the bytes before the root element and holds back anything that may be a DOCTYPE.

    Works on code units (1 byte, or 2 for UTF-16 detected by BOM or ``<\\0``): all markup in the
    prolog is ASCII, so a unit is its ASCII value or "other". Comments and PIs are passed on as
    they are scanned; only an undecided ``<`` (and an open XML declaration) is held back.
    """

    _TOP, _PI, _COMMENT = 0, 1, 2

    def __init__(self) -> None:
        self.buf = bytearray()
        self.unit = 0  # 0 until detected
        self.big_endian = False
        self.i = 0  # scan position (units) in buf
        self.state = self._TOP
        self.passed = False  # the root element (or junk) was reached: stop guarding
        self.verdict: str | None = None  # "doctype" or "html": refuse the document
        self.verdict_line = 1
        self.line = 1  # line number at the start of buf
        self.bom: str | None = None
        self.has_decl = False
        self.decl: bytes | None = None  # declaration text (ASCII view) once complete
        self.decl_start: int | None = None  # unit index of an open declaration in buf
        self.before_decl = False  # whitespace or markup seen before the declaration
        self.consumed = False  # anything (besides a BOM) consumed yet

    def feed(self, data: bytes, final: bool = False) -> bytes:
        """Add bytes; return the bytes now safe for libxml2."""
        self.buf += data
        if self.passed:
            out = bytes(self.buf)
            self.buf.clear()
            return out
        if not self.unit and not self._detect(final):
            return b""
        self._scan(final)
        if self.verdict is not None:
            self.buf.clear()
            return b""
        if self.passed or final:
            out = bytes(self.buf)
            self.buf.clear()
            self.i = 0
            return out
        keep_from = self.i if self.decl_start is None else self.decl_start
        cut = keep_from * self.unit
        out = bytes(self.buf[:cut])
        self.line += self._view(out).count(b"\n")
        del self.buf[:cut]
        self.i -= keep_from
        if self.decl_start is not None:
            self.decl_start -= keep_from
        return out

    def _detect(self, final: bool) -> bool:
        b = self.buf
        if len(b) < 4 and not final:
            return False
        if b.startswith(b"\xef\xbb\xbf"):
            self.unit, self.bom, self.i = 1, "utf-8", 3
        elif b.startswith(b"\xff\xfe") or b.startswith(b"\xfe\xff"):
            self.unit, self.bom, self.i = 2, "utf-16", 1
            self.big_endian = b.startswith(b"\xfe\xff")
        elif b[:2] == b"<\x00" or b[:2] == b"\x00<":
            self.unit = 2
            self.big_endian = b[:1] == b"\x00"
        else:
            self.unit = 1
        return True

    def _view(self, data: bytes | bytearray) -> bytes:
        if self.unit == 1:
            return bytes(data)
        usable = len(data) - len(data) % 2
        hi, lo = (
            (data[0:usable:2], data[1:usable:2])
            if self.big_endian
            else (
                data[1:usable:2],
                data[0:usable:2],
            )
        )
        return bytes(c if h == 0 and c < 0x80 else 0x80 for c, h in zip(lo, hi, strict=True))

    def _scan(self, final: bool) -> None:
        v = self._view(self.buf)
        n = len(v)
        i = self.i
        while i < n:
            if self.state == self._COMMENT:
                j = v.find(b"-->", i)
                if j < 0:
                    i = max(i, n - 2)
                    break
                i = j + 3
                self.state = self._TOP
                continue
            if self.state == self._PI:
                j = v.find(b"?>", i)
                if j < 0:
                    if self.decl_start is not None and n - self.decl_start > _MAX_DECL:
                        self.decl_start = None  # absurd declaration: let libxml2 judge it
                    i = max(i, n - 1)
                    break
                if self.decl_start is not None:
                    self.decl = v[self.decl_start : j + 2]
                    self.decl_start = None
                i = j + 2
                self.state = self._TOP
                continue
            c = v[i]
            if c in b" \t\r\n":
                self.consumed = True
                i += 1
                continue
            if c != 0x3C:  # not "<": libxml2 reports whatever this is
                self.passed = True
                break
            rest = v[i : i + _DOCTYPE_LOOKAHEAD]
            if (
                len(rest) < 6
                and not final
                and (
                    b"<?xml ".startswith(rest)
                    or b"<!--".startswith(rest)
                    or b"<!DOCTYPE".startswith(rest.upper())
                )
            ):
                break  # need more bytes to classify this "<"
            if rest.startswith(b"<?"):
                is_decl = rest[2:5] == b"xml" and rest[5:6] in (b" ", b"\t", b"\r", b"\n")
                if is_decl and not self.has_decl:  # a second one is libxml2's to report
                    self.has_decl = True
                    self.before_decl = self.consumed
                    self.decl_start = i
                self.consumed = True
                self.state = self._PI
                i += 2
                continue
            if rest.startswith(b"<!--"):
                self.consumed = True
                self.state = self._COMMENT
                i += 4
                continue
            if rest[:3].upper() == b"<!D":
                if (
                    len(rest) < _DOCTYPE_LOOKAHEAD
                    and not final
                    and b">" not in rest
                    and b"[" not in rest
                ):
                    break  # wait for the DOCTYPE name
                m = _DOCTYPE_NAME.match(rest)
                name = m.group(1).lower() if m else b""
                self.verdict = "html" if name == b"html" else "doctype"
                self.verdict_line = self.line + v[:i].count(b"\n")
                break
            self.passed = True  # the root element's start tag (or "<!" junk libxml2 rejects)
            break
        self.i = i

"""Streaming XML parser for sitemaps, sitemap indexes, RSS (2.0 and 1.0) and Atom (1.0 and 0.3).

One parser for all of them because the root element is only known once parsing has started.
Security (SECURITY.md §1-4):

- libxml2 only ever gets bytes, through `lxml.etree.XMLPullParser` with entity resolution, DTD
  loading and network access off, and without `recover`.
- The prolog is scanned by `_PrologGuard` *before* libxml2 sees it, and a DOCTYPE is refused
  without feeding it: with lxml 6.1.3 a pull parser built with ``collect_ids=False`` loads a
  ``SYSTEM`` DTD (and external parameter entities) from local files even with
  ``load_dtd=False`` (lxml sets ``ctxt->loadsubset``, which libxml2 treats as "load the
  subset"). The docinfo check at the first start event stays as a second line of defence, and
  a resolver that refuses everything as a third.
- Finished entries are cleared and unlinked, so memory stays flat; at most ``max_entries``
  entries are produced, then parsing stops.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from lxml import etree

from .model import Alternate, ChildRef, Entry, Image, Issue, News, NodeKind, Severity, Video
from .values import parse_any_feed_date, parse_changefreq, parse_priority, parse_w3c_datetime

if TYPE_CHECKING:
    from .sniff import Item, ParseInfo

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
MOBILE_NS = "http://www.google.com/schemas/sitemap-mobile/1.0"
ATOM10_NS = "http://www.w3.org/2005/Atom"
ATOM03_NS = "http://purl.org/atom/ns#"
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RSS10_NS = "http://purl.org/rss/1.0/"
DC_NS = "http://purl.org/dc/elements/1.1/"

# Prefixes used in Entry.tags for the extension namespaces everybody knows.
EXT_PREFIX: dict[str, str] = {
    IMAGE_NS: "image",
    VIDEO_NS: "video",
    NEWS_NS: "news",
    XHTML_NS: "xhtml",
    MOBILE_NS: "mobile",
}

_XML_WS = " \t\r\n"
_MAX_DECL = 4096  # units of an XML declaration we are willing to hold back
_DOCTYPE_LOOKAHEAD = 80  # units after "<!" needed to read the DOCTYPE name
_POS_SUFFIX = re.compile(r", line \d+, column \d+$")
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


def _text(el: Any) -> str:
    """Direct text of an element, stripped of XML whitespace."""
    return (el.text or "").strip(_XML_WS)


def _deep_text(el: Any) -> str:
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


class XmlSitemapParser:
    """Incremental XML sitemap / index / feed parser producing Entry, ChildRef and Issue items."""

    def __init__(self, max_entries: int = 50000, info: ParseInfo | None = None) -> None:
        if info is None:
            from .sniff import ParseInfo  # local import: sniff imports this module

            info = ParseInfo()
        self.info = info
        self.max_entries = max_entries
        self.kind: NodeKind | None = None
        self._guard: _PrologGuard | None = _PrologGuard()
        self._parser = etree.XMLPullParser(events=("start", "end"), **_parser_options())
        self._parser.resolvers.add(_RefuseResolver())
        self._depth = 0
        self._root_done = False
        self._stopped = False
        self._closed = False
        self._utf8_reported = False
        self._undeclared: set[str] = set()
        # entry elements started: the cap counts these, info.entries the finished ones
        self._started = 0
        # set once the root is known
        self._core: frozenset[str | None] = frozenset()
        self._entry_depth = 2
        self._entry_local = ""
        self._mode = ""  # "urlset", "index", "rss", "atom"

    @property
    def done(self) -> bool:
        return self._stopped

    # -- feeding -----------------------------------------------------------------------------

    def feed(self, data: bytes) -> list[Item]:
        out: list[Item] = []
        if self._stopped or self._closed:
            return out
        self._push(data, False, out)
        return out

    def close(self) -> list[Item]:
        out: list[Item] = []
        if self._closed:
            return out
        if not self._stopped:
            self._push(b"", True, out)
        if not self._stopped:
            try:
                self._parser.close()
            except etree.XMLSyntaxError as exc:
                self._drain(out)
                self._syntax_error(exc, out, at_close=True)
            else:
                self._drain(out)
        self._closed = True
        return out

    def _push(self, data: bytes, final: bool, out: list[Item]) -> None:
        if self._guard is not None:
            guard = self._guard
            data = guard.feed(data, final)
            if guard.verdict is not None:
                self._refuse(guard, out)
                return
            if guard.passed or final:
                self._prolog_issues(guard, out)
                self._guard = None
        if not data:
            return
        try:
            self._parser.feed(data)
        except etree.XMLSyntaxError as exc:
            self._drain(out)  # events produced before the error are still valid
            self._syntax_error(exc, out, at_close=False)
            return
        self._drain(out)

    def _stop(self) -> None:
        self._stopped = True
        self.info.stopped = True

    def _refuse(self, guard: _PrologGuard, out: list[Item]) -> None:
        self.info.bom = guard.bom or self.info.bom
        self._stop()
        if guard.verdict == "html":
            self.kind = NodeKind.HTML
            self.info.format = "html"
            out.append(
                Issue(
                    "file-is-html",
                    Severity.ERROR,
                    "The body is an HTML page, not a sitemap",
                    line=guard.verdict_line,
                )
            )
        else:
            self.kind = NodeKind.UNKNOWN
            out.append(_dtd_issue(guard.verdict_line))

    def _prolog_issues(self, guard: _PrologGuard, out: list[Item]) -> None:
        info = self.info
        if guard.bom:
            info.bom = guard.bom
        if guard.bom == "utf-8":
            out.append(
                Issue("encoding-bom", Severity.INFO, "UTF-8 byte-order mark at the start", line=1)
            )
        info.has_declaration = guard.has_decl
        if guard.has_decl and guard.before_decl:
            info.leading_whitespace = True
            out.append(
                Issue(
                    "xml-leading-whitespace",
                    Severity.ERROR,
                    "Content before the <?xml declaration; the XML declaration must come first",
                    line=1,
                    column=1,
                )
            )
        if not guard.has_decl:
            out.append(
                Issue(
                    "xml-declaration-missing", Severity.INFO, "No <?xml ...?> declaration", line=1
                )
            )
        enc = None
        if guard.decl is not None:
            m = _ENCODING_RE.search(guard.decl)
            if m:
                enc = m.group(1).decode("ascii")
        info.xml_encoding = enc
        if enc is not None and enc.lower() not in ("utf-8", "utf8"):
            self._utf8_reported = True
            out.append(
                Issue(
                    "encoding-not-utf8",
                    Severity.ERROR,
                    f"The XML declaration names encoding {enc}; sitemaps must be UTF-8",
                    line=1,
                )
            )
        elif guard.unit == 2 and not self._utf8_reported:
            self._utf8_reported = True
            out.append(
                Issue(
                    "encoding-not-utf8",
                    Severity.ERROR,
                    "The document is UTF-16; sitemaps must be UTF-8",
                    line=1,
                )
            )

    # -- errors ------------------------------------------------------------------------------

    def _syntax_error(self, exc: etree.XMLSyntaxError, out: list[Item], at_close: bool) -> None:
        msg = _POS_SUFFIX.sub("", str(exc.msg or exc))
        line, col = exc.position if exc.position else (None, None)
        if at_close and self._root_done and 200 <= (exc.code or 0) < 300:
            # Namespace errors are not fatal: everything was parsed, libxml2 only tells at close.
            if exc.code == _NS_ERR_UNDEFINED and not self._undeclared:
                out.append(
                    Issue("ext-prefix-undeclared", Severity.ERROR, msg, line=line, column=col)
                )
            elif exc.code != _NS_ERR_UNDEFINED:
                out.append(Issue("xml-not-well-formed", Severity.ERROR, msg, line=line, column=col))
            self._stop()
            return
        self._stop()
        self.info.truncated_at = f"{line}:{col}" if line is not None else None
        out.append(
            Issue(
                "xml-not-well-formed",
                Severity.ERROR,
                f"{msg} (parsing stopped here)",
                line=line,
                column=col,
            )
        )
        specific: str | None = None
        if any(s in msg for s in _BAD_UTF8):
            if not self._utf8_reported:
                specific = "encoding-not-utf8"
                self._utf8_reported = True
        elif any(s in msg for s in _UNESCAPED):
            specific = "xml-unescaped-char"
        elif any(s in msg for s in _ILLEGAL):
            specific = "xml-illegal-char"
        if specific:
            out.append(Issue(specific, Severity.ERROR, msg, line=line, column=col))
        if self.kind is None:
            self.kind = NodeKind.UNKNOWN

    # -- events ------------------------------------------------------------------------------

    def _drain(self, out: list[Item]) -> None:
        for event, el in self._parser.read_events():
            if self._stopped:
                break
            if event == "start":
                self._depth += 1
                if self._depth == 1:
                    self._on_root(el, out)
                elif self._depth == self._entry_depth:
                    self._on_entry_start(el, out)
            else:
                if self._depth == self._entry_depth and self._mode:
                    self._on_entry_end(el, out)
                self._depth -= 1
                if self._depth == 0:
                    self._root_done = True

    def _on_root(self, el: Any, out: list[Item]) -> None:
        info = self.info
        line = el.sourceline
        di = el.getroottree().docinfo
        if di.doctype or di.internalDTD is not None or di.externalDTD is not None:
            self.kind = NodeKind.UNKNOWN
            self._stop()
            out.append(_dtd_issue(line))
            return
        parts = _split(el.tag)
        ns, local = parts if parts else (None, "")
        info.root = el.tag if isinstance(el.tag, str) else None
        info.namespace = ns
        info.namespaces = {k or "": v for k, v in el.nsmap.items()}
        if local in ("urlset", "sitemapindex"):
            index = local == "sitemapindex"
            self.kind = NodeKind.INDEX if index else NodeKind.URLSET
            self._mode = "index" if index else "urlset"
            info.format = local
            self._entry_local = "sitemap" if index else "url"
            self._core = frozenset({ns, SITEMAP_NS})
            if ns is None:
                out.append(
                    Issue(
                        "namespace-missing",
                        Severity.ERROR,
                        f'<{local}> has no namespace; expected xmlns="{SITEMAP_NS}"',
                        line=line,
                    )
                )
            elif ns != SITEMAP_NS:
                out.append(
                    Issue(
                        "namespace-wrong",
                        Severity.ERROR,
                        f'<{local}> namespace is "{ns}"; expected "{SITEMAP_NS}"',
                        line=line,
                    )
                )
        elif local == "rss":
            self.kind = NodeKind.RSS
            self._mode = "rss"
            version = (el.get("version") or "").strip()[:16]
            info.format = f"rss{version}" if version else "rss"
            self._entry_depth, self._entry_local = 3, "item"
            self._core = frozenset({ns})
        elif local == "RDF" and ns == RDF_NS:
            self.kind = NodeKind.RSS
            self._mode = "rss"
            info.format = "rss1.0"
            self._entry_local = "item"
            self._core = frozenset({RSS10_NS})
        elif local == "feed" and ns in (ATOM10_NS, ATOM03_NS):
            self.kind = NodeKind.ATOM
            self._mode = "atom"
            info.format = "atom1.0" if ns == ATOM10_NS else "atom0.3"
            self._entry_local = "entry"
            self._core = frozenset({ns})
        elif local.lower() == "html":
            self.kind = NodeKind.HTML
            info.format = "html"
            self._stop()
            out.append(
                Issue(
                    "file-is-html",
                    Severity.ERROR,
                    "The body is an HTML page, not a sitemap",
                    line=line,
                )
            )
        else:
            self.kind = NodeKind.UNKNOWN
            info.format = "unknown"
            self._stop()
            out.append(
                Issue(
                    "root-unknown",
                    Severity.ERROR,
                    f"Root element <{local}> is not urlset, sitemapindex, rss or feed",
                    line=line,
                )
            )

    def _on_entry_start(self, el: Any, out: list[Item]) -> None:
        parts = _split(el.tag)
        if parts is None or parts[1] != self._entry_local or parts[0] not in self._core:
            return
        if self._started >= self.max_entries:
            rule = "index-too-many-sitemaps" if self._mode == "index" else "url-count-over-limit"
            what = "<sitemap> entries" if self._mode == "index" else "entries"
            self._stop()
            out.append(
                Issue(
                    rule,
                    Severity.ERROR,
                    f"More than {self.max_entries:,} {what}; parsing stopped",
                    line=el.sourceline,
                )
            )
            return
        self._started += 1

    def _on_entry_end(self, el: Any, out: list[Item]) -> None:
        parts = _split(el.tag)
        if parts is not None:
            ns, local = parts
            if ns in self._core and local == self._entry_local:
                self.info.entries += 1
                if self._mode == "urlset":
                    out.extend(self._url(el))
                elif self._mode == "index":
                    out.extend(self._sitemap(el))
                elif self._mode == "rss":
                    out.append(self._rss_item(el))
                else:
                    out.append(self._atom_entry(el))
            elif ns in self._core and self._mode in ("urlset", "index"):
                out.append(self._misplaced(el, local))
        # Flat memory: drop the finished element and everything before it.
        el.clear(keep_tail=False)
        parent = el.getparent()
        if parent is not None:
            while el.getprevious() is not None:
                del parent[0]

    def _misplaced(self, el: Any, local: str) -> Issue:
        line = el.sourceline
        if self._mode == "index" and local == "url":
            return Issue(
                "index-wrong-children",
                Severity.ERROR,
                "<url> inside a <sitemapindex> (ignored)",
                line=line,
            )
        parent = "urlset" if self._mode == "urlset" else "sitemapindex"
        return Issue(
            "core-unknown-element",
            Severity.ERROR,
            f"<{local}> inside <{parent}> (ignored)",
            line=line,
        )

    # -- tags --------------------------------------------------------------------------------

    def _tag_name(self, ns: str | None, local: str, core: frozenset[str | None]) -> str:
        if ns in core:
            if ns is None and ":" in local:
                return "{}" + local  # undeclared prefix: libxml2 keeps "p:name", no namespace
            return local
        prefix = EXT_PREFIX.get(ns) if ns is not None else None
        if prefix:
            return f"{prefix}:{local}"
        return f"{{{ns or ''}}}{local}"

    def _note_undeclared(
        self, ns: str | None, local: str, line: int | None, out: list[Item]
    ) -> None:
        if ns is None and ":" in local:
            prefix = local.split(":", 1)[0]
            if prefix not in self._undeclared:
                self._undeclared.add(prefix)
                out.append(
                    Issue(
                        "ext-prefix-undeclared",
                        Severity.ERROR,
                        f"Namespace prefix {prefix}: is used without an xmlns:{prefix} declaration",
                        line=line,
                    )
                )

    # -- urlset / index ----------------------------------------------------------------------

    def _loc(self, child: Any, out: list[Item]) -> str | None:
        """Stripped <loc> text; ``None`` (and an issue) when markup hides inside it."""
        for sub in child:
            parts = _split(sub.tag)
            name = parts[1] if parts else "entity reference"
            out.append(
                Issue(
                    "core-unknown-element",
                    Severity.ERROR,
                    f"<{name}> inside <loc>: the URL is unusable",
                    line=sub.sourceline or child.sourceline,
                )
            )
            return None
        raw = child.text or ""
        loc = raw.strip(_XML_WS)
        if loc and loc != raw:
            out.append(
                Issue(
                    "loc-whitespace",
                    Severity.WARNING,
                    "<loc> has leading or trailing whitespace",
                    line=child.sourceline,
                    url=loc,
                )
            )
        return loc

    def _url(self, el: Any) -> list[Item]:
        out: list[Item] = []
        entry = Entry(loc=None, line=el.sourceline or 0)
        core = self._core
        seen: set[str] = set()
        for child in el:
            parts = _split(child.tag)
            if parts is None:
                continue
            ns, local = parts
            entry.tags.append(self._tag_name(ns, local, core))
            self._note_undeclared(ns, local, child.sourceline, out)
            if ns in core:
                if local in seen:
                    continue  # repeated core element: first wins (the checker sees tags)
                if local == "loc":
                    seen.add(local)
                    entry.loc = self._loc(child, out)
                elif local == "lastmod":
                    seen.add(local)
                    entry.lastmod_raw = _text(child)
                    entry.lastmod = parse_w3c_datetime(entry.lastmod_raw)
                elif local == "changefreq":
                    seen.add(local)
                    entry.changefreq_raw = _text(child)
                    entry.changefreq = parse_changefreq(entry.changefreq_raw)
                elif local == "priority":
                    seen.add(local)
                    entry.priority_raw = _text(child)
                    entry.priority = parse_priority(entry.priority_raw)
            elif ns == IMAGE_NS and local == "image":
                entry.images.append(_image(child))
            elif ns == VIDEO_NS and local == "video":
                entry.videos.append(_video(child))
            elif ns == NEWS_NS and local == "news":
                entry.news.append(_news(child))
            elif ns == XHTML_NS and local == "link":
                entry.alternates.append(
                    Alternate(
                        rel=child.get("rel"),
                        hreflang=child.get("hreflang"),
                        href=child.get("href"),
                        line=child.sourceline or 0,
                    )
                )
        if entry.loc is not None:
            for item in out:
                if (
                    isinstance(item, Issue)
                    and item.url is None
                    and item.rule != "ext-prefix-undeclared"
                ):
                    item.url = entry.loc
        out.append(entry)
        return out

    def _sitemap(self, el: Any) -> list[Item]:
        out: list[Item] = []
        ref = ChildRef(loc=None, line=el.sourceline or 0)
        core = self._core
        seen: set[str] = set()
        for child in el:
            parts = _split(child.tag)
            if parts is None:
                continue
            ns, local = parts
            ref.tags.append(self._tag_name(ns, local, core))
            self._note_undeclared(ns, local, child.sourceline, out)
            if ns not in core or local in seen:
                continue
            if local == "loc":
                seen.add(local)
                ref.loc = self._loc(child, out)
            elif local == "lastmod":
                seen.add(local)
                ref.lastmod_raw = _text(child)
                ref.lastmod = parse_w3c_datetime(ref.lastmod_raw)
        out.append(ref)
        return out

    # -- feeds -------------------------------------------------------------------------------

    def _rss_item(self, el: Any) -> Entry:
        entry = Entry(loc=None, line=el.sourceline or 0)
        core = self._core
        dc_date: str | None = None
        for child in el:
            parts = _split(child.tag)
            if parts is None:
                continue
            ns, local = parts
            entry.tags.append(self._tag_name(ns, local, core))
            if ns in core:
                if local == "link" and entry.loc is None:
                    entry.loc = _text(child)
                elif local == "pubDate" and entry.lastmod_raw is None:
                    entry.lastmod_raw = _text(child)
                elif local == "title" and entry.title is None:
                    entry.title = _deep_text(child)
            elif ns == DC_NS and local == "date" and dc_date is None:
                dc_date = _text(child)
        if entry.lastmod_raw is None and dc_date is not None:
            entry.lastmod_raw = dc_date  # RSS 1.0 has no pubDate; dc:date is its usual date
        entry.lastmod = parse_any_feed_date(entry.lastmod_raw)
        return entry

    def _atom_entry(self, el: Any) -> Entry:
        entry = Entry(loc=None, line=el.sourceline or 0)
        core = self._core
        dates: dict[str, str] = {}
        for child in el:
            parts = _split(child.tag)
            if parts is None:
                continue
            ns, local = parts
            entry.tags.append(self._tag_name(ns, local, core))
            if ns not in core:
                continue
            if local == "link" and entry.loc is None:
                rel = (child.get("rel") or "alternate").strip(_XML_WS)
                if rel == "alternate":
                    entry.loc = (child.get("href") or "").strip(_XML_WS)
            elif local in ("updated", "modified", "published", "issued", "created"):
                dates.setdefault(local, _text(child))
            elif local == "title" and entry.title is None:
                entry.title = _deep_text(child)
        # Atom 1.0: updated (required), else published; Atom 0.3: modified, else issued/created.
        for name in ("updated", "modified", "published", "issued", "created"):
            if name in dates:
                entry.lastmod_raw = dates[name]
                break
        entry.lastmod = parse_any_feed_date(entry.lastmod_raw)
        return entry


# -- extension blocks (module level: no parser state needed) ---------------------------------


def _ext_tag(ns: str | None, local: str, own_ns: str) -> str:
    return local if ns == own_ns else f"{{{ns or ''}}}{local}"


def _image(el: Any) -> Image:
    img = Image(line=el.sourceline or 0)
    for child in el:
        parts = _split(child.tag)
        if parts is None:
            continue
        ns, local = parts
        img.tags.append(_ext_tag(ns, local, IMAGE_NS))
        if ns != IMAGE_NS:
            continue
        value = _text(child)
        if local == "loc" and img.loc is None:
            img.loc = value
        elif local == "title" and img.title is None:
            img.title = value
        elif local == "caption" and img.caption is None:
            img.caption = value
        elif local == "geo_location" and img.geo_location is None:
            img.geo_location = value
        elif local == "license" and img.license is None:
            img.license = value
    return img


def _video(el: Any) -> Video:
    video = Video(line=el.sourceline or 0)
    counts: dict[str, int] = {}
    for child in el:
        parts = _split(child.tag)
        if parts is None:
            continue
        ns, local = parts
        video.tags.append(_ext_tag(ns, local, VIDEO_NS))
        if ns != VIDEO_NS:
            continue
        value = _deep_text(child) if len(child) else _text(child)
        video.fields.setdefault(local, value)
        video.multi.setdefault(local, []).append(value)
        n = counts[local] = counts.get(local, 0) + 1
        for key, attr_value in child.attrib.items():
            attr = key.rpartition("}")[2]
            # first occurrence "price@currency"; later ones "price[2]@currency"
            name = f"{local}@{attr}" if n == 1 else f"{local}[{n}]@{attr}"
            video.attrs[name] = attr_value
    return video


def _news(el: Any) -> News:
    news = News(line=el.sourceline or 0)
    for child in el:
        parts = _split(child.tag)
        if parts is None or parts[0] != NEWS_NS:
            continue
        local = parts[1]
        if local == "publication":
            for sub in child:
                sub_parts = _split(sub.tag)
                if sub_parts is None or sub_parts[0] != NEWS_NS:
                    continue
                if sub_parts[1] == "name" and news.publication_name is None:
                    news.publication_name = _text(sub)
                elif sub_parts[1] == "language" and news.publication_language is None:
                    news.publication_language = _text(sub)
        elif local == "publication_date" and news.publication_date is None:
            news.publication_date = _text(child)
        elif local == "title" and news.title is None:
            news.title = _text(child)
        else:
            news.extra.setdefault(local, _deep_text(child) if len(child) else _text(child))
    return news


def _dtd_issue(line: int | None) -> Issue:
    return Issue(
        "xml-dtd-forbidden",
        Severity.ERROR,
        "DOCTYPE declarations are not allowed in sitemaps (entity and DTD processing is disabled)",
        line=line,
    )

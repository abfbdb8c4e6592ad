"""Streaming XML parser for sitemaps, sitemap indexes, RSS (2.0 and 1.0) and Atom (1.0 and 0.3).

One parser for all of them because the root element is only known once parsing has started.
Security (SECURITY.md §1-4):

- libxml2 only ever gets bytes, through `lxml.etree.XMLPullParser` with entity resolution, DTD
  loading and network access off, and without `recover`.
- The prolog is scanned by `_PrologGuard` *before* libxml2 sees it, and a DOCTYPE is refused
  without feeding it: with lxml 6.1.3 a pull parser built with ``collect_ids=False`` loads a
  ``SYSTEM`` DTD (and external parameter entities) from local files even with
  ``load_dtd=False`` (lxml sets ``ctxt->loadsubset``, which libxml2 treats as "load the
  subset"). The docinfo check at the root's start tag stays as a second line of defence, and
  a resolver that refuses everything as a third. The small throwaway parser that identifies
  the root element gets the same options, the same resolver and the same vetted bytes.
- Finished entries are cleared and unlinked, elements between entries are swept after every
  slice of input, and a single element of megabytes of markup stops parsing, so memory stays
  flat; at most ``max_entries`` entries are produced, then parsing stops.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from itertools import islice
from typing import Any

from lxml import etree

from .findings import Finding
from .model import Alternate, ChildRef, Entry, Image, News, NodeKind, Video
from .parsed import Item, ParseInfo
from .values import (
    _CHANGEFREQ_CACHE,
    _MISS,
    _PRIORITY_CACHE,
    _W3C_CACHE,
    parse_any_feed_date,
    parse_changefreq,
    parse_priority,
    parse_w3c_datetime,
)

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


# Elements the main pull parser reports (start and end events): the possible roots and entries.
# Everything else (<loc>, <lastmod>, extension blocks, ...) gets no event and no Python proxy
# until the entry that holds it is finished; that is most of the speed. ``{*}`` matches any
# namespace and none; which of these are real entries is decided by namespace and position.
_EVENT_TAGS = (
    "{*}urlset",
    "{*}sitemapindex",
    "{*}rss",
    "{*}RDF",
    "{*}feed",
    "{*}url",
    "{*}sitemap",
    "{*}item",
    "{*}entry",
)
_PRE_SLICE = 4096  # bytes fed at a time to the throwaway parser that finds the root element
# libxml2 messages naming the innermost open element ("... in tag urlset line 2")
_OPEN_TAG_MSG = re.compile(
    r"(?:Premature end of data in tag|Opening and ending tag mismatch:) (\S+) line (\d+)"
)
_SPEC_CACHE_MAX = 512  # distinct child tags remembered per parser
# misplaced elements reported per file (a flood of them would be millions of issues); the
# last one reported says the rest are not
_MAX_MISPLACED = 1001
# at most this many bytes go to libxml2 before the events are read
_FEED_SLICE = 1 << 20
# An element at entry level (a <url>, or junk) that spans more than _BIG_ELEMENT_BYTES of input
# may hold at most _MAX_ELEMENT_NODES elements: the largest real entries (1,000 images with
# captions, an Atom entry with an XHTML article) are far smaller, while millions of tiny elements
# inside one would all stay in memory until it ends.
_BIG_ELEMENT_BYTES = 4 << 20
_MAX_ELEMENT_NODES = 100_000


def _positional(cls: Any, names: tuple[str, ...]) -> Any:
    """``cls`` itself when its first fields are ``names`` in this order (positional calls are
    much cheaper than keyword calls), else a keyword-calling wrapper, should the model change."""
    if tuple(f.name for f in dataclasses.fields(cls))[: len(names)] == names:
        return cls
    return lambda *args: cls(**dict(zip(names, args, strict=True)))


# hot-path constructors, called positionally
_new_entry = _positional(
    Entry,
    (
        "loc",
        "line",
        "lastmod_raw",
        "lastmod",
        "changefreq_raw",
        "changefreq",
        "priority_raw",
        "priority",
        "images",
        "videos",
        "news",
        "alternates",
        "tags",
        "loc_line",
        "lastmod_line",
        "changefreq_line",
        "priority_line",
    ),
)
_new_alternate = _positional(Alternate, ("rel", "hreflang", "href", "line", "media"))
_new_image = _positional(Image, ("loc", "title", "caption", "geo_location", "license", "line"))

# child codes of <url>/<sitemap> (see XmlSitemapParser._classify)
_C_SKIP, _C_OTHER, _C_LOC, _C_LASTMOD, _C_CHANGEFREQ, _C_PRIORITY = 0, 1, 2, 3, 4, 5
_C_IMAGE, _C_VIDEO, _C_NEWS, _C_LINK, _C_UNDECLARED = 6, 7, 8, 9, 10


class XmlSitemapParser:
    """Incremental XML sitemap / index / feed parser producing Entry, ChildRef and Finding items.

    How it stays fast: the pull parser only reports root and entry elements (``_EVENT_TAGS``);
    the root element is identified by a small throwaway parser fed only the first bytes; a
    finished entry is read in one pass over its children with per-tag dispatch cached. Elements
    between entries ("junk") get no event: they are checked and deleted when the next entry
    starts, at the end of each ``feed`` and at the end of the root (``_sweep``), so memory stays
    flat.
    """

    def __init__(
        self,
        max_entries: int = 50000,
        info: ParseInfo | None = None,
        element_hook: Callable[[Any], bool] | None = None,
    ) -> None:
        # element_hook sees each finished <url>/<sitemap> element before it is cleared (XSD
        # validation in chunks); its parent is the document's root element. It returns True
        # when it moved the element out of the tree (then it is its own, never cleared here).
        self.element_hook = element_hook
        self.info = info if info is not None else ParseInfo()
        self.max_entries = max_entries
        self.kind: NodeKind | None = None
        self._guard: _PrologGuard | None = _PrologGuard()
        self._parser = etree.XMLPullParser(
            events=("start", "end"), tag=_EVENT_TAGS, **_parser_options()
        )
        self._parser.resolvers.add(_RefuseResolver())
        # throwaway parser that finds the root start tag (any name); dropped once it has
        self._pre: Any = None
        self._pre_dead = False
        self._root_seen = False  # _on_root has run
        self._root: Any = None  # the main parser's root element (from its start event)
        self._last: Any = None  # the last finished entry (kept until the next one)
        self._current: Any = None  # the entry element being parsed
        self._misplaced = 0  # misplaced-element issues so far (see _sweep)
        self._fed = 0  # bytes given to the main parser
        self._tail: Any = None  # the last child at entry level, as of the last _after_feed
        self._tail_from = 0  # self._fed when _tail was first seen there
        self._core_patterns: tuple[str, ...] = ()
        self._root_done = False
        self._stopped = False
        self._closed = False
        self._utf8_reported = False
        self._undeclared: set[str] = set()
        self._undeclared_links = False  # an <xhtml:link> without xmlns:xhtml was read
        # entry elements started: the cap counts these, info.entries the finished ones
        self._started = 0
        # entries after the cap: counted (not parsed) so the cap's issue can give the total
        self._over = 0
        self._counting = False  # past the cap: only entry start events are counted
        self._over_line: int | None = None  # line of the first entry not kept
        # entries (<url>/<sitemap>) in no namespace or another one than the root's: kept, and
        # reported once per namespace at close: ns -> [first line, count]
        self._strays: dict[str | None, list[int]] = {}
        self._stray_specs: dict[str | None, dict[Any, tuple[int, str]]] = {}
        # set once the root is known
        self._core: frozenset[str | None] = frozenset()
        self._entry_local = ""
        self._entry_tags: frozenset[str] = frozenset()  # Clark names of the entry element
        self._nested = False  # entries are grandchildren of the root (RSS 2.0 items)
        self._mode = ""  # "urlset", "index", "rss", "atom"
        self._specs: dict[Any, tuple[int, str]] = {}  # child tag -> (code, name), see _classify
        self._fspecs: dict[Any, tuple[int, str, str]] = {}  # feeds, see _feed_classify

    @property
    def done(self) -> bool:
        return self._stopped or self._closed

    # -- feeding -----------------------------------------------------------------------------

    def feed(self, data: bytes) -> list[Item]:
        out: list[Item] = []
        if self._stopped or self._closed:
            return out
        self._push(data, False, out)
        return out

    def close(self, cut: str | None = None) -> list[Item]:
        """End of input. ``cut``: the body ended early for that reason (a size cap, a fetch
        error); the unfinished end is then where parsing stopped, not a syntax error."""
        out: list[Item] = []
        if self._closed:
            return out
        if not self._stopped:
            self._push(b"", True, out)
        if not self._stopped:
            if not self._root_seen:
                root = self._pre_parse(b"", final=True)
                if root is not None:
                    self._on_root(root, out)
            try:
                self._parser.close()
            except etree.XMLSyntaxError as exc:
                self._drain(out)
                self._sweep_at_error(exc, out)
                if cut:
                    self._cut_short(exc)
                else:
                    self._syntax_error(exc, out, at_close=True)
            else:
                self._drain(out)
        self._pre = None
        self._closed = True
        self._stray_issues(out)
        if self._over:
            self._over_cap(out, cut)
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
        if not self._root_seen:
            root = self._pre_parse(data, final=False)
            if root is not None:
                # may stop (html, unknown root, DOCTYPE); the main parser still gets these
                # bytes so that a syntax error in them is reported as before
                self._on_root(root, out)
        # Big chunks go to libxml2 in slices, with the events drained in between, so that the
        # tree never holds more than a slice of unread input. Once stopped, the rest of this
        # chunk is still parsed (no events) so that a syntax error in it is reported, as when the
        # whole chunk went in at once.
        for i in range(0, len(data), _FEED_SLICE):
            part = data if len(data) <= _FEED_SLICE else data[i : i + _FEED_SLICE]
            before = self._fed
            self._fed += len(part)
            try:
                self._parser.feed(part)
            except etree.XMLSyntaxError as exc:
                self._drain(out)  # events produced before the error are still valid
                self._sweep_at_error(exc, out)
                self._syntax_error(exc, out, at_close=False)
                return
            if not self._stopped:
                self._drain(out)
                if not self._stopped:
                    self._after_feed(before, out)

    def _after_feed(self, before: int, out: list[Item]) -> None:
        """Keep the tree small between events: drop finished junk, and stop on an element at
        entry level (an entry, or junk) that keeps growing without end."""
        root = self._root
        if root is None:
            return
        container = root
        if self._nested:
            if not len(root):
                return
            container = root[-1]
        n = len(container)
        if not n:
            return
        if self._counting:
            if n > 1:
                del container[:-1]  # all finished but the last child, which may be open
        elif n > 2 or (n == 2 and container[0] is not self._last):
            # junk that no entry followed yet: check and drop what is finished (all but the
            # last child, which may still be open)
            self._sweep(container, container[-1], out)
        tail = container[-1]
        if tail is not self._tail:
            self._tail, self._tail_from = tail, before
        elif (
            tail is not self._last
            and self._fed - self._tail_from > _BIG_ELEMENT_BYTES
            and _more_nodes_than(tail, _MAX_ELEMENT_NODES)
        ):
            # Megabytes of markup in one element (millions of tiny elements inside one <url>,
            # or inside junk): nothing of it can be cleared before it ends. Text-heavy elements
            # (long feed articles) stay allowed: libxml2 bounds text nodes, the fetcher the file.
            parts = _split(tail.tag)
            name = parts[1] if parts else "?"
            self._stop()
            out.append(
                Finding(
                    "xml-not-well-formed",
                    {"element": name, "at_line": tail.sourceline, "nodes": _MAX_ELEMENT_NODES},
                    line=tail.sourceline,
                )
            )

    def _pre_parse(self, data: bytes, final: bool) -> Any:
        """The root element, from a throwaway parser fed the same (guard-vetted) bytes."""
        if self._pre_dead:
            return None
        pre = self._pre
        if pre is None:
            pre = self._pre = etree.XMLPullParser(events=("start",), **_parser_options())
            pre.resolvers.add(_RefuseResolver())
        found = None
        try:
            for i in range(0, len(data), _PRE_SLICE):
                pre.feed(data[i : i + _PRE_SLICE])
                for _event, el in pre.read_events():
                    found = el
                    break
                if found is not None:
                    break
            if found is None and final:
                pre.close()
        except etree.XMLSyntaxError:
            self._pre_dead = True  # the main parser reports it
        if found is None:
            for _event, el in pre.read_events():
                found = el
                break
        if found is not None or self._pre_dead or final:
            self._pre = None
            self._pre_dead = True
        return found

    def _stop(self) -> None:
        self._stopped = True
        self.info.stopped = True

    def _refuse(self, guard: _PrologGuard, out: list[Item]) -> None:
        self.info.bom = guard.bom or self.info.bom
        self._stop()
        if guard.verdict == "html":
            self.kind = NodeKind.HTML
            self.info.format = "html"
            out.append(Finding("file-is-html", line=guard.verdict_line))
        else:
            self.kind = NodeKind.UNKNOWN
            out.append(_dtd_issue(guard.verdict_line))

    def _prolog_issues(self, guard: _PrologGuard, out: list[Item]) -> None:
        info = self.info
        if guard.bom:
            info.bom = guard.bom
        if guard.bom == "utf-8":
            out.append(Finding("encoding-bom", line=1))
        info.has_declaration = guard.has_decl
        if guard.has_decl and guard.before_decl:
            info.leading_whitespace = True
            out.append(Finding("xml-leading-whitespace", line=1, column=1))
        if not guard.has_decl:
            out.append(Finding("xml-declaration-missing", line=1))
        enc = None
        if guard.decl is not None:
            m = _ENCODING_RE.search(guard.decl)
            if m:
                enc = m.group(1).decode("ascii")
        info.xml_encoding = enc
        if enc is not None and enc.lower() not in ("utf-8", "utf8"):
            self._utf8_reported = True
            out.append(Finding("encoding-not-utf8", {"found": "declared", "encoding": enc}, line=1))
        elif guard.unit == 2 and not self._utf8_reported:
            self._utf8_reported = True
            out.append(Finding("encoding-not-utf8", {"found": "utf-16"}, line=1))

    # -- errors ------------------------------------------------------------------------------

    def _syntax_error(self, exc: etree.XMLSyntaxError, out: list[Item], at_close: bool) -> None:
        msg = _POS_SUFFIX.sub("", str(exc.msg or exc))
        line, col = exc.position if exc.position else (None, None)
        if at_close and self._root_done and 200 <= (exc.code or 0) < 300:
            # Namespace errors are not fatal: everything was parsed, libxml2 only tells at close.
            if exc.code == _NS_ERR_UNDEFINED and not (self._undeclared or self._undeclared_links):
                out.append(Finding("ext-prefix-undeclared", {"error": msg}, line=line, column=col))
            elif exc.code != _NS_ERR_UNDEFINED:
                out.append(Finding("xml-not-well-formed", {"error": msg}, line=line, column=col))
            self._stop()
            return
        self._stop()
        self.info.truncated_at = f"{line}:{col}" if line is not None else None
        # one fault, one finding: a raw '&' or '<', an illegal character or bytes that are not
        # UTF-8 get their own rule, which also says that parsing stopped there
        rule = "xml-not-well-formed"
        if any(s in msg for s in _BAD_UTF8):
            if not self._utf8_reported:
                rule = "encoding-not-utf8"
                self._utf8_reported = True
        elif any(s in msg for s in _UNESCAPED):
            rule = "xml-unescaped-char"
        elif any(s in msg for s in _ILLEGAL):
            rule = "xml-illegal-char"
        out.append(Finding(rule, {"error": msg, "stopped": True}, line=line, column=col))
        if self.kind is None:
            self.kind = NodeKind.UNKNOWN

    # -- events ------------------------------------------------------------------------------

    def _drain(self, out: list[Item]) -> None:
        if self._stopped:
            return
        if self._counting:
            self._count_events()
            return
        root = self._root
        entry_tags = self._entry_tags
        nested = self._nested
        # the open entry: its proxy is kept, so its end event yields the very same object
        current = self._current
        for event, el in self._parser.read_events():
            if event == "end":
                if el is current:
                    current = self._current = None
                    self._on_entry_end(el, out)
                elif el is root and root is not None:
                    self._root_done = True
                    if self._mode in ("urlset", "index"):
                        self._sweep(el, None, out)
                continue
            parent = el.getparent()
            stray = False
            if parent is root and root is not None:
                if nested:
                    continue
                if el.tag not in entry_tags:
                    if not self._is_stray_entry(el):
                        continue
                    stray = True
            elif parent is None:
                self._root = root = el
                if not self._root_seen:  # the throwaway parser has not seen it yet
                    self._on_root(el, out)
                    if self._stopped:
                        break
                    entry_tags, nested = self._entry_tags, self._nested
                continue
            elif not nested or parent.getparent() is not root or el.tag not in entry_tags:
                continue
            # An entry starts (a child of the root; an RSS 2.0 item: a grandchild). What lies
            # before it is finished: the previous entry (dropped) and maybe junk (checked).
            prev = el.getprevious()
            if prev is not None:
                if prev is self._last:
                    del parent[0]
                else:
                    self._sweep(parent, el, out)
            if self._started >= self.max_entries:
                # Past the cap: from here on entries are only counted, so that the issue can
                # say how many there were (the body is bounded by the size cap).
                self._over_line = el.sourceline
                self._over = 1
                self._counting = True
                self.info.stopped = True
                self._count_events()
                return
            self._started += 1
            current = self._current = el
            if stray:
                self._note_stray(el)

    def _count_events(self) -> None:
        """Past the cap: count the entries that start; nothing else is read. The tree is
        emptied in bulk after each slice (``_after_feed``), not entry by entry."""
        root = self._root
        nested = self._nested
        local = self._entry_local
        suffix = "}" + local
        n = 0
        for event, el in self._parser.read_events():
            if event == "start":
                parent = el.getparent()
                if parent is None or (parent.getparent() if nested else parent) is not root:
                    continue
                tag = el.tag
                if tag == local or tag.endswith(suffix):
                    n += 1
            elif el is root:
                self._root_done = True
        self._over += n

    def _on_root(self, el: Any, out: list[Item]) -> None:
        self._root_seen = True
        self._identify_root(el, out)
        if not self._stopped:
            self._configure()

    def _identify_root(self, el: Any, out: list[Item]) -> None:
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
                out.append(Finding("namespace-missing", {"root": local}, line=line))
            elif ns != SITEMAP_NS:
                out.append(Finding("namespace-wrong", {"root": local, "namespace": ns}, line=line))
        elif local == "rss":
            self.kind = NodeKind.RSS
            self._mode = "rss"
            version = (el.get("version") or "").strip()[:16]
            info.format = f"rss{version}" if version else "rss"
            self._nested, self._entry_local = True, "item"
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
            out.append(Finding("file-is-html", line=line))
        else:
            self.kind = NodeKind.UNKNOWN
            info.format = "unknown"
            self._stop()
            out.append(Finding("root-unknown", {"found": "element", "root": local}, line=line))

    def _configure(self) -> None:
        """Entry names and per-tag caches once the root (mode and core namespaces) is known."""
        local = self._entry_local
        self._entry_tags = frozenset(
            local if ns is None else f"{{{ns}}}{local}" for ns in self._core
        )
        # every element in a core namespace ("{}*": no namespace), for _sweep
        self._core_patterns = tuple(f"{{{ns or ''}}}*" for ns in self._core)
        self._specs = {}

    def _over_cap(self, out: list[Item], cut: str | None) -> None:
        """The entry cap's issue, with the numbers: kept, listed, not kept."""
        rule = "index-too-many-sitemaps" if self._mode == "index" else "url-count-over-limit"
        cap = self.max_entries
        listed = cap + self._over
        self.info.listed = listed
        self.info.cuts.insert(0, rule)  # it came before any cut of the body
        self.info.stopped = True
        # cut or broken body: the count stopped early, a lower bound
        at_least = bool(cut or self.info.truncated_at is not None)
        fields = {"listed": listed, "cap": cap, "over": self._over, "at_least": at_least}
        out.append(Finding(rule, fields, line=self._over_line))

    def _cut_short(self, exc: etree.XMLSyntaxError) -> None:
        """The body was cut (size cap, fetch error): libxml2's complaint about the unfinished
        end only says where the cut fell."""
        self._stop()
        line, col = exc.position if exc.position else (None, None)
        if line is not None:
            self.info.truncated_at = f"{line}:{col}"
        if self.kind is None:
            self.kind = NodeKind.UNKNOWN

    # -- entries in no namespace, or another one ------------------------------------------------

    def _is_stray_entry(self, el: Any) -> bool:
        """A child of the root named like an entry (<url>/<sitemap>) in no namespace or in
        another one than the root's: a sitemap with a namespace slip, kept as an entry."""
        if self._mode != "urlset" and self._mode != "index":
            return False
        parts = _split(el.tag)
        return parts is not None and parts[1] == self._entry_local

    def _note_stray(self, el: Any) -> None:
        parts = _split(el.tag)
        ns = parts[0] if parts else None
        seen = self._strays.get(ns)
        if seen is None:
            self._strays[ns] = [el.sourceline or 0, 1]
        else:
            seen[1] += 1

    def _stray_issues(self, out: list[Item]) -> None:
        name = f"<{self._entry_local}>"
        for ns, (line, count) in sorted(self._strays.items(), key=lambda kv: kv[1][0]):
            fields: dict[str, object] = {"element": name, "count": count, "first_line": line}
            if ns is None:
                rule = "namespace-missing"
            else:
                rule = "namespace-wrong"
                fields["namespace"] = ns
            out.append(Finding(rule, fields, line=line or None))

    def _stray_entry_end(self, el: Any, out: list[Item]) -> None:
        """Read a stray entry with its own namespace as the core one (its <loc> is in it)."""
        parts = _split(el.tag)
        ns = parts[0] if parts else None
        core, specs = self._core, self._specs
        self._core = core | {ns}
        self._specs = self._stray_specs.setdefault(ns, {})
        try:
            if self._mode == "urlset":
                self._url(el, out)
            else:
                self._sitemap(el, out)
        finally:
            self._core, self._specs = core, specs

    def _on_entry_end(self, el: Any, out: list[Item]) -> None:
        self.info.entries += 1
        mode = self._mode
        if mode == "urlset" or mode == "index":
            if self._strays and el.tag not in self._entry_tags:
                # not given to the hook: the XSD would report the same slip a second time
                self._stray_entry_end(el, out)
            else:
                if mode == "urlset":
                    self._url(el, out)
                else:
                    self._sitemap(el, out)
                # after our fields are read: the hook may take el away
                if self.element_hook is not None and self.element_hook(el):
                    self._last = None
                    return
        elif mode == "rss":
            out.append(self._rss_item(el))
        else:
            out.append(self._atom_entry(el))
        # Flat memory: empty the finished entry now; it is unlinked when the next one starts
        # (or by _sweep), so the tree never holds more than two entries.
        el.clear(keep_tail=False)
        self._last = el

    def _sweep(self, container: Any, upto: Any, out: list[Item]) -> None:
        """Check and delete the finished children of ``container`` before ``upto`` (``None``:
        all of them): the last entry and any junk between entries, which in a urlset or index
        gets the issue the old element-by-element parser gave at the junk's end tag.

        ``upto`` is an entry or the container's last child, so a filtered iteration that never
        meets it has still stopped in time. Linear: a flood of junk elements costs C time only,
        except for those in a core namespace (issues, bounded by ``_MAX_MISPLACED``)."""
        if self._mode in ("urlset", "index") and self._misplaced < _MAX_MISPLACED:
            last = self._last
            entry_local = self._entry_local
            for child in container.iterchildren(*self._core_patterns):
                if child is upto:
                    break
                if child is last:
                    continue
                parts = _split(child.tag)
                if parts is None or parts[1] == entry_local:
                    continue
                self._misplaced += 1
                if self._misplaced >= _MAX_MISPLACED:
                    out.append(
                        Finding(
                            "core-unknown-element",
                            {"misplaced_over": _MAX_MISPLACED - 1},
                            line=child.sourceline,
                        )
                    )
                    break
                out.append(self._misplaced_issue(child, parts[1]))
        if upto is None:
            del container[:]
        else:
            stop = container.index(upto)
            if stop:
                del container[:stop]

    def _sweep_at_error(self, exc: etree.XMLSyntaxError, out: list[Item]) -> None:
        """After a fatal error: junk finished before the error still gets its issue."""
        root = self._root
        if self._stopped or root is None or self._mode not in ("urlset", "index"):
            return
        n = len(root)
        if not n:
            return
        tail = root[-1]
        upto = tail
        if tail is not self._last and tail.tag not in self._entry_tags:
            # The last child may be open (the error is inside it) or finished. A finished one
            # has a tail once any character follows its end tag; else the message may name the
            # root as the innermost open element.
            if tail.tail is not None:
                upto = None
            else:
                m = _OPEN_TAG_MSG.search(str(exc.msg or exc))
                local = etree.QName(root).localname
                names = (local, f"{root.prefix}:{local}" if root.prefix else local)
                line = root.sourceline
                if (
                    m is not None
                    and m.group(1) in names
                    and m.group(2) == str(line)
                    # an open element of that name on the root's line would read the same
                    and not any(
                        isinstance(e.tag, str)
                        and etree.QName(e).localname == local
                        and e.sourceline == line
                        for e in tail.iter()
                    )
                ):
                    upto = None
        if n > 1 or upto is None:
            self._sweep(root, upto, out)

    def _misplaced_issue(self, el: Any, local: str) -> Finding:
        line = el.sourceline
        parent = "urlset" if self._mode == "urlset" else "sitemapindex"
        if self._mode == "index" and local == "url":
            return Finding("index-wrong-children", {"element": local, "parent": parent}, line=line)
        return Finding("core-unknown-element", {"element": local, "parent": parent}, line=line)

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

    def _classify(self, tag: Any, el: Any = None) -> tuple[int, str]:
        """``(code, name in Entry.tags)`` of a child tag of <url>/<sitemap> (cached); ``el``:
        the element that has it (for its prefix)."""
        parts = _split(tag)
        if parts is None:
            spec = (_C_SKIP, "")
        else:
            ns, local = parts
            core = self._core
            code = _C_OTHER
            if ns is None and ":" in local:
                # "p:name" without xmlns:p (libxml2 keeps the prefix, no namespace)
                code = _C_UNDECLARED
            elif ns in core:
                if local == "loc":
                    code = _C_LOC
                elif local == "lastmod":
                    code = _C_LASTMOD
                elif self._mode == "urlset":
                    if local == "changefreq":
                        code = _C_CHANGEFREQ
                    elif local == "priority":
                        code = _C_PRIORITY
            elif self._mode == "urlset":
                if ns == IMAGE_NS and local == "image":
                    code = _C_IMAGE
                elif ns == VIDEO_NS and local == "video":
                    code = _C_VIDEO
                elif ns == NEWS_NS and local == "news":
                    code = _C_NEWS
                elif ns == XHTML_NS and local == "link":
                    code = _C_LINK
            name = self._tag_name(ns, local, core)
            if (
                code == _C_OTHER
                and local == "link"
                and ns not in EXT_PREFIX
                and el is not None
                and el.prefix == "xhtml"
            ):
                # <xhtml:link> with xmlns:xhtml bound to another URI: keep the prefix in the
                # name so the checker can tell it from any other "link" (hreflang-namespace-missing)
                name = f"{{{ns or ''}}}xhtml:link"
            spec = (code, name)
        if len(self._specs) < _SPEC_CACHE_MAX:
            self._specs[tag] = spec
        return spec

    def _note_undeclared(self, prefix: str, line: int | None, out: list[Item]) -> None:
        if prefix not in self._undeclared:
            self._undeclared.add(prefix)
            out.append(Finding("ext-prefix-undeclared", {"prefix": prefix}, line=line))

    # -- urlset / index ----------------------------------------------------------------------

    def _loc(self, child: Any, out: list[Item]) -> str | None:
        """Stripped <loc> text; ``None`` (and an issue) when markup hides inside it."""
        if len(child):
            sub = child[0]
            parts = _split(sub.tag)
            name = parts[1] if parts else "entity reference"
            out.append(
                Finding(
                    "core-unknown-element",
                    {"element": name, "parent": "loc"},
                    line=sub.sourceline or child.sourceline,
                )
            )
            return None
        raw = child.text
        if not raw:
            return ""
        loc = raw.strip(_XML_WS)
        if loc and loc != raw:
            self._loc_whitespace(child, loc, out)
        return loc

    def _loc_whitespace(self, child: Any, loc: str, out: list[Item]) -> None:
        out.append(Finding("loc-whitespace", line=child.sourceline, url=loc))

    def _backfill(self, out: list[Item], start: int, loc: str) -> None:
        for i in range(start, len(out)):
            item = out[i]
            if (
                isinstance(item, Finding)
                and item.url is None
                and item.rule != "ext-prefix-undeclared"
            ):
                out[i] = dataclasses.replace(item, url=loc)  # findings are frozen

    def _url(self, el: Any, out: list[Item]) -> None:
        start = len(out)
        tags: list[str] = []
        images: list[Image] = []
        alternates: list[Alternate] = []
        videos: list[Video] = []
        news: list[News] = []
        loc: str | None = None
        have_loc = False
        lastmod_raw = changefreq_raw = priority_raw = None
        lastmod = changefreq = priority = None
        loc_line = lastmod_line = changefreq_line = priority_line = None
        specs = self._specs
        for child in el:
            tag = child.tag
            spec = specs.get(tag)
            if spec is None:
                spec = self._classify(tag, child)
            code, name = spec
            if code == _C_LOC:
                tags.append(name)
                if not have_loc:  # repeated core elements: first wins (the checker sees tags)
                    have_loc = True
                    loc_line = child.sourceline
                    text = child.text
                    if len(child):
                        loc = self._loc(child, out)
                    elif not text:
                        loc = ""
                    else:
                        loc = text.strip(_XML_WS)
                        if loc != text and loc:
                            self._loc_whitespace(child, loc, out)
            elif code == _C_LASTMOD:
                tags.append(name)
                if lastmod_raw is None:
                    lastmod_line = child.sourceline
                    text = child.text
                    lastmod_raw = text.strip(_XML_WS) if text else ""
                    lastmod = _W3C_CACHE.get(lastmod_raw, _MISS)
                    if lastmod is _MISS:
                        lastmod = parse_w3c_datetime(lastmod_raw)
            elif code == _C_CHANGEFREQ:
                tags.append(name)
                if changefreq_raw is None:
                    changefreq_line = child.sourceline
                    text = child.text
                    changefreq_raw = text.strip(_XML_WS) if text else ""
                    changefreq = _CHANGEFREQ_CACHE.get(changefreq_raw, _MISS)
                    if changefreq is _MISS:
                        changefreq = parse_changefreq(changefreq_raw)
            elif code == _C_PRIORITY:
                tags.append(name)
                if priority_raw is None:
                    priority_line = child.sourceline
                    text = child.text
                    priority_raw = text.strip(_XML_WS) if text else ""
                    priority = _PRIORITY_CACHE.get(priority_raw, _MISS)
                    if priority is _MISS:
                        priority = parse_priority(priority_raw)
            elif code == _C_LINK:
                tags.append(name)
                attrib = child.attrib
                alternates.append(
                    _new_alternate(
                        attrib.get("rel"),
                        attrib.get("hreflang"),
                        attrib.get("href"),
                        child.sourceline or 0,
                        attrib.get("media"),
                    )
                )
            elif code == _C_IMAGE:
                tags.append(name)
                images.append(_image(child))
            elif code == _C_OTHER:
                tags.append(name)
            elif code == _C_VIDEO:
                tags.append(name)
                videos.append(_video(child))
            elif code == _C_NEWS:
                tags.append(name)
                news.append(_news(child))
            elif code == _C_UNDECLARED:
                tags.append(name)
                if tag == "xhtml:link":
                    # the hreflang links are lost: the checker's hreflang-namespace-missing
                    # names this one fault (a second finding here would repeat it)
                    self._undeclared_links = True
                else:
                    self._note_undeclared(tag.split(":", 1)[0], child.sourceline, out)
            # _C_SKIP: comment, PI or entity reference node
        if loc is not None and len(out) > start:
            self._backfill(out, start, loc)
        out.append(
            _new_entry(
                loc,
                el.sourceline or 0,
                lastmod_raw,
                lastmod,
                changefreq_raw,
                changefreq,
                priority_raw,
                priority,
                images,
                videos,
                news,
                alternates,
                tags,
                loc_line,
                lastmod_line,
                changefreq_line,
                priority_line,
            )
        )

    def _sitemap(self, el: Any, out: list[Item]) -> None:
        ref = ChildRef(loc=None, line=el.sourceline or 0)
        tags = ref.tags
        specs = self._specs
        have_loc = False
        for child in el:
            tag = child.tag
            spec = specs.get(tag)
            if spec is None:
                spec = self._classify(tag, child)
            code, name = spec
            if not code:
                continue
            tags.append(name)
            if code == _C_LOC:
                if not have_loc:
                    have_loc = True
                    ref.loc_line = child.sourceline
                    ref.loc = self._loc(child, out)
            elif code == _C_LASTMOD:
                if ref.lastmod_raw is None:
                    ref.lastmod_line = child.sourceline
                    text = child.text
                    ref.lastmod_raw = text.strip(_XML_WS) if text else ""
                    ref.lastmod = parse_w3c_datetime(ref.lastmod_raw)
            elif code == _C_UNDECLARED:
                self._note_undeclared(tag.split(":", 1)[0], child.sourceline, out)
        out.append(ref)

    # -- feeds -------------------------------------------------------------------------------

    def _feed_classify(self, tag: Any) -> tuple[int, str, str]:
        """``(code, name in Entry.tags, local name)`` of a child tag of an item/entry (cached)."""
        parts = _split(tag)
        if parts is None:
            spec = (_F_SKIP, "", "")
        else:
            ns, local = parts
            if ns in self._core:
                code = _F_CORE
            elif ns == DC_NS and local == "date":
                code = _F_DC_DATE
            else:
                code = _F_OTHER
            spec = (code, self._tag_name(ns, local, self._core), local)
        if len(self._fspecs) < _SPEC_CACHE_MAX:
            self._fspecs[tag] = spec
        return spec

    def _rss_item(self, el: Any) -> Entry:
        tags: list[str] = []
        loc = lastmod_raw = title = dc_date = None
        specs = self._fspecs
        for child in el:
            tag = child.tag
            spec = specs.get(tag)
            if spec is None:
                spec = self._feed_classify(tag)
            code, name, local = spec
            if not code:
                continue
            tags.append(name)
            if code == _F_CORE:
                if local == "link":
                    if loc is None:
                        loc = _text(child)
                elif local == "pubDate":
                    if lastmod_raw is None:
                        lastmod_raw = _text(child)
                elif local == "title" and title is None:
                    title = _deep_text(child)
            elif code == _F_DC_DATE and dc_date is None:
                dc_date = _text(child)
        if lastmod_raw is None and dc_date is not None:
            lastmod_raw = dc_date  # RSS 1.0 has no pubDate; dc:date is its usual date
        return _feed_entry(loc, el.sourceline or 0, lastmod_raw, tags, title)

    def _atom_entry(self, el: Any) -> Entry:
        tags: list[str] = []
        loc = title = None
        dates: dict[str, str] = {}
        specs = self._fspecs
        for child in el:
            tag = child.tag
            spec = specs.get(tag)
            if spec is None:
                spec = self._feed_classify(tag)
            code, name, local = spec
            if not code:
                continue
            tags.append(name)
            if code != _F_CORE:
                continue
            if local == "link":
                if loc is None:
                    rel = (child.get("rel") or "alternate").strip(_XML_WS)
                    if rel == "alternate":
                        loc = (child.get("href") or "").strip(_XML_WS)
            elif local in _ATOM_DATES:
                if local not in dates:
                    dates[local] = _text(child)
            elif local == "title" and title is None:
                title = _deep_text(child)
        # Atom 1.0: updated (required), else published; Atom 0.3: modified, else issued/created.
        lastmod_raw = None
        for date_name in _ATOM_DATES:
            if date_name in dates:
                lastmod_raw = dates[date_name]
                break
        return _feed_entry(loc, el.sourceline or 0, lastmod_raw, tags, title)


def _feed_entry(
    loc: str | None, line: int, lastmod_raw: str | None, tags: list[str], title: str | None
) -> Entry:
    entry: Entry = _new_entry(
        loc, line, lastmod_raw, None, None, None, None, None, [], [], [], [], tags
    )
    entry.lastmod = parse_any_feed_date(lastmod_raw)
    entry.title = title
    return entry


_ATOM_DATES = ("updated", "modified", "published", "issued", "created")  # in order of preference
# child codes of feed items/entries (see XmlSitemapParser._feed_classify)
_F_SKIP, _F_OTHER, _F_CORE, _F_DC_DATE = 0, 1, 2, 3


# -- extension blocks (module level: no parser state needed) ---------------------------------


def _ext_tag(ns: str | None, local: str, own_ns: str) -> str:
    return local if ns == own_ns else f"{{{ns or ''}}}{local}"


# known image:image children, by Clark name (the Image field has the same name)
_IMAGE_FIELDS = {
    f"{{{IMAGE_NS}}}{local}": local
    for local in ("loc", "title", "caption", "geo_location", "license")
}


def _image(el: Any) -> Image:
    img: Image = _new_image(None, None, None, None, None, el.sourceline or 0)
    tags = img.tags
    for child in el:
        tag = child.tag
        local = _IMAGE_FIELDS.get(tag)
        if local is None:
            parts = _split(tag)
            if parts is not None:
                tags.append(_ext_tag(parts[0], parts[1], IMAGE_NS))
            continue  # other image: children and foreign ones only count as tags
        tags.append(local)
        if getattr(img, local) is None:  # first one wins
            text = child.text
            setattr(img, local, text.strip(_XML_WS) if text else "")
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


def _dtd_issue(line: int | None) -> Finding:
    return Finding("xml-dtd-forbidden", line=line)

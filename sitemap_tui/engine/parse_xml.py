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

from collections.abc import Callable
from typing import Any

from lxml import etree

from .findings import Finding
from .model import NodeKind
from .parsed import Item, ParseInfo
from .xml_entries import _EntryReader
from .xml_prolog import (
    _BAD_UTF8,
    _ENCODING_RE,
    _ILLEGAL,
    _NS_ERR_UNDEFINED,
    _POS_SUFFIX,
    _UNESCAPED,
    PARSE_STOPPED,  # noqa: F401  (callers import it from here)
    _more_nodes_than,
    _parser_options,
    _PrologGuard,
    _RefuseResolver,
    _split,
)
from .xml_stray import _StrayHandling
from .xmlns import (  # noqa: F401  (callers import the namespaces from here)
    ATOM03_NS,
    ATOM10_NS,
    DC_NS,
    EXT_PREFIX,
    IMAGE_NS,
    MOBILE_NS,
    NEWS_NS,
    RDF_NS,
    RSS090_NS,
    RSS10_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
)

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
# at most this many bytes go to libxml2 before the events are read
_FEED_SLICE = 1 << 20
# An element at entry level (a <url>, or junk) that spans more than _BIG_ELEMENT_BYTES of input
# may hold at most _MAX_ELEMENT_NODES elements: the largest real entries (1,000 images with
# captions, an Atom entry with an XHTML article) are far smaller, while millions of tiny elements
# inside one would all stay in memory until it ends.
_BIG_ELEMENT_BYTES = 4 << 20
_MAX_ELEMENT_NODES = 100_000


class XmlSitemapParser(_StrayHandling, _EntryReader):
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
        self._loc_tags: tuple[str, ...] = ()  # Clark names of <loc> (see _configure)
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
            if not self._root_seen and not cut:
                # (a body cut inside its root's start tag names no root: "<u" of a truncated
                # gzip was "root element <u> is not urlset", beside the cut's own finding)
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
        line = info.root_line = el.sourceline
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
            # RSS 0.90 is RDF too, its items in Netscape's namespace (found from outside: they
            # were no entries, 0 URLs, unsaid)
            rss090 = RSS090_NS in el.nsmap.values()  # (a default namespace, or a prefix's)
            info.format = "rss0.90" if rss090 else "rss1.0"
            self._entry_local = "item"
            self._core = frozenset({RSS090_NS if rss090 else RSS10_NS})
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
            # (a <feed> or <RDF> outside its namespace: the message says which one it lacks)
            out.append(Finding("root-unknown", {"found": "element", "root": local, "namespace": ns}, line=line))

    def _configure(self) -> None:
        """Entry names and per-tag caches once the root (mode and core namespaces) is known."""
        local = self._entry_local
        self._entry_tags = frozenset(
            local if ns is None else f"{{{ns}}}{local}" for ns in self._core
        )
        # every element in a core namespace ("{}*": no namespace), for _sweep
        self._core_patterns = tuple(f"{{{ns or ''}}}*" for ns in self._core)
        # a <loc> of the core namespaces, inside an element the entry reader does not read
        self._loc_tags = tuple("loc" if ns is None else f"{{{ns}}}loc" for ns in self._core)
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


def _dtd_issue(line: int | None) -> Finding:
    return Finding("xml-dtd-forbidden", line=line)

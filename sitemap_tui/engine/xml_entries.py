"""Reading a finished entry's fields (the sitemap protocol's, the extensions', a feed item's)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from .findings import Finding
from .model import Alternate, ChildRef, Entry, Image, News, Video
from .parsed import Item, ParseInfo
from .urlpolicy import resolve
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
from .xml_prolog import _XML_WS, _deep_text, _split, _text
from .xmlns import DC_NS, EXT_PREFIX, IMAGE_NS, NEWS_NS, VIDEO_NS, XHTML_NS

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")

_SPEC_CACHE_MAX = 512  # distinct child tags remembered per parser
_TEXT_KEPT = 2048  # of a <sitemap>'s own text (a URL written without <loc>)


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


def _odd(lines: dict[str, list[int]] | None, name: str, child: Any) -> dict[str, list[int]]:
    """``lines`` (made when None) with ``child``'s line added to ``name``'s (Entry.odd_lines)."""
    if lines is None:
        lines = {}
    lines.setdefault(name, []).append(child.sourceline or 0)
    return lines


# child codes of <url>/<sitemap> (see XmlSitemapParser._classify)
_IANA_ALTERNATE = "http://www.iana.org/assignments/relation/alternate"
_C_SKIP, _C_OTHER, _C_LOC, _C_LASTMOD, _C_CHANGEFREQ, _C_PRIORITY = 0, 1, 2, 3, 4, 5
_C_IMAGE, _C_VIDEO, _C_NEWS, _C_LINK, _C_UNDECLARED = 6, 7, 8, 9, 10


class _EntryReader:
    """Reads the fields of finished entries (<url>, <sitemap>, feed items) into Entry and
    ChildRef; a base of XmlSitemapParser, whose state it uses."""

    # the parser's state it reads and updates (set by XmlSitemapParser.__init__)
    _mode: str
    _core: frozenset[str | None]
    _specs: dict[Any, tuple[int, str]]
    _loc_tags: tuple[str, ...]
    _fspecs: dict[Any, tuple[int, str, str]]
    _undeclared: set[str]
    _undeclared_links: bool
    info: ParseInfo

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

    def _count_hidden(self, child: Any) -> None:
        """An element of no protocol inside an entry that holds a <loc>: the URL in it is not
        read (counted for urls and stats to say)."""
        if next(child.iter(*self._loc_tags), None) is not None:
            self.info.hidden_locs += 1

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
        odd: dict[str, list[int]] | None = None  # (Entry.odd_lines)
        specs = self._specs
        for child in el:
            tag = child.tag
            spec = specs.get(tag)
            if spec is None:
                spec = self._classify(tag, child)
            code, name = spec
            if code == _C_LOC:
                tags.append(name)
                if have_loc:
                    odd = _odd(odd, name, child)
                    self.info.repeated_loc += 1  # (not read: said by urls and stats)
                else:  # repeated core elements: first wins (the checker sees tags)
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
                if lastmod_raw is not None:
                    odd = _odd(odd, name, child)
                else:
                    lastmod_line = child.sourceline
                    text = child.text
                    lastmod_raw = text.strip(_XML_WS) if text else ""
                    lastmod = _W3C_CACHE.get(lastmod_raw, _MISS)
                    if lastmod is _MISS:
                        lastmod = parse_w3c_datetime(lastmod_raw)
            elif code == _C_CHANGEFREQ:
                tags.append(name)
                if changefreq_raw is not None:
                    odd = _odd(odd, name, child)
                else:
                    changefreq_line = child.sourceline
                    text = child.text
                    changefreq_raw = text.strip(_XML_WS) if text else ""
                    changefreq = _CHANGEFREQ_CACHE.get(changefreq_raw, _MISS)
                    if changefreq is _MISS:
                        changefreq = parse_changefreq(changefreq_raw)
            elif code == _C_PRIORITY:
                tags.append(name)
                if priority_raw is not None:
                    odd = _odd(odd, name, child)
                else:
                    priority_line = child.sourceline
                    text = child.text
                    priority_raw = text.strip(_XML_WS) if text else ""
                    priority = _PRIORITY_CACHE.get(priority_raw, _MISS)
                    if priority is _MISS:
                        priority = parse_priority(priority_raw)
            elif code == _C_LINK:
                tags.append(name)
                get = child.get  # (not .attrib.get: that builds an attribute proxy per call)
                alternates.append(
                    _new_alternate(
                        get("rel"),
                        get("hreflang"),
                        get("href"),
                        child.sourceline or 0,
                        get("media"),
                    )
                )
            elif code == _C_IMAGE:
                tags.append(name)
                images.append(_image(child))
            elif code == _C_OTHER:
                tags.append(name)
                odd = _odd(odd, name, child)
                self._count_hidden(child)
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
        entry = _new_entry(loc, el.sourceline or 0, lastmod_raw, lastmod, changefreq_raw, changefreq, priority_raw,
                           priority, images, videos, news, alternates, tags, loc_line, lastmod_line,
                           changefreq_line, priority_line)
        if odd is not None:
            entry.odd_lines = odd
        out.append(entry)

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
                if have_loc:
                    ref.odd_lines = _odd(ref.odd_lines, name, child)
                    self.info.repeated_loc += 1
                else:
                    have_loc = True
                    ref.loc_line = child.sourceline
                    ref.loc = self._loc(child, out)
            elif code == _C_LASTMOD:
                if ref.lastmod_raw is not None:
                    ref.odd_lines = _odd(ref.odd_lines, name, child)
                else:
                    ref.lastmod_line = child.sourceline
                    text = child.text
                    ref.lastmod_raw = text.strip(_XML_WS) if text else ""
                    ref.lastmod = parse_w3c_datetime(ref.lastmod_raw)
            elif code == _C_UNDECLARED:
                self._note_undeclared(tag.split(":", 1)[0], child.sourceline, out)
            else:  # (not a field of an index's <sitemap>: where it is, for its finding)
                ref.odd_lines = _odd(ref.odd_lines, name, child)
                self._count_hidden(child)
        if not have_loc and el.text:
            # <sitemap>https://…</sitemap>: some sites write the URL so (crawler-commons' tests
            # keep one); the finding quotes it, the explorer still follows only a <loc>
            ref.text = el.text.strip(_XML_WS)[:_TEXT_KEPT] or None
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
                    # RFC 4287 §4.2.7.2: the IANA URI form is the same relation
                    if rel == "alternate" or rel == _IANA_ALTERNATE:
                        loc = _atom_href(child)
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


def _atom_href(link: Any) -> str:
    """A link's href, resolved against the xml:base in scope (RFC 4287 §1.2: Atom's relative
    references are), when that base is an absolute http(s) URL; else as written, so that a
    relative href with no such base is still reported as not absolute."""
    href: str = (link.get("href") or "").strip(_XML_WS)
    if not href or _SCHEME.match(href):
        return href
    base = link.base  # libxml2 joins the ancestors' xml:base attributes
    if base and _SCHEME.match(base) and base[:5].lower() in ("http:", "https"):
        # (a malformed base, "http://[bad": the href as written, reported)
        return resolve(base, href)
    return href


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
        if local == "loc":  # nearly always the only child: no getattr/setattr by name
            if img.loc is None:  # first one wins
                text = child.text
                img.loc = text.strip(_XML_WS) if text else ""
                img.loc_line = child.sourceline or 0
        elif getattr(img, local) is None:
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
        if local not in video.fields:
            video.lines[local] = child.sourceline or video.line
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

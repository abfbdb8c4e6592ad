"""What the audit reads from one answer: the robots directives (meta robots and X-Robots-Tag, with
their user-agent scoping), the canonical URL (HTML ``<link>`` or ``Link`` header), and the
indexability verdict. Pure functions of bytes and headers; nothing here fetches.

The HTML is untrusted: lxml's HTML parser (libxml2's, which expands no external entity and reads
no network: ``no_network``) with ``recover``, over a bounded prefix of the body only."""

from __future__ import annotations

import codecs
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

import lxml.html  # type: ignore[import-untyped]
from lxml import etree  # type: ignore[import-untyped]

from sitemap_tui.engine.urlpolicy import normalize, resolve

__all__ = [
    "HTML_TYPES",
    "HeadFacts",
    "Verdict",
    "canonical_of",
    "expired_directive",
    "head_end",
    "head_facts",
    "head_part",
    "html_document",
    "link_canonical",
    "mime_of",
    "noindex_directive",
    "page_key",
    "title_and_h1",
    "verdict",
    "x_robots_directives",
]

HTML_TYPES = ("text/html", "application/xhtml+xml")
# The robots directives that decide indexability: unscoped, or for these crawlers (the same
# agents the deep checks' deep-noindex counts); a directive for another crawler is kept, not judged.
JUDGED_AGENTS = frozenset({"googlebot", "bingbot"})
# Meta names read as a crawler's own robots tag (<meta name="googlebot" content="noindex">).
_AGENT_META = frozenset({
    "googlebot", "googlebot-news", "bingbot", "msnbot", "slurp", "yandex", "applebot",
    "duckduckbot", "gptbot", "claudebot", "ccbot", "perplexitybot",
})
# X-Robots-Tag directives that take a value ("max-snippet: 20"): not a user agent before the colon.
_VALUE_DIRECTIVES = frozenset({
    "max-snippet", "max-image-preview", "max-video-preview", "unavailable_after", "indexifembedded",
})
_AGENT_PREFIX_RE = re.compile(r"\s*([A-Za-z][\w.-]*)\s*:\s*(.*)\Z", re.S)
_LINK_RE = re.compile(r"<([^>]*)>((?:\s*;\s*[^;,<]*)*)")
_PARAM_RE = re.compile(r';\s*([A-Za-z*-]+)\s*(?:=\s*(?:"([^"]*)"|([^;,\s]*)))?')
MAX_DIRECTIVES = 40  # kept per URL: a hostile page cannot grow the row
_SUPERSETS = {  # Python's codec name -> what browsers decode that label as
    "ascii": "cp1252", "iso8859-1": "cp1252", "latin-1": "cp1252", "iso8859-9": "cp1254",
    "shift_jis": "cp932", "gb2312": "gb18030", "gbk": "gb18030", "euc_kr": "cp949",
    "tis-620": "cp874", "iso8859-11": "cp874", "utf-16": "utf-16-le",
}
_CHARSET_RE = re.compile(r";\s*charset\s*=\s*([^;]+)", re.IGNORECASE)


def charset_of(content_type: str | None) -> str | None:
    """The ``charset`` of a Content-Type, when it names an encoding Python knows."""
    m = _CHARSET_RE.search(content_type or "")
    if m is None:
        return None
    name = m.group(1).strip("\"' ")
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        return None
    # a label is read as the encoding browsers read it as (the WHATWG Encoding standard): a
    # Japanese page labelled Shift_JIS uses cp932's characters, a us-ascii one windows-1252's
    # (found from outside: libxml2 told the strict one stopped at the first byte outside it,
    # and the noindex after it went unread)
    return _SUPERSETS.get(codec, codec)


def html_document(body: bytes, base_url: str, charset: str | None = None) -> tuple[etree._Element, str] | None:
    """The parsed document of an untrusted HTML body and the base its relative links resolve
    against (its first ``<base href>``, else ``base_url``); None for an empty or unparsable body.
    The audit and the deep checks both read pages through this one parser set-up.

    ``charset``: the Content-Type's, which comes before the page's own ``<meta charset>`` (the
    HTML standard's order; a byte order mark first): without it libxml2 read a UTF-8 page
    with no meta as Latin-1, and its canonical ``/café`` was another URL, "canonicalised"."""
    if not body or not body.strip():
        return None
    bom = isinstance(body, str) or body.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"))
    doc = None
    if charset is not None and not bom and not (charset.startswith("utf-16") and b"\x00" not in body[:1024]):
        # decoded here, as a browser does (a byte the encoding lacks is U+FFFD, the rest read);
        # libxml2 given the name stopped at the first such byte (a UTF-16 label on a body with
        # no NUL in it is no UTF-16: the page's own say)
        doc = _parsed(body.decode(charset, errors="replace"))
    if doc is None and charset is None and not bom and not _META_CHARSET.search(body[:_META_WINDOW]):
        # no encoding said anywhere: UTF-8 when the bytes are (libxml2 read them as Latin-1, and a
        # UTF-8 page's canonical /café was /cafÃ©, "canonicalised"), as browsers and Google sniff it
        text = _as_utf8(body)
        if text is not None and not text.isascii():
            doc = _parsed(text)
    if doc is None:  # (a document that declares its encoding is parsed from its bytes)
        doc = _parsed(body)
    if doc is None:
        return None
    base = base_url
    for el in doc.iter("base"):
        href = (el.get("href") or "").strip()
        if href:
            base = resolve(base_url, href)
        break
    return doc, base


# a charset declared by a <meta> (charset=..., or http-equiv's content "...; charset=..."), not the
# word in a description (found by a review); anywhere in the head, as a late one still changes
# the encoding (the HTML standard), not only in the prescan's first 1,024 bytes
_META_CHARSET = re.compile(rb"<meta[^>]{0,300}?charset\s*=", re.IGNORECASE)
_META_WINDOW = 1 << 16


def _as_utf8(body: bytes) -> str | None:
    """``body`` read as UTF-8 (a sequence cut at its end, a head read to its byte cap, left
    out); None when it is not UTF-8."""
    try:
        return str(codecs.getincrementaldecoder("utf-8")().decode(body, final=False))
    except UnicodeDecodeError:
        return None


def _parsed(body: bytes | str) -> etree._Element | None:
    try:
        parser = lxml.html.HTMLParser(no_network=True, recover=True, remove_comments=True, remove_pis=True)
        return lxml.html.document_fromstring(body, parser=parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError, TypeError, LookupError):
        return None


def title_and_h1(doc: etree._Element) -> tuple[str | None, str | None]:
    """The page's ``<title>`` and first ``<h1>``, whitespace folded, at most 200 characters."""
    found: list[str | None] = []
    for path in (".//title", ".//h1"):
        el = doc.find(path)
        found.append(None if el is None else " ".join(el.text_content().split())[:200])
    return found[0], found[1]


def mime_of(content_type: str | None) -> str | None:
    if not content_type:
        return None
    return content_type.split(";", 1)[0].strip().lower() or None


def _directives(agent: str | None, text: str) -> list[str]:
    tokens: list[str] = []
    for t in (t.strip().lower() for t in text.split(",")):
        if not t:
            continue
        if tokens and tokens[-1].startswith("unavailable_after") and t[:1].isdigit():
            # an RFC 822 or 850 date's own comma ("Fri, 25 Jun 2010 ..."): not two directives
            tokens[-1] += ", " + t
        else:
            tokens.append(t)
    return [f"{agent}: {t}" if agent else t for t in tokens][:MAX_DIRECTIVES]


def expired_directive(directives: Sequence[str], now: datetime | None = None) -> str | None:
    """An ``unavailable_after`` of the judged crawlers whose date has passed (the page is not
    shown after it, Google's robots meta documentation; RFC 822, RFC 850 or ISO 8601 dates; a
    date without a zone read as UTC), or None. A date that cannot be read is not judged."""
    now = now or datetime.now(UTC)
    for d in directives:
        # "googlebot: unavailable_after: DATE" names its crawler first; a bare one has two ": "s too
        agent, sep, token = ("", "", d) if d.startswith("unavailable_after") else d.partition(": ")
        if sep and agent not in JUDGED_AGENTS:
            continue
        name, colon, value = token.partition(":")
        if name.strip() != "unavailable_after" or not colon:
            continue
        when = _date(value.strip())
        if when is not None and when <= now:
            return d
    return None


def _date(text: str) -> datetime | None:
    when: datetime | None = None
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        try:
            when = datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
        except ValueError:
            return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def x_robots_directives(values: Sequence[str]) -> list[str]:
    """``X-Robots-Tag`` values as directives: ``noindex``, or ``googlebot: noindex`` when the value
    names a user agent first."""
    out: list[str] = []
    for value in values[:20]:
        # a user agent may start any item of the list, and scopes the items after it: repeated
        # headers merged into one (RFC 9110 §5.3, as proxies and CDNs send them) read
        # "otherbot: noarchive, googlebot: noindex" (found from outside: all of it was taken
        # for otherbot's, the Googlebot noindex lost)
        agent: str | None = None
        part: list[str] = []
        for item in value[:1000].split(","):
            m = _AGENT_PREFIX_RE.match(item)
            if m is not None and m.group(1).lower() not in _VALUE_DIRECTIVES:
                out += _directives(agent, ",".join(part))
                agent, part = m.group(1).lower(), [m.group(2)]
            else:
                part.append(item)
        out += _directives(agent, ",".join(part))
    return out[:MAX_DIRECTIVES]


def noindex_directive(directives: Sequence[str]) -> str | None:
    """The directive that makes a URL noindex for the judged crawlers (unscoped, googlebot,
    bingbot; ``none`` counts as noindex), or None."""
    for d in directives:
        agent, sep, token = d.rpartition(": ")
        if sep and agent not in JUDGED_AGENTS:
            continue
        if token in ("noindex", "none"):
            return d
    return None


def link_canonical(values: Sequence[str], base: str) -> str | None:
    """The ``rel=canonical`` target of ``Link`` header values, absolute; None without one."""
    for value in values[:20]:
        for m in _LINK_RE.finditer(value[:16384]):
            for p in _PARAM_RE.finditer(m.group(2)):
                if p.group(1).lower() == "rel":
                    rel = p.group(2) if p.group(2) is not None else (p.group(3) or "")
                    if "canonical" in rel.lower().split():
                        return resolve(base, m.group(1).strip())
    return None


@dataclass(slots=True)
class HeadFacts:
    """What the audit reads from an HTML page's head."""

    robots: list[str] = field(default_factory=list)  # meta robots directives, agent-scoped
    canonical: str | None = None  # absolute; None also when the head names several (see below)
    # the head's different canonicals, when it names more than one (at most MAX_CANONICALS):
    # Google ignores conflicting hints, so none is the page's (the first one won, unsaid)
    conflicting: list[str] = field(default_factory=list)
    refresh: str | None = None  # a <meta http-equiv=refresh>'s target, absolute: a redirect to Google
    # kept for the deep checks, which read a stored audit instead of fetching (validate/deep*.py)
    metas: list[tuple[str, str]] = field(default_factory=list)  # (name, content) of robots metas
    alternates: list[tuple[str, str]] = field(default_factory=list)  # (hreflang lower, href abs)
    title: str | None = None
    h1: str | None = None  # None also when the body past </head> was not read
    # ``<a href>`` targets, absolute, fragment cut, in page order, each once (audit --crawl's)
    links: list[str] = field(default_factory=list)


MAX_LINKS = 5000  # <a href> kept per page: a hostile page cannot grow the crawl's frontier unbounded
MAX_CANONICALS = 5
# "0; url=/next", "5;URL='/next'", "0; /next": the delay, then the target (a refresh without one
# reloads the page); quotes around the target are its own, an apostrophe inside it is not
_REFRESH_RE = re.compile(r"""\s*[\d.]*\s*[;,]\s*(?:url\s*=\s*)?(['"]?)(.+?)\1\s*\Z""", re.I | re.S)


# what may hold a "</head" that is not the head's end: a comment, a script, a style, the title
_HEAD_SCAN = re.compile(rb"<!--.*?(?:-->|\Z)|<script\b.*?(?:</script\s*>|\Z)|<style\b.*?(?:</style\s*>|\Z)"
                        rb"|<title\b.*?(?:</title\s*>|\Z)|</head", re.S | re.I)


def head_end(body: bytes) -> int:
    """Where the head ends: its first ``</head`` outside a comment, script, style or title; -1
    without."""
    for m in _HEAD_SCAN.finditer(body):
        if m.group(0)[:6].lower() == b"</head":
            return m.start()
    return -1


def head_part(body: bytes, base_url: str, doc: etree._Element, charset: str | None = None) -> etree._Element:
    """The part of the page its robots metas and canonical are read from: up to the head's end.
    Google takes rel=canonical from the head only; read from the whole document, one in the
    body counted when the page was read whole (64 KiB or less, with a Content-Length) and not
    when the read stopped at </head> (chunked, or larger). Cut at the bytes rather than at the
    parser's <head>: libxml2 ends a head early on what HTML5 keeps in it (<noscript><img>).
    ``doc``: the whole page's tree, for a page without a head's end (or nothing after it)."""
    if isinstance(body, str):  # (a caller's text rather than the page's bytes)
        body = body.encode("utf-8")
    end = head_end(body)
    if end < 0 or body[end:].strip().lower() in (b"</head>", b"</head></html>"):
        return doc
    head = html_document(body[:end], base_url, charset)
    return head[0] if head is not None else etree.Element("html")


def canonical_of(head: etree._Element, base: str) -> tuple[str | None, list[str]]:
    """The canonical of a page's head (``head_part``), absolute, and the different ones when it
    names several: then none is the page's (Google ignores conflicting hints). One rule for the
    audit and the deep checks, which disagreed on such pages."""
    found: dict[str, str] = {}  # one page's key -> the first href naming it
    for el in head.iter("link"):
        href = (el.get("href") or "").strip()
        if href and "canonical" in (el.get("rel") or "").lower().split() and len(found) < MAX_CANONICALS:
            target = resolve(base, href)
            found.setdefault(page_key(target), target)
    if len(found) == 1:
        return next(iter(found.values())), []
    return None, list(found.values())


def head_facts(body: bytes, base_url: str, *, links: bool = False, charset: str | None = None) -> HeadFacts:
    """Meta robots (``robots`` and crawler-named metas) and ``<link rel=canonical>`` of a page
    prefix, and with ``links`` its ``<a href>`` targets (http/https only); never raises.
    ``charset``: the Content-Type's (:func:`charset_of`)."""
    facts = HeadFacts()
    parsed = html_document(body, base_url, charset)
    if parsed is None:
        return facts
    doc, base = parsed
    head_doc = head_part(body, base_url, doc, charset)
    for el in head_doc.iter("meta"):
        if (el.get("http-equiv") or "").strip().lower() == "refresh" and facts.refresh is None:
            m = _REFRESH_RE.match(el.get("content") or "")
            if m is not None and m.group(2).strip():
                facts.refresh = resolve(base, m.group(2).strip())
        name = (el.get("name") or "").strip().lower()
        if name == "robots" or name in _AGENT_META:
            content = (el.get("content") or "")[:1000]
            facts.robots += _directives(None if name == "robots" else name, content)
            if len(facts.metas) < MAX_DIRECTIVES:
                facts.metas.append((name, content))
    facts.robots = facts.robots[:MAX_DIRECTIVES]
    for el in head_doc.iter("link"):
        rels = (el.get("rel") or "").lower().split()
        href = (el.get("href") or "").strip()
        if href and "alternate" in rels and el.get("hreflang") and len(facts.alternates) < 1000:
            facts.alternates.append((el.get("hreflang", "").strip().lower(), resolve(base, href)))
    facts.canonical, facts.conflicting = canonical_of(head_doc, base)
    facts.title, facts.h1 = title_and_h1(doc)
    if links:
        facts.links = _links(doc, base)
    return facts


def _links(doc: etree._Element, base: str) -> list[str]:
    seen: dict[str, None] = {}
    for el in doc.iter("a"):
        href = (el.get("href") or "").strip()
        if not href or href.startswith("#"):
            continue
        url = resolve(base, href).split("#", 1)[0]
        if url[:7].lower() == "http://" or url[:8].lower() == "https://":
            seen.setdefault(url, None)
            if len(seen) >= MAX_LINKS:
                break
    return list(seen)


@dataclass(frozen=True, slots=True)
class Verdict:
    indexable: bool
    reason: str  # "indexable" or "non-indexable: ..."


INDEXABLE = Verdict(True, "indexable")


def _no(why: str) -> Verdict:
    return Verdict(False, f"non-indexable: {why}")


def verdict(
    *,
    status: int | None,
    error: str | None,
    timed_out: bool,
    redirects: int,
    redirect_problem: str | None,
    final_url: str,
    content_type: str | None,
    robots: Sequence[str],
    canonical: str | None,
    blocked: bool,
    refresh: str | None = None,
) -> Verdict:
    """Indexability, first reason wins: robots.txt, no answer, redirect, error status, not HTML,
    noindex, canonical elsewhere. ``blocked``: robots.txt disallows the URL for the audit's agent
    or Googlebot (a crawler that may not fetch it never sees the page)."""
    if blocked:
        return _no("blocked by robots.txt")
    if redirects or redirect_problem:
        return _no(f"redirect ({redirect_problem})" if redirect_problem else f"redirect to {final_url}")
    if status is None:
        return _no("timeout" if timed_out else f"no response ({error or 'unknown'})")
    if status != 200:
        return _no(str(status))
    mime = mime_of(content_type)
    if mime is not None and mime not in HTML_TYPES:
        # an X-Robots-Tag noindex of a PDF or an image is what keeps it out of the index (Google
        # indexes PDFs): said, where "not HTML" hid it (found from outside)
        directive = noindex_directive(robots)
        if directive is not None:
            return _no(f"noindex ({directive})")
        directive = expired_directive(robots)
        if directive is not None:
            return _no(f"noindex ({directive}: the date has passed)")
        return _no(f"not HTML ({mime})")
    if refresh and urlsplit(refresh).scheme.lower() in ("http", "https") and page_key(refresh) != page_key(final_url):
        # Google reads a meta refresh as a redirect (instant: permanent, delayed: temporary)
        return _no(f"redirect (meta refresh to {refresh})")
    directive = noindex_directive(robots)
    if directive is not None:
        return _no(f"noindex ({directive})")
    directive = expired_directive(robots)
    if directive is not None:
        return _no(f"noindex ({directive}: the date has passed)")  # (the noindex group: the same effect)
    if canonical and page_key(canonical) != page_key(final_url):
        return _no(f"canonicalised to {canonical}")
    return INDEXABLE


_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def page_key(url: str) -> str:
    """One page's URL in one form for a canonical's comparison: normalize()'s, and an escaped
    unreserved character as itself (``%7E`` is ``~``, RFC 3986 §6.2.2.2). normalize() keeps
    them apart, as servers may; a page whose canonical wrote its ``~`` as ``%7E`` was
    "canonicalised to" itself."""
    key = normalize(url)
    if "%" not in key:
        return key

    def plain(m: re.Match[str]) -> str:
        ch = chr(int(m.group(1), 16))
        return ch if ch in _UNRESERVED else m.group(0)

    return _ESCAPE.sub(plain, key)

"""The attack corpus of issue 5, generated at test time (nothing large is committed).

``build(root, canary, tripwire)`` writes every case's files under ``root`` (served by
:class:`tests.hostile.fault_server.FaultServer`) and returns the :class:`Case` list; cases whose
body needs special headers or is too large for a file (200 MB streams, Content-Encoding bombs)
carry :class:`Route` objects that :func:`install` adds to the server.

Each case names what the tool must make of it (:class:`Expect`). Conventions:

* every case lives under ``/c/<name>/``; its target is ``Case.target``;
* URLs under ``/_forbidden/<name>/`` must never be requested (external DTDs, XInclude targets,
  stylesheets, schemas, robots lines past the read limit): the tests assert the server log;
* ``canary`` is a local file with a unique token: it must never appear in any output, store or
  screen; ``tripwire`` is a FIFO: opening it for reading blocks forever, so any attempt to read
  it (XXE, ``file:`` children) turns into a timeout the tests catch.
"""

from __future__ import annotations

import gzip
import random
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .fault_server import BROTLI_BOMB_B64, StreamSpec, zero_deflate_blocks, zlib_zeros

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMG = "http://www.google.com/schemas/sitemap-image/1.1"
VID = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML = "http://www.w3.org/1999/xhtml"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'
GIB = 1 << 30
# What a bomb expands to: a comment per 64 KiB, so neither the 10 MB text-node limit nor an
# entry cap stops the parser first: only the 50 MiB decoded-size cap can.
FILLER = b"<!-- " + b"x" * (65536 - 10) + b" -->\n"
MB200 = 200 * 1000 * 1000

CATEGORIES = ("xml", "compression", "encoding", "graph", "values", "display")
# cases run through `validate` too, besides the values and display ones: the checker's XSD and
# per-entry rules see them (schemaLocation must not be fetched, caps must hold, no int() blowups)
VALIDATE_ALSO = frozenset({
    "billion-laughs-text", "xxe-local-file", "xxe-parameter", "external-dtd", "xinclude",
    "xml-stylesheet", "schema-location", "huge-single-line", "flood-inside-entry",
    "gzip-100mb-sitemap", "gzip-bomb-xml", "utf16-bom", "latin1-declared", "wrong-namespace",
    "mixed-urlset-index", "mixed-index-urlset", "self-index", "fanout-1000-fetched", "fanout-50001",
    "scheme-children", "robots-escapes", "robots-10mb",
})


@dataclass
class Route:
    """A body served by the fault server itself (special headers or a generated stream)."""

    path: str
    body: bytes | StreamSpec | Callable[[], bytes]  # a plain callable is generated lazily
    headers: tuple[tuple[str, str], ...] = (("Content-Type", "application/xml"),)
    template: bool = True


@dataclass
class Expect:
    """What the tool must make of a case (all checks are on the case's own node or subtree)."""

    states: tuple[str, ...] = ("done",)  # allowed states of the target node
    rules: tuple[str, ...] = ()  # each must be among the issues stored for the subtree
    any_rules: tuple[str, ...] = ()  # at least one of these must be stored
    error: tuple[str, ...] = ()  # node error must contain one of these (case-insensitive)
    urls: int | None = None  # exact number of entries parsed (stats: sum over the subtree)
    min_urls: int | None = None
    lines: int | None = None  # exact number of lines printed by `urls` (entries with a <loc>)
    literal: tuple[str, ...] = ()  # must appear verbatim in `urls` output (escapes visible)
    issue_text: tuple[str, ...] = ()  # one stored issue message must contain one of these
    child_states: dict[str, tuple[str, ...]] = field(default_factory=dict)  # url suffix -> states
    child_error: dict[str, str] = field(default_factory=dict)  # url suffix -> error substring
    max_requests: dict[str, int] = field(default_factory=dict)  # path prefix -> max requests
    nodes: int | None = None  # exact node count in the tree
    check: Callable[..., None] | None = None  # extra assertion on the CaseRun
    validate_rules: tuple[str, ...] = ()  # must be in the `validate --format json` report
    validate_not: tuple[str, ...] = ()  # must not be


@dataclass
class Case:
    name: str
    category: str
    target: str  # path of the URL to explore
    expect: Expect
    # path (under root) -> bytes, or a callable generating them (only when written)
    files: dict[str, bytes | Callable[[], bytes]] = field(default_factory=dict)
    routes: list[Route] = field(default_factory=list)
    args: tuple[str, ...] = ()  # extra CLI arguments
    urls_output: bool = False  # also run `urls` (txt and jsonl) and `stats` text
    in_index: bool = True  # part of the one big index of test_all_cases_in_one_index
    display: bool = False  # opened in the TUI by test_tui_attacks
    heavy: bool = False  # large generated body (CPU-bound)
    validate: bool | None = None  # also run `validate` (None: by category, see wants_validate)

    @property
    def wants_validate(self) -> bool:
        """The checker reads values, extension fields and schemas: run it where that matters."""
        if self.validate is not None:
            return self.validate
        return self.category in ("values", "display") or self.name in VALIDATE_ALSO

    @property
    def forbidden(self) -> str:
        return f"/_forbidden/{self.name}/"


# -- small builders ------------------------------------------------------------------------------
def url_el(loc: str, extra: str = "") -> str:
    return f"<url><loc>{loc}</loc>{extra}</url>\n"


def urlset(*items: str, ns: str = f'xmlns="{SM}"', decl: str = DECL, prolog: str = "") -> bytes:
    return f"{decl}{prolog}<urlset {ns}>\n{''.join(items)}</urlset>\n".encode()


def index(*locs: str, prolog: str = "") -> bytes:
    body = "".join(f"<sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs)
    return f'{DECL}{prolog}<sitemapindex xmlns="{SM}">\n{body}</sitemapindex>\n'.encode()


def laughs(n: int = 10) -> str:
    ents = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">' for i in range(1, n)
    ]
    return "\n".join(ents)


def fill_gzip(prefix: bytes, filler: bytes, total: int, suffix: bytes = b"") -> bytes:
    """gzip of prefix + filler * (total // len(filler)) + suffix, built from repeated deflate
    blocks (a few hundred ms for a GiB instead of seconds)."""
    block_size = len(filler) * max(1, (1 << 24) // len(filler))
    block = filler * (block_size // len(filler))
    n = total // block_size
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = c.compress(prefix) + c.flush(zlib.Z_FULL_FLUSH)
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    one = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    tail = c.compress(suffix) + c.flush(zlib.Z_FINISH)
    crc = zlib.crc32(prefix)
    for _ in range(n):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(suffix, crc)
    size = len(prefix) + n * block_size + len(suffix)
    hdr = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return hdr + head + one * n + tail + struct.pack("<II", crc, size & 0xFFFFFFFF)


def zlib_fill(prefix: bytes, filler: bytes, total: int) -> bytes:
    """zlib stream (Content-Encoding: deflate) of prefix + filler..., like fill_gzip."""
    block_size = len(filler) * max(1, (1 << 24) // len(filler))
    block = filler * (block_size // len(filler))
    n = total // block_size
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = c.compress(prefix) + c.flush(zlib.Z_FULL_FLUSH)
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    one = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    adler = zlib.adler32(prefix)
    for _ in range(n):
        adler = zlib.adler32(block, adler)
    return b"\x78\xda" + head + one * n + b"\x03\x00" + struct.pack(">I", adler)


def gzip_of_zeros(total: int) -> bytes:
    one, n = zero_deflate_blocks(total)
    zeros = bytes(1 << 24)
    crc = 0
    for _ in range(n):
        crc = zlib.crc32(zeros, crc)
    hdr = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return hdr + one * n + b"\x03\x00" + struct.pack("<II", crc, total & 0xFFFFFFFF)


def brotli_bomb() -> bytes:
    import base64

    return base64.b64decode(BROTLI_BOMB_B64)


# Markup and escape payloads (SECURITY.md T14-T16).
MARKUP = ("[@click=app.quit]x[/]", "[link=file:///etc/passwd]y[/link]", "[/]", "[bold red]z",
          "[@click=app.screenshot('x.svg','DIR')]s[/]")
ESC_PAYLOADS = {
    "osc52": "\x1b]52;c;ZXZpbA==\x07",  # clipboard write
    "osc8": "\x1b]8;;file:///etc/passwd\x1b\\click\x1b]8;;\x1b\\",  # hyperlink
    "clear": "\x1b[2J\x1b[H",  # clear screen
    "title": "\x1b]0;pwned\x07",  # window title
    "bel-bs": "\x07\x08\x0b\x0c\r",
}
UNICODE_TRICKS = {
    "c1-csi": "\u009b2J",
    "c1-osc": "\u009d52;c;ZXZpbA==\u009c",
    "rlo": "\u202egnp.exe",
    "zwsp": "pay\u200bpal",
    "lri": "\u2066x\u2069",
    "bom": "\ufeffbom",
    "tag": "\U000e0041tag",
}
URL_SHOWN = {  # how `urls` writes them: percent-encoded, as a browser sends them (sanitize.url_text)
    "osc52": "%1B]52;c;ZXZpbA==%07",
    "clear": "%1B[2J%1B[H",
    "c1-csi": "%C2%9B2J",
    "rlo": "%E2%80%AEgnp.exe",
    "zwsp": "pay%E2%80%8Bpal",
}


def build(root: Path, canary: Path, tripwire: Path, *, write: bool = True) -> list[Case]:
    """Write every case under ``root`` (unless ``write`` is false); return them."""
    cases: list[Case] = []
    B = "{{BASE}}"
    can = canary.resolve().as_uri()
    trip = tripwire.resolve().as_uri()

    def add(case: Case) -> None:
        if write:
            for rel, data in case.files.items():
                p = root / rel.lstrip("/")
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_bytes(data() if callable(data) else data)
        cases.append(case)

    def c(name: str) -> str:
        return f"/c/{name}"

    ok_items = [url_el(f"{B}/page-{i}") for i in range(3)]

    # ---------------------------------------------------------------- XML
    n = "billion-laughs-text"
    add(Case(n, "xml", c(n) + "/s.xml", Expect(states=("failed",), rules=("xml-dtd-forbidden",), error=("doctype",), urls=0),
             files={c(n) + "/s.xml": urlset(url_el(f"{B}/&lol9;"), prolog=f"<!DOCTYPE urlset [\n{laughs()}\n]>\n")}))
    n = "billion-laughs-attr"
    add(Case(n, "xml", c(n) + "/s.xml", Expect(states=("failed",), rules=("xml-dtd-forbidden",), error=("doctype",), urls=0),
             files={c(n) + "/s.xml": urlset(
                 url_el(f"{B}/a", '<xhtml:link rel="alternate" hreflang="en" href="&lol9;"/>'),
                 ns=f'xmlns="{SM}" xmlns:xhtml="{XHTML}"', prolog=f"<!DOCTYPE urlset [\n{laughs()}\n]>\n")}))
    n = "quadratic-blowup"
    big = "a" * 50_000
    add(Case(n, "xml", c(n) + "/s.xml", Expect(states=("failed",), rules=("xml-dtd-forbidden",), error=("doctype",), urls=0),
             files={c(n) + "/s.xml": urlset(url_el(f"{B}/" + "&a;" * 20_000),
                                           prolog=f'<!DOCTYPE urlset [<!ENTITY a "{big}">]>\n')}))
    n = "xxe-local-file"
    add(Case(n, "xml", c(n) + "/s.xml", Expect(states=("failed",), rules=("xml-dtd-forbidden",), error=("doctype",), urls=0),
             files={c(n) + "/s.xml": urlset(url_el(f"{B}/x?&xxe;"), url_el("&xxe;"),
                                           prolog=f'<!DOCTYPE urlset [<!ENTITY xxe SYSTEM "{can}">]>\n')}))
    n = "xxe-tripwire"
    add(Case(n, "xml", c(n) + "/s.xml", Expect(states=("failed",), rules=("xml-dtd-forbidden",), error=("doctype",), urls=0),
             files={c(n) + "/s.xml": urlset(url_el("&xxe;"),
                                           prolog=f'<!DOCTYPE urlset [<!ENTITY xxe SYSTEM "{trip}">]>\n')}))
    n = "xxe-relative"
    add(Case(n, "xml", c(n) + "/s.xml", Expect(states=("failed",), rules=("xml-dtd-forbidden",), error=("doctype",), urls=0),
             files={c(n) + "/s.xml": urlset(url_el("&xxe;"),
                                           prolog='<!DOCTYPE urlset [<!ENTITY xxe SYSTEM "canary.txt">]>\n'),
                    c(n) + "/canary.txt": canary.read_bytes() if write else b""}))
    n = "xxe-parameter"
    pe = (f'<!DOCTYPE urlset [\n<!ENTITY % file SYSTEM "{can}">\n'
          f'<!ENTITY % dtd SYSTEM "{B}/_forbidden/{n}/evil.dtd">\n%dtd;\n]>\n')
    add(Case(n, "xml", c(n) + "/s.xml", Expect(states=("failed",), rules=("xml-dtd-forbidden",), error=("doctype",), urls=0),
             files={c(n) + "/s.xml": urlset(url_el("&send;"), prolog=pe)}))
    n = "xxe-utf16"
    doc = urlset(url_el("&xxe;"), decl='<?xml version="1.0" encoding="UTF-16"?>\n',
                 prolog=f'<!DOCTYPE urlset [<!ENTITY xxe SYSTEM "{can}">]>\n').decode()
    add(Case(n, "xml", c(n) + "/s.xml", Expect(states=("failed",), rules=("xml-dtd-forbidden",), error=("doctype",), urls=0),
             files={c(n) + "/s.xml": b"\xff\xfe" + doc.encode("utf-16-le")}))
    n = "external-dtd"
    add(Case(n, "xml", c(n) + "/s.xml", Expect(states=("failed",), rules=("xml-dtd-forbidden",), error=("doctype",), urls=0),
             files={c(n) + "/s.xml": urlset(*ok_items, prolog=f'<!DOCTYPE urlset SYSTEM "{B}/_forbidden/{n}/evil.dtd">\n')}))
    n = "external-dtd-after-comment"
    add(Case(n, "xml", c(n) + "/s.xml", Expect(states=("failed",), rules=("xml-dtd-forbidden",), error=("doctype",), urls=0),
             files={c(n) + "/s.xml": urlset(*ok_items, prolog=(
                 f'<!-- <!DOCTYPE x> --><?pi x?>\n<!DOCTYPE urlset PUBLIC "-//X//DTD X//EN" "{B}/_forbidden/{n}/evil.dtd">\n'))}))
    n = "xinclude"
    xi = (f'<url><loc><xi:include href="{can}" parse="text"/></loc></url>\n'
          f'<url><loc><xi:include href="{B}/_forbidden/{n}/x.xml"/></loc></url>\n')
    add(Case(n, "xml", c(n) + "/s.xml",
             # the two <loc>s holding only markup have no URL: findings, not URLs
             Expect(rules=("core-unknown-element",), urls=3, lines=3, literal=("/page-0",)),
             files={c(n) + "/s.xml": urlset(xi, *ok_items, ns=f'xmlns="{SM}" xmlns:xi="http://www.w3.org/2001/XInclude"')},
             urls_output=True))
    n = "xml-stylesheet"
    add(Case(n, "xml", c(n) + "/s.xml", Expect(urls=3),
             files={c(n) + "/s.xml": urlset(*ok_items, prolog=f'<?xml-stylesheet type="text/xsl" href="{B}/_forbidden/{n}/evil.xsl"?>\n')}))
    n = "schema-location"
    add(Case(n, "xml", c(n) + "/s.xml", Expect(urls=3, validate_rules=("xsd-schema-location-odd",)),
             files={c(n) + "/s.xml": urlset(*ok_items, ns=(
                 f'xmlns="{SM}" xmlns:xsi="{XSI}" xsi:schemaLocation="{SM} {B}/_forbidden/{n}/evil.xsd"'))}))
    n = "deep-nesting"
    deep = "<x>" * 100_000 + "</x>" * 100_000
    add(Case(n, "xml", c(n) + "/s.xml",
             Expect(states=("done", "failed"), rules=("xml-not-well-formed",), issue_text=("depth",), urls=1),
             files={c(n) + "/s.xml": urlset(url_el(f"{B}/before"), deep)}))
    n = "huge-text-node"
    add(Case(n, "xml", c(n) + "/s.xml",
             Expect(states=("done", "failed"), any_rules=("size-over-limit", "xml-not-well-formed"),
                    issue_text=("text node", "after decompression"), urls=1),
             routes=[Route(c(n) + "/s.xml", StreamSpec(
                 f'{DECL}<urlset xmlns="{SM}"><url><loc>{B}/before</loc></url><url><loc>{B}/'.encode(),
                 b"a", MB200, b"</loc></url></urlset>\n"))],
             heavy=True))
    n = "huge-single-line"
    add(Case(n, "xml", c(n) + "/s.xml",
             Expect(rules=("url-count-over-limit",), urls=50_000),
             routes=[Route(c(n) + "/s.xml", StreamSpec(
                 f'{DECL}<urlset xmlns="{SM}">'.encode(),
                 b"<url><loc>https://example.com/p</loc></url>", MB200, b"</urlset>"))],
             heavy=True))
    n = "huge-text-line"
    add(Case(n, "xml", c(n) + "/s.txt",
             Expect(states=("done", "failed"), rules=("text-line-not-url",), any_rules=("size-over-limit",), urls=1),
             routes=[Route(c(n) + "/s.txt", StreamSpec(f"{B}/first\n{B}/".encode(), b"a", MB200),
                           headers=(("Content-Type", "text/plain"),))],
             heavy=True))

    # Element floods (found while writing this suite): millions of tiny elements cost memory
    # per element (tree nodes, tags, issues) and time (sweeping), unless the parser bounds them.
    head = f'{DECL}<urlset xmlns="{SM}" xmlns:f="urn:x"><url><loc>https://example.com/before</loc></url>\n'.encode()
    n = "flood-unknown-core"  # one issue per element would be millions of issues
    add(Case(n, "xml", c(n) + "/s.xml.gz", Expect(states=("done", "failed"), min_urls=1),
             files={c(n) + "/s.xml.gz": lambda: fill_gzip(head, b"<x/>" * 16, 60_000_000, b"</urlset>")}, heavy=True))
    n = "flood-foreign-ns"
    add(Case(n, "xml", c(n) + "/s.xml.gz", Expect(states=("done", "failed"), min_urls=1),
             files={c(n) + "/s.xml.gz": lambda: fill_gzip(head, b"<f:a/>" * 16, 60_000_000, b"</urlset>")}, heavy=True))
    n = "flood-inside-entry"  # one <url> with millions of children
    add(Case(n, "xml", c(n) + "/s.xml.gz", Expect(states=("done", "failed"), min_urls=1),
             files={c(n) + "/s.xml.gz": lambda: fill_gzip(head + b"<url><loc>https://example.com/wide</loc>",
                                                  b"<a/><f:b/>" * 16, 60_000_000, b"</url></urlset>")},
             heavy=True))

    # ---------------------------------------------------------------- compression
    n = "gzip-bomb-zeros"
    add(Case(n, "compression", c(n) + "/s.xml.gz",
             Expect(states=("failed",), any_rules=("root-unknown", "size-over-limit"), urls=0),
             files={c(n) + "/s.xml.gz": lambda: gzip_of_zeros(GIB)}, heavy=True))
    n = "gzip-bomb-double"  # 1 GiB behind two gzip layers: ~1,000,000:1, one read expands it all
    add(Case(n, "compression", c(n) + "/s.xml.gz",
             Expect(states=("failed",), any_rules=("root-unknown", "size-over-limit"), urls=0),
             files={c(n) + "/s.xml.gz": lambda: gzip.compress(gzip_of_zeros(GIB), 9, mtime=0)}, heavy=True))
    n = "gzip-bomb-double-xml"
    add(Case(n, "compression", c(n) + "/s.xml.gz",
             Expect(states=("done", "failed"), rules=("size-over-limit",), urls=1),
             files={c(n) + "/s.xml.gz": lambda: gzip.compress(fill_gzip(
                 f'{DECL}<urlset xmlns="{SM}"><url><loc>https://example.com/bomb</loc></url>'.encode(), FILLER, GIB),
                 9, mtime=0)},
             heavy=True))
    n = "gzip-bomb-xml"
    add(Case(n, "compression", c(n) + "/s.xml.gz",
             Expect(states=("done", "failed"), rules=("size-over-limit",), urls=1),
             files={c(n) + "/s.xml.gz": lambda: fill_gzip(
                 f'{DECL}<urlset xmlns="{SM}"><url><loc>https://example.com/bomb</loc></url>'.encode(), FILLER, GIB)},
             heavy=True))
    n = "gzip-100mb-sitemap"
    add(Case(n, "compression", c(n) + "/s.xml.gz",
             Expect(rules=("url-count-over-limit",), urls=50_000),
             files={c(n) + "/s.xml.gz": lambda: fill_gzip(
                 f'{DECL}<urlset xmlns="{SM}">\n'.encode(),
                 b"<url><loc>https://example.com/products/item</loc><lastmod>2024-01-01</lastmod></url>\n",
                 100_000_000, b"</urlset>\n")},
             heavy=True))
    plain = urlset(*(url_el(f"https://example.com/g/{i}") for i in range(100)))
    n = "gzip-truncated"
    gz = gzip.compress(plain, mtime=0)
    add(Case(n, "compression", c(n) + "/s.xml.gz",
             Expect(states=("done", "failed"), rules=("gzip-corrupt",), error=("truncated",)),
             files={c(n) + "/s.xml.gz": gz[: len(gz) // 2]}))
    n = "gzip-trailing-garbage"
    add(Case(n, "compression", c(n) + "/s.xml.gz",
             Expect(states=("done", "failed"), rules=("gzip-corrupt",), error=("trailing garbage",), urls=100),
             files={c(n) + "/s.xml.gz": gz + b"GARBAGE-AFTER-THE-MEMBER" * 10}))
    n = "gzip-concatenated"
    half = len(plain) // 2
    add(Case(n, "compression", c(n) + "/s.xml.gz", Expect(urls=100),
             files={c(n) + "/s.xml.gz": gzip.compress(plain[:half], mtime=0) + gzip.compress(plain[half:], mtime=0)}))
    n = "gzip-double"
    add(Case(n, "compression", c(n) + "/s.xml.gz", Expect(urls=100),
             files={c(n) + "/s.xml.gz": gzip.compress(gzip.compress(plain, mtime=0), mtime=0)}))
    n = "gzip-triple"
    add(Case(n, "compression", c(n) + "/s.xml.gz",
             Expect(states=("failed",), rules=("compression-not-gzip",), urls=0),
             files={c(n) + "/s.xml.gz": gzip.compress(gzip.compress(gzip.compress(plain, mtime=0), mtime=0), mtime=0)}))
    n = "deflate-bomb"
    add(Case(n, "compression", c(n) + "/s.xml",
             Expect(states=("done", "failed"), rules=("size-over-limit",), urls=1),
             routes=[Route(c(n) + "/s.xml", lambda: zlib_fill(
                 f'{DECL}<urlset xmlns="{SM}"><url><loc>https://example.com/bomb</loc></url>'.encode(), FILLER, GIB),
                 headers=(("Content-Type", "application/xml"), ("Content-Encoding", "deflate")), template=False)],
             heavy=True))
    n = "deflate-bomb-zeros"
    add(Case(n, "compression", c(n) + "/s.xml",
             Expect(states=("failed",), any_rules=("root-unknown", "size-over-limit"), urls=0),
             routes=[Route(c(n) + "/s.xml", lambda: zlib_zeros(GIB),
                           headers=(("Content-Type", "application/xml"), ("Content-Encoding", "deflate")), template=False)],
             heavy=True))
    n = "brotli-bomb"
    add(Case(n, "compression", c(n) + "/s.xml",
             Expect(states=("failed",), rules=("compression-not-gzip",), error=("br",), urls=0),
             routes=[Route(c(n) + "/s.xml", brotli_bomb(),
                           headers=(("Content-Type", "application/xml"), ("Content-Encoding", "br")), template=False)]))

    # ---------------------------------------------------------------- encodings and formats
    n = "invalid-utf8"
    add(Case(n, "encoding", c(n) + "/s.xml",
             Expect(states=("done", "failed"), rules=("encoding-not-utf8",), urls=1),
             files={c(n) + "/s.xml": urlset(url_el(f"{B}/ok")) .replace(b"</urlset>", b"<url><loc>\xff\xfe\xc3(</loc></url></urlset>")}))
    utf16 = urlset(url_el(f"{B}/caf\u00e9"), url_el(f"{B}/\u65e5\u672c"), decl='<?xml version="1.0" encoding="UTF-16"?>\n').decode()
    n = "utf16-bom"
    add(Case(n, "encoding", c(n) + "/s.xml", Expect(urls=2, literal=("/caf\u00e9", "/\u65e5\u672c")),
             files={c(n) + "/s.xml": b"\xff\xfe" + utf16.replace(B, "http://127.0.0.1").encode("utf-16-le")},
             urls_output=True))
    n = "utf8-bom"
    add(Case(n, "encoding", c(n) + "/s.xml", Expect(urls=3, rules=("encoding-bom",)),
             files={c(n) + "/s.xml": b"\xef\xbb\xbf" + urlset(*ok_items)}))
    n = "latin1-declared"
    add(Case(n, "encoding", c(n) + "/s.xml", Expect(urls=1, literal=("/caf\u00e9-\u00fc",)),
             files={c(n) + "/s.xml": urlset(url_el(f"{B}/caf\u00e9-\u00fc"),
                                           decl='<?xml version="1.0" encoding="ISO-8859-1"?>\n').decode().encode("latin-1")},
             urls_output=True))
    n = "lying-charset"
    add(Case(n, "encoding", "/lying-charset", Expect(urls=1, literal=("/caf\u00e9",)), urls_output=True))
    n = "html-body"
    add(Case(n, "encoding", c(n) + "/s.xml",
             Expect(states=("failed",), rules=("file-is-html",), error=("html",), urls=0),
             files={c(n) + "/s.xml": b"<!DOCTYPE html>\n<html><body><a href='/x'>x</a></body></html>\n"}))
    n = "html-root"
    add(Case(n, "encoding", c(n) + "/s.xml",
             Expect(states=("failed",), rules=("file-is-html",), error=("html",), urls=0),
             files={c(n) + "/s.xml": b"<html><head><title>x</title></head></html>\n"}))
    n = "json-body"
    add(Case(n, "encoding", c(n) + "/s.xml",
             Expect(states=("failed",), error=("json",), urls=0),
             files={c(n) + "/s.xml": b'{"urls": ["https://example.com/a"]}\n'}))
    n = "empty-body"
    add(Case(n, "encoding", c(n) + "/s.xml", Expect(states=("failed",), rules=("root-unknown",), error=("empty",), urls=0),
             files={c(n) + "/s.xml": b""}))
    n = "whitespace-body"
    add(Case(n, "encoding", c(n) + "/s.xml", Expect(states=("failed",), rules=("root-unknown",), urls=0),
             files={c(n) + "/s.xml": b"   \n\t\n\r\n   "}))
    n = "wrong-namespace"
    add(Case(n, "encoding", c(n) + "/s.xml",
             Expect(rules=("namespace-wrong",), urls=3),
             files={c(n) + "/s.xml": urlset(*ok_items, ns='xmlns="http://www.google.com/schemas/sitemap/0.84"')}))
    n = "missing-namespace"
    add(Case(n, "encoding", c(n) + "/s.xml",
             Expect(rules=("namespace-missing",), urls=3),
             files={c(n) + "/s.xml": urlset(*ok_items, ns="")}))
    n = "mixed-urlset-index"
    add(Case(n, "encoding", c(n) + "/s.xml",
             Expect(urls=3, any_rules=("core-unknown-element",)),
             files={c(n) + "/s.xml": urlset(*ok_items, f"<sitemap><loc>{B}/_forbidden/{n}/child.xml</loc></sitemap>\n")}))
    n = "mixed-index-urlset"
    add(Case(n, "encoding", c(n) + "/s.xml",
             Expect(urls=0, rules=("index-wrong-children",), validate_rules=("index-wrong-children",),
                    child_states={"/leaf.xml": ("done",)}),
             files={c(n) + "/s.xml": f'{DECL}<sitemapindex xmlns="{SM}"><url><loc>{B}/_forbidden/{n}/u</loc></url>'
                                     f"<sitemap><loc>{B}/c/{n}/leaf.xml</loc></sitemap></sitemapindex>".encode(),
                    c(n) + "/leaf.xml": index()}))

    # ---------------------------------------------------------------- graph
    leaf = urlset(url_el(f"{B}/leaf-page"))
    n = "self-index"
    add(Case(n, "graph", c(n) + "/i.xml",
             Expect(rules=("index-cycle",), nodes=2, child_states={"/i.xml": ("skipped",)}, child_error={"/i.xml": "cycle"},
                    max_requests={c(n): 1}),
             files={c(n) + "/i.xml": index(f"{B}{c(n)}/i.xml")}))
    n = "mutual-index"
    add(Case(n, "graph", c(n) + "/a.xml",
             Expect(rules=("index-cycle",), nodes=4, child_states={"/leaf.xml": ("done",)}, max_requests={c(n): 3}),
             files={c(n) + "/a.xml": index(f"{B}{c(n)}/b.xml"),
                    c(n) + "/b.xml": index(f"{B}{c(n)}/a.xml", f"{B}{c(n)}/leaf.xml"),
                    c(n) + "/leaf.xml": leaf}))
    n = "chain-50"
    files = {f"{c(n)}/{i}.xml": index(f"{B}{c(n)}/{i + 1}.xml") for i in range(50)}
    files[f"{c(n)}/50.xml"] = leaf
    add(Case(n, "graph", c(n) + "/0.xml",
             Expect(child_error={"/11.xml": "depth limit"}, max_requests={c(n): 11}),
             files=files))
    n = "fanout-1000"
    add(Case(n, "graph", c(n) + "/i.xml",
             Expect(nodes=1001, max_requests={c(n) + "/leaf.xml": 0}, child_error={"?i=999": "another host"}),
             files={c(n) + "/i.xml": index(*(f"http://localhost:1/c/{n}/leaf.xml?i={i}" for i in range(1000)))}))
    n = "fanout-1000-fetched"
    add(Case(n, "graph", c(n) + "/i.xml",
             Expect(nodes=1001, urls=1000, max_requests={c(n) + "/leaf.xml": 1000},
                    validate_not=("index-sitemap-loc-missing", "index-loc-invalid")),
             files={c(n) + "/i.xml": index(*(f"{B}{c(n)}/leaf.xml?i={i}" for i in range(1000))),
                    c(n) + "/leaf.xml": leaf},
             in_index=False, heavy=True))
    n = "fanout-50001"
    add(Case(n, "graph", c(n) + "/i.xml",
             Expect(rules=("index-too-many-sitemaps",), nodes=50_001, max_requests={c(n): 1}),
             files={c(n) + "/i.xml": index(*(f"{B}{c(n)}/leaf.xml?i={i}" for i in range(50_001)))},
             args=("--no-recursive",), in_index=False, heavy=True))
    n = "cross-host-children"
    add(Case(n, "graph", c(n) + "/i.xml",
             Expect(child_error={"localhost:": "another host", "elsewhere.invalid": "another host"},
                    child_states={"/leaf.xml": ("done",)}),
             files={c(n) + "/i.xml": index("http://localhost:{{PORT}}" + f"/_forbidden/{n}/x.xml",
                                           f"https://elsewhere.invalid/_forbidden/{n}/y.xml", f"{B}{c(n)}/leaf.xml"),
                    c(n) + "/leaf.xml": leaf}))
    n = "scheme-children"
    add(Case(n, "graph", c(n) + "/i.xml",
             Expect(child_states={"canary.txt": ("skipped",), "tripwire": ("skipped",), "alert(1)": ("skipped",),
                                  "/y.xml": ("skipped",), "%3Cx/%3E": ("skipped",), "/leaf.xml": ("done",)},
                    child_error={"canary.txt": "not fetched", "alert(1)": "not fetched"}),
             files={c(n) + "/i.xml": index(can, trip, "javascript:alert(1)", "ftp://127.0.0.1/y.xml",
                                           "data:text/xml,%3Cx/%3E", f"{B}{c(n)}/leaf.xml"),
                    c(n) + "/leaf.xml": leaf}))
    n = "robots-10k-lines"
    lines = "".join(f"Sitemap: l.xml?{i}\n" for i in range(10_000))  # relative: resolved
    add(Case(n, "graph", c(n) + "/robots.txt",
             Expect(nodes=10_001, max_requests={c(n) + "/l.xml": 19}),
             files={c(n) + "/robots.txt": ("User-agent: *\nDisallow: /private\n" + lines).encode(),
                    c(n) + "/l.xml": leaf},
             args=("--max-files", "20"), in_index=False))
    n = "robots-10mb"
    filler = "".join(f"Disallow: /private/{i:08d}/\n" for i in range(400_000))  # ~10 MB
    add(Case(n, "graph", c(n) + "/robots.txt",
             Expect(nodes=2, child_states={"/first.xml": ("done",)}),
             files={c(n) + "/robots.txt": (f"Sitemap: {B}{c(n)}/first.xml\n{filler}Sitemap: {B}/_forbidden/{n}/late.xml\n").encode(),
                    c(n) + "/first.xml": leaf}))
    n = "robots-binary"
    rnd = random.Random(5)
    add(Case(n, "graph", c(n) + "/robots.txt",
             Expect(nodes=1),
             files={c(n) + "/robots.txt": bytes(rnd.randrange(256) for _ in range(200_000)).replace(b"Sitemap", b"Sxtemap")}))
    n = "robots-escapes"
    add(Case(n, "graph", c(n) + "/robots.txt",
             Expect(nodes=2, child_states={"/leaf.xml": ("done",)}),
             files={c(n) + "/robots.txt": (f"Sitemap: {B}/_forbidden/{n}/x{ESC_PAYLOADS['osc52']}.xml\n"
                                           f"Sitemap: {B}{c(n)}/leaf.xml\nSitemap: {can}\n"
                                           f"Sitemap: javascript:alert(1)\n").encode(),
                    c(n) + "/leaf.xml": leaf}))

    # ---------------------------------------------------------------- values
    n = "long-url"
    long_loc = f"{B}/" + "x" * 10_000
    add(Case(n, "values", c(n) + "/s.xml", Expect(urls=1, literal=("/" + "x" * 10_000,), validate_rules=("loc-too-long",)),
             files={c(n) + "/s.xml": urlset(url_el(long_loc))}, urls_output=True))
    n = "lastmod-extremes"
    dates = ["9999-12-31T23:59:59-14:00", "0000-01-01", "0000-01-01T00:00:00Z", "9" * 5000,
             "2024-02-30", "2024-13-01", "-2024-01-01", "2024-01-01T25:00:00Z", "1" * 5000 + "-01-01",
             "2024-01-01T00:00:00+99:99", "\u0661\u0669\u0667\u0660-01-01"]
    add(Case(n, "values", c(n) + "/s.xml",
             Expect(urls=len(dates), check=_lastmod_invalid(len(dates)), validate_rules=("lastmod-invalid-format",)),
             files={c(n) + "/s.xml": urlset(*(url_el(f"{B}/d{i}", f"<lastmod>{d}</lastmod>") for i, d in enumerate(dates)))},
             urls_output=True))
    n = "huge-numbers"
    digits = "7" * 5000
    vid = (f"<video:video><video:thumbnail_loc>{B}/t.jpg</video:thumbnail_loc><video:title>t</video:title>"
           f"<video:description>d</video:description><video:content_loc>{B}/v.mp4</video:content_loc>"
           f"<video:duration>{digits}</video:duration><video:view_count>{digits}</video:view_count>"
           f"<video:rating>{digits}</video:rating><video:price currency=\"EUR\">{digits}</video:price>"
           f"<video:expiration_date>{digits}</video:expiration_date></video:video>")
    add(Case(n, "values", c(n) + "/s.xml",
             Expect(urls=2),
             files={c(n) + "/s.xml": urlset(
                 url_el(f"{B}/n0", f"<priority>{digits}</priority><lastmod>{digits}</lastmod>{vid}"),
                 url_el(f"{B}/n1", f"<priority>0.{digits}</priority>"),
                 ns=f'xmlns="{SM}" xmlns:video="{VID}"')},
             urls_output=True))
    n = "priority-odd"
    prios = ["nan", "inf", "1_0", "1.5", "-1", "high", "NaN", "Infinity", "-0", "0x1", "1e0", " 0.5 "]
    add(Case(n, "values", c(n) + "/s.xml",
             # (" 0.5 " and "-0" are decimals the schema takes: 0.5 and 0)
             Expect(urls=len(prios), check=_priority_invalid(len(prios) - 2), validate_rules=("priority-invalid",)),
             files={c(n) + "/s.xml": urlset(*(url_el(f"{B}/p{i}", f"<priority>{p}</priority>") for i, p in enumerate(prios)))}))
    n = "changefreq-odd"
    add(Case(n, "values", c(n) + "/s.xml",
             Expect(urls=3, check=_changefreq(invalid=2), validate_rules=("changefreq-invalid",)),
             files={c(n) + "/s.xml": urlset(url_el(f"{B}/a", "<changefreq>sometimes</changefreq>"),
                                           url_el(f"{B}/b", "<changefreq>" + "d" * 5000 + "</changefreq>"),
                                           url_el(f"{B}/c", "<changefreq> Daily </changefreq>"))}))
    n = "cdata-loc"
    add(Case(n, "values", c(n) + "/s.xml", Expect(urls=1, literal=("/cdata?a=1&b=2",)),
             files={c(n) + "/s.xml": urlset(f"<url><loc><![CDATA[{B}/cdata?a=1&b=2]]></loc></url>\n")},
             urls_output=True))
    n = "whitespace-loc"
    add(Case(n, "values", c(n) + "/s.xml", Expect(urls=1, rules=("loc-whitespace",), literal=("/ws\n",)),
             files={c(n) + "/s.xml": urlset(f"<url><loc>\n\t   {B}/ws  \r\n </loc></url>\n")},
             urls_output=True))

    # ---------------------------------------------------------------- display
    n = "display-markup"
    items = [url_el(f"{B}/m{i}/{m}") for i, m in enumerate(MARKUP)]
    ext = (f"<image:image><image:loc>{B}/{MARKUP[0]}.png</image:loc><image:title>{MARKUP[1]}</image:title>"
           f"<image:caption>{MARKUP[2]}</image:caption></image:image>"
           f"<news:news><news:publication><news:name>{MARKUP[0]}</news:name><news:language>en</news:language>"
           f"</news:publication><news:publication_date>2024-01-01</news:publication_date>"
           f"<news:title>{MARKUP[4]}</news:title></news:news>"
           f'<xhtml:link rel="alternate" hreflang="{MARKUP[2]}" href="{B}/{MARKUP[1]}"/>'
           f"<video:video><video:thumbnail_loc>{B}/t.jpg</video:thumbnail_loc><video:title>{MARKUP[0]}</video:title>"
           f"<video:description>{MARKUP[3]}</video:description><video:content_loc>{B}/v.mp4</video:content_loc></video:video>")
    items.append(url_el(f"{B}/ext/{MARKUP[0]}", ext))
    add(Case(n, "display", c(n) + "/s.xml",
             Expect(urls=len(MARKUP) + 1, literal=tuple(f"/m{i}/{m}" for i, m in enumerate(MARKUP))),
             files={c(n) + "/s.xml": urlset(*items, ns=(
                 f'xmlns="{SM}" xmlns:image="{IMG}" xmlns:news="{NEWS}" xmlns:xhtml="{XHTML}" xmlns:video="{VID}"'))},
             urls_output=True, display=True))
    n = "display-unicode"
    items = [url_el(f"{B}/u-{k}/{v}") for k, v in UNICODE_TRICKS.items()]
    items.append(url_el(f"{B}/u-ref/&#x9b;&#x202e;&#x200b;&#x9d;",
                        f"<image:image><image:loc>{B}/i.png</image:loc><image:title>{UNICODE_TRICKS['c1-osc']}"
                        f"{UNICODE_TRICKS['rlo']}</image:title></image:image>"))
    add(Case(n, "display", c(n) + "/s.xml",
             Expect(urls=len(UNICODE_TRICKS) + 1,
                    literal=(URL_SHOWN["c1-csi"], URL_SHOWN["rlo"], URL_SHOWN["zwsp"], "/u-ref/%C2%9B%E2%80%AE%E2%80%8B%C2%9D")),
             files={c(n) + "/s.xml": urlset(*items, ns=f'xmlns="{SM}" xmlns:image="{IMG}"')},
             urls_output=True, display=True))
    n = "display-escapes-text"
    lines = "".join(f"{B}/t-{k}/{v}x\n" for k, v in ESC_PAYLOADS.items() if "\r" not in v)
    lines += f"{B}/t-percent/%1b%5d52%3bc%3bZXZpbA%3d%3d%07\n"
    add(Case(n, "display", c(n) + "/s.txt",
             Expect(min_urls=4, literal=(URL_SHOWN["osc52"], URL_SHOWN["clear"], "/t-percent/%1b%5d52%3bc%3bZXZpbA%3d%3d%07")),
             files={c(n) + "/s.txt": lines.encode()}, urls_output=True, display=True))
    n = "display-escapes-xml"
    add(Case(n, "display", c(n) + "/s.xml",
             Expect(states=("done", "failed"), min_urls=1,
                    rules=("xml-illegal-char",), issue_text=("invalid char",)),
             files={c(n) + "/s.xml": urlset(url_el(f"{B}/before"), url_el(f"{B}/raw-{ESC_PAYLOADS['osc52']}"),
                                           url_el(f"{B}/ref-&#27;]52;c;ZXZpbA==&#7;"))},
             urls_output=True, display=True))
    return cases


def install(server: object, cases: list[Case]) -> None:
    """Add the cases' generated routes to a FaultServer."""
    for case in cases:
        for r in case.routes:
            body = r.body
            if callable(body) and not isinstance(body, StreamSpec):
                body = body()
            server.add(r.path, body, headers=r.headers, template=r.template)  # type: ignore[attr-defined]


# -- value checks on the stats JSON ---------------------------------------------------------------
def _lastmod_invalid(n: int) -> Callable[..., None]:
    def check(run: object) -> None:
        node = run.stats_root()  # type: ignore[attr-defined]
        assert node["lastmod"]["invalid"] == n, node["lastmod"]

    return check


def _priority_invalid(n: int) -> Callable[..., None]:
    def check(run: object) -> None:
        node = run.stats_root()  # type: ignore[attr-defined]
        assert node["priority"].get("invalid") == n, node["priority"]

    return check


def _changefreq(invalid: int) -> Callable[..., None]:
    def check(run: object) -> None:
        node = run.stats_root()  # type: ignore[attr-defined]
        assert node["changefreq"].get("invalid") == invalid, node["changefreq"]

    return check


# -- running the headless CLI in a measured process ---------------------------------------------------
# Each run is forked from tests/cli_process.py's zygote, which reports ``os.wait4``'s rusage.
# Measuring a direct child of the test process would be wrong on Linux: a child's ru_maxrss
# starts from the high-water mark of the (big) process that forked it, so every run would report
# at least the test runner's own peak. The zygote is a small image: the CLI's modules, imported.


@dataclass
class CliRun:
    """One `python -m sitemap_tui ...` run: output, exit code, wall and CPU time, peak RSS."""

    args: list[str]
    returncode: int
    stdout: bytes
    stderr: bytes
    seconds: float  # wall
    cpu_seconds: float  # user + system, the CLI and its reaped worker processes
    max_rss_mb: float  # ru_maxrss of the CLI (or its largest reaped worker), MiB
    timed_out: bool = False

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8")

    @property
    def err(self) -> str:
        return self.stderr.decode("utf-8")


def run_cli(args: list[str], *, timeout: float = 60.0, cwd: Path | None = None) -> CliRun:
    """Run ``python -m sitemap_tui *args`` in a session of its own; never raises on failure."""
    import os
    import tempfile
    import time

    import cli_process

    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", NO_COLOR="1", COLUMNS="200")
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, open(os.devnull, "rb") as null:
        done = cli_process.run_forked(list(args), stdin=null.fileno(), stdout=out.fileno(), stderr=err.fileno(),
                                      cwd=cwd, env=env, timeout=timeout, new_session=True)
        seconds = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    return CliRun(
        args=list(args), returncode=done.returncode, stdout=stdout, stderr=stderr, seconds=seconds,
        cpu_seconds=done.cpu_seconds, max_rss_mb=done.maxrss_kb / 1024, timed_out=done.killed,
    )

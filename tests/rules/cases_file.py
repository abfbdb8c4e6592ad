"""File scope: transport, compression, encoding, XML syntax, root and namespace, the XSD,
size and count limits, text sitemaps and feeds."""

from __future__ import annotations

import gzip
import io
import zipfile

from .cases import (
    ATOM,
    SITEMAP,
    SMALL_ENTRY_CAP,
    XML,
    Case,
    Fixture,
    Resp,
    case,
    index,
    one,
    site,
    urlset,
)

PAGE = "<url><loc>http://a.test/page</loc></url>"
CLEAN = urlset(PAGE)
MIB = 1024 * 1024


def _zip(text: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("sitemap.xml", text)
    return buf.getvalue()


def _urls(n: int) -> str:
    return urlset(*(f"<url><loc>http://a.test/p{i}</loc></url>" for i in range(n)))


def _sized(total: int) -> str:
    """A one-URL urlset padded to exactly ``total`` bytes with 1 MiB comments (libxml2 refuses a
    single comment over 10 MB)."""
    head, tail = f'{XML}<urlset xmlns="{SITEMAP}">\n{PAGE}\n', "</urlset>\n"
    room = total - len(head) - len(tail)
    chunks = []
    while room > 0:
        size = min(MIB, room)
        # a comment needs 7 bytes for its delimiters; a tiny rest is plain whitespace
        chunks.append("<!--" + " " * (size - 7) + "-->" if size >= 7 else " " * size)
        room -= size
    return head + "".join(chunks) + tail


# The 50,000-entry limit and its 90 % warning with small caps (the parser's and the checker's):
# 50,001 entries cost seconds and test the same comparison. The byte limits stay real.

SMALL_NEAR_CAP = (("sitemap_tui.validate.checker", "MAX_URLS", 5), ("sitemap_tui.validate.checker", "NEAR_URLS", 4))


def capped(text: str, patch: tuple[tuple[str, str, object], ...]) -> Fixture:
    return Fixture({"sitemap.xml": text}, patch=patch)


def capped_text(text: str) -> Fixture:
    return Fixture({"sitemap.txt": text}, target="sitemap.txt", patch=SMALL_ENTRY_CAP)


def rss(*items: str) -> str:
    body = "".join(f"{i}\n" for i in items)
    return f'{XML}<rss version="2.0"><channel><title>News</title><link>http://a.test/</link>\n{body}</channel></rss>\n'


def atom(*entries: str, ns: str = ATOM) -> str:
    body = "".join(f"{e}\n" for e in entries)
    return f'{XML}<feed xmlns="{ns}"><title>News</title>\n{body}</feed>\n'


GOOD_ITEM = "<item><title>A</title><link>http://a.test/a</link><pubDate>Wed, 01 May 2024 10:00:00 GMT</pubDate></item>"

CASES: list[Case] = [
    case(
        "fetch-http-error",
        site({"sitemap.xml": Resp(CLEAN, status=404)}),
        site({"sitemap.xml": CLEAN}),
    ),
    case(
        "fetch-redirected",
        site({"sitemap.xml": Resp(status=301, headers={"Location": "http://a.test/sitemap-new.xml"}), "sitemap-new.xml": CLEAN}),
        site({"sitemap.xml": CLEAN, "sitemap-new.xml": CLEAN}),
    ),
    case(
        "fetch-private-address",
        # the target is on loopback: a child at the cloud metadata address is another range
        site({"sitemap.xml": index("<sitemap><loc>http://169.254.169.254/sitemap.xml</loc></sitemap>")},
             args=("--follow-cross-host",)),
        # ...while a child on loopback, like the target, is fetched
        site({"sitemap.xml": index("<sitemap><loc>http://b.test/child.xml</loc></sitemap>"), "b.test/child.xml": CLEAN},
             args=("--follow-cross-host",)),
    ),
    case(
        "content-encoding-mismatch",
        # a server that labels a plain body gzip: clients that believe the header cannot read it
        site({"sitemap.xml": Resp(CLEAN, headers={"Content-Encoding": "gzip"})}),
        site({"sitemap.xml": Resp(gzip.compress(CLEAN.encode(), mtime=0), headers={"Content-Encoding": "gzip"})}),
    ),
    case(
        "file-is-html",
        site({"sitemap.xml": Resp("<!DOCTYPE html>\n<html><head><title>Page not found</title></head><body>Oops</body></html>\n", content_type="text/html")}),
        # a real sitemap that a misconfigured server labels text/html is still a sitemap
        site({"sitemap.xml": Resp(CLEAN, content_type="text/html; charset=utf-8")}),
    ),
    case(
        "gzip-corrupt",
        one(gzip.compress(CLEAN.encode(), mtime=0)[:-12], name="sitemap.xml.gz"),
        one(gzip.compress(CLEAN.encode(), mtime=0), name="sitemap.xml.gz"),
    ),
    case(
        "gzip-double",
        one(gzip.compress(gzip.compress(CLEAN.encode(), mtime=0), mtime=0), name="sitemap.xml.gz"),
        # a .gz sent with Content-Encoding: gzip is the server's layer over one gzip file
        site({"sitemap.xml.gz": Resp(gzip.compress(gzip.compress(CLEAN.encode(), mtime=0), mtime=0),
                                     headers={"Content-Encoding": "gzip"})}, target="sitemap.xml.gz"),
    ),
    case(
        "compression-not-gzip",
        one(_zip(CLEAN), name="sitemap.xml.zip"),
        one(gzip.compress(CLEAN.encode(), mtime=0), name="sitemap.xml.gz"),
    ),
    # the big files are built when a test runs, not when the table is imported
    case("size-over-limit", one(Resp(lambda: _sized(50 * MIB + 1))), one(Resp(lambda: _sized(50 * MIB)))),
    case("url-count-over-limit", capped(_urls(6), SMALL_ENTRY_CAP), capped(_urls(5), SMALL_ENTRY_CAP)),
    case("size-near-limit", one(Resp(lambda: _sized(47_185_921))), one(Resp(lambda: _sized(47_185_920)))),
    case(
        "url-count-over-limit",
        capped_text("".join(f"http://a.test/p{i}\n" for i in range(6))),
        capped_text("".join(f"http://a.test/p{i}\n" for i in range(5))),
    ),
    case("url-count-near-limit", capped(_urls(5), SMALL_NEAR_CAP), capped(_urls(4), SMALL_NEAR_CAP)),
    case(
        "encoding-not-utf8",
        one(Resp(CLEAN.replace("UTF-8", "ISO-8859-1").replace("/page", "/café"), encoding="iso-8859-1"), line=1),
        one(Resp(CLEAN.replace("/page", "/caf%C3%A9"))),
    ),
    case("encoding-bom", one(b"\xef\xbb\xbf" + CLEAN.encode(), line=1), one(CLEAN)),
    case(
        "xml-leading-whitespace",
        one("\n\n" + CLEAN, line=1),
        one(CLEAN + "\n\n"),  # whitespace after the document is fine
    ),
    case(
        "xml-leading-whitespace",
        # a PHP notice before the declaration (a common WordPress plugin artifact)
        one("Notice: Undefined index: id in /var/www/html/sitemap.php on line 42\n" + CLEAN, line=1),
        None,
    ),
    case(
        "xml-not-well-formed",
        one(urlset("<url><loc>http://a.test/page</loc></ur>"), line=3),
        one(urlset("<url><loc>http://a.test/page</loc></url>")),
    ),
    case(
        "xml-unescaped-char",
        one(urlset("<url><loc>http://a.test/search?q=shoes&size=42</loc></url>"), line=3),
        one(urlset("<url><loc>http://a.test/search?q=shoes&amp;size=42</loc></url>")),
    ),
    case(
        "xml-illegal-char",
        one(urlset("<url><loc>http://a.test/page\x0c</loc></url>"), line=3),
        one(urlset("<url><loc>http://a.test/page</loc>\t</url>")),  # TAB is allowed
    ),
    case("xml-declaration-missing", one(CLEAN.removeprefix(XML)), one(CLEAN)),
    case(
        "root-unknown",
        one(f'{XML}<urls xmlns="{SITEMAP}">\n{PAGE}\n</urls>\n', line=2),
        one(CLEAN),
    ),
    case(
        "namespace-missing",
        one(f"{XML}<urlset>\n{PAGE}\n</urlset>\n", line=2),
        one(CLEAN),
    ),
    case(
        "namespace-wrong",
        one(CLEAN.replace(f'"{SITEMAP}"', '"https://www.sitemaps.org/schemas/sitemap/0.9"'), line=2),
        one(CLEAN),  # http: in the namespace name is right
    ),
    case(
        "xsd-invalid",
        # a fault no specific rule names (changefreq "Daily" is changefreq-invalid's alone)
        one(urlset("<url><loc>http://a.test/page</loc>stray text</url>"), line=3),
        one(urlset("<url><loc>http://a.test/page</loc></url>")),
    ),
    case(
        "xsd-schema-location-odd",
        one(CLEAN.replace("<urlset ", f'<urlset xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="{SITEMAP}" ')),
        one(CLEAN.replace("<urlset ", f'<urlset xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="{SITEMAP} {SITEMAP}/sitemap.xsd" ')),
    ),
    case(
        "core-unknown-attribute",
        one(urlset('<url id="3"><loc>http://a.test/page</loc></url>'), line=3),
        one(urlset('<url xmlns:x="urn:x"><loc>http://a.test/page</loc></url>')),  # xmlns* passes
    ),
    case("urlset-empty", one(urlset()), one(CLEAN)),
    case(
        "duplicate-url-in-file",
        one(urlset("<url><loc>http://a.test/a</loc></url>", "<url><loc>http://a.test/a</loc></url>"), line=4),
        one(urlset("<url><loc>http://a.test/a</loc></url>", "<url><loc>http://a.test/a/</loc></url>")),
    ),
    case(
        "text-line-not-url",
        one("http://a.test/a\nhttp://a.test/b http://a.test/c\n", name="sitemap.txt", line=2),
        one("http://a.test/a\nhttp://a.test/b\n", name="sitemap.txt"),
    ),
    case(
        "text-blank-lines",
        one("http://a.test/a\n\nhttp://a.test/b\n", name="sitemap.txt", line=2),
        one("http://a.test/a\nhttp://a.test/b\n", name="sitemap.txt"),  # the final newline ends the last line
    ),
    case(
        "feed-item-no-link",
        one(rss("<item><title>A</title><pubDate>Wed, 01 May 2024 10:00:00 GMT</pubDate></item>"), name="feed.rss", line=3),
        one(rss(GOOD_ITEM), name="feed.rss"),
    ),
    case(
        "feed-item-no-date",
        one(rss("<item><title>A</title><link>http://a.test/a</link></item>"), name="feed.rss", line=3),
        one(rss(GOOD_ITEM), name="feed.rss"),
    ),
    case(
        "feed-date-invalid",
        one(rss("<item><title>A</title><link>http://a.test/a</link><pubDate>2024-05-01T10:00:00Z</pubDate></item>"), name="feed.rss", line=3),
        one(rss(GOOD_ITEM), name="feed.rss"),
    ),
    case(
        "feed-date-invalid",
        # RFC 822 requires a zone: a pubDate without one is not silently read as UTC
        one(rss("<item><title>A</title><link>http://a.test/a</link><pubDate>Wed, 01 May 2024 10:00:00</pubDate></item>"), name="feed.rss", line=3),
        one(rss("<item><title>A</title><link>http://a.test/a</link><pubDate>Wed, 01 May 2024 10:00:00 +0200</pubDate></item>"), name="feed.rss"),
    ),
    case("feed-partial-coverage", one(rss(GOOD_ITEM), name="feed.rss"), one(CLEAN)),
    case(
        "feed-atom03",
        one(atom('<entry><title>A</title><link rel="alternate" href="http://a.test/a"/><modified>2024-05-01T10:00:00Z</modified></entry>', ns="http://purl.org/atom/ns#"), name="feed.atom"),
        one(atom('<entry><title>A</title><link rel="alternate" href="http://a.test/a"/><updated>2024-05-01T10:00:00Z</updated></entry>'), name="feed.atom"),
    ),
    case(
        "xml-dtd-forbidden",
        one(XML + '<!DOCTYPE urlset [<!ENTITY host "a.test">]>\n' + CLEAN.removeprefix(XML), line=2),
        one(XML + "<!-- generated by a CMS; no DOCTYPE -->\n" + CLEAN.removeprefix(XML)),
    ),
]

"""What the parsers keep and say when a file is not quite right (issue 14): entries in no
namespace or in the wrong one, content before the XML, and every cut (entry cap, size cap)
said with its numbers and without a false parse error."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from test_parsers import NS, children, chunked, entries, issues, rules, run, urlset

from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.model import (
    ChildRef,
    Entry,
    FileStats,
    Issue,
    Node,
    NodeKind,
    NodeState,
    Severity,
)
from sitemap_tui.engine.sniff import Item, SniffingParser
from sitemap_tui.engine.store import IssueRow, Store
from sitemap_tui.validate.checker import MAX_BYTES, Checker, FileContext

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
OLD = "http://www.google.com/schemas/sitemap/0.84"
DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'


def locs(items: list[Item]) -> list[str | None]:
    return [e.loc for e in entries(items)]


def by_rule(items: list[Item], rule: str) -> list[Issue]:
    return [i for i in issues(items) if i.rule == rule]


def check(parser: SniffingParser, items: list[Item], xsd: str = "off", stats: FileStats | None = None) -> list[Issue]:
    """The parser's issues plus the checker's, as ``validate`` would report them."""
    checker = Checker(xsd_mode=xsd)
    ctx = FileContext(node_id=1, url="https://www.example.com/sitemap.xml", kind=parser.kind or NodeKind.UNKNOWN)
    checker.begin_file(ctx)
    out = issues(items)
    for item in items:
        if isinstance(item, Entry):
            out += checker.check_entry(ctx, item)
        elif isinstance(item, ChildRef):
            out += checker.check_child(ctx, item)
    out += checker.end_file(ctx, parser.info, stats or FileStats(url_count=len(entries(items))))
    return out


def parse_with_hook(data: bytes, xsd: str) -> tuple[SniffingParser, list[Item], list[Issue]]:
    """Parse with the checker's XSD hook in place (as the engine does) and check."""
    checker = Checker(xsd_mode=xsd)
    ctx = FileContext(node_id=1, url="http://www.example.com/sitemap.xml")
    checker.begin_file(ctx)
    parser = SniffingParser(ctx.url, element_hook=checker.element_hook(ctx))
    items: list[Item] = []
    for chunk in chunked(data, seed=1, lo=1, hi=64):
        items += parser.feed(chunk)
        ctx.kind = parser.kind or NodeKind.UNKNOWN
    items += parser.close()
    ctx.kind = parser.kind or NodeKind.UNKNOWN
    found = issues(items)
    for item in items:
        if isinstance(item, Entry):
            found += checker.check_entry(ctx, item)
        elif isinstance(item, ChildRef):
            found += checker.check_child(ctx, item)
    found += checker.end_file(ctx, parser.info, FileStats(url_count=len(entries(items))))
    return parser, items, found


# -- §2 entries in no namespace or in the wrong one --------------------------------------------

NO_NS_URL = (
    f'<urlset xmlns="{SM}">\n'
    '<url xmlns=""><loc>http://www.example.com/</loc></url>\n'
    "<url><loc>http://www.example.com/2</loc></url>\n"
    "</urlset>\n"
).encode()


@pytest.mark.parametrize("seed", [None, 0, 1, 2])
def test_url_in_no_namespace_is_kept_and_reported_on_its_line(seed: int | None) -> None:
    parser, items = run(NO_NS_URL, seed=seed)
    assert parser.kind == NodeKind.URLSET
    assert [(e.loc, e.line) for e in entries(items)] == [
        ("http://www.example.com/", 2),
        ("http://www.example.com/2", 3),
    ]
    (missing,) = by_rule(items, "namespace-missing")
    assert missing.line == 2 and "<url>" in missing.message and "kept" in missing.message
    assert "namespace-wrong" not in rules(items)


def test_url_in_another_namespace_is_kept_and_reported_on_its_line() -> None:
    doc = (
        f'{DECL}<urlset xmlns="{SM}">\n'
        "<url><loc>http://www.example.com/1</loc></url>\n"
        f'<url xmlns="{OLD}"><loc>http://www.example.com/2</loc><lastmod>2024-01-01</lastmod></url>\n'
        f'<url xmlns="{OLD}"><loc>http://www.example.com/3</loc></url>\n'
        "</urlset>\n"
    ).encode()
    _, items = run(doc)
    assert locs(items) == [f"http://www.example.com/{i}" for i in (1, 2, 3)]
    assert entries(items)[1].lastmod_raw == "2024-01-01"
    (wrong,) = by_rule(items, "namespace-wrong")
    # one finding for the namespace, on the first such element, with the count
    assert wrong.line == 4 and OLD in wrong.message and "2 <url> elements" in wrong.message


def test_whole_file_in_the_old_namespace_keeps_every_entry() -> None:
    doc = urlset("https://www.example.com/a", "https://www.example.com/b", ns=f'xmlns="{OLD}"')
    parser, items = run(doc)
    assert locs(items) == ["https://www.example.com/a", "https://www.example.com/b"]
    found = check(parser, items)
    assert [(i.rule, i.line) for i in found if i.rule.startswith("namespace")] == [("namespace-wrong", 2)]
    assert "urlset-empty" not in {i.rule for i in found}


@pytest.mark.parametrize("child_ns", ['xmlns=""', f'xmlns="{OLD}"'])
def test_index_child_in_no_or_another_namespace_is_kept(child_ns: str) -> None:
    doc = (
        f'{DECL}<sitemapindex xmlns="{SM}">\n'
        "<sitemap><loc>https://www.example.com/a.xml</loc></sitemap>\n"
        f"<sitemap {child_ns}><loc>https://www.example.com/b.xml</loc><lastmod>2024-01-01</lastmod></sitemap>\n"
        "</sitemapindex>\n"
    ).encode()
    parser, items = run(doc)
    assert parser.kind == NodeKind.INDEX
    refs = children(items)
    assert [(c.loc, c.line) for c in refs] == [
        ("https://www.example.com/a.xml", 3),
        ("https://www.example.com/b.xml", 4),
    ]
    assert refs[1].lastmod_raw == "2024-01-01"
    rule = "namespace-missing" if child_ns == 'xmlns=""' else "namespace-wrong"
    (found,) = by_rule(items, rule)
    assert found.line == 4 and "<sitemap>" in found.message


@pytest.mark.parametrize("xsd", ["strict", "lax"])
def test_validate_reports_a_url_in_no_namespace_once(xsd: str) -> None:
    """With the XSD on, the element is reported once (not also as xsd-invalid), on its line."""
    _, items, found = parse_with_hook(NO_NS_URL, xsd)
    assert len(entries(items)) == 2
    assert [(i.rule, i.line) for i in found if i.severity == "error"] == [("namespace-missing", 2)]


# -- §8 content before the XML declaration -------------------------------------------------------

CLEAN = urlset("https://www.example.com/a", "https://www.example.com/b")
PHP_WARNING = (
    b"<br />\n<b>Warning</b>:  Cannot modify header information - headers already sent by"
    b" (output started at /var/www/html/wp-content/plugins/seo/seo.php:12) in"
    b" <b>/var/www/html/wp-includes/pluggable.php</b> on line <b>1421</b><br />\n"
)


def _lines(items: list[Item]) -> list[tuple[str | None, int]]:
    return [(e.loc, e.line) for e in entries(items)]


@pytest.mark.parametrize(
    ("prefix", "extra_lines"),
    [
        (b"\n\n\n", 3),  # blank lines
        (b"\r\n \t\r\n", 2),
        (b"\n\xef\xbb\xbf", 1),  # a BOM after a newline
        (b"\xef\xbb\xbf\n\xef\xbb\xbf", 1),  # two BOMs
        (PHP_WARNING, 2),
        (b"PHP Notice:  Undefined index: page in /srv/www/sitemap.php on line 7\n", 1),
    ],
)
@pytest.mark.parametrize("seed", [None, 0, 5])
def test_content_before_the_declaration_is_skipped(prefix: bytes, extra_lines: int, seed: int | None) -> None:
    _, clean = run(CLEAN, seed=seed)
    parser, items = run(prefix + CLEAN, seed=seed)
    assert parser.kind == NodeKind.URLSET
    # exactly the clean file's URLs, on the lines they have in the file as served
    assert _lines(items) == [(loc, line + extra_lines) for loc, line in _lines(clean)]
    found = rules(items)
    assert "xml-not-well-formed" not in found and "root-unknown" not in found
    if prefix.strip(b" \t\r\n\xef\xbb\xbf"):
        # other content: skipped, and said on line 1 with what was skipped
        (said,) = by_rule(items, "xml-leading-whitespace")
        assert said.line == 1 and f"{len(prefix):,} bytes" in said.message and "skipped" in said.message
    else:
        # whitespace before the declaration is Google's "Leading whitespace" error: still said
        # (once), but the file is read
        assert found["xml-leading-whitespace"] == 1
    assert parser.info.leading_whitespace


def test_php_notice_before_a_root_without_declaration() -> None:
    doc = PHP_WARNING + urlset("https://www.example.com/a", head="")
    _, items = run(doc)
    assert _lines(items) == [("https://www.example.com/a", 4)]
    (said,) = by_rule(items, "xml-leading-whitespace")
    assert said.line == 1 and "<b>Warning</b>" in said.message


def test_only_boms_before_the_declaration_are_silent() -> None:
    _, items = run(b"\xef\xbb\xbf\xef\xbb\xbf" + CLEAN)
    assert locs(items) == ["https://www.example.com/a", "https://www.example.com/b"]
    assert set(rules(items)) <= {"encoding-bom"}


@pytest.mark.parametrize(
    "doc",
    [
        # more than 4 KiB before the XML: not recovered
        b"Warning: " + b"x" * 5000 + b"\n" + CLEAN,
        # what follows is not a sitemap
        PHP_WARNING + b'<?xml version="1.0"?>\n<html><body>error</body></html>\n',
        # plain prose, no XML at all
        b"Service temporarily unavailable\nPlease retry\n",
    ],
)
def test_leading_content_not_recovered_when_no_sitemap_follows(doc: bytes) -> None:
    parser, items = run(doc)
    assert not entries(items)
    assert parser.info.stopped


# -- §7 cuts: the size cut, the entry cap (with the real numbers), near-limit warnings -----------


def _feed_all(parser: SniffingParser, data: bytes) -> list[Item]:
    out: list[Item] = []
    for chunk in chunked(data, seed=2, lo=1, hi=500):
        out += parser.feed(chunk)
    return out


def test_size_cut_is_not_a_parse_error() -> None:
    doc = urlset(*(f"https://www.example.com/{i}" for i in range(40)))
    cut_at = len(doc) // 2
    parser = SniffingParser("https://www.example.com/sitemap.xml")
    items = _feed_all(parser, doc[:cut_at])
    items += parser.close(cut="size-over-limit")
    assert 0 < len(entries(items)) < 40
    assert "xml-not-well-formed" not in rules(items)
    assert parser.info.stopped and parser.info.cuts == ["size-over-limit"]
    line = parser.info.truncated_at
    assert line is not None and int(line.split(":")[0]) == doc[:cut_at].count(b"\n") + 1


def test_size_cut_of_a_text_sitemap_drops_the_partial_last_line() -> None:
    doc = b"".join(b"https://www.example.com/%d\n" % i for i in range(30))
    parser = SniffingParser("https://www.example.com/s.txt", "text/plain")
    body = doc[:-5]
    items = _feed_all(parser, body)
    items += parser.close(cut="size-over-limit")
    assert locs(items) == [f"https://www.example.com/{i}" for i in range(29)]
    col = len(body) - body.rfind(b"\n")  # 1-based column after the last byte received
    assert parser.info.cuts == ["size-over-limit"] and parser.info.truncated_at == f"30:{col}"
    assert parser.info.lines == 30 and "xml-not-well-formed" not in rules(items)


def test_size_cut_has_no_near_limit_warning() -> None:
    doc = urlset(*(f"https://www.example.com/{i}" for i in range(10)))
    parser = SniffingParser("https://www.example.com/sitemap.xml")
    items = _feed_all(parser, doc[:-40])
    items += parser.close(cut="size-over-limit")
    found = {i.rule for i in check(parser, items, stats=FileStats(decoded_bytes=MAX_BYTES, url_count=9))}
    assert "size-near-limit" not in found


def test_entry_cap_cut_has_no_near_limit_warning() -> None:
    doc = b"".join(b"https://www.example.com/%d\n" % i for i in range(50_001))
    parser, items = run(doc, content_type="text/plain", seed=None)
    assert len(entries(items)) == 50_000
    found = {i.rule for i in check(parser, items)}
    assert "url-count-over-limit" in found and "url-count-near-limit" not in found


def test_index_cap_says_how_many_were_listed() -> None:
    refs = "".join(f"<sitemap><loc>https://e.com/{i}.xml</loc></sitemap>\n" for i in range(13))
    doc = f"{DECL}<sitemapindex {NS}>\n{refs}</sitemapindex>\n".encode()
    parser, items = run(doc, max_entries=10)
    assert len(children(items)) == 10
    (cap,) = by_rule(items, "index-too-many-sitemaps")
    assert "13" in cap.message and "10" in cap.message and "3" in cap.message
    assert cap.line == 13  # the first <sitemap> not kept
    assert parser.info.listed == 13 and parser.info.cuts == ["index-too-many-sitemaps"]
    assert parser.info.stopped and parser.info.entries == 10


def test_urlset_cap_says_how_many_were_listed() -> None:
    parser, items = run(urlset(*(f"https://e.com/{i}" for i in range(25))), max_entries=10)
    assert len(entries(items)) == 10
    (cap,) = by_rule(items, "url-count-over-limit")
    assert "25" in cap.message and "the first 10" in cap.message
    assert parser.info.listed == 25 and parser.info.cuts == ["url-count-over-limit"]


def test_cap_then_size_cut_says_at_least() -> None:
    doc = urlset(*(f"https://e.com/{i}" for i in range(25)))
    parser = SniffingParser("https://e.com/sitemap.xml", max_entries=10)
    items = _feed_all(parser, doc[: len(doc) * 3 // 4])
    items += parser.close(cut="size-over-limit")
    (cap,) = by_rule(items, "url-count-over-limit")
    assert "at least" in cap.message.lower()
    assert "xml-not-well-formed" not in rules(items)
    assert parser.info.cuts == ["url-count-over-limit", "size-over-limit"]


def test_text_cap_says_how_many_lines_were_left() -> None:
    doc = b"".join(b"https://e.com/%d\n" % i for i in range(25))
    parser, items = run(doc, content_type="text/plain", max_entries=10)
    assert len(entries(items)) == 10
    (cap,) = by_rule(items, "url-count-over-limit")
    assert cap.line == 11
    assert "25 lines" in cap.message and "15" in cap.message and "the first 10" in cap.message
    assert parser.info.stopped and parser.info.cuts == ["url-count-over-limit"]
    assert parser.info.lines == 25 and parser.info.listed is None


def test_default_cap_is_the_protocol_limit() -> None:
    assert SniffingParser("https://e.com/s.xml").max_entries == 50_000



# -- through the engine: the size cut, injected caps, Content-Encoding that lies ------------------


async def _explore(target: str, tmp_path: Path, *, config: FetchConfig | None = None, **opts: object) -> tuple[Node, list[IssueRow]]:
    store = Store(tmp_path / "x.db")
    config = config or FetchConfig(total_timeout=10, retries=0)
    options = ExploreOptions(**opts)  # type: ignore[arg-type]
    async with Explorer(store=store, fetch_config=config, options=options, checker=Checker()) as ex:
        root = await ex.explore(target)
    store.commit()
    found = store.issues(node_ids=[root.id])
    store.close()
    return root, found


async def test_size_cut_file_gives_no_false_parse_error(tmp_path: Path) -> None:
    path = tmp_path / "big.xml"
    path.write_bytes(urlset(*(f"https://www.example.com/{i}" for i in range(200))))
    cap = 4000
    node, found = await _explore(str(path), tmp_path, config=FetchConfig(max_decoded=cap))
    rules_found = [i.rule for i in found]
    assert "size-over-limit" in rules_found
    assert "xml-not-well-formed" not in rules_found and "size-near-limit" not in rules_found
    assert 0 < node.stats.url_count < 200
    assert node.stats.truncated_at is not None  # the node says where it was cut
    assert node.stats.decoded_bytes == cap


@pytest.mark.parametrize("workers", [0, 1])
async def test_entry_cap_is_injectable(tmp_path: Path, workers: int) -> None:
    path = tmp_path / "urls.txt"
    path.write_bytes(b"".join(b"https://www.example.com/%d\n" % i for i in range(12)))
    node, found = await _explore(str(path), tmp_path, max_entries=5, workers=workers)
    assert node.stats.url_count == 5
    # said on the node (the explorer's Overview), as a cut parse is (found from outside: silent there)
    assert node.error == "cut short: more than 5 entries, the first 5 kept, the rest not read"
    (cap,) = [i for i in found if i.rule == "url-count-over-limit"]
    assert cap.line == 6 and "12 lines" in cap.message and "the first 5" in cap.message


async def test_gzip_content_encoding_on_a_plain_body_is_read(httpserver: HTTPServer, tmp_path: Path) -> None:
    body = urlset("http://www.example.com/a", "http://www.example.com/b")
    httpserver.expect_request("/sitemap.xml").respond_with_data(
        body, content_type="application/xml", headers={"Content-Encoding": "gzip"}
    )
    node, found = await _explore(httpserver.url_for("/sitemap.xml"), tmp_path)
    assert node.stats.url_count == 2 and node.state == NodeState.DONE and not node.error
    rules_found = [i.rule for i in found]
    assert "gzip-corrupt" not in rules_found
    (said,) = [i for i in found if i.rule == "content-encoding-mismatch"]
    assert "gzip" in said.message and "plain" in said.message


@pytest.mark.parametrize("served", [False, True])
async def test_a_file_gzipped_twice_is_read_and_said(httpserver: HTTPServer, tmp_path: Path, served: bool) -> None:
    once = gzip.compress(urlset("http://www.example.com/a"))
    path = tmp_path / "twice.xml.gz"
    path.write_bytes(gzip.compress(once))
    if served:  # and a transport gzip on top: that layer is the server's, not the file's
        httpserver.expect_request("/twice.xml.gz").respond_with_data(
            gzip.compress(path.read_bytes()), headers={"Content-Encoding": "gzip"})
    node, found = await _explore(httpserver.url_for("/twice.xml.gz") if served else str(path), tmp_path)
    assert node.stats.url_count == 1 and node.state == NodeState.DONE
    (said,) = [i for i in found if i.rule == "gzip-double"]
    assert "gzipped twice" in said.message and said.severity == Severity.ERROR
    if not served:  # three layers: not read, and not "checked the rest" (found from outside)
        path.write_bytes(gzip.compress(path.read_bytes()))
        (tmp_path / "three").mkdir()
        node, found = await _explore(str(path), tmp_path / "three")
        assert "compression-not-gzip" in {i.rule for i in found} and "gzip-double" not in {i.rule for i in found}


async def test_a_gz_file_sent_with_content_encoding_gzip_is_gzipped_once(httpserver: HTTPServer, tmp_path: Path) -> None:
    httpserver.expect_request("/once.xml.gz").respond_with_data(
        gzip.compress(gzip.compress(urlset("http://www.example.com/a"))), headers={"Content-Encoding": "gzip"})
    node, found = await _explore(httpserver.url_for("/once.xml.gz"), tmp_path)
    assert node.stats.url_count == 1 and node.stats.gzipped
    assert not [i for i in found if i.rule in ("gzip-double", "gzip-corrupt")]


def test_cap_messages_count_one_in_the_singular() -> None:
    _, items = run(urlset(*(f"https://e.com/{i}" for i in range(4))), max_entries=3)
    (cap,) = by_rule(items, "url-count-over-limit")
    assert cap.message.endswith("the first 3 are kept, 1 is not")
    _, items = run(b"https://e.com/1\nhttps://e.com/2\n", content_type="text/plain", max_entries=1)
    (cap,) = by_rule(items, "url-count-over-limit")
    assert "the 1 line from line 2 on was not read" in cap.message


def test_cap_then_syntax_error_says_at_least() -> None:
    doc = urlset(*(f"https://e.com/{i}" for i in range(25))).replace(b"https://e.com/20<", b"https://e.com/20&<")
    _, items = run(doc, max_entries=10)
    (cap,) = by_rule(items, "url-count-over-limit")
    assert cap.message.startswith("At least") and "xml-unescaped-char" in rules(items)


async def test_a_fault_of_ours_mid_file_is_an_internal_error_not_a_cut_download(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found from outside: a parser fault after some entries (a malformed Atom xml:base) was
    taken for the download failing part-way ("--timeout"): the entries before it were lost,
    those after it listed, and `urls` exited 0. It is the file's internal error now (the run
    says it failed inside sitemap-tui, and replaces no output)."""
    from sitemap_tui.engine import xml_entries

    path = tmp_path / "feed.xml"
    path.write_text('<?xml version="1.0"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>\n' + "".join(
        f'<entry><title>a</title><link href="https://example.com/p{i}"/></entry>\n' for i in range(40)) + "</feed>\n")
    real = xml_entries._atom_href

    def faulty(link: object) -> str:
        href = real(link)
        if href.endswith("/p20"):
            raise ValueError("a fault of ours")
        return href

    monkeypatch.setattr(xml_entries, "_atom_href", faulty)
    node, _ = await _explore(str(path), tmp_path, workers=0)
    assert node.state == NodeState.FAILED
    assert node.error == "internal error while processing: ValueError: a fault of ours"

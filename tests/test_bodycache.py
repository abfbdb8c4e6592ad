"""The body cache behind the Issues pane's source view: the lines around an issue read back from
a cached body, however far into a large, well-compressed body they are (issue 18 item 8: the
source view was empty for a gzipped sitemap cut at the 50,000-entry cap)."""

from __future__ import annotations

import gzip
from pathlib import Path

from pytest_httpserver import HTTPServer

from sitemap_tui.engine.bodycache import BodyWriter, read_lines
from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.store import Store
from sitemap_tui.validate.checker import Checker

HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'


def big_urlset(base: str, n: int, bad_every: int = 997) -> bytes:
    """``n`` URLs, one per line from line 3; every ``bad_every``-th has an invalid lastmod."""
    rows = "".join(
        f"  <url><loc>{base}/p/{i}</loc><lastmod>{'bad' if i % bad_every == 5 else '2024-01-01'}</lastmod></url>\n"
        for i in range(n)
    )
    return (HEAD + rows + "</urlset>\n").encode()


async def test_source_lines_of_a_gzipped_sitemap_cut_at_the_entry_cap(httpserver: HTTPServer, tmp_path: Path) -> None:
    base = httpserver.url_for("").rstrip("/")
    body = big_urlset(base, 60_000)
    httpserver.expect_request("/big.xml.gz").respond_with_data(gzip.compress(body), content_type="application/gzip")
    store = Store(tmp_path / "x.db")
    cache = tmp_path / "bodies"
    config = FetchConfig(total_timeout=30, retries=0)
    options = ExploreOptions(body_cache=cache)  # the protocol's cap: 50,000 entries kept
    async with Explorer(store=store, fetch_config=config, options=options, checker=Checker()) as ex:
        await ex.explore(base + "/big.xml.gz")
    store.commit()
    issues = list(store.iter_issues())
    store.close()
    over = [i for i in issues if i.rule == "url-count-over-limit"]
    assert len(over) == 1 and over[0].line == 50_003  # the first entry past the cap
    lines = body.split(b"\n")
    got = read_lines(cache, over[0].node_id, over[0].line, 2)
    assert got == [(n, lines[n - 1]) for n in range(50_001, 50_006)]
    # an issue kept before the cap, far into the body too
    late = max((i for i in issues if i.rule == "lastmod-invalid-format"), key=lambda i: i.line or 0)
    assert late.line is not None and late.line > 40_000
    assert read_lines(cache, late.node_id, late.line, 0) == [(late.line, lines[late.line - 1])]
    assert b"<lastmod>bad</lastmod>" in lines[late.line - 1]


def test_read_lines_past_many_compressed_chunks(tmp_path: Path) -> None:
    """A body that compresses well: each 64 KiB read inflates to far more than the per-step
    output bound, so the rest of every read must be carried into the next step."""
    data = b"".join(b"<url><loc>https://example.com/%08d</loc></url>\n" % i for i in range(200_000))
    w = BodyWriter(tmp_path, 7)
    for k in range(0, len(data), 1 << 20):
        w.write(data[k : k + (1 << 20)])
    w.close()
    assert (tmp_path / "7.gz").stat().st_size > 4 * (1 << 16)  # several reads of the cache file
    for line in (1, 70_000, 199_999, 200_000):
        expected = b"<url><loc>https://example.com/%08d</loc></url>" % (line - 1)
        assert read_lines(tmp_path, 7, line, 0) == [(line, expected)]
    assert read_lines(tmp_path, 7, 200_001, 1) == [(200_000, b"<url><loc>https://example.com/00199999</loc></url>")]
    assert read_lines(tmp_path, 7, 300_000, 1) == []  # past the end: nothing, no error


def test_a_text_bodys_lone_cr_ends_a_line_as_its_parser_counts(tmp_path: Path) -> None:
    """Found from outside: a text sitemap with CR line ends was one line in the source view
    (its issues' lines not found), and in a mixed one line 3 showed line 4's URL. Near miss: an
    XML body keeps libxml2's count, where only LF ends a line."""
    for body in (b"a\rb\rc\rd\re\rf", b"a\r\nb\nc\rd\r\ne\nf\r"):
        writer = BodyWriter(tmp_path, 1)
        for i in range(len(body)):  # a CRLF split across writes is one line end
            writer.write(body[i:i + 1])
        writer.close()
        assert read_lines(tmp_path, 1, 3, context=1) == [(2, b"b"), (3, b"c"), (4, b"d")], body
        assert read_lines(tmp_path, 1, 6, context=0) == [(6, b"f")], body
    writer = BodyWriter(tmp_path, 2)
    writer.write(b"<a>\r\n<b/>\r<c/>\n</a>\n")
    writer.close()
    assert read_lines(tmp_path, 2, 2, context=0) == [(2, b"<b/>\r<c/>")]

"""Entries with no URL in them (a ``<url>`` or ``<sitemap>`` without ``<loc>`` or with an empty
one, a feed item without a link, a text line that is no URL) are not listed: found from outside,
``urls`` and ``stats`` dropped them without a word, so a list read as whole was short. Every
headless command now says how many on stderr, and `stats --json` gives the count per file; a
re-exploration that carries a file over (304) says it as the first run did. Run as a user runs
the commands, in a process of their own, against a server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import cli_process
import pytest
from werkzeug import Request, Response

from sitemap_tui.engine.stats import Aggregate

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
URLSET = (f'<?xml version="1.0"?>\n<urlset {NS}>\n<url><loc>https://example.com/a</loc></url>\n'
          "<url><lastmod>2024-01-01</lastmod></url>\n<url><loc>  </loc></url>\n"
          "<url><loc>https://example.com/b</loc></url>\n</urlset>\n")
FEED = ('<?xml version="1.0"?>\n<rss version="2.0"><channel><title>t</title><link>https://example.com/</link>\n'
        "<item><title>a</title><link>https://example.com/c</link></item>\n<item><title>no link</title></item>\n"
        "</channel></rss>\n")
TEXT = "https://example.com/d\nnot a url\n\nftp://example.com/e\nhttps://example.com/f\n"
ETAG = '"v1"'


def _site(httpserver, index_extra: str = "") -> str:
    bodies = {"/urls.xml": (URLSET, "application/xml"), "/feed.xml": (FEED, "application/rss+xml"),
              "/urls.txt": (TEXT, "text/plain")}
    index = (f'<?xml version="1.0"?>\n<sitemapindex {NS}>\n'
             + "".join(f"<sitemap><loc>{httpserver.url_for(p)}</loc></sitemap>\n" for p in bodies)
             + "<sitemap><lastmod>2024-01-01</lastmod></sitemap>\n" + index_extra + "</sitemapindex>\n")
    bodies["/index.xml"] = (index, "application/xml")

    def handle(request: Request) -> Response:
        body, ctype = bodies[request.path]
        if request.headers.get("If-None-Match") == ETAG:
            return Response(status=304, headers={"ETag": ETAG})
        return Response(body, content_type=ctype, headers={"ETag": ETAG})

    for path in bodies:
        httpserver.expect_request(path).respond_with_handler(handle)
    return httpserver.url_for("/index.xml")


def _run(args: list[str], tmp_path: Path) -> cli_process.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"), "SITEMAP_TUI_CONFIG": str(tmp_path / "c.toml")}
    return cli_process.run([sys.executable, "-m", "sitemap_tui", *args], env=env, capture_output=True, text=True)


# 2 in the urlset (no <loc>, a blank one), 1 feed item, 2 text lines, 1 index child
SAID = "6 entries not listed: no URL in them"


@pytest.mark.parametrize("workers", ["0", "2"])
def test_urls_says_how_many_entries_had_no_url_and_says_it_again_when_the_files_are_carried(
        httpserver, tmp_path: Path, workers: str) -> None:
    index = _site(httpserver)
    first = _run(["urls", index, "--workers", workers], tmp_path)
    assert first.returncode == 0, first.stderr
    assert sorted(first.stdout.split()) == [f"https://example.com/{c}" for c in "abcdf"]
    assert SAID in first.stderr, first.stderr
    assert "validate names each" in first.stderr
    again = _run(["urls", index, "--workers", workers, "--strict"], tmp_path)  # no cut: --strict passes
    assert "4 files unchanged since the previous exploration" in again.stderr, again.stderr
    assert again.returncode == 0 and sorted(again.stdout.split()) == sorted(first.stdout.split())
    assert SAID in again.stderr, again.stderr


def test_stats_json_counts_the_entries_without_a_url_per_file(httpserver, tmp_path: Path) -> None:
    index = _site(httpserver)
    run = _run(["stats", index, "--json", "--no-history"], tmp_path)
    assert run.returncode == 0, run.stderr
    root = json.loads(run.stdout)["nodes"][0]
    assert root.get("entries_without_url") == 1  # the <sitemap> without <loc>
    counts = {Path(c["url"]).name: (c["urls"], c.get("entries_without_url")) for c in root["children"]}
    assert counts == {"urls.xml": (2, 2), "feed.xml": (1, 1), "urls.txt": (2, 2)}
    assert SAID in run.stderr


def test_a_file_whose_every_entry_has_a_url_says_nothing_of_it(httpserver, tmp_path: Path) -> None:
    """The near miss: a blank line of a text sitemap is no entry, and an empty file says nothing."""
    httpserver.expect_request("/ok.txt").respond_with_data("https://example.com/x\n\n\nhttps://example.com/y\n",
                                                           content_type="text/plain")
    run = _run(["urls", httpserver.url_for("/ok.txt"), "--no-history"], tmp_path)
    assert run.returncode == 0 and run.stdout.split() == ["https://example.com/x", "https://example.com/y"]
    assert "no URL" not in run.stderr, run.stderr


def test_the_count_merges_over_a_subtree_and_reads_as_0_from_an_older_store() -> None:
    total = Aggregate.from_json({"urls": 3})  # an earlier version's JSON: no such key
    assert total.no_url == 0
    total.merge(Aggregate(urls=2, no_url=2))
    total.merge(Aggregate(urls=1, no_url=3))
    assert (total.urls, total.no_url) == (6, 5)
    assert Aggregate.from_json(total.to_json()).no_url == 5


def test_validate_names_each_instead(httpserver, tmp_path: Path) -> None:
    """validate's findings name every such entry, with its line: the count would only repeat them."""
    index = _site(httpserver)
    run = _run(["validate", index, "--format", "json", "--no-history"], tmp_path)
    assert run.returncode == 1, run.stderr
    rules = [i["rule"] for i in json.loads(run.stdout)["issues"]]
    assert {"loc-missing", "loc-empty", "feed-item-no-link", "text-line-not-url"} <= set(rules), rules
    assert "no URL in them" not in run.stderr + run.stdout


def test_urls_says_how_many_relative_locs_it_resolved_first_run_and_carried(httpserver, tmp_path: Path) -> None:
    """A relative <loc> is listed resolved against its sitemap's URL (README): an assumption,
    said on stderr like the rest, with the file it was first met in; the near miss, a file of
    absolute URLs, says nothing of it."""
    body = (f'<?xml version="1.0"?>\n<urlset {NS}>\n<url><loc>https://example.com/a</loc></url>\n'
            "<url><loc>/rel/page</loc></url>\n<url><loc>other</loc></url>\n</urlset>\n")

    def handle(request: Request) -> Response:
        if request.headers.get("If-None-Match") == ETAG:
            return Response(status=304, headers={"ETag": ETAG})
        return Response(body, content_type="application/xml", headers={"ETag": ETAG})

    httpserver.expect_request("/rel.xml").respond_with_handler(handle)
    httpserver.expect_request("/abs.xml").respond_with_data(URLSET, content_type="application/xml")
    url = httpserver.url_for("/rel.xml")
    said = "2 relative URLs listed resolved against their sitemap's URL (search engines read only absolute ones"
    for _ in range(2):  # the second answers 304: carried over
        run = _run(["urls", url], tmp_path)
        assert run.returncode == 0, run.stderr
        assert run.stdout.split() == ["https://example.com/a", httpserver.url_for("/rel/page"), httpserver.url_for("/other")]
        assert said in run.stderr and f"first in {url}" in run.stderr, run.stderr
    assert "unchanged since the previous exploration" in run.stderr
    assert said in _run(["stats", url, "--no-history"], tmp_path).stderr
    clean = _run(["urls", httpserver.url_for("/abs.xml"), "--no-history"], tmp_path)
    assert clean.returncode == 0 and "relative" not in clean.stderr, clean.stderr


def test_urls_says_what_it_read_otherwise_than_written_and_again_when_carried(httpserver, tmp_path: Path) -> None:
    """Found from outside: elements the protocol does not read there (a <urlset> inside the
    <urlset>, a <sitemap> in it, a wrapper) were skipped with the URLs inside them, a body
    gzipped twice was unpacked twice, and files declaring ISO-8859-1 or UTF-16 were read so, all without a
    word from urls and stats (validate names each). Said with a count, the first file, the
    rule; a 304 re-run says it again (the counts travel in the file's aggregate)."""
    import gzip

    odd = (f'<?xml version="1.0"?>\n<urlset {NS}>\n<url><loc>https://example.com/a</loc>'
           "<loc>https://example.com/second</loc></url>\n"
           "<urlset><url><loc>https://example.com/nested</loc></url></urlset>\n"
           "<sitemap><loc>https://example.com/s.xml</loc></sitemap>\n"
           "<urls><url><loc>https://example.com/wrapped</loc></url></urls>\n"
           # inside a <url>: a <url>, and an element of no protocol around a <loc> (found from
           # outside: dropped unsaid); near miss, another namespace's <loc> is none of ours
           "<url><loc>https://example.com/outer</loc><url><loc>https://example.com/inner</loc></url>"
           "<meta><loc>https://example.com/in-meta</loc></meta>"
           '<x:data xmlns:x="urn:x"><x:loc>https://example.com/x</x:loc></x:data></url>\n</urlset>\n')
    plain = f'<?xml version="1.0"?>\n<urlset {NS}><url><loc>https://example.com/z</loc></url></urlset>\n'
    latin = (f'<?xml version="1.0" encoding="ISO-8859-1"?>\n<urlset {NS}><url><loc>https://example.com/caf'
             "\u00e9</loc></url></urlset>\n").encode()  # UTF-8 bytes under a Latin-1 declaration
    utf16 = plain.replace('"1.0"?>', '"1.0" encoding="UTF-16"?>').encode("utf-16")  # with its BOM
    bodies = {"/odd.xml": odd.encode(), "/twice.xml.gz": gzip.compress(gzip.compress(plain.encode())),
              "/latin.xml": latin, "/u16.xml": utf16, "/plain.xml": plain.encode()}

    def handle(request: Request) -> Response:
        if request.headers.get("If-None-Match") == ETAG:
            return Response(status=304, headers={"ETag": ETAG})
        return Response(bodies[request.path], content_type="application/octet-stream", headers={"ETag": ETAG})

    for path in bodies:
        httpserver.expect_request(path).respond_with_handler(handle)
    index = (f'<?xml version="1.0"?>\n<sitemapindex {NS}>'
             + "".join(f"<sitemap><loc>{httpserver.url_for(p)}</loc></sitemap>" for p in list(bodies)[:4])
             + "</sitemapindex>\n")
    httpserver.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")
    said = ["5 elements not read, with any URL inside: not where the sitemap protocol reads one",
            f"first in {httpserver.url_for('/odd.xml')}", "1 repeated <loc> not read: an entry's first <loc> is its URL",
            "1 file gzipped twice, unpacked twice here", f"first in {httpserver.url_for('/twice.xml.gz')}",
            "2 files read in the encoding they declare (or a UTF-16 byte order mark names), not UTF-8",
            f"first in {httpserver.url_for('/latin.xml')}"]
    for _ in range(2):
        run = _run(["urls", httpserver.url_for("/index.xml"), "--workers", "0"], tmp_path)
        assert run.returncode == 0, run.stderr
        assert "https://example.com/nested" not in run.stdout and "https://example.com/a" in run.stdout
        assert "https://example.com/outer" in run.stdout and "https://example.com/inner" not in run.stdout
        assert "https://example.com/second" not in run.stdout
        for words in said:
            assert words in run.stderr, (words, run.stderr)
    assert "unchanged since the previous exploration" in run.stderr
    stats = _run(["stats", httpserver.url_for("/index.xml"), "--no-history"], tmp_path)
    assert said[0] in stats.stderr and said[2] in stats.stderr
    clean = _run(["urls", httpserver.url_for("/plain.xml"), "--no-history"], tmp_path)
    assert clean.returncode == 0 and "not read" not in clean.stderr and "declares" not in clean.stderr, clean.stderr

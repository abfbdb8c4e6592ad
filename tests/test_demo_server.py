"""Real-server tests for the bundled demo site and its HTTP server."""

from __future__ import annotations

import gzip
import http.client
import os
import re
import signal
import subprocess
import sys
import types

import httpx
import pytest
from lxml import etree

from sitemap_tui.demo import server as server_mod
from sitemap_tui.demo.server import DemoServer, default_site_root, serve_directory

SITE = default_site_root()
SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"
IMAGE = "{http://www.google.com/schemas/sitemap-image/1.1}"
VIDEO = "{http://www.google.com/schemas/sitemap-video/1.1}"
NEWS = "{http://www.google.com/schemas/sitemap-news/0.9}"

# Exact entry counts of the demo site (update when the site changes).
COUNTS = {
    "sitemap_index.xml": 7,  # <sitemap>
    "sitemap-archive-index.xml": 1,  # <sitemap>
    "sitemap-products.xml": 300,  # <url>
    "sitemap-blog.xml": 42,  # <url> (14 posts x en/de/fr)
    "sitemap-images.xml": 20,  # <url>
    "sitemap-video.xml": 6,  # <url>
    "sitemap-news.xml": 8,  # <url>
    "sitemap-archive-2019.xml": 25,  # <url>
    "feed.rss": 15,  # <item>
    "sitemap-pages.txt": 20,  # URL lines
    "robots.txt": 4,  # Sitemap: lines
}
EXTRA_COUNTS = {
    "blog_alternates": 14 * 3 * 4 - 2,  # the broken fr entry lacks en and x-default
    "images": 39,
    "image_captions": 1,
    "videos": 6,
    "videos_without_thumbnail": 1,
    "news": 8,
    "pages_txt_lines": 22,
}


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True)


def _xml(data: bytes) -> etree._Element:
    return etree.fromstring(data, _parser())


@pytest.fixture(scope="module")
def server():
    with DemoServer() as srv:
        yield srv


@pytest.fixture()
def client():
    with httpx.Client(timeout=10) as c:
        yield c


def _raw_get(srv: DemoServer, target: str, headers: dict[str, str] | None = None):
    """Send the request target verbatim (no client-side dot-segment normalisation)."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    try:
        conn.request("GET", target, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


# --------------------------------------------------------------------------- basics


def test_default_root_is_package_resource():
    assert SITE.is_dir()
    assert (SITE / "robots.txt").is_file()
    assert SITE.parts[-3:] == ("sitemap_tui", "demo", "site")


def test_base_url_and_lifecycle():
    srv = DemoServer()
    with pytest.raises(RuntimeError):
        _ = srv.base_url
    srv.start()
    try:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", srv.base_url)
        assert srv.base_url.endswith(f":{srv.port}")
        assert srv.url("robots.txt") == srv.base_url + "/robots.txt"
        assert httpx.get(srv.url("/robots.txt")).status_code == 200
    finally:
        srv.stop()
    srv.stop()  # idempotent
    with pytest.raises(httpx.TransportError):
        httpx.get(f"http://127.0.0.1:{srv.port}/robots.txt", timeout=2)


def test_templates_rendered_with_live_base_url(server, client):
    r = client.get(server.url("/robots.txt"))
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    assert "{{BASE}}" not in r.text
    sitemap_lines = [ln for ln in r.text.splitlines() if ln.startswith("Sitemap:")]
    assert sitemap_lines == [
        f"Sitemap: {server.base_url}/sitemap_index.xml",
        f"Sitemap: {server.base_url}/feed.rss",
        "Sitemap: /sitemap-pages.txt",
        f"Sitemap: {server.base_url}/sitemap_index.xml",
    ]
    idx = _xml(client.get(server.url("/sitemap_index.xml")).content)
    locs = [e.text for e in idx.iter(f"{SM}loc")]
    assert locs[0] == f"{server.base_url}/sitemap-products.xml.gz"
    assert all(loc.startswith(server.base_url + "/") for loc in locs)


def test_home_page(server, client):
    r = client.get(server.url("/"))
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert '<link rel="sitemap" type="application/xml"' in r.text
    assert 'href="/sitemap_index.xml"' in r.text


@pytest.mark.parametrize(
    ("path", "ctype"),
    [
        ("/sitemap_index.xml", "application/xml"),
        ("/robots.txt", "text/plain"),
        ("/sitemap-pages.txt", "text/plain"),
        ("/feed.rss", "application/rss+xml"),
        ("/index.html", "text/html"),
        ("/sitemap-products.xml.gz", "application/gzip"),
    ],
)
def test_content_types(server, client, path, ctype):
    r = client.get(server.url(path))
    assert r.status_code == 200
    assert r.headers["content-type"].split(";")[0] == ctype


# --------------------------------------------------------------------------- gzip rules


def test_gz_rule_serves_gzip_of_rendered_file(server, client):
    plain = client.get(server.url("/sitemap-products.xml"), headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    r = client.get(server.url("/sitemap-products.xml.gz"))
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/gzip"
    assert "content-encoding" not in r.headers
    assert r.content[:2] == b"\x1f\x8b"
    assert int(r.headers["content-length"]) == len(r.content)
    body = gzip.decompress(r.content)
    assert body == plain.content
    assert server.base_url.encode() in body and b"{{BASE}}" not in body
    assert not (SITE / "sitemap-products.xml.gz").exists()


def test_gz_rule_missing_source_is_404(server, client):
    assert client.get(server.url("/sitemap-missing.xml.gz")).status_code == 404


def test_content_encoding_gzip_when_asked(server, client):
    with client.stream(
        "GET", server.url("/sitemap-products.xml"), headers={"Accept-Encoding": "gzip"}
    ) as r:
        raw = b"".join(r.iter_raw())
        assert r.headers["content-encoding"] == "gzip"
        assert r.headers["content-type"] == "application/xml"
        assert "accept-encoding" in r.headers["vary"].lower()
        assert int(r.headers["content-length"]) == len(raw)
    body = gzip.decompress(raw)
    assert len(_xml(body).findall(f"{SM}url")) == COUNTS["sitemap-products.xml"]


def test_no_content_encoding_without_gzip_or_for_small_files(server, client):
    r = client.get(server.url("/sitemap-products.xml"), headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in r.headers
    r = client.get(server.url("/sitemap-products.xml"), headers={"Accept-Encoding": "gzip;q=0"})
    assert "content-encoding" not in r.headers
    # Under 1 KiB: never transport-encoded.
    assert (SITE / "sitemap-archive-index.xml").stat().st_size < 1024
    r = client.get(server.url("/sitemap-archive-index.xml"), headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in r.headers
    # Not .xml: never transport-encoded.
    r = client.get(server.url("/feed.rss"), headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in r.headers


# --------------------------------------------------------------------------- HTTP semantics


def test_missing_file_404(server, client):
    r = client.get(server.url("/sitemap-missing.xml"))
    assert r.status_code == 404
    assert client.get(server.url("/no/such/dir/")).status_code == 404


def test_etag_and_304(server, client):
    r = client.get(server.url("/sitemap-blog.xml"))
    etag = r.headers["etag"]
    assert etag.startswith('"') and "last-modified" in r.headers
    r2 = client.get(server.url("/sitemap-blog.xml"), headers={"If-None-Match": etag})
    assert r2.status_code == 304
    assert r2.content == b""
    assert r2.headers["etag"] == etag
    r3 = client.get(server.url("/sitemap-blog.xml"), headers={"If-None-Match": f'"nope", W/{etag}'})
    assert r3.status_code == 304
    r4 = client.get(server.url("/sitemap-blog.xml"), headers={"If-None-Match": '"other"'})
    assert r4.status_code == 200 and r4.content == r.content


def test_if_modified_since(server, client):
    r = client.get(server.url("/robots.txt"))
    lm = r.headers["last-modified"]
    assert (
        client.get(server.url("/robots.txt"), headers={"If-Modified-Since": lm}).status_code == 304
    )
    old = "Mon, 01 Jan 2001 00:00:00 GMT"
    assert (
        client.get(server.url("/robots.txt"), headers={"If-Modified-Since": old}).status_code == 200
    )


def test_head(server, client):
    get = client.get(server.url("/sitemap_index.xml"), headers={"Accept-Encoding": "identity"})
    head = client.head(server.url("/sitemap_index.xml"), headers={"Accept-Encoding": "identity"})
    assert head.status_code == 200
    assert head.content == b""
    assert head.headers["content-length"] == str(len(get.content))
    assert head.headers["etag"] == get.headers["etag"]
    assert client.head(server.url("/nope.xml")).status_code == 404
    gz = client.head(server.url("/sitemap-products.xml.gz"))
    assert gz.status_code == 200 and gz.headers["content-type"] == "application/gzip"


def test_keep_alive_with_content_length(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        for path in ("/robots.txt", "/nope", "/sitemap_index.xml", "/sitemap-products.xml.gz"):
            conn.request("GET", path)
            resp = conn.getresponse()
            body = resp.read()
            assert resp.version == 11
            assert int(resp.getheader("Content-Length")) == len(body)
            assert not resp.will_close
    finally:
        conn.close()


@pytest.mark.parametrize(
    "target",
    [
        "/../pyproject.toml",
        "/../../../pyproject.toml",
        "/../server.py",
        "/%2e%2e/server.py",
        "/%2E%2E/%2e%2e/%2e%2e/pyproject.toml",
        "/..%2fserver.py",
        "/%2e%2e%2f%2e%2e%2f%2e%2e%2fpyproject.toml",
        "/..\\server.py",
        "/%5c..%5cserver.py",
        "//etc/passwd",
        "/%00robots.txt",
        "/robots.txt%00.xml",
        "/%ff%fe",
        "http://127.0.0.1/../server.py",
    ],
)
def test_path_traversal_refused(server, target):
    # Every one of these would name a real file if traversal worked.
    assert (SITE.parent / "server.py").is_file()
    status, _headers, body = _raw_get(server, target)
    assert status in (400, 404)
    assert b"import" not in body and b"[project]" not in body


def test_symlink_escape_refused(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (tmp_path / "secret.txt").write_text("top secret")
    (site / "ok.txt").write_text("fine {{BASE}}")
    try:
        os.symlink(tmp_path / "secret.txt", site / "link.txt")
    except OSError:
        pytest.skip("symlinks not supported")
    srv = serve_directory(site)
    try:
        assert _raw_get(srv, "/link.txt")[0] == 404
        assert _raw_get(srv, "/../secret.txt")[0] == 404
        status, _h, body = _raw_get(srv, "/ok.txt")
        assert status == 200 and body == f"fine {srv.base_url}".encode()
    finally:
        srv.stop()


def test_serve_directory_templates_and_gz(tmp_path):
    (tmp_path / "sub").mkdir()
    xml = b'<?xml version="1.0"?><urlset><url><loc>{{BASE}}/a</loc></url></urlset>'
    (tmp_path / "sub" / "s.xml").write_bytes(xml)
    real_gz = gzip.compress(b"{{BASE}} stays literal inside a real gzip file", mtime=0)
    (tmp_path / "real.txt.gz").write_bytes(real_gz)
    srv = serve_directory(tmp_path)
    try:
        with httpx.Client() as c:
            r = c.get(srv.url("/sub/s.xml"))
            assert r.content == xml.replace(b"{{BASE}}", srv.base_url.encode())
            g = c.get(srv.url("/sub/s.xml.gz"))
            assert g.headers["content-type"] == "application/gzip"
            assert gzip.decompress(g.content) == r.content
            real = c.get(srv.url("/real.txt.gz"))
            assert real.content == real_gz
            assert c.get(srv.url("/")).status_code == 404  # no index.html here
    finally:
        srv.stop()


def test_delay(monkeypatch):
    # the pause each answer takes, as asked of the clock (the handler thread's time.sleep)
    slept: list[float] = []
    monkeypatch.setattr(server_mod, "time", types.SimpleNamespace(sleep=slept.append))
    with DemoServer(delay=0.2) as srv:
        assert httpx.get(srv.url("/robots.txt")).status_code == 200
        assert httpx.get(srv.url("/sitemap_index.xml")).status_code == 200
    assert slept == [0.2, 0.2]


def test_module_entry_point_serves_until_interrupted():
    proc = subprocess.Popen(
        [sys.executable, "-m", "sitemap_tui.demo.server", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:\d+", line)
        assert m, line
        r = httpx.get(m.group(0) + "/robots.txt", timeout=10)
        assert r.status_code == 200 and m.group(0) in r.text
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


# --------------------------------------------------------------------------- site content


XML_FILES = sorted(p.name for p in SITE.iterdir() if p.suffix in (".xml", ".rss"))


def test_xml_file_list():
    assert (
        sorted(
            [
                "feed.rss",
                "sitemap-archive-2019.xml",
                "sitemap-archive-index.xml",
                "sitemap-blog.xml",
                "sitemap-images.xml",
                "sitemap-news.xml",
                "sitemap-products.xml",
                "sitemap-video.xml",
                "sitemap_index.xml",
            ]
        )
        == XML_FILES
    )


@pytest.mark.parametrize("name", XML_FILES)
def test_every_xml_file_well_formed_and_counted(server, client, name):
    r = client.get(server.url("/" + name))
    assert r.status_code == 200
    assert b"{{BASE}}" not in r.content
    root = _xml(r.content)
    if root.tag == f"{SM}sitemapindex":
        n = len(root.findall(f"{SM}sitemap"))
    elif root.tag == f"{SM}urlset":
        n = len(root.findall(f"{SM}url"))
    else:
        assert root.tag == "rss" and root.get("version") == "2.0"
        n = len(root.findall("channel/item"))
    assert n == COUNTS[name]


def test_site_size_and_no_stray_files():
    total = sum(p.stat().st_size for p in SITE.rglob("*") if p.is_file())
    assert total < 300 * 1024
    names = {p.name for p in SITE.iterdir()}
    assert names == set(XML_FILES) | {"robots.txt", "sitemap-pages.txt", "index.html"}


def test_index_children(server, client):
    root = _xml(client.get(server.url("/sitemap_index.xml")).content)
    sitemaps = root.findall(f"{SM}sitemap")
    assert all(s.find(f"{SM}lastmod") is not None for s in sitemaps)
    paths = [s.findtext(f"{SM}loc").removeprefix(server.base_url) for s in sitemaps]
    assert paths == [
        "/sitemap-products.xml.gz",
        "/sitemap-blog.xml",
        "/sitemap-images.xml",
        "/sitemap-video.xml",
        "/sitemap-news.xml",
        "/sitemap-archive-index.xml",
        "/sitemap-missing.xml",
    ]
    statuses = {p: client.get(server.url(p)).status_code for p in paths}
    assert statuses.pop("/sitemap-missing.xml") == 404
    assert set(statuses.values()) == {200}
    nested = _xml(client.get(server.url("/sitemap-archive-index.xml")).content)
    assert nested.tag == f"{SM}sitemapindex"
    assert [e.text for e in nested.iter(f"{SM}loc")] == [server.url("/sitemap-archive-2019.xml")]


def test_products_deliberate_problems(server, client):
    root = _xml(client.get(server.url("/sitemap-products.xml")).content)
    urls = root.findall(f"{SM}url")
    locs = [u.findtext(f"{SM}loc") for u in urls]
    lastmods = [u.findtext(f"{SM}lastmod") for u in urls]
    assert len(locs) - len(set(locs)) == 1
    assert [u.findtext(f"{SM}priority") for u in urls].count("1.5") == 1
    assert [u.findtext(f"{SM}changefreq") for u in urls].count("sometimes") == 1
    assert lastmods.count("14/05/2023") == 1
    assert sum(not loc.startswith(server.base_url + "/") for loc in locs) == 1
    assert sum("#" in loc for loc in locs) == 1
    assert sum(";jsessionid=" in loc for loc in locs) == 1
    assert sum("/private/" in loc for loc in locs) == 1
    years = {m[:4] for m in lastmods if m and m[:4].isdigit()}
    assert years == {"2022", "2023", "2024"}
    months = {m[:7] for m in lastmods if m and m[:4].isdigit()}
    assert len(months) == 36


def test_blog_hreflang_clusters(server, client):
    root = _xml(client.get(server.url("/sitemap-blog.xml")).content)
    links = {
        u.findtext(f"{SM}loc"): {
            a.get("hreflang"): a.get("href") for a in u.findall(f"{XHTML}link")
        }
        for u in root.findall(f"{SM}url")
    }
    assert sum(len(v) for v in links.values()) == EXTRA_COUNTS["blog_alternates"]
    missing_return = [
        (src, dst)
        for src, alts in links.items()
        for lang, dst in alts.items()
        if lang != "x-default" and dst != src and src not in links[dst].values()
    ]
    broken = server.url("/fr/blog/waterproof-vs-water-resistant")
    assert missing_return == [(server.url("/en/blog/waterproof-vs-water-resistant"), broken)]
    assert set(links[broken]) == {"fr", "de"}


def test_media_and_news_counts(server, client):
    images = _xml(client.get(server.url("/sitemap-images.xml")).content)
    assert len(list(images.iter(f"{IMAGE}image"))) == EXTRA_COUNTS["images"]
    assert len(list(images.iter(f"{IMAGE}caption"))) == EXTRA_COUNTS["image_captions"]
    video = _xml(client.get(server.url("/sitemap-video.xml")).content)
    vids = list(video.iter(f"{VIDEO}video"))
    assert len(vids) == EXTRA_COUNTS["videos"]
    no_thumb = [v for v in vids if v.find(f"{VIDEO}thumbnail_loc") is None]
    assert len(no_thumb) == EXTRA_COUNTS["videos_without_thumbnail"]
    assert all(len(v.findtext(f"{VIDEO}description")) <= 2048 for v in vids)
    news = _xml(client.get(server.url("/sitemap-news.xml")).content)
    dates = [e.text for e in news.iter(f"{NEWS}publication_date")]
    assert len(dates) == EXTRA_COUNTS["news"]
    assert all(d.startswith("2024-") for d in dates)


def test_pages_txt(server, client):
    r = client.get(server.url("/sitemap-pages.txt"))
    lines = r.text.splitlines()
    assert len(lines) == EXTRA_COUNTS["pages_txt_lines"]
    urls = [ln for ln in lines if ln.startswith(server.base_url + "/")]
    assert len(urls) == COUNTS["sitemap-pages.txt"]
    assert lines[7] == ""  # line 8: blank
    assert not lines[14].startswith("http")  # line 15: not a URL


def test_robots_sitemap_count(server, client):
    text = client.get(server.url("/robots.txt")).text
    n = sum(ln.lower().startswith("sitemap:") for ln in text.splitlines())
    assert n == COUNTS["robots.txt"]
    assert "Disallow: /cart/" in text and "Disallow: /private/" in text


# --------------------------------------------------------------------------- pages (audit)


def test_the_demo_pages_give_every_verdict_of_an_audit(server, tmp_path, monkeypatch):
    """`sitemap-tui audit` on the demo: each fault of demo/pages.py gets its verdict, a rust
    variant is canonicalised to its black one, the rest is indexable; robots.txt keeps GPTBot
    off the shop. Only listed paths are pages (a probe of a common path stays 404)."""
    import contextlib
    import io
    import json

    from sitemap_tui import cli
    from sitemap_tui.demo.pages import FAULTS

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["audit", server.url("/robots.txt"), "--rate", "0", "--format", "jsonl",
                         "--workers", "0", "--no-history"])
    assert code == 0, err.getvalue()
    records = {r["loc"].removeprefix(server.base_url): r for r in map(json.loads, out.getvalue().splitlines())}
    reasons = {path: records[path]["reason"] for path in FAULTS}
    assert reasons == {
        "/rentals": "non-indexable: 404",
        "/archive/2019/summer-sale-2019": "non-indexable: 410",
        "/archive/2019/lookbook-autumn-2019": f"non-indexable: redirect to {server.base_url}/lookbook/fall-colours",
        "/press": "non-indexable: noindex (noindex)",
        "/faq": "non-indexable: noindex (noindex)",
        "/de/blog/layering-for-shoulder-season": "non-indexable: noindex (googlebot: noindex)",
        "/stores/harbour": f"non-indexable: canonicalised to {server.base_url}/stores",
        "/videos/packing-a-45-litre-pack": "non-indexable: 500",
    }
    rust = [r for p, r in records.items() if p.startswith("/products/") and p.endswith("-rust")]
    assert rust and all(r["reason"].endswith("-black") for r in rust)
    assert "GPTBot" in records["/products/tents/canyon-tent-rust"]["blocked_for"]
    assert records["/about"]["indexable"] is True
    assert httpx.get(server.url("/sitemap-index.xml")).status_code == 404

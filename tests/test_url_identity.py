"""One URL, one key: dot segments, default ports, case of scheme and host, IDNA hosts and
percent-encoding give the same key for duplicates, visited files and host comparisons
(issue 14 §3, §7, §8). IDN hosts cannot be served on 127.0.0.1, so these are unit tests."""

from __future__ import annotations

from datetime import UTC, datetime

import cli_process
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_tui.engine.keys import normalized, url_key
from sitemap_tui.engine.model import Entry, FileStats, NodeKind
from sitemap_tui.engine.robots import parse_robots
from sitemap_tui.engine.sniff import ParseInfo
from sitemap_tui.engine.urlpolicy import host_of, normalize, same_host, unfetchable_reason
from sitemap_tui.validate.checker import Checker, FileContext

NOW = datetime(2025, 6, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("http://h.example/sitemap.xml", "http://h.example/./sitemap.xml"),
        ("http://h.example/sitemap.xml", "http://h.example/a/../sitemap.xml"),
        ("http://h.example/a/b/", "http://h.example/a/./b/."),
        ("http://h.example/sitemap.xml", "HTTP://H.Example:80/sitemap.xml"),
        ("http://bücher.example/x", "http://xn--bcher-kva.example/x"),
        ("http://BÜCHER.example/x", "http://xn--bcher-kva.example/x"),
        ("https://e.example/crème-brûlée", "https://e.example/cr%C3%A8me-br%C3%BBl%C3%A9e"),
        ("https://e.example/cr%c3%a8me", "https://e.example/cr%C3%A8me"),
        ("https://e.example/?q=thé", "https://e.example/?q=th%C3%A9"),
        ("HTTP://Example.COM/a", "http://example.com/a"),
    ],
)
def test_one_resource_one_key(a: str, b: str) -> None:
    assert normalize(a) == normalize(b)
    assert url_key(a) == url_key(b)
    assert url_key(a) is not None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("http://example.com/A", "http://example.com/a"),  # the path is case-sensitive
        ("http://example.com/a", "https://example.com/a"),
        ("http://example.com/a?x=1", "http://example.com/a?X=1"),
        ("http://example.com/a%2Fb", "http://example.com/a/b"),  # an escaped "/" is not a "/"
    ],
)
def test_different_resources_keep_different_keys(a: str, b: str) -> None:
    assert normalize(a) != normalize(b)
    assert url_key(a) != url_key(b)


def test_keys_are_fixed_points() -> None:
    for url in ("http://bücher.example/crème/./x?q=é", "HTTP://A.example:80/%c3%a9/../b"):
        key = normalize(url)
        assert normalize(key) == key
        assert url_key(key) == key


def test_hosts_compare_in_one_form() -> None:
    assert host_of("http://bücher.example/") == "xn--bcher-kva.example"
    assert same_host("http://bücher.example/", "http://XN--BCHER-KVA.example/a")
    assert not same_host("http://bücher.example/", "http://bucher.example/")


def run_urlset(url: str, locs: list[str]) -> list[str]:
    checker = Checker()
    ctx = FileContext(node_id=1, url=url, kind=NodeKind.URLSET, now=NOW)
    checker.begin_file(ctx)
    out = []
    for i, loc in enumerate(locs, start=3):
        out += checker.check_entry(ctx, Entry(loc=loc, line=i, tags=["loc"]))
    out += checker.end_file(ctx, ParseInfo(), FileStats())
    return [i.rule for i in out]


def test_idn_sitemap_listing_punycode_urls_is_on_its_own_host() -> None:
    found = run_urlset("http://bücher.example/sitemap.xml", ["http://xn--bcher-kva.example/a"])
    assert "location-different-host" not in found
    found = run_urlset("http://xn--bcher-kva.example/sitemap.xml", ["http://bücher.example/a"])
    assert "location-different-host" not in found
    assert "location-different-host" in run_urlset("http://bücher.example/sitemap.xml", ["http://bucher.example/a"])


def test_duplicates_in_one_file_across_percent_encoding_and_case() -> None:
    found = run_urlset(
        "https://e.example/sitemap.xml",
        ["https://e.example/crème-brûlée", "https://e.example/cr%C3%A8me-br%C3%BBl%C3%A9e"],
    )
    assert found.count("duplicate-url-in-file") == 1
    found = run_urlset("http://example.com/sitemap.xml", ["HTTP://Example.COM/a", "http://example.com/a"])
    assert found.count("duplicate-url-in-file") == 1
    found = run_urlset("http://example.com/sitemap.xml", ["http://example.com/A", "http://example.com/a"])
    assert "duplicate-url-in-file" not in found


def test_robots_rules_apply_to_the_idn_host_in_either_form(tmp_path) -> None:
    """robots.txt read from http://bücher.example/ disallows /private for the punycode URLs too."""
    from sitemap_tui.engine.model import FoundBy, Node
    from sitemap_tui.engine.store import Store, entry_rows
    from sitemap_tui.validate.crossfile import run_crossfile

    store = Store(tmp_path / "x.db")
    node = Node(id=1, url="http://bücher.example/sitemap.xml", kind=NodeKind.URLSET, found_by=FoundBy.USER)
    store.add_node(node)
    locs = ["http://xn--bcher-kva.example/private/a", "http://xn--bcher-kva.example/ok"]
    store.add_rows(1, entry_rows([Entry(loc=loc, line=i) for i, loc in enumerate(locs, start=3)], store.signature_key()))
    store.commit()
    robots_url = "http://bücher.example/robots.txt"
    robots = {robots_url: parse_robots(b"User-agent: *\nDisallow: /private\n", robots_url)}
    run_crossfile(store, enabled={"robots-url-disallowed"}, robots=robots)
    store.commit()
    hits = [i for i in store.iter_issues() if i.rule == "robots-url-disallowed"]
    assert [i.url for i in hits] == ["http://xn--bcher-kva.example/private/a"]
    store.close()


_hosts = st.sampled_from(["example.com", "EXAMPLE.com", "bücher.example", "a.b", "h", "1.2.3.4", "[::1]", "x..y", ".x", "u:p@h"])
_ports = st.sampled_from(["", ":80", ":443", ":8080", ":0", ":99999", ":", ":080"])
_paths = st.lists(
    st.sampled_from(["", "/", "a", ".", "..", "%7e", "%C3%A9", "%c3%a9", "é", "crème", " ", "\u00a0", "?", "?q=é", "#f", "\"", "|", "%zz", "\t", "\ud800"]),
    max_size=6,
).map(lambda parts: "/" + "/".join(parts))


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(["http", "https", "HTTP", "hTtPs"]), _hosts, _ports, _paths)
def test_url_key_is_normalize_of_fetchable_urls(scheme: str, host: str, port: str, path: str) -> None:
    """The shortcuts in url_key() give exactly what normalize() gives."""
    url = f"{scheme}://{host}{port}{path}"
    s = url.strip()  # url_key() strips the loc
    expected = None if unfetchable_reason(s) is not None else normalize(s)
    assert url_key(url) == expected


def test_case_of_scheme_and_host_across_files_and_for_scope(httpserver) -> None:
    """§8 against a real server: HTTP://Example.COM/a and http://example.com/a are one URL for
    cross-file duplicates; HTTP://127.0.0.1:PORT/p is on the sitemap's own host and scheme."""
    import json
    import sys

    base = httpserver.url_for("").rstrip("/")
    upper = base.replace("http://", "HTTP://")
    urlset = '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{}</urlset>'
    index = '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{}</sitemapindex>'
    httpserver.expect_request("/index.xml").respond_with_data(
        index.format(f"<sitemap><loc>{base}/a.xml</loc></sitemap><sitemap><loc>{base}/b.xml</loc></sitemap>"))
    httpserver.expect_request("/a.xml").respond_with_data(urlset.format(f"<url><loc>{upper}/Page</loc></url>"))
    httpserver.expect_request("/b.xml").respond_with_data(urlset.format(f"<url><loc>{base}/Page</loc></url><url><loc>{base}/page</loc></url>"))
    proc = cli_process.run([sys.executable, "-m", "sitemap_tui", "validate", f"{base}/index.xml", "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    issues = json.loads(proc.stdout)["issues"]
    dups = [i for i in issues if i["rule"] == "cross-duplicate-url"]
    assert len(dups) == 1 and dups[0]["url"].lower() == f"{base}/page".lower()
    assert not [i for i in issues if i["rule"].startswith("location-")]


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(["http", "https", "HTTP", "hTtPs"]), _hosts, _ports, _paths)
def test_normalized_is_normalize_for_every_url(scheme: str, host: str, port: str, path: str) -> None:
    """keys.normalized (the checker's duplicate key) takes url_key's shortcut and still gives
    exactly what normalize() gives, fetchable or not."""
    s = f"{scheme}://{host}{port}{path}".strip()
    assert normalized(s) == normalize(s)


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(["http://", "https://"]), st.text(alphabet="ab/:?#;.[]@%\t\n\r &=~\x00é", max_size=14),
       st.sampled_from(["https://example.com/a/b.xml", "http://example.com/", "http://h//b/c?q"]))
def test_resolve_takes_an_absolute_reference_as_urljoin_does(prefix: str, rest: str, base: str) -> None:
    """resolve's shortcut for an absolute http(s) reference (a large index's children) gives
    what urljoin gives, or the reference where urljoin refuses it."""
    from urllib.parse import urljoin

    from sitemap_tui.engine.urlpolicy import resolve

    ref = prefix + rest
    try:
        want = urljoin(base, ref)
    except ValueError:
        want = ref
    assert resolve(base, ref) == want


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["http", "https"]), st.sampled_from(["1.2.3.4", "256.0.0.1", "0x7f.1", "bücher.example", "×",
                                                           "xn--zz", "1.2.3", "01.2.3.4", "a\u200db.example"]),
       st.sampled_from(["", ":80", ":8080"]), _paths.filter(lambda p: "\ud800" not in p))
def test_a_fetchable_url_is_one_httpx_takes(scheme: str, host: str, port: str, path: str) -> None:
    """The host check asks httpx of the authority alone, once per host: a URL it calls
    fetchable never raises InvalidURL in httpx, whatever its path (a lone surrogate, which no
    parser of ours makes, left out: httpx cannot encode it)."""
    import httpx

    url = f"{scheme}://{host}{port}{path}"
    if unfetchable_reason(url) is None:
        httpx.URL(url)


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(["http", "https", "HTTP", "ftp", "file"]), _hosts, _ports,
       st.one_of(_paths, st.text(alphabet="ab/:?#;.[]@%\t\n\r &=~\x00é", max_size=14)))
def test_the_server_of_a_key_is_the_server_of_its_url(scheme: str, host: str, port: str, path: str) -> None:
    """server_of_key (an index's children, keyed once) answers what server_of answers for the
    URL the key is normalize()'s of: the same-server check that decides whether a child is
    followed did not change with it."""
    from sitemap_tui.engine.urlpolicy import same_server, same_server_key, server_of, server_of_key

    url = f"{scheme}://{host}{port}{path}"
    assert server_of_key(normalize(url), url) == server_of(url)
    for index in ("http://h/i.xml", "https://example.com:8080/i.xml", "http://[::1]/i.xml"):
        assert same_server_key(normalize(url), url, server_of(index)) == same_server(url, index)

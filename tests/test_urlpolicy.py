"""URL policy: only http(s) is fetched (T11, T13); normalisation for the visited set (SECURITY §8, §9)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_tui.engine.urlpolicy import (
    has_scheme,
    host_of,
    is_fetchable,
    normalize,
    registrable_host,
    resolve,
    same_host,
    same_server,
    same_site,
    unfetchable_reason,
)


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/sitemap.xml",
        "https://example.com",
        "HTTPS://EXAMPLE.COM/Sitemap.XML",
        "https://example.com:8443/a?b=c#frag",
        "https://user:pw@example.com/x",
        "http://[::1]:8080/sitemap.xml",
        "http://127.0.0.1/s.xml",
        "https://xn--bcher-kva.example/",
        "https://bücher.example/",
        "https://example.com/%1B%5B2J",  # percent-escapes are fine: never unquoted
        "http://HOST/sitemapindex-1.xml",
        "https://example.com./trailing-dot",
        "http://127.0.0.1./s.xml",
        "http://[::ffff:127.0.0.1]/s.xml",  # (its last "label" is a number: an IPv6 literal's)
        "https://web2.example/",
        "https://1.2.3.4.nip.io/",
    ],
)
def test_fetchable(url: str):
    assert unfetchable_reason(url) is None
    assert is_fetchable(url)


@pytest.mark.parametrize(
    ("url", "reason_part"),
    [
        ("file:///etc/passwd", "scheme 'file' is not http(s)"),
        ("FILE:///etc/passwd", "scheme 'file'"),
        ("data:text/xml;base64,PHVybHNldC8+", "scheme 'data'"),
        ("javascript:alert(1)", "scheme 'javascript'"),
        ("ftp://example.com/sitemap.xml", "scheme 'ftp'"),
        ("mailto:a@example.com", "scheme 'mailto'"),
        ("gopher://x/", "scheme 'gopher'"),
        ("/sitemap.xml", "relative"),
        ("sitemap.xml", "relative"),
        ("//example.com/sitemap.xml", "relative"),
        ("", "empty"),
        ("http://", "no host"),
        ("http:///path", "no host"),
        ("http:example.com/x", "no host"),
        ("https://user@/x", "no host"),
        ("http://[::1", "not a valid URL"),
        ("http://[not-ipv6]/", "not a valid URL"),
        ("http://example.com:99999/", "invalid port"),
        ("http://example.com:abc/", "invalid port"),
        ("http://example.com:0/", "invalid port 0"),
        ("http://exa mple.com/", "whitespace"),
        ("http://example.com/a b", "whitespace"),
        (" http://example.com/", "whitespace"),
        ("http://example.com/\u00a0", "whitespace"),
        ("http://example.com/\u2028", "whitespace"),
        ("http://example.com/\tx", "whitespace"),
        ("http://example.com/\nx", "whitespace"),
        ("http://example.com/\x1b]52;c;AAAA\x07", "control"),
        ("http://example.com/\x00", "control"),
        ("http://example.com/\x9b", "control"),
        ("http://example.com/\x7f", "control"),
        ("http://evil.example\\@good.example/", "backslash"),
        ("http://ex%41mple.com/", "invalid character in host"),
        ("http://a..b/", "invalid host"),
        # a numeric host that is no dotted quad: what validate calls invalid, audit does not fetch
        ("http://127.1/", "dotted-decimal"),
        ("http://0177.0.0.1/", "invalid host"),
        ("http://example.123/", "dotted-decimal"),
        ("http://0x7f.0.0.1/", "dotted-decimal"),
        ("https://x.example/" + "a" * 20_000, "longer than"),
    ],
)
def test_unfetchable(url: str, reason_part: str):
    reason = unfetchable_reason(url)
    assert reason is not None and reason_part in reason, reason
    assert not is_fetchable(url)


def test_reason_does_not_echo_payload():
    reason = unfetchable_reason("data:text/html,<script>\x1b]52;c;x\x07</script>")
    assert reason is not None and "\x1b" not in reason and "script" not in reason


def test_none_and_non_str():
    assert unfetchable_reason(None) == "empty URL"
    assert unfetchable_reason(b"http://x/") == "not a string"  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("HTTP://Example.COM", "http://example.com/"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("http://example.com:443/a", "http://example.com:443/a"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("https://example.com/a#frag", "https://example.com/a"),
        ("https://example.com?q=1", "https://example.com/?q=1"),
        # path/query kept, escapes in one case (issue 14 §7: percent-encoding in one form)
        ("https://example.com/A/%7e?Q=B", "https://example.com/A/%7E?Q=B"),
        ("https://User:PW@Example.com/", "https://User:PW@example.com/"),
        ("http://[::1]:80/x", "http://[::1]/x"),
        ("http://[2001:DB8::1]/", "http://[2001:db8::1]/"),
        # one address, one form (found from outside: the full spelling was another host)
        ("http://[0:0:0:0:0:0:0:1]:8886/b.xml", "http://[::1]:8886/b.xml"),
        ("http://[2001:0DB8:0000::0001]/", "http://[2001:db8::1]/"),
        ("http://example.com:/x", "http://example.com/x"),
        ("file:///etc/passwd#x", "file:///etc/passwd"),
        ("/relative#x", "/relative"),
    ],
)
def test_normalize(url: str, key: str):
    assert normalize(url) == key


def test_normalize_never_raises_on_bad_input():
    for bad in ["http://[::1", "http://h:99999/", "http://[x]/", "", "::", "http://\uff03/"]:
        out = normalize(bad)
        assert isinstance(out, str)
        assert normalize(out) == out


def test_normalize_same_sitemap_variants_collide():
    a = normalize("https://Example.com:443/sitemap.xml#top")
    b = normalize("https://example.com/sitemap.xml")
    assert a == b
    assert normalize("http://example.com/sitemap.xml") != b  # scheme matters


def test_resolve():
    robots = "https://www.example.com/robots.txt"
    assert resolve(robots, "/sitemap.xml") == "https://www.example.com/sitemap.xml"
    assert resolve(robots, "wp-sitemap.xml") == "https://www.example.com/wp-sitemap.xml"
    assert resolve(robots, "//cdn.example.com/s.xml") == "https://cdn.example.com/s.xml"
    assert resolve(robots, "https://other.example/s.xml") == "https://other.example/s.xml"
    assert (
        resolve("https://a.example/dir/sub/index.xml", "../s.xml") == "https://a.example/dir/s.xml"
    )
    assert resolve("http://[::1", "x") == "x"  # base unparseable: ref unchanged
    assert isinstance(resolve("http://a/", "http://[::1"), str)


def test_resolve_keeps_the_empty_segments_of_a_relative_path():
    """As RFC 3986 §5.2 and browsers (``new URL(ref, base)``) resolve them: urljoin dropped them,
    so a relative `foo//bar.xml` was fetched as `foo/bar.xml` (found from outside)."""
    base = "http://h/dir/s.xml?x=1"
    assert resolve(base, "foo//bar.xml") == "http://h/dir/foo//bar.xml"
    assert resolve(base, "./a//b/../c") == "http://h/dir/a//c"
    assert resolve(base, "../../..//x?q#f") == "http://h//x?q#f"
    assert resolve(base, "a/./b//.") == "http://h/dir/a/b//"
    assert resolve("http://h", "a//b") == "http://h/a//b"
    # the base's own empty segments too (found by a review: a robots.txt's x//y/index.xml)
    assert resolve("http://a/x//y/index.xml", "part.xml") == "http://a/x//y/part.xml"
    assert resolve("http://a/b//c/d", "../../g") == "http://a/b/g"
    # (near misses: what urljoin already resolves as RFC 3986 does)
    assert resolve(base, "/a//b") == "http://h/a//b"
    assert resolve(base, "../a/b") == "http://h/a/b"
    assert resolve(base, "?q") == "http://h/dir/s.xml?q"


def test_host_of_and_same_host():
    assert host_of("https://WWW.Example.com:8080/x") == "www.example.com"
    assert host_of("http://[::1]/") == "::1"
    assert host_of("http://[0:0:0:0:0:0:0:1]:8886/") == "::1"
    assert same_server("http://[::1]:8886/sitemap.xml", "http://[0:0:0:0:0:0:0:1]:8886/b.xml")
    assert not same_server("http://[::1]:8886/sitemap.xml", "http://[::2]:8886/b.xml")
    assert host_of("/relative") is None
    assert host_of("http://[::1") is None
    assert host_of(None) is None
    assert host_of("") is None
    assert same_host("https://Example.com/a", "http://example.com:81/b")
    assert not same_host("https://example.com/a", "https://www.example.com/a")
    assert not same_host("/a", "/b")  # no host on either side is not "the same host"
    assert not same_host("http://[::1", "http://[::1")


def test_registrable_host_and_same_site():
    assert registrable_host("https://www.example.com/x") == "example.com"
    assert registrable_host("https://WWW.Example.com/x") == "example.com"
    assert registrable_host("https://example.com/x") == "example.com"
    assert registrable_host("https://www2.example.com/x") == "www2.example.com"
    assert registrable_host("https://www./x") == "www."
    assert registrable_host("/x") is None
    assert same_site("https://www.example.com/", "https://example.com/a")
    assert not same_site("https://shop.example.com/", "https://example.com/")


def test_has_scheme():
    assert has_scheme("http://x") and has_scheme("javascript:x") and has_scheme("x-y+z.1:a")
    assert not has_scheme("/x") and not has_scheme("//x") and not has_scheme("1http://x")


urls = st.one_of(
    st.text(max_size=80),
    st.builds(
        lambda scheme, host, port, path, frag: f"{scheme}://{host}{port}{path}{frag}",
        st.sampled_from(["http", "HTTPS", "ftp", "file", "hTTp", ""]),
        st.text(max_size=20),
        st.sampled_from(["", ":80", ":443", ":0", ":99999", ":", ":8080", ":x"]),
        st.text(max_size=30),
        st.sampled_from(["", "#", "#frag", "#a#b"]),
    ),
)


@settings(max_examples=1000, deadline=None)
@given(urls)
def test_property_never_raises_and_normalize_idempotent(url: str):
    reason = unfetchable_reason(url)
    assert reason is None or isinstance(reason, str)
    key = normalize(url)
    assert normalize(key) == key
    host_of(url)
    same_host(url, url)
    registrable_host(url)
    assert isinstance(resolve("https://example.com/robots.txt", url), str)
    assert isinstance(resolve(url, "/x"), str)


@settings(max_examples=500, deadline=None)
@given(urls)
def test_property_fetchable_means_http_with_host(url: str):
    if unfetchable_reason(url) is None:
        assert url.lower().startswith(("http://", "https://"))
        assert host_of(url)
        assert not any(c.isspace() or ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in url)

"""URL policy (SECURITY.md §8): never raises; whatever it calls fetchable is an absolute http(s)
URL with a host that httpx accepts as is; normalize() is idempotent."""

from __future__ import annotations

import httpx
from hypothesis import given
from hypothesis import strategies as st

from sitemap_tui.engine import urlpolicy

from .strategies import hostile_text

schemes = st.sampled_from(["http", "https", "HTTP", "hTTps", "file", "ftp", "javascript", "data", "x-y", "", "h ttp"])
hosts = st.one_of(
    st.sampled_from(["example.com", "EXAMPLE.com", "127.0.0.1", "[::1]", "[::1", "a..b", ".x", "x:0",
                     "x:99999", "[::]junk", "[::1]:8x", "[::1]:", "[v1.x]", "user:pw@h", "h\\@evil", "evil@good", "xn--nxasmq6b", "h:80", "h:443",
                     "\u0435xample.com", "%41", "", " h"]),
    st.text(min_size=0, max_size=20),
)
tails = st.one_of(st.just(""), hostile_text.map(lambda t: "/" + t))
urls = st.one_of(
    hostile_text,
    st.builds(lambda s, h, t, sep: f"{s}{sep}{h}{t}", schemes, hosts, tails, st.sampled_from(["://", ":", ":///", ":/", "//"])),
)


@given(urls)
def test_policy_never_raises_and_fetchable_means_httpx_accepts(url: str) -> None:
    reason = urlpolicy.unfetchable_reason(url)
    assert reason is None or (isinstance(reason, str) and reason)
    key = urlpolicy.normalize(url)
    assert isinstance(key, str)
    assert urlpolicy.normalize(key) == key
    urlpolicy.host_of(url)
    assert isinstance(urlpolicy.same_host(url, "https://example.com/"), bool)
    assert isinstance(urlpolicy.resolve("https://example.com/a/b", url), str)
    if reason is None:
        assert url.lower().startswith(("http://", "https://"))
        parsed = httpx.URL(url)  # must not raise: httpx.InvalidURL is not an HTTPError
        assert parsed.scheme in ("http", "https") and parsed.host
        httpx.Request("GET", url)


@given(urls, urls)
def test_resolve_then_policy(base: str, ref: str) -> None:
    target = urlpolicy.resolve(base, ref)
    urlpolicy.unfetchable_reason(target)
    urlpolicy.normalize(target)

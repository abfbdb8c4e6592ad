"""The cross-file keys computed at parse time (engine.keys) and how the store keeps them."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from sitemap_tui.engine import keys
from sitemap_tui.engine.keys import hreflang_link, set_signature, stored_key, url_key

SECRET = bytes(range(16))


def test_url_key() -> None:
    assert url_key("https://a.com/x") == "https://a.com/x"
    assert url_key("  HTTPS://A.com:443/x#frag ") == "https://a.com/x"
    assert url_key("https://a.com") == "https://a.com/"
    assert url_key("/relative") is None
    assert url_key("ftp://a.com/x") is None
    assert url_key(None) is None


def test_stored_key_keeps_no_second_copy_of_the_url() -> None:
    assert stored_key("https://a.com/x", "https://a.com/x") is None
    assert stored_key("https://a.com/x", " https://a.com/x") == "https://a.com/x"
    assert stored_key(None, "/relative") == ""
    assert stored_key(None, None) == ""


def test_hreflang_link() -> None:
    assert hreflang_link("alternate", "en", "https://a.com/en") == ("en", "https://a.com/en")
    assert hreflang_link(" Alternate ", " EN-gb ", " HTTPS://A.com/en ") == (
        "en-gb",
        "https://a.com/en",
    )
    assert hreflang_link("canonical", "en", "https://a.com/en") is None
    assert hreflang_link("alternate", "  ", "https://a.com/en") is None
    assert hreflang_link("alternate", None, "https://a.com/en") is None
    assert hreflang_link(None, "en", "https://a.com/en") is None
    assert hreflang_link("alternate", "en", "/en") is None
    assert hreflang_link("alternate", "en", None) is None


pairs = st.lists(
    st.tuples(
        st.sampled_from(["en", "de", "x-default"]),
        st.sampled_from(["https://a.com/1", "https://a.com/2", "https://b.com/"]),
    ),
    max_size=6,
)


@given(pairs, st.randoms())
def test_signature_is_that_of_the_set(links: list[tuple[str, str]], rnd) -> None:
    shuffled = links * 2
    rnd.shuffle(shuffled)
    n, h = set_signature(links, SECRET)
    assert (n, h) == set_signature(shuffled, SECRET)  # order and repeats do not matter
    assert n == len(set(links))
    assert 0 <= h < 2**62  # an SQLite INTEGER


@given(pairs, pairs)
def test_different_sets_differ(a: list[tuple[str, str]], b: list[tuple[str, str]]) -> None:
    if set(a) != set(b):
        assert set_signature(a, SECRET) != set_signature(b, SECRET)


def test_signature_depends_on_the_secret() -> None:
    links = [("en", "https://a.com/1"), ("de", "https://a.com/2")]
    assert set_signature(links, SECRET)[1] != set_signature(links, bytes(16))[1]


@given(pairs, st.sampled_from([SECRET, bytes(16), b"\xff" * 16]))
def test_signature_is_the_keyed_blake2b_of_the_sorted_set(links: list[tuple[str, str]], secret: bytes) -> None:
    # the value stores keep (alt_h): the keyed state reused across calls must give exactly the
    # digest of a fresh keyed hash, call after call, whatever secret came before
    text = "\n".join(f"{lang} {target}" for lang, target in sorted(set(links)))
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8, key=secret).digest()
    expected = (len(set(links)), int.from_bytes(digest, "little") >> 2)
    assert set_signature(links, secret) == expected
    assert set_signature(links, secret) == expected
    assert keys._keyed(secret).copy().digest() == hashlib.blake2b(digest_size=8, key=secret).digest()

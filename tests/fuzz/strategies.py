"""Hypothesis strategies shared by the fuzz tests and bench/fuzz_long.py."""

from __future__ import annotations

from hypothesis import strategies as st

from .seeds import corpus_seeds

# Fragments that hit the interesting paths of the parsers when spliced into a document.
TOKENS: tuple[bytes, ...] = (
    b"<!DOCTYPE urlset [<!ENTITY a \"aaaa\">]>", b"<!DOCTYPE html>", b"&a;", b"&#27;", b"&#x9b;",
    b"&amp;", b"&lt;", b"<![CDATA[", b"]]>", b"<!--", b"-->", b"<?xml version=\"1.0\"?>",
    b"<?xml-stylesheet href=\"x\"?>", b"<url>", b"</url>", b"<loc>", b"</loc>", b"<sitemap>",
    b"</sitemap>", b"<lastmod>", b"9999-12-31T23:59:59-14:00", b"0000-01-01", b"<priority>nan",
    b"\x00", b"\x1b]52;c;eA==\x07", b"\xff\xfe", b"\xef\xbb\xbf", b"\xc3(", b"\xc2\x9b",
    b"\xe2\x80\xae", b"\n", b"\r\n", b"http://", b"https://[::1", b"file:///etc/passwd",
    b"xmlns:x=\"u\"", b"<x:y/>", b"<xi:include href=\"file:///etc/passwd\"/>", b"<" * 3,
    b"\"", b"'", b"=", b" ", b"\t",
)


@st.composite
def mutated(draw: st.DrawFn, seeds: tuple[bytes, ...] | None = None) -> bytes:
    """A corpus document with a few random edits (delete, insert, replace, duplicate, splice)."""
    pool = seeds or corpus_seeds()
    data = bytearray(draw(st.sampled_from(pool)))
    for _ in range(draw(st.integers(0, 8))):
        n = len(data)
        pos = draw(st.integers(0, n))
        op = draw(st.sampled_from(("del", "ins", "tok", "rep", "dup", "cut")))
        if op == "del" and n:
            end = min(n, pos + draw(st.integers(1, 64)))
            del data[pos:end]
        elif op == "ins":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=16))
        elif op == "tok":
            data[pos:pos] = draw(st.sampled_from(TOKENS))
        elif op == "rep" and pos < n:
            data[pos] = draw(st.integers(0, 255))
        elif op == "dup" and n:
            end = min(n, pos + draw(st.integers(1, 256)))
            data[pos:pos] = data[pos:end] * draw(st.integers(1, 4))
        elif op == "cut":
            del data[pos:]
    return bytes(data)


def chunked(data: bytes, sizes: list[int]) -> list[bytes]:
    """Split ``data`` with the given (cycled) chunk sizes, like network reads."""
    out, i, k = [], 0, 0
    while i < len(data):
        size = max(1, sizes[k % len(sizes)]) if sizes else len(data)
        out.append(data[i : i + size])
        i += size
        k += 1
    return out


chunk_sizes = st.lists(st.integers(1, 4096), min_size=1, max_size=8)

documents = st.one_of(
    st.binary(max_size=4096),
    mutated(),
    st.lists(st.sampled_from(TOKENS), max_size=40).map(b"".join),
)

# Text with the characters that matter for display and URLs
hostile_text = st.text(
    alphabet=st.one_of(
        st.characters(),  # any code point, surrogates included
        st.sampled_from(list("\x00\x07\x08\x09\x0a\x0d\x1b\x7f\x85\x9b\x9c\x9d\u200b\u200e\u202e\u2066\u2028\ufeff[]/@=:%#?&\\ ")),
    ),
    max_size=300,
)

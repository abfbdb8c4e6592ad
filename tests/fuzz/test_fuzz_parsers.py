"""Parsers under random and mutated input: SniffingParser (XML, text, HTML/JSON sniffing) fed in
random chunk sizes, and robots.txt. They must never raise, never hang (hypothesis deadline),
respect the entry cap and give the same entries however the body is split."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from judging import judged

from sitemap_tui.engine.model import ChildRef, Entry, Issue, NodeKind, Severity
from sitemap_tui.engine.robots import parse_robots
from sitemap_tui.engine.sniff import SniffingParser
from sitemap_tui.engine.urlpolicy import unfetchable_reason

from .strategies import TOKENS, chunk_sizes, chunked, documents, mutated

CONTENT_TYPES = st.sampled_from(
    [None, "application/xml", "text/xml; charset=utf-16", "text/plain", "text/html", "application/json", "x/y"]
)


def parse(data: bytes, sizes: list[int], content_type: str | None = None, max_entries: int = 50_000):
    p = SniffingParser("https://example.com/sitemap.xml", content_type, max_entries=max_entries)
    items = []
    for chunk in chunked(data, sizes):
        items.extend(p.feed(chunk))
        if p.done:
            break
    items.extend(p.close())
    assert p.close() == [] and p.feed(b"<url>") == []
    items = judged(items)
    for it in items:
        assert isinstance(it, (Entry, ChildRef, Issue)), it
        if isinstance(it, Issue):
            assert it.rule and isinstance(it.rule, str)
            assert isinstance(it.severity, Severity)
            assert isinstance(it.message, str)
        else:
            assert it.loc is None or isinstance(it.loc, str)
    assert p.kind is None or isinstance(p.kind, NodeKind)
    return p, items


@given(documents, chunk_sizes, CONTENT_TYPES)
def test_parser_never_raises(data: bytes, sizes: list[int], ctype: str | None) -> None:
    parse(data, sizes, ctype)


@given(mutated(), chunk_sizes)
def test_mutated_corpus_never_raises(data: bytes, sizes: list[int]) -> None:
    parse(data, sizes)


def _entries(items: list) -> list:
    return [(type(i).__name__, i.loc) for i in items if isinstance(i, (Entry, ChildRef))]


@given(mutated(), chunk_sizes)
def test_chunking_does_not_change_entries(data: bytes, sizes: list[int]) -> None:
    p1, whole = parse(data, [len(data) or 1])
    p2, split = parse(data, sizes)
    assert _entries(whole) == _entries(split)
    assert p1.kind == p2.kind


@given(mutated(), chunk_sizes, st.integers(0, 5))
def test_entry_cap_holds(data: bytes, sizes: list[int], cap: int) -> None:
    _, items = parse(data, sizes, max_entries=cap)
    assert sum(isinstance(i, (Entry, ChildRef)) for i in items) <= cap


@given(st.lists(st.sampled_from(TOKENS), max_size=30).map(b"".join), chunk_sizes)
def test_doctype_is_always_refused(body: bytes, sizes: list[int]) -> None:
    """Whatever follows, a DOCTYPE in the prolog stops the parse with xml-dtd-forbidden and no
    entry (no entity is ever expanded)."""
    doc = b'<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY e "x">]>\n<urlset>' + body
    _, items = parse(doc, sizes)
    assert any(isinstance(i, Issue) and i.rule == "xml-dtd-forbidden" for i in items)
    assert not [i for i in items if isinstance(i, (Entry, ChildRef))]


@given(st.one_of(st.binary(max_size=8192), mutated()), st.integers(0, 9000))
def test_robots_never_raises(data: bytes, max_bytes: int) -> None:
    robots = parse_robots(data, "https://example.com/robots.txt", max_bytes=max_bytes)
    for line in robots.sitemaps:
        assert line.line >= 1
        assert (line.unfetchable is None) == (unfetchable_reason(line.url) is None)
        if line.unfetchable is None:
            assert line.url.lower().startswith(("http://", "https://"))
    robots.allowed("https://example.com/x")

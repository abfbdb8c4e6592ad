"""Counted nouns and articles in user-visible text."""

from __future__ import annotations

import pytest

from sitemap_tui.words import article, noun, plural


@pytest.mark.parametrize(
    ("count", "word", "want"),
    [(0, "file", "0 files"), (1, "file", "1 file"), (2, "file", "2 files"), (1, "URL", "1 URL"),
     (12000, "URL", "12,000 URLs"), (1, "sitemap", "1 sitemap"), (3, "entry", "3 entries"),
     (2, "index", "2 indexes"), (2, "child", "2 children"), (1, "child", "1 child")],
)
def test_plural(count: int, word: str, want: str) -> None:
    assert plural(count, word) == want


def test_noun_alone_and_explicit_plural() -> None:
    assert noun(1, "is") == "is" and noun(2, "is") == "are"
    assert plural(2, "person", "people") == "2 people"


@pytest.mark.parametrize(
    ("phrase", "want"),
    [("RSS feed", "an RSS feed"), ("Atom feed", "an Atom feed"), ("HTML page", "an HTML page"),
     ("XML file", "an XML file"), ("URL", "a URL"), ("JSON document", "a JSON document"),
     ("urlset", "a urlset"), ("index", "an index"), ("text sitemap", "a text sitemap"),
     ("unknown format", "an unknown format"), ("hour", "an hour"), ("sitemap index", "a sitemap index")],
)
def test_article(phrase: str, want: str) -> None:
    assert article(phrase) == want

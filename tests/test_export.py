"""URL list writers: the fast per-batch formatter matches the record writer, files are atomic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitemap_tui.engine.formats import FORMATS, UrlRecord, format_entries, render
from sitemap_tui.engine.model import Alternate, Entry, Image, News, Video
from sitemap_tui.session.urlfile import write_atomic

ENTRIES = [
    Entry(loc="https://example.com/a?x=1&y=\u00e9", lastmod_raw="2024-01-02", changefreq_raw="daily",
          priority_raw="0.5", images=[Image(loc="https://example.com/i.png")],
          alternates=[Alternate("alternate", "de", "https://example.com/de/a"),
                      Alternate("alternate", None, None),
                      Alternate("alternate", None, "https://m.example.com/a", 4, "only screen and (max-width: 640px)")]),
    Entry(loc="https://example.com/\x1b]52;c;SGVsbG8=\x07evil\u202e"),
    Entry(loc=None),
    Entry(loc='https://example.com/"quoted",comma'),
]
# extensions, and a blank loc (no URL either)
MORE = [
    *ENTRIES,
    Entry(loc="https://example.com/v", videos=[Video(
        fields={"title": "T\u00e9", "tag": "a", "content_loc": "https://example.com/v.mp4"},
        multi={"title": ["T\u00e9"], "tag": ["a", "b"], "content_loc": ["https://example.com/v.mp4"]},
        attrs={"content_loc@x": "1"})],
        news=[News("Paper", "en", "2024-01-01", "Headline", {"keywords": "k"})]),
    Entry(loc="   "),
]


@pytest.mark.parametrize("fmt", FORMATS)
def test_fast_formatter_matches_record_writer(fmt: str) -> None:
    for lastmod in (None, "2024-02-02"):
        fast = format_entries(MORE, "https://example.com/s.xml", fmt, lastmod)
        slow = render((UrlRecord.from_entry(e, "https://example.com/s.xml", lastmod) for e in MORE), fmt)
        if fmt == "csv":
            slow = slow.split("\n", 1)[1]  # the header is written once per output, not per batch
        assert fast == slow


def test_an_entry_without_a_url_is_written_in_no_format() -> None:
    for fmt in FORMATS:
        text = format_entries(MORE, "s", fmt)
        assert "example.com/v" in text
        rows = [line for line in text.splitlines() if line.strip()]
        assert len(rows) == 4, (fmt, rows)  # the None and blank locs are not URLs


def test_jsonl_video_and_news_fields() -> None:
    record = json.loads(format_entries(MORE[4:5], "s", "jsonl", "2024-02-02"))
    assert record["sitemap_lastmod"] == "2024-02-02"
    assert record["videos"] == [{"title": "T\u00e9", "tag": ["a", "b"], "content_loc": "https://example.com/v.mp4",
                                 "content_loc@x": "1"}]
    assert record["news"] == [{"publication_name": "Paper", "publication_language": "en",
                               "publication_date": "2024-01-01", "title": "Headline", "keywords": "k"}]


def test_a_separate_mobile_url_keeps_its_media_query() -> None:
    record = json.loads(format_entries(ENTRIES[:1], "s", "jsonl"))
    assert record["alternates"] == [
        {"hreflang": "de", "href": "https://example.com/de/a"},
        {"hreflang": None, "href": None},
        {"hreflang": None, "href": "https://m.example.com/a", "media": "only screen and (max-width: 640px)"},
    ]


def test_outputs_carry_no_control_characters() -> None:
    for fmt in FORMATS:
        text = format_entries(ENTRIES, "https://example.com/s.xml", fmt)
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    line = format_entries(ENTRIES[1:2], "s", "jsonl")
    assert json.loads(line)["loc"] == ENTRIES[1].loc  # JSON keeps the exact value, escaped


def test_write_atomic_never_overwrites_silently(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    records = [UrlRecord.from_entry(e, "s") for e in ENTRIES]
    assert write_atomic(path, "txt", records) == 3
    with pytest.raises(FileExistsError):
        write_atomic(path, "txt", records)
    assert write_atomic(path, "txt", records[:1], overwrite=True) == 1
    assert path.read_text() == "https://example.com/a?x=1&y=\u00e9\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_write_atomic_leaves_nothing_on_failure(tmp_path: Path) -> None:
    def broken():
        yield UrlRecord.from_entry(ENTRIES[0], "s")
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        write_atomic(tmp_path / "out.csv", "csv", broken())
    assert list(tmp_path.iterdir()) == []


def test_stored_records_carry_the_media_query_too(tmp_path: Path) -> None:
    from sitemap_tui.engine.formats import records_from_store
    from sitemap_tui.engine.model import Node, NodeKind, NodeState
    from sitemap_tui.engine.store import EntryFilter, Store

    store = Store(tmp_path / "x.db")
    store.add_node(Node(id=1, url="https://example.com/s.xml", kind=NodeKind.URLSET, state=NodeState.DONE))
    store.add_entries(1, ENTRIES[:1])
    (record,) = records_from_store(store, EntryFilter(node_ids=[1]))
    assert record == UrlRecord.from_entry(ENTRIES[0], "https://example.com/s.xml")
    store.close()

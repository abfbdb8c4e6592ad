"""URL list writers: the fast per-batch formatter matches the record writer, files are atomic."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from sitemap_tui.engine.formats import FORMATS, UrlRecord, UrlWriter, format_entries, render
from sitemap_tui.engine.model import Alternate, Entry, Image, News, Video
from sitemap_tui.engine.values import CHANGEFREQS, parse_changefreq
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


def _dumps_line(r: UrlRecord) -> str:
    """The JSON line as json.dumps writes it (what the record writer wrote before its fast path)."""
    record = {"loc": r.loc, "lastmod": r.lastmod, "changefreq": r.changefreq, "priority": r.priority,
              "sitemap": r.sitemap, "sitemap_lastmod": r.sitemap_lastmod, "images": r.images,
              "videos": r.videos, "news": r.news, "alternates": r.alternates}
    return json.dumps(record, ensure_ascii=True) + "\n"


def test_record_writer_jsonl_is_json_dumps() -> None:
    """The record writer's JSON lines (a re-exploration's unchanged file, the explorer's export)
    are built without a dict per record: byte for byte what json.dumps wrote, for hostile text
    (controls, bidi, quotes, lone surrogates, non-ASCII) and for values that are not strings."""
    records = [UrlRecord.from_entry(e, "https://example.com/s.xml\u202e", lm) for e in MORE for lm in (None, "2024")]
    odd = ["\x00\x1f\x7f\x85\u2028\"\\/", "\ud800", "\U0001f600", ""]
    records += [
        UrlRecord(loc=v, lastmod=v, changefreq=None, priority=v, sitemap=v, sitemap_lastmod=v,
                  images=[{"loc": v, "title": None}], alternates=[{"hreflang": v, "href": None}])
        for v in odd
    ]
    # a value read back from a store need not be a string
    records.append(UrlRecord(loc="https://example.com/n", lastmod=20240101, changefreq=None,  # type: ignore[arg-type]
                             priority=0.5, sitemap="s", news=[{"n": 1.25, "b": True}]))  # type: ignore[arg-type]
    buf = io.StringIO()
    UrlWriter(buf, "jsonl").write(records)
    assert buf.getvalue() == "".join(_dumps_line(r) for r in records if r.loc and not r.loc.isspace())
    assert format_entries(MORE, "https://example.com/s.xml", "jsonl", "2024") == "".join(
        _dumps_line(UrlRecord.from_entry(e, "https://example.com/s.xml", "2024")) for e in MORE
        if e.loc and not e.loc.isspace())


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


def _sorted_store(tmp_path: Path, n: int):
    """``n`` URLs whose loc order is not their id order; every 4th has no lastmod and every
    3rd two lastmods repeat, so NULLs and ties are both in play."""
    from datetime import UTC, datetime

    from sitemap_tui.engine.model import Node, NodeKind, NodeState
    from sitemap_tui.engine.store import Store

    store = Store(tmp_path / "order.db")
    store.add_node(Node(id=1, url="https://example.com/s.xml", kind=NodeKind.URLSET, state=NodeState.DONE))
    entries = []
    for i in range(n):
        day = None if i % 4 == 0 else f"2024-{1 + (i * 7) % 12:02d}-{1 + (i // 3) % 28:02d}"
        # a changefreq of five kinds (one not a word: NULL), 0-2 images: long runs of one value
        freq = ("daily", "Weekly", None, "sometimes", "always")[i % 5]
        entries.append(Entry(loc=f"https://example.com/{(i * 37) % n:05d}/{i}", lastmod_raw=day,
                             lastmod=datetime.fromisoformat(day).replace(tzinfo=UTC) if day else None,
                             changefreq_raw=freq, changefreq=parse_changefreq(freq),
                             images=[Image(loc=f"https://example.com/i/{i}/{k}") for k in range(i % 7 // 3)]))
    ids = store.add_entries(1, entries)
    store.commit()
    for sort in ("loc", "lastmod", "changefreq", "ext"):
        store.ensure_index(sort)
    store.commit()
    return store, ids


def _expected(rows, sort: str, descending: bool) -> list[int]:
    """The URL table's order, computed here: (value, id), NULL values last either way."""
    ranks = {w: i for i, w in enumerate(CHANGEFREQS)}
    value = {"id": lambda r: r.id, "loc": lambda r: r.loc, "lastmod": lambda r: r.lastmod,
             "changefreq": lambda r: ranks.get((r.changefreq_raw or "").lower()),
             "ext": lambda r: r.n_images + r.n_videos + r.n_news + r.n_alternates}[sort]
    have = sorted((r for r in rows if value(r) is not None), key=lambda r: (value(r), r.id), reverse=descending)
    nulls = sorted((r for r in rows if value(r) is None), key=lambda r: r.id, reverse=descending)
    return [r.id for r in have + nulls]


@pytest.mark.parametrize("sort", ["id", "loc", "lastmod", "changefreq", "ext"])
@pytest.mark.parametrize("descending", [False, True])
def test_export_rows_follow_the_tables_sort(tmp_path: Path, sort: str, descending: bool) -> None:
    """Issue 18: export order follows the table's sort, both ways, for a filter (keyset pages,
    more than one) and for a long list of marked ids (sorted here, in chunks)."""
    from sitemap_tui.engine.store import EntryFilter, exports
    from sitemap_tui.engine.store.urls import Query

    n = 2 * exports.PAGE_ROWS + 123
    store, ids = _sorted_store(tmp_path, n)
    everything = list(store.iter_entries(EntryFilter()))
    got = [r.id for r in exports.ordered_rows(store, EntryFilter(node_ids=[1]), sort, descending=descending)]
    assert got == _expected(everything, sort, descending)
    if not descending:  # the table's own listing, read the way the table reads it
        table = Query(store, EntryFilter(node_ids=[1]), sort)
        assert got[:500] == [r.id for r in table.rows(store.conn, limit=500)]
    marked = ids[::3]  # more than ID_CHUNK ids
    assert len(marked) > exports.ID_CHUNK
    chosen = [r for r in everything if r.id in set(marked)]
    got = [r.id for r in exports.ordered_rows(store, EntryFilter(entry_ids=marked), sort, descending=descending)]
    assert got == _expected(chosen, sort, descending)
    small = marked[:40]
    got = [r.id for r in exports.ordered_rows(store, EntryFilter(entry_ids=small), sort, descending=descending)]
    assert got == _expected([r for r in everything if r.id in set(small)], sort, descending)
    store.close()


def test_rule_ids_per_url(tmp_path: Path) -> None:
    """Issue 18: CSV / JSON Lines carry each URL's rule ids: distinct, in the order found; a
    file-level issue belongs to no URL."""
    from sitemap_tui.engine.formats import records_from_rows
    from sitemap_tui.engine.model import Issue, Node, NodeKind, NodeState, Severity
    from sitemap_tui.engine.store import EntryFilter, Store

    store = Store(tmp_path / "x.db")
    for nid in (1, 2):
        store.add_node(Node(id=nid, url=f"https://example.com/s{nid}.xml", kind=NodeKind.URLSET, state=NodeState.DONE))
    a = store.add_entries(1, [Entry(loc="https://example.com/a"), Entry(loc="https://example.com/b")])
    b = store.add_entries(2, [Entry(loc="https://example.com/c")])

    def iss(rule: str, node: int) -> Issue:
        return Issue(rule=rule, severity=Severity.WARNING, message=rule, node_id=node)

    store.add_issues([iss("r-2", 1), iss("r-1", 1), iss("r-2", 1), iss("file", 1), iss("r-3", 2)],
                     [a[0], a[0], a[0], None, b[0]])
    store.commit()
    rows = list(store.iter_entries(EntryFilter()))
    records = list(records_from_rows(store, rows, issues=True))
    assert [r.issues for r in records] == [["r-2", "r-1"], [], ["r-3"]]
    csv_text = render(records, "csv")
    assert csv_text.splitlines()[0] == "loc,lastmod,changefreq,priority,sitemap,sitemap_lastmod,images,videos,news,alternates"
    buf = io.StringIO()
    UrlWriter(buf, "csv", issues=True).write(records)
    lines = buf.getvalue().splitlines()
    assert lines[0].endswith(",alternates,issues") and lines[1].endswith(",r-2 r-1") and lines[2].endswith(",0,")
    buf = io.StringIO()
    UrlWriter(buf, "jsonl", issues=True).write(records)
    assert [json.loads(line)["issues"] for line in buf.getvalue().splitlines()] == [["r-2", "r-1"], [], ["r-3"]]
    assert list(records_from_rows(store, rows))[0].issues == []  # not asked for: not read
    store.close()


def test_media_formats_list_image_and_video_urls() -> None:
    """Issue 18: export can carry the image / video URLs of the selection, one a line."""
    recs = [UrlRecord.from_entry(e, "s") for e in MORE]
    assert render(recs, "images") == "https://example.com/i.png\n"
    assert render(recs, "videos") == "https://example.com/v.mp4\n"
    both = UrlRecord(loc="https://example.com/p", lastmod=None, changefreq=None, priority=None, sitemap="s",
                     images=[{"loc": "https://example.com/1.png"}, {"loc": None}, {"loc": "https://example.com/2.png"}],
                     videos=[{"player_loc": "https://example.com/player?v=1", "title": "x"},
                             {"content_loc": "https://example.com/2.mp4", "player_loc": "https://example.com/p2"}])
    buf = io.StringIO()
    writer = UrlWriter(buf, "images")
    writer.write([both])
    assert buf.getvalue() == "https://example.com/1.png\nhttps://example.com/2.png\n" and writer.count == 2
    assert render([both], "videos").splitlines() == [
        "https://example.com/player?v=1", "https://example.com/2.mp4", "https://example.com/p2"]


def test_write_atomic_creates_folders_only_when_allowed(tmp_path: Path) -> None:
    """The explorer asks before creating a folder: ``create_dirs=False`` never makes one."""
    from sitemap_tui.session.urlfile import missing_dir

    records = [UrlRecord.from_entry(e, "s") for e in ENTRIES]
    target = tmp_path / "a" / "b" / "out.txt"
    assert missing_dir(target) == tmp_path / "a"
    with pytest.raises(FileNotFoundError, match="does not exist"):
        write_atomic(target, "txt", records, create_dirs=False)
    assert not (tmp_path / "a").exists()
    assert write_atomic(target, "txt", records, create_dirs=True) == 3
    assert missing_dir(target) is None


def test_export_prefs_round_trip_atomically(tmp_path: Path) -> None:
    from sitemap_tui.tui.state import ExportPrefs, load_export_prefs, save_export_prefs

    path = tmp_path / "state" / "state.json"
    assert load_export_prefs(path) == ExportPrefs()  # missing
    path.parent.mkdir()
    path.write_text('{"other": 1, "export": "broken"}')
    assert load_export_prefs(path) == ExportPrefs()  # broken entry: nothing remembered
    assert save_export_prefs(ExportPrefs("/tmp/x", "csv", "filter"), path) is None
    assert load_export_prefs(path) == ExportPrefs("/tmp/x", "csv", "filter")
    assert json.loads(path.read_text())["other"] == 1  # other keys kept
    assert [p.name for p in path.parent.iterdir()] == ["state.json"]  # no temp file left
    path.write_text("{not json")
    assert load_export_prefs(path) == ExportPrefs()
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert "not saved" in (save_export_prefs(ExportPrefs(), blocked / "state.json") or "")


def test_stored_jsonl_is_what_the_record_writer_writes(tmp_path: Path) -> None:
    """A re-exploration's unchanged file is written from its stored rows' columns (stored_jsonl):
    the same lines as its records through UrlWriter, extensions, alternates, hostile text and
    URLs that are not http(s) included, in id order, with this run's sitemap and lastmod."""
    from sitemap_tui.engine.formats import records_from_rows, stored_jsonl
    from sitemap_tui.engine.model import FileStats, Node, NodeKind, NodeState
    from sitemap_tui.engine.store import EntryFilter, Store
    from sitemap_tui.engine.store.carry import PreviousExploration

    entries = [*MORE, Entry(loc="mailto:a@example.com"), *(Entry(loc=f"https://example.com/{i}") for i in range(5))]
    store = Store(tmp_path / "x.db")
    node = Node(id=1, url="https://example.com/s.xml", kind=NodeKind.URLSET, state=NodeState.DONE,
                stats=FileStats(etag='"1"'))
    store.add_node(node)
    store.update_node(node)  # (the stats, the etag among them)
    store.add_entries(1, [e for e in entries if e.loc and not e.loc.isspace()])
    store.close()
    previous = PreviousExploration(tmp_path / "x.db")
    old = previous.validators("https://example.com/s.xml")
    assert old is not None
    for sitemap, lastmod in (("https://example.com/moved.xml", None), ("https://example.com/s.xml\u202e", "2024")):
        fast = "".join(stored_jsonl(previous.reads, rows, sitemap, lastmod) for rows in previous.record_rows(old, size=3))
        records = list(records_from_rows(previous.reads, previous.reads.iter_entries(EntryFilter(node_ids=[old.id]))))
        for r in records:
            r.sitemap, r.sitemap_lastmod = sitemap, lastmod
        buf = io.StringIO()
        UrlWriter(buf, "jsonl").write(records)
        assert fast == buf.getvalue() and fast.count("\n") == len(entries) - 2
    previous.close()

"""The URL list formats (txt, CSV, JSON Lines): the engine's workers format parsed entries with
them for the headless ``urls``, the TUI's export writes stored entries with them
(sitemap_tui/session/urlfile.py).

CSV is read by spreadsheets, which run a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and,
in some, TAB or CR) as a formula: a sitemap's ``<loc>`` such as ``=HYPERLINK("http://evil")``
would become a live link or worse. Such cells get a leading ``'`` (OWASP's advice for CSV
injection, what spreadsheet-safe exporters do). The ``csv-raw`` format writes them as they are,
for programs that read the CSV."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from sitemap_tui.engine.model import Entry
from sitemap_tui.engine.sanitize import display, url_text

FORMATS = ("txt", "csv", "jsonl")
# the explorer's export also writes the media URLs of the selection, one a line (not `urls`)
MEDIA_FORMATS = ("images", "videos")
EXPORT_FORMATS = (*FORMATS, *MEDIA_FORMATS)
CSV_RAW = "csv-raw"  # CSV without the formula neutralisation (`urls --csv-raw`)
WRITER_FORMATS = (*EXPORT_FORMATS, CSV_RAW)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# CSV keeps one row per URL: the extensions are counted there; JSON Lines carries their fields
CSV_COLUMNS = (
    "loc", "lastmod", "changefreq", "priority", "sitemap", "sitemap_lastmod", "images", "videos", "news",
    "alternates",
)
AUDIT_COLUMNS = (
    "status", "final_url", "redirects", "indexable", "reason", "canonical", "blocked_for", "last_modified",
    "content_type", "response_time",
)
"""The export's audit columns / keys when the store has audit results: named as ``sitemap-tui audit
--format jsonl`` names them (its loc, sitemap and lastmod are the export's own)."""
ISSUES_COLUMN = "issues"
"""The export's extra CSV column / JSON key: the rule ids of the URL's issues (CSV: space-separated)."""
# a video's URLs for the "videos" format: the file itself, then the player page
VIDEO_URL_FIELDS = ("content_loc", "player_loc")
# video children that Google allows several times: always lists, so their type never changes
VIDEO_LISTS = ("tag", "price")


@dataclass(slots=True)
class UrlRecord:
    """One exported URL; built from a parsed Entry or a stored row."""

    loc: str | None
    lastmod: str | None
    changefreq: str | None
    priority: str | None
    sitemap: str
    sitemap_lastmod: str | None = None  # the <lastmod> the parent index gives the sitemap
    images: list[dict[str, Any]] = field(default_factory=list)
    videos: list[dict[str, Any]] = field(default_factory=list)
    news: list[dict[str, Any]] = field(default_factory=list)
    alternates: list[dict[str, str | None]] = field(default_factory=list)
    issues: list[str] = field(default_factory=list)  # rule ids; only stored rows have them
    audit: dict[str, Any] | None = None  # AUDIT_COLUMNS' values; None: not audited (stored rows only)

    @classmethod
    def from_entry(cls, entry: Entry, sitemap: str, sitemap_lastmod: str | None = None) -> UrlRecord:
        return cls(
            loc=entry.loc,
            lastmod=entry.lastmod_raw,
            changefreq=entry.changefreq_raw,
            priority=entry.priority_raw,
            sitemap=sitemap,
            sitemap_lastmod=sitemap_lastmod,
            images=[image_record(i.loc, i.title, i.caption, i.geo_location, i.license) for i in entry.images],
            videos=[video_record(v.fields, v.multi, v.attrs) for v in entry.videos],
            news=[news_record(n.publication_name, n.publication_language, n.publication_date, n.title, n.extra)
                  for n in entry.news],
            alternates=[alternate_record(a.hreflang, a.href, a.media) for a in entry.alternates],
        )


def alternate_record(hreflang: str | None, href: str | None, media: str | None) -> dict[str, str | None]:
    """One xhtml:link of a URL record; ``media`` only on a separate mobile URL's link."""
    record = {"hreflang": hreflang, "href": href}
    if media:
        record["media"] = media
    return record


def image_record(loc: str | None, title: str | None, caption: str | None, geo_location: str | None,
                 license: str | None) -> dict[str, Any]:
    """One image:image of a URL record (every key always present, null when absent)."""
    return {"loc": loc, "title": title, "caption": caption, "geo_location": geo_location, "license": license}


def video_record(fields: dict[str, str], multi: dict[str, list[str]], attrs: dict[str, str]) -> dict[str, Any]:
    """One video:video: each child's text by its name (thumbnail_loc, title, content_loc, ...);
    ``tag`` and ``price`` are lists, as is any child that repeats; attributes are keyed
    ``child@attribute`` (``player_loc@allow_embed``; the second price's ``price[2]@currency``)."""
    record: dict[str, Any] = {}
    for name, value in fields.items():
        values = multi.get(name, [value])
        record[name] = values if name in VIDEO_LISTS or len(values) > 1 else value
    record.update(attrs)
    return record


def news_record(name: str | None, language: str | None, date: str | None, title: str | None,
                extra: dict[str, str] | None) -> dict[str, Any]:
    """One news:news: the publication, date and title, then any other child by its name
    (keywords, genres, stock_tickers, access)."""
    record: dict[str, Any] = {"publication_name": name, "publication_language": language,
                              "publication_date": date, "title": title}
    for key, value in (extra or {}).items():
        record.setdefault(key, value)
    return record


_json_str = json.encoder.encode_basestring_ascii  # the C escaper behind json.dumps(ensure_ascii)


def _js(value: str | None) -> str:
    return "null" if value is None else _json_str(value)


def _jv(value: Any) -> str:
    """One value of a record as ``json.dumps(record, ensure_ascii=True)`` writes it: a string
    through the same C escaper, anything else (a list, a number read back from a store) by
    json.dumps itself."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return _json_str(value)
    if value.__class__ is list and not value:
        return "[]"  # (most records: no images, videos, news or alternates)
    return json.dumps(value)


def record_json(r: UrlRecord) -> str:
    """A record's JSON line, the same text as json.dumps of its dict (UrlWriter's keys, in
    order) plus a newline, without building the dict (the explorer's JSON Lines export; a
    re-exploration's unchanged file is written from its rows, stored_jsonl)."""
    loc, lastmod, changefreq, priority, sitemap, sitemap_lastmod = [
        _json_str(v) if v.__class__ is str else _jv(v)
        for v in (r.loc, r.lastmod, r.changefreq, r.priority, r.sitemap, r.sitemap_lastmod)
    ]
    images, videos, news, alternates = [
        _jv(v) if v or v.__class__ is not list else "[]" for v in (r.images, r.videos, r.news, r.alternates)
    ]
    return _json_line(loc, lastmod, changefreq, priority, sitemap, sitemap_lastmod, images, videos, news, alternates)


def _json_line(*values: str) -> str:
    """One record's JSON line from its values already encoded, in UrlWriter's key order: the one
    template record_json and stored_jsonl share."""
    return _LINE.format(*values)


_LINE = (
    '{{"loc": {}, "lastmod": {}, "changefreq": {}, "priority": {}, "sitemap": {}, "sitemap_lastmod": {}, '
    '"images": {}, "videos": {}, "news": {}, "alternates": {}}}\n'
)


def is_url(loc: str | None) -> bool:
    """A record without a usable loc is no URL and is never written, in any format."""
    return bool(loc) and not loc.isspace()  # type: ignore[union-attr]


def format_entries(entries: Iterable[Entry], sitemap: str, fmt: str, sitemap_lastmod: str | None = None) -> str:
    """Entries straight to text, without intermediate records (the hot path of `urls`);
    ``fmt`` is one of WRITER_FORMATS.

    Produces exactly what UrlWriter produces for UrlRecord.from_entry(...) records, minus
    the CSV header."""
    entries = [e for e in entries if is_url(e.loc)]
    if fmt == "txt":
        lines = [url_text(e.loc) for e in entries]
        return "\n".join(lines) + "\n" if lines else ""
    if fmt == "jsonl":
        sm = _json_str(sitemap)
        sm_lastmod = _js(sitemap_lastmod)
        dumps = json.dumps
        out = []
        for e in entries:
            alts = (
                "[" + ", ".join(
                    f'{{"hreflang": {_js(a.hreflang)}, "href": {_js(a.href)}'
                    + (f', "media": {_json_str(a.media)}}}' if a.media else "}")
                    for a in e.alternates
                ) + "]"
                if e.alternates
                else "[]"
            )
            # image/video/news blocks are rare enough per URL to go through json.dumps
            images = dumps([image_record(i.loc, i.title, i.caption, i.geo_location, i.license)
                            for i in e.images]) if e.images else "[]"
            videos = dumps([video_record(v.fields, v.multi, v.attrs) for v in e.videos]) if e.videos else "[]"
            news = dumps([news_record(n.publication_name, n.publication_language, n.publication_date, n.title,
                                      n.extra) for n in e.news]) if e.news else "[]"
            out.append(
                f'{{"loc": {_js(e.loc)}, "lastmod": {_js(e.lastmod_raw)}, '
                f'"changefreq": {_js(e.changefreq_raw)}, "priority": {_js(e.priority_raw)}, '
                f'"sitemap": {sm}, "sitemap_lastmod": {sm_lastmod}, "images": {images}, '
                f'"videos": {videos}, "news": {news}, "alternates": {alts}}}\n'
            )
        return "".join(out)
    buf = io.StringIO()
    writer = UrlWriter(buf, fmt)
    buf.seek(0)
    buf.truncate()
    writer.write(UrlRecord.from_entry(e, sitemap, sitemap_lastmod) for e in entries)
    return buf.getvalue()


def _plain(value: str | None) -> str:
    # URLs are kept whole (no ellipsis) but control characters never reach the output raw
    return display(value, max_len=1 << 30)


def _safe_cell(value: str | None) -> str:
    return neutralise_cell(_plain(value))


def csv_cell(value: object) -> object:
    """A record's value as a CSV cell: a list joined by spaces, true/false, "" for None, and
    text made safe (control characters escaped, a formula start quoted); numbers as they are."""
    if isinstance(value, list):
        value = " ".join(str(v) for v in value)
    if value is True or value is False:
        return "true" if value else "false"
    if value is None:
        return ""
    return _safe_cell(value) if isinstance(value, str) else value


def neutralise_cell(value: str) -> str:
    """A CSV cell a spreadsheet shows as text: a leading ``'`` when it would start a formula."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def media_urls(record: UrlRecord, fmt: str) -> list[str]:
    """The image (``images``) or video (``videos``: content_loc, then player_loc) URLs of a record."""
    if fmt == "images":
        urls = [i.get("loc") for i in record.images]
    else:
        urls = [v.get(name) for v in record.videos for name in VIDEO_URL_FIELDS]
    return [url_text(u) for u in urls if isinstance(u, str) and is_url(u)]


class UrlWriter:
    """Streams records in one format to a text stream; ``count`` is the lines written (URLs,
    or media URLs in a media format). ``issues`` adds the rule ids column / key (the export's)."""

    def __init__(self, out: IO[str], fmt: str, *, issues: bool = False, audit: Sequence[str] = ()) -> None:
        if fmt not in WRITER_FORMATS:
            raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
        self.out = out
        self.fmt = "csv" if fmt == CSV_RAW else fmt
        self.issues = issues
        # the audit columns after the others (AUDIT_COLUMNS, those of them the store has results for)
        self.audit = tuple(audit)
        self.count = 0
        self._csv: Any = None
        self._cell = _plain if fmt == CSV_RAW else _safe_cell
        if self.fmt == "csv":
            self._csv = csv.writer(out, lineterminator="\n")
            self._csv.writerow((*CSV_COLUMNS, *((ISSUES_COLUMN,) if issues else ()), *self.audit))

    def _csv_row(self, r: UrlRecord) -> tuple[Any, ...]:
        cell = self._cell
        row: tuple[Any, ...] = (
            neutralise_cell(url_text(r.loc)) if cell is _safe_cell else url_text(r.loc),
            cell(r.lastmod), cell(r.changefreq), cell(r.priority),
            neutralise_cell(url_text(r.sitemap)) if cell is _safe_cell else url_text(r.sitemap), cell(r.sitemap_lastmod), len(r.images), len(r.videos), len(r.news),
            len(r.alternates),
        )
        if self.issues:
            row = (*row, cell(" ".join(r.issues)))
        if self.audit:
            values = r.audit or {}
            row = (*row, *(_audit_cell(values.get(k), cell, k) for k in self.audit))
        return row

    def write(self, records: Iterable[UrlRecord]) -> None:
        out = self.out
        records = (r for r in records if is_url(r.loc))
        if self.fmt == "txt":
            lines = [url_text(r.loc) for r in records]
            if lines:
                out.write("\n".join(lines))
                out.write("\n")
            self.count += len(lines)
        elif self.fmt in MEDIA_FORMATS:
            lines = [u for r in records for u in media_urls(r, self.fmt)]
            if lines:
                out.write("\n".join(lines))
                out.write("\n")
            self.count += len(lines)
        elif self.fmt == "csv":
            rows = [self._csv_row(r) for r in records]
            self._csv.writerows(rows)
            self.count += len(rows)
        elif not self.issues and not self.audit:
            lines = [record_json(r) for r in records]
            if lines:
                out.write("".join(lines))
            self.count += len(lines)
        else:
            n = 0
            dumps = json.dumps
            for r in records:
                record: dict[str, Any] = {
                    "loc": r.loc, "lastmod": r.lastmod, "changefreq": r.changefreq,
                    "priority": r.priority, "sitemap": r.sitemap, "sitemap_lastmod": r.sitemap_lastmod,
                    "images": r.images, "videos": r.videos, "news": r.news, "alternates": r.alternates,
                }
                if self.issues:
                    record[ISSUES_COLUMN] = r.issues
                if self.audit:
                    values = r.audit or {}
                    record.update((k, values.get(k)) for k in self.audit)
                # ensure_ascii escapes C0/C1/bidi characters, so JSON output is terminal-safe
                out.write(dumps(record, ensure_ascii=True))
                out.write("\n")
                n += 1
            self.count += n


def _audit_cell(value: Any, cell: Any, column: str) -> Any:
    """A CSV cell as ``sitemap-tui audit --format csv`` writes it: lists space-separated,
    true/false, empty for none; but ``?`` for a blocked_for not known (no robots.txt read, as
    the URL table shows it), which read as "no crawler blocked" when empty."""
    if column == "blocked_for" and value is None:
        return "?"
    if isinstance(value, list):
        return cell(" ".join(value))
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return cell(value) if isinstance(value, str) else value


def render(records: Iterable[UrlRecord], fmt: str) -> str:
    buf = io.StringIO()
    UrlWriter(buf, fmt).write(records)
    return buf.getvalue()


def records_from_store(store: Any, flt: Any, *, sort: str = "id") -> Iterator[UrlRecord]:
    """Stored rows (filtered) as export records, with their extensions and hreflang alternates."""
    return records_from_rows(store, store.iter_entries(flt, sort=sort))


def records_from_rows(store: Any, rows: Iterable[Any], *, issues: bool = False, audit: bool = False) -> Iterator[UrlRecord]:
    """Stored rows, in the order given, as export records with their extensions, hreflang
    alternates, (``issues``) the rule ids of their issues and (``audit``) their audit results."""
    from sitemap_tui.engine.store.coverage_filters import is_unlisted
    from sitemap_tui.engine.store.diff_view import REMOVED_EXTENSIONS, is_removed, removed_sitemaps
    from sitemap_tui.engine.store.exports import (  # the headless workers need no store
        audit_values_for,
        rule_ids_for,
    )

    nodes: dict[int, tuple[str, str | None]] = {}
    batch: list[Any] = []

    def emit(rows: list[Any]) -> Iterator[UrlRecord]:
        # compare mode's removed rows are OLD's: their sitemap and extensions are read from the
        # comparison's copies of OLD's (an export named NEW's root and lost their images)
        gone = [r.id for r in rows if is_removed(r.id)]
        alts = store.alternates_for([r.id for r in rows if r.n_alternates and not is_removed(r.id)])
        ext = store.extensions_for([r.id for r in rows if (r.n_images or r.n_videos or r.n_news) and not is_removed(r.id)])
        old_sitemaps = {}
        if gone:
            alts.update(store.alternates_for(gone, REMOVED_EXTENSIONS))
            ext.update(store.extensions_for(gone, REMOVED_EXTENSIONS))
            old_sitemaps = removed_sitemaps(store.conn, gone)
        rules = rule_ids_for(store.conn, rows) if issues else {}
        audits = audit_values_for(store.conn, rows) if audit else {}
        for r in rows:
            if r.node_id not in nodes:
                node = store.node(r.node_id)
                nodes[r.node_id] = ((node.stats.final_url or node.url), node.lastmod_raw) if node else ("", None)
            # a coverage:missing page is in no sitemap (it is filed under the root, not listed there)
            sitemap, sitemap_lastmod = ("", None) if is_unlisted(r.id) else nodes[r.node_id]
            if r.id in old_sitemaps:
                old_url, sitemap_lastmod = old_sitemaps[r.id]
                sitemap = old_url or ""
            images, videos, news = ext.get(r.id, ([], [], []))
            yield UrlRecord(
                loc=r.loc, lastmod=r.lastmod_raw, changefreq=r.changefreq_raw, priority=r.priority_raw,
                sitemap=sitemap, sitemap_lastmod=sitemap_lastmod,
                images=[image_record(*i) for i in images],
                videos=[video_record(v.get("fields", {}), v.get("multi", {}), v.get("attrs", {})) for v in videos],
                news=[news_record(*n) for n in news],
                alternates=[alternate_record(*link) for link in alts.get(r.id, [])],
                issues=rules.get(r.id, []),
                audit=audits.get(r.id),
            )

    for row in rows:
        batch.append(row)
        if len(batch) >= 2000:
            yield from emit(batch)
            batch = []
    if batch:
        yield from emit(batch)


def _extra_lists(rid: int, has_ext: Any, has_alt: Any, ext: dict[int, Any],
                 alts: dict[int, Any]) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    """A stored entry's images, videos, news and alternates as a record holds them, from the
    store's extensions_for / alternates_for; most rows have none: no lookup, no comprehension."""
    if has_ext:
        images, videos, news = ext.get(rid, ((), (), ()))
        image_list = [image_record(*i) for i in images]
        video_list = [video_record(v.get("fields", {}), v.get("multi", {}), v.get("attrs", {})) for v in videos]
        news_list = [news_record(*n) for n in news]
    else:
        image_list, video_list, news_list = [], [], []
    links = [alternate_record(*link) for link in alts.get(rid, ())] if has_alt else []
    return image_list, video_list, news_list, links


STORED_ROW = ("id", "loc", "lastmod_raw", "changefreq_raw", "priority_raw", "n_images", "n_videos", "n_news",
              "n_alternates")
"""The columns of a stored row that stored_jsonl reads, in order (store/carry.py record_rows)."""


def stored_jsonl(store: Any, rows: list[tuple[Any, ...]], sitemap: str, sitemap_lastmod: str | None) -> str:
    """The JSON lines of one file's stored rows (STORED_ROW tuples), as UrlWriter writes their
    records with this ``sitemap`` and ``sitemap_lastmod``: a row without extension or alternate
    straight from its columns, without an EntryRow, a record or a dict."""
    alts = store.alternates_for([r[0] for r in rows if r[8]])
    ext = store.extensions_for([r[0] for r in rows if r[5] or r[6] or r[7]])
    sm = _jv(sitemap)
    sm_lastmod = _jv(sitemap_lastmod)
    out: list[str] = []
    for rid, loc, lastmod, changefreq, priority, n_images, n_videos, n_news, n_alternates in rows:
        if not is_url(loc):
            continue
        loc, lastmod, changefreq, priority = [
            _json_str(v) if v.__class__ is str else _jv(v) for v in (loc, lastmod, changefreq, priority)
        ]
        if n_images or n_videos or n_news or n_alternates:
            images, videos, news, links = [
                _jv(v) if v else "[]"
                for v in _extra_lists(rid, n_images or n_videos or n_news, n_alternates, ext, alts)
            ]
        else:
            images = videos = news = links = "[]"
        out.append(_json_line(loc, lastmod, changefreq, priority, sm, sm_lastmod, images, videos, news, links))
    return "".join(out)

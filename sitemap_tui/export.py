"""URL list writers (txt, CSV, JSON Lines) shared by the headless CLI and the TUI's export.

Files are written atomically (a temp file beside the target, then rename) so a cancelled or
failed export never leaves half a file under the user's chosen name."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from sitemap_tui.engine.model import Entry
from sitemap_tui.engine.sanitize import display

FORMATS = ("txt", "csv", "jsonl")
CSV_COLUMNS = ("loc", "lastmod", "changefreq", "priority", "sitemap", "images", "videos", "news", "alternates")


@dataclass(slots=True)
class UrlRecord:
    """One exported URL; built from a parsed Entry or a stored row."""

    loc: str | None
    lastmod: str | None
    changefreq: str | None
    priority: str | None
    sitemap: str
    images: int = 0
    videos: int = 0
    news: int = 0
    alternates: list[dict[str, str | None]] = field(default_factory=list)

    @classmethod
    def from_entry(cls, entry: Entry, sitemap: str) -> UrlRecord:
        return cls(
            loc=entry.loc,
            lastmod=entry.lastmod_raw,
            changefreq=entry.changefreq_raw,
            priority=entry.priority_raw,
            sitemap=sitemap,
            images=len(entry.images),
            videos=len(entry.videos),
            news=len(entry.news),
            alternates=[alternate_record(a.hreflang, a.href, a.media) for a in entry.alternates],
        )


def alternate_record(hreflang: str | None, href: str | None, media: str | None) -> dict[str, str | None]:
    """One xhtml:link of a URL record; ``media`` only on a separate mobile URL's link."""
    record = {"hreflang": hreflang, "href": href}
    if media:
        record["media"] = media
    return record


_json_str = json.encoder.encode_basestring_ascii  # the C escaper behind json.dumps(ensure_ascii)


def _js(value: str | None) -> str:
    return "null" if value is None else _json_str(value)


def is_url(loc: str | None) -> bool:
    """A record without a usable loc is no URL and is never written, in any format."""
    return bool(loc) and not loc.isspace()  # type: ignore[union-attr]


def format_entries(entries: Iterable[Entry], sitemap: str, fmt: str) -> str:
    """Entries straight to text, without intermediate records (the hot path of `urls`).

    Produces exactly what UrlWriter produces for UrlRecord.from_entry(...) records, minus
    the CSV header."""
    entries = [e for e in entries if is_url(e.loc)]
    if fmt == "txt":
        lines = [_plain(e.loc) for e in entries]
        return "\n".join(lines) + "\n" if lines else ""
    if fmt == "jsonl":
        sm = _json_str(sitemap)
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
            out.append(
                f'{{"loc": {_js(e.loc)}, "lastmod": {_js(e.lastmod_raw)}, '
                f'"changefreq": {_js(e.changefreq_raw)}, "priority": {_js(e.priority_raw)}, '
                f'"sitemap": {sm}, "images": {len(e.images)}, "videos": {len(e.videos)}, '
                f'"news": {len(e.news)}, "alternates": {alts}}}\n'
            )
        return "".join(out)
    buf = io.StringIO()
    writer = UrlWriter(buf, fmt)
    buf.seek(0)
    buf.truncate()
    writer.write(UrlRecord.from_entry(e, sitemap) for e in entries)
    return buf.getvalue()


def _plain(value: str | None) -> str:
    # URLs are kept whole (no ellipsis) but control characters never reach the output raw
    return display(value, max_len=1 << 30)


class UrlWriter:
    """Streams records in one format to a text stream."""

    def __init__(self, out: IO[str], fmt: str) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
        self.out = out
        self.fmt = fmt
        self.count = 0
        self._csv: Any = None
        if fmt == "csv":
            self._csv = csv.writer(out, lineterminator="\n")
            self._csv.writerow(CSV_COLUMNS)

    def write(self, records: Iterable[UrlRecord]) -> None:
        out = self.out
        records = (r for r in records if is_url(r.loc))
        if self.fmt == "txt":
            lines = [_plain(r.loc) for r in records]
            if lines:
                out.write("\n".join(lines))
                out.write("\n")
            self.count += len(lines)
        elif self.fmt == "csv":
            rows = [
                (
                    _plain(r.loc), _plain(r.lastmod), _plain(r.changefreq), _plain(r.priority),
                    _plain(r.sitemap), r.images, r.videos, r.news, len(r.alternates),
                )
                for r in records
            ]
            self._csv.writerows(rows)
            self.count += len(rows)
        else:
            n = 0
            dumps = json.dumps
            for r in records:
                # ensure_ascii escapes C0/C1/bidi characters, so JSON output is terminal-safe
                out.write(
                    dumps(
                        {
                            "loc": r.loc, "lastmod": r.lastmod, "changefreq": r.changefreq,
                            "priority": r.priority, "sitemap": r.sitemap, "images": r.images,
                            "videos": r.videos, "news": r.news, "alternates": r.alternates,
                        },
                        ensure_ascii=True,
                    )
                )
                out.write("\n")
                n += 1
            self.count += n


def write_atomic(path: Path, fmt: str, records: Iterable[UrlRecord], *, overwrite: bool = False) -> int:
    """Write all records to ``path`` via a temp file and rename; returns the count written."""
    path = Path(path)
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path} exists")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            writer = UrlWriter(fh, fmt)
            batch: list[UrlRecord] = []
            for rec in records:
                batch.append(rec)
                if len(batch) >= 5000:
                    writer.write(batch)
                    batch = []
            writer.write(batch)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return writer.count


def render(records: Iterable[UrlRecord], fmt: str) -> str:
    buf = io.StringIO()
    UrlWriter(buf, fmt).write(records)
    return buf.getvalue()


def records_from_store(store: Any, flt: Any, *, sort: str = "id") -> Iterator[UrlRecord]:
    """Stored rows (filtered) as export records, with their hreflang alternates."""
    urls: dict[int, str] = {}
    batch: list[Any] = []

    def emit(rows: list[Any]) -> Iterator[UrlRecord]:
        alts = store.alternates_for([r.id for r in rows if r.n_alternates])
        for r in rows:
            if r.node_id not in urls:
                node = store.node(r.node_id)
                urls[r.node_id] = (node.stats.final_url or node.url) if node else ""
            yield UrlRecord(
                loc=r.loc, lastmod=r.lastmod_raw, changefreq=r.changefreq_raw, priority=r.priority_raw,
                sitemap=urls[r.node_id], images=r.n_images, videos=r.n_videos, news=r.n_news,
                alternates=[alternate_record(*link) for link in alts.get(r.id, [])],
            )

    for row in store.iter_entries(flt, sort=sort):
        batch.append(row)
        if len(batch) >= 2000:
            yield from emit(batch)
            batch = []
    if batch:
        yield from emit(batch)

"""``audit --compare-list FILE``: the URLs of a list the user already has (a crawl export, a Search
Console or analytics export, server-log URLs). One URL per line, or a CSV (comma, semicolon or
tab) whose header names a URL column: ``url``/``URL``, ``Address`` (Screaming Frog), ``loc``,
``page`` (any case; the first of these in that order). A value that is no http(s) URL is
counted, not guessed at; a file that cannot be read or holds no URL is a usage error."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from sitemap_tui.engine.keys import url_key
from sitemap_tui.session.exits import UsageError

URL_COLUMNS = ("url", "address", "loc", "page")
MAX_BYTES = 1 << 30  # a list larger than 1 GiB is no export this reads in one go


@dataclass(slots=True)
class UrlList:
    urls: list[tuple[str, str]]  # (key, loc), each key once, in file order
    column: str | None  # the CSV column read; None: one URL per line
    rejected: int  # values that are no http(s) URL
    repeated: int  # URLs met again (same key)


def _csv_header(first: str) -> tuple[str, list[str]] | None:
    """The delimiter and header of a CSV first line, or None for a plain list."""
    if first.lower().startswith(("http://", "https://")):
        return None
    for delim in (",", "\t", ";"):
        if delim in first:
            return delim, next(csv.reader([first], delimiter=delim))
    cell = first.strip().strip('"').lower()
    return (",", [first.strip().strip('"')]) if cell in URL_COLUMNS else None


def read_url_list(path: str) -> UrlList:
    """The URLs of ``path``; a UsageError (one line) when it cannot be read or has none."""
    try:
        p = Path(path)
        if p.is_dir():
            raise UsageError(f"--compare-list {path}: is a folder, not a URL list")
        if p.stat().st_size > MAX_BYTES:
            raise UsageError(f"--compare-list {path}: larger than {MAX_BYTES >> 30} GiB")
        text = p.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"--compare-list {path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise UsageError(f"--compare-list {path}: cannot read it ({exc.strerror or exc})") from None
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), "")
    header = _csv_header(first)
    column: str | None = None
    values: list[str]
    if header is None:
        values = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    else:
        delim, names = header
        lowered = [n.strip().lower() for n in names]
        index = next((lowered.index(c) for c in URL_COLUMNS if c in lowered), None)
        if index is None:
            shown = ", ".join(n.strip() for n in names[:12])
            raise UsageError(f"--compare-list {path}: a CSV without a url, Address, loc or page column "
                             f"(its columns: {shown})")
        column = names[index].strip()
        rows = csv.reader(io.StringIO(text[text.index(first) + len(first):]), delimiter=delim)
        values = [row[index].strip() if index < len(row) else "" for row in rows if any(c.strip() for c in row)]
    out: dict[str, str] = {}
    rejected = repeated = 0
    for value in values:
        key = url_key(value) if value.lower().startswith(("http://", "https://")) else None
        if key is None:
            rejected += 1
        elif key in out:
            repeated += 1
        else:
            out[key] = value
    if not out:
        raise UsageError(f"--compare-list {path}: no http(s) URL in it"
                         + (f" ({rejected} value(s) that are none)" if rejected else ""))
    return UrlList(list(out.items()), column, rejected, repeated)

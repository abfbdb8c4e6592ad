"""Reading a local sitemap (or a ``--map``ped URL's file) through the same bounded decoder as an
HTTP body, and the clock of the time this process spends in sinks (parsing), which no file's
deadline is charged for."""

from __future__ import annotations

import asyncio
import contextlib
import mimetypes
import time
from pathlib import Path
from typing import TYPE_CHECKING

from sitemap_tui.engine.decode import BodyDecoder, CapExceeded
from sitemap_tui.engine.fetch_outcome import (
    CHUNK,
    MIB,
    FetchOutcome,
    ProgressCallback,
    ResponseCallback,
    Sink,
    StopFetch,
    describe,
    error_for,
    fail,
    note_decoding,
)
from sitemap_tui.engine.model import FileStats

if TYPE_CHECKING:
    from sitemap_tui.engine.localmap import MapHit


class BusyClock:
    """Seconds this process has spent inside fetch sinks (parsing and checking), all files together.

    A file's deadline measures the server's slowness. When several files share one event loop (a
    worker runs a few at once, and ``--concurrency`` may exceed the cores), a CPU-heavy sibling
    holds the loop while this file's bytes wait in the socket: with 8 files in flight on 2 cores,
    a 50 MiB file needed more than its 30 s of wall time and was reported as a slow server. Time
    spent in sinks is therefore given back to every running file's deadline (``_Watchdog``)."""

    seconds = 0.0


def timed_sink(sink: Sink, chunk: bytes) -> None:
    t0 = time.perf_counter()
    try:
        sink(chunk)
    finally:
        BusyClock.seconds += time.perf_counter() - t0


async def fetch_local(
    path: Path | str,
    sink: Sink,
    *,
    max_decoded: int = 50 * MIB,
    max_wire: int = 64 * MIB,
    on_progress: ProgressCallback | None = None,
) -> FetchOutcome:
    """Read a local file through the same bounded decoder as HTTP bodies (``.gz`` included).

    ``stats.final_url`` is the file's ``file:`` URI (for display), ``http_status`` stays None.
    Reads happen in a worker thread, 64 KiB at a time, so a slow disk does not freeze the UI.
    """
    path = Path(path)
    try:
        uri = path.resolve().as_uri()
    except (OSError, ValueError, RuntimeError):
        uri = str(path)
    out = FetchOutcome(stats=FileStats(final_url=uri), final_url=uri, redirect_chain=[uri])
    stats = out.stats
    started = time.perf_counter()
    decoder: BodyDecoder | None = None
    try:
        # A FIFO or device would block or never end: only regular files.
        if not path.is_file():
            fail(out, f"not a readable file: {path}" if path.exists() else f"no such file: {path}")
            return out
        decoder = BodyDecoder(None, max_decoded)
        with path.open("rb") as fh:
            total: int | None = None
            with contextlib.suppress(OSError):
                total = path.stat().st_size
            next_report = CHUNK
            while True:
                raw = await asyncio.to_thread(fh.read, CHUNK)
                if not raw:
                    break
                stats.wire_bytes += len(raw)
                if stats.wire_bytes > max_wire:
                    raise CapExceeded(max_wire, f"file larger than {max_wire:,} bytes")
                for chunk in decoder.feed(raw):
                    timed_sink(sink, chunk)
                if on_progress is not None and stats.wire_bytes >= next_report:
                    on_progress(stats.wire_bytes, total)
                    next_report = stats.wire_bytes + CHUNK
            for chunk in decoder.finish():
                timed_sink(sink, chunk)
    except StopFetch:
        out.stopped_early = True
    except OSError as exc:
        fail(out, f"cannot read {path}: {exc.strerror or describe(exc)}")
    except Exception as exc:  # DecodeError, CapExceeded, sink trouble: the node's error
        fail(out, *error_for(exc, None))
    finally:
        if decoder is not None:
            note_decoding(out, decoder)
        stats.fetch_time = time.perf_counter() - started
    return out


async def fetch_mapped(
    hit: MapHit,
    sink: Sink,
    *,
    max_decoded: int,
    max_wire: int,
    on_progress: ProgressCallback | None = None,
    on_response: ResponseCallback | None = None,
) -> FetchOutcome:
    """A ``--map``ped URL read from its directory, with the caps and ``.gz`` decoding of HTTP.

    The outcome keeps the URL (location and host rules judge the deployed address); a file the
    directory lacks answers as a 404 would, a path leaving it as a 403, both with the reason."""
    if hit.path is None:
        out = FetchOutcome(stats=FileStats(final_url=hit.url, http_status=hit.status),
                           final_url=hit.url, redirect_chain=[hit.url])
        fail(out, hit.error or f"not found: {hit.url}")
        out.stats.fetch_time = 0.0
        # an answer, with no header: a robots.txt the build lacks is a 404's "no rules", not an
        # unreachable one's "disallow everything" (RFC 9309; the audit read it so)
        out.headers = []
        return out
    # a page's type, as a static host would send it (an audit judges pages by it); a sitemap keeps
    # no headers, so its rules judge a local build as they always did
    html = mimetypes.guess_type(hit.path.name)[0] == "text/html"
    headers = [("content-type", "text/html; charset=utf-8")] if html else None
    if on_response is not None:
        on_response(FetchOutcome(stats=FileStats(final_url=hit.url, http_status=200),
                                 final_url=hit.url, redirect_chain=[hit.url], headers=headers))
    out = await fetch_local(hit.path, sink, max_decoded=max_decoded, max_wire=max_wire,
                            on_progress=on_progress)
    out.final_url = hit.url
    out.redirect_chain = [hit.url]
    out.stats.final_url = hit.url
    out.served_as = hit.served_as
    if out.error is None:
        out.stats.http_status = 200
        if headers is not None:
            out.headers = headers
    return out

"""Decoded bodies kept beside the store (gzip, fast level) so the source view can show the raw
lines around an issue without fetching the file again."""

from __future__ import annotations

import itertools
import shutil
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

CHUNK = 1 << 16


class BodyWriter:
    """Streams one file's decoded bytes into ``<dir>/<node_id>.gz``."""

    def __init__(self, folder: Path, node_id: int) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{node_id}.gz"
        self._tmp = self.path.with_suffix(".part")
        self._fh = open(self._tmp, "wb")  # noqa: SIM115 - closed in close()
        self._z = zlib.compressobj(1, zlib.DEFLATED, 31)

    def write(self, data: bytes) -> None:
        self._fh.write(self._z.compress(data))

    def close(self) -> None:
        self._fh.write(self._z.flush())
        self._fh.close()
        self._tmp.replace(self.path)

    def abort(self) -> None:
        self._fh.close()
        self._tmp.unlink(missing_ok=True)


def body_path(folder: Path, node_id: int) -> Path:
    return folder / f"{node_id}.gz"


def bodies_beside(store: Path) -> Path:
    """The folder of an exploration's kept bodies: ``HOST-STAMP.bodies`` beside its store."""
    return store.with_suffix(".bodies")


def copy_body(source: Path, folder: Path, node_id: int) -> bool:
    """An earlier exploration's kept body as ``node_id``'s (a file that answered 304 Not
    Modified: its source lines are the earlier body's); False when it cannot be copied."""
    folder.mkdir(parents=True, exist_ok=True)
    target = body_path(folder, node_id)
    part = target.with_suffix(".part")
    try:
        shutil.copyfile(source, part)
        part.replace(target)
    except OSError:
        part.unlink(missing_ok=True)
        return False
    return True


def _inflated(fh: BinaryIO) -> Iterator[bytes]:
    """The cached body's decoded bytes, at most CHUNK per piece.

    A bounded ``decompress`` keeps the input it did not get to in ``unconsumed_tail``; that rest
    is fed back before the next read of the file. Dropping it (as this code once did once a read
    had inflated to 4 chunks) desynchronised the stream: a well-compressed body (a 50,000-entry
    sitemap inflates ~25x) read back as nothing past its first 64 KiB of cache."""
    z = zlib.decompressobj(31)
    while True:
        raw = fh.read(CHUNK)
        if not raw:
            tail = z.flush()
            if tail:
                yield tail
            return
        data = z.decompress(raw, CHUNK)
        if data:
            yield data
        while z.unconsumed_tail:
            data = z.decompress(z.unconsumed_tail, CHUNK)
            if data:
                yield data
        if z.eof:  # one gzip member per body: what follows it is not ours
            return


def _lf(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """CRLF and a lone CR as LF, as the text parser counts lines (found from outside: a text
    sitemap with CR line ends was one line in the source view, its issues' lines not found). A
    CR at a chunk's end waits for the next (a CRLF split in two is one line end)."""
    cr = False
    for data in chunks:
        if cr:
            data = b"\r" + data
            cr = False
        if b"\r" in data:
            if data.endswith(b"\r"):
                cr, data = True, data[:-1]
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        yield data
    if cr:
        yield b"\n"


def read_lines(folder: Path, node_id: int, line: int, context: int = 5, max_line_bytes: int = 4096) -> list[tuple[int, bytes]]:
    """Lines ``line-context .. line+context`` (1-based) of a cached body, each cut at max_line_bytes.

    Streams the cache, so memory stays small even for a 50 MiB body or a single huge line."""
    path = body_path(folder, node_id)
    if not path.exists():
        return []
    first, last = max(1, line - context), line + context
    out: list[tuple[int, bytes]] = []
    current = 1
    buf = bytearray()
    with open(path, "rb") as fh:
        chunks = _inflated(fh)
        head = next(chunks, b"")
        stream: Iterator[bytes] = itertools.chain([head], chunks)
        if head.lstrip(b" \t\r\n\xef\xbb\xbf")[:1] != b"<":
            # a text sitemap: its parser ends a line at a lone CR too (libxml2 counts only LF, so
            # an XML body's lines are read as it numbers them)
            stream = _lf(stream)
        for data in stream:
            start = 0
            while current <= last:
                nl = data.find(b"\n", start)
                piece = data[start:] if nl < 0 else data[start:nl]
                if first <= current <= last and len(buf) < max_line_bytes:
                    buf.extend(piece[: max_line_bytes - len(buf)])
                if nl < 0:
                    break
                if first <= current <= last:
                    out.append((current, bytes(buf).rstrip(b"\r")))
                buf.clear()
                current += 1
                start = nl + 1
            if current > last:
                break
    if buf and first <= current <= last:
        out.append((current, bytes(buf).rstrip(b"\r")))
    return out

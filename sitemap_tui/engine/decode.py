"""Bounded decoding of HTTP bodies: transport gzip/deflate, then ``.gz`` files (SECURITY.md §5).

We never let a library inflate an untrusted body in one call: httpx's ``aiter_bytes()`` turned a
1.6 kB brotli body into one 1 GiB chunk. Every inflate step here is
``decompressobj.decompress(data, max_length)`` with the rest left in ``unconsumed_tail``, so no
step produces more than ``step`` bytes, and every layer counts its output against a cap.

Pipeline (each stage pushes bounded chunks to the next, all inside ``feed()``)::

    raw ─► [transport inflater: gzip | deflate] ─► sniffer(1) ─► [gunzip] ─► sniffer(2) ─►
           [gunzip] ─► sniffer(3) ─► output (cap, decoded_bytes)

A sniffer looks at the first bytes: ``1f 8b`` adds a gunzip layer (at most two after the
transport), other archive magics are refused, anything else passes through untouched.
"""

from __future__ import annotations

import zlib
from collections.abc import Generator, Iterator
from typing import Protocol

__all__ = [
    "CapExceeded",
    "DecodeError",
    "BodyDecoder",
    "parse_content_encoding",
    "GZIP_MAGIC",
    "MAX_GZIP_LAYERS",
]

GZIP_MAGIC = b"\x1f\x8b"
# Magic numbers of compressions the sitemap protocol does not allow (only gzip is allowed).
_OTHER_MAGICS: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "a ZIP archive"),
    (b"BZh", "bzip2-compressed"),
    (b"\xfd7zXZ\x00", "xz-compressed"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed"),
)
_ALL_MAGICS: tuple[bytes, ...] = (GZIP_MAGIC, *(m for m, _ in _OTHER_MAGICS))
# gzip files nested inside the (transport-decoded) body that we unwrap: ".gz" and the
# common misconfiguration of a ".gz" gzipped once more.
MAX_GZIP_LAYERS = 2
# Content-Encoding: gzip on a body that is not gzip at all: when it starts (after whitespace
# and a BOM) with markup or a URL it is plain XML or text, read as it is. Whitespace is
# waited through for at most this many bytes.
_PLAIN_WAIT = 1024
_PLAIN_STARTS = (b"<", b"http://", b"https://", b"HTTP://", b"HTTPS://")


class DecodeError(Exception):
    """The body cannot be decoded; ``rule`` is a catalogue rule id."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


class CapExceeded(DecodeError):
    """More decoded bytes than allowed (rule ``size-over-limit``); ``cap`` is the limit in bytes.

    A subclass of DecodeError so callers that only want "rule + message" need one ``except``.
    """

    def __init__(self, cap: int, message: str | None = None) -> None:
        super().__init__(
            "size-over-limit", message or f"more than {cap:,} bytes after decompression"
        )
        self.cap = cap


def parse_content_encoding(value: str | None) -> str | None:
    """``"gzip"``, ``"deflate"`` or ``None`` (identity); raise DecodeError for anything else.

    Stacked codings (``gzip, gzip``) are refused as well: servers that send them are broken,
    and each extra layer is another bomb multiplier.
    """
    if value is None:
        return None
    tokens = [t.strip().lower() for t in value.split(",")]
    tokens = [t for t in tokens if t and t != "identity"]
    if not tokens:
        return None
    if len(tokens) > 1:
        raise DecodeError(
            "compression-not-gzip", f"stacked Content-Encoding {value.strip()[:80]!r} not supported"
        )
    token = tokens[0]
    if token in ("gzip", "x-gzip"):
        return "gzip"
    if token == "deflate":
        return "deflate"
    raise DecodeError(
        "compression-not-gzip",
        f"Content-Encoding {token[:40]!r} not supported (only gzip and deflate)",
    )


class _Stage(Protocol):
    def push(self, data: bytes) -> Iterator[bytes]: ...

    def finish(self) -> Iterator[bytes]: ...


class _Output:
    """Last stage: count decoded bytes and stop at the first byte over the cap."""

    def __init__(self, owner: BodyDecoder) -> None:
        self._owner = owner

    def push(self, data: bytes) -> Iterator[bytes]:
        owner = self._owner
        step = owner.step
        room = owner.max_decoded - owner.decoded_bytes
        over = len(data) > room
        if over:
            data = data[: max(room, 0)]
        # Plain pass-through input can be any size: hand it on in step-sized pieces too.
        for i in range(0, len(data), step):
            piece = data[i : i + step]
            owner.decoded_bytes += len(piece)
            yield piece
        if over:
            raise CapExceeded(owner.max_decoded)

    def finish(self) -> Iterator[bytes]:
        return iter(())


class _Inflater:
    """One compressed layer (gzip members or a deflate stream) with bounded output per step."""

    def __init__(self, owner: BodyDecoder, kind: str, downstream: _Stage, cap: int) -> None:
        self._owner = owner
        self._kind = kind  # "gzip" or "deflate"
        self._down = downstream
        self._cap = cap
        self._produced = 0
        self._obj: zlib._Decompress | None = None  # None between gzip members / before start
        self._pending = b""  # bytes waiting for a decision (member magic, zlib header)
        self._members = 0  # gzip members (or deflate streams) finished
        self._padding = False  # NUL bytes seen after a member
        self._plain = False  # transport gzip over a plain body: pass it on as it is

    def _corrupt(self, what: str) -> DecodeError:
        return DecodeError("gzip-corrupt", what.replace("{kind}", self._kind))

    def push(self, data: bytes) -> Iterator[bytes]:
        if self._plain:
            yield from self._emit(data)
            return
        while data:
            if self._obj is None:
                data = self._pending + data
                self._pending = b""
                plain = self._plain_body(data, final=False)
                if plain is None:
                    self._pending = data
                    return
                if plain:
                    yield from self._emit(data)
                    return
                started = self._start(data)
                if not started:
                    self._pending = data  # too few bytes to decide; wait for more
                    return
                if self._obj is None:  # only NUL padding so far
                    return
                data = started
            leftover = yield from self._inflate(data)
            data = leftover

    def _plain_body(self, data: bytes, *, final: bool) -> bool | None:
        """Transport gzip whose first bytes show a plain body (a server that adds the header
        to an uncompressed file): True (switch to pass-through, noted for the caller), False
        (inflate it: gzip, or corrupt), None (only whitespace or a prefix so far: wait)."""
        if self._kind != "gzip" or self._members or data[:1] == GZIP_MAGIC[:1]:
            return False
        head = data.lstrip(b" \t\r\n")
        bom = b"\xef\xbb\xbf"
        if head.startswith(bom):
            head = head[3:]
        if not head.startswith(_PLAIN_STARTS):
            undecided = not head or bom.startswith(head) or any(p.startswith(head) for p in _PLAIN_STARTS)
            return None if undecided and not final and len(data) < _PLAIN_WAIT else False
        self._plain = True
        what = "XML" if head[:1] == b"<" else "text"
        self._owner.plain_body = what
        self._owner.transport_mismatch = (
            "the response says Content-Encoding: gzip, but the body is not gzip-compressed"
            f" (it starts with plain {what}); it was read as it is"
        )
        return True

    def _start(self, data: bytes) -> bytes:
        """Begin a member/stream; return the bytes to inflate, or b"" to wait for more."""
        if self._kind == "deflate":
            if self._members:
                raise self._corrupt("trailing garbage after the deflate stream")
            if len(data) < 2:
                return b""
            # RFC 1950 header: CM=8, CINFO<=7, (CMF*256+FLG) % 31 == 0; else raw deflate
            # (some servers send raw RFC 1951 data as "deflate").
            cmf, flg = data[0], data[1]
            is_zlib = (cmf & 0x0F) == 8 and (cmf >> 4) <= 7 and ((cmf << 8) | flg) % 31 == 0
            self._obj = zlib.decompressobj(15 if is_zlib else -15)
            return data
        if self._members:
            # Between gzip members: another member, NUL padding (tolerated like gzip(1) and
            # Python's gzip module do), or trailing garbage.
            stripped = data.lstrip(b"\x00")
            if len(stripped) != len(data):
                self._padding = True
            if not stripped:
                return data  # non-empty, "started" stays None below: nothing to do yet
            if len(stripped) < 2 and stripped == GZIP_MAGIC[:1]:
                return b""
            if stripped[:2] != GZIP_MAGIC:
                raise self._corrupt("trailing garbage after gzip member")
            data = stripped
        self._obj = zlib.decompressobj(31)
        return data

    def _inflate(self, data: bytes) -> Generator[bytes, None, bytes]:
        """Inflate ``data`` in bounded steps; return input left after the end of the stream."""
        obj = self._obj
        assert obj is not None
        step = self._owner.step
        while True:
            try:
                out = obj.decompress(data, step)
            except zlib.error as exc:
                raise self._corrupt(f"corrupt {{kind}} data: {exc}") from None
            if out:
                yield from self._emit(out)
            if obj.eof:
                self._obj = None
                self._members += 1
                return obj.unused_data
            data = obj.unconsumed_tail
            # A full output buffer may leave output pending inside zlib even with no input
            # left, so keep asking until a step comes back short.
            if not data and len(out) < step:
                return b""

    def _emit(self, out: bytes) -> Iterator[bytes]:
        room = self._cap - self._produced
        if len(out) > room:
            # An intermediate layer over the cap: pass on what fits, then stop.
            yield from self._down.push(out[: max(room, 0)])
            raise CapExceeded(self._owner.max_decoded)
        self._produced += len(out)
        yield from self._down.push(out)

    def finish(self) -> Iterator[bytes]:
        if self._obj is not None:
            # Drain output zlib still holds (bounded), then it must be at the end of the stream.
            yield from self._inflate(b"")
            if self._obj is not None:
                raise self._corrupt("truncated {kind} data (the stream ends early)")
        if self._pending and self._plain_body(self._pending, final=True):
            data, self._pending = self._pending, b""
            yield from self._emit(data)
        if self._pending:
            if self._kind == "deflate" and not self._members:
                raise self._corrupt("truncated {kind} data")
            raise self._corrupt("trailing garbage after gzip member")
        yield from self._down.finish()


class _Sniffer:
    """Decide from the first bytes whether this layer is a gzip file, another archive or plain."""

    def __init__(self, owner: BodyDecoder, level: int) -> None:
        self._owner = owner
        self._level = level  # 1 = the body right after transport decoding
        self._buf = b""
        self._target: _Stage | None = None

    def push(self, data: bytes) -> Iterator[bytes]:
        if self._target is None:
            self._buf += data
            if not self._decide(final=False):
                return
            data, self._buf = self._buf, b""
        assert self._target is not None
        yield from self._target.push(data)

    def finish(self) -> Iterator[bytes]:
        if self._target is None:
            self._decide(final=True)
            data, self._buf = self._buf, b""
            assert self._target is not None
            if data:
                yield from self._target.push(data)
        yield from self._target.finish()

    def _decide(self, *, final: bool) -> bool:
        buf = self._buf
        owner = self._owner
        if buf[:2] == GZIP_MAGIC:
            if self._level > MAX_GZIP_LAYERS:
                raise DecodeError(
                    "compression-not-gzip",
                    f"more than {MAX_GZIP_LAYERS} nested gzip layers; not decoded further",
                )
            if self._level == 1:
                owner.gzipped = True
            owner.gzip_layers = self._level
            nxt = _Sniffer(owner, self._level + 1)
            self._target = _Inflater(owner, "gzip", nxt, owner.layer_cap)
            return True
        for magic, name in _OTHER_MAGICS:
            if buf.startswith(magic):
                raise DecodeError("compression-not-gzip", f"the body is {name}, not gzip")
        if not final and any(len(buf) < len(m) and m.startswith(buf) for m in _ALL_MAGICS):
            return False  # could still become a magic number: wait (split across feeds)
        self._target = owner.output
        return True


class BodyDecoder:
    """Incremental, bounded decoder for one HTTP body (or local file).

    ``feed(raw)`` and ``finish()`` yield decoded chunks of at most ``step`` bytes. They raise
    ``DecodeError`` (``gzip-corrupt`` / ``compression-not-gzip``) or ``CapExceeded``
    (``size-over-limit``) lazily, while being iterated, after every chunk decoded before the
    problem has been yielded. An unsupported ``content_encoding`` raises at construction.
    """

    def __init__(self, content_encoding: str | None, max_decoded: int, step: int = 65536) -> None:
        if step <= 0:
            raise ValueError("step must be positive")
        self.max_decoded = max_decoded
        self.step = step
        self.transport: str | None = parse_content_encoding(content_encoding)
        self.decoded_bytes = 0
        self.gzipped = False  # the body after transport decoding was a gzip file
        self.gzip_layers = 0  # gzip files unwrapped after transport decoding (0..2)
        # set when Content-Encoding: gzip came with a plain body that was read as it is: what
        # happened, in words, and what the body starts with ("XML" or "text"), which the
        # fetcher reports as a content-encoding-mismatch finding
        self.transport_mismatch: str | None = None
        self.plain_body: str | None = None
        # An intermediate layer is the compressed form of the next one, so it is barely larger
        # than the final output; the margin covers stored-block overhead of incompressible data.
        self.layer_cap = max_decoded + max_decoded // 64 + 4096
        self.output = _Output(self)
        sniffer = _Sniffer(self, 1)
        self._head: _Stage = (
            _Inflater(self, self.transport, sniffer, self.layer_cap) if self.transport else sniffer
        )
        self._error: DecodeError | None = None
        self._finished = False

    def feed(self, raw: bytes) -> Iterator[bytes]:
        """Decode the next raw bytes; iterate the result to get the decoded chunks."""
        self._check_usable()
        if not raw:
            return
        try:
            yield from self._head.push(bytes(raw))
        except DecodeError as exc:
            self._error = exc
            raise

    def finish(self) -> Iterator[bytes]:
        """End of input: yield what is left; raise if a compressed stream was cut short."""
        self._check_usable()
        self._finished = True
        try:
            yield from self._head.finish()
        except DecodeError as exc:
            self._error = exc
            raise

    @property
    def failed(self) -> bool:
        """Decoding stopped at an error (corrupt data, another layer or compression)."""
        return self._error is not None

    def _check_usable(self) -> None:
        # After an error the stage states are inconsistent: keep failing the same way.
        if self._error is not None:
            raise self._error
        if self._finished:
            raise RuntimeError("BodyDecoder already finished")

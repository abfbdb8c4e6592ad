"""The bounded body decoder (SECURITY.md §5): random and corrupt input only ever raises
DecodeError (or CapExceeded); no chunk is larger than ``step``; the cap always holds; valid
gzip/deflate round-trips whatever the network split."""

from __future__ import annotations

import gzip
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_tui.engine.decode import BodyDecoder, CapExceeded, DecodeError

from .strategies import chunk_sizes, chunked

ENCODINGS = st.sampled_from([None, "gzip", "x-gzip", "deflate", "identity", "br", "gzip, gzip", "zstd", "", " GZIP "])
STEP = 512


def run(raw: bytes, encoding: str | None, cap: int, sizes: list[int]) -> tuple[bytes, DecodeError | None]:
    try:
        dec = BodyDecoder(encoding, cap, STEP)
    except DecodeError as exc:
        return b"", exc
    out = bytearray()
    err = None
    try:
        for piece in chunked(raw, sizes):
            for c in dec.feed(piece):
                assert 0 < len(c) <= STEP
                out += c
        for c in dec.finish():
            assert 0 < len(c) <= STEP
            out += c
    except DecodeError as exc:  # CapExceeded is one
        err = exc
        assert exc.rule in ("gzip-corrupt", "compression-not-gzip", "size-over-limit")
    assert len(out) <= cap
    assert dec.decoded_bytes == len(out)
    return bytes(out), err


@st.composite
def compressed(draw: st.DrawFn) -> tuple[bytes, bytes, str | None]:
    """(payload, wire bytes, Content-Encoding) with random layers and corruption."""
    payload = b"<" + draw(st.binary(max_size=3000))
    kind = draw(st.sampled_from(["gz-file", "gz-transport", "deflate", "raw-deflate", "double-gz", "members"]))
    level = draw(st.integers(0, 9))
    if kind == "gz-file":
        wire, enc = gzip.compress(payload, level, mtime=0), None
    elif kind == "gz-transport":
        wire, enc = gzip.compress(payload, level, mtime=0), "gzip"
    elif kind == "deflate":
        wire, enc = zlib.compress(payload, level), "deflate"
    elif kind == "raw-deflate":
        c = zlib.compressobj(level, zlib.DEFLATED, -15)
        wire, enc = c.compress(payload) + c.flush(), "deflate"
    elif kind == "double-gz":
        wire, enc = gzip.compress(gzip.compress(payload, level, mtime=0), mtime=0), None
    else:
        cut = draw(st.integers(0, len(payload)))
        wire, enc = gzip.compress(payload[:cut], mtime=0) + gzip.compress(payload[cut:], mtime=0), None
    return payload, wire, enc


@given(st.binary(max_size=4096), ENCODINGS, st.integers(0, 5000), chunk_sizes)
def test_random_bytes(raw: bytes, encoding: str | None, cap: int, sizes: list[int]) -> None:
    run(raw, encoding, cap, sizes)


@given(compressed(), chunk_sizes, st.integers(1, 4000))
def test_roundtrip_or_cap(sample: tuple[bytes, bytes, str | None], sizes: list[int], cap: int) -> None:
    payload, wire, enc = sample
    out, err = run(wire, enc, cap, sizes)
    if len(payload) <= cap:
        assert err is None, err
        assert out == payload
    else:
        assert isinstance(err, CapExceeded)
        assert out == payload[:cap]


@given(compressed(), chunk_sizes, st.data())
def test_corrupted(sample: tuple[bytes, bytes, str | None], sizes: list[int], data: st.DataObject) -> None:
    payload, wire, enc = sample
    buf = bytearray(wire)
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "cut", "append"]))
        if op == "flip" and buf:
            i = data.draw(st.integers(0, len(buf) - 1))
            buf[i] ^= data.draw(st.integers(1, 255))
        elif op == "cut":
            del buf[data.draw(st.integers(0, len(buf))):]
        else:
            buf += data.draw(st.binary(min_size=1, max_size=32))
    run(bytes(buf), enc, 100_000, sizes)


def test_bomb_is_cut_at_the_cap() -> None:
    bomb = gzip.compress(bytes(10_000_000), 9)
    out, err = run(bomb, None, 1000, [len(bomb)])
    assert isinstance(err, CapExceeded) and len(out) == 1000


@pytest.mark.parametrize("enc", ["br", "zstd", "gzip, gzip", "compress"])
def test_refused_encodings(enc: str) -> None:
    with pytest.raises(DecodeError):
        BodyDecoder(enc, 1000)

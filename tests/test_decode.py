"""BodyDecoder: bounded transport decoding, .gz sniffing, caps and corrupt input."""

from __future__ import annotations

import gzip
import os
import struct
import tracemalloc
import zlib
from collections.abc import Iterable

import pytest

from sitemap_tui.engine.decode import BodyDecoder, CapExceeded, DecodeError

XML = b'<?xml version="1.0"?><urlset><url><loc>https://example.com/</loc></url></urlset>\n' * 50
GIB = 1024 * 1024 * 1024


def decode_all(
    raw: bytes,
    encoding: str | None = None,
    *,
    cap: int = 10**9,
    chunk: int | None = None,
    step: int = 65536,
) -> tuple[bytes, DecodeError | None, BodyDecoder, list[int]]:
    """Feed ``raw`` in ``chunk``-sized pieces; return output, error, decoder, chunk sizes."""
    dec = BodyDecoder(encoding, cap, step)
    got: list[bytes] = []
    err: DecodeError | None = None
    pieces: Iterable[bytes] = (
        [raw] if chunk is None else (raw[i : i + chunk] for i in range(0, len(raw), chunk))
    )
    try:
        for piece in pieces:
            for c in dec.feed(piece):
                got.append(c)
        for c in dec.finish():
            got.append(c)
    except DecodeError as exc:
        err = exc
    return b"".join(got), err, dec, [len(c) for c in got]


def raw_deflate(data: bytes) -> bytes:
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    return co.compress(data) + co.flush()


def make_gzip_bomb(mib: int = 1024) -> bytes:
    """``mib`` MiB of zeros as one valid gzip member (~1 MB for 1 GiB), built in ~0.2 s.

    After a sync flush the compressor state is the same for every further 1 MiB of zeros, so
    one compressed MiB is repeated instead of compressing 1 GiB; header and trailer by hand.
    """
    zeros = bytes(1024 * 1024)
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = co.compress(zeros) + co.flush(zlib.Z_SYNC_FLUSH)
    repeat = co.compress(zeros) + co.flush(zlib.Z_SYNC_FLUSH)
    last = co.compress(zeros) + co.flush()
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(zeros, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    trailer = struct.pack("<II", crc, (mib * 1024 * 1024) & 0xFFFFFFFF)
    return header + first + repeat * (mib - 2) + last + trailer


@pytest.fixture(scope="module")
def gzip_bomb() -> bytes:
    return make_gzip_bomb()


def test_bomb_builder_is_a_valid_gzip() -> None:
    out, err, _, _ = decode_all(make_gzip_bomb(8))
    assert err is None and out == bytes(8 * 1024 * 1024)


@pytest.mark.parametrize("chunk", [None, 1, 7, 4096])
def test_plain_passthrough(chunk: int | None) -> None:
    out, err, dec, _ = decode_all(XML, chunk=chunk)
    assert err is None and out == XML
    assert dec.decoded_bytes == len(XML)
    assert not dec.gzipped and dec.transport is None


def test_plain_chunks_are_bounded_by_step() -> None:
    out, err, _, sizes = decode_all(XML, step=100)
    assert err is None and out == XML and max(sizes) <= 100


@pytest.mark.parametrize("encoding", [None, "", "identity", " Identity "])
def test_identity_encodings(encoding: str | None) -> None:
    out, err, dec, _ = decode_all(XML, encoding)
    assert err is None and out == XML and dec.transport is None


@pytest.mark.parametrize("chunk", [None, 1, 3])
def test_gzip_file_without_content_encoding(chunk: int | None) -> None:
    out, err, dec, _ = decode_all(gzip.compress(XML), chunk=chunk)
    assert err is None and out == XML
    assert dec.gzipped and dec.transport is None and dec.decoded_bytes == len(XML)


@pytest.mark.parametrize("encoding", ["gzip", "x-gzip", "GZIP"])
def test_transport_gzip(encoding: str) -> None:
    out, err, dec, _ = decode_all(gzip.compress(XML), encoding, chunk=5)
    assert err is None and out == XML
    assert dec.transport == "gzip" and not dec.gzipped


def test_transport_gzip_of_gz_file_is_double_gzip() -> None:
    out, err, dec, _ = decode_all(gzip.compress(gzip.compress(XML)), "gzip", chunk=1)
    assert err is None and out == XML and dec.gzipped


def test_double_gzip_file() -> None:
    out, err, dec, _ = decode_all(gzip.compress(gzip.compress(XML)), chunk=2)
    assert err is None and out == XML and dec.gzipped and dec.gzip_layers == 2


def test_transport_plus_two_gzip_layers_ok_three_refused() -> None:
    two = gzip.compress(gzip.compress(XML))
    out, err, _, _ = decode_all(gzip.compress(two), "gzip")
    assert err is None and out == XML
    _, err, _, _ = decode_all(gzip.compress(two))
    assert err is not None and err.rule == "compression-not-gzip" and "nested" in err.message


@pytest.mark.parametrize("encoding", [None, "gzip"])
@pytest.mark.parametrize("chunk", [None, 1, 11])
def test_concatenated_members(encoding: str | None, chunk: int | None) -> None:
    body = gzip.compress(XML[:1000]) + gzip.compress(XML[1000:]) + gzip.compress(b"")
    out, err, _, _ = decode_all(body, encoding, chunk=chunk)
    assert err is None and out == XML


def test_concatenated_members_of_inner_gz_file() -> None:
    inner = gzip.compress(XML[:10]) + gzip.compress(XML[10:])
    out, err, dec, _ = decode_all(gzip.compress(inner), "gzip", chunk=3)
    assert err is None and out == XML and dec.gzipped


@pytest.mark.parametrize("encoding", [None, "gzip"])
def test_truncated_gzip_yields_prefix_then_fails(encoding: str | None) -> None:
    data = os.urandom(200_000)  # incompressible: the prefix really decodes to something
    body = gzip.compress(data)[:-5000]
    out, err, _, _ = decode_all(body, encoding, chunk=4096, step=1000)
    assert err is not None and err.rule == "gzip-corrupt" and "truncated" in err.message
    assert len(out) > 150_000 and data.startswith(out)


@pytest.mark.parametrize("chunk", [None, 1, 5])
def test_trailing_garbage(chunk: int | None) -> None:
    out, err, _, _ = decode_all(gzip.compress(XML) + b"garbage!", chunk=chunk)
    assert err is not None and err.rule == "gzip-corrupt" and "trailing garbage" in err.message
    assert out == XML  # everything decoded before the garbage was delivered


def test_trailing_single_magic_byte_is_garbage() -> None:
    out, err, _, _ = decode_all(gzip.compress(XML) + b"\x1f", chunk=1)
    assert err is not None and err.rule == "gzip-corrupt" and out == XML


def test_trailing_nul_padding_tolerated() -> None:
    out, err, _, _ = decode_all(gzip.compress(XML) + b"\x00" * 10, chunk=3)
    assert err is None and out == XML


def test_corrupt_gzip_data() -> None:
    body = bytearray(gzip.compress(XML))
    body[20:40] = b"\xff" * 20
    _, err, _, _ = decode_all(bytes(body))
    assert err is not None and err.rule == "gzip-corrupt"


@pytest.mark.parametrize("chunk", [None, 1, 7])
@pytest.mark.parametrize(
    "body",
    [XML, b"\n\n  " + XML, b"\xef\xbb\xbf" + XML, b"https://example.com/a\nhttps://example.com/b\n"],
)
def test_transport_gzip_with_plain_body_is_read_as_it_is(body: bytes, chunk: int | None) -> None:
    """Content-Encoding: gzip on a body that plainly is not gzip (issue 14: it gave gzip-corrupt
    and nothing was parsed): the first bytes decide, and the decoder says what it did."""
    out, err, dec, _ = decode_all(body, "gzip", chunk=chunk)
    assert err is None and out == body
    assert dec.transport_mismatch is not None and "gzip" in dec.transport_mismatch
    assert not dec.gzipped


@pytest.mark.parametrize("body", [b"x" * 100, b"\x00\x01\x02garbage", b"\x1f\x8bnot really"])
def test_transport_gzip_with_other_bytes_is_still_corrupt(body: bytes) -> None:
    _, err, dec, _ = decode_all(body, "gzip")
    assert err is not None and err.rule == "gzip-corrupt"
    assert dec.transport_mismatch is None


def test_plain_body_inside_real_gzip_is_no_mismatch() -> None:
    out, err, dec, _ = decode_all(gzip.compress(XML), "gzip")
    assert err is None and out == XML and dec.transport_mismatch is None


def test_empty_bodies() -> None:
    for encoding in (None, "gzip", "deflate"):
        out, err, _, _ = decode_all(b"", encoding)
        assert err is None and out == b""


@pytest.mark.parametrize("chunk", [None, 1])
def test_deflate_zlib_wrapper(chunk: int | None) -> None:
    out, err, dec, _ = decode_all(zlib.compress(XML), "deflate", chunk=chunk)
    assert err is None and out == XML and dec.transport == "deflate"


@pytest.mark.parametrize("chunk", [None, 1])
def test_deflate_raw(chunk: int | None) -> None:
    out, err, _, _ = decode_all(raw_deflate(XML), "deflate", chunk=chunk)
    assert err is None and out == XML


def test_deflate_of_gz_file() -> None:
    out, err, dec, _ = decode_all(zlib.compress(gzip.compress(XML)), "deflate")
    assert err is None and out == XML and dec.gzipped


def test_deflate_truncated_and_trailing() -> None:
    _, err, _, _ = decode_all(zlib.compress(XML)[:-10], "deflate")
    assert err is not None and err.rule == "gzip-corrupt" and "truncated" in err.message
    out, err, _, _ = decode_all(zlib.compress(XML) + b"junk", "deflate")
    assert err is not None and err.rule == "gzip-corrupt" and out == XML
    _, err, _, _ = decode_all(b"x", "deflate")
    assert err is not None and err.rule == "gzip-corrupt"


@pytest.mark.parametrize(
    "encoding", ["br", "zstd", "compress", "gzip, gzip", "gzip,deflate", "bogus", "deflate, br"]
)
def test_unsupported_content_encodings(encoding: str) -> None:
    with pytest.raises(DecodeError) as info:
        BodyDecoder(encoding, 1000)
    assert info.value.rule == "compression-not-gzip"


@pytest.mark.parametrize(
    "magic",
    [b"PK\x03\x04", b"BZh9", b"\xfd7zXZ\x00\x00", b"\x28\xb5\x2f\xfd"],
    ids=["zip", "bzip2", "xz", "zstd"],
)
@pytest.mark.parametrize("chunk", [None, 1])
def test_other_archive_formats_refused(magic: bytes, chunk: int | None) -> None:
    out, err, _, _ = decode_all(magic + b"rest of the archive", chunk=chunk)
    assert err is not None and err.rule == "compression-not-gzip" and out == b""


def test_zip_inside_gzip_refused() -> None:
    _, err, dec, _ = decode_all(gzip.compress(b"PK\x03\x04zipzipzip"), chunk=1)
    assert err is not None and err.rule == "compression-not-gzip" and dec.gzipped


@pytest.mark.parametrize("body", [b"", b"\x1f", b"B", b"BZ", b"PK\x03", b"\xfd7z"])
def test_short_bodies_that_look_like_magic_prefixes_are_plain(body: bytes) -> None:
    out, err, _, _ = decode_all(body, chunk=1)
    assert err is None and out == body


def test_gz_split_magic_across_feeds() -> None:
    body = gzip.compress(XML)
    dec = BodyDecoder(None, 10**6)
    assert list(dec.feed(body[:1])) == []
    got = b"".join(dec.feed(body[1:])) + b"".join(dec.finish())
    assert got == XML and dec.gzipped


def test_cap_exact_is_fine() -> None:
    out, err, dec, _ = decode_all(XML, cap=len(XML))
    assert err is None and out == XML and dec.decoded_bytes == len(XML)


@pytest.mark.parametrize("encoding", [None, "gzip"])
@pytest.mark.parametrize("gz", [False, True])
def test_cap_stops_at_first_byte_over(encoding: str | None, gz: bool) -> None:
    body = gzip.compress(XML) if gz else XML
    if encoding:
        body = gzip.compress(body)
    cap = len(XML) - 1
    out, err, dec, _ = decode_all(body, encoding, cap=cap, step=100)
    assert isinstance(err, CapExceeded)
    assert err.rule == "size-over-limit" and err.cap == cap
    assert out == XML[:cap] and dec.decoded_bytes == cap


def test_double_gzip_of_incompressible_data_at_the_cap() -> None:
    # The middle layer is slightly larger than the result; it must not trip the cap.
    data = os.urandom(256 * 1024)
    out, err, _, _ = decode_all(gzip.compress(gzip.compress(data)), "gzip", cap=len(data))
    assert err is None and out == data


def test_error_is_sticky() -> None:
    dec = BodyDecoder(None, 10)
    with pytest.raises(CapExceeded):
        list(dec.feed(b"x" * 11))
    with pytest.raises(CapExceeded):
        list(dec.feed(b"more"))
    with pytest.raises(CapExceeded):
        list(dec.finish())


def test_step_must_be_positive() -> None:
    with pytest.raises(ValueError):
        BodyDecoder(None, 10, step=0)


@pytest.mark.parametrize("encoding", [None, "gzip"])
def test_gzip_bomb_stops_at_cap_quickly_with_bounded_memory(
    gzip_bomb: bytes, encoding: str | None
) -> None:
    body = gzip.compress(gzip_bomb, 1) if encoding else gzip_bomb
    cap = 50 * 1024 * 1024
    dec = BodyDecoder(encoding, cap)
    seen = 0
    biggest = 0
    fed = 0
    tracemalloc.start()
    try:
        with pytest.raises(CapExceeded):
            for i in range(0, len(body), 65536):
                fed = i + 65536
                for c in dec.feed(body[i : i + 65536]):
                    seen += len(c)
                    biggest = max(biggest, len(c))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == cap == dec.decoded_bytes
    assert biggest <= 65536
    assert peak < 8 * 1024 * 1024, peak  # a few chunks, never the 1 GiB
    # "quickly" as work, not seconds: no more than the cap was ever inflated (above), and the
    # plain bomb is left unread after the part that yields the 50 MiB (about 5% of it); the
    # gzip-wrapped one is a single 7 kB chunk, so only the cap bounds it
    if encoding is None:
        assert fed < len(body) // 4, (fed, len(body))


def test_bomb_in_intermediate_layer_is_capped() -> None:
    # gzip(gzip(zeros)): the middle layer stays small, the inner one explodes; but a layer of
    # empty stored blocks (no output at all) must also be cut by the cap on the middle layer.
    co = zlib.compressobj(1, zlib.DEFLATED, 31)
    empty_stored = b"\x00\x00\x00\xff\xff" * 20000  # raw deflate empty stored blocks, 100 kB
    middle = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + empty_stored * 30  # 3 MB, no end
    body = co.compress(middle) + co.flush()
    out, err, _, _ = decode_all(body, cap=1024 * 1024)
    assert isinstance(err, CapExceeded) and out == b""

"""Benchmark: how long the guards against hostile input take (the timings the tests no longer assert).

The tests check these guards deterministically (libxml2 never sees a DOCTYPE's entities, the
inflater stops at the cap, the sanitiser cuts at max_len); how fast they are depends on the
machine, so it is measured here instead, with the targets the tests once asserted:

    .venv/bin/python bench/bench_limits.py [--runs 5]

| guard | target |
| --- | --- |
| billion laughs refused by the parser (sniffer + XML parser, random chunks) | < 1 s |
| libxml2's own amplification limit, DOCTYPE fed directly | < 1 s |
| a 1 GiB gzip bomb inflated up to the 50 MiB cap (plain, and inside gzip) | < 10 s |
| display() of 5,000,000 clean and 5,000,000 escaped characters | < 1 s |
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import statistics
import struct
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lxml import etree  # noqa: E402

from sitemap_tui.engine.decode import BodyDecoder, CapExceeded  # noqa: E402
from sitemap_tui.engine.parse_xml import _parser_options  # noqa: E402
from sitemap_tui.engine.sanitize import display  # noqa: E402
from sitemap_tui.engine.sniff import SniffingParser  # noqa: E402

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
LAUGHS = (
    b'<?xml version="1.0"?>\n<!DOCTYPE urlset [\n <!ENTITY lol "lol">\n'
    + b"".join(
        b' <!ENTITY lol%d "%s">\n' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
        for i in range(1, 10)
    )
    + b"]>\n<urlset "
    + NS.encode()
    + b' a="&lol9;"><url><loc>&lol9;</loc></url></urlset>\n'
)
CAP = 50 * 1024 * 1024


def gzip_bomb(mib: int = 1024) -> bytes:
    """``mib`` MiB of zeros as one valid gzip member (about 1 MB for 1 GiB)."""
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


def laughs_through_the_parser() -> None:
    parser = SniffingParser("https://example.com/sitemap.xml", None)
    for i in range(0, len(LAUGHS), 97):  # small uneven chunks, as from the network
        parser.feed(LAUGHS[i : i + 97])
    parser.close()


def laughs_without_the_guard() -> None:
    parser = etree.XMLPullParser(events=("start",), **_parser_options())
    with contextlib.suppress(etree.XMLSyntaxError):  # the limit's error is the expected end
        parser.feed(LAUGHS)


def inflate_to_cap(body: bytes, encoding: str | None) -> Callable[[], None]:
    def run() -> None:
        dec = BodyDecoder(encoding, CAP)
        try:
            for i in range(0, len(body), 65536):
                for _ in dec.feed(body[i : i + 65536]):
                    pass
        except CapExceeded:
            return
        raise AssertionError("the cap was not reached")

    return run


def sanitise_huge() -> None:
    display("a" * 5_000_000)
    display("\x1b" * 5_000_000)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    bomb = gzip_bomb()
    cases: list[tuple[str, float, Callable[[], None]]] = [
        ("billion laughs, parser", 1.0, laughs_through_the_parser),
        ("billion laughs, libxml2 limit", 1.0, laughs_without_the_guard),
        ("gzip bomb to 50 MiB cap", 10.0, inflate_to_cap(bomb, None)),
        ("gzip(gzip bomb) to 50 MiB cap", 10.0, inflate_to_cap(gzip.compress(bomb, 1), "gzip")),
        ("display() 2 x 5 M characters", 1.0, sanitise_huge),
    ]
    print(f"| guard | median s (min-max, {args.runs} runs) | target s |")
    print("| --- | --- | --- |")
    for name, target, fn in cases:
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        flag = "" if med < target else " (over target)"
        print(f"| {name} | {med:.3f} ({min(times):.3f}-{max(times):.3f}) | < {target:g}{flag} |")


if __name__ == "__main__":
    main()

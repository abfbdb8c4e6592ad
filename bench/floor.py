#!/usr/bin/env python3
"""The floor: the least a tool can do to count the URLs of a sitemap (or of a whole index).

httpx streaming fetch (one client, keep-alive) + lxml XMLPullParser fed chunk by chunk, elements
cleared as they end; gunzip (zlib streaming) when the body starts with 1f 8b; Content-Encoding is
decoded by httpx. Counts `<loc>` in a urlset, `<item><link>` in an RSS feed, non-empty lines in a
text sitemap; for a sitemap index, fetches the children one after the other (sequential) and sums.
No validation, no storage, no output but the count: any real tool does at least this much.

Usage: python bench/floor.py URL   ->  prints the number of URLs
"""

from __future__ import annotations

import sys
import zlib

import httpx
from lxml import etree

SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
LOC, URL, SITEMAP = SM + "loc", SM + "url", SM + "sitemap"
CHUNK = 65536


def count(client: httpx.Client, url: str, children: list[str]) -> int:
    n = 0
    gz = None  # zlib decompressor when the body itself is gzip (1f 8b), False when not
    parser = None  # XMLPullParser once the body looks like XML
    text_tail: bytes | None = None  # set once the body looks like a text sitemap

    def events() -> None:
        nonlocal n
        for _, el in parser.read_events():
            tag = el.tag
            if tag == LOC:
                parent = el.getparent()
                if parent is not None and parent.tag == SITEMAP:
                    children.append(el.text.strip())
                else:
                    n += 1
            elif tag == "link":  # RSS 2.0 <item><link>
                parent = el.getparent()
                if parent is not None and parent.tag == "item":
                    n += 1
            elif tag in (URL, SITEMAP, "item"):
                el.clear()
                while el.getprevious() is not None:
                    del el.getparent()[0]

    def feed(data: bytes) -> None:
        nonlocal n, parser, text_tail
        if parser is None and text_tail is None:
            if not data.strip():
                return
            if data.lstrip()[:1] == b"<":
                parser = etree.XMLPullParser(events=("end",), resolve_entities=False, no_network=True,
                                             load_dtd=False)
            else:
                text_tail = b""
        if parser is not None:
            parser.feed(data)
            events()
        else:
            lines = (text_tail + data).split(b"\n")
            text_tail = lines.pop()
            n += sum(1 for line in lines if line.strip())

    with client.stream("GET", url) as resp:
        resp.raise_for_status()
        for chunk in resp.iter_bytes(CHUNK):
            if gz is None:
                gz = zlib.decompressobj(47) if chunk[:2] == b"\x1f\x8b" else False
            feed(gz.decompress(chunk) if gz else chunk)
    if gz:
        feed(gz.flush())
    if parser is not None:
        parser.close()
        events()
    elif text_tail and text_tail.strip():
        n += 1
    return n


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    total = 0
    with httpx.Client(timeout=60.0) as client:
        queue = [argv[0]]
        while queue:
            children: list[str] = []
            total += count(client, queue.pop(0), children)
            queue.extend(children)
    print(total)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

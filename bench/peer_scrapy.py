#!/usr/bin/env python3
"""Peer: scrapy's `scrapy.utils.sitemap.Sitemap` class (the parser behind SitemapSpider) on the fetched
body. The body is fetched whole (as Scrapy's downloader does), gunzipped when it starts with 1f 8b
(scrapy.utils.gz.gunzip, as SitemapSpider does), then parsed; an index's children are fetched one after
the other. Scrapy's Sitemap handles XML urlsets and indexes only (no RSS or text sitemaps), like
SitemapSpider. Prints the number of URLs.

Usage: peer_scrapy.py URL   (run with bench/.venv-peers/bin/python)
"""

import sys
import urllib.request

from scrapy.utils.gz import gunzip
from scrapy.utils.sitemap import Sitemap


def fetch(url: str) -> bytes:
    req = urllib.request.Request(url, headers={"User-Agent": "Scrapy (bench)"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        body = resp.read()
    if body[:2] == b"\x1f\x8b":
        body = gunzip(body, max_size=0)
    return body


total = 0
queue = [sys.argv[1]]
while queue:
    sitemap = Sitemap(fetch(queue.pop(0)))
    if sitemap.type == "sitemapindex":
        queue.extend(d["loc"] for d in sitemap)
    elif sitemap.type == "urlset":
        total += sum(1 for _ in sitemap)
    else:
        print(f"unsupported sitemap type {sitemap.type!r}", file=sys.stderr)
        sys.exit(3)
print(total)

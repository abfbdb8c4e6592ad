#!/usr/bin/env python3
"""Peer: ultimate-sitemap-parser (usp). Fetches one sitemap URL (an index: its children too, as usp
does) and prints the number of pages.

usp's public entry point, `usp.tree.sitemap_tree_for_homepage`, starts from a home page (robots.txt and
a dozen probed paths); for one given sitemap URL the library itself uses `SitemapFetcher(url,
recursion_level=0).sitemap()`, which is what this calls. Run with bench/.venv-peers/bin/python.

Usage: peer_usp.py URL
"""

import logging
import sys

from usp.fetch_parse import SitemapFetcher

logging.disable(logging.CRITICAL)  # usp logs every fetch at INFO; keep stderr quiet

sitemap = SitemapFetcher(url=sys.argv[1], recursion_level=0).sitemap()
print(sum(1 for _ in sitemap.all_pages()))

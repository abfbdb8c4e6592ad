#!/usr/bin/env python3
"""Peer: advertools `sitemap_to_df` (pandas DataFrame of every URL; an index's children fetched by a
thread pool, advertools' default max_workers=8). Prints the number of URLs (rows with a `loc`).

Usage: peer_advertools.py URL   (run with bench/.venv-peers/bin/python)
"""

import logging
import sys
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

import advertools as adv  # noqa: E402

df = adv.sitemap_to_df(sys.argv[1])
print(int(df["loc"].notna().sum()) if "loc" in df else 0)

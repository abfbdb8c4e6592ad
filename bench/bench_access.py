#!/usr/bin/env python3
"""The crawler-access matrix (issue 22 §2: 1 M URLs x 10 user agents in <= 30 s) on a generated
store, run as a user runs it: ``sitemap-tui access FILE.db`` in a child process, wall time and peak
RSS (``ru_maxrss`` of the children).

The store is written through the store's own writer: URLs under a handful of paths on two origins,
each origin with a robots.txt that has groups for several crawlers (a ``*`` group with plain and
wildcard rules, GPTBot and CCBot shut out, a Googlebot group of its own), as real sites do. A saved
exploration is read-only to ``access``, so each run computes the whole matrix (a TEMP table).

  python bench/bench_access.py                 # 1,000,000 URLs, the 9 default agents + 1
  python bench/bench_access.py --urls 100000 --runs 3
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FILES = 20
BATCH = 5000
ORIGINS = ("https://bench.example", "https://shop.bench.example")
ROBOTS = """User-agent: *
Disallow: /cart/
Disallow: /search
Disallow: /*?sessionid=
Disallow: /*.pdf$
Allow: /search/help

User-agent: Googlebot
Disallow: /cart/
Allow: /

User-agent: GPTBot
User-agent: CCBot
Disallow: /

User-agent: ClaudeBot
Disallow: /private/
"""
SECTIONS = ("p", "cart", "search", "docs", "private", "blog")
AGENTS = "Googlebot,Bingbot,Applebot,GPTBot,OAI-SearchBot,ClaudeBot,PerplexityBot,CCBot,Google-Extended,YandexBot"


def build(path: Path, urls: int) -> float:
    from sitemap_tui.engine.model import Entry, FoundBy, Node, NodeKind, NodeState
    from sitemap_tui.engine.store import Store

    started = time.perf_counter()
    store = Store(path)
    store.set_meta("target", f"{ORIGINS[0]}/index.xml")
    for origin in ORIGINS:
        store.set_meta(f"robots:{origin}/robots.txt", ROBOTS)
    store.add_node(Node(id=1, url=f"{ORIGINS[0]}/index.xml", kind=NodeKind.INDEX, state=NodeState.DONE,
                        found_by=FoundBy.USER, parent_id=None, depth=0))
    per_file = urls // FILES
    for f in range(FILES):
        node_id = f + 2
        store.add_node(Node(id=node_id, url=f"{ORIGINS[0]}/child-{f:03}.xml", kind=NodeKind.URLSET,
                            state=NodeState.DONE, found_by=FoundBy.INDEX, parent_id=1, depth=1))
        batch = []
        for i in range(f * per_file, (f + 1) * per_file):
            origin = ORIGINS[i % 7 == 0]
            section = SECTIONS[i % len(SECTIONS)]
            tail = ".pdf" if i % 50 == 0 else ("?sessionid=1" if i % 31 == 0 else "")
            batch.append(Entry(loc=f"{origin}/{section}/item-{i}{tail}"))
            if len(batch) == BATCH:
                store.add_entries(node_id, batch)
                batch = []
        if batch:
            store.add_entries(node_id, batch)
        store.commit()
    store.close()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-access-") as tmp:
        db = Path(tmp) / "store.db"
        took = build(db, args.urls)
        print(f"store of {args.urls:,} URLs written in {took:.1f} s")
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            done = subprocess.run([args.python, "-m", "sitemap_tui", "access", str(db), "--agents", AGENTS,
                                   "--format", "jsonl"], capture_output=True, text=True)
            times.append(time.perf_counter() - started)
            if done.returncode != 0:
                print(done.stderr, file=sys.stderr)
                return 1
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        total = done.stdout.strip().splitlines()[-1]
        print(f"access, {len(AGENTS.split(','))} agents: median {statistics.median(times):.2f} s "
              f"(runs: {', '.join(f'{t:.2f}' for t in times)}), {args.urls / statistics.median(times):,.0f} URLs/s, "
              f"peak RSS {rss:.0f} MiB")
        print(f"total: {total}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

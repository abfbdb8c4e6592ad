"""Benchmark: cross-file rules over a 1,000,000-URL store.

Target (issue 4): cross-file duplicate detection over 1,000,000 URLs in under 30 s with peak
RSS under 300 MB.

The store (an index + 20 urlsets x 50,000 entries, about 2 % of each file's URLs also listed in
another file, varied lastmod/priority) is built in a child process through the parser's row
builder (``Store.add_entries``: the cross-file keys are computed there, as in a crawl), so the
peak RSS measured here is that of ``run_crossfile`` alone (plus the interpreter and imports).

    .venv/bin/python bench/bench_crossfile.py [--urls-per-node 50000] [--nodes 20] [--robots] [--hreflang]

``--hreflang`` gives every entry three hreflang links instead (clusters of en/de/fr pages; 1 in
97 entries links one page too far), the shape of an international shop's sitemaps.

``--robots`` also gives the host a robots.txt with Disallow rules, so robots-url-disallowed
streams every entry through protego (reported separately: it is not duplicate detection).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HOST = "https://www.example.com"
LANGS = ("en", "de", "fr")
ROBOTS = b"User-agent: *\nDisallow: /*/private/\nDisallow: /*.pdf$\nAllow: /private/ok\n"


def build(path: str, nodes: int, per_node: int, hreflang: bool) -> None:
    from sitemap_tui.engine.model import Alternate, Entry, FoundBy, Node, NodeKind, NodeState
    from sitemap_tui.engine.store import Store

    store = Store(path)
    store.add_node(
        Node(id=1, url=f"{HOST}/sitemap_index.xml", kind=NodeKind.INDEX, state=NodeState.DONE)
    )
    for n in range(nodes):
        store.add_node(
            Node(
                id=n + 2,
                url=f"{HOST}/sitemap-{n}.xml",
                kind=NodeKind.URLSET,
                state=NodeState.DONE,
                found_by=FoundBy.INDEX,
                parent_id=1,
                depth=1,
            )
        )
    store.set_meta(f"robots:{HOST}/robots.txt", ROBOTS.decode())
    base_ts = 1_700_000_000

    def entries(n: int) -> Iterator[Entry]:
        for j in range(per_node):
            if hreflang:
                # clusters of three pages (en, de, fr) listing each other; 1 in 97 links one
                # page too far (no return link, an inconsistent cluster)
                lang, k = LANGS[j % 3], j // 3
                loc = f"{HOST}/{lang}/s{n}/page-{k}"
                shift = 0 if j % 97 else 1
                links = [Alternate("alternate", other, f"{HOST}/{other}/s{n}/page-{k + shift}") for other in LANGS]
                lm = base_ts + k * 37
            else:
                links = []
                if j % 50 == 7 and n > 0:
                    # ~2 %: a URL of the previous file; every other one with another lastmod
                    k, owner = j + 1, n - 1
                    lm = base_ts + k * 37 + (86400 if j % 100 == 7 else 0)
                else:
                    k, owner = j, n
                    lm = base_ts + k * 37
                path = "private/" if k % 1000 == 3 else ""
                loc = f"{HOST}/s{owner}/{path}page-{k}"
            yield Entry(loc=loc, line=j + 3, lastmod=datetime.fromtimestamp(lm, UTC),
                        priority=0.5 + (k % 5) / 10, alternates=links)

    # through the parser's own row builder, so the keys are computed as a crawl computes them
    for n in range(nodes):
        batch: list[Entry] = []
        for entry in entries(n):
            batch.append(entry)
            if len(batch) == 5000:
                store.add_entries(n + 2, batch)
                batch = []
        if batch:
            store.add_entries(n + 2, batch)
    store.commit()
    store.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", help=argparse.SUPPRESS)
    ap.add_argument("--nodes", type=int, default=20)
    ap.add_argument("--urls-per-node", type=int, default=50_000)
    ap.add_argument("--robots", action="store_true")
    ap.add_argument("--hreflang", action="store_true",
                    help="every entry in a cluster of three hreflang pages (3 links each)")
    args = ap.parse_args()
    if args.build:
        build(args.build, args.nodes, args.urls_per_node, args.hreflang)
        return

    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "bench.db")
        t0 = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                __file__,
                "--build",
                db,
                "--nodes",
                str(args.nodes),
                "--urls-per-node",
                str(args.urls_per_node),
                *(["--hreflang"] if args.hreflang else []),
            ],
            check=True,
        )
        built = time.perf_counter() - t0

        from sitemap_tui.engine.store import Store
        from sitemap_tui.validate.crossfile import run_crossfile

        store = Store(db)
        total = store.conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        enabled = {
            "cross-duplicate-url",
            "cross-duplicate-conflicting",
            "cross-mixed-scheme",
            "cross-mixed-www",
            "cross-trailing-slash-variants",
            "cross-mobile-and-desktop",
            "hreflang-no-return-link",
            "hreflang-cluster-inconsistent",
            "hreflang-target-not-in-sitemaps",
            "lastmod-all-identical",
            "priority-all-equal",
            "index-gsc-limit",
        }
        t0 = time.perf_counter()
        n = run_crossfile(store, enabled=enabled, robots={})
        elapsed = time.perf_counter() - t0
        store.commit()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        counts = store.rule_counts()
        print(f"store: {total:,} entries in {args.nodes} files (built in {built:.1f} s)")
        print(f"cross-file rules (SQL): {elapsed:.2f} s, {n:,} issues")
        for rule, sev, c in counts:
            print(f"  {rule:<32} {sev:<8} {c:,}")
        print(f"peak RSS: {rss / 1024:.0f} MB (before the run: {rss_before / 1024:.0f} MB)")
        if args.robots:
            t0 = time.perf_counter()
            n = run_crossfile(store, enabled={"robots-url-disallowed"})
            elapsed = time.perf_counter() - t0
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            print(
                f"robots-url-disallowed (protego, streamed): {elapsed:.2f} s, {n:,} issues,"
                f" peak RSS {rss / 1024:.0f} MB"
            )
        store.close()


if __name__ == "__main__":
    main()

"""Benchmark: cross-file rules over a 1,000,000-URL store.

Target (issue 4): cross-file duplicate detection over 1,000,000 URLs in under 30 s with peak
RSS under 300 MB.

The store (an index + 20 urlsets x 50,000 entries, about 2 % of each file's URLs also listed in
another file, varied lastmod/priority) is built in a child process with executemany, so the
peak RSS measured here is that of ``run_crossfile`` alone (plus the interpreter and imports).

    .venv/bin/python bench/bench_crossfile.py [--urls-per-node 50000] [--nodes 20] [--robots]

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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HOST = "https://www.example.com"
ROBOTS = b"User-agent: *\nDisallow: /*/private/\nDisallow: /*.pdf$\nAllow: /private/ok\n"


def build(path: str, nodes: int, per_node: int) -> None:
    from sitemap_tui.engine.model import FoundBy, Node, NodeKind, NodeState
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

    def rows():
        eid = 0
        for n in range(nodes):
            node_id = n + 2
            for j in range(per_node):
                eid += 1
                if j % 50 == 7 and n > 0:
                    # ~2 %: a URL of the previous file; every other one with another lastmod
                    k, owner = j + 1, n - 1
                    lm = base_ts + k * 37 + (86400 if j % 100 == 7 else 0)
                else:
                    k, owner = j, n
                    lm = base_ts + k * 37
                path = "private/" if k % 1000 == 3 else ""
                loc = f"{HOST}/s{owner}/{path}page-{k}"
                yield (eid, node_id, loc, j + 3, None, lm, None, None, None, 0.5 + (k % 5) / 10)

    store.conn.executemany(
        "INSERT INTO entries(id, node_id, loc, line, lastmod_raw, lastmod, changefreq_raw,"
        " changefreq, priority_raw, priority) VALUES(?,?,?,?,?,?,?,?,?,?)",
        rows(),
    )
    store.commit()
    store.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", help=argparse.SUPPRESS)
    ap.add_argument("--nodes", type=int, default=20)
    ap.add_argument("--urls-per-node", type=int, default=50_000)
    ap.add_argument("--robots", action="store_true")
    args = ap.parse_args()
    if args.build:
        build(args.build, args.nodes, args.urls_per_node)
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

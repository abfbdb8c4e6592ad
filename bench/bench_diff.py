#!/usr/bin/env python3
"""``sitemap-tui diff`` on two generated stores (issue 20's shape: the second with 1 % of the URLs
added, 1 % removed and 5 % of lastmods changed), timed with its peak RSS.

The stores are written through the store's own writer (rows as the parser workers build them),
which takes a fraction of an exploration's time; the diff itself runs as a user runs it, in a
child process (`python -m sitemap_tui diff OLD NEW --format json`), and ``ru_maxrss`` of the
children is its peak resident memory.

  python bench/bench_diff.py                 # 1,000,000 URLs in 20 files
  python bench/bench_diff.py --urls 100000
  python bench/bench_diff.py --keep /tmp/pair --statements   # the stores kept for the next run;
                                             # each statement of the build timed, in process
  python bench/bench_diff.py --urls 10000000 --keep /tmp/pair10m --sql   # the pair written in SQL:
                                             # the writer's rows, minutes instead of ~an hour
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

FILES = 20
BATCH = 5000


def build(path: Path, urls: int, *, new: bool) -> float:
    from sitemap_tui.engine.model import Entry, FoundBy, Node, NodeKind, NodeState
    from sitemap_tui.engine.store import Store

    started = time.perf_counter()
    store = Store(path)
    store.set_meta("target", "https://bench.example/index.xml")
    base = datetime(2024, 1, 1, tzinfo=UTC)
    store.add_node(Node(id=1, url="https://bench.example/index.xml", kind=NodeKind.INDEX, state=NodeState.DONE,
                        found_by=FoundBy.USER, parent_id=None, depth=0))
    per_file = urls // FILES
    for f in range(FILES):
        node_id = f + 2
        store.add_node(Node(id=node_id, url=f"https://bench.example/child-{f:03}.xml", kind=NodeKind.URLSET,
                            state=NodeState.DONE, found_by=FoundBy.INDEX, parent_id=1, depth=1))
        batch = []
        for i in range(f * per_file, (f + 1) * per_file):
            # NEW: the first 1 % of each file's range removed, as many added past the end, and
            # every 20th URL's lastmod a day later
            if new and i - f * per_file < per_file // 100:
                continue
            day = base + timedelta(seconds=i)
            if new and i % 20 == 0:
                day += timedelta(days=1)
            raw = day.isoformat().replace("+00:00", "Z")
            batch.append(Entry(loc=f"https://bench.example/p/{i}", lastmod_raw=raw, lastmod=day))
            if len(batch) == BATCH:
                store.add_entries(node_id, batch)
                batch = []
        if new:
            for i in range(per_file // 100):
                batch.append(Entry(loc=f"https://bench.example/new/{f}/{i}"))
        if batch:
            store.add_entries(node_id, batch)
        store.commit()
    store.close()
    return time.perf_counter() - started


def build_sql(path: Path, urls: int, *, new: bool) -> float:
    """:func:`build`'s rows, inserted by SQLite itself (a recursive CTE per file) into a store the
    writer created: the same entries and nodes (tests/test_bench_diff.py), for a 10 M pair."""
    from sitemap_tui.engine.model import FoundBy, Node, NodeKind, NodeState
    from sitemap_tui.engine.store import Store

    started = time.perf_counter()
    store = Store(path)
    store.set_meta("target", "https://bench.example/index.xml")
    store.add_node(Node(id=1, url="https://bench.example/index.xml", kind=NodeKind.INDEX, state=NodeState.DONE,
                        found_by=FoundBy.USER, parent_id=None, depth=0))
    per_file = urls // FILES
    base = int(datetime(2024, 1, 1, tzinfo=UTC).timestamp())
    later = f"(CASE WHEN {int(new)} AND i % 20 = 0 THEN 86400 ELSE 0 END)"  # build's day later
    for f in range(FILES):
        node_id = f + 2
        store.add_node(Node(id=node_id, url=f"https://bench.example/child-{f:03}.xml", kind=NodeKind.URLSET,
                            state=NodeState.DONE, found_by=FoundBy.INDEX, parent_id=1, depth=1))
        first, skip = f * per_file, per_file // 100 if new else 0
        store.conn.execute(
            "INSERT INTO entries(node_id, loc, line, lastmod_raw, lastmod, alt_n)"
            " WITH RECURSIVE s(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM s WHERE i < ?)"
            " SELECT ?, 'https://bench.example/p/' || i, 0,"
            f" strftime('%Y-%m-%dT%H:%M:%SZ', {base} + i + {later}, 'unixepoch'), {base} + i + {later}, 0 FROM s",
            (first + skip, first + per_file - 1, node_id))
        if new:
            store.conn.execute(
                "INSERT INTO entries(node_id, loc, line, alt_n)"
                " WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < ?)"
                " SELECT ?, 'https://bench.example/new/' || ? || '/' || i, 0, 0 FROM s",
                (per_file // 100 - 1, node_id, f))
        store.commit()
    store.close()
    return time.perf_counter() - started


class _Timed:
    """The scratch connection of a DiffQueries, each statement over 50 ms timed (``--statements``)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.times: list[tuple[float, float, str]] = []  # (wall s, CPU s, statement)

    def execute(self, sql: str, *params: Any) -> Any:
        started, cpu = time.perf_counter(), time.process_time()
        cursor = self.conn.execute(sql, *params)
        elapsed = time.perf_counter() - started
        if elapsed > 0.05:
            self.times.append((elapsed, time.process_time() - cpu, " ".join(sql.split())))
        return cursor

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


def statements(old: Path, new: Path, scratch: Path) -> None:
    """The comparison in this process, with the time of each slow statement and its plan."""
    from sitemap_tui.engine.store import diff as queries
    from sitemap_tui.session.diff import compare

    made = queries.DiffQueries.__init__

    def timed_init(self: Any, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        self.conn = _Timed(self.conn)

    queries.DiffQueries.__init__ = timed_init  # type: ignore[method-assign]
    started, cpu = time.perf_counter(), time.process_time()
    result = compare(old, new, scratch)
    total, cpu = time.perf_counter() - started, time.process_time() - cpu
    timed = result.queries.conn
    print("   wall     CPU")
    for elapsed, used, sql in sorted(timed.times, reverse=True):
        print(f"{elapsed:7.2f} s {used:6.2f} s  {sql[:150]}")
        if sql.startswith("INSERT") and " SELECT " in sql and " ON CONFLICT" not in sql:
            plan = timed.conn.execute("EXPLAIN QUERY PLAN " + sql[sql.index(" SELECT ") + 1:]).fetchall()
            for row in plan:
                print(f"{'':12}{row[-1]}")
    print(f"{total:7.2f} s {cpu:6.2f} s  compare (build and counts), load average {os.getloadavg()[0]:.2f}")
    result.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--keep", type=Path, help="build the stores here once and reuse them")
    parser.add_argument("--statements", action="store_true", help="time each statement of the build instead")
    parser.add_argument("--sql", action="store_true", help="write the pair in SQL (the same rows, much faster)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        old, new = folder / "old.db", folder / "new.db"
        built = 0.0
        if not (old.exists() and new.exists()):
            make = build_sql if args.sql else build
            built = make(old, args.urls, new=False) + make(new, args.urls, new=True)
        if args.statements:
            (Path(tmp) / "scratch.db").unlink(missing_ok=True)
            statements(old, new, Path(tmp) / "scratch.db")
            return 0
        out = Path(tmp) / "diff.json"
        load_before = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "sitemap_tui", "diff", str(old), str(new), "--format", "json",
                        "--output", str(out)], check=True)
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        summary = json.loads(out.read_text())["summary"]
        print(json.dumps({"urls": args.urls, "build_s": round(built, 1), "diff_s": round(elapsed, 1),
                          "diff_cpu_s": round(cpu, 1), "load_before": round(load_before, 2),
                          "load_after": round(os.getloadavg()[0], 2),
                          "diff_peak_rss_mib": round(rss_mib, 1), "report_mib": round(out.stat().st_size / 2**20, 1),
                          "summary": {k: v for k, v in summary.items() if v}}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

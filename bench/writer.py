#!/usr/bin/env python3
"""What the single SQLite writer sustains (issue 19, docs/scale.md "Where each step runs"), in CPU
seconds of the store's process per million entry rows, three ways:

  unpickle   the row batches a worker sends (JobBatch, as the results queue delivers them)
  executemany  the store's add_rows (ids assigned, one commit per batch) and the bare
             executemany of ready tuples
  shard      a worker writes its rows to a database of its own; the store ATTACHes it and copies
             the rows with INSERT ... SELECT (the worker's cost is printed apart)

  python bench/writer.py CHILD.xml[.gz] [--copies 20]

The rows are one generated child's (bench/generate.py), repeated with fresh ids. CPU time, so the
figures hold on a busy machine better than wall times do; not for CI.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import pickle
import sqlite3
import tempfile
import time
from pathlib import Path

from sitemap_tui.engine.filejob import FileJob, JobBatch, JobSpec
from sitemap_tui.engine.store import Store

COLUMNS = ("id, node_id, loc, line, lastmod_raw, lastmod, changefreq_raw, changefreq, priority_raw,"
           " priority, n_images, n_videos, n_news, n_alternates, title, key, alt_n, alt_h")
BATCH = 2000


def batches_of(path: Path, work: Path) -> list[JobBatch]:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    plain = work / "child.xml"
    plain.write_bytes(data)
    msgs: list[object] = []
    spec = JobSpec(node_id=2, url="http://127.0.0.1/child.xml", local_path=str(plain))
    asyncio.run(FileJob(spec, msgs.append).run(None))
    return [m for m in msgs if isinstance(m, JobBatch) and m.rows is not None]


def rate(rows: int, cpu: float) -> str:
    return f"{rows:,} rows, {cpu:.2f} s CPU, {rows / cpu:,.0f} rows/s"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("child", type=Path)
    ap.add_argument("--copies", type=int, default=20, help="times the child's rows are written (default 20)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="sitemap-tui-writer-") as tmp:
        work = Path(tmp)
        batches = batches_of(a.child, work)
        per_copy = sum(len(b.rows.entries) for b in batches if b.rows is not None)
        n = per_copy * a.copies

        blobs = [pickle.dumps(b) for b in batches]
        t = time.process_time()
        for _ in range(a.copies):
            for blob in blobs:
                pickle.loads(blob)
        print(f"unpickle JobBatch: {rate(n, time.process_time() - t)}")

        store = Store(work / "add_rows.db")
        t = time.process_time()
        for _ in range(a.copies):
            for b in batches:
                assert b.rows is not None
                store.add_rows(2, b.rows)
                store.commit()
                store.begin()
        print(f"store add_rows + commit per batch: {rate(n, time.process_time() - t)}")

        rows = [r for b in batches if b.rows is not None for r in b.rows.entries]
        ready = [[(c * per_copy + i + 1, 2, *r) for i, r in enumerate(rows)] for c in range(a.copies)]
        marks = ",".join("?" * 18)
        bare = Store(work / "bare.db")
        t = time.process_time()
        for copy in ready:
            for k in range(0, len(copy), BATCH):
                bare.conn.executemany(f"INSERT INTO entries({COLUMNS}) VALUES({marks})", copy[k:k + BATCH])
                bare.commit()
                bare.begin()
        print(f"bare executemany of ready tuples, commit per {BATCH}: {rate(n, time.process_time() - t)}")

        shard = sqlite3.connect(work / "shard.db")
        shard.execute("PRAGMA synchronous=OFF")
        shard.execute("PRAGMA journal_mode=OFF")
        shard.execute(f"CREATE TABLE e({COLUMNS})")
        t = time.process_time()
        for copy in ready:
            shard.executemany(f"INSERT INTO e VALUES({marks})", copy)
        shard.commit()
        shard.close()
        print(f"worker side, writing its shard: {rate(n, time.process_time() - t)}")
        copied = Store(work / "copied.db")
        copied.commit()
        copied.conn.execute("ATTACH DATABASE ? AS s", (str(work / "shard.db"),))
        copied.begin()
        t = time.process_time()
        for k in range(0, n, per_copy):
            copied.conn.execute(f"INSERT INTO entries({COLUMNS}) SELECT * FROM s.e WHERE rowid > ? AND rowid <= ?",
                                (k, k + per_copy))
            copied.commit()
            copied.begin()
        print(f"store side, INSERT ... SELECT from the attached shard: {rate(n, time.process_time() - t)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""The cross-file tail of `validate` alone (issue 19, round 4): `run_crossfile` over a copy of a
saved store, in this process (``--parts 0``) or split across child processes (``--parts N``),
with its wall time, the CPU of this process (the store's) and of the children it waited for,
and a digest of the issues it stored in their order (equal digests: the same issues, in the
same order).

  .venv/bin/python bench/crossfile_tail.py STORE.db --parts 0,2 --runs 2
  .venv/bin/python bench/crossfile_tail.py STORE.db --robots ROBOTS.TXT   # with robots-url-disallowed

STORE.db: e.g. `sitemap-tui validate INDEX --workers 2 --db STORE.db` on the 1 M index
(bench/scale.py --children 20 --urls 50000 serves it). A checkout without the split takes
``--parts 0`` only. Timings need a quiet machine; on a shared one read the CPU columns.
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def one(source: Path, parts: int, work: Path, robots: dict[str, Any] | None = None
        ) -> tuple[float, float, float, int, str]:
    from sitemap_tui.engine.store import Store
    from sitemap_tui.validate.crossfile import run_crossfile

    copy = work / "tail.db"
    shutil.copyfile(source, copy)
    store = Store(copy)
    try:
        if parts:  # (a checkout without the split takes --parts 0 only)
            from sitemap_tui.validate.crossfile_split import splitter

            kw = {"split": splitter(store, parts)}
        else:
            kw = {}
        self0, kids0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        n = run_crossfile(store, keep_temp=True, robots=robots, **kw)
        store.commit()
        wall = time.perf_counter() - t0
        self1, kids1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        digest = hashlib.sha256()
        for row in store.conn.execute(
            "SELECT rule, severity, node_id, entry_id, line, url, message FROM issues ORDER BY id"
        ):
            digest.update(repr(row).encode())
    finally:
        store.close()
        copy.unlink()
    cpu = (self1.ru_utime + self1.ru_stime) - (self0.ru_utime + self0.ru_stime)
    kids = (kids1.ru_utime + kids1.ru_stime) - (kids0.ru_utime + kids0.ru_stime)
    return wall, cpu, kids, n, digest.hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("store", type=Path)
    ap.add_argument("--parts", default="0,2", help="comma-separated part counts (0: in this process)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--robots", type=Path, metavar="FILE",
                    help="a robots.txt, as ROBOTS_URL's (default: the robots.txt files the store kept)")
    ap.add_argument("--robots-url", default="https://www.example.com/robots.txt",
                    help="where --robots stands (default: the bench sets' origin)")
    a = ap.parse_args(argv)
    robots = None
    if a.robots is not None:
        from sitemap_tui.engine.robots import parse_robots

        robots = {a.robots_url: parse_robots(a.robots.read_bytes(), a.robots_url)}
    print("| parts | wall s | store CPU s | children CPU s | issues | digest |")
    print("| --: | --: | --: | --: | --: | --- |")
    with tempfile.TemporaryDirectory(prefix="sitemap-tui-tail-", dir=a.store.parent) as tmp:
        for _ in range(a.runs):
            for parts in (int(p) for p in a.parts.split(",")):
                wall, cpu, kids, n, digest = one(a.store, parts, Path(tmp), robots)
                print(f"| {parts} | {wall:.2f} | {cpu:.2f} | {kids:.2f} | {n:,} | {digest} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

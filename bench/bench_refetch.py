#!/usr/bin/env python3
"""A conditional re-exploration against a first one (issue 20 §3: a re-exploration where every
file answers 304 costs <= 10 % of the first).

The generated index is served by bench/server.py (ETag / If-None-Match, Last-Modified /
If-Modified-Since, and a count of the bodies and 304s it sent). A command runs twice as a user
runs it, in a child process, with a cache folder of its own: the first run fetches and parses
everything and keeps its exploration in the cache; the second asks for each file with the first
run's validators, gets 304s and carries the rows over. Both outputs must be the same lines.

  python bench/generate.py --out /tmp/refetch-data --sets tui --urls 10000 --tui-children 20
  python bench/bench_refetch.py --root /tmp/refetch-data --index tui/index.xml
  python bench/bench_refetch.py --root /work/benchdata --index big/index.xml --command validate
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from server import BackgroundServer  # noqa: E402


def run(command: str, url: str, out: Path, cache: Path, extra: list[str]) -> tuple[float, float, str]:
    """One run: (wall s, CPU s of the whole process tree (user+sys, the parser processes too:
    waited for, their times are the child's), its stderr)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    args = [sys.executable, "-m", "sitemap_tui", command, url, "--output", str(out), *extra]
    if command == "validate":
        args += ["--format", "json", "--fail-on", "never"]
    elif command == "stats":
        args += ["--json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(args, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        sys.exit(f"{command} failed ({done.returncode}): {done.stderr}")
    return elapsed, cpu, done.stderr.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=HERE / ".work" / "data", help="the generated data")
    parser.add_argument("--index", default="tui/index.xml", help="the index under --root")
    parser.add_argument("--command", default="urls", choices=("urls", "stats", "validate"))
    parser.add_argument("--workers", type=int, help="parser processes (default: the command's)")
    args = parser.parse_args()
    extra = [] if args.workers is None else ["--workers", str(args.workers)]
    server = BackgroundServer(args.root)
    with tempfile.TemporaryDirectory(prefix="bench-refetch-") as tmp, server as base:
        cache = Path(tmp) / "cache"
        first_out, second_out = Path(tmp) / "first.out", Path(tmp) / "second.out"
        url = f"{base}/{args.index}"
        load_before = os.getloadavg()[0]
        first_s, first_cpu, _ = run(args.command, url, first_out, cache, extra)
        after_first = dict(_counts(server))
        second_s, second_cpu, said = run(args.command, url, second_out, cache, extra)
        load_after = os.getloadavg()[0]
        after_second = dict(_counts(server))
        same = _lines(first_out, args.command) == _lines(second_out, args.command)
        rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(json.dumps({
            "command": args.command, "index": args.index,
            "first_s": round(first_s, 2), "second_s": round(second_s, 2),
            "ratio": round(second_s / first_s, 3) if first_s else None,
            "first_cpu_s": round(first_cpu, 2), "second_cpu_s": round(second_cpu, 2),
            "cpu_ratio": round(second_cpu / first_cpu, 3) if first_cpu else None,
            "load_before": round(load_before, 2), "load_after": round(load_after, 2),
            "bodies_first": after_first.get("200", 0),
            "bodies_second": after_second.get("200", 0) - after_first.get("200", 0),
            "not_modified_second": after_second.get("304", 0) - after_first.get("304", 0),
            "same_output": same, "peak_rss_mib": round(rss_mib, 1), "stderr_second": said[-300:],
        }, indent=2))
    return 0 if same else 1


def _lines(path: Path, command: str) -> list[str]:
    """The output to compare: sorted lines (files may finish in another order); validate's JSON
    without what depends on the run."""
    if command == "validate":
        report = json.loads(path.read_text())
        return sorted(json.dumps(i, sort_keys=True) for i in report.get("issues", []))
    if command == "stats":
        return [json.dumps(_untimed(n), sort_keys=True) for n in json.loads(path.read_text())["nodes"]]
    return sorted(path.read_text().splitlines())


def _untimed(node: dict) -> dict:
    for key in ("fetch_time", "parse_time", "ttfb", "unchanged_since"):
        node.pop(key, None)
    node["children"] = [_untimed(c) for c in node["children"]]
    return node


def _counts(server: BackgroundServer) -> dict[str, int]:
    return server.server.RequestHandlerClass.sent  # type: ignore[attr-defined,no-any-return]


if __name__ == "__main__":
    sys.exit(main())

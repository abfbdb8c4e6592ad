#!/usr/bin/env python3
"""The scaling curve (issue 19): `urls` and `validate` on a generated index with 1, 2, 4, ... up to
the usable core count of workers, and for each: wall time, speed-up over one worker, and the share
of the total CPU time spent by the process that owns the store (the main process, which applies
every batch) rather than by its parser workers.

  python bench/scale.py                            # the 10 M index (200 x 50,000; bench/generate.py)
  python bench/scale.py --children 10 --urls 5000  # a 50,000-URL index, for a quick look
  python bench/scale.py --workers 1,2,3 --runs 3

How the share is measured: each run is a child process (`scale.py --probe`) that runs the command
in-process (sitemap_tui.main.main, as the console script does) and, once it has returned and its
workers were joined, writes getrusage(RUSAGE_SELF) (the store process) and
getrusage(RUSAGE_CHILDREN) (the workers, and any other process it waited for) to a JSON file.
share = self / (self + children). Wall time, total CPU and the summed RSS of the process tree come
from bench/run.py's measure() (wait4, /proc sampling), as in bench/RESULTS.md.

Every child sitemap is served by bench/server.py from one host (127.0.0.1), and each run passes
`--per-host` = max(4, workers) besides `--workers`. The default of 4 requests per host no longer
caps the files parsed at once (a request's slot is lent back while the chunk it read is parsed,
engine/limits.py's Lease), only the reads from the socket at once; --default-per-host keeps it,
to compare the two. --concurrency is left to its default,
which follows the worker count. The exact command line is printed above the table.

Not part of CI, and not for a shared machine: timings need a quiet one.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import generate  # noqa: E402
import run as harness  # noqa: E402

COMMANDS = {
    "urls": ["urls", "{target}", "--format", "txt"],  # as workload f: one line per URL to /dev/null
    "validate": ["validate", "{target}"],  # exit 1 (findings) counts as success
    # the same listing without the history store every headless run keeps by default (issue
    # 20 §3): with urls in one batch, the history's cost (printed under the table)
    "urls-no-history": ["urls", "{target}", "--format", "txt", "--no-history"],
}


# -- the probe: one command in this process, then its rusage -----------------------------------
def probe(out: Path, argv: list[str], profile: Path | None = None) -> int:
    from sitemap_tui.main import main

    profiler = None
    if profile is not None:  # the store's process under cProfile (its CPU time is inflated then)
        import cProfile
        import time

        # the main thread's CPU clock: a wall clock counts the loop's waits for the workers
        # (epoll) as the profile's biggest item, and another thread's work never shows
        profiler = cProfile.Profile(time.thread_time)
        profiler.enable()
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse and the commands' own exits
        rc = exc.code if isinstance(exc.code, int) else 1
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(profile)
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    out.write_text(json.dumps({
        "self": own.ru_utime + own.ru_stime,
        "children": kids.ru_utime + kids.ru_stime,
        "self_maxrss": own.ru_maxrss * 1024,
        # where a growth of CPU from 1 to N workers goes: user vs system time (IPC, syscalls),
        # and how often the processes waited (voluntary) or were preempted (involuntary)
        "detail": {"self_user": own.ru_utime, "self_sys": own.ru_stime,
                   "children_user": kids.ru_utime, "children_sys": kids.ru_stime,
                   "nvcsw": own.ru_nvcsw + kids.ru_nvcsw, "nivcsw": own.ru_nivcsw + kids.ru_nivcsw},
    }))
    sys.stdout.flush()
    return rc


# -- the curve ---------------------------------------------------------------------------------
@dataclass
class Point:
    command: str
    workers: int
    wall: float
    cpu: float  # the whole tree (wait4)
    store_cpu: float  # the store process alone (RUSAGE_SELF)
    worker_cpu: float  # its children (RUSAGE_CHILDREN)
    sumrss: int
    store_rss: int
    rc: int | None
    detail: dict[str, float] = field(default_factory=dict)

    @property
    def share(self) -> float:
        total = self.store_cpu + self.worker_cpu
        return self.store_cpu / total if total else 0.0


def usable_cores(py: str) -> int:
    """The default worker count of the sitemap-tui under test (engine/cores.py)."""
    code = "from sitemap_tui.engine.cores import default_workers; print(default_workers())"
    return int(subprocess.run([py, "-c", code], capture_output=True, text=True, check=True).stdout)


def worker_counts(cores: int) -> list[int]:
    counts, n = [], 1
    while n < cores:
        counts.append(n)
        n *= 2
    return [*counts, cores]


def command_line(command: str, target: str, workers: int, per_host: bool) -> list[str]:
    argv = [part.format(target=target) for part in COMMANDS[command]] + ["--workers", str(workers)]
    if per_host:
        argv += ["--per-host", str(max(4, workers))]
    return argv


def one_run(py: str, command: str, target: str, workers: int, per_host: bool, env: dict[str, str],
            cap: float, work: Path, profile: Path | None = None) -> Point:
    argv = command_line(command, target, workers, per_host)
    rusage = work / "rusage.json"
    rusage.unlink(missing_ok=True)
    stderr = work / f"{command}-{workers}.stderr"
    prof = ["--profile", f"{profile}-{command}-{workers}.prof"] if profile is not None else []
    got = harness.measure([py, str(Path(__file__).resolve()), "--probe", str(rusage), *prof, "--", *argv],
                          stdout=None, stderr=stderr, env=env, cap_s=cap, mem_cap=None)
    ok = got.status == "ok" and got.rc in (0, 1) and rusage.exists()
    if not ok:
        tail = stderr.read_text(errors="replace")[-2000:] if stderr.exists() else ""
        raise SystemExit(f"{command} --workers {workers}: {got.status}, exit {got.rc} "
                         f"{got.note}\n{tail}")
    use = json.loads(rusage.read_text())
    return Point(command, workers, got.wall, got.cpu, use["self"], use["children"], got.sumrss,
                 use["self_maxrss"], got.rc, use.get("detail", {}))


def render(points: list[Point], urls: int) -> str:
    lines = ["| command | workers | wall s | speed-up | URLs/s | CPU s | store process CPU s | "
             "store share | Σ RSS MiB |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    base = {p.command: p.wall for p in points if p.workers == min(q.workers for q in points)}
    for p in points:
        lines.append(
            f"| {p.command} | {p.workers} | {p.wall:.2f} | {base[p.command] / p.wall:.2f}× | "
            f"{urls / p.wall:,.0f} | {p.cpu:.1f} | {p.store_cpu:.1f} | {p.share:.0%} | "
            f"{p.sumrss / 2**20:.0f} |")
    return "\n".join(lines)


def cpu_detail(points: list[Point], cores: int) -> str:
    """Per point, the CPU split (user/system, store/workers) and the context switches; and, for
    a loaded machine where wall times mean little, the speed-up the CPU times alone predict:
    one worker's run takes as long as its worker's CPU (the store overlaps it on another core),
    N workers' at best the tree's CPU spread over min(N, cores) cores (wall = max(that, the
    busiest process, i.e. the store's CPU))."""
    lines = []
    one = {p.command: p for p in points if p.workers == 1}
    for p in points:
        d = p.detail
        if not d:
            continue
        line = (f"# {p.command} --workers {p.workers}: store user {d['self_user']:.1f} s sys {d['self_sys']:.1f} s, "
                f"workers user {d['children_user']:.1f} s sys {d['children_sys']:.1f} s, context switches "
                f"{d['nvcsw']:,.0f} voluntary {d['nivcsw']:,.0f} involuntary")
        base = one.get(p.command)
        if base is not None and p.workers > 1 and base.worker_cpu:
            busy = max((p.store_cpu + p.worker_cpu) / min(p.workers, cores), p.store_cpu)
            line += f"; CPU-model speed-up over 1 worker {base.worker_cpu / busy:.2f}×"
        lines.append(line)
    return "\n".join(lines)


def history_cost(points: list[Point]) -> str:
    """The history's cost per worker count: urls over urls-no-history, in CPU s of the whole
    tree and in wall time (the task's target: CPU ≤ 1.25×)."""
    plain = {p.workers: p for p in points if p.command == "urls-no-history"}
    lines = [f"# history kept by urls, --workers {p.workers}: CPU {p.cpu:.1f} s against {plain[p.workers].cpu:.1f} s "
             f"without ({p.cpu / plain[p.workers].cpu:.2f}×), wall {p.wall / plain[p.workers].wall:.2f}×, "
             f"store process {p.store_cpu:.1f} s"
             for p in points if p.command == "urls" and p.workers in plain and plain[p.workers].cpu]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--probe"]:  # the child: --probe FILE [--profile PROF] -- sitemap-tui arguments
        prof = None
        if argv[2:3] == ["--profile"] and len(argv) > 3:
            prof, argv = Path(argv[3]), argv[:2] + argv[4:]
        if len(argv) < 3 or argv[2] != "--":
            raise SystemExit("usage: scale.py --probe FILE [--profile PROF] -- ARGS...")
        return probe(Path(argv[1]), argv[3:], prof)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0,
                    help="data scale, as bench/run.py's (default 1: 200 children x 50,000 URLs)")
    ap.add_argument("--children", type=int, help="children of the index (overrides --scale)")
    ap.add_argument("--urls", type=int, help="URLs per child (overrides --scale)")
    ap.add_argument("--workers", help="comma-separated worker counts (default 1, 2, 4, ... up to the usable cores)")
    ap.add_argument("--commands", default="urls,validate",
                    help="comma-separated, of urls,validate,urls-no-history (default urls,validate; "
                         "urls,urls-no-history gives the history's cost to urls)")
    ap.add_argument("--runs", type=int, default=1, help="timed runs per point; the median wall time is kept (default 1)")
    ap.add_argument("--no-warmup", action="store_true", help="skip the untimed first run (page cache, bytecode)")
    ap.add_argument("--default-per-host", action="store_true",
                    help="leave --per-host at its default (4) instead of max(4, workers)")
    ap.add_argument("--python", default=str(harness.REPO / ".venv" / "bin" / "python"),
                    help="interpreter with sitemap-tui installed (default .venv/bin/python)")
    ap.add_argument("--cap", type=float, default=1800, help="time cap per run in seconds (default 1800)")
    ap.add_argument("--json", type=Path, help="also write the points here")
    ap.add_argument("--profile", type=Path,
                    help="cProfile the store's process (its main thread, CPU clock) of each run into "
                         "PROFILE-COMMAND-N.prof (inflates its CPU time)")
    a = ap.parse_args(argv)
    commands = [c for c in a.commands.split(",") if c]
    if unknown := [c for c in commands if c not in COMMANDS]:
        ap.error(f"unknown command(s): {', '.join(unknown)}")
    py = a.python
    if not Path(py).exists():
        ap.error(f"no interpreter at {py}: create the project venv first, or pass --python")
    cores = usable_cores(py)
    counts = [int(n) for n in a.workers.split(",")] if a.workers else worker_counts(cores)
    per_host = not a.default_per_host

    custom = a.children is not None or a.urls is not None
    if custom:
        data = harness.WORK / f"data-scale-{a.children}x{a.urls}"
    else:
        data = harness.DATA if a.scale == 1 else harness.WORK / f"data-scale{a.scale:g}"
    manifest = generate.generate(data, ["big"], scale=a.scale, children=a.children, urls=a.urls)
    big = manifest["sets"]["big"]
    urls = int(big["urls"])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    server, base = harness.start_server(env, data)
    target = f"{base}/{big['index']}"
    points: list[Point] = []
    try:
        with tempfile.TemporaryDirectory(prefix="sitemap-tui-scale-") as tmp:
            work = Path(tmp)
            print(f"# scale: {urls:,} URLs in {big['children']} children; usable cores {cores} "
                  f"(os.cpu_count {os.cpu_count()}); load average before {os.getloadavg()[0]:.2f}", flush=True)
            for command in commands:
                shown = " ".join(COMMANDS[command]).format(target="INDEX") + " --workers N"
                print(f"# {command}: sitemap-tui {shown}{' --per-host max(4,N)' if per_host else ''}", flush=True)
            if not a.no_warmup:
                one_run(py, "urls", target, counts[-1], per_host, env, a.cap, work)
            for command in commands:
                for n in counts:
                    runs = [one_run(py, command, target, n, per_host, env, a.cap, work, a.profile)
                            for _ in range(a.runs)]
                    point = sorted(runs, key=lambda p: p.wall)[len(runs) // 2]
                    if a.runs > 1:
                        point.wall = statistics.median(p.wall for p in runs)
                    points.append(point)
                    print(f"  {command} --workers {n}: {point.wall:.2f} s, store share {point.share:.0%}",
                          file=sys.stderr, flush=True)
    finally:
        server.kill()
        server.wait()
    print(f"# load average after {os.getloadavg()[0]:.2f}")
    print(render(points, urls))
    if detail := cpu_detail(points, cores):
        print(detail)
    if cost := history_cost(points):
        print(cost)
    if a.json:
        a.json.write_text(json.dumps([{**p.__dict__, "share": p.share} for p in points], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""The benchmark suite: sitemap-tui against a floor script and its peers (stdlib only).

One command from a clean clone (with the project installed in .venv):

    python bench/run.py                  # every workload; writes bench/RESULTS.md and bench/results.json

It generates the data (bench/generate.py, into bench/.work/data), installs the peers into
bench/.venv-peers (pip, pinned in bench/requirements-peers.txt), starts bench/server.py on 127.0.0.1 and
measures whole processes: wall time, CPU time, the peak RSS of the largest process (exact, from
wait4's rusage) and the peak RSS summed over the process tree (sampled every 100 ms from /proc).
Contenders are interleaved run by run (the order rotates every run), and every ratio is computed
between medians of the same batch. See bench/README.md for the workloads.

Examples:
    python bench/run.py --only a,b,c --runs 3
    python bench/run.py --scale 0.1 --runs 1          # quick check, ~1 minute
    python bench/run.py --only f                      # the 10-million-URL index (long)
    python bench/run.py --python /path/to/venv/bin/python --skip-peers
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / ".work"
DATA = WORK / "data"
OUT = WORK / "out"
PEERS_VENV = HERE / ".venv-peers"
RESULTS_MD = HERE / "RESULTS.md"
RESULTS_JSON = HERE / "results.json"
PAGE = os.sysconf("SC_PAGE_SIZE")
GIB = 1024**3

sys.path.insert(0, str(HERE))
import generate  # noqa: E402


# -- measuring one process ---------------------------------------------------------------------
@dataclass
class Run:
    wall: float
    cpu: float  # user + sys of the process and its waited-for descendants
    maxrss: int  # bytes, the largest single process (wait4 rusage: max over the tree)
    sumrss: int  # bytes, sampled peak of the summed RSS of the whole process tree
    rc: int | None
    status: str  # ok | failed | timeout | memcap
    count: int | None = None
    note: str = ""


def _tree_rss(root: int) -> int:
    total = 0
    stack = [root]
    seen: set[int] = set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                total += int(f.read().split()[1]) * PAGE
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                    stack.extend(int(c) for c in f.read().split())
        except (OSError, ValueError, IndexError):
            continue
    return total


def measure(argv: list[str], *, stdout: Path | None, stderr: Path, env: dict[str, str], cap_s: float,
            mem_cap: int | None) -> Run:
    """Run argv in a new session; return wall/CPU/RSS. Kills the whole group on the time or memory cap.

    Every run gets an empty cache folder of its own (XDG_CACHE_HOME), removed after it: with one
    cache for all runs, sitemap-tui's second run of a workload would re-explore against the first
    one's kept exploration and bench/server.py would answer 304, so the batch would time the carry
    of unchanged files (bench/bench_refetch.py's measure) instead of a first exploration."""
    cache = tempfile.mkdtemp(prefix="sitemap-tui-bench-cache-")
    try:
        return _measure(argv, stdout=stdout, stderr=stderr, env={**env, "XDG_CACHE_HOME": cache},
                        cap_s=cap_s, mem_cap=mem_cap)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def _measure(argv: list[str], *, stdout: Path | None, stderr: Path, env: dict[str, str], cap_s: float,
             mem_cap: int | None) -> Run:
    out_f = open(stdout, "wb") if stdout else open(os.devnull, "wb")  # noqa: SIM115
    err_f = open(stderr, "wb")  # noqa: SIM115
    peak = [0]
    killed: list[str] = []
    done = threading.Event()
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out_f, stderr=err_f, env=env,
                            cwd=REPO, start_new_session=True)

    def monitor() -> None:
        while not done.wait(0.1):
            rss = _tree_rss(proc.pid)
            peak[0] = max(peak[0], rss)
            elapsed = time.perf_counter() - t0
            if not killed and elapsed > cap_s:
                killed.append(f"timeout: killed at the {cap_s:g} s cap")
            elif not killed and mem_cap is not None and rss > mem_cap:
                killed.append(f"memcap: killed when its summed RSS reached {rss / GIB:.2f} GiB "
                              f"(cap {mem_cap / GIB:g} GiB) after {elapsed:.0f} s")
            if killed:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                return

    th = threading.Thread(target=monitor, daemon=True)
    th.start()
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    done.set()
    th.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    with contextlib.suppress(ProcessLookupError, PermissionError):  # stragglers of our own group only
        os.killpg(proc.pid, signal.SIGKILL)
    out_f.close()
    err_f.close()
    maxrss = ru.ru_maxrss * 1024
    run = Run(wall=wall, cpu=ru.ru_utime + ru.ru_stime, maxrss=maxrss, sumrss=max(peak[0], maxrss),
              rc=proc.returncode, status="ok")
    if killed:
        run.status, _, run.note = killed[0].partition(": ")
    return run


# -- contenders and workloads ------------------------------------------------------------------
@dataclass
class Contender:
    name: str
    role: str  # floor | ours | peer | base
    argv: list[str]  # "{url}" is replaced by the workload's URL
    shown: str  # the command as shown in RESULTS.md
    to_devnull: bool = False
    ok_rcs: tuple[int, ...] = (0,)
    count_from: str = "last-int"  # last-int | stats | lines | none


@dataclass
class Workload:
    id: str
    title: str
    path: str | None  # under the server root; None for the startup workload
    urls: int = 0
    decoded_bytes: int = 0
    wire_bytes: int = 0
    contenders: list[Contender] = field(default_factory=list)
    runs: int = 5
    warmup: bool = True
    note: str = ""


WORKLOAD_IDS = ("a", "b", "b-ce", "c", "c-gz", "d", "e-rss", "e-txt", "f", "g")


def selected(only: str | None) -> list[str]:
    if not only:
        return list(WORKLOAD_IDS)
    tokens = [t.strip() for t in only.split(",") if t.strip()]
    out = [w for w in WORKLOAD_IDS if any(w == t or w.startswith(t + "-") for t in tokens)]
    unknown = [t for t in tokens if not any(w == t or w.startswith(t + "-") for w in WORKLOAD_IDS)]
    if unknown:
        raise SystemExit(f"unknown workload(s) {', '.join(unknown)}; choose from {', '.join(WORKLOAD_IDS)}")
    return out


def sets_needed(ids: list[str]) -> list[str]:
    need = []
    for w, s in (("a", "small"), ("b", "small"), ("b-ce", "small"), ("c", "heavy"), ("c-gz", "heavy"),
                 ("d", "heavy"), ("e-rss", "feed"), ("e-txt", "text"), ("f", "big")):
        if w in ids and s not in need:
            need.append(s)
    return need


def build(ids: list[str], manifest: dict, tool: list[str], tool_shown: str, py: str, peers_py: str | None,
          runs: int, cap_s: float, peer_cap_s: float) -> list[Workload]:
    sets = manifest["sets"]
    rel_py = _rel(py)
    floor = Contender("floor", "floor", [py, str(HERE / "floor.py"), "{url}"],
                      f"{rel_py} bench/floor.py {{url}}")

    def ours(cmd: str, *extra: str, devnull: bool = False) -> Contender:
        shown = f"{tool_shown} {cmd} {{url}}" + (" " + " ".join(extra) if extra else "")
        if devnull:
            shown += " > /dev/null"
        return Contender(
            f"sitemap-tui {cmd}" + (" " + " ".join(extra) if extra else ""), "ours",
            [*tool, cmd, "{url}", *extra], shown, to_devnull=devnull,
            ok_rcs=(0, 1) if cmd == "validate" else (0,),
            count_from={"stats": "stats", "urls": "lines"}.get(cmd, "none"),
        )

    def peers(*names: str) -> list[Contender]:
        if peers_py is None:
            return []
        return [Contender(n, "peer", [peers_py, str(HERE / f"peer_{n}.py"), "{url}"],
                          f"bench/.venv-peers/bin/python bench/peer_{n}.py {{url}}") for n in names]

    all_peers = ("usp", "advertools", "scrapy")
    out: list[Workload] = []
    for wid in ids:
        if wid in ("a", "b", "b-ce"):
            s = sets["small"]
            path = {"a": s["file"], "b": s["gz_file"], "b-ce": "ce/" + s["file"]}[wid]
            title = f"{s['urls']:,}-URL urlset" + {
                "a": " (plain XML)",
                "b": ", .xml.gz served as application/gzip",
                "b-ce": ", served with Content-Encoding: gzip",
            }[wid]
            w = Workload(wid, title, path, s["urls"], s["decoded_bytes"],
                         s["gz_bytes"] if wid != "a" else s["decoded_bytes"], runs=runs)
            w.contenders = [floor, ours("urls", "--format", "jsonl", devnull=True), ours("stats"),
                            ours("validate"), *peers(*all_peers)]
        elif wid in ("c", "c-gz"):
            s = sets["heavy"]
            path = s["file"] if wid == "c" else s["gz_file"]
            title = f"heavy {s['urls']:,}-URL urlset (2 image:image + 3 xhtml:link per URL)" + (
                ", .xml.gz" if wid == "c-gz" else "")
            w = Workload(wid, title, path, s["urls"], s["decoded_bytes"],
                         s["gz_bytes"] if wid == "c-gz" else s["decoded_bytes"], runs=runs)
            w.contenders = [floor, ours("urls", "--format", "jsonl", devnull=True), ours("stats"),
                            *peers(*all_peers)]
        elif wid == "d":
            s = sets["heavy"]
            w = Workload(wid, f"heavy {s['urls']:,}-URL urlset: validate", s["file"], s["urls"], s["decoded_bytes"],
                         s["decoded_bytes"], runs=runs)
            w.contenders = [floor, ours("validate")]
        elif wid in ("e-rss", "e-txt"):
            s = sets["feed" if wid == "e-rss" else "text"]
            title = f"RSS 2.0 feed, {s['urls']:,} items" if wid == "e-rss" else f"text sitemap, {s['urls']:,} lines"
            w = Workload(wid, title, s["file"], s["urls"], s["decoded_bytes"], s["decoded_bytes"], runs=runs)
            w.contenders = [floor, ours("urls", "--format", "jsonl", devnull=True), ours("stats"),
                            ours("validate"), *peers(*all_peers)]
            w.note = ("scrapy's Sitemap parses XML urlsets and indexes only, and advertools' sitemap_to_df "
                      "XML only: where they fail, the table says so.")
        elif wid == "f":
            s = sets["big"]
            w = Workload(wid, f"index of {s['children']} gzipped children = {s['urls']:,} URLs, end to end",
                         s["index"], s["urls"], s["decoded_bytes"], s["gz_bytes"], runs=1, warmup=False)
            w.contenders = [floor, ours("urls", "--format", "txt", devnull=True), ours("stats"),
                            ours("validate"), *peers(*all_peers)]
            w.note = (f"Peers run under a {peer_cap_s:.0f} s cap and an 8 GiB cap on the summed RSS of their "
                      f"process tree; sitemap-tui and the floor under a {cap_s:.0f} s cap.")
        elif wid == "g":
            w = Workload(wid, "startup: `sitemap-tui --help`", None, runs=max(runs, 10))
            w.contenders = [
                Contender("python -c pass", "base", [py, "-c", "pass"], f"{rel_py} -c pass", count_from="none"),
                Contender("sitemap-tui --help", "ours", [*tool, "--help"], f"{tool_shown} --help",
                          to_devnull=True, count_from="none"),
                Contender("sitemap-tui urls --help", "ours", [*tool, "urls", "--help"],
                          f"{tool_shown} urls --help", to_devnull=True, count_from="none"),
            ]
        else:
            raise AssertionError(wid)
        w.id = wid
        out.append(w)
    return out


def _rel(p: str) -> str:
    try:
        return str(Path(p).absolute().relative_to(REPO))
    except ValueError:
        return p


def parse_count(c: Contender, out: Path | None) -> int | None:
    if out is None or not out.exists():
        return None
    if c.count_from == "lines":
        with open(out, "rb") as f:
            return sum(1 for _ in f)
    if c.count_from == "none":
        return None
    text = out.read_bytes()[-4096:].decode("utf-8", "replace").strip()
    if c.count_from == "stats":
        m = re.search(r"([\d,]+) URLs\s*$", text)
        return int(m.group(1).replace(",", "")) if m else None
    m = re.search(r"(\d+)\s*$", text)
    return int(m.group(1)) if m else None


def _traceback(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return b"Traceback (most recent call last)" in f.read(1 << 20)
    except OSError:
        return False


def last_error(path: Path) -> str:
    try:
        lines = [ln.strip() for ln in path.read_text("utf-8", "replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1][:160] if lines else ""


# -- the batch -----------------------------------------------------------------------------------
def run_workload(w: Workload, base: str, env: dict[str, str], cap_s: float, peer_cap_s: float,
                 mem_cap: int, log) -> dict:
    url = f"{base}/{w.path}" if w.path else ""
    OUT.mkdir(parents=True, exist_ok=True)
    results: dict[str, list[Run]] = {c.name: [] for c in w.contenders}
    checks: dict[str, int | None] = {}
    load_before = os.getloadavg()

    def one(c: Contender, tag: str) -> Run:
        argv = [a.replace("{url}", url) for a in c.argv]
        safe = re.sub(r"[^A-Za-z0-9]+", "_", c.name)
        # timed runs of `urls` write to /dev/null; the warm-up run keeps the output to count it
        stdout = None if c.to_devnull and tag == "timed" else OUT / f"{w.id}-{safe}.out"
        stderr = OUT / f"{w.id}-{safe}.err"
        cap = peer_cap_s if c.role == "peer" else cap_s
        r = measure(argv, stdout=stdout, stderr=stderr, env=env, cap_s=cap,
                    mem_cap=mem_cap if c.role == "peer" else None)
        if r.status == "ok" and (r.rc not in c.ok_rcs or _traceback(stderr)):
            r.status, r.note = "failed", f"exit {r.rc}: {last_error(stderr)}"
        if r.status == "ok":
            r.count = parse_count(c, stdout)
        return r

    skip: set[str] = set()
    if w.warmup:  # one untimed run each: bytecode compiled, page cache warm, output counted
        for c in w.contenders:
            r = one(c, "warmup")
            checks[c.name] = r.count
            log(f"  [{w.id}] warm-up {c.name}: {r.status} {r.wall:.2f}s"
                + (f" count={r.count}" if r.count is not None else "") + (f" ({r.note})" if r.note else ""))
            if r.status != "ok":  # a command that fails, fails every time: keep the failure, skip it
                results[c.name].append(r)
                skip.add(c.name)
    for i in range(w.runs):
        k = i % len(w.contenders)
        order = w.contenders[k:] + w.contenders[:k]
        for c in order:
            if c.name in skip:
                continue
            r = one(c, "timed")
            results[c.name].append(r)
            if checks.get(c.name) is None:
                checks[c.name] = r.count
            log(f"  [{w.id}] run {i + 1}/{w.runs} {c.name}: {r.status} {r.wall:.2f}s "
                f"cpu {r.cpu:.2f}s rss {r.maxrss / 2**20:.0f}/{r.sumrss / 2**20:.0f} MiB"
                + (f" ({r.note})" if r.note else ""))
    load_after = os.getloadavg()
    rows = []
    for c in w.contenders:
        runs = results[c.name]
        ok = [r for r in runs if r.status == "ok"]
        bad = [r for r in runs if r.status != "ok"]
        row = {
            "name": c.name, "role": c.role, "command": c.shown.replace("{url}", "$BASE/" + (w.path or "")),
            "runs": len(runs), "ok_runs": len(ok),
            "status": "ok" if ok and not bad else (bad[0].status if bad else "not run"),
            "note": bad[0].note if bad else "",
            "count": checks.get(c.name),
        }
        if ok:
            walls = [r.wall for r in ok]
            row.update(
                median_s=statistics.median(walls), min_s=min(walls), max_s=max(walls),
                cpu_s=statistics.median(r.cpu for r in ok),
                maxrss_mib=statistics.median(r.maxrss for r in ok) / 2**20,
                sumrss_mib=statistics.median(r.sumrss for r in ok) / 2**20,
            )
        elif bad:
            row.update(killed_after_s=bad[0].wall, maxrss_mib=bad[0].maxrss / 2**20,
                       sumrss_mib=bad[0].sumrss / 2**20)
        rows.append(row)
    return {
        "id": w.id, "title": w.title, "path": w.path, "urls": w.urls, "decoded_bytes": w.decoded_bytes,
        "wire_bytes": w.wire_bytes, "runs": w.runs, "warmup": w.warmup, "note": w.note,
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in load_after],
        "rows": rows,
    }


# -- setup -----------------------------------------------------------------------------------------
def setup_peers(log) -> str | None:
    py = PEERS_VENV / "bin" / "python"
    check = [str(py), "-c", "import usp, advertools, scrapy"]
    if py.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return str(py)
    log(f"setup: creating {PEERS_VENV.relative_to(REPO)} and installing the peers (pip)...")
    subprocess.run([sys.executable, "-m", "venv", str(PEERS_VENV)], check=True)
    subprocess.run([str(py), "-m", "pip", "install", "-q", "-r", str(HERE / "requirements-peers.txt")], check=True)
    if subprocess.run(check, capture_output=True).returncode != 0:
        raise SystemExit("setup: the peers do not import after installation")
    return str(py)


def find_tool(python: str) -> tuple[list[str], str]:
    script = Path(python).parent / "sitemap-tui"
    if script.exists():
        return [str(script)], _rel(str(script))
    return [python, "-m", "sitemap_tui"], f"{_rel(python)} -m sitemap_tui"


def start_server(env: dict[str, str], root: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(HERE / "server.py"), "--root", str(root)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    line = proc.stdout.readline().strip() if proc.stdout else ""
    if not line.startswith("READY "):
        proc.kill()
        raise SystemExit(f"server did not start: {line!r}")
    return proc, line.split()[1]


def versions(py: str, peers_py: str | None) -> dict[str, str]:
    def ask(interp: str, mods: list[str]) -> dict[str, str]:
        code = ("import importlib.metadata as m, json, sys\nout={}\n"
                f"for d in {mods!r}:\n    try: out[d]=m.version(d)\n    except Exception: pass\n"
                "out['python']=sys.version.split()[0]\nprint(json.dumps(out))")
        try:
            return json.loads(subprocess.run([interp, "-c", code], capture_output=True, text=True).stdout)
        except ValueError:
            return {}

    v = {f"project {k}" if k == "python" else k: val
         for k, val in ask(py, ["sitemap-tui", "httpx", "lxml", "textual"]).items()}
    if peers_py:
        v.update({f"peers {k}" if k == "python" else k: val for k, val in
                  ask(peers_py, ["ultimate-sitemap-parser", "advertools", "scrapy", "pandas", "lxml"]).items()
                  if k not in ("lxml",) or "lxml" not in v})
    try:
        rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "sitemap_tui"],
                               capture_output=True, text=True).stdout.strip()
        v["sitemap-tui git"] = rev + (" + uncommitted changes in sitemap_tui/" if dirty else "")
    except OSError:
        pass
    return v


def machine() -> dict[str, str]:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        mem = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1)) * 1024
    except (OSError, AttributeError):
        mem = 0
    return {"cores": str(os.cpu_count()), "cpu": model, "memory": f"{mem / GIB:.1f} GiB",
            "os": f"{platform.system()} {platform.release()}"}


def import_check(py: str) -> dict[str, object]:
    code = ("import sys\nfrom sitemap_tui.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "mods=sorted(sys.modules)\nimport json\nprint(json.dumps({'modules': len(mods), "
            "'textual': any(m=='textual' or m.startswith('textual.') for m in mods), "
            "'httpx': 'httpx' in mods, 'lxml': 'lxml' in mods}))")
    r = subprocess.run([py, "-c", code], capture_output=True, text=True, cwd=REPO)
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": (r.stderr or r.stdout).strip()[-200:]}


# -- RESULTS.md ------------------------------------------------------------------------------------
def fmt_s(x: float | None) -> str:
    return "—" if x is None else (f"{x:.3f}" if x < 1 else f"{x:.2f}")


def fmt_ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0:
        return "—"
    return f"{a / b:.2f}×"


def render(store: dict) -> str:
    lines = ["# Benchmark results", ""]
    lines += [
        "Generated by `python bench/run.py` (see bench/README.md for what each workload means). Whole-process "
        "measurements over 127.0.0.1: wall time includes interpreter start-up. **median s** is the median "
        "wall time of the timed runs (contenders interleaved run by run, after one untimed warm-up run "
        "each); **CPU s** is user+sys of the process tree (CPU s / median s > 1 means more than one core "
        "was used); **max RSS** is the peak RSS of the largest single process (exact, from wait4's rusage, "
        "which reports the maximum over the tree, not the sum); **Σ RSS** is the peak of the summed RSS of "
        "the whole process tree, sampled every 100 ms from /proc (shared pages counted once per process). "
        "**×floor** and **×peer** are ratios of median wall times measured in the same batch (below 1 = "
        "faster); **CPU ×floor** is the ratio of median CPU times, less sensitive to other load on the "
        "machine (see the load averages). "
        "**MB/s** is decoded (uncompressed XML) megabytes (10⁶ bytes) per second. `$BASE` is the local server.",
        "",
    ]
    meta = store.get("meta", {})
    if meta:
        lines.append("## Machine and versions")
        lines.append("")
        for k, v in meta.get("machine", {}).items():
            lines.append(f"- {k}: {v}")
        for k, v in meta.get("versions", {}).items():
            lines.append(f"- {k}: {v}")
        if meta.get("import_check"):
            ic = meta["import_check"]
            lines.append(f"- `sitemap-tui --help` imports {ic.get('modules')} modules; textual imported: "
                         f"{ic.get('textual')}; httpx: {ic.get('httpx')}; lxml: {ic.get('lxml')}")
        if meta.get("env_note"):
            lines.append(f"- {meta['env_note']}")
        lines.append("")
    for wid in WORKLOAD_IDS:
        w = store.get("workloads", {}).get(wid)
        if not w:
            continue
        lines += render_workload(w)
    return "\n".join(lines).rstrip() + "\n"


def render_workload(w: dict) -> list[str]:
    rows = w["rows"]
    size = ""
    if w["urls"]:
        size = f"{w['urls']:,} URLs, {w['decoded_bytes'] / 1e6:.1f} MB decoded"
        if w["wire_bytes"] != w["decoded_bytes"]:
            size += f", {w['wire_bytes'] / 1e6:.1f} MB on the wire"
    out = [f"## ({w['id']}) {w['title']}", ""]
    out.append(f"{size + '. ' if size else ''}{w['runs']} timed run(s) per contender"
               f"{', after one warm-up run' if w['warmup'] else ', no warm-up'}; {w['date']}; "
               f"load average before {w['load_before'][0]}, after {w['load_after'][0]}"
               f"{'; scale ' + str(w['scale']) if w.get('scale', 1) != 1 else ''}.")
    if w.get("note"):
        out += ["", w["note"]]
    out.append("")
    med = {r["name"]: r.get("median_s") for r in rows}
    floor = next((r for r in rows if r["role"] in ("floor", "base")), None)
    peers = [r for r in rows if r["role"] == "peer"]
    head = ["contender", "median s", "min–max s", "CPU s"]
    if w["urls"]:
        head += ["URLs/s", "MB/s"]
    head += ["max RSS MiB", "Σ RSS MiB"]
    if floor:
        fname = floor["name"] if floor["role"] == "base" else "floor"
        head += [f"×{fname}", f"CPU ×{fname}"]
    head += [f"×{p['name']}" for p in peers]
    if w["urls"]:
        head.append("URLs counted")
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join(["---"] + ["--:"] * (len(head) - 1)) + "|")
    for r in rows:
        m = r.get("median_s")
        cells = [f"**{r['name']}**" if r["role"] == "ours" else r["name"]]
        if m is None:
            why = {"timeout": "did not finish", "memcap": "did not finish", "failed": "failed"}.get(r["status"], r["status"])
            cells += [f"{why}: {r['note']}" if r["note"] else why, "", ""]
            if w["urls"]:
                cells += ["", ""]
            cells += [f"{r.get('maxrss_mib', 0):.0f}" if r.get("maxrss_mib") else "",
                      f"{r.get('sumrss_mib', 0):.0f}" if r.get("sumrss_mib") else ""]
            if floor:
                cells += ["", ""]
            cells += [""] * len(peers)
            if w["urls"]:
                cells.append("")
        else:
            cells += [fmt_s(m), f"{fmt_s(r['min_s'])}–{fmt_s(r['max_s'])}", fmt_s(r["cpu_s"])]
            if w["urls"]:
                cells += [f"{w['urls'] / m:,.0f}", f"{w['decoded_bytes'] / 1e6 / m:.1f}"]
            cells += [f"{r['maxrss_mib']:.0f}", f"{r['sumrss_mib']:.0f}"]
            if floor:
                cells.append(fmt_ratio(m, med.get(floor["name"])) if r is not floor else "1.00×")
                cells.append(fmt_ratio(r["cpu_s"], floor.get("cpu_s")) if r is not floor else "1.00×")
            for p in peers:
                cells.append(fmt_ratio(m, med.get(p["name"])) if r is not p else "1.00×")
            if w["urls"]:
                c = r.get("count")
                cells.append("—" if c is None else (f"{c:,}" if c == w["urls"] else f"{c:,} (≠)"))
            if r["status"] != "ok":
                cells[1] += f" ({r['ok_runs']}/{r['runs']} ok: {r['note']})"
        out.append("| " + " | ".join(cells) + " |")
    out += ["", "Commands:", ""]
    for r in rows:
        out.append(f"- {r['name']}: `{r['command']}`")
    out.append("")
    return out


# -- main -------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help=f"comma-separated workloads ({', '.join(WORKLOAD_IDS)}; "
                                   "'b' also selects b-ce, 'e' selects e-rss and e-txt); default: all")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per contender (default 5; f: 1; g: at least 10)")
    ap.add_argument("--runs-f", type=int, default=1, help="timed runs for workload f (default 1)")
    ap.add_argument("--scale", type=float, default=1.0, help="data scale for quick runs (e.g. 0.1)")
    ap.add_argument("--skip-peers", action="store_true", help="do not install or run the peers")
    ap.add_argument("--python", default=str(REPO / ".venv" / "bin" / "python"),
                    help="interpreter with sitemap-tui installed (default .venv/bin/python); its "
                         "sitemap-tui console script is used, else `python -m sitemap_tui`")
    ap.add_argument("--cap", type=float, default=1800, help="time cap in seconds for the floor and sitemap-tui (default 1800)")
    ap.add_argument("--peer-cap", type=float, default=300, help="time cap in seconds for a peer (default 300)")
    ap.add_argument("--peer-mem-gib", type=float, default=8, help="cap on a peer's summed RSS (default 8 GiB)")
    ap.add_argument("--fresh", action="store_true",
                    help="forget earlier results (default: results of workloads not run now are kept in RESULTS.md)")
    ap.add_argument("--results", type=Path, default=RESULTS_MD, help="where to write the Markdown (default bench/RESULTS.md)")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)

    def log(msg: str) -> None:
        if not a.quiet:
            print(msg, file=sys.stderr, flush=True)

    ids = selected(a.only)
    py = a.python
    if not Path(py).exists():
        raise SystemExit(f"no interpreter at {py}: create the project venv first "
                         "(python -m venv .venv && .venv/bin/pip install -e .), or pass --python")
    tool, tool_shown = find_tool(py)
    if subprocess.run([*tool, "--version"], capture_output=True).returncode != 0:
        raise SystemExit(f"{' '.join(tool)} --version failed: is sitemap-tui installed in that environment?")
    peers_py = None if a.skip_peers else setup_peers(log)

    need = sets_needed(ids)
    data = DATA if a.scale == 1 else WORK / f"data-scale{a.scale:g}"
    manifest = generate.generate(data, need, scale=a.scale) if need else {"sets": {}}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    data.mkdir(parents=True, exist_ok=True)
    server, base = start_server(env, data)
    log(f"server: {base} (root {data.relative_to(REPO)})")

    store: dict = {}
    json_path = a.results.with_name("results.json") if a.results != RESULTS_MD else RESULTS_JSON
    if json_path.exists() and not a.fresh:
        try:
            store = json.loads(json_path.read_text())
        except ValueError:
            store = {}
    store.setdefault("workloads", {})
    store["meta"] = {
        "machine": machine(), "versions": versions(py, peers_py), "import_check": import_check(py),
        "env_note": "PYTHONDONTWRITEBYTECODE is removed from the contenders' environment, so bytecode is "
                    "cached as on a user's machine (the warm-up run compiles it).",
    }
    mem_cap = int(a.peer_mem_gib * GIB)
    try:
        workloads = build(ids, manifest, tool, tool_shown, py, peers_py, a.runs, a.cap, a.peer_cap)
        for w in workloads:
            if w.id == "f":
                w.runs = a.runs_f
            log(f"workload ({w.id}) {w.title}: {len(w.contenders)} contenders x {w.runs} runs")
            res = run_workload(w, base, env, a.cap, a.peer_cap, mem_cap, log)
            res["scale"] = a.scale
            store["workloads"][w.id] = res
            a.results.parent.mkdir(parents=True, exist_ok=True)
            json_path.write_text(json.dumps(store, indent=1) + "\n")
            a.results.write_text(render(store))
    finally:
        server.terminate()
        server.wait()
    log(f"wrote {a.results} and {json_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

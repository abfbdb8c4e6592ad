"""Benchmark of the explorer TUI while it streams: "expand all" on a big index, headless (``run_test``).

    .venv/bin/python bench/bench_tui.py [--set tui|big] [--engine process|thread] [--workers N] [--tab 1-5]
                                        [--runs N] [--trace] [--stream-only]

Serves the generated index (bench/generate.py: ``tui`` = 20 gzipped children x 50,000 URLs, ``big`` =
200 x 50,000) with bench/server.py on 127.0.0.1, starts the app as ``sitemap-tui URL`` does, and measures:

- app start → first frame (the first screen rendered, before the index is even fetched);
- "expand all" on the index until every child is done, with the chosen pane shown meanwhile (it is
  shown first: the longest stall of that switch, a user's action, is reported on its own);
- the event-loop stalls of the UI loop, seen by a task that ticks every 5 ms: the longest one, p99, and
  how many exceed 50 and 100 ms (a stall is the time past the 5 ms the ticker asked to sleep);
- a histogram of those stalls, and the GC pauses of every thread of the UI's process (a collection in
  a worker thread holds the interpreter lock, so it stalls the UI loop as much as one on the UI thread);
- the same stalls in CPU time: what the UI's process itself computed (``time.process_time``, all its
  threads) while the loop did not tick. On a busy machine a stall's wall time is mostly waiting for a
  core; its CPU time is the part this process causes, and it is repeatable under load;
- afterwards, on the URL table of the whole index: page down, jump to the end, a substring filter's
  first screen (``--stream-only`` stops after the expand-all, to compare stalls quickly).

``--trace`` samples the UI thread's stack from a watchdog thread while a stall is under way and prints
where the stalled time went (the watchdog needs the GIL too, so a stall caused by another thread holding
it shows up as the UI thread waiting in the interpreter's switch points). ``--garbage`` counts, by type,
the objects that only the cyclic collector frees (it collects every 2 s itself meanwhile, keeping what it
finds for a moment: a diagnosis, its stalls say nothing). ``--explain`` lists every stall over 20 ms with
what overlapped it on the UI thread (callbacks, message handlers, GC passes, a late wake-up) and each
thread's CPU time in it, then sums the causes (bench/stall_explain.py).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

DATA = HERE / ".work" / "data"
TICK = 0.005
STALL_BINS = (0.005, 0.010, 0.020, 0.033, 0.050, 0.100)
"""Upper bounds of the stall histogram's bins (the last bin is everything above 100 ms)."""


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


class StallTrace:
    """A watchdog thread: while the UI loop has not ticked for a while, sample its stack."""

    def __init__(self, ui_thread: int, threshold: float = 0.03) -> None:
        self.ui_thread = ui_thread
        self.threshold = threshold
        self.last_tick = time.perf_counter()
        self.samples: collections.Counter[str] = collections.Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.005):
            if time.perf_counter() - self.last_tick < self.threshold:
                continue
            frame = sys._current_frames().get(self.ui_thread)
            if frame is None:
                continue
            stack = traceback.extract_stack(frame)
            ours = [f for f in stack if "site-packages" not in f.filename or "textual" in f.filename]
            key = " <- ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(ours[-6:]))
            self.samples[key] += 1


def _census(counts: collections.Counter[str]) -> None:
    """Collect everything, counting by type what only the cyclic collector could free."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        counts.update(type(o).__qualname__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    gc.collect()  # now free them


def histogram(stalls: list[float]) -> dict[str, int]:
    """How many stalls fall in each bin of STALL_BINS (and above the last)."""
    out: dict[str, int] = {}
    low = 0.0
    for high in STALL_BINS:
        out[f"stalls {low * 1000:.0f}-{high * 1000:.0f} ms"] = sum(1 for g in stalls if low < g <= high)
        low = high
    out[f"stalls > {low * 1000:.0f} ms"] = sum(1 for g in stalls if g > low)
    return out


def start_server(root: Path) -> tuple[subprocess.Popen[bytes], str]:
    proc = subprocess.Popen([sys.executable, str(HERE / "server.py"), "--root", str(root), "--port", "0"],
                            stdout=subprocess.PIPE)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode().strip()
    if not line.startswith("READY "):
        proc.kill()
        raise SystemExit(f"bench server did not start: {line!r}")
    return proc, line.split()[1]


async def one_run(url: str, workers: int, tab: str, size: tuple[int, int], children: int,
                  trace: bool, engine_process: bool, filter_text: str, stream_only: bool,
                  garbage: bool = False, explain: bool = False) -> dict[str, object]:
    from stall_explain import StallLog

    from sitemap_tui.engine.discover import Target
    from sitemap_tui.engine.explorer import ExploreOptions
    from sitemap_tui.engine.model import NodeState
    from sitemap_tui.tui.app import SitemapApp
    from sitemap_tui.tui.config import TuiConfig
    from sitemap_tui.tui.widgets.url_table import UrlTable

    out: dict[str, object] = {}
    gc_pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
    gc_freed: dict[int, list[int]] = {0: [], 1: [], 2: []}
    other_pauses: list[float] = []  # collections in the process's other threads (they hold the GIL too)
    gc_start = [0.0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            gc_start[0] = time.perf_counter()
        elif threading.get_ident() == ui_thread:
            gc_pauses[info.get("generation", 2)].append(time.perf_counter() - gc_start[0])
            gc_freed[info.get("generation", 2)].append(info.get("collected", 0))
        else:
            other_pauses.append(time.perf_counter() - gc_start[0])

    ui_thread = threading.get_ident()
    gc.callbacks.append(on_gc)
    tracer = StallTrace(threading.get_ident()) if trace else None
    with tempfile.TemporaryDirectory(prefix="bench-tui-") as tmp:
        t0 = time.perf_counter()
        app = SitemapApp(target=Target.parse(url), db_path=Path(tmp) / "b.db",
                         options=ExploreOptions(workers=workers), config=TuiConfig(),
                         engine_process=engine_process, tune_gc=True)
        async with app.run_test(size=size) as pilot:
            out["first frame"] = time.perf_counter() - t0
            gaps: list[tuple[float, float, float]] = []  # (wall stall, CPU time in it, when)
            stop = asyncio.Event()
            census: collections.Counter[str] = collections.Counter()
            explainer = StallLog() if explain else None
            if explainer is not None:
                explainer.install(asyncio.get_running_loop())

            async def ticker() -> None:
                last = time.perf_counter()
                last_cpu = time.process_time()
                next_census = last + 2.0
                while not stop.is_set():
                    await asyncio.sleep(TICK)
                    now = time.perf_counter()
                    cpu = time.process_time()
                    gaps.append((max(0.0, now - last - TICK), cpu - last_cpu, now))
                    if garbage and now >= next_census:
                        next_census = now + 2.0
                        _census(census)
                        now, cpu = time.perf_counter(), time.process_time()
                    if explainer is not None:
                        explainer.tick(last, now, TICK)
                    last, last_cpu = now, cpu
                    if tracer is not None:
                        tracer.last_tick = now

            if tracer is not None:
                tracer.start()
            tick = asyncio.create_task(ticker())
            model = app.tree.model
            while not (app.root_opened and model.roots() and model.children.get(model.roots()[0])):
                await pilot.pause(0.05)
            # the pane first, then the expand-all: switching panes is the user's own action (its
            # first frame lays out and draws the whole pane), measured on its own, not as a stall
            # of the stream
            t0_switch = time.perf_counter()
            await pilot.press(tab)
            await pilot.pause(0.3)
            switched = [g for g, _c, at in gaps if at >= t0_switch]
            out["pane switch: longest stall"] = max(switched, default=0.0)
            t1 = time.perf_counter()
            await pilot.press("e")
            deadline = t1 + 1800
            while time.perf_counter() < deadline:
                await pilot.pause(0.1)
                states = [n.state for n in model.nodes.values()]
                if (app.jobs.expand_all_node is None and len(states) > children
                        and all(s in (NodeState.DONE, NodeState.FAILED) for s in states)):
                    break
            t2 = time.perf_counter()
            failed = [(n.url, n.error) for n in model.nodes.values() if n.state is NodeState.FAILED]
            if failed:
                print(f"{len(failed)} failed nodes, e.g. {failed[0]}")
            stop.set()
            await tick
            if tracer is not None:
                tracer.stop()
            if explainer is not None:
                explainer.uninstall()
                explainer.report([(at - g - TICK, at, c) for g, c, at in gaps
                                  if t1 <= at <= t2 and g > explainer.threshold])
            streaming = [g for g, _cpu, at in gaps if t1 <= at <= t2]
            cpu_stalls = sorted(c for _g, c, at in gaps if t1 <= at <= t2)
            urls = model.totals()[3]
            streaming.sort()
            out["expand all"] = t2 - t1
            out["urls"] = urls
            out["stall max"] = streaming[-1] if streaming else 0.0
            out["stall p99"] = streaming[int(len(streaming) * 0.99)] if streaming else 0.0
            out["stalls > 50 ms"] = sum(1 for g in streaming if g > 0.05)
            out["stalls > 100 ms"] = sum(1 for g in streaming if g > 0.1)
            out["stalls > 33 ms"] = sum(1 for g in streaming if g > 0.033)
            out["ticks"] = len(streaming)
            for key, n in histogram(streaming).items():
                out[f"  {key}"] = n
            out["CPU stall max"] = cpu_stalls[-1] if cpu_stalls else 0.0
            out["CPU stall p99"] = cpu_stalls[int(len(cpu_stalls) * 0.99)] if cpu_stalls else 0.0
            out["CPU stalls > 33 ms"] = sum(1 for g in cpu_stalls if g > 0.033)
            for key, n in histogram(cpu_stalls).items():
                out[f"  CPU {key}"] = n
            for gen, pauses in gc_pauses.items():
                out[f"gen-{gen} GC pauses (max)"] = max(pauses, default=0.0)
                out[f"  gen-{gen} collections"] = len(pauses)
                out[f"  gen-{gen} objects freed (mean)"] = round(statistics.mean(gc_freed[gen])) if gc_freed[gen] else 0
            out["GC pauses in other threads (max)"] = max(other_pauses, default=0.0)
            out["  collections in other threads"] = len(other_pauses)
            out["objects tracked by the GC"] = len(gc.get_objects())
            a = time.perf_counter()
            freed = gc.collect()
            out["a full collection, idle"] = time.perf_counter() - a
            out["  objects it freed"] = freed
            a = time.perf_counter()
            gc.collect()
            out["  and again"] = time.perf_counter() - a
            if trace:
                kinds = collections.Counter(type(o).__name__ for o in gc.get_objects())
                print("most common objects:", kinds.most_common(12))
            if garbage:
                print("what the cyclic collector freed while streaming:", census.most_common(20))
            if stream_only:
                gc.callbacks.remove(on_gc)
                _print_trace(tracer)
                return out

            # the URL table over the whole index
            await pilot.press("5")
            table = app.query_one(UrlTable)
            grid = table.grid
            # the cursor is still on the index: the table lists its whole subtree
            await pilot.pause(0.2)

            def visible() -> list[str]:
                return ["".join(s.text for s in grid.render_line(y))
                        for y in range(grid.scrollable_content_region.height)]

            async def until(cond, timeout: float = 120.0) -> None:
                end = time.perf_counter() + timeout
                while not cond() and time.perf_counter() < end:
                    await pilot.pause(0.01)

            await until(lambda: grid.row_count > 0)
            grid.focus()
            downs = []
            for _ in range(10):
                a = time.perf_counter()
                grid.action_page_down()
                visible()
                downs.append(time.perf_counter() - a)
                await pilot.pause()
            out["table: page down (median)"] = statistics.median(downs)
            a = time.perf_counter()
            grid.action_last()
            visible()
            out["table: jump to end"] = time.perf_counter() - a

            async def filters(when: str) -> None:
                for label, text in (("common", "garden"), ("rare, near the end", filter_text)):
                    a = time.perf_counter()
                    table.set_filter_text(text)
                    # the loc column may be cut on screen: check the rows the screen shows
                    await until(lambda text=text: (visible() and (row := grid.row_at(grid.scroll_offset.y)) is not None
                                                   and text in (row.loc or "")))
                    out[f"table: substring filter ({label}){when}, first screen"] = time.perf_counter() - a
                    table.set_filter_text("")
                    await until(lambda: grid.total == out["urls"] and not grid.scanning)

            store = grid.store
            last_id = store.conn.execute("SELECT MAX(id) FROM entries").fetchone()[0] if store else None
            indexed = lambda: store is not None and (store.search_upto() or 0) >= last_id  # noqa: E731
            if not indexed():
                await filters(" before the search index")
            # the idle engine indexes loc for substring search once expand-all is over
            await until(indexed, timeout=900)
            out["search index ready, after expand-all"] = time.perf_counter() - t2
            await filters("")
    gc.callbacks.remove(on_gc)
    _print_trace(tracer)
    return out


def _print_trace(tracer: StallTrace | None) -> None:
    if tracer is not None and tracer.samples:
        print("where the UI thread was during stalls (5 ms samples):")
        for key, n in tracer.samples.most_common(12):
            print(f"  {n:5d}  {key}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="tui", choices=("tui", "big"), help="which generated index (default tui)")
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: as the CLI, all cores)")
    ap.add_argument("--tab", default="5", help="pane shown while streaming: 1 overview .. 5 URLs (default 5)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--size", default="140x42", help="terminal size (default 140x42)")
    ap.add_argument("--engine", default="process", choices=("process", "thread"),
                    help="where the engine runs: its own process (as sitemap-tui runs it) or a thread of the UI's")
    ap.add_argument("--filter", help="substring for the filter measurement (default: a rare one near the end)")
    ap.add_argument("--trace", action="store_true", help="sample the UI thread's stack during stalls")
    ap.add_argument("--garbage", action="store_true",
                    help="count by type what the cyclic collector frees while streaming (a diagnosis)")
    ap.add_argument("--explain", action="store_true",
                    help="list each stall over 20 ms with what overlapped it, and sum the causes (a diagnosis)")
    ap.add_argument("--stream-only", action="store_true",
                    help="stop after the expand-all (stalls and GC only, no URL table measurements)")
    ap.add_argument("--results", type=Path, help="also append the results as a Markdown section to this file")
    args = ap.parse_args()

    from sitemap_tui.engine.cores import default_workers
    from sitemap_tui.tui.app import prestart_multiprocessing

    root = DATA / args.set
    if not (root / "index.xml").exists():
        subprocess.run([sys.executable, str(HERE / "generate.py"), "--sets", args.set], check=True)
    children = sum(1 for p in root.iterdir() if p.name.startswith("child-"))
    workers = default_workers() if args.workers is None else args.workers
    prestart_multiprocessing()
    width, height = (int(x) for x in args.size.split("x"))
    server, base = start_server(DATA)
    try:
        results = []
        for _ in range(args.runs):
            results.append(asyncio.run(one_run(f"{base}/{args.set}/index.xml", workers, args.tab, (width, height),
                                               children, args.trace, args.engine == "process",
                                               args.filter or f"{args.set}{children - 1}-4999",
                                               args.stream_only, args.garbage, args.explain)))
    finally:
        server.terminate()
        server.wait()
    title = (f"set={args.set} ({children} children) engine={args.engine} workers={workers} tab={args.tab} "
             f"size={args.size} runs={args.runs}")
    print(title)
    rows = []
    for key in results[0]:
        values = [r[key] for r in results]
        if isinstance(values[0], float):
            rows.append((key.strip(), ms(statistics.median(values)), ", ".join(ms(v) for v in values)))
        else:
            rows.append((key.strip(), f"{statistics.median(values):,.0f}", ", ".join(f"{v:,}" for v in values)))
        print(f"  {key:<40} {rows[-1][1]}  (runs: {rows[-1][2]})")
    if args.results:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        lines = [f"### {title}", "",
                 f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; load average "
                 f"at the end {load:.2f}; `python bench/bench_tui.py {' '.join(sys.argv[1:])}`", "",
                 "| measure | median | runs |", "|---|--:|--:|"]
        lines += [f"| {k} | {m} | {r} |" for k, m, r in rows]
        with args.results.open("a", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n\n")


if __name__ == "__main__":
    main()

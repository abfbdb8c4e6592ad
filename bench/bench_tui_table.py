"""Benchmark of the URL table (``UrlTable``) on a 1,000,000-row store, headless (``run_test``).

    .venv/bin/python bench/bench_tui_table.py [--rows 1000000] [--db /tmp/bench-urls.db] [--keep]

Measures, on the UI thread (what freezes the UI), the action plus rendering every visible line:
first render (mount → first rows rendered; and until the row count is known), page down,
jump to end, a far jump (scrollbar to the middle), a substring filter's first screen, the sort
by loc (index build in a worker, then first screen), and the longest event-loop stall seen by a
task ticking every 5 ms during the whole run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "tui"))

from urltui_helpers import build_big_store  # noqa: E402

from sitemap_tui.tui.widgets.url_table import UrlTable  # noqa: E402


def visible(grid) -> list[str]:
    return ["".join(s.text for s in grid.render_line(y)) for y in range(grid.scrollable_content_region.height)]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


async def poll(pilot, cond, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise TimeoutError
        await pilot.pause()


async def run(db: Path, rows: int, repeat: int) -> dict[str, str]:
    from textual.app import App, ComposeResult

    class Bench(App[None]):
        def compose(self) -> ComposeResult:
            yield UrlTable(db)

    out: dict[str, str] = {}
    lag = {"max": 0.0}
    phase = {"now": "start"}
    stalls: dict[str, float] = {}
    stop = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            gap = now - last - 0.005
            lag["max"] = max(lag["max"], gap)
            stalls[phase["now"]] = max(stalls.get(phase["now"], 0.0), gap)
            last = now

    app = Bench()
    t0 = time.perf_counter()
    async with app.run_test(size=(160, 50)) as pilot:
        tick = asyncio.create_task(ticker())
        table = app.query_one(UrlTable)
        grid = table.grid
        phase["now"] = "first render + count"
        await poll(pilot, lambda: grid.row_count > 0 and visible(grid)[0].strip() not in ("", "…"))
        out["first render (app start → first rows)"] = ms(time.perf_counter() - t0)
        await poll(pilot, lambda: grid.total is not None)
        out["row count known"] = ms(time.perf_counter() - t0)
        await poll(pilot, lambda: not grid.scanning)
        out["anchors done (1 per 1,000 rows)"] = ms(time.perf_counter() - t0)
        assert grid.total == rows
        grid.focus()
        await pilot.pause()

        def timed(action) -> float:
            a = time.perf_counter()
            action()
            visible(grid)
            return time.perf_counter() - a

        async def series(action, n: int = repeat, prepare=None) -> list[float]:
            out = []
            for k in range(n):
                if prepare is not None:
                    prepare()
                out.append(timed(lambda k=k: action(k)))
                await pilot.pause()  # let the loop run between steps (the stall metric)
            return out

        def cold() -> None:
            grid.pages.clear()
            grid._strips.clear()

        phase["now"] = "page down"
        downs = await series(lambda k: grid.action_page_down())
        out["page down (median / max)"] = f"{ms(statistics.median(downs))} / {ms(max(downs))}"
        phase["now"] = "jump to end"
        ends = await series(lambda k: grid.action_last(), prepare=lambda: (grid.action_first(), cold()))
        assert table.highlighted_entry is not None and table.highlighted_entry.id == rows
        out["jump to end, cold (median / max)"] = f"{ms(statistics.median(ends))} / {ms(max(ends))}"
        ups = await series(lambda k: grid.action_page_up())
        out["page up from the end (median)"] = ms(statistics.median(ups))
        fars = await series(lambda k: grid.move_cursor(rows // 2 + 7919 * k, center=True), prepare=cold)
        out["far jump to a random row, cold (median / max)"] = f"{ms(statistics.median(fars))} / {ms(max(fars))}"

        phase["now"] = "filter 1"
        a = time.perf_counter()
        table.set_filter_text("/0012345/")
        ui = time.perf_counter() - a
        await poll(pilot, lambda: visible(grid)[0].strip() not in ("", "…"))
        out["substring filter (1 match): UI call / first screen"] = f"{ms(ui)} / {ms(time.perf_counter() - a)}"
        await poll(pilot, lambda: grid.total is not None and not grid.scanning)
        phase["now"] = "filter 1000"
        a = time.perf_counter()
        table.set_filter_text("/00123")
        await poll(pilot, lambda: visible(grid)[0].strip() not in ("", "…"))
        first = time.perf_counter() - a
        await poll(pilot, lambda: grid.total is not None)
        out["substring filter (~1,000 matches): first screen / count"] = f"{ms(first)} / {ms(time.perf_counter() - a)}"
        await poll(pilot, lambda: not grid.scanning)
        phase["now"] = "clear filter"
        table.set_filter_text("")
        await poll(pilot, lambda: grid.total == rows and not grid.scanning)

        phase["now"] = "sort loc"
        a = time.perf_counter()
        grid.set_sort("loc")
        await poll(pilot, lambda: grid.sort == "loc" and visible(grid)[0].strip() not in ("", "…"), 300)
        out["sort by loc: index build + first screen"] = ms(time.perf_counter() - a)
        await poll(pilot, lambda: grid.total is not None and not grid.scanning, 300)
        phase["now"] = "page down loc"
        grid.action_first()
        downs = await series(lambda k: grid.action_page_down())
        out["page down sorted by loc (median / max)"] = f"{ms(statistics.median(downs))} / {ms(max(downs))}"
        cold()
        out["jump to end sorted by loc, cold"] = ms(timed(grid.action_last))
        stop.set()
        await tick
        out["longest event-loop stall (whole run, incl. GC and CPU starvation)"] = ms(lag["max"])
        worst = sorted(stalls.items(), key=lambda kv: -kv[1])[:3]
        out["worst stalls by phase"] = ", ".join(f"{k}: {ms(v)}" for k, v in worst)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--db", type=Path, default=None, help="reuse (or create) this store")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--keep", action="store_true", help="keep a temporary store")
    args = ap.parse_args()
    tmp = None
    db = args.db
    if db is None:
        tmp = tempfile.TemporaryDirectory(prefix="bench-tui-")
        db = Path(tmp.name) / "urls.db"
    if not db.exists():
        print(f"building {args.rows:,} rows … {build_big_store(db, args.rows):.1f} s")
    else:  # drop indexes a previous run built, so the sort measures the build
        import sqlite3

        c = sqlite3.connect(db)
        c.execute("DROP INDEX IF EXISTS entries_loc")
        c.execute("DROP INDEX IF EXISTS entries_lastmod")
        c.close()
    results = asyncio.run(run(db, args.rows, args.repeat))
    width = max(len(k) for k in results)
    for k, v in results.items():
        print(f"{k:<{width}}  {v}")
    if tmp is not None and not args.keep:
        tmp.cleanup()


if __name__ == "__main__":
    main()

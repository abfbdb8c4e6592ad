#!/usr/bin/env python3
"""`sitemap-tui audit --rate 0` against a local server of N small HTML pages (issue 22's target:
>= 1,000 URLs/s on the 2-core machine for 50,000 pages, and peak RSS at 50,000 at most 1.1x the
peak at 5,000).

  python bench/bench_audit.py                     # 5,000 then 50,000 pages
  python bench/bench_audit.py --pages 5000 --runs 3

The server (a process of its own, asyncio, HTTP/1.1 keep-alive) serves /robots.txt (404), one
/sitemap.xml listing every page, and /p/N (a 400-byte HTML page with a canonical link to itself).
Each audit is a child process (`sitemap-tui audit URL --rate 0 --no-history --workers 0
--format jsonl --output FILE`, --concurrency/--per-host as given); its peak RSS is
getrusage(RUSAGE_CHILDREN).ru_maxrss after it ends (one child at a time, so the peak is its own).
URLs/s counts the audit phase alone: pages served divided by the time from the first page request
to the last, as the server saw them (the exploration of the sitemap is not part of it).

Not part of CI; timings need a quiet machine (say when it was not).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def _page(n: int, base: str) -> bytes:
    return (f'<!DOCTYPE html><html><head><title>Page {n}</title><link rel="canonical" href="{base}/p/{n}">'
            f'<meta name="description" content="page {n} of the audit benchmark"></head>'
            f"<body><h1>Page {n}</h1><p>{'lorem ipsum ' * 20}</p></body></html>").encode()


def _response(status: str, body: bytes, ctype: str) -> bytes:
    return (f"HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
            "Connection: keep-alive\r\n\r\n").encode() + body


class _Site(asyncio.Protocol):
    def __init__(self, pages: int, base: str, stamps: list[float]) -> None:
        self.pages, self.base, self.stamps = pages, base, stamps
        self.buf = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buf += data
        while b"\r\n\r\n" in self.buf:
            head, self.buf = self.buf.split(b"\r\n\r\n", 1)
            method, path = head.split(b" ", 2)[:2]
            assert self.transport is not None
            self.transport.write(self._answer(path.decode(), method == b"HEAD"))

    def _answer(self, path: str, head: bool) -> bytes:
        if path.startswith("/p/"):
            self.stamps.append(time.monotonic())
            out = _response("200 OK", _page(int(path[3:]), self.base), "text/html; charset=utf-8")
        elif path == "/sitemap.xml":
            out = _response("200 OK", _sitemap(self.pages, self.base), "application/xml")
        else:
            out = _response("404 Not Found", b"not found", "text/plain")
        return out.split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n" if head else out


_SITEMAPS: dict[int, bytes] = {}


def _sitemap(pages: int, base: str) -> bytes:
    if pages not in _SITEMAPS:
        _SITEMAPS[pages] = (f'<?xml version="1.0"?>\n<urlset {NS}>\n' + "".join(
            f"<url><loc>{base}/p/{n}</loc></url>\n" for n in range(pages)) + "</urlset>\n").encode()
    return _SITEMAPS[pages]


def _serve(sock: socket.socket, pages: int, conn: mp.connection.Connection) -> None:
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    stamps: list[float] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: _Site(pages, base, stamps), sock=sock)
        async with server:
            while not conn.poll():
                await asyncio.sleep(0.05)
        conn.recv()
        conn.send((len(stamps), stamps[0] if stamps else 0.0, stamps[-1] if stamps else 0.0))

    asyncio.run(main())


def run_once(pages: int, concurrency: int, out_dir: Path) -> dict[str, float]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    parent, child = mp.Pipe()
    server = mp.Process(target=_serve, args=(sock, pages, child), daemon=True)
    server.start()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/sitemap.xml"
    cmd = [sys.executable, "-m", "sitemap_tui", "audit", url, "--rate", "0", "--no-history", "--workers", "0",
           "--concurrency", str(concurrency), "--per-host", str(concurrency), "--format", "jsonl",
           "--output", str(out_dir / f"audit-{pages}.jsonl")]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    parent.send("stop")
    served, first, last = parent.recv()
    server.join(5)
    if done.returncode != 0:
        raise SystemExit(f"audit failed ({done.returncode}): {done.stderr[-2000:]}")
    lines = sum(1 for _ in (out_dir / f"audit-{pages}.jsonl").open())
    span = max(last - first, 1e-9)
    return {"pages": pages, "records": lines, "served": served, "wall_s": wall, "audit_s": span,
            "urls_per_s": served / span, "peak_rss_mib": rss_kib / 1024}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", default="5000,50000", help="comma-separated page counts (default 5000,50000)")
    ap.add_argument("--concurrency", type=int, default=8, help="--concurrency and --per-host (default 8)")
    args = ap.parse_args()
    print(f"cores usable: {len(os.sched_getaffinity(0))}; load average: {os.getloadavg()[0]:.2f}")
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-audit-") as tmp:
        for pages in (int(p) for p in args.pages.split(",")):
            # a fresh bench process per size: RUSAGE_CHILDREN keeps the largest child's peak
            if len(args.pages.split(",")) > 1:
                out = subprocess.run([sys.executable, __file__, "--pages", str(pages),
                                      "--concurrency", str(args.concurrency)], capture_output=True, text=True)
                print(out.stdout.strip().splitlines()[-1])
                continue
            r = run_once(pages, args.concurrency, Path(tmp))
            results.append(r)
            print(f"pages {r['pages']:>7}  records {r['records']:>7}  wall {r['wall_s']:6.1f} s  audit "
                  f"{r['audit_s']:6.1f} s  {r['urls_per_s']:7.0f} URLs/s  peak RSS {r['peak_rss_mib']:6.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

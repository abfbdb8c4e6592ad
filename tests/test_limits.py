"""--concurrency and --per-host hold for the whole exploration, whatever runs the parse
(issue 14 §7): threaded servers on 127.0.0.1 and 127.0.0.2 count the requests in flight per
host. Handlers wait (bounded) for more requests to arrive, so a limit that lets them through
is seen as a count, never as a timing."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cli_process
import pytest

URLSET = '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{}</loc></url></urlset>'
INDEX = '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{}</sitemapindex>'


@dataclass
class Recorder:
    """Requests in flight per host, and the most seen at once (per host and in all)."""

    # A child's answer waits until this many requests were in flight at once, in all (at
    # most `patience` seconds), then lingers a little: so the most a correct limit allows is
    # always reached, and whatever a broken limit lets through as well is seen together.
    wait_for_total: int = 1
    patience: float = 5.0
    linger: float = 0.2
    cond: threading.Condition = field(default_factory=threading.Condition)
    now: dict[str, int] = field(default_factory=dict)
    most: dict[str, int] = field(default_factory=dict)
    most_total: int = 0
    pages: dict[str, dict[str, bytes]] = field(default_factory=dict)
    servers: list[ThreadingHTTPServer] = field(default_factory=list)

    def start(self, host: str) -> str:
        """Serve on ``host`` (a loopback address); returns the base URL."""
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                body = recorder.pages.get(host, {}).get(self.path)
                child = self.path.startswith("/c")
                if child:
                    with recorder.cond:
                        recorder.now[host] = recorder.now.get(host, 0) + 1
                        recorder.most[host] = max(recorder.most.get(host, 0), recorder.now[host])
                        recorder.most_total = max(recorder.most_total, sum(recorder.now.values()))
                        recorder.cond.notify_all()
                        recorder.cond.wait_for(lambda: recorder.most_total >= recorder.wait_for_total, recorder.patience)
                    time.sleep(recorder.linger)
                try:
                    self.send_response(200 if body is not None else 404)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(body or b"")))
                    self.end_headers()
                    if child:  # done before its last bytes go: the client may ask again the moment
                        with recorder.cond:  # it has them, before this thread runs on (a flake under load)
                            recorder.now[host] -= 1
                        child = False
                    self.wfile.write(body or b"")
                finally:
                    if child:
                        with recorder.cond:
                            recorder.now[host] -= 1

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer((host, 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.servers.append(server)
        return f"http://{host}:{server.server_address[1]}"


@pytest.fixture()
def recorder() -> Iterator[Recorder]:
    rec = Recorder()
    yield rec
    for server in rec.servers:
        server.shutdown()
        server.server_close()


def site(rec: Recorder, children: dict[str, int]) -> str:
    """An index on the first host listing ``n`` children on each host; returns its URL."""
    bases = {host: rec.start(host) for host in children}
    first = next(iter(bases))
    locs = []
    for host, n in children.items():
        pages = rec.pages.setdefault(host, {})
        for i in range(n):
            pages[f"/c{i}.xml"] = URLSET.format(f"{bases[host]}/p{i}").encode()
            locs.append(f"{bases[host]}/c{i}.xml")
    rec.pages[first]["/index.xml"] = INDEX.format("".join(f"<sitemap><loc>{u}</loc></sitemap>" for u in locs)).encode()
    return f"{bases[first]}/index.xml"


def stats(*args: str) -> subprocess.CompletedProcess[str]:
    proc = cli_process.run([sys.executable, "-m", "sitemap_tui", "stats", *args], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.parametrize("workers", ["0", "4"])
def test_per_host_limit_holds_with_worker_processes(recorder: Recorder, workers: str) -> None:
    recorder.wait_for_total = 2  # one request per host, both hosts at once
    index = site(recorder, {"127.0.0.1": 4, "127.0.0.2": 4})
    out = stats(index, "--per-host", "1", "--concurrency", "8", "--workers", workers, "--follow-cross-host")
    assert "8 URLs" in out.stdout.splitlines()[-1]
    assert recorder.most == {"127.0.0.1": 1, "127.0.0.2": 1}
    assert recorder.most_total == 2  # one per host, both hosts at once


@pytest.mark.parametrize("workers", ["0", "2"])
def test_files_in_flight_follow_concurrency_not_the_worker_count(recorder: Recorder, workers: str) -> None:
    recorder.wait_for_total = 6
    index = site(recorder, {"127.0.0.1": 8})
    out = stats(index, "--concurrency", "8", "--per-host", "6", "--workers", workers)
    assert "8 URLs" in out.stdout.splitlines()[-1]
    assert recorder.most["127.0.0.1"] == 6


def test_workers_alone_raise_the_files_in_flight(recorder: Recorder) -> None:
    """`--workers 9` without --concurrency: nine files at once on the server, one per worker
    (issue 19; eight before, the --concurrency default, whatever the workers)."""
    recorder.wait_for_total = 9
    index = site(recorder, {"127.0.0.1": 9})
    out = stats(index, "--per-host", "9", "--workers", "9")
    assert "9 URLs" in out.stdout.splitlines()[-1]
    assert recorder.most["127.0.0.1"] == 9


def test_concurrency_is_global_over_hosts(recorder: Recorder) -> None:
    recorder.wait_for_total = 3
    index = site(recorder, {"127.0.0.1": 4, "127.0.0.2": 4})
    stats(index, "--concurrency", "3", "--per-host", "4", "--workers", "2", "--follow-cross-host")
    assert recorder.most_total == 3


async def test_a_worker_that_dies_fails_its_files_and_gives_its_slots_back(httpserver) -> None:
    """A worker killed mid-file (out of memory, say) fails the files it had, with an error
    instead of a wait forever, and gives back the slot it held (--per-host 1: the only slot
    of the host): the next file is fetched, parsed in this process since no worker is left."""
    import asyncio

    from werkzeug import Response

    from sitemap_tui.engine.explorer import ExploreOptions, Explorer
    from sitemap_tui.engine.fetch import FetchConfig
    from sitemap_tui.engine.model import NodeState

    base = httpserver.url_for("").rstrip("/")
    arrived, release = threading.Event(), threading.Event()

    def slow(_request):
        arrived.set()
        release.wait(20)
        return Response(URLSET.format(f"{base}/late"), content_type="application/xml")

    httpserver.expect_request("/index.xml").respond_with_data(
        INDEX.format(f"<sitemap><loc>{base}/c0.xml</loc></sitemap><sitemap><loc>{base}/c1.xml</loc></sitemap>"))
    httpserver.expect_request("/c0.xml").respond_with_handler(slow)
    httpserver.expect_request("/c1.xml").respond_with_data(URLSET.format(f"{base}/p1"))
    config = FetchConfig(total_timeout=30, retries=0, per_host=1)
    try:
        async with Explorer(fetch_config=config, options=ExploreOptions(workers=1)) as ex:
            task = asyncio.create_task(ex.explore(f"{base}/index.xml"))
            while not arrived.is_set():
                await asyncio.sleep(0.01)
            assert ex._pool is not None
            ex._pool._procs[0].kill()
            await asyncio.wait_for(task, 30)
            states = {n.url.rsplit("/", 1)[-1]: n for n in ex.nodes.values()}
            assert states["c0.xml"].state == NodeState.FAILED and "died" in (states["c0.xml"].error or "")
            assert states["c1.xml"].state == NodeState.FAILED and "died" in (states["c1.xml"].error or "")
            # found from outside: a headless run then exited 0 and replaced its outputs with the
            # partial result; the files are counted as this program's failures, and the verdict
            # is "could not run" (2), which keeps every output as it was
            from sitemap_tui.cli.verdict import target_problem
            from sitemap_tui.session.exits import EXIT_USAGE

            assert sorted(ex.nodes[i].url.rsplit("/", 1)[-1] for i in ex.internal_errors) == ["c0.xml", "c1.xml"]
            problem = target_problem(ex)
            assert problem is not None and problem.code == EXIT_USAGE
            assert "2 files failed inside sitemap-tui" in problem.message and "no output was replaced" in problem.message
            release.set()  # the test server answers one request at a time
            await ex.reload(states["c1.xml"].id)
            assert states["c1.xml"].state == NodeState.DONE, states["c1.xml"].error
            assert states["c1.xml"].stats.url_count == 1
    finally:
        release.set()



def test_per_host_slot_is_not_held_while_a_file_is_parsed() -> None:
    """--per-host 1 and 2 workers, both files on one host (issue 19): the slot is held only
    while bytes are read from the socket, so the second file's request goes while the first
    file's body is still being parsed between reads. Each child trickles its body, one entry
    every 15 ms (each read a parse and so a moment without the slot), until the other
    child has been asked for, then sends the rest; were the slot held for the whole body, the
    second child could only be asked for once the first had ended, and the first one's trickle
    runs out its 30 s first (seen as a ``False`` in ``both_asked``, not as a time). The trickle
    leaves the second worker process as long as it needs to start on a loaded machine: a single
    10 s wait failed so on a busy CI box."""
    asked: set[str] = set()
    cond = threading.Condition()
    both_asked: list[bool] = []
    holder: dict[str, str] = {}
    head = '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            base = holder["base"]
            if self.path == "/index.xml":
                body = INDEX.format("".join(f"<sitemap><loc>{base}/c{i}.xml</loc></sitemap>" for i in (0, 1))).encode()
                pieces = [body]
            else:
                with cond:
                    asked.add(self.path)
                    cond.notify_all()
                pieces = [head.encode(), *(f"<url><loc>{base}{self.path}/p{i}</loc></url>".encode() for i in range(2000)),
                          b"</urlset>"]
            self.send_response(200)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(sum(map(len, pieces))))
            self.end_headers()
            if self.path == "/index.xml":
                self.wfile.write(pieces[0])
                return
            deadline = time.monotonic() + 30
            sent = 0
            while sent < len(pieces) - 1:  # the closing tag is held back until the other is asked
                with cond:
                    if len(asked) == 2 or time.monotonic() > deadline:
                        break
                self.wfile.write(pieces[sent])
                self.wfile.flush()
                sent += 1
                time.sleep(0.015)  # 2,000 entries: the trickle outlasts the 30 s
            with cond:
                both_asked.append(cond.wait_for(lambda: len(asked) == 2, max(0.0, deadline - time.monotonic())))
            self.wfile.write(b"".join(pieces[sent:]))
            self.wfile.flush()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    holder["base"] = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        out = stats(f"{holder['base']}/index.xml", "--per-host", "1", "--workers", "2")
    finally:
        server.shutdown()
        server.server_close()
    assert "4,000 URLs" in out.stdout.splitlines()[-1], out.stdout
    assert both_asked == [True, True]


async def test_a_file_taking_its_slot_back_goes_before_new_requests() -> None:
    """Found from outside: a file lent its slot back between two reads, then queued behind new
    requests that held their slots until their (slow) answers came: its body waited seconds,
    and a cancel or --max-time counted it as not fetched. A resuming take goes first."""
    import asyncio

    from sitemap_tui.engine.limits import Gate

    gate = Gate(1)
    await gate.acquire()  # a file reading its body holds the one slot
    order: list[str] = []

    async def waiter(name: str, resume: bool) -> None:
        await gate.acquire(resume)
        order.append(name)

    new = asyncio.create_task(waiter("new request", False))
    await asyncio.sleep(0)
    back = asyncio.create_task(waiter("file resuming", True))
    await asyncio.sleep(0)
    gate.release()  # the file lends its slot while it parses ...
    await asyncio.sleep(0)
    assert order == ["file resuming"]  # ... and, waiting to read again, came first
    gate.release()
    await asyncio.wait_for(new, 1)
    await back
    assert order == ["file resuming", "new request"]
    # a waiter given up is no waiter; one given up after its grant passes the slot on
    gone = asyncio.create_task(gate.acquire())
    await asyncio.sleep(0)
    gone.cancel()
    await asyncio.gather(gone, return_exceptions=True)
    gate.release()
    await asyncio.wait_for(gate.acquire(), 1)  # the slot was free, not given to the cancelled one

"""Nothing silent (issue 14 §4, §7): whatever an exploration left out is said on stderr by
every headless command, one line per cause with a count and the option that changes it,
whether or not stderr is a terminal (here it is a pipe); --strict makes that exit 1."""

from __future__ import annotations

import asyncio
import gzip
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import cli_process
import pytest

from sitemap_tui.demo.server import serve_directory
from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.leftout import LeftOut

URLSET = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{}</urlset>\n'
INDEX = '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{}</sitemapindex>\n'


def urlset(*locs: str) -> str:
    return URLSET.format("".join(f"  <url><loc>{loc}</loc></url>\n" for loc in locs))


def index(*locs: str) -> str:
    return INDEX.format("".join(f"  <sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs))


@pytest.fixture()
def site(tmp_path: Path) -> Iterator[str]:
    root = tmp_path / "site"
    root.mkdir()
    # chain0 -> chain1 -> ... -> chain5 -> leaf (2 URLs)
    for i in range(6):
        nxt = f"{{{{BASE}}}}/chain{i + 1}.xml" if i < 5 else "{{BASE}}/leaf.xml"
        (root / f"chain{i}.xml").write_text(index(nxt))
    (root / "leaf.xml").write_text(urlset("{{BASE}}/p1", "{{BASE}}/p2"))
    (root / "mixed.xml").write_text(index(
        "{{BASE}}/leaf.xml", "{{BASE}}/missing.xml", "https://elsewhere.example/s.xml",
        "https://other.example/t.xml", "javascript:alert(1)",
    ))
    (root / "wide.xml").write_text(index(*(f"{{{{BASE}}}}/w{i}.xml" for i in range(5))))
    for i in range(5):
        (root / f"w{i}.xml").write_text(urlset(f"{{{{BASE}}}}/w{i}"))
    (root / "big.txt").write_text("".join(f"{{{{BASE}}}}/line-{i:07d}-{'x' * 40}\n" for i in range(30_000)))
    (root / "lines.txt").write_text("".join(f"{{{{BASE}}}}/n{i}\n" for i in range(50_010)))
    whole = gzip.compress("".join(f"https://example.com/g{i}\n" for i in range(2000)).encode())
    (root / "broken.txt.gz").write_bytes(whole[:-8])  # the gzip trailer cut: ends early
    server = serve_directory(root)
    try:
        yield server.base_url
    finally:
        server.stop()


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return cli_process.run([sys.executable, "-m", "sitemap_tui", *args], capture_output=True, text=True, timeout=180)


def said(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in proc.stderr.splitlines() if "not fetched" in line or "cut short" in line or "could not be" in line]


@pytest.mark.parametrize("command", ["urls", "stats", "validate"])
def test_depth_limit_is_said_by_every_command(site: str, command: str) -> None:
    proc = run(command, f"{site}/chain0.xml", "--depth", "2")
    assert proc.returncode in (0, 1), proc.stderr  # validate: 1 for its findings
    assert "Traceback" not in proc.stderr
    assert "sitemap-tui: 1 file not fetched: depth limit 2 reached (--depth)" in proc.stderr.splitlines()
    strict = run(command, f"{site}/chain0.xml", "--depth", "2", "--strict")
    assert strict.returncode == 1
    whole = run(command, f"{site}/chain0.xml", "--strict")
    assert not said(whole)
    if command != "validate":
        assert whole.returncode == 0, whole.stderr


def test_urls_says_each_cause_once_with_a_count(site: str) -> None:
    proc = run("urls", f"{site}/mixed.xml")
    assert proc.returncode == 0
    assert sorted(proc.stdout.split()) == [f"{site}/p1", f"{site}/p2"]
    lines = said(proc)
    assert "sitemap-tui: 2 files not fetched: on another host or port than their index (--follow-cross-host)" in lines
    assert ("sitemap-tui: 1 listed file not fetched: not a URL that may be fetched (http or https, with a host"
            " and no control characters), first javascript:alert(1)") in lines
    assert f"sitemap-tui: 1 file could not be fetched or read, first {site}/missing.xml" in lines
    assert len(lines) == 3
    assert run("urls", f"{site}/mixed.xml", "--strict").returncode == 1


def test_file_budget(site: str) -> None:
    proc = run("stats", f"{site}/wide.xml", "--max-files", "3", "--workers", "0")
    assert "sitemap-tui: 3 files not fetched: file budget of 3 reached (--max-files)" in proc.stderr.splitlines()
    # validate's JSON report says it too (found from outside: "notes": [], a partial report read
    # as whole by a consumer of the JSON alone)
    proc = run("validate", f"{site}/wide.xml", "--max-files", "3", "--workers", "0", "--format", "json")
    assert "3 files not fetched: file budget of 3 reached (--max-files)" in json.loads(proc.stdout)["summary"]["notes"]
    # a run that failed (exit 2) says why in its report too, not a clean-looking empty one
    proc = run("validate", f"{site}/no-such.xml", "--workers", "0", "--format", "json")
    assert proc.returncode == 2
    assert [n for n in json.loads(proc.stdout)["summary"]["notes"] if n.startswith("error: ")], proc.stdout
    # in SARIF: the invocation did not succeed, and the note is an error (a review)
    proc = run("validate", f"{site}/no-such.xml", "--workers", "0", "--format", "sarif")
    invocation = json.loads(proc.stdout)["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert [n["level"] for n in invocation["toolExecutionNotifications"] if n["message"]["text"].startswith("error: ")] \
        == ["error"], invocation


def test_files_cut_short_by_the_size_and_entry_caps(site: str) -> None:
    proc = run("urls", f"{site}/big.txt", "--max-size", "1")
    assert "sitemap-tui: 1 file cut short: more than 1 MiB after decompression, the rest not read (--max-size)" in proc.stderr.splitlines()
    proc = run("urls", f"{site}/lines.txt")
    assert len(proc.stdout.splitlines()) == 50_000
    assert "sitemap-tui: 1 file cut short: more than 50,000 entries, the rest not read" in proc.stderr.splitlines()
    assert run("urls", f"{site}/lines.txt", "--strict").returncode == 1


def test_a_broken_gz_is_said_as_such_not_as_a_download(site: str) -> None:
    """Found from outside: a .gz cut short said "the download failed part-way ... (--timeout)",
    an option that cannot help."""
    proc = run("urls", f"{site}/broken.txt.gz")
    assert len(proc.stdout.splitlines()) == 2000
    lines = proc.stderr.splitlines()
    assert any(line.startswith("sitemap-tui: 1 file cut short: the compressed data is corrupt or ends early, "
                               "the entries before it kept") for line in lines), lines
    assert not any("--timeout" in line for line in lines), lines
    assert run("urls", f"{site}/broken.txt.gz", "--strict").returncode == 1


def test_no_recursive_is_said_but_is_what_was_asked(site: str) -> None:
    proc = run("urls", f"{site}/chain0.xml", "--no-recursive", "--strict")
    assert proc.returncode == 0
    assert "sitemap-tui: 1 listed file not fetched: not recursive (without --no-recursive)" in proc.stderr.splitlines()


@pytest.mark.parametrize("command", ["urls", "stats", "validate"])
def test_strict_keeps_an_output_file_when_the_result_is_incomplete(site: str, tmp_path: Path, command: str) -> None:
    """Found by a review: --strict said "1 file cut short" and exited 1, but had already replaced
    FILE with half the list. A script that asks for every URL keeps its previous file."""
    out, base = tmp_path / "out.txt", tmp_path / "base.json"
    out.write_text("ORIGINAL\n")
    base.write_text("BASE\n")
    extra = ("--write-baseline", str(base)) if command == "validate" else ()
    proc = run(command, f"{site}/lines.txt", "--strict", "-o", str(out), *extra)
    assert proc.returncode == 1, proc.stderr
    assert "sitemap-tui: 1 file cut short: more than 50,000 entries, the rest not read" in proc.stderr.splitlines()
    assert f"sitemap-tui: {out} kept as it was: the result is incomplete (--strict)" in proc.stderr.splitlines()
    assert out.read_text() == "ORIGINAL\n" and base.read_text() == "BASE\n"
    assert not [p.name for p in tmp_path.iterdir() if p.name not in ("out.txt", "base.json", "site")]
    # without --strict the cut is said and the result written, as the README says
    proc = run(command, f"{site}/lines.txt", "-o", str(out), *extra)
    assert out.read_text() != "ORIGINAL\n"
    assert "kept as it was" not in proc.stderr


def test_a_baseline_that_cannot_be_written_leaves_the_report_as_it_was(site: str, tmp_path: Path) -> None:
    """Found by a review: --write-baseline /dev/full exited 2, but -o R had already been replaced."""
    out = tmp_path / "r.json"
    out.write_text("ORIGINAL\n")
    proc = run("validate", f"{site}/leaf.xml", "--format", "json", "-o", str(out), "--write-baseline", "/dev/full")
    assert proc.returncode == 2, proc.stderr
    assert "--write-baseline /dev/full: cannot write it" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert out.read_text() == "ORIGINAL\n"


def test_help_says_what_strict_does() -> None:
    for command in ("urls", "stats", "validate", "discover"):
        out = run(command, "--help").stdout
        assert "--strict" in out and "incomplete" in out, command


async def test_the_account_is_structured(site: str) -> None:
    """Fan-out cap and cancellation, through the engine's own account."""
    config = FetchConfig(total_timeout=10, retries=0)
    async with Explorer(fetch_config=config, options=ExploreOptions(max_children=2)) as ex:
        await ex.explore(f"{site}/wide.xml")
    (fan,) = ex.left_out()
    assert (fan.cause, fan.count, fan.option, fan.strict) == (LeftOut.FAN_OUT, 3, None, True)
    assert fan.example is not None and fan.example.endswith("/w2.xml")

    config = FetchConfig(total_timeout=10, retries=0, concurrency=1)
    async with Explorer(fetch_config=config) as ex:
        root = await ex.open(f"{site}/wide.xml")
        task = asyncio.create_task(ex.expand_all(root.id))
        while not ex.children.get(root.id):
            await asyncio.sleep(0.005)
        ex.cancel()
        await task
    causes = {o.cause: o.count for o in ex.left_out()}
    assert causes.get(LeftOut.CANCELLED, 0) >= 1
    assert causes[LeftOut.CANCELLED] == sum(1 for n in ex.nodes.values() if n.url.endswith(".xml") and n.state.value == "pending")


def test_a_download_cut_by_the_time_limit_is_said_and_strict(tmp_path: Path) -> None:
    """Found from outside: a file that sent its first entries and then stalled ended at
    --timeout with "1 entry kept" on the file's own line, no cut-short line, and --strict
    exited 0. Near miss: the same server's complete file is neither."""
    import socket
    import threading

    head = URLSET.split("{}")[0].encode() + b"  <url><loc>http://127.0.0.1/a</loc></url>\n"
    whole = urlset("http://127.0.0.1/a").encode()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            request = conn.recv(65536)
            body = head if b"GET /stall.xml" in request else whole
            length = len(whole) + 100 if body is head else len(body)  # promises more than it sends
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\n"
                         + f"Content-Length: {length}\r\n\r\n".encode() + body)
            if body is not head:
                conn.close()
            # the stalled connection stays open until the client gives up

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{listener.getsockname()[1]}"
    try:
        proc = run("urls", f"{base}/stall.xml", "--timeout", "1", "--retries", "0", "--strict", "--no-history")
        assert proc.stdout.splitlines() == ["http://127.0.0.1/a"]
        assert ("sitemap-tui: 1 file cut short: the download failed part-way (the connection dropped, or a read"
                f" took longer than --timeout), the entries before it kept, first {base}/stall.xml"
                ) in proc.stderr.splitlines(), proc.stderr
        assert proc.returncode == 1
        proc = run("urls", f"{base}/whole.xml", "--timeout", "2", "--retries", "0", "--strict", "--no-history")
        assert proc.returncode == 0 and "cut short" not in proc.stderr
    finally:
        stop.set()
        listener.close()


@pytest.mark.parametrize("command", ["urls", "stats"])
def test_an_index_cycle_and_a_failed_file_are_said(httpserver, command: str) -> None:
    """Found from outside: A -> B -> A and an index listing itself were silent on urls' stderr
    (stats showed "[skipped] — cycle", validate index-cycle). Nothing is missing, so --strict
    does not fail. And stats only counted its failed files on stderr (found from outside too):
    each is named there, as urls names it."""
    a, b = httpserver.url_for("/a.xml"), httpserver.url_for("/b.xml")
    leaf = httpserver.url_for("/leaf.xml")
    httpserver.expect_request("/a.xml").respond_with_data(index(b, a), content_type="application/xml")
    httpserver.expect_request("/b.xml").respond_with_data(index(a, leaf), content_type="application/xml")
    httpserver.expect_request("/leaf.xml").respond_with_data(urlset("https://example.com/p"),
                                                            content_type="application/xml")
    proc = run(command, a, "--no-history", "--strict")
    assert proc.returncode == 0
    if command == "urls":
        assert proc.stdout == "https://example.com/p\n"
    said = [line for line in proc.stderr.splitlines() if "index cycle" in line]
    assert sorted(said) == sorted([
        f"sitemap-tui: {a} lists itself: an index cycle, not fetched again",
        f"sitemap-tui: {b} lists {a}, which is explored above it: an index cycle, not fetched again",
    ]), proc.stderr
    gone = httpserver.url_for("/gone.xml")
    httpserver.expect_request("/c.xml").respond_with_data(index(leaf, gone), content_type="application/xml")
    proc = run(command, httpserver.url_for("/c.xml"), "--no-history")
    assert f"sitemap-tui: {gone}: HTTP 404 Not Found" in proc.stderr.splitlines(), proc.stderr


def test_a_text_sitemap_whose_bytes_are_not_utf8_is_said_to_be_altered(tmp_path: Path) -> None:
    """Found from outside: `urls` wrote a Latin-1 text sitemap's é as U+FFFD, unsaid and with
    exit 0 under --strict: the URL is not the one served. Near miss: a UTF-16 file decodes whole."""
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"https://example.com/caf\xe9\nhttps://example.com/ok\n")
    proc = run("urls", str(latin), "--no-history")
    assert proc.returncode == 0 and "https://example.com/ok" in proc.stdout
    assert "1 file not UTF-8: bytes that could not be decoded were read as U+FFFD" in proc.stderr, proc.stderr
    assert run("urls", str(latin), "--no-history", "--strict").returncode == 1
    utf16 = tmp_path / "utf16.txt"
    utf16.write_bytes("https://example.com/café\n".encode("utf-16"))
    proc = run("urls", str(utf16), "--no-history", "--strict")
    assert proc.returncode == 0 and "U+FFFD" not in proc.stderr and "café" in proc.stdout, proc.stderr


async def test_a_fan_out_of_indexes_keeps_a_bounded_tree_and_says_the_rest(tmp_path: Path) -> None:
    """Found by a security review: indexes listing 50,000 indexes each kept a node for every
    listed child, fetched or not (within the caps: 40 files, 1.6 GB; the defaults grew for the
    whole --max-time). A run keeps the file budget plus four indexes' worth; the rest is
    counted, said on the index that listed them, and --strict's. Near misses (a review of the
    first version): a listing of a file already kept is not counted, and under --no-recursive
    the rest is what was asked."""
    root = tmp_path / "fan"
    root.mkdir()
    (root / "top.xml").write_text(index(*(f"{{{{BASE}}}}/d{i}.xml" for i in range(2))))
    (root / "d0.xml").write_text(index(*(f"{{{{BASE}}}}/d0-{j}.xml" for j in range(12))))
    # d1 lists d0's first two again (kept and followed already), then six of its own
    (root / "d1.xml").write_text(index(*(f"{{{{BASE}}}}/d0-{j}.xml" for j in range(2)),
                                       *(f"{{{{BASE}}}}/d1-{j}.xml" for j in range(6))))
    server = serve_directory(root)
    try:
        config = FetchConfig(total_timeout=10, retries=0, concurrency=1)
        options = ExploreOptions(max_files=3, max_children=2)  # keeps 3 + 4 x 2 = 11
        async with Explorer(fetch_config=config, options=options) as ex:
            await ex.explore(f"{server.base_url}/top.xml")
        async with Explorer(fetch_config=config, options=ExploreOptions(max_files=3, max_children=2,
                                                                         recursive=False)) as flat:
            await flat.explore(f"{server.base_url}/d0.xml")
    finally:
        server.stop()
    assert len(ex.nodes) == 11, [n.url for n in ex.nodes.values()]
    causes = {o.cause: o for o in ex.left_out()}
    # top, d0, d1 and d0's first eight kept; d0's last four and d1's own six not (its repeats are)
    assert causes[LeftOut.NODE_CAP].count == 10 and causes[LeftOut.NODE_CAP].strict
    assert "10 listed files not kept: a run keeps at most 11 listed files" in causes[LeftOut.NODE_CAP].text
    noted = sorted(n.url.rsplit("/", 1)[-1] for n in ex.nodes.values() if n.error and "not kept" in n.error)
    assert noted == ["d0.xml", "d1.xml"], [(n.url, n.error) for n in ex.nodes.values()]
    flat_causes = {o.cause for o in flat.left_out()}
    assert LeftOut.NODE_CAP not in flat_causes and LeftOut.NOT_RECURSIVE in flat_causes

"""A headless run's whole exploration has a time budget (--max-time; SECURITY.md §6): an index
whose children answer slowly took children x --timeout / --per-host (21 h with the defaults).
The children here hold their answers until the test ends, so only the budget can end the run."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cli_process
import pytest

INDEX = '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{}</sitemapindex>'
URLSET = '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{}</loc></url></urlset>'


@pytest.fixture()
def slow_site() -> Iterator[str]:
    release = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            base = f"http://127.0.0.1:{self.server.server_address[1]}"
            if self.path == "/index.xml":
                children = [f"{base}/fast.xml", *(f"{base}/c{i}.xml" for i in range(12))]
                body = INDEX.format("".join(f"<sitemap><loc>{c}</loc></sitemap>" for c in children))
            elif self.path == "/fast.xml":
                body = URLSET.format(f"{base}/quick")
            elif self.path == "/pages.xml":  # quick to list; its pages answer slowly
                body = URLSET.replace("<url><loc>{}</loc></url>", "{}").format(
                    "".join(f"<url><loc>{base}/c-page{i}</loc></url>" for i in range(3)))
            elif self.path.startswith("/c"):
                release.wait(60)  # held: the run's budget must end it, not the answer
                body = URLSET.format(f"{base}/page")
            else:
                self.send_error(404)
                return
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            with contextlib.suppress(OSError):
                self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/index.xml"
    finally:
        release.set()
        server.shutdown()
        server.server_close()


def run(*args: str) -> subprocess.CompletedProcess[str]:
    # without the budget this run lasts 60 s at least (the held answers): the timeout fails it
    return cli_process.run([sys.executable, "-m", "sitemap_tui", *args, "--timeout", "55", "--no-history"],
                          capture_output=True, text=True, timeout=40)


@pytest.mark.parametrize("command", ["urls", "validate"])
def test_the_time_budget_ends_the_run_and_says_what_it_left(slow_site: str, command: str) -> None:
    # (slots for all: a file between two reads takes its slot back before new requests, but the
    # held children here never give theirs back, engine/limits.py)
    proc = run(command, slow_site, "--max-time", "1.5", "--workers", "0", "--per-host", "16", "--concurrency", "16")
    assert "the run's time budget of 1.5 s ran out (--max-time)" in proc.stderr
    assert "12 files not fetched, or stopped part-way" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 0 or (command == "validate" and proc.returncode == 1), proc.stderr
    strict = run(command, slow_site, "--max-time", "1.5", "--strict", "--workers", "0", "--per-host", "16",
                 "--concurrency", "16")
    assert strict.returncode == 1, strict.stderr


def test_the_budget_is_an_option_of_the_headless_commands_only() -> None:
    helps = {c: cli_process.run([sys.executable, "-m", "sitemap_tui", c, "--help"], capture_output=True, text=True,
                               timeout=60).stdout for c in ("urls", "explore")}
    assert "--max-time SECONDS" in helps["urls"] and "default 1800; 0: none" in " ".join(helps["urls"].split())
    assert "--max-time" not in helps["explore"]
    bad = cli_process.run([sys.executable, "-m", "sitemap_tui", "urls", "x.xml", "--max-time", "-1"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) <= 3 and "Traceback" not in bad.stderr


@pytest.mark.parametrize("command", ["urls", "validate"])
def test_a_budget_that_runs_out_before_anything_is_listed_is_2_and_keeps_the_output(
    slow_site: str, command: str, tmp_path
) -> None:
    """Found from outside: the target itself held past --max-time gave exit 0, "0 errors", and
    an emptied -o: a CI step that checked nothing passed."""
    out = tmp_path / "out.txt"
    out.write_text("GOOD\n")
    proc = run(command, slow_site.replace("/index.xml", "/c0.xml"), "--max-time", "1.5", "--workers", "0",
               "-o", str(out))
    assert proc.returncode == 2, proc.stderr
    assert "the run's time budget of 1.5 s ran out before anything could be listed" in proc.stderr
    assert out.read_text() == "GOOD\n"


def test_the_budget_also_ends_validate_deep_and_says_how_far_it_got(slow_site: str) -> None:
    """--max-time bounded the exploration only: validate --deep then fetched its sample of pages
    for as long as they took (100 per sitemap at 5 a second, each up to --timeout)."""
    pages = slow_site.replace("/index.xml", "/pages.xml")
    proc = run("validate", pages, "--deep", "--rate", "0", "--max-time", "2", "--workers", "0")
    assert ("the deep checks stopped before the checks of any sampled URL were done: the run's time budget of 2 s "
            "ran out") in proc.stderr
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    strict = run("validate", pages, "--deep", "--rate", "0", "--max-time", "2", "--workers", "0", "--strict")
    assert strict.returncode == 1, strict.stderr


def test_the_budget_also_ends_an_audit_which_stays_partial(slow_site: str, tmp_path) -> None:
    pages = slow_site.replace("/index.xml", "/pages.xml")
    out = tmp_path / "audit.jsonl"
    proc = run("audit", pages, "--rate", "0", "--max-time", "2", "--format", "jsonl", "-o", str(out),
               "--fail-if", "not_audited>0")
    assert "the run's time budget of 2 s ran out (--max-time) before every URL was fetched: 0 audited" in proc.stderr
    assert "a new run starts over" in proc.stderr  # (--no-history: nothing keeps it)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr  # the --fail-if
    assert out.read_text() == ""  # written: what was audited, nothing

#!/usr/bin/env python3
"""The long fuzz run (not in CI): the properties of tests/fuzz with many examples, and/or
coverage-guided fuzzing with atheris (libFuzzer) when it is installed.

Two engines, same targets (parser = SniffingParser fed in random chunk sizes, decoder = the
bounded BodyDecoder, sanitize = display(), urlpolicy, values, robots):

  hypothesis   runs ``pytest tests/fuzz`` with the ``long`` profile: ``--examples`` per property
               (random bytes, token soup and mutated corpus documents from tests/data/corpus and
               ../shared/corpus). Failures are shrunk and printed with a reproduction blob.
  atheris      one libFuzzer process per target, seeded with the corpus, Python code coverage
               instrumented (lxml/zlib are C and not instrumented); a crash writes
               ``crash-<sha1>`` into the work directory and stops that target.

Usage:
  python bench/fuzz_long.py hypothesis --examples 200000          # hours; try 20000 first
  python bench/fuzz_long.py atheris --seconds 600                  # 10 min per target
  python bench/fuzz_long.py atheris --target parser --runs 1000000
  python bench/fuzz_long.py all --examples 20000 --seconds 300

Install atheris with ``pip install atheris`` (Linux/macOS wheels; needs nothing else).
Results of a run are summarised on stdout; bench/FUZZ.md records the last one we did.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ("parser", "decoder", "sanitize", "urlpolicy", "values", "robots")


# -- atheris harnesses (run in a child process: ``fuzz_long.py _atheris TARGET ...``) ------------
def _harness(target: str):  # noqa: C901 - one small function per target
    import atheris

    with atheris.instrument_imports(include=["sitemap_tui"]):
        from sitemap_tui.engine import urlpolicy
        from sitemap_tui.engine.decode import BodyDecoder, DecodeError
        from sitemap_tui.engine.model import ChildRef, Entry, Issue
        from sitemap_tui.engine.robots import parse_robots
        from sitemap_tui.engine.sanitize import display
        from sitemap_tui.engine.sniff import SniffingParser
        from sitemap_tui.engine.values import (
            parse_any_feed_date,
            parse_changefreq,
            parse_priority,
            parse_w3c_datetime,
        )
    import math
    import re

    import httpx

    unsafe = re.compile(
        "[\x00-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064"
        "\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f\ud800-\udfff]"
    )

    def chunks(fdp, data: bytes):
        sizes = [fdp.ConsumeIntInRange(1, 4096) for _ in range(4)]
        i = k = 0
        while i < len(data):
            n = sizes[k % 4]
            yield data[i : i + n]
            i += n
            k += 1

    def parser(data: bytes) -> None:
        fdp = atheris.FuzzedDataProvider(data[:8])
        body = data[8:]
        p = SniffingParser("https://example.com/s.xml", max_entries=fdp.ConsumeIntInRange(0, 60))
        items = []
        for c in chunks(fdp, body):
            items += p.feed(c)
            if p.done:
                break
        items += p.close()
        assert sum(isinstance(i, (Entry, ChildRef)) for i in items) <= p.max_entries
        assert all(isinstance(i, (Entry, ChildRef, Issue)) for i in items)

    def decoder(data: bytes) -> None:
        fdp = atheris.FuzzedDataProvider(data[:10])
        enc = [None, "gzip", "deflate", "identity", "br"][fdp.ConsumeIntInRange(0, 4)]
        cap = fdp.ConsumeIntInRange(0, 1 << 20)
        try:
            dec = BodyDecoder(enc, cap, 4096)
        except DecodeError:
            return
        total = 0
        try:
            for c in chunks(fdp, data[10:]):
                for out in dec.feed(c):
                    assert 0 < len(out) <= 4096
                    total += len(out)
            for out in dec.finish():
                total += len(out)
        except DecodeError:
            pass
        assert total <= cap

    def sanitize(data: bytes) -> None:
        fdp = atheris.FuzzedDataProvider(data)
        n = fdp.ConsumeIntInRange(1, 3000)
        s = fdp.ConsumeUnicode(len(data))
        out = display(s, n)
        assert len(out) <= n and unsafe.search(out) is None, repr(out)

    def policy(data: bytes) -> None:
        fdp = atheris.FuzzedDataProvider(data)
        prefix = ["http://", "https://", "HTTP://", "", "file://", "http:"][fdp.ConsumeIntInRange(0, 5)]
        url = prefix + fdp.ConsumeUnicode(len(data))
        key = urlpolicy.normalize(url)
        assert urlpolicy.normalize(key) == key
        urlpolicy.resolve("https://example.com/a/", url)
        if urlpolicy.unfetchable_reason(url) is None:
            u = httpx.URL(url)
            assert u.scheme in ("http", "https") and u.host

    def values(data: bytes) -> None:
        s = atheris.FuzzedDataProvider(data).ConsumeUnicode(len(data))
        for dt in (parse_w3c_datetime(s), parse_any_feed_date(s)):
            assert dt is None or dt.utcoffset() is not None
        p = parse_priority(s)
        assert p is None or (0 <= p <= 1 and not math.isnan(p))
        parse_changefreq(s)

    def robots(data: bytes) -> None:
        r = parse_robots(data, "https://example.com/robots.txt", max_bytes=len(data) // 2 + 1)
        for line in r.sitemaps:
            assert (line.unfetchable is None) == (urlpolicy.unfetchable_reason(line.url) is None)
        r.allowed("https://example.com/x")

    return {"parser": parser, "decoder": decoder, "sanitize": sanitize, "urlpolicy": policy,
            "values": values, "robots": robots}[target]


def _atheris_child(target: str, libfuzzer_args: list[str]) -> None:
    import atheris

    fn = _harness(target)
    atheris.Setup([sys.argv[0], *libfuzzer_args], fn)
    atheris.Fuzz()


def _seed_dir(workdir: Path, target: str) -> Path:
    sys.path.insert(0, str(ROOT / "tests"))
    from fuzz.seeds import corpus_seeds

    seeds = workdir / f"seeds-{target}"
    seeds.mkdir(parents=True, exist_ok=True)
    if target in ("parser", "robots", "decoder"):
        import gzip

        for i, s in enumerate(corpus_seeds()):
            prefix = b"\x00" * (8 if target == "parser" else 10 if target == "decoder" else 0)
            body = gzip.compress(s, mtime=0) if target == "decoder" and i % 2 else s
            (seeds / f"seed-{i:04d}").write_bytes(prefix + body)
    return seeds


def run_atheris(targets: list[str], seconds: int, runs: int | None, workdir: Path) -> int:
    try:
        import atheris  # noqa: F401
    except ImportError:
        print("atheris is not installed (pip install atheris); skipping", file=sys.stderr)
        return 0
    failures = 0
    for target in targets:
        corpus = workdir / f"corpus-{target}"
        corpus.mkdir(parents=True, exist_ok=True)
        seeds = _seed_dir(workdir, target)
        args = [f"-max_total_time={seconds}", "-rss_limit_mb=2048", "-timeout=10",
                f"-artifact_prefix={workdir}/{target}-", "-print_final_stats=1"]
        if runs is not None:
            args.append(f"-runs={runs}")
        cmd = [sys.executable, __file__, "_atheris", target, *args, str(corpus), str(seeds)]
        t0 = time.monotonic()
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        took = time.monotonic() - t0
        stats = [line for line in proc.stderr.splitlines() if line.startswith(("stat::", "#", "Done"))]
        crashed = proc.returncode != 0
        failures += crashed
        print(f"atheris {target}: exit {proc.returncode} in {took:.0f}s; {'CRASH' if crashed else 'ok'}")
        for line in stats[-6:]:
            print("   ", line)
        if crashed:
            print(proc.stderr[-4000:])
    return failures


def run_hypothesis(examples: int, only: list[str]) -> int:
    env = dict(os.environ, HYPOTHESIS_PROFILE="long", FUZZ_EXAMPLES=str(examples))
    files = [f"tests/fuzz/test_fuzz_{name}.py" for name in only] if only else ["tests/fuzz"]
    cmd = [sys.executable, "-m", "pytest", *files, "-p", "no:cacheprovider", "-q",
           "--hypothesis-show-statistics", "-x"]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, env=env)
    print(f"hypothesis: {examples} examples per property, exit {proc.returncode}, "
          f"{time.monotonic() - t0:.0f}s")
    return proc.returncode


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "_atheris":
        _atheris_child(argv[1], argv[2:])
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("engine", choices=("hypothesis", "atheris", "all"))
    ap.add_argument("--examples", type=int, default=20_000, help="hypothesis examples per property")
    ap.add_argument("--only", action="append", default=[],
                    choices=("parsers", "decode", "sanitize", "urlpolicy", "values"),
                    help="hypothesis: only these test_fuzz_*.py files (repeatable)")
    ap.add_argument("--target", action="append", choices=TARGETS, help="atheris target (repeatable)")
    ap.add_argument("--seconds", type=int, default=300, help="atheris: time per target")
    ap.add_argument("--runs", type=int, default=None, help="atheris: executions per target")
    ap.add_argument("--workdir", type=Path, default=None, help="atheris corpus/crash directory")
    args = ap.parse_args(argv)
    rc = 0
    if args.engine in ("hypothesis", "all"):
        rc |= run_hypothesis(args.examples, args.only)
    if args.engine in ("atheris", "all"):
        workdir = args.workdir or Path(tempfile.mkdtemp(prefix="sitemap-tui-fuzz-"))
        print(f"atheris work directory: {workdir}")
        rc |= run_atheris(args.target or list(TARGETS), args.seconds, args.runs, workdir)
    return 1 if rc else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Which rules fire on the real corpus: rule id -> number of files, per severity.

``python -m tests.corpus_table`` prints the table, ``--write`` rewrites
``tests/data/corpus-rule-counts.tsv``, ``--check`` exits 1 with the differences when the
committed table is out of date. ``tests/test_corpus_rule_counts.py`` runs the check, so a change
that makes a rule fire on more (or fewer) real files has to update the table on purpose.

Each corpus file is validated on its own, as ``sitemap-tui validate FILE --format json`` with the
default options (``--workers 0`` runs the same pipeline in this process, which is faster and
gives the same findings) and the clock set to :data:`NOW`. One file per run keeps cross-file rules to the file itself, so the
counts never depend on which other files were in flight.

The corpus is ``../shared/corpus`` beside the checkout (as for ``test_corpus_manifest.py``), or
the folder named by ``SITEMAP_TUI_CORPUS``.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import functools
import gzip
import io
import json
import os
import socket
import sys
import tempfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sitemap_tui import cli
from sitemap_tui.engine.explorer import Explorer

TABLE = Path(__file__).resolve().parent / "data" / "corpus-rule-counts.tsv"
SEVERITIES = ("error", "warning", "info")
HEADER = ("rule", *SEVERITIES)
#: The clock of every run: the day the table was first measured. Rules that compare dates with
#: the fetch time (lastmod-future, video-expired, news-article-too-old ...) then give the same
#: counts on any later day (a corpus video expires on 2027-01-01).
NOW = datetime(2026, 11, 25, tzinfo=UTC)


def corpus_dir() -> Path | None:
    """The shared corpus folder, or None when this checkout has none beside it."""
    env = os.environ.get("SITEMAP_TUI_CORPUS")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[2] / "shared" / "corpus")
    for folder in candidates:
        if (folder / "MANIFEST.tsv").is_file():
            return folder
    return None


def corpus_files(corpus: Path) -> list[str]:
    """The corpus files (relative paths) in MANIFEST order, which is sorted and stable."""
    with (corpus / "MANIFEST.tsv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    return [r["file"] for r in rows if (corpus / r["file"]).is_file()]


@dataclass(frozen=True, slots=True)
class Run:
    """One ``validate`` run: its exit code and the issues of its JSON report."""

    file: str
    code: int
    issues: list[dict[str, object]]
    stderr: str


def validate(path: Path, *options: str) -> Run:
    """``sitemap-tui validate PATH --format json OPTIONS`` in this process, ``--no-history``: the
    findings do not depend on the cache (the committed table is the same either way), and
    keeping each of the ~340 runs made every later one prune over all of them (~25 % of the
    corpus tests' time)."""
    with tempfile.TemporaryDirectory(prefix="corpus-table-") as tmp:
        report = Path(tmp) / "report.json"
        err = io.StringIO()
        with contextlib.redirect_stderr(err), _clock(NOW):
            code = cli.main(
                ["validate", str(path), "--format", "json", "--workers", "0", "--no-history", "-o", str(report),
                 *options]
            )  # fmt: skip
        issues = json.loads(report.read_text(encoding="utf-8"))["issues"] if report.exists() else []
    return Run(path.name, code, issues, err.getvalue())


@contextlib.contextmanager
def _clock(now: datetime) -> Iterator[None]:
    """The explorer's clock (``ExploreOptions.now``, which the CLI does not expose) set to ``now``."""
    real = Explorer.now
    Explorer.now = property(lambda self: now)  # type: ignore[assignment,method-assign]
    try:
        yield
    finally:
        Explorer.now = real  # type: ignore[method-assign]


class NetworkUsed(RuntimeError):
    """A corpus run tried to resolve a host name: its findings would depend on the network."""


@contextlib.contextmanager
def no_network() -> Iterator[list[str]]:
    """Refuse every name lookup while the corpus runs, and say which hosts were asked for.

    A robots.txt or an index names remote sitemaps; whether those are fetched is the tool's
    decision, but a table that depends on what the network answers would not be a measurement.
    """
    asked: list[str] = []
    real = socket.getaddrinfo

    def refuse(host: object, *args: object, **kwargs: object) -> Any:
        asked.append(str(host))
        raise socket.gaierror(socket.EAI_NONAME, "corpus runs do not use the network")

    socket.getaddrinfo = refuse  # type: ignore[assignment]
    try:
        yield asked
    finally:
        socket.getaddrinfo = real


def run_corpus(corpus: Path, *options: str, only: Callable[[Path], bool] | None = None) -> dict[str, Run]:
    """Every corpus file (``only``: those it accepts) validated on its own; raises
    :class:`NetworkUsed` when a run tried to reach a host."""
    runs: dict[str, Run] = {}
    for rel in corpus_files(corpus):
        if only is not None and not only(corpus / rel):
            continue
        with no_network() as asked:
            runs[rel] = validate(corpus / rel, *options)
        if asked:
            raise NetworkUsed(f"{rel}: the run looked up {', '.join(sorted(set(asked)))}")
    return runs


@functools.cache
def corpus_runs(*options: str) -> dict[str, Run]:
    """:func:`run_corpus` once per set of options in this process (the table test and the
    one-fault test share the default run). ``--xsd strict`` differs from the default only on
    an element of another namespace: a file that declares none is the default run's (checked
    over the whole corpus once: 101 of 170 files, none differed), which saves ~10 s of CI."""
    corpus = corpus_dir()
    if corpus is None:
        raise FileNotFoundError("no corpus (../shared/corpus or SITEMAP_TUI_CORPUS)")
    if options == ("--xsd", "strict"):
        lax = corpus_runs()
        return {**lax, **run_corpus(corpus, *options, only=_namespaced)}
    return run_corpus(corpus, *options)


def _namespaced(path: Path) -> bool:
    """The file (gunzipped) declares a namespace besides its default one."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error):
            return True
    return b"xmlns:" in data or data.count(b"xmlns=") > 1


def count(runs: Iterable[Run]) -> dict[str, Counter[str]]:
    """rule id -> severity -> number of files with at least one such finding."""
    table: dict[str, Counter[str]] = {}
    for run in runs:
        for rule, severity in {(str(i["rule"]), str(i["severity"])) for i in run.issues}:
            table.setdefault(rule, Counter())[severity] += 1
    return table


def render(table: dict[str, Counter[str]]) -> str:
    lines = ["\t".join(HEADER)]
    for rule in sorted(table):
        lines.append("\t".join([rule, *(str(table[rule][s]) for s in SEVERITIES)]))
    return "\n".join(lines) + "\n"


def parse(text: str) -> dict[str, Counter[str]]:
    rows = list(csv.reader(io.StringIO(text), delimiter="\t"))
    if not rows or tuple(rows[0]) != HEADER:
        raise ValueError(f"{TABLE.name}: the first line must be {' '.join(HEADER)!r}")
    return {
        row[0]: Counter({s: int(n) for s, n in zip(SEVERITIES, row[1:], strict=True) if int(n)})
        for row in rows[1:]
        if row
    }


def differences(old: dict[str, Counter[str]], new: dict[str, Counter[str]]) -> list[str]:
    """One line per (rule, severity) whose file count changed."""
    out = []
    for rule in sorted(old.keys() | new.keys()):
        for s in SEVERITIES:
            a, b = old.get(rule, Counter())[s], new.get(rule, Counter())[s]
            if a != b:
                out.append(f"{rule} ({s}): {a} -> {b} files")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.corpus_table", description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help=f"rewrite {TABLE.relative_to(TABLE.parents[2])}")
    mode.add_argument("--check", action="store_true", help="exit 1 when the committed table differs")
    args = ap.parse_args(argv)
    corpus = corpus_dir()
    if corpus is None:
        print("corpus_table: no corpus (../shared/corpus or SITEMAP_TUI_CORPUS)", file=sys.stderr)
        return 2
    runs = run_corpus(corpus)
    text = render(count(runs.values()))
    if args.write:
        TABLE.write_text(text, encoding="utf-8")
        print(f"wrote {TABLE} ({len(runs)} files)", file=sys.stderr)
    elif args.check:
        diff = differences(parse(TABLE.read_text(encoding="utf-8")), parse(text))
        if diff:
            print("\n".join(diff))
            return 1
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

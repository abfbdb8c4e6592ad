"""The headless commands and the launchers of the explorer (one function per command)."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sitemap_tui import scratch, signals
from sitemap_tui.cli import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UsageError, fetch_config
from sitemap_tui.engine.discover import Target, TargetError
from sitemap_tui.engine.events import EntriesAdded, Event, NodeAdded
from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.model import NodeKind, NodeState
from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store import Store, StoreRun
from sitemap_tui.output import Output, OutputError, open_output
from sitemap_tui.validate.registry import RegistryJudge
from sitemap_tui.words import plural


def _target(raw: str) -> Target:
    try:
        return Target.parse(raw)
    except TargetError as exc:
        raise UsageError(str(exc)) from exc


def _options(args: Any, **extra: Any) -> ExploreOptions:
    from sitemap_tui.engine.workers import default_workers

    workers = getattr(args, "workers", None)
    return ExploreOptions(
        workers=default_workers() if workers is None else workers,
        **extra,
        recursive=not getattr(args, "no_recursive", False),
        max_depth=getattr(args, "depth", 10),
        max_files=getattr(args, "max_files", 10_000),
        probe=getattr(args, "probe", False),
        follow_cross_host=getattr(args, "follow_cross_host", False),
        robots_checks=not getattr(args, "no_robots_checks", False),
    )


def default_db_path(target: Target) -> Path:
    """A new exploration file in the user's cache directory."""
    from urllib.parse import urlsplit

    from platformdirs import user_cache_dir

    host = urlsplit(target.url).hostname or "local"
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    folder = Path(user_cache_dir("sitemap-tui")) / "explorations"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{host.replace(':', '_')}-{stamp}.db"


class StderrProgress:
    """A one-line progress report on stderr, only when stderr is a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.files = 0
        self.urls: dict[int, int] = {}
        self._last = 0.0

    def __call__(self, events: list[Event]) -> None:
        if not self.enabled:
            return
        for ev in events:
            if isinstance(ev, NodeAdded):
                self.files += 1
            elif isinstance(ev, EntriesAdded):
                self.urls[ev.node_id] = ev.count
        now = time.monotonic()
        if now - self._last > 0.2:
            self._last = now
            sys.stderr.write(f"\r\x1b[K{plural(self.files, 'file')}, {plural(sum(self.urls.values()), 'URL')}")
            sys.stderr.flush()

    def done(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def run_exploration(
    args: Any,
    target: Target,
    *,
    store: Store | None,
    checker: Any = None,
    output_format: str | None = None,
    on_output: Callable[[str], None] | None = None,
    started: Callable[[Explorer], None] | None = None,
    file_stats: bool = True,
) -> Explorer:
    progress = StderrProgress()
    import gc

    gc.set_threshold(100_000, 50, 100)  # entry batches are acyclic: collect less often

    async def go() -> Explorer:
        async with Explorer(
            store=store, fetch_config=fetch_config(args),
            options=_options(args, output_format=output_format, file_stats=file_stats,
                             keep_non_http=getattr(args, "keep_non_http", True)),
            checker=checker,
            on_events=progress, on_output=on_output,
            judge=checker.judge if checker is not None else RegistryJudge(),  # worded as always
        ) as explorer:
            if started is not None:
                started(explorer)
            await explorer.explore(target)
            return explorer

    try:
        return asyncio.run(go())
    finally:
        progress.done()


@dataclass(frozen=True, slots=True)
class TargetProblem:
    """Why the target gave nothing to work on, and the exit code that says so."""

    code: int  # EXIT_USAGE: could not run as asked; EXIT_FINDINGS: the target is a broken sitemap
    message: str


def target_problem(explorer: Explorer) -> TargetProblem | None:
    """The exit-code contract for the target itself: unreachable, or a site or folder without a
    sitemap, is 2 (nothing to work on); a target that answered but is not a usable sitemap (an
    HTML page, corrupt gzip) is a finding, 1."""
    roots = explorer.children.get(None, [])
    if not roots:
        return TargetProblem(EXIT_USAGE, "nothing to explore")
    root = explorer.nodes[roots[0]]
    if root.kind == NodeKind.DIRECTORY:
        # a folder with no sitemap in it (files skipped by name and content, said here) is
        # nothing to work on, even beside a robots.txt: unless its lines were fetched
        folder = explorer.folder
        if (folder is not None and folder.sitemaps) or any(
            n.kind not in (NodeKind.DIRECTORY, NodeKind.ROBOTS) and n.state in (NodeState.DONE, NodeState.FAILED)
            for n in explorer.nodes.values()
        ):
            return None
        where = display(str(folder.folder)) if folder is not None else display(root.url)
        why = display("; ".join(folder.notes())) if folder is not None else ""
        return TargetProblem(EXIT_USAGE, f"no sitemap found in {where}" + (f": {why}" if why else ""))
    if root.kind == NodeKind.SITE:
        if root.state == NodeState.FAILED:  # no HTTP answer at all
            return TargetProblem(EXIT_USAGE, f"{display(root.url)}: {display(root.error)}")
        if any(n.kind not in (NodeKind.SITE, NodeKind.DIRECTORY, NodeKind.ROBOTS) for n in explorer.nodes.values()):
            return None
        return TargetProblem(EXIT_USAGE, _no_sitemap(explorer))
    if root.state != NodeState.FAILED:
        return None
    s = root.stats
    # answered: a 2xx body (or a local file's bytes) that is not a usable sitemap; a 4xx/5xx, a
    # refused redirect or no answer at all means the target could not be read
    if s.http_status is not None:
        answered = 200 <= s.http_status < 300
    elif root.url.startswith("file:"):  # a local file that is there, even empty, is an answer
        from urllib.parse import unquote, urlsplit

        answered = Path(unquote(urlsplit(root.url).path)).is_file()
    else:
        answered = s.wire_bytes > 0
    code = EXIT_FINDINGS if answered else EXIT_USAGE
    return TargetProblem(code, f"{display(root.url)}: {display(root.error)}")


def _no_sitemap(explorer: Explorer) -> str:
    """"no sitemap found: tried robots.txt (HTTP 404), /sitemap.xml, ..." for a site target."""
    from urllib.parse import urlsplit

    from sitemap_tui.engine.model import FoundBy

    tried = []
    robots = next((n for n in explorer.nodes.values() if n.kind == NodeKind.ROBOTS), None)
    if robots is not None:
        why = display(robots.error) if robots.state == NodeState.FAILED else "no Sitemap: lines"
        tried.append(f"robots.txt ({why})")
    for record in explorer.discovery:
        if record.found_by == FoundBy.PROBE and record.node_id is None:
            tried.append(display(urlsplit(record.url).path or record.url))
    tried.append("<link rel=sitemap> in the home page")
    return "no sitemap found: tried " + ", ".join(tried)


SQLITE_MAGIC = b"SQLite format 3\x00"


def exploration_problem(path: Path, *, must_exist: bool) -> str | None:
    """Why ``path`` cannot hold an exploration, or None. Nothing is created or changed: a text
    file, a folder or someone else's database given by mistake stays as it was."""
    if path.is_dir():
        return "is a folder, not an exploration file"
    if not path.exists():
        if must_exist:
            return "no such exploration file"
        if not path.parent.is_dir():
            return f"its folder {display(str(path.parent))} does not exist"
        return None
    try:
        with path.open("rb") as fh:
            head = fh.read(len(SQLITE_MAGIC))
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if not head:
        return "is empty, not an exploration" if must_exist else None
    if head != SQLITE_MAGIC:
        return "is not a sitemap-tui exploration (not an SQLite file)"
    from sitemap_tui.engine.storefile import StoreError, inspect_store

    try:
        # read without a write, not even the -wal/-shm files SQLite leaves beside a database
        found = inspect_store(path)
    except StoreError as exc:  # another program's database, a newer version's store
        return exc.reason
    if found is None or not found.holds_exploration:
        return "holds no exploration" if must_exist else None
    return None


def open_store(raw: str) -> StoreRun:
    """The run's store for ``--db``; a path that cannot hold one is a usage error. The new
    exploration replaces what the path held once ``finish(complete)`` says the run is complete
    (StoreRun); a store in use by another run is a StoreError (one line, exit 2)."""
    path = Path(raw)
    problem = exploration_problem(path, must_exist=False)
    if problem:
        raise UsageError(f"--db {display(raw)}: {problem}")
    return StoreRun(path)


def _target_answered(explorer: Explorer) -> bool:
    """Whether a run that went to its end may replace what --db held: not when the target never
    answered (a site that is down, a file that is not there), so that a cron job keeps its last
    good exploration; an error page or a file that is no sitemap is an answer, with findings."""
    roots = explorer.children.get(None, [])
    if not roots:
        return False
    root = explorer.nodes[roots[0]]
    return root.state != NodeState.FAILED or root.stats.http_status is not None or root.stats.wire_bytes > 0


def output_path(raw: str | None) -> Path | None:
    """Where ``--output`` writes, checked before any work: a folder or a path under a file is a
    usage error; missing folders are created."""
    if raw is None:
        return None
    path = Path(raw)
    if path.is_dir():
        raise UsageError(f"--output {display(raw)}: is a folder; name a file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--output {display(raw)}: cannot create its folder ({exc.strerror})") from exc
    return path


def open_result(path: Path | None, raw: str | None) -> Output:
    """Where a command writes its result: stdout, or ``--output`` through a temp file that
    replaces the previous file only on :meth:`Output.commit` (see sitemap_tui/output.py)."""
    return open_output(path, label=f"--output {display(raw or str(path))}" if path is not None else None)


# -- urls ----------------------------------------------------------------------------------
def cmd_urls(args: Any) -> int:
    from sitemap_tui.export import CSV_RAW, UrlWriter

    target = _target(args.target)
    fmt = args.format
    if getattr(args, "csv_raw", False):
        if fmt != "csv":
            raise UsageError("--csv-raw only applies to --format csv")
        fmt = CSV_RAW  # cells as they are: no ' before a formula-like cell
    out_path = output_path(args.output)
    db = open_store(args.db) if args.db else None
    try:
        result = open_result(out_path, args.output)
    except BaseException:
        if db is not None:
            db.finish(False)
        raise
    out = result.file
    count = 0
    running: list[Explorer] = []
    closed = False
    failed: list[OutputError] = []

    def stop() -> None:
        nonlocal closed
        closed = True
        for ex in running:
            ex.cancel()

    def on_output(text: str) -> None:
        nonlocal count
        if closed:
            return
        try:
            out.write(text)
        except BrokenPipeError:
            # the reader went away (| head): stop quietly, it is not the sitemap's fault
            from sitemap_tui.cli import _silence_stdout

            _silence_stdout()
            stop()
            return
        except OutputError as exc:
            # the output failed (a full disk): stop; the error names the output, not a sitemap
            failed.append(exc)
            stop()
            return
        count += text.count("\n")

    complete = False
    with result:  # no commit: the previous output stays as it was
        try:
            UrlWriter(out, fmt)  # the CSV header; the rows are formatted where they are parsed
            explorer = run_exploration(
                args, target, store=db.store if db else None, output_format=fmt, on_output=on_output,
                started=running.append,
            )
            signals.check()  # stopped by a signal: not a complete result
            complete = not closed and not failed and _target_answered(explorer)
        finally:
            if db is not None:
                db.finish(complete)
        if failed:
            raise failed[0]
        if closed:
            return EXIT_OK
        problem = target_problem(explorer)
        if not (problem and count == 0):
            result.commit()
    _report_failures(explorer)
    if explorer.output_left_out:
        n = explorer.output_left_out
        print(f"sitemap-tui: {plural(n, 'URL')} left out: scheme not http or https"
              " (javascript:, mailto:, file:, ...; --keep-non-http prints them)", file=sys.stderr)
    if problem and count == 0:  # nothing to list: the previous output was kept
        print(f"sitemap-tui: error: {problem.message}", file=sys.stderr)
        return problem.code
    return report_left_out(explorer, args, EXIT_OK)


def report_left_out(explorer: Explorer, args: Any, code: int) -> int:
    """Say on stderr, one line per cause with a count and the option that changes it, what the
    exploration left out (Explorer.left_out), whether or not stderr is a terminal: a script
    must not take an incomplete result for a whole one. Returns ``code``, or EXIT_FINDINGS
    when ``--strict`` and the result is incomplete (what the user asked for, such as
    --no-recursive, is said but does not count)."""
    for note in run_notes(explorer):
        print(f"sitemap-tui: {note}", file=sys.stderr)
    incomplete = False
    for omission in explorer.left_out():
        print(f"sitemap-tui: {omission.text}", file=sys.stderr)
        incomplete = incomplete or omission.strict
    if incomplete and getattr(args, "strict", False) and code == EXIT_OK:
        return EXIT_FINDINGS
    return code


def run_notes(explorer: Explorer) -> list[str]:
    """What the run did not do, in words, for stderr and a report's summary: the files of a
    folder that are not sitemaps, and the robots-based rules that did not run (issue 16)."""
    notes = explorer.folder.notes() if explorer.folder is not None else []
    if explorer.robots_gaps:
        from sitemap_tui.validate.registry import ROBOTS_BASED_RULES

        rules = ", ".join(ROBOTS_BASED_RULES)
        notes += [f"robots-based rules did not run: {gap} ({rules}; docs/exit-codes.md)"
                  for gap in explorer.robots_gaps]
    # file names and a server's reason phrase are untrusted text
    return [display(note) for note in notes]


def files_read(explorer: Explorer) -> int:
    """Files that were fetched or read (failed ones included): an index's listed children that
    were not fetched (depth, caps, --no-recursive) are not files of this result; stderr says
    what was left out."""
    return sum(
        1 for n in explorer.nodes.values()
        if n.kind not in (NodeKind.SITE, NodeKind.DIRECTORY) and n.state in (NodeState.DONE, NodeState.FAILED)
    )


def _report_failures(explorer: Explorer) -> None:
    for node in explorer.nodes.values():
        if node.state == NodeState.FAILED or (node.error and node.state == NodeState.DONE):
            print(f"sitemap-tui: {display(node.url)}: {display(node.error)}", file=sys.stderr)


# -- stats ---------------------------------------------------------------------------------
def node_json(explorer: Explorer, node_id: int) -> dict[str, Any]:
    node = explorer.nodes[node_id]
    s = node.stats
    agg = explorer.aggregate(node_id)
    data: dict[str, Any] = {
        "url": node.url,
        "kind": node.kind.value,
        "state": node.state.value,
        "found_by": node.found_by.value,
        "urls": s.url_count,
        "bytes": s.decoded_bytes,
        "wire_bytes": s.wire_bytes,
        "gzipped": s.gzipped,
        "http_status": s.http_status,
        "final_url": s.final_url,
        "content_type": s.content_type,
        "content_encoding": s.content_encoding,
        "xml_encoding": s.xml_encoding,
        "fetch_time": _round(s.fetch_time),
        "parse_time": _round(s.parse_time),
        "ttfb": _round(s.ttfb),
        "sitemaps_listed": s.child_count,
        "index_lastmod": node.lastmod_raw,
        "error": node.error,
    }
    if agg.urls:
        data["unique_urls"] = agg.unique
        data["lastmod"] = {
            "min": _iso(agg.lastmod_min), "max": _iso(agg.lastmod_max), "missing": agg.lastmod_missing,
            "invalid": agg.lastmod_invalid, "future": agg.lastmod_future,
            "by_year": dict(sorted(agg.by_year().items())),
            "by_month": dict(sorted(agg.by_month.items())),
        }
        data["changefreq"] = dict(agg.changefreq)
        data["priority"] = dict(sorted(agg.priority.items()))
        data["extensions"] = {
            "urls_with_images": agg.urls_with_images, "images": agg.images,
            "urls_with_videos": agg.urls_with_videos, "videos": agg.videos,
            "urls_with_news": agg.urls_with_news, "news": agg.news,
            "urls_with_alternates": agg.urls_with_alternates, "alternates": agg.alternates,
            "hreflang": dict(agg.hreflang.most_common()),
        }
    data["children"] = [node_json(explorer, c) for c in explorer.children.get(node_id, [])]
    return data


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 4)


def _iso(ts: int | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


def _tmp_store(args: Any) -> tuple[Store, Callable[[bool], None]]:
    """The run's store and what ends it: ``finish(complete)`` puts a --db in place only when
    the run was complete; a temporary one is removed either way."""
    if getattr(args, "db", None):
        db = open_store(args.db)
        return db.store, db.finish
    # named after this process, removed at exit or after SIGTERM/SIGHUP, and by a later run
    # when this process was killed outright
    folder = scratch.temp_dir()
    store = Store(folder / "exploration.db")

    def cleanup(_complete: bool) -> None:
        store.discard()
        scratch.remove(folder)

    return store, cleanup


def cmd_stats(args: Any) -> int:
    import humanize

    target = _target(args.target)
    out_path = output_path(getattr(args, "output", None))  # `demo --headless` has no --output
    # per-file aggregates are kept while streaming, so stats needs no store unless asked
    db = open_store(args.db) if args.db else None
    complete = False
    try:
        result = open_result(out_path, getattr(args, "output", None))
        with result:
            explorer = run_exploration(args, target, store=db.store if db else None)
            signals.check()
            out = result.file
            roots = explorer.children.get(None, [])
            tree = [node_json(explorer, r) for r in roots]
            if args.json:
                json.dump({"nodes": tree}, out, ensure_ascii=True, indent=2)
                out.write("\n")
            else:
                total_urls = 0
                for line, urls in _stats_lines(tree, humanize):
                    out.write(line + "\n")
                    total_urls += urls
                files = files_read(explorer)
                out.write(f"\n{plural(files, 'file')}, {plural(total_urls, 'URL')}\n")
            problem = target_problem(explorer)
            complete = _target_answered(explorer)
            if problem is None:  # a failed target keeps the previous output
                result.commit()
    finally:
        if db is not None:
            db.finish(complete)
    if problem:
        print(f"sitemap-tui: error: {problem.message}", file=sys.stderr)
        return problem.code
    return report_left_out(explorer, args, EXIT_OK)


def _stats_lines(tree: list[dict[str, Any]], humanize: Any, depth: int = 0) -> list[tuple[str, int]]:
    out = []
    for n in tree:
        parts = [f"{'  ' * depth}{n['kind']:<8} {display(n['url'])}"]
        if n["state"] != "done":
            parts.append(f"[{n['state']}]")
        if n["kind"] not in ("site", "directory"):
            if n["http_status"]:
                parts.append(f"HTTP {n['http_status']}")
            if n["urls"]:
                parts.append(plural(n["urls"], "URL"))
            if n["sitemaps_listed"]:
                parts.append(plural(n["sitemaps_listed"], "sitemap"))
            if n["bytes"]:
                size = humanize.naturalsize(n["bytes"], binary=True)
                if n["gzipped"]:
                    size += f" ({humanize.naturalsize(n['wire_bytes'], binary=True)} gzipped)"
                parts.append(size)
            if n["fetch_time"] is not None:
                parts.append(f"{n['fetch_time']:.2f}s")
            if n["index_lastmod"]:
                parts.append(f"index lastmod {display(n['index_lastmod'], 60)}")
        if n["error"]:
            parts.append(f"— {display(n['error'])}")
        out.append(("  ".join(parts), n["urls"] or 0))
        out.extend(_stats_lines(n["children"], humanize, depth + 1))
    return out


# -- discover ------------------------------------------------------------------------------
def cmd_discover(args: Any) -> int:
    target = _target(args.target)
    if target.kind != "site":
        raise UsageError("discover takes a site (https://example.com or example.com)")
    args.no_recursive = True

    async def go() -> Explorer:
        async with Explorer(fetch_config=fetch_config(args), options=_options(args), judge=RegistryJudge()) as explorer:
            await explorer.open(target)
            return explorer

    explorer = asyncio.run(go())
    records = explorer.discovery
    if args.json:
        robots = next((n for n in explorer.nodes.values() if n.kind == NodeKind.ROBOTS), None)
        json.dump(
            {
                "site": target.url,
                "robots": None if robots is None else {"url": robots.url, "state": robots.state.value, "error": robots.error},
                "sitemaps": [
                    {"url": r.url, "found_by": r.found_by.value, "detail": r.detail, "found": r.node_id is not None}
                    for r in records
                ],
            },
            sys.stdout, ensure_ascii=True, indent=2,
        )
        sys.stdout.write("\n")
    else:
        for r in records:
            mark = "found" if r.node_id is not None else "no"
            print(f"{mark:<6} {r.found_by.value:<10} {display(r.url)}  ({display(r.detail)})")
    problem = target_problem(explorer)
    if problem:
        print(f"sitemap-tui: error: {problem.message}", file=sys.stderr)
        return EXIT_USAGE
    return report_left_out(explorer, args, EXIT_OK)


# -- validate ------------------------------------------------------------------------------
def cmd_validate(args: Any) -> int:
    from sitemap_tui.engine.model import Severity
    from sitemap_tui.validate.checker import Checker
    from sitemap_tui.validate.registry import select_rules
    from sitemap_tui.validate.report import Summary, write_report

    target = _target(args.target)
    fail_on = getattr(args, "fail_on", "error")
    if fail_on != "never" and Severity(fail_on).rank < Severity(args.min_severity).rank:
        raise UsageError(
            f"--fail-on {fail_on} cannot fail: --min-severity {args.min_severity} leaves "
            f"{fail_on} findings out of the report (lower --min-severity or raise --fail-on)")
    try:
        enabled = select_rules(_split(args.select), _split(args.ignore), Severity(args.min_severity))
    except (KeyError, ValueError) as exc:
        raise UsageError(f"{exc.args[0]} (see `sitemap-tui rules`)") from exc
    checker = Checker(enabled=enabled, xsd_mode=args.xsd)
    out_path = output_path(args.output)
    store, finish = _tmp_store(args)
    complete = False
    try:
        # per-file aggregates only matter in a store the user keeps (--db, for `open`)
        explorer = run_exploration(args, target, store=store, checker=checker, file_stats=bool(args.db))
        problem = target_problem(explorer)
        from sitemap_tui.validate.crossfile import run_crossfile

        # the store is closed right after the report: its temporary tables need no DROP
        with store.guarded():  # (its SQL writes to the store's connection directly)
            run_crossfile(store, enabled=enabled, robots=explorer.checked_robots(), keep_temp=True)
        if args.deep:
            from sitemap_tui.validate.deep import DeepOptions, run_deep

            asyncio.run(run_deep(store, fetch_config(args), DeepOptions(sample=args.sample, rate=args.rate), enabled=enabled))
        store.commit()
        def selected() -> Iterator[Any]:
            # streamed from the store twice (counts, then the report): millions of issues never
            # sit in memory at once
            return (i for i in store.iter_issues(min_severity=Severity(args.min_severity)) if i.rule in checker.selection)

        files = files_read(explorer)
        urls = sum(n.stats.url_count for n in explorer.nodes.values())
        summary = Summary.of(selected(), files=files, urls=urls, notes=run_notes(explorer))
        signals.check()  # stopped by a signal: no report, the previous one stays
        with open_result(out_path, args.output) as report:
            write_report(args.format, selected(), summary, report.file)
            if not (problem and problem.code == EXIT_USAGE):  # exit 2 keeps the previous output
                report.commit()
        complete = _target_answered(explorer)
    finally:
        finish(complete)
    if problem and problem.code == EXIT_USAGE:
        print(f"sitemap-tui: error: {problem.message}", file=sys.stderr)
        return EXIT_USAGE
    # a target that answered but is broken is reported as its findings (file-is-html, ...),
    # which fail the run like any other at or above the fail level
    failing = {
        "error": summary.errors,
        "warning": summary.errors + summary.warnings,
        "info": summary.errors + summary.warnings + summary.info,
        "never": 0,
    }[fail_on]
    return report_left_out(explorer, args, EXIT_FINDINGS if failing else EXIT_OK)


def _split(value: str | None) -> list[str] | None:
    if not value:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]


# -- rules ---------------------------------------------------------------------------------
def cmd_rules(args: Any) -> int:
    from sitemap_tui.validate.registry import RULES

    if args.rule:
        rule = RULES.get(args.rule)
        if rule is None:
            close = [r for r in RULES if args.rule in r]
            hint = f" (did you mean {', '.join(close[:5])}?)" if close else ""
            raise UsageError(f"unknown rule {args.rule!r}{hint}")
        if args.json:
            json.dump(_rule_json(rule), sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            print(f"{rule.id}  ({rule.scope}, {rule.severity.value}{', deep check' if rule.deep else ''})")
            print(f"\n{rule.title}\n\n{rule.explanation}\n\nSource: {rule.source}")
        return EXIT_OK
    if args.json:
        json.dump([_rule_json(r) for r in RULES.values()], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_OK
    width = max(len(r) for r in RULES)
    for rule in RULES.values():
        print(f"{rule.id:<{width}}  {rule.severity.value:<7}  {rule.scope:<10}  {rule.title}")
    print(f"\n{plural(len(RULES), 'rule')}. `sitemap-tui rules ID` explains one.")
    return EXIT_OK


def _rule_json(rule: Any) -> dict[str, Any]:
    return {
        "id": rule.id, "scope": rule.scope, "severity": rule.severity.value, "title": rule.title,
        "explanation": rule.explanation, "source": rule.source, "deep": rule.deep,
    }


# -- the explorer --------------------------------------------------------------------------
def cmd_explore(args: Any) -> int:
    target = _target(args.target)
    from sitemap_tui.tui.app import launch

    if args.db:
        problem = exploration_problem(Path(args.db), must_exist=False)
        if problem:
            raise UsageError(f"--db {display(args.db)}: {problem}")
        _check_explore_db(Path(args.db))
    db = Path(args.db) if args.db else default_db_path(target)
    return launch(target=target, db_path=db, fetch_config=fetch_config(args), options=_options(args))


def _check_explore_db(path: Path) -> None:
    """The explorer writes into --db while you browse: no moment of it is a complete run that
    could replace a saved exploration (as urls, stats and validate do), so it refuses one."""
    from sitemap_tui.engine.storefile import StoreLock, inspect_store

    StoreLock.acquire(path).release()  # in use: say so now, not from inside the explorer
    saved = inspect_store(path)
    if saved is not None and saved.holds_exploration:
        of = f" (of {display(saved.target, 200)})" if saved.target else ""
        raise UsageError(
            f"--db {path} already holds an exploration{of}; the explorer does not replace one: "
            f"reopen it with `sitemap-tui open {path}`, or name another file"
        )


def cmd_open(args: Any) -> int:
    path = Path(args.db)
    problem = exploration_problem(path, must_exist=True)
    if problem:
        raise UsageError(f"{display(args.db)}: {problem}")
    from sitemap_tui.tui.app import launch

    return launch(target=None, db_path=path, fetch_config=None, options=None)


def cmd_demo(args: Any) -> int:
    import errno

    from sitemap_tui.demo.server import DemoServer

    server = DemoServer(port=args.port)
    try:
        server.start()
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(f"--port {args.port} is in use (choose another, or 0 for a free one)") from exc
        raise UsageError(f"--port {args.port}: cannot listen on it ({exc.strerror or exc})") from exc
    try:
        url = f"{server.base_url}/"
        if args.serve:
            print(f"serving the demo site at {url} (Ctrl-C stops)", file=sys.stderr)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                return EXIT_OK
        if args.headless or not sys.stdout.isatty():
            ns = _demo_args(url)
            return cmd_stats(ns)
        ns = _demo_args(url)
        return cmd_explore(ns)
    finally:
        server.stop()


def _demo_args(url: str) -> Any:
    import argparse

    return argparse.Namespace(
        target=url, header=[], user_agent=None, timeout=30.0, concurrency=8, per_host=4,
        max_size=50, no_recursive=False, depth=10, max_files=10_000, probe=False,
        follow_cross_host=False, db=None, json=False,
    )


_ = (EXIT_FINDINGS, Path)

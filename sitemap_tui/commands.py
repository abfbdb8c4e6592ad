"""The headless commands and the launchers of the explorer (one function per command)."""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from sitemap_tui.cli import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UsageError, fetch_config
from sitemap_tui.engine.discover import Target, TargetError
from sitemap_tui.engine.events import EntriesAdded, Event, NodeAdded
from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.model import NodeKind, NodeState
from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store import Store, StoreRun


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
            sys.stderr.write(f"\r\x1b[K{self.files} files, {sum(self.urls.values()):,} URLs")
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
            options=_options(args, output_format=output_format, file_stats=file_stats), checker=checker,
            on_events=progress, on_output=on_output,
        ) as explorer:
            if started is not None:
                started(explorer)
            await explorer.explore(target)
            return explorer

    try:
        return asyncio.run(go())
    finally:
        progress.done()


def _root_unreachable(explorer: Explorer) -> str | None:
    roots = explorer.children.get(None, [])
    if not roots:
        return "nothing to explore"
    root = explorer.nodes[roots[0]]
    if root.state == NodeState.FAILED:
        return f"{display(root.url)}: {display(root.error)}"
    if root.kind == NodeKind.SITE:
        found = [n for n in explorer.nodes.values() if n.kind not in (NodeKind.SITE, NodeKind.ROBOTS)]
        robots = [n for n in explorer.nodes.values() if n.kind == NodeKind.ROBOTS]
        if not found and robots and robots[0].state == NodeState.FAILED:
            return f"{display(root.url)}: site unreachable ({display(robots[0].error)})"
    return None


def _target_answered(explorer: Explorer) -> bool:
    """Whether a run that went to its end may replace what --db held: not when the target never
    answered (a site that is down, a file that is not there), so that a cron job keeps its last
    good exploration; an error page or a file that is no sitemap is an answer, with findings."""
    roots = explorer.children.get(None, [])
    if not roots:
        return False
    root = explorer.nodes[roots[0]]
    return root.state != NodeState.FAILED or root.stats.http_status is not None or root.stats.wire_bytes > 0


def _open_output(path: str | None) -> AbstractContextManager[IO[str]]:
    if path is None:
        return nullcontext(sys.stdout)
    return open(path, "w", encoding="utf-8", newline="")  # noqa: SIM115


# -- urls ----------------------------------------------------------------------------------
def cmd_urls(args: Any) -> int:
    from sitemap_tui.export import CSV_RAW, UrlWriter

    target = _target(args.target)
    fmt = args.format
    if getattr(args, "csv_raw", False):
        if fmt != "csv":
            raise UsageError("--csv-raw only applies to --format csv")
        fmt = CSV_RAW  # cells as they are: no ' before a formula-like cell
    out_path = Path(args.output) if args.output else None
    tmp = None
    if out_path is not None:
        out_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = tempfile.NamedTemporaryFile(  # noqa: SIM115
            "w", encoding="utf-8", newline="", dir=out_path.parent, prefix=f".{out_path.name}.", delete=False
        )
    out = tmp if tmp is not None else sys.stdout
    UrlWriter(out, fmt)  # the CSV header; the rows are formatted where they are parsed
    count = 0
    running: list[Explorer] = []
    closed = False

    def on_output(text: str) -> None:
        nonlocal count, closed
        if closed:
            return
        try:
            out.write(text)
        except BrokenPipeError:
            # the reader went away (| head): stop quietly, it is not the sitemap's fault
            closed = True
            from sitemap_tui.cli import _silence_stdout

            _silence_stdout()
            for ex in running:
                ex.cancel()
            return
        count += text.count("\n")

    db = StoreRun(args.db) if args.db else None
    complete = False
    try:
        explorer = run_exploration(
            args, target, store=db.store if db else None, output_format=fmt, on_output=on_output,
            started=running.append,
        )
        complete = not closed and _target_answered(explorer)
    except BaseException:
        if tmp is not None:
            tmp.close()
            Path(tmp.name).unlink(missing_ok=True)
        raise
    finally:
        if db is not None:
            db.finish(complete)
    if tmp is not None:
        tmp.close()
        Path(tmp.name).replace(out_path)  # type: ignore[arg-type]
    elif closed:
        return EXIT_OK
    else:
        sys.stdout.flush()
    _report_failures(explorer)
    problem = _root_unreachable(explorer)
    if problem and count == 0:
        print(f"sitemap-tui: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


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
        db = StoreRun(args.db)
        return db.store, db.finish
    tmpdir = tempfile.TemporaryDirectory(prefix="sitemap-tui-")
    store = Store(Path(tmpdir.name) / "exploration.db")

    def cleanup(_complete: bool) -> None:
        store.discard()
        tmpdir.cleanup()

    return store, cleanup


def cmd_stats(args: Any) -> int:
    import humanize

    target = _target(args.target)
    # per-file aggregates are kept while streaming, so stats needs no store unless asked
    db = StoreRun(args.db) if args.db else None
    complete = False
    try:
        explorer = run_exploration(args, target, store=db.store if db else None)
        roots = explorer.children.get(None, [])
        tree = [node_json(explorer, r) for r in roots]
        if args.json:
            json.dump({"nodes": tree}, sys.stdout, ensure_ascii=True, indent=2)
            sys.stdout.write("\n")
        else:
            total_urls = 0
            for line, urls in _stats_lines(tree, humanize):
                print(line)
                total_urls += urls
            files = sum(1 for n in explorer.nodes.values() if n.kind not in (NodeKind.SITE, NodeKind.DIRECTORY))
            print(f"\n{files} files, {total_urls:,} URLs")
        problem = _root_unreachable(explorer)
        complete = _target_answered(explorer)
    finally:
        if db is not None:
            db.finish(complete)
    if problem:
        print(f"sitemap-tui: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


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
                parts.append(f"{n['urls']:,} URLs")
            if n["sitemaps_listed"]:
                parts.append(f"{n['sitemaps_listed']:,} sitemaps")
            if n["bytes"]:
                size = humanize.naturalsize(n["bytes"], binary=True)
                if n["gzipped"]:
                    size += f" ({humanize.naturalsize(n['wire_bytes'], binary=True)} gzipped)"
                parts.append(size)
            if n["fetch_time"] is not None:
                parts.append(f"{n['fetch_time']:.2f}s")
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
        async with Explorer(fetch_config=fetch_config(args), options=_options(args)) as explorer:
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
    problem = _root_unreachable(explorer)
    if problem and not any(r.node_id is not None for r in records):
        print(f"sitemap-tui: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


# -- validate ------------------------------------------------------------------------------
def cmd_validate(args: Any) -> int:
    from sitemap_tui.engine.model import Severity
    from sitemap_tui.validate.checker import Checker
    from sitemap_tui.validate.report import Summary, write_report
    from sitemap_tui.validate.rules import select_rules

    target = _target(args.target)
    try:
        enabled = select_rules(_split(args.select), _split(args.ignore), Severity(args.min_severity))
    except (KeyError, ValueError) as exc:
        raise UsageError(f"{exc.args[0]} (see `sitemap-tui rules`)") from exc
    checker = Checker(enabled=enabled, xsd_mode=args.xsd)
    store, finish = _tmp_store(args)
    complete = False
    try:
        # per-file aggregates only matter in a store the user keeps (--db, for `open`)
        explorer = run_exploration(args, target, store=store, checker=checker, file_stats=bool(args.db))
        problem = _root_unreachable(explorer)
        from sitemap_tui.validate.crossfile import run_crossfile

        # the store is closed right after the report: its temporary tables need no DROP
        with store.guarded():  # (its SQL writes to the store's connection directly)
            run_crossfile(store, enabled=enabled, robots=explorer.robots, keep_temp=True)
        if args.deep:
            from sitemap_tui.validate.deep import DeepOptions, run_deep

            sample = None if args.sample == "all" else int(args.sample)
            asyncio.run(run_deep(store, fetch_config(args), DeepOptions(sample=sample, rate=args.rate), enabled=enabled))
        store.commit()
        def selected() -> Iterator[Any]:
            # streamed from the store twice (counts, then the report): millions of issues never
            # sit in memory at once
            return (i for i in store.iter_issues(min_severity=Severity(args.min_severity)) if i.rule in enabled)

        files = sum(1 for n in explorer.nodes.values() if n.kind not in (NodeKind.SITE, NodeKind.DIRECTORY))
        urls = sum(n.stats.url_count for n in explorer.nodes.values())
        summary = Summary.of(selected(), files=files, urls=urls)
        with _open_output(args.output) as out:
            write_report(args.format, selected(), summary, out)
        complete = _target_answered(explorer)
    finally:
        finish(complete)
    if problem:
        print(f"sitemap-tui: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_FINDINGS if summary.errors else EXIT_OK


def _split(value: str | None) -> list[str] | None:
    if not value:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]


# -- rules ---------------------------------------------------------------------------------
def cmd_rules(args: Any) -> int:
    from sitemap_tui.validate.rules import RULES

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
    print(f"\n{len(RULES)} rules. `sitemap-tui rules ID` explains one.")
    return EXIT_OK


def _rule_json(rule: Any) -> dict[str, Any]:
    return {
        "id": rule.id, "scope": rule.scope, "severity": rule.severity.value, "title": rule.title,
        "explanation": rule.explanation, "source": rule.source, "deep": rule.deep,
    }


# -- the explorer --------------------------------------------------------------------------
def cmd_explore(args: Any) -> int:
    target = _target(args.target)
    if args.db:
        _check_explore_db(Path(args.db))
    from sitemap_tui.tui.app import launch

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
    from sitemap_tui.engine.storefile import inspect_store

    path = Path(args.db)
    if not path.is_file():
        raise UsageError(f"no such exploration file: {path}")
    # another program's file, or a newer version's: StoreError, one line, exit 2
    found = inspect_store(path)
    if found is None or not found.holds_exploration:
        raise UsageError(f"{path}: holds no exploration")
    from sitemap_tui.tui.app import launch

    return launch(target=None, db_path=path, fetch_config=None, options=None)


def cmd_demo(args: Any) -> int:
    from sitemap_tui.demo.server import DemoServer

    server = DemoServer(port=args.port)
    server.start()
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

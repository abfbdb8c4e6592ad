"""``sitemap-tui urls``: every URL of the sitemaps, as txt, CSV or JSON Lines, streamed while
the files are parsed (the engine's workers format the rows)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

from sitemap_tui import signals
from sitemap_tui.cli.headless import (
    explore_options,
    kept_store,
    open_result,
    output_path,
    parse_target,
    run_exploration,
)
from sitemap_tui.cli.options import TreeOptions, fetch_options, tree_options
from sitemap_tui.cli.verdict import (
    report_failures,
    report_left_out,
    target_answered,
    target_problem,
)
from sitemap_tui.engine.explorer import Explorer
from sitemap_tui.output import OutputError, silence_stdout
from sitemap_tui.session.exits import EXIT_OK, UsageError
from sitemap_tui.session.fetching import FetchOptions
from sitemap_tui.words import plural


@dataclass(frozen=True, slots=True)
class UrlsOptions:
    target: str
    format: str = "txt"
    csv_raw: bool = False
    output: str | None = None
    keep_non_http: bool = False
    strict: bool = False
    fetch: FetchOptions = field(default_factory=FetchOptions)
    tree: TreeOptions = field(default_factory=TreeOptions)


def options(ns: argparse.Namespace) -> UrlsOptions:
    return UrlsOptions(ns.target, ns.format, ns.csv_raw, ns.output, ns.keep_non_http, ns.strict,
                       fetch_options(ns), tree_options(ns, recursive=not ns.no_recursive))


def cmd_urls(opts: UrlsOptions) -> int:
    from sitemap_tui.engine.formats import CSV_RAW, UrlWriter

    target = parse_target(opts.target)
    fmt = opts.format
    if opts.csv_raw:
        if fmt != "csv":
            raise UsageError("--csv-raw only applies to --format csv")
        fmt = CSV_RAW  # cells as they are: no ' before a formula-like cell
    out_path = output_path(opts.output)
    db = kept_store(opts.tree, target, "urls", checks="none")  # urls judges no rules
    try:
        result = open_result(out_path, opts.output)
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
            silence_stdout()
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
            options = explore_options(opts.tree, output_format=fmt, keep_non_http=opts.keep_non_http)
            options.live_stats = False  # nothing shows a file's statistics while it streams
            explorer = run_exploration(
                opts.fetch, options, target, store=db.store if db else None, on_output=on_output,
                started=running.append, cache=opts.tree.cache,
            )
            signals.check()  # stopped by a signal: not a complete result
            complete = not closed and not failed and target_answered(explorer)
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
    report_failures(explorer)
    if explorer.output_left_out:
        n = explorer.output_left_out
        print(f"sitemap-tui: {plural(n, 'URL')} left out: scheme not http or https"
              " (javascript:, mailto:, file:, ...; --keep-non-http prints them)", file=sys.stderr)
    if problem and count == 0:  # nothing to list: the previous output was kept
        print(f"sitemap-tui: error: {problem.message}", file=sys.stderr)
        return problem.code
    return report_left_out(explorer, opts.strict, EXIT_OK)

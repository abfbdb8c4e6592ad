"""``sitemap-tui urls``: every URL of the sitemaps, as txt, CSV or JSON Lines, streamed while
the files are parsed (the engine's workers format the rows)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

from sitemap_tui import signals
from sitemap_tui.cli.headless import (
    explore_options,
    keeps,
    kept_store,
    not_kept_because,
    open_result,
    output_path,
    parse_target,
    run_exploration,
)
from sitemap_tui.cli.options import TreeOptions, fetch_options, tree_options
from sitemap_tui.cli.verdict import (
    report_failures,
    report_left_out,
    say_kept,
    strict_short,
    target_problem,
)
from sitemap_tui.engine.explorer import Explorer
from sitemap_tui.output import OutputError, silence_stdout, write_utf8
from sitemap_tui.session.exits import EXIT_OK, EXIT_USAGE, UsageError
from sitemap_tui.session.fetching import FetchOptions
from sitemap_tui.words import plural

# a file's rows per batch in a headless run, and the longest wait between two of its batches: 2.5x
# the live view's 2,000 / 0.15 s (measured, docs/scale.md "urls on 2 workers, round 3": 10,000
# rows cut the store's per-batch cost further but added ~50 MiB of entries waiting in a worker)
HEADLESS_BATCH = 5000
HEADLESS_FLUSH_S = 0.5


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
    wrote = False  # any URL written (whether the run listed nothing, not how much)
    running: list[Explorer] = []
    closed = False
    failed: list[OutputError] = []

    def stop() -> None:
        nonlocal closed
        closed = True
        for ex in running:
            ex.cancel()

    def on_output(text: str | bytes) -> None:
        nonlocal wrote
        if closed:
            return
        try:
            if isinstance(text, bytes):
                write_utf8(out, text)
            else:
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
        wrote = True  # (a batch's text holds one URL a line at least: it is sent only then)

    complete = False
    with result:  # no commit: the previous output stays as it was
        try:
            UrlWriter(out, fmt)  # the CSV header; the rows are formatted where they are parsed
            options = explore_options(opts.tree, output_format=fmt, keep_non_http=opts.keep_non_http)
            options.live_stats = False  # nothing shows a file's statistics while it streams
            # nothing shows the rows while they stream either: fewer, larger batches cost the
            # store's process less per URL (a commit, the node's row, the message, per batch)
            options.batch_size, options.flush_interval = HEADLESS_BATCH, HEADLESS_FLUSH_S
            explorer = run_exploration(
                opts.fetch, options, target, store=db.store if db else None, on_output=on_output,
                started=running.append, cache=opts.tree.cache,
            )
            signals.check()  # stopped by a signal: not a complete result
            complete = not closed and not failed and keeps(db, explorer)
        finally:
            if closed and not failed:  # (a failed output says its own error: a full disk is no | head)
                not_kept_because(db, "its output's reader stopped reading before the end, as | head does")
            if db is not None:
                db.finish(complete)
        if failed:
            raise failed[0]
        if closed:
            return EXIT_OK
        problem = target_problem(explorer)
        # lines were written: a target that is no usable sitemap still listed them, but a run
        # that failed inside sitemap-tui (2) is incomplete and replaces nothing
        short = opts.strict and strict_short(explorer)  # not every URL: exit 1, FILE kept
        listed = problem is None or (wrote and problem.code != EXIT_USAGE)
        if listed and not short:
            result.commit()
    report_failures(explorer, problem if problem and not wrote else None)
    if explorer.output_left_out:
        n = explorer.output_left_out
        print(f"sitemap-tui: {plural(n, 'URL')} left out: scheme not http or https"
              " (javascript:, mailto:, file:, ...; --keep-non-http prints them)", file=sys.stderr)
    if short and listed:
        say_kept([(out_path, opts.output)])
    # (before a failed target's error too: a child on another host, left out, may hold the URLs)
    ended = problem is not None and (not wrote or problem.code == EXIT_USAGE)
    code = report_left_out(explorer, opts.strict, EXIT_OK, said=problem.message if ended and problem else None)
    if problem and ended:  # the previous output was kept
        print(f"sitemap-tui: error: {problem.message}", file=sys.stderr)
        return problem.code
    return code

"""``sitemap-tui validate``: the sitemaps checked against the rule catalogue, reported as text,
JSON, SARIF or GitHub annotations; the exit code says whether a finding reached --fail-on."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sitemap_tui import signals
from sitemap_tui.cli.headless import (
    explore_options,
    open_result,
    output_path,
    parse_target,
    run_exploration,
    run_store,
)
from sitemap_tui.cli.options import TreeOptions, fetch_options, tree_options
from sitemap_tui.cli.verdict import (
    files_read,
    report_left_out,
    run_notes,
    target_answered,
    target_problem,
)
from sitemap_tui.session.exits import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UsageError
from sitemap_tui.session.fetching import FetchOptions, fetch_config
from sitemap_tui.session.validation import Validation


@dataclass(frozen=True, slots=True)
class ValidateOptions:
    target: str
    format: str = "text"
    output: str | None = None
    select: str | None = None
    ignore: str | None = None
    min_severity: str = "info"
    fail_on: str = "error"
    robots_checks: bool = True
    xsd: str = "lax"
    deep: bool = False
    sample: int | None = 100
    rate: float = 5.0
    strict: bool = False
    fetch: FetchOptions = field(default_factory=FetchOptions)
    tree: TreeOptions = field(default_factory=TreeOptions)


def options(ns: argparse.Namespace) -> ValidateOptions:
    return ValidateOptions(
        ns.target, ns.format, ns.output, ns.select, ns.ignore, ns.min_severity, ns.fail_on,
        not ns.no_robots_checks, ns.xsd, ns.deep, ns.sample, ns.rate, ns.strict,
        fetch_options(ns), tree_options(ns, recursive=not ns.no_recursive))


def cmd_validate(opts: ValidateOptions) -> int:
    from sitemap_tui.engine.model import Severity
    from sitemap_tui.validate.report import Summary, write_report

    target = parse_target(opts.target)
    fail_on = opts.fail_on
    if fail_on != "never" and Severity(fail_on).rank < Severity(opts.min_severity).rank:
        raise UsageError(
            f"--fail-on {fail_on} cannot fail: --min-severity {opts.min_severity} leaves "
            f"{fail_on} findings out of the report (lower --min-severity or raise --fail-on)")
    validation = Validation.selected(_split(opts.select), _split(opts.ignore), Severity(opts.min_severity),
                                     xsd_mode=opts.xsd)
    enabled = validation.enabled
    checker = validation.checker()
    out_path = output_path(opts.output)
    # as diff judges a fresh exploration (every rule, the defaults): else its findings differ by choice
    everything = (not (opts.select or opts.ignore) and opts.min_severity == "info" and opts.xsd == "lax"
                  and opts.robots_checks)
    store, finish, kept = run_store(opts.tree, target, "validate", "all" if everything else "selected")
    complete = False
    try:
        # per-file aggregates only matter in a store that is kept (--db or the history, for `open`)
        options = explore_options(opts.tree, robots_checks=opts.robots_checks, file_stats=kept)
        explorer = run_exploration(opts.fetch, options, target, store=store, checker=checker,
                                   validation=validation, cache=opts.tree.cache,
                                   checks="all" if everything else "selected")
        problem = target_problem(explorer)
        # the store is closed right after the report: its temporary tables need no DROP
        validation.crossfile(store, robots=explorer.checked_robots(), keep_temp=True)
        if opts.deep:
            from sitemap_tui.validate.deep import DeepOptions

            asyncio.run(validation.deep(store, fetch_config(opts.fetch), DeepOptions(sample=opts.sample, rate=opts.rate)))
        store.commit()
        def selected() -> Iterator[Any]:
            # streamed from the store twice (counts, then the report): millions of issues never
            # sit in memory at once
            return (i for i in store.iter_issues(min_severity=Severity(opts.min_severity))
                    if enabled is None or i.rule in enabled)

        files = files_read(explorer)
        urls = sum(n.stats.url_count for n in explorer.nodes.values())
        summary = Summary.of(selected(), files=files, urls=urls, notes=run_notes(explorer))
        signals.check()  # stopped by a signal: no report, the previous one stays
        with open_result(out_path, opts.output) as report:
            write_report(opts.format, selected(), summary, report.file)
            if not (problem and problem.code == EXIT_USAGE):  # exit 2 keeps the previous output
                report.commit()
        complete = target_answered(explorer)
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
    return report_left_out(explorer, opts.strict, EXIT_FINDINGS if failing else EXIT_OK)


def _split(value: str | None) -> list[str] | None:
    if not value:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]

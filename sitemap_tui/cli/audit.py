"""``sitemap-tui audit``: explore TARGET as validate does, then fetch every listed URL (or a sample
per sitemap) and say, per URL, its status and whether it is indexable (engine/audit.py). The
results stay in the exploration's store, so a stopped audit goes on where it stopped when run
again (session/audit.py); ``--recheck`` starts over."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sitemap_tui.cli import coverage_report, failif
from sitemap_tui.cli.audit_report import (
    SUMMARY_KEYS,
    access_counts,
    write_access,
    write_csv,
    write_jsonl,
    write_text,
)
from sitemap_tui.cli.headless import (
    explore_options,
    kept_store,
    open_result,
    output_path,
    parse_target,
    reader_may_leave,
    run_exploration,
)
from sitemap_tui.cli.options import TreeOptions, fetch_options, time_left, tree_options
from sitemap_tui.cli.verdict import (
    report_failures,
    report_left_out,
    target_answered,
    target_problem,
)
from sitemap_tui.engine.sanitize import display
from sitemap_tui.session.exits import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UsageError
from sitemap_tui.session.fetching import FetchOptions, fetch_config
from sitemap_tui.words import plural

if TYPE_CHECKING:
    from sitemap_tui.engine.coverage import CoverageOptions


@dataclass(frozen=True, slots=True)
class AuditCommand:
    target: str
    format: str = "text"
    output: str | None = None
    sample: int | None = None
    rate: float = 5.0
    ignore_robots: bool = False
    recheck: bool = False
    fail_if: tuple[str, ...] = ()
    samples: int = 5
    compare_list: str | None = None
    crawl: int | None = None
    fetch: FetchOptions = field(default_factory=FetchOptions)
    tree: TreeOptions = field(default_factory=TreeOptions)


def options(ns: argparse.Namespace) -> AuditCommand:
    return AuditCommand(
        ns.target, ns.format, ns.output, ns.sample, ns.rate, ns.ignore_robots, ns.recheck,
        tuple(ns.fail_if), ns.samples, ns.compare_list, ns.crawl, fetch_options(ns),
        tree_options(ns, recursive=not ns.no_recursive))


def _note(text: str) -> None:
    print(f"sitemap-tui: {display(text)}", file=sys.stderr)


class _Progress:
    """URLs stored so far, on one stderr line, only when stderr is a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()

    def __call__(self, done: int) -> None:
        if self.enabled:
            sys.stderr.write(f"\r\x1b[Kaudit: {done} URLs")
            sys.stderr.flush()

    def done(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _coverage(opts: AuditCommand, conditions: list[failif.Condition]) -> CoverageOptions | None:
    """The list (read and said now: a bad file fails before any fetch) and the crawl asked for;
    a --fail-if over a part that does not run is a usage error, not a silent 0."""
    from sitemap_tui.engine.coverage import CoverageOptions
    from sitemap_tui.session.compare_list import read_url_list

    needs = {"orphans": ("--crawl", opts.crawl), "not_in_list": ("--compare-list", opts.compare_list),
             "missing_from_sitemaps": ("--compare-list or --crawl", opts.compare_list or opts.crawl)}
    for c in conditions:
        if c.name in needs and needs[c.name][1] is None:
            raise UsageError(f"--fail-if {c.text!r}: {c.name} is counted only with {needs[c.name][0]}")
    if opts.compare_list is None and opts.crawl is None:
        return None
    urls = None
    if opts.compare_list is not None:
        found = read_url_list(opts.compare_list)
        how = f"its column {found.column!r}" if found.column else "one URL per line"
        _note(f"--compare-list {opts.compare_list}: {len(found.urls)} URLs read ({how})"
              + (f"; {found.rejected} value(s) that are no http(s) URL skipped" if found.rejected else "")
              + (f"; {found.repeated} repeated" if found.repeated else ""))
        urls = found.urls
    return CoverageOptions(urls, opts.sample, opts.crawl)


def cmd_audit(opts: AuditCommand) -> int:
    from sitemap_tui.engine.audit import AuditOptions
    from sitemap_tui.engine.store.audit import (
        audit_counts,
        audit_records,
        audited,
        group_samples,
        unfetchable,
    )
    from sitemap_tui.session.audit import AuditStore, continued_audit, run_audit

    started = time.monotonic()  # the run's time budget (--max-time) counts from here
    target = parse_target(opts.target)
    conditions = failif.parse_all(opts.fail_if, SUMMARY_KEYS, example="non_indexable")
    coverage = _coverage(opts, conditions)
    out_path = output_path(opts.output)
    config = fetch_config(opts.fetch)
    audit_options = AuditOptions(
        sample=opts.sample, rate=opts.rate, concurrency=opts.fetch.concurrency, timeout=opts.fetch.timeout,
        ignore_robots=opts.ignore_robots, follow_cross_host=opts.tree.follow_cross_host)
    path = None if opts.recheck else continued_audit(target, opts.tree.db, opts.tree.history)
    temp = None  # (store, cleanup) of a --no-history run: audited before it is removed
    place: AuditStore | None = None
    if path is not None:
        place = AuditStore(path)
        _note(f"continuing the unfinished audit in {path}: {audited(place.store)} URLs already done "
              "(--recheck starts over)")
    else:
        kept = kept_store(opts.tree, target, "audit", "none")
        if kept is None:
            from sitemap_tui.cli.headless import run_store

            store, cleanup, _ = run_store(opts.tree, target, "audit", "none")
            temp = (store, cleanup)
        else:
            store = kept.store
        complete = False
        try:
            explorer = run_exploration(opts.fetch, explore_options(opts.tree, file_stats=kept is not None),
                                       target, store=store)
            problem = target_problem(explorer)
            report_failures(explorer, problem)
            # the files left out: their URLs are not audited (said, as by urls; before a failed
            # target's error too: a child left out on another host may be where the URLs are)
            report_left_out(explorer, False, EXIT_OK, rule_notes=False,
                            said=problem.message if problem is not None else None)
            complete = problem is None and target_answered(explorer)
        finally:
            if kept is not None:
                kept.finish(complete)
            elif not complete and temp is not None:
                temp[1](False)
        if problem is not None or not complete:
            print(f"sitemap-tui: error: {problem.message if problem else 'the target did not answer'}",
                  file=sys.stderr)
            return problem.code if problem is not None else EXIT_USAGE
        place = AuditStore(kept.path) if kept is not None else None
    store = place.store if place is not None else temp[0]  # type: ignore[index]
    progress = _Progress()
    try:
        try:
            finished = run_audit(store, config, audit_options, on_note=_note, on_progress=progress, coverage=coverage,
                                 time_left=time_left(opts.tree, started))
        finally:
            progress.done()
        if not finished:
            # kept partial: the next run goes on from here, unless nothing keeps it (--no-history)
            again = ("running the same command again goes on where it stopped" if place is not None
                     else "with --no-history nothing keeps it: a new run starts over")
            _note(f"the run's time budget of {opts.tree.max_time:g} s ran out (--max-time) before every URL was "
                  f"fetched: {audited(store):,} audited; {again}")
        counts = audit_counts(store)
        if counts["unfetchable"]:
            first = unfetchable(store)[1] or ""
            _note(f"{plural(counts['unfetchable'], 'listed URL')} not fetched: no fetchable http(s) URL (a space,"
                  f" a malformed host, another scheme; validate names each), first {display(first, 200)}")
        if opts.format != "text" and counts["not_audited"] > counts["unfetchable"]:
            # the text report says it; a record per URL audited does not (found from outside:
            # --sample 5 --format jsonl wrote 5 records, the 90 others unsaid)
            left = counts["not_audited"] - counts["unfetchable"]
            _note(f"{plural(left, 'listed URL')} of {counts['listed']:,} not audited (sampled out, on other hosts,"
                  " robots.txt shutting this tool out alone, or the run was stopped): no record for them")
        listed, crawl = opts.compare_list is not None, opts.crawl is not None
        counts.update(coverage_report.counts(store, listed=listed, crawl=crawl))
        if not finished and crawl and counts["crawl_queued"]:
            # (the crawl's own notes are said when it ends, not when the budget cuts it: found from
            # outside, "6 audited" alone while the crawl had read 64 of the pages it found)
            _note(f"--crawl: the time budget stopped it after {counts['crawled']:,} pages; "
                  f"{counts['crawl_queued']:,} linked page(s) found were not crawled, so orphans mean "
                  f"'not linked from the {counts['crawled']:,} crawled pages'")
        with reader_may_leave(), open_result(out_path, opts.output) as result:
            if coverage is not None and opts.format != "text":
                # no page crawled (robots.txt disallows the home page): no orphan can be judged
                coverage_report.write(opts.format, store, listed=listed, crawl=crawl and counts["crawled"] > 0,
                                      out=result.file)
            elif opts.format == "jsonl":
                write_jsonl(audit_records(store), result.file)
            elif opts.format == "csv":
                write_csv(audit_records(store), result.file)
            else:
                write_text(target.raw, counts, group_samples(store, opts.samples), result.file)
                if coverage is not None:
                    coverage_report.write_text(store, counts, opts.samples, listed=listed, crawl=crawl,
                                               crawl_cap=opts.crawl, out=result.file)
                access = access_counts(store.path)
                if access is None:
                    _note("crawler access: no robots.txt was read for the listed URLs' hosts (none answered"
                          " one): no crawler table")
                else:
                    write_access(access, result.file, counts["listed"])
            result.commit()
    finally:
        if place is not None:
            place.close()
        if temp is not None:
            temp[1](False)
    failing = failif.met(conditions, counts)
    for condition in failing:
        print(f"sitemap-tui: {condition.describe(counts)}", file=sys.stderr)
    return EXIT_FINDINGS if failing else EXIT_OK

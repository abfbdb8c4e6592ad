"""``sitemap-tui validate``: the sitemaps checked against the rule catalogue, reported as text,
JSON, SARIF or GitHub annotations; the exit code says whether a finding reached --fail-on."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from sitemap_tui import signals
from sitemap_tui.cli.headless import (
    explore_options,
    keeps,
    open_kept,
    open_result,
    output_path,
    parse_target,
    reader_may_leave,
    run_exploration,
    run_store,
)
from sitemap_tui.cli.options import (
    TreeOptions,
    fetch_options,
    map_each_target,
    map_targets,
    time_left,
    tree_options,
)
from sitemap_tui.cli.verdict import (
    files_read,
    report_left_out,
    report_redirects,
    run_notes,
    say_kept,
    strict_short,
    target_problem,
)
from sitemap_tui.engine.sanitize import display
from sitemap_tui.session.exits import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UsageError
from sitemap_tui.session.fetching import FetchOptions, fetch_config
from sitemap_tui.session.validation import Validation
from sitemap_tui.validate.baseline import identity, portable

if TYPE_CHECKING:
    from sitemap_tui.engine.model import Severity
    from sitemap_tui.output import Output
    from sitemap_tui.validate.baseline import Baseline
    from sitemap_tui.validate.report import Summary


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
    summary: bool | None = None  # None: on for a terminal when the findings exceed a screenful
    summary_urls: int = 3
    baseline: str | None = None
    write_baseline: str | None = None
    severity: tuple[tuple[str, str], ...] = ()  # per-rule overrides (the project config's)
    # --map's "URL=DIR" (the project config's unless the command line names some); read by the
    # local-build mapping (issue 21 section 1)
    map: tuple[str, ...] = ()
    show_config: tuple[str, ...] | None = None  # --show-config: the lines it prints
    more_targets: tuple[str, ...] = ()  # checked after ``target``, each on its own
    # where a baseline's local files are named from: the project config's folder, else the
    # working directory (so a baseline the config names matches from any folder of the project)
    root: str | None = None
    ignore_robots: bool = False  # --deep fetches what robots.txt disallows for us
    # several TARGETs with no --map: each one's own implied map (the site its folder names), in order
    target_maps: tuple[tuple[str, ...], ...] = ()
    target_also: tuple[tuple[str, ...], ...] = ()  # ... and its folder's files nothing lists (TreeOptions.also)


def options(ns: argparse.Namespace) -> ValidateOptions:
    from sitemap_tui.cli.validate_config import merge

    merged = merge(ns)
    target_maps: tuple[tuple[str, ...], ...] = ()
    target_also: tuple[tuple[str, ...], ...] = ()
    if not ns.map and not ns.show_config:  # (a --map of the command line was applied already)
        if merged.map:  # the project config's map: as if given with --map
            ns.map = list(merged.map)
            map_targets(ns)
        if merged.map or len(ns.target or []) > 1:
            # each TARGET the config's map does not cover read as the site its own folder names,
            # as if given alone (found from outside: two builds of one site, or a staging build
            # beside the mapped one, were read as files, unsaid, and a URL on another host passed)
            each = map_each_target(ns)
            ns.target = [t for t, _, _ in each]
            target_also = tuple(also for _, _, also in each)
            ns.also = list(target_also[0]) if target_also else []
            target_maps = tuple(m or tuple(merged.map) for _, m, _ in each)
            ns.map = list(target_maps[0]) if target_maps else ns.map
        else:
            map_targets(ns, imply=True)
    elif len(ns.target or []) > 1:  # several TARGETs under the command line's --map: each its folder's
        by_map = getattr(ns, "also_by_target", None) or {}
        target_also = tuple(tuple(by_map.get(t, ())) for t in ns.target)
    targets = list(ns.target or [])
    ns.target = targets[0] if targets else None  # the -H headers' origin (fetch_options) is the first's
    fetch = fetch_options(ns)
    if merged.headers:
        fetch = replace(fetch, header=merged.headers)
    if merged.proxy:
        fetch = replace(fetch, proxy=merged.proxy)
    given_sample = hasattr(ns, "sample")  # (no default: 'all' is None, as audit's)
    if not ns.deep and (given_sample or ns.rate is not None or ns.ignore_robots):  # accepted, so said
        print("sitemap-tui: --sample, --rate and --ignore-robots apply to --deep only: not used", file=sys.stderr)
    return ValidateOptions(
        ns.target or "", ns.format, ns.output, merged.select, merged.ignore, ns.min_severity, merged.fail_on,
        not ns.no_robots_checks, ns.xsd, ns.deep, ns.sample if given_sample else 100,
        5.0 if ns.rate is None else ns.rate, ns.strict,
        fetch, tree_options(ns, recursive=not ns.no_recursive),
        ns.summary, ns.summary_urls, merged.baseline, ns.write_baseline, merged.severity, merged.map,
        merged.shown if ns.show_config else None, tuple(targets[1:]), merged.root, ns.ignore_robots,
        target_maps, target_also)


def cmd_validate(opts: ValidateOptions) -> int:
    if opts.show_config is not None:
        print("\n".join(opts.show_config))
        return EXIT_OK
    if not opts.target:
        raise UsageError("validate needs a TARGET (a site, a sitemap or robots.txt URL, or a local path)")
    if not opts.more_targets:
        return _validate(opts)
    for option, value in (("--output", opts.output), ("--write-baseline", opts.write_baseline),
                          ("--db", opts.tree.db)):
        if value is not None:
            raise UsageError(f"{option} takes one TARGET's result; {1 + len(opts.more_targets)} TARGETs given")
    if opts.format in ("json", "sarif"):
        # one document per TARGET, one after the other, is no JSON document at all
        raise UsageError(f"--format {opts.format} writes one TARGET's report; {1 + len(opts.more_targets)} "
                         "TARGETs given (run once per TARGET, or --format text or github)")
    # what every TARGET would refuse alike is said once, before any (found from outside: a
    # --select typo or a missing --baseline was one error line per TARGET, notes after them)
    from sitemap_tui.engine.model import Severity

    Validation.selected(_split(opts.select), _split(opts.ignore), Severity("info"))
    _baseline(opts.baseline, _root(opts), opts.fetch.maps)
    if opts.summary and opts.format != "text":
        raise UsageError(f"--summary is a text report; --format {opts.format} lists every finding")
    codes = []
    for i, target in enumerate((opts.target, *opts.more_targets)):
        # each with its own -H origin, --max-time and implied map, as if run alone; a target that
        # cannot be read does not stop the others (a pre-commit hook reports every file), and its
        # exit 2 wins
        maps = opts.target_maps[i] if opts.target_maps else opts.fetch.maps
        one = replace(opts, target=target, more_targets=(), fetch=replace(opts.fetch, target=target, maps=maps))
        if opts.target_also:
            one = replace(one, tree=replace(one.tree, also=opts.target_also[i]))
        try:
            codes.append(_validate(one))
        except UsageError as exc:
            print(f"sitemap-tui: error: {exc}", file=sys.stderr)
            codes.append(EXIT_USAGE)
    return EXIT_USAGE if EXIT_USAGE in codes else max(codes)


def _validate(opts: ValidateOptions) -> int:
    from sitemap_tui.engine.model import Severity
    from sitemap_tui.validate.report import ERROR_NOTE, Summary

    if opts.summary and opts.format != "text":
        raise UsageError(f"--summary is a text report; --format {opts.format} lists every finding")
    started = time.monotonic()  # the run's time budget (--max-time) counts from here
    target = parse_target(opts.target)
    fail_on = opts.fail_on
    if fail_on != "never" and Severity(fail_on).rank < Severity(opts.min_severity).rank:
        # (refused as "cannot fail", which it can: a project config's fail-on = "warning" kept
        # its user from a --min-severity error run that fails on its errors)
        print(f"sitemap-tui: --min-severity {opts.min_severity} leaves {fail_on} findings out of the report: "
              f"the run fails on any finding it reports (--fail-on {fail_on})", file=sys.stderr)
    baseline = _baseline(opts.baseline, _root(opts), opts.fetch.maps)
    overrides = dict(opts.severity)
    floor = Severity(opts.min_severity)
    # an override may raise a rule above --min-severity: every rule runs, the floor applies below
    validation = Validation.selected(_split(opts.select), _split(opts.ignore),
                                     Severity("info") if overrides else floor, xsd_mode=opts.xsd)
    enabled = validation.enabled
    checker = validation.checker()
    out_path = output_path(opts.output)
    write_path = _baseline_path(opts.write_baseline)
    # as diff judges a fresh exploration (every rule, the defaults): else its findings differ by choice
    everything = (not (opts.select or opts.ignore) and opts.min_severity == "info" and opts.xsd == "lax"
                  and opts.robots_checks)
    store, finish, kept = run_store(opts.tree, target, "validate", "all" if everything else "selected")
    complete = False
    deep_cut = False  # the time budget ended the deep checks before every sampled URL was checked
    deep_notes: list[str] = []  # what the deep checks left out (robots.txt): stderr and the summary
    try:
        # per-file aggregates only matter in a store that is kept (--db or the history, for `open`)
        options = explore_options(opts.tree, robots_checks=opts.robots_checks, file_stats=kept is not None)
        explorer = run_exploration(opts.fetch, options, target, store=store, checker=checker,
                                   validation=validation, cache=opts.tree.cache,
                                   checks="all" if everything else "selected")
        problem = target_problem(explorer)
        # the store is closed right after the report: its temporary tables need no DROP
        said = len(explorer.previous.notes) if explorer.previous is not None else 0
        # with parser workers, a large set's cross-file rules are split across as many processes
        validation.crossfile(store, robots=explorer.checked_robots(), keep_temp=True, previous=explorer.previous,
                             parts=explorer.options.workers, on_note=_note)
        for note in explorer.previous.notes[said:] if explorer.previous is not None else ():
            print(f"sitemap-tui: {display(note)}", file=sys.stderr)
        if explorer.previous is not None and explorer.previous.crossfile_carried is not None:
            print("sitemap-tui: the cross-file findings are the previous exploration's too (the same files,"
                  " robots.txt and day)", file=sys.stderr)
        if opts.deep:
            from sitemap_tui.validate.deep import DeepOptions

            # --timeout and --concurrency bound the pages too, as an audit's
            deep = DeepOptions(sample=opts.sample, rate=opts.rate, ignore_robots=opts.ignore_robots,
                               timeout=opts.fetch.timeout, concurrency=opts.fetch.concurrency)
            def deep_note(text: str) -> None:  # at once (a Crawl-delay wait follows it), and in the summary
                deep_notes.append(text)
                _note(text)

            left = time_left(opts.tree, started)
            cut = asyncio.run(_deep_within(validation, store, fetch_config(opts.fetch), deep, deep_note, left))
            if cut is not None:
                # said like the exploration's own cut, and --strict's: not every sampled page was checked
                done, total = cut
                # (a URL counts once all its checks are done: one whose page answered may not be)
                where = (f"with {done:,} of {total:,} sampled URLs checked" if done
                         else "before the checks of any sampled URL were done")
                deep_note(f"the deep checks stopped {where}: the run's time budget of {opts.tree.max_time:g} s "
                          "ran out (--max-time)")
                deep_cut = True
        store.commit()
        def shown(rule: str, severity: str) -> str | None:
            """The severity a finding is reported with, or None when it is left out (a rule not
            selected, or below the floor once the overrides applied)."""
            if enabled is not None and rule not in enabled:
                return None
            if rule in overrides:
                severity = overrides[rule]
            elif not overrides:
                return severity  # the store's query applied the floor already
            return severity if Severity(severity).rank >= floor.rank else None

        def selected() -> Iterator[Any]:
            # streamed from the store (the report, the baseline): millions of issues never sit
            # in memory at once
            rows = store.iter_issues(min_severity=None if overrides else floor)
            for i in rows:
                severity = shown(i.rule, i.severity)
                if severity is None:
                    continue
                yield i if severity == i.severity else replace(i, severity=severity)

        files = files_read(explorer)
        urls = sum(n.stats.url_count for n in explorer.nodes.values())
        counted = _Counted(selected(), baseline, _root(opts))
        # what the exploration left out goes in the report too, not on stderr alone (found from
        # outside: a run cut by --max-files read as whole in its JSON, "notes": [])
        notes = (run_notes(explorer) + [display(o.text) for o in explorer.left_out()]
                 + [display(n) for n in deep_notes])
        if problem is not None and problem.code == EXIT_USAGE:  # (exit 2: a report of nothing, said why)
            # (in the report itself: "no output was replaced" is said of the files it replaces)
            notes.append(ERROR_NOTE + display(problem.message.removesuffix(": no output was replaced")))
        if baseline is None:
            # counted per (rule, severity) in the store: the report reads the issues once
            summary = _summary(store.rule_counts(), shown, floor if not overrides else None,
                               files=files, urls=urls, notes=notes)
        else:  # which findings the baseline knows is only known issue by issue
            summary = Summary.of(counted, files=files, urls=urls, notes=notes)
        signals.check()  # stopped by a signal: no report, the previous one stays
        # the exploration is whole before its report is written: an output that cannot be written
        # (a full disk) is that output's error, said once, and the run is kept
        complete = keeps(kept, explorer)
        failed = problem is not None and problem.code == EXIT_USAGE  # exit 2 keeps the previous output
        short = opts.strict and (deep_cut or strict_short(explorer))  # exit 1 with --strict keeps it too
        with reader_may_leave() as reader_left, contextlib.ExitStack() as outputs:
            # the baseline's file first: a folder that cannot be made fails the run before the
            # report is written, and neither replaces its previous file unless both were written
            base_out = None if write_path is None else outputs.enter_context(
                open_kept(write_path, f"--write-baseline {display(opts.write_baseline or '')}"))
            report = outputs.enter_context(open_result(out_path, opts.output))
            _write(opts, report.file, selected, summary, baseline, summary.errors + summary.warnings + summary.info)
            written = None if base_out is None else _write_baseline(base_out, selected, files, urls, _root(opts))
            if not failed and not short:
                for output in (report, base_out):  # both written before either replaces its file
                    if output is not None:
                        output.ready()
                report.commit()
                if base_out is not None:
                    base_out.commit()
                    print(f"sitemap-tui: wrote a baseline of {written:,} findings to"
                          f" {display(opts.write_baseline or '')}", file=sys.stderr)
        if reader_left[0] and write_path is not None:
            print(f"sitemap-tui: the report's reader left before its end: the baseline"
                  f" {display(opts.write_baseline or '')} was not written", file=sys.stderr)
    finally:
        finish(complete)
    if problem and problem.code == EXIT_USAGE:
        print(f"sitemap-tui: error: {problem.message}", file=sys.stderr)
        return EXIT_USAGE
    if short:
        say_kept([(out_path, opts.output), (write_path, opts.write_baseline)])
    if baseline is not None:
        known = f"{counted.suppressed:,} known finding{'' if counted.suppressed == 1 else 's'}"
        print(f"sitemap-tui: baseline {display(baseline.path)}: {known} not reported, {counted.new:,} new",
              file=sys.stderr)
    # a target that answered but is broken is reported as its findings (file-is-html, ...),
    # which fail the run like any other at or above the fail level; with a baseline, the new ones
    failing = {
        "error": summary.errors,
        "warning": summary.errors + summary.warnings,
        "info": summary.errors + summary.warnings + summary.info,
        "never": 0,
    }[fail_on]
    # a file read from another host: its fetch-redirected finding is in the report, but not that
    # the -H headers stayed behind (found from outside: urls, stats, access and audit say both)
    report_redirects(explorer)
    code = report_left_out(explorer, opts.strict, EXIT_FINDINGS if failing else EXIT_OK)
    return EXIT_FINDINGS if deep_cut and opts.strict else code


async def _deep_within(validation: Validation, store: Any, config: Any, deep: Any, on_note: Callable[[str], None],
                       left: float | None) -> tuple[int, int] | None:
    """``validate --deep``'s checks within what is ``left`` of the run's budget (None: no
    budget); (checked, sampled) when the budget ended them, None when they all ran. The
    sampled pages are fetched at --rate per host: 100 per sitemap of a 1,000-file set takes
    hours, and a site's slow pages each up to --timeout."""
    stop = asyncio.Event()
    progress = (0, 0)

    def seen(done: int, total: int) -> None:
        nonlocal progress
        progress = (done, total)

    timer = None if left is None else asyncio.get_running_loop().call_later(left, stop.set)
    try:
        await validation.deep(store, config, deep, cancel_event=stop, on_progress=seen, on_note=on_note)
    finally:
        if timer is not None:
            timer.cancel()
    return progress if stop.is_set() else None


def _summary(counts: Iterable[tuple[str, str, int]], shown: Callable[[str, str], str | None],
             floor: Severity | None, *, files: int, urls: int, notes: Iterable[str]) -> Summary:
    """``Summary.of`` over the findings ``selected()`` yields, from the store's counts per
    (rule, severity) (``floor``: the store query's --min-severity, None when it read them all)."""
    from sitemap_tui.engine.model import Severity
    from sitemap_tui.validate.report import Summary

    allowed = None if floor is None else {s.value for s in Severity if s.rank >= floor.rank}
    by: dict[str, int] = {"error": 0, "warning": 0, "info": 0}
    for rule, severity, n in counts:
        if allowed is not None and severity not in allowed:
            continue
        got = shown(rule, severity)
        if got is not None and str(got) in by:
            by[str(got)] += n
    return Summary(files=files, urls=urls, errors=by["error"], warnings=by["warning"], info=by["info"],
                   notes=tuple(notes))


class _Counted:
    """The findings a report lists (with a baseline: the new ones), counting the others."""

    def __init__(self, issues: Iterable[Any], baseline: Baseline | None, base: Path) -> None:
        self._base = base
        self._issues = issues
        self._baseline = baseline
        self.new = 0
        self.suppressed = 0

    def __iter__(self) -> Iterator[Any]:
        if self._baseline is None:
            yield from self._issues
            return
        matcher = self._baseline.matcher()
        base = self._base
        for issue in self._issues:
            weight = issue.weight  # (counted as the findings each stands for: a cap's summary, many)
            known = matcher.known(identity(issue, base, self._baseline.locate), weight)
            self.suppressed += known
            if known == weight:
                continue
            self.new += weight - known
            yield issue if not known else replace(issue, weight=weight - known)


def _root(opts: ValidateOptions) -> Path:
    return Path(opts.root) if opts.root else Path.cwd()


def _baseline(raw: str | None, base: Path, maps: tuple[str, ...]) -> Baseline | None:
    if raw is None:
        return None
    from sitemap_tui.validate.baseline import BaselineError, load
    from sitemap_tui.validate.report import locator

    try:
        return load(raw, base, locator(maps))
    except BaselineError as exc:
        raise UsageError(str(exc)) from None


def _baseline_path(raw: str | None) -> Path | None:
    """Where --write-baseline writes, checked before any work (as --output's)."""
    return output_path(raw, "--write-baseline")


def _write(opts: ValidateOptions, out: IO[str], selected: Callable[[], Iterator[Any]], summary: Any,
           baseline: Baseline | None, total: int) -> None:
    from sitemap_tui.validate.report import write_report, write_rule_summary

    if opts.format == "sarif" and baseline is not None:
        # SARIF keeps the known findings too, each with its baselineState, and the gone ones
        matcher = baseline.matcher()
        base = _root(opts)
        write_report("sarif", selected(), summary, out,
                     baseline_state=lambda i: "unchanged" if matcher.known(identity(i, base, baseline.locate),
                                                                           i.weight) == i.weight else "new",
                     absent=matcher.absent, maps=opts.fetch.maps, base_dir=_annotation_base("sarif"))
        return
    issues = _Counted(selected(), baseline, _root(opts))
    if _summary_wanted(opts, total):
        write_rule_summary(issues, summary, out, urls=opts.summary_urls)
    else:
        write_report(opts.format, issues, summary, out, maps=opts.fetch.maps, base_dir=_annotation_base(opts.format))


def _annotation_base(fmt: str) -> Path | None:
    """Where `--format github` and `sarif` make their paths relative to: on a GitHub runner,
    the repository's root (GITHUB_WORKSPACE), as the runner reads a relative `file=` and code
    scanning a relative URI, ignoring SARIF's %SRCROOT% (a job run with `working-directory:
    site` annotated `public/...` for `site/public/...`); else, as every other report, the
    working directory (None)."""
    workspace = os.environ.get("GITHUB_WORKSPACE") if fmt in ("github", "sarif") else None
    # resolved: a symlinked workspace made paths ../ws-real/site/... (relative to the link)
    return Path(workspace).resolve() if workspace and Path(workspace).is_dir() else None


def _summary_wanted(opts: ValidateOptions, total: int) -> bool:
    if opts.summary is not None:
        return opts.summary
    if opts.format != "text" or opts.output is not None or not sys.stdout.isatty():
        return False
    # a screenful: the summary line and the notes take lines too
    return total > shutil.get_terminal_size().lines


def _write_baseline(out: Output, selected: Callable[[], Iterator[Any]], files: int, urls: int,
                    base: Path) -> int:
    """Every current finding (known ones included) as a JSON report into ``out`` (a temp file
    that the caller commits: a run that fails or is stopped leaves the previous baseline as it
    was); returns how many."""
    from sitemap_tui.validate.report import Summary, write_report

    summary = Summary.of(selected(), files=files, urls=urls)
    signals.check()
    write_report("json", portable(selected(), base), summary, out.file)
    return summary.errors + summary.warnings + summary.info


def _note(text: str) -> None:
    print(f"sitemap-tui: {display(text)}", file=sys.stderr)


def _split(value: str | None) -> list[str] | None:
    if not value:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]

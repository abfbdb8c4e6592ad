"""``sitemap-tui diff OLD NEW``: what changed between two explorations (issue 20 §1).

OLD and NEW are each a saved exploration (an SQLite store: ``--db`` of urls/stats/validate,
or the explorer's file in the cache) or any TARGET, explored now headless with every rule, as
``validate`` does, into a temporary store. The comparison is session.diff's; the report's
formats are diff_report's; ``--fail-if`` (failif.py) turns counts into exit 1."""

from __future__ import annotations

import argparse
import contextlib
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from sitemap_tui import scratch, signals
from sitemap_tui.cli import failif
from sitemap_tui.cli.headless import (
    ALL_RULES,
    SQLITE_MAGIC,
    exploration_problem,
    explore_options,
    open_result,
    output_path,
    parse_target,
    reader_may_leave,
    run_exploration,
    said_if_written,
)
from sitemap_tui.cli.options import TreeOptions, fetch_options, map_each_target
from sitemap_tui.cli.verdict import report_failures, run_notes, target_problem
from sitemap_tui.engine.discover import shown_target
from sitemap_tui.engine.sanitize import display
from sitemap_tui.session.exits import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UsageError
from sitemap_tui.session.fetching import FetchOptions
from sitemap_tui.words import plural

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sitemap_tui.engine.explorer import Explorer
    from sitemap_tui.engine.store import Store
    from sitemap_tui.engine.store.diff import SitemapChange
    from sitemap_tui.session.launch import Launch
    from sitemap_tui.session.recent import Saved


@dataclass(frozen=True, slots=True)
class DiffOptions:
    old: str
    new: str | None  # None: OLD is a SITE, explored now and compared with its latest kept exploration
    format: str = "text"
    output: str | None = None
    fail_if: tuple[str, ...] = ()
    map_host: tuple[str, ...] = ()
    samples: int = 10
    fetch: FetchOptions = field(default_factory=FetchOptions)
    tree: TreeOptions = field(default_factory=TreeOptions)
    tui: bool = False  # the explorer in compare mode instead of a report
    # with no --map: the map each side's own build folder implies (OLD's, NEW's), as validate's
    side_maps: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    typed_old: str | None = None  # OLD as typed, when a build folder was read as its site
    typed_new: str | None = None  # NEW as typed (the report's "source": found from outside, two
    # build folders both read "https://ex.com/", which was which unsaid)
    # each side's build-folder files that nothing lists, read as its site's too (TreeOptions.also)
    side_also: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())


def options(ns: argparse.Namespace) -> DiffOptions:
    side_maps, typed_old, typed_new = None, ns.old, ns.new
    side_also: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    if not ns.map:
        # a build folder is read as the site its robots.txt names, as validate reads it: its
        # runs are kept under that site, and two builds compare as the same site's
        (ns.old, old_map, old_also), (ns.new, new_map, new_also) = map_each_target(ns, [ns.old, ns.new])
        side_maps = (old_map, new_map if ns.new is not None else old_map)
        side_also = (old_also, new_also if ns.new is not None else old_also)
        if not any(side_maps):
            side_maps = None
    else:  # a side that is a mapped folder reads its files that nothing lists too (map_targets)
        by_map = getattr(ns, "also_by_target", None) or {}
        side_also = (tuple(by_map.get(ns.old, ())), tuple(by_map.get(ns.new, ())))
    ns.target = ns.old  # the fetching group's target is set per side (-H goes to its origin)
    tree = TreeOptions(recursive=not ns.no_recursive, depth=ns.depth, max_files=ns.max_files, probe=ns.probe,
                       follow_cross_host=ns.follow_cross_host, workers=ns.workers, history=not ns.no_history,
                       cache=not ns.no_cache, max_time=ns.max_time)
    return DiffOptions(ns.old, ns.new, ns.format, ns.output, tuple(ns.fail_if), tuple(ns.map_host), ns.samples,
                       fetch_options(ns), tree, ns.tui, side_maps, typed_old, typed_new, side_also)


@dataclass(frozen=True, slots=True)
class Source:
    """One side: the store to read and how the report names it."""

    label: str  # OLD or NEW
    raw: str  # as typed
    path: Path
    saved: bool  # a saved exploration (else explored now)
    checks: str | None = "all"  # the rules that judged it (all, selected, none; None: not said)
    command: str | None = None  # the command that saved it, when it says
    target: str | None = None  # what it explored, when it says

    def __post_init__(self) -> None:
        # named without a "user:password@" in it (the report, its JSON, stderr: found from outside)
        object.__setattr__(self, "raw", shown_target(self.raw))


def cmd_diff(opts: DiffOptions, launch: Launch | None = None) -> int:
    from sitemap_tui.cli.diff_report import write_diff
    from sitemap_tui.session.diff import ALIASES, SUMMARY_KEYS, HostMap, compare

    # every option is checked before anything is fetched
    if opts.tui:
        _check_tui(opts, launch)
    conditions = failif.parse_all(opts.fail_if, SUMMARY_KEYS, ALIASES)
    host_map = HostMap.parse(opts.map_host)
    out_path = output_path(opts.output)
    if opts.new is None:  # diff SITE: the latest kept exploration, then SITE now
        sources = [_latest(opts.old, opts.typed_old or opts.old), None]
        now = opts.old
        kept_target = sources[0].target if sources[0] is not None else None
        if "://" not in now and kept_target and kept_target.startswith("http://"):
            now = "http://" + now  # a site kept over http is explored again over http, not https
        pairs = (("OLD", opts.old), ("NEW", now))
    else:
        sources = [_saved("OLD", opts.old), _saved("NEW", opts.new)]
        pairs = (("OLD", opts.old), ("NEW", opts.new))
    with contextlib.ExitStack() as stack:
        folder = scratch.temp_dir()
        stack.callback(scratch.remove, folder)
        for i, (label, raw) in enumerate(pairs):
            if sources[i] is None:
                if opts.new is None:
                    sources[i] = _explore_kept(raw, opts, folder / "new.db")
                else:
                    sources[i] = _explore(label, raw, opts, folder / f"{label.lower()}.db")
        old, new = sources
        assert old is not None and new is not None
        if opts.new is not None:  # each side named as the user typed it, not as it was mapped
            old, new = replace(old, raw=opts.typed_old or old.raw), replace(new, raw=opts.typed_new or new.raw)
        elif opts.typed_old and opts.typed_old != opts.old:
            # diff FOLDER: the folder typed is what was explored now (NEW); OLD is the site's
            # saved run (found by a review: the folder's name labelled OLD, the site's URL NEW)
            old, new = replace(old, raw=opts.old), replace(new, raw=opts.typed_old)
        _say_checks(old, new)
        if opts.tui:
            assert launch is not None
            # the explorer shows NEW (offline) and compares it with OLD itself, off its UI thread
            return launch(db_path=new.path, compare_with=old.path)
        diff = compare(old.path, new.path, folder / "diff.db", host_map)
        stack.callback(diff.close)
        _say_unfetched(diff.sitemaps, old, new)
        for side in (old, new):
            n = diff.keyless.get(side.label.lower(), 0)
            if n:
                print(f"sitemap-tui: {side.label} {display(side.raw)}: {plural(n, 'listed URL')} not compared: not an"
                      " absolute http(s) URL (a relative path, a space, another scheme)", file=sys.stderr)
        signals.check()  # stopped by a signal: no report, a previous --output stays
        with reader_may_leave(), open_result(out_path, opts.output) as result:
            write_diff(opts.format, diff, (old, new), result.file, samples=opts.samples)
            result.commit()
        summary = dict(diff.summary)
    hits = failif.met(conditions, summary)
    for condition in hits:
        print(f"sitemap-tui: {condition.describe(summary)}", file=sys.stderr)
    return EXIT_FINDINGS if hits else EXIT_OK


def _check_tui(opts: DiffOptions, launch: Launch | None) -> None:
    """--tui opens the explorer: the report's options have nothing to act on there."""
    if launch is None:
        raise UsageError("--tui: the explorer is not part of this program")
    given = [name for name, value in (("--format", opts.format != "text"), ("--output", opts.output),
                                      ("--fail-if", opts.fail_if), ("--map-host", opts.map_host)) if value]
    if given:
        raise UsageError(f"--tui opens the explorer instead of writing a report: it does not take {', '.join(given)}")


def _saved(label: str, raw: str) -> Source | None:
    """``raw`` as a saved exploration, or None when it is a TARGET to explore now: an SQLite
    file must be an exploration, and a missing ``*.db`` is a mistake, not a site. SITE~N (not
    a file) is one of the site's kept explorations."""
    path = Path(raw)
    if not path.exists():
        from sitemap_tui.session.history import INDEX

        back = INDEX.match(raw)
        if back:
            return _kept(label, back["site"], int(back["back"]), raw)
    if path.is_file():
        try:
            with path.open("rb") as fh:
                head = fh.read(len(SQLITE_MAGIC))
        except OSError as exc:
            raise UsageError(f"{label} {_said(raw)}: cannot be read ({exc.strerror})") from exc
        if head != SQLITE_MAGIC:
            if path.suffix.lower() == ".db":  # an empty or text *.db is no sitemap either
                raise UsageError(f"{label} {_said(raw)}: not a saved exploration (no SQLite database)")
            return None  # a local sitemap file: a TARGET
        problem = exploration_problem(path, must_exist=True)
        if problem:
            raise UsageError(f"{label} {_said(raw)}: {problem}")
        from sitemap_tui.engine.store.summary import read_summary

        summary = read_summary(path)  # which command kept it (--db), and the rules that judged it
        said_if_written(f"{label} {_said(raw)}", path, "compared")
        return Source(label, raw, path, saved=True, checks=summary.checks, command=summary.command)
    if not path.exists() and path.suffix == ".db" and "://" not in raw:
        raise UsageError(f"{label} {_said(raw)}: no such exploration file")
    return None


def _kept(label: str, site: str, back: int, raw: str, *, exact: bool = False, headless: bool = False) -> Source:
    """The exploration of SITE kept ``back`` before the latest (0: the latest); ``exact``: of the
    site SITE names alone, never another port's (session/history.find_site); ``headless``: the
    latest a headless command kept, when there is one, the explorer's newer sessions passed over
    (and said): a session reads what its user opened, and a glance at one lazily opened node
    made it the baseline, every URL of the site "added" and a real removal unseen. Of those,
    the latest of SITE itself, newer runs of another target of the site passed over (said): one
    `urls SITE/news.xml` made the nightly `diff SITE` report every other URL removed (found
    from outside); with none of SITE, the latest, its other target said."""
    from sitemap_tui.cli.history import site_of

    site_found = site_of(site, exact=exact)
    key, found = site_found.key, site_found.explorations
    if headless:
        # an explorer session that listed no URL (opened while the site had no sitemap, or its
        # index failed) is no baseline, as a headless run that listed nothing is not kept: it
        # made the next `diff SITE` read every URL as added (as the explorer's history line skips it)
        empty = [s for s in found if s.summary.command is None and not s.summary.urls]
        if empty:
            found = [s for s in found if s not in empty]
            print(f"sitemap-tui: {label}: {plural(len(empty), 'explorer session')} that listed no URL passed over",
                  file=sys.stderr)
    if headless and (chosen := _headless_choice(label, site, found)) is not None:
        back = chosen
    if back >= len(found):
        if not found:
            why = (f"({display(site_found.note)})" if site_found.note
                   else f"(`sitemap-tui validate {_said(raw)}` keeps a first one to compare with)" if headless
                   else f"(`sitemap-tui history {_said(site)}` lists them)")
            raise UsageError(f"{label} {_said(raw)}: no saved exploration of {display(key)} in the cache {why}")
        raise UsageError(f"{label} {_said(raw)}: {display(key)} has {len(found)} saved exploration"
                         f"{'s' * (len(found) != 1)} (~0 to ~{len(found) - 1})")
    s = found[back]
    return Source(label, raw, s.path, saved=True, checks=s.summary.checks, command=s.summary.command,
                  target=s.summary.target)


def _headless_choice(label: str, site: str, found: Sequence[Saved]) -> int | None:
    """Of ``found`` (newest first), the latest a headless command kept of SITE itself, else the
    latest a headless command kept; None: none (the latest, whatever kept it). What it passes
    over is said, each kind by its own count: explorer sessions, runs of another target."""
    runs = [i for i, s in enumerate(found) if s.summary.command is not None and s.summary.problem is None]
    if not runs:
        return None
    want = _target_key(site)
    same = [i for i in runs if _target_key(found[i].summary.target) == want]
    chosen = same[0] if same else runs[0]
    others = [i for i in runs if i < chosen]
    sessions = [i for i in range(chosen) if found[i].summary.command is None]
    if not same:
        print(f"sitemap-tui: {label}: no kept exploration of {_said(site)} itself: compared with the latest "
              f"of its site, of {display(found[chosen].summary.target or '?')} (what differs may be the target's)",
              file=sys.stderr)
    elif others:
        print(f"sitemap-tui: {label}: {plural(len(others), 'newer exploration')} of another target passed over "
              f"(the latest: {display(found[others[0]].summary.target or '?')}); `sitemap-tui history {_said(site)}`"
              " lists them", file=sys.stderr)
    if sessions:
        # (the newest by its file: this run keeps its own, and ~0 is that one afterwards)
        print(f"sitemap-tui: {label}: {plural(len(sessions), 'newer explorer session')} passed over (a session reads"
              f" what was opened in it, not the whole site); `sitemap-tui history {_said(site)}` lists them, "
              f"`diff {display(str(found[0].path))} {_said(site)}` compares with the newest", file=sys.stderr)
    return chosen


def _said(raw: str) -> str:
    """TARGET ``raw`` in a message: escaped, without a "user:password@"."""
    return display(shown_target(raw))


def _target_key(raw: str | None) -> str | None:
    """What two targets share when they name one thing: the URL without its scheme (a site
    kept over http is explored again over http), normalised; None: no target."""
    from urllib.parse import urlsplit

    from sitemap_tui.engine import urlpolicy
    from sitemap_tui.engine.discover import Target

    if not raw:
        return None
    try:
        parts = urlsplit(urlpolicy.normalize(Target.parse(raw).url))
    except ValueError:  # (TargetError)
        return None
    return f"{parts.netloc}{parts.path or '/'}{'?' + parts.query if parts.query else ''}"


def _latest(raw: str, typed: str) -> Source:
    """``diff SITE``'s OLD: the latest kept exploration of SITE (the cache's limits applied first,
    as before every run that keeps one)."""
    if Path(raw).suffix == ".db" and Path(raw).is_file():
        raise UsageError(f"{_said(raw)} is an exploration file: diff it with a NEW, or name a SITE alone")
    from sitemap_tui.session.history import INDEX

    if not Path(raw).exists() and INDEX.match(raw):
        raise UsageError(f"{_said(raw)} is a kept exploration: name the other side too "
                         "(`diff SITE~1 SITE~0`), or SITE alone to compare it now with the latest")
    from sitemap_tui.cli.cache import prune_at_start

    parse_target(raw)  # a bad SITE is said as a bad TARGET is, before the cache is touched
    prune_at_start()
    return _kept("OLD", raw, 0, typed, exact=True, headless=True)


def _explore_kept(raw: str, opts: DiffOptions, scratch_db: Path) -> Source:
    """``diff SITE``'s NEW: SITE explored now, kept in the history (a temporary store with
    --no-history)."""
    from sitemap_tui.cli.headless import keeps, kept_store, unusable_goes_to

    kept = kept_store(opts.tree, parse_target(raw), "diff", "all")
    if kept is None:
        return _explore("NEW", raw, opts, scratch_db)
    complete = False
    path = kept.path
    try:
        explorer = _run("NEW", raw, opts, kept.store)
        complete = keeps(kept, explorer)
        path = unusable_goes_to(kept, scratch_db)  # (compared, not kept: a failed index's run)
    finally:
        kept.finish(complete)
    if not complete:
        raise UsageError(f"NEW {_said(raw)}: the target did not answer")
    return Source("NEW", raw, path, saved=False)


def _say_checks(old: Source, new: Source) -> None:
    """Findings compare only when both sides were judged by the same rules: say when not."""
    for side, other in ((old, new), (new, old)):
        if side.checks in ("none", "selected") and side.checks != other.checks:
            what = "checks no rules" if side.checks == "none" else "checked only the rules it selected"
            print(f"sitemap-tui: {side.label} {display(side.raw)}: saved by `{side.command or 'an earlier run'}`, "
                  f"which {what}: the findings new and resolved count rules it did not run", file=sys.stderr)


def _say_unfetched(changes: Sequence[SitemapChange], old: Source, new: Source) -> None:
    """A file a side listed but never fetched (its exploration's depth limit, file budget, caps
    or a stop) is compared as a file of no URLs: what it lists counts as added or removed, said
    per side (a side explored now said why it left them out, not what that does to the
    comparison: found from outside, its URLs read as removed in silence)."""
    changes = [c for c in changes if c.one_side_unread]  # (unread on both: nothing counted)
    for side, name, other in ((old, "old", "added"), (new, "new", "removed")):
        unread = [c for c in changes if c.unread_on(name)]
        listed = [c.old_url or c.new_url or c.key for c in unread if c.unlisted_by is None]
        if listed:
            n = len(listed)
            when = ("in that exploration (a depth limit, a file budget, a cap or a stop)" if side.saved
                    else "now (said above)")
            print(f"sitemap-tui: {side.label} {display(side.raw)}: {plural(n, 'listed file')}"
                  f" {'was' if n == 1 else 'were'} not fetched {when}, first {display(listed[0])}:"
                  f" what {'it lists' if n == 1 else 'they list'} counts as {other}", file=sys.stderr)
        unlisted = [c for c in unread if c.unlisted_by is not None]
        if unlisted:
            n, first = len(unlisted), unlisted[0]
            print(f"sitemap-tui: {side.label} {display(side.raw)}: {plural(n, 'sitemap file')} of the other side"
                  f" {'was' if n == 1 else 'were'} not read, as {display(first.unlisted_by or '')} that lists"
                  f" {'it' if n == 1 else 'them'} failed, was cut short or was not fetched, first"
                  f" {display(first.old_url or first.new_url or first.key)}: not counted as {other} files, but"
                  f" what {'it lists' if n == 1 else 'they list'} counts as {other} URLs", file=sys.stderr)


def _explore(label: str, raw: str, opts: DiffOptions, db: Path) -> Source:
    """Explore TARGET ``raw`` now into ``db``, a temporary store."""
    from sitemap_tui.engine.store import Store

    store = Store(db)
    try:
        _run(label, raw, opts, store)
    finally:
        store.close()
    return Source(label, raw, db, saved=False)


def _run(label: str, raw: str, opts: DiffOptions, store: Store) -> Explorer:
    """Explore TARGET ``raw`` now into ``store``, judged by every rule (as validate does, so that
    its findings compare with a saved exploration's); what it left out is said on stderr."""
    target = parse_target(raw)
    checker = ALL_RULES.checker()
    fetch = replace(opts.fetch, target=raw)
    if opts.side_maps is not None:
        fetch = replace(fetch, maps=opts.side_maps[label == "NEW"])
    tree = replace(opts.tree, also=opts.side_also[label == "NEW"])
    explorer = run_exploration(fetch, explore_options(tree), target,
                               store=store, checker=checker, validation=ALL_RULES,
                               cache=opts.tree.cache, checks="all")
    signals.check()
    problem = target_problem(explorer)
    if problem is not None and problem.code == EXIT_USAGE:
        # the failures its "(said above)" means, and what was left out, before the error
        report_failures(explorer, problem)
        for note in run_notes(explorer) + [omission.text for omission in explorer.left_out()]:
            print(f"sitemap-tui: {label} {_said(raw)}: {note}", file=sys.stderr)
        raise UsageError(f"{label} {problem.message}")
    ALL_RULES.crossfile(store, robots=explorer.checked_robots(), keep_temp=True)
    store.commit()
    # what the exploration left out, as every headless command says it, naming the side
    notes = run_notes(explorer) + [omission.text for omission in explorer.left_out()]
    if problem is not None:  # answered, but no usable sitemap: last, after what its "(said above)" means
        notes.append(problem.message)
    for note in notes:
        print(f"sitemap-tui: {label} {_said(raw)}: {note}", file=sys.stderr)
    return explorer

"""What every headless command does around its own work: read the target, run the exploration
with a progress line on stderr, keep it in a store (--db or a temporary one), write the result
to stdout or --output."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

from sitemap_tui import scratch, signals
from sitemap_tui.cli.options import TreeOptions, say_pending
from sitemap_tui.engine.discover import Target, TargetError
from sitemap_tui.engine.events import EntriesAdded, Event, NodeAdded
from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.refetch import Refetch
from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store import Store, StoreRun
from sitemap_tui.output import (
    SQLITE_MAGIC,
    Output,
    OutputError,
    check_folders,
    is_database,
    names_folder,
    open_output,
    silence_stdout,
)
from sitemap_tui.session.exits import EXIT_USAGE, UsageError
from sitemap_tui.session.fetching import FetchOptions, fetch_config
from sitemap_tui.session.validation import Validation
from sitemap_tui.words import plural

ALL_RULES = Validation()
"""What the commands other than validate judge by: every rule, worded from the registry."""

def parse_target(raw: str) -> Target:
    try:
        return Target.parse(raw)
    except TargetError as exc:
        raise UsageError(str(exc)) from exc


def explore_options(tree: TreeOptions, *, robots_checks: bool = True, keep_non_http: bool = True,
                    output_format: str | None = None, file_stats: bool = True) -> ExploreOptions:
    """The engine's options for a run: the tree options, and what the command adds."""
    from sitemap_tui.engine.cores import default_workers

    return ExploreOptions(
        workers=default_workers() if tree.workers is None else tree.workers,
        # the default's workers start when the run has work for them; `--workers N` starts N
        lazy_pool=tree.workers is None,
        output_format=output_format,
        file_stats=file_stats,
        keep_non_http=keep_non_http,
        recursive=tree.recursive,
        max_depth=tree.depth,
        max_files=tree.max_files,
        probe=tree.probe,
        follow_cross_host=tree.follow_cross_host,
        robots_checks=robots_checks,
        also=tree.also,
        max_time=tree.max_time,
    )


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
    fetch: FetchOptions,
    options: ExploreOptions,
    target: Target,
    *,
    store: Store | None,
    checker: Any = None,
    on_output: Callable[[str | bytes], None] | None = None,
    started: Callable[[Explorer], None] | None = None,
    validation: Validation = ALL_RULES,
    cache: bool = False,
    checks: str = "none",
) -> Explorer:
    """Explore ``target``; the engine's findings are worded and selected by ``validation``'s
    judge (the streaming ``checker``, when given, is the same validation's). ``cache``: ask
    conditionally for each file the site's latest exploration judged alike (``checks``: all,
    none) holds (--no-cache: not); a run judged by its own selection of rules asks for none."""
    say_pending()  # the run starts: how its targets are read
    progress = StderrProgress()
    previous = None
    if cache and checks == "selected":
        # said only where it changes something: a site explored before (not a local file, and
        # not a site with nothing kept, where "fetched in full" was news of nothing)
        from sitemap_tui.session.history import open_previous

        earlier, _ = (None, None) if target.url.startswith("file:") else open_previous(target, "all")
        if earlier is not None:
            earlier.close()
            print("sitemap-tui: every file is fetched in full: findings are carried over from an earlier "
                  "exploration only into a run that judges every rule with the defaults", file=sys.stderr)
    elif cache:
        from sitemap_tui.session.history import open_previous

        previous, problem = open_previous(target, checks)
        if problem:
            print(f"sitemap-tui: {display(problem)}", file=sys.stderr)
        if previous is not None:
            previous.defer_rows = True  # nothing here reads the rows before the exploration ends
    import gc

    gc.set_threshold(100_000, 50, 100)  # entry batches are acyclic: collect less often

    async def go() -> Explorer:
        async with Explorer(
            store=store, fetch_config=fetch_config(fetch), options=options, checker=checker,
            on_events=progress, on_output=on_output, judge=validation.judge(), previous=previous,
        ) as explorer:
            if started is not None:
                started(explorer)
            await explorer.explore(target)
            if previous is not None and store is not None:
                previous.settle(store)
            return explorer

    try:
        return asyncio.run(go())
    finally:
        progress.done()
        if previous is not None:
            _report_carried(previous)
            previous.close()


def _report_carried(previous: Refetch) -> None:
    """Nothing silent: what was carried over from the previous exploration, and what could not be."""
    for note in previous.notes:
        print(f"sitemap-tui: {note}", file=sys.stderr)
    if previous.carried:
        since = f" of {previous.previous.started[:19].replace('T', ' ')} UTC" if previous.previous.started else ""
        print(f"sitemap-tui: {plural(previous.carried, 'file')} unchanged since the previous exploration{since}"
              " (304 Not Modified): carried over from it; --no-cache fetches every file in full", file=sys.stderr)


def said_if_written(shown: str, path: Path, verb: str) -> None:
    """A saved exploration another run is writing now is read as it stands, perhaps unfinished:
    said on stderr (``verb``: what is done with it, "compared", "read")."""
    from sitemap_tui.engine.store.file import writer_of

    pid = writer_of(path)
    if pid is not None:
        who = f" (pid {pid})" if pid else ""
        print(f"sitemap-tui: {shown}: another sitemap-tui process{who} is writing it now: {verb} as it"
              " stands, perhaps unfinished", file=sys.stderr)


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
    from sitemap_tui.engine.store.file import StoreError, inspect_store

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
    path = Path(raw)  # (through its symlinks already: cli._run resolved --db for every command)
    problem = exploration_problem(path, must_exist=False)
    if problem:
        raise UsageError(f"--db {display(raw)}: {problem}")
    return StoreRun(path)


def output_path(raw: str | None, option: str = "--output") -> Path | None:
    """Where ``--output`` (or ``option``) writes, checked before any work: a folder, or a path
    whose missing folders cannot be made, is a usage error. The folders are made when the
    output is opened (see :func:`open_result`), so that a run that fails first makes none."""
    if raw is None:
        return None
    if not raw:
        raise UsageError(f"{option}: an empty file name")
    path = Path(raw)
    if path.is_dir() or names_folder(raw):
        # (a trailing slash names a folder, as the shell's > and curl -o take it: Path drops it,
        # and a file was written under the folder's name, or one there replaced)
        what = "is a folder" if path.is_dir() else "names a folder, as typed"
        raise UsageError(f"{option} {display(raw)}: {what}; name a file")
    if path.is_file() and is_database(path):
        raise UsageError(f"{option} {display(raw)}: is an SQLite database (a saved exploration, or "
                         "another program's): not replaced; name another file")
    try:
        check_folders(path, f"{option} {display(raw)}")
    except OutputError as exc:
        raise UsageError(str(exc)) from None
    return path


def open_kept(path: Path | None, label: str | None) -> Output:
    """``open_output`` for a command's file: its missing folders are made, and said on stderr
    once the result is in place (a mistyped folder is not made in silence); a discarded
    output removes them again."""
    out = open_output(path, label=label, create_folders=True)

    def say() -> None:
        if path is not None:  # a file replaced: a stop signal from now on ends nothing of it
            signals.settled()
        for folder in out.created_folders:
            print(f"sitemap-tui: {label or display(str(path))}: created the folder {display(str(folder))}",
                  file=sys.stderr)

    out.on_commit = say
    return out


def open_result(path: Path | None, raw: str | None) -> Output:
    """Where a command writes its result: stdout, or ``--output`` through a temp file that
    replaces the previous file only on :meth:`Output.commit` (see sitemap_tui/output.py)."""
    return open_kept(path, f"--output {display(raw or str(path))}" if path is not None else None)


@contextlib.contextmanager
def reader_may_leave() -> Iterator[list[bool]]:
    """Around a judging command's report (validate, diff, audit): a reader that leaves early
    (``| head``) ends the writing quietly, and the run goes on to its verdict, which a CI job's
    pipefail must still see (the findings were judged before the report). Yields a one-item
    list, set to True when the reader left."""
    left = [False]
    try:
        yield left
    except BrokenPipeError:
        silence_stdout()
        left[0] = True


class KeptStore(Protocol):
    """Where a run keeps its exploration: --db (StoreRun) or the history (HistoryRun)."""

    store: Store
    path: Path  # where the exploration is once finished complete

    def finish(self, complete: bool, elsewhere: Path | None = None) -> None: ...


def kept_store(tree: TreeOptions, target: Target, command: str, checks: str) -> KeptStore | None:
    """The store a run keeps: --db's, else a new exploration of the site's history in the cache
    (the cache's limits applied first, as the explorer applies them), else None (--no-history).
    ``checks`` says which rules judged it (all, selected, none), for a later diff."""
    if tree.db:
        db = open_store(tree.db)
        try:
            # as a history run records them: a diff against this store knows which rules judged it
            db.store.set_meta("command", command)
            db.store.set_meta("checks", checks)
        except BaseException:
            # not handed over yet, so no caller's finish would drop it (found from outside: a
            # full disk left the partial store and its journals beside PATH)
            db.finish(False)
            raise
        return db
    if not tree.history:
        return None
    from sitemap_tui.cli.cache import prune_at_start
    from sitemap_tui.session.history import HistoryRun

    prune_at_start()
    run = HistoryRun(target, command, checks)
    return _SaysWhenNotKept(run)


class _SaysWhenNotKept:
    """A history run that says on stderr when it keeps nothing (nothing silent)."""

    def __init__(self, run: KeptStore) -> None:
        self.run = run
        self.store = run.store
        self.path = run.path
        self.cause: str | None = None  # why it did not complete, when no line of its own says it
        self.unusable: str | None = None  # why a run that completed is no baseline (keeps)
        self.unusable_to: Path | None = None  # where such a run goes instead of nowhere (diff's NEW)

    def finish(self, complete: bool, elsewhere: Path | None = None) -> None:
        # a run refused before it began (a bad --resolve) is said by its error alone
        try:
            began = self.store.get_meta("target") is not None
        except sqlite3.Error:  # a store that cannot be read: the run may have begun, say it
            began = True
        if complete and self.unusable is not None and self.unusable_to is not None:
            self.run.finish(True, self.unusable_to)
        else:
            self.run.finish(complete and self.unusable is None)
        if complete and self.unusable is not None:
            print(f"sitemap-tui: this exploration is not kept in the history: {self.unusable}; a later `diff`"
                  " compares with the last one kept", file=sys.stderr)
        elif not complete and began:
            # (the cause itself is said on its own line: the target, the signal, the write)
            # (an empty file answered: "never answered" read as false there)
            if self.cause is None and isinstance(sys.exc_info()[1], BrokenPipeError):
                # (finish runs in a finally: a reader that left mid-report raised through it)
                self.cause = "its output's reader stopped reading before the end, as | head does"
            why = self.cause or "the cause is said on its own line"
            print(f"sitemap-tui: this exploration is not kept in the history: it did not complete ({why})",
                  file=sys.stderr)


def keeps(kept: KeptStore | None, explorer: Explorer) -> bool:
    """Whether the run's exploration is kept (``finish``'s ``complete``): not when its target
    never answered (verdict.target_answered); and in the history, which a later `diff SITE`
    and the explorer's "since" compare with, not when it had nothing to work on either (an
    index answering 500, a site without a sitemap: found from outside, such a run became the
    baseline, and the next good deploy read as every URL added). --db keeps what it is told."""
    from sitemap_tui.cli.verdict import target_answered, target_problem

    if not target_answered(explorer):
        return False
    if isinstance(kept, _SaysWhenNotKept) and (problem := target_problem(explorer)) is not None:
        kept.unusable = "nothing could be listed" if problem.code != EXIT_USAGE else "no sitemap could be read"
    return True


def unusable_goes_to(kept: KeptStore, path: Path) -> Path:
    """Where ``kept``'s exploration is once finished: its own path, or ``path`` when the
    history would not keep it (keeps), so that the run's caller still reads it (diff's NEW)."""
    if isinstance(kept, _SaysWhenNotKept):
        kept.unusable_to = path
        if kept.unusable is not None:
            return path
    return kept.path


def not_kept_because(kept: KeptStore | None, cause: str) -> None:
    """The cause a history run names when it keeps nothing, where nothing else says it (the
    output's reader left: ``urls | head`` is no error and says no line of its own)."""
    if isinstance(kept, _SaysWhenNotKept):
        kept.cause = cause


def run_store(tree: TreeOptions, target: Target, command: str,
              checks: str) -> tuple[Store, Callable[[bool], None], KeptStore | None]:
    """The run's store, what ends it and where it is kept (None: nowhere): ``finish(complete)``
    puts a --db or history exploration in place only when the run was complete; a temporary
    one (with --no-history) is removed either way."""
    kept = kept_store(tree, target, command, checks)
    if kept is not None:
        return kept.store, kept.finish, kept
    # named after this process, removed at exit or after SIGTERM/SIGHUP, and by a later run
    # when this process was killed outright
    folder = scratch.temp_dir()
    store = Store(folder / "exploration.db")

    def cleanup(_complete: bool) -> None:
        store.discard()
        scratch.remove(folder)

    return store, cleanup, None

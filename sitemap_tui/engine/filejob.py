"""One sitemap file, fetched, parsed, checked and summarised: runs in the explorer's process or
in a worker process, and reports through small picklable messages either way.

Keeping the whole per-file pipeline here (rather than in the explorer) is what lets parsing
move off the event loop: the explorer only applies messages (store writes, tree updates)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sitemap_tui.engine import urlpolicy
from sitemap_tui.engine.bodycache import BodyWriter
from sitemap_tui.engine.fetch import Fetcher, FetchOutcome, StopFetch, fetch_local
from sitemap_tui.engine.findings import Finding, Judge, PlainJudge
from sitemap_tui.engine.model import ChildRef, Entry, Issue, NodeKind
from sitemap_tui.engine.sniff import SniffingParser, type_by_name
from sitemap_tui.engine.stats import FileAccumulator
from sitemap_tui.engine.store import EntryRows, ShardRows, ShardWriter, entry_rows
from sitemap_tui.engine.validator import Validator


@dataclass(slots=True)
class JobSpec:
    """Everything a worker needs to process one file (picklable)."""

    node_id: int
    url: str
    local_path: str | None = None  # only for files the user named
    ctx: Any = None  # the validator's FileContext (engine.validator) when checking
    output_format: str | None = None  # "txt" / "csv" / "jsonl": format URL records here
    want_rows: bool = True  # entries are stored
    want_stats: bool = True  # per-file aggregates (not needed when only printing URLs)
    # a snapshot of the aggregates with every batch, for panes that show a file while it
    # streams; False: only the file's final ones (JobDone), which is all a headless run reads
    live_stats: bool = True
    batch_size: int = 2000
    interval: float = 0.15
    now: datetime | None = None
    body_cache: str | None = None
    max_decoded: int | None = None
    max_entries: int = 50_000  # entries kept per file (the protocol's limit; tests inject less)
    signature_key: bytes = b""  # the store's (Store.signature_key), for the rows
    # formatted output only: keep URLs whose scheme is not http(s) (javascript:, mailto:, ...)
    keep_non_http: bool = True
    sitemap_lastmod: str | None = None  # the <lastmod> the parent index gives this file
    # turns the parser's and fetcher's findings into issues (the validation layer's registry,
    # picklable); None: PlainJudge
    judge: Judge | None = None
    # (etag, last_modified) of the previous exploration's copy: asked for conditionally, and a
    # 304 ends the job with nothing parsed (engine/refetch.py carries the copy over)
    conditional: tuple[str | None, str | None] | None = None


@dataclass(slots=True)
class JobKind:
    node_id: int
    kind: NodeKind


@dataclass(slots=True)
class JobAnswered:
    """The final response's headers are in: the file's status and type are known before its end
    (a file cancelled half-way still shows what the server answered)."""

    node_id: int
    http_status: int | None
    content_type: str | None


@dataclass(slots=True)
class JobRedirected:
    """The fetch was redirected: sent when the final response's headers are in, before any of
    the body is parsed, so the explorer can tell whether that URL is already explored (its
    verdict ends the job through ``cancelled``; see Explorer._claim)."""

    node_id: int
    final_url: str


@dataclass(slots=True)
class JobProgress:
    node_id: int
    wire_bytes: int
    total: int | None


@dataclass(slots=True)
class JobBatch:
    node_id: int
    count: int  # entries so far in this file
    rows: EntryRows | None
    issues: list[tuple[Issue, int | None]]  # issue, index of its entry in this batch
    text: str | None  # formatted URL records
    agg: dict[str, Any] | None  # live stats snapshot
    left_out: int = 0  # URLs not formatted because their scheme is not http(s)
    # findings of rules the user did not select: not stored, but the explorer's account of
    # the file (where parsing stopped, what was cut) still reads them
    unselected: list[Issue] = field(default_factory=list)
    # in a worker process: where it wrote the rows (its shard, engine/store/shard.py) instead
    # of sending them; ``rows`` is None then
    shard: ShardRows | None = None


@dataclass(slots=True)
class JobDone:
    node_id: int
    kind: NodeKind | None
    outcome: FetchOutcome
    children: list[ChildRef]
    issues: list[Issue]  # file-level issues (fetch, parse end, checker end_file/children)
    info: Any
    agg: dict[str, Any]
    count: int
    parse_seconds: float
    unselected: list[Issue] = field(default_factory=list)  # as JobBatch.unselected


JobMessage = JobKind | JobAnswered | JobRedirected | JobProgress | JobBatch | JobDone


@dataclass
class _Run:
    spec: JobSpec
    parser: SniffingParser
    acc: FileAccumulator
    entries: list[Entry] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    unselected: list[Issue] = field(default_factory=list)
    children: list[ChildRef] = field(default_factory=list)
    count: int = 0
    parse_seconds: float = 0.0
    last_flush: float = field(default_factory=time.monotonic)
    kind: NodeKind | None = None
    final_url: str | None = None
    fed: bool = False  # a chunk of the body reached the parser (a cancel before it parses nothing)


class FileJob:
    def __init__(
        self,
        spec: JobSpec,
        emit: Callable[[JobMessage], None],
        checker: Validator | None = None,
        cancelled: Callable[[], bool] | None = None,
        pace: Callable[[], Awaitable[None]] | None = None,
        shard: ShardWriter | None = None,
    ) -> None:
        self.spec = spec
        self.shard = shard  # a worker's: the rows go there, not into the message
        self.emit = emit
        self.pace = pace  # awaited between network reads: the receiver's backpressure
        self.checker = checker if spec.ctx is not None else None
        self.cancelled = cancelled or (lambda: False)
        self.judge: Judge = spec.judge or PlainJudge()
        self._format: Callable[[list[Entry], str, str, str | None], str] | None = None
        if spec.output_format:
            from sitemap_tui.engine.formats import format_entries

            self._format = format_entries

    async def run(self, fetcher: Fetcher | None) -> JobDone:
        spec = self.spec
        hook = None
        if self.checker is not None:
            self.checker.begin_file(spec.ctx)
            hook = self.checker.element_hook(spec.ctx)
        # the Content-Type decides a body with no URL in its first lines (found from outside: it
        # never reached the sniffer, a text sitemap with a comment header was "not a sitemap")
        parser = SniffingParser(spec.url, type_by_name(spec.url), max_entries=spec.max_entries, element_hook=hook)
        run = _Run(spec, parser, FileAccumulator(spec.now))
        body = BodyWriter(Path(spec.body_cache), spec.node_id) if spec.body_cache else None

        def on_response(outcome: FetchOutcome) -> None:
            self.emit(JobAnswered(spec.node_id, outcome.stats.http_status, outcome.stats.content_type))
            if outcome.stats.content_type:
                parser.content_type = outcome.stats.content_type
            # location rules (and the "sitemap" of each URL record) use the final URL
            run.final_url = outcome.final_url or None
            if spec.ctx is not None and outcome.final_url:
                spec.ctx.final_url = outcome.final_url
            if outcome.final_url and outcome.final_url != spec.url:
                self.emit(JobRedirected(spec.node_id, outcome.final_url))
                if self.cancelled():  # in-process the explorer's verdict is already in
                    raise StopFetch()

        ours: list[Exception] = []  # a fault of sitemap-tui's while the body streamed

        def sink(chunk: bytes) -> None:
            if self.cancelled():
                raise StopFetch()
            if body is not None:
                body.write(chunk)
            t0 = time.perf_counter()
            run.fed = True
            try:
                items = parser.feed(chunk)
                run.parse_seconds += time.perf_counter() - t0
                self._take(run, items)
            except Exception as exc:
                # not the download's failure (the fetch would call it one, "failed part-way
                # (--timeout)", and keep the entries after it): raised again once the fetch ends,
                # an internal error of the file (found from outside)
                ours.append(exc)
                raise StopFetch() from exc
            if parser.done:
                raise StopFetch()

        def progress(wire: int, total: int | None) -> None:
            self.emit(JobProgress(spec.node_id, wire, total))

        try:
            if spec.local_path is not None:
                outcome = await fetch_local(Path(spec.local_path), sink, max_decoded=spec.max_decoded or 50 * 1024 * 1024)
            else:
                assert fetcher is not None
                outcome = await fetcher.fetch(
                    spec.url, sink, conditional=spec.conditional, on_progress=progress,
                    on_response=on_response, pace=self.pace,
                )
        except asyncio.CancelledError:
            if body is not None:
                body.abort()
            if not ours and run.fed:
                # a cancel (x, the run's --max-time) keeps what arrived, as a cut download does:
                # found from outside, 6 s of a slow file listed nothing, its first KiB still
                # in the sniffer (or the entries since the last batch) when the task was stopped
                self._take(run, parser.close(cut="cancelled"))
                self._flush(run)
            raise
        except BaseException:
            if body is not None:
                body.abort()
            raise
        if ours:
            if body is not None:
                body.abort()
            raise ours[0]
        if body is not None:
            if outcome.not_modified:
                body.abort()  # no body came: the earlier one is carried with the rows (an empty one hid it)
            else:
                body.close()
        if self.cancelled():
            outcome.cancelled = True
        t0 = time.perf_counter()
        # a body that ended with a fetch error (size cap, timeout, corrupt gzip) or a cancel is
        # cut, not malformed: the parser must not blame its unfinished end on the XML
        closing = parser.close(cut=outcome.error_rule if outcome.error else "cancelled" if outcome.cancelled else None)
        if (outcome.error and not outcome.stats.decoded_bytes) or (outcome.cancelled and not run.fed) \
                or outcome.not_modified:
            # nothing arrived: "empty document" would only repeat the fetch error (or a 304), or
            # invent one for a file a cancel stopped before its body (found by a review)
            closing = []
        self._take(run, closing)
        run.parse_seconds += time.perf_counter() - t0
        self._flush(run)
        return self._done(run, outcome)

    def _take(self, run: _Run, items: list[Any]) -> None:
        kind = run.parser.kind
        if kind is not None and kind != run.kind:
            run.kind = kind
            if run.spec.ctx is not None:
                run.spec.ctx.kind = kind
            self.emit(JobKind(run.spec.node_id, kind))
        for item in items:
            if isinstance(item, Entry):
                run.entries.append(item)
            elif isinstance(item, ChildRef):
                run.children.append(item)
            else:
                self._judge(item, run.issues, run.unselected)
                if (noted := noted_kind(item)) is not None:
                    run.acc.agg.noted[noted] += 1  # (past the parser's cap, one summary: "at least")
        if len(run.entries) >= run.spec.batch_size or (
            run.entries and time.monotonic() - run.last_flush > run.spec.interval
        ):
            self._flush(run)

    def _judge(self, finding: Finding, issues: list[Issue], unselected: list[Issue]) -> None:
        issue = self.judge.issue(finding)
        if issue is not None:
            issues.append(issue)
        else:
            unselected.append(self.judge.word(finding))

    def _flush(self, run: _Run) -> None:
        entries, run.entries = run.entries, []
        issues: list[tuple[Issue, int | None]] = [(i, None) for i in run.issues]
        run.issues = []
        unselected, run.unselected = run.unselected, []
        if not entries and not issues and not unselected:
            return
        text = None
        rows = None
        shard = None
        left_out = 0
        if entries:
            if self.checker is not None:
                # the checker sees every entry as written (a missing or relative loc is its finding)
                check = self.checker.check_entry
                ctx = run.spec.ctx
                for idx, entry in enumerate(entries):
                    for found in check(ctx, entry):
                        issues.append((found, idx))
            listed = len(entries)
            entries, kept_at, resolved = urls_only(entries, run.final_url or run.spec.url)
            run.acc.agg.no_url += listed - len(entries)  # (said: Explorer.left_out, NO_URL)
            run.acc.agg.relative += resolved  # (said: cli.verdict.run_notes)
            if kept_at is not None:  # an issue's entry index points into the kept entries
                issues = [(i, None if idx is None else kept_at.get(idx)) for i, idx in issues]
        if entries:
            if run.spec.want_stats:
                run.acc.add(entries)
            run.count += len(entries)
            if run.spec.want_rows:
                rows = entry_rows(entries, run.spec.signature_key)
                if self.shard is not None:
                    shard, rows = self.shard.write(run.spec.node_id, rows), None
            if self._format is not None:
                sitemap = run.final_url or run.spec.url
                shown = entries
                if not run.spec.keep_non_http:
                    shown = [e for e in entries if has_http_scheme(e.loc)]
                    left_out = len(entries) - len(shown)
                text = self._format(shown, sitemap, run.spec.output_format or "txt", run.spec.sitemap_lastmod)
        if not entries and not issues and not unselected:
            return
        run.last_flush = time.monotonic()
        # (a snapshot is a copy of every counter, by_day's thousands of days included, pickled
        # and stored as JSON by the explorer: not made for nobody)
        agg = run.acc.agg.to_json() if run.spec.live_stats else None
        self.emit(JobBatch(run.spec.node_id, run.count, rows, issues, text, agg, left_out, unselected, shard))

    def _done(self, run: _Run, outcome: FetchOutcome) -> JobDone:
        s = outcome.stats
        info = run.parser.info
        s.parse_time = run.parse_seconds
        s.url_count = run.count
        s.child_count = len(run.children)
        s.xml_encoding = getattr(info, "xml_encoding", None)
        s.truncated_at = getattr(info, "truncated_at", None)
        issues: list[Issue] = []
        unselected: list[Issue] = []
        for finding in outcome.findings:
            self._judge(finding, issues, unselected)
            if (noted := noted_kind(finding)) is not None:
                run.acc.agg.noted[noted] += 1
        if outcome.error and outcome.error_rule:
            self._judge(Finding(outcome.error_rule, {"error": outcome.error}), issues, unselected)
        if self.checker is not None and not outcome.cancelled and not outcome.not_modified:
            ctx = run.spec.ctx
            ctx.final_url = outcome.final_url or run.spec.url
            for child in run.children:
                issues.extend(self.checker.check_child(ctx, child))
            if not (outcome.error and run.count == 0 and not run.children):
                issues.extend(self.checker.end_file(ctx, info, s))
        # a text line or index child with no URL in it, as urls_only's entries (_flush)
        run.acc.agg.no_url += getattr(info, "no_url", 0) + sum(1 for c in run.children if not (c.loc and c.loc.strip()))
        if getattr(info, "repeated_loc", 0):
            run.acc.agg.noted["repeated-loc"] += info.repeated_loc
        if getattr(info, "hidden_locs", 0):
            run.acc.agg.noted["misplaced"] += info.hidden_locs
        return JobDone(
            run.spec.node_id, run.kind, outcome, run.children, issues, info,
            run.acc.agg.to_json(), run.count, run.parse_seconds, unselected,
        )


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_HTTP = ("https://", "http://")


def noted_kind(finding: Finding) -> str | None:
    """Which of the things read otherwise than written ``finding`` reports, for the commands
    that judge no rules (Aggregate.noted; said by cli.verdict.run_notes): ``misplaced``, an
    element where the protocol reads none, skipped with what it holds (a <urlset> or <sitemap>
    inside a <urlset>, a wrapper, a <url> in an index); ``gzip-double``, a body unpacked twice;
    ``declared-encoding``, a file read in the non-UTF-8 encoding it declares (or a UTF-16 BOM names).
    (``repeated-loc``, a second <loc> of one entry, comes from the parser's count: _done.)"""
    rule, fields = finding.rule, finding.fields
    if rule in ("core-unknown-element", "index-wrong-children") and fields.get("parent") != "loc":
        return "misplaced"  # (inside a <loc>: the entry has no URL, counted as no_url)
    if rule == "gzip-double":
        return "gzip-double"
    if rule == "encoding-not-utf8" and fields.get("found") in ("declared", "utf-16"):
        return "declared-encoding"
    return None


def urls_only(entries: list[Entry], base: str) -> tuple[list[Entry], dict[int, int] | None, int]:
    """The entries that are URLs, with relative locs resolved against the file's URL, the
    new position of each kept entry by its old one (None: every entry kept where it was), and
    how many were resolved.

    An entry without a usable loc (empty, blank, a feed item without a link) is not a URL: it
    is neither stored, counted nor printed, and stays visible as the checker's finding. A
    relative loc is resolved against the file's URL, so every output agrees."""
    for e in entries:  # the common batch: every loc absolute http(s), nothing to drop or map
        loc = e.loc
        if not (loc and loc.startswith(_HTTP)):
            break
    else:
        return entries, None, 0
    kept: list[Entry] = []
    kept_at: dict[int, int] = {}
    resolved = 0
    for i, e in enumerate(entries):
        loc = e.loc
        if not loc or loc.isspace():
            continue
        if not loc.startswith(_HTTP) and _SCHEME.match(loc) is None:  # the common case first
            e.loc = urlpolicy.resolve(base, loc)
            resolved += 1
        kept_at[i] = len(kept)
        kept.append(e)
    return kept, kept_at, resolved


def has_http_scheme(loc: str | None) -> bool:
    if loc is not None and loc.startswith(_HTTP):
        return True
    scheme, sep, _ = (loc or "").partition(":")
    return bool(sep) and scheme.lower() in ("http", "https")

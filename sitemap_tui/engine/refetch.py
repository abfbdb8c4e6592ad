"""Conditional re-exploration (issue 20 §3): each file the previous exploration of the site holds
is asked for with its validators (If-None-Match / If-Modified-Since); a file that answers
304 Not Modified is not parsed again: its rows, issues and statistics are carried over from the
previous store (engine/store/carry.py, in SQL) and it is marked "unchanged since" that date.

An index that answers 304 keeps its children from the previous exploration and they are still
walked: their own 304s are what save the cost. Whatever goes wrong with the previous store makes
the file be fetched again in full, and is said in ``notes`` (the front end shows them)."""

from __future__ import annotations

import io
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitemap_tui.engine.bodycache import bodies_beside, body_path, copy_body
from sitemap_tui.engine.fetch_outcome import FetchOutcome
from sitemap_tui.engine.filejob import JobDone, has_http_scheme
from sitemap_tui.engine.formats import UrlRecord, UrlWriter, records_from_rows
from sitemap_tui.engine.model import FileStats, Node, NodeKind
from sitemap_tui.engine.sanitize import display, url_text, utf8_lines_need_escaping
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.carry import Carried, OldFile, Pending, PreviousExploration
from sitemap_tui.engine.store.file import StoreError

_HTTP_UTF8 = (b"https://", b"http://")  # filejob._HTTP, as the stored URLs' bytes start


@dataclass(slots=True)
class CarryResult:
    done: JobDone  # as the file's job would have ended, had it parsed the old body
    rules: set[str]  # of the issues carried (what was cut, for left_out)
    issues: int  # issues carried into the store
    left_out: int  # URL records not written: not http(s) (keep_non_http)


@dataclass(slots=True)
class Refetch:
    """The previous exploration a run asks against; ``skip_rules`` are the issues not carried
    (those of the stages that run over the whole new store: cross-file, deep, the tree's own)."""

    previous: PreviousExploration
    # the skip rules, or what makes them (the rule registry: 40 ms of imports), called when a
    # carried file has issues; a clean file's copy is the same whatever they are
    skip_source: frozenset[str] | Callable[[], frozenset[str]] = frozenset()
    # the rules a file's own checks put on the index that lists it: carried with the file
    parent_rules: frozenset[str] = frozenset()
    notes: list[str] = field(default_factory=list)  # what went wrong, in words, for stderr
    carried: int = 0  # files that answered 304 and were carried over
    crossfile_carried: int | None = None  # cross-file issues copied (None: decided by this run)
    # a headless run reads no rows before its exploration ends: the copies wait for settle(),
    # which copies the previous exploration's tables whole when every file answered 304
    defer_rows: bool = False
    _pending: list[Pending] = field(default_factory=list)
    bodies: Path | None = None  # the previous exploration's kept bodies (the TUI's source view)

    @classmethod
    def open(cls, path: str | Path, skip_rules: frozenset[str] | Callable[[], frozenset[str]] = frozenset(),
             parent_rules: frozenset[str] = frozenset()) -> Refetch:
        """Raises StoreError when the previous store cannot be read."""
        return cls(PreviousExploration(path), skip_rules, parent_rules, bodies=bodies_beside(Path(path)))

    @property
    def skip_rules(self) -> frozenset[str]:
        if callable(self.skip_source):
            self.skip_source = self.skip_source()
        return self.skip_source

    def close(self) -> None:
        self.previous.close()

    def conditional(self, url: str, max_decoded: int | None = None,
                    *, want_body: bool = False) -> tuple[str | None, str | None] | None:
        """The validators to ask ``url`` with, or None to fetch it in full: unknown, dated (news,
        video, a lastmod in the future: findings of that day), read in part before, or larger
        than this run's ``max_decoded`` (a 304 would carry more than this run reads: the same
        file is cut now). ``want_body``: this run keeps bodies (the
        explorer's source view), and a 304 would leave it none unless the previous exploration
        kept one to copy (found from outside: every issue of a file that answered 304 showed
        "line 5 is past the end of the cached body")."""
        old = self.previous.validators(url)
        if old is None or old.read_in_part or old.dated:  # (dated: its findings were that day's)
            return None
        if want_body and self._old_body(old.id) is None:
            return None
        if max_decoded is not None and (old.decoded_bytes or 0) > max_decoded:
            return None
        return old.etag, old.last_modified

    def _old_body(self, old_id: int) -> Path | None:
        if self.bodies is None:
            return None
        path = body_path(self.bodies, old_id)
        return path if path.is_file() else None

    def carry_body(self, url: str, folder: Path, node_id: int) -> None:
        """The previous exploration's body of ``url`` kept as ``node_id``'s (after its 304);
        when it cannot be, the source view says the body was not kept."""
        old = self.previous.validators(url)
        source = self._old_body(old.id) if old is not None else None
        if source is not None:
            copy_body(source, folder, node_id)

    def carry(self, node: Node, done: JobDone, store: Store | None, *, output_format: str | None = None,
              keep_non_http: bool = True, on_output: Callable[[str | bytes], None] | None = None) -> CarryResult | None:
        """The 304 of ``node`` settled from the previous exploration; None when it cannot be
        (then the caller fetches the file in full, as ``notes`` says)."""
        old = self.previous.validators(node.url)
        if old is None:  # a 304 we did not ask for: no copy to show
            self._note(node, "answered 304 Not Modified to a request without validators")
            return None
        try:
            carried = self.previous.carried(old, self.parent_rules)
            # only the file's own issues are filtered: none, nothing to skip
            skip = self.skip_rules if carried.rules else frozenset()
            carried.rules -= skip
            count, issues = carried.count, 0
            if store is not None and self.defer_rows:
                pending = Pending(old, node.id, skip, self.parent_rules, node.url, node.parent_id)
                issues = self.previous.copy_issues(store, pending)
                self.previous.mark(store, node.id, carried.unchanged_since)
                self._pending.append(pending)  # (last: a failure above fetches the file in full)
            elif store is not None:
                count, issues = self.previous.copy(store, old, node.id, skip, parent_rules=self.parent_rules,
                                                   url=node.url, new_parent=node.parent_id)
                self.previous.mark(store, node.id, carried.unchanged_since)
            left_out = 0
            if output_format and on_output is not None:
                sitemap = done.outcome.final_url or node.url
                left_out = self._output(node, old, sitemap, output_format, keep_non_http, on_output)
        except sqlite3.DatabaseError as exc:
            self.previous.moved.pop(old.id, None)
            if store is not None:
                store.delete_node_data([node.id])  # nothing half-copied stays
            self._note(node, f"its previous copy could not be read ({exc})")
            return None
        self.carried += 1
        return CarryResult(self._done(node, done.outcome, carried, count), carried.rules, issues, left_out)

    def settle(self, store: Store) -> None:
        """The rows of the files carried with ``defer_rows``, copied into ``store`` now; raises
        StoreError when they cannot be (the run's store then lacks them: it must not be kept)."""
        pending, self._pending = self._pending, []
        try:
            self.previous.copy_all(store, pending)
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, StoreError):
                raise
            raise StoreError(self.previous.path, f"its rows could not be copied into the new exploration ({exc})") from exc

    def carry_crossfile(self, store: Store, rules: Iterable[str], marker: Any) -> int | None:
        """The cross-file issues of ``rules`` (those the files' carry left out) copied from the
        previous exploration, when they were decided there from the same ``marker`` over the
        same tree and rows; None when they cannot be (store/carry.py says when)."""
        try:
            self.crossfile_carried = self.previous.carry_crossfile(store, set(rules) & self.skip_rules, marker)
            return self.crossfile_carried
        except sqlite3.DatabaseError as exc:
            self.notes.append(f"the cross-file findings of the previous exploration could not be read ({exc}):"
                              " decided again")
            return None

    def _note(self, node: Node, why: str) -> None:
        self.notes.append(f"{display(node.url)} {why}: fetched again in full")

    @staticmethod
    def _done(node: Node, answer: FetchOutcome, carried: Carried, count: int) -> JobDone:
        stats = FileStats(**carried.stats)
        # the file's facts are its stored copy's; the times are this request's
        stats.gzipped = bool(stats.gzipped)
        stats.wire_bytes = stats.wire_bytes or 0
        stats.decoded_bytes = stats.decoded_bytes or 0
        stats.url_count = count
        stats.child_count = len(carried.children)
        stats.fetch_time = answer.stats.fetch_time
        stats.ttfb = answer.stats.ttfb
        stats.parse_time = 0.0
        stats.unchanged_since = carried.unchanged_since
        outcome = FetchOutcome(stats=stats, final_url=answer.final_url, redirect_chain=answer.redirect_chain,
                               not_modified=True, headers=answer.headers)
        kind = NodeKind(carried.kind)
        return JobDone(node.id, kind, outcome, carried.children, [], None, carried.agg or {}, count, 0.0)

    def _output(self, node: Node, old: OldFile, sitemap: str, fmt: str, keep_non_http: bool,
                on_output: Callable[[str | bytes], None]) -> int:
        """The old file's URL records, as the file's job would have formatted them; returns how
        many were left out (not http(s))."""
        left_out = 0
        if fmt == "jsonl":  # straight from the rows' columns, as the parsed entries' (format_entries)
            from sitemap_tui.engine.formats import stored_jsonl

            for rows in self.previous.record_rows(old):
                kept = rows if keep_non_http else [r for r in rows if has_http_scheme(r[1])]
                left_out += len(rows) - len(kept)
                text = stored_jsonl(self.previous.reads, kept, sitemap, node.lastmod_raw)
                if text:
                    on_output(text)
            return left_out
        if fmt == "txt":  # the URLs alone: straight from SQL, without records (10 M a night)
            for chunk in self.previous.loc_text(old):
                # checked per chunk of lines, in C, as nearly all are clean: every URL http(s)
                # (a line that starts otherwise may still be, HTTP:// say), none holding a line
                # break, and no character display() escapes
                data, lines = chunk.data, chunk.lines
                if (keep_non_http or data.startswith(_HTTP_UTF8) + data.count(b"\nhttps://") + data.count(b"\nhttp://") == lines) \
                        and data.count(b"\n") == lines - 1 and not utf8_lines_need_escaping(data):
                    on_output(data + b"\n")
                    continue
                locs = self.previous.locs(old, chunk)
                urls = locs if keep_non_http else [loc for loc in locs if has_http_scheme(loc)]
                left_out += len(locs) - len(urls)
                if urls:
                    on_output("\n".join(url_text(loc) for loc in urls) + "\n")
            return left_out
        buf = io.StringIO()
        writer = UrlWriter(buf, fmt)
        batch: list[UrlRecord] = []
        for record in records_from_rows(self.previous.reads, self.previous.rows(old)):
            if not keep_non_http and not has_http_scheme(record.loc):
                left_out += 1
                continue
            # where this run found it, and the <lastmod> this run's index gives the file
            record.sitemap = sitemap
            record.sitemap_lastmod = node.lastmod_raw
            batch.append(record)
            if len(batch) >= 2000:
                self._flush(buf, writer, batch, on_output)
        self._flush(buf, writer, batch, on_output)
        return left_out

    @staticmethod
    def _flush(buf: io.StringIO, writer: UrlWriter, batch: list[UrlRecord], on_output: Callable[[str], None]) -> None:
        buf.seek(0)
        buf.truncate()  # (the CSV header UrlWriter wrote first: the command wrote its own)
        writer.write(batch)
        batch.clear()
        text = buf.getvalue()
        if text:
            on_output(text)

"""The explorer's sitemap files: one file fetched, parsed and checked (here or in a worker
process), its batches applied to the tree and the store, its end settled (children added, issues
kept, what was cut or left out)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

from sitemap_tui.engine import urlpolicy
from sitemap_tui.engine.events import (
    EntriesAdded,
    IssuesAdded,
    Progress,
)
from sitemap_tui.engine.explore_robots import RobotsReading
from sitemap_tui.engine.explore_tree import (
    CUT_RULES,
    UNPARSABLE_RULES,
    Refused,
)
from sitemap_tui.engine.filejob import (
    FileJob,
    JobAnswered,
    JobBatch,
    JobDone,
    JobKind,
    JobMessage,
    JobProgress,
    JobRedirected,
    JobSpec,
)
from sitemap_tui.engine.keys import normalized
from sitemap_tui.engine.leftout import CROSS_HOST_CHILD, KEPT_INDEXES, RELATIVE_CHILD, LeftOut
from sitemap_tui.engine.model import (
    FoundBy,
    Node,
    NodeKind,
    NodeState,
    Severity,
)
from sitemap_tui.engine.parse_xml import PARSE_STOPPED
from sitemap_tui.engine.stats import Aggregate
from sitemap_tui.engine.store import ShardGone, StoreError
from sitemap_tui.engine.workers import WorkerPool
from sitemap_tui.words import plural

_ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # a URL with its scheme (an index child's)


class FileProcessing(RobotsReading):
    # a re-exploration's file answered with a body: the files after it go to the worker pool
    # (until then a file the previous exploration has validators for is asked for here: a 304
    # is never parsed, and a pool started for nothing costs a fresh interpreter per worker)
    _body_seen: bool = False

    # -- one file --------------------------------------------------------------------------
    async def _process(self, node: Node) -> None:
        if self.files_started >= self.options.max_files:
            self._skip(node, f"file budget reached (--max-files {self.options.max_files})")
            self._left[node.id] = LeftOut.BUDGET
            node.state = NodeState.PENDING  # can still be asked for explicitly
            return
        self.files_started += 1
        if node.error == "cancelled":
            # what an earlier, cancelled fetch stored (rows, issues, children) goes first: the new
            # fetch's rows are never counted with the old ones
            self._reset(node)
        self._left.pop(node.id, None)  # fetched after all (asked for, or resumed)
        self._cut.pop(node.id, None)
        try:
            if node.kind == NodeKind.ROBOTS or urlpolicy.names_robots_txt(node.url):
                await self._process_robots(node)
            else:
                await self._process_sitemap(node)
        except asyncio.CancelledError:
            self._mark_cancelled(node)
            raise
        except StoreError:
            raise  # not this file's fault: nothing more can be kept (expand_all stops)
        except Refused as exc:
            node.state = NodeState.FAILED
            node.error = str(exc)
            self._changed(node)
        except Exception as exc:  # one bad file never takes the tree down
            node.state = NodeState.FAILED
            node.error = f"internal error while processing: {type(exc).__name__}: {exc}"
            self.internal_errors.append(node.id)
            self._changed(node)

    async def _process_sitemap(self, node: Node) -> None:
        node.state = NodeState.FETCHING
        node.error = None
        self._changed(node)
        spec = JobSpec(
            node_id=node.id,
            url=node.url,
            local_path=str(urlpolicy.local_path(node.url)) if node.id in self._local_ok else None,
            ctx=self._ctx(node),
            output_format=self.options.output_format,
            want_rows=self.store is not None,
            want_stats=self.options.file_stats and (self.store is not None or not self.options.output_format),
            live_stats=self.options.live_stats,
            batch_size=self.options.batch_size,
            interval=(self.options.event_interval if self.options.flush_interval is None
                      else self.options.flush_interval),
            now=self.now,
            body_cache=str(self.options.body_cache) if self.options.body_cache else None,
            max_decoded=self.fetch_config.max_decoded,
            max_entries=self.options.max_entries,
            signature_key=self.store.signature_key() if self.store is not None else b"",
            keep_non_http=self.options.keep_non_http,
            sitemap_lastmod=node.lastmod_raw,
            judge=self.judge,
            conditional=(self.previous.conditional(node.url, self.fetch_config.max_decoded,
                                                   want_body=self.options.body_cache is not None)
                         if self.previous is not None and node.id not in self._in_full else None),
        )
        if node.url.startswith("file:") and spec.local_path is None:
            raise Refused("file: URLs are only read when given on the command line")
        apply = self._store_guard(self._applier(node))
        if await self._use_pool(node, spec):
            assert self._pool is not None
            try:
                done = await self._pool.run(spec, apply)
            except asyncio.CancelledError:
                self._pool.cancel_running()
                raise
        else:
            job = FileJob(spec, apply, self.checker,
                          cancelled=lambda: self._cancel or node.id in self._superseded)
            try:
                done = await job.run(self._fetcher)
            finally:
                self._gate.ended(node.id)
        if done.outcome.not_modified and node.id not in self._superseded:
            done = await self._not_modified(node, spec, done, apply)
        await self._target_robots_read()  # no file is judged before the site's robots.txt is in
        if node.id not in self._superseded:
            await self._settle_cross_submit(node, done)
        self._finish_file(node, done)

    async def _not_modified(self, node: Node, spec: JobSpec, done: JobDone,
                            apply: Callable[[JobMessage], None]) -> JobDone:
        """A 304: the previous exploration's copy carried over (engine/refetch.py), or, when
        that fails (said in the Refetch's notes), the file fetched in full here."""
        assert self.previous is not None
        o = self.options
        carried = self.previous.carry(node, done, self.store, output_format=o.output_format,
                                      keep_non_http=o.keep_non_http, on_output=self.on_output)
        if carried is None:
            spec.conditional = None
            job = FileJob(spec, apply, self.checker, cancelled=lambda: self._cancel or node.id in self._superseded)
            return await job.run(self._fetcher)
        if o.body_cache is not None:
            self.previous.carry_body(node.url, o.body_cache, node.id)
        self.output_left_out += carried.left_out
        for rule in carried.rules:
            if rule in CUT_RULES:
                self._cut.setdefault(node.id, CUT_RULES[rule])
        self.events.emit(EntriesAdded(node.id, carried.done.count))
        if carried.issues:
            self.events.emit(IssuesAdded(node.id, carried.issues))
        return carried.done

    async def _use_pool(self, node: Node, spec: JobSpec) -> bool:
        """Worker processes pay off for many files; a single file is parsed right here, and so
        is a re-exploration's file asked for conditionally while no file of it needed parsing
        (every file answering 304: no process started; the first that answers with a body is
        parsed here, the pool takes those after it), and, with ``lazy_pool``, the files of a
        small exploration (engine/pool_gate.py)."""
        if self.options.workers <= 0:
            return False
        if node.parent_id is None:
            return False
        self._gate.started += 1
        if self._pool is None and spec.conditional is not None and not self._body_seen:
            return False
        if self._pool is None and self.options.lazy_pool and not await self._gate.wanted(node.id):
            return False
        if self._pool is not None and not self._pool.alive:
            return False  # every worker died: parse here, as with --workers 0
        if self._pool is None:
            self._pool = WorkerPool(self.options.workers, self.fetch_config, self.checker, self._limiter)
        return True

    def _applier(self, node: Node) -> Callable[[JobMessage], None]:
        def apply(msg: JobMessage) -> None:
            if isinstance(msg, JobRedirected):
                self._claim(node, msg.final_url)
            elif node.id in self._superseded:
                return  # a copy of a file explored elsewhere: nothing of it is applied
            elif isinstance(msg, JobProgress):
                self.events.emit(Progress(node.id, msg.wire_bytes, msg.total))
            elif isinstance(msg, JobAnswered):
                if node.parent_id is not None and msg.http_status is not None and 200 <= msg.http_status < 300:
                    self._body_seen = True  # (an index that changed may list only 304s)
                node.stats.http_status = msg.http_status
                node.stats.content_type = msg.content_type
                self._changed(node)
            elif isinstance(msg, JobKind):
                node.kind = msg.kind
                node.state = NodeState.PARSING
                self._changed(node)
            elif isinstance(msg, JobBatch):
                self._apply_batch(node, msg)

        return apply

    def _apply_batch(self, node: Node, batch: JobBatch) -> None:
        issues = [i for i, _ in batch.issues]
        entry_ids: list[int | None] = [None] * len(issues)
        if self.store is not None and (batch.rows is not None or batch.shard is not None):
            try:
                ids = (self.store.add_rows(node.id, batch.rows) if batch.rows is not None
                       else self.store.copy_rows(node.id, batch.shard) if batch.shard is not None else [])
            except ShardGone:
                # its worker died and its files went with it: the file fails with that death
                # (WorkerDied, _process), which is what it says; the issues stay, on no entry
                ids = []
            entry_ids = [ids[idx] if idx is not None and idx < len(ids) else None for _, idx in batch.issues]
        if batch.text and self.on_output is not None:
            self.on_output(batch.text)
        self.output_left_out += batch.left_out
        node.stats.url_count = batch.count
        self._gate.parsed(node.id, batch.count)
        self.events.emit(EntriesAdded(node.id, batch.count))
        for iss in [*issues, *batch.unselected]:  # the file's account reads all of them
            if iss.severity == Severity.ERROR:
                self._last_error[node.id] = iss.message  # the parse stops at its last error
                if iss.rule in UNPARSABLE_RULES or iss.message.endswith(PARSE_STOPPED):
                    self._unparsable.setdefault(node.id, iss)
            if iss.rule in CUT_RULES:
                self._cut.setdefault(node.id, CUT_RULES[iss.rule])
        self._add_issues(node, issues, entry_ids)
        if batch.agg is not None:
            self._aggs[node.id] = batch.agg
        self._changed(node, agg=batch.agg)
        self._commit()

    def _finish_file(self, node: Node, done: JobDone) -> None:
        outcome = done.outcome
        last_error = self._last_error.pop(node.id, None)
        unparsable = self._unparsable.pop(node.id, None)
        if node.id in self._superseded:
            self._finish_superseded(node, done)
            return
        s = outcome.stats
        node.stats = s
        if done.kind is not None:
            node.kind = done.kind
        self._add_issues(node, done.issues)
        self._aggs[node.id] = done.agg
        for iss in [*done.issues, *done.unselected]:
            if iss.rule in CUT_RULES:
                self._cut.setdefault(node.id, CUT_RULES[iss.rule])
        if unparsable is not None:
            self._cut.setdefault(node.id, LeftOut.CUT_PARSE)
        if getattr(done.info, "replaced_at", None) is not None:  # (said: `urls` wrote the U+FFFDs unsaid)
            self._cut.setdefault(node.id, LeftOut.REPLACED)
        # children of an index become pending nodes: fetched when asked (lazy) or by expand_all
        cap = self.options.max_children
        base = outcome.final_url or node.url
        # the files a run keeps (shown, stored) past the ones it may fetch: four indexes' worth
        # (found by a review: indexes of 50,000 indexes each kept every listed child, fetched or
        # not, ~25 MB a file, 1.6 GB by the 40th; now counted and said past this). Which files
        # are dropped past it depends on which index finished first: high enough that no real
        # set (3 indexes of 30,000 files) reaches it, so two runs of one site keep the same
        kept_most = self.options.max_files + KEPT_INDEXES * cap
        dropped = 0
        base_server = urlpolicy.server_of(base)
        for i, child in enumerate(done.children):
            if child.loc is None or not child.loc.strip():
                continue
            if len(self.nodes) >= kept_most:
                # (a listing of a file already kept is no file missing: not counted)
                dropped += urlpolicy.normalize(urlpolicy.resolve(base, child.loc.strip())) not in self.visited
                continue
            raw = child.loc.strip()
            url = urlpolicy.resolve(base, raw)
            # (once: the server check and the visited check share it). normalize's key, without
            # its urlsplit calls for a URL of the common shape: 0.5-2 µs a child, not 4-6
            key = normalized(url)
            follow, why = True, None
            cause = None
            local = self._in_folder(node, url)
            if not _ABSOLUTE.match(raw):
                # (index-loc-invalid: Google reads no "incomplete URL" of an index; found from
                # outside, one was fetched against the index's own URL, two more errors for a
                # file the index does not name)
                follow, why, cause = False, RELATIVE_CHILD, LeftOut.RELATIVE
            elif local is not None:
                follow, why = False, local
            elif i >= cap:
                follow, why, cause = False, f"over the fan-out cap of {cap} children", LeftOut.FAN_OUT
            elif (
                not self.options.follow_cross_host
                and not url.startswith("file:")
                and not urlpolicy.same_server_key(key, url, base_server)
            ):
                follow, why = False, CROSS_HOST_CHILD
                cause = LeftOut.CROSS_HOST
                if base.startswith("file:"):  # (no host at all: "another host" sent users to the network)
                    why = "listed by a local file whose folder stands for no site (not fetched)"
                    cause = LeftOut.FROM_LOCAL
            self._add_child(node, url, FoundBy.INDEX, line=child.line, lastmod_raw=child.lastmod_raw,
                            follow=follow, why_not=why, cause=cause, key=key)
        if outcome.cancelled:
            node.state = NodeState.PENDING
            node.error = "cancelled"
            self._left[node.id] = LeftOut.CANCELLED
        elif outcome.error and done.count == 0 and not done.children:
            node.state = NodeState.FAILED
            node.error = outcome.error
        elif node.kind in (NodeKind.HTML, NodeKind.JSON, NodeKind.UNKNOWN):
            node.state = NodeState.FAILED
            node.error = {
                NodeKind.HTML: "not a sitemap: the server sent an HTML page",
                NodeKind.JSON: "not a sitemap: the server sent JSON",
            }.get(node.kind, "not a sitemap: the content was not recognised")
            if node.kind == NodeKind.UNKNOWN and last_error:
                # say why (a refused DOCTYPE, an unknown root element...), not only that
                node.error = f"not a sitemap: {last_error}"
        else:
            node.state = NodeState.DONE
            problems = []
            if outcome.error:
                problems.append(outcome.error)
                # entries came before the failure: a part of the file, said and --strict's; a
                # broken .gz is no download's fault (--timeout would not help)
                broken = outcome.error_rule == "gzip-corrupt"
                self._cut.setdefault(node.id, LeftOut.CUT_DECODE if broken else LeftOut.CUT_FETCH)
            if s.truncated_at:
                # the parser's own words on why (a stats line said only where; found from outside)
                why = ""
                if unparsable is not None:
                    reason = unparsable.message.removesuffix(PARSE_STOPPED)
                    why = f" ({reason[:157] + '...' if len(reason) > 160 else reason})"
                problems.append(f"parsing stopped at line:col {s.truncated_at}{why}; "
                                f"{plural(done.count, 'entry')} kept")
            elif self._cut.get(node.id) == LeftOut.CUT_ENTRIES:  # (said on the node as a cut parse is)
                problems.append(f"cut short: more than {self.options.max_entries:,} entries, the first"
                                f" {max(done.count, len(done.children)):,} kept, the rest not read")
            node.error = "; ".join(problems) or None
        if dropped:
            # (under --no-recursive they would not have been fetched: what was asked, not --strict's)
            self._left_uncounted[LeftOut.NODE_CAP if self.options.recursive else LeftOut.NOT_RECURSIVE] += dropped
            note = (f"{dropped:,} more listed sitemaps not kept: a run keeps at most {kept_most:,} listed files"
                    f" (--max-files {self.options.max_files:,}, and {KEPT_INDEXES} indexes' {cap:,})")
            node.error = f"{node.error}; {note}" if node.error else note
        node.expandable = bool(done.children)
        if node.state == NodeState.FAILED and self.checker is not None:
            rule = "file-is-html" if node.kind == NodeKind.HTML else (outcome.error_rule or "fetch-http-error")
            self._add_issues(node, self.checker.file_failed(self._ctx(node), rule, node.error or ""))
        elif unparsable is not None and self.checker is not None and not outcome.cancelled:
            where = f" at line {unparsable.line}" if unparsable.line else ""
            kept = ""
            if done.count:
                kept = ("; the entry before it was kept" if done.count == 1
                        else f"; the {done.count:,} entries before it were kept")
            reason = f"it cannot be parsed ({unparsable.rule}{where}: {unparsable.message}){kept}"
            self._add_issues(node, self.checker.file_failed(self._ctx(node), unparsable.rule, reason))
        self._changed(node, agg=Aggregate.from_json(done.agg))
        self._commit()

    def _finish_superseded(self, node: Node, done: JobDone) -> None:
        """A node whose redirect landed on a file explored elsewhere (see _claim): the fetch
        facts and the redirect warning stay, nothing of the body does."""
        node.stats = done.outcome.stats
        node.stats.url_count = 0
        node.stats.child_count = 0
        node.stats.truncated_at = None
        node.state = NodeState.SKIPPED
        node.error = self._superseded[node.id]
        node.expandable = False
        self._aggs.pop(node.id, None)
        self._add_issues(node, self._judged(done.outcome.findings))
        self._changed(node, agg=Aggregate())
        self._commit()

"""Deep checks (opt-in): fetch a sample of the listed pages and compare them with the sitemap.

For each sitemap node, a deterministic, **evenly spaced** sample of its entries (by entry id:
``sample`` entries at ranks ``i * n // sample``, so a 50,000-URL file is sampled from start to
end, not just its first lines; ``sample=None`` takes every entry) is checked:

* the page: status (``deep-status-3xx/4xx/5xx``; where a redirect leads), then, on a 200 HTML
  page, ``deep-soft-404`` (title/heading heuristic), ``deep-noindex`` (meta robots/googlebot/
  bingbot in the first 256 KiB, and the ``X-Robots-Tag`` header), ``deep-non-canonical``
  (``<link rel=canonical>`` or a ``Link`` header pointing elsewhere), ``deep-lastmod-vs-header``
  (``<lastmod>`` more than a year away from ``Last-Modified``) and ``hreflang-html-conflict``
  (the page's own ``<link rel=alternate hreflang>`` / ``Link`` annotations disagree with the
  sitemap's);
* its alternates (at most ``sample`` distinct targets per sitemap): ``hreflang-target-not-indexable``;
* its videos: ``video-content-not-media`` (``content_loc`` served as something other than a
  video) and ``video-thumbnail-problem`` (not fetchable, not an image, or under 60x30 px).

Each URL's robots.txt is obeyed for our own user agent, as ``audit`` obeys it (engine/robots_gate):
a page, alternate or video file it disallows is not fetched and has no finding, its Crawl-delay
spaces the requests to its host, and the run says how many were left out (``ignore_robots``
fetches them: the user's own site behind a staging robots.txt). Requests go through the
engine's ``Fetcher``, so the deep checks follow the same policies as the exploration (issue
15): -H headers only to the target's origin, no connection to a private or local address
unless the target is in that range (a refused URL is a
``fetch-private-address`` finding on the entry), redirects by hand (http/https only, at most
``max_redirects``, loops detected), bounded decoding. HEAD when only the status and headers
matter (falling back to GET on 405/501); GET when the body is needed (then at most ``max_body``
decoded bytes are read). No retries: a 5xx is what the check reports. Every URL runs under its
own overall deadline (``timeout``, all hops), each hop waits for its host's token bucket (burst
1: requests to one host are at least ``1/rate`` s apart), and at most ``concurrency`` requests
are in flight. Each URL is fetched once per run (results are cached by normalised URL). A URL
``sitemap-tui audit`` fetched in this exploration is read from its stored result instead
(deep_fetch.stored_probe), unless the audit did not fetch it or did not read the page a check needs.

How a URL is fetched is deep_fetch's (Prober, Probe); what a page or image says, deep_page's; an entry's videos, deep_video's;
this module samples the entries, runs the checks and stores what they find.

Cancellation: set ``cancel_event`` (or cancel the task); ``run_deep`` stops the requests in
flight and returns the number of issues stored so far.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from sitemap_tui.engine.audit_page import page_key
from sitemap_tui.engine.fetch import (
    RULE_PRIVATE_ADDRESS,
    FetchConfig,
)
from sitemap_tui.engine.keys import url_key
from sitemap_tui.engine.model import Issue
from sitemap_tui.engine.robots import parse_robots
from sitemap_tui.engine.store import IssueScope, Store
from sitemap_tui.engine.store.access import robots_texts, robots_unread
from sitemap_tui.engine.store.audit import AuditRow, result_of
from sitemap_tui.engine.store.deep import entry_alternates, entry_counts, entry_pages, entry_videos
from sitemap_tui.engine.urlpolicy import normalize, resolve, unfetchable_reason
from sitemap_tui.validate.crossfile import issue
from sitemap_tui.validate.deep_fetch import Probe, Prober, RateLimiter
from sitemap_tui.validate.deep_page import (
    PageFacts,
    analyse_html,
    image_size,
    parse_http_date,
    parse_link_header,
    x_robots_noindex,
)
from sitemap_tui.validate.deep_video import MAX_VIDEOS_PER_ENTRY, video_issues

__all__ = [
    "DEEP_RULES",
    "DeepOptions",
    "PageFacts",
    "RateLimiter",
    "analyse_html",
    "image_size",
    "parse_link_header",
    "run_deep",
    "sample_ranks",
    "x_robots_noindex",
]

DEEP_RULES: tuple[str, ...] = (
    "deep-status-3xx",
    "deep-status-4xx",
    "deep-status-5xx",
    "deep-soft-404",
    "deep-noindex",
    "deep-non-canonical",
    "deep-lastmod-vs-header",
    "video-content-not-media",
    "video-thumbnail-problem",
    "hreflang-target-not-indexable",
    "hreflang-html-conflict",
)
PAGE_RULES = frozenset(DEEP_RULES[:7]) | {"hreflang-html-conflict"}
BODY_RULES = frozenset(
    {"deep-soft-404", "deep-noindex", "deep-non-canonical", "hreflang-html-conflict"}
)
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
LASTMOD_TOLERANCE_DAYS = 365
DAY = 86400
_SOFT404_RE = re.compile(
    r"\b(?:404|410)\b|not\s+found|page\s+(?:does\s+not|doesn'?t|cannot\s+be)\s+(?:exist|found)"
    r"|no\s+longer\s+(?:exists?|available)|nicht\s+gefunden|introuvable|no\s+encontrad"
    r"|non\s+trovat|niet\s+gevonden",
    re.IGNORECASE,
)
_ERROR_PATH_RE = re.compile(
    r"/(?:404|410|not-?found|error|page-not-found)(?:\.[a-z]{2,5})?/?$", re.I
)


@dataclass(slots=True)
class DeepOptions:
    sample: int | None = 100  # entries per sitemap, evenly spaced; None = all
    rate: float = 5.0  # requests per second per host (token bucket, burst 1); <= 0: no limit
    timeout: float = 15.0  # overall deadline of one request (headers and body)
    concurrency: int = 8  # requests in flight
    # decoded bytes of a page read for meta robots / canonical / hreflang
    max_body: int = 256 * 1024
    max_redirects: int = 10
    ignore_robots: bool = False  # fetch what robots.txt disallows for our agent (the user's own site)


# -- pure helpers ----------------------------------------------------------------------------
def sample_ranks(n: int, sample: int | None) -> list[int]:
    """Ranks (0-based) of an evenly spaced sample of ``sample`` out of ``n`` items."""
    if sample is None or sample >= n:
        return list(range(n))
    if sample <= 0:
        return []
    return [(i * n) // sample for i in range(sample)]


class _Deep:
    def __init__(
        self,
        store: Store,
        config: FetchConfig,
        options: DeepOptions,
        enabled: set[str] | None,
        on_progress: Callable[[int, int], None] | None,
        on_note: Callable[[str], None] = lambda _t: None,
    ) -> None:
        self.store = store
        self.on_note = on_note
        self.options = options
        self.rules = {r for r in DEEP_RULES if enabled is None or r in enabled}
        self.on_progress = on_progress
        self.prober = Prober(
            config,
            store.root_url,
            RateLimiter(options.rate),
            timeout=options.timeout,
            max_body=options.max_body,
            max_redirects=options.max_redirects,
            concurrency=options.concurrency,
            stored=self._stored,
            robots=not options.ignore_robots,
            on_note=on_note,
        )
        if self.prober.gate is not None:  # the exploration's robots.txt files: not asked again
            for robots_url, text in robots_texts(store.conn):
                self.prober.know(robots_url, parse_robots(text.encode("utf-8", "surrogatepass"), robots_url))
            for robots_url, why in robots_unread(store.conn):
                self.prober.unread(robots_url, why)
        self.written = 0
        self.done = 0
        self.total = 0
        self.unchecked = 0  # entries whose checks failed (said at the end)
        self.unchecked_first: str | None = None
        self.alt_budget: dict[int, int] = {}  # node id -> alternate targets still to check
        self.alt_seen: dict[int, set[str]] = {}

    def _stored(self, url: str) -> AuditRow | None:
        """What `sitemap-tui audit` stored for ``url`` in this exploration (read, not fetched)."""
        key = url_key(url)
        return result_of(self.store, key) if key else None

    def on(self, *rules: str) -> bool:
        return any(r in self.rules for r in rules)

    # -- evaluation ------------------------------------------------------------------------------
    def _status_issues(self, row: tuple[Any, ...], p: Probe) -> list[Issue]:
        eid, node_id, loc, line, lastmod, lastmod_raw = row
        out: list[Issue] = []

        def add(rule: str, **fields: object) -> None:
            if rule in self.rules:
                out.append(issue(rule, node_id=node_id, line=line, url=loc, **fields))

        if p.redirects or p.redirect_problem:
            target = p.final_url
            if p.redirect_problem:
                target = (
                    f"{p.final_url} ({p.redirect_problem})" if p.redirects else p.redirect_problem
                )
            elif p.error:
                target += f" (which does not answer: {p.error})"
            elif p.status is not None and p.status != 200:
                target += f" (which answers HTTP {p.status})"
            add("deep-status-3xx", target=target)
        elif p.error:
            add("deep-status-5xx", status=f"nothing ({p.error})")
            return out
        elif p.status is not None and 400 <= p.status <= 499 and p.status != 429:
            add("deep-status-4xx", status=f"{p.status} ({p.why})" if p.why else p.status)
        elif p.status is not None and p.status >= 500:
            add(
                "deep-status-5xx",
                status=f"HTTP {p.status} {httpx.codes.get_reason_phrase(p.status)}".strip(),
            )
        if p.status != 200 or not p.answered:
            return out
        # a 200 answer (possibly after redirects): headers and body
        xrt = x_robots_noindex(p.x_robots)
        facts = p.facts
        if xrt is not None:
            add("deep-noindex", where=f"X-Robots-Tag: {xrt}")
        elif facts is not None and facts.noindex is not None:
            add("deep-noindex", where=facts.noindex)
        canonical = facts.canonical if facts is not None else None
        if canonical is None:
            for target, params in parse_link_header(p.links):
                if "canonical" in params.get("rel", "").lower().split():
                    canonical = resolve(p.final_url, target)
                    break
        if canonical and page_key(canonical) != page_key(p.final_url):
            add("deep-non-canonical", target=canonical)
        if facts is not None and "deep-soft-404" in self.rules:
            reason = None
            for label, text in (("title", facts.title), ("heading", facts.h1)):
                if text and _SOFT404_RE.search(text):
                    reason = f"its {label} is {text[:120]!r}"
                    break
            if (
                reason is None
                and p.redirects
                and _ERROR_PATH_RE.search(p.final_url.split("?", 1)[0])
            ):
                reason = f"it redirects to {p.final_url}"
            if reason:
                add("deep-soft-404", reason=reason)
        if lastmod is not None and "deep-lastmod-vs-header" in self.rules:
            header = p.last_modified
            when = parse_http_date(header)
            if when is not None:
                days = abs(int(when.timestamp()) - int(lastmod)) // DAY
                if days > LASTMOD_TOLERANCE_DAYS:
                    add(
                        "deep-lastmod-vs-header",
                        value=(lastmod_raw or "").strip(),
                        header=header,
                        days=days,
                    )
        return out

    def _html_conflict(
        self, row: tuple[Any, ...], p: Probe, sitemap_alts: list[tuple[str, str]]
    ) -> list[Issue]:
        eid, node_id, loc, line, *_ = row
        if "hreflang-html-conflict" not in self.rules or p.status != 200 or p.redirects:
            return []
        page: set[tuple[str, str]] = set()
        if p.facts is not None:
            page |= {(lang, normalize(href)) for lang, href in p.facts.alternates}
        if p.links:
            for target, params in parse_link_header(p.links):
                if "alternate" in params.get("rel", "").lower().split() and params.get("hreflang"):
                    page.add(
                        (
                            params["hreflang"].strip().lower(),
                            normalize(resolve(p.final_url, target)),
                        )
                    )
        mine = {(lang, normalize(href)) for lang, href in sitemap_alts}
        if not page or not mine or page == mine:
            return []
        by_lang_s: dict[str, set[str]] = {}
        by_lang_p: dict[str, set[str]] = {}
        for lang, href in mine:
            by_lang_s.setdefault(lang, set()).add(href)
        for lang, href in page:
            by_lang_p.setdefault(lang, set()).add(href)
        parts = []
        for lang in sorted(by_lang_s.keys() | by_lang_p.keys()):
            s, h = by_lang_s.get(lang), by_lang_p.get(lang)
            if s == h:
                continue
            if s and h:
                parts.append(f"{lang}: sitemap {', '.join(sorted(s))}, page {', '.join(sorted(h))}")
            elif s:
                parts.append(f"{lang} only in the sitemap")
            else:
                parts.append(f"{lang} only in the page")
        detail = "; ".join(parts[:3]) + (f"; {len(parts) - 3} more" if len(parts) > 3 else "")
        return [issue("hreflang-html-conflict", node_id=node_id, line=line, url=loc, detail=detail)]

    async def _target_issue(
        self, row: tuple[Any, ...], href: str, refused: dict[str, str]
    ) -> Issue | None:
        eid, node_id, loc, line, *_ = row
        p = await self.prober.probe(href, "page")
        if p.refused:
            refused.setdefault(href, p.refused)
        if p.blocked:
            return None  # not asked for: robots.txt disallows it (said once for the run)
        if p.redirects or p.redirect_problem:
            reason = f"it redirects to {p.final_url}" + (
                f" ({p.redirect_problem})" if p.redirect_problem else ""
            )
        elif p.error:
            reason = f"no answer ({p.error})"
        elif p.status != 200:
            reason = f"it answers HTTP {p.status}"
        else:
            reason = None
            xrt = x_robots_noindex(p.x_robots)
            if xrt is not None:
                reason = f"noindex (X-Robots-Tag: {xrt})"
            elif p.facts is not None and p.facts.noindex:
                reason = f"noindex ({p.facts.noindex})"
            elif (
                p.facts is not None
                and p.facts.canonical
                and page_key(p.facts.canonical) != page_key(p.final_url)
            ):
                reason = f"its canonical URL is {p.facts.canonical}"
        if reason is None:
            return None
        return issue(
            "hreflang-target-not-indexable",
            node_id=node_id,
            line=line,
            url=loc,
            target=href,
            reason=reason,
        )

    async def check_entry(self, row: tuple[Any, ...]) -> None:
        eid, node_id, loc, line, lastmod, lastmod_raw = row
        loc = (loc or "").strip()
        row = (eid, node_id, loc, line, lastmod, lastmod_raw)
        issues: list[Issue] = []
        if not loc or unfetchable_reason(loc) is not None:
            return
        alts: list[tuple[str, str]] = []
        if self.on("hreflang-html-conflict", "hreflang-target-not-indexable"):
            for rel, lang, href in entry_alternates(self.store, eid):
                lang, href = (lang or "").strip(), (href or "").strip()
                if (rel or "").strip().lower() == "alternate" and lang and href:
                    alts.append((lang.lower(), href))
        pending: list[Any] = []
        refused: dict[str, str] = {}  # URL -> why the address policy did not fetch it
        page_task = None
        if self.rules & PAGE_RULES:
            mode = "page" if self.rules & BODY_RULES else "head"
            page_task = self.prober.probe(loc, mode)
        if "hreflang-target-not-indexable" in self.rules and alts:
            seen = self.alt_seen.setdefault(node_id, set())
            mine = {
                normalize(loc)
            }  # itself, and each target once (en and x-default often share one)
            for _lang, href in alts:
                key = normalize(href)
                if key in mine or unfetchable_reason(href) is not None:
                    continue
                mine.add(key)
                if key not in seen:
                    if self.alt_budget.get(node_id, 1) <= 0:
                        continue
                    seen.add(key)
                    if node_id in self.alt_budget:
                        self.alt_budget[node_id] -= 1
                pending.append(self._target_issue(row, href, refused))
        if self.on("video-content-not-media", "video-thumbnail-problem"):
            videos = entry_videos(self.store, eid, MAX_VIDEOS_PER_ENTRY)
            pending += [video_issues(self.prober, self.rules, row, v, refused) for v in videos]
        if page_task is not None:
            p = await page_task
            if p.refused:
                refused[loc] = p.refused
            if not p.blocked and (not p.refused or p.redirects):  # a page never asked for has no status to report
                issues += self._status_issues(row, p)
                issues += self._html_conflict(row, p, alts)
        for result in await asyncio.gather(*pending):
            if result is None:
                continue
            if isinstance(result, list):
                issues += result
            else:
                issues.append(result)
        for url, reason in refused.items():
            said = reason if url == loc else f"{url}: {reason}"  # an alternate, a video file
            issues.append(
                issue(RULE_PRIVATE_ADDRESS, node_id=node_id, line=line, url=loc, reason=said)
            )
        if issues:
            self.store.add_issues(issues, [eid] * len(issues))
            self.written += len(issues)

    # -- sampling and driving ---------------------------------------------------------------------
    def rows(self, nodes: list[tuple[int, int]]) -> Iterator[tuple[Any, ...]]:
        """The sampled entries of each (node, entry count), in id order."""
        for nid, n in nodes:
            ranks = sample_ranks(n, self.options.sample)
            if not ranks:
                continue
            self.alt_budget[nid] = (
                self.options.sample if self.options.sample is not None else 1 << 62
            )
            if len(ranks) == n:
                for page in entry_pages(self.store, nid):
                    yield from page
                continue
            wanted = set(ranks)
            rank = 0
            for page in entry_pages(self.store, nid):  # keeping the sampled ranks
                for row in page:
                    if rank in wanted:
                        yield row
                    rank += 1
                if rank > ranks[-1]:
                    break

    def forget_previous(self, nodes: list[tuple[int, int]]) -> None:
        if not nodes:
            return
        # fetch-private-address is the explorer's too (on files): only entry-level ones are ours
        rules = sorted(self.rules | {RULE_PRIVATE_ADDRESS})
        self.store.forget_issues(
            IssueScope(rules, node_ids=[n for n, _ in nodes], entries_only=True)
        )

    async def run(self, node_ids: Sequence[int] | None) -> int:
        if not self.rules:
            return 0
        nodes = entry_counts(self.store, node_ids)
        self.forget_previous(nodes)
        self.total = sum(len(sample_ranks(n, self.options.sample)) for _, n in nodes)
        listed = sum(n for _, n in nodes)
        if self.total < listed:  # a cut: said before the first request, not found out afterwards
            self.on_note(f"deep checks: a sample of {self.options.sample:,} URLs per sitemap, {self.total:,}"
                         f" of {listed:,} listed URLs (--sample all checks every one)")
        it = self.rows(nodes)
        await self.prober.open()
        try:
            workers = [
                asyncio.create_task(self._worker(it))
                for _ in range(max(1, self.options.concurrency))
            ]
            try:
                await asyncio.gather(*workers)
            finally:
                for w in workers:
                    w.cancel()
                await asyncio.gather(*workers, return_exceptions=True)
        finally:
            await self.prober.close()
            if self.unchecked:
                self.on_note(f"deep checks: {self.unchecked:,} URL{'' if self.unchecked == 1 else 's'} could not be"
                             f" checked, first {self.unchecked_first}")
            served = self.prober.served_as_said()
            if served is not None:
                self.on_note(served)
            if self.prober.blocked:
                n = len(self.prober.blocked)
                self.on_note(f"deep checks: {n} URL{'' if n == 1 else 's'} not fetched: robots.txt disallows"
                             f" {'it' if n == 1 else 'them'} for {self.prober.agent} (--ignore-robots fetches them)")
        return self.written

    async def _worker(self, it: Iterator[tuple[Any, ...]]) -> None:
        for row in it:
            # One odd entry (bad stored JSON, ...) never ends the run; cancellation still does.
            # It is counted and said (a URL left unchecked in silence passed CI).
            try:
                await self.check_entry(row)
            except Exception as exc:  # noqa: BLE001 - any failure of one entry's checks
                self.unchecked += 1
                if self.unchecked_first is None:
                    self.unchecked_first = f"{row[2]}: {type(exc).__name__}: {exc}"
            self.done += 1
            if self.on_progress is not None:
                self.on_progress(self.done, self.total)


async def run_deep(
    store: Store,
    fetch_config: FetchConfig | None,
    options: DeepOptions | None = None,
    *,
    enabled: set[str] | None = None,
    node_ids: Sequence[int] | None = None,
    cancel_event: asyncio.Event | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    on_note: Callable[[str], None] = lambda _t: None,
) -> int:
    """Run the deep checks on a sample of each sitemap's entries; returns the issues stored.

    ``enabled``: rule ids to run (None = all); ``node_ids``: sitemaps to sample (None = all);
    ``cancel_event``: set it to stop (the issues found so far stay); ``on_progress(done,
    total)``: after each entry; ``on_note(text)``: what the user must be told (URLs robots.txt
    kept from the checks, a robots.txt that could not be read)."""
    deep = _Deep(
        store, fetch_config or FetchConfig(), options or DeepOptions(), enabled, on_progress, on_note
    )
    main = asyncio.ensure_future(deep.run(node_ids))
    if cancel_event is None:
        return await main
    waiter = asyncio.ensure_future(cancel_event.wait())
    try:
        await asyncio.wait({main, waiter}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        main.cancel()
        waiter.cancel()
        raise
    waiter.cancel()
    if not main.done():
        main.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await main
        return deep.written
    return main.result()

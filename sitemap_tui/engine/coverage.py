"""What is missing from the sitemaps (issue 22 section 3), after ``audit`` fetched the listed URLs:

* ``--compare-list``: a user's URL list (a crawl export, Search Console, server logs) is stored;
  its URLs that no sitemap lists are fetched (at most ``list_fetch``) for the audit's own
  indexability verdict, so "missing from the sitemaps" counts pages that should be listed;
* ``--crawl N``: a link crawl from the target's home page, breadth first, at most N pages fetched,
  same host only; every page through the audit's own ``Auditor`` (robots.txt, rate, Crawl-delay,
  Retry-After, caps), its ``<a href>`` read within the audit's byte cap. A listed URL none of the
  crawled pages links to is an orphan: "not linked from the N crawled pages", no more.

Both go through engine/store/coverage.py as they go, so a stopped run goes on where it stopped."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from sitemap_tui.engine.audit import AuditOptions, Auditor
from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.keys import url_key
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store import coverage as cov
from sitemap_tui.engine.store.audit import AuditRow, TodoUrl
from sitemap_tui.engine.urlpolicy import server_of

__all__ = ["CRAWL_HOST", "CoverageOptions", "CoverageRun", "home_page"]

CRAWL_HOST = "crawl_host"  # meta key


@dataclass(frozen=True, slots=True)
class CoverageOptions:
    list_urls: Sequence[tuple[str, str]] | None = None  # (key, loc) of --compare-list; None: no list
    list_fetch: int | None = None  # at most this many list URLs of no sitemap fetched; None: all
    crawl: int | None = None  # pages; None: no crawl


def home_page(target: str) -> str | None:
    """The home page of a web target (its origin's ``/``); None for a local one."""
    parts = urlsplit(target)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}/"


class CoverageRun:
    """``await run()`` fetches the list's unlisted URLs, then crawls; ``on_note`` says every cut."""

    def __init__(self, store: Store, config: FetchConfig, options: AuditOptions, cover: CoverageOptions, *,
                 on_note: Callable[[str], None] = lambda _t: None, after: Auditor | None = None) -> None:
        self.store = store
        self.cover = cover
        self.on_note = on_note
        # links are read only by the crawl: a list URL's fetch stops at </head> as the audit's does
        self.auditor = Auditor(store, config, replace(options, links=cover.crawl is not None), on_note=on_note)
        if after is not None:
            # the audit's robots.txt answers and host pacing (Crawl-delay, Retry-After pauses) carry
            # on: robots.txt is not asked twice, and no host gets a fresh burst
            self.auditor.gate.carry(after.gate)
            self.auditor.pace = after.pace
        self.batch = max(1, options.concurrency)

    async def run(self) -> None:
        if self.cover.list_urls is not None:
            cov.add_list(self.store, self.cover.list_urls)
        await self.auditor.open()
        try:
            if self.cover.list_urls is not None:
                await self._fetch_list()
            if self.cover.crawl is not None:
                await self._crawl(self.cover.crawl)
        finally:
            await self.auditor.close()

    def _other_host(self, url: str) -> bool:
        # (the auditor's hosts are servers: a host, with a port that is not the scheme's default)
        return not self.auditor.options.follow_cross_host and (server_of(url) or "") not in self.auditor.hosts

    async def _one(self, key: str, loc: str) -> AuditRow:
        if self._other_host(loc):
            return AuditRow(key, loc, note="not fetched: another host than the sitemaps' (--follow-cross-host)")
        return await self.auditor.audit_one(TodoUrl(key, loc, None, None))

    # -- the list --------------------------------------------------------------------------
    async def _fetch_list(self) -> None:
        budget = self.cover.list_fetch
        done = cov.list_fetched(self.store)
        other = robots_only = 0
        while budget is None or done < budget:
            room = self.batch if budget is None else min(self.batch, budget - done)
            todo = cov.list_todo(self.store, room)
            if not todo:
                break
            rows = await asyncio.gather(*(self._one(k, loc) for k, loc in todo))
            cov.set_fetched(self.store, rows)
            ours = [r for r in rows if self.auditor.robots_ours_only(r)]
            robots_only += len(ours)
            other += sum(1 for r in rows if r.fetched_at is None) - len(ours)
            done += len(rows)
        left = len(cov.list_todo(self.store, 1_000_000_000)) if budget is not None else 0
        if left:
            self.on_note(f"--compare-list: {left} URL(s) of the list in no sitemap were not fetched (--sample "
                         f"{budget} fetches at most {budget}): their indexability is unknown, they are not counted"
                         " as missing")
        if other:
            self.on_note(f"--compare-list: {other} URL(s) of the list on another host than the sitemaps' not "
                         "fetched (--follow-cross-host fetches them)")
        if robots_only:
            self.on_note(f"--compare-list: {robots_only} URL(s) of the list in no sitemap not fetched: robots.txt "
                         f"disallows them for {self.auditor.agent}, not for Googlebot, so their indexability is "
                         "unknown (--ignore-robots fetches them)")

    # -- the crawl -------------------------------------------------------------------------
    async def _crawl(self, limit: int) -> None:
        start = home_page(self.auditor.config.target or "")
        if start is None:
            self.on_note("--crawl: the target is no web site: nothing crawled")
            return
        cov.queue_home(self.store, url_key(start) or start, start)
        # the crawl's host: the home page's, or the host it redirects to when that host serves the
        # sitemaps (example.com -> www.example.com); kept in the store for a resumed crawl
        saved = self.store.get_meta(CRAWL_HOST)
        # a server, host[:port] (found from outside: a link to another port of the same host was
        # crawled and its pages counted as missing from the sitemaps, which cannot list them)
        host = saved if isinstance(saved, str) else server_of(start) or ""
        other_links = long_pages = 0
        while (done := cov.crawled(self.store)) < limit:
            todo = cov.crawl_todo(self.store, min(self.batch, limit - done))
            if not todo:
                break
            rows = await asyncio.gather(*(self.auditor.audit_one(TodoUrl(k, loc, None, None)) for k, loc, _ in todo))
            results = []
            for (_, _, depth), row in zip(todo, rows, strict=True):
                final = row.final_url or row.loc
                final_host = server_of(final) or ""
                if depth == 0 and saved is None:
                    host = self._crawl_host(start, final, final_host, host)
                links: list[tuple[str, str]] = []
                # a redirect is followed as a link is: its target is reached from this page
                for link in ([final] if row.redirects else []) + (row.links if final_host == host else []):
                    if (server_of(link) or "") != host:
                        other_links += 1
                        continue
                    k = url_key(link)
                    if k:
                        links.append((k, link))
                long_pages += bool(row.note and row.note.startswith("read the first"))
                blocked = self.auditor.agent in row.blocked_for and not self.auditor.options.ignore_robots
                results.append(cov.CrawlResult(row, depth, blocked, links))
            cov.add_crawl_results(self.store, results)
        self._said(limit, host, other_links, long_pages)

    def _crawl_host(self, start: str, final: str, final_host: str, host: str) -> str:
        if final_host != host and final_host in self.auditor.hosts:  # (servers: host[:port])
            self.on_note(f"--crawl: the home page {start} redirects to {final}: the crawl follows links on {final_host}")
            host = final_host
        elif final_host != host:
            self.on_note(f"--crawl: the home page {start} redirects to {final}, a host that serves no sitemap: only "
                         f"links on {host} are followed")
        self.store.set_meta(CRAWL_HOST, host)
        return host

    def _said(self, limit: int, host: str, other_links: int, long_pages: int) -> None:
        counts = cov.coverage_counts(self.store, listed=False, crawl=True)
        if counts["crawl_queued"]:
            self.on_note(f"--crawl: stopped at {limit} pages (the cap): {counts['crawl_queued']} linked page(s) on "
                         f"{host} were found but not crawled; orphans mean 'not linked from the {limit} crawled "
                         "pages'")
        if counts["crawl_robots"]:
            self.on_note(f"--crawl: {counts['crawl_robots']} page(s) not crawled: robots.txt disallows them "
                         f"for {self.auditor.agent} (--ignore-robots crawls them)")
        if other_links:
            self.on_note(f"--crawl: {other_links} link(s) to other hosts or ports than {host} not followed"
                         " (its own pages only)")
        if long_pages:
            kib = self.auditor.options.max_head // 1024
            self.on_note(f"--crawl: {long_pages} page(s) longer than {kib} KiB: their links after the first {kib} KiB"
                         " were not read")

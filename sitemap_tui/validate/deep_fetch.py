"""How the deep checks fetch: every URL through the engine's Fetcher (so the exploration's rules
hold: -H headers only to the target's origin, no private or local address unless the target is
in that range, redirects by hand, bounded decoding), paced per host, once per run each, and
kept as a small :class:`Probe` (a few headers, never the body)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import httpx

from sitemap_tui.engine.audit_page import expired_directive
from sitemap_tui.engine.fetch import (
    RULE_PRIVATE_ADDRESS,
    FetchConfig,
    Fetcher,
    FetchOutcome,
    StopFetch,
)
from sitemap_tui.engine.robots import RobotsFile
from sitemap_tui.engine.robots_gate import (
    CRAWL_DELAY_CAP,
    RobotsGate,
    agent_token,
    crawl_delay,
    crawl_delay_said,
)
from sitemap_tui.engine.store.audit import AuditRow
from sitemap_tui.engine.urlpolicy import normalize
from sitemap_tui.validate.deep_page import PageFacts, analyse_html, image_size, mime_of

__all__ = ["Probe", "Prober", "RateLimiter", "stored_probe"]

THUMBNAIL_READ = 64 * 1024  # enough for the dimensions of PNG/GIF/JPEG/WebP
CACHE_MAX = 50_000  # probes remembered (each a few hundred bytes: no bodies, few headers)
HTML_TYPES = ("text/html", "application/xhtml+xml")


def _host_key(url: str) -> str:
    try:
        return httpx.URL(url).netloc.decode("ascii", "replace").lower()
    except Exception:
        return url.split("/", 3)[2].lower() if url.count("/") >= 2 else url


# -- rate limit ------------------------------------------------------------------------------
class RateLimiter:
    """A token bucket per host with a burst of one: requests to a host are spaced 1/rate apart.

    Each caller reserves the next free slot synchronously (no await between reading and moving
    the slot), so concurrent tasks queue up in order without a lock."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate if rate and rate > 0 else 0.0
        self.delay: dict[str, float] = {}  # host -> its robots.txt's Crawl-delay, when wider
        self._next: dict[str, float] = {}

    async def wait(self, host: str) -> None:
        interval = max(self.interval, self.delay.get(host, 0.0))
        if interval <= 0:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        slot = max(now, self._next.get(host, now))
        self._next[host] = slot + interval
        if slot > now:
            await asyncio.sleep(slot - now)


# -- fetching --------------------------------------------------------------------------------
@dataclass(slots=True)
class Probe:
    """The outcome of one URL (after following redirects)."""

    url: str
    final_url: str
    status: int | None = None  # of the final response
    error: str | None = None  # no usable response (timeout, connection, refused URL)
    redirects: int = 0
    redirect_problem: str | None = None  # loop, too many, refused target, no Location
    content_type: str | None = None
    answered: bool = False  # a final (non-redirect) response came in: the fields below are its
    x_robots: list[str] = field(default_factory=list)  # X-Robots-Tag values
    links: list[str] = field(default_factory=list)  # Link header values
    last_modified: str | None = None
    facts: PageFacts | None = None  # "page" mode, 200 HTML: what the body says
    image: tuple[int, int] | None = None  # "image" mode, 200: dimensions from the first bytes
    refused: str | None = None  # the address policy refused a hop (netpolicy): why
    blocked: bool = False  # robots.txt disallows the URL for our user agent: never asked for
    why: str | None = None  # a --map's build answering 4xx: its reason (not found in ./public: x)

    @property
    def mime(self) -> str | None:
        return mime_of(self.content_type)


class Prober:
    """The run's fetching: :meth:`probe` hands out one shared task per (mode, URL).

    ``config``: the run's fetch config; ``root_url``: asked for the target when the config has
    none (a saved exploration's root); ``limiter``: the per-host pacing; ``timeout`` (all hops
    of one URL), ``max_body`` (decoded bytes of a page read), ``max_redirects`` and
    ``concurrency`` come from the deep options."""

    def __init__(
        self,
        config: FetchConfig,
        root_url: Callable[[], str | None],
        limiter: RateLimiter,
        *,
        timeout: float,
        max_body: int,
        max_redirects: int,
        concurrency: int,
        stored: Callable[[str], AuditRow | None] | None = None,
        robots: bool = True,
        on_note: Callable[[str], None] = lambda _t: None,
    ) -> None:
        self.config = config
        # robots.txt of each URL's origin, obeyed for our own agent as the audit obeys it: a
        # sampled page, an alternate or a video file it disallows is not fetched, nor a redirect
        # into a path it disallows (robots=False: --ignore-robots)
        self.agent = agent_token(config.user_agent)
        self.gate = RobotsGate(lambda: self.fetcher, self._pace, self._unreadable,
                               lambda url, _body, rules: self.obey(url, rules),
                               no_answer_disallows=False) if robots else None
        self.on_note = on_note
        self.blocked: set[str] = set()  # URLs not fetched for robots.txt (said once, counted)
        # URLs a --map's build answered as a static host would, not from their own path, by
        # how (localmap.MapHit.served_as: "clean", "query"): said at the end, counted
        self.served_as: dict[str, set[str]] = {}
        self.stored = stored  # a URL's result kept by `sitemap-tui audit`, read instead of a fetch
        self.root_url = root_url
        self.limiter = limiter
        self.timeout = timeout
        self.max_body = max_body
        self.max_redirects = max_redirects
        self.concurrency = concurrency
        self.fetcher: Fetcher | None = None
        self.cache: dict[tuple[str, str], asyncio.Task[Probe]] = {}

    async def open(self) -> None:
        self.fetcher = Fetcher(self._fetch_config())
        await self.fetcher.__aenter__()

    async def close(self) -> None:
        """Stop the probes still running and close the fetcher."""
        for task in self.cache.values():
            task.cancel()
        await asyncio.gather(*self.cache.values(), return_exceptions=True)
        if self.gate is not None:
            await self.gate.close()
        if self.fetcher is not None:
            await self.fetcher.aclose()

    def _fetch_config(self) -> FetchConfig:
        """The run's config, shaped for probes: the deep deadline for all hops, no retries,
        byte caps a little over what is read. The target is the exploration's root when the
        caller did not say (a saved exploration); with neither, the empty target gets no
        headers and opens no address range."""
        cfg = self.config
        target = cfg.target if cfg.target is not None else (self.root_url() or "")
        read = max(self.max_body, THUMBNAIL_READ)
        return replace(
            cfg,
            target=target,
            total_timeout=self.timeout,
            retries=0,
            max_redirects=self.max_redirects,
            concurrency=max(1, self.concurrency),
            max_decoded=read + 65536,
            max_wire=4 * read + 65536,
        )

    def probe(self, url: str, mode: str) -> asyncio.Task[Probe]:
        """The (shared) task fetching ``url``; mode "head" (status and headers), "page" (GET,
        HTML body analysed) or "image" (GET, first bytes kept)."""
        key = (mode, normalize(url))
        task = self.cache.get(key)
        if task is None:
            if len(self.cache) >= CACHE_MAX:
                self._evict()
            kept = self.stored(url) if self.stored is not None and mode != "image" else None
            probe = stored_probe(kept, url, mode) if kept is not None else None
            work = _ready(probe) if probe is not None else self._fetch(url, mode)
            task = self.cache[key] = asyncio.ensure_future(work)
        return task

    def _evict(self) -> None:
        """Forget the oldest finished probes (a URL seen again after that is fetched again)."""
        drop = [k for k, t in self.cache.items() if t.done()][: max(1, CACHE_MAX // 4)]
        for k in drop:
            del self.cache[k]

    async def _pace(self, url: str) -> None:
        await self.limiter.wait(_host_key(url))

    def know(self, url: str, robots: RobotsFile) -> None:
        """A robots.txt the exploration read (``url``): not asked again, and obeyed."""
        if self.gate is not None:
            self.gate.know(url, robots)
            self.obey(url, robots)

    def unread(self, url: str, why: str) -> None:
        """A robots.txt the exploration got no rules from (``why``; "" for a 4xx: none)."""
        if self.gate is None:
            return
        if why:
            self.gate.know_unread(url, why)
        else:
            self.gate.know(url, None)

    def obey(self, url: str, robots: RobotsFile) -> None:
        """A robots.txt's Crawl-delay for our agent, where wider than --rate's spacing (at most
        60 s, as the audit honours it), said once."""
        asked = crawl_delay(robots, self.agent, self.limiter.interval)
        if asked is not None:
            host = _host_key(url)
            self.limiter.delay[host] = min(asked, CRAWL_DELAY_CAP)
            self.on_note(f"{host}: {crawl_delay_said(asked)}")

    def _unreadable(self, origin: str, why: str) -> None:
        self.on_note(f"robots.txt of {origin} could not be read ({why}): its URLs count as disallowed"
                     " and were not fetched (RFC 9309; --ignore-robots fetches them)")

    async def _fetch(self, url: str, mode: str) -> Probe:
        probe = Probe(url=url, final_url=url)
        if self.gate is not None and not await self.gate.allowed(url, self.agent):
            probe.blocked = True
            self.blocked.add(normalize(url))
            return probe
        out, body = await self._request(url, "HEAD" if mode == "head" else "GET", mode)
        if out.headers is not None and out.stats.http_status in (405, 501) and mode == "head":
            out, body = await self._request(url, "GET", mode)  # HEAD not allowed
        self._fill(probe, out, body, mode)
        if out.served_as is not None and probe.answered:
            self.served_as.setdefault(out.served_as, set()).add(url)
        return probe

    def served_as_said(self) -> str | None:
        """The URLs of a local build read as a static host serves them, in one line."""
        if not self.served_as:
            return None
        parts = []
        if "clean" in self.served_as:
            n = len(self.served_as["clean"])
            parts.append(f"{n} from NAME.html (a URL without an extension, as a clean URL), first"
                         f" {min(self.served_as['clean'])}")
        if "query" in self.served_as:
            n = len(self.served_as["query"])
            parts.append(f"{n} without the query string, first {min(self.served_as['query'])}")
        return ("deep checks: read from the build as static hosts (GitHub Pages, Netlify, Cloudflare Pages)"
                " serve them: " + "; ".join(parts))

    async def _request(
        self, url: str, method: str, mode: str
    ) -> tuple[FetchOutcome, bytes | None]:
        """One fetch (all its redirects); the body only where a check reads it."""
        assert self.fetcher is not None
        limit = THUMBNAIL_READ if mode == "image" else self.max_body
        buf = bytearray()
        wanted = False

        def on_response(out: FetchOutcome) -> None:
            nonlocal wanted
            if method != "GET" or out.stats.http_status != 200:
                return
            mime = mime_of(out.stats.content_type)
            wanted = mode == "image" or (mode == "page" and (mime in HTML_TYPES or mime is None))
            if not wanted:
                raise StopFetch()  # the headers are all this check needs

        def sink(chunk: bytes) -> None:
            buf.extend(chunk[: limit - len(buf)])
            if len(buf) >= limit:
                raise StopFetch()

        accept = (
            "image/*,*/*;q=0.8" if mode == "image" else "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"
        )
        if self.gate is None:
            out = await self.fetcher.fetch(url, sink, method=method, headers={"Accept": accept},
                                           on_response=on_response, before_hop=self._pace)
        else:  # a redirect into a path its robots.txt disallows: the chain stops there
            out = await self.gate.fetch(url, sink, self.agent, method=method, headers={"Accept": accept},
                                        on_response=on_response)
        if not wanted or (not buf and out.error is not None):
            return out, None  # a body that could not be decoded at all tells nothing
        return out, bytes(buf)

    @staticmethod
    def _fill(probe: Probe, out: FetchOutcome, body: bytes | None, mode: str) -> None:
        """What the checks need from an outcome (probes are cached for the whole run, so only
        a few headers are kept, never the body)."""
        probe.redirects = out.stats.redirects
        probe.final_url = out.redirect_chain[-1] if out.redirect_chain else probe.url
        if out.error_rule == RULE_PRIVATE_ADDRESS:
            probe.refused = out.error
        if out.redirect_error:
            probe.status = out.stats.http_status  # the 3xx that could not be followed
            probe.redirect_problem = out.error
            return
        if out.headers is None:  # no final answer: the error says why
            probe.error = out.error or "no response"
            return
        probe.answered = True
        probe.status = out.stats.http_status
        if mode == "page" and probe.status == 200 and out.error and not out.stopped_early:
            # the page broke off after its headers (a stall, a dropped connection): what it
            # says about indexing is unknown, as an audit's "timeout" (found from outside:
            # a page that hung after <head> passed every check)
            probe.error = f"the page broke off after its headers: {out.error}"
            return
        if out.error and not out.error.startswith("HTTP "):  # a --map's build: why it has no file
            probe.why = out.error
        probe.final_url = out.final_url or probe.final_url
        h = out.header_map()
        probe.content_type = (h.get("content-type") or "")[:200] or None
        probe.x_robots = [v[:1000] for v in h.get_list("x-robots-tag")[:20]]
        probe.links = [v[:16384] for v in h.get_list("link")[:20]]
        probe.last_modified = (h.get("last-modified") or "")[:100] or None
        if body is None:
            return
        if mode == "page":
            probe.facts = analyse_html(body, probe.final_url, probe.content_type)
        elif mode == "image":
            probe.image = image_size(body)


async def _ready(probe: Probe) -> Probe:
    return probe


_NOINDEX_METAS = frozenset({"robots", "googlebot", "bingbot"})  # as analyse_html reads them


def stored_probe(row: AuditRow, url: str, mode: str) -> Probe | None:
    """The probe an audit's stored result gives (engine/store/audit.py), or None when it lacks
    what ``mode`` needs: a URL the audit did not fetch (robots.txt), a page whose body it did not
    read (then the deep check fetches it itself)."""
    page = row.page
    if page is None:
        return None
    p = Probe(url=url, final_url=row.final_url or url, redirects=row.redirects)
    if row.error and row.status is not None and 300 <= row.status <= 399:
        p.status, p.redirect_problem = row.status, row.error  # a redirect that was not followed
        return p
    if row.status is None:
        p.error = row.error or "no response"
        p.refused = row.error if page.get("refused") else None
        return p
    p.answered, p.status, p.content_type = True, row.status, row.content_type
    p.x_robots = [str(v) for v in page.get("x_robots") or []]  # type: ignore[attr-defined]
    p.links = [str(v) for v in page.get("links") or []]  # type: ignore[attr-defined]
    p.last_modified = row.last_modified
    if mode != "page" or row.status != 200 or (p.mime is not None and p.mime not in HTML_TYPES):
        return p
    if "metas" not in page:
        return None  # an HTML page whose body the audit did not read
    facts = PageFacts(canonical=page.get("canonical"), title=page.get("title"), h1=page.get("h1"))  # type: ignore[arg-type]
    facts.alternates = [(str(lang), str(href)) for lang, href in page.get("alternates") or []]  # type: ignore[attr-defined]
    for name, content in page.get("metas") or []:  # type: ignore[attr-defined]
        content = str(content).lower()
        tokens = {t.strip() for t in content.split(",")}
        if name in _NOINDEX_METAS and ("noindex" in tokens or "none" in tokens
                                       or expired_directive([content.strip()])):
            facts.noindex = f'<meta name="{name}" content="{content.strip()[:80]}">'
            break
    p.facts = facts
    return p

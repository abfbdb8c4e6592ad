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

Requests go through the engine's ``Fetcher``, so the deep checks follow the same policies as
the exploration (issue 15): -H headers only to the target's origin, no connection to a private
or local address unless the target is in that range (a refused URL is a
``fetch-private-address`` finding on the entry), redirects by hand (http/https only, at most
``max_redirects``, loops detected), bounded decoding. HEAD when only the status and headers
matter (falling back to GET on 405/501); GET when the body is needed (then at most ``max_body``
decoded bytes are read). No retries: a 5xx is what the check reports. Every URL runs under its
own overall deadline (``timeout``, all hops), each hop waits for its host's token bucket (burst
1: requests to one host are at least ``1/rate`` s apart), and at most ``concurrency`` requests
are in flight. Each URL is fetched once per run (results are cached by normalised URL).

Cancellation: set ``cancel_event`` (or cancel the task); ``run_deep`` stops the requests in
flight and returns the number of issues stored so far.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import struct
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
import lxml.html
from lxml import etree

from sitemap_tui.engine.fetch import (
    RULE_PRIVATE_ADDRESS,
    FetchConfig,
    Fetcher,
    FetchOutcome,
    StopFetch,
)
from sitemap_tui.engine.model import Issue
from sitemap_tui.engine.store import IssueScope, Store
from sitemap_tui.engine.store.deep import entry_alternates, entry_counts, entry_pages, entry_videos
from sitemap_tui.engine.urlpolicy import normalize, resolve, unfetchable_reason
from sitemap_tui.validate.crossfile import issue

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
THUMBNAIL_MIN = (60, 30)  # Google: at least 60x30 pixels
THUMBNAIL_READ = 64 * 1024  # enough for the dimensions of PNG/GIF/JPEG/WebP
MAX_VIDEOS_PER_ENTRY = 10
CACHE_MAX = 50_000  # probes remembered (each a few hundred bytes: no bodies, few headers)
DAY = 86400
HTML_TYPES = ("text/html", "application/xhtml+xml")
# Served for real video files often enough that they are not "not a video" (S3, CDNs, HLS, DASH).
VIDEO_LIKE_TYPES = frozenset(
    {
        "application/octet-stream",
        "binary/octet-stream",
        "application/mp4",
        "application/vnd.apple.mpegurl",
        "application/x-mpegurl",
        "audio/mpegurl",
        "application/dash+xml",
        "application/ogg",
    }
)
# X-Robots-Tag directives that take a value ("max-snippet: 20"), not user agents.
_VALUE_DIRECTIVES = frozenset(
    {
        "max-snippet",
        "max-image-preview",
        "max-video-preview",
        "unavailable_after",
        "indexifembedded",
    }
)
_NOINDEX_AGENTS = frozenset({"robots", "googlebot", "bingbot"})
_SOFT404_RE = re.compile(
    r"\b(?:404|410)\b|not\s+found|page\s+(?:does\s+not|doesn'?t|cannot\s+be)\s+(?:exist|found)"
    r"|no\s+longer\s+(?:exists?|available)|nicht\s+gefunden|introuvable|no\s+encontrad"
    r"|non\s+trovat|niet\s+gevonden",
    re.IGNORECASE,
)
_ERROR_PATH_RE = re.compile(
    r"/(?:404|410|not-?found|error|page-not-found)(?:\.[a-z]{2,5})?/?$", re.I
)
_LINK_RE = re.compile(r"<([^>]*)>((?:\s*;\s*[^;,<]*)*)")
_PARAM_RE = re.compile(r';\s*([A-Za-z*-]+)\s*(?:=\s*(?:"([^"]*)"|([^;,\s]*)))?')
_AGENT_PREFIX_RE = re.compile(r"\s*([A-Za-z][\w.-]*)\s*:\s*(.*)\Z", re.S)


@dataclass(slots=True)
class DeepOptions:
    sample: int | None = 100  # entries per sitemap, evenly spaced; None = all
    rate: float = 5.0  # requests per second per host (token bucket, burst 1); <= 0: no limit
    timeout: float = 15.0  # overall deadline of one request (headers and body)
    concurrency: int = 8  # requests in flight
    # decoded bytes of a page read for meta robots / canonical / hreflang
    max_body: int = 256 * 1024
    max_redirects: int = 10


# -- pure helpers ----------------------------------------------------------------------------
def sample_ranks(n: int, sample: int | None) -> list[int]:
    """Ranks (0-based) of an evenly spaced sample of ``sample`` out of ``n`` items."""
    if sample is None or sample >= n:
        return list(range(n))
    if sample <= 0:
        return []
    return [(i * n) // sample for i in range(sample)]


def parse_link_header(values: Sequence[str]) -> list[tuple[str, dict[str, str]]]:
    """``Link`` header values -> [(target, {param: value})], params lower-cased."""
    out: list[tuple[str, dict[str, str]]] = []
    for value in values:
        for m in _LINK_RE.finditer(value[:16384]):
            params = {
                p.group(1).lower(): (p.group(2) if p.group(2) is not None else (p.group(3) or ""))
                for p in _PARAM_RE.finditer(m.group(2))
            }
            out.append((m.group(1).strip(), params))
    return out


def x_robots_noindex(values: Sequence[str]) -> str | None:
    """The ``X-Robots-Tag`` value that makes the page noindex for Google or Bing, or None.

    ``noindex``/``none`` without an agent, or after ``googlebot:``/``bingbot:``; a value
    addressed to another crawler does not count."""
    for value in values:
        agent, rest = None, value
        m = _AGENT_PREFIX_RE.match(value)
        if m is not None and m.group(1).lower() not in _VALUE_DIRECTIVES:
            agent, rest = m.group(1).lower(), m.group(2)
        if agent is not None and agent not in ("googlebot", "bingbot"):
            continue
        tokens = {t.strip().lower() for t in rest.split(",")}
        if "noindex" in tokens or "none" in tokens:
            return value.strip()[:200]
    return None


@dataclass(slots=True)
class PageFacts:
    """What the deep checks read from an HTML page."""

    noindex: str | None = None  # where: "<meta name=robots content=noindex>"
    canonical: str | None = None  # absolute URL
    alternates: list[tuple[str, str]] = field(default_factory=list)  # (hreflang lower, href abs)
    title: str | None = None
    h1: str | None = None


def analyse_html(body: bytes, base_url: str) -> PageFacts:
    """Meta robots, canonical, hreflang links, title and first heading of an HTML page.

    lxml's HTML parser with ``no_network`` and ``recover``; never raises."""
    facts = PageFacts()
    if not body or not body.strip():
        return facts
    parser = lxml.html.HTMLParser(
        no_network=True, recover=True, remove_comments=True, remove_pis=True
    )
    try:
        doc = lxml.html.document_fromstring(body, parser=parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError, TypeError):
        return facts
    if doc is None:
        return facts
    base = base_url
    for el in doc.iter("base"):
        href = (el.get("href") or "").strip()
        if href:
            base = resolve(base_url, href)
        break
    for el in doc.iter("meta"):
        name = (el.get("name") or "").strip().lower()
        if name in _NOINDEX_AGENTS and facts.noindex is None:
            content = (el.get("content") or "").lower()
            tokens = {t.strip() for t in content.split(",")}
            if "noindex" in tokens or "none" in tokens:
                facts.noindex = f'<meta name="{name}" content="{content.strip()[:80]}">'
    for el in doc.iter("link"):
        rels = (el.get("rel") or "").lower().split()
        href = (el.get("href") or "").strip()
        if not href:
            continue
        if "canonical" in rels and facts.canonical is None:
            facts.canonical = resolve(base, href)
        if "alternate" in rels and el.get("hreflang"):
            facts.alternates.append((el.get("hreflang", "").strip().lower(), resolve(base, href)))
    title = doc.find(".//title")
    if title is not None:
        facts.title = " ".join(title.text_content().split())[:200]
    h1 = doc.find(".//h1")
    if h1 is not None:
        facts.h1 = " ".join(h1.text_content().split())[:200]
    return facts


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the first bytes of a PNG, GIF, JPEG or WebP file, else None."""
    try:
        if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
            w, h = struct.unpack(">II", data[16:24])
            return w, h
        if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
            w, h = struct.unpack("<HH", data[6:10])
            return w, h
        if data.startswith(b"\xff\xd8"):
            i = 2
            while i + 9 < len(data):
                if data[i] != 0xFF:
                    i += 1
                    continue
                marker = data[i + 1]
                if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
                    i += 1 if marker == 0xFF else 2
                    continue
                length = struct.unpack(">H", data[i + 2 : i + 4])[0]
                if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                    h, w = struct.unpack(">HH", data[i + 5 : i + 9])
                    return w, h
                i += 2 + length
            return None
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP" and len(data) >= 30:
            chunk = data[12:16]
            if chunk == b"VP8X":
                w = int.from_bytes(data[24:27], "little") + 1
                h = int.from_bytes(data[27:30], "little") + 1
                return w, h
            if chunk == b"VP8 ":
                w, h = struct.unpack("<HH", data[26:30])
                return w & 0x3FFF, h & 0x3FFF
            if chunk == b"VP8L" and len(data) >= 25:
                b = data[21:25]
                w = 1 + (((b[1] & 0x3F) << 8) | b[0])
                h = 1 + (((b[3] & 0xF) << 10) | (b[2] << 2) | ((b[1] & 0xC0) >> 6))
                return w, h
    except (struct.error, IndexError):
        return None
    return None


def _mime(content_type: str | None) -> str | None:
    if not content_type:
        return None
    return content_type.split(";", 1)[0].strip().lower() or None


def _parse_http_date(value: str | None) -> datetime | None:
    if not value or len(value) > 100:
        return None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


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
        self._next: dict[str, float] = {}

    async def wait(self, host: str) -> None:
        if self.interval <= 0:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        slot = max(now, self._next.get(host, now))
        self._next[host] = slot + self.interval
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

    @property
    def mime(self) -> str | None:
        return _mime(self.content_type)


class _Deep:
    def __init__(
        self,
        store: Store,
        config: FetchConfig,
        options: DeepOptions,
        enabled: set[str] | None,
        on_progress: Callable[[int, int], None] | None,
    ) -> None:
        self.store = store
        self.config = config
        self.options = options
        self.rules = {r for r in DEEP_RULES if enabled is None or r in enabled}
        self.on_progress = on_progress
        self.limiter = RateLimiter(options.rate)
        self.fetcher: Fetcher | None = None
        self.cache: dict[tuple[str, str], asyncio.Task[Probe]] = {}
        self.written = 0
        self.done = 0
        self.total = 0
        self.alt_budget: dict[int, int] = {}  # node id -> alternate targets still to check
        self.alt_seen: dict[int, set[str]] = {}

    def on(self, *rules: str) -> bool:
        return any(r in self.rules for r in rules)

    # -- fetching ------------------------------------------------------------------------------
    def _fetch_config(self) -> FetchConfig:
        """The run's config, shaped for probes: the deep deadline for all hops, no retries,
        byte caps a little over what is read. The target is the exploration's root when the
        caller did not say (a saved exploration); with neither, the empty target gets no
        headers and opens no address range."""
        cfg = self.config
        target = cfg.target if cfg.target is not None else (self.store.root_url() or "")
        read = max(self.options.max_body, THUMBNAIL_READ)
        return replace(
            cfg,
            target=target,
            total_timeout=self.options.timeout,
            retries=0,
            max_redirects=self.options.max_redirects,
            concurrency=max(1, self.options.concurrency),
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
            task = self.cache[key] = asyncio.ensure_future(self._fetch(url, mode))
        return task

    def _evict(self) -> None:
        """Forget the oldest finished probes (a URL seen again after that is fetched again)."""
        drop = [k for k, t in self.cache.items() if t.done()][: max(1, CACHE_MAX // 4)]
        for k in drop:
            del self.cache[k]

    async def _pace(self, url: str) -> None:
        await self.limiter.wait(_host_key(url))

    async def _fetch(self, url: str, mode: str) -> Probe:
        probe = Probe(url=url, final_url=url)
        out, body = await self._request(url, "HEAD" if mode == "head" else "GET", mode)
        if out.headers is not None and out.stats.http_status in (405, 501) and mode == "head":
            out, body = await self._request(url, "GET", mode)  # HEAD not allowed
        self._fill(probe, out, body, mode)
        return probe

    async def _request(
        self, url: str, method: str, mode: str
    ) -> tuple[FetchOutcome, bytes | None]:
        """One fetch (all its redirects); the body only where a check reads it."""
        assert self.fetcher is not None
        limit = THUMBNAIL_READ if mode == "image" else self.options.max_body
        buf = bytearray()
        wanted = False

        def on_response(out: FetchOutcome) -> None:
            nonlocal wanted
            if method != "GET" or out.stats.http_status != 200:
                return
            mime = _mime(out.stats.content_type)
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
        out = await self.fetcher.fetch(
            url, sink, method=method, headers={"Accept": accept}, on_response=on_response,
            before_hop=self._pace,
        )
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
        probe.final_url = out.final_url or probe.final_url
        h = httpx.Headers(out.headers)
        probe.content_type = (h.get("content-type") or "")[:200] or None
        probe.x_robots = [v[:1000] for v in h.get_list("x-robots-tag")[:20]]
        probe.links = [v[:16384] for v in h.get_list("link")[:20]]
        probe.last_modified = (h.get("last-modified") or "")[:100] or None
        if body is None:
            return
        if mode == "page":
            probe.facts = analyse_html(body, probe.final_url)
        elif mode == "image":
            probe.image = image_size(body)

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
            add("deep-status-4xx", status=p.status)
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
        if canonical and normalize(canonical) != normalize(p.final_url):
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
            when = _parse_http_date(header)
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
        p = await self.probe(href, "page")
        if p.refused:
            refused.setdefault(href, p.refused)
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
                and normalize(p.facts.canonical) != normalize(p.final_url)
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

    async def _video_issues(
        self, row: tuple[Any, ...], video: dict[str, Any], refused: dict[str, str]
    ) -> list[Issue]:
        eid, node_id, loc, line, *_ = row
        fields = video.get("fields") or {}
        out: list[Issue] = []
        content = (fields.get("content_loc") or "").strip()
        thumb = (fields.get("thumbnail_loc") or "").strip()
        jobs = []
        if (
            content
            and "video-content-not-media" in self.rules
            and unfetchable_reason(content) is None
        ):
            jobs.append(("content", content, self.probe(content, "head")))
        if thumb and "video-thumbnail-problem" in self.rules and unfetchable_reason(thumb) is None:
            jobs.append(("thumb", thumb, self.probe(thumb, "image")))
        for kind, url, task in jobs:
            p = await task
            if p.refused:
                refused.setdefault(url, p.refused)
            if kind == "content":
                what = None
                if p.error or p.redirect_problem:
                    what = f"no video ({p.error or p.redirect_problem})"
                elif p.status is not None and p.status >= 400:
                    what = f"HTTP {p.status}"
                elif (
                    p.status == 200
                    and p.mime
                    and not p.mime.startswith("video/")
                    and p.mime not in VIDEO_LIKE_TYPES
                ):
                    what = p.mime
                if what:
                    out.append(
                        issue(
                            "video-content-not-media",
                            node_id=node_id,
                            line=line,
                            url=loc,
                            url_field=url,
                            content_type=what,
                        )
                    )
            else:
                reason = None
                if p.error or p.redirect_problem:
                    reason = f"cannot be fetched ({p.error or p.redirect_problem})"
                elif p.status is not None and p.status >= 400:
                    reason = f"answers HTTP {p.status}"
                elif p.status == 200:
                    if p.mime and not p.mime.startswith("image/"):
                        reason = f"served as {p.mime}, not an image"
                    else:
                        size = p.image
                        if size is not None and (
                            size[0] < THUMBNAIL_MIN[0] or size[1] < THUMBNAIL_MIN[1]
                        ):
                            reason = (
                                f"only {size[0]}x{size[1]} pixels (Search Console: thumbnail"
                                f" too small; at least {THUMBNAIL_MIN[0]}x{THUMBNAIL_MIN[1]})"
                            )
                if reason:
                    out.append(
                        issue(
                            "video-thumbnail-problem",
                            node_id=node_id,
                            line=line,
                            url=loc,
                            url_field=url,
                            reason=reason,
                        )
                    )
        return out

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
                if (
                    (rel or "").strip().lower() == "alternate"
                    and (lang or "").strip()
                    and (href or "").strip()
                ):
                    alts.append((lang.strip().lower(), href.strip()))
        pending: list[Any] = []
        refused: dict[str, str] = {}  # URL -> why the address policy did not fetch it
        page_task = None
        if self.rules & PAGE_RULES:
            mode = "page" if self.rules & BODY_RULES else "head"
            page_task = self.probe(loc, mode)
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
            pending += [self._video_issues(row, v, refused) for v in videos]
        if page_task is not None:
            p = await page_task
            if p.refused:
                refused[loc] = p.refused
            if not p.refused or p.redirects:  # a page never asked for has no status to report
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
        it = self.rows(nodes)
        self.fetcher = Fetcher(self._fetch_config())
        await self.fetcher.__aenter__()
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
            for task in self.cache.values():
                task.cancel()
            await asyncio.gather(*self.cache.values(), return_exceptions=True)
            await self.fetcher.aclose()
        return self.written

    async def _worker(self, it: Iterator[tuple[Any, ...]]) -> None:
        for row in it:
            # One odd entry (bad stored JSON, ...) never ends the run; cancellation still does.
            with contextlib.suppress(Exception):
                await self.check_entry(row)
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
) -> int:
    """Run the deep checks on a sample of each sitemap's entries; returns the issues stored.

    ``enabled``: rule ids to run (None = all); ``node_ids``: sitemaps to sample (None = all);
    ``cancel_event``: set it to stop (the issues found so far stay); ``on_progress(done,
    total)``: after each entry."""
    deep = _Deep(
        store, fetch_config or FetchConfig(), options or DeepOptions(), enabled, on_progress
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

"""Deep checks against a real HTTP server on 127.0.0.1 (pytest-httpserver)."""

from __future__ import annotations

import asyncio
import struct
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.model import Alternate, Entry, Node, NodeKind, NodeState, Video
from sitemap_tui.engine.store import Store
from sitemap_tui.validate import deep as deep_mod
from sitemap_tui.validate import rules as rules_mod
from sitemap_tui.validate.deep import (
    DeepOptions,
    analyse_html,
    image_size,
    parse_link_header,
    run_deep,
    sample_ranks,
    x_robots_noindex,
)

CONFIG = FetchConfig(connect_timeout=2, read_timeout=2, total_timeout=5, retries=0)
FAST = DeepOptions(sample=None, rate=0, timeout=5)


@pytest.fixture(autouse=True)
def strict_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules_mod, "STRICT_MESSAGES", True)


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "deep.db")
    yield s
    s.close()


def pages(server: HTTPServer) -> list:
    """The server's log without robots.txt, which the deep checks read once per origin."""
    return [(req, resp) for req, resp in server.log if req.path != "/robots.txt"]


def html(title: str = "Welcome", head: str = "", body: str = "<h1>Hello</h1><p>content</p>") -> str:
    return (
        f"<!DOCTYPE html><html><head><title>{title}</title>{head}</head><body>{body}</body></html>"
    )


def png(w: int, h: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return (
        b"\x89PNG\r\n\x1a\n"
        + struct.pack(">I", len(ihdr))
        + chunk
        + struct.pack(">I", zlib.crc32(chunk))
        + b"\x00" * 32
    )


def add_sitemap(store: Store, server: HTTPServer, entries: list[Entry]) -> int:
    nid = store.next_node_id()
    store.add_node(
        Node(
            id=nid,
            url=server.url_for(f"/sitemap-{nid}.xml"),
            kind=NodeKind.URLSET,
            state=NodeState.DONE,
        )
    )
    store.add_entries(nid, entries)
    return nid


def url(server: HTTPServer, path: str) -> str:
    return server.url_for(path)


async def deep(
    store: Store, *rules: str, options: DeepOptions = FAST, **kw
) -> dict[str, list[tuple[str, str]]]:
    await run_deep(store, CONFIG, options, enabled=set(rules) if rules else None, **kw)
    store.commit()
    store.begin()
    out: dict[str, list[tuple[str, str]]] = {}
    for i in store.issues():
        out.setdefault(i.rule, []).append((i.url, i.message))
    return out


def paths(found: dict, rule: str) -> list[str]:
    return sorted(u.split("/", 3)[3] for u, _ in found.get(rule, []))


# -- pure helpers ----------------------------------------------------------------------------
def test_sample_ranks_evenly_spaced() -> None:
    assert sample_ranks(10, 3) == [0, 3, 6]
    assert sample_ranks(5, 100) == [0, 1, 2, 3, 4]
    assert sample_ranks(5, None) == [0, 1, 2, 3, 4]
    assert sample_ranks(50_000, 100)[-1] == 49_500
    assert sample_ranks(5, 0) == []


def test_x_robots_tag_parsing() -> None:
    assert x_robots_noindex(["noindex, nofollow"]) == "noindex"  # the directive that decides
    assert x_robots_noindex(["googlebot: noindex"]) == "googlebot: noindex"
    assert x_robots_noindex(["none"]) == "none"
    assert x_robots_noindex(["otherbot: noindex"]) is None
    assert x_robots_noindex(["max-snippet: 20"]) is None
    # a date that has passed is noindex, as the audit reads it (the two disagreed)
    assert x_robots_noindex(["max-snippet: 20", "unavailable_after: 25 Jun 2010 15:00:00 PST"]) == (
        "unavailable_after: 25 jun 2010 15:00:00 pst")
    assert x_robots_noindex(["unavailable_after: 25 Jun 2999 15:00:00 PST"]) is None
    assert x_robots_noindex(["index, follow"]) is None


def test_link_header_and_html_analysis() -> None:
    links = parse_link_header(
        ['<https://a.com/x>; rel="canonical", </de>; rel=alternate; hreflang="de"']
    )
    assert links == [
        ("https://a.com/x", {"rel": "canonical"}),
        ("/de", {"rel": "alternate", "hreflang": "de"}),
    ]
    facts = analyse_html(
        html(
            "Oops",
            '<meta name="Robots" content="NOINDEX">'
            '<link rel="canonical" href="/c"><link rel="alternate" hreflang="DE" href="de">',
        ),
        "https://a.com/dir/page",
    )
    assert facts.noindex and facts.canonical == "https://a.com/c"
    assert facts.alternates == [("de", "https://a.com/dir/de")]
    assert analyse_html(b"", "https://a.com/").canonical is None
    assert analyse_html(b"\x00\xff\xfe garbage", "https://a.com/").noindex is None


def test_image_size() -> None:
    assert image_size(png(120, 90)) == (120, 90)
    assert image_size(b"GIF89a" + struct.pack("<HH", 30, 20) + b"\x00" * 10) == (30, 20)
    jpeg = (
        b"\xff\xd8"
        + b"\xff\xe0"
        + struct.pack(">H", 16)
        + b"JFIF\x00"
        + b"\x00" * 9
        + b"\xff\xc0"
        + struct.pack(">HBHH", 17, 8, 40, 50)
        + b"\x03"
        + b"\x00" * 9
    )
    assert image_size(jpeg) == (50, 40)
    assert image_size(b"<html>") is None


# -- status ----------------------------------------------------------------------------------
async def test_status_rules(store: Store, httpserver: HTTPServer) -> None:
    httpserver.expect_request("/ok").respond_with_data(html(), content_type="text/html")
    httpserver.expect_request("/moved").respond_with_data("", 301, headers={"Location": "/ok"})
    httpserver.expect_request("/moved-to-404").respond_with_data(
        "", 302, headers={"Location": "/gone"}
    )
    httpserver.expect_request("/loop").respond_with_data("", 301, headers={"Location": "/loop"})
    httpserver.expect_request("/gone").respond_with_data("no", 404)
    httpserver.expect_request("/boom").respond_with_data("no", 503)
    add_sitemap(
        store,
        httpserver,
        [
            Entry(loc=url(httpserver, p))
            for p in ("/ok", "/moved", "/moved-to-404", "/loop", "/gone", "/boom")
        ],
    )
    found = await deep(store, "deep-status-3xx", "deep-status-4xx", "deep-status-5xx")
    assert paths(found, "deep-status-3xx") == ["loop", "moved", "moved-to-404"]
    msgs = dict(found["deep-status-3xx"])
    assert msgs[url(httpserver, "/moved")].endswith(url(httpserver, "/ok"))
    assert "HTTP 404" in msgs[url(httpserver, "/moved-to-404")]
    assert "loop" in msgs[url(httpserver, "/loop")]
    assert paths(found, "deep-status-4xx") == ["gone"]
    assert "HTTP 404" in found["deep-status-4xx"][0][1]
    assert paths(found, "deep-status-5xx") == ["boom"]
    assert "503" in found["deep-status-5xx"][0][1]
    # status only: HEAD requests
    assert {req.method for req, _ in pages(httpserver)} == {"HEAD"}


async def test_head_not_allowed_falls_back_to_get(store: Store, httpserver: HTTPServer) -> None:
    httpserver.expect_request("/nohead", method="HEAD").respond_with_data("", 405)
    httpserver.expect_request("/nohead", method="GET").respond_with_data(
        html(), content_type="text/html"
    )
    httpserver.expect_request("/nohead404", method="HEAD").respond_with_data("", 501)
    httpserver.expect_request("/nohead404", method="GET").respond_with_data("", 404)
    add_sitemap(
        store,
        httpserver,
        [Entry(loc=url(httpserver, "/nohead")), Entry(loc=url(httpserver, "/nohead404"))],
    )
    found = await deep(store, "deep-status-4xx", "deep-status-5xx", "deep-status-3xx")
    assert paths(found, "deep-status-4xx") == ["nohead404"]
    assert set(found) == {"deep-status-4xx"}
    assert sorted(req.method for req, _ in pages(httpserver)) == ["GET", "GET", "HEAD", "HEAD"]


async def test_unreachable_is_5xx(store: Store, httpserver: HTTPServer) -> None:
    add_sitemap(store, httpserver, [Entry(loc="http://127.0.0.1:9/nothing-listens-here")])
    found = await deep(store, "deep-status-5xx")
    assert len(found["deep-status-5xx"]) == 1 and "nothing" in found["deep-status-5xx"][0][1]


async def test_robots_txt_keeps_pages_out_and_the_run_says_so(store: Store, httpserver: HTTPServer) -> None:
    """Found from outside: the deep checks fetched pages robots.txt disallows (the audit obeyed
    it). A disallowed page, and a redirect into a disallowed path, are not fetched; the run
    says how many; --ignore-robots (the user's own staging site) fetches them."""
    httpserver.expect_request("/robots.txt").respond_with_data(
        "User-agent: *\nDisallow: /private/\n", content_type="text/plain")
    httpserver.expect_request("/ok").respond_with_data(html(), content_type="text/html")
    httpserver.expect_request("/private/gone").respond_with_data("no", 404)
    httpserver.expect_request("/r").respond_with_data("", 301, headers={"Location": "/private/x"})
    httpserver.expect_request("/private/x").respond_with_data(html(), content_type="text/html")
    add_sitemap(store, httpserver, [Entry(loc=url(httpserver, p)) for p in ("/ok", "/private/gone", "/r")])
    notes: list[str] = []
    rules = ("deep-status-3xx", "deep-status-4xx", "deep-status-5xx")
    found = await deep(store, *rules, on_note=notes.append)
    assert not {req.path for req, _ in pages(httpserver)} & {"/private/gone", "/private/x"}
    assert set(found) == {"deep-status-3xx"}, found
    assert f"redirect to {url(httpserver, '/private/x')} not followed: robots.txt disallows it" in found[
        "deep-status-3xx"][0][1]
    assert notes == ["deep checks: 1 URL not fetched: robots.txt disallows it for sitemap-tui"
                     " (--ignore-robots fetches them)"]
    httpserver.clear_log()
    notes.clear()
    found = await deep(store, *rules, on_note=notes.append,
                       options=DeepOptions(sample=None, rate=0, timeout=5, ignore_robots=True))
    assert paths(found, "deep-status-4xx") == ["private/gone"] and notes == []
    assert "/robots.txt" not in {req.path for req, _ in httpserver.log}


async def test_a_robots_txt_that_answers_5xx_disallows_its_origin(store: Store, httpserver: HTTPServer) -> None:
    """RFC 9309: a robots.txt that answers with a server error means "complete disallow"; a host
    that never answered is left to the pages' own findings (test_unreachable_is_5xx)."""
    httpserver.expect_request("/robots.txt").respond_with_data("down", 503)
    httpserver.expect_request("/gone").respond_with_data("no", 404)
    add_sitemap(store, httpserver, [Entry(loc=url(httpserver, "/gone"))])
    notes: list[str] = []
    found = await deep(store, "deep-status-4xx", on_note=notes.append)
    assert found == {} and pages(httpserver) == []
    assert any("could not be read (HTTP 503 Service Unavailable, asked 2 times)" in n for n in notes), notes
    assert any("1 URL not fetched" in n for n in notes)


# -- page content ----------------------------------------------------------------------------
async def test_noindex(store: Store, httpserver: HTTPServer) -> None:
    httpserver.expect_request("/meta").respond_with_data(
        html(head='<meta name="robots" content="noindex, follow">'), content_type="text/html"
    )
    httpserver.expect_request("/gbot").respond_with_data(
        html(head='<meta name="googlebot" content="none">'), content_type="text/html"
    )
    httpserver.expect_request("/header").respond_with_data(
        html(), content_type="text/html", headers={"X-Robots-Tag": "noindex"}
    )
    httpserver.expect_request("/pdf").respond_with_data(
        b"%PDF-1.4", content_type="application/pdf", headers={"X-Robots-Tag": "googlebot: noindex"}
    )
    # near misses
    httpserver.expect_request("/index").respond_with_data(
        html(head='<meta name="robots" content="index, follow">'), content_type="text/html"
    )
    httpserver.expect_request("/otherbot").respond_with_data(
        html(head='<meta name="yandex" content="noindex">'),
        content_type="text/html",
        headers={"X-Robots-Tag": "otherbot: noindex"},
    )
    add_sitemap(
        store,
        httpserver,
        [
            Entry(loc=url(httpserver, p))
            for p in ("/meta", "/gbot", "/header", "/pdf", "/index", "/otherbot")
        ],
    )
    found = await deep(store, "deep-noindex")
    assert paths(found, "deep-noindex") == ["gbot", "header", "meta", "pdf"]
    msgs = dict(found["deep-noindex"])
    assert (
        "meta" in msgs[url(httpserver, "/meta")]
        and "X-Robots-Tag" in msgs[url(httpserver, "/header")]
    )
    assert {req.method for req, _ in pages(httpserver)} == {"GET"}


async def test_canonical(store: Store, httpserver: HTTPServer) -> None:
    httpserver.expect_request("/dup").respond_with_data(
        html(head='<link rel="canonical" href="/main">'), content_type="text/html"
    )
    httpserver.expect_request("/linkhdr").respond_with_data(
        b"%PDF",
        content_type="application/pdf",
        headers={"Link": '<https://a.example/doc.pdf>; rel="canonical"'},
    )
    httpserver.expect_request("/self").respond_with_data(
        html(head='<link rel="canonical" href="/self">'), content_type="text/html"
    )
    httpserver.expect_request("/none").respond_with_data(html(), content_type="text/html")
    add_sitemap(
        store,
        httpserver,
        [Entry(loc=url(httpserver, p)) for p in ("/dup", "/linkhdr", "/self", "/none")],
    )
    found = await deep(store, "deep-non-canonical")
    assert paths(found, "deep-non-canonical") == ["dup", "linkhdr"]
    assert url(httpserver, "/main") in dict(found["deep-non-canonical"])[url(httpserver, "/dup")]


async def test_soft_404(store: Store, httpserver: HTTPServer) -> None:
    httpserver.expect_request("/soft").respond_with_data(
        html("Page not found - Shop"), content_type="text/html"
    )
    httpserver.expect_request("/soft-h1").respond_with_data(
        html("Shop", body="<h1>Oops! 404</h1>"), content_type="text/html"
    )
    httpserver.expect_request("/fine").respond_with_data(
        html("Found: the best shoes"), content_type="text/html"
    )
    add_sitemap(
        store, httpserver, [Entry(loc=url(httpserver, p)) for p in ("/soft", "/soft-h1", "/fine")]
    )
    found = await deep(store, "deep-soft-404")
    assert paths(found, "deep-soft-404") == ["soft", "soft-h1"]


async def test_lastmod_vs_header(store: Store, httpserver: HTTPServer) -> None:
    lm = "Mon, 06 May 2024 10:00:00 GMT"
    httpserver.expect_request("/old").respond_with_data(
        html(), content_type="text/html", headers={"Last-Modified": lm}
    )
    httpserver.expect_request("/close").respond_with_data(
        html(), content_type="text/html", headers={"Last-Modified": lm}
    )
    httpserver.expect_request("/nohdr").respond_with_data(html(), content_type="text/html")
    old = datetime(2020, 1, 1, tzinfo=UTC)
    close = datetime(2024, 4, 1, tzinfo=UTC)
    add_sitemap(
        store,
        httpserver,
        [
            Entry(loc=url(httpserver, "/old"), lastmod=old, lastmod_raw="2020-01-01"),
            Entry(loc=url(httpserver, "/close"), lastmod=close, lastmod_raw="2024-04-01"),
            Entry(loc=url(httpserver, "/nohdr"), lastmod=old, lastmod_raw="2020-01-01"),
        ],
    )
    found = await deep(store, "deep-lastmod-vs-header")
    assert paths(found, "deep-lastmod-vs-header") == ["old"]
    assert "1,587 days" in found["deep-lastmod-vs-header"][0][1]
    # header checks alone need no body: HEAD
    assert {req.method for req, _ in pages(httpserver)} == {"HEAD"}


# -- extensions ------------------------------------------------------------------------------
def video(content: str | None, thumb: str | None) -> Video:
    fields = {"title": "t", "description": "d"}
    if content:
        fields["content_loc"] = content
    if thumb:
        fields["thumbnail_loc"] = thumb
    return Video(fields=fields)


async def test_video_content_and_thumbnail(store: Store, httpserver: HTTPServer) -> None:
    httpserver.expect_request("/watch").respond_with_data(html(), content_type="text/html")
    httpserver.expect_request("/v.mp4").respond_with_data(b"\x00" * 16, content_type="video/mp4")
    httpserver.expect_request("/play.html").respond_with_data(html(), content_type="text/html")
    httpserver.expect_request("/t.png").respond_with_data(png(120, 90), content_type="image/png")
    httpserver.expect_request("/tiny.png").respond_with_data(png(20, 10), content_type="image/png")
    httpserver.expect_request("/t404.jpg").respond_with_data("no", 404)
    httpserver.expect_request("/thumb.html").respond_with_data(html(), content_type="text/html")
    u = lambda p: url(httpserver, p)  # noqa: E731
    add_sitemap(
        store,
        httpserver,
        [
            Entry(loc=u("/watch?v=1"), videos=[video(u("/v.mp4"), u("/t.png"))]),  # all fine
            Entry(loc=u("/watch?v=2"), videos=[video(u("/play.html"), u("/t404.jpg"))]),
            Entry(
                loc=u("/watch?v=3"),
                videos=[video(None, u("/tiny.png")), video(None, u("/thumb.html"))],
            ),
        ],
    )
    found = await deep(store, "video-content-not-media", "video-thumbnail-problem")
    content = found["video-content-not-media"]
    assert len(content) == 1 and content[0][0] == u("/watch?v=2")
    assert f"content_loc {u('/play.html')} returns text/html" in content[0][1]
    thumbs = sorted(m for _, m in found["video-thumbnail-problem"])
    assert len(thumbs) == 3
    assert any("t404.jpg: answers HTTP 404" in m for m in thumbs)
    assert any("20x10 pixels" in m for m in thumbs)
    assert any("served as text/html" in m for m in thumbs)


async def test_hreflang_html_conflict(store: Store, httpserver: HTTPServer) -> None:
    u = lambda p: url(httpserver, p)  # noqa: E731
    httpserver.expect_request("/en").respond_with_data(
        html(
            head=(
                f'<link rel="alternate" hreflang="en" href="{u("/en")}">'
                f'<link rel="alternate" hreflang="de" href="{u("/de-other")}">'
            )
        ),
        content_type="text/html",
    )
    httpserver.expect_request("/fr").respond_with_data(
        html(
            head=(
                f'<link rel="alternate" hreflang="FR" href="/fr"><link rel="alternate" hreflang="en" href="{u("/en")}">'
            )
        ),
        content_type="text/html",
    )
    httpserver.expect_request("/es").respond_with_data(
        html(), content_type="text/html"
    )  # no page annotations
    add_sitemap(
        store,
        httpserver,
        [
            Entry(
                loc=u("/en"),
                alternates=[
                    Alternate("alternate", "en", u("/en")),
                    Alternate("alternate", "de", u("/de")),
                ],
            ),
            Entry(
                loc=u("/fr"),
                alternates=[
                    Alternate("alternate", "fr", u("/fr")),
                    Alternate("alternate", "en", u("/en")),
                ],
            ),
            Entry(loc=u("/es"), alternates=[Alternate("alternate", "es", u("/es"))]),
        ],
    )
    found = await deep(store, "hreflang-html-conflict")
    assert [u_ for u_, _ in found["hreflang-html-conflict"]] == [u("/en")]
    assert "de: sitemap" in found["hreflang-html-conflict"][0][1]


async def test_hreflang_target_not_indexable(store: Store, httpserver: HTTPServer) -> None:
    u = lambda p: url(httpserver, p)  # noqa: E731
    httpserver.expect_request("/en").respond_with_data(html(), content_type="text/html")
    httpserver.expect_request("/de").respond_with_data(
        html(head='<meta name="robots" content="noindex">'), content_type="text/html"
    )
    httpserver.expect_request("/fr").respond_with_data("", 404)
    httpserver.expect_request("/it").respond_with_data("", 301, headers={"Location": "/it/"})
    httpserver.expect_request("/it/").respond_with_data(html(), content_type="text/html")
    httpserver.expect_request("/es").respond_with_data(html(), content_type="text/html")  # fine
    links = {"en": "/en", "de": "/de", "fr": "/fr", "it": "/it", "es": "/es", "x-default": "/de"}
    add_sitemap(
        store,
        httpserver,
        [
            Entry(
                loc=u("/en"), alternates=[Alternate("alternate", k, u(v)) for k, v in links.items()]
            ),
        ],
    )
    found = await deep(store, "hreflang-target-not-indexable")
    msgs = sorted(m for _, m in found["hreflang-target-not-indexable"])
    assert len(msgs) == 3
    assert any(u("/de") in m and "noindex" in m for m in msgs)
    assert any(u("/fr") in m and "HTTP 404" in m for m in msgs)
    assert any(u("/it") in m and "redirects" in m for m in msgs)
    # the entry's own page was not fetched for this rule alone; each target once
    assert sorted(req.path for req, _ in pages(httpserver)) == ["/de", "/es", "/fr", "/it", "/it/"]


# -- sampling, rate, cancellation ------------------------------------------------------------
async def test_sample_progress_and_rerun(store: Store, httpserver: HTTPServer) -> None:
    httpserver.expect_request("/p").respond_with_data("", 404)
    add_sitemap(store, httpserver, [Entry(loc=url(httpserver, f"/p?i={i}")) for i in range(10)])
    progress: list[tuple[int, int]] = []
    opts = DeepOptions(sample=3, rate=0, timeout=5)
    n = await run_deep(
        store,
        CONFIG,
        opts,
        enabled={"deep-status-4xx"},
        on_progress=lambda d, t: progress.append((d, t)),
    )
    assert n == 3 and progress[-1] == (3, 3)
    assert sorted(req.args["i"] for req, _ in pages(httpserver)) == ["0", "3", "6"]
    await run_deep(store, CONFIG, opts, enabled={"deep-status-4xx"})  # again: replaced, not added
    assert len(store.issues(rule="deep-status-4xx")) == 3
    assert all(store.entry_detail(i.entry_id)["entry"].n_issues == 1 for i in store.issues())


def record_slots(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, float]]:
    """The (host, next free slot) reservations the deep checks' limiter hands out, read on the
    event loop's clock (nothing is timed here)."""
    slots: list[tuple[str, float]] = []

    class Reservations(dict):  # type: ignore[type-arg]
        def __setitem__(self, host: str, next_free: float) -> None:
            slots.append((host, next_free))
            super().__setitem__(host, next_free)

    class RecordingLimiter(deep_mod.RateLimiter):
        def __init__(self, rate: float) -> None:
            super().__init__(rate)
            self._next = Reservations()

    monkeypatch.setattr(deep_mod, "RateLimiter", RecordingLimiter)
    return slots


async def test_rate_limit_per_host(
    store: Store, httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    httpserver.expect_request("/r").respond_with_data("ok")
    add_sitemap(store, httpserver, [Entry(loc=url(httpserver, f"/r?i={i}")) for i in range(10)])
    slots = record_slots(monkeypatch)
    await run_deep(
        store,
        CONFIG,
        DeepOptions(sample=None, rate=5.0, concurrency=8),
        enabled={"deep-status-4xx"},
    )
    assert len(pages(httpserver)) == 10
    # one slot per request, all on the one host, each at least 1/rate = 0.2 s after the last
    # although 8 requests could run at once
    assert len(slots) == 11 and len({host for host, _ in slots}) == 1  # robots.txt is paced too
    times = [t for _, t in slots]
    assert all(b - a >= 0.2 - 1e-9 for a, b in zip(times, times[1:], strict=False)), times


async def test_a_crawl_delay_widens_the_spacing_and_is_said(
    store: Store, httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the audit honours it: robots.txt's Crawl-delay for our agent spaces the deep checks'
    requests to its host, even with --rate 0 (no limit of the user's own)."""
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nCrawl-delay: 0.3\n")
    httpserver.expect_request("/r").respond_with_data("ok")
    add_sitemap(store, httpserver, [Entry(loc=url(httpserver, f"/r?i={i}")) for i in range(3)])
    slots = record_slots(monkeypatch)
    notes: list[str] = []
    await run_deep(store, CONFIG, DeepOptions(sample=None, rate=0, concurrency=8), enabled={"deep-status-4xx"},
                   on_note=notes.append)
    assert len(pages(httpserver)) == 3
    assert notes == [f"127.0.0.1:{httpserver.port}: Crawl-delay 0.3 s honoured (requests 0.3 s apart)"]
    pages_at = [t for _, t in slots[-3:]]  # the three pages' slots, after robots.txt's
    assert all(b - a >= 0.3 - 1e-9 for a, b in zip(pages_at, pages_at[1:], strict=False)), slots


async def test_cancel_returns_promptly(store: Store, httpserver: HTTPServer) -> None:
    httpserver.expect_request("/c").respond_with_data("", 404)
    add_sitemap(store, httpserver, [Entry(loc=url(httpserver, f"/c?i={i}")) for i in range(20)])
    cancel = asyncio.Event()
    n = await run_deep(
        store,
        CONFIG,
        DeepOptions(sample=None, rate=2.0),
        enabled={"deep-status-4xx"},
        cancel_event=cancel,
        # cancel once the first URL is checked (not after a guess at how long that takes)
        on_progress=lambda done, total: cancel.set(),
    )
    # at 2 requests/s the 20 URLs would take 10 s: the queued ones were dropped, not waited for
    assert len(httpserver.log) < 20
    assert 1 <= n < 20  # what was found before the cancel stays
    assert len(store.issues(rule="deep-status-4xx")) == n


async def test_an_entry_whose_checks_fail_is_counted_and_said(store: Store, httpserver: HTTPServer,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """One entry's failure never ends the run, but it was dropped in silence: a URL the checks
    never judged passed CI."""
    from sitemap_tui.validate import deep as deep_module

    httpserver.expect_request("/ok").respond_with_data(html(), content_type="text/html")
    add_sitemap(store, httpserver, [Entry(loc=url(httpserver, p)) for p in ("/ok", "/odd")])
    original = deep_module._Deep.check_entry

    async def check_entry(self: Any, row: Any) -> None:
        if row[2].endswith("/odd"):
            raise ValueError("a row the checks cannot read")
        await original(self, row)

    monkeypatch.setattr(deep_module._Deep, "check_entry", check_entry)
    notes: list[str] = []
    await deep(store, "deep-status-4xx", on_note=notes.append)
    assert notes == [f"deep checks: 1 URL could not be checked, first {url(httpserver, '/odd')}: ValueError:"
                     " a row the checks cannot read"]

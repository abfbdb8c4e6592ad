"""Index and robots.txt rules of the checker: each with a trigger and a near miss."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sitemap_tui.engine.model import ChildRef, Entry, FileStats, FoundBy, Issue, NodeKind
from sitemap_tui.engine.robots import parse_robots
from sitemap_tui.engine.sniff import ParseInfo, SniffingParser
from sitemap_tui.validate import rules as rules_mod
from sitemap_tui.validate.checker import Checker, FileContext

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
INDEX = "https://example.com/sitemap_index.xml"
ROBOTS = "https://example.com/robots.txt"


@pytest.fixture(autouse=True)
def _strict_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules_mod, "STRICT_MESSAGES", True)


def run_index(children: list[ChildRef], *, url: str = INDEX, robots_listed_by: set[str] | None = None, stats: FileStats | None = None) -> list[Issue]:
    checker = Checker()
    ctx = FileContext(node_id=2, url=url, kind=NodeKind.INDEX, robots_listed_by=robots_listed_by or set(), now=NOW)
    checker.begin_file(ctx)
    out: list[Issue] = []
    for c in children:
        out += checker.check_child(ctx, c)
    out += checker.end_file(ctx, ParseInfo(), stats or FileStats())
    for issue in out:
        assert issue.rule in rules_mod.RULES
    return out


def rules(issues: list[Issue]) -> set[str]:
    return {i.rule for i in issues}


def C(loc: str | None = "https://example.com/sitemap-1.xml", lastmod: str | None = "2024-05-01", tags: list[str] | None = None, line: int = 3) -> ChildRef:
    return ChildRef(loc=loc, line=line, lastmod_raw=lastmod, tags=tags if tags is not None else ["loc", "lastmod"])


CHILD_CASES = [
    ("index-sitemap-loc-missing", [C(None), C(""), C("   ")], [C()]),
    ("index-loc-invalid", [C("sitemap-1.xml"), C("/sitemap-1.xml"), C("ftp://example.com/s.xml"), C("https://example.com/" + "a" * 2030), C("https://example.com/a b.xml")], [C(), C("https://example.com/sitemap-1.xml.gz")]),
    ("index-wrong-children", [C(tags=["loc", "changefreq"]), C(tags=["loc", "priority"]), C(tags=["loc", "url"])], [C(tags=["loc", "lastmod"])]),
    ("index-child-different-host", [C("https://cdn.example.com/sitemap-1.xml"), C("http://example.com/sitemap-1.xml"), C("https://other.example/s.xml")], [C("https://EXAMPLE.com/sitemap-1.xml")]),
    # 2024-05-01T10:00:00 passes the XSD: lastmod-xsd-valid-but-not-w3c, as in a <url>
    ("index-lastmod-invalid", [C(lastmod="2024-13-01"), C(lastmod="202-05-20"), C(lastmod="yesterday"), C(lastmod="")], [C(lastmod="2024-05-01"), C(lastmod="2024-05-01T10:00:00Z"), C(lastmod=None), C(lastmod="2024-05-01T10:00:00")]),
    # an empty <lastmod> is there: invalid (as a <url>'s), not missing
    ("index-lastmod-missing", [C(lastmod=None)], [C(), C(lastmod="")]),
    ("index-extension-elements", [C(tags=["loc", "image:image"]), C(tags=["loc", "{urn:vendor}x"])], [C(tags=["loc", "lastmod"])]),
    ("ping-endpoint-deprecated", [C("https://www.google.com/ping?sitemap=https://example.com/s.xml"), C("http://www.bing.com/ping?sitemap=x")], [C(), C("https://example.com/ping?sitemap=1")]),
]


@pytest.mark.parametrize(("rule", "hits", "misses"), CHILD_CASES, ids=[c[0] for c in CHILD_CASES])
def test_child_rule_trigger_and_near_miss(rule: str, hits: list[ChildRef], misses: list[ChildRef]) -> None:
    for child in hits:
        assert rule in rules(run_index([child])), f"{rule} should fire for {child}"
    for child in misses:
        assert rule not in rules(run_index([child])), f"{rule} should not fire for {child}"


def test_index_child_outside_path() -> None:
    url = "https://example.com/public/sitemap_index.xml"
    assert "index-child-outside-path" in rules(run_index([C("https://example.com/other/s.xml")], url=url))
    assert "index-child-outside-path" not in rules(run_index([C("https://example.com/public/sub/s.xml")], url=url))


def test_index_child_cross_submitted() -> None:
    listed = {"https://other.example/robots.txt"}
    assert "index-child-different-host" not in rules(run_index([C("https://other.example/s.xml")], robots_listed_by=listed))
    assert "index-child-different-host" in rules(run_index([C("https://third.example/s.xml")], robots_listed_by=listed))


def test_index_child_duplicate() -> None:
    issues = run_index([C(line=3), C("https://EXAMPLE.com/sitemap-1.xml", line=7)])
    dup = [i for i in issues if i.rule == "index-child-duplicate"]
    assert len(dup) == 1 and dup[0].line == 7 and "line 3" in dup[0].message
    assert "index-child-duplicate" not in rules(run_index([C(), C("https://example.com/sitemap-2.xml")]))


def test_index_empty() -> None:
    assert "index-empty" in rules(run_index([]))
    assert "index-empty" not in rules(run_index([C()]))


def test_index_lastmod_missing_is_one_reminder() -> None:
    issues = run_index([C(lastmod=None, line=3), C("https://example.com/s2.xml", lastmod=None, line=4), C("https://example.com/s3.xml", line=5)])
    found = [i for i in issues if i.rule == "index-lastmod-missing"]
    assert len(found) == 1 and "2 of 3" in found[0].message and found[0].line == 3


def test_index_url_count_near_limit() -> None:
    assert "url-count-near-limit" in rules(run_index([C()], stats=FileStats(child_count=45_001)))
    assert "url-count-near-limit" not in rules(run_index([C()], stats=FileStats(child_count=45_000)))


def test_url_inside_an_index() -> None:
    checker = Checker()
    ctx = FileContext(node_id=1, url=INDEX, kind=NodeKind.INDEX, now=NOW)
    checker.begin_file(ctx)
    assert rules(checker.check_entry(ctx, Entry(loc="https://example.com/a", line=4))) == {"index-wrong-children"}


# -- rules decided while checking a child file ---------------------------------------------------


def child_ctx(kind: NodeKind, parent_kind: NodeKind | None = NodeKind.INDEX, **kw: object) -> FileContext:
    return FileContext(
        node_id=10,
        url="https://example.com/sitemap-1.xml",
        kind=kind,
        found_by=FoundBy.INDEX,
        parent_url=INDEX,
        parent_kind=parent_kind,
        parent_node_id=2,
        parent_line=5,
        now=NOW,
        **kw,  # type: ignore[arg-type]
    )


def end(ctx: FileContext, entries: list[Entry] = (), stats: FileStats | None = None) -> list[Issue]:  # type: ignore[assignment]
    checker = Checker()
    checker.begin_file(ctx)
    out: list[Issue] = []
    for e in entries:
        out += checker.check_entry(ctx, e)
    return out + checker.end_file(ctx, ParseInfo(), stats or FileStats())


def test_index_nested() -> None:
    found = [i for i in end(child_ctx(NodeKind.INDEX)) if i.rule == "index-nested"]
    assert len(found) == 1 and INDEX in found[0].message
    assert "index-nested" not in rules(end(child_ctx(NodeKind.URLSET)))
    assert "index-nested" not in rules(end(child_ctx(NodeKind.INDEX, parent_kind=NodeKind.ROBOTS)))


def test_index_child_is_feed_or_text() -> None:
    for kind in (NodeKind.RSS, NodeKind.ATOM, NodeKind.TEXT):
        found = [i for i in end(child_ctx(kind), [Entry(loc="https://example.com/a", line=1)]) if i.rule == "index-child-is-feed-or-text"]
        assert len(found) == 1 and found[0].node_id == 2 and found[0].line == 5
    assert "index-child-is-feed-or-text" not in rules(end(child_ctx(NodeKind.URLSET)))
    assert "index-child-is-feed-or-text" not in rules(end(child_ctx(NodeKind.RSS, parent_kind=NodeKind.ROBOTS)))


def test_index_lastmod_stale() -> None:
    newer = [Entry(loc="https://example.com/a", line=3, lastmod_raw="2024-05-02T10:00:00Z")]
    stale = [i for i in end(child_ctx(NodeKind.URLSET, listed_lastmod_raw="2024-05-01"), newer) if i.rule == "index-lastmod-stale"]
    assert len(stale) == 1 and stale[0].node_id == 2 and stale[0].line == 5
    # same day, date-only index value: not stale; index value newer: not stale
    same_day = [Entry(loc="https://example.com/a", line=3, lastmod_raw="2024-05-01T10:00:00Z")]
    assert "index-lastmod-stale" not in rules(end(child_ctx(NodeKind.URLSET, listed_lastmod_raw="2024-05-01"), same_day))
    assert "index-lastmod-stale" not in rules(end(child_ctx(NodeKind.URLSET, listed_lastmod_raw="2024-05-03T00:00:00Z"), newer))
    # HTTP Last-Modified of the child
    lm = FileStats(last_modified="Fri, 10 May 2024 10:00:00 GMT")
    assert "index-lastmod-stale" in rules(end(child_ctx(NodeKind.URLSET, listed_lastmod_raw="2024-05-01T00:00:00Z"), stats=lm))
    assert "index-lastmod-stale" not in rules(end(child_ctx(NodeKind.URLSET, listed_lastmod_raw="2024-05-11T00:00:00Z"), stats=lm))


def test_file_failed() -> None:
    checker = Checker()
    found = checker.file_failed(child_ctx(NodeKind.UNKNOWN), "fetch-http-error", "HTTP 404")
    assert rules(found) == {"index-child-unfetchable"} and found[0].line == 5 and found[0].node_id == 2
    robots_child = FileContext(node_id=10, url="https://example.com/s.xml", found_by=FoundBy.ROBOTS, parent_kind=NodeKind.ROBOTS, parent_node_id=1, parent_line=4, now=NOW)
    assert rules(checker.file_failed(robots_child, "file-is-html", "HTML page")) == {"robots-sitemap-unfetchable"}
    assert checker.file_failed(robots_child, "gzip-corrupt", "bad gzip") == []
    user = FileContext(node_id=10, url="https://example.com/s.xml", now=NOW)
    assert checker.file_failed(user, "fetch-http-error", "HTTP 404") == []


# -- robots.txt ----------------------------------------------------------------------------------


def check_robots(text: str) -> list[Issue]:
    robots = parse_robots(text.encode(), ROBOTS)
    ctx = FileContext(node_id=1, url=ROBOTS, kind=NodeKind.ROBOTS, now=NOW)
    out = Checker().check_robots(robots, ctx)
    for issue in out:
        assert issue.rule in rules_mod.RULES
    return out


ROBOTS_CASES = [
    ("robots-no-sitemap-line", ["User-agent: *\nDisallow: /admin/\n", ""], ["Sitemap: https://example.com/sitemap.xml\n"]),
    ("robots-sitemap-not-absolute", ["Sitemap: /sitemap.xml\n", "Sitemap: sitemap.xml\n", "Sitemap:\n"], ["Sitemap: https://example.com/sitemap.xml\n", "sitemap: http://example.com/s.txt # comment\n"]),
    ("robots-sitemap-unfetchable", ["Sitemap: ftp://example.com/sitemap.xml\n", "Sitemap: https://exa mple.com/s.xml\n", "Sitemap: file:///etc/passwd\n"], ["Sitemap: https://example.com/sitemap.xml\n"]),
    ("ping-endpoint-deprecated", ["Sitemap: https://www.google.com/ping?sitemap=https://example.com/s.xml\n", "Sitemap: http://www.bing.com/webmaster/ping.aspx?siteMap=https://example.com/s.xml\n"], ["Sitemap: https://example.com/sitemap.xml\n"]),
]


@pytest.mark.parametrize(("rule", "hits", "misses"), ROBOTS_CASES, ids=[c[0] for c in ROBOTS_CASES])
def test_robots_rule_trigger_and_near_miss(rule: str, hits: list[str], misses: list[str]) -> None:
    for text in hits:
        assert rule in rules(check_robots(text)), f"{rule} should fire for {text!r}"
    for text in misses:
        assert rule not in rules(check_robots(text)), f"{rule} should not fire for {text!r}"


def test_robots_issue_lines() -> None:
    issues = check_robots("User-agent: *\nDisallow:\n\nSitemap: /a.xml\nSitemap: ftp://example.com/b.xml\n")
    assert {(i.rule, i.line) for i in issues} == {("robots-sitemap-not-absolute", 4), ("robots-sitemap-unfetchable", 5)}


def test_parsed_index() -> None:
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<sitemap><loc>https://example.com/s1.xml</loc><lastmod>2024-05-01</lastmod></sitemap>\n"
        "<sitemap><loc>s2.xml</loc><changefreq>daily</changefreq></sitemap>\n"
        "<sitemap><loc>https://example.com/s1.xml</loc><lastmod>2024-5-1</lastmod></sitemap>\n"
        "</sitemapindex>\n"
    )
    parser = SniffingParser(INDEX)
    items = parser.feed(xml.encode()) + parser.close()
    checker = Checker()
    ctx = FileContext(node_id=1, url=INDEX, kind=parser.kind or NodeKind.UNKNOWN, now=NOW)
    checker.begin_file(ctx)
    issues: list[Issue] = []
    for item in items:
        if isinstance(item, ChildRef):
            issues += checker.check_child(ctx, item)
    issues += checker.end_file(ctx, parser.info, FileStats())
    got = {(i.rule, i.line) for i in issues}
    assert {("index-loc-invalid", 4), ("index-wrong-children", 4), ("index-child-duplicate", 5), ("index-lastmod-invalid", 5), ("index-lastmod-missing", 4)} <= got


def test_robots_fetch_failed() -> None:
    ctx = FileContext(node_id=1, url=ROBOTS, kind=NodeKind.ROBOTS, now=NOW)
    checker = Checker()
    assert rules(checker.robots_fetch_failed(ctx, 503, "HTTP 503")) == {"robots-fetch-error"}
    assert rules(checker.robots_fetch_failed(ctx, None, "connection refused")) == {"robots-fetch-error"}
    assert checker.robots_fetch_failed(ctx, 404, "HTTP 404") == []  # 4xx: no restrictions
    assert checker.robots_fetch_failed(ctx, 200, "") == []


def test_a_url_written_as_the_sitemaps_text_is_quoted() -> None:
    """crawler-commons keeps an index whose <sitemap>s hold the URL as their text: the finding
    quotes it (the parser keeps it only where there is no <loc>); whitespace alone is no text."""
    parser = SniffingParser("https://example.com/index.xml")
    body = (b'<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            b"<sitemap>\n  https://example.com/a.xml\n</sitemap>\n<sitemap>\n  <lastmod>2024-05-01</lastmod>\n</sitemap>\n"
            b"<sitemap><loc>https://example.com/b.xml</loc></sitemap>\n</sitemapindex>\n")
    items = list(parser.feed(body)) + list(parser.close())
    refs = [i for i in items if isinstance(i, ChildRef)]
    assert [r.text for r in refs] == ["https://example.com/a.xml", None, None]
    issues = [i for i in run_index(refs) if i.rule == "index-sitemap-loc-missing"]
    assert len(issues) == 2
    assert "only text ('https://example.com/a.xml')" in issues[0].message
    assert issues[1].message == "<sitemap> has no <loc>, or it is empty"

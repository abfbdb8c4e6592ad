"""URL-scope and file-scope rules of the checker: each with a trigger and a near miss."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from judging import judged

from sitemap_tui.engine.model import ChildRef, Entry, FileStats, Issue, NodeKind, Severity
from sitemap_tui.engine.sniff import ParseInfo, SniffingParser
from sitemap_tui.validate import rules as rules_mod
from sitemap_tui.validate.checker import Checker, FileContext

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
SITEMAP = "https://example.com/sitemap.xml"
PAGE = "https://example.com/page"


@pytest.fixture(autouse=True)
def _strict_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules_mod, "STRICT_MESSAGES", True)


def run(
    entries: list[Entry],
    *,
    kind: NodeKind = NodeKind.URLSET,
    url: str = SITEMAP,
    final_url: str | None = None,
    robots_listed_by: set[str] | None = None,
    info: ParseInfo | None = None,
    stats: FileStats | None = None,
    children: list[ChildRef] | None = None,
) -> list[Issue]:
    """Every issue the checker gives for a file made of ``entries`` (end_file included)."""
    checker = Checker()
    ctx = FileContext(
        node_id=7,
        url=url,
        final_url=final_url,
        kind=kind,
        robots_listed_by=robots_listed_by or set(),
        now=NOW,
    )
    checker.begin_file(ctx)
    out: list[Issue] = []
    for e in entries:
        out += checker.check_entry(ctx, e)
    for c in children or []:
        out += checker.check_child(ctx, c)
    out += checker.end_file(ctx, info or ParseInfo(), stats or FileStats())
    for issue in out:
        assert issue.rule in rules_mod.RULES
        assert issue.message and issue.message != rules_mod.RULES[issue.rule].title
    return out


def rules(issues: list[Issue]) -> set[str]:
    return {i.rule for i in issues}


def E(loc: str | None = PAGE, **kw: object) -> Entry:
    return Entry(loc=loc, line=kw.pop("line", 3), **kw)  # type: ignore[arg-type]


def lm(raw: str) -> Entry:
    return E(lastmod_raw=raw)


# -- one entry: (rule, triggering entries, near-miss entries) -----------------------------------

CASES: list[tuple[str, list[Entry], list[Entry]]] = [
    ("core-unknown-element", [E(tags=["loc", "expires"]), E(tags=["loc", "sitemap"])], [E(tags=["loc", "lastmod", "image:image"])]),
    ("core-element-order", [E(tags=["lastmod", "loc"]), E(tags=["loc", "image:image", "lastmod"])], [E(tags=["loc", "lastmod", "changefreq", "priority", "image:image"])]),
    ("core-element-repeated", [E(tags=["loc", "loc"]), E(tags=["loc", "lastmod", "lastmod"])], [E(tags=["loc", "lastmod"])]),
    ("loc-missing", [E(None)], [E(PAGE), E("")]),
    ("loc-empty", [E(""), E("  \n ")], [E(PAGE), E(None)]),
    ("loc-not-absolute", [E("/page"), E("//example.com/page"), E("www.example.com/page"), E("example.com:8080/x")], [E(PAGE), E("ftp://example.com/x")]),
    ("loc-bad-scheme", [E("ftp://example.com/a"), E("javascript:alert(1)"), E("mailto:a@example.com")], [E("HTTPS://example.com/a"), E("/a")]),
    ("loc-too-long", [E("https://example.com/" + "a" * (2048 - 20))], [E("https://example.com/" + "a" * (2047 - 20))]),
    ("loc-invalid-uri", [E("https://example.com/a b"), E("https://example.com/a<b"), E("https://exa_mple com/"), E("https:///path"), E("https:/path"), E("https://example.com:99999/"), E("https://example.com:8a/"), E("https://[::1/"), E("https://a..b/"),
                         # a numeric host that is no dotted quad (found from outside): 127.0.0.1 to a browser, or nothing
                         E("http://0177.0.0.1/"), E("http://127.1/"), E("http://093.1.1.1/"), E("http://256.1.1.1/")],
     [E("https://example.com/a%20b"), E("https://[::1]:8080/x"), E("https://example.com:8443/"), E("http://8.8.8.8/"),
      E("http://10.0.0.1:8080/"), E("https://example.com./"), E("https://web2.example/")]),
    ("loc-bad-percent-encoding", [E("https://example.com/100%"), E("https://example.com/%zz"), E("https://example.com/%4")], [E("https://example.com/100%25"), E("https://example.com/%C3%BC")]),
    ("loc-not-url-escaped", [E("https://example.com/ümlat.html"), E("https://bücher.example/"), E("https://example.com/?q=日本")], [E("https://example.com/%C3%BCmlat.html"), E("https://xn--bcher-kva.example/")]),
    ("loc-has-fragment", [E("https://example.com/a#top"), E("https://example.com/a#")], [E("https://example.com/a"), E("https://example.com/a?x=%23")]),
    ("loc-session-id", [E("https://example.com/a;jsessionid=ABC"), E("https://example.com/a?PHPSESSID=1"), E("https://example.com/?x=1&sid=9"), E("https://example.com/?ASPSESSIONIDQQGG=1"), E("https://example.com/?osCsid=1"), E("https://example.com/?zenid=1")], [E("https://example.com/a?side=1"), E("https://example.com/sid=1"), E("https://example.com/?consider=1")]),
    ("loc-tracking-params", [E("https://example.com/?utm_source=x"), E("https://example.com/?a=1&gclid=2"), E("https://example.com/?fbclid=1"), E("https://example.com/?msclkid=1"), E("https://example.com/?mc_cid=1")], [E("https://example.com/?utmost=1"), E("https://example.com/utm_source=x")]),
    ("loc-userinfo", [E("https://user:pw@example.com/"), E("https://user@example.com/")], [E("https://example.com/@user"), E("https://example.com/?mail=a@b")]),
    ("loc-private-host", [E("http://localhost/"), E("http://127.0.0.1/"), E("http://10.0.0.5/"), E("http://192.168.1.1/"), E("http://169.254.1.1/"), E("http://[::1]/"), E("http://printer.local/"), E("https://staging.example.com/"), E("https://dev.example.com/"), E("https://test.example.com/")], [E(PAGE), E("https://8.8.8.8/"), E("https://devices.example.com/"), E("https://latest.example.com/"), E("https://dev.to/an-article"), E("https://test.de/produkt")]),
    ("loc-not-normalized", [E("HTTPS://example.com/a"), E("https://Example.com/a"), E("https://example.com:443/a"), E("http://example.com:80/a"), E("https://example.com/a/../b"), E("https://example.com/./b"), E("https://example.com"), E("https://example.com/%c3%bc"), E("https://example.com:/a")], [E("https://example.com/a/b.html"), E("https://example.com/%C3%BC"), E("https://example.com/a..b/.c"), E("https://example.com:8443/a")]),
    # a value the XSD accepts but W3C Datetime does not is only lastmod-xsd-valid-but-not-w3c
    ("lastmod-invalid-format", [lm("2024-05-01 10:00:00"), lm("01/05/2024"), lm("2024-02-30"), lm("Tue, 10 Jun 2003 04:00:00 GMT"), lm("")], [lm("2024-05-01"), lm("2024-05-01T10:00:00+02:00"), lm("2024"), lm("2024-05-01T10:00Z"), lm("2024-05-01T10:00:00"), lm(" 2024-05-01 ")]),
    ("lastmod-w3c-but-xsd-invalid", [lm("2024"), lm("2024-05"), lm("2024-05-01T10:00Z"), lm("2024-05-01T10:00+02:00"), lm("2024-05-01T10:00:00+15:00")], [lm("2024-05-01"), lm("2024-05-01T10:00:00Z"), lm("2024-05-01T10:00:00.5+14:00"), lm("2024-05-01T10:00:00-05:00"), lm("2024-05-01 10:00")]),
    ("lastmod-xsd-valid-but-not-w3c", [lm("2024-05-01T10:00:00"), lm("2024-05-01Z"), lm("2024-05-01+02:00"), lm(" 2024-05-01 "), lm("12024-05-01"), lm("2024-05-01T24:00:00Z")], [lm("2024-05-01 10:00:00"), lm("2024-05-01"), lm("2024-05-01T10:00Z")]),
    ("lastmod-future", [lm("2025-06-03"), lm("2025-06-02T13:00:00Z")], [lm("2025-06-02"), lm("2025-06-02T11:00:00Z")]),
    ("lastmod-implausibly-old", [lm("1970-01-01"), lm("1900-01-01"), lm("0001-01-01"), lm("1991-08-05T23:00:00Z")], [lm("1991-08-06"), lm("2024-05-01")]),
    ("lastmod-missing", [E(PAGE)], [lm("2024-05-01")]),
    ("changefreq-invalid", [E(changefreq_raw="Daily"), E(changefreq_raw="sometimes"), E(changefreq_raw="")], [E(changefreq_raw="daily"), E(changefreq_raw=" never ")]),
    ("changefreq-ignored", [E(changefreq_raw="daily")], [E(PAGE)]),
    ("priority-invalid", [E(priority_raw="1.5"), E(priority_raw="-0.1"), E(priority_raw="high"), E(priority_raw="0,5"), E(priority_raw=""), E(priority_raw="nan")], [E(priority_raw="0.5"), E(priority_raw="1.0"), E(priority_raw="0"), E(priority_raw=".5"), E(priority_raw="1")]),
    ("priority-ignored", [E(priority_raw="0.5")], [E(PAGE)]),
]


@pytest.mark.parametrize(("rule", "hits", "misses"), CASES, ids=[c[0] for c in CASES])
def test_entry_rule_trigger_and_near_miss(rule: str, hits: list[Entry], misses: list[Entry]) -> None:
    for entry in hits:
        assert rule in rules(run([entry])), f"{rule} should fire for {entry}"
    for entry in misses:
        assert rule not in rules(run([entry])), f"{rule} should not fire for {entry}"


def test_plain_entry_is_clean() -> None:
    entry = E("https://example.com/a/b.html", lastmod_raw="2024-05-01T10:00:00+00:00", tags=["loc", "lastmod"])
    assert run([entry]) == []


def test_parser_entry_lastmod_is_reused() -> None:
    # the parser fills entry.lastmod; the checker must agree with the raw text
    e = E(lastmod_raw="2024-05-01", lastmod=datetime(2024, 5, 1, tzinfo=UTC))
    assert rules(run([e])) == set()


# -- location ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "sitemap", "hit", "miss"),
    [
        ("location-different-host", SITEMAP, "https://www.example.com/a", "https://EXAMPLE.com/a"),
        ("location-different-host", SITEMAP, "https://shop.example.com/a", "https://example.com/shop/a"),
        ("location-different-scheme", SITEMAP, "http://example.com/a", "https://example.com/a"),
        ("location-different-scheme", "http://example.com/sitemap.xml", "https://example.com/a", "HTTP://example.com/a"),
        ("location-outside-path", "https://example.com/catalog/sitemap.xml", "https://example.com/other/a", "https://example.com/catalog/a"),
        ("location-outside-path", "https://example.com/catalog/sitemap.xml", "https://example.com/catalog", "https://example.com/catalog/"),
        # a dot-segment does not lift a URL into the directory: httpx requests /shop/d
        ("location-outside-path", "https://example.com/catalog/sitemap.xml", "https://example.com/catalog/../shop/d", "https://example.com/shop/../catalog/d"),
        ("location-port-mismatch", "https://example.com:8080/sitemap.xml", "https://example.com/a", "https://example.com:8080/a"),
        ("location-port-mismatch", SITEMAP, "https://example.com:8443/a", "https://example.com:443/a"),
    ],
)
def test_location_rules(rule: str, sitemap: str, hit: str, miss: str) -> None:
    assert rule in rules(run([E(hit)], url=sitemap))
    assert rule not in rules(run([E(miss)], url=sitemap))


def test_location_rules_skip_local_files() -> None:
    assert not {r for r in rules(run([E("https://other.example/a")], url="file:///tmp/s.xml")) if r.startswith("location-")}


def test_other_host_reports_only_the_host_rule() -> None:
    found = rules(run([E("http://other.example:8080/elsewhere/a")], url="https://example.com/x/sitemap.xml"))
    assert "location-different-host" in found
    assert not found & {"location-different-scheme", "location-port-mismatch", "location-outside-path"}


def test_cross_submit_exempts_host_and_path() -> None:
    listed = {"https://other.example/robots.txt"}
    issues = run([E("https://other.example/a"), E("https://other.example/b", line=4)], robots_listed_by=listed)
    found = rules(issues)
    assert "location-different-host" not in found
    assert [i.rule for i in issues].count("robots-cross-submit-ok") == 1  # once per host and file
    ok = next(i for i in issues if i.rule == "robots-cross-submit-ok")
    assert "https://other.example/robots.txt" in ok.message
    # another host still fails, and so do another port or scheme of the host named (another site)
    assert "location-different-host" in rules(run([E("https://third.example/a")], robots_listed_by=listed))
    for other, label in (("https://other.example:8443/a", "'other.example:8443'"),
                         ("http://other.example/a", "'http://other.example'"), ("https://[2001:db8::1]/a", "'[2001:db8::1]'")):
        (hit,) = [i for i in run([E(other)], robots_listed_by=listed) if i.rule == "location-different-host"]
        assert f"on host {label}, not the sitemap's host 'example.com'" in hit.message, hit.message
    # outside the path, but the sitemap's own host names it in robots.txt
    own = {"https://example.com/robots.txt"}
    found = rules(run([E("https://example.com/other/a")], url="https://example.com/cat/sitemap.xml", robots_listed_by=own))
    assert "location-outside-path" not in found
    assert "robots-cross-submit-ok" in found


def test_location_uses_final_url_and_mentions_the_requested_one() -> None:
    # requested on example.com, redirected to www.example.com
    issues = run([E("https://example.com/a")], url="https://example.com/sitemap.xml", final_url="https://www.example.com/sitemap.xml")
    hit = [i for i in issues if i.rule == "location-different-host"]
    assert hit and "would pass" in hit[0].message
    issues = run([E("https://www.example.com/a")], url="https://example.com/sitemap.xml", final_url="https://www.example.com/sitemap.xml")
    assert "location-different-host" not in rules(issues)
    issues = run([E("https://third.example/a")], url="https://example.com/sitemap.xml", final_url="https://www.example.com/sitemap.xml")
    assert "also against the requested URL" in next(i.message for i in issues if i.rule == "location-different-host")


def test_final_url_may_change_after_begin_file() -> None:
    checker = Checker()
    ctx = FileContext(node_id=1, url="https://example.com/sitemap.xml", kind=NodeKind.URLSET, now=NOW)
    checker.begin_file(ctx)
    ctx.final_url = "https://www.example.com/sitemap.xml"  # the explorer learns it from the response
    assert "location-different-host" not in rules(checker.check_entry(ctx, E("https://www.example.com/a")))


# -- per-file state ------------------------------------------------------------------------------


def test_duplicate_url_in_file() -> None:
    issues = run([E("https://example.com/a", line=3), E("https://EXAMPLE.com:443/a#x", line=9)])
    dup = [i for i in issues if i.rule == "duplicate-url-in-file"]
    assert len(dup) == 1 and dup[0].line == 9 and "line 3" in dup[0].message
    assert "duplicate-url-in-file" not in rules(run([E("https://example.com/a"), E("https://example.com/b")]))
    assert "duplicate-url-in-file" not in rules(run([E("https://example.com/a"), E("https://example.com/A")]))


def test_duplicates_are_per_file() -> None:
    checker = Checker()
    for _ in range(2):
        ctx = FileContext(node_id=1, url=SITEMAP, kind=NodeKind.URLSET, now=NOW)
        checker.begin_file(ctx)
        assert checker.check_entry(ctx, E("https://example.com/a")) == []


def test_reminders_are_reported_once_per_file_with_a_count() -> None:
    entries = [E(f"https://example.com/{i}", line=i + 2, changefreq_raw="daily", priority_raw="0.5") for i in range(5)]
    issues = run(entries)
    for rule in ("lastmod-missing", "changefreq-ignored", "priority-ignored"):
        found = [i for i in issues if i.rule == rule]
        assert len(found) == 1
        assert "5 of 5" in found[0].message
        assert found[0].line == 2 and found[0].url == "https://example.com/0"


def test_text_sitemaps_get_no_lastmod_reminder() -> None:
    assert "lastmod-missing" not in rules(run([E(PAGE)], kind=NodeKind.TEXT))


@pytest.mark.parametrize(
    ("rule", "hit", "miss"),
    [
        ("url-count-near-limit", FileStats(url_count=45_001), FileStats(url_count=45_000)),
        ("url-count-near-limit", FileStats(url_count=50_000), FileStats(url_count=50_001)),
        ("size-near-limit", FileStats(decoded_bytes=47_185_921), FileStats(decoded_bytes=47_185_920)),
        ("size-near-limit", FileStats(decoded_bytes=52_428_800), FileStats(decoded_bytes=52_428_801)),
    ],
)
def test_near_limits(rule: str, hit: FileStats, miss: FileStats) -> None:
    assert rule in rules(run([E(PAGE)], stats=hit))
    assert rule not in rules(run([E(PAGE)], stats=miss))


def test_urlset_empty() -> None:
    issues = [i for i in run([]) if i.rule == "urlset-empty"]
    assert len(issues) == 1 and issues[0].severity is Severity.WARNING
    news = ParseInfo(namespaces={"": "http://www.sitemaps.org/schemas/sitemap/0.9", "news": "http://www.google.com/schemas/sitemap-news/0.9"})
    issues = [i for i in run([], info=news) if i.rule == "urlset-empty"]
    assert len(issues) == 1 and issues[0].severity is Severity.INFO
    assert "urlset-empty" not in rules(run([E(PAGE)]))
    assert "urlset-empty" not in rules(run([], info=ParseInfo(stopped=True)))  # parse failed: unknown
    assert "urlset-empty" not in rules(run([], kind=NodeKind.INDEX))


# -- feeds ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "kind", "hit", "miss"),
    [
        ("feed-item-no-link", NodeKind.RSS, E(None, lastmod_raw="Tue, 10 Jun 2003 04:00:00 GMT"), E(PAGE, lastmod_raw="Tue, 10 Jun 2003 04:00:00 GMT")),
        ("feed-item-no-link", NodeKind.ATOM, E(""), E(PAGE)),
        ("feed-item-no-date", NodeKind.RSS, E(PAGE), E(PAGE, lastmod_raw="Tue, 10 Jun 2003 04:00:00 GMT")),
        ("feed-date-invalid", NodeKind.RSS, E(PAGE, lastmod_raw="2003-06-10"), E(PAGE, lastmod_raw="Tue, 10 Jun 2003 04:00:00 GMT")),
        ("feed-date-invalid", NodeKind.ATOM, E(PAGE, lastmod_raw="10 Jun 2003"), E(PAGE, lastmod_raw="2003-12-13T18:30:02Z")),
        ("feed-date-invalid", NodeKind.ATOM, E(PAGE, lastmod_raw="2003-12-13"), E(PAGE, lastmod_raw="2003-12-13T18:30:02.25+01:00")),
        ("feed-partial-coverage", NodeKind.RSS, E(PAGE), None),
    ],
)
def test_feed_rules(rule: str, kind: NodeKind, hit: Entry, miss: Entry | None) -> None:
    assert rule in rules(run([hit], kind=kind))
    if miss is not None:
        assert rule not in rules(run([miss], kind=kind))
    assert rule not in rules(run([E(PAGE, lastmod_raw="2024-05-01")], kind=NodeKind.URLSET))


def test_feed_items_skip_sitemap_only_rules() -> None:
    # feed children (title, guid ...) are not unknown sitemap elements; pubDate is not a lastmod
    e = E(PAGE, lastmod_raw="Tue, 10 Jun 2003 04:00:00 GMT", tags=["title", "link", "pubDate", "guid"])
    found = rules(run([e], kind=NodeKind.RSS))
    assert not {r for r in found if r.startswith(("core-", "lastmod-"))}


def test_feed_atom03() -> None:
    assert "feed-atom03" in rules(run([E(PAGE)], kind=NodeKind.ATOM, info=ParseInfo(format="atom0.3")))
    assert "feed-atom03" not in rules(run([E(PAGE)], kind=NodeKind.ATOM, info=ParseInfo(format="atom1.0")))


# -- through the real parser -------------------------------------------------------------------


def parse_and_check(xml: str, url: str = SITEMAP) -> list[Issue]:
    parser = SniffingParser(url)
    items = parser.feed(xml.encode()) + parser.close()
    checker = Checker()
    ctx = FileContext(node_id=1, url=url, kind=parser.kind or NodeKind.UNKNOWN, now=NOW)
    checker.begin_file(ctx)
    out = [i for i in judged(items) if isinstance(i, Issue)]
    for item in items:
        if isinstance(item, Entry):
            out += checker.check_entry(ctx, item)
        elif isinstance(item, ChildRef):
            out += checker.check_child(ctx, item)
    out += checker.end_file(ctx, parser.info, FileStats())
    return out


HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'


def test_parsed_core_rules() -> None:
    xml = HEAD + (
        "<url><lastmod>2024-05-01</lastmod><loc>https://example.com/a</loc></url>\n"
        "<url><loc>https://example.com/b</loc><expires>2025-01-01</expires></url>\n"
        "<url><loc>https://example.com/c</loc><loc>https://example.com/d</loc></url>\n"
        "<url><loc>https://example.com/e</loc><lastmod>2024</lastmod><priority>high</priority></url>\n"
        "<url><loc>https://example.com/a</loc></url>\n"
        "</urlset>\n"
    )
    issues = parse_and_check(xml)
    by_rule = {i.rule: i for i in issues}
    assert by_rule["core-element-order"].line == 3
    assert by_rule["core-unknown-element"].line == 4 and "expires" in by_rule["core-unknown-element"].message
    assert by_rule["core-element-repeated"].line == 5
    assert by_rule["lastmod-w3c-but-xsd-invalid"].line == 6
    assert by_rule["priority-invalid"].line == 6
    assert by_rule["duplicate-url-in-file"].line == 7


def test_parsed_clean_sitemap() -> None:
    xml = HEAD + (
        "<url><loc>https://example.com/a</loc><lastmod>2024-05-01</lastmod></url>\n"
        "<url><loc>https://example.com/b</loc><lastmod>2024-05-02T10:00:00+02:00</lastmod></url>\n"
        "</urlset>\n"
    )
    assert parse_and_check(xml) == []


def test_parsed_empty_news_urlset_is_info() -> None:
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
        ' xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">\n</urlset>\n'
    )
    found = [i for i in parse_and_check(xml) if i.rule == "urlset-empty"]
    assert len(found) == 1 and found[0].severity is Severity.INFO


def test_parsed_rss_feed() -> None:
    xml = (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>\n'
        "<item><title>a</title><link>https://example.com/a</link><pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate></item>\n"
        "<item><title>b</title></item>\n"
        "<item><link>https://example.com/c</link><pubDate>yesterday</pubDate></item>\n"
        "</channel></rss>"
    )
    found = rules(parse_and_check(xml))
    assert {"feed-item-no-link", "feed-item-no-date", "feed-date-invalid", "feed-partial-coverage"} <= found
    assert not {r for r in found if r.startswith(("core-", "lastmod-", "loc-missing"))}


def test_enabled_filters_rules() -> None:
    checker = Checker(enabled={"loc-has-fragment"})
    ctx = FileContext(node_id=1, url=SITEMAP, kind=NodeKind.URLSET, now=NOW)
    checker.begin_file(ctx)
    found = checker.check_entry(ctx, E("http://Example.com/a#b"))
    assert rules(found) == {"loc-has-fragment"}
    assert checker.end_file(ctx, ParseInfo(), FileStats()) == []
    with pytest.raises(KeyError):
        Checker(enabled={"no-such-rule"})


def test_issue_fields() -> None:
    issues = run([E("https://example.com/a#frag", line=12)])
    issue = next(i for i in issues if i.rule == "loc-has-fragment")
    assert issue.node_id == 7 and issue.line == 12 and issue.url == "https://example.com/a#frag"
    assert issue.severity is Severity.WARNING and "'#frag'" in issue.message


def test_now_is_injectable() -> None:
    raw = (NOW + timedelta(days=3)).strftime("%Y-%m-%d")
    assert "lastmod-future" in rules(run([lm(raw)]))

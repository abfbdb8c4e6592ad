"""Findings that point at the right place and say the right thing (issue 14): value rules on
the element's own line (where xsd-invalid points), a feed date without a zone, xhtml:link in
another namespace, and index-nested's message."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sitemap_tui.engine.model import ChildRef, Entry, FileStats, Issue, NodeKind
from sitemap_tui.engine.sniff import SniffingParser
from sitemap_tui.validate import rules as rules_mod
from sitemap_tui.validate.checker import Checker, FileContext
from sitemap_tui.validate.rules import make_issue

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
SITEMAP = "https://example.com/sitemap.xml"
DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'
SM = "http://www.sitemaps.org/schemas/sitemap/0.9"


@pytest.fixture(autouse=True)
def _strict_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules_mod, "STRICT_MESSAGES", True)


def parse_and_check(xml: str, xsd: str = "off", url: str = SITEMAP) -> list[Issue]:
    """Parser and checker as the engine runs them (the XSD hook in place when ``xsd``)."""
    checker = Checker(xsd_mode=xsd)
    ctx = FileContext(node_id=1, url=url, now=NOW)
    checker.begin_file(ctx)
    parser = SniffingParser(url, element_hook=checker.element_hook(ctx))
    items = parser.feed(xml.encode()) + parser.close()
    ctx.kind = parser.kind or NodeKind.UNKNOWN
    out = [i for i in items if isinstance(i, Issue)]
    for item in items:
        if isinstance(item, Entry):
            out += checker.check_entry(ctx, item)
        elif isinstance(item, ChildRef):
            out += checker.check_child(ctx, item)
    out += checker.end_file(ctx, parser.info, FileStats())
    return out


def lines_of(found: list[Issue], rule: str) -> list[int | None]:
    return [i.line for i in found if i.rule == rule]


# -- value rules point at the element ---------------------------------------------------------

PRETTY = (
    f'{DECL}<urlset xmlns="{SM}">\n'
    "  <url>\n"  # 3
    "    <loc>https://example.com/a</loc>\n"  # 4
    "    <lastmod>2024-13-45</lastmod>\n"  # 5
    "    <changefreq>sometimes</changefreq>\n"  # 6
    "    <priority>high</priority>\n"  # 7
    "  </url>\n"
    "  <url>\n"  # 9
    "    <loc>/relative</loc>\n"  # 10
    "    <lastmod>2999-01-01</lastmod>\n"  # 11
    "    <priority>1.5</priority>\n"  # 12
    "  </url>\n"
    "</urlset>\n"
)


def test_value_rules_point_at_the_element_line() -> None:
    found = parse_and_check(PRETTY)
    assert lines_of(found, "lastmod-invalid-format") == [5]
    assert lines_of(found, "changefreq-invalid") == [6]
    assert lines_of(found, "priority-invalid") == [7, 12]
    assert lines_of(found, "loc-not-absolute") == [10]
    assert lines_of(found, "lastmod-future") == [11]


def test_value_rules_and_xsd_invalid_agree_on_the_line() -> None:
    found = parse_and_check(PRETTY, xsd="strict")
    xsd_lines = set(lines_of(found, "xsd-invalid"))
    assert {5, 6, 7, 12} <= xsd_lines
    for rule in ("lastmod-invalid-format", "changefreq-invalid", "priority-invalid"):
        assert set(lines_of(found, rule)) <= xsd_lines, rule


def test_entry_rules_still_point_at_the_url() -> None:
    xml = (
        f'{DECL}<urlset xmlns="{SM}">\n'
        "  <url>\n"
        "    <lastmod>2024-01-01</lastmod>\n"
        "  </url>\n"
        "</urlset>\n"
    )
    assert lines_of(parse_and_check(xml), "loc-missing") == [3]


def test_fields_on_one_line_keep_that_line() -> None:
    xml = f'{DECL}<urlset xmlns="{SM}">\n<url><loc>https://example.com/a</loc><priority>2</priority></url>\n</urlset>\n'
    assert lines_of(parse_and_check(xml), "priority-invalid") == [3]


def test_entry_field_lines_from_the_parser() -> None:
    parser = SniffingParser(SITEMAP)
    items = parser.feed(PRETTY.encode()) + parser.close()
    first, second = [i for i in items if isinstance(i, Entry)]
    assert (first.line, first.loc_line, first.lastmod_line, first.changefreq_line, first.priority_line) == (3, 4, 5, 6, 7)
    assert (second.loc_line, second.lastmod_line, second.changefreq_line, second.priority_line) == (10, 11, None, 12)


# -- §5 an RSS pubDate without a time zone ------------------------------------------------------


def rss(*dates: str) -> str:
    items = "".join(
        f"<item><title>t{i}</title><link>https://example.com/{i}</link><pubDate>{d}</pubDate></item>\n"
        for i, d in enumerate(dates)
    )
    return f'{DECL}<rss version="2.0"><channel><title>x</title>\n{items}</channel></rss>\n'


def test_pubdate_without_zone_is_said() -> None:
    found = parse_and_check(rss("Tue, 10 Jun 2003 04:00:00"))
    (said,) = [i for i in found if i.rule == "feed-date-invalid"]
    assert "time zone" in said.message and "UTC" in said.message and said.line == 3


@pytest.mark.parametrize(
    "date",
    ["Tue, 10 Jun 2003 04:00:00 GMT", "Tue, 10 Jun 2003 04:00:00 +0200", "Tue, 10 Jun 2003 04:00:00 EST", "Tue, 10 Jun 2003 04:00:00 -0000"],
)
def test_pubdate_with_zone_is_fine(date: str) -> None:
    assert "feed-date-invalid" not in {i.rule for i in parse_and_check(rss(date))}


# -- §5 xhtml:link in another namespace -----------------------------------------------------


@pytest.mark.parametrize("xsd", ["off", "lax", "strict"])
def test_xhtml_link_in_another_namespace_is_hreflang_namespace_missing(xsd: str) -> None:
    xml = (
        f'{DECL}<urlset xmlns="{SM}" xmlns:xhtml="http://example.com/xhtml">\n'
        "<url><loc>https://example.com/</loc>\n"
        '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de"/>\n'
        "</url>\n</urlset>\n"
    )
    found = parse_and_check(xml, xsd=xsd)
    (said,) = [i for i in found if i.rule == "hreflang-namespace-missing"]
    assert said.severity == "error" and "http://example.com/xhtml" in said.message
    # one fault, one finding
    assert "ext-namespace-unknown" not in {i.rule for i in found}


def test_other_link_elements_in_unknown_namespaces_stay_unknown() -> None:
    xml = (
        f'{DECL}<urlset xmlns="{SM}" xmlns:acme="http://example.com/acme">\n'
        '<url><loc>https://example.com/</loc><acme:link href="x"/></url>\n</urlset>\n'
    )
    found = {i.rule for i in parse_and_check(xml)}
    assert "ext-namespace-unknown" in found and "hreflang-namespace-missing" not in found


# -- §4 index-nested says what happens ----------------------------------------------------------


def test_index_nested_message_is_true() -> None:
    issue = make_issue("index-nested", parent_url="https://example.com/index.xml")
    assert "not processed" not in issue.message
    assert "https://example.com/index.xml" in issue.message and "followed" in issue.message


def test_index_value_rules_point_at_the_element_line() -> None:
    xml = (
        f'{DECL}<sitemapindex xmlns="{SM}">\n'
        "  <sitemap>\n"  # 3
        "    <loc>/relative.xml</loc>\n"  # 4
        "    <lastmod>yesterday</lastmod>\n"  # 5
        "  </sitemap>\n"
        "</sitemapindex>\n"
    )
    found = parse_and_check(xml)
    assert lines_of(found, "index-loc-invalid") == [4]
    assert lines_of(found, "index-lastmod-invalid") == [5]

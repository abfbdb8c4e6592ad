"""Sitemap indexes: their <sitemap> entries and the files they list."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from sitemap_tui.engine.model import FileStats, Issue
from sitemap_tui.engine.values import parse_w3c_datetime
from sitemap_tui.validate.checkstate import (
    _SITEMAP_EXPECTED,
    INDEX_ORDER,
    FileContext,
    FileState,
    period_before,
)
from sitemap_tui.validate.rules import ERR, INFO, WARN, Fields, Rule, make_issue
from sitemap_tui.validate.rules.document import over_cap
from sitemap_tui.validate.rules.elements import OddLines, report_order
from sitemap_tui.validate.urlcheck import split_base


def _loc_as_text(f: Fields) -> str | None:
    text = f.get("text")
    if isinstance(text, str) and text:
        shown = text if len(text) <= 120 else text[:119] + "…"
        return f"<sitemap> has no <loc>, only text ({shown!r}): a URL is read from a <loc> alone"
    return None


def _wrong_child(f: Fields) -> str | None:
    if "parent" in f:
        return f"<{f['element']}> inside a <{f['parent']}> (ignored)"
    return None


RULES: tuple[Rule, ...] = (
    Rule(
        id="index-sitemap-loc-missing",
        scope="index",
        severity=ERR,
        title="<sitemap> without <loc>",
        message="<sitemap> has no <loc>, or it is empty",
        explanation=(
            "A `<sitemap>` has no `<loc>`, or its `<loc>` is empty. A URL written as the "
            "`<sitemap>`'s own text (`<sitemap>https://…</sitemap>`) is quoted in the message: "
            "the protocol reads only `<loc>`, and neither does sitemap-tui follow it."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html#index ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/large-sitemaps"
        ),
        decided_by=("checker",),
        word=_loc_as_text,
    ),
    Rule(
        id="index-loc-invalid",
        scope="index",
        severity=ERR,
        title="Invalid child sitemap URL",
        message="child sitemap URL {value!r} is invalid: {reason}",
        explanation=(
            "A `<sitemap><loc>` is not an absolute http(s) URL: relative, invalid, or 2,048+ "
            'characters. Google calls this "Invalid URL in sitemap index file: incomplete URL".'
        ),
        source=(
            "https://www.sitemaps.org/protocol.html#index ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
        decided_by=("checker",),
    ),
    Rule(
        id="index-too-many-sitemaps",
        scope="index",
        severity=ERR,
        title="More than 50,000 child sitemaps",
        message="more than 50,000 <sitemap> entries in one index",
        explanation="More than 50,000 `<sitemap>` entries.",
        source=(
            "https://www.sitemaps.org/protocol.html#index ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/large-sitemaps"
        ),
        decided_by=("parse",),
        word=over_cap("<sitemap> entries"),
    ),
    Rule(
        id="index-empty",
        scope="index",
        severity=WARN,
        title="Empty sitemap index",
        message="the sitemap index has no <sitemap> entries",
        explanation="A `sitemapindex` with no `<sitemap>`. The XSD requires at least one.",
        source="https://www.sitemaps.org/schemas/sitemap/0.9/siteindex.xsd",
        decided_by=("checker",),
    ),
    Rule(
        id="index-wrong-children",
        scope="index",
        severity=ERR,
        title="Element not allowed in a sitemap index",
        message="<{element}> is not allowed {where}",
        explanation=(
            "`<url>` appears in a `sitemapindex`, or a `<sitemap>` holds sitemaps.org elements "
            "other than `loc` and `lastmod` (for example `changefreq` or `priority`). The XSD "
            "rejects these."
        ),
        source=(
            "https://www.sitemaps.org/schemas/sitemap/0.9/siteindex.xsd ; "
            "https://www.sitemaps.org/protocol.html#index"
        ),
        decided_by=("parse", "checker"),
        word=_wrong_child,
    ),
    Rule(
        id="index-nested",
        scope="index",
        severity=ERR,
        title="Sitemap index inside a sitemap index",
        message=(
            "this file is a sitemap index, listed by the index {parent_url}: Google does not "
            "process nested indexes (sitemap-tui followed the link and read it)"
        ),
        explanation=(
            "A child listed in a `sitemapindex` is itself a `sitemapindex`. The protocol defines "
            "an index `<loc>` as pointing to a Sitemap, RSS/Atom feed or text file. Google reports "
            '"Incorrect sitemap index format: Nested sitemap indexes" and does not process it.'
        ),
        source=(
            "https://www.sitemaps.org/protocol.html#index ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
        decided_by=("checker",),
    ),
    Rule(
        id="index-child-different-host",
        scope="index",
        severity=ERR,
        title="Child sitemap on another host",
        message="the child sitemap is on {host!r}, the index on {index_host!r}{note}",
        explanation=(
            "A child sitemap is on a different host (or scheme) from the index, and there is no "
            "cross-site submission. An index may only list sitemaps on the same site."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html#index ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/large-sitemaps"
        ),
        decided_by=("checker", "index.check_child_location"),
    ),
    Rule(
        id="index-child-outside-path",
        scope="index",
        severity=ERR,
        title="Child sitemap outside the index's directory",
        message="the child sitemap is not under the index's directory {directory!r}",
        explanation=(
            "A child sitemap is not in the index's directory or below it. For example, an index at "
            "`/public/sitemap_index.xml` may only list `/public/…`."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/large-sitemaps",
        decided_by=("index.check_child_location",),
    ),
    Rule(
        id="index-child-unfetchable",
        scope="index",
        severity=ERR,
        title="Child sitemap cannot be fetched or parsed",
        message="child sitemap {url} cannot be used: {reason}",
        explanation=(
            "A listed child cannot be fetched or parsed (the fetch-*, gzip-* and xml-* rules say "
            "why on the child itself). It is reported on the index line that lists the child, so "
            "you can navigate there."
        ),
        source="https://support.google.com/webmasters/answer/7451001",
        decided_by=("checker",),
    ),
    Rule(
        id="index-child-duplicate",
        scope="index",
        severity=WARN,
        title="Child sitemap listed twice",
        message="the child sitemap is listed again (first at line {first_line})",
        explanation="The same child URL is listed twice in one index. This is a heuristic.",
        source="https://www.sitemaps.org/protocol.html#index",
        decided_by=("checker",),
    ),
    Rule(
        id="index-lastmod-invalid",
        scope="index",
        severity=ERR,
        title="Invalid child sitemap lastmod",
        message="<sitemap> lastmod {value!r} is not a W3C Datetime",
        explanation="A `<sitemap><lastmod>` fails the same checks as lastmod-invalid-format.",
        source="https://www.sitemaps.org/protocol.html#index",
        decided_by=("checker",),
    ),
    Rule(
        id="index-lastmod-stale",
        scope="index",
        severity=WARN,
        title="Stale child sitemap lastmod",
        message="the index's lastmod {value!r} for {url} is older than {reason}",
        explanation=(
            "The index's `<lastmod>` for a child is older than the newest `<lastmod>` inside that "
            "child, or older than the child's HTTP `Last-Modified`. The value should give the time "
            "that sitemap file changed, and engines use it to decide whether to fetch the child "
            "again."
        ),
        source="https://www.sitemaps.org/protocol.html#index",
        decided_by=("index.lastmod_stale",),
    ),
    Rule(
        id="index-lastmod-missing",
        sample=True,
        scope="index",
        severity=INFO,
        title="<sitemap> without lastmod",
        message="<sitemap> entries without <lastmod>: {count:,} of {total:,}",
        explanation=(
            "A `<sitemap>` entry has no `<lastmod>`. It is optional, but Google says it helps it "
            "schedule sitemap fetches."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/large-sitemaps",
        decided_by=("checker",),
    ),
    Rule(
        id="index-extension-elements",
        scope="index",
        severity=INFO,
        title="Extension element in a sitemap index",
        message="extension element <{element}> in a sitemap index means nothing there",
        explanation=(
            "Extension elements (image, video, news, xhtml) appear inside a `sitemapindex`. The "
            "current `siteindex.xsd` wildcard lets them through, but they mean nothing there."
        ),
        source="https://www.sitemaps.org/schemas/sitemap/0.9/siteindex.xsd",
        decided_by=("checker",),
    ),
    Rule(
        id="index-child-is-feed-or-text",
        scope="index",
        severity=INFO,
        title="Child sitemap is a feed or text file",
        message="child sitemap {url} is {format}",
        explanation=(
            "A child is an RSS/Atom feed or a text sitemap. This is allowed; the feed-* or text-* "
            "rules apply to it."
        ),
        source="https://www.sitemaps.org/protocol.html#index",
        decided_by=("checker",),
    ),
)


# -- checks (called by the streaming checker, validate/checker.py) --------------------


def check_child_order(
    nid: int | None, tags: list[str], line: int | None, url: str | None, out: list[Issue],
    at: OddLines | None = None,
) -> None:
    """core-element-order and core-element-repeated for a <sitemap>: the same sequence
    rules as a <url>'s (loc, lastmod, then extensions), with the same severities."""
    last = -1
    ext_seen = out_of_order = False
    seen: dict[str, int] = {}
    for tag in tags:
        rank = INDEX_ORDER.get(tag)
        if rank is None:
            ext_seen = ext_seen or tag[:1] == "{" or ":" in tag
            continue
        seen[tag] = seen.get(tag, 0) + 1
        if rank < last or ext_seen:
            out_of_order = True
        last = max(last, rank)
    report_order(nid, line, url, "sitemap", _SITEMAP_EXPECTED, tags, seen, out_of_order, out, at)


def check_child_location(ctx: FileContext,
    st: FileState,
    s: str,
    line: int | None,
    url: str | None,
    out: list[Issue],
) -> None:
    base = st.base
    if base is None:
        return
    p = split_base(s)
    if p is None:
        return
    if p.host != base.host or p.scheme != base.scheme:
        if (p.scheme, p.host, p.port) in st.robots_origins and p.host != base.host:
            return  # cross-submitted: the child's host names this index in its robots.txt
        host = p.host if p.host != base.host else f"{p.scheme}://{p.host}"
        index_host = base.host if p.host != base.host else f"{base.scheme}://{base.host}"
        out.append(
            make_issue(
                "index-child-different-host",
                node_id=ctx.node_id,
                line=line,
                url=url,
                host=host,
                index_host=index_host,
                note="",
            )
        )
    elif not (p.path or "/").startswith(st.base_dir):
        out.append(
            make_issue(
                "index-child-outside-path",
                node_id=ctx.node_id,
                line=line,
                url=url,
                directory=st.base_dir,
            )
        )


def lastmod_stale(ctx: FileContext, st: FileState, stats: FileStats | None) -> list[Issue]:
    """index-lastmod-stale: the index said this child changed before what the child itself shows
    (its newest lastmod, else its HTTP Last-Modified), checked once the child is read."""
    raw = (ctx.listed_lastmod_raw or "").strip()
    listed = parse_w3c_datetime(raw)
    if listed is None:
        return []
    def older(other: datetime) -> bool:
        return period_before(raw, listed, other)

    reason = None
    if st.lastmod_max is not None and older(st.lastmod_max):
        reason = f"the newest lastmod inside it ({st.lastmod_max.isoformat()})"
    elif stats is not None and stats.last_modified:
        try:
            lm = parsedate_to_datetime(stats.last_modified)
        except (TypeError, ValueError, IndexError, OverflowError):
            lm = None
        if lm is not None and lm.tzinfo is not None and older(lm.astimezone(UTC)):
            reason = f"its HTTP Last-Modified ({stats.last_modified})"
    if reason is None:
        return []
    return [
        make_issue(
            "index-lastmod-stale",
            node_id=ctx.parent_node_id if ctx.parent_node_id is not None else ctx.node_id,
            line=ctx.parent_line,
            url=ctx.url,
            value=raw,
            reason=reason,
        )
    ]

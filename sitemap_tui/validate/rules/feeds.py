"""Text sitemaps and RSS/Atom feeds used as sitemaps."""

from __future__ import annotations

from sitemap_tui.engine.model import Entry, Issue, NodeKind
from sitemap_tui.engine.values import (
    COLON_ZONE_RE,
    ZONE_COMMENT_RE,
    parse_any_feed_date,
    parse_rfc822_datetime,
)
from sitemap_tui.validate.checkstate import _RFC3339_RE, FileContext, FileState, tally
from sitemap_tui.validate.rules import ERR, INFO, WARN, Fields, Rule, make_issue


def _not_url(f: Fields) -> str | None:
    if "hidden" in f:
        return f"{f['hidden']} more line(s) that are not absolute http(s) URLs (not listed)"
    if "longer_than" in f:
        return f"line longer than {f['longer_than']:,} bytes (skipped)"
    value = str(f.get("value", ""))
    words = value.split()
    if len(words) > 1 and words[0].lower().startswith(("http://", "https://")):
        # the line starts with a URL: say what is wrong with it, not that it is no URL
        urls = sum(w.lower().startswith(("http://", "https://")) for w in words)
        if urls == len(words):
            return f"{urls} URLs on one line (one per line): {value}"
        if urls > 1:
            return f"URLs and other words on one line (one URL per line): {value}"
        return f"whitespace inside the URL (percent-encode it: a space is %20, a tab %09): {value}"
    return None


RULES: tuple[Rule, ...] = (
    Rule(
        id="text-line-not-url",
        scope="file",
        severity=ERR,
        title="Text sitemap line is not a URL",
        message="not an absolute http(s) URL: {value}",
        explanation=(
            "In a text sitemap, a non-empty line is not exactly one absolute URL. Examples: HTML, "
            "comments, header or footer text, two URLs on one line, or internal whitespace. The "
            "file should hold nothing but URLs, one per line."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html#otherformats ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap"
        ),
        decided_by=("parse",),
        word=_not_url,
    ),
    Rule(
        id="text-blank-lines",
        scope="file",
        severity=INFO,
        title="Blank lines in a text sitemap",
        message="{count} blank line(s) in the text sitemap",
        explanation=(
            "A text sitemap has blank lines. This is probably harmless, but the protocol asks for "
            "URLs only. The newline that ends the last line is no blank line, and is not reported."
        ),
        source="https://www.sitemaps.org/protocol.html#otherformats",
        decided_by=("parse",),
    ),
    Rule(
        id="feed-item-no-link",
        scope="file",
        severity=ERR,
        title="Feed item without a link",
        message="the feed item has no link, so its URL is lost",
        explanation=(
            "In a feed used as a sitemap, an RSS 2.0 `<item>` has no `<link>`, or an Atom "
            "`<entry>` has no `<link href>`. The protocol reads the URL from that field, so the "
            "entry is lost."
        ),
        source="https://www.sitemaps.org/protocol.html#otherformats",
        decided_by=("checker",),
    ),
    Rule(
        id="feed-item-no-date",
        sample=True,
        scope="file",
        severity=INFO,
        title="Feed items without a date",
        message="feed items without a date: {count:,} of {total:,}",
        explanation=(
            "A feed item has no modification date: RSS 2.0 `<pubDate>`, Atom 1.0 `<updated>` or "
            "Atom 0.3 `<modified>`. The date is optional."
        ),
        source="https://www.sitemaps.org/protocol.html#otherformats",
        decided_by=("checker", "feeds.check_feed_date"),
    ),
    Rule(
        id="feed-date-invalid",
        scope="file",
        severity=WARN,
        title="Invalid feed date",
        message="feed date {value!r} is not {expected}",
        explanation=(
            "An RSS `<pubDate>` is not an RFC 822 date, or an Atom `<updated>`/`<modified>` is not "
            "an RFC 3339 date-time."
        ),
        source=(
            "https://www.rssboard.org/rss-specification ; "
            "https://www.rfc-editor.org/rfc/rfc4287#section-3.3"
        ),
        decided_by=("feeds.check_feed_date",),
    ),
    Rule(
        id="feed-partial-coverage",
        scope="file",
        severity=INFO,
        title="Feed used as a sitemap",
        message="this sitemap is an {format} feed; feeds usually list only recent URLs",
        explanation=(
            "The sitemap is a feed. Feeds usually list only recent URLs, so they do not give "
            "engines the whole site."
        ),
        source="https://www.sitemaps.org/protocol.html#otherformats",
        decided_by=("checker",),
    ),
    Rule(
        id="feed-atom03",
        scope="file",
        severity=WARN,
        title="Atom 0.3 feed",
        message="Atom 0.3 feed; Google documents only RSS, mRSS and Atom 1.0",
        explanation=(
            "An Atom 0.3 feed (namespace `http://purl.org/atom/ns#`). sitemaps.org and Bing accept "
            "it, but Google's documentation lists RSS, mRSS and Atom 1.0 only."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html#otherformats ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap ; "
            "https://www.bing.com/webmasters/help/sitemaps-3b5cf6ed"
        ),
        decided_by=("checker",),
    ),
)


# -- checks (called by the streaming checker, validate/checker.py) --------------------


def check_feed_date(ctx: FileContext,
    st: FileState,
    entry: Entry,
    line: int | None,
    url: str | None,
    out: list[Issue],
) -> None:
    raw = entry.lastmod_raw
    if raw is None or not raw.strip():
        tally(st, "feed-item-no-date", "", line, url)
        return
    s = raw.strip()
    if ctx.kind is NodeKind.RSS:
        ok = parse_rfc822_datetime(s) is not None
        expected = "an RFC 822 date (e.g. Tue, 10 Jun 2003 04:00:00 GMT)"
        bare = ZONE_COMMENT_RE.sub("", s)
        zone = bare.rsplit(None, 1)[-1] if bare else ""
        if ok and COLON_ZONE_RE.search(bare):
            ok = False
            expected = f"an RFC 822 date: its zone {zone} has a colon (RFC 822 writes {zone.replace(':', '')}); read as that offset"
        elif ok and parse_rfc822_datetime(s, assume_utc=False) is None:
            # readable, but without a zone RFC 822 defines: say what was assumed (a name such as
            # CEST was said to be no zone at all)
            ok = False
            if len(zone) == 1 and zone.isalpha() and zone.isascii():
                # (RFC 822 defines them; found from outside: they were said not to be)
                expected = (f"a date with a usable zone: its one-letter military zone {zone!r} has the sign"
                            " RFC 822 got backwards (RFC 1123 §5.2.14: read it as -0000), so UTC was assumed")
            elif zone.isalpha() and zone.isascii():
                expected = (f"an RFC 822 date: its zone {zone!r} is not one RFC 822 defines (GMT, UT, the US zones,"
                            " or +hhmm), so UTC was assumed")
            else:
                expected = (
                    "an RFC 822 date: it has no time zone (RFC 822 requires one), so UTC was"
                    " assumed"
                )
    else:
        ok = _RFC3339_RE.fullmatch(s) is not None and parse_any_feed_date(s) is not None
        expected = "an RFC 3339 date-time (e.g. 2003-12-13T18:30:02Z)"
    if not ok:
        out.append(
            make_issue(
                "feed-date-invalid",
                node_id=ctx.node_id,
                line=line,
                url=url,
                value=raw,
                expected=expected,
            )
        )

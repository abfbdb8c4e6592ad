"""The news extension (<news:news>)."""

from __future__ import annotations

from typing import Any

from sitemap_tui.engine.model import Entry, Issue, News, Severity
from sitemap_tui.engine.values import parse_w3c_datetime
from sitemap_tui.validate.checkstate import (
    _NEWS_LANG_RE,
    _PAREN_TAIL_RE,
    FUTURE_MARGIN,
    NEWS_LEGACY,
    NEWS_MAX_AGE,
    FileContext,
    FileState,
    tally,
)
from sitemap_tui.validate.codes import ISO639_1
from sitemap_tui.validate.rules import ERR, INFO, WARN, Fields, Rule, make_issue


def _no_seconds(f: Fields) -> Severity | None:
    """A date without seconds: Google accepts it, only the news XSD rejects it."""
    return Severity.WARNING if f.get("no_seconds") else None


RULES: tuple[Rule, ...] = (
    Rule(
        id="news-too-many",
        scope="extension",
        severity=ERR,
        title="More than 1,000 news entries",
        message="{count:,} <news:news> elements in one sitemap (limit 1,000)",
        explanation=(
            'More than 1,000 `<news:news>` elements in one sitemap. Google: "Too many News URLs". '
            "Split the file and list the parts in a sitemap index."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
        decided_by=("checker",),
    ),
    Rule(
        id="news-multiple-per-url",
        scope="extension",
        severity=ERR,
        title="Several <news:news> in one <url>",
        message="{count} <news:news> elements in one <url>",
        explanation="More than one `<news:news>` in one `<url>`.",
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap",
        decided_by=("news.check_news",),
    ),
    Rule(
        id="news-required-missing",
        scope="extension",
        severity=ERR,
        title="Required news tag missing",
        message="<news:news> is missing {missing}",
        explanation=(
            "`<news:news>` is missing one of `news:publication`, `news:publication/news:name`, "
            "`news:publication/news:language`, `news:publication_date` or `news:title`. All five "
            'are required. Google: "Missing `<publication>` tag", and so on.'
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
        decided_by=("news.check_news",),
    ),
    Rule(
        id="news-article-too-old",
        scope="extension",
        severity=WARN,
        title="News article older than 2 days",
        message="news article published {value!r}, more than 2 days before the fetch",
        explanation=(
            "`news:publication_date` is more than 2 days (48 h) before the fetch time. Only "
            "articles created in the last two days belong in a news sitemap: remove older URLs or "
            "their `<news:news>` block."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap",
        decided_by=("news.check_news",),
    ),
    Rule(
        id="news-date-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid news publication date",
        message="news publication_date {value!r} {reason}",
        explanation=(
            "`news:publication_date` is not W3C Datetime; at least a complete date is needed. "
            "Google also allows `hh:mmTZD` with no seconds, which the news XSD rejects: that case "
            "is only a warning, in the same way as lastmod-w3c-but-xsd-invalid."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap ; "
            "https://www.w3.org/TR/NOTE-datetime"
        ),
        decided_by=("news.check_news",),
        grade=_no_seconds,
    ),
    Rule(
        id="news-date-future",
        scope="extension",
        severity=WARN,
        title="News publication date in the future",
        message="news publication_date {value!r} is in the future",
        explanation=(
            "`news:publication_date` is later than the fetch time plus 24 h. It must be the "
            "original publication time. This is a heuristic."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap",
        decided_by=("news.check_news",),
    ),
    Rule(
        id="news-language-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid news language",
        message="news language {value!r} is not a lower-case ISO 639 code (nor zh-cn or zh-tw)",
        explanation=(
            "`news:language` is not a 2- or 3-letter ISO 639 code in lower case, and not one of "
            "the two exceptions `zh-cn` and `zh-tw`. The XSD pattern is "
            "`zh-cn|zh-tw|([a-z]{2,3})`."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap ; "
            "https://www.google.com/schemas/sitemap-news/0.9/sitemap-news.xsd"
        ),
        decided_by=("news.check_news",),
    ),
    Rule(
        id="news-name-inconsistent",
        scope="extension",
        severity=WARN,
        title="Inconsistent news publication name",
        message="publication name {value!r} {reason}",
        explanation=(
            "`news:name` differs between entries of one sitemap, or has a trailing parenthetical "
            'such as "(subscription)". The name must match exactly how the publication appears on '
            "news.google.com, without anything in parentheses."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap",
        decided_by=("news.check_news",),
    ),
    Rule(
        id="news-legacy-tags",
        sample=True,
        scope="extension",
        severity=INFO,
        title="Legacy news tag",
        message="legacy <news:{tag}>; Google documents only the five required tags (occurrences: {count:,})",
        explanation=(
            "One of `news:access`, `news:genres`, `news:keywords` or `news:stock_tickers` is "
            "present. The legacy XSD still defines them, but the current Google news-sitemap "
            "reference documents only the five required tags."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap ; "
            "https://www.google.com/schemas/sitemap-news/0.9/sitemap-news.xsd"
        ),
        decided_by=("news.check_news",),
    ),
)


# -- checks (called by the streaming checker, validate/checker.py) --------------------


def _lacks(tag: str, written: str | None) -> str:
    """A required tag absent, or written but blank, said so as a video's: "missing" sent users
    looking for a tag that is there (found from outside)."""
    return f"<news:{tag}>" + (" (empty)" if written is not None else "")


def check_news(ctx: FileContext,
    st: FileState,
    entry: Entry,
    line: int | None,
    url: str | None,
    out: list[Issue],
) -> None:
    nid = ctx.node_id
    blocks = entry.news
    st.news += len(blocks)
    if len(blocks) > 1:
        out.append(
            make_issue(
                "news-multiple-per-url", node_id=nid, line=line, url=url, count=len(blocks)
            )
        )
    n: News
    for n in blocks:
        nline = n.line or line

        def add(rule: str, _nline: int | None = nline, **fields: Any) -> None:
            out.append(make_issue(rule, node_id=nid, line=_nline, url=url, **fields))

        name = n.publication_name.strip() if n.publication_name else ""
        lang = n.publication_language.strip() if n.publication_language else ""
        date = n.publication_date.strip() if n.publication_date else ""
        title = n.title.strip() if n.title else ""
        missing = []
        if n.publication_name is None and n.publication_language is None:
            missing.append("<news:publication>")
        else:
            if not name:
                missing.append(_lacks("name", n.publication_name))
            if not lang:
                missing.append(_lacks("language", n.publication_language))
        if not date:
            missing.append(_lacks("publication_date", n.publication_date))
        if not title:
            missing.append(_lacks("title", n.title))
        if missing:
            add("news-required-missing", missing=", ".join(missing))
        if date:
            dt = parse_w3c_datetime(date)
            if dt is None:
                add(
                    "news-date-invalid",
                    value=n.publication_date,
                    reason="is not a W3C Datetime",
                )
            elif len(date) < 10:
                add(
                    "news-date-invalid",
                    value=n.publication_date,
                    reason="needs at least a complete date (YYYY-MM-DD)",
                )
            else:
                if len(date) > 10 and date[16:17] != ":":
                    add(
                        "news-date-invalid",
                        no_seconds=True,  # the rule grades this lower
                        value=n.publication_date,
                        reason="has no seconds: Google accepts it but the news XSD rejects it",
                    )
                if dt > ctx.now + FUTURE_MARGIN:
                    add("news-date-future", value=date)
                elif dt < ctx.now - NEWS_MAX_AGE:
                    add("news-article-too-old", value=date)
        if lang and not (
            _NEWS_LANG_RE.fullmatch(lang) and (len(lang) != 2 or lang in ISO639_1)
        ):
            add("news-language-invalid", value=n.publication_language)
        if name:
            if st.news_name is None:
                st.news_name = name
            if name not in st.news_names_reported:
                if _PAREN_TAIL_RE.search(name):
                    st.news_names_reported.add(name)
                    add(
                        "news-name-inconsistent",
                        value=name,
                        reason="ends with a parenthetical; use the name exactly as on news.google.com",
                    )
                elif name != st.news_name:
                    st.news_names_reported.add(name)
                    add(
                        "news-name-inconsistent",
                        value=name,
                        reason=f"differs from {st.news_name!r} used earlier in this sitemap",
                    )
        for tag in NEWS_LEGACY:
            if tag in n.extra:
                tally(st, "news-legacy-tags", tag, nline, url, tag=tag)

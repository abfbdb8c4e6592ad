"""Extension rules (image, video, news, hreflang, namespaces): each with a trigger and a near miss."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from judging import judged

from sitemap_tui.engine.model import (
    Alternate,
    Entry,
    FileStats,
    Image,
    Issue,
    News,
    NodeKind,
    Severity,
    Video,
)
from sitemap_tui.engine.sniff import ParseInfo, SniffingParser
from sitemap_tui.validate import rules as rules_mod
from sitemap_tui.validate.checker import Checker, FileContext, expected_namespace, hreflang_problem

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
SITEMAP = "https://example.com/sitemap.xml"
PAGE = "https://example.com/page"


@pytest.fixture(autouse=True)
def _strict_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules_mod, "STRICT_MESSAGES", True)


def run(entries: list[Entry], *, info: ParseInfo | None = None) -> list[Issue]:
    checker = Checker()
    ctx = FileContext(node_id=3, url=SITEMAP, kind=NodeKind.URLSET, now=NOW)
    checker.begin_file(ctx)
    out: list[Issue] = []
    for e in entries:
        out += checker.check_entry(ctx, e)
    out += checker.end_file(ctx, info or ParseInfo(), FileStats())
    for issue in out:
        assert issue.rule in rules_mod.RULES
    return out


def rules(issues: list[Issue]) -> set[str]:
    return {i.rule for i in issues}


def E(**kw: object) -> Entry:
    return Entry(loc=kw.pop("loc", PAGE), line=kw.pop("line", 5), lastmod_raw="2024-05-01", **kw)  # type: ignore[arg-type]


# -- images --------------------------------------------------------------------------------------


def img(loc: str | None = "https://example.com/i.jpg", **kw: object) -> Image:
    return Image(loc=loc, line=6, **kw)  # type: ignore[arg-type]


IMAGE_CASES = [
    ("image-loc-missing", [E(images=[img(None)]), E(images=[img("")])], [E(images=[img()])]),
    ("image-too-many", [E(images=[img()] * 1001)], [E(images=[img()] * 1000)]),
    ("image-loc-invalid", [E(images=[img("/i.jpg")]), E(images=[img("ftp://example.com/i.jpg")]), E(images=[img("https://example.com/a b.jpg")]), E(images=[img("https://")])], [E(images=[img()]), E(images=[img("http://example.com/i.jpg?w=1")])]),
    ("image-loc-other-host", [E(images=[img("https://cdn.example.net/i.jpg")])], [E(images=[img()]), E(images=[img("/relative.jpg")])]),
    ("image-deprecated-tags", [E(images=[img(title="t", tags=["loc", "title"])]), E(images=[img(caption="c")]), E(images=[img(tags=["loc", "geo_location"])]), E(images=[img(tags=["loc", "license"])])], [E(images=[img(tags=["loc"])])]),
    ("image-element-order", [E(images=[img(tags=["title", "loc"])]), E(images=[img(tags=["loc", "license", "caption"])])], [E(images=[img(tags=["loc", "caption", "geo_location", "title", "license"])]), E(images=[img(tags=["loc", "{urn:x}extra", "caption"])])]),
]


# -- videos --------------------------------------------------------------------------------------

GOOD_VIDEO = {
    "thumbnail_loc": "https://example.com/t.jpg",
    "title": "A video",
    "description": "About it",
    "content_loc": "https://example.com/v.mp4",
}


def vid(drop: tuple[str, ...] = (), attrs: dict[str, str] | None = None, tags: list[str] | None = None, multi: dict[str, list[str]] | None = None, **fields: str) -> Video:
    f = {k: v for k, v in GOOD_VIDEO.items() if k not in drop}
    f.update(fields)
    return Video(fields=f, multi=multi or {k: [v] for k, v in f.items()}, attrs=attrs or {}, tags=tags or list(f), line=7)


def V(*videos: Video) -> Entry:
    return E(videos=list(videos))


VIDEO_CASES = [
    ("video-required-missing", [V(vid(drop=("title",))), V(vid(drop=("thumbnail_loc",))), V(vid(description=" "))], [V(vid())]),
    ("video-no-media-url", [V(vid(drop=("content_loc",)))], [V(vid()), V(vid(drop=("content_loc",), player_loc="https://example.com/player?id=1"))]),
    ("video-url-equals-page", [V(vid(content_loc=PAGE)), V(vid(player_loc="https://EXAMPLE.com/page"))], [V(vid(player_loc="https://example.com/player"))]),
    ("video-description-too-long", [V(vid(description="x" * 2049))], [V(vid(description="x" * 2048))]),
    ("video-title-too-long", [V(vid(title="x" * 101))], [V(vid(title="x" * 100))]),
    ("video-duration-range", [V(vid(duration="0")), V(vid(duration="28801")), V(vid(duration="1.5")), V(vid(duration="PT1M"))], [V(vid(duration="1")), V(vid(duration="28800")), V(vid(duration=" 600 "))]),
    ("video-rating-range", [V(vid(rating="5.1")), V(vid(rating="-1")), V(vid(rating="good"))], [V(vid(rating="0")), V(vid(rating="4.2")), V(vid(rating="5.0"))]),
    ("video-view-count-invalid", [V(vid(view_count="-1")), V(vid(view_count="1.5")), V(vid(view_count="many"))], [V(vid(view_count="0")), V(vid(view_count="12345"))]),
    ("video-date-invalid", [V(vid(publication_date="2024-05")), V(vid(publication_date="2024-05-01T10:00Z")), V(vid(expiration_date="2024-05-01T10:00:00")), V(vid(publication_date="2024-02-30"))], [V(vid(publication_date="2024-05-01")), V(vid(publication_date="2024-05-01T10:00:00+02:00"))]),
    ("video-expired", [V(vid(expiration_date="2025-05-31"))], [V(vid(expiration_date="2025-06-02")), V(vid(expiration_date="2025-06-01T13:00:00Z"))]),
    ("video-publication-future", [V(vid(publication_date="2025-06-03"))], [V(vid(publication_date="2025-06-02")), V(vid(publication_date="2020-01-01"))]),
    ("video-yes-no-invalid", [V(vid(family_friendly="true")), V(vid(requires_subscription="y")), V(vid(live="0"))], [V(vid(family_friendly="yes", live="no", requires_subscription="YES")), V(vid(family_friendly="No"))]),
    ("video-restriction-invalid", [V(vid(restriction="us ca", attrs={"restriction@relationship": "allow"})), V(vid(restriction="US", attrs={})), V(vid(restriction="US", attrs={"restriction@relationship": "permit"})), V(vid(restriction="US UK", attrs={"restriction@relationship": "deny"})), V(vid(restriction="US", attrs={"restriction@relationship": "allow"}, multi={"restriction": ["US", "CA"]}))], [V(vid(restriction="US CA", attrs={"restriction@relationship": "allow"})), V(vid(restriction="GB", attrs={"restriction@relationship": "deny"}))]),
    ("video-platform-invalid", [V(vid(platform="web desktop", attrs={"platform@relationship": "allow"})), V(vid(platform="web", attrs={})), V(vid(platform="WEB", attrs={"platform@relationship": "allow"})), V(vid(platform="web", attrs={"platform@relationship": "allow"}, multi={"platform": ["web", "tv"]}))], [V(vid(platform="web mobile tv", attrs={"platform@relationship": "allow"})), V(vid(platform="tv", attrs={"platform@relationship": "deny"}))]),
    ("video-tag-too-many", [V(vid(multi={"tag": ["t"] * 33}))], [V(vid(multi={"tag": ["t"] * 32}))]),
    ("video-uploader-invalid", [V(vid(uploader="x" * 256)), V(vid(uploader="Me", multi={"uploader": ["Me", "You"]})), V(vid(uploader="Me", attrs={"uploader@info": "https://other.example/me"}))], [V(vid(uploader="Me", attrs={"uploader@info": "https://www.example.com/users/me"})), V(vid(uploader="x" * 255))]),
    ("video-deprecated-tags", [V(vid(category="cooking")), V(vid(gallery_loc="https://example.com/g")), V(vid(price="1.99")), V(vid(tvshow="")), V(vid(player_loc="https://example.com/p", attrs={"player_loc@allow_embed": "yes"})), V(vid(player_loc="https://example.com/p", attrs={"player_loc@autoplay": "ap=1"}))], [V(vid(player_loc="https://example.com/p"))]),
    ("video-element-order", [V(vid(tags=["title", "thumbnail_loc", "description", "content_loc"]))], [V(vid(tags=["thumbnail_loc", "title", "description", "content_loc", "tag", "tag", "{urn:x}foo", "live"]))]),
    ("video-files-not-accessible", [V(vid(content_loc="rtmp://example.com/live/v")), V(vid(player_loc="rtsp://example.com/v"))], [V(vid())]),
]


# -- news ----------------------------------------------------------------------------------------


def news(**kw: str | None) -> News:
    base: dict[str, str | None] = {
        "publication_name": "The Example Times",
        "publication_language": "en",
        "publication_date": (NOW - timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "title": "Something happened",
    }
    extra = kw.pop("extra", None)
    base.update(kw)
    return News(line=8, extra={extra: "x"} if extra else {}, **base)  # type: ignore[arg-type]


def N(*blocks: News, loc: str = PAGE) -> Entry:
    return E(news=list(blocks), loc=loc)


NEWS_CASES = [
    ("news-multiple-per-url", [N(news(), news())], [N(news())]),
    ("news-required-missing", [N(news(title=None)), N(news(publication_name=None, publication_language=None)), N(news(publication_language="")), N(news(publication_date=None))], [N(news())]),
    ("news-article-too-old", [N(news(publication_date="2025-05-30T11:00:00Z"))], [N(news(publication_date="2025-05-30T13:00:00Z"))]),
    ("news-date-invalid", [N(news(publication_date="2025-06-01 10:00")), N(news(publication_date="2025-06")), N(news(publication_date="2025-06-01T10:00Z"))], [N(news(publication_date="2025-06-01")), N(news(publication_date="2025-06-01T10:00:00+02:00"))]),
    ("news-date-future", [N(news(publication_date="2025-06-03"))], [N(news(publication_date="2025-06-02T11:00:00Z"))]),
    ("news-language-invalid", [N(news(publication_language="en-US")), N(news(publication_language="EN")), N(news(publication_language="xx")), N(news(publication_language="english"))], [N(news(publication_language="zh-cn")), N(news(publication_language="fr")), N(news(publication_language="haw"))]),
    ("news-name-inconsistent", [N(news(publication_name="The Example Times (subscription)")), N(news(publication_name="Example Times (NY) "))], [N(news()), N(news(publication_name="The (New) Example Times"))]),
    ("news-legacy-tags", [N(news(extra="keywords")), N(news(extra="genres")), N(news(extra="access")), N(news(extra="stock_tickers"))], [N(news())]),
]


# -- hreflang ------------------------------------------------------------------------------------


def alt(code: str | None, href: str | None, rel: str | None = "alternate", media: str | None = None) -> Alternate:
    return Alternate(rel=rel, hreflang=code, href=href, line=9, media=media)


def H(*alts: Alternate, loc: str = PAGE) -> Entry:
    return E(alternates=list(alts), loc=loc)


SELF = alt("en", PAGE)
FR = alt("fr", "https://example.com/fr/page")
XD = alt("x-default", PAGE)
# Google's annotation of a separate mobile URL
MOBILE = alt(None, "https://m.example.com/page", media="only screen and (max-width: 640px)")
APP = alt(None, "android-app://com.example.android/example/page-1")

HREFLANG_CASES = [
    ("hreflang-link-incomplete", [H(SELF, alt("fr", None)), H(SELF, alt(None, "https://example.com/fr")), H(SELF, alt("fr", "https://example.com/fr", rel=None)), H(SELF, alt("fr", "https://example.com/fr", rel="canonical")), H(SELF, alt(None, "https://m.example.com/page", rel="canonical", media="x"))], [H(SELF, FR, XD), H(SELF, alt("fr", "https://example.com/fr", rel="Alternate")), H(MOBILE), H(SELF, FR, XD, MOBILE), H(SELF, FR, XD, APP), H(alt(None, "ios-app://123/example/page-1"))]),
    ("hreflang-href-not-absolute", [H(SELF, alt("fr", "/fr/page")), H(SELF, alt("fr", "//example.com/fr/page"))], [H(SELF, FR)]),
    ("hreflang-code-invalid", [H(SELF, alt(c, "https://example.com/x")) for c in ("en-UK", "es-LA", "en_US", "en-EU", "us", "gb", "english", "en-419", "zh-Hanx", "xx")], [H(SELF, alt(c, "https://example.com/x")) for c in ("en-GB", "EN-gb", "zh-Hant", "zh-Hant-TW", "x-default", "X-Default", "pt-BR", "de")]),
    ("hreflang-missing-self", [H(FR), H(alt("en", "https://example.com/en/page"), FR), H(FR, MOBILE)], [H(SELF, FR), H(alt("en", "https://EXAMPLE.com/page"), FR), E(), H(MOBILE)]),
    ("hreflang-duplicate-code", [H(SELF, FR, alt("FR", "https://example.com/fr2/page"))], [H(SELF, FR, alt("fr", "https://example.com/fr/page")), H(SELF, FR, alt("fr-CA", "https://example.com/ca/page")), H(SELF, FR, alt("fr", "https://EXAMPLE.com:443/fr/page"))]),
    ("hreflang-x-default-missing", [H(SELF, FR)], [H(SELF, FR, XD), E(), H(MOBILE)]),
    ("hreflang-no-generic-language", [H(alt("en-IE", PAGE), alt("en-CA", "https://example.com/ca"))], [H(alt("en-IE", PAGE), alt("en-CA", "https://example.com/ca"), alt("en", "https://example.com/en")), H(alt("en-IE", PAGE), alt("fr", "https://example.com/fr"))]),
]


# -- namespaces from Entry.tags ------------------------------------------------------------------


def T(*tags: str) -> Entry:
    return E(tags=["loc", "lastmod", *tags])


TAG_CASES = [
    ("ext-namespace-wrong", [T("{https://www.google.com/schemas/sitemap-image/1.1}image"), T("{http://www.sitemaps.org/schemas/sitemap-image/1.1}image"), T("{http://www.google.com/schemas/sitemap-video/1.0}video"), T("{http://www.google.com/schemas/sitemap-news/0.9/}news")], [T("image:image", "video:video", "news:news"), T("{http://www.google.com/schemas/sitemap-pagemap/1.0}PageMap")]),
    ("ext-namespace-unknown", [T("{http://www.google.com/schemas/sitemap-pagemap/1.0}PageMap"), T("{urn:vendor}thing")], [T("image:image"), T("{https://www.google.com/schemas/sitemap-image/1.1}image")]),
    ("mobile-extension-obsolete", [T("mobile:mobile"), T("{http://www.google.com/schemas/sitemap-mobile/1.0}mobile")], [T("image:image")]),
    ("hreflang-namespace-missing", [T("{}xhtml:link"), T("{http://www.w3.org/1999/xhtml/}link"), T("{https://www.w3.org/1999/xhtml}link")], [T("xhtml:link"), T("{}image:image")]),
]

ALL_CASES = IMAGE_CASES + VIDEO_CASES + NEWS_CASES + HREFLANG_CASES + TAG_CASES


@pytest.mark.parametrize(("rule", "hits", "misses"), ALL_CASES, ids=[c[0] for c in ALL_CASES])
def test_extension_rule_trigger_and_near_miss(rule: str, hits: list[Entry], misses: list[Entry]) -> None:
    for entry in hits:
        assert rule in rules(run([entry])), f"{rule} should fire for {entry}"
    for entry in misses:
        assert rule not in rules(run([entry])), f"{rule} should not fire for {entry}"


def test_clean_extension_entry() -> None:
    e = E(
        tags=["loc", "lastmod", "image:image", "video:video", "news:news", "xhtml:link", "xhtml:link", "xhtml:link"],
        images=[img(tags=["loc"])],
        videos=[vid()],
        news=[news()],
        alternates=[SELF, FR, XD],
    )
    assert run([e]) == []


def test_news_too_many() -> None:
    def many(n: int) -> list[Entry]:
        return [N(news(), loc=f"https://example.com/{i}") for i in range(n)]

    assert "news-too-many" in rules(run(many(1001)))
    assert "news-too-many" not in rules(run(many(1000)))


def test_news_name_inconsistent_across_entries() -> None:
    issues = run([N(news(), loc="https://example.com/a"), N(news(publication_name="Example Times"), loc="https://example.com/b"), N(news(publication_name="Example Times"), loc="https://example.com/c")])
    found = [i for i in issues if i.rule == "news-name-inconsistent"]
    assert len(found) == 1 and found[0].url == "https://example.com/b"  # once per differing name


def test_news_date_without_seconds_is_a_warning() -> None:
    found = [i for i in run([N(news(publication_date="2025-06-01T10:00Z"))]) if i.rule == "news-date-invalid"]
    assert len(found) == 1 and found[0].severity is Severity.WARNING
    found = [i for i in run([N(news(publication_date="June 1st"))]) if i.rule == "news-date-invalid"]
    assert len(found) == 1 and found[0].severity is Severity.ERROR


def test_reminders_are_counted_once_per_file() -> None:
    entries = [E(loc=f"https://example.com/{i}", images=[img("https://cdn.example.net/i.jpg", title="t", tags=["loc", "title"])]) for i in range(4)]
    issues = run(entries)
    assert [i.rule for i in issues].count("image-deprecated-tags") == 1
    assert [i.rule for i in issues].count("image-loc-other-host") == 1
    assert "occurrences: 4" in next(i.message for i in issues if i.rule == "image-deprecated-tags")


def test_hreflang_code_hints() -> None:
    assert "en-GB" in (hreflang_problem("en-UK") or "")
    assert "'-'" in (hreflang_problem("en_US") or "")
    assert "country code alone" in (hreflang_problem("us") or "")
    assert hreflang_problem("x-default") is None


def test_expected_namespace() -> None:
    assert expected_namespace("https://www.google.com/schemas/sitemap-image/1.1/") == "http://www.google.com/schemas/sitemap-image/1.1"
    assert expected_namespace("http://www.google.com/schemas/sitemap-video/1.0") == "http://www.google.com/schemas/sitemap-video/1.1"
    assert expected_namespace("urn:vendor") is None


# -- through the real parser -------------------------------------------------------------------


def parse_and_check(xml: str) -> list[Issue]:
    parser = SniffingParser(SITEMAP)
    items = parser.feed(xml.encode()) + parser.close()
    checker = Checker()
    ctx = FileContext(node_id=1, url=SITEMAP, kind=parser.kind or NodeKind.UNKNOWN, now=NOW)
    checker.begin_file(ctx)
    out = [i for i in judged(items) if isinstance(i, Issue)]
    for item in items:
        if isinstance(item, Entry):
            out += checker.check_entry(ctx, item)
    out += checker.end_file(ctx, parser.info, FileStats())
    return out


def test_parsed_extensions() -> None:
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"\n'
        ' xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"\n'
        ' xmlns:video="http://www.google.com/schemas/sitemap-video/1.0"\n'
        ' xmlns:xhtml="http://www.w3.org/1999/xhtml/"\n'
        ' xmlns:mobile="http://www.google.com/schemas/sitemap-mobile/1.0"\n'
        ' xmlns:pm="http://www.google.com/schemas/sitemap-pagemap/1.0">\n'
        "<url><loc>https://example.com/a</loc><lastmod>2024-05-01</lastmod>\n"
        "  <image:image><image:title>t</image:title><image:loc>https://example.com/i.jpg</image:loc></image:image>\n"
        "  <video:video><video:title>v</video:title></video:video>\n"
        '  <xhtml:link rel="alternate" hreflang="fr" href="https://example.com/fr/a"/>\n'
        "  <mobile:mobile/>\n"
        "  <pm:PageMap/>\n"
        "</url>\n</urlset>\n"
    )
    found = rules(parse_and_check(xml))
    assert {"image-deprecated-tags", "image-element-order", "ext-namespace-wrong", "hreflang-namespace-missing", "mobile-extension-obsolete", "ext-namespace-unknown"} <= found
    assert "video-required-missing" not in found  # the video namespace is wrong: not read as a video


def test_parsed_undeclared_xhtml_prefix() -> None:
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        '<url><loc>https://example.com/a</loc><lastmod>2024-05-01</lastmod><xhtml:link rel="alternate" hreflang="fr" href="https://example.com/fr"/></url>\n'
        "</urlset>\n"
    )
    found = rules(parse_and_check(xml))
    assert "hreflang-namespace-missing" in found
    assert "core-unknown-element" not in found


def test_parsed_video_and_news() -> None:
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
        ' xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"'
        ' xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">\n'
        "<url><loc>https://example.com/a</loc><lastmod>2024-05-01</lastmod>\n"
        "<video:video><video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc><video:title>t</video:title>"
        "<video:description>d</video:description><video:player_loc>https://example.com/a</video:player_loc>"
        '<video:restriction relationship="allow">us</video:restriction><video:duration>0</video:duration></video:video>\n'
        "<news:news><news:publication><news:name>X</news:name><news:language>en-US</news:language></news:publication>"
        "<news:publication_date>2025-06-01T10:00:00Z</news:publication_date></news:news>\n"
        "</url>\n</urlset>\n"
    )
    found = rules(parse_and_check(xml))
    assert {"video-url-equals-page", "video-restriction-invalid", "video-element-order", "video-duration-range", "news-language-invalid", "news-required-missing"} <= found


def test_video_uploader_messages_name_each_domain_as_what_it_is() -> None:
    """Found from outside: the page on example.com, the info URL on other.example, and the
    message called 'other.example' the page's domain; a relative info URL was called one too."""
    def reason(info: str) -> str:
        (issue,) = [i for i in run([V(vid(uploader="Me", attrs={"uploader@info": info}))])
                    if i.rule == "video-uploader-invalid"]
        return issue.message

    assert "the info URL is on 'other.example', not on the page's domain 'example.com'" in reason(
        "https://other.example/me")
    assert "the info URL '/users/me' is not an absolute URL" in reason("/users/me")


def test_a_blank_required_video_tag_is_said_empty_not_missing() -> None:
    """Found from outside: a <video:description> written with only a space was "missing"."""
    (blank,) = [i for i in run([V(vid(description=" "))]) if i.rule == "video-required-missing"]
    assert blank.message.endswith("is missing <video:description> (empty)")
    (gone,) = [i for i in run([V(vid(drop=("title",)))]) if i.rule == "video-required-missing"]
    assert gone.message.endswith("is missing <video:title>")

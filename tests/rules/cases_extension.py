"""Extension scope: image, video, news and hreflang (xhtml:link) elements inside a <url>, and
extension namespaces. Each <url> is on one line (line 3), its extension elements with it."""

from __future__ import annotations

from .cases import Case, Fixture, case, one, urlset

# -- images --------------------------------------------------------------------------------------

IMG = "<image:image><image:loc>http://a.test/img/a.jpg</image:loc></image:image>"


def images(inner: str, *, line: int | None = None, ext: str = "image") -> Fixture:
    """A gallery page with the <image:image> elements ``inner``."""
    return one(urlset(f"<url><loc>http://a.test/gallery</loc>{inner}</url>", ext=ext), line=line)


def with_ns(fx: Fixture, decl: str) -> Fixture:
    """``fx`` with a namespace declaration added to its <urlset>."""
    name, text = next(iter(fx.files.items()))
    assert isinstance(text, str)
    return Fixture({name: text.replace("<urlset ", f"<urlset {decl} ")}, target=fx.target, line=fx.line)


# -- videos --------------------------------------------------------------------------------------

PAGE = "http://a.test/watch/intro"
Value = str | tuple[str, str] | list[str] | None  # text, (attributes, text), repeated, dropped

# a complete, valid video with its elements in schema order
VIDEO: dict[str, Value] = {
    "thumbnail_loc": "http://a.test/thumbs/intro.jpg",
    "title": "Intro",
    "description": "A short introduction",
    "content_loc": "http://a.test/media/intro.mp4",
    "player_loc": None,
    "duration": "120",
    "expiration_date": None,
    "rating": None,
    "view_count": None,
    "publication_date": "2024-05-01T10:00:00+00:00",
    "tag": None,
    "category": None,
    "family_friendly": "yes",
    "restriction": None,
    "requires_subscription": None,
    "uploader": None,
    "platform": None,
    "live": None,
}


def _element(name: str, value: Value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return "".join(_element(name, v) for v in value)
    attrs, text = value if isinstance(value, tuple) else ("", value)
    return f"<video:{name}{' ' + attrs if attrs else ''}>{text}</video:{name}>"


def video(*, line: int | None = None, order: tuple[str, ...] | None = None, **values: Value) -> Fixture:
    """A one-video page: the valid video with ``values`` replacing its fields (in ``order``
    when given, else schema order)."""
    unknown = values.keys() - VIDEO.keys()
    assert not unknown, f"not video fields: {unknown}"
    fields = {**VIDEO, **values}
    names = order or tuple(fields)
    body = "".join(_element(n, fields[n]) for n in names)
    return one(urlset(f"<url><loc>{PAGE}</loc><video:video>{body}</video:video></url>", ext="video"), line=line)


# -- news ----------------------------------------------------------------------------------------


def article(*, name: str = "The Daily", lang: str = "en", date: str = "@NOW-3H@", title: str | None = "Headline", extra: str = "") -> str:
    """One <news:news> block (a fresh, valid article unless told otherwise)."""
    t = f"<news:title>{title}</news:title>" if title is not None else ""
    return (
        f"<news:news><news:publication><news:name>{name}</news:name><news:language>{lang}</news:language>"
        f"</news:publication><news:publication_date>{date}</news:publication_date>{t}{extra}</news:news>"
    )


def news(*blocks: str, line: int | None = None, urls: int = 1) -> Fixture:
    """A news sitemap of ``urls`` articles, each <url> with ``blocks``."""
    entries = [f"<url><loc>http://a.test/news/{i}</loc>{''.join(blocks)}</url>" for i in range(urls)]
    return one(urlset(*entries, ext="news"), line=line)


# -- hreflang ------------------------------------------------------------------------------------

EN, DE, GB, US = ("en", "http://a.test/en/"), ("de", "http://a.test/de/"), ("en-GB", "http://a.test/uk/"), ("en-US", "http://a.test/us/")
XDEF = ("x-default", "http://a.test/")


def hreflang(*links: tuple[str, str] | str, loc: str = "http://a.test/en/", line: int | None = None, ext: str = "xhtml") -> Fixture:
    """The page ``loc`` with <xhtml:link> alternates: (hreflang, href) pairs or raw elements."""
    body = "".join(
        link if isinstance(link, str) else f'<xhtml:link rel="alternate" hreflang="{link[0]}" href="{link[1]}"/>'
        for link in links
    )
    return one(urlset(f"<url><loc>{loc}</loc>{body}</url>", ext=ext), line=line)


CASES: list[Case] = [
    case("ext-prefix-undeclared", images(IMG, ext="", line=3), images(IMG)),
    case(
        "ext-namespace-wrong",
        with_ns(images(IMG, ext="", line=3), 'xmlns:image="https://www.google.com/schemas/sitemap-image/1.1"'),
        images(IMG),
    ),
    case(
        "ext-namespace-unknown",
        with_ns(
            one(urlset('<url><loc>http://a.test/</loc><pagemap:PageMap><pagemap:DataObject type="doc"/></pagemap:PageMap></url>'), line=3),
            'xmlns:pagemap="http://www.google.com/schemas/sitemap-pagemap/1.0"',
        ),
        images(IMG),  # a known extension namespace
    ),
    case(
        "mobile-extension-obsolete",
        with_ns(one(urlset("<url><loc>http://a.test/m/</loc><mobile:mobile/></url>"), line=3), 'xmlns:mobile="http://www.google.com/schemas/sitemap-mobile/1.0"'),
        # today's way: the desktop URL names its separate mobile URL
        hreflang('<xhtml:link rel="alternate" media="only screen and (max-width: 640px)" href="http://a.test/m/"/>', loc="http://a.test/"),
    ),
    case(
        "ext-unknown-element",
        # a typo in a known extension's namespace: the lax XSD skips it, the images are lost
        images("<image:images><image:loc>http://a.test/img/a.jpg</image:loc></image:images>", line=3),
        images(IMG),
    ),
    case("image-loc-missing", images("<image:image><image:loc></image:loc></image:image>", line=3), images(IMG)),
    case("image-too-many", images(IMG * 1001, line=3), images(IMG * 1000)),
    case("image-loc-invalid", images("<image:image><image:loc>/img/a.jpg</image:loc></image:image>", line=3), images(IMG)),
    case(
        "image-loc-other-host",
        images("<image:image><image:loc>http://cdn.example/img/a.jpg</image:loc></image:image>", line=3),
        images(IMG),
    ),
    case(
        "image-deprecated-tags",
        images("<image:image><image:loc>http://a.test/img/a.jpg</image:loc><image:caption>A cat</image:caption></image:image>", line=3),
        images(IMG),
    ),
    case(
        "image-element-order",
        images("<image:image><image:caption>A cat</image:caption><image:loc>http://a.test/img/a.jpg</image:loc></image:image>", line=3),
        images("<image:image><image:loc>http://a.test/img/a.jpg</image:loc><image:caption>A cat</image:caption></image:image>"),
    ),
    case("video-required-missing", video(title=None, line=3), video()),
    case("video-no-media-url", video(content_loc=None, line=3), video(content_loc=None, player_loc="http://a.test/player?v=intro")),
    case("video-url-equals-page", video(content_loc=PAGE, line=3), video(content_loc=PAGE + ".mp4")),
    case("video-description-too-long", video(description="d" * 2049, line=3), video(description="d" * 2048)),
    case("video-title-too-long", video(title="t" * 101, line=3), video(title="t" * 100)),
    case("video-duration-range", video(duration="0", line=3), video(duration="1")),
    case("video-rating-range", video(rating="5.1", line=3), video(rating="5.0")),
    case("video-view-count-invalid", video(view_count="1,234", line=3), video(view_count="1234")),
    case("video-date-invalid", video(publication_date="2024-05-01T10:00", line=3), video(publication_date="2024-05-01T10:00:00+00:00")),
    case("video-expired", video(expiration_date="2020-01-01", line=3), video(expiration_date="@NOW+30D@")),
    case("video-publication-future", video(publication_date="@NOW+3D@", line=3), video(publication_date="@NOW-1D@")),
    case("video-yes-no-invalid", video(family_friendly="true", line=3), video(family_friendly="Yes")),
    case(
        "video-restriction-invalid",
        video(restriction=('relationship="allow"', "us ca"), line=3),
        video(restriction=('relationship="allow"', "US CA")),
    ),
    case(
        "video-platform-invalid",
        video(platform=('relationship="allow"', "web desktop"), line=3),
        video(platform=('relationship="allow"', "web mobile")),
    ),
    case("video-tag-too-many", video(tag=[f"tag{i}" for i in range(33)], line=3), video(tag=[f"tag{i}" for i in range(32)])),
    case(
        "video-uploader-invalid",
        video(uploader=('info="http://other.example/users/grace"', "Grace"), line=3),
        video(uploader=('info="http://a.test/users/grace"', "Grace")),
    ),
    case("video-deprecated-tags", video(category="Cooking", line=3), video(tag="cooking")),
    case(
        "video-element-order",
        video(order=("title", "thumbnail_loc", "description", "content_loc"), line=3),
        video(order=("thumbnail_loc", "title", "description", "content_loc")),
    ),
    case("news-too-many", news(article(), urls=1001), news(article(), urls=1000)),
    case("news-multiple-per-url", news(article(), article(title="Update"), line=3), news(article(extra=""), line=3)),
    case("news-required-missing", news(article(title=None), line=3), news(article())),
    case("news-article-too-old", news(article(date="@NOW-3D@"), line=3), news(article(date="@NOW-3H@"))),
    case("news-date-invalid", news(article(date="05/01/2024 10:00"), line=3), news(article(date="@NOW-1H@"))),
    # the margin is 24 hours (time zones)
    case("news-date-future", news(article(date="@NOW+3D@"), line=3), news(article(date="@NOW+1H@"))),
    case("news-language-invalid", news(article(lang="en-US"), line=3), news(article(lang="zh-cn"))),
    case("news-name-inconsistent", news(article(name="The Daily (subscription)"), line=3), news(article(name="The Daily"))),
    case("news-legacy-tags", news(article(extra="<news:keywords>budget, tax</news:keywords>"), line=3), news(article())),
    case(
        "hreflang-namespace-missing",
        hreflang(EN, DE, XDEF, ext="", line=3),  # xmlns:xhtml not declared
        hreflang(EN, DE, XDEF),
    ),
    case(
        "hreflang-namespace-missing",
        # declared, but with another URI (an XHTML 2 draft's)
        with_ns(hreflang(EN, DE, XDEF, ext="", line=3), 'xmlns:xhtml="http://www.w3.org/2002/06/xhtml2/"'),
        None,
    ),
    case(
        "hreflang-link-incomplete",
        hreflang(EN, '<xhtml:link rel="alternate" href="http://a.test/de/"/>', line=3),
        hreflang(EN, DE),
    ),
    case("hreflang-href-not-absolute", hreflang(EN, ("de", "/de/"), line=3), hreflang(EN, DE)),
    case("hreflang-code-invalid", hreflang(EN, ("en-UK", "http://a.test/uk/"), line=3), hreflang(EN, GB)),
    case("hreflang-missing-self", hreflang(DE, XDEF, line=3), hreflang(EN, DE, XDEF)),
    case("hreflang-duplicate-code", hreflang(EN, ("en", "http://a.test/uk/"), line=3), hreflang(EN, GB)),
    case("hreflang-x-default-missing", hreflang(EN, DE, line=3), hreflang(EN, DE, XDEF)),
    case(
        "hreflang-no-generic-language",
        hreflang(GB, US, loc="http://a.test/uk/", line=3),
        hreflang(GB, US, ("en", "http://a.test/en/"), loc="http://a.test/uk/"),
    ),
]

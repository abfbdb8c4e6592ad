"""Cross-file scope: the whole set (an index and its sitemaps), duplicates, host variants,
hreflang return links and the set-wide lastmod and priority signals."""

from __future__ import annotations

from .cases import Case, Fixture, case, index, site, urlset


def two(a: list[str], b: list[str], *, where: str | None = None, line: int | None = None) -> Fixture:
    """``index.xml`` listing ``a.xml`` and ``b.xml`` with these <url> lines."""
    return site(
        {
            "index.xml": index(*(f"<sitemap><loc>http://a.test/{n}.xml</loc></sitemap>" for n in "ab")),
            "a.xml": urlset(*a),
            "b.xml": urlset(*b),
        },
        target="index.xml",
        where=where,
        line=line,
    )


def u(loc: str, extra: str = "") -> str:
    return f"<url><loc>{loc}</loc>{extra}</url>"


def lm(loc: str, day: str) -> str:
    return u(loc, f"<lastmod>{day}</lastmod>")


def alt(loc: str, *links: tuple[str, str]) -> str:
    body = "".join(f'<xhtml:link xmlns:xhtml="http://www.w3.org/1999/xhtml" rel="alternate" hreflang="{c}" href="{h}"/>' for c, h in links)
    return u(loc, body)


EN, DE, FR = ("en", "http://a.test/en/"), ("de", "http://a.test/de/"), ("fr", "http://a.test/fr/")

CASES: list[Case] = [
    case(
        "cross-duplicate-url",
        two([u("http://a.test/shoes")], [u("http://a.test/shoes")], where="b.xml", line=3),
        two([u("http://a.test/shoes")], [u("http://a.test/shoes?page=2")]),
    ),
    case(
        "cross-duplicate-conflicting",
        two([lm("http://a.test/shoes", "2024-05-01")], [lm("http://a.test/shoes", "2024-06-01")], where="b.xml", line=3),
        two([lm("http://a.test/shoes", "2024-05-01")], [lm("http://a.test/shoes", "2024-05-01")]),
    ),
    case(
        "cross-mixed-scheme",
        two([u("http://a.test/a"), u("http://a.test/b")], [u("https://a.test/c")], where="b.xml", line=3),
        two([u("http://a.test/a"), u("http://a.test/b")], [u("http://a.test/c")]),
    ),
    case(
        "cross-mixed-www",
        two([u("http://shop.example/a"), u("http://shop.example/b")], [u("http://www.shop.example/c")], where="b.xml", line=3),
        two([u("http://www.shop.example/a"), u("http://www.shop.example/b")], [u("http://www.shop.example/c")]),
    ),
    case(
        "cross-trailing-slash-variants",
        two([u("http://a.test/shoes")], [u("http://a.test/shoes/")], where="b.xml", line=3),
        two([u("http://a.test/shoes")], [u("http://a.test/boots/")]),
    ),
    case(
        "cross-mobile-and-desktop",
        two([u("http://shop.example/a"), u("http://shop.example/b")], [u("http://m.shop.example/a")], where="b.xml", line=3),
        two([u("http://shop.example/a"), u("http://shop.example/b")], [u("http://media.shop.example/a.mp4")]),
    ),
    case(
        "hreflang-no-return-link",
        two([alt(EN[1], EN, DE)], [alt(DE[1], DE)], where="a.xml", line=3),
        two([alt(EN[1], EN, DE)], [alt(DE[1], EN, DE)]),
    ),
    case(
        "hreflang-cluster-inconsistent",
        two([alt(EN[1], EN, DE, FR), alt(FR[1], EN, DE, FR)], [alt(DE[1], EN, DE)], where="b.xml", line=3),
        two([alt(EN[1], EN, DE, FR), alt(FR[1], EN, DE, FR)], [alt(DE[1], EN, DE, FR)]),
    ),
    case(
        "hreflang-cluster-inconsistent",
        # de names fr in another language than the others do
        two([alt(EN[1], EN, DE, FR), alt(FR[1], EN, DE, FR)], [alt(DE[1], EN, DE, ("es", FR[1]))], where="b.xml", line=3),
        # de lacks only its own link: hreflang-missing-self says it, once (found from outside:
        # three findings for it)
        two([alt(EN[1], EN, DE, FR), alt(FR[1], EN, DE, FR)], [alt(DE[1], EN, FR)]),
    ),
    case(
        "hreflang-target-not-in-sitemaps",
        two([alt(EN[1], EN, DE)], [u("http://a.test/about")], where="a.xml", line=3),
        two([alt(EN[1], EN, DE)], [alt(DE[1], EN, DE)]),
    ),
    case(
        "lastmod-all-identical",
        # every lastmod is the same day: the generation time, not real dates
        two([lm(f"http://a.test/p{i}", "2024-05-01") for i in range(12)], [lm(f"http://a.test/q{i}", "2024-05-01") for i in range(12)]),
        # 22 of 24 on one day is under 95 %
        two([lm(f"http://a.test/p{i}", "2024-05-01") for i in range(12)], [lm(f"http://a.test/q{i}", "2024-05-01" if i > 1 else f"2024-04-1{i}") for i in range(12)]),
    ),
    case(
        "priority-all-equal",
        two([u(f"http://a.test/p{i}", "<priority>1.0</priority>") for i in range(3)], [u(f"http://a.test/q{i}", "<priority>1.0</priority>") for i in range(3)]),
        two([u(f"http://a.test/p{i}", "<priority>1.0</priority>") for i in range(3)], [u(f"http://a.test/q{i}", f"<priority>{'0.5' if i else '1.0'}</priority>") for i in range(3)]),
    ),
]

"""URL scope: one <url> entry (its loc, location against the sitemap, lastmod, changefreq,
priority and core elements). Each entry is one line, so the line is the entry's line."""

from __future__ import annotations

from .cases import Case, case, one, site, urlset

LOC = "<url><loc>{}</loc></url>"


def loc(url: str, *, line: int | None = None) -> object:
    """A local sitemap with one <url> whose <loc> is ``url`` (line 3)."""
    return one(urlset(LOC.format(url)), line=line)


def served(url: str, *, at: str = "sitemap.xml", line: int | None = None) -> object:
    """The same, served over HTTP at ``http://a.test/<at>`` (location rules need the URL)."""
    return site({at: urlset(LOC.format(url))}, target=at, line=line)


def lastmod(value: str, *, line: int | None = None) -> object:
    return one(urlset(f"<url><loc>http://a.test/page</loc><lastmod>{value}</lastmod></url>"), line=line)


LONG_PATH = "http://a.test/" + "p" * (2048 - len("http://a.test/"))

CASES: list[Case] = [
    case(
        "core-unknown-element",
        one(urlset("<url><loc>http://a.test/</loc><expires>2025-01-01</expires></url>"), line=3),
        one(urlset("<url><loc>http://a.test/</loc><lastmod>2025-01-01</lastmod></url>")),
    ),
    case(
        "core-element-order",
        one(urlset("<url><lastmod>2024-05-01</lastmod><loc>http://a.test/</loc></url>"), line=3),
        one(urlset("<url><loc>http://a.test/</loc><lastmod>2024-05-01</lastmod></url>")),
    ),
    case(
        "core-element-repeated",
        one(urlset("<url><loc>http://a.test/</loc><lastmod>2024-05-01</lastmod><lastmod>2024-06-01</lastmod></url>"), line=3),
        one(urlset("<url><loc>http://a.test/</loc><lastmod>2024-06-01</lastmod></url>")),
    ),
    case(
        "loc-missing",
        one(urlset("<url><lastmod>2024-05-01</lastmod></url>"), line=3),
        one(urlset("<url><loc></loc><lastmod>2024-05-01</lastmod></url>")),  # empty, not missing
    ),
    case("loc-empty", loc("", line=3), loc("http://a.test/")),
    case("loc-not-absolute", loc("/products/shoes", line=3), loc("http://a.test/products/shoes")),
    case("loc-bad-scheme", loc("ftp://a.test/catalogue.pdf", line=3), loc("https://a.test/catalogue.pdf")),
    case("loc-too-long", loc(LONG_PATH, line=3), loc(LONG_PATH[:-1])),
    case("loc-invalid-uri", loc("http://a.test/red shoes", line=3), loc("http://a.test/red%20shoes")),
    case("loc-bad-percent-encoding", loc("http://a.test/100%-cotton", line=3), loc("http://a.test/100%25-cotton")),
    case("loc-not-url-escaped", loc("http://a.test/ümlaut.html", line=3), loc("http://a.test/%C3%BCmlaut.html")),
    case(
        "loc-whitespace",
        one(urlset("<url><loc> http://a.test/page </loc></url>"), line=3),
        one(urlset("<url><loc>http://a.test/page</loc></url>")),
    ),
    case("loc-has-fragment", loc("http://a.test/faq#shipping", line=3), loc("http://a.test/faq?q=%23shipping")),
    case("loc-session-id", loc("http://a.test/cart;jsessionid=0A1B2C3D", line=3), loc("http://a.test/cart?side=left")),
    case("loc-tracking-params", loc("http://a.test/sale?utm_source=newsletter", line=3), loc("http://a.test/sale?utmost=1")),
    case("loc-userinfo", loc("http://editor:secret@a.test/draft", line=3), loc("http://a.test/@editor/draft")),
    case("loc-private-host", loc("http://dev.shop.example/products", line=3), loc("http://devices.shop.example/products")),
    case("loc-not-normalized", loc("http://a.test:80/about", line=3), loc("http://a.test/about")),
    case(
        "location-different-host",
        served("http://cdn.example/page", line=3),
        served("http://a.test/page"),
    ),
    case(
        "location-different-scheme",
        served("https://a.test/page", line=3),
        served("http://a.test/page"),
    ),
    case(
        "location-outside-path",
        served("http://a.test/blog/post", at="catalog/sitemap.xml", line=3),
        served("http://a.test/catalog/item", at="catalog/sitemap.xml"),
    ),
    case(
        "location-port-mismatch",
        served("http://a.test:81/page", line=3),
        served("http://a.test/page"),
    ),
    case("lastmod-invalid-format", lastmod("2024-05-01 10:00:00", line=3), lastmod("2024-05-01T10:00:00+00:00")),
    case("lastmod-w3c-but-xsd-invalid", lastmod("2024-05", line=3), lastmod("2024-05-01")),
    case("lastmod-xsd-valid-but-not-w3c", lastmod("2024-05-01T10:00:00", line=3), lastmod("2024-05-01T10:00:00Z")),
    # the margin is 24 hours (time zones): an hour ahead is not the future yet
    case("lastmod-future", lastmod("@NOW+3D@", line=3), lastmod("@NOW+1H@")),
    case("lastmod-implausibly-old", lastmod("1970-01-01", line=3), lastmod("1991-08-06")),
    case(
        "lastmod-missing",
        one(urlset("<url><loc>http://a.test/</loc><changefreq>daily</changefreq></url>"), line=3),
        one(urlset("<url><loc>http://a.test/</loc><lastmod>2024-05-01</lastmod></url>")),
    ),
    case(
        "changefreq-invalid",
        one(urlset("<url><loc>http://a.test/</loc><changefreq>Daily</changefreq></url>"), line=3),
        one(urlset("<url><loc>http://a.test/</loc><changefreq>daily</changefreq></url>")),
    ),
    case(
        "changefreq-ignored",
        one(urlset("<url><loc>http://a.test/</loc><changefreq>weekly</changefreq></url>"), line=3),
        one(urlset("<url><loc>http://a.test/</loc><lastmod>2024-05-01</lastmod></url>")),
    ),
    case(
        "priority-invalid",
        one(urlset("<url><loc>http://a.test/</loc><priority>1.5</priority></url>"), line=3),
        one(urlset("<url><loc>http://a.test/</loc><priority>1.0</priority></url>")),
    ),
    case(
        "priority-ignored",
        one(urlset("<url><loc>http://a.test/</loc><priority>0.8</priority></url>"), line=3),
        one(urlset("<url><loc>http://a.test/</loc><lastmod>2024-05-01</lastmod></url>")),
    ),
]

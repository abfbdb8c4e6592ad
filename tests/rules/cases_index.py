"""Index scope: a sitemapindex and its <sitemap> entries (the findings about a child are
reported on the index line that lists it), and the cycle and Search Console limits."""

from __future__ import annotations

from .cases import IMAGE, SMALL_ENTRY_CAP, Case, case, index, one, site, urlset

CHILD = "<sitemap><loc>http://a.test/sitemap-1.xml</loc><lastmod>2024-05-01</lastmod></sitemap>"
URLSET = urlset("<url><loc>http://a.test/page</loc><lastmod>2024-05-01</lastmod></url>")


def listing(*locs: str) -> str:
    return index(*(f"<sitemap><loc>{u}</loc></sitemap>" for u in locs))


def _indexes(n: int) -> dict[str, str]:
    """``index.xml`` listing ``n - 1`` child indexes: ``n`` index files for the host."""
    files = {"index.xml": listing(*(f"http://a.test/i{i}.xml" for i in range(n - 1)))}
    files.update({f"i{i}.xml": listing(f"http://a.test/s{i}.xml") for i in range(n - 1)})
    return files


def _children(n: int) -> str:
    return listing(*(f"http://a.test/s{i}.xml" for i in range(n)))


# The 50,000-children and 500-index limits with small caps: the real ones take 50,001 nodes or
# 501 fetched files (25 s of this suite); the rules are the same comparisons at the cap.
SMALL_CHILD_CAP = SMALL_ENTRY_CAP
SMALL_GSC_CAP = (("sitemap_tui.validate.crossfile", "GSC_INDEX_LIMIT", 3),)


CASES: list[Case] = [
    case(
        "index-sitemap-loc-missing",
        one(index("<sitemap><lastmod>2024-05-01</lastmod></sitemap>"), line=3),
        one(index(CHILD)),
    ),
    case(
        "index-loc-invalid",
        one(index("<sitemap><loc>sitemap-1.xml</loc></sitemap>"), line=3),
        one(index("<sitemap><loc>http://a.test/sitemap-1.xml</loc></sitemap>")),
    ),
    case(
        "index-too-many-sitemaps",
        site({"index.xml": _children(6)}, target="index.xml", args=("--no-recursive",), patch=SMALL_CHILD_CAP),
        site({"index.xml": _children(5)}, target="index.xml", args=("--no-recursive",), patch=SMALL_CHILD_CAP),
    ),
    case("index-empty", one(index()), one(index(CHILD))),
    case(
        "index-wrong-children",
        one(index("<sitemap><loc>http://a.test/sitemap-1.xml</loc><changefreq>daily</changefreq></sitemap>"), line=3),
        one(index(CHILD)),
    ),
    case(
        "index-nested",
        site({"index.xml": listing("http://a.test/sub-index.xml"), "sub-index.xml": listing("http://a.test/sitemap-1.xml"), "sitemap-1.xml": URLSET}, target="index.xml", where="sub-index.xml"),
        site({"index.xml": listing("http://a.test/sitemap-1.xml"), "sitemap-1.xml": URLSET}, target="index.xml"),
    ),
    case(
        "index-child-different-host",
        site({"index.xml": listing("http://b.test/sitemap-1.xml")}, target="index.xml", line=3),
        site({"index.xml": listing("http://a.test/sitemap-1.xml"), "sitemap-1.xml": URLSET}, target="index.xml"),
    ),
    case(
        "index-child-outside-path",
        site({"shop/index.xml": listing("http://a.test/blog/sitemap.xml"), "blog/sitemap.xml": URLSET}, target="shop/index.xml", line=3),
        site({"shop/index.xml": listing("http://a.test/shop/products/sitemap.xml"), "shop/products/sitemap.xml": URLSET}, target="shop/index.xml"),
    ),
    case(
        "index-child-unfetchable",
        site({"index.xml": listing("http://a.test/sitemap-1.xml")}, target="index.xml", line=3),  # 404
        site({"index.xml": listing("http://a.test/sitemap-1.xml"), "sitemap-1.xml": URLSET}, target="index.xml"),
    ),
    case(
        "index-child-unfetchable",
        # fetched, but nothing in it can be read: the index line gets the finding too
        site({"index.xml": listing("http://a.test/sitemap-1.xml"), "sitemap-1.xml": "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>http://a.test/a</loc></ur"}, target="index.xml", line=3),
        site({"index.xml": listing("http://a.test/sitemap-1.xml"), "sitemap-1.xml": URLSET}, target="index.xml"),
    ),
    case(
        "index-child-duplicate",
        one(index(CHILD, CHILD.replace("2024-05-01", "2024-06-01")), line=4),
        one(index(CHILD, CHILD.replace("sitemap-1", "sitemap-2"))),
    ),
    case(
        "index-lastmod-invalid",
        one(index(CHILD.replace("2024-05-01", "2024-13-01")), line=3),
        one(index(CHILD.replace("2024-05-01", "2024-12-01"))),
    ),
    case(
        "index-lastmod-stale",
        # the index says the child last changed in January; an entry inside changed in May
        site({"index.xml": index(CHILD.replace("2024-05-01", "2024-01-15")), "sitemap-1.xml": URLSET}, target="index.xml", line=3),
        site({"index.xml": index(CHILD), "sitemap-1.xml": URLSET}, target="index.xml"),
    ),
    case(
        "index-lastmod-missing",
        one(index("<sitemap><loc>http://a.test/sitemap-1.xml</loc></sitemap>"), line=3),
        one(index(CHILD)),
    ),
    case(
        "index-extension-elements",
        one(index(f'<sitemap><loc>http://a.test/sitemap-1.xml</loc><image:image xmlns:image="{IMAGE}"><image:loc>http://a.test/i.jpg</image:loc></image:image></sitemap>'), line=3),
        one(index(CHILD)),
    ),
    case(
        "index-child-is-feed-or-text",
        site({"index.xml": listing("http://a.test/sitemap-1.txt"), "sitemap-1.txt": "http://a.test/page\n"}, target="index.xml", line=3),
        site({"index.xml": listing("http://a.test/sitemap-1.xml"), "sitemap-1.xml": URLSET}, target="index.xml"),
    ),
    case(
        "index-cycle",
        site({"index.xml": listing("http://a.test/b.xml"), "b.xml": listing("http://a.test/index.xml")}, target="index.xml"),
        site({"index.xml": listing("http://a.test/b.xml"), "b.xml": listing("http://a.test/sitemap-1.xml"), "sitemap-1.xml": URLSET}, target="index.xml"),
    ),
    case(
        "index-cycle",
        # the listing that closes the cycle is b.xml line 3
        site({"index.xml": listing("http://a.test/b.xml"), "b.xml": listing("http://a.test/index.xml")}, target="index.xml", where="b.xml", line=3),
        None,
    ),
    case(
        "index-gsc-limit",
        site(_indexes(4), target="index.xml", patch=SMALL_GSC_CAP),
        site(_indexes(3), target="index.xml", patch=SMALL_GSC_CAP),
    ),
]

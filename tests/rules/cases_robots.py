"""Robots scope: robots.txt Sitemap lines, Disallow rules against the listed URLs, sitemap
files and video files, and cross-submission. A site target (``/``) starts at robots.txt."""

from __future__ import annotations

from .cases import Case, Resp, case, index, one, site, urlset

SITEMAP_LINE = "Sitemap: http://a.test/sitemap.xml\n"
PAGE = urlset("<url><loc>http://a.test/page</loc></url>")


def robots(*lines: str) -> str:
    return "".join(f"{line}\n" for line in lines)


def video(content: str, *, extra: str = "") -> str:
    """A one-video urlset; the <url> and its video are on line 3."""
    return urlset(
        "<url><loc>http://a.test/watch/intro</loc><video:video>"
        "<video:thumbnail_loc>http://a.test/thumbs/intro.jpg</video:thumbnail_loc>"
        "<video:title>Intro</video:title><video:description>Our intro</video:description>"
        f"<video:content_loc>{content}</video:content_loc>{extra}</video:video></url>",
        ext="video",
    )


CASES: list[Case] = [
    case(
        "robots-no-sitemap-line",
        site({"robots.txt": robots("User-agent: *", "Disallow: /cart/")}, target="robots.txt"),
        site({"robots.txt": robots("User-agent: *", "Disallow: /cart/", SITEMAP_LINE), "sitemap.xml": PAGE}, target="robots.txt"),
    ),
    case(
        "robots-sitemap-not-absolute",
        site({"robots.txt": robots("User-agent: *", "Sitemap: /sitemap.xml"), "sitemap.xml": PAGE}, target="robots.txt", line=2),
        site({"robots.txt": robots("User-agent: *", "Sitemap: http://a.test/sitemap.xml"), "sitemap.xml": PAGE}, target="robots.txt"),
    ),
    case(
        "robots-sitemap-unfetchable",
        site({"robots.txt": robots("User-agent: *", "Sitemap: http://a.test/sitemap.xml")}, target="robots.txt", line=2),  # 404
        site({"robots.txt": robots("User-agent: *", "Sitemap: http://a.test/sitemap.xml"), "sitemap.xml": PAGE}, target="robots.txt"),
    ),
    case(
        "robots-url-disallowed",
        site({"robots.txt": robots("User-agent: *", "Disallow: /private/", SITEMAP_LINE), "sitemap.xml": urlset("<url><loc>http://a.test/private/report</loc></url>")}, target="/", where="sitemap.xml", line=3),
        # /private-sale is not under /private/
        site({"robots.txt": robots("User-agent: *", "Disallow: /private/", SITEMAP_LINE), "sitemap.xml": urlset("<url><loc>http://a.test/private-sale</loc></url>")}, target="/"),
    ),
    case(
        "robots-sitemap-file-disallowed",
        site({"robots.txt": robots("User-agent: *", "Disallow: /sitemaps/", "Sitemap: http://a.test/sitemaps/pages.xml"), "sitemaps/pages.xml": urlset("<url><loc>http://a.test/sitemaps/page</loc></url>")}, target="/", where="sitemaps/pages.xml"),
        site({"robots.txt": robots("User-agent: *", "Disallow: /sitemaps/private/", "Sitemap: http://a.test/sitemaps/pages.xml"), "sitemaps/pages.xml": urlset("<url><loc>http://a.test/sitemaps/page</loc></url>")}, target="/"),
    ),
    case(
        "robots-cross-submit-ok",
        # b.test's robots.txt names the sitemap on a.test, which lists b.test's pages
        site({"b.test/robots.txt": robots("User-agent: *", "Sitemap: http://a.test/sitemap.xml"), "sitemap.xml": urlset("<url><loc>http://b.test/page</loc></url>")}, target="b.test/robots.txt", where="sitemap.xml", line=3),
        site({"b.test/robots.txt": robots("User-agent: *", "Sitemap: http://a.test/sitemap.xml"), "sitemap.xml": urlset("<url><loc>http://cdn.example/page</loc></url>")}, target="b.test/robots.txt"),
    ),
    case(
        "robots-cross-submit-ok",
        # the same set-up validated from the sitemap: b.test's robots.txt must be read too
        site({"b.test/robots.txt": robots("User-agent: *", "Sitemap: http://a.test/sitemap.xml"), "sitemap.xml": urlset("<url><loc>http://b.test/page</loc></url>")}, where="sitemap.xml", line=3),
        site({"b.test/robots.txt": robots("User-agent: *", "Sitemap: http://a.test/other.xml"), "sitemap.xml": urlset("<url><loc>http://b.test/page</loc></url>")}),
    ),
    case(
        "location-different-host",
        None,
        site({"b.test/robots.txt": robots("User-agent: *", "Sitemap: http://a.test/sitemap.xml"), "sitemap.xml": urlset("<url><loc>http://b.test/page</loc></url>")}),
    ),
    case(
        "location-different-host",
        None,
        site({"b.test/robots.txt": robots("User-agent: *", "Sitemap: http://a.test/sitemap.xml"), "sitemap.xml": urlset("<url><loc>http://b.test/page</loc></url>")}, target="b.test/robots.txt"),
    ),
    case(
        "location-different-host",
        None,
        # b.test/robots.txt redirects to a.test/robots.txt (example.com -> www.example.com), which
        # names the sitemap on b.test (a CDN) listing a.test's pages: that is the robots.txt read
        site({"b.test/robots.txt": Resp(status=301, headers={"Location": "http://a.test/robots.txt"}), "robots.txt": robots("User-agent: *", "Sitemap: http://b.test/sitemap.xml"), "b.test/sitemap.xml": urlset("<url><loc>http://a.test/page</loc></url>")}, target="b.test/"),
    ),
    case(
        "robots-fetch-error",
        site({"robots.txt": Resp("upstream timed out", status=503, headers={"Retry-After": "0"}, content_type="text/plain"), "sitemap.xml": PAGE}, target="/", where="robots.txt"),
        site({"sitemap.xml": PAGE}, target="/"),  # no robots.txt (404): no restrictions, no error
    ),
    case(
        "ping-endpoint-deprecated",
        one(index("<sitemap><loc>http://www.google.com/ping?sitemap=http://a.test/sitemap.xml</loc></sitemap>"), line=3),
        one(index("<sitemap><loc>http://a.test/ping?sitemap=news</loc></sitemap>")),
    ),
    case(
        "video-files-not-accessible",
        site({"robots.txt": robots("User-agent: *", "Disallow: /media/", SITEMAP_LINE), "sitemap.xml": video("http://a.test/media/intro.mp4")}, target="/", where="sitemap.xml", line=3),
        # /media-kit/ is not under /media/
        site({"robots.txt": robots("User-agent: *", "Disallow: /media/", SITEMAP_LINE), "sitemap.xml": video("http://a.test/media-kit/intro.mp4")}, target="/"),
    ),
    case(
        "video-files-not-accessible",
        site({"robots.txt": robots("User-agent: Googlebot", "Disallow: /embed/", "", "User-agent: *", "Disallow:", SITEMAP_LINE), "sitemap.xml": video("http://a.test/videos/intro.mp4", extra="<video:player_loc>http://a.test/embed/intro</video:player_loc>")}, target="/", where="sitemap.xml", line=3),
        # disallowed for another crawler only: Googlebot may fetch it
        site({"robots.txt": robots("User-agent: Bingbot", "Disallow: /embed/", "", "User-agent: *", "Disallow:", SITEMAP_LINE), "sitemap.xml": video("http://a.test/videos/intro.mp4", extra="<video:player_loc>http://a.test/embed/intro</video:player_loc>")}, target="/"),
    ),
    case(
        "video-files-not-accessible",
        one(video("rtmp://a.test/live/intro"), line=3),
        one(video("http://a.test/live/intro.mp4")),
    ),
]

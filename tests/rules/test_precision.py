"""Validator precision, found from outside: a fault one rule names must not hide another, a
finding points at the element it is about, and a value the protocol allows is not a fault. Each
test runs ``sitemap-tui validate`` (in this process) on a small file, as a user would."""

from __future__ import annotations

from pathlib import Path

from .cases import one, urlset
from .harness import run_fixture

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"


def rules_at(fx_text: str, tmp_path: Path, *args: str) -> tuple[int, list[tuple[str, str, int | None]]]:
    run = run_fixture(one(fx_text, args=args), tmp_path, None)
    return run.code, [(f.rule, f.severity, f.line) for f in run.findings]


def test_a_warning_on_one_image_does_not_hide_a_schema_error_in_another(tmp_path: Path) -> None:
    """Two <image:loc> in one image is a schema error (Google cannot tell which counts); a
    title out of order in the next image is a warning. The warning took the error with it, and
    the exit code went from 1 to 0."""
    two_locs = "<image:image><image:loc>http://a.test/f.jpg</image:loc><image:loc>http://a.test/g.jpg</image:loc></image:image>"
    title_first = "<image:image><image:title>t</image:title><image:loc>http://a.test/h.jpg</image:loc></image:image>"
    doc = urlset(f"<url><loc>http://a.test/p</loc>\n{two_locs}\n{title_first}\n</url>", ext="image")
    code, found = rules_at(doc, tmp_path / "a")
    assert ("xsd-invalid", "error", 4) in found and ("image-element-order", "warning", 5) in found, found
    assert code == 1
    # near miss: the out-of-order image's own schema error stays left to image-element-order
    doc = urlset(f"<url><loc>http://a.test/p</loc>\n{title_first}\n</url>", ext="image")
    code, found = rules_at(doc, tmp_path / "b")
    assert [r for r in found if r[0] in ("xsd-invalid", "image-element-order")] == [("image-element-order", "warning", 4)]
    assert code == 0


def test_a_warning_on_one_video_does_not_hide_a_schema_error_in_another(tmp_path: Path) -> None:
    def video(inner: str) -> str:
        return (f"<video:video><video:thumbnail_loc>http://a.test/t.jpg</video:thumbnail_loc><video:title>T</video:title>"
                f"<video:description>D</video:description>{inner}</video:video>")

    twice = video("<video:content_loc>http://a.test/a.mp4</video:content_loc><video:content_loc>http://a.test/b.mp4</video:content_loc>")
    unordered = video("<video:content_loc>http://a.test/c.mp4</video:content_loc><video:rating>4</video:rating><video:duration>60</video:duration>")
    doc = urlset(f"<url><loc>http://a.test/v</loc>\n{twice}\n{unordered}\n</url>", ext="video")
    code, found = rules_at(doc, tmp_path)
    assert ("xsd-invalid", "error", 4) in found and ("video-element-order", "warning", 5) in found, found
    assert code == 1


def test_an_extension_element_between_urls_is_a_schema_error(tmp_path: Path) -> None:
    """An <image:image> (or a vendor's element) directly under <urlset> after a <url> is lost
    to search engines and refused by the schema; the parser never gave it to the XSD. Before
    the first <url> the schema's wildcard takes a known extension's element: no error."""
    stray = "<image:image><image:loc>http://a.test/stray.jpg</image:loc></image:image>"
    doc = urlset("<url><loc>http://a.test/a</loc></url>", stray, "<url><loc>http://a.test/b</loc></url>", ext="image")
    code, found = rules_at(doc, tmp_path / "a")
    assert ("xsd-invalid", "error", 4) in found and code == 1, found
    vendor = urlset("<url><loc>http://a.test/a</loc></url>", "<acme:x/>", "<url><loc>http://a.test/b</loc></url>")
    vendor = vendor.replace("<urlset ", '<urlset xmlns:acme="http://acme.example/ns" ')
    code, found = rules_at(vendor, tmp_path / "b")
    assert ("xsd-invalid", "error", 4) in found and code == 1, found
    # near miss: before the first <url> the wildcard validates it
    doc = urlset(stray, "<url><loc>http://a.test/a</loc></url>", ext="image")
    code, found = rules_at(doc, tmp_path / "c")
    assert not [r for r in found if r[1] == "error"] and code == 0, found


def test_a_changefreq_with_spaces_around_it_is_changefreq_invalid(tmp_path: Path) -> None:
    """The XSD's enumeration keeps spaces: " daily " fails it, and was an xsd-invalid error a
    filter on changefreq- missed. The checker reads the word stripped; the schema's refusal is
    worded as the rule, naming the spaces."""
    run = run_fixture(one(urlset("<url><loc>http://a.test/a</loc><changefreq> daily </changefreq></url>",
                                 "<url><loc>http://a.test/b</loc><changefreq>daily</changefreq></url>")), tmp_path, None)
    found = [(f.rule, f.line) for f in run.findings if f.severity == "error"]
    assert found == [("changefreq-invalid", 3)], run.describe()
    assert "whitespace around 'daily'" in run.of("changefreq-invalid")[0].message


def _news(inner: str) -> str:
    return urlset(f"<url><loc>http://a.test/n</loc><news:news>{inner}</news:news></url>", ext="news")


def test_an_empty_news_tag_is_said_empty_not_missing(tmp_path: Path) -> None:
    """"missing" sent users looking for a tag that is there (as the video rule already said)."""
    pub = "<news:publication><news:name>{name}</news:name><news:language>en</news:language></news:publication>"
    doc = _news(pub.format(name="") + "<news:publication_date>2024-05-01</news:publication_date><news:title></news:title>")
    (issue,) = run_fixture(one(doc), tmp_path / "a", None).of("news-required-missing")
    assert issue.message.endswith("missing <news:name> (empty), <news:title> (empty)"), issue.message
    doc = _news(pub.format(name="Daily") + "<news:publication_date>2024-05-01</news:publication_date>")
    (issue,) = run_fixture(one(doc), tmp_path / "b", None).of("news-required-missing")
    assert issue.message.endswith("missing <news:title>"), issue.message  # near miss: absent


def test_an_empty_platform_list_is_as_valid_as_an_empty_restriction(tmp_path: Path) -> None:
    """The schema allows an empty list for both; only the platform was an error."""
    video = ("<video:video><video:thumbnail_loc>http://a.test/t.jpg</video:thumbnail_loc><video:title>T</video:title>"
             "<video:description>D</video:description><video:content_loc>http://a.test/v.mp4</video:content_loc>{x}"
             "</video:video>")
    for x in ('<video:restriction relationship="deny"></video:restriction>',
              '<video:platform relationship="deny"></video:platform>'):
        run = run_fixture(one(urlset(f"<url><loc>http://a.test/v</loc>{video.format(x=x)}</url>", ext="video")),
                          tmp_path / str(len(x)), None)
        assert not [f for f in run.findings if f.severity == "error"], run.describe()
    pc = video.format(x='<video:platform relationship="deny">pc</video:platform>')
    run = run_fixture(one(urlset(f"<url><loc>http://a.test/v</loc>{pc}</url>", ext="video")), tmp_path / "pc", None)
    assert run.of("video-platform-invalid"), run.describe()  # near miss: a word not in the list


def test_a_time_zone_beyond_14_hours_is_named_not_the_seconds(tmp_path: Path) -> None:
    """"+15:00" with seconds was told that "a date-time with seconds is safer"."""
    doc = urlset("<url><loc>http://a.test/a</loc><lastmod>2024-05-01T10:00:00+15:00</lastmod></url>",
                 "<url><loc>http://a.test/b</loc><lastmod>2024-05-01T10:00+02:00</lastmod></url>")
    a, b = run_fixture(one(doc), tmp_path, None).of("lastmod-w3c-but-xsd-invalid")
    assert "rejects its time zone offset (beyond ±14:00)" in a.message and "seconds" not in a.message
    assert "a date-time with seconds is safer" in b.message  # near miss: no seconds, as said
    # both faults: seconds alone would not fix it
    doc = urlset("<url><loc>http://a.test/c</loc><lastmod>2024-05-01T10:00+15:00</lastmod></url>")
    (c,) = run_fixture(one(doc), tmp_path / "c", None).of("lastmod-w3c-but-xsd-invalid")
    assert "time zone offset (beyond ±14:00) and its time without seconds" in c.message, c.message


def test_an_atom_link_with_the_iana_relation_uri_is_the_entrys_link(tmp_path: Path) -> None:
    """RFC 4287 §4.2.7.2: rel="http://www.iana.org/assignments/relation/alternate" is
    "alternate"; it was feed-item-no-link, an error."""
    feed = ('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>'
            "<id>urn:f</id><updated>2024-05-01T10:00:00Z</updated>\n"
            '<entry><title>g</title><link rel="{rel}" href="http://a.test/g"/><id>urn:g</id>'
            "<updated>2024-05-01T10:00:00Z</updated></entry>\n</feed>\n")
    run = run_fixture(one(feed.format(rel="http://www.iana.org/assignments/relation/alternate"), name="feed.atom"),
                      tmp_path / "a", None)
    assert not run.of("feed-item-no-link"), run.describe()
    run = run_fixture(one(feed.format(rel="edit"), name="feed.atom"), tmp_path / "b", None)
    assert run.of("feed-item-no-link"), run.describe()  # near miss: another relation


def test_a_year_or_a_month_is_a_period_not_its_first_instant(tmp_path: Path, httpserver) -> None:
    """"2026-11" includes the 20th: an index saying so of a child whose newest lastmod is
    2026-11-20 is not stale; "1991" and "1991-08" include dates after the first web page."""
    from .cases import index, site

    def child(lastmod: str) -> str:
        return f"<sitemap><loc>http://a.test/sitemap-1.xml</loc><lastmod>{lastmod}</lastmod></sitemap>"

    inner = urlset("<url><loc>http://a.test/page</loc><lastmod>2024-05-20</lastmod></url>")
    for listed, stale in (("2024-05", False), ("2024", False), ("2024-04", True), ("2023", True)):
        httpserver.clear()
        run = run_fixture(site({"index.xml": index(child(listed)), "sitemap-1.xml": inner}, target="index.xml"),
                          tmp_path / listed, httpserver)
        assert bool(run.of("index-lastmod-stale")) is stale, (listed, run.describe())
    doc = urlset(*(f"<url><loc>http://a.test/{d}</loc><lastmod>{d}</lastmod></url>" for d in ("1991", "1991-08", "1990", "1991-07")))
    old = {f.url.rpartition("/")[2] for f in run_fixture(one(doc), tmp_path / "old", None).of("lastmod-implausibly-old")}
    assert old == {"1990", "1991-07"}


def test_the_sitemaps_directory_and_its_urls_compare_as_rfc_3986_does(tmp_path: Path) -> None:
    """A sitemap URL with a dot-segment (/sub/../s.xml) put every URL "outside" '/sub/../', and
    /%63atalog/d (%63 is c) was outside /catalog/: location-outside-path, an error."""
    import contextlib
    import io
    import json

    from sitemap_tui import cli

    build = tmp_path / "build"
    (build / "catalog").mkdir(parents=True)
    (build / "s.xml").write_text(urlset("<url><loc>https://example.com/a</loc></url>"))
    (build / "catalog" / "sitemap.xml").write_text(urlset(
        "<url><loc>https://example.com/%63atalog/d</loc></url>", "<url><loc>https://example.com/other/e</loc></url>"))

    def outside(url: str) -> list[str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            cli.main(["validate", url, "--map", f"https://example.com/={build}", "--format", "json",
                      "--no-history", "--workers", "0"])
        return [i["url"] for i in json.loads(out.getvalue())["issues"] if i["rule"] == "location-outside-path"]

    assert outside("https://example.com/sub/../s.xml") == []
    assert outside("https://example.com/sub/%2e%2e/s.xml") == []  # decoded, then a dot-segment
    assert outside("https://example.com/catalog/sitemap.xml") == ["https://example.com/other/e"]  # near miss


def test_an_uploader_page_on_a_sibling_subdomain_is_on_the_pages_domain(tmp_path: Path) -> None:
    """blog.a.test's video with its uploader's page on shop.a.test was an error ("not on the
    page's domain"), while www.a.test's was not: both are a.test."""
    video = ("<video:video><video:thumbnail_loc>http://{h}/t.jpg</video:thumbnail_loc><video:title>T</video:title>"
             "<video:description>D</video:description><video:content_loc>http://{h}/v.mp4</video:content_loc>"
             '<video:uploader info="{info}">Someone</video:uploader></video:video>')

    def uploader_faults(page_host: str, info: str, name: str) -> list[str]:
        doc = urlset(f"<url><loc>http://{page_host}/watch</loc>{video.format(h=page_host, info=info)}</url>", ext="video")
        return [f.message for f in run_fixture(one(doc), tmp_path / name, None).of("video-uploader-invalid")]

    assert uploader_faults("blog.example.com", "http://shop.example.com/u", "sibling") == []
    assert uploader_faults("www.example.com", "http://shop.example.com/u", "www") == []
    assert uploader_faults("blog.example.com", "http://example.org/u", "other")  # near miss: another domain
    assert uploader_faults("a.example.co.uk", "http://b.co.uk/u", "registry")  # a registry's suffix is no site
    # (a hand-written list of such suffixes missed me.uk, and the private ones: github.io)
    assert uploader_faults("shop.example.me.uk", "http://evil.me.uk/u", "me.uk")
    assert uploader_faults("victim.github.io", "http://attacker.github.io/u", "github")


def test_a_value_finding_in_an_extension_points_at_its_element(tmp_path: Path) -> None:
    """In a pretty-printed file the GitHub/SARIF annotations for a video's duration, rating and
    date all said the <video:video> line, an image's URL its <image:image> line."""
    doc = urlset("<url><loc>http://a.test/p</loc>\n"
                 "<image:image>\n<image:loc>/rel.jpg</image:loc>\n</image:image>\n"
                 "<video:video>\n<video:thumbnail_loc>http://a.test/t.jpg</video:thumbnail_loc>\n"
                 "<video:title>t</video:title>\n<video:description>d</video:description>\n"
                 "<video:content_loc>http://a.test/v.mp4</video:content_loc>\n<video:duration>0</video:duration>\n"
                 "<video:rating>9</video:rating>\n<video:restriction relationship=\"allow\">us</video:restriction>\n"
                 "</video:video>\n</url>", ext="image video")
    run = run_fixture(one(doc), tmp_path, None)
    lines = {f.rule: f.line for f in run.findings}
    assert lines["image-loc-invalid"] == 5 and lines["video-duration-range"] == 12
    assert lines["video-rating-range"] == 13 and lines["video-restriction-invalid"] == 14
    assert "xsd-invalid" not in lines, run.describe()  # the schema's errors there stay left to them


def test_on_one_line_a_warning_on_one_image_hides_no_schema_error_in_another(tmp_path: Path) -> None:
    """A minified file: every image on the <url>'s line, so a line no longer tells which image
    a finding is about; the schema error is said (found from outside: exit 1 became 0 there)."""
    two_locs = "<image:image><image:loc>http://a.test/f.jpg</image:loc><image:loc>http://a.test/g.jpg</image:loc></image:image>"
    title_first = "<image:image><image:title>t</image:title><image:loc>http://a.test/h.jpg</image:loc></image:image>"
    code, found = rules_at(urlset(f"<url><loc>http://a.test/p</loc>{two_locs}{title_first}</url>", ext="image"), tmp_path / "a")
    assert ("xsd-invalid", "error", 3) in found and code == 1, found
    # near miss: one image on the line, its order fault is image-element-order's alone
    code, found = rules_at(urlset(f"<url><loc>http://a.test/p</loc>{title_first}</url>", ext="image"), tmp_path / "b")
    assert "xsd-invalid" not in {r[0] for r in found} and code == 0, found


def test_the_reminders_count_urls_not_entries_without_one(tmp_path: Path) -> None:
    """Found from outside: two empty <loc> beside one URL with a lastmod gave "URLs without
    <lastmod>: 2 of 3" next to "1 file, 1 URL" (an entry without a URL is no URL)."""
    empty = "<url><loc></loc><changefreq>daily</changefreq></url>"
    doc = urlset(f"<url><loc>http://a.test/</loc><lastmod>2024-05-01</lastmod></url>\n{empty}\n{empty}")
    run = run_fixture(one(doc), tmp_path / "a", None)
    assert not [f for f in run.findings if f.rule in ("lastmod-missing", "changefreq-ignored")], run.findings
    assert [f.rule for f in run.findings if f.rule == "loc-empty"] == ["loc-empty", "loc-empty"]
    # near miss: a URL without one is counted, of the URLs alone
    doc = urlset(f"<url><loc>http://a.test/</loc></url>\n{empty}")
    run = run_fixture(one(doc), tmp_path / "b", None)
    assert [f.message for f in run.findings if f.rule == "lastmod-missing"] == ["URLs without <lastmod>: 1 of 1"]


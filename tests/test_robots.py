"""robots.txt: Sitemap lines (T12, T13, T15, T18) and protego rules."""

from __future__ import annotations

import codecs
import csv
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_tui.engine.robots import (
    MAX_ROBOTS_BYTES,
    RobotsFile,
    decode_robots,
    parse_robots,
)

DATA = Path(__file__).parent / "data" / "robots"
SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = SHARED / "corpus"
BASE = "https://www.example.com/robots.txt"

# Files where our count differs from MANIFEST.tsv on purpose, with our count and the reason.
MANIFEST_DISAGREEMENTS = {
    # `site-map:` / `sItE-mAp:` lines: accepted by Google's open-source parser (KeyIsSitemap)
    # and by protego; the manifest counted only the `sitemap` spelling.
    "robots/GateNLP_ultimate-sitemap-parser__docs_reference_formats_examples_robots.txt": 4,
}


def load(name: str) -> RobotsFile:
    return parse_robots((DATA / name).read_bytes(), BASE)


def rb(text: str) -> RobotsFile:
    return parse_robots(text.encode(), BASE)


# --- small synthetic cases ---------------------------------------------------------------


def test_basic_line_numbers_and_fields():
    r = rb("User-agent: *\nDisallow: /private/\n\nSitemap: https://www.example.com/s.xml\n")
    assert len(r.sitemaps) == 1
    s = r.sitemaps[0]
    assert s.line == 4
    assert s.raw == "Sitemap: https://www.example.com/s.xml"
    assert s.url == "https://www.example.com/s.xml"
    assert s.value == "https://www.example.com/s.xml"
    assert s.key == "Sitemap"
    assert not s.relative and not s.duplicate and s.unfetchable is None
    assert r.url == BASE and not r.truncated and r.decoded_with == "utf-8"
    assert r.sitemap_urls == ["https://www.example.com/s.xml"]


@pytest.mark.parametrize(
    "line",
    [
        "Sitemap: https://a.example/s.xml",
        "sitemap: https://a.example/s.xml",
        "SITEMAP: https://a.example/s.xml",
        "Sitemap : https://a.example/s.xml",
        "Sitemap\t:\thttps://a.example/s.xml",
        "Sitemap:https://a.example/s.xml",
        "    Sitemap: https://a.example/s.xml",
        "\tSitemap: https://a.example/s.xml   ",
        "Sitemap: https://a.example/s.xml # main sitemap",
        "Sitemap: https://a.example/s.xml#frag",
        "site-map: https://a.example/s.xml",
        "Sitemap: https://a.example/s.xml\r",
    ],
)
def test_key_spellings(line: str):
    r = rb(f"User-agent: *\n{line}\nDisallow: /x\n")
    assert [s.url for s in r.sitemaps] == ["https://a.example/s.xml"]
    assert r.sitemaps[0].line == 2


@pytest.mark.parametrize(
    "line",
    [
        "# Sitemap: https://a.example/s.xml",
        "Sitemaps: https://a.example/s.xml",
        "Sitemap https://a.example/s.xml",  # no colon after the key
        "XSitemap: https://a.example/s.xml",
        "Disallow: /sitemap.xml",
        "https://a.example/sitemap.xml",  # a bare URL is not a directive
        "Site map: https://a.example/s.xml",
    ],
)
def test_not_sitemap_lines(line: str):
    assert rb(f"{line}\n").sitemaps == []


def test_sitemap_anywhere_inside_and_outside_groups():
    text = (
        "Sitemap: https://a.example/1.xml\n"
        "User-agent: *\nSitemap: https://a.example/2.xml\nDisallow: /x\n"
        "User-agent: bot\nDisallow: /\nSitemap: https://a.example/3.xml\n"
    )
    r = rb(text)
    assert [s.line for s in r.sitemaps] == [1, 3, 7]


def test_relative_values_resolved():
    r = rb("Sitemap: /sitemap.xml\nSitemap: wp-sitemap.xml\nSitemap: //cdn.example.org/s.xml\n")
    assert [s.url for s in r.sitemaps] == [
        "https://www.example.com/sitemap.xml",
        "https://www.example.com/wp-sitemap.xml",
        "https://cdn.example.org/s.xml",
    ]
    assert all(s.relative for s in r.sitemaps)
    assert [s.value for s in r.sitemaps] == [
        "/sitemap.xml",
        "wp-sitemap.xml",
        "//cdn.example.org/s.xml",
    ]


def test_duplicates_flagged_and_kept():
    r = rb(
        "Sitemap: https://a.example/s.xml\n"
        "sitemap: https://A.EXAMPLE:443/s.xml#x\n"
        "Sitemap: http://a.example/s.xml\n"
        "Sitemap: /s.xml\n"
        "Sitemap: https://www.example.com/s.xml\n"
    )
    assert [s.duplicate for s in r.sitemaps] == [False, True, False, False, True]
    assert r.sitemap_urls == [
        "https://a.example/s.xml",
        "http://a.example/s.xml",
        "https://www.example.com/s.xml",
    ]


@pytest.mark.parametrize(
    ("value", "reason_part"),
    [
        ("file:///etc/passwd", "scheme 'file'"),
        ("javascript:alert(1)", "scheme 'javascript'"),
        ("data:text/xml,<urlset/>", "scheme 'data'"),
        ("ftp://a.example/s.xml", "scheme 'ftp'"),
        ("http://[::1", "not a valid URL"),
        ("https://a.example/a b.xml", "whitespace"),
        ("https://a.example:99999/s.xml", "invalid port"),
    ],
)
def test_unfetchable_values_are_flagged_not_dropped(value: str, reason_part: str):
    r = rb(f"Sitemap: {value}\n")
    assert len(r.sitemaps) == 1
    s = r.sitemaps[0]
    assert s.unfetchable is not None and reason_part in s.unfetchable
    assert r.sitemap_urls == []


def test_empty_value():
    r = rb("Sitemap:\nSitemap:   # nothing\n")
    assert [s.url for s in r.sitemaps] == ["", ""]
    assert all(s.unfetchable == "empty URL" for s in r.sitemaps)
    assert not any(s.duplicate for s in r.sitemaps)
    assert r.sitemap_urls == []


def test_control_characters_kept_raw_for_the_sanitiser():
    r = parse_robots(b"Sitemap: https://a.example/\x1b]52;c;AAAA\x07.xml\n", BASE)
    s = r.sitemaps[0]
    assert "\x1b" in s.raw  # display() escapes it; the parser must not hide it
    assert s.unfetchable == "contains a control character"


def test_line_endings_crlf_cr_and_odd_separators():
    r = parse_robots(b"a\r\nb\rSitemap: https://a.example/1.xml\nx\x0by\x0cz\nSitemap: /2\n", BASE)
    # VT/FF are not line breaks (str.splitlines() would shift the numbers)
    assert [s.line for s in r.sitemaps] == [3, 5]


def test_utf8_bom():
    r = parse_robots(codecs.BOM_UTF8 + b"Sitemap: https://a.example/s.xml\n", BASE)
    assert r.decoded_with == "utf-8-sig"
    assert r.sitemaps[0].line == 1 and r.sitemaps[0].url == "https://a.example/s.xml"


@pytest.mark.parametrize(
    ("codec", "name"), [("utf-16-le", "utf-16-le"), ("utf-16-be", "utf-16-be")]
)
def test_utf16_bom(codec: str, name: str):
    bom = codecs.BOM_UTF16_LE if codec == "utf-16-le" else codecs.BOM_UTF16_BE
    data = bom + "User-agent: *\nDisallow: /x\nSitemap: https://a.example/é.xml\n".encode(codec)
    r = parse_robots(data, BASE)
    assert r.decoded_with == name and not r.decode_errors
    assert [s.url for s in r.sitemaps] == ["https://a.example/é.xml"]
    assert not r.allowed("https://a.example/x/y")


def test_invalid_utf8_replaced():
    r = parse_robots(b"# caf\xe9\nSitemap: https://a.example/\xff.xml\n", BASE)
    assert r.decode_errors and r.decoded_with == "utf-8"
    assert r.sitemaps[0].url == "https://a.example/\ufffd.xml"
    assert r.sitemaps[0].line == 2


def test_truncation_at_max_bytes():
    head = b"Sitemap: https://a.example/1.xml\n"
    data = head + b"Sitemap: https://a.example/2-is-cut-in-the-middle.xml\n" + b"#" * 1000
    r = parse_robots(data, BASE, max_bytes=60)
    assert r.truncated
    # the second line was cut: it is dropped rather than reported as a half URL
    assert [s.url for s in r.sitemaps] == ["https://a.example/1.xml"]
    assert len(r.text.encode()) <= 60
    full = parse_robots(data, BASE, max_bytes=len(data))
    assert not full.truncated and len(full.sitemaps) == 2


def test_truncation_default_is_500_kib_and_protego_never_sees_more():
    big = (
        b"User-agent: *\n" + b"Disallow: /a\n" * 100_000 + b"Sitemap: https://a.example/late.xml\n"
    )
    assert len(big) > MAX_ROBOTS_BYTES
    r = parse_robots(big, BASE)
    assert r.truncated and r.sitemaps == []
    assert len(r.text.encode()) <= MAX_ROBOTS_BYTES
    assert not r.allowed("https://www.example.com/a")


def test_ten_thousand_sitemap_lines():
    text = "".join(f"Sitemap: https://a.example/s{i}.xml\n" for i in range(10_000))
    r = rb(text)
    assert len(r.sitemaps) == 10_000 and r.sitemaps[-1].line == 10_000


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x00" * 1000,
        b"\xff\xfe",
        b"\xfe\xff\x00",
        b"\xef\xbb\xbf",
        bytes(range(256)) * 20,
        b"\x1f\x8b\x08\x00" + b"\x00" * 100,  # a gzip header served as robots.txt
        b"<html><body>Not found</body></html>",
        b"User-agent: *\nDisallow: /[\nDisallow: /*(*\nAllow: \\\n",
    ],
)
def test_garbage_never_raises(data: bytes):
    r = parse_robots(data, BASE)
    assert isinstance(r.sitemaps, list)
    assert isinstance(r.allowed("https://www.example.com/x"), bool)
    assert isinstance(r.allowed_for_google("https://www.example.com/x"), bool)


def test_decode_robots_direct():
    assert decode_robots(b"abc") == ("abc", "utf-8", False)
    assert decode_robots(codecs.BOM_UTF8 + b"abc") == ("abc", "utf-8-sig", False)
    assert decode_robots(b"\xff\xfea\x00") == ("a", "utf-16-le", False)
    assert decode_robots(b"\xfe\xff\x00a") == ("a", "utf-16-be", False)


def test_bad_robots_url_never_raises():
    r = parse_robots(b"Sitemap: /s.xml\n", "http://[::1")
    assert len(r.sitemaps) == 1 and r.sitemaps[0].relative
    assert r.sitemaps[0].unfetchable is not None


# --- allow/disallow via protego --------------------------------------------------------


def test_allowed_rules():
    r = rb(
        "User-agent: *\nDisallow: /private/\nAllow: /private/ok\n\n"
        "User-agent: Googlebot\nDisallow: /nogoogle/\n\n"
        "User-agent: BadBot\nDisallow: /\n"
    )
    assert r.allowed("https://www.example.com/")
    assert not r.allowed("https://www.example.com/private/x")
    assert r.allowed("https://www.example.com/private/ok")
    assert r.allowed("https://www.example.com/nogoogle/x")
    assert not r.allowed_for_google("https://www.example.com/nogoogle/x")
    assert r.allowed_for_google("https://www.example.com/private/x")  # own group only
    assert not r.allowed("https://www.example.com/anything", "BadBot")
    assert r.allowed("https://www.example.com/sitemap.xml", "sitemap-tui/0.1.0")


def test_allowed_is_true_when_protego_fails(monkeypatch: pytest.MonkeyPatch):
    import protego

    def boom(_text: str) -> None:
        raise RuntimeError("parser trouble")

    monkeypatch.setattr(protego.Protego, "parse", staticmethod(boom))
    r = rb("User-agent: *\nDisallow: /\n")
    assert r.allowed("https://www.example.com/x")


def test_no_rules_allows_everything():
    assert rb("").allowed("https://www.example.com/x")


# --- copies of real files (tests/data/robots) ---------------------------------------------


def test_real_relative_wordpress_export():
    r = load("3tav_3tav.github.io__publication_robots.txt")
    assert [(s.line, s.url, s.relative) for s in r.sitemaps] == [
        (5, "https://www.example.com/wp-sitemap.xml", True)
    ]
    assert not r.allowed("https://www.example.com/wp-admin/x")
    assert r.allowed("https://www.example.com/wp-admin/admin-ajax.php")


def test_real_space_before_colon_crlf():
    r = load("anubhavp28_robotstxt-parser-benchmark__robotfiles_www.bseindia.com.robots.txt")
    assert [(s.line, s.url, s.key) for s in r.sitemaps] == [
        (13, "https://www.bseindia.com/sitemap.xml", "Sitemap")
    ]
    assert not r.sitemaps[0].raw.endswith("\r")


def test_real_indented():
    r = load("anubhavp28_robotstxt-parser-benchmark__robotfiles_www.active.com.robots.txt")
    assert [(s.line, s.url) for s in r.sitemaps] == [
        (2, "https://www.active.com/assets/sitemaps/active/sitemap.xml.gz")
    ]
    assert not r.allowed("https://www.active.com/page/x")


def test_real_duplicates():
    r = load("anubhavp28_robotstxt-parser-benchmark__robotfiles_99designs.com.robots.txt")
    assert [(s.line, s.duplicate) for s in r.sitemaps] == [(188, False), (379, True)]
    assert r.sitemap_urls == ["https://99designs.com/sitemap-index.xml"]
    assert not r.allowed("https://99designs.com/x/contests/1/brief")
    assert not r.allowed("https://99designs.com/anything", "BUbiNG")


def test_real_trailing_comments():
    r = load("anubhavp28_robotstxt-parser-benchmark__robotfiles_www.playstation.com.robots.txt")
    assert len(r.sitemaps) == 59
    first, second = r.sitemaps[0], r.sitemaps[1]
    assert (first.line, first.url) == (9, "https://www.playstation.com/es-ar/sitemap.xml")
    assert second.url == "https://www.playstation.com/en-au/sitemap.xml/"
    assert "# PlayStation Argentina" in first.raw
    assert all("#" not in s.url and " " not in s.url for s in r.sitemaps)
    assert all(s.unfetchable is None for s in r.sitemaps)


def test_real_utf8_bom_many_lines():
    r = load("anubhavp28_robotstxt-parser-benchmark__robotfiles_www.cathaypacific.com.robots.txt")
    assert r.decoded_with == "utf-8-sig"
    assert len(r.sitemaps) == 83 and len(r.sitemap_urls) == 83
    assert r.sitemaps[0].line == 1
    assert r.sitemaps[0].url == "https://www.cathaypacific.com/cx/SitemapXML/sitemap_cx_de_CH.xml"
    assert not r.allowed("https://www.cathaypacific.com/corp/x")


def test_real_utf16le_bom():
    r = load(
        "crawler-commons_crawler-commons__src_test_resources_robots_robots-with-utf16le-bom.txt"
    )
    assert r.decoded_with == "utf-16-le"
    assert [(s.line, s.url) for s in r.sitemaps] == [
        (15, "http://www.newsweek.com/sitemap_index.xml")
    ]
    assert not r.allowed("http://www.newsweek.com/login.aspx")
    assert not r.allowed_for_google("http://www.newsweek.com/search.aspx")
    assert r.allowed("http://www.newsweek.com/news/1")


def test_real_site_map_spellings():
    r = load("GateNLP_ultimate-sitemap-parser__docs_reference_formats_examples_robots.txt")
    assert [(s.line, s.key) for s in r.sitemaps] == [
        (3, "Sitemap"),
        (4, "sitemap"),
        (5, "site-map"),
        (6, "sItE-mAp"),
    ]
    assert not r.allowed("https://example.org/admin/x")
    assert not r.allowed("https://example.org/", "GPTBot")


# --- the whole shared corpus against MANIFEST.tsv -----------------------------------------


def _manifest_rows() -> list[dict[str, str]]:
    with (CORPUS / "MANIFEST.tsv").open(newline="", encoding="utf-8") as fh:
        return [row for row in csv.DictReader(fh, delimiter="\t") if row["category"] == "robots"]


@pytest.mark.skipif(not (CORPUS / "MANIFEST.tsv").is_file(), reason="shared corpus absent")
def test_corpus_sitemap_counts_match_manifest():
    rows = _manifest_rows()
    assert rows
    mismatches = []
    for row in rows:
        path = CORPUS / row["file"]
        r = parse_robots(path.read_bytes(), "https://corpus.example/robots.txt")
        expected = MANIFEST_DISAGREEMENTS.get(row["file"], int(row["n_sitemap_directives"] or 0))
        if len(r.sitemaps) != expected:
            mismatches.append((row["file"], len(r.sitemaps), expected))
        # every file is also exercised through protego
        assert isinstance(r.allowed("https://corpus.example/some/page"), bool)
        n_rel = sum(s.relative for s in r.sitemaps)
        if row["file"] not in MANIFEST_DISAGREEMENTS and row["n_rel_loc"]:
            assert n_rel == int(row["n_rel_loc"]), row["file"]
    assert mismatches == []


@pytest.mark.skipif(not (CORPUS / "MANIFEST.tsv").is_file(), reason="shared corpus absent")
def test_local_copies_match_corpus():
    for p in DATA.iterdir():
        assert p.read_bytes() == (CORPUS / "robots" / p.name).read_bytes()


# --- properties ----------------------------------------------------------------------------


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=2000))
def test_property_random_bytes_never_raise(data: bytes):
    r = parse_robots(data, BASE, max_bytes=1500)
    assert len(r.text.encode("utf-8", "surrogatepass")) <= 1500 * 2  # UTF-16 may grow in UTF-8
    for s in r.sitemaps:
        assert s.line >= 1
    assert isinstance(r.allowed("https://www.example.com/a"), bool)


robots_lines = st.lists(
    st.one_of(
        st.sampled_from(
            ["User-agent: *", "Disallow: /", "Allow: /a", "# c", "", "Sitemap:", "Crawl-delay: 5"]
        ),
        st.builds(
            lambda k, v, c: f"{k}{v}{c}",
            st.sampled_from(["Sitemap: ", "sitemap:", " SITEMAP : ", "site-map:", "Disallow: "]),
            st.text(max_size=40),
            st.sampled_from(["", " # comment", "#"]),
        ),
    ),
    max_size=30,
)


@settings(max_examples=500, deadline=None)
@given(robots_lines)
def test_property_text_robots(lines: list[str]):
    text = "\n".join(lines)
    r = parse_robots(text.encode("utf-8", "surrogatepass"), BASE)
    for s in r.sitemaps:
        assert "#" not in s.value
        assert s.value == s.value.strip(" \t")
    assert len(set(r.sitemap_urls)) == len(r.sitemap_urls)
    assert isinstance(r.allowed_for_google("https://www.example.com/x"), bool)


def test_a_crawl_delay_over_the_cap_is_said_as_cut() -> None:
    """Found from outside: "Crawl-delay 86400 s honoured (requests 60 s apart)" said it was
    honoured while 60 s were waited."""
    from sitemap_tui.engine.robots_gate import crawl_delay_said

    assert crawl_delay_said(2, 60) == "Crawl-delay 2 s honoured (requests 2 s apart)"
    assert crawl_delay_said(86400, 60) == "Crawl-delay 86400 s asked, at most 60 s waited (requests 60 s apart)"


def test_a_group_names_a_crawler_by_its_whole_product_token() -> None:
    """RFC 9309 §2.2.1, found from outside: protego took a "Bing" group for Bingbot, "GPT" for
    GPTBot and "Claude*" for ClaudeBot, and no "CCBot/2.0" group for CCBot. Googlebot-Image and
    Applebot follow Googlebot's group when none names them (Google's, Apple's documentation)."""
    robots = parse_robots(
        b"User-agent: *\nDisallow: /star/\n\nUser-agent: Googlebot\nDisallow: /g/\n\n"
        b"User-agent: Bing\nUser-agent: GPT\nUser-agent: Claude*\nDisallow: /\n\n"
        b"User-agent: CCBot/2.0\nDisallow: /cc/\n\nUser-agent: googlebot-news\nDisallow: /n/\n",
        "https://example.com/robots.txt")
    blocked = {agent: [p for p in ("/", "/star/x", "/g/x", "/cc/x", "/n/x")
                       if not robots.allowed(f"https://example.com{p}", agent)]
               for agent in ("Bingbot", "GPTBot", "ClaudeBot", "CCBot", "Googlebot", "Applebot",
                             "Googlebot-Image", "Googlebot-News", "Google-Extended", "bingbot")}
    assert blocked == {
        "Bingbot": ["/star/x"], "GPTBot": ["/star/x"], "ClaudeBot": ["/star/x"], "bingbot": ["/star/x"],
        "CCBot": ["/cc/x"], "Googlebot": ["/g/x"], "Applebot": ["/g/x"], "Googlebot-Image": ["/g/x"],
        "Googlebot-News": ["/n/x"], "Google-Extended": ["/star/x"],
    }
    # a crawler's digits are its name's (MJ12bot is no MJ13bot, 360Spider no 80legs), and two
    # groups naming one crawler are combined (RFC 9309 §2.2.1; found by a review)
    other = parse_robots(b"User-agent: 80legs\nDisallow: /\n\nUser-agent: MJ13bot\nDisallow: /\n\n"
                         b"User-agent: Googlebot\nDisallow: /private/\n\nUser-agent: Googlebot/2.1\nDisallow: /secret/\n\n"
                         b"User-agent: *\nDisallow: /cgi/\n", "https://example.com/robots.txt")
    assert [a for a in ("360Spider", "MJ12bot", "MJ13bot", "80legs") if not other.allowed("https://example.com/ok", a)] \
        == ["MJ13bot", "80legs"]
    assert not other.allowed("https://example.com/private/a", "Googlebot")
    assert not other.allowed("https://example.com/secret/b", "Googlebot")
    named = parse_robots(b"User-agent: bing\nCrawl-delay: 9\n\nUser-agent: *\nCrawl-delay: 2\n",
                         "https://example.com/robots.txt")
    assert named.crawl_delay("Bingbot") == 2.0  # the * group's, not "bing"'s

"""The per-entry rules' shortcuts (issue 19): fast URL splits and verdicts cached per distinct
value must answer exactly what the plain code answers, and a cached verdict must never carry
over to a different value, a different entry or a different file."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from sitemap_tui.engine import keys
from sitemap_tui.engine.model import Alternate, Entry, Image, Issue, NodeKind
from sitemap_tui.engine.sniff import ParseInfo
from sitemap_tui.engine.urlpolicy import canonical_host
from sitemap_tui.validate.checker import Checker, FileContext
from sitemap_tui.validate.rules.elements import _CLEAN_TAGS
from sitemap_tui.validate.rules.hreflang import cluster_verdict
from sitemap_tui.validate.rules.image import image_tags_verdict
from sitemap_tui.validate.urlcheck import (
    _BAD_CHAR_RE,
    _BAD_PCT_RE,
    _COMMON_RE,
    _HOSTPORT_RE,
    HTTP_SCHEMES,
    MAX_LOC_LEN,
    URI_RE,
    LocFinding,
    absolute_url_problem,
    analyze_loc,
    analyze_loc_full,
    bad_char,
    describe_char,
    split_hostport,
    split_uri,
    url_problem_and_host,
)

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
SITEMAP = "https://example.com/sitemap.xml"
PAGE = "https://example.com/page"

# shapes the fast split must agree with URI_RE on: the split points (?, #, /), empty parts,
# upper-case schemes (left to the regex), look-alike schemes, userinfo, ports, IPv6, non-ASCII
URLS = [
    "https://example.com/a/b?c=d#e",
    "https://example.com",
    "https://example.com/",
    "https://example.com?q",
    "https://example.com#f",
    "https://example.com/p#f?not-a-query",
    "https://example.com/p?q#f#g",
    "https://example.com/p?",
    "https://example.com/p#",
    "https://example.com/p?#",
    "http://user:pw@example.com:8080/p",
    "http://[::1]:80/p",
    "http://[::1/p",
    "http:///p",
    "http://",
    "https:",
    "http:/example.com/p",
    "HTTP://EXAMPLE.COM/P",
    "Https://example.com/",
    "httpx://example.com/",
    "https+x://example.com/",
    "ftp://example.com/f",
    "mailto:someone@example.com",
    "www.example.com:8080/page",
    "localhost:80",
    "/relative/path",
    "",
    "https://bücher.example/straße?ä=ö#ü",
    "https://exa mple.com/p q",
    "https://example.com/p%2",
    "https://example.com/p%zz",
    "https://example.com/line\nbreak",
    "https://example.com/" + "a" * (MAX_LOC_LEN + 5),
    "https://.example.com/",
    "https://example..com/",
    "https://example.com:99999/",
    "https://example.com:http/",
    "https://exa_mple.com/",
    "https://exa<mple.com/",
]


def _reference_url_problem_and_host(s: str) -> tuple[str | None, str | None]:
    """url_problem_and_host as it was before the fast split (URI_RE for every URL)."""
    if not s:
        return "empty", None
    if len(s) >= MAX_LOC_LEN:
        return f"{len(s):,} characters long (2,048 or more)", None
    m = URI_RE.match(s)
    if m is None or (m.group(2) is None and _HOSTPORT_RE.match(s)):
        return "not an absolute URL", None
    scheme = m.group(1).lower()
    if scheme not in HTTP_SCHEMES:
        return f"scheme {scheme[:20]!r} is not http or https", None
    auth = m.group(2)
    if not auth:
        return "no host", None
    bad = _BAD_CHAR_RE.search(s)
    if bad is not None:
        return f"contains {describe_char(bad.group())}", None
    if "%" in s and _BAD_PCT_RE.search(s):
        return "bad percent-encoding", None
    host, _, err = split_hostport(auth.rpartition("@")[2])
    return err, (None if err else canonical_host(host))


def _reference_absolute_url_problem(s: str, schemes: frozenset[str] = HTTP_SCHEMES) -> str | None:
    if not s:
        return "empty"
    m = URI_RE.match(s)
    if m is None or (m.group(2) is None and _HOSTPORT_RE.match(s)):
        return "not an absolute URL"
    scheme = m.group(1).lower()
    if scheme not in schemes:
        return f"scheme {scheme[:20]!r} is not {' or '.join(sorted(schemes))}"
    auth = m.group(2)
    if not auth:
        return "no host"
    return split_hostport(auth.rpartition("@")[2])[2]


@pytest.mark.parametrize("url", URLS)
def test_fast_split_answers_what_the_full_regex_answers(url: str) -> None:
    m = URI_RE.match(url)
    assert split_uri(url) == (None if m is None else m.groups())
    assert url_problem_and_host(url) == _reference_url_problem_and_host(url)
    assert absolute_url_problem(url) == _reference_absolute_url_problem(url)
    video = frozenset({"http", "https", "rtmp"})
    assert absolute_url_problem(url, video) == _reference_absolute_url_problem(url, video)


def test_host_verdict_is_per_host() -> None:
    # a good host first, then bad ones behind the same cache: each gets its own verdict
    assert url_problem_and_host("https://Example.COM/a") == (None, "example.com")
    assert url_problem_and_host("https://example.com:99999/a")[0] == "port 99999 out of range"
    assert url_problem_and_host("https://bücher.example/a") == (None, "xn--bcher-kva.example")
    assert url_problem_and_host("https://example.com/b") == (None, "example.com")


def run(entries: list[Entry], *, checker: Checker | None = None) -> list[Issue]:
    checker = checker or Checker()
    ctx = FileContext(node_id=7, url=SITEMAP, kind=NodeKind.URLSET, now=NOW)
    checker.begin_file(ctx)
    out: list[Issue] = []
    for e in entries:
        out += checker.check_entry(ctx, e)
    out += checker.end_file(ctx, ParseInfo(), None)
    return out


def entry(n: int, **kw: object) -> Entry:
    e = Entry(loc=f"{PAGE}/{n}", line=n)
    for k, v in kw.items():
        setattr(e, k, v)
    return e


def test_clean_tag_sequence_cache_does_not_hide_a_different_sequence() -> None:
    clean = ["loc", "lastmod", "image:image", "xhtml:link"]
    repeated = ["loc", "lastmod", "image:image", "lastmod"]
    issues = run([entry(1, tags=clean), entry(2, tags=repeated), entry(3, tags=clean), entry(4, tags=repeated)])
    assert tuple(clean) in _CLEAN_TAGS
    assert tuple(repeated) not in _CLEAN_TAGS
    assert [(i.rule, i.line) for i in issues if i.rule == "core-element-repeated"] == [
        ("core-element-repeated", 2),
        ("core-element-repeated", 4),
    ]


def test_sequences_with_a_per_file_verdict_are_never_cached() -> None:
    # a foreign tag's verdict depends on the file (its namespaces, its tallies): each file
    # must count it again, and mobile:mobile is a reminder counted per file
    foreign = ["loc", "{http://unknown.example/ns}thing"]
    mobile = ["loc", "mobile:mobile"]
    for _ in range(2):
        issues = run([entry(1, tags=foreign), entry(2, tags=mobile)])
        assert {"ext-namespace-unknown", "mobile-extension-obsolete"} <= {i.rule for i in issues}
    assert tuple(foreign) not in _CLEAN_TAGS
    assert tuple(mobile) not in _CLEAN_TAGS


def test_image_tag_verdicts_are_per_sequence() -> None:
    assert image_tags_verdict(("loc",)) == (False, ())
    assert image_tags_verdict(("loc", "title")) == (False, ("title",))
    assert image_tags_verdict(("title", "loc")) == (True, ("title",))
    assert image_tags_verdict(("image:extra", "loc", "caption", "license")) == (False, ("caption", "license"))

    def img(*tags: str) -> Image:
        i = Image(loc="https://example.com/i.jpg", line=1)
        i.tags = list(tags)
        i.title = "t" if "title" in tags else None
        return i

    issues = run([entry(1, images=[img("loc", "title")]), entry(2, images=[img("title", "loc")]),
                  entry(3, images=[img("loc", "title")])])
    assert [i.line for i in issues if i.rule == "image-element-order"] == [1]
    deprecated = [i for i in issues if i.rule == "image-deprecated-tags"]
    assert len(deprecated) == 1 and "3" in deprecated[0].message  # one reminder, 3 images


def test_hreflang_cluster_verdicts_are_per_code_set() -> None:
    assert cluster_verdict((("en", "en"), ("de", "de"))) == (True, ())
    assert cluster_verdict((("en", "en"), ("x-default", "x-default"))) == (False, ())
    assert cluster_verdict((("en-us", "en-US"), ("en-gb", "en-GB"))) == (True, (("en", "en-GB, en-US"),))
    assert cluster_verdict((("en-us", "en-US"), ("en-gb", "en-GB"), ("en", "en"))) == (True, ())
    # the spelling is part of the key: the finding quotes the codes as written
    assert cluster_verdict((("en-us", "EN-us"), ("en-gb", "en-gb"))) == (True, (("en", "EN-us, en-gb"),))


def test_hreflang_cluster_cache_does_not_leak_between_entries() -> None:
    def links(n: int, *codes: str) -> list[Alternate]:
        return [Alternate("alternate", c, f"{PAGE}/{n}" if i == 0 else f"{PAGE}/{n}-{c}", n)
                for i, c in enumerate(codes)]

    issues = run([
        entry(1, alternates=links(1, "en-US", "en-GB")),
        entry(2, alternates=links(2, "en-US", "en-GB", "en", "x-default")),
        entry(3, alternates=links(3, "en-US", "en-GB")),
        entry(4, alternates=links(4, "fr-FR", "fr-CA", "x-default")),
    ])
    by_rule: dict[str, list[Issue]] = {}
    for i in issues:
        by_rule.setdefault(i.rule, []).append(i)
    assert [i.line for i in by_rule["hreflang-x-default-missing"]] == [1]
    assert "2" in by_rule["hreflang-x-default-missing"][0].message  # entries 1 and 3
    generic = sorted((i.line, i.message) for i in by_rule["hreflang-no-generic-language"])
    assert [line for line, _ in generic] == [1, 4]
    assert "'en'" in generic[0][1] and "'fr'" in generic[1][1]


def test_link_columns_match_the_two_step_answer() -> None:
    cases = [
        ("alternate", "en", "https://example.com/en"),
        (" Alternate ", " EN-us ", "https://example.com/en-us"),
        ("alternate", "de", "https://Example.com/./de"),
        ("alternate", "", "https://example.com/x"),
        ("alternate", "fr", "not a url"),
        ("canonical", "fr", "https://example.com/fr"),
        (None, "fr", "https://example.com/fr"),
        ("alternate", None, "https://example.com/fr"),
        ("alternate", "fr", None),
    ]
    for rel, lang, href in cases:
        link = keys.hreflang_link(rel, lang, href)
        expected = (None, None, None) if link is None else (link, link[0], keys.stored_key(link[1], href))
        assert keys.link_columns(rel, lang, href) == expected


def test_fast_http_authority_pattern_stays_anchored() -> None:
    # the fast path must never take a URL whose scheme only starts like http
    for url in ("httpsx://a/b", "http-x://a/b", "httpss://a/b"):
        assert split_uri(url) == URI_RE.match(url).groups()  # type: ignore[union-attr]
        assert re.match(r"https?://", url) is None


def test_location_verdicts_follow_the_files_final_url() -> None:
    # verdicts are cached per URL shape against the file's base: a final URL that changes
    # mid-file must not keep the verdicts made against the earlier one
    checker = Checker()
    ctx = FileContext(node_id=7, url=SITEMAP, final_url="https://one.example/sitemap.xml",
                      kind=NodeKind.URLSET, now=NOW)
    checker.begin_file(ctx)
    out: list[Issue] = []
    out += checker.check_entry(ctx, Entry(loc="https://other.example/a", line=1))
    out += checker.check_entry(ctx, Entry(loc="https://other.example/b", line=2))
    ctx.final_url = "https://other.example/sitemap.xml"
    out += checker.check_entry(ctx, Entry(loc="https://other.example/c", line=3))
    out += checker.check_entry(ctx, Entry(loc="https://one.example/d", line=4))
    out += checker.check_entry(ctx, Entry(loc="https://one.example/e", line=5))
    out += checker.end_file(ctx, ParseInfo(), None)
    hosts = sorted((i.line, i.message) for i in out if i.rule == "location-different-host")
    assert [line for line, _ in hosts] == [1, 4]
    assert "2" in hosts[0][1] and "other.example" in hosts[0][1]  # entries 1 and 2 only
    assert "one.example" in hosts[1][1] and "2" in hosts[1][1]  # entries 4 and 5


def test_location_verdicts_are_per_directory_and_port() -> None:
    checker = Checker()
    ctx = FileContext(node_id=7, url="https://example.com/blog/sitemap.xml", kind=NodeKind.URLSET, now=NOW)
    checker.begin_file(ctx)
    out: list[Issue] = []
    for n, loc in enumerate(["https://example.com/blog/a", "https://example.com/shop/b",
                             "https://example.com:8443/blog/c", "http://example.com/blog/d",
                             "https://example.com/blog/e", "https://example.com/shop/f"], 1):
        out += checker.check_entry(ctx, Entry(loc=loc, line=n))
    out += checker.end_file(ctx, ParseInfo(), None)
    found = sorted((i.rule, i.line, i.message) for i in out if i.rule.startswith("location-"))
    assert [(rule, line) for rule, line, _ in found] == [
        ("location-different-scheme", 4),
        ("location-outside-path", 2),
        ("location-port-mismatch", 3),
    ]
    assert "2" in found[1][2]  # /shop/b and /shop/f


def test_ascii_bad_char_search_finds_what_the_full_set_finds() -> None:
    # every ASCII character, alone and inside a URL, then non-ASCII strings (the full set)
    samples = [chr(c) for c in range(128)]
    samples += [f"https://example.com/a{chr(c)}b" for c in range(128)]
    samples += ["https://example.com/\u00a0", "https://example.com/\u0085x", "https://bücher.example/ x",
                "https://example.com/\u3000", "https://example.com/\ufffe", "https://ex.com/ü<"]
    for s in samples:
        full = _BAD_CHAR_RE.search(s)
        fast = bad_char(s)
        assert (None if full is None else (full.start(), full.group())) == (
            None if fast is None else (fast.start(), fast.group())
        ), repr(s)


# URLs of the common shape (``_COMMON_RE``) and their near misses: each character that takes a
# URL off the shortcut, in the host, the path and the query, and each verdict the shortcut
# still gives itself (private and staging hosts, invalid host names, dot segments)
_COMMON_SHAPES = [
    "https://www.example.com/products/fast-steel-victor-red-0",
    "http://example.com/a/b.html",
    "https://example.com/",
    "https://example.com/a@b:c!$&'()*+,=~_",
    "https://example.com/p?ref=sitemap&page=11&sort=asc",
    "https://example.com/p?utm_source=x&gclid=1",
    "https://example.com/p?sid=1",
    "https://example.com/p;jsessionid=1",
    "https://example.com/a?b=c/d?e",
    "https://example.com/p?",
    "https://example.com/a/./b",
    "https://example.com/a/../b",
    "https://example.com/.hidden/x",
    "https://example.com/a/.",
    "https://example.com/a.b/c..d/e.",
    "https://localhost/a",
    "https://app.localhost/a",
    "https://printer.local/a",
    "https://staging.example.com/a",
    "https://dev.example.com/a",
    "http://10.0.0.1/x",
    "http://127.0.0.1/x",
    "http://169.254.1.1/x",
    "http://8.8.8.8/x",
    "http://1.2.3/x",
    "https://example.com./a",
    "https://-example.com/a",
    "https://.example.com/a",
    "https://example..com/a",
    "https://a/b",
    "https://example.com/" + "a" * (MAX_LOC_LEN - 20),
    "https://example.com/" + "a" * (MAX_LOC_LEN - 19),
    "https://example.com/" + "a" * (MAX_LOC_LEN - 21) + "?",
]
_COMMON_SHAPES += [f"https://example.com/a{chr(c)}b" for c in range(128)]
_COMMON_SHAPES += [f"https://example.com/a?b{chr(c)}c" for c in range(128)]
_COMMON_SHAPES += [f"https://exa{chr(c)}mple.com/a" for c in range(128)]
_COMMON_SHAPES += [f"http{s}://example.com/a{c}" for s in ("", "s", "S") for c in ("é", "%C3%A9", "%c3%a9", "#f", "")]


@pytest.mark.parametrize("url", URLS + _COMMON_SHAPES)
def test_common_shape_shortcut_answers_what_the_full_analysis_answers(url: str) -> None:
    fast: list[LocFinding] = []
    full: list[LocFinding] = []
    assert analyze_loc(url, fast) == analyze_loc_full(url, full)
    assert fast == full
    assert url_problem_and_host(url) == _reference_url_problem_and_host(url)
    assert absolute_url_problem(url) == _reference_absolute_url_problem(url)


def test_common_shape_shortcut_is_taken_for_plain_urls() -> None:
    # the equivalence above must cover the shortcut itself, not only the full path
    taken = [u for u in _COMMON_SHAPES if _COMMON_RE.match(u)]
    assert len(taken) > 100
    assert _COMMON_RE.match("https://www.example.com/products/fast-steel-victor-red-0")
    assert _COMMON_RE.match("https://example.com/p?ref=sitemap&page=11") is not None
    for near in ("https://Example.com/a", "HTTPS://example.com/a", "https://example.com:8080/a",
                 "https://u@example.com/a", "https://example.com", "https://example.com/a%20b",
                 "https://example.com/a#f", "https://example.com/a;b", "https://example.com/é"):
        assert _COMMON_RE.match(near) is None, near


def test_per_file_reminders_count_every_url_and_keep_the_first() -> None:
    # location and image-host reminders count on without re-merging their fields: each file
    # starts again from its own first entry
    def other(n: int, host: str) -> Entry:
        e = Entry(loc=f"https://{host}/p{n}", line=n)
        e.images = [Image(loc=f"https://img.example.net/{n}-{k}.jpg", line=n + k + 1) for k in range(2)]
        return e

    for _ in range(2):
        issues = run([entry(1), other(2, "a.example.org"), other(5, "b.example.org"), other(8, "a.example.org")])
        hosts = sorted((i.line, i.url, i.message.split(" ")[0]) for i in issues if i.rule == "location-different-host")
        assert hosts == [(2, "https://a.example.org/p2", "2"), (5, "https://b.example.org/p5", "1")]
        images = [i for i in issues if i.rule == "image-loc-other-host"]
        assert [(i.line, i.url) for i in images] == [(3, "https://a.example.org/p2")]
        assert "images: 6" in images[0].message


def test_urls_only_keeps_an_all_http_batch_as_it_is_and_maps_the_others() -> None:
    from sitemap_tui.engine.filejob import urls_only

    plain = [Entry(loc=f"{PAGE}/{n}", line=n) for n in range(3)] + [Entry(loc="http://example.com/x", line=4)]
    kept, kept_at, resolved = urls_only(plain, SITEMAP)
    assert kept is plain and kept_at is None and resolved == 0
    # any other loc in the batch takes the full pass: blanks dropped, relative locs resolved,
    # an upper-case scheme or a leading space kept as written or resolved as before
    for odd in ("", "   ", None, "rel/page", "HTTPS://example.com/U", " https://example.com/s", "mailto:x@y"):
        batch = [Entry(loc=f"{PAGE}/a", line=1), Entry(loc=odd, line=2), Entry(loc=f"{PAGE}/b", line=3)]
        kept, kept_at, resolved = urls_only(batch, SITEMAP)
        assert kept_at is not None and resolved == (odd in ("rel/page", " https://example.com/s"))
        if odd is None or not odd.strip():
            assert [e.line for e in kept] == [1, 3] and kept_at == {0: 0, 2: 1}
        else:
            assert [e.line for e in kept] == [1, 2, 3] and kept_at == {0: 0, 1: 1, 2: 2}
    assert [e.loc for e in urls_only([Entry(loc="rel/page", line=1)], SITEMAP)[0]] == ["https://example.com/rel/page"]

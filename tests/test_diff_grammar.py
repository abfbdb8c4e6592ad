"""The pieces of ``sitemap-tui diff`` that are plain functions: the --fail-if grammar (shared with
later commands), the --map-host rewrite and how sitemap files are keyed."""

from __future__ import annotations

import pytest

from sitemap_tui.cli import failif
from sitemap_tui.engine.store.diff import NodeRow
from sitemap_tui.session.diff import ALIASES, SUMMARY_KEYS, HostMap, file_keys
from sitemap_tui.session.exits import UsageError

COUNTS = dict.fromkeys(SUMMARY_KEYS, 0) | {"urls_removed": 100, "issues_new": 1}


@pytest.mark.parametrize(("text", "met"), [
    ("removed", True), ("removed>100", False), ("removed>=100", True), ("removed == 100", True),
    ("removed=100", True), ("removed!=100", False), ("removed<101", True), ("removed<=99", False),
    ("urls_removed > 99", True), ("issues_new", True), ("issues_resolved", False), ("added", False),
    (" sitemaps_failing ", False),
])
def test_conditions(text: str, met: bool) -> None:
    condition = failif.parse(text, SUMMARY_KEYS, ALIASES)
    assert condition.met(COUNTS) is met
    assert failif.met([condition], COUNTS) == ([condition] if met else [])


@pytest.mark.parametrize("text", ["", "removed>", ">5", "removed>>1", "removed > -1", "removed>1.5",
                                  "removed and added", "Removed", "removed 5"])
def test_malformed_conditions(text: str) -> None:
    with pytest.raises(UsageError, match="expected NAME or NAME OP NUMBER"):
        failif.parse(text, SUMMARY_KEYS, ALIASES)


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(UsageError, match=r"unknown name 'lost' \(known: added, removed, moved, urls_added"):
        failif.parse("lost>1", SUMMARY_KEYS, ALIASES)


def test_map_host() -> None:
    mapped = HostMap.parse(["old.example=new.example", "a.example:8080=b.example"])
    assert mapped("https://old.example/x?q=1") == "https://new.example/x?q=1"
    assert mapped("https://old.example:8443/x") == "https://new.example:8443/x"  # the port stays
    assert mapped("https://old.example") == "https://new.example"
    assert mapped("https://a.example:8080/x") == "https://b.example/x"
    assert mapped("https://a.example/x") == "https://a.example/x"  # host:port maps that port only
    assert mapped("https://sub.old.example/x") == "https://sub.old.example/x"
    assert mapped("./sitemap.xml") == "./sitemap.xml"
    assert mapped(None) is None
    # a key drops the scheme's default port (found by a review: "old.example:443" matched nothing)
    default = HostMap.parse(["old.example:443=new.example:443", "p.example:80=q.example:8080"])
    assert default("https://old.example/x") == "https://new.example/x"
    assert default("http://old.example/x") == "http://old.example/x"  # port 80: not that one
    assert default("https://old.example:8443/x") == "https://old.example:8443/x"
    assert default("http://p.example/x") == "http://q.example:8080/x"
    # a NEW that names its port: that port, not the key's (found by a review: "new.example:443:8443")
    assert HostMap.parse(["old.example=new.example:9000"])("https://old.example:8443/x") == "https://new.example:9000/x"
    assert HostMap.parse(["old.example=new.example:443"])("https://old.example/x") == "https://new.example/x"
    # a finding's words name hosts too
    words = HostMap.parse(["127.0.0.1:9221=localhost:9221", "old.example=new.example"]).in_text(
        "not the sitemap's host '127.0.0.1:9221'; old.example:8080, sub.old.example, old.example.org")
    assert words == "not the sitemap's host 'localhost:9221'; new.example:8080, sub.old.example, old.example.org"
    with pytest.raises(UsageError):
        HostMap.parse(["old.example"])
    with pytest.raises(UsageError):
        HostMap.parse(["old.example=new example"])


def test_file_keys() -> None:
    # a folder's files by their path under it; a web tree's by its URL key
    local = [NodeRow(1, "file:///srv/public/", "directory", None),
             NodeRow(2, "file:///srv/public/sitemap.xml", "index", 1),
             NodeRow(3, "file:///srv/public/sub/a%20b.xml", "urlset", 2),
             NodeRow(4, "https://cdn.example/x.xml", "urlset", 2)]
    assert dict(file_keys(local)) == {1: "./", 2: "./sitemap.xml", 3: "./sub/a b.xml", 4: "https://cdn.example/x.xml"}
    one = [NodeRow(1, "file:///srv/build/sitemap.xml", "urlset", None)]
    assert dict(file_keys(one)) == {1: "./sitemap.xml"}
    web = [NodeRow(1, "HTTPS://Example.COM:443/./sitemap.xml", "urlset", None)]
    assert dict(file_keys(web)) == {1: "https://example.com/sitemap.xml"}


def test_words_of_leaves_out_counts_not_the_digits_of_names() -> None:
    """A sampled finding is matched by its words, its counts left out; the digits of a host, an
    address or a port stay (found by a review: cdn1 and cdn2, :8080 and :7070 read as one)."""
    from sitemap_tui.engine.findings import words_of

    assert words_of("URLs without <lastmod>: 1,234 of 5000 (12.5%)") == "URLs without <lastmod>: # of # (#%)"
    assert words_of("images on host 'cdn1.example', pages on '10.0.0.1:8080'") == \
        "images on host 'cdn1.example', pages on '10.0.0.1:8080'"

"""Cross-file rules over small stores built directly: each rule triggered once, plus a near miss."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_tui.engine.model import (
    Alternate,
    Entry,
    FoundBy,
    Issue,
    Node,
    NodeKind,
    NodeState,
    Severity,
    Video,
)
from sitemap_tui.engine.robots import parse_robots
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store import crossfile as queries_mod
from sitemap_tui.engine.store.crossfile import CrossFileQueries
from sitemap_tui.validate import rules as rules_mod
from sitemap_tui.validate.crossfile import CROSSFILE_RULES, run_crossfile


@pytest.fixture(autouse=True)
def strict_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules_mod, "STRICT_MESSAGES", True)


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "x.db")
    s.add_node(
        Node(id=1, url="https://a.com/sitemap_index.xml", kind=NodeKind.INDEX, state=NodeState.DONE)
    )
    yield s
    s.close()


def add_file(
    store: Store, name: str, *entries: Entry | str, kind: NodeKind = NodeKind.URLSET
) -> int:
    nid = store.next_node_id()
    url = name if "://" in name else f"https://a.com/{name}"
    store.add_node(
        Node(
            id=nid,
            url=url,
            kind=kind,
            state=NodeState.DONE,
            found_by=FoundBy.INDEX,
            parent_id=1,
            depth=1,
        )
    )
    items = [Entry(loc=e, line=i + 3) if isinstance(e, str) else e for i, e in enumerate(entries)]
    store.add_entries(nid, items)
    return nid


def E(loc: str, **kw) -> Entry:  # noqa: N802 - short test helper
    return Entry(loc=loc, line=kw.pop("line", 3), **kw)


def alt(loc: str, links: dict[str, str]) -> Entry:
    return Entry(
        loc=loc,
        line=3,
        alternates=[Alternate("alternate", lang, href) for lang, href in links.items()],
    )


EN, DE, FR = "https://a.com/en", "https://a.com/de", "https://a.com/fr"


def run(store: Store, *rules: str, **kw) -> list:
    run_crossfile(store, enabled=set(rules) if rules else None, **kw)
    store.commit()
    store.begin()
    return store.issues()


def of(issues: list, rule: str) -> list:
    return [i for i in issues if i.rule == rule]


# -- keys ------------------------------------------------------------------------------------
def test_rows_carry_their_keys(store: Store) -> None:
    """The row builder stores each key once: NULL where the URL is its own key."""
    nid = add_file(
        store,
        "a.xml",
        Entry(loc="https://a.com/en", line=3,
              alternates=[Alternate("alternate", "EN", " https://a.com/en"), Alternate("alternate", "de", "https://a.com/de"),
                          Alternate("canonical", None, "https://a.com/x"), Alternate("alternate", "fr", "/fr"),
                          Alternate("alternate", None, "https://m.a.com/en", 4, "only screen and (max-width: 640px)")]),
        " HTTPS://A.com/p ",
        "/relative",
    )
    rows = store.conn.execute("SELECT loc, key, alt_n FROM entries WHERE node_id=? ORDER BY id", (nid,)).fetchall()
    assert rows == [("https://a.com/en", None, 2), (" HTTPS://A.com/p ", "https://a.com/p", 0), ("/relative", "", 0)]
    links = store.conn.execute("SELECT lang, tgt, media FROM alternates ORDER BY rowid").fetchall()
    assert links == [("en", "https://a.com/en", None), ("de", None, None), (None, None, None), (None, None, None),
                     (None, None, "only screen and (max-width: 640px)")]
    detail = store.entry_detail(store.conn.execute("SELECT MIN(id) FROM entries").fetchone()[0])
    assert detail["alternates"][-1] == ("alternate", None, "https://m.a.com/en", 4, "only screen and (max-width: 640px)")


def _hreflang_set(store: Store) -> None:
    full = {"en": EN, "de": DE, "fr": FR}
    add_file(store, "a.xml", alt(EN, full), alt(" " + DE, full), alt(FR, {"en": EN, "fr": FR}), "https://a.com/p")
    add_file(store, "b.xml", alt("https://a.com/x", {"en": " HTTPS://a.com/x", "de": "https://a.com/gone"}), "https://a.com/p")


def test_keys_filled_in_for_rows_stored_without_them(store: Store, tmp_path: Path) -> None:
    """A store written before the keys were computed at parse time (their columns NULL) gets
    them filled in by the cross-file pass: the same values, the same issues."""
    _hreflang_set(store)
    computed = store.conn.execute("SELECT id, key, alt_n, alt_h FROM entries ORDER BY id").fetchall()
    links = store.conn.execute("SELECT rowid, lang, tgt FROM alternates ORDER BY rowid").fetchall()
    fresh = [(i.rule, i.url, i.message) for i in run(store)]
    assert {r for r, _, _ in fresh} >= {
        "hreflang-no-return-link", "hreflang-cluster-inconsistent", "hreflang-target-not-in-sitemaps",
        "cross-duplicate-url",
    }
    store.conn.execute("UPDATE entries SET key=NULL, alt_n=NULL, alt_h=NULL")
    store.conn.execute("UPDATE alternates SET lang=NULL, tgt=NULL")
    assert [(i.rule, i.url, i.message) for i in run(store)] == fresh
    assert store.conn.execute("SELECT id, key, alt_n, alt_h FROM entries ORDER BY id").fetchall() == computed
    assert store.conn.execute("SELECT rowid, lang, tgt FROM alternates ORDER BY rowid").fetchall() == links


def test_store_of_an_earlier_version_gains_the_key_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    s = Store(path)
    s.add_node(Node(id=1, url="https://a.com/sitemap_index.xml", kind=NodeKind.INDEX, state=NodeState.DONE))
    _hreflang_set(s)
    fresh = [(i.rule, i.url, i.message) for i in run(s)]
    # what an earlier version wrote: no key columns at all
    s.conn.execute("DROP INDEX entries_nokey")
    for table, column in (("entries", "key"), ("entries", "alt_n"), ("entries", "alt_h"), ("alternates", "lang"),
                          ("alternates", "tgt"), ("alternates", "media")):
        s.conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    s.conn.execute("DELETE FROM meta WHERE key='signature_key'")
    s.close()
    s = Store(path)
    try:
        assert [(i.rule, i.url, i.message) for i in run(s)] == fresh
    finally:
        s.close()


# -- duplicates ------------------------------------------------------------------------------
def test_duplicate_url_across_files(store: Store) -> None:
    a = add_file(store, "a.xml", "https://a.com/p1", "https://a.com/p2")
    b = add_file(store, "b.xml", "https://a.com/p3", "https://A.com/p1")  # same URL, host case
    issues = of(run(store, "cross-duplicate-url"), "cross-duplicate-url")
    assert len(issues) == 1
    (i,) = issues
    assert i.node_id == b and i.url == "https://A.com/p1" and i.line == 4
    assert "https://a.com/a.xml (line 3)" in i.message
    assert i.severity == "info"
    assert store.entry_detail(i.entry_id)["entry"].n_issues == 1
    assert a != b


def test_duplicate_within_one_file_is_not_cross_file(store: Store) -> None:
    add_file(store, "a.xml", "https://a.com/p1", "https://a.com/p1")
    add_file(store, "b.xml", "https://a.com/p2")
    assert of(run(store, "cross-duplicate-url"), "cross-duplicate-url") == []


def test_duplicate_reported_per_extra_file(store: Store) -> None:
    add_file(store, "a.xml", "https://a.com/p1")
    add_file(store, "b.xml", "https://a.com/p1", "https://a.com/p1")  # twice in b: once
    add_file(store, "c.xml", "https://a.com/p1")
    assert len(of(run(store, "cross-duplicate-url"), "cross-duplicate-url")) == 2


def _listed(store: Store, nid: int, name: str, line: int | None, parent: int = 1) -> None:
    store.add_node(
        Node(id=nid, url=f"https://a.com/{name}", kind=NodeKind.URLSET, state=NodeState.DONE,
             found_by=FoundBy.INDEX, parent_id=parent, depth=1, line=line)
    )


@pytest.mark.parametrize("ids_follow_the_listing", [True, False])
def test_duplicate_first_is_the_file_listed_first_not_the_first_parsed(
    store: Store, ids_follow_the_listing: bool
) -> None:
    """Which copy is "first" follows the listing (the tree, then the line that lists a file),
    not the order the parsed rows arrived in, which varies with the files in flight."""
    a, b = (2, 3) if ids_follow_the_listing else (3, 2)  # a grandchild's id is its arrival
    _listed(store, a, "a.xml", line=3)
    _listed(store, b, "b.xml", line=4)
    day = datetime(2024, 1, 1, tzinfo=UTC)
    later = Entry(loc="https://a.com/p1", line=7, lastmod_raw="2024-01-02", lastmod=day + timedelta(days=1))
    store.add_entries(b, [later])  # parsed first
    store.add_entries(a, [Entry(loc="https://a.com/p1", line=5, lastmod_raw="2024-01-01", lastmod=day)])
    found = run(store, "cross-duplicate-url", "cross-duplicate-conflicting")
    for rule in ("cross-duplicate-url", "cross-duplicate-conflicting"):
        (issue,) = of(found, rule)
        assert issue.node_id == b and issue.line == 7, rule
        assert "https://a.com/a.xml (line 5)" in issue.message


@pytest.mark.parametrize("ids_follow_the_listing", [True, False])
def test_over_the_cap_the_first_listed_findings_are_kept(store: Store, ids_follow_the_listing: bool) -> None:
    """A rule over its cap keeps the findings listed first (files in the listing's order, then
    each file's own), not the lowest entry ids: with several workers those follow the order the
    rows arrived in, and which 3 of 8 were listed changed from run to run."""
    first, a, b = (2, 3, 4) if ids_follow_the_listing else (4, 3, 2)
    _listed(store, first, "first.xml", line=3)
    _listed(store, a, "a.xml", line=4)
    _listed(store, b, "b.xml", line=5)
    urls = [f"https://a.com/p{i}" for i in range(4)]
    for nid in (first, a, b) if ids_follow_the_listing else (b, a, first):  # parsed in this order
        store.add_entries(nid, [E(u, line=10 + i) for i, u in enumerate(urls)])
    rf = parse_robots(b"User-agent: *\nDisallow: /p\n", "https://a.com/robots.txt")
    found = run(store, "cross-duplicate-url", "robots-url-disallowed", cap=3,
                robots={"https://a.com/robots.txt": rf})
    for rule, nid, more in (("cross-duplicate-url", a, 5), ("robots-url-disallowed", first, 9)):
        kept = sorted((i.node_id, i.line) for i in of(found, rule) if i.line is not None)
        assert kept == [(nid, 10), (nid, 11), (nid, 12)], rule  # a is listed before b
        (summary,) = [i for i in of(found, rule) if i.line is None]
        assert f"{more} more {rule} issues not listed" in summary.message
    counts = {rule: n for rule, _, n in store.rule_counts()}
    assert counts["cross-duplicate-url"] == 3 + 5 and counts["robots-url-disallowed"] == 3 + 9


def test_duplicate_conflicting_lastmod_priority_changefreq(store: Store) -> None:
    t = datetime(2024, 5, 1, tzinfo=UTC)
    add_file(
        store,
        "a.xml",
        E("https://a.com/p1", lastmod=t, lastmod_raw="2024-05-01"),
        E("https://a.com/p2", priority=0.5, priority_raw="0.5"),
        E("https://a.com/p3", changefreq="daily", changefreq_raw="daily"),
    )
    add_file(
        store,
        "b.xml",
        E("https://a.com/p1", lastmod=t + timedelta(days=30), lastmod_raw="2024-05-31"),
        E("https://a.com/p2", priority=0.8, priority_raw="0.8"),
        E("https://a.com/p3", changefreq="weekly", changefreq_raw="weekly"),
    )
    issues = of(run(store, "cross-duplicate-conflicting"), "cross-duplicate-conflicting")
    assert [i.url for i in issues] == ["https://a.com/p1", "https://a.com/p2", "https://a.com/p3"]
    assert "lastmod" in issues[0].message and "2024-05-31" in issues[0].message
    assert "priority" in issues[1].message
    assert "changefreq" in issues[2].message


def test_duplicate_same_instant_other_format_is_not_conflicting(store: Store) -> None:
    t = datetime(2024, 5, 1, tzinfo=UTC)
    add_file(store, "a.xml", E("https://a.com/p1", lastmod=t, lastmod_raw="2024-05-01"))
    add_file(
        store,
        "b.xml",
        E("https://a.com/p1", lastmod=t, lastmod_raw="2024-05-01T00:00:00Z"),
        E("https://a.com/p2", lastmod=t),
    )  # missing on one side is not a conflict either
    add_file(store, "c.xml", E("https://a.com/p2"))
    issues = run(store, "cross-duplicate-conflicting", "cross-duplicate-url")
    assert of(issues, "cross-duplicate-conflicting") == []
    assert len(of(issues, "cross-duplicate-url")) == 2


def test_duplicate_feed_date_is_not_a_conflicting_lastmod(store: Store) -> None:
    t = datetime(2024, 5, 1, tzinfo=UTC)
    add_file(store, "feed.rss", E("https://a.com/post", lastmod=t), kind=NodeKind.RSS)
    add_file(store, "b.xml", E("https://a.com/post", lastmod=t + timedelta(days=9)))
    issues = run(store, "cross-duplicate-conflicting", "cross-duplicate-url")
    assert [i.rule for i in issues] == ["cross-duplicate-url"]


def test_duplicate_conflicting_hreflang_sets(store: Store) -> None:
    add_file(
        store,
        "a.xml",
        alt("https://a.com/en", {"en": "https://a.com/en", "de": "https://a.com/de"}),
    )
    add_file(
        store,
        "b.xml",
        alt("https://a.com/en", {"en": "https://a.com/en", "fr": "https://a.com/fr"}),
    )
    add_file(store, "c.xml", alt("https://a.com/x", {"en": "https://a.com/x"}))
    add_file(store, "d.xml", alt("https://a.com/x", {"en": "https://a.com/x"}))
    issues = of(run(store, "cross-duplicate-conflicting"), "cross-duplicate-conflicting")
    assert len(issues) == 1 and "hreflang set" in issues[0].message


def test_cap_and_summary(store: Store) -> None:
    add_file(store, "a.xml", *[f"https://a.com/p{i}" for i in range(5)])
    add_file(store, "b.xml", *[f"https://a.com/p{i}" for i in range(5)])
    run_crossfile(store, enabled={"cross-duplicate-url"}, cap=2)
    issues = of(store.issues(), "cross-duplicate-url")
    assert len(issues) == 3
    summary = [i for i in issues if i.entry_id is None]
    assert len(summary) == 1 and "3 more" in summary[0].message


def test_rerun_replaces_previous_issues(store: Store) -> None:
    add_file(store, "a.xml", "https://a.com/p1")
    b = add_file(store, "b.xml", "https://a.com/p1")
    store.add_issues([Issue("index-cycle", Severity.ERROR, "cycle", node_id=b)])
    first = run(store)
    second = run(store)
    assert len(first) == len(second)
    assert len(of(second, "cross-duplicate-url")) == 1
    assert len(of(second, "index-cycle")) == 1  # the explorer's, untouched, not repeated
    eid = of(second, "cross-duplicate-url")[0].entry_id
    assert store.entry_detail(eid)["entry"].n_issues == 1
    assert "index-cycle" not in CROSSFILE_RULES


def test_enabled_filters_rules(store: Store) -> None:
    add_file(store, "a.xml", "https://a.com/p1", "http://a.com/x")
    add_file(store, "b.xml", "https://a.com/p1")
    issues = run(store, "cross-mixed-scheme")
    assert {i.rule for i in issues} == {"cross-mixed-scheme"}
    assert run_crossfile(store, enabled=set()) == 0


# -- hosts -----------------------------------------------------------------------------------
def test_mixed_scheme(store: Store) -> None:
    add_file(store, "a.xml", "https://a.com/1", "https://a.com/2", "http://a.com/3")
    issues = of(run(store, "cross-mixed-scheme"), "cross-mixed-scheme")
    assert len(issues) == 1
    assert issues[0].url == "http://a.com/3" and "'a.com'" in issues[0].message


def test_mixed_scheme_near_miss(store: Store) -> None:
    add_file(store, "a.xml", "https://a.com/1", "http://b.a.com/2", "https://a.com:8443/3")
    assert of(run(store, "cross-mixed-scheme"), "cross-mixed-scheme") == []


def test_mixed_www(store: Store) -> None:
    add_file(store, "a.xml", "https://www.a.com/1", "https://www.a.com/2")
    add_file(store, "b.xml", "https://a.com/3")
    issues = of(run(store, "cross-mixed-www"), "cross-mixed-www")
    assert len(issues) == 1
    assert issues[0].url == "https://a.com/3"
    assert "'a.com'" in issues[0].message and "'www.a.com'" in issues[0].message


def test_mixed_www_near_miss(store: Store) -> None:
    add_file(store, "a.xml", "https://www.a.com/1", "https://shop.a.com/2", "https://www.b.com/")
    assert of(run(store, "cross-mixed-www"), "cross-mixed-www") == []


def test_mobile_and_desktop(store: Store) -> None:
    add_file(store, "a.xml", "https://www.a.com/1", "https://m.a.com/1")
    issues = of(run(store, "cross-mobile-and-desktop"), "cross-mobile-and-desktop")
    assert len(issues) == 1 and issues[0].url == "https://m.a.com/1"


@pytest.mark.parametrize("ids_follow_the_listing", [True, False])
def test_host_rules_name_the_url_listed_first_not_the_first_parsed(
    store: Store, ids_follow_the_listing: bool
) -> None:
    """The URL a host rule names is the host's first in the listing: with several workers the
    files' rows arrive in any order, and the lowest entry id named another file's URL from one
    run to the next (a baseline then saw a new finding)."""
    a, b = (2, 3) if ids_follow_the_listing else (3, 2)
    _listed(store, a, "a.xml", line=3)
    _listed(store, b, "b.xml", line=4)
    store.add_entries(b, [E("https://a.com/b1", line=3), E("http://www.a.com/b2", line=4),
                          E("https://m.a.com/b3", line=5)])  # parsed first
    store.add_entries(a, [E("https://www.a.com/a1", line=3), E("http://www.a.com/a2", line=4),
                          E("https://m.a.com/a3", line=5), E("https://www.a.com/a4", line=6),
                          E("https://www.a.com/a5", line=7)])
    found = run(store, "cross-mixed-scheme", "cross-mixed-www", "cross-mobile-and-desktop")
    named = {i.rule: (i.node_id, i.url) for i in found}
    assert named == {
        "cross-mixed-scheme": (a, "http://www.a.com/a2"),  # http is www.a.com's rarer scheme
        "cross-mixed-www": (b, "https://a.com/b1"),  # a.com is only in b.xml
        "cross-mobile-and-desktop": (a, "https://m.a.com/a3"),
    }


@pytest.mark.parametrize("ids_follow_the_listing", [True, False])
def test_trailing_slash_names_the_copies_listed_first(store: Store, ids_follow_the_listing: bool) -> None:
    """/x and /x/ each listed in two files: the finding names each side's first copy in the
    listing, whichever file's rows came first."""
    a, b = (2, 3) if ids_follow_the_listing else (3, 2)
    _listed(store, a, "a.xml", line=3)
    _listed(store, b, "b.xml", line=4)
    store.add_entries(b, [E("https://a.com/x/", line=3), E("https://a.com/x", line=4)])  # parsed first
    store.add_entries(a, [E("https://a.com/y", line=3), E("https://a.com/x/", line=4),
                          E("https://a.com/x", line=5)])
    (issue,) = of(run(store, "cross-trailing-slash-variants"), "cross-trailing-slash-variants")
    assert (issue.node_id, issue.line, issue.url) == (a, 4, "https://a.com/x/")


def test_mobile_near_miss(store: Store) -> None:
    add_file(store, "a.xml", "https://www.a.com/1", "https://m.b.com/1", "https://mail.a.com/x")
    assert of(run(store, "cross-mobile-and-desktop"), "cross-mobile-and-desktop") == []


def test_trailing_slash_variants(store: Store) -> None:
    add_file(store, "a.xml", "https://a.com/shoes", "https://a.com/docs/", "https://a.com/blog/")
    add_file(
        store, "b.xml", "https://a.com/shoes/", "https://a.com/docs/index.html",
        "https://a.com/blog/index.htm", "https://a.com/blog/index.html.bak",
    )
    issues = of(run(store, "cross-trailing-slash-variants"), "cross-trailing-slash-variants")
    got = sorted((i.url, i.message) for i in issues)
    assert [u for u, _ in got] == [
        "https://a.com/blog/index.htm", "https://a.com/docs/index.html", "https://a.com/shoes/",
    ]
    assert "https://a.com/shoes/ and https://a.com/shoes are both listed" in got[2][1]


def test_trailing_slash_variants_when_most_urls_end_in_a_slash(store: Store) -> None:
    """The pairs are probed from the rarer side; the result is the same either way."""
    add_file(store, "a.xml", "https://a.com/x/", "https://a.com/y/", "https://a.com/z/", "https://a.com/d/")
    add_file(store, "b.xml", "https://a.com/x", "https://a.com/d/index.php")
    issues = of(run(store, "cross-trailing-slash-variants"), "cross-trailing-slash-variants")
    assert sorted(i.url for i in issues) == ["https://a.com/d/index.php", "https://a.com/x/"]


def test_trailing_slash_near_miss(store: Store) -> None:
    add_file(
        store,
        "a.xml",
        "https://a.com/shoes",
        "https://a.com/shoes2/",
        "https://a.com/q?x=1",
        "https://a.com/q?x=1/",
        "https://a.com/",
        "https://b.com/shoes/",
    )
    assert of(run(store, "cross-trailing-slash-variants"), "cross-trailing-slash-variants") == []


# -- hreflang --------------------------------------------------------------------------------
def test_hreflang_no_return_link(store: Store) -> None:
    add_file(store, "en.xml", alt(EN, {"en": EN, "de": DE}))
    add_file(store, "de.xml", alt(DE, {"de": DE}))  # does not list EN back
    issues = of(run(store, "hreflang-no-return-link"), "hreflang-no-return-link")
    assert len(issues) == 1
    assert issues[0].url == EN and DE in issues[0].message and issues[0].severity == "error"


def test_hreflang_return_link_across_files_ok(store: Store) -> None:
    add_file(store, "en.xml", alt(EN, {"en": EN, "de": DE}))
    add_file(store, "de.xml", alt(DE, {"en": EN, "de": DE}), "https://a.com/other")
    issues = run(
        store,
        "hreflang-no-return-link",
        "hreflang-target-not-in-sitemaps",
        "hreflang-cluster-inconsistent",
    )
    assert issues == []


def test_hreflang_target_not_in_sitemaps(store: Store) -> None:
    add_file(store, "en.xml", alt(EN, {"en": EN, "fr": FR}))
    issues = run(store, "hreflang-target-not-in-sitemaps", "hreflang-no-return-link")
    assert [i.rule for i in issues] == ["hreflang-target-not-in-sitemaps"]  # not both
    assert FR in issues[0].message and issues[0].url == EN


def test_hreflang_cluster_inconsistent_sets(store: Store) -> None:
    full = {"en": EN, "de": DE, "fr": FR}
    add_file(store, "a.xml", alt(EN, full), alt(DE, full), alt(FR, {"en": EN, "fr": FR}))
    issues = of(run(store, "hreflang-cluster-inconsistent"), "hreflang-cluster-inconsistent")
    assert sorted(i.url for i in issues) == sorted([EN, DE, FR])
    fr = next(i for i in issues if i.url == FR)
    assert "missing" in fr.message or "only there" in fr.message


def test_hreflang_cluster_different_codes(store: Store) -> None:
    add_file(store, "a.xml", alt(EN, {"en": EN, "de": DE}), alt(DE, {"en": EN, "de-at": DE}))
    issues = of(run(store, "hreflang-cluster-inconsistent"), "hreflang-cluster-inconsistent")
    assert issues and any(
        "de here but de-at there" in i.message or "de-at here but de there" in i.message
        for i in issues
    )


def test_hreflang_cluster_consistent_with_x_default(store: Store) -> None:
    full = {"en": EN, "de": DE, "x-default": EN}
    add_file(store, "a.xml", alt(EN, full))
    add_file(store, "b.xml", alt(DE, full))
    assert run(store, "hreflang-cluster-inconsistent", "hreflang-no-return-link") == []


# -- values ----------------------------------------------------------------------------------
def _dated(prefix: str, n: int, when: datetime, step: timedelta = timedelta(0)) -> list[Entry]:
    return [
        E(
            f"https://a.com/{prefix}{i}",
            lastmod=when + step * i,
            lastmod_raw=(when + step * i).isoformat(),
        )
        for i in range(n)
    ]


def test_lastmod_all_identical_instant(store: Store) -> None:
    t = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)
    nid = add_file(store, "a.xml", *_dated("p", 20, t))
    issues = of(run(store, "lastmod-all-identical"), "lastmod-all-identical")
    assert len(issues) == 1 and issues[0].node_id == nid
    assert "100% of 20" in issues[0].message and "same instant" in issues[0].message


def test_lastmod_all_identical_day_and_set(store: Store) -> None:
    t = datetime(2024, 5, 1, 1, 0, tzinfo=UTC)
    add_file(store, "a.xml", *_dated("a", 15, t, timedelta(minutes=3)))
    add_file(store, "b.xml", *_dated("b", 15, t, timedelta(minutes=7)))
    issues = of(run(store, "lastmod-all-identical"), "lastmod-all-identical")
    # each file alone is under 20 values; the set of 30 is all on 2024-05-01
    assert len(issues) == 1 and issues[0].node_id == 1
    assert (
        "same day (2024-05-01)" in issues[0].message
        and "across all 2 sitemaps" in issues[0].message
    )


def test_lastmod_identical_near_miss(store: Store) -> None:
    t = datetime(2024, 5, 1, tzinfo=UTC)
    add_file(store, "a.xml", *_dated("p", 19, t))  # too few values in this file
    add_file(store, "b.xml", *_dated("q", 18, t), *_dated("r", 2, t + timedelta(days=3)))  # 90 %
    # and the set: 37 of 39 values (94.9 %) on one day
    assert of(run(store, "lastmod-all-identical"), "lastmod-all-identical") == []


def test_lastmod_spread_dates(store: Store) -> None:
    add_file(store, "a.xml", *_dated("s", 40, datetime(2024, 5, 1, tzinfo=UTC), timedelta(days=1)))
    assert of(run(store, "lastmod-all-identical"), "lastmod-all-identical") == []


def _prio(prefix: str, values: list[float]) -> list[Entry]:
    return [
        E(f"https://a.com/{prefix}{i}", priority=v, priority_raw=str(v))
        for i, v in enumerate(values)
    ]


def test_priority_all_equal(store: Store) -> None:
    nid = add_file(store, "a.xml", *_prio("p", [1.0] * 5))
    issues = of(run(store, "priority-all-equal"), "priority-all-equal")
    assert len(issues) == 1 and issues[0].node_id == nid and "priority 1.0" in issues[0].message


def test_priority_near_miss(store: Store) -> None:
    add_file(store, "a.xml", *_prio("p", [1.0] * 4 + [0.8]))
    add_file(store, "b.xml", *_prio("q", [0.5] * 4))  # too few URLs
    add_file(store, "c.xml", *_prio("r", [0.5] * 4), E("https://a.com/none"))  # one without
    assert of(run(store, "priority-all-equal"), "priority-all-equal") == []


def test_priority_all_equal_across_set(store: Store) -> None:
    add_file(store, "a.xml", *_prio("p", [0.5] * 3))
    add_file(store, "b.xml", *_prio("q", [0.5] * 3))
    issues = of(run(store, "priority-all-equal"), "priority-all-equal")
    assert len(issues) == 1 and issues[0].node_id == 1 and "all 2 sitemaps" in issues[0].message


def test_index_gsc_limit(store: Store) -> None:
    for i in range(500):  # with the root index: 501 index files on a.com
        add_file(store, f"idx-{i}.xml", kind=NodeKind.INDEX)
    issues = of(run(store, "index-gsc-limit"), "index-gsc-limit")
    assert len(issues) == 1 and issues[0].node_id == 1 and "501 sitemap index" in issues[0].message


def test_index_gsc_limit_near_miss(store: Store) -> None:
    for i in range(499):  # 500 with the root
        add_file(store, f"idx-{i}.xml", kind=NodeKind.INDEX)
    add_file(store, "https://b.com/idx.xml", kind=NodeKind.INDEX)  # another site
    assert of(run(store, "index-gsc-limit"), "index-gsc-limit") == []


# -- robots ----------------------------------------------------------------------------------
ROBOTS = b"""User-agent: *
Disallow: /private/
Allow: /private/ok

User-agent: Bingbot
Disallow: /nobing/

Sitemap: https://a.com/sitemap_index.xml
"""


def test_robots_url_disallowed(store: Store) -> None:
    add_file(
        store,
        "a.xml",
        "https://a.com/private/x",
        "https://a.com/private/ok",
        "https://a.com/public",
        "https://a.com/nobing/y",
        "https://b.com/private/x",
    )
    rf = parse_robots(ROBOTS, "https://a.com/robots.txt")
    issues = of(
        run(store, "robots-url-disallowed", robots={"https://a.com/robots.txt": rf}),
        "robots-url-disallowed",
    )
    got = {i.url: i.message for i in issues}
    assert set(got) == {"https://a.com/private/x", "https://a.com/nobing/y"}
    assert "Googlebot" in got["https://a.com/private/x"]
    assert (
        "Bingbot" in got["https://a.com/nobing/y"]
        and "Googlebot" not in got["https://a.com/nobing/y"]
    )


def test_robots_from_meta_when_not_given(store: Store) -> None:
    add_file(store, "a.xml", "https://a.com/private/x", "https://a.com/public")
    store.set_meta("robots:https://a.com/robots.txt", ROBOTS.decode())
    issues = of(run(store, "robots-url-disallowed"), "robots-url-disallowed")
    assert [i.url for i in issues] == ["https://a.com/private/x"]


def test_robots_without_disallow_or_other_scheme(store: Store) -> None:
    add_file(store, "a.xml", "https://a.com/private/x", "http://a.com/private/x")
    rf = parse_robots(b"User-agent: *\nAllow: /\n", "https://a.com/robots.txt")
    assert run(store, "robots-url-disallowed", robots={"https://a.com/robots.txt": rf}) == []
    rf = parse_robots(ROBOTS, "https://a.com/robots.txt")
    issues = run(store, "robots-url-disallowed", robots={"https://a.com/robots.txt": rf})
    assert [i.url for i in issues] == ["https://a.com/private/x"]  # http://a.com has its own robots


def test_robots_sitemap_file_disallowed(store: Store) -> None:
    bad = add_file(store, "private/sitemap.xml", "https://a.com/1")
    add_file(store, "ok.xml", "https://a.com/2")
    rf = parse_robots(ROBOTS, "https://a.com/robots.txt")
    issues = of(
        run(store, "robots-sitemap-file-disallowed", robots={"https://a.com/robots.txt": rf}),
        "robots-sitemap-file-disallowed",
    )
    assert [(i.node_id, i.url) for i in issues] == [(bad, "https://a.com/private/sitemap.xml")]


def test_robots_sitemap_file_disallowed_for_yandex_only(store: Store) -> None:
    bad = add_file(store, "feeds/sitemap.xml", "https://a.com/1")
    rf = parse_robots(b"User-agent: Yandex\nDisallow: /feeds/\n", "https://a.com/robots.txt")
    issues = run(
        store,
        "robots-sitemap-file-disallowed",
        "robots-url-disallowed",
        robots={"https://a.com/robots.txt": rf},
    )
    assert [(i.rule, i.node_id) for i in issues] == [("robots-sitemap-file-disallowed", bad)]
    # the crawler it rests on is named: it read as if Google could not fetch the file
    assert "disallowed for YandexBot by its own robots.txt" in issues[0].message


def _video(loc: str, content: str, player: str | None = None) -> Entry:
    fields = {"thumbnail_loc": "https://a.com/thumbs/t.jpg", "title": "T", "description": "D",
              "content_loc": content}
    if player is not None:
        fields["player_loc"] = player
    return Entry(loc=loc, line=3, videos=[Video(fields=fields, line=4)])


def test_video_files_disallowed_by_robots(store: Store) -> None:
    """A video's content_loc / player_loc that robots.txt keeps Googlebot from is reported on
    the video's line (the files of another host, whose robots.txt is unknown, are not)."""
    add_file(
        store,
        "v.xml",
        _video("https://a.com/watch/1", "https://a.com/private/1.mp4", "https://a.com/nobing/p"),
        _video("https://a.com/watch/2", "https://a.com/public/2.mp4"),
        _video("https://a.com/watch/3", "https://cdn.b.com/private/3.mp4"),
    )
    rf = parse_robots(ROBOTS, "https://a.com/robots.txt")
    issues = of(run(store, "video-files-not-accessible", robots={"https://a.com/robots.txt": rf}),
                "video-files-not-accessible")
    assert [(i.url, i.line) for i in issues] == [("https://a.com/watch/1", 4)]
    assert "<video:content_loc> 'https://a.com/private/1.mp4'" in issues[0].message
    assert "https://a.com/robots.txt" in issues[0].message


def test_video_files_rerun_keeps_the_checkers_findings(store: Store) -> None:
    """The checker reports streaming-only video URLs under the same rule: a second cross-file
    run replaces its own robots.txt findings and leaves those alone."""
    nid = add_file(store, "v.xml", _video("https://a.com/watch/1", "https://a.com/private/1.mp4"))
    eid = store.conn.execute("SELECT id FROM entries WHERE node_id=?", (nid,)).fetchone()[0]
    streaming = Issue("video-files-not-accessible", Severity.ERROR,
                      "<video:player_loc> 'rtmp://a.com/live' is not accessible to Googlebot: streaming-only protocol rtmp:",
                      node_id=nid, line=4, url="https://a.com/watch/1")
    store.add_issues([streaming], [eid])
    rf = parse_robots(ROBOTS, "https://a.com/robots.txt")
    for _ in range(2):
        issues = of(run(store, robots={"https://a.com/robots.txt": rf}), "video-files-not-accessible")
        assert sorted(i.message.rpartition(": ")[2] for i in issues) == [
            "https://a.com/robots.txt disallows it for Googlebot", "streaming-only protocol rtmp:"]
    assert store.conn.execute("SELECT n_issues FROM entries WHERE id=?", (eid,)).fetchone()[0] == 2


# -- how the rules are computed ----------------------------------------------------------------

_KEY_PARTS = st.sampled_from(
    ["http", "https", "HTTP", "://", "/", "0", ".", "a", "b.com", "@", ":", "[::1]", "é", "😀", "?", "#"]
)


@settings(max_examples=300, deadline=None)
@given(
    keys=st.lists(
        st.one_of(st.lists(_KEY_PARTS, max_size=8).map("".join), st.text(max_size=12)),
        max_size=40,
    ),
    walk=st.sampled_from([1, 2, 3, 7, 2000]),
)
def test_origin_walk_counts_like_the_group_by(tmp_path_factory, keys: list[str], walk: int) -> None:
    """Hopping over the key index range by range counts each origin exactly as the plain
    GROUP BY (walk=0) does, whatever the keys and wherever the walk hands over to it."""
    s = Store(tmp_path_factory.mktemp("origins") / "k.db")
    try:
        cf = CrossFileQueries(s)
        cf.temp("cf_keys", "CREATE TEMP TABLE cf_keys(entry_id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL, key TEXT)")
        s.conn.executemany(
            "INSERT INTO temp.cf_keys VALUES(?, 1, ?)", [(i + 1, k) for i, k in enumerate(keys)]
        )
        s.conn.execute("CREATE INDEX temp.cf_keys_key ON cf_keys(key, node_id)")

        def merged(rows: list[tuple[str, str, int, int]]) -> dict[tuple[str, str], tuple[int, int]]:
            out: dict[tuple[str, str], tuple[int, int]] = {}
            for scheme, host, n, first in rows:
                m, f = out.get((scheme, host), (0, first))
                out[(scheme, host)] = (m + n, min(f, first))
            return out

        assert merged(cf.origin_counts(walk)) == merged(cf.origin_counts(0))
    finally:
        s.close()


def test_value_rules_run_beside_or_inline(store: Store, tmp_path: Path) -> None:
    """lastmod-all-identical and priority-all-equal read the entries on a second connection
    (rows still in the open transaction included); without a shared file they run inline."""
    t = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)
    add_file(store, "a.xml", *_dated("p", 20, t))
    add_file(store, "b.xml", *_prio("q", [0.5] * 6))
    rules = ("lastmod-all-identical", "priority-all-equal")
    beside = [(i.rule, i.node_id, i.message) for i in run(store, *rules)]
    assert sorted(r for r, _, _ in beside) == sorted(rules)
    real = store.path
    store.path = tmp_path / "not-a-file.db"
    try:
        inline = [(i.rule, i.node_id, i.message) for i in run(store, *rules)]
    finally:
        store.path = real
    assert inline == beside


def test_keep_temp_leaves_the_tables_and_a_rerun_replaces_them(store: Store) -> None:
    add_file(store, "a.xml", "https://a.com/p1", alt("https://a.com/en", {"de": "https://a.com/de"}))
    add_file(store, "b.xml", "https://a.com/p1")

    def temp_tables() -> set[str]:
        return {r[0] for r in store.conn.execute("SELECT name FROM sqlite_temp_master WHERE type = 'table'")}

    dropped = [(i.rule, i.url) for i in run(store)]
    assert not temp_tables()
    run_crossfile(store, keep_temp=True)
    assert {"cf_keys", "cf_alt", "cf_sig"} <= temp_tables()
    run_crossfile(store, keep_temp=True)  # the leftovers are replaced, not added to
    store.commit()
    store.begin()
    assert [(i.rule, i.url) for i in store.issues()] == dropped


@pytest.mark.parametrize("sample", [1, 2, 5])
def test_trailing_slash_pairs_do_not_depend_on_the_side_sample(
    store: Store, monkeypatch: pytest.MonkeyPatch, sample: int
) -> None:
    """The sample only picks which side to probe from; a sample that guesses wrong finds the
    same pairs."""
    add_file(store, "a.xml", "https://a.com/x/", "https://a.com/y", "https://a.com/z", "https://a.com/d/")
    add_file(store, "b.xml", "https://a.com/x", "https://a.com/y/", "https://a.com/d/index.php")
    rule = "cross-trailing-slash-variants"
    full = sorted(i.url for i in of(run(store, rule), rule))
    assert full == ["https://a.com/d/index.php", "https://a.com/x/", "https://a.com/y/"]
    monkeypatch.setattr(queries_mod, "SIDE_SAMPLE", sample)
    assert sorted(i.url for i in of(run(store, rule), rule)) == full


def test_a_signature_key_made_in_a_rolled_back_transaction_is_not_kept(store: Store) -> None:
    store.conn.execute("DELETE FROM meta WHERE key='signature_key'")
    store.commit()
    store.begin()
    made = store.signature_key()
    store.rollback()
    kept = store.signature_key()
    store.commit()
    assert store.get_meta("signature_key") == kept.hex() and kept != made

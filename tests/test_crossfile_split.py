"""The cross-file rules split across processes (validate/crossfile_split.py, issue 19 round 4):
the same issues in the same order as in one process, whatever the number of parts and the
cap; the part function keeps every pair a rule compares in one part; a failing child is said
with its error; a cancel stops the children and keeps nothing; small sets, --workers 0 and the
TUI's in-process path do not split."""

from __future__ import annotations

import multiprocessing
import os
import random
import shutil
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_tui.engine.model import Alternate, Entry, FoundBy, Node, NodeKind, NodeState
from sitemap_tui.engine.robots import parse_robots
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.crossfile_parts import (
    TRIM_CHARS,
    PartQueries,
    choose_spread,
    key_sample,
    part_of,
    part_sql,
)
from sitemap_tui.main import main
from sitemap_tui.session.validation import Validation
from sitemap_tui.validate import crossfile as crossfile_mod
from sitemap_tui.validate import crossfile_split
from sitemap_tui.validate.crossfile import INDEX_NAMES, CrossFileCancelled, run_crossfile
from sitemap_tui.validate.crossfile_split import (
    CrossFileFailed,
    run_crossfile_parts,
    run_split,
    splitter,
)

HOST = "https://a.com"
DAY = datetime(2024, 1, 2, tzinfo=UTC)
ROBOTS = {f"{HOST}/robots.txt": parse_robots(b"User-agent: *\nDisallow: /p2\n", f"{HOST}/robots.txt")}


def _entries(rng: random.Random, n: int) -> list[Entry]:
    """URLs that trigger every split rule several times over: shared with other files (some
    with another lastmod, priority or hreflang set), with and without a trailing slash, index
    pages (nested ones too), other schemes, www and mobile hosts, hreflang clusters with links
    missing, identical lastmods and priorities."""
    out: list[Entry] = []
    for i in range(n):
        k = rng.randrange(60)
        base = rng.choice([HOST, HOST, "http://a.com", "https://www.a.com", "https://m.a.com"])
        loc = rng.choice([
            f"{base}/p{k}", f"{base}/p{k}/", f"{base}/d{k}/", f"{base}/d{k}/index.html",
            f"{base}/d{k}/index.php", f"{base}/x{k}/index.html/", f"{base}/x{k}/index.html/index.html",
            f"{base}/q{k}?a=1", f"{base}/q{k}?a=1/", f"{base}/help{k}", f"{base}/help{k}/",
        ])
        links = []
        if rng.random() < 0.2:
            links = [Alternate("alternate", lang, f"{HOST}/{lang}/p{rng.randrange(20)}") for lang in ("en", "de")]
        out.append(Entry(loc=loc, line=i + 3, lastmod=DAY, priority=rng.choice([0.5, 0.5, 0.8]),
                         changefreq=rng.choice([None, "daily"]), alternates=links))
    return out


def _store(path: Path, seed: int = 7) -> Store:
    store = Store(path)
    store.add_node(Node(id=1, url=f"{HOST}/sitemap_index.xml", kind=NodeKind.INDEX, state=NodeState.DONE))
    rng = random.Random(seed)
    for nid in range(2, 6):
        store.add_node(Node(id=nid, url=f"{HOST}/s{nid}.xml", kind=NodeKind.URLSET, state=NodeState.DONE,
                            found_by=FoundBy.INDEX, parent_id=1, depth=1, line=10 - nid))
        store.add_entries(nid, _entries(rng, 150))
    store.add_node(Node(id=6, url=f"{HOST}/hreflang.xml", kind=NodeKind.URLSET, state=NodeState.DONE,
                        found_by=FoundBy.INDEX, parent_id=1, depth=1, line=20))
    # en <-> de <-> fr, but fr does not link back to en; de/fr list another set than en
    cluster = {f"{HOST}/{lang}/p1": ("en", "de", "fr") if lang == "en" else ("de", "fr")
               for lang in ("en", "de", "fr")}
    store.add_entries(6, [Entry(loc=url, line=i + 3,
                                alternates=[Alternate("alternate", lang, f"{HOST}/{lang}/p1") for lang in langs])
                          for i, (url, langs) in enumerate(cluster.items())])
    # a pair whose sets differ only by the link each lacks to itself: hreflang-missing-self's
    # finding, not also the cluster's (found over the corpus: a split run said it, one process not)
    pair = {f"{HOST}/en/p2": "de", f"{HOST}/de/p2": "en"}
    store.add_entries(6, [Entry(loc=url, line=10 + i, alternates=[Alternate("alternate", other, f"{HOST}/{other}/p2")])
                          for i, (url, other) in enumerate(pair.items())])
    store.commit()
    store.begin()
    return store


def _issues(store: Store) -> list[tuple[Any, ...]]:
    """Every issue in the order it was stored (the order the report keeps)."""
    return store.conn.execute(
        "SELECT rule, severity, node_id, entry_id, line, url, message FROM issues ORDER BY id").fetchall()


def _two(tmp_path: Path) -> tuple[Store, Store]:
    _store(tmp_path / "one.db").close()
    shutil.copy(tmp_path / "one.db", tmp_path / "split.db")
    return Store(tmp_path / "one.db"), Store(tmp_path / "split.db")


@pytest.mark.parametrize(("parts", "cap"), [(2, 10_000), (3, 10_000), (2, 3), (5, 1)])
def test_split_stores_the_same_issues_in_the_same_order(tmp_path: Path, parts: int, cap: int,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    one, split = _two(tmp_path)
    steps: list[str] = []
    monkeypatch.setattr(crossfile_split, "SPLIT_MIN_ENTRIES", 1)  # this store is small
    try:
        n_one = run_crossfile(one, robots=ROBOTS, cap=cap)
        n_split = run_crossfile_parts(split, robots=ROBOTS, cap=cap, parts=parts, on_step=steps.append)
        want = _issues(one)
        assert _issues(split) == want and n_split == n_one
        assert f"the cross-file rules in {min(parts, crossfile_split.MAX_PARTS) + 1} processes" in steps  # it split
        rules = {r[0] for r in want}
        assert {"cross-duplicate-url", "cross-duplicate-conflicting", "cross-trailing-slash-variants",
                "cross-mixed-scheme", "cross-mixed-www", "cross-mobile-and-desktop", "hreflang-no-return-link",
                "hreflang-target-not-in-sitemaps", "hreflang-cluster-inconsistent", "lastmod-all-identical",
                "robots-url-disallowed"} <= rules
        if cap < 10_000:
            assert any("not listed (at most" in r[6] for r in want)
    finally:
        one.close()
        split.close()


@pytest.mark.parametrize("parts", [0, 2])
def test_over_the_cap_the_first_in_the_listing_are_kept(tmp_path: Path, parts: int,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """This store's files are listed in the reverse of their ids (parsed last, listed first):
    over the cap, in one process and split, each rule keeps its first findings in the listing
    (the files' order, then each file's), which the uncapped run says."""
    everything, capped = _two(tmp_path)
    monkeypatch.setattr(crossfile_split, "SPLIT_MIN_ENTRIES", 1)
    cap = 5
    try:
        run_crossfile(everything, robots=ROBOTS)
        if parts:
            run_crossfile_parts(capped, robots=ROBOTS, cap=cap, parts=parts)
        else:
            run_crossfile(capped, robots=ROBOTS, cap=cap)
        rank = {2: 3, 3: 2, 4: 1, 5: 0, 6: 4}  # (the lines 8, 7, 6, 5 and 20 of the index)
        over = 0
        for rule in sorted({r[0] for r in _issues(everything)}):
            found = [r for r in _issues(everything) if r[0] == rule and r[3] is not None]
            kept = [r for r in _issues(capped) if r[0] == rule and r[3] is not None]
            if len(found) <= cap:
                assert kept == found, rule
                continue
            over += 1
            # (entry ids are the same in both stores: one was copied from the other)
            want = sorted(found, key=lambda r: (rank[r[2]], r[3]))[:cap]
            assert kept == want, rule
        assert over >= 4
    finally:
        everything.close()
        capped.close()


def test_the_part_children_check_the_entries_against_robots_txt(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """robots-url-disallowed (protego over every URL) runs in the part children, each over every
    parts-th entry, not in the store's process after them; the same issues as in one process."""
    one, split = _two(tmp_path)
    monkeypatch.setattr(crossfile_split, "SPLIT_MIN_ENTRIES", 1)
    rules = {"robots-url-disallowed"}
    try:
        run_crossfile(one, enabled=rules, robots=ROBOTS)

        def not_here(*args: Any) -> Any:
            raise AssertionError("robots-url-disallowed ran in the store's process")

        monkeypatch.setattr(crossfile_mod, "disallowed_entries", not_here)  # (the children import their own)
        run_crossfile_parts(split, enabled=rules, robots=ROBOTS, parts=2)
        assert _issues(split) == _issues(one) != []
    finally:
        one.close()
        split.close()


def test_a_rule_selection_splits_only_what_it_needs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one, split = _two(tmp_path)
    steps: list[str] = []
    monkeypatch.setattr(crossfile_split, "SPLIT_MIN_ENTRIES", 1)
    rules = {"cross-trailing-slash-variants", "priority-all-equal"}
    try:
        run_crossfile(one, enabled=rules)
        run_crossfile_parts(split, enabled=rules, parts=2, on_step=steps.append)
        assert _issues(split) == _issues(one) != []
        assert "the cross-file rules in 3 processes" in steps
    finally:
        one.close()
        split.close()


_PATH = st.text(alphabet="/ab.indexhtmlp?=1", max_size=12)


@settings(max_examples=300, deadline=None)
@given(_PATH, st.sampled_from(["/", *INDEX_NAMES]), st.integers(min_value=2, max_value=17), st.booleans())
def test_the_part_of_a_key_is_the_part_of_its_variants(path: str, suffix: str, parts: int, spread: bool) -> None:
    """/a and /a/, /dir/ and /dir/index.html fall in the same part, whatever the parts, by the
    length and by the last character alike."""
    conn = sqlite3.connect(":memory:")
    shorter = f"{HOST}/{path}" if suffix == "/" else f"{HOST}/{path.rstrip('/')}/"
    longer = shorter + suffix
    got = conn.execute(f"SELECT {part_sql('?1', parts, spread)}, {part_sql('?2', parts, spread)}",
                       (shorter, longer)).fetchone()
    assert got[0] == got[1] and 0 <= got[0] < parts
    assert set("/" + "".join(INDEX_NAMES)) <= set(TRIM_CHARS)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=12), st.integers(min_value=2, max_value=17), st.booleans())
def test_the_part_in_python_is_the_part_in_sql(key: str, parts: int, spread: bool) -> None:
    """choose_spread weighs a sample with part_of: it must be the children's SQL exactly (keys
    of trim characters only, non-ASCII ones, empty ones)."""
    key = key.replace("\x00", "")  # (SQLite's text ends at a NUL)
    conn = sqlite3.connect(":memory:")
    assert conn.execute(f"SELECT {part_sql('?', parts, spread)}", (key,)).fetchone()[0] == part_of(key, parts, spread)


def _numbered(n: int) -> list[str]:
    """Product URLs numbered with fixed-width ids, a common shape: every key one length."""
    return [f"{HOST}/p/{i:07d}" for i in range(1, n + 1)]


def test_keys_of_one_length_are_shared_out_by_their_last_character() -> None:
    """By length alone a set whose URLs all have one length falls in one part, and one child
    does the work of all; choose_spread sees it in a sample and the last character shares such
    keys out. The bench's URLs, whose lengths vary, keep the length (cheaper to compute)."""
    keys = _numbered(4000)
    for parts in (2, 3, 4):
        assert {part_of(k, parts) for k in keys} == {part_of(keys[0], parts)}
        assert choose_spread(keys, parts)
        counts = [sum(part_of(k, parts, True) == p for k in keys) for p in range(parts)]
        assert min(counts) >= 4000 / parts * 0.6
    rng = random.Random(5)
    varied = [f"{HOST}/blog/{'-'.join(rng.sample(['red', 'fast', 'glass', 'cotton', 'max'], rng.randint(1, 4)))}-{i}"
              for i in range(4000)]
    assert not any(choose_spread(varied, parts) for parts in (2, 3, 4))
    assert not choose_spread(["https://a.com/x"] * 3, 2)  # one key: nothing spreads it


def test_the_parts_share_the_keys_out(tmp_path: Path) -> None:
    """URLs of the bench's shape (a section, a slug of a few words, a number) spread over the
    parts, none left empty."""
    rng = random.Random(3)
    words = ["red", "fast", "glass", "premium", "cotton", "autumn", "xray", "sierra", "max", "bright"]
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE k(key)")
    conn.executemany("INSERT INTO k VALUES(?)", [
        (f"https://www.example.com/{rng.choice(['blog', 'store', 'help'])}/"
         f"{'-'.join(rng.sample(words, rng.randint(1, 4)))}-big{i % 7}-{i}",) for i in range(4000)])
    for parts in (2, 3, 16):
        counts = dict(conn.execute(f"SELECT {part_sql('key', parts)} AS p, COUNT(*) FROM k GROUP BY p"))
        assert sorted(counts) == list(range(parts))
        assert min(counts.values()) > 4000 / parts / 3


def test_a_set_of_one_url_length_is_split_evenly_with_the_same_issues(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixed-width ids with trailing-slash and index-page variants and copies in other files:
    the parent's sample (scattered ids, not every n-th, whose URLs would be numbered in steps)
    picks the last character, each part child gets a share of the keys, and the issues are
    those of one process."""
    one = Store(tmp_path / "one.db")
    one.add_node(Node(id=1, url=f"{HOST}/sitemap_index.xml", kind=NodeKind.INDEX, state=NodeState.DONE))
    rng = random.Random(11)
    for nid in (2, 3):
        one.add_node(Node(id=nid, url=f"{HOST}/s{nid}.xml", kind=NodeKind.URLSET, state=NodeState.DONE,
                          found_by=FoundBy.INDEX, parent_id=1, depth=1, line=nid))
        locs = [rng.choice([u, u + "/", u.replace("/p/", "/d/") + "/", u.replace("/p/", "/d/") + "/index.html"])
                for u in _numbered(1500)]
        one.add_entries(nid, [Entry(loc=loc, line=i + 3) for i, loc in enumerate(locs)])
    one.commit()
    one.close()
    shutil.copy(tmp_path / "one.db", tmp_path / "split.db")
    one, split = Store(tmp_path / "one.db"), Store(tmp_path / "split.db")
    monkeypatch.setattr(crossfile_split, "SPLIT_MIN_ENTRIES", 1)
    chosen: list[bool] = []
    monkeypatch.setattr(crossfile_split, "choose_spread", lambda keys, parts: chosen.append(choose_spread(keys, parts))
                        or chosen[-1])
    try:
        # 300 of 3,000: every 10th id would read ids 1, 11, 21…, numbered …1 in both files
        sample = key_sample(split, 300)
        assert len(set(sample)) == 300 and {k.rstrip(TRIM_CHARS)[-1] for k in sample} == set("0123456789")
        rules = {"cross-duplicate-url", "cross-trailing-slash-variants"}
        run_crossfile(one, enabled=rules)
        run_crossfile_parts(split, enabled=rules, parts=2)
        assert chosen == [True]
        assert _issues(split) == _issues(one) and len(_issues(one)) > 100
        shares = []
        for part in (0, 1):
            q = PartQueries(split, part, 2, spread=chosen[-1])  # as the children did
            q.build_keys()
            shares.append(q.conn.execute("SELECT count(*) FROM temp.cf_keys").fetchone()[0])
            q.conn.execute("DROP TABLE temp.cf_keys")
        assert sum(shares) == 3000 and min(shares) > 1000
    finally:
        one.close()
        split.close()


def test_small_sets_and_memory_stores_stay_in_process(tmp_path: Path) -> None:
    store = _store(tmp_path / "x.db")
    try:
        assert splitter(store, 2) is None  # 605 entries
        assert splitter(store, 0, minimum=1) is None  # --workers 0
        assert splitter(store, 2, minimum=605) is not None and splitter(store, 2, minimum=606) is None
    finally:
        store.close()
    memory = Store(":memory:")
    try:
        assert splitter(memory, 2, minimum=0) is None
    finally:
        memory.close()


def test_a_failing_child_is_said_with_its_error_and_the_others_stopped(tmp_path: Path) -> None:
    store = _store(tmp_path / "x.db")
    (tmp_path / "not-a-store.db").write_text("this is not a database\n")
    try:
        with pytest.raises(CrossFileFailed, match="sitemap-tui-crossfile-.* failed: StoreError") as failed:
            run_split(store, {"cross-duplicate-url", "lastmod-all-identical"}, 10, lambda: None, lambda _: None,
                      parts=2, path=str(tmp_path / "not-a-store.db"))
        assert "Traceback" in failed.value.detail
        assert multiprocessing.active_children() == []
    finally:
        store.close()


def test_validation_says_a_failed_split_and_runs_the_rules_here(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    one, split = _two(tmp_path)
    (tmp_path / "not-a-store.db").write_text("this is not a database\n")
    real = crossfile_split.run_split

    def broken(*args: Any, **kwargs: Any) -> Any:
        return real(*args, **kwargs, path=str(tmp_path / "not-a-store.db"))

    monkeypatch.setattr(crossfile_split, "run_split", broken)
    monkeypatch.setattr(crossfile_split, "SPLIT_MIN_ENTRIES", 1)
    notes: list[str] = []
    try:
        run_crossfile(one, robots=ROBOTS)
        Validation().crossfile(split, robots=ROBOTS, parts=2, on_note=notes.append)
        assert _issues(split) == _issues(one)
        assert len(notes) == 1 and "failed: StoreError" in notes[0] and "ran in this process" in notes[0], notes
    finally:
        one.close()
        split.close()


def test_a_cancel_mid_tail_stops_the_children_and_keeps_the_old_issues(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(tmp_path / "x.db")
    monkeypatch.setattr(crossfile_split, "SPLIT_MIN_ENTRIES", 1)
    try:
        run_crossfile(store, robots=ROBOTS)
        store.commit()
        store.begin()
        before = _issues(store)
        cancel = threading.Event()

        def step(what: str) -> None:
            if what.startswith("the cross-file rules in"):  # the children are starting
                cancel.set()

        with pytest.raises(CrossFileCancelled):
            run_crossfile_parts(store, robots=ROBOTS, parts=2, cancel=cancel, on_step=step)
        assert multiprocessing.active_children() == []
        store.rollback()  # what the caller does
        assert _issues(store) == before != []
    finally:
        store.close()


def test_headless_validate_splits_with_workers_and_not_without(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    site.mkdir()
    head = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    for name in ("a.xml", "b.xml"):
        site.joinpath(name).write_text(head + "<url><loc>https://example.com/x</loc></url>\n"
                                       "<url><loc>https://example.com/y/</loc></url>\n"
                                       f"<url><loc>https://example.com/{name}</loc></url>\n</urlset>\n")
    monkeypatch.setattr(crossfile_split, "SPLIT_MIN_ENTRIES", 1)
    parts_asked: list[int] = []
    real = crossfile_split.splitter

    def spy(store: Store, parts: int, minimum: int | None = None) -> Any:
        parts_asked.append(parts)
        return real(store, parts, minimum)

    monkeypatch.setattr(crossfile_split, "splitter", spy)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    outs = []
    try:
        for workers in ("1", "0"):
            rc = main(["validate", "site", "--workers", workers, "--no-history", "--no-config", "--fail-on", "never",
                       "--format", "json"])
            outs.append(capsys.readouterr().out)
            assert rc == 0
    finally:
        os.chdir(cwd)
    assert parts_asked == [1]  # --workers 1: split (over 2 parts); --workers 0: in this process
    assert "cross-duplicate-url" in outs[0] and outs[0] == outs[1]


def test_an_interrupt_while_the_children_work_stops_every_one(tmp_path: Path) -> None:
    """Ctrl-C or SIGTERM in a headless run raise in the parent's wait (signals.headless): no child
    is left running."""
    store = _store(tmp_path / "x.db")
    waits = [0]

    def check() -> None:
        waits[0] += 1
        if waits[0] == 2:  # the children have started, the first wait is over
            raise KeyboardInterrupt

    try:
        with pytest.raises(KeyboardInterrupt):
            run_split(store, {"cross-duplicate-url", "lastmod-all-identical"}, 10, check, lambda _: None, parts=2)
        assert multiprocessing.active_children() == []
    finally:
        store.close()


def test_a_store_without_keys_has_them_filled_in_before_the_children_read(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows stored without their keys (an earlier version's store) get them in the store's
    process, committed, before the children build their tables from them."""
    one, split = _two(tmp_path)
    monkeypatch.setattr(crossfile_split, "SPLIT_MIN_ENTRIES", 1)
    try:
        run_crossfile(one, robots=ROBOTS)
        split.conn.execute("UPDATE entries SET key=NULL, alt_n=NULL, alt_h=NULL")
        split.conn.execute("UPDATE alternates SET lang=NULL, tgt=NULL")
        steps: list[str] = []
        run_crossfile_parts(split, robots=ROBOTS, parts=2, on_step=steps.append)
        assert "the cross-file rules in 3 processes" in steps
        assert _issues(split) == _issues(one)
    finally:
        one.close()
        split.close()

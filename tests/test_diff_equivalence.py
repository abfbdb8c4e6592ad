"""The one-pass comparison (engine/store/diff.py: one pair table for both trees, one grouped pass
into ``delta``) against the SQL it replaced (tests/diff_reference.py), on pairs of explorations
that hypothesis writes through the store's writer: every count, total, list, per-file change,
finding count and compare-mode table (v_marks, v_removed, v_files, v_badges) the same.

The generated trees are small but hit what the rewrite changed: one URL under several spellings
of its key, URLs listed twice in a file and in several files, files present on one side only or
failing, lastmod / changefreq / priority / extension changes, findings by rule, file and URL,
and --map-host."""

from __future__ import annotations

import sqlite3
import tempfile
from dataclasses import astuple
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import diff_reference
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemap_tui.engine.model import (
    Alternate,
    Entry,
    FoundBy,
    Image,
    Issue,
    News,
    Node,
    NodeKind,
    NodeState,
    Severity,
    Video,
)
from sitemap_tui.engine.store import Store, StoreError
from sitemap_tui.engine.store import diff as queries
from sitemap_tui.engine.store.diff import DiffQueries
from sitemap_tui.engine.store.diff_view import build_view
from sitemap_tui.session.diff import HostMap, build, compare

HOST = "https://h.example"
# several spellings of one key (case, dot segments, default port, escapes), and near misses
LOCS = (f"{HOST}/a", "HTTPS://H.example/a", f"{HOST}/x/../a", f"{HOST}:443/a", f"{HOST}/a/", f"{HOST}/b",
        f"{HOST}/caf%c3%a9", f"{HOST}/café", f"{HOST}/c?q=1", "https://g.example/a", "not a url", None)
FILES = ("a.xml", "b.xml", "c.xml", "d.xml")
DAYS = (None, datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 2, 1, tzinfo=UTC))

entry = st.builds(
    lambda loc, day, freq, prio, images, alts, news, video: Entry(
        loc=loc, lastmod=day, lastmod_raw=day.date().isoformat() if day else None,
        changefreq_raw=freq, changefreq=freq.strip().lower() if freq and freq.strip() in ("daily", "Daily") else None,
        priority_raw=prio, priority=float(prio) if prio and prio != "x" else None,
        images=[Image(loc=f"{HOST}/{i}.jpg") for i in images],
        alternates=[Alternate("alternate", lang, f"{HOST}/{lang}/a") for lang in alts],
        news=[News("N", "en", "2024-01-01", title) for title in news],
        videos=[Video(fields={"content_loc": f"{HOST}/{v}.mp4"}) for v in video]),
    st.sampled_from(LOCS), st.sampled_from(DAYS), st.sampled_from((None, "daily", " Daily", "hourly")),
    st.sampled_from((None, "0.5", "0.50", "0.8", "x")), st.lists(st.sampled_from("12"), max_size=2),
    st.lists(st.sampled_from(("en", "de")), max_size=2, unique=True), st.lists(st.sampled_from("TU"), max_size=1),
    st.lists(st.sampled_from("12"), max_size=1))
tree = st.dictionaries(st.sampled_from(FILES),
                       st.tuples(st.booleans(), st.lists(entry, max_size=6),
                                 st.lists(st.tuples(st.sampled_from(("rule-a", "rule-b")), st.integers(-1, 5)),
                                          max_size=3)),
                       max_size=4)


def write(path: Path, files: dict[str, tuple[bool, list[Entry], list[tuple[str, int]]]],
          parsed: list[str] | None = None) -> None:
    """An index and its children: (failed, entries, findings (rule, index of the entry or -1)),
    listed by the index in name order and parsed in the order ``parsed`` names them (default:
    the listing's), as several workers do: node and entry ids then follow the parsing."""
    store = Store(path)
    store.add_node(Node(id=1, url=f"{HOST}/index.xml", kind=NodeKind.INDEX, state=NodeState.DONE,
                        found_by=FoundBy.USER))
    line = {name: i for i, name in enumerate(sorted(files), start=3)}
    for node_id, name in enumerate(parsed or sorted(files), start=2):
        failed, entries, findings = files[name]
        store.add_node(Node(id=node_id, url=f"{HOST}/{name}", kind=NodeKind.URLSET, parent_id=1, depth=1,
                            line=line[name],
                            state=NodeState.FAILED if failed else NodeState.DONE, found_by=FoundBy.INDEX,
                            error="down" if failed else None))
        ids = store.add_entries(node_id, entries)
        issues, on = [], []
        for rule, at in findings:
            target = entries[at] if 0 <= at < len(entries) else None
            issues.append(Issue(rule, Severity.WARNING, f"{rule} here", node_id=node_id,
                                url=target.loc if target else None))
            on.append(ids[at] if target else None)
        store.add_issues(issues, on)
        store.commit()
    store.close()


def everything(q: Any) -> dict[str, Any]:
    """What `sitemap-tui diff` and compare mode read from a built comparison."""
    out: dict[str, Any] = {
        "totals": (q.totals("old"), q.totals("new")),
        "counts": [q.count(t) for t in ("added", "removed", "moved")],
        "lastmod_counts": q.lastmod_counts(), "attr_counts": q.attr_counts(), "ext_counts": q.ext_counts(),
        "issue_counts": (q.issue_counts(new=True), q.issue_counts(new=False)),
        "added": list(q.urls("added")), "removed": list(q.urls("removed")), "moved": list(q.moved()),
        "lastmod": list(q.lastmod()), "back": list(q.lastmod("backward", limit=2)),
        "attrs": [list(q.attrs(w)) for w in ("changefreq", "priority")], "ext": list(q.extensions()),
        "issues": (list(q.issues(True)), list(q.issues(False))),
        "sitemaps": [(*astuple(s)[:10], s.status) for s in q.sitemaps()],  # (each module has its dataclass;
        # the fields both have: the reference knows no file cut short)
    }
    return out


def compared(cls: Any, view: Any, old: Path, new: Path, scratch: Path, mapper: HostMap | None) -> dict[str, Any]:
    """session.diff.compare's steps, with either implementation, then compare mode's tables."""
    q = cls(old, new, scratch, map_host=mapper)
    try:
        build(q, mapper)
        out = everything(q)
        view(q.conn)
        for table, order in (("v_marks", "what, e"), ("v_removed", "id"), ("v_files", "id"), ("v_badges", "id")):
            out[table] = q.conn.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
        return out
    finally:
        q.close()


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(old_tree=tree, new_tree=tree, map_host=st.booleans(), data=st.data())
def test_the_one_pass_comparison_reads_as_the_old_one(old_tree, new_tree, map_host: bool, data) -> None:
    mapper = HostMap((("g.example", "h.example"),)) if map_host else None
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write(folder / "old.db", old_tree, data.draw(st.permutations(sorted(old_tree))))
        write(folder / "new.db", new_tree, data.draw(st.permutations(sorted(new_tree))))
        before = compared(diff_reference.DiffQueries, diff_reference.build_view,
                          folder / "old.db", folder / "new.db", folder / "before.db", mapper)
        after = compared(DiffQueries, build_view, folder / "old.db", folder / "new.db", folder / "after.db", mapper)
    assert after == before


def test_the_generated_pairs_reach_every_category(tmp_path: Path) -> None:
    """The strategy is not too narrow to matter: one hand-written pair of its shapes changes in
    every category the summary counts."""
    img, day = Image(loc=f"{HOST}/1.jpg"), DAYS[1]
    old = {"a.xml": (False, [Entry(f"{HOST}/a", lastmod=day, lastmod_raw="2024-01-01", priority_raw="0.5",
                                   priority=0.5, images=[img]), Entry(f"{HOST}/b"), Entry(f"{HOST}/b")],
                     [("rule-a", 0)]),
           "b.xml": (False, [Entry(f"{HOST}/gone")], [])}
    new = {"a.xml": (False, [Entry("HTTPS://H.example/x/../a", lastmod=DAYS[2], lastmod_raw="2024-02-01",
                                   priority_raw="0.8", priority=0.8)], [("rule-b", -1)]),
           "c.xml": (True, [Entry(f"{HOST}/b"), Entry(f"{HOST}/new")], [])}
    write(tmp_path / "old.db", old)
    write(tmp_path / "new.db", new)
    out = compared(DiffQueries, build_view, tmp_path / "old.db", tmp_path / "new.db", tmp_path / "s.db", None)
    assert out["counts"] == [1, 1, 1]  # /new added, /gone removed, /b moved from a.xml to c.xml
    assert out["lastmod_counts"] == {"forward": 1} and out["attr_counts"] == {"priority": 1}
    assert out["ext_counts"] == {"images": 1}
    assert out["issue_counts"] == ({"rule-b": 1}, {"rule-a": 1})
    assert out["totals"] == ((3, 3), (3, 3))  # (files, URLs): /b listed twice in a.xml is one URL
    assert [(s[0].rsplit("/", 1)[1], s[-1]) for s in out["sitemaps"]] == [
        ("a.xml", "changed"), ("b.xml", "removed"), ("c.xml", "added"), ("index.xml", "same")]
    with sqlite3.connect(tmp_path / "s.db") as conn:
        assert conn.execute("SELECT count(*) FROM v_removed").fetchone()[0] == 1


@pytest.mark.parametrize("parsed", [["a.xml", "b.xml"], ["b.xml", "a.xml"]])
def test_a_url_two_files_list_is_compared_in_the_same_file_whatever_the_parse_order(
        tmp_path: Path, parsed: list[str]) -> None:
    """The same site twice, /a listed by a.xml and by b.xml (dated otherwise there, with an
    hreflang alternate): nothing changed, whichever file the second exploration parsed first.
    The comparison looked at each tree's least entry id before, so a tree whose b.xml was
    parsed first (several workers) showed a lastmod and an hreflang change against one parsed
    the other way round (the compare-mode snapshot's flake); now both sides look at the
    listing of the file listed first, a.xml."""
    files = {"a.xml": (False, [Entry(f"{HOST}/a", lastmod=DAYS[1], lastmod_raw="2024-01-01"),
                               Entry(f"{HOST}/x")], []),
             "b.xml": (False, [Entry(f"{HOST}/a", lastmod=DAYS[2], lastmod_raw="2024-02-01",
                                     alternates=[Alternate("alternate", "de", f"{HOST}/de/a")])], [])}
    write(tmp_path / "old.db", files)
    write(tmp_path / "new.db", files, parsed)
    out = compared(DiffQueries, build_view, tmp_path / "old.db", tmp_path / "new.db", tmp_path / "s.db", None)
    assert out["lastmod_counts"] == {} and out["ext_counts"] == {} and out["counts"] == [0, 0, 0]
    assert all(not any(row[1:]) for row in out["v_badges"])  # compare mode: no badge


def test_more_files_than_the_packing_holds_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first listing's file is packed beside its entry id (store/packed.py): a pair of trees
    with more files is refused with a StoreError (one line, exit 2), never compared wrongly.
    (2**23 files in practice; 3 here.)"""
    monkeypatch.setattr(queries, "FILE_MASK", 3)
    write(tmp_path / "old.db", {name: (False, [Entry(f"{HOST}/a")], []) for name in FILES[:2]})
    write(tmp_path / "new.db", {name: (False, [Entry(f"{HOST}/a")], []) for name in FILES[2:]})
    with pytest.raises(StoreError, match="5 sitemap files: a comparison takes at most 3"):
        compare(tmp_path / "old.db", tmp_path / "new.db", tmp_path / "s.db")

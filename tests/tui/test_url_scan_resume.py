"""The URL table's rescan while an index streams (issue 19): an id-ordered listing whose rows only
ever come at its end resumes from its last anchor instead of hopping over every row again each
few seconds (a full rescan of 1 M rows took 100-250 ms of a thread's CPU, and the UI loop's
longest stalls were the ones it overlapped). Rows removed before that anchor (a file fetched
again) are noticed, and then it rescans from the start."""

from __future__ import annotations

from pathlib import Path

from urltui_helpers import add_node, build_store, entry

from sitemap_tui.engine.store import EntryFilter, Store
from sitemap_tui.engine.store.urls import Query
from sitemap_tui.tui.widgets.url_table.messages import Scanned
from sitemap_tui.tui.widgets.url_table.scan import (
    ANCHOR_EVERY,
    ScanJob,
    resumes_safely,
    scan_listing,
)


def scan(db: Path, query: Query, start_j: int = 0, start_key=None, verify: bool = False, **kw) -> list[Scanned]:
    out: list[Scanned] = []
    job = ScanJob(db, 1, 1, query, None, start_j, start_key, False, 0.0, verify=verify, **kw)
    scan_listing(job, lambda m: out.append(m) if isinstance(m, Scanned) else None, lambda: False)
    return out


def anchors_after(messages: list[Scanned], anchors: list) -> list:
    for m in messages:
        del anchors[m.first:]
        anchors.extend(m.anchors)
    return anchors


def test_a_resumed_scan_checks_the_anchors_still_hold_and_rescans_when_rows_went(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    n1 = [entry(f"https://example.com/a/{i}", i + 1) for i in range(2 * ANCHOR_EVERY + 500)]
    store, ids = build_store(db, {1: n1})
    reader = Store(db, readonly=True)
    query = Query(reader, EntryFilter(), "id")
    first = scan(db, query)
    assert first[-1].done and first[-1].full
    anchors = anchors_after(first, [None])
    assert [a[1] for a in anchors[1:]] == [ids[1][ANCHOR_EVERY - 1], ids[1][2 * ANCHOR_EVERY - 1]]

    # rows come at the end (the next file streaming in): resumed from the last anchor, not full
    n2 = [entry(f"https://example.com/b/{i}", i + 1) for i in range(ANCHOR_EVERY)]
    add_node(store, 2)
    ids[2] = store.add_entries(2, n2)
    store.commit()
    store.begin()
    resumed = scan(db, query, 2, anchors[2], verify=True)
    assert not resumed[-1].full
    assert [m.count for m in resumed if m.counted] == [3 * ANCHOR_EVERY + 500]
    anchors = anchors_after(resumed, anchors)
    assert [a[1] for a in anchors[1:]] == [ids[1][ANCHOR_EVERY - 1], ids[1][2 * ANCHOR_EVERY - 1],
                                          ids[2][ANCHOR_EVERY // 2 - 1]]

    # the first file fetched again: its rows went (and come back later, at the end): the
    # anchors before the resumed one no longer hold, so the scan starts over
    store.delete_node_data([1])
    store.commit()
    store.begin()
    again = scan(db, query, 3, anchors[3], verify=True)
    assert again[-1].full
    assert [m.count for m in again if m.counted] == [ANCHOR_EVERY]
    anchors = anchors_after(again, anchors)
    assert [a[1] for a in anchors[1:]] == [ids[2][ANCHOR_EVERY - 1]]
    reader.conn.close()
    store.close()


def test_only_listings_whose_rows_come_at_their_end_resume_without_a_full_rescan() -> None:
    assert resumes_safely(EntryFilter())
    assert resumes_safely(EntryFilter(node_ids=[1, 2]))
    # an issue, an audit result or a comparison can add a row anywhere in the listing
    assert not resumes_safely(EntryFilter(has_issue=True))
    assert not resumes_safely(EntryFilter(node_ids=[1], status="404"))
    assert not resumes_safely(EntryFilter(diff_db="x.db"))


def test_a_resumed_scan_of_added_rows_counts_only_them_and_starts_over_when_its_check_fails(
        tmp_path: Path, monkeypatch) -> None:
    """While an index streams in, nothing is removed: the rescan adds the rows after its last
    anchor to the rows before it instead of counting the whole listing (a COUNT(*) over 1 M rows
    through a growing WAL each few seconds). The first and the resumed anchor are checked with
    one hop each; rows removed there make it start over and count everything."""
    db = tmp_path / "x.db"
    n1 = [entry(f"https://example.com/a/{i}", i + 1) for i in range(2 * ANCHOR_EVERY + 500)]
    store, ids = build_store(db, {1: n1})
    reader = Store(db, readonly=True)
    query = Query(reader, EntryFilter(), "id")
    anchors = anchors_after(scan(db, query), [None])
    counted: list[object] = []
    real_count = Query.count

    def count(self, conn, after=None):
        counted.append(after)
        return real_count(self, conn, after)

    monkeypatch.setattr(Query, "count", count)

    def added_only(anchors: list) -> list[Scanned]:
        j = len(anchors) - 1
        return scan(db, query, j, anchors[j], verify=True, added_only=True,
                    first_key=anchors[1], prev_key=anchors[j - 1])

    n2 = [entry(f"https://example.com/b/{i}", i + 1) for i in range(ANCHOR_EVERY + 10)]
    add_node(store, 2)
    ids[2] = store.add_entries(2, n2)
    store.commit()
    store.begin()
    resumed = added_only(anchors)
    assert not resumed[-1].full
    assert [m.count for m in resumed if m.counted] == [3 * ANCHOR_EVERY + 510]
    assert counted == [anchors[2]]  # only the rows after the resumed anchor were counted
    anchors = anchors_after(resumed, anchors)
    assert [a[1] for a in anchors[1:]] == [ids[1][ANCHOR_EVERY - 1], ids[1][2 * ANCHOR_EVERY - 1],
                                          ids[2][ANCHOR_EVERY // 2 - 1]]

    # rows at the start removed (the app did not say so): the first anchor moved, the scan
    # starts over and counts the whole listing
    store.conn.execute("DELETE FROM entries WHERE id <= ?", (ids[1][9],))
    store.commit()
    store.begin()
    counted.clear()
    again = added_only(anchors)
    assert again[-1].full
    assert counted == [None]
    assert [m.count for m in again if m.counted] == [3 * ANCHOR_EVERY + 500]
    anchors = anchors_after(again, anchors)
    assert [a[1] for a in anchors[1:]] == [ids[1][ANCHOR_EVERY + 9], ids[1][2 * ANCHOR_EVERY + 9],
                                          ids[2][ANCHOR_EVERY // 2 + 9]]
    reader.conn.close()
    store.close()


def test_the_count_after_a_key_reads_only_the_rows_after_it_in_any_order(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    rows = [entry(f"https://example.com/{i}", i + 1, lastmod=None if i % 3 == 0 else f"2024-01-{i % 28 + 1:02d}")
            for i in range(300)]
    store, _ids = build_store(db, {1: rows})
    reader = Store(db, readonly=True)
    for sort in ("id", "lastmod", "loc"):
        for descending in (False, True):
            query = Query(reader, EntryFilter(node_ids=[1]), sort, descending=descending)
            conn = reader.conn
            for k in (0, 1, 99, 199, 250, 299):
                key, _n = query.hop(conn, None, k + 1)
                assert query.count(conn, after=key) == 300 - k - 1, (sort, descending, k)
            assert query.count(conn) == 300
    reader.conn.close()
    store.close()

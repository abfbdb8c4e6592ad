"""What keeping the history costs `urls` (issue 19 + 20, the task urlshist): the history store of a
`urls` run is written more cheaply (plain rows bind fewer values in a worker's shard, a file's
statistics travel once at its end, the common row and statistic are built without the general
path) and must still hold exactly what the store held before: the same rows, the same
statistics, so that `diff`, `history` and the 304 carry read the same. Run against a server on
127.0.0.1 as a user runs the commands, with this test's own cache folder."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import sqlite3
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from werkzeug import Request, Response

from sitemap_tui import cli
from sitemap_tui.engine.filejob import FileJob, JobBatch, JobSpec
from sitemap_tui.engine.model import Alternate, Entry, Image
from sitemap_tui.engine.stats import FileAccumulator
from sitemap_tui.engine.store.rows import entry_rows
from sitemap_tui.engine.values import parse_w3c_datetime

NS = ('xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
      ' xmlns:xhtml="http://www.w3.org/1999/xhtml"')


def child(base: str, k: int, n: int) -> str:
    """Plain rows, and some with what makes a row not plain: images, hreflang links, a loc whose
    key is not itself (an upper-case scheme), lastmods before 1970 and with offsets."""
    urls = []
    for i in range(n):
        loc = f"{base}/c{k}/{i}" if i % 11 else f"{base.replace('http://', 'HTTP://')}/c{k}/{i}"
        lastmod = ("1969-12-31T23:59:59.500+00:00" if i % 13 == 0 else
                   f"2024-0{i % 9 + 1}-1{i % 10}T23:30:00-02:00" if i % 2 else f"2023-05-{i % 28 + 1:02d}")
        extra = ""
        if i % 7 == 0:
            extra += f"<image:image><image:loc>{base}/img/{k}-{i}.jpg</image:loc></image:image>"
        if i % 5 == 0:
            extra += (f'<xhtml:link rel="alternate" hreflang="en" href="{base}/c{k}/{i}"/>'
                      f'<xhtml:link rel="alternate" hreflang="DE" href="{base}/de/c{k}/{i}"/>')
        urls.append(f"<url><loc>{loc}</loc><lastmod>{lastmod}</lastmod><changefreq>{'daily' if i % 3 else 'Weekly'}"
                    f"</changefreq><priority>{(i % 21) / 20:.2f}</priority>{extra}</url>\n")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n{"".join(urls)}</urlset>\n'


@pytest.fixture()
def site(httpserver) -> tuple[str, list[str]]:
    """An index of three children that honour If-None-Match; returns its URL and the paths whose
    bodies were sent."""
    base = httpserver.url_for("").rstrip("/")
    sent: list[str] = []
    bodies = {f"/c{k}.xml": child(base, k, 700 + 300 * k).encode() for k in range(3)}
    bodies["/index.xml"] = ('<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                            + "".join(f"<sitemap><loc>{base}/c{k}.xml</loc></sitemap>" for k in range(3))
                            + "</sitemapindex>").encode()

    def handle(request: Request) -> Response:
        etag = f'"{request.path}"'
        if request.headers.get("If-None-Match") == etag:
            return Response(status=304, headers={"ETag": etag})
        sent.append(request.path)
        return Response(bodies[request.path], content_type="application/xml", headers={"ETag": etag})

    for path in bodies:
        httpserver.expect_request(path).respond_with_handler(handle)
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    return f"{base}/index.xml", sent


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("SITEMAP_TUI_CONFIG", str(tmp_path / "config.toml"))
    return tmp_path / "xdg-cache" / "sitemap-tui" / "explorations"


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([*args])
    return code, out.getvalue(), err.getvalue()


def saved(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.db"))


def contents(path: Path) -> dict[str, object]:
    """A store's rows by what they are (file URL and line), not by id: a run with workers and
    one without number them in another order."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        entries = sorted(con.execute(
            "SELECT n.url, e.line, e.loc, e.lastmod_raw, e.lastmod, e.changefreq_raw, e.changefreq, e.priority_raw,"
            " e.priority, e.n_images, e.n_videos, e.n_news, e.n_alternates, e.n_issues, e.title, e.key, e.alt_n,"
            " e.alt_h IS NOT NULL FROM entries e JOIN nodes n ON n.id = e.node_id"))
        images = sorted(con.execute(
            "SELECT n.url, e.line, i.loc, i.line FROM images i JOIN entries e ON e.id = i.entry_id"
            " JOIN nodes n ON n.id = e.node_id"))
        alternates = sorted(con.execute(
            "SELECT n.url, e.line, a.rel, a.hreflang, a.href, a.line, a.lang, a.tgt, a.media FROM alternates a"
            " JOIN entries e ON e.id = a.entry_id JOIN nodes n ON n.id = e.node_id"))
        aggs = {url: json.loads(agg) for url, agg in con.execute("SELECT url, agg FROM nodes WHERE agg IS NOT NULL")}
        counts = dict(con.execute("SELECT url, url_count FROM nodes"))
    finally:
        con.close()
    return {"entries": entries, "images": images, "alternates": alternates, "aggs": aggs, "counts": counts}


def test_a_urls_history_store_holds_what_the_in_process_store_holds_and_diff_history_and_carry_read_it(
        site: tuple[str, list[str]], cache: Path) -> None:
    """The workers' path (shards, plain rows, statistics at a file's end) against --workers 0
    (rows inserted by the store itself): every row, key and statistic alike; `diff` of the two
    finds nothing; `history` counts both alike; a third run, every file 304, carries the same."""
    target, sent = site
    code, first_out, err = run("urls", target, "--workers", "2", "--no-cache")
    assert code == 0, err
    code, second_out, err = run("urls", target, "--workers", "0", "--no-cache")
    assert code == 0, err
    # (the workers' files end in the order they end)
    assert sorted(second_out.splitlines()) == sorted(first_out.splitlines())
    assert first_out.count("\n") == 700 + 1000 + 1300
    shards, inline = saved(cache)
    a, b = contents(shards), contents(inline)
    assert a == b
    assert any(row[15] is not None for row in a["entries"])  # some keys are not their loc
    assert a["images"] and a["alternates"]
    for url, agg in a["aggs"].items():  # the statistics a file sent once, at its end, are whole
        if a["counts"][url]:
            assert agg["urls"] == a["counts"][url] == sum(agg["by_day"].values()) + agg["lastmod_missing"] \
                + agg["lastmod_invalid"]

    code, out, err = run("diff", f"{target}~1", f"{target}~0", "--format", "json")
    assert code == 0, err
    summary = json.loads(out)["summary"]
    assert summary["urls_added"] == summary["urls_removed"] == summary["lastmod_changed"] == 0, summary

    code, out, err = run("history", target, "--json")
    assert code == 0, err
    listed = json.loads(out)
    rows = listed["explorations"] if isinstance(listed, dict) else listed
    assert len(rows) == 2 and rows[0]["urls"] == rows[1]["urls"] == 3000, rows

    sent.clear()
    code, third_out, err = run("urls", target, "--workers", "2")
    assert code == 0, err
    assert "4 files unchanged since the previous exploration" in err, err
    assert sent == []  # the index and its children answered 304
    assert sorted(third_out.splitlines()) == sorted(first_out.splitlines())
    carried = contents(saved(cache)[-1])
    assert carried["entries"] == a["entries"] and carried["aggs"] == a["aggs"]


def test_a_headless_run_sends_a_files_statistics_once_at_its_end(tmp_path: Path) -> None:
    """live_stats off: no batch carries a snapshot of the file's counters (each one was a copy
    of every counter, pickled and stored as JSON), and the file's end carries all of them."""
    path = tmp_path / "s.xml"
    path.write_text(child("https://example.com", 0, 500))
    batches: list[JobBatch] = []
    for live in (True, False):
        batches.clear()
        spec = JobSpec(node_id=2, url="https://example.com/s.xml", local_path=str(path), output_format="txt",
                       batch_size=100, live_stats=live)
        done = asyncio.run(FileJob(spec, lambda m: batches.append(m) if isinstance(m, JobBatch) else None).run(None))
        assert len(batches) >= 2 and done.agg["urls"] == 500
        assert all((b.agg is not None) is live for b in batches)
        if live:
            assert batches[-1].agg == done.agg


def reference_counts(entries: list[Entry]) -> dict[str, Counter[str]]:
    """The day, month and priority counts, worked out the plain way."""
    days, months, priorities = Counter(), Counter(), Counter()
    for e in entries:
        if e.lastmod is not None:
            day = e.lastmod.astimezone(UTC).strftime("%Y-%m-%d")
            days[day] += 1
            months[day[:7]] += 1
        if e.priority is not None:
            priorities[f"{e.priority:.1f}"] += 1
    return {"by_day": days, "by_month": months, "priority": priorities}


def test_the_statistics_caches_count_what_formatting_every_url_counts() -> None:
    """Days named from the day number (pre-1970 fractions of a second, offsets across midnight,
    the same raw text again) and priorities from a cache of their buckets (the half-way values
    Python's formatting rounds to even) count exactly what formatting each URL's counts."""
    raws = ["1969-12-31T23:59:59.500+00:00", "1970-01-01T00:00:00Z", "2024-02-29T23:30:00-02:00",
            "2024-03-01T00:30:00+02:00", "2023-12-31", "2023-12", "1900-01-01T00:00:00.25Z", "not a date",
            "2024-02-29T23:30:00-02:00"]
    prios = [0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95, 1.0, 0.0, None]
    entries = []
    for i in range(400):
        raw = raws[i % len(raws)]
        e = Entry(loc=f"https://example.com/{i % 350}", line=i + 2, lastmod_raw=raw, lastmod=parse_w3c_datetime(raw))
        e.priority = prios[i % len(prios)]
        e.priority_raw = None if e.priority is None else str(e.priority)
        entries.append(e)
    acc = FileAccumulator(datetime(2024, 6, 1, tzinfo=UTC))
    for start in range(0, len(entries), 64):
        acc.add(entries[start:start + 64])
    want = reference_counts(entries)
    assert acc.agg.by_day == want["by_day"] and acc.agg.by_month == want["by_month"]
    assert {k: v for k, v in acc.agg.priority.items() if k != "missing"} == want["priority"]
    assert acc.agg.unique == 350 and acc.agg.urls == 400
    assert acc.agg.lastmod_min == int(parse_w3c_datetime("1900-01-01T00:00:00.25Z").timestamp())  # type: ignore[union-attr]


def test_a_plain_row_is_the_general_rows_row() -> None:
    """entry_rows writes a row without extensions out directly: the same tuple the general path
    gives it (key NULL when the loc is its own key, alt_n 0, alt_h NULL)."""
    plain = [Entry(loc="https://Example.com/a"), Entry(loc="https://example.com/b", title="t"), Entry(loc=None),
             Entry(loc="mailto:x@example.com")]
    rich = Entry(loc="https://example.com/c", images=[Image(loc="https://example.com/i.jpg")],
                 alternates=[Alternate(rel="alternate", hreflang="en", href="https://example.com/c")])
    rows = entry_rows([*plain, rich], b"k" * 16).entries
    assert [r[8:] for r in rows[:4]] == [(0, 0, 0, 0, None, "https://example.com/a", 0, None),
                                         (0, 0, 0, 0, "t", None, 0, None),
                                         (0, 0, 0, 0, None, "", 0, None),
                                         (0, 0, 0, 0, None, "", 0, None)]
    assert rows[4][8:12] == (1, 0, 0, 1) and rows[4][14] == 1 and rows[4][15] is not None

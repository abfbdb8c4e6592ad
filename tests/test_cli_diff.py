"""``sitemap-tui diff OLD NEW`` (issue 20 §1) as a user runs it: two versions of a site served on
127.0.0.1 (the files swapped between runs), saved explorations (--db) and targets explored now;
every kind of change, every format, --fail-if and the exit codes."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import sqlite3
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from sitemap_tui import cli
from sitemap_tui.session.diff import SUMMARY_KEYS

NS = ('xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
      'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
      'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
      'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
      'xmlns:xhtml="http://www.w3.org/1999/xhtml"')


def urlset(*urls: str) -> str:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n' + "\n".join(urls) + "\n</urlset>\n"


def url(loc: str, extra: str = "") -> str:
    return f"<url><loc>{loc}</loc>{extra}</url>"


def video(base: str) -> str:
    return (f"<video:video><video:thumbnail_loc>{base}/t.jpg</video:thumbnail_loc><video:title>T</video:title>"
            f"<video:description>D</video:description><video:content_loc>{base}/v.mp4</video:content_loc>"
            "</video:video>")


def news(base: str, title: str) -> str:
    return (f"<news:news><news:publication><news:name>N</news:name><news:language>en</news:language>"
            f"</news:publication><news:publication_date>2024-01-01</news:publication_date>"
            f"<news:title>{title}</news:title></news:news>")


def site(httpserver, version: int) -> str:
    """Serve version 1 or 2 of the site (replacing what was served); returns the index URL."""
    httpserver.clear()
    b = httpserver.url_for("").rstrip("/")
    children = ["a.xml", "b.xml", "flaky.xml", "broken.xml", "gone.xml" if version == 1 else "new.xml"]
    index = ('<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
             + "".join(f"<sitemap><loc>{b}/{c}</loc></sitemap>\n" for c in children) + "</sitemapindex>\n")
    files: dict[str, str] = {"/index.xml": index}
    if version == 1:
        files["/a.xml"] = urlset(
            url(f"{b}/p1", "<lastmod>2024-01-01</lastmod><changefreq>daily</changefreq><priority>0.5</priority>"
                f"<image:image><image:loc>{b}/i1.jpg</image:loc></image:image>"
                f'<xhtml:link rel="alternate" hreflang="en" href="{b}/p1"/>'
                f'<xhtml:link rel="alternate" hreflang="de" href="{b}/de/p1"/>'),
            url(f"{b}/p2", "<lastmod>2024-01-01</lastmod><priority>2.0</priority>"),
            url(f"{b}/p3"),
            url(f"{b}/moved", news(b, "First title")),
            url(f"{b}/t/"),
            url(f"{b}/caf%c3%a9"),
        )
        files["/b.xml"] = urlset(url(f"{b}/b1"))
        files["/broken.xml"] = urlset(url(f"{b}/k1"))
        files["/gone.xml"] = urlset(url(f"{b}/g1"))
    else:
        files["/a.xml"] = urlset(
            url(f"{b}/p1", "<lastmod>2023-06-01</lastmod><changefreq>weekly</changefreq><priority>.50</priority>"
                f"<image:image><image:loc>{b}/i2.jpg</image:loc></image:image>"
                f'<xhtml:link rel="alternate" hreflang="en" href="{b}/p1"/>'),
            url(f"{b}/p2", "<lastmod>2024-02-01</lastmod><priority>0.8</priority>"),
            url(f"{b}/p4", "<lastmod>2999-01-01</lastmod>"),
            url(f"{b}/t"),  # a trailing slash less: another URL
            url(f"{b}/café"),  # the same URL as %c3%a9
        )
        files["/b.xml"] = urlset(
            url(f"{b.replace('http://', 'HTTP://')}/x/../b1", video(b)),  # the same URL, normalised
            url(f"{b}/moved", news(b, "Second title")),
        )
        files["/flaky.xml"] = urlset(url(f"{b}/f1"))
        files["/new.xml"] = urlset(url(f"{b}/n1"))
    for path, body in files.items():
        httpserver.expect_request(path).respond_with_data(body, content_type="application/xml")
    if version == 1:
        httpserver.expect_request("/flaky.xml").respond_with_data("down", status=500)
    else:
        httpserver.expect_request("/broken.xml").respond_with_data("down", status=500)
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    return f"{b}/index.xml"


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            # --retries 0: the site's failing file answers 500 at once, not after 3.5 s of retries
            code = cli.main([*args, "--workers", "0", "--retries", "0"])
        except SystemExit as exc:  # argparse's own refusals (parser._Parser.error)
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def saved(make_httpserver, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The site's two versions saved as explorations (validate --db), once for the module, and
    its index URL. (Each test's ``httpserver`` clears what is served: a test that explores the
    site serves the version it needs.)"""
    folder = tmp_path_factory.mktemp("diff")
    old, new = folder / "old.db", folder / "new.db"
    target = site(make_httpserver, 1)
    assert run("validate", target, "--db", str(old), "--fail-on", "never")[0] == 0
    site(make_httpserver, 2)
    assert run("validate", target, "--db", str(new), "--fail-on", "never")[0] == 0
    return old, new, target


EXPECTED = {
    "urls_added": 4, "urls_removed": 4, "urls_moved": 1,
    "lastmod_changed": 2, "lastmod_forward": 1, "lastmod_backward": 1, "lastmod_set": 0, "lastmod_cleared": 0,
    "changefreq_changed": 1, "priority_changed": 1,
    "images_changed": 1, "videos_changed": 1, "news_changed": 1, "hreflang_changed": 1,
    "sitemaps_added": 1, "sitemaps_removed": 1, "sitemaps_failing": 1, "sitemaps_recovered": 1,
    "sitemaps_changed": 2,
}


def as_json(*args: str) -> dict:
    code, out, err = run("diff", *args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def test_every_kind_of_change_between_two_saved_explorations(saved) -> None:
    old, new, _ = saved
    report = as_json(str(old), str(new))
    schema = json.loads((Path(__file__).parents[1] / "docs" / "schemas" / "diff.schema.json").read_text())
    assert not list(Draft202012Validator(schema).iter_errors(report))
    assert all(report[name] for name in schema["properties"] if name not in ("old", "new"))  # every list has rows
    summary = report["summary"]
    assert list(summary) == list(SUMMARY_KEYS)
    assert all(type(v) is int for v in summary.values())
    assert {k: summary[k] for k in EXPECTED} == EXPECTED
    b = report["old"]["target"].rsplit("/", 1)[0]
    # added / removed over the whole tree: a trailing slash is another URL; %c3%a9 is é
    assert sorted(r["url"] for r in report["urls_added"]) == [f"{b}/f1", f"{b}/n1", f"{b}/p4", f"{b}/t"]
    assert sorted(r["url"] for r in report["urls_removed"]) == [f"{b}/g1", f"{b}/k1", f"{b}/p3", f"{b}/t/"]
    assert report["urls_moved"] == [{"url": f"{b}/moved", "from": f"{b}/a.xml", "to": f"{b}/b.xml"}]
    lastmod = {r["url"]: (r["direction"], r["old"], r["new"]) for r in report["lastmod_changed"]}
    assert lastmod == {f"{b}/p1": ("backward", "2024-01-01", "2023-06-01"),
                       f"{b}/p2": ("forward", "2024-01-01", "2024-02-01")}
    assert [(r["url"], r["old"], r["new"]) for r in report["changefreq_changed"]] == [(f"{b}/p1", "daily", "weekly")]
    # 0.5 and 0.50 are one priority; 2.0 -> 0.8 changed
    assert [(r["url"], r["old"], r["new"]) for r in report["priority_changed"]] == [(f"{b}/p2", "2.0", "0.8")]
    ext = {(r["url"], r["kind"]): (r["added"], r["removed"]) for r in report["extensions_changed"]}
    assert ext == {(f"{b}/p1", "images"): (1, 1), (f"{b}/p1", "hreflang"): (0, 1),
                   (f"{b}/b1", "videos"): (1, 0), (f"{b}/moved", "news"): (1, 1)}
    status = {r["sitemap"]: r["status"] for r in report["sitemaps"]}
    assert status == {f"{b}/a.xml": "changed", f"{b}/b.xml": "changed", f"{b}/new.xml": "added",
                      f"{b}/gone.xml": "removed", f"{b}/broken.xml": "failing", f"{b}/flaky.xml": "recovered"}
    per_file = {r["sitemap"]: (r["old_urls"], r["new_urls"], r["urls_added"], r["urls_removed"])
                for r in report["sitemaps"]}
    assert per_file[f"{b}/a.xml"] == (6, 5, 2, 3)  # +p4 +t, -p3 -t/ -moved
    assert per_file[f"{b}/b.xml"] == (1, 2, 1, 0)  # +moved
    # findings by rule: the future lastmod is new, the invalid priority resolved
    assert report["issues_new_by_rule"].get("lastmod-future") == 1
    assert report["issues_resolved_by_rule"].get("priority-invalid") == 1
    assert summary["issues_new"] == sum(report["issues_new_by_rule"].values())
    assert summary["issues_resolved"] == sum(report["issues_resolved_by_rule"].values())
    future = [r for r in report["issues_new"] if r["rule"] == "lastmod-future"]
    assert [(r["url"], r["sitemap"], r["count"]) for r in future] == [(f"{b}/p4", f"{b}/a.xml", 1)]


def test_a_target_explored_now_compares_as_its_saved_exploration(saved, httpserver) -> None:
    old, new, target = saved
    site(httpserver, 2)
    assert as_json(str(old), target)["summary"] == as_json(str(old), str(new))["summary"]
    code, out, err = run("diff", str(old), target, "--format", "json")
    assert code == 0
    assert json.loads(out)["new"]["saved"] is False and json.loads(out)["old"]["saved"] is True
    # what the exploration left out is said, naming the side
    assert f"sitemap-tui: NEW {target}: 1 file could not be fetched or read" in err


def test_the_same_exploration_has_no_changes(saved) -> None:
    old, _, _ = saved
    code, out, _ = run("diff", str(old), str(old), "--format", "json")
    assert code == 0
    assert set(json.loads(out)["summary"].values()) == {0}


def test_text_counts_first_then_samples(saved) -> None:
    old, new, _ = saved
    code, out, _ = run("diff", str(old), str(new), "--samples", "1")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("--- OLD ") and "(saved exploration of " in lines[0]
    assert lines[1].startswith("+++ NEW ")
    # distinct URLs, as the diff counts them (history's column counts a URL listed twice twice)
    assert lines[0].endswith(" distinct URLs") and lines[1].endswith(" distinct URLs"), lines[:2]
    assert lines[3] == "URLs        +4 -4, 1 moved to another sitemap"
    assert lines[4] == "lastmod     2 changed: 1 forward, 1 backward, 0 set, 0 cleared"
    assert "sitemaps    +1 -1, 1 failing now, 1 recovered, 2 changed" in lines
    assert lines.index("URLs added (4; first 1):") > lines.index("sitemaps:")
    added = lines[lines.index("URLs added (4; first 1):") + 1]
    assert added.startswith("  + http://") and added.endswith("/f1")
    assert any(line.startswith("  + lastmod-future") for line in lines)
    assert any("failing" in line and "broken.xml" in line for line in lines)
    # --samples 0: the counts and the sitemaps, no empty "(4; first 0):" lists (found from outside)
    code, out, _ = run("diff", str(old), str(new), "--samples", "0")
    assert code == 0 and "first 0" not in out and "URLs        +4 -4, 1 moved to another sitemap" in out, out


def test_jsonl_and_csv_hold_every_change(saved) -> None:
    old, new, _ = saved
    code, out, _ = run("diff", str(old), str(new), "--format", "jsonl")
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert records[0]["change"] == "summary" and records[0]["urls_removed"] == 4
    kinds = [r["change"] for r in records[1:]]
    assert kinds.count("url_added") == 4 and kinds.count("url_removed") == 4 and kinds.count("url_moved") == 1
    assert {"sitemap_added", "sitemap_removed", "sitemap_failing", "sitemap_recovered", "lastmod_changed",
            "changefreq_changed", "priority_changed", "extension_changed", "issue_new", "issue_resolved"} <= set(kinds)
    code, out, _ = run("diff", str(old), str(new), "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["change", "url", "sitemap", "old", "new", "detail"]
    assert [r["change"] for r in rows] == kinds
    backward = next(r for r in rows if r["change"] == "lastmod_changed" and r["detail"] == "backward")
    assert (backward["old"], backward["new"]) == ("2024-01-01", "2023-06-01")


def test_github_annotations(saved) -> None:
    old, new, _ = saved
    code, out, _ = run("diff", str(old), str(new), "--format", "github")
    assert code == 0
    lines = out.splitlines()
    (gone,) = [line for line in lines if line.startswith("::error title=sitemap removed::")]
    assert "gone.xml" in gone and re.search(r"\((1 URL|\d+ URLs) before\)", gone), gone  # (was "1 URLs")
    assert any(line.startswith("::error title=sitemap failing now::") and "broken.xml" in line for line in lines)
    assert any(line.startswith("::warning title=URLs removed::4 URLs removed: ") for line in lines)
    assert any(line.startswith("::warning title=lastmod went back in time::1 URL") for line in lines)
    assert "::warning title=lastmod-future::1 new finding of lastmod-future" in lines
    assert lines[-1].startswith("::notice title=sitemap-tui diff::URLs +4 -4")
    assert "  " not in lines[-1]  # the text summary's column padding does not carry into one line


@pytest.mark.parametrize(("conditions", "code"), [
    (("removed",), 1),
    (("removed>100",), 0),
    (("removed >= 4",), 1),
    (("urls_removed<4",), 0),
    (("issues_new",), 1),
    (("sitemaps_failing==1",), 1),
    (("added!=4", "moved>1"), 0),
    (("added!=4", "moved=1"), 1),
])
def test_fail_if(saved, conditions: tuple[str, ...], code: int) -> None:
    old, new, _ = saved
    args = [a for c in conditions for a in ("--fail-if", c)]
    got, out, err = run("diff", str(old), str(new), *args)
    assert got == code, err
    assert out.startswith("--- OLD")  # the report is written either way
    if code:
        assert "is met (" in err


@pytest.mark.parametrize(("args", "message"), [
    (("--fail-if", "removed>>1"), "--fail-if 'removed>>1': expected NAME or NAME OP NUMBER"),
    (("--fail-if", "gone"), "--fail-if 'gone': unknown name 'gone'"),
    (("--fail-if", "removed>-1"), "expected NAME or NAME OP NUMBER"),
    (("--map-host", "old.example"), "--map-host 'old.example': expected OLD-HOST=NEW-HOST"),
    (("--format", "xml"), "invalid choice: 'xml'"),
])
def test_bad_options_are_one_line_usage_errors(httpserver, args: tuple[str, ...], message: str) -> None:
    target = httpserver.url_for("/sitemap.xml")
    code, out, err = run("diff", target, target, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err
    assert httpserver.log == []  # refused before anything was fetched


def test_not_an_exploration_or_missing_file_or_unreachable_target(tmp_path: Path, httpserver) -> None:
    a = tmp_path / "a.xml"
    a.write_text(urlset(url("https://old.example/a")))
    code, _, err = run("diff", str(tmp_path / "missing.db"), str(a))
    assert code == 2 and "OLD" in err and "no such exploration file" in err
    other = tmp_path / "other.db"
    with contextlib.closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE t(x)")
    code, _, err = run("diff", str(a), str(other))
    assert code == 2 and "NEW" in err and "not a sitemap-tui exploration" in err
    for text in ("", "just words\n"):  # found from outside: read as a sitemap, exit 0
        (tmp_path / "empty.db").write_text(text)
        code, _, err = run("diff", str(tmp_path / "empty.db"), str(a))
        assert code == 2 and "OLD" in err and "not a saved exploration" in err and err.count("\n") == 1, err
    httpserver.expect_request("/sitemap.xml").respond_with_data("", status=404)
    code, _, err = run("diff", str(a), httpserver.url_for("/sitemap.xml"))
    assert code == 2 and "NEW" in err and "404" in err


def test_saved_explorations_are_not_changed(saved) -> None:
    old, new, _ = saved
    before = old.read_bytes(), new.read_bytes()
    assert run("diff", str(old), str(new))[0] == 0
    assert (old.read_bytes(), new.read_bytes()) == before
    # nor is anything left beside them (a read-only WAL reader left -wal and -shm files)
    assert sorted(p.name for p in old.parent.iterdir() if p.name.startswith((old.name, new.name))) == sorted(
        [old.name, new.name])


def test_a_store_another_run_is_writing_is_said(saved) -> None:
    """Found from outside: `diff X` while a run still wrote X compared its half-written
    exploration without a word."""
    from sitemap_tui.engine.store.file import StoreLock, lock_path

    old, new, _ = saved
    lock = StoreLock.acquire(new)  # as the run writing it holds it
    try:
        code, _, err = run("diff", str(old), str(new))
    finally:
        lock.release()
    assert code == 0
    assert f"NEW {new}: another sitemap-tui process (pid {os.getpid()}) is writing it now" in err, err
    code, _, err = run("diff", str(old), str(new))
    assert "is writing it" not in err and not lock_path(new).exists()


def test_map_host_for_a_migration(tmp_path: Path) -> None:
    old_dir, new_dir = tmp_path / "old", tmp_path / "new"
    old_dir.mkdir()
    new_dir.mkdir()
    (old_dir / "sitemap.xml").write_text(urlset(
        url("https://old.example/a", '<xhtml:link rel="alternate" hreflang="de" href="https://old.example/de/a"/>'),
        url("https://OLD.example:443/b")))
    (new_dir / "sitemap.xml").write_text(urlset(
        url("https://new.example/a", '<xhtml:link rel="alternate" hreflang="de" href="https://new.example/de/a"/>'),
        url("https://new.example/b"), url("https://new.example/c")))
    plain = as_json(str(old_dir), str(new_dir))["summary"]
    assert (plain["urls_added"], plain["urls_removed"]) == (3, 2)
    mapped = as_json(str(old_dir), str(new_dir), "--map-host", "old.example=new.example")
    assert (mapped["summary"]["urls_added"], mapped["summary"]["urls_removed"]) == (1, 0)
    assert mapped["summary"]["hreflang_changed"] == 0
    assert [r["url"] for r in mapped["urls_added"]] == ["https://new.example/c"]
    # two folders: sitemap.xml is the same file in both
    assert [(r["sitemap"], r["status"]) for r in mapped["sitemaps"]] == [("./sitemap.xml", "changed")]


def test_output_file(saved, tmp_path: Path) -> None:
    old, new, _ = saved
    dest = tmp_path / "out" / "changes.json"
    code, out, _ = run("diff", str(old), str(new), "--format", "json", "--output", str(dest))
    assert code == 0 and out == ""
    assert json.loads(dest.read_text())["summary"]["urls_added"] == 4


def test_options_go_anywhere(saved) -> None:
    old, new, _ = saved
    code, out, _ = run("--format", "jsonl", "diff", str(old), "--samples", "2", str(new))
    assert code == 0 and json.loads(out.splitlines()[0])["change"] == "summary"


def test_a_store_written_before_the_url_keys(saved, tmp_path: Path) -> None:
    """A version-1 store (no entries.key/alt_n, no alternates.lang/tgt: opened read-only, never
    upgraded by diff) compares as its current form does: the keys are computed from the locs."""
    old, new, _ = saved
    v1 = tmp_path / "v1.db"
    v1.write_bytes(old.read_bytes())
    with contextlib.closing(sqlite3.connect(v1)) as conn:
        conn.execute("DROP INDEX IF EXISTS entries_nokey")
        for table, columns in (("entries", ("key", "alt_n", "alt_h")), ("alternates", ("lang", "tgt", "media"))):
            for column in columns:
                conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        conn.execute("""UPDATE meta SET value = '"1"' WHERE key = 'schema'""")
        conn.commit()
    before = v1.read_bytes()
    expected = as_json(str(old), str(new))
    got = as_json(str(v1), str(new))
    assert got["summary"] == expected["summary"]
    assert got["urls_removed"] == expected["urls_removed"]
    assert v1.read_bytes() == before


def test_a_db_kept_by_urls_says_its_findings_are_not_like_for_like(tmp_path: Path) -> None:
    """Found from outside: `urls --db u1.db`, then `diff u1.db SAME` said "findings 1 new" on an
    identical sitemap with no word: a --db store recorded no command, as history copies do."""
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(urlset(url("https://example.com/a")))  # lastmod-missing for validate
    db = tmp_path / "u1.db"
    code, _, _ = run("urls", str(sitemap), "--db", str(db))
    assert code == 0
    code, out, err = run("diff", str(db), str(sitemap), "--no-history")
    assert code == 0
    assert f"OLD {db}: saved by `urls`, which checks no rules" in err, err
    assert "(not like for like: OLD was kept by `urls`, which checks no rules)" in out, out


def test_a_saved_side_that_left_files_unfetched_is_said(httpserver, tmp_path: Path) -> None:
    """An exploration cut by its file budget, kept, then compared: its unfetched file came out
    "changed 0 -> 2 URLs", its URLs "added", with no word that OLD never read it."""
    httpserver.clear()
    b = httpserver.url_for("").rstrip("/")
    index = ('<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
             + "".join(f"<sitemap><loc>{b}/{name}.xml</loc></sitemap>\n" for name in ("a", "b"))
             + "</sitemapindex>\n")
    httpserver.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")
    httpserver.expect_request("/a.xml").respond_with_data(urlset(url(f"{b}/a")), content_type="application/xml")
    httpserver.expect_request("/b.xml").respond_with_data(urlset(url(f"{b}/b1"), url(f"{b}/b2")),
                                                         content_type="application/xml")
    old = tmp_path / "old.db"
    code, _, err = run("urls", f"{b}/index.xml", "--db", str(old), "--max-files", "2")
    assert code == 0 and "1 file not fetched" in err, err
    code, out, err = run("diff", str(old), f"{b}/index.xml", "--no-history", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["summary"]["urls_added"] == 2
    assert (f"sitemap-tui: OLD {old}: 1 listed file was not fetched in that exploration (a depth limit, a file"
            f" budget, a cap or a stop), first {b}/b.xml: what it lists counts as added") in err, err


def test_urls_that_cannot_be_compared_are_said(tmp_path: Path) -> None:
    """Found from outside: a NEW listing `https://example.com/a b` and `/relative` (which `urls`
    prints) showed neither as added, and nothing said why the counts did not add up."""
    old, new = tmp_path / "old.xml", tmp_path / "new.xml"
    old.write_text(urlset(url("https://example.com/keep")))
    new.write_text(urlset(url("https://example.com/keep"), url("https://example.com/a b"), url("/relative"),
                          url("https://example.com/ok-new")))
    code, out, err = run("diff", str(old), str(new), "--no-history")
    assert code == 0, err
    assert f"sitemap-tui: NEW {new}: 2 listed URLs not compared: not an absolute http(s) URL" in err, err
    assert "OLD" not in err.split("not compared")[0].splitlines()[-1]


def test_a_side_explored_now_that_left_files_unfetched_is_said_and_not_recovered(httpserver, tmp_path: Path) -> None:
    """Found from outside: with NEW cut by --max-files, a file that failed in OLD and was not
    fetched now read as "recovered", files with URLs as "changed 3 -> 0", and their URLs as
    removed, with no word of it. The files are "unfetched", and stderr says what it does."""
    httpserver.clear()
    b = httpserver.url_for("").rstrip("/")
    index = ('<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
             + "".join(f"<sitemap><loc>{b}/{name}.xml</loc></sitemap>\n" for name in ("a", "b", "c"))
             + "</sitemapindex>\n")
    httpserver.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")
    httpserver.expect_request("/a.xml").respond_with_data(urlset(url(f"{b}/a")), content_type="application/xml")
    httpserver.expect_request("/b.xml").respond_with_data(urlset(url(f"{b}/b1")), content_type="application/xml")
    httpserver.expect_request("/c.xml").respond_with_data("down", status=500)
    old = tmp_path / "old.db"
    code, _, err = run("urls", f"{b}/index.xml", "--db", str(old))
    assert code == 0, err
    code, out, err = run("diff", str(old), f"{b}/index.xml", "--no-history", "--format", "json", "--max-files", "2")
    assert code == 0, err
    doc = json.loads(out)
    status = {s["sitemap"].rsplit("/", 1)[-1]: s["status"] for s in doc["sitemaps"]}
    assert status == {"b.xml": "unfetched", "c.xml": "unfetched"}, doc["sitemaps"]
    assert doc["summary"]["sitemaps_recovered"] == 0 and doc["summary"]["sitemaps_unfetched"] == 2
    assert (f"sitemap-tui: NEW {b}/index.xml: 2 listed files were not fetched now (said above), first"
            f" {b}/b.xml: what they list counts as removed") in err, err


def test_files_unread_on_both_sides_are_the_same_and_a_file_failing_now_is_failing(httpserver, tmp_path: Path) -> None:
    """Found by a review: two explorations cut alike (--depth 0) listed their children as
    "unfetched" (and --fail-if sitemaps_unfetched failed on identical runs), and a file that
    fails now but was not fetched before read as "unfetched", not "failing"."""
    httpserver.clear()
    b = httpserver.url_for("").rstrip("/")
    index = ('<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
             f"<sitemap><loc>{b}/a.xml</loc></sitemap>\n</sitemapindex>\n")
    httpserver.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")
    httpserver.expect_request("/a.xml").respond_with_data("gone", status=404)
    one, two = tmp_path / "one.db", tmp_path / "two.db"
    for db in (one, two):
        code, _, err = run("urls", f"{b}/index.xml", "--db", str(db), "--depth", "0")
        assert code == 0, err
    code, out, err = run("diff", str(one), str(two), "--format", "json", "--fail-if", "sitemaps_unfetched")
    assert code == 0 and json.loads(out)["sitemaps"] == [] and "not fetched" not in err, (out, err)
    code, out, err = run("diff", str(one), f"{b}/index.xml", "--no-history", "--format", "json")
    doc = json.loads(out)
    assert [s["status"] for s in doc["sitemaps"]] == ["failing"], doc["sitemaps"]
    assert doc["summary"]["sitemaps_failing"] == 1 and doc["summary"]["sitemaps_unfetched"] == 0


def test_the_same_priority_text_is_no_change_whatever_a_version_parsed(tmp_path: Path) -> None:
    """Found by a review: a store an earlier version parsed read ".5" as no priority; the first
    diff after the upgrade called every such priority changed ('.5 -> .5')."""
    import sqlite3

    old, new = tmp_path / "old.xml", tmp_path / "new.xml"
    for path in (old, new):
        path.write_text(urlset(url("https://example.com/a", "<priority>.5</priority>"),
                               url("https://example.com/b", "<priority>0.3</priority>")))
    one, two = tmp_path / "one.db", tmp_path / "two.db"
    for source, db in ((old, one), (new, two)):
        code, _, err = run("urls", str(source), "--db", str(db))
        assert code == 0, err
    conn = sqlite3.connect(one)
    conn.execute("UPDATE entries SET priority = NULL WHERE priority_raw = '.5'")  # as the old parser stored it
    conn.commit()
    conn.close()
    code, out, err = run("diff", str(one), str(two), "--format", "json")
    assert code == 0 and json.loads(out)["summary"]["priority_changed"] == 0, out
    # near miss: another text is a change
    two.unlink()
    new.write_text(urlset(url("https://example.com/a", "<priority>.5</priority>"),
                          url("https://example.com/b", "<priority>0.4</priority>")))
    run("urls", str(new), "--db", str(two))
    code, out, err = run("diff", str(one), str(two), "--format", "json")
    assert json.loads(out)["summary"]["priority_changed"] == 1, out


def test_the_children_of_an_index_that_fails_now_are_unfetched_not_removed(httpserver, tmp_path: Path) -> None:
    """Found from outside: a site whose index answered 500 on the second run reported every
    child sitemap (and the children of a nested index) "removed", with exit 0, a GitHub error
    per file and no word in the report; a file left unfetched by a budget read as "unfetched".
    Now they are "unfetched", name the file that failed, and stderr says what their URLs count as."""
    httpserver.clear()
    b = httpserver.url_for("").rstrip("/")

    def index(*names: str) -> str:
        return ('<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
                + "".join(f"<sitemap><loc>{b}/{name}.xml</loc></sitemap>\n" for name in names) + "</sitemapindex>\n")

    httpserver.expect_request("/robots.txt").respond_with_data(f"Sitemap: {b}/index.xml\n")
    httpserver.expect_request("/index.xml").respond_with_data(index("a", "sub"), content_type="application/xml")
    httpserver.expect_request("/sub.xml").respond_with_data(index("c"), content_type="application/xml")
    for name in ("a", "c"):
        httpserver.expect_request(f"/{name}.xml").respond_with_data(urlset(url(f"{b}/{name}")),
                                                                   content_type="application/xml")
    old = tmp_path / "old.db"
    code, _, err = run("urls", b, "--db", str(old))
    assert code == 0, err
    httpserver.clear()
    httpserver.expect_request("/robots.txt").respond_with_data(f"Sitemap: {b}/index.xml\n")
    httpserver.expect_request("/index.xml").respond_with_data("down", status=500)
    code, out, err = run("diff", str(old), b, "--no-history", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    status = {s["sitemap"].rsplit("/", 1)[-1]: (s["status"], s["unlisted_by"]) for s in doc["sitemaps"]}
    assert status == {"index.xml": ("failing", None), "a.xml": ("unfetched", f"{b}/index.xml"),
                      "sub.xml": ("unfetched", f"{b}/index.xml"), "c.xml": ("unfetched", f"{b}/index.xml")}, status
    assert doc["summary"]["sitemaps_removed"] == 0 and doc["summary"]["sitemaps_unfetched"] == 3
    assert (f"sitemap-tui: NEW {b}: 3 sitemap files of the other side were not read, as {b}/index.xml that lists"
            f" them failed, was cut short or was not fetched, first {b}/a.xml: not counted as removed files, but"
            " what they list"
            " counts as removed URLs") in err, err
    code, out, _ = run("diff", str(old), b, "--no-history", "--format", "github")
    assert "sitemap removed" not in out and "sitemap failing now" in out, out
    code, out, _ = run("diff", str(old), b, "--no-history")
    assert "unfetched 1 -> - URLs" in out and f"not read ({b}/index.xml failed there) in NEW" in out, out


def test_a_file_cut_short_by_an_xml_error_is_failing_and_its_index_lists_no_removed_file(
        httpserver, tmp_path: Path) -> None:
    """Found from outside: a child sitemap whose XML broke before its end read as "changed", its
    URLs as plain removals, with no reason on its row, no GitHub error and --fail-if
    sitemaps_failing not met; an index cut short the same way made the children after the break
    "removed" sitemaps. Now a file cut short is failing (its error said), the files it no longer
    lists unfetched; read whole again, it has recovered."""
    httpserver.clear()
    b = httpserver.url_for("").rstrip("/")
    head = '<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    whole_index = head + "".join(f"<sitemap><loc>{b}/{n}.xml</loc></sitemap>\n" for n in "abc") + "</sitemapindex>\n"
    pages = {n: urlset(*(url(f"{b}/{n}{i}") for i in range(4))) for n in "abc"}

    def serve(index: str, files: dict[str, str]) -> None:
        httpserver.clear()
        httpserver.expect_request("/robots.txt").respond_with_data(f"Sitemap: {b}/index.xml\n")
        httpserver.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")
        for name, body in files.items():
            httpserver.expect_request(f"/{name}.xml").respond_with_data(body, content_type="application/xml")

    serve(whole_index, pages)
    old = tmp_path / "old.db"
    code, _, err = run("urls", b, "--db", str(old))
    assert code == 0, err
    broken = pages["b"].split("<url>", 2)  # cut inside its second entry: one URL kept of four
    serve(whole_index, {**pages, "b": broken[0] + "<url>" + broken[1] + "<url><loc>x</lo"})
    code, out, err = run("diff", str(old), b, "--no-history", "--format", "json", "--fail-if", "sitemaps_failing>0")
    assert code == 1, err
    doc = json.loads(out)
    (row,) = doc["sitemaps"]
    assert row["status"] == "failing" and row["sitemap"] == f"{b}/b.xml" and "parsing stopped at" in row["error"]
    assert doc["summary"]["sitemaps_failing"] == 1 and doc["summary"]["urls_removed"] == 3
    code, out, _ = run("diff", str(old), b, "--no-history")
    assert "failing   4 -> 1 URLs" in out and "parsing stopped at line:col" in out, out
    code, out, _ = run("diff", str(old), b, "--no-history", "--format", "github")
    assert "sitemap failing now" in out and "b.xml" in out, out
    # the index cut inside its second <sitemap>: b.xml and c.xml are unread, not removed
    serve(whole_index.split(f"<loc>{b}/b.xml")[0] + "<loc>", pages)
    cut = tmp_path / "cut.db"
    code, out, err = run("urls", b, "--db", str(cut))
    code, out, err = run("diff", str(old), str(cut), "--format", "json")
    assert code == 0, err
    status = {s["sitemap"].rsplit("/", 1)[-1]: (s["status"], s["unlisted_by"], s["unlisted_state"])
              for s in json.loads(out)["sitemaps"]}
    assert status == {"index.xml": ("failing", None, None), "b.xml": ("unfetched", f"{b}/index.xml", "cut"),
                      "c.xml": ("unfetched", f"{b}/index.xml", "cut")}, status
    code, out, _ = run("diff", str(old), str(cut))
    assert f"not read ({b}/index.xml was cut short there) in NEW" in out and "  removed  " not in out, out
    # and back: read whole again, the index has recovered and its children are not "added"
    code, out, err = run("diff", str(cut), str(old), "--format", "json")
    status = {s["sitemap"].rsplit("/", 1)[-1]: s["status"] for s in json.loads(out)["sitemaps"]}
    assert status == {"index.xml": "recovered", "b.xml": "unfetched", "c.xml": "unfetched"}, status


def test_a_url_added_at_the_top_makes_no_sampled_finding_new(tmp_path: Path) -> None:
    """Found by a review: a per-file finding that names its URLs by a sample (the first URL:
    "URLs without <lastmod>: 2 of 2") was matched by that URL, so one URL added at the top of
    a file made it new and resolved, and `--fail-if issues_new` failed CI on a harmless edit.
    It is matched by its words, numbers left out, as a baseline matches it; a finding about one
    URL (a bad priority) still is new when that URL is."""
    ns = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'

    def write(folder: str, pages: list[str]) -> Path:
        path = tmp_path / folder / "sitemap.xml"
        path.parent.mkdir()
        rows = "".join(f"<url><loc>https://example.com/{p}</loc>{'<priority>7</priority>' if p == 'bad' else ''}"
                       "</url>\n" for p in pages)
        path.write_text(f'<?xml version="1.0"?>\n<urlset {ns}>\n{rows}</urlset>\n')
        return path

    old, new = write("t1", ["a", "b"]), write("t2", ["top", "a", "b"])
    code, out, err = run("diff", str(old), str(new), "--format", "json", "--fail-if", "issues_new")
    summary = json.loads(out)["summary"]
    assert code == 0, err
    assert (summary["issues_new"], summary["issues_resolved"]) == (0, 0), summary
    worse = write("t3", ["bad", "a", "b"])
    code, out, err = run("diff", str(old), str(worse), "--format", "json", "--fail-if", "issues_new")
    assert code == 1 and json.loads(out)["summary"]["issues_new"] >= 1, (out, err)  # (its priority, its schema)


def test_a_sampled_finding_naming_the_host_compares_across_map_host(httpserver) -> None:
    """Found by a regression review: matched by its words, a finding that names the sitemap's
    host ("not the sitemap's host '127.0.0.1:PORT'") was new and resolved across --map-host,
    whose mapping the URL keys had and the words had not."""
    httpserver.clear()
    body = ('<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            "<url><loc>https://elsewhere.example/a</loc></url>\n<url><loc>https://elsewhere.example/b</loc></url>\n"
            "</urlset>\n")
    httpserver.expect_request("/s.xml").respond_with_data(body, content_type="application/xml")
    port = httpserver.port
    old, new = f"http://127.0.0.1:{port}/s.xml", f"http://localhost:{port}/s.xml"
    code, out, err = run("diff", old, new, "--format", "json", "--no-history")
    assert json.loads(out)["summary"]["issues_new"] >= 1, (out, err)  # unmapped: another host indeed
    code, out, err = run("diff", old, new, "--format", "json", "--no-history",
                         "--map-host", f"127.0.0.1:{port}=localhost:{port}", "--fail-if", "issues_new")
    summary = json.loads(out)["summary"]
    assert code == 0 and (summary["issues_new"], summary["issues_resolved"]) == (0, 0), (summary, err)

"""A site's history (issue 20 §3): the headless commands keep every exploration in the cache as
the explorer does (``--no-history`` opts out, ``--db`` writes where it says), ``history SITE``
lists them, and ``diff SITE`` compares a fresh exploration with the latest saved one. Run as a
user runs them, against a site on 127.0.0.1 that changes between runs, with this test's own
cache folder (XDG_CACHE_HOME)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import time
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from pytest_httpserver import HTTPServer

from sitemap_tui import cli

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def serve(httpserver, *pages: str, status: int = 200, robots: str | None = None) -> str:
    """Serve a sitemap of ``pages`` (replacing what was served), and ``robots`` as robots.txt
    (else a 404); returns its URL."""
    httpserver.clear()
    b = httpserver.url_for("").rstrip("/")
    body = f'<?xml version="1.0"?>\n<urlset {NS}>' + "".join(
        f"<url><loc>{b}/{p}</loc><lastmod>2024-01-01</lastmod></url>" for p in pages) + "</urlset>\n"
    httpserver.expect_request("/sitemap.xml").respond_with_data(body if status == 200 else "down", status=status,
                                                               content_type="application/xml")
    httpserver.expect_request("/robots.txt").respond_with_data(robots or "", status=404 if robots is None else 200)
    return httpserver.url_for("/sitemap.xml")


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([*args])
        except SystemExit as exc:  # argparse's own refusals
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def explore(*args: str) -> tuple[int, str, str]:
    return run(*args, "--workers", "0")


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own cache folder and config file."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("SITEMAP_TUI_CONFIG", str(tmp_path / "config.toml"))
    return tmp_path / "xdg-cache" / "sitemap-tui" / "explorations"


def kept(cache: Path) -> list[Path]:
    """Every file the cache holds (partial files and locks included: none may be left)."""
    return sorted(cache.iterdir()) if cache.is_dir() else []


SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "docs" / "schemas" / "history.schema.json").read_text())


def history(site: str) -> dict:
    code, out, err = run("history", site, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert not list(Draft202012Validator(SCHEMA).iter_errors(report))  # the documented shape
    return report


def test_two_urls_runs_then_history_lists_both_newest_first(httpserver, cache: Path) -> None:
    target = serve(httpserver, "a", "b")
    assert explore("urls", target)[0] == 0
    serve(httpserver, "a", "b", "c")
    code, out, _ = explore("urls", target)
    assert code == 0 and out.count("\n") == 3  # the command's own output is unchanged
    assert [p.suffix for p in kept(cache)] == [".db", ".db"]
    report = history(target)
    # a site is its host and, off the scheme's default port, its port: the port is part of the
    # key since the demo's runs (a new port each) were compared as one site (+419 -419)
    assert report["site"] == f"127.0.0.1:{httpserver.port}"
    rows = report["explorations"]
    assert [r["urls"] for r in rows] == [3, 2]  # newest first
    assert [r["files"] for r in rows] == [1, 1]
    assert all(r["command"] == "urls" and r["bytes"] > 0 for r in rows)
    assert rows[0]["started"] > rows[1]["started"]
    # the same site however it is named; the bare host finds its only port's, and says so
    assert history(f"127.0.0.1:{httpserver.port}")["explorations"] == rows
    assert history("127.0.0.1")["explorations"] == rows
    assert f"127.0.0.1 has none on the default port: those of 127.0.0.1:{httpserver.port}" in run("history", "127.0.0.1")[2]
    assert history(httpserver.url_for("/other.xml"))["explorations"] == rows
    code, out, err = run("history", target)
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 3 and lines[0].split()[:2] == ["date", "URLs"]
    assert lines[1].split()[2:4] == ["3", "1"] and lines[2].split()[2:4] == ["2", "1"]
    assert f"2 explorations of 127.0.0.1:{httpserver.port}" in err


def test_stats_and_validate_are_kept_too_with_their_findings(httpserver, cache: Path) -> None:
    target = serve(httpserver, "a", "a")  # a duplicate URL: a warning of validate's
    assert explore("stats", target)[0] == 0
    assert explore("validate", target, "--fail-on", "never")[0] == 0
    rows = history(target)["explorations"]
    assert [r["command"] for r in rows] == ["validate", "stats"]
    assert rows[0]["warnings"] + rows[0]["errors"] >= 1
    assert rows[0]["checks"] == "all" and rows[1]["checks"] == "none"


def test_no_history_keeps_nothing_and_db_writes_only_where_named(httpserver, cache: Path, tmp_path: Path) -> None:
    target = serve(httpserver, "a")
    for command in ("urls", "stats", "validate"):
        assert explore(command, target, "--no-history")[0] == 0, command
    assert kept(cache) == []
    db = tmp_path / "mine.db"
    assert explore("urls", target, "--db", str(db))[0] == 0
    assert db.is_file() and kept(cache) == []
    code, _, err = run("history", target)
    assert code == 0 and "no saved exploration of 127.0.0.1" in err


def test_a_target_that_never_answers_keeps_nothing_and_says_so(httpserver, cache: Path) -> None:
    # (an error page is an answer, kept as --db keeps it: its sitemap fails, which a diff reports)
    target = serve(httpserver, "a")
    httpserver.stop()  # nothing listens there any more
    try:
        code, _, err = explore("urls", target)
    finally:
        httpserver.start()
    assert code == 2
    assert "not kept in the history" in err
    assert kept(cache) == []


def test_diff_site_compares_a_fresh_exploration_with_the_latest_saved(httpserver, cache: Path) -> None:
    target = serve(httpserver, "a", "b")
    assert explore("urls", target)[0] == 0
    serve(httpserver, "a", "c", "d")
    code, out, err = explore("diff", target, "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["summary"]["urls_added"] == 2 and report["summary"]["urls_removed"] == 1
    assert report["old"]["saved"] is True
    # the fresh exploration joins the history: the next diff compares with it
    assert [r["urls"] for r in history(target)["explorations"]] == [3, 2]
    code, out, _ = explore("diff", target, "--format", "json")
    assert code == 0 and set(json.loads(out)["summary"].values()) == {0}
    # the old one was made by urls, which checks no rules: its findings are not comparable
    assert "saved by `urls`" in err


def test_diff_site_passes_over_newer_explorer_sessions(httpserver, cache: Path) -> None:
    """Found from outside: a glance at the site in the explorer (one lazily opened node, kept)
    became diff SITE's baseline: every URL "added", the page removed since the nightly run
    unseen, and --fail-if removed passed. Near miss: with no headless run, the session it is,
    unless it listed no URL."""
    from sitemap_tui.engine.store import Store

    target = serve(httpserver, "a", "b")
    assert explore("urls", target)[0] == 0
    time.sleep(1.1)  # (the files are named by the second)
    session = cache / f"127.0.0.1_{httpserver.port}-29990101-000000.db"  # newest: as the explorer keeps one
    serve(httpserver, "a")  # the node the session opened
    assert explore("urls", target, "--db", str(session), "--no-history")[0] == 0
    store = Store(session)
    store.set_meta("started", "2999-01-01T00:00:00+00:00")
    store.conn.execute("DELETE FROM meta WHERE key IN ('command', 'checks', 'site')")  # as the explorer's
    store.close()
    serve(httpserver, "a", "c")
    code, out, err = explore("diff", target, "--format", "json", "--no-history", "--fail-if", "removed")
    assert code == 1 and json.loads(out)["summary"]["urls_removed"] == 1, err
    assert "OLD: 1 newer explorer session passed over" in err
    for old in cache.glob("*.db"):
        if old != session:
            old.unlink()
    code, out, err = explore("diff", target, "--format", "json", "--no-history")
    assert code == 0 and json.loads(out)["summary"]["urls_added"] == 1 and "passed over" not in err
    # a session that listed no URL (opened while the site had no sitemap) is no baseline, as a
    # headless run that listed nothing is not kept: found from outside, every URL read as added
    store = Store(session)
    store.conn.execute("UPDATE nodes SET url_count = 0")  # (the count the history reads)
    store.conn.execute("DELETE FROM entries")
    store.close()
    code, out, err = explore("diff", target, "--format", "json", "--no-history")
    assert code == 2 and "OLD: 1 explorer session that listed no URL passed over" in err, err
    assert "no saved exploration of" in err


def test_diff_site_compares_with_the_latest_of_that_target_not_another_of_its_site(httpserver, cache: Path) -> None:
    """Found from outside: one `urls SITE/news.xml` during the day became the nightly `diff`'s
    baseline: every other URL "added", `--fail-if removed` met by the news file's. The latest
    kept of the same target is OLD, the newer run of another target passed over (said). Near
    miss: with none of that target, the latest of its site, and that said."""
    target = serve(httpserver, "a", "b")
    news = httpserver.url_for("/news.xml")
    httpserver.expect_request("/news.xml").respond_with_data(
        f'<?xml version="1.0"?>\n<urlset {NS}><url><loc>{news}#n</loc></url></urlset>\n', content_type="application/xml")
    assert explore("urls", target)[0] == 0
    time.sleep(1.1)  # (the files are named by the second)
    assert explore("urls", news)[0] == 0
    code, out, err = explore("diff", target, "--format", "json", "--no-history", "--fail-if", "removed")
    assert code == 0 and set(json.loads(out)["summary"].values()) == {0}, (out, err)
    assert f"OLD: 1 newer exploration of another target passed over (the latest: {news})" in err, err
    assert "explorer session" not in err, err  # (none was: found by a review, the other target's counted as one)
    code, out, err = explore("diff", httpserver.url_for("/"), "--format", "json", "--no-history")
    assert f"OLD: no kept exploration of {httpserver.url_for('/')} itself: compared with the latest of its site, " \
           f"of {news}" in err, err


def test_diff_of_a_site_without_a_scheme_explores_it_as_it_was_kept(httpserver, cache: Path) -> None:
    """Found from outside: `diff 127.0.0.1:PORT` after http explorations explored https:// (a
    TLS error on a plain server); the site is explored again over the scheme it was kept with."""
    target = serve(httpserver, "a", "b")
    assert explore("urls", target)[0] == 0
    code, out, err = explore("diff", f"127.0.0.1:{httpserver.port}", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["new"]["target"].startswith("http://127.0.0.1:")


def test_the_text_reports_findings_line_says_when_a_side_checked_no_rules(httpserver, cache: Path) -> None:
    """Tried by hand: `diff SITE` after a `urls` run read "findings 2486 new", the rules `urls`
    never ran, with the reason on stderr only; the report's own line says it now."""
    target = serve(httpserver, "a", "b")
    assert explore("urls", target)[0] == 0
    code, out, _ = explore("diff", target)
    assert code == 0
    (line,) = [line for line in out.splitlines() if line.startswith("findings ")]
    assert line.endswith("(not like for like: OLD was kept by `urls`, which checks no rules)"), line
    code, out, _ = explore("diff", target)  # against the diff's own run, judged by every rule
    (line,) = [line for line in out.splitlines() if line.startswith("findings ")]
    assert line == "findings    0 new, 0 resolved", line


def test_diff_site_without_a_saved_exploration_is_a_usage_error(httpserver, cache: Path) -> None:
    target = serve(httpserver, "a")
    code, out, err = explore("diff", target)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "no saved exploration of 127.0.0.1" in err
    assert f"(`sitemap-tui validate {target}` keeps a first one to compare with)" in err  # (history: empty)
    assert kept(cache) == []  # nothing explored, nothing kept


def test_diff_of_two_saved_explorations_by_index(httpserver, cache: Path) -> None:
    target = serve(httpserver, "a")
    assert explore("urls", target)[0] == 0
    serve(httpserver, "a", "b", "c")
    assert explore("urls", target)[0] == 0
    httpserver.clear()  # nothing is fetched: both sides come from the history
    code, out, err = explore("diff", f"{target}~1", f"{target}~0", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["summary"]["urls_added"] == 2
    assert json.loads(out)["new"]["saved"] is True
    code, _, err = explore("diff", f"{target}~5", f"{target}~0")
    assert code == 2 and "has 2 saved explorations" in err


def test_local_files_are_keyed_by_their_path(cache: Path, tmp_path: Path) -> None:
    one, two = tmp_path / "one.xml", tmp_path / "two.xml"
    for path in (one, two):
        path.write_text(f'<?xml version="1.0"?><urlset {NS}><url><loc>https://example.com/</loc></url></urlset>')
    assert explore("urls", str(one))[0] == 0
    assert explore("urls", str(one))[0] == 0
    assert explore("urls", str(two))[0] == 0
    report = history(str(one))
    assert report["site"] == str(one.resolve())
    assert len(report["explorations"]) == 2
    assert len(history(str(two))["explorations"]) == 1


def test_a_folder_since_removed_still_names_its_history_by_a_bare_word(cache: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Found from outside: `history gone` of a folder since deleted said "no such file or
    directory: gone (a site on the host 'gone': ...)"; `history ./gone` listed its runs."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gone").mkdir()
    (tmp_path / "gone" / "sitemap.xml").write_text(
        f'<?xml version="1.0"?><urlset {NS}><url><loc>https://example.com/</loc></url></urlset>')
    assert explore("urls", "gone")[0] == 0
    (tmp_path / "gone" / "sitemap.xml").unlink()
    (tmp_path / "gone").rmdir()
    for typed in ("gone", "./gone", "gone/"):
        assert len(history(typed)["explorations"]) == 1, typed


def test_a_build_folder_read_as_its_site_finds_its_runs_and_two_builds_compare(cache: Path, tmp_path: Path) -> None:
    """Found from outside: a build folder's runs are kept under the site its robots.txt names,
    and `history ./public` / `diff ./public` looked them up under the folder's path (none, and a
    hint that looped); `diff public public2` read the folders as files."""
    site = "https://www.example.com"
    for name, page in (("public", "a"), ("public2", "b")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "robots.txt").write_text(f"Sitemap: {site}/sitemap.xml\n")
        (tmp_path / name / "sitemap.xml").write_text(
            f'<?xml version="1.0"?><urlset {NS}><url><loc>{site}/</loc></url><url><loc>{site}/{page}</loc></url></urlset>')
    public, public2 = str(tmp_path / "public"), str(tmp_path / "public2")
    assert explore("validate", public)[0] == 0
    code, out, err = run("history", public, "--json")
    assert code == 0 and json.loads(out)["site"] == "www.example.com" and len(json.loads(out)["explorations"]) == 1
    assert f"{public} is read as the site www.example.com" in err
    code, out, err = explore("diff", public, public2, "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["summary"]["urls_added"] == 1 and report["summary"]["urls_removed"] == 1
    assert report["summary"]["sitemaps_added"] == 0 and "not fetched" not in err
    (tmp_path / "public" / "sitemap.xml").write_text((tmp_path / "public2" / "sitemap.xml").read_text())
    code, out, err = explore("diff", public, "--format", "json")  # the last build against this one
    assert code == 0, err
    assert json.loads(out)["summary"]["urls_added"] == 1


def test_the_cache_limits_apply_before_a_headless_save(httpserver, cache: Path, tmp_path: Path) -> None:
    target = serve(httpserver, "a")
    assert explore("urls", target)[0] == 0
    (old,) = kept(cache)
    month_ago = time.time() - 30 * 86400
    os.utime(old, (month_ago, month_ago))
    (tmp_path / "config.toml").write_text('[cache]\nmax_age = "7d"\n')
    code, _, err = explore("urls", target)
    assert code == 0
    assert f"removed {old}" in err and "older than the age limit" in err
    (new,) = kept(cache)  # (it may take the old one's name: both runs fit in one second)
    assert new.stat().st_mtime > time.time() - 3600


def test_bad_history_arguments(cache: Path) -> None:
    code, _, err = run("history", "./no/such/file.xml")
    assert code == 0 and "no saved exploration of" in err  # a file gone since: nothing saved for it
    code, _, err = run("history", "")
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_diff_site_takes_its_options_anywhere(httpserver, cache: Path) -> None:
    # (argparse alone would fill the optional NEW at OLD and leave the second side over)
    target = serve(httpserver, "a")
    assert explore("urls", target)[0] == 0
    code, out, err = explore("--format", "json", "diff", f"{target}~0", "--samples", "2", f"{target}~0")
    assert code == 0, err
    assert set(json.loads(out)["summary"].values()) == {0}


def test_what_a_killed_run_left_in_the_cache_goes_with_the_next_run(httpserver, cache: Path) -> None:
    target = serve(httpserver, "a")
    cache.mkdir(parents=True)
    left = cache / ".127.0.0.1-20200101-000000.db.partial"  # a run killed outright (SIGKILL)
    left.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    assert explore("urls", target)[0] == 0
    assert not left.exists()
    assert [p.suffix for p in kept(cache)] == [".db"]


def test_diff_of_one_kept_exploration_alone_says_what_is_missing(httpserver, cache: Path) -> None:
    target = serve(httpserver, "a")
    assert explore("urls", target)[0] == 0
    code, _, err = explore("diff", f"{target}~0")
    assert code == 2 and "name the other side too" in err


def test_a_site_on_another_port_is_another_site(httpserver, threaded_httpserver: HTTPServer, cache: Path) -> None:
    # (as `sitemap-tui demo` is, a new port each run: its URLs all differ, so one site's history
    # compared them as +419 -419)
    one = serve(httpserver, "a", "b")
    two = serve(threaded_httpserver, "a")
    assert explore("urls", one)[0] == 0
    assert explore("urls", two)[0] == 0
    assert [r["urls"] for r in history(one)["explorations"]] == [2]
    assert [r["urls"] for r in history(two)["explorations"]] == [1]
    assert history(f"127.0.0.1:{threaded_httpserver.port}")["site"] == f"127.0.0.1:{threaded_httpserver.port}"
    # a bare host with explorations on several ports and none on the default one: which, in one line
    keys = [f"127.0.0.1:{port}" for port in sorted((httpserver.port, threaded_httpserver.port))]
    for args in (("history", "127.0.0.1"), ("diff", "127.0.0.1~0", f"{two}~0")):
        code, out, err = run(*args)
        assert code == 2 and out == "", args
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
        assert f"127.0.0.1 has explorations on several ports ({', '.join(keys)}): name one as HOST:PORT" in err
    # diff SITE explores SITE now (its default port): the latest kept is of that exact site
    code, _, err = explore("diff", "http://127.0.0.1/sitemap.xml")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"no saved exploration of 127.0.0.1 in the cache ({', '.join(keys)} are other sites)" in err


def test_a_bare_host_prefers_the_default_port_and_names_the_others(cache: Path) -> None:
    from sitemap_tui.engine.store import Store

    cache.mkdir(parents=True)
    for day, target in ((1, "https://example.com/sitemap.xml"), (2, "https://example.com:8443/sitemap.xml")):
        store = Store(cache / f"example.com-2026010{day}-000000.db")  # (an exploration of nothing)
        store.set_meta("target", target)
        store.set_meta("started", f"2026-01-0{day}T00:00:00+00:00")
        store.close()
    code, out, err = run("history", "example.com", "--json")
    assert code == 0
    assert [r["target"] for r in json.loads(out)["explorations"]] == ["https://example.com/sitemap.xml"]
    assert "example.com also has explorations on example.com:8443 (another site: name it as HOST:PORT)" in err


def test_an_old_run_s_bare_host_key_is_read_with_its_target_s_port(httpserver, cache: Path) -> None:
    """Runs before the port joined the key wrote the host alone into their store: they are
    found under the site their target names."""
    from sitemap_tui.engine.store import Store

    target = serve(httpserver, "a")
    assert explore("urls", target)[0] == 0
    (db,) = kept(cache)
    store = Store(db)
    store.set_meta("site", "127.0.0.1")  # as an older run wrote it
    store.close()
    report = history(target)
    assert report["site"] == f"127.0.0.1:{httpserver.port}" and len(report["explorations"]) == 1
    serve(httpserver, "a", "b")
    code, out, err = explore("diff", target, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["summary"]["urls_added"] == 1


def test_audit_and_access_runs_are_listed_in_the_documented_shape(httpserver, cache: Path) -> None:
    """history --json wrote `audit` and `access` as the command, which its schema refused."""
    target = serve(httpserver, "a")
    assert explore("access", target)[0] == 0
    assert run("audit", target, "--rate", "0", "--workers", "0")[0] == 0
    rows = history(target)["explorations"]
    assert sorted(r["command"] for r in rows) == ["access", "audit"]


def test_a_run_that_read_no_sitemap_is_not_kept_as_the_next_baseline(httpserver, cache: Path) -> None:
    """Found from outside: while the sitemap robots.txt names answered an error, `urls SITE`
    and `diff SITE` were kept in the history with 0 URLs, and the next good deploy's `diff
    SITE` compared with them: every URL "added", the real changes since the last good state
    hidden. Such runs are said and not kept (a diff still compares with them); the baseline
    stays the last exploration that read its sitemaps."""
    site = httpserver.url_for("").rstrip("/")

    def deploy(*pages: str, status: int = 200) -> None:
        serve(httpserver, *pages, status=status, robots=f"Sitemap: {site}/sitemap.xml\n")

    deploy("a", "b")
    assert explore("urls", site)[0] == 0
    deploy(status=404)
    code, _, err = explore("urls", site)
    assert code == 1, err
    assert ("this exploration is not kept in the history: nothing could be listed; a later `diff` compares"
            " with the last one kept") in err, err
    code, out, err = explore("diff", site, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["summary"]["sitemaps_failing"] == 1, out
    assert "not kept in the history: nothing could be listed" in err, err
    assert [r["urls"] for r in history(site)["explorations"]] == [2]
    deploy("a", "c")
    code, out, err = explore("diff", site, "--format", "json")
    assert code == 0, err
    summary = json.loads(out)["summary"]
    assert (summary["urls_added"], summary["urls_removed"], summary["sitemaps_recovered"]) == (1, 1, 0), summary
    assert [r["urls"] for r in history(site)["explorations"]] == [2, 2]
    assert [p.name for p in kept(cache) if not p.name.endswith(".db")] == []


def test_the_explorers_since_line_passes_over_an_exploration_that_listed_nothing(httpserver, cache: Path,
                                                                                tmp_path: Path) -> None:
    """Found by a review: an explorer session opened while the index failed was kept with 0 URLs,
    and the next session's "Site since" line compared with it: "+2 −0 URLs", nothing changed."""
    from sitemap_tui.engine.discover import Target
    from sitemap_tui.session.diff import site_history
    from sitemap_tui.session.history import HistoryRun

    target = serve(httpserver, "a", "b")
    assert explore("urls", target)[0] == 0
    time.sleep(1.1)  # (the cache names explorations by the second)
    empty = HistoryRun(Target.parse(target), "explorer", "all")  # what such a session leaves: no URL
    empty.finish(True)
    db = tmp_path / "now.db"
    assert explore("urls", target, "--db", str(db))[0] == 0
    history = site_history(db, tmp_path / "scratch.db")
    assert (history.added, history.removed, history.url_counts) == (0, 0, (2, 2)), history

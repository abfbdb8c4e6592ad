"""The explorations kept in the cache (issue 18, "Reopening"): ``cache list``, ``cache prune`` and
``open --list``, run as a user runs them (real processes, real exploration files made by ``urls
--db`` against a server on 127.0.0.1, ages set on the files themselves), and the explorer's own
prune before it adds a new exploration to the cache."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import cli_process
import pytest

from sitemap_tui.cli import main as cli_main
from sitemap_tui.engine.store import StoreLock

DAY = 86400
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def run(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return cli_process.run([sys.executable, "-m", "sitemap_tui", *map(str, args)], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL, env=env)


@pytest.fixture(scope="module")
def saved_exploration(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One real exploration of a 3-URL sitemap (made once, copied by the tests)."""
    from pytest_httpserver import HTTPServer

    server = HTTPServer(host="127.0.0.1")
    server.start()
    try:
        urls = "".join(f"<url><loc>https://example.com/p{i}</loc></url>" for i in range(3))
        server.expect_request("/sitemap.xml").respond_with_data(
            f'<?xml version="1.0"?><urlset {NS}>{urls}</urlset>', content_type="application/xml")
        db = tmp_path_factory.mktemp("made") / "one.db"
        proc = run("urls", server.url_for("/sitemap.xml"), "--db", db, "--workers", "0")
        assert proc.returncode == 0, proc.stderr
    finally:
        server.stop()
    return db


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own cache folder (XDG_CACHE_HOME, inherited by the commands it runs)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("SITEMAP_TUI_CONFIG", str(tmp_path / "config.toml"))
    folder = tmp_path / "xdg-cache" / "sitemap-tui" / "explorations"
    folder.mkdir(parents=True)
    return folder


def put(cache: Path, source: Path, name: str, *, days_old: float, target: str | None = None,
        bodies: int = 0, damaged: bool = False) -> Path:
    """A copy of a real exploration in the cache, last written ``days_old`` days ago; ``target``
    rewrites the site it was of; ``bodies`` adds that many bytes of kept source bodies beside it."""
    db = cache / f"{name}.db"
    shutil.copy(source, db)
    when = time.time() - days_old * DAY
    conn = sqlite3.connect(db)
    # started then, as the explorer writes it
    started = datetime.fromtimestamp(when, UTC).isoformat()
    conn.execute("UPDATE meta SET value=? WHERE key='started'", (json.dumps(started),))
    if target is not None:
        conn.execute("UPDATE meta SET value=? WHERE key='target'", (json.dumps(target),))
    conn.commit()
    conn.close()
    if bodies:
        folder = db.with_suffix(".bodies")
        folder.mkdir()
        (folder / "1.gz").write_bytes(b"x" * bodies)
    if damaged:
        damage_nodes(db)
    os.utime(db, (when, when))
    return db


def damage_nodes(db: Path) -> None:
    """Overwrite the nodes table's first page: SQLite then calls the file malformed."""
    conn = sqlite3.connect(db)
    (page,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name='nodes'").fetchone()
    (size,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    with db.open("r+b") as fh:
        fh.seek((page - 1) * size)
        fh.write(b"\xde\xad" * (size // 2))


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("sitemap-tui: error:"), proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0]


# -- cache list / open --list -------------------------------------------------------------------------
def test_cache_list_shows_each_exploration_newest_first_with_site_urls_and_size(cache, saved_exploration):
    old = put(cache, saved_exploration, "example.com-20250101-000000", days_old=40, target="https://example.com/")
    new = put(cache, saved_exploration, "shop.test-20250301-000000", days_old=1, target="https://shop.test/sitemap.xml")
    broken = put(cache, saved_exploration, "broken.test-20250201-000000", days_old=20, damaged=True)
    proc = run("cache", "list")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [str(new) in lines[0], str(broken) in lines[1], str(old) in lines[2]] == [True, True, True], lines
    assert "shop.test" in lines[0] and "3 URLs" in lines[0] and "KiB" in lines[0]
    assert "example.com" in lines[2] and "3 URLs" in lines[2]
    # dated by when it was started (the file's own record), the damaged one by its last write
    assert lines[2].startswith(datetime.fromtimestamp(time.time() - 40 * DAY, UTC).strftime("%Y-%m-%d "))
    assert lines[1].startswith(datetime.fromtimestamp(time.time() - 20 * DAY, UTC).strftime("%Y-%m-%d "))
    # a damaged file is listed (it takes room in the cache) and says why it cannot be opened
    assert "broken.test" in lines[1] and "unreadable" in lines[1] and "malformed" in lines[1]
    assert "3 explorations" in proc.stderr and str(cache) in proc.stderr


def test_two_runs_in_one_minute_are_listed_apart(cache, saved_exploration):
    """Tried by hand: two `urls` runs a second apart were listed as "2026-11-26 23:20" twice,
    in `cache list` and `history` alike (and "1 files"). Dates go to the second."""
    a = put(cache, saved_exploration, "example.com-20250101-000000", days_old=1.0, target="https://example.com/")
    b = put(cache, saved_exploration, "example.com-20250101-000007", days_old=1.0 - 7 / DAY, target="https://example.com/")
    listed = run("cache", "list").stdout.splitlines()
    history = run("history", "example.com").stdout.splitlines()
    for when, db in ((datetime.fromtimestamp(os.stat(p).st_mtime, UTC), p) for p in (a, b)):
        stamp = when.strftime("%Y-%m-%d %H:%M:%S")
        assert any(line.startswith(stamp) and str(db) in line for line in listed), (stamp, listed)
        assert any(line.startswith(stamp) and str(db) in line for line in history), (stamp, history)
    assert history[0].split()[:2] == ["date", "URLs"]
    assert " 1 file " in listed[0] and "files" not in listed[0].split(str(cache))[0], listed


def test_open_list_json_groups_the_explorations_by_site(cache, saved_exploration):
    put(cache, saved_exploration, "a-1", days_old=3, target="https://example.com/")
    put(cache, saved_exploration, "a-2", days_old=1, target="https://example.com/sitemap.xml")
    put(cache, saved_exploration, "b-1", days_old=2, target="https://other.test/")
    proc = run("open", "--list", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    sites = {s["site"]: [Path(e["path"]).name for e in s["explorations"]] for s in data["sites"]}
    assert sites == {"example.com": ["a-2.db", "a-1.db"], "other.test": ["b-1.db"]}
    first = data["sites"][0]["explorations"][0]
    assert first["urls"] == 3 and first["files"] >= 1 and first["bytes"] > 0 and first["problem"] is None


def test_open_without_a_file_and_no_terminal_lists_and_says_why(cache, saved_exploration):
    db = put(cache, saved_exploration, "example.com-1", days_old=1)
    proc = run("open")
    assert proc.returncode == 0, proc.stderr
    assert str(db) in proc.stdout
    assert "stdout is not a terminal" in proc.stderr and "--list" in proc.stderr


# -- cache prune ------------------------------------------------------------------------------------
def test_prune_older_than_removes_old_explorations_with_their_bodies_and_says_so(cache, saved_exploration):
    old = put(cache, saved_exploration, "old", days_old=45, bodies=1000)
    new = put(cache, saved_exploration, "new", days_old=2)
    Path(f"{old}-wal").write_bytes(b"")  # a journal a killed run left goes with its database
    old.with_suffix(".log").write_bytes(b"engine log\n")  # as does its engine's log
    proc = run("cache", "prune", "--older-than", "30d")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in cache.iterdir()) == ["new.db"]
    assert new.exists()
    assert f"removed {old}" in proc.stdout and "older than the age limit (45 days old, limit 30 days)" in proc.stdout
    assert "1 exploration removed" in proc.stderr


def test_prune_says_a_short_age_limit_in_its_own_unit(cache, saved_exploration):
    """Found from outside: --older-than 1s said "1 days old, limit 1.15741e-05 days"."""
    put(cache, saved_exploration, "old", days_old=1)
    proc = run("cache", "prune", "--older-than", "1s", "--dry-run")
    assert "older than the age limit (1 day old, limit 1 second)" in proc.stderr + proc.stdout, proc.stderr


def test_prune_dry_run_says_what_would_go_and_removes_nothing(cache, saved_exploration):
    old = put(cache, saved_exploration, "old", days_old=45)
    before = sorted(cache.iterdir())
    proc = run("cache", "prune", "--older-than", "30d", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert sorted(cache.iterdir()) == before
    assert f"would remove {old}" in proc.stdout and "would be removed" in proc.stderr


def test_prune_max_size_removes_the_oldest_until_the_rest_fit_but_never_a_kept_one(cache, saved_exploration):
    size = saved_exploration.stat().st_size
    oldest = put(cache, saved_exploration, "oldest", days_old=5)
    middle = put(cache, saved_exploration, "middle", days_old=4)
    newest = put(cache, saved_exploration, "newest", days_old=3)
    # room for two: the oldest goes -- but it is kept, so the next oldest goes instead
    proc = run("cache", "prune", "--max-size", str(2 * size + 10), "--keep", oldest)
    assert proc.returncode == 0, proc.stderr
    assert oldest.exists() and newest.exists() and not middle.exists()
    assert f"removed {middle}" in proc.stdout and "over its size limit" in proc.stdout
    assert f"{oldest} is over a limit but kept" in proc.stderr


def test_prune_keeps_an_exploration_another_process_has_open(cache, saved_exploration):
    old = put(cache, saved_exploration, "old", days_old=45)
    lock = StoreLock.acquire(old)  # what a running explorer holds on the file it shows
    try:
        proc = run("cache", "prune", "--older-than", "30d")
    finally:
        lock.release()
    assert proc.returncode == 0, proc.stderr
    assert old.exists()
    assert "in use by another sitemap-tui process" in proc.stderr and "0 explorations removed" in proc.stderr


def test_prune_reads_its_limits_from_the_config_file(cache, saved_exploration, tmp_path):
    old = put(cache, saved_exploration, "old", days_old=10)
    (tmp_path / "config.toml").write_text('[cache]\nmax_age = "7d"\nmax_size = "2GiB"\n')
    proc = run("cache", "prune")
    assert proc.returncode == 0, proc.stderr
    assert not old.exists() and "limit 7 days" in proc.stdout


def test_a_bad_limit_in_the_config_file_is_said_and_the_default_used(cache, saved_exploration, tmp_path):
    old = put(cache, saved_exploration, "old", days_old=10)
    (tmp_path / "config.toml").write_text('[cache]\nmax_age = "soon"\n')
    proc = run("cache", "prune")
    assert proc.returncode == 0, proc.stderr
    assert old.exists(), "the default age limit (90 days) keeps it"
    assert "cache.max_age" in proc.stderr and "'soon' is not an age" in proc.stderr


@pytest.mark.parametrize(("args", "says"), [
    (("cache", "prune", "--max-size", "3x"), "'3x' is not a size"),
    (("cache", "prune", "--older-than", "soon"), "'soon' is not an age"),
    (("cache", "prune", "--older-than=-3d"), "is not an age"),
    (("cache", "tidy"), "invalid choice: 'tidy'"),
    (("cache", "list", "--dry-run"), "are options of `cache prune`"),
    (("cache", "prune", "--keep", "nowhere.db"), "--keep nowhere.db: no such exploration file"),
    (("open", "--list", "some.db"), "name no FILE with it"),
])
def test_bad_cache_and_open_options_are_one_line_and_exit_2(cache, args, says):
    line = one_error_line(run(*args))
    assert says in line, line


def test_open_of_a_damaged_file_is_one_line_and_exit_2(tmp_path, saved_exploration):
    db = tmp_path / "damaged.db"
    shutil.copy(saved_exploration, db)
    damage_nodes(db)
    line = one_error_line(run("open", db))
    assert "damaged.db" in line and "malformed" in line


# -- the explorer's own prune ---------------------------------------------------------------------
def test_explore_prunes_the_cache_to_its_limits_before_adding_an_exploration(cache, saved_exploration, tmp_path, capsys):
    old = put(cache, saved_exploration, "old", days_old=100)
    recent = put(cache, saved_exploration, "recent", days_old=1)
    launched: list[Path | None] = []

    def launch(target=None, db_path=None, fetch_config=None, options=None):  # the explorer, not started
        launched.append(db_path)
        return 0

    assert cli_main(["explore", "https://example.com/"], launch=launch) == 0
    assert not old.exists() and recent.exists()
    assert launched and launched[0] is not None and launched[0].parent == cache
    err = capsys.readouterr().err
    assert f"removed {old}" in err and "older than the age limit" in err
    # a named --db is not the cache's: nothing is pruned for it
    old2 = put(cache, saved_exploration, "old2", days_old=100)
    assert cli_main(["explore", "https://example.com/", "--db", str(tmp_path / "mine.db")], launch=launch) == 0
    assert old2.exists()


def test_a_sites_files_are_counted_as_the_explorer_counts_them(httpserver, tmp_path):
    """Tried in tmux: the Compare with… and recent lists said "13 files" for the demo, whose
    header says "files 12/12": the site's synthetic root was counted as a file."""
    from sitemap_tui.engine.store.summary import read_summary

    urls = "".join(f"<url><loc>{httpserver.url_for(f'/p{i}')}</loc></url>" for i in range(2))
    httpserver.expect_request("/robots.txt").respond_with_data(
        f"Sitemap: {httpserver.url_for('/sitemap.xml')}\n", content_type="text/plain")
    httpserver.expect_request("/sitemap.xml").respond_with_data(
        f'<?xml version="1.0"?><urlset {NS}>{urls}</urlset>', content_type="application/xml")
    db = tmp_path / "site.db"
    proc = run("urls", httpserver.url_for("/"), "--db", db, "--workers", "0")
    assert proc.returncode == 0, proc.stderr
    summary = read_summary(db)
    assert (summary.files, summary.urls) == (2, 2), summary  # robots.txt and the sitemap


@pytest.mark.parametrize("args", [
    ["cache", "list"], ["cache", "prune"], ["history", "example.com"], ["open", "--list"],
    ["urls", "{sitemap}"], ["diff", "{sitemap}"], ["audit", "{sitemap}"],
])
def test_a_cache_folder_that_is_a_file_is_one_line(tmp_path: Path, args: list[str]) -> None:
    """Found from outside: XDG_CACHE_HOME's sitemap-tui/explorations being a file (or a folder
    without permission) gave a NotADirectoryError traceback in nearly every command."""
    (tmp_path / "xdg" / "sitemap-tui").mkdir(parents=True)
    (tmp_path / "xdg" / "sitemap-tui" / "explorations").write_text("x")
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(f'<urlset {NS}><url><loc>https://example.com/a</loc></url></urlset>')
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    proc = run(*(a.format(sitemap=sitemap) for a in args), env=env)
    assert "the cache folder cannot be read (Not a directory)" in one_error_line(proc)


def test_without_the_history_a_broken_cache_folder_is_said_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "xdg" / "sitemap-tui").mkdir(parents=True)
    (tmp_path / "xdg" / "sitemap-tui" / "explorations").write_text("x")
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(f'<urlset {NS}><url><loc>https://example.com/a</loc></url></urlset>')
    proc = run("urls", sitemap, "--no-history", env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert proc.returncode == 0 and proc.stdout == "https://example.com/a\n", proc.stderr
    assert "the cache folder cannot be read" in proc.stderr and "Traceback" not in proc.stderr


def test_a_very_long_host_name_is_kept_under_a_file_name_that_fits(tmp_path: Path, httpserver) -> None:
    """Found from outside: a valid 239-character host made the history's file name too long
    (OSError traceback); the name is cut, and a hash tells two such hosts apart."""
    from sitemap_tui.engine.discover import Target
    from sitemap_tui.session.paths import file_prefix

    host = ".".join(["a" * 59] * 4)
    other = ".".join(["a" * 59] * 3 + ["b" * 59])
    a, b = file_prefix(Target.parse(f"http://{host}/")), file_prefix(Target.parse(f"http://{other}/"))
    assert len(a) <= 100 and len(b) <= 100 and a != b and a.startswith("a" * 59)
    httpserver.expect_request("/sitemap.xml").respond_with_data(
        f'<urlset {NS}><url><loc>https://example.com/a</loc></url></urlset>', content_type="application/xml")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    proc = run("urls", f"http://{host}:{httpserver.port}/sitemap.xml", "--resolve", f"{host}:127.0.0.1", env=env)
    assert proc.returncode == 0 and proc.stdout == "https://example.com/a\n", proc.stderr
    assert [p.name for p in (tmp_path / "xdg" / "sitemap-tui" / "explorations").glob("*.db")][0].startswith(a)


def test_the_age_limit_is_said_in_a_unit_that_reads(tmp_path: Path) -> None:
    """Found from outside: `cache prune --older-than 1s` said "1.15741e-05 days"."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    for age, said in (("1s", "1 second"), ("36h", "1.5 days"), ("90m", "1.5 hours"), ("30d", "30 days")):
        proc = run("cache", "prune", "--older-than", age, env=env)
        assert proc.returncode == 0 and f"limits 2.0 GiB, {said})" in proc.stderr, proc.stderr

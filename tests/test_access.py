"""Crawler access (issue 22 §2): which crawlers robots.txt lets fetch each listed URL, as
``sitemap-tui access`` reports it, against a site on 127.0.0.1 whose robots.txt has groups for
several crawlers, and offline on the exploration it kept."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest

from sitemap_tui import cli

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
ROBOTS = """User-agent: *
Disallow: /private/
Disallow: /*.pdf$
Allow: /private/open

User-agent: GPTBot
User-agent: CCBot
Disallow: /

User-agent: Googlebot
Allow: /
"""
PAGES = ("a", "private/x", "private/open", "doc.pdf", "doc.pdf?v=1", "robots.txt")


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([*args])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


@pytest.fixture()
def site(httpserver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("SITEMAP_TUI_CONFIG", str(tmp_path / "config.toml"))
    b = httpserver.url_for("").rstrip("/")
    other = b.replace("127.0.0.1", "localhost")  # another origin, whose robots.txt is never read
    locs = [f"{b}/{p}" for p in PAGES] + [f"{other}/elsewhere"]
    body = f"<urlset {NS}>" + "".join(f"<url><loc>{loc}</loc></url>" for loc in locs) + "</urlset>"
    httpserver.expect_request("/sitemap.xml").respond_with_data(body, content_type="application/xml")
    httpserver.expect_request("/robots.txt").respond_with_data(ROBOTS, content_type="text/plain")
    return httpserver.url_for("/sitemap.xml")


def _total(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def test_matrix_counts_each_crawler_by_its_own_group(site: str) -> None:
    code, out, err = run("access", site, "--format", "jsonl", "--workers", "0", "--no-history")
    assert code == 0, err
    total = _total(out)
    assert total["sitemap"] is None and total["urls"] == 7 and total["unknown"] == 1
    agents = total["agents"]
    # *: /private/x and doc.pdf (the $ anchor: not doc.pdf?v=1); robots.txt itself is always allowed
    assert agents["Bingbot"] == {"allowed": 4, "disallowed": 2}
    assert agents["GPTBot"] == {"allowed": 1, "disallowed": 5}  # only robots.txt
    assert agents["CCBot"] == agents["GPTBot"]
    assert agents["Googlebot"] == {"allowed": 6, "disallowed": 0}
    assert "1 URL on origins whose robots.txt was not read" in err


def test_list_names_the_crawlers_that_may_not_fetch(site: str) -> None:
    code, out, _ = run("access", site, "--list", "--format", "jsonl", "--agents", "GPTBot,Bingbot",
                       "--workers", "0", "--no-history")
    assert code == 0
    rows = {r["loc"].rsplit("/", 1)[-1]: r for r in map(json.loads, out.splitlines())}
    assert rows["x"]["blocked_for"] == ["GPTBot", "Bingbot"]
    assert rows["a"]["blocked_for"] == ["GPTBot"]
    assert rows["elsewhere"]["unknown"] is True and rows["elsewhere"]["blocked_for"] == []
    assert "robots.txt" not in rows and "open" in rows  # allowed for all: robots.txt left out


def test_saved_exploration_is_read_offline_and_not_changed(site: str, tmp_path: Path, httpserver) -> None:
    db = tmp_path / "kept.db"
    assert run("validate", site, "--db", str(db), "--workers", "0")[0] in (0, 1)
    httpserver.clear()  # offline: nothing answers any more
    before = db.read_bytes()
    code, out, _ = run("access", str(db), "--format", "csv", "--agents", "GPTBot")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    total = [r for r in rows if r["sitemap"] == "(all)"]
    assert total == [{"sitemap": "(all)", "agent": "GPTBot", "allowed": "1", "disallowed": "5", "unknown": "1"}]
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("kept.db")) == ["kept.db"]  # no -wal/-shm
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'access'").fetchone() is None


def test_kept_store_remembers_the_matrix_and_redoes_it_for_other_agents(site: str, tmp_path: Path) -> None:
    from sitemap_tui.engine.access import compute
    from sitemap_tui.engine.store import Store
    from sitemap_tui.engine.store.access import AccessTable

    db = tmp_path / "kept.db"
    assert run("validate", site, "--db", str(db), "--workers", "0")[0] in (0, 1)
    store = Store(db)
    try:
        table = AccessTable(store.conn, publish=store.publish)
        assert compute(table, ("GPTBot",)) == 7
        assert compute(table, ("GPTBot",)) == 0  # kept: nothing judged again
        assert compute(table, ("Bingbot", "GPTBot")) == 7  # another list: judged again
        assert table.counts(("Bingbot", "GPTBot")).blocked == (2, 5)
    finally:
        store.close()


def test_text_report_and_bad_agents(site: str) -> None:
    code, out, _ = run("access", site, "--workers", "0", "--no-history", "--agents", "GPTBot,Bingbot")
    assert code == 0
    assert "GPTBot" in out and "disallowed" in out and "per sitemap" in out
    code, _, err = run("access", site, "--agents", "GPT Bot")
    assert code == 2 and err.count("\n") == 1 and "--agents" in err
    code, _, err = run("access", site, "--agents", " , ")
    assert code == 2 and "no user agent" in err


def test_a_store_without_robots_txt_says_so(site: str, tmp_path: Path) -> None:
    db = tmp_path / "urls.db"
    assert run("urls", site, "--db", str(db), "--workers", "0")[0] == 0  # urls reads no robots.txt
    code, out, err = run("access", str(db), "--format", "jsonl")
    assert code == 0 and _total(out)["unknown"] == 7
    assert "kept no robots.txt" in err


def test_a_sitemap_whose_urls_no_robots_txt_judged_is_not_every_crawler_allowed(tmp_path: Path) -> None:
    """Found from outside: a local file (no robots.txt beside it) read "every crawler allowed;
    5 unknown"; README says an unjudged URL counts as unknown, never as allowed."""
    sitemap = tmp_path / "s.xml"
    sitemap.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                       "<url><loc>https://example.com/a</loc></url><url><loc>https://example.com/b</loc></url></urlset>")
    code, out, _ = run("access", str(sitemap), "--no-history")
    assert code == 0
    (line,) = [ln for ln in out.splitlines() if ln.strip().startswith("file:")]
    assert line.endswith("2 URLs: all unknown (no robots.txt read)") and "allowed" not in line, line


def test_files_that_failed_or_were_left_out_are_said(httpserver, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """access counted the URLs of the files it read and said nothing of the others: "10 listed
    URLs" of a site that lists 36, exit 0, an empty stderr."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    b = httpserver.url_for("").rstrip("/")
    index = f"<sitemapindex {NS}>" + "".join(
        f"<sitemap><loc>{b}/{name}.xml</loc></sitemap>" for name in ("a", "b", "c")) + "</sitemapindex>"
    httpserver.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")
    httpserver.expect_request("/robots.txt").respond_with_data(ROBOTS, content_type="text/plain")
    for name in ("a", "c"):
        body = f"<urlset {NS}><url><loc>{b}/{name}1</loc></url></urlset>"
        httpserver.expect_request(f"/{name}.xml").respond_with_data(body, content_type="application/xml")
    httpserver.expect_request("/b.xml").respond_with_data("gone", status=404)
    code, out, err = run("access", f"{b}/index.xml", "--format", "jsonl", "--no-history", "--workers", "0")
    assert code == 0 and _total(out)["urls"] == 2
    assert f"sitemap-tui: {b}/b.xml: HTTP 404 Not Found" in err.splitlines()
    code, out, err = run("access", f"{b}/index.xml", "--format", "jsonl", "--no-history", "--workers", "0",
                         "--max-files", "2")
    assert code == 0 and _total(out)["urls"] == 1
    assert "sitemap-tui: 2 files not fetched: file budget of 2 reached (--max-files)" in err.splitlines()
    assert "robots-based rules" not in err  # access reports no findings


def test_a_kept_access_run_is_judged_as_validate_judges(site: str, httpserver) -> None:
    """Its store was kept as judged by every rule but held no cross-file findings: the next
    `diff SITE` of the unchanged site reported them as new."""
    code, _, err = run("access", site)
    assert code == 0, err
    code, out, err = run("diff", site, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["summary"]["issues_new"] == 0, out


def test_text_list_names_the_sitemap_of_each_listing(httpserver, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A URL two sitemaps list came out as two identical lines."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    b = httpserver.url_for("").rstrip("/")
    index = f"<sitemapindex {NS}>" + "".join(
        f"<sitemap><loc>{b}/{name}.xml</loc></sitemap>" for name in ("a", "b")) + "</sitemapindex>"
    httpserver.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")
    httpserver.expect_request("/robots.txt").respond_with_data(ROBOTS, content_type="text/plain")
    for name in ("a", "b"):
        body = f"<urlset {NS}><url><loc>{b}/private/x</loc></url></urlset>"
        httpserver.expect_request(f"/{name}.xml").respond_with_data(body, content_type="application/xml")
    code, out, err = run("access", f"{b}/index.xml", "--list", "--agents", "GPTBot", "--no-history",
                         "--workers", "0")
    assert code == 0, err
    assert out.splitlines() == [f"{b}/private/x\tGPTBot\t{b}/a.xml", f"{b}/private/x\tGPTBot\t{b}/b.xml"]


def test_a_live_run_names_no_saved_exploration_reason(httpserver, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A live access whose URLs are all on another origin said "this exploration kept no
    robots.txt (… validate, access and the explorer do)": it is access, and it read what it could."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    body = f"<urlset {NS}><url><loc>https://www.example.com/a</loc></url></urlset>"
    httpserver.expect_request("/s.xml").respond_with_data(body, content_type="application/xml")
    code, _, err = run("access", httpserver.url_for("/s.xml"), "--no-history", "--workers", "0")
    assert code == 0, err
    assert "kept no robots.txt" not in err
    assert "1 URL on origins whose robots.txt was not read" in err


@pytest.mark.parametrize(("status", "allowed"), [(404, True), (410, True), (503, False)])
def test_a_robots_txt_that_answers_4xx_allows_every_url(httpserver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        status: int, allowed: bool) -> None:
    """Found from outside: a site without robots.txt (404) had every URL "unknown" and the audit
    no crawler table; a 4xx means nothing is disallowed (RFC 9309 §2.3.1.3). Near miss: a 5xx
    is not read, and its URLs stay unknown."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    b = httpserver.url_for("").rstrip("/")
    body = f"<urlset {NS}>" + "".join(f"<url><loc>{b}/{p}</loc></url>" for p in ("a", "private/x")) + "</urlset>"
    httpserver.expect_request("/sitemap.xml").respond_with_data(body, content_type="application/xml")
    httpserver.expect_request("/robots.txt").respond_with_data("gone", status=status)
    code, out, err = run("access", httpserver.url_for("/sitemap.xml"), "--format", "jsonl", "--workers", "0",
                         "--no-history")
    total = _total(out)
    assert code == 0 and total["urls"] == 2, err
    if allowed:
        assert total["unknown"] == 0 and total["agents"]["GPTBot"] == {"allowed": 2, "disallowed": 0}
    else:
        assert total["unknown"] == 2


def test_a_sitemap_that_redirects_is_named_by_its_final_url_as_urls_and_validate_name_it(httpserver) -> None:
    """Found from outside: /old.xml answering 301 to /new.xml was "sitemap": ".../new.xml" in
    urls and validate, ".../old.xml" in access and audit: the keys did not join."""
    from test_audit import audit

    b = httpserver.url_for("").rstrip("/")
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nDisallow: /x\n")
    httpserver.expect_request("/idx.xml").respond_with_data(
        '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{b}/old.xml</loc></sitemap></sitemapindex>", content_type="application/xml")
    httpserver.expect_request("/old.xml").respond_with_data("", status=301, headers={"Location": f"{b}/new.xml"})
    httpserver.expect_request("/new.xml").respond_with_data(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{b}/p</loc></url></urlset>", content_type="application/xml")
    httpserver.expect_request("/p").respond_with_data("<html><head></head></html>", content_type="text/html")
    code, out, err = run("access", f"{b}/idx.xml", "--format", "jsonl", "--workers", "0", "--no-history")
    assert code == 0, err
    named = {r["sitemap"] for r in map(json.loads, out.splitlines()) if r.get("sitemap")}
    assert named == {f"{b}/new.xml"}, out
    code, out, err = audit(f"{b}/idx.xml", "--format", "jsonl")
    assert [json.loads(line)["sitemap"] for line in out.splitlines()] == [f"{b}/new.xml"], out

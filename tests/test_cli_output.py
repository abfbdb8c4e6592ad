"""What the headless commands print, run as a user runs them against sitemaps served on 127.0.0.1:
which entries are URLs, how locs are resolved, and what every count says."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import cli_process
import pytest

from sitemap_tui.engine.store import EntryFilter, Store

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return cli_process.run(
        [sys.executable, "-m", "sitemap_tui", *args], capture_output=True, text=True, timeout=120
    )


def serve(httpserver, path: str, body: str, content_type: str = "application/xml") -> str:
    httpserver.expect_request(path).respond_with_data(body, content_type=content_type)
    return httpserver.url_for(path)


def jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def csv_rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


# -- §1 entries without a URL ---------------------------------------------------------------
NO_URL_CASES = {
    "urlset": (
        f'<?xml version="1.0"?>\n<urlset {NS}>\n<url><loc></loc></url>\n'
        "<url><loc>{base}a</loc></url>\n<url><loc>   </loc></url>\n</urlset>\n",
        "application/xml", "loc-empty",
    ),
    "rss": (
        '<?xml version="1.0"?>\n<rss version="2.0"><channel><title>t</title><link>{base}</link>\n'
        "<item><title>no link</title></item>\n"
        "<item><title>a</title><link>{base}a</link></item>\n</channel></rss>\n",
        "application/rss+xml", "feed-item-no-link",
    ),
    "atom": (
        '<?xml version="1.0"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>\n'
        '<entry><title>self</title><link rel="self" href="{base}self"/></entry>\n'
        '<entry><title>a</title><link href="{base}a"/></entry>\n</feed>\n',
        "application/atom+xml", "feed-item-no-link",
    ),
}


@pytest.mark.parametrize("case", sorted(NO_URL_CASES))
def test_an_entry_without_a_url_is_not_a_url(httpserver, tmp_path: Path, case: str) -> None:
    body, ctype, rule = NO_URL_CASES[case]
    base = httpserver.url_for("/")
    httpserver.expect_request("/robots.txt").respond_with_data("", 404)  # none: nothing disallowed
    url = serve(httpserver, "/s.xml", body.format(base=base), ctype)
    want = [base + "a"]

    for fmt in ("txt", "csv", "jsonl"):
        proc = run("urls", url, "--format", fmt)
        assert proc.returncode == 0, proc.stderr
        said = "2 entries not listed: no URL in them" if case == "urlset" else "1 entry not listed: no URL in it"
        assert said in proc.stderr  # (found from outside: unsaid)
        if fmt == "txt":
            assert proc.stdout.splitlines() == want
        elif fmt == "csv":
            assert [r["loc"] for r in csv_rows(proc.stdout)] == want
        else:
            assert [r["loc"] for r in jsonl(proc.stdout)] == want

    stats = json.loads(run("stats", url, "--json").stdout)["nodes"][0]
    assert stats["urls"] == 1 and stats["unique_urls"] == 1
    assert run("stats", url).stdout.rstrip().endswith("1 file, 1 URL")

    proc = run("validate", url, "--format", "json")
    report = json.loads(proc.stdout)
    assert report["summary"]["urls"] == 1 and report["summary"]["files"] == 1
    assert rule in {i["rule"] for i in report["issues"]}  # the entry stays visible as its finding
    text = run("validate", url).stdout.splitlines()
    assert text[-1].startswith("1 file, 1 URL:")

    db = tmp_path / f"{case}.db"
    assert run("urls", url, "--db", str(db)).returncode == 0
    store = Store(db, readonly=True)
    try:
        assert [r.loc for r in store.iter_entries(EntryFilter())] == want
        (node,) = [n for n in store.nodes() if n.url == url]
        assert node.stats.url_count == 1  # the TUI's counts
        assert store.aggregate([node.id]).urls == 1
    finally:
        store.close()


NON_HTTP = (
    f'<?xml version="1.0"?>\n<urlset {NS}>\n'
    "<url><loc>{base}a</loc></url>\n"
    "<url><loc>javascript:alert(1)</loc></url>\n"
    "<url><loc>mailto:someone@example.com</loc></url>\n"
    "<url><loc>file:///etc/passwd</loc></url>\n"
    "<url><loc>data:text/html,hi</loc></url>\n"
    "<url><loc>HTTPS://Example.com/b</loc></url>\n"
    "</urlset>\n"
)


def test_urls_leaves_non_http_locs_out_and_says_so(httpserver) -> None:
    base = httpserver.url_for("/")
    url = serve(httpserver, "/s.xml", NON_HTTP.format(base=base))
    for fmt in ("txt", "csv", "jsonl"):
        proc = run("urls", url, "--format", fmt)
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout.splitlines() if fmt == "txt" else [
            r["loc"] for r in (csv_rows(proc.stdout) if fmt == "csv" else jsonl(proc.stdout))]
        assert out == [base + "a", "HTTPS://Example.com/b"]
        # said even though stderr is not a terminal here
        err = [line for line in proc.stderr.splitlines() if "not http" in line]
        assert len(err) == 1 and "4 URLs" in err[0] and "--keep-non-http" in err[0]

    proc = run("urls", url, "--keep-non-http")
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 6
    assert "not http" not in proc.stderr

    issues = json.loads(run("validate", url, "--format", "json").stdout)["issues"]
    assert sum(1 for i in issues if i["rule"] == "loc-bad-scheme") == 4


# -- §8 relative locs -----------------------------------------------------------------------
RELATIVE = (
    f'<?xml version="1.0"?>\n<urlset {NS}>\n'
    "<url><loc>/abs-path</loc></url>\n"
    "<url><loc>page.html</loc></url>\n"
    "<url><loc>{base}full</loc></url>\n"
    "</urlset>\n"
)


def test_relative_locs_are_resolved_in_every_format_and_in_the_store(httpserver, tmp_path: Path) -> None:
    base = httpserver.url_for("/")
    url = serve(httpserver, "/dir/s.xml", RELATIVE.format(base=base))
    want = [base + "abs-path", base + "dir/page.html", base + "full"]
    assert run("urls", url).stdout.splitlines() == want
    assert [r["loc"] for r in csv_rows(run("urls", url, "--format", "csv").stdout)] == want
    assert [r["loc"] for r in jsonl(run("urls", url, "--format", "jsonl").stdout)] == want

    db = tmp_path / "r.db"
    report = json.loads(run("validate", url, "--format", "json", "--db", str(db)).stdout)
    raw = {i["message"] for i in report["issues"] if i["rule"] == "loc-not-absolute"}
    assert len(raw) == 2 and any("'/abs-path'" in m for m in raw)  # the checker saw the raw value
    store = Store(db, readonly=True)
    try:
        assert [r.loc for r in store.iter_entries(EntryFilter())] == want
    finally:
        store.close()


# -- §6 words -------------------------------------------------------------------------------
def test_counts_and_articles_read_as_english(httpserver) -> None:
    base = httpserver.url_for("/")
    child = serve(httpserver, "/child.xml", f'<urlset {NS}><url><loc>{base}a</loc></url></urlset>')
    index = serve(httpserver, "/index.xml",
                  f'<sitemapindex {NS}><sitemap><loc>{child}</loc></sitemap></sitemapindex>')
    out = run("stats", index).stdout
    assert "1 sitemap " in out + " " and "1 sitemaps" not in out
    assert "1 URL " in out + " " and "1 URLs" not in out
    assert out.rstrip().endswith("2 files, 1 URL")
    assert run("stats", child).stdout.rstrip().endswith("1 file, 1 URL")

    for path, body, ctype, phrase in (
        ("/f.rss", '<rss version="2.0"><channel><title>t</title><item><link>{b}x</link></item></channel></rss>',
         "application/rss+xml", "an RSS feed"),
        ("/f.atom", '<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><entry><link href="{b}x"/></entry></feed>',
         "application/atom+xml", "an Atom feed"),
    ):
        url = serve(httpserver, path, body.format(b=base), ctype)
        out = run("validate", url).stdout
        assert phrase in out and " a RSS" not in out and " a Atom" not in out


# -- §7 exit codes: no sitemap, broken target -----------------------------------------------
HOME = "<!doctype html><html><head><title>home</title></head><body>hello</body></html>"


@pytest.mark.parametrize("robots", [None, "User-agent: *\nDisallow: /private/\n"])
def test_a_site_without_sitemaps_says_what_was_tried_and_exits_2(httpserver, robots: str | None) -> None:
    import re

    httpserver.expect_request("/").respond_with_data(HOME, content_type="text/html")
    if robots is not None:
        httpserver.expect_request("/robots.txt").respond_with_data(robots, content_type="text/plain")
    httpserver.expect_request(re.compile(r"^/.+")).respond_with_data("not found", status=404)
    site = httpserver.url_for("/")
    for command in ("urls", "stats", "validate", "discover"):
        proc = run(command, site)
        assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr
        (line,) = [x for x in proc.stderr.splitlines() if "error" in x]
        assert "no sitemap found: tried robots.txt" in line, line
        assert "/sitemap.xml" in line and "<link rel=sitemap> in the home page" in line
        assert "unreachable" not in proc.stderr
    # and on the site's node, which the explorer's Overview shows (found from outside: it said
    # nothing there, a lone robots.txt node in the tree)
    site_line = run("stats", site).stdout.splitlines()[0]
    assert site_line.startswith("site ") and "— no sitemap found: tried robots.txt" in site_line


def test_a_broken_target_is_a_finding_not_a_usage_error(httpserver) -> None:
    html = serve(httpserver, "/page.xml", HOME, "text/html")
    corrupt = serve(httpserver, "/broken.xml.gz", "", "application/gzip")
    httpserver.clear()  # the corrupt body must be bytes
    httpserver.expect_request("/page.xml").respond_with_data(HOME, content_type="text/html")
    httpserver.expect_request("/broken.xml.gz").respond_with_data(b"\x1f\x8b\x08\x00garbage-not-deflate",
                                                                  content_type="application/gzip")
    for url, rule in ((html, "file-is-html"), (corrupt, "gzip-corrupt")):
        proc = run("validate", url, "--format", "json")
        assert proc.returncode == 1, (url, proc.stderr)
        assert rule in {i["rule"] for i in json.loads(proc.stdout)["issues"]}
        for command in ("urls", "stats"):
            proc = run(command, url)
            assert proc.returncode == 1, (command, url, proc.stderr)
            assert "Traceback" not in proc.stderr and "error" in proc.stderr


def test_an_unreachable_target_exits_2(httpserver) -> None:
    httpserver.expect_request("/gone.xml").respond_with_data("gone", status=404)
    url = httpserver.url_for("/gone.xml")
    for command in ("urls", "stats", "validate", "audit"):
        proc = run(command, url, "--no-history")
        assert proc.returncode == 2, (command, proc.stderr)
        assert "404" in proc.stderr and "Traceback" not in proc.stderr
        # said once, as the error (urls and audit said it twice: as a failed file, then again)
        assert proc.stderr.count("HTTP 404") == 1, (command, proc.stderr)
        assert f"sitemap-tui: error: {url}: HTTP 404" in proc.stderr, (command, proc.stderr)


# -- §7 shown nowhere: index lastmod, extension fields ---------------------------------------
def test_the_index_lastmod_of_a_sitemap_is_in_every_output(httpserver, tmp_path: Path) -> None:
    base = httpserver.url_for("/")
    child = serve(httpserver, "/child.xml", f'<urlset {NS}><url><loc>{base}a</loc></url></urlset>')
    index = serve(httpserver, "/index.xml",
                  f"<sitemapindex {NS}><sitemap><loc>{child}</loc><lastmod>2024-05-01</lastmod></sitemap>"
                  "</sitemapindex>")
    tree = json.loads(run("stats", index, "--json").stdout)["nodes"][0]
    assert tree["index_lastmod"] is None
    assert tree["children"][0]["index_lastmod"] == "2024-05-01"
    assert "index lastmod 2024-05-01" in run("stats", index).stdout
    (rec,) = jsonl(run("urls", index, "--format", "jsonl").stdout)
    assert rec["sitemap_lastmod"] == "2024-05-01"
    (row,) = csv_rows(run("urls", index, "--format", "csv").stdout)
    assert row["sitemap_lastmod"] == "2024-05-01" and row["images"] == "0"

    # the TUI's export reads the store: the same records
    from sitemap_tui.engine.formats import records_from_store

    db = tmp_path / "x.db"
    run("urls", index, "--db", str(db))
    store = Store(db, readonly=True)
    try:
        (stored,) = list(records_from_store(store, EntryFilter()))
        assert stored.sitemap_lastmod == "2024-05-01"
    finally:
        store.close()


def test_jsonl_carries_image_video_and_news_fields(demo_url: str, tmp_path: Path) -> None:
    from sitemap_tui.engine.formats import records_from_store, render

    images = jsonl(run("urls", demo_url + "/sitemap-images.xml", "--format", "jsonl").stdout)
    with_images = [r for r in images if r["images"]]
    assert with_images and all(set(i) == {"loc", "title", "caption", "geo_location", "license"}
                               for r in with_images for i in r["images"])
    assert all(i["loc"].startswith("http") for r in with_images for i in r["images"])

    videos = jsonl(run("urls", demo_url + "/sitemap-video.xml", "--format", "jsonl").stdout)
    first = videos[0]["videos"][0]
    assert first["title"] == "Pitching the Granite 2P in under three minutes"
    assert first["content_loc"].endswith("/media/video/pitching-the-granite-2p.mp4")
    assert first["duration"] == "178"

    news = jsonl(run("urls", demo_url + "/sitemap-news.xml", "--format", "jsonl").stdout)
    assert news[0]["news"] == [{
        "publication_name": "Demo Outfitters Journal", "publication_language": "en",
        "publication_date": "2024-03-04T08:00:00+01:00",
        "title": "Demo Outfitters opens a second store by the harbour",
    }]
    rows = csv_rows(run("urls", demo_url + "/sitemap-video.xml", "--format", "csv").stdout)
    assert rows[0]["videos"] == "1"  # CSV stays one row per URL, with counts

    # what the TUI exports from the store is line for line what `urls` printed
    for name, printed in (("sitemap-video.xml", videos), ("sitemap-news.xml", news), ("sitemap-images.xml", images)):
        db = tmp_path / f"{name}.db"
        run("urls", demo_url + "/" + name, "--db", str(db))
        store = Store(db, readonly=True)
        try:
            assert jsonl(render(records_from_store(store, EntryFilter()), "jsonl")) == printed
        finally:
            store.close()


def test_help_states_the_exit_codes_and_the_url_policy() -> None:
    for command in ("urls", "stats", "discover", "validate"):
        out = run(command, "--help").stdout
        assert "exit codes:" in out and "could not run as asked" in out, command
    # every command that fetches or opens something says what it exits with, signals too
    # (found from outside: the explorer's, access's and open's help said none)
    for command in ("urls", "stats", "discover", "validate", "audit", "access", "diff", "explore", "demo", "open"):
        out = run(command, "--help").stdout
        assert "exit codes:" in out and "  2  " in out and "128+N" in out, command
    # (found by a review: each as the command exits) an HTML page is exit 1 for access too; the
    # explorer takes ctrl+c as a key, and demo --serve stops on it with 0
    assert "not a usable sitemap" in run("access", "--help").stdout
    assert "130" not in run("explore", "--help").stdout.split("exit codes:")[1]
    assert "--serve stopped with Ctrl-C" in run("demo", "--help").stdout
    assert "--keep-non-http" in run("urls", "--help").stdout
    assert "exit codes:" in run("--help").stdout


def test_files_not_fetched_are_not_counted_as_files(httpserver) -> None:
    """An index of 3 children read with --no-recursive is one file read; the 3 listed files are
    said on stderr as left out, not counted in the summary (issue 14 §7: "50,001 files")."""
    base = httpserver.url_for("/")
    kids = "".join(f"<sitemap><loc>{base}c{i}.xml</loc></sitemap>" for i in range(3))
    url = serve(httpserver, "/index.xml", f"<sitemapindex {NS}>{kids}</sitemapindex>")
    proc = run("validate", url, "--no-recursive", "--format", "json")
    assert json.loads(proc.stdout)["summary"]["files"] == 1
    assert "3 listed files not fetched" in proc.stderr
    stats = run("stats", url, "--no-recursive")
    assert "\n1 file, 0 URLs" in stats.stdout


def test_an_empty_sitemap_is_a_finding_whether_served_or_local(httpserver, tmp_path: Path) -> None:
    """An empty file answered: it is a broken sitemap (exit 1 with its finding), the same for a
    local path as for an empty 200 response; only a file that is not there is exit 2."""
    empty = tmp_path / "sitemap.xml"
    empty.write_bytes(b"")
    url = serve(httpserver, "/sitemap.xml", "")
    for target in (str(empty), url):
        proc = run("validate", target, "--format", "json")
        assert proc.returncode == 1, (target, proc.stderr)
        assert "root-unknown" in {i["rule"] for i in json.loads(proc.stdout)["issues"]}
    assert run("validate", str(tmp_path / "missing.xml")).returncode == 2


def test_an_sqlite_database_is_never_replaced_by_an_output(tmp_path: Path) -> None:
    """README promises --output refuses a path that cannot hold what it writes (another
    program's database) without touching it; found from outside, it replaced one, and
    `--db X -o X` replaced the exploration it had just saved."""
    import sqlite3

    sitemap = tmp_path / "s.xml"
    sitemap.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                       "<url><loc>https://example.com/a</loc></url></urlset>")
    other = tmp_path / "prog.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE important(a)")
    before = other.read_bytes()
    for command in (["validate", "--format", "json"], ["urls"], ["stats", "--json"]):
        proc = run(*command, str(sitemap), "-o", str(other), "--no-history")
        assert proc.returncode == 2 and other.read_bytes() == before, command
        assert proc.stderr.splitlines() == [f"sitemap-tui: error: --output {other}: is an SQLite database "
                                            "(a saved exploration, or another program's): not replaced; name another file"]
    same = tmp_path / "same.db"
    proc = run("urls", str(sitemap), "--db", str(same), "-o", str(same))
    # refused before any work (tests/test_outputs.py): nothing is saved, nothing replaced
    assert proc.returncode == 2 and "--db and --output name the same file" in proc.stderr
    assert not same.exists()
    near = tmp_path / "out.db"  # a name alone is no database: written as asked
    near.write_text("old report\n")
    assert run("urls", str(sitemap), "-o", str(near), "--no-history").returncode == 0
    assert near.read_text() == "https://example.com/a\n"


def test_a_robots_txt_that_stalls_is_not_an_unreachable_site(threaded_httpserver) -> None:
    """Found from outside: a robots.txt that took the request and never answered made the whole
    site "unreachable" (exit 2), though its /sitemap.xml answered. A server that took the
    request is there; discovery goes on. (Nothing listening at all is still unreachable.)"""
    import threading

    from werkzeug import Response

    release = threading.Event()

    def stall(_request) -> Response:
        release.wait(20)
        return Response("", status=404)

    server = threaded_httpserver
    server.expect_request("/robots.txt").respond_with_handler(stall)
    serve(server, "/sitemap.xml", f"<urlset {NS}><url><loc>{server.url_for('/p')}</loc></url></urlset>")
    try:
        proc = run("urls", server.url_for("/"), "--no-history", "--timeout", "2", "--retries", "0")
    finally:
        release.set()
    assert proc.stdout.splitlines() == [server.url_for("/p")], proc.stderr
    assert "robots.txt: no complete response within 2 s" in proc.stderr and "unreachable" not in proc.stderr
    dead = run("urls", "http://127.0.0.1:1/", "--no-history", "--retries", "0")
    assert dead.returncode == 2 and "site unreachable: connection failed" in dead.stderr, dead.stderr


def test_validate_deep_obeys_robots_txt_and_says_what_it_left_out(httpserver) -> None:
    """validate --deep: a listed page robots.txt disallows is not fetched, stderr and the
    report's notes say so; --ignore-robots fetches it (the user's own staging site)."""
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nDisallow: /private/\n",
                                                               content_type="text/plain")
    httpserver.expect_request("/private/gone").respond_with_data("no", status=404)
    sitemap = serve(httpserver, "/s.xml", f"<urlset {NS}><url><loc>{httpserver.url_for('/private/gone')}</loc></url></urlset>")
    args = ("validate", sitemap, "--deep", "--rate", "0", "--no-history", "--format", "json", "--select", "deep")
    proc = run(*args)
    said = "deep checks: 1 URL not fetched: robots.txt disallows it for sitemap-tui (--ignore-robots fetches them)"
    assert proc.returncode == 0 and f"sitemap-tui: {said}" in proc.stderr.splitlines(), proc.stderr
    report = json.loads(proc.stdout)
    assert said in report["summary"]["notes"] and report["issues"] == []
    assert "/private/gone" not in {req.path for req, _ in httpserver.log}
    proc = run(*args, "--ignore-robots")
    assert proc.returncode == 1 and [i["rule"] for i in json.loads(proc.stdout)["issues"]] == ["deep-status-4xx"]


@pytest.mark.parametrize("depth", ["0", "1"])
def test_depth_counts_index_levels_alike_for_a_site_and_its_sitemap(httpserver, depth: str) -> None:
    """Found from outside: robots.txt counted as a level, so `--depth 1 SITE` stopped at the
    index robots.txt lists, while `--depth 1 INDEX-URL` read the index's children."""
    httpserver.expect_request("/robots.txt").respond_with_data(
        f"Sitemap: {httpserver.url_for('/index.xml')}\n", content_type="text/plain")
    serve(httpserver, "/index.xml", f"<sitemapindex {NS}><sitemap><loc>{httpserver.url_for('/child.xml')}"
                                    "</loc></sitemap></sitemapindex>")
    serve(httpserver, "/child.xml", f"<urlset {NS}><url><loc>{httpserver.url_for('/p')}</loc></url></urlset>")
    site = run("urls", httpserver.url_for("/"), "--depth", depth, "--no-history")
    index = run("urls", httpserver.url_for("/index.xml"), "--depth", depth, "--no-history")
    assert site.stdout == index.stdout, (site.stderr, index.stderr)
    if depth == "0":
        assert site.stdout == "" and "1 file not fetched: depth limit 0 reached (--depth)" in site.stderr
    else:
        assert site.stdout.splitlines() == [httpserver.url_for("/p")] and "depth" not in site.stderr


def test_a_robots_txt_that_breaks_off_is_not_obeyed_as_whole(threaded_httpserver) -> None:
    """Found from outside: a robots.txt that sent its Sitemap line and then stalled was taken as
    the whole file: the Disallow after the break was never seen, `--deep` fetched the page it
    forbids and `--strict` passed. Its Sitemap lines are still followed; the file is cut short,
    its rules are neither obeyed as complete nor judged by, and the verdict says so."""
    import threading

    from werkzeug import Response

    server = threaded_httpserver
    release = threading.Event()
    head = f"Sitemap: {server.url_for('/s.xml')}\nUser-agent: *\n"

    def broken(_request) -> Response:
        def body():
            yield head.encode()
            release.wait(20)  # the rest ("Disallow: /private/") never comes in time

        return Response(body(), headers={"Content-Length": "500"}, content_type="text/plain")

    server.expect_request("/robots.txt").respond_with_handler(broken)
    serve(server, "/s.xml", f"<urlset {NS}><url><loc>{server.url_for('/private/a')}</loc></url></urlset>")
    try:
        proc = run("validate", server.url_for("/"), "--no-history", "--timeout", "2", "--retries", "0", "--strict",
                   "--format", "json", "--deep", "--rate", "0")
    finally:
        release.set()
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert "robots-fetch-error" in {i["rule"] for i in report["issues"]}, report["issues"]
    assert "1 file cut short" in proc.stderr, proc.stderr
    assert "/private/a" not in {req.path for req, _ in server.log}  # unread rules: the whole origin disallowed
    # asked once: the deep checks read the exploration's answer from the store, not waiting again
    assert [req.path for req, _ in server.log].count("/robots.txt") == 1
    assert "robots.txt of " in proc.stderr and "could not be read (no complete response within 2 s)" in proc.stderr


def test_the_explorer_without_a_terminal_says_so_instead_of_hanging(tmp_path: Path) -> None:
    """Found from outside: `sitemap-tui site.xml > out` (or `open FILE`, `diff --tui`) hung for
    ever, writing the explorer's escape codes into out; `demo` already fell back to stats."""
    sitemap = tmp_path / "s.xml"
    sitemap.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                       "<url><loc>https://example.com/a</loc></url></urlset>")
    saved = tmp_path / "saved.db"
    assert run("urls", str(sitemap), "--db", str(saved)).returncode == 0
    # each says what does its job in a script (found from outside: urls cannot read a .db)
    for args, instead in (([str(sitemap)], "use urls, stats or validate"),
                          (["explore", str(sitemap)], "use urls, stats or validate"),
                          (["open", str(saved)], "history, diff FILE.db NEW or cache list read saved explorations"),
                          (["diff", str(saved), str(sitemap), "--tui"], "diff without --tui writes the comparison")):
        proc = cli_process.run([sys.executable, "-m", "sitemap_tui", *args], stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stdout == ""
        assert proc.stderr.splitlines() == [
            "sitemap-tui: error: the explorer needs a terminal, and stdin and stdout are not one: "
            f"in scripts, {instead} (sitemap-tui --help)"], args


def test_csv_raw_help_says_what_it_keeps_escaped() -> None:
    """Found from outside: --csv-raw said "every cell as it is", yet control characters come out
    escaped (as they must, on a terminal): the help says so now."""
    text = " ".join(run("urls", "--help").stdout.split())
    assert "every cell as it is" not in text
    assert "control characters are still written as escapes" in text


def test_ctrl_c_before_a_command_takes_over_is_one_line_and_130(monkeypatch, capsys) -> None:
    """Found from outside: Ctrl-C in the first quarter second (the command's modules loading)
    printed a KeyboardInterrupt traceback; the program's front door says it in one line."""
    from sitemap_tui import main as front

    def interrupted(argv, launch=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(front, "cli_main", interrupted)
    assert front.main(["urls", "x.xml"]) == 130
    assert capsys.readouterr().err == "sitemap-tui: interrupted (Ctrl-C)\n"


def test_a_local_file_whose_name_is_no_utf8_is_read(tmp_path: Path) -> None:
    """Found from outside: `bad\\xff\\xfe.xml` (a name Linux allows) was "no such file", its
    name read back from its file: URL as UTF-8 with U+FFFD; a folder reported it as a finding."""
    folder = tmp_path / "odd dir"
    folder.mkdir()
    name = os.fsdecode(b"bad\xff\xfe.xml")
    try:
        (folder / name).write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                                   "<url><loc>https://example.com/a</loc></url></urlset>")
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system takes no such name")
    proc = run("urls", os.fsencode(folder / name).decode("utf-8", "surrogateescape"), "--no-history")
    assert proc.returncode == 0 and proc.stdout == "https://example.com/a\n", proc.stderr
    proc = run("validate", str(folder), "--no-history", "--format", "json")
    assert '"fetch-http-error"' not in proc.stdout and proc.returncode == 0, proc.stdout + proc.stderr

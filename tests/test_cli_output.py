"""What the headless commands print, run as a user runs them against sitemaps served on 127.0.0.1:
which entries are URLs, how locs are resolved, and what every count says."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sitemap_tui.engine.store import EntryFilter, Store

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
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
    url = serve(httpserver, "/s.xml", body.format(base=base), ctype)
    want = [base + "a"]

    for fmt in ("txt", "csv", "jsonl"):
        proc = run("urls", url, "--format", fmt)
        assert proc.returncode == 0, proc.stderr
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

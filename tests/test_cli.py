"""Headless commands as a user runs them: a real process against the demo site on 127.0.0.1."""

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

DEMO_TOTAL = 300 + 42 + 20 + 6 + 8 + 25 + 15 + 20


def run(*args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
    proc = cli_process.run(
        [sys.executable, "-m", "sitemap_tui", *args], capture_output=True, text=True, timeout=120
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_help_lists_commands_with_examples() -> None:
    out = run("--help", check=True).stdout
    for cmd in ("urls", "stats", "discover", "validate", "rules", "demo", "open"):
        assert cmd in out
    assert "examples:" in out
    for cmd in ("urls", "stats", "discover", "validate", "rules", "demo", "open", "explore"):
        sub = run(cmd, "--help", check=True).stdout
        assert "example" in sub, cmd


def test_urls_txt(demo_url: str) -> None:
    proc = run("urls", demo_url + "/", check=True)
    lines = proc.stdout.splitlines()
    assert len(lines) == DEMO_TOTAL
    assert all(line.startswith(("http://", "https://")) for line in lines)
    # per-node failures are reported on stderr, the run still succeeds
    assert "sitemap-missing.xml" in proc.stderr and "404" in proc.stderr


def test_urls_same_with_and_without_worker_processes(demo_url: str) -> None:
    inline = run("urls", demo_url + "/", "--workers", "0", check=True).stdout.splitlines()
    pooled = run("urls", demo_url + "/", "--workers", "2", check=True).stdout.splitlines()
    assert len(inline) == DEMO_TOTAL
    assert sorted(inline) == sorted(pooled)


def test_urls_jsonl_fields(demo_url: str) -> None:
    proc = run("urls", demo_url + "/sitemap-blog.xml", "--format", "jsonl", check=True)
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(rows) == 42
    first = rows[0]
    assert set(first) >= {"loc", "lastmod", "changefreq", "priority", "sitemap", "images", "alternates"}
    assert first["sitemap"].endswith("/sitemap-blog.xml")
    assert {a["hreflang"] for a in first["alternates"]} == {"en", "de", "fr", "x-default"}


def test_urls_csv_to_file_atomically(demo_url: str, tmp_path: Path) -> None:
    out = tmp_path / "sub" / "urls.csv"
    run("urls", demo_url + "/sitemap-products.xml.gz", "--format", "csv", "--output", str(out), check=True)
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(rows) == 300
    assert [p.name for p in out.parent.iterdir()] == ["urls.csv"]


def test_urls_no_recursive_on_index_lists_nothing(demo_url: str) -> None:
    proc = run("urls", demo_url + "/sitemap_index.xml", "--no-recursive", check=True)
    assert proc.stdout == ""


def test_stats_json_shape(demo_url: str) -> None:
    proc = run("stats", demo_url + "/", "--json", check=True)
    data = json.loads(proc.stdout)
    site = data["nodes"][0]
    assert site["kind"] == "site"
    robots = site["children"][0]
    assert robots["kind"] == "robots" and robots["found_by"] == "probe"
    index = next(c for c in robots["children"] if c["url"].endswith("/sitemap_index.xml"))
    assert index["kind"] == "index" and index["found_by"] == "robots"
    products = next(c for c in index["children"] if "products" in c["url"])
    for key in ("url", "kind", "state", "found_by", "urls", "bytes", "error", "children"):
        assert key in products
    assert products["urls"] == 300 and products["gzipped"] is True
    assert products["lastmod"]["invalid"] == 1
    assert products["priority"]["invalid"] == 1
    blog = next(c for c in index["children"] if "blog" in c["url"])
    assert blog["extensions"]["urls_with_alternates"] == 42
    missing = next(c for c in index["children"] if "missing" in c["url"])
    assert missing["state"] == "failed" and "404" in missing["error"]


def test_stats_text(demo_url: str) -> None:
    out = run("stats", demo_url + "/sitemap_index.xml", check=True).stdout
    assert "300 URLs" in out and "gzipped" in out


def test_stats_says_why_parsing_stopped(httpserver) -> None:
    """A file cut short by an XML error: the stats line said where parsing stopped, not why
    (found from outside); the parser's reason is on it now, as validate's finding has it."""
    ns = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    first, second = httpserver.url_for("/1"), httpserver.url_for("/2")
    body = (f'<?xml version="1.0"?>\n<urlset {ns}>\n<url><loc>{first}</loc></url>\n'
            f'<url><loc>{second}</loc></ur>\n</urlset>\n')
    httpserver.expect_request("/sitemap.xml").respond_with_data(body, content_type="application/xml")
    out = run("stats", httpserver.url_for("/sitemap.xml"), check=True).stdout
    assert "parsing stopped at line:col 4:" in out and "(Opening and ending tag mismatch" in out, out
    assert "1 entry kept" in out


def test_discover(demo_url: str) -> None:
    data = json.loads(run("discover", demo_url, "--json", check=True).stdout)
    found = {(s["found_by"], s["url"].rsplit("/", 1)[-1]) for s in data["sitemaps"] if s["found"]}
    assert ("robots", "sitemap_index.xml") in found
    assert ("robots", "sitemap-pages.txt") in found
    data = json.loads(run("discover", demo_url, "--json", "--probe", check=True).stdout)
    probed = [s for s in data["sitemaps"] if s["found_by"] == "probe"]
    assert probed and all(not s["found"] for s in probed if s["url"].endswith("/sitemap.xml"))


def test_discover_text_says_robots_txt_the_home_page_and_the_probes_left_out(httpserver) -> None:
    """The text listed only sitemap candidates: a robots.txt that answered 404, a home page
    without <link rel=sitemap> and the common paths left unprobed were said by --json alone."""
    ns = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    urlset = f"<urlset {ns}><url><loc>{httpserver.url_for('/p')}</loc></url></urlset>"
    httpserver.expect_request("/sitemap.xml").respond_with_data(urlset, content_type="application/xml")
    httpserver.expect_request("/").respond_with_data("<html><head></head><body>hi</body></html>",
                                                     content_type="text/html")
    proc = run("discover", httpserver.url_for("/"), check=True)
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["no", "robots.txt", httpserver.url_for("/robots.txt"), "(HTTP", "404", "Not", "Found)"]
    assert any(line.startswith("found  probe") and line.endswith("/sitemap.xml  (probed: urlset)") for line in lines)
    assert lines[-1].endswith("(no <link rel=sitemap> in the home page)") and lines[-1].startswith("no     html-link")
    assert "not probed" not in proc.stderr

    httpserver.clear()
    httpserver.expect_request("/robots.txt").respond_with_data(
        f"User-agent: *\nSitemap: {httpserver.url_for('/sitemap.xml')}\n", content_type="text/plain")
    httpserver.expect_request("/sitemap.xml").respond_with_data(urlset, content_type="application/xml")
    proc = run("discover", httpserver.url_for("/"), check=True)
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("read   robots.txt") and lines[0].endswith("(1 Sitemap: line)")
    assert lines[1].startswith("found  robots ") and "probe" not in proc.stdout
    assert lines[2].endswith("(home page: HTTP 404 Not Found)")
    assert "common paths not probed: robots.txt lists sitemaps (--probe probes them too)" in proc.stderr
    proc = run("discover", httpserver.url_for("/"), "--json", check=True)  # stderr whatever stdout is
    assert "common paths not probed: robots.txt lists sitemaps (--probe probes them too)" in proc.stderr


def test_a_robots_txt_and_a_home_page_over_their_caps_are_said(httpserver) -> None:
    """Found from outside: a 509 KiB robots.txt (its last Sitemap: line past 500 KiB) and a
    4.6 MB home page (its <link rel=sitemap> at the end) were cut without a word, and discover
    said the home page had no sitemap link."""
    ns = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    urlset = f"<urlset {ns}><url><loc>{httpserver.url_for('/p')}</loc></url></urlset>"
    pad = "# " + "x" * 98 + "\n"
    robots = (f"User-agent: *\nSitemap: {httpserver.url_for('/a.xml')}\n" + pad * 5200
              + f"Sitemap: {httpserver.url_for('/b.xml')}\n")
    httpserver.expect_request("/robots.txt").respond_with_data(robots, content_type="text/plain")
    httpserver.expect_request("/a.xml").respond_with_data(urlset, content_type="application/xml")
    home = "<html><head>" + "<!-- " + "y" * (1100 * 1024) + " -->" + '<link rel="sitemap" href="/c.xml"></head></html>'
    httpserver.expect_request("/").respond_with_data(home, content_type="text/html")
    proc = run("discover", httpserver.url_for("/"), check=True)
    lines = proc.stdout.splitlines()
    assert lines[0].endswith("(1 Sitemap: line; only the first 500 KiB read, as Google reads it: "
                             "the lines after it are ignored)"), lines[0]
    assert lines[-1].endswith("(no <link rel=sitemap> in the home page's first 1 MiB)"), lines[-1]
    cut = (f"{httpserver.url_for('/robots.txt')}: only the first 500 KiB read, as Google reads it: "
           "the lines after it are ignored")
    proc = run("urls", httpserver.url_for("/"), "--no-history", check=True)
    assert proc.stderr.splitlines().count(f"sitemap-tui: {cut}") == 1, proc.stderr
    proc = run("validate", httpserver.url_for("/"), "--no-history", "--format", "json")
    assert cut in json.loads(proc.stdout)["summary"]["notes"] and f"sitemap-tui: {cut}" in proc.stderr
    # its only Sitemap: line past the cap: "no sitemap found" says why (found from outside: it
    # said "tried robots.txt (no Sitemap: lines)", the cap nowhere)
    httpserver.clear()
    httpserver.expect_request("/robots.txt").respond_with_data(
        "User-agent: *\n" + pad * 5200 + f"Sitemap: {httpserver.url_for('/b.xml')}\n", content_type="text/plain")
    httpserver.expect_request("/").respond_with_data("<html></html>", content_type="text/html")
    proc = run("urls", httpserver.url_for("/"), "--no-history")
    assert proc.returncode == 2
    assert ("tried robots.txt (no Sitemap: lines; only the first 500 KiB read, as Google reads it: the lines after"
            " it are ignored)") in proc.stderr, proc.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("urls", "http://127.0.0.1:1/sitemap.xml"),
        ("stats", "http://127.0.0.1:1/"),
        ("urls", "ftp://example.com/sitemap.xml"),
        ("urls", "./no/such/file.xml"),
        ("urls",),
        ("validate", "x", "--format", "pdf"),
        ("urls", "x", "--workers", "-1"),
    ],
)
def test_usage_errors_and_unreachable_exit_2(args: tuple[str, ...]) -> None:
    proc = run(*args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


def test_headers_and_user_agent_reach_every_request(httpserver) -> None:
    """-H and --user-agent apply to the index and to the children it lists."""
    base = httpserver.url_for("")
    index = (
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{base}child.xml</loc></sitemap></sitemapindex>"
    )
    child = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{base}p</loc></url></urlset>'
    httpserver.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")
    httpserver.expect_request("/child.xml").respond_with_data(child, content_type="application/xml")
    proc = run("urls", base + "index.xml", "-H", "X-Token: s3cret", "--user-agent", "probe/1.0", check=True)
    assert proc.stdout.strip() == base + "p"
    seen = [(req.path, req.headers.get("X-Token"), req.headers.get("User-Agent")) for req, _ in httpserver.log]
    assert ("/index.xml", "s3cret", "probe/1.0") in seen
    assert ("/child.xml", "s3cret", "probe/1.0") in seen


def test_closed_pipe_is_not_an_error(demo_url: str) -> None:
    """`sitemap-tui urls ... | head -1`: the reader leaving early is silent and exits 0."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "sitemap_tui", "urls", demo_url + "/sitemap-products.xml.gz"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert first.startswith(b"http")
    assert "Broken pipe" not in err and "Traceback" not in err


@pytest.mark.parametrize("command", ["validate", "diff"])
def test_a_reader_that_left_does_not_turn_a_failing_run_into_a_pass(tmp_path: Path, command: str) -> None:
    """Found from outside: `validate ... | head` under pipefail exited 0 on a report with errors
    once it was longer than the pipe held (diff's met --fail-if too). The verdict is the
    findings', not the reader's."""
    for name, page in (("bad", "p"), ("new", "q")):
        (tmp_path / f"{name}.xml").write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' + "".join(
            f"<url><loc>https://example.com/{page}{i}</loc><lastmod>2024-13-01</lastmod></url>" for i in range(3_000))
            + "</urlset>")
    args = (["validate", "bad.xml", "--no-robots-checks"] if command == "validate"
            else ["diff", "bad.xml", "new.xml", "--format", "jsonl", "--fail-if", "added>0"])
    proc = subprocess.Popen([sys.executable, "-m", "sitemap_tui", *args], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().strip()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1, err
    assert "Traceback" not in err and "Broken pipe" not in err


@pytest.mark.parametrize("command", ["validate", "urls", "stats", "audit"])
def test_a_reader_of_stderr_too_that_left_does_not_turn_a_failing_run_into_a_pass(tmp_path: Path, command: str) -> None:
    """Found from outside: with stderr in the pipe (`2>&1 | head -1`, a common CI pattern) a
    run that failed exited 0: the broken pipe of its first message on stderr ended it as a
    reader's choice. The messages are lost with the reader; the exit status stays the run's
    (2: the target did not answer), stats's too, whose report the reader left before."""
    read, write = os.pipe()
    proc = subprocess.Popen([sys.executable, "-m", "sitemap_tui", command, "http://127.0.0.1:9/sitemap.xml",
                             "--retries", "0", "--no-history"],
                            cwd=tmp_path, stdout=write, stderr=write, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)})
    os.close(write)
    os.close(read)  # the reader gone before a word
    assert proc.wait(timeout=60) == 2


FETCH = ["--no-history", "--retries", "0"]


@pytest.mark.parametrize(("args", "code"), [(["urls", "--bogus"], 2), (["diff", "http://127.0.0.1:9/x.xml"], 2),
                                           (["urls", "{good}", *FETCH], 0), (["urls", "{bad}", *FETCH], 2)])
@pytest.mark.parametrize("stderr", ["full", "closed"])
def test_a_stderr_that_cannot_be_written_keeps_the_exit_code(tmp_path: Path, args: list[str], code: int,
                                                             stderr: str) -> None:
    """Found by a review: past the command's own body (argparse's refusal, a usage error, the
    Ctrl-C line) a stderr on /dev/full turned 2 into 1, and a closed one (2>&-) made every
    run a traceback and 1, with no stdout. The messages go; the exit code and stdout stay."""
    good = tmp_path / "s.xml"
    good.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://e.com/a</loc></url></urlset>')
    argv = [a.format(good=good, bad="http://127.0.0.1:9/x.xml") for a in args]
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "sitemap_tui", *argv],
                              stdout=subprocess.PIPE, stderr=full if stderr == "full" else None,
                              preexec_fn=(lambda: os.close(2)) if stderr == "closed" else None,
                              env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}, timeout=60)
    assert proc.returncode == code
    assert proc.stdout == (b"https://e.com/a\n" if code == 0 else b"")


@pytest.mark.parametrize("stderr", ["full", "closed"])
def test_an_early_ctrl_c_line_never_reaches_stdout_nor_changes_130(stderr: str) -> None:
    """Found by a review: a Ctrl-C before the command's own handling began (its imports) was
    said by the front door after the stderr guard had ended: on a closed stderr the line went
    to stdout (`urls ... 2>&- > list.txt` put it in the data), on /dev/full the exit was 1."""
    code = ("import sys, sitemap_tui.main as m\n"
            "def boom(*a, **k): raise KeyboardInterrupt\n"
            "m.cli_main = boom\nsys.exit(m.main(['urls', 'x.xml']))\n")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                              stderr=full if stderr == "full" else None,
                              preexec_fn=(lambda: os.close(2)) if stderr == "closed" else None, timeout=60)
    assert (proc.returncode, proc.stdout) == (130, b"")


@pytest.mark.parametrize("command", [["urls"], ["access", "--list", "--format", "jsonl"]])
def test_a_reader_that_left_is_the_cause_named_for_not_keeping_the_run(tmp_path: Path, command: list[str]) -> None:
    """More URLs than the pipe holds, the reader gone after one: the run is not kept, and the
    line that says so named a cause "said on its own line" that no line said (access too,
    whose report is written after the exploration)."""
    sitemap = tmp_path / "big.xml"
    sitemap.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' + "".join(
        f"<url><loc>https://example.com/a-rather-long-path/to/page-{i}</loc></url>" for i in range(20_000))
        + "</urlset>")
    proc = subprocess.Popen([sys.executable, "-m", "sitemap_tui", command[0], str(sitemap), *command[1:]],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert proc.stdout is not None and proc.stderr is not None
    assert b"https://example.com/" in proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert ("sitemap-tui: this exploration is not kept in the history: it did not complete"
            " (its output's reader stopped reading before the end, as | head does)") in err.splitlines(), err
    assert "the cause is said on its own line" not in err


CLEAN = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    "  <url><loc>{base}a</loc><lastmod>2024-01-02</lastmod></url>\n"
    "  <url><loc>{base}b</loc><lastmod>2024-01-03</lastmod></url>\n"
    "</urlset>\n"
)


def test_validate_demo_finds_errors_exit_1(demo_url: str) -> None:
    proc = run("validate", demo_url + "/")
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(": error priority-invalid " in line for line in lines)
    assert any(": error fetch-http-error " in line for line in lines)
    # the summary line, then its notes: here the missing sitemap, as stderr says it too
    summary = next(i for i, line in enumerate(lines) if " files, " in line and " URLs: " in line)
    assert "error" in lines[summary] and "warning" in lines[summary]
    assert lines[summary + 1:] == ["1 file could not be fetched or read, first " + demo_url + "/sitemap-missing.xml"]


def test_validate_json_and_select(demo_url: str) -> None:
    proc = run("validate", demo_url + "/sitemap-products.xml.gz", "--format", "json", "--select", "priority-,changefreq-")
    data = json.loads(proc.stdout)
    rules = {i["rule"] for i in data["issues"]}
    assert rules and all(r.startswith(("priority-", "changefreq-")) for r in rules)
    issue = next(i for i in data["issues"] if i["rule"] == "priority-invalid")
    assert set(issue) == {"rule", "severity", "sitemap", "file", "line", "column", "url", "message"}
    assert issue["file"] is None  # fetched, not read from a local file
    assert issue["line"] and issue["url"].endswith("ridgeline-gloves-rust")
    assert set(data["summary"]) == {"files", "urls", "errors", "warnings", "info", "notes"}
    assert data["summary"]["urls"] == 300 and proc.returncode == 1
    proc = run("validate", demo_url + "/sitemap-products.xml.gz", "--format", "json",
               "--ignore", "priority-invalid,changefreq-invalid,lastmod-,xsd-,location-",
               "--min-severity", "error")
    assert json.loads(proc.stdout)["summary"]["errors"] == 0 and proc.returncode == 0


def test_validate_clean_file_exit_0_and_sarif_github(httpserver, tmp_path: Path) -> None:
    base = httpserver.url_for("/")
    httpserver.expect_request("/clean.xml").respond_with_data(CLEAN.format(base=base), content_type="application/xml")
    proc = run("validate", base + "clean.xml", "--min-severity", "warning")
    assert proc.returncode == 0, proc.stdout
    local = tmp_path / "sitemap.xml"
    local.write_text(CLEAN.format(base="https://example.com/").replace("2024-01-03", "2024-13-03"))
    sarif = tmp_path / "out.sarif"
    proc = run("validate", str(local), "--format", "sarif", "--output", str(sarif))
    assert proc.returncode == 1
    doc = json.loads(sarif.read_text())
    assert doc["version"] == "2.1.0"
    assert any(r["ruleId"] == "lastmod-invalid-format" for r in doc["runs"][0]["results"])
    proc = run("validate", str(local), "--format", "github")
    assert any(line.startswith("::error ") and "lastmod-invalid-format" in line for line in proc.stdout.splitlines())


def test_validate_keeps_file_stats_only_in_a_kept_store(demo_url: str, tmp_path: Path) -> None:
    from sitemap_tui.engine.store import Store

    db = tmp_path / "v.db"
    run("validate", demo_url + "/sitemap-products.xml.gz", "--db", str(db))
    store = Store(db, readonly=True)
    try:
        (node_id,) = [n.id for n in store.nodes() if n.url.endswith("/sitemap-products.xml.gz")]
        assert store.aggregate([node_id]).urls == 300  # what `open` shows in the stats pane
    finally:
        store.close()


def test_validate_unreachable_and_bad_rule_exit_2() -> None:
    assert run("validate", "http://127.0.0.1:1/sitemap.xml").returncode == 2
    proc = run("validate", "http://127.0.0.1:1/sitemap.xml", "--select", "no-such-rule")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_rules_list_and_explain() -> None:
    out = run("rules", check=True).stdout
    assert "161 rules" in out and "hreflang-missing-self" in out
    one = run("rules", "lastmod-future", check=True).stdout
    assert "lastmod-future" in one and "Source:" in one
    data = json.loads(run("rules", "--json", check=True).stdout)
    assert len(data) == 161 and {"id", "scope", "severity", "explanation", "source"} <= set(data[0])
    assert run("rules", "no-such-rule").returncode == 2

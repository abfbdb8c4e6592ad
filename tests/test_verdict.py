"""Issue 16 §2-§4: `validate` gives one verdict whatever the target is called (a site, a sitemap
URL, a robots.txt URL, a local file or a build folder), with one exit-code contract and one fail
level (`--fail-on`). Real servers on 127.0.0.1 and real folders in tmp_path; the CLI runs in this
process (`cli.main`) with one worker so that it stays quick."""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import pickle
import re
from pathlib import Path
from typing import Any

import pytest
from host_wire import as_tuple
from host_wire import command as host_command
from pytest_httpserver import HTTPServer

from sitemap_tui import cli
from sitemap_tui.engine.discover import Target
from sitemap_tui.engine.store import Store
from sitemap_tui.session.host import EngineHost, make_checker
from sitemap_tui.validate.registry import RULES

XML = "application/xml"
ROOT = Path(__file__).resolve().parents[1]


def urlset(*locs: str, lastmod: bool = True) -> str:
    stamp = "<lastmod>2024-01-02</lastmod>" if lastmod else ""
    body = "".join(f"  <url><loc>{loc}</loc>{stamp}</url>\n" for loc in locs)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{body}</urlset>\n'
    )


def index(*locs: str) -> str:
    body = "".join(f"  <sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{body}</sitemapindex>\n'
    )


def base_of(server: HTTPServer) -> str:
    return server.url_for("").rstrip("/")


def robots_requests(server: HTTPServer) -> int:
    return [req.path for req, _ in server.log].count("/robots.txt")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The command as a user runs it, in this process: (exit code, stdout, stderr)."""
    capsys.readouterr()
    try:
        code = cli.main([*args, "--workers", "0"])
    except SystemExit as exc:  # argparse refused an option
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any], str]:
    code, out, err = run(capsys, "validate", *args, "--format", "json")
    return code, json.loads(out), err


def robots_based() -> tuple[str, ...]:
    from sitemap_tui.validate.registry import ROBOTS_BASED_RULES

    return ROBOTS_BASED_RULES


def findings(report: dict[str, Any], sitemap: str | None = None) -> set[tuple[str, str | None]]:
    return {(i["rule"], i["url"]) for i in report["issues"] if sitemap is None or i["sitemap"] == sitemap}


# -- §2 one verdict whatever the target is called ----------------------------------------------


@pytest.fixture()
def site(httpserver: HTTPServer) -> str:
    """robots.txt submits a sitemap in a subfolder that lists pages anywhere on the host, one of
    them disallowed."""
    base = base_of(httpserver)
    httpserver.expect_request("/robots.txt").respond_with_data(
        f"User-agent: *\nDisallow: /private/\n\nSitemap: {base}/sub/sitemap.xml\n", content_type="text/plain")
    httpserver.expect_request("/sub/sitemap.xml").respond_with_data(
        urlset(f"{base}/a", f"{base}/private/x", f"{base}/sub/y"), content_type=XML)
    httpserver.expect_request("/").respond_with_data("<html><head></head><body></body></html>", content_type="text/html")
    return base


def test_a_sitemap_gets_the_same_verdict_as_a_site_a_sitemap_url_or_a_robots_txt_url(
    capsys: pytest.CaptureFixture[str], httpserver: HTTPServer, site: str
) -> None:
    sitemap = f"{site}/sub/sitemap.xml"
    verdicts = {}
    for target in (f"{site}/", sitemap, f"{site}/robots.txt"):
        httpserver.clear_log()
        code, report, err = run_json(capsys, target)
        verdicts[target] = (code, findings(report, sitemap))
        assert robots_requests(httpserver) == 1, target  # read once, shared by every check
        assert report["summary"]["notes"] == [], target
    expected = {
        ("robots-url-disallowed", f"{site}/private/x"),
        # a sitemap that robots.txt submits may list any path on its host
        ("robots-cross-submit-ok", f"{site}/a"),
    }
    for target, (code, found) in verdicts.items():
        assert found == expected, target
        assert code == 0, target  # robots-url-disallowed is a warning


def test_a_sitemap_url_not_submitted_by_robots_txt_keeps_its_location_finding(
    capsys: pytest.CaptureFixture[str], httpserver: HTTPServer
) -> None:
    base = base_of(httpserver)
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nDisallow: /private/\n")
    httpserver.expect_request("/sub/sitemap.xml").respond_with_data(
        urlset(f"{base}/a", f"{base}/sub/private/x", f"{base}/private/y"), content_type=XML)
    code, report, _ = run_json(capsys, f"{base}/sub/sitemap.xml")
    found = findings(report)
    assert ("location-outside-path", f"{base}/a") in found
    assert ("robots-url-disallowed", f"{base}/private/y") in found
    assert ("robots-url-disallowed", f"{base}/sub/private/x") not in found
    assert code == 1  # location-outside-path is an error


def test_no_robots_checks_reads_no_robots_txt_and_says_so(
    capsys: pytest.CaptureFixture[str], httpserver: HTTPServer, site: str
) -> None:
    for target in (f"{site}/sub/sitemap.xml", f"{site}/"):
        httpserver.clear_log()
        code, report, err = run_json(capsys, target, "--no-robots-checks")
        found = findings(report, f"{site}/sub/sitemap.xml")
        assert not {rule for rule, _ in found} & set(robots_based()), target
        # nothing voids the location finding any more
        assert ("location-outside-path", f"{site}/a") in found, target
        assert code == 1
        notes = report["summary"]["notes"]
        assert len(notes) == 1 and "--no-robots-checks" in notes[0] and "robots-url-disallowed" in notes[0]
        assert notes[0] in err
        if target.endswith(".xml"):
            assert robots_requests(httpserver) == 0
    code, out, err = run(capsys, "validate", f"{site}/sub/sitemap.xml", "--no-robots-checks")
    summary = out.splitlines()
    assert summary[-2].startswith("1 file, 3 URLs: ") and "--no-robots-checks" in summary[-1]


def test_a_robots_txt_that_cannot_be_read_is_said(capsys: pytest.CaptureFixture[str], httpserver: HTTPServer) -> None:
    base = base_of(httpserver)
    httpserver.expect_request("/robots.txt").respond_with_data("busy", 503)
    httpserver.expect_request("/s.xml").respond_with_data(urlset(f"{base}/a"), content_type=XML)
    code, report, err = run_json(capsys, f"{base}/s.xml")
    (note,) = report["summary"]["notes"]
    assert f"{base}/robots.txt" in note and "503" in note and "did not run" in note
    assert note in err
    assert code == 0


def test_a_local_file_says_that_robots_rules_did_not_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(urlset("https://example.com/a", "https://example.com/private/b"))
    code, out, err = run(capsys, "validate", str(sitemap))
    lines = out.splitlines()
    assert lines[-3].startswith("1 file, 2 URLs: 0 errors")
    assert "robots-based rules did not run" in lines[-2] and "no robots.txt beside" in lines[-2]
    # that rule still judges a streaming-only or relative video URL, which needs no robots.txt
    assert "video-files-not-accessible (its robots.txt part)" in lines[-2]
    # found from outside: the host and location rules were as silent, unsaid (a build's file
    # given alone passed what its folder's run failed on)
    assert lines[-1].startswith("host and location rules did not run: 1 local file read as no site, first file:")
    assert "location-different-host" in lines[-1] and "--map SITE=FOLDER" in lines[-1]
    assert lines[-2] in err and lines[-1] in err
    assert code == 0


@pytest.mark.parametrize("fmt", ["github", "sarif"])
def test_every_format_carries_the_notes(capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str) -> None:
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(urlset("https://example.com/a"))
    code, out, err = run(capsys, "validate", str(sitemap), "--format", fmt)
    notes = [line.removeprefix("sitemap-tui: ") for line in err.splitlines()]
    assert [n.split(":")[0] for n in notes] == ["robots-based rules did not run", "host and location rules did not run"]
    if fmt == "github":
        assert out.splitlines()[-2:] == notes
        return
    jsonschema = pytest.importorskip("jsonschema")
    doc = json.loads(out)
    schema = json.loads((ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    assert not list(jsonschema.Draft4Validator(schema).iter_errors(doc))
    (invocation,) = doc["runs"][0]["invocations"]
    assert [n["message"]["text"] for n in invocation["toolExecutionNotifications"]] == notes


def test_a_robots_txt_beside_a_local_file_is_the_sites(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(urlset("https://example.com/a", "https://example.com/private/b"))
    (tmp_path / "robots.txt").write_text("User-agent: *\nDisallow: /private/\n\nSitemap: https://example.com/sitemap.xml\n")
    code, report, err = run_json(capsys, str(sitemap))
    assert findings(report) == {("robots-url-disallowed", "https://example.com/private/b")}
    assert report["summary"]["notes"] == [] and "did not run" not in err
    # its site is known only from its Sitemap: lines
    (tmp_path / "robots.txt").write_text("User-agent: *\nDisallow: /private/\n")
    code, report, err = run_json(capsys, str(sitemap))
    assert findings(report) == set()
    note, no_site = report["summary"]["notes"]
    assert "robots-based rules did not run" in note and "no Sitemap: line" in note
    assert no_site.startswith("host and location rules did not run")


async def test_the_explorer_on_a_sitemap_url_gets_the_robots_verdicts(httpserver: HTTPServer, site: str, tmp_path: Path) -> None:
    """The TUI's engine host: open a sitemap URL, expand it, run the cross-file checks."""
    got: list[tuple[Any, ...]] = []
    finished = asyncio.Event()
    loop = asyncio.get_running_loop()
    db = tmp_path / "e.db"

    def post(message: Any) -> None:
        pickle.dumps(message)
        msg = as_tuple(message)
        got.append(msg)
        if msg[0] == "ready":
            host.command(host_command("open", Target.parse(f"{site}/sub/sitemap.xml")))
            host.command(host_command("expand-all", 1))
            host.command(host_command("crossfile", True))
        if msg[:2] == ("done", "crossfile") or msg[0] == "error":
            loop.call_soon_threadsafe(finished.set)

    host = EngineHost(post, db, checker_factory=make_checker)
    server = asyncio.create_task(host.serve())
    await asyncio.wait_for(finished.wait(), 30)
    host.command(host_command("stop"))
    await asyncio.wait_for(server, 30)
    assert not [m for m in got if m[0] == "error"]
    store = Store(db, readonly=True)
    try:
        rules = {(i.rule, i.url) for i in store.iter_issues()}
    finally:
        store.close()
    assert ("robots-url-disallowed", f"{site}/private/x") in rules
    assert ("robots-cross-submit-ok", f"{site}/a") in rules
    assert not any(rule == "location-outside-path" for rule, _ in rules)
    assert robots_requests(httpserver) == 1


# -- §3 exit codes, one contract ---------------------------------------------------------------


@pytest.fixture()
def served(httpserver: HTTPServer) -> str:
    base = base_of(httpserver)
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nDisallow: /private/\n")
    # only a warning (a disallowed URL), only info (no <lastmod>), an error (priority 2), not a sitemap
    httpserver.expect_request("/warning.xml").respond_with_data(urlset(f"{base}/private/a"), content_type=XML)
    httpserver.expect_request("/info.xml").respond_with_data(urlset(f"{base}/a", lastmod=False), content_type=XML)
    httpserver.expect_request("/error.xml").respond_with_data(
        urlset(f"{base}/a").replace("</lastmod>", "</lastmod><priority>2</priority>"), content_type=XML)
    httpserver.expect_request("/missing.xml").respond_with_data("gone", 404)
    httpserver.expect_request("/page.xml").respond_with_data("<!doctype html><html><body>hi</body></html>", content_type="text/html")
    return base


@pytest.mark.parametrize(
    ("name", "codes"),
    [
        # fail level:  error, warning, info, never
        ("warning.xml", (0, 1, 1, 0)),
        ("info.xml", (0, 0, 1, 0)),
        ("error.xml", (1, 1, 1, 0)),
        ("page.xml", (1, 1, 1, 0)),  # a broken sitemap is a finding, not "could not run"
    ],
)
def test_fail_on_sets_the_level_that_exits_1(capsys: pytest.CaptureFixture[str], served: str, name: str, codes: tuple[int, ...]) -> None:
    got = []
    for level in ("error", "warning", "info", "never"):
        code, _, err = run(capsys, "validate", f"{served}/{name}", "--fail-on", level)
        assert "Traceback" not in err
        got.append(code)
    assert tuple(got) == codes
    assert run(capsys, "validate", f"{served}/{name}")[0] == codes[0]  # the default is error


def test_could_not_run_is_2_whatever_the_fail_level(capsys: pytest.CaptureFixture[str], served: str) -> None:
    code, _, err = run(capsys, "validate", "http://127.0.0.1:1/sitemap.xml", "--fail-on", "never")
    assert code == 2 and "sitemap-tui: error: http://127.0.0.1:1/sitemap.xml: " in err
    code, _, err = run(capsys, "validate", f"{served}/missing.xml", "--fail-on", "never")
    assert code == 2 and "404" in err  # a 404 target: nothing to validate
    code, out, err = run(capsys, "validate", f"{served}/info.xml", "--fail-on", "errors")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "invalid choice: 'errors'" in err


def test_a_min_severity_above_the_fail_level_fails_on_what_it_reports(capsys: pytest.CaptureFixture[str],
                                                                      served: str) -> None:
    """Found from outside: refused as "--fail-on warning cannot fail: --min-severity error ...",
    which it can (errors are at or above warning): a project config's fail-on kept its user from
    a run of errors alone. Near miss: the same run on a file whose findings are below the floor."""
    code, out, err = run(capsys, "validate", f"{served}/error.xml", "--fail-on", "warning", "--min-severity", "error")
    assert code == 1 and out, err
    assert "--min-severity error leaves warning findings out of the report: the run fails on any finding" in err
    assert run(capsys, "validate", f"{served}/info.xml", "--fail-on", "info", "--min-severity", "error")[0] == 0


def test_strict_still_fails_an_incomplete_result_under_fail_on_never(capsys: pytest.CaptureFixture[str], httpserver: HTTPServer) -> None:
    base = base_of(httpserver)
    httpserver.expect_request("/robots.txt").respond_with_data("", 404)
    httpserver.expect_request("/index.xml").respond_with_data(index(f"{base}/gone.xml"), content_type=XML)
    httpserver.expect_request("/gone.xml").respond_with_data("gone", 404)
    assert run(capsys, "validate", f"{base}/index.xml", "--fail-on", "never")[0] == 0
    assert run(capsys, "validate", f"{base}/index.xml", "--fail-on", "never", "--strict")[0] == 1


def test_the_contract_is_documented(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["validate", "--help"]) == 0
    help_text = capsys.readouterr().out
    assert "--fail-on {error,warning,info,never}" in help_text and "--no-robots-checks" in help_text
    assert "exit codes:" in help_text and "docs/exit-codes.md" in help_text
    readme = (ROOT / "README.md").read_text()
    assert "--fail-on" in readme and "docs/exit-codes.md" in readme
    doc = (ROOT / "docs" / "exit-codes.md").read_text()
    assert "--fail-on" in doc
    # every rule that reads robots.txt is listed, and nothing else under that heading
    section = doc.split("## Rules that read robots.txt", 1)[1].split("\n## ", 1)[0]
    listed = {line.split("`")[1] for line in section.splitlines() if line.startswith("- `")}
    assert listed == set(robots_based()) and listed <= RULES.keys()


# -- §4 a folder is a build output -------------------------------------------------------------


def build_output(root: Path) -> Path:
    """What a static site generator leaves: sitemaps, a feed, and files that are not sitemaps."""
    root.mkdir()
    site = "https://example.com"
    (root / "robots.txt").write_text(f"User-agent: *\nDisallow: /private/\n\nSitemap: {site}/sitemap.xml\nSitemap: {site}/extra.dat\n")
    (root / "sitemap.xml").write_text(index(f"{site}/post-sitemap.xml", f"{site}/pages.xml"))
    (root / "post-sitemap.xml").write_text(urlset(f"{site}/post/1", f"{site}/private/2"))
    (root / "pages.xml").write_text(urlset(f"{site}/about"))  # a sitemap by content only
    (root / "archive.xml.gz").write_bytes(gzip.compress(urlset(f"{site}/old").encode()))  # gzipped
    (root / "feed.xml").write_text(
        '<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>https://example.com/</link>'
        "<description>d</description><item><title>x</title><link>https://example.com/post/1</link>"
        "<pubDate>Tue, 02 Jan 2024 00:00:00 +0000</pubDate></item></channel></rss>\n")
    (root / "extra.dat").write_text(f"{site}/extra\n")  # listed by robots.txt, no sitemap suffix
    (root / "ads.txt").write_text("google.com, pub-0000000000000000, DIRECT, f08c47fec0942fa0\n")
    (root / "humans.txt").write_text("/* TEAM */\nDeveloper: Jane\n")
    (root / "browserconfig.xml").write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<browserconfig><msapplication/></browserconfig>\n')
    (root / "index.html").write_text("<!doctype html><title>home</title>")
    (root / "style.css").write_text("body{}")
    (root / "posts").mkdir()
    return root


def test_a_build_folder_is_read_as_the_site_its_robots_txt_names(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A build folder whose robots.txt names one site is read as that site (as --map SITE=FOLDER
    reads it): robots.txt first, what it and the index list, and the folder's sitemaps nothing
    lists read as well, each said on stderr."""
    public = build_output(tmp_path / "public")
    code, report, err = run_json(capsys, str(public))
    sitemaps = {i["sitemap"].rsplit("/", 1)[-1] for i in report["issues"] if i["sitemap"]}
    assert not sitemaps & {"ads.txt", "humans.txt", "browserconfig.xml", "index.html", "style.css"}
    assert "root-unknown" not in {i["rule"] for i in report["issues"]}
    assert all(i["sitemap"].startswith("https://example.com/") for i in report["issues"] if i["sitemap"])
    # robots.txt, the index, its two children, the file robots.txt lists, the gzipped urlset, the feed
    assert report["summary"]["files"] == 7
    assert report["summary"]["urls"] == 6
    # the folder's robots.txt is the site's: its Disallow judges the URLs beside it
    assert ("robots-url-disallowed", "https://example.com/private/2") in findings(report)
    assert f"{public} is read as https://example.com/ (the site the robots.txt in " in err
    assert (f"2 sitemap files in {public.resolve()} listed by neither its robots.txt nor an index there, "
            "read as well: archive.xml.gz, feed.xml") in err
    assert "not fetched" not in err and "could not be fetched" not in err
    assert code == 0


def test_two_build_folders_read_their_unlisted_files_in_diff_and_validate(capsys: pytest.CaptureFixture[str],
                                                                          tmp_path: Path) -> None:
    """Found by a review: `diff public staging` said "2 sitemap files ... read as well" of each
    build and read neither (the per-side exploration lost them): their URLs counted as gone.
    validate with the two folders lost them the same way."""
    old, new = build_output(tmp_path / "public"), build_output(tmp_path / "staging")
    code, out, err = run(capsys, "diff", str(old), str(new), "--format", "json", "--no-history")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["old"]["files"] == doc["new"]["files"] == 7, (doc["old"], doc["new"])
    # each side named as typed (found from outside: both read "https://example.com/")
    assert (doc["old"]["source"], doc["new"]["source"]) == (str(old), str(new)), (doc["old"], doc["new"])
    assert doc["summary"]["urls_removed"] == doc["summary"]["urls_added"] == 0, doc["summary"]
    code, out, err = run(capsys, "validate", str(old), str(new), "--no-history")
    assert [line.split(":")[0] for line in out.splitlines() if " files, " in line] == ["7 files, 6 URLs"] * 2, out


def test_a_build_folders_missing_child_and_foreign_urls_fail_as_on_the_site(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Read as files, the folder's index child on its own site was "on another host" (exit 0, a
    hint to fetch it from the network) and the location rules had no site: a missing child and a
    URL on another host passed CI. Near miss: the same folder given --map of another site."""
    public = tmp_path / "public"
    public.mkdir()
    site = "https://shop.example"
    (public / "robots.txt").write_text(f"Sitemap: {site}/sitemap_index.xml\n")
    (public / "sitemap_index.xml").write_text(index(f"{site}/a.xml", f"{site}/missing.xml"))
    (public / "a.xml").write_text(urlset(f"{site}/p", "https://other.example/x"))
    code, report, err = run_json(capsys, str(public))
    found = findings(report)
    assert ("index-child-unfetchable", f"{site}/missing.xml") in found
    assert ("location-different-host", "https://other.example/x") in found
    assert "on another host" not in err and code == 1
    for path in (str(public), str(public / "a.xml")):  # a file of the folder: the same verdict
        code, report, _ = run_json(capsys, path)
        assert ("location-different-host", "https://other.example/x") in findings(report), path
    code, report, err = run_json(capsys, str(public), "--map", f"{site}/={public}")
    assert "(--map)" in err and "robots.txt names" not in err  # the user's own map, said as such


def test_two_builds_of_one_site_given_together_are_each_read_as_the_site(capsys: pytest.CaptureFixture[str],
                                                                        tmp_path: Path) -> None:
    """Found from outside: a pre-commit hook's two files whose folders' robots.txt name the same
    site were both read as files, unsaid, and a URL on another host passed (exit 0). Each is now
    read as if given alone."""
    site = "https://www.example.com"
    for name, urls in (("public", (f"{site}/", "https://shop.example.net/x")), ("staging", (f"{site}/b",))):
        (tmp_path / name).mkdir()
        (tmp_path / name / "robots.txt").write_text(f"Sitemap: {site}/sitemap.xml\n")
        (tmp_path / name / "sitemap.xml").write_text(urlset(*urls))
    a, b = str(tmp_path / "public" / "sitemap.xml"), str(tmp_path / "staging" / "sitemap.xml")
    code, out, err = run(capsys, "validate", a, b)
    assert "location-different-host" in out and code == 1
    assert f"{a} is read as {site}/sitemap.xml" in err and f"{b} is read as {site}/sitemap.xml" in err


def test_a_relative_sitemap_line_does_not_unmake_the_site_the_others_name(capsys: pytest.CaptureFixture[str],
                                                                          tmp_path: Path) -> None:
    """Found from outside: one relative Sitemap: line beside an absolute one left the folder read
    as files, unsaid, and the location rules with no site: a URL on another host passed."""
    public = tmp_path / "public"
    public.mkdir()
    (public / "robots.txt").write_text("Sitemap: https://example.com/sitemap.xml\nSitemap: /sitemap.xml\n")
    (public / "sitemap.xml").write_text(urlset("https://example.com/a", "https://other.example/b"))
    code, report, err = run_json(capsys, str(public))
    assert "is read as https://example.com/ (the site the robots.txt in " in err
    found = findings(report)
    assert ("location-different-host", "https://other.example/b") in found and code == 1
    assert "robots-sitemap-not-absolute" in {i["rule"] for i in report["issues"]}


def test_a_folder_without_robots_txt_is_read_as_the_site_its_index_names(capsys: pytest.CaptureFixture[str],
                                                                         tmp_path: Path) -> None:
    """Found from outside: without robots.txt the build was read as files, and a child its index
    listed but the build lacked passed as "on another host" (exit 0), an index listing itself as
    nothing. Its index's top-level URLs name the site now. Near miss: an index that lists two
    sites names none, and the folder is read as files, its skipped files said."""
    public = build_output(tmp_path / "public")
    (public / "robots.txt").unlink()
    (public / "sitemap.xml").write_text(index("https://example.com/sitemap.xml", "https://example.com/pages.xml",
                                              "https://example.com/missing.xml"))
    code, report, err = run_json(capsys, str(public))
    assert "is read as https://example.com/ (the site an index in " in err
    found = findings(report)
    assert ("index-child-unfetchable", "https://example.com/missing.xml") in found and code == 1
    assert "index-cycle" in {i["rule"] for i in report["issues"]}
    assert "on another host" not in err
    (public / "sitemap.xml").write_text(index("https://example.com/pages.xml", "https://other.example/x.xml"))
    code, report, err = run_json(capsys, str(public))
    assert "is read as" not in err
    notes = report["summary"]["notes"]
    skipped = next(n for n in notes if "ads.txt" in n)
    assert skipped.startswith("3 files skipped") and "browserconfig.xml" in skipped and "humans.txt" in skipped
    assert any(n.startswith("3 other files skipped") for n in notes)  # extra.dat: no robots.txt lists it
    assert any("1 subfolder not searched" in n for n in notes)
    for note in notes:
        assert note in err


@pytest.mark.parametrize("content", [{}, {"ads.txt": "google.com, pub-1, DIRECT\n", "browserconfig.xml": "<browserconfig/>\n"}])
def test_a_folder_without_a_sitemap_cannot_be_validated(capsys: pytest.CaptureFixture[str], tmp_path: Path, content: dict[str, str]) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    for name, text in content.items():
        (folder / name).write_text(text)
    for command in ("validate", "urls", "stats"):
        code, out, err = run(capsys, command, str(folder))
        assert code == 2, command
        (line,) = [e for e in err.splitlines() if "error:" in e]
        assert "no sitemap found in" in line
        if content:
            assert "2 files skipped" in line and "ads.txt" in line, command


def test_a_sitemap_named_as_one_is_validated_even_when_broken(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "sitemap-1.xml").write_text("<html>oops</html>")
    (folder / "notes\x1b[2J.txt").write_text("just words\n")
    code, report, err = run_json(capsys, str(folder))
    assert {Path(i["sitemap"]).name for i in report["issues"] if i["sitemap"]} == {"sitemap-1.xml"}
    assert code == 1
    # a file name is said as text, never as a terminal control sequence
    assert "1 file skipped" in err and "notes\\x1b[2J.txt" in err and "\x1b" not in err


BROKEN_AT_ONCE = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n<url does not close</urlset>\n'


@pytest.mark.parametrize("command", ["urls", "stats", "audit"])
def test_nothing_listed_from_a_sitemap_broken_before_its_first_entry_is_1_and_keeps_the_output(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    """`urls broken.xml -o list.txt` exited 0 and emptied list.txt: a sitemap that stops at an
    XML error before its first entry gives nothing, which is "not a usable sitemap" (exit 1)."""
    target = tmp_path / "broken.xml"
    target.write_text(BROKEN_AT_ONCE)
    out = tmp_path / "out.txt"
    out.write_text("GOOD LIST\n")
    code, _, err = run(capsys, command, str(target), "-o", str(out))
    assert code == 1, err
    assert "nothing could be listed: the sitemap failed, or stopped at an error before the first entry" in err
    assert out.read_text() == "GOOD LIST\n"


def test_a_site_whose_sitemaps_all_fail_lists_nothing_and_is_1(
    capsys: pytest.CaptureFixture[str], httpserver: HTTPServer, tmp_path: Path
) -> None:
    base = base_of(httpserver)
    httpserver.expect_request("/robots.txt").respond_with_data(
        f"Sitemap: {base}/a.xml\nSitemap: {base}/b.xml\n", content_type="text/plain")
    httpserver.expect_request("/a.xml").respond_with_data("gone", status=404)
    httpserver.expect_request("/b.xml").respond_with_data("gone", status=404)
    out = tmp_path / "out.txt"
    out.write_text("GOOD LIST\n")
    code, stdout, err = run(capsys, "urls", base + "/", "-o", str(out))
    assert code == 1, err
    assert "nothing could be listed: 2 sitemap files failed" in err
    assert f"{base}/a.xml: HTTP 404" in err
    assert out.read_text() == "GOOD LIST\n"


def test_many_failed_files_are_named_up_to_a_cap_and_the_rest_counted_by_cause(
    capsys: pytest.CaptureFixture[str], httpserver: HTTPServer, tmp_path: Path
) -> None:
    """Found using it: an index whose children all fail wrote one stderr line per child (50,000
    for a large site), and the run's own last words scrolled away. The first
    FAILURES_SAID are named, the rest counted by cause; near miss: at the cap, no count line."""
    from sitemap_tui.cli.verdict import FAILURES_SAID

    base = base_of(httpserver)
    cap = FAILURES_SAID
    children = [f"{base}/gone-{i}.xml" for i in range(cap + 5)] + [f"{base}/bad-{i}.xml" for i in range(2)]
    httpserver.expect_request("/index.xml").respond_with_data(index(*children), content_type=XML)
    for i in range(2):
        httpserver.expect_request(f"/bad-{i}.xml").respond_with_data("nope", status=500)
    # (the tests' server answers 404 to what nobody set up)
    code, _, err = run(capsys, "urls", base + "/index.xml", "--no-history", "--retries", "0")
    named = [line for line in err.splitlines() if line.startswith(f"sitemap-tui: {base}/") and "HTTP" in line]
    assert len(named) == cap, err
    # which 7 are left depends on the fetch order: their causes add up to 7
    count_line = next(line for line in err.splitlines() if "more files failed" in line)
    assert count_line.startswith("sitemap-tui: 7 more files failed ("), count_line
    counted = sum(int(n) for n in re.findall(r"(?:\(|; )(\d+) ", count_line))
    assert counted == 7 and "`sitemap-tui stats TARGET --json` lists each file and its error" in count_line
    # at the cap: every failure named, no count
    fewer = [f"{base}/x-{i}.xml" for i in range(cap)]
    httpserver.expect_request("/few.xml").respond_with_data(index(*fewer), content_type=XML)
    code, _, err = run(capsys, "urls", base + "/few.xml", "--no-history", "--retries", "0")
    assert sum(line.startswith(f"sitemap-tui: {base}/x-") for line in err.splitlines()) == cap, err
    assert "more files failed" not in err and f"{cap} files could not be fetched or read, first {base}/x-0" in err
    # a mapped build's missing files share one cause, not one each by name (found by a review)
    build = tmp_path / "public"
    build.mkdir()
    (build / "index.xml").write_text(index(*(f"https://example.com/s{i}.xml" for i in range(cap + 3))))
    code, _, err = run(capsys, "urls", str(build / "index.xml"), "--map", f"https://example.com/={build}",
                       "--no-history")
    assert "sitemap-tui: 3 more files failed (3 not found in " in err and "s22.xml;" not in err, err


def test_an_empty_sitemap_or_one_child_that_fails_is_still_a_listing(
    capsys: pytest.CaptureFixture[str], httpserver: HTTPServer, tmp_path: Path
) -> None:
    """The near misses: a well-formed sitemap with no URL lists nothing and is 0; an index
    with one child failing beside one that answers is a listing (the failure said)."""
    empty = tmp_path / "empty.xml"
    empty.write_text(urlset())
    code, stdout, err = run(capsys, "urls", str(empty))
    assert (code, stdout) == (0, ""), err
    base = base_of(httpserver)
    httpserver.expect_request("/index.xml").respond_with_data(index(f"{base}/a.xml", f"{base}/b.xml"), content_type=XML)
    httpserver.expect_request("/a.xml").respond_with_data("gone", status=404)
    httpserver.expect_request("/b.xml").respond_with_data(urlset("https://example.com/x"), content_type=XML)
    code, stdout, err = run(capsys, "urls", f"{base}/index.xml")
    assert code == 0 and stdout.split() == ["https://example.com/x"], err
    assert "nothing could be listed" not in err


def test_a_304_to_a_plain_request_is_an_answer_without_a_sitemap(
    capsys: pytest.CaptureFixture[str], httpserver: HTTPServer
) -> None:
    """Found from outside: a 304 Not Modified to a request that asked nothing conditional exited
    2 (could not run) while a 204 exited 1: both answered, with no sitemap."""
    httpserver.expect_request("/304.xml").respond_with_data("", status=304)
    httpserver.expect_request("/204.xml").respond_with_data("", status=204)
    for name in ("/304.xml", "/204.xml"):
        code, _, err = run(capsys, "urls", httpserver.url_for(name), "--no-cache")
        assert code == 1, (name, err)


def test_a_local_file_that_cannot_be_read_is_2_as_a_missing_one(tmp_path: Path) -> None:
    """Found from outside: an unreadable file exited 1 (a broken sitemap) where a missing one
    exits 2: neither answered. (Root reads every file: the test drops that capability.)"""
    import shutil
    import subprocess
    import sys

    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("root reads every file, and setpriv is not here to drop that")
    target = tmp_path / "s.xml"
    target.write_text(urlset("https://example.com/a"))
    target.chmod(0)
    prefix = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner"] if os.geteuid() == 0 else []
    proc = subprocess.run([*prefix, sys.executable, "-m", "sitemap_tui", "urls", str(target), "--no-history"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "Permission denied" in proc.stderr


def test_urls_that_failed_inside_keeps_its_output_even_after_writing_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose files failed inside sitemap-tui (a killed worker) had streamed the other
    files' URLs, and so replaced -o with the part: a 2 keeps the previous file whatever was
    written."""
    from sitemap_tui.cli import urls as urls_cmd
    from sitemap_tui.cli.verdict import TargetProblem

    target = tmp_path / "s.xml"
    target.write_text(urlset("https://example.com/a"))
    out = tmp_path / "out.txt"
    out.write_text("GOOD LIST\n")
    monkeypatch.setattr(urls_cmd, "target_problem",
                        lambda explorer: TargetProblem(2, "a file failed inside sitemap-tui (…)"))
    code, _, err = run(capsys, "urls", str(target), "-o", str(out), "--no-history")
    assert code == 2 and "failed inside sitemap-tui" in err
    assert out.read_text() == "GOOD LIST\n"

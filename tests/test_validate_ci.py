"""validate in CI (issue 21 section 2): --summary, baselines, the project config, as a user runs
them: the CLI in a subprocess on local files and on a server at 127.0.0.1."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import cli_process
import pytest

from sitemap_tui.validate.baseline import BaselineError, load

HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
TAIL = "</urlset>\n"


def sitemap(*entries: str) -> str:
    return HEAD + "".join(entries) + TAIL


def good(path: str) -> str:
    return f"<url><loc>https://example.com/{path}</loc><lastmod>2024-01-03</lastmod></url>\n"


def bad_lastmod(path: str) -> str:
    return f"<url><loc>https://example.com/{path}</loc><lastmod>2024-13-03</lastmod></url>\n"


def bad_priority(path: str) -> str:
    return f"<url><loc>https://example.com/{path}</loc><priority>5</priority></url>\n"


def run(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return cli_process.run([sys.executable, "-m", "sitemap_tui", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env={**os.environ, **(env or {})})


def one_error_line(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("sitemap-tui: error:")]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture
def many(tmp_path: Path) -> Path:
    """A sitemap with 12 invalid lastmods and 2 invalid priorities."""
    path = tmp_path / "sitemap.xml"
    path.write_text(sitemap(*[bad_lastmod(f"p{i}") for i in range(12)], bad_priority("x"), bad_priority("y")))
    return path


# -- --summary -----------------------------------------------------------------------------------


def test_summary_one_line_per_rule_with_count_and_first_urls(tmp_path: Path, many: Path) -> None:
    proc = run(tmp_path, "validate", "sitemap.xml", "--summary", "--summary-urls", "2", "--min-severity", "error")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0] == ("error lastmod-invalid-format: 12 findings: <https://example.com/p0>, "
                        "<https://example.com/p1>, and 10 more")
    assert lines[1] == "error priority-invalid: 2 findings: <https://example.com/x>, <https://example.com/y>"
    assert lines[2] == "1 file, 14 URLs: 14 errors, 0 warnings, 0 info"
    full = run(tmp_path, "validate", "sitemap.xml", "--no-summary", "--min-severity", "error")
    assert sum("lastmod-invalid-format" in ln for ln in full.stdout.splitlines()) == 12


def _on_terminal(cwd: Path, lines: int, *args: str) -> str:
    """stdout of a run whose stdout is a terminal of ``lines`` rows (shutil reads LINES)."""
    leader, follower = pty.openpty()
    try:
        proc = cli_process.run([sys.executable, "-m", "sitemap_tui", *args], stdout=follower,
                              stderr=subprocess.DEVNULL, cwd=cwd, timeout=120,
                              env={**os.environ, "LINES": str(lines), "COLUMNS": "200"})
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the other side is closed and drained
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    assert proc.returncode == 1
    return b"".join(chunks).decode().replace("\r\n", "\n")


def test_summary_is_the_default_on_a_terminal_when_findings_exceed_a_screenful(tmp_path: Path, many: Path) -> None:
    small = _on_terminal(tmp_path, 10, "validate", "sitemap.xml", "--min-severity", "error")
    assert "error lastmod-invalid-format: 12 findings" in small
    large = _on_terminal(tmp_path, 100, "validate", "sitemap.xml", "--min-severity", "error")
    assert large.count("lastmod-invalid-format") == 12
    forced = _on_terminal(tmp_path, 10, "validate", "sitemap.xml", "--min-severity", "error", "--no-summary")
    assert forced.count("lastmod-invalid-format") == 12


def test_summary_option_errors(tmp_path: Path, many: Path) -> None:
    one_error_line(run(tmp_path, "validate", "sitemap.xml", "--summary", "--format", "json"), "--summary is a text report")
    one_error_line(run(tmp_path, "validate", "sitemap.xml", "--summary-urls", "x"), "--summary-urls")


# -- baselines -----------------------------------------------------------------------------------


def test_baseline_round_trip_survives_line_shifts(tmp_path: Path) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_text(sitemap(bad_lastmod("a"), bad_priority("b")))
    first = run(tmp_path, "validate", "sitemap.xml", "--write-baseline", "base.json")
    assert first.returncode == 1  # the findings are still reported while a baseline is written
    known = len(json.loads((tmp_path / "base.json").read_text())["issues"])
    assert known >= 3 and f"wrote a baseline of {known} findings" in first.stderr
    again = run(tmp_path, "validate", "sitemap.xml", "--baseline", "base.json")
    assert again.returncode == 0, again.stdout
    assert "0 errors, 0 warnings, 0 info" in again.stdout
    assert f"baseline base.json: {known} known findings not reported, 0 new" in again.stderr
    # two good entries above: every line moves, and one new finding comes at the end
    path.write_text(sitemap(good("x"), good("y"), bad_lastmod("a"), bad_priority("b"), bad_lastmod("c")))
    shifted = run(tmp_path, "validate", "sitemap.xml", "--baseline", "base.json")
    assert shifted.returncode == 1
    findings = [ln for ln in shifted.stdout.splitlines() if ln.startswith("sitemap.xml:")]
    assert findings == ["sitemap.xml:7: error lastmod-invalid-format lastmod '2024-13-03' is not a W3C "
                        "Datetime <https://example.com/c>"]
    assert f"{known} known findings not reported, 1 new" in shifted.stderr
    # a warning-level exit follows only the new findings too
    assert run(tmp_path, "validate", "sitemap.xml", "--baseline", "base.json", "--fail-on", "never").returncode == 0


def test_same_finding_twice_counts(tmp_path: Path) -> None:
    """Two findings with one identity (rule, file, URL): the baseline holds one, the second is new."""
    path = tmp_path / "sitemap.xml"
    path.write_text(sitemap(bad_lastmod("a")))
    run(tmp_path, "validate", "sitemap.xml", "--write-baseline", "base.json", "--select", "lastmod-")
    path.write_text(sitemap(bad_lastmod("a"), bad_lastmod("a")))
    proc = run(tmp_path, "validate", "sitemap.xml", "--baseline", "base.json", "--select", "lastmod-invalid")
    assert proc.stdout.count("lastmod-invalid-format") == 1 and proc.returncode == 1


def test_sarif_baseline_states_against_a_server(httpserver, tmp_path: Path) -> None:
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n")
    body = sitemap(bad_lastmod("a"), bad_priority("b"))
    httpserver.expect_request("/sitemap.xml").respond_with_data(body, content_type="application/xml")
    url = httpserver.url_for("/sitemap.xml")
    proc = run(tmp_path, "validate", url, "--format", "sarif", "--output", "before.sarif", "--min-severity", "error",
               "--select", "lastmod-,priority-")
    assert proc.returncode == 1
    httpserver.clear()
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n")
    body = sitemap(good("z"), bad_lastmod("a"), bad_lastmod("c"))
    httpserver.expect_request("/sitemap.xml").respond_with_data(body, content_type="application/xml")
    proc = run(tmp_path, "validate", url, "--format", "sarif", "--baseline", "before.sarif", "--min-severity", "error",
               "--select", "lastmod-,priority-")
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    schema = json.loads((Path(__file__).parent / "data" / "sarif" / "sarif-schema-2.1.0.json").read_text())
    import jsonschema

    jsonschema.Draft4Validator(schema).validate(doc)  # baselineState's values are the spec's
    results = doc["runs"][0]["results"]
    states = {(r["ruleId"], r["properties"]["url"]): r["baselineState"] for r in results}
    assert states == {
        ("lastmod-invalid-format", "https://example.com/a"): "unchanged",
        ("lastmod-invalid-format", "https://example.com/c"): "new",
        ("priority-invalid", "https://example.com/b"): "absent",
    }
    # a SARIF report is a baseline as well as the JSON one, and the text report lists the new one
    text = run(tmp_path, "validate", url, "--baseline", "before.sarif", "--min-severity", "error",
               "--select", "lastmod-,priority-")
    assert [ln.split(" <")[-1] for ln in text.stdout.splitlines() if "lastmod-invalid" in ln] == ["https://example.com/c>"]
    # without a baseline, SARIF has no baselineState
    plain = run(tmp_path, "validate", url, "--format", "sarif", "--min-severity", "error")
    assert all("baselineState" not in r for r in json.loads(plain.stdout)["runs"][0]["results"])


def test_a_build_folder_read_as_its_site_matches_its_own_sarif_or_json_baseline(tmp_path: Path) -> None:
    """Found from outside: SARIF names a build's local file, the finding its URL (the site the
    folder's robots.txt names): a SARIF baseline matched none of its own findings."""
    public = tmp_path / "public"
    public.mkdir()
    (public / "robots.txt").write_text("User-agent: *\nDisallow:\nSitemap: https://example.com/sitemap.xml\n")
    (public / "sitemap.xml").write_text(sitemap(bad_lastmod("a"), bad_priority("b")))
    text = run(tmp_path, "validate", "public", "--no-history").stdout  # (found from outside: it named the URL)
    assert "public/sitemap.xml:3: error lastmod-invalid-format" in text and "https://example.com/sitemap.xml:" not in text
    for fmt in ("sarif", "json"):
        run(tmp_path, "validate", "public", "--no-history", "--format", fmt, "-o", f"base.{fmt}")
        again = run(tmp_path, "validate", "public", "--no-history", "--baseline", f"base.{fmt}")
        assert again.returncode == 0 and ", 0 new" in again.stderr, (fmt, again.stdout, again.stderr)
        states = json.loads(run(tmp_path, "validate", "public", "--no-history", "--baseline", f"base.{fmt}",
                                "--format", "sarif").stdout)["runs"][0]["results"]
        assert states and {r["baselineState"] for r in states} == {"unchanged"}, fmt


def test_baseline_errors_and_a_failed_run_keeps_the_old_baseline(tmp_path: Path, many: Path) -> None:
    one_error_line(run(tmp_path, "validate", "sitemap.xml", "--baseline", "missing.json"), "missing.json")
    (tmp_path / "notjson.json").write_text("{")
    one_error_line(run(tmp_path, "validate", "sitemap.xml", "--baseline", "notjson.json"), "not JSON")
    (tmp_path / "deep.json").write_text("[" * 100_000)  # a traceback, exit 1 (found by a review)
    one_error_line(run(tmp_path, "validate", "sitemap.xml", "--baseline", "deep.json"), "nested too deeply")
    (tmp_path / "other.json").write_text('{"a": 1}')
    one_error_line(run(tmp_path, "validate", "sitemap.xml", "--baseline", "other.json"), "other.json")
    (tmp_path / "folder").mkdir()
    one_error_line(run(tmp_path, "validate", "sitemap.xml", "--write-baseline", "folder"), "--write-baseline")
    # found from outside: a device was read until memory ran out (23 GB, the OOM killer)
    one_error_line(run(tmp_path, "validate", "sitemap.xml", "--baseline", "/dev/zero"), "not a regular file")
    one_error_line(run(tmp_path, "validate", "sitemap.xml", "--baseline", "folder"), "--baseline")
    # found from outside: a field of the wrong type was a traceback after the whole run, exit 1
    # (CI reads that as new findings), or Python's own words as the message
    damaged = {
        '{"issues":[{"rule":"lastmod-future","sitemap":5}]}': "`sitemap` is not text",
        '{"issues":[{"rule":"lastmod-future","url":{"x":1}}]}': "`url` is not text",
        '{"issues":[{"rule":"lastmod-future","line":"3"}]}': "`line` is not a number",
        '{"version":"2.1.0","runs":[{"results":[{"ruleId":"r","properties":{"url":[1]}}]}]}': "`url` is not text",
        '{"version":"2.1.0","runs":[{"results":[{"ruleId":"r","locations":"bad"}]}]}': "locations are not a list",
        '{"version":"2.1.0","runs":[{"results":[{"ruleId":"r","locations":[5]}]}]}': "location is not an object",
        '{"version":"2.1.0","runs":[{"results":[{"ruleId":"r","message":"m"}]}]}': "message is not an object",
        '{"version":"2.1.0","runs":[{"results":{"a":1}}]}': "results are not a list",
        '{"version":"2.1.0","runs":["x"]}': "run is not an object",
    }
    for i, (text, words) in enumerate(damaged.items()):
        (tmp_path / "damaged.json").write_text(text)
        if i == 0:  # the command line's one line and exit 2; the rest through the loader it calls
            one_error_line(run(tmp_path, "validate", "sitemap.xml", "--baseline", "damaged.json"), "damaged.json", words)
        with pytest.raises(BaselineError, match=re.escape(words)):
            load(str(tmp_path / "damaged.json"), tmp_path)
    kept = tmp_path / "kept.json"
    kept.write_text("previous")
    proc = run(tmp_path, "validate", "http://127.0.0.1:1/sitemap.xml", "--write-baseline", "kept.json")
    assert proc.returncode == 2
    assert kept.read_text() == "previous"


def test_a_baseline_that_cannot_be_written_keeps_the_previous_report(tmp_path: Path, many: Path) -> None:
    """The report was committed before the baseline's folder failed: exit 2, a new -o file."""
    report = tmp_path / "report.txt"
    report.write_text("previous")
    (tmp_path / "blocker").write_text("a file where a folder should be")
    proc = run(tmp_path, "validate", "sitemap.xml", "-o", "report.txt", "--write-baseline", "blocker/sub/b.json")
    one_error_line(proc, "--write-baseline", "blocker/sub/b.json")
    assert report.read_text() == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker", "report.txt", "sitemap.xml"]
    proc = run(tmp_path, "validate", "sitemap.xml", "-o", "report.txt", "--write-baseline", "out/b.json")
    assert proc.returncode == 1 and "wrote a baseline of 16 findings to out/b.json" in proc.stderr
    assert "lastmod-invalid" in report.read_text() and (tmp_path / "out" / "b.json").is_file()


# -- the project config --------------------------------------------------------------------------


def test_config_found_upward_applies_and_the_command_line_wins(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no table: passed over
    (tmp_path / ".sitemap-tui.toml").write_text(
        'fail-on = "never"\nselect = ["priority-"]\nseverity = {priority-ignored = "error"}\n')
    sub = tmp_path / "site" / "deep"
    sub.mkdir(parents=True)
    (sub / "sitemap.xml").write_text(sitemap(bad_lastmod("a"), bad_priority("b")))
    proc = run(sub, "validate", "sitemap.xml")
    assert proc.returncode == 0  # fail-on never
    assert "lastmod" not in proc.stdout  # select
    assert "error priority-ignored" in proc.stdout  # raised from info
    assert run(sub, "validate", "sitemap.xml", "--fail-on", "error").returncode == 1
    assert "lastmod-invalid-format" in run(sub, "validate", "sitemap.xml", "--select", "lastmod-").stdout
    ignored = run(sub, "validate", "sitemap.xml", "--no-config")
    assert "lastmod-invalid-format" in ignored.stdout and "info priority-ignored" in ignored.stdout
    # the override counts against --min-severity as the reported severity
    raised = run(sub, "validate", "sitemap.xml", "--min-severity", "error", "--fail-on", "error")
    assert "priority-ignored" in raised.stdout


def test_a_project_config_is_read_up_to_a_cap(tmp_path: Path) -> None:
    (tmp_path / "sitemap.xml").write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>')
    (tmp_path / ".sitemap-tui.toml").write_text("# x\n" * 600_000)  # 2.4 MB of comments: no config
    one_error_line(run(tmp_path, "validate", "sitemap.xml", "--no-history"), ".sitemap-tui.toml", "larger than 1 MiB")


def test_pyproject_table_and_the_search_stops_at_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = home / "project"
    project.mkdir(parents=True)
    (project / "sitemap.xml").write_text(sitemap(bad_lastmod("a")))
    (tmp_path / ".sitemap-tui.toml").write_text('fail-on = "never"\n')  # above $HOME: never read
    env = {"HOME": str(home)}
    assert run(project, "validate", "sitemap.xml", env=env).returncode == 1
    (project / "pyproject.toml").write_text('[tool.sitemap-tui]\nfail-on = "never"\n')
    assert run(project, "validate", "sitemap.xml", env=env).returncode == 0


def test_show_config_names_the_file_and_where_each_value_came_from(tmp_path: Path) -> None:
    (tmp_path / ".sitemap-tui.toml").write_text(
        'fail-on = "warning"\nbaseline = "base.json"\nmap = ["https://example.com/=./public/"]\n'
        'headers = {Authorization = "env:SITEMAP_TOKEN"}\n')
    proc = run(tmp_path, "validate", "--show-config", "--select", "loc-", env={"SITEMAP_TOKEN": "s3cret"})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    config = str(tmp_path.resolve() / ".sitemap-tui.toml")
    assert out.splitlines()[0] == f"config file: {config}"
    assert f'fail-on = "warning"    ({config})' in out
    assert 'select = "loc-"    (command line)' in out
    assert "ignore = null    (default)" in out
    assert f'baseline = "{tmp_path.resolve() / "base.json"}"' in out
    assert f'map = ["https://example.com/={tmp_path.resolve() / "public"}/"]' in out
    assert "Authorization: from $SITEMAP_TOKEN (set)" in out
    assert "s3cret" not in out


@pytest.mark.parametrize(("content", "words"), [
    ("bogus = 1\n", ["bogus", "unknown key"]),
    ('fail-on = "sometimes"\n', ["fail-on", "sometimes"]),
    ('select = ["no-such-rule"]\n', ["select", "no-such-rule"]),
    ("ignore = 3\n", ["ignore", "list of strings"]),
    ('severity = {no-such-rule = "error"}\n', ["severity", "no-such-rule"]),
    ('severity = {lastmod-future = "fatal"}\n', ["severity", "fatal"]),
    ('map = ["example.com"]\n', ["map", "URL=DIR"]),
    ('map = ["https://example.com/=./nope/"]\n', ["map: ", "nope/' is not a directory"]),
    ("baseline = 1\n", ["baseline"]),
    ('headers = {Authorization = "Bearer abc"}\n', ["headers", "env:VARIABLE"]),
    ('headers = {"Bad Name" = "env:X"}\n', ["headers", "Bad Name"]),
    ("fail-on = \n", ["not valid TOML"]),
    # a traceback, exit 1, on every command run below it (found by a review)
    ("x = " + "[" * 5000 + "]" * 5000 + "\n", ["nested too deeply"]),
])
def test_bad_config_is_one_line_naming_the_file_and_key(tmp_path: Path, content: str, words: list[str]) -> None:
    (tmp_path / ".sitemap-tui.toml").write_text(content)
    (tmp_path / "sitemap.xml").write_text(sitemap(good("a")))
    proc = run(tmp_path, "validate", "sitemap.xml")
    one_error_line(proc, ".sitemap-tui.toml", *words)
    assert "abc" not in proc.stderr  # a literal secret is not echoed back


def test_config_headers_come_from_the_environment(httpserver, tmp_path: Path) -> None:
    (tmp_path / ".sitemap-tui.toml").write_text('headers = {Authorization = "env:SITEMAP_TOKEN"}\n')
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    httpserver.expect_request("/sitemap.xml", headers={"Authorization": "Bearer t0ken"}).respond_with_data(
        sitemap(good("a")), content_type="application/xml")
    url = httpserver.url_for("/sitemap.xml")
    proc = run(tmp_path, "validate", url, "--select", "lastmod-", env={"SITEMAP_TOKEN": "Bearer t0ken"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 file, 1 URL" in proc.stdout
    assert "sets the header Authorization of this run (--no-config: without it)" in proc.stderr, proc.stderr
    missing = {k: v for k, v in os.environ.items() if k != "SITEMAP_TOKEN"}
    proc = cli_process.run([sys.executable, "-m", "sitemap_tui", "validate", url], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path, env=missing)
    one_error_line(proc, ".sitemap-tui.toml", "headers", "SITEMAP_TOKEN")


@pytest.mark.parametrize("command", ["urls", "stats", "audit", "access"])
def test_every_fetching_command_takes_the_configs_headers_and_proxy(httpserver, tmp_path: Path, command: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Found from outside: only validate read the project config; audit, diff, access and urls
    went without its token and around its proxy, while the README said every fetching command.
    (In this process, from the folder: a CLI in a subprocess per run cost CI ~10 s.)"""
    import contextlib
    import io

    from sitemap_tui import cli

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SITEMAP_TOKEN", "Bearer t0ken")

    def run(_cwd: Path, *args: str, env: object = None) -> subprocess.CompletedProcess[str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main([*args, "--workers", "0"] if args[0] != "access" else list(args))
        return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())

    (tmp_path / ".sitemap-tui.toml").write_text('headers = {Authorization = "env:SITEMAP_TOKEN"}\n')
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    httpserver.expect_request("/sitemap.xml", headers={"Authorization": "Bearer t0ken"}).respond_with_data(
        sitemap(good("a")), content_type="application/xml")
    httpserver.expect_request("/a").respond_with_data("<html><head></head></html>", content_type="text/html")
    url = httpserver.url_for("/sitemap.xml")
    proc = run(tmp_path, command, url, "--no-history", env={"SITEMAP_TOKEN": "Bearer t0ken"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # said, never silent (found from outside: nothing told a file had chosen the token)
    assert (f"sitemap-tui: {tmp_path / '.sitemap-tui.toml'} sets the header Authorization of this run"
            " (--no-config: without it)") in proc.stderr, proc.stderr
    # the proxy too: one that cannot be reached stops the run, rather than going around it
    (tmp_path / ".sitemap-tui.toml").write_text('proxy = "http://127.0.0.1:9"\n')
    proc = run(tmp_path, command, url, "--no-history")
    assert proc.returncode == 2 and "cannot reach the proxy" in proc.stderr, proc.stderr
    proc = run(tmp_path, command, url, "--no-history", "--no-config")  # near miss: no file read
    assert "cannot reach the proxy" not in proc.stderr, proc.stderr


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="chown to another user needs root")
@pytest.mark.parametrize("command", ["validate", "urls"])
def test_a_config_file_another_user_owns_or_anyone_may_write_is_refused(httpserver, tmp_path: Path,
                                                                         command: str) -> None:
    """Found from outside: a job under /tmp found a .sitemap-tui.toml planted higher up by another
    user, and every request went through its proxy with the job's -H token, unsaid. Refused as
    git refuses a repository it does not own: exit 2, one line naming the file; near misses:
    the user's own file, and --no-config."""
    shared = tmp_path / "shared"
    job = shared / "job"
    job.mkdir(parents=True)
    config = shared / ".sitemap-tui.toml"
    config.write_text('proxy = "http://127.0.0.1:9"\n')
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    httpserver.expect_request("/s.xml").respond_with_data(sitemap(good("a")), content_type="application/xml")
    url = httpserver.url_for("/s.xml")
    nobody = 65534
    os.chown(config, nobody, -1)
    one_error_line(run(job, command, url, "--no-history"), str(config), f"owned by another user (uid {nobody})",
                   "--no-config")
    proc = run(job, command, url, "--no-history", "--no-config")
    assert proc.returncode in (0, 1) and "error:" not in proc.stderr, proc.stderr  # (a finding: 1)
    os.chown(config, os.getuid(), -1)
    config.chmod(0o666)
    one_error_line(run(job, command, url, "--no-history"), str(config), "writable by every user")
    config.chmod(0o644)
    config.write_text('select = ["lastmod-"]\n')
    assert run(job, command, url, "--no-history").returncode == 0


def test_commands_that_read_saved_explorations_only_need_no_fetching_keys(tmp_path: Path) -> None:
    """Found by a review: with a header whose variable a developer lacks, `diff a.db b.db` and
    `access a.db` (files only, nothing fetched) stopped with exit 2; a fetching command still does."""
    (tmp_path / "s.xml").write_text(sitemap(good("a")))
    for db in ("a.db", "b.db"):
        assert run(tmp_path, "urls", "s.xml", "--db", db, "--no-config").returncode == 0
    (tmp_path / ".sitemap-tui.toml").write_text('headers = {Authorization = "env:NO_SUCH_TOKEN_SET"}\n')
    env = {k: v for k, v in os.environ.items() if k != "NO_SUCH_TOKEN_SET"}
    for args in (("diff", "a.db", "b.db"), ("access", "a.db")):
        proc = cli_process.run([sys.executable, "-m", "sitemap_tui", *args], capture_output=True, text=True,
                              timeout=120, cwd=tmp_path, env=env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = cli_process.run([sys.executable, "-m", "sitemap_tui", "urls", "s.xml", "--no-history"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    one_error_line(proc, ".sitemap-tui.toml", "NO_SUCH_TOKEN_SET")  # near miss: it fetches


def test_config_baseline_is_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / ".sitemap-tui.toml").write_text('baseline = "ci/base.json"\n')
    (tmp_path / "ci").mkdir()
    (tmp_path / "sitemap.xml").write_text(sitemap(bad_lastmod("a")))
    wrote = run(tmp_path, "validate", "sitemap.xml", "--no-config", "--write-baseline", "ci/base.json")
    assert wrote.returncode == 1
    sub = tmp_path / "ci"
    proc = run(sub, "validate", "../sitemap.xml")
    assert proc.returncode == 0 and "1 known finding not reported, 0 new" in proc.stderr


def test_validate_without_target_is_a_usage_error(tmp_path: Path) -> None:
    one_error_line(run(tmp_path, "validate"), "TARGET")


def test_several_targets_one_result_options_refused(tmp_path: Path, many: Path) -> None:
    (tmp_path / "good.xml").write_text(sitemap(good("a")))
    assert run(tmp_path, "validate", "good.xml", "good.xml").returncode == 0
    assert run(tmp_path, "validate", "good.xml", "sitemap.xml").returncode == 1
    for option in ("--output", "--write-baseline"):
        one_error_line(run(tmp_path, "validate", "good.xml", "sitemap.xml", option, "out.json"), option, "2 TARGETs")
    # found from outside: two JSON (or SARIF) documents one after the other on stdout
    for fmt in ("json", "sarif"):
        one_error_line(run(tmp_path, "validate", "good.xml", "sitemap.xml", "--format", fmt), f"--format {fmt}", "2 TARGETs")
    assert run(tmp_path, "validate", "good.xml", "good.xml", "--format", "github").returncode == 0


def test_a_baseline_matches_in_a_checkout_elsewhere(tmp_path: Path) -> None:
    """Written on a laptop, read on a CI runner: local files are named relative to the working
    directory, in --write-baseline's JSON as in SARIF's %SRCROOT%."""
    laptop, runner = tmp_path / "laptop", tmp_path / "runner"
    for where in (laptop, runner):
        (where / "public").mkdir(parents=True)
        (where / "public" / "sitemap.xml").write_text(sitemap(bad_lastmod("a")))
    run(laptop, "validate", "public/sitemap.xml", "--write-baseline", "base.json")
    run(laptop, "validate", "public/sitemap.xml", "--format", "sarif", "--output", "base.sarif")
    # a --format json report, which names the file by its absolute URI on the laptop (found
    # from outside: every finding was "new" on the runner)
    run(laptop, "validate", "public/sitemap.xml", "--format", "json", "--output", "report.json")
    assert json.loads((laptop / "report.json").read_text())["issues"][0]["sitemap"].startswith("file:///")
    assert json.loads((laptop / "base.json").read_text())["issues"][0]["sitemap"] == "public/sitemap.xml"
    for name in ("base.json", "base.sarif", "report.json"):
        (runner / name).write_bytes((laptop / name).read_bytes())
        proc = run(runner, "validate", "public/sitemap.xml", "--baseline", name)
        assert proc.returncode == 0 and "0 new" in proc.stderr, (name, proc.stdout)


def test_config_map_validates_a_local_build_like_the_option(tmp_path: Path) -> None:
    import shutil

    build = tmp_path / "public"
    shutil.copytree(Path(__file__).parent / "fixtures" / "localbuild", build)
    by_option = run(build, "validate", "sitemap.xml", "--no-config", "--map", f"https://example.com/={build}/")
    assert "3 files, 6 URLs" in by_option.stdout, by_option.stderr
    (tmp_path / ".sitemap-tui.toml").write_text('map = ["https://example.com/=public/"]\n')
    by_config = run(build, "validate", "sitemap.xml")
    assert by_config.stdout == by_option.stdout and by_config.returncode == by_option.returncode
    assert "is read as https://example.com/sitemap.xml (--map)" in by_config.stderr


def test_a_folder_the_config_map_does_not_cover_is_read_as_its_own_site(tmp_path: Path) -> None:
    """Found from outside: with a project config mapping the site to ./pub, a staging build
    beside it (its robots.txt naming the same site) was read as plain files, unsaid, and its
    URL on another host passed."""
    for name in ("pub", "stg"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "robots.txt").write_text("Sitemap: https://site.example/sitemap.xml\n")
        (tmp_path / name / "sitemap.xml").write_text(sitemap(good("a"), "<url><loc>https://other.example/x</loc></url>")
                                                     .replace("https://example.com/", "https://site.example/"))
    (tmp_path / ".sitemap-tui.toml").write_text('map = ["https://site.example/=./pub/"]\n')
    proc = run(tmp_path, "validate", "pub", "stg")
    assert proc.returncode == 1 and proc.stdout.count("location-different-host") == 2, proc.stdout
    assert "stg is read as https://site.example/ (the site the robots.txt in stg names" in proc.stderr


def test_deep_only_options_without_deep_are_said(tmp_path: Path) -> None:
    """Found from outside: --sample and --rate without --deep were accepted without a word."""
    (tmp_path / "good.xml").write_text(sitemap(good("a")))
    proc = run(tmp_path, "validate", "good.xml", "--sample", "5", "--rate", "3")
    assert proc.returncode == 0
    said = "sitemap-tui: --sample, --rate and --ignore-robots apply to --deep only: not used"
    assert said in proc.stderr.splitlines()
    assert said in run(tmp_path, "validate", "good.xml", "--ignore-robots").stderr.splitlines()
    assert "apply to --deep only" not in run(tmp_path, "validate", "good.xml").stderr


def test_annotations_of_a_build_read_as_its_site_point_at_its_files(tmp_path: Path) -> None:
    """A folder whose robots.txt names its site (or --map) is judged under the site's URLs: its
    GitHub annotations had no file= and its SARIF locations were URLs, so nothing was attached
    to the files of the pull request."""
    public = tmp_path / "public"
    (public / "maps").mkdir(parents=True)
    (public / "robots.txt").write_text("User-agent: *\nDisallow:\nSitemap: https://example.com/index.xml\n")
    (public / "index.xml").write_text(
        '<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<sitemap><loc>https://example.com/maps/pages.xml</loc></sitemap>\n</sitemapindex>\n")
    (public / "maps" / "pages.xml").write_text(sitemap(good("a"), bad_priority("b")))
    proc = run(tmp_path, "validate", "public", "--format", "github", "--no-history")
    assert proc.returncode == 1, proc.stderr
    line = next(ln for ln in proc.stdout.splitlines() if "title=priority-invalid" in ln)
    assert line.startswith("::error file=public/maps/pages.xml,line=")
    proc = run(tmp_path, "validate", "public/index.xml", "--map", "https://example.com/=public/", "--format",
               "sarif", "--no-history")
    results = json.loads(proc.stdout)["runs"][0]["results"]
    where = {r["ruleId"]: r["locations"][0]["physicalLocation"]["artifactLocation"] for r in results}
    assert where["priority-invalid"] == {"uri": "public/maps/pages.xml", "uriBaseId": "%SRCROOT%"}
    assert where["index-lastmod-missing"] == {"uri": "public/index.xml", "uriBaseId": "%SRCROOT%"}


def test_a_finding_that_names_a_sample_url_is_matched_by_its_words(tmp_path: Path) -> None:
    """"URLs without <lastmod>: 1 of 2" names its first URL as a sample: one correct URL added
    at the top of the file changed the sample, and the known finding came back as new (and as
    absent in SARIF) on a harmless change."""
    path = tmp_path / "sitemap.xml"
    no_lastmod = "<url><loc>https://example.com/{}</loc><priority>0.5</priority></url>\n"
    path.write_text(sitemap(good("a"), no_lastmod.format("b")))
    run(tmp_path, "validate", "sitemap.xml", "--write-baseline", "base.json", "--fail-on", "never")
    rules = {i["rule"] for i in json.loads((tmp_path / "base.json").read_text())["issues"]}
    assert {"lastmod-missing", "priority-ignored"} <= rules
    path.write_text(sitemap(no_lastmod.format("new"), good("a"), no_lastmod.format("b")))
    again = run(tmp_path, "validate", "sitemap.xml", "--baseline", "base.json", "--fail-on", "info")
    assert again.returncode == 0, again.stdout
    assert ", 0 new" in again.stderr
    # its words still tell one sample finding from another: another host's URLs are another one
    from sitemap_tui.validate.baseline import Known, identity

    def host(name: str, count: int, url: str) -> Known:
        return Known("location-different-host", "warning", "https://example.com/sitemap.xml", 3, url,
                     f"{count} URL(s) on host {name!r}, not the sitemap's host 'example.com'")

    same = identity(host("cdn.example", 2, "https://cdn.example/a"), tmp_path)
    assert identity(host("cdn.example", 14, "https://cdn.example/z"), tmp_path) == same
    assert identity(host("img.example", 2, "https://img.example/a"), tmp_path) != same


def test_a_selection_says_files_are_fetched_in_full_only_when_something_was_kept(tmp_path: Path) -> None:
    """Found from outside: a local build's first run with --select said "every file is fetched in
    full: findings are carried over from an earlier exploration only ..." with nothing fetched
    and nothing kept. Near miss: after a kept run of the site, the selection is said."""
    public = tmp_path / "public"
    public.mkdir()
    (public / "robots.txt").write_text("Sitemap: https://example.com/sitemap.xml\n")
    (public / "sitemap.xml").write_text(sitemap(good("a")))
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    first = run(tmp_path, "validate", "public", "--select", "loc-", env=env)
    assert first.returncode == 0 and "fetched in full" not in first.stderr, first.stderr
    assert run(tmp_path, "validate", "public", env=env).returncode == 0  # every rule: kept, comparable
    again = run(tmp_path, "validate", "public", "--select", "loc-", env=env)
    assert "every file is fetched in full" in again.stderr, again.stderr


def test_github_annotations_name_files_from_the_runners_workspace(tmp_path: Path) -> None:
    """Found from outside: a job with `working-directory: site` annotated `public/sitemap.xml`,
    which the runner reads from the repository's root (site/public/sitemap.xml is the file)."""
    site = tmp_path / "site"
    (site / "public").mkdir(parents=True)
    (site / "public" / "sitemap.xml").write_text(sitemap(good("a"), bad_priority("b")))
    for env, want in (({"GITHUB_WORKSPACE": str(tmp_path)}, "site/public/sitemap.xml"),
                      ({}, "public/sitemap.xml")):  # (near miss: off a runner, from where it runs)
        proc = run(site, "validate", "public", "--format", "github", "--no-history", env=env)
        line = next(ln for ln in proc.stdout.splitlines() if "title=priority-invalid" in ln)
        assert line.startswith(f"::error file={want},line=4,"), line
    # a workspace named through a symlink (found from outside: ../ws-real/site/public/...)
    (tmp_path.parent / f"{tmp_path.name}-link").symlink_to(tmp_path)
    proc = run(site, "validate", "public", "--format", "github", "--no-history",
               env={"GITHUB_WORKSPACE": str(tmp_path.parent / f"{tmp_path.name}-link")})
    assert "::error file=site/public/sitemap.xml,line=4," in proc.stdout, proc.stdout
    # the other reports still name files from the working directory
    proc = run(site, "validate", "public", "--no-history", env={"GITHUB_WORKSPACE": str(tmp_path)})
    assert "\npublic/sitemap.xml:4: error priority-invalid" in "\n" + proc.stdout, proc.stdout


def test_sarif_names_every_location_as_a_file_of_the_repository(tmp_path: Path) -> None:
    """Found by a review: GitHub code scanning rejects a whole upload over one location with a
    web address ("SARIF URI scheme https did not match the checkout URI scheme file"), and reads
    a relative URI from the repository's root, ignoring %SRCROOT%. A child sitemap the build
    lacks was named https://example.com/sitemap-1.xml, and a job with `working-directory: site`
    named its files public/... for site/public/...."""
    site = tmp_path / "site"
    public = site / "public"
    public.mkdir(parents=True)
    (public / "robots.txt").write_text("User-agent: *\nDisallow:\nSitemap: https://example.com/index.xml\n")
    (public / "index.xml").write_text(
        '<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<sitemap><loc>https://example.com/sitemap-0.xml</loc></sitemap>\n"
        "<sitemap><loc>https://example.com/sitemap-1.xml</loc></sitemap>\n"
        # a path that leaves the build: no file of it stands for this one (a regression review)
        "<sitemap><loc>https://example.com/../../etc/x.xml</loc></sitemap>\n</sitemapindex>\n")
    (public / "sitemap-0.xml").write_text(sitemap(good("a"), bad_priority("b")))
    for env, prefix in (({"GITHUB_WORKSPACE": str(tmp_path)}, "site/"), ({}, "")):
        proc = run(site, "validate", "public", "--format", "sarif", "--no-history", env=env)
        assert proc.returncode == 1, proc.stderr
        results = json.loads(proc.stdout)["runs"][0]["results"]
        where = {(r["ruleId"], r.get("properties", {}).get("sitemap")):
                 r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
        assert where["fetch-http-error", "https://example.com/sitemap-1.xml"] == f"{prefix}public/sitemap-1.xml", where
        outside = [uri for (rule, url), uri in where.items() if url and "etc/x.xml" in url]
        assert outside and set(outside) == {f"{prefix}public"}, where
        assert [uri for (rule, _), uri in where.items() if rule == "priority-invalid"] == [
            f"{prefix}public/sitemap-0.xml"], where
        assert all("://" not in r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                   for r in results), where



def test_a_sarif_baseline_of_a_build_read_as_its_site_matches_wherever_the_folder_is(tmp_path: Path) -> None:
    """Found from outside: a SARIF baseline named the build's files by their path alone, so the
    same build renamed (dist for public) or named from another directory had every finding new;
    a JSON baseline, which names them by the site's URL, matched."""
    public = tmp_path / "public"
    public.mkdir()
    (public / "robots.txt").write_text("User-agent: *\nDisallow:\nSitemap: https://example.com/sitemap.xml\n")
    (public / "sitemap.xml").write_text(sitemap(bad_lastmod("a"), bad_priority("b")))
    run(tmp_path, "validate", "public", "--no-history", "--format", "sarif", "-o", "base.sarif")
    results = json.loads((tmp_path / "base.sarif").read_text())["runs"][0]["results"]
    on_file = [r for r in results if r["ruleId"] in ("lastmod-invalid-format", "priority-invalid")]
    assert len(on_file) == 2 and {r["properties"]["sitemap"] for r in on_file} == {"https://example.com/sitemap.xml"}
    known = f"{len(results)} known findings not reported, 0 new"
    (tmp_path / "public").rename(tmp_path / "dist")
    (tmp_path / "sub").mkdir()
    for cwd, target, base in ((tmp_path, "dist", "base.sarif"), (tmp_path / "sub", "../dist", "../base.sarif")):
        proc = run(cwd, "validate", target, "--no-history", "--baseline", base)
        assert proc.returncode == 0 and known in proc.stderr, (cwd, proc.stderr)
    # near miss: a local file that stands for no site keeps its path (and a finding there is new)
    (tmp_path / "dist" / "robots.txt").unlink()
    proc = run(tmp_path, "validate", "dist", "--no-history", "--baseline", "base.sarif")
    assert proc.returncode == 1 and ", 0 new" not in proc.stderr, proc.stderr


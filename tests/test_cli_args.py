"""Options go anywhere on the command line (issue 18): before or after TARGET, before or after the
command word, and with no command word at all (the implicit ``explore``). The explorer's arguments
are checked through a launch stub (the TUI never starts here); the headless commands run as a
user runs them, a real process against a real server on 127.0.0.1."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import cli_process
import pytest

from sitemap_tui import __version__, cli
from sitemap_tui.cli.parser import build_parser

SITE = "https://example.com/"


def explore(argv: list[str]) -> dict[str, Any]:
    """The arguments ``argv`` hands the explorer (the launch stub records them)."""
    calls: list[dict[str, Any]] = []

    def launch(**kwargs: Any) -> int:
        calls.append(kwargs)
        return 0

    assert cli.main(argv, launch=launch) == 0
    assert len(calls) == 1
    return calls[0]


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one-line error for ``argv`` (exit 2, the explorer not started)."""

    def launch(**kwargs: Any) -> int:
        raise AssertionError(f"the explorer started for {argv}: {kwargs}")

    try:
        code = cli.main(argv, launch=launch)
    except SystemExit as exc:
        code = exc.code
    assert code == 2, argv
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("sitemap-tui: error: "), err
    return lines[0]


# -- the implicit explore command: options before or after TARGET -----------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["--depth", "2", SITE],
        [SITE, "--depth", "2"],
        ["--depth=2", SITE],
        ["--dep", "2", SITE],  # argparse's unique prefixes keep working
        ["--depth", "2", "--max-files", "7", SITE, "--probe"],
        ["--probe", "--depth", "2", SITE, "--max-files=7"],
    ],
)
def test_explore_options_before_or_after_target(argv: list[str]) -> None:
    got = explore(argv)
    assert got["target"].raw == SITE
    assert got["options"].max_depth == 2
    if "--max-files" in argv or "--max-files=7" in argv:
        assert got["options"].max_files == 7
        assert got["options"].probe is True


@pytest.mark.parametrize("order", ["before", "after"])
def test_explore_db_before_or_after_target(order: str, tmp_path: Path) -> None:
    db = str(tmp_path / "x.db")
    argv = ["--db", db, SITE] if order == "before" else [SITE, "--db", db]
    got = explore(argv)
    assert got["target"].raw == SITE
    assert got["db_path"] == Path(db)


@pytest.mark.parametrize("argv", [[SITE], ["explore", SITE]])
def test_explore_re_explores_conditionally_unless_no_cache(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """The explorer asks against the site's latest exploration (issue 20 §3) unless --no-cache."""
    assert explore(argv)["options"].refetch is True
    assert explore([*argv, "--no-cache"])["options"].refetch is False
    assert cli.main(["explore", "--help"]) == 0
    assert "--no-cache" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [[SITE], ["explore", SITE]])
def test_explore_rate_paces_the_audit(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """The explorer's audit (u) had `audit`'s default pace and no way to change it: --rate, as
    `audit --rate`, before or after TARGET."""
    assert explore(argv)["options"].page_rate == 5.0
    assert explore([*argv, "--rate", "0"])["options"].page_rate == 0.0
    assert explore(["--rate", "20", *argv])["options"].page_rate == 20.0
    assert "0 (no limit) or more" in refused([*argv, "--rate", "-1"], capsys)


@pytest.mark.parametrize(
    "argv", [["-H", "X-Token: s3cret", SITE], ["-HX-Token: s3cret", SITE], ["--header=X-Token: s3cret", SITE],
             [SITE, "-H", "X-Token: s3cret"]],
)
def test_explore_header_value_is_not_the_target(argv: list[str]) -> None:
    got = explore(argv)
    assert got["target"].raw == SITE
    assert got["fetch_config"].headers == {"X-Token": "s3cret"}


def test_an_option_value_named_like_a_command_stays_a_value(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """`--db urls`: urls is the database's file name, not the urls command."""
    monkeypatch.chdir(tmp_path)
    got = explore(["--db", "urls", SITE])
    assert got["target"].raw == SITE
    assert got["db_path"] == Path("urls")


def test_a_target_named_like_a_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A first word that names a command is the command; the local file `urls` is reached as
    ./urls, `explore urls` or after `--` -- and the bare word says so instead of a puzzling
    "TARGET required"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "urls").write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>')
    for argv in (["./urls"], ["explore", "urls"], ["--", "urls"], ["--depth", "2", "--", "urls"],
                 ["explore", "--depth", "2", "urls"]):
        got = explore(argv)
        assert got["target"].kind == "file", argv
        assert Path(got["target"].raw).name == "urls", argv
    line = refused(["urls"], capsys)
    assert "./urls" in line and "explore urls" in line


def test_a_target_that_starts_with_a_dash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-odd.xml").write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>')
    for argv in (["--", "-odd.xml"], ["--depth", "3", "--", "-odd.xml"], ["explore", "--", "-odd.xml"]):
        got = explore(argv)
        assert Path(got["target"].raw).name == "-odd.xml", argv


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--bogus", SITE], "unrecognized arguments: --bogus"),
        ([SITE, "--bogus"], "unrecognized arguments: --bogus"),
        ([SITE, "--depth"], "--depth: expected one argument"),
        (["--depth"], "--depth: expected one argument"),
        (["--depth", "2"], "required: TARGET"),
        (["--depth", "x", SITE], "not a whole number"),
        (["--format", "csv", SITE], "--format is an option of access, audit, diff, urls and validate, not of explore"),
        ([SITE, "--json"], "--json is an option of"),
        ([SITE, "extra"], "unrecognized arguments: extra"),
    ],
)
def test_mistakes_are_one_line_and_exit_2(argv: list[str], says: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert says in refused(argv, capsys)


# -- global options ----------------------------------------------------------------------------


def test_version_and_help_stay_global(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--version"]) == 0  # (argparse's exit is the return code: its writes are checked)
    assert capsys.readouterr().out.strip() == f"sitemap-tui {__version__}"

    assert cli.main(["--help"]) == 0  # (argparse's exit is the return code: its writes are checked)
    top = capsys.readouterr().out
    assert "COMMAND" in top and "validate" in top
    assert "options go before or after TARGET" in top


@pytest.mark.parametrize(
    ("argv", "command"),
    [(["--depth", "2", "--help"], "explore"), ([SITE, "--help"], "explore"),
     (["--format", "csv", "urls", "--help"], "urls"), (["urls", "--help"], "urls"),
     (["-h", "validate"], "validate")],
)
def test_help_of_the_command_meant(argv: list[str], command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(argv) == 0  # (argparse's exit is the return code: its writes are checked)
    out = capsys.readouterr().out
    assert out.startswith(f"usage: sitemap-tui {command} ")
    assert "options go before or after TARGET" in out or command == "rules"


def test_every_option_takes_the_same_values_in_every_command() -> None:
    """The command word is found by skipping options and their values, across all commands: an
    option that took a value in one command and none in another would make that ambiguous."""
    from sitemap_tui.cli.arrange import value_options

    table = value_options(build_parser())
    assert table["--depth"] is True and table["-H"] is True and table["-o"] is True
    assert table["--json"] is False and table["--probe"] is False and table["-h"] is False


# -- the headless commands, against a real server ----------------------------------------------


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return cli_process.run([sys.executable, "-m", "sitemap_tui", *args], capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def site(httpserver) -> str:
    """An index listing one child with one URL, on 127.0.0.1."""
    base = httpserver.url_for("")
    ns = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    index = f"<sitemapindex {ns}><sitemap><loc>{base}child.xml</loc></sitemap></sitemapindex>"
    child = f"<urlset {ns}><url><loc>{base}page</loc><lastmod>2024-01-02</lastmod></url></urlset>"
    httpserver.expect_request("/index.xml").respond_with_data(index, content_type="application/xml")
    httpserver.expect_request("/child.xml").respond_with_data(child, content_type="application/xml")
    httpserver.expect_request("/robots.txt").respond_with_data(f"Sitemap: {base}index.xml\n",
                                                              content_type="text/plain")
    return base


@pytest.mark.parametrize(
    "order",
    [
        ("urls", "--format", "csv", "{T}"),
        ("urls", "{T}", "--format", "csv"),
        ("--format", "csv", "urls", "{T}"),
        ("--format=csv", "urls", "{T}", "--workers", "0"),
        ("--workers", "0", "urls", "--format", "csv", "{T}"),
    ],
)
def test_urls_format_anywhere(site: str, order: tuple[str, ...]) -> None:
    proc = run(*(a.replace("{T}", site + "index.xml") for a in order))
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert [r["loc"] for r in rows] == [site + "page"]


@pytest.mark.parametrize(
    "order",
    [("--depth", "0", "urls", "{T}"), ("urls", "--depth", "0", "{T}"), ("urls", "{T}", "--depth", "0")],
)
def test_urls_depth_applies_wherever_it_is(site: str, order: tuple[str, ...]) -> None:
    proc = run(*(a.replace("{T}", site + "index.xml") for a in order))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""  # the child is one level below the index
    assert "depth limit 0" in proc.stderr


def test_other_commands_take_options_before_the_command_word(site: str) -> None:
    stats = run("--json", "stats", site + "index.xml")
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)

    report = run("--format", "json", "--fail-on", "never", "validate", site + "child.xml")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["summary"]["urls"] == 1

    found = run("--json", "discover", site)
    assert found.returncode == 0, found.stderr
    assert site + "index.xml" in {s["url"] for s in json.loads(found.stdout)["sitemaps"]}

    rules = run("--json", "rules")
    assert rules.returncode == 0, rules.stderr
    assert json.loads(rules.stdout)


@pytest.mark.parametrize(
    ("order", "says"),
    [
        (("urls", "{T}", "--format"), "--format: expected one argument"),
        (("--bogus", "urls", "{T}"), "unrecognized arguments: --bogus"),
        (("urls", "--format", "pdf", "{T}"), "invalid choice: 'pdf'"),
        (("--json", "urls", "{T}"), "--json is an option of cache, discover, history, open, rules and stats, not of urls"),
        (("urls", "{T}", "--port", "1"), "--port is an option of demo, not of urls"),
        # what frames a request is the client's (found from outside: a server's answer read as broken)
        (("urls", "{T}", "-H", "Content-Length: 5"), "header 'Content-Length' is set by the HTTP client"),
        (("urls", "{T}", "-H", "host: example.com"), "the Host header is the URL's: --resolve HOST:IP"),
    ],
)
def test_headless_mistakes_are_one_line_and_exit_2(site: str, order: tuple[str, ...], says: str) -> None:
    proc = run(*(a.replace("{T}", site + "index.xml") for a in order))
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and says in lines[0], proc.stderr


def test_a_dash_is_stdout_for_output_and_no_target(site: str, tmp_path: Path) -> None:
    """Found from outside: `-o -` wrote a file named "-"; `urls -` looked up a host named "-"
    (three retries) before calling the site unreachable."""
    proc = cli_process.run([sys.executable, "-m", "sitemap_tui", "urls", site + "index.xml", "-o", "-",
                           "--no-history"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == site + "page\n" and not (tmp_path / "-").exists()
    proc = run("urls", "-")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "sitemap-tui: error: '-' (standard input) is not a target: save the sitemap to a file and give its path"]


@pytest.mark.parametrize(("typed", "want"), [
    ("example.com/sitemap.xml", "https://example.com/sitemap.xml"),  # was "no such file"
    ("localhost:8000/sitemap.xml", "https://localhost:8000/sitemap.xml"),
    ("127.0.0.1:8000/x.xml", "https://127.0.0.1:8000/x.xml"),
    ("www.example.com", "https://www.example.com/"),
    ("sitemap.xml", None),  # was a DNS lookup of the host sitemap.xml and "site unreachable"
    ("robots.txt", None),
    ("sitemap.xml.gz", None),
    ("public/sitemap.xml", None),
    ("public", r"^no such file or directory: public \(a site on the host 'public': https:"),  # (a DNS lookup)
    ("localhost", "https://localhost/"),
    ("./public/", None),
    ("~nosuchuser/sitemap.xml", None),  # (a traceback: no such user's home)
    ("http:/example.com/s.xml", "two slashes"),  # (a DNS lookup of the host "http")
    ("https:example.com/s.xml", "two slashes"),
    # found from outside: read as https://y/ with "mailto:x" as a Basic login, or "invalid port"
    ("mailto:webmaster@127.0.0.1:8881", "scheme 'mailto' is not http"),
    ("mailto:x@y", "scheme 'mailto' is not http"),
    ("javascript:alert(1)", "scheme 'javascript' is not http"),
    ("JavaScript:alert(1)@127.0.0.1:8881/a.xml", "scheme 'javascript' is not http"),
    ("tel:+441234", "scheme 'tel' is not http"),
    ("news:8080/x.xml", "https://news:8080/x.xml"),  # a host named like a scheme, with its port
    ("feed:8080", "https://feed:8080/"),
    # (a traceback: the store could not keep the URL; a local path's odd bytes are the file system's)
    ("http://127.0.0.1:8881/\udcff.xml", "bytes that are not UTF-8"),
    ("example.com/\udcff.xml", "bytes that are not UTF-8"),
])
def test_a_target_without_a_scheme_is_a_path_or_a_url_by_its_look(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   typed: str, want: str | None) -> None:
    from sitemap_tui.engine.discover import Target, TargetError

    monkeypatch.chdir(tmp_path)  # none of them is there
    if want is None or "://" not in want:
        with pytest.raises(TargetError, match=want or "no such file or directory"):
            Target.parse(typed)
    else:
        assert Target.parse(typed).url == want


def test_a_path_not_utf8_is_a_file_and_a_folder_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    """Found from outside: a folder that may not be listed, or one on the way to a file that
    may not be searched, was a PermissionError traceback (exit 1); now one line and exit 2.
    (Root reads every folder: the runs drop that capability.) A path whose name is no UTF-8
    stays a path."""
    import shutil

    from sitemap_tui.engine.discover import Target

    odd = tmp_path / os.fsdecode(b"\xff.xml")
    odd.write_text("https://example.com/a\n")
    assert Target.parse(str(odd)).kind == "file"
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("root reads every folder, and setpriv is not here to drop that")
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "sitemap.xml").write_text("https://example.com/a\n")
    locked.chmod(0)
    prefix = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner"] if os.geteuid() == 0 else []
    try:
        for target, says in ((locked, "cannot read the folder"), (locked / "sitemap.xml", "cannot read")):
            proc = subprocess.run([*prefix, sys.executable, "-m", "sitemap_tui", "urls", str(target), "--no-history"],
                                  capture_output=True, text=True, timeout=60)
            assert proc.returncode == 2, proc.stderr
            assert proc.stderr.splitlines() == [f"sitemap-tui: error: {says} {target}: Permission denied"]
    finally:
        locked.chmod(0o700)


@pytest.mark.parametrize("argv", [
    ["urls", SITE, "--cacert", ""],  # an unset $CA: the system's CAs trusted, unsaid
    ["urls", SITE, "--db", ""],  # no store kept, unsaid
    ["open", ""],  # ": is a folder"
    ["cache", "prune", "--keep", "", "--dry-run"],
    ["audit", SITE, "--compare-list", ""],
])
def test_an_empty_file_name_is_refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert "an empty file name" in refused(argv, capsys)

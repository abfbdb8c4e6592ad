"""The four report formats of ``sitemap-tui validate`` (sitemap_tui/validate/report.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from sitemap_tui import __version__
from sitemap_tui.engine.model import Issue, Severity
from sitemap_tui.engine.store import IssueRow
from sitemap_tui.validate.registry import RULES
from sitemap_tui.validate.report import (
    FORMATS,
    SARIF_SCHEMA,
    Summary,
    display_location,
    escape_data,
    escape_property,
    local_path,
    write_report,
)

SARIF_SCHEMA_FILE = Path(__file__).parent / "data" / "sarif" / "sarif-schema-2.1.0.json"


def row(
    rule: str,
    severity: str,
    *,
    line: int | None = None,
    col: int | None = None,
    url: str | None = None,
    message: str = "msg",
    sitemap: str | None = "https://example.com/sitemap.xml",
) -> IssueRow:
    return IssueRow(
        id=1,
        rule=rule,
        severity=severity,
        node_id=1,
        entry_id=None,
        line=line,
        col=col,
        url=url,
        message=message,
        sitemap=sitemap,
    )


@pytest.fixture()
def base(tmp_path: Path) -> Path:
    (tmp_path / "public").mkdir()
    return tmp_path


@pytest.fixture()
def issues(base: Path) -> list[IssueRow]:
    local = (base / "public" / "sitemap 1.xml").as_uri()
    return [
        row(
            "xsd-invalid",
            "error",
            line=12,
            url="https://example.com/a",
            message="schema validation: Element 'priority': The value '1.5' is greater than the maximum",
        ),
        row(
            "lastmod-future",
            "warning",
            line=3,
            col=7,
            url="https://example.com/b",
            message="lastmod in the future",
        ),
        row("urlset-empty", "info", message="no <url>", sitemap=local),
        row(
            "loc-not-absolute",
            "error",
            line=5,
            message="evil \x1b[31mred\u202e, 100% sure\nnext: line",
            sitemap=local,
        ),
        row("cross-duplicate-url", "warning", message="duplicate across files", sitemap=None),
    ]


def render(fmt: str, issues: list, base: Path, summary: Summary | None = None) -> str:
    out = io.StringIO()
    write_report(fmt, issues, summary or Summary.of(issues, files=2, urls=10), out, base_dir=base)
    return out.getvalue()


# -- summary -----------------------------------------------------------------------------------


def test_summary_counts_rows_and_issues() -> None:
    rows = [row("a", "error"), row("b", "error"), row("c", "warning"), row("d", "info")]
    assert Summary.of(rows, files=3, urls=7) == Summary(
        files=3, urls=7, errors=2, warnings=1, info=1
    )
    model = [Issue("x", Severity.WARNING, "m"), Issue("y", Severity.INFO, "m")]
    assert Summary.of(model) == Summary(errors=0, warnings=1, info=1)
    assert (
        Summary(files=1, urls=2, errors=1).line() == "1 file, 2 URLs: 1 error, 0 warnings, 0 info"
    )


def test_unknown_format(base: Path) -> None:
    with pytest.raises(ValueError):
        render("xml", [], base)
    assert FORMATS == ("text", "json", "sarif", "github")


# -- text --------------------------------------------------------------------------------------


def test_text(issues: list[IssueRow], base: Path) -> None:
    lines = render("text", issues, base).splitlines()
    # issue 14 §6: a finding about an entry names the entry's URL (it used not to)
    assert lines[0] == (
        "https://example.com/sitemap.xml:12: error xsd-invalid schema validation: "
        "Element 'priority': The value '1.5' is greater than the maximum <https://example.com/a>"
    )
    assert lines[1] == (
        "https://example.com/sitemap.xml:3: warning lastmod-future lastmod in the future"
        " <https://example.com/b>"
    )
    assert lines[2] == "public/sitemap 1.xml: info urlset-empty no <url>"  # no line: no ":LINE"
    # untrusted text is sanitised: no ESC, no bidi override, no raw newline
    assert (
        lines[3]
        == r"public/sitemap 1.xml:5: error loc-not-absolute evil \x1b[31mred\u202e, 100% sure\x0anext: line"
    )
    assert lines[4] == "-: warning cross-duplicate-url duplicate across files"
    assert lines[5] == "2 files, 10 URLs: 2 errors, 2 warnings, 1 info"
    assert len(lines) == 6


def test_text_accepts_model_issues(base: Path) -> None:
    issue = Issue(
        "xsd-invalid", Severity.ERROR, "m", line=4, column=2, sitemap="https://e.com/s.xml"
    )
    assert (
        render("text", [issue], base).splitlines()[0]
        == "https://e.com/s.xml:4: error xsd-invalid m"
    )


def test_local_paths(base: Path) -> None:
    inside = (base / "public" / "a b.xml").as_uri()
    assert local_path(inside) == base / "public" / "a b.xml"
    assert display_location(inside, base) == "public/a b.xml"
    outside = Path("/elsewhere/s.xml").as_uri()
    assert display_location(outside, base) == "/elsewhere/s.xml"
    assert local_path("https://example.com/s.xml") is None
    assert display_location(None, base) == "-"
    # a name with %XX in it is decoded once (found from outside: q%41.xml was shown as qA.xml)
    odd = (base / "public" / "q%41 %25.xml").as_uri()
    assert local_path(odd) == base / "public" / "q%41 %25.xml"
    assert display_location(odd, base) == "public/q%41 %25.xml"


# -- json --------------------------------------------------------------------------------------


def test_json(issues: list[IssueRow], base: Path) -> None:
    text = render("json", issues, base)
    assert text.isascii()
    doc = json.loads(text)
    assert set(doc) == {"issues", "summary"}
    assert doc["summary"] == {"files": 2, "urls": 10, "errors": 2, "warnings": 2, "info": 1, "notes": []}
    assert [set(i) for i in doc["issues"]] == [
        {"rule", "severity", "sitemap", "file", "line", "column", "url", "message"}
    ] * 5
    first, second, third, fourth, fifth = doc["issues"]
    assert first == {
        "rule": "xsd-invalid",
        "severity": "error",
        "sitemap": "https://example.com/sitemap.xml",
        "file": None,
        "line": 12,
        "column": None,
        "url": "https://example.com/a",
        "message": issues[0].message,
    }
    assert (second["line"], second["column"]) == (3, 7)
    assert third["line"] is None and third["sitemap"].startswith("file:")
    # the local file as text, GitHub and SARIF name it (found from outside: JSON had the URL alone)
    assert third["file"] == display_location(third["sitemap"], base) and not third["file"].startswith("file:")
    assert fourth["message"] == issues[3].message  # raw: JSON escapes it, nothing is lost
    assert fifth["sitemap"] is None


def test_json_empty(base: Path) -> None:
    doc = json.loads(render("json", [], base, Summary(files=1)))
    assert doc == {
        "issues": [],
        "summary": {"files": 1, "urls": 0, "errors": 0, "warnings": 0, "info": 0, "notes": []},
    }


# -- sarif -------------------------------------------------------------------------------------


def sarif(issues: list, base: Path) -> dict:
    return json.loads(render("sarif", issues, base))


def test_sarif_validates_against_the_official_schema(issues: list[IssueRow], base: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SARIF_SCHEMA_FILE.read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    for doc in (sarif(issues, base), sarif([], base)):
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    # and the schema does catch a broken document
    broken = sarif(issues, base)
    broken["runs"][0]["results"][0]["level"] = "fatal"
    assert list(validator.iter_errors(broken))


def test_sarif_content(issues: list[IssueRow], base: Path) -> None:
    doc = sarif(issues, base)
    assert doc["version"] == "2.1.0" and doc["$schema"] == SARIF_SCHEMA
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "sitemap-tui" and driver["version"] == __version__
    assert [r["id"] for r in driver["rules"]] == list(RULES)
    by_id = {r["id"]: r for r in driver["rules"]}
    xsd_rule = by_id["xsd-invalid"]
    assert xsd_rule["shortDescription"]["text"] == RULES["xsd-invalid"].title
    assert xsd_rule["fullDescription"]["text"] == RULES["xsd-invalid"].explanation
    assert xsd_rule["helpUri"] == "https://www.sitemaps.org/protocol.html"
    assert xsd_rule["defaultConfiguration"]["level"] == "error"
    assert by_id["urlset-empty"]["defaultConfiguration"]["level"] == "warning"
    assert by_id["ext-namespace-unknown"]["defaultConfiguration"]["level"] == "note"

    results = run["results"]
    assert [r["level"] for r in results] == ["error", "warning", "note", "error", "warning"]
    assert [r["ruleId"] for r in results] == [i.rule for i in issues]
    for r in results:
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
    remote = results[0]["locations"][0]["physicalLocation"]
    assert remote == {
        "artifactLocation": {"uri": "https://example.com/sitemap.xml"},
        "region": {"startLine": 12},
    }
    assert results[1]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 3,
        "startColumn": 7,
    }
    local = results[2]["locations"][0]["physicalLocation"]
    assert local == {
        "artifactLocation": {"uri": "public/sitemap%201.xml", "uriBaseId": "%SRCROOT%"}
    }
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == base.resolve().as_uri() + "/"
    assert results[3]["message"]["text"] == issues[3].message
    assert "locations" not in results[4]
    assert results[0]["properties"] == {"url": "https://example.com/a"}


def test_sarif_without_local_files_has_no_srcroot(base: Path) -> None:
    run = sarif([row("xsd-invalid", "error", line=1)], base)["runs"][0]
    assert "originalUriBaseIds" not in run


def test_sarif_local_file_outside_base_is_absolute(base: Path) -> None:
    outside = Path("/elsewhere/s.xml").as_uri()
    run = sarif([row("xsd-invalid", "error", line=1, sitemap=outside)], base)["runs"][0]
    assert run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": outside
    }


# -- github ------------------------------------------------------------------------------------


def test_github_escaping() -> None:
    assert escape_data("100% a\r\nb") == "100%25 a%0D%0Ab"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_github(issues: list[IssueRow], base: Path) -> None:
    lines = render("github", issues, base).splitlines()
    # issue 14 §6: the entry's URL, as in text
    assert lines[0] == (
        "::error title=xsd-invalid::https://example.com/sitemap.xml:12: schema validation: "
        "Element 'priority': The value '1.5' is greater than the maximum <https://example.com/a>"
    )
    assert lines[1] == (
        "::warning title=lastmod-future::https://example.com/sitemap.xml:3: lastmod in the future"
        " <https://example.com/b>"
    )
    assert lines[2] == "::notice file=public/sitemap 1.xml,title=urlset-empty::no <url>"
    assert lines[3] == (
        r"::error file=public/sitemap 1.xml,line=5,title=loc-not-absolute::"
        r"evil \x1b[31mred\u202e, 100%25 sure\x0anext: line"
    )
    assert lines[4] == "::warning title=cross-duplicate-url::duplicate across files"
    assert lines[5] == "2 files, 10 URLs: 2 errors, 2 warnings, 1 info"
    for line in lines[:5]:
        assert "\x1b" not in line and "\u202e" not in line


def test_github_file_properties_are_escaped(base: Path) -> None:
    odd = base / "a:b,c.xml"
    out = render("github", [row("xsd-invalid", "error", line=2, col=3, sitemap=odd.as_uri())], base)
    assert out.splitlines()[0] == "::error file=a%3Ab%2Cc.xml,line=2,col=3,title=xsd-invalid::msg"


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_reports_are_streamed(fmt: str, base: Path) -> None:
    """Each issue is written before the next one is read: a validate run with millions of issues
    never holds them, or a document of them, in memory."""
    out = io.StringIO()
    seen_before: list[bool] = []

    def issues():
        for i in range(3):
            if i:
                seen_before.append(f"https://example.com/{i - 1}" in out.getvalue())
            yield row("xsd-invalid", "error", line=i + 1, url=f"https://example.com/{i}")

    write_report(fmt, issues(), Summary(files=1, urls=3, errors=3, warnings=0, info=0), out, base_dir=base)
    assert seen_before == [True, True]
    doc = json.loads(out.getvalue())
    results = doc["issues"] if fmt == "json" else doc["runs"][0]["results"]
    assert len(results) == 3


# -- the entry's URL ---------------------------------------------------------------------------


def test_text_and_github_name_the_entry_url(base: Path) -> None:
    """A finding about an entry whose message does not show its URL gets it appended (in
    <...>, RFC 3986 appendix C): 10,000 robots-url-disallowed lines must not be identical."""
    found = [
        row("robots-url-disallowed", "warning", line=3, url="https://example.com/private/a",
            message="the URL is disallowed by robots.txt for Googlebot"),
        row("robots-url-disallowed", "warning", line=4, url="https://example.com/private/\x1bb",
            message="the URL is disallowed by robots.txt for Googlebot"),
        # already named in the message, or the sitemap itself: not repeated
        row("loc-not-absolute", "error", line=5, url="/x", message="'/x' is not an absolute URL"),
        row("fetch-redirected", "warning", url="https://example.com/sitemap.xml", message="redirects"),
    ]
    text = render("text", found, base).splitlines()
    assert text[0] == (
        "https://example.com/sitemap.xml:3: warning robots-url-disallowed the URL is disallowed"
        " by robots.txt for Googlebot <https://example.com/private/a>"
    )
    assert text[1].endswith(r"for Googlebot <https://example.com/private/\x1bb>")
    assert text[2].endswith("error loc-not-absolute '/x' is not an absolute URL")
    assert text[3].endswith("warning fetch-redirected redirects")
    github = render("github", found, base).splitlines()
    assert github[0] == (
        "::warning title=robots-url-disallowed::https://example.com/sitemap.xml:3: the URL is"
        " disallowed by robots.txt for Googlebot <https://example.com/private/a>"
    )
    assert github[2].endswith("'/x' is not an absolute URL")
    assert github[3].endswith("::https://example.com/sitemap.xml: redirects")


@pytest.mark.parametrize("fmt", FORMATS)
def test_validate_names_each_disallowed_url(fmt: str, httpserver, tmp_path: Path) -> None:
    """The symptom, end to end: `validate` over a site whose robots.txt disallows the listed
    URLs names each URL in every format."""
    from sitemap_tui import cli

    base = httpserver.url_for("/")
    httpserver.expect_request("/robots.txt").respond_with_data(
        f"User-agent: *\nDisallow: /private/\nSitemap: {base}sitemap.xml\n", content_type="text/plain"
    )
    locs = [f"{base}private/{i}" for i in range(3)]
    body = "".join(f"<url><loc>{u}</loc></url>\n" for u in locs)
    httpserver.expect_request("/sitemap.xml").respond_with_data(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{body}</urlset>\n',
        content_type="application/xml",
    )
    out = tmp_path / "report"
    args = ["validate", base, "--workers", "0", "--select", "robots-url-disallowed", "--format", fmt, "-o", str(out)]
    assert cli.main(args) != 2
    report = out.read_text(encoding="utf-8")
    if fmt in ("text", "github"):
        lines = [line for line in report.splitlines() if "robots-url-disallowed" in line]
        assert len(lines) == 3
        for loc, line in zip(locs, lines, strict=True):
            assert line.endswith(f"<{loc}>")
    elif fmt == "json":
        assert [i["url"] for i in json.loads(report)["issues"]] == locs
    else:
        results = json.loads(report)["runs"][0]["results"]
        assert [r["properties"]["url"] for r in results] == locs


def test_the_entry_url_is_named_unless_the_message_shows_it_whole() -> None:
    """A message naming https://example.com/robots.txt hid the entry https://example.com/ (a
    substring test): the line named no URL of its own."""
    from sitemap_tui.validate.report import named_url

    entry = "https://example.com/"
    longer = row("robots-cross-submit-ok", "info", url=entry,
                 message="URLs accepted: https://example.com/robots.txt names this sitemap")
    assert named_url(longer) == entry
    for message in (f"duplicate of {entry}", f"'{entry}' is listed twice", f"see <{entry}>", entry):
        assert named_url(row("r", "info", url=entry, message=message)) is None, message


def test_summaries_count_a_caps_summary_issue_as_the_findings_it_stands_for() -> None:
    """A rule over its cap lists some findings and one "N more ... not listed" issue (weight N):
    ``--summary``'s line for the rule and the severity counts say the whole number."""
    from sitemap_tui.validate.report import write_rule_summary

    rows = [IssueRow(i, "cross-duplicate-url", "info", 1, i, i, None, f"https://a.com/{i}", "m", "s.xml")
            for i in range(2)]
    rows.append(IssueRow(9, "cross-duplicate-url", "info", 1, None, None, None, None,
                         "40 more cross-duplicate-url issues not listed", "s.xml", weight=40))
    summary = Summary.of(rows)
    assert summary.info == 42
    out = io.StringIO()
    write_rule_summary(rows, summary, out, urls=2)
    assert out.getvalue().splitlines()[0] == (
        "info cross-duplicate-url: 42 findings: <https://a.com/0>, <https://a.com/1>, and 40 more")

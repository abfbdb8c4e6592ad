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


def test_a_baseline_counts_a_caps_summary_that_grew(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Found from outside: --write-baseline said "10,500 findings" and wrote 10,001 rows, and a
    run whose rule grew past its cap to 12,000 matched the summary row of 500 with its own of
    2,000: "0 new", exit 0. The summary's weight goes in the report and the baseline compares it."""
    import functools

    from sitemap_tui.validate import crossfile

    real = crossfile.run_crossfile
    monkeypatch.setattr(crossfile, "run_crossfile", functools.update_wrapper(
        lambda *a, **kw: real(*a, **{**kw, "cap": 1}), real))
    folder = tmp_path / "dup"
    folder.mkdir()

    def write(n: int, start: int = 0) -> None:
        rows = "".join(f"<url><loc>https://example.com/p{i}</loc><lastmod>2024-01-01</lastmod></url>\n"
                       for i in range(start, n))
        for name in ("a", "b"):
            (folder / f"{name}.xml").write_text(HEAD + rows + "</urlset>\n")

    def validate(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(["validate", str(folder), "--no-history", "--workers", "0", "--select", "cross-duplicate-url",
                     "--fail-on", "info", *args])
        out, err = capsys.readouterr()
        return code, out, err

    monkeypatch.chdir(tmp_path)
    write(3)  # 3 duplicates: 1 listed, 1 summary standing for 2
    code, _, err = validate("--write-baseline", "base.json", "-o", "/dev/null")
    assert "wrote a baseline of 3 findings" in err, err
    rows = json.loads((tmp_path / "base.json").read_text())["issues"]
    assert [r.get("weight", 1) for r in rows] == [2, 1] or [r.get("weight", 1) for r in rows] == [1, 2], rows
    code, out, err = validate("--baseline", "base.json", "--format", "json")
    assert code == 0 and "3 known findings not reported, 0 new" in err, err
    write(5)  # grown: the summary stands for 4
    code, out, err = validate("--baseline", "base.json", "--format", "json")
    assert code == 1 and "3 known findings not reported, 2 new" in err, err
    report = json.loads(out)
    assert report["summary"]["info"] == 2 and [i.get("weight") for i in report["issues"]] == [2], report
    code, out, err = validate("--baseline", "base.json", "--format", "sarif")
    states = [r["baselineState"] for r in json.loads(out)["runs"][0]["results"]]
    assert sorted(states) == ["new", "unchanged"], states
    # the first one fixed: the next is listed now, one the baseline's summary stood for, no new
    # one (found from outside: it read "1 new", exit 1)
    write(3, start=1)
    code, out, err = validate("--baseline", "base.json", "--format", "json")
    assert code == 0 and "2 known findings not reported, 0 new" in err, err

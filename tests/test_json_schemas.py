"""The JSON each command prints matches the schema documented under docs/schemas (no key left
undocumented: every object is closed), and docs/json.md names every key of every schema."""

from __future__ import annotations

import functools
import json
import re
import sys
from pathlib import Path
from typing import Any

import cli_process
import pytest
from jsonschema import Draft202012Validator

DOCS = Path(__file__).resolve().parents[1] / "docs"


@functools.cache  # (read and checked once: 436 records each checking the schema took 10 s)
def schema(name: str) -> Draft202012Validator:
    doc = json.loads((DOCS / "schemas" / f"{name}.schema.json").read_text())
    Draft202012Validator.check_schema(doc)
    return Draft202012Validator(doc)


def run(*args: str) -> str:
    proc = cli_process.run([sys.executable, "-m", "sitemap_tui", *args], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr
    return proc.stdout


def check(name: str, value: Any) -> None:
    errors = sorted(schema(name).iter_errors(value), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def test_stats_json(demo_url: str, tmp_path: Path) -> None:
    data = json.loads(run("stats", demo_url + "/", "--json"))
    check("stats", data)
    # the tree has every state the demo produces: done, failed, and stats with extensions
    states = set()

    def walk(n: dict[str, Any]) -> None:
        states.add(n["state"])
        for c in n["children"]:
            walk(c)

    walk(data["nodes"][0])
    assert {"done", "failed"} <= states
    (tmp_path / "a.xml").write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://e.com/</loc></url></urlset>')
    check("stats", json.loads(run("stats", str(tmp_path), "--json")))


def test_validate_json(demo_url: str) -> None:
    data = json.loads(run("validate", demo_url + "/", "--format", "json"))
    check("validate", data)
    assert data["issues"] and any(i["url"] for i in data["issues"]) and any(i["line"] for i in data["issues"])


@pytest.mark.parametrize("probe", [False, True])
def test_discover_json(demo_url: str, probe: bool) -> None:
    check("discover", json.loads(run("discover", demo_url, "--json", *(["--probe"] if probe else []))))


def test_urls_jsonl(demo_url: str) -> None:
    records = [json.loads(line) for line in run("urls", demo_url + "/", "--format", "jsonl").splitlines()]
    assert records
    for record in records:
        check("url-record", record)
    assert any(r["images"] for r in records) and any(r["videos"] for r in records) and any(r["news"] for r in records)
    assert any(r["sitemap_lastmod"] for r in records)


def test_diff_json(demo_url: str, tmp_path: Path) -> None:
    """The demo site saved, against itself explored now and against the saved one (every list
    with rows: tests/test_cli_diff.py checks its site's report against the schema too)."""
    old = tmp_path / "old.db"
    run("validate", demo_url + "/", "--db", str(old), "--fail-on", "never")
    data = json.loads(run("diff", str(old), demo_url + "/", "--format", "json"))
    check("diff", data)
    same = json.loads(run("diff", str(old), str(old), "--format", "json"))
    check("diff", same)
    assert set(same["summary"].values()) == {0}


def test_rules_json() -> None:
    check("rules", json.loads(run("rules", "--json")))


def _keys(node: Any) -> set[str]:
    out: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.get("properties", {}).items():
            out.add(key)
            out |= _keys(value)
        for part in ("items", "additionalProperties", "$defs"):
            value = node.get(part)
            if isinstance(value, dict):
                out |= _keys(value) if part != "$defs" else set().union(*(_keys(v) for v in value.values()))
        for part in ("oneOf", "anyOf"):
            for value in node.get(part, []):
                out |= _keys(value)
    return out


def test_json_md_documents_every_key() -> None:
    text = (DOCS / "json.md").read_text()
    documented = set(re.findall(r"`([a-z_@\[\]0-9]+)`", text))
    for path in sorted((DOCS / "schemas").glob("*.schema.json")):
        assert path.name in text, f"docs/json.md does not link {path.name}"
        missing = _keys(json.loads(path.read_text())) - documented
        assert not missing, f"{path.name}: keys not in docs/json.md: {sorted(missing)}"

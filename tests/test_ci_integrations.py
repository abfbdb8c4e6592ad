"""The pre-commit hook (.pre-commit-hooks.yaml) and the GitHub Action (action.yml) run what they
say: their commands, read from the files, run here on fixtures (issue 21 section 2)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GOOD = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<url><loc>https://example.com/a</loc><lastmod>2024-01-03</lastmod></url>\n</urlset>\n")
BAD = GOOD.replace("2024-01-03", "2024-13-03")


def _scalar(text: str) -> Any:
    """The YAML scalars these two files use: flow lists of strings (JSON), booleans, plain text."""
    text = text.strip()
    if text.startswith("["):
        return json.loads(text)
    if text in ("true", "false"):
        return text == "true"
    return text.strip('"')


def read_hooks(path: Path) -> list[dict[str, Any]]:
    """A list of flat mappings (`- id: x` then `  key: value`), as .pre-commit-hooks.yaml is;
    PyYAML is no dependency of the project, and this file's shape is fixed."""
    hooks: list[dict[str, Any]] = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("- "):
            hooks.append({})
            line = "  " + line[2:]
        key, _, value = line.strip().partition(": ")
        assert line.startswith("  ") and not line.startswith("   "), f"unexpected YAML shape: {line!r}"
        hooks[-1][key] = _scalar(value)
    return hooks


def step_runs(path: Path) -> dict[str, str]:
    """``name -> run`` of action.yml's steps: one-line run values, or literal blocks (``run: |``)."""
    runs: dict[str, str] = {}
    name = None
    block: list[str] | None = None
    for line in path.read_text().splitlines():
        if block is not None:
            if line.startswith(" " * 8) or not line.strip():
                block.append(line[8:])
                continue
            block = None
        m = re.match(r"\s+- name: (.+)", line)
        if m:
            name = m.group(1)
        m = re.match(r"\s+run: (.+)", line)
        if m and name is not None:
            if m.group(1) == "|":
                block = []
                runs[name] = block  # type: ignore[assignment]  # joined below
            else:
                runs[name] = m.group(1)
    return {k: v if isinstance(v, str) else "\n".join(v).strip() + "\n" for k, v in runs.items()}


def _program() -> list[str]:
    return [sys.executable, "-m", "sitemap_tui"]


def test_pre_commit_hook_runs_validate_on_the_matching_files(tmp_path: Path) -> None:
    (hook,) = read_hooks(ROOT / ".pre-commit-hooks.yaml")
    assert hook["id"] == "sitemap-tui-validate" and hook["pass_filenames"] is True
    pattern = re.compile(hook["files"])
    names = ["sitemap.xml", "public/sitemap-blog.xml.gz", "sitemap_index.xml", "feed.xml", "sitemap.txt"]
    assert [n for n in names if pattern.search(n)] == names[:3]
    entry = shlex.split(hook["entry"])
    assert entry[:2] == ["sitemap-tui", "validate"]
    (tmp_path / "sitemap.xml").write_text(GOOD)
    (tmp_path / "sitemap-bad.xml").write_text(BAD)

    def hook_run(*files: str) -> subprocess.CompletedProcess[str]:
        # as pre-commit runs it: entry, args, then the staged files that match
        command = _program() + entry[1:] + hook.get("args", []) + list(files)
        return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path)

    assert hook_run("sitemap.xml").returncode == 0
    bad = hook_run("sitemap-bad.xml")
    assert bad.returncode == 1 and "lastmod-invalid-format" in bad.stdout
    both = hook_run("sitemap.xml", "sitemap-bad.xml")  # pre-commit passes several files at once
    assert both.returncode == 1 and both.stdout.count("1 file, 1 URL") == 2


def test_action_installs_with_pip_and_runs_validate_with_format_github(tmp_path: Path) -> None:
    text = (ROOT / "action.yml").read_text()
    assert "using: composite" in text
    for name in ("target:", "version:", "args:"):
        assert f"\n  {name}" in text
    runs = step_runs(ROOT / "action.yml")
    assert "pip install" in runs["Install sitemap-tui"]
    run = runs["Validate"]
    assert 'shlex.split(os.environ["SITEMAP_TUI_ARGS"])' in run and '"validate", target, "--format", "github"' in run
    # the step itself, in bash as the runner does, with the installed console script on PATH
    (tmp_path / "sitemap.xml").write_text(BAD)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "SITEMAP_TUI_TARGET": "sitemap.xml", "SITEMAP_TUI_ARGS": "--no-history"}
    proc = subprocess.run(["bash", "-c", run], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert proc.returncode == 1
    assert any(line.startswith("::error file=sitemap.xml,line=3") for line in proc.stdout.splitlines())
    env["SITEMAP_TUI_ARGS"] = "--no-history --fail-on never"
    proc = subprocess.run(["bash", "-c", run], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert proc.returncode == 0
    # found from outside: ARGS was split on spaces, quotes kept, globs expanded; now as a shell
    # reads a command line, and nothing expanded
    env["SITEMAP_TUI_ARGS"] = "--no-history --write-baseline 'my base/b.json'"
    proc = subprocess.run(["bash", "-c", run], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert proc.returncode == 1 and (tmp_path / "my base" / "b.json").is_file(), proc.stderr
    (tmp_path / "--fail-on=never").write_text("")  # what an expanded * would have added
    env["SITEMAP_TUI_ARGS"] = "--no-history --baseline 'my base/b.json' --ignore \"priority-*\""
    proc = subprocess.run(["bash", "-c", run], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert proc.returncode == 0 and ", 0 new" in proc.stderr, proc.stderr
    env["SITEMAP_TUI_ARGS"] = "--no-history *"
    proc = subprocess.run(["bash", "-c", run], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert proc.returncode == 2 and "*" in proc.stderr, proc.stderr
    env["SITEMAP_TUI_ARGS"] = "--baseline 'unclosed"
    proc = subprocess.run(["bash", "-c", run], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert proc.returncode == 2 and proc.stderr.startswith("sitemap-tui: error: the action's args"), proc.stderr

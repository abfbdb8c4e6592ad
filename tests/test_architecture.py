"""The structure holds: the layers and the no-cycle rule of pyproject.toml's [tool.importlinter]
(engine -> validate -> session -> cli | tui -> main), and no module grows past one sitting's
read unless it is listed below with its reason."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 600

# module -> why it may be longer than MAX_LINES. An entry whose module shrank below the limit
# (or went away) fails the test, so that the list only ever holds what is still true.
LONG_MODULES: dict[str, str] = {}


def _lint_imports() -> list[str] | None:
    """How to run import-linter here: its own venv (.ci/run makes .venv-lint, as its dependency
    click would make httpx import rich in the project's venv), or one on PATH or importable."""
    own = ROOT / ".venv-lint" / "bin" / "lint-imports"
    if own.exists():
        return [str(own)]
    if importlib.util.find_spec("importlinter") is not None:
        return [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()"]
    found = shutil.which("lint-imports")
    return [found] if found else None


def _run_lint(cwd: Path) -> subprocess.CompletedProcess[str]:
    command = _lint_imports()
    if command is None:
        pytest.skip("import-linter is not installed: python3 -m venv .venv-lint && "
                    ".venv-lint/bin/pip install -c constraints.txt import-linter (as .ci/run does)")
    return subprocess.run([*command, "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_the_import_contracts_hold() -> None:
    proc = _run_lint(ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_an_import_that_runs_back_up_breaks_the_contracts(tmp_path: Path) -> None:
    """The contracts can fail: the engine importing the session layer is refused."""
    shutil.copytree(ROOT / "sitemap_tui", tmp_path / "sitemap_tui",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    model = tmp_path / "sitemap_tui" / "engine" / "model.py"
    model.write_text(model.read_text() + "\nfrom sitemap_tui.session import exits  # noqa\n")
    proc = _run_lint(tmp_path)
    assert proc.returncode != 0
    assert "sitemap_tui.engine.model -> sitemap_tui.session.exits" in proc.stdout


def _lines(path: Path) -> int:
    with path.open(encoding="utf-8") as fh:
        return sum(1 for _ in fh)


def test_no_module_is_longer_than_one_sitting() -> None:
    long = {str(p.relative_to(ROOT)): _lines(p) for p in sorted((ROOT / "sitemap_tui").rglob("*.py"))
            if _lines(p) > MAX_LINES}
    unlisted = {path: n for path, n in long.items() if path not in LONG_MODULES}
    assert not unlisted, f"modules over {MAX_LINES} lines: split them, or list them with a reason: {unlisted}"


def test_the_long_module_list_holds_only_what_is_true() -> None:
    for path, reason in LONG_MODULES.items():
        assert reason.strip(), f"{path}: no reason given"
        file = ROOT / path
        assert file.exists(), f"{path} is gone: remove it from LONG_MODULES"
        assert _lines(file) > MAX_LINES, f"{path} is {MAX_LINES} lines or fewer now: remove it from LONG_MODULES"


def test_the_architecture_page_names_every_module() -> None:
    """docs/architecture.md is where a newcomer finds which module has which job: a module it does
    not name is one nobody will find (the page fell ~60 modules behind before this test)."""
    page = (ROOT / "docs" / "architecture.md").read_text()
    named = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", page))
    unnamed = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "sitemap_tui").rglob("*.py")
        if path.name != "__init__.py" and path.stem not in named
    )
    assert not unnamed, f"docs/architecture.md does not name: {', '.join(unnamed)}"

"""All SQL on the store's tables lives in the store layer (sitemap_tui/engine/store/): the checks,
the engine and the front ends ask it through named queries. (The TUI has its own such test.)"""

from __future__ import annotations

import ast
from pathlib import Path

import sitemap_tui

PACKAGE = Path(sitemap_tui.__file__).parent
STORE_LAYER = PACKAGE / "engine" / "store"
TUI = PACKAGE / "tui"  # tests/tui/test_tui_structure.py
SQL_CALLS = frozenset({"execute", "executemany", "executescript"})


def sql_calls(path: Path, root: Path = PACKAGE.parent) -> list[str]:
    """``file:line`` (relative to ``root``) of each ``<something>.execute(...)`` (or
    executemany/executescript)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [
        f"{path.relative_to(root)}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in SQL_CALLS
    ]


def test_no_sql_outside_the_store_layer() -> None:
    found = [
        where
        for path in sorted(PACKAGE.rglob("*.py"))
        if not path.is_relative_to(STORE_LAYER) and not path.is_relative_to(TUI)
        for where in sql_calls(path)
    ]
    assert found == []


def test_the_scan_sees_a_query(tmp_path: Path) -> None:
    """The scan is not blind: a module running a statement is found."""
    module = tmp_path / "checks.py"
    module.write_text('def f(store):\n    return store.conn.execute("SELECT 1")\n', encoding="utf-8")
    assert sql_calls(module, tmp_path) == ["checks.py:2"]

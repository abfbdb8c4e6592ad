"""The TUI's structure (issue 17): no SQL under sitemap_tui/tui (the panes ask the store layer's
named queries, engine/store/urls.py and issues.py)."""

from __future__ import annotations

import re
from pathlib import Path

import sitemap_tui.tui

TUI = Path(sitemap_tui.tui.__file__).parent
SQL = re.compile(r"\b(SELECT|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+INDEX)\b|\.execute(many)?\(|sqlite_master")


def tui_modules() -> list[Path]:
    return sorted(TUI.rglob("*.py"))


def test_no_sql_in_the_tui() -> None:
    found = [
        f"{path.relative_to(TUI)}:{n}: {line.strip()}"
        for path in tui_modules()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if SQL.search(line)
    ]
    assert not found, "SQL outside the store layer:\n" + "\n".join(found)


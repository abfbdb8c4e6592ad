"""The TUI's structure (issue 17): no SQL under sitemap_tui/tui (the panes ask the store layer's
named queries, engine/store/urls.py and issues.py) and no module over 600 lines."""

from __future__ import annotations

import re
from pathlib import Path

import sitemap_tui.tui

TUI = Path(sitemap_tui.tui.__file__).parent
SQL = re.compile(r"\b(SELECT|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+INDEX)\b|\.execute(many)?\(|sqlite_master")
MAX_LINES = 600


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



def test_every_worker_has_a_description() -> None:
    """Textual names a ``@work`` worker without ``description=`` by the repr of its arguments,
    on every call: a pane's selection of 100,000 nodes took 0.8 s of the UI loop per refresh
    (found by a review: an expand-all over hostile indexes, `x` answered after 50 s)."""
    decorator = re.compile(r"@work\((?P<args>[^)]*)\)")
    bare = [
        f"{path.relative_to(TUI)}: {found.group(0)}"
        for path in tui_modules()
        for found in decorator.finditer(path.read_text(encoding="utf-8"))
        if "description=" not in found.group("args")
    ]
    assert not bare, "workers named by their arguments' repr:\n" + "\n".join(bare)


def test_tui_modules_stay_small() -> None:
    big = {str(p.relative_to(TUI)): n for p in tui_modules() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not big, f"modules over {MAX_LINES} lines (split them by job): {big}"


def test_the_app_and_the_screenshot_script_use_public_fields() -> None:
    """The screenshot script (and the tests' ``settle`` on it) and the app read the app's and
    the widgets' public surface (``is_settled()``, ``selected_id``, ``tree.reset()``...), not
    their private fields."""
    private = re.compile(r"\b(app|tree|table|grid|pane)\._[a-z]\w*")
    paths = [TUI.parent / "screenshots.py", *sorted(TUI.glob("app*.py"))]
    found = [
        f"{path.name}:{n}: {line.strip()}"
        for path in paths
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if private.search(line)
    ]
    assert not found, "private fields read from outside:\n" + "\n".join(found)

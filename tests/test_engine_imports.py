"""The engine and the headless commands never import Textual (fast start, no UI dependency)."""

from __future__ import annotations

import subprocess
import sys


def test_engine_imports_without_textual() -> None:
    code = (
        "import sys\n"
        "import sitemap_tui.engine.explorer, sitemap_tui.engine.store, sitemap_tui.engine.formats\n"
        "import sitemap_tui.cli.urls, sitemap_tui.cli.stats, sitemap_tui.cli.discover, sitemap_tui.cli.validate\n"
        "import sitemap_tui.cli.rules, sitemap_tui.cli.explorer, sitemap_tui.validate.checker\n"
        "bad = [m for m in sys.modules if m == 'textual' or m.startswith('textual.') or m == 'rich' or m.startswith('rich.')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_help_does_not_import_heavy_modules() -> None:
    code = (
        "import sys\n"
        "from sitemap_tui import cli\n"
        "try:\n    cli.main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('textual', 'httpx', 'lxml', 'sqlite3') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)

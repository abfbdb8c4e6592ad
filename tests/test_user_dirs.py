"""No test reads or writes the user's real config, cache or data: tests/conftest.py gives the
session its own HOME and XDG_* directories, which CLI subprocesses inherit."""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
import tempfile
from pathlib import Path

from platformdirs import user_cache_dir, user_config_dir, user_data_dir, user_state_dir

from sitemap_tui.commands import default_db_path
from sitemap_tui.engine.discover import Target
from sitemap_tui.engine.store import Store

# the home directory from the password database: what $HOME was before the session changed it
REAL_HOME = Path(pwd.getpwuid(os.getuid()).pw_dir)
REAL_DIRS = [
    REAL_HOME / ".cache" / "sitemap-tui",
    REAL_HOME / ".config" / "sitemap-tui",
    REAL_HOME / ".local" / "share" / "sitemap-tui",
    REAL_HOME / ".local" / "state" / "sitemap-tui",
]


def real_dirs_state() -> dict[Path, list[tuple[str, int]] | None]:
    """What is in the user's real sitemap-tui directories (None: absent), with mtimes."""
    return {
        d: sorted((str(p.relative_to(d)), p.stat().st_mtime_ns) for p in d.rglob("*")) if d.exists() else None
        for d in REAL_DIRS
    }


def under_temp(path: Path | str) -> bool:
    return Path(tempfile.gettempdir()).resolve() in Path(path).resolve().parents


def test_user_dirs_are_temporary() -> None:
    assert under_temp(Path.home())
    for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        assert under_temp(os.environ.get(name, REAL_HOME)), name
    for where in (user_config_dir, user_cache_dir, user_data_dir, user_state_dir):
        assert under_temp(where("sitemap-tui")), where.__name__
    assert "SITEMAP_TUI_CONFIG" not in os.environ  # a developer's own override is not used


def test_default_exploration_lands_in_the_temporary_cache() -> None:
    before = real_dirs_state()
    db = default_db_path(Target.parse("https://example.com/"))
    Store(db).close()  # created where the explorer would keep it
    assert under_temp(db) and db.is_file()
    assert Path(user_cache_dir("sitemap-tui")) in db.parents
    assert real_dirs_state() == before


def test_subprocesses_inherit_the_temporary_dirs() -> None:
    before = real_dirs_state()
    code = (
        "from sitemap_tui.commands import default_db_path\n"
        "from sitemap_tui.engine.discover import Target\n"
        "from sitemap_tui.tui.config import config_path\n"
        "print(default_db_path(Target.parse('https://example.com/')))\n"
        "print(config_path())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    db, config = out.stdout.splitlines()
    assert under_temp(db) and Path(db).parent.is_dir()
    assert under_temp(config)
    assert real_dirs_state() == before

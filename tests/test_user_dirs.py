"""No test reads or writes the user's real config, cache or data: tests/conftest.py gives the
session its own HOME and XDG_* directories, which CLI subprocesses inherit."""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

from platformdirs import user_cache_dir, user_config_dir, user_data_dir, user_state_dir

from sitemap_tui.engine.discover import Target
from sitemap_tui.engine.store import Store
from sitemap_tui.session.paths import default_db_path

# the home directory from the password database: what $HOME was before the session changed it
REAL_HOME = Path(pwd.getpwuid(os.getuid()).pw_dir)
REAL_DIRS = [
    REAL_HOME / ".cache" / "sitemap-tui",
    REAL_HOME / ".config" / "sitemap-tui",
    REAL_HOME / ".local" / "share" / "sitemap-tui",
    REAL_HOME / ".local" / "state" / "sitemap-tui",
]


def in_real_dirs(token: str) -> list[Path]:
    """Files in the user's real sitemap-tui directories whose name carries ``token``. (Other
    programs, the user's own sitemap-tui included, may write there while the tests run: only
    what this test names is looked for.)"""
    return [p for d in REAL_DIRS if d.exists() for p in d.rglob(f"*{token}*")]


def under_temp(path: Path | str) -> bool:
    return Path(tempfile.gettempdir()).resolve() in Path(path).resolve().parents


def unique_target() -> tuple[str, Target]:
    """A target whose exploration file name is this test's own (the file is named after the host)."""
    token = f"isolation-probe-{uuid.uuid4().hex[:12]}"
    return token, Target.parse(f"https://{token}.invalid/")


def test_user_dirs_are_temporary() -> None:
    assert under_temp(Path.home())
    for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        assert under_temp(os.environ.get(name, REAL_HOME)), name
    for where in (user_config_dir, user_cache_dir, user_data_dir, user_state_dir):
        assert under_temp(where("sitemap-tui")), where.__name__
    assert "SITEMAP_TUI_CONFIG" not in os.environ  # a developer's own override is not used


def test_default_exploration_lands_in_the_temporary_cache() -> None:
    token, target = unique_target()
    db = default_db_path(target)
    Store(db).close()  # created where the explorer would keep it
    assert token in db.name and db.is_file()
    assert under_temp(db) and Path(user_cache_dir("sitemap-tui")) in db.parents
    assert in_real_dirs(token) == []


def test_subprocesses_inherit_the_temporary_dirs() -> None:
    token, target = unique_target()
    code = (
        "import sys\n"
        "from sitemap_tui.session.paths import default_db_path\n"
        "from sitemap_tui.engine.discover import Target\n"
        "from sitemap_tui.engine.store import Store\n"
        "from sitemap_tui.tui.config import config_path\n"
        "db = default_db_path(Target.parse(sys.argv[1]))\n"
        "Store(db).close()\n"
        "print(db)\n"
        "print(config_path())\n"
    )
    out = subprocess.run([sys.executable, "-c", code, target.url], capture_output=True, text=True, check=True)
    db, config = out.stdout.splitlines()
    assert token in db and Path(db).is_file() and under_temp(db)
    assert under_temp(config)
    assert in_real_dirs(token) == []


def test_a_new_exploration_takes_a_name_no_run_of_the_same_second_has(monkeypatch) -> None:
    """Found from outside: the explorer started in the second a headless run of the same target
    ended opened that run's file and added its tree to it: every URL twice."""
    from datetime import UTC, datetime

    import sitemap_tui.session.paths as paths
    from sitemap_tui.engine.store.file import partial_path

    class Frozen(datetime):
        @classmethod
        def now(cls, tz=None):  # type: ignore[override]
            return datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)

    monkeypatch.setattr(paths, "datetime", Frozen)
    _, target = unique_target()
    first = default_db_path(target)
    Store(first).close()  # a headless run of that second, finished
    second = default_db_path(target)
    assert second != first and second.name.endswith("-20260102-030405-1.db")
    partial_path(second).touch()  # one still running
    assert default_db_path(target).name.endswith("-20260102-030405-2.db")

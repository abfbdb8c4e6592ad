"""What the explorer remembers between runs (not settings): the export dialog's last folder,
format and scope kind, in a small JSON file.

The file lives in ``platformdirs.user_state_dir("sitemap-tui")/state.json`` unless the
``SITEMAP_TUI_STATE`` environment variable names another path (tests use that). A missing or
broken file gives nothing remembered (the app says so only when it cannot write); it is written
atomically (a temporary file beside it, then rename), keeping the keys other parts wrote. No
Textual here, so it is unit-tested on its own.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sitemap_tui.tui.config import user_file

ENV_VAR = "SITEMAP_TUI_STATE"
EXPORT_KEY = "export"


def state_path() -> Path:
    return user_file(ENV_VAR, "state", "state.json")


@dataclass(frozen=True)
class ExportPrefs:
    """The export dialog's last choices: a folder (of a successful export), a format, a scope
    kind (``marked``, ``filter``, ``node``, ``subtree``, ``issue``, ``rule``)."""

    directory: str | None = None
    fmt: str | None = None
    scope: str | None = None


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError, RecursionError):  # missing or broken: nothing remembered
        return {}
    return data if isinstance(data, dict) else {}


def load_export_prefs(path: Path | None = None) -> ExportPrefs:
    raw = _read(path or state_path()).get(EXPORT_KEY)
    if not isinstance(raw, dict):
        return ExportPrefs()

    def text(key: str) -> str | None:
        value = raw.get(key)
        return value if isinstance(value, str) and value else None

    return ExportPrefs(directory=text("directory"), fmt=text("fmt"), scope=text("scope"))


def save_export_prefs(prefs: ExportPrefs, path: Path | None = None) -> str | None:
    """Write the prefs atomically; return a problem to show, never raise."""
    path = path or state_path()
    data = _read(path)
    data[EXPORT_KEY] = asdict(prefs)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".state-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=1)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as exc:
        return f"export choices not saved to {path}: {exc.strerror or exc}"
    return None

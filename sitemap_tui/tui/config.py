"""User settings of the explorer: a keymap and a theme, read from a TOML file.

The file lives in ``platformdirs.user_config_dir("sitemap-tui")/config.toml`` unless the
``SITEMAP_TUI_CONFIG`` environment variable names another path (tests use that)::

    theme = "nord"

    [keymap]
    expand_all = "E"        # binding id = key(s), comma separated
    tree_wider = "ctrl+right,>"

A missing file gives the defaults; a broken file gives the defaults plus a list of problems
that the app shows as a notification (never a crash).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ENV_VAR = "SITEMAP_TUI_CONFIG"


def config_path() -> Path:
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("sitemap-tui")) / "config.toml"


@dataclass
class TuiConfig:
    keymap: dict[str, str] = field(default_factory=dict)
    theme: str | None = None
    path: Path | None = None
    problems: list[str] = field(default_factory=list)


def load_config(path: Path | None = None) -> TuiConfig:
    path = path or config_path()
    cfg = TuiConfig(path=path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return cfg
    except OSError as exc:
        cfg.problems.append(f"cannot read {path}: {exc.strerror or exc}")
        return cfg
    try:
        data = tomllib.loads(raw.decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError as exc:
        cfg.problems.append(f"{path}: {exc}")
        return cfg
    theme = data.get("theme")
    if theme is not None:
        if isinstance(theme, str) and theme.strip():
            cfg.theme = theme.strip()
        else:
            cfg.problems.append("theme must be a string")
    keymap = data.get("keymap", {})
    if not isinstance(keymap, dict):
        cfg.problems.append("[keymap] must be a table of binding_id = \"key\"")
        keymap = {}
    for binding_id, keys in keymap.items():
        if isinstance(keys, list):
            keys = ",".join(str(k) for k in keys)
        if not isinstance(keys, str) or not keys.strip():
            cfg.problems.append(f"keymap.{binding_id}: expected a key string")
            continue
        cfg.keymap[str(binding_id)] = ",".join(k.strip() for k in keys.split(",") if k.strip())
    return cfg

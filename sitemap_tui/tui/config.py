"""User settings of the explorer: a keymap and a theme, read from a TOML file.

The file lives in ``platformdirs.user_config_dir("sitemap-tui")/config.toml`` unless the
``SITEMAP_TUI_CONFIG`` environment variable names another path (tests use that)::

    theme = "nord"

    [keymap]
    expand_all = "E"        # binding id = key(s), comma separated
    tree_wider = "ctrl+right,>"

A missing file gives the defaults; a broken file gives the defaults plus a list of problems
that the app shows as a notification (never a crash). The keymap is checked against the app's
bindings by :mod:`sitemap_tui.tui.keymap_check`; the theme the user picks is written back by
:func:`save_theme`. No Textual here, so all of it is unit-tested on its own.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ENV_VAR = "SITEMAP_TUI_CONFIG"


def user_file(env_var: str, kind: str, name: str) -> Path:
    """A file of the user's in the platform's ``kind`` directory ("config", "state"), or where
    ``env_var`` points (tests, and users who keep it elsewhere)."""
    override = os.environ.get(env_var)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(getattr(platformdirs, f"user_{kind}_dir")("sitemap-tui")) / name


def config_path() -> Path:
    return user_file(ENV_VAR, "config", "config.toml")


@dataclass
class TuiConfig:
    keymap: dict[str, str] = field(default_factory=dict)
    theme: str | None = None
    path: Path | None = None
    problems: list[str] = field(default_factory=list)
    broken: bool = False
    """The file could not be read or parsed: saving the theme must not overwrite it."""


def load_config(path: Path | None = None) -> TuiConfig:
    path = path or config_path()
    cfg = TuiConfig(path=path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return cfg
    except OSError as exc:
        cfg.problems.append(f"cannot read {path}: {exc.strerror or exc}")
        cfg.broken = True
        return cfg
    try:
        data = tomllib.loads(raw.decode("utf-8", "replace"))
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        cfg.problems.append(f"{path}: not valid TOML ({exc}); using the default keys and theme")
        cfg.broken = True
        return cfg
    for key in data:
        if key not in _KNOWN:  # (a misspelt table was ignored, its keys with it: found from outside)
            near = difflib.get_close_matches(str(key), _KNOWN, n=1, cutoff=0.6)
            hint = f"; did you mean {near[0]!r}?" if near else f" (it reads {', '.join(_KNOWN)})"
            cfg.problems.append(f"{path}: {key!r} is no setting of the explorer's{hint}")
    theme = data.get("theme")
    if theme is not None:
        if isinstance(theme, str) and theme.strip():
            cfg.theme = theme.strip()
        else:
            cfg.problems.append(f"{path}: theme must be a string")
    keymap = data.get("keymap", {})
    if not isinstance(keymap, dict):
        cfg.problems.append(f"{path}: [keymap] must be a table of binding_id = \"key\"")
        keymap = {}
    for binding_id, keys in _dotted(keymap):
        if isinstance(keys, list):
            keys = ",".join(str(k) for k in keys)
        if not isinstance(keys, str) or not keys.strip():
            cfg.problems.append(f"{path}: keymap.{binding_id}: expected a key string")
            continue
        cfg.keymap[str(binding_id)] = ",".join(k.strip() for k in keys.split(",") if k.strip())
    return cfg


def _dotted(table: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """The keymap's entries by binding id: an id with a dot written unquoted
    (``url_table.sort = "o"``) is, to TOML, a table ``url_table`` holding ``sort``; the user
    meant the id (found by a review: "keymap.url_table: expected a key string")."""
    out: list[tuple[str, Any]] = []
    for name, value in table.items():
        if isinstance(value, dict):
            out += _dotted(value, f"{prefix}{name}.")
        else:
            out.append((f"{prefix}{name}", value))
    return out


_KNOWN = ("theme", "keymap", "cache")  # (the [cache] table: session/recent.py's limits)


# a top-level ``theme = ...`` line; the first table header ends the top level
_THEME_LINE = re.compile(r"""^[ \t]*(?:theme|"theme"|'theme')[ \t]*=.*$""", re.MULTILINE)
_TABLE = re.compile(r"^[ \t]*\[", re.MULTILINE)


def with_theme(text: str, theme: str) -> str:
    """``text`` with its top-level theme set to ``theme``; comments and the rest kept as written."""
    line = f"theme = {json.dumps(theme)}"  # a JSON string is a valid TOML basic string
    table = _TABLE.search(text)
    top = text[: table.start()] if table else text
    found = _THEME_LINE.search(top)
    if found:
        return text[: found.start()] + line + text[found.end():]
    return line + "\n" + ("\n" if text.strip() else "") + text


def save_theme(path: Path, theme: str) -> str | None:
    """Write the theme into the config file atomically; return a problem to show, never raise."""
    try:
        try:
            text = path.read_text("utf-8")
        except FileNotFoundError:
            text = ""
        try:
            tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError):
            return f"theme {theme!r} not saved: {path} is not valid TOML (fix it, or remove it)"
        new = with_theme(text, theme)
        try:  # (a theme key spelled in a way the line's pattern misses would be written twice)
            saved = tomllib.loads(new).get("theme")
        except (tomllib.TOMLDecodeError, RecursionError):
            saved = None
        if saved != theme:
            return f"theme {theme!r} not saved: {path} sets its theme in a way this cannot rewrite (edit it by hand)"
        path.parent.mkdir(parents=True, exist_ok=True)
        # a temporary file beside it, then rename: a crash never leaves a half-written config
        fd, tmp = tempfile.mkstemp(prefix=".config-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(new)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as exc:
        return f"theme {theme!r} not saved to {path}: {exc.strerror or exc}"
    return None

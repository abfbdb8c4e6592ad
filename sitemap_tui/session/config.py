"""The project config of ``validate``: what CI runs repeat, kept beside the site's code.

Found upward from the working directory, the first of, in each folder: ``.sitemap-tui.toml`` (its
top level), then ``pyproject.toml`` with a ``[tool.sitemap-tui]`` table (a pyproject.toml without
one is passed over). The search stops at the first file found, at $HOME, or at the filesystem
root. Keys::

    select = ["loc-", "lastmod-"]          # rule ids or prefixes, as --select (or "a,b")
    ignore = ["priority-"]                 # as --ignore
    fail-on = "warning"                    # as --fail-on
    severity = {lastmod-future = "error"}  # per-rule severity overrides (no option)
    map = ["https://example.com/=./public/"]  # as --map; DIR relative to this file
    baseline = "sitemap-baseline.json"     # as --baseline; relative to this file
    headers = {Authorization = "env:SITEMAP_TOKEN"}  # values from the environment, never in the file
    proxy = "http://proxy.internal:3128"   # as --proxy; or "env:VARIABLE" (a URL with a password)

Command-line options win over the file. An unknown key or a bad value is a usage error naming
the file and the key. A file another user owns (root aside), or that others may write, is refused
as git refuses a repository it does not own: found upward from a job's folder under /tmp, a file
planted higher up sent the run's tokens through its proxy. Standard library only (tomllib)."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitemap_tui.engine.readfile import NotReadable, read_bounded
from sitemap_tui.engine.sanitize import display
from sitemap_tui.session.exits import UsageError

FILE_NAME = ".sitemap-tui.toml"
PYPROJECT = "pyproject.toml"
TABLE = "tool.sitemap-tui"
FAIL_LEVELS = ("error", "warning", "info", "never")
SEVERITIES = ("error", "warning", "info")
KEYS = ("select", "ignore", "fail-on", "severity", "map", "baseline", "headers", "proxy")
ENV_PREFIX = "env:"

# RFC 9110 field names are tokens (the same check as -H's)
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ConfigError(UsageError):
    """A config file that cannot be read or holds a bad key: exit 2, one line."""


@dataclass(frozen=True, slots=True)
class ProjectConfig:
    """The values of one config file, checked; ``path`` None: no file (none found, --no-config)."""

    path: Path | None = None
    values: Mapping[str, Any] = field(default_factory=dict)

    @property
    def where(self) -> str:
        if self.path is None:
            return ""
        return f"{self.path} [{TABLE}]" if self.path.name == PYPROJECT else str(self.path)


def find(start: Path, home: Path | None = None) -> tuple[Path, dict[str, Any]] | None:
    """The first config file from ``start`` upward and its table; the search ends at ``home``
    ($HOME) or the root. A file that is not valid TOML is an error (it was meant as config)."""
    home = home if home is not None else _home()
    folder = start.resolve()
    while True:
        own = folder / FILE_NAME
        if own.is_file():
            _trusted(own)
            return own, _read(own)
        pyproject = folder / PYPROJECT
        if pyproject.is_file():
            table: Any = _read(pyproject).get("tool", {})
            table = table.get("sitemap-tui") if isinstance(table, dict) else None
            if table is not None:
                if not isinstance(table, dict):
                    raise ConfigError(f"{display(str(pyproject))}: [{TABLE}] must be a table")
                _trusted(pyproject)
                return pyproject, table
        if folder == home or folder.parent == folder:
            return None
        folder = folder.parent


def _trusted(path: Path) -> None:
    """Refuse a config file that another user owns (root aside) or that others may write (module
    docstring): it would choose this run's headers, proxy and map."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # (no owners to compare: Windows)
        return
    st = path.stat()
    why = (f"owned by another user (uid {st.st_uid})" if st.st_uid not in (getuid(), 0)
           else "writable by every user" if st.st_mode & 0o002 else None)
    if why is not None:
        raise ConfigError(f"{display(str(path))}: {why}: not read, as it would choose this run's headers, proxy"
                          " and map (--no-config runs without it)")


def load(start: Path, home: Path | None = None) -> ProjectConfig:
    """The config found from ``start``, its values checked (:func:`check`)."""
    found = find(start, home)
    if found is None:
        return ProjectConfig()
    path, table = found
    return ProjectConfig(path, check(table, path))


def check(table: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """Each key's value in the form the options take; relative paths made absolute from the
    file's folder, so that a run from a subfolder reads the same files."""
    name = f"{path} [{TABLE}]" if path.name == PYPROJECT else str(path)

    def bad(key: str, why: str) -> ConfigError:
        return ConfigError(f"{display(name)}: {key}: {why}")

    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in KEYS:
            raise bad(key, f"unknown key (known: {', '.join(KEYS)})")
        if key in ("select", "ignore"):
            values[key] = _rules(value, lambda why, k=key: bad(k, why))
        elif key == "fail-on":
            if value not in FAIL_LEVELS:
                raise bad(key, f"expected one of {', '.join(FAIL_LEVELS)}, not {display(repr(value))}")
            values[key] = value
        elif key == "severity":
            values[key] = _severities(value, lambda why: bad("severity", why))
        elif key == "map":
            values[key] = _maps(value, path.parent, lambda why: bad("map", why))
        elif key == "baseline":
            if not isinstance(value, str) or not value:
                raise bad(key, "expected a file name (a string)")
            values[key] = str(path.parent / value)
        elif key == "proxy":
            values[key] = _proxy(value, lambda why: bad("proxy", why))
        else:
            values[key] = _headers(value, lambda why: bad("headers", why))
    return values


def check_maps(maps: Sequence[str], where: str = "") -> None:
    """The ``map`` key's folders, once a run reads them (not for --show-config: a build not made
    yet is still shown): an error names this file and the key, not "bad --map"."""
    from sitemap_tui.engine.localmap import parse_map

    for item in maps:
        try:
            parse_map(item)
        except ValueError as exc:  # ("bad --map 'URL=DIR': why")
            raise ConfigError(f"{display(where)}: map: {display(str(exc).split(': ', 1)[-1])}") from None


def resolve_proxy(ref: str, where: str = "", environ: Mapping[str, str] | None = None) -> str:
    """The proxy URL of the ``proxy`` key: as written, or read from the variable it names."""
    if not ref.startswith(ENV_PREFIX):
        return ref
    from sitemap_tui.engine.netpolicy import parse_proxy

    environ = os.environ if environ is None else environ
    variable = ref[len(ENV_PREFIX):]
    value = environ.get(variable)
    if value is None:
        raise ConfigError(f"{display(where)}: proxy = {ref!r}: the environment variable {variable} is not set")
    try:
        parse_proxy(value, f"${variable}")
    except ValueError as exc:  # parse_proxy never shows the password
        raise ConfigError(f"{display(where)}: proxy: {display(str(exc))}") from None
    return value.strip()


def resolve_headers(headers: Mapping[str, str], where: str = "",
                    environ: Mapping[str, str] | None = None) -> list[str]:
    """``Name: value`` for each header, its value read from the environment variable it names;
    a variable that is not set is a usage error (the run would go unauthenticated)."""
    environ = os.environ if environ is None else environ
    lines = []
    for header, ref in headers.items():
        variable = ref[len(ENV_PREFIX):]
        value = environ.get(variable)
        if value is None:
            raise ConfigError(f"{display(where)}: headers: {header} = {ref!r}: the environment variable "
                              f"{variable} is not set")
        if not re.fullmatch(r"[\t\x20-\x7e]*", value.strip()):
            # the value is a secret: named by its variable, never shown
            raise ConfigError(f"{display(where)}: headers: {header}: ${variable} holds characters a header cannot carry "
                              "(ASCII without control characters only)")
        lines.append(f"{header}: {value.strip()}")
    return lines


def _home() -> Path | None:
    try:
        return Path.home().resolve()
    except (OSError, RuntimeError):  # no HOME, no passwd entry: the root bounds the search
        return None


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(read_bounded(path, 1024 * 1024).decode("utf-8"))  # (a config is a few lines)
    except OSError as exc:
        raise ConfigError(f"{display(str(path))}: cannot be read ({exc.strerror})") from None
    except NotReadable as exc:
        raise ConfigError(f"{display(str(path))}: cannot be read ({exc})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{display(str(path))}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{display(str(path))}: not valid TOML ({exc})") from None
    except RecursionError:  # (x = [[[[... 5,000 deep: a traceback on every command, found by a review)
        raise ConfigError(f"{display(str(path))}: not a usable config (nested too deeply)") from None


def _strings(value: Any, bad: Any) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value if v.strip()]
    raise bad("expected a list of strings")


def _rules(value: Any, bad: Any) -> list[str]:
    from sitemap_tui.validate.registry import select_rules

    patterns = _strings(value, bad)
    if not patterns:
        # found from outside: `select = ""` (or []) ran every rule, unsaid, where --select '' is refused
        raise bad("names no rule (rule ids or prefixes; leave the key out to run every rule)")
    for pattern in patterns:
        try:
            select_rules([pattern])
        except (KeyError, ValueError) as exc:
            raise bad(f"{display(str(exc.args[0]))} (see `sitemap-tui rules`)") from None
    return patterns


def _severities(value: Any, bad: Any) -> dict[str, str]:
    from sitemap_tui.validate.registry import RULES

    if not isinstance(value, dict):
        raise bad("expected a table of rule = \"error\" | \"warning\" | \"info\"")
    for rule, severity in value.items():
        if rule not in RULES:
            raise bad(f"unknown rule {display(repr(rule))} (see `sitemap-tui rules`)")
        if severity not in SEVERITIES:
            raise bad(f"{rule}: expected one of {', '.join(SEVERITIES)}, not {display(repr(severity))}")
    return dict(value)


def _maps(value: Any, folder: Path, bad: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise bad('expected a list of "URL=DIR" strings')
    maps = []
    for item in value:
        url, sep, directory = item.partition("=")
        if not sep or not url.startswith(("http://", "https://")) or not directory:
            raise bad(f'{display(repr(item))}: expected "URL=DIR" (https://example.com/=./public/)')
        # DIR is relative to the file, as a run from a subfolder must read the same build
        local = (folder / directory).as_posix() + ("/" if directory.endswith("/") else "")
        maps.append(f"{url}={local}")
    return maps


def _proxy(value: Any, bad: Any) -> str:
    from sitemap_tui.engine.netpolicy import parse_proxy

    if not isinstance(value, str):
        raise bad('expected "http://HOST:PORT" or "env:VARIABLE"')
    if value.startswith(ENV_PREFIX):
        if not _ENV_NAME.fullmatch(value[len(ENV_PREFIX):]):
            raise bad(f"bad variable name {display(repr(value))}")
        return value
    try:
        url = parse_proxy(value, "URL")
    except ValueError as exc:
        raise bad(display(str(exc))) from None
    if url.password:  # a secret in a committed file leaks, as a header's would
        raise bad('a password does not belong in the file: "env:VARIABLE" reads the whole URL from the environment')
    return value


def _headers(value: Any, bad: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise bad('expected a table: {Authorization = "env:SITEMAP_TOKEN"}')
    for name, ref in value.items():
        if not _TOKEN.fullmatch(name):
            raise bad(f"bad header name {display(repr(name))}")
        if not isinstance(ref, str) or not ref.startswith(ENV_PREFIX) \
                or not _ENV_NAME.fullmatch(ref[len(ENV_PREFIX):]):
            # a secret in a committed file leaks: only a variable's name is accepted
            raise bad(f'{name}: expected "env:VARIABLE" (the value comes from the environment; '
                      "never put the secret itself in the file)")
    return dict(value)

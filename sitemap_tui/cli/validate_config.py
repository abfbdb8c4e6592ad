"""validate's options merged from the project config (session/config.py) and the command line:
an option given on the command line wins over the file's key; ``--show-config`` prints the
result, each value with where it came from. The other fetching commands take the file's
fetching keys (headers, proxy, map) alone: :func:`apply_fetch_keys`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitemap_tui.engine.sanitize import display
from sitemap_tui.session import config as project

COMMAND_LINE = "command line"
DEFAULT = "default"


@dataclass(frozen=True, slots=True)
class Merged:
    select: str | None
    ignore: str | None
    fail_on: str
    baseline: str | None
    severity: tuple[tuple[str, str], ...]
    map: tuple[str, ...]
    headers: tuple[str, ...]  # "Name: value", the config's read from the environment
    shown: tuple[str, ...]  # what --show-config prints
    proxy: str | None = None  # --proxy, else the config's (its "env:VARIABLE" read)
    root: str | None = None  # the project config's folder: baseline identities are relative to it


def _no_empty(ns: argparse.Namespace) -> None:
    """An empty value given is refused, as ``-o ''`` is (found from outside: ``--baseline ''``
    from an unset CI variable ran with no baseline, ``--select ''`` ran every rule, unsaid)."""
    from sitemap_tui.session.exits import UsageError

    if ns.baseline is not None and not ns.baseline:
        raise UsageError("--baseline: an empty file name")
    for flag, value in (("--select", ns.select), ("--ignore", ns.ignore)):
        if value is not None and not value.replace(",", "").strip():
            raise UsageError(f"{flag} {value!r}: names no rule (comma-separated rule ids or prefixes)")


def merge(ns: argparse.Namespace) -> Merged:
    _no_empty(ns)
    config = project.ProjectConfig() if ns.no_config else project.load(Path.cwd())
    values = config.values
    rows: list[tuple[str, Any, str]] = []

    def pick(key: str, cli: Any, default: Any) -> Any:
        if cli:
            rows.append((key, cli, COMMAND_LINE))
            return cli
        if key in values:
            rows.append((key, values[key], config.where))
            return values[key]
        rows.append((key, default, DEFAULT))
        return default

    select = pick("select", ns.select, None)
    ignore = pick("ignore", ns.ignore, None)
    fail_on = pick("fail-on", ns.fail_on, "error")
    severity = pick("severity", None, {})
    # --map is helper localmap's option: read it where the parser has it
    maps = pick("map", getattr(ns, "map", None), [])
    if maps and not getattr(ns, "map", None) and not ns.show_config:
        project.check_maps(maps, config.where)
    baseline = pick("baseline", ns.baseline, None)
    from_file = _file_headers(ns, values)
    rows.append(("headers", {**{h.partition(":")[0].strip(): "(-H)" for h in ns.header}, **from_file},
                 _headers_source(ns.header, from_file, config.where)))
    headers = tuple(ns.header)
    if from_file and not ns.show_config:  # --show-config shows names, needs no secret
        headers = tuple(project.resolve_headers(from_file, config.where)) + headers
    proxy = pick("proxy", ns.proxy, None)
    if proxy is not None and not ns.proxy and not ns.show_config:
        proxy = project.resolve_proxy(proxy, config.where)
    if not ns.show_config:
        say_applied(config.where, from_file, proxy is not None and not ns.proxy,
                    bool(maps) and not getattr(ns, "map", None))
    shown = _show(config, rows, from_file)
    return Merged(
        select=",".join(select) if isinstance(select, list) else select,
        ignore=",".join(ignore) if isinstance(ignore, list) else ignore,
        fail_on=fail_on, baseline=baseline, severity=tuple(sorted(severity.items())),
        map=tuple(maps), headers=headers, shown=shown, proxy=proxy,
        root=str(config.path.parent) if config.path else None)


def _file_headers(ns: argparse.Namespace, values: Mapping[str, Any]) -> dict[str, str]:
    """The file's headers (name -> "env:VARIABLE") but those a -H of the command line names:
    a header given there wins over the file's of the same name, whatever the case."""
    cli_names = {h.partition(":")[0].strip().lower() for h in ns.header}
    return {k: v for k, v in values.get("headers", {}).items() if k.lower() not in cli_names}


def _headers_source(cli: list[str], from_file: dict[str, str], where: str) -> str:
    sources = ([COMMAND_LINE] if cli else []) + ([where] if from_file else [])
    return " and ".join(sources) or DEFAULT


def _show(config: project.ProjectConfig, rows: list[tuple[str, Any, str]], from_file: dict[str, str]) -> tuple[str, ...]:
    import os

    lines = [f"config file: {display(config.where) if config.path else '(none)'}"]
    from sitemap_tui.engine.netpolicy import shown_proxy

    for key, value, source in rows:
        if key == "proxy" and isinstance(value, str):
            value = shown_proxy(value)  # (its password went to the screen: found by a review)
        lines.append(f"{key} = {display(json.dumps(value))}    ({display(source)})")
    for name, ref in from_file.items():
        variable = ref[len(project.ENV_PREFIX):]
        state = "set" if variable in os.environ else "NOT SET: a run exits 2"
        lines.append(f"  {display(name)}: from ${display(variable)} ({state})")
    proxy = config.values.get("proxy")
    if isinstance(proxy, str) and proxy.startswith(project.ENV_PREFIX) \
            and not any(key == "proxy" and source == COMMAND_LINE for key, _, source in rows):
        variable = proxy[len(project.ENV_PREFIX):]
        state = "set" if variable in os.environ else "NOT SET: a run exits 2"
        lines.append(f"  proxy: from ${display(variable)} ({state})")
    return tuple(lines)


def apply_fetch_keys(ns: argparse.Namespace) -> None:
    """The project config's ``headers``, ``proxy`` and ``map`` for a fetching command other than
    validate, as if given on the command line; what the command line gives wins (a -H of the same
    name, --proxy, --map)."""
    config = project.load(Path.cwd())
    values = config.values
    if not values:
        return
    from_file = _file_headers(ns, values)
    if from_file:
        ns.header = [*project.resolve_headers(from_file, config.where), *ns.header]
    proxy = getattr(ns, "proxy", None) is None and bool(values.get("proxy"))
    if proxy:
        ns.proxy = project.resolve_proxy(values["proxy"], config.where)
    maps = hasattr(ns, "map") and not ns.map and bool(values.get("map"))
    if maps:
        project.check_maps(values["map"], config.where)
        ns.map = list(values["map"])
    say_applied(config.where, from_file, proxy, maps)


def say_applied(where: str, headers: Mapping[str, str], proxy: bool, maps: bool) -> None:
    """Say on stderr what the project config chose for how this run fetches (headers, proxy,
    map): found from outside, a file found upward sent every request through its proxy with
    the run's tokens, and nothing said a file was read."""
    what = ([f"the headers {', '.join(sorted(headers))}" if len(headers) > 1 else f"the header {next(iter(headers))}"]
            if headers else []) + (["the proxy"] if proxy else []) + (["the map"] if maps else [])
    if what:
        chosen = ", ".join(what[:-1]) + (" and " if len(what) > 1 else "") + what[-1]
        print(f"sitemap-tui: {display(where)} sets {display(chosen)} of this run (--no-config: without it)",
              file=sys.stderr)

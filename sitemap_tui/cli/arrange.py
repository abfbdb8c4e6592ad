"""Options anywhere on the command line: the words a user typed, put in the order argparse reads.

argparse reads a command's options only after its command word, and the explorer's command word
is optional (`sitemap-tui example.com`). So `sitemap-tui --depth 2 example.com` and
`sitemap-tui --format csv urls example.com` would reach the top-level parser, which knows neither
option. Here the command word is found -- the first word that is neither an option nor an
option's value -- and moved to the front; without one, ``explore`` is put there.

How a word is resolved:
- the first such word that names a command is the command (`sitemap-tui urls` is the urls
  command, even beside a file called `urls`); a target named like a command is written
  `./urls`, `explore urls` or after `--`, and the bare word says so when it lacks its target;
- an option's value is never the command or the target (`--db urls example.com`);
- words after `--` are literal: targets, never commands or options (`-- -odd.xml`);
- ``--version`` is global (anywhere before `--`); ``--help`` alone is the program's help, and
  the help of the command meant otherwise (`--depth 2 --help`: explore's).
Anything wrong is left for argparse to reject, in its one-line error (parser.py)."""

from __future__ import annotations

import argparse
import os
import re

from sitemap_tui.session.exits import UsageError

# argparse reads these as positionals (the parser has no option that looks like a number)
_NEGATIVE_NUMBER = re.compile(r"-\d+$|-\d*\.\d+$")


class _Scan:
    """Where the words are: the positionals (by index) and the options' names.

    A plain class, not a dataclass: this runs before every command, ``--help`` included, and
    importing dataclasses (with inspect) cost ~5 ms of a 45 ms start."""

    __slots__ = ("literal_from", "options", "positionals")

    def __init__(self) -> None:
        self.positionals: list[int] = []
        self.options: list[str] = []
        self.literal_from: int | None = None  # the index after `--`: literal words from here


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser's commands by name (argparse keeps them on its subparsers action)."""
    for action in parser._actions:  # argparse has no public accessor; stable since Python 3.2
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def value_options(parser: argparse.ArgumentParser) -> dict[str, bool]:
    """Every option string of the program, top level and every command: whether it takes a value.
    The command word is found before the command is known, so an option must take a value in
    every command or in none (ValueError otherwise, which tests/test_cli_args.py guards)."""
    table: dict[str, bool] = {}
    for p in (parser, *commands(parser).values()):
        for string, action in p._option_string_actions.items():
            if action.nargs not in (None, 0, 1):  # the scan skips one value or none
                raise ValueError(f"{string}: only options of one value or none are supported")
            takes = action.nargs != 0
            if table.setdefault(string, takes) != takes:
                raise ValueError(f"{string} takes a value in one command and none in another")
    return table


def _takes_value(name: str, table: dict[str, bool]) -> bool:
    if name in table:
        return table[name]
    # argparse accepts a unique prefix of a long option (--dep for --depth)
    kinds = {takes for string, takes in table.items() if string.startswith(name)}
    return kinds == {True}


def _scan(argv: list[str], table: dict[str, bool]) -> _Scan:
    scan = _Scan()
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            scan.literal_from = i + 1
            scan.positionals.extend(range(i + 1, len(argv)))
            break
        if word.startswith("--"):
            name, eq, _ = word.partition("=")
            scan.options.append(name)
            if not eq and _takes_value(name, table):
                i += 1  # its value
        elif word.startswith("-") and len(word) > 1 and not _NEGATIVE_NUMBER.match(word):
            # -H VALUE, -HVALUE, or short flags together (-hX...): a value ends the cluster
            for j, char in enumerate(word[1:], start=2):
                scan.options.append(f"-{char}")
                if table.get(f"-{char}"):
                    if j == len(word):
                        i += 1  # its value is the next word
                    break
        else:
            scan.positionals.append(i)
        i += 1
    return scan


_GLOBAL = frozenset({"-h", "--help", "--version"})


def arrange(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """``argv`` with its command word first (``explore`` when it names none), the rest in the
    order typed. UsageError for a command word that lacks its argument when a local path has its
    name (the user most likely meant that path)."""
    table = value_options(parser)
    scan = _scan(argv, table)
    if "--version" in scan.options:
        return ["--version"]
    named = commands(parser)
    first = scan.positionals[0] if scan.positionals else None
    if first is not None and argv[first] in named and (scan.literal_from is None or first < scan.literal_from):
        word = argv[first]
        _check_shadowed(word, named[word], scan)
        _check_options(word, named, scan)
        if _has_optional_positional(named[word]):
            # argparse fills an optional positional (diff's NEW) with nothing as soon as the one
            # before it is read, so `diff OLD --samples 2 NEW` would leave NEW over: the
            # positionals go first, in their order (the literal ones after `--` stay there)
            moved = [i for i in scan.positionals if i != first and (scan.literal_from is None or i < scan.literal_from)]
            rest = [w for i, w in enumerate(argv) if i != first and i not in moved]
            return [word, *(argv[i] for i in moved), *rest]
        return [word, *argv[:first], *argv[first + 1:]]
    if first is None and set(scan.options) <= _GLOBAL:
        return argv  # `sitemap-tui --help`, or nothing: the program's own help
    _check_options("explore", named, scan)
    return ["explore", *argv]


def _has_optional_positional(command: argparse.ArgumentParser) -> bool:
    return any(not a.option_strings and a.nargs == "?" for a in command._actions)


def _known(name: str, command: argparse.ArgumentParser) -> bool:
    strings = command._option_string_actions
    return name in strings or (name.startswith("--") and any(s.startswith(name) for s in strings))


def _check_options(word: str, named: dict[str, argparse.ArgumentParser], scan: _Scan) -> None:
    """An option of another command (`--format` without `urls`): say whose it is. argparse alone
    would take its value for the target and report the target as unrecognized."""
    for name in scan.options:
        if _known(name, named[word]):
            continue
        owners = sorted(other for other, command in named.items() if name in command._option_string_actions)
        if owners:
            listed = " and ".join([", ".join(owners[:-1]), owners[-1]] if len(owners) > 1 else owners)
            raise UsageError(f"{name} is an option of {listed}, not of {word} "
                             f"(see `sitemap-tui {word} --help`)")


def _check_shadowed(word: str, command: argparse.ArgumentParser, scan: _Scan) -> None:
    """`sitemap-tui urls` beside a file `urls`: say how to reach the file instead of argparse's
    bare "TARGET is required"."""
    required = [a for a in command._actions if not a.option_strings and a.nargs is None]
    if not required or len(scan.positionals) > 1 or {"-h", "--help"} & set(scan.options):
        return
    if not os.path.exists(word):
        return
    what = required[0].metavar or required[0].dest
    raise UsageError(
        f"'{word}' is the {word} command, which needs {what}; to explore the local path '{word}', "
        f"write `sitemap-tui ./{word}` or `sitemap-tui explore {word}`"
    )

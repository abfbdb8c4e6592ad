"""``--fail-if`` conditions: when a headless run's counts make it exit 1 (diff; audit later).

Grammar, one condition per option (repeatable; any condition met fails the run)::

    condition := NAME | NAME OP WHOLE-NUMBER
    OP        := '>' | '>=' | '<' | '<=' | '==' | '=' | '!='

A bare NAME means ``NAME > 0``. NAME is a key of the command's summary (``urls_removed``) or one
of its short names (``removed``); spaces around OP are allowed (quote the condition in a shell).
Anything else is a usage error in one line."""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from sitemap_tui.session.exits import UsageError

_OPS: dict[str, Callable[[int, int], bool]] = {
    ">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le,
    "==": operator.eq, "=": operator.eq, "!=": operator.ne,
}
_CONDITION = re.compile(r"\s*([a-z_][a-z0-9_]*)\s*(?:(>=|<=|==|!=|>|<|=)\s*([0-9]+))?\s*")


@dataclass(frozen=True, slots=True)
class Condition:
    text: str  # as the user wrote it, for the message that says it was met
    name: str  # the summary key
    op: str
    value: int

    def met(self, counts: Mapping[str, int]) -> bool:
        return _OPS[self.op](counts[self.name], self.value)

    def describe(self, counts: Mapping[str, int]) -> str:
        return f"--fail-if {self.text!r} is met ({self.name} = {counts[self.name]})"


def parse(text: str, names: Collection[str], aliases: Mapping[str, str] | None = None, *,
          example: str = "removed") -> Condition:
    """One condition over ``names`` (the summary's keys), ``aliases`` mapping short names to them;
    ``example``: the name the error's examples use (the command's own)."""
    aliases = aliases or {}
    m = _CONDITION.fullmatch(text)
    if m is None:
        # (the command's own names: diff's were given to audit too)
        raise UsageError(f"--fail-if {text!r}: expected NAME or NAME OP NUMBER ({example}, '{example}>100', "
                         f"'{example}>=1'), OP one of > >= < <= == !=")
    name, op, value = m.group(1), m.group(2) or ">", int(m.group(3) or 0)
    key = aliases.get(name, name)
    if key not in names:
        known = ", ".join([*aliases, *names])
        raise UsageError(f"--fail-if {text!r}: unknown name {name!r} (known: {known})")
    return Condition(text.strip(), key, op, value)


def parse_all(texts: Collection[str], names: Collection[str], aliases: Mapping[str, str] | None = None, *,
              example: str = "removed") -> list[Condition]:
    return [parse(text, names, aliases, example=example) for text in texts]


def met(conditions: Collection[Condition], counts: Mapping[str, int]) -> list[Condition]:
    """The conditions ``counts`` meet."""
    return [c for c in conditions if c.met(counts)]

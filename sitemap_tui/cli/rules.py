"""``sitemap-tui rules``: the validation rules, listed or explained one at a time."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Any

from sitemap_tui.output import write_json
from sitemap_tui.session.exits import EXIT_OK, UsageError
from sitemap_tui.words import plural


@dataclass(frozen=True, slots=True)
class RulesOptions:
    rule: str | None = None
    json: bool = False


def options(ns: argparse.Namespace) -> RulesOptions:
    return RulesOptions(ns.rule, ns.json)


def cmd_rules(opts: RulesOptions) -> int:
    from sitemap_tui.validate.registry import RULES

    if opts.rule:
        rule = RULES.get(opts.rule)
        if rule is None:
            close = [r for r in RULES if opts.rule in r]
            hint = f" (did you mean {', '.join(close[:5])}?)" if close else ""
            raise UsageError(f"unknown rule {opts.rule!r}{hint}")
        if opts.json:
            write_json(sys.stdout, _rule_json(rule), indent=2)
            sys.stdout.write("\n")
        else:
            print(f"{rule.id}  ({rule.scope}, {rule.severity.value}{', deep check' if rule.deep else ''})")
            print(f"\n{rule.title}\n\n{rule.explanation}\n\nSource: {rule.source}")
        return EXIT_OK
    if opts.json:
        write_json(sys.stdout, [_rule_json(r) for r in RULES.values()], indent=2)
        sys.stdout.write("\n")
        return EXIT_OK
    width = max(len(r) for r in RULES)
    for rule in RULES.values():
        print(f"{rule.id:<{width}}  {rule.severity.value:<7}  {rule.scope:<10}  {rule.title}")
    print(f"\n{plural(len(RULES), 'rule')}. `sitemap-tui rules ID` explains one.")
    return EXIT_OK


def _rule_json(rule: Any) -> dict[str, Any]:
    return {
        "id": rule.id, "scope": rule.scope, "severity": rule.severity.value, "title": rule.title,
        "explanation": rule.explanation, "source": rule.source, "deep": rule.deep,
    }

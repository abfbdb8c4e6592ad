"""``rule:RULE``: the entries a rule's findings name, and the entries a file's counting finding
counted (``lastmod-missing`` says "URLs without <lastmod>: 5 of 7" once per file, on no entry).

Found from outside: Enter on such a rule in the Issues pane only opened it, and its export said
"0 URLs: the rule is reported on sitemap files", while Enter on its one finding listed the 5. The
counted entries are the file's own that the rule's tally counts (validate/checker.py: an entry
with a URL, and the value absent or present)."""

from __future__ import annotations

from typing import Any

from sitemap_tui.engine.stats import HREFLANG_KEPT
from sitemap_tui.engine.store.diff_view import REMOVED_SOURCE

COUNTED: dict[str, str] = {
    "lastmod-missing": "e.lastmod_raw IS NULL",
    "changefreq-ignored": "e.changefreq_raw IS NOT NULL",
    "priority-ignored": "e.priority_raw IS NOT NULL",
}
"""The counting rules, each with the condition on ``entries e`` of what it counts."""


def rule_condition(rule: str) -> tuple[str, list[Any]]:
    """The SQL condition on ``entries e`` of ``rule:RULE``, and its parameters."""
    named = "e.id IN (SELECT entry_id FROM issues WHERE rule = ?)"
    counted = COUNTED.get(rule)
    if counted is None:
        return named, [rule]
    # (e.id > 0: a NEW entry; compare mode's removed rows are OLD's, filed under NEW's files,
    # which NEW's findings did not count: found by a review, diff:removed listed them)
    return (f"({named} OR (e.id > 0 AND e.loc IS NOT NULL AND {counted} AND e.node_id IN"
            " (SELECT node_id FROM issues WHERE rule = ? AND entry_id IS NULL)))"), [rule, rule]


def hreflang_condition(removed: bool = False) -> str:
    """SQL over ``entries e`` for ``lang:CODE`` (one parameter, stats.hreflang_key's form): an
    alternate in that language (lower() is SQLite's ASCII one: the codes are ASCII). Compare
    mode's ``removed`` rows keep OLD's links beside them, under their own ids."""
    links = f"{REMOVED_SOURCE}_alternates" if removed else "alternates"
    key = f"substr(lower(trim(a.hreflang, ' ' || char(9, 10, 13))), 1, {HREFLANG_KEPT})"
    return f"EXISTS (SELECT 1 FROM {links} a WHERE a.entry_id = e.id AND {key} = ?)"

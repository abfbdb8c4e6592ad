"""The rule registry: every validation rule once, collected from the rule families
(``validate/rules/<family>.py``), with the one place that grades, words and selects.

The TUI, the headless output (text, JSON, SARIF ...) and ``sitemap-tui rules`` all read rule
metadata from :data:`RULES`. The engine's findings become issues through :class:`RegistryJudge`,
the validation stages build theirs with :func:`make_issue`; either way a rule id that is not in
the registry fails loudly (``KeyError``) instead of slipping through. The user's selection
(``--select/--ignore/--min-severity``) is a :class:`Selection`, applied by the judge and the
checker alike.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass

from sitemap_tui.engine.findings import Finding
from sitemap_tui.engine.model import Issue, Severity
from sitemap_tui.validate.rules import (
    RULES,
    SCOPES,
    STAGES,
    Rule,
    crossfile,
    dates,
    deep,
    document,
    elements,
    feeds,
    format_message,
    grade,
    hreflang,
    image,
    index,
    location,
    make_issue,
    news,
    robots,
    template_fields,
    transport,
    video,
    word,
)

__all__ = [
    "ROBOTS_BASED_RULES",
    "RULES",
    "SITE_BASED_RULES",
    "STAGES",
    "RegistryJudge",
    "Selection",
    "SCOPES",
    "Rule",
    "describe",
    "format_message",
    "make_issue",
    "match_rules",
    "select_rules",
    "template_fields",
]

#: The families, in the order ``sitemap-tui rules`` lists them.
FAMILIES = (transport, document, elements, feeds, location, dates, index, robots, image, video, news, hreflang,
            crossfile, deep)  # fmt: skip

# Every rule by id, family by family (the families' shared dict, so their checks find them).
RULES.update((rule.id, rule) for family in FAMILIES for rule in family.RULES)

#: The rules that read the site's robots.txt to judge the sitemaps (docs/exit-codes.md lists
#: them): they run only when that robots.txt could be read, and the report says when they did
#: not. A robots.txt submission also voids the location findings (``CROSS_SUBMIT_RULES``),
#: which ``robots-cross-submit-ok`` then reports instead.
ROBOTS_BASED_RULES: tuple[str, ...] = (
    "robots-url-disallowed",
    "robots-sitemap-file-disallowed",
    "video-files-not-accessible",
    "robots-cross-submit-ok",
)

#: The rules that judge a file's URLs against the site it is served from: a local file read as
#: no site (a ``file:`` URL, no --map, no robots.txt naming its site) has none, and the report
#: says they did not run.
SITE_BASED_RULES: tuple[str, ...] = (
    "location-different-host",
    "location-different-scheme",
    "location-port-mismatch",
    "location-outside-path",
    "index-child-different-host",
)

@dataclass(frozen=True, slots=True)
class Selection:
    """The rules the user selected (``enabled``; ``None``: all of them): the one place that
    decides whether a rule's findings are reported. Plain data, so it pickles."""

    enabled: frozenset[str] | None = None

    def __contains__(self, rule_id: object) -> bool:
        return self.enabled is None or rule_id in self.enabled

    def keep(self, issues: list[Issue]) -> list[Issue]:
        """The issues of selected rules (the list itself when all are)."""
        enabled = self.enabled
        if enabled is None or not issues:
            return issues
        return [i for i in issues if i.rule in enabled]


@dataclass(frozen=True, slots=True)
class RegistryJudge:
    """The :class:`~sitemap_tui.engine.findings.Judge` of the validation layer: severity and
    message from the registry, ``None`` for rules outside ``enabled`` (``None``: all rules).

    Plain data (a set of ids), so it pickles into worker processes; the registry itself is
    module state there too.
    """

    enabled: frozenset[str] | None = None

    @property
    def selection(self) -> Selection:
        return Selection(self.enabled)

    def issue(self, finding: Finding, node_id: int | None = None) -> Issue | None:
        if self.enabled is not None and finding.rule not in self.enabled:
            return None
        return self.word(finding, node_id)

    def word(self, finding: Finding, node_id: int | None = None) -> Issue:
        rule = RULES[finding.rule]
        fields = finding.fields
        if finding.url is not None and "url" not in fields:
            fields = {**fields, "url": finding.url}  # templates may name the URL as {url}
        return Issue(
            rule=finding.rule,
            severity=grade(rule, fields),
            message=word(rule, fields),
            node_id=node_id,
            line=finding.line,
            column=finding.column,
            url=finding.url,
        )


def match_rules(pattern: str) -> list[str]:
    """Rule ids matched by ``pattern``: an exact id, an id prefix (``video-``, ``hreflang``),
    a glob (``*-missing``) or a scope name (``robots``, ``cross-file``)."""
    p = pattern.strip().lower()
    if not p:
        return []
    if p in RULES:
        return [p]
    if any(c in p for c in "*?["):
        return [rid for rid in RULES if fnmatch.fnmatchcase(rid, p)]
    found = [rid for rid in RULES if rid.startswith(p)]
    if p in SCOPES:
        found += [rid for rid, r in RULES.items() if r.scope == p and rid not in found]
    return found


def _expand(patterns: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for raw in patterns:
        for pattern in raw.split(","):  # "--select lastmod-,loc-" works as one argument
            if not pattern.strip():
                continue
            found = match_rules(pattern)
            if not found:
                raise ValueError(f"unknown rule id or prefix: {pattern.strip()!r}")
            out.update(found)
    return out


def select_rules(
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    min_severity: Severity | str | None = None,
) -> set[str]:
    """The ids of the rules to run.

    ``select`` (all rules when empty or ``None``) minus ``ignore``; each item is an id, a prefix
    (``video-``, ``hreflang``), a glob or a scope, and may hold several comma-separated ones.
    ``min_severity`` drops rules whose registry severity ranks below it. Raises ``ValueError``
    for a pattern that matches no rule (so typos on the command line are reported).
    """
    chosen = _expand(select) if select else set(RULES)
    if ignore:
        chosen -= _expand(ignore)
    if min_severity is not None:
        floor = Severity(min_severity).rank
        chosen = {rid for rid in chosen if RULES[rid].severity.rank >= floor}
    return chosen


def describe(rule: Rule) -> str:
    """A plain-text description of one rule, for ``sitemap-tui rules ID``."""
    lines = [
        f"{rule.id}  ({rule.severity.value}, scope {rule.scope}{', deep check' if rule.deep else ''})",
        rule.title,
        "",
        rule.explanation,
        "",
        "Source:",
    ]
    lines += [f"  {part.strip()}" for part in rule.source.split(" ; ")]
    return "\n".join(lines)

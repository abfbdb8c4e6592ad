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
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from sitemap_tui.engine.findings import Finding
from sitemap_tui.engine.model import Issue, Severity
from sitemap_tui.validate.rules import (
    SCOPES,
    STAGES,
    Rule,
    crossfile,
    dates,
    deep,
    document,
    feeds,
    hreflang,
    image,
    index,
    location,
    news,
    robots,
    transport,
    video,
)

__all__ = [
    "ROBOTS_BASED_RULES",
    "RULES",
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
FAMILIES = (transport, document, feeds, location, dates, index, robots, image, video, news, hreflang,
            crossfile, deep)  # fmt: skip

#: Every rule by id, family by family.
RULES: dict[str, Rule] = {rule.id: rule for family in FAMILIES for rule in family.RULES}

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

#: Tests set this to True: a message template whose fields are missing then raises instead of
#: falling back to the rule's title.
STRICT_MESSAGES = False

# Untrusted values (URLs, element text) are cut before they go into a message; the full value
# stays available elsewhere (issue.url, the entry in the store).
_MAX_FIELD_LEN = 200
_formatter = string.Formatter()


def _short(value: object) -> object:
    if isinstance(value, str) and len(value) > _MAX_FIELD_LEN:
        return value[: _MAX_FIELD_LEN - 1] + "…"
    return value


def format_message(rule: Rule, fields: dict[str, object]) -> str:
    """Fill ``rule.message`` with ``fields`` (long strings are shortened).

    A template that cannot be filled (a field missing or of the wrong type) gives the rule's
    title plus any ``detail``/``reason`` field, unless :data:`STRICT_MESSAGES` is set.
    """
    values = {k: _short(v) for k, v in fields.items()}
    try:
        return _formatter.vformat(rule.message, (), values)
    except (KeyError, IndexError, ValueError, TypeError):
        if STRICT_MESSAGES:
            raise
        extra = values.get("detail") or values.get("reason")
        return f"{rule.title}: {extra}" if extra else rule.title


def make_issue(
    rule_id: str,
    node_id: int | None = None,
    line: int | None = None,
    column: int | None = None,
    url: str | None = None,
    *,
    severity: Severity | None = None,
    **fields: object,
) -> Issue:
    """An :class:`Issue` for ``rule_id`` with its message filled from ``fields``.

    Severity and message are the rule's for these fields (:func:`grade`, :func:`word`: an
    empty news sitemap or a news date without seconds grade lower); ``severity=`` forces one
    (no producer does). ``url`` is also available to the template as ``{url}``. Raises
    ``KeyError`` for an unknown rule id.
    """
    rule = RULES[rule_id]
    if url is not None and "url" not in fields:
        fields["url"] = url  # templates may name the issue's URL as {url}
    return Issue(
        rule=rule_id,
        severity=severity or grade(rule, fields),
        message=word(rule, fields),
        node_id=node_id,
        line=line,
        column=column,
        url=url,
    )


def word(rule: Rule, fields: Mapping[str, object]) -> str:
    """The message for ``fields``: the rule's own wording for the situation they describe, else
    its template."""
    special = rule.word
    if special is not None:
        text = special(fields)
        if text is not None:
            return text
    return format_message(rule, dict(fields))


def grade(rule: Rule, fields: Mapping[str, object]) -> Severity:
    """The severity for ``fields``: the registry's, unless the rule's condition changes it."""
    special = rule.grade
    if special is not None:
        found = special(fields)
        if found is not None:
            return found
    return rule.severity


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


def template_fields(rule: Rule) -> list[str]:
    """The field names used by ``rule.message``, in order."""
    return [name for _, name, _, _ in _formatter.parse(rule.message) if name]


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

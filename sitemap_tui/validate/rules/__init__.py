"""The rule families: one module per family, each holding its rules' records and the code that
words them, beside the checks that decide them (``validate/registry.py`` collects them).

This package module holds what every family shares: the :class:`Rule` record, the severity
shorthands, the types of the wording and grading functions, and :func:`make_issue`, which
turns a rule id and its fields into an issue (the registry re-exports it). Adding a rule is one ``Rule(...)``
in its family's ``RULES`` (and its check, where the family has one), plus its test.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sitemap_tui.engine.model import Issue, Severity

ERR = Severity.ERROR
WARN = Severity.WARNING
INFO = Severity.INFO

#: The scopes of the catalogue, in its order.
SCOPES: tuple[str, ...] = ("file", "url", "extension", "index", "robots", "cross-file")

#: What can decide a rule: a validation stage or engine step that emits it (the name of a
#: check function in the rule's family module also counts; see tests/test_rule_coverage.py).
STAGES: dict[str, str] = {
    "fetch": "the fetcher and body decoder (engine/fetch.py, engine/decode.py)",
    "parse": "the sniffer and parsers (engine/sniff.py, parse_xml.py with xml_*.py, parse_text.py)",
    "explore": "the explorer, which follows indexes (engine/explorer.py)",
    "checker": "the streaming checker, per entry, child and file (validate/checker.py)",
    "xsd": "the XSD validation (validate/xsd.py)",
    "cross-file": "the cross-file checks over the store (validate/crossfile.py)",
    "deep": "the deep checks, which fetch the listed pages (validate/deep.py)",
}

Fields = Mapping[str, Any]
#: Words an issue from a finding's fields; ``None`` when the fields are not one of the
#: situations it knows (the rule's ``message`` template then words it).
Word = Callable[[Fields], "str | None"]
#: Decides the severity from a finding's fields; ``None``: the rule's severity.
Grade = Callable[[Fields], "Severity | None"]

_URL_RE = re.compile(r"https?://[^\s;)\"]+")


@dataclass(frozen=True, slots=True)
class Rule:
    """One validation rule: catalogue id, scope and severity, plus the texts shown to users.

    ``message`` is a ``str.format`` template with named fields (``make_issue`` fills it);
    ``explanation`` is a few sentences for ``sitemap-tui rules ID`` and the TUI help;
    ``source`` is the catalogue's source text: one or more URLs, ``;``-separated, with an
    optional "§Section" note after a URL. ``decided_by`` names what emits the rule: keys of
    :data:`STAGES`, or ``family.function`` for a check function in validate/rules/. ``word`` and ``grade``: the rule's own wording and severity for the
    situations its fields describe (rules that one id covers several observations for).
    """

    id: str
    scope: str
    severity: Severity
    title: str
    message: str
    explanation: str
    source: str
    deep: bool = False
    decided_by: tuple[str, ...] = ()
    word: Word | None = None
    grade: Grade | None = None
    # one finding stands for several URLs (a count per file, host or namespace) and names the
    # first as a sample: a baseline matches it by its words, not by that URL (validate/baseline.py)
    sample: bool = False

    @property
    def urls(self) -> tuple[str, ...]:
        """The source URLs alone (without the §Section notes)."""
        return tuple(_URL_RE.findall(self.source))


#: Every rule by id, family by family: filled by ``validate/registry.py`` when it collects the
#: families (they are imported by it, so they cannot import it: their checks make issues
#: through :func:`make_issue` here).
RULES: dict[str, Rule] = {}

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


def template_fields(rule: Rule) -> list[str]:
    """The field names used by ``rule.message``, in order."""
    return [name for _, name, _, _ in _formatter.parse(rule.message) if name]

"""The rule families: one module per family, each holding its rules' records and the code that
words them, beside the checks that decide them (``validate/registry.py`` collects them).

This package module holds what every family shares: the :class:`Rule` record, the severity
shorthands and the types of the wording and grading functions. Adding a rule is one ``Rule(...)``
in its family's ``RULES`` (and its check, where the family has one), plus its test.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sitemap_tui.engine.model import Severity

ERR = Severity.ERROR
WARN = Severity.WARNING
INFO = Severity.INFO

#: The scopes of the catalogue, in its order.
SCOPES: tuple[str, ...] = ("file", "url", "extension", "index", "robots", "cross-file")

#: What can decide a rule: a validation stage or engine step that emits it (the name of a
#: check function in the rule's family module also counts; see tests/test_rule_coverage.py).
STAGES: dict[str, str] = {
    "fetch": "the fetcher and body decoder (engine/fetch.py, engine/decode.py)",
    "parse": "the sniffer and parsers (engine/sniff.py, engine/parse_xml.py, engine/parse_text.py)",
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
    optional "§Section" note after a URL. ``decided_by`` names what emits the rule (keys of
    :data:`STAGES`). ``word`` and ``grade``: the rule's own wording and severity for the
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

    @property
    def urls(self) -> tuple[str, ...]:
        """The source URLs alone (without the §Section notes)."""
        return tuple(_URL_RE.findall(self.source))

"""What the engine observed, before anyone judged it: a rule id and the values behind it.

The engine (fetch, decode, sniff, parse, explore) knows *that* something is so, not how bad it
is nor how to say it: severities and wordings belong to the validation layer's rule registry,
which turns each :class:`Finding` into an :class:`~sitemap_tui.engine.model.Issue` through a
:class:`Judge` (and drops the rules the user did not select, in that one place).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from sitemap_tui.engine.model import Issue, Severity


@dataclass(frozen=True, slots=True)
class Finding:
    """One observation: ``rule`` is a registry id, ``fields`` the values its message names.

    ``url`` is the entry's URL when the finding is about one entry; ``line``/``column`` point
    into the decoded body. Plain data, so it crosses into worker processes as it is.
    """

    rule: str
    fields: Mapping[str, object] = field(default_factory=dict)
    line: int | None = None
    column: int | None = None
    url: str | None = None


class Judge(Protocol):
    """Turns findings into issues: severity and message from the registry.

    ``issue`` returns ``None`` for a rule the user's selection leaves out; ``word`` judges
    whatever the selection, for the engine's own account of a file (why it stopped, where it
    was cut), which must not depend on which rules the user wants reported.
    """

    def issue(self, finding: Finding, node_id: int | None = None) -> Issue | None: ...

    def word(self, finding: Finding, node_id: int | None = None) -> Issue: ...


class PlainJudge:
    """The judge of an engine run with no validation layer plugged in (engine unit tests).

    It keeps every finding and words it plainly, since only the registry knows better.
    """

    def issue(self, finding: Finding, node_id: int | None = None) -> Issue | None:
        return self.word(finding, node_id)

    def word(self, finding: Finding, node_id: int | None = None) -> Issue:
        detail = ", ".join(f"{k}={v}" for k, v in finding.fields.items())
        return Issue(
            rule=finding.rule,
            severity=Severity.ERROR,
            message=f"{finding.rule}: {detail}" if detail else finding.rule,
            node_id=node_id,
            line=finding.line,
            column=finding.column,
            url=finding.url,
        )


# a count or a share standing alone ("7 of 7", "1,234", "12.5%"), not the digits of a name, an
# address or a port ("cdn1", "127.0.0.1", ":8080"): those tell findings apart (found by a review)
_NUMBERS = re.compile(r"(?<![\w.:/'\"-])\d+(?:,\d{3})*(?:\.\d+)?(?![\w.:/'\"-])")


def words_of(message: str | None) -> str:
    """A finding's message with its numbers left out ("URLs without <lastmod>: # of #"): what
    a rule that names one file's many URLs by a sample says, whichever URL is first (a
    baseline and a diff match such a finding by it)."""
    return _NUMBERS.sub("#", message or "")

"""The :class:`Rule` record of the rule registry (see ``rules.py`` and ``catalogue.py``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sitemap_tui.engine.model import Severity

#: The scopes of the catalogue, in its order.
SCOPES: tuple[str, ...] = ("file", "url", "extension", "index", "robots", "cross-file")

_URL_RE = re.compile(r"https?://[^\s;)\"]+")


@dataclass(frozen=True, slots=True)
class Rule:
    """One validation rule: catalogue id, scope and severity, plus the texts shown to users.

    ``message`` is a ``str.format`` template with named fields (``make_issue`` fills it);
    ``explanation`` is a few sentences for ``sitemap-tui rules ID`` and the TUI help;
    ``source`` is the catalogue's source text: one or more URLs, ``;``-separated, with an
    optional "§Section" note after a URL.
    """

    id: str
    scope: str
    severity: Severity
    title: str
    message: str
    explanation: str
    source: str
    deep: bool = False

    @property
    def urls(self) -> tuple[str, ...]:
        """The source URLs alone (without the §Section notes)."""
        return tuple(_URL_RE.findall(self.source))

"""The parsers emit findings (rule id + fields); tests read them as the user does, worded and
graded by the registry's judge (every rule, whatever the selection)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sitemap_tui.engine.findings import Finding
from sitemap_tui.validate.registry import RegistryJudge

JUDGE = RegistryJudge()


def judged(items: Iterable[Any]) -> list[Any]:
    """``items`` with every :class:`Finding` turned into its :class:`Issue`."""
    return [JUDGE.word(i) if isinstance(i, Finding) else i for i in items]

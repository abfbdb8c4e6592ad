"""How many URLs fit in one clipboard write (OSC 52).

Textual copies with the OSC 52 escape sequence (ESC ] 52 ; c ; base64 BEL). Terminals cap that
sequence: Chromium OS's ``osc52.sh`` (hterm) and vim-oscyank both send at most 100,000 bytes and
drop longer ones whole, so a longer copy would put nothing at all in the clipboard. The URLs are
cut at a whole line to fit, and the caller says how many were left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sitemap_tui.engine.sanitize import url_text

OSC52_MAX_SEQUENCE = 100_000
"""The longest OSC 52 sequence sent, in bytes (hterm's osc52.sh, vim-oscyank's default)."""
_FRAME = len("\x1b]52;c;") + len("\a")
MAX_PAYLOAD = (OSC52_MAX_SEQUENCE - _FRAME) // 4 * 3
"""The most text bytes whose base64 still fits in the sequence (74,994)."""


@dataclass(frozen=True)
class Fit:
    urls: list[str]
    cut: bool  # more URLs were offered than fit
    limit: int = OSC52_MAX_SEQUENCE

    @property
    def text(self) -> str:
        return "".join(f"{u}\n" for u in self.urls)


def fit_urls(urls: Iterable[str | None], max_payload: int | None = None) -> Fit:
    """The leading URLs (one a line) whose UTF-8 text fits ``max_payload``; stops reading at
    the first that does not. Control and invisible characters are percent-encoded as in a text
    export (``url_text``), never copied raw; display's ``\\u200b`` escapes made a real U+200B
    and the six characters ``\\u200b`` the same URL, and a pasted one a URL nobody listed
    (found by a review)."""
    budget = MAX_PAYLOAD if max_payload is None else max_payload
    kept: list[str] = []
    used = 0
    for url in urls:
        if not url:
            continue
        line = url_text(url)
        size = len(line.encode("utf-8")) + 1
        if used + size > budget:
            return Fit(kept, cut=True)
        kept.append(line)
        used += size
    return Fit(kept, cut=False)

"""The one sanitiser for untrusted text before it reaches a terminal (SECURITY.md T15, T16).

Everything shown to the user (URLs, titles, error messages quoting server data, robots.txt
lines) goes through :func:`display`. It turns characters that a terminal would *act on*
(C0/C1 controls, ESC sequences) or that hide/reorder text (bidi controls, zero-width
characters) into visible Python-style escapes, and caps the length.
"""

from __future__ import annotations

import re
from urllib.parse import quote

ELLIPSIS = "…"

# Ranges of code points that never reach the terminal raw. Kept as (first, last) pairs so the
# regex and the translation table are built from one source of truth.
_RANGES: tuple[tuple[int, int], ...] = (
    (0x00, 0x1F),  # C0 controls, incl. TAB/CR/LF (fields are single-line) and ESC
    (0x7F, 0x9F),  # DEL and C1 (U+009B CSI and U+009D OSC are legal XML 1.0 characters)
    (0xAD, 0xAD),  # SOFT HYPHEN (drawn as nothing)
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER (invisible)
    (0x061C, 0x061C),  # ARABIC LETTER MARK (bidi)
    (0x115F, 0x1160),  # HANGUL CHOSEONG / JUNGSEONG FILLER (blank: used to fake empty names)
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ / AA (invisible)
    (0x180E, 0x180E),  # MONGOLIAN VOWEL SEPARATOR (was zero-width)
    (0x200B, 0x200F),  # ZWSP, ZWNJ, ZWJ, LRM, RLM
    (0x2028, 0x2029),  # LINE / PARAGRAPH SEPARATOR: line breaks for str.splitlines()
    (0x202A, 0x202E),  # LRE, RLE, PDF, LRO, RLO
    (0x2060, 0x206F),  # WORD JOINER, invisible operators, (unassigned U+2065), LRI, RLI, FSI,
    # PDI and deprecated invisible format characters
    (0x3164, 0x3164),  # HANGUL FILLER (blank)
    (0xD800, 0xDFFF),  # lone surrogates (surrogateescape): printing them raises
    (0xFE00, 0xFE0F),  # VARIATION SELECTORS 1-16 (invisible: they change the glyph before)
    (0xFEFF, 0xFEFF),  # ZERO WIDTH NO-BREAK SPACE / BOM
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER (blank)
    (0xFFF9, 0xFFFB),  # interlinear annotation controls (invisible)
    (0x1BCA0, 0x1BCA3),  # shorthand format controls (invisible)
    (0xE0000, 0xE007F),  # tag characters: invisible "ASCII smuggling"
    (0xE0100, 0xE01EF),  # VARIATION SELECTORS 17-256 (invisible; a carrier for hidden bytes)
)


def _escape(cp: int) -> str:
    # Same spelling as Python's repr(), so users recognise them.
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


_TABLE: dict[int, str] = {
    cp: _escape(cp) for first, last in _RANGES for cp in range(first, last + 1)
}
# A character class built from the same ranges; used for the fast "anything to do?" check.
_BAD_RE = re.compile(
    "["
    + "".join(
        re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
        for a, b in _RANGES
    )
    + "]"
)


def url_text(s: str | None) -> str:
    """A URL for a line-based output (``urls``' txt and CSV, a media list): the characters
    :func:`display` escapes percent-encoded as UTF-8 instead, which is how a browser sends them
    (WHATWG's percent-encode sets hold every control and every non-ASCII character). Found
    from outside: a real U+200B and the six characters ``\\u200b`` both came out as
    ``\\u200b``, two URLs as one, and neither one a crawler would fetch. Whole, never cut."""
    if s is None:
        return ""
    if (s.isascii() and s.isprintable()) or _BAD_RE.search(s) is None:
        return s
    return _BAD_RE.sub(lambda m: quote(m.group(), safe="", errors="surrogatepass"), s)


def needs_escaping(s: str) -> bool:
    """True when ``s`` holds a character :func:`display` would escape."""
    return _BAD_RE.search(s) is not None


# the ASCII characters display() escapes, less the line feed: a text of lines is checked at once
_ASCII_BAD_BUT_LF = bytes(cp for first, last in _RANGES for cp in range(first, min(last, 0x7F) + 1) if cp != 0x0A)
_ASCII = bytes(range(0x80))


def utf8_lines_need_escaping(data: bytes) -> bool:
    """True when a line of ``data`` (UTF-8 lines joined by line feeds) holds a character
    :func:`display` would escape, or is no UTF-8. Two passes of ``bytes.translate`` in C: the
    ASCII ones deleted from a copy (a length that changed found one), then every ASCII byte
    deleted, leaving the other characters' bytes whole and in order, few in a URL, for the
    sanitiser's own search. A re-run's 1 M carried URLs: 0.07 s, against 0.17 s to decode
    them, join the lines with spaces and ask ``isprintable``."""
    if len(data.translate(None, _ASCII_BAD_BUT_LF)) != len(data):
        return True
    rest = data.translate(None, _ASCII)
    if not rest:
        return False
    try:
        return needs_escaping(rest.decode("utf-8"))
    except UnicodeDecodeError:
        return True


def display(s: str | None, max_len: int = 2048) -> str:
    """Return ``s`` safe to show in a terminal, at most ``max_len`` characters long.

    Control, bidi and zero-width characters become escapes such as ``\\x1b`` or ``\\u202e``.
    Percent-escapes are left as they are (never unquoted). A longer result is cut and ends
    with ``…``; an escape is never cut in half. ``None`` gives ``""``.
    """
    if s is None:
        return ""
    if not isinstance(s, str):  # defensive: callers sometimes pass ints/bytes by mistake
        s = str(s)
    max_len = max(1, max_len)
    # fast paths: printable ASCII (the common URL and message: a flag and one scan in C, no
    # regex) holds none of _RANGES' characters; else the regex tells
    if (s.isascii() and s.isprintable()) or _BAD_RE.search(s) is None:
        if len(s) <= max_len:
            return s
        return s[: max_len - 1] + ELLIPSIS
    # Escapes only make the text longer, so max_len + 1 input characters are always enough
    # to know whether the output fits; this bounds the work on a 200 MB line.
    head = s[: max_len + 1]
    out = head.translate(_TABLE)
    if len(out) <= max_len and len(s) == len(head):
        return out
    # Too long: rebuild up to max_len - 1 characters without splitting an escape.
    parts: list[str] = []
    used = 0
    budget = max_len - 1
    for ch in head:
        piece = _TABLE.get(ord(ch), ch)
        if used + len(piece) > budget:
            break
        parts.append(piece)
        used += len(piece)
    return "".join(parts) + ELLIPSIS

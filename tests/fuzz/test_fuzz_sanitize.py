"""The display sanitiser (SECURITY.md §12): whatever comes in, nothing a terminal acts on comes
out, the length cap holds, clean text passes unchanged, and it is idempotent."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from sitemap_tui.engine.sanitize import ELLIPSIS, display

from .strategies import hostile_text

# written out here, not read from the sanitiser, so that a range dropped there fails this test
UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f"
    "\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\U0001bca0-\U0001bca3\U000e0000-\U000e007f\U000e0100-\U000e01ef\ud800-\udfff]"
)


@given(st.one_of(hostile_text, st.text(max_size=3000)), st.integers(1, 3000))
@example("\u034f", 1)  # (an escape longer than the room: the ellipsis alone)
def test_display(s: str, max_len: int) -> None:
    out = display(s, max_len)
    assert UNSAFE.search(out) is None, repr(out)
    assert len(out) <= max_len
    if UNSAFE.search(s) is None and len(s) <= max_len:
        assert out == s
    if len(out) < max_len or not out.endswith(ELLIPSIS):
        assert display(out, max_len) == out
    out.encode("utf-8")  # printable: no lone surrogates left


def test_none_and_non_str() -> None:
    assert display(None) == ""
    assert display(12) == "12"  # type: ignore[arg-type]

"""display(): the one sanitiser before anything untrusted reaches a terminal (T15, T16)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_tui.engine.sanitize import ELLIPSIS, display, needs_escaping, utf8_lines_need_escaping

C0 = [chr(c) for c in range(0x00, 0x20)]
C1 = [chr(c) for c in range(0x80, 0xA0)]
BIDI = ["\u200e", "\u200f", "\u061c"] + [chr(c) for c in range(0x202A, 0x202F)]
BIDI += [chr(c) for c in range(0x2066, 0x206A)]
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]
FORBIDDEN = set(C0 + ["\x7f"] + C1 + BIDI + ZERO_WIDTH)


def test_none_and_plain():
    assert display(None) == ""
    assert display("") == ""
    url = "https://example.com/a?b=c&d=%1B#frag"
    assert display(url) is url or display(url) == url  # fast path returns it untouched


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b", "\\x1b"),
        ("\x00", "\\x00"),
        ("\t", "\\x09"),
        ("\r\n", "\\x0d\\x0a"),
        ("\x7f", "\\x7f"),
        ("\x9b", "\\x9b"),  # C1 CSI
        ("\x9d", "\\x9d"),  # C1 OSC
        ("\u202e", "\\u202e"),
        ("\u2066", "\\u2066"),
        ("\u061c", "\\u061c"),
        ("\u200b", "\\u200b"),
        ("\ufeff", "\\ufeff"),
        ("\u2028", "\\u2028"),
        ("\udcff", "\\udcff"),  # lone surrogate: printing it would raise
        ("\U000e0041", "\\U000e0041"),  # tag character (invisible)
        # found by a review: drawn as nothing (or blank) by terminals, and let through
        ("\xad", "\\xad"),  # soft hyphen
        ("\u034f", "\\u034f"),  # combining grapheme joiner
        ("\u115f", "\\u115f"), ("\u1160", "\\u1160"), ("\u3164", "\\u3164"), ("\uffa0", "\\uffa0"),  # Hangul fillers
        ("\u2065", "\\u2065"),  # the unassigned gap among the invisible format characters
        ("\ufe0f", "\\ufe0f"), ("\U000e0100", "\\U000e0100"),  # variation selectors
        ("\u17b4", "\\u17b4"), ("\U0001bca0", "\\U0001bca0"),
    ],
)
def test_escapes(raw: str, shown: str):
    assert display(f"a{raw}b") == f"a{shown}b"


def test_osc52_clipboard_write_is_defused():
    evil = "https://x.example/\x1b]52;c;ZWNobyBoaQ==\x07/sitemap.xml"
    out = display(evil)
    assert "\x1b" not in out and "\x07" not in out
    assert out == "https://x.example/\\x1b]52;c;ZWNobyBoaQ==\\x07/sitemap.xml"


def test_c1_osc8_hyperlink_is_defused():
    out = display("\x9d8;;file:///etc/passwd\x9chere\x9d8;;\x9c")
    assert not (set(out) & FORBIDDEN)
    assert out.startswith("\\x9d8;;file:///etc/passwd\\x9c")


def test_percent_escapes_are_not_unquoted():
    assert display("https://x/%1B%5B2J%E2%80%AE") == "https://x/%1B%5B2J%E2%80%AE"


def test_markup_is_left_to_the_ui_layer():
    # Markup safety is the TUI's job (Text objects); display() must not mangle brackets.
    s = "https://x/[@click=app.quit]x[/]"
    assert display(s) == s


def test_non_ascii_letters_kept():
    s = "https://例え.テスト/ß/é?q=ü"
    assert display(s) == s


def test_long_string_is_cut_with_ellipsis():
    out = display("x" * 10_000)
    assert len(out) == 2048 and out.endswith(ELLIPSIS)
    assert display("x" * 2048) == "x" * 2048
    assert display("x" * 2049) == "x" * 2047 + ELLIPSIS
    assert display("abcdef", max_len=4) == "abc" + ELLIPSIS


def test_cut_never_splits_an_escape():
    out = display("\x1b" * 3000)
    assert len(out) <= 2048 and out.endswith(ELLIPSIS)
    body = out[:-1]
    assert body == "\\x1b" * (len(body) // 4)
    out = display("ab\u202e", max_len=6)
    assert out == "ab" + ELLIPSIS  # "\u202e" (6 chars) does not fit in the 5 left


def test_escaped_output_counts_towards_max_len():
    assert display("\x1b" * 10, max_len=40) == "\\x1b" * 10
    assert display("\x1b" * 10, max_len=39) == "\\x1b" * 9 + ELLIPSIS


def test_tiny_max_len():
    assert display("abc", max_len=0) == ELLIPSIS
    assert display("a", max_len=1) == "a"


def test_non_str_is_converted():
    assert display(42) == "42"  # type: ignore[arg-type]


def test_needs_escaping():
    assert needs_escaping("a\x1b") and not needs_escaping("https://example.com/")


def test_huge_input_is_cut_at_max_len():
    """A 5-million-character line is cut to its first max_len characters, escapes whole (how
    long that takes is measured in bench/bench_limits.py, not asserted here)."""
    clean = "a" * 5_000_000
    dirty = "\x1b" * 5_000_000
    assert display(clean) == "a" * 2047 + ELLIPSIS
    assert display(dirty) == "\\x1b" * 511 + ELLIPSIS  # 511 four-character escapes fit in 2047


@settings(max_examples=500, deadline=None)
@given(st.text(), st.integers(min_value=1, max_value=300))
def test_property_no_forbidden_char_and_bounded(s: str, max_len: int):
    out = display(s, max_len)
    assert not (set(out) & FORBIDDEN)
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in out)
    assert len(out) <= max_len
    out.encode("utf-8")  # always printable to a UTF-8 terminal


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(sorted(FORBIDDEN) + list("ab/:"))))
def test_property_forbidden_heavy(s: str):
    out = display(s)
    assert not (set(out) & FORBIDDEN)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters=sorted(FORBIDDEN))))
def test_property_clean_text_unchanged(s: str):
    if not needs_escaping(s) and len(s) <= 2048:
        assert display(s) == s


@given(st.lists(st.text(alphabet=st.one_of(st.characters(max_codepoint=0x7F),
                                           st.sampled_from("\x85\u202e\u200b\ufeffé…"))), max_size=6))
@settings(max_examples=400)
def test_utf8_lines_need_escaping_is_needs_escaping_of_any_line(lines: list[str]) -> None:
    """The check of UTF-8 lines at once (a re-run's carried URLs, as SQLite joins them) answers
    what asking each line does, ASCII or not."""
    lines = [line.replace("\n", "") for line in lines]
    data = "\n".join(lines).encode()
    assert utf8_lines_need_escaping(data) == any(needs_escaping(line) for line in lines)


@pytest.mark.parametrize("bad", ["\x00", "\t", "\r", "\x1b", "\x7f"])
def test_each_ascii_control_but_the_line_feed_needs_escaping_in_a_text_of_lines(bad: str) -> None:
    assert utf8_lines_need_escaping(f"https://a/\nhttps://b/{bad}x\nhttps://c/".encode())
    assert not utf8_lines_need_escaping("https://a/\nhttps://b/x\nhttps://c/é".encode())


def test_utf8_that_is_no_utf8_needs_escaping() -> None:
    assert utf8_lines_need_escaping(b"https://a/\xff\nhttps://b/")


def test_url_text_percent_encodes_what_display_escapes_so_two_urls_stay_two() -> None:
    """Found from outside: in `urls`' txt and CSV a real U+200B and the six characters
    ``\\u200b`` both came out as ``\\u200b``. URLs are written as a browser sends them: the
    characters the sanitiser escapes percent-encoded as UTF-8, the rest as written."""
    from sitemap_tui.engine.sanitize import url_text

    real, literal = "https://example.com/b\u200b", "https://example.com/b\\u200b"
    assert url_text(real) == "https://example.com/b%E2%80%8B"
    assert url_text(literal) == literal and url_text(real) != url_text(literal)
    assert url_text("https://example.com/\x1b]52;c;x\x07") == "https://example.com/%1B]52;c;x%07"
    assert url_text("https://example.com/\u202egnp.exe\x9b") == "https://example.com/%E2%80%AEgnp.exe%C2%9B"
    assert url_text("https://example.com/café?q=日本") == "https://example.com/café?q=日本"  # printable: as written
    assert url_text("https://example.com/a%20b") == "https://example.com/a%20b"
    assert url_text(None) == ""
    assert not needs_escaping(url_text("https://example.com/\ud800\U000e0041\u2028"))

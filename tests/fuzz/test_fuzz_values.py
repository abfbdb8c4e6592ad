"""Value parsers (SECURITY.md §14): lastmod (W3C datetime, xsd, RSS/Atom dates), priority and
changefreq never raise, never return NaN, and return aware UTC datetimes or None."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from sitemap_tui.engine.values import (
    CHANGEFREQS,
    is_w3c_datetime,
    is_xsd_datetime,
    parse_any_feed_date,
    parse_changefreq,
    parse_priority,
    parse_rfc822_datetime,
    parse_w3c_datetime,
)

from .strategies import hostile_text

digits = st.text("0123456789", min_size=0, max_size=6)
sep = st.sampled_from(["-", ":", "T", "t", " ", "Z", "z", "+", ".", ""])
w3c_like = st.lists(st.one_of(digits, sep, st.sampled_from(["9" * 5000, "-14:00", "+99:99", "\u0661"])),
                    max_size=12).map("".join)


def _aware_utc(dt: datetime | None) -> None:
    if dt is not None:
        assert dt.tzinfo is not None and dt.utcoffset() == timedelta(0)


@given(st.one_of(hostile_text, w3c_like))
def test_date_parsers_never_raise(s: str) -> None:
    dt = parse_w3c_datetime(s)
    _aware_utc(dt)
    assert is_w3c_datetime(s) == (dt is not None)
    assert isinstance(is_xsd_datetime(s), bool)
    _aware_utc(parse_rfc822_datetime(s))
    _aware_utc(parse_any_feed_date(s))


@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
       st.integers(-14 * 60, 14 * 60), st.sampled_from(["date", "minutes", "seconds", "fraction"]))
def test_w3c_roundtrip(naive: datetime, offset_min: int, form: str) -> None:
    d = naive
    sign = "+" if offset_min >= 0 else "-"
    tzd = f"{sign}{abs(offset_min) // 60:02d}:{abs(offset_min) % 60:02d}"
    day = f"{d.year:04d}-{d.month:02d}-{d.day:02d}"
    local = d.replace(tzinfo=timezone(timedelta(minutes=offset_min)))
    if form == "date":
        s, expected = day, datetime(d.year, d.month, d.day, tzinfo=UTC)
    else:
        s = f"{day}T{d.hour:02d}:{d.minute:02d}"
        if form == "minutes":
            local = local.replace(second=0, microsecond=0)
        elif form == "seconds":
            s += f":{d.second:02d}"
            local = local.replace(microsecond=0)
        else:
            s += f":{d.second:02d}.{d.microsecond:06d}"
        s += tzd
        try:
            expected = local.astimezone(UTC)
        except OverflowError:
            expected = None  # e.g. 9999-12-30T23:00-14:00 is past datetime.max in UTC
    assert parse_w3c_datetime(s) == expected, s


@given(st.one_of(hostile_text, st.sampled_from(["nan", "inf", "-inf", "1_0", "1.5", "-1", "0x1", "1e0",
                                                   "0." + "9" * 5000, "9" * 5000, " 0.5 ", "1.000", "0"])))
def test_priority(s: str) -> None:
    p = parse_priority(s)
    assert p is None or (0.0 <= p <= 1.0 and not math.isnan(p))


@given(st.floats(0, 1, allow_nan=False))
def test_priority_accepts_plain_decimals(x: float) -> None:
    s = f"{x:.1f}"
    assert parse_priority(s) == float(s)


@given(st.one_of(hostile_text, st.sampled_from([c.upper() for c in CHANGEFREQS] + [f" {c}\n" for c in CHANGEFREQS])))
def test_changefreq(s: str) -> None:
    c = parse_changefreq(s)
    assert c is None or c in CHANGEFREQS
    if s.strip().lower() in CHANGEFREQS and len(s) < 64:
        assert c == s.strip().lower()

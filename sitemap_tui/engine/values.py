"""Parsing of sitemap and feed values: lastmod, priority, changefreq, feed dates (SECURITY.md §14).

Every function takes untrusted text and never raises: a value that does not fit becomes
``None`` (so sorting never meets NaN). Lengths are capped before any regex, and no arbitrary digit
string ever reaches ``int()``/``float()`` (Python refuses ints past 4,300 digits; ``float()``
accepts ``nan``, ``inf`` and ``1_0``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from typing import Any

CHANGEFREQS: tuple[str, ...] = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")
_CHANGEFREQ_SET = frozenset(CHANGEFREQS)

# Longest plausible date value; anything longer is rejected before a regex sees it.
_MAX_DATE_LEN = 64
_MAX_PRIORITY_LEN = 32

# W3C Datetime profile (https://www.w3.org/TR/NOTE-datetime): YYYY, YYYY-MM, YYYY-MM-DD,
# YYYY-MM-DDThh:mmTZD, YYYY-MM-DDThh:mm:ssTZD, YYYY-MM-DDThh:mm:ss.sTZD; TZD is Z or +hh:mm/-hh:mm.
# re.ASCII: \d must not match Arabic-Indic or full-width digits.
W3C_DATETIME_RE = re.compile(
    r"(?P<year>\d{4})"
    r"(?:-(?P<month>\d{2})"
    r"(?:-(?P<day>\d{2})"
    r"(?:T(?P<hour>\d{2}):(?P<minute>\d{2})"
    r"(?::(?P<second>\d{2})(?:\.(?P<frac>\d+))?)?"
    r"(?P<tz>Z|[+-]\d{2}:\d{2}))?"
    r")?)?",
    re.ASCII,
)

# xsd:date and xsd:dateTime lexical forms (XML Schema 1.0 Part 2, 3.2.7 and 3.2.9), which the
# sitemaps.org XSD uses for <lastmod>. Years may be longer than 4 digits or negative; seconds
# are required in dateTime; the time zone is optional and limited to +-14:00.
_XSD_TZ = r"(?P<tz>Z|[+-](?P<tzh>\d{2}):(?P<tzm>\d{2}))?"
_XSD_DATE = r"(?P<year>-?\d{4,})-(?P<month>\d{2})-(?P<day>\d{2})"
_XSD_DATE_RE = re.compile(_XSD_DATE + _XSD_TZ, re.ASCII)
_XSD_DATETIME_RE = re.compile(
    _XSD_DATE
    + r"T(?P<hour>\d{2}):(?P<minute>\d{2}):(?P<second>\d{2})(?:\.(?P<frac>\d+))?"
    + _XSD_TZ,
    re.ASCII,
)

# xsd:decimal, as the schema and the priority-invalid rule read it (".5", "0.50", "+1." are
# priorities too: found from outside, diff called .50 against 0.5 a change, stats "invalid")
_PRIORITY_RE = re.compile(r"[+-]?(?:\d{1,12}(?:\.\d{0,20})?|\.\d{1,20})", re.ASCII)

_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)

# Results of parse_w3c_datetime / parse_priority / parse_changefreq / parse_any_feed_date by raw
# string (sitemaps repeat values). The results are immutable (aware datetime, float, str or
# None), so sharing is safe; each cache holds at most _CACHE_MAX strings of at most
# _CACHE_KEY_MAX characters and is simply emptied when full.
_CACHE_MAX = 4096
_CACHE_KEY_MAX = 128

_MISS = object()


def _memo(cache: dict[str, Any], parse: Callable[[str | None], Any], raw: str | None) -> Any:
    """``parse(raw)``, remembered by the raw string (generated sitemaps repeat their values)."""
    if type(raw) is not str or len(raw) > _CACHE_KEY_MAX:
        return parse(raw)
    hit = cache.get(raw, _MISS)
    if hit is _MISS:
        hit = parse(raw)
        if len(cache) >= _CACHE_MAX:
            cache.clear()
        cache[raw] = hit
    return hit


_W3C_CACHE: dict[str, object] = {}
_PRIORITY_CACHE: dict[str, object] = {}
_CHANGEFREQ_CACHE: dict[str, object] = {}
_FEED_DATE_CACHE: dict[str, object] = {}


def _clean(raw: str | None, max_len: int) -> str | None:
    """Strip surrounding whitespace; ``None`` for missing, non-str or over-long input."""
    if raw is None or not isinstance(raw, str):
        return None
    if len(raw) > max_len * 4:  # cheap early exit before stripping a huge string
        return None
    s = raw.strip()
    if not s or len(s) > max_len:
        return None
    return s


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_in(year: int, month: int) -> int:
    if month == 2 and _is_leap(year):
        return 29
    return _DAYS_IN_MONTH[month - 1]


def _offset(tz: str) -> timedelta | None:
    """``Z``/``+hh:mm``/``-hh:mm`` as a timedelta, ``None`` when out of range."""
    if tz in ("Z", "z"):
        return timedelta(0)
    hh, mm = int(tz[1:3]), int(tz[4:6])
    if hh > 23 or mm > 59:
        return None
    delta = timedelta(hours=hh, minutes=mm)
    return -delta if tz[0] == "-" else delta


def _micro(frac: str | None) -> int:
    # Only the first six digits matter; never int() the whole (possibly huge) fraction.
    return int((frac or "")[:6].ljust(6, "0"))


def parse_w3c_datetime(raw: str | None) -> datetime | None:
    """Parse a W3C Datetime value to an aware UTC datetime; ``None`` when invalid.

    Date-only values (YYYY, YYYY-MM, YYYY-MM-DD) become midnight UTC of their first day.
    Out-of-range values (month 13, Feb 30, year 0, ``9999-12-31T23:59:59-14:00`` which
    overflows on the conversion to UTC) give ``None``.
    """
    return _memo(_W3C_CACHE, _parse_w3c, raw)


def _parse_w3c(raw: str | None) -> datetime | None:
    s = _clean(raw, _MAX_DATE_LEN)
    if s is None:
        return None
    m = W3C_DATETIME_RE.fullmatch(s)
    if m is None:
        return None
    try:
        tz = m["tz"]
        if tz is not None and (tz == "Z" or (tz[1:3] <= "23" and tz[4:6] <= "59")):
            # Fast path, same result as below: the regex has vetted the form (date, hh:mm, optional
            # :ss and fraction, zone in range), which fromisoformat reads the same way (fraction
            # cut to microseconds; hour 24, second 60, day 30 of February rejected alike).
            return datetime.fromisoformat(s).astimezone(UTC)
        year = int(m["year"])
        month = int(m["month"] or 1)
        day = int(m["day"] or 1)
        if m["hour"] is None:
            return datetime(year, month, day, tzinfo=UTC)
        offset = _offset(m["tz"])
        if offset is None:
            return None
        local = datetime(
            year,
            month,
            day,
            int(m["hour"]),
            int(m["minute"]),
            int(m["second"] or 0),
            _micro(m["frac"]),
            tzinfo=timezone(offset),
        )
        return local.astimezone(UTC)
    except (ValueError, OverflowError):
        return None


def is_w3c_datetime(raw: str | None) -> bool:
    """True when ``raw`` is a valid W3C Datetime (format and calendar)."""
    return parse_w3c_datetime(raw) is not None


def _xsd_tz_ok(m: re.Match[str]) -> bool:
    if m["tz"] is None or m["tz"] == "Z":
        return True
    hh, mm = int(m["tzh"]), int(m["tzm"])
    return mm <= 59 and (hh < 14 or (hh == 14 and mm == 0))


def _xsd_date_ok(m: re.Match[str]) -> bool:
    year_s = m["year"]
    digits = year_s.lstrip("-")
    # More than four digits must not start with 0; year 0000 does not exist in XSD 1.0.
    if (len(digits) > 4 and digits[0] == "0") or int(digits) == 0:
        return False
    month, day = int(m["month"]), int(m["day"])
    if not 1 <= month <= 12:
        return False
    # XSD 1.0 counts years without a year 0 (-0001 is 1 BCE, a leap year like 0000).
    year = int(year_s)
    if year < 0:
        year += 1
    return 1 <= day <= _days_in(year, month)


def is_xsd_datetime(raw: str | None) -> bool:
    """True when ``raw`` is a valid xsd:date or xsd:dateTime lexical value.

    This is what the sitemaps.org schema accepts for ``<lastmod>``. It differs from the W3C
    profile both ways: ``2024-01-01T10:00Z`` (no seconds) is W3C but not xsd;
    ``2024-01-01T10:00:00`` (no zone) and ``2024-01-01Z`` are xsd but not W3C.
    """
    s = _clean(raw, _MAX_DATE_LEN)
    if s is None:
        return False
    m = _XSD_DATE_RE.fullmatch(s)
    if m is not None:
        return _xsd_date_ok(m) and _xsd_tz_ok(m)
    m = _XSD_DATETIME_RE.fullmatch(s)
    if m is None or not (_xsd_date_ok(m) and _xsd_tz_ok(m)):
        return False
    hour, minute, second = int(m["hour"]), int(m["minute"]), int(m["second"])
    if hour == 24:  # 24:00:00 (end of day) is allowed, nothing later
        return minute == 0 and second == 0 and not (m["frac"] or "").strip("0")
    return hour <= 23 and minute <= 59 and second <= 59


def parse_priority(raw: str | None) -> float | None:
    """``0.0``-``1.0`` for values matching ``^(0(\\.\\d+)?|1(\\.0+)?)$`` after strip, else ``None``."""
    return _memo(_PRIORITY_CACHE, _parse_priority, raw)


def _parse_priority(raw: str | None) -> float | None:
    s = _clean(raw, _MAX_PRIORITY_LEN)
    if s is None or _PRIORITY_RE.fullmatch(s) is None:
        return None
    value = float(s)  # safe: the regex admits only plain decimals
    return value + 0.0 if 0.0 <= value <= 1.0 else None  # (+ 0.0: "-0" is 0.0, not -0.0)


def parse_changefreq(raw: str | None) -> str | None:
    """One of :data:`CHANGEFREQS` (case-insensitive after strip), else ``None``."""
    return _memo(_CHANGEFREQ_CACHE, _parse_changefreq, raw)


def _parse_changefreq(raw: str | None) -> str | None:
    s = _clean(raw, 16)
    if s is None:
        return None
    s = s.lower()
    return s if s in _CHANGEFREQ_SET else None


def _to_utc(dt: datetime) -> datetime | None:
    try:
        if dt.tzinfo is None or dt.utcoffset() is None:
            return dt.replace(tzinfo=UTC)  # naive: assume UTC
        return dt.astimezone(UTC)
    except (ValueError, OverflowError):
        return None


ZONE_COMMENT_RE = re.compile(r"\s*\([^()]*\)\s*$")
"""A parenthesised comment at an RFC 822 date's end (``(PST)``)."""
COLON_ZONE_RE = re.compile(r"(?<=\s)([+-])(\d\d):(\d\d)$")
"""An RFC 822 date's zone offset written with a colon (``-08:00``), at its end."""


def parse_rfc822_datetime(raw: str | None, *, assume_utc: bool = True) -> datetime | None:
    """RSS ``pubDate`` (RFC 822/2822, e.g. ``Tue, 10 Jun 2003 04:00:00 GMT``) as aware UTC.

    RFC 822 requires a zone. A date without one (or with a zone name it does not define) is
    read as UTC, unless ``assume_utc`` is False: then it gives ``None``. ``-0000`` (RFC 2822:
    UTC, local zone unknown) has a zone."""
    s = _clean(raw, 128)
    if s is None:
        return None
    s = ZONE_COMMENT_RE.sub("", s)  # "-08:00 (PST)": RFC 822 allows a comment after the zone
    colon = COLON_ZONE_RE.search(s)
    if colon is not None:
        # "-08:00" where RFC 822 writes "-0800" (a common slip): the instant is plain, and
        # email.utils read it as no zone, so as UTC, the date a day off in the histogram
        # (feed-date-invalid says the slip)
        s = s[: colon.start()] + colon.group(1) + colon.group(2) + colon.group(3)
    try:
        dt = parsedate_to_datetime(s)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if dt is None:  # very old Pythons returned None instead of raising
        return None
    if not assume_utc and dt.tzinfo is None and not s.endswith("-0000"):
        return None
    return _to_utc(dt)


def _parse_iso8601(s: str) -> datetime | None:
    """RFC 3339 / ISO 8601 forms the W3C profile does not cover (lower-case t/z, space, no zone)."""
    s = s.upper() if ("t" in s or "z" in s) else s
    if len(s) >= 11 and s[10] == " ":
        s = s[:10] + "T" + s[11:]
    try:
        dt = datetime.fromisoformat(s)
    except (ValueError, OverflowError):
        return None
    return _to_utc(dt)


# a leap second, "60" (at 23:59 UTC: at any minute in another zone)
_LEAP_SECOND_RE = re.compile(r"([Tt ]\d{2}:\d{2}:)60(?=[.Zz+-]|$)", re.ASCII)


def parse_any_feed_date(raw: str | None) -> datetime | None:
    """A feed date in any usual form: W3C/RFC 3339 (Atom), ISO 8601, then RFC 822 (RSS)."""
    return _memo(_FEED_DATE_CACHE, _parse_any_feed_date, raw)


def _parse_any_feed_date(raw: str | None) -> datetime | None:
    s = _clean(raw, 128)
    if s is None:
        return None
    if len(s) <= _MAX_DATE_LEN:
        dt = parse_w3c_datetime(s)
        if dt is not None:
            return dt
        if s[:4].isascii() and s[:4].isdigit():
            dt = _parse_iso8601(s)
            if dt is not None:
                return dt
            leap = _LEAP_SECOND_RE.sub(r"\g<1>59", s)
            if leap != s:  # RFC 3339 §5.6's leap second (:60), which datetime cannot hold: :59
                return _parse_any_feed_date(leap)
    return parse_rfc822_datetime(s)

"""URL dates and tags: <lastmod>, <changefreq> and <priority> of each <url>."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sitemap_tui.engine.model import Entry, Issue
from sitemap_tui.engine.values import CHANGEFREQS, is_xsd_datetime, parse_w3c_datetime
from sitemap_tui.validate.checkstate import (
    _DECIMAL_RE,
    FIRST_WEB_PAGE,
    FUTURE_MARGIN,
    FileContext,
    FileState,
    bump,
    period_before,
)
from sitemap_tui.validate.rules import ERR, INFO, WARN, Fields, Rule, make_issue


def _xsd_zone_word(f: Fields) -> str | None:
    zone = f.get("zone")
    if zone:
        also = " and its time without seconds" if zone == "both" else ""
        return (f"lastmod {f['value']!r} is W3C Datetime but the official XSD rejects its time zone offset"
                f" (beyond ±14:00){also}; use the time in UTC (Z)" + (" with seconds" if also else ""))
    return None


def _changefreq_word(f: Fields) -> str | None:
    """The whitespace named, where the word itself is right (its repr alone hid the fault)."""
    value = f.get("value")
    if isinstance(value, str) and value != value.strip() and value.strip() in CHANGEFREQS:
        return f"changefreq {value!r} has whitespace around {value.strip()!r}: the schema's list of words takes none"
    return None

RULES: tuple[Rule, ...] = (
    Rule(
        id="lastmod-invalid-format",
        scope="url",
        severity=ERR,
        title="lastmod is not W3C Datetime",
        message="lastmod {value!r} is not a W3C Datetime",
        explanation=(
            "`<lastmod>` is not W3C Datetime. Allowed forms: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, "
            "`YYYY-MM-DDThh:mmTZD`, `YYYY-MM-DDThh:mm:ssTZD`, `YYYY-MM-DDThh:mm:ss.sTZD`, where "
            "TZD is `Z`, `+hh:mm` or `-hh:mm`. The calendar value must also be real (no month 13, "
            "no 30 February). Examples of failures: `2024-05-01 10:00:00`, `01/05/2024`, RFC 822 "
            'dates, or a missing TZD when a time is given. Google: "Invalid date".'
        ),
        source=(
            "https://www.w3.org/TR/NOTE-datetime ; https://www.sitemaps.org/protocol.html §XML tag "
            "definitions ; https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping"
        ),
        decided_by=("dates.check_lastmod",),
    ),
    Rule(
        id="lastmod-w3c-but-xsd-invalid",
        scope="url",
        severity=WARN,
        title="lastmod rejected by the official XSD",
        message=(
            "lastmod {value!r} is W3C Datetime but the official XSD rejects it; a full date or a "
            "date-time with seconds is safer"
        ),
        explanation=(
            "The value is valid W3C Datetime, but `sitemap.xsd` (`xsd:date` or `xsd:dateTime`) "
            "rejects it. This happens with `YYYY`, `YYYY-MM`, and `YYYY-MM-DDThh:mmTZD` (no "
            "seconds). Validators that use the official XSD will flag it; a full date (or a "
            "date-time with seconds) is safer. Verified with lxml and libxml2 2.14. The XSD also "
            "refuses a time zone offset beyond ±14:00 (`+15:00`), which W3C Datetime allows."
        ),
        word=_xsd_zone_word,
        source=(
            "https://www.w3.org/TR/NOTE-datetime ; "
            "https://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd"
        ),
        decided_by=("dates.lastmod_findings",),
    ),
    Rule(
        id="lastmod-xsd-valid-but-not-w3c",
        scope="url",
        severity=WARN,
        title="lastmod passes the XSD but is not W3C Datetime",
        message="lastmod {value!r} passes the XSD but is not W3C Datetime: {reason}",
        explanation=(
            "The value passes the XSD but is not W3C Datetime. Cases: a date-time with no time "
            "zone (`2024-05-01T10:00:00`), a date with a time zone (`2024-05-01Z`, "
            "`2024-05-01+02:00`), or years outside 0000–9999. Without a time zone the value is "
            "ambiguous."
        ),
        source=(
            "https://www.w3.org/TR/NOTE-datetime ; "
            "https://blogs.bing.com/webmaster/July-2025/Keeping-Content-Discoverable-with-Sitemaps-in-AI-Powered-Search"
        ),
        decided_by=("dates.lastmod_findings",),
    ),
    Rule(
        id="lastmod-future",
        scope="url",
        severity=WARN,
        title="lastmod in the future",
        message="lastmod {value!r} is in the future",
        explanation=(
            "`<lastmod>` is later than the fetch time plus 24 h (the margin covers time zones). "
            "The value has to match reality, and engines stop trusting lastmod from sites that "
            "overstate it."
        ),
        source=(
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping ; "
            "https://www.sitemaps.org/protocol.html §XML tag definitions"
        ),
        decided_by=("dates.lastmod_findings",),
    ),
    Rule(
        id="lastmod-implausibly-old",
        scope="url",
        severity=WARN,
        title="Implausibly old lastmod",
        message="lastmod {value!r} is before the web existed (1991-08-06); probably an unset value",
        explanation=(
            "`<lastmod>` is before 1991-08-06 (the first public web page), or is a sentinel such "
            "as `1970-01-01`, `1900-01-01`, `0001-01-01` or `1000-01-01`. This is usually an unset "
            "value in a database or a timestamp epoch. (heuristic): the threshold date is our "
            "choice."
        ),
        source=(
            'https://www.sitemaps.org/protocol.html §XML tag definitions ("the date the linked '
            'page was last modified") ; '
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping"
        ),
        decided_by=("dates.lastmod_findings",),
    ),
    Rule(
        id="lastmod-missing",
        sample=True,
        scope="url",
        severity=INFO,
        title="No lastmod",
        message="URLs without <lastmod>: {count:,} of {total:,}",
        explanation=(
            "There is no `<lastmod>`. This is allowed: Google says it is fine to leave it out "
            "where it is not known. But Google and Bing use an accurate lastmod to schedule "
            "recrawls."
        ),
        source=(
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping ; "
            "https://blogs.bing.com/webmaster/July-2025/Keeping-Content-Discoverable-with-Sitemaps-in-AI-Powered-Search"
        ),
        decided_by=("checker",),
    ),
    Rule(
        id="changefreq-invalid",
        scope="url",
        severity=ERR,
        title="Invalid changefreq",
        message=(
            "changefreq {value!r} is not one of always, hourly, daily, weekly, monthly, yearly, "
            "never"
        ),
        explanation=(
            "`<changefreq>` is not one of `always`, `hourly`, `daily`, `weekly`, `monthly`, "
            "`yearly`, `never`. The check is case-sensitive: `Daily` fails the XSD enumeration, "
            "and so does a word with whitespace around it (` daily `): the enumeration is of plain "
            "strings, kept as written."
        ),
        word=_changefreq_word,
        source=(
            "https://www.sitemaps.org/protocol.html §XML tag definitions ; "
            "https://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd"
        ),
        decided_by=("checker", "xsd"),  # (the checker reads the word stripped; the XSD sees the spaces)
    ),
    Rule(
        id="changefreq-ignored",
        sample=True,
        scope="url",
        severity=INFO,
        title="changefreq is ignored by Google and Bing",
        message="URLs with <changefreq>, which Google and Bing ignore: {count:,} of {total:,}",
        explanation="`<changefreq>` is present. Google and Bing both say they ignore it.",
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap ; "
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping ; "
            "https://blogs.bing.com/webmaster/July-2025/Keeping-Content-Discoverable-with-Sitemaps-in-AI-Powered-Search"
        ),
        decided_by=("checker",),
    ),
    Rule(
        id="priority-invalid",
        scope="url",
        severity=ERR,
        title="Invalid priority",
        message="priority {value!r} is not a number from 0.0 to 1.0",
        explanation=(
            "`<priority>` is not a decimal from 0.0 to 1.0 inclusive. Failing examples: `1.5`, "
            "`-0.1`, `high`, `0,5`, empty."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §XML tag definitions ; "
            "https://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd"
        ),
        decided_by=("dates.check_priority",),
    ),
    Rule(
        id="priority-ignored",
        sample=True,
        scope="url",
        severity=INFO,
        title="priority is ignored by Google and Bing",
        message="URLs with <priority>, which Google and Bing ignore: {count:,} of {total:,}",
        explanation="`<priority>` is present. Google and Bing ignore it.",
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap ; "
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping ; "
            "https://blogs.bing.com/webmaster/July-2025/Keeping-Content-Discoverable-with-Sitemaps-in-AI-Powered-Search"
        ),
        decided_by=("checker",),
    ),
)


# -- checks (called by the streaming checker, validate/checker.py) --------------------


def check_lastmod(ctx: FileContext,
    st: FileState,
    entry: Entry,
    line: int | None,
    url: str | None,
    out: list[Issue],
) -> None:
    raw = entry.lastmod_raw
    if raw is None:
        if url is not None:  # (URLs without <lastmod>: an entry without a URL is none)
            bump(st.lastmod_missing, line, url)
        return
    found, dt = lastmod_findings(raw, entry.lastmod, ctx.now, "lastmod-invalid-format")
    for rule, fields in found:
        out.append(make_issue(rule, node_id=ctx.node_id, line=line, url=url, **fields))
    if dt is not None and (st.lastmod_max is None or dt > st.lastmod_max):
        st.lastmod_max = dt

def check_priority(ctx: FileContext,
    st: FileState,
    entry: Entry,
    raw: str,
    line: int | None,
    url: str | None,
    out: list[Issue],
) -> None:
    value = entry.priority
    if value is None:
        s = raw.strip()
        if _DECIMAL_RE.fullmatch(s) is not None:
            f = float(s)
            if 0.0 <= f <= 1.0:
                value = f
    if value is None:
        out.append(
            make_issue("priority-invalid", node_id=ctx.node_id, line=line, url=url, value=raw)
        )


def lastmod_findings(
    raw: str, dt: datetime | None, now: datetime, invalid_rule: str
) -> tuple[list[tuple[str, dict[str, Any]]], datetime | None]:
    """The findings about one ``<lastmod>`` value and the instant it gives (None: invalid).

    The same checks for a ``<url>`` and for an index's ``<sitemap>``; ``invalid_rule`` is the
    rule for a value that is not W3C Datetime (``lastmod-invalid-format``,
    ``index-lastmod-invalid``). A value the XSD accepts but W3C Datetime does not gets only
    the milder lastmod-xsd-valid-but-not-w3c: one fault, one finding. ``dt``: the parser's
    reading of ``raw``, when it has one.
    """
    stripped = raw.strip()
    if stripped != raw:
        dt = None  # surrounding whitespace: not W3C Datetime (the XSD collapses it)
    elif dt is None:
        dt = parse_w3c_datetime(raw)
    if dt is None:
        if not is_xsd_datetime(raw):
            return [(invalid_rule, {"value": raw})], None
        if stripped != raw:
            why = "surrounding whitespace"
        elif "T" in stripped:
            time = stripped.partition("T")[2]
            zoned = time.endswith("Z") or (len(time) > 6 and time[-6] in "+-" and time[-3] == ":")
            if time.startswith("24"):  # the XSD's end of the day; W3C's hours are 00-23
                why = "hour 24 (W3C Datetime's hours are 00-23: the next day's 00:00)"
            elif zoned:
                why = "its time is not W3C Datetime's hh:mm[:ss[.s]]"
            else:
                why = "a time without a time zone is ambiguous"
        elif len(stripped) > 10 and stripped[4] == "-":
            why = "a date cannot carry a time zone"
        else:
            why = "year outside 0000-9999"
        return [("lastmod-xsd-valid-but-not-w3c", {"value": raw, "reason": why})], None
    found: list[tuple[str, dict[str, Any]]] = []
    # W3C-valid: the XSD also accepts YYYY-MM-DD and date-times with seconds and a zone
    # within +-14:00; YYYY, YYYY-MM and hh:mm without seconds it rejects.
    n = len(raw)
    if n != 10 and not (n >= 20 and raw[16] == ":" and _xsd_zone_ok(raw)):
        # a zone beyond +-14:00 is said, not only "seconds are safer" (with seconds it is the
        # only fault; without them, one of two)
        seconds = n >= 20 and raw[16] == ":"
        zone = seconds or (n > 10 and raw[-6:-5] in "+-" and not _xsd_zone_ok(raw))
        fields: dict[str, Any] = {"value": raw}
        if zone:
            fields["zone"] = "seconds" if seconds else "both"
        found.append(("lastmod-w3c-but-xsd-invalid", fields))
    if dt > now + FUTURE_MARGIN:
        found.append(("lastmod-future", {"value": raw}))
    elif period_before(raw, dt, FIRST_WEB_PAGE):  # ("1991" includes dates after the 6th of August)
        found.append(("lastmod-implausibly-old", {"value": raw}))
    return found, dt


def _xsd_zone_ok(raw: str) -> bool:
    """For a W3C date-time with seconds: is its zone within the XSD's +-14:00?"""
    if raw[-1] == "Z":
        return True
    hh, mm = raw[-5:-3], raw[-2:]
    return hh < "14" or (hh == "14" and mm == "00")

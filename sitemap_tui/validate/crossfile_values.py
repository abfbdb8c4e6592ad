"""The cross-file rules over the set's values: ``lastmod-all-identical`` (one instant or
calendar day on nearly every lastmod, per file and over the whole set) and
``priority-all-equal`` (one priority on every URL). They read the store's per-file summaries
(engine.store.crossfile: LASTMOD_SQL, PRIORITY_SQL) and yield the issues."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from sitemap_tui.engine.model import Issue
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.crossfile import CrossFileQueries
from sitemap_tui.validate.registry import make_issue

__all__ = ["fetch_day", "lastmod_identical", "priority_equal"]

LASTMOD_MIN_VALUES = 20  # lastmod-all-identical: only with at least this many lastmods
LASTMOD_SHARE = 0.95  # ... and at least this share on one instant / calendar day
# priority-all-equal: a handful of URLs before "no relative signal" means anything
PRIORITY_MIN_URLS = 5
DAY = 86400


def lastmod_identical(db: CrossFileQueries, fetched: int | None) -> Iterator[Issue]:
    """lastmod-all-identical, per file and then over the set; ``fetched``: the day the
    sitemaps were fetched (:func:`fetch_day`), named when it is the day found."""
    rule = "lastmod-all-identical"
    got = db.side_rows("lastmod")
    rows = sorted(r for r in got if r[0] is not None)
    g = [(day, c) for node_id, day, c, _ in got if node_id is None]
    headers = db.node_last_modified()
    for node_id, top_day, top, total in rows:
        if total < LASTMOD_MIN_VALUES or top < LASTMOD_SHARE * total:
            continue
        share, value = _lastmod_value(db, top_day, top, total, node_id)
        value += _day_notes(top_day, fetched, headers.get(node_id))
        yield make_issue(rule, node_id=node_id, share=share, total=total, value=value)
    if len(rows) < 2:
        return  # the set is one file: already said above
    total = sum(r[3] for r in rows)
    if not g or total < LASTMOD_MIN_VALUES or g[0][1] < LASTMOD_SHARE * total:
        return
    share, value = _lastmod_value(db, g[0][0], g[0][1], total, None)
    value += _day_notes(g[0][0], fetched, None) + f" across all {len(rows)} sitemaps"
    yield make_issue(rule, node_id=db.root_node(), share=share, total=total, value=value)


def _lastmod_value(
    db: CrossFileQueries, day: int, top: int, total: int, node_id: int | None
) -> tuple[float, str]:
    """(share, wording): the same instant when one instant carries the share, else the day."""
    inst = db.lastmod_instant(day, node_id)
    if inst and inst[1] >= LASTMOD_SHARE * total:
        return inst[1] / total, f"the same instant ({(inst[2] or '').strip()})"
    return top / total, f"on the same day ({_day(day)})"


def priority_equal(db: CrossFileQueries) -> Iterator[Issue]:
    """priority-all-equal, per file and then over the set."""
    rule = "priority-all-equal"
    rows = db.side_rows("priority")
    for node_id, n, with_p, lo, hi in rows:
        if n >= PRIORITY_MIN_URLS and with_p == n and lo == hi:
            yield make_issue(rule, node_id=node_id, total=n, value=_fmt_priority(lo))
    if len(rows) < 2:
        return
    n = sum(r[1] for r in rows)
    if (
        n >= PRIORITY_MIN_URLS
        and all(r[2] == r[1] for r in rows)
        and len({r[3] for r in rows} | {r[4] for r in rows}) == 1
    ):
        yield make_issue(
            rule,
            node_id=db.root_node(),
            total=n,
            value=f"{_fmt_priority(rows[0][3])} in all {len(rows)} sitemaps",
        )


def _day(day: int) -> str:
    """A day number (days since 1970-01-01 UTC) as YYYY-MM-DD."""
    try:
        return datetime.fromtimestamp(day * DAY, UTC).strftime("%Y-%m-%d")
    except (OverflowError, OSError, ValueError):
        return f"day {day}"


def _fmt_priority(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{value:.1f}" if value * 10 == int(value * 10) else f"{value:g}"


def fetch_day(store: Store) -> int | None:
    """The day (days since 1970 UTC) the exploration in ``store`` started, if it says."""
    started = store.get_meta("started")
    if not isinstance(started, str):
        return None
    try:
        when = datetime.fromisoformat(started)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp()) // DAY


def _header_day(value: str | None) -> int | None:
    if not value:
        return None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp()) // DAY


def _day_notes(day: int, fetched: int | None, last_modified: str | None) -> str:
    notes = []
    if fetched is not None and day == fetched:
        notes.append("the day the sitemaps were fetched")
    if _header_day(last_modified) == day:
        notes.append("the sitemap's own Last-Modified day")
    return f" ({'; '.join(notes)}: very likely generated)" if notes else ""

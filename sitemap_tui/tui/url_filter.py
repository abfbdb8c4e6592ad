"""The URL table's filter language: what the user types in the filter bar, as an EntryFilter.

Plain words are a substring (or a regex in regex mode); ``re:PATTERN`` a regex;
``lastmod:2024-01..2024-06`` a lastmod range; ``has:issue`` and ``has:image|video|news|hreflang``
narrow further. :func:`row_matches` evaluates a filter on one row in Python (the marks of "all
filtered rows" are shown without a query per row). No Textual here: the widget only calls it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from datetime import UTC, datetime

from sitemap_tui.engine.store import EXTENSIONS, EntryFilter, EntryRow

_PERIOD_RE = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$")
_EXT_ALIASES = {
    "image": "image", "images": "image", "img": "image", "i": "image",
    "video": "video", "videos": "video", "v": "video",
    "news": "news", "n": "news",
    "hreflang": "hreflang", "alternate": "hreflang", "alternates": "hreflang", "alt": "hreflang", "h": "hreflang",
}


def _period(text: str, *, end: bool) -> int:
    """Unix seconds of the start of a YYYY[-MM[-DD]] period (of the next one when ``end``)."""
    m = _PERIOD_RE.match(text)
    if not m:
        raise ValueError(f"bad date {text!r} (use YYYY, YYYY-MM or YYYY-MM-DD)")
    year, month, day = int(m.group(1)), m.group(2), m.group(3)
    try:
        if day is not None:
            start = datetime(year, int(month), int(day), tzinfo=UTC)
            if end:
                return int(start.timestamp()) + 86400
        elif month is not None:
            mo = int(month)
            start = datetime(year, mo, 1, tzinfo=UTC)
            if end:
                nxt = datetime(year + (mo == 12), 1 if mo == 12 else mo + 1, 1, tzinfo=UTC)
                return int(nxt.timestamp())
        else:
            start = datetime(year, 1, 1, tzinfo=UTC)
            if end:
                return int(datetime(year + 1, 1, 1, tzinfo=UTC).timestamp())
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"bad date {text!r}") from exc
    return int(start.timestamp())


@dataclasses.dataclass(slots=True)
class UserFilter:
    """What the filter bar asks for (combined with the scope the app gives in ``show``)."""

    substring: str | None = None
    regex: str | None = None
    lastmod_from: int | None = None
    lastmod_to: int | None = None
    has_issue: bool = False
    extension: str | None = None

    @property
    def empty(self) -> bool:
        return self == UserFilter()


def parse_filter(text: str, *, regex_mode: bool = False) -> UserFilter:
    """Parse the filter bar. Raises ValueError with a message for the user.

    Plain words are a substring (or a regex in regex mode); ``re:PATTERN`` is a regex;
    ``lastmod:2024-01..2024-06`` (either end may be left out; ``lastmod:2024-03`` is one month)
    a lastmod range; ``has:issue`` and ``has:image|video|news|hreflang`` narrow further."""
    uf = UserFilter()
    plain: list[str] = []
    for tok in text.split():
        low = tok.lower()
        if low.startswith("re:"):
            if tok[3:]:
                uf.regex = tok[3:]
        elif low.startswith("lastmod:"):
            spec = tok[len("lastmod:") :]
            if ".." in spec:
                a, b = spec.split("..", 1)
                uf.lastmod_from = _period(a, end=False) if a else None
                uf.lastmod_to = _period(b, end=True) if b else None
            elif spec:
                uf.lastmod_from = _period(spec, end=False)
                uf.lastmod_to = _period(spec, end=True)
        elif low.startswith("has:"):
            what = low[4:]
            if what in ("issue", "issues", "!"):
                uf.has_issue = True
            elif what in _EXT_ALIASES:
                uf.extension = _EXT_ALIASES[what]
            else:
                raise ValueError(f"has:{what}? use has:issue, has:image, has:video, has:news or has:hreflang")
        else:
            plain.append(tok)
    words = " ".join(plain)
    if words:
        if regex_mode:
            if uf.regex:
                raise ValueError("regex mode and re: together; use one")
            uf.regex = words
        else:
            uf.substring = words
    if uf.regex is not None:
        try:
            re.compile(uf.regex)
        except re.error as exc:
            raise ValueError(f"bad regex: {exc}") from exc
    return uf


def combine(scope: EntryFilter, user: UserFilter) -> EntryFilter:
    """The scope from the app narrowed by the user's filter-bar criteria."""
    f = dataclasses.replace(scope)
    if user.substring:
        f.substring = user.substring
    if user.regex:
        f.regex = user.regex
    if user.lastmod_from is not None:
        f.lastmod_from = user.lastmod_from if f.lastmod_from is None else max(f.lastmod_from, user.lastmod_from)
    if user.lastmod_to is not None:
        f.lastmod_to = user.lastmod_to if f.lastmod_to is None else min(f.lastmod_to, user.lastmod_to)
    f.has_issue = f.has_issue or user.has_issue
    if user.extension:
        f.extension = user.extension
    return f


def row_matches(
    flt: EntryFilter,
    row: EntryRow,
    rule_check: Callable[[int, str], bool] | None = None,
    sets: tuple[frozenset[int] | None, frozenset[int] | None] | None = None,
) -> bool:
    """The filter evaluated in Python on one row (to show "all filtered" marks).

    ``sets``: the filter's node_ids and entry_ids as frozensets, when the caller keeps them."""
    nodes, ids = sets if sets is not None else (
        None if flt.node_ids is None else frozenset(flt.node_ids),
        None if flt.entry_ids is None else frozenset(flt.entry_ids),
    )
    if nodes is not None and row.node_id not in nodes:
        return False
    if ids is not None and row.id not in ids:
        return False
    loc = row.loc
    if flt.substring and (loc is None or flt.substring not in loc):
        return False
    if flt.regex and (loc is None or re.search(flt.regex, loc) is None):
        return False
    if flt.lastmod_from is not None and (row.lastmod is None or row.lastmod < flt.lastmod_from):
        return False
    if flt.lastmod_to is not None and (row.lastmod is None or row.lastmod >= flt.lastmod_to):
        return False
    if flt.has_issue and not row.n_issues:
        return False
    if flt.extension and not getattr(row, EXTENSIONS[flt.extension]):
        return False
    return not (flt.rule and rule_check is not None and not rule_check(row.id, flt.rule))

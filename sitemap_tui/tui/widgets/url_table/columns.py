"""What the URL grid's columns are called, how wide they are at a width, and each cell's text.

Columns are named in words and dropped by priority when the pane is narrow (the URL always
stays, and so does the column the rows are sorted on). URLs drop the origin they share with
the exploration's root and are elided in the middle, so the last path segment stays visible.
Dates are shown from the parsed value, the same way whatever format the sitemap used (W3C
datetime, RSS/Atom dates); an unparseable one is shown raw (and styled as invalid).
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from urllib.parse import urlsplit

from rich.cells import cell_len, set_cell_size

from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store import EntryRow
from sitemap_tui.engine.store.audit_filters import canonical_kind
from sitemap_tui.engine.store.rows import AuditCells

MARK_W = 2
URL_MIN = 24
URL_SHARE = 0.4
"""The URL column keeps at least URL_MIN cells and this share of the width: the other columns
are dropped first."""


@dataclasses.dataclass(frozen=True, slots=True)
class Column:
    key: str  # a cell kind (see :func:`cell_text`)
    title: str
    width: int  # the title is shortened to ``short`` when it does not fit
    short: str
    sort: str | None  # the sort order this column shows, if any


# (key, title, short title, width at a narrow width, width at a wide one, sort) in the order
# columns are kept when space runs out: the URL first, then the most telling columns
OPTIONAL = (
    ("lastmod", "Last modified", "Modified", 10, 16, "lastmod"),
    ("issues", "Issues", "Issues", 7, 8, "issues"),
    ("ext", "Extensions", "Extensions", 14, 24, "ext"),
    ("priority", "Priority", "Priority", 9, 10, "priority"),
    ("changefreq", "Change freq", "Freq", 11, 11, "changefreq"),
    ("sitemap", "Sitemap", "Sitemap", 16, 20, "sitemap"),
)
# the audit's columns (engine.store.audit_filters), shown only when the store has results, in
# the order they are kept: at 80 columns status and indexable fit beside the URL; beside the
# tree at 200 columns reason and canonical too (what an audit is read for: canonical came last
# and never fitted there), then time and blocked-for where there is room; every audit field is
# in the detail panel (Enter). Before the sitemap's own optional columns (see :func:`layout`).
AUDIT_OPTIONAL = (
    ("status", "Status", "St", 8, 8, "status"),
    ("indexable", "Indexable", "Idx", 4, 11, "indexable"),
    ("reason", "Reason", "Reason", 16, 24, "reason"),
    ("canonical", "Canonical", "Canon", 16, 28, "canonical"),
    ("time", "Time", "Time", 6, 7, "time"),
    ("blocked", "Blocked for", "Blocked", 14, 22, "blocked"),
)
AUDIT_KEYS = tuple(c[0] for c in AUDIT_OPTIONAL)
WIDE = 140
"""From this many cells on, columns take their wide widths (dates with the time of day)."""
SORT_NAMES = {
    "id": "file order", "loc": "URL", "lastmod": "last modified", "priority": "priority",
    "issues": "issues", "sitemap": "sitemap", "ext": "extensions", "changefreq": "change frequency", "status": "status", "indexable": "indexable",
    "reason": "reason", "time": "response time", "blocked": "blocked for", "canonical": "canonical",
}
LEGEND = (
    "Extensions: img = images (image:image), alt = alternate links (xhtml:link, hreflang), "
    "video = video:video, news = news:news. Issues: findings on the URL. "
    "Last modified in UTC. s: sort by the next column, S: reverse the order (▲ ascending, ▼ descending). "
    "Audit columns (after sitemap-tui audit / access): final status (↪ after a redirect), indexable, reason, "
    "response time, crawlers robots.txt blocks, canonical; – not audited. Enter shows every audit field."
)


def layout(width: int, sort: str, audit: frozenset[str] = frozenset()) -> list[Column]:
    """The columns shown in ``width`` cells (the URL column takes what is left); ``audit``: the
    audit columns the store has data for (none: hidden, the sitemap's columns keep their room)."""
    wide = width >= WIDE
    chosen: list[tuple[int, Column]] = []
    left = width - MARK_W - max(URL_MIN, int(width * URL_SHARE))
    # with audit results, status and indexable come first (a narrow pane shows them beside the
    # URL), the other audit columns after lastmod and issues
    shown = [c for c in AUDIT_OPTIONAL if c[0] in audit]
    # (by key, not the first two shown: with the crawler access alone, blocked-for was taken
    # first and left 80 columns without the lastmod)
    first = [c for c in shown if c[0] in ("status", "indexable")]
    optional = [*first, *OPTIONAL[:2], *[c for c in shown if c not in first], *OPTIONAL[2:]]
    # the sorted column first, then by priority: the order rows are in is always visible
    order = sorted(range(len(optional)), key=lambda i: (optional[i][5] != sort, i))
    for i in order:
        key, title, short, narrow_w, wide_w, col_sort = optional[i]
        w = wide_w if wide else narrow_w
        if w + 1 <= left:
            chosen.append((i, Column(key, title, w, short, col_sort)))
            left -= w + 1
    url_w = max(1, width - MARK_W - sum(c.width + 1 for _, c in chosen))
    return [Column("url", "URL", url_w, "URL", "loc")] + [c for _, c in sorted(chosen, key=lambda t: t[0])]


def header(columns: list[Column], sort: str, descending: bool) -> str:
    """Column titles; the sorted one carries ▲ (ascending) or ▼ (descending)."""
    arrow = "▼" if descending else "▲"
    parts = []
    for c in columns:
        # room for the arrow only on the sorted column ("Change freq" fills its own)
        room = c.width - (2 if c.sort == sort else 0)
        title = c.title if cell_len(c.title) <= room else c.short
        if c.sort == sort:
            # the arrow after the title, or before it (no space) in a narrow column
            title = f"{title} {arrow}" if cell_len(title) + 2 <= c.width else arrow + title
        elif c.key == "url" and sort == "id":
            title += f" (file order {arrow})"
        parts.append(fit(title, c.width))
    return " " * MARK_W + " ".join(parts)


def origin_of(url: str | None) -> str | None:
    """``scheme://host[:port]`` of a URL, lower-cased (None when it has none)."""
    if not url:
        return None
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return None
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def url_text(loc: str | None, origin: str | None, width: int) -> str:
    """The URL as shown in ``width`` cells: without ``origin`` when it shares it (else with
    its own), elided in the middle so that its last path segment stays visible."""
    text = display(loc, 4096)
    own = origin_of(loc)
    if origin and loc and own == origin:
        rest = text[len(origin):]
        return elide_middle(rest if rest.startswith("/") else "/" + rest, width)
    # another host keeps its host in the head
    return elide_middle(text, width, keep_head=len(own) if own else 0)


def elide_middle(text: str, width: int, keep_head: int = 0) -> str:
    """``text`` cut to ``width`` cells with a "…" in the middle: the tail keeps the last path
    segment (or as much of its end as fits), the head at least ``keep_head`` cells (up to half
    the width) or, without one, the path's first segment (up to a third: /en, /de or /news is
    often all that tells two rows apart), and the head takes what is left."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text
    if width == 1:
        return "…"
    stripped = text.rstrip("/")
    cut = stripped.rfind("/")
    tail = text[cut:] if cut > 0 else text[-(width // 2):]
    room = width - 1  # the ellipsis takes one cell
    if keep_head:
        head_min = min(keep_head, room // 2)
    else:
        first = text.find("/", 1)
        head_min = min(cell_len(text[:first]) if first > 0 else 0, room // 3)
    if head_min < 2 and cell_len(tail) >= room:
        return "…" + tail_cells(tail, room)
    # the tail keeps its segment and at least half the room, less the head's least
    tail_w = min(max(cell_len(tail), room // 2), room - max(head_min, 1))
    return set_cell_size(text, room - tail_w) + "…" + tail_cells(text, tail_w)


def tail_cells(text: str, n: int) -> str:
    """The end of ``text`` that fits ``n`` cells."""
    out: list[str] = []
    used = 0
    for ch in reversed(text):
        w = cell_len(ch)
        if used + w > n:
            break
        out.append(ch)
        used += w
    return "".join(reversed(out))


def extensions_text(row: EntryRow) -> str:
    """Extension counts in words: ``2 img · 3 alt · 1 video · news`` ("" when none)."""
    parts = []
    if row.n_images:
        parts.append(f"{row.n_images} img")
    if row.n_alternates:
        parts.append(f"{row.n_alternates} alt")
    if row.n_videos:
        parts.append(f"{row.n_videos} video" + ("s" if row.n_videos > 1 else ""))
    if row.n_news:
        parts.append("news" if row.n_news == 1 else f"{row.n_news} news")
    return " · ".join(parts)


def lastmod_text(row: EntryRow, width: int) -> str:
    """The parsed lastmod in UTC (the date; with the time of day when it has one and there is
    room), the raw text when it could not be parsed, "—" when missing."""
    if row.lastmod is not None:
        try:
            dt = datetime.fromtimestamp(row.lastmod, UTC)
        except (OverflowError, OSError, ValueError):
            return display(row.lastmod_raw, width + 1)
        if width >= 16 and (dt.hour, dt.minute, dt.second) != (0, 0, 0):
            return dt.strftime("%Y-%m-%d %H:%M")
        return dt.strftime("%Y-%m-%d")
    if row.lastmod_raw is not None:
        return display(row.lastmod_raw, width + 1)
    return "—"


def sitemap_name(url: str | None) -> str:
    """A sitemap's file name (its last path segment), for the narrow Sitemap column."""
    if not url:
        return ""
    path = urlsplit(url).path.rstrip("/")
    return display(path.rsplit("/", 1)[-1] or url, 200)


def fit(s: str, width: int) -> str:
    """``s`` padded or cut (with an ellipsis) to exactly ``width`` cells."""
    if width <= 0:
        return ""
    n = cell_len(s)
    if n <= width:
        return s + " " * (width - n)
    return set_cell_size(s, width - 1) + "…"


def status_text(cells: AuditCells) -> str:
    """The final status, ↪ before it after a redirect; "none" for no answer."""
    if cells.status is None:
        return "↪" if cells.redirects else "none"
    return ("↪" if cells.redirects else "") + str(cells.status)


def reason_text(cells: AuditCells) -> str:
    """The verdict's reason without its "non-indexable: " prefix (the Indexable column says it)."""
    reason = cells.reason or ""
    return reason.removeprefix("non-indexable: ")


def time_text(cells: AuditCells) -> str:
    return "" if cells.response_time is None else f"{cells.response_time * 1000:.0f}ms"


def blocked_text(cells: AuditCells) -> str:
    """The crawlers robots.txt disallows, "?" when its robots.txt was not read."""
    if not cells.access_known:
        return "?"
    return ", ".join(cells.blocked)


def canonical_text(cells: AuditCells, origin: str | None, width: int) -> str:
    """"self" for a canonical naming the URL itself, else the canonical URL as the URL column shows one."""
    if cells.canonical is None:
        return ""
    if canonical_kind(cells) == "self":
        return "self"
    return url_text(cells.canonical, origin, width)

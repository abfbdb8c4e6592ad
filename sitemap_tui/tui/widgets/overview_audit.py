"""The Overview's audit sections (issue 22 §2, §3, §4): "Indexability" (indexable, and non-indexable
by reason), "Crawler access" (per crawler, the URLs robots.txt allows and disallows) and
"Coverage" (after ``audit --crawl`` / ``--compare-list``: pages missing from the sitemaps,
orphans, listed URLs not in the user's list), for the selection's sitemaps, shown only once an
audit, the access table or a crawl / list has data for them.

Every row is a drill-through: Enter lists its URLs in the URL table with the filter words the
table answers to (STATUS.md's contract: ``indexable:no``, ``reason:noindex``, ``status:404``,
``blocked:GPTBot``, ``orphan:yes``, ``coverage:missing``, ...); the counts come from
engine/store (audit.py INDEXABILITY, access.py, coverage_filters.py).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from rich.text import Text

from sitemap_tui.engine.store.access import AccessCounts, stored_counts
from sitemap_tui.engine.store.audit import IndexabilityCounts, indexability_counts
from sitemap_tui.engine.store.coverage_filters import CoverageCounts, coverage_overview
from sitemap_tui.tui.widgets.drill_list import DrillRow
from sitemap_tui.words import plural

# (INDEXABILITY key, label, filter text, style): the rows in this order, only those with URLs
_ROWS: tuple[tuple[str, str, str, str], ...] = (
    ("indexable", "indexable", "indexable:yes", "green"),
    ("non-indexable", "non-indexable", "indexable:no", "yellow"),
    ("404", "  404 not found", "reason:404", "red"),
    ("redirect", "  3xx redirect", "reason:redirect", "yellow"),
    ("noindex", "  noindex", "reason:noindex", "yellow"),
    ("canonical", "  canonicalised", "reason:canonical", "yellow"),
    ("robots", "  blocked by robots.txt", "reason:robots", "yellow"),
    ("not-html", "  not HTML", "reason:not-html", "dim"),
    ("error", "  error, other status", "reason:error", "red"),
)
_LABEL = max(len(label) for _, label, _, _ in _ROWS) + 1


@dataclass(frozen=True, slots=True)
class AuditOverview:
    indexability: IndexabilityCounts | None
    access: AccessCounts | None
    coverage: CoverageCounts | None = None


def fetch_audit(conn: sqlite3.Connection, file_ids: list[int]) -> AuditOverview | None:
    """What the store holds for these sitemaps (on the pane's worker thread); None: nothing."""
    found = AuditOverview(indexability_counts(conn, file_ids), stored_counts(conn, file_ids),
                          coverage_overview(conn, file_ids))
    return None if found == AuditOverview(None, None, None) else found


def audit_rows(data: AuditOverview | None) -> list[DrillRow]:
    """The two sections as drill rows; [] when neither has data."""
    if data is None:
        return []
    rows: list[DrillRow] = []
    if data.indexability is not None:
        rows += _indexability(data.indexability)
    if data.access is not None:
        rows += ([DrillRow(Text(""), None)] if rows else []) + _access(data.access)
    if data.coverage is not None:
        rows += ([DrillRow(Text(""), None)] if rows else []) + coverage_rows(data.coverage)
    return rows


def _indexability(c: IndexabilityCounts) -> list[DrillRow]:
    head = Text("Indexability", style="bold")
    head.append(f"   {c.audited:,} of {plural(c.listed, 'listed URL')} audited", style="dim")
    if c.unfetchable:
        head.append(f", {c.unfetchable:,} no fetchable URL", style="yellow")
    if c.skipped:  # (no verdict: robots.txt lets Googlebot in, not this tool)
        head.append(f", {c.skipped:,} not fetched: robots.txt shuts sitemap-tui out", style="yellow")
    if c.more:
        head.append(" (u goes on)", style="dim italic")
    elif c.audited + c.skipped < c.listed - c.unfetchable:
        head.append(", the rest on other hosts", style="dim")
    rows = [DrillRow(head, None)]
    width = max(len(f"{n:,}") for n in (*c.groups.values(), c.skipped))
    for key, label, filter_text, style in _ROWS:
        n = c.groups.get(key, 0)
        if not n and key not in ("indexable", "non-indexable"):
            continue
        text = Text(no_wrap=True, end="")
        text.append(label.ljust(_LABEL), style=style if n else "dim")
        text.append(f"{n:,}".rjust(width))
        text.append(f" {n / c.audited:.0%}".rjust(5) if c.audited else "", style="dim")
        rows.append(DrillRow(text, filter_text if n else None, f"{label.strip()} ({plural(n, 'URL')})"))
    if c.skipped:  # no verdict, so no share of the audited: its own row, to list them
        text = Text(no_wrap=True, end="")
        text.append("skipped: robots.txt".ljust(_LABEL), style="yellow")
        text.append(f"{c.skipped:,}".rjust(width))
        rows.append(DrillRow(text, "status:skipped", f"not fetched: robots.txt shuts sitemap-tui out"
                                                     f" ({plural(c.skipped, 'URL')})"))
    return rows


def _access(c: AccessCounts) -> list[DrillRow]:
    """One row per crawler: Enter lists its disallowed URLs, or its allowed ones when it has none."""
    head = Text("Crawler access", style="bold")
    if c.listed is not None and c.listed > c.urls:
        # (found by a review: after x the table counted 120,000 of 149,000 URLs, unsaid)
        head.append(f"   by robots.txt: {c.urls:,} of {plural(c.listed, 'listed URL')} judged", style="dim")
        head.append("; the rest: Crawler access, in the palette", style="yellow")
    else:
        head.append(f"   by robots.txt: {plural(c.urls, 'listed URL')}", style="dim")
    if c.unknown and c.unknown >= c.urls:
        # (a local folder, a site without robots.txt read): nine rows of zeros would say nothing
        head.append(", all unknown: no robots.txt read for their origin", style="yellow")
        return [DrillRow(head, None)]
    if c.unknown:
        head.append(f", {c.unknown:,} unknown (no robots.txt read)", style="yellow")
    name_w = max(len(a) for a in c.agents) + 1
    num_w = max(len(f"{c.urls:,}"), len("disallowed"))
    columns = Text(" " * name_w + "allowed".rjust(num_w) + "  " + "disallowed".rjust(num_w), style="dim")
    rows = [DrillRow(head, None), DrillRow(columns, None)]
    for i, agent in enumerate(c.agents):
        blocked, allowed = c.blocked[i], c.allowed(i)
        text = Text(no_wrap=True, end="")
        text.append(agent.ljust(name_w), style="bold" if blocked else "")
        text.append(f"{allowed:,}".rjust(num_w), style="green" if allowed else "dim")
        text.append("  ")
        text.append(f"{blocked:,}".rjust(num_w), style="red" if blocked else "dim")
        if blocked:
            rows.append(DrillRow(text, f"blocked:{agent}", f"disallowed for {agent} ({plural(blocked, 'URL')})"))
        else:
            rows.append(DrillRow(text, f"allowed:{agent}" if allowed else None,
                                 f"allowed for {agent} ({plural(allowed, 'URL')})"))
    return rows


def coverage_rows(c: CoverageCounts) -> list[DrillRow]:
    """"Coverage": pages missing from the sitemaps (the whole site's: they are in none), the
    selection's orphans (after a crawl) and URLs not in the user's list (after a list)."""
    head = Text("Coverage", style="bold")
    parts = (["link crawl"] if c.crawled else []) + (["URL list"] if c.listed else [])
    head.append(f"   {' and '.join(parts)}", style="dim")
    rows = [DrillRow(head, None)]
    wanted = [("Missing from sitemaps", c.missing, "coverage:missing", "indexable pages in no sitemap")]
    if c.crawled:
        wanted.append(("Orphans", c.orphans, "orphan:yes", "listed URLs no crawled page links to"))
    if c.listed:
        wanted.append(("Not in your list", c.not_in_list, "coverage:not-in-list", "listed URLs your list lacks"))
    label_w = max(len(label) for label, *_ in wanted) + 1
    width = max(len(f"{n:,}") for _, n, *_ in wanted)
    for label, n, filter_text, what in wanted:
        text = Text(no_wrap=True, end="")
        text.append(label.ljust(label_w), style="yellow" if n else "dim")
        text.append(f"{n:,}".rjust(width))
        rows.append(DrillRow(text, filter_text if n else None, f"{what} ({plural(n, 'URL')})"))
    return rows

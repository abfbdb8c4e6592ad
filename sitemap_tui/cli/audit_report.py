"""``sitemap-tui audit``'s output: one record per audited URL (JSON Lines, CSV) or a text summary
grouped as Screaming Frog's sitemap audit groups its counts, with a few samples each."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

from sitemap_tui.cli.parser import AUDIT_SUMMARY_KEYS
from sitemap_tui.engine.access import DEFAULT_AGENTS, compute
from sitemap_tui.engine.formats import csv_cell
from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store.access import AccessCounts, AccessTable, access_robots
from sitemap_tui.engine.store.audit import AuditRecord
from sitemap_tui.engine.store.schema import connect

FIELDS = (
    "loc", "sitemap", "status", "final_url", "redirects", "indexable", "reason", "canonical",
    "blocked_for", "lastmod", "last_modified", "content_type", "response_time", "robots", "error", "note",
)
SUMMARY_KEYS = AUDIT_SUMMARY_KEYS
_TITLES = (
    ("non_indexable", "Non-indexable URLs in sitemap"),
    ("multiple_sitemaps", "URLs in multiple sitemaps"),
    ("redirects", "Redirects (3xx)"),
    ("client_errors", "Client errors (4xx)"),
    ("server_errors", "Server errors (5xx)"),
    ("other_status", "Other status (not 200)"),
    ("noindex", "Noindex"),
    ("canonicalised", "Canonicalised"),
    ("blocked", "Blocked by robots.txt"),
    ("not_html", "Not HTML"),
    ("timeouts", "Timeouts"),
    ("no_response", "No response"),
)


def record(r: AuditRecord) -> dict[str, Any]:
    row = r.row
    return {
        "loc": row.loc, "sitemap": r.sitemap, "status": row.status, "final_url": row.final_url,
        "redirects": row.redirects, "indexable": row.indexable, "reason": row.reason,
        "canonical": row.canonical, "blocked_for": row.blocked_for, "lastmod": r.lastmod,
        "last_modified": row.last_modified, "content_type": row.content_type,
        "response_time": None if row.response_time is None else round(row.response_time, 4),
        "robots": row.robots, "error": row.error, "note": row.note,
    }


def write_jsonl(records: Iterable[AuditRecord], out: IO[str]) -> None:
    for r in records:
        out.write(json.dumps(record(r)) + "\n")


def write_csv(records: Iterable[AuditRecord], out: IO[str]) -> None:
    w = csv.writer(out, lineterminator="\n")
    w.writerow(FIELDS)
    for r in records:
        rec = record(r)
        w.writerow([csv_cell(rec[f]) for f in FIELDS])


def write_text(target: str, counts: Mapping[str, int], samples: Mapping[str, list[tuple[str, str]]],
               out: IO[str]) -> None:
    out.write(f"Audit of {display(target)}: {counts['listed']} URLs listed, {counts['audited']} audited, "
              f"{counts['indexable']} indexable, {counts['non_indexable']} non-indexable\n")
    if counts["not_audited"]:
        out.write(f"Not audited: {counts['not_audited']} (sampled out, on other hosts, no fetchable URL, robots.txt shutting this tool out alone, or the run was stopped)\n")
    for key, title in _TITLES:
        n = counts[key]
        out.write(f"\n{title}: {n}\n")
        shown = samples.get(key, [])
        for loc, reason in shown:
            out.write(f"  {display(loc)}  {display(reason)}\n")
        if n > len(shown) and shown:
            out.write(f"  ... {n - len(shown)} more\n")


def access_counts(path: Path) -> AccessCounts | None:
    """The whole exploration's crawler matrix, from the robots.txt files the store keeps (the
    audit keeps the ones it read itself), computed as ``sitemap-tui access FILE.db`` does: in a
    TEMP table of a read-only connection, the store unchanged (the explorer computes its own).
    None when no robots.txt was kept to judge by."""
    conn = connect(path, readonly=True)
    try:
        if not access_robots(conn):
            return None
        table = AccessTable(conn, temp=True)
        compute(table, DEFAULT_AGENTS)
        return table.counts(DEFAULT_AGENTS)
    finally:
        conn.close()


def write_access(c: AccessCounts, out: IO[str], distinct: int | None = None) -> None:
    """The crawler table: per crawler, the listed URLs robots.txt allows and disallows. It
    counts listings (a URL in two sitemaps twice, as `access` does): when that is not the
    report's count of URLs (``distinct``), it says so (34 URLs above, 35 here, unexplained)."""
    what = f"{c.urls:,} listed URL{'s' if c.urls != 1 else ''}"
    if distinct is not None and distinct != c.urls:
        what = f"{c.urls:,} listings of the {distinct:,} URLs (a URL in several sitemaps counts in each)"
    out.write(f"\nCrawler access (robots.txt) of {what}\n")
    if c.unknown:
        out.write(f"  {c.unknown:,} unknown: no robots.txt read for their origin\n")
    width = max(len(a) for a in c.agents)
    out.write(f"{'crawler':<{width}}  {'allowed':>10}  {'disallowed':>10}\n")
    for i, agent in enumerate(c.agents):
        out.write(f"{agent:<{width}}  {c.allowed(i):>10,}  {c.blocked[i]:>10,}\n")

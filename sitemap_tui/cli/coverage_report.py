"""``audit --compare-list`` / ``--crawl`` output: the text summary's coverage sections, and with
them one JSON Lines / CSV record per URL (of the sitemaps, the list or the crawl) carrying the
audit's fields plus ``in_sitemaps``, ``in_list``, ``linked_from`` and ``orphan``. A field of a
part that did not run is null (empty in CSV): no list, no ``in_list``; no crawl, no orphan."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Mapping
from typing import IO, Any

from sitemap_tui.cli.audit_report import FIELDS as AUDIT_FIELDS
from sitemap_tui.cli.audit_report import record as audit_record
from sitemap_tui.engine.formats import csv_cell
from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.audit import AuditRecord
from sitemap_tui.engine.store.coverage import (
    coverage_counts,
    coverage_records,
    coverage_samples,
    sitemap_coverage,
)

FIELDS = (*AUDIT_FIELDS, "in_sitemaps", "in_list", "linked_from", "orphan")


def counts(store: Store, *, listed: bool, crawl: bool) -> dict[str, int]:
    return coverage_counts(store, listed=listed, crawl=crawl)


def records(store: Store, *, listed: bool, crawl: bool) -> Iterator[dict[str, Any]]:
    for r in coverage_records(store):
        if r.audit is not None:  # (a page of no sitemap fetched by the list or the crawl has one too)
            rec = audit_record(AuditRecord(r.audit, r.sitemap, r.lastmod))
            rec.update(loc=r.loc, sitemap=r.sitemap or None)
        else:
            rec = dict.fromkeys(AUDIT_FIELDS)
            rec.update(loc=r.loc, sitemap=r.sitemap or None, lastmod=r.lastmod, status=r.status,
                       indexable=r.indexable, reason=r.reason, note=r.note)
        rec["in_sitemaps"] = r.in_sitemaps
        rec["in_list"] = r.in_list if listed else None
        rec["linked_from"] = r.linked_from if crawl else None
        rec["orphan"] = (r.in_sitemaps and r.linked_from == 0 and not r.crawl_start) if crawl else None
        yield rec


def write(fmt: str, store: Store, *, listed: bool, crawl: bool, out: IO[str]) -> None:
    if fmt == "jsonl":
        for rec in records(store, listed=listed, crawl=crawl):
            out.write(json.dumps(rec) + "\n")
        return
    w = csv.writer(out, lineterminator="\n")
    w.writerow(FIELDS)
    for rec in records(store, listed=listed, crawl=crawl):
        w.writerow([csv_cell(rec[f]) for f in FIELDS])


def _section(out: IO[str], title: str, n: int, shown: list[str]) -> None:
    out.write(f"\n{title}: {n}\n")
    for loc in shown:
        out.write(f"  {display(loc)}\n")
    if n > len(shown) and shown:
        out.write(f"  ... {n - len(shown)} more\n")


def write_text(store: Store, c: Mapping[str, int], limit: int, *, listed: bool, crawl: bool,
               crawl_cap: int | None, out: IO[str]) -> None:
    samples = coverage_samples(store, limit, listed=listed, crawl=crawl)
    out.write("\nWhat is missing from the sitemaps\n")
    if listed:
        out.write(f"URL list: {c['list_urls']} URLs, {c['list_in_sitemaps']} of them in the sitemaps\n")
    if crawl:
        out.write(f"Crawl: {c['crawled']} pages crawled from the home page (at most {crawl_cap})"
                  + (f", {c['crawl_queued']} found pages not crawled (the cap)" if c["crawl_queued"] else "")
                  + (f", {c['crawl_robots']} disallowed by robots.txt" if c["crawl_robots"] else "") + "\n")
    _section(out, "Indexable pages in no sitemap", c["missing_from_sitemaps"], samples["missing_from_sitemaps"])
    if c["unlisted_not_judged"]:
        out.write(f"  ({c['unlisted_not_judged']} more URLs in no sitemap were not fetched: indexability unknown)\n")
    if listed:
        _section(out, "Sitemap URLs not in the list", c["not_in_list"], samples["not_in_list"])
        out.write("\nCoverage per sitemap (its URLs present in the list):\n")
        for url, n, present in sitemap_coverage(store):
            out.write(f"  {display(url)}  {present}/{n} ({100 * present / n:.0f}%)\n")
    if crawl and not c["crawled"]:
        out.write("\nOrphans: not judged, no page was crawled\n")
    elif crawl:
        _section(out, f"Orphans (listed URLs not linked from the {c['crawled']} crawled pages)", c["orphans"],
                 samples["orphans"])

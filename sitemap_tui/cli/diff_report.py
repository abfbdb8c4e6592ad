"""The report of ``sitemap-tui diff``: a text summary (counts first, then samples, like
``git diff --stat``), JSON (a ``summary`` object of integer counts beside the full lists),
JSON Lines and CSV (one change a record) and GitHub annotations. Lists are streamed from the
comparison's tables, never held whole."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import IO, Any, Protocol

from sitemap_tui.engine.formats import neutralise_cell
from sitemap_tui.engine.sanitize import display
from sitemap_tui.session.diff import EXTENSION_KINDS, Diff, unlike_checks
from sitemap_tui.validate.report import escape_data, escape_property
from sitemap_tui.words import plural

FORMATS = ("text", "json", "jsonl", "csv", "github")
CSV_COLUMNS = ("change", "url", "sitemap", "old", "new", "detail")
JSON_LISTS = ("sitemaps", "urls_added", "urls_removed", "urls_moved", "lastmod_changed", "changefreq_changed",
              "priority_changed", "extensions_changed", "issues_new", "issues_resolved")
LIST_OF = {"url_added": "urls_added", "url_removed": "urls_removed", "url_moved": "urls_moved",
           "lastmod_changed": "lastmod_changed", "changefreq_changed": "changefreq_changed",
           "priority_changed": "priority_changed", "extension_changed": "extensions_changed",
           "issue_new": "issues_new", "issue_resolved": "issues_resolved"}
"""The JSON report's lists, in order, and the list of each record's ``change``."""


class SourceLike(Protocol):
    """How the report names a side (cli.diff.Source)."""

    @property
    def label(self) -> str: ...
    @property
    def raw(self) -> str: ...
    @property
    def saved(self) -> bool: ...
    @property
    def checks(self) -> str | None: ...
    @property
    def command(self) -> str | None: ...


def _iso(ts: int | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


def records(diff: Diff, limit: int | None = None) -> Iterator[dict[str, Any]]:
    """Every change as one flat record (``change`` names its kind), in the order of the lists;
    ``limit`` caps each list."""
    q = diff.queries
    for s in diff.sitemaps:
        if s.status != "same":
            yield {"change": f"sitemap_{s.status}", "sitemap": s.key, "old_url": s.old_url, "new_url": s.new_url,
                   "old_state": s.old_state, "new_state": s.new_state, "old_urls": s.old_urls, "new_urls": s.new_urls,
                   "urls_added": s.urls_added, "urls_removed": s.urls_removed, "error": s.error,
                   "unlisted_by": s.unlisted_by, "unlisted_state": s.unlisted_state}
    for table, change in (("added", "url_added"), ("removed", "url_removed")):
        for key, loc, fk in q.urls(table, limit):
            yield {"change": change, "url": key, "loc": loc, "sitemap": fk}
    for key, ofk, nfk in q.moved(limit):
        yield {"change": "url_moved", "url": key, "from": ofk, "to": nfk}
    for key, direction, old_raw, new_raw, old_ts, new_ts, fk in q.lastmod(limit=limit):
        yield {"change": "lastmod_changed", "url": key, "direction": direction, "old": old_raw, "new": new_raw,
               "old_utc": _iso(old_ts), "new_utc": _iso(new_ts), "sitemap": fk}
    for what in ("changefreq", "priority"):
        for key, old_raw, new_raw, fk in q.attrs(what, limit):
            yield {"change": f"{what}_changed", "url": key, "old": old_raw, "new": new_raw, "sitemap": fk}
    for key, kind, added, removed, fk in q.extensions(limit=limit):
        yield {"change": "extension_changed", "url": key, "kind": kind, "added": added, "removed": removed,
               "sitemap": fk}
    for new, change in ((True, "issue_new"), (False, "issue_resolved")):
        for rule, severity, fk, uk, count, message in q.issues(new, limit):
            yield {"change": change, "rule": rule, "severity": severity, "sitemap": fk or None, "url": uk or None,
                   "count": count, "message": message}


def _source(src: SourceLike, totals: tuple[int, int], target: str | None) -> dict[str, Any]:
    return {"source": src.raw, "saved": src.saved, "target": target, "files": totals[0], "urls": totals[1]}


def _json(diff: Diff, sources: Sequence[SourceLike], out: IO[str]) -> None:
    """One JSON object; its lists are written a record at a time (one per line)."""
    head = {
        "old": _source(sources[0], diff.old_totals, diff.old_target),
        "new": _source(sources[1], diff.new_totals, diff.new_target),
        "summary": diff.summary,
        "issues_new_by_rule": diff.issues_new_by_rule,
        "issues_resolved_by_rule": diff.issues_resolved_by_rule,
    }
    out.write(json.dumps(head, ensure_ascii=True, indent=2)[:-2])  # the object left open
    current: str | None = None
    for record in records(diff):
        change = record.pop("change")
        if change.startswith("sitemap_"):
            name, record = "sitemaps", {"status": change.removeprefix("sitemap_"), **record}
        else:
            name = LIST_OF[change]
        if name != current:  # records come list by list, in JSON_LISTS order
            for between in JSON_LISTS[JSON_LISTS.index(current) + 1 if current else 0:JSON_LISTS.index(name)]:
                out.write(f"{_close(current)},\n  {json.dumps(between)}: [")
                current = between
            out.write(f"{_close(current)},\n  {json.dumps(name)}: [\n    ")
            current = name
        else:
            out.write(",\n    ")
        out.write(json.dumps(record, ensure_ascii=True))
    for between in JSON_LISTS[JSON_LISTS.index(current) + 1 if current else 0:]:
        out.write(f"{_close(current)},\n  {json.dumps(between)}: [")
        current = between
    out.write(f"{_close(current)}\n}}\n")


def _close(current: str | None) -> str:
    return "" if current is None else "\n  ]"


def _jsonl(diff: Diff, sources: Sequence[SourceLike], out: IO[str]) -> None:
    first = {"change": "summary", **diff.summary,
             "old": _source(sources[0], diff.old_totals, diff.old_target),
             "new": _source(sources[1], diff.new_totals, diff.new_target)}
    out.write(json.dumps(first, ensure_ascii=True) + "\n")
    for record in records(diff):
        out.write(json.dumps(record, ensure_ascii=True) + "\n")


def _unlisted_why(state: str | None) -> str:
    """What became of the file that would have listed an unfetched one (mark_unlisted's state)."""
    return {"failed": "failed", "cut": "was cut short"}.get(state or "", "was not fetched")


def _csv_row(record: dict[str, Any]) -> list[str]:
    change = record["change"]
    if change.startswith("sitemap_"):
        old, new = record["old_urls"], record["new_urls"]
        detail = f"+{record['urls_added']} -{record['urls_removed']}" + (f" {record['error']}" if record["error"] else "")
        if record["unlisted_by"]:
            detail += f" not read: {record['unlisted_by']} {_unlisted_why(record['unlisted_state'])}"
        row = ["", record["sitemap"], old, new, detail]
    elif change == "url_moved":
        row = [record["url"], record["to"], record["from"], record["to"], ""]
    elif change == "lastmod_changed":
        row = [record["url"], record["sitemap"], record["old"], record["new"], record["direction"]]
    elif change == "extension_changed":
        row = [record["url"], record["sitemap"], "", "", f"{record['kind']} +{record['added']} -{record['removed']}"]
    elif change.startswith("issue_"):
        row = [record["url"], record["sitemap"], "", record["count"], f"{record['rule']}: {record['message']}"]
    else:
        row = [record["url"], record["sitemap"], record.get("old"), record.get("new"), ""]
    # cells a spreadsheet would run as a formula are quoted (engine.formats.neutralise_cell)
    return [change, *(neutralise_cell(display("" if v is None else str(v), max_len=1 << 30)) for v in row)]


def _csv(diff: Diff, out: IO[str]) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for record in records(diff):
        writer.writerow(_csv_row(record))


# -- text ----------------------------------------------------------------------------------------
def summary_lines(diff: Diff, sources: Sequence[SourceLike]) -> list[str]:
    s = diff.summary
    lines = []
    for mark, src, totals, target in (("---", sources[0], diff.old_totals, diff.old_target),
                                      ("+++", sources[1], diff.new_totals, diff.new_target)):
        how = "saved" if src.saved else "explored now"
        named = f" exploration of {display(target)}" if src.saved and target else ""
        lines.append(f"{mark} {src.label} {display(src.raw)} ({how}{named}): "
                     f"{plural(totals[0], 'file')}, {plural(totals[1], 'distinct URL')}")
    ext = ", ".join(f"{kind} {s[f'{kind}_changed']}" for kind in EXTENSION_KINDS)
    lines += [
        "",
        f"URLs        +{s['urls_added']} -{s['urls_removed']}, {s['urls_moved']} moved to another sitemap",
        f"lastmod     {s['lastmod_changed']} changed: {s['lastmod_forward']} forward, "
        f"{s['lastmod_backward']} backward, {s['lastmod_set']} set, {s['lastmod_cleared']} cleared",
        f"changefreq  {s['changefreq_changed']} changed; priority {s['priority_changed']} changed",
        f"extensions  URLs changed: {ext}",
        f"sitemaps    +{s['sitemaps_added']} -{s['sitemaps_removed']}, {s['sitemaps_failing']} failing now, "
        f"{s['sitemaps_recovered']} recovered, {s['sitemaps_changed']} changed"
        + (f", {s['sitemaps_unfetched']} not fetched on a side" if s["sitemaps_unfetched"] else ""),
        f"findings    {s['issues_new']} new, {s['issues_resolved']} resolved{_unlike_checks(sources)}",
    ]
    return lines


def _unlike_checks(sources: Sequence[SourceLike]) -> str:
    """Said on the findings line itself when a side was not judged by every rule: "2486 new"
    against an exploration `urls` kept read as 2486 new faults (stderr alone said otherwise)."""
    words = unlike_checks([(s.label, s.checks, s.command) for s in sources[:2]])
    return f" ({words})" if words else ""


def _text(diff: Diff, sources: Sequence[SourceLike], out: IO[str], samples: int) -> None:
    def w(line: str) -> None:
        out.write(line + "\n")

    for line in summary_lines(diff, sources):
        w(line)
    q, s = diff.queries, diff.summary
    changed = [x for x in diff.sitemaps if x.status != "same"]
    if changed:
        w("")
        w("sitemaps:")
        width = min(60, max(len(display(x.key)) for x in changed))
        for x in changed:
            counts = f"{_n(x.old_urls)} -> {_n(x.new_urls)} URLs"
            pairs = f"+{x.urls_added} -{x.urls_removed}"
            why = f"  {display(x.error)}" if x.error and x.status in ("failing", "added") else ""
            if x.status == "unfetched":  # which side never read it (its URLs count on the other)
                where, counted = ("in NEW", "removed") if x.unread_on("new") else ("in OLD", "added")
                how = "not fetched" if x.unlisted_by is None else \
                    f"not read ({display(x.unlisted_by)} {_unlisted_why(x.unlisted_state)} there)"
                why = f"  {how} {where} (its URLs count as {counted})"
            w(f"  {display(x.key):<{width}}  {x.status:<9} {counts:<22} {pairs}{why}")

    def section(title: str, total: int, rows: Iterator[str]) -> None:
        if not total or not samples:  # (--samples 0: the counts alone, no empty lists)
            return
        shown = f"; first {samples}" if total > samples else ""
        w("")
        w(f"{title} ({total}{shown}):")
        for row in rows:
            w("  " + row)

    section("URLs added", s["urls_added"], (f"+ {display(k)}" for k, _, _ in q.urls("added", samples)))
    section("URLs removed", s["urls_removed"], (f"- {display(k)}" for k, _, _ in q.urls("removed", samples)))
    section("URLs moved to another sitemap", s["urls_moved"],
            (f"> {display(k)}  {display(a)} -> {display(b)}" for k, a, b in q.moved(samples)))
    # backward first: a lastmod going back in time is the suspicious one
    for direction in ("backward", "forward", "set", "cleared"):
        section(f"lastmod {direction}", s[f"lastmod_{direction}"],
                (f"~ {display(r[0])}  {display(r[2] or '(none)')} -> {display(r[3] or '(none)')}"
                 for r in q.lastmod(direction, samples)))
    for what in ("changefreq", "priority"):
        section(f"{what} changed", s[f"{what}_changed"],
                (f"~ {display(k)}  {display(a or '(none)')} -> {display(b or '(none)')}" for k, a, b, _ in q.attrs(what, samples)))
    for kind in EXTENSION_KINDS:
        section(f"{kind} changed", s[f"{kind}_changed"],
                (f"~ {display(k)}  +{a} -{r}" for k, _, a, r, _ in q.extensions(kind, samples)))
    for new, by_rule in ((True, diff.issues_new_by_rule), (False, diff.issues_resolved_by_rule)):
        if by_rule:
            w("")
            w(f"findings {'new' if new else 'resolved'} by rule:")
            width = max(len(rule) for rule in by_rule)
            for rule, n in by_rule.items():
                w(f"  {'+' if new else '-'} {rule:<{width}}  {n}")


def _n(value: int | None) -> str:
    return "-" if value is None else str(value)


# -- github --------------------------------------------------------------------------------------
def _github(diff: Diff, sources: Sequence[SourceLike], out: IO[str], samples: int) -> None:
    """Annotations a workflow shows: the changes that may be regressions as warnings (errors for
    sitemap files gone or failing), the rest as one notice; then the text summary."""
    q, s = diff.queries, diff.summary

    def annotate(command: str, title: str, message: str) -> None:
        out.write(f"::{command} title={escape_property(title)}::{escape_data(display(message, max_len=1 << 16))}\n")

    def listed(rows: Iterator[str], total: int) -> str:
        text = ", ".join(rows)
        return text + (f", … ({total - samples} more)" if total > samples else "")

    for x in diff.sitemaps:
        if x.status == "removed":
            before = plural(x.old_urls, "URL") if x.old_urls is not None else "- URLs"
            annotate("error", "sitemap removed", f"{x.key} is gone ({before} before)")
        elif x.status == "failing":
            annotate("error", "sitemap failing now", f"{x.key}: {x.error or x.new_state}")
    if s["urls_removed"]:
        annotate("warning", "URLs removed", f"{plural(s['urls_removed'], 'URL')} removed: "
                 + listed((k for k, _, _ in q.urls("removed", samples)), s["urls_removed"]))
    if s["lastmod_backward"]:
        annotate("warning", "lastmod went back in time", f"{plural(s['lastmod_backward'], 'URL')}: "
                 + listed((f"{r[0]} {r[2]} -> {r[3]}" for r in q.lastmod("backward", samples)), s["lastmod_backward"]))
    for rule, n in diff.issues_new_by_rule.items():
        annotate("warning", rule, f"{plural(n, 'new finding')} of {rule}")
    # (one line: the text summary's column padding does not carry into it)
    annotate("notice", "sitemap-tui diff", "; ".join(" ".join(line.split()) for line in summary_lines(diff, sources)[3:]))


def write_diff(fmt: str, diff: Diff, sources: Sequence[SourceLike], out: IO[str], *, samples: int = 10) -> None:
    if fmt == "json":
        _json(diff, sources, out)
    elif fmt == "jsonl":
        _jsonl(diff, sources, out)
    elif fmt == "csv":
        _csv(diff, out)
    elif fmt == "github":
        _github(diff, sources, out, samples)
    else:
        _text(diff, sources, out, samples)

"""``sitemap-tui history SITE``: the explorations of a site kept in the cache, newest first (date,
URLs, files, findings by severity, size, the command that made it), as text or ``--json``.

SITE is read as a TARGET and matched by its site key (session/history.py): the host of a URL
(``host:port`` off the default port; a host named without one finds its only port's), the
absolute path of a local file or folder. Nothing kept is no error: the list is empty and
stderr says where it looked."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from datetime import UTC, datetime

from sitemap_tui.engine.discover import TargetError
from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store.summary import issue_counts
from sitemap_tui.session.exits import EXIT_OK, UsageError
from sitemap_tui.session.history import SiteError, SiteFound, find_site
from sitemap_tui.session.recent import Saved, cache_folder, format_size


@dataclass(frozen=True, slots=True)
class HistoryOptions:
    site: str
    json: bool = False


def options(ns: argparse.Namespace) -> HistoryOptions:
    return HistoryOptions(ns.target, ns.json)


def site_of(raw: str, *, exact: bool = False) -> SiteFound:
    """SITE's explorations (session/history.find_site), what the user is told said on stderr;
    one that is no target, or a host with several ports' explorations, is a usage error."""
    try:
        found = find_site(raw, exact=exact)
    except (TargetError, SiteError) as exc:
        raise UsageError(f"SITE {display(raw)}: {exc}") from exc
    if found.note and (found.explorations or not exact):
        print(f"sitemap-tui: {display(found.note)}", file=sys.stderr)
    return found


@dataclass(frozen=True, slots=True)
class Row:
    saved: Saved
    counts: dict[str, int]

    def json(self) -> dict[str, object]:
        s = self.saved
        return {"path": str(s.path), "target": s.summary.target, "started": s.summary.started,
                "modified": datetime.fromtimestamp(s.when, UTC).isoformat(), "bytes": s.size,
                "files": s.summary.files, "urls": s.summary.urls, "errors": self.counts.get("error", 0),
                "warnings": self.counts.get("warning", 0), "info": self.counts.get("info", 0),
                "command": s.summary.command, "checks": s.summary.checks}

    def line(self) -> str:
        s = self.saved
        return (f"{s.date_text}  {s.summary.urls:>9,} {s.summary.files:>6,} "
                f"{self.counts.get('error', 0):>7,} {self.counts.get('warning', 0):>9,} "
                f"{format_size(s.size):>10}  {(s.summary.command or 'explorer'):<9} {display(str(s.path))}")


HEADER = f"{'date':<19}  {'URLs':>9} {'files':>6} {'errors':>7} {'warnings':>9} {'size':>10}  {'by':<9} file"


def cmd_history(opts: HistoryOptions) -> int:
    found = site_of(opts.site)
    key = found.key
    rows = [Row(s, issue_counts(s.path)) for s in found.explorations]
    folder = cache_folder()
    if opts.json:
        print(json.dumps({"site": key, "folder": str(folder), "explorations": [r.json() for r in rows]}, indent=2))
    elif rows:
        print(HEADER)
        for r in rows:
            print(r.line())
    if rows:
        n = len(rows)
        print(f"sitemap-tui: {n} exploration{'s' * (n != 1)} of {display(key)} in {display(str(folder))}",
              file=sys.stderr)
    else:
        print(f"sitemap-tui: no saved exploration of {display(key)} in {display(str(folder))} (urls, stats, "
              "validate, audit, access, diff SITE and the explorer keep one per run unless --no-history or --db)", file=sys.stderr)
    return EXIT_OK

"""``sitemap-tui discover``: where a site keeps its sitemaps (robots.txt, common paths, the home
page's links), and whether each is there: the first bytes of each are read, as a probe reads a
common path, never the whole file."""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass, field

from sitemap_tui.cli.headless import explore_options, parse_target
from sitemap_tui.cli.options import TreeOptions, fetch_options
from sitemap_tui.cli.verdict import report_left_out, report_redirects, target_problem
from sitemap_tui.engine.explorer import Explorer
from sitemap_tui.engine.model import FoundBy, NodeKind, NodeState
from sitemap_tui.engine.sanitize import display
from sitemap_tui.output import write_json
from sitemap_tui.session.exits import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UsageError
from sitemap_tui.session.fetching import FetchOptions, fetch_config
from sitemap_tui.session.validation import Validation
from sitemap_tui.words import plural

CHECKS = 100
"""Listed sitemaps whose first bytes discover reads; a robots.txt may list thousands (the rest are
said as unchecked: ``stats`` or ``validate`` read them all)."""


@dataclass(frozen=True, slots=True)
class DiscoverOptions:
    target: str
    json: bool = False
    strict: bool = False
    fetch: FetchOptions = field(default_factory=FetchOptions)
    tree: TreeOptions = field(default_factory=lambda: TreeOptions(recursive=False))


def options(ns: argparse.Namespace) -> DiscoverOptions:
    # only the target's own files: robots.txt, the probed paths and the home page
    return DiscoverOptions(ns.target, ns.json, ns.strict, fetch_options(ns),
                           TreeOptions(recursive=False, probe=ns.probe))


def cmd_discover(opts: DiscoverOptions) -> int:
    target = parse_target(opts.target)
    if target.kind != "site":
        raise UsageError("discover takes a site (https://example.com or example.com)")

    async def go() -> Explorer:
        async with Explorer(fetch_config=fetch_config(opts.fetch), options=explore_options(opts.tree),
                            judge=Validation().judge()) as explorer:
            await explorer.open(target)
            unchecked[0] = await explorer.check_discovered(CHECKS)
            return explorer

    unchecked = [0]
    explorer = asyncio.run(go())
    records = explorer.discovery
    if opts.json:
        robots = next((n for n in explorer.nodes.values() if n.kind == NodeKind.ROBOTS), None)
        write_json(
            sys.stdout,
            {
                "site": target.url,
                "robots": None if robots is None else {"url": robots.url, "state": robots.state.value, "error": robots.error},
                "sitemaps": [
                    {"url": r.url, "found_by": r.found_by.value, "detail": r.detail, "found": r.found}
                    for r in records
                ],
            },
            ensure_ascii=True, indent=2,
        )
        sys.stdout.write("\n")
    else:
        robots = next((n for n in explorer.nodes.values() if n.kind == NodeKind.ROBOTS), None)
        listed = sum(r.found_by == FoundBy.ROBOTS for r in records)
        if robots is not None:  # read first; its Sitemap: lines are the rows below it
            failed = robots.state == NodeState.FAILED
            detail = display(robots.error or "failed") if failed else plural(listed, "Sitemap: line")
            if not failed and robots.error:  # read in part (its cap)
                detail += f"; {display(robots.error)}"
            print(f"{'no' if failed else 'read':<6} {'robots.txt':<10} {display(robots.url)}  ({detail})")
        for r in records:
            # (past the first CHECKS, a listed sitemap is not checked: "found" said it was there)
            unchecked_row = r.there is None and r.node_id is not None and r.found_by != FoundBy.PROBE
            mark = "listed" if unchecked_row else "found" if r.found else "no"
            print(f"{mark:<6} {r.found_by.value:<10} {display(r.url) or '(empty)'}  ({display(r.detail)})")
    # (a usable line: one that stands for a file; repeated or unfetchable lines probe all the same)
    if any(r.found_by == FoundBy.ROBOTS and r.node_id is not None for r in records) and not opts.tree.probe:
        print("sitemap-tui: common paths not probed: robots.txt lists sitemaps (--probe probes them too)",
              file=sys.stderr)
    if unchecked[0]:
        print(f"sitemap-tui: {plural(unchecked[0], 'listed sitemap')} not checked: discover reads the first"
              f" {CHECKS} (stats or validate read them all)", file=sys.stderr)
    missing = [r for r in records if r.there is False]
    if missing:
        count = len({r.url for r in missing})
        first = missing[0]
        why = first.detail.rsplit("; ", 1)[-1]
        print(f"sitemap-tui: {plural(count, 'listed sitemap')} not found, first {display(first.url, 200)}"
              f" ({display(why, 300)})", file=sys.stderr)
    report_redirects(explorer)  # (robots.txt read from another host, the -H headers kept back)
    problem = target_problem(explorer)
    if problem:
        print(f"sitemap-tui: error: {problem.message}", file=sys.stderr)
        return EXIT_USAGE
    code = report_left_out(explorer, opts.strict, EXIT_OK)
    return EXIT_FINDINGS if opts.strict and missing and code == EXIT_OK else code

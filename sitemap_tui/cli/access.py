"""``sitemap-tui access``: which crawlers robots.txt lets fetch the listed URLs (issue 22 §2).

TARGET is explored as ``validate`` explores it (every rule, so the robots.txt of a sitemap URL's
host is read too) and kept in the history; a saved exploration (FILE.db) is read offline and never
written. The matrix counts listed URLs (an entry listed twice counts twice), per crawler: allowed,
disallowed, and URLs of unknown access (their origin's robots.txt was not read), per sitemap and
in total; ``--list`` prints the URLs instead.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from sitemap_tui import signals
from sitemap_tui.cli.headless import (
    ALL_RULES,
    exploration_problem,
    explore_options,
    is_database,
    open_result,
    output_path,
    parse_target,
    run_exploration,
    run_store,
    said_if_written,
)
from sitemap_tui.cli.options import TreeOptions, fetch_options, tree_options
from sitemap_tui.cli.verdict import (
    report_failures,
    report_left_out,
    target_answered,
    target_problem,
)
from sitemap_tui.engine.access import DEFAULT_AGENTS, AgentsError, agents_in, compute, parse_agents
from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store.access import AccessCounts, AccessTable, access_robots
from sitemap_tui.engine.store.schema import at_rest, connect
from sitemap_tui.session.exits import EXIT_OK, UsageError
from sitemap_tui.session.fetching import FetchOptions
from sitemap_tui.words import plural


@dataclass(frozen=True, slots=True)
class AccessOptions:
    target: str
    agents: tuple[str, ...] = DEFAULT_AGENTS
    format: str = "text"
    list: bool = False
    output: str | None = None
    fetch: FetchOptions = field(default_factory=FetchOptions)
    tree: TreeOptions = field(default_factory=TreeOptions)


def options(ns: argparse.Namespace) -> AccessOptions:
    try:
        agents = parse_agents(ns.agents) if ns.agents is not None else DEFAULT_AGENTS
    except AgentsError as exc:
        raise UsageError(f"--agents: {exc}") from None
    return AccessOptions(ns.target, agents, ns.format, ns.list, ns.output, fetch_options(ns),
                         tree_options(ns, recursive=True))


def _saved(raw: str) -> Path | None:
    """The saved exploration TARGET names, or None when TARGET is something to explore."""
    path = Path(raw)
    if not is_database(path):
        return None
    problem = exploration_problem(path, must_exist=True)
    if problem:
        raise UsageError(f"{display(raw)}: {problem}")
    return path


def cmd_access(opts: AccessOptions) -> int:
    out_path = output_path(opts.output)
    saved = _saved(opts.target)
    if saved is not None:
        said_if_written(display(opts.target), saved, "read")
        conn = connect(saved, readonly=True, immutable=at_rest(saved))  # nothing left beside it
        try:
            return _report(opts, AccessTable(conn, temp=True), out_path, saved=True)
        finally:
            conn.close()
    target = parse_target(opts.target)
    store, finish, _kept = run_store(opts.tree, target, "access", "all")
    complete = False
    try:
        # judged as validate and diff judge (the cross-file rules too): the store is kept as an
        # exploration judged by every rule, which a later `diff SITE` compares findings with
        explorer = run_exploration(opts.fetch, explore_options(opts.tree), target, store=store,
                                   checker=ALL_RULES.checker(), validation=ALL_RULES)
        signals.check()
        problem = target_problem(explorer)
        report_failures(explorer, problem)
        if problem is not None:
            report_left_out(explorer, False, EXIT_OK, rule_notes=False, said=problem.message)  # (as urls)
            print(f"sitemap-tui: error: {problem.message}", file=sys.stderr)
            return problem.code
        ALL_RULES.crossfile(store, robots=explorer.checked_robots(), keep_temp=True)
        store.commit()
        # files that failed or were left out: their URLs are not in the counts (said, as by urls)
        report_left_out(explorer, False, EXIT_OK, rule_notes=False)
        with store.guarded():  # a write SQLite refuses (a full disk) is a StoreError: one line, exit 2
            code = _report(opts, AccessTable(store.conn, publish=store.publish), out_path)
        complete = target_answered(explorer)
        return code
    finally:
        finish(complete)


def _report(opts: AccessOptions, table: AccessTable, out_path: Path | None, *, saved: bool = False) -> int:
    compute(table, opts.agents)
    signals.check()
    # (a saved exploration's reason; a live run read the robots.txt it could: the line below
    # counts the URLs on origins it has none of, "access … do" read odd from access itself)
    if saved and not access_robots(table.conn):
        print("sitemap-tui: this exploration kept no robots.txt (urls and stats of a sitemap URL do not "
              "read it; validate, access and the explorer do): every URL's access is unknown", file=sys.stderr)
    total = table.counts(opts.agents)
    if total.unknown:
        print(f"sitemap-tui: {plural(total.unknown, 'URL')} on origins whose robots.txt was not read: "
              "their access is unknown, counted apart", file=sys.stderr)
    if not total.urls:
        print("sitemap-tui: no URLs listed: nothing to judge", file=sys.stderr)
    with open_result(out_path, opts.output) as result:
        if opts.list:
            _write_list(opts, table, result.file)
        else:
            _write_matrix(opts, table.per_file(opts.agents), total, result.file)
        result.commit()
    return EXIT_OK


def _agent_json(c: AccessCounts) -> dict[str, dict[str, int]]:
    return {a: {"allowed": c.allowed(i), "disallowed": c.blocked[i]} for i, a in enumerate(c.agents)}


def _write_matrix(opts: AccessOptions, files: Sequence[tuple[int, str, AccessCounts]],
                  total: AccessCounts, out: IO[str]) -> None:
    rows: list[tuple[str | None, AccessCounts]] = [(url, c) for _, url, c in files]
    rows.append((None, total))
    if opts.format == "jsonl":
        for url, c in rows:
            out.write(json.dumps({"sitemap": url, "urls": c.urls, "unknown": c.unknown,
                                  "agents": _agent_json(c)}, ensure_ascii=True) + "\n")
    elif opts.format == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["sitemap", "agent", "allowed", "disallowed", "unknown"])
        for url, c in rows:
            for i, agent in enumerate(c.agents):
                w.writerow([url or "(all)", agent, c.allowed(i), c.blocked[i], c.unknown])
    else:
        _text_matrix(rows, total, out)


def _text_matrix(rows: Sequence[tuple[str | None, AccessCounts]], total: AccessCounts, out: IO[str]) -> None:
    width = max(len(a) for a in total.agents)
    out.write(f"crawler access of {plural(total.urls, 'listed URL')}"
              + (f" ({total.unknown:,} unknown: no robots.txt read for their origin)" if total.unknown else "")
              + "\n\n")
    out.write(f"{'crawler':<{width}}  {'allowed':>10}  {'disallowed':>10}\n")
    for i, agent in enumerate(total.agents):
        out.write(f"{agent:<{width}}  {total.allowed(i):>10,}  {total.blocked[i]:>10,}\n")
    files = [(url, c) for url, c in rows if url is not None]
    if files:
        out.write("\nper sitemap (crawlers disallowed any of its URLs):\n")
    for url, c in files:
        blocked = [f"{a} {c.blocked[i]:,}" for i, a in enumerate(c.agents) if c.blocked[i]]
        if blocked:
            what = ", ".join(blocked)
        elif c.unknown == c.urls:  # no robots.txt judged them: none is "allowed" (README)
            what = "all unknown (no robots.txt read)"
        else:
            what = "none disallowed" if c.unknown else "every crawler allowed"
        if c.unknown and c.unknown != c.urls:
            what += f"; {c.unknown:,} unknown"
        out.write(f"  {display(url or '', 100)}  {plural(c.urls, 'URL')}: {what}\n")


def _write_list(opts: AccessOptions, table: AccessTable, out: IO[str]) -> None:
    w = csv.writer(out, lineterminator="\n") if opts.format == "csv" else None
    if w is not None:
        w.writerow(["loc", "sitemap", "blocked_for", "unknown"])
    for loc, sitemap, blocked, unknown in table.rows():
        if not blocked and not unknown:
            continue
        names = agents_in(blocked, opts.agents)
        if opts.format == "jsonl":
            out.write(json.dumps({"loc": loc, "sitemap": sitemap, "blocked_for": names,
                                  "unknown": bool(unknown)}, ensure_ascii=True) + "\n")
        elif w is not None:
            w.writerow([loc, sitemap, " ".join(names), int(bool(unknown))])
        else:
            # the sitemap too: a URL two sitemaps list is two listings (two lines that read alike)
            out.write(f"{display(loc or '', 2000)}\t{'unknown' if unknown else ','.join(names)}"
                      f"\t{display(sitemap or '', 2000)}\n")

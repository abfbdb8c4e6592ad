"""``sitemap-tui stats``: the sitemap tree with per-file statistics, as text or JSON
(docs/json.md)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sitemap_tui import signals
from sitemap_tui.cli.headless import (
    explore_options,
    keeps,
    kept_store,
    open_result,
    output_path,
    parse_target,
    reader_may_leave,
    run_exploration,
)
from sitemap_tui.cli.options import TreeOptions, fetch_options, tree_options
from sitemap_tui.cli.verdict import (
    files_read,
    report_failures,
    report_left_out,
    say_kept,
    strict_short,
    target_problem,
)
from sitemap_tui.engine.explorer import Explorer
from sitemap_tui.engine.localmap import read_from
from sitemap_tui.engine.sanitize import display
from sitemap_tui.output import write_json
from sitemap_tui.session.exits import EXIT_OK
from sitemap_tui.session.fetching import FetchOptions
from sitemap_tui.words import plural


def node_json(explorer: Explorer, node_id: int) -> dict[str, Any]:
    node = explorer.nodes[node_id]
    s = node.stats
    agg = explorer.aggregate(node_id)
    data: dict[str, Any] = {
        "url": node.url,
        "kind": node.kind.value,
        "state": node.state.value,
        "found_by": node.found_by.value,
        "urls": s.url_count,
        "bytes": s.decoded_bytes,
        "wire_bytes": s.wire_bytes,
        "gzipped": s.gzipped,
        "http_status": s.http_status,
        "final_url": s.final_url,
        "read_from": read_from(explorer.fetch_config.maps, node.url),  # --map: the local file
        "content_type": s.content_type,
        "content_encoding": s.content_encoding,
        "xml_encoding": s.xml_encoding,
        "fetch_time": _round(s.fetch_time),
        "parse_time": _round(s.parse_time),
        "ttfb": _round(s.ttfb),
        "sitemaps_listed": s.child_count,
        "index_lastmod": node.lastmod_raw,
        "error": node.error,
    }
    if s.unchanged_since:  # answered 304 to a re-exploration: carried over (engine/refetch.py)
        data["unchanged_since"] = s.unchanged_since
    if agg.no_url:  # entries with no URL in them, not counted in urls (said on stderr too)
        data["entries_without_url"] = agg.no_url
    if agg.urls:
        data["unique_urls"] = agg.unique
        data["lastmod"] = {
            "min": _iso(agg.lastmod_min), "max": _iso(agg.lastmod_max), "missing": agg.lastmod_missing,
            "invalid": agg.lastmod_invalid, "future": agg.lastmod_future,
            "by_year": dict(sorted(agg.by_year().items())),
            "by_month": dict(sorted(agg.by_month.items())),
        }
        data["changefreq"] = dict(agg.changefreq)
        data["priority"] = dict(sorted(agg.priority.items()))
        data["extensions"] = {
            "urls_with_images": agg.urls_with_images, "images": agg.images,
            "urls_with_videos": agg.urls_with_videos, "videos": agg.videos,
            "urls_with_news": agg.urls_with_news, "news": agg.news,
            "urls_with_alternates": agg.urls_with_alternates, "alternates": agg.alternates,
            "hreflang": dict(agg.hreflang.most_common()),
        }
    data["children"] = [node_json(explorer, c) for c in explorer.children.get(node_id, [])]
    return data


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 4)


def _iso(ts: int | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class StatsOptions:
    target: str
    json: bool = False
    output: str | None = None
    strict: bool = False
    fetch: FetchOptions = field(default_factory=FetchOptions)
    tree: TreeOptions = field(default_factory=TreeOptions)


def options(ns: argparse.Namespace) -> StatsOptions:
    return StatsOptions(ns.target, ns.json, ns.output, ns.strict, fetch_options(ns),
                        tree_options(ns, recursive=not ns.no_recursive))


def cmd_stats(opts: StatsOptions) -> int:
    import humanize

    target = parse_target(opts.target)
    out_path = output_path(opts.output)
    # per-file aggregates are kept while streaming: the store is only for --db or the history
    db = kept_store(opts.tree, target, "stats", checks="none")
    complete = False
    try:
        result = open_result(out_path, opts.output)
        with result:
            explorer = run_exploration(opts.fetch, explore_options(opts.tree), target,
                                       store=db.store if db else None, cache=opts.tree.cache)
            signals.check()
            # the verdict is the exploration's, decided before the report: a reader that left
            # (| head) ends the writing, never a failed target's exit status
            problem = target_problem(explorer)
            with reader_may_leave():
                out = result.file
                roots = explorer.children.get(None, [])
                tree = [node_json(explorer, r) for r in roots]
                if opts.json:
                    write_json(out, {"nodes": tree}, ensure_ascii=True, indent=2)
                    out.write("\n")
                else:
                    total_urls = 0
                    for line, urls in _stats_lines(tree, humanize):
                        out.write(line + "\n")
                        total_urls += urls
                    files = files_read(explorer)
                    out.write(f"\n{plural(files, 'file')}, {plural(total_urls, 'URL')}\n")
            if problem is None:  # (else said with the error, below)
                # each failed file and index cycle, as urls says them (the tree on stdout shows
                # them too, but a script reads stdout: found from outside, stderr only counted)
                report_failures(explorer)
            complete = keeps(db, explorer)
            short = opts.strict and strict_short(explorer)  # not the whole tree: exit 1, FILE kept
            if problem is None and not short:  # a failed target keeps the previous output
                result.commit()
    finally:
        if db is not None:
            db.finish(complete)
    if problem:
        # the files that failed and what was left out, which the error's "(said above)" means
        report_failures(explorer, problem)
        report_left_out(explorer, False, EXIT_OK, said=problem.message)
        print(f"sitemap-tui: error: {problem.message}", file=sys.stderr)
        return problem.code
    if short:
        say_kept([(out_path, opts.output)])
    return report_left_out(explorer, opts.strict, EXIT_OK)


def _stats_lines(tree: list[dict[str, Any]], humanize: Any, depth: int = 0) -> list[tuple[str, int]]:
    out = []
    for n in tree:
        parts = [f"{'  ' * depth}{n['kind']:<8} {display(n['url'])}"]
        if n["state"] != "done":
            parts.append(f"[{n['state']}]")
        if n["kind"] not in ("site", "directory"):
            if n["read_from"]:
                parts.append(f"read from {display(n['read_from'])}")
            elif n["http_status"]:
                parts.append(f"HTTP {n['http_status']}")
            if n["urls"]:
                parts.append(plural(n["urls"], "URL"))
            if n["sitemaps_listed"]:
                parts.append(plural(n["sitemaps_listed"], "sitemap"))
            if n["bytes"]:
                size = humanize.naturalsize(n["bytes"], binary=True)
                if n["gzipped"]:
                    size += f" ({humanize.naturalsize(n['wire_bytes'], binary=True)} gzipped)"
                parts.append(size)
            if n["fetch_time"] is not None:
                parts.append(f"{n['fetch_time']:.2f}s")
            if n["index_lastmod"]:
                parts.append(f"index lastmod {display(n['index_lastmod'], 60)}")
        if n["error"]:
            parts.append(f"— {display(n['error'])}")
        out.append(("  ".join(parts), n["urls"] or 0))
        out.extend(_stats_lines(n["children"], humanize, depth + 1))
    return out

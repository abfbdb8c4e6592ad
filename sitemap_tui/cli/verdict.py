"""What a headless run's result is worth: the exit code the target itself earns (unreachable,
no sitemap, not a sitemap), whether the run may replace a saved exploration, and what was left
out or not checked, said on stderr (docs/exit-codes.md)."""

from __future__ import annotations

import os
import sys
from collections import Counter
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from sitemap_tui.engine.explorer import Explorer
from sitemap_tui.engine.leftout import LeftOut
from sitemap_tui.engine.model import NodeKind, NodeState
from sitemap_tui.engine.sanitize import display
from sitemap_tui.session.exits import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from sitemap_tui.session.validation import robots_based_rules, site_based_rules
from sitemap_tui.words import plural

_CONTAINERS = (NodeKind.SITE, NodeKind.DIRECTORY, NodeKind.ROBOTS, NodeKind.INDEX)


@dataclass(frozen=True, slots=True)
class TargetProblem:
    """Why the target gave nothing to work on, and the exit code that says so."""

    code: int  # EXIT_USAGE: could not run as asked; EXIT_FINDINGS: the target is a broken sitemap
    message: str


def target_problem(explorer: Explorer) -> TargetProblem | None:
    """The exit-code contract for the target itself: unreachable, or a site or folder without a
    sitemap, is 2 (nothing to work on); a target that answered but is not a usable sitemap (an
    HTML page, corrupt gzip) is a finding, 1."""
    roots = explorer.children.get(None, [])
    if not roots:
        return TargetProblem(EXIT_USAGE, "nothing to explore")
    if explorer.internal_errors:
        # (a worker process killed mid-run: the result lacks files through no fault of the site)
        first = explorer.nodes[explorer.internal_errors[0]]
        n = len(explorer.internal_errors)
        return TargetProblem(EXIT_USAGE, f"{'a file' if n == 1 else f'{n:,} files'} failed inside sitemap-tui "
                                         f"(first {display(first.url)}: {display(first.error)}): the result is "
                                         "incomplete, so no output was replaced")
    if explorer.timed_out and not _listed(explorer):
        # nothing was read in the time given: not a run at all (a CI step passed, -o emptied)
        return TargetProblem(EXIT_USAGE, f"the run's time budget of {explorer.options.max_time:g} s ran out before "
                                         "anything could be listed (--max-time): no output was replaced")
    root = explorer.nodes[roots[0]]
    if root.kind == NodeKind.DIRECTORY:
        # a folder with no sitemap in it (files skipped by name and content, said here) is
        # nothing to work on, even beside a robots.txt: unless its lines were fetched
        folder = explorer.folder
        if (folder is not None and folder.sitemaps) or any(
            n.kind not in (NodeKind.DIRECTORY, NodeKind.ROBOTS) and n.state in (NodeState.DONE, NodeState.FAILED)
            for n in explorer.nodes.values()
        ):
            return _nothing_listed(explorer)
        where = display(str(folder.folder)) if folder is not None else display(root.url)
        why = display("; ".join(folder.notes())) if folder is not None else ""
        return TargetProblem(EXIT_USAGE, f"no sitemap found in {where}" + (f": {why}" if why else ""))
    if root.kind == NodeKind.SITE:
        if root.state == NodeState.FAILED:  # no HTTP answer at all
            return TargetProblem(EXIT_USAGE, f"{display(root.url)}: {display(root.error)}")
        if any(n.kind not in (NodeKind.SITE, NodeKind.DIRECTORY, NodeKind.ROBOTS) for n in explorer.nodes.values()):
            return _nothing_listed(explorer)
        return TargetProblem(EXIT_USAGE, display(explorer.no_sitemap_note()))
    if root.state != NodeState.FAILED:
        return _nothing_listed(explorer)
    s = root.stats
    # answered: a 2xx body (or a local file's bytes) that is not a usable sitemap; a 4xx/5xx, a
    # refused redirect or no answer at all means the target could not be read
    if s.http_status is not None:
        # (a 304 to a plain GET: an answer, with no sitemap in it; other 3xx are refused redirects)
        answered = 200 <= s.http_status < 300 or s.http_status == 304
    elif root.url.startswith("file:"):  # a local file that is there, even empty, is an answer
        from sitemap_tui.engine.urlpolicy import local_path

        local = local_path(root.url)
        # (one that cannot be read is as absent as one that is not there: 2, as a 403 would be)
        answered = local.is_file() and os.access(local, os.R_OK)
    else:
        answered = s.wire_bytes > 0
    code = EXIT_FINDINGS if answered else EXIT_USAGE
    return TargetProblem(code, f"{display(root.url)}: {display(root.error)}")


def _listed(explorer: Explorer) -> bool:
    """Some sitemap file gave at least one URL."""
    return any(n.stats.url_count for n in explorer.nodes.values() if n.kind not in _CONTAINERS)


# why a file gave nothing: it failed, or its reading stopped before its first entry
_BROKEN = (LeftOut.FAILED, LeftOut.CUT_PARSE, LeftOut.CUT_FETCH, LeftOut.CUT_DECODE, LeftOut.CUT_SIZE)


def _nothing_listed(explorer: Explorer) -> TargetProblem | None:
    """A target whose sitemaps were found but not one URL could be read from them (each failed,
    or stopped at an error before its first entry) is no usable sitemap: 1, and a previous
    output kept. Found sitemaps that are empty, or left out by an option, are not."""
    if _listed(explorer):
        return None
    broken = [n for n in explorer.nodes.values() if n.kind != NodeKind.ROBOTS and explorer.left_out_of(n) in _BROKEN]
    if not broken:
        return None
    files = "the sitemap" if len(broken) == 1 else f"{len(broken)} sitemap files"
    return TargetProblem(EXIT_FINDINGS, f"nothing could be listed: {files} failed, or stopped at an error "
                                        "before the first entry (said above)")


def target_answered(explorer: Explorer) -> bool:
    """Whether a run that went to its end may replace what --db held: not when the target never
    answered (a site that is down, a file that is not there), so that a cron job keeps its last
    good exploration; an error page or a file that is no sitemap is an answer, with findings."""
    roots = explorer.children.get(None, [])
    if not roots:
        return False
    root = explorer.nodes[roots[0]]
    return root.state != NodeState.FAILED or root.stats.http_status is not None or root.stats.wire_bytes > 0


def report_left_out(explorer: Explorer, strict: bool, code: int, *, rule_notes: bool = True,
                    said: str | None = None) -> int:
    """Say on stderr, one line per cause with a count and the option that changes it, what the
    exploration left out (Explorer.left_out), whether or not stderr is a terminal: a script
    must not take an incomplete result for a whole one. Returns ``code``, or EXIT_FINDINGS
    when ``--strict`` and the result is incomplete (what the user asked for, such as
    --no-recursive, is said but does not count). ``said``: the error the run ends with, which
    a line about the one file it names would only repeat."""
    for note in run_notes(explorer, rule_notes=rule_notes):
        print(f"sitemap-tui: {note}", file=sys.stderr)
    incomplete = False
    for omission in explorer.left_out():
        incomplete = incomplete or omission.strict
        if said and omission.count == 1 and omission.example and display(omission.example) in said:
            continue  # the run's error (``said``) names that one file already (found by a review)
        print(f"sitemap-tui: {omission.text}", file=sys.stderr)
    if incomplete and strict and code == EXIT_OK:
        return EXIT_FINDINGS
    return code


def strict_short(explorer: Explorer) -> bool:
    """The exploration left out what --strict counts (report_left_out): with --strict, the
    result is not the whole one asked for, and an --output FILE keeps its previous content."""
    return any(omission.strict for omission in explorer.left_out())


def say_kept(outputs: list[tuple[object, str | None]]) -> None:
    """Each output FILE (its path: None for stdout, and the name as typed) that an incomplete
    result under --strict did not replace."""
    for path, typed in outputs:
        if path is not None and typed:
            print(f"sitemap-tui: {display(typed)} kept as it was: the result is incomplete (--strict)",
                  file=sys.stderr)


def run_notes(explorer: Explorer, *, rule_notes: bool = True) -> list[str]:
    """What the run did not do, in words, for stderr and a report's summary: the files of a
    folder that are not sitemaps, and the robots-based rules that did not run (issue 16; not
    for a command that reports no findings: ``rule_notes`` False)."""
    notes = explorer.folder.notes() if explorer.folder is not None else []
    # a robots.txt read only up to its cap: its later Sitemap: and Disallow lines were not
    # (validate's report said "no Sitemap: line" and nothing else)
    notes += [f"{n.url}: {n.error}" for n in explorer.nodes.values()
              if n.kind == NodeKind.ROBOTS and n.state == NodeState.DONE and n.error]
    notes += explorer.robots_notes
    # (the registry is read only when a note may be said: urls and stats never load it, 40 ms)
    robots_rules = _selected(explorer, robots_based_rules()) if explorer.robots_gaps and rule_notes else ()
    if robots_rules:
        # video-files-not-accessible also judges what needs no robots.txt (a streaming-only or
        # relative URL), and does so: only its robots.txt part is what did not run
        rules = ", ".join(f"{r} (its robots.txt part)" if r == "video-files-not-accessible" else r
                          for r in robots_rules)
        notes += [f"robots-based rules did not run: {gap} ({rules}; docs/exit-codes.md)"
                  for gap in explorer.robots_gaps]
    if rule_notes and explorer.checker is not None:  # (urls and stats judge nothing)
        notes += _no_site_notes(explorer)
    if explorer.checker is None:  # (validate names each: its rule, given here)
        for kind, (n, first) in sorted(explorer.noted().items()):
            notes.append(f"{_NOTED[kind](n)}, first in {first}")
        n, first = explorer.entry_count("relative")
        if n:
            notes.append(f"{plural(n, 'relative URL')} listed resolved against {'its' if n == 1 else 'their'}"
                         " sitemap's URL (search engines read only absolute ones; validate names each:"
                         f" loc-not-absolute), first in {first}")
    # file names and a server's reason phrase are untrusted text
    return [display(note) for note in notes]


# what urls and stats say of each thing read otherwise than written (engine.filejob.noted_kind)
_NOTED = {
    "misplaced": lambda n: (f"{plural(n, 'element')} not read, with any URL inside: not where the sitemap protocol"
                            " reads one (a <urlset> or <sitemap> in a <urlset>, a wrapper element, one in a <url>"
                            " that holds a <loc>, a <url> in an"
                            " index; validate names each: core-unknown-element, index-wrong-children)"),
    "repeated-loc": lambda n: (f"{plural(n, 'repeated <loc>')} not read: an entry's first <loc> is its URL"
                               " (validate names each: core-element-repeated)"),
    "gzip-double": lambda n: (f"{plural(n, 'file')} gzipped twice, unpacked twice here: a search engine unpacks once"
                              " and finds no sitemap (gzip-double)"),
    "declared-encoding": lambda n: (f"{plural(n, 'file')} read in the encoding {'it declares' if n == 1 else 'they declare'}"
                                    " (or a UTF-16 byte order mark names), not UTF-8 (sitemaps must be UTF-8; its URLs may"
                                    " not be as meant: encoding-not-utf8)"),
}


def _selected(explorer: Explorer, rules: tuple[str, ...]) -> tuple[str, ...]:
    """Those of ``rules`` the run's --select/--ignore keep: a rule left out would not have run
    anyway (a note naming it, with --select lastmod-, was noise)."""
    enabled = getattr(explorer.checker, "enabled", None)
    return rules if enabled is None else tuple(r for r in rules if r in enabled)


_SITEMAP_KINDS = (NodeKind.INDEX, NodeKind.URLSET, NodeKind.RSS, NodeKind.ATOM, NodeKind.TEXT)


def _no_site_notes(explorer: Explorer) -> list[str]:
    """The host and location rules, silent on local files read as no site (found from outside:
    a build's file given alone passed what the build's folder failed on, and only the robots
    rules were said not to have run)."""
    local = [n.url for n in explorer.nodes.values()
             if n.url.startswith("file:") and n.kind in _SITEMAP_KINDS and n.state == NodeState.DONE]
    rules = ", ".join(_selected(explorer, site_based_rules()))
    if not local or not rules:
        return []
    return [f"host and location rules did not run: {plural(len(local), 'local file')} read as no site, "
            f"first {local[0]} ({rules}); give --map SITE=FOLDER, or run from the build's folder (the one whose "
            "robots.txt names the site)"]


def files_read(explorer: Explorer) -> int:
    """Files that were fetched or read (failed ones included): an index's listed children that
    were not fetched (depth, caps, --no-recursive) are not files of this result; stderr says
    what was left out."""
    return sum(
        1 for n in explorer.nodes.values()
        if n.kind not in (NodeKind.SITE, NodeKind.DIRECTORY) and n.state in (NodeState.DONE, NodeState.FAILED)
    )


def report_redirects(explorer: Explorer) -> None:
    """The files read from another host than the one named, through a redirect, on stderr: the
    commands with no findings (urls, stats, audit, access) showed the named URL alone, and
    nothing said that the -H headers stayed behind (validate reports fetch-redirected)."""
    from sitemap_tui.engine.netpolicy import origin_of
    from sitemap_tui.engine.urlpolicy import same_host

    cfg = explorer.fetch_config
    withheld = bool(cfg.headers) and not cfg.header_all_hosts
    # another host; or, when -H headers were given, any other origin (http to https too), since
    # they stayed behind
    moved = [n for n in explorer.nodes.values()
             if n.kind not in (NodeKind.SITE, NodeKind.DIRECTORY) and n.stats.final_url
             and n.stats.final_url != n.url and not n.url.startswith("file:")
             and (not same_host(n.url, n.stats.final_url)
                  or (withheld and origin_of(n.stats.final_url) != origin_of(n.url)))]
    if not moved:
        return
    first = moved[0]
    more = f" ({plural(len(moved) - 1, 'other file')} too)" if len(moved) > 1 else ""
    # (a target URL's user and password travel as an -H Authorization does)
    headers = "; the headers given for the target (-H, a URL's user and password) were not sent there" if withheld else ""
    print(f"sitemap-tui: {display(first.url)} redirects to {display(first.stats.final_url)}, another "
          f"{'host' if not same_host(first.url, first.stats.final_url) else 'origin'}: read from there{more}{headers}",
          file=sys.stderr)


FAILURES_SAID = 20
"""Failed files named one per line on stderr; the rest are counted by cause. An index of
50,000 children that all answered 404 wrote 50,000 lines, and the run's last words (what it
left out, why it exits 1) scrolled away with them."""


def _cause(url: str, error: str) -> str:
    """``error`` as a cause shared by many files: without the file's own path at its end (a
    mapped build's "not found in ./public: s21.xml": found from outside, each missing file was
    a cause of its own)."""
    own = unquote(urlsplit(url).path).lstrip("/")
    if own and error.endswith(f": {own}"):
        return error[: -len(own) - 2]
    return error


def report_failures(explorer: Explorer, problem: TargetProblem | None = None) -> None:
    """Each file that failed, one line on stderr (the first :data:`FAILURES_SAID`, then a count
    of the rest by cause); not the one the target's ``problem`` (said as the run's error)
    already names: "x.xml: HTTP 404" came twice, once as a failure and once as the error."""
    said = problem.message if problem is not None else None
    report_redirects(explorer)
    rest: Counter[str] = Counter()
    shown = 0
    for node in explorer.nodes.values():
        if node.kind == NodeKind.ROBOTS and node.state == NodeState.DONE:
            continue  # read in part: a run note (run_notes), said once
        if node.state == NodeState.FAILED or (node.error and node.state == NodeState.DONE):
            line = f"{display(node.url)}: {display(node.error)}"
            if line == said:
                continue
            if shown < FAILURES_SAID:
                shown += 1
                print(f"sitemap-tui: {line}", file=sys.stderr)
            else:
                rest[display(_cause(node.url, node.error or "failed"))] += 1
    if rest:
        causes = "; ".join(f"{n:,} {cause}" for cause, n in rest.most_common(3))
        others = f"; {plural(sum(n for _, n in rest.most_common()[3:]), 'other')}" if len(rest) > 3 else ""
        print(f"sitemap-tui: {plural(rest.total(), 'more file')} failed ({causes}{others});"
              " `sitemap-tui stats TARGET --json` lists each file and its error", file=sys.stderr)
    for nid in explorer.cycles:  # nothing is missing, but the site's indexes loop
        node = explorer.nodes[nid]
        parent = explorer.nodes.get(node.parent_id) if node.parent_id is not None else None
        lister = parent.url if parent is not None else "?"
        what = "itself" if lister == node.url else f"{display(node.url)}, which is explored above it"
        print(f"sitemap-tui: {display(lister)} lists {what}: an index cycle, not fetched again", file=sys.stderr)

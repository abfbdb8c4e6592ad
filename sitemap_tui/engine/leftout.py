"""What an exploration left out, and how to say it: one ``Omission`` per cause, with a count
and the option that changes it. The explorer records the cause of each file it did not fetch
or read whole (``Explorer.left_out``); headless commands print one line per omission on stderr
(``commands.report_left_out``), and ``--strict`` turns an incomplete result into exit 1."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sitemap_tui.engine.sanitize import display

KEPT_INDEXES = 4
"""A run keeps the file budget plus this many full indexes of listed files (nodes): NODE_CAP."""


# why an index's relative child is not fetched: on its node (nodes.error), where a re-run that
# carries the index over from its previous exploration finds it (store/carry.py)
RELATIVE_CHILD = "a relative URL (search engines read only absolute ones)"
# why an index's child (or a home page's link) on another host is not fetched, on its node
CROSS_HOST_CHILD = "on another host or port (not followed; use --follow-cross-host)"


class LeftOut(StrEnum):
    """Why a file (or part of one) is not in the result."""

    DEPTH = "depth"  # deeper than --depth
    BUDGET = "budget"  # over --max-files
    FAN_OUT = "fan-out"  # past the cap of children per index or robots.txt
    CROSS_HOST = "cross-host"  # an index child on another host, not followed
    LINK_CROSS_HOST = "link-cross-host"  # a home page's <link rel=sitemap> on another host, not followed
    FROM_LOCAL = "from-local"  # a local index's child URL: its folder is read as no site
    UNFETCHABLE = "unfetchable"  # listed, but not an http(s) URL that may be fetched
    RELATIVE = "relative"  # an index's child written as a relative URL, which engines do not read
    FAILED = "failed"  # fetched, but no usable answer (HTTP error, timeout, not a sitemap)
    CANCELLED = "cancelled"  # the exploration was stopped before or while fetching it
    TIME = "time"  # a headless run's time budget (--max-time) ran out before or while fetching it
    CUT_ENTRIES = "cut-entries"  # read up to the entry cap (50,000), the rest ignored
    CUT_SIZE = "cut-size"  # read up to the decoded size cap (--max-size)
    CUT_PARSE = "cut-parse"  # parsing stopped at an XML error
    CUT_FETCH = "cut-fetch"  # the download failed part-way (time limit, dropped connection)
    CUT_DECODE = "cut-decode"  # the compressed data is corrupt or ends early (a broken .gz)
    REPLACED = "replaced"  # a text sitemap's bytes that are not UTF-8 read as U+FFFD: URLs not as served
    NOT_RECURSIVE = "not-recursive"  # listed sitemaps left alone under --no-recursive
    ROBOTS_CAP = "robots-cap"  # hosts whose robots.txt was not read for cross-submission
    NODE_CAP = "node-cap"  # listed files past the run's cap on files kept: not even shown
    NO_URL = "no-url"  # entries (not files) with no URL in them: nothing to list


@dataclass(frozen=True, slots=True)
class Omission:
    cause: LeftOut
    count: int
    text: str  # the whole line, e.g. "12 files not fetched: depth limit 10 reached (--depth)"
    option: str | None  # the option that changes it, if any
    strict: bool  # makes the result incomplete for --strict (not what the user asked for)
    example: str | None = None  # one URL concerned


def _n(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


def describe(
    cause: LeftOut,
    count: int,
    *,
    max_depth: int,
    max_files: int,
    max_children: int,
    max_decoded: int,
    robots_hosts: int,
    example: str | None = None,
    max_time: float = 0.0,
) -> Omission:
    """The line for ``count`` files (hosts for ROBOTS_CAP, entries for NO_URL) left out for ``cause``."""
    files = _n(count, "file", "files")
    first = f", first {display(example, 200)}" if example else ""
    listed = _n(count, "listed file", "listed files")
    text, option, strict = {
        LeftOut.DEPTH: (f"{files} not fetched: depth limit {max_depth} reached", "--depth", True),
        LeftOut.BUDGET: (f"{files} not fetched: file budget of {max_files:,} reached", "--max-files", True),
        LeftOut.FAN_OUT: (
            f"{listed} not fetched: more than {max_children:,} listed in one index or robots.txt",
            None, True,
        ),
        LeftOut.CROSS_HOST: (
            f"{files} not fetched: on another host or port than {'its' if count == 1 else 'their'} index",
            "--follow-cross-host", True,
        ),
        LeftOut.LINK_CROSS_HOST: (
            f"{_n(count, 'sitemap', 'sitemaps')} the home page links to not fetched: on another host or port"
            f" than the page{first}", "--follow-cross-host", True,
        ),
        LeftOut.FROM_LOCAL: (
            # (not "give the folder as the target": found from outside, said when it was)
            f"{listed} not fetched: listed by a local file whose folder stands for no site (--map URL=DIR "
            "reads them from it; --follow-cross-host fetches them)",
            None, True,
        ),
        # (the first named: "not http(s)" read wrong of an http URL with a control character)
        LeftOut.UNFETCHABLE: (f"{listed} not fetched: not a URL that may be fetched (http or https, with a host"
                              f" and no control characters){first}", None, True),
        LeftOut.RELATIVE: (f"{listed} not fetched: a relative URL in an index (search engines read only absolute"
                           f" ones: index-loc-invalid){first}", None, True),
        LeftOut.FAILED: (f"{files} could not be fetched or read{first}", None, True),
        LeftOut.CANCELLED: (f"{files} not fetched: cancelled", None, True),
        LeftOut.TIME: (f"{files} not fetched, or stopped part-way: the run's time budget of {max_time:g} s ran out",
                       "--max-time", True),
        LeftOut.CUT_ENTRIES: (f"{files} cut short: more than 50,000 entries, the rest not read", None, True),
        LeftOut.CUT_SIZE: (
            f"{files} cut short: more than {max_decoded / 1048576:g} MiB after decompression, the rest not read",
            "--max-size", True,
        ),
        LeftOut.CUT_PARSE: (f"{files} cut short: parsing stopped at an XML error, the entries before it kept", None, True),
        # (not "(--timeout)" alone: a server that closed the connection was no timeout)
        LeftOut.CUT_FETCH: (
            f"{files} cut short: the download failed part-way (the connection dropped, or a read took longer"
            f" than --timeout), the entries before it kept{first}",
            None, True,
        ),
        LeftOut.CUT_DECODE: (
            f"{files} cut short: the compressed data is corrupt or ends early, the entries before it kept{first}",
            None, True,
        ),
        LeftOut.REPLACED: (
            f"{files} not UTF-8: bytes that could not be decoded were read as U+FFFD, so URLs on those lines "
            f"are not as served{first}",
            None, True,
        ),
        LeftOut.NOT_RECURSIVE: (f"{listed} not fetched: not recursive", "without --no-recursive", False),
        LeftOut.NODE_CAP: (
            f"{listed} not kept: a run keeps at most {max_files + KEPT_INDEXES * max_children:,} listed files"
            f" (the file budget and {KEPT_INDEXES} indexes' {max_children:,})", "--max-files", True,
        ),
        LeftOut.NO_URL: (
            f"{_n(count, 'entry', 'entries')} not listed: no URL in {'it' if count == 1 else 'them'} (an empty"
            " or missing <loc>, a feed item without a link, a text line that is no URL; validate names each)"
            f"{', first in ' + display(example, 200) if example else ''}",
            None, False,
        ),
        LeftOut.ROBOTS_CAP: (
            f"cross-submission not checked for {_n(count, 'host', 'hosts')}: robots.txt read on "
            f"{robots_hosts} other hosts at most",
            None, False,
        ),
    }[cause]
    line = f"{text} ({option})" if option else text
    return Omission(cause, count, line, option, strict, example)

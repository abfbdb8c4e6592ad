"""What the streaming parsers produce: items (entries, index children, findings) and the
file-level facts they gather. A module of its own so that the sniffer and the parsers it
delegates to share these types without importing each other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from .findings import Finding
from .model import ChildRef, Entry

Item: TypeAlias = Entry | ChildRef | Finding


@dataclass(slots=True)
class ParseInfo:
    """File-level facts found while parsing, for the checker and the UI."""

    root: str | None = None  # Clark name of the root element, e.g. "{ns}urlset"
    root_line: int | None = None  # its line: where a finding about the file as a whole points
    namespace: str | None = None  # namespace of the root element
    namespaces: dict[str, str] = field(default_factory=dict)  # declared on the root ("" = default)
    format: str | None = None  # urlset, sitemapindex, rss2.0, rss1.0, atom1.0, atom0.3, text, ...
    xml_encoding: str | None = None  # as declared in <?xml ... encoding="..."?>
    has_declaration: bool = False
    bom: str | None = None  # "utf-8", "utf-16" or None
    leading_whitespace: bool = False  # whitespace (or other bytes) before the first markup/line
    truncated_at: str | None = None  # "line:col" where parsing stopped (syntax error, size cut)
    entries: int = 0  # Entry + ChildRef items produced
    stopped: bool = False  # not everything was kept (entry cap, DOCTYPE, fatal error, root, cut)
    lines: int = 0  # text sitemaps: lines in the file (read, or counted after the entry cap)
    replaced_at: int | None = None  # text sitemaps: the first line with bytes that are not UTF-8 (read as U+FFFD)
    no_url: int = 0  # text sitemaps: lines that are no URL (not blank), not listed
    repeated_loc: int = 0  # a second (third...) <loc> of one <url> or <sitemap>: the first is read
    # elements of no protocol inside a <url> or <sitemap> that hold a <loc> (a <url> in a <url>,
    # a wrapper around a <loc>): what they hold is not read (said by urls and stats)
    hidden_locs: int = 0
    # Why the file was not read whole, in the order it happened: the rule id of each cut
    # ("url-count-over-limit", "index-too-many-sitemaps", "size-over-limit", or the fetch
    # error's rule when the body ended early). Empty: nothing was cut.
    cuts: list[str] = field(default_factory=list)
    # entries in the file when the entry cap cut it (kept + counted after the cap; a lower
    # bound when the body was cut too); None when the cap was not reached. Text sitemaps
    # count lines instead (``lines``).
    listed: int | None = None

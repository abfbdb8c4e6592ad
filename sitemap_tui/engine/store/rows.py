"""The rows the store takes in and hands out: entry batches, entry and issue rows, filters."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sitemap_tui.engine.keys import entry_columns, link_columns, stored_key, url_key
from sitemap_tui.engine.model import Entry, FileStats, FoundBy, Node, NodeKind, NodeState
from sitemap_tui.engine.store.schema import NODE_STAT_COLUMNS


@dataclass(slots=True)
class EntryFilter:
    """What the URL table and export ask for; every field narrows the result."""

    node_ids: Sequence[int] | None = None  # None = every node
    substring: str | None = None
    # more substrings every URL holds too (the filter bar's plain words, all of them): the
    # search index narrows by ``substring``, each of these is checked on its candidates
    also_contains: tuple[str, ...] = ()
    regex: str | None = None
    url: str | None = None  # exactly this URL (`url:…`: an issue's drill to the one URL it names)
    # the entries of the sitemap file at this URL (as listed or where it redirected: `sitemap:…`,
    # a file finding's drill to the URLs it counted, within the selection)
    sitemap: str | None = None
    lastmod_from: int | None = None  # unix seconds, inclusive
    lastmod_to: int | None = None  # unix seconds, exclusive
    has_issue: bool = False
    extension: str | None = None  # one of EXTENSIONS
    # entries with an alternate link in this hreflang language, as stats.Aggregate.hreflang
    # counts it (stripped, lower case, 35 characters): the Extensions pane's language rows
    hreflang: str | None = None
    rule: str | None = None  # entries with an issue of this rule
    entry_ids: Sequence[int] | None = None  # marked rows
    # the groups the Overview and Lastmod panes count (stats.Aggregate), so a drill into one
    # lists exactly the URLs it counted: "missing" (no element) or "invalid" (one that does not
    # parse) for lastmod; a word, "missing" or "invalid" for changefreq; a one-decimal value as
    # the Overview rounds it ("0.5"), "missing" or "invalid" for priority; "any" for each: the
    # element is there, valid or not (what changefreq-ignored and priority-ignored count)
    lastmod_state: str | None = None
    changefreq: str | None = None
    priority: str | None = None
    # compare mode (issue 20): a change category of engine.store.diff_view.MARKS, and the
    # comparison's scratch database that knows it (ATTACHed by the query that reads the filter)
    diff: str | None = None
    diff_db: str | None = None
    # audit and crawler access (issue 22, engine.store.audit_filters): "404", "3xx" or "none"
    # (no answer); indexable yes/no; a word of the reason; "other", "self" or "none"; an agent
    status: str | None = None
    indexable: bool | None = None
    reason: str | None = None
    canonical: str | None = None
    blocked: str | None = None
    allowed: str | None = None
    # coverage (issue 22 §3, engine.store.coverage_filters): entries no crawled page links to;
    # "missing" (pages of the list or crawl in no sitemap: not entries) or "not-in-list"
    orphan: bool = False
    coverage: str | None = None


@dataclass(frozen=True, slots=True)
class AuditCells:
    """A URL's audit result and crawler access as the URL table shows them (audit_filters)."""

    audited: bool  # an audit result exists (else only the access verdict)
    status: int | None = None  # the final status; None: no answer (or not audited)
    redirects: int = 0
    indexable: int | None = None  # 1 / 0 as stored (a sort key); None: not audited
    reason: str | None = None
    canonical: str | None = None
    final_url: str | None = None
    loc: str | None = None  # the URL as the audit fetched it (its first listing's loc)
    response_time: float | None = None  # seconds
    blocked: tuple[str, ...] = ()  # the crawlers robots.txt disallows it for
    access_known: bool = False  # blocked says something (robots.txt read / audited)
    blocked_key: Any = None  # the "blocked" sort's value, as the query sorts it


@dataclass(slots=True)
class EntryRow:
    id: int
    node_id: int
    loc: str | None
    line: int | None
    lastmod_raw: str | None
    lastmod: int | None
    changefreq_raw: str | None
    priority_raw: str | None
    n_images: int
    n_videos: int
    n_news: int
    n_alternates: int
    n_issues: int
    priority: float | None = None
    """The parsed priority: read by the URL table's queries only (its keyset sorts on it)."""
    audit: AuditCells | None = None
    """The URL's audit / access cells: read by the URL table's queries only (None: neither)."""

    @property
    def sort_value(self) -> Any:
        return self.id


ENTRY_COLUMNS = (
    "e.id, e.node_id, e.loc, e.line, e.lastmod_raw, e.lastmod, e.changefreq_raw, e.priority_raw,"
    " e.n_images, e.n_videos, e.n_news, e.n_alternates, e.n_issues"
)


@dataclass(slots=True)
class IssueRow:
    id: int
    rule: str
    severity: str
    node_id: int | None
    entry_id: int | None
    line: int | None
    col: int | None
    url: str | None
    message: str
    sitemap: str | None = None
    weight: int = 1  # how many findings it counts for (a cap's summary issue: those not listed)


@dataclass(frozen=True, slots=True)
class IssueScope:
    """The issues one stage owns (the cross-file rules, the deep checks): what a new run of it
    replaces (:meth:`Store.forget_issues`)."""

    rules: Sequence[str]
    node_ids: Sequence[int] | None = None  # only issues on these files (None: anywhere)
    entries_only: bool = False  # only issues on an entry, not a file's own
    # (rule, message ending): a rule another stage reports too; of its issues only those on no
    # entry (a cap summary) or whose message ends so are this stage's
    shared: Sequence[tuple[str, str]] = ()

    def where(self) -> tuple[str, list[Any]]:
        """The SQL condition on ``issues`` and its parameters."""
        rules = list(self.rules)
        mine = f"rule IN ({','.join('?' * len(rules))})"
        params: list[Any] = rules
        for rule, ending in self.shared:
            mine = f"({mine} OR (rule = ? AND (entry_id IS NULL OR message LIKE ?)))"
            params += [rule, "%" + ending]
        if self.node_ids is not None:
            mine += f" AND node_id IN ({','.join(str(int(n)) for n in self.node_ids) or 'NULL'})"
        if self.entries_only:
            mine += " AND entry_id IS NOT NULL"
        return mine, params


@dataclass(slots=True)
class EntryRows:
    """A batch of entries flattened to plain tuples: cheap to pickle between processes.

    Extension tuples start with the entry's index within the batch."""

    entries: list[tuple[Any, ...]] = field(default_factory=list)
    images: list[tuple[Any, ...]] = field(default_factory=list)
    videos: list[tuple[Any, ...]] = field(default_factory=list)
    news: list[tuple[Any, ...]] = field(default_factory=list)
    alternates: list[tuple[Any, ...]] = field(default_factory=list)


ENTRY_INSERT = (
    "INSERT INTO entries(id, node_id, loc, line, lastmod_raw, lastmod, changefreq_raw, changefreq, priority_raw,"
    " priority, n_images, n_videos, n_news, n_alternates, title, key, alt_n, alt_h)"
    " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
# A plain row (most of them): no extension, no title, its key is its loc (NULL) and it lists no
# hreflang link (alt_n 0, alt_h NULL): these are the values after its first eight. It binds 10
# values instead of 18, the columns left out taking their defaults: binding is most of what
# executemany costs, and these writes are most of what keeping the history adds to `urls`.
PLAIN_TAIL = (0, 0, 0, 0, None, None, 0, None)
PLAIN_INSERT = (
    "INSERT INTO entries(id, node_id, loc, line, lastmod_raw, lastmod, changefreq_raw, changefreq, priority_raw,"
    " priority, alt_n) VALUES(?,?,?,?,?,?,?,?,?,?,0)"
)


def insert_entries(conn: Any, node_id: int, rows: EntryRows, first: int) -> None:
    """Insert a batch's entry rows as ids ``first`` … (its extension rows are the caller's):
    the plain ones through PLAIN_INSERT, the others through ENTRY_INSERT."""
    plain: list[tuple[Any, ...]] = []
    rich: list[tuple[Any, ...]] = []
    for i, row in enumerate(rows.entries):
        if row[8:] == PLAIN_TAIL:
            plain.append((first + i, node_id, *row[:8]))
        else:
            rich.append((first + i, node_id, *row))
    if plain:
        conn.executemany(PLAIN_INSERT, plain)
    if rich:
        conn.executemany(ENTRY_INSERT, rich)


def entry_rows(entries: Sequence[Entry], signature_key: bytes) -> EntryRows:
    """The rows of a batch, with the keys the cross-file rules join on (engine.keys);
    ``signature_key`` is the store's (Store.signature_key)."""
    out = EntryRows()
    rows, images, videos, news, alternates = out.entries, out.images, out.videos, out.news, out.alternates
    for i, e in enumerate(entries):
        lm = e.lastmod
        if not (e.alternates or e.images or e.videos or e.news):
            # the common row, as below with no extension rows (entry_columns with no links):
            # written out, since this runs for every URL a store keeps
            loc = e.loc
            rows.append((
                loc, e.line, e.lastmod_raw, int(lm.timestamp()) if lm is not None else None,
                e.changefreq_raw, e.changefreq, e.priority_raw, e.priority, 0, 0, 0, 0, e.title,
                stored_key(url_key(loc), loc), 0, None,
            ))
            continue
        links: list[tuple[str, str]] = []
        for a in e.alternates:
            link, lang, tgt = link_columns(a.rel, a.hreflang, a.href)
            alternates.append((i, a.rel, a.hreflang, a.href, a.line, lang, tgt, a.media))
            if link is not None:
                links.append(link)
        rows.append(
            (
                e.loc, e.line, e.lastmod_raw, int(lm.timestamp()) if lm is not None else None,
                e.changefreq_raw, e.changefreq, e.priority_raw, e.priority,
                len(e.images), len(e.videos), len(e.news), len(e.alternates), e.title,
                *entry_columns(e.loc, links, signature_key),
            )
        )
        for im in e.images:
            images.append((i, im.loc, im.title, im.caption, im.geo_location, im.license, im.line))
        for v in e.videos:
            videos.append(
                (i, v.line, json.dumps({"fields": v.fields, "multi": v.multi, "attrs": v.attrs, "tags": v.tags}))
            )
        for n in e.news:
            news.append(
                (i, n.publication_name, n.publication_language, n.publication_date, n.title,
                 json.dumps(n.extra) if n.extra else None, n.line)
            )
    return out


def chunks(items: list[Any], n: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), n):
        yield items[i : i + n]


def row_to_node(row: Sequence[Any]) -> Node:
    (nid, url, kind, state, found_by, parent_id, depth, error, expandable, line, lastmod_raw) = row[:11]
    n = 11 + len(NODE_STAT_COLUMNS)
    stats = FileStats(**dict(zip(NODE_STAT_COLUMNS, row[11:n], strict=True)))
    if len(row) > n:  # the reads' unchanged_since (NULL from a store older than the column)
        stats.unchanged_since = row[n]
    stats.gzipped = bool(stats.gzipped)
    stats.wire_bytes = stats.wire_bytes or 0
    stats.decoded_bytes = stats.decoded_bytes or 0
    stats.url_count = stats.url_count or 0
    stats.child_count = stats.child_count or 0
    return Node(
        id=nid, url=url, kind=NodeKind(kind), state=NodeState(state), found_by=FoundBy(found_by),
        parent_id=parent_id, depth=depth, error=error, stats=stats, expandable=bool(expandable),
        line=line, lastmod_raw=lastmod_raw,
    )

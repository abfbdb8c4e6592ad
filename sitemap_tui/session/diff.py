"""What changed between two explorations (issue 20): the comparison ``sitemap-tui diff`` reports.

Two URLs are one URL when their keys match: ``engine.keys.url_key``, the normalisation the
duplicate rules use (``engine.urlpolicy.normalize``: scheme and host in lower case, no default
port, dot segments removed, percent-encoding in one form; a trailing slash is another URL and a
query is not reordered). ``--map-host OLD=NEW`` rewrites a host in every key of both trees, for
a migration. A sitemap file is keyed the same way, except a local file: by its path under the
folder explored (``./public`` against ``./public-new`` compares ``sitemap.xml`` with
``sitemap.xml``).

The work is SQL over both stores (engine.store.diff); this module keys the files, names the
counts and hands the lists on."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

from sitemap_tui.engine.keys import url_key
from sitemap_tui.engine.store import StoreError
from sitemap_tui.engine.store.diff import UNREAD, DiffQueries, NodeRow, SitemapChange
from sitemap_tui.engine.store.diff_view import build_view
from sitemap_tui.engine.tree_order import listing_order
from sitemap_tui.session.exits import UsageError

SUMMARY_KEYS = (
    "urls_added", "urls_removed", "urls_moved",
    "lastmod_changed", "lastmod_forward", "lastmod_backward", "lastmod_set", "lastmod_cleared",
    "changefreq_changed", "priority_changed",
    "images_changed", "videos_changed", "news_changed", "hreflang_changed",
    "sitemaps_added", "sitemaps_removed", "sitemaps_failing", "sitemaps_recovered", "sitemaps_changed",
    "sitemaps_unfetched", "issues_new", "issues_resolved",
)
"""The summary's integer counts, in the order every format writes them."""

ALIASES = {"added": "urls_added", "removed": "urls_removed", "moved": "urls_moved"}
"""Short names ``--fail-if`` takes for the URL counts."""

EXTENSION_KINDS = ("images", "videos", "news", "hreflang")

_HOST = re.compile(r"[a-z0-9.-]+(?::[0-9]{1,5})?")
_DEFAULT_PORTS = {"http": "80", "https": "443"}


@dataclass(frozen=True, slots=True)
class HostMap:
    """``--map-host`` pairs: a key whose host (or host:port) is ``old`` gets ``new`` instead."""

    pairs: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, values: Sequence[str]) -> HostMap:
        pairs = []
        for value in values:
            old, sep, new = value.partition("=")
            old, new = old.strip().lower(), new.strip().lower()
            if not sep or not _HOST.fullmatch(old) or not _HOST.fullmatch(new):
                raise UsageError(f"--map-host {value!r}: expected OLD-HOST=NEW-HOST (example.org=example.com)")
            pairs.append((old, new))
        return cls(tuple(pairs))

    def __call__(self, key: str | None) -> str | None:
        if key is None:
            return None
        start = key.find("://")
        if start < 0:
            return key
        start += 3
        end = key.find("/", start)
        end = len(key) if end < 0 else end
        netloc = key[start:end]
        host = netloc.split(":", 1)[0]
        # a key drops the scheme's default port: "old.example:443" names https://old.example too
        # (found by a review: it matched nothing), and a NEW with it is written without it
        default = _DEFAULT_PORTS.get(key[:start - 3].lower())
        full = f"{netloc}:{default}" if default and ":" not in netloc else netloc
        for old, new in self.pairs:
            if old in (netloc, full) or (host == old and ":" not in old):
                if ":" not in new:  # (host for host: the port, if any, stays)
                    new += netloc[len(host):] if old == host else ""
                if default and new.endswith(f":{default}"):
                    new = new[:-len(default) - 1]
                return key[:start] + new + key[end:]
        return key

    def in_text(self, text: str | None) -> str | None:
        """``text`` (a finding's message) with each OLD host or host:port written as its NEW, so
        that a finding that names a host compares across the mapping (found by a review)."""
        if not text or not self.pairs:
            return text
        for old, new in self.pairs:
            text = re.sub(rf"(?<![\w.-]){re.escape(old)}(?![\w-]|\.\w)", new, text)
        return text


def file_keys(nodes: Sequence[NodeRow]) -> Iterator[tuple[int, str]]:
    """Each node's file key: its URL key, or a local file's path under the folder explored."""
    root = next((n for n in nodes if n.parent_id is None), None)
    base: PurePosixPath | None = None
    if root is not None and root.url.startswith("file:"):
        path = PurePosixPath(unquote(urlsplit(root.url).path))
        base = path if root.kind == "directory" else path.parent
    for node in nodes:
        if node.url.startswith("file:") and base is not None:
            path = PurePosixPath(unquote(urlsplit(node.url).path))
            try:
                rel = path.relative_to(base).as_posix()
                yield node.id, "./" if rel == "." else "./" + rel
                continue
            except ValueError:
                pass  # outside the folder: its whole URL
        yield node.id, url_key(node.url) or node.url


def _same_root(old_nodes: Sequence[NodeRow], old_keys: dict[int, str],
               new_nodes: Sequence[NodeRow], new_keys: dict[int, str]) -> None:
    """Two explorations of one sitemap file each (``diff old-sitemap.xml new-sitemap.xml``, a
    sitemap URL against its staging copy): the roots are the same file, whatever their names."""
    old_root = next((n for n in old_nodes if n.parent_id is None), None)
    new_root = next((n for n in new_nodes if n.parent_id is None), None)
    if old_root is None or new_root is None or {old_root.kind, new_root.kind} & {"site", "directory"}:
        return
    new_keys[new_root.id] = old_keys[old_root.id]


@dataclass(slots=True)
class Diff:
    """The comparison of OLD and NEW: its counts (``summary``, by SUMMARY_KEYS), by rule
    (``issues_new_by_rule``), per sitemap file, and the queries its lists stream from."""

    queries: DiffQueries
    old_totals: tuple[int, int]
    new_totals: tuple[int, int]
    summary: dict[str, int] = field(default_factory=dict)
    sitemaps: list[SitemapChange] = field(default_factory=list)
    issues_new_by_rule: dict[str, int] = field(default_factory=dict)
    issues_resolved_by_rule: dict[str, int] = field(default_factory=dict)
    old_target: str | None = None
    new_target: str | None = None
    keyless: dict[str, int] = field(default_factory=dict)  # per side: entries not compared (no URL key)

    def close(self) -> None:
        self.queries.close()

    def count(self, name: str) -> int:
        return self.summary[ALIASES.get(name, name)]


Keyed = dict[str, tuple[list[NodeRow], dict[int, str]]]


def build(q: Any, mapper: HostMap | None) -> Keyed:
    """Key both trees' files (hosts mapped), check they are one site's, and build the
    comparison's tables in ``q`` (a DiffQueries, or the reference tests hold it to); returns
    each side's nodes and their file keys."""
    keyed = {}
    for side in ("old", "new"):
        nodes = q.nodes(side)
        keys = dict(file_keys(nodes))
        if mapper is not None:
            keys = {nid: mapper(k) or k for nid, k in keys.items()}
        keyed[side] = (nodes, keys)
    _same_root(*keyed["old"], *keyed["new"])
    for side in ("old", "new"):  # in the listing's order: it picks a URL's first listing
        nodes, keys = keyed[side]
        order = listing_order((n.id, n.parent_id, n.line) for n in nodes)
        q.load_files(side, [(nid, keys[nid]) for nid in order if nid in keys])
    q.build()
    return keyed


UNREADABLE = ("failed", "cut", *UNREAD)  # (node_states: "cut", read in part)
"""A file's states when what it lists was never read."""


def mark_unlisted(changes: list[SitemapChange], keyed: Keyed, states: dict[str, dict[int, str]]) -> list[SitemapChange]:
    """A file only one side has, because on the other side the file listing it (or one above
    that) failed, was cut short or was never fetched, is "unfetched" there, not "removed" (or
    "added"): an index answering 500 read as every child sitemap gone, with exit 0, where a
    child left unfetched by a file budget read as not fetched; an index cut short by an XML
    error, its children after the break as removed."""
    out: dict[str, SitemapChange] = {}
    for side, other in (("old", "new"), ("new", "old")):
        nodes, keys = keyed[side]
        parent = {n.id: n.parent_id for n in nodes}
        other_nodes, other_keys = keyed[other]
        other_state = {other_keys[n.id]: states[other].get(n.id) for n in other_nodes if n.id in other_keys}
        node_of = {keys[n.id]: n.id for n in reversed(nodes) if n.id in keys}  # (a key's first node)
        for change in changes:
            if (change.new_url if other == "new" else change.old_url) is not None or change.key not in node_of:
                continue
            up = parent.get(node_of[change.key])
            while up is not None:
                key = keys.get(up)
                if key is not None and key in other_state:
                    if other_state[key] in UNREADABLE:
                        out[change.key] = replace(change, unlisted_by=key, unlisted_state=other_state[key])
                    break
                up = parent.get(up)
    return [out.get(c.key, c) for c in changes]


def compare(old: Path, new: Path, scratch: Path, host_map: HostMap | None = None) -> Diff:
    """OLD against NEW; ``scratch`` is a new file for the comparison's tables (the caller
    removes it). Raises StoreError for a file that is not an exploration."""
    mapper = host_map if host_map is not None and host_map.pairs else None
    try:
        q = DiffQueries(old, new, scratch, map_host=mapper, map_text=mapper.in_text if mapper else None,
                        sampled=_sampled_rules())
    except sqlite3.Error as exc:
        if isinstance(exc, StoreError):
            raise
        raise StoreError(scratch, f"cannot compare {old} with {new}: {exc}") from exc
    try:
        keyed = build(q, mapper)
        diff = Diff(q, q.totals("old"), q.totals("new"))
        diff.old_target, diff.new_target = _target(q.meta("old", "target")), _target(q.meta("new", "target"))
        diff.sitemaps = mark_unlisted(list(q.sitemaps()), keyed, {side: q.node_states(side) for side in ("old", "new")})
        diff.issues_new_by_rule = q.issue_counts(new=True)
        diff.issues_resolved_by_rule = q.issue_counts(new=False)
        diff.summary = _summary(q, diff)
        diff.keyless = {side: q.keyless(side) for side in ("old", "new")}
    except BaseException as exc:
        q.close()
        if isinstance(exc, sqlite3.Error) and not isinstance(exc, StoreError):
            # a full temporary folder, a store that went away: one line, exit 2
            raise StoreError(scratch, f"cannot compare {old} with {new}: {exc}") from exc
        raise
    return diff


def unlike_checks(sides: Sequence[tuple[str, str | None, str | None]]) -> str:
    """The words that say OLD's and NEW's findings do not compare, "" when they do: each side
    as (label, the rules it was judged by: all, selected or none, the command that kept it)."""
    for i, (label, checks, command) in enumerate(sides):
        other = sides[1 - i][1]
        if checks in ("none", "selected") and checks != other:
            what = "checks no rules" if checks == "none" else "checked only some rules"
            return f"not like for like: {label} was kept by `{command or 'an earlier run'}`, which {what}"
    return ""


def _sampled_rules() -> list[str]:
    """The rules whose finding names one file's many URLs by a sample (rules.Rule.sample)."""
    from sitemap_tui.validate.registry import RULES

    return [rule_id for rule_id, spec in RULES.items() if spec.sample]


def _target(raw: str | None) -> str | None:
    import json

    if raw is None:
        return None
    try:
        value: Any = json.loads(raw)
    except ValueError:
        return raw
    return value if isinstance(value, str) else raw


def _summary(q: DiffQueries, diff: Diff) -> dict[str, int]:
    lastmod = q.lastmod_counts()
    attrs = q.attr_counts()
    ext = q.ext_counts()
    status = [s.status for s in diff.sitemaps]
    counts = {
        "urls_added": q.count("added"),
        "urls_removed": q.count("removed"),
        "urls_moved": q.count("moved"),
        "lastmod_changed": sum(lastmod.values()),
        **{f"lastmod_{d}": lastmod.get(d, 0) for d in ("forward", "backward", "set", "cleared")},
        "changefreq_changed": attrs.get("changefreq", 0),
        "priority_changed": attrs.get("priority", 0),
        **{f"{kind}_changed": ext.get(kind, 0) for kind in EXTENSION_KINDS},
        **{f"sitemaps_{s}": status.count(s) for s in ("added", "removed", "failing", "recovered", "changed",
                                                     "unfetched")},
        "issues_new": sum(diff.issues_new_by_rule.values()),
        "issues_resolved": sum(diff.issues_resolved_by_rule.values()),
    }
    return {key: counts[key] for key in SUMMARY_KEYS}


def compare_for_view(old: Path, new: Path, scratch: Path, host_map: HostMap | None = None) -> Diff:
    """:func:`compare`, plus what compare mode reads (engine.store.diff_view: the rows of each
    ``diff:`` filter, OLD's removed rows, the tree's badges), all in ``scratch``; the returned
    Diff's connection is closed: the explorer ATTACHes ``scratch`` to its own."""
    diff = compare(old, new, scratch, host_map)
    try:
        build_view(diff.queries.conn)
    except sqlite3.Error as exc:
        raise StoreError(scratch, f"cannot compare {old} with {new}: {exc}") from exc
    finally:
        diff.close()
    return diff


@dataclass(frozen=True, slots=True)
class SiteHistory:
    """The Overview's history line: this exploration against the site's latest other one kept
    in the cache (URLs added and removed), and the URL count of each kept exploration, oldest
    first (this one last)."""

    since: str | None  # the earlier exploration's start (ISO 8601 UTC); None: there is none
    added: int
    removed: int
    url_counts: tuple[int, ...]


def site_history(db: Path, scratch: Path) -> SiteHistory:
    """The history of ``db``'s site (session/history.py's key) from the cache: a list of the
    cache and one key-set comparison, for a worker thread. Raises StoreError, OSError."""
    from sitemap_tui.engine.store.diff_view import url_delta
    from sitemap_tui.engine.store.summary import read_summary
    from sitemap_tui.session.history import explorations_of
    from sitemap_tui.session.recent import Saved

    me = Saved(read_summary(db), 0)
    mine = db.resolve()
    # (one that listed nothing, a session while the index failed, is no baseline: the headless
    # runs keep none such; found by a review, the next session read "+2 −0" against it)
    others = [s for s in explorations_of(me.site) if s.path.resolve() != mine and s.date <= me.date and s.summary.urls]
    counts = tuple(s.summary.urls for s in reversed(others)) + (me.summary.urls,)
    if not others:
        return SiteHistory(None, 0, 0, counts)
    earlier = others[0]
    try:
        added, removed = url_delta(earlier.path, db, scratch)
    except sqlite3.Error as exc:
        raise StoreError(earlier.path, f"cannot compare with {db}: {exc}") from exc
    return SiteHistory(earlier.date.isoformat(), added, removed, counts)

"""The streaming checker: per-entry, per-child, per-file and robots.txt rules.

The explorer calls, for every sitemap file::

    checker.begin_file(ctx)
    checker.check_entry(ctx, entry)   # for every <url> / text line / feed item
    checker.check_child(ctx, child)   # for every <sitemap> of an index
    checker.end_file(ctx, info, stats)

and ``check_robots(robots, ctx)`` for every robots.txt. Each returns a list of
:class:`~sitemap_tui.engine.model.Issue`. Per-file state lives on the :class:`FileContext`
(``begin_file`` creates it), so one ``Checker`` can serve files parsed concurrently.

Noise policy: rules about one entry are reported on that entry (with its line). Rules that are
reminders about the generator rather than about one entry (``lastmod-missing``,
``changefreq-ignored``, ``priority-ignored``, deprecated/legacy extension tags, unknown
namespaces, images on another host, ``hreflang-x-default-missing`` ...) are counted while the
file streams and reported once per file by ``end_file``, at the first occurrence, with a count.

Rules that need other files, the XSD or HTTP fetches of the listed pages are not decided here:
each rule's ``decided_by`` (in its family module, ``validate/rules/``) names what decides it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from sitemap_tui.engine.keys import normalized
from sitemap_tui.engine.model import (
    ChildRef,
    Entry,
    FileStats,
    FoundBy,
    Issue,
    NodeKind,
)
from sitemap_tui.engine.robots import RobotsFile
from sitemap_tui.engine.validator import FileFacts

# where their callers (the explorer, the tests) have always found them
from sitemap_tui.validate.checkstate import (
    _PING_RE,
    _PLAIN_TAGS,
    ATOM03_NS,
    CHANGEFREQ_SET,
    INDEX_CHILD_TAGS,
    MAX_BYTES,
    MAX_NEWS,
    MAX_URLS,
    NEAR_BYTES,
    NEAR_URLS,
    NEWS_NS,
    FileContext,
    FileState,
    Tally,
    _local,
    bump,
    expected_namespace,  # noqa: F401
    tally,
)
from sitemap_tui.validate.registry import RULES, RegistryJudge, make_issue
from sitemap_tui.validate.rules.dates import check_lastmod, check_priority, lastmod_findings
from sitemap_tui.validate.rules.elements import OddLines, check_tags
from sitemap_tui.validate.rules.feeds import check_feed_date
from sitemap_tui.validate.rules.hreflang import (
    check_alternates,
    hreflang_problem,  # noqa: F401
)
from sitemap_tui.validate.rules.image import check_images
from sitemap_tui.validate.rules.index import check_child_location, check_child_order, lastmod_stale
from sitemap_tui.validate.rules.location import check_location
from sitemap_tui.validate.rules.news import check_news
from sitemap_tui.validate.rules.robots import check_robots, cross_submitted, robots_fetch_failed
from sitemap_tui.validate.rules.video import check_videos
from sitemap_tui.validate.urlcheck import (
    LocFinding,
    UrlParts,
    analyze_loc,
    directory_of,
    split_base,
    url_problem,
)


class Checker:
    """Runs the single-file rules. ``enabled``: the rule ids to report (``None``: all)."""

    def __init__(self, enabled: Iterable[str] | None = None, xsd_mode: str = "lax") -> None:
        if xsd_mode not in ("lax", "strict", "off"):
            raise ValueError(f"xsd_mode must be lax, strict or off, not {xsd_mode!r}")
        self.xsd_mode = xsd_mode
        self.enabled: frozenset[str] | None = None
        if enabled is not None:
            self.enabled = frozenset(enabled)
            unknown = self.enabled - RULES.keys()
            if unknown:
                raise KeyError(f"unknown rule ids: {', '.join(sorted(unknown))}")
        # the user's selection, applied here and by the judge the engine words its findings
        # through (the checker's issues and the engine's alike)
        self.judge = RegistryJudge(self.enabled)
        self.selection = self.judge.selection

    # -- plumbing ----------------------------------------------------------------------------

    def _keep(self, issues: list[Issue]) -> list[Issue]:
        return self.selection.keep(issues)

    def _state(self, ctx: FileContext) -> FileState:
        st = ctx._state
        if st is None:
            st = ctx._state = FileState()
        key = (ctx.url, ctx.final_url)
        if st.base_key != key:
            st.base_key = key
            final = ctx.final_url or ctx.url
            st.base = split_base(final)
            st.base_dir = directory_of(st.base.path) if st.base else "/"
            st.requested = None
            if ctx.final_url and ctx.final_url != ctx.url:
                st.requested = split_base(ctx.url)
                st.requested_dir = directory_of(st.requested.path) if st.requested else "/"
            st.robots_origins = frozenset(
                (q.scheme, q.host, q.port) for u in ctx.robots_listed_by if (q := split_base(u)) is not None)
        return st

    @staticmethod
    def _bump(t: Tally, line: int | None, url: str | None) -> None:
        if not t.count:
            t.line, t.url = line, url
        t.count += 1

    # -- per file ----------------------------------------------------------------------------

    # -- the engine's plug-in seam (sitemap_tui.engine.validator.Validator) -----------------
    @property
    def cross_submit_rules(self) -> frozenset[str]:
        return CROSS_SUBMIT_RULES

    def file_context(self, facts: FileFacts) -> FileContext:
        return FileContext(
            node_id=facts.node_id, url=facts.url, final_url=facts.final_url, kind=facts.kind,
            found_by=facts.found_by, parent_url=facts.parent_url, parent_kind=facts.parent_kind,
            robots_listed_by=facts.robots_listed_by, now=facts.now, parent_node_id=facts.parent_node_id,
            parent_line=facts.parent_line, listed_lastmod_raw=facts.listed_lastmod_raw,
        )

    def begin_file(self, ctx: FileContext) -> None:
        """Start a file: fresh per-file state (duplicates, counters, reminders)."""
        ctx._state = None
        ctx._xsd = None
        self._state(ctx)

    def element_hook(self, ctx: FileContext) -> Callable[[Any], bool] | None:
        """For the XML parser: each finished <url>/<sitemap> element goes through the chunked
        XSD validator (after the parser took its fields). The validator takes the element
        itself, which costs half of copying its content out (the parser then leaves it be)."""
        xsd_rules = {"xsd-invalid", "core-unknown-attribute", "xsd-schema-location-odd"}
        if self.xsd_mode == "off" or (self.enabled is not None and not xsd_rules & self.enabled):
            return None
        from sitemap_tui.validate.xsd import XsdValidator

        # ext-namespace-unknown comes from the tag checks already; don't report it twice
        validator = XsdValidator(self.xsd_mode, node_id=ctx.node_id, namespace_info=False, enabled=self.enabled)
        ctx._xsd = validator
        begun = False

        def hook(el: Any) -> bool:
            nonlocal begun
            if not begun:
                begun = True
                root = el.getparent()
                if root is None:
                    return False
                validator.begin_root(root)
            return validator.take(el)

        return hook

    def end_file(self, ctx: FileContext, info: Any, stats: FileStats | None) -> list[Issue]:
        """File-level rules, once the whole file went through ``check_entry``/``check_child``."""
        st = self._state(ctx)
        out: list[Issue] = []
        nid = ctx.node_id
        kind = ctx.kind
        stopped = bool(getattr(info, "stopped", False)) or bool(getattr(info, "truncated_at", None))
        fmt = getattr(info, "format", None)

        def add(
            rule: str, line: int | None = None, url: str | None = None, **fields: Any
        ) -> None:
            out.append(make_issue(rule, node_id=nid, line=line, url=url, **fields))

        count = max(st.entries, stats.url_count if stats else 0)
        if kind is NodeKind.INDEX:
            count = max(st.children, stats.child_count if stats else 0)
        # a file cut at a limit is over it (its own issue says so), not near it
        cuts = getattr(info, "cuts", None) or ()
        if (
            kind in (NodeKind.URLSET, NodeKind.TEXT, NodeKind.INDEX)
            and NEAR_URLS < count <= MAX_URLS
            and "url-count-over-limit" not in cuts
            and "index-too-many-sitemaps" not in cuts
        ):
            add("url-count-near-limit", count=count)
        size = stats.decoded_bytes if stats else 0
        if NEAR_BYTES < size <= MAX_BYTES and "size-over-limit" not in cuts:
            add("size-near-limit", size=size)
        if kind is NodeKind.URLSET and count == 0 and not stopped:
            namespaces = getattr(info, "namespaces", None) or {}
            news = NEWS_NS in namespaces.values()
            add("urlset-empty", news=news)  # the rule grades an empty news sitemap lower
        if kind is NodeKind.INDEX and count == 0 and not stopped:
            add("index-empty")
        if kind is NodeKind.INDEX and ctx.parent_kind is NodeKind.INDEX:
            # on its <sitemapindex> line: an annotation needs one (the file as a whole is the fault)
            add("index-nested", line=getattr(info, "root_line", None), parent_url=ctx.parent_url or "?")
        if kind in (NodeKind.RSS, NodeKind.ATOM):
            add("feed-partial-coverage", format="RSS" if kind is NodeKind.RSS else "Atom")
            if fmt == "atom0.3" or getattr(info, "namespace", None) == ATOM03_NS:
                add("feed-atom03")
        if st.news > MAX_NEWS:
            add("news-too-many", count=st.news)
        if ctx.parent_kind is NodeKind.INDEX and kind in (
            NodeKind.RSS,
            NodeKind.ATOM,
            NodeKind.TEXT,
        ):
            what = {
                NodeKind.RSS: "an RSS feed",
                NodeKind.ATOM: "an Atom feed",
                NodeKind.TEXT: "a text sitemap",
            }
            out.append(
                make_issue(
                    "index-child-is-feed-or-text",
                    node_id=ctx.parent_node_id if ctx.parent_node_id is not None else nid,
                    line=ctx.parent_line,
                    url=ctx.url,
                    format=what[kind],
                )
            )
        if ctx.listed_lastmod_raw and ctx.parent_kind is NodeKind.INDEX:
            out += lastmod_stale(ctx, st, stats)
        m = _PING_RE.match(ctx.url)
        if m:
            add("ping-endpoint-deprecated", url=ctx.url, engine=m.group(1).capitalize())

        # per-file reminders, in a stable order: of the file's URLs ("URLs without <lastmod>"), but
        # feed-item-no-date is of its items, a link or not ("feed items without a date")
        total = st.urls
        for (rule, _key), t in st.tallies.items():
            if not t.count:
                continue
            fields = dict(t.fields)
            fields["count"] = t.count
            if rule in (
                "lastmod-missing",
                "changefreq-ignored",
                "priority-ignored",
            ):
                fields["total"] = total
            elif rule == "feed-item-no-date":
                fields["total"] = st.entries
            elif rule == "index-lastmod-missing":
                fields["total"] = st.children
            add(rule, line=t.line, url=t.url, **fields)

        if ctx._xsd is not None:
            out.extend(ctx._xsd.finish())
            ctx._xsd = None
        return self._keep(out)

    def file_failed(self, ctx: FileContext, rule_id: str, reason: str) -> list[Issue]:
        """A listed file could not be used (``rule_id``: why, e.g. ``fetch-http-error``).

        Gives ``index-child-unfetchable`` on the index line, or ``robots-sitemap-unfetchable``
        on the robots.txt line, that listed the file (``ctx.parent_*``).
        """
        out: list[Issue] = []
        node = ctx.parent_node_id if ctx.parent_node_id is not None else ctx.node_id
        if ctx.parent_kind is NodeKind.INDEX:
            out.append(
                make_issue(
                    "index-child-unfetchable",
                    node_id=node,
                    line=ctx.parent_line,
                    url=ctx.url,
                    reason=reason,
                )
            )
        elif (ctx.found_by is FoundBy.ROBOTS or ctx.parent_kind is NodeKind.ROBOTS) and rule_id in (
            "fetch-http-error",
            "fetch-private-address",
            "file-is-html",
        ):
            out.append(
                make_issue(
                    "robots-sitemap-unfetchable",
                    node_id=node,
                    line=ctx.parent_line,
                    url=ctx.url,
                    reason=reason,
                )
            )
        return self._keep(out)

    # -- per entry ---------------------------------------------------------------------------

    def check_entry(self, ctx: FileContext, entry: Entry) -> list[Issue]:
        """Every rule that one ``<url>`` (text line, feed item) decides on its own."""
        st = ctx._state
        if st is None or st.base_key is None or st.base_key[1] is not ctx.final_url:
            st = self._state(ctx)
        st.entries += 1
        out: list[Issue] = []
        nid = ctx.node_id
        line = entry.line or None
        kind = ctx.kind
        loc = entry.loc
        s = loc.strip() if loc else ""
        url = s or None
        st.urls += url is not None

        if kind is _INDEX:
            out.append(
                make_issue(
                    "index-wrong-children",
                    node_id=nid,
                    line=line,
                    url=url,
                    element="url",
                    where="in a sitemapindex",
                )
            )
            return self._keep(out)
        feed = kind is _RSS or kind is _ATOM

        tags = entry.tags
        if tags and not feed and kind is not _TEXT and tuple(tags) not in _PLAIN_TAGS:
            check_tags(ctx, st, tags, line, url, out, entry.odd_lines)

        parts: UrlParts | None = None
        if not s:
            if feed:
                out.append(make_issue("feed-item-no-link", node_id=nid, line=line))
            elif loc is None:
                if "loc" not in entry.tags:
                    # a <loc xmlns=""> or one in another namespace is named: "has no <loc>" alone
                    # hid the slip (found from outside)
                    other = next((t for t in entry.tags if t.endswith("}loc") or t.endswith(":loc")), None)
                    if other is None:
                        out.append(make_issue("loc-missing", node_id=nid, line=line))
                    else:
                        out.append(make_issue("loc-missing", node_id=nid, line=line, other=other))
                elif ctx._xsd is not None:
                    # the parser reported the markup inside <loc> (core-unknown-element)
                    ctx._xsd.reported(line, None, (("core-unknown-element", line),))
            else:
                out.append(make_issue("loc-empty", node_id=nid, line=entry.loc_line or line))
        else:
            # findings about the URL itself point at <loc>, as the XSD's do
            loc_line = entry.loc_line or line
            findings: list[LocFinding] = []
            parts, normal = analyze_loc(s, findings)
            for f in findings:
                if f.rule == "loc-private-host":
                    # a leaked staging host is a fact about the file, not about each URL; and a
                    # sitemap served from that same host (a dev server) is not a leak at all
                    if st.base is not None and parts is not None and st.base.host == parts.host:
                        continue
                    tally(st, "loc-private-host", str(f.fields.get("host", "")), loc_line, url, **f.fields)
                    continue
                out.append(make_issue(f.rule, node_id=nid, line=loc_line, url=url, **f.fields))
            if parts is not None and st.base is not None:
                check_location(ctx, st, parts, loc_line, url, out)
            key = hash(s if normal else normalized(s))
            first = st.seen.get(key)
            if first is None:
                st.seen[key] = entry.line
            else:
                out.append(
                    make_issue(
                        "duplicate-url-in-file", node_id=nid, line=line, url=url, first_line=first
                    )
                )

        if feed:
            check_feed_date(ctx, st, entry, line, url, out)
        elif kind is not _TEXT:
            # value rules point at the element holding the value (lastmod-missing at <url>)
            check_lastmod(ctx, st, entry, entry.lastmod_line or line, url, out)
            raw = entry.changefreq_raw
            if raw is not None:
                vline = entry.changefreq_line or line
                if url is not None:  # (the reminders count URLs: an entry without one is none)
                    bump(st.changefreq_seen, vline, url)
                if raw.strip() not in CHANGEFREQ_SET:
                    out.append(
                        make_issue("changefreq-invalid", node_id=nid, line=vline, url=url, value=raw)
                    )
            raw = entry.priority_raw
            if raw is not None:
                vline = entry.priority_line or line
                if url is not None:
                    bump(st.priority_seen, vline, url)
                check_priority(ctx, st, entry, raw, vline, url, out)

        if entry.images:
            check_images(ctx, st, entry, parts, line, url, out)
        if entry.videos:
            check_videos(ctx, st, entry, s, line, url, out)
        if entry.news:
            check_news(ctx, st, entry, line, url, out)
        if entry.alternates:
            check_alternates(ctx, st, entry, s, line, url, out)
        if out and ctx._xsd is not None:
            # schema errors in this entry that these findings already name are left to them
            ctx._xsd.reported(line, url, [(i.rule, i.line) for i in out])
        return self._keep(out)

    # tags ------------------------------------------------------------------------------------



    # location --------------------------------------------------------------------------------



    # lastmod, priority, feed dates -----------------------------------------------------------




    # images ----------------------------------------------------------------------------------


    # videos ----------------------------------------------------------------------------------





    # news ------------------------------------------------------------------------------------


    # hreflang --------------------------------------------------------------------------------


    # -- index children ----------------------------------------------------------------------

    def check_child(self, ctx: FileContext, child: ChildRef) -> list[Issue]:
        """The index rules about one ``<sitemap>`` entry."""
        st = self._state(ctx)
        st.children += 1
        out: list[Issue] = []
        nid = ctx.node_id
        line = child.line or None
        s = child.loc.strip() if child.loc else ""
        url = s or None
        odd = OddLines(child.odd_lines, line)  # (each odd element's own line)
        if child.tags and child.tags != ["loc", "lastmod"] and child.tags != ["loc"]:
            check_child_order(nid, child.tags, line, url, out, odd)
        for tag in child.tags:
            if tag in INDEX_CHILD_TAGS:
                continue
            at = odd.next(tag)
            if tag[:1] == "{" or ":" in tag:
                local = _local(tag)
                if tag not in st.index_extension_reported:
                    st.index_extension_reported.add(tag)
                    out.append(
                        make_issue(
                            "index-extension-elements",
                            node_id=nid,
                            line=at,
                            url=url,
                            element=tag if tag[:1] != "{" else local,
                        )
                    )
            else:
                out.append(
                    make_issue(
                        "index-wrong-children",
                        node_id=nid,
                        line=at,
                        url=url,
                        element=tag,
                        where="inside <sitemap>",
                    )
                )
        if not s:
            at = child.loc_line or line
            out.append(
                make_issue("index-sitemap-loc-missing", node_id=nid, line=at, text=child.text)
                if child.text
                else make_issue("index-sitemap-loc-missing", node_id=nid, line=at)
            )
        else:
            why = url_problem(s)
            if why is not None:
                out.append(
                    make_issue(
                        "index-loc-invalid",
                        node_id=nid,
                        line=child.loc_line or line,
                        url=url,
                        value=s,
                        reason=why,
                    )
                )
            else:
                check_child_location(ctx, st, s, line, url, out)
                key = hash(normalized(s))  # (normalize's key, its urlsplits spared for a plain URL)
                first = st.seen_children.get(key)
                if first is None:
                    st.seen_children[key] = child.line
                else:
                    out.append(
                        make_issue(
                            "index-child-duplicate",
                            node_id=nid,
                            line=line,
                            url=url,
                            first_line=first,
                        )
                    )
            m = _PING_RE.match(s)
            if m:
                out.append(
                    make_issue(
                        "ping-endpoint-deprecated",
                        node_id=nid,
                        line=line,
                        url=s,
                        engine=m.group(1).capitalize(),
                    )
                )
        raw = child.lastmod_raw
        if raw is None:  # (an empty <lastmod> is there, and invalid: as a <url>'s is)
            tally(st, "index-lastmod-missing", "", line, url)
        else:
            # the same checks as a <url>'s lastmod (the XSD's date types are the same)
            found, _ = lastmod_findings(raw, child.lastmod, ctx.now, "index-lastmod-invalid")
            for rule, fields in found:
                out.append(
                    make_issue(rule, node_id=nid, line=child.lastmod_line or line, url=url, **fields)
                )
        if ctx._xsd is not None and out:
            ctx._xsd.reported(line, url, [(i.rule, i.line) for i in out])
        return self._keep(out)

    def cross_submitted(self, issue: Issue, robots_url: str) -> list[Issue]:
        """``robots-cross-submit-ok`` in place of a location finding that a cross-submission
        voids (see ``validate/rules/robots.py``)."""
        return self._keep(cross_submitted(issue, robots_url))

    # -- robots.txt --------------------------------------------------------------------------

    def robots_fetch_failed(
        self, ctx: FileContext | None, status: int | None, reason: str
    ) -> list[Issue]:
        """``robots-fetch-error`` for a robots.txt that answered 5xx or could not be reached."""
        return self._keep(robots_fetch_failed(ctx, status, reason))

    def check_robots(self, robots: RobotsFile, ctx: FileContext | None = None) -> list[Issue]:
        """The robots rules that depend on the robots.txt alone."""
        return self._keep(check_robots(robots, ctx))


# check_entry runs for every URL: the kinds it tests, as module names (no enum lookup per URL)
_INDEX, _RSS, _ATOM, _TEXT = NodeKind.INDEX, NodeKind.RSS, NodeKind.ATOM, NodeKind.TEXT

#: Location findings that a cross-submission voids (sitemaps.org "Sitemaps & Cross Submits").
CROSS_SUBMIT_RULES = frozenset(
    {"location-different-host", "location-outside-path", "index-child-different-host"}
)



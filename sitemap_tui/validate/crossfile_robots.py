"""The cross-file rules that read robots.txt: ``robots-sitemap-file-disallowed``,
``robots-url-disallowed`` and (for the robots.txt side) ``video-files-not-accessible``.

They look at rows the store streams (validate.crossfile runs them) and yield the issues; protego
has to look at each URL, so origins whose robots.txt has no Disallow line are dropped first
(:func:`disallowing`) and are never asked about.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from sitemap_tui.engine.model import Issue
from sitemap_tui.engine.robots import RobotsFile, parse_robots
from sitemap_tui.engine.urlpolicy import canonical_host
from sitemap_tui.validate.registry import make_issue

__all__ = [
    "OriginCache",
    "VIDEO_REASON",
    "disallowed_entries",
    "disallowed_files",
    "disallowed_videos",
    "disallowing",
    "robots_by_origin",
]

URL_AGENTS = ("Googlebot", "Bingbot")  # robots-url-disallowed
VIDEO_AGENT = "Googlebot"  # video-files-not-accessible: Google's requirement
VIDEO_FILES = ("content_loc", "player_loc", "thumbnail_loc")
# The reason this module gives for video-files-not-accessible; the checker's (streaming-only
# protocols) ends otherwise, so a re-run replaces only its own findings.
VIDEO_REASON = "{robots} disallows it for " + VIDEO_AGENT
FILE_AGENTS = ("Googlebot", "Bingbot", "YandexBot")  # robots-sitemap-file-disallowed

_ORIGIN_RE = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://([^/?#\s]*)")
_DISALLOW_RE = re.compile(r"^[ \t]*disallow[ \t]*:[ \t]*[^\s#]", re.IGNORECASE | re.MULTILINE)
_AGENT_GROUP_RE = re.compile(
    r"^[ \t]*user-?agent[ \t]*:[ \t]*[^\n#]*(google|bing|yandex)", re.IGNORECASE | re.MULTILINE
)
_DEFAULT_PORTS = {"http": "80", "https": "443"}


def _origin(url: str | None) -> str | None:
    """``scheme://host[:port]`` lower-cased (IDNA for an IDN host), default port dropped (the
    robots.txt scope)."""
    if not url:
        return None
    m = _ORIGIN_RE.match(url.strip())
    if m is None:
        return None
    scheme = m.group(1).lower()
    hostport = m.group(2).rpartition("@")[2].lower()
    host, sep, port = hostport.rpartition(":")
    if sep and not host.endswith("]") and "]" not in port and port == _DEFAULT_PORTS.get(scheme):
        hostport = host
    if not hostport:
        return None
    if not hostport.isascii():
        # an IDN host in its one form: robots.txt read from bücher.example covers the
        # xn--bcher-kva.example URLs, and the other way round
        name, colon, port = hostport.rpartition(":")
        if not colon or not port.isdigit():
            name, colon, port = hostport, "", ""
        hostport = canonical_host(name) + colon + port
    return f"{scheme}://{hostport}"


class OriginCache:
    """:func:`_origin` of each URL, looked up by the URL's text up to the first ``/`` after its
    ``://`` (what the origin depends on): most URLs of a set share a few, and the regular
    expression and the lower-casing cost 0.5 µs a URL, 15 % of robots-url-disallowed."""

    MAX = 4096  # distinct prefixes kept (a set of URLs without a path would key each URL)

    def __init__(self) -> None:
        self._known: dict[str, str | None] = {}

    def __call__(self, url: str | None) -> str | None:
        if not url:
            return None
        sep = url.find("://")
        cut = url.find("/", sep + 3) if sep >= 0 else -1
        key = url if cut < 0 else url[:cut]
        known = self._known
        if key in known:
            return known[key]
        if len(known) >= self.MAX:
            known.clear()
        origin = known[key] = _origin(url)
        return origin


def robots_by_origin(
    robots: Mapping[str, RobotsFile] | None, kept: Iterable[tuple[str, str]] = ()
) -> dict[str, RobotsFile]:
    """Origin -> its robots.txt. ``robots``: robots.txt URL -> parsed file (the explorer's);
    when None, the bodies kept in the store's meta (``kept``: ``robots:<url>`` key, JSON
    value) are parsed again."""
    if robots is None:
        parsed: dict[str, RobotsFile] = {}
        for key, value in kept:
            url = key[len("robots:") :]
            try:
                text = json.loads(value)
            except (TypeError, ValueError):
                continue
            if isinstance(text, str):
                parsed[url] = parse_robots(text.encode("utf-8"), url)
        robots = parsed
    out: dict[str, RobotsFile] = {}
    for url, rf in robots.items():
        for u in (url, rf.url):
            origin = _origin(u)
            if origin is not None:
                out.setdefault(origin, rf)
    return out


def disallowing(by_origin: Mapping[str, RobotsFile]) -> dict[str, RobotsFile]:
    """The origins whose robots.txt has a Disallow rule: only those can disallow anything."""
    return {o: rf for o, rf in by_origin.items() if _DISALLOW_RE.search(rf.text or "")}


def disallowed_files(
    active: Mapping[str, RobotsFile], files: Iterable[tuple[int, str]]
) -> Iterator[Issue]:
    """robots-sitemap-file-disallowed: each of the (node id, url) sitemap files that the
    robots.txt of its origin keeps one of the search engines' crawlers from."""
    for node_id, url in files:
        rf = active.get(_origin(url) or "")
        if rf is None:
            continue
        blocked = [agent for agent in FILE_AGENTS if not rf.allowed(url, agent)]
        if blocked:  # (named: a finding that rests on YandexBot alone read as Google's)
            yield make_issue("robots-sitemap-file-disallowed", node_id=node_id, url=url, agent=" and ".join(blocked))


def disallowed_entries(
    active: Mapping[str, RobotsFile], batches: Iterable[list[tuple[Any, ...]]]
) -> Iterator[tuple[Issue, int]]:
    """robots-url-disallowed: (issue, entry id) per entry of the (id, node_id, line, loc)
    ``batches`` that the robots.txt of its origin keeps Googlebot or Bingbot from."""
    rule = "robots-url-disallowed"
    # Without a group naming these crawlers, every agent falls back to "*": ask once.
    agents_for = {
        o: (URL_AGENTS if _AGENT_GROUP_RE.search(rf.text) else URL_AGENTS[:1])
        for o, rf in active.items()
    }
    origin_of = OriginCache()
    for rows in batches:
        groups: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
        for row in rows:
            origin = origin_of(row[3])
            if origin is not None and origin in active:
                groups[origin].append(row)
        for origin, items in groups.items():
            rf, agents = active[origin], agents_for[origin]
            for eid, node_id, line, loc in items:
                u = loc.strip()
                blocked = [a for a in agents if not rf.allowed(u, a)]
                if not blocked:
                    continue
                if len(agents) == 1:
                    agent = "Googlebot and Bingbot (the * group)"
                else:
                    agent = " and ".join(blocked)
                yield make_issue(rule, node_id=node_id, line=line, url=loc, agent=agent), eid


def disallowed_videos(
    active: Mapping[str, RobotsFile], batches: Iterable[list[tuple[Any, ...]]]
) -> Iterator[tuple[Issue, int]]:
    """video-files-not-accessible: (issue, entry id) per video content, player or thumbnail
    URL of the (rowid, entry id, node_id, line, loc, data) ``batches`` that the robots.txt of
    its own origin keeps Googlebot from (on the video's line)."""
    rule = "video-files-not-accessible"
    for rows in batches:
        for _rowid, eid, node_id, line, loc, data in rows:
            try:
                fields = json.loads(data).get("fields") or {}
            except (TypeError, ValueError, AttributeError):
                continue
            for name in VIDEO_FILES:
                value = fields.get(name)
                target = value.strip() if isinstance(value, str) else ""
                rf = active.get(_origin(target) or "")
                if rf is None or rf.allowed(target, VIDEO_AGENT):
                    continue
                yield (
                    make_issue(
                        rule,
                        node_id=node_id,
                        line=line,
                        url=loc,
                        element=f"<video:{name}>",
                        value=target,
                        reason=VIDEO_REASON.format(robots=rf.url),
                    ),
                    eid,
                )

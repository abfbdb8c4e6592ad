"""Crawler access: which crawlers a site's robots.txt lets fetch each listed URL (issue 22 §2).

Nothing is fetched: the robots.txt files the exploration read are kept in the store (meta
``robots:<url>``), so the matrix works on a saved exploration, offline. Each URL is judged by the
robots.txt of its own origin (scheme, host and port, RFC 9309 §2.3); a URL whose origin's
robots.txt was not read is *unknown*, never counted as allowed; one whose robots.txt answered 4xx
has none, and is allowed (RFC 9309 §2.3.1.3).

The default agents are the search crawlers (Googlebot, Bingbot, Applebot) and the AI crawlers
site owners ask about. ``Google-Extended`` is a product token, not a crawler: Googlebot does the
fetching, and a ``Google-Extended`` group only says whether what it fetched may be used to train
and ground Google's Gemini models; ``OAI-SearchBot`` is OpenAI's search crawler, ``GPTBot`` its
training crawler.

Why it is fast enough for millions of URLs: an agent's verdict depends only on the robots.txt
group that applies to it (RFC 9309 §2.2.1), so agents that fall to the same group (most of them, on
most sites, fall to ``*``) share one evaluation per URL, and a group without a Disallow rule allows
every URL without looking at it. protego (the RFC 9309 matcher) decides each URL; its group lookup
is private API, so when it is missing (another protego version) every agent is asked through the
public ``can_fetch`` instead: the same verdicts, only slower.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from protego import Protego

from sitemap_tui.engine.agents import DEFAULT_AGENTS, MAX_AGENTS, AgentsError, parse_agents
from sitemap_tui.engine.robots import RobotsFile, parse_robots
from sitemap_tui.engine.robots_match import group_for
from sitemap_tui.engine.store.access import AccessTable, access_robots, digest
from sitemap_tui.engine.urlpolicy import origin_of

__all__ = ["DEFAULT_AGENTS", "MAX_AGENTS", "AccessJudge", "AgentsError", "OriginRules", "agents_in", "compute",
           "parse_agents"]

def _group_of(rules: Protego, agent: str) -> tuple[Any, object] | None:
    """(the group that applies to ``agent``, a signature shared by groups with the same rules),
    or None when protego's internals are not what this version expects."""
    try:
        group = group_for(rules, agent)
        if group is None:
            return None, ("none",)
        signature = tuple((r.field, r.value._pattern) for r in group._rules)
        return group, signature
    except AttributeError:
        return None


@dataclass(slots=True)
class _Check:
    mask: int  # the agents this evaluation decides for
    group: Any  # a protego rule set (its can_fetch(url)), or None: ask `rules` for `agent`
    agent: str


class OriginRules:
    """One origin's robots.txt, ready to judge URLs for a list of agents."""

    def __init__(self, robots: RobotsFile, agents: Sequence[str]) -> None:
        self.checks: list[_Check] = []
        try:
            rules = Protego.parse(robots.text)
        except Exception:  # protego trouble: judge by nothing rather than fail (see RobotsFile)
            return
        self._rules = rules
        merged: dict[object, _Check] = {}
        for i, agent in enumerate(agents):
            found = _group_of(rules, agent)
            if found is None:  # unknown protego internals: the public call, agent by agent
                self.checks.append(_Check(1 << i, None, agent))
                continue
            group, signature = found
            if group is None or not any(r.field == "disallow" for r in group._rules):
                continue  # no group, or one without Disallow: every URL is allowed
            check = merged.get(signature)
            if check is None:
                merged[signature] = _Check(1 << i, group, agent)
            else:
                check.mask |= 1 << i
        self.checks.extend(merged.values())

    def blocked(self, url: str) -> int:
        """The bitmask of the agents that may not fetch ``url``."""
        if not self.checks:
            return 0
        mask = 0
        for c in self.checks:
            try:
                ok = c.group.can_fetch(url) if c.group is not None else self._rules.can_fetch(url, c.agent)
            except Exception:  # as RobotsFile.allowed: in doubt, allowed
                ok = True
            if not ok:
                mask |= c.mask
        if mask and _is_robots_txt(url):
            return 0  # robots.txt itself is always fetchable (protego's can_fetch agrees)
        return mask


def _is_robots_txt(url: str) -> bool:
    end = url.find("/", url.find("//") + 2)
    return end >= 0 and url[end:].split("?", 1)[0].split("#", 1)[0] == "/robots.txt"


class AccessJudge:
    """Every origin's robots.txt, judging URLs in bulk: ``judge(locs)`` -> (blocked mask,
    unknown) per URL."""

    def __init__(self, robots: Iterable[tuple[str, str]], agents: Sequence[str]) -> None:
        """``robots``: (robots.txt URL, its text) as the store keeps them."""
        self.agents = tuple(agents)
        self.origins: dict[str, OriginRules] = {}
        for url, text in robots:
            origin = origin_of(url)
            if origin is not None and origin not in self.origins:
                self.origins[origin] = OriginRules(parse_robots(text.encode("utf-8"), url), self.agents)
        self._prefix: dict[str, OriginRules | None] = {}

    def _rules_for(self, loc: str) -> OriginRules | None:
        # scheme://host[:port] as written; normalised once per distinct spelling (cached)
        end = loc.find("/", loc.find("//") + 2) if "//" in loc else -1
        prefix = loc if end < 0 else loc[:end]
        try:
            return self._prefix[prefix]
        except KeyError:
            # the origin of the prefix alone, which the cache is keyed by: origin_of(loc) is None
            # for a whole URL it objects to (a control character in its path), and that None,
            # cached, made every URL of the origin "unknown" after it
            origin = origin_of(prefix + "/" if end >= 0 else loc)
            rules = None if origin is None else self.origins.get(origin)
            if len(self._prefix) < 100_000:
                self._prefix[prefix] = rules
            return rules

    def judge(self, locs: Iterable[str | None]) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for loc in locs:
            rules = self._rules_for(loc) if loc else None
            if rules is None or not loc:
                out.append((0, 1))
            else:
                out.append((rules.blocked(loc), 0))
        return out


def agents_in(mask: int, agents: Sequence[str]) -> list[str]:
    """The agents a bitmask names, in list order."""
    return [a for i, a in enumerate(agents) if mask >> i & 1]


def compute(table: AccessTable, agents: Sequence[str], stop: Callable[[], bool] | None = None) -> int:
    """Bring ``table`` up to date for ``agents``: judge the entries not judged yet (all of them
    when the robots.txt files or the agents changed). Returns how many entries were judged.
    ``stop()`` true between two batches ends it early: the table keeps the batches written and
    says how far it got, so the next call goes on from there (the explorer's cancel)."""
    robots = access_robots(table.conn)
    fingerprint = digest(robots, agents)
    state = table.state()
    upto = table.last_entry()
    after = state.get("upto") if state.get("digest") == fingerprint else None
    if not isinstance(after, int):
        table.reset()
        after = 0
    if after >= upto and state.get("digest") == fingerprint:
        return 0
    judge = AccessJudge(robots, agents)
    new = {"agents": list(agents), "digest": fingerprint, "upto": after}
    judged = 0
    for batch in table.pending(after, upto):
        if stop is not None and stop():
            return judged
        verdicts = judge.judge(loc for _, loc in batch)
        table.write([(eid, b, u) for (eid, _), (b, u) in zip(batch, verdicts, strict=True)],
                    {**new, "upto": batch[-1][0]})
        judged += len(batch)
    table.save_state({**new, "upto": upto})
    return judged

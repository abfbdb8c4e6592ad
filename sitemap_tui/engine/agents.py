"""The crawlers the access matrix and the audit name, and how a list of them is read: apart from
engine/access.py so that ``--help`` shows the defaults without importing protego or sqlite3."""

from __future__ import annotations

import re

DEFAULT_AGENTS = (
    "Googlebot", "Bingbot", "Applebot", "GPTBot", "OAI-SearchBot", "ClaudeBot",
    "PerplexityBot", "CCBot", "Google-Extended",
)
MAX_AGENTS = 62
"""A URL's verdicts are one integer bitmask (bit i: agent i is disallowed), kept below 2⁶³."""

_AGENT_RE = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")


class AgentsError(ValueError):
    """A list of user agents that cannot be used (said in one line)."""


def parse_agents(text: str) -> tuple[str, ...]:
    """``"GPTBot, ClaudeBot"`` -> ("GPTBot", "ClaudeBot"): product tokens as robots.txt names
    them (RFC 9309 §2.2.1: letters, digits, ``-`` and ``_``), duplicates dropped, case kept."""
    agents: list[str] = []
    seen: set[str] = set()
    for raw in text.split(","):
        agent = raw.strip()
        if not agent:
            continue
        if not _AGENT_RE.match(agent):
            raise AgentsError(f"{agent!r} is not a robots.txt product token (letters, digits, - and _)")
        if agent.lower() not in seen:
            seen.add(agent.lower())
            agents.append(agent)
    if not agents:
        raise AgentsError("no user agent given")
    if len(agents) > MAX_AGENTS:
        raise AgentsError(f"{len(agents)} user agents; at most {MAX_AGENTS}")
    return tuple(agents)

"""The access judge gives protego's own verdicts (RFC 9309), however it shares the work between
agents: checked against ``Protego.can_fetch`` agent by agent on generated robots.txt files and
URLs, and on the fallback used when protego's internals differ."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protego import Protego

from sitemap_tui.engine import access
from sitemap_tui.engine.access import AccessJudge, AgentsError, agents_in, parse_agents

AGENTS = ("Googlebot", "GPTBot", "CCBot", "Bingbot", "Google-Extended")
SEGMENTS = st.sampled_from(["a", "b", "private", "x.pdf", "*", "$", "%41", "é", "?q=1", ""])
PATHS = st.lists(SEGMENTS, min_size=0, max_size=4).map(lambda p: "/" + "/".join(p))
RULE = st.tuples(st.sampled_from(["Allow", "Disallow"]), PATHS)
GROUP = st.tuples(st.lists(st.sampled_from(["*", "GPTBot", "CCBot", "googlebot", "Google-Extended"]),
                           min_size=1, max_size=2), st.lists(RULE, max_size=4))


def robots_text(groups: list[tuple[list[str], list[tuple[str, str]]]]) -> str:
    lines = []
    for agents, rules in groups:
        lines += [f"User-agent: {a}" for a in agents] + [f"{k}: {v}" for k, v in rules] + [""]
    return "\n".join(lines)


@settings(max_examples=150, deadline=None)
@given(groups=st.lists(GROUP, max_size=4), paths=st.lists(PATHS, min_size=1, max_size=8))
def test_same_verdicts_as_protego(groups, paths) -> None:
    text = robots_text(groups)
    rp = Protego.parse(text)
    urls = ["https://s.example" + p for p in paths] + ["https://s.example/robots.txt"]
    judged = AccessJudge([("https://s.example/robots.txt", text)], AGENTS).judge(urls)
    for url, (mask, unknown) in zip(urls, judged, strict=True):
        assert unknown == 0
        expected = [a for a in AGENTS if not rp.can_fetch(url, a)]
        assert agents_in(mask, AGENTS) == expected, (text, url)


def test_fallback_without_protego_internals(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(access, "_group_of", lambda rules, agent: None)
    text = "User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /p\n"
    judged = AccessJudge([("https://s.example/robots.txt", text)], AGENTS).judge(
        ["https://s.example/p/1", "https://s.example/q"])
    assert [agents_in(m, AGENTS) for m, _ in judged] == [list(AGENTS), ["GPTBot"]]


def test_each_url_is_judged_by_its_own_origin() -> None:
    judge = AccessJudge([("https://a.example/robots.txt", "User-agent: *\nDisallow: /\n")], ("Bingbot",))
    assert judge.judge(["https://a.example/x", "HTTPS://A.EXAMPLE:443/y", "https://b.example/x",
                        "http://a.example/x", None, "not a url"]) == [(1, 0), (1, 0), (0, 1), (0, 1), (0, 1), (0, 1)]


def test_parse_agents() -> None:
    assert parse_agents("GPTBot, ClaudeBot,gptbot,") == ("GPTBot", "ClaudeBot")
    for bad in ("", " , ", "GPT Bot", "a/b", ",".join(f"A{i}" for i in range(63))):
        with pytest.raises(AgentsError):
            parse_agents(bad)


def test_an_odd_url_does_not_make_its_origin_unknown() -> None:
    """A URL with a control character in its path was "unknown" (origin_of objects to the whole
    URL), and that answer, cached for its origin, made every later URL of the origin unknown:
    a disallowed one among them."""
    judge = AccessJudge([("https://a.example/robots.txt", "User-agent: *\nDisallow: /blocked\n")], ("Bingbot",))
    assert judge.judge(["https://a.example/p-\x9b2J", "https://a.example/blocked", "https://a.example/ok"]) == [
        (0, 0), (1, 0), (0, 0)]

"""engine/robots_match.py: a crawler's robots.txt rules as one pattern answer what protego
answers, on generated files and URLs and on every robots.txt of the corpus; without protego's
internals the caller asks protego itself."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from protego import Protego

from sitemap_tui.engine.robots import parse_robots
from sitemap_tui.engine.robots_match import compile_rules

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "robots"
AGENTS = ("Googlebot", "Bingbot", "YandexBot", "*", "otherbot")

_piece = st.sampled_from(["/", "a", "b", "ab", "*", "**", "$", "?", "=", "%2F", "%61", "x.html", "index.html", "é", " "])
_pattern = st.lists(_piece, min_size=0, max_size=6).map("".join)
_rule = st.tuples(st.sampled_from(["Allow", "Disallow", "disalow", "allow"]), _pattern)
_group = st.tuples(st.lists(st.sampled_from(["*", "Googlebot", "bingbot", "Googlebot-Image", "other"]),
                            min_size=1, max_size=2),
                   st.lists(_rule, max_size=8))
_url = st.lists(st.sampled_from(["/", "a", "b", "ab", "$", "?", "=", "%2F", "%61", "x.html", "index.html",
                                 "é", "%", "#f", "robots.txt"]), max_size=8).map(
    lambda parts: "https://a.com/" + "".join(parts))


def _text(groups: list[tuple[list[str], list[tuple[str, str]]]]) -> str:
    lines: list[str] = []
    for agents, rules in groups:
        lines += [f"User-agent: {a}" for a in agents]
        lines += [f"{field}: {pattern}" for field, pattern in rules]
        lines.append("")
    return "\n".join(lines)


@settings(max_examples=400, deadline=None)
@given(st.lists(_group, min_size=1, max_size=3), st.lists(_url, min_size=1, max_size=12))
def test_the_pattern_answers_as_protego(groups: list, urls: list[str]) -> None:
    parsed = Protego.parse(_text(groups))
    for agent in AGENTS:
        allowed = compile_rules(parsed, agent)
        assert allowed is not None
        for url in urls:
            assert allowed(url) == parsed.can_fetch(url, agent), (agent, url)


def _urls_for(text: str, rng: random.Random) -> list[str]:
    """URLs near each rule of ``text``: the pattern itself, with its wildcards filled in, cut
    short and made longer, and a few unrelated paths."""
    out = ["https://a.com/", "https://a.com/robots.txt", "https://a.com/plain/page?x=1"]
    for line in text.splitlines():
        field, _, value = line.partition(":")
        if field.strip().lower() not in ("allow", "disallow"):
            continue
        value = value.split("#")[0].strip()
        if not value:
            continue
        for fill in ("", "x", "a/b?c=d"):
            path = value.replace("*", fill).rstrip("$")
            path = path if path.startswith("/") else "/" + path
            out += [f"https://a.com{path}", f"https://a.com{path[:-1]}", f"https://a.com{path}{rng.choice(['/', 'z', '?q=1', '.html'])}"]
    return out


def test_every_corpus_robots_txt_answers_as_protego() -> None:
    rng = random.Random(5)
    files = sorted(CORPUS.glob("*")) if CORPUS.is_dir() else []
    assert len(files) >= 20, "the corpus's robots.txt files"
    compared = 0
    for path in files:
        text = path.read_bytes().decode("utf-8", "replace")
        parsed = Protego.parse(text)
        urls = _urls_for(text, rng)
        urls = rng.sample(urls, min(len(urls), 200))  # (protego takes ~1 ms a URL on the largest)
        for agent in AGENTS:
            allowed = compile_rules(parsed, agent)
            assert allowed is not None, path.name
            for url in urls:
                assert allowed(url) == parsed.can_fetch(url, agent), (path.name, agent, url)
                compared += 1
    assert compared > 10_000


def test_the_first_rule_in_protegos_order_decides() -> None:
    """The longer rule wins whichever comes first in the file; on a tie, Allow."""
    parsed = Protego.parse("User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /*.pdf$\nAllow: /*.pdf$\n")
    allowed = compile_rules(parsed, "Googlebot")
    assert allowed is not None
    assert [allowed(f"https://a.com{p}") for p in ("/a/x", "/a/b/c", "/z.pdf", "/z.pdf?x", "/b")] == [
        False, True, True, True, True]


def test_a_rule_of_many_wildcards_does_not_backtrack() -> None:
    """``/*a*a*…*b`` against ``/aaa…``: with ``.*`` between the parts the regex tried every
    placement of every part (~10^11 steps here: a hostile robots.txt stops the run); each part
    found once, where protego finds it, takes a pass. Run apart, so a regression fails
    instead of hanging the suite."""
    code = (
        "from protego import Protego\n"
        "from sitemap_tui.engine.robots_match import compile_rules\n"
        "p = Protego.parse('User-agent: *\\nDisallow: /*' + 'a*' * 12 + 'b\\n')\n"
        "allowed = compile_rules(p, 'Googlebot')\n"
        "url = 'https://a.com/' + 'a' * 80\n"
        "assert allowed(url) is True and allowed(url + 'b') is False\n"
        "assert p.can_fetch(url, 'Googlebot') is True\n"
    )
    done = subprocess.run([sys.executable, "-c", code], timeout=60, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_without_protegos_internals_protego_answers() -> None:
    class Other:
        def can_fetch(self, url: str, agent: str) -> bool:
            return False

    assert compile_rules(Other(), "Googlebot") is None
    robots = parse_robots(b"User-agent: *\nDisallow: /private\n", "https://a.com/robots.txt")
    robots._rules = Other()  # type: ignore[assignment]  # a protego without the internals
    assert robots.allowed("https://a.com/public", "Googlebot") is False  # (what Other says)


def test_a_matcher_that_fails_leaves_the_answer_to_protego(monkeypatch) -> None:
    """A pattern ``re`` cannot take, or a match that raises, is never read as "allowed"."""
    import sitemap_tui.engine.robots as robots_mod

    def cannot(parsed, agent):
        raise RecursionError("too deep")

    monkeypatch.setattr(robots_mod, "compile_rules", cannot)
    robots = parse_robots(b"User-agent: *\nDisallow: /private\n", "https://a.com/robots.txt")
    assert robots.allowed("https://a.com/private/x", "Googlebot") is False

    def raising(url):
        raise ValueError("no")

    monkeypatch.setattr(robots_mod, "compile_rules", lambda parsed, agent: raising)
    robots = parse_robots(b"User-agent: *\nDisallow: /private\n", "https://a.com/robots.txt")
    assert robots.allowed("https://a.com/private/x", "Googlebot") is False
    assert robots.allowed("https://a.com/public", "Googlebot") is True


_URL_PIECES = st.sampled_from(["https://", "HTTP://", "ftp://", " ", "a.com", "A.COM", ":443", ":80", ":8080",
                               "@", "user:pw", "/", "?", "#", "bücher.de", "[::1]", "//", "x", "://"])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.lists(_URL_PIECES, max_size=8).map("".join), min_size=1, max_size=20))
def test_the_origin_cache_answers_as_origin(urls: list[str]) -> None:
    """robots-url-disallowed finds each URL's robots.txt by its origin, looked up by the URL's
    text up to the first / after its ://: the same origin as worked out for each URL alone."""
    from sitemap_tui.validate.crossfile_robots import OriginCache, _origin

    cached = OriginCache()
    for url in urls + urls[::-1]:
        assert cached(url) == _origin(url), url

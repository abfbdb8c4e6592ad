"""The shape of the rule tables and the helpers they are written with.

Each ``cases_*.py`` module holds one rule family as a list of :class:`Case`: a rule id, a
trigger (an input that must report the rule, at ``line`` when a line means something) and a
near miss (a similar input that must not report it). Files are written for ``http://a.test/``
(see ``harness``); in the ``urlset``/``index`` envelopes the first entry is on line 3.
"""

from __future__ import annotations

from dataclasses import dataclass

from .harness import Body, Fixture, Resp

__all__ = [
    "ATOM",
    "Body",
    "Case",
    "Fixture",
    "IMAGE",
    "NEWS",
    "Resp",
    "SITEMAP",
    "VIDEO",
    "XHTML",
    "XML",
    "case",
    "index",
    "one",
    "site",
    "urlset",
]

XML = '<?xml version="1.0" encoding="UTF-8"?>\n'
SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML = "http://www.w3.org/1999/xhtml"
ATOM = "http://www.w3.org/2005/Atom"
_PREFIXES = {"image": IMAGE, "video": VIDEO, "news": NEWS, "xhtml": XHTML}


@dataclass(frozen=True)
class Case:
    """One rule: its trigger and its near miss (``xfail_*``: why that side fails today).

    A rule may have several cases; an extra case may leave one side out (``None``)."""

    rule: str
    trigger: Fixture | None
    near_miss: Fixture | None
    xfail_trigger: str | None = None
    xfail_near_miss: str | None = None


def case(rule: str, trigger: Fixture | None, near_miss: Fixture | None, **xfail: str) -> Case:
    return Case(rule, trigger, near_miss, **xfail)


def _decls(ext: str) -> str:
    return "".join(f' xmlns:{p}="{_PREFIXES[p]}"' for p in ext.split())


def urlset(*entries: str, ext: str = "") -> str:
    """A urlset (``ext``: extension prefixes to declare, e.g. ``"image video"``); one entry per
    line from line 3."""
    body = "".join(f"{e}\n" for e in entries)
    return f'{XML}<urlset xmlns="{SITEMAP}"{_decls(ext)}>\n{body}</urlset>\n'


def index(*children: str) -> str:
    """A sitemapindex, one ``<sitemap>`` per line from line 3."""
    body = "".join(f"{c}\n" for c in children)
    return f'{XML}<sitemapindex xmlns="{SITEMAP}">\n{body}</sitemapindex>\n'


def one(text: Body, *, name: str = "sitemap.xml", line: int | None = None, args: tuple[str, ...] = (), http: bool | None = None) -> Fixture:
    """A single sitemap file (local unless ``http``)."""
    return Fixture({name: text}, target=name, line=line, args=args, http=http)


def site(files: dict[str, Body], *, target: str = "sitemap.xml", line: int | None = None, where: str | None = None, args: tuple[str, ...] = (), patch: tuple[tuple[str, str, object], ...] = ()) -> Fixture:
    """Several files served over HTTP."""
    return Fixture(files, target=target, line=line, where=where, args=args, http=True, patch=patch)


def small_cap_parser(url: str, *args: object, max_entries: int = 0, **kw: object) -> object:
    """The filejob's parser with an entry cap of 5 whatever the exploration asks: the CLI has no
    option for the cap, and 50,001 entries would cost seconds to test the same comparison."""
    from sitemap_tui.engine.sniff import SniffingParser

    return SniffingParser(url, *args, max_entries=5, **kw)  # type: ignore[arg-type]


SMALL_ENTRY_CAP = (("sitemap_tui.engine.filejob", "SniffingParser", small_cap_parser),)

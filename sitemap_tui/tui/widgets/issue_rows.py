"""How the Issues pane words things: an issue's row in the list, the rule's explanation (whole or
folded to one line), the issue in the detail area, and the numbered source lines.

Every string from the web (messages, URLs, body lines) goes through :func:`sanitize.display` and
is a ``Text``: a Tree label given as ``str`` would be parsed as markup.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit
from xml.sax.saxutils import escape as xml_escape

from rich.text import Text

from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store import IssueRow

try:  # the registry is written in parallel; the pane works without it
    from sitemap_tui.validate.registry import RULES as _RULES
except Exception:  # pragma: no cover - depends on the registry being importable
    _RULES = {}

RULES: dict[str, Any] = _RULES
SEVERITY_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold cyan"}
# A file's finding that counts its URLs (one per file, naming a sample): the filter words that
# list exactly the URLs it counted (validate/checker.py bumps each tally on these same values),
# so Enter on it lists them all, within its file (found from outside: it listed the sample only)
COUNTED_BY = {
    # (not feed-item-no-date: it counts items with no link, which no filter lists, and blank
    # dates, which lastmod:missing does not)
    "lastmod-missing": "lastmod:missing",
    "changefreq-ignored": "changefreq:any",
    "priority-ignored": "priority:any",
}
EXPLAIN_KEY = "i"
"""Said in the folded explanation; the pane binds it (``issues.explain``)."""

# the first quoted value of a message: the registry's templates quote values with !r
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def rule_title(rule_id: str) -> str | None:
    rule = RULES.get(rule_id)
    title = getattr(rule, "title", None) if rule is not None else None
    return str(title) if title else None


def rule_text(rule_id: str) -> Text:
    """The registry's explanation of a rule (or just its id when unknown)."""
    t = Text()
    rule = RULES.get(rule_id)
    t.append(display(rule_id), style="bold")
    if rule is None:
        t.append("\n(no description of this rule in the registry)", style="dim")
        return t
    title = getattr(rule, "title", "")
    if title:
        t.append(" — " + display(str(title)), style="bold")
    sev = getattr(rule, "severity", None)
    scope = getattr(rule, "scope", None)
    meta = ", ".join(str(getattr(x, "value", x)) for x in (sev, scope) if x)
    if meta:
        t.append(f"  ({meta})", style="dim")
    explanation = getattr(rule, "explanation", "")
    if explanation:
        t.append("\n" + display(str(explanation), 4000))
    source = getattr(rule, "source", "")
    if source:
        t.append("\nsource: ", style="bold")
        t.append(display(str(source), 1000))
    return t


def rule_folded(rule_id: str) -> Text:
    """The rule in one line, its explanation folded away (small terminals: the source lines
    need the room), with the key that unfolds it."""
    t = Text()
    t.append("▸ " + display(rule_id), style="bold")
    title = rule_title(rule_id)
    if title:
        t.append(" — " + display(title, 200), style="bold")
    t.append(f"  ({EXPLAIN_KEY}: explain)", style="dim")
    return t


def issue_text(iss: IssueRow, *, brief: bool = False, where: bool = False) -> Text:
    """The issue in the detail area; ``brief``: its message and line only (the row above shows
    the URL, the tree the sitemap), and with ``where`` (a subtree's issue) its sitemap."""
    t = Text()
    if brief:
        if iss.line:
            t.append(f"line {iss.line}" + (f":{iss.col}" if iss.col else "") + " ", style="dim")
        t.append(display(iss.message, 4000))
        if where and iss.sitemap:
            t.append("\nin ", style="dim")
            t.append(display(iss.sitemap))
        return t
    t.append(f"{iss.severity} ", style=SEVERITY_STYLE.get(iss.severity, ""))
    t.append(display(iss.message, 4000))
    if iss.sitemap:
        t.append("\nin ", style="dim")
        t.append(display(iss.sitemap))
        if iss.line:
            t.append(f" line {iss.line}" + (f", column {iss.col}" if iss.col else ""), style="dim")
    if iss.url:
        t.append("\nURL: ", style="dim")
        t.append(display(iss.url))
        if iss.entry_id is not None:  # the hint shares the line: the source lines need the rows
            t.append("  (enter: show it in the URL table)", style="dim italic")
    return t


def source_text(lines: list[tuple[int, bytes]], line: int, col: int | None = None, width: int = 300,
                find: tuple[str, ...] = ()) -> Text:
    """Numbered raw lines (decoded UTF-8 with replacement, sanitised), ``line`` highlighted.

    A long line is shown from a little before ``col`` so the problem is on screen; without a
    column (an entry's finding: the parser gives lines only), from where ``find``'s strings
    are, each looked for after the one before (the entry's URL, then the value its message
    quotes): found from outside, a minified sitemap's finding showed the line's first 80
    characters, its bad value 2,400 columns further."""
    t = Text(no_wrap=True, overflow="ellipsis")
    if not lines:
        return t
    digits = len(str(lines[-1][0]))
    if not col and find:
        col = _column_of(next((raw for n, raw in lines if n == line), b""), find, width)
    start = max(0, col - width // 3) if col and col > width // 2 else 0
    for n, raw in lines:
        s = raw.decode("utf-8", "replace").expandtabs(4)
        shown = display(s[start:], width)
        if start:
            shown = "…" + shown
        mark = "▶" if n == line else " "
        style = "reverse" if n == line else ""
        t.append(f"{mark}{n:>{digits}} │ ", style="bold" if n == line else "dim")
        t.append(shown, style=style)
        t.append("\n")
    t.rstrip()
    return t


def _column_of(raw: bytes, find: tuple[str, ...], width: int) -> int | None:
    """Where on the (long) line ``find``'s strings are, in order (source_text); None when the
    line fits or they are not there."""
    text = raw.decode("utf-8", "replace").expandtabs(4)
    if len(text) <= width:
        return None
    at, found = 0, None
    for needle in find:
        if not needle:
            continue
        # as an element's whole text first, XML-escaped as the file has it (found by a review:
        # a URL with & is &amp; there, and /p1 matched inside /p10)
        escaped = xml_escape(needle)
        for candidate in (f">{escaped}<", f">{needle}<", escaped, needle):
            i = text.find(candidate, at)
            if i >= 0:
                at = found = i + (1 if candidate.startswith(">") else 0)
                break
    return None if found is None else found + 1


def where_to_look(url: str | None, message: str) -> tuple[str, ...]:
    """What source_text looks for on a long line: the entry's URL, then the value its message
    quotes."""
    value = message_value(message)
    return (url or "", value[1:-1] if value else "")


def message_value(message: str) -> str | None:
    """The first quoted value of a message (``lastmod '14/05/2023' is not …``), quotes kept;
    not punctuation alone, which is the parser's wording, not the user's data (an unescaped
    ``&`` led its row with ``';'`` from "EntityRef: expecting ';'")."""
    for m in _QUOTED.finditer(message):
        value = m.group(0)
        if len(value) > 2 and any(c.isalnum() for c in value[1:-1]):
            return value
    return None


def short_url(url: str, sitemap: str | None) -> str:
    """The URL without the origin it shares with its sitemap, so a narrow row still shows the
    part that differs from row to row; another host's URL stays whole."""
    try:
        u, s = urlsplit(url), urlsplit(sitemap or "")
    except ValueError:
        return url
    if u.scheme and (u.scheme, u.netloc) == (s.scheme, s.netloc):
        rest = url[len(f"{u.scheme}://{u.netloc}"):]
        return rest or "/"
    return url


def issue_label(iss: IssueRow, with_sitemap: bool) -> Text:
    """An issue's row: the part that varies from issue to issue first (the value the message
    quotes, the URL), then the rule's wording, then where it is."""
    t = Text(no_wrap=True, overflow="ellipsis")
    value = message_value(iss.message)
    if value is not None and iss.url and value.strip("'\"") == iss.url:
        value = None  # the value is the URL: said once
    lead: list[tuple[str, str]] = []
    if value is not None:
        lead.append((display(value, 120), "bold"))
    if iss.url:
        lead.append((display(short_url(iss.url, iss.sitemap), 300), ""))
    for k, (text, style) in enumerate(lead):
        t.append((" " if k else "") + text, style=style)
    if lead:
        t.append(" — " + display(iss.message, 300), style="dim")
    else:
        t.append(display(iss.message, 300))
    where = [display(iss.sitemap.rsplit("/", 1)[-1], 40)] if with_sitemap and iss.sitemap else []
    if iss.line:
        where.append(f"line {iss.line}")
    if where:
        t.append(" · " + " ".join(where), style="dim")
    return t


def counted_urls(issue: IssueRow) -> tuple[str, str] | None:
    """The URL filter (and its title) listing the URLs a file's counting finding counted; None
    for any other finding, or a file whose URL holds a space (a filter word ends there)."""
    words = COUNTED_BY.get(issue.rule)
    if words is None or issue.entry_id is not None or not issue.sitemap or any(c.isspace() for c in issue.sitemap):
        return None
    # (the words first: at 80 columns the filter bar shows its start, and a file's URL is long)
    return f"{words} sitemap:{issue.sitemap}", f"{issue.rule}: {words} in {display(issue.sitemap, 80)}"


def file_issue_urls(issue: IssueRow) -> tuple[str, str] | None:
    """The URL filter (and its title) of what a file's finding is about: every URL a counting
    finding counted, else the one URL it names (a deprecated tag, a missing lastmod, a sample of
    another host) by its address; None for a finding on an entry, or about the file as a whole.
    Enter on the finding shows these rows, and ``w`` exports them."""
    if issue.entry_id is not None:
        return None
    if (counted := counted_urls(issue)) is not None:  # every URL it counted, not its sample
        return counted
    if issue.url and issue.url != issue.sitemap:
        # (as a plain word it listed every URL that holds it: …/cat-3 also …/cat-323; a word
        # ends at a space, so a URL with one is searched by its words)
        exact = not any(c.isspace() for c in issue.url)
        return f"url:{issue.url}" if exact else issue.url, f"{issue.rule}: {display(issue.url, 80)}"
    return None

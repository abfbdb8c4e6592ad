"""The URL table's filter language: what the user types in the filter bar, as an EntryFilter.

Plain words are substrings every URL holds (or one regex in regex mode); ``re:PATTERN`` a regex;
``url:URL`` exactly one URL; ``sitemap:URL`` one file's URLs (a row's node, decided by the caller
for :func:`row_matches`: the marks narrow their node ids to it);
``lastmod:2024-01..2024-06`` a lastmod range; ``has:issue`` and ``has:image|video|news|hreflang``
narrow further; ``lastmod:missing|invalid|any|future``, ``changefreq:WORD|missing|invalid|any``,
``priority:0.5|missing|invalid|any``, ``rule:RULE-ID`` and, in compare mode, ``diff:added|removed|moved|
lastmod|lastmod-back|attrs|ext`` name the groups the other panes count; the audit's
``status:404|3xx|none|skipped``, ``indexable:yes|no``, ``reason:WORD``, ``canonical:other|self|none``,
``blocked:AGENT`` and ``allowed:AGENT`` (engine.store.audit_filters) its results, and
``orphan:yes``, ``coverage:missing|not-in-list`` (engine.store.coverage_filters) its link crawl
and URL list, so a
drill-through (``messages.ShowUrls``) lands on a filter the user can read and edit. :func:`row_matches` evaluates a filter on one row in Python (the marks of "all
filtered rows" are shown without a query per row). No Textual here: the widget only calls it.
Each word is named once, in :data:`WORDS`, with its parser and the help screen's line.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime

from sitemap_tui.engine.stats import hreflang_key
from sitemap_tui.engine.store import EXTENSIONS, EntryFilter, EntryRow, priority_bucket
from sitemap_tui.engine.store.audit_filters import (
    CANONICALS,
    asks_verdict,
    canonical_kind,
    reason_matches,
    verdict_status,
)
from sitemap_tui.engine.store.coverage_filters import WORDS as COVERAGE_WORDS
from sitemap_tui.engine.store.coverage_filters import is_unlisted
from sitemap_tui.engine.store.diff_view import MARKS
from sitemap_tui.engine.values import CHANGEFREQS, parse_changefreq, parse_priority

_PERIOD_RE = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$")
_EXT_ALIASES = {
    "image": "image", "images": "image", "img": "image", "i": "image",
    "video": "video", "videos": "video", "v": "video",
    "news": "news", "n": "news",
    "hreflang": "hreflang", "alternate": "hreflang", "alternates": "hreflang", "alt": "hreflang", "h": "hreflang",
}
_STATES = ("missing", "invalid", "any")  # (any: the element is there, valid or not)
FUTURE_SLACK = 86400
"""A lastmod is "in the future" a day after now, as ``stats.FileAccumulator`` counts it (time zones)."""
_NUMBER_RE = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)$")  # a decimal as the data's priorities are read
_RULE_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_STATUS_RE = re.compile(r"^(?:[1-5]\d\d|[1-5]xx|none|skipped)$")
_AGENT_RE = re.compile(r"^[a-z0-9_-]{1,64}$")
_YES_NO = {"yes": True, "y": True, "true": True, "no": False, "n": False, "false": False}


def _period(text: str, *, end: bool) -> int:
    """Unix seconds of the start of a YYYY[-MM[-DD]] period (of the next one when ``end``)."""
    m = _PERIOD_RE.match(text)
    if not m:
        raise ValueError(f"bad date {text!r} (use YYYY, YYYY-MM or YYYY-MM-DD)")
    year, month, day = int(m.group(1)), m.group(2), m.group(3)
    try:
        if day is not None:
            start = datetime(year, int(month), int(day), tzinfo=UTC)
            if end:
                return int(start.timestamp()) + 86400
        elif month is not None:
            mo = int(month)
            start = datetime(year, mo, 1, tzinfo=UTC)
            if end:
                nxt = datetime(year + (mo == 12), 1 if mo == 12 else mo + 1, 1, tzinfo=UTC)
                return int(nxt.timestamp())
        else:
            start = datetime(year, 1, 1, tzinfo=UTC)
            if end:
                return int(datetime(year + 1, 1, 1, tzinfo=UTC).timestamp())
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"bad date {text!r}") from exc
    return int(start.timestamp())


class UserFilter(EntryFilter):
    """What the filter bar asks for: the EntryFilter fields its words set, combined with the
    scope the app gives in ``show`` (:func:`combine`); the scope's own fields (node_ids,
    entry_ids, diff_db) stay unset. An EntryFilter itself, so no field is named twice."""

    __slots__ = ()

    @property
    def empty(self) -> bool:
        return self == UserFilter()


Parser = Callable[[UserFilter, str, int | None], None]
"""Sets a word's fields from what follows its ``NAME:`` (as typed), and ``now`` (unix seconds,
None: the clock); raises ValueError with a one-line message for the user."""


@dataclasses.dataclass(frozen=True, slots=True)
class Word:
    """One filter word: ``name:VALUE``, its parser and the help line the help screen shows."""

    name: str
    syntax: str  # as the help writes it
    help: str
    parse: Parser


def _regex(uf: UserFilter, value: str, now: int | None) -> None:
    if value:
        uf.regex = value


def _url(uf: UserFilter, value: str, now: int | None) -> None:
    if not value:
        raise ValueError("url:? add the whole URL, e.g. url:https://example.com/page")
    uf.url = value  # as typed: a URL's path is case-sensitive


def _sitemap(uf: UserFilter, value: str, now: int | None) -> None:
    if not value:
        raise ValueError("sitemap:? add a sitemap file's whole URL, e.g. sitemap:https://example.com/sitemap.xml")
    uf.sitemap = value


def _lastmod(uf: UserFilter, spec: str, now: int | None) -> None:
    if spec.lower() in _STATES:
        uf.lastmod_state = spec.lower()
    elif spec.lower() == "future":
        start = (int(datetime.now(UTC).timestamp()) if now is None else now) + FUTURE_SLACK + 1
        uf.lastmod_from = start if uf.lastmod_from is None else max(uf.lastmod_from, start)
    elif ".." in spec:
        a, b = spec.split("..", 1)
        uf.lastmod_from = _period(a, end=False) if a else None
        uf.lastmod_to = _period(b, end=True) if b else None
        if uf.lastmod_from is not None and uf.lastmod_to is not None and uf.lastmod_from >= uf.lastmod_to:  # (the end is exclusive)
            raise ValueError(f"lastmod:{spec}: the period ends before it starts ({b}..{a} is the other way)")
    elif spec:
        uf.lastmod_from = _period(spec, end=False)
        uf.lastmod_to = _period(spec, end=True)


def _unknown(name: str, what: str, choices: Sequence[str], hint: str) -> ValueError:
    """"name:WHAT?" and the choice it is nearest to, else ``hint``: one line the status bar
    shows whole in the URL pane beside the tree at 80 columns (about 50 cells; the diff: words
    listed in full took 250 characters). F1 lists every word and value."""
    near = difflib.get_close_matches(what, choices, n=1, cutoff=0.6)
    return ValueError(f"{name}:{what}? did you mean {name}:{near[0]}?" if near else f"{name}:{what}? {hint}")


def _has(uf: UserFilter, value: str, now: int | None) -> None:
    what = value.lower()
    if what in ("issue", "issues", "!"):
        uf.has_issue = True
    elif what in _EXT_ALIASES:
        uf.extension = _EXT_ALIASES[what]
    else:
        raise _unknown("has", what, ("issue", *EXTENSIONS), "use issue, image, video, news, hreflang")


def _lang(uf: UserFilter, value: str, now: int | None) -> None:
    code = hreflang_key(value)  # as the Extensions pane counts the languages
    if not code:
        raise ValueError("lang:? add an hreflang code, e.g. lang:de or lang:x-default")
    uf.hreflang = code


def _changefreq(uf: UserFilter, value: str, now: int | None) -> None:
    what = value.lower()
    if what not in _STATES and parse_changefreq(what) is None:
        raise _unknown("changefreq", what, [*CHANGEFREQS, *_STATES], "daily…, missing, invalid, any")
    uf.changefreq = what


def _priority(uf: UserFilter, value: str, now: int | None) -> None:
    what = value.lower()
    if what in _STATES:
        uf.priority = what
    elif _NUMBER_RE.match(what) and 0.0 <= (number := float(what)) <= 1.0:
        uf.priority = priority_bucket(number + 0.0)  # "0.50" and ".5" read as the Overview's "0.5"
    else:
        raise ValueError(f"priority:{what}? use 0.0–1.0, missing, invalid, any")


def _checked(name: str, ok: Callable[[str], object], hint: str, value: Callable[[str], object] = str,
             choices: Sequence[str] = ()) -> Parser:
    """``name:VALUE``, lower-cased: the field of that name set to ``value(VALUE)`` when ``ok``
    accepts it, else "name:VALUE?" and the nearest of ``choices`` or ``hint`` for the user."""

    def parse(uf: UserFilter, raw: str, now: int | None) -> None:
        what = raw.lower()
        if not ok(what):
            raise _unknown(name, what, choices, hint)
        setattr(uf, name, value(what))

    return parse


def _agent(name: str) -> Parser:
    """``blocked:AGENT`` / ``allowed:AGENT`` (the field of the same name)."""
    return _checked(name, _AGENT_RE.match, f"name a crawler, e.g. {name}:GPTBot")


def _reason(uf: UserFilter, value: str, now: int | None) -> None:
    if not (what := value.lower()):
        raise ValueError("reason:? add a word, e.g. reason:noindex")
    uf.reason = what


WORDS: tuple[Word, ...] = (
    Word("re", "re:PATTERN", "URLs matching a regular expression", _regex),
    Word("url", "url:URL", "exactly that URL (a plain word is any URL that holds it)", _url),
    Word("sitemap", "sitemap:URL", "the URLs of that sitemap file (within the selection)", _sitemap),
    Word("lastmod", "lastmod:2024-01..2024-06", "lastmod in a period (YYYY[-MM[-DD]], either end open),"
         " or lastmod:missing, invalid, any, future", _lastmod),
    Word("has", "has:WHAT", "URLs with an issue (has:issue) or an extension: image, video, news, hreflang", _has),
    Word("lang", "lang:CODE", "URLs with an hreflang alternate in that language (lang:de, lang:x-default),"
         " as the Extensions pane counts them", _lang),
    Word("changefreq", "changefreq:WORD", f"changefreq {', '.join(CHANGEFREQS)}, missing, invalid or any",
         _changefreq),
    Word("priority", "priority:0.5|missing|…", "priority, as the Overview rounds it (0.5), or missing, invalid, any",
         _priority),
    Word("rule", "rule:RULE-ID", "URLs with an issue of that rule",
         _checked("rule", _RULE_RE.match, "use a rule id, e.g. rule:loc-empty")),
    Word("diff", "diff:CHANGE", f"compare mode, what changed since the earlier exploration: {', '.join(MARKS)}",
         _checked("diff", MARKS.__contains__, "use added, removed, moved, … (F1)",
                  choices=MARKS)),
    Word("status", "status:404|3xx|none|skipped", "the audit's HTTP status: a code, a class, no answer,"
         " or skipped (not fetched: robots.txt shuts sitemap-tui out, not Googlebot)",
         _checked("status", _STATUS_RE.match, "use 404, 3xx, none or skipped")),
    Word("indexable", "indexable:yes|no", "the audit's indexability verdict",
         _checked("indexable", _YES_NO.__contains__, "use yes or no", _YES_NO.__getitem__,
                  choices=("yes", "no"))),
    Word("reason", "reason:WORD", "a word of the audit's reason (noindex, redirect, canonical, robots, ...)",
         _reason),
    Word("canonical", f"canonical:{'|'.join(CANONICALS)}", "the page's canonical: another URL, itself, none",
         _checked("canonical", CANONICALS.__contains__, "use other, self or none",
                  choices=CANONICALS)),
    Word("blocked", "blocked:AGENT", "URLs robots.txt shuts that crawler out of (e.g. blocked:GPTBot)",
         _agent("blocked")),
    Word("allowed", "allowed:AGENT", "URLs robots.txt lets that crawler fetch", _agent("allowed")),
    Word("orphan", "orphan:yes", "listed URLs no page of the link crawl links to (audit --crawl)",
         _checked("orphan", lambda w: _YES_NO.get(w, False),
                  "use orphan:yes", lambda w: True)),
    Word("coverage", f"coverage:{'|'.join(COVERAGE_WORDS)}", "pages of no sitemap (audit --crawl or"
         " --compare-list), listed URLs your list lacks",
         _checked("coverage", COVERAGE_WORDS.__contains__, f"use {' or '.join(COVERAGE_WORDS)}",
                  choices=COVERAGE_WORDS)),
)
"""The filter words: each named once, with its parser and its help line (the help screen)."""
_BY_NAME = {w.name: w for w in WORDS}


def filter_help() -> list[tuple[str, str]]:
    """The filter bar's language as (syntax, what it lists), plain words first."""
    return [("WORDS", "URLs holding every word, in any order (one regex with the Regex box ticked)"),
            *((w.syntax, w.help) for w in WORDS)]


_SCHEMES = ("http", "https")  # "https:" in the bar is a URL's start, searched as text


def parse_filter(text: str, *, regex_mode: bool = False, now: int | None = None) -> UserFilter:
    """Parse the filter bar. Raises ValueError with a message for the user.

    Plain words are substrings every URL holds (or one regex in regex mode); ``NAME:VALUE`` is a word of
    :data:`WORDS` (``re:PATTERN`` a regex, ``lastmod:2024-01..2024-06`` a lastmod range, ...).
    ``lastmod:future`` is measured from ``now`` (unix seconds; the clock when not given)."""
    uf = UserFilter()
    plain: list[str] = []
    for tok in text.split():
        name, colon, value = tok.partition(":")
        word = _BY_NAME.get(name.lower()) if colon else None
        if word is not None:
            before = dataclasses.asdict(uf)
            word.parse(uf, value, now)
            after = dataclasses.asdict(uf)
            if any(before[k] != _DEFAULTS[k] and after[k] != before[k] for k in before):
                # the second replaced the first, silently (found by a review: "diff:moved
                # diff:removed" listed the removed rows alone)
                raise ValueError(f"{name}: is given twice; the filter takes one (its rows are not combined)")
            continue
        if colon and name.isalpha() and name.lower() not in _SCHEMES:
            # a mistyped word was searched as text: "0 rows" said nothing of why (found from outside)
            near = difflib.get_close_matches(name.lower(), list(_BY_NAME), n=1, cutoff=0.6)
            if near:
                raise ValueError(f"{name}: is no filter word; did you mean {near[0]}:?")
        plain.append(tok)
    if plain:
        if regex_mode:
            if uf.regex:
                raise ValueError("regex mode and re: together; use one")
            uf.regex = " ".join(plain)
        else:
            # every word, in any order (a URL holds no space, so the phrase matched nothing):
            # the longest is the one the search index looks up
            words = sorted(dict.fromkeys(plain), key=len, reverse=True)
            uf.substring, uf.also_contains = words[0], tuple(words[1:])
    if uf.regex is not None:
        try:
            re.compile(uf.regex)
        except re.error as exc:
            raise ValueError(f"bad regex: {exc}") from exc
    return uf


_DEFAULTS = {f.name: f.default for f in dataclasses.fields(UserFilter)}


def combine(scope: EntryFilter, user: UserFilter) -> EntryFilter:
    """The scope from the app narrowed by the user's filter-bar criteria: each field the user
    set replaces the scope's, but a lastmod range is the two ranges' overlap."""
    f = dataclasses.replace(scope)
    for name, default in _DEFAULTS.items():
        value = getattr(user, name)
        if value == default or value == "":  # (not asked; an empty text asks nothing)
            continue
        current = getattr(f, name)
        if name == "lastmod_from" and current is not None:
            value = max(current, value)
        elif name == "lastmod_to" and current is not None:
            value = min(current, value)
        setattr(f, name, value)
    return f


def row_matches(
    flt: EntryFilter,
    row: EntryRow,
    rule_check: Callable[[int, str], bool] | None = None,
    sets: tuple[frozenset[int] | None, frozenset[int] | None] | None = None,
    diff_check: Callable[[int, str], bool] | None = None,
    coverage_check: Callable[[int, str], bool] | None = None,
    lang_check: Callable[[int, str], bool] | None = None,
) -> bool:
    """The filter evaluated in Python on one row (to show "all filtered" marks).

    ``sets``: the filter's node_ids and entry_ids as frozensets, when the caller keeps them. A
    ``sitemap:URL`` filter is decided by its node ids, which :func:`to_files` narrows first.
    ``rule_check`` / ``diff_check``: whether a row has an issue of a rule / is in a change
    category (engine.store.urls.has_rule, engine.store.diff_view.has_mark); ``coverage_check``
    whether an entry is ``orphan`` / ``not-in-list`` (engine.store.coverage_filters.has_coverage)
    or ``skipped`` by the audit (engine.store.audit_filters.is_skipped); ``lang_check`` whether it
    has an alternate in an hreflang language (engine.store.urls.has_hreflang)."""
    nodes, ids = sets if sets is not None else (
        None if flt.node_ids is None else frozenset(flt.node_ids),
        None if flt.entry_ids is None else frozenset(flt.entry_ids),
    )
    if nodes is not None and row.node_id not in nodes:
        return False
    if ids is not None and row.id not in ids:
        return False
    loc = row.loc
    for text in (flt.substring, *flt.also_contains):
        if text and (loc is None or text not in loc):
            return False
    if flt.regex and (loc is None or re.search(flt.regex, loc) is None):
        return False
    if flt.url is not None and loc != flt.url:
        return False
    if flt.lastmod_from is not None and (row.lastmod is None or row.lastmod < flt.lastmod_from):
        return False
    if flt.lastmod_to is not None and (row.lastmod is None or row.lastmod >= flt.lastmod_to):
        return False
    if flt.has_issue and not row.n_issues:
        return False
    if flt.extension and not getattr(row, EXTENSIONS[flt.extension]):
        return False
    # the row keeps only the raw values: parsed again by the functions the parser stored them with
    if flt.lastmod_state is not None and not _in_state(row.lastmod_raw, flt.lastmod_state, row.lastmod):
        return False
    if flt.changefreq is not None:
        word = parse_changefreq(row.changefreq_raw)
        if not _in_state(row.changefreq_raw, flt.changefreq, word, word):
            return False
    if flt.priority is not None:
        value = parse_priority(row.priority_raw)
        if not _in_state(row.priority_raw, flt.priority, value, priority_bucket(value)):
            return False
    if flt.diff and diff_check is not None and not diff_check(row.id, flt.diff):
        return False
    if flt.status == "skipped" and (coverage_check is None or not coverage_check(row.id, "skipped")):
        return False
    if not _audit_matches(flt, row):
        return False
    # coverage:missing rows are pages of no sitemap, told by their ids; the others need the store
    if flt.coverage == "missing" and not is_unlisted(row.id):
        return False
    for word, asked in (("orphan", flt.orphan), ("not-in-list", flt.coverage == "not-in-list")):
        if asked and coverage_check is not None and not coverage_check(row.id, word):
            return False
    if flt.hreflang and lang_check is not None and not lang_check(row.id, flt.hreflang):
        return False
    return not (flt.rule and rule_check is not None and not rule_check(row.id, flt.rule))


def to_files(flt: EntryFilter, at: Iterable[int]) -> EntryFilter:
    """``flt`` with its node ids narrowed to ``at``, the files its ``sitemap:URL`` names (the
    store's ``nodes_at``): :func:`row_matches` tells a row's file by its node alone."""
    files = set(at)
    ids = files if flt.node_ids is None else [n for n in flt.node_ids if n in files]
    return dataclasses.replace(flt, node_ids=sorted(ids))


def _state(raw: str | None, parsed: object) -> str | None:
    """"missing" (no element), "invalid" (one that did not parse) or None (a value)."""
    if raw is None:
        return "missing"
    return "invalid" if parsed is None else None


def _in_state(raw: str | None, want: str, parsed: object, shown: str | None = None) -> bool:
    """Whether a raw value is in the asked state: "any" (an element, valid or not), "missing",
    "invalid", or the value as the Overview shows it (``shown``)."""
    if want == "any":
        return raw is not None
    return (shown or _state(raw, parsed)) == want


def _audit_matches(flt: EntryFilter, row: EntryRow) -> bool:
    """The audit and access fields of the filter on the row's cells, as
    engine.store.audit_filters writes them in SQL."""
    cells = row.audit
    status = verdict_status(flt.status)  # (status:skipped: row_matches asks the store)
    audit_asked = asks_verdict(flt.status, flt.indexable, flt.reason, flt.canonical)
    if not audit_asked and (flt.blocked, flt.allowed) == (None, None):
        return True
    if cells is None:
        return False
    if audit_asked and not cells.audited:
        return False
    if status is not None and not _status_matches(status, cells.status, cells.redirects):
        return False
    if flt.indexable is not None and cells.indexable != int(flt.indexable):
        return False
    if flt.reason is not None and not reason_matches(flt.reason, cells):
        return False
    if flt.canonical is not None and canonical_kind(cells) != flt.canonical:
        return False
    for name, blocked in ((flt.blocked, True), (flt.allowed, False)):
        if name is None:
            continue
        if not cells.access_known or any(a.lower() == name.lower() for a in cells.blocked) != blocked:
            return False
    return True


def _status_matches(spec: str, status: int | None, redirects: int) -> bool:
    if spec == "none":
        return status is None
    if status is None:
        return spec == "3xx" and redirects > 0
    if spec.endswith("xx"):
        low = int(spec[0]) * 100
        return low <= status <= low + 99 or (low == 300 and redirects > 0)
    return status == int(spec)


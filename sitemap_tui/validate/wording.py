"""Rule-level wording and grading keyed on a finding's fields.

Most rules word every issue from their ``message`` template. The rules the engine emits (fetch,
decode, sniff, parse) observe several distinct situations under one id — a JSON body and an
empty one are both ``root-unknown``, a libxml2 error and an entry flood both
``xml-not-well-formed`` — so their wording picks the sentence from the fields the engine
recorded. A function returns ``None`` when the fields are not one of its situations: the
template then words the issue (the checker and XSD stage use the templates).

Grades do the same for severity: the few rules whose catalogue condition lowers or raises a
severity decide it from the finding's fields here, never from an emitter's say-so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sitemap_tui.engine.model import Severity
from sitemap_tui.engine.parse_xml import PARSE_STOPPED, SITEMAP_NS

Fields = Mapping[str, Any]
Word = Callable[[Fields], "str | None"]
Grade = Callable[[Fields], "Severity | None"]


def _parser_error(f: Fields) -> str | None:
    """The parser's own message (libxml2's), with the note that parsing stopped there."""
    if "error" not in f:
        return None
    return f"{f['error']}{PARSE_STOPPED}" if f.get("stopped") else str(f["error"])


def _fetch_error(f: Fields) -> str | None:
    """A fetch that ended in an error: the fetcher's account of it, as on the node."""
    return str(f["error"]) if "error" in f else None


def _not_well_formed(f: Fields) -> str | None:
    if "nodes" in f:  # one element of megabytes of markup
        return (
            f"<{f['element']}> at line {f['at_line']} holds more than {f['nodes']:,} elements;"
            " parsing stopped"
        )
    return _parser_error(f)


_ENCODING = {
    "utf-16": "The document is UTF-16; sitemaps must be UTF-8",
    "text": "Text sitemap is not valid UTF-8",
}


def _not_utf8(f: Fields) -> str | None:
    found = f.get("found")
    if found == "declared":
        return f"The XML declaration names encoding {f['encoding']}; sitemaps must be UTF-8"
    if found in _ENCODING:
        return _ENCODING[str(found)]
    return _parser_error(f)


_ROOT_UNKNOWN = {
    "json": "JSON document served as a sitemap",
    "empty": "Empty document: no sitemap content",
    "robots.txt": (
        "This is a robots.txt file (explore the site, or a path named robots.txt, to"
        " follow its Sitemap: lines)"
    ),
    # (the explorer puts "not a sitemap: " before this on the node)
    "other": "Neither XML nor a list of URLs",
}


def _root_unknown(f: Fields) -> str | None:
    found = f.get("found")
    if found == "element":
        return f"Root element <{f['root']}> is not urlset, sitemapindex, rss or feed"
    return _ROOT_UNKNOWN.get(str(found)) if found is not None else None


def _leading(f: Fields) -> str | None:
    if "skipped" in f:
        return (
            f"{f['skipped']:,} bytes of other content before the XML were skipped (the XML"
            f" must come first): {f['snippet']}"
        )
    return None


def _stray(f: Fields, verb: tuple[str, str], middle: str) -> str:
    """Entries (<url>/<sitemap>) outside the root's namespace, kept anyway."""
    count, name = f["count"], f["element"]
    one = count == 1
    what = name if one else f"{count:,} {name} elements (the first at line {f['first_line']})"
    kept = "its entry is kept" if one else "the entries are kept"
    return f'{what} {verb[0] if one else verb[1]} {middle}; expected "{SITEMAP_NS}"; {kept}'


def _namespace_missing(f: Fields) -> str | None:
    if "count" in f:
        return _stray(f, ("has", "have"), 'no namespace (xmlns="")')
    if "root" in f:
        return f'<{f["root"]}> has no namespace; expected xmlns="{SITEMAP_NS}"'
    return None


def _namespace_wrong(f: Fields) -> str | None:
    if "count" in f:
        return _stray(f, ("is", "are"), f'in the namespace "{f["namespace"]}"')
    if "root" in f:
        return f'<{f["root"]}> namespace is "{f["namespace"]}"; expected "{SITEMAP_NS}"'
    return None


def _over_cap(what: str) -> Word:
    def word(f: Fields) -> str | None:
        if "lines" in f:  # a text sitemap: counted in lines
            cap, lines, first, rest = f["cap"], f["lines"], f["first"], f["unread"]
            size = f"at least {lines:,} lines (the body was cut short)" if f["cut"] else f"{lines:,} lines"
            unread = "the 1 line from" if rest == 1 else f"the {rest:,} lines from"
            return (
                f"More than {cap:,} URLs in {size}: the first {cap:,} are kept (to line"
                f" {first - 1:,}), {unread} line {first:,} on {'was' if rest == 1 else 'were'} not read"
            )
        if "listed" not in f:
            return None
        listed, cap, over = f["listed"], f["cap"], f["over"]
        if f["at_least"]:
            return (
                f"At least {listed:,} {what} (parsing stopped before the end), more than the"
                f" limit of {cap:,}: the first {cap:,} are kept"
            )
        rest = "1 is" if over == 1 else f"{over:,} are"
        return f"{listed:,} {what}, more than the limit of {cap:,}: the first {cap:,} are kept, {rest} not"

    return word


def _misplaced(f: Fields) -> str | None:
    if "misplaced_over" in f:
        return f"More than {f['misplaced_over']:,} misplaced elements; the rest are not reported"
    parent = f.get("parent")
    if parent == "loc":
        return f"<{f['element']}> inside <loc>: the URL is unusable"
    if parent is not None:
        return f"<{f['element']}> inside <{parent}> (ignored)"
    return None


def _wrong_child(f: Fields) -> str | None:
    if "parent" in f:
        return f"<{f['element']}> inside a <{f['parent']}> (ignored)"
    return None


def _undeclared(f: Fields) -> str | None:
    if "prefix" in f and "element" not in f:
        p = f["prefix"]
        return f"Namespace prefix {p}: is used without an xmlns:{p} declaration"
    return _parser_error(f)


def _not_url(f: Fields) -> str | None:
    if "hidden" in f:
        return f"{f['hidden']} more line(s) that are not absolute http(s) URLs (not listed)"
    if "longer_than" in f:
        return f"line longer than {f['longer_than']:,} bytes (skipped)"
    return None


def _redirected(f: Fields) -> str | None:
    if "hops" not in f:
        return None
    hops = f["hops"]
    message = f"{f['from_url']} redirects to {f['final_url']} ({hops} redirect{'s' if hops != 1 else ''})"
    if f.get("hosts"):
        message += f"; host changes: {' -> '.join(f['hosts'])}"
    return message


def _encoding_mismatch(f: Fields) -> str | None:
    if "starts_with" not in f:
        return _fetch_error(f)
    return (
        "the response says Content-Encoding: gzip, but the body is not gzip-compressed"
        f" (it starts with plain {f['starts_with']}); it was read as it is"
    )


#: Rule id -> wording from fields (``None``: the rule's template words it).
WORDS: dict[str, Word] = {
    "xml-not-well-formed": _not_well_formed,
    "xml-unescaped-char": _parser_error,
    "xml-illegal-char": _parser_error,
    "encoding-not-utf8": _not_utf8,
    "root-unknown": _root_unknown,
    "xml-leading-whitespace": _leading,
    "namespace-missing": _namespace_missing,
    "namespace-wrong": _namespace_wrong,
    "url-count-over-limit": _over_cap("entries"),
    "index-too-many-sitemaps": _over_cap("<sitemap> entries"),
    "core-unknown-element": _misplaced,
    "index-wrong-children": _wrong_child,
    "ext-prefix-undeclared": _undeclared,
    "text-line-not-url": _not_url,
    "fetch-redirected": _redirected,
    "content-encoding-mismatch": _encoding_mismatch,
    # the fetch errors: the node's error, as the fetcher put it
    "fetch-http-error": _fetch_error,
    "fetch-private-address": _fetch_error,
    "size-over-limit": _fetch_error,
    "gzip-corrupt": _fetch_error,
    "compression-not-gzip": _fetch_error,
}


#: Rule id -> severity from fields (``None``: the registry's severity).
GRADES: dict[str, Grade] = {
    # a news sitemap is empty whenever no article is recent enough (catalogue: info there)
    "urlset-empty": lambda f: Severity.INFO if f.get("news") else None,
    # a date without seconds: Google accepts it, only the news XSD rejects it
    "news-date-invalid": lambda f: Severity.WARNING if f.get("no_seconds") else None,
}

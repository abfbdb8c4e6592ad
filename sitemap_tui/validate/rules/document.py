"""The document: what the file is (XML, HTML, the root element), its encoding, well-formedness, namespaces, schema and size in entries."""

from __future__ import annotations

from sitemap_tui.engine.model import Severity
from sitemap_tui.engine.parse_xml import PARSE_STOPPED
from sitemap_tui.validate.rules import ERR, INFO, WARN, Fields, Rule, Word


def parser_error(f: Fields) -> str | None:
    """The parser's own message (libxml2's), with the note that parsing stopped there."""
    if "error" not in f:
        return None
    return f"{f['error']}{PARSE_STOPPED}" if f.get("stopped") else str(f["error"])


def _not_well_formed(f: Fields) -> str | None:
    if "nodes" in f:  # one element of megabytes of markup
        return (
            f"<{f['element']}> at line {f['at_line']} holds more than {f['nodes']:,} elements;"
            " parsing stopped"
        )
    return parser_error(f)


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
    return parser_error(f)


_ROOT_UNKNOWN = {
    "json": "JSON document served as a sitemap",
    "empty": "Empty document: no sitemap content",
    "blank": "Nothing but whitespace in the first 64 KiB: the rest was not read",
    "robots.txt": (
        "This is a robots.txt file (explore the site, or a path named robots.txt, to"
        " follow its Sitemap: lines)"
    ),
    # (the explorer puts "not a sitemap: " before this on the node)
    "other": "Neither XML nor a list of URLs",
}


_ROOT_NAMESPACES = {
    "feed": "Atom's (http://www.w3.org/2005/Atom)",
    "RDF": "RDF's (http://www.w3.org/1999/02/22-rdf-syntax-ns#, RSS 1.0)",
}


def _root_unknown(f: Fields) -> str | None:
    found = f.get("found")
    if found == "element":
        wanted = _ROOT_NAMESPACES.get(str(f["root"]))
        if wanted is not None:  # "<feed> is not ... feed" said nothing of what was wrong
            ns = f.get("namespace")
            where = f"in the namespace {ns}" if ns else "in no namespace"
            return f"Root element <{f['root']}> is {where}, not {wanted}: not read as a feed"
        return f"Root element <{f['root']}> is not urlset, sitemapindex, rss or feed"
    return _ROOT_UNKNOWN.get(str(found)) if found is not None else None


def _leading(f: Fields) -> str | None:
    if "skipped" in f:
        return (
            f"{f['skipped']:,} bytes of other content before the XML were skipped (the XML"
            f" must come first): {f['snippet']}"
        )
    return None


def over_cap(what: str) -> Word:
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


def _empty_news(f: Fields) -> Severity | None:
    """A news sitemap is empty whenever no article is recent enough (catalogue: info there)."""
    return Severity.INFO if f.get("news") else None


RULES: tuple[Rule, ...] = (
    Rule(
        id="file-is-html",
        scope="file",
        severity=ERR,
        title="HTML page instead of a sitemap",
        message="The body is an HTML page, not a sitemap",
        explanation=(
            "The body is an HTML page, for example a soft-404, login or CMS error page: the root "
            "element is `html`, or `<!DOCTYPE html` is sniffed, instead of "
            "`urlset`/`sitemapindex`/`rss`/`feed` or a URL list."
        ),
        source="https://support.google.com/webmasters/answer/7451001",
        decided_by=("parse",),
    ),
    Rule(
        id="url-count-over-limit",
        scope="file",
        severity=ERR,
        title="More than 50,000 URLs",
        message="more than 50,000 URL entries in one sitemap; the rest was not read",
        explanation=(
            "More than 50,000 `<url>` entries in a `urlset`, or more than 50,000 URL lines in a "
            "text sitemap."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §Sitemap index ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap"
        ),
        decided_by=("parse",),
        word=over_cap("entries"),
    ),
    Rule(
        id="url-count-near-limit",
        scope="file",
        severity=WARN,
        title="Close to the 50,000-entry limit",
        message="{count:,} entries is over 90% of the 50,000 limit",
        explanation=(
            "More than 45,000 entries (90 % of 50,000) but not over the limit, in a urlset, text "
            "sitemap or sitemap index. The threshold is a heuristic."
        ),
        source="https://www.sitemaps.org/protocol.html §Sitemap index",
        decided_by=("checker",),
    ),
    Rule(
        id="encoding-not-utf8",
        scope="file",
        severity=ERR,
        title="Not UTF-8",
        message="the file is not UTF-8: {detail}",
        explanation=(
            "The XML declaration names an encoding other than UTF-8 (compared without regard to "
            'case). Or the bytes are not valid UTF-8: libxml2 reports "Input is not proper UTF-8" '
            "/ `ERR_INVALID_CHAR`. Text sitemaps must be UTF-8 too."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html (intro and §Entity escaping) ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap"
        ),
        decided_by=("parse",),
        word=_not_utf8,
    ),
    Rule(
        id="encoding-bom",
        scope="file",
        severity=INFO,
        title="UTF-8 byte-order mark",
        message="UTF-8 byte-order mark at the start",
        explanation=(
            "A UTF-8 byte-order mark is present. XML allows it and lxml accepts it; it is "
            "reported for information only."
        ),
        source="https://www.w3.org/TR/xml/#charencoding",
        decided_by=("parse",),
    ),
    Rule(
        id="xml-leading-whitespace",
        scope="file",
        severity=ERR,
        title="Content before the XML declaration",
        message="Content before the <?xml declaration; the XML declaration must come first",
        explanation=(
            "Whitespace or any other bytes (apart from a BOM) come before the `<?xml` declaration. "
            'The XML is then not well-formed: libxml2 says "XML declaration allowed only at the '
            'start of the document". Google calls this "Leading whitespace". sitemap-tui still '
            "reads the file: it skips whitespace and BOMs, and up to 4 KiB of other content (a "
            "PHP notice or warning printed before the sitemap, a common WordPress artefact) when "
            "a sitemap or feed follows; line numbers stay those of the file as served."
        ),
        source=(
            "https://support.google.com/webmasters/answer/7451001 ; "
            "https://www.w3.org/TR/xml/#sec-prolog-dtd"
        ),
        decided_by=("parse",),
        word=_leading,
    ),
    Rule(
        id="xml-not-well-formed",
        scope="file",
        severity=ERR,
        title="XML is not well-formed",
        message="XML parse error: {detail}",
        explanation=(
            "A fatal XML parse error: unclosed or mismatched tags, a bad attribute, a truncated "
            'file. Google calls this a "Parsing error". The issue carries the line and column '
            "from the parser."
        ),
        source="https://support.google.com/webmasters/answer/7451001 ; https://www.w3.org/TR/xml/",
        decided_by=("parse",),
        word=_not_well_formed,
    ),
    Rule(
        id="xml-unescaped-char",
        scope="file",
        severity=ERR,
        title="Unescaped & or < in XML text",
        message="unescaped '&' or '<': {detail}",
        explanation=(
            "A raw `&` or `<` appears in character data or an attribute value. The usual case is a "
            "query string in `<loc>`. It must be written `&amp;` / `&lt;`. (`'`, `\"` and `>` must "
            "be escaped where XML requires it; the protocol asks for entity escapes for all five.)"
        ),
        source="https://www.sitemaps.org/protocol.html §Entity escaping",
        decided_by=("parse",),
        word=parser_error,
    ),
    Rule(
        id="xml-illegal-char",
        scope="file",
        severity=ERR,
        title="Character not allowed in XML",
        message="character not allowed in XML 1.0: {detail}",
        explanation=(
            "The document contains characters that XML 1.0 forbids: C0 controls other than "
            "TAB/LF/CR, U+FFFE, U+FFFF, or lone surrogates. This is a fatal parse error."
        ),
        source="https://www.w3.org/TR/xml/#charsets",
        decided_by=("parse",),
        word=parser_error,
    ),
    Rule(
        id="xml-declaration-missing",
        scope="file",
        severity=INFO,
        title="No XML declaration",
        message="No <?xml ...?> declaration",
        explanation=(
            'There is no `<?xml version="1.0" encoding="UTF-8"?>`. This is legal for UTF-8 '
            "documents, but every protocol example has one."
        ),
        source="https://www.w3.org/TR/xml/#sec-prolog-dtd ; https://www.sitemaps.org/protocol.html",
        decided_by=("parse",),
    ),
    Rule(
        id="root-unknown",
        scope="file",
        severity=ERR,
        title="Unknown root element",
        message="root element {root!r} is not urlset, sitemapindex, rss or feed",
        explanation=(
            "The root element is not `urlset` or `sitemapindex` (sitemaps.org namespace), nor "
            "`rss` (2.0) or `feed` (Atom), and the body is not a plain URL list either."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html ; "
            "https://www.sitemaps.org/protocol.html#otherformats"
        ),
        decided_by=("parse",),
        word=_root_unknown,
    ),
    Rule(
        id="xsd-invalid",
        scope="file",
        severity=ERR,
        title="Fails the official XML schema",
        message="schema validation: {detail}",
        explanation=(
            "The document fails validation against the bundled official schemas (strict wrapper "
            "`wrappers/sitemaps-strict.xsd`). This is an umbrella rule: a schema complaint that a "
            "more specific rule reports for the same element (child order, a bad value, a "
            "missing `<loc>`, an undeclared prefix, an unknown namespace) is reported under that "
            "rule only, whose severity may be lower where the schema is stricter than the "
            "engines. What is left names the element and what the schema expects there. A "
            "complaint whose specific rule is not selected (`--select xsd-`, `--ignore "
            "priority-invalid`) is reported here, so a schema gate passes no invalid file."
        ),
        source="https://www.sitemaps.org/protocol.html §Validating your Sitemap",
        decided_by=("xsd",),
    ),
    Rule(
        id="xsd-schema-location-odd",
        scope="file",
        severity=INFO,
        title="Odd xsi:schemaLocation",
        message="xsi:schemaLocation {value!r}: {reason}",
        explanation=(
            "`xsi:schemaLocation` is malformed (an odd number of tokens), or points at the wrong "
            "schema (for example `siteindex.xsd` for a `urlset`). Engines ignore it, and our "
            "validator never follows it."
        ),
        source="https://www.w3.org/TR/xmlschema-1/#schema-loc",
        decided_by=("xsd",),
    ),
    Rule(
        id="urlset-empty",
        scope="file",
        severity=WARN,
        title="Empty urlset",
        message="the urlset has no <url> entries",
        explanation=(
            "A `urlset` with no `<url>`. The XSD requires at least one, and Google shows an "
            '"Empty sitemap" warning. In a news sitemap it is only info: Google says an empty '
            "news sitemap is fine."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap"
        ),
        decided_by=("checker",),
        grade=_empty_news,
    ),
    Rule(
        id="xml-dtd-forbidden",
        scope="file",
        severity=ERR,
        title="DOCTYPE/DTD refused",
        message=(
            "DOCTYPE declarations are not allowed in sitemaps (entity and DTD processing is"
            " disabled)"
        ),
        explanation=(
            "The document has a DOCTYPE declaration. sitemap-tui refuses DTDs and entity "
            "declarations outright, to prevent XML external entity (XXE) and entity-expansion "
            '("billion laughs") attacks; sitemaps never need them. Parsing stops at the DOCTYPE. '
            "Not in the catalogue: this is sitemap-tui's own security policy."
        ),
        source="https://www.w3.org/TR/xml/ ; sitemap-tui security policy (SECURITY.md)",
        decided_by=("parse",),
    ),
)


# -- checks (called by the streaming checker, validate/checker.py) --------------------



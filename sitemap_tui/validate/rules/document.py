"""The document: what the file is (XML, HTML, the root element), its encoding, well-formedness, namespaces, schema and size in entries."""

from __future__ import annotations

from sitemap_tui.engine.model import Issue, Severity
from sitemap_tui.engine.parse_xml import PARSE_STOPPED, SITEMAP_NS
from sitemap_tui.validate.checkstate import (
    _URL_EXPECTED,
    CORE_ORDER,
    EXTENSION_PREFIXES,
    MOBILE_NS,
    XHTML_NS,
    FileContext,
    FileState,
    expected_namespace,
    tally,
)
from sitemap_tui.validate.rules import ERR, INFO, WARN, Fields, Rule, Word, make_issue


def _parser_error(f: Fields) -> str | None:
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


def _undeclared(f: Fields) -> str | None:
    if "prefix" in f and "element" not in f:
        p = f["prefix"]
        return f"Namespace prefix {p}: is used without an xmlns:{p} declaration"
    return _parser_error(f)


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
        word=_over_cap("entries"),
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
        word=_parser_error,
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
        word=_parser_error,
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
        id="namespace-missing",
        scope="file",
        severity=ERR,
        title="Sitemap namespace missing",
        message="<{root}> has no namespace; expected http://www.sitemaps.org/schemas/sitemap/0.9",
        explanation=(
            "`urlset`/`sitemapindex` has no namespace. The default namespace must be "
            "`http://www.sitemaps.org/schemas/sitemap/0.9`. Also reported for a `<url>` or "
            '`<sitemap>` in no namespace inside a sitemap (`<url xmlns="">`): sitemap-tui keeps '
            "such entries and names the first one's line."
        ),
        source=(
            'https://www.sitemaps.org/protocol.html (intro: "Specify the namespace") ; '
            'https://support.google.com/webmasters/answer/7451001 ("Incorrect namespace")'
        ),
        decided_by=("parse",),
        word=_namespace_missing,
    ),
    Rule(
        id="namespace-wrong",
        scope="file",
        severity=ERR,
        title="Wrong sitemap namespace",
        message="namespace {namespace!r} is not http://www.sitemaps.org/schemas/sitemap/0.9",
        explanation=(
            "The root namespace is not exactly `http://www.sitemaps.org/schemas/sitemap/0.9`. "
            "Typical causes: an `https://` variant, a trailing slash, a typo, or the 2005 Google "
            "namespace `http://www.google.com/schemas/sitemap/0.84`. The `http:` scheme in this "
            "namespace name is correct. Also reported for a `<url>` or `<sitemap>` in another "
            "namespace than its root's: sitemap-tui keeps such entries (and every entry of a file "
            "in a wrong namespace) and names the first one's line."
        ),
        source=(
            "https://support.google.com/webmasters/answer/7451001 ; "
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping (note on "
            "`http` in xmlns)"
        ),
        decided_by=("parse",),
        word=_namespace_wrong,
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
            "engines. What is left names the element and what the schema expects there."
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
        id="core-unknown-attribute",
        scope="file",
        severity=WARN,
        title="Attribute not declared by the schema",
        message="<{element}> has attribute {attribute!r}, which the schema does not declare",
        explanation=(
            "`urlset`, `url`, `sitemapindex`, `sitemap` or a core child has an attribute the "
            'schema does not declare, for example `<urlset foo="bar">` or `<url id="3">`. The '
            "official XSDs declare no attributes and no `anyAttribute`. Only `xmlns*` declarations "
            "and `xsi:*` attributes pass. Engines ignore such attributes, but XSD validation fails "
            "(`SCHEMAV_CVC_COMPLEX_TYPE_3_2_1`)."
        ),
        source=(
            "https://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd ; "
            "https://www.sitemaps.org/schemas/sitemap/0.9/siteindex.xsd"
        ),
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
        id="core-unknown-element",
        scope="url",
        severity=ERR,
        title="Unknown sitemap element",
        message="<{element}> is not an element of the sitemap protocol{where}",
        explanation=(
            "An element in the sitemaps.org namespace that the protocol does not define (for "
            "example `<expires>`, `<title>`, `<image>` without a prefix), or `<sitemap>` inside "
            "`urlset`. The XSD rejects it, and engines ignore it."
        ),
        source=(
            "https://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd ; "
            "https://www.sitemaps.org/protocol.html §XML tag definitions"
        ),
        decided_by=("parse", "checker", "document.check_tags"),
        word=_misplaced,
    ),
    Rule(
        id="core-element-order",
        scope="url",
        severity=WARN,
        title="<url> or <sitemap> children out of schema order",
        message="<{parent}> children are not in schema order ({expected}): {order}",
        explanation=(
            "The children of `<url>` are not in XSD order: `loc`, `lastmod`, `changefreq`, "
            "`priority`, then extension elements (in an index, those of `<sitemap>`: `loc`, "
            "`lastmod`, then extensions). The schema uses `xsd:sequence`, so validation "
            "fails. The protocol text and the Google docs do not require an order, so this is "
            "a warning, and the schema's own complaint is not reported a second time."
        ),
        source="https://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd",
        decided_by=("document.check_tags", "index.check_child_order"),
    ),
    Rule(
        id="core-element-repeated",
        scope="url",
        severity=ERR,
        title="Element repeated in one <url> or <sitemap>",
        message="<{element}> appears {count} times in one <{parent}>",
        explanation=(
            "`loc`, `lastmod`, `changefreq` or `priority` occurs more than once in one `<url>` "
            "(`loc` or `lastmod` in one `<sitemap>` of an index). The XSD allows each at most "
            "once, and which value an engine uses is undefined."
        ),
        source="https://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd",
        decided_by=("document.check_tags", "index.check_child_order"),
    ),
    Rule(
        id="ext-prefix-undeclared",
        scope="extension",
        severity=ERR,
        title="Extension prefix not declared",
        message="prefix {prefix!r} of <{element}> is not declared (xmlns:{prefix} is missing)",
        explanation=(
            "A prefixed element (`image:`, `video:`, `news:`, `xhtml:`) is used without its "
            "`xmlns:` declaration. This is a namespace error: libxml2 reports "
            "`NS_ERR_UNDEFINED_NAMESPACE` and the element is treated as having no namespace."
        ),
        source="https://www.w3.org/TR/xml-names/#nsc-NSDeclared",
        decided_by=("parse",),
        word=_undeclared,
    ),
    Rule(
        id="ext-namespace-wrong",
        scope="extension",
        severity=ERR,
        title="Wrong extension namespace",
        message="namespace {namespace!r} should be {expected!r}",
        explanation=(
            "An extension namespace URI is not exactly one of these: "
            "`http://www.google.com/schemas/sitemap-image/1.1`, "
            "`http://www.google.com/schemas/sitemap-video/1.1`, "
            "`http://www.google.com/schemas/sitemap-news/0.9`, `http://www.w3.org/1999/xhtml`. "
            "Common mistakes are an `https` variant, a `sitemaps.org/schemas/sitemap-image/1.1` "
            "host, or the old `sitemap-video/1.0`. Google does not recognise the elements."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap ; "
            "https://developers.google.com/search/docs/specialty/international/localized-versions"
        ),
        decided_by=("document.check_foreign_tag",),
    ),
    Rule(
        id="ext-namespace-unknown",
        scope="extension",
        severity=INFO,
        title="Unknown extension namespace",
        message="elements from unknown namespace {namespace!r} (occurrences: {count:,})",
        explanation=(
            "The document has elements from a namespace we do not know (PageMap, vendor "
            "extensions). The protocol lets you extend it with your own namespace. The strict XSD "
            "rejects such elements; the lax wrapper skips them. With `--xsd strict` this rule "
            "still reports them, with its own severity, whatever else is wrong in the file."
        ),
        source="https://www.sitemaps.org/protocol.html §Extending the Sitemaps protocol",
        decided_by=("xsd", "document.check_foreign_tag"),
    ),
    Rule(
        id="mobile-extension-obsolete",
        scope="extension",
        severity=INFO,
        title="Obsolete mobile extension",
        message="obsolete <mobile:mobile> marker (URLs: {count:,})",
        explanation=(
            "`<mobile:mobile/>` (`http://www.google.com/schemas/sitemap-mobile/1.0`) is present. "
            "This marker was for feature-phone pages and is not in current Google documentation. "
            "Google now asks you to list only one version when mobile and desktop URLs differ."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap",
        decided_by=("document.check_tags", "document.check_foreign_tag"),
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


def check_tags(ctx: FileContext,
    st: FileState,
    tags: list[str],
    line: int | None,
    url: str | None,
    out: list[Issue],
) -> None:
    nid = ctx.node_id
    last = -1
    ext_seen = False
    out_of_order = False
    repeated: dict[str, int] | None = None
    seen_core = 0  # bit set of core elements seen
    for tag in tags:
        rank = CORE_ORDER.get(tag)
        if rank is not None:
            bit = 1 << rank
            if seen_core & bit:
                if repeated is None:
                    repeated = {}
                repeated[tag] = repeated.get(tag, 1) + 1
            seen_core |= bit
            if rank < last or ext_seen:
                out_of_order = True
            last = max(last, rank)
            continue
        if tag[:1] == "{":
            ext_seen = True
            check_foreign_tag(ctx, st, tag, line, url, out)
        elif ":" in tag:
            ext_seen = True
            if tag == "mobile:mobile":
                tally(st, "mobile-extension-obsolete", "", line, url)
        else:
            where = " (a <sitemap> belongs in a sitemapindex)" if tag == "sitemap" else ""
            out.append(
                make_issue(
                    "core-unknown-element",
                    node_id=nid,
                    line=line,
                    url=url,
                    element=tag,
                    where=where,
                )
            )
    if repeated:
        for tag, n in repeated.items():
            out.append(
                make_issue(
                    "core-element-repeated",
                    node_id=nid,
                    line=line,
                    url=url,
                    element=tag,
                    count=n,
                    parent="url",
                )
            )
    if out_of_order:
        out.append(
            make_issue(
                "core-element-order",
                node_id=nid,
                line=line,
                url=url,
                parent="url",
                expected=_URL_EXPECTED,
                order=", ".join(tags),
            )
        )

def check_foreign_tag(ctx: FileContext,
    st: FileState,
    tag: str,
    line: int | None,
    url: str | None,
    out: list[Issue],
) -> None:
    ns, _, local = tag[1:].partition("}")
    if not ns:
        # no namespace: an undeclared prefix ("{}xhtml:link"); the parser reports
        # ext-prefix-undeclared once per prefix, hreflang links get their own rule here
        if local == "xhtml:link":
            tally(
                st,
                "hreflang-namespace-missing",
                "",
                line,
                url,
                element=local,
                detail=" (prefix not declared)",
            )
        elif ":" not in local:
            tally(st, "ext-namespace-unknown", "", line, url, namespace="")
        return
    if local == "xhtml:link":
        # written <xhtml:link>, with xmlns:xhtml bound to another URI (the parser keeps the
        # prefix for this case): the hreflang links are lost, one error, not also "unknown"
        tally(
            st,
            "hreflang-namespace-missing",
            ns,
            line,
            url,
            element=local,
            detail=f" (declared as {ns!r})",
        )
        return
    if ns == MOBILE_NS:
        tally(st, "mobile-extension-obsolete", "", line, url)
        return
    if ns in EXTENSION_PREFIXES:
        return  # a known namespace written in Clark form: fine
    expected = expected_namespace(ns)
    if expected == XHTML_NS and local == "link":
        tally(
            st,
            "hreflang-namespace-missing",
            ns,
            line,
            url,
            element="xhtml:link",
            detail=f" (declared as {ns!r})",
        )
    elif expected is not None and expected != SITEMAP_NS:
        tally(st, "ext-namespace-wrong", ns, line, url, namespace=ns, expected=expected)
    else:
        tally(st, "ext-namespace-unknown", ns, line, url, namespace=ns)

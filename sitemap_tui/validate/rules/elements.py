"""Elements and namespaces: the sitemap protocol's elements (unknown, repeated, out of order) and
the namespaces of the root, the entries and the extensions."""

from __future__ import annotations

from sitemap_tui.engine.model import Issue
from sitemap_tui.engine.parse_xml import SITEMAP_NS
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
from sitemap_tui.validate.rules import ERR, INFO, WARN, Fields, Rule, make_issue
from sitemap_tui.validate.rules.document import parser_error


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
    return parser_error(f)


RULES: tuple[Rule, ...] = (
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
        decided_by=("parse", "checker", "elements.check_tags"),
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
        decided_by=("elements.report_order",),
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
        decided_by=("elements.report_order",),
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
        decided_by=("elements.check_foreign_tag",),
    ),
    Rule(
        id="ext-namespace-unknown",
        sample=True,
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
        decided_by=("xsd", "elements.check_foreign_tag"),
    ),
    Rule(
        id="ext-unknown-element",
        scope="extension",
        severity=ERR,
        title="Unknown element in an extension namespace",
        message="<{element}> is not an element the {extension} extension defines; <url> takes <{expected}>",
        explanation=(
            "An element directly in `<url>` whose namespace is a known extension's (image, video, "
            "news, xhtml) but whose name that extension does not define there, for example "
            "`<image:images>` or `<video:vidoe>`: a typo, and what it holds (the images, the "
            "video, the article, the alternates) is lost, since engines read only `image:image`, "
            "`video:video`, `news:news` and `xhtml:link`. The strict XSD rejects it; the lax "
            "wrapper, which skips what it has no declaration for, would let it pass, so this rule "
            "reports it in both modes (not also as xsd-invalid). Not in the shared catalogue: "
            "sitemap-tui's own rule (found from outside: such typos passed the default mode)."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap ; "
            "https://developers.google.com/search/docs/specialty/international/localized-versions"
        ),
        decided_by=("elements.check_tags",),
    ),
    Rule(
        id="mobile-extension-obsolete",
        sample=True,
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
        decided_by=("elements.check_tags", "elements.check_foreign_tag"),
    ),
)


# -- checks (called by the streaming checker, validate/checker.py) --------------------


# <url> child sequences in which check_tags found nothing to report or count: a generator
# writes the same few sequences again and again, so each is judged once (bounded: a file of
# ever-new sequences only stops adding)
_CLEAN_TAGS: set[tuple[str, ...]] = set()
# the one element each known extension defines directly in <url> (ext-unknown-element)
_EXTENSION_TOP = {"image": "image:image", "video": "video:video", "news": "news:news", "xhtml": "xhtml:link",
                  "mobile": "mobile:mobile"}
_EXTENSION_ELEMENTS = frozenset(_EXTENSION_TOP.values())
_CLEAN_TAGS_MAX = 1024


def check_tags(ctx: FileContext,
    st: FileState,
    tags: list[str],
    line: int | None,
    url: str | None,
    out: list[Issue],
    lines: dict[str, list[int]] | None = None,
) -> None:
    """The <url>'s child elements ``tags``: unknown, repeated, out of order; each finding on
    the odd element's own line where ``lines`` (Entry.odd_lines) has it, else the <url>'s."""
    key = tuple(tags)
    if key in _CLEAN_TAGS:
        return
    at = OddLines(lines, line)
    nid = ctx.node_id
    last = -1
    ext_seen = False
    out_of_order = False
    clean = True  # nothing reported nor counted: the same sequence can be skipped next time
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
            clean = False  # its verdict depends on the file's namespaces
            check_foreign_tag(ctx, st, tag, line, url, out)
        elif ":" in tag:  # (a known extension's, by its usual prefix: xml_entries._tag_name)
            ext_seen = True
            if tag == "mobile:mobile":
                clean = False
                tally(st, "mobile-extension-obsolete", "", line, url)
            elif tag not in _EXTENSION_ELEMENTS:
                clean = False
                prefix = tag.partition(":")[0]
                out.append(make_issue("ext-unknown-element", node_id=nid, line=at.next(tag), url=url, element=tag,
                                      extension=prefix, expected=_EXTENSION_TOP[prefix]))
        else:
            clean = False
            where = " (a <sitemap> belongs in a sitemapindex)" if tag == "sitemap" else ""
            out.append(
                make_issue(
                    "core-unknown-element",
                    node_id=nid,
                    line=at.next(tag),
                    url=url,
                    element=tag,
                    where=where,
                )
            )
    if repeated or out_of_order:
        report_order(nid, line, url, "url", _URL_EXPECTED, tags, repeated or {}, out_of_order, out, at)
    elif clean and len(_CLEAN_TAGS) < _CLEAN_TAGS_MAX:
        _CLEAN_TAGS.add(key)


class OddLines:
    """The line of each odd child element in turn, by its name (Entry.odd_lines, or a
    ChildRef's), else the entry's own line."""

    def __init__(self, lines: dict[str, list[int]] | None, line: int | None) -> None:
        self._lines = lines
        self._line = line
        self._used: dict[str, int] = {}

    def next(self, tag: str) -> int | None:
        """The line of ``tag``'s next odd occurrence (its second, for a repeated core one)."""
        found = self._lines.get(tag) if self._lines else None
        if not found:
            return self._line
        i = self._used.get(tag, 0)
        self._used[tag] = i + 1
        return found[min(i, len(found) - 1)]


def report_order(nid: int | None, line: int | None, url: str | None, parent: str, expected: str,
                 tags: list[str], counts: dict[str, int], out_of_order: bool, out: list[Issue],
                 at: OddLines | None = None) -> None:
    """core-element-repeated for each tag counted more than once (on its second's line, where
    ``at`` has it), and core-element-order, for a <url> or an index's <sitemap> alike (each
    scans its tags its own way)."""
    for tag, n in counts.items():
        if n > 1:
            out.append(make_issue("core-element-repeated", node_id=nid, line=at.next(tag) if at else line,
                                  url=url, element=tag, count=n, parent=parent))
    if out_of_order:
        out.append(make_issue("core-element-order", node_id=nid, line=line, url=url, parent=parent,
                              expected=expected, order=", ".join(tags)))


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

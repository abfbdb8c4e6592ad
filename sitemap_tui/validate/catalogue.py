"""The rule catalogue as data: one :class:`Rule` per rule.

Generated once from ``shared/validation-rules.md`` (ids, scopes, severities, conditions and
sources), then edited by hand (titles, message templates). Edit here; there is no generator to
re-run. ``rules.py`` builds ``RULES`` from ``CATALOGUE``.
"""

from __future__ import annotations

from sitemap_tui.engine.model import Severity
from sitemap_tui.validate.rule import Rule

ERR = Severity.ERROR
WARN = Severity.WARNING
INFO = Severity.INFO

CATALOGUE: tuple[Rule, ...] = (
    Rule(
        id="fetch-http-error",
        scope="file",
        severity=ERR,
        title="Sitemap could not be fetched",
        message="could not fetch the sitemap: {reason}",
        explanation=(
            "Fetching the sitemap URL does not end in HTTP 200 with a body (4xx, 5xx, DNS failure, "
            'connection reset, timeout). Google reports "Couldn\'t fetch" or an HTTP error and does '
            "not process the file."
        ),
        source="https://support.google.com/webmasters/answer/7451001",
    ),
    Rule(
        id="fetch-redirected",
        scope="file",
        severity=WARN,
        title="Sitemap URL redirects",
        message="the sitemap URL redirects to {final_url}",
        explanation=(
            "The sitemap URL answers with a 3xx redirect; the final URL is shown. The location "
            "rules (location-*) are evaluated against the final URL, and their messages say what "
            "the result would be against the requested URL. This is a heuristic."
        ),
        source="https://www.sitemaps.org/protocol.html §Sitemap file location",
    ),
    Rule(
        id="fetch-private-address",
        scope="file",
        severity=WARN,
        title="URL leads to a private or local address",
        message="{reason}",
        explanation=(
            "A URL the site gave (a robots.txt Sitemap: line, an index <loc>, a redirect, a page "
            "checked by --deep) connects to a loopback, private, link-local (169.254.169.254, "
            "the cloud metadata service), multicast, unspecified or reserved address, checked "
            "after DNS resolution on the address about to be dialled. It was not fetched: a "
            "public site must not be able to make the tool reach the network it runs in "
            "(server-side request forgery), and search engines cannot fetch such addresses "
            "either. The target's own kind of address stays reachable (a target on 127.0.0.1 "
            "allows loopback), and --allow-private lifts the check. This is sitemap-tui policy."
        ),
        source=(
            "https://www.rfc-editor.org/rfc/rfc6890 ; "
            "https://cheatsheetseries.owasp.org/cheatsheets/"
            "Server_Side_Request_Forgery_Prevention_Cheat_Sheet.html"
        ),
    ),
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
    ),
    Rule(
        id="gzip-corrupt",
        scope="file",
        severity=ERR,
        title="Corrupt or truncated gzip",
        message="gzip decompression failed: {reason}",
        explanation=(
            "The body starts with the gzip magic bytes `1F 8B`, or the file name ends in `.gz`, "
            'but gzip decompression fails or is truncated. Google calls this a "Compression '
            'error".'
        ),
        source=(
            "https://support.google.com/webmasters/answer/7451001 ; "
            "https://www.sitemaps.org/protocol.html §Sitemap index"
        ),
    ),
    Rule(
        id="compression-not-gzip",
        scope="file",
        severity=ERR,
        title="Compressed with something other than gzip",
        message="the body is compressed with {format}; only gzip is allowed",
        explanation=(
            "The file is compressed with something other than gzip: zip (`PK\\x03\\x04`), bzip2, xz, "
            "or brotli sent without a matching transfer decoding. The protocol allows gzip only."
        ),
        source=(
            'https://www.sitemaps.org/faq.html ("Can I zip my Sitemaps or do they have to be '
            'gzipped?")'
        ),
    ),
    Rule(
        id="content-encoding-mismatch",
        scope="file",
        severity=ERR,
        title="Content-Encoding does not match the body",
        message="Content-Encoding: gzip, but the body is not gzip-compressed: {detail}",
        explanation=(
            "The response says `Content-Encoding: gzip`, but the body is plain XML or text (its "
            "first bytes, after whitespace and a BOM, are `<` or `http`), typically a server that "
            "adds the header to a file it did not compress. Clients that follow the header (and "
            "so, presumably, search engines) fail to decode it, like a corrupt gzip. sitemap-tui "
            "reads the body as it is, reports this instead of gzip-corrupt, and checks the rest. "
            "Not in the shared catalogue: sitemap-tui's own rule for a header that lies."
        ),
        source=(
            "https://www.rfc-editor.org/rfc/rfc9110#section-8.4 ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
    ),
    Rule(
        id="size-over-limit",
        scope="file",
        severity=ERR,
        title="Larger than 50 MiB after decompression",
        message="more than 52,428,800 bytes (50 MiB) after decompression",
        explanation=(
            "The size after decompression is over 52,428,800 bytes (50 MiB). This applies to "
            "sitemaps, sitemap index files and text sitemaps, and counts the bytes after gunzip, "
            "not the compressed size."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §Sitemap index ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap"
        ),
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
    ),
    Rule(
        id="size-near-limit",
        scope="file",
        severity=WARN,
        title="Close to the 50 MiB size limit",
        message="{size:,} bytes after decompression is over 90% of the 50 MiB limit",
        explanation=(
            "Size after decompression is above 90 % of the limit (> 47,185,920 bytes) but not over "
            "it: the next growth of the site breaks the file. The threshold is a heuristic."
        ),
        source="https://www.sitemaps.org/protocol.html §Sitemap index",
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
    ),
    Rule(
        id="loc-missing",
        scope="url",
        severity=ERR,
        title="<url> without <loc>",
        message="<url> has no <loc>",
        explanation='A `<url>` has no `<loc>`. Google calls this "Missing XML tag".',
        source=(
            "https://www.sitemaps.org/protocol.html §XML tag definitions ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
    ),
    Rule(
        id="loc-empty",
        scope="url",
        severity=ERR,
        title="Empty <loc>",
        message="<loc> is empty",
        explanation="`<loc>` is empty or only whitespace.",
        source="https://www.sitemaps.org/protocol.html §XML tag definitions",
    ),
    Rule(
        id="loc-not-absolute",
        scope="url",
        severity=ERR,
        title="URL is not absolute",
        message="{value!r} is not an absolute URL (it must start with http:// or https://)",
        explanation=(
            "After the entities are decoded, `<loc>` is relative (`/page`), protocol-relative "
            "(`//host/page`) or has no scheme (`www.example.com/page`). It must start with the "
            "protocol. Note that the XSD only checks a minimum length of 12 characters, so most "
            "relative URLs pass it."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §XML tag definitions ; "
            'https://www.sitemaps.org/faq.html ("Do URLs in the Sitemap need to be completely '
            'specified?") ; '
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap"
        ),
    ),
    Rule(
        id="loc-bad-scheme",
        scope="url",
        severity=ERR,
        title="URL scheme is not http(s)",
        message="scheme {scheme!r} is not http or https",
        explanation=(
            "The scheme is not `http` or `https` (`ftp:`, `javascript:`, `mailto:`, `file:`, …). "
            "URLs in a sitemap must use the same protocol as the sitemap itself."
        ),
        source="https://www.sitemaps.org/protocol.html §Sitemap file location",
    ),
    Rule(
        id="loc-too-long",
        scope="url",
        severity=ERR,
        title="URL of 2,048 characters or more",
        message="the URL is {length:,} characters long; it must be under 2,048",
        explanation=(
            '`<loc>` is 2,048 characters or longer; the protocol says it must be "less than 2,048 '
            'characters". The XSD `maxLength` is 2048, so exactly 2,048 passes the XSD but breaks '
            "the protocol text; that case is reported too."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §XML tag definitions ; "
            "https://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd"
        ),
    ),
    Rule(
        id="loc-invalid-uri",
        scope="url",
        severity=ERR,
        title="Invalid URL",
        message="invalid URL: {reason}",
        explanation=(
            "After the entities are decoded, `<loc>` is not a valid URI (RFC 3986) or IRI (RFC "
            '3987). Examples: a raw space or tab, `<>"{}|\\\\^` and backticks, an invalid host, an '
            "empty host, a bad port. `xs:anyURI` in libxml2 accepts almost anything, so this needs "
            'its own check. Google calls this "Invalid URL".'
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §Entity escaping ; "
            "https://www.rfc-editor.org/rfc/rfc3986 ; https://www.rfc-editor.org/rfc/rfc3987 ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
    ),
    Rule(
        id="loc-bad-percent-encoding",
        scope="url",
        severity=ERR,
        title="Bad percent-encoding",
        message="'%' not followed by two hex digits: {snippet!r}",
        explanation="A `%` is not followed by two hex digits.",
        source="https://www.rfc-editor.org/rfc/rfc3986#section-2.1",
    ),
    Rule(
        id="loc-not-url-escaped",
        scope="url",
        severity=WARN,
        title="Non-ASCII characters not escaped",
        message="unescaped non-ASCII characters in the {part}",
        explanation=(
            "The path or query has unescaped non-ASCII characters (IRI form, for example "
            '`/ümlat.html`). The protocol says URLs "must be URL-escaped and encoded for '
            'readability by the web server", and its example shows percent-encoded UTF-8 bytes. An '
            "IDN host should be punycode (`xn--`)."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §Entity escaping ; "
            "https://www.sitemaps.org/faq.html"
        ),
    ),
    Rule(
        id="loc-whitespace",
        scope="url",
        severity=WARN,
        title="Whitespace around or inside <loc>",
        message="<loc> has leading or trailing whitespace",
        explanation=(
            "`<loc>` text has leading or trailing whitespace or embedded line breaks. The XSD "
            'collapses whitespace and passes it, but the protocol says URLs "cannot contain '
            'embedded new lines".'
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §Other Sitemap formats (text) ; "
            "https://www.rfc-editor.org/rfc/rfc3986#appendix-C"
        ),
    ),
    Rule(
        id="loc-has-fragment",
        scope="url",
        severity=WARN,
        title="URL has a #fragment",
        message="the URL has a fragment ({fragment!r}); engines ignore it",
        explanation=(
            "`<loc>` contains `#fragment`. Fragments are never sent to the server and Google "
            "generally ignores them, so the entry duplicates the URL without the fragment."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/url-structure",
    ),
    Rule(
        id="loc-session-id",
        scope="url",
        severity=WARN,
        title="Session id in the URL",
        message="the URL contains a session id ({match!r})",
        explanation=(
            "The path or query has a session identifier: `;jsessionid=`, `PHPSESSID=`, `sid=`, "
            "`sessionid=`, `ASPSESSIONID…`, `zenid=`, `osCsid=` (case-insensitive; the list is "
            "(heuristic)). The sitemaps.org FAQ says to remove session IDs."
        ),
        source='https://www.sitemaps.org/faq.html ("URLs on my site have session IDs in them…")',
    ),
    Rule(
        id="loc-tracking-params",
        scope="url",
        severity=INFO,
        title="Tracking parameter in the URL",
        message="the URL has tracking parameter {param!r}",
        explanation=(
            "The query has tracking parameters (`utm_*`, `gclid`, `fbclid`, `msclkid`, `mc_cid`). "
            "These are almost always non-canonical duplicates. This is a heuristic."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls",
    ),
    Rule(
        id="loc-userinfo",
        scope="url",
        severity=WARN,
        title="Credentials in the URL",
        message="the URL carries user info ({userinfo!r}) before the host",
        explanation=(
            "The URL carries credentials (`user:pass@host`). Crawlers cannot use them, and RFC "
            "3986 deprecates passwords in URLs."
        ),
        source="https://www.rfc-editor.org/rfc/rfc3986#section-3.2.1",
    ),
    Rule(
        id="loc-private-host",
        scope="url",
        severity=WARN,
        title="Private, local or staging host",
        message="{count} URL(s) on host {host!r}, which looks {reason}",
        explanation=(
            "The host is `localhost`, a loopback/private/link-local IP address, `*.local`, or a "
            "name that looks like staging (`staging.`, `dev.`, `test.`). This usually means a "
            "leaked staging sitemap. This is a heuristic."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap "
            '("include the URLs that you want to see in Google\'s search results")'
        ),
    ),
    Rule(
        id="loc-not-normalized",
        scope="url",
        severity=INFO,
        title="URL not in normal form",
        message="the URL is not in RFC 3986 normal form: {reason}",
        explanation=(
            "The URL differs from its RFC 3986 normal form: upper-case scheme or host, an "
            "explicit default port (`:80` for http, `:443` for https), dot-segments, lower-case "
            "percent-escapes, or an empty path instead of `/`. Duplicates are compared after "
            "normalising."
        ),
        source="https://www.rfc-editor.org/rfc/rfc3986#section-6",
    ),
    Rule(
        id="location-different-host",
        scope="url",
        severity=ERR,
        title="URL on another host than the sitemap",
        message=(
            "{count} URL(s) on host {host!r}, not the sitemap's host {sitemap_host!r}; no robots.txt "
            "cross-submission found (hosts verified together in Search Console cannot be "
            "checked){note}"
        ),
        explanation=(
            "The `<loc>` host (exact, so subdomains count as different) differs from the host of "
            "the sitemap URL, and no cross-submission applies: the robots.txt of the `<loc>` host "
            "has no `Sitemap:` line naming this sitemap (see robots-cross-submit-ok). Google also "
            "accepts hosts verified together in Search Console, which sitemap-tui cannot check."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §Sitemap file location, §Sitemaps & Cross "
            "Submits ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap"
        ),
    ),
    Rule(
        id="location-different-scheme",
        scope="url",
        severity=ERR,
        title="URL scheme differs from the sitemap's",
        message="{count} URL(s) use scheme {scheme!r}, not the sitemap's {sitemap_scheme!r}{note}",
        explanation=(
            "The `<loc>` scheme differs from the sitemap's scheme (for example an `https` URL in a "
            "sitemap fetched over `http`). The protocol says all URLs must use the same protocol "
            "as the sitemap and lists `https://…` inside an `http://` sitemap as not valid."
        ),
        source="https://www.sitemaps.org/protocol.html §Sitemap file location",
    ),
    Rule(
        id="location-outside-path",
        scope="url",
        severity=ERR,
        title="URL outside the sitemap's directory",
        message="{count} URL(s) are not under the sitemap's directory {directory!r}{note}",
        explanation=(
            "The `<loc>` path is not at or below the sitemap's directory. For example, a sitemap "
            "at `/catalog/sitemap.xml` may only list `/catalog/…`. URLs are exempt when the "
            "sitemap is named in that host's robots.txt (cross-submit; reported as "
            "robots-cross-submit-ok). Google drops this limit for sitemaps submitted in Search "
            "Console."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §Sitemap file location ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap"
        ),
    ),
    Rule(
        id="location-port-mismatch",
        scope="url",
        severity=ERR,
        title="URL port differs from the sitemap's",
        message="{count} URL(s) use port {port}, not the sitemap's port {sitemap_port}{note}",
        explanation=(
            "The sitemap URL has a port (for example `:8080`) but the `<loc>` does not carry the "
            "same port, or the other way round. Default ports (80, 443) count as no port."
        ),
        source="https://www.sitemaps.org/protocol.html §Sitemap file location",
    ),
    Rule(
        id="lastmod-invalid-format",
        scope="url",
        severity=ERR,
        title="lastmod is not W3C Datetime",
        message="lastmod {value!r} is not a W3C Datetime",
        explanation=(
            "`<lastmod>` is not W3C Datetime. Allowed forms: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, "
            "`YYYY-MM-DDThh:mmTZD`, `YYYY-MM-DDThh:mm:ssTZD`, `YYYY-MM-DDThh:mm:ss.sTZD`, where "
            "TZD is `Z`, `+hh:mm` or `-hh:mm`. The calendar value must also be real (no month 13, "
            "no 30 February). Examples of failures: `2024-05-01 10:00:00`, `01/05/2024`, RFC 822 "
            'dates, or a missing TZD when a time is given. Google: "Invalid date".'
        ),
        source=(
            "https://www.w3.org/TR/NOTE-datetime ; https://www.sitemaps.org/protocol.html §XML tag "
            "definitions ; https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping"
        ),
    ),
    Rule(
        id="lastmod-w3c-but-xsd-invalid",
        scope="url",
        severity=WARN,
        title="lastmod rejected by the official XSD",
        message=(
            "lastmod {value!r} is W3C Datetime but the official XSD rejects it; a full date or a "
            "date-time with seconds is safer"
        ),
        explanation=(
            "The value is valid W3C Datetime, but `sitemap.xsd` (`xsd:date` or `xsd:dateTime`) "
            "rejects it. This happens with `YYYY`, `YYYY-MM`, and `YYYY-MM-DDThh:mmTZD` (no "
            "seconds). Validators that use the official XSD will flag it; a full date (or a "
            "date-time with seconds) is safer. Verified with lxml and libxml2 2.14."
        ),
        source=(
            "https://www.w3.org/TR/NOTE-datetime ; "
            "https://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd"
        ),
    ),
    Rule(
        id="lastmod-xsd-valid-but-not-w3c",
        scope="url",
        severity=WARN,
        title="lastmod passes the XSD but is not W3C Datetime",
        message="lastmod {value!r} passes the XSD but is not W3C Datetime: {reason}",
        explanation=(
            "The value passes the XSD but is not W3C Datetime. Cases: a date-time with no time "
            "zone (`2024-05-01T10:00:00`), a date with a time zone (`2024-05-01Z`, "
            "`2024-05-01+02:00`), or years outside 0000–9999. Without a time zone the value is "
            "ambiguous."
        ),
        source=(
            "https://www.w3.org/TR/NOTE-datetime ; "
            "https://blogs.bing.com/webmaster/July-2025/Keeping-Content-Discoverable-with-Sitemaps-in-AI-Powered-Search"
        ),
    ),
    Rule(
        id="lastmod-future",
        scope="url",
        severity=WARN,
        title="lastmod in the future",
        message="lastmod {value!r} is in the future",
        explanation=(
            "`<lastmod>` is later than the fetch time plus 24 h (the margin covers time zones). "
            "The value has to match reality, and engines stop trusting lastmod from sites that "
            "overstate it."
        ),
        source=(
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping ; "
            "https://www.sitemaps.org/protocol.html §XML tag definitions"
        ),
    ),
    Rule(
        id="lastmod-implausibly-old",
        scope="url",
        severity=WARN,
        title="Implausibly old lastmod",
        message="lastmod {value!r} is before the web existed (1991-08-06); probably an unset value",
        explanation=(
            "`<lastmod>` is before 1991-08-06 (the first public web page), or is a sentinel such "
            "as `1970-01-01`, `1900-01-01`, `0001-01-01` or `1000-01-01`. This is usually an unset "
            "value in a database or a timestamp epoch. (heuristic): the threshold date is our "
            "choice."
        ),
        source=(
            'https://www.sitemaps.org/protocol.html §XML tag definitions ("the date the linked '
            'page was last modified") ; '
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping"
        ),
    ),
    Rule(
        id="lastmod-missing",
        scope="url",
        severity=INFO,
        title="No lastmod",
        message="URLs without <lastmod>: {count:,} of {total:,}",
        explanation=(
            "There is no `<lastmod>`. This is allowed: Google says it is fine to leave it out "
            "where it is not known. But Google and Bing use an accurate lastmod to schedule "
            "recrawls."
        ),
        source=(
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping ; "
            "https://blogs.bing.com/webmaster/July-2025/Keeping-Content-Discoverable-with-Sitemaps-in-AI-Powered-Search"
        ),
    ),
    Rule(
        id="changefreq-invalid",
        scope="url",
        severity=ERR,
        title="Invalid changefreq",
        message=(
            "changefreq {value!r} is not one of always, hourly, daily, weekly, monthly, yearly, "
            "never"
        ),
        explanation=(
            "`<changefreq>` is not one of `always`, `hourly`, `daily`, `weekly`, `monthly`, "
            "`yearly`, `never`. The check is case-sensitive: `Daily` fails the XSD enumeration."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §XML tag definitions ; "
            "https://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd"
        ),
    ),
    Rule(
        id="changefreq-ignored",
        scope="url",
        severity=INFO,
        title="changefreq is ignored by Google and Bing",
        message="URLs with <changefreq>, which Google and Bing ignore: {count:,} of {total:,}",
        explanation="`<changefreq>` is present. Google and Bing both say they ignore it.",
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap ; "
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping ; "
            "https://blogs.bing.com/webmaster/July-2025/Keeping-Content-Discoverable-with-Sitemaps-in-AI-Powered-Search"
        ),
    ),
    Rule(
        id="priority-invalid",
        scope="url",
        severity=ERR,
        title="Invalid priority",
        message="priority {value!r} is not a number from 0.0 to 1.0",
        explanation=(
            "`<priority>` is not a decimal from 0.0 to 1.0 inclusive. Failing examples: `1.5`, "
            "`-0.1`, `high`, `0,5`, empty."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §XML tag definitions ; "
            "https://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd"
        ),
    ),
    Rule(
        id="priority-ignored",
        scope="url",
        severity=INFO,
        title="priority is ignored by Google and Bing",
        message="URLs with <priority>, which Google and Bing ignore: {count:,} of {total:,}",
        explanation="`<priority>` is present. Google and Bing ignore it.",
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap ; "
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping ; "
            "https://blogs.bing.com/webmaster/July-2025/Keeping-Content-Discoverable-with-Sitemaps-in-AI-Powered-Search"
        ),
    ),
    Rule(
        id="duplicate-url-in-file",
        scope="file",
        severity=WARN,
        title="URL listed twice in one sitemap",
        message="the URL is listed again (first at line {first_line})",
        explanation=(
            "The same normalised `<loc>` appears more than once in one sitemap. The FAQ says to "
            "list one version of each URL."
        ),
        source=(
            "https://www.sitemaps.org/faq.html ; "
            "https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls"
        ),
    ),
    Rule(
        id="text-line-not-url",
        scope="file",
        severity=ERR,
        title="Text sitemap line is not a URL",
        message="not an absolute http(s) URL: {value}",
        explanation=(
            "In a text sitemap, a non-empty line is not exactly one absolute URL. Examples: HTML, "
            "comments, header or footer text, two URLs on one line, or internal whitespace. The "
            "file should hold nothing but URLs, one per line."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html#otherformats ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap"
        ),
    ),
    Rule(
        id="text-blank-lines",
        scope="file",
        severity=INFO,
        title="Blank lines in a text sitemap",
        message="{count} blank line(s) in the text sitemap",
        explanation=(
            "A text sitemap has blank lines or a trailing newline. This is probably harmless, but "
            "the protocol asks for URLs only."
        ),
        source="https://www.sitemaps.org/protocol.html#otherformats",
    ),
    Rule(
        id="feed-item-no-link",
        scope="file",
        severity=ERR,
        title="Feed item without a link",
        message="the feed item has no link, so its URL is lost",
        explanation=(
            "In a feed used as a sitemap, an RSS 2.0 `<item>` has no `<link>`, or an Atom "
            "`<entry>` has no `<link href>`. The protocol reads the URL from that field, so the "
            "entry is lost."
        ),
        source="https://www.sitemaps.org/protocol.html#otherformats",
    ),
    Rule(
        id="feed-item-no-date",
        scope="file",
        severity=INFO,
        title="Feed items without a date",
        message="feed items without a date: {count:,} of {total:,}",
        explanation=(
            "A feed item has no modification date: RSS 2.0 `<pubDate>`, Atom 1.0 `<updated>` or "
            "Atom 0.3 `<modified>`. The date is optional."
        ),
        source="https://www.sitemaps.org/protocol.html#otherformats",
    ),
    Rule(
        id="feed-date-invalid",
        scope="file",
        severity=WARN,
        title="Invalid feed date",
        message="feed date {value!r} is not {expected}",
        explanation=(
            "An RSS `<pubDate>` is not an RFC 822 date, or an Atom `<updated>`/`<modified>` is not "
            "an RFC 3339 date-time."
        ),
        source=(
            "https://www.rssboard.org/rss-specification ; "
            "https://www.rfc-editor.org/rfc/rfc4287#section-3.3"
        ),
    ),
    Rule(
        id="feed-partial-coverage",
        scope="file",
        severity=INFO,
        title="Feed used as a sitemap",
        message="this sitemap is an {format} feed; feeds usually list only recent URLs",
        explanation=(
            "The sitemap is a feed. Feeds usually list only recent URLs, so they do not give "
            "engines the whole site."
        ),
        source="https://www.sitemaps.org/protocol.html#otherformats",
    ),
    Rule(
        id="feed-atom03",
        scope="file",
        severity=WARN,
        title="Atom 0.3 feed",
        message="Atom 0.3 feed; Google documents only RSS, mRSS and Atom 1.0",
        explanation=(
            "An Atom 0.3 feed (namespace `http://purl.org/atom/ns#`). sitemaps.org and Bing accept "
            "it, but Google's documentation lists RSS, mRSS and Atom 1.0 only."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html#otherformats ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap ; "
            "https://www.bing.com/webmasters/help/sitemaps-3b5cf6ed"
        ),
    ),
    Rule(
        id="index-sitemap-loc-missing",
        scope="index",
        severity=ERR,
        title="<sitemap> without <loc>",
        message="<sitemap> has no <loc>, or it is empty",
        explanation="A `<sitemap>` has no `<loc>`, or its `<loc>` is empty.",
        source=(
            "https://www.sitemaps.org/protocol.html#index ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/large-sitemaps"
        ),
    ),
    Rule(
        id="index-loc-invalid",
        scope="index",
        severity=ERR,
        title="Invalid child sitemap URL",
        message="child sitemap URL {value!r} is invalid: {reason}",
        explanation=(
            "A `<sitemap><loc>` is not an absolute http(s) URL: relative, invalid, or 2,048+ "
            'characters. Google calls this "Invalid URL in sitemap index file: incomplete URL".'
        ),
        source=(
            "https://www.sitemaps.org/protocol.html#index ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
    ),
    Rule(
        id="index-too-many-sitemaps",
        scope="index",
        severity=ERR,
        title="More than 50,000 child sitemaps",
        message="more than 50,000 <sitemap> entries in one index",
        explanation="More than 50,000 `<sitemap>` entries.",
        source=(
            "https://www.sitemaps.org/protocol.html#index ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/large-sitemaps"
        ),
    ),
    Rule(
        id="index-empty",
        scope="index",
        severity=WARN,
        title="Empty sitemap index",
        message="the sitemap index has no <sitemap> entries",
        explanation="A `sitemapindex` with no `<sitemap>`. The XSD requires at least one.",
        source="https://www.sitemaps.org/schemas/sitemap/0.9/siteindex.xsd",
    ),
    Rule(
        id="index-wrong-children",
        scope="index",
        severity=ERR,
        title="Element not allowed in a sitemap index",
        message="<{element}> is not allowed {where}",
        explanation=(
            "`<url>` appears in a `sitemapindex`, or a `<sitemap>` holds sitemaps.org elements "
            "other than `loc` and `lastmod` (for example `changefreq` or `priority`). The XSD "
            "rejects these."
        ),
        source=(
            "https://www.sitemaps.org/schemas/sitemap/0.9/siteindex.xsd ; "
            "https://www.sitemaps.org/protocol.html#index"
        ),
    ),
    Rule(
        id="index-nested",
        scope="index",
        severity=ERR,
        title="Sitemap index inside a sitemap index",
        message=(
            "this file is a sitemap index, listed by the index {parent_url}: Google does not "
            "process nested indexes (sitemap-tui followed the link and read it)"
        ),
        explanation=(
            "A child listed in a `sitemapindex` is itself a `sitemapindex`. The protocol defines "
            "an index `<loc>` as pointing to a Sitemap, RSS/Atom feed or text file. Google reports "
            '"Incorrect sitemap index format: Nested sitemap indexes" and does not process it.'
        ),
        source=(
            "https://www.sitemaps.org/protocol.html#index ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
    ),
    Rule(
        id="index-child-different-host",
        scope="index",
        severity=ERR,
        title="Child sitemap on another host",
        message="the child sitemap is on {host!r}, the index on {index_host!r}{note}",
        explanation=(
            "A child sitemap is on a different host (or scheme) from the index, and there is no "
            "cross-site submission. An index may only list sitemaps on the same site."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html#index ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/large-sitemaps"
        ),
    ),
    Rule(
        id="index-child-outside-path",
        scope="index",
        severity=ERR,
        title="Child sitemap outside the index's directory",
        message="the child sitemap is not under the index's directory {directory!r}",
        explanation=(
            "A child sitemap is not in the index's directory or below it. For example, an index at "
            "`/public/sitemap_index.xml` may only list `/public/…`."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/large-sitemaps",
    ),
    Rule(
        id="index-child-unfetchable",
        scope="index",
        severity=ERR,
        title="Child sitemap cannot be fetched or parsed",
        message="child sitemap {url} cannot be used: {reason}",
        explanation=(
            "A listed child cannot be fetched or parsed (the fetch-*, gzip-* and xml-* rules say "
            "why on the child itself). It is reported on the index line that lists the child, so "
            "you can navigate there."
        ),
        source="https://support.google.com/webmasters/answer/7451001",
    ),
    Rule(
        id="index-child-duplicate",
        scope="index",
        severity=WARN,
        title="Child sitemap listed twice",
        message="the child sitemap is listed again (first at line {first_line})",
        explanation="The same child URL is listed twice in one index. This is a heuristic.",
        source="https://www.sitemaps.org/protocol.html#index",
    ),
    Rule(
        id="index-lastmod-invalid",
        scope="index",
        severity=ERR,
        title="Invalid child sitemap lastmod",
        message="<sitemap> lastmod {value!r} is not a W3C Datetime",
        explanation="A `<sitemap><lastmod>` fails the same checks as lastmod-invalid-format.",
        source="https://www.sitemaps.org/protocol.html#index",
    ),
    Rule(
        id="index-lastmod-stale",
        scope="index",
        severity=WARN,
        title="Stale child sitemap lastmod",
        message="the index's lastmod {value!r} for {url} is older than {reason}",
        explanation=(
            "The index's `<lastmod>` for a child is older than the newest `<lastmod>` inside that "
            "child, or older than the child's HTTP `Last-Modified`. The value should give the time "
            "that sitemap file changed, and engines use it to decide whether to fetch the child "
            "again."
        ),
        source="https://www.sitemaps.org/protocol.html#index",
    ),
    Rule(
        id="index-lastmod-missing",
        scope="index",
        severity=INFO,
        title="<sitemap> without lastmod",
        message="<sitemap> entries without <lastmod>: {count:,} of {total:,}",
        explanation=(
            "A `<sitemap>` entry has no `<lastmod>`. It is optional, but Google says it helps it "
            "schedule sitemap fetches."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/large-sitemaps",
    ),
    Rule(
        id="index-extension-elements",
        scope="index",
        severity=INFO,
        title="Extension element in a sitemap index",
        message="extension element <{element}> in a sitemap index means nothing there",
        explanation=(
            "Extension elements (image, video, news, xhtml) appear inside a `sitemapindex`. The "
            "current `siteindex.xsd` wildcard lets them through, but they mean nothing there."
        ),
        source="https://www.sitemaps.org/schemas/sitemap/0.9/siteindex.xsd",
    ),
    Rule(
        id="index-child-is-feed-or-text",
        scope="index",
        severity=INFO,
        title="Child sitemap is a feed or text file",
        message="child sitemap {url} is {format}",
        explanation=(
            "A child is an RSS/Atom feed or a text sitemap. This is allowed; the feed-* or text-* "
            "rules apply to it."
        ),
        source="https://www.sitemaps.org/protocol.html#index",
    ),
    Rule(
        id="index-gsc-limit",
        scope="cross-file",
        severity=INFO,
        title="More than 500 sitemap index files",
        message="{count:,} sitemap index files for one site; Search Console accepts at most 500",
        explanation=(
            "More than 500 sitemap index files for one site. Search Console accepts at most 500 "
            "index submissions per site."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/large-sitemaps",
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
    ),
    Rule(
        id="image-loc-missing",
        scope="extension",
        severity=ERR,
        title="<image:image> without <image:loc>",
        message="<image:image> has no <image:loc>, or it is empty",
        explanation=(
            "An `<image:image>` has no `<image:loc>`, or it is empty. `image:image` and "
            "`image:loc` are the only required image tags."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps",
    ),
    Rule(
        id="image-too-many",
        scope="extension",
        severity=ERR,
        title="More than 1,000 images in one <url>",
        message="{count:,} <image:image> elements in one <url> (limit 1,000)",
        explanation="More than 1,000 `<image:image>` elements in one `<url>`.",
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps",
    ),
    Rule(
        id="image-loc-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid image URL",
        message="image URL {value!r} is invalid: {reason}",
        explanation=(
            "`<image:loc>` is not an absolute http(s) URL: the same checks as loc-invalid-uri and "
            "loc-not-absolute, applied to the image URL."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps",
    ),
    Rule(
        id="image-loc-other-host",
        scope="extension",
        severity=INFO,
        title="Images on another host",
        message="images on host {host!r}, pages on {page_host!r} (images: {count:,}); both hosts must be verified in Search Console",
        explanation=(
            "`<image:loc>` is on a different host from the page, for example a CDN. Google allows "
            "this provided both hosts are verified in Search Console. The location-* rules do not "
            "apply to image URLs."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps",
    ),
    Rule(
        id="image-deprecated-tags",
        scope="extension",
        severity=WARN,
        title="Deprecated image tag",
        message="deprecated <image:{tag}>, without effect since August 2022 (occurrences: {count:,})",
        explanation=(
            "One of `image:caption`, `image:title`, `image:geo_location`, `image:license` is "
            "present. Google deprecated them in May 2022, and since 6 Aug 2022 they have no "
            'effect. Google says you can leave them "without drawbacks", and Search Console may '
            "warn in future."
        ),
        source="https://developers.google.com/search/blog/2022/05/spring-cleaning-sitemap-extensions",
    ),
    Rule(
        id="image-element-order",
        scope="extension",
        severity=WARN,
        title="<image:image> children out of schema order",
        message=(
            "<image:image> children are not in schema order (loc, caption, geo_location, title, "
            "license): {order}"
        ),
        explanation=(
            "The children of `<image:image>` are not in XSD order (`loc`, `caption`, "
            "`geo_location`, `title`, `license`). Only the schema requires this order."
        ),
        source="https://www.google.com/schemas/sitemap-image/1.1/sitemap-image.xsd",
    ),
    Rule(
        id="video-required-missing",
        scope="extension",
        severity=ERR,
        title="Required video tag missing",
        message="<video:video> is missing {missing}",
        explanation=(
            "A `<video:video>` is missing `video:thumbnail_loc`, `video:title` or "
            '`video:description`. Google: "Missing video title", "Missing thumbnail URL".'
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
    ),
    Rule(
        id="video-no-media-url",
        scope="extension",
        severity=ERR,
        title="Video without content_loc or player_loc",
        message="<video:video> has neither <video:content_loc> nor <video:player_loc>",
        explanation=(
            "A `<video:video>` has neither `video:content_loc` nor `video:player_loc`. At least "
            "one is required."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
    ),
    Rule(
        id="video-url-equals-page",
        scope="extension",
        severity=ERR,
        title="Video URL is the page URL",
        message="<video:{element}> is the same URL as the page",
        explanation=(
            "`video:content_loc` or `video:player_loc` equals the `<loc>` of the page. Google: "
            '"Video location and play page location are the same".'
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
    ),
    Rule(
        id="video-content-not-media",
        scope="extension",
        severity=WARN,
        title="Video content_loc is not a media file",
        message="content_loc {url} returns {content_type}, not a video file",
        explanation=(
            "Deep check: `video:content_loc` returns HTML or Flash instead of a video file. Google "
            'says HTML and Flash are not supported formats. Google: "Video location URL appears to '
            'be a play page URL".'
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
        deep=True,
    ),
    Rule(
        id="video-description-too-long",
        scope="extension",
        severity=ERR,
        title="Video description too long",
        message="the video description is {length:,} characters long (limit 2,048)",
        explanation="`video:description` is longer than 2,048 characters.",
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://www.google.com/schemas/sitemap-video/1.1/sitemap-video.xsd"
        ),
    ),
    Rule(
        id="video-title-too-long",
        scope="extension",
        severity=WARN,
        title="Video title too long",
        message="the video title is {length:,} characters long (schema limit 100)",
        explanation=(
            "`video:title` is longer than 100 characters. The limit is an XSD `maxLength`; the "
            "current Google doc only asks the title to match the page."
        ),
        source="https://www.google.com/schemas/sitemap-video/1.1/sitemap-video.xsd",
    ),
    Rule(
        id="video-duration-range",
        scope="extension",
        severity=ERR,
        title="Video duration out of range",
        message="video duration {value!r} is not an integer from 1 to 28,800 seconds",
        explanation=(
            "`video:duration` is not an integer from 1 to 28,800 seconds (8 hours). Note that the "
            "XSD accepts 0, but Google's minimum is 1."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
    ),
    Rule(
        id="video-rating-range",
        scope="extension",
        severity=ERR,
        title="Video rating out of range",
        message="video rating {value!r} is not a number from 0.0 to 5.0",
        explanation="`video:rating` is not a number from 0.0 to 5.0 inclusive.",
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
    ),
    Rule(
        id="video-view-count-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid video view count",
        message="video view_count {value!r} is not a non-negative integer",
        explanation="`video:view_count` is not a non-negative integer.",
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://www.google.com/schemas/sitemap-video/1.1/sitemap-video.xsd"
        ),
    ),
    Rule(
        id="video-date-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid video date",
        message=(
            "<video:{element}> {value!r} is not a full date or a date-time with seconds and time "
            "zone"
        ),
        explanation=(
            "`video:publication_date` or `video:expiration_date` is not W3C format: a complete "
            "date (`YYYY-MM-DD`), or a date-time with seconds and time zone."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
    ),
    Rule(
        id="video-expired",
        scope="extension",
        severity=WARN,
        title="Video expired",
        message="the video expired on {value}",
        explanation=(
            "`video:expiration_date` is already in the past. Google does not show the video after "
            "that date."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
    ),
    Rule(
        id="video-publication-future",
        scope="extension",
        severity=WARN,
        title="Video publication date in the future",
        message="video publication_date {value!r} is in the future",
        explanation="`video:publication_date` is later than the fetch time plus 24 h. This is a heuristic.",
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
    ),
    Rule(
        id="video-yes-no-invalid",
        scope="extension",
        severity=ERR,
        title="Video yes/no value invalid",
        message="<video:{element}> {value!r} is not 'yes' or 'no'",
        explanation=(
            "`video:family_friendly`, `video:requires_subscription` or `video:live` is not `yes` "
            "or `no`. The XSD also allows `Yes`/`YES`/`No`/`NO`."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://www.google.com/schemas/sitemap-video/1.1/sitemap-video.xsd"
        ),
    ),
    Rule(
        id="video-restriction-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid video restriction",
        message="<video:restriction>: {reason}",
        explanation=(
            "One of: more than one `video:restriction` per video; the `relationship` attribute "
            "missing or not `allow`/`deny`; the value not a space-separated list of ISO 3166-1 "
            "alpha-2 codes (the XSD pattern wants upper case)."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://www.google.com/schemas/sitemap-video/1.1/sitemap-video.xsd"
        ),
    ),
    Rule(
        id="video-platform-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid video platform",
        message="<video:platform>: {reason}",
        explanation=(
            "One of: more than one `video:platform` per video; `relationship` missing or not "
            "`allow`/`deny`; values other than space-separated `web`, `mobile`, `tv`."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
    ),
    Rule(
        id="video-tag-too-many",
        scope="extension",
        severity=ERR,
        title="More than 32 video tags",
        message="{count} <video:tag> elements in one video (limit 32)",
        explanation="More than 32 `video:tag` elements in one video.",
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps ; "
            "https://www.google.com/schemas/sitemap-video/1.1/sitemap-video.xsd"
        ),
    ),
    Rule(
        id="video-uploader-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid video uploader",
        message="<video:uploader>: {reason}",
        explanation=(
            "One of: more than one `video:uploader`; the name is over 255 characters; the `info` "
            "attribute URL is not on the same domain as `<loc>`."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
    ),
    Rule(
        id="video-deprecated-tags",
        scope="extension",
        severity=WARN,
        title="Deprecated video tag",
        message="deprecated {tag}, without effect since August 2022 (occurrences: {count:,})",
        explanation=(
            "One of `video:category`, `video:gallery_loc`, `video:price` (and its attributes), "
            "`video:tvshow` (and its children), or `video:player_loc` with `allow_embed` or "
            "`autoplay` is present. Google deprecated them in May 2022 and they have had no effect "
            "since 6 Aug 2022. The bundled XSD still defines them."
        ),
        source="https://developers.google.com/search/blog/2022/05/spring-cleaning-sitemap-extensions",
    ),
    Rule(
        id="video-element-order",
        scope="extension",
        severity=WARN,
        title="<video:video> children out of schema order",
        message="<video:video> children are not in schema order: {order}",
        explanation=(
            "The children of `<video:video>` are not in the XSD sequence (`thumbnail_loc`, "
            "`title`, `description`, `content_loc`, `player_loc`, `duration`, `expiration_date`, "
            "`rating`, `content_segment_loc`, `view_count`, `publication_date`, `tag`, `category`, "
            "`family_friendly`, `restriction`, `gallery_loc`, `price`, `requires_subscription`, "
            "`uploader`, `tvshow`, `platform`, `live`, `id`). Only the schema requires this order."
        ),
        source="https://www.google.com/schemas/sitemap-video/1.1/sitemap-video.xsd",
    ),
    Rule(
        id="video-thumbnail-problem",
        scope="extension",
        severity=WARN,
        title="Video thumbnail problem",
        message="thumbnail {url}: {reason}",
        explanation=(
            "Deep check: `video:thumbnail_loc` cannot be fetched, is not an image, or Search "
            'Console would call it too small or too large ("Thumbnail too small/large").'
        ),
        source=(
            "https://support.google.com/webmasters/answer/7451001 ; "
            "https://developers.google.com/search/docs/appearance/video"
        ),
        deep=True,
    ),
    Rule(
        id="video-files-not-accessible",
        scope="robots",
        severity=ERR,
        title="Video files not accessible to Googlebot",
        message="{element} {value!r} is not accessible to Googlebot: {reason}",
        explanation=(
            "The page, `content_loc`, `player_loc` or thumbnail URL is disallowed by robots.txt, "
            "needs a login, uses a streaming-only protocol, or is not an absolute URL at all "
            "(`None` written by a CMS, a relative path). Google requires every file referenced "
            "by a video sitemap to be accessible to Googlebot over HTTP or FTP."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps",
    ),
    Rule(
        id="news-too-many",
        scope="extension",
        severity=ERR,
        title="More than 1,000 news entries",
        message="{count:,} <news:news> elements in one sitemap (limit 1,000)",
        explanation=(
            'More than 1,000 `<news:news>` elements in one sitemap. Google: "Too many News URLs". '
            "Split the file and list the parts in a sitemap index."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
    ),
    Rule(
        id="news-multiple-per-url",
        scope="extension",
        severity=ERR,
        title="Several <news:news> in one <url>",
        message="{count} <news:news> elements in one <url>",
        explanation="More than one `<news:news>` in one `<url>`.",
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap",
    ),
    Rule(
        id="news-required-missing",
        scope="extension",
        severity=ERR,
        title="Required news tag missing",
        message="<news:news> is missing {missing}",
        explanation=(
            "`<news:news>` is missing one of `news:publication`, `news:publication/news:name`, "
            "`news:publication/news:language`, `news:publication_date` or `news:title`. All five "
            'are required. Google: "Missing `<publication>` tag", and so on.'
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
    ),
    Rule(
        id="news-article-too-old",
        scope="extension",
        severity=WARN,
        title="News article older than 2 days",
        message="news article published {value!r}, more than 2 days before the fetch",
        explanation=(
            "`news:publication_date` is more than 2 days (48 h) before the fetch time. Only "
            "articles created in the last two days belong in a news sitemap: remove older URLs or "
            "their `<news:news>` block."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap",
    ),
    Rule(
        id="news-date-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid news publication date",
        message="news publication_date {value!r} {reason}",
        explanation=(
            "`news:publication_date` is not W3C Datetime; at least a complete date is needed. "
            "Google also allows `hh:mmTZD` with no seconds, which the news XSD rejects: that case "
            "is only a warning, in the same way as lastmod-w3c-but-xsd-invalid."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap ; "
            "https://www.w3.org/TR/NOTE-datetime"
        ),
    ),
    Rule(
        id="news-date-future",
        scope="extension",
        severity=WARN,
        title="News publication date in the future",
        message="news publication_date {value!r} is in the future",
        explanation=(
            "`news:publication_date` is later than the fetch time plus 24 h. It must be the "
            "original publication time. This is a heuristic."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap",
    ),
    Rule(
        id="news-language-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid news language",
        message="news language {value!r} is not a lower-case ISO 639 code (nor zh-cn or zh-tw)",
        explanation=(
            "`news:language` is not a 2- or 3-letter ISO 639 code in lower case, and not one of "
            "the two exceptions `zh-cn` and `zh-tw`. The XSD pattern is "
            "`zh-cn|zh-tw|([a-z]{2,3})`."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap ; "
            "https://www.google.com/schemas/sitemap-news/0.9/sitemap-news.xsd"
        ),
    ),
    Rule(
        id="news-name-inconsistent",
        scope="extension",
        severity=WARN,
        title="Inconsistent news publication name",
        message="publication name {value!r} {reason}",
        explanation=(
            "`news:name` differs between entries of one sitemap, or has a trailing parenthetical "
            'such as "(subscription)". The name must match exactly how the publication appears on '
            "news.google.com, without anything in parentheses."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap",
    ),
    Rule(
        id="news-legacy-tags",
        scope="extension",
        severity=INFO,
        title="Legacy news tag",
        message="legacy <news:{tag}>; Google documents only the five required tags (occurrences: {count:,})",
        explanation=(
            "One of `news:access`, `news:genres`, `news:keywords` or `news:stock_tickers` is "
            "present. The legacy XSD still defines them, but the current Google news-sitemap "
            "reference documents only the five required tags."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap ; "
            "https://www.google.com/schemas/sitemap-news/0.9/sitemap-news.xsd"
        ),
    ),
    Rule(
        id="hreflang-namespace-missing",
        scope="extension",
        severity=ERR,
        title="xhtml namespace not declared",
        message='<{element}> is used without xmlns:xhtml="http://www.w3.org/1999/xhtml"{detail}',
        explanation=(
            '`xhtml:link` is used but `xmlns:xhtml="http://www.w3.org/1999/xhtml"` is not '
            "declared, or is declared with another URI."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
    ),
    Rule(
        id="hreflang-link-incomplete",
        scope="extension",
        severity=ERR,
        title="Incomplete xhtml:link",
        message="<xhtml:link> {reason}",
        explanation=(
            'An `xhtml:link` lacks `rel="alternate"`, `hreflang` or `href`, or has an empty one. A'
            ' `rel="alternate"` link with a `media` query and no `hreflang` is Google\'s annotation of'
            " a separate mobile URL, and one to an `android-app://` or `ios-app://` URL is an app deep"
            " link (the former App Indexing): neither is an hreflang link, and both are left alone, by"
            " this rule and the other hreflang rules."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
    ),
    Rule(
        id="hreflang-href-not-absolute",
        scope="extension",
        severity=ERR,
        title="hreflang href not absolute",
        message="hreflang href {value!r} is not an absolute http(s) URL: {reason}",
        explanation=(
            "`href` is not fully qualified with its scheme (`//example.com/foo` and `/foo` are "
            "wrong), or is not an http(s) URL at all (`None` written by a CMS, an invalid host)."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
    ),
    Rule(
        id="hreflang-code-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid hreflang code",
        message="hreflang {value!r} is not a valid code{hint}",
        explanation=(
            "`hreflang` is neither `x-default` nor `language[-Script][-REGION]`, where the "
            "language is ISO 639-1 (2 letters), the optional script is ISO 15924 (4 letters, for "
            "example `zh-Hant`) and the optional region is ISO 3166-1 alpha-2. Comparison ignores "
            "case. Typical mistakes: `en-UK` (use `en-GB`), `es-LA`, `en_US` (underscore), "
            "`en-EU`, and a country code alone (`us`, `gb`). Google ignores invalid codes."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
    ),
    Rule(
        id="hreflang-missing-self",
        scope="extension",
        severity=ERR,
        title="hreflang alternates omit the URL itself",
        message="the xhtml:link alternates of this URL do not include the URL itself",
        explanation=(
            "Among the `xhtml:link` elements of a `<url>`, none has an `href` equal to that "
            "`<url>`'s own `<loc>`. Each entry must list every alternate, itself included."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
    ),
    Rule(
        id="hreflang-duplicate-code",
        scope="extension",
        severity=WARN,
        title="hreflang code mapped twice",
        message="hreflang {value!r} maps to several URLs: {hrefs}",
        explanation=(
            "One `<url>` maps the same `hreflang` value (case-insensitive) to two different "
            "`href`s, so engines cannot tell which to use. This is a heuristic."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
    ),
    Rule(
        id="hreflang-x-default-missing",
        scope="extension",
        severity=INFO,
        title="No x-default alternate",
        message="URLs with hreflang alternates but no x-default: {count:,}",
        explanation=(
            "The cluster has alternates but no `x-default`. This is optional but recommended, as "
            "the fallback for unmatched languages."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
    ),
    Rule(
        id="hreflang-no-generic-language",
        scope="extension",
        severity=INFO,
        title="Regional variants without a generic language",
        message="regional variants ({variants}) without a generic {language!r} alternate (URLs: {count:,})",
        explanation=(
            "The cluster has several regional variants of one language (`en-ie`, `en-ca`, …) but "
            "no generic one (`en`). Google recommends adding a generic URL."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
    ),
    Rule(
        id="hreflang-no-return-link",
        scope="cross-file",
        severity=ERR,
        title="hreflang without a return link",
        message="{target} is listed as an alternate, but its entry does not list this URL back",
        explanation=(
            "URL A lists B as an alternate, but B's `<url>` entry (in any sitemap of the set) "
            "does not list A. Google ignores annotations that are not confirmed from both sides. "
            "When B is not in any sitemap, hreflang-target-not-in-sitemaps is reported instead."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
    ),
    Rule(
        id="hreflang-cluster-inconsistent",
        scope="cross-file",
        severity=WARN,
        title="hreflang cluster inconsistent",
        message="members of the hreflang cluster disagree: {detail}",
        explanation=(
            "Members of one hreflang cluster list different sets of alternates, or give one URL "
            "different language codes. Every version should list the same complete set."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
    ),
    Rule(
        id="hreflang-target-not-in-sitemaps",
        scope="cross-file",
        severity=INFO,
        title="hreflang target not in any sitemap",
        message="alternate {target} is not a <loc> in any sitemap of the set",
        explanation=(
            "An alternate `href` is not a `<loc>` in any sitemap of the set, so its return link "
            "cannot be checked from sitemaps alone. The deep check can fetch the page and look."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
    ),
    Rule(
        id="hreflang-target-not-indexable",
        scope="cross-file",
        severity=WARN,
        title="hreflang target not indexable",
        message="alternate {target} will not be indexed: {reason}",
        explanation=(
            "Deep check: An alternate `href` answers non-200, redirects, is `noindex`, or has a "
            "canonical pointing elsewhere. The annotation then points at a URL that will not be "
            "indexed. This is a heuristic."
        ),
        source=(
            "https://developers.google.com/search/docs/specialty/international/localized-versions "
            "; "
            "https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls"
        ),
        deep=True,
    ),
    Rule(
        id="hreflang-html-conflict",
        scope="cross-file",
        severity=WARN,
        title="hreflang in the page contradicts the sitemap",
        message="the page's own hreflang annotations differ from the sitemap's: {detail}",
        explanation=(
            'Deep check: The page\'s own HTML `<link rel="alternate" hreflang>` or HTTP `Link` '
            "annotations contradict the sitemap's. Google treats the three methods as equivalent "
            "and recommends using one."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
        deep=True,
    ),
    Rule(
        id="robots-no-sitemap-line",
        scope="robots",
        severity=INFO,
        title="robots.txt has no Sitemap: line",
        message="robots.txt has no Sitemap: line",
        explanation=(
            "The site's robots.txt has no `Sitemap:` line. This is the engine-neutral way to "
            "announce sitemaps now that the ping endpoints are gone."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §Informing search engine crawlers ; "
            "https://blogs.bing.com/webmaster/may-2022/Spring-cleaning-Removed-Bing-anonymous-sitemap-submission"
        ),
    ),
    Rule(
        id="robots-sitemap-not-absolute",
        scope="robots",
        severity=ERR,
        title="Sitemap: value not absolute",
        message="Sitemap: {value!r} is not a fully-qualified absolute URL",
        explanation="A `Sitemap:` value is not a fully-qualified absolute URL.",
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt ; "
            "https://www.sitemaps.org/protocol.html §Informing search engine crawlers"
        ),
    ),
    Rule(
        id="robots-sitemap-unfetchable",
        scope="robots",
        severity=ERR,
        title="Sitemap listed in robots.txt cannot be used",
        message="the sitemap {url} named in robots.txt cannot be used: {reason}",
        explanation=(
            "A sitemap named in robots.txt fails fetch-http-error, fetch-private-address or "
            "file-is-html."
        ),
        source="https://support.google.com/webmasters/answer/7451001",
    ),
    Rule(
        id="robots-url-disallowed",
        scope="robots",
        severity=WARN,
        title="URL disallowed by robots.txt",
        message="the URL is disallowed by robots.txt for {agent}",
        explanation=(
            "A `<loc>` is disallowed by robots.txt for Googlebot or Bingbot (the group rules of "
            'RFC 9309, falling back to `*`). Google: "Sitemap contains URLs which are blocked by '
            'robots.txt".'
        ),
        source=(
            "https://support.google.com/webmasters/answer/7451001 ; "
            "https://www.rfc-editor.org/rfc/rfc9309"
        ),
    ),
    Rule(
        id="robots-sitemap-file-disallowed",
        scope="robots",
        severity=WARN,
        title="Sitemap file disallowed by robots.txt",
        message="the sitemap file {url} is disallowed by its own robots.txt",
        explanation=(
            "The sitemap file's own URL is disallowed by robots.txt. Some engines (Yandex, for "
            "example) then refuse to download it."
        ),
        source="https://yandex.com/support/webmaster/en/error-dictionary/sitemap",
    ),
    Rule(
        id="robots-cross-submit-ok",
        scope="robots",
        severity=INFO,
        title="Valid cross-submission via robots.txt",
        message="URLs on {host!r} are accepted: {robots_url} names this sitemap (cross-submission)",
        explanation=(
            "A sitemap on host A lists URLs of host B, and B's robots.txt "
            "(`<scheme>://B/robots.txt`) has a `Sitemap:` line naming that exact sitemap URL. "
            "This is a valid cross-submission, so location-different-host and "
            "location-outside-path are not reported for host B."
        ),
        source="https://www.sitemaps.org/protocol.html §Sitemaps & Cross Submits",
    ),
    Rule(
        id="robots-fetch-error",
        scope="robots",
        severity=WARN,
        title="robots.txt could not be fetched",
        message="robots.txt could not be fetched: {reason}",
        explanation=(
            "robots.txt answers 5xx or cannot be reached. Google then treats the site as fully "
            "disallowed for a while. A 4xx means no restrictions."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt",
    ),
    Rule(
        id="ping-endpoint-deprecated",
        scope="robots",
        severity=INFO,
        title="Sitemap ping endpoint is gone",
        message="{url} uses the {engine} sitemap ping endpoint, which no longer works",
        explanation=(
            "The tooling or configuration being checked submits sitemaps through "
            "`google.com/ping?sitemap=` or `bing.com/ping?sitemap=`. Bing removed anonymous ping "
            "in May 2022. Google deprecated its ping in June 2023, and it has returned 404 since "
            "the end of 2023. Use robots.txt, Search Console, Bing Webmaster Tools or IndexNow "
            "instead."
        ),
        source=(
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping ; "
            "https://blogs.bing.com/webmaster/may-2022/Spring-cleaning-Removed-Bing-anonymous-sitemap-submission"
        ),
    ),
    Rule(
        id="cross-duplicate-url",
        scope="cross-file",
        severity=INFO,
        title="URL listed in several sitemaps",
        message="the URL is also listed in {other}",
        explanation=(
            "The same normalised URL is listed in more than one sitemap of the set. This is legal, "
            "but redundant."
        ),
        source=(
            "https://www.sitemaps.org/faq.html ; "
            "https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls"
        ),
    ),
    Rule(
        id="cross-duplicate-conflicting",
        scope="cross-file",
        severity=WARN,
        title="URL listed with conflicting data",
        message="the URL is also listed in {other} with a different {what}",
        explanation=(
            "The same URL appears in several sitemaps with different `lastmod` values or different "
            "hreflang sets, which are contradictory signals. This is a heuristic."
        ),
        source=(
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping ; "
            "https://developers.google.com/search/docs/specialty/international/localized-versions"
        ),
    ),
    Rule(
        id="cross-mixed-scheme",
        scope="cross-file",
        severity=WARN,
        title="Both http and https listed",
        message="host {host!r} is listed with both http and https",
        explanation=(
            "The set lists the same host under both `http://` and `https://`. The FAQ says to list "
            "one version only; listing both can lead to incomplete crawling."
        ),
        source='https://www.sitemaps.org/faq.html ("My site has both http and https versions…")',
    ),
    Rule(
        id="cross-mixed-www",
        scope="cross-file",
        severity=WARN,
        title="Both www and bare host listed",
        message="both {host!r} and {other_host!r} are listed",
        explanation=(
            "The set lists both `www.` and bare-host variants of the same site. Each file may only "
            "hold one host, and the two variants are duplicate canonicals."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §Sitemap file location ; "
            "https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls"
        ),
    ),
    Rule(
        id="cross-trailing-slash-variants",
        scope="cross-file",
        severity=WARN,
        title="Trailing-slash variants listed",
        message="{url} and {other} are both listed",
        explanation=(
            "Both `/path` and `/path/` (or `/dir/` and `/dir/index.html`) appear in the set. At "
            "most one can be canonical. This is a heuristic."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls",
    ),
    Rule(
        id="cross-mobile-and-desktop",
        scope="cross-file",
        severity=INFO,
        title="Mobile and desktop URLs listed",
        message="mobile host {host!r} is listed alongside {other_host!r}",
        explanation=(
            "Separate mobile URLs (`m.` host) are listed alongside desktop URLs. Google recommends "
            "listing only one version unless they are annotated."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap",
    ),
    Rule(
        id="index-cycle",
        scope="cross-file",
        severity=ERR,
        title="Sitemap index cycle",
        message="{url} was reached again: {path}",
        explanation=(
            "While following indexes, a sitemap URL is reached again (A→B→A, or an index listing "
            "itself). The traversal stops there. A cycle also implies index-nested."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html#index ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
    ),
    Rule(
        id="lastmod-all-identical",
        scope="cross-file",
        severity=WARN,
        title="lastmod values all identical",
        message=(
            "{share:.0%} of {total:,} lastmod values are {value}: probably the generation time, "
            "not real dates"
        ),
        explanation=(
            "In one sitemap (and, separately, across the set), at least 95% of the `<lastmod>` "
            "values are the same instant or the same calendar day, counting only when at least 20 "
            "URLs have a `<lastmod>`. The signal is stronger when that day is the sitemap's own "
            'fetch day or its HTTP `Last-Modified`. This is the typical sign of "generation '
            'time", not real modification dates. This is a heuristic (the thresholds are ours).'
        ),
        source=(
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping ; "
            "https://blogs.bing.com/webmaster/July-2025/Keeping-Content-Discoverable-with-Sitemaps-in-AI-Powered-Search "
            "; https://www.sitemaps.org/protocol.html §XML tag definitions"
        ),
    ),
    Rule(
        id="priority-all-equal",
        scope="cross-file",
        severity=INFO,
        title="priority values all equal",
        message="all {total:,} URLs have priority {value}",
        explanation=(
            "Every URL in a sitemap (or in the set) carries the same `<priority>`, for example all "
            "1.0. This gives no relative signal. It is moot for Google and Bing anyway."
        ),
        source=(
            "https://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd (tPriority annotation) ; "
            "https://www.sitemaps.org/faq.html"
        ),
    ),
    Rule(
        id="deep-status-3xx",
        scope="url",
        severity=WARN,
        title="URL redirects",
        message="the URL redirects to {target}",
        explanation=(
            "Deep check: `<loc>` redirects. List the final URL instead, and fix any trailing-slash "
            'mismatch. Google may also report "URLs not followed" for long redirect chains.'
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
        deep=True,
    ),
    Rule(
        id="deep-status-4xx",
        scope="url",
        severity=ERR,
        title="URL answers 4xx",
        message="the URL answers HTTP {status}",
        explanation=(
            "Deep check: `<loc>` answers 4xx (404, 410, 401 or 403, for example). The page cannot "
            "be indexed, so the entry is wasted."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/http-network-errors ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap"
        ),
        deep=True,
    ),
    Rule(
        id="deep-status-5xx",
        scope="url",
        severity=WARN,
        title="URL answers 5xx or times out",
        message="the URL answers {status}",
        explanation=(
            "Deep check: `<loc>` answers 5xx or times out. This may be temporary: re-test before "
            "acting on it."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/http-network-errors",
        deep=True,
    ),
    Rule(
        id="deep-soft-404",
        scope="url",
        severity=INFO,
        title="Page looks like an error page",
        message="the page looks like an error page: {reason}",
        explanation=(
            'Deep check: A 200 response whose content looks like an error or "not found" page. '
            "This is a heuristic."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/http-network-errors",
        deep=True,
    ),
    Rule(
        id="deep-noindex",
        scope="url",
        severity=ERR,
        title="Page is noindex",
        message="the page is noindex ({where})",
        explanation=(
            'Deep check: The page has `<meta name="robots" content="noindex">` (or '
            "googlebot/bingbot variants) or an `X-Robots-Tag: noindex` header. Listing it in a "
            "sitemap contradicts the noindex, and the URL will not be indexed."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/block-indexing ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap"
        ),
        deep=True,
    ),
    Rule(
        id="deep-non-canonical",
        scope="url",
        severity=WARN,
        title="Page canonical points elsewhere",
        message="the page's canonical URL is {target}",
        explanation=(
            "Deep check: The page's `rel=canonical` (in HTML or the `Link` header) points to a "
            "different URL. Sitemaps should list canonical URLs only."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls",
        deep=True,
    ),
    Rule(
        id="deep-lastmod-vs-header",
        scope="url",
        severity=INFO,
        title="lastmod far from Last-Modified",
        message="lastmod {value!r} differs from Last-Modified {header!r} by {days:,} days",
        explanation=(
            "Deep check: `<lastmod>` differs a lot (for example by more than 1 year) from the "
            "page's HTTP `Last-Modified`. The protocol notes the two are separate signals that "
            "engines may use differently."
        ),
        source="https://www.sitemaps.org/protocol.html §XML tag definitions",
        deep=True,
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
    ),
)

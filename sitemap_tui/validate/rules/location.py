"""URL location: each <loc> as a URL (absolute, escaped, length, host and path against the sitemap), duplicates within a file."""

from __future__ import annotations

from typing import Any

from sitemap_tui.engine.model import Issue
from sitemap_tui.validate.checkstate import FileContext, FileState, tally
from sitemap_tui.validate.rules import ERR, INFO, WARN, Fields, Rule, make_issue
from sitemap_tui.validate.urlcheck import Origin, UrlParts, comparable_path, site_label, split_base


def _loc_elsewhere(f: Fields) -> str | None:
    """A <loc> outside the sitemap namespace named (``other``: its name in Entry.tags)."""
    other = f.get("other")
    if not isinstance(other, str):
        return None
    if other.startswith("{}"):
        where = '<loc xmlns=""> is in no namespace'
    elif other.startswith("{"):
        where = f"<loc> is in the namespace {other[1:other.index('}')]}"
    else:
        where = f"<{other}> is in another namespace"
    return f"<url> has no <loc> in the sitemap namespace: its {where}, which crawlers do not read as the URL"


RULES: tuple[Rule, ...] = (
    Rule(
        id="loc-missing",
        scope="url",
        severity=ERR,
        title="<url> without <loc>",
        message="<url> has no <loc>",
        word=_loc_elsewhere,
        explanation='A `<url>` has no `<loc>`. Google calls this "Missing XML tag".',
        source=(
            "https://www.sitemaps.org/protocol.html §XML tag definitions ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
        decided_by=("checker",),
    ),
    Rule(
        id="loc-empty",
        scope="url",
        severity=ERR,
        title="Empty <loc>",
        message="<loc> is empty",
        explanation="`<loc>` is empty or only whitespace.",
        source="https://www.sitemaps.org/protocol.html §XML tag definitions",
        decided_by=("checker",),
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
            "relative URLs pass it. An Atom `<link href>` under an absolute `xml:base` is resolved "
            "against it, as Atom readers do (RFC 4287 §1.2), and is not reported."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §XML tag definitions ; "
            'https://www.sitemaps.org/faq.html ("Do URLs in the Sitemap need to be completely '
            'specified?") ; '
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap"
        ),
        decided_by=("checker",),
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
        decided_by=("checker",),
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
        decided_by=("checker",),
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
        decided_by=("checker",),
    ),
    Rule(
        id="loc-bad-percent-encoding",
        scope="url",
        severity=ERR,
        title="Bad percent-encoding",
        message="'%' not followed by two hex digits: {snippet!r}",
        explanation="A `%` is not followed by two hex digits.",
        source="https://www.rfc-editor.org/rfc/rfc3986#section-2.1",
        decided_by=("checker",),
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
        decided_by=("checker",),
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
        decided_by=("parse",),
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
        decided_by=("checker",),
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
        decided_by=("checker",),
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
        decided_by=("checker",),
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
        decided_by=("checker",),
    ),
    Rule(
        id="loc-private-host",
        sample=True,
        scope="url",
        severity=WARN,
        title="Private, local or staging host",
        message="{count} URL(s) on host {host!r}, which looks {reason}",
        explanation=(
            "The host is `localhost`, a loopback/private/link-local IP address, `*.local`, or a "
            "name that looks like staging (`staging.`, `dev.` or `test.` above a domain: "
            "`dev.example.com`, not `dev.to`). This usually means a leaked staging sitemap. This "
            "is a heuristic."
        ),
        source=(
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap "
            '("include the URLs that you want to see in Google\'s search results")'
        ),
        decided_by=("checker",),
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
        decided_by=("checker",),
    ),
    Rule(
        id="location-different-host",
        sample=True,
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
            "has no `Sitemap:` line naming this sitemap (see robots-cross-submit-ok); that robots.txt "
            "is the `<loc>`'s own site's, so another port or scheme of a host that names the "
            "sitemap is judged by its own (and named with it: `host:8080`). Google also "
            "accepts hosts verified together in Search Console, which sitemap-tui cannot check."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §Sitemap file location, §Sitemaps & Cross "
            "Submits ; "
            "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap"
        ),
        decided_by=("checker", "location.location_rules"),
    ),
    Rule(
        id="location-different-scheme",
        sample=True,
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
        decided_by=("location.location_rules",),
    ),
    Rule(
        id="location-outside-path",
        sample=True,
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
        decided_by=("checker", "location.location_rules"),
    ),
    Rule(
        id="location-port-mismatch",
        sample=True,
        scope="url",
        severity=ERR,
        title="URL port differs from the sitemap's",
        message="{count} URL(s) use port {port}, not the sitemap's port {sitemap_port}{note}",
        explanation=(
            "The sitemap URL has a port (for example `:8080`) but the `<loc>` does not carry the "
            "same port, or the other way round. Default ports (80, 443) count as no port."
        ),
        source="https://www.sitemaps.org/protocol.html §Sitemap file location",
        decided_by=("location.location_rules",),
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
        decided_by=("checker",),
    ),
)


# -- checks (called by the streaming checker, validate/checker.py) --------------------


def _path(p: UrlParts) -> str:
    """The path a client requests, as the sitemap's directory is compared: ``/blog/../shop/d``
    is ``/shop/d`` (httpx resolves it), so a dot-segment does not lift a URL into the
    sitemap's directory, and ``/%63atalog/d`` is ``/catalog/d``."""
    return comparable_path(p.path or "/")


def location_rules(
    base: UrlParts, base_dir: str, robots_origins: frozenset[Origin], p: UrlParts
) -> tuple[list[tuple[str, dict[str, Any]]], bool]:
    found: list[tuple[str, dict[str, Any]]] = []
    cross = False
    if p.host != base.host:
        # another host: only the host rule (scheme, port and path compare within one site)
        if (p.scheme, p.host, p.port) in robots_origins:
            cross = True
        else:
            found.append(
                ("location-different-host", {"host": site_label(p, base), "sitemap_host": site_label(base)})
            )
    else:
        if p.scheme != base.scheme:
            found.append(
                (
                    "location-different-scheme",
                    {"scheme": p.scheme, "sitemap_scheme": base.scheme},
                )
            )
        if p.port != base.port:
            found.append(
                (
                    "location-port-mismatch",
                    {"port": p.port or "(default)", "sitemap_port": base.port or "(default)"},
                )
            )
        if not _path(p).startswith(base_dir):
            if (p.scheme, p.host, p.port) in robots_origins:
                cross = True
            else:
                found.append(("location-outside-path", {"directory": base_dir}))
    return found, cross

_LOCATION_CACHE_MAX = 4096  # URL shapes (host, scheme, port, in the directory) per file


def check_location(ctx: FileContext,
    st: FileState,
    p: UrlParts,
    line: int | None,
    url: str | None,
    out: list[Issue],
) -> None:
    base = st.base
    assert base is not None
    if st.location_base is not base:  # a new file, or its final URL changed
        st.location_base = base
        st.location_verdicts = {}
    # location_rules reads nothing of the URL but these: a file's URLs share a few shapes,
    # whose findings (and tally keys) are worked out once
    path = _path(p)
    shape = (
        p.host,
        p.scheme,
        p.port,
        path.startswith(st.base_dir),
        None if st.requested is None else path.startswith(st.requested_dir),
    )
    verdict = st.location_verdicts.get(shape)
    if verdict is None:
        verdict = _location_verdict(ctx, st, base, p)
        if len(st.location_verdicts) < _LOCATION_CACHE_MAX:
            st.location_verdicts[shape] = verdict
    cross, found = verdict
    origin = (p.scheme, p.host, p.port)
    if cross and origin not in st.cross_ok:
        st.cross_ok.add(origin)
        robots_url = next(
            (u for u in sorted(ctx.robots_listed_by)
             if (q := split_base(u)) is not None and (q.scheme, q.host, q.port) == origin),
            "robots.txt",
        )
        out.append(
            make_issue(
                "robots-cross-submit-ok",
                node_id=ctx.node_id,
                line=line,
                url=url,
                host=site_label(p, base),
                robots_url=robots_url,
            )
        )
    tallies = st.tallies
    for rule, key, note, fields in found:
        t = tallies.get((rule, key))
        if t is not None and t.count:
            t.count += 1  # counted before in this file: no fields to merge for a count
        else:
            tally(st, rule, key, line, url, note=note, **fields)


def _location_verdict(
    ctx: FileContext, st: FileState, base: UrlParts, p: UrlParts
) -> tuple[bool, tuple[tuple[str, str, str, dict[str, Any]], ...]]:
    """Whether ``p``'s host is cross-submitted through robots.txt, and each location finding
    as (rule, tally key, note, fields)."""
    found, cross = location_rules(base, st.base_dir, st.robots_origins, p)
    if not found:
        return cross, ()
    against_requested: set[str] | None = None
    if st.requested is not None:
        req, _ = location_rules(st.requested, st.requested_dir, st.robots_origins, p)
        against_requested = {rule for rule, _ in req}
    verdicts = []
    for rule, fields in found:
        note = ""
        if against_requested is not None:
            if rule in against_requested:
                note = " (also against the requested URL before the redirect)"
            else:
                note = f" (against the requested URL {ctx.url} it would pass)"
        # a misplaced sitemap usually misplaces every URL: one issue per host, scheme,
        # port or directory with a count (and the first entry), not 50,000 copies
        key = "|".join((p.scheme, *(str(v) for v in fields.values()))) + note
        verdicts.append((rule, key, note, fields))
    return cross, tuple(verdicts)

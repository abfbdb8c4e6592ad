"""Transport: fetching the sitemap (HTTP status, redirects, addresses) and decoding its body (compression, size)."""

from __future__ import annotations

from sitemap_tui.validate.rules import ERR, WARN, Fields, Rule


def _fetch_error(f: Fields) -> str | None:
    """A fetch that ended in an error: the fetcher's account of it, as on the node."""
    return str(f["error"]) if "error" in f else None


def _redirected(f: Fields) -> str | None:
    if "hops" not in f:
        return None
    hops = f["hops"]
    message = f"{f['from_url']} redirects to {f['final_url']} ({hops} redirect{'s' if hops != 1 else ''})"
    if f.get("hosts"):
        message += f"; host changes: {' -> '.join(f['hosts'])}"
    return message


def _gzip_double(f: Fields) -> str | None:
    if "layers" not in f:
        return None
    return (
        "the file is gzipped twice: a reader that unpacks it once finds gzip again, not a sitemap"
        " (sitemap-tui unpacked both layers and checked the rest)"
    )


def _encoding_mismatch(f: Fields) -> str | None:
    if "starts_with" not in f:
        return _fetch_error(f)
    return (
        "the response says Content-Encoding: gzip, but the body is not gzip-compressed"
        f" (it starts with plain {f['starts_with']}); it was read as it is"
    )


RULES: tuple[Rule, ...] = (
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
        decided_by=("fetch",),
        word=_fetch_error,
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
        decided_by=("fetch",),
        word=_redirected,
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
        decided_by=("fetch",),
        word=_fetch_error,
    ),
    Rule(
        id="gzip-corrupt",
        scope="file",
        severity=ERR,
        title="Corrupt or truncated gzip",
        message="gzip decompression failed: {reason}",
        explanation=(
            "The body starts with the gzip magic bytes `1F 8B`, but gzip decompression fails or "
            'is truncated. Google calls this a "Compression error". A file named `.gz` whose body '
            "is plain XML or text (no magic bytes) is read as it is, without this finding."
        ),
        source=(
            "https://support.google.com/webmasters/answer/7451001 ; "
            "https://www.sitemaps.org/protocol.html §Sitemap index"
        ),
        decided_by=("fetch",),
        word=_fetch_error,
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
        decided_by=("fetch",),
        word=_fetch_error,
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
        decided_by=("fetch",),
        word=_encoding_mismatch,
    ),
    Rule(
        id="gzip-double",
        scope="file",
        severity=ERR,
        title="Gzipped twice",
        message="the file is gzipped more than once",
        explanation=(
            "Once any `Content-Encoding` is undone, the body is a gzip file whose content is gzip "
            "again (`1F 8B` after the first gunzip), typically a build step that compresses an "
            "already compressed `.xml.gz`. The protocol's `.gz` is one gzip layer: a reader that "
            "unpacks it once finds compressed bytes where the XML or text should be, as with a "
            "corrupt gzip. sitemap-tui unpacks up to two layers, reports this, and "
            "checks the rest (a third layer is compression-not-gzip). Not in the shared "
            "catalogue: sitemap-tui's own rule, beside gzip-corrupt."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §Sitemap index ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
        decided_by=("fetch",),
        word=_gzip_double,
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
        decided_by=("fetch",),
        word=_fetch_error,
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
        decided_by=("checker",),
    ),
)

"""Which URLs may be fetched, and the key used to recognise a URL already seen (SECURITY.md §8).

Only absolute http(s) URLs with a host are ever fetched: ``file:``, ``data:``, ``javascript:``,
``ftp:`` ... in a ``<loc>``, an index child, a robots ``Sitemap:`` line or a redirect are shown as
invalid, never opened. Everything here uses ``urllib.parse`` inside try/except because it raises on
input such as ``http://[::1`` or ``http://h:99999``; none of these functions raise.
"""

from __future__ import annotations

import ipaddress
import os
import re
from functools import lru_cache
from pathlib import Path
from urllib.parse import SplitResult, unquote_to_bytes, urljoin, urlsplit, urlunsplit

FETCHABLE_SCHEMES = frozenset({"http", "https"})
DEFAULT_PORTS = {"http": 80, "https": 443}

# Far above the 2,048 characters sitemaps.org allows for <loc> (the validator reports that);
# this is only a guard against sending megabyte-long request lines.
MAX_FETCH_URL_LEN = 16384

# Whitespace and control characters anywhere make a URL unfetchable: urllib silently drops
# TAB/CR/LF, other tools keep them, and a URL that means different things to different parsers
# must not be fetched. \s covers the Unicode spaces (NBSP, U+2028, ideographic space...).
_BAD_CHARS_RE = re.compile(r"[\x00-\x20\x7f-\x9f\s]")
# What may follow "[v6 address]" in an authority: nothing, or a port.
_AFTER_IPV6_RE = re.compile(r"(?::[0-9]*)?")
# What httpx treats as an IPv4 address (and then validates strictly).
_IPV4_STYLE_RE = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+")
# A scheme per RFC 3986, to tell "no scheme" (relative) from "a scheme we refuse".
_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
# Characters that must not appear in a host; a backslash is read as "/" by browsers (and by some
# HTTP clients), so "http://evil\@good/" would reach a different host than the one we show.
_BAD_HOST_CHARS = frozenset('\\/?#@<>"{}|^`%[] ')
# What a path or query keeps as it is in a key: what httpx sends unescaped. Anything else
# (non-ASCII, space, ", <, >, `, {, }) goes on the wire percent-encoded as UTF-8, so the key
# holds it that way too.
_NEEDS_QUOTING_RE = re.compile(r"[^A-Za-z0-9\-._~!#$%&'()*+,/:;=?@\[\\\]^|]+")
_LOWER_ESCAPE_RE = re.compile(r"%(?:[a-f][0-9A-Fa-f]|[0-9A-F][a-f])")


def _split(url: str) -> SplitResult | None:
    try:
        return urlsplit(url)
    except (ValueError, TypeError):
        return None


def not_dotted_quad(host: str) -> bool:
    """A host whose last label is a number but that is no IPv4 address in dotted-decimal form
    (four numbers 0-255, no leading zero). A numeric last label makes a host an IPv4 address (no
    top-level domain is all digits): 0177.0.0.1 or 127.1 is 127.0.0.1 to a browser, 093.1.1.1
    nothing at all, and tools disagree."""
    name = host.rstrip(".")
    if not name.rpartition(".")[2].isdigit():
        return False
    parts = name.split(".")
    return not (len(parts) == 4 and all(
        p.isascii() and p.isdigit() and (p == "0" or not p.startswith("0")) and int(p) <= 255 for p in parts))


def unfetchable_reason(url: str | None) -> str | None:
    """``None`` when ``url`` may be fetched, else a short human reason why not."""
    if not url:
        return "empty URL"
    if not isinstance(url, str):
        return "not a string"
    if len(url) > MAX_FETCH_URL_LEN:
        return f"URL longer than {MAX_FETCH_URL_LEN} characters"
    m = _BAD_CHARS_RE.search(url)
    if m is not None:
        ch = m.group()
        return (
            "contains whitespace" if ch == " " or ch.isspace() else "contains a control character"
        )
    scheme_m = _SCHEME_RE.match(url)
    if scheme_m is None:
        return "relative URL (no http/https scheme)"
    scheme = scheme_m.group()[:-1].lower()
    if scheme not in FETCHABLE_SCHEMES:
        # Only the scheme is quoted: the rest may be a data: payload.
        return f"scheme '{scheme[:20]}' is not http(s)"
    parts = _split(url)
    if parts is None:
        return "not a valid URL"
    if not url[scheme_m.end() :].startswith("//"):
        return "no host (missing '//')"
    netloc = parts.netloc
    hostport = netloc.rpartition("@")[2]
    host = parts.hostname
    if not host:
        return "no host"
    if hostport.startswith("["):
        # IPv6 literal: urllib (3.11.4+) already checked the address inside the brackets, but
        # not what follows them: "https://[::]junk" has no port for urllib, an invalid one for
        # httpx (InvalidURL).
        end = hostport.find("]")
        if not _AFTER_IPV6_RE.fullmatch(hostport[end + 1 :]):
            return "invalid host name"
        try:  # and IPvFuture literals ("[v1.x]"), which urllib accepts and httpx does not
            ipaddress.IPv6Address(hostport[1:end])
        except ValueError:
            return "invalid host name"
    elif any(c in _BAD_HOST_CHARS for c in hostport.rpartition(":")[0] or hostport):
        return "invalid character in host"
    if "\\" in netloc:
        return "backslash in the authority"
    try:
        port = parts.port
    except ValueError:
        return "invalid port"
    if port == 0:
        return "invalid port 0"
    if ".." in host or host.startswith("."):
        return "invalid host name"
    if not hostport.startswith("[") and not_dotted_quad(host):
        return "invalid host name (a number that is no IPv4 address in dotted-decimal form)"
    if (not host.isascii() or _IPV4_STYLE_RE.fullmatch(host)) and not _httpx_takes(scheme, hostport):
        return "invalid host name"
    return None


@lru_cache(maxsize=1024)  # an index of 50,000 children on one host asked it 50,000 times (80 µs each)
def _httpx_takes(scheme: str, hostport: str) -> bool:
    """httpx applies IDNA 2008 and strict IPv4 rules that urllib does not ("http://×/",
    "http://256.0.0.1/"): ask it of the authority, so that a fetchable URL never raises
    InvalidURL there (what else it checks, characters and the port, is checked above)."""
    try:
        import httpx

        httpx.URL(f"{scheme}://{hostport}/")
    except Exception:  # httpx.InvalidURL is not an HTTPError (nor a ValueError)
        return False
    return True


def has_scheme(url: str) -> bool:
    """True when ``url`` starts with an RFC 3986 scheme (``http:``, ``file:``, ``x-y+z:``)."""
    return _SCHEME_RE.match(url) is not None


def names_robots_txt(url: str) -> bool:
    """Whether ``url``'s path ends in /robots.txt (read as a robots.txt, never as a sitemap)."""
    return url.lower().split("?")[0].endswith("/robots.txt")


def is_fetchable(url: str | None) -> bool:
    return unfetchable_reason(url) is None


@lru_cache(maxsize=4096)  # a set lists a handful of hosts millions of times
def canonical_host(host: str) -> str:
    """A host name in the one form hosts are compared in: lower case, and an internationalised
    name as its IDNA (``xn--``) form, which is what goes on the wire (httpx encodes it the same
    way, IDNA 2008). A name IDNA refuses stays lower-cased as it is (it is never fetched)."""
    host = host.lower()
    if host.isascii():
        return host
    try:
        import idna

        return idna.encode(host).decode("ascii")
    except (UnicodeError, ValueError):  # idna.IDNAError is a UnicodeError
        return host


@lru_cache(maxsize=256)
def ipv6_host(host: str) -> str:
    """An IPv6 address (without brackets) in its one form, compressed and in lower case, as URL
    parsers write it: [0:0:0:0:0:0:0:1] and [::1] are one host (found from outside: an index on
    [::1] read its child on [0:0:0:0:0:0:0:1] as another host, and did not follow it)."""
    try:
        return ipaddress.IPv6Address(host).compressed
    except ValueError:
        return host.lower()


def _netloc(parts: SplitResult) -> str | None:
    """Rebuild the authority with the host in canonical form and without a default port."""
    host = parts.hostname  # already lower-cased by urllib
    if host is None:
        return None
    port = parts.port  # may raise ValueError: the caller catches it
    userinfo, at, _ = parts.netloc.rpartition("@")
    # an IPv6 literal lost its brackets in .hostname
    host = f"[{ipv6_host(host)}]" if ":" in host else canonical_host(host)
    netloc = f"{userinfo}{at}{host}"
    if port is not None and port != DEFAULT_PORTS.get(parts.scheme):
        netloc += f":{port}"
    return netloc


def one_encoding(text: str) -> str:
    """Percent-encoding in one form (a path or query): characters sent escaped are escaped
    (UTF-8), escapes in upper case. ``%7E`` and ``~`` stay apart: a server may tell them
    apart (RFC 3986 allows it to), and no client rewrites one into the other. Raises
    UnicodeEncodeError on a lone surrogate (the callers catch it)."""
    had_escape = "%" in text  # _escape writes upper-case escapes only
    if not text.isascii() or _NEEDS_QUOTING_RE.search(text):
        text = _NEEDS_QUOTING_RE.sub(_escape, text)
    if had_escape:
        text = _LOWER_ESCAPE_RE.sub(_upper, text)
    return text


def _escape(m: re.Match[str]) -> str:
    # one run of characters at a time, its UTF-8 bytes as %XX (bytes.hex does it in C)
    return "%" + m.group().encode("utf-8").hex("%").upper()


def _upper(m: re.Match[str]) -> str:
    return m.group().upper()


def remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4: ``/a/./b/../c`` -> ``/a/c`` (what httpx sends for such a path)."""
    out: list[str] = []
    segments = path.split("/")
    for i, seg in enumerate(segments):
        if seg == ".":
            if i == len(segments) - 1:
                out.append("")
        elif seg == "..":
            if len(out) > 1:
                out.pop()
            if i == len(segments) - 1:
                out.append("")
        else:
            out.append(seg)
    result = "/".join(out)
    if path.startswith("/") and not result.startswith("/"):
        result = "/" + result
    return result


def normalize(url: str) -> str:
    """Key for cycle/visited detection and duplicates; never raises (returns the input when
    unparseable).

    Two URLs get one key when every client sends the same request for both: scheme and host
    in lower case, the host in its IDNA form, no default port, no fragment, an empty path as
    ``/``, dot segments removed, and percent-encoding in one form (non-ASCII and other
    characters that are sent escaped are escaped as UTF-8, escapes in upper case). The path
    and query are otherwise kept as written: servers may treat ``%7E`` and ``~`` or ``/A``
    and ``/a`` differently, so we don't guess.
    """
    try:
        parts = urlsplit(url)
        scheme = parts.scheme
        if scheme not in FETCHABLE_SCHEMES or not parts.netloc:
            # Not something we fetch; only drop the fragment (cheap and idempotent).
            return url.split("#", 1)[0]
        netloc = _netloc(parts)
        if netloc is None:
            return url.split("#", 1)[0]
        path = parts.path or "/"
        if "." in path and ("/." in path or path.startswith(".")):
            path = remove_dot_segments(path) or "/"
        path = one_encoding(path)
        query = one_encoding(parts.query) if parts.query else parts.query
        out = urlunsplit((scheme, netloc, path, query, ""))
        # urlsplit/urlunsplit can drop characters (TAB/CR/LF) or reinterpret odd authorities;
        # only accept the result when it is a fixed point, so normalize() stays idempotent.
        again = urlsplit(out)
        if again.netloc != netloc or (again.path or "/") != path or again.query != query:
            return url.split("#", 1)[0]
        return out
    except (ValueError, TypeError, AttributeError):
        return url


# what urljoin's parse and unparse of an absolute http(s) reference change: tabs and line
# breaks dropped, an empty query, fragment or ;params dropped; and no host: the base's is taken
_JOIN_REWRITES = re.compile(r"[\t\r\n;]|[?#]$|\?#|^https?://(?:[/?#]|$)")


def resolve(base: str, ref: str) -> str:
    """``ref`` resolved against ``base`` (RFC 3986 §5.2), never raising (``ref`` unchanged on
    failure). ``urljoin`` drops the empty segments of a relative path, the reference's or the
    base's (``foo//bar.xml`` became ``foo/bar.xml``, another URL than a browser fetches); such
    a reference is merged here."""
    if ref.startswith(("https://", "http://")) and _JOIN_REWRITES.search(ref) is None:
        # an absolute reference comes back from urljoin as it was, but for what the regex finds
        # (an index of 50,000 children spent a fifth of its listing here)
        return ref
    try:
        r = urlsplit(ref)
        if r.scheme or r.netloc or not r.path or r.path.startswith("/"):
            return urljoin(base, ref)
        b = urlsplit(base)
        if "//" not in r.path and "//" not in b.path:
            return urljoin(base, ref)
        directory = b.path[: b.path.rfind("/") + 1] if b.path else "/"
        return urlunsplit((b.scheme, b.netloc, _remove_dot_segments(directory + r.path), r.query, r.fragment))
    except (ValueError, TypeError, AttributeError):
        return ref


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4 on an absolute path, empty segments kept."""
    out: list[str] = []
    segments = path.split("/")
    last = len(segments) - 1
    for i, segment in enumerate(segments):
        if segment in (".", ".."):
            if segment == ".." and len(out) > 1:
                out.pop()
            if i == last:
                out.append("")  # ("a/." and "a/.." end in a slash)
            continue
        out.append(segment)
    return "/".join(out)


def host_of(url: str | None) -> str | None:
    """The host in the one form hosts are compared in (:func:`canonical_host`: lower case,
    IDNA for an internationalised name; IPv6 without brackets), or ``None``."""
    if not url:
        return None
    parts = _split(url)
    if parts is None:
        return None
    try:
        host = parts.hostname
    except ValueError:
        return None
    if not host:
        return None
    return ipv6_host(host) if ":" in host else canonical_host(host)


def same_host(a: str | None, b: str | None) -> bool:
    """True when both URLs have a host and it is the same (in :func:`canonical_host` form)."""
    ha = host_of(a)
    return ha is not None and ha == host_of(b)


def local_path(url: str) -> Path:
    """The local path of a ``file:`` URL, the inverse of ``Path.as_uri()``: its bytes as the
    file system has them (a name that is no UTF-8 came back with U+FFFD in it, and then was
    "no such file")."""
    return Path(os.fsdecode(unquote_to_bytes(urlsplit(url).path)))


@lru_cache(maxsize=256)  # (an index's URL, asked once for each of its children)
def server_of(url: str | None) -> str | None:
    """The host, with its port when that is not the scheme's default (``example.com``,
    ``example.com:8443``): http://h/ and https://h/ are one server, h:6379 another. None
    without a host."""
    host = host_of(url)
    if host is None or url is None:
        return None
    return _server(host, normalize(url))  # (normalize drops a default port)


def server_of_key(key: str, url: str) -> str | None:
    """:func:`server_of` of ``url``, whose :func:`normalize` key is ``key``: read from the key
    when its authority is a plain host and port (normalize is idempotent there), without
    normalizing again; an authority with userinfo or brackets (IPv6, and malformed ones that
    normalize reads otherwise) is server_of's. An index's children are keyed anyway; asking
    server_of for each was a third of what 50,001 children cost."""
    authority = key.partition("//")[2].partition("/")[0]
    if "@" in authority or "[" in authority:
        return server_of(url)
    host = host_of(key)
    return None if host is None else _server(host, key)


def same_server_key(key: str, url: str, server: str | None) -> bool:
    """:func:`same_server` of ``url`` and another URL, from ``url``'s :func:`normalize` key and
    the other's :func:`server_of`, both worked out once by the caller (an index's children)."""
    mine = server_of_key(key, url)
    return mine is not None and mine == server


def _server(host: str, key: str) -> str:
    if ":" in host:  # IPv6: bracketed, so that [::1]:8873 and [::1:8873] stay two servers
        host = f"[{host}]"
    try:
        port = urlsplit(key).port
    except ValueError:
        return host
    return host if port is None else f"{host}:{port}"


def same_server(a: str | None, b: str | None) -> bool:
    """Same host and port (a scheme's default port left out): what an index's children must
    share with it to be followed without --follow-cross-host (another port of the same host
    is another service: a public index must not send the tool to the site's :6379)."""
    sa = server_of(a)
    return sa is not None and sa == server_of(b)


def registrable_host(url: str | None) -> str | None:
    """Host with one leading ``www.`` removed, to compare www and non-www variants.

    Not a public-suffix lookup: ``www.example.co.uk`` gives ``example.co.uk``, ``a.example.com``
    stays as it is.
    """
    host = host_of(url)
    if host is None:
        return None
    if host.startswith("www.") and len(host) > 4:
        return host[4:]
    return host


def same_site(a: str | None, b: str | None) -> bool:
    """Same host once a leading ``www.`` is ignored on both sides."""
    ra = registrable_host(a)
    return ra is not None and ra == registrable_host(b)


def origin_of(url: str | None) -> str | None:
    """``scheme://host[:port]`` in normal form (the scope of a robots.txt), or ``None`` when
    ``url`` is not a fetchable http(s) URL."""
    if not url or unfetchable_reason(url) is not None:
        return None
    key = normalize(url)
    end = key.find("/", key.find("//") + 2)
    return key if end < 0 else key[:end]


# RFC 2606 / RFC 6761 names for documentation and tests: nobody's robots.txt there can name a
# sitemap, and .example / .invalid never resolve, so they are never asked (no query leaves the
# machine for the demo site or for examples).
_DOCUMENTATION_HOST_RE = re.compile(r"(?:^|\.)(?:example|invalid|example\.(?:com|net|org))\Z")


def is_documentation_host(host: str | None) -> bool:
    return bool(host) and _DOCUMENTATION_HOST_RE.search(host) is not None  # type: ignore[arg-type]

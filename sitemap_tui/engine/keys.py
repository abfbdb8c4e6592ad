"""The keys the cross-file rules join on, computed where the entries are parsed.

Every entry's normalised URL key, every hreflang link's language and target key, and each
entry's hreflang set signature are worked out while the rows of a batch are built, in the
parser workers, so they run in parallel with the parsing of other files. The cross-file pass
then only copies and indexes them: computing them there, one SQL function call per URL, was a
single-threaded pass after the last file (9 s for the keys of 10 M URLs; ~5 µs per hreflang link).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from sitemap_tui.engine.urlpolicy import (
    MAX_FETCH_URL_LEN,
    normalize,
    one_encoding,
    remove_dot_segments,
    unfetchable_reason,
)

# The common shape of a <loc>: lower-case http(s) host without port, userinfo or fragment, and
# a path and query of characters that are sent as they are (ASCII, nothing to escape). Such a
# URL is its own key (urlpolicy.normalize would return it unchanged) unless it has a
# dot segment or a lower-case escape, which the two cheap tests in url_key() rule out; that
# spares the urlsplit round trips for almost every row.
_FAST_KEY_RE = re.compile(r"https?://[a-z0-9-]+(?:\.[a-z0-9-]+)*/[A-Za-z0-9\-._~!$%&'()*+,/:;=?@\[\\\]^|]*\Z")
_LOWER_ESCAPE_RE = re.compile(r"%(?:[a-f][0-9A-Fa-f]|[0-9A-F][a-f])")
# Most other locs are still simple: an ASCII host name (perhaps in upper case), perhaps a port
# or a fragment, a path with non-ASCII characters, dot segments or lower-case escapes. Their
# key is built from this one match, without normalize()'s three urlsplit calls and
# unfetchable_reason's checks (a site whose paths are all non-ASCII would otherwise pay four
# times as much per URL). Userinfo, IP addresses, IPv6, empty ports, controls and whitespace
# (Unicode's too: \s): the full path.
_SIMPLE_RE = re.compile(
    r"([Hh][Tt][Tt][Pp][Ss]?)://([A-Za-z0-9.-]+)(?::([0-9]{1,5}))?"
    r"(/[^#\s\x00-\x20\x7f-\x9f]*)?(?:#[^\s\x00-\x20\x7f-\x9f]*)?\Z"
)
_DEFAULT_PORTS = {"http": 80, "https": 443}

SIGNATURE_KEY_BYTES = 16


def url_key(loc: str | None) -> str | None:
    """The key two listings of one URL share (``urlpolicy.normalize`` of the stripped loc), or
    None for a loc that is not an absolute http(s) URL (the url-scope rules report those)."""
    if not loc:
        return None
    s = loc.strip()
    if _is_own_key(s):
        return s
    key = _simple_key(s)
    if key is not None:
        return key
    if unfetchable_reason(s) is not None:
        return None
    return normalize(s)


def normalized(s: str) -> str:
    """``urlpolicy.normalize(s)`` of a stripped loc, through url_key's shortcuts when the loc has
    their shape (the checker's duplicate key of a loc that is not its own normal form, an index's
    child's key); unlike url_key, never None."""
    if _is_own_key(s):
        return s
    key = _simple_key(s)
    return normalize(s) if key is None else key


def _is_own_key(s: str) -> bool:
    """The stripped loc is its own key: _FAST_KEY_RE's shape, no dot segment, no lower-case escape."""
    return bool(
        s.isascii()  # O(1) for a str: non-ASCII locs skip the regex
        and _FAST_KEY_RE.match(s)
        and "/." not in s
        and s[-1] != "?"
        and ("%" not in s or not _LOWER_ESCAPE_RE.search(s))
    )


def _simple_key(s: str) -> str | None:
    """normalize(s) for a loc of the _SIMPLE_RE shape, or None to take the full path."""
    m = _SIMPLE_RE.match(s)
    if m is None or len(s) > MAX_FETCH_URL_LEN:
        return None
    scheme_raw, host, port, rest = m.groups()
    if ".." in host or host[:1] == "." or host[-1:].isdigit():
        return None  # refused, or an IP address (which httpx checks more strictly)
    scheme = scheme_raw.lower()
    netloc = host.lower()
    if port is not None:
        number = int(port)
        if number == 0 or number > 65535:
            return None
        if number != _DEFAULT_PORTS[scheme]:
            netloc += f":{number}"
    path, sep, query = (rest or "/").partition("?")
    if "/." in path:
        path = remove_dot_segments(path) or "/"
    try:
        path = one_encoding(path)
        if query:
            query = one_encoding(query)
    except UnicodeError:
        return None
    return f"{scheme}://{netloc}{path}?{query}" if query else f"{scheme}://{netloc}{path}"


def stored_key(key: str | None, url: str | None) -> str | None:
    """How the store keeps a key: NULL when it is the URL itself (most rows: no second copy of
    the URL), '' when there is none."""
    if key is None:
        return ""
    return None if key == url else key


def hreflang_link(rel: str | None, lang: str | None, href: str | None) -> tuple[str, str] | None:
    """(language, target key) of a rel=alternate link with a language and an http(s) target,
    the links the hreflang rules compare; None for any other link."""
    if rel is None or lang is None or rel.strip().lower() != "alternate":
        return None
    lang = lang.strip().lower()
    if not lang:
        return None
    target = url_key(href)
    return (lang, target) if target is not None else None


_NO_LINK: tuple[None, None, None] = (None, None, None)


def link_columns(rel: str | None, lang: str | None, href: str | None) -> tuple[tuple[str, str] | None, str | None, str | None]:
    """One xhtml:link: its hreflang_link, and the (lang, tgt) columns the store keeps for it.

    hreflang_link and stored_key written out in one function: three calls per link were a
    third of the time a heavy file's rows took."""
    if rel is None or lang is None or (rel != "alternate" and rel.strip().lower() != "alternate"):
        return _NO_LINK
    lang = lang.strip().lower()
    if not lang:
        return _NO_LINK
    target = url_key(href)
    if target is None:
        return _NO_LINK
    return (lang, target), lang, (None if target == href else target)


def entry_columns(loc: str | None, links: list[tuple[str, str]], secret: bytes) -> tuple[str | None, int, int | None]:
    """One entry's (key, alt_n, alt_h) columns, from its loc and its hreflang links."""
    alt_n, alt_h = set_signature(links, secret) if links else (0, None)
    return stored_key(url_key(loc), loc), alt_n, alt_h


def set_signature(pairs: Iterable[tuple[str, str]], secret: bytes) -> tuple[int, int]:
    """(count, 62-bit keyed hash) of a set of (language, target) pairs: two entries list the
    same set exactly when their signatures match (up to a 2^-62 chance).

    Keyed BLAKE2b over the sorted pairs, so every worker process computes the same value (the
    store holds the key), and a site cannot craft two different sets that collide to hide an
    inconsistent cluster."""
    distinct = sorted(set(pairs))
    h = _keyed(secret).copy()
    h.update("\n".join([f"{lang} {target}" for lang, target in distinct]).encode("utf-8", "surrogatepass"))
    return len(distinct), int.from_bytes(h.digest(), "little") >> 2  # fits SQLite's signed 64 bits


@lru_cache(maxsize=8)  # one store's key per run, in practice
def _keyed(secret: bytes) -> Any:
    """The keyed BLAKE2b state before any data, copied for each set: keying a fresh one costs
    as much as hashing a three-link set."""
    return hashlib.blake2b(digest_size=8, key=secret)

"""Fast URL analysis for the per-entry rules (``loc-*``, ``location-*``, extension URLs).

One precompiled RFC 3986 split per URL (no ``urlsplit``), then cheap string tests; the
regexes run only when a cheap pre-test says they can match. Nothing here raises.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sitemap_tui.engine.urlpolicy import canonical_host, not_dotted_quad, remove_dot_segments

HTTP_SCHEMES = frozenset({"http", "https"})
DEFAULT_PORTS = {"http": "80", "https": "443"}
MAX_LOC_LEN = 2048  # <loc> must be *less than* 2,048 characters

# RFC 3986 appendix B, with a real scheme: scheme ":" ["//" authority] path ["?" query] ["#" fragment]
URI_RE = re.compile(
    r"([A-Za-z][A-Za-z0-9+.\-]*):(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?", re.S
)
# The common case, a lower-case http(s) URL: only the authority needs a regex (URI_RE scans the
# whole URL with five groups, about six times slower); the rest is split with str.partition.
_HTTP_AUTH_RE = re.compile(r"https?://([^/?#]*)")
# The common shape of a sitemap URL: lower-case http(s), a lower-case ASCII host name (no port,
# no userinfo), a path of characters sent as they are, perhaps a query of the same; no escape,
# fragment, ';' or character to escape. Every syntax test but the host's (cached per host) and,
# for a <loc>, the dot segments' passes for it, so one match answers (``_common_parts``).
_COMMON_RE = re.compile(
    r"(https?)://([a-z0-9.\-]+)(/[A-Za-z0-9\-._~!$&'()*+,=:@/]*)(\?[A-Za-z0-9\-._~!$&'()*+,=:@/?]*)?\Z"
)
# "www.example.com:8080/page", "localhost:80": a host and port, not a scheme
_HOSTPORT_RE = re.compile(r"[A-Za-z0-9.\-]+:\d+(?:[/?#]|$)")
# Characters never allowed raw in a URI/IRI: controls, space, C1, <>"{}|\^` and Unicode spaces
_BAD_CHAR_RE = re.compile(r"[\x00-\x20\x7f-\x9f<>\"{}|\\^`\s\ufffe\uffff]")
# the same set for an ASCII string (most URLs): without \s and the non-ASCII ranges the search
# runs on a plain bitmap, a third faster
_BAD_ASCII_CHAR_RE = re.compile(r"[\x00-\x20\x7f<>\"{}|\\^`]")
_BAD_PCT_RE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_LOWER_PCT_RE = re.compile(r"%(?:[0-9a-f][a-f]|[a-f][0-9a-f])")
_DOT_SEG_RE = re.compile(r"(?:^|/)\.\.?(?:/|$)")
# reg-name characters (RFC 3986) plus any non-ASCII (IRI ucschar; reported as not escaped)
_HOST_BAD_RE = re.compile(r"[^A-Za-z0-9.\-_~!$&'()*+,;=%\u00a0-\U0010ffff]")
_SESSION_RE = re.compile(
    r"[;?&](?:jsessionid|phpsessid|sid|sessionid|zenid|oscsid|aspsessionid[a-z]*)=", re.I
)
_TRACKING_RE = re.compile(r"(?:^|[&;])(utm_[^=&;]*|gclid|fbclid|msclkid|mc_cid)(?=[=&;]|$)", re.I)
_STAGING_PREFIXES = ("staging.", "dev.", "test.")

_CHAR_NAMES = {" ": "a space", "\t": "a tab", "\n": "a line break", "\r": "a carriage return"}


@dataclass(slots=True)
class UrlParts:
    """An absolute http(s) URL split once."""

    scheme: str  # lower-case
    host: str  # urlpolicy.canonical_host: lower-case, IDNA (brackets removed for IPv6)
    port: str | None  # effective port: None for no port, an empty port or the default one
    path: str  # "" when empty
    query: str | None
    fragment: str | None


Origin = tuple[str, str, str | None]
"""(scheme, host, port) as UrlParts holds them: one site."""


def site_label(p: UrlParts, base: UrlParts | None = None) -> str:
    """``p``'s host as a location finding names it: with its port off the default, and its
    scheme when that is not ``base``'s (each origin is a tally, and a cross-submission, of its
    own: "host 'a.example'" beside "URLs on 'a.example' are accepted" read as a contradiction)."""
    host = f"[{p.host}]" if ":" in p.host else p.host  # an IPv6 address, as a URL writes it
    label = host if p.port is None else f"{host}:{p.port}"
    return label if base is None or p.scheme == base.scheme else f"{p.scheme}://{label}"


def split_uri(s: str) -> tuple[str, str | None, str, str | None, str | None] | None:
    """``URI_RE.match(s).groups()``: (scheme, authority, path, query, fragment), or ``None``
    when ``s`` has no scheme; the same answer, found faster for a lower-case http(s) URL."""
    m = _HTTP_AUTH_RE.match(s)
    if m is None:
        full = URI_RE.match(s)
        if full is None:
            return None
        scheme, auth, path, query, fragment = full.groups()
        return scheme, auth, path, query, fragment
    rest = s[m.end() :]
    rest, hash_, fragment = rest.partition("#")
    path, qmark, query = rest.partition("?")
    return (
        "https" if s[4] == "s" else "http",
        m.group(1),
        path,
        query if qmark else None,
        fragment if hash_ else None,
    )


def _http_authority(s: str) -> str | None:
    """The authority of ``s`` when it starts with a lower-case ``http(s)://`` (else ``None``)."""
    m = _HTTP_AUTH_RE.match(s)
    return None if m is None else m.group(1)


def bad_char(s: str) -> re.Match[str] | None:
    """The first character of ``s`` never allowed raw in a URI/IRI (``_BAD_CHAR_RE``)."""
    return (_BAD_ASCII_CHAR_RE if s.isascii() else _BAD_CHAR_RE).search(s)


def describe_char(ch: str) -> str:
    return _CHAR_NAMES.get(ch) or f"the character {ch!r}"


# A sitemap's URLs share a handful of hosts: the per-host work is done once per host (bounded,
# so a file of a million different hosts only cycles the cache).
@lru_cache(maxsize=4096)
def split_hostport(hostport: str) -> tuple[str, str | None, str | None]:
    """``(host, port or None, error or None)`` for the host[:port] part of an authority."""
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0:
            return "", None, "unclosed '[' in the host"
        host = hostport[1:end]
        rest = hostport[end + 1 :]
        if not host.lower().startswith("v"):
            try:
                ipaddress.IPv6Address(host)
            except ValueError:
                return host, None, f"invalid IPv6 address [{host}]"
        if rest and not rest.startswith(":"):
            return host, None, "characters after the IPv6 address"
        port = rest[1:] if rest else None
    else:
        host, sep, port_s = hostport.partition(":")
        port = port_s if sep else None
        if not host:
            return host, port, "empty host"
        m = _HOST_BAD_RE.search(host)
        if m is not None:
            return host, port, f"invalid character {m.group()!r} in the host"
        if ".." in host or host.startswith("."):
            return host, port, "empty label in the host name"
        if not_dotted_quad(host):
            return host, port, f"{host!r} is no IPv4 address in dotted-decimal form (four numbers 0-255, no leading zero)"
    if port:
        if not (port.isascii() and port.isdigit()):
            return host, port, f"invalid port {port!r}"
        if len(port) > 5 or int(port) > 65535:
            return host, port, f"port {port} out of range"
    return host, port, None


def url_problem(s: str) -> str | None:
    """Why ``s`` (already stripped) is not a valid absolute http(s) URL, or ``None``.

    Used for URLs that do not get the full ``loc-*`` treatment: image and video URLs, index
    children, hreflang targets.
    """
    return url_problem_and_host(s)[0]


def url_problem_and_host(s: str) -> tuple[str | None, str | None]:
    """:func:`url_problem`, and the host (canonical_host) when there is no problem (one split for
    both: an image URL is checked and then compared with its page's host)."""
    if not s:
        return "empty", None
    if len(s) >= MAX_LOC_LEN:
        return f"{len(s):,} characters long (2,048 or more)", None
    m = _COMMON_RE.match(s)
    if m is not None:  # no character, escape or userinfo to judge: only the host
        return _host_verdict(m.group(2))
    auth = _http_authority(s)
    if auth is None:
        m = URI_RE.match(s)
        if m is None or (m.group(2) is None and _HOSTPORT_RE.match(s)):
            return "not an absolute URL", None
        scheme = m.group(1).lower()
        if scheme not in HTTP_SCHEMES:
            return f"scheme {scheme[:20]!r} is not http or https", None
        auth = m.group(2)
    if not auth:
        return "no host", None
    bad = bad_char(s)
    if bad is not None:
        return f"contains {describe_char(bad.group())}", None
    if "%" in s and _BAD_PCT_RE.search(s):
        return "bad percent-encoding", None
    return _host_verdict(auth.rpartition("@")[2])


@lru_cache(maxsize=4096)
def _host_verdict(hostport: str) -> tuple[str | None, str | None]:
    """``(error, None)`` or ``(None, canonical host)`` of a host[:port]: the URLs of a file
    share a few hosts, so both are worked out once per host."""
    host, _, err = split_hostport(hostport)
    return err, (None if err else canonical_host(host))


def absolute_url_problem(s: str, schemes: frozenset[str] = HTTP_SCHEMES) -> str | None:
    """Why ``s`` (stripped) is not an absolute URL with one of ``schemes`` and a usable host,
    or ``None``. Only the shape is checked (a character that should have been escaped is not a
    reason): for the URL fields of extensions (video files, hreflang targets), where a value
    such as ``None`` written by a CMS must not pass."""
    if not s:
        return "empty"
    if schemes is HTTP_SCHEMES:
        m = _COMMON_RE.match(s)
        if m is not None:
            return split_hostport(m.group(2))[2]
    auth = _http_authority(s) if schemes is HTTP_SCHEMES else None
    if auth is None:
        m = URI_RE.match(s)
        if m is None or (m.group(2) is None and _HOSTPORT_RE.match(s)):
            return "not an absolute URL"
        scheme = m.group(1).lower()
        if scheme not in schemes:
            return f"scheme {scheme[:20]!r} is not {' or '.join(sorted(schemes))}"
        auth = m.group(2)
    if not auth:
        return "no host"
    return split_hostport(auth.rpartition("@")[2])[2]


def is_absolute(s: str) -> bool:
    """True when ``s`` starts with ``scheme://`` (an absolute URL with an authority)."""
    m = URI_RE.match(s)
    return m is not None and m.group(2) is not None


@lru_cache(maxsize=4096)
def private_host_reason(host: str) -> str | None:
    """Why ``host`` (lower-case) looks local, private or staging; ``None`` when it does not."""
    if host == "localhost" or host.endswith(".localhost"):
        return "local (localhost)"
    if host.endswith(".local"):
        return "local (.local)"
    # a label above a domain (dev.example.com); dev.to and test.de are sites' own domains
    if host.startswith(_STAGING_PREFIXES) and host.count(".") >= 2:
        return "like a staging or development host"
    if host[:1].isdigit() or ":" in host:
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return None
        if ip.is_loopback:
            return "local (loopback address)"
        if ip.is_link_local:
            return "local (link-local address)"
        if ip.is_private:
            return "private (private IP address)"
    return None


@dataclass(slots=True)
class LocFinding:
    rule: str
    fields: dict[str, Any]


def analyze_loc(s: str, out: list[LocFinding]) -> tuple[UrlParts | None, bool]:
    """Run the ``loc-*`` syntax rules on ``s`` (stripped, non-empty).

    Appends findings to ``out``; returns the split URL (``None`` when it is not an absolute
    http(s) URL with a valid host, so the location rules cannot run) and whether ``s`` is
    already in normal form (then it is its own duplicate key).
    """
    if len(s) < MAX_LOC_LEN:
        m = _COMMON_RE.match(s)
        if m is not None and m.group(4) is None:
            scheme, host, path, _ = m.groups()
            private = _common_host(host)
            # a dot segment is a finding; a query has the session and tracking tests
            if private is not None and not ("." in path and _DOT_SEG_RE.search(path)):
                if private:
                    out.append(LocFinding("loc-private-host", {"host": host, "reason": private}))
                return UrlParts(scheme, host, None, path, None, None), True
    return analyze_loc_full(s, out)


@lru_cache(maxsize=4096)
def _common_host(host: str) -> str | None:
    """For a host name of ``_COMMON_RE``'s shape: ``None`` when it is invalid (the full analysis
    words why), else why it looks private (``private_host_reason``), ``""`` when it does not."""
    if split_hostport(host)[2] is not None:
        return None
    return private_host_reason(host) or ""


def analyze_loc_full(s: str, out: list[LocFinding]) -> tuple[UrlParts | None, bool]:
    """:func:`analyze_loc` for every shape of URL (what its shortcut answers for the common one)."""
    if len(s) >= MAX_LOC_LEN:
        out.append(LocFinding("loc-too-long", {"length": len(s)}))
    groups = split_uri(s)
    if groups is None:
        out.append(LocFinding("loc-not-absolute", {"value": s}))
        return None, False
    scheme, auth, path, query, fragment = groups
    sl = scheme if scheme in HTTP_SCHEMES else scheme.lower()
    if sl not in HTTP_SCHEMES:
        if auth is None and _HOSTPORT_RE.match(s):
            out.append(LocFinding("loc-not-absolute", {"value": s}))
        else:
            out.append(LocFinding("loc-bad-scheme", {"scheme": scheme}))
        return None, False
    if not auth:
        why = "no host ('//' missing)" if auth is None else "empty host"
        out.append(LocFinding("loc-invalid-uri", {"reason": why}))
        return None, False
    normal = True
    reasons: list[str] = []
    bad = bad_char(s)
    if bad is not None:
        normal = False  # sent escaped: normalize() gives the key other spellings share
        out.append(
            LocFinding("loc-invalid-uri", {"reason": f"contains {describe_char(bad.group())}"})
        )
    if "@" in auth:
        userinfo, _, hostport = auth.rpartition("@")
        user, colon, _ = userinfo.partition(":")
        out.append(LocFinding("loc-userinfo", {"userinfo": user + (":***" if colon else "")}))
    else:
        hostport = auth
    host, port, err = split_hostport(hostport)
    if err is not None:
        out.append(LocFinding("loc-invalid-uri", {"reason": err}))
        return None, False
    if port is not None:
        if port == "":
            reasons.append("empty port")
            port = None
        elif port == DEFAULT_PORTS[sl]:
            reasons.append(f"explicit default port :{port}")
            port = None
    if scheme != sl:
        reasons.append("upper-case scheme")
    host_l = host.lower()
    if host_l != host:
        reasons.append("upper-case host")
    if not path:
        reasons.append("empty path instead of /")
    elif "." in path and _DOT_SEG_RE.search(path):
        reasons.append("dot-segments in the path")
    if "%" in s:
        bp = _BAD_PCT_RE.search(s)
        if bp is not None:
            i = bp.start()
            out.append(LocFinding("loc-bad-percent-encoding", {"snippet": s[i : i + 3]}))
        lp = _LOWER_PCT_RE.search(s)
        if lp is not None:
            reasons.append(f"lower-case percent-escape {lp.group()}")
    if reasons:
        normal = False
        out.append(LocFinding("loc-not-normalized", {"reason": ", ".join(reasons)}))
    if not s.isascii():
        normal = False  # sent as UTF-8 escapes: one key with the escaped spelling
        parts = [
            name
            for name, value in (
                ("host", host),
                ("path", path),
                ("query", query),
                ("fragment", fragment),
            )
            if value and not value.isascii()
        ]
        if parts:
            part = " and ".join(parts)
            if "host" in parts:
                part += " (an IDN host should be punycode, xn--)"
            out.append(LocFinding("loc-not-url-escaped", {"part": part}))
    if fragment is not None:
        normal = False
        out.append(LocFinding("loc-has-fragment", {"fragment": "#" + fragment}))
    if "?" in s or ";" in s:
        head = s if fragment is None else s[: len(s) - len(fragment) - 1]
        sm = _SESSION_RE.search(head)
        if sm is not None:
            out.append(LocFinding("loc-session-id", {"match": sm.group()[1:]}))
        if query:
            tm = _TRACKING_RE.search(query)
            if tm is not None:
                out.append(LocFinding("loc-tracking-params", {"param": tm.group(1)}))
    private = private_host_reason(host_l)
    if private is not None:
        out.append(LocFinding("loc-private-host", {"host": host_l, "reason": private}))
    if query == "":
        normal = False  # "http://h/p?" : let normalize() decide the duplicate key
    # hosts are compared in one form: bücher.example is xn--bcher-kva.example
    key_host = host_l if host_l.isascii() else canonical_host(host_l)
    return UrlParts(sl, key_host, port, path, query, fragment), normal


def split_base(url: str | None) -> UrlParts | None:
    """The sitemap's own URL split for the location rules (``None`` unless absolute http(s))."""
    if not url:
        return None
    m = URI_RE.match(url.strip())
    if m is None:
        return None
    scheme, auth, path, query, fragment = m.groups()
    sl = scheme.lower()
    if sl not in HTTP_SCHEMES or not auth:
        return None
    host, port, err = split_hostport(auth.rpartition("@")[2])
    if err is not None:
        return None
    if port == "" or port == DEFAULT_PORTS[sl]:
        port = None
    return UrlParts(sl, canonical_host(host), port, path, query, fragment)


def directory_of(path: str) -> str:
    """The directory part of a URL path as :func:`comparable_path` has it, ending in ``/``
    (``/`` for an empty path)."""
    if not path:
        return "/"
    path = comparable_path(path)
    return path[: path.rfind("/") + 1] or "/"


_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PERCENT_RE = re.compile(r"%([0-9A-Fa-f]{2})")


def _percent(m: re.Match[str]) -> str:
    ch = chr(int(m.group(1), 16))
    return ch if ch in _UNRESERVED else "%" + m.group(1).upper()


def comparable_path(path: str) -> str:
    """A URL path as RFC 3986 §6.2.2 compares it: dot-segments removed (``/sub/../s.xml`` is
    ``/s.xml``; httpx resolves them too) and unreserved characters percent-decoded (``/%63at``
    is ``/cat``), so one path written two ways is one (found from outside: a sitemap URL with
    ``..`` put every URL "outside" its directory)."""
    # decoded first, as §6.2.2.2 comes before §6.2.2.3: "/sub/%2e%2e/" is a dot-segment too
    if "%" in path:
        path = _PERCENT_RE.sub(_percent, path)
    if "/." in path:
        path = remove_dot_segments(path)
    return path

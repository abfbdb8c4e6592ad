"""``--map URL=DIR``: a site's build directory read in place of the deployed site (issue 21).

A URL under a mapped prefix is answered from the directory, so a build can be validated before
it is served: the node keeps the mapped URL, and location and host rules judge it as they would
judge the deployed site. Only files inside the directory are ever read: the URL's path is
percent-decoded, resolved (symlinks included) and checked to stay under the directory."""

from __future__ import annotations

import contextlib
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import SplitResult, quote, unquote, urlsplit

from sitemap_tui.engine.urlpolicy import canonical_host


@dataclass(frozen=True, slots=True)
class LocalMap:
    """One ``--map``: URLs starting with ``prefix`` (scheme://host/path/) come from ``root``."""

    prefix: str
    root: Path  # resolved, an existing directory
    shown: str  # the directory as the user wrote it, for messages


@dataclass(frozen=True, slots=True)
class MapHit:
    """Where a mapped URL's bytes are: ``path``, or ``error`` when the directory cannot answer
    (missing file, a path leaving the directory); ``status`` is the HTTP status it stands for."""

    url: str
    path: Path | None
    error: str | None = None
    status: int = 200
    # how the file was found when not at the URL's own path, as static hosts answer: "clean"
    # (/contact from contact.html) or "query" (the query string ignored); None: at its path
    served_as: str | None = None


def parse_map(value: str) -> LocalMap:
    """``https://example.com/=./public/`` -> LocalMap; ValueError with a one-line reason."""
    url, sep, directory = value.partition("=")
    if not sep or not url or not directory:
        raise ValueError(f"bad --map {value!r}: expected URL=DIRECTORY, e.g. https://example.com/=./public/")
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError(f"bad --map {value!r}: {url!r} is not an http(s) URL with a host")
    if parts.query or parts.fragment:
        raise ValueError(f"bad --map {value!r}: the URL prefix cannot have a query or fragment")
    if "@" in parts.netloc:
        # never matched (URLs are looked up without user info), and its password was printed
        # in "read as" lines: refused, without repeating it
        raise ValueError(f"bad --map {parts.scheme}://…@{parts.hostname}/: the URL prefix cannot hold a user name "
                         "or password (a build folder needs none)")
    root = Path(directory).expanduser()
    if not root.is_dir():
        raise ValueError(f"bad --map {value!r}: {directory!r} is not a directory")
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    scheme = parts.scheme.lower()
    try:
        netloc = _netloc(scheme, parts)
    except ValueError:
        raise ValueError(f"bad --map {value!r}: {url!r} has a bad port") from None
    return LocalMap(f"{scheme}://{netloc}{path}", root.resolve(), directory)


def parse_maps(values: list[str] | tuple[str, ...]) -> tuple[LocalMap, ...]:
    """All ``--map`` values, the longest prefix first (a more specific mapping wins)."""
    maps = [parse_map(v) for v in values]
    return tuple(sorted(maps, key=lambda m: len(m.prefix), reverse=True))


def _netloc(scheme: str, parts: SplitResult) -> str:
    """The host (and port) as hosts are compared (lower case, an IDN as its ``xn--`` form, as
    it goes on the wire), without user info or the scheme's default port:
    https://example.com:443/ is https://example.com/ (an index listed its children so, and the
    map missed them), https://bücher.example/ is https://xn--bcher-kva.example/ (each spelling
    missed the other's URLs, which were fetched from the network). ValueError: a bad port."""
    host = canonical_host(parts.hostname or "")
    if ":" in host:  # an IPv6 literal, in one spelling ([0:0:0:0:0:0:0:1] is [::1])
        with contextlib.suppress(ValueError):
            host = ipaddress.IPv6Address(host).compressed
        host = f"[{host}]"
    port = parts.port
    return host if port is None or port == (443 if scheme == "https" else 80) else f"{host}:{port}"


def _key(url: str) -> str | None:
    """``url`` with its scheme and host lowercased (as the prefix is), or None if not http(s)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        return None
    try:
        netloc = _netloc(scheme, parts)
    except ValueError:  # a bad port: no prefix names it
        return None
    return f"{scheme}://{netloc}{parts.path or '/'}"


def _covering(maps: tuple[LocalMap, ...], url: str) -> tuple[LocalMap, str] | None:
    """The mapping that covers ``url`` (the longest prefix: ``maps`` is in that order) and the
    rest of the URL's path after its prefix; None when none does."""
    key = _key(url) if maps else None
    if key is None:
        return None
    return next(((m, key[len(m.prefix):]) for m in maps if key.startswith(m.prefix)), None)


def lookup(maps: tuple[LocalMap, ...], url: str) -> MapHit | None:
    """Where ``url`` is read from when a mapping covers it; None when none does (fetch it)."""
    found = _covering(maps, url)
    return None if found is None else _locate(found[0], url, found[1])


def _locate(m: LocalMap, url: str, rest: str) -> MapHit:
    hit = _at_path(m, url, unquote(rest))
    if hit.path is not None and urlsplit(url).query:
        # static hosts (GitHub Pages, Netlify, Cloudflare Pages, nginx) answer a static file's
        # URL with a query string with the file: the caller says so (MapHit.served_as)
        return MapHit(url, hit.path, served_as="query")
    return hit


def _at_path(m: LocalMap, url: str, relative: str) -> MapHit:
    try:
        return _find(m, url, relative)
    except OSError as exc:  # a name too long for the file system, a folder it may not read...
        return MapHit(url, None, f"not read from {m.shown}: {relative!r} ({exc.strerror or exc})", 404)


def _find(m: LocalMap, url: str, relative: str) -> MapHit:
    hidden = next((part for part in relative.split("/")
                   if part.startswith(".") and part not in (".", "..", ".well-known")), None)  # (RFC 8615's is public)
    if hidden is not None:
        # .ssh, .git, .env, .git-credentials: no build serves them as a page or a sitemap, and
        # a hostile index in the folder could name them (a site read from a folder, --map or not)
        return MapHit(url, None, f"refused: {relative!r} is a hidden file or folder ({hidden}), never read", 403)
    try:
        # resolve() follows symlinks and folds "..": what is left must still be under the root
        path = (m.root / relative).resolve()
    except (OSError, ValueError, RuntimeError) as exc:
        return MapHit(url, None, f"not read from {m.shown}: {relative!r} is not a usable path ({exc})", 404)
    if not path.is_relative_to(m.root):
        return MapHit(url, None, f"refused: {relative!r} leads outside {m.shown}"
                      + (" (through a symlink)" if _through_symlink(m.root, relative) else ""), 403)
    if path.is_dir():
        # as static hosts serve a build: a folder's URL is its index.html (the pages an audit reads)
        index = path / "index.html"
        if index.is_file() and index.resolve().is_relative_to(m.root):
            return MapHit(url, index.resolve())
        clean = _clean(m, url, relative)  # /blog beside blog/ (Next.js's export without trailingSlash)
        if clean is not None:
            return clean
        return MapHit(url, None, f"not found in {m.shown}: {relative or '/'} is a directory", 404)
    if not path.exists():
        return _clean(m, url, relative) or MapHit(url, None, f"not found in {m.shown}: {relative}", 404)
    return MapHit(url, path)


def _clean(m: LocalMap, url: str, relative: str) -> MapHit | None:
    """A clean URL's page: /contact is contact.html on the static hosts above (Next.js, Jekyll
    and Astro builds write it so); None for a name with an extension or a trailing / or dot."""
    name = relative.rsplit("/", 1)[-1]
    if not name or name.endswith(".") or Path(name).suffix:
        return None
    page = (m.root / f"{relative}.html").resolve()
    if page.is_file() and page.is_relative_to(m.root):
        return MapHit(url, page, served_as="clean")
    return None


def mapped_path(maps: tuple[LocalMap, ...], url: str) -> Path | None:
    """The file a mapped URL stands for in its folder, whether or not it is there (a report
    names a missing child sitemap by it); None when no mapping covers the URL or its path
    would leave the folder."""
    found = _covering(maps, url)
    if found is None:
        return None
    m, rest = found
    path = Path(os.path.normpath(m.root / unquote(rest)))
    return path if path.is_relative_to(m.root) else None


def read_from(maps: tuple[LocalMap, ...], url: str) -> str | None:
    """The local file a mapped URL's bytes come from (for the Overview and ``stats``)."""
    hit = lookup(maps, url)
    return str(hit.path) if hit is not None and hit.path is not None else None


def _through_symlink(root: Path, relative: str) -> bool:
    """True when the path leaves the root only because of a symlink (not by ``..``)."""
    current = root
    for part in Path(relative).parts:
        if part in ("..", "/"):
            return False
        current = current / part
        if current.is_symlink():
            return True
    return False


def url_for_path(maps: tuple[LocalMap, ...], local: Path) -> str | None:
    """The URL a local file or directory inside a mapped directory stands for; None outside."""
    try:
        path = local.expanduser().resolve()
    except (OSError, RuntimeError):
        return None
    for m in maps:
        if path == m.root:
            return m.prefix
        if path.is_relative_to(m.root):
            relative = path.relative_to(m.root).as_posix()
            return m.prefix + quote(relative) + ("/" if path.is_dir() else "")
    return None

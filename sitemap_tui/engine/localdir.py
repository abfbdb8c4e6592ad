"""Which files of a local folder are sitemaps.

A folder given as the target is a site's build output (``./public``): robots.txt and sitemaps
beside pages, styles, ``ads.txt``, ``humans.txt`` and ``browserconfig.xml``. A file is read as a
sitemap when

- its name says so: ``sitemap`` in a name with a sitemap suffix (``sitemap.xml``,
  ``post-sitemap.xml``, ``sitemap-0.xml.gz``, ``sitemap.txt``), whatever it holds, so that a
  broken one is reported rather than passed over;
- its content is one: a file with a sitemap suffix whose first bytes sniff as a urlset, an index,
  an RSS or Atom feed or a list of URLs (the parser's own sniffing, through the bounded decoder);
- the folder's robots.txt or one of its indexes lists it. The folder is taken as the site's root:
  ``https://example.com/pages.xml`` names the folder's ``pages.xml``.

Everything else is skipped and said (``FolderScan.notes``). Only the folder's own files are
read, not its subfolders."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from sitemap_tui.engine.decode import BodyDecoder, DecodeError
from sitemap_tui.engine.findings import Finding
from sitemap_tui.engine.model import ChildRef, NodeKind
from sitemap_tui.engine.robots import parse_robots
from sitemap_tui.engine.sniff import SNIFF_MAX, SniffingParser
from sitemap_tui.words import plural

LOCAL_SUFFIXES = (".xml", ".xml.gz", ".gz", ".txt", ".rss", ".atom")
"""Suffixes of the files a folder target may hold as sitemaps (and of a path given as a target)."""
SITEMAP_KINDS = frozenset({NodeKind.INDEX, NodeKind.URLSET, NodeKind.RSS, NodeKind.ATOM, NodeKind.TEXT})
# decoded bytes read from each index to learn the files it lists (the protocol's 50 MiB)
INDEX_MAX_BYTES = 50 * 1024 * 1024
ROBOTS_MAX_BYTES = 500 * 1024  # as for a fetched robots.txt
CHUNK = 64 * 1024
NAMED_IN_NOTES = 5  # skipped files named in a note; the rest are counted


@dataclass(frozen=True, slots=True)
class FolderScan:
    folder: Path
    robots: Path | None  # the folder's robots.txt
    sitemaps: tuple[Path, ...]  # sorted by name
    skipped: tuple[tuple[str, str], ...]  # (name, why): a sitemap suffix, but not a sitemap
    other_files: tuple[str, ...]  # names without a sitemap suffix, not listed by anything
    subfolders: int  # not searched
    by_name: dict[str, Path] = field(default_factory=dict)  # the sitemaps by file name
    indexes: tuple[Path, ...] = ()  # the sitemaps that sniffed as indexes
    outside: tuple[str, ...] = ()  # symlinks leading out of the folder: never read
    hidden: tuple[str, ...] = ()  # .DS_Store, ._sitemap.xml (macOS), .env: never a site's file
    sniffed: frozenset[str] = frozenset()  # names whose content sniffed as a sitemap (a probe takes them)

    def files(self) -> list[Path]:
        """What to read: robots.txt first (it names the site), then the sitemaps."""
        return ([self.robots] if self.robots is not None else []) + list(self.sitemaps)

    def local_for(self, url: str) -> Path | None:
        """The folder's file that ``url`` names (the folder being the site's root), if it is
        one of the sitemaps read."""
        return _by_site_path(url, self.by_name)

    def notes(self) -> list[str]:
        """What was not read, and why: one sentence per cause."""
        out = []
        if self.skipped:
            n = len(self.skipped)
            named = ", ".join(f"{name} ({why})" for name, why in self.skipped[:NAMED_IN_NOTES])
            more = f", and {n - NAMED_IN_NOTES:,} more" if n > NAMED_IN_NOTES else ""
            out.append(f"{plural(n, 'file')} skipped, not {'a sitemap' if n == 1 else 'sitemaps'} "
                       f"by name or content: {named}{more}")
        if self.other_files:
            kinds = Counter(_suffix(name) for name in self.other_files)
            shown = ", ".join(kind for kind, _ in kinds.most_common(NAMED_IN_NOTES))
            out.append(f"{plural(len(self.other_files), 'other file')} skipped: not sitemap file names ({shown})")
        if self.outside:
            named = ", ".join(self.outside[:NAMED_IN_NOTES])
            more = f", and {len(self.outside) - NAMED_IN_NOTES:,} more" if len(self.outside) > NAMED_IN_NOTES else ""
            out.append(f"{plural(len(self.outside), 'symlink')} leading outside the folder, not read (a file "
                       f"there may not be the build's; give it as the target to read it): {named}{more}")
        if self.hidden:
            named = ", ".join(self.hidden[:NAMED_IN_NOTES])
            more = f", and {len(self.hidden) - NAMED_IN_NOTES:,} more" if len(self.hidden) > NAMED_IN_NOTES else ""
            out.append(f"{plural(len(self.hidden), 'hidden file')} not read (.DS_Store, ._* and the like are no "
                       f"build's sitemaps; give one as the target to read it): {named}{more}")
        if self.subfolders:
            out.append(f"{plural(self.subfolders, 'subfolder')} not searched: only the folder's own "
                       f"files are read")
        return out


def scan_folder(folder: Path) -> FolderScan:
    robots: Path | None = None
    picked: dict[str, Path] = {}
    not_sitemaps: dict[str, tuple[Path, str]] = {}  # a sitemap suffix, not a sitemap: why
    others: dict[str, Path] = {}  # not a sitemap file name
    subfolders = 0
    indexes: list[Path] = []
    outside: list[str] = []  # symlinks out of the folder: never opened, said
    hidden: list[str] = []
    sniffed: set[str] = set()
    for path in sorted(folder.iterdir(), key=lambda p: p.name):
        if path.is_dir():
            subfolders += 1
            continue
        if path.name.startswith("."):
            # as a mapped site never serves them (localmap._find): a macOS tarball's
            # ._sitemap.xml, binary, was read as a sitemap by its name (found by a review)
            hidden.append(path.name)
            continue
        if path.is_symlink() and not inside(folder, path):
            outside.append(path.name)
            continue
        name = path.name.lower()
        if not path.is_file() or not name.endswith(LOCAL_SUFFIXES) and name != "robots.txt":
            others[path.name] = path  # a FIFO or a device is never opened
            continue
        if name == "robots.txt":
            robots = path
            continue
        kind, why = sniff_file(path)
        if kind in SITEMAP_KINDS:
            sniffed.add(path.name)
        if kind in SITEMAP_KINDS or "sitemap" in name:
            picked[path.name] = path
            if kind == NodeKind.INDEX:
                indexes.append(path)
        else:
            not_sitemaps[path.name] = (path, why)
    # what robots.txt and the indexes list is a sitemap, whatever its name or content
    for name in _listed(robots, indexes):
        if name in not_sitemaps:
            picked[name] = not_sitemaps.pop(name)[0]
        elif name in others and others[name].is_file():
            picked[name] = others.pop(name)
    return FolderScan(
        folder=folder,
        robots=robots,
        sitemaps=tuple(picked[n] for n in sorted(picked)),
        skipped=tuple((n, why) for n, (_, why) in not_sitemaps.items()),
        other_files=tuple(others),
        subfolders=subfolders,
        by_name=dict(picked),
        indexes=tuple(indexes),
        outside=tuple(outside),
        hidden=tuple(hidden),
        sniffed=frozenset(sniffed),
    )


def sniff_file(path: Path) -> tuple[NodeKind | None, str]:
    """What the file's first bytes are (gunzipped when gzip), and in words why it is not a
    sitemap when it is not one."""
    parser = SniffingParser(path.as_uri())  # (no Content-Type: ads.txt and humans.txt are no lists of URLs)
    items: list[object] = []
    read = 0
    try:
        decoder = BodyDecoder(None, INDEX_MAX_BYTES)
        with path.open("rb") as fh:
            while parser.kind is None and read < SNIFF_MAX:
                raw = fh.read(CHUNK)
                chunks = decoder.feed(raw) if raw else decoder.finish()
                for chunk in chunks:
                    read += len(chunk)
                    items += parser.feed(chunk)
                if not raw:
                    break
        if parser.kind is None:
            items += parser.close()  # a short file: decided on all of it
    except DecodeError as exc:
        return None, exc.message
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    kind = parser.kind
    if kind in SITEMAP_KINDS:
        return kind, ""
    findings = [i for i in items if isinstance(i, Finding)]
    # the sniffer's verdict (an unknown root, an HTML page) rather than a syntax error after it
    found = next((i for i in findings if i.rule in ("root-unknown", "file-is-html")), findings[0] if findings else None)
    return kind, _why_not(found)


# The folder note's own words for why a file is not a sitemap (the findings themselves are
# worded by the validation layer, which this scan runs below).
_NOT_A_SITEMAP = {
    "json": "JSON document served as a sitemap",
    "empty": "empty document: no sitemap content",
    "robots.txt": "a robots.txt under another name",
    "other": "neither XML nor a list of URLs",
}


def _why_not(found: Finding | None) -> str:
    if found is None:
        return "not a sitemap"
    if found.rule == "file-is-html":
        return "the body is an HTML page, not a sitemap"
    fields = found.fields
    if found.rule == "root-unknown":
        if fields.get("found") == "element":
            return f"root element <{fields.get('root')}> is not urlset, sitemapindex, rss or feed"
        return _NOT_A_SITEMAP.get(str(fields.get("found")), "not a sitemap")
    if found.rule == "xml-dtd-forbidden":
        return "DOCTYPE declarations are not allowed in sitemaps (entity and DTD processing is disabled)"
    error = str(fields.get("error") or found.rule)
    return error[:1].lower() + error[1:]


def _probed(scan: FolderScan, robots_url: str | None = None) -> set[str]:
    """The folder's files a site's exploration finds at its probed paths: the sitemaps there,
    when robots.txt names none (the exploration probes only then). Found from outside: a Hugo
    build's own sitemap.xml was said to be "listed by nothing, read as well"; one that is no
    sitemap there (an HTML page) is not found by the probe, and is read as well."""
    if _listed_urls(scan.robots, [], robots_url):
        return set()
    return {name for name in COMMON_PATHS if name in scan.sniffed}


def _listed(robots: Path | None, indexes: list[Path]) -> set[str]:
    """Names of the folder's files that robots.txt or an index lists."""
    return _top_level_names(_listed_urls(robots, indexes))


def _top_level_names(urls: list[str]) -> set[str]:
    """The file names of the http(s) URLs at a site's top level (``/NAME``), on any host."""
    names = set()
    for url in urls:
        parts = urlsplit(url.strip())
        if parts.scheme.lower() in ("http", "https"):
            url_path = unquote(parts.path)
            if url_path.count("/") == 1:
                names.add(url_path[1:])
    return names


def mapped_unlisted(folder: Path, url: str, local_of: Callable[[str], Path | None]) -> tuple[str, ...]:
    """Names of ``folder``'s sitemaps that neither its robots.txt nor an index there lists, a
    listed URL standing for the file ``local_of`` (the user's --map) says, ``url`` the folder's
    own (robots.txt's relative lines resolve against it): a build read through
    --map dropped them, unsaid, where the same folder read as its robots.txt's site read them
    (found from outside: a CI job's config `map` stopped checking a sitemap nothing listed)."""
    scan = scan_folder(folder)
    urls = _listed_urls(scan.robots, list(scan.indexes), url + "robots.txt")
    urls += [url + name for name in _probed(scan, url + "robots.txt")]
    # (a file listed by a URL the map does not cover, http:// beside an https:// map, another
    # host: the exploration fetches that URL from the network or not at all, never this file,
    # so it is unlisted here and read: found by a review, its findings had gone)
    listed = {path.resolve() for u in urls if (path := local_of(u.strip())) is not None}
    return tuple(p.name for p in scan.sitemaps if p.resolve() not in listed)


def _listed_urls(robots: Path | None, indexes: list[Path], robots_url: str | None = None) -> list[str]:
    """The URLs the folder's robots.txt's ``Sitemap:`` lines and its indexes list (a relative
    line against ``robots_url``, robots.txt's own URL, else its file's)."""
    urls: list[str] = []
    if robots is not None:
        try:
            with robots.open("rb") as fh:
                data = fh.read(ROBOTS_MAX_BYTES + 1)
        except OSError:
            data = b""
        urls += [line.url for line in parse_robots(data, robots_url or robots.as_uri(),
                                                   max_bytes=ROBOTS_MAX_BYTES).sitemaps]
    for path in indexes:
        urls += index_children(path)
    return urls


@dataclass(frozen=True, slots=True)
class NamedSite:
    """The site a build folder's robots.txt names, and the folder's sitemaps that nothing there
    lists (read as the site, a folder's sitemaps are found as a crawler finds them)."""

    origin: str  # scheme://host[:port]/
    folder: Path
    unlisted: tuple[str, ...]  # file names: sitemaps by name or content, listed by nothing
    by_index: bool = False  # named by an index's children there, the folder having no Sitemap: line
    others: tuple[str, ...] = ()  # other sites robots.txt names, none of whose files are here


def target_site(path: Path) -> NamedSite | None:
    """The site a local TARGET stands for: the one its folder names (:func:`named_site`; a
    folder target's indexes count too, a file target's do not). The commands read a build so,
    and keep its runs under that site.

    A file in a subfolder of the build (``public/de/sitemap.xml``, as a pre-commit hook passes
    it) stands for the site the nearest robots.txt above it names, looking no higher than the
    working directory: it was judged as a ``file:`` URL, its host and location rules silent,
    while the folder's run failed on them."""
    if path.is_dir():
        return named_site(path.resolve(), from_indexes=True)
    if (path.parent / "robots.txt").exists():
        return named_site(path.parent.resolve())
    # the folders as named, not resolved: a build folder that is a symlink (public -> elsewhere)
    # is still below the working directory
    try:
        folder, cwd = Path(os.path.abspath(path.parent)), Path(os.path.abspath(os.getcwd()))
    except OSError:
        return None
    if folder == cwd or not folder.is_relative_to(cwd):
        return None
    for up in folder.parents:
        if (up / "robots.txt").exists():
            # a build's root: its robots.txt names files of it (found from outside: a source
            # repo's robots.txt at the working directory took its test fixtures for the site's)
            return named_site(up.resolve(), named_here=True)
        if up == cwd:
            break
    return None


def named_site(folder: Path, *, from_indexes: bool = False, named_here: bool = False) -> NamedSite | None:
    """The one site whose URLs the absolute ``Sitemap:`` lines of ``folder``'s robots.txt
    name: the folder is that site's root (robots.txt lives there). When they name several, the
    one whose lines name files of the folder (:attr:`NamedSite.others` the rest); None when
    that is not one site.

    Without a ``Sitemap:`` line (or a robots.txt), and ``from_indexes`` (a folder target: the
    user named the build), the site whose top-level URLs the folder's indexes list, when one of
    them names a file of the folder. A build without robots.txt was otherwise read as no site at
    all, and an index child missing from the build passed as "on another host", unread and
    unreported. Never for a file target: a downloaded index alone then chose which files beside
    it were read, and printed their lines.

    ``named_here``: one site, too, only when its lines name a file of the folder (a robots.txt
    above a file target is a build's root only then)."""
    try:
        named = robots_sites(folder)
    except OSError:
        return None
    origins = set(named)
    others: tuple[str, ...] = ()
    if len(origins) > 1 or (named_here and origins):
        # a news or shop subdomain's sitemap named beside the site's own (found from outside: the
        # folder then stood for no site, its index's missing children went unreported, exit 0):
        # the site is the one whose lines name files of the folder, when only one does
        here = here_of(folder, named)
        if len(here) != 1:
            return None
        others = tuple(sorted(origins - here))
        origins = here
    by_index = not origins
    if by_index and not from_indexes:
        return None
    scan = scan_folder(folder)  # (each file sniffed once: the scan keeps its indexes)
    if by_index:
        origins = _index_sites(list(scan.indexes), folder)
        if len(origins) != 1:
            return None
    listed = _listed(scan.robots, list(scan.indexes))
    listed |= _probed(scan)
    unlisted = tuple(p.name for p in scan.sitemaps if p.name not in listed)
    return NamedSite(origins.pop(), folder, unlisted, by_index, others)


def robots_sites(folder: Path) -> dict[str, list[str]]:
    """The sites the absolute ``Sitemap:`` lines of ``folder``'s robots.txt name, each with its
    lines' URLs (empty without a robots.txt). OSError: robots.txt cannot be read."""
    robots = folder / "robots.txt"
    if not (robots.is_file() and inside(folder, robots)):
        return {}
    with robots.open("rb") as fh:
        data = fh.read(ROBOTS_MAX_BYTES + 1)
    named: dict[str, list[str]] = {}
    for line in parse_robots(data, robots.as_uri(), max_bytes=ROBOTS_MAX_BYTES).sitemaps:
        # a relative or odd line names no site (robots-sitemap-not-absolute says it is wrong):
        # the absolute ones do; it ended the site altogether, and with it the location rules,
        # unsaid
        origin = _site_of(line.url)
        if origin is not None:
            named.setdefault(origin, []).append(line.url)
    return named


def here_of(folder: Path, named: dict[str, list[str]]) -> set[str]:
    """The sites of ``named`` (:func:`robots_sites`) one of whose URLs names a file of
    ``folder``, or of a subfolder of it (``/sitemaps/index.xml``, as Gatsby writes it: found
    from outside, a build whose robots.txt named that file stood for no site)."""
    return {origin for origin, urls in named.items() if any(_names_a_file(folder, u) for u in urls)}


def _names_a_file(folder: Path, url: str) -> bool:
    relative = unquote(urlsplit(url.strip()).path).lstrip("/")
    if not relative or any(part.startswith(".") for part in relative.split("/")):
        return False
    path = folder / relative
    try:
        return path.is_file() and inside(folder, path)
    except (OSError, ValueError):
        return False


def _site_of(url: str) -> str | None:
    """``scheme://host[:port]/`` of an absolute http(s) URL; None for any other, and for one with
    user info (``https://a=b@host/``: no site a build stands for, and its ``=`` once split the
    implied ``SITE=FOLDER`` in the wrong place)."""
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or "@" in parts.netloc:
        return None
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}/"


def inside(folder: Path, path: Path) -> bool:
    """``path`` is in ``folder`` once symlinks are followed (a link out is never read)."""
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):
        return False


COMMON_PATHS = ("sitemap.xml", "sitemap_index.xml", "sitemap-index.xml", "sitemap.xml.gz", "sitemap.txt")
"""The paths a site's exploration probes at its root without a robots.txt Sitemap: line
(engine.discover; here, as a folder read as a site is probed for them too)."""

INFER_CHILDREN = 1000  # an index's children read to learn its site (an index may list 50,000)
INFER_INDEXES = 20


def _index_sites(indexes: list[Path], folder: Path) -> set[str]:
    """The site whose URLs ``indexes`` list, with a file of ``folder`` or of a subfolder of it
    among them (``/en/sitemap.xml``, as Hugo writes a multilingual build: found from outside,
    such a build without robots.txt stood for no site, read nothing and passed) (the first
    INFER_CHILDREN of the first INFER_INDEXES: a folder of large indexes was read whole to
    learn it, before the run's time budget began)."""
    found: dict[str, bool] = {}
    for path in indexes[:INFER_INDEXES]:
        for url in index_children(path, INFER_CHILDREN):
            origin = _site_of(url)
            if origin is None:
                continue
            here = _names_a_file(folder, url)
            # a deeper child names a site only by a file here (a shop subdomain's
            # /sitemaps/products.xml beside the site's own: found by a review, no site at all)
            if here or unquote(urlsplit(url.strip()).path).count("/") == 1:
                found[origin] = found.get(origin, False) or here
    if len(found) != 1:
        return set()  # several sites: which one the folder stands for is a guess
    return {origin for origin, here in found.items() if here}


def index_children(path: Path, most: int | None = None) -> list[str]:
    """The <loc> of every child an index lists (up to INDEX_MAX_BYTES decoded; ``most``: the
    first ones only)."""
    parser = SniffingParser(path.as_uri())
    locs: list[str] = []

    def take(items: Sequence[object]) -> None:
        locs.extend(i.loc for i in items if isinstance(i, ChildRef) and i.loc)

    if not path.is_file():  # a FIFO or a device would block or never end
        return locs
    try:
        decoder = BodyDecoder(None, INDEX_MAX_BYTES)
        with path.open("rb") as fh:
            while raw := fh.read(CHUNK):
                for chunk in decoder.feed(raw):
                    take(parser.feed(chunk))
                if most is not None and len(locs) >= most:
                    return locs[:most]
            for chunk in decoder.finish():
                take(parser.feed(chunk))
        take(parser.close())
    except (DecodeError, OSError):
        pass  # the file's own findings say what is wrong with it when it is validated
    return locs


def _by_site_path(url: str, files: dict[str, Path]) -> Path | None:
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("http", "https"):
        return None
    path = unquote(parts.path)
    return files.get(path[1:]) if path.count("/") == 1 else None


def _suffix(name: str) -> str:
    suffix = Path(name).suffix.lower()
    return suffix or "no suffix"

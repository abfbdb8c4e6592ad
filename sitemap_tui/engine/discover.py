"""What the user pointed us at, and where a site keeps its sitemaps."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from sitemap_tui.engine import urlpolicy

# a folder's files are localdir's business; a target only names its suffixes (one direction:
# discover -> localdir, never back)
from sitemap_tui.engine.localdir import COMMON_PATHS, LOCAL_SUFFIXES

if TYPE_CHECKING:
    from sitemap_tui.engine.localdir import FolderScan

_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)@")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Schemes of what is no web page, typed without "//": "mailto:me@host" read as a host and sent
# "mailto:me" as a Basic login, found from outside. (Not "host:8080", a port: a number and the
# path's slash or the end.)
_NOT_WEB_SCHEME = re.compile(
    r"(?i)(mailto|javascript|vbscript|data|tel|sms|urn|about|blob|news|nntp|ftps?|sftp|ssh|git"
    r"|ldap|ircs?|magnet|geo|xmpp|sips?|wss?|android-app|ios-app|intent|market|itms(?:-apps)?"
    r"|chrome|view-source|webcal|feed|cid|mid|fax|callto|skype|bitcoin|gopher):(?![0-9]+(?:/|$))"
)


def _without_userinfo(text: str) -> tuple[str, str]:
    """``text`` without the "user:password@" before its host, and that user info ("" if none)."""
    try:
        parts = urlsplit(text)
    except ValueError:  # (http://u:pw@[::1/ : said as a bad URL, without the password: a review)
        found = _USERINFO.match(text)
        return (found[1] + text[found.end():], found[2]) if found else (text, "")
    userinfo, at, hostport = parts.netloc.rpartition("@")
    if not at:
        return text, ""
    return urlunsplit((parts.scheme, hostport, parts.path, parts.query, parts.fragment)), userinfo


def shown_target(raw: str) -> str:
    """TARGET ``raw`` as reports and messages may show it: without a "user:password@" (the
    session sends it as an Authorization header; found from outside: diff's and audit's
    reports printed it as typed)."""
    try:
        return Target.parse(raw).raw
    except TargetError:
        return _without_userinfo(raw.strip())[0] if "://" in raw else raw




class TargetError(ValueError):
    """The target cannot be explored at all (usage error, exit code 2)."""


@dataclass(frozen=True)
class Target:
    raw: str
    kind: str  # "site", "sitemap", "robots", "file", "directory"
    url: str  # http(s) URL, or file: URI for local targets
    # "user:password" taken out of the URL (raw and url never hold it: they are shown, stored
    # and reported); the session sends it as an Authorization header, scoped as -H is
    userinfo: str = field(default="", repr=False, compare=False)

    @classmethod
    def parse(cls, raw: str) -> Target:
        text = raw.strip()
        if not text:
            raise TargetError("empty target")
        if text == "-":  # read as a host named "-": a DNS lookup and three retries
            raise TargetError("'-' (standard input) is not a target: save the sitemap to a file and give its path")
        try:
            path = Path(text).expanduser()
        except RuntimeError:  # ~nobody/...: no such user, so no such home
            raise TargetError(f"no such file or directory: {text}") from None
        if "://" not in text and _exists(path, text):
            path = path.resolve()
            if path.is_dir():
                _readable_folder(path, text)
                return cls(raw, "directory", path.as_uri())
            if path.name.lower() == "robots.txt":
                return cls(raw, "robots", path.as_uri())
            return cls(raw, "file", path.as_uri())
        if text.startswith("file:"):
            raise TargetError("file: URLs are not accepted; give a local path instead")
        if _SURROGATE.search(text):
            # bytes of the argument that are not UTF-8 (a path's are fine: the file system's own);
            # no request can carry them, and the store could not keep the URL (a traceback)
            raise TargetError(f"cannot explore {raw!r}: it has bytes that are not UTF-8")
        if re.match(r"(?i)https?:/?(?!/)", text):  # http:/host, https:host: a scheme's slashes missing
            raise TargetError(f"{text!r}: a URL needs two slashes after its scheme ({text.split(':', 1)[0]}://...)")
        if "://" not in text:
            scheme = _NOT_WEB_SCHEME.match(text)
            if scheme is not None:
                raise TargetError(f"cannot explore {raw!r}: scheme '{scheme[1].lower()}' is not http(s)")
            if local_looking(text):
                # (a bare word: a build folder that was not made, or a host without its scheme)
                hint = f" (a site on the host {text!r}: https://{text}/)" if re.fullmatch(r"[A-Za-z0-9-]+", text) else ""
                raise TargetError(f"no such file or directory: {text}{hint}")
            text = "https://" + text
        text, userinfo = _without_userinfo(text)
        if userinfo:
            raw = raw.strip()
            raw = _without_userinfo(raw)[0] if "://" in raw else _without_userinfo("//" + raw)[0][2:]
            return replace(cls.parse(text), raw=raw, userinfo=userinfo)
        reason = urlpolicy.unfetchable_reason(text)
        if reason:
            raise TargetError(f"cannot explore {raw!r}: {reason}")
        parts = urlsplit(text)
        path_part = parts.path or "/"
        if path_part.lower().endswith("/robots.txt"):
            return cls(raw, "robots", text)
        if path_part.endswith("/") and not parts.query:
            return cls(raw, "site", urlunsplit((parts.scheme, parts.netloc, path_part, "", "")))
        return cls(raw, "sitemap", text)

    def scan(self) -> FolderScan:
        """A directory target's files: which are sitemaps, and what was skipped and why."""
        from sitemap_tui.engine.localdir import scan_folder

        return scan_folder(urlpolicy.local_path(self.url))

    def files(self) -> list[Path]:
        """The sitemap files of a directory target, robots.txt first (see engine/localdir.py)."""
        return self.scan().files()


def _exists(path: Path, text: str) -> bool:
    """Whether the local path is there; a folder on its way that may not be searched is a
    one-line error (it was a traceback: Path.exists raises PermissionError)."""
    try:
        return path.exists()
    except OSError as exc:
        raise TargetError(f"cannot read {text}: {exc.strerror or exc}") from None


def _readable_folder(path: Path, text: str) -> None:
    """A folder target whose listing may not be read is a one-line error before the run."""
    try:
        with os.scandir(path):
            pass
    except OSError as exc:
        raise TargetError(f"cannot read the folder {text}: {exc.strerror or exc}") from None


def candidate_probe_urls(site_url: str) -> list[str]:
    """Common sitemap locations at the root, and under the path the user gave."""
    parts = urlsplit(site_url)
    bases = ["/"]
    if parts.path and parts.path != "/":
        bases.append(parts.path if parts.path.endswith("/") else parts.path + "/")
    out: list[str] = []
    for base in bases:
        for name in COMMON_PATHS:
            url = urlunsplit((parts.scheme, parts.netloc, base + name, "", ""))
            if url not in out:
                out.append(url)
    return out


def find_sitemap_links(html: bytes, base_url: str) -> list[tuple[str, str | None]]:
    """<link rel="sitemap" href=...> in an HTML page (lxml.html, no network, size-capped by
    caller), in the page's order: each URL (once) with None, or with why it cannot be fetched
    (said, not dropped: "no <link rel=sitemap>" was said of a page that had one). Hrefs
    resolve against the page's first ``<base href>``, as a browser resolves them."""
    from lxml import etree
    from lxml import html as lxml_html

    try:
        parser = lxml_html.HTMLParser(no_network=True, remove_comments=True, remove_pis=True)
        doc = lxml_html.document_fromstring(html, parser=parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return []
    # (the first <base> with an href, even an empty one: the page's own URL then)
    base = next((b.get("href", "").strip() for b in doc.iter("base") if b.get("href") is not None), None)
    if base:
        resolved = urlpolicy.resolve(base_url, base)
        if urlpolicy.unfetchable_reason(resolved) is None:  # (a javascript: base is no base)
            base_url = resolved
    out: list[tuple[str, str | None]] = []
    for link in doc.iter("link"):
        rel = (link.get("rel") or "").lower().split()
        href = (link.get("href") or "").strip()
        if "sitemap" not in rel:
            continue
        url = urlpolicy.resolve(base_url, href) if href else ""
        link_is = (url, urlpolicy.unfetchable_reason(url) if href else "an empty href")
        if link_is not in out:
            out.append(link_is)
    return out


def local_looking(text: str) -> bool:
    """A TARGET without a scheme that is not there as a path: a path all the same (said as a
    missing file), or a site or sitemap URL typed without https://? A bare file name
    (``sitemap.xml``, ``robots.txt``: no host has such a name) and a path that starts like one
    (``./``, ``/``, ``~``) or whose first part is no host name (``public/sitemap.xml``: no dot,
    no port) are paths, and so is a bare word without them (``public``: the build folder a CI
    job names, not there when the build made nothing); ``example.com/sitemap.xml`` and
    ``localhost:8000/`` are URLs. The bare name took a DNS lookup and "site unreachable" (a
    missing ``public``, a robots-fetch-error), and the host-first URL was "no such file"."""
    path = text.split("?")[0].split("#")[0]
    first = path.split("/")[0]
    if path.startswith((".", "/", "~")) or "\\" in path:
        return True
    if "/" not in path and first.lower().endswith(LOCAL_SUFFIXES):
        return True
    return "." not in first and ":" not in first and first.lower() != "localhost"

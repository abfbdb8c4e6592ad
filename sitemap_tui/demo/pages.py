"""The demo site's pages: every page its sitemaps list answers as a small HTML page, so that
``sitemap-tui audit`` on the demo (and the explorer's audit columns) has something to judge.
Most pages are plain and indexable; a few carry one fault each, one of every verdict an audit
gives (:data:`FAULTS`), and a product's rust variant points its canonical at the black one, as
shops do with colour variants. Only paths the site's files list are pages: the explorer's probes of common
paths still get 404, so the demo's exploration is the same with or without them.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

TEMPLATE = "{{BASE}}"
_LISTED = re.compile(r"\{\{BASE\}\}(/[^\s<>\"']*)")
_MEDIA = re.compile(r"\.[A-Za-z0-9]{2,5}$")  # a file name with an extension: not a page

#: path -> (kind, argument): one page per verdict of an audit
FAULTS: dict[str, tuple[str, str]] = {
    "/rentals": ("status", "404"),
    "/archive/2019/summer-sale-2019": ("status", "410"),
    "/archive/2019/lookbook-autumn-2019": ("redirect", "/lookbook/fall-colours"),
    "/press": ("meta", "noindex"),
    "/faq": ("header", "noindex"),
    "/de/blog/layering-for-shoulder-season": ("meta-googlebot", "noindex"),
    "/stores/harbour": ("canonical", "/stores"),
    "/videos/packing-a-45-litre-pack": ("status", "500"),
}


@dataclass(frozen=True, slots=True)
class Page:
    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes


def listed_paths(root: Path) -> frozenset[str]:
    """The paths the site's files list (``{{BASE}}/path``) that are pages: no file of the site
    and no media file name."""
    found: set[str] = set()
    for path in root.rglob("*"):
        if path.is_file():
            for m in _LISTED.finditer(path.read_text(encoding="utf-8", errors="replace")):
                url_path = m.group(1).split("?", 1)[0].split("#", 1)[0]
                if not _MEDIA.search(url_path) and not (root / url_path.lstrip("/")).is_file():
                    found.add(url_path)
    return frozenset(found)


def _canonical(path: str) -> str:
    """A product's rust variant points at its black one (``...-rust`` -> ``...-black``)."""
    if path.startswith("/products/") and path.endswith("-rust"):
        return path[: -len("rust")] + "black"
    return path


def render(path: str, base: str, listed: frozenset[str]) -> Page:
    """The answer for a listed ``path`` on the server at ``base``."""
    kind, arg = FAULTS.get(path, ("page", ""))
    if kind == "status":
        return Page(int(arg), (("Content-Type", "text/plain; charset=utf-8"),), f"{arg}\n".encode())
    if kind == "redirect":
        return Page(301, (("Location", base + arg), ("Content-Type", "text/plain; charset=utf-8")), b"moved\n")
    headers: list[tuple[str, str]] = [("Content-Type", "text/html; charset=utf-8")]
    metas = ""
    canonical = _canonical(path) if kind != "canonical" else arg
    if kind == "meta":
        metas = f'<meta name="robots" content="{arg}">'
    elif kind == "meta-googlebot":
        metas = f'<meta name="googlebot" content="{arg}">'
    elif kind == "header":
        headers.append(("X-Robots-Tag", arg))
    title = path.strip("/").rsplit("/", 1)[-1].replace("-", " ").capitalize() or "Demo Outfitters"
    # links: home, and the next two pages of the same section (so a link crawl finds most pages
    # but not all: the first of each section is linked from the home page only when it is a section)
    folder = path.rsplit("/", 1)[0] + "/"
    siblings = sorted(p for p in listed if p.startswith(folder) and p > path)[:2]
    links = "".join(f'<li><a href="{html.escape(p)}">{html.escape(p)}</a></li>' for p in ["/", *siblings])
    body = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f'<link rel="canonical" href="{html.escape(base + canonical)}">{metas}</head>'
        f"<body><h1>{html.escape(title)}</h1><ul>{links}</ul></body></html>\n"
    )
    return Page(200, tuple(headers), body.encode())

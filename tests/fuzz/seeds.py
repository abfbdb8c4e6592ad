"""Seed documents for mutation fuzzing: the repo's corpus and ../shared/corpus when present."""

from __future__ import annotations

import gzip
import zlib
from functools import lru_cache
from pathlib import Path

REPO_CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"
SHARED_CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
MAX_SEED = 64 * 1024  # keep examples small and fast: seeds are cut here

# Small hand-written seeds so the fuzzers have material even without any corpus.
BUILTIN: tuple[bytes, ...] = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    b"<url><loc>https://example.com/</loc><lastmod>2024-01-01</lastmod><changefreq>daily</changefreq>"
    b"<priority>0.5</priority></url></urlset>\n",
    b'<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    b"<sitemap><loc>https://example.com/a.xml</loc><lastmod>2024-01-01T00:00:00Z</lastmod></sitemap>"
    b"</sitemapindex>",
    b"https://example.com/a\nhttps://example.com/b\r\n\nnot a url\n",
    b'<?xml version="1.0"?><rss version="2.0"><channel><item><link>https://e.com/x</link>'
    b"<pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate></item></channel></rss>",
    b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="https://e.com/y"/>'
    b"<updated>2024-01-01T00:00:00Z</updated></entry></feed>",
)


def _read(path: Path) -> bytes | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if data[:2] == b"\x1f\x8b":
        try:
            d = zlib.decompressobj(31)
            data = d.decompress(data, MAX_SEED)
        except (zlib.error, gzip.BadGzipFile):
            return None
    return data[:MAX_SEED]


@lru_cache(maxsize=1)
def corpus_seeds() -> tuple[bytes, ...]:
    """Every corpus file (gunzipped, cut to MAX_SEED), repo corpus first, then the shared one."""
    out: list[bytes] = list(BUILTIN)
    for base in (REPO_CORPUS, SHARED_CORPUS):
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.is_file() and path.suffix not in (".md", ".tsv"):
                data = _read(path)
                if data:
                    out.append(data)
    return tuple(out)

"""The XML namespaces of sitemaps, their extensions and feeds, and the prefixes Entry.tags uses."""

from __future__ import annotations

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
MOBILE_NS = "http://www.google.com/schemas/sitemap-mobile/1.0"
ATOM10_NS = "http://www.w3.org/2005/Atom"
ATOM03_NS = "http://purl.org/atom/ns#"
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RSS10_NS = "http://purl.org/rss/1.0/"
RSS090_NS = "http://my.netscape.com/rdf/simple/0.9/"
DC_NS = "http://purl.org/dc/elements/1.1/"

# Prefixes used in Entry.tags for the extension namespaces everybody knows.
EXT_PREFIX: dict[str, str] = {
    IMAGE_NS: "image",
    VIDEO_NS: "video",
    NEWS_NS: "news",
    XHTML_NS: "xhtml",
    MOBILE_NS: "mobile",
}

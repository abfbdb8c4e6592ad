"""A whole document through the chunked XSD path, parsed as the main parse parses it: what the
tests and a one-off check of a file use (the crawl feeds ``XsdValidator`` from its own parse)."""

from __future__ import annotations

from lxml import etree

from sitemap_tui.engine.model import Issue
from sitemap_tui.engine.xml_prolog import _RefuseResolver
from sitemap_tui.validate.xsd import DEFAULT_CHUNK, XsdValidator
from sitemap_tui.validate.xsd_schema import parser_options

__all__ = ["run_validator", "validate_bytes"]


def validate_bytes(
    data: bytes,
    mode: str = "lax",
    *,
    node_id: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    feed_size: int = 65536,
    take: bool = False,
) -> list[Issue]:
    """Validate a whole (decoded, not gzipped) XML document through the chunked path.

    Returns ``[]`` for documents that are not well-formed, carry a DOCTYPE, or whose root is
    not a sitemaps.org ``urlset``/``sitemapindex``: the parser's own rules report those.
    """
    validator = run_validator(
        data, mode, node_id=node_id, chunk_size=chunk_size, feed_size=feed_size, take=take
    )
    return validator.finish() if validator is not None else []


def run_validator(
    data: bytes,
    mode: str = "lax",
    *,
    node_id: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    feed_size: int = 65536,
    take: bool = False,
) -> XsdValidator | None:
    """Parse ``data`` as the main parse does (pull parser, elements cleared as they end) and
    feed a validator; ``None`` when the document is not well-formed or has a DOCTYPE. Call
    ``finish()`` on the result."""
    parser = etree.XMLPullParser(
        events=("start", "end"), remove_comments=True, remove_pis=True, **parser_options()
    )
    parser.resolvers.add(_RefuseResolver())
    validator = XsdValidator(mode, node_id=node_id, chunk_size=chunk_size)
    depth = 0
    root = None
    try:
        for offset in range(0, max(len(data), 1), feed_size):
            parser.feed(data[offset : offset + feed_size])
            for event, el in parser.read_events():
                if event == "start":
                    depth += 1
                    if depth == 1:
                        root = el
                        di = el.getroottree().docinfo
                        if di.doctype or di.internalDTD is not None or di.externalDTD is not None:
                            return None
                        validator.begin_root(el)
                    continue
                depth -= 1
                if depth == 1:
                    if take:
                        validator.take(el)  # el leaves the tree: nothing to clear
                        continue
                    validator.add(el)
                    el.clear(keep_tail=False)
                    while el.getprevious() is not None:
                        del root[0]  # type: ignore[index,union-attr]
        parser.close()
    except etree.XMLSyntaxError:
        return None
    if root is None:
        return None
    return validator

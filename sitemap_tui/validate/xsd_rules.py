"""What a libxml2 schema error means in rule terms: its message cleaned, its kind, the rules
that already cover it, the element of the <url> it is in, the sequences the schemas expect, a
schemaLocation's problem."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lxml import etree

from sitemap_tui.engine.parse_xml import (
    IMAGE_NS,
    MOBILE_NS,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
)
from sitemap_tui.validate.checkstate import NEWS_LEGACY, VIDEO_DEPRECATED

XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"


XML_NS = "http://www.w3.org/XML/1998/namespace"

#: Namespaces the bundled schemas declare, with the prefix used in messages ("" = none).
KNOWN_NAMESPACES: dict[str, str] = {
    SITEMAP_NS: "",
    IMAGE_NS: "image",
    VIDEO_NS: "video",
    NEWS_NS: "news",
    MOBILE_NS: "mobile",
    XHTML_NS: "xhtml",
}


_MESSAGE_PREFIXES = {**KNOWN_NAMESPACES, XSI_NS: "xsi", XML_NS: "xml"}


_CLARK_RE = re.compile(r"\{([^{}]*)\}([\w.\-]+|\*)")


_ELEMENT_RE = re.compile(r"^Element '\{([^{}]*)\}([^']*)'")


_NO_NS_ELEMENT_RE = re.compile(r"^Element '([^'{}]*)'")


_ATTRIBUTE_RE = re.compile(
    r"^Element '[^']*', attribute '([^']*)': The attribute '[^']*' is not allowed"
)


_VALUE_RE = re.compile(
    r"^Element '[^']*': '(.*)' is not a valid value of the (?:local )?union type", re.S
)


# an enumeration's refusal ("The value ' daily ' is not an element of the set {...}")
_ENUM_VALUE_RE = re.compile(r"The value '(.*)' is not an element of the set", re.S)


_FACET_RE = re.compile(r"\[facet '[^']*'\] ")


_ATTRIBUTE_TYPES = frozenset({"SCHEMAV_CVC_COMPLEX_TYPE_3_2_1", "SCHEMAV_CVC_TYPE_3_1_1"})


_DATE_ELEMENTS = frozenset({(SITEMAP_NS, "lastmod"), (NEWS_NS, "publication_date")})

# Tags Google retired: their presence is video-deprecated-tags (warning) or news-legacy-tags
# (info), whose severities say what they cost. A schema error inside one (a 300-character
# <video:category>, <news:genres>Opinion, News</news:genres>, <news:access> out of order)
# is not an error of the sitemap: the tag has no effect at all.
RETIRED_ELEMENTS = frozenset(
    {(VIDEO_NS, name) for name in VIDEO_DEPRECATED} | {(NEWS_NS, name) for name in NEWS_LEGACY}
)


_WILDCARD_MSG = "demanded by the strict wildcard"

#: The children of each element the schemas define as a sequence, in schema order (the local
#: name of the parent; a test reads them back from the bundled XSD files).
SEQUENCES: dict[str, tuple[str, ...]] = {
    "url": ("loc", "lastmod", "changefreq", "priority"),
    "sitemap": ("loc", "lastmod"),
    "image": ("loc", "caption", "geo_location", "title", "license"),
    "video": (
        "thumbnail_loc", "title", "description", "content_loc", "player_loc", "duration",
        "expiration_date", "rating", "content_segment_loc", "view_count", "publication_date",
        "tag", "category", "family_friendly", "restriction", "gallery_loc", "price",
        "requires_subscription", "uploader", "tvshow", "platform", "live", "id",
    ),
    "news": (
        "publication", "access", "genres", "publication_date", "title", "keywords",
        "stock_tickers",
    ),
    "publication": ("name", "language"),
}  # fmt: skip

#: How a parent of SEQUENCES is written in messages, and the prefix of its children.
_PARENT_NAMES = {
    "url": ("url", ""),
    "sitemap": ("sitemap", ""),
    "image": ("image:image", "image:"),
    "video": ("video:video", "video:"),
    "news": ("news:news", "news:"),
    "publication": ("news:publication", "news:"),
}


_VIDEO_STRUCTURE = frozenset(
    {"video-element-order", "video-required-missing", "video-no-media-url"}
)

#: The specific rules that already say what a schema error says, by kind of error:
#: ("order", parent) for a child the sequence does not expect there, ("missing", element) for
#: a required child that is absent, ("text", element) for character content where only
#: elements belong, ("markup", element) for elements inside a simple value, and
#: ("value", element) / ("attribute", element) for a value the schema refuses. An error is left
#: to these rules when one of them was reported for the same entry (XsdValidator.reported).
COVERED_BY: dict[tuple[str, str], frozenset[str]] = {
    ("order", "url"): frozenset(
        {"core-element-order", "core-element-repeated", "core-unknown-element", "loc-missing"}
    ),
    ("order", "sitemap"): frozenset(
        {"core-element-order", "core-element-repeated", "index-wrong-children",
         "index-sitemap-loc-missing"}
    ),  # fmt: skip
    ("order", "image"): frozenset({"image-element-order", "image-loc-missing"}),
    ("order", "video"): _VIDEO_STRUCTURE,
    ("order", "video:restriction"): _VIDEO_STRUCTURE | {"video-restriction-invalid"},
    ("order", "video:platform"): _VIDEO_STRUCTURE | {"video-platform-invalid"},
    ("order", "video:uploader"): _VIDEO_STRUCTURE | {"video-uploader-invalid"},
    ("order", "video:tag"): _VIDEO_STRUCTURE | {"video-tag-too-many"},
    ("order", "news"): frozenset({"news-required-missing"}),
    ("order", "publication"): frozenset({"news-required-missing"}),
    ("missing", "url"): frozenset({"loc-missing"}),
    ("missing", "sitemap"): frozenset({"index-sitemap-loc-missing"}),
    ("missing", "image"): frozenset({"image-loc-missing"}),
    ("missing", "video"): frozenset({"video-required-missing", "video-no-media-url"}),
    ("missing", "news"): frozenset({"news-required-missing"}),
    ("missing", "publication"): frozenset({"news-required-missing"}),
    ("text", "url"): frozenset({"loc-missing"}),  # the URL written without <loc>
    ("text", "sitemap"): frozenset({"index-sitemap-loc-missing"}),
    ("markup", "loc"): frozenset({"core-unknown-element"}),
    ("value", "loc"): frozenset(
        {"loc-empty", "loc-not-absolute", "loc-too-long", "loc-invalid-uri", "loc-bad-scheme",
         "loc-bad-percent-encoding", "index-loc-invalid", "index-sitemap-loc-missing"}
    ),  # fmt: skip
    ("value", "lastmod"): frozenset(
        {"lastmod-invalid-format", "lastmod-w3c-but-xsd-invalid", "index-lastmod-invalid"}
    ),
    ("value", "changefreq"): frozenset({"changefreq-invalid"}),
    ("value", "priority"): frozenset({"priority-invalid"}),
    ("value", "image:loc"): frozenset({"image-loc-invalid", "image-loc-missing"}),
    **{
        ("value", f"video:{name}"): frozenset(
            {"video-files-not-accessible", "video-required-missing", "video-no-media-url"}
        )
        for name in ("thumbnail_loc", "content_loc", "player_loc")
    },
    ("value", "video:title"): frozenset({"video-title-too-long", "video-required-missing"}),
    ("value", "video:description"): frozenset(
        {"video-description-too-long", "video-required-missing"}
    ),
    ("value", "video:duration"): frozenset({"video-duration-range"}),
    ("value", "video:rating"): frozenset({"video-rating-range"}),
    ("value", "video:view_count"): frozenset({"video-view-count-invalid"}),
    ("value", "video:publication_date"): frozenset({"video-date-invalid"}),
    ("value", "video:expiration_date"): frozenset({"video-date-invalid"}),
    **{
        ("value", f"video:{name}"): frozenset({"video-yes-no-invalid"})
        for name in ("family_friendly", "requires_subscription", "live")
    },
    ("value", "video:restriction"): frozenset({"video-restriction-invalid"}),
    ("attribute", "video:restriction"): frozenset({"video-restriction-invalid"}),
    ("value", "video:platform"): frozenset({"video-platform-invalid"}),
    ("attribute", "video:platform"): frozenset({"video-platform-invalid"}),
    ("value", "video:uploader"): frozenset({"video-uploader-invalid"}),
    ("attribute", "video:uploader"): frozenset({"video-uploader-invalid"}),
    ("value", "news:language"): frozenset({"news-language-invalid", "news-required-missing"}),
    ("value", "news:publication_date"): frozenset(
        {"news-date-invalid", "news-required-missing"}
    ),
    ("value", "news:name"): frozenset({"news-required-missing"}),
    ("value", "news:title"): frozenset({"news-required-missing"}),
    ("attribute", "xhtml:link"): frozenset(
        {"hreflang-link-incomplete", "hreflang-href-not-absolute", "hreflang-code-invalid"}
    ),
    # an element of a known extension's namespace that it does not declare (<image:images>):
    # the strict wildcard's "No matching global element declaration" (covering_rules)
    ("undeclared", "extension"): frozenset({"ext-unknown-element"}),
}

#: Every rule that may leave a schema error to itself (what XsdValidator.reported keeps).
COVERING_RULES: frozenset[str] = frozenset().union(*COVERED_BY.values())
#: Those about one image, video or news element of a <url>: they cover its faults only.
EXTENSION_COVERING: frozenset[str] = frozenset(r for r in COVERING_RULES if r.startswith(("image-", "video-", "news-")))


# What each namespace's xsi:schemaLocation should point at (file name, lower case).
_EXPECTED_XSD = {
    IMAGE_NS: "sitemap-image.xsd",
    VIDEO_NS: "sitemap-video.xsd",
    NEWS_NS: "sitemap-news.xsd",
    MOBILE_NS: "sitemap-mobile.xsd",
}


def clean_message(message: str, prefixes: Mapping[str, str] | None = None) -> str:
    """libxml2's schema message with Clark names shortened to ``prefix:local``.

    ``{sitemaps.org}priority`` → ``priority``, image/video/news/mobile/xhtml → their usual
    prefix, other namespaces → the document's prefix when known, else left in Clark form.
    ``[facet '...']`` markers are dropped and whitespace is collapsed.
    """

    def short(m: re.Match[str]) -> str:
        ns, local = m.group(1), m.group(2)
        prefix = _MESSAGE_PREFIXES.get(ns)
        if prefix is None and prefixes:
            prefix = prefixes.get(ns)
        if prefix is None:
            return m.group(0)
        return f"{prefix}:{local}" if prefix else local

    text = _FACET_RE.sub("", message)
    text = text.replace(f"##other{{{SITEMAP_NS}}}*", "any element of another namespace")
    text = _CLARK_RE.sub(short, text)
    return " ".join(text.split())


@dataclass(slots=True)
class XsdError:
    """One schema error, mapped back to the source document."""

    line: int | None
    message: str  # libxml2's text, unchanged
    type_name: str
    path: str
    namespace: str | None  # of the element the error is about
    local: str | None
    url: str | None  # <loc> of the <url>/<sitemap> it is in, when known
    entry_line: int | None = None  # line of that <url>/<sitemap>
    parent: str | None = None  # local name of the element's parent, when known
    # line of the extension element it is inside (<image:image>, <video:video>, ...), when
    # known: a finding on another image of the same <url> does not name this fault
    container_line: int | None = None

    @property
    def unknown_namespace(self) -> bool:
        """An element of a namespace the bundle does not know, refused by a strict wildcard."""
        return _WILDCARD_MSG in self.message and self.namespace not in KNOWN_NAMESPACES


def _kind(rec: XsdError) -> str:
    """What a schema error is about (the first part of a :data:`COVERED_BY` key)."""
    message = rec.message
    if "This element is not expected" in message:
        return "order"
    if "Missing child element" in message:
        return "missing"
    if "Character content other than whitespace" in message:
        return "text"
    if "Element content is not allowed" in message:
        return "markup"
    if rec.type_name in _ATTRIBUTE_TYPES or "', attribute '" in message:
        return "attribute"
    return "value"


def _name(ns: str | None, local: str | None) -> str | None:
    """``loc`` for sitemaps.org elements, ``video:title`` for known extensions, else None."""
    if local is None:
        return None
    if ns == SITEMAP_NS:
        return local
    prefix = KNOWN_NAMESPACES.get(ns or "")
    return f"{prefix}:{local}" if prefix else None


def covering_rules(rec: XsdError) -> frozenset[str]:
    """The specific rules that would name the fault of the schema error ``rec``."""
    kind = _kind(rec)
    if "No matching global element declaration" in rec.message and KNOWN_NAMESPACES.get(rec.namespace or ""):
        return COVERED_BY[("undeclared", "extension")]
    if kind != "order":
        name = _name(rec.namespace, rec.local)
        if name is None:
            return frozenset()
        if kind in ("missing", "text"):
            name = name.rpartition(":")[2]  # containers go by their local name
        return COVERED_BY.get((kind, name), frozenset())
    parent = rec.parent
    sequence = SEQUENCES.get(parent or "")
    if parent is None or sequence is None:
        return frozenset()
    if parent in ("url", "sitemap"):
        if rec.namespace in (SITEMAP_NS, None) and rec.local not in sequence:
            return frozenset({"core-unknown-element", "index-wrong-children"})
        return COVERED_BY[("order", parent)]
    if rec.local not in sequence:
        return frozenset()  # an element the extension does not define: no rule names it
    special = COVERED_BY.get(("order", f"{parent}:{rec.local}"))
    return special if special is not None else COVERED_BY.get(("order", parent), frozenset())


def expected_order(rec: XsdError) -> str:
    """For "This element is not expected." without libxml2's "Expected is ...": what the
    parent takes, in schema order."""
    if "This element is not expected" not in rec.message or "Expected is" in rec.message:
        return ""
    sequence = SEQUENCES.get(rec.parent or "")
    if sequence is None or rec.parent is None:
        return ""
    parent, prefix = _PARENT_NAMES[rec.parent]
    children = ", ".join(prefix + child for child in sequence)
    others = ", then elements of other namespaces" if not prefix else ""
    return f" <{parent}> takes, in this order: {children}{others}."


def schema_location_problem(value: str, root_tag: str) -> str | None:
    """Why an ``xsi:schemaLocation`` value is odd, or ``None`` when it looks right."""
    tokens = value.split()
    if not tokens:
        return "empty"
    if len(tokens) % 2:
        return f"odd number of tokens ({len(tokens)}); it must list namespace/location pairs"
    local = root_tag.rpartition("}")[2]
    expected_core = "siteindex.xsd" if local == "sitemapindex" else "sitemap.xsd"
    for ns, location in zip(tokens[::2], tokens[1::2], strict=True):
        name = location.split("?", 1)[0].split("#", 1)[0].rstrip("/").rpartition("/")[2].lower()
        if ns == SITEMAP_NS:
            if name != expected_core:
                return f"the sitemaps.org namespace points at {name or location!r}; a <{local}> uses {expected_core}"
        elif ns in _EXPECTED_XSD and name != _EXPECTED_XSD[ns]:
            return f"{ns} points at {name or location!r}, expected {_EXPECTED_XSD[ns]}"
        elif ns.endswith(".xsd") and not location.endswith(".xsd"):
            return "namespace and location look swapped"
    return None


def element_line(child: Any, step: str, nsmap: Mapping[str | None, str]) -> int | None:
    """The line of the element a schema error's path step (``image:image[2]``, ``*[3]``) names
    in ``child`` (a <url>); -1 when another element of its name starts on that line too (a
    minified file): a line then tells them apart no more, and a finding on one covers no fault
    of the other (found from outside: on one line an image's title out of order hid the next
    one's second loc)."""
    try:
        if step[:1] == "*":
            n = int(step[2:-1]) if step[1:2] == "[" and step[2:-1].isdigit() else 1
            found = [e for e in child if isinstance(e.tag, str)][n - 1 : n]
        else:
            found = child.xpath(step, namespaces={p: ns for p, ns in nsmap.items() if p})
    except (etree.XPathError, ValueError):
        return None
    if not isinstance(found, list) or not found:
        return None
    element = found[0]
    line = getattr(element, "sourceline", None)
    if not isinstance(line, int):
        return None
    if any(e is not element and e.tag == element.tag and e.sourceline == line for e in child):
        return -1
    return line

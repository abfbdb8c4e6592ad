"""Offline XSD validation of sitemaps and sitemap indexes, chunk by chunk.

The bundled schemas (``validate/schemas/``, see its README) are compiled once per thread with
network access off; they import each other by relative path only. Two wrappers:

- ``lax`` (default): elements from namespaces the bundle does not know (PageMap, vendor
  extensions) are skipped; the Checker reports them as ``ext-namespace-unknown``;
- ``strict``: the schema refuses such elements, and elements a known namespace does not
  declare (``<image:photo>``). An unknown namespace stays ``ext-namespace-unknown`` (info, one
  per namespace with its count) whatever else is wrong in the file: the catalogue's specific
  rule, whose severity says that engines accept them.

The main parse is a single ``XMLPullParser`` pass that clears elements as it goes, so the
whole tree never exists. :class:`XsdValidator` validates the document in chunks::

    v = XsdValidator("lax", node_id=node.id)
    v.begin_root(root_element)        # at the root's start event
    v.add(child)                       # each finished <url>/<sitemap> (any child of the root),
                                       # after reading it, before clearing it
    issues = v.finish()

``add`` *moves* the child's content into a small synthetic document with the same root tag,
namespaces and attributes (the caller's element is left empty; clear and unlink it as usual);
``take`` moves the element itself (faster; the caller then leaves it alone). Moving instead of
copying is much cheaper and keeps libxml2's line numbers beyond 65,535 (a deep copy loses
them). Every ``chunk_size`` children the synthetic document is validated and each
``schema.error_log`` entry is mapped back to its source line (libxml2 gives no column for
schema errors) and to the ``<loc>`` of its ``<url>``/``<sitemap>``. The root-level sequence
(``##other*`` then ``url+``) is judged by :meth:`XsdValidator._admit` itself, so the verdict
does not depend on where chunks start.

Differences from validating the whole document (e.g. ``xmllint --schema``), on purpose:

- a root that is not ``urlset``/``sitemapindex`` in the sitemaps.org namespace is not
  validated (``root-unknown``, ``namespace-missing``, ``namespace-wrong`` report it);
- an empty ``urlset``/``sitemapindex`` is not validated (``urlset-empty``/``index-empty``);
- comments and PIs are not seen (the schema ignores them anyway);
- after a misplaced child of the root (``<acme:x/>`` after a ``<url>``, a stray ``<loc>``),
  libxml2 stops checking the rest of the root, so ``xmllint`` reports nothing about any later
  ``<url>``; we report the misplaced element with libxml2's wording and keep validating;
- one fault, one finding: an undeclared attribute on a sitemaps.org element is
  ``core-unknown-attribute`` (warning); an error that a specific rule already reported for the
  same entry (see :data:`COVERED_BY` and :meth:`XsdValidator.reported`: ``<lastmod>`` before
  ``<loc>`` is ``core-element-order``, a bad ``<news:language>`` is ``news-language-invalid``,
  ``<lastmod>2024-05</lastmod>`` is ``lastmod-w3c-but-xsd-invalid`` ...) is left to that rule,
  whose severity says what the fault costs; so are undeclared prefixes and unknown namespaces,
  which the parser and the Checker report once per file. Every other error is ``xsd-invalid``,
  naming the element and what the schema expects there. :attr:`XsdValidator.records` keeps
  the unmapped errors.

Chunks also bound libxml2's cost per error (it computes an XPath per error by counting
siblings): a 50,000-URL file with an error in every ``<url>`` takes ~31 s as one document and
~1.3 s in chunks of 500. Issues are capped per file (``max_issues``, then one summary issue).
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from lxml import etree

from sitemap_tui.engine.model import Issue
from sitemap_tui.engine.parse_xml import (
    IMAGE_NS,
    MOBILE_NS,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
)
from sitemap_tui.engine.values import is_w3c_datetime
from sitemap_tui.validate.registry import make_issue

Mode = Literal["lax", "strict"]
MODES: tuple[str, ...] = ("lax", "strict")

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

SCHEMA_FILES: dict[str, str] = {
    "strict": "wrappers/sitemaps-strict.xsd",
    "lax": "wrappers/sitemaps-lax.xsd",
}
ROOTS = {f"{{{SITEMAP_NS}}}urlset": "url", f"{{{SITEMAP_NS}}}sitemapindex": "sitemap"}

DEFAULT_CHUNK = 500
MAX_ISSUES = 1000
MAX_RECORDS = 10_000

_DUMMY_LOC = "http://example.com/"  # a minimal valid <loc> (12..2048 characters)
_XSI_SCHEMA_LOCATION = f"{{{XSI_NS}}}schemaLocation"
_CLARK_RE = re.compile(r"\{([^{}]*)\}([\w.\-]+|\*)")
_ELEMENT_RE = re.compile(r"^Element '\{([^{}]*)\}([^']*)'")
_NO_NS_ELEMENT_RE = re.compile(r"^Element '([^'{}]*)'")
_ATTRIBUTE_RE = re.compile(
    r"^Element '[^']*', attribute '([^']*)': The attribute '[^']*' is not allowed"
)
_VALUE_RE = re.compile(
    r"^Element '[^']*': '(.*)' is not a valid value of the (?:local )?union type", re.S
)
_FACET_RE = re.compile(r"\[facet '[^']*'\] ")
_ATTRIBUTE_TYPES = frozenset({"SCHEMAV_CVC_COMPLEX_TYPE_3_2_1", "SCHEMAV_CVC_TYPE_3_1_1"})
_DATE_ELEMENTS = frozenset({(SITEMAP_NS, "lastmod"), (NEWS_NS, "publication_date")})
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
         "index-loc-invalid", "index-sitemap-loc-missing"}
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
}
#: Every rule that may leave a schema error to itself (what XsdValidator.reported keeps).
COVERING_RULES: frozenset[str] = frozenset().union(*COVERED_BY.values())

# What each namespace's xsi:schemaLocation should point at (file name, lower case).
_EXPECTED_XSD = {
    IMAGE_NS: "sitemap-image.xsd",
    VIDEO_NS: "sitemap-video.xsd",
    NEWS_NS: "sitemap-news.xsd",
    MOBILE_NS: "sitemap-mobile.xsd",
}


def parser_options() -> dict[str, Any]:
    """Safe lxml parser options (SECURITY.md): no entities, no network, no DTD, no huge trees."""
    return {
        "resolve_entities": False,
        "no_network": True,
        "load_dtd": False,
        "dtd_validation": False,
        "huge_tree": False,
    }


# -- schemas -----------------------------------------------------------------------------------

_local = threading.local()


def schema_dir() -> Any:
    """The bundled schema folder as an ``importlib.resources`` Traversable."""
    return resources.files("sitemap_tui.validate").joinpath("schemas")


class _LocalOnlyResolver(etree.Resolver):  # type: ignore[misc]
    """Records every schema document libxml2 asks for and refuses anything not a local file."""

    def __init__(self, loaded: list[str] | None) -> None:
        super().__init__()
        self.loaded = loaded

    def resolve(self, system_url: str, public_id: str, context: Any) -> Any:
        if self.loaded is not None:
            self.loaded.append(system_url)
        if "://" in system_url and not system_url.startswith("file:"):
            return self.resolve_string("", context)  # never fetched: compilation fails loudly
        return None  # default loader: a local file


def compile_schema(mode: str, *, loaded: list[str] | None = None) -> etree.XMLSchema:
    """Compile the wrapper for ``mode`` from the bundled files (``loaded`` collects the URLs
    of every schema document read, for tests)."""
    if mode not in SCHEMA_FILES:
        raise ValueError(f"unknown XSD mode {mode!r} (expected one of {', '.join(MODES)})")
    parser = etree.XMLParser(**parser_options())
    parser.resolvers.add(_LocalOnlyResolver(loaded))
    # A real path, so the wrappers' relative schemaLocation values ("../sitemap.xsd") resolve.
    with resources.as_file(schema_dir()) as folder:
        path = Path(folder) / SCHEMA_FILES[mode]
        return etree.XMLSchema(etree.parse(str(path), parser))


def load_schema(mode: str = "lax") -> etree.XMLSchema:
    """The compiled wrapper schema for ``mode``; one per thread (a schema keeps its error log)."""
    cache: dict[str, etree.XMLSchema] | None = getattr(_local, "schemas", None)
    if cache is None:
        cache = _local.schemas = {}
    schema = cache.get(mode)
    if schema is None:
        schema = cache[mode] = compile_schema(mode)
    return schema


# -- messages ----------------------------------------------------------------------------------


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


# -- records -----------------------------------------------------------------------------------


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

    @property
    def unknown_namespace(self) -> bool:
        """An element of a namespace the bundle does not know, refused by a strict wildcard."""
        return _WILDCARD_MSG in self.message and self.namespace not in KNOWN_NAMESPACES


class _Chunk:
    __slots__ = ("children", "has_primary", "index", "lines", "root")

    def __init__(self, root: Any) -> None:
        self.root = root
        self.children: list[Any] = []  # the queued children of the root, in order
        self.lines: list[int | None] = []  # their source lines
        self.has_primary = False  # holds a <url>/<sitemap>
        self.index: dict[int, int] | None = None  # id(child) → position, built on first error


class XsdValidator:
    """Chunked XSD validation of one XML sitemap file (see the module docstring)."""

    def __init__(
        self,
        mode: str = "lax",
        *,
        node_id: int | None = None,
        chunk_size: int = DEFAULT_CHUNK,
        max_issues: int = MAX_ISSUES,
        max_records: int | None = None,
        namespace_info: bool = True,
    ) -> None:
        self.mode = mode
        #: True: schema errors about unknown namespaces become one ext-namespace-unknown per
        #: namespace. False: the engine's parser and Checker report namespace faults (unknown
        #: namespaces, undeclared prefixes) once per file; their schema errors are dropped.
        self.namespace_info = namespace_info
        # entry line -> (its <loc>, the covering rules the Checker reported for it)
        self._reported: dict[int, list[tuple[str | None, frozenset[str]]]] = {}
        self._rule_sets: dict[frozenset[str], frozenset[str]] = {}
        self.schema = load_schema(mode)
        self.node_id = node_id
        self.chunk_size = max(1, chunk_size)
        self.max_issues = max_issues
        self.max_records = MAX_RECORDS if max_records is None else max_records
        #: Every schema error found so far (up to ``max_records``), before mapping to rules;
        #: beyond that only what tells whether a specific rule covers an error is kept.
        self.records: list[XsdError] = []
        #: Schema errors counted (including those beyond ``max_records``).
        self.error_count = 0
        # beyond max_records: (entry line, rules that would cover it) -> errors
        self._overflow: dict[tuple[int | None, frozenset[str]], int] = {}
        self.chunks_validated = 0
        self._issues: list[Issue] = []  # issues decided at begin (schemaLocation)
        self._active = False
        self._root_tag: str | None = None
        self._root_nsmap: dict[str | None, str] = {}
        self._root_attrs: dict[str, str] = {}
        self._root_line: int | None = None
        self._child_tag = ""
        self._prefixes: dict[str, str] = {}
        self._chunk: _Chunk | None = None
        self._root_text_done = False
        self._primary_added = False  # a <url>/<sitemap> was queued
        self._root_errors: set[str] = set()
        self._finished = False

    # -- input -------------------------------------------------------------------------------

    @property
    def active(self) -> bool:
        """True when the root is one the schemas validate (``add`` does something)."""
        return self._active

    def begin_root(self, root: Any) -> None:
        """``begin`` from the root element of a pull parser's start event."""
        self.begin(root.tag, dict(root.nsmap), dict(root.attrib), root.sourceline)

    def begin(
        self,
        root_tag: str,
        nsmap: Mapping[str | None, str],
        root_attrs: Mapping[str, str] | None = None,
        line: int | None = None,
    ) -> None:
        self._root_tag = root_tag
        self._root_nsmap = dict(nsmap)
        self._root_attrs = dict(root_attrs or {})
        self._root_line = line
        self._prefixes = {ns: p for p, ns in self._root_nsmap.items() if p}
        child = ROOTS.get(root_tag) if isinstance(root_tag, str) else None
        self._active = child is not None
        if child is not None:
            self._child_tag = f"{{{SITEMAP_NS}}}{child}"
            self._check_schema_location(root_tag)

    def add(self, element: Any, *, copy_element: bool = False) -> None:
        """Queue one finished child of the root for validation.

        The element's children, text and attributes are *moved* into the chunk, so the
        caller's element is left empty (clear and unlink it as usual). With ``copy_element``
        it is deep copied instead (slower; lines past 65,535 inside it are then reported on
        its start line). See also :meth:`take`.
        """
        if not self._active or self._finished or not isinstance(element.tag, str):
            return
        if not self._admit(element):
            return
        chunk = self._chunk if self._chunk is not None else self._open_chunk(element)
        line = element.sourceline
        if copy_element:
            moved = copy.deepcopy(element)
            chunk.root.append(moved)
        else:
            moved = etree.SubElement(chunk.root, element.tag, element.attrib)
            moved.text = element.text
            moved.extend(list(element))
            moved.tail = element.tail
        self._queued(chunk, moved, line)

    def take(self, element: Any) -> bool:
        """Like :meth:`add`, but moves the element itself out of its tree (about twice as fast).

        Returns True when the element left its tree. The caller must then not clear it or
        unlink its siblings through it: it belongs to the validator (its former parent simply
        no longer contains it). False: nothing happened (not a root this validator checks).
        """
        if not self._active or self._finished or not isinstance(element.tag, str):
            return False
        if not self._admit(element):
            parent = element.getparent()
            if parent is not None:
                parent.remove(element)
            return True
        chunk = self._chunk if self._chunk is not None else self._open_chunk(element)
        line = element.sourceline
        chunk.root.append(element)
        self._queued(chunk, element, line)
        return True

    def _admit(self, element: Any) -> bool:
        """Judge the root-level sequence (``##other*`` then ``url+``) here, not in libxml2.

        libxml2 stops checking the rest of a parent after one "This element is not expected";
        for the root that would hide every later ``<url>``, and it would depend on where the
        chunks start. So a misplaced child of the root is recorded here (with libxml2's
        wording) and kept out of the chunk; everything after it is still validated.
        """
        tag = element.tag
        if tag == self._child_tag:
            self._primary_added = True
            return True
        ns = tag[1:].partition("}")[0] if tag[:1] == "{" else None
        if ns not in (None, SITEMAP_NS) and not self._primary_added:
            return True  # ##other before the first <url>: the wildcard validates it
        primary = f"{{{SITEMAP_NS}}}{ROOTS[self._root_tag or '']}"
        expected = (
            f"( {primary} )"
            if self._primary_added
            else f"one of ( ##other{{{SITEMAP_NS}}}*, {primary} )"
        )
        local = tag.rpartition("}")[2]
        self._add_record(
            XsdError(
                line=element.sourceline or self._root_line,
                message=f"Element '{tag}': This element is not expected. Expected is {expected}.",
                type_name="SCHEMAV_ELEMENT_CONTENT",
                path="",
                namespace=ns,
                local=local,
                url=None,
            )
        )
        tail = element.tail
        if tail and tail.strip() and self._chunk is not None:
            self._chunk.root.text = (self._chunk.root.text or "") + tail  # still an error
        return False

    def _open_chunk(self, element: Any) -> _Chunk:
        chunk = self._chunk = self._new_chunk()
        if not self._root_text_done:
            self._root_text_done = True
            parent = element.getparent()
            if parent is not None and parent.text and parent.text.strip():
                chunk.root.text = parent.text  # text before the first child: not allowed
        return chunk

    def _queued(self, chunk: _Chunk, moved: Any, line: int | None) -> None:
        if line is not None and line < 65535:
            moved.sourceline = line
        chunk.children.append(moved)
        chunk.lines.append(line)
        if moved.tag == self._child_tag:
            chunk.has_primary = True
        if len(chunk.children) >= self.chunk_size:
            self._flush()

    def reported(self, line: int | None, url: str | None, rules: Iterable[str]) -> None:
        """The rules reported for the entry that starts on ``line`` (its ``<loc>``: ``url``):
        schema errors inside that entry that one of them already names are left to it (see
        :data:`COVERED_BY`). Call it for each entry before :meth:`finish`."""
        if line is None:
            return
        found = COVERING_RULES.intersection(rules)
        if found:
            found = self._rule_sets.setdefault(found, found)  # a few sets, shared by 50,000 entries
            self._reported.setdefault(line, []).append((url, found))

    def finish(self) -> list[Issue]:
        """Validate what is left and return every issue of the file (once)."""
        if self._finished:
            return []
        self._finished = True
        if self._chunk is not None:
            self._flush()
        return self._issues + self._map_records()

    # -- chunks ------------------------------------------------------------------------------

    def _new_chunk(self) -> _Chunk:
        assert self._root_tag is not None
        root = etree.Element(self._root_tag, self._root_attrs, nsmap=self._root_nsmap)
        if self._root_line is not None and 0 < self._root_line < 65535:
            root.sourceline = self._root_line
        return _Chunk(root)

    def _flush(self) -> None:
        chunk = self._chunk
        self._chunk = None
        if chunk is None or not chunk.children:
            return
        if not chunk.has_primary:
            # only ##other elements so far: a minimal valid <url>/<sitemap> completes the
            # sequence (an urlset with no <url> at all is urlset-empty's business)
            dummy = etree.SubElement(chunk.root, self._child_tag)
            etree.SubElement(dummy, f"{{{SITEMAP_NS}}}loc").text = _DUMMY_LOC
        self.chunks_validated += 1
        if not self.schema.validate(chunk.root):
            for entry in self.schema.error_log:
                self._record(entry, chunk)

    def _record(self, entry: Any, chunk: _Chunk) -> None:
        path = entry.path or ""
        steps = path.split("/")  # "/*/*[3]/news:news" → ["", "*", "*[3]", "news:news"]
        message = entry.message or ""
        if len(steps) <= 2:  # about the root: the same in every chunk, keep it once
            if message in self._root_errors:
                return
            self._root_errors.add(message)
        index = self._child_index(chunk, steps) if len(steps) > 2 else None
        line = entry.line or None
        if line is None:
            line = chunk.lines[index] if index is not None else self._root_line
        url = None
        if index is not None and len(self.records) < self.max_records:
            loc = chunk.children[index].findtext(f"{{{SITEMAP_NS}}}loc")
            url = loc.strip() if loc else None
        m = _ELEMENT_RE.match(message)
        ns, local = (m.group(1), m.group(2)) if m else (None, None)
        if m is None:
            m = _NO_NS_ELEMENT_RE.match(message)  # no namespace: "p:name" of an undeclared prefix
            local = m.group(1) if m else None
        entry_line = chunk.lines[index] if index is not None else None
        # the parent: the <url>/<sitemap> for its own children ("/*/*[3]/*[2]"), else the step
        # before the element ("/*/*[3]/video:video/video:tag" -> "video")
        parent = None
        if len(steps) == 4:
            parent = self._child_tag.rpartition("}")[2]
        elif len(steps) > 4:
            parent = steps[-2].partition("[")[0].rpartition(":")[2]
        self._add_record(
            XsdError(line, message, entry.type_name, path, ns, local, url, entry_line, parent)
        )

    def _add_record(self, record: XsdError) -> None:
        self.error_count += 1
        if len(self.records) < self.max_records:
            self.records.append(record)
        elif not self._reported_elsewhere(record):
            # beyond the cap only what decides whether a specific rule covers it is kept: a
            # file with 50,000 <url>s out of order must not end in "40,000 more schema errors"
            key = (record.entry_line, covering_rules(record))
            self._overflow[key] = self._overflow.get(key, 0) + 1

    def _reported_elsewhere(self, rec: XsdError) -> bool:
        """A namespace fault the engine's parser and Checker report once per file (unknown
        namespaces, undeclared prefixes), when this validator leaves them to it."""
        if self.namespace_info:
            return False
        return rec.unknown_namespace or (rec.namespace is None and ":" in (rec.local or ""))

    def _child_index(self, chunk: _Chunk, steps: list[str]) -> int | None:
        """The chunk child an error path points into (``/*/*[3]/...`` → the 3rd element)."""
        step = steps[2]
        if step[:1] == "*":
            # libxml2 writes "*[n]" for the n-th element child when it has no prefix: read n
            # instead of asking XPath (50,000 errors: half a second)
            n = int(step[2:-1]) if step[1:2] == "[" and step[2:-1].isdigit() else 1
            children = chunk.children
            if 0 < n <= len(children) and chunk.root[n - 1] is children[n - 1]:
                return n - 1
        xpath = "/" + steps[1] + "/" + step
        try:
            found = chunk.root.xpath(
                xpath, namespaces={p: ns for p, ns in self._root_nsmap.items() if p}
            )
        except etree.XPathError:
            return None
        if not isinstance(found, list) or not found:
            return None
        if chunk.index is None:
            chunk.index = {id(child): i for i, child in enumerate(chunk.children)}
        return chunk.index.get(id(found[0]))  # the same proxy object: chunk.children keeps it

    # -- mapping to issues -------------------------------------------------------------------

    def _map_records(self) -> list[Issue]:
        records = sorted(self.records, key=lambda r: r.line or 0)
        # an unknown namespace is ext-namespace-unknown (info) whatever else the file gets
        unknown = [r for r in records if r.unknown_namespace]
        out: list[Issue] = self._namespace_issues(unknown) if unknown and self.namespace_info else []
        dropped = 0
        for rec in records:
            if rec.unknown_namespace or self._reported_elsewhere(rec):
                continue
            if self._covered(rec.entry_line, rec.url, covering_rules(rec)):
                continue
            issue = self._issue(rec)
            if issue is None:
                continue
            if len(out) >= self.max_issues:
                dropped += 1
                continue
            out.append(issue)
        dropped += sum(
            n for (line, rules), n in self._overflow.items() if not self._covered(line, None, rules)
        )
        if dropped:
            out.append(
                make_issue(
                    "xsd-invalid",
                    node_id=self.node_id,
                    detail=f"{dropped:,} more schema errors not listed",
                )
            )
        return out

    def _covered(self, entry_line: int | None, url: str | None, rules: frozenset[str]) -> bool:
        """One of ``rules`` was reported for the entry on ``entry_line`` whose <loc> is ``url``
        (None: any entry on that line)."""
        if entry_line is None or not rules:
            return False
        entries = self._reported.get(entry_line)
        if not entries:
            return False
        if len(entries) == 1 or url is None:  # one entry on that line: the <loc> need not match
            return any(found & rules for _, found in entries)
        # several entries start on that line (a minified file): the one with this <loc>
        return any(found & rules for loc, found in entries if loc == url)

    def _issue(self, rec: XsdError) -> Issue | None:
        if rec.namespace == SITEMAP_NS and rec.type_name in _ATTRIBUTE_TYPES:
            m = _ATTRIBUTE_RE.match(rec.message)
            if m:
                return make_issue(
                    "core-unknown-attribute",
                    node_id=self.node_id,
                    line=rec.line,
                    url=rec.url,
                    element=rec.local,
                    attribute=m.group(1),
                )
        if (rec.namespace, rec.local) in _DATE_ELEMENTS:
            m = _VALUE_RE.match(rec.message)
            if m and is_w3c_datetime(m.group(1)):
                return None  # the Checker's lastmod-w3c-but-xsd-invalid / news-date-invalid
        return make_issue(
            "xsd-invalid",
            node_id=self.node_id,
            line=rec.line,
            url=rec.url,
            detail=clean_message(rec.message, self._prefixes) + expected_order(rec),
        )

    def _namespace_issues(self, records: list[XsdError]) -> list[Issue]:
        first: dict[str, XsdError] = {}
        count: dict[str, int] = {}
        for rec in records:
            ns = rec.namespace or ""
            first.setdefault(ns, rec)
            count[ns] = count.get(ns, 0) + 1
        return [
            make_issue(
                "ext-namespace-unknown",
                node_id=self.node_id,
                line=rec.line,
                url=rec.url,
                namespace=ns,
                count=count[ns],
            )
            for ns, rec in first.items()
        ]

    # -- xsi:schemaLocation --------------------------------------------------------------------

    def _check_schema_location(self, root_tag: str) -> None:
        value = self._root_attrs.get(_XSI_SCHEMA_LOCATION)
        if value is None:
            return
        reason = schema_location_problem(value, root_tag)
        if reason:
            self._issues.append(
                make_issue(
                    "xsd-schema-location-odd",
                    node_id=self.node_id,
                    line=self._root_line,
                    value=value,
                    reason=reason,
                )
            )


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


# -- whole documents (small files, tests) --------------------------------------------------------


class _RefuseResolver(etree.Resolver):  # type: ignore[misc]
    def resolve(self, system_url: str, public_id: str, context: Any) -> Any:
        return self.resolve_string("", context)


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
                        del root[0]  # type: ignore[index]
        parser.close()
    except etree.XMLSyntaxError:
        return None
    if root is None:
        return None
    return validator


__all__ = [
    "COVERED_BY",
    "COVERING_RULES",
    "DEFAULT_CHUNK",
    "KNOWN_NAMESPACES",
    "MAX_ISSUES",
    "MODES",
    "SCHEMA_FILES",
    "SEQUENCES",
    "XsdError",
    "XsdValidator",
    "clean_message",
    "compile_schema",
    "covering_rules",
    "expected_order",
    "load_schema",
    "parser_options",
    "run_validator",
    "schema_dir",
    "schema_location_problem",
    "validate_bytes",
]

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
from collections.abc import Iterable, Mapping
from typing import Any

from lxml import etree

from sitemap_tui.engine.model import Issue
from sitemap_tui.engine.parse_xml import SITEMAP_NS
from sitemap_tui.engine.values import is_w3c_datetime
from sitemap_tui.validate.registry import make_issue
from sitemap_tui.validate.xsd_rules import (
    _ATTRIBUTE_RE,
    _ATTRIBUTE_TYPES,
    _DATE_ELEMENTS,
    _ELEMENT_RE,
    _ENUM_VALUE_RE,
    _NO_NS_ELEMENT_RE,
    _VALUE_RE,
    COVERED_BY,
    COVERING_RULES,
    EXTENSION_COVERING,
    KNOWN_NAMESPACES,
    RETIRED_ELEMENTS,
    SEQUENCES,
    XSI_NS,
    XsdError,
    clean_message,
    covering_rules,
    element_line,
    expected_order,
    schema_location_problem,
)
from sitemap_tui.validate.xsd_schema import (
    MODES,
    SCHEMA_FILES,
    compile_schema,
    load_schema,
    parser_options,
    schema_dir,
)

ROOTS = {f"{{{SITEMAP_NS}}}urlset": "url", f"{{{SITEMAP_NS}}}sitemapindex": "sitemap"}
DEFAULT_CHUNK = 500
MAX_ISSUES = 1000
MAX_RECORDS = 10_000
_DUMMY_LOC = "http://example.com/"  # a minimal valid <loc> (12..2048 characters)
_XSI_SCHEMA_LOCATION = f"{{{XSI_NS}}}schemaLocation"


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
        enabled: frozenset[str] | None = None,
    ) -> None:
        self.mode = mode
        #: The rules the user selected (None: all): a schema error is left to a specific rule,
        #: or worded as one, only where that rule is reported; else it is xsd-invalid (found
        #: from outside: `--select xsd-` passed a file failing the schema five ways)
        self.enabled = enabled
        #: True: schema errors about unknown namespaces become one ext-namespace-unknown per
        #: namespace. False: the engine's parser and Checker report namespace faults (unknown
        #: namespaces, undeclared prefixes) once per file; their schema errors are dropped.
        self.namespace_info = namespace_info
        # entry line -> (its <loc>, the covering rules the Checker reported for it, and the
        # lines those of an extension element were reported on: None when it had none)
        self._reported: dict[int, list[tuple[str | None, frozenset[str], frozenset[tuple[str, int | None]] | None]]] = {}
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
        tag = element.tag  # (each read of an lxml property builds a new string)
        if not self._active or self._finished or not isinstance(tag, str):
            return False
        primary = tag == self._child_tag
        if primary:
            self._primary_added = True  # _admit's verdict for a <url>/<sitemap>
        elif not self._admit(element):
            parent = element.getparent()
            if parent is not None:
                parent.remove(element)
            return True
        chunk = self._chunk if self._chunk is not None else self._open_chunk(element)
        line = element.sourceline
        chunk.root.append(element)
        # the parsed node itself moved, its line with it: nothing to set (``_queued``)
        chunk.children.append(element)
        chunk.lines.append(line)
        if primary:
            chunk.has_primary = True
        if len(chunk.children) >= self.chunk_size:
            self._flush()
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

    def reported(self, line: int | None, url: str | None, found: Iterable[tuple[str, int | None]]) -> None:
        """The (rule, line) pairs reported for the entry that starts on ``line`` (its ``<loc>``:
        ``url``): schema errors inside that entry that one of them already names are left to it
        (see :data:`COVERED_BY`); inside an image, a video or a news element, only to one
        reported on that element or on the faulty line. Call it for each entry before
        :meth:`finish`."""
        if line is None:
            return
        enabled = self.enabled
        pairs = [(rule, at) for rule, at in found if rule in COVERING_RULES and (enabled is None or rule in enabled)]
        if not pairs:
            return
        rules = frozenset(rule for rule, _ in pairs)
        rules = self._rule_sets.setdefault(rules, rules)  # a few sets, shared by 50,000 entries
        # (the lines only for the extensions' rules: a core rule covers its whole entry)
        placed = frozenset(p for p in pairs if p[0] in EXTENSION_COVERING) or None
        self._reported.setdefault(line, []).append((url, rules, placed))

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
        container_line = None
        if len(steps) > 4 and index is not None:  # inside an element of the <url>: its line
            container_line = element_line(chunk.children[index], steps[3], self._root_nsmap)
        # the parent: the <url>/<sitemap> for its own children ("/*/*[3]/*[2]"), else the step
        # before the element ("/*/*[3]/video:video/video:tag" -> "video")
        parent = None
        if len(steps) == 4:
            parent = self._child_tag.rpartition("}")[2]
        elif len(steps) > 4:
            parent = steps[-2].partition("[")[0].rpartition(":")[2]
        self._add_record(
            XsdError(line, message, entry.type_name, path, ns, local, url, entry_line, parent,
                     container_line)
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
        namespaces, undeclared prefixes), when this validator leaves them to it; a fault inside
        a tag Google retired, whose own rule says it has no effect (RETIRED_ELEMENTS)."""
        if (rec.namespace, rec.local) in RETIRED_ELEMENTS:
            return True
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
            if self._covered(rec.entry_line, rec.url, covering_rules(rec), rec):
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
            summary = make_issue("xsd-invalid", node_id=self.node_id,
                                 detail=f"{dropped:,} more schema errors not listed")
            summary.weight = dropped  # counted as the errors it stands for
            out.append(summary)
        return out

    def _covered(self, entry_line: int | None, url: str | None, rules: frozenset[str],
                 rec: XsdError | None = None) -> bool:
        """One of ``rules`` was reported for the entry on ``entry_line`` whose <loc> is ``url``
        (None: any entry on that line); for a fault inside an extension element (``rec``), on
        that element's line or the fault's own (found from outside: an image's title out of
        order hid a second <image:loc> in the image before it, and the exit code went to 0)."""
        if entry_line is None or not rules:
            return False
        entries = self._reported.get(entry_line)
        if not entries:
            return False
        if len(entries) > 1 and url is not None:
            # several entries start on that line (a minified file): the one with this <loc>
            entries = [e for e in entries if e[0] == url]
        lines = (rec.container_line, rec.line) if rec is not None and rec.container_line is not None else None
        if lines is not None and lines[0] == -1:
            return False  # its element shares its line with another of its name: said, not guessed
        for _, found, placed in entries:
            if not found & rules:
                continue
            if lines is None or placed is None:
                return True
            if any(rule in rules and at in lines for rule, at in placed):
                return True
        return False

    def _issue(self, rec: XsdError) -> Issue | None:
        if self.enabled is not None and "xsd-invalid" in self.enabled:
            worded = {"core-unknown-attribute", "changefreq-invalid"} | covering_rules(rec)
            if not worded & self.enabled:  # (no rule of the selection words it: the schema's own)
                return self._schema_issue(rec)
        if rec.namespace == SITEMAP_NS and rec.type_name in _ATTRIBUTE_TYPES:
            m = _ATTRIBUTE_RE.match(rec.message)
            if m:
                return make_issue(
                    "core-unknown-attribute",
                    node_id=self.node_id,
                    line=rec.line,
                    url=rec.url,
                    element=rec.local,
                    # (libxml2 names xml:base in Clark form, {http://www.w3.org/XML/1998/namespace}base)
                    attribute=m.group(1).replace("{http://www.w3.org/XML/1998/namespace}", "xml:"),
                )
        if rec.namespace == SITEMAP_NS and rec.local == "changefreq" and (m := _ENUM_VALUE_RE.search(rec.message)):
            # a word the checker, which reads it stripped, let pass: with spaces around it (found
            # from outside: an xsd-invalid error, missed by a filter on changefreq-)
            return make_issue("changefreq-invalid", node_id=self.node_id, line=rec.line, url=rec.url,
                              value=m.group(1))
        if (rec.namespace, rec.local) in _DATE_ELEMENTS:
            m = _VALUE_RE.match(rec.message)
            if m and is_w3c_datetime(m.group(1)):
                return None  # the Checker's lastmod-w3c-but-xsd-invalid / news-date-invalid
        return self._schema_issue(rec)

    def _schema_issue(self, rec: XsdError) -> Issue:
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
    "schema_dir",
    "schema_location_problem",
]

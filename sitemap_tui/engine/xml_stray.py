"""Entries outside the root's namespace, and misplaced elements between entries."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lxml import etree

from .findings import Finding
from .parsed import Item
from .xml_prolog import _split

# libxml2 messages naming the innermost open element ("... in tag urlset line 2")
_OPEN_TAG_MSG = re.compile(
    r"(?:Premature end of data in tag|Opening and ending tag mismatch:) (\S+) line (\d+)"
)
# misplaced elements reported per file (a flood of them would be millions of issues); the
# last one reported says the rest are not
_MAX_MISPLACED = 1001


class _StrayHandling:
    """Entries in no namespace or another one, and misplaced elements between entries: kept,
    reported and swept away; a base of XmlSitemapParser, whose state it uses."""

    # the parser's state it reads and updates (set by XmlSitemapParser.__init__)
    _mode: str
    _core: frozenset[str | None]
    _core_patterns: tuple[str, ...]
    _entry_local: str
    _entry_tags: frozenset[str]
    _last: Any
    _misplaced: int
    _root: Any
    _specs: dict[Any, tuple[int, str]]
    _stopped: bool
    _stray_specs: dict[str | None, dict[Any, tuple[int, str]]]
    _strays: dict[str | None, list[int]]
    element_hook: Callable[[Any], bool] | None

    if TYPE_CHECKING:  # the parser's readers, from _EntryReader (a stub here would shadow them)

        def _url(self, el: Any, out: list[Item]) -> None: ...
        def _sitemap(self, el: Any, out: list[Item]) -> None: ...

    # -- entries in no namespace, or another one ------------------------------------------------

    def _is_stray_entry(self, el: Any) -> bool:
        """A child of the root named like an entry (<url>/<sitemap>) in no namespace or in
        another one than the root's: a sitemap with a namespace slip, kept as an entry."""
        if self._mode != "urlset" and self._mode != "index":
            return False
        parts = _split(el.tag)
        return parts is not None and parts[1] == self._entry_local

    def _note_stray(self, el: Any) -> None:
        parts = _split(el.tag)
        ns = parts[0] if parts else None
        seen = self._strays.get(ns)
        if seen is None:
            self._strays[ns] = [el.sourceline or 0, 1]
        else:
            seen[1] += 1

    def _stray_issues(self, out: list[Item]) -> None:
        name = f"<{self._entry_local}>"
        for ns, (line, count) in sorted(self._strays.items(), key=lambda kv: kv[1][0]):
            fields: dict[str, object] = {"element": name, "count": count, "first_line": line}
            if ns is None:
                rule = "namespace-missing"
            else:
                rule = "namespace-wrong"
                fields["namespace"] = ns
            out.append(Finding(rule, fields, line=line or None))

    def _stray_entry_end(self, el: Any, out: list[Item]) -> None:
        """Read a stray entry with its own namespace as the core one (its <loc> is in it)."""
        parts = _split(el.tag)
        ns = parts[0] if parts else None
        core, specs = self._core, self._specs
        self._core = core | {ns}
        self._specs = self._stray_specs.setdefault(ns, {})
        try:
            if self._mode == "urlset":
                self._url(el, out)
            else:
                self._sitemap(el, out)
        finally:
            self._core, self._specs = core, specs

    def _sweep(self, container: Any, upto: Any, out: list[Item]) -> None:
        """Check and delete the finished children of ``container`` before ``upto`` (``None``:
        all of them): the last entry and any junk between entries, which in a urlset or index
        gets the issue the old element-by-element parser gave at the junk's end tag.

        ``upto`` is an entry or the container's last child, so a filtered iteration that never
        meets it has still stopped in time. Linear: a flood of junk elements costs C time only,
        except for those in a core namespace (issues, bounded by ``_MAX_MISPLACED``)."""
        if self._mode in ("urlset", "index") and self._misplaced < _MAX_MISPLACED:
            last = self._last
            entry_local = self._entry_local
            for child in container.iterchildren(*self._core_patterns):
                if child is upto:
                    break
                if child is last:
                    continue
                parts = _split(child.tag)
                if parts is None or parts[1] == entry_local:
                    continue
                self._misplaced += 1
                if self._misplaced >= _MAX_MISPLACED:
                    out.append(
                        Finding(
                            "core-unknown-element",
                            {"misplaced_over": _MAX_MISPLACED - 1},
                            line=child.sourceline,
                        )
                    )
                    break
                out.append(self._misplaced_issue(child, parts[1]))
        if self.element_hook is not None and self._mode in ("urlset", "index"):
            self._hand_over_junk(container, upto, out)
        if upto is None:
            del container[:]
        else:
            stop = container.index(upto)
            if stop:
                del container[:stop]

    def _hand_over_junk(self, container: Any, upto: Any, out: list[Item]) -> None:
        """Elements of other namespaces between entries, given to the element hook (the XSD):
        after the first entry even a known extension's element there is a schema error (an
        <image:image> outside any <url> went unreported, found from outside). Counted with the
        misplaced elements: a flood of them stops at the same cap, and says so."""
        hook = self.element_hook
        assert hook is not None
        junk = []
        for child in container.iterchildren():
            if child is upto:
                break
            tag = child.tag
            if child is self._last or not isinstance(tag, str) or tag in self._entry_tags:
                continue
            parts = _split(tag)
            if parts is None or parts[0] in self._core:
                continue  # a core element: reported as misplaced above
            if self._misplaced >= _MAX_MISPLACED:
                break
            self._misplaced += 1
            if self._misplaced >= _MAX_MISPLACED:
                out.append(Finding("core-unknown-element", {"misplaced_over": _MAX_MISPLACED - 1}, line=child.sourceline))
                break
            junk.append(child)
        for child in junk:
            hook(child)  # (it may move the child out of this tree: after the walk)

    def _sweep_at_error(self, exc: etree.XMLSyntaxError, out: list[Item]) -> None:
        """After a fatal error: junk finished before the error still gets its issue."""
        root = self._root
        if self._stopped or root is None or self._mode not in ("urlset", "index"):
            return
        n = len(root)
        if not n:
            return
        tail = root[-1]
        upto = tail
        if tail is not self._last and tail.tag not in self._entry_tags:
            # The last child may be open (the error is inside it) or finished. A finished one
            # has a tail once any character follows its end tag; else the message may name the
            # root as the innermost open element.
            if tail.tail is not None:
                upto = None
            else:
                m = _OPEN_TAG_MSG.search(str(exc.msg or exc))
                local = etree.QName(root).localname
                names = (local, f"{root.prefix}:{local}" if root.prefix else local)
                line = root.sourceline
                if (
                    m is not None
                    and m.group(1) in names
                    and m.group(2) == str(line)
                    # an open element of that name on the root's line would read the same
                    and not any(
                        isinstance(e.tag, str)
                        and etree.QName(e).localname == local
                        and e.sourceline == line
                        for e in tail.iter()
                    )
                ):
                    upto = None
        if n > 1 or upto is None:
            self._sweep(root, upto, out)

    def _misplaced_issue(self, el: Any, local: str) -> Finding:
        line = el.sourceline
        parent = "urlset" if self._mode == "urlset" else "sitemapindex"
        if self._mode == "index" and local == "url":
            return Finding("index-wrong-children", {"element": local, "parent": parent}, line=line)
        return Finding("core-unknown-element", {"element": local, "parent": parent}, line=line)

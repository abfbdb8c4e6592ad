"""The validation plug-in seam: everything the engine asks of a validator, and what it tells it
about a file. The engine knows no rule; the validation layer (sitemap_tui.validate.checker's
``Checker``) implements :class:`Validator`, and the engine calls nothing outside it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from sitemap_tui.engine.findings import Judge
from sitemap_tui.engine.model import ChildRef, Entry, FileStats, FoundBy, Issue, NodeKind
from sitemap_tui.engine.robots import RobotsFile


@dataclass(slots=True, kw_only=True)
class FileFacts:
    """What the engine knows about a file about to be checked (its place in the tree)."""

    node_id: int | None
    url: str
    final_url: str | None
    kind: NodeKind
    found_by: FoundBy
    parent_url: str | None  # the index or robots.txt that lists it, if one does
    parent_kind: NodeKind | None
    robots_listed_by: set[str] = field(default_factory=set)  # robots.txt URLs naming it or an index above
    now: datetime  # the exploration's clock (injectable for tests)
    parent_node_id: int | None = None
    parent_line: int | None = None  # the parent's line naming this file
    listed_lastmod_raw: str | None = None  # the parent index's <lastmod> for this file


class FileContext(Protocol):
    """The validator's per-file state; the engine updates these two as the file streams (the
    response's final URL, the root element's kind) and reads nothing else of it."""

    kind: NodeKind
    final_url: str | None


class Validator(Protocol):
    """Every call the engine makes on the validation plug-in. It is pickled into the worker
    processes, where the per-file calls run."""

    judge: Judge  # the registry, with the user's rule selection: words the engine's findings

    @property
    def cross_submit_rules(self) -> frozenset[str]:
        """Rules whose findings a robots.txt of the named host voids (cross_submitted)."""
        ...

    def file_context(self, facts: FileFacts) -> FileContext:
        """A new file's context, given what the engine knows of it."""
        ...

    # -- per file, in the worker that parses it
    def begin_file(self, ctx: Any) -> None: ...
    def element_hook(self, ctx: Any) -> Callable[[Any], bool] | None:
        """Called with each parsed XML element (schema validation); None: not needed."""
        ...
    def check_entry(self, ctx: Any, entry: Entry) -> list[Issue]: ...
    def check_child(self, ctx: Any, child: ChildRef) -> list[Issue]: ...
    def end_file(self, ctx: Any, info: Any, stats: FileStats | None) -> list[Issue]: ...

    # -- in the explorer, once a file's fate is known
    def file_failed(self, ctx: Any, rule_id: str, reason: str) -> list[Issue]: ...
    def check_robots(self, robots: RobotsFile, ctx: Any = None) -> list[Issue]: ...
    def robots_fetch_failed(self, ctx: Any, status: int | None, reason: str) -> list[Issue]: ...
    def cross_submitted(self, issue: Issue, robots_url: str) -> list[Issue]:
        """What replaces ``issue`` (a cross_submit_rules finding) once the robots.txt read at
        ``robots_url`` names the file's sitemap chain."""
        ...

"""Messages that cross from the engine thread (or workers) into the Textual app."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from sitemap_tui.engine.events import Event


@dataclass
class EngineEvents(Message):
    """One batch of engine events (the engine time-slices them, ~150 ms)."""

    events: list[Event]


@dataclass
class EngineError(Message):
    """A command sent to the engine failed; shown as a notification."""

    what: str
    message: str
    node_id: int | None = None


@dataclass
class EngineReady(Message):
    """The engine thread has its store and explorer and accepts commands."""


@dataclass
class CommandDone(Message):
    """A bridge command finished (``what`` is ``open``, ``expand``, ``reload``, ...)."""

    what: str
    node_id: int | None = None
    result: object = None


@dataclass
class Outdated(Message):
    """A file fetched again changed what whole-tree results were made from ("crossfile": their
    issues were dropped; "access": the crawler-access table has rows to judge)."""

    node_id: int
    parts: tuple[str, ...]


@dataclass
class IssueCounts(Message):
    """(errors, warnings) per node id, recounted from the store."""

    counts: dict[int, tuple[int, int]]
    full: bool = True  # every node (missing ones have none) or just these
    generation: int = 0  # of a full recount: an older one's counts arrive late and are dropped
    unread: bool = False  # the store could not be read: the counts stay as they are


@dataclass
class DeepProgress(Message):
    """Deep checks: entries checked so far out of the sample."""

    done: int
    total: int


@dataclass
class CrossfileProgress(Message):
    """The cross-file rules started a step (``step``: a short label)."""

    step: str


@dataclass
class SearchProgress(Message):
    """The engine's substring search index covers ``covered`` of ``total`` entry ids."""

    covered: int
    total: int


@dataclass
class AuditProgress(Message):
    """The explorer's audit stored ``done`` results of the ``total`` URLs it started with."""

    done: int
    total: int


@dataclass
class AuditNote(Message):
    """Something an audit or the deep checks must tell the user (a host not fetched, a wait, a
    robots.txt unread, pages it kept out)."""

    text: str
    title: str = "audit"


@dataclass
class ShowUrls(Message):
    """A pane asks for the URL table filtered to exactly these URLs (drill-through, issue 18).

    ``filter_text`` is in the URL filter language (:mod:`sitemap_tui.tui.url_filter`), so the
    filter the user lands on is visible and editable; ``origin`` is the widget Esc/back returns
    the focus to; ``title`` names what was drilled into (for the table's title)."""

    filter_text: str
    origin: object | None = None
    title: str = ""

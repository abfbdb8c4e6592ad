"""Engine events, delivered to a front end in time-sliced batches (never one per URL)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sitemap_tui.engine.model import Node


@dataclass(slots=True)
class NodeAdded:
    node: Node


@dataclass(slots=True)
class NodeChanged:
    """State, stats, counts or error of a node changed (the latest snapshot wins)."""

    node: Node


@dataclass(slots=True)
class Progress:
    node_id: int
    wire_bytes: int
    total: int | None


@dataclass(slots=True)
class EntriesAdded:
    node_id: int
    count: int  # entries stored for this node so far


@dataclass(slots=True)
class IssuesAdded:
    node_id: int | None
    count: int


@dataclass(slots=True)
class ExplorationDone:
    """The requested work (a run, an expansion or an expand-all) ended."""

    what: str
    cancelled: bool = False
    files: int = 0


Event = NodeAdded | NodeChanged | Progress | EntriesAdded | IssuesAdded | ExplorationDone


@dataclass
class EventBuffer:
    """Collects events and hands them over at most every ``interval`` seconds, and at the
    latest ``interval`` after they came: an event held back waits for a timer on the running
    loop, not for the next event (a file's last events waited while the other files in flight
    were silent, up to a slow server's timeout, and the panes with them).

    Repeated NodeChanged / Progress / EntriesAdded events for one node collapse to the latest,
    so a flood of updates costs the front end one message per slice."""

    deliver: Callable[[list[Event]], None] | None
    interval: float = 0.15
    _events: list[Event] = field(default_factory=list)
    _latest: dict[tuple[str, int | None], int] = field(default_factory=dict)
    _last: float = field(default_factory=time.monotonic)
    _timer: asyncio.TimerHandle | None = None

    def emit(self, event: Event) -> None:
        if self.deliver is None:
            return
        key: tuple[str, int | None] | None = None
        if isinstance(event, NodeChanged):
            key = ("changed", event.node.id)
        elif isinstance(event, Progress | EntriesAdded):
            key = (type(event).__name__, event.node_id)
        held = self._latest.get(key) if key is not None else None
        prior = self._events[held] if held is not None else None
        if isinstance(prior, NodeChanged) and isinstance(event, NodeChanged) and prior.node.state != event.node.state:
            # a change of state is kept, in order: a file fetched again went DONE -> PENDING ->
            # DONE within one slice, and collapsed to DONE the interface never saw it start
            # again, so kept its old children beside the new ones (found by CI: a flaky test)
            self._latest[("changed", event.node.id)] = len(self._events)
            self._events.append(event)
        elif held is not None:
            self._events[held] = event
        else:
            if key is not None:
                self._latest[key] = len(self._events)
            self._events.append(event)
        waited = time.monotonic() - self._last
        if isinstance(event, ExplorationDone) or waited >= self.interval:
            self.flush()
        elif self._timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop here (a synchronous caller): the next event flushes
                return
            self._timer = loop.call_later(self.interval - waited, self.flush)

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._last = time.monotonic()
        if not self._events or self.deliver is None:
            return
        events, self._events = self._events, []
        self._latest.clear()
        self.deliver(events)

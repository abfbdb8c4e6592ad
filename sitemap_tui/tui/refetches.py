"""Which files are being fetched again, so the URL table knows when rows may have gone.

A file fetched again (r, f, a cancelled file's retry) has its rows deleted and its new rows
added at the end, under new ids. The URL table's rescans count only the rows added after its
last anchor while nothing was removed (issue 19: counting the whole listing each few seconds was
the UI process's heaviest work while an index streamed in), so the app tells it: from the moment
a refetch is asked for (or seen in the engine's events) until it is over, every rescan counts the
whole listing; once the last one is over, one more does (a command's refetch: its deletion is
committed by then), and again when the engine finishes the command that a refetch seen in the
events was part of (an expand-all: a file's last event comes just before its last commit).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from sitemap_tui.engine.model import Node, NodeState
from sitemap_tui.tui.widgets.tree_model import ACTIVE


@dataclass
class Refetches:
    """The files being fetched again; ``tell(ongoing)`` reaches the URL table (see the module
    docstring): True when the first begins, False when the last is over."""

    tell: Callable[[bool], None]
    _by_command: set[int] = field(default_factory=set)
    """Asked for by the user: over when the engine says the command is done (the node is still
    DONE when it is asked, before the engine resets it)."""
    _seen: set[int] = field(default_factory=set)
    """Seen in the events (a node DONE or FAILED going back to PENDING or fetching): over when it
    is neither any more, or gone from the tree."""
    _unsettled: bool = False
    """A refetch was seen in the events since the engine last finished a command: a file's last
    event comes just before its last commit, so :meth:`settled` tells the table once more."""

    @property
    def ongoing(self) -> bool:
        return bool(self._by_command or self._seen)

    def asked(self, node_id: int) -> None:
        """A reload or refetch of ``node_id`` was sent to the engine."""
        was = self.ongoing
        self._by_command.add(node_id)
        if not was:
            self.tell(True)

    def seen(self, node_ids: Iterable[int], nodes: Mapping[int, Node]) -> None:
        """After an event batch: ``node_ids`` were fetched again; those seen before and now
        finished (or forgotten) are over."""
        was = self.ongoing
        self._seen.update(node_ids)
        self._unsettled = self._unsettled or bool(self._seen)
        self._seen = {n for n in self._seen if (node := nodes.get(n)) is not None
                      and (node.state == NodeState.PENDING or node.state in ACTIVE)}
        self._changed(was)

    def done(self, node_id: int) -> None:
        """The engine finished the reload or refetch of ``node_id`` (its work is committed)."""
        was = self.ongoing
        self._by_command.discard(node_id)
        self._changed(was)

    def settled(self) -> None:
        """The engine finished a command (an expand-all, an expansion): what it wrote is
        committed, so a refetch seen in it is counted after its last commit."""
        if self._unsettled and not self.ongoing:
            self._unsettled = False
            self.tell(False)

    def clear(self) -> None:
        """No more work will finish (a new exploration, the engine stopped)."""
        was = self.ongoing
        self._by_command.clear()
        self._seen.clear()
        self._unsettled = False
        self._changed(was)

    def _changed(self, was: bool) -> None:
        if self.ongoing and not was:
            self.tell(True)
        elif was and not self.ongoing:
            self.tell(False)

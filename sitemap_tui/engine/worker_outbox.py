"""What a worker process sends to the explorer: its messages, down its results pipe, from a thread
of their own (see :class:`Outbox`)."""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from typing import Any

from sitemap_tui.engine.filejob import JobBatch, JobProgress

# messages of one file that may wait in a worker's outbox before that file pauses its download
FILE_BACKLOG = 8
# the most messages a worker sends down its pipe in one send (a list of them)
SEND_AT_ONCE = 64
CLOSE = object()  # queued by close(): what was queued before it is sent, then the thread ends


class Outbox:
    """Everything a worker sends to the explorer, sent down its results pipe by one thread.

    A worker runs several files on one loop. Were the loop itself to block on the full results
    pipe (the explorer writing rows behind), every file of the worker would stop reading its
    socket, and servers drop a client that stops reading (seen: a 50 MiB file cut off by the
    test server's 5 s send timeout while a sibling's batches waited). Here the loop never blocks:
    the thread keeps the order of all messages, and each file with more than ``FILE_BACKLOG``
    of its messages still waiting pauses before its next network read (``pace``), alone.
    Progress reports do not count (a file that yields no rows, a 50 MiB line of text, must not
    pause behind its own progress): one waits per file at most, the newer ones are dropped
    until it is sent, since each says only how far the download got. Messages that wait together
    go in one send (see ``_send``)."""

    def __init__(self, results: Any, loop: asyncio.AbstractEventLoop) -> None:
        self._results = results
        self._loop = loop
        self._queue: queue.SimpleQueue[tuple[Any, int | None]] = queue.SimpleQueue()
        self._pending: dict[int, int] = {}
        self._drained: dict[int, asyncio.Event] = {}
        self._progress: set[int] = set()  # files with a progress report waiting to be sent
        self._thread = threading.Thread(target=self._send, name="sitemap-tui-outbox", daemon=True)
        self._thread.start()

    def put(self, msg: Any, node_id: int | None = None) -> None:
        """Queue a message (from the loop's thread); ``node_id`` counts it against that file."""
        if isinstance(msg, JobProgress):
            if msg.node_id in self._progress:
                return
            self._progress.add(msg.node_id)
            self._queue.put((msg, None))
            return
        if node_id is not None:
            self._pending[node_id] = self._pending.get(node_id, 0) + 1
        self._queue.put((msg, node_id))

    def _send(self) -> None:
        held: tuple[Any, int | None] | None = None  # taken from the queue for the next send
        while True:
            queued = [held if held is not None else self._queue.get()]
            held = None
            # what else waits goes in the same send, as a list: a small file's messages come in
            # bursts (answered, kind, rows, done, its slot back), and each send is a pickle, a
            # write and a wake-up of the explorer's reader thread and loop. At most one batch of
            # rows per send: those are the large ones, and a full pipe must still hold the files
            # that fill it back, batch by batch (FILE_BACKLOG)
            rows = isinstance(queued[0][0], JobBatch)
            while len(queued) < SEND_AT_ONCE and queued[-1][0] is not CLOSE:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if rows and isinstance(item[0], JobBatch):
                    held = item
                    break
                rows = rows or isinstance(item[0], JobBatch)
                queued.append(item)
            closing = queued[-1][0] is CLOSE
            if closing:
                queued.pop()
            if queued:
                try:
                    self._results.send(queued[0][0] if len(queued) == 1 else [msg for msg, _ in queued])
                except (OSError, ValueError):  # the pipe was closed under us: the pool is gone
                    return
                counted = []
                for msg, node_id in queued:
                    if isinstance(msg, JobProgress):
                        self._progress.discard(msg.node_id)  # (set ops are atomic under the GIL)
                    elif node_id is not None:
                        counted.append(node_id)
                if counted:
                    with contextlib.suppress(RuntimeError):  # the loop already ended
                        self._loop.call_soon_threadsafe(self._sent, counted)
            if closing:
                return

    def _sent(self, node_ids: list[int]) -> None:
        for node_id in node_ids:
            left = self._pending.get(node_id, 1) - 1
            if left > 0:
                self._pending[node_id] = left
            else:
                self._pending.pop(node_id, None)
            event = self._drained.get(node_id)
            if event is not None and left <= FILE_BACKLOG:
                event.set()

    async def pace(self, node_id: int) -> None:
        while self._pending.get(node_id, 0) > FILE_BACKLOG:
            event = self._drained[node_id] = asyncio.Event()
            try:
                await event.wait()
            finally:
                self._drained.pop(node_id, None)

    def close(self, timeout: float) -> None:
        """Send what is queued (a file's JobDone must not be lost), then stop the thread."""
        self._queue.put((CLOSE, None))
        self._thread.join(timeout)


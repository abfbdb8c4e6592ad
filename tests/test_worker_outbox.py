"""The worker's outbox: its loop never blocks on its results pipe when the explorer stops
reading, and a file whose messages pile up pauses alone while the other files of the worker go
on."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable

from sitemap_tui.engine.filejob import JobAnswered, JobBatch, JobKind
from sitemap_tui.engine.model import NodeKind
from sitemap_tui.engine.worker_outbox import FILE_BACKLOG, Outbox
from sitemap_tui.engine.workers import _SlotFree


def batch(node_id: int, count: int) -> JobBatch:
    """A batch of rows: the large messages, which fill a pipe."""
    return JobBatch(node_id, count, None, [], None, None)


class Pipe(queue.Queue[object]):
    """A results pipe whose reader is the test: ``send`` blocks while it is full."""

    def send(self, obj: object) -> None:
        self.put(obj)


async def test_a_full_results_queue_pauses_only_the_file_that_filled_it() -> None:
    results = Pipe(maxsize=1)  # the explorer is not reading
    outbox = Outbox(results, asyncio.get_running_loop())
    for i in range(FILE_BACKLOG + 3):
        outbox.put(batch(1, i), node_id=1)  # returns at once: the loop is never held
    busy = asyncio.create_task(outbox.pace(1))
    await asyncio.sleep(0.05)
    assert not busy.done()  # file 1 waits for the explorer...
    outbox.put(batch(2, 0), node_id=2)
    await asyncio.wait_for(outbox.pace(2), 1)  # ...file 2 (its backlog is small) does not
    got = [results.get(timeout=5) for _ in range(FILE_BACKLOG + 4)]  # the explorer catches up
    await asyncio.wait_for(busy, 5)
    assert got == [batch(1, i) for i in range(FILE_BACKLOG + 3)] + [batch(2, 0)]  # in order, one a send
    outbox.close(5)


async def test_progress_reports_never_pause_a_file_and_wait_one_at_a_time() -> None:
    from sitemap_tui.engine.filejob import JobProgress

    results = Pipe(maxsize=1)
    outbox = Outbox(results, asyncio.get_running_loop())
    for wire in range(1, FILE_BACKLOG * 4):
        outbox.put(JobProgress(7, wire * 65536, None), node_id=7)
    await asyncio.wait_for(outbox.pace(7), 1)  # a download that yields no rows reads on
    first = results.get(timeout=5)
    while 7 in outbox._progress:  # the sender marks it sent right after the put returns
        await asyncio.sleep(0.01)
    outbox.put(JobProgress(7, 10**9, None), node_id=7)  # the first one went out: this one waits
    assert first == JobProgress(7, 65536, None)
    assert results.get(timeout=5) == JobProgress(7, 10**9, None)  # the ones in between were dropped
    outbox.close(5)


async def test_small_messages_waiting_together_go_in_one_send_with_at_most_one_batch() -> None:
    """A small file's messages come in a burst; each send is a pickle, a write and a wake-up of
    the explorer's reader and loop, so what waits together goes as one list, in order (1,000
    one-URL files with two workers: 0.90x the CPU and the wall, farm-bench, 8 pairs). A batch of
    rows is the large kind: one a send, so a pipe that fills still holds a file back."""
    results = GatedPipe()
    outbox = Outbox(results, asyncio.get_running_loop())
    first = JobAnswered(9, 200, None)
    outbox.put(first, node_id=9)
    await until(outbox._queue.empty)  # the sender took it and waits in its send
    burst = [JobAnswered(3, 200, "application/xml"), JobKind(3, NodeKind.URLSET), batch(3, 1),
             _SlotFree(0, 1), batch(3, 2), JobAnswered(4, 200, None)]
    for msg in burst:
        outbox.put(msg, node_id=None if isinstance(msg, _SlotFree) else msg.node_id)
    results.gate.set()
    assert [results.get(timeout=5) for _ in range(3)] == [first, burst[:4], burst[4:]]
    for node_id in (3, 4, 9):
        await asyncio.wait_for(outbox.pace(node_id), 1)
    await until(lambda: not outbox._pending)  # each counted message, once sent, is counted off its file
    outbox.close(5)


async def until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait (polling) until ``condition()`` holds, at most ``timeout`` seconds."""
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)


class GatedPipe(Pipe):
    """A pipe whose sends wait until the test opens its gate."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def send(self, obj: object) -> None:
        self.gate.wait(5)
        super().send(obj)

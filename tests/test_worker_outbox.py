"""The worker's outbox: its loop never blocks on its results pipe when the explorer stops
reading, and a file whose messages pile up pauses alone while the other files of the worker go
on."""

from __future__ import annotations

import asyncio
import queue

from sitemap_tui.engine.workers import FILE_BACKLOG, _Outbox


class Pipe(queue.Queue[object]):
    """A results pipe whose reader is the test: ``send`` blocks while it is full."""

    def send(self, obj: object) -> None:
        self.put(obj)


async def test_a_full_results_queue_pauses_only_the_file_that_filled_it() -> None:
    results = Pipe(maxsize=1)  # the explorer is not reading
    outbox = _Outbox(results, asyncio.get_running_loop())
    for i in range(FILE_BACKLOG + 3):
        outbox.put(("batch", 1, i), node_id=1)  # returns at once: the loop is never held
    busy = asyncio.create_task(outbox.pace(1))
    await asyncio.sleep(0.05)
    assert not busy.done()  # file 1 waits for the explorer...
    outbox.put(("batch", 2, 0), node_id=2)
    await asyncio.wait_for(outbox.pace(2), 1)  # ...file 2 (its backlog is small) does not
    got = [results.get(timeout=5) for _ in range(FILE_BACKLOG + 4)]  # the explorer catches up
    await asyncio.wait_for(busy, 5)
    assert got == [("batch", 1, i) for i in range(FILE_BACKLOG + 3)] + [("batch", 2, 0)]  # in order
    outbox.close(5)


async def test_progress_reports_never_pause_a_file_and_wait_one_at_a_time() -> None:
    from sitemap_tui.engine.filejob import JobProgress

    results = Pipe(maxsize=1)
    outbox = _Outbox(results, asyncio.get_running_loop())
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

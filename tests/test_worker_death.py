"""A worker process killed in the middle of a message (out of memory, SIGKILL) fails only its
own files: the other workers' messages keep arriving. With one results queue shared by all the
workers, such a death left the queue's write lock held and the reader waiting for the rest of
the message, and the exploration hung (seen in tests/test_shards.py's killed-worker test)."""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import struct
import threading

import pytest

from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.filejob import JobDone
from sitemap_tui.engine.workers import WorkerDied, WorkerPool, _Crashed, _Route


async def test_a_worker_killed_mid_message_fails_its_files_and_the_others_go_on() -> None:
    loop = asyncio.get_running_loop()
    ctx = mp.get_context("spawn")
    pool = WorkerPool(2, FetchConfig())
    pipes = [ctx.Pipe(duplex=False) for _ in range(2)]
    # the pool as _start leaves it, with the test as its two workers
    pool._loop = loop
    pool._channels = [receive for receive, _ in pipes]
    pool._inboxes = [ctx.Queue(), ctx.Queue()]
    done: dict[int, asyncio.Future[JobDone]] = {node: loop.create_future() for node in (1, 2)}
    pool._routes = {1: _Route(lambda _msg: None, done[1], 0), 2: _Route(lambda _msg: None, done[2], 1)}
    reader = threading.Thread(target=pool._read, daemon=True)
    reader.start()

    dying, living = pipes[0][1], pipes[1][1]
    # worker 0 wrote the length of a 1000-byte message and 10 bytes of it, then died
    os.write(dying.fileno(), struct.pack("!i", 1000) + b"x" * 10)
    dying.close()
    with pytest.raises(WorkerDied):
        await asyncio.wait_for(done[1], 10)
    assert pool._dead == {0}

    # worker 1 goes on: its message after the death still reaches its file
    living.send(_Crashed(2, "boom"))
    with pytest.raises(RuntimeError, match="boom"):
        await asyncio.wait_for(done[2], 10)

    living.close()  # its end: the reader stops once every pipe ended
    await loop.run_in_executor(None, reader.join, 10)
    assert not reader.is_alive()
    assert pool._dead == {0, 1}
    for inbox in pool._inboxes:
        inbox.close()


async def test_a_slot_asked_for_while_the_pool_closes_is_neither_lent_nor_left_pending() -> None:
    """A worker's ask can still be in its pipe when the pool closes (a SIGTERM mid-run): the
    reader delivers it while the processes are joined. It was lent by a task that nothing
    cancelled any more, and the loop's end printed asyncio's "Task was destroyed but it is
    pending!" under the one-line "stopped by SIGTERM"."""
    from sitemap_tui.engine.limits import Limiter
    from sitemap_tui.engine.workers import _SlotAsk

    limiter = Limiter(1, 1)
    await limiter.acquire("h")  # every slot held: a lend would wait
    pool = WorkerPool(1, FetchConfig(), limiter=limiter)
    pool._loop = asyncio.get_running_loop()
    pool._deliver(_SlotAsk(0, 1, "h"))
    assert list(pool._asking) == [(0, 1)]  # lent once a slot frees, while the pool runs
    await pool.aclose()
    pool._deliver(_SlotAsk(0, 2, "h"))  # (what the reader still had)
    await asyncio.sleep(0)
    assert (0, 2) not in pool._asking and all(task.done() for task in pool._asking.values())

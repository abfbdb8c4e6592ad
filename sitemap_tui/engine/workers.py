"""Worker processes that run FileJobs, so parsing and checking use every core and never block
the explorer's event loop.

Each worker owns its own event loop, Fetcher and checker copy, and runs several files at once:
the explorer keeps ``files_in_flight`` files going (``--concurrency``, or the number of workers
when that is higher, so that no worker waits for a file), and hands each new file to the worker
with the fewest. Messages come back through a pipe of each worker's own: when the explorer
falls behind, a worker's sends block once its pipe is full instead of piling batches up in
memory. One pipe per worker, not one queue shared by all: a worker killed (out of memory,
SIGKILL) in the middle of a message on a shared queue died holding its write lock, and every
other worker, and the reader waiting for the rest of that message, then waited forever. A dead
worker's pipe ends (EOF) after its last whole message, so its death is noticed right there.
Each worker has a queue of its own for what the explorer sends it: files, "stop this file",
and request slots.

Request slots: a worker's Fetcher takes no slot of its own. For each request it asks the
explorer's ``Limiter`` (``RemoteSlots``: a ``_SlotAsk`` up the results pipe, a grant down the
worker's queue, a ``_SlotFree`` when the response is read, and the same again around each
parse of a chunk, see ``limits.Lease``; not for the read that only ends a body whose
Content-Length bytes all came), so ``--concurrency`` and ``--per-host`` hold for the whole
exploration, in-process fetches included. The round trip costs well under a millisecond per
request, against the tens of milliseconds of the request. What a worker sends goes through its
``worker_outbox.Outbox``, several messages to a send when they wait together.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import multiprocessing as mp
import multiprocessing.connection as mp_connection
import os
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitemap_tui import scratch
from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.filejob import JobBatch, JobDone, JobMessage, JobSpec
from sitemap_tui.engine.limits import Lease, Limiter
from sitemap_tui.engine.netpolicy import pin_answers, pinned_answers
from sitemap_tui.engine.store import ShardWriter, remove_shard
from sitemap_tui.engine.store.shard import ROTATE, shard_dir_files
from sitemap_tui.engine.validator import Validator
from sitemap_tui.engine.worker_outbox import Outbox

# how long the explorer waits for what a cancelled file's worker parsed (the worker stops it at
# once and sends it on; a worker too busy to answer must not hold the cancel up for long)
CANCEL_GRACE_S = 1.0


class WorkerDied(RuntimeError):
    """The worker process running a file is gone (killed, out of memory)."""


@dataclass(slots=True)
class _Crashed:
    node_id: int
    error: str


@dataclass(slots=True)
class _SlotAsk:
    worker: int
    ticket: int
    host: str
    resume: bool = False  # a request taking its slot back between two reads (limits.Gate)


@dataclass(slots=True)
class _SlotFree:
    worker: int
    ticket: int


@dataclass(slots=True)
class _Stop:
    """Explorer -> worker: end this file at its next chunk (see Explorer._claim); ``now``: at
    once, what it parsed sent on (the explorer's wait for it was cancelled: WorkerPool.run)."""

    node_id: int
    now: bool = False


@dataclass(slots=True)
class _Grant:
    """Explorer -> worker: the request waiting on this ticket may go."""

    ticket: int


def files_in_flight(concurrency: int, workers: int) -> int:
    """How many files an expansion keeps going at once: at least one per worker, else workers
    beyond ``--concurrency`` would sit idle (issue 19: ``--workers 16`` alone was slower than
    the default). Requests still take the Limiter's slots, so ``--concurrency`` and
    ``--per-host`` keep bounding what reaches the servers; a file beyond them waits for a slot
    (its deadline starts only when it gets one)."""
    return max(1, concurrency, workers)


def _exit_when_orphaned(parent: int) -> None:
    """A worker whose explorer's process was killed ends at once: nobody reads its results any more,
    and the queues' feeder threads would otherwise block its exit forever."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


class RemoteSlots:
    """A worker's request slots, lent one request at a time by the explorer's Limiter."""

    def __init__(self, worker: int, results: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.worker = worker
        self._results = results
        self._loop = loop
        self._tickets = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[None]] = {}

    def granted(self, ticket: int) -> None:
        """A grant arrived (on the worker's loop)."""
        fut = self._waiting.pop(ticket, None)
        if fut is None or fut.done():
            # its request was given up while waiting (cancelled): hand the slot straight back
            self._results.put(_SlotFree(self.worker, ticket))
        else:
            fut.set_result(None)

    async def _ask(self, host: str, resume: bool) -> int:
        """Wait for a slot of ``host``; returns the ticket it was lent on."""
        ticket = next(self._tickets)
        fut: asyncio.Future[None] = self._loop.create_future()
        self._waiting[ticket] = fut
        self._results.put(_SlotAsk(self.worker, ticket, host, resume))
        try:
            await fut
        except BaseException:
            # the grant may still come: granted() returns it then (the ticket stays known
            # as given up because its future is done)
            if not fut.done():
                fut.cancel()
            self._waiting[ticket] = fut
            raise
        return ticket

    @contextlib.asynccontextmanager
    async def slot(self, host: str) -> AsyncIterator[Lease]:
        ticket = 0

        async def take(resume: bool) -> None:
            nonlocal ticket
            ticket = await self._ask(host, resume)

        lease = Lease(take, lambda: self._results.put(_SlotFree(self.worker, ticket)))
        await lease.take()
        try:
            yield lease
        finally:
            lease.give()


def _worker_main(
    worker: int, inbox: Any, results: Any, cancel: Any, fetch_config: FetchConfig, checker: Validator | None,
    parent: int, shard_dir: str, copied: Any, rotate: int, pinned: dict[str, tuple[str, ...]],
) -> None:
    """``results`` is the sending end of this worker's pipe; ``cancel`` a shared flag read
    without a lock (an ``mp.Event`` has one, and a worker killed while holding it would hang
    ``cancel_running`` and every other worker); ``pinned`` the parent's answer for the target's
    name (engine/netpolicy.py: a worker's own first lookup would be a new one for a rebinding
    DNS to answer)."""
    import gc

    from sitemap_tui.engine.fetch import Fetcher
    from sitemap_tui.engine.filejob import FileJob
    from sitemap_tui.signals import leave_hangup_to_parent

    leave_hangup_to_parent()
    pin_answers(pinned)

    # batches of short-lived entries trip the cyclic collector constantly; none of them form
    # cycles, so collect far less often
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)

    # the creator's pid comes as an argument: it may be gone before this process got this far
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()

    # the rows of this worker's batches go into its shard files, which the store copies
    shard = ShardWriter(Path(shard_dir), worker, lambda: copied[worker], rotate)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        outbox = Outbox(results, loop)
        slots = RemoteSlots(worker, outbox, loop)
        stopped: set[int] = set()
        tasks: set[asyncio.Task[None]] = set()
        running: dict[int, asyncio.Task[None]] = {}  # by node id
        closing = asyncio.Event()

        async def run(spec: JobSpec, fetcher: Fetcher) -> None:
            node_id = spec.node_id
            try:
                job = FileJob(
                    spec, lambda msg: outbox.put(msg, node_id), checker,
                    cancelled=lambda: bool(cancel.value) or node_id in stopped,
                    pace=lambda: outbox.pace(node_id), shard=shard,
                )
                outbox.put(await job.run(fetcher))
            except Exception as exc:  # the explorer turns this into a node error
                outbox.put(_Crashed(node_id, f"{type(exc).__name__}: {exc}"))
            except asyncio.CancelledError:
                if closing.is_set():
                    raise
                # stopped now (_Stop.now): what it parsed went on in its batches; this ends the
                # explorer's wait for the file
                outbox.put(_Crashed(node_id, "cancelled"))
            finally:
                stopped.discard(node_id)
                if running.get(node_id) is asyncio.current_task():
                    running.pop(node_id, None)

        def dispatch(msg: Any, fetcher: Fetcher) -> None:
            if msg is None:
                closing.set()
            elif isinstance(msg, _Grant):
                slots.granted(msg.ticket)
            elif isinstance(msg, _Stop):
                stopped.add(msg.node_id)
                task = running.get(msg.node_id)
                if msg.now and task is not None:  # (not at its next chunk: a stalled one has none)
                    task.cancel()
            else:
                task = loop.create_task(run(msg, fetcher))
                tasks.add(task)
                running[msg.node_id] = task
                task.add_done_callback(tasks.discard)

        def read(fetcher: Fetcher) -> None:
            # blocking reads on a thread of their own, handed to the loop in order
            while True:
                msg = inbox.get()
                loop.call_soon_threadsafe(dispatch, msg, fetcher)
                if msg is None:
                    return

        async with Fetcher(fetch_config, slots=slots) as fetcher:
            threading.Thread(target=read, args=(fetcher,), daemon=True).start()
            await closing.wait()
            # the explorer is closing the pool: nobody waits for these files any more (and
            # one waiting for a request slot would wait forever)
            for task in tasks:
                task.cancel()
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)
        await loop.run_in_executor(None, outbox.close, 5.0)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
    shard.close()


@dataclass
class _Route:
    emit: Callable[[JobMessage], None]
    fut: asyncio.Future[JobDone]
    worker: int


class WorkerPool:
    """Started lazily; ``run(spec, emit)`` awaits one file's JobDone, routing its messages.

    ``limiter`` is the exploration's (the Explorer's Fetcher uses the same one): workers'
    requests take their slots from it.

    Workers write their batches' rows into shard files (engine/store/shard.py) in a temp
    directory of the pool's (``shard_dir``), removed when the pool closes; ``copied`` tells
    each worker how far the store took its rows, so that it deletes what was copied;
    ``rotate`` is how many entry rows a shard file takes before its worker starts the next."""

    def __init__(self, size: int, fetch_config: FetchConfig, checker: Validator | None = None,
                 limiter: Limiter | None = None, rotate: int = ROTATE) -> None:
        self.size = max(1, size)
        self.rotate = rotate
        self.shard_dir: Path | None = None
        self._copied: Any = None
        self._ctx = mp.get_context("spawn")  # never fork a process that may run threads
        self._inboxes: list[Any] = []
        self._channels: list[Any] = []  # per worker, the reading end of its results pipe
        self._cancel: Any = self._ctx.RawValue("b", 0)
        self._closing = False
        self._procs: list[Any] = []
        self._load: list[int] = []  # files in flight per worker
        self._fetch_config = fetch_config
        self._checker = checker
        self.limiter = limiter or Limiter(fetch_config.concurrency, fetch_config.per_host)
        self._routes: dict[int, _Route] = {}
        self._held: dict[tuple[int, int], str] = {}  # (worker, ticket) -> host of a lent slot
        self._asking: dict[tuple[int, int], asyncio.Task[None]] = {}
        self._dead: set[int] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reader: threading.Thread | None = None

    def _start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._closing = False
        # named after this process and removed when it ends, even on a signal; a later run
        # removes it when this process was killed outright (sitemap_tui.scratch)
        self.shard_dir = scratch.temp_dir()
        # per worker, the last of its local entry ids the store has taken (shared memory: the
        # workers only read it, each its own slot)
        self._copied = self._ctx.RawArray("q", self.size)
        for worker in range(self.size):
            inbox = self._ctx.Queue()
            receive, send = self._ctx.Pipe(duplex=False)
            proc = self._ctx.Process(
                target=_worker_main,
                args=(worker, inbox, send, self._cancel, self._fetch_config, self._checker, os.getpid(),
                      str(self.shard_dir), self._copied, self.rotate, pinned_answers()),
                daemon=True,
            )
            proc.start()
            send.close()  # the worker holds the only sending end: its exit ends the pipe
            self._channels.append(receive)
            self._inboxes.append(inbox)
            self._procs.append(proc)
            self._load.append(0)
        self._reader = threading.Thread(target=self._read, name="sitemap-tui-results", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        """Hand every worker's messages to the loop, in each worker's order; a pipe that ends
        (its worker exited, or was killed, mid-message too) is that worker's death, noticed
        after all it sent in whole was delivered."""
        assert self._loop is not None
        open_ = {conn: worker for worker, conn in enumerate(self._channels)}
        while open_:
            for ready in mp_connection.wait(list(open_), timeout=0.5):
                conn: Any = ready
                try:
                    msg = conn.recv()
                except (EOFError, OSError):
                    worker = open_.pop(conn)
                    if not self._closing:
                        self._loop.call_soon_threadsafe(self._workers_died, {worker})
                    continue
                self._loop.call_soon_threadsafe(self._deliver_all if isinstance(msg, list) else self._deliver, msg)

    def _deliver_all(self, msgs: list[Any]) -> None:
        """Several messages of one worker sent at once (_Outbox._send), in their order; one that
        fails is reported as the loop reports a failing callback, and the rest still arrive."""
        assert self._loop is not None
        for msg in msgs:
            try:
                self._deliver(msg)
            except Exception as exc:
                self._loop.call_exception_handler({"message": "delivering a worker's message", "exception": exc})

    def _deliver(self, msg: Any) -> None:
        if isinstance(msg, _SlotAsk):
            if self._closing:  # (an ask still in the pipe: nothing will be lent any more)
                return
            key = (msg.worker, msg.ticket)
            self._asking[key] = asyncio.get_running_loop().create_task(self._lend(key, msg.host, msg.resume))
            return
        if isinstance(msg, _SlotFree):
            self._give_back((msg.worker, msg.ticket))
            return
        route = self._routes.get(msg.node_id)
        if isinstance(msg, JobBatch) and msg.shard is not None:
            try:
                if route is not None:
                    route.emit(msg)
            finally:
                # applied, or dropped (its file was given up): either way its worker may
                # delete these rows now (messages of one worker arrive in order)
                self._copied[msg.shard.worker] = msg.shard.last
            return
        if route is None:
            return
        if isinstance(msg, JobDone):
            if not route.fut.done():
                route.fut.set_result(msg)
        elif isinstance(msg, _Crashed):
            if not route.fut.done():
                route.fut.set_exception(RuntimeError(msg.error))
        else:
            route.emit(msg)

    async def _lend(self, key: tuple[int, int], host: str, resume: bool) -> None:
        try:
            await self.limiter.acquire(host, resume)
        finally:
            self._asking.pop(key, None)
        worker = key[0]
        if worker in self._dead:
            self.limiter.release(host)
            return
        self._held[key] = host
        self._inboxes[worker].put(_Grant(key[1]))

    def _give_back(self, key: tuple[int, int]) -> None:
        host = self._held.pop(key, None)
        if host is not None:
            self.limiter.release(host)

    def _workers_died(self, dead: set[int]) -> None:
        """A worker process that is gone (killed, out of memory) fails its files and returns
        its slots, so nothing waits for it forever."""
        new = dead - self._dead
        self._dead |= new
        for worker in new:
            # nobody reads its inbox any more: what is put there must not hold this process's exit
            self._inboxes[worker].cancel_join_thread()
        if self.shard_dir is not None:
            # what a dead worker wrote is no use to anyone: its files go now (the messages it
            # sent were all delivered before its death was noticed, see _read)
            for worker in new:
                for path in shard_dir_files(self.shard_dir, worker):
                    # each database with its -wal/-shm/-journal, and any of those left alone
                    remove_shard(path.with_name(path.name.partition(".db")[0] + ".db"))
        for key in [k for k in self._held if k[0] in new]:
            self._give_back(key)
        for route in list(self._routes.values()):
            if route.worker in new and not route.fut.done():
                route.fut.set_exception(WorkerDied(f"worker process {route.worker} died"))

    async def run(self, spec: JobSpec, emit: Callable[[JobMessage], None]) -> JobDone:
        if not self._procs:
            self._start()
        assert self._loop is not None
        alive = [i for i in range(self.size) if i not in self._dead]
        if not alive:
            raise RuntimeError("no worker process left")
        worker = min(alive, key=lambda i: self._load[i])  # the least loaded one
        fut: asyncio.Future[JobDone] = self._loop.create_future()
        self._routes[spec.node_id] = _Route(emit, fut, worker)
        self._load[worker] += 1
        try:
            self._inboxes[worker].put(spec)
            return await asyncio.shield(fut)  # (a cancel of this task would cancel fut: see below)
        except asyncio.CancelledError:
            # a cancel (x, the run's --max-time) keeps what arrived: the worker stops the file at
            # once and sends what it parsed, which `emit` still takes for a moment (found from
            # outside: a slow file's entries since its last batch were lost; and a stalled one's,
            # waiting for a next chunk, by a review)
            self.stop(spec.node_id, now=True)
            loop = self._loop
            deadline = loop.time() + CANCEL_GRACE_S
            while not fut.done() and (left := deadline - loop.time()) > 0:
                # (the explorer cancels a running file's task twice: its own cancel, then the
                # expansion's; each ends one wait, not the grace)
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await asyncio.wait_for(asyncio.shield(fut), left)
            raise
        finally:
            self._load[worker] -= 1
            self._routes.pop(spec.node_id, None)

    @property
    def alive(self) -> bool:
        """False once every worker process died (not yet started counts as alive)."""
        return not self._procs or len(self._dead) < len(self._procs)

    def stop(self, node_id: int, *, now: bool = False) -> None:
        """End one file at its next chunk, or ``now`` (its messages until then are still routed)."""
        route = self._routes.get(node_id)
        if route is not None and route.worker not in self._dead:
            self._inboxes[route.worker].put(_Stop(node_id, now))

    def cancel_running(self) -> None:
        """Ask the running files to stop at their next chunk (they report back as cancelled)."""
        self._cancel.value = 1

    def resume(self) -> None:
        self._cancel.value = 0

    async def aclose(self) -> None:
        """Stop lending slots, then close the processes (off the event loop: joins block)."""
        # closing from here on: an ask the reader delivers while the processes are joined is
        # not lent (its task would be left pending when the loop ends: asyncio's "Task was
        # destroyed but it is pending!" on stderr after a SIGTERM)
        self._closing = True
        for task in list(self._asking.values()):
            task.cancel()
        await asyncio.get_running_loop().run_in_executor(None, self.close)

    def close(self) -> None:
        self._closing = True
        for inbox in self._inboxes:
            inbox.put(None)
        # one deadline for all of them: waiting 2 s for each in turn made a slow pool (workers
        # at low priority on a busy machine) hold the engine's stop for 2 s per worker
        deadline = time.monotonic() + 2
        for proc in self._procs:
            proc.join(timeout=max(0.0, deadline - time.monotonic()))
        for proc in self._procs:
            if proc.is_alive():
                proc.terminate()
        if self._reader is not None:
            self._reader.join(timeout=2)
        for conn in self._channels:
            conn.close()
        self._channels.clear()
        self._procs.clear()
        if self.shard_dir is not None:
            scratch.remove(self.shard_dir)
            self.shard_dir = None

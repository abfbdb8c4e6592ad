"""Request slots: how many requests may be in flight at once, over all hosts and per host.

One ``Limiter`` belongs to one exploration. Every fetch of that exploration takes a slot for
each request (each redirect hop) while it waits for the response and reads its body, whether the
fetch runs in the explorer's process or in a worker process (``workers.py`` asks the explorer's
limiter for a slot over its queues, see ``RemoteSlots``). That is what makes ``--concurrency``
and ``--per-host`` limits of the exploration rather than of each process.

Between two reads of a body the fetch lends its slot back (``Lease``) while the chunk just read
is decoded and parsed: otherwise ``--per-host 4`` with every file on one host would let only four
files be parsed at once, however many workers there are (issue 19). What the limits bound is
then the requests reading from the network at once, not the files being worked on. The price:
a file between two reads waits for a slot like a new request (FIFO), and does not read its socket
meanwhile; with every slot of a host held by reads that stall (a trickling server), it waits up
to their read timeout.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol


class Lease:
    """One request's slot: ``give()`` lends it back while the fetch parses what it read,
    ``take()`` waits for it again before the next read; the request's end gives it back if held."""

    def __init__(self, take: Callable[[], Awaitable[None]], give: Callable[[], None]) -> None:
        self._take = take
        self._give = give
        self.held = False

    async def take(self) -> None:
        if not self.held:
            await self._take()
            self.held = True

    def give(self) -> None:
        if self.held:
            self.held = False
            self._give()


class Slots(Protocol):
    """What a Fetcher needs: ``async with slots.slot(host) as lease:`` around each request."""

    def slot(self, host: str) -> AbstractAsyncContextManager[Lease]: ...


class Limiter:
    """A global and a per-host limit. A request waits for its host first and only then takes a
    global slot, so waiting for a busy host never holds a slot another host could use."""

    def __init__(self, concurrency: int, per_host: int) -> None:
        self.concurrency = max(1, concurrency)
        self.per_host = max(1, per_host)
        self._global = asyncio.Semaphore(self.concurrency)
        self._hosts: dict[str, asyncio.Semaphore] = {}

    def _host(self, host: str) -> asyncio.Semaphore:
        sem = self._hosts.get(host)
        if sem is None:
            sem = self._hosts[host] = asyncio.Semaphore(self.per_host)
        return sem

    async def acquire(self, host: str) -> None:
        sem = self._host(host)
        await sem.acquire()
        try:
            await self._global.acquire()
        except BaseException:
            sem.release()
            raise

    def release(self, host: str) -> None:
        self._global.release()
        self._host(host).release()

    @asynccontextmanager
    async def slot(self, host: str) -> AsyncIterator[Lease]:
        lease = Lease(lambda: self.acquire(host), lambda: self.release(host))
        await lease.take()
        try:
            yield lease
        finally:
            lease.give()

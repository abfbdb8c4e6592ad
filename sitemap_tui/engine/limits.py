"""Request slots: how many requests may be in flight at once, over all hosts and per host.

One ``Limiter`` belongs to one exploration. Every fetch of that exploration takes a slot for
each request (each redirect hop) while it waits for the response and reads its body, whether the
fetch runs in the explorer's process or in a worker process (``workers.py`` asks the explorer's
limiter for a slot over its queues, see ``RemoteSlots``). That is what makes ``--concurrency``
and ``--per-host`` limits of the exploration rather than of each process.

Between two reads of a body the fetch lends its slot back (``Lease``) while the chunk just read
is decoded and parsed: otherwise ``--per-host 4`` with every file on one host would let only four
files be parsed at once, however many workers there are (issue 19). What the limits bound is
then the requests reading from the network at once, not the files being worked on. A file between two reads takes its slot again before any new request (``resume``): as a new
request it waited behind requests that hold their slots until their answer comes, so with slow
answers a file whose body had arrived waited seconds, and a cancel or ``--max-time`` then counted
it as not fetched. It does not read its socket while it waits; with every slot of a host held by
requests whose answers do not come, or by reads that stall (a trickling server), it still waits
for them: up to their deadline.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol


class Lease:
    """One request's slot: ``give()`` lends it back while the fetch parses what it read,
    ``take()`` waits for it again before the next read (ahead of new requests: ``take`` is
    called with ``resume`` True then); the request's end gives it back if held."""

    def __init__(self, take: Callable[[bool], Awaitable[None]], give: Callable[[], None]) -> None:
        self._take = take
        self._give = give
        self.held = False
        self._taken = False

    async def take(self) -> None:
        if not self.held:
            await self._take(self._taken)
            self.held = True
            self._taken = True

    def give(self) -> None:
        if self.held:
            self.held = False
            self._give()


class Slots(Protocol):
    """What a Fetcher needs: ``async with slots.slot(host) as lease:`` around each request."""

    def slot(self, host: str) -> AbstractAsyncContextManager[Lease]: ...


class Gate:
    """A semaphore with two queues: a waiter that ``resume``s (a file taking its slot back
    between two reads) is let in before any new one. Each queue is first in, first out."""

    def __init__(self, value: int) -> None:
        self._value = value
        self._resuming: deque[asyncio.Future[None]] = deque()
        self._new: deque[asyncio.Future[None]] = deque()

    async def acquire(self, resume: bool = False) -> None:
        ahead = self._resuming if resume else (self._resuming or self._new)
        if self._value > 0 and not ahead:
            self._value -= 1
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._resuming if resume else self._new
        queue.append(fut)
        try:
            await fut
        except BaseException:
            if fut.done() and not fut.cancelled():
                self.release()  # granted as it was given up: pass the slot on
            elif fut in queue:  # (a release may have passed it over already)
                queue.remove(fut)
            raise

    def release(self) -> None:
        for queue in (self._resuming, self._new):
            while queue:
                fut = queue.popleft()
                if not fut.done():
                    fut.set_result(None)  # the slot passes straight to the waiter
                    return
        self._value += 1


class Limiter:
    """A global and a per-host limit. A request waits for its host first and only then takes a
    global slot, so waiting for a busy host never holds a slot another host could use."""

    def __init__(self, concurrency: int, per_host: int) -> None:
        self.concurrency = max(1, concurrency)
        self.per_host = max(1, per_host)
        self._global = Gate(self.concurrency)
        self._hosts: dict[str, Gate] = {}

    def _host(self, host: str) -> Gate:
        gate = self._hosts.get(host)
        if gate is None:
            gate = self._hosts[host] = Gate(self.per_host)
        return gate

    async def acquire(self, host: str, resume: bool = False) -> None:
        """A slot of ``host``; ``resume``: a request taking its slot back, ahead of new ones."""
        gate = self._host(host)
        await gate.acquire(resume)
        try:
            await self._global.acquire(resume)
        except BaseException:
            gate.release()
            raise

    def release(self, host: str) -> None:
        self._global.release()
        self._host(host).release()

    @asynccontextmanager
    async def slot(self, host: str) -> AsyncIterator[Lease]:
        lease = Lease(lambda resume: self.acquire(host, resume), lambda: self.release(host))
        await lease.take()
        try:
            yield lease
        finally:
            lease.give()

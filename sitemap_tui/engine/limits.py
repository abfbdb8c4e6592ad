"""Request slots: how many requests may be in flight at once, over all hosts and per host.

One ``Limiter`` belongs to one exploration. Every fetch of that exploration takes a slot for
each request (each redirect hop) and holds it until the response's body is read, whether the
fetch runs in the explorer's process or in a worker process (``workers.py`` asks the explorer's
limiter for a slot over its queues, see ``RemoteSlots``). That is what makes ``--concurrency``
and ``--per-host`` limits of the exploration rather than of each process.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol


class Slots(Protocol):
    """What a Fetcher needs: ``async with slots.slot(host):`` around each request."""

    def slot(self, host: str) -> AbstractAsyncContextManager[None]: ...


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
    async def slot(self, host: str) -> AsyncIterator[None]:
        await self.acquire(host)
        try:
            yield
        finally:
            self.release(host)

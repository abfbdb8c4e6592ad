"""When the worker pool of a run without ``--workers`` starts (ExploreOptions.lazy_pool).

Each worker is a fresh interpreter importing the engine: ~0.3 s of wall on a 2-core box before
its first file, and its rows reach the store through a shard's copy. Where files are large and
many the workers pay for their start within the first file; a small site pays it for nothing.

So the pool starts once the exploration shows it has work for it: more than
``cores.POOL_AFTER_FILES`` child files waiting to be fetched, or ``cores.POOL_AFTER_ENTRIES``
entries parsed in the explorer's process. Until then the first child file is a probe, parsed
here while the files after it wait for it, at most ``cores.PROBE_WAIT`` (about what the pool's
start costs): a probe that ends with a few entries lets them be parsed here too; one that is
slow, or large (its entries pass the threshold), sends them to the pool while it goes on here;
one that lists no entry (an index) hands the probe on to the next file.

Measured on this 2-core box (`farm-bench` pairs against `--workers 2`, bench/server.py): a
small site's `validate` (an index and three files of 50 URLs) 0.33 s against 0.66 s (0.51x the
wall, 0.38x the CPU, 9 pairs); `urls` of three files of 50,000 URLs 0.94x the wall (5 pairs);
`validate` of three heavy files of 50,000 URLs (images, hreflang) 13.5 s against 13.6 s, 1.00x
(3 pairs), and 0.95x as a site whose robots.txt names that index. Without the probe the heavy
files were 1.23x (16.5 s): all three began at once and were parsed here, one after the other.
"""

from __future__ import annotations

import asyncio

from sitemap_tui.engine import cores


def pool_pays(files_waiting: int, entries_here: int) -> bool:
    """Whether worker processes are worth starting, from what is known so far: the child files
    waiting (this one included) and the entries parsed in the explorer's process."""
    return files_waiting > cores.POOL_AFTER_FILES or entries_here >= cores.POOL_AFTER_ENTRIES


class PoolGate:
    """The counts a lazy pool's start is decided from, and the probe the decision waits on."""

    def __init__(self) -> None:
        self.listed = 0  # child files listed to be fetched (not robots.txt: read here always)
        self.started = 0  # child files begun
        self._inline: dict[int, int] = {}  # node id -> entries parsed here so far
        self._entries = 0
        self._probe: int | None = None
        self._small = False  # a probe ended with a few entries: the files after it are parsed here
        self._decided = asyncio.Event()

    def _pays(self) -> bool:
        return pool_pays(self.listed - self.started + 1, self._entries)

    async def wanted(self, node_id: int) -> bool:
        """Whether the child file ``node_id``, begun now (``started`` counts it), goes to the
        pool; False: it is parsed here (and reported with :meth:`parsed` and :meth:`ended`)."""
        while not self._pays():
            if self._probe is None:
                self._probe = node_id  # this file is the probe
                break
            if self._small:
                break
            decided = self._decided
            try:
                await asyncio.wait_for(decided.wait(), cores.PROBE_WAIT)
            except TimeoutError:
                return True  # a slow probe: a large file, or a slow server; the pool for the rest
        else:
            return True
        self._inline[node_id] = 0
        return False

    def parsed(self, node_id: int, count: int) -> None:
        """A file parsed here has ``count`` entries so far."""
        before = self._inline.get(node_id)
        if before is None:
            return
        self._inline[node_id] = count
        self._entries += count - before
        if node_id == self._probe and self._entries >= cores.POOL_AFTER_ENTRIES:
            self._decided.set()  # large: the files waiting for it go to the pool

    def ended(self, node_id: int) -> None:
        """A file parsed here ended (done, failed, cancelled)."""
        if node_id != self._probe:
            return
        if self._inline.get(node_id):
            self._small = True
        else:
            # no entries (an index, the one robots.txt names; a failure): nothing learned of the
            # files' size, and its children would all have been parsed here, however large
            # (found from outside: a site's three heavy files, 1.35x the wall of --workers 2);
            # the next file is the probe
            self._probe = None
        decided, self._decided = self._decided, asyncio.Event()
        decided.set()

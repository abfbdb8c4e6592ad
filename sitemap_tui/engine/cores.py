"""How many cores this process may really use, and the worker count that follows from it.

``os.cpu_count()`` counts the machine's cores, not this process's: under ``taskset`` or a
container's ``--cpuset-cpus`` the process may run on fewer (CPU affinity), and under a cgroup
CPU quota (a container's ``--cpus=2``, a systemd ``CPUQuota=``) it gets only that much CPU time
however many cores it sees. Workers beyond either limit only add processes that wait their turn,
each with its own memory. Stdlib only, and cheap: ``--help`` reads it to show the defaults.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")
MAX_WORKERS = 64  # the most `--workers` accepts (cli/parser.py)


def affinity_cores() -> int:
    """The cores this process may be scheduled on: ``os.process_cpu_count()`` (3.13+, which
    reads the affinity), else the affinity mask, else (no affinity on this OS) every core."""
    counter = getattr(os, "process_cpu_count", None)
    if counter is not None:
        count: int | None = counter()
    elif hasattr(os, "sched_getaffinity"):
        count = len(os.sched_getaffinity(0))
    else:
        count = os.cpu_count()
    return max(1, count or 1)


def _cgroup_dirs(root: Path, proc_cgroup: Path) -> list[Path]:
    """This process's cgroup v2 folder and every folder above it up to ``root`` (a quota set
    on a parent holds for all below it); just ``root`` when the process's cgroup is unknown."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return [root]
    # cgroup v2 is the line "0::/path" (v1 lines name their controllers between the colons)
    rel = next((line[3:] for line in lines if line.startswith("0::")), "/")
    here = root / rel.strip("/") if rel.strip("/") else root
    dirs = [here]
    while here != root and root in here.parents:
        here = here.parent
        dirs.append(here)
    return dirs


def cgroup_quota(root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> float | None:
    """The tightest cgroup v2 CPU quota over this process's cgroup and its parents, in cores
    (``cpu.max`` "150000 100000" is 1.5); ``None`` where none is set or none can be read
    (cgroup v1, no /sys/fs/cgroup: then affinity alone decides)."""
    quotas: list[float] = []
    for folder in _cgroup_dirs(root, proc_cgroup):
        try:
            fields = (folder / "cpu.max").read_text().split()
        except OSError:
            continue
        if len(fields) != 2 or fields[0] == "max":
            continue
        try:
            quota, period = int(fields[0]), int(fields[1])
        except ValueError:
            continue
        if quota > 0 and period > 0:
            quotas.append(quota / period)
    return min(quotas) if quotas else None


def usable_cores(affinity: int | None = None, quota: float | None = None, *, read_quota: bool = True) -> int:
    """The cores this process may use: its CPU affinity, capped by the cgroup CPU quota rounded
    up (a quota of 1.5 cores keeps two processes busy part-time rather than leaving half a core
    unused). ``affinity`` and ``quota`` stand in for the system's values (tests); with
    ``read_quota=False`` a ``quota`` of ``None`` means no quota rather than "read it"."""
    cores = affinity_cores() if affinity is None else max(1, affinity)
    if quota is None and read_quota:
        quota = cgroup_quota()
    if quota is not None:
        cores = min(cores, max(1, math.ceil(quota)))
    return cores


def default_workers() -> int:
    """Parser processes when ``--workers`` is not given: one per usable core (the explorer's
    process, which owns the store, mostly waits on its workers), at most ``MAX_WORKERS``."""
    return min(usable_cores(), MAX_WORKERS)


# a run without --workers starts its pool only once more child files than this wait to be
# fetched, or this many entries were parsed in the explorer's process (engine/pool_gate.py)
POOL_AFTER_FILES = 3
POOL_AFTER_ENTRIES = 10_000
PROBE_WAIT = 0.3
"""Seconds the files after the first child file (the probe) wait for it before the pool takes them."""

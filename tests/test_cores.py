"""The default worker count: the cores this process may use (CPU affinity, cgroup v2 quota),
read from stand-ins for the system (issue 19), and the files an expansion keeps in flight."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sitemap_tui.engine import cores
from sitemap_tui.engine.cores import (
    MAX_WORKERS,
    affinity_cores,
    cgroup_quota,
    default_workers,
    usable_cores,
)
from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.workers import files_in_flight


@pytest.mark.parametrize(("affinity", "quota", "expected"), [
    (4, None, 4),  # no quota: the affinity
    (16, 2.0, 2),  # a container's --cpus=2 on a 16-core machine
    (16, 1.5, 2),  # a fractional quota rounds up
    (16, 0.2, 1),  # never below one
    (4, 8.0, 4),  # a quota above the affinity does not add cores
    (0, None, 1),  # a count of nothing still runs one
])
def test_usable_cores_is_affinity_capped_by_quota(affinity: int, quota: float | None, expected: int) -> None:
    assert usable_cores(affinity, quota, read_quota=False) == expected


def test_usable_cores_reads_the_quota_unless_told_not_to(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cores, "cgroup_quota", lambda: 3.0)
    assert usable_cores(8) == 3
    assert usable_cores(8, read_quota=False) == 8


def test_affinity_prefers_process_cpu_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "process_cpu_count", lambda: 3, raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3, 4}, raising=False)
    assert affinity_cores() == 3


def test_affinity_mask_without_process_cpu_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "process_cpu_count", raising=False)  # Python before 3.13
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {2, 5}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert affinity_cores() == 2


@pytest.mark.parametrize(("count", "expected"), [(12, 12), (None, 1)])
def test_cpu_count_where_there_is_no_affinity(monkeypatch: pytest.MonkeyPatch, count: int | None, expected: int) -> None:
    monkeypatch.delattr(os, "process_cpu_count", raising=False)
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)  # macOS, Windows
    monkeypatch.setattr(os, "cpu_count", lambda: count)
    assert affinity_cores() == expected


def _cgroup(root: Path, quotas: dict[str, str]) -> None:
    for rel, text in quotas.items():
        folder = root / rel if rel else root
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "cpu.max").write_text(text + "\n")


def test_quota_is_the_tightest_over_the_cgroup_and_its_parents(tmp_path: Path) -> None:
    root, proc = tmp_path / "cgroup", tmp_path / "proc-cgroup"
    _cgroup(root, {"": "max 100000", "user.slice": "400000 100000", "user.slice/app": "150000 100000",
                   "user.slice/app/job": "max 100000", "other": "50000 100000"})
    proc.write_text("0::/user.slice/app/job\n")
    assert cgroup_quota(root, proc) == 1.5  # app's; "other" is not above this process


def test_quota_in_a_container_is_its_root(tmp_path: Path) -> None:
    root, proc = tmp_path / "cgroup", tmp_path / "proc-cgroup"
    _cgroup(root, {"": "200000 100000"})
    proc.write_text("0::/\n")
    assert cgroup_quota(root, proc) == 2.0


@pytest.mark.parametrize(("proc_text", "files", "expected"), [
    ("0::/a\n", {"": "max 100000", "a": "max 100000"}, None),  # no quota anywhere
    ("0::/a\n", {}, None),  # no cpu.max files (cgroup v1, or no /sys/fs/cgroup)
    ("0::/a\n", {"a": "garbage"}, None),  # unreadable content is no quota
    ("0::/a\n", {"a": "x 100000"}, None),
    ("0::/a\n", {"a": "100000 0"}, None),
    ("4:cpu,cpuacct:/docker/abc\n", {"": "300000 100000"}, 3.0),  # v1 lines only: the root is read
    (None, {"": "300000 100000"}, 3.0),  # no /proc/self/cgroup: the root is read
])
def test_quota_fallbacks(tmp_path: Path, proc_text: str | None, files: dict[str, str], expected: float | None) -> None:
    root, proc = tmp_path / "cgroup", tmp_path / "proc-cgroup"
    root.mkdir()
    _cgroup(root, files)
    if proc_text is not None:
        proc.write_text(proc_text)
    assert cgroup_quota(root, proc) == expected


def test_default_workers_is_one_per_usable_core_up_to_the_option_maximum(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cores, "usable_cores", lambda: 16)
    assert default_workers() == 16  # no cap at 8 any more (issue 19)
    monkeypatch.setattr(cores, "usable_cores", lambda: 200)
    assert default_workers() == MAX_WORKERS


@pytest.mark.parametrize(("concurrency", "workers", "expected"), [(8, 16, 16), (8, 3, 8), (2, 0, 2), (0, 0, 1)])
def test_files_in_flight_are_at_least_one_per_worker(concurrency: int, workers: int, expected: int) -> None:
    assert files_in_flight(concurrency, workers) == expected


@pytest.mark.parametrize(("workers", "expected"), [(3, 3), (0, 2), (1, 2)])
def test_the_explorer_expands_with_a_file_per_worker(workers: int, expected: int) -> None:
    ex = Explorer(fetch_config=FetchConfig(concurrency=2), options=ExploreOptions(workers=workers))
    assert ex.files_in_flight == expected

"""What --workers and --concurrency become (issue 19): one parser process per usable core by
default, and at least one download per worker unless --concurrency says otherwise. Read from
the options objects the commands build; tests/test_limits.py counts the same on a server."""

from __future__ import annotations

import pytest

from sitemap_tui.cli.arrange import arrange
from sitemap_tui.cli.headless import explore_options
from sitemap_tui.cli.options import fetch_options, tree_options
from sitemap_tui.cli.parser import build_parser
from sitemap_tui.engine import cores
from sitemap_tui.engine.workers import files_in_flight


def _options(argv: list[str]) -> tuple[int, int]:
    """(concurrency, workers) of a command line, as the exploration gets them."""
    parser = build_parser()
    ns = parser.parse_args(arrange(argv, parser))
    fetch = fetch_options(ns)
    if not hasattr(ns, "workers"):
        return fetch.concurrency, 0
    return fetch.concurrency, explore_options(tree_options(ns, recursive=True)).workers


@pytest.fixture(autouse=True)
def sixteen_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cores, "usable_cores", lambda: 16)


@pytest.mark.parametrize(("argv", "expected"), [
    (["stats", "x.xml"], (16, 16)),  # the defaults use the machine
    (["validate", "x.xml", "--workers", "3"], (8, 3)),  # fewer workers: 8 downloads still
    (["urls", "x.xml", "--workers", "12"], (12, 12)),  # --workers alone raises the downloads
    (["urls", "x.xml", "--workers", "12", "--concurrency", "5"], (5, 12)),  # the user's word holds
    (["stats", "x.xml", "--concurrency", "20"], (20, 16)),
    (["stats", "x.xml", "--workers", "0"], (8, 0)),  # parsed in the main process
    (["discover", "example.com"], (8, 0)),  # no parsing, no workers
])
def test_workers_and_downloads(argv: list[str], expected: tuple[int, int]) -> None:
    assert _options(argv) == expected


def test_workers_three_keeps_three_files_in_flight_even_with_fewer_downloads() -> None:
    concurrency, workers = _options(["stats", "x.xml", "--workers", "3", "--concurrency", "1"])
    assert files_in_flight(concurrency, workers) == 3


def test_help_says_the_chosen_values(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["validate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "one per usable core, after CPU affinity and any cgroup CPU quota: 16 here" in text
    assert "Files in flight: at least one per worker" in text
    assert "or the worker count where that is higher: 16 here by default" in text

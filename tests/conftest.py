"""Shared fixtures: the bundled demo site served for real on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemap_tui.demo.server import DemoServer

SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture(scope="session")
def demo_server() -> Iterator[DemoServer]:
    server = DemoServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture()
def demo_url(demo_server: DemoServer) -> str:
    return demo_server.base_url


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    """pytest-httpserver on 127.0.0.1 (not "localhost", which may resolve to ::1 first)."""
    return ("127.0.0.1", 0)

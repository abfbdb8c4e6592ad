"""Network faults (SECURITY.md T9-T11): every fault route of the fault server is a child of one
sitemap index, explored once with a 3 s per-file deadline. Each route must end as an error (or a
result) on its own node within the deadline, and the normal siblings must be complete."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest

from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.fetch import FetchConfig, Fetcher
from sitemap_tui.engine.model import Node, NodeState
from sitemap_tui.engine.store import Store

from .attacks import index, run_cli
from .fault_server import FAULT_ROUTES, OK_URLS, FaultServer

DEADLINE = 3.0
# routes that answer nothing useful until the client gives up: each holds a request open for
# the whole deadline
HANGING = ("/slow-body", "/slow-headers", "/no-response")

# route -> (allowed states, substrings one of which the node error must contain; None = no error)
EXPECTED: dict[str, tuple[tuple[str, ...], tuple[str, ...] | None]] = {
    "/ok.xml": (("done",), None),
    "/slow-body": (("failed",), ("within 3 s",)),
    "/slow-headers": (("failed",), ("within 3 s",)),
    "/endless-chunked": (("done", "failed"), ("after decompression", "within 3 s", "wire limit")),
    "/cl-short": (("done", "failed"), ("parsing stopped", "truncated", "premature", "end")),
    "/cl-long": (("done", "failed"), ("peer closed", "incomplete", "connection", "body")),
    "/reset": (("done", "failed"), ("network error", "reset", "connection", "peer closed")),
    "/no-response": (("failed",), ("within 3 s",)),
    "/loop-a": (("failed",), ("redirect loop",)),
    "/loop-b": (("failed",), ("redirect loop",)),
    "/chain20": (("failed",), ("too many redirects",)),
    "/chain11": (("failed",), ("too many redirects",)),
    "/chain10": (("done",), None),
    "/redirect-file": (("failed",), ("refused",)),
    "/redirect-javascript": (("failed",), ("refused",)),
    "/redirect-other-host": (("done",), None),
    "/301-no-location": (("failed",), ("without a location",)),
    # the error names the status even when the deadline ends the retries
    "/429-seconds": (("failed",), ("http 429",)),
    "/429-date": (("failed",), ("http 429",)),
    "/429-negative": (("failed",), ("http 429",)),
    "/503-seconds": (("failed",), ("http 503",)),
    "/503-date": (("failed",), ("http 503",)),
    "/503-huge": (("failed",), ("http 503",)),
    "/503-negative": (("failed",), ("http 503",)),
    "/500": (("failed",), ("http 500",)),
    "/html-ctype": (("done",), None),
    # issue 14: a plain body under Content-Encoding: gzip is read (and said by the fetcher as
    # content-encoding-mismatch), not a gzip-corrupt failure
    "/gzip-lie": (("done",), None),
    "/gzip-ok": (("done",), None),
    "/huge-header": (("failed",), ("protocol error",)),
    "/lying-charset": (("done",), None),
}
FULL = {"/ok.xml", "/chain10", "/redirect-other-host", "/html-ctype", "/gzip-ok", "/gzip-lie"}  # all 25 URLs


def test_every_route_has_an_expectation() -> None:
    assert set(EXPECTED) == set(FAULT_ROUTES)


@pytest.fixture(scope="module")
def server() -> Iterator[FaultServer]:
    with FaultServer(max_lifetime=120) as srv:
        yield srv


@pytest.fixture(scope="module")
def explored(server: FaultServer, tmp_path_factory: pytest.TempPathFactory) -> Explorer:
    routes = list(FAULT_ROUTES)
    # normal siblings first, in the middle and last; every fault route once
    locs = [server.url("/ok.xml?n=first")]
    for i, r in enumerate(routes):
        locs.append(server.url(r))
        if i == len(routes) // 2:
            locs.append(server.url("/ok.xml?n=middle"))
    locs.append(server.url("/ok.xml?n=last"))
    server.add("/fault-index.xml", index(*locs))
    store = Store(tmp_path_factory.mktemp("fault") / "fault.db")
    config = FetchConfig(total_timeout=DEADLINE, concurrency=64, per_host=64)

    async def go() -> Explorer:
        async with Explorer(store=store, fetch_config=config, options=ExploreOptions(workers=0)) as ex:
            await ex.explore(server.url("/fault-index.xml"))
            return ex

    ex = asyncio.run(go())
    store.close()
    return ex


def _child(ex: Explorer, url: str) -> Node:
    root = ex.children[None][0]
    for nid in ex.children[root]:
        if ex.nodes[nid].url == url:
            return ex.nodes[nid]
    raise AssertionError(f"no child {url}")


@pytest.mark.parametrize("route", list(EXPECTED))
def test_route_ends_on_its_own_node(route: str, server: FaultServer, explored: Explorer) -> None:
    ex = explored
    node = _child(ex, server.url(route))
    states, errors = EXPECTED[route]
    assert node.state.value in states, (node.state, node.error)
    if errors is None:
        assert node.error is None, node.error
    else:
        assert node.error, "no error recorded"
        assert any(e in node.error.lower() for e in errors), node.error
    if route in FULL:
        assert node.stats.url_count == OK_URLS, node.error
    # bounded by the deadline (all hops, retries, sleeps): the hanging routes' errors say it
    # ended them ("within 3 s"), test_retries_are_bounded counts the attempts
    assert node.stats.fetch_time is not None


def test_normal_siblings_fully_explored(server: FaultServer, explored: Explorer) -> None:
    ex = explored
    for n in ("first", "middle", "last"):
        node = _child(ex, server.url(f"/ok.xml?n={n}"))
        assert node.state == NodeState.DONE and node.stats.url_count == OK_URLS, node.error
    # everything ran concurrently, so the run is about one deadline long, not one per route:
    # the server answered more requests at once than there are routes that hang for a deadline
    assert all(server.hits(r) for r in HANGING)
    assert server.peak_in_flight > len(HANGING), server.peak_in_flight
    assert not [n for n in ex.nodes.values() if n.state in (NodeState.FETCHING, NodeState.PARSING)]


def test_retries_are_bounded(server: FaultServer, explored: Explorer) -> None:
    for route in ("/429-seconds", "/429-date", "/429-negative", "/503-seconds", "/503-date",
                  "/503-huge", "/503-negative", "/500"):
        hits = server.hits(route)
        assert 1 <= len(hits) <= 4, (route, len(hits))  # FetchConfig.retries = 3
    # a far-future or huge Retry-After is clamped: no second attempt before the deadline
    assert len(server.hits("/429-date")) == 1


def test_redirects(server: FaultServer, explored: Explorer) -> None:
    assert len(server.hits("/chain20")) == 11  # the first request and 10 hops, then refused
    assert len(server.hits("/chain11")) == 11
    assert len(server.hits("/chain10")) == 11  # 10 hops allowed, the 11th answer is the sitemap
    # the loop is detected as soon as a URL comes back
    assert len(server.hits("/loop-a")) + len(server.hits("/loop-b")) <= 4
    # a cross-host redirect is followed (hosts flagged in the node's issues), a file: one never
    other = [r for r in server.log if r.host.startswith("localhost:")]
    assert other and all(r.path == "/ok.xml" for r in other)


def test_short_content_length_does_not_poison_the_next_request(server: FaultServer) -> None:
    """A body longer than its Content-Length leaves a fake response on the connection; the
    next request on the same keep-alive pool must still get its own answer."""

    async def go() -> list[tuple[str | None, bytes]]:
        config = FetchConfig(total_timeout=DEADLINE, concurrency=1, per_host=1, retries=0)
        out = []
        async with Fetcher(config) as fetcher:
            for path in ("/cl-short", "/ok.xml?after=cl-short", "/cl-short", "/gzip-ok"):
                body = bytearray()
                outcome = await fetcher.fetch(server.url(path), body.extend)
                out.append((outcome.error, bytes(body)))
        return out

    results = asyncio.run(go())
    for error, body in (results[1], results[3]):
        assert error is None, error
        assert body.count(b"<url>") == OK_URLS and b"EVIL" not in body


def test_server_stops_itself() -> None:
    srv = FaultServer(max_lifetime=0.5).start()
    port = srv.port
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        s.sendall(b"GET /slow-body HTTP/1.1\r\nHost: x\r\n\r\n")
        s.settimeout(30)  # only a guard against hanging; a working server closes much sooner
        data = b""
        ended = "eof"
        try:
            # 1 byte/s: more than a few body bytes would mean the lifetime did not cut it
            while len(data.partition(b"\r\n\r\n")[2]) < 10 and (chunk := s.recv(4096)):
                data += chunk
        except TimeoutError:
            ended = "timeout"
        except OSError:
            ended = "reset"
        # the slow body was cut by the server's own lifetime (the connection ended), not by
        # its 120 bytes at 1 byte/s
        assert ended != "timeout"
        assert b"\r\n\r\n" in data and len(data.partition(b"\r\n\r\n")[2]) < 10, data
    assert srv.stop_event.is_set()
    assert srv.join(5), "server threads still running"
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


@pytest.mark.parametrize("route", ["/slow-headers", "/huge-header", "/redirect-file"])
def test_headless_cli_reports_faults(route: str, server: FaultServer) -> None:
    run = run_cli(["urls", server.url(route), "--timeout", str(DEADLINE)], timeout=30)
    # a body that arrived but is corrupt gzip is a finding (1); no usable answer is exit 2
    assert run.returncode == (1 if route == "/gzip-lie" else 2), run.err
    assert "Traceback" not in run.err
    assert run.err.startswith("sitemap-tui:"), run.err
    assert not run.timed_out  # ended by itself (the per-file deadline), not killed
    assert run.stdout == b""


def test_headless_validate_reads_a_plain_body_sent_as_gzip(server: FaultServer) -> None:
    run = run_cli(["validate", server.url("/gzip-lie"), "--timeout", str(DEADLINE)], timeout=30)
    assert "Traceback" not in run.err
    out = run.stdout.decode()
    assert f"{OK_URLS} URLs" in out and "content-encoding-mismatch" in out
    assert "gzip-corrupt" not in out

"""``--retries N``: how many times a file that answered 429/5xx or dropped the connection is asked
for again (the engine's retries, tests/test_fetch.py, with the command line's say in it)."""

from __future__ import annotations

import contextlib
import io
import socket
import threading
from collections.abc import Callable

import pytest
from werkzeug import Request, Response

from sitemap_tui import cli


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([*args, "--workers", "0", "--no-history"])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(("retries", "asked"), [("0", 1), ("2", 3), (None, 4)])
def test_a_failing_file_is_asked_for_once_plus_its_retries(httpserver, retries: str | None, asked: int) -> None:
    hits: list[str] = []

    def down(request: Request) -> Response:
        hits.append(request.path)
        return Response("down", status=503, headers={"Retry-After": "0"})

    httpserver.expect_request("/s.xml").respond_with_handler(down)
    option = ["--retries", retries] if retries is not None else []
    code, _, err = run("stats", httpserver.url_for("/s.xml"), *option)
    assert hits == ["/s.xml"] * asked, err
    assert "503" in err


@pytest.mark.parametrize("value", ["-1", "11", "x"])
def test_a_bad_retries_value_is_one_line_and_exit_2(value: str) -> None:
    code, out, err = run("stats", "https://example.com/s.xml", "--retries", value)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--retries" in err, err


@pytest.mark.parametrize(("timeout", "stall"), [(30.0, 10.0), (5.0, 10.0), (60.0, 20.0), (300.0, 100.0)])
def test_a_longer_timeout_waits_longer_for_a_first_byte(timeout: float, stall: float) -> None:
    """Found from outside: a server that answered after 15 s failed "no data from the server
    for 10 s" even with --timeout 60, whose hint was the option that did not help."""
    from sitemap_tui.session.fetching import FetchOptions, fetch_config

    config = fetch_config(FetchOptions(timeout=timeout))
    assert (config.total_timeout, config.read_timeout) == (timeout, stall)


def _raw_server(answer: bytes) -> tuple[str, list[int], Callable[[], None]]:
    """A server that sends ``answer`` to every connection and counts them."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    connections: list[int] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            connections.append(1)
            with conn, contextlib.suppress(OSError):
                conn.recv(65536)
                conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()

    def close() -> None:
        stop.set()
        thread.join(5)
        listener.close()

    return f"http://127.0.0.1:{listener.getsockname()[1]}/s.xml", connections, close


@pytest.mark.parametrize("answer", [
    b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello",  # two lengths
    b"<urlset>no status line</urlset>\r\n\r\n",  # HTTP/0.9-like
])
def test_an_answer_that_breaks_http_is_asked_again_once(answer: bytes) -> None:
    """Found from outside: a 2 MiB header or two Content-Lengths were asked for 4 times (8 MB
    from a hostile server). Once more on a new connection (a kept-alive one can carry an earlier
    answer's leftovers), not three times."""
    url, connections, close = _raw_server(answer)
    try:
        code, _, err = run("urls", url, "--allow-private")
    finally:
        close()
    assert code == 2 and "protocol error" in err.lower(), err
    assert len(connections) == 2, err


def test_a_connection_closed_before_the_answer_is_asked_again() -> None:
    url, connections, close = _raw_server(b"")  # accepted, then closed without a word
    try:
        code, _, err = run("urls", url, "--allow-private", "--retries", "2")
    finally:
        close()
    assert code == 2, err
    assert len(connections) == 3, err

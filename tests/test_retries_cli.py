"""``--retries N``: how many times a file that answered 429/5xx or dropped the connection is asked
for again (the engine's retries, tests/test_fetch.py, with the command line's say in it)."""

from __future__ import annotations

import contextlib
import io

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

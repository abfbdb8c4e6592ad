"""What is done to each raw response before the fetcher reads it: its Location moved out of
httpx's sight (we alone interpret redirects), and a connection whose response left bytes behind
closed rather than pooled (a smuggled response would be served for the next URL)."""

from __future__ import annotations

import contextlib

import httpx


def _h11_has_leftover(response: httpx.Response) -> bool:
    """True when bytes beyond the response body are already buffered for this connection.

    A Content-Length shorter than the body leaves the rest in h11's buffer; httpcore would then
    read it as the *next* response on the pooled connection (we saw a smuggled "HTTP/1.1 200"
    served for another URL). httpx has no public way to see this, so we look at the internals
    and, when they are not what we expect, answer True: losing keep-alive beats being poisoned.
    """
    try:
        stream = response.stream._stream._httpcore_stream._stream  # type: ignore[attr-defined,union-attr]
        data, _closed = stream._connection._h11_state.trailing_data
    except Exception:
        return True
    return bool(data)


async def discard_if_poisoned(response: httpx.Response) -> None:
    """Close the connection of a completed HTTP/1.x response that has leftover bytes.

    Closing the (public) ``network_stream`` extension makes httpcore see the pooled connection
    as expired (its socket reads as "readable"), so the next request opens a fresh one.
    Only for HTTP/1.x: an HTTP/2 connection is shared by other requests and framed safely.
    """
    if not response.http_version.startswith("HTTP/1"):
        return
    if not _h11_has_leftover(response):
        return
    stream = response.extensions.get("network_stream")
    if stream is not None:
        with contextlib.suppress(Exception):
            await stream.aclose()


LOCATION_KEY = "sitemap_tui.location"


async def take_location(response: httpx.Response) -> None:
    """Response hook: move the Location header out of httpx's sight.

    Even with ``follow_redirects=False`` httpx parses the Location of every 3xx (to fill
    ``next_request``) and raises InvalidURL / RemoteProtocolError on targets such as
    ``javascript:alert(1)`` before we see the response, which turned a refused redirect into
    a generic (and retried) error. We alone interpret it, with ``urlpolicy``.
    """
    if "location" in response.headers:
        values = response.headers.get_list("location")
        response.extensions[LOCATION_KEY] = values[0] if values else ""
        del response.headers["location"]

"""A misbehaving HTTP server for the hostile-input tests (SECURITY.md T8-T11).

Raw sockets, one thread per connection, bound to 127.0.0.1 only. Every request is logged
(``server.log``), every loop is bounded (bytes, time and the server's own lifetime), and the
server stops itself after ``max_lifetime`` seconds even if a test forgets to.

Routes are exact paths (the query string is ignored for matching, kept in the log):

* the *fault routes* below (:data:`FAULT_ROUTES` describes what each one does);
* anything added with :meth:`FaultServer.add` (fixed bytes, a generated stream or a handler);
* files under ``root`` (``{{BASE}}`` replaced by the server's base URL, like the demo server);
* otherwise 404.

The server speaks just enough HTTP/1.1 for httpx: keep-alive is honoured for normal responses so
that protocol lies (a short Content-Length) can poison a pooled connection, exactly as a real
broken server would.
"""

from __future__ import annotations

import contextlib
import email.utils
import gzip
import socket
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["FaultServer", "Exchange", "RequestRecord", "FAULT_ROUTES", "ok_sitemap", "OK_URLS"]

TEMPLATE_MARKER = b"{{BASE}}"
PORT_MARKER = b"{{PORT}}"
MAX_HEAD = 64 * 1024  # request head bytes we read before giving up on a client
IDLE_KEEPALIVE = 5.0  # seconds an idle keep-alive connection is kept
SEND_TIMEOUT = 5.0  # a client that stops reading is dropped after this long
SLOW_MAX_BYTES = 120  # a slow-loris route never sends more than this (at 1 byte/s)
STREAM_MAX_BYTES = 1 << 31  # a streamed body is cut here whatever happens
STREAM_MAX_SECONDS = 60.0
OK_URLS = 25  # URLs in the normal sitemap

SM_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def ok_sitemap(base: str, name: str = "ok", n: int = OK_URLS) -> bytes:
    """A valid urlset with ``n`` URLs ``{base}/{name}/page-{i}``."""
    urls = "".join(f"<url><loc>{base}/{name}/page-{i}</loc></url>\n" for i in range(n))
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM_NS}">\n{urls}</urlset>\n'.encode()


@dataclass(slots=True)
class RequestRecord:
    method: str
    target: str  # path with query, as sent
    path: str  # without the query
    headers: dict[str, str]
    at: float
    peer: tuple[str, int]

    @property
    def host(self) -> str:
        return self.headers.get("host", "")


@dataclass
class Exchange:
    """One request being answered: what a route handler gets."""

    server: FaultServer
    sock: socket.socket
    request: RequestRecord
    keep_alive: bool = True  # the handler sets False when the connection must close

    @property
    def stopped(self) -> bool:
        return self.server.stop_event.is_set()

    def send(self, data: bytes) -> bool:
        """Send bytes; False when the client went away or the server is stopping."""
        if self.stopped:
            return False
        try:
            self.sock.sendall(data)
            return True
        except OSError:
            return False

    def respond(
        self,
        status: int,
        body: bytes = b"",
        headers: Iterable[tuple[str, str]] = (),
        *,
        reason: str | None = None,
        content_length: int | None = None,
    ) -> bool:
        head = [f"HTTP/1.1 {status} {reason or _REASONS.get(status, 'Whatever')}"]
        names = set()
        for k, v in headers:
            head.append(f"{k}: {v}")
            names.add(k.lower())
        if "content-length" not in names and "transfer-encoding" not in names:
            head.append(f"Content-Length: {len(body) if content_length is None else content_length}")
        if "date" not in names:
            head.append(f"Date: {email.utils.formatdate(usegmt=True)}")
        return self.send(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)

    def sleep(self, seconds: float) -> bool:
        """Wait, waking at once when the server stops; False when stopping."""
        return not self.server.stop_event.wait(seconds)

    def client_gone(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for the client to close; True when it did (or on errors)."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(4096)
        except TimeoutError:
            return False
        except OSError:
            return True
        finally:
            self.sock.settimeout(SEND_TIMEOUT)
        return not data


Handler = Callable[[Exchange], None]


def _stream(ex: Exchange, status: int, headers: list[tuple[str, str]], chunks: Iterator[bytes]) -> None:
    """Send a chunked body from a generator, bounded in bytes and time."""
    ex.keep_alive = False
    ex.respond(status, headers=[*headers, ("Transfer-Encoding", "chunked")])
    sent = 0
    started = time.monotonic()
    for chunk in chunks:
        if not chunk:
            continue
        if not ex.send(b"%x\r\n%s\r\n" % (len(chunk), chunk)):
            return
        sent += len(chunk)
        if sent >= STREAM_MAX_BYTES or time.monotonic() - started > STREAM_MAX_SECONDS:
            return
    ex.send(b"0\r\n\r\n")


class FaultServer:
    """Threaded raw-socket HTTP server on 127.0.0.1 with fault routes and a request log."""

    def __init__(self, root: Path | None = None, *, max_lifetime: float = 300.0) -> None:
        self.root = Path(root).resolve() if root is not None else None
        self.max_lifetime = max_lifetime
        self.log: list[RequestRecord] = []
        self.stop_event = threading.Event()
        self._lock = threading.Lock()
        self._routes: dict[str, Handler] = {}
        self._listener: socket.socket | None = None
        self._threads: list[threading.Thread] = []
        self._conns: set[socket.socket] = set()
        self.in_flight = 0  # requests being answered right now
        self.peak_in_flight = 0  # the most answered at once: concurrency, seen without a clock
        self.port = 0
        for path, (handler, _) in FAULT_ROUTES.items():
            self._routes[path] = handler

    # -- lifecycle -------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base_url + "/" + path.lstrip("/")

    def start(self) -> FaultServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))  # loopback only, never a public interface
        sock.listen(128)
        sock.settimeout(0.2)
        self._listener = sock
        self.port = sock.getsockname()[1]
        self._spawn(self._accept_loop, "fault-accept")
        timer = threading.Timer(self.max_lifetime, self.stop)
        timer.daemon = True
        timer.start()
        self._timer = timer
        return self

    def stop(self) -> None:
        if self.stop_event.is_set():
            return
        self.stop_event.set()
        self._timer.cancel()
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)  # wakes a blocked accept()
            with contextlib.suppress(OSError):
                self._listener.close()
        with self._lock:
            conns = list(self._conns)
        for c in conns:
            with contextlib.suppress(OSError):
                c.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                c.close()
        for t in list(self._threads):
            if t is not threading.current_thread():
                t.join(timeout=5)

    def join(self, timeout: float) -> bool:
        """Wait for every server thread to end; True when they all did."""
        end = time.monotonic() + timeout
        for t in list(self._threads):
            if t is not threading.current_thread():
                t.join(timeout=max(0.0, end - time.monotonic()))
        return not any(t.is_alive() for t in self._threads if t is not threading.current_thread())

    def __enter__(self) -> FaultServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- routes ----------------------------------------------------------------------------
    def add(
        self,
        path: str,
        body: bytes | Callable[[str], Iterator[bytes]] | None = None,
        *,
        status: int = 200,
        headers: Iterable[tuple[str, str]] = (("Content-Type", "application/xml"),),
        handler: Handler | None = None,
        template: bool = True,
    ) -> str:
        """Serve ``body`` (bytes, ``{{BASE}}``-templated; or ``fn(base) -> chunks``, streamed
        chunked) at ``path``; or call ``handler``. Returns the absolute URL."""
        hdrs = list(headers)
        if handler is None:
            if callable(body):
                gen = body

                def handler(ex: Exchange) -> None:
                    _stream(ex, status, hdrs, gen(self.base_url))

            else:
                data = self._render(body or b"") if template else (body or b"")

                def handler(ex: Exchange) -> None:
                    ex.respond(status, data, hdrs)

        self._routes[path] = handler
        return self.url(path)

    def hits(self, prefix: str) -> list[RequestRecord]:
        """Logged requests whose path starts with ``prefix``."""
        with self._lock:
            return [r for r in self.log if r.path.startswith(prefix)]

    # -- serving ---------------------------------------------------------------------------
    def _spawn(self, target: Callable[..., None], name: str, *args: object) -> None:
        t = threading.Thread(target=target, args=args, name=name, daemon=True)
        with self._lock:
            self._threads = [x for x in self._threads if x.is_alive()]
            self._threads.append(t)
        t.start()

    def _accept_loop(self) -> None:
        assert self._listener is not None
        while not self.stop_event.is_set():
            try:
                conn, peer = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                self._conns.add(conn)
            self._spawn(self._serve_conn, "fault-conn", conn, peer)

    def _serve_conn(self, conn: socket.socket, peer: tuple[str, int]) -> None:
        buf = b""
        try:
            while not self.stop_event.is_set():
                head, buf = self._read_head(conn, buf)
                if head is None:
                    return
                request = self._parse(head, peer)
                if request is None:
                    return
                with self._lock:
                    self.log.append(request)
                ex = Exchange(self, conn, request)
                conn.settimeout(SEND_TIMEOUT)
                if request.headers.get("connection", "").lower() == "close":
                    ex.keep_alive = False
                with self._lock:
                    self.in_flight += 1
                    self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
                try:
                    self._dispatch(ex)
                except OSError:
                    return
                finally:
                    with self._lock:
                        self.in_flight -= 1
                if not ex.keep_alive:
                    return
        finally:
            with self._lock:
                self._conns.discard(conn)
            with contextlib.suppress(OSError):
                conn.close()

    def _read_head(self, conn: socket.socket, buf: bytes) -> tuple[bytes | None, bytes]:
        deadline = time.monotonic() + IDLE_KEEPALIVE
        conn.settimeout(0.2)
        while b"\r\n\r\n" not in buf:
            if self.stop_event.is_set() or time.monotonic() > deadline or len(buf) > MAX_HEAD:
                return None, b""
            try:
                data = conn.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                return None, b""
            if not data:
                return None, b""
            buf += data
        head, _, rest = buf.partition(b"\r\n\r\n")
        return head, rest  # GET requests have no body

    @staticmethod
    def _parse(head: bytes, peer: tuple[str, int]) -> RequestRecord | None:
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3:
            return None
        headers: dict[str, str] = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        target = parts[1]
        return RequestRecord(parts[0], target, target.split("?", 1)[0], headers, time.monotonic(), peer)

    def _dispatch(self, ex: Exchange) -> None:
        handler = self._routes.get(ex.request.path)
        if handler is not None:
            handler(ex)
            return
        body = self._static(ex.request.path)
        if body is None:
            ex.respond(404, b"404 Not Found\n", [("Content-Type", "text/plain")])
            return
        ex.respond(200, body, [("Content-Type", _ctype(ex.request.path))])

    def _static(self, path: str) -> bytes | None:
        if self.root is None or "\\" in path or "\x00" in path:
            return None
        parts = [p for p in path.split("/") if p not in ("", ".")]
        if any(p == ".." for p in parts):
            return None
        f = self.root.joinpath(*parts)
        try:
            f = f.resolve()
            if not f.is_relative_to(self.root) or not f.is_file():
                return None
            data = f.read_bytes()
        except OSError:
            return None
        if data[:2] == b"\x1f\x8b":
            return data
        return self._render(data)

    def _render(self, data: bytes) -> bytes:
        return data.replace(TEMPLATE_MARKER, self.base_url.encode()).replace(
            PORT_MARKER, str(self.port).encode()
        )


def _ctype(path: str) -> str:
    if path.endswith(".txt"):
        return "text/plain; charset=utf-8"
    if path.endswith(".gz"):
        return "application/gzip"
    return "application/xml"


_REASONS = {
    200: "OK", 301: "Moved Permanently", 302: "Found", 404: "Not Found", 429: "Too Many Requests",
    500: "Internal Server Error", 503: "Service Unavailable",
}


# -- the fault routes --------------------------------------------------------------------------
def _ok_body(ex: Exchange, name: str) -> bytes:
    return ok_sitemap(ex.server.base_url, name)


def _slow_body(ex: Exchange) -> None:
    body = _ok_body(ex, "slow-body")
    ex.keep_alive = False
    if not ex.respond(200, b"", [("Content-Type", "application/xml")], content_length=len(body)):
        return
    for i in range(min(len(body), SLOW_MAX_BYTES)):
        if not ex.send(body[i : i + 1]) or not ex.sleep(1.0):
            return


def _slow_headers(ex: Exchange) -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nX-Filler: " + b"a" * 200
    ex.keep_alive = False
    for i in range(min(len(head), SLOW_MAX_BYTES)):
        if not ex.send(head[i : i + 1]) or not ex.sleep(1.0):
            return


def _endless_chunked(ex: Exchange) -> None:
    def chunks() -> Iterator[bytes]:
        yield f'<?xml version="1.0"?>\n<urlset xmlns="{SM_NS}">\n'.encode()
        filler = b"<!-- " + b"x" * 65000 + b" -->\n"
        while True:
            yield filler

    _stream(ex, 200, [("Content-Type", "application/xml")], chunks())


def _cl_short(ex: Exchange) -> None:
    # The body is longer than announced: the client stops reading mid-document, and the rest
    # (a fake second response) waits on the connection to poison the next request.
    body = _ok_body(ex, "cl-short")
    extra = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nEVIL!"
    ex.respond(200, body + extra, [("Content-Type", "application/xml")], content_length=len(body) // 2)


def _cl_long(ex: Exchange) -> None:
    body = _ok_body(ex, "cl-long")
    ex.keep_alive = False
    ex.respond(200, body, [("Content-Type", "application/xml")], content_length=len(body) + 5000)


def _reset(ex: Exchange) -> None:
    body = _ok_body(ex, "reset")
    ex.keep_alive = False
    ex.respond(200, body[: len(body) // 2], [("Content-Type", "application/xml")], content_length=len(body))
    # SO_LINGER 0: close() sends RST instead of FIN
    with contextlib.suppress(OSError):
        ex.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        ex.sock.close()


def _no_response(ex: Exchange) -> None:
    ex.keep_alive = False
    deadline = time.monotonic() + 60
    while not ex.stopped and time.monotonic() < deadline:
        if ex.client_gone(0.5):
            return


def _redirect(location: str | None, status: int = 302) -> Handler:
    def handler(ex: Exchange) -> None:
        headers = [("Content-Type", "text/plain")]
        if location is not None:
            headers.append(("Location", location.replace("{PORT}", str(ex.server.port))))
        ex.respond(status, b"moved\n", headers)

    return handler


def _chain(total: int) -> Handler:
    """``/chain{total}`` redirects through ``?hop=1..total``, then serves a sitemap."""

    def handler(ex: Exchange) -> None:
        query = ex.request.target.partition("?")[2]
        hop = int(query.removeprefix("hop=")) if query.startswith("hop=") else 0
        if hop < total:
            ex.respond(302, b"", [("Location", f"/chain{total}?hop={hop + 1}")])
        else:
            ex.respond(200, _ok_body(ex, f"chain{total}"), [("Content-Type", "application/xml")])

    return handler


def _status(status: int, retry_after: str | None = None) -> Handler:
    def handler(ex: Exchange) -> None:
        headers = [("Content-Type", "text/plain")]
        if retry_after is not None:
            headers.append(("Retry-After", retry_after))
        ex.respond(status, b"go away\n", headers)

    return handler


def _html_ctype(ex: Exchange) -> None:
    ex.respond(200, _ok_body(ex, "html-ctype"), [("Content-Type", "text/html; charset=utf-8")])


def _gzip_lie(ex: Exchange) -> None:
    ex.respond(200, _ok_body(ex, "gzip-lie"), [("Content-Type", "application/xml"), ("Content-Encoding", "gzip")])


def _gzip_ok(ex: Exchange) -> None:
    body = gzip.compress(_ok_body(ex, "gzip-ok"), mtime=0)
    ex.respond(200, body, [("Content-Type", "application/xml"), ("Content-Encoding", "gzip")])


def _huge_header(ex: Exchange) -> None:
    ex.keep_alive = False
    ex.respond(200, _ok_body(ex, "huge-header"),
               [("Content-Type", "application/xml"), ("X-Huge", "h" * (1 << 20))])


def _ok(ex: Exchange) -> None:
    ex.respond(200, _ok_body(ex, "ok"), [("Content-Type", "application/xml")])


def _lying_charset(ex: Exchange) -> None:
    body = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM_NS}">'
        f"<url><loc>{ex.server.base_url}/caf\u00e9</loc></url></urlset>\n"
    ).encode()
    ex.respond(200, body, [("Content-Type", "text/xml; charset=utf-16")])


_FUTURE = "Fri, 31 Dec 9999 23:59:59 GMT"

# path -> (handler, what it does / what the client must make of it)
FAULT_ROUTES: dict[str, tuple[Handler, str]] = {
    "/ok.xml": (_ok, "a normal sitemap"),
    "/slow-body": (_slow_body, "body at 1 byte/s"),
    "/slow-headers": (_slow_headers, "headers at 1 byte/s"),
    "/endless-chunked": (_endless_chunked, "chunked body that never ends"),
    "/cl-short": (_cl_short, "Content-Length shorter than the body (poisons keep-alive)"),
    "/cl-long": (_cl_long, "Content-Length longer than the body, then close"),
    "/reset": (_reset, "connection reset (RST) mid-body"),
    "/no-response": (_no_response, "reads the request, never answers"),
    "/loop-a": (_redirect("/loop-b"), "redirect loop a -> b"),
    "/loop-b": (_redirect("/loop-a"), "redirect loop b -> a"),
    "/chain20": (_chain(20), "20-hop redirect chain"),
    "/chain11": (_chain(11), "11-hop redirect chain"),
    "/chain10": (_chain(10), "10-hop redirect chain (allowed)"),
    "/redirect-file": (_redirect("file:///etc/passwd"), "redirect to file:"),
    "/redirect-javascript": (_redirect("javascript:alert(1)"), "redirect to javascript:"),
    "/redirect-other-host": (_redirect("http://localhost:{PORT}/ok.xml"), "redirect to another host"),
    "/301-no-location": (_redirect(None, 301), "301 without Location"),
    "/429-seconds": (_status(429, "1"), "429 Retry-After: 1"),
    "/429-date": (_status(429, _FUTURE), "429 Retry-After: far-future HTTP date"),
    "/429-negative": (_status(429, "-1"), "429 Retry-After: -1"),
    "/503-seconds": (_status(503, "2"), "503 Retry-After: 2"),
    "/503-date": (_status(503, "Wed, 21 Oct 2015 07:28:00 GMT"), "503 Retry-After: a past HTTP date"),
    "/503-huge": (_status(503, "9" * 5000), "503 Retry-After: 5,000 digits"),
    "/503-negative": (_status(503, "-100"), "503 Retry-After: -100"),
    "/500": (_status(500), "500"),
    "/html-ctype": (_html_ctype, "text/html Content-Type on valid XML"),
    "/gzip-lie": (_gzip_lie, "Content-Encoding: gzip on a plain body"),
    "/gzip-ok": (_gzip_ok, "Content-Encoding: gzip, honest"),
    "/huge-header": (_huge_header, "a 1 MB response header"),
    "/lying-charset": (_lying_charset, "charset=utf-16 header on a UTF-8 body"),
}


# -- compression bombs (generated, never stored) -------------------------------------------------
def zero_deflate_blocks(total: int, *, block: int = 1 << 24, wbits: int = -15) -> tuple[bytes, int]:
    """A deflate block stream for ``total`` zero bytes, cheaply.

    One ``block`` of zeros is compressed once and ended with Z_FULL_FLUSH (byte-aligned, no
    back references into it), so the same bytes can simply be repeated. Returns (stream without
    the final block, number of repeats).
    """
    c = zlib.compressobj(9, zlib.DEFLATED, wbits)
    one = c.compress(bytes(block)) + c.flush(zlib.Z_FULL_FLUSH)
    return one, total // block


_FINAL_EMPTY_BLOCK = b"\x03\x00"  # BFINAL=1, fixed Huffman, end-of-block


def gzip_zeros(total: int) -> bytes:
    """A valid gzip member of ``total`` zero bytes (1 GiB -> about 1 MB), built in ~1 s."""
    block = 1 << 24
    one, n = zero_deflate_blocks(total, block=block)
    zeros = bytes(block)
    crc = 0
    for _ in range(n):
        crc = zlib.crc32(zeros, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return header + one * n + _FINAL_EMPTY_BLOCK + struct.pack("<II", crc, total & 0xFFFFFFFF)


def zlib_zeros(total: int) -> bytes:
    """A valid zlib (``Content-Encoding: deflate``) stream of ``total`` zero bytes."""
    block = 1 << 24
    one, n = zero_deflate_blocks(total, block=block)
    adler = ((total % 65521) << 16) | 1  # adler32 of n zeros: a = 1, b = n mod 65521
    return b"\x78\xda" + one * n + _FINAL_EMPTY_BLOCK + struct.pack(">I", adler)


# 1 GiB of zeros, brotli quality 11 (841 bytes). Generated once with the `brotli` package:
#   c = brotli.Compressor(quality=11, lgwin=24); c.process(bytes(1 << 24)) x 64; c.finish()
BROTLI_BOMB_B64 = (
    "z///f/gnAOKxQCD3/p/////wTwDEYQGA7v0/////4Z8AiMMiAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsAdO//"
    "+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8//BMAcVgAoHv/z///f/gnAOKwAED3/p/////wTwDEYQGA7v0/"
    "////4Z8AiMMCAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsAdO//+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n"
    "//8//BMAcVgAoHv/z///f/gnAOKwAED3/p/////wTwDEYQGA7v0/////4Z8AiMMCAN37f/7//8M/ARCHBQC69//8"
    "//+HfwIgDgsAdO//+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8//BMAcVgAoHv/z///f/gnAOKwAED3/p//"
    "///wTwDEYQGA7v0/////4Z8AiMMCAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsAdO//+f//D/8EQBwWAOje//P/"
    "/x/+CYA4LADQvf/n//8//BMAcVgAoHv/z///f/gnAOKwAED3/p/////wTwDEYQGA7v0/////4Z8AiMMCAN37f/7/"
    "/8M/ARCHBQC69//8//+HfwIgDgsAdO//+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8//BMAcVgAoHv/z///"
    "f/gnAOKwAED3/p/////wTwDEYQGA7v0/////4Z8AiMMCAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsAdO//+f//"
    "D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8//BMAcVgAoHv/z///f/gnAOKwAED3/p/////wTwDEYQGA7v0/////"
    "4Z8AiMMCAN37f/7//8M/ARCHBQC69//8//+HfwIgDgsAdO//+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8/"
    "/BMAcVgAoHv/z///f/gnAOKwAED3/p/////wTwDEYQGA7v0/////4Z8AiMMCAN37f/7//8M/ARCHBQC69//8//+H"
    "fwIgDgsAdO//+f//D/8EQBwWAOje//P//x/+CYA4LADQvf/n//8//BMAcVgAoHv/Pw=="
)


@dataclass
class StreamSpec:
    """A generated body: prefix, then ``filler`` repeated up to ``total`` bytes, then suffix."""

    prefix: bytes
    filler: bytes
    total: int
    suffix: bytes = b""
    _chunk: int = field(default=1 << 16, repr=False)

    def __call__(self, base: str) -> Iterator[bytes]:
        b = base.encode()  # {{BASE}} in prefix and suffix
        yield self.prefix.replace(TEMPLATE_MARKER, b)
        chunk = self.filler * max(1, self._chunk // len(self.filler))
        sent = 0
        while sent < self.total:
            piece = chunk[: self.total - sent]
            yield piece
            sent += len(piece)
        yield self.suffix.replace(TEMPLATE_MARKER, b)

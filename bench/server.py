#!/usr/bin/env python3
"""A small, fast static file server for the benchmark (stdlib only, 127.0.0.1 only).

- threaded, HTTP/1.1 keep-alive, Content-Length on every response, GET and HEAD;
- bodies sent with sendfile(2) (socket.sendfile), so the server costs almost no CPU;
- `X.gz` files are served as they are: `Content-Type: application/gzip`, no Content-Encoding;
- under the prefix `/ce/`, `/ce/X` serves `X.gz` with `Content-Encoding: gzip` (Content-Type by X's
  extension) when the client accepts gzip, else the plain `X`; `/ce/X.xml.gz` is served with
  `Content-Encoding: gzip` and the XML content type (so an index's .gz children, fetched under /ce/,
  arrive transfer-compressed);
- index files (`*index*.xml`) have their `@@BASE@@` placeholder replaced by `http://<Host>` (plus `/ce`
  when requested under `/ce/`), so generated indexes work on any port;
- `--delay SECONDS` waits before every response (simulates a slow server);
- every 200 carries an `ETag` (inode, size, mtime) and a `Last-Modified`; a GET whose
  `If-None-Match` names the ETag (or, without one, whose `If-Modified-Since` is not older than the
  file) gets `304 Not Modified` and no body (RFC 9110 §13.1). ``Handler.sent`` counts the bodies
  and the 304s (bench/bench_refetch.py reads them).

Run:  python bench/server.py --root bench/.work/data [--port 0] [--delay 0]
It prints `READY http://127.0.0.1:PORT` on stdout once listening.
"""

from __future__ import annotations

import argparse
import email.utils
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

CONTENT_TYPES = {
    ".xml": "application/xml; charset=utf-8",
    ".gz": "application/gzip",
    ".rss": "application/rss+xml; charset=utf-8",
    ".atom": "application/atom+xml; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".json": "application/json",
    ".html": "text/html; charset=utf-8",
}
PLACEHOLDER = b"@@BASE@@"
TEMPLATE_MAX = 8 * 1024 * 1024


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "bench-static/1"
    sys_version = ""
    root: Path
    delay: float = 0.0
    _templates: dict[tuple[str, str], bytes] = {}
    _lock = threading.Lock()
    sent: dict[str, int] = {}  # "200" / "304": responses to GET (per bound handler class)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def do_HEAD(self) -> None:  # noqa: N802
        self._serve(head=True)

    def do_GET(self) -> None:  # noqa: N802
        self._serve(head=False)

    # -- helpers ----------------------------------------------------------------------------
    def _resolve(self, rel: str) -> Path | None:
        path = (self.root / rel).resolve()
        if path != self.root and self.root not in path.parents:
            return None
        return path if path.is_file() else None

    def _error(self, code: int, head: bool) -> None:
        body = f"{code}\n".encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _serve(self, head: bool) -> None:
        if self.delay:
            time.sleep(self.delay)
        rel = unquote(urlsplit(self.path).path).lstrip("/")
        ce = False
        if rel.startswith("ce/"):
            ce = True
            rel = rel[3:]
        accepts_gzip = "gzip" in (self.headers.get("Accept-Encoding") or "").lower()
        path: Path | None = None
        encoding = None
        ctype_name = rel
        if ce and accepts_gzip:
            if not rel.endswith(".gz"):
                path = self._resolve(rel + ".gz")
            else:
                path = self._resolve(rel)
                ctype_name = rel[:-3] or rel
            if path is not None:
                encoding = "gzip"
        if path is None:
            path = self._resolve(rel)
        if path is None:
            self._error(404, head)
            return
        ctype = CONTENT_TYPES.get(Path(ctype_name).suffix.lower(), "application/octet-stream")
        st = path.stat()
        etag = f'"{st.st_ino:x}-{st.st_size:x}-{int(st.st_mtime):x}"'
        modified = email.utils.formatdate(st.st_mtime, usegmt=True)
        if self._not_modified(etag, int(st.st_mtime)):
            self._count("304")
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", modified)
            self.end_headers()
            return
        if not head:
            self._count("200")
        body: bytes | None = None
        if encoding is None and "index" in path.name and path.suffix == ".xml" and st.st_size <= TEMPLATE_MAX:
            body = self._template(path, ce)
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Content-Length", str(len(body) if body is not None else st.st_size))
        self.send_header("Last-Modified", modified)
        self.send_header("ETag", etag)
        self.end_headers()
        if head:
            return
        if body is not None:
            self.wfile.write(body)
            return
        with open(path, "rb") as f:
            try:
                self.connection.sendfile(f)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    def _not_modified(self, etag: str, mtime: int) -> bool:
        tags = self.headers.get("If-None-Match")
        if tags is not None:  # decides alone when present (RFC 9110 §13.2.2)
            return tags.strip() == "*" or etag in [t.strip().removeprefix("W/") for t in tags.split(",")]
        since = self.headers.get("If-Modified-Since")
        if since is None:
            return False
        try:
            when = email.utils.parsedate_to_datetime(since)
        except (TypeError, ValueError):
            return False
        return when is not None and when.timestamp() >= mtime

    def _count(self, what: str) -> None:
        with self._lock:
            self.sent[what] = self.sent.get(what, 0) + 1

    def _template(self, path: Path, ce: bool) -> bytes:
        host = self.headers.get("Host") or f"127.0.0.1:{self.server.server_address[1]}"
        base = f"http://{host}" + ("/ce" if ce else "")
        key = (str(path), base)
        with self._lock:
            cached = self._templates.get(key)
        if cached is None:
            cached = path.read_bytes().replace(PLACEHOLDER, base.encode())
            with self._lock:
                self._templates[key] = cached
        return cached


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256
    allow_reuse_address = True

    def server_bind(self) -> None:
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().server_bind()


def make_server(root: Path, port: int = 0, delay: float = 0.0) -> Server:
    handler = type("BoundHandler", (Handler,), {"root": root.resolve(), "delay": delay, "_templates": {}, "sent": {}})
    return Server(("127.0.0.1", port), handler)


class BackgroundServer:
    """In-process use: `with BackgroundServer(root) as base_url: ...` (a daemon thread)."""

    def __init__(self, root: Path, port: int = 0, delay: float = 0.0) -> None:
        self.server = make_server(root, port, delay)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> str:
        self.thread.start()
        return self.base_url

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent / ".work" / "data")
    ap.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    ap.add_argument("--delay", type=float, default=0.0, help="seconds to wait before each response")
    a = ap.parse_args(argv)
    if not a.root.is_dir():
        print(f"server: no such directory {a.root} (run bench/generate.py first)", file=sys.stderr)
        return 2
    server = make_server(a.root, a.port, a.delay)
    print(f"READY http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())

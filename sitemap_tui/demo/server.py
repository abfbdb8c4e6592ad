"""A small threaded HTTP server for the bundled demo site (and for test data directories).

Files under the root directory are templates: the literal ``{{BASE}}`` is replaced by the
server's base URL when served, so absolute URLs inside sitemaps point at the live server.

Routing rules:

* ``GET /X.gz`` where ``X.gz`` does not exist but ``X`` does: the gzip of the rendered ``X`` is
  served with ``Content-Type: application/gzip`` and no ``Content-Encoding``.
* A client sending ``Accept-Encoding: gzip`` for a ``.xml`` path whose rendered body is larger
  than 1 KiB gets ``Content-Encoding: gzip``.
* ``GET /`` (or any directory) serves its ``index.html``.
* The bundled demo site only: a page its sitemaps list answers as HTML (``demo/pages.py``), a few
  with the faults an audit reports.
* Missing files, directories without an index, and anything that resolves outside the root
  (``..``, encoded ``%2e%2e``, symlinks) answer 404.
* ``HEAD`` is supported; responses carry ``ETag`` and ``Last-Modified``; a matching
  ``If-None-Match`` (or, without it, a fresh ``If-Modified-Since``) answers 304.

Run ``python -m sitemap_tui.demo.server [--port N]`` to serve the demo site until Ctrl-C.
"""

from __future__ import annotations

import argparse
import email.utils
import gzip
import hashlib
import signal
import socket
import socketserver
import sys
import threading
import time
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from pathlib import Path
from types import TracebackType
from urllib.parse import unquote, urlsplit

from sitemap_tui.demo.pages import Page, listed_paths, render

__all__ = ["DemoServer", "default_site_root", "serve_directory", "main"]

TEMPLATE_MARKER = b"{{BASE}}"
GZIP_TRANSPORT_MIN = 1024  # bytes of rendered body above which .xml may be sent gzip-encoded

CONTENT_TYPES: dict[str, str] = {
    ".xml": "application/xml",
    ".txt": "text/plain; charset=utf-8",
    ".rss": "application/rss+xml",
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".gz": "application/gzip",
    ".xsl": "application/xml",
    ".json": "application/json",
}
DEFAULT_CONTENT_TYPE = "application/octet-stream"


def default_site_root() -> Path:
    """The bundled demo site directory (found through package resources)."""
    root = files("sitemap_tui") / "demo" / "site"
    return root if isinstance(root, Path) else Path(str(root))


def content_type_for(name: str) -> str:
    return CONTENT_TYPES.get(Path(name).suffix.lower(), DEFAULT_CONTENT_TYPE)


def _gzip(data: bytes) -> bytes:
    # mtime=0 keeps the output (and so the ETag) deterministic.
    return gzip.compress(data, compresslevel=6, mtime=0)


def _accepts_gzip(header: str | None) -> bool:
    if not header:
        return False
    for part in header.split(","):
        token, _, params = part.strip().partition(";")
        if token.strip().lower() not in ("gzip", "x-gzip", "*"):
            continue
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = 0.0
        if q > 0:
            return True
    return False


def _etag_matches(header: str, etag: str) -> bool:
    for candidate in header.split(","):
        candidate = candidate.strip()
        if candidate == "*":
            return True
        if candidate.startswith("W/"):
            candidate = candidate[2:]
        if candidate == etag:
            return True
    return False


@dataclass(frozen=True)
class _Response:
    body: bytes
    content_type: str
    mtime: float
    content_encoding: str | None = None
    vary: bool = False

    @property
    def etag(self) -> str:
        return '"' + hashlib.sha256(self.body).hexdigest()[:20] + '"'

    @property
    def last_modified(self) -> str:
        return email.utils.formatdate(self.mtime, usegmt=True)


DEMO_PUBLISHED = 1546300800.0  # 2019-01-01T00:00:00Z


class _Server(ThreadingHTTPServer):
    fixed_mtime: float | None = None
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], root: Path, delay: float,
                 pages: frozenset[str] = frozenset()) -> None:
        self.root = root
        self.delay = delay
        self.pages = pages  # the listed pages answered as HTML (demo/pages.py): the bundled site's
        self.base_url = ""
        super().__init__(address, _Handler)
        host, port = self.server_address[:2]
        if isinstance(host, bytes):  # AF_INET gives str; typeshed allows bytes for AF_UNIX
            host = host.decode()
        self.base_url = f"http://{host}:{port}"

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn(), which may hang on reverse DNS.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)

    def handle_error(self, request: object, client_address: object) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError, socket.timeout)):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "sitemap-tui-demo/1"
    sys_version = ""
    timeout = 30  # idle keep-alive connections are closed after this many seconds
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: the TUI owns the terminal

    def do_GET(self) -> None:
        self._serve(head=False)

    def do_HEAD(self) -> None:
        self._serve(head=True)

    # -- routing ---------------------------------------------------------------------------

    def _resolve(self, url_path: str) -> Path | None:
        """Map a URL path to an existing file under the root, or None."""
        root = self.server.root
        rel = unquote(url_path, errors="strict")
        if "\x00" in rel or "\\" in rel:
            return None
        parts = [p for p in rel.split("/") if p not in ("", ".")]
        if any(p == ".." for p in parts):
            return None
        try:
            candidate = root.joinpath(*parts)
            if candidate.is_dir():
                candidate = candidate / "index.html"
            candidate = candidate.resolve()  # follows symlinks: checked below
        except (OSError, ValueError, RuntimeError):
            return None
        if not candidate.is_relative_to(root):
            return None
        return candidate if candidate.is_file() else None

    def _render(self, path: Path) -> bytes:
        data = path.read_bytes()
        if data[:2] == b"\x1f\x8b":  # real gzip files are served untouched
            return data
        return data.replace(TEMPLATE_MARKER, self.server.base_url.encode("ascii"))

    def _mtime(self, path: Path) -> float:
        # the bundled site is dated as published before every <lastmod> it lists, so the
        # demo shows its deliberate problems and not the install time of the package
        fixed = self.server.fixed_mtime
        return fixed if fixed is not None else path.stat().st_mtime

    def _build(self, url_path: str) -> _Response | None:
        try:
            path = self._resolve(url_path)
            if path is not None:
                body = self._render(path)
                ctype = content_type_for(path.name)
                mtime = self._mtime(path)
                if path.suffix.lower() == ".xml":
                    if len(body) > GZIP_TRANSPORT_MIN and _accepts_gzip(
                        self.headers.get("Accept-Encoding")
                    ):
                        return _Response(_gzip(body), ctype, mtime, "gzip", vary=True)
                    return _Response(body, ctype, mtime, vary=True)
                return _Response(body, ctype, mtime)
            if url_path.lower().endswith(".gz"):
                source = self._resolve(url_path[:-3])
                if source is not None:
                    body = _gzip(self._render(source))
                    return _Response(body, "application/gzip", self._mtime(source))
        except (OSError, UnicodeError):
            return None
        return None

    def _serve(self, head: bool) -> None:
        if self.server.delay > 0:
            time.sleep(self.server.delay)
        try:
            url_path = urlsplit(self.path).path or "/"
        except ValueError:
            url_path = ""
        resp = self._build(url_path) if url_path.startswith("/") else None
        if resp is None and url_path in self.server.pages:
            self._send_page(render(url_path, self.server.base_url, self.server.pages), head)
            return
        if resp is None:
            self._send_plain(HTTPStatus.NOT_FOUND, b"404 Not Found\n", head)
            return

        etag = resp.etag
        not_modified = False
        inm = self.headers.get("If-None-Match")
        if inm is not None:
            not_modified = _etag_matches(inm, etag)
        else:
            ims = self.headers.get("If-Modified-Since")
            if ims:
                try:
                    since = email.utils.parsedate_to_datetime(ims).timestamp()
                except (TypeError, ValueError, IndexError, OverflowError):
                    since = None
                not_modified = since is not None and int(resp.mtime) <= since

        self.send_response(HTTPStatus.NOT_MODIFIED if not_modified else HTTPStatus.OK)
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", resp.last_modified)
        self.send_header("Cache-Control", "no-cache")
        if resp.vary:
            self.send_header("Vary", "Accept-Encoding")
        if not_modified:
            self.end_headers()
            return
        self.send_header("Content-Type", resp.content_type)
        if resp.content_encoding:
            self.send_header("Content-Encoding", resp.content_encoding)
        self.send_header("Content-Length", str(len(resp.body)))
        self.end_headers()
        if not head:
            self.wfile.write(resp.body)

    def _send_page(self, page: Page, head: bool) -> None:
        self.send_response(page.status)
        for name, value in page.headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(page.body)))
        self.end_headers()
        if not head:
            self.wfile.write(page.body)

    def _send_plain(self, status: HTTPStatus, body: bytes, head: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)


class DemoServer:
    """Serve a directory of templates on 127.0.0.1 in a daemon thread.

    ``root`` defaults to the bundled demo site; ``port`` 0 picks a free port; ``delay`` adds
    that many seconds before every response (to make progress visible in the demo).
    """

    def __init__(self, root: Path | None = None, port: int = 0, delay: float = 0.0) -> None:
        self.root = Path(root if root is not None else default_site_root()).resolve()
        self.port = port
        self.delay = delay
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("DemoServer is not started")
        return self._httpd.base_url

    def url(self, path: str = "/") -> str:
        """Absolute URL for a path on this server (``url("/robots.txt")``)."""
        return self.base_url + "/" + path.lstrip("/")

    @property
    def running(self) -> bool:
        return self._httpd is not None

    def start(self) -> DemoServer:
        if self._httpd is not None:
            return self
        if not self.root.is_dir():
            raise FileNotFoundError(f"not a directory: {self.root}")
        bundled = self.root == default_site_root().resolve()
        httpd = _Server(("127.0.0.1", self.port), self.root, self.delay,
                        listed_paths(self.root) if bundled else frozenset())
        if bundled:
            httpd.fixed_mtime = DEMO_PUBLISHED
        self.port = httpd.server_port
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.1},
            name=f"demo-server-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, thread = self._httpd, self._thread
        self._httpd = self._thread = None
        if httpd is None:
            return
        httpd.shutdown()
        httpd.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> DemoServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def serve_directory(root: Path | str, port: int = 0, delay: float = 0.0) -> DemoServer:
    """Serve any directory with the same template and ``.gz`` rules; returns a started server."""
    return DemoServer(Path(root), port=port, delay=delay).start()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sitemap_tui.demo.server",
        description="Serve the bundled sitemap-tui demo site on 127.0.0.1 until Ctrl-C.",
    )
    parser.add_argument("--port", type=int, default=0, help="port to bind (default: a free one)")
    parser.add_argument("--root", type=Path, default=None, help="directory to serve instead")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to wait per response")
    args = parser.parse_args(argv)
    # "until Ctrl-C" whatever started us: a non-interactive shell starts background commands
    # with SIGINT ignored, and the process would inherit that
    signal.signal(signal.SIGINT, signal.default_int_handler)
    server = DemoServer(args.root, port=args.port, delay=args.delay)
    try:
        server.start()
    except OSError as exc:
        print(f"cannot start server: {exc}", file=sys.stderr)
        return 1
    print(f"Serving {server.root} at {server.base_url}/", flush=True)
    print(f"Try: sitemap-tui {server.base_url}/robots.txt   (Ctrl-C to stop)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A small forwarding HTTP proxy for the --proxy tests, on 127.0.0.1: absolute-form requests
(``GET http://host/path``) are forwarded over a new connection, CONNECT opens a byte tunnel.
It logs every request it gets, headers included, so a test can see what reached the proxy.

Like real proxies it consumes the hop-by-hop ``Proxy-*`` headers instead of forwarding them,
and ``hosts`` stands for its own DNS (a staging name only the proxy knows); any other host is
dialled as named, which the tests keep on 127.0.0.1."""

from __future__ import annotations

import base64
import contextlib
import socket
import socketserver
import ssl
import threading
from dataclasses import dataclass, field
from urllib.parse import urlsplit

_HOP = {"proxy-authorization", "proxy-connection", "connection", "keep-alive"}


@dataclass
class ProxyRequest:
    method: str
    target: str  # absolute URL (GET) or host:port (CONNECT)
    headers: dict[str, str]  # names lower-cased


@dataclass
class ForwardProxy:
    hosts: dict[str, str] = field(default_factory=dict)
    credentials: str | None = None  # "user:password" the proxy demands (407 without)
    tls: ssl.SSLContext | None = None  # an https:// proxy: TLS from the client to the proxy
    log: list[ProxyRequest] = field(default_factory=list)
    _server: socketserver.ThreadingTCPServer | None = None

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def start(self) -> ForwardProxy:
        proxy = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                if proxy.tls is None:
                    proxy._handle(self.connection, self.rfile)
                    return
                with proxy.tls.wrap_socket(self.connection, server_side=True) as conn, \
                        conn.makefile("rb") as rfile:
                    proxy._handle(conn, rfile)

        server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def _dial(self, host: str, port: int) -> socket.socket:
        return socket.create_connection((self.hosts.get(host.lower(), host), port), timeout=10)

    def _handle(self, client: socket.socket, rfile: object) -> None:
        read = rfile.readline  # type: ignore[attr-defined]
        line = read(65537).decode("latin-1").strip()
        if not line:
            return
        method, target, _version = line.split(" ", 2)
        headers: dict[str, str] = {}
        raw_headers: list[tuple[str, str]] = []
        while True:
            h = read(65537).decode("latin-1")
            if h in ("\r\n", "\n", ""):
                break
            name, _, value = h.partition(":")
            headers[name.strip().lower()] = value.strip()
            raw_headers.append((name.strip(), value.strip()))
        self.log.append(ProxyRequest(method, target, headers))
        if self.credentials is not None:
            expected = "Basic " + base64.b64encode(self.credentials.encode()).decode()
            if headers.get("proxy-authorization") != expected:
                client.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                               b"Proxy-Authenticate: Basic\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            self._tunnel(client, host.strip("[]"), int(port))
            return
        parts = urlsplit(target)
        body = b""
        if "content-length" in headers:
            body = rfile.read(int(headers["content-length"]))  # type: ignore[attr-defined]
        try:
            upstream = self._dial(parts.hostname or "", parts.port or 80)
        except OSError:
            client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        out = [f"{method} {path} HTTP/1.1"]
        out += [f"{n}: {v}" for n, v in raw_headers if n.lower() not in _HOP]
        out.append("Connection: close")
        with upstream:
            upstream.sendall(("\r\n".join(out) + "\r\n\r\n").encode("latin-1") + body)
            while chunk := upstream.recv(65536):
                client.sendall(chunk)

    def _tunnel(self, client: socket.socket, host: str, port: int) -> None:
        try:
            upstream = self._dial(host, port)
        except OSError:
            client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")

        def pump(src: socket.socket, dst: socket.socket) -> None:
            with contextlib.suppress(OSError):
                while chunk := src.recv(65536):
                    dst.sendall(chunk)
            with contextlib.suppress(OSError):
                dst.shutdown(socket.SHUT_WR)

        with upstream:
            back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
            back.start()
            pump(client, upstream)
            back.join(timeout=30)

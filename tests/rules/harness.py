"""Run one rule fixture through ``sitemap-tui validate`` in this process and read its findings.

A fixture is a small site: files by path, the target, and extra ``validate`` options. The text
of the files is written as if the site were ``http://a.test/`` (and a second host
``http://b.test/``): when the fixture is served over HTTP, ``a.test`` becomes the test server
reached as ``127.0.0.1:PORT`` and ``b.test`` the same server reached as ``localhost:PORT`` (two
hosts for the engine, one server here). ``a.test:81`` keeps its explicit port. Other host names
(``www.a.test``, ``cdn.example``) are left as written: they are never fetched.

A fixture with a single file and no HTTP specifics is validated as a local file (no server);
everything else (status codes, headers, robots.txt, several files, ``--deep``) is served by
pytest-httpserver on 127.0.0.1, one handler per test that answers from the fixture's files.

``@NOW@`` in a file is replaced by the current UTC time (``@NOW-3H@``, ``@NOW+2D@`` with an
offset), for the few rules that compare dates with the time of the run (news age).
"""

from __future__ import annotations

import importlib
import io
import json
import re
from collections.abc import Callable, Mapping
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from sitemap_tui import cli


@dataclass(frozen=True)
class Resp:
    """A served file with HTTP specifics (status, headers) or an encoding of its text."""

    body: str | bytes | Callable[[], str | bytes] = ""  # a callable: built when served (big files)
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    content_type: str | None = None  # default: from the file name
    encoding: str = "utf-8"  # how a str body becomes bytes


Body = str | bytes | Resp


@dataclass(frozen=True)
class Fixture:
    """One input: ``files`` by path (``b.test/x`` for the second host), validated at ``target``.

    ``target``: a file path, ``/`` for the site (discovery through robots.txt) or ``robots.txt``.
    ``args``: extra ``validate`` options. ``line``/``where``: for a trigger, the line and file
    (path) the finding must be reported on; ``where`` defaults to the target.
    ``http``: force the server (``None``: only when the fixture needs it).
    ``patch``: module attributes replaced during the run, for the caps that would otherwise
    need tens of thousands of files (the run is in this process, so the engine sees them).
    """

    files: Mapping[str, Body]
    target: str = "sitemap.xml"
    args: tuple[str, ...] = ()
    line: int | None = None
    where: str | None = None
    http: bool | None = None
    patch: tuple[tuple[str, str, Any], ...] = ()  # (module, attribute, value) during the run

    @property
    def served(self) -> bool:
        if self.http is not None:
            return self.http
        return (
            len(self.files) > 1
            or self.target in ("/", "robots.txt")
            or "--deep" in self.args
            or any(isinstance(b, Resp) and (b.status != 200 or b.headers or b.content_type) for b in self.files.values())
        )


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: str
    sitemap: str | None
    line: int | None
    url: str | None
    message: str


@dataclass
class Run:
    findings: list[Finding]
    code: int
    port: int | None  # the server's port (None for a local run)
    stderr: str

    def of(self, rule: str) -> list[Finding]:
        return [f for f in self.findings if f.rule == rule]

    def describe(self) -> str:
        lines = [f"exit {self.code}"]
        lines += [f"  {f.rule} {f.sitemap}:{f.line} {f.message}" for f in self.findings]
        if self.stderr.strip():
            lines.append("stderr: " + self.stderr.strip()[-2000:])
        return "\n".join(lines)


_NOW_RE = re.compile(r"@NOW(?:([+-])(\d+)([DH]))?@")
_A_RE = re.compile(r"(?<![\w.-])a\.test(?::(\d+))?")
_B_RE = re.compile(r"(?<![\w.-])b\.test(?::(\d+))?")

CONTENT_TYPES = {
    ".xml": "application/xml",
    ".gz": "application/gzip",
    ".txt": "text/plain; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".rss": "application/rss+xml",
    ".atom": "application/atom+xml",
    ".mp4": "video/mp4",
    ".jpg": "image/jpeg",
    ".png": "image/png",
}


def _now(m: re.Match[str]) -> str:
    when = datetime.now(UTC).replace(microsecond=0)
    if m.group(1):
        delta = timedelta(**{"days" if m.group(3) == "D" else "hours": int(m.group(2))})
        when = when + delta if m.group(1) == "+" else when - delta
    return when.isoformat().replace("+00:00", "Z")


def fill(text: str, port: int | None) -> str:
    """The fixture text with ``@NOW@`` filled in and, when served, the two hosts."""
    text = _NOW_RE.sub(_now, text)
    if port is None:
        return text
    text = _A_RE.sub(lambda m: f"127.0.0.1:{m.group(1) or port}", text)
    return _B_RE.sub(lambda m: f"localhost:{m.group(1) or port}", text)


def body_bytes(body: Body, port: int | None) -> bytes:
    resp = body if isinstance(body, Resp) else Resp(body)
    raw = resp.body() if callable(resp.body) else resp.body
    # text gets the hosts and dates filled in; bytes (gzip, zip, images) are served verbatim
    return fill(raw, port).encode(resp.encoding) if isinstance(raw, str) else raw


def _content_type(path: str, body: Body) -> str:
    if isinstance(body, Resp) and body.content_type is not None:
        return body.content_type
    name = path.rsplit("/", 1)[-1].split("?")[0]
    if name.endswith(".xml.gz"):
        return "application/gzip"
    suffix = name[name.rfind(".") :] if "." in name else ""
    return CONTENT_TYPES.get(suffix, "application/octet-stream")


def _key(host: str, path: str) -> str:
    path = path.lstrip("/")
    return path if host == "a.test" else f"{host}/{path}"


def serve(server: HTTPServer, files: Mapping[str, Body]) -> None:
    """Answer every request from ``files`` (404 for anything else)."""
    port = server.port
    table: dict[str, tuple[bytes, Resp | None, str]] = {}
    for path, body in files.items():
        resp = body if isinstance(body, Resp) else None
        table[path.lstrip("/")] = (body_bytes(body, port), resp, _content_type(path, body))

    def handler(request: Request) -> Response:
        name = request.host.rsplit(":", 1)[0]
        host = "b.test" if name == "localhost" else "a.test"
        path = request.path + (f"?{request.query_string.decode()}" if request.query_string else "")
        found = table.get(_key(host, path))
        if found is None:
            return Response("not found", status=404, content_type="text/plain")
        data, resp, ctype = found
        headers = dict(resp.headers) if resp is not None else {}
        for k, v in headers.items():
            headers[k] = fill(v, port)
        return Response(data, status=resp.status if resp else 200, headers=headers, content_type=ctype)

    server.expect_request(re.compile(".*")).respond_with_handler(handler)


def served_url(path: str, port: int) -> str:
    """The URL of a fixture path when served (``b.test/x`` is on the second host)."""
    if path.startswith("b.test/"):
        return f"http://localhost:{port}/{path.removeprefix('b.test/')}"
    return f"http://127.0.0.1:{port}/{path.lstrip('/')}"


def run_fixture(fx: Fixture, tmp_path: Path, server: HTTPServer | None) -> Run:
    """``sitemap-tui validate`` on the fixture, in this process (``--workers 0``), as JSON."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    if fx.served:
        assert server is not None, "this fixture needs the HTTP server"
        serve(server, fx.files)
        target = served_url(fx.target, server.port)
    else:
        site = tmp_path / "site"
        for path, body in fx.files.items():
            p = site / path
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(body_bytes(body, None))
        target = str(site / fx.target)
    err, out = io.StringIO(), io.StringIO()
    # the report from stdout: on exit 2 (an unreachable target) --output keeps the previous file
    # and writes none, while stdout still gets the report with the fetch findings
    with redirect_stderr(err), redirect_stdout(out), pytest.MonkeyPatch.context() as mp:
        for module, attr, value in fx.patch:
            mp.setattr(importlib.import_module(module), attr, value)
        # --no-history: a finding does not depend on the cache, and every run kept there made
        # each later one prune over all of them
        code = cli.main(["validate", target, "--workers", "0", "--no-history", "--format", "json", *fx.args])
    findings: list[Finding] = []
    if out.getvalue():
        doc: dict[str, Any] = json.loads(out.getvalue())
        findings = [
            Finding(i["rule"], i["severity"], i["sitemap"], i["line"], i["url"], i["message"])
            for i in doc["issues"]
        ]
    return Run(findings, code, server.port if fx.served and server else None, err.getvalue())

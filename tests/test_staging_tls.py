"""Staging before DNS cutover (issue 21): --cacert and --insecure against a local HTTPS server,
with --resolve pointing the deployed name at it."""

from __future__ import annotations

import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import cli_process
import pytest
import trustme
from pytest_httpserver import HTTPServer

URLSET = ('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
          "<url><loc>https://staging.example/a</loc></url></urlset>")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return cli_process.run([sys.executable, "-m", "sitemap_tui", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def tls_server(ca: trustme.CA) -> Iterator[HTTPServer]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("staging.example", "127.0.0.1").configure_cert(context)
    server = HTTPServer(host="127.0.0.1", port=0, ssl_context=context)
    server.start()
    server.expect_request("/s.xml").respond_with_data(URLSET, content_type="application/xml")
    try:
        yield server
    finally:
        server.clear()
        server.stop()


@pytest.fixture
def ca_file(ca: trustme.CA, tmp_path: Path) -> Path:
    path = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return path


def test_unknown_ca_fails_and_cacert_trusts_it(tls_server: HTTPServer, ca_file: Path) -> None:
    url = f"https://127.0.0.1:{tls_server.port}/s.xml"
    refused = run("urls", url, "--no-history")
    assert refused.returncode != 0 and "certificate" in refused.stderr.lower(), refused.stderr
    # what to do is said, once: a certificate that did not verify is not asked for again
    assert "--cacert FILE trusts the CA that signed it, --insecure skips the check" in refused.stderr, refused.stderr
    assert "retr" not in refused.stderr, refused.stderr
    trusted = run("urls", url, "--cacert", str(ca_file), "--no-history")
    assert trusted.returncode == 0, trusted.stderr
    assert trusted.stdout.split() == ["https://staging.example/a"]
    assert "--insecure" not in trusted.stderr


def test_resolve_sends_the_staging_host_name(tls_server: HTTPServer, ca_file: Path) -> None:
    port = tls_server.port
    proc = run("urls", f"https://staging.example:{port}/s.xml", "--resolve",
               f"staging.example:{port}:127.0.0.1", "--cacert", str(ca_file), "--no-history")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["https://staging.example/a"]
    assert tls_server.log[-1][0].headers["Host"] == f"staging.example:{port}"


def test_insecure_skips_the_check_and_warns(tls_server: HTTPServer) -> None:
    proc = run("urls", f"https://127.0.0.1:{tls_server.port}/s.xml", "--insecure", "--no-history")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["https://staging.example/a"]
    assert "warning: --insecure" in proc.stderr


@pytest.mark.parametrize("content", [None, "not a certificate"])
def test_bad_cacert_is_one_line_exit_2(tmp_path: Path, content: str | None) -> None:
    path = tmp_path / "ca.pem"
    if content is not None:
        path.write_text(content)
    proc = run("urls", "https://example.com/s.xml", "--cacert", str(path))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("sitemap-tui: error: --cacert")

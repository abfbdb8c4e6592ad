"""``validate --deep``'s sample, through the command line on a local build: ``--sample all``
read as the default 100 (argparse's None stood for both), and the default's cut was not said."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cli_process
import pytest


@pytest.fixture()
def build(tmp_path: Path) -> Path:
    """A build whose robots.txt names https://example.com: 150 pages, all there but /p2/."""
    public = tmp_path / "public"
    public.mkdir()
    urls = "".join(f"<url><loc>https://example.com/p{i}/</loc></url>" for i in range(150))
    (public / "sitemap.xml").write_text(
        f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>')
    (public / "robots.txt").write_text("User-agent: *\nDisallow:\nSitemap: https://example.com/sitemap.xml\n")
    for i in range(150):
        if i != 2:
            (public / f"p{i}").mkdir()
            (public / f"p{i}" / "index.html").write_text("<html><head><title>t</title></head><body>x</body></html>")
    return public


def validate(build: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return cli_process.run([sys.executable, "-m", "sitemap_tui", "validate", str(build), "--deep", "--select",
                           "deep-", "--no-history", *args], capture_output=True, text=True, timeout=120,
                          cwd=build.parent)


def test_sample_all_checks_every_url(build: Path) -> None:
    proc = validate(build, "--sample", "all")
    assert proc.returncode == 1, proc.stderr
    assert "deep-status-4xx" in proc.stdout and "<https://example.com/p2/>" in proc.stdout
    assert "a sample of" not in proc.stderr


def test_the_default_sample_is_said(build: Path) -> None:
    proc = validate(build)
    assert proc.returncode == 0, proc.stderr  # /p2/ is not among the 100 evenly spaced
    assert ("sitemap-tui: deep checks: a sample of 100 URLs per sitemap, 100 of 150 listed URLs"
            " (--sample all checks every one)") in proc.stderr


def test_sample_all_without_deep_is_said_unused(build: Path) -> None:
    proc = cli_process.run([sys.executable, "-m", "sitemap_tui", "validate", str(build), "--sample", "all",
                           "--no-history"], capture_output=True, text=True, timeout=120, cwd=build.parent)
    assert "--sample, --rate and --ignore-robots apply to --deep only: not used" in proc.stderr


def test_a_build_answers_as_its_static_host_and_says_how(build: Path) -> None:
    """Its correct pages at clean URLs and with query strings were deep-status-4xx errors that
    said only "answers HTTP 404"; a page it lacks says why."""
    (build / "contact.html").write_text("<html><head><title>c</title></head><body>x</body></html>")
    sitemap = build / "sitemap.xml"
    sitemap.write_text(sitemap.read_text().replace("</urlset>", "".join(
        f"<url><loc>https://example.com/{p}</loc></url>" for p in ("contact", "p3/?lang=en", "gone"))
        + "</urlset>"))
    proc = validate(build, "--sample", "all")
    assert proc.returncode == 1, proc.stderr
    errors = [ln for ln in proc.stdout.splitlines() if "deep-status-4xx" in ln]
    assert len(errors) == 2, proc.stdout
    assert any(ln.endswith(f"HTTP 404 (not found in {build}: gone) <https://example.com/gone>") for ln in errors)
    assert ("deep checks: read from the build as static hosts (GitHub Pages, Netlify, Cloudflare Pages) serve"
            " them: 1 from NAME.html (a URL without an extension, as a clean URL), first https://example.com/contact;"
            " 1 without the query string, first https://example.com/p3/?lang=en") in proc.stderr

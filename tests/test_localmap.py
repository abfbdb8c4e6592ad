"""--map URL=DIR (issue 21): a build directory validated offline as the deployed site would be."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import cli_process
import pytest
from pytest_httpserver import HTTPServer

from sitemap_tui.engine.fetch import FetchConfig, Fetcher
from sitemap_tui.engine.localmap import lookup, parse_map, parse_maps, url_for_path

BUILD = Path(__file__).parent / "fixtures" / "localbuild"
SITE = "https://example.com/"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    return cli_process.run([sys.executable, "-m", "sitemap_tui", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd, env=env)


def report(proc: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)["issues"]


def comparable(issues: list[dict[str, Any]], host: str) -> list[tuple[Any, ...]]:
    """The findings with the serving host written as the deployed one, in a stable order."""
    parts = urlsplit(host)
    def fix(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        # (served over http, the build's https URLs on other hosts are named with their scheme)
        return value.replace(host, SITE).replace(f"'{parts.netloc}'", "'example.com'").replace("'https://", "'")

    rows = [tuple((k, fix(v)) for k, v in sorted(i.items()) if k != "file") for i in issues]
    return sorted(rows, key=repr)


def test_build_validates_offline_as_the_served_site(httpserver: HTTPServer, tmp_path: Path) -> None:
    offline = run("validate", str(BUILD / "sitemap.xml"), "--map", f"{SITE}={BUILD}",
                  "--format", "json", "--no-history")
    assert f"is read as {SITE}sitemap.xml" in offline.stderr
    found = report(offline)
    rules = {i["rule"] for i in found}
    # the children were read (their entries were judged), not skipped as on another host
    assert "url-duplicate" in rules or any("posts/first" in (i.get("url") or "") for i in found), found
    assert not any("another host" in i["message"] or "not fetched" in i["message"] for i in found), found
    # each names the build's file it was read from, as the text and GitHub reports do
    files = {i["sitemap"]: i["file"] for i in found if i["sitemap"]}
    assert files and all(Path(f).resolve() == BUILD / s.removeprefix(SITE) for s, f in files.items()), files

    # the same files served from 127.0.0.1, their URLs naming that server
    host = httpserver.url_for("/")
    for f in BUILD.iterdir():
        body = f.read_text().replace(SITE, host)
        kind = "text/plain" if f.suffix == ".txt" else "application/xml"
        httpserver.expect_request(f"/{f.name}").respond_with_data(body, content_type=kind)
    served = report(run("validate", host + "sitemap.xml", "--format", "json", "--no-history"))
    assert all(i["file"] is None for i in served)  # fetched: no local file
    assert comparable(found, host) == comparable(served, host)


def test_directory_target_reads_robots_and_index_from_the_build() -> None:
    proc = run("urls", str(BUILD), "--map", f"{SITE}={BUILD}", "--no-history")
    assert proc.returncode == 0, proc.stderr
    urls = proc.stdout.split()
    assert "https://example.com/posts/second/" in urls and "https://example.com/about/" in urls


def test_missing_mapped_file_is_a_node_error(tmp_path: Path) -> None:
    (tmp_path / "sitemap.xml").write_text(
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<sitemap><loc>https://example.com/sitemap-2.xml</loc></sitemap></sitemapindex>")
    proc = run("validate", str(tmp_path / "sitemap.xml"), "--map", f"{SITE}={tmp_path}",
               "--format", "json", "--no-history")
    assert "Traceback" not in proc.stderr
    messages = [i["message"] for i in report(proc)]
    assert any(f"not found in {tmp_path}: sitemap-2.xml" in m for m in messages), messages


@pytest.mark.parametrize("value", [
    "https://example.com/", "=./public", "ftp://example.com/=.", "https://example.com/?a=1=.",
    "https://example.com/=/no/such/dir",
])
def test_bad_map_is_one_line_exit_2(value: str) -> None:
    proc = run("urls", str(BUILD / "sitemap.xml"), "--map", value)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "--map" in proc.stderr and "Traceback" not in proc.stderr


async def fetch_text(url: str, maps: str) -> tuple[bool, str, int | None]:
    chunks: list[bytes] = []
    async with Fetcher(FetchConfig(maps=parse_maps([maps]))) as fetcher:
        out = await fetcher.fetch(url, chunks.append)
    return out.ok, out.error or b"".join(chunks).decode(), out.stats.http_status


@pytest.mark.parametrize("path", [
    "../secret.txt", "%2e%2e/secret.txt", "%2E%2E%2Fsecret.txt", "sub/../../secret.txt",
    "..%2fsecret.txt", "link/secret.txt",
])
async def test_traversal_never_leaves_the_directory(tmp_path: Path, path: str) -> None:
    root = tmp_path / "public"
    (root / "sub").mkdir(parents=True)
    (tmp_path / "secret.txt").write_text("secret")
    (root / "link").symlink_to(tmp_path)
    ok, text, status = await fetch_text(SITE + path, f"{SITE}={root}")
    assert not ok and status == 403 and f"leads outside {root}" in text, text
    if path.startswith("link"):
        assert "symlink" in text


async def test_mapped_file_keeps_url_and_decodes_gzip(tmp_path: Path) -> None:
    (tmp_path / "s.xml.gz").write_bytes(gzip.compress(b"<urlset/>"))
    chunks: list[bytes] = []
    async with Fetcher(FetchConfig(maps=parse_maps([f"{SITE}blog/={tmp_path}"]))) as fetcher:
        out = await fetcher.fetch(SITE + "blog/s.xml.gz", chunks.append)
    assert out.ok and b"".join(chunks) == b"<urlset/>"
    assert out.final_url == SITE + "blog/s.xml.gz" and out.stats.gzipped


async def test_mapped_file_keeps_the_size_cap(tmp_path: Path) -> None:
    (tmp_path / "big.xml").write_bytes(b"<urlset>" + b" " * 5000 + b"</urlset>")
    async with Fetcher(FetchConfig(maps=parse_maps([f"{SITE}={tmp_path}"]), max_decoded=1000)) as fetcher:
        out = await fetcher.fetch(SITE + "big.xml", lambda _c: None)
    assert not out.ok and out.error_rule == "size-over-limit", out.error


def test_url_for_path_and_prefix(tmp_path: Path) -> None:
    m = parse_map(f"HTTPS://Example.com/docs={tmp_path}")
    assert m.prefix == "https://example.com/docs/"
    (tmp_path / "a b.xml").write_text("x")
    assert url_for_path((m,), tmp_path / "a b.xml") == "https://example.com/docs/a%20b.xml"
    assert url_for_path((m,), tmp_path) == "https://example.com/docs/"
    assert url_for_path((m,), tmp_path.parent) is None


def test_the_default_port_is_the_same_prefix(tmp_path: Path) -> None:
    """Found from outside: an index listing https://example.com:443/b.xml went to the network
    (two false errors) under --map https://example.com/=DIR."""
    (tmp_path / "b.xml").write_text("x")
    for prefix, url in (("https://example.com/", "https://example.com:443/b.xml"),
                        ("https://example.com:443/", "https://example.com/b.xml"),
                        ("http://example.com/", "http://EXAMPLE.com:80/b.xml")):
        hit = lookup((parse_map(f"{prefix}={tmp_path}"),), url)
        assert hit is not None and hit.path == tmp_path / "b.xml", (prefix, url)
    # near miss: another port is another site
    assert lookup((parse_map(f"https://example.com/={tmp_path}"),), "https://example.com:8443/b.xml") is None


def test_an_idn_prefix_maps_both_spellings_and_user_info_is_refused(tmp_path: Path) -> None:
    """Found from outside: --map https://bücher.example/=DIR never matched the xn-- form that
    goes on the wire (robots.txt and every child were fetched from the network), nor the
    punycode prefix a Unicode-spelled child; a prefix with user:password was taken, matched
    nothing and printed the password in its "read as" line."""
    (tmp_path / "b.xml").write_text("x")
    for prefix in ("https://bücher.example/", "https://xn--bcher-kva.example/", "https://BÜCHER.example:443/"):
        m = parse_map(f"{prefix}={tmp_path}")
        assert m.prefix == "https://xn--bcher-kva.example/"
        for url in ("https://bücher.example/b.xml", "https://xn--bcher-kva.example/b.xml"):
            hit = lookup((m,), url)
            assert hit is not None and hit.path == tmp_path / "b.xml", (prefix, url)
    # near misses: another name, an IPv6 literal with its port kept
    assert lookup((parse_map(f"https://bücher.example/={tmp_path}"),), "https://bucher.example/b.xml") is None
    v6 = parse_map(f"http://[::1]:8080/={tmp_path}")
    assert v6.prefix == "http://[::1]:8080/" and lookup((v6,), "http://[::1]:8080/b.xml") is not None
    long = parse_map(f"http://[0:0:0:0:0:0:0:1]:8080/={tmp_path}")  # one address, two spellings
    assert long.prefix == v6.prefix and lookup((long,), "http://[0::1]:8080/b.xml") is not None
    proc = run("urls", str(BUILD / "sitemap.xml"), "--map", f"https://user:s3cret@example.com/={BUILD}")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "user name or password" in proc.stderr
    assert "s3cret" not in proc.stderr


def test_stats_say_where_the_bytes_came_from() -> None:
    maps = ("--map", f"{SITE}={BUILD}", "--no-history")
    text = run("stats", str(BUILD / "sitemap.xml"), *maps)
    assert text.returncode == 0, text.stderr
    assert f"read from {BUILD / 'sitemap-posts.xml'}" in text.stdout
    data = json.loads(run("stats", str(BUILD / "sitemap.xml"), "--json", *maps).stdout)
    root = data["nodes"][0]
    assert root["url"] == SITE + "sitemap.xml" and root["read_from"] == str(BUILD / "sitemap.xml")


def test_audit_reads_a_local_build_as_its_static_host_would_serve_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`audit --map` on a build without a server (issue 21 §1: "pages for audit where present"):
    a folder's URL is its index.html, a page the build lacks is a 404, and a robots.txt it lacks
    means no rules (as a 404 does), not "unreadable, so everything disallowed"."""
    import contextlib
    import io

    from sitemap_tui import cli

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    public = tmp_path / "public"
    (public / "about").mkdir(parents=True)
    (public / "sitemap.xml").write_text(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>https://example.com/about/</loc></url><url><loc>https://example.com/gone</loc></url>"
        "<url><loc>https://example.com/team/</loc></url></urlset>")
    (public / "about" / "index.html").write_text(
        '<!doctype html><html><head><title>About</title><meta name="robots" content="noindex"></head></html>')
    (public / "team").mkdir()  # a folder without index.html: not a page
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["audit", "https://example.com/sitemap.xml", "--map", f"https://example.com/={public}/",
                         "--format", "jsonl", "--no-history", "--workers", "0"])
    assert code == 0, err.getvalue()
    records = {r["loc"]: r for r in map(json.loads, out.getvalue().splitlines())}
    assert records["https://example.com/about/"]["status"] == 200
    assert records["https://example.com/about/"]["reason"] == "non-indexable: noindex (noindex)"
    assert records["https://example.com/gone"]["reason"] == "non-indexable: 404"
    assert records["https://example.com/team/"]["reason"] == "non-indexable: 404"
    assert "disallowed" not in err.getvalue() and not any(r["blocked_for"] for r in records.values())


def test_clean_urls_and_query_strings_are_answered_as_static_hosts_do(tmp_path: Path) -> None:
    """/contact from contact.html, /docs/?lang=en from docs/index.html, as GitHub Pages, Netlify
    and Cloudflare Pages answer them (a build's correct pages were 404s, "deep-status-4xx");
    the way each was found is kept for the caller to say (MapHit.served_as)."""
    from sitemap_tui.engine.localmap import lookup

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.html").write_text("<p>docs</p>")
    (tmp_path / "contact.html").write_text("<p>contact</p>")
    (tmp_path / "data.json").write_text("{}")
    maps = parse_maps([f"https://example.com/={tmp_path}/"])
    hits = {u: lookup(maps, "https://example.com" + u) for u in (
        "/contact", "/docs/?lang=en", "/contact?x=1", "/docs/", "/data.json?v=2", "/nothere", "/contact/",
        "/data")}
    assert (hits["/contact"].path, hits["/contact"].served_as) == ((tmp_path / "contact.html").resolve(), "clean")
    assert (hits["/docs/?lang=en"].path, hits["/docs/?lang=en"].served_as) == (
        (tmp_path / "docs" / "index.html").resolve(), "query")
    assert hits["/contact?x=1"].path == (tmp_path / "contact.html").resolve()
    assert (hits["/docs/"].served_as, hits["/data.json?v=2"].served_as) == (None, "query")
    for missing in ("/nothere", "/contact/", "/data"):  # no NAME.html beside a folder URL or another file
        assert hits[missing].path is None and hits[missing].status == 404, missing
    assert hits["/nothere"].error == f"not found in {tmp_path}/: nothere"


def test_clean_urls_beside_a_folder_and_names_the_file_system_refuses(tmp_path: Path) -> None:
    """Found in review: /blog was "a directory" when blog/ held posts but no index.html, beside
    blog.html (Next.js's export); a 252-character name, with ".html", was too long for the file
    system and the OSError escaped the fetch (the deep checks lost the URL in silence);
    /contact. was read from contact..html."""
    from sitemap_tui.engine.localmap import lookup

    (tmp_path / "blog").mkdir()
    (tmp_path / "blog" / "post.html").write_text("<p>post</p>")
    (tmp_path / "blog.html").write_text("<p>blog</p>")
    (tmp_path / "contact..html").write_text("<p>odd</p>")
    maps = parse_maps([f"https://example.com/={tmp_path}/"])
    blog = lookup(maps, "https://example.com/blog")
    assert (blog.path, blog.served_as) == ((tmp_path / "blog.html").resolve(), "clean")
    assert lookup(maps, "https://example.com/contact.").path is None
    long = lookup(maps, "https://example.com/" + "x" * 252)
    assert long.path is None and long.status == 404
    longer = lookup(maps, "https://example.com/" + "x" * 300)
    assert longer.path is None and longer.status == 404 and "File name too long" in (longer.error or ""), longer


INDEX_OF = ('<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{}'
            "</sitemapindex>")


def _index(*locs: str) -> str:
    return INDEX_OF.format("".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs))


def test_files_a_hostile_index_names_are_not_read_outside_what_the_user_named(tmp_path: Path) -> None:
    """Found from outside (a security review of today's site-by-index): a downloaded index given
    alone made its folder a site and read the files it named beside it and below it (a home
    folder's .git-credentials, printed as a URL); a symlink out of a plain folder was read as a
    sitemap; a FIFO target blocked; an '=' in a URL's user info gave a traceback. Near miss: a
    build folder's own index still names its site."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("CANARY_SSH_KEY\n")
    (home / ".git-credentials").write_text("https://me:CANARY_CRED@github.com\n")
    (home / "notes.txt").write_text("https://CANARY_NOTES.example/\n")
    (home / "sitemap_index.xml").write_text(_index("https://evil.example/notes.txt", "https://evil.example/.git-credentials",
                                                   "https://evil.example/.ssh/id_rsa", "https://evil.example/sitemap_index.xml"))
    for command in ("urls", "validate"):
        proc = run(command, str(home / "sitemap_index.xml"), "--no-history", cwd=tmp_path)
        assert "CANARY" not in proc.stdout + proc.stderr and "is read as" not in proc.stderr, (command, proc.stderr)
        assert "Traceback" not in proc.stderr
    # the folder named: a site by its index, and still no hidden file read (refused, said)
    proc = run("validate", str(home), "--no-history", "--format", "json", cwd=tmp_path)
    assert "is read as https://evil.example/" in proc.stderr
    assert "CANARY_SSH_KEY" not in proc.stdout and "CANARY_CRED" not in proc.stdout + proc.stderr
    assert "is a hidden file or folder (.ssh), never read" in proc.stdout
    # a plain folder: a symlink out of it is skipped, never read
    outside = tmp_path / "outside.txt"
    outside.write_text("https://CANARY_OUTSIDE.example/\n")
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "sitemap.txt").symlink_to(outside)
    (plain / "pages.xml").write_text(INDEX_OF.replace("sitemapindex", "urlset").format(
        "<url><loc>https://example.com/a</loc></url>"))
    proc = run("urls", str(plain), "--no-history", cwd=tmp_path)
    assert "CANARY_OUTSIDE" not in proc.stdout + proc.stderr and "https://example.com/a" in proc.stdout
    assert "1 symlink leading outside the folder, not read (" in proc.stderr and ": sitemap.txt" in proc.stderr
    # a FIFO named as the target: refused at once (it blocked in the site's inference)
    fifo_dir = tmp_path / "fifo"
    fifo_dir.mkdir()
    os.mkfifo(fifo_dir / "sitemap.xml")
    proc = run("validate", "sitemap.xml", "--no-history", cwd=fifo_dir)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    # an '=' in a listed URL's user info names no site, and is no traceback
    odd = tmp_path / "odd"
    odd.mkdir()
    (odd / "notes.txt").write_text("hello\n")
    (odd / "sitemap.xml").write_text(_index("https://a=b@evil.example/notes.txt"))
    proc = run("validate", str(odd), "--no-history", cwd=tmp_path)
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr and "is read as" not in proc.stderr


def test_a_local_indexs_children_are_said_as_such_and_well_known_is_served(tmp_path: Path) -> None:
    """Found from outside: a local index given alone had its children "on another host ...
    (--follow-cross-host)", a hint to fetch them from the network; a mapped site refused
    /.well-known/ as hidden (RFC 8615's is public); `urls ~nosuchuser/` was a traceback."""
    public = tmp_path / "public"
    public.mkdir()
    (public / "sitemap_index.xml").write_text(_index("https://example.com/pages.xml"))
    proc = run("urls", str(public / "sitemap_index.xml"), "--no-history", cwd=tmp_path)
    assert "1 listed file not fetched: listed by a local file whose folder stands for no site" in proc.stderr
    assert "another host" not in proc.stderr
    (public / ".well-known").mkdir()
    (public / ".well-known" / "sitemap.xml").write_text(INDEX_OF.replace("sitemapindex", "urlset").format(
        "<url><loc>https://example.com/a</loc></url>"))
    hit = lookup(parse_maps([f"https://example.com/={public}"]), "https://example.com/.well-known/sitemap.xml")
    assert hit is not None and hit.path is not None, hit
    proc = run("urls", "~nosuchuser/sitemap.xml", "--no-history", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "no such file or directory" in proc.stderr

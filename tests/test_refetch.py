"""Conditional re-exploration (issue 20 §3): a site explored before is asked for each file with
the validators of its latest exploration in the cache (If-None-Match / If-Modified-Since); a file
that answers 304 is carried over from that exploration, so the outputs are the first run's while
no body is sent again. Run as a user runs the commands, against a site on 127.0.0.1 whose handler
honours the validators and counts the bodies it sends, with this test's own cache folder."""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from werkzeug import Request, Response

from sitemap_tui import cli
from sitemap_tui.engine.store import Store

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
EXT = ('xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
       'xmlns:xhtml="http://www.w3.org/1999/xhtml"')
SITEMAPS = ("/index.xml", "/a.xml", "/b.xml", "/c.xml")


class Site:
    """Files by path with their validators; a 304 when a request's validator matches."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.files: dict[str, tuple[bytes, str | None, str]] = {}
        self.bodies: Counter[str] = Counter()  # bodies sent, by path
        self.asked: list[tuple[str, str | None, str | None]] = []  # (path, If-None-Match, If-Modified-Since)
        self.honour = True  # False: a server that ignores validators (always 200)
        self.version = 0

    def put(self, path: str, body: str, *, etag: bool = True) -> None:
        self.version += 1
        tag = f'"{path.strip("/")}-{self.version}"' if etag else None
        modified = f"Mon, 0{self.version % 9 + 1} Jan 2024 10:00:00 GMT"
        self.files[path] = (body.encode(), tag, modified)

    def handle(self, request: Request) -> Response:
        if request.path not in self.files:
            return Response("no", status=404)
        body, tag, modified = self.files[request.path]
        inm, ims = request.headers.get("If-None-Match"), request.headers.get("If-Modified-Since")
        self.asked.append((request.path, inm, ims))
        headers = {"Last-Modified": modified, **({"ETag": tag} if tag else {})}
        # RFC 9110 §13.2.2: If-None-Match decides when present, else If-Modified-Since
        same = inm == tag if inm is not None else ims is not None and ims == modified
        if self.honour and same:
            return Response(status=304, headers=headers)
        self.bodies[request.path] += 1
        return Response(body, content_type="application/xml", headers=headers)


def urlset(base: str, pages: list[str], *, extras: str = "") -> str:
    rows = "".join(f"<url><loc>{base}/{p}</loc><lastmod>2024-01-01</lastmod></url>" for p in pages)
    return f'<?xml version="1.0"?>\n<urlset {NS} {EXT}>{rows}{extras}</urlset>\n'


@pytest.fixture()
def site(httpserver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Site:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("SITEMAP_TUI_CONFIG", str(tmp_path / "config.toml"))
    base = httpserver.url_for("").rstrip("/")
    s = Site(base)
    # a.xml listed with a <lastmod> older than its own (index-lastmod-stale, a finding a.xml's
    # checks put on the index), and a child that is gone (index-child-unfetchable, on the index)
    s.put("/index.xml", f'<?xml version="1.0"?>\n<sitemapindex {NS}>'
          + f"<sitemap><loc>{base}/a.xml</loc><lastmod>2020-01-01</lastmod></sitemap>"
          + "".join(f"<sitemap><loc>{base}{p}</loc></sitemap>" for p in (*SITEMAPS[2:], "/gone.xml"))
          + "</sitemapindex>\n")
    # a.xml: a bad priority and a bad lastmod (per-file findings); an image and hreflang links
    s.put("/a.xml", urlset(base, ["a1", "a2"], extras=(
        f"<url><loc>{base}/a3</loc><priority>7</priority><lastmod>yesterday</lastmod>"
        f"<image:image><image:loc>{base}/img/a3.png</image:loc></image:image>"
        f'<xhtml:link rel="alternate" hreflang="en" href="{base}/a3"/>'
        f'<xhtml:link rel="alternate" hreflang="de" href="{base}/de/a3"/></url>')))
    s.put("/b.xml", urlset(base, ["b1", "a1"]))  # a1 again: the cross-file duplicate rule
    s.put("/c.xml", urlset(base, ["c1"]), etag=False)  # Last-Modified alone: If-Modified-Since
    httpserver.expect_request(re.compile(".*")).respond_with_handler(s.handle)
    return s


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([*args, "--workers", "0"])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def sent(site: Site) -> int:
    return sum(site.bodies[p] for p in SITEMAPS)


def conditional(site: Site) -> dict[str, tuple[str | None, str | None]]:
    return {p: (inm, ims) for p, inm, ims in site.asked if p in SITEMAPS and (inm or ims)}


def test_second_urls_run_sends_validators_gets_304s_and_prints_the_same(site: Site, tmp_path: Path) -> None:
    target = f"{site.base}/index.xml"
    code, first, _ = run("urls", target, "--format", "jsonl")
    assert code == 0 and first.count("\n") == 6
    assert sent(site) == 4 and not conditional(site)
    code, second, err = run("urls", target, "--format", "jsonl")
    assert code == 0, err
    assert "fetched again" not in err, err
    assert sorted(second.splitlines()) == sorted(first.splitlines())  # images, hreflang and all
    assert sent(site) == 4  # not one body more
    asked = conditional(site)
    assert set(asked) == set(SITEMAPS)
    assert asked["/a.xml"][0] == site.files["/a.xml"][1]  # the ETag as If-None-Match
    assert asked["/c.xml"] == (None, site.files["/c.xml"][2])  # no ETag: If-Modified-Since
    assert "4 files unchanged since the previous exploration" in err
    # the previous exploration was read without a trace: no log or index files left beside it
    assert sorted(p.suffix for p in (tmp_path / "xdg-cache").rglob("*") if p.is_file()) == [".db", ".db"]


def strip_times(node: dict) -> dict:
    for key in ("fetch_time", "parse_time", "ttfb", "unchanged_since"):
        node.pop(key, None)
    node["children"] = [strip_times(c) for c in node["children"]]
    return node


def test_stats_and_validate_json_are_the_first_runs(site: Site) -> None:
    target = f"{site.base}/index.xml"
    code, v1, _ = run("validate", target, "--format", "json", "--no-cache")
    assert code == 1  # the bad priority and lastmod are errors
    code, s1, _ = run("stats", target, "--json", "--no-cache")
    assert code == 0
    assert sent(site) == 8
    code, v2, err = run("validate", target, "--format", "json")
    assert code == 1, (v1, v2, err)
    code, s2, _ = run("stats", target, "--json")
    assert code == 0
    assert sent(site) == 8  # the second validate and stats: 304s only
    first, again = json.loads(v1), json.loads(v2)
    for report in (first, again):
        report.pop("elapsed", None)
        report.pop("generated", None)
    assert again == first
    rules = {i["rule"] for i in first["issues"]}
    # findings on the index that a listed file made: carried with that file, not with the index
    assert {"index-lastmod-stale", "index-child-unfetchable", "cross-duplicate-url", "priority-invalid"} <= rules
    tree1 = [strip_times(n) for n in json.loads(s1)["nodes"]]
    raw2 = json.loads(s2)["nodes"]
    child = raw2[0]["children"][0]
    assert child["unchanged_since"]  # the node says so, in the documented shape
    schema = json.loads((Path(__file__).resolve().parents[1] / "docs" / "schemas" / "stats.schema.json").read_text())
    assert not list(Draft202012Validator(schema).iter_errors(json.loads(s2)))
    assert [strip_times(n) for n in raw2] == tree1


def test_a_changed_file_is_fetched_and_its_new_rows_are_seen(site: Site) -> None:
    target = f"{site.base}/index.xml"
    assert run("urls", target)[0] == 0
    site.put("/b.xml", urlset(site.base, ["b1", "a1", "b2"]))
    code, out, _ = run("urls", target)
    assert code == 0
    assert f"{site.base}/b2" in out.splitlines() and len(out.splitlines()) == 7
    assert site.bodies["/b.xml"] == 2 and site.bodies["/a.xml"] == 1
    code, again, _ = run("urls", target)  # the third run carries the changed file's new rows
    assert sorted(again.splitlines()) == sorted(out.splitlines())
    assert site.bodies["/b.xml"] == 2


def test_no_cache_sends_no_validators(site: Site) -> None:
    target = f"{site.base}/index.xml"
    run("urls", target)
    code, out, err = run("urls", target, "--no-cache")
    assert code == 0 and len(out.splitlines()) == 6
    assert not conditional(site) and sent(site) == 8
    assert "unchanged" not in err


def test_a_server_that_ignores_validators_still_works(site: Site) -> None:
    target = f"{site.base}/index.xml"
    _, first, _ = run("urls", target)
    site.honour = False
    code, second, err = run("urls", target)
    assert code == 0 and second == first
    assert set(conditional(site)) == set(SITEMAPS) and sent(site) == 8
    assert "unchanged" not in err


def test_an_unreadable_previous_exploration_is_said_and_everything_fetched(site: Site, tmp_path: Path) -> None:
    target = f"{site.base}/index.xml"
    _, first, _ = run("urls", target)
    [saved] = list((tmp_path / "xdg-cache").rglob("*.db"))
    saved.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)  # a damaged store
    code, second, err = run("urls", target)
    assert code == 0 and second == first and sent(site) == 8
    assert "every file is fetched in full" in err


def test_a_previous_exploration_of_another_version_is_judged_again(site: Site, tmp_path: Path) -> None:
    """Carried over, an older version's findings outlived the upgrade that fixed their rule: a
    file that answered 304 kept them. Another version's store is asked against by no file."""
    import sqlite3

    target = f"{site.base}/index.xml"
    _, first, _ = run("urls", target)
    [saved] = list((tmp_path / "xdg-cache").rglob("*.db"))
    with sqlite3.connect(saved) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'made_by'", ('"sitemap-tui/0.0.1"',))
    assert db.total_changes == 1
    db.close()
    code, second, err = run("urls", target)
    assert code == 0 and second == first and not conditional(site)
    assert ("sitemap-tui: the previous exploration was made by sitemap-tui/0.0.1: every file is fetched in full"
            " and judged again") in err.splitlines()
    code, _, err = run("urls", target)  # this version's own: asked against
    assert code == 0 and conditional(site) and "judged again" not in err


def test_carried_rows_are_in_the_new_store_not_appended_to_the_old(site: Site, tmp_path: Path) -> None:
    target = f"{site.base}/index.xml"
    run("validate", target)
    [old] = list((tmp_path / "xdg-cache").rglob("*.db"))
    before = old.read_bytes()
    run("validate", target)
    assert old.read_bytes() == before  # read-only: never appended to
    [new] = [p for p in (tmp_path / "xdg-cache").rglob("*.db") if p != old]
    o, n = Store(old, readonly=True), Store(new, readonly=True)
    try:
        for q in ("SELECT loc, lastmod_raw, priority_raw, n_images, n_alternates, n_issues FROM entries ORDER BY loc",
                  "SELECT loc, title FROM images ORDER BY loc", "SELECT hreflang, href FROM alternates ORDER BY href",
                  "SELECT rule, severity, line, url, message FROM issues ORDER BY rule, line, url, message"):
            assert n.conn.execute(q).fetchall() == o.conn.execute(q).fetchall(), q
        assert n.conn.execute("SELECT count(*) FROM nodes WHERE unchanged_since IS NOT NULL").fetchone()[0] == 4
    finally:
        o.close()
        n.close()


def test_worker_processes_carry_the_same(site: Site) -> None:
    """With workers the output is the same (the 304s are asked for in the explorer's process
    until a file needs parsing; test_refetch_pool.py has them come from a worker too)."""
    target = f"{site.base}/index.xml"
    _, first, _ = run("urls", target, "--format", "csv", "--workers", "2")
    code, second, err = run("urls", target, "--format", "csv", "--workers", "2")
    assert code == 0 and second.splitlines()[0] == first.splitlines()[0]  # one CSV header
    assert sorted(second.splitlines()) == sorted(first.splitlines())
    assert sent(site) == 4 and "4 files unchanged" in err


async def test_a_previous_copy_that_fails_mid_run_is_fetched_in_full(site: Site, tmp_path: Path) -> None:
    """The previous store damaged after its validators were read: the 304 cannot be carried, so
    the file is asked for again without validators, and the Refetch says why."""
    from sitemap_tui.engine.explorer import ExploreOptions, Explorer
    from sitemap_tui.engine.fetch_outcome import FetchConfig
    from sitemap_tui.engine.refetch import Refetch

    target = f"{site.base}/a.xml"
    old = Store(tmp_path / "old.db")
    async with Explorer(store=old, fetch_config=FetchConfig(retries=0), options=ExploreOptions()) as ex:
        await ex.explore(target)
    old.close()
    previous = Refetch.open(tmp_path / "old.db")
    new = Store(tmp_path / "new.db")
    try:
        async with Explorer(store=new, fetch_config=FetchConfig(retries=0), options=ExploreOptions(),
                            previous=previous) as ex:
            # damaged once its validators were read and it was attached: its rows cannot be
            size = (tmp_path / "old.db").stat().st_size
            (tmp_path / "old.db").write_bytes(b"\xff" * size)
            await ex.explore(target)
        assert [n for n in ex.nodes.values() if n.url == target][0].stats.url_count == 3
        assert new.conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 3
        assert site.asked[-2][1] is not None and site.asked[-1][1:] == (None, None)  # 304, then in full
        assert site.bodies["/a.xml"] == 2
        assert len(previous.notes) == 1 and "fetched again in full" in previous.notes[0]
    finally:
        previous.close()
        new.close()


def test_carried_rows_keep_their_keys(site: Site, tmp_path: Path) -> None:
    """The new store takes the previous one's signature key, so the carried rows' URL keys and
    hreflang signatures stay (the cross-file pass would otherwise compute every one again)."""
    target = f"{site.base}/index.xml"
    run("validate", target)
    run("validate", target)
    from sitemap_tui.engine.store import SIGNATURE_KEY

    old, new = (Store(p, readonly=True) for p in sorted((tmp_path / "xdg-cache").rglob("*.db")))
    try:
        assert new.get_meta(SIGNATURE_KEY) == old.get_meta(SIGNATURE_KEY)
        assert new.conn.execute("SELECT count(*) FROM entries WHERE alt_n IS NULL").fetchone()[0] == 0
    finally:
        old.close()
        new.close()


async def test_a_previous_store_gone_before_the_run_is_said(site: Site, tmp_path: Path) -> None:
    from sitemap_tui.engine.explorer import ExploreOptions, Explorer
    from sitemap_tui.engine.fetch_outcome import FetchConfig
    from sitemap_tui.engine.refetch import Refetch

    target = f"{site.base}/a.xml"
    old = Store(tmp_path / "old.db")
    async with Explorer(store=old, fetch_config=FetchConfig(retries=0), options=ExploreOptions()) as ex:
        await ex.explore(target)
    old.close()
    previous = Refetch.open(tmp_path / "old.db")
    (tmp_path / "old.db").unlink()
    new = Store(tmp_path / "new.db")
    try:
        async with Explorer(store=new, fetch_config=FetchConfig(retries=0), options=ExploreOptions(),
                            previous=previous) as ex:
            await ex.explore(target)
        assert site.asked[-1][1:] == (None, None) and site.bodies["/a.xml"] == 2  # no validators
        assert new.conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 3
        assert len(previous.notes) == 1 and "every file is fetched in full" in previous.notes[0]
    finally:
        previous.close()
        new.close()


def test_a_run_reads_one_summary_however_many_explorations_the_cache_keeps(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each headless run prunes the cache and looks for the site's latest exploration: the prune
    needs only sizes and ages, the look stops at the newest match. Both opened every kept file
    (0.4 s a run with 330 kept; the corpus tests' runs grew quadratically)."""
    from sitemap_tui.session import recent

    target = f"{site.base}/index.xml"
    for _ in range(3):
        assert run("urls", target, "--no-cache")[0] == 0
    oldest = min((tmp_path / "xdg-cache").rglob("*.db"), key=lambda p: p.stat().st_mtime)
    oldest.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)  # never read: a newer one matches
    read: list[Path] = []
    real = recent.read_summary
    monkeypatch.setattr(recent, "read_summary", lambda path: read.append(path) or real(path))
    code, _, err = run("urls", target)
    assert code == 0 and "fetched in full" not in err
    assert len(read) == 1 and read[0] != oldest, read
    assert sent(site) == 3 * len(SITEMAPS)  # the fourth run got a 304 for every file


def test_local_targets_keep_their_history_under_their_own_file_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A local target's explorations are named after its file, so that a re-exploration of one
    file does not read the summaries of every other local file's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    for name in ("a.xml", "b b.xml"):
        (tmp_path / name).write_text(urlset("https://example.com", ["p"]))
        assert run("urls", str(tmp_path / name))[0] == 0
    names = sorted(p.name for p in (tmp_path / "xdg-cache").rglob("*.db"))
    assert [n.rsplit("-", 2)[0] for n in names] == ["local-a.xml", "local-b_b.xml"], names


def test_the_previous_exploration_is_never_the_runs_own_store(site: Site) -> None:
    """The explorer's store is in the cache while it runs, the newest of its site: asked to leave
    it out (``exclude``), open_previous gives the one before, never the store being written."""
    from sitemap_tui.engine.discover import Target
    from sitemap_tui.session.history import open_previous
    from sitemap_tui.session.recent import cache_folder

    target = f"{site.base}/index.xml"
    assert run("urls", target)[0] == 0
    (older,) = cache_folder().glob("*.db")
    assert run("urls", target)[0] == 0
    (newest,) = set(cache_folder().glob("*.db")) - {older}
    for exclude, expected in ((None, newest), (newest, older)):
        previous, problem = open_previous(Target.parse(target), "none", exclude=exclude)
        assert previous is not None and problem is None
        try:
            assert previous.previous.path == expected
        finally:
            previous.close()


def test_carried_txt_lines_are_the_first_runs_odd_urls_included(site: Site) -> None:
    """The txt output of a carried file is read per chunk (store/carry.py, engine/refetch.py):
    a scheme the first run leaves out, an upper-case scheme it keeps, a character it escapes
    and one it prints as it is come out the same, in the same order."""
    pages = ["d1", "d2"]
    extras = ("<url><loc>ftp://files.example/d3</loc></url>"  # not http(s): left out, said
              f"<url><loc>HTTP://{site.base[7:]}/d4</loc></url>"  # kept (the scheme's case)
              f"<url><loc>{site.base}/d5\u202egnp.exe</loc></url>"  # bidi override: percent-encoded
              f"<url><loc>{site.base}/d6\u00a0x</loc></url>")  # NBSP: not printable, shown as is
    site.put("/c.xml", urlset(site.base, pages, extras=extras), etag=False)
    target = f"{site.base}/index.xml"
    code, first, err1 = run("urls", target)
    assert code == 0
    assert "/d5%E2%80%AEgnp.exe" in first and "\u00a0" in first and "ftp://" not in first and "HTTP://" in first
    code, second, err2 = run("urls", target)
    assert code == 0 and "4 files unchanged" in err2
    # (files may finish in another order; one file's lines keep theirs)
    assert sorted(second.splitlines()) == sorted(first.splitlines())
    assert [x for x in second.splitlines() if "/d" in x] == [x for x in first.splitlines() if "/d" in x]
    assert [line for line in err1.splitlines() if "left out" in line] \
        == [line for line in err2.splitlines() if "left out" in line] != []


def test_a_carried_url_holding_a_line_break_is_one_escaped_line(site: Site) -> None:
    """The txt lines of a carried file come from SQLite as one text per chunk: a URL holding a
    line break (a character reference in the XML) must stay one line, escaped as the first run
    escapes it, never two lines that could pass for two URLs."""
    extras = f"<url><loc>{site.base}/d7&#10;{site.base}/forged</loc></url>"
    site.put("/c.xml", urlset(site.base, ["d1"], extras=extras), etag=False)
    target = f"{site.base}/index.xml"
    code, first, _ = run("urls", target)
    assert code == 0 and f"{site.base}/forged" not in first.splitlines()
    code, second, err = run("urls", target)
    assert code == 0 and "4 files unchanged" in err
    assert sorted(second.splitlines()) == sorted(first.splitlines())


def crossfile_spy(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the cross-file passes run (they are looked up at each call)."""
    from sitemap_tui.validate import crossfile

    calls: list[int] = []
    real = crossfile.run_crossfile

    def spy(*args: object, **kwargs: object) -> int:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(crossfile, "run_crossfile", spy)
    return calls


def report(text: str) -> dict:
    out = json.loads(text)
    out.pop("elapsed", None)
    out.pop("generated", None)
    return out


def test_an_unchanged_tree_carries_its_cross_file_findings(site: Site, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file answered 304 on the same day: the cross-file findings are the previous
    exploration's, copied, not decided again (that pass was most of a carried validate)."""
    target = f"{site.base}/index.xml"
    calls = crossfile_spy(monkeypatch)
    code, first, _ = run("validate", target, "--format", "json")
    assert code == 1 and len(calls) == 1
    code, second, err = run("validate", target, "--format", "json")
    assert code == 1, err
    assert len(calls) == 1  # not run again, and said
    assert "the cross-file findings are the previous exploration's too" in err
    assert report(second) == report(first)
    assert "cross-duplicate-url" in {i["rule"] for i in report(second)["issues"]}
    old, new = sorted((tmp_path / "xdg-cache").rglob("*.db"))
    o, n = Store(old, readonly=True), Store(new, readonly=True)
    try:  # the entries' issue counts take the copied findings in
        q = "SELECT loc, n_issues FROM entries ORDER BY loc, n_issues"
        assert n.conn.execute(q).fetchall() == o.conn.execute(q).fetchall()
        assert n.conn.execute("SELECT sum(n_issues) FROM entries").fetchone()[0] \
            == n.conn.execute("SELECT count(*) FROM issues WHERE entry_id IS NOT NULL").fetchone()[0]
    finally:
        o.close()
        n.close()


def test_a_changed_file_or_another_day_decides_the_cross_file_findings_again(
        site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = f"{site.base}/index.xml"
    calls = crossfile_spy(monkeypatch)
    run("validate", target, "--format", "json")
    site.put("/c.xml", urlset(site.base, ["c1", "b1"]), etag=False)  # b1 now in two files
    code, out, err = run("validate", target, "--format", "json")
    assert len(calls) == 2 and "cross-file findings are" not in err
    dups = {i["url"] for i in report(out)["issues"] if i["rule"] == "cross-duplicate-url"}
    assert f"{site.base}/b1" in dups
    # the same tree again, but the previous exploration's findings were decided another day
    for path in (tmp_path / "xdg-cache").rglob("*.db"):
        store = Store(path)
        try:
            marker = store.get_meta("crossfile_from")
            assert marker["day"] is not None
            store.set_meta("crossfile_from", {**marker, "day": marker["day"] - 1})
            store.commit()
        finally:
            store.close()
    code, again, _ = run("validate", target, "--format", "json")
    assert len(calls) == 3
    assert report(again)["issues"] == report(out)["issues"]


def _issue_rows(path: Path, files: tuple[str, ...]) -> list[tuple]:
    """The entries of ``files`` with their counts of issues, and their issues with the URL of
    the entry each is on; the cross-file ones aside (decided again over the new store, they
    may fall on the other copy of a URL listed twice)."""
    s = Store(path, readonly=True)
    of = f"(SELECT id FROM nodes WHERE url IN ({','.join('?' * len(files))}))"
    try:
        return [*s.conn.execute(
            "SELECT i.rule, i.line, i.message, e.loc FROM issues i JOIN entries e ON e.id = i.entry_id"
            f" WHERE e.node_id IN {of} AND i.rule NOT LIKE 'cross-%' ORDER BY 1, 2, 3, 4", files).fetchall(),
            *s.conn.execute(f"SELECT loc, n_issues - (SELECT count(*) FROM issues i WHERE i.entry_id = entries.id"
                            f" AND i.rule LIKE 'cross-%') FROM entries WHERE node_id IN {of} ORDER BY 1, 2",
                            files).fetchall()]
    finally:
        s.close()


@pytest.mark.parametrize("changed", [False, True])
def test_rows_copied_at_the_end_keep_their_issues_on_the_right_entries(
        site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: bool) -> None:
    """A headless run copies the carried rows once its exploration ended: every file answered
    304 (the previous exploration's tables copied whole), or one changed (the others copied
    file by file after its new rows, their ids moved, and their issues with them)."""
    from sitemap_tui.engine.store import carry

    whole: list[bool] = []
    real = carry.PreviousExploration._whole
    monkeypatch.setattr(carry.PreviousExploration, "_whole", lambda *a: whole.append(real(*a)) or whole[-1])
    target = f"{site.base}/index.xml"
    run("validate", target)
    [old] = list((tmp_path / "xdg-cache").rglob("*.db"))
    if changed:
        site.put("/b.xml", urlset(site.base, ["b1", "a1", "b2"]))
    code, _, err = run("validate", target)
    assert code == 1, err
    assert whole == [not changed]
    [new] = [p for p in (tmp_path / "xdg-cache").rglob("*.db") if p != old]
    carried = (f"{site.base}/a.xml", f"{site.base}/c.xml")
    rows = _issue_rows(new, carried)
    assert rows == _issue_rows(old, carried)
    assert ("priority-invalid", 2, "priority '7' is not a number from 0.0 to 1.0", f"{site.base}/a3") in rows


def test_carried_txt_lines_written_as_utf8_bytes_are_the_first_runs(site: Site, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A clean carried file's txt lines go from SQLite to the output file as UTF-8 bytes
    (never decoded and encoded again), after and before text written by other files; the file
    holds what the first run wrote, non-ASCII URLs included."""
    from sitemap_tui import output

    through: list[int] = []
    real = output.Stream.write_utf8
    monkeypatch.setattr(output.Stream, "write_utf8", lambda self, data: through.append(len(data)) or real(self, data))
    site.put("/c.xml", urlset(site.base, ["d1", "caf\u00e9", "stra\u00dfe", "\u0645\u062b\u0627\u0644", "d\u00a0x"]),
             etag=False)
    target = f"{site.base}/index.xml"
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    code, _, _ = run("urls", target, "--output", str(first))
    assert code == 0 and not through
    site.put("/b.xml", urlset(site.base, ["b1", "a1"]))  # a new ETag: its lines come as text
    code, _, err = run("urls", target, "--output", str(second))
    assert code == 0 and "unchanged" in err and through
    old, new = first.read_bytes().decode("utf-8").splitlines(), second.read_bytes().decode("utf-8").splitlines()
    assert f"{site.base}/caf\u00e9" in new and site.bodies["/b.xml"] == 2
    assert sorted(new) == sorted(old)
    assert [x for x in new if "/d" in x or "caf" in x] == [x for x in old if "/d" in x or "caf" in x]


def test_a_carried_caps_summary_still_counts_what_it_did_not_list(
        site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cross-file rules' findings carried from an unchanged run keep each one's weight: the
    cap's summary issue counts for the findings it did not list on the second run as on the
    first (a rule's count, in the report and the summary)."""
    import functools

    from sitemap_tui.validate import crossfile

    ran: list[int] = []
    real = crossfile.run_crossfile

    def capped(*args: object, **kwargs: object) -> object:
        ran.append(1)
        return real(*args, **{**kwargs, "cap": 1})  # type: ignore[arg-type]

    monkeypatch.setattr(crossfile, "run_crossfile", functools.update_wrapper(capped, real))
    site.put("/b.xml", urlset(site.base, ["a1", "a2", "c1"]))  # 3 URLs also listed elsewhere
    target = f"{site.base}/index.xml"
    reports = []
    for _ in range(2):
        code, out, err = run("validate", target, "--format", "json", "--fail-on", "never")
        assert code == 0, err
        reports.append(json.loads(out))
    assert len(ran) == 1 and sent(site) == 4  # the second run carried the findings over
    for report in reports:
        dups = [i for i in report["issues"] if i["rule"] == "cross-duplicate-url"]
        assert len(dups) == 2
        assert any("2 more cross-duplicate-url issues not listed" in i["message"] for i in dups)
    assert reports[0]["summary"] == reports[1]["summary"]
    listed = sum(1 for i in reports[0]["issues"] if i["severity"] == "info")
    assert reports[0]["summary"]["info"] == listed + 1  # 1 listed + the 2 it stands for


def test_diff_no_cache_fetches_every_file_in_full(site: Site) -> None:
    """``diff SITE --no-cache`` sends no validators, as every other command's --no-cache: the
    way around a server whose validators lie (found from outside: diff built its options by
    hand without it, got 304s, and its own note said "--no-cache fetches every file in full")."""
    target = f"{site.base}/index.xml"
    code, _, err = run("validate", target)
    assert code in (0, 1), err
    before, asked = sent(site), len(site.asked)
    code, out, err = run("diff", target, "--no-cache")
    assert code == 0, err
    assert sent(site) == before + 4 and not any(inm or ims for _, inm, ims in site.asked[asked:])
    assert "carried over" not in err
    code, out, err = run("diff", target)  # near miss: without it, the files are asked for conditionally
    assert code == 0 and sent(site) == before + 4, err


def test_a_relative_index_child_stays_unfetched_when_the_index_is_carried(site: Site) -> None:
    """Found from outside: the index answering 304 on the second run was carried over with its
    children's resolved URLs, and the relative one was fetched after all (8 more URLs, 8 more
    findings). The same on every run: listed, not fetched, said."""
    site.put("/index.xml", f'<?xml version="1.0"?>\n<sitemapindex {NS}><sitemap><loc>{site.base}/a.xml</loc>'
             "</sitemap><sitemap><loc>b.xml</loc></sitemap></sitemapindex>\n")
    target = f"{site.base}/index.xml"
    outs = []
    for _ in range(2):
        code, out, err = run("urls", target)
        assert code == 0, err
        assert "1 listed file not fetched: a relative URL in an index" in err, err
        outs.append(out)
    assert site.bodies["/b.xml"] == 0 and not [p for p, _, _ in site.asked if p == "/b.xml"]
    assert outs[0] == outs[1]
    assert site.bodies["/index.xml"] == 1  # (the second run's index was a 304: carried)


def test_a_file_whose_findings_move_with_the_day_is_always_fetched_in_full(site: Site) -> None:
    """Found from outside: a file that answered 304 kept its lastmod-future of the day before
    (and never got news-article-too-old), against the promise that a carried file's findings
    are this run's. A file holding news, videos or a lastmod that was in the future is asked
    for without validators; the others of the tree still answer 304."""
    news = 'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"'
    site.put("/b.xml", f'<?xml version="1.0"?>\n<urlset {NS} {news}><url><loc>{site.base}/n1</loc><news:news>'
             "<news:publication><news:name>N</news:name><news:language>en</news:language></news:publication>"
             "<news:publication_date>2024-01-01</news:publication_date><news:title>t</news:title>"
             "</news:news></url></urlset>\n")
    site.put("/c.xml", f'<?xml version="1.0"?>\n<urlset {NS}><url><loc>{site.base}/c1</loc>'
             "<lastmod>2999-01-01</lastmod></url></urlset>\n", etag=False)
    target = f"{site.base}/index.xml"
    code, _, err = run("validate", target, "--format", "json")
    assert code == 1, err
    before = dict(site.bodies)
    code, _, err = run("validate", target, "--format", "json")
    assert code == 1, err
    again = {p: site.bodies[p] - before.get(p, 0) for p in SITEMAPS}
    assert again == {"/index.xml": 0, "/a.xml": 0, "/b.xml": 1, "/c.xml": 1}, again
    assert {p for p in conditional(site)} == {"/index.xml", "/a.xml"}  # no validators for b and c
    assert "2 files unchanged since the previous exploration" in err, err


def test_an_index_listing_a_lastmod_after_its_runs_day_is_fetched_in_full(site: Site) -> None:
    """Found by a review: an index whose <sitemap> lastmod was in the future answered 304 and
    kept the day's lastmod-future for ever (its children's own dates were looked at, not its
    list's). Its files are still asked conditionally; the near miss, an index whose lastmods
    are all before the run (the site fixture's, 2020), is carried (the tests above)."""
    site.put("/index.xml", f'<?xml version="1.0"?>\n<sitemapindex {NS}>'
             f"<sitemap><loc>{site.base}/a.xml</loc><lastmod>2999-01-01</lastmod></sitemap>"
             f"<sitemap><loc>{site.base}/b.xml</loc><lastmod>2020-01-01</lastmod></sitemap></sitemapindex>\n")
    target = f"{site.base}/index.xml"
    run("validate", target, "--format", "json")
    before = dict(site.bodies)
    run("validate", target, "--format", "json")
    again = {p: site.bodies[p] - before.get(p, 0) for p in ("/index.xml", "/a.xml", "/b.xml")}
    assert again == {"/index.xml": 1, "/a.xml": 0, "/b.xml": 0}, again


def test_a_file_an_earlier_version_kept_without_its_counts_is_fetched_in_full_once(site: Site, tmp_path: Path) -> None:
    """Found by a review: after an upgrade, the earlier version's aggregates (no count of the
    entries without a URL, nor of what was read otherwise) were carried on from every 304, so
    the new lines never came while the files stayed unchanged. Such a file is fetched in full
    once; the next run carries it, counts and all."""
    import sqlite3

    site.put("/c.xml", f'<?xml version="1.0"?>\n<urlset {NS}><url><loc>{site.base}/c1</loc></url>'
             "<url><lastmod>2024-01-01</lastmod></url></urlset>\n", etag=False)
    target = f"{site.base}/index.xml"
    code, _, err = run("urls", target)
    assert "1 entry not listed: no URL in it" in err, err
    for db in (tmp_path / "xdg-cache").rglob("*.db"):  # as the earlier version wrote it
        with contextlib.closing(sqlite3.connect(db)) as conn:
            conn.execute("UPDATE nodes SET agg = json_remove(agg, '$.no_url', '$.relative', '$.noted')"
                         " WHERE agg IS NOT NULL")
            conn.commit()
    before = dict(site.bodies)
    code, _, err = run("urls", target)
    assert code == 0 and "1 entry not listed: no URL in it" in err, err
    assert all(site.bodies[p] - before.get(p, 0) == 1 for p in SITEMAPS), site.bodies
    before = dict(site.bodies)
    code, _, err = run("urls", target)
    assert "4 files unchanged" in err and "1 entry not listed: no URL in it" in err, err
    assert all(site.bodies[p] == before.get(p, 0) for p in SITEMAPS)

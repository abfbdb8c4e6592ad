"""Which site a local build stands for, as a CI job or a pre-commit hook hands it over: a folder
whose robots.txt also names another site's sitemap, a file in a subfolder of the build, a file
read as no site (said), and empty values of validate's options (refused)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_verdict import index, urlset

from sitemap_tui import cli


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = cli.main([*args, "--workers", "0", "--no-history"])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def rules(out: str) -> set[tuple[str, Any]]:
    return {(i["rule"], i["url"]) for i in json.loads(out)["issues"]}


def test_a_robots_txt_naming_another_sites_sitemap_too_keeps_the_folder_its_site(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Found from outside: one more Sitemap: line for a news subdomain made the build folder
    stand for no site: its index's missing child went unreported, exit 1 became 0, and stderr
    said "listed by a local file whose folder stands for no site". The site is the one whose
    lines name the folder's files; the other is said. Near miss: two sites that both name
    files here stand for none, said with the way out (--map)."""
    public = tmp_path / "public"
    public.mkdir()
    (public / "robots.txt").write_text("Sitemap: https://example.com/sitemap_index.xml\n"
                                       "Sitemap: https://news.invalid/news.xml\n")
    (public / "sitemap_index.xml").write_text(index("https://example.com/pages.xml", "https://example.com/posts.xml"))
    (public / "pages.xml").write_text(urlset("https://example.com/a", "https://staging.example.net/b"))
    code, out, err = run(capsys, "validate", str(public), "--format", "json")
    found = rules(out)
    assert ("index-child-unfetchable", "https://example.com/posts.xml") in found, err
    assert ("location-different-host", "https://staging.example.net/b") in found and code == 1
    assert "names 2 sites: the folder is read as https://example.com/ (whose Sitemap: lines name its files); " \
           "https://news.invalid/ is read from the network as named" in err
    # near miss: both sites name files of the folder
    (public / "news.xml").write_text(urlset("https://news.invalid/n"))
    code, out, err = run(capsys, "validate", str(public), "--format", "json")
    assert ("index-child-unfetchable", "https://example.com/posts.xml") not in rules(out)
    assert "names 2 sites and the Sitemap: lines of 2 of them (https://example.com/, https://news.invalid/) " \
           "name its files: the folder is read as no site" in err and "--map SITE=FOLDER" in err


def test_a_file_in_a_subfolder_of_the_build_is_its_sites(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Found from outside: a pre-commit hook's `validate public/de/sitemap.xml` passed (exit 0)
    what `validate public` failed on: the file was judged as a file: URL, its host and location
    rules silent, only the robots rules said not to have run. The nearest robots.txt above it,
    no higher than the working directory, names its site. Near miss: run from inside the
    subfolder, the file stands for no site, and that is said."""
    public = tmp_path / "public"
    (public / "de").mkdir(parents=True)
    (public / "robots.txt").write_text("Sitemap: https://example.com/sitemap.xml\n")
    (public / "sitemap.xml").write_text(index("https://example.com/de/sitemap.xml"))
    (public / "de" / "sitemap.xml").write_text(urlset("https://example.com/de/", "https://staging.example.net/de/x"))
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "validate", "public/de/sitemap.xml", "--format", "json")
    assert ("location-different-host", "https://staging.example.net/de/x") in rules(out) and code == 1
    assert "public/de/sitemap.xml is read as https://example.com/de/sitemap.xml (the site the robots.txt in " \
           "public names" in err
    assert "did not run" not in err
    monkeypatch.chdir(public / "de")
    code, out, err = run(capsys, "validate", "sitemap.xml", "--format", "json")
    assert not rules(out) & {("location-different-host", "https://staging.example.net/de/x")} and code == 0
    assert "host and location rules did not run: 1 local file read as no site" in err
    assert "location-different-host" in err.split("host and location rules did not run")[1]


@pytest.mark.parametrize("option", ["--baseline=", "--select=", "--ignore= , ", "--select=,"])
def test_an_empty_value_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path, option: str) -> None:
    """Found from outside: `--baseline ''` (an unset CI variable) ran without a baseline and
    `--select ''` ran every rule, unsaid, where `-o ''` is refused."""
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(urlset("https://example.com/a"))
    code, out, err = run(capsys, "validate", str(sitemap), option)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert option.split("=")[0] in err and ("empty file name" in err or "names no rule" in err)


@pytest.mark.parametrize(("options", "says"), [
    (["--select", "lastmod", "--ignore", "lastmod"], "--select lastmod with --ignore lastmod leaves no rule to run"),
    (["--select", "lastmod-missing", "--min-severity", "error"],
     "--select lastmod-missing with --min-severity error leaves no rule to run"),
])
def test_a_selection_that_leaves_no_rule_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                     options: list[str], says: str) -> None:
    """Found from outside: --select and --ignore of one rule ran no rule at all, reported 0
    errors and passed a CI job on a sitemap with 3. Near miss: a selection that keeps one runs."""
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(urlset("https://example.com/a"))
    code, out, err = run(capsys, "validate", str(sitemap), *options)
    assert code == 2 and out == "" and err.splitlines() == [f"sitemap-tui: error: {says} (see `sitemap-tui rules`)"]
    code, _, err = run(capsys, "validate", str(sitemap), "--select", "lastmod", "--ignore", "lastmod-missing")
    assert code == 0, err


def test_a_robots_txt_above_that_names_no_file_there_is_no_build(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Found from outside: a source repo's robots.txt at the working directory (its sitemap is
    built elsewhere) took every file below it for the site's: test fixtures failed on
    location-different-host. Only a robots.txt whose Sitemap: lines name a file of its folder
    is a build's root. Near miss: with that file there, it is."""
    (tmp_path / "robots.txt").write_text("Sitemap: https://mysite.example/sitemap.xml\n")
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "urls.xml").write_text(urlset("https://other.example/a"))
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "validate", "fixtures/urls.xml", "--format", "json")
    assert code == 0 and "is read as" not in err and not rules(out) & {("location-different-host", "https://other.example/a")}
    (tmp_path / "sitemap.xml").write_text(index("https://mysite.example/fixtures/urls.xml"))
    code, out, err = run(capsys, "validate", "fixtures/urls.xml", "--format", "json")
    assert "is read as https://mysite.example/fixtures/urls.xml" in err
    assert ("location-different-host", "https://other.example/a") in rules(out) and code == 1


def test_a_build_folder_that_is_a_symlink_is_still_below_the_working_directory(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found from outside: `public` linked to a build elsewhere: `validate public/` was the site,
    `validate public/de/sitemap.xml` was no site (its folder resolved outside the working
    directory), exit 0 on what the folder's run failed."""
    build = tmp_path / "elsewhere" / "public"
    (build / "de").mkdir(parents=True)
    (build / "robots.txt").write_text("Sitemap: https://example.com/sitemap.xml\n")
    (build / "sitemap.xml").write_text(index("https://example.com/de/sitemap.xml"))
    (build / "de" / "sitemap.xml").write_text(urlset("https://staging.example.net/de/x"))
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "public").symlink_to(build)
    monkeypatch.chdir(repo)
    code, out, err = run(capsys, "validate", "public/de/sitemap.xml", "--format", "json")
    assert ("location-different-host", "https://staging.example.net/de/x") in rules(out) and code == 1, err


def test_urls_and_stats_say_nothing_of_rules(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Found from outside: `urls s.xml` printed "host and location rules did not run", a
    command that judges nothing. Near miss: validate says it."""
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(urlset("https://example.com/a"))
    for command in ("urls", "stats"):
        code, _, err = run(capsys, command, str(sitemap))
        assert code == 0 and "did not run" not in err, (command, err)
    code, _, err = run(capsys, "validate", str(sitemap))
    assert "host and location rules did not run" in err


@pytest.mark.parametrize("line", ['select = ""', "select = []", 'select = [" "]', 'ignore = ","'])
def test_a_config_key_that_names_no_rule_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch, line: str) -> None:
    """Found from outside: `select = ""` in .sitemap-tui.toml ran every rule, unsaid, where
    `--select ''` is refused. Near miss: a key that names a rule is taken."""
    (tmp_path / "s.xml").write_text(urlset("https://example.com/a"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".sitemap-tui.toml").write_text(line + "\n")
    code, out, err = run(capsys, "validate", "s.xml")
    assert code == 2 and out == "" and "names no rule" in err and err.count("\n") == 1, err
    (tmp_path / ".sitemap-tui.toml").write_text('select = ["lastmod-"]\n')
    code, out, err = run(capsys, "validate", "s.xml")
    assert code == 0, err


def test_a_robots_txt_naming_a_sitemap_in_a_subfolder_of_its_build(capsys: pytest.CaptureFixture[str],
                                                                   tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression found from outside: robots.txt naming /sitemaps/index.xml (Gatsby's layout)
    made the build no site once a robots.txt above had to name a file of its folder (only its
    top-level files counted); from the repo root and from inside the build alike."""
    public = tmp_path / "public"
    (public / "sitemaps").mkdir(parents=True)
    (public / "robots.txt").write_text("Sitemap: https://example.com/sitemaps/index.xml\n")
    (public / "sitemaps" / "index.xml").write_text(urlset("https://example.com/a.html"))
    for cwd, target in ((tmp_path, "public/sitemaps/index.xml"), (public, "sitemaps/index.xml")):
        monkeypatch.chdir(cwd)
        code, out, err = run(capsys, "validate", target, "--format", "json")
        assert ("location-outside-path", "https://example.com/a.html") in rules(out) and code == 1, (cwd, err)


def test_the_did_not_run_notes_name_only_the_rules_the_run_keeps(capsys: pytest.CaptureFixture[str],
                                                                  tmp_path: Path) -> None:
    """Found from outside: `--select lastmod-` on a local file still said the robots and the
    host and location rules did not run, rules it would not have run anyway. Near miss: a
    selection that keeps some names those alone."""
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(urlset("https://example.com/a"))
    code, _, err = run(capsys, "validate", str(sitemap), "--select", "lastmod-")
    assert "did not run" not in err, err
    code, _, err = run(capsys, "validate", str(sitemap), "--select", "location-different-host,robots-url-disallowed")
    assert "host and location rules did not run" in err and "(location-different-host);" in err
    assert "robots-based rules did not run" in err and "(robots-url-disallowed;" in err


def test_a_mapped_build_folder_reads_its_sitemaps_nothing_lists(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Found from outside: the folder read as its robots.txt's site read a sitemap nothing
    lists, but the same folder under `--map` (or the project config's `map`, which a CI job
    sets once) dropped it, unsaid: its invalid priority passed (exit 0). Every way of mapping
    the folder now reads it and says so; near miss: a file TARGET reads only itself, as
    without a map."""
    from test_verdict import build_output

    public = build_output(tmp_path / "public")
    (public / "sitemap-extra.xml").write_text(urlset("https://example.com/extra").replace(
        "</loc>", "</loc><priority>7</priority>", 1))
    monkeypatch.chdir(tmp_path)
    said = f"3 sitemap files in {public.resolve()} listed by neither its robots.txt nor an index there, read as well"
    ways = {"implied": ["public"], "--map": ["public", "--map", "https://example.com/=public"]}
    for way, args in ways.items():
        code, out, err = run(capsys, "validate", *args, "--format", "json")
        assert ("priority-invalid", "https://example.com/extra") in rules(out) and code == 1, (way, err)
        assert said in err, (way, err)
    (tmp_path / ".sitemap-tui.toml").write_text('map = ["https://example.com/=public"]\n')
    code, out, err = run(capsys, "validate", "public", "--format", "json")
    assert ("priority-invalid", "https://example.com/extra") in rules(out) and code == 1, err
    code, out, err = run(capsys, "validate", "public", "public/pages.xml")  # each TARGET its own
    assert [line for line in out.splitlines() if " files, " in line][0].startswith("8 files, 7 URLs"), out
    code, out, err = run(capsys, "urls", "public")  # the config's map reaches urls too
    assert "https://example.com/extra" in out.splitlines() and said in err, err
    (tmp_path / ".sitemap-tui.toml").unlink()
    code, out, err = run(capsys, "diff", "public", "public", "--map", "https://example.com/=public",
                         "--format", "json")
    doc = json.loads(out)
    assert doc["old"]["files"] == doc["new"]["files"] == 8, (doc["old"], err)
    # near miss: a file of the mapped folder is read alone
    code, out, err = run(capsys, "validate", "public/pages.xml", "--map", "https://example.com/=public",
                         "--format", "json")
    assert ("priority-invalid", "https://example.com/extra") not in rules(out) and "read as well" not in err


def test_a_mapped_folders_unlisted_files_are_its_own_sitemaps_only(capsys: pytest.CaptureFixture[str],
                                                                   tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by a review of the change above: a macOS tarball's `._sitemap-1.xml` (binary) was
    read as an unlisted sitemap and failed the run; a file the index lists by http:// under an
    https:// map, or robots.txt by a relative line, was read a second time as unlisted; and two
    folder TARGETs under one --map said their files were read and did not read them."""
    monkeypatch.chdir(tmp_path)
    for name in ("public", "staging"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "robots.txt").write_text("Sitemap: /sitemap_index.xml\n")
        (folder / "sitemap_index.xml").write_text(index("http://example.com/sitemap-1.xml"))
        (folder / "sitemap-1.xml").write_text(urlset("https://example.com/a"))
        (folder / "._sitemap-1.xml").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        ")
        (folder / "orphan-sitemap.xml").write_text(urlset(f"https://example.com/{name}-orphan"))
    said = "listed by neither its robots.txt nor an index there, read as well: orphan-sitemap.xml, sitemap-1.xml\n"
    code, out, err = run(capsys, "validate", "public", "--map", "https://example.com/=public", "--format", "json")
    doc = json.loads(out)
    assert said in err and "._sitemap-1.xml" not in out + err.split("read as well")[1], err
    # listed by http:// only, a URL the map does not cover: the build's file is read as unlisted
    # (found by a review of the first fix: its findings had gone), and the http:// URL is
    # fetched from the network as the deployed site's would be
    read = {i["sitemap"] for i in doc["issues"]}
    assert "http://example.com/sitemap-1.xml" in read, read
    assert doc["summary"]["urls"] == 2, doc["summary"]
    code, out, err = run(capsys, "validate", "public", "staging", "--map", "https://example.com/=public",
                         "--map", "https://staging.example.com/=staging")
    assert err.count(said) == 2, err
    assert [line for line in out.splitlines() if " files, " in line][0].startswith("5 files, 2 URLs"), out
    assert "staging/orphan-sitemap.xml" in out, out  # (each TARGET its own folder's)
    code, out, err = run(capsys, "urls", "public", "--map", "https://example.com/=public")
    assert "https://example.com/public-orphan" in out.splitlines()


def test_a_build_whose_index_lists_files_of_its_subfolders_is_its_sites(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Found from outside: a Hugo multilingual build (no robots.txt; sitemap.xml an index of
    /en/sitemap.xml and /fr/sitemap.xml) stood for no site: both children went unread, 0 URLs,
    exit 0, and stderr said to give the folder as the target, which it was. Its index names
    files of its subfolders: it is the site's. Its own sitemap.xml, which the exploration
    probes, is not said to be "listed by nothing". Near miss: an index whose children are in
    none of its folders stands for no site, and that is said."""
    hugo = tmp_path / "hugo"
    for lang in ("en", "fr"):
        (hugo / lang).mkdir(parents=True)
        (hugo / lang / "sitemap.xml").write_text(urlset(f"https://example.org/{lang}/",
                                                        f"https://staging.example.net/{lang}/x"))
    (hugo / "sitemap.xml").write_text(index("https://example.org/en/sitemap.xml", "https://example.org/fr/sitemap.xml"))
    code, out, err = run(capsys, "validate", str(hugo), "--format", "json")
    assert {("location-different-host", f"https://staging.example.net/{lang}/x") for lang in ("en", "fr")} \
        <= rules(out) and code == 1, err
    assert "is read as https://example.org/ (the site an index in" in err
    assert "stands for no site" not in err and "read as well" not in err, err
    code, out, err = run(capsys, "validate", str(hugo), "--map", f"https://example.org/={hugo}", "--format", "json")
    assert code == 1 and "read as well" not in err, err  # (the same with the map given: probed, found)
    code, out, err = run(capsys, "urls", str(hugo))
    assert sorted(out.split()) == ["https://example.org/en/", "https://example.org/fr/",  # (files in any order)
                                   "https://staging.example.net/en/x", "https://staging.example.net/fr/x"] and code == 0, err
    # near miss: the children it names are not here
    (hugo / "sitemap.xml").write_text(index("https://example.org/de/sitemap.xml"))
    code, out, err = run(capsys, "urls", str(hugo))
    assert out == "" and "is read as" not in err and "whose folder stands for no site" in err, err


def test_audit_and_access_read_a_build_folder_as_the_site_its_robots_txt_names(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Found from outside: `urls`, `stats` and `validate` read ./public as the site its
    robots.txt names, `access` and `audit` did not: access judged the index's file: children
    unread ("give the folder as the target", which it was), and audit fetched robots.txt from
    the network, offline every page "non-indexable: blocked by robots.txt". Both now read the
    build as the other commands do: its robots.txt, its sitemaps and (audit) its pages."""
    public = tmp_path / "public"
    (public / "blog").mkdir(parents=True)
    (public / "robots.txt").write_text("User-agent: GPTBot\nDisallow: /\n\nSitemap: https://example.com/sitemap.xml\n")
    (public / "sitemap.xml").write_text(index("https://example.com/pages.xml", "https://example.com/blog/posts.xml"))
    (public / "pages.xml").write_text(urlset("https://example.com/", "https://example.com/about.html"))
    (public / "blog" / "posts.xml").write_text(urlset("https://example.com/blog/p.html"))
    page = "<html><head><title>t</title>{}</head><body>t</body></html>"
    (public / "index.html").write_text(page.format(""))
    (public / "about.html").write_text(page.format(""))
    (public / "blog" / "p.html").write_text(page.format('<meta name="robots" content="noindex">'))
    code, out, err = run(capsys, "access", str(public))
    assert code == 0 and "is read as https://example.com/" in err and "not fetched" not in err, err
    table = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.startswith(("GPTBot ", "Googlebot "))}
    assert out.startswith("crawler access of 3 listed URLs\n") and table == {"GPTBot": ["0", "3"], "Googlebot": ["3", "0"]}, out
    assert "https://example.com/blog/posts.xml  1 URL: GPTBot 1" in out, out
    code, out, err = run(capsys, "audit", str(public), "--format", "jsonl", "--rate", "0")
    verdicts = {r["loc"]: (r["indexable"], r["reason"]) for r in map(json.loads, out.splitlines())}
    assert verdicts == {"https://example.com/": (True, "indexable"), "https://example.com/about.html": (True, "indexable"),
                        "https://example.com/blog/p.html": (False, "non-indexable: noindex (noindex)")}, (verdicts, err)
    assert code == 0 and "could not be read" not in err, err


def test_what_a_build_index_lists_elsewhere_or_a_broken_probed_file_keeps_the_folder_its_sites(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by a review of the subfolder change: (1) a child on another host at a deeper path
    (a shop's /sitemaps/products.xml) made a second site, so the build stood for none and
    passed; (2) an HTML page at sitemap.xml, a probed path, was taken as found by the probe
    and never read (its file-is-html gone, exit 0); (3) `access saved.db` in a build folder
    read the saved exploration as a sitemap of the site."""
    public = tmp_path / "public"
    public.mkdir()
    (public / "sitemap_index.xml").write_text(index("https://example.com/pages.xml", "https://example.com/posts.xml",
                                                    "https://shop.example.com/sitemaps/products.xml"))
    (public / "pages.xml").write_text(urlset("https://example.com/a"))
    (public / "sitemap.xml").write_text("<!doctype html><html><body>Not found</body></html>")
    code, out, err = run(capsys, "validate", str(public), "--format", "json", "--no-robots-checks")
    found = rules(out)
    assert "is read as https://example.com/ (the site an index in" in err, err
    assert ("index-child-unfetchable", "https://example.com/posts.xml") in found and code == 1, found
    assert "file-is-html" in {rule for rule, _ in found}, found
    db = public / "saved.db"
    assert run(capsys, "urls", str(public), "--db", str(db))[0] in (0, 1)
    (public / "robots.txt").write_text("Sitemap: https://example.com/sitemap_index.xml\n")
    monkeypatch.chdir(public)
    code, out, err = run(capsys, "access", "saved.db")
    assert code == 0 and "is read as" not in err and out.startswith("crawler access of "), (out, err)


@pytest.mark.parametrize(("args", "error"), [
    (("--select", "lastmod-nope"), "unknown rule id or prefix: 'lastmod-nope' (see `sitemap-tui rules`)"),
    (("--ignore", "lastmod-nope"), "unknown rule id or prefix: 'lastmod-nope' (see `sitemap-tui rules`)"),
    (("--baseline", "gone.json"), "--baseline gone.json: no such file (write one with --write-baseline)"),
])
def test_a_usage_error_is_the_one_line_before_any_note_on_the_target(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        args: tuple[str, str], error: str) -> None:
    """A usage error is one line and exit 2: a --select typo or a missing --baseline on a build
    folder's file came after the note on the site the file is read as (two lines). The notes
    wait for the run to start. Near miss: a run that starts says the note."""
    public = tmp_path / "public"
    public.mkdir()
    (public / "robots.txt").write_text("Sitemap: https://example.com/sitemap.xml\n")
    (public / "sitemap.xml").write_text(urlset("https://example.com/"))
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "validate", "public/sitemap.xml", *args)
    assert code == 2 and not out
    assert err.splitlines() == [f"sitemap-tui: error: {error}"]
    code, out, err = run(capsys, "validate", "public/sitemap.xml", "--select", "lastmod-*")
    assert code == 0 and err.startswith("sitemap-tui: public/sitemap.xml is read as https://example.com/sitemap.xml")
    code, out, err = run(capsys, "urls", "public/sitemap.xml")
    assert code == 0 and "is read as https://example.com/sitemap.xml" in err and out == "https://example.com/\n"


def test_a_local_robots_txt_judges_the_site_most_of_its_sitemap_lines_name(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found from outside: a local robots.txt naming sitemaps on two sites said its own
    ``Disallow: /`` kept the second site's sitemap from the crawlers; that site's own
    robots.txt decides. It is read as the robots.txt of the site most of its lines name (said);
    near miss, a tie: the site is unknown and it judges none (said too)."""
    folder = tmp_path / "one"
    folder.mkdir()
    lines = ["https://www.a.example/s1.xml", "https://www.a.example/s2.xml", "https://other.example/s.xml"]
    (folder / "robots.txt").write_text("User-agent: *\nDisallow: /\n\n" + "".join(f"Sitemap: {u}\n" for u in lines))
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "validate", "one/robots.txt", "--no-recursive", "--format", "json")
    assert rules(out) == {("robots-sitemap-file-disallowed", u) for u in lines[:2]}, out
    assert ("is read as www.a.example's robots.txt (2 of its 3 Sitemap: lines name files there); it"
            " judges no URL of the 1 other site it names") in err
    (folder / "robots.txt").write_text("User-agent: *\nDisallow: /\n\n" + "".join(f"Sitemap: {u}\n" for u in lines[1:]))
    code, out, err = run(capsys, "validate", "one/robots.txt", "--no-recursive", "--format", "json")
    assert not rules(out) and "names sitemaps on 2 sites, none more often than the others" in err, (out, err)
    # http:// and https:// of one host are one site (a migration): it judges both
    both = ["http://www.a.example/s1.xml", "https://www.a.example/s2.xml"]
    (folder / "robots.txt").write_text("User-agent: *\nDisallow: /\n\n" + "".join(f"Sitemap: {u}\n" for u in both))
    code, out, err = run(capsys, "validate", "one/robots.txt", "--no-recursive", "--format", "json")
    assert rules(out) == {("robots-sitemap-file-disallowed", u) for u in both}, (out, err)


@pytest.mark.parametrize("args", [("--select", "lastmod-nope"), ("--baseline", "gone.json")])
def test_several_targets_say_a_usage_error_they_share_once(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        args: tuple[str, str]) -> None:
    """Found from outside: with two build folders a --select typo (or a missing --baseline) was
    said once per TARGET, the notes on how they are read after the errors."""
    for name in ("b1", "b2"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "robots.txt").write_text(f"Sitemap: https://{name}.example/sitemap.xml\n")
        (folder / "sitemap.xml").write_text(urlset(f"https://{name}.example/"))
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "validate", "b1", "b2", *args)
    assert code == 2 and not out
    assert len(err.splitlines()) == 1 and err.startswith("sitemap-tui: error: "), err


def test_diff_of_a_build_folder_names_the_folder_as_new(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by a review: `diff public` labelled OLD (the site's saved run) with the folder's name
    and NEW (the folder, explored now) with the site's URL, in the text and in JSON's source."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    public = tmp_path / "public"
    public.mkdir()
    (public / "robots.txt").write_text("Sitemap: https://example.com/sitemap.xml\n")
    (public / "sitemap.xml").write_text(urlset("https://example.com/a", "https://example.com/b"))

    def diff(*args: str) -> tuple[int, str]:
        capsys.readouterr()
        code = cli.main(["diff", "public", "--workers", "0", *args])
        return code, capsys.readouterr().out

    assert cli.main(["validate", "public", "--workers", "0"]) == 0
    (public / "sitemap.xml").write_text(urlset("https://example.com/a"))
    code, out = diff("--format", "json")
    report = json.loads(out)
    assert code == 0 and report["summary"]["urls_removed"] == 1, out
    assert (report["old"]["source"], report["new"]["source"]) == ("https://example.com/", "public")
    code, out = diff()
    lines = out.splitlines()
    assert lines[0].startswith("--- OLD https://example.com/ (saved exploration of https://example.com/)"), out
    assert lines[1].startswith("+++ NEW public (explored now)"), out

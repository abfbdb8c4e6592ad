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

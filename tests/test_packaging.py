"""What the package gives its users beyond the commands: shell completion scripts, and the store's
schema documented as a public interface (docs/store.md). The wheel itself is built and smoke-tested
in .ci/run (.ci/smoke), not here."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sitemap_tui.cli.parser import COMMANDS
from sitemap_tui.engine.store.schema import SCHEMA

ROOT = Path(__file__).resolve().parent.parent
bash_only = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitemap_tui", *args], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    proc = run("completion", "bash")
    assert proc.returncode == 0, proc.stderr
    path = tmp_path_factory.mktemp("completion") / "sitemap-tui.bash"
    path.write_text(proc.stdout)
    return path


def complete(script: Path, words: list[str], cwd: Path | None = None) -> list[str]:
    """What bash offers for the last of ``words`` (the command line so far), through the function
    the script registers with ``complete``, as bash calls it on TAB."""
    line = " ".join(words)
    program = (
        f"source {shlex.quote(str(script))}\n"
        "fn=$(complete -p sitemap-tui | sed -E 's/.* -F ([^ ]+) .*/\\1/')\n"
        f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        f"COMP_LINE={shlex.quote(line)}; COMP_POINT={len(line)}\n"
        '"$fn" sitemap-tui "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"\n'
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    proc = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=30, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return [w.strip() for w in proc.stdout.splitlines() if w.strip()]


@bash_only
def test_the_bash_script_registers_sitemap_tui_and_names_every_command(bash_script: Path) -> None:
    proc = subprocess.run(["bash", "-c", f"source {shlex.quote(str(bash_script))} && complete -p sitemap-tui"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert re.fullmatch(r"complete .*-F \S+ sitemap-tui\n", proc.stdout), proc.stdout
    offered = complete(bash_script, ["sitemap-tui", ""])
    assert set(COMMANDS) | {"completion"} <= set(offered)


@bash_only
def test_bash_completes_a_command_word_and_its_options(bash_script: Path) -> None:
    assert complete(bash_script, ["sitemap-tui", "val"]) == ["validate"]
    assert "--fail-on" in complete(bash_script, ["sitemap-tui", "validate", "--fa"])
    assert complete(bash_script, ["sitemap-tui", "validate", "--fail-on", "w"]) == ["warning"]


@bash_only
@pytest.mark.parametrize("words", [
    ["sitemap-tui", "validate", "pub"],  # TARGET: a local file or folder
    ["sitemap-tui", "urls", "x.com", "--output", "pub"],
    ["sitemap-tui", "stats", "x.com", "--db", "pub"],
    ["sitemap-tui", "open", "pub"],
])
def test_file_arguments_complete_as_files(bash_script: Path, tmp_path: Path, words: list[str]) -> None:
    (tmp_path / "public").mkdir()
    (tmp_path / "public.db").write_text("")
    (tmp_path / "other.xml").write_text("")
    assert sorted(complete(bash_script, words, cwd=tmp_path)) == ["public", "public.db"]


def test_zsh_and_fish_scripts_are_printed() -> None:
    zsh = run("completion", "zsh")
    assert zsh.returncode == 0 and zsh.stdout.startswith("#compdef sitemap-tui"), zsh.stderr
    assert "validate" in zsh.stdout and "_files" in zsh.stdout  # file arguments complete as files
    fish = run("completion", "fish")
    assert fish.returncode == 0, fish.stderr
    assert "complete -c sitemap-tui" in fish.stdout and "__fish_complete_path" in fish.stdout


def test_an_unknown_shell_is_a_one_line_usage_error() -> None:
    proc = run("completion", "tcsh")
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith("sitemap-tui: error:") and "bash" in line and "Traceback" not in proc.stderr


# -- docs/store.md ----------------------------------------------------------------------------------
def schema_tables() -> dict[str, list[str]]:
    """Every table of the store with its columns, read from the DDL the store runs."""
    import sqlite3

    con = sqlite3.connect(":memory:")
    con.executescript(SCHEMA)
    tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
    return {t: [r[1] for r in con.execute(f"PRAGMA table_info({t})")] for t in tables}


def test_store_doc_names_every_table_and_column() -> None:
    doc = (ROOT / "docs" / "store.md").read_text()
    tables = schema_tables()
    assert len(tables) >= 5  # the DDL was read
    missing = [f"{t}.{c}" for t, cols in tables.items() for c in [None, *cols]
               if not _documented(doc, t, c)]
    assert missing == [], f"docs/store.md does not describe: {missing}"


def _documented(doc: str, table: str, column: str | None) -> bool:
    """A table has a heading of its own (### `name`); a column is a row of that table's list
    (| `column` |) in the section under that heading."""
    section = re.search(rf"^### `{re.escape(table)}`.*?(?=^### |^## |\Z)", doc, re.S | re.M)
    if section is None:
        return False
    return column is None or f"| `{column}` |" in section.group(0)


def test_store_versions_as_docs_store_md_states(tmp_path: Path) -> None:
    """An earlier store version (1: no hreflang key columns) is upgraded in place when opened to
    write; a later one is refused, its file unchanged."""
    import hashlib
    import sqlite3

    from sitemap_tui.engine.model import Entry, Node, NodeKind, NodeState
    from sitemap_tui.engine.store import Store, StoreError
    from sitemap_tui.engine.store.file import STORE_VERSION

    def store_of_version(path: Path, version: int, drop: tuple[tuple[str, str], ...] = ()) -> None:
        store = Store(path)
        store.add_node(Node(id=1, url="https://a.com/s.xml", kind=NodeKind.URLSET, state=NodeState.DONE))
        store.add_entries(1, [Entry(loc="https://a.com/p")])
        store.close()
        con = sqlite3.connect(path)
        con.execute("DROP INDEX IF EXISTS entries_nokey")
        for table, column in drop:
            con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        con.execute("UPDATE meta SET value=? WHERE key='schema'", (f'"{version}"',))
        con.commit()
        con.close()

    old = tmp_path / "v1.db"
    store_of_version(old, 1, (("entries", "key"), ("entries", "alt_n"), ("entries", "alt_h"),
                              ("alternates", "lang"), ("alternates", "tgt"), ("alternates", "media")))
    Store(old).close()
    con = sqlite3.connect(old)
    assert con.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (f'"{STORE_VERSION}"',)
    assert set(schema_tables()["entries"]) <= {r[1] for r in con.execute("PRAGMA table_info(entries)")}
    assert set(schema_tables()["alternates"]) <= {r[1] for r in con.execute("PRAGMA table_info(alternates)")}
    assert con.execute("SELECT loc FROM entries").fetchall() == [("https://a.com/p",)]
    con.close()

    new = tmp_path / "v3.db"
    store_of_version(new, STORE_VERSION + 1)
    before = hashlib.sha256(new.read_bytes()).hexdigest()
    for readonly in (False, True):
        with pytest.raises(StoreError, match=f"store version {STORE_VERSION + 1}; this version reads up to {STORE_VERSION}"):
            Store(new, readonly=readonly)
    assert hashlib.sha256(new.read_bytes()).hexdigest() == before

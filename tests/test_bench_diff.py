"""bench/bench_diff.py's two ways of writing its pair (the store's writer, and SQL for a 10 M
pair) write the same nodes and entries, so a timing on either pair is a timing on the other."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import bench_diff  # noqa: E402


@pytest.mark.parametrize("new", [False, True])
def test_the_sql_pair_is_the_writers_pair(tmp_path: Path, new: bool) -> None:
    bench_diff.build(tmp_path / "writer.db", 4000, new=new)
    bench_diff.build_sql(tmp_path / "sql.db", 4000, new=new)
    conn = sqlite3.connect(tmp_path / "writer.db")
    conn.execute("ATTACH DATABASE ? AS s", (str(tmp_path / "sql.db"),))
    for table in ("nodes", "entries"):
        rows = conn.execute(f"SELECT count(*) FROM main.{table}").fetchone()[0]
        assert rows == conn.execute(f"SELECT count(*) FROM s.{table}").fetchone()[0]
        assert conn.execute(f"SELECT * FROM main.{table} EXCEPT SELECT * FROM s.{table}").fetchall() == []
    # the pair differs as the benchmark says: 1 % of the URLs replaced, every 20th lastmod later
    assert conn.execute("SELECT count(*) FROM s.entries WHERE loc LIKE '%/new/%'").fetchone()[0] == (40 if new else 0)
    conn.close()

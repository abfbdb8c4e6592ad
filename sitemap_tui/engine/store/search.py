"""The trigram search index of the entries' URLs: its tables, and the lookups that use it."""

from __future__ import annotations

import re
import sqlite3

SEARCH_TABLE = "loc_search"
SEARCH_SQL = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {SEARCH_TABLE} USING fts5(loc, content='entries',"
    " content_rowid='id', tokenize='trigram case_sensitive 1', detail='none')",
    # GLOB stops at a NUL (a text sitemap can carry one): such rows are always candidates
    "CREATE TABLE IF NOT EXISTS search_nul(id INTEGER PRIMARY KEY)",
)
"""A trigram index of ``loc`` (external content: no second copy of the URLs). It answers a rare
substring over millions of rows in milliseconds where a table scan takes seconds. The engine
extends it in chunks while idle; ``search_upto`` (meta) is the last entry id it covers."""
SEARCH_UPTO = "search_upto"
# printable ASCII other than GLOB's metacharacters * ? [
_PLAIN_RUN = re.compile(r"[\x20-\x29\x2b-\x3e\x40-\x5a\x5c-\x7e]{3,}")


def search_glob(substring: str) -> str | None:
    """The FTS5 GLOB pattern that narrows a substring search: ``*RUN*`` for the substring's
    longest run of plain ASCII, or None when it has no such run of three characters (the index
    could not narrow it). Exactness comes from ``instr`` on each candidate row, so one run is
    enough; and the pattern stays this simple because SQLite 3.40's trigram GLOB crashed on a
    pattern mixing a bracket escape and 4-byte characters (found by the hypothesis test)."""
    runs = _PLAIN_RUN.findall(substring)
    if not runs:
        return None
    return "*" + max(runs, key=len) + "*"


def search_candidates(conn: sqlite3.Connection, pattern: str, upto: int, cap: int) -> int:
    """Rows an index lookup reads for a GLOB ``pattern`` (index hits plus the rows after
    ``upto`` it does not cover yet), counted up to ``cap``: a rare substring is looked up, a
    common one is faster as a scan that stops after a page."""
    tail = int(conn.execute(
        "SELECT COUNT(*) FROM (SELECT 1 FROM entries WHERE id > ? LIMIT ?)", (upto, cap)
    ).fetchone()[0])
    if tail >= cap:
        return cap
    hits = conn.execute(
        f"SELECT COUNT(*) FROM (SELECT 1 FROM {SEARCH_TABLE} WHERE loc GLOB ? LIMIT ?)",
        (pattern, cap - tail),
    ).fetchone()[0]
    return tail + int(hits)

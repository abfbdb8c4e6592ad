"""The cross-file rules' queries on one part of the URL keys, for the rules split across
processes (validate/crossfile_split.py): each child builds the key table of its part only,
and the hreflang rules' child builds the keys they need without the whole key table.

Which part a key falls in is a function of the key that every pair a rule compares agrees on:

* duplicates compare equal keys;
* trailing-slash variants pair ``/a`` with ``/a/`` and ``/dir/`` with ``/dir/<index name>``:
  the longer key is the shorter one plus characters of ``/`` and the index names, so
  ``rtrim(key, <those characters>)`` is the same for both (``rtrim`` strips the whole trailing
  run of those characters; it strips more than the suffix too, which only makes more keys
  share a part);
* host, scheme and www counts are per-part counts that add up.

The part is the length of that trimmed key modulo the number of parts. It is what measured
cheapest on 1 M keys (a child's filtered read of the entries 0.45 s against 0.17 s for the read
alone; mixing in the last character costs 0.5 s more per child, five characters 1.9 s, a Python
CRC32 called per row 0.5 s) and shares generated and real URLs out evenly enough (1 M bench keys:
49.98 % / 50.02 % over 2 parts, 51,273 to 81,678 keys over 16).

It shares out nothing when the URLs all have one length, a common shape (``/p/0001234``:
fixed-width ids): every key then falls in one part, and that child does all of the work the
split meant to share. So the parent looks at a sample of the keys first (:func:`choose_spread`,
a few thousand rows read by id, milliseconds): when the length alone would leave one part with
half again its share, the part is the trimmed key's last character instead (``spread``), which
the pairs agree on as well. It costs a little more per child (the filtered read of 1 M keys
0.28 -> 0.40 s), where the length and the last character together cost 0.50–0.60 s (SQLite
trims the key twice) and with the last two 0.70 s: as much as the work it would share out at
2 parts (building half of 1 M keys' table and finding their pairs, ~0.6 s).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sitemap_tui.engine.store import Store
from sitemap_tui.engine.store.crossfile import (
    CF_ALT,
    CF_ALT_INDEXES,
    CF_KEYS,
    CF_SIG,
    CrossFileQueries,
)

__all__ = ["HreflangQueries", "PartQueries", "TRIM_CHARS", "choose_spread", "key_sample", "part_of", "part_sql"]

# '/' and the characters of validate.crossfile.INDEX_NAMES ("index.html", "index.htm", "index.php")
TRIM_CHARS = "/.dehilmnptx"
SAMPLE = 4096  # keys choose_spread looks at
UNEVEN = 1.5  # a part with this many times its share of the sample: spread


def part_sql(key: str, parts: int, spread: bool = False) -> str:
    """SQL for the part (0 .. parts-1) of the key expression ``key``: the trimmed key's length,
    or with ``spread`` its last character (:func:`part_of` is the same in Python)."""
    trimmed = f"rtrim({key}, '{TRIM_CHARS}')"
    if not spread:
        return f"(length({trimmed}) % {int(parts)})"
    return f"(COALESCE(unicode(substr({trimmed}, -1)), 0) % {int(parts)})"


def part_of(key: str, parts: int, spread: bool = False) -> int:
    """:func:`part_sql` in Python."""
    t = key.rstrip(TRIM_CHARS)
    if not spread:
        return len(t) % parts
    return (ord(t[-1]) if t else 0) % parts


def choose_spread(keys: list[str], parts: int) -> bool:
    """Whether the parts should go by the trimmed key's last character rather than its length
    (module docstring): the length leaves a part of ``keys`` (a sample) with :data:`UNEVEN`
    times its share, and the last character leaves the largest part smaller."""
    if len(keys) < parts:
        return False

    def largest(spread: bool) -> int:
        counts = [0] * parts
        for key in keys:
            counts[part_of(key, parts, spread)] += 1
        return max(counts)

    plain = largest(False)
    return plain > UNEVEN * len(keys) / parts and largest(True) < plain


_KEYS = "SELECT id, node_id, COALESCE(key, loc) AS k FROM entries WHERE key IS NULL OR key <> ''"


def key_sample(store: Store, size: int = SAMPLE) -> list[str]:
    """Up to ``size`` keys of ``store``'s entries, at ids scattered over the id range (each
    looked up by id: milliseconds, whatever the size of the set). Scattered, not every n-th:
    ids in steps would read URLs numbered in steps too (``/p/0001234`` at id 1234), whose last
    digits then say nothing of the set's."""
    # (two subqueries: each reads one end of the B-tree; min() and max() in one SELECT scan it)
    row = store.conn.execute("SELECT (SELECT min(id) FROM entries), (SELECT max(id) FROM entries)").fetchone()
    if row[0] is None:
        return []
    low, span = int(row[0]), int(row[1]) - int(row[0]) + 1
    # i times a large prime, modulo the span: ids with no step between them (Knuth's
    # multiplicative hash; distinct unless the span is a multiple of the prime)
    return [k for (k,) in store.conn.execute(
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)"
        " SELECT COALESCE(e.key, e.loc) FROM n JOIN entries e ON e.id = ? + (n.i * 2654435761) % ?"
        " WHERE e.key IS NULL OR e.key <> ''", (min(size, span), low, span))]


class PartQueries(CrossFileQueries):
    """:class:`CrossFileQueries` whose key table holds the keys of part ``part`` of ``parts``
    only (the duplicates, conflicting copies, host counts and trailing-slash pairs are then
    this part's); the hreflang tables are not built here (:class:`HreflangQueries`)."""

    def __init__(self, store: Store, part: int, parts: int, spread: bool = False) -> None:
        super().__init__(store)
        self.part, self.parts, self.spread = part, parts, spread

    def build_keys(self) -> None:
        self.temp("cf_keys", CF_KEYS)
        self.conn.execute(
            "INSERT INTO temp.cf_keys(entry_id, node_id, key) SELECT id, node_id, k"
            f" FROM ({_KEYS}) WHERE {part_sql('k', self.parts, self.spread)} = ?",
            (self.part,),
        )
        self.conn.execute("CREATE INDEX temp.cf_keys_key ON cf_keys(key, node_id)")

    def entry_batches(self, size: int) -> Iterator[list[tuple[Any, ...]]]:
        """(id, node_id, line, loc) of this part's share of the entries for the robots.txt
        rule: every ``parts``-th id (an even share, whatever the URLs look like)."""
        return self._batches(
            f"SELECT id, node_id, line, loc FROM entries WHERE id > ? AND id % {int(self.parts)} = {int(self.part)}"
            " ORDER BY id LIMIT ?", size
        )

    def build_alternates(self) -> None:
        """Only ``cf_sig`` (the conflicting copies compare their hreflang sets)."""
        self.temp("cf_sig", CF_SIG)
        self.conn.execute(
            "INSERT INTO temp.cf_sig SELECT k.entry_id, k.key, e.alt_n, e.alt_h FROM entries e"
            " JOIN temp.cf_keys k ON k.entry_id = e.id WHERE alt_n > 0"
        )


class HreflangQueries(CrossFileQueries):
    """:class:`CrossFileQueries` for the hreflang rules alone: ``cf_alt`` and ``cf_sig`` of every
    entry, read from the entries themselves, and a ``cf_keys`` of only the keys some hreflang
    link points at (what the rules look up in it), so no index over every key is sorted."""

    def build_keys(self) -> None:
        self.temp("cf_alt", CF_ALT)
        self.temp("cf_sig", CF_SIG)
        self.temp("cf_keys", CF_KEYS)
        self.temp("cf_tgt", "CREATE TEMP TABLE cf_tgt(key TEXT PRIMARY KEY) WITHOUT ROWID")
        # the same rows as CrossFileQueries.build_alternates: src is the entry's key, an entry
        # with an empty key is left out as the key table leaves it out
        self.conn.execute(
            "INSERT INTO temp.cf_alt(entry_id, src, lang, tgt, href)"
            " SELECT a.entry_id, COALESCE(e.key, e.loc), a.lang, COALESCE(a.tgt, a.href), trim(a.href)"
            " FROM alternates a JOIN entries e ON e.id = a.entry_id"
            " WHERE a.lang IS NOT NULL AND (e.key IS NULL OR e.key <> '')"
        )
        self.check()
        if self.conn.execute("SELECT 1 FROM temp.cf_alt LIMIT 1").fetchone() is None:
            return  # no hreflang link: nothing to look up (and no read of every entry)
        for index in CF_ALT_INDEXES:
            self.conn.execute(index)
        self.conn.execute(
            "INSERT INTO temp.cf_sig SELECT id, COALESCE(key, loc), alt_n, alt_h FROM entries"
            " WHERE alt_n > 0 AND (key IS NULL OR key <> '')"
        )
        self.conn.execute("CREATE INDEX temp.cf_sig_src ON cf_sig(src)")
        self.conn.execute("INSERT OR IGNORE INTO temp.cf_tgt SELECT tgt FROM temp.cf_alt")
        self.check()
        self.conn.execute(
            "INSERT INTO temp.cf_keys(entry_id, node_id, key) SELECT id, node_id, k"
            f" FROM ({_KEYS}) WHERE k IN (SELECT key FROM temp.cf_tgt)"
        )
        self.conn.execute("CREATE INDEX temp.cf_keys_key ON cf_keys(key, node_id)")

    def build_alternates(self) -> None:
        """Built with the keys (:meth:`build_keys`)."""

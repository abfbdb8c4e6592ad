"""The committed per-rule table of the real corpus (tests/data/corpus-rule-counts.tsv) is what
the validator measures today: a change that makes a rule fire on more or fewer real files must
update the table on purpose (``python -m tests.corpus_table --write``) and say why."""

from __future__ import annotations

from collections import Counter

import pytest
from corpus_table import TABLE, corpus_dir, corpus_runs, count, differences, parse, render

CORPUS = corpus_dir()

pytestmark = pytest.mark.skipif(CORPUS is None, reason="shared corpus not available")


def test_rule_counts_match_the_committed_table() -> None:
    measured = count(corpus_runs().values())
    committed = parse(TABLE.read_text(encoding="utf-8"))
    diff = differences(committed, measured)
    assert not diff, (
        "rules fire on a different number of corpus files than tests/data/corpus-rule-counts.tsv"
        " says; if that is intended, run `python -m tests.corpus_table --write` and commit it:\n"
        + "\n".join(diff)
    )


def test_table_round_trips_and_names_each_change() -> None:
    table = {"a-rule": Counter({"error": 2}), "b-rule": Counter({"warning": 1, "info": 3})}
    assert parse(render(table)) == table
    changed = {"a-rule": Counter({"error": 3}), "c-rule": Counter({"info": 1})}
    assert differences(table, changed) == [
        "a-rule (error): 2 -> 3 files",
        "b-rule (warning): 1 -> 0 files",
        "b-rule (info): 3 -> 0 files",
        "c-rule (info): 0 -> 1 files",
    ]

"""Compare mode (issue 20 §2): the explorer's exploration (NEW) against an earlier one (OLD).

The comparison is session.diff's, run on a worker thread into a scratch database of its own
(``compare_for_view``: the UI thread never waits on it); the app keeps the :class:`Comparison`
it answers, the Changes pane shows its counts, the tree its badges, and the URL table's scope
carries the scratch path, so ``diff:WHAT`` filters read it (engine.store.diff_view). NEW is the
exploration as it was when the comparison ran: the badges are not updated as fetches go on.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from textual.message import Message

from sitemap_tui import scratch
from sitemap_tui.engine.store import StoreError, connect
from sitemap_tui.engine.store.diff_view import attach, badges, mark_counts
from sitemap_tui.engine.store.summary import read_summary


@dataclass(slots=True)
class Comparison:
    """One finished comparison: its counts, the badges per NEW node, and where it is kept."""

    old: Path
    new: Path  # the exploration shown when it ran
    old_label: str  # OLD as the pane names it: its start date, else its file name
    scratch: Path  # the comparison's database (removed with its folder when the app ends)
    summary: dict[str, int] = field(default_factory=dict)  # session.diff.SUMMARY_KEYS
    marks: dict[str, int] = field(default_factory=dict)  # rows each diff: filter lists
    badges: dict[int, tuple[int, int, int]] = field(default_factory=dict)  # (added, removed, changed)
    # the findings do not compare (a side was judged by fewer rules), in words; "" when they do
    unlike: str = ""


@dataclass
class CompareDone(Message):
    """The worker's answer: a comparison, or why there is none."""

    comparison: Comparison | None
    error: str | None = None


def label_of(db: Path) -> str:
    """An exploration as the Changes pane and the header name it: when it was started."""
    started = read_summary(db).started
    if started:
        try:
            return datetime.fromisoformat(started).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
        except ValueError:
            pass
    return db.name


def run_comparison(old: Path, new: Path) -> Comparison:
    """Compare OLD with NEW into a new scratch folder (on a worker thread). Raises StoreError."""
    from sitemap_tui.session.diff import compare_for_view

    folder = scratch.temp_dir()
    db = folder / "compare.db"
    try:
        diff = compare_for_view(old, new, db)
        conn = connect(new, readonly=True)
        try:
            attach(conn, db)
            comparison = Comparison(old, new, label_of(old), db, dict(diff.summary), mark_counts(conn), badges(conn),
                                    _unlike(old, new))
        finally:
            conn.close()
    except sqlite3.Error as exc:
        scratch.remove(folder)
        if isinstance(exc, StoreError):
            raise
        raise StoreError(db, f"cannot compare {old} with {new}: {exc}") from exc
    except BaseException:
        scratch.remove(folder)
        raise
    return comparison


def _unlike(old: Path, new: Path) -> str:
    """Found by a review: `diff --tui` and "Compare with…" showed "Issues new 1 / resolved 7"
    against an exploration `urls` kept (no rules run) without the caveat the report gives."""
    from sitemap_tui.session.diff import unlike_checks

    o, n = read_summary(old), read_summary(new)
    return unlike_checks([("OLD", o.checks, o.command), ("this exploration", n.checks, n.command)])


def forget(comparison: Comparison | None) -> None:
    """Remove a comparison's scratch folder (another comparison replaced it, or the app ends)."""
    if comparison is not None:
        scratch.remove(comparison.scratch.parent)

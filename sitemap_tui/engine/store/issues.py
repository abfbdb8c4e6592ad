"""The issues pane's queries: issue counts by severity and rule, and one rule's issues.

The pane (``tui/widgets/issues_pane``) runs them in its thread workers on a connection of their
own; the filter is what the pane's check boxes and search box ask for.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from typing import Any

from sitemap_tui.engine.store import IssueRow
from sitemap_tui.engine.store.rule_filter import COUNTED
from sitemap_tui.engine.store.schema import issue_count, tree_order


@dataclasses.dataclass(frozen=True, slots=True)
class IssueFilter:
    """The issues of some nodes, of some severities, whose message or rule id contains ``text``
    (case-insensitive) or whose rule is one of ``titled`` (the rules whose title contains it:
    the titles are the validation layer's, so the caller names the rules)."""

    node_ids: tuple[int, ...]
    severities: tuple[str, ...]
    text: str = ""
    titled: tuple[str, ...] = ()

    def where(self) -> tuple[str, list[Any]]:
        """SQL condition over ``issues i`` for this filter."""
        clauses = [
            f"i.node_id IN ({','.join(str(int(n)) for n in self.node_ids) or 'NULL'})",
            f"i.severity IN ({','.join('?' * len(self.severities)) or 'NULL'})",
        ]
        params: list[Any] = list(self.severities)
        text = self.text.strip().lower()
        if text:
            cond = "instr(lower(i.message), ?) > 0 OR instr(lower(i.rule), ?) > 0"
            params += [text, text]
            if self.titled:
                cond += f" OR i.rule IN ({','.join('?' * len(self.titled))})"
                params += list(self.titled)
            clauses.append(f"({cond})")
        return " AND ".join(clauses), params


def issue_groups(conn: sqlite3.Connection, flt: IssueFilter) -> list[tuple[str, str, int]]:
    """(severity, rule, count) of the matching issues: errors first, then by rule (a cap's
    summary issue counts for those it did not list)."""
    where, params = flt.where()
    rows = conn.execute(
        f"SELECT i.severity, i.rule, {issue_count(conn, 'i')} FROM issues i WHERE {where}"
        " GROUP BY i.severity, i.rule ORDER BY CASE i.severity WHEN 'error' THEN 0"
        " WHEN 'warning' THEN 1 ELSE 2 END, i.rule",
        params,
    ).fetchall()
    return [(s, r, int(n)) for s, r, n in rows]


def rule_issues(conn: sqlite3.Connection, flt: IssueFilter, severity: str, rule: str, cap: int) -> tuple[list[IssueRow], int]:
    """The first ``cap`` matching issues of one rule and severity (file by file in the tree's
    order, as the report lists them; then by line), each with its sitemap's URL, and how many
    there are in all."""
    where, params = flt.where()
    where += " AND i.rule = ? AND i.severity = ?"
    params += [rule, severity]
    total = int(conn.execute(f"SELECT COUNT(*) FROM issues i WHERE {where}", params).fetchone()[0])
    rows = [
        IssueRow(*r)
        for r in conn.execute(
            "SELECT i.id, i.rule, i.severity, i.node_id, i.entry_id, i.line, i.col, i.url, i.message,"
            " COALESCE(n.final_url, n.url) FROM issues i LEFT JOIN nodes n ON n.id = i.node_id"
            f" WHERE {where} ORDER BY {tree_order('n')}, i.node_id, i.line, i.id LIMIT {int(cap)}",
            params,
        )
    ]
    return rows, total


def rules_with_urls(conn: sqlite3.Connection, flt: IssueFilter) -> set[tuple[str, str]]:
    """(severity, rule) of the matching groups with an issue on a URL, or a file's count of its
    URLs: the groups the URL table can show (store.rule_filter: what ``rule:`` lists)."""
    where, params = flt.where()
    counted = ",".join("?" * len(COUNTED))
    rows = conn.execute(
        f"SELECT DISTINCT i.severity, i.rule FROM issues i WHERE {where}"
        f" AND (i.entry_id IS NOT NULL OR i.rule IN ({counted}))", [*params, *COUNTED]
    ).fetchall()
    return {(s, r) for s, r in rows}

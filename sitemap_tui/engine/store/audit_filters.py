"""The URL table's view of ``sitemap-tui audit`` and crawler-access results (issue 22 §2, §4):
the columns a listing joins in, the sort orders on them, and the filter words' SQL.

A listing reads ``entries e LEFT JOIN audit a`` (on the URL's key, ``COALESCE(e.key, e.loc)``,
as engine/store/audit.py stores it) ``LEFT JOIN access x`` (on the entry, when the store holds
the crawler-access table). Blocked-for comes from ``access`` when the store has it (its bitmask
over meta ``access``'s agents), else from the audit's own ``blocked_for`` list, which names
engine.agents.DEFAULT_AGENTS. The conditions are self-contained subqueries on ``e``, so every
reader of an entry filter (counts, export, marks) needs no join of its own."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from sitemap_tui.engine.agents import DEFAULT_AGENTS
from sitemap_tui.engine.store.rows import AuditCells, EntryFilter

AUDIT_KEY = "COALESCE(e.key, e.loc)"
AUDIT_SORTS = {
    "status": "a.status", "indexable": "a.indexable", "reason": "a.reason",
    "canonical": "a.canonical", "time": "a.response_time",
}
"""Sort orders on audit columns (``blocked`` is :meth:`AuditView.blocked_sort`): no index walks
them, so a page is a scan and sort of the listing (a worker's, past the UI thread's budget)."""
SORT_KEYS = (*AUDIT_SORTS, "blocked")

# canonical:other: the verdict said so (it compared the URLs normalised), or a page the verdict
# stopped at earlier (404, noindex, ...) names another URL than its own as they were fetched
_OTHER = ("(a.canonical IS NOT NULL AND (a.reason LIKE 'non-indexable: canonicalised%'"
          " OR (a.indexable = 0 AND a.canonical != COALESCE(a.final_url, a.loc) AND a.canonical != a.loc)))")
CANONICALS = ("other", "self", "none")


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute(
        "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def access_agents(conn: sqlite3.Connection) -> tuple[str, ...] | None:
    """The agents of the store's crawler-access table (meta ``access``), None without one."""
    if not _has_table(conn, "access"):
        return None
    row = conn.execute("SELECT value FROM meta WHERE key = 'access'").fetchone()
    try:
        state = json.loads(row[0]) if row else None
    except (TypeError, ValueError):
        return None
    agents = state.get("agents") if isinstance(state, dict) else None
    if not isinstance(agents, list) or not agents:
        return None
    return tuple(str(a) for a in agents)


@dataclass(frozen=True, slots=True)
class AuditView:
    """What a store holds of audit and access results: read once per listing."""

    audit: bool  # the audit table exists (rows or not)
    audited: bool  # ... and holds at least one result
    agents: tuple[str, ...] | None  # the access table's agents, None: no access table
    # blocked-for of the URLs the audit skipped (audit_skipped.blocked_for) is read too: no
    # access table, and a store that keeps it (one from before has no such column)
    skipped: bool = False

    @classmethod
    def of(cls, conn: sqlite3.Connection) -> AuditView:
        audit = _has_table(conn, "audit")
        audited = audit and conn.execute("SELECT 1 FROM audit LIMIT 1").fetchone() is not None
        agents = access_agents(conn)
        skipped = audit and agents is None and any(
            row[1] == "blocked_for" for row in conn.execute("PRAGMA main.table_info(audit_skipped)"))
        return cls(audit, audited, agents, skipped)

    @property
    def any(self) -> bool:
        """Anything to show in audit columns."""
        return self.audited or self.agents is not None

    def export_columns(self, every: tuple[str, ...]) -> tuple[str, ...]:
        """Of ``every`` audit column (formats.AUDIT_COLUMNS), those an export carries: all of
        them once the store has audit results, only ``blocked_for`` with crawler access alone
        (the cross-file pass judges it after every whole exploration: found from outside, an
        export gained nine empty audit columns with no audit run)."""
        if self.audited:
            return every
        return tuple(c for c in every if c == "blocked_for") if self.agents is not None else ()

    def joins(self) -> str:
        """The LEFT JOINs a listing's FROM gets (SQLite drops a join no column uses)."""
        out = f" LEFT JOIN audit a ON a.key = {AUDIT_KEY}" if self.audit else ""
        if self.skipped:
            out += f" LEFT JOIN audit_skipped s ON s.key = {AUDIT_KEY}"
        if self.agents is not None:
            out += " LEFT JOIN access x ON x.entry_id = e.id"
        return out

    def blocked_sort(self) -> str:
        # the bitmask (0: no crawler blocked, first), or how many crawlers the audit's list names
        return "x.blocked" if self.agents is not None else f"json_array_length({self._blocked_for()})"

    def _blocked_for(self) -> str:
        # an audited URL's list, else a skipped one's (robots.txt read, the URL not fetched)
        return "COALESCE(a.blocked_for, s.blocked_for)" if self.skipped else "a.blocked_for"

    def sortable(self, sort: str) -> bool:
        """Whether a listing can sort on audit column ``sort``: with the audit's results, or
        the crawler-access table for ``blocked``."""
        return self.audit or (sort == "blocked" and self.agents is not None)

    def sort_column(self, sort: str) -> str:
        if sort == "blocked":
            return self.blocked_sort()
        return AUDIT_SORTS[sort]

    def columns(self) -> str:
        """The row's audit columns (NULLs for what the store lacks): see :meth:`cells`."""
        a = (lambda c: f"a.{c}") if self.audit else (lambda _c: "NULL")
        x = (lambda c: f"x.{c}") if self.agents is not None else (lambda _c: "NULL")
        return ", ".join((
            "a.key IS NOT NULL" if self.audit else "0", a("status"), a("redirects"), a("indexable"),
            a("reason"), a("canonical"), a("final_url"), a("loc"), a("response_time"),
            self._blocked_for() if self.audit else "NULL",
            x("blocked"), x("unknown"),
        ))

    def cells(self, raw: tuple[Any, ...]) -> AuditCells | None:
        """The cells of one row from :meth:`columns`' values; None when the URL has neither an
        audit result nor an access verdict (a skipped URL's blocked-for is one)."""
        (audited, status, redirects, indexable, reason, canonical, final_url, loc, rtime, blocked_json, mask,
         unknown) = raw
        if not audited and mask is None and blocked_json is None:
            return None
        if self.agents is not None:
            known = mask is not None and not unknown
            blocked = tuple(a for i, a in enumerate(self.agents) if known and int(mask) >> i & 1)
            key: Any = mask
        else:
            known = bool(audited) or blocked_json is not None
            names = json.loads(blocked_json) if blocked_json else []
            blocked = tuple(str(n) for n in names) if isinstance(names, list) else ()
            key = len(names) if blocked_json is not None and isinstance(names, list) else None
        return AuditCells(
            audited=bool(audited), status=status, redirects=redirects or 0, indexable=indexable,
            reason=reason, canonical=canonical, final_url=final_url, loc=loc, response_time=rtime,
            blocked=blocked, access_known=known, blocked_key=key,
        )

    def agent(self, name: str) -> tuple[int | None, str]:
        """The bit of ``name`` in the access table (None: judged from the audit's lists) and the
        name as stored. Raises ValueError (one line) for an agent nothing judged."""
        if self.agents is not None:
            for i, a in enumerate(self.agents):
                if a.lower() == name.lower():
                    return i, a
            raise ValueError(f"no crawler {name!r} in this exploration's access data; known: {', '.join(self.agents)}")
        if not self.audit:
            raise ValueError(f"no crawler access data for {name!r}: run sitemap-tui access or audit on this site")
        # judged from the audit's lists (none yet before its first result: no rows, said by the table)
        for a in DEFAULT_AGENTS:
            if a.lower() == name.lower():
                return None, a
        raise ValueError(f"the audit judged no crawler {name!r}; it judges {', '.join(DEFAULT_AGENTS)}")


def _audited(cond: str) -> str:
    return f"EXISTS (SELECT 1 FROM audit a WHERE a.key = {AUDIT_KEY} AND {cond})"


def _skipped(cond: str = "1") -> str:
    return f"EXISTS (SELECT 1 FROM audit_skipped s WHERE s.key = {AUDIT_KEY} AND {cond})"


def verdict_status(status: str | None) -> str | None:
    """``status:WORD`` as far as an audit row answers it: ``skipped`` names URLs with none."""
    return None if status == "skipped" else status


def asks_verdict(status: str | None, indexable: object, reason: object, canonical: object) -> bool:
    """Whether a filter's audit words need the audit's verdicts (rows of ``audit``): an
    exploration without them has nothing they could list (status:skipped aside)."""
    return (verdict_status(status), indexable, reason, canonical) != (None, None, None, None)


def skipped_condition(conn: sqlite3.Connection) -> str:
    """``status:skipped``: listed URLs the audit did not fetch and gave no verdict (robots.txt
    shuts sitemap-tui out, not Googlebot: the ``audit_skipped`` table); none in a store from
    before that table."""
    if not _has_table(conn, "audit_skipped"):
        return "0"
    return _skipped()


def is_skipped(conn: sqlite3.Connection, entry_id: int) -> bool:
    """Whether entry ``entry_id`` is one :func:`skipped_condition` selects (for marks)."""
    return conn.execute(f"SELECT 1 FROM entries e WHERE e.id = ? AND {skipped_condition(conn)}",
                        (entry_id,)).fetchone() is not None


def status_condition(spec: str) -> tuple[str, list[Any]]:
    """``404``, ``3xx`` (a redirect followed, or a 3xx answer kept) or ``none`` (no answer);
    ``skipped`` is :func:`skipped_condition`, a URL with no audit row."""
    if spec == "none":
        return "a.status IS NULL", []
    if spec.endswith("xx"):
        low = int(spec[0]) * 100
        cond = "a.status BETWEEN ? AND ?"
        return (f"(a.redirects > 0 OR {cond})" if low == 300 else cond), [low, low + 99]
    return "a.status = ?", [int(spec)]


def audit_clauses(conn: sqlite3.Connection, f: EntryFilter) -> tuple[list[str], list[Any]]:
    """The SQL conditions (on ``entries e``) of ``f``'s audit and access fields."""
    clauses: list[str] = []
    params: list[Any] = []
    wanted = (f.status, f.indexable, f.reason, f.canonical, f.blocked, f.allowed)
    if all(w is None for w in wanted):
        return clauses, params
    view = AuditView.of(conn)
    if asks_verdict(f.status, f.indexable, f.reason, f.canonical) and not view.audit:
        raise ValueError("this exploration has no audit results: run sitemap-tui audit on it first")
    if f.status == "skipped":
        clauses.append(skipped_condition(conn))
    elif f.status is not None:
        cond, more = status_condition(f.status)
        clauses.append(_audited(cond))
        params += more
    if f.indexable is not None:
        clauses.append(_audited("a.indexable = ?"))
        params.append(int(f.indexable))
    group = group_condition(f.reason) if f.reason is not None else None
    if group is not None:
        clauses.append(_audited(group))  # an Overview row's URLs (store/audit.py)
    elif f.reason is not None:
        clauses.append(_audited("instr(lower(a.reason), ?) > 0"))
        params.append(reason_text(f.reason))
    if f.canonical is not None:
        kinds = {"other": _OTHER, "self": f"a.canonical IS NOT NULL AND NOT {_OTHER}", "none": "a.canonical IS NULL"}
        clauses.append(_audited(kinds[f.canonical]))
    for name, blocked in ((f.blocked, True), (f.allowed, False)):
        if name is None:
            continue
        bit, stored = view.agent(name)
        if bit is not None:
            op = "!=" if blocked else "="
            clauses.append(f"e.id IN (SELECT entry_id FROM access WHERE unknown = 0 AND (blocked >> ? & 1) {op} 0)")
            params.append(bit)
        else:
            listed = "EXISTS (SELECT 1 FROM json_each({}.blocked_for) j WHERE j.value = ?)"
            cond = listed if blocked else f"NOT {listed}"
            # (a skipped URL's blocked-for is a verdict of robots.txt: blocked:AGENT and
            # allowed:AGENT list it as the table shows it; found from outside: blocked:Bingbot
            # left them out)
            audited = _audited(cond.format("a"))
            skipped = _skipped(f"s.blocked_for IS NOT NULL AND {cond.format('s')}")
            clauses.append(f"({audited} OR {skipped})" if view.skipped else audited)
            params += [stored] * (2 if view.skipped else 1)
    return clauses, params


#: The Overview's groups of non-indexable URLs (store/audit.py INDEXABILITY), one group a URL:
#: the first words of its verdict (engine/audit_page.verdict, where the first reason wins).
#: ``reason:GROUP`` lists exactly a group; "error" is every other non-indexable URL (no answer,
#: a status but 200 and 404). Found by a review: matched anywhere in the reason, "redirect (...
#: not followed: robots.txt disallows it)" counted as robots too, a redirect to a 404 as 404,
#: and a 201 or a 204 in no group.
REASON_GROUPS: dict[str, str] = {
    "404": "non-indexable: 404", "redirect": "non-indexable: redirect",
    "robots": "non-indexable: blocked by robots", "noindex": "non-indexable: noindex",
    "canonical": "non-indexable: canonicalised", "not-html": "non-indexable: not html",
}
GROUP_CONDITIONS: dict[str, str] = {key: f"lower(a.reason) LIKE '{start}%'" for key, start in REASON_GROUPS.items()}
GROUP_CONDITIONS["error"] = f"a.indexable = 0 AND NOT ({' OR '.join(GROUP_CONDITIONS.values())})"


def group_condition(word: str) -> str | None:
    """The SQL of ``reason:WORD`` when WORD names an Overview group (see REASON_GROUPS)."""
    return GROUP_CONDITIONS.get(word.lower())


def reason_matches(word: str, cells: AuditCells) -> bool:
    """``reason:WORD`` on a row's cells, as the SQL above decides it: a group's name is the
    Overview's group (REASON_GROUPS, "error"), any other word is looked for in the reason."""
    reason = (cells.reason or "").lower()
    word = word.lower()
    if word == "error":
        return cells.indexable == 0 and not any(reason.startswith(s) for s in REASON_GROUPS.values())
    if word in REASON_GROUPS:
        return reason.startswith(REASON_GROUPS[word])
    return reason_text(word) in reason


def reason_text(word: str) -> str:
    """What ``reason:WORD`` looks for in the reason, lower-cased: ``not-html`` is "not html"."""
    return word.lower().replace("-", " ")


def canonical_kind(cells: AuditCells) -> str:
    """"none", "other" or "self": canonical:WORD as the SQL above decides it, on a row's cells."""
    canonical = cells.canonical
    if canonical is None:
        return "none"
    reason = cells.reason or ""
    own = cells.final_url if cells.final_url is not None else cells.loc
    elsewhere = not cells.indexable and canonical != own and canonical != cells.loc
    return "other" if reason.startswith("non-indexable: canonicalised") or elsewhere else "self"


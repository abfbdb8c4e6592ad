"""Every attack case of issue 5 through the headless CLI (measured subprocesses) and, all at
once, through one Explorer run where each case is a child of the same index.

Per case and per run: bounded time and peak RSS, no traceback, the canary never in stdout,
stderr or the SQLite store, no request to the case's forbidden URLs, every output free of raw
control / bidi / zero-width characters, and the expected outcome (state, issue rules, error,
entry counts, literal text)."""

from __future__ import annotations

import asyncio
import functools
import json
import re
import time

import pytest

from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.model import NodeState
from sitemap_tui.engine.store import Store

from .attacks import CATEGORIES, build
from .conftest import AttackEnv, CaseRun
from .fault_server import OK_URLS

# "Each case under 10 s": the CPU time of the run (the CLI and its worker processes) is held to
# that, whatever else the machine does. Wall time is not asserted (it depends on the machine's
# load, not on the code); a hang still shows: the per-file deadline of every run is 8 s, and a
# run still going after 60 s is killed and fails as timed out.
MAX_SECONDS = 10.0
MAX_RSS_MB = 300.0
# ... on the box it was set on, where 2,000,000 turns of a Python loop take REFERENCE_LOOP_S of
# CPU (the best of three). The same box is at times much slower (20,000,000 turns took 2.5 s
# one day, 0.56-0.73 s another): the heaviest case (fanout-50001's validate, 5.5-6.5 s of CPU
# on a quick hour) took 10.1 s in a CI run on a slow one. So the budget scales with the box's
# pace, measured as the runs end.
REFERENCE_LOOP_S = 0.074


@functools.cache
def box_pace() -> float:
    """How many times slower than the reference this machine runs Python now (at least 1)."""
    def loop() -> float:
        start, x = time.process_time(), 0
        for i in range(2_000_000):
            x += i
        return time.process_time() - start

    return max(1.0, min(loop() for _ in range(3)) / REFERENCE_LOOP_S)

# What must never reach a terminal raw: C0 except LF (and TAB in text output), DEL, C1, bidi
# controls, zero-width and other invisible format characters, line/paragraph separators.
UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064"
    "\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f\ud800-\udfff]"
)


def _case_names() -> list[str]:
    from pathlib import Path

    # Names only: the session fixture builds the files for real.
    return [c.name for c in build(Path("/nonexistent"), Path("/canary"), Path("/fifo"), write=False)]


CASE_NAMES = _case_names()


def test_every_category_has_cases(attack_env: AttackEnv) -> None:
    seen = {c.category for c in attack_env.cases.values()}
    assert seen == set(CATEGORIES)


@pytest.mark.parametrize("case_name", CASE_NAMES)
def test_attack(case_name: str, attack_env: AttackEnv, case_runs: dict[str, CaseRun]) -> None:
    result = case_runs[case_name]
    case = result.case
    exp = case.expect
    token = attack_env.token

    for name, run in result.runs.items():
        where = f"{case_name}/{name}"
        assert not run.timed_out, f"{where}: killed after {run.seconds:.1f}s"
        assert "Traceback" not in run.err, f"{where}: {run.err[-2000:]}"
        # 0/1/2 for every command: a target that answered but is not a usable sitemap is a
        # finding (1), an unreachable one a usage error (2)
        allowed = (0, 1, 2)
        assert run.returncode in allowed, f"{where}: exit {run.returncode}: {run.err[-800:]}"
        assert run.cpu_seconds < MAX_SECONDS * box_pace(), \
            f"{where}: {run.cpu_seconds:.1f}s of CPU (the box at {box_pace():.2f}x the reference's pace)"
        assert run.max_rss_mb < MAX_RSS_MB, f"{where}: peak RSS {run.max_rss_mb:.0f} MiB"
        # no local file content anywhere
        assert token.encode() not in run.stdout + run.stderr, where
        # terminal-safe output: every control character made visible
        for stream, text in (("stdout", run.text), ("stderr", run.err)):
            bad = UNSAFE.search(text)
            assert bad is None, f"{where} {stream}: raw {bad.group()!r} at {bad.start()}"
        if name in ("stats", "validate") and (name != "stats" or case_name != "fanout-50001"):
            assert run.stdout.isascii(), f"{where}: JSON output must be ASCII (ensure_ascii)"
        # requests: only the intended http(s) ones
        forbidden = [r.target for r in result.requests[name] if r.path.startswith(case.forbidden)]
        assert not forbidden, f"{where}: forbidden requests {forbidden}"
        for prefix, most in exp.max_requests.items():
            n = sum(1 for r in result.requests[name] if r.path.startswith(prefix))
            assert n <= most, f"{where}: {n} requests under {prefix} (at most {most})"
    assert token.encode() not in result.db_bytes(), "canary content in the store"
    assert not attack_env.server.hits(case.forbidden), "forbidden URL requested"

    rules = result.rules()
    for rule in exp.rules:
        assert rule in rules, f"expected issue {rule}; got {sorted(rules)}"
    if exp.any_rules:
        assert rules & set(exp.any_rules), f"expected one of {exp.any_rules}; got {sorted(rules)}"
    if exp.issue_text:
        messages = [m.lower() for (m,) in result.db_rows("SELECT message FROM issues")]
        assert any(t in m for t in exp.issue_text for m in messages), messages[:10]
    state, error, urls, nodes = _outcome(result)
    assert state in exp.states, f"state {state} (error {error!r}), expected {exp.states}"
    if exp.error:
        assert any(e.lower() in (error or "").lower() for e in exp.error), f"error {error!r}"
    if exp.urls is not None:
        assert urls == exp.urls
    if exp.min_urls is not None:
        assert urls >= exp.min_urls
    if exp.nodes is not None:
        assert nodes == exp.nodes
    # every node but the target itself (which may list its own URL: self-index)
    all_nodes = result.db_rows("SELECT url, state, error FROM nodes WHERE parent_id IS NOT NULL")
    for suffix, states in exp.child_states.items():
        found = [(u, s) for u, s, _ in all_nodes if suffix in u]
        assert found, f"no node for {suffix}"
        assert all(s in states for _, s in found), f"{suffix}: {found}"
    for suffix, text in exp.child_error.items():
        found = [(u, e) for u, _, e in all_nodes if suffix in u]
        assert found and all(text in (e or "") for _, e in found), f"{suffix}: {found}"
    if "urls" in result.runs:
        out = result.runs["urls"].text
        for lit in exp.literal:
            assert lit in out, f"{lit!r} not shown literally in `urls` output"
        if exp.lines is not None:
            assert len(out.splitlines()) == exp.lines
        elif exp.urls is not None:
            assert len(out.splitlines()) == exp.urls
    if "validate" in result.runs:
        report = json.loads(result.runs["validate"].stdout)
        found = {i["rule"] for i in report["issues"]}
        for rule in exp.validate_rules:
            assert rule in found, f"validate: expected {rule}; got {sorted(found)}"
        for rule in exp.validate_not:
            assert rule not in found, f"validate: unexpected {rule}"
    if exp.check is not None:
        exp.check(result)


def _outcome(result: CaseRun) -> tuple[str, str | None, int, int]:
    """State and error of the target node, entries in its subtree, nodes in the tree."""
    rows = result.db_rows("SELECT id, parent_id, state, error FROM nodes ORDER BY id")
    assert rows, "no node stored"
    _, parent, state, error = rows[0]
    assert parent is None
    urls = result.db_rows("SELECT COUNT(*) FROM entries")[0][0]
    return state, error, urls, len(rows)


def test_no_forbidden_request_at_all(attack_env: AttackEnv, case_runs: dict[str, CaseRun]) -> None:
    assert not attack_env.server.hits("/_forbidden/")


# -- all cases as siblings in one index ----------------------------------------------------------
def test_all_cases_in_one_index(attack_env: AttackEnv, tmp_path) -> None:
    """One exploration where every case is a child of the same index, between normal siblings:
    each case ends as an error or a result on its own node, every normal sibling is complete."""
    server = attack_env.server
    cases = [c for c in attack_env.cases.values() if c.in_index]
    locs: list[str] = []
    for i, case in enumerate(cases):
        if i % 8 == 0:
            locs.append(server.url(f"/ok.xml?sibling={i}"))
        locs.append(server.url(case.target))
    locs.append(server.url("/ok.xml?sibling=last"))
    from .attacks import index

    server.add("/all-cases.xml", index(*locs))
    store = Store(tmp_path / "all.db")

    async def go() -> Explorer:
        # the CLI's setup: parsing in worker processes, the default 30 s per-file deadline
        config = FetchConfig(total_timeout=30, concurrency=8, per_host=8)
        async with Explorer(store=store, fetch_config=config, options=ExploreOptions(workers=2)) as ex:
            await ex.explore(server.url("/all-cases.xml"))
            return ex

    ex = asyncio.run(go())
    store.commit()
    root = ex.nodes[ex.children[None][0]]
    assert root.state == NodeState.DONE
    kids = {ex.nodes[k].url: ex.nodes[k] for k in ex.children[root.id]}
    for url, node in kids.items():
        assert node.state not in (NodeState.FETCHING, NodeState.PARSING, NodeState.PENDING), url
        if "/ok.xml?sibling=" in url:
            assert node.state == NodeState.DONE and node.stats.url_count == OK_URLS, (url, node.error)
    for case in cases:
        node = kids[server.url(case.target)]
        assert node.state.value in case.expect.states, (case.name, node.state, node.error)
        sub = _subtree(ex, node.id)
        found = {r for (r,) in store.conn.execute(
            f"SELECT DISTINCT rule FROM issues WHERE node_id IN ({','.join(map(str, sub))})")}
        for rule in case.expect.rules:
            assert rule in found, (case.name, rule, found)
        if case.expect.any_rules:
            # a heavy case among a hundred siblings on a loaded 2-core box may reach the 30 s
            # deadline, or the fault server's own, before its byte cap (seen in CI: huge-text-line
            # and huge-text-node); a transport error too ends on its own node, which is what this
            # test is about (test_attack checks the cap itself, the case alone)
            cut = case.heavy and "fetch-http-error" in found
            assert found & set(case.expect.any_rules) or cut, (case.name, found, node.error)
    store.close()
    data = b"".join(p.read_bytes() for p in tmp_path.glob("all.db*"))
    assert attack_env.token.encode() not in data
    assert not server.hits("/_forbidden/")



def _subtree(ex: Explorer, node_id: int) -> list[int]:
    out, todo = [], [node_id]
    while todo:
        n = todo.pop()
        out.append(n)
        todo.extend(ex.children.get(n, []))
    return out

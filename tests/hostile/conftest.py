"""Fixtures of the hostile-input suite: the generated attack site, its fault server, and the
headless CLI runs of every case (done once, in parallel, measured)."""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .attacks import Case, CliRun, build, install, run_cli
from .fault_server import FaultServer, RequestRecord

RUN_HEADER = "X-Hostile-Run"
FILE_TIMEOUT = 8  # --timeout: the per-file deadline of every CLI run


def validate_available() -> bool:
    try:
        import sitemap_tui.validate.checker  # noqa: F401
        import sitemap_tui.validate.report  # noqa: F401
    except Exception:
        return False
    return True


@dataclass
class AttackEnv:
    root: Path
    canary: Path
    token: str  # the canary's unique content
    tripwire: Path
    server: FaultServer
    cases: dict[str, Case]
    tmp: Path

    def url(self, case: Case) -> str:
        return self.server.url(case.target)


@pytest.fixture(scope="session")
def attack_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AttackEnv]:
    tmp = tmp_path_factory.mktemp("hostile")
    token = "CANARY-" + uuid.uuid4().hex
    canary = tmp / "canary.txt"
    canary.write_text(token + "\n")
    tripwire = tmp / "tripwire.fifo"
    os.mkfifo(tripwire)  # opening it for reading blocks: any local read turns into a timeout
    root = tmp / "site"
    root.mkdir()
    cases = build(root, canary, tripwire)
    server = FaultServer(root, max_lifetime=900).start()
    install(server, cases)
    try:
        yield AttackEnv(root, canary, token, tripwire, server, {c.name: c for c in cases}, tmp)
    finally:
        server.stop()


@dataclass
class CaseRun:
    """The CLI runs of one case and what they left behind."""

    case: Case
    runs: dict[str, CliRun]  # "stats" (JSON), "urls", "stats-text", "validate"
    db: Path
    requests: dict[str, list[RequestRecord]] = field(default_factory=dict)  # per run name
    _tree: Any = None

    def stats_root(self) -> dict[str, Any]:
        if self._tree is None:
            self._tree = json.loads(self.runs["stats"].stdout)["nodes"][0]
        return self._tree

    def flat(self) -> list[dict[str, Any]]:
        out, todo = [], [self.stats_root()]
        while todo:
            n = todo.pop()
            out.append(n)
            todo.extend(n["children"])
        return out

    def db_rows(self, sql: str) -> list[tuple[Any, ...]]:
        con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            return con.execute(sql).fetchall()
        finally:
            con.close()

    def rules(self) -> set[str]:
        return {r for (r,) in self.db_rows("SELECT rule FROM issues")}

    def db_bytes(self) -> bytes:
        data = b""
        for suffix in ("", "-wal", "-shm", "-journal"):
            p = Path(str(self.db) + suffix)
            if p.exists():
                data += p.read_bytes()
        return data


def _run_case(env: AttackEnv, case: Case, want_validate: bool) -> CaseRun:
    url = env.url(case)
    db = env.tmp / f"{case.name}.db"
    common = ["--timeout", str(FILE_TIMEOUT), *case.args]
    plan: dict[str, list[str]] = {
        "stats": ["stats", url, "--db", str(db), *common] + ([] if case.name == "fanout-50001" else ["--json"]),
    }
    if case.urls_output:
        plan["urls"] = ["urls", url, *common]
        plan["stats-text"] = ["stats", url, *common]
    if want_validate and case.wants_validate:
        plan["validate"] = ["validate", url, "--format", "json", *common]
    runs: dict[str, CliRun] = {}
    for name, args in plan.items():
        runs[name] = run_cli([*args, "-H", f"{RUN_HEADER}: {case.name}/{name}"], timeout=60)
    result = CaseRun(case, runs, db)
    for name in plan:
        marker = f"{case.name}/{name}"
        result.requests[name] = [
            r for r in list(env.server.log) if r.headers.get(RUN_HEADER.lower()) == marker
        ]
    return result


@pytest.fixture(scope="session")
def case_runs(attack_env: AttackEnv, request: pytest.FixtureRequest) -> dict[str, CaseRun]:
    """Run the CLI on every case selected in this session, a few at a time."""
    wanted = set()
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "case_name" in callspec.params:
            wanted.add(callspec.params["case_name"])
    cases = [c for c in attack_env.cases.values() if c.name in wanted]
    # heavy cases first so the long ones overlap with the many short ones
    cases.sort(key=lambda c: not c.heavy)
    want_validate = validate_available()
    workers = max(2, min(4, os.cpu_count() or 2))
    t0 = time.monotonic()
    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(lambda c: _run_case(attack_env, c, want_validate), cases))
    elapsed = time.monotonic() - t0
    runs = [run for r in results for run in r.runs.values()]
    if runs:
        slowest = max(runs, key=lambda r: r.seconds)
        print(f"\n[hostile] {len(runs)} CLI runs of {len(results)} cases in {elapsed:.0f}s "
              f"(slowest {slowest.seconds:.1f}s: {' '.join(slowest.args[:2])}; "
              f"peak RSS {max(r.max_rss_mb for r in runs):.0f} MiB)")
    return {r.case.name: r for r in results}

"""Every catalogue rule has a trigger fixture that reports it and a near miss that does not,
run through ``sitemap-tui validate`` (in this process, ``--workers 0``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from sitemap_tui.validate.registry import RULES

from . import (
    cases_crossfile,
    cases_deep,
    cases_extension,
    cases_file,
    cases_index,
    cases_robots,
    cases_url,
)
from .cases import Case
from .harness import Fixture, run_fixture, served_url

FAMILIES = (cases_file, cases_url, cases_extension, cases_index, cases_robots, cases_crossfile, cases_deep)
ALL: list[Case] = [c for family in FAMILIES for c in family.CASES]


def _ids(cases: list[Case]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for c in cases:
        seen[c.rule] = seen.get(c.rule, 0) + 1
        out.append(c.rule if seen[c.rule] == 1 else f"{c.rule}#{seen[c.rule]}")
    return out


def _params(side: str) -> list[object]:
    out = []
    for c, cid in zip(ALL, _ids(ALL), strict=True):
        fx = getattr(c, side)
        if fx is None:
            continue
        reason = getattr(c, f"xfail_{side}")
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(c.rule, fx, id=cid, marks=marks))
    return out


def _where_matches(sitemap: str | None, fx: Fixture, port: int | None) -> bool:
    want = fx.where or fx.target
    if sitemap is None:
        return False
    if port is not None:
        return sitemap == served_url(want, port)
    return sitemap.endswith("/site/" + want)


@pytest.mark.parametrize(("rule", "fx"), _params("trigger"))
def test_trigger_reports_the_rule(rule: str, fx: Fixture, tmp_path: Path, httpserver: HTTPServer) -> None:
    run = run_fixture(fx, tmp_path, httpserver)
    found = run.of(rule)
    assert found, f"{rule} not reported:\n{run.describe()}"
    if fx.line is not None or fx.where is not None:
        at = f"{fx.where or fx.target}{'' if fx.line is None else f':{fx.line}'}"
        assert any(
            _where_matches(f.sitemap, fx, run.port) and (fx.line is None or f.line == fx.line)
            for f in found
        ), f"{rule} not reported at {at}:\n{run.describe()}"


@pytest.mark.parametrize(("rule", "fx"), _params("near_miss"))
def test_near_miss_does_not_report_the_rule(rule: str, fx: Fixture, tmp_path: Path, httpserver: HTTPServer) -> None:
    run = run_fixture(fx, tmp_path, httpserver)
    assert not run.of(rule), f"{rule} reported on its near miss:\n{run.describe()}"
    # a near miss that could not be validated at all would pass without testing anything
    assert run.code != 2, f"the near miss of {rule} could not be validated:\n{run.describe()}"


def test_every_rule_has_a_trigger_and_a_near_miss() -> None:
    triggers = {c.rule for c in ALL if c.trigger is not None}
    near = {c.rule for c in ALL if c.near_miss is not None}
    unknown = (triggers | near) - RULES.keys()
    assert not unknown, f"cases for rules that are not in the catalogue: {sorted(unknown)}"
    assert not RULES.keys() - triggers, f"rules without a trigger fixture: {sorted(RULES.keys() - triggers)}"
    assert not RULES.keys() - near, f"rules without a near-miss fixture: {sorted(RULES.keys() - near)}"

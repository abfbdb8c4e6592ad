"""Issue 17: every rule names what decides it, and that decider does emit it; no code emits a
rule id the registry does not know."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from sitemap_tui.validate import registry
from sitemap_tui.validate.registry import RULES, STAGES
from sitemap_tui.validate.rules import ERR, Rule

PACKAGE = Path(registry.__file__).resolve().parents[1]

#: The source files of each stage a rule may name in ``decided_by``.
STAGE_FILES: dict[str, tuple[str, ...]] = {
    "fetch": ("engine/fetch.py", "engine/fetch_outcome.py", "engine/fetch_local.py", "engine/decode.py"),
    "parse": ("engine/sniff.py", "engine/parse_xml.py", "engine/xml_prolog.py", "engine/xml_entries.py",
              "engine/xml_stray.py", "engine/parse_text.py"),
    "explore": ("engine/explorer.py", "engine/explore_tree.py", "engine/explore_robots.py",
                "engine/explore_files.py"),
    "checker": ("validate/checker.py", "validate/urlcheck.py"),
    "xsd": ("validate/xsd.py", "validate/xsd_rules.py", "validate/xsd_schema.py"),
    "cross-file": ("validate/crossfile.py", "validate/crossfile_robots.py", "validate/crossfile_values.py"),
    "deep": ("validate/deep.py", "validate/deep_fetch.py", "validate/deep_page.py"),
}

# A rule id handed to something that makes a finding or an issue of it: Finding("id", ...),
# make_issue("id", ...), the checker's add("id", ...) and tallies, LocFinding("id", ...), and
# the fetcher's RULE_* constants.
_EMITTED = re.compile(
    r"""(?:\bFinding|\bmake_issue|\badd|_tally|\bLocFinding|\bDecodeError|_issue)\(\s*(?:[\w.]+,\s*)?"([a-z0-9]+(?:-[a-z0-9]+)+)"
       |^RULE_[A-Z_]+\s*=\s*"([a-z0-9]+(?:-[a-z0-9]+)+)"
    """,
    re.VERBOSE | re.MULTILINE,
)


def _source(stage: str) -> str:
    return "".join((PACKAGE / f).read_text(encoding="utf-8") for f in STAGE_FILES[stage])


def _check_source(decider: str) -> str | None:
    """The source of a family's check function named ``family.function``, or None."""
    family, _, name = decider.partition(".")
    try:
        module = importlib.import_module(f"sitemap_tui.validate.rules.{family}")
    except ImportError:
        return None
    func = getattr(module, name, None)
    return inspect.getsource(func) if inspect.isfunction(func) else None


def undecided(rules: dict[str, Rule]) -> list[str]:
    """Rules with no decider, an unknown one, or a decider whose code never names them.

    A decider is a stage (``STAGES``: its modules must name the rule) or a check function
    ``family.function`` of validate/rules/ (its body must name the rule)."""
    sources = {stage: _source(stage) for stage in STAGE_FILES}
    bad = []
    for rule in rules.values():
        if not rule.decided_by:
            bad.append(f"{rule.id}: no decider")
        for decider in rule.decided_by:
            source = sources.get(decider) if decider in STAGES else _check_source(decider)
            if source is None:
                bad.append(f"{rule.id}: unknown decider {decider!r}")
            elif f'"{rule.id}"' not in source:
                bad.append(f"{rule.id}: {decider} never names it")
    return bad


def emitted_ids() -> dict[str, set[str]]:
    """Rule ids the package's code emits, by file."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        ids = {a or b for a, b in _EMITTED.findall(text)}
        if ids:
            found[str(path.relative_to(PACKAGE))] = ids
    return found


def test_every_rule_has_a_decider_that_emits_it() -> None:
    assert undecided(RULES) == []
    assert set(STAGES) == set(STAGE_FILES)


def test_the_coverage_check_fails_for_a_rule_nobody_decides() -> None:
    orphan = Rule(
        id="orphan-rule", scope="file", severity=ERR, title="Nobody decides this",
        message="never", explanation="A rule registered without any code deciding it.",
        source="sitemap-tui policy",
    )
    named_wrongly = Rule(
        id="orphan-too", scope="file", severity=ERR, title="Claims a stage",
        message="never", explanation="A rule whose decider never emits it.",
        source="sitemap-tui policy", decided_by=("checker",),
    )
    misnamed = Rule(
        id="orphan-three", scope="file", severity=ERR, title="Names a missing check",
        message="never", explanation="A rule whose check function does not exist.",
        source="sitemap-tui policy", decided_by=("image.check_nothing",),
    )
    rules = {**RULES, orphan.id: orphan, named_wrongly.id: named_wrongly, misnamed.id: misnamed}
    assert undecided(rules) == [
        "orphan-rule: no decider",
        "orphan-too: checker never names it",
        "orphan-three: unknown decider 'image.check_nothing'",
    ]


def test_no_code_emits_an_unregistered_rule() -> None:
    found = emitted_ids()
    unknown = {f: ids - RULES.keys() for f, ids in found.items() if ids - RULES.keys()}
    assert unknown == {}
    # the scan sees the emitters (so an unregistered id there would be caught)
    assert {"engine/parse_xml.py", "engine/sniff.py", "engine/parse_text.py", "engine/fetch_outcome.py",
            "validate/rules/video.py", "validate/crossfile.py", "validate/deep.py"} <= set(found)
    assert len(set().union(*found.values())) > 100


@pytest.mark.parametrize("stage", ["cross-file", "deep"])
def test_stage_rule_lists_match_the_registry(stage: str) -> None:
    from sitemap_tui.validate.crossfile import CROSSFILE_RULES
    from sitemap_tui.validate.deep import DEEP_RULES

    listed = set(CROSSFILE_RULES if stage == "cross-file" else DEEP_RULES)
    assert listed == {r.id for r in RULES.values() if stage in r.decided_by}

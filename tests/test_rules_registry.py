"""The rule registry: complete against the catalogue, well-formed, and its helpers."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from sitemap_tui.engine.model import Issue, Severity
from sitemap_tui.validate import rules as rules_mod
from sitemap_tui.validate.registry import (
    RULES,
    SCOPES,
    STAGES,
    describe,
    format_message,
    make_issue,
    match_rules,
    select_rules,
    template_fields,
)

CATALOGUE_CANDIDATES = [
    Path(__file__).resolve().parents[1] / "shared" / "validation-rules.md",
    Path(__file__).resolve().parents[2] / "shared" / "validation-rules.md",
    Path("/work/shared/validation-rules.md"),
]

# rules added beyond shared/validation-rules.md (each says so in its explanation)
# sitemap-tui's own rules: the DOCTYPE refusal, the private-address refusal, a gzip label on a plain body,
# a file gzipped twice, a known extension's element it does not define (the lax XSD skips it)
ADDED = {"xml-dtd-forbidden", "fetch-private-address", "content-encoding-mismatch", "gzip-double",
         "ext-unknown-element"}

DEEP = {
    "deep-status-3xx", "deep-status-4xx", "deep-status-5xx", "deep-soft-404", "deep-noindex",
    "deep-non-canonical", "deep-lastmod-vs-header", "video-content-not-media",
    "video-thumbnail-problem", "hreflang-target-not-indexable", "hreflang-html-conflict",
}  # fmt: skip


def catalogue_rows() -> list[tuple[str, str, str]]:
    path = next((p for p in CATALOGUE_CANDIDATES if p.is_file()), None)
    if path is None:
        pytest.skip("shared/validation-rules.md is not available")
    rows = []
    in_table = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("| rule id |"):
            in_table = True
            continue
        if in_table:
            if not line.startswith("|"):
                if rows:
                    break
                continue
            if line.startswith("|---"):
                continue
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows.append((cells[0], cells[1], cells[2]))
    return rows


def test_every_catalogue_rule_is_registered_with_its_scope_and_severity() -> None:
    rows = catalogue_rows()
    assert len(rows) == 156
    for rule_id, scope, severity in rows:
        assert rule_id in RULES, rule_id
        rule = RULES[rule_id]
        assert rule.scope == scope, rule_id
        assert rule.severity is Severity(severity), rule_id
    assert set(RULES) == {r[0] for r in rows} | ADDED


def test_registry_counts_match_the_catalogue_summary() -> None:
    counts: dict[tuple[str, str], int] = {}
    for rule in RULES.values():
        if rule.id not in ADDED:
            counts[(rule.scope, rule.severity.value)] = counts.get((rule.scope, rule.severity.value), 0) + 1
    assert sum(counts.values()) == 156
    assert counts[("file", "error")] == 17
    assert counts[("url", "warning")] == 14
    assert counts[("extension", "error")] == 28
    assert counts[("cross-file", "info")] == 5


def test_xml_dtd_forbidden() -> None:
    rule = RULES["xml-dtd-forbidden"]
    assert rule.scope == "file" and rule.severity is Severity.ERROR
    assert "https://www.w3.org/TR/xml/" in rule.source
    assert "XXE" in rule.explanation and "entity-expansion" in rule.explanation


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_rule_is_well_formed(rule_id: str) -> None:
    rule = RULES[rule_id]
    assert rule.id == rule_id
    assert rule.scope in SCOPES
    assert rule.title and "\n" not in rule.title and len(rule.title) <= 60
    assert rule.explanation and len(rule.explanation) > 30
    assert rule.urls or "policy" in rule.source, rule.source
    assert all(u.startswith(("https://", "http://")) for u in rule.urls)
    assert rule.deep is (rule_id in DEEP)
    assert "**" not in rule.explanation and "*(deep" not in rule.explanation


def _sample(spec: str) -> object:
    if spec.endswith("%"):
        return 0.5
    if "," in spec or spec.endswith("d"):
        return 1234
    return "x"


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_message_template_formats(rule_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules_mod, "STRICT_MESSAGES", True)
    rule = RULES[rule_id]
    fields = {
        name: _sample(spec)
        for _, name, spec, _ in string.Formatter().parse(rule.message)
        if name
    }
    message = format_message(rule, fields)
    assert message and "{" not in message.replace("{}", "")
    assert "\n" not in message


def test_make_issue() -> None:
    issue = make_issue("priority-invalid", node_id=4, line=10, url="https://example.com/a", value="1.5")
    assert isinstance(issue, Issue)
    assert issue.rule == "priority-invalid" and issue.severity is Severity.ERROR
    assert issue.message == "priority '1.5' is not a number from 0.0 to 1.0"
    assert (issue.node_id, issue.line, issue.url) == (4, 10, "https://example.com/a")
    assert make_issue("urlset-empty", severity=Severity.INFO).severity is Severity.INFO
    # {url} in a template is the issue's URL
    assert "https://example.com/s.xml" in make_issue("robots-sitemap-file-disallowed", url="https://example.com/s.xml",
                                                     agent="YandexBot").message


def test_make_issue_unknown_rule_raises() -> None:
    with pytest.raises(KeyError):
        make_issue("priority-invaild", value="x")


def test_missing_fields_fall_back_unless_strict(monkeypatch: pytest.MonkeyPatch) -> None:
    issue = make_issue("priority-invalid")
    assert issue.message == RULES["priority-invalid"].title
    assert make_issue("xml-not-well-formed", reason="boom").message.endswith("boom")
    monkeypatch.setattr(rules_mod, "STRICT_MESSAGES", True)
    with pytest.raises(KeyError):
        make_issue("priority-invalid")


def test_long_values_are_shortened() -> None:
    issue = make_issue("loc-not-absolute", value="x" * 5000)
    assert len(issue.message) < 400 and "…" in issue.message


def test_template_fields() -> None:
    # the parent is named: <url> or, in an index, <sitemap> (issue 16)
    assert template_fields(RULES["core-element-repeated"]) == ["element", "count", "parent"]


# -- selection -----------------------------------------------------------------------------------


def test_select_all_by_default() -> None:
    assert select_rules() == set(RULES)
    assert select_rules([], None) == set(RULES)


def test_select_prefixes() -> None:
    video = select_rules(["video-"])
    assert video and all(r.startswith("video-") for r in video)
    assert "video-tag-too-many" in video
    hreflang = select_rules(["hreflang"])
    assert hreflang == {r for r in RULES if r.startswith("hreflang")}
    assert select_rules(["lastmod-,loc-"]) == {r for r in RULES if r.startswith(("lastmod-", "loc-"))}
    assert select_rules(["loc-has-fragment"]) == {"loc-has-fragment"}
    assert select_rules(["*-missing"]) == {r for r in RULES if r.endswith("-missing")}


def test_select_scope() -> None:
    robots = select_rules(["robots"])
    assert "video-files-not-accessible" in robots  # scope robots
    assert "robots-url-disallowed" in robots


def test_ignore_and_min_severity() -> None:
    chosen = select_rules(None, ["video-", "priority-ignored"])
    assert not any(r.startswith("video-") for r in chosen) and "priority-ignored" not in chosen
    assert "loc-missing" in chosen
    errors = select_rules(min_severity=Severity.ERROR)
    assert errors == {r for r, rule in RULES.items() if rule.severity is Severity.ERROR}
    warnings = select_rules(["lastmod-"], min_severity="warning")
    assert "lastmod-missing" not in warnings and "lastmod-future" in warnings


def test_select_unknown_pattern_raises() -> None:
    with pytest.raises(ValueError, match="nope"):
        select_rules(["nope"])
    with pytest.raises(ValueError):
        select_rules(None, ["loc-typo-rule"])


def test_match_rules_is_case_insensitive() -> None:
    assert match_rules("LOC-MISSING") == ["loc-missing"]
    assert match_rules("") == []


def test_describe() -> None:
    text = describe(RULES["loc-too-long"])
    assert text.startswith("loc-too-long  (error, scope url)")
    assert "https://www.sitemaps.org/protocol.html" in text
    assert "deep check" in describe(RULES["deep-noindex"])


def test_rules_declared_elsewhere_exist() -> None:
    # Which rules fire at all is measured from the fixtures (tests/rules: a trigger and a near
    # miss for every rule id); this only catches a rule whose decider is misspelt (the checker's
    # NOT_HERE list became each rule's decided_by, issue 17; tests/test_rule_coverage.py checks
    # that each decider emits it).
    for rule in RULES.values():
        assert rule.decided_by, rule.id
        assert all(d in STAGES or "." in d for d in rule.decided_by), rule.id

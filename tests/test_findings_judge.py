"""Issue 17: the engine emits findings (rule id + fields), the registry's judge grades and words
them, and the user's rule selection is applied where findings become issues."""

from __future__ import annotations

import pickle
from pathlib import Path

from pytest_httpserver import HTTPServer

from sitemap_tui.engine.explorer import ExploreOptions, Explorer
from sitemap_tui.engine.fetch import FetchConfig
from sitemap_tui.engine.findings import Finding, PlainJudge
from sitemap_tui.engine.leftout import LeftOut
from sitemap_tui.engine.model import Entry, Issue, NodeState, Severity
from sitemap_tui.engine.sniff import SniffingParser
from sitemap_tui.engine.store import Store
from sitemap_tui.validate.checker import Checker
from sitemap_tui.validate.registry import RULES, RegistryJudge, make_issue

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
BROKEN = f'<urlset xmlns="{SM}">\n<url><loc>https://e.com/a</loc></url>\n<url><loc>https://e.com/?a=1&b</loc></url>\n</urlset>'


def test_parsers_emit_findings_without_severity_or_message() -> None:
    parser = SniffingParser("https://e.com/sitemap.xml")
    items = parser.feed(BROKEN.encode()) + parser.close()
    found = [i for i in items if not isinstance(i, Entry)]
    assert found and all(isinstance(i, Finding) for i in found)
    stop = next(f for f in found if f.fields.get("stopped"))
    assert stop.rule == "xml-unescaped-char" and stop.line == 3 and "error" in stop.fields


def test_registry_judge_applies_the_selection_and_words_every_finding() -> None:
    finding = Finding("xml-declaration-missing", line=1)
    judge = RegistryJudge(frozenset({"encoding-bom"}))
    assert judge.issue(finding) is None  # not selected: not an issue of this run
    worded = judge.word(finding, node_id=3)  # the engine's own account still reads it
    assert isinstance(worded, Issue) and worded.node_id == 3
    assert worded.severity is RULES["xml-declaration-missing"].severity
    assert RegistryJudge().issue(finding, node_id=3) == worded


def test_judge_crosses_into_worker_processes() -> None:
    judge = RegistryJudge(frozenset({"loc-missing", "encoding-bom"}))
    assert pickle.loads(pickle.dumps(judge)) == judge
    finding = Finding("fetch-redirected", {"from_url": "a", "final_url": "b", "hops": 1}, url="a")
    assert pickle.loads(pickle.dumps(finding)) == finding


def test_severity_is_decided_by_the_rule_from_the_fields() -> None:
    assert make_issue("urlset-empty", news=True).severity is Severity.INFO
    assert make_issue("urlset-empty", news=False).severity is RULES["urlset-empty"].severity
    kw = {"value": "2024-01-01T10:00Z", "reason": "has no seconds"}
    assert make_issue("news-date-invalid", no_seconds=True, **kw).severity is Severity.WARNING
    assert make_issue("news-date-invalid", **kw).severity is Severity.ERROR


def test_plain_judge_words_plainly() -> None:
    issue = PlainJudge().word(Finding("text-blank-lines", {"count": 2}, line=4))
    assert issue.message == "text-blank-lines: count=2" and issue.line == 4


async def test_an_ignored_parse_rule_is_not_stored_but_the_cut_is_still_told(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    httpserver.expect_request("/sitemap.xml").respond_with_data(BROKEN, content_type="application/xml")
    url = httpserver.url_for("/sitemap.xml")
    store = Store(tmp_path / "x.db")
    checker = Checker(enabled=set(RULES) - {"xml-unescaped-char"})
    async with Explorer(store=store, fetch_config=FetchConfig(total_timeout=10, retries=0),
                        options=ExploreOptions(workers=0), checker=checker) as ex:
        await ex.explore(url)
    store.commit()
    rules = {i.rule for i in store.iter_issues()}
    store.close()
    assert "xml-unescaped-char" not in rules
    (node,) = [n for n in ex.nodes.values() if n.url == url]
    assert node.state == NodeState.DONE and node.stats.url_count == 1
    assert LeftOut.CUT_PARSE in {o.cause for o in ex.left_out()}

"""The Issues pane in the app on the demo site, driven by keys as a user does (issue 18): a rule
group's Enter asks for its URLs, rows lead with what varies, and at 80x24 the lines around the
highlighted issue are on screen."""

from __future__ import annotations

from typing import Any

import pytest
from app_helpers import screen_text, settle, wait_for, wait_started
from textual.message import Message
from textual.widgets import Tree

from sitemap_tui.tui.messages import ShowUrls

SIZES = [(200, 50), (80, 24)]
RULE = "lastmod-invalid-format"  # the demo's one: sitemap-products.xml.gz line 207, '14/05/2023'


async def to_rule(app: Any, pilot: Any, issues: Tree[Any], rule: str) -> None:
    for _ in range(40):
        node = issues.cursor_node
        if node is not None and node.data is not None and node.data.kind == "rule" and node.data.rule == rule:
            return
        await pilot.press("down")
        await pilot.pause()
    raise AssertionError(f"the {rule} rule not reached")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_issues_pane_as_a_drill_down(demo_server, make_app, size):
    app = make_app(demo_server.base_url + "/")
    posted: list[ShowUrls] = []

    def hook(message: Message) -> None:
        if isinstance(message, ShowUrls):
            posted.append(message)

    async with app.run_test(size=size, message_hook=hook) as pilot:
        await wait_started(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        await pilot.press("4")
        await settle(app, pilot)
        pane = app.issues_pane
        issues = pane.issue_list
        assert app.focused is issues
        await to_rule(app, pilot, issues, RULE)
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(posted), what="ShowUrls")
        assert posted[0].filter_text == f"rule:{RULE}" and posted[0].origin is issues
        assert RULE in posted[0].title
        # → opens the rule, → again goes to its issue
        await pilot.press("right")
        await wait_for(pilot, lambda: bool(issues.cursor_node.children)
                       and issues.cursor_node.children[0].data.kind == "issue", what="the rule's issues")
        await pilot.press("right")
        await pilot.pause()
        issue = pane.selected_issue
        assert issue is not None and issue.line == 207
        # the row leads with the value and the URL's path, then the rule's wording
        label = str(issues.cursor_node.label)
        assert label.startswith("'14/05/2023' /products/"), label
        assert label.index("'14/05/2023'") < label.index("is not a W3C Datetime")
        # the source lines around line 207 are on screen, whatever the size
        await wait_for(pilot, lambda: "▶207 │" in screen_text(app), what="the source line on screen")
        shown = screen_text(app)
        assert "<lastmod>14/05/2023</lastmod>" in shown.split("▶207 │", 1)[1].splitlines()[0]
        for n in (205, 206, 208, 209):
            assert f" {n} │" in shown, f"line {n} is not on screen"
        explanation = "is not W3C Datetime. Allowed forms"
        if size == (80, 24):
            assert explanation not in shown and "i: explain" in shown
        else:
            assert explanation in shown

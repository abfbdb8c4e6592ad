"""z right after moving to another issue, at 80x24 (a tmux review): the source came in before the
zoomed layout and kept the narrow pane's cut, the hreflang values the issue is about unreadable.
And the rows cut by the narrow list say so with "…"."""

from __future__ import annotations

from app_helpers import node_by_name, select, settle, wait_for
from test_app_export import explored
from test_issues_drill import to_rule
from textual.widgets import Static


async def test_source_lines_are_cut_to_the_zoomed_width(demo_server, make_app):
    app = make_app(demo_server.base_url + "/")
    async with app.run_test(size=(80, 24)) as pilot:
        await explored(app, pilot)
        await select(app, pilot, node_by_name(app, "sitemap-blog.xml"))
        await pilot.press("4")
        await settle(app, pilot)
        pane = app.issues_pane
        issues = pane.issue_list
        await to_rule(app, pilot, issues, "hreflang-cluster-inconsistent")
        await pilot.press("right")
        await wait_for(pilot, lambda: bool(issues.cursor_node.children), what="the rule's issues")
        await pilot.press("right")
        await wait_for(pilot, lambda: pane.selected_issue is not None, what="an issue")
        # a row longer than the list ends in "…" where it is cut, not out of sight to the side
        # (found from outside: "feed.rss line 2" of line 24); the detail holds the whole issue
        assert issues.virtual_size.width <= issues.scrollable_content_region.width
        rows = [issues.render_line(y).text.rstrip() for y in range(issues.scrollable_content_region.height)]
        assert any(r.endswith("…") for r in rows), rows
        await pilot.press("down", "z")  # the next issue, zoomed at once
        await settle(app, pilot)
        await pilot.pause(0.3)
        source = pane.query_one("#issues-source", Static)
        lines = [ln for ln in str(source.render()).splitlines() if "│" in ln]
        assert lines
        room = source.content_region.width
        assert max(len(ln) for ln in lines) >= room - 4, (room, lines)

"""The tree's rows when they do not fit: names are cut, never the issue badges or the state."""

from __future__ import annotations

import re

from app_helpers import screen_text, settle, wait_started

from sitemap_tui.engine.model import NodeState

BADGE = re.compile(r"([●▲])([\d,]+)(?=\s|$)")


async def _rows_after_expand_all(make_app, url: str, size: tuple[int, int]):
    app = make_app(url)
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        await pilot.press("E")
        await settle(app, pilot)
        tree = app.tree
        lines = screen_text(app).splitlines()
        top = tree.region.y
        shown = [(line.node.data, lines[top + y][: tree.size.width]) for y, line in enumerate(tree._tree_lines)]
        return tree.model, shown


async def test_narrow_tree_keeps_every_badge_and_state_whole(demo_server, make_app):
    model, shown = await _rows_after_expand_all(make_app, demo_server.base_url + "/", (80, 24))
    assert len(shown) == 13
    squeezed = 0
    for node_id, row in shown:
        errors, warnings = model.issues.get(node_id, (0, 0))
        want = {"●": errors, "▲": warnings}
        got = {mark: int(n.replace(",", "")) for mark, n in BADGE.findall(row)}
        assert got == {mark: n for mark, n in want.items() if n}, row
        if model.nodes[node_id].state == NodeState.FAILED:
            assert row.rstrip().endswith("× 404"), row
        squeezed += "…" in row or "sitemap" not in row
    assert squeezed >= 8  # the index's children at depth 3 have 16 cells for a label
    rows = dict(shown)
    # the words after "sitemap" tell files apart ("sitemap_index" and "sitemap-archive-index"
    # were both "sitem…index"): no two rows show one name
    named = [re.sub(r"\s+[●▲×].*$|\s+\d+ (URLs?|files?)$", "", row.strip()) for _, row in shown]
    assert len(set(named)) == len(named), named
    products = next(i for i, n in model.nodes.items() if n.url.endswith("/sitemap-products.xml.gz"))
    # the name loses its extension (the icon says the format) and its "sitemap-" (the icon says
    # that too) before its letters: "sit…ucts" was "sitemap-products.xml.gz"
    assert re.search(r"≡ products ●\d+ ▲\d+$", rows[products].rstrip()), rows[products]


async def test_wide_tree_shows_whole_labels(demo_server, make_app):
    model, shown = await _rows_after_expand_all(make_app, demo_server.base_url + "/", (200, 50))
    rows = dict(shown)
    products = next(i for i, n in model.nodes.items() if n.url.endswith("/sitemap-products.xml.gz"))
    errors, warnings = model.issues[products]
    count = model.nodes[products].stats.url_count
    assert f"sitemap-products.xml.gz  {count} URLs  ●{errors}  ▲{warnings}" in rows[products]
    assert not any("…" in row for row in rows.values())


def test_a_long_name_is_cut_once_in_the_middle_keeping_its_end() -> None:
    """Found from outside: a 70-character name was cut at its end (60 cells), then in the middle
    again when squeezed: two "…" and the distinguishing tail ("edition") lost."""
    from sitemap_tui.engine.model import Node, NodeKind
    from sitemap_tui.tui.widgets.sitemap_tree import node_label
    from sitemap_tui.tui.widgets.tree_model import NodeModel

    name = "a-very-long-sitemap-file-name-for-products-catalogue-2024-edition.xml"
    node = Node(id=1, url=f"https://example.com/{name}", kind=NodeKind.URLSET)
    model = NodeModel()
    model.add(node)
    wide = node_label(node, model).plain
    assert wide.count("…") == 1 and "edition.xml" in wide and len(wide) <= 2 + 60
    narrow = node_label(node, model, width=20).plain
    assert narrow.count("…") == 1 and narrow.rstrip().endswith("edition"), narrow


async def test_a_very_narrow_tree_still_keeps_badges_and_state(demo_server, make_app):
    """Found from outside at 60x20: the rows had room for the badges only if the name shrank
    below 3 cells, and were cut at their end instead: "≡ p…s ●4" (▲4 gone), "· m…g ●1"
    (× 404 gone)."""
    model, shown = await _rows_after_expand_all(make_app, demo_server.base_url + "/", (60, 20))
    for node_id, row in shown:
        errors, warnings = model.issues.get(node_id, (0, 0))
        got = {mark: int(n.replace(",", "")) for mark, n in BADGE.findall(row)}
        assert got == {mark: n for mark, n in {"●": errors, "▲": warnings}.items() if n}, row
        if model.nodes[node_id].state == NodeState.FAILED:
            assert row.rstrip().endswith("× 404"), row


def _blog(changes: tuple[int, int, int], issues: tuple[int, int]):
    """sitemap-blog.xml done, with compare mode's changes and its issue counts."""
    from sitemap_tui.engine.model import Node, NodeKind
    from sitemap_tui.tui.widgets.tree_model import NodeModel

    node = Node(id=1, url="https://example.com/sitemap-blog.xml", kind=NodeKind.URLSET, state=NodeState.DONE)
    model = NodeModel()
    model.add(node)
    model.changes[1] = changes
    model.issues[1] = issues
    return node, model


def test_the_304_marker_and_the_names_letters_give_way_before_a_badge() -> None:
    from sitemap_tui.tui.widgets.sitemap_tree import node_label

    node, model = _blog((0, 1, 0), (3, 3))
    node.stats.unchanged_since = "2026-11-27T10:00:00"
    for width in range(11, 30):
        label = node_label(node, model, width=width).plain
        assert len(label) <= width, (width, label)
        assert label.startswith("≡") and ("−1" in label or "±" in label) and label.endswith("●3 ▲3"), (width, label)
    assert "304" in node_label(node, model, width=22).plain  # near miss: with room, it stays


def test_the_304_marker_gives_way_before_the_name_is_unreadable() -> None:
    """Found by a review: at 80x24 a second exploration's rows read "p…es 304 ●3 ▲2",
    "a…ve 304 ●1 ▲1": which file each was could not be told. The marker goes first (the
    Overview says the file was carried over); near miss: with room, it stays."""
    from sitemap_tui.engine.model import Node, NodeKind
    from sitemap_tui.tui.widgets.sitemap_tree import node_label
    from sitemap_tui.tui.widgets.tree_model import NodeModel

    node = Node(id=1, url="https://example.com/pages.xml", kind=NodeKind.URLSET, state=NodeState.DONE)
    node.stats.url_count = 7
    node.stats.unchanged_since = "2026-11-27T10:00:00"
    model = NodeModel()
    model.add(node)
    model.issues[1] = (3, 2)
    for width in (14, 15, 16):
        assert node_label(node, model, width=width).plain == "≡ pages ●3 ▲2", width
    assert node_label(node, model, width=18).plain == "≡ pages 304 ●3 ▲2"


def test_wide_compare_badges_shorten_then_go_before_an_issue_badge() -> None:
    """Found from outside: "+1,234 −5,678 ~99" never shrank, and pushed "▲12" off the row at
    every width under 26."""
    from sitemap_tui.tui.widgets.sitemap_tree import node_label

    node, model = _blog((1234, 5678, 99), (3, 12))
    for width in range(10, 40):
        label = node_label(node, model, width=width).plain
        assert len(label) <= width and label.endswith("●3 ▲12"), (width, label)
    assert "+1.2k −5.7k" in node_label(node, model, width=28).plain  # shortened before they go
    assert "+1,234 −5,678 ~99" in node_label(node, model, width=40).plain  # near miss: room for all


def test_compare_counts_give_way_to_one_mark_before_the_name_is_unreadable() -> None:
    """Found from outside: at 80x24 compare mode's "+1 −1 ~1" left the name one letter
    ("≡ +1 −1 ~1 …g ▲2"): which file changed could not be read. The counts shorten, then
    one "±" says the file changed (the Changes tab counts), and the name keeps its letters.
    Near miss: with room, the counts stay."""
    from sitemap_tui.tui.widgets.sitemap_tree import node_label

    node, model = _blog((1, 1, 1), (0, 2))
    for width in range(12, 17):
        label = node_label(node, model, width=width).plain
        assert label == "≡ ± blog ▲2", (width, label)
    assert node_label(node, model, width=17).plain == "≡ +1 −1 blog ▲2"
    assert node_label(node, model, width=20).plain == "≡ +1 −1 ~1 blog ▲2"
    # a file whose URLs only changed keeps its mark too (found from outside: "~N" alone went,
    # and nothing said the file changed)
    node, model = _blog((0, 0, 12345), (0, 2))
    for width in range(12, 19):
        assert node_label(node, model, width=width).plain == "≡ ± blog ▲2", width


def test_a_shortened_count_keeps_to_four_cells() -> None:
    from sitemap_tui.tui.widgets.tree_labels import _short

    for n in (999, 1000, 9_999, 99_500, 999_499, 999_500, 9_999_999, 999_999_999):
        assert len(_short(n)) <= 4, (n, _short(n))
    assert (_short(1234), _short(12_345), _short(1_234_567)) == ("1.2k", "12k", "1.2M")


def test_a_file_on_another_host_is_named_with_its_host() -> None:
    """Found from outside: robots.txt listing sitemap.xml on three origins showed three
    identical "sitemap.xml" rows, even at 200 columns. A file on another origin than the file
    that lists it is named with its host (its scheme too when that differs); near misses: one
    on the same origin, and one listed by a robots.txt that redirected to its origin."""
    from sitemap_tui.engine.model import Node, NodeKind
    from sitemap_tui.tui.widgets.tree_labels import node_label
    from sitemap_tui.tui.widgets.tree_model import NodeModel

    model = NodeModel()
    robots = Node(id=1, url="http://a.example/robots.txt", kind=NodeKind.ROBOTS, state=NodeState.DONE)
    model.add(robots)
    rows = {}
    for nid, url in ((2, "http://a.example/sitemap.xml"), (3, "http://b.example:8080/sitemap.xml"),
                     (4, "https://a.example/sitemap.xml")):
        node = Node(id=nid, url=url, kind=NodeKind.URLSET, state=NodeState.DONE, parent_id=1)
        model.add(node)
        rows[nid] = node_label(node, model).plain
    assert rows[2].startswith("≡ sitemap.xml")
    assert rows[3].startswith("≡ b.example:8080/sitemap.xml")
    assert rows[4].startswith("≡ https://a.example/sitemap.xml")
    robots.stats.final_url = "https://a.example/robots.txt"  # (read there after a redirect)
    assert node_label(model.nodes[4], model).plain.startswith("≡ sitemap.xml")


def test_the_overview_says_how_a_file_was_found() -> None:
    """Found from outside: nothing in the explorer said whether a sitemap came from robots.txt,
    a probe of a common path or the home page's link."""
    from sitemap_tui.engine.model import FoundBy, Node, NodeKind
    from sitemap_tui.tui.widgets.overview import found_text

    def found(by: FoundBy, kind: NodeKind = NodeKind.URLSET, line: int | None = None) -> str:
        return found_text(Node(id=2, url="https://a.example/s.xml", kind=kind, found_by=by, line=line))

    assert found(FoundBy.ROBOTS, line=3) == "Found: listed on line 3 of robots.txt"
    assert found(FoundBy.INDEX, line=12) == "Found: listed on line 12 of its index"
    assert found(FoundBy.PROBE) == "Found: by probing a common path"
    assert found(FoundBy.HTML_LINK) == 'Found: linked from the home page (<link rel="sitemap">)'
    assert found(FoundBy.USER) == "" and found(FoundBy.PROBE, NodeKind.ROBOTS) == ""  # near misses


def test_in_compare_mode_a_narrow_row_drops_its_304_before_its_change_counts() -> None:
    """Found from outside: at 80x24 "−1 posts 304" had dropped its "~1" and kept the 304
    marker; the changes say more there. Near miss: with room, both stay."""
    from sitemap_tui.engine.model import Node, NodeKind
    from sitemap_tui.tui.widgets.tree_labels import node_label
    from sitemap_tui.tui.widgets.tree_model import NodeModel

    model = NodeModel()
    node = Node(id=1, url="https://a.example/posts.xml", kind=NodeKind.URLSET, state=NodeState.DONE)
    node.stats.unchanged_since = "2026-11-01T10:00:00+00:00"
    node.stats.url_count = 5
    model.add(node)
    model.changes[1] = (0, 1, 1)
    assert "−1 ~1" in node_label(node, model).plain and "304" in node_label(node, model).plain
    narrow = node_label(node, model, width=16).plain
    assert "~1" in narrow and "304" not in narrow, narrow

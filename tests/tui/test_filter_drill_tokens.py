"""The filter tokens a drill-through lands on (issue 18): each one lists exactly the URLs the
Overview / Lastmod panes counted for it, and the SQL of the store agrees with ``row_matches``.

The sitemap goes through the real parser into a real store, so the stored raw and parsed values
are what an exploration writes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from sitemap_tui.engine.model import Entry, Issue, Node, NodeKind, NodeState, Severity
from sitemap_tui.engine.sniff import SniffingParser
from sitemap_tui.engine.stats import FileAccumulator
from sitemap_tui.engine.store import EntryFilter, Store
from sitemap_tui.engine.store.urls import has_rule
from sitemap_tui.tui.url_filter import combine, parse_filter, row_matches, to_files

NOW = int(datetime(2026, 11, 25, 12, tzinfo=UTC).timestamp())

# (lastmod, changefreq, priority) per URL; None leaves the element out
ROWS: list[tuple[str | None, str | None, str | None]] = [
    ("2024-03-05", "weekly", "0.5"),
    ("2024-03-31T23:59:59Z", " Weekly ", "0.50"),
    ("2024-04-01", "never", "0.45"),   # 0.45 is just above 0.45 as a float: the Overview says 0.5
    (None, "daily", "0.15"),           # 0.15 is just below: the Overview says 0.1
    ("", "sometimes", "0.25"),         # an exact tie: Python rounds to even, 0.2
    ("yesterday", None, "1.5"),
    ("2030-01-01", "", None),
    ("2026-11-26T11:00:00Z", "monthly", "high"),  # within a day of NOW: not "in the future"
    (None, None, "1"),
]


def _sitemap() -> bytes:
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    for i, (lastmod, changefreq, priority) in enumerate(ROWS):
        out.append(f"<url><loc>https://example.com/p{i}</loc>")
        for tag, value in (("lastmod", lastmod), ("changefreq", changefreq), ("priority", priority)):
            if value is not None:
                out.append(f"<{tag}>{value}</{tag}>")
        out.append("</url>")
    out.append("</urlset>")
    return "\n".join(out).encode()


@pytest.fixture
def store(tmp_path: Path):
    parser = SniffingParser("https://example.com/sitemap.xml", "application/xml")
    items = parser.feed(_sitemap()) + parser.close()
    entries = [i for i in items if isinstance(i, Entry)]
    assert len(entries) == len(ROWS)
    st = Store(tmp_path / "x.db")
    st.add_node(Node(id=1, url="https://example.com/sitemap.xml", kind=NodeKind.URLSET, state=NodeState.DONE, depth=0))
    st.conn.execute("UPDATE nodes SET final_url = 'https://example.com/moved.xml'")  # (as a redirect leaves it)
    ids = st.add_entries(1, entries)
    issue = Issue(rule="url-not-absolute", severity=Severity.ERROR, message="m", node_id=1, line=1)
    other = Issue(rule="priority-invalid", severity=Severity.WARNING, message="m", node_id=1, line=1)
    st.add_issues([issue, issue, other], [ids[1], ids[4], ids[4]])
    st.commit()
    acc = FileAccumulator(now=datetime.fromtimestamp(NOW, UTC))
    acc.add(entries)
    yield st, ids, acc.agg
    st.conn.close()


def _both(st: Store, flt: EntryFilter) -> list[int]:
    """The ids the SQL lists, after checking that row_matches picks the same ones."""
    sql = [r.id for r in st.iter_entries(flt)]
    if flt.sitemap is not None:  # (as the marks decide it: by the file's nodes)
        flt = to_files(flt, st.nodes_at(flt.sitemap))
    every = st.iter_entries(EntryFilter())
    python = [r.id for r in every if row_matches(flt, r, rule_check=lambda i, rule: has_rule(st.conn, i, rule))]
    assert sql == python, flt
    return sql


def _ids(st_ids: list[int], *rows: int) -> list[int]:
    return [st_ids[i] for i in rows]


def test_each_token_lists_the_urls_it_names(store) -> None:
    st, ids, _agg = store
    cases = {
        "lastmod:missing": (3, 8),
        "lastmod:invalid": (4, 5),
        "lastmod:future": (6,),
        "lastmod:2024-03": (0, 1),
        "changefreq:weekly": (0, 1),
        "changefreq:never": (2,),
        "changefreq:missing": (5, 8),
        "changefreq:invalid": (4, 6),
        "priority:0.5": (0, 1, 2),
        "priority:.5": (0, 1, 2),
        "priority:0.1": (3,),
        "priority:0.2": (4,),
        "priority:1.0": (8,),
        "priority:missing": (6,),
        "priority:invalid": (5, 7),
        "rule:url-not-absolute": (1, 4),
        "rule:priority-invalid": (4,),
        "rule:no-such-rule": (),
        "changefreq:weekly priority:0.5 lastmod:2024-03-31": (1,),
        "lastmod:missing changefreq:missing": (8,),
        # an issue's drill to the one URL it names: that URL alone, as written (a plain word
        # is every URL that holds it: …/p lists them all)
        "url:https://example.com/p1": (1,),
        "url:https://example.com/p": (),
        "example.com/p": tuple(range(len(ROWS))),
        "url:HTTPS://EXAMPLE.COM/p1": (),
        # the element there, valid or not: what changefreq-ignored and priority-ignored count
        "changefreq:any": (0, 1, 2, 3, 4, 6, 7),
        "priority:any": (0, 1, 2, 3, 4, 5, 7, 8),
        "lastmod:any": (0, 1, 2, 4, 5, 6, 7),
        # a file's finding drills to its file's URLs (the listed URL or where it redirected)
        "sitemap:https://example.com/sitemap.xml lastmod:missing": (3, 8),
        "sitemap:https://example.com/moved.xml": tuple(range(len(ROWS))),
        "sitemap:https://example.com/other.xml": (),
        "sitemap:https://example.com/ lastmod:missing": (),
    }
    for text, rows in cases.items():
        flt = combine(EntryFilter(node_ids=[1]), parse_filter(text, now=NOW))
        assert _both(st, flt) == _ids(ids, *rows), text


def test_counts_agree_with_the_panes(store) -> None:
    """Every group the Overview shows, drilled into, lists as many URLs as it counted."""
    st, _ids_, agg = store
    groups = {f"changefreq:{k}": n for k, n in agg.changefreq.items()}
    groups |= {f"priority:{k}": n for k, n in agg.priority.items()}
    groups |= {
        "lastmod:missing": agg.lastmod_missing,
        "lastmod:invalid": agg.lastmod_invalid,
        "lastmod:future": agg.lastmod_future,
    }
    groups |= {f"lastmod:{month}": n for month, n in agg.by_month.items()}
    assert len(groups) > 10
    for text, n in groups.items():
        flt = combine(EntryFilter(), parse_filter(text, now=NOW))
        assert len(_both(st, flt)) == n, text


@pytest.mark.parametrize(
    "bad",
    ["changefreq:sometimes", "changefreq:", "url:", "priority:2", "priority:x", "rule:", "rule:Bad_Rule!", "lastmod:futur"],
)
def test_bad_tokens_say_what_to_write(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_filter(bad)


def test_each_word_is_named_once_and_parsed_by_its_own_entry() -> None:
    from sitemap_tui.tui.url_filter import WORDS, filter_help

    names = [w.name for w in WORDS]
    assert len(names) == len(set(names))
    help_lines = dict(filter_help())
    for w in WORDS:
        assert w.syntax.startswith(w.name + ":") and help_lines[w.syntax] == w.help
        assert len(w.syntax) <= 28, w.syntax  # the help's word column fits beside its text at 80x24
        # a word typed in any case is the word (the old chain compared lowercased prefixes)
        assert parse_filter(f"{w.name.upper()}:{_SAMPLE[w.name]}", now=NOW) == parse_filter(
            f"{w.name}:{_SAMPLE[w.name]}", now=NOW) != parse_filter("", now=NOW), w.name


_SAMPLE = {"re": "x", "url": "https://example.com/p1", "sitemap": "https://example.com/sitemap.xml", "lastmod": "2024", "has": "issue", "lang": "de", "changefreq": "daily", "priority": "0.5",
           "rule": "loc-not-absolute", "diff": "added", "status": "404", "indexable": "no",
           "reason": "noindex", "canonical": "other", "blocked": "GPTBot", "allowed": "GPTBot",
           "orphan": "yes", "coverage": "missing"}


@pytest.mark.parametrize("size", [(200, 50), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_filter_word_is_in_the_help(demo_server, make_app, size) -> None:
    """The help screen (?) lists the filter bar's words from the one table that parses them."""
    from app_helpers import screen_text, static_text, wait_for, wait_started

    from sitemap_tui.tui.screens.help import HelpScreen
    from sitemap_tui.tui.url_filter import WORDS

    app = make_app(demo_server.base_url + "/sitemap-video.xml")
    async with app.run_test(size=size) as pilot:
        await wait_started(app, pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        text = static_text(app.screen.query_one("#help-filter"), width=size[0])
        for w in WORDS:
            assert w.syntax in text and w.help.split()[0] in text, (w.name, text)
        scroll = app.screen.query_one("#help-scroll")
        scroll.scroll_end(animate=False)  # (after the next refresh)
        await wait_for(pilot, lambda: scroll.max_scroll_y > 0 and scroll.scroll_y == scroll.max_scroll_y,
                       what="the help scrolled to its end")
        await pilot.pause()
        shown = screen_text(app)  # scrolled to its end: the last words, whole, on screen
        assert WORDS[-1].syntax in shown and WORDS[-2].syntax in shown, shown
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen), what="help to close")

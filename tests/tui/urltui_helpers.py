"""Helpers for the URL table / issues pane / export screen tests: stores built directly with
the Store API, a tiny host App, bounded polling (no sleeps) and rendered-line capture."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.worker import WorkerCancelled

from sitemap_tui.engine.model import (
    Alternate,
    Entry,
    Image,
    Issue,
    News,
    Node,
    NodeKind,
    NodeState,
    Severity,
    Video,
)
from sitemap_tui.engine.store import Store
from sitemap_tui.engine.values import parse_changefreq

SITEMAP = "https://example.com/sitemap-{n}.xml"


def entry(loc: str, line: int = 0, *, lastmod: str | None = None, changefreq: str | None = None,
          priority: str | None = None, images: int = 0, videos: int = 0, news: int = 0,
          alternates: Sequence[tuple[str, str]] = ()) -> Entry:
    lm = None
    if lastmod is not None:
        try:
            lm = datetime.fromisoformat(lastmod).replace(tzinfo=UTC)
        except ValueError:
            lm = None
    return Entry(
        loc=loc, line=line, lastmod_raw=lastmod, lastmod=lm, changefreq_raw=changefreq,
        changefreq=parse_changefreq(changefreq), priority_raw=priority,
        priority=float(priority) if priority and priority.replace(".", "").isdigit() else None,
        images=[Image(loc=f"{loc}/img{i}.png", line=line) for i in range(images)],
        videos=[Video(fields={"title": f"video {i}", "content_loc": f"{loc}/v{i}.mp4"}, line=line) for i in range(videos)],
        news=[News(publication_name="The Times", publication_language="en", title=f"news {i}", line=line) for i in range(news)],
        alternates=[Alternate(rel="alternate", hreflang=h, href=u, line=line) for h, u in alternates],
    )


def add_node(store: Store, node_id: int, *, parent: int | None = None, url: str | None = None,
             kind: NodeKind = NodeKind.URLSET) -> None:
    store.add_node(Node(id=node_id, url=url or SITEMAP.format(n=node_id), kind=kind,
                        state=NodeState.DONE, parent_id=parent, depth=0 if parent is None else 1))


def issue(rule: str, message: str, *, node_id: int, line: int | None = None,
          severity: Severity = Severity.WARNING, url: str | None = None) -> Issue:
    return Issue(rule=rule, severity=severity, message=message, node_id=node_id, line=line, url=url)


def build_store(path: Path, nodes: dict[int, list[Entry]],
                issues: Iterable[tuple[Issue, int | None]] = ()) -> tuple[Store, dict[int, list[int]]]:
    """A committed store; returns it (still open for writing) and the entry ids per node.

    ``issues`` pairs an Issue with an index into its node's entries (or None)."""
    store = Store(path)
    ids: dict[int, list[int]] = {}
    for node_id, entries in nodes.items():
        add_node(store, node_id)
        ids[node_id] = store.add_entries(node_id, entries)
    iss = list(issues)
    if iss:
        store.add_issues([i for i, _ in iss],
                         [None if k is None else ids[i.node_id][k] for i, k in iss])  # type: ignore[index]
    store.commit()
    store.begin()
    return store, ids


def build_big_store(path: Path, n: int = 1_000_000, nodes: int = 20) -> float:
    """``n`` entries over ``nodes`` sitemaps, straight executemany (seconds taken).

    loc = https://example.com/p/<id*7919 mod n, zero padded>/<id> so loc order != id order;
    lastmod missing on every 7th row; every 10th row has an issue; every 11th an image."""
    t0 = time.perf_counter()
    store = Store(path)
    per = -(-n // nodes)
    for nid in range(1, nodes + 1):
        add_node(store, nid)
    base = 1_600_000_000  # 2020-09-13
    days = [datetime.fromtimestamp(base + d * 86400, UTC).strftime("%Y-%m-%d") for d in range(n * 60 // 86400 + 2)]

    def rows() -> Iterable[tuple[Any, ...]]:
        for i in range(1, n + 1):
            r = i * 7919 % n
            if i % 7:
                ts: int | None = base + r * 60
                raw: str | None = days[r * 60 // 86400]
            else:
                ts = raw = None
            yield (i, (i - 1) // per + 1, f"https://example.com/p/{r:07d}/{i}", i, raw, ts,
                   "daily", "daily", "0.5", 0.5, int(i % 11 == 0), int(i % 13 == 0), 0, 0,
                   int(i % 10 == 0))

    store.conn.executemany(
        "INSERT INTO entries(id, node_id, loc, line, lastmod_raw, lastmod, changefreq_raw, changefreq,"
        " priority_raw, priority, n_images, n_videos, n_news, n_alternates, n_issues)"
        " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        rows(),
    )
    store.commit()
    store.close()
    return time.perf_counter() - t0


class Host(App[None]):
    """Mounts one widget, records the messages it posts."""

    def __init__(self, make: Callable[[], Widget]) -> None:
        super().__init__()
        self._make = make
        self.messages: list[Any] = []

    def compose(self) -> ComposeResult:
        yield self._make()

    def on_mount(self) -> None:
        self.exit_calls = 0

    def on_url_table_entry_selected(self, message: Any) -> None:
        self.messages.append(message)

    def on_issues_pane_jump_to_entry(self, message: Any) -> None:
        self.messages.append(message)

    def exit(self, *args: Any, **kwargs: Any) -> None:  # a click must never get here
        self.exit_calls += 1
        super().exit(*args, **kwargs)


async def wait_for(pilot: Any, cond: Callable[[], bool], timeout: float = 10.0) -> None:
    """Bounded polling on the event loop (workers + their messages), never a bare sleep."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        with contextlib.suppress(WorkerCancelled):  # an exclusive worker superseded by a newer one
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def strip_text(strip: Any) -> str:
    return "".join(seg.text for seg in strip)


def grid_lines(grid: Any) -> list[str]:
    return [strip_text(grid.render_line(y)) for y in range(grid.scrollable_content_region.height)]

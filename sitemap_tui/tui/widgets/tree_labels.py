"""A tree node's label: icon, name, counts, issue badges and state, as a Text (never markup),
cut to fit its row (a name is cut before the badges or the state)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from rich.cells import cell_len
from rich.text import Text

from sitemap_tui.engine.model import Node, NodeKind, NodeState
from sitemap_tui.engine.sanitize import display
from sitemap_tui.tui.sizes import format_size
from sitemap_tui.tui.widgets.tree_model import ACTIVE, CONTAINERS, NodeModel
from sitemap_tui.tui.widgets.url_table.columns import elide_middle

ICONS: dict[NodeKind, str] = {
    NodeKind.SITE: "⌂",
    NodeKind.DIRECTORY: "▣",
    NodeKind.ROBOTS: "§",
    NodeKind.INDEX: "▤",
    NodeKind.URLSET: "≡",
    NodeKind.RSS: "◉",
    NodeKind.ATOM: "◎",
    NodeKind.TEXT: "¶",
    NodeKind.HTML: "◇",
    NodeKind.JSON: "□",
    NodeKind.UNKNOWN: "·",
}
SPINNER = "◐◓◑◒"


def short_name(node: Node, limit: int = 60) -> str:
    """A short, sanitised name: the last path segment (or the host for a site), cut at
    ``limit`` cells."""
    try:
        parts = urlsplit(node.url)
    except ValueError:
        return display(node.url, limit)
    if node.kind == NodeKind.SITE:
        return display(parts.netloc or node.url, limit)
    path = parts.path.rstrip("/") if node.kind == NodeKind.DIRECTORY else parts.path
    name = path.rsplit("/", 1)[-1]
    if not name:
        name = (parts.netloc or "") + "/"
    if parts.query:
        name += "?" + parts.query
    return display(name, limit)


def _other_host(node: Node, model: NodeModel) -> str | None:
    """The host (and port) of a file on another origin than the file that lists it, as it
    should be named beside its file name; None for one on the same."""
    parent = model.nodes.get(node.parent_id) if node.parent_id is not None else None
    if parent is None or node.kind in CONTAINERS or node.url.startswith("file:"):
        return None
    # (where the parent was read from: http://example.com's robots.txt, redirected to https://
    # www.example.com, lists files there, which are no other host to name)
    base = parent.stats.final_url or parent.url
    try:
        mine, theirs = urlsplit(node.url), urlsplit(base)
    except ValueError:
        return None
    if base.startswith("file:") or (mine.scheme, mine.netloc) == (theirs.scheme, theirs.netloc):
        return None
    return display(mine.netloc, 60) if mine.scheme == theirs.scheme else display(f"{mine.scheme}://{mine.netloc}", 70)


def human_bytes(n: int | None) -> str:
    return "?" if n is None else format_size(n)


def since_text(iso: str) -> str:
    """An "unchanged since" date (ISO 8601, UTC) to the minute: 2026-11-25 14:02 UTC."""
    return f"{iso[:16].replace('T', ' ')} UTC" if len(iso) >= 16 and iso[10] == "T" else display(iso, 40)


# what a squeezed name drops first (".xml.gz", ".txt", ...): its icon already says the format
_EXTENSIONS = re.compile(r"\.(?:xml|txt|rss|atom|json|html?)(?:\.gz)?$|\.gz$", re.IGNORECASE)
_SITEMAP_WORD = re.compile(r"^sitemaps?[-_.]", re.IGNORECASE)
NAME_MAX = 60  # cells of a name in a row that has room
NAME_MIN = 12  # cells a cut name keeps before the count goes: "sitemap-…ts.xml" still tells files apart
NAME_FLOOR = 6  # cells of name kept before compare mode's counts give way to one mark ("blog", "a…ive")
CHANGED_MARK = "± "  # compare mode, no room for the counts: the file's URLs changed


def node_label(node: Node, model: NodeModel, frame: int = 0, width: int | None = None) -> Text:
    """Icon, name, count, issue badge and state of a node, as a Text (never markup).

    With ``width``, a label that would not fit is made to: the name is cut in the middle, then
    the note, the URL/file count and the 304 marker go and the name shrinks to one cell, so the
    issue badges and the state stay whole (a 28-column tree at 80x24 used to cut every row
    inside the name, badges and all)."""
    failed = node.state == NodeState.FAILED
    skipped = node.state == NodeState.SKIPPED
    head: list[tuple[str, str]] = []
    icon_style = "bold red" if failed else ("dim" if skipped else "bold cyan")
    head.append((ICONS.get(node.kind, "·"), icon_style))
    head.append((" ", ""))
    # compare mode's badges before the name: a narrow tree cuts a row at its end, and after a
    # long name "+4 −26 ~7" showed as "+4 −2", a wrong count that looked whole (80x24)
    added, removed, changed = model.changes.get(node.id, (0, 0, 0))
    head += _change_badges(added, removed, changed)
    name_style = "red" if failed else ("dim" if skipped else "")
    full = short_name(node, 2048)
    host = _other_host(node, model)
    if host:  # (three "sitemap.xml" rows on three hosts read alike: found from outside)
        full = f"{host}/{full}"
    # a long name is cut in the middle, as a squeezed one: its end tells files apart
    name = elide_middle(full, NAME_MAX) if cell_len(full) > NAME_MAX else full
    count: list[tuple[str, str]] = []  # dropped first when the row is too narrow
    s = node.stats
    if node.kind in (NodeKind.INDEX, NodeKind.ROBOTS) or node.kind in CONTAINERS:
        n = s.child_count or len(model.children.get(node.id, []))
        if n:
            count.append((f"  {n:,} {'file' if n == 1 else 'files'}", "dim"))
    elif s.url_count or node.state == NodeState.DONE:
        count.append((f"  {s.url_count:,} URL{'s' if s.url_count != 1 else ''}", "dim"))
    tail: list[tuple[str, str]] = []
    if s.unchanged_since:  # answered 304 to a re-exploration: carried over (the Overview says since when)
        tail.append((" 304", "dim"))
    errors, warnings = model.issues.get(node.id, (0, 0))
    if errors:
        tail.append((f"  ●{errors:,}", "bold red"))
    if warnings:
        tail.append((f"  ▲{warnings:,}", "yellow"))
    tail.extend(_state_parts(node, model, frame))
    note = [(f"  {model.notes[node.id]}", "italic cyan")] if node.id in model.notes else []
    if width is not None and _cells(head + tail + count + note) + cell_len(name) > width:
        note = []
        # one space apart, and "× 404" for "× HTTP 404"
        tail = [(" " + part.lstrip(" ").replace("× HTTP ", "× "), style) for part, style in tail]
        fixed = _cells(head + tail)
        if fixed + min(NAME_MIN, cell_len(name)) + _cells(count) > width:
            count = []
        # still too narrow for 3 cells of name: the 304 marker, then the name's letters and
        # the space after the icon give way, never a badge or the state (found from outside:
        # "≡ −1 b…g 304 ●3" had lost its "▲3" at 80x24, "≡ m…g ●1" its "× 404" at 60 columns)
        floor = min(NAME_FLOOR, cell_len(name))
        if fixed + floor > width:
            # which file it is says more than "carried over" (the Overview says that): found
            # from outside, "p…es 304 ●3 ▲2" at 80x24 named no file; and in compare mode the
            # changes do ("−1 posts 304" had dropped its "~1" and kept the 304)
            tail = [part for part in tail if part[0] != " 304"]
            fixed = _cells(head + tail)
        if fixed + floor > width and (added or removed or changed):
            # the compare badges make room for a readable name: "~N" goes and the counts shorten
            # (1.2k), then one "±" says the file changed (the Changes tab has the counts); found
            # from outside: "≡ +1 −1 ~1 …g ▲2" at 80x24 named no file (and "+1,234 −5,678 ~99"
            # once pushed "▲12" off)
            short = _change_badges(added, removed, 0, short=True)  # (none when only changed)
            for badges in ([short] if short else []) + [[(CHANGED_MARK, "bold yellow")]]:
                head = head[:2] + badges
                fixed = _cells(head + tail)
                if fixed + floor <= width:
                    break
        if fixed + 1 > width and head[1] == (" ", ""):
            del head[1]
            fixed -= 1
        if fixed > width and (added or removed or changed):  # last, the mark goes: the issues stay
            head = head[:2 if len(head) > 1 and head[1] == (" ", "") else 1]
            fixed = _cells(head + tail)
        room = width - fixed - _cells(count)
        if room < 1 and tail:  # no letter of the name fits: the icon, then the badges
            tail[0] = (tail[0][0].lstrip(" "), tail[0][1])
            room = 0
        if room <= 0:
            name = ""
        elif cell_len(name) > room:  # the icon says the format: the name's letters say more
            bare = _EXTENSIONS.sub("", full) or full
            if cell_len(bare) > room:
                # and that it is a sitemap: "sitemap_index" and "sitemap-archive-index" were
                # both "sitem…index" at 80 columns; the words after "sitemap" tell files apart
                bare = _SITEMAP_WORD.sub("", bare) or bare
            name = elide_middle(bare, room)
    text = Text(no_wrap=True, overflow="ellipsis")
    for part, style in head:
        text.append(part, style=style)
    text.append(name, style=name_style)
    for part, style in count + tail + note:
        text.append(part, style=style)
    return text


def _change_badges(added: int, removed: int, changed: int, *, short: bool = False) -> list[tuple[str, str]]:
    """Compare mode's badges before a name: URLs added, removed and changed in the file."""
    def n(count: int) -> str:
        return _short(count) if short else f"{count:,}"

    parts = []
    if added:
        parts.append((f"+{n(added)} ", "bold green"))
    if removed:
        parts.append((f"−{n(removed)} ", "bold red"))
    if changed:
        parts.append((f"~{n(changed)} ", "yellow"))
    return parts


def _short(count: int) -> str:
    """A count in at most 4 cells: 999, 1.2k, 12k, 999k, 1.2M, 12M, 999M, 1.2G."""
    if count < 1000:
        return str(count)
    for unit, size in (("k", 1000), ("M", 1_000_000), ("G", 1_000_000_000)):
        value = count / size
        if round(value, 1) < 10:
            return f"{value:.1f}{unit}"
        if round(value) < 1000:
            return f"{value:.0f}{unit}"
    return f"{count / 1_000_000_000_000:.0f}T"


def _cells(parts: list[tuple[str, str]]) -> int:
    return sum(cell_len(t) for t, _ in parts)


def _state_parts(node: Node, model: NodeModel, frame: int) -> list[tuple[str, str]]:
    """A fetch's spinner and bytes, or how the node ended when not well."""
    if node.state in ACTIVE:
        parts = [(f"  {SPINNER[frame % len(SPINNER)]}", "bold magenta")]
        wire, total = model.progress.get(node.id, (0, None))
        if wire:
            parts.append((" " + human_bytes(wire) + (f"/{human_bytes(total)}" if total else ""), "magenta"))
        return parts
    if node.state == NodeState.FAILED and node.id in model.stopped:
        return [("  × stopped", "bold red")]
    if node.state == NodeState.FAILED:
        s = node.stats
        reason = f"HTTP {s.http_status}" if s.http_status and s.http_status >= 400 else "failed"
        return [(f"  × {reason}", "bold red")]
    if node.state == NodeState.SKIPPED:
        return [("  skipped", "dim italic")]
    if node.state == NodeState.PENDING and node.error == "cancelled":
        return [("  cancelled", "dim italic")]
    return []

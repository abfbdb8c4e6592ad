"""The URL pane's detail panel: everything about one entry as text."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store import EntryRow
from sitemap_tui.engine.store.audit import AuditRow
from sitemap_tui.engine.store.coverage_filters import UnlistedPage
from sitemap_tui.engine.store.diff_view import Earlier
from sitemap_tui.engine.store.rows import AuditCells


def removed_text(loc: str | None) -> Text:
    """A removed URL of compare mode: listed by the earlier exploration only."""
    t = Text(no_wrap=False)
    t.append("Removed: ", style="bold red")
    t.append(display(loc or "", 500))
    t.append("\nListed by the earlier exploration, not by this one: its sitemap, lastmod and other values "
             "shown in the row are the earlier exploration's (sitemap-tui open that file for its details).")
    return t


def unlisted_text(loc: str | None, page: UnlistedPage | None) -> Text:
    """A ``coverage:missing`` row: a page of the link crawl or the user's list in no sitemap."""
    t = Text(no_wrap=False)
    t.append("Not in any sitemap: ", style="bold yellow")
    t.append(display(page.loc if page is not None else loc or "", 500))
    if page is None:
        t.append("\n(no longer in the store)")
        return t
    found = []
    if page.depth is not None:
        found.append(f"by the link crawl, {page.depth} link(s) from the home page, linked from "
                     f"{page.linked_from} crawled page(s)")
    if page.in_list:
        found.append("in your URL list (audit --compare-list)")
    t.append("\nFound " + " and ".join(found or ["by the audit"]) + ".")
    t.append(f"\nStatus: {page.status if page.status is not None else 'no answer'} · {display(page.reason or '')}")
    if (f := page.fetch) is not None:  # what the fetch read, as a listed page's detail says it
        for label, value in (("final URL", f.final_url if f.redirects else None), ("canonical", f.canonical),
                             ("robots", ", ".join(f.robots) or None), ("content type", f.content_type)):
            if value:
                t.append(f"\n{label}: ", style="bold")
                t.append(display(value, 500))
    t.append("\nAn indexable page no sitemap lists: add it to a sitemap, or make it non-indexable.", style="dim")
    return t


def _earlier_line(t: Text, was: Earlier, e: EntryRow, sitemap: str | None) -> None:
    """Compare mode: what the earlier exploration's listing said, where it differs."""
    parts = [f"{name} {display(old) if old is not None else '—'}" for name, old, now in (
        ("lastmod", was.lastmod_raw, e.lastmod_raw), ("changefreq", was.changefreq_raw, e.changefreq_raw),
        ("priority", was.priority_raw, e.priority_raw)) if old != now]
    if was.sitemap and sitemap and was.sitemap != sitemap:
        parts.append(f"in {display(was.sitemap)}")
    if parts:
        t.append("earlier: ", style="bold yellow")
        t.append(" · ".join(parts) + "\n")


def detail_text(detail: dict[str, Any], sitemap: str | None, earlier: Earlier | None = None) -> Text:
    """Everything about one entry as a Text (every value sanitised, no markup)."""
    t = Text(no_wrap=False)
    if not detail:
        t.append("(entry not found)")
        return t
    e: EntryRow = detail["entry"]

    def field(label: str, value: Any, style: str = "") -> None:
        t.append(f"{label}: ", style="bold")
        t.append(display(None if value is None else str(value)), style=style)
        t.append("\n")

    field("loc", e.loc)
    if sitemap:
        field("sitemap", f"{sitemap} (line {e.line})" if e.line else sitemap)
    field("lastmod", e.lastmod_raw if e.lastmod_raw is not None else "—",
          "red" if e.lastmod_raw is not None and e.lastmod is None else "")
    field("changefreq", e.changefreq_raw if e.changefreq_raw is not None else "—")
    field("priority", e.priority_raw if e.priority_raw is not None else "—")
    if earlier is not None:
        _earlier_line(t, earlier, e, sitemap)
    for loc, title, caption, geo, lic, _line in detail.get("images", []):
        t.append("image: ", style="bold")
        t.append(display(loc))
        for extra in (title, caption, geo, lic):
            if extra:
                t.append(" · " + display(extra))
        t.append("\n")
    for video in detail.get("videos", []):
        fields = video.get("fields", {}) if isinstance(video, dict) else {}
        t.append("video: ", style="bold")
        shown = [f"{k}={display(str(fields[k]), 200)}" for k in
                 ("title", "content_loc", "player_loc", "thumbnail_loc", "duration") if k in fields]
        t.append(" · ".join(shown) if shown else "(no fields)")
        t.append("\n")
    for name, lang, date, title in detail.get("news", []):
        t.append("news: ", style="bold")
        t.append(" · ".join(display(x) for x in (name, lang, date, title) if x))
        t.append("\n")
    for rel, hreflang, href, _line, media in detail.get("alternates", []):
        t.append("alternate: ", style="bold")
        what = f"media {display(media, 80)}" if media and not hreflang else display(hreflang) or "?"
        t.append(f"{what} → {display(href)}" + (f" ({display(rel)})" if rel and rel != "alternate" else ""))
        t.append("\n")
    issues = detail.get("issues", [])
    if issues:
        t.append(f"issues ({len(issues)}):\n", style="bold")
        for iss in issues:
            style = {"error": "red", "warning": "yellow"}.get(iss.severity, "")
            t.append(f"  {iss.severity} ", style=style)
            t.append(display(iss.rule), style="bold")
            t.append(" " + display(iss.message))
            if iss.line:
                t.append(f" (line {iss.line})")
            t.append("\n")
    t.rstrip()
    return t


def audit_text(t: Text, result: AuditRow | None, cells: AuditCells | None, *, skipped: bool = False) -> None:
    """Append every audit field of the URL (sitemap-tui audit) and its crawler access to ``t``;
    ``skipped``: the audit did not fetch it (status:skipped), said, as the Overview says it."""
    if skipped:
        t.append("\naudit: ", style="bold")
        t.append("not fetched: robots.txt shuts sitemap-tui out and lets Googlebot in, so no verdict"
                 " (sitemap-tui audit --ignore-robots fetches it)", style="yellow")
    if result is None and (cells is None or not cells.access_known):
        if cells is not None:  # (a crawler-access row: its origin's robots.txt is unknown)
            t.append("\ncrawler access: robots.txt of its origin not read", style="dim")
        return
    t.append("\n")
    if result is not None:
        t.append("audit:\n", style="bold")
        style = "" if result.indexable else "red"
        for label, value, look in (
            ("status", "no answer" if result.status is None else result.status, "" if (result.status or 999) < 400 else "red"),
            ("indexable", "yes" if result.indexable else "no", style),
            ("reason", result.reason, style),
            ("final URL", result.final_url if result.redirects or result.final_url != result.loc else None, ""),
            ("redirects", result.redirects or None, ""),
            ("content type", result.content_type, ""),
            ("response time", None if result.response_time is None else f"{result.response_time * 1000:.0f} ms", ""),
            ("Last-Modified", result.last_modified, ""),
            ("robots directives", ", ".join(result.robots) or None, ""),
            ("canonical", result.canonical, ""),
            ("error", result.error, "red"),
            ("note", result.note, ""),
        ):
            if value is None or value == "":
                continue
            t.append(f"  {label}: ", style="bold")
            t.append(display(str(value)), style=look)
            t.append("\n")
    if cells is not None and cells.access_known:
        t.append("  blocked for: ", style="bold")
        t.append(display(", ".join(cells.blocked)) if cells.blocked else "no crawler (robots.txt allows every one judged)")
        t.append("\n")
    t.rstrip()

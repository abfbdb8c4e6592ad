"""The deep checks of an entry's videos: is ``<video:content_loc>`` a video, and is the
thumbnail a fetchable image of at least Google's 60x30 pixels (HEAD for the content, the first
bytes of the thumbnail for its size)."""

from __future__ import annotations

from typing import Any

from sitemap_tui.engine.model import Issue
from sitemap_tui.engine.urlpolicy import unfetchable_reason
from sitemap_tui.validate.crossfile import issue
from sitemap_tui.validate.deep_fetch import Prober

THUMBNAIL_MIN = (60, 30)  # Google: at least 60x30 pixels
MAX_VIDEOS_PER_ENTRY = 10
# Served for real video files often enough that they are not "not a video" (S3, CDNs, HLS, DASH).
VIDEO_LIKE_TYPES = frozenset(
    {
        "application/octet-stream",
        "binary/octet-stream",
        "application/mp4",
        "application/vnd.apple.mpegurl",
        "application/x-mpegurl",
        "audio/mpegurl",
        "application/dash+xml",
        "application/ogg",
    }
)


async def video_issues(
    prober: Prober, rules: set[str], row: tuple[Any, ...], video: dict[str, Any], refused: dict[str, str]
) -> list[Issue]:
    eid, node_id, loc, line, *_ = row
    fields = video.get("fields") or {}
    out: list[Issue] = []
    content = (fields.get("content_loc") or "").strip()
    thumb = (fields.get("thumbnail_loc") or "").strip()
    jobs = []
    if (
        content
        and "video-content-not-media" in rules
        and unfetchable_reason(content) is None
    ):
        jobs.append(("content", content, prober.probe(content, "head")))
    if thumb and "video-thumbnail-problem" in rules and unfetchable_reason(thumb) is None:
        jobs.append(("thumb", thumb, prober.probe(thumb, "image")))
    for kind, url, task in jobs:
        p = await task
        if p.refused:
            refused.setdefault(url, p.refused)
        if p.blocked:
            continue
        if kind == "content":
            what = None
            if p.error or p.redirect_problem:
                what = f"no video ({p.error or p.redirect_problem})"
            elif p.status is not None and p.status >= 400:
                what = f"HTTP {p.status}"
            elif (
                p.status == 200
                and p.mime
                and not p.mime.startswith("video/")
                and p.mime not in VIDEO_LIKE_TYPES
            ):
                what = p.mime
            if what:
                out.append(
                    issue(
                        "video-content-not-media",
                        node_id=node_id,
                        line=line,
                        url=loc,
                        url_field=url,
                        content_type=what,
                    )
                )
        else:
            reason = None
            if p.error or p.redirect_problem:
                reason = f"cannot be fetched ({p.error or p.redirect_problem})"
            elif p.status is not None and p.status >= 400:
                reason = f"answers HTTP {p.status}"
            elif p.status == 200:
                if p.mime and not p.mime.startswith("image/"):
                    reason = f"served as {p.mime}, not an image"
                else:
                    size = p.image
                    if size is not None and (
                        size[0] < THUMBNAIL_MIN[0] or size[1] < THUMBNAIL_MIN[1]
                    ):
                        reason = (
                            f"only {size[0]}x{size[1]} pixels (Search Console: thumbnail"
                            f" too small; at least {THUMBNAIL_MIN[0]}x{THUMBNAIL_MIN[1]})"
                        )
            if reason:
                out.append(
                    issue(
                        "video-thumbnail-problem",
                        node_id=node_id,
                        line=line,
                        url=loc,
                        url_field=url,
                        reason=reason,
                    )
                )
    return out

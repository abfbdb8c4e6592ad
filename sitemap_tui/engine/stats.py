"""Incremental statistics per file, mergeable into subtree aggregates.

Updated batch by batch while a file streams, so a front end can show live numbers; the
whole aggregate is a small JSON-able dict no matter how many URLs it summarises."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sitemap_tui.engine.model import Entry


def url_key(loc: str) -> bytes:
    """An 8-byte digest standing for a URL in dedup sets (bounded memory per URL)."""
    return hashlib.blake2b(loc.encode("utf-8", "surrogatepass"), digest_size=8).digest()


@dataclass(slots=True)
class Aggregate:
    urls: int = 0
    unique: int | None = None  # per file; None for merged subtrees (computed in SQL on demand)
    lastmod_min: int | None = None  # unix seconds UTC
    lastmod_max: int | None = None
    lastmod_missing: int = 0
    lastmod_invalid: int = 0
    lastmod_future: int = 0
    by_month: Counter[str] = field(default_factory=Counter)  # "2024-05" -> count
    by_day: Counter[str] = field(default_factory=Counter)  # "2024-05-17" -> count
    changefreq: Counter[str] = field(default_factory=Counter)  # word, "invalid" or "missing"
    priority: Counter[str] = field(default_factory=Counter)  # "0.5", "invalid", "missing"
    urls_with_images: int = 0
    images: int = 0
    urls_with_videos: int = 0
    videos: int = 0
    urls_with_news: int = 0
    news: int = 0
    urls_with_alternates: int = 0
    alternates: int = 0
    hreflang: Counter[str] = field(default_factory=Counter)

    def merge(self, other: Aggregate) -> None:
        self.urls += other.urls
        self.unique = None
        for name in ("lastmod_min",):
            a, b = getattr(self, name), getattr(other, name)
            setattr(self, name, b if a is None else a if b is None else min(a, b))
        a, b = self.lastmod_max, other.lastmod_max
        self.lastmod_max = b if a is None else a if b is None else max(a, b)
        for name in (
            "lastmod_missing", "lastmod_invalid", "lastmod_future", "urls_with_images", "images",
            "urls_with_videos", "videos", "urls_with_news", "news", "urls_with_alternates",
            "alternates",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("by_month", "by_day", "changefreq", "priority", "hreflang"):
            getattr(self, name).update(getattr(other, name))

    def by_year(self) -> Counter[str]:
        years: Counter[str] = Counter()
        for month, n in self.by_month.items():
            years[month[:4]] += n
        return years

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.__slots__:  # type: ignore[attr-defined]
            value = getattr(self, name)
            out[name] = dict(value) if isinstance(value, Counter) else value
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Aggregate:
        agg = cls()
        if not data:
            return agg
        for name in cls.__slots__:  # type: ignore[attr-defined]
            if name not in data:
                continue
            value = data[name]
            if isinstance(getattr(agg, name), Counter):
                setattr(agg, name, Counter(value or {}))
            else:
                setattr(agg, name, value)
        return agg


class FileAccumulator:
    """Feeds entries of one file into an Aggregate."""

    def __init__(self, now: datetime | None = None) -> None:
        self.agg = Aggregate(unique=0)
        self._seen: set[bytes] = set()
        self._now = int((now or datetime.now(UTC)).timestamp())

    def add(self, entries: list[Entry]) -> None:
        agg = self.agg
        seen = self._seen
        for e in entries:
            agg.urls += 1
            if e.loc:
                key = url_key(e.loc)
                if key not in seen:
                    seen.add(key)
            lm = e.lastmod
            if lm is not None:
                ts = int(lm.timestamp())
                if agg.lastmod_min is None or ts < agg.lastmod_min:
                    agg.lastmod_min = ts
                if agg.lastmod_max is None or ts > agg.lastmod_max:
                    agg.lastmod_max = ts
                if ts > self._now + 86400:
                    agg.lastmod_future += 1
                day = f"{lm.year:04d}-{lm.month:02d}-{lm.day:02d}"
                agg.by_day[day] += 1
                agg.by_month[day[:7]] += 1
            elif e.lastmod_raw is None:
                agg.lastmod_missing += 1
            else:
                agg.lastmod_invalid += 1
            if e.changefreq is not None:
                agg.changefreq[e.changefreq] += 1
            else:
                agg.changefreq["missing" if e.changefreq_raw is None else "invalid"] += 1
            if e.priority is not None:
                agg.priority[f"{e.priority:.1f}"] += 1
            else:
                agg.priority["missing" if e.priority_raw is None else "invalid"] += 1
            if e.images:
                agg.urls_with_images += 1
                agg.images += len(e.images)
            if e.videos:
                agg.urls_with_videos += 1
                agg.videos += len(e.videos)
            if e.news:
                agg.urls_with_news += 1
                agg.news += len(e.news)
            if e.alternates:
                agg.urls_with_alternates += 1
                agg.alternates += len(e.alternates)
                for alt in e.alternates:
                    if alt.hreflang:
                        agg.hreflang[alt.hreflang.strip().lower()[:35]] += 1
        agg.unique = len(seen)

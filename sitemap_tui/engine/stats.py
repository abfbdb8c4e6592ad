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

HREFLANG_KEPT = 35  # characters of an hreflang value Aggregate.hreflang keeps


def hreflang_key(code: str) -> str:
    """An hreflang value as Aggregate.hreflang counts it, and ``lang:CODE`` asks for it."""
    return code.strip().lower()[:HREFLANG_KEPT]


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
    # entries with no URL in them, not listed nor counted in ``urls``: a <url> or <sitemap>
    # without <loc> (or an empty one), a feed item without a link, a text line that is no URL
    no_url: int = 0
    relative: int = 0  # listed entries whose relative <loc> was resolved against the file's URL
    # what was read otherwise than written, by kind (filejob.noted_kind): elements not read,
    # a body unpacked twice, a file read in the non-UTF-8 encoding it declares
    noted: Counter[str] = field(default_factory=Counter)

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
            "alternates", "no_url", "relative",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("by_month", "by_day", "changefreq", "priority", "hreflang", "noted"):
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
    """Feeds entries of one file into an Aggregate (the hot path of every streamed URL)."""

    def __init__(self, now: datetime | None = None) -> None:
        self.agg = Aggregate(unique=0)
        # Python's str hash is 64-bit and stable within a process: enough to count the
        # distinct URLs of one file at 8 bytes per URL
        self._seen: set[int] = set()
        self._now = int((now or datetime.now(UTC)).timestamp())
        self._dates: dict[str, tuple[int, str]] = {}  # raw lastmod -> (ts, "YYYY-MM-DD")
        self._day_names: dict[float, str] = {}  # day number since 1970 -> "YYYY-MM-DD"
        self._buckets: dict[float, str] = {}  # priority -> its one-decimal bucket

    def add(self, entries: list[Entry]) -> None:
        agg = self.agg
        seen = self._seen
        dates = self._dates
        day_names = self._day_names
        buckets = self._buckets
        by_day: dict[str, int] = {}
        changefreq = agg.changefreq
        priority = agg.priority
        lm_min, lm_max = agg.lastmod_min, agg.lastmod_max
        future_after = self._now + 86400
        for e in entries:
            if e.loc:
                seen.add(hash(e.loc))
            lm = e.lastmod
            if lm is not None:
                raw = e.lastmod_raw or ""
                cached = dates.get(raw)
                if cached is None:
                    # a site whose every lastmod differs misses the cache on every URL: its day
                    # then comes from a cache of the few thousand days (POSIX days are whole
                    # 86,400 s, so the day number is the UTC date lm's own fields give)
                    t = lm.timestamp()
                    number = t // 86400
                    name = day_names.get(number)
                    if name is None:
                        name = day_names[number] = f"{lm.year:04d}-{lm.month:02d}-{lm.day:02d}"
                    cached = (int(t), name)
                    if len(dates) > 4096:
                        dates.clear()
                    dates[raw] = cached
                ts, day = cached
                if lm_min is None or ts < lm_min:
                    lm_min = ts
                if lm_max is None or ts > lm_max:
                    lm_max = ts
                if ts > future_after:
                    agg.lastmod_future += 1
                by_day[day] = by_day.get(day, 0) + 1
            elif e.lastmod_raw is None:
                agg.lastmod_missing += 1
            else:
                agg.lastmod_invalid += 1
            cf = e.changefreq
            if cf is None:
                cf = "missing" if e.changefreq_raw is None else "invalid"
            changefreq[cf] += 1
            pr = e.priority
            if pr is not None:
                bucket = buckets.get(pr)
                if bucket is None:
                    bucket = buckets[pr] = f"{pr:.1f}"
                priority[bucket] += 1
            else:
                priority["missing" if e.priority_raw is None else "invalid"] += 1
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
                        agg.hreflang[alt.hreflang.strip().lower()[:HREFLANG_KEPT]] += 1  # hreflang_key, inlined: once per link
        agg.urls += len(entries)
        agg.lastmod_min, agg.lastmod_max = lm_min, lm_max
        if by_day:
            agg.by_day.update(by_day)
            months: dict[str, int] = {}
            for day, n in by_day.items():
                months[day[:7]] = months.get(day[:7], 0) + n
            agg.by_month.update(months)
        agg.unique = len(seen)

#!/usr/bin/env python3
"""Seeded generator of the benchmark's sitemaps (stdlib only).

Writes into bench/.work/data/ (gitignored) by default:

  urlset-50k.xml(.gz)   50,000 URLs: loc, lastmod, changefreq, priority (~10 MB)
  heavy-50k.xml(.gz)    50,000 URLs, each with 2 image:image and 3 xhtml:link (~49 MB, < 50 MiB)
  feed-50k.rss          RSS 2.0 feed with 50,000 items
  urls-50k.txt          text sitemap, 50,000 lines
  big/index.xml         index of 200 gzipped children x 50,000 URLs = 10,000,000 URLs
  big/child-NNN.xml.gz  (generated in parallel processes; every URL unique across the whole set)
  tui/index.xml         index of 20 gzipped children x 50,000 URLs (for the TUI benchmark)
  tui/child-NN.xml.gz
  manifest.json         what was generated: counts, sizes, seed, scale

About 5% of the URLs are IRIs (raw non-ASCII paths, UTF-8) and about 10% carry a query with
`&amp;`-escaped ampersands. Index files hold the placeholder `@@BASE@@` in their <loc>s; bench/server.py
replaces it with `http://<Host header>` when serving, so the files work on any port.

Examples:
  python bench/generate.py                       # everything at full size (~330 MB on disk, ~40 s CPU)
  python bench/generate.py --sets small,heavy    # only some sets
  python bench/generate.py --scale 0.1           # 10x fewer URLs per file, 10x fewer index children
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / ".work" / "data"
SETS = ("small", "heavy", "feed", "text", "big", "tui")
FORMAT_VERSION = 4  # bump when the content changes, so cached data is regenerated

SM_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMG_NS = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML_NS = "http://www.w3.org/1999/xhtml"

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu", "red", "green", "blue", "yellow", "orange", "purple", "garden", "kitchen", "outdoor", "travel", "summer", "winter", "autumn", "spring", "classic", "modern", "vintage", "premium", "basic", "pro", "lite", "max", "mini", "ultra", "smart", "fast", "slow", "quiet", "bright", "dark", "light", "heavy", "wooden", "steel", "cotton", "leather", "glass"]
IRI_WORDS = ("café", "über", "straße", "niño", "crème-brûlée", "日本語", "商品", "カテゴリ", "электроника",
             "منتجات", "χρήστης", "ñandú", "smörgåsbord", "größe", "déjà-vu")
SECTIONS = ("products", "blog", "news", "category", "help", "store", "guides", "reviews")
CHANGEFREQS = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")
LANGS = ("en", "de", "fr")

CHUNK_ENTRIES = 2000  # entries joined per write: large buffered writes


# -- pools: precomputed once per process, picked with Random.choices (fast) --------------------
def _pools(seed: int) -> dict[str, list[str]]:
    rng = random.Random(seed)
    slugs = ["-".join(rng.choice(WORDS) for _ in range(rng.randint(2, 4))) for _ in range(4096)]
    iris = ["/".join(rng.sample(IRI_WORDS, 2)) for _ in range(512)]
    queries = [
        f"?ref=sitemap&amp;page={rng.randint(1, 50)}&amp;sort={rng.choice(('asc', 'desc'))}"
        for _ in range(256)
    ]
    lastmods = []
    for _ in range(4096):
        y, mo, d = rng.randint(2015, 2025), rng.randint(1, 12), rng.randint(1, 28)
        if rng.random() < 0.2:
            lastmods.append(f"{y:04d}-{mo:02d}-{d:02d}")
        else:
            h, mi, s = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
            lastmods.append(f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}+00:00")
    hashes = [f"{rng.getrandbits(128):032x}" for _ in range(256)]  # Magento-style image cache dirs
    return {"slugs": slugs, "iris": iris, "queries": queries, "lastmods": lastmods, "hashes": hashes}


_POOLS: dict[int, dict[str, list[str]]] = {}


def pools(seed: int) -> dict[str, list[str]]:
    if seed not in _POOLS:
        _POOLS[seed] = _pools(seed)
    return _POOLS[seed]


def _paths(rng: random.Random, p: dict[str, list[str]], n: int, tag: str) -> list[str]:
    """n unique URL paths (with query), unique thanks to the `tag` (file id) and the index."""
    sections = rng.choices(SECTIONS, k=n)
    slugs = rng.choices(p["slugs"], k=n)
    kinds = rng.choices((0, 1, 2), weights=(85, 5, 10), k=n)  # plain, IRI, query
    iris = rng.choices(p["iris"], k=n)
    queries = rng.choices(p["queries"], k=n)
    out = []
    for i in range(n):
        k = kinds[i]
        if k == 1:
            out.append(f"/{iris[i]}/{slugs[i]}-{tag}-{i}")
        elif k == 2:
            out.append(f"/{sections[i]}/{slugs[i]}-{tag}-{i}{queries[i]}")
        else:
            out.append(f"/{sections[i]}/{slugs[i]}-{tag}-{i}")
    return out


class Sink:
    """Buffered writer of one file, optionally also its gzip form (level 6, zlib streaming)."""

    def __init__(self, path: Path, *, plain: bool = True, gz: bool = False) -> None:
        self.path = path
        self.plain = open(path, "wb", buffering=1 << 20) if plain else None  # noqa: SIM115
        self.gzf = open(str(path) + ".gz", "wb", buffering=1 << 20) if gz else None  # noqa: SIM115
        self.z = zlib.compressobj(6, zlib.DEFLATED, 31) if gz else None
        self.size = 0

    def write(self, text: str) -> None:
        data = text.encode("utf-8")
        self.size += len(data)
        if self.plain:
            self.plain.write(data)
        if self.z:
            self.gzf.write(self.z.compress(data))

    def close(self) -> dict[str, int]:
        out = {"decoded_bytes": self.size}
        if self.plain:
            self.plain.close()
        if self.z:
            self.gzf.write(self.z.flush())
            self.gzf.close()
            out["gz_bytes"] = os.path.getsize(str(self.path) + ".gz")
        return out


# -- urlsets -----------------------------------------------------------------------------------
def write_urlset(path: Path, n: int, seed: int, tag: str, *, heavy: bool = False, plain: bool = True,
                 gz: bool = False, host: str = "https://www.example.com") -> dict[str, int]:
    p = pools(seed)
    rng = random.Random(f"{seed}:{tag}")
    sink = Sink(path, plain=plain, gz=gz)
    if heavy:
        sink.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM_NS}" '
                   f'xmlns:image="{IMG_NS}" xmlns:xhtml="{XHTML_NS}">\n')
    else:
        sink.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM_NS}">\n')
    paths = _paths(rng, p, n, tag)
    lastmods = rng.choices(p["lastmods"], k=n)
    freqs = rng.choices(CHANGEFREQS, k=n)
    prios = rng.choices(("0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0"), k=n)
    if heavy:
        img_slugs = rng.choices(p["slugs"], k=n)
        hashes = rng.choices(p["hashes"], k=n)
    buf: list[str] = []
    for i in range(n):
        if heavy:
            path_i = paths[i]
            s = img_slugs[i]
            img = f"https://images.example.com/media/catalog/product/cache/{hashes[i]}/{tag}/{i}"
            buf.append(
                f"  <url>\n    <loc>{host}/en{path_i}</loc>\n    <lastmod>{lastmods[i]}</lastmod>\n"
                f"    <changefreq>{freqs[i]}</changefreq>\n    <priority>{prios[i]}</priority>\n"
                f"    <image:image>\n      <image:loc>{img}/main-{s}-large-format-1600x1200.jpg</image:loc>\n"
                f"    </image:image>\n"
                f"    <image:image>\n      <image:loc>{img}/detail-{s}-large-format-1600x1200.jpg</image:loc>\n"
                f"    </image:image>\n"
                f'    <xhtml:link rel="alternate" hreflang="en" href="{host}/en{path_i}"/>\n'
                f'    <xhtml:link rel="alternate" hreflang="de" href="{host}/de{path_i}"/>\n'
                f'    <xhtml:link rel="alternate" hreflang="fr" href="{host}/fr{path_i}"/>\n'
                f"  </url>\n"
            )
        else:
            buf.append(
                f"  <url>\n    <loc>{host}{paths[i]}</loc>\n    <lastmod>{lastmods[i]}</lastmod>\n"
                f"    <changefreq>{freqs[i]}</changefreq>\n    <priority>{prios[i]}</priority>\n  </url>\n"
            )
        if len(buf) >= CHUNK_ENTRIES:
            sink.write("".join(buf))
            buf.clear()
    buf.append("</urlset>\n")
    sink.write("".join(buf))
    out = sink.close()
    out["urls"] = n
    return out


def write_feed(path: Path, n: int, seed: int, host: str = "https://www.example.com") -> dict[str, int]:
    from datetime import UTC, datetime
    from email.utils import format_datetime

    p = pools(seed)
    rng = random.Random(f"{seed}:feed")
    paths = _paths(rng, p, n, "feed")
    dates = [format_datetime(datetime(rng.randint(2015, 2025), rng.randint(1, 12), rng.randint(1, 28),
                                      rng.randint(0, 23), rng.randint(0, 59), tzinfo=UTC))
             for _ in range(1024)]
    picks = rng.choices(dates, k=n)
    titles = rng.choices(p["slugs"], k=n)
    sink = Sink(path)
    sink.write('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0">\n<channel>\n'
               f"  <title>Benchmark feed</title>\n  <link>{host}/</link>\n"
               "  <description>Generated by bench/generate.py</description>\n")
    buf: list[str] = []
    for i in range(n):
        url = f"{host}{paths[i]}"
        buf.append(f"  <item>\n    <title>{titles[i].replace('-', ' ')}</title>\n    <link>{url}</link>\n"
                   f"    <guid>{url}</guid>\n    <pubDate>{picks[i]}</pubDate>\n  </item>\n")
        if len(buf) >= CHUNK_ENTRIES:
            sink.write("".join(buf))
            buf.clear()
    buf.append("</channel>\n</rss>\n")
    sink.write("".join(buf))
    out = sink.close()
    out["urls"] = n
    return out


def write_text(path: Path, n: int, seed: int, host: str = "https://www.example.com") -> dict[str, int]:
    p = pools(seed)
    rng = random.Random(f"{seed}:text")
    paths = _paths(rng, p, n, "text")
    sink = Sink(path)
    for start in range(0, n, CHUNK_ENTRIES * 5):
        sink.write("".join(f"{host}{q.replace('&amp;', '&')}\n" for q in paths[start:start + CHUNK_ENTRIES * 5]))
    out = sink.close()
    out["urls"] = n
    return out


def write_index(path: Path, child_paths: list[str], seed: int) -> dict[str, int]:
    p = pools(seed)
    rng = random.Random(f"{seed}:index:{path.name}")
    lastmods = rng.choices(p["lastmods"], k=len(child_paths))
    body = [f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SM_NS}">\n']
    for child, lm in zip(child_paths, lastmods, strict=True):
        body.append(f"  <sitemap>\n    <loc>@@BASE@@/{child}</loc>\n    <lastmod>{lm}</lastmod>\n  </sitemap>\n")
    body.append("</sitemapindex>\n")
    data = "".join(body).encode()
    path.write_bytes(data)
    return {"decoded_bytes": len(data), "children": len(child_paths)}


# -- tasks (run in a process pool) --------------------------------------------------------------
def _task(kind: str, out: str, n: int, seed: int, tag: str) -> tuple[str, dict[str, int]]:
    path = Path(out)
    if kind == "small":
        return out, write_urlset(path, n, seed, tag, gz=True)
    if kind == "heavy":
        return out, write_urlset(path, n, seed, tag, heavy=True, gz=True)
    if kind == "child":
        return out, write_urlset(path, n, seed, tag, plain=False, gz=True)
    if kind == "feed":
        return out, write_feed(path, n, seed)
    if kind == "text":
        return out, write_text(path, n, seed)
    raise ValueError(kind)


def plan(args: argparse.Namespace) -> dict[str, object]:
    per_file = max(1, round(50_000 * args.scale)) if args.urls is None else args.urls
    children = max(1, round(200 * args.scale)) if args.children is None else args.children
    tui_children = max(1, round(20 * args.scale)) if args.tui_children is None else args.tui_children
    return {"format": FORMAT_VERSION, "seed": args.seed, "per_file": per_file,
            "children": children, "tui_children": tui_children}


def generate(out_dir: Path, sets: list[str], *, seed: int = 42, scale: float = 1.0, urls: int | None = None,
             children: int | None = None, tui_children: int | None = None, jobs: int | None = None,
             force: bool = False, quiet: bool = False) -> dict[str, object]:
    args = argparse.Namespace(seed=seed, scale=scale, urls=urls, children=children, tui_children=tui_children)
    params = plan(args)
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest_path = out_dir / "manifest.json"
    manifest: dict[str, object] = {}
    if manifest_path.exists() and not force:
        try:
            manifest = json.loads(manifest_path.read_text())
        except ValueError:
            manifest = {}
    if manifest.get("params") != params:
        manifest = {"params": params, "sets": {}}
    done: dict[str, object] = manifest["sets"]  # type: ignore[assignment]
    n = int(params["per_file"])
    todo = [s for s in sets if s not in done or force]
    if not todo:
        if not quiet:
            print(f"generate: {', '.join(sets)} already in {out_dir} (use --force to redo)", file=sys.stderr)
        return manifest
    t0 = time.perf_counter()
    tasks: list[tuple[str, tuple]] = []
    for s in todo:
        if s == "small":
            tasks.append((s, ("small", str(out_dir / "urlset-50k.xml"), n, seed, "s")))
        elif s == "heavy":
            tasks.append((s, ("heavy", str(out_dir / "heavy-50k.xml"), n, seed, "h")))
        elif s == "feed":
            tasks.append((s, ("feed", str(out_dir / "feed-50k.rss"), n, seed, "f")))
        elif s == "text":
            tasks.append((s, ("text", str(out_dir / "urls-50k.txt"), n, seed, "t")))
        elif s in ("big", "tui"):
            sub = out_dir / s
            sub.mkdir(exist_ok=True)
            for old in sub.glob("child-*"):
                old.unlink()
            count = int(params["children"] if s == "big" else params["tui_children"])
            width = max(3 if s == "big" else 2, len(str(count - 1)))
            for c in range(count):
                tasks.append((s, ("child", str(sub / f"child-{c:0{width}d}.xml"), n, seed, f"{s}{c}")))
        else:
            raise SystemExit(f"unknown set {s!r} (choose from {', '.join(SETS)})")
    results: dict[str, list[tuple[str, dict[str, int]]]] = {s: [] for s in todo}
    workers = jobs or os.cpu_count() or 1
    if workers > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=min(workers, len(tasks))) as pool:
            futs = [(s, pool.submit(_task, *a)) for s, a in tasks]
            for s, f in futs:
                results[s].append(f.result())
    else:
        for s, a in tasks:
            results[s].append(_task(*a))
    for s in todo:
        if s in ("big", "tui"):
            files = sorted(results[s])
            names = [f"{s}/{Path(f).name}.gz" for f, _ in files]
            idx = write_index(out_dir / s / "index.xml", names, seed)
            done[s] = {
                "index": f"{s}/index.xml", "children": len(files), "urls": sum(r["urls"] for _, r in files),
                "decoded_bytes": sum(r["decoded_bytes"] for _, r in files) + idx["decoded_bytes"],
                "gz_bytes": sum(r["gz_bytes"] for _, r in files) + idx["decoded_bytes"],
            }
        else:
            f, r = results[s][0]
            done[s] = {"file": Path(f).name, **r}
            if "gz_bytes" in r:
                done[s]["gz_file"] = Path(f).name + ".gz"
    if "heavy" in done and int(params["per_file"]) == 50_000:
        size = done["heavy"]["decoded_bytes"]  # type: ignore[index]
        assert size < 50 * 1024 * 1024, f"heavy file is {size} bytes, over 50 MiB"
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    if not quiet:
        print(f"generate: {', '.join(todo)} in {time.perf_counter() - t0:.1f}s -> {out_dir}", file=sys.stderr)
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    ap.add_argument("--sets", default=",".join(SETS), help=f"comma-separated subset of {','.join(SETS)}")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--scale", type=float, default=1.0,
                    help="multiplies URLs per file (50,000) and the index sizes (200 and 20 children)")
    ap.add_argument("--urls", type=int, help="URLs per file (overrides --scale)")
    ap.add_argument("--children", type=int, help="children of the big index (overrides --scale)")
    ap.add_argument("--tui-children", type=int, help="children of the TUI index (overrides --scale)")
    ap.add_argument("--jobs", type=int, help="parallel processes (default: all cores)")
    ap.add_argument("--force", action="store_true", help="regenerate even when the manifest matches")
    a = ap.parse_args(argv)
    sets = [s.strip() for s in a.sets.split(",") if s.strip()]
    manifest = generate(a.out, sets, seed=a.seed, scale=a.scale, urls=a.urls, children=a.children,
                        tui_children=a.tui_children, jobs=a.jobs, force=a.force)
    for name in sets:
        print(name, json.dumps(manifest["sets"][name]))  # type: ignore[index]
    return 0


if __name__ == "__main__":
    sys.exit(main())

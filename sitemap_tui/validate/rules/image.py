"""The image extension (<image:image>)."""

from __future__ import annotations

from functools import lru_cache

from sitemap_tui.engine.model import Entry, Image, Issue
from sitemap_tui.validate.checkstate import (
    IMAGE_DEPRECATED,
    IMAGE_ORDER,
    MAX_IMAGES,
    FileContext,
    FileState,
    _local,
    tally,
)
from sitemap_tui.validate.rules import ERR, INFO, WARN, Rule, make_issue
from sitemap_tui.validate.urlcheck import UrlParts, url_problem_and_host

RULES: tuple[Rule, ...] = (
    Rule(
        id="image-loc-missing",
        scope="extension",
        severity=ERR,
        title="<image:image> without <image:loc>",
        message="<image:image> has no <image:loc>, or it is empty",
        explanation=(
            "An `<image:image>` has no `<image:loc>`, or it is empty. `image:image` and "
            "`image:loc` are the only required image tags."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps",
        decided_by=("image.check_images",),
    ),
    Rule(
        id="image-too-many",
        scope="extension",
        severity=ERR,
        title="More than 1,000 images in one <url>",
        message="{count:,} <image:image> elements in one <url> (limit 1,000)",
        explanation="More than 1,000 `<image:image>` elements in one `<url>`.",
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps",
        decided_by=("image.check_images",),
    ),
    Rule(
        id="image-loc-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid image URL",
        message="image URL {value!r} is invalid: {reason}",
        explanation=(
            "`<image:loc>` is not an absolute http(s) URL: the same checks as loc-invalid-uri and "
            "loc-not-absolute, applied to the image URL."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps",
        decided_by=("image.check_images",),
    ),
    Rule(
        id="image-loc-other-host",
        sample=True,
        scope="extension",
        severity=INFO,
        title="Images on another host",
        message="images on host {host!r}, pages on {page_host!r} (images: {count:,}); both hosts must be verified in Search Console",
        explanation=(
            "`<image:loc>` is on a different host from the page, for example a CDN. Google allows "
            "this provided both hosts are verified in Search Console. The location-* rules do not "
            "apply to image URLs."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps",
        decided_by=("image.check_images",),
    ),
    Rule(
        id="image-deprecated-tags",
        sample=True,
        scope="extension",
        severity=WARN,
        title="Deprecated image tag",
        message="deprecated <image:{tag}>, without effect since August 2022 (occurrences: {count:,})",
        explanation=(
            "One of `image:caption`, `image:title`, `image:geo_location`, `image:license` is "
            "present. Google deprecated them in May 2022, and since 6 Aug 2022 they have no "
            'effect. Google says you can leave them "without drawbacks", and Search Console may '
            "warn in future."
        ),
        source="https://developers.google.com/search/blog/2022/05/spring-cleaning-sitemap-extensions",
        decided_by=("image.check_images",),
    ),
    Rule(
        id="image-element-order",
        scope="extension",
        severity=WARN,
        title="<image:image> children out of schema order",
        message=(
            "<image:image> children are not in schema order (loc, caption, geo_location, title, "
            "license): {order}"
        ),
        explanation=(
            "The children of `<image:image>` are not in XSD order (`loc`, `caption`, "
            "`geo_location`, `title`, `license`). Only the schema requires this order."
        ),
        source="https://www.google.com/schemas/sitemap-image/1.1/sitemap-image.xsd",
        decided_by=("image.check_images",),
    ),
)


# -- checks (called by the streaming checker, validate/checker.py) --------------------


def check_images(ctx: FileContext,
    st: FileState,
    entry: Entry,
    page: UrlParts | None,
    line: int | None,
    url: str | None,
    out: list[Issue],
) -> None:
    nid = ctx.node_id
    images = entry.images
    if len(images) > MAX_IMAGES:
        out.append(
            make_issue("image-too-many", node_id=nid, line=line, url=url, count=len(images))
        )
    img: Image
    for img in images:
        iline = img.line or line
        s = img.loc.strip() if img.loc else ""
        if not s:
            out.append(make_issue("image-loc-missing", node_id=nid, line=iline, url=url))
        else:
            why, host = url_problem_and_host(s)
            if why is not None:
                out.append(
                    make_issue(
                        "image-loc-invalid",
                        node_id=nid,
                        line=img.loc_line or iline,  # the <image:loc>, not the <image:image> above it
                        url=url,
                        value=s,
                        reason=why,
                    )
                )
            elif page is not None and host and host != page.host:
                t = st.tallies.get(("image-loc-other-host", host))
                if t is not None and t.count:
                    t.count += 1  # counted before in this file: no fields to merge for a count
                else:
                    tally(
                        st,
                        "image-loc-other-host",
                        host,
                        img.loc_line or iline,
                        url,
                        host=host,
                        page_host=page.host,
                    )
        tags = img.tags
        if tags:
            bad_order, deprecated = image_tags_verdict(tuple(tags))
            for name in deprecated:
                tally(st, "image-deprecated-tags", name, iline, url, tag=name)
            if bad_order:
                out.append(
                    make_issue(
                        "image-element-order",
                        node_id=nid,
                        line=iline,
                        url=url,
                        order=", ".join(tags),
                    )
                )
        else:
            for name in IMAGE_DEPRECATED:
                if getattr(img, name) is not None:
                    tally(st, "image-deprecated-tags", name, iline, url, tag=name)


@lru_cache(maxsize=1024)  # a file's images have a handful of child sequences
def image_tags_verdict(tags: tuple[str, ...]) -> tuple[bool, tuple[str, ...]]:
    """For one ``<image:image>``'s children: whether the known ones are out of the schema's
    order, and the deprecated ones met, in document order (each one a tally)."""
    last = -1
    bad_order = False
    deprecated: list[str] = []
    for t in tags:
        name = _local(t)
        rank = IMAGE_ORDER.get(name)
        if rank is None:
            continue
        if rank < last:
            bad_order = True
        last = max(last, rank)
        if rank:
            deprecated.append(name)
    return bad_order, tuple(deprecated)

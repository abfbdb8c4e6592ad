"""Rules over all the files of an exploration at once (run after it, over the store)."""

from __future__ import annotations

from sitemap_tui.validate.rules import ERR, INFO, WARN, Rule

RULES: tuple[Rule, ...] = (
    Rule(
        id="index-gsc-limit",
        scope="cross-file",
        severity=INFO,
        title="More than 500 sitemap index files",
        message="{count:,} sitemap index files for one site; Search Console accepts at most 500",
        explanation=(
            "More than 500 sitemap index files for one site. Search Console accepts at most 500 "
            "index submissions per site."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/large-sitemaps",
        decided_by=("cross-file",),
    ),
    Rule(
        id="hreflang-no-return-link",
        scope="cross-file",
        severity=ERR,
        title="hreflang without a return link",
        message="{target} is listed as an alternate, but its entry does not list this URL back",
        explanation=(
            "URL A lists B as an alternate, but B's `<url>` entry (in any sitemap of the set) "
            "does not list A. Google ignores annotations that are not confirmed from both sides. "
            "When B is not in any sitemap, hreflang-target-not-in-sitemaps is reported instead."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
        decided_by=("cross-file",),
    ),
    Rule(
        id="hreflang-cluster-inconsistent",
        scope="cross-file",
        severity=WARN,
        title="hreflang cluster inconsistent",
        message="members of the hreflang cluster disagree: {detail}",
        explanation=(
            "Members of one hreflang cluster list different sets of alternates, or give one URL "
            "different language codes. Every version should list the same complete set."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
        decided_by=("cross-file",),
    ),
    Rule(
        id="hreflang-target-not-in-sitemaps",
        scope="cross-file",
        severity=INFO,
        title="hreflang target not in any sitemap",
        message="alternate {target} is not a <loc> in any sitemap of the set",
        explanation=(
            "An alternate `href` is not a `<loc>` in any sitemap of the set, so its return link "
            "cannot be checked from sitemaps alone. The deep check can fetch the page and look."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
        decided_by=("cross-file",),
    ),
    Rule(
        id="cross-duplicate-url",
        scope="cross-file",
        severity=INFO,
        title="URL listed in several sitemaps",
        message="the URL is also listed in {other}",
        explanation=(
            "The same normalised URL is listed in more than one sitemap of the set. This is legal, "
            "but redundant."
        ),
        source=(
            "https://www.sitemaps.org/faq.html ; "
            "https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls"
        ),
        decided_by=("cross-file",),
    ),
    Rule(
        id="cross-duplicate-conflicting",
        scope="cross-file",
        severity=WARN,
        title="URL listed with conflicting data",
        message="the URL is also listed in {other} with a different {what}",
        explanation=(
            "The same URL appears in several sitemaps with different `lastmod` values or different "
            "hreflang sets, which are contradictory signals. This is a heuristic."
        ),
        source=(
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping ; "
            "https://developers.google.com/search/docs/specialty/international/localized-versions"
        ),
        decided_by=("cross-file",),
    ),
    Rule(
        id="cross-mixed-scheme",
        scope="cross-file",
        severity=WARN,
        title="Both http and https listed",
        message="host {host!r} is listed with both http and https",
        explanation=(
            "The set lists the same host under both `http://` and `https://`. The FAQ says to list "
            "one version only; listing both can lead to incomplete crawling."
        ),
        source='https://www.sitemaps.org/faq.html ("My site has both http and https versions…")',
        decided_by=("cross-file",),
    ),
    Rule(
        id="cross-mixed-www",
        scope="cross-file",
        severity=WARN,
        title="Both www and bare host listed",
        message="both {host!r} and {other_host!r} are listed",
        explanation=(
            "The set lists both `www.` and bare-host variants of the same site. Each file may only "
            "hold one host, and the two variants are duplicate canonicals."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html §Sitemap file location ; "
            "https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls"
        ),
        decided_by=("cross-file",),
    ),
    Rule(
        id="cross-trailing-slash-variants",
        scope="cross-file",
        severity=WARN,
        title="Trailing-slash variants listed",
        message="{url} and {other} are both listed",
        explanation=(
            "Both `/path` and `/path/` (or `/dir/` and `/dir/index.html`) appear in the set. At "
            "most one can be canonical. This is a heuristic."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls",
        decided_by=("cross-file",),
    ),
    Rule(
        id="cross-mobile-and-desktop",
        scope="cross-file",
        severity=INFO,
        title="Mobile and desktop URLs listed",
        message="mobile host {host!r} is listed alongside {other_host!r}",
        explanation=(
            "Separate mobile URLs (`m.` host) are listed alongside desktop URLs. Google recommends "
            "listing only one version unless they are annotated."
        ),
        source="https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap",
        decided_by=("cross-file",),
    ),
    Rule(
        id="index-cycle",
        scope="cross-file",
        severity=ERR,
        title="Sitemap index cycle",
        message="{url} was reached again: {path}",
        explanation=(
            "While following indexes, a sitemap URL is reached again (A→B→A, or an index listing "
            "itself). The traversal stops there. A cycle also implies index-nested."
        ),
        source=(
            "https://www.sitemaps.org/protocol.html#index ; "
            "https://support.google.com/webmasters/answer/7451001"
        ),
        decided_by=("explore",),
    ),
    Rule(
        id="lastmod-all-identical",
        scope="cross-file",
        severity=WARN,
        title="lastmod values all identical",
        message=(
            "{share:.0%} of {total:,} lastmod values are {value}: probably the generation time, "
            "not real dates"
        ),
        explanation=(
            "In one sitemap (and, separately, across the set), at least 95% of the `<lastmod>` "
            "values are the same instant or the same calendar day, counting only when at least 20 "
            "URLs have a `<lastmod>`. The signal is stronger when that day is the sitemap's own "
            'fetch day or its HTTP `Last-Modified`. This is the typical sign of "generation '
            'time", not real modification dates. This is a heuristic (the thresholds are ours).'
        ),
        source=(
            "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping ; "
            "https://blogs.bing.com/webmaster/July-2025/Keeping-Content-Discoverable-with-Sitemaps-in-AI-Powered-Search "
            "; https://www.sitemaps.org/protocol.html §XML tag definitions"
        ),
        decided_by=("cross-file",),
    ),
    Rule(
        id="priority-all-equal",
        scope="cross-file",
        severity=INFO,
        title="priority values all equal",
        message="all {total:,} URLs have priority {value}",
        explanation=(
            "Every URL in a sitemap (or in the set) carries the same `<priority>`, for example all "
            "1.0. This gives no relative signal. It is moot for Google and Bing anyway."
        ),
        source=(
            "https://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd (tPriority annotation) ; "
            "https://www.sitemaps.org/faq.html"
        ),
        decided_by=("cross-file",),
    ),
)

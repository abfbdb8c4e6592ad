"""hreflang alternates (<xhtml:link rel="alternate">) within one entry."""

from __future__ import annotations

from sitemap_tui.validate.rules import ERR, INFO, WARN, Rule

RULES: tuple[Rule, ...] = (
    Rule(
        id="hreflang-namespace-missing",
        scope="extension",
        severity=ERR,
        title="xhtml namespace not declared",
        message='<{element}> is used without xmlns:xhtml="http://www.w3.org/1999/xhtml"{detail}',
        explanation=(
            '`xhtml:link` is used but `xmlns:xhtml="http://www.w3.org/1999/xhtml"` is not '
            "declared, or is declared with another URI."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
        decided_by=("checker",),
    ),
    Rule(
        id="hreflang-link-incomplete",
        scope="extension",
        severity=ERR,
        title="Incomplete xhtml:link",
        message="<xhtml:link> {reason}",
        explanation=(
            'An `xhtml:link` lacks `rel="alternate"`, `hreflang` or `href`, or has an empty one. A'
            ' `rel="alternate"` link with a `media` query and no `hreflang` is Google\'s annotation of'
            " a separate mobile URL, and one to an `android-app://` or `ios-app://` URL is an app deep"
            " link (the former App Indexing): neither is an hreflang link, and both are left alone, by"
            " this rule and the other hreflang rules."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
        decided_by=("checker",),
    ),
    Rule(
        id="hreflang-href-not-absolute",
        scope="extension",
        severity=ERR,
        title="hreflang href not absolute",
        message="hreflang href {value!r} is not an absolute http(s) URL: {reason}",
        explanation=(
            "`href` is not fully qualified with its scheme (`//example.com/foo` and `/foo` are "
            "wrong), or is not an http(s) URL at all (`None` written by a CMS, an invalid host)."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
        decided_by=("checker",),
    ),
    Rule(
        id="hreflang-code-invalid",
        scope="extension",
        severity=ERR,
        title="Invalid hreflang code",
        message="hreflang {value!r} is not a valid code{hint}",
        explanation=(
            "`hreflang` is neither `x-default` nor `language[-Script][-REGION]`, where the "
            "language is ISO 639-1 (2 letters), the optional script is ISO 15924 (4 letters, for "
            "example `zh-Hant`) and the optional region is ISO 3166-1 alpha-2. Comparison ignores "
            "case. Typical mistakes: `en-UK` (use `en-GB`), `es-LA`, `en_US` (underscore), "
            "`en-EU`, and a country code alone (`us`, `gb`). Google ignores invalid codes."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
        decided_by=("checker",),
    ),
    Rule(
        id="hreflang-missing-self",
        scope="extension",
        severity=ERR,
        title="hreflang alternates omit the URL itself",
        message="the xhtml:link alternates of this URL do not include the URL itself",
        explanation=(
            "Among the `xhtml:link` elements of a `<url>`, none has an `href` equal to that "
            "`<url>`'s own `<loc>`. Each entry must list every alternate, itself included."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
        decided_by=("checker",),
    ),
    Rule(
        id="hreflang-duplicate-code",
        scope="extension",
        severity=WARN,
        title="hreflang code mapped twice",
        message="hreflang {value!r} maps to several URLs: {hrefs}",
        explanation=(
            "One `<url>` maps the same `hreflang` value (case-insensitive) to two different "
            "`href`s, so engines cannot tell which to use. This is a heuristic."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
        decided_by=("checker",),
    ),
    Rule(
        id="hreflang-x-default-missing",
        scope="extension",
        severity=INFO,
        title="No x-default alternate",
        message="URLs with hreflang alternates but no x-default: {count:,}",
        explanation=(
            "The cluster has alternates but no `x-default`. This is optional but recommended, as "
            "the fallback for unmatched languages."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
        decided_by=("checker",),
    ),
    Rule(
        id="hreflang-no-generic-language",
        scope="extension",
        severity=INFO,
        title="Regional variants without a generic language",
        message="regional variants ({variants}) without a generic {language!r} alternate (URLs: {count:,})",
        explanation=(
            "The cluster has several regional variants of one language (`en-ie`, `en-ca`, …) but "
            "no generic one (`en`). Google recommends adding a generic URL."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
        decided_by=("checker",),
    ),
)

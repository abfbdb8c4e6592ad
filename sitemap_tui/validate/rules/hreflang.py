"""hreflang alternates (<xhtml:link rel="alternate">) within one entry."""

from __future__ import annotations

from functools import lru_cache

from sitemap_tui.engine import urlpolicy
from sitemap_tui.engine.model import Alternate, Entry, Issue
from sitemap_tui.validate.checkstate import (
    _APP_LINK_SCHEMES,
    _HREFLANG_HINTS,
    _HREFLANG_RE,
    FileContext,
    FileState,
    tally,
)
from sitemap_tui.validate.codes import ISO639_1, ISO3166_ALPHA2, ISO15924
from sitemap_tui.validate.rules import ERR, INFO, WARN, Rule, make_issue
from sitemap_tui.validate.urlcheck import absolute_url_problem

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
        decided_by=("elements.check_foreign_tag",),
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
        decided_by=("hreflang.check_alternates",),
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
        decided_by=("hreflang.check_alternates",),
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
        decided_by=("hreflang.check_alternates",),
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
        decided_by=("hreflang.check_alternates",),
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
        decided_by=("hreflang.check_alternates",),
    ),
    Rule(
        id="hreflang-x-default-missing",
        sample=True,
        scope="extension",
        severity=INFO,
        title="No x-default alternate",
        message="URLs with hreflang alternates but no x-default: {count:,}",
        explanation=(
            "The cluster has alternates but no `x-default`. This is optional but recommended, as "
            "the fallback for unmatched languages."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
        decided_by=("hreflang.check_alternates",),
    ),
    Rule(
        id="hreflang-no-generic-language",
        sample=True,
        scope="extension",
        severity=INFO,
        title="Regional variants without a generic language",
        message="regional variants ({variants}) without a generic {language!r} alternate (URLs: {count:,})",
        explanation=(
            "The cluster has several regional variants of one language (`en-ie`, `en-ca`, …) but "
            "no generic one (`en`). Google recommends adding a generic URL."
        ),
        source="https://developers.google.com/search/docs/specialty/international/localized-versions",
        decided_by=("hreflang.check_alternates",),
    ),
)


# -- checks (called by the streaming checker, validate/checker.py) --------------------


def check_alternates(ctx: FileContext,
    st: FileState,
    entry: Entry,
    page: str,
    line: int | None,
    url: str | None,
    out: list[Issue],
) -> None:
    nid = ctx.node_id
    codes: dict[str, set[str]] = {}
    spelled: dict[str, str] = {}
    hrefs: list[str] = []
    a: Alternate
    for a in entry.alternates:
        rel = (a.rel or "").strip()
        # the usual spelling first: .lower() only for the rare other ones
        alternate = rel == "alternate" or rel.lower() == "alternate"
        code = (a.hreflang or "").strip()
        href = (a.href or "").strip()
        if not code and alternate and (
            (a.media or "").strip() or href.lower().startswith(_APP_LINK_SCHEMES)
        ):
            # Google's annotation of a separate mobile URL, or an app deep link (the former
            # App Indexing): not hreflang links
            continue
        if not (alternate and code and href):
            problems = []
            if not rel:
                problems.append("has no rel")
            elif not alternate:
                problems.append(f'has rel={rel[:40]!r} instead of "alternate"')
            if not code:
                problems.append("has no hreflang")
            if not href:
                problems.append("has no href")
            out.append(
                make_issue(
                    "hreflang-link-incomplete",
                    node_id=nid,
                    line=a.line or line,
                    url=url,
                    reason=" and ".join(problems),
                )
            )
            if rel and not alternate:
                continue
        if href:
            why = absolute_url_problem(href)
            if why is not None:
                out.append(
                    make_issue(
                        "hreflang-href-not-absolute",
                        node_id=nid,
                        line=a.line or line,
                        url=url,
                        value=href,
                        reason=why,
                    )
                )
            hrefs.append(href)
        if code:
            hint = hreflang_problem(code)
            if hint is not None:
                out.append(
                    make_issue(
                        "hreflang-code-invalid",
                        node_id=nid,
                        line=a.line or line,
                        url=url,
                        value=code,
                        hint=hint,
                    )
                )
            key = code.lower()
            if key not in spelled:
                spelled[key] = code
            if href:
                targets = codes.get(key)
                if targets is None:
                    codes[key] = {href}
                else:
                    targets.add(href)
    if not hrefs and not codes:
        return
    for key, targets in codes.items():
        # the same URL written twice (https://example.com:443/de and https://example.com/de) is
        # one target; normalised only here, where two spellings met (rare: the hot path is not)
        if len(targets) > 1 and len({urlpolicy.normalize(t) for t in targets}) > 1:
            out.append(
                make_issue(
                    "hreflang-duplicate-code",
                    node_id=nid,
                    line=line,
                    url=url,
                    value=spelled[key],
                    hrefs=", ".join(sorted(targets)),
                )
            )
    if page and hrefs and page not in hrefs:
        mine = urlpolicy.normalize(page)
        if all(urlpolicy.normalize(h) != mine for h in hrefs):
            out.append(make_issue("hreflang-missing-self", node_id=nid, line=line, url=url))
    if not codes:
        return
    # the cluster's shape repeats from URL to URL: its verdict is worked out once per shape
    no_default, regional = cluster_verdict(tuple([(key, spelled[key]) for key in codes]))
    if no_default:
        tally(st, "hreflang-x-default-missing", "", line, url)
    for lang, variants in regional:
        tally(
            st,
            "hreflang-no-generic-language",
            lang,
            line,
            url,
            language=lang,
            variants=variants,
        )


@lru_cache(maxsize=4096)
def cluster_verdict(
    codes: tuple[tuple[str, str], ...],
) -> tuple[bool, tuple[tuple[str, str], ...]]:
    """For one URL's hreflang codes (lower-case code, as first spelled; in document order):
    whether x-default is missing, and each language with regional variants but no generic
    alternate, with those variants as listed in the finding."""
    keys = {key for key, _ in codes}
    regional: dict[str, list[str]] = {}
    for key, spelling in codes:
        lang, sep, rest = key.partition("-")
        if sep and rest and lang != "x":
            regional.setdefault(lang, []).append(spelling)
    return "x-default" not in keys, tuple(
        (lang, ", ".join(sorted(variants)))
        for lang, variants in regional.items()
        if len(variants) >= 2 and lang not in keys
    )


@lru_cache(maxsize=4096)  # a set repeats a few dozen codes millions of times
def hreflang_problem(code: str) -> str | None:
    """``None`` when ``code`` is a valid hreflang value, else a hint ("" when none fits)."""
    low = code.lower()
    if low == "x-default":
        return None
    hint = _HREFLANG_HINTS.get(low)
    if hint is not None:
        return hint
    if "_" in code:
        return f" (use '-' not '_': {code.replace('_', '-')})"
    m = _HREFLANG_RE.fullmatch(code)
    if m is None:
        return ""
    lang, script, region = m.groups()
    if lang.lower() not in ISO639_1:
        if len(lang) == 2 and lang.upper() in ISO3166_ALPHA2 and not script and not region:
            return " (a country code alone; hreflang needs a language first)"
        return f" ({lang!r} is not an ISO 639-1 language code)"
    if script and script.lower() not in ISO15924:
        return f" ({script!r} is not an ISO 15924 script)"
    if region:
        if region.isdigit():
            return f" ({region!r}: the region must be an ISO 3166-1 alpha-2 code)"
        if region.upper() not in ISO3166_ALPHA2:
            return f" ({region!r} is not an ISO 3166-1 alpha-2 country code)"
    return None

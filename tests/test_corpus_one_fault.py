"""One fault, one finding (issue 16 §1), over every real file of the corpus.

Each file is validated on its own with ``--xsd lax`` and with ``--xsd strict`` (in this
process, see ``corpus_table.py``). Two findings are about one element when they are in the same
file and either carry the same entry URL or, when one of them names no entry, sit on the same
line. Such a pair is a double when :data:`SAME_FAULT` says the two rules describe one fault
there, or when it is the same finding twice.
"""

from __future__ import annotations

import re
from collections import defaultdict
from itertools import combinations

import pytest
from corpus_table import Run, corpus_dir, corpus_runs

CORPUS = corpus_dir()

pytestmark = pytest.mark.skipif(CORPUS is None, reason="shared corpus not available")

_ELEMENT = r"Element '{}'"

#: (rule a, rule b, what b's message must match): findings of a and b on one element are one
#: fault. b is mostly xsd-invalid, the schema's umbrella rule, and the pattern names the
#: element or the kind of complaint that the specific rule a reports.
SAME_FAULT: list[tuple[str, str, str]] = [
    # structure of <url> and <sitemap>: the schema's sequence, told by the specific rules
    ("core-element-order", "xsd-invalid", "This element is not expected"),
    ("core-element-repeated", "xsd-invalid", "This element is not expected"),
    ("core-unknown-element", "xsd-invalid", "This element is not expected|Element content is not allowed"),
    ("loc-missing", "xsd-invalid", "Missing child element|Character content"),
    ("index-sitemap-loc-missing", "xsd-invalid", "Missing child element|Character content|Element 'loc'"),
    ("index-wrong-children", "xsd-invalid", "This element is not expected"),
    # values of the core elements
    *[
        (rule, "xsd-invalid", _ELEMENT.format("loc"))
        for rule in ("loc-empty", "loc-not-absolute", "loc-too-long", "loc-invalid-uri", "index-loc-invalid")
    ],
    *[
        (rule, "xsd-invalid", _ELEMENT.format("lastmod"))
        for rule in ("lastmod-invalid-format", "lastmod-w3c-but-xsd-invalid", "index-lastmod-invalid")
    ],
    ("changefreq-invalid", "xsd-invalid", _ELEMENT.format("changefreq")),
    ("priority-invalid", "xsd-invalid", _ELEMENT.format("priority")),
    ("core-unknown-attribute", "xsd-invalid", "attribute"),
    # one lastmod value, judged twice by the checker
    ("lastmod-invalid-format", "lastmod-xsd-valid-but-not-w3c", ""),
    ("index-lastmod-invalid", "lastmod-xsd-valid-but-not-w3c", ""),
    # extensions: the schema's sequence and values, told by the extension rules
    *[
        (rule, "xsd-invalid", "Element 'image:")
        for rule in ("image-element-order", "image-loc-missing", "image-loc-invalid")
    ],
    *[
        (rule, "xsd-invalid", "Element 'video:")
        for rule in (
            "video-element-order", "video-required-missing", "video-no-media-url",
            "video-files-not-accessible", "video-duration-range", "video-rating-range",
            "video-view-count-invalid", "video-date-invalid", "video-yes-no-invalid",
            "video-restriction-invalid", "video-platform-invalid", "video-uploader-invalid",
            "video-title-too-long", "video-description-too-long", "video-tag-too-many",
        )
    ],  # fmt: skip
    ("news-required-missing", "xsd-invalid", "Element 'news:"),
    ("news-language-invalid", "xsd-invalid", _ELEMENT.format("news:language")),
    ("news-date-invalid", "xsd-invalid", _ELEMENT.format("news:publication_date")),
    *[
        (rule, "xsd-invalid", "xhtml:link")
        for rule in (
            "hreflang-namespace-missing", "hreflang-link-incomplete", "hreflang-href-not-absolute",
            "hreflang-code-invalid",
        )
    ],  # fmt: skip
    # namespaces: an undeclared prefix or an unknown namespace is one fault wherever it shows
    ("ext-prefix-undeclared", "xsd-invalid", r"Element '[\w.-]+:[\w.-]+'"),
    ("hreflang-namespace-missing", "ext-prefix-undeclared", "xhtml"),
    ("ext-namespace-unknown", "xsd-invalid", "strict wildcard"),
    ("ext-namespace-wrong", "xsd-invalid", "strict wildcard"),
    ("index-extension-elements", "xsd-invalid", "strict wildcard"),
    # parse errors: one '&' or '<' stops the parser once
    ("xml-unescaped-char", "xml-not-well-formed", ""),
    ("xml-illegal-char", "xml-not-well-formed", ""),
    ("encoding-not-utf8", "xml-not-well-formed", "UTF-8|encoding"),
]
_RELATION: dict[frozenset[str], list[tuple[str, str, re.Pattern[str]]]] = defaultdict(list)
for _a, _b, _pattern in SAME_FAULT:
    _RELATION[frozenset((_a, _b))].append((_a, _b, re.compile(_pattern)))

Finding = dict[str, object]


def one_fault(x: Finding, y: Finding) -> bool:
    """True when x and y, found on one element, describe one fault."""
    if x["rule"] == y["rule"]:
        return x["message"] == y["message"]
    for a, b, pattern in _RELATION.get(frozenset((str(x["rule"]), str(y["rule"]))), ()):
        other = y if x["rule"] == a else x
        if other["rule"] == b and pattern.search(str(other["message"])):
            return True
    return False


def on_one_element(x: Finding, y: Finding) -> bool:
    if x["sitemap"] != y["sitemap"]:
        return False
    if x["url"] and y["url"]:
        return x["url"] == y["url"]
    return x["line"] is not None and x["line"] == y["line"]


def doubles(run: Run) -> list[str]:
    """Every pair of findings of one fault on one element, said in a line."""
    by_place: dict[object, list[Finding]] = defaultdict(list)
    for f in run.issues:
        by_place[f["line"]].append(f)
        if f["url"]:
            by_place[("url", f["url"])].append(f)
    out: set[str] = set()
    for group in by_place.values():
        for x, y in combinations(group, 2):
            if on_one_element(x, y) and one_fault(x, y):
                first, second = sorted((x, y), key=lambda f: str(f["rule"]))
                out.add(
                    f"line {x['line']}/{y['line']} {x['url'] or ''}: {first['rule']}"
                    f" ({first['message']}) ~ {second['rule']} ({second['message']})"
                )
    return sorted(out)


@pytest.mark.parametrize("mode", ["lax", "strict"])
def test_no_element_carries_two_findings_of_one_fault(mode: str) -> None:
    # lax is the default: the run the rule table measures (shared when both run in one process)
    runs = corpus_runs() if mode == "lax" else corpus_runs("--xsd", mode)
    found = {rel: d for rel, run in runs.items() if (d := doubles(run))}
    report = "\n".join(f"{rel}: {len(d)} doubles, e.g. {d[0]}" for rel, d in sorted(found.items()))
    assert not found, f"--xsd {mode}:\n{report}"


def _f(rule: str, line: int | None, url: str | None = None, message: str = "m") -> Finding:
    return {"rule": rule, "line": line, "url": url, "message": message, "sitemap": "s"}


def test_the_relation_itself() -> None:
    order = _f("core-element-order", 3, "https://e.com/a")
    xsd = _f("xsd-invalid", 4, "https://e.com/a", "Element 'lastmod': This element is not expected.")
    other_entry = _f("xsd-invalid", 3, "https://e.com/b", "Element 'lastmod': This element is not expected.")
    value = _f("xsd-invalid", 4, "https://e.com/a", "Element 'priority': '2' is not a valid value")
    assert on_one_element(order, xsd) and one_fault(order, xsd)
    assert not on_one_element(order, other_entry)  # one line, two entries of a minified file
    assert not one_fault(order, value)  # a bad priority is a fault of its own
    amp = _f("xml-unescaped-char", 3)
    stop = _f("xml-not-well-formed", 3)
    assert on_one_element(amp, stop) and one_fault(amp, stop)
    assert one_fault(_f("loc-not-absolute", 3), _f("loc-not-absolute", 3))  # the same twice
    assert not one_fault(_f("loc-not-absolute", 3), _f("loc-not-absolute", 3, message="n"))

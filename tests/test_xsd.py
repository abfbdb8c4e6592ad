"""Offline, chunked XSD validation (sitemap_tui/validate/xsd.py).

The xmllint comparison needs ``xmllint`` (Debian/Ubuntu: ``apt-get install libxml2-utils``) and
the shared corpus beside the checkout; each part is skipped when absent.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
from lxml import etree

from sitemap_tui.engine.model import Severity
from sitemap_tui.validate import xsd
from sitemap_tui.validate.xsd import (
    SITEMAP_NS,
    XsdValidator,
    clean_message,
    compile_schema,
    schema_dir,
    schema_location_problem,
)
from sitemap_tui.validate.xsd_document import run_validator, validate_bytes

SHARED = Path(__file__).resolve().parents[2] / "shared"
SCHEMA_SAMPLES = SHARED / "schemas" / "tests"
CORPUS = SHARED / "corpus"

NS = (
    'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml" '
    'xmlns:acme="https://acme.example/ext"'
)

BUNDLED = [
    "sitemap.xsd",
    "siteindex.xsd",
    "sitemap-image.xsd",
    "sitemap-video.xsd",
    "sitemap-news.xsd",
    "sitemap-mobile.xsd",
    "xhtml1-strict.xsd",
    "xml.xsd",
    "derived/sitemap-lax.xsd",
    "derived/siteindex-lax.xsd",
    "wrappers/sitemaps-strict.xsd",
    "wrappers/sitemaps-lax.xsd",
]


@pytest.fixture(autouse=True)
def _strict_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every message template must be filled completely (no fallback to the rule title)."""
    from sitemap_tui.validate import rules as rules_mod

    monkeypatch.setattr(rules_mod, "STRICT_MESSAGES", True)


def urlset(body: str, attrs: str = "") -> bytes:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}{attrs}>\n{body}</urlset>\n'.encode()
    )


def url(loc: str = "https://www.example.com/", extra: str = "") -> str:
    return f"  <url>\n    <loc>{loc}</loc>\n{extra}  </url>\n"


def rules(issues: list) -> list[tuple[str, int | None]]:
    return [(i.rule, i.line) for i in issues]


# -- the bundle --------------------------------------------------------------------------------


def test_bundled_files_present_and_relative_only() -> None:
    root = schema_dir()
    for name in BUNDLED:
        text = root.joinpath(name).read_text(encoding="utf-8")
        for loc in re.findall(r'schemaLocation="([^"]*)"', text):
            assert "://" not in loc, (name, loc)
    assert root.joinpath("README.md").is_file()


@pytest.mark.skipif(not (SHARED / "schemas").is_dir(), reason="shared schema folder absent")
def test_bundled_files_identical_to_shared_copies() -> None:
    for name in BUNDLED:
        ours = schema_dir().joinpath(name).read_bytes()
        theirs = (SHARED / "schemas" / name).read_bytes()
        assert hashlib.sha256(ours).hexdigest() == hashlib.sha256(theirs).hexdigest(), name


@pytest.mark.parametrize("mode", ["lax", "strict"])
def test_compiles_from_local_files_only(mode: str) -> None:
    loaded: list[str] = []
    compile_schema(mode, loaded=loaded)
    folder = Path(str(schema_dir()))
    assert len(loaded) == 9  # wrapper, 2 core, 4 Google, xhtml, xml
    for where in loaded:
        assert "://" not in where or where.startswith("file:"), where
        assert Path(where.removeprefix("file://")).resolve().is_relative_to(folder.resolve())


def test_unknown_mode() -> None:
    with pytest.raises(ValueError):
        compile_schema("sloppy")


def test_schema_location_in_instance_is_never_followed() -> None:
    data = urlset(
        url(),
        ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:schemaLocation="http://www.sitemaps.org/schemas/sitemap/0.9 '
        'http://203.0.113.1/evil/sitemap.xsd"',
    )
    assert validate_bytes(data, "strict") == []


# -- verdicts ----------------------------------------------------------------------------------


def test_valid_document_with_every_extension() -> None:
    body = url(
        extra=(
            "    <image:image><image:loc>https://www.example.com/a.jpg</image:loc></image:image>\n"
            '    <xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de/"/>\n'
        )
    )
    for mode in ("lax", "strict"):
        assert validate_bytes(urlset(body), mode) == []


def test_core_errors_with_lines_url_and_clean_message() -> None:
    body = url("https://www.example.com/a", "    <priority>1.5</priority>\n") + url(
        "https://www.example.com/b", "    <changefreq>sometimes</changefreq>\n"
    )
    issues = validate_bytes(urlset(body))
    # (a changefreq the enumeration refuses is worded as changefreq-invalid, the rule the
    # checker reports for all but a word with spaces around it)
    assert rules(issues) == [("xsd-invalid", 5), ("changefreq-invalid", 9)]
    first = issues[0]
    assert first.severity is Severity.ERROR
    assert first.column is None  # libxml2 gives no column for schema errors
    assert first.url == "https://www.example.com/a"
    assert "Element 'priority'" in first.message and "'1.5'" in first.message
    assert "{http" not in first.message and "[facet" not in first.message


def test_extension_errors_use_prefixes() -> None:
    body = url(extra="    <image:image><image:caption>x</image:caption></image:image>\n")
    (issue,) = validate_bytes(urlset(body))
    assert "Element 'image:caption'" in issue.message and "image:loc" in issue.message


def test_clean_message() -> None:
    raw = (
        "Element '{http://www.sitemaps.org/schemas/sitemap/0.9}changefreq': This element is not "
        "expected. Expected is one of ( {http://www.sitemaps.org/schemas/sitemap/0.9}lastmod, "
        "##other{http://www.sitemaps.org/schemas/sitemap/0.9}* )."
    )
    assert clean_message(raw) == (
        "Element 'changefreq': This element is not expected. Expected is one of "
        "( lastmod, any element of another namespace )."
    )
    assert clean_message("Element '{urn:x}a': b", {"urn:x": "x"}) == "Element 'x:a': b"
    assert clean_message("Element '{urn:y}a':\n b") == "Element '{urn:y}a': b"


def test_w3c_dates_rejected_by_the_xsd_are_left_to_the_checker() -> None:
    # valid W3C Datetime, rejected by xsd:date|xsd:dateTime: lastmod-w3c-but-xsd-invalid
    # (a warning, from the Checker) covers it; not W3C at all: an XSD error
    body = url("https://www.example.com/a", "    <lastmod>2024-05</lastmod>\n") + url(
        "https://www.example.com/b", "    <lastmod>2024-13-45</lastmod>\n"
    )
    v = run_validator(urlset(body))
    assert v is not None
    issues = v.finish()
    assert rules(issues) == [("xsd-invalid", 9)]
    assert sorted(r.line for r in v.records) == [5, 9]  # both are schema errors


def test_undeclared_attribute_on_core_element() -> None:
    body = '  <url id="3">\n    <loc>https://www.example.com/</loc>\n  </url>\n'
    issues = validate_bytes(urlset(body, ' foo="bar"'))
    assert [(i.rule, i.severity, i.line) for i in issues] == [
        ("core-unknown-attribute", Severity.WARNING, 2),
        ("core-unknown-attribute", Severity.WARNING, 3),
    ]
    assert "'foo'" in issues[0].message and "<urlset>" in issues[0].message


# -- lax and strict ----------------------------------------------------------------------------

VENDOR = url(extra='    <acme:boost level="3"/>\n')


def test_lax_skips_unknown_namespaces() -> None:
    assert validate_bytes(urlset(VENDOR), "lax") == []


def test_strict_reports_unknown_namespace_as_info_when_it_is_the_only_problem() -> None:
    issues = validate_bytes(urlset(VENDOR + VENDOR), "strict")
    assert [(i.rule, i.severity, i.line) for i in issues] == [
        ("ext-namespace-unknown", Severity.INFO, 5)
    ]
    assert "https://acme.example/ext" in issues[0].message and "2" in issues[0].message


def test_namespace_info_can_be_left_to_the_checker() -> None:
    v = run_validator(urlset(VENDOR), "strict")
    assert v is not None
    v.namespace_info = False
    assert v.finish() == [] and len(v.records) == 1


def test_strict_unknown_namespace_severity_does_not_depend_on_other_errors() -> None:
    # issue 16 §5: it was xsd-invalid (error) as soon as anything else in the file was wrong
    bad = url(extra="    <priority>2</priority>\n")
    issues = validate_bytes(urlset(VENDOR + bad), "strict")
    assert [(i.rule, i.severity, i.line) for i in issues] == [
        ("ext-namespace-unknown", Severity.INFO, 5),
        ("xsd-invalid", Severity.ERROR, 9),
    ]
    assert rules(validate_bytes(urlset(VENDOR + bad), "lax")) == [("xsd-invalid", 9)]


def test_known_namespace_unknown_element_is_an_error_in_strict() -> None:
    doc = urlset(url(extra="    <image:photo/>\n"))
    assert validate_bytes(doc, "lax") == []
    assert rules(validate_bytes(doc, "strict")) == [("xsd-invalid", 5)]


# -- chunking ----------------------------------------------------------------------------------

ROOT_LEVEL = (
    "  <acme:head/>\n"  # allowed: ##other elements come before the first <url>
    + url("https://www.example.com/1")
    + url("https://www.example.com/2", "    <priority>7</priority>\n")
    + url("https://www.example.com/3")
    + "  <acme:tail/>\n"  # not allowed after a <url>
    + url("https://www.example.com/4")
    + "  stray text\n"  # character content in urlset
    + url("https://www.example.com/5")
)


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 4, 500])
@pytest.mark.parametrize("mode", ["lax", "strict"])
def test_chunking_does_not_change_the_verdict(chunk_size: int, mode: str) -> None:
    data = urlset(ROOT_LEVEL, ' foo="1"')
    whole = xsd.load_schema(mode)
    whole.validate(etree.fromstring(data))
    libxml2 = sorted((e.line, e.message) for e in whole.error_log)
    v = run_validator(data, mode, chunk_size=chunk_size)
    assert v is not None
    v.finish()
    ours = sorted((r.line, r.message) for r in v.records)
    # everything libxml2 reports on the whole document, with the same words ...
    assert set(libxml2) <= set(ours)
    # ... plus what it no longer checks after the misplaced <acme:tail/>: the stray text
    # (strict also refuses <acme:head/> on line 3: unknown namespace)
    assert [line for line, _ in ours] == ([2, 2, 9, 14] if mode == "lax" else [2, 2, 3, 9, 14])
    assert [m for _, m in ours if m not in dict(libxml2).values()] == [
        f"Element '{{{SITEMAP_NS}}}urlset': Character content other than whitespace is not "
        "allowed because the content type is 'element-only'."
    ]


def test_misplaced_root_children_do_not_hide_later_urls() -> None:
    data = urlset(
        "  <foo/>\n  <acme:head/>\n"  # sitemaps.org element before the first <url>: wrong
        + url()
        + "  <loc>https://www.example.com/</loc>\n"  # a <loc> outside any <url>
        + url(extra="    <priority>7</priority>\n")
    )
    whole = xsd.load_schema("lax")
    whole.validate(etree.fromstring(data))
    assert [e.line for e in whole.error_log] == [3]  # libxml2 stops after the first one
    for chunk_size in (1, 3, 500):
        issues = validate_bytes(data, chunk_size=chunk_size)
        assert rules(issues) == [("xsd-invalid", 3), ("xsd-invalid", 8), ("xsd-invalid", 11)]
        assert "Element 'foo'" in issues[0].message and "one of" in issues[0].message
        assert "Element 'loc'" in issues[1].message and "Expected is ( url )" in issues[1].message


@pytest.mark.parametrize("take", [False, True])
def test_take_and_add_agree(take: bool) -> None:
    data = urlset(ROOT_LEVEL)
    assert rules(validate_bytes(data, chunk_size=2, take=take)) == rules(validate_bytes(data))


def test_chunks_validated_counts_root_level_elements() -> None:
    v = run_validator(urlset(url() + url()), chunk_size=1)
    assert v is not None and v.finish() == [] and v.chunks_validated == 2


@pytest.mark.parametrize("take", [False, True])
def test_lines_beyond_65535_are_mapped_back(take: bool) -> None:
    # each <url> on 4 lines: the interesting ones are far beyond libxml2's 16-bit line field
    parts = []
    for i in range(20_000):
        prio = "1.5" if i in (3, 19_000) else "0.5"
        attr = ' id="x"' if i == 19_001 else ""
        parts.append(
            f"  <url{attr}>\n    <loc>https://www.example.com/{i}</loc>\n    <priority>{prio}</priority>\n  </url>\n"
        )
    data = urlset("".join(parts))
    whole = xsd.load_schema("lax")
    whole.validate(etree.fromstring(data))
    expected = sorted(e.line for e in whole.error_log)
    assert expected[-1] > 65535
    issues = validate_bytes(data, take=take)
    assert [i.line for i in issues] == expected
    assert issues[-1].rule == "core-unknown-attribute"
    assert issues[1].url == "https://www.example.com/19000"


def test_copy_mode_falls_back_to_the_element_line() -> None:
    v = XsdValidator("lax", chunk_size=10)
    data = urlset(
        "".join(url(f"https://www.example.com/{i}") for i in range(23_000))
        + url("https://www.example.com/last", "    <priority>9</priority>\n")
    )
    parser = etree.XMLPullParser(events=("start", "end"))
    parser.feed(data)
    parser.close()
    depth = 0
    last_line = None
    for event, el in parser.read_events():
        depth += 1 if event == "start" else -1
        if event == "start" and depth == 1:
            v.begin_root(el)
        elif event == "end" and depth == 1:
            last_line = el.sourceline
            v.add(el, copy_element=True)
            assert len(el)  # copied, not moved
    (issue,) = v.finish()
    assert last_line is not None and last_line > 65535
    assert issue.line in (last_line, last_line + 2)  # the <url> line, or the exact one


def test_issue_cap_with_summary() -> None:
    body = "".join(
        url(f"https://www.example.com/{i}", "    <priority>2</priority>\n") for i in range(30)
    )
    v = run_validator(urlset(body), chunk_size=7)
    assert v is not None
    v.max_issues = 10
    issues = v.finish()
    assert len(issues) == 11
    assert issues[-1].rule == "xsd-invalid" and "20 more" in issues[-1].message
    assert issues[-1].weight == 20  # the summary counts for the errors it did not list


def test_finish_is_idempotent_and_add_after_finish_is_ignored() -> None:
    v = run_validator(urlset(url(extra="    <priority>2</priority>\n")))
    assert v is not None
    assert len(v.finish()) == 1
    assert v.finish() == []


# -- what is not validated (other rules report it) ----------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"<urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'><url><loc>a&b</loc></url></urlset>",
        b"",
        b"<?xml version='1.0'?><!DOCTYPE urlset [<!ENTITY e 'x'>]><urlset/>",
        b"<urlset xmlns='https://www.sitemaps.org/schemas/sitemap/0.9'><url><loc>x</loc></url></urlset>",
        b"<urlset><url><loc>https://www.example.com/</loc></url></urlset>",
        b"<rss version='2.0'><channel/></rss>",
        b"<urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'/>",  # urlset-empty covers it
    ],
)
def test_not_validated(data: bytes) -> None:
    assert validate_bytes(data, "strict") == []


# -- xsi:schemaLocation --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "root", "problem"),
    [
        (
            "http://www.sitemaps.org/schemas/sitemap/0.9 http://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd",
            "urlset",
            None,
        ),
        (
            "http://www.sitemaps.org/schemas/sitemap/0.9 http://www.sitemaps.org/schemas/sitemap/0.9/siteindex.xsd",
            "sitemapindex",
            None,
        ),
        (
            "http://www.sitemaps.org/schemas/sitemap/0.9 http://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd "
            "http://www.google.com/schemas/sitemap-image/1.1 http://www.google.com/schemas/sitemap-image/1.1/sitemap-image.xsd "
            "http://www.w3.org/1999/xhtml http://www.w3.org/2002/08/xhtml/xhtml1-strict.xsd",
            "urlset",
            None,
        ),
        ("http://www.sitemaps.org/schemas/sitemap/0.9", "urlset", "odd number"),
        ("", "urlset", "empty"),
        (
            "http://www.sitemaps.org/schemas/sitemap/0.9 http://www.sitemaps.org/schemas/sitemap/0.9/siteindex.xsd",
            "urlset",
            "sitemap.xsd",
        ),
        (
            "http://www.sitemaps.org/schemas/sitemap/0.9 http://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd",
            "sitemapindex",
            "siteindex.xsd",
        ),
        (
            "http://www.google.com/schemas/sitemap-image/1.1 http://www.google.com/schemas/sitemap-video/1.1/sitemap-video.xsd",
            "urlset",
            "sitemap-image.xsd",
        ),
        (
            "http://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd http://www.sitemaps.org/schemas/sitemap/0.9",
            "urlset",
            "swapped",
        ),
    ],
)
def test_schema_location_problem(value: str, root: str, problem: str | None) -> None:
    found = schema_location_problem(value, f"{{{SITEMAP_NS}}}{root}")
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found


def test_schema_location_issue() -> None:
    data = urlset(
        url(),
        ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:schemaLocation="http://www.sitemaps.org/schemas/sitemap/0.9"',
    )
    issues = validate_bytes(data)
    assert [(i.rule, i.severity, i.line) for i in issues] == [
        ("xsd-schema-location-odd", Severity.INFO, 2)
    ]


# -- agreement with xmllint --------------------------------------------------------------------


def _xml_files() -> Iterator[Path]:
    """Well-formed, non-gzip urlset/sitemapindex files of the corpus and the schema samples."""
    roots = [CORPUS, SCHEMA_SAMPLES / "valid", SCHEMA_SAMPLES / "invalid"]
    for folder in roots:
        if not folder.is_dir():
            continue
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            data = path.read_bytes()
            if data[:2] == b"\x1f\x8b":
                continue
            try:
                root = etree.fromstring(data, etree.XMLParser(**xsd.parser_options()))
            except etree.XMLSyntaxError:
                continue
            if etree.QName(root).localname in ("urlset", "sitemapindex"):
                yield path


XML_FILES = list(_xml_files())
_XMLLINT_ERROR = re.compile(r"^.*:(\d+): element [^:]*: Schemas validity error : (.*)$", re.M)

# Documented differences, all on purpose (see the xsd module docstring):
# - a root outside the sitemaps.org namespace (none, https, 0.84, Google's 0.9) is not
#   validated: xmllint says "No matching global declaration available for the validation root";
#   we leave it to namespace-missing / namespace-wrong;
# - an empty urlset is not validated: xmllint says "Missing child element(s)"; urlset-empty
#   (a warning) reports it.
NOT_VALIDATED = {
    "urlset/Gremlinq_Gremlinq.github.io__sitemap.xml": "empty urlset (urlset-empty)",
}


def _xmllint(path: Path, mode: str) -> tuple[int, list[tuple[int, str]]]:
    with resources.as_file(schema_dir()) as folder:
        wrapper = Path(folder) / xsd.SCHEMA_FILES[mode]
        proc = subprocess.run(
            ["xmllint", "--noout", "--nonet", "--schema", str(wrapper), str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    errors = [(int(m.group(1)), m.group(2).strip()) for m in _XMLLINT_ERROR.finditer(proc.stderr)]
    return proc.returncode, errors


@pytest.mark.skipif(shutil.which("xmllint") is None, reason="xmllint not installed (libxml2-utils)")
@pytest.mark.skipif(not XML_FILES, reason="shared corpus and schema samples absent")
@pytest.mark.parametrize("mode", ["lax", "strict"])
@pytest.mark.parametrize("path", XML_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_agrees_with_xmllint(path: Path, mode: str) -> None:
    rc, theirs = _xmllint(path, mode)
    assert rc in (0, 3), f"xmllint exit {rc}"
    data = path.read_bytes()
    v = run_validator(data, mode, chunk_size=2)  # tiny chunks: exercise the boundaries
    assert v is not None
    v.finish()
    ours = sorted((r.line, r.message) for r in v.records)
    root = etree.fromstring(data, etree.XMLParser(**xsd.parser_options()))
    key = f"{path.parent.name}/{path.name}"
    if root.tag not in xsd.ROOTS or key in NOT_VALIDATED:
        assert ours == []
        assert rc == 3 and len(theirs) == 1
        assert "validation root" in theirs[0][1] or "Missing child" in theirs[0][1]
        return
    # same verdict, same lines; libxml2 2.9 (xmllint) and 2.14 (lxml) word them alike here
    assert (rc == 0) == (not ours)
    assert sorted({line for line, _ in ours}) == sorted({line for line, _ in theirs})
    assert sorted(ours) == sorted(theirs)


def test_xmllint_comparison_covers_the_corpus() -> None:
    if not CORPUS.is_dir():
        pytest.skip("shared corpus absent")
    assert len(XML_FILES) >= 50


# -- one fault, one finding (issue 16) -----------------------------------------------------------

XS = "{http://www.w3.org/2001/XMLSchema}"


def _sequence_of(tree: etree._ElementTree, element: str, type_name: str | None = None) -> tuple[str, ...]:
    """The element names of the top-level xsd:sequence of ``element`` (or of complexType
    ``type_name``) in a bundled schema."""
    if type_name is not None:
        (ct,) = tree.iterfind(f"{XS}complexType[@name='{type_name}']")
    else:
        (ct,) = tree.iterfind(f".//{XS}element[@name='{element}']/{XS}complexType")
    (seq,) = ct.iterfind(f"{XS}sequence")
    return tuple(e.get("name") for e in seq.iterfind(f"{XS}element"))


def test_sequences_are_the_bundled_schemas() -> None:
    """The sequences behind covering_rules and the "takes, in this order" messages, read back
    from the schema files; and the Checker's order rules use the same ones."""
    from sitemap_tui.validate import checkstate as checker  # the checks' shared tables

    def parse(name: str) -> etree._ElementTree:
        with resources.as_file(schema_dir().joinpath(name)) as path:
            return etree.parse(str(path))

    assert xsd.SEQUENCES["url"] == _sequence_of(parse("sitemap.xsd"), "url", "tUrl")
    assert xsd.SEQUENCES["sitemap"] == _sequence_of(parse("siteindex.xsd"), "sitemap", "tSitemap")
    assert xsd.SEQUENCES["image"] == _sequence_of(parse("sitemap-image.xsd"), "image")
    assert xsd.SEQUENCES["video"] == _sequence_of(parse("sitemap-video.xsd"), "video")
    assert xsd.SEQUENCES["news"] == _sequence_of(parse("sitemap-news.xsd"), "news")
    assert xsd.SEQUENCES["publication"] == _sequence_of(parse("sitemap-news.xsd"), "publication")
    assert tuple(checker.CORE_ORDER) == xsd.SEQUENCES["url"]
    assert tuple(checker.INDEX_ORDER) == xsd.SEQUENCES["sitemap"]
    assert tuple(checker.IMAGE_ORDER) == xsd.SEQUENCES["image"]
    assert xsd.SEQUENCES["video"] == checker.VIDEO_SEQUENCE


def test_covering_rules_are_catalogue_rules() -> None:
    from sitemap_tui.validate.registry import RULES

    assert RULES.keys() >= xsd.COVERING_RULES
    assert "xsd-invalid" not in xsd.COVERING_RULES


def test_a_schema_error_is_left_to_the_rule_reported_for_its_entry() -> None:
    body = url("https://www.example.com/a", "    <priority>2</priority>\n") + url(
        "https://www.example.com/b", "    <priority>3</priority>\n"
    )
    v = run_validator(urlset(body))
    assert v is not None
    v.reported(3, "https://www.example.com/a", [("priority-invalid", 4), ("loc-not-normalized", 3)])
    v.reported(7, "https://www.example.com/b", [("changefreq-invalid", 8)])  # not about the priority
    assert rules(v.finish()) == [("xsd-invalid", 9)]


def test_unknown_elements_of_a_known_namespace_stay_xsd_invalid() -> None:
    # no rule names <video:foo>: the video's other findings do not cover it
    doc = urlset(
        url(extra="    <video:video><video:thumbnail_loc>https://e.com/t.jpg</video:thumbnail_loc>"
            "<video:foo/></video:video>\n")  # fmt: skip
    ).replace(b"xmlns:acme", b'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" xmlns:acme')
    v = run_validator(doc)
    assert v is not None
    v.reported(3, "https://www.example.com/", [("video-required-missing", 4), ("video-element-order", 4)])
    (issue,) = v.finish()
    assert issue.rule == "xsd-invalid" and "video:foo" in issue.message

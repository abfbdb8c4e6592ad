"""Parse every file of the shared corpus and compare with its MANIFEST.tsv.

The manifest was measured with lxml's tree parser (``recover=False, huge_tree=True``) and with
regexes for broken files; where our streaming parser is right to disagree, the case is listed
in ``EXCEPTIONS`` with the reason. Also checks that every emitted issue carries the severity of
its rule in validation-rules.md.
"""

from __future__ import annotations

import csv
import re
import zlib
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from judging import judged

from sitemap_tui.engine.model import ChildRef, Entry, Issue, NodeKind, Severity
from sitemap_tui.engine.parse_xml import PARSE_STOPPED
from sitemap_tui.engine.sniff import Item, SniffingParser
from sitemap_tui.validate.registry import RULES

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = SHARED / "corpus"
MANIFEST = CORPUS / "MANIFEST.tsv"
RULES_DOC = SHARED / "validation-rules.md"

pytestmark = pytest.mark.skipif(not MANIFEST.exists(), reason="shared corpus not available")

CAP = 50_000


# file -> (expected entries, rules that must be present, reason)
EXCEPTIONS: dict[str, tuple[int, set[str], str]] = {
    "gzip/ekalinin_sitemap.js__tests_mocks_medium-list.txt.gz": (
        CAP,
        {"url-count-over-limit"},
        "100,000 lines: parsing stops at the 50,000-entry cap",
    ),
    "gzip/ekalinin_sitemap.js__tests_mocks_long-list.txt.gz": (
        CAP,
        {"url-count-over-limit"},
        "1,000,000 lines: parsing stops at the 50,000-entry cap",
    ),
    "gzip/scrapy_scrapy__tests_sample_data_compressed_feed-sample1.xml.gz": (
        0,
        {"root-unknown"},
        "root <products> (a merchant feed) is not a sitemap; the manifest counted <product>",
    ),
    "hreflang/adbar_trafilatura__tests_resources_sitemap-hreflang.xml": (
        3,
        {"core-unknown-element"},
        "a <sitemap> inside the <urlset> is not an entry (the manifest counts it)",
    ),
    "text/ekalinin_sitemap.js__tests_mocks_perf-data.txt": (
        21_751,
        {"text-line-not-url"},
        "lines 16638 and 16642 contain a TAB inside the URL",
    ),
    "text/GateNLP_ultimate-sitemap-parser__docs_reference_formats_examples_plaintext.txt": (
        2,
        {"text-line-not-url"},
        "the first line is prose; the manifest counts every non-comment line",
    ),
}
# Extension counts the manifest gets from elements outside <url> entries.
EXT_EXCEPTIONS: dict[str, dict[str, int]] = {
    "hreflang/adbar_trafilatura__tests_resources_sitemap-hreflang.xml": {"n_xhtml_link": 9},
}


def _rows() -> list[dict[str, str]]:
    if not MANIFEST.exists():
        return []
    with MANIFEST.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    return [r for r in rows if (CORPUS / r["file"]).exists()]


ROWS = _rows()


@cache
def catalogue() -> dict[str, Severity]:
    """rule id -> severity from the rule table of validation-rules.md."""
    if not RULES_DOC.exists():
        return {}
    out: dict[str, Severity] = {}
    pattern = re.compile(r"^\| ([a-z0-9-]+) \| [a-z-]+ \| (error|warning|info) \|")
    for line in RULES_DOC.read_text(encoding="utf-8").splitlines():
        m = pattern.match(line)
        if m:
            out[m.group(1)] = Severity(m.group(2))
    return out


def gunzip_chunks(data: bytes, step: int = 65536) -> Iterator[bytes]:
    """Bounded gunzip (also concatenated members); raises zlib.error on corrupt or cut input."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    buf = data
    while True:
        out = d.decompress(buf, step)
        if out:
            yield out
        buf = d.unconsumed_tail
        if d.eof:
            rest = d.unused_data
            if rest[:2] == b"\x1f\x8b":
                d = zlib.decompressobj(16 + zlib.MAX_WBITS)
                buf = rest
                continue
            return
        if not buf and not out:
            raise zlib.error("truncated gzip stream")


def parse_file(rel: str) -> tuple[SniffingParser, list[Item]]:
    data = (CORPUS / rel).read_bytes()
    name = rel.rsplit("/", 1)[-1]
    url_name = name[:-3] if name.endswith(".gz") else name
    ctype = "text/plain" if url_name.endswith(".txt") else None
    parser = SniffingParser("https://example.com/" + url_name, ctype)
    chunks: Iterator[bytes] = gunzip_chunks(data) if data[:2] == b"\x1f\x8b" else iter([data])
    items: list[Item] = []
    for chunk in chunks:
        # feed in smaller pieces, as a network read would come in
        for i in range(0, len(chunk), 8192):
            items += parser.feed(chunk[i : i + 8192])
        if parser.done:
            break  # the caller may stop downloading
    items += parser.close()
    return parser, judged(items)


def _check_severities(items: list[Item]) -> None:
    known = catalogue()
    for item in items:
        if isinstance(item, Issue):
            assert item.rule in known or item.rule == "xml-dtd-forbidden", item.rule
            if item.rule in known:
                assert item.severity == known[item.rule], item


def _ints(row: dict[str, str], col: str) -> int:
    return int(row[col]) if row[col].strip() else 0


@pytest.mark.parametrize("row", ROWS, ids=[r["file"] for r in ROWS])
def test_manifest_file(row: dict[str, str]) -> None:
    rel = row["file"]
    if row["gzip"].startswith("error"):
        with pytest.raises(zlib.error):
            parse_file(rel)
        return
    parser, items = parse_file(rel)
    _check_severities(items)
    found = [i for i in items if isinstance(i, Entry | ChildRef)]
    ents = [i for i in items if isinstance(i, Entry)]
    rules = Counter(i.rule for i in items if isinstance(i, Issue))
    assert parser.info.entries == len(found)

    if row["category"] == "robots":
        # robots.txt is parsed by engine/robots.py; here it only must not break the sniffer.
        assert parser.kind in (NodeKind.TEXT, NodeKind.UNKNOWN, NodeKind.HTML)
        return

    parse = row["parse"]
    if parse == "error":
        if "empty document" in row["error"]:
            assert parser.kind == NodeKind.UNKNOWN and rules["root-unknown"] == 1 and not found
            return
        if parser.kind == NodeKind.HTML:  # an HTML page (with &nbsp;) saved at a sitemap URL
            assert rules["file-is-html"] == 1 and not found
            return
        m = re.search(r"line (\d+), column (\d+)", row["error"])
        assert m, row["error"]
        # the finding where parsing stopped: xml-not-well-formed, or the rule of that fault alone
        # (xml-unescaped-char for a raw '&', issue 16)
        err = next(
            i for i in items if isinstance(i, Issue) and i.message.endswith(PARSE_STOPPED)
        )
        assert (err.line, err.column) == (int(m.group(1)), int(m.group(2)))
        assert parser.info.truncated_at == f"{m.group(1)}:{m.group(2)}"
        # Entries before the error are kept; the manifest's regex counted the whole file.
        assert len(found) <= _ints(row, "n_entries")
        return

    expected, must, _reason = EXCEPTIONS.get(rel, (_ints(row, "n_entries"), set(), ""))
    assert len(found) == expected
    assert must <= set(rules)
    assert parser.info.truncated_at is None
    assert "xml-not-well-formed" not in rules
    if parse == "not XML (text)":
        assert parser.kind == NodeKind.TEXT
        return
    assert parse == "ok"
    if rel not in EXCEPTIONS:
        assert parser.info.root == row["root"]
    ext = EXT_EXCEPTIONS.get(rel, {})
    assert sum(len(e.images) for e in ents) == ext.get("n_image", _ints(row, "n_image"))
    assert sum(len(e.videos) for e in ents) == ext.get("n_video", _ints(row, "n_video"))
    assert sum(len(e.news) for e in ents) == ext.get("n_news", _ints(row, "n_news"))
    assert sum(len(e.alternates) for e in ents) == ext.get(
        "n_xhtml_link", _ints(row, "n_xhtml_link")
    )


def test_manifest_is_covered() -> None:
    if not ROWS:
        pytest.skip("no corpus files")
    assert len(ROWS) >= 100
    for rel in EXCEPTIONS:
        assert any(r["file"] == rel for r in ROWS), f"stale exception {rel}"


@pytest.mark.skipif(not RULES_DOC.exists(), reason="validation-rules.md not available")
def test_parser_sources_use_catalogue_severities() -> None:
    """Every literal ``Finding("rule", ...)`` in the parsers is graded as the catalogue says:
    the parsers name no severity (issue 17), the registry grades their findings."""
    engine = Path(__file__).resolve().parents[1] / "sitemap_tui" / "engine"
    pattern = re.compile(r'Finding\(\s*"([a-z0-9-]+)"')
    known = catalogue()
    seen = 0
    for name in ("sniff.py", "parse_xml.py", "xml_prolog.py", "xml_entries.py", "xml_stray.py", "parse_text.py"):
        text = (engine / name).read_text(encoding="utf-8")
        assert "Severity" not in text, name
        for rule in pattern.findall(text):
            seen += 1
            if rule == "xml-dtd-forbidden":  # ours, not in the catalogue
                assert RULES[rule].severity == Severity.ERROR
                continue
            assert rule in known, rule
            assert RULES[rule].severity == known[rule], rule
    assert seen > 20

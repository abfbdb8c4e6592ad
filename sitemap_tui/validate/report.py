"""Output of ``sitemap-tui validate``: text, JSON, SARIF 2.1.0 and GitHub workflow annotations.

``write_report(fmt, issues, summary, out)`` takes the store's :class:`IssueRow` objects (an
:class:`~sitemap_tui.engine.model.Issue` works too: ``column`` is read when ``col`` is absent)
and writes one report to ``out``. Issues are written in the order given.

- ``text``: ``SITEMAP:LINE: severity rule-id message`` per issue (``:LINE`` omitted when unknown;
  local files shown as a path relative to the working directory), then a summary line and the
  summary's notes, one per line (what did not run, files skipped). A finding
  about an entry whose message does not show the entry's URL ends with `` <URL>``. Every
  untrusted string goes through :func:`~sitemap_tui.engine.sanitize.display`.
- ``json``: ``{"issues": [{"rule", "severity", "sitemap", "line", "column", "url", "message"}],
  "summary": {"files", "urls", "errors", "warnings", "info", "notes"}}``, ASCII only, streamed.
- ``sarif``: SARIF 2.1.0 with the whole rule registry as ``tool.driver.rules``; local files are
  relative to ``%SRCROOT%`` (the working directory) when they are inside it; the summary's notes
  are the invocation's ``toolExecutionNotifications``. With a baseline (``validate --baseline``)
  each result has a ``baselineState``: ``new`` or ``unchanged``, and the baseline's findings that
  are gone follow as ``absent`` results (SARIF 2.1.0, 3.27.24).
- ``github``: ``::error file=F,line=L,col=C,title=RULE::MESSAGE`` (``::warning``, ``::notice``)
  with GitHub's escaping; remote sitemaps get no ``file=`` and their URL in the message; the
  entry's URL as in ``text``; the summary line and its notes after them.

``write_rule_summary`` is ``validate --summary``: one line per rule (severity, rule, count, the
first few URLs), then the summary line and its notes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote, urlsplit
from urllib.request import url2pathname

from sitemap_tui.engine.sanitize import display

FORMATS: tuple[str, ...] = ("text", "json", "sarif", "github")

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}
GITHUB_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}
SRCROOT = "%SRCROOT%"
CHUNK = 1000  # text lines per write


ERROR_NOTE = "error: "
"""How a summary note that says why the run failed (exit 2) begins."""

@dataclass(frozen=True, slots=True)
class Summary:
    files: int = 0
    urls: int = 0
    errors: int = 0
    warnings: int = 0
    info: int = 0
    # what the run did not do, in words: rules that did not run (robots-based rules without a
    # robots.txt), files of a folder skipped; the CLI says them on stderr too
    notes: tuple[str, ...] = ()  # (one that starts with ERROR_NOTE: why the run exits 2)

    @classmethod
    def of(cls, issues: Iterable[Any], *, files: int = 0, urls: int = 0, notes: Iterable[str] = ()) -> Summary:
        """Count ``issues`` by severity (anything with a ``severity`` str or Severity; a cap's
        summary issue counts for the findings it stands for, its ``weight``)."""
        counts = {"error": 0, "warning": 0, "info": 0}
        for issue in issues:
            sev = str(issue.severity)
            if sev in counts:
                counts[sev] += getattr(issue, "weight", 1)
        return cls(
            files=files,
            urls=urls,
            errors=counts["error"],
            warnings=counts["warning"],
            info=counts["info"],
            notes=tuple(notes),
        )

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["notes"] = list(self.notes)
        return data

    def lines(self) -> list[str]:
        """The summary line, then one line per note (sanitised: notes name files and URLs)."""
        return [self.line()] + [display(note) for note in self.notes]

    def line(self) -> str:
        """``3 files, 1,200 URLs: 2 errors, 1 warning, 0 info``."""

        def n(count: int, word: str, plural: str | None = None) -> str:
            return f"{count:,} {word if count == 1 else (plural or word + 's')}"

        return (
            f"{n(self.files, 'file')}, {n(self.urls, 'URL')}: "
            f"{n(self.errors, 'error')}, {n(self.warnings, 'warning')}, {self.info:,} info"
        )


def write_report(
    fmt: str,
    issues: Iterable[Any],
    summary: Summary,
    out: IO[str],
    *,
    base_dir: Path | str | None = None,
    baseline_state: Callable[[Any], str] | None = None,
    absent: Callable[[], Iterable[Any]] | None = None,
    maps: tuple[str, ...] = (),
) -> None:
    """Write ``issues`` in ``fmt`` (one of :data:`FORMATS`) to ``out``.

    ``base_dir`` (default: the working directory) is where local file paths are made relative
    to, for text, SARIF and GitHub output. SARIF only: ``baseline_state`` gives each issue's
    ``baselineState`` (new, unchanged), and ``absent`` the baseline's findings that are gone,
    called once the issues are written. ``maps`` (``--map URL=DIR``, as given): a sitemap read
    from a local build under a URL is annotated at its file in SARIF and GitHub output.
    """
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    locate = locator(maps, missing=fmt == "sarif")
    if fmt == "text":
        _text(issues, summary, out, base, locate)
    elif fmt == "json":
        _json(issues, summary, out, base, locate)
    elif fmt == "sarif":
        _sarif(issues, out, base, summary.notes, baseline_state, absent, locate)
    elif fmt == "github":
        _github(issues, summary, out, base, locate)
    else:
        raise ValueError(f"unknown report format {fmt!r} (expected one of {', '.join(FORMATS)})")


# -- helpers -----------------------------------------------------------------------------------


def _column(issue: Any) -> int | None:
    col = getattr(issue, "col", None)
    if col is None:
        col = getattr(issue, "column", None)
    return col if isinstance(col, int) and col > 0 else None


def _line(issue: Any) -> int | None:
    line = issue.line
    return line if isinstance(line, int) and line > 0 else None


def named_url(issue: Any) -> str | None:
    """The URL a text line must name besides the message: the entry's, when the message does
    not show it (``robots-url-disallowed`` says "the URL is disallowed", and 10,000 such lines
    would read the same). ``None`` when there is none, or it is the sitemap itself."""
    url = getattr(issue, "url", None)
    if not url or url == getattr(issue, "sitemap", None) or _shows(issue.message or "", url):
        return None
    return url


def _shows(message: str, url: str) -> bool:
    """``url`` is in ``message`` as itself, not as the start of a longer URL (a message naming
    https://example.com/robots.txt does not show the entry https://example.com/)."""
    start = message.find(url)
    while start >= 0:
        end = start + len(url)
        if end == len(message) or message[end].isspace() or message[end] in "'\"<>)]":
            return True
        start = message.find(url, start + 1)
    return False


def _with_url(message: str, issue: Any) -> str:
    """``message <URL>``: angle brackets delimit a URL in text (RFC 3986, appendix C)."""
    url = named_url(issue)
    return f"{message} <{display(url)}>" if url is not None else message


def local_path(sitemap: str | None) -> Path | None:
    """The local path of a ``file:`` URI (what the engine stores for local targets)."""
    if not sitemap or not sitemap.startswith("file:"):
        return None
    parts = urlsplit(sitemap)
    if parts.netloc not in ("", "localhost"):
        return None
    return Path(url2pathname(parts.path))  # (url2pathname decodes the %XX: once, not twice)


def locator(maps: tuple[str, ...], *, missing: bool = False) -> Callable[[str | None], Path | None]:
    """The local file a sitemap was read from: a ``file:`` URI's, or under ``--map`` the mapped
    URL's (the store keeps the URL the build stands for; an annotation needs the file).

    ``missing`` (SARIF): for a URL of a mapped build whose file is not there (a child sitemap
    the build lacks) the path it would have, and for one no file of the build stands for
    (another site's sitemap its robots.txt names, a path that leaves the folder) the build's
    folder: GitHub code scanning rejects a whole upload over one location that is a web address
    ("SARIF URI scheme https did not match ... file"). The URL stays in the result's properties."""
    if not maps:
        return local_path
    from sitemap_tui.engine.localmap import lookup, mapped_path, parse_maps

    parsed = parse_maps(maps)

    def locate(sitemap: str | None) -> Path | None:
        path = local_path(sitemap)
        if path is None and sitemap:
            hit = lookup(parsed, sitemap)
            path = hit.path if hit is not None else None
            if path is None and missing:
                path = mapped_path(parsed, sitemap) or (parsed[-1].root if parsed else None)
        return path

    return locate


def _relative(path: Path, base: Path) -> Path | None:
    try:
        return (
            Path(os.path.relpath(path, base))
            if path.resolve().is_relative_to(base.resolve())
            else None
        )
    except (OSError, ValueError):
        return None


def display_location(sitemap: str | None, base: Path,
                     locate: Callable[[str | None], Path | None] = local_path) -> str:
    """How a sitemap is named in text output: a relative path for local files (a build read as
    its site included: a CI log then names the file to fix, as the GitHub and SARIF reports
    do), else the URL."""
    path = locate(sitemap)
    if path is not None:
        rel = _relative(path, base)
        return display(str(rel if rel is not None else path))
    return display(sitemap) if sitemap else "-"


# -- text --------------------------------------------------------------------------------------


def _text(issues: Iterable[Any], summary: Summary, out: IO[str], base: Path,
          locate: Callable[[str | None], Path | None] = local_path) -> None:
    where_cache: dict[str | None, str] = {}
    # "severity rule" of each (severity, rule): a few dozen distinct pairs in a report of millions
    heads: dict[tuple[str, str], str] = {}
    chunk: list[str] = []  # written CHUNK lines at a time: one write call per line cost more
    for issue in issues:
        where = where_cache.get(issue.sitemap)
        if where is None:
            where = where_cache[issue.sitemap] = display_location(issue.sitemap, base, locate)
        line = _line(issue)
        at = f"{where}:{line}" if line is not None else where
        pair = (str(issue.severity), issue.rule)
        head = heads.get(pair)
        if head is None:
            head = heads[pair] = f"{display(pair[0])} {display(pair[1])}"
        chunk.append(f"{at}: {head} {_with_url(display(issue.message), issue)}\n")
        if len(chunk) >= CHUNK:
            out.write("".join(chunk))
            chunk.clear()
    chunk.extend(line + "\n" for line in summary.lines())
    out.write("".join(chunk))


# -- json --------------------------------------------------------------------------------------


def _json(issues: Iterable[Any], summary: Summary, out: IO[str], base: Path,
          locate: Callable[[str | None], Path | None] = local_path) -> None:
    out.write('{"issues": [')
    first = True
    files: dict[str | None, str | None] = {}
    for issue in issues:
        if issue.sitemap not in files:
            # the local file, as text, GitHub and SARIF name it (found from outside: a build
            # read under its site's URLs left a JSON consumer only the URL)
            path = locate(issue.sitemap)
            rel = _relative(path, base) if path is not None else None
            files[issue.sitemap] = None if path is None else str(rel if rel is not None else path)
        item = {
            "rule": issue.rule,
            "severity": str(issue.severity),
            "sitemap": issue.sitemap,
            "file": files[issue.sitemap],
            "line": _line(issue),
            "column": _column(issue),
            "url": issue.url,
            "message": issue.message,
        }
        weight = getattr(issue, "weight", 1)
        if weight != 1:  # a cap's summary issue: the findings it stands for (a baseline counts them)
            item["weight"] = weight
        out.write(("\n  " if first else ",\n  ") + json.dumps(item, ensure_ascii=True))
        first = False
    out.write(("\n" if not first else "") + '], "summary": ')
    out.write(json.dumps(summary.as_dict(), ensure_ascii=True))
    out.write("}\n")


# -- sarif -------------------------------------------------------------------------------------


def _sarif_rules() -> tuple[list[dict[str, Any]], dict[str, int]]:
    from sitemap_tui.validate.registry import RULES

    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for rule_id, rule in RULES.items():
        entry: dict[str, Any] = {
            "id": rule_id,
            "shortDescription": {"text": rule.title},
            "fullDescription": {"text": rule.explanation},
            "help": {"text": f"{rule.explanation}\n\nSource: {rule.source}"},
            "defaultConfiguration": {"level": SARIF_LEVELS[str(rule.severity)]},
            "properties": {"tags": [rule.scope] + (["deep-check"] if rule.deep else [])},
        }
        urls = rule.urls
        if urls:
            entry["helpUri"] = urls[0]
        index[rule_id] = len(rules)
        rules.append(entry)
    return rules, index


def _artifact(sitemap: str, base: Path, locate: Callable[[str | None], Path | None] = local_path,
              ) -> tuple[dict[str, str], bool]:
    """``artifactLocation`` for a sitemap, and whether it is relative to %SRCROOT%."""
    path = locate(sitemap)
    if path is not None:
        rel = _relative(path, base)
        if rel is not None:
            return {"uri": quote(rel.as_posix()), "uriBaseId": SRCROOT}, True
        return {"uri": path.resolve().as_uri()}, False
    return {"uri": sitemap}, False


def _sarif(issues: Iterable[Any], out: IO[str], base: Path, notes: tuple[str, ...] = (),
           baseline_state: Callable[[Any], str] | None = None,
           absent: Callable[[], Iterable[Any]] | None = None,
           locate: Callable[[str | None], Path | None] = local_path) -> None:
    """Streamed: each result is written as it comes, so a run with millions of issues does not
    hold a document of them (the results array is the only part that grows)."""
    from sitemap_tui import __version__

    rules, index = _sarif_rules()
    uses_srcroot = False
    artifacts: dict[str, tuple[dict[str, str], bool]] = {}
    tool = {
        "driver": {
            "name": "sitemap-tui",
            "version": __version__,
            "semanticVersion": __version__,
            "rules": rules,
        }
    }

    def field(name: str, value: Any, indent: str) -> str:
        text = json.dumps(value, ensure_ascii=True, indent=2).replace("\n", "\n" + indent)
        return f"{indent}{json.dumps(name)}: {text}"

    out.write("{\n")
    out.write(field("$schema", SARIF_SCHEMA, "  ") + ",\n")
    out.write(field("version", "2.1.0", "  ") + ",\n")
    out.write('  "runs": [\n    {\n')
    out.write(field("tool", tool, "      ") + ",\n")
    out.write(field("columnKind", "unicodeCodePoints", "      ") + ",\n")
    out.write('      "results": [')
    first = True

    def stated() -> Iterable[tuple[Any, str | None]]:
        for issue in issues:
            yield issue, baseline_state(issue) if baseline_state is not None else None
        if absent is not None:
            for gone in absent():
                yield gone, "absent"

    for issue, state in stated():
        severity = str(issue.severity)
        result: dict[str, Any] = {
            "ruleId": issue.rule,
            "level": SARIF_LEVELS.get(severity, "none"),
            "message": {"text": issue.message or issue.rule},
        }
        if issue.rule in index:
            result["ruleIndex"] = index[issue.rule]
        if issue.sitemap:
            found = artifacts.get(issue.sitemap)
            if found is None:
                found = artifacts[issue.sitemap] = _artifact(issue.sitemap, base, locate)
            location, relative = found
            uses_srcroot = uses_srcroot or relative
            physical: dict[str, Any] = {"artifactLocation": dict(location)}
            line = _line(issue)
            if line is not None:
                region: dict[str, int] = {"startLine": line}
                col = _column(issue)
                if col is not None:
                    region["startColumn"] = col
                physical["region"] = region
            result["locations"] = [{"physicalLocation": physical}]
        properties: dict[str, Any] = {}
        if issue.url:
            properties["url"] = issue.url
        if getattr(issue, "weight", 1) != 1:  # a cap's summary: the findings it stands for
            properties["weight"] = issue.weight
        if issue.sitemap and "://" in issue.sitemap and not issue.sitemap.startswith("file:") \
                and artifacts[issue.sitemap][0]["uri"] != issue.sitemap:
            # a build folder read as its site: the URL the file stands for, as the JSON report
            # names it, so that a SARIF baseline matches wherever the folder is (renamed, or
            # named from another directory: its %SRCROOT% path alone matched none there)
            properties["sitemap"] = issue.sitemap
        if properties:
            result["properties"] = properties
        if state is not None:
            result["baselineState"] = state
        out.write(("\n" if first else ",\n") + "        " + json.dumps(result, ensure_ascii=True))
        first = False
    out.write("]" if first else "\n      ]")
    if notes:
        # a run that could not do its job (exit 2) says so, as SARIF readers expect (a review)
        failed = any(n.startswith(ERROR_NOTE) for n in notes)
        invocation = {
            "executionSuccessful": not failed,
            "toolExecutionNotifications": [{"level": "error" if n.startswith(ERROR_NOTE) else "note",
                                            "message": {"text": n}} for n in notes],
        }
        out.write(",\n" + field("invocations", [invocation], "      "))
    if uses_srcroot:
        out.write(",\n" + field("originalUriBaseIds", {SRCROOT: {"uri": base.resolve().as_uri() + "/"}}, "      "))
    out.write("\n    }\n  ]\n}\n")


# -- summary (validate --summary) -------------------------------------------------------------


@dataclass(slots=True)
class _RuleCount:
    severity: str
    count: int
    first: list[str]


def write_rule_summary(issues: Iterable[Any], summary: Summary, out: IO[str], *, urls: int = 3,
                       base_dir: Path | str | None = None) -> None:
    """One line per rule, errors first, then the most frequent: ``error loc-invalid: 10,000
    findings: <URL>, <URL>, <URL>, and 9,997 more``. A finding without an entry URL is named by
    its file and line. Memory: one line's worth per rule, whatever the number of findings."""
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    rules: dict[str, _RuleCount] = {}
    for issue in issues:
        rule = rules.get(issue.rule)
        if rule is None:
            rule = rules[issue.rule] = _RuleCount(str(issue.severity), 0, [])
        rule.count += getattr(issue, "weight", 1)  # a cap's summary: the findings it stands for
        if len(rule.first) < urls:
            if issue.url:
                rule.first.append(f"<{display(issue.url)}>")
            else:
                line = _line(issue)
                where = display_location(issue.sitemap, base)
                rule.first.append(f"{where}:{line}" if line is not None else where)
    rank = {"error": 0, "warning": 1, "info": 2}
    for rule_id, rule in sorted(rules.items(), key=lambda kv: (rank.get(kv[1].severity, 3), -kv[1].count, kv[0])):
        more = rule.count - len(rule.first)
        shown = ", ".join(rule.first) + (f", and {more:,} more" if more and rule.first else "")
        word = "finding" if rule.count == 1 else "findings"
        tail = f": {shown}" if shown else ""
        out.write(f"{display(rule.severity)} {display(rule_id)}: {rule.count:,} {word}{tail}\n")
    out.write("".join(line + "\n" for line in summary.lines()))


# -- github ------------------------------------------------------------------------------------


def escape_data(value: str) -> str:
    """GitHub workflow command escaping for the message part."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """GitHub workflow command escaping for ``key=value`` properties."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def _github(issues: Iterable[Any], summary: Summary, out: IO[str], base: Path,
            locate: Callable[[str | None], Path | None] = local_path) -> None:
    files: dict[str | None, str | None] = {}
    for issue in issues:
        command = GITHUB_COMMANDS.get(str(issue.severity), "notice")
        sitemap = issue.sitemap
        if sitemap not in files:
            path = locate(sitemap)
            rel = _relative(path, base) if path is not None else None
            files[sitemap] = (
                rel.as_posix() if rel is not None else (str(path) if path is not None else None)
            )
        file = files[sitemap]
        line = _line(issue)
        message = _with_url(display(issue.message), issue)
        props = []
        if file is not None:
            props.append(f"file={escape_property(display(file))}")
            if line is not None:
                props.append(f"line={line}")
                col = _column(issue)
                if col is not None:
                    props.append(f"col={col}")
        elif sitemap:
            # a remote sitemap: no file to annotate, name it in the message
            message = f"{display(sitemap)}{f':{line}' if line is not None else ''}: {message}"
        props.append(f"title={escape_property(display(issue.rule))}")
        out.write(f"::{command} {','.join(props)}::{escape_data(message)}\n")
    out.write("".join(line + "\n" for line in summary.lines()))


__all__ = [
    "FORMATS",
    "SARIF_SCHEMA",
    "Summary",
    "display_location",
    "escape_data",
    "escape_property",
    "local_path",
    "named_url",
    "write_report",
    "write_rule_summary",
]

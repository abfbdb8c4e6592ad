"""Baselines for ``validate --baseline FILE``: the findings of an earlier report (``--format json``
or ``--format sarif``, or ``--write-baseline``'s JSON) that a run does not report again.

A finding's identity is ``(rule, where, url)``:

- ``rule``: the rule id;
- ``where``: the sitemap file, a path relative to the working directory for a local file inside
  it (SARIF's ``%SRCROOT%``-relative URI and the relative paths ``--write-baseline`` writes are
  the same path, so a baseline still matches in a checkout elsewhere), else its absolute path or
  its URL;
- ``url``: the entry's URL, or empty for a finding about the file itself.

Line and column are not part of it, so that a finding survives lines added above it; nor is the
message, which names line numbers ("same as line 12"). Findings with the same identity (three
XSD errors in one file) are counted: a run reports those beyond the baseline's count as new.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from sitemap_tui.engine.findings import words_of
from sitemap_tui.engine.readfile import NotReadable, read_bounded
from sitemap_tui.engine.sanitize import display
from sitemap_tui.validate.registry import RULES
from sitemap_tui.validate.report import SRCROOT, local_path

Key = tuple[str, str, str]


class BaselineError(ValueError):
    """A baseline file that cannot be used, said in one line (the command line makes it exit 2)."""

SARIF_LEVEL_SEVERITY = {"error": "error", "warning": "warning", "note": "info", "none": "info"}


@dataclass(frozen=True, slots=True)
class Known:
    """A finding of the baseline, kept to report it as ``absent`` in SARIF when it is gone."""

    rule: str
    severity: str
    sitemap: str | None  # as the report named it: a URL, a file: URI or a relative path
    line: int | None
    url: str | None
    message: str
    weight: int = 1  # a cap's summary issue: the findings it stood for (the report's "weight")


Locate = Callable[[str | None], Path | None]


def where(sitemap: str | None, base: Path, locate: Locate = local_path) -> str:
    """The file part of an identity: a local file relative to ``base`` when inside it.
    ``locate`` (report.locator) finds the file of a URL a build folder is read as (--map, or
    the site its robots.txt names): a SARIF report names that file, a JSON report the URL, and
    both must give one identity, or a SARIF baseline matched none of its own findings."""
    if not sitemap:
        return ""
    path = locate(sitemap)
    if path is None:
        return sitemap
    try:
        resolved = path.resolve()
        return resolved.relative_to(base.resolve()).as_posix() if resolved.is_relative_to(base.resolve()) \
            else resolved.as_posix()
    except (OSError, ValueError):
        return path.as_posix()


def identity(issue: Any, base: Path, locate: Locate = local_path) -> Key:
    """(rule, file, what singles it out): the entry's URL, or for a rule whose one finding names
    a sample of several URLs (Rule.sample) its message with the numbers left out: one correct
    URL added at the top of a file made "URLs without <lastmod>: 1 of 2" a new finding (its
    sample changed) and the old one absent."""
    rule = str(issue.rule)
    spec = RULES.get(rule)
    if spec is not None and spec.sample:
        return (rule, where(issue.sitemap, base, locate), words_of(issue.message))
    return (rule, where(issue.sitemap, base, locate), issue.url or "")


class Baseline:
    """The findings of a baseline file, by identity."""

    def __init__(self, path: str, known: dict[Key, list[Known]], locate: Locate = local_path) -> None:
        self.path = path
        self.known = known
        self.locate = locate  # the run's findings are given identities with it too

    def __len__(self) -> int:
        """Its findings, a cap's summary counted as those it stood for (as --write-baseline said)."""
        return sum(k.weight for v in self.known.values() for k in v)

    def matcher(self) -> Matcher:
        return Matcher(self)


class Matcher:
    """One pass over a run's findings: each finding of the baseline matches one current
    finding of its identity, the first ones in report order."""

    def __init__(self, baseline: Baseline) -> None:
        self._left = {k: list(v) for k, v in baseline.known.items()}
        self.matched = 0
        # a cap's summary (weight > 1) stood for findings it did not list: what is left of it
        # after the current summary took its share, by rule (a cross-file rule's summary is on
        # the root, its findings on the files), for a finding listed now that it stood for then
        # (found from outside: a fix moved one into the listed ones, and it read as new)
        self._weights: dict[int, list[int]] = {}
        self._spare: dict[str, list[list[int]]] = {}
        for key, found in self._left.items():
            for k in found:
                if k.weight > 1:
                    cell = self._weights[id(k)] = [k.weight]
                    self._spare.setdefault(key[0], []).append(cell)
        # a --format json report names a local file by its absolute file: URI, written where
        # the report was made: in a checkout elsewhere, its path's tail is what can match
        self._absolute: dict[tuple[str, str], list[Key]] = {}
        for key in self._left:
            if key[1].startswith("/"):
                self._absolute.setdefault((key[0], key[2]), []).append(key)

    def known(self, key: Key, weight: int = 1) -> int:
        """How many of the ``weight`` findings a current one with ``key`` stands for the baseline
        knows (it uses up one of its findings): all of them, none, or for a cap's summary issue
        that grew, those the baseline's stood for (found from outside: a summary row of 500
        matched one of 2,000, and the 1,500 new findings read as known)."""
        left = self._left.get(key)
        if not left and key[1] and not key[1].startswith("/") and "://" not in key[1]:
            tail = "/" + key[1]
            left = next((self._left[k] for k in self._absolute.get((key[0], key[2]), ())
                         if k[1].endswith(tail) and self._left[k]), None)
        if not left:
            return self._from_spare(key, weight)
        self.matched += 1
        found = left.pop(0)
        cell = self._weights.get(id(found))
        if cell is None:
            return min(weight, found.weight)
        take = min(weight, cell[0])
        cell[0] -= take
        return take

    def _from_spare(self, key: Key, weight: int) -> int:
        """What the baseline's summaries of ``key``'s rule have left for it."""
        taken = 0
        for cell in self._spare.get(key[0], ()):
            take = min(weight - taken, cell[0])
            cell[0] -= take
            taken += take
            if taken == weight:
                break
        if taken:
            self.matched += 1
        return taken

    def absent(self) -> Iterator[Known]:
        """The baseline's findings no current finding matched: fixed since."""
        for left in self._left.values():
            yield from left


# a baseline of a 10 M-URL set's findings stays well under this; /dev/zero does not
MAX_BASELINE = 1024 * 1024 * 1024


def load(raw: str, base: Path, locate: Locate = local_path) -> Baseline:
    """Read a baseline (JSON report or SARIF 2.1.0); anything else is a one-line usage error.
    ``locate``: as :func:`where`'s, the same as the run's that the baseline is matched with."""
    label = f"--baseline {display(raw)}"
    try:
        text = read_bounded(raw, MAX_BASELINE).decode("utf-8")
    except FileNotFoundError:
        raise BaselineError(f"{label}: no such file (write one with --write-baseline)") from None
    except (OSError, UnicodeDecodeError, NotReadable) as exc:
        raise BaselineError(f"{label}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise BaselineError(f"{label}: not JSON ({exc})") from None
    except RecursionError:  # ([[[[... 100,000 deep: a traceback and exit 1, found by a review)
        raise BaselineError(f"{label}: not a baseline (nested too deeply)") from None
    try:
        if isinstance(doc, dict) and isinstance(doc.get("runs"), list):
            findings = list(_from_sarif(doc, base))
        elif isinstance(doc, dict) and isinstance(doc.get("issues"), list):
            findings = list(_from_json(doc, base))
        else:
            raise ValueError("neither a `validate --format json` report nor SARIF")
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise BaselineError(f"{label}: {exc}") from None
    known: dict[Key, list[Known]] = {}
    for finding in findings:
        known.setdefault(identity(finding, base, locate), []).append(finding)
    return Baseline(raw, known, locate)


def _from_json(doc: dict[str, Any], base: Path) -> Iterable[Known]:
    for item in doc["issues"]:
        if not isinstance(item, dict) or not isinstance(item.get("rule"), str):
            raise ValueError("an issue without a rule id")
        sitemap = _typed(item, "sitemap", str, "text")
        if sitemap and "://" not in sitemap and not sitemap.startswith("file:"):
            # a relative path (--write-baseline's local files): from the working directory
            sitemap = (base / sitemap).resolve().as_uri()
        yield Known(item["rule"], str(item.get("severity") or "info"), sitemap, _typed(item, "line", int, "a number"),
                    _typed(item, "url", str, "text"), str(item.get("message") or ""), _weight(item.get("weight")))


def _typed(item: dict[str, Any], key: str, kind: type, said: str) -> Any:
    """``item[key]``, absent or null as None, or of ``kind``: anything else (a hand-edited or
    merge-damaged baseline) is the file's fault, said as such; it was a traceback after the whole
    run, and exit 1, read by CI as new findings (found from outside)."""
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ValueError(f"an issue's `{key}` is not {said}: {display(json.dumps(value)[:60])}")
    return value


def _object(value: Any, what: str) -> dict[str, Any]:
    """``value`` if it is a JSON object (absent: an empty one), else the file's fault."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"a SARIF {what} is not an object")
    return value


def _weight(value: Any) -> int:
    """A finding's weight as a report wrote it: a count of at least 1 (anything else: 1)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 1 else 1


def portable(issues: Iterable[Any], base: Path) -> Iterator[Any]:
    """``issues`` with their local sitemap files inside ``base`` named by a relative path, for
    --write-baseline: the baseline then matches in a checkout elsewhere (another CI runner)."""
    from dataclasses import replace

    for issue in issues:
        path = local_path(issue.sitemap)
        if path is not None:
            rel = where(issue.sitemap, base)
            if not Path(rel).is_absolute():
                issue = replace(issue, sitemap=rel)
        yield issue


def _from_sarif(doc: dict[str, Any], base: Path) -> Iterable[Known]:
    for run in doc["runs"]:
        results = _object(run, "run").get("results") or []
        if not isinstance(results, list):
            raise ValueError("a SARIF run's results are not a list")
        for result in results:
            result = _object(result, "result")
            if result.get("baselineState") == "absent":  # gone when that report was written
                continue
            rule = result.get("ruleId")
            if not isinstance(rule, str):
                raise ValueError("a SARIF result without a ruleId")
            sitemap, line = _sarif_location(result, base)
            properties = _object(result.get("properties"), "result's properties")
            url = _typed(properties, "url", str, "text")
            if isinstance(properties.get("sitemap"), str):
                sitemap = properties["sitemap"]  # the URL a build folder's file stands for (report._sarif)
            yield Known(rule, SARIF_LEVEL_SEVERITY.get(result.get("level", "warning"), "warning"), sitemap,
                        line, url, str(_object(result.get("message"), "result's message").get("text") or ""),
                        _weight(properties.get("weight")))


def _sarif_location(result: dict[str, Any], base: Path) -> tuple[str | None, int | None]:
    locations = result.get("locations") or []
    if not isinstance(locations, list):
        raise ValueError("a SARIF result's locations are not a list")
    if not locations:
        return None, None
    physical = _object(_object(locations[0], "result's location").get("physicalLocation"), "physicalLocation")
    artifact = _object(physical.get("artifactLocation"), "artifactLocation")
    uri = artifact.get("uri")
    region = _object(physical.get("region"), "region")
    line = region.get("startLine") if isinstance(region.get("startLine"), int) else None
    if not isinstance(uri, str):
        return None, line
    if artifact.get("uriBaseId") == SRCROOT:
        # relative to the directory the report was written in, read as the working directory:
        # a checkout moved elsewhere (another CI runner) keeps its identities
        return (base / unquote(uri)).resolve().as_uri(), line
    return uri, line

"""robots.txt: ``Sitemap:`` lines (with line numbers) and allow/disallow rules via protego.

Robustness (SECURITY.md T8, T13, T15, T18): at most ``max_bytes`` are read (500 KiB, like
Google), bytes are decoded as UTF-8 with ``errors="replace"`` after a BOM check (UTF-16 with a
BOM is honoured), binary garbage never raises, and every Sitemap URL carries its URL-policy
verdict so ``file:``/``javascript:`` values are shown, never fetched.

Sitemap line syntax accepted (the same leniency as Google's open-source parser):
- the key is ``sitemap`` or ``site-map`` in any case, with optional spaces/tabs before and
  after it (``Sitemap :``, indented lines); the line may be anywhere in the file, inside or
  outside a user-agent group;
- comments: everything from the first ``#`` on is a comment, as in Google's parser and
  protego. A ``#`` in a sitemap URL could only start a fragment, which is never sent to the
  server, so the URL fetched is the same either way (``raw`` keeps the whole line);
- relative values are resolved against the robots.txt URL (``relative=True``);
- repeated URLs (same :func:`urlpolicy.normalize` key) are kept with ``duplicate=True``.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from protego import Protego

from sitemap_tui.engine import urlpolicy
from sitemap_tui.engine.robots_match import compile_rules, group_for

MAX_ROBOTS_BYTES = 512_000  # Google reads 500 KiB of robots.txt and ignores the rest

GOOGLEBOT = "Googlebot"

# Key, optional blanks, colon, value. [ \t] only: other whitespace is part of the key/value.
_SITEMAP_LINE_RE = re.compile(r"[ \t]*(site-?map)[ \t]*:[ \t]*(.*)", re.IGNORECASE)
# Line ends as editors count them (CRLF, LF or a lone CR); unlike str.splitlines(), not
# VT/FF/U+2028..., which would shift every line number after them.
_LINE_SPLIT_RE = re.compile(r"\r\n|\r|\n")


@dataclass(slots=True)
class SitemapLine:
    """One ``Sitemap:`` line of a robots.txt."""

    line: int  # 1-based line number
    raw: str  # the whole line as written (untrusted: sanitise before display)
    url: str  # the value resolved against the robots.txt URL ("" when the value is empty)
    relative: bool = False  # the value had no scheme and was resolved
    duplicate: bool = False  # an earlier line named the same (normalised) URL
    unfetchable: str | None = None  # urlpolicy reason, None when the URL may be fetched
    key: str = "Sitemap"  # the key as written ("sitemap", "SITEMAP", "site-map", ...)
    value: str = ""  # the value as written, comment and blanks removed


@dataclass(slots=True)
class RobotsFile:
    url: str
    sitemaps: list[SitemapLine] = field(default_factory=list)
    truncated: bool = False  # the file was longer than max_bytes; the rest was ignored
    decoded_with: str = "utf-8"  # "utf-8", "utf-8-sig", "utf-16-le" or "utf-16-be"
    decode_errors: bool = False  # some bytes were not valid and became U+FFFD
    text: str = field(default="", repr=False)  # the decoded (capped) text given to protego
    # protego's parse is done lazily, on the first allowed() call, and cached.
    _rules: Protego | None = field(default=None, init=False, repr=False, compare=False)
    _rules_failed: bool = field(default=False, init=False, repr=False, compare=False)
    # per user agent: its rules as one pattern (robots_match), None where protego answers
    _matchers: dict[str, Callable[[str], bool] | None] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    @property
    def sitemap_urls(self) -> list[str]:
        """Distinct fetchable sitemap URLs in file order (what the explorer should fetch)."""
        return [s.url for s in self.sitemaps if not s.duplicate and s.unfetchable is None]

    def _protego(self) -> Protego | None:
        if self._rules is None and not self._rules_failed:
            try:
                self._rules = Protego.parse(self.text)
            except Exception:  # protego trouble must never break exploring
                self._rules_failed = True
        return self._rules

    def allowed(self, url: str, user_agent: str = "*") -> bool:
        """Whether robots.txt lets ``user_agent`` fetch ``url`` (True when in doubt)."""
        rules = self._protego()
        if rules is None:
            return True
        if user_agent in self._matchers:
            matcher = self._matchers[user_agent]
        else:
            try:
                matcher = compile_rules(rules, user_agent)
            except Exception:  # (a pattern re cannot take): protego answers
                matcher = None
            self._matchers[user_agent] = matcher
        if matcher is not None:
            try:
                return matcher(url)
            except Exception:
                self._matchers[user_agent] = None  # protego answers from now on
        try:
            return bool(rules.can_fetch(url, user_agent))
        except Exception:
            return True

    def crawl_delay(self, user_agent: str) -> float | None:
        """The ``Crawl-delay`` of ``user_agent``'s group in seconds, None without one."""
        rules = self._protego()
        if rules is None:
            return None
        try:
            group_for(rules, user_agent)  # (the RFC's group, which protego's call then reads)
            delay = rules.crawl_delay(user_agent)
        except Exception:
            return None
        return float(delay) if delay else None

    def allowed_for_google(self, url: str) -> bool:
        return self.allowed(url, GOOGLEBOT)


def decode_robots(data: bytes) -> tuple[str, str, bool]:
    """Decode robots.txt bytes: ``(text, encoding used, had invalid bytes)``. Never raises."""
    if data.startswith(codecs.BOM_UTF8):
        encoding, body = "utf-8-sig", data[len(codecs.BOM_UTF8) :]
        codec = "utf-8"
    elif data.startswith(codecs.BOM_UTF16_LE):
        encoding, body, codec = "utf-16-le", data[2:], "utf-16-le"
    elif data.startswith(codecs.BOM_UTF16_BE):
        encoding, body, codec = "utf-16-be", data[2:], "utf-16-be"
    else:
        encoding, body, codec = "utf-8", data, "utf-8"
    try:
        return body.decode(codec), encoding, False
    except UnicodeDecodeError:
        return body.decode(codec, errors="replace"), encoding, True


def _split_lines(text: str) -> list[str]:
    return _LINE_SPLIT_RE.split(text)


def parse_robots(data: bytes, url: str, max_bytes: int = MAX_ROBOTS_BYTES) -> RobotsFile:
    """Parse robots.txt ``data`` fetched from ``url``. Never raises on any input bytes."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        data = b""
    max_bytes = max(0, max_bytes)
    truncated = len(data) > max_bytes
    data = bytes(data[:max_bytes])  # protego and our scan never see more than max_bytes
    text, encoding, errors = decode_robots(data)
    lines = _split_lines(text)
    if truncated and len(lines) > 1:
        # The last line was cut in the middle: a half URL is worse than none.
        lines.pop()
        text = "\n".join(lines)
    robots = RobotsFile(
        url=url, truncated=truncated, decoded_with=encoding, decode_errors=errors, text=text
    )
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if "ap" not in line and "AP" not in line and "Ap" not in line and "aP" not in line:
            continue  # cheap filter: most lines are Disallow rules
        m = _SITEMAP_LINE_RE.match(line)
        if m is None:
            continue
        value = m.group(2).split("#", 1)[0].strip(" \t")
        resolved = value
        relative = False
        if value:
            relative = not urlpolicy.has_scheme(value)
            if relative:
                resolved = urlpolicy.resolve(url, value)
        key = urlpolicy.normalize(resolved)
        duplicate = bool(value) and key in seen
        seen.add(key)
        robots.sitemaps.append(
            SitemapLine(
                line=number,
                raw=line,
                url=resolved,
                relative=relative,
                duplicate=duplicate,
                unfetchable=urlpolicy.unfetchable_reason(resolved),
                key=m.group(1),
                value=value,
            )
        )
    return robots

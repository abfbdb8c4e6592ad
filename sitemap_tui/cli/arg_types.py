"""The command line's value types: each turns one option's text into its value, or into a
one-line usage error (argparse.ArgumentTypeError) that names what was expected.

Only argparse (and the standard library) is imported at the top, so that `--help` stays fast."""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable


def whole(low: int, high: int) -> Callable[[str], int]:
    """A whole number from ``low`` to ``high``; anything else is a one-line usage error."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, not {value}")
        return value

    return parse


def file_name(text: str) -> str:
    """A file or folder name: not empty (an unset shell variable, ``--cacert "$CA"``, was read as
    the option not given: the system's CAs trusted, no store kept, without a word)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty file name")
    return text


def _finite(text: str, *, zero: bool, expected: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < 0 or (value == 0 and not zero):
        raise argparse.ArgumentTypeError(f"must be {expected}, not {text!r}")
    return value


def positive(text: str) -> float:
    """A finite number above 0 (seconds, requests per second)."""
    return _finite(text, zero=False, expected="a number above 0")


def rate(text: str) -> float:
    """Requests per second: a finite number, 0 meaning no limit (for one's own servers)."""
    return _finite(text, zero=True, expected="0 (no limit) or more")


def budget(text: str) -> float:
    """Seconds for a whole run: a finite number, 0 meaning no limit."""
    return _finite(text, zero=True, expected="0 (no limit) or more")


def sample(text: str) -> int | None:
    """``all`` (None) or a number of URLs per sitemap, 1 or more."""
    if text == "all":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of URLs or 'all', not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more (or 'all'), not {value}")
    return value


# RFC 9110 field names are tokens; values are visible ASCII, spaces and tabs (httpx sends ASCII
# only, and a CR or LF would start another header)
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_FIELD_VALUE = re.compile(r"[\t\x20-\x7e]*")
# what frames a request (RFC 9112): set by the client for each one; a user's value made the
# server's answer look broken ("Too little data for declared Content-Length"), found from outside
_FRAMING = frozenset({"content-length", "transfer-encoding", "connection", "upgrade", "te", "trailer"})


def header(text: str) -> str:
    """A -H value checked. What is refused is named, never echoed whole: a value is often a token
    (found from outside: a pasted non-ASCII character put the bearer token in the CI log)."""
    name, sep, value = text.partition(":")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"bad header ({len(text)} characters, not shown): expected 'Name: value'")
    if not _TOKEN.fullmatch(name.strip()):
        # (not shown either: a colon inside a value ("Authorization Basic alice:pw") puts the
        # secret's first part where the name is)
        raise argparse.ArgumentTypeError("bad header name (not shown): letters, digits and !#$%&'*+.^_`|~- only,"
                                         " then ': value'")
    if name.strip().lower() == "host":
        raise argparse.ArgumentTypeError("the Host header is the URL's: --resolve HOST:IP reaches a host"
                                         " at another address")
    if name.strip().lower() in _FRAMING:
        raise argparse.ArgumentTypeError(
            f"header {name.strip()!r} is set by the HTTP client for each request (it frames the message)")
    if not _FIELD_VALUE.fullmatch(value.strip()):
        raise argparse.ArgumentTypeError(
            f"bad value of header {name.strip()!r} (not shown): ASCII without control characters only"
            " (percent-encode other characters)")
    return text


def proxy(text: str) -> str:
    from sitemap_tui.engine.netpolicy import parse_proxy

    try:
        parse_proxy(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def user_agent(text: str) -> str:
    if not text.strip() or not _FIELD_VALUE.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r}: ASCII without control characters only")
    return text


def limit(kind: str) -> Callable[[str], str]:
    """An option type for a cache limit (``size``: 2GiB, 500MB; ``age``: 30d, 12h), checked
    here and kept as typed."""

    def check(text: str) -> str:
        from sitemap_tui.session import sizes

        try:
            getattr(sizes, f"parse_{kind}")(text)
        except sizes.LimitError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return text

    check.__name__ = kind  # argparse names a failed type by it
    return check


size = limit("size")
age = limit("age")

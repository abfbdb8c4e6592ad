"""``sys.stderr`` that never costs the run its exit status.

Found from outside: with stderr in a pipe whose reader left (``2>&1 | head``, a common CI
pattern), the first message's broken pipe ended a failed run with exit 0 through pipefail; a
stderr on /dev/full turned a usage error (2) or Ctrl-C (130) into 1; a closed one (``2>&-``,
``sys.stderr`` None) a traceback. Once stderr cannot be written the messages are lost, as there
is nowhere left to say so; fd 2 then points at /dev/null, for the interpreter's last flush and
so that no file opened later takes descriptor 2. Imports only the standard library: it wraps
the whole command line, ``--help`` included."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import IO, Any, cast


class KeptStderr:
    """What ``sys.stderr`` is while a command runs (:func:`kept_stderr`)."""

    def __init__(self, raw: IO[str] | None) -> None:
        self._raw = raw
        self.lost = raw is None
        if raw is None:
            _point_at_devnull()

    def write(self, text: str) -> int:
        if not self.lost:
            try:
                return cast(IO[str], self._raw).write(text)
            except OSError:
                self._lose()
        return len(text)

    def flush(self) -> None:
        if not self.lost:
            try:
                cast(IO[str], self._raw).flush()
            except OSError:
                self._lose()

    def isatty(self) -> bool:
        return not self.lost and cast(IO[str], self._raw).isatty()

    def _lose(self) -> None:
        self.lost = True
        _point_at_devnull()

    def __getattr__(self, name: str) -> Any:  # fileno, encoding, errors, ...
        return getattr(self._raw, name)


def _point_at_devnull() -> None:
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        if devnull != 2:
            os.dup2(devnull, 2)
            os.close(devnull)


@contextlib.contextmanager
def kept_stderr() -> Iterator[None]:
    """``sys.stderr`` as a :class:`KeptStderr` for the duration (the previous one after)."""
    original = sys.stderr
    sys.stderr = cast(Any, KeptStderr(original))
    try:
        yield
    finally:
        sys.stderr = original

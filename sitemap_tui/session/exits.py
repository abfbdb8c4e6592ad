"""Exit codes and the usage error, shared by the commands and the explorer's launchers
(docs/exit-codes.md is the contract). Standard library only: ``--help`` stays fast."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad arguments or an unreachable target: exit code 2 with a one-line message."""

"""The engine host's typed messages (sitemap_tui/session/messages.py) as the short tuples the
host tests were written with, so that those tests assert exactly what they asserted before the
messages became dataclasses: ``("done", what, node_id, result)``, ``("error", what, message,
node_id)``, ... and commands given as ``("crossfile", True)``."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from sitemap_tui.session import messages as wire

KINDS: dict[type, str] = {
    wire.Ready: "ready", wire.Events: "events", wire.Done: "done", wire.Failed: "error",
    wire.DeepProgress: "deep", wire.CrossfileStep: "crossfile", wire.SearchProgress: "search",
    wire.Exited: "exit",
}


def as_tuple(msg: wire.Reply) -> tuple[Any, ...]:
    return (KINDS[type(msg)], *(getattr(msg, f.name) for f in fields(msg)))


@dataclass(frozen=True)
class Unknown:
    """A command this host does not know (from a newer or foreign interface)."""

    what: str


def command(name: str, *args: Any) -> Any:
    if name in wire.EXPAND_COMMANDS:
        return wire.Expand(int(args[0]), name)
    simple: dict[str, Any] = {
        "open": lambda: wire.Open(args[0]), "deep": lambda: wire.Deep(tuple(args[0])),
        "crossfile": lambda: wire.Crossfile(bool(args and args[0])), "cancel": wire.Cancel,
        "stop": wire.Stop,
    }
    return simple[name]() if name in simple else Unknown(name)

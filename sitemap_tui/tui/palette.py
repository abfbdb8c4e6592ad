"""Command palette provider: every action of the explorer, filtered by what makes sense now."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from textual.app import App
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.dom import DOMNode


@dataclass(frozen=True)
class PaletteCommand:
    name: str
    help: str
    action: str  # an action of the app (always in its allow-list)


class SitemapCommands(Provider):
    """Lists the app's commands (``SitemapApp.palette_commands``) for the current context."""

    def _commands(self) -> list[PaletteCommand]:
        getter: Callable[[], list[PaletteCommand]] | None = getattr(self.app, "palette_commands", None)
        return list(getter()) if getter is not None else []

    def _runner(self, action: str) -> Callable[[], Any]:
        return partial(self.app.run_action, action)

    async def discover(self) -> Hits:
        for cmd in self._commands():
            yield DiscoveryHit(cmd.name, self._runner(cmd.action), help=cmd.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for cmd in self._commands():
            score = matcher.match(cmd.name)
            if score > 0:
                yield Hit(score, matcher.highlight(cmd.name), self._runner(cmd.action), help=cmd.help)


def action_keys(app: App[Any], node: DOMNode | None = None) -> dict[str, str]:
    """The first key of each action of ``node`` (the app's own by default), the user's keymap
    applied (as Screen._binding_chain applies it: Textual has no public call for one node's keys)."""
    bindings = (node or app)._bindings.copy()
    if app._keymap:
        bindings.apply_keymap(app._keymap)  # (a clash was said at start)
    keys: dict[str, str] = {}
    for key, found in bindings.key_to_bindings.items():
        for b in found:
            keys.setdefault(b.action, app.get_key_display(replace(b, key=key)))
    return keys


def with_keys(cmds: list[PaletteCommand], keys: dict[str, str]) -> list[PaletteCommand]:
    """Each command named with its key as the keymap has it now: a remapped expand_all is
    not "(e)" (the names once said the default keys whatever the keymap)."""
    return [replace(c, name=f"{c.name} ({keys[c.action]})") if c.action in keys else c for c in cmds]

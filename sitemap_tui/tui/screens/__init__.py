"""Modal screens of the explorer (help, confirm, open file; export lives in export.py)."""

from __future__ import annotations

from typing import ClassVar

# Actions any of our screens may run; markup can never reach them (every untrusted string is a
# Text object), this is defence in depth (SECURITY.md mitigation 13).
SCREEN_ACTIONS: frozenset[str] = frozenset(
    {"dismiss", "cancel", "confirm", "yes", "no", "submit", "focus_next", "focus_previous",
     "copy_text", "scroll_up", "scroll_down", "page_up", "page_down", "scroll_home", "scroll_end"}
)


class SafeActions:
    """Mixin for screens: refuse every action that is not ours (``check_action``)."""

    ALLOWED_ACTIONS: ClassVar[frozenset[str]] = SCREEN_ACTIONS

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action in self.ALLOWED_ACTIONS

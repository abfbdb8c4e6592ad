"""Checks a user keymap against the app's bindings, without Textual (so it is unit-testable).

Textual applies a keymap silently: a key given to one action is taken from the action that had it
(``export = "e"`` leaves expand-all without a key) and an unknown binding id is ignored. Here each
entry is checked first; the app applies only what passes and shows the rest as problems.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# Textual's friendly names for some punctuation (textual.keys.KEY_NAME_REPLACEMENTS)
_REPLACEMENTS = {
    "solidus": "slash",
    "reverse_solidus": "backslash",
    "commercial_at": "at",
    "hyphen_minus": "minus",
    "plus_sign": "plus",
    "low_line": "underscore",
}


@dataclass(frozen=True)
class BindingSpec:
    """One default binding: its id (None: it cannot be remapped), keys, label and where it is active."""

    id: str | None
    keys: tuple[str, ...]
    description: str
    scope: str


def normalize_key(key: str) -> str:
    """The key as Textual names it ("?" -> "question_mark"), so that two spellings compare equal."""
    key = key.strip()
    if len(key) == 1 and not key.isalnum():
        try:
            key = unicodedata.name(key).lower().replace("-", "_").replace(" ", "_")
        except ValueError:
            return key
    return _REPLACEMENTS.get(key, key)


def _split(keys: str) -> list[str]:
    return [k.strip() for k in keys.split(",") if k.strip()]


def check_keymap(
    keymap: Mapping[str, str], specs: Iterable[BindingSpec], source: str
) -> tuple[dict[str, str], list[str]]:
    """Return (the entries that can be applied, one message per problem), naming ``source``.

    A key stays with the action that has it by default: a key the user adds never takes one away
    silently; the user frees it by giving that action another key. Between two entries of the file
    that want the same key, the first wins. Keys only clash within one scope (the app's keys and,
    say, the URL table's are active together but the focused widget's win by design)."""
    specs = list(specs)
    by_id = {s.id: s for s in specs if s.id}
    problems: list[str] = []
    wanted: dict[str, list[str]] = {}
    for binding_id, keys in keymap.items():
        if binding_id in by_id:
            wanted[binding_id] = _split(keys)
            continue
        near = difflib.get_close_matches(binding_id, list(by_id), n=1, cutoff=0.6)
        hint = f"; did you mean {near[0]!r}?" if near else " (the help screen, ?, lists the ids)"
        problems.append(f"{source}: keymap.{binding_id} = {keys!r}: no action has the id {binding_id!r}{hint}")

    # Entries that lose all their keys fall back to their defaults, which may then knock out keys
    # granted to later entries: repeat until nothing changes (the set of remapped ids only shrinks).
    remapped = set(wanted)
    said: dict[str, list[str]] = {}  # the clashes of entries dropped in an earlier round
    while True:
        holder: dict[tuple[str, str], tuple[BindingSpec, bool]] = {}
        for spec in specs:
            if spec.id not in remapped:
                for key in spec.keys:
                    holder.setdefault((spec.scope, normalize_key(key)), (spec, False))
        granted: dict[str, list[str]] = {}
        clashes: dict[str, list[str]] = {}
        for binding_id in wanted:
            if binding_id not in remapped:
                continue
            spec = by_id[binding_id]
            for key in wanted[binding_id]:
                slot = (spec.scope, normalize_key(key))
                if slot in holder and holder[slot][0] is not spec:
                    other, by_user = holder[slot]
                    name = f"{other.id} ({other.description})" if other.id else repr(other.description)
                    why = ("the first entry in the file wins" if by_user
                           else "an action keeps its default key until you give it another")
                    clashes.setdefault(binding_id, []).append(
                        f"{source}: keymap.{binding_id}: key \"{key}\" already belongs to {name}; "
                        f"not applied to {binding_id} ({why})")
                    continue
                holder[slot] = (spec, True)
                granted.setdefault(binding_id, []).append(key)
        lost = remapped - set(granted)
        for binding_id in lost:
            said[binding_id] = clashes.get(binding_id, [])
        if not lost:
            break
        remapped -= lost
    applied = {b: ",".join(granted[b]) for b in wanted if b in granted}
    for binding_id in wanted:
        problems += said.get(binding_id) or clashes.get(binding_id, [])
    return applied, problems

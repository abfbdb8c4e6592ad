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


# the names Textual gives keys that are no character (textual.keys.Keys, lower-case)
_NAMED = frozenset({
    "escape", "enter", "tab", "space", "backspace", "delete", "insert", "home", "end", "pageup", "pagedown",
    "up", "down", "left", "right", *(f"f{i}" for i in range(1, 25)),
})
_MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})


def key_problem(key: str) -> str | None:
    """Why ``key`` is no key Textual would ever report (a binding to it is never pressed), or
    None: lower-case modifiers joined by "+", then a character, a named key (f5, pageup) or a
    character's name (question_mark)."""
    *mods, base = key.split("+") if key != "+" else [key]
    bad = [m for m in mods if m not in _MODIFIERS]
    if bad:
        return f"{bad[0]!r} is no modifier (ctrl, shift, alt; lower-case)"
    if len(base) == 1 and base.isprintable():
        return None
    if base in _NAMED or base in _REPLACEMENTS.values():
        return None
    # a character by its name, as Textual gives punctuation (question_mark, greater_than_sign:
    # its Unicode name with spaces and hyphens made "_"); an alias ("esc", "del") is no such name
    if base.islower() and any(_character_named(base, name) for name in _spellings(base)):
        return None
    return f"{base!r} is no key name (lower-case: f5, pageup, space, question_mark)"


def _spellings(base: str) -> list[str]:
    """The Unicode names ``base`` may stand for: each "_" a space or a hyphen (a few at most)."""
    parts = base.upper().split("_")
    if len(parts) > 6:
        return []
    names = [parts[0]]
    for part in parts[1:]:
        names = [n + sep + part for n in names for sep in (" ", "-")]
    return names


def _character_named(base: str, name: str) -> bool:
    try:
        ch = unicodedata.lookup(name)
    except KeyError:
        return False
    return normalize_key(ch) == base


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
            # a key no terminal reports ("F5", "ctrl-s") took the action's default key away and
            # gave it none (found from outside): the entry is not applied, and said
            bad = next(((k, why) for k in _split(keys) if (why := key_problem(k)) is not None), None)
            if bad is not None:
                problems.append(f"{source}: keymap.{binding_id} = {keys!r}: {bad[1]}; not applied"
                                f" ({binding_id} keeps its default key)")
                continue
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
    problems += _shadowed(applied, by_id, specs, source)
    return applied, problems


# the widgets whose own keys win over the app's while they have the focus (a dialog's are modal)
_WIDGETS = {"SitemapTree": "the tree", "UrlGrid": "the URL table", "IssueTree": "the Issues pane",
            "IssuesPane": "the Issues pane", "LastmodChart": "the lastmod chart"}


def _shadowed(applied: Mapping[str, str], by_id: Mapping[str, BindingSpec], specs: list[BindingSpec],
              source: str) -> list[str]:
    """An app key a focused widget also binds works everywhere but there: said, applied (found
    from outside: expand_all = "space" collapsed the tree's node, unsaid)."""
    out = []
    for binding_id, keys in applied.items():
        if by_id[binding_id].scope != "app":
            continue
        for key in _split(keys):
            for spec in specs:
                where = _WIDGETS.get(spec.scope)
                if where and normalize_key(key) in {normalize_key(k) for k in spec.keys}:
                    out.append(f"{source}: keymap.{binding_id}: key \"{key}\" is also {spec.description!r} in"
                               f" {where}, which takes it while it has the focus")
    return out

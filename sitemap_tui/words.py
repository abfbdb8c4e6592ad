"""Counted nouns and indefinite articles for user-visible text ("1 file", "an RSS feed").

A few rules cover the small, fixed vocabulary the tool prints (files, URLs, sitemaps, format
names); `inflect` would cover English at large but costs a dependency and an import for that."""

from __future__ import annotations

# nouns whose plural is not noun + "s"
_IRREGULAR = {"entry": "entries", "index": "indexes", "child": "children", "this": "these", "is": "are",
              "was": "were", "it": "they"}
# letters whose name starts with a vowel sound: "an HTML page", "an RSS feed", "an XML file"
_VOWEL_LETTERS = frozenset("AEFHILMNORSX")
# lower-case words that start with a vowel letter but a consonant sound, and the reverse
_CONSONANT_SOUND = ("uni", "use", "usu", "url", "uri", "one", "once", "eu")
_VOWEL_SOUND = ("hour", "honest", "honou", "heir")


def plural_of(noun: str) -> str:
    """The plural of one of the tool's nouns ("URL" → "URLs", "entry" → "entries")."""
    if noun in _IRREGULAR:
        return _IRREGULAR[noun]
    if noun.endswith(("s", "x", "ch", "sh")) and not noun.isupper():
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u") and not noun.isupper():
        return noun[:-1] + "ies"
    return noun + "s"


def noun(count: int, singular: str, plural: str | None = None) -> str:
    """The noun alone, in the number ``count`` asks for ("file" / "files")."""
    if count == 1:
        return singular
    return plural if plural is not None else plural_of(singular)


def plural(count: int, singular: str, plural: str | None = None) -> str:
    """``count`` (with thousands separators) and the noun in the right number: "1 file",
    "0 files", "12,000 URLs"."""
    return f"{count:,} {noun(count, singular, plural)}"


def article(phrase: str) -> str:
    """``phrase`` with "a" or "an" in front, by the sound of its first word."""
    word = phrase.split(" ", 1)[0]
    if not word:
        return "a " + phrase
    if len(word) > 1 and word.isupper():  # an acronym, read letter by letter
        vowel = word[0] in _VOWEL_LETTERS
    else:
        low = word.lower()
        if low.startswith(_VOWEL_SOUND):
            vowel = True
        elif low.startswith(_CONSONANT_SOUND):
            vowel = False
        else:
            vowel = low[0] in "aeiou"
    return ("an " if vowel else "a ") + phrase

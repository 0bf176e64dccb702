"""The indefinite article before a word or a number in what the board says: "an Elderly Man",
"a Judge", "an 8x8 board", "a 10x9 board".

The article follows the sound, not the letter; spelling settles it for the words the board
names, with the few exceptions English keeps ("a unit", "an hour"), numbers read aloud
("an 8", "an 11", "an 18", "a 1") and letters said by their names ("an X", "a B").
"""

from __future__ import annotations

import re

_SOUNDS_CONSONANT = ("one", "once", "uni", "use", "usu", "uti", "eu", "ewe")
_SOUNDS_VOWEL = ("hour", "honest", "honour", "heir")
_NUMBER = re.compile(r"\d+")
_VOWEL_LETTERS = frozenset("AEFHILMNORSX")
"""Letters whose names begin with a vowel sound ("an S", "an O")."""


def article(word: str) -> str:
    """The article said before `word`: "a" or "an"."""
    if len(word) == 1 and word.isalpha():  # a letter, said by its name: "an X", "a B"
        return "an" if word.upper() in _VOWEL_LETTERS else "a"
    number = _NUMBER.match(word)
    if number:
        digits = number[0]
        eleven = len(digits) % 3 == 2 and digits[:2] in ("11", "18")
        return "an" if digits[0] == "8" or eleven else "a"
    lower = word.lower()
    if lower.startswith(_SOUNDS_CONSONANT):
        return "a"
    if lower.startswith(_SOUNDS_VOWEL) or lower[:1] in ("a", "e", "i", "o", "u"):
        return "an"
    return "a"


def with_article(word: str) -> str:
    """`word` after its indefinite article: "an Explorer"."""
    return f"{article(word)} {word}"

"""How a word or a phrase is found in a sentence, whatever its form: two stems are one
word when one starts the other and the rest is an ending Snowball leaves ("deliv",
"deliveri"); a Latin phrase is found as whole words, a Thai or Burmese one anywhere
(they put no spaces between words)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

#: What a word's stem may have past another's and still be the same word (Snowball
#: leaves "deliv" and "deliveri", "child" and "children"); "takeaway" is not "take",
#: "homemad" not "home".
_ENDINGS = frozenset({"", "e", "s", "es", "i", "y", "ri", "eri", "er", "ers", "in", "ing",
                      "ren", "ship", "al", "ion", "ment", "ed"})


@cache
def forms(stem: str) -> frozenset[str]:
    """Every stem that :func:`meets` ``stem``."""
    found = {stem}
    if len(stem) >= 4:
        found |= {stem + ending for ending in _ENDINGS}
    found |= {stem[:-len(e)] for e in _ENDINGS
              if e and stem.endswith(e) and len(stem) - len(e) >= 4}
    return frozenset(found)


@cache
def phrases_pattern(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern finding any of ``phrases`` (casefolded) as :func:`says` does: Latin
    ones as whole words; Thai and Burmese ones anywhere, but ปิด (closed) inside เปิด
    (open)."""
    if not phrases:
        return None
    parts = [_whole(p) if p.isascii() else
             (rf"(?<!เ){re.escape(p)}" if p.startswith("ปิด") else re.escape(p))
             for p in sorted(set(phrases), key=len, reverse=True)]
    return re.compile("|".join(parts))


def meets(stem: str, other: str) -> bool:
    """Whether two stems are one word ("deliv" and "deliveri"; not "take" and
    "takeaway")."""
    if stem == other:
        return True
    short, long_ = (stem, other) if len(stem) <= len(other) else (other, stem)
    return len(short) >= 4 and long_.startswith(short) and long_[len(short):] in _ENDINGS


def says(phrase: str, folded: str) -> bool:
    """Whether ``folded`` holds ``phrase`` (a Latin phrase as whole words)."""
    if not phrase.isascii():
        # Thai puts no spaces between words: a phrase is any place it occurs, but the
        # one known trap, ปิด (closed) inside เปิด (open), is stepped over.
        return any(not (phrase.startswith("ปิด") and folded[i - 1:i] == "เ")
                   for i in _places(phrase, folded))
    return re.search(_whole(phrase), folded) is not None


def _whole(phrase: str) -> str:
    """A Latin phrase as whole words: no word character just before or after it, where
    it begins or ends with one ("'s facebook" may follow a name)."""
    return ((r"(?<![\w])" if phrase[:1].isalnum() else "") + re.escape(phrase)
            + (r"(?![\w])" if phrase[-1:].isalnum() else ""))


def _places(phrase: str, text: str) -> Iterable[int]:
    start = text.find(phrase)
    while start >= 0:
        yield start
        start = text.find(phrase, start + 1)


def one_letter_from(word: str, known: frozenset[str]) -> str | None:
    """The one word of ``known`` (four letters or more) a letter added, dropped or changed
    away from ``word``; None when none is, or more than one."""
    near = [k for k in _by_first(word[:1], known) if abs(len(k) - len(word)) <= 1
            and _one_edit(word, k)]
    return near[0] if len(near) == 1 else None


@cache
def _by_first(letter: str, known: frozenset[str]) -> tuple[str, ...]:
    return tuple(k for k in known if k[:1] == letter and len(k) >= 4)


def _one_edit(one: str, other: str) -> bool:
    if len(one) > len(other):
        one, other = other, one
    if len(one) == len(other):
        return sum(a != b for a, b in zip(one, other, strict=True)) == 1
    return any(other[:i] + other[i + 1:] == one for i in range(len(other)))

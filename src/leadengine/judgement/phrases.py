"""The vocabulary's phrases as a question uses them: a phrase read as another word
("turns up" is a walk-in, "send a technician" is coming: ``asked_as:`` in
``data/answer_words.yaml``), a phrase led by
a word of its group read as that word ("QR code", "loyalty card"), and the two-word
phrases that show where a question's head noun is ("credit or debit card")."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache

from leadengine.judgement.sentences import LATIN_WORD, answer_groups, answer_words, stem
from leadengine.retrieval.glossary import shipped_groups
from leadengine.retrieval.tokenize import STOP_WORDS


@cache
def asked_as() -> tuple[tuple[re.Pattern[str], str], ...]:
    """``asked_as:`` of the answer words: a phrase (its words in any form) -> the word
    it is read as, the longer phrases first."""
    found = [(str(phrase), str(word))
             for word, phrases in (answer_words().get("asked_as") or {}).items()
             for phrase in phrases or ()]
    found.sort(key=lambda item: len(item[0]), reverse=True)
    return tuple((re.compile(r"\b" + r"\s+".join(re.escape(w) + r"\w*" for w in phrase.split())
                             + r"\b"), word) for phrase, word in found)


def tails(stems: list[str], asking: frozenset[str]) -> set[int]:
    """Where the later words of a phrase of the vocabulary stand, when the phrase's first
    word alone is a word of its group and the others are not ("QR code", "loyalty card",
    "halal food"): the first word carries the phrase, so a "card" asked as part of a
    loyalty card is no question about cards."""
    found: set[int] = set()
    for place, first in enumerate(stems):
        if first in STOP_WORDS or first in asking:
            continue
        for rest in _phrases().get(first, ()):
            if tuple(stems[place + 1:place + 1 + len(rest)]) == rest:
                found.update(range(place + 1, place + 1 + len(rest)))
    return found


@cache
def _phrases() -> Mapping[str, tuple[tuple[str, ...], ...]]:
    """First stem -> the rest of the vocabulary's phrases led by it (see :func:`tails`)."""
    found: dict[str, list[tuple[str, ...]]] = {}
    for ones, stems in _english():
        if len(stems) > 1 and stems[0] in ones and ones.isdisjoint(stems[1:]):
            found.setdefault(stems[0], []).append(stems[1:])
    return {first: tuple(rests) for first, rests in found.items()}


@cache
def pairs() -> frozenset[tuple[str, str]]:
    """The two-word English phrases of the vocabulary, as stems ("debit card")."""
    return frozenset((stems[0], stems[1]) for _, stems in _english() if len(stems) == 2)


@cache
def _english() -> tuple[tuple[frozenset[str], tuple[str, ...]], ...]:
    """Every English entry of the vocabulary's groups (answer words, glossary) as stems,
    with the stems of its group's one-word entries."""
    found: list[tuple[frozenset[str], tuple[str, ...]]] = []
    for group in (*answer_groups(), *shipped_groups()):
        ones = frozenset(stem(e) for e in group.en if LATIN_WORD.fullmatch(e))
        found += [(ones, tuple(stem(w) for w in LATIN_WORD.findall(entry.lower())))
                  for entry in group.en]
    return tuple(found)

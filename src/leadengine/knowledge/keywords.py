"""Counting the knowledge base's keywords in a site's text, the way its rules are written.

Latin-script keywords match whole words, case-insensitive, plural -s/-es allowed;
Thai and Burmese keywords match anywhere, since those scripts do not separate
words with spaces.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import ClassVar

from leadengine.knowledge.rules import Rules

_ASCII_WORD = re.compile(r"^[\x00-\x7f]+$")
_WORD = re.compile(r"\w+")

#: Counts the occurrences of some keywords in one text.
Count = Callable[[Sequence[str]], int]


class KeywordCounter:
    """Counts the rules' keywords in a text, built once per rule set.

    Single Latin words are looked up in one word-frequency table of the text
    (plural -s/-es included); Latin phrases use a whole-word regex each; Thai and
    Burmese keywords are substrings (those scripts do not separate words).
    """

    _cache: ClassVar[dict[int, tuple[Rules, KeywordCounter]]] = {}

    def __init__(self, rules: Rules) -> None:
        words = {k.lower() for p in rules.geography for k in p.aliases}
        words |= {k.lower() for i in rules.industries for k in i.keywords}
        words |= {k.lower() for s in rules.size_signals for k in s.keywords}
        words |= {k.lower() for a in rules.angles for k in a.keywords}
        self.single = {w for w in words if _ASCII_WORD.match(w) and re.fullmatch(r"\w+", w)}
        self.phrases = {w: _pattern(w) for w in words
                        if _ASCII_WORD.match(w) and w not in self.single}

    @classmethod
    def for_rules(cls, rules: Rules) -> KeywordCounter:
        cached = cls._cache.get(id(rules))
        if cached is None or cached[0] is not rules:
            if len(cls._cache) > 16:
                cls._cache.clear()
            cached = (rules, cls(rules))
            cls._cache[id(rules)] = cached
        return cached[1]

    def counting(self, text: str) -> Count:
        """A function counting keyword occurrences in ``text`` (lower-cased)."""
        frequency = Counter(_WORD.findall(text))

        def count(keywords: Sequence[str]) -> int:
            total = 0
            for keyword in keywords:
                word = keyword.lower()
                if word in self.single:
                    total += frequency[word] + frequency[word + "s"] + frequency[word + "es"]
                elif word in self.phrases:
                    # The substring test (in C) spares the regex for absent phrases.
                    if word in text:
                        total += len(self.phrases[word].findall(text))
                else:
                    total += text.count(word)
            return total

        return count


@lru_cache(maxsize=4096)
def _pattern(keyword: str) -> re.Pattern[str]:
    """Latin keywords match whole words (plural s allowed); Thai/Burmese match as substrings,
    since those scripts do not separate words with spaces."""
    escaped = re.escape(keyword.lower())
    if _ASCII_WORD.match(keyword):
        return re.compile(rf"(?<![\w]){escaped}(?:s|es)?(?![\w])")
    return re.compile(escaped)

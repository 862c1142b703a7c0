"""Query expansion with a multilingual business glossary, so a Thai or Burmese website
meets an English knowledge base in ``bm25`` (and ``semantic``, ``hybrid``) however long
the query is.

A glossary is groups of words that mean one thing: the English words an advice text
uses (``en``) and the words of other languages, or English synonyms, that mean them
(``terms``). The shipped glossary (``data/glossary.yaml``: Thai and Burmese) and the
knowledge base's own front matter (``leadengine: aliases:``, edited by the team) are
merged. A query that holds a group's term gets the group's English words appended, once
per group. Terms in scripts without word spaces (Thai, Burmese, CJK...) are found as
substrings, leftmost and longest first, not overlapping; Latin-script terms as whole
words, case-insensitively. The ``keyword`` method (the seed's algorithm) is never
expanded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from leadengine.errors import ConfigError
from leadengine.knowledge.text_scan import Buckets, buckets, leftmost_longest
from leadengine.knowledge.yaml_data import safe_load

GLOSSARY_FILE = Path(__file__).resolve().parents[1] / "data" / "glossary.yaml"

#: Runs of characters past Latin (where unspaced-script terms begin).
_SCRIPT_RUN = re.compile("[^\x00-\u024f]+")


@dataclass(frozen=True)
class Group:
    """English words, and the terms that mean them."""

    en: tuple[str, ...]
    terms: tuple[str, ...]


class Glossary:
    """Terms -> the English words of their groups, and the expansion of a query."""

    def __init__(self, groups: Iterable[Group]) -> None:
        self.groups = list(groups)
        script: list[tuple[str, int]] = []
        latin: dict[str, int] = {}
        for number, group in enumerate(self.groups):
            for term in group.terms:
                term = " ".join(term.lower().split())
                if _SCRIPT_RUN.match(term):
                    script.append((term, number))
                elif term:
                    latin.setdefault(term, number)
        #: Unspaced-script terms by their first two characters, longest first.
        self.prefixes: Buckets[int] = buckets(script)
        self.latin = latin
        # A term that starts with a sign may follow a word ("15% off"); one that ends in
        # Thai or Burmese may run on into the next word ("Viber ကနေ မှာလို့").
        ordered = sorted(latin, key=len, reverse=True)
        self._latin_pattern = re.compile(
            r"(?:(?<![\w])|(?=[^\w\s]))(?:(?:" + "|".join(
                re.escape(t) for t in ordered if t[-1].isascii())
            + r")(?:e?s)?(?![\w])|" + "|".join(
                [re.escape(t) for t in ordered if not t[-1].isascii()]
                or ["(?!)"]) + ")") if latin else None

    def matches(self, query: str) -> list[int]:
        """The groups whose terms ``query`` holds, in order of first appearance."""
        text = query.lower()
        found: dict[int, None] = {}
        if self.prefixes and not text.isascii():
            found.update((number, None) for _, _, number
                         in leftmost_longest(text, self.prefixes, _SCRIPT_RUN))
        if self._latin_pattern is not None:
            for match in self._latin_pattern.finditer(text):
                word = match.group()  # or a plural: "clinics"
                known = next((self.latin[w] for w in (word, word[:-1], word[:-2])
                              if w in self.latin), None)
                if known is not None:
                    found[known] = None
        return list(found)

    def found_at(self, query: str) -> list[tuple[int, int]]:
        """(where it starts, group number) of every term ``query`` holds."""
        text = query.lower()
        found: list[tuple[int, int]] = []
        if self.prefixes and not text.isascii():
            found += [(start, number) for start, _, number
                      in leftmost_longest(text, self.prefixes, _SCRIPT_RUN)]
        if self._latin_pattern is not None:
            for match in self._latin_pattern.finditer(text):
                word = match.group()
                known = next((self.latin[w] for w in (word, word[:-1], word[:-2])
                              if w in self.latin), None)
                if known is not None:
                    found.append((match.start(), known))
        return sorted(found)

    def expand(self, query: str) -> str:
        """``query`` with the English words of every group it names appended."""
        numbers = self.matches(query)
        if not numbers:
            return query
        words = dict.fromkeys(w for n in numbers for w in self.groups[n].en)
        return f"{query}\n{' '.join(words)}"


def read_groups(data: object, where: str) -> list[Group]:
    """Groups from glossary data: a list of ``{en: [...], <language>: [...], ...}``
    (every key but ``en`` lists terms); a one-line ConfigError naming ``where``."""
    if not isinstance(data, list):
        raise ConfigError(f"{where}: expected a list of groups")
    groups = []
    for number, item in enumerate(data, 1):
        if not isinstance(item, dict) or not item.get("en"):
            raise ConfigError(f"{where}: group {number} has no 'en' words")
        lists = dict(item)
        if not all(isinstance(v, list) and all(isinstance(w, str) for w in v)
                   for v in lists.values()):
            raise ConfigError(f"{where}: group {number}: every key must list words")
        en = tuple(w.strip().lower() for w in lists.pop("en") if w.strip())
        terms = tuple(w.strip() for v in lists.values() for w in v if w.strip())
        groups.append(Group(en, terms))
    return groups


@cache
def shipped_groups() -> tuple[Group, ...]:
    """The groups of the shipped glossary (``data/glossary.yaml``)."""
    try:
        data = safe_load(GLOSSARY_FILE.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read the glossary {GLOSSARY_FILE.name}: {exc}") from None
    groups = data.get("groups") if isinstance(data, dict) else None
    return tuple(read_groups(groups, GLOSSARY_FILE.name))


def glossary_for(aliases: Sequence[Group] = ()) -> Glossary:
    """The shipped glossary extended by a knowledge base's own aliases."""
    return Glossary([*shipped_groups(), *aliases])

"""Whether a word of a sentence means what a question asks by it, where the word alone
cannot say: an app whose name is an English word (LINE), a compound (a walk-in), a word
that is part of a place's name (Lumpini Park), a word that needs another beside it (a
QR code is a payment's only where paying is said: ``context:`` in
``data/answer_words.yaml``)."""

from __future__ import annotations

import re

from leadengine.judgement.sentences import stems_of, translated, vocabulary


def meant(key: str, text: str) -> bool:
    """Whether ``key``, found in ``text`` (one sentence), means what the question asks:
    LINE the app is written as a name in English ("LINE", "Line ID", "Line@"; "line up",
    "a washing line", "fine line" are no LINE account), or said in Thai or Burmese (ไลน์);
    a walk-in is written as one; a word of ``context:`` has one of its words beside it;
    a park that is a place's name ("Lumpini Park") is no parking."""
    written = _NAMES.get(key)
    if written is not None:
        if written.search(text) is not None:
            return True
        return key in translated(_LATIN_RUN.sub(" ", text))  # ไลน์, not the English word
    compound = _COMPOUNDS.get(key)
    if compound is not None and compound.search(text) is None \
            and key not in translated(text):  # "we walk beside them"; "drop-ins" is one
        return False
    needs = vocabulary().context.get(key)
    if needs is not None:
        stems, words = needs
        # (its own words, not what its group brings: "transfer" brings "bank")
        if stems.isdisjoint(stems_of(text)) \
                and not any(word in text for word in words):
            return False
    place = _PLACES.get(key)
    if place is not None and place.search(text):
        rest = place.sub(" ", text)
        return key in stems_of(rest) | translated(rest)
    return True


#: Words asked as part of a compound, as the compound is written in English: a
#: "walk-in", not a walk.
_COMPOUNDS = {"walk": re.compile(r"\bwalk[\s-]?ins?\b", re.I)}
#: Apps whose name is an English word, as their name is written.
_NAMES = {"line": re.compile(r"\bLINE\b|\bLine\s*(?:ID|Id|id|@|:|OA|Official|official|"
                             r"account|app|chat|group|us)\b|\bline\s*(?:id|@|oa)\b|"
                             r"\b(?:on|via|add us on|add|our)\s+Line\b")}
#: Words that are part of places' names ("Maha Bandula Park", "Khao Sok National Park").
_PLACES = {"park": re.compile(r"\b(?:[A-Z][\w'-]+\s+)+Park\b|\b(?:national|public|water|"
                              r"theme|amusement|industrial|business|science)\s+park\b")}
_LATIN_RUN = re.compile(r"[A-Za-z][A-Za-z0-9@._-]*")

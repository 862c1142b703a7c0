"""A choice question ("Which payment methods do they take?") answered by the sentence
that names one of its options best: the option named first on ties, never one named in
a negated sentence; the question's "none stated" option (or unknown) when none is."""

from __future__ import annotations

import re
from collections.abc import Sequence

from leadengine.judgement.answer import NOT_ANSWERED, UNKNOWN, Answer, evidence_of
from leadengine.judgement.matching import Wanted, matched
from leadengine.judgement.polarity import CLAUSE, negated
from leadengine.judgement.sentences import LATIN_WORD, Line, stems_of, translated, vocabulary
from leadengine.judgement.wordforms import forms
from leadengine.knowledge.rules import Question


def choice_answer(question: Question, want: Wanted, lines: Sequence[Line]) -> Answer:
    """A choice: the sentence that names an option best (the question's own words
    breaking ties), and that option; unknown when none names one."""
    best: tuple[float, float, int, Line, str] | None = None
    for line in lines:
        option, share = _named(question.options, line)
        if option is None:
            continue
        held = len(matched(want, line.stems, line.text)) / max(1, len(want.keys))
        rank = (share, held, -len(line.text))
        if best is None or rank > best[:3]:
            best = (*rank, line, option)
    if best is None:
        # Nothing named: the option that says so ("none stated"), if the question has one.
        silent = next((o for o in question.options if _SILENT.fullmatch(o.strip())), None)
        return Answer(silent) if silent else NOT_ANSWERED
    line, option = best[3], best[4]
    return Answer(option, evidence_of(line), line.source, round(0.5 + 0.4 * best[0], 2))


def _named(options: Sequence[str], line: Line) -> tuple[str | None, float]:
    """The option a clause of ``line`` names best, but in a negated clause ("Cash only,
    no cards": cash only)."""
    if not negated(line.text):
        return _option(options, line)
    best: tuple[str | None, float] = (None, 0.0)
    for part in CLAUSE.split(line.text):
        if part and part.strip() and not negated(part):
            found = _option(options, Line(part, line.source,
                                          frozenset(stems_of(part) | translated(part))))
            if found[1] > best[1]:
                best = found
    return best


#: An option that means the site does not say.
_SILENT = re.compile(r"unknown|none stated|not stated|not mentioned|not said|n/?a|"
                     r"don't know|no answer", re.I)


def _option(options: Sequence[str], line: Line) -> tuple[str | None, float]:
    """The option ``line`` names (most of its words) and the share of its words named;
    (None, 0) when it names none."""
    best, held = None, 0.0
    for option in options:
        if option.strip().lower() == UNKNOWN:
            continue
        # The option's own words (the line's stems hold what its Thai or Burmese means).
        stems = stems_of(option) or translated(option)
        if not stems:
            continue
        share = sum(1 for s in stems if not forms(s).isdisjoint(line.stems)) / len(stems)
        if share >= 0.66 and (share > held or (share == held and best is not None and
                                                _place(option, line.text) <
                                                _place(best, line.text))):
            best, held = option, share
    return best, held


def _place(option: str, text: str) -> int:
    """Where ``text`` first names ``option`` (its words, or the Thai or Burmese terms
    meaning them); past the end when it cannot tell."""
    folded = text.casefold()
    places = [folded.find(w) for w in LATIN_WORD.findall(option.casefold())
              if folded.find(w) >= 0]
    known = vocabulary()
    wanted_stems = stems_of(option)
    places += [start for start, number in known.words.found_at(text)
               if known.means[number] & wanted_stems]
    return min(places, default=len(text))

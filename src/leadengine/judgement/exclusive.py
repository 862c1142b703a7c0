"""A list said with "only": "We take cash and KBZPay only", "Our staff speak Myanmar
only", "ကြိုတင်ချိန်းဆိုမှုကို ဖုန်းဖြင့်သာ လက်ခံပါသည်" (appointments by phone only) name
all of a kind the business takes, and so answer "no" about any other member of that
kind (cards, English, booking online). The kinds and their members are the answer
words' (``kinds:`` in ``data/answer_words.yaml``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from leadengine.judgement.answer import Answer, evidence_of
from leadengine.judgement.matching import Wanted
from leadengine.judgement.polarity import CLAUSE
from leadengine.judgement.sentences import Line, stems_of, translated, vocabulary
from leadengine.judgement.wordforms import meets

#: "only": English, Thai (เท่านั้น, เฉพาะ, อย่างเดียว, รับแต่: takes only), Burmese (a word ending in သာ,
#: ပဲ or တည်း, "နှစ်မျိုးတည်း" just two kinds, before a verb or the clause's end; not the
#: sentence's "that's all" ပါပဲ: "KBZPay နဲ့ ငွေလွှဲရုံပါပဲ", just pay by KBZPay).
ONLY = re.compile(r"(?<![a-z])only(?![a-z])|เท่านั้น|เฉพาะ|อย่างเดียว|(?<=รับ)แต่|"
                  r"(?:(?<=[\u1000-\u109f])|(?<=[A-Za-z] ))(?:သာ|(?<!ပါ)ပဲ|တည်း)(?=\s|[။၊]|$)", re.I)


def only_answer(want: Wanted, lines: Sequence[Line]) -> Answer | None:
    """"no" from a clause that lists, with "only", members of a kind the question asks
    a member of but not that one; None when no clause does."""
    # what is asked, not how or which kind ("bank" of "bank cards")
    asked = ({key for key, weight, *_ in want.keys if weight == 1.0} or {
        key for key, *_ in want.keys}) - want.other
    said = {key for key, *_ in want.keys}  # how too ("message them on LINE")
    for line in lines:
        if ONLY.search(line.text) is None:
            continue
        for clause in CLAUSE.split(line.text):
            if clause and ONLY.search(clause) and _leaves_out(asked, said, clause):
                return Answer("no", evidence_of(line), line.source, 0.7)
    return None


def _leaves_out(asked: set[str], said: set[str], clause: str) -> bool:
    """Whether ``clause`` lists members of a kind ``asked`` holds a member of, but not
    the one asked (for a kind of what is done, "contact", done as the question says)."""
    named = stems_of(clause) | translated(clause)
    for members, needs in vocabulary().kinds.values():
        wanted_members = {k for k in asked if _among(k, members)}
        if not wanted_members or (needs and not (_among_any(said, needs)
                                                 and _among_any(named, needs))):
            continue
        listed = {n for n in named if _among(n, members)}
        if listed and not _among_any(listed, wanted_members):
            return True
    return False


def _among(word: str, stems: frozenset[str] | set[str]) -> bool:
    return any(meets(word, other) for other in stems)


def _among_any(words: set[str], stems: frozenset[str] | set[str]) -> bool:
    return any(_among(word, stems) for word in words)

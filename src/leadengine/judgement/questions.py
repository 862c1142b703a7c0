"""The team's questions ("Do they deliver?", "When do they open?"), answered from the
site: with the sentence that says so, the page it is on and a confidence, or
``unknown`` when nothing on the site answers. Never a guess without evidence.

Offline (:func:`answer_offline`) a question is matched against every line of every page
read (footers and opening hours included), across languages:

* the question's words (stop words and the asking verbs left out) and its ``hints`` are
  stemmed (Snowball); a word of a line matches a question word when one stem starts
  with the other (``deliver`` meets ``delivery``, ``deliveries``);
* a Thai or Burmese term of the shipped glossary (``data/glossary.yaml``) in a line
  brings its group's English words with it, so "Do they deliver?" meets
  ``บริการส่งถึงบ้าน`` and ``အိမ်အရောက်ပို့``, and a question word of a group brings
  that group's other English words (``branches`` meets ``outlets``);
* the line that holds most of the question's words wins (a word of the glossary weighs
  twice an ordinary one); less than half of them, or none of its key words, is no
  answer;
* a yes/no answer is "no" when the clause holding the matched words is negated (not,
  no, without, closed, ไม่, งด, ปิด, မရှိ, ပိတ်...), else "yes"; a number is the
  first whole number of that clause (Thai and Burmese digits too); a choice is the
  option the line names; a text answer is the line itself.

A yes/no question with a ``signal`` is answered yes by the signal first (with its
evidence). An LLM's answers are checked against the pages by
:mod:`leadengine.judgement.model_answers`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache

from leadengine.judgement.answer import (
    NOT_ANSWERED,
    Answer,
    evidence_of,
)
from leadengine.judgement.asked_parts import clauses, one_sided
from leadengine.judgement.choices import choice_answer
from leadengine.judgement.counts import (
    COPYRIGHT,
    counted,
    number_answer,
    price_answer,
)
from leadengine.judgement.exclusive import only_answer
from leadengine.judgement.matching import (
    WALK_IN,
    Wanted,
    best_line,
    matched,
    negates,
    opposed,
    wanted,
)
from leadengine.judgement.open_asked import when_open
from leadengine.judgement.phrases import plain_ask
from leadengine.judgement.polarity import (
    BURMESE_BECAUSE,
    CANCELLED_TH,
    CLAUSE,
    ELSEWHERE,
    PAST,
    PLANNED,
    begins_no,
    faq_answer,
    is_asked,
    negated,
)
from leadengine.judgement.sentences import (
    LATIN_WORD,
    NO_BOOKING,
    Line,
    site_lines,
    stem,
    stems_of,
    translated,
    vocabulary,
)
from leadengine.judgement.turned import turned_round
from leadengine.judgement.values import number_in, time_of
from leadengine.judgement.wordforms import meets
from leadengine.knowledge.rules import Question
from leadengine.retrieval.tokenize import STOP_WORDS


def _clause(line: Line, want: Wanted) -> str:
    """The clause of ``line`` that holds the most of the question's words. Thai marks
    its clauses with spaces: there a clause is one space-separated piece, with the
    piece after it when that one holds none of the question's words (its comment:
    "บัตรเครดิต ไม่รับ", credit cards, not taken) and the one before it when that one is
    only a negation ("ขออภัย ไม่ มีที่จอดรถ")."""
    parts = [q for p in _asides(line.text) for q in CLAUSE.split(p) if q and q.strip()]
    pieces = [q for p in parts for q in (_THAI_SPACE.split(p) if _THAI.search(p) else [p])
              if q.strip()]
    if len(pieces) <= 1:
        return line.text

    # a member of a kind (English of languages, cards of payments) tells a clause about it
    # from one about its kind's other members ("staff speak Malay, but English not yet")
    weights = {key: weight + (0.5 if key in _kind_members() else 0.0)
               for key, weight, _, _ in want.keys}

    def held(part: str) -> float:  # what the clause holds, by the keys' weights
        return sum(weights[key] for key in matched(
            want, frozenset(stems_of(part) | translated(part)), part))

    counts = [held(piece) for piece in pieces]
    # of clauses that hold as much, the one after "but" ("the crew can't speak English,
    # but the supervisor can")
    best = max(range(len(pieces)), key=lambda i: (counts[i], _BUT.match(pieces[i]) is not None))
    clause = pieces[best]
    if best > 0 and _LIST_END.search(clause) and _LIST_START.search(pieces[best - 1]) \
            and re.search(re.escape(pieces[best - 1]) + r"\s*,\s*" + re.escape(clause.strip()),
                          line.text):  # "we don't ship, deliver or sell online"
        clause = f"{pieces[best - 1]}, {clause}"
    # A Burmese list item ("ခရက်ဒစ်ကတ်၊ ဒက်ဘစ်ကတ် လက်မခံပါ"): its verb, and so its
    # negation, ends the sentence.
    following = best + 1
    while _BURMESE.search(line.text) and not _BURMESE_VERB_END.search(clause) \
            and following < len(pieces) and _BURMESE.search(pieces[following]) \
            and ("တော့" in clause  # "X ကိုတော့ (as for X) ...လို့ (because) <verb>"
                 or not re.search(re.escape(pieces[following - 1].rstrip()) + r"\s*"
                                  + BURMESE_BECAUSE, line.text)):  # "...ထားလို့ ...": its own
        clause = f"{clause} {pieces[following]}"
        following += 1
    if pieces[best] not in parts:  # a Thai piece: its comment and its negation
        if best + 1 < len(pieces) and counts[best + 1] == 0 \
                and _THAI_COMMENT.match(pieces[best + 1]) \
                and (not translated(pieces[best + 1])  # a comment, not a topic of its own
                     or re.match(CANCELLED_TH, pieces[best + 1].strip())):
            clause = f"{clause} {pieces[best + 1]}"
        if best > 0 and _THAI_NEGATION_ONLY.fullmatch(pieces[best - 1].strip()):
            clause = f"{pieces[best - 1]} {clause}"
    return clause


@cache
def _kind_members() -> frozenset[str]:
    """The members of the answer words' kinds (languages, payments, channels)."""
    return frozenset(m for members, _ in vocabulary().kinds.values() for m in members)


_THAI = re.compile(r"[\u0e00-\u0e7f]")
#: A clause that begins with "but".
_BUT = re.compile(r"\s*(?:but|however|แต่|ထို့ပြင်|သို့သော်)", re.I)
#: The last items of a list ("..., deliver or sell online"): a negation before its first
#: comma is theirs too.
_LIST_END = re.compile(r"^\s*(?!(?:we|they|i|you|it|he|she)\b)[A-Za-z-]+(?:\s+[A-Za-z-]+)?"
                       r"\s+(?:or|nor|and)\s", re.I)
#: A list's first item after a negation, up to its comma ("we don't ship, ...").
_LIST_START = re.compile(r"(?:n't|\bnot|\bnever)\s+[A-Za-z-]+\s*$", re.I)
#: Where a clause says something aside: a long parenthesis ("(no Amex, sorry)"; a short
#: one names what it follows: "(gift card)").
_ASIDE = re.compile(r"\s*\(([^()]{12,})\)")


def _asides(part: str) -> list[str]:
    """``part`` cut at its long parentheses and at a colon after four words or more
    ("We can't take Visa at the moment: cash or bank transfer only"; "Parking: none"
    stays whole)."""
    pieces = []
    for piece in _ASIDE.split(part):
        head, colon, tail = piece.partition(": ")
        if colon and len(head.split()) >= 4:
            pieces += [head, tail]
        else:
            pieces.append(piece)
    return [p for p in pieces if p and p.strip()]
_BURMESE = re.compile(r"[\u1000-\u109f]")
#: How a Burmese clause with its verb ends (ပါ, တယ်, သည်, ဘူး, မယ်, ...).
_BURMESE_VERB_END = re.compile(r"(?:ပါ|တယ်|သည်|ဘူး|မယ်|မည်|နိုင်|ရ|ဘဲ|နော်|ရှင့်|ခင်ဗျာ|"
                               r"ရှင်|ပေး)\W*$")
_THAI_SPACE = re.compile(r"(?<=[\u0e00-\u0e7f])\s+(?=[\u0e00-\u0e7f])")
#: A Thai comment on what comes before it: whether it is taken or there ("ไม่รับ", "มีค่ะ",
#: "ยังไม่ได้ให้บริการ", "ยกเลิกไปแล้ว"), not another verb ("ไม่รั่ว": won't leak).
_THAI_COMMENT = re.compile(r"\s*(?:" + CANCELLED_TH + r"|(?:ยัง)?(?:ไม่|งด)?\s*(?:ได้)?\s*"
                           r"(?:รับ|มี|ได้|บริการ|ให้บริการ|ใช้|ชำระ|สะดวก|เปิด|ขาย|จ่าย))")
_THAI_NEGATION_ONLY = re.compile(r"ไม่|ไม่ได้|ยังไม่|งด|ไม่มี|ขออภัย\S*|ขอโทษ\S*")


def answer_offline(question: Question, lines: Sequence[Line],
                   signals: Mapping[str, bool] | None = None,
                   evidence: Mapping[str, str] | None = None) -> Answer:
    """The question answered from the site's lines (and, for a yes/no question with a
    ``signal``, from the site's signals first)."""
    question = question.model_copy(update={"ask": one_sided(plain_ask(question.ask))})
    if question.signal and signals and signals.get(question.signal):
        seen = (evidence or {}).get(question.signal, "")
        return Answer("yes", seen or f"the site shows {question.signal.replace('_', ' ')}",
                      "", 0.95)
    if question.type == "choice":
        return choice_answer(question, wanted(question), lines)
    turned = turned_round(question, lines, answer_offline) if question.type == "yes_no" \
        else None
    if turned is not None:
        return turned
    timed = when_open(question, lines)
    if timed is not None:
        return timed
    priced = price_answer(question.ask, lines) if question.type == "number" else None
    if priced is not None:  # "What is the lowest price?": every amount on the pages
        return priced
    if question.type == "number":  # a line with a number (a copyright's year is not one)
        lines = _numbered(question, lines)
    found_parts = _best_lines(question, lines)
    if not found_parts:  # "We take cash and KBZPay only": no cards
        found_only = only_answer(wanted(question), lines) \
            if question.type == "yes_no" else None
        return found_only or NOT_ANSWERED
    if question.type == "yes_no":
        return _yes_no_read_on(question, lines, found_parts)
    line, share, want = max(found_parts, key=lambda item: item[1])
    confidence = round(min(0.9, 0.5 + 0.4 * share), 2)
    clause = _clause(line, want)
    if is_asked(line.text) and line.after:  # the page's own question: the next line answers
        line = Line(line.after, line.source, line.stems)
        clause = line.text
    if question.type == "number":
        keys = {k[0] for k in want.keys}
        found_number = number_answer(question.ask, keys, clause, _counts(want))
        if found_number is None:
            return NOT_ANSWERED
        value: str | int = found_number
    else:
        value = evidence_of(line)
        if {"time"} & {k[0] for k in want.keys} or re.search(r"\bwhen\b", question.ask,
                                                              re.I):
            told = time_of(clause) or time_of(line.text)
            if told is not None:  # "What time do they open?": 10:00
                return Answer(told, evidence_of(line), line.source, confidence)
        if _heading(line.text) and line.after:  # a heading: what follows it
            after = evidence_of(Line(line.after, line.source, line.stems))
            return Answer(f"{line.text}: {after}", after, line.source, confidence)
    return Answer(value, evidence_of(line), line.source, confidence)



def _either_yes(found_parts: Sequence[tuple[Line, float, Wanted]]) -> Answer:
    """A yes/no question answered by its parts' lines (the question, and each of its
    alternatives: "transfer / QR / e-wallet"): one said yes answers yes; a "no" about
    one of them ("cash and transfer only": no QR) is no "no" about the rest."""
    said = [(_yes_no(line, _clause(line, want), want, round(min(0.9, 0.5 + 0.4 * share), 2)),
             share) for line, share, want in found_parts]
    yes = [item for item in said if item[0].value == "yes"]
    known = [item for item in said if item[0].value != "unknown"]
    return max(yes or known or said, key=lambda item: item[1])[0]


def _yes_no_read_on(question: Question, lines: Sequence[Line],
                    found_parts: list[tuple[Line, float, Wanted]]) -> Answer:
    """A yes/no question answered by its best lines; where they speak of a neighbour's
    or of what is only planned ("The nearest car park is behind the temple"), by the next
    best ones ("Sorry, we have no parking"), twice at most."""
    for _ in range(2):
        said = _either_yes(found_parts)
        if said is not NOT_ANSWERED:
            return said
        skipped = {line for line, *_ in found_parts}
        lines = [line for line in lines if line not in skipped]
        found_parts = _best_lines(question, lines)
        if not found_parts:
            return NOT_ANSWERED
    return _either_yes(found_parts)


def _best_lines(question: Question, lines: Sequence[Line]) -> list[tuple[Line, float, Wanted]]:
    """The best line of the question and of each of its alternatives, with its share and
    what that part wants (a part no line holds has none)."""
    return [(*found, want) for part in clauses(question)
            if (found := best_line(want := wanted(part), lines)) is not None]


def _numbered(question: Question, lines: Sequence[Line]) -> list[Line]:
    """The lines that may answer a number question: those with a number (but a
    copyright line's), and of them, when a count is asked for, those with a number next
    to a word of the question ("12 rooms", "အခန်း ၁၀ ခန်း") if any line has one."""
    found = [line for line in lines
             if not COPYRIGHT.search(line.text) and number_in(line.text) is not None]
    want = wanted(question)
    if "year" in {key[0] for key in want.keys}:
        return found
    near = [line for line in found if counted(line.text, _counts(want))]
    return near or found


def _counts(want: Wanted) -> Callable[[str], bool]:
    """Whether a stretch of text names what the question counts (a year is no count)."""
    def counts(text: str) -> bool:
        return bool(set(matched(want, frozenset(stems_of(text) | translated(text)), text))
                    - {"year"})
    return counts


def _yes_no(line: Line, clause: str, want: Wanted, confidence: float) -> Answer:
    """Yes or no, by the line that holds the question's words: "no" when its clause
    is negated or says the opposite ("cash only"). A question of the page's own (an
    FAQ's "Do you deliver?") is answered by the line after it, or in the line ("Q: ...?
    A: ..."); a heading ("Parking") is answered "no" by a line after it that begins
    negated ("Not available"), a label by what follows it ("Parking: sorry, ...")."""
    inline = _INLINE_ANSWER.search(line.text)
    if inline and is_asked(line.text[:inline.start()]):
        line = Line(line.text[:inline.start()], line.source, line.stems,
                    line.text[inline.end():])
    if is_asked(line.text) and line.after:
        answer = Line(line.after, line.source, frozenset())
        said = "no" if opposed(want, line.after) else faq_answer(line.after,
                                                                 _clause(answer, want))
        if opposed(want, line.text) and not opposed(want, line.after):
            # The page asks the other way round ("Do I need to book?" - "No"): walk-ins.
            said = "yes" if said == "no" else "no"
        if said == "yes" and PLANNED.search(line.after):
            return NOT_ANSWERED  # "Classes? - Next year we plan to start some."
        return Answer(said, _with_next(line), line.source, confidence)
    _, labelled, told = clause.partition(":")
    if negates(want, clause) or opposed(want, clause) or (
            labelled and begins_no(told)):
        return Answer("no", evidence_of(line), line.source, confidence)
    if PAST.search(clause):  # "We used to deliver": not now
        return Answer("no", evidence_of(line), line.source, confidence)
    if _label(line, want) and line.after:
        first = next((p for p in CLAUSE.split(line.after) if p and p.strip()), "")
        if _THAI.search(first):  # Thai: the piece about what is asked, or the first
            first = _clause(Line(first, line.source, frozenset()), want)
        if negated(first) or opposed(want, first):
            return Answer("no", _with_next(line), line.source, confidence)
    if ELSEWHERE.search(line.text) or PLANNED.search(clause):
        return NOT_ANSWERED  # a neighbour's Wi-Fi or parking, a card machine "soon"
    keys = {key for key, *_ in want.keys}
    if keys & _BOOKING and not keys & WALK_IN and NO_BOOKING.search(clause):
        return NOT_ANSWERED  # "No need to book" says nothing of booking by phone
    return Answer("yes", evidence_of(line), line.source, confidence)


#: The keys of a question about booking.
_BOOKING = frozenset({"book", "appoint", "reserv"})
#: Where a line's own answer to its own question starts: "Q: ...? A: ...".
_INLINE_ANSWER = re.compile(r"(?:^|\s)(?:A|Ans|Answer|ตอบ|ဖြေ)\s*[:：]\s*")


def _with_next(line: Line) -> str:
    """What is quoted of a line answered by the next one: both."""
    return evidence_of(Line(f"{line.text} {line.after}", "", frozenset()))


def _label(line: Line, want: Wanted) -> bool:
    """A line that only names what is asked ("Parking", "Delivery:"), as a heading or a
    table's first cell does, or a short Thai or Burmese heading over a line about it: the
    line after it says yes or no."""
    if line.text.rstrip().endswith((":", "：")):
        return True
    if not line.text.isascii():  # "ที่จอดรถ" over a line about parking
        text = line.text.strip()
        return len(text) <= 16 and _heading(text) and bool(line.after) and bool(matched(
            want, frozenset(stems_of(line.after) | translated(line.after)), line.after))
    words = LATIN_WORD.findall(line.text)
    return bool(words) and line.text.isascii() and len(words) <= 3 and all(
        any(meets(key[0], stem(w)) for key in want.keys) for w in words
        if w.lower() not in STOP_WORDS)


def _heading(text: str) -> bool:
    """A short line without a sentence's end: a heading such as "Opening hours"."""
    return len(text) <= 30 and not re.search(r"[.!?။]\s*$", text)


def answer_all(questions: Sequence[Question], passages: Sequence[tuple[str, str]],
               signals: Mapping[str, bool] | None = None,
               evidence: Mapping[str, str] | None = None) -> dict[str, Answer]:
    """Every question answered offline from the pages read."""
    if not questions:
        return {}
    lines = site_lines(passages)
    return {q.id: answer_offline(q, lines, signals, evidence) for q in questions}

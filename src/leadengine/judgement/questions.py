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
evidence). An LLM's answers (:func:`checked_model_answers`) are kept only when their
evidence is found, word for word, on a page read; otherwise the offline answer stands,
with a warning.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from leadengine.judgement.sentences import (
    LATIN_WORD,
    Line,
    site_lines,
    stem,
    stems_of,
    translated,
    vocabulary,
)
from leadengine.judgement.values import DIGITS, NUMBER, number_in, time_of, year_in
from leadengine.knowledge.rules import Question
from leadengine.retrieval.tokenize import STOP_WORDS

UNKNOWN = "unknown"
#: Words of a question that say nothing about what is asked.
ASKING = frozenset({
    "do", "does", "did", "they", "them", "their", "you", "your", "is", "are", "was",
    "have", "has", "any", "can", "could", "will", "would", "offer", "offers", "provide",
    "provides", "accept", "accepts", "take", "takes", "sell", "sells", "get", "there",
    "what", "which", "how", "many", "much", "when", "where", "who", "a", "an", "the",
    "it", "its", "business", "company", "shop", "store", "place", "service", "services",
    "customers", "customer", "clients", "client", "people", "guests", "visitors",
    "account", "available", "option", "options"})
#: Phrases that negate a need, and so say yes ("no booking needed": walk-ins welcome).
_NO_NEED = re.compile(
    r"no need|not (?:needed|required|necessary)|no (?:prior )?(?:booking|appointment|"
    r"reservation)s? (?:is |are )?(?:needed|required|necessary)|without (?:an? )?"
    r"(?:booking|appointment|reservation)|ไม่ต้อง|ไม่จำเป็น|မလိုပါ|မလို", re.I)
#: A clause that says the opposite: English words, and Thai and Burmese markers.
_NEGATION = re.compile(
    r"(?<![\w])(?:no|not|never|none|without|cannot|can't|cant|don't|dont|doesn't|"
    r"doesnt|isn't|aren't|won't|unavailable|closed|except|n't)(?![\w])"
    # ปิด (closed) not inside เปิด (open); งด (refrain) not in งดงาม (beautiful).
    r"|ไม่|งด(?!งาม)|(?<!เ)ปิด|ยกเว้น|မရှိ|မရ|ဘူး|ပိတ်|မလက်ခံ|မပို့|မဖွင့်|မပေး|မလုပ်"
    # Burmese puts မ (not) inside a compound verb: လက်ခံ (accept) -> လက်မခံ.
    r"|(?<=[\u103a\u1037\u1038])မ(?=[\u1000-\u1021])", re.I)
#: Where a line's clauses end (a negation only answers for its own clause).
_CLAUSE = re.compile(r"[,;!?|•·()\[\]။၊]|[.:](?:\s|$)"
                     r"|\s(?:but|however|while|although)\s|\s-\s|\s–\s")
#: Longest evidence quoted (a line is cut there).
MAX_EVIDENCE = 300


@dataclass(frozen=True)
class Answer:
    """A question's answer: ``value`` (yes / no / unknown, a number, an option, a
    text), the ``evidence`` sentence quoted from the site, the page it is on
    (``source``) and a ``confidence`` from 0 to 1."""

    value: str | int
    evidence: str = ""
    source: str = ""
    confidence: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.value, "evidence": self.evidence, "source": self.source,
                "confidence": round(self.confidence, 2)}


NOT_ANSWERED = Answer(UNKNOWN)


@dataclass(frozen=True)
class Wanted:
    """What a question looks for: its key stems, each with its weight, synonyms and the
    phrases that answer "no" about it."""

    keys: tuple[tuple[str, float, frozenset[str], tuple[str, ...]], ...]

    @property
    def total(self) -> float:
        return sum(key[1] for key in self.keys)


def _meets(stem: str, other: str) -> bool:
    if stem == other:
        return True
    short, long_ = (stem, other) if len(stem) <= len(other) else (other, stem)
    return len(short) >= 4 and long_.startswith(short)


def clauses(question: Question) -> list[Question]:
    """The question, and each of its alternatives asked apart ("Do they offer home
    visits or come to the customer's place?": either part answered answers it)."""
    core = re.sub(r"\([^)]*\)", " ", question.ask)
    parts = [p.strip() for p in re.split(r",|;|\s+or\s+(?=\S+\s+\S+)", core) if p.strip()]
    if len(parts) <= 1:
        return [question]
    return [question, *(question.model_copy(update={"ask": part, "hints": []})
                        for part in parts if len(LATIN_WORD.findall(part)) >= 1)]


def wanted(question: Question) -> Wanted:
    """The question's key stems: its words (not the asking ones) and its hints' (a
    Thai or Burmese hint brings the English words it means), each with the phrases
    that answer "no" about it."""
    # "(locations in total)" explains the question; it is not what a page would say.
    asked = LATIN_WORD.findall(re.sub(r"\([^)]*\)", " ", question.ask.lower()))
    # "credit or debit cards": one key met by either word.
    either: dict[str, set[str]] = {}
    for before, middle, after in zip(asked, asked[1:], asked[2:], strict=False):
        if middle == "or" and before not in ASKING and after not in ASKING:
            either.setdefault(stem(before), set()).add(stem(after))
    alternatives = {s for found in either.values() for s in found}
    words = [w for w in asked if w not in STOP_WORDS and w not in ASKING]
    words += [w for hint in question.hints for w in LATIN_WORD.findall(hint.lower())]
    stems = [s for s in dict.fromkeys(stem(w) for w in words)
             if s not in STOP_WORDS and s not in alternatives]
    for hint in question.hints:
        stems += [s for s in translated(hint) if s not in stems]
    opposites = vocabulary().opposites
    return Wanted(tuple((key, 1.0, frozenset(either.get(key, ())), opposites.get(key, ()))
                        for key in stems))


def _matched(want: Wanted, stems: frozenset[str], text: str = "") -> list[str]:
    """The keys a line (its stems and text) holds, or holds the opposite of; "year"
    is held by a year written in it, "time" by a time of day."""
    folded = text.casefold()
    return [key for key, _, synonyms, opposites in want.keys
            if any(_meets(key, s) or any(_meets(o, s) for o in synonyms) for s in stems)
            or any(_says(phrase, folded) for phrase in opposites)
            or (key == "year" and year_in(text) is not None)
            or (key in ("time", "open") and time_of(text) is not None)]


def _says(phrase: str, folded: str) -> bool:
    """Whether ``folded`` holds ``phrase`` (a Latin phrase as whole words)."""
    if not phrase.isascii():
        # Thai puts no spaces between words: a phrase is any place it occurs, but the
        # one known trap, ปิด (closed) inside เปิด (open), is stepped over.
        return any(not (phrase.startswith("ปิด") and folded[i - 1:i] == "เ")
                   for i in _places(phrase, folded))
    return re.search(rf"(?<![\w]){re.escape(phrase)}(?![\w])", folded) is not None


def _places(phrase: str, text: str) -> Iterable[int]:
    start = text.find(phrase)
    while start >= 0:
        yield start
        start = text.find(phrase, start + 1)


def _opposed(want: Wanted, text: str, whole: bool = False) -> bool:
    """Whether ``text`` holds a phrase that answers "no" about one of the keys (with
    ``whole``: about the whole question, as "cash only" does about cards)."""
    folded = _NO_NEED.sub(" ", text.casefold())
    wholes = vocabulary().whole
    return any(_says(phrase, folded) for key in want.keys for phrase in key[3]
               if not whole or key[0] in wholes)


def best_line(want: Wanted, lines: Iterable[Line]) -> tuple[Line, float] | None:
    """The line that holds most of what the question wants (two thirds of its words
    or more), with the share held; None when no line does."""
    if not want.keys:
        return None
    best: tuple[float, int, Line] | None = None
    for line in lines:
        matched = set(_matched(want, line.stems, line.text))
        if not matched:
            continue
        # "Cash only" answers "do they take credit cards?" whole.
        share = 1.0 if _opposed(want, line.text, whole=True) else (
            sum(key[1] for key in want.keys if key[0] in matched) / want.total)
        if share < 0.66:
            continue
        rank = (share, -len(line.text), line)
        if best is None or rank[:2] > best[:2]:
            best = rank
    return (best[2], best[0]) if best is not None else None


def _clause(line: Line, want: Wanted) -> str:
    """The clause of ``line`` that holds the most of the question's words."""
    parts = [p for p in _CLAUSE.split(line.text) if p and p.strip()]
    if len(parts) <= 1:
        return line.text

    def held(part: str) -> int:
        return len(_matched(want, frozenset(stems_of(part) | translated(part)), part))

    return max(parts, key=held)


def _evidence(line: Line) -> str:
    text = line.text
    return text if len(text) <= MAX_EVIDENCE else text[:MAX_EVIDENCE].rsplit(" ", 1)[0]


def answer_offline(question: Question, lines: Sequence[Line],
                   signals: Mapping[str, bool] | None = None,
                   evidence: Mapping[str, str] | None = None) -> Answer:
    """The question answered from the site's lines (and, for a yes/no question with a
    ``signal``, from the site's signals first)."""
    if question.signal and signals and signals.get(question.signal):
        seen = (evidence or {}).get(question.signal, "")
        return Answer("yes", seen or f"the site shows {question.signal.replace('_', ' ')}",
                      "", 0.95)
    if question.type == "choice":
        return _choice(question, wanted(question), lines)
    best: tuple[Line, float, Wanted] | None = None
    for part in clauses(question):
        want = wanted(part)
        found = best_line(want, lines)
        if found is not None and (best is None or found[1] > best[1]):
            best = (*found, want)
    if best is None:
        return NOT_ANSWERED
    line, share, want = best
    confidence = round(min(0.9, 0.5 + 0.4 * share), 2)
    clause = _clause(line, want)
    if question.type == "yes_no":
        plain = _NO_NEED.sub(" ", clause)
        negated = bool(_NEGATION.search(plain)) or _opposed(want, clause)
        value: str | int = "no" if negated else "yes"
    elif question.type == "number":
        found_number = year_in(clause) if "year" in {k[0] for k in want.keys} else \
            number_in(clause)
        if found_number is None:
            return NOT_ANSWERED
        value = found_number
    else:
        value = _evidence(line)
        if {"time"} & {k[0] for k in want.keys} or re.search(r"\bwhen\b", question.ask,
                                                              re.I):
            told = time_of(clause) or time_of(line.text)
            if told is not None:  # "What time do they open?": 10:00
                return Answer(told, _evidence(line), line.source, confidence)
        if _heading(line.text) and line.after:  # a heading: what follows it
            after = _evidence(Line(line.after, line.source, line.stems))
            return Answer(f"{line.text}: {after}", after, line.source, confidence)
    return Answer(value, _evidence(line), line.source, confidence)


def _choice(question: Question, want: Wanted, lines: Sequence[Line]) -> Answer:
    """A choice: the sentence that names an option best (the question's own words
    breaking ties), and that option; unknown when none names one."""
    best: tuple[float, float, int, Line, str] | None = None
    for line in lines:
        option, share = _option(question.options, line)
        if option is None:
            continue
        held = len(_matched(want, line.stems, line.text)) / max(1, len(want.keys))
        rank = (share, held, -len(line.text))
        if best is None or rank > best[:3]:
            best = (*rank, line, option)
    if best is None:
        return NOT_ANSWERED
    line, option = best[3], best[4]
    return Answer(option, _evidence(line), line.source, round(0.5 + 0.4 * best[0], 2))


def _heading(text: str) -> bool:
    """A short line without a sentence's end: a heading such as "Opening hours"."""
    return len(text) <= 30 and not re.search(r"[.!?။]\s*$", text)


def _option(options: Sequence[str], line: Line) -> tuple[str | None, float]:
    """The option ``line`` names (most of its words) and the share of its words named;
    (None, 0) when it names none."""
    best, held = None, 0.0
    for option in options:
        if option.strip().lower() == UNKNOWN:
            continue
        stems = stems_of(option) | translated(option)
        if not stems:
            continue
        share = sum(1 for s in stems if any(_meets(s, t) for t in line.stems)) / len(stems)
        if share > held and share >= 0.66:
            best, held = option, share
    return best, held


def answer_all(questions: Sequence[Question], passages: Sequence[tuple[str, str]],
               signals: Mapping[str, bool] | None = None,
               evidence: Mapping[str, str] | None = None) -> dict[str, Answer]:
    """Every question answered offline from the pages read."""
    if not questions:
        return {}
    lines = site_lines(passages)
    return {q.id: answer_offline(q, lines, signals, evidence) for q in questions}


def _normalised(text: str) -> str:
    return " ".join(text.casefold().split())


def find_quote(quote: str, passages: Sequence[tuple[str, str]]) -> str | None:
    """The page whose text holds ``quote`` (ignoring case and spacing), None when no
    page does."""
    wanted_text = _normalised(quote).strip(" .\"'“”")
    if len(wanted_text) < 3:
        return None
    for url, text in passages:
        if wanted_text in _normalised(text):
            return url
    return None


def model_value(question: Question, raw: Any) -> str | int | None:
    """A model's answer value in the question's terms, None when it is not one."""
    text = str(raw if raw is not None else "").strip()
    if not text or text.lower() == UNKNOWN:
        return UNKNOWN
    if question.type == "yes_no":
        word = text.lower().rstrip(".")
        return word if word in ("yes", "no") else None
    if question.type == "number":
        found = NUMBER.findall(text.translate(DIGITS))
        return int(found[0]) if found else None
    if question.type == "choice":
        return next((o for o in question.options if o.lower() == text.lower()), None)
    return text[:MAX_EVIDENCE]


def checked_model_answers(questions: Sequence[Question], raw: Mapping[str, Any] | None,
                          passages: Sequence[tuple[str, str]],
                          offline: Mapping[str, Answer]) -> tuple[dict[str, Answer],
                                                                  list[str]]:
    """The model's answers kept where their evidence is on a page read (its value in the
    question's terms, its confidence bounded to 0..1); the offline answer otherwise,
    with a warning for each answer set aside."""
    answers: dict[str, Answer] = {}
    warnings: list[str] = []
    for question in questions:
        given = (raw or {}).get(question.id)
        fallback = offline.get(question.id, NOT_ANSWERED)
        if not isinstance(given, Mapping):
            answers[question.id] = fallback
            continue
        value = model_value(question, given.get("value"))
        quote = str(given.get("evidence") or "").strip()
        if value == UNKNOWN:
            answers[question.id] = fallback if fallback.value != UNKNOWN else NOT_ANSWERED
            continue
        source = find_quote(quote, passages) if quote else None
        if value is None or source is None:
            why = ("an answer the question does not take" if value is None
                   else "evidence the site does not hold" if quote else "no evidence")
            said = str(given.get("value"))[:60]
            warnings.append(f"the model's answer to {question.id!r} ({said!r}) had {why}: "
                            "the site's own answer is kept")
            answers[question.id] = fallback
            continue
        try:
            confidence = float(given.get("confidence", 0.7))
        except (TypeError, ValueError):
            confidence = 0.7
        confidence = 0.7 if math.isnan(confidence) else min(1.0, max(0.0, confidence))
        answers[question.id] = Answer(value, quote[:MAX_EVIDENCE], source, confidence)
    return answers, warnings

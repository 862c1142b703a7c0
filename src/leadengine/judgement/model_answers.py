"""An LLM's answers to the team's questions, kept only when their evidence is found,
word for word (ignoring case and spacing), on a page read; otherwise the offline answer
(:mod:`leadengine.judgement.questions`) stands, with a warning."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from leadengine.judgement.answer import MAX_EVIDENCE, NOT_ANSWERED, UNKNOWN, Answer
from leadengine.judgement.values import DIGITS, NUMBER
from leadengine.knowledge.rules import Question


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

"""Questions asked for one run (``leadengine batch --question``, the workspace's batch
form), on top of the knowledge base's own ``questions:``.

``"Do they deliver?"`` becomes a yes/no question with the id ``deliver`` (its words, the
asking ones left out); ``"How many branches?"`` a number, ``"When do they open?"`` a
text; ``"id=question"`` names the id. The knowledge base with them has its own version
(the knowledge's, with a hash of the questions), so a run that asks new questions
evaluates its leads again instead of skipping those stored without the answers.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Sequence
from typing import Literal, TypeVar

from pydantic import ValidationError

from leadengine.errors import KnowledgeError
from leadengine.knowledge.base import Knowledge
from leadengine.knowledge.rules import MAX_QUESTION, Question

K = TypeVar("K", bound=Knowledge)
#: Most questions one run may ask.
MAX_RUN_QUESTIONS = 20
_YES_NO = re.compile(r"^(do|does|did|is|are|was|were|can|could|will|would|have|has|"
                     r"should|may)\b", re.I)
_NUMBER = re.compile(r"^how (many|much)\b", re.I)
_ASKING = frozenset({"do", "does", "did", "they", "them", "their", "is", "are", "was",
                     "were", "can", "could", "will", "would", "have", "has", "should",
                     "may", "a", "an", "the", "any", "there", "how", "many", "much",
                     "what", "when", "where", "which", "who", "of", "to", "on", "in",
                     "at", "for", "you", "your", "it", "its", "take", "offer", "accept"})


def run_question(text: str) -> Question:
    """One question as typed (``[id=]question``); KnowledgeError with one line when it
    is empty, too long, or its id is not a plain name."""
    given = " ".join(text.split())
    ident, _, ask = given.partition("=") if re.match(r"^[a-z][a-z0-9_]*=", given) else (
        "", "", given)
    ask = ask.strip()
    if not ask:
        raise KnowledgeError("a question is empty: write it out, e.g. --question "
                             "\"Do they deliver?\"")
    if len(ask) > MAX_QUESTION:
        raise KnowledgeError(f"a question has {len(ask):,} characters; at most "
                             f"{MAX_QUESTION} are accepted (ask one thing at a time)")
    kind: Literal["yes_no", "number", "text"] = (
        "yes_no" if _YES_NO.match(ask) else "number" if _NUMBER.match(ask) else "text")
    words = [w for w in re.findall(r"[a-z0-9]+", ask.lower()) if w not in _ASKING]
    ident = ident or "_".join(words)[:40].strip("_") or "question"
    if not ident[0].isalpha():
        ident = "q_" + ident[:38]
    try:
        return Question(id=ident, ask=ask, type=kind)
    except ValidationError as exc:
        raise KnowledgeError(f"question {ask[:60]!r}: {exc.errors()[0]['msg']}") from None


def with_questions(knowledge: K, texts: Sequence[str]) -> K:
    """``knowledge`` asking ``texts`` too (its version changed with them); itself when
    none are given. KnowledgeError for a bad question or an id used twice."""
    if not texts:
        return knowledge
    if len(texts) > MAX_RUN_QUESTIONS:
        raise KnowledgeError(f"{len(texts)} questions: at most {MAX_RUN_QUESTIONS} a run")
    asked = [run_question(text) for text in texts]
    known = {q.id for q in knowledge.rules.questions}
    for question in asked:
        if question.id in known:
            raise KnowledgeError(f"question id {question.id!r} is used twice (the knowledge "
                                 "base or another --question has it): name it, "
                                 "e.g. --question \"my_id=...\"")
        known.add(question.id)
    rules = knowledge.rules.model_copy(update={
        "questions": [*knowledge.rules.questions, *asked]})
    digest = hashlib.sha256("\0".join(q.model_dump_json() for q in asked).encode())
    version = f"{knowledge.version[:11]}-{digest.hexdigest()[:4]}"
    return dataclasses.replace(knowledge, rules=rules, version=version)

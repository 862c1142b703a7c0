"""A yes/no question asked the other way round ("Are cards refused there?", "..., with
no delivery?", "Is booking ahead required?"), answered the right way round by the
answerer it is given and turned over."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from leadengine.judgement.answer import Answer
from leadengine.judgement.asked_parts import BOOKING_NEEDED
from leadengine.judgement.phrases import what_is_asked
from leadengine.judgement.sentences import Line
from leadengine.knowledge.rules import Question

#: How a question is answered from a site's lines.
Answering = Callable[[Question, Sequence[Line]], Answer]


def turned_round(question: Question, lines: Sequence[Line], answer: Answering) -> Answer | None:
    """A yes/no question asked the other way round, answered the right way round and
    turned over: "Are cards refused there?" is "Are cards accepted?", "..., with no
    delivery?" is "Is there delivery?", "Is booking ahead required?" is "Do they take
    walk-ins?"; None for any other question."""
    if _REFUSED.search(question.ask):
        return _over(answer(question.model_copy(
            update={"ask": _REFUSED.sub("accepted", question.ask)}), lines))
    without = _WITH_NO.search(question.ask)
    if without:  # "Is it collect-in-person only, with no delivery to the customer's address?"
        return _over(answer(question.model_copy(
            update={"ask": f"Is there {without.group(1)}?"}), lines))
    if BOOKING_NEEDED.search(what_is_asked(question.ask)):
        walk_in = answer(_WALK_IN, lines)
        if walk_in.value in ("yes", "no"):
            return _over(walk_in)
    return None


def _over(found: Answer) -> Answer:
    """A yes or no turned over (anything else as it is)."""
    if found.value not in ("yes", "no"):
        return found
    return replace(found, value="no" if found.value == "yes" else "yes")


_WALK_IN = Question(id="walk_in", ask="Do they take walk-ins?", type="yes_no")
#: A question asking whether there is none of something: "..., with no delivery?", "Is
#: there no parking?" (not "who turn up with no booking": that is what is asked).
_WITH_NO = re.compile(r"(?:(?:,|\bonly)\s*(?:with|and|but) no|^\s*(?:is|are) there no)\s+"
                      r"([^,;?]{3,}?)\s*\??\s*$", re.I)
#: A question asking whether something is refused ("Are cards refused?", "not accepted").
_REFUSED = re.compile(r"\b(?:refused|refuse|rejected|declined|not accepted|not taken)\b", re.I)

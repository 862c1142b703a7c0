"""How a question splits into what it asks: its alternatives, each asked apart ("bank
transfer, a QR scan or a wallet?"), and, of a question that offers the opposite as its
other side ("walk in or appointment only?"), the side that "yes" answers."""

from __future__ import annotations

import re

from leadengine.judgement.matching import CONDITION, WALK_IN, opposed, wanted
from leadengine.judgement.phrases import what_is_asked
from leadengine.judgement.polarity import NEGATION, NO_NEED
from leadengine.knowledge.rules import Question


def clauses(question: Question) -> list[Question]:
    """The question, and each of its alternatives asked apart ("Do they offer home
    visits or come to the customer's place?": either part answered answers it)."""
    core = what_is_asked(question.ask)  # "a car or motorbike" read as parking first
    # "Do they sell online - web shop, Shopee or chat?": what the dash follows is asked
    # apart too (not "no cash on me - ...": that is a condition)
    dash = _DASH.search(core)
    if dash and not NEGATION.search(NO_NEED.sub(" ", core[:dash.start()])):
        core = f"{core[:dash.start()]}, {core[dash.end():]}"
    cuts = r",|;|\s/\s|\s+or\s+(?=\S+\s+\S+)"  # "bank transfer / QR / e-wallet"
    parts = [p.strip() for p in re.split(cuts, core) if p.strip()]
    if CONDITION.match(core) and "," in core:
        # what follows a condition is cut where it lists ("If the customer is short of
        # cash, can they pay by bank transfer, a QR scan or a wallet?"); else the question
        # is one ("If the customer only speaks English, will someone talk to them?")
        parts = [p.strip() for p in re.split(cuts, core.split(",", 1)[1]) if p.strip()]
        if len(parts) <= 1:
            parts = [p.strip() for p in re.split(r"\s+or\s+(?=\S+\s+\S+)", core) if p.strip()]
    if len(parts) <= 1:
        return [question]
    alternatives = [question.model_copy(update={"ask": part, "hints": []}) for part in parts]
    # An alternative of soft words alone ("come to the customer's place") says too
    # little to be matched by itself.
    return [question, *(part for part in alternatives
                        if any(weight == 1.0 for _, weight, _, _ in wanted(part).keys))]


_DASH = re.compile(r"\s[-–—]\s")


def one_sided(ask: str) -> str:
    """A question whose alternative is the opposite of what it asks first ("Can people
    just walk in or is it appointment only?", "... or do they have to book first?"):
    its first side, which "yes" answers."""
    for cut in _OR.finditer(ask):
        head, tail = ask[:cut.start()], what_is_asked(ask[cut.end():])
        want = wanted(Question(id="side", ask=head, type="yes_no"))
        if want.keys and (opposed(want, tail) or (
                not WALK_IN.isdisjoint(key for key, *_ in want.keys)
                and (BOOKING_NEEDED.search(tail) or _BY_BOOKING.search(tail)))):
            return f"{head.rstrip()}?"
    return ask


_OR = re.compile(r",?\s+or\s+", re.I)
#: A question whether booking is needed: "Is booking ahead required?", "Do I need an
#: appointment?", "Must I reserve?".
BOOKING_NEEDED = re.compile(
    r"(?=.*\b(?:book\w*|appointments?|reserv\w*)\b)(?=.*\b(?:required|requires?|need|needed|"
    r"necessary|have to|has to|must|mandatory|compulsory)\b)", re.I)
#: Booking as the only way in: "appointment only", "by booking".
_BY_BOOKING = re.compile(r"\b(?:(?:appointments?|bookings?|reservations?) only|"
                         r"by (?:appointment|booking|reservation))\b", re.I)

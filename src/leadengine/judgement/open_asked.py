"""A question about when the business is open ("Open on Sundays?", "What time do they
close?", "Open after 8 pm?"), told from any other question by its words and sent to the
answers of :mod:`leadengine.judgement.opening`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from leadengine.judgement.answer import NOT_ANSWERED, Answer
from leadengine.judgement.days import DAYS, asked_day
from leadengine.judgement.matching import SOFT, wanted
from leadengine.judgement.opening import all_day_answer, day_answer, late_answer, time_answer
from leadengine.judgement.sentences import Line
from leadengine.judgement.values import ALL_DAY
from leadengine.knowledge.rules import Question

#: Question words that ask whether a business is open (on a day, at an hour), and of
#: them those that say so by themselves: "Can I visit them on a Sunday?", "What is the
#: latest time I can go there?".
_OPEN_WORDS = frozenset({"open", "close", "work", "oper", "trade", "serv", "day", "hour",
                         "time", "pm", "am", "late", "latest", "last", "earli", "earliest",
                         "first", "morn", "even", "night", "public", "nation", "visit",
                         "go", "come", "drop", "stop", "shut", "finish", "up", "show",
                         "turn", "arriv", "custom", "by", "end", "start", "begin", "each",
                         "everi", "walk", "normal", "usual", "regular", "typic", "stay",
                         "ordinari"})
_OPENING = frozenset({"open", "close", "work", "oper", "time", "visit", "go", "come", "trade",
                      "shut", "show", "arriv", "hour"})
#: Words that ask for the closing time rather than the opening one.
_CLOSING = frozenset({"close", "late", "latest", "last", "until", "till", "shut", "finish",
                      "end", "stop"})
#: A header ending "... at?" ("Doors open at?", "Shutters down at?") asks for a time.
_ENDS_AT = re.compile(r"\bat\s*\?*\s*$", re.I)
#: Asking how long they stay open: "Until what time...?", "How late...?".
_UNTIL = re.compile(r"\b(?:until|till|how late)\b", re.I)
#: A header asking for a time: "Opens at (24h)?", "Closes at?".
_OPENS_AT = re.compile(r"\b(?:open|close|shut)s?\s+at\b", re.I)
#: A question asking at what time ("When do they open in the morning?", "How late...?",
#: "On an ordinary day, at what hour...?";
#: "When are they open?" asks for their hours).
_WHEN = re.compile(r"(?:^|,)\s*(?:when (?:do|does|will)|(?:at )?what (?:time|hour)|"
                   r"how (?:late|early))\b", re.I)


#: A question whether they open every day of the week.
_EVERY_DAY = re.compile(r"\b(?:every ?day|daily|7 days|seven days|all week|each day)\b", re.I)


def _every_day(lines: Sequence[Line]) -> Answer | None:
    """Open every day: "no" by a weekday the site says it is closed; "yes" when it says
    every day is open; None when it leaves a day unsaid."""
    said = [day_answer(day, lines) for day in range(7)]
    closed = next((found for found in said if found is not None and found.value == "no"), None)
    if closed is not None:
        return closed
    if all(found is not None and found.value == "yes" for found in said):
        return said[6]
    return None


def _weekend(lines: Sequence[Line]) -> Answer | None:
    """Open at the weekend: "yes" by a Saturday or Sunday said open, "no" when both are
    said closed; unknown when the site says something of days but not that."""
    saturday, sunday = day_answer(5, lines), day_answer(6, lines)
    said = [found for found in (sunday, saturday) if found is not None]
    if not said:
        return NOT_ANSWERED
    opened = next((found for found in said if found.value == "yes"), None)
    if opened is not None:
        return opened
    if len(said) == 2 and all(found.value == "no" for found in said):
        return said[0]
    return NOT_ANSWERED


def when_open(question: Question, lines: Sequence[Line]) -> Answer | None:
    """A question about when the business is open, answered from its days and hours
    (:mod:`leadengine.judgement.opening`); None for any other question, or when the
    site says nothing about days or hours (the words are matched then)."""
    want = wanted(question)
    keys = {key[0] for key in want.keys}
    words = {k for k in keys if not k.isdigit()}
    # a who-or-how word asks nothing else ("Could a customer drop by on a Sunday and
    # *find* them open?")
    strong = {k for k, weight, *_ in want.keys if weight > SOFT} & words
    # a day alone asks whether they are open then ("do they do Sundays?")
    only_a_day = bool(strong) and strong <= DAYS and question.type == "yes_no"
    if not (words & _OPENING or only_a_day) or strong - _OPEN_WORDS - DAYS:
        return None
    if question.type == "yes_no" and "weekend" in keys and not keys & (DAYS - {"weekend"}):
        return _weekend(lines)  # "Open at the weekend?"
    day = asked_day(keys)
    if question.type == "yes_no" and day is not None and len(keys & DAYS) == 1:
        found = day_answer(day, lines)
        if found is None:
            return NOT_ANSWERED  # no day is named anywhere: hours alone say nothing of it
        if "close" in keys and found.value in ("yes", "no"):
            # "Are they closed on Sundays?": yes when they are not open.
            found = replace(found, value="no" if found.value == "yes" else "yes")
        return found
    if question.type == "yes_no" and ALL_DAY.search(question.ask):  # "open 24 hours?"
        return all_day_answer(lines)
    if question.type == "yes_no" and _EVERY_DAY.search(question.ask):
        return _every_day(lines)  # "Open 7 days a week?"
    if question.type == "yes_no":
        return late_answer(question.ask, lines)
    if question.type == "text" and ("time" in keys or _WHEN.search(question.ask)
                                    or _OPENS_AT.search(question.ask)
                                    or (keys & {"open", "close"}
                                        and _ENDS_AT.search(question.ask))):
        closing = bool(keys & _CLOSING) or _UNTIL.search(question.ask) is not None
        return time_answer(closing, lines)  # "What time do they close?"
    return None

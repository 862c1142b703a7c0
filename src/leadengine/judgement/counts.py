"""Numbers a question asks for, read from the sentence that answers it: the count next
to what is counted ("12 staff, 3 of them cooks": 12 staff), a founding year, or the
years since it ("since 2538" asked as "how many years?": 2026 - 1995); and the lowest or
highest price, from every amount written on the pages."""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Sequence

from leadengine.judgement.answer import NOT_ANSWERED, Answer, evidence_of
from leadengine.judgement.sentences import Line
from leadengine.judgement.values import DIGITS, NUMBER, NUMBER_WORDS, year_in

#: A copyright line's year is when the page was written, not when the business began.
COPYRIGHT = re.compile(r"©|\(c\)|copyright|สงวนลิขสิทธิ์|မူပိုင်ခွင့်", re.I)
#: "How many years", "how long": a span of years, not a year.
_SPAN = re.compile(r"\bhow (?:many years|long)\b", re.I)
_WHEN = re.compile(r"\b(?:what|which) year\b|\bwhen\b", re.I)
#: Characters either side of a number looked at for what it counts (and, to tell a
#: line that states a count, "12 rooms", "ห้องพัก 12 ห้อง", from one that mentions one).
_REACH = 16
_CLOSE = 10
#: Most numbers of one sentence looked at (a price list run together is not read whole).
_MOST_NUMBERS = 60
# ခုနှစ် is "year" (in a date), not "two".
_WORD_NUMBER = re.compile("(?<![a-z])(?<!ခု)(" + "|".join(sorted(NUMBER_WORDS, key=len,
                                                                  reverse=True))
                          + ")(?![a-z])", re.I)


def number_answer(ask: str, keys: set[str], clause: str,
                  counts: Callable[[str], bool]) -> int | None:
    """The number ``clause`` gives for the question ``ask`` (its key stems ``keys``):
    a year for "what year / when"; the years since a year written (or the number of
    years written) for "how many years / how long"; otherwise the count next to words
    of the question (``counts`` tells whether a stretch of text holds one), else the
    first count."""
    if "year" in keys and _SPAN.search(ask):
        year = year_in(clause)
        if year is not None:
            return max(0, datetime.date.today().year - year)
        return near_number(clause, lambda text: bool(re.search(
            r"years?|ปี|နှစ်", text, re.I)))
    if "year" in keys or _WHEN.search(ask):
        return year_in(clause)
    return near_number(clause, counts)


def counted(clause: str, counts: Callable[[str], bool]) -> bool:
    """Whether ``clause`` holds a count next to a word it counts."""
    return near_number(clause, counts, strict=True) is not None


def near_number(clause: str, counts: Callable[[str], bool],
                strict: bool = False) -> int | None:
    """The first number of ``clause`` (digits in any script, or a number word) with a
    word it counts right after or before it; else the first number; None for none."""
    plain = clause.translate(DIGITS)
    found = [(m.start(), m.end(), int(m.group())) for m in NUMBER.finditer(plain)]
    found += [(m.start(), m.end(), NUMBER_WORDS[m.group().lower()])
              for m in _WORD_NUMBER.finditer(plain)]
    found.sort()
    if not found:
        return None
    # A count is not a year, a duration, an amount or a percentage.
    found = [item for item in found if not _NOT_A_COUNT.match(plain[item[1]:item[1] + 12])
             and not 1900 <= item[2] <= 2700]
    if not found:
        return None
    reach = _CLOSE if strict else _REACH
    for start, end, value in found[:_MOST_NUMBERS]:
        if counts(plain[end:end + reach]) or counts(plain[max(0, start - reach):start]):
            return value
    return None if strict else found[0][2]


_NOT_A_COUNT = re.compile(
    r"\s*(?:%|percent|minutes?|mins?|hours?|hrs?|h\b|days?|weeks?|months?|years?|yrs?|"
    r"baht|thb|บาท|฿|ks\b|kyats?|ကျပ်|usd|\$|km|kg|นาที|ชั่วโมง|ชม|วัน|เดือน|ปี|มิ|"
    r"မိနစ်|နာရီ|ရက်|လ\b|\.-)", re.I)


#: "What is the lowest price?", "the cheapest", "prices start from": the smallest
#: amount; "the highest price", "most expensive": the largest.
_LOWEST = re.compile(r"\b(?:lowest|cheapest|minimum|min|starting|least expensive)\b", re.I)
_HIGHEST = re.compile(r"\b(?:highest|most expensive|maximum|max|dearest)\b", re.I)
_PRICE_WORDS = re.compile(r"\b(?:price|prices|cost|costs|fee|fees|rate|rates|charge)\b", re.I)
#: Currencies, and the ".-" Thai price lists end an amount with (120.-).
_CURRENCY = r"(?:baht|thb|บาท|฿|ks|kyats?|ကျပ်|mmk|usd|us\$|\$|dollars?|\.-|,-)"
_NUMBER_TEXT = r"\d[\d,]*(?:\.\d+)?"
_AMOUNT = re.compile(
    rf"(?:(?<![a-z]){_CURRENCY}\s?({_NUMBER_TEXT}))"
    rf"|(?:({_NUMBER_TEXT})(?:\s?[-–]\s?({_NUMBER_TEXT}))?\s?{_CURRENCY}(?![a-z]))", re.I)


def price_answer(ask: str, lines: Sequence[Line]) -> Answer | None:
    """"What is the lowest (highest) price?": the smallest (largest) amount written on
    the pages, unknown when none is; None for any other question."""
    which = asks_price(ask)
    if which is None:
        return None
    priced = [(amount, line) for line in lines for amount in amounts(line.text)]
    if not priced:
        return NOT_ANSWERED
    amount, line = (min if which == "lowest" else max)(priced, key=lambda found: found[0])
    return Answer(amount, evidence_of(line), line.source, 0.7)


def asks_price(ask: str) -> str | None:
    """"lowest" or "highest" when ``ask`` asks for the lowest or highest price."""
    if not _PRICE_WORDS.search(ask):
        return None
    if _LOWEST.search(ask):
        return "lowest"
    return "highest" if _HIGHEST.search(ask) else None


def amounts(text: str) -> list[int]:
    """The amounts of money ``text`` writes (a number with its currency: 1,200 baht,
    ฿350, ၅၀,၀၀၀ ကျပ်, 25,000 Ks), rounded to whole units."""
    found = []
    for match in _AMOUNT.finditer(text.translate(DIGITS)):
        for number in (match.group(1), match.group(2), match.group(3)):
            try:
                found.append(round(float((number or "").replace(",", ""))))
            except ValueError:
                continue
    return [amount for amount in found if amount > 0]

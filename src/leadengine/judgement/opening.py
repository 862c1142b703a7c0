"""When a business is open, answered from what its pages say about days and hours:
"Are they open on Sundays?", "What time do they close?", "Are they open after 8 pm?".

Days are read by :mod:`leadengine.judgement.days`; hours ("9:00-18:00", "10 โมงเช้า ถึง
2 ทุ่ม", "မနက် ၉ နာရီ မှ ညနေ ၆ နာရီ") by :func:`leadengine.judgement.values.hours_of`.
Opening hours are looked for in lines that say they are hours (open, hours, a day's
name, เปิด, ဖွင့်) before any other line with two times.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from leadengine.judgement.answer import NOT_ANSWERED, Answer, evidence_of
from leadengine.judgement.days import HOLIDAYS, line_sayings
from leadengine.judgement.polarity import CLAUSE, is_asked, negated
from leadengine.judgement.sentences import Line
from leadengine.judgement.values import ALL_DAY, hours_of, minutes, times_in

#: A line that says it gives opening hours, and one that names days (less sure).
_HOURS_WORDS = re.compile(
    r"(?<![a-z])(?:open|opens|opening|hours|business hours)(?![a-z])|เปิด|เวลาทำการ|"
    r"เวลาเปิด|ဖွင့်|ဆိုင်ဖွင့်ချိန်", re.I)
_DAY_WORDS = re.compile(
    r"(?<![a-z])(?:daily|every day|mon|tue|wed|thu|fri|sat|sun|weekdays?|weekends?)|ทุกวัน|"
    r"จันทร์|อังคาร|พุธ|พฤหัส|ศุกร์|เสาร์|อาทิตย์|နေ့", re.I)
#: "after 8 pm", "later than 9", "past 22:00": asks about the evening; "before", "earlier
#: than": the morning.
_AFTER = re.compile(r"\b(?:after|later than|past|until|till)\b", re.I)
_BEFORE = re.compile(r"\b(?:before|earlier than|by)\b", re.I)


def day_answer(day: int, lines: Sequence[Line]) -> Answer | None:
    """Whether the business is open on ``day`` (0 = Monday): a line naming the day,
    else one covering it (a range, "daily", weekends), else a weekly day off that is
    another day (an inference: less confident; not when opening hours elsewhere leave
    the day out); unknown when the site says something about days but not this; None
    when it says nothing about days at all."""
    named: Answer | None = None
    covered: Answer | None = None
    day_off: Answer | None = None
    spoke = left_out = False
    for line in lines:
        if is_asked(line.text):  # a page's own FAQ: its answer says, not its question
            continue
        for said, joined in line_sayings(line.text, line.after):
            spoke = True
            # Hours that leave the day out: no day off elsewhere says it is open.
            # (Hours for two days or more: "every Saturday 10:00, a class" is no timetable.)
            left_out = left_out or (len(said.open) >= 2 and day not in said.open | said.closed)
            quote = f"{evidence_of(line)} {line.after}".strip() if joined else evidence_of(line)
            value = "no" if day in said.closed else "yes"
            if day in said.named and named is None:
                named = Answer(value, quote, line.source, 0.9)
            elif day in said.open | said.closed and covered is None:
                covered = Answer(value, quote, line.source, 0.8)
            elif (said.closed - {HOLIDAYS}) and day not in said.closed \
                    and day != HOLIDAYS and said.closed <= said.named \
                    and len(said.closed - {HOLIDAYS}) <= 2 and not said.open \
                    and day_off is None:
                day_off = Answer("yes", quote, line.source, 0.6)
    found = named or covered or (None if left_out else day_off)
    if found is not None:
        return found
    return NOT_ANSWERED if spoke else None


def hours_lines(lines: Sequence[Line]) -> list[tuple[Line, tuple[str, str]]]:
    """The lines giving opening hours, with (opens, closes): those saying they are
    hours first, then those naming days, then any other line with two times, each in
    page order."""
    found = [(line, hours) for line in lines
             if (hours := hours_of(line.text)) is not None]
    said = [item for item in found if _HOURS_WORDS.search(item[0].text)]
    days = [item for item in found if item not in said and _DAY_WORDS.search(item[0].text)]
    return said + days + [item for item in found if item not in said and item not in days]


def time_answer(closing: bool, lines: Sequence[Line]) -> Answer | None:
    """The time the business opens (or, ``closing``, closes) by the first opening hours
    on its pages; None when no line gives hours."""
    found = hours_lines(lines)
    if not found:
        return _one_time(closing, lines)
    # Of the lines that give hours in the same way (a morning and an evening session,
    # 07:00-09:00 and 17:00-19:00): the earliest opening, the latest closing.
    kind = _HOURS_WORDS.search(found[0][0].text) is not None
    same = [item for item in found if (_HOURS_WORDS.search(item[0].text) is not None) == kind]
    if closing:
        line, (_, told) = max(same, key=lambda item: minutes(item[1][1]))
    else:
        line, (told, _) = min(same, key=lambda item: minutes(item[1][0]))
    return Answer(told, evidence_of(line), line.source, 0.8)


#: A single time said as when they close ("until 10 pm", "ถึง 2 ทุ่ม", "ည ၉ နာရီ ထိ") or
#: open ("from 7 am", "เปิด 7 โมง", "မနက် ၇ နာရီ ဖွင့်").
_UNTIL = re.compile(r"(?<![a-z])(?:until|till|til|closes? at|close|lock up|locks up|pack up|"
                    r"packs up)(?![a-z])|ถึง|จนถึง|(?<!เ)ปิด|เก็บแผง|เก็บร้าน|ထိ|အထိ|ပိတ်|သိမ်း",
                    re.I)
_FROM = re.compile(r"(?<![a-z])(?:from|opens? at|open)(?![a-z])|ตั้งแต่|เปิด|ဖွင့်|မှစ", re.I)


def _one_time(closing: bool, lines: Sequence[Line]) -> Answer | None:
    """When no line gives hours: the first line with a single time said as a closing
    (or opening) time; None when none is."""
    said = _UNTIL if closing else _FROM
    for line in lines:
        found = times_in(line.text)
        if not found:
            continue
        # The time next to the word that says it (เปิดสิบโมงเช้า ... 2 ทุ่ม: 10:00 opens).
        # (Burmese says the time before its verb: မနက် ၉ နာရီခွဲ ဖွင့်ပြီး ည ၈ နာရီ ပိတ်.)
        before = _BURMESE.search(line.text) is not None
        near = [(abs(start - (word.end() if start >= word.end() else word.start())), time)
                for word in said.finditer(line.text) for start, time in found
                if (start < word.start()) == before]
        near = [item for item in near if item[0] <= _NEAR]
        if near:
            return Answer(min(near)[1], evidence_of(line), line.source, 0.6)
    return None


_BURMESE = re.compile(r"[\u1000-\u109f]")
#: How far (in characters) a time may stand from the word saying it opens or closes.
_NEAR = 25


def all_day_answer(lines: Sequence[Line]) -> Answer | None:
    """"Are they open 24 hours?": yes when a line says so (24 hours, 24/7, 24 ชม.,
    ၂၄ နာရီ), no when the pages give opening hours and none does; None otherwise."""
    said = next((line for line in lines if ALL_DAY.search(line.text)), None)
    if said is not None:  # "We are not open 24 hours", "၂၄ နာရီ မဖွင့်ပါ"
        clause = next((part for part in CLAUSE.split(said.text)
                       if part and ALL_DAY.search(part)), said.text)
        value = "no" if negated(clause) else "yes"
        return Answer(value, evidence_of(said), said.source, 0.8)
    found = hours_lines(lines)
    if not found:
        return None
    line = found[0][0]
    return Answer("no", evidence_of(line), line.source, 0.6)


def late_answer(ask: str, lines: Sequence[Line]) -> Answer | None:
    """"Are they open after 8 pm?" (or before 7 am): yes when any opening hours reach
    past (or start before) the time asked, no when hours are given and none do; None
    when the question names no time or the site gives no hours."""
    asked = times_in(ask)
    late, early = _AFTER.search(ask), _BEFORE.search(ask)
    if len(asked) != 1 or not (late or early):
        return None
    found = hours_lines(lines)
    if not found:
        return None
    when = minutes(asked[0][1])
    for line, (opens, closes) in found:
        if (late and minutes(closes) > when) or (early and not late
                                                 and minutes(opens) < when):
            return Answer("yes", evidence_of(line), line.source, 0.75)
    line = found[0][0]
    return Answer("no", evidence_of(line), line.source, 0.6)

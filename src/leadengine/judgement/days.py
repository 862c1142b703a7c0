"""Which days a business is open, read from its pages: "Are they open on Sundays?"
answered from what the site says about days, in English, Thai and Burmese.

A line (a sentence, or a table row's day and what follows it) says days are open or
closed: day names and their short forms (Mon, จ., တနင်္လာ), ranges ("Tue–Sun",
"จันทร์-เสาร์", "တနင်္လာမှ စနေအထိ", wrapping past Sunday), lists, "daily" / "every day" /
"ทุกวัน" / "နေ့တိုင်း" (all seven), weekends and weekdays; "closed", "day off", ปิด,
หยุด, ပိတ် make them closed, and "except" / ยกเว้น / မှလွဲ turns the days after it the
other way ("open daily except Mondays").

The answer for a day, strongest first: a line that names the day itself; a line that
covers it (a range, "daily", "weekends"); a weekly day off that is another day ("closed
on Wednesdays" says the rest are open: an inference, said with less confidence).
Opening hours that leave a day out ("Mon–Sat 9–18") say nothing about it: unknown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from leadengine.judgement.values import has_time

ALL = frozenset(range(7))
#: Public holidays, asked about as a day of their own (never covered by "daily").
HOLIDAYS = 7
#: The stems of the days' English names (as a question's words are stemmed).
DAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                  "sunday", "weekend", "weekday", "holiday"})
#: Day names (full and short), 0 = Monday. Short English forms are read only as days
#: where nothing else is meant (next to a dash, a colon, a digit or another day).
_NAMES: tuple[tuple[str, ...], ...] = (
    ("monday", "mondays", "mon", "วันจันทร์", "จันทร์", "จ.", "တနင်္လာ"),
    ("tuesday", "tuesdays", "tue", "tues", "วันอังคาร", "อังคาร", "อ.", "အင်္ဂါ"),
    ("wednesday", "wednesdays", "wed", "วันพุธ", "พุธ", "พ.", "ဗုဒ္ဓဟူး"),
    ("thursday", "thursdays", "thu", "thur", "thurs", "วันพฤหัสบดี", "พฤหัสบดี", "วันพฤหัส",
     "พฤหัส", "พฤ.", "ကြာသပတေး"),
    ("friday", "fridays", "fri", "วันศุกร์", "ศุกร์", "ศ.", "သောကြာ"),
    ("saturday", "saturdays", "sat", "วันเสาร์", "เสาร์", "ส.", "စနေ"),
    ("sunday", "sundays", "sun", "วันอาทิตย์", "อาทิตย์", "อา.", "တနင်္ဂနွေ"),
    ("holiday", "holidays", "public holidays", "public holiday"),
)
_SHORT_EN = frozenset({"mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat",
                       "sun"})
_DAY_OF = {name: number for number, names in enumerate(_NAMES) for name in names}
#: The short English day names ("sun", "tues"), as a question may write them.
SHORT_DAYS = _SHORT_EN


def full_day(short: str) -> str:
    """A day's English name from a short one: "sun" -> "Sunday"."""
    return _NAMES[_DAY_OF[short.lower()]][0].capitalize()
_DAY = "|".join(re.escape(n) for n in sorted(_DAY_OF, key=len, reverse=True))
#: A day name: Latin ones as whole words; Thai and Burmese ones anywhere (no spaces
#: between words), with their "day" (နေ့) after them.
_DAY_RE = re.compile(rf"(?<![a-z])({_DAY})(?![a-z])(?:နေ့)?", re.I)
_TO = r"\s*(?:-|–|—|~|to|till|until|through|thru|ถึง|မှ|မှစ၍|\u2013)\s*"
_RANGE = re.compile(rf"(?<![a-z])({_DAY})(?![a-z])(?:နေ့)?(?:{_TO})({_DAY})(?![a-z])"
                    r"(?:နေ့)?(?:\s*(?:အထိ|ထိ))?", re.I)
_EVERY_DAY = re.compile(
    r"(?<![a-z])(?:daily|every\s?day|7\s*days|seven days|all week|365 days|24/7|"
    r"mon(?:day)?\s*(?:-|–|to)\s*sun(?:day)?)(?![a-z])|ทุกวัน(?!ที่|ละ|จันทร์|อังคาร|พุธ|พฤหัส|ศุกร์|เสาร์|อาทิตย์)|7\s*วัน|"
    r"နေ့တိုင်း|နေ့စဉ်|၇\s*ရက်|7\s*ရက်", re.I)
_WEEKEND = re.compile(r"(?<![a-z])weekends?(?![a-z])|สุดสัปดาห์|เสาร์-อาทิตย์|เสาร์\s*อาทิตย์|"
                      r"စနေ\s*[၊,]?\s*တနင်္ဂနွေ", re.I)
_WEEKDAYS = re.compile(r"(?<![a-z])weekdays?(?![a-z])|วันธรรมดา|ရုံးဖွင့်ရက်", re.I)
#: Words that make the days they go with closed (ปิด not inside เปิด).
_CLOSED = re.compile(
    r"(?<![a-z])(?:closed?|closes|closing day|day off|days off|[a-z]+days? off|rest day|we rest|"
    r"no service|no (?:classes|lessons|school|jobs|work|appointments|bookings|visits)|shut|"
    r"(?:not|never|no longer)\s+(?:be\s+)?(?:open|work))"
    r"(?![a-z])|ไม่มีเรียน|ไม่มีคลาส|အတန်း\s?မရှိ|"
    r"n't\s+(?:be\s+)?(?:open|work)(?![a-z])|"
    r"ไม่(?:ได้)?(?:เปิด|ทำการ)|งด(?!่)|မဖွင့်|ဖွင့်\S{0,6}\s?မဟုတ်|(?<!เ)ปิด(?!ให้บริการ\s*\d)|หยุด|ပိတ်|"
    r"နားရက်|နားပါ|အနားယူ|အလုပ်မလုပ်"
    # Thai "rests" (พัก), not a place to stay (ที่พัก, ห้องพัก) or a break (พักเที่ยง)
    r"|(?<!ที่)(?<!ห้อง)พัก(?=ร้าน|ผ่อน|ค่ะ|คะ|ครับ|นะ|\s|$)", re.I)
_EXCEPT = re.compile(r"(?<![a-z])(?:except|but not|excluding)(?![a-z])|ยกเว้น|เว้น|"
                     r"(?P<after>မှလွဲ|မပါ)", re.I)
_OPEN = re.compile(r"(?<![a-z])(?:open|opens|opening|hours|we work|available|including|"
                   r"incl|accept|accepted|orders?|service|serving)(?![a-z])|"
                   r"เปิด|ทำการ|ให้บริการ|รวมถึง|รวมวัน|ဖွင့်|အပါအဝင်|လက်ခံ|ဝန်ဆောင်", re.I)
#: No day off: open every day (หยุด and ပိတ် inside would read as closed).
_NO_DAY_OFF = re.compile(r"(?<![a-z])(?:no days? off|never closed|all year(?: round)?|"
                         r"year-round|365 days)(?![a-z])|ไม่มีวันหยุด|ไม่เว้นวันหยุด|ไม่หยุด|"
                         r"ပိတ်ရက်\s?မရှိ|ရက်ပိတ်\s?မရှိ|ရက်\s?မပျက်", re.I)
#: Public holidays (วันหยุด..., ရုံးပိတ်ရက်: "stop day", "office-closed day"): named apart, so
#: that their หยุด or ပိတ် is not read as a day closed.
_HOLIDAYS = re.compile(r"(?<![a-z])(?:(?:public|national|bank)\s+holidays?|full[- ]moon days?|"
                       r"holy days?)(?![a-z])|"
                       r"(?:วันหยุด)?(?:นักขัตฤกษ์|ราชการ|เทศกาล)|ရုံးပိတ်ရက်(?:များ)?", re.I)
#: Every day of the week, said of the business itself ("we're out 7 days a week").
_WEEK_ROUND = re.compile(r"(?<![a-z])(?:7|seven) days a week(?![a-z])|ทุกวันไม่เว้น|"
                         r"ไม่เว้นวัน|တစ်ပတ်\s?(?:လုံး|၇\s?ရက်)", re.I)
#: "Every Tuesday" (ทุกวันอังคาร, အင်္ဂါနေ့တိုင်း): a day, not every day.
_EVERY_NAMED_DAY = re.compile(rf"(?:{_DAY})\s?(?:နေ့)?\s?တိုင်း|ทุกวัน(?:{_DAY})|"
                              # The Buddhist sabbath (by the moon, no weekday).
                              r"ဥပုသ်\s?နေ့\s?တိုင်း|ทุกวันพระ", re.I)
#: Where a line's parts about different days end.
_PART = re.compile(r"[;|•·။]|\s/\s|(?<=[0-9\u0e50-\u0e59\u1040-\u1049])\s*,\s*"
                   r"(?=\D)")


@dataclass(frozen=True)
class DaySaying:
    """What one part of a line says: days open, days closed, and how it said them
    (``named``: the days it names one by one, as opposed to covering with a range)."""

    open: frozenset[int]
    closed: frozenset[int]
    named: frozenset[int]


def _names(text: str) -> list[tuple[int, int, int]]:
    """(start, end, day) of each day named in ``text``; short English forms only where
    they are days (followed by a dash, colon, dot, comma, digit or a day)."""
    found: list[tuple[int, int, int]] = []
    for match in _DAY_RE.finditer(text):
        name = match.group(1).lower()
        if name in _SHORT_EN and text.strip().lower() != name:  # a table cell: "Sat"
            after = text[match.end():match.end() + 8]
            listed = found and re.fullmatch(r"\s*(?:[,&/]|and)\s*",
                                            text[found[-1][1]:match.start()], re.I)
            if not listed and not re.match(r"\s*[-–—:.,&/0-9]|\s*(?:to|and|closed|open|off)\b",
                                           after + " ", re.I):
                continue  # "Sun" is a day after a day ("Sat, Sun"), not the sun
        if name == "อาทิตย์" and text[match.end():match.end() + 2] == "ละ":
            continue  # อาทิตย์ละ: "a week" (twice a week), not Sunday
        found.append((match.start(), match.end(), _DAY_OF[name]))
    return found


def _covered(text: str) -> tuple[set[int], set[int]]:
    """The days ``text`` covers: (by ranges, "daily", weekends..., named one by one)."""
    spans: set[int] = set()
    for match in _RANGE.finditer(text):
        first, last = _DAY_OF[match.group(1).lower()], _DAY_OF[match.group(2).lower()]
        if HOLIDAYS in (first, last):
            continue
        spans |= {(first + step) % 7 for step in range((last - first) % 7 + 1)}
    if _EVERY_DAY.search(_EVERY_NAMED_DAY.sub(" ", text)):
        spans |= ALL
    if _WEEKEND.search(text):
        spans |= {5, 6}
    if _WEEKDAYS.search(text):
        spans |= {0, 1, 2, 3, 4}
    in_ranges = {i for m in _RANGE.finditer(text) for i in range(m.start(), m.end())}
    named = {day for start, _, day in _names(text) if start not in in_ranges}
    return spans, named


def saying(text: str) -> DaySaying | None:
    """What ``text`` (one part of a line, made :func:`_plain`) says about days, None
    when it names none or says neither open nor closed about them."""
    cut = _EXCEPT.search(text)
    head, tail = (text[:cut.start()], text[cut.end():]) if cut else (text, "")
    if cut and cut.group("after"):  # Burmese: the days left out come before မှလွဲ
        head, tail = tail, head
    spans, named = _covered(head)
    if not spans and not named:
        return None
    closed_words = _CLOSED.search(head) is not None
    if not closed_words and not (_OPEN.search(text) or has_time(text)
                                 or _WEEK_ROUND.search(text)):
        return None  # "Sunday market nearby": a day, but nothing about opening
    if closed_words and spans >= ALL and has_time(text):
        return None  # "closed daily 14:00-15:00": a break, not a day off
    days = frozenset(spans | named)
    if not tail:
        return (DaySaying(frozenset(), days, frozenset(named)) if closed_words
                else DaySaying(days, frozenset(), frozenset(named)))
    other_spans, other_named = _covered(tail)
    others = frozenset(other_spans | other_named)
    said = frozenset(named | other_named)
    if closed_words and not _OPEN.search(head):
        return DaySaying(others, days - others, said)
    return DaySaying(days - others, others, said)


def line_sayings(text: str, after: str = "") -> list[tuple[DaySaying, bool]]:
    """What a line says about days, part by part, each with whether the line after it
    was read too: a line that only names days (a table row's first cell) is read with
    the next one ("Sunday" / "Closed")."""
    found = []
    parts = [piece for part in _PART.split(_plain(text)) if part and part.strip()
             for piece in _statuses(part)]
    for part in parts:
        said, joined = saying(part), False
        if said is None and after and _only_days(part) and _names(after) == []:
            said, joined = saying(f"{part} {_plain(after)}"), True
        if said is None and _EVERY_DAY.search(part) and has_time(text):
            said = saying(f"open {part}")  # "08:00 – 19:30, every day"
        if said is not None:
            found.append((said, joined))
    return found


def _plain(text: str) -> str:
    """``text`` with "no day off" said as open every day and public holidays named
    apart (their หยุด and ပိတ် are no day closed)."""
    return _HOLIDAYS.sub(" public holidays ",
                         _NO_DAY_OFF.sub(" open every day and public holidays ", text))


def _statuses(part: str) -> list[str]:
    """A part that says both open and closed, cut where each says its own ("Open
    Mon–Sat, closed Sunday"; "วันหยุดนักขัตฤกษ์ ร้านเปิดตามปกติ ปิดเฉพาะช่วงตรุษจีน"): at
    commas, and in Thai at spaces; a piece naming days but neither goes with the next
    piece when that one says one and names no day ("Sunday, closed")."""
    head, paren, aside = part.partition("(")
    if paren and _CLOSED.search(aside) and not _CLOSED.search(head):
        return [head, aside]  # "Tue–Sun, 8:00–17:00 (closed Mondays)"
    if not (_CLOSED.search(part) and _OPEN.search(part)) or _EXCEPT.search(part):
        return [part]
    pieces = [p for p in _STATUS_CUT.split(part) if p and p.strip()]
    merged: list[str] = []
    for piece in pieces:
        said = _CLOSED.search(piece) or _OPEN.search(piece)
        if merged and said and not _names(piece) and not _RANGE.search(piece) \
                and not (_CLOSED.search(merged[-1]) or _OPEN.search(merged[-1])):
            merged[-1] = f"{merged[-1]} {piece}"
        else:
            merged.append(piece)
    return merged


_STATUS_CUT = re.compile(r"\s*[,၊]\s*|(?<=[\u0e00-\u0e7f])\s+(?=[\u0e00-\u0e7f])"
                         # Burmese "closed, and (then)": ပိတ်ပြီး ... ဖွင့်
                         r"|(?<=ပြီး)\s+(?=[\u1000-\u109f])")


def _only_days(text: str) -> bool:
    rest = _RANGE.sub(" ", text)
    for start, end, _ in reversed(_names(rest)):
        rest = rest[:start] + " " + rest[end:]
    rest = _HOLIDAYS.sub(" ", _EVERY_DAY.sub(" ", rest))
    return not re.sub(r"[\s:.,&\-–/၊]|and|และ|กับ|နှင့်|နဲ့|holidays?", "", rest, flags=re.I)


def asked_day(stems: Iterable[str]) -> int | None:
    """The weekday a question's stems ask about (0 = Monday), None when none or more."""
    days = {number for number, names in enumerate(_NAMES) if names[0] in set(stems)}
    return next(iter(days)) if len(days) == 1 else None

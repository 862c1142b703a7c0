"""Values an answer is written as: a count (digits in any script, or a number word), a
year (a Thai Buddhist-era year turned into the common era), a time of day as HH:MM
(9.00, 7 pm, 10 โมงเช้า, ညနေ ၄ နာရီ)."""

from __future__ import annotations

import re

DIGITS = str.maketrans("๐๑๒๓๔๕๖๗๘๙၀၁၂၃၄၅၆၇၈၉", "01234567890123456789")
NUMBER = re.compile(r"(?<![\d:.,/-])\d{1,4}(?![\d:/]|\.\d)")

#: Number words, English, Thai and Burmese (a count of branches is often written out).
NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "both": 2, "หนึ่ง": 1, "สอง": 2, "สาม": 3, "สี่": 4, "ห้า": 5,
    "หก": 6, "เจ็ด": 7, "แปด": 8, "เก้า": 9, "สิบ": 10, "တစ်": 1, "နှစ်": 2, "သုံး": 3,
    "လေး": 4, "ငါး": 5, "ခြောက်": 6, "ခုနစ်": 7, "ရှစ်": 8, "ကိုး": 9, "တစ်ဆယ်": 10}
_NUMBER_WORD = re.compile("(?<![a-z])(" + "|".join(sorted(NUMBER_WORDS, key=len,
                                                          reverse=True)) + ")(?![a-z])",
                          re.I)
_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d|2[45]\d\d)(?!\d)")


def number_in(text: str) -> int | None:
    """The first count in ``text``: digits (Thai and Burmese too) or a number word."""
    plain = text.translate(DIGITS)
    digits = NUMBER.search(plain)
    word = _NUMBER_WORD.search(plain)
    if digits and (not word or digits.start() < word.start()):
        return int(digits.group())
    return NUMBER_WORDS[word.group().lower()] if word else None


def year_in(text: str) -> int | None:
    """The first year in ``text`` (a Thai Buddhist-era year, 2560, as 2017)."""
    found = _YEAR.search(text.translate(DIGITS))
    if found is None:
        return None
    year = int(found.group())
    return year - 543 if year > 2400 else year


_CLOCK = re.compile(r"(?<!\d)(\d{1,2})[:.](\d{2})\s*(a\.?m\.?|p\.?m\.?)?|(?<!\d)(\d{1,2})\s*"
                    r"(a\.?m\.?|p\.?m\.?)(?![a-z])", re.I)
#: Thai and Burmese spoken times: (pattern with the hour, hours added, half past).
_SPOKEN = (
    (re.compile(r"(\d{1,2})\s*โมงเช้า"), 0), (re.compile(r"บ่าย\s*(\d{1,2})"), 12),
    (re.compile(r"(\d{1,2})\s*โมงเย็น"), 12), (re.compile(r"(\d{1,2})\s*ทุ่ม"), 18),
    (re.compile(r"ตี\s*(\d{1,2})"), 0),
    (re.compile(r"မနက်\s*(\d{1,2})\s*နာရီ"), 0), (re.compile(r"ညနေ\s*(\d{1,2})\s*နာရီ"), 12),
    (re.compile(r"နေ့လည်\s*(\d{1,2})\s*နာရီ"), 12), (re.compile(r"ည\s*(\d{1,2})\s*နာရီ"), 12))


def time_of(text: str) -> str | None:
    """The first time of day in ``text`` as HH:MM (9.00, 7 pm, 10 โมงเช้า, မနက် ၆ နာရီ)."""
    plain = text.translate(DIGITS)
    found: list[tuple[int, str]] = []
    clock = _CLOCK.search(plain)
    if clock:
        hour = int(clock.group(1) or clock.group(4))
        minute = int(clock.group(2) or 0)
        meridiem = (clock.group(3) or clock.group(5) or "").lower()
        if meridiem.startswith("p") and hour < 12:
            hour += 12
        if hour < 24 and minute < 60:
            found.append((clock.start(), f"{hour}:{minute:02d}"))
    for pattern, add in _SPOKEN:
        spoken = pattern.search(plain)
        if spoken:
            hour = int(spoken.group(1)) + (add if int(spoken.group(1)) < 12 else 0)
            half = plain[spoken.end():spoken.end() + 3].startswith("ခွဲ") or \
                plain[spoken.end():spoken.end() + 4].startswith("ครึ่ง")
            found.append((spoken.start(), f"{hour % 24}:{30 if half else 0:02d}"))
    return min(found)[1] if found else None



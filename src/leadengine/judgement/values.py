"""Values an answer is written as: a count (digits in any script, or a number word), a
year (a Thai Buddhist-era year turned into the common era), a time of day as HH:MM
(9.00, 7 pm, 10 โมงเช้า, ညနေ ၄ နာရီ)."""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

DIGITS = str.maketrans("๐๑๒๓๔๕๖๗๘๙၀၁၂၃၄၅၆၇၈၉", "01234567890123456789")
#: A count: not part of a longer number, a time, a date or a percentage.
NUMBER = re.compile(r"(?<![\d:.,/-])\d{1,4}(?![\d:/%]|\.\d|\s?%)")

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
#: Hours written without minutes, "9-18" (ten to twenty-four hours apart at most).
_BARE_HOURS = re.compile(r"(?<![\d.,:/])(\d{1,2})\s*[-–]\s*(\d{1,2})(?![\d.,:/%])"
                         r"(?!\s*(?:years?|yrs|km|kg|baht|บาท|ปี|ကျပ်|နှစ်|people|คน|days?|hours?|"
                         r"hrs?|ชั่วโมง|ชม|နာရီ|"
                         r"weeks?|months?|min|mins|minutes|times|pax|persons|pcs|cm|"
                         r"วัน(?!จันทร์|อังคาร|พุธ|พฤหัส|ศุกร์|เสาร์|อาทิตย์)|สัปดาห์|เดือน|นาที|"
                         r"ครั้ง|ขวบ|ท่าน|ชิ้น|กก|กิโล|ซม|เมตร|ลิตร|ml|g|m|ရက်|ပတ်|လ|မိနစ်|ခါ|ယောက်|"
                         r"bed|bedrooms?|rooms?|seats?|stars?|floors?|storeys?|cups?|sets?|pieces?|"
                         r"(?:jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)[a-z]*|ม\.ค|ก\.พ|มี\.ค|"
                         r"เม\.ย|พ\.ค|มิ\.ย|ก\.ค|ส\.ค|ก\.ย|ต\.ค|พ\.ย|ธ\.ค|มกรา|กุมภา|มีนา|เมษา|"
                         r"พฤษภา|มิถุนา|กรกฎา|สิงหา|กันยา|ตุลา|พฤศจิกา|ธันวา)(?![a-z]))", re.I)
#: Words before a range of ages.
_AGES = re.compile(r"(?:ages?|aged|kids|children|years|grades?|levels?|units?|chapters?|"
                   r"books?|steps?|sizes?|อายุ|เด็ก|ชั้น|ระดับ|အသက်|အတန်း)\s*$", re.I)
#: What stands between a range's two times.
_BETWEEN = re.compile(r"[-–—~]|\bto\b|\btill\b|\buntil\b|ถึง|จนถึง|မှ|ကနေ|အထိ|ထိ", re.I)
#: A second time said as the closing one: "open at 10:30 and lock up at 7:30 pm".
_CLOSE_AT = re.compile(r"\b(?:close|closes|closing|lock up|locks up|shut|shuts|finish|"
                       r"finishes)\s+(?:at\s+)?$", re.I)
#: Open all day and night.
ALL_DAY = re.compile(r"24\s*(?:hours|hrs|h|ชั่วโมง|ชม\.?|နာရီ)|24/7|၂၄\s*နာရီ", re.I)
#: Half past: ครึ่ง (after โมง or ทุ่ม), ခွဲ.
_HALF = re.compile(r"\s*(?:โมง)?\s*ครึ่ง|\s*ခွဲ")
#: Burmese evening or night just before a clock time ("ညနေ ၆:၃၀", "ည ၇:၃၀").
_EVENING = re.compile(r"(?<![\u1000-\u109f])(?:ညနေ(?:ပိုင်း)?|ည(?:ဘက်)?)\s*$")
#: An English evening after a clock time ("7:30 in the evening", "8.00 at night").
_EVENING_AFTER = re.compile(r"\s*(?:in the (?:afternoon|evening)|at night)\b", re.I)
#: Midday (နေ့လည်): 11 and 12 as they are, 1 to 6 in the afternoon.
NOON = -1
#: Thai and Burmese spoken times: (pattern with the hour, hours added, half past).
_SPOKEN = (
    (re.compile(r"(\d{1,2})\s*โมงเช้า"), 0), (re.compile(r"บ่าย\s*(\d{1,2})"), 12),
    (re.compile(r"(\d{1,2})\s*โมงเย็น"), 12), (re.compile(r"(\d{1,2})\s*ทุ่ม"), 18),
    (re.compile(r"(?<!บ่าย)(?<!บ่าย )(?<!\d)([7-9]|1[01])\s*โมง(?!เย็น|เช้า)"), 0),
    (re.compile(r"(?<!บ่าย)(?<!บ่าย )(?<!\d)([1-6])\s*โมง(?!เย็น|เช้า)"), 12),
    (re.compile(r"ตี\s*(\d{1,2})"), 0),
    (re.compile(r"(?:မနက်|နံနက်)\s*(\d{1,2})\s*နာရီ"), 0),
    (re.compile(r"ညနေ\s*(\d{1,2})\s*နာရီ"), 12),
    (re.compile(r"နေ့လ(?:ည|ယ)်\s*(\d{1,2})\s*နာရီ"), NOON),
    (re.compile(r"ည\s*(\d{1,2})\s*နာရီ"), 12),
    # English spoken: "from 9 in the morning until 5 in the afternoon"
    (re.compile(r"(?i)(?<![\d:.])(\d{1,2})\s*(?:o['’]clock\s*)?in the morning"), 0),
    (re.compile(r"(?i)(?<![\d:.])(\d{1,2})\s*(?:o['’]clock\s*)?(?:in the (?:afternoon|evening)|"
                r"at night)"), 12))


#: Spoken times written in words: the same in digits (บ่ายโมง is 1 pm; เที่ยง noon).
_SPOKEN_WORDS = (
    (re.compile(r"เที่ยงคืน|(?<![a-z])midnight(?![a-z])", re.I), "0:00"),
    (re.compile(r"เที่ยงครึ่ง"), "12:30"),
    (re.compile(r"เที่ยง(?:วัน|ตรง)?|(?<![a-z])noon(?![a-z])", re.I), "12:00"),
    (re.compile(r"บ่ายโมง"), "13:00"))
_THAI_COUNT = re.compile(r"(สิบเอ็ด|สิบ|หนึ่ง|สอง|สาม|สี่|ห้า|หก|เจ็ด|แปด|เก้า)(?=\s*(?:โมง|ทุ่ม))|"
                         r"(?<=ตี)(หนึ่ง|สอง|สาม|สี่|ห้า|หก)|(?<=บ่าย)(สอง|สาม|สี่)(?=\s*โมง)")
_THAI_COUNTS = {"หนึ่ง": 1, "สอง": 2, "สาม": 3, "สี่": 4, "ห้า": 5, "หก": 6, "เจ็ด": 7,
                "แปด": 8, "เก้า": 9, "สิบ": 10, "สิบเอ็ด": 11}


def _spelled(plain: str) -> str:
    """``plain`` with spoken times in words written in digits (สองทุ่ม: 2 ทุ่ม)."""
    plain = _THAI_COUNT.sub(lambda m: str(_THAI_COUNTS[m.group()]), plain)
    for pattern, time in _SPOKEN_WORDS:
        plain = pattern.sub(f" {time} ", plain)
    return plain


@lru_cache(maxsize=8192)
def times_in(text: str) -> tuple[tuple[int, str], ...]:
    """Every time of day in ``text``, (where it starts, HH:MM), in order (9.00, 7 pm,
    10 โมงเช้า, မနက် ၆ နာရီ; "9-18" as 9:00 and 18:00 where it stands for hours)."""
    plain = _spelled(text.translate(DIGITS))
    found: list[tuple[int, str]] = []
    for clock in _CLOCK.finditer(plain):
        hour = int(clock.group(1) or clock.group(4))
        minute = int(clock.group(2) or 0)
        meridiem = (clock.group(3) or clock.group(5) or "").lower()
        evening = not meridiem and (_EVENING.search(plain, max(0, clock.start() - 12),
                                                    clock.start()) is not None
                                    or _EVENING_AFTER.match(plain, clock.end()) is not None)
        if (meridiem.startswith("p") or evening) and hour < 12:
            hour += 12  # 7 pm; Burmese "ညနေ ၆:၃၀" (evening 6:30)
        if hour < 24 and minute < 60:
            found.append((clock.start(), f"{hour}:{minute:02d}"))
    for pattern, add in _SPOKEN:
        for spoken in pattern.finditer(plain):
            said = int(spoken.group(1))
            if add == NOON:
                hour = said + (12 if said <= 6 else 0)
            else:
                hour = said + (add if said < 12 else 0)
            half = _HALF.match(plain, spoken.end()) is not None
            found.append((spoken.start(), f"{hour % 24}:{30 if half else 0:02d}"))
    if not found:
        for bare in _BARE_HOURS.finditer(plain):
            first, last = int(bare.group(1)), int(bare.group(2))
            if _AGES.search(plain[max(0, bare.start() - 12):bare.start()]):
                continue  # "kids 6-12", "อายุ 3-5": ages, not hours
            if first < last <= 24:
                found += [(bare.start(1), f"{first}:00"), (bare.start(2), f"{last % 24}:00")]
    return tuple(sorted(set(found)))


def time_of(text: str) -> str | None:
    """The first time of day in ``text`` as HH:MM (9.00, 7 pm, 10 โมงเช้า, မနက် ၆ နာရီ)."""
    found = times_in(text)
    return found[0][1] if found else None


@lru_cache(maxsize=8192)
def hours_of(text: str) -> tuple[str, str] | None:
    """The first opening hours in ``text``: a time, a dash (or "to", ถึง, မှ..., or "and
    close at") and a later time, as (opens, closes); None when it holds no such pair."""
    found = times_in(text)
    plain = _spelled(text.translate(DIGITS))
    for (start, opens), (end, closes) in pairwise(found):
        between = plain[start:end]
        if _BETWEEN.search(between) or _CLOSE_AT.search(between):
            return opens, closes
    return None


def has_time(text: str) -> bool:
    """Whether ``text`` holds a time of day or opening hours."""
    return bool(times_in(text)) or bool(ALL_DAY.search(text))


def minutes(time: str) -> int:
    """Minutes after midnight of an HH:MM time (a closing time after midnight, 1:00,
    counts as the same night: 25:00)."""
    hour, minute = (int(part) for part in time.split(":"))
    return (hour + (24 if hour < 5 else 0)) * 60 + minute

"""How big a business is, as its site shows: a single small outlet (a café, a tea shop,
a family guesthouse, a six-room inn, a one-chair barber) or a business with scale
(branches, a hundred rooms, a team of forty). A small outlet with every gap is still a
small buyer: the rubric caps its fit (``small_outlet_max_fit``), where a chain with the
same gaps is a strong lead.

Read from what the site states: counts next to the words for rooms, seats, tables,
beds, branches and staff (in English, Thai and Burmese), and the kind of outlet its name
and title say it is. Scale wins over smallness: a café chain with twelve branches is not
a small outlet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Counts that say small, and counts that say scale, by what is counted.
SMALL = {"rooms": 12, "seats": 40, "tables": 10, "beds": 20, "staff": 5}
LARGE = {"rooms": 50, "seats": 120, "tables": 40, "beds": 100, "staff": 20, "branches": 3}
_NUMBER = r"(\d{1,4}|[๐-๙]{1,4}|[၀-၉]{1,4})"
#: What is counted: English words after a number ("12 rooms", "20+ seats"), Thai and
#: Burmese words before it ("ห้องพัก 8 ห้อง", "ဆိုင်ခွဲ ၅ ဆိုင်") or after it.
_COUNTED = {
    "rooms": (r"(?:guest ?rooms?|rooms?|suites?|villas?|bungalows?|keys)", r"(?:ห้องพัก|ห้อง|အခန်း)"),
    "seats": (r"(?:seats?|seating|covers)", r"(?:ที่นั่ง|ထိုင်ခုံ)"),
    "tables": (r"(?:tables?)", r"(?:โต๊ะ|စားပွဲ)"),
    "beds": (r"(?:beds?)", r"(?:เตียง|ကုတင်)"),
    "branches": (r"(?:branch(?:es)?|outlets?|locations|stores|shops|clinics|restaurants|"
                 r"cafes|hotels)", r"(?:สาขา|ဆိုင်ခွဲ|ရုံးခွဲ)"),
    "staff": (r"(?:staff|employees|team members|doctors|dentists|therapists|stylists|"
              r"teachers|physicians)", r"(?:พนักงาน|แพทย์|ဝန်ထမ်း|ဆရာဝန်)"),
}
#: The classifier that follows a Thai or Burmese count ("ห้องพัก 8 ห้อง", "အခန်း ၆ ခန်း"):
#: a number after the word without one is a name ("สาขาลาดพร้าว 101": Lat Phrao 101).
_UNIT = r"(?:ห้อง|แห่ง|ที่|สาขา|คน|ท่าน|เตียง|ตัว|ခန်း|ဆိုင်|ဦး|ယောက်|လုံး)"
_COUNT = re.compile("|".join(
    rf"(?P<{kind}>\b{_NUMBER}(?:[ \t]*\+)?[ \t-]*(?:[a-z-]+[ \t]+){{0,2}}?{latin}\b|"
    rf"{native}[ \t]*(?:ทั้งหมด|รวม|จำนวน)?[ \t]*{_NUMBER}[ \t]*{_UNIT}|"
    rf"{_NUMBER}[ \t]*{native})"
    for kind, (latin, native) in _COUNTED.items()), re.I)
#: Outlets small by their kind, as a name or title says it.
SMALL_KINDS = re.compile(
    r"\b(?:guest ?house|homestay|home ?stay|hostel|b&b|bed (?:and|&) breakfast|inn|"
    r"caf[eé]|coffee (?:shop|house|bar)|tea ?(?:shop|house|room)|teahouse|noodle (?:shop|"
    r"house|stall)|food stall|street food|home bakery|bakery|barber(?:shop)?|nail (?:salon|"
    r"studio|bar)|massage (?:shop|parlou?r))\b|เกสต์เฮาส์|เกสท์เฮาส์|โฮมสเตย์|ร้านกาแฟ|"
    r"คาเฟ่|ร้านก๋วยเตี๋ยว|ร้านเบเกอรี่|ร้านตัดผม|ร้านทำเล็บ|တည်းခိုခန်း|ဧည့်ရိပ်သာ|"
    r"လက်ဖက်ရည်ဆိုင်|ကော်ဖီဆိုင်|ခေါက်ဆွဲဆိုင်|ဆံပင်ညှပ်ဆိုင်", re.I)
#: Points of one of the knowledge base's size signals from which a business is not a
#: small outlet (branches, a franchise; not a stated capacity or a founding year).
NOT_SMALL_POINTS = 6
_DIGITS = str.maketrans("๐๑๒๓๔๕๖๗๘๙၀၁၂၃၄၅၆၇၈၉", "01234567890123456789")


@dataclass(frozen=True)
class Scale:
    """``small`` (a single small outlet), ``large`` (a business with scale) or
    ``unknown``, and what the site says that shows it."""

    value: str = "unknown"
    evidence: str = ""


def counts(text: str) -> dict[str, int]:
    """The largest count the text states of each thing counted (rooms, seats, tables,
    beds, branches, staff)."""
    found: dict[str, int] = {}
    for match in _COUNT.finditer(text[:20_000]):
        kind = match.lastgroup
        if kind is None:
            continue
        digits = re.search(r"\d+", match.group().translate(_DIGITS))
        if digits:
            value = int(digits.group())
            # "since 2018 ... branches": a year is no count.
            if 0 < value < 10_000 and not 1900 <= value <= 2100:
                found[kind] = max(found.get(kind, 0), value)
    return found


def scale(text: str, name: str, title: str, size_points: int) -> Scale:
    """The business's scale: large when a count says so; small when a count says so, or
    its name or title names a small kind of outlet, and nothing says scale (a count, or
    one of the knowledge base's size signals worth :data:`NOT_SMALL_POINTS` or more:
    ``size_points`` is the largest of them, branches or a franchise)."""
    stated = counts(text)
    big = [f"{value} {kind}" for kind, value in stated.items()
           if kind in LARGE and value >= LARGE[kind]]
    if big:
        return Scale("large", ", ".join(big))
    if size_points >= NOT_SMALL_POINTS:
        return Scale()  # branches or a franchise: not a small outlet
    small = [f"{value} {kind}" for kind, value in stated.items()
             if kind in SMALL and value <= SMALL[kind]]
    if small:
        return Scale("small", ", ".join(small))
    kind = SMALL_KINDS.search(f"{name} | {title}")
    if kind:
        return Scale("small", f"a {kind.group().lower()}")
    return Scale()

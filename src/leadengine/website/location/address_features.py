"""The features of address text (folded, :mod:`leadengine.website.location.text_folding`): street
and area words, native address markers, house numbers and postcode shapes, and the
phones and times that are not one."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from leadengine.website.location.text_folding import WORD

#: A phone number, and a time of day: digits that are not a house number or a postcode.
PHONE = re.compile(r"\+?\(?\d[\d\s().\-/]{6,}\d")
TIME = r"\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|น\.|時)|\d{1,2}[:.]\d{2}"
TIME_SPAN = re.compile(TIME)
_DIGITS = re.compile(r"\d")

# --- street words, native markers, house numbers ---------------------------------------

#: Street and area words, matched as whole words of folded Latin text.
STREET_WORDS = frozenset(
    "road street avenue boulevard lane drive highway expressway place court square terrace "
    "crescent parkway circle alley close marg path chowk nagar colony sector phase block "
    "plot estate layout soi moo mu thanon tambon tumbon amphoe amphur khet khwaeng kwaeng "
    "changwat township tsp ward quarter qtr jalan jln lorong taman persiaran lebuh "
    "barangay brgy purok subdivision village building bldg tower plaza mall complex "
    "centre center floor fl level suite unit office room shop house villa apartment apt "
    "flat chome machi cho ku gu dong ro gil duong phuong quan huyen ngo hem kel kec kab "
    "kelurahan kecamatan "
    "kabupaten rt rw gang calle carrera avenida rua rue strasse weg platz viale piazza "
    "pobox opp opposite cross industrial zone district dist tehsil taluka "
    "sokak sokagi sokağı cadde caddesi mahallesi mahalle bulvari bulvarı "
    "carretera camino paseo plaza travessa estrada praca boulevard chaussee allee gasse "
    "straat laan gata gatan vagen vägen vej gade utca ulica ul ulitsa prospekt".split())
#: Abbreviations that are street types only after another word ("Dundas St", not "St.
#: John" or "Dr. Smith" at the start).
STREET_ABBREVIATIONS = frozenset("st str rd ave av blvd ln dr ct pl hwy cres pkwy sq cir "
                                  "sk cad mah cra cl".split())
#: Address markers of other scripts, matched as substrings (only in non-ASCII text):
#: literals only, which the regex engine finds by their first character.
NATIVE = re.compile(
    r"เลขที่|หมู่|ม\.|ซอย|ซ\.|ถนน|ถ\.|ตำบล|ต\.|แขวง|อำเภอ|อ\.|เขต|จังหวัด|จ\.|อาคาร|ชั้น|"
    r"အမှတ်|လမ်း|ရပ်ကွက်|မြို့နယ်|တိုင်းဒေသကြီး|ပြည်နယ်|ကျေးရွာ|အခန်း|အထပ်|"
    r"〒|丁目|番地|ビル|특별시|광역시|특별자치|번길|번지|"
    r"রোড|সড়ক|তলা|বাড়ি|জেলা|উপজেলা|থানা|বাজার|হোল্ডিং|লেন|গ্রাম|ডাকঘর|"
    r"मार्ग|रोड|नगर|गली|सेक्टर|मकान|जिला|तहसील|मंजिल|"
    r"شارع|طريق|مبنى|برج|الطابق|ص\.ب")
#: Markers that need their neighbour (a ward 区 after a name, 番 after a number, a
#: Korean road name with its number), tried only when their character is there.
_NATIVE_CONTEXT = re.compile(
    r"(?<=[^\W\d])[区市県]|(?<=\d)\s?[番号階층]|(?<=[가-힣])[로길]\s?\d|"
    r"(?<=[가-힣])[구군](?=\s|$|,)|(?<=[\u4e00-\u9fff])(?:路|街|大道|巷|弄|省|县)")
_CONTEXT_CHARS = frozenset("区市県番号階층로길구군路街道巷弄省县")
#: Markers that are a house or building number by themselves.
_NUMBER_MARKER = re.compile(r"เลขที่|အမှတ်|番地|丁目|번길|번지|"
                            r"\b(?:no|nr|nro|num|number|house|plot|shop|unit|suite|flat|lot|office|"
                            r"room|villa|apt)\b[.:]?\s?#?[a-z]?\d|n[°º]\s?\d")
_NUMBER_CONTEXT = re.compile(r"\d\s?番|(?<=[가-힣])[로길]\s?\d")
_NUMBER = re.compile(r"(?<!\d\.)(?<![\d,:])#?[a-z]?\d{1,5}[a-z]?(?:[/-]\d{1,5}[a-z]?)*"
                     r"(?!\d|[.,:]\d)")


def street_count(folded: str, words: Sequence[str] | None = None) -> int:
    """Street and area words, and native address markers, in ``folded``."""
    words = WORD.findall(folded) if words is None else words
    count = sum(1 for i, w in enumerate(words)
                if w in STREET_WORDS or (i and w in STREET_ABBREVIATIONS))
    if not folded.isascii():
        count += len(NATIVE.findall(folded))
        if not _CONTEXT_CHARS.isdisjoint(folded):
            count += len(_NATIVE_CONTEXT.findall(folded))
    return count


# --- a street address without a house number -----------------------------------------

#: Words naming a street (not an area, a building or a floor), matched as whole words.
ROAD_WORDS = frozenset(
    "road street avenue boulevard lane drive highway expressway square terrace crescent "
    "parkway circle alley marg path chowk estate soi thanon jalan jln lorong persiaran "
    "lebuh gang calle carrera avenida rua rue strasse weg platz viale piazza duong ngo hem "
    "ro gil".split())
#: Street types that count only after another word ("Airport Rd", not "Rd." alone).
_ROAD_ABBREVIATIONS = frozenset("st rd ave av blvd ln dr hwy cres pkwy sq".split())
#: Street markers of other scripts: a Thai ถนน or ซอย, a Burmese လမ်း, a Korean road
#: name ending in 로 or 길, a Chinese or Japanese 路, 街, 通り...
_NATIVE_ROAD = re.compile(
    r"ถนน|ถ\.|ซอย|ซ\.|လမ်း|রোড|সড়ক|লেন|मार्ग|रोड|गली|شارع|طريق|通り|"
    r"(?<=[가-힣])[로길](?=[\s,\d]|$)|(?<=[\u4e00-\u9fff])(?:路|街|大道|巷|弄)")
#: An area inside a city and the bigger area it is in, in the order addresses write
#: them: a Thai sub-district and district (แขวง/ตำบล/ต. then เขต/อำเภอ/อ., Khwaeng/Tambon
#: then Khet/Amphoe), a Myanmar ward and township, a Korean 구 and its 동 or road, a
#: Japanese ward or town and its 丁目 (numbered in kanji: "神宮前三丁目").
_AREA_PAIR = re.compile(
    r"(?:แขวง|ตำบล|ต\.)\s?[\u0e01-\u0e4e].*?(?:เขต|อำเภอ|อ\.)\s?[\u0e01-\u0e4e]|"
    r"\b(?:khwaeng|kwaeng|tambon|tumbon)\b.*?\b(?:khet|amphoe|amphur)\b|"
    r"\bsub[- ]?district\b.*?(?<!sub)(?<!sub[- ])\bdistrict\b|"
    r"ရပ်ကွက်.*?မြို့နယ်|\b(?:ward|quarter|qtr)\b.*?\b(?:township|tsp)\b|"
    r"(?<=[가-힣])구(?=[\s,]).*?(?<=[가-힣])(?:동|읍|면|로|길)(?=[\s,\d]|$)|"
    r"\bgu\b.*?\b(?:dong|ro|gil)\b|"
    r"(?<=[^\W\d])[区市町村].*?[一二三四五六七八九十\d]\s?丁目")

#: A landmark the address is given by ("opposite the market", ตรงข้ามตลาด, 맞은편): how
#: to find the place, not where it is.
_LANDMARK = re.compile(r"\b(?:opposite|opp|near|nearby|next to|behind|beside|in front of|"
                       r"across from)\b|ตรงข้าม|ใกล้|ติดกับ|เยื้อง|ด้านหลัง|ข้างๆ|"
                       r"မျက်နှာချင်းဆိုင်|အနီး|맞은편|건너편|근처")


def has_road(folded: str) -> bool:
    """Whether ``folded`` names a street: a street type after its name ("Airport Road"),
    a Soi, Thanon or Jalan before it, or a street marker of another script. The "estate"
    of a real-estate business is not one."""
    words = WORD.findall(folded)
    for i, word in enumerate(words):
        if word in ROAD_WORDS and not (word == "estate" and i and words[i - 1] == "real"):
            return True
        if i and word in _ROAD_ABBREVIATIONS:
            return True
    return not folded.isascii() and _NATIVE_ROAD.search(folded) is not None


def has_area_pair(folded: str) -> bool:
    """Whether ``folded`` names an area of a city and the district it is in (a Thai
    sub-district and district, a Myanmar ward and township, a Korean 구 and 동, a
    Japanese 区 and 丁目), and not only by a landmark near it ("opposite the market,
    Tambon X, Amphoe Y")."""
    return _AREA_PAIR.search(folded) is not None and _LANDMARK.search(folded) is None


#: Postcode shapes (on folded text): Japanese (〒123-4567), US ZIP+4, bare 4 to 6 digits
#: or "123 456" (which the country's own format, when known, then filters), a Singapore
#: "S123456" or "Singapore 123456"; then Canadian and UK codes, with letters.
_DIGIT_CODES = re.compile(r"〒\s?\d{3}-?\d{4}|\d{5}-\d{4}|\d{3}-\d{4}|\d{3} \d{3}(?!\d)|\d+")
_LETTER_CODES = re.compile(
    r"(?P<ca>(?<![a-z0-9])[a-z]\d[a-z] ?\d[a-z]\d(?![a-z0-9]))|"
    r"(?P<uk>(?<![a-z0-9])[a-z]{1,2}\d[a-z\d]? \d[a-z]{2}(?![a-z0-9]))")
_LETTER_HINT = re.compile(r"\d[a-z]")
#: What every postcode shape has: three digits in a row, or a digit and two letters (UK).
_POSTCODE_HINT = re.compile(r"\d\d\d|\d[a-z]|[a-z]\d")
_NOT_BEFORE = frozenset("0123456789/.,:#-")
#: What comes before a Singapore postcode: "Singapore 123456", "S(123456)", "S123456".
_SINGAPORE = re.compile(r"(?:singapore\s*|(?<![a-z0-9])s)\(?$")


@dataclass(frozen=True)
class Postcode:
    start: int
    end: int
    value: str
    kind: str  # jp, ca, uk, sg, zip, d4, d5, d6


def find_postcodes(folded: str) -> list[Postcode]:
    """Every postcode-shaped group in ``folded`` (phone numbers blanked out first)."""
    if not _POSTCODE_HINT.search(folded):
        return []
    text = PHONE.sub(_blank_phone, folded)
    found = []
    for match in _DIGIT_CODES.finditer(text):
        raw, start, end = match.group(), match.start(), match.end()
        before = text[start - 1] if start else " "
        after = text[end:end + 2]
        if raw[0] == "〒" or (len(raw) == 8 and raw[3] == "-"):
            if raw[0] == "〒" or (before not in _NOT_BEFORE and not (
                    after[:1] and after[:1] in "-0123456789")):
                digits = re.sub(r"\D", "", raw)
                found.append(Postcode(start, end, f"{digits[:3]}-{digits[3:]}", "jp"))
        elif len(raw) == 10 and raw[5] == "-":
            if before not in _NOT_BEFORE:
                found.append(Postcode(start, end, raw, "zip"))
        elif 4 <= len(raw.replace(" ", "")) <= 6 and (before not in _NOT_BEFORE or (
                before == "-" and start >= 2 and text[start - 2] not in _NOT_BEFORE
                and not text[start - 2].isspace())) and not (
                after[:1] in ("/", ":") or (after[:1] in ".,-" and after[1:2].isdigit())):
            digits = raw.replace(" ", "")
            singapore = len(digits) == 6 and _SINGAPORE.search(text, max(0, start - 12), start)
            kind = "sg" if singapore else f"d{len(digits)}"
            if start <= 1 and after[:1] == " " and after[1:2].isalpha() and \
                    street_count(text) and kind != "sg":
                continue  # "1600 Amphitheatre Pkwy": a house number
            found.append(Postcode(start, end, digits, kind))
    if _LETTER_HINT.search(text):
        for match in _LETTER_CODES.finditer(text):
            raw = match.group()
            if match.lastgroup == "ca":
                compact = raw.replace(" ", "").upper()
                value = f"{compact[:3]} {compact[3:]}"
            else:
                value = raw.upper()
            found.append(Postcode(match.start(), match.end(), value, match.lastgroup or "uk"))
        found.sort(key=lambda code: code.start)
    return found


_ZIP4 = re.compile(r"\d{5}-\d{4}")


def _blank_phone(match: re.Match[str]) -> str:
    """A phone number (8 digits or more, not a ZIP+4) as spaces."""
    raw = match.group()
    return " " * len(raw) if _digits(raw) >= 8 and not _ZIP4.fullmatch(raw) else raw


def _digits(text: str) -> int:
    return len(_DIGITS.findall(text))


def has_house_number(folded: str, postcodes: Sequence[Postcode]) -> bool:
    """Whether ``folded`` has a house or building number (a postcode, a phone number or a
    time is not one)."""
    if _NUMBER_MARKER.search(folded) or (
            not _CONTEXT_CHARS.isdisjoint(folded) and _NUMBER_CONTEXT.search(folded)):
        return True
    chars = list(folded)
    for code in postcodes:
        if code.kind != "d4" or not any(c.isalnum() for c in folded[code.end:]):
            chars[code.start:code.end] = " " * (code.end - code.start)
    text = TIME_SPAN.sub(" ", PHONE.sub(" ", "".join(chars)))
    return _NUMBER.search(text) is not None

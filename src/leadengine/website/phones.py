"""Phone numbers as one canonical form: E.164 (``+6625550147``), with the phonenumbers
library (Google's libphonenumber metadata), so "+66 2 555 0147", "02-555-0147" and
"๐๒ ๕๕๕ ๐๑๔๗" are one number, not three.

A number written without its country code is read in the site's country. That
country is taken from the strongest evidence the site gives: its JSON-LD address,
its country-code domain, the country codes of the numbers it does write in full,
its language, then the place names in its address. With no evidence, the team's
markets (Thailand, Myanmar) are tried in turn.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from urllib.parse import urlsplit

import phonenumbers

#: Tried in order when nothing on the site says where it is: the team's markets.
FALLBACK_REGIONS = ("TH", "MM")
#: Country names (as JSON-LD and addresses write them) -> ISO region.
COUNTRIES = {"thailand": "TH", "ประเทศไทย": "TH", "myanmar": "MM", "burma": "MM",
             "မြန်မာ": "MM", "singapore": "SG", "malaysia": "MY", "vietnam": "VN",
             "viet nam": "VN", "cambodia": "KH", "laos": "LA", "indonesia": "ID",
             "philippines": "PH", "india": "IN", "japan": "JP", "korea": "KR",
             "united kingdom": "GB", "australia": "AU", "united states": "US"}
#: Cities of the team's markets, which addresses often give without the country.
CITIES = {"bangkok": "TH", "กรุงเทพ": "TH", "yangon": "MM", "ရန်ကုန်": "MM",
          "mandalay": "MM", "မန္တလေး": "MM"}
#: Page languages spoken as the main language of one country only.
LANGUAGES = {"th": "TH", "my": "MM", "ko": "KR", "ja": "JP", "vi": "VN", "km": "KH",
             "lo": "LA", "bn": "BD", "he": "IL", "ka": "GE", "hy": "AM", "id": "ID",
             "si": "LK", "el": "GR", "ne": "NP", "mn": "MN", "dz": "BT"}
#: ccTLDs that are not the ISO code.
_TLD_REGIONS = {"uk": "GB"}
#: ccTLDs sold worldwide as generic names: they say nothing about the country.
_GENERIC_TLDS = frozenset("co io ai me tv cc ly fm gg to ws sh so vc nu tk ms im is gl ac ag "
                          "am bz cd cx dj gd gs la lc st sx tm vg ps".split())


def domain_region(url: str) -> tuple[str, str] | None:
    """(ISO region, ccTLD) of a site's country-code domain, unless the TLD is sold as a
    generic name (.co, .io, .me...); None for other domains."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return None
    tld = host.rstrip(".").rsplit(".", 1)[-1].lower() if "." in host else ""
    if len(tld) == 2 and tld.isalpha() and tld not in _GENERIC_TLDS:
        return _TLD_REGIONS.get(tld, tld.upper()), tld
    return None


_COUNTRY_WORDS = re.compile("|".join(map(re.escape, sorted({*COUNTRIES, *CITIES},
                                                             key=lambda w: (-len(w), w)))),
                            re.I)


def site_region(url: str, language: str = "", address: str = "",
                address_country: str = "", phones: Iterable[str] = ()) -> str | None:
    """The ISO region a site's local phone numbers are written in, or None."""
    country = COUNTRIES.get(address_country.strip().lower()) or (
        address_country.upper() if len(address_country.strip()) == 2 else None)
    if country:
        return country
    domain = domain_region(url)
    if domain is not None and domain[0] in phonenumbers.SUPPORTED_REGIONS:
        return domain[0]
    codes = Counter(_region_of_international(p) for p in phones if p.strip().startswith("+"))
    codes.pop(None, None)
    if codes:
        return codes.most_common(1)[0][0]
    if language in LANGUAGES:
        return LANGUAGES[language]
    match = _COUNTRY_WORDS.search(address)
    if match:
        word = match.group(0).lower()
        return COUNTRIES.get(word) or CITIES.get(word)
    return None


def _region_of_international(raw: str) -> str | None:
    try:
        number = phonenumbers.parse(raw, None)
    except phonenumbers.NumberParseException:
        return None
    region = phonenumbers.region_code_for_number(number)
    return region if region and region != "ZZ" else None


def to_e164(raw: str, region: str | None, possible: bool = True) -> str | None:
    """``raw`` in E.164, read in ``region`` when it has no country code (else in each
    fallback region until one is valid); None when it is not a phone number. In a known
    ``region``, a number that is only possible there (not valid: a new range, a fictional
    555 number) counts when ``possible``."""
    regions = [region] if region else list(FALLBACK_REGIONS)
    for candidate in regions:
        try:
            number = phonenumbers.parse(raw, candidate)
        except phonenumbers.NumberParseException:
            continue
        valid = phonenumbers.is_valid_number(number)
        if valid or (region and possible and _dialable_length(number)):
            return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
    return None


#: The kinds of numbers a number that is not valid may be taken for (a hotline or a
#: toll-free number is valid when it is one: these are only length checks).
_CALLABLE = (phonenumbers.PhoneNumberType.FIXED_LINE, phonenumbers.PhoneNumberType.MOBILE)


def _dialable_length(number: phonenumbers.PhoneNumber) -> bool:
    """Whether a number that is not valid has the length of a line or a mobile of its
    country: a 13-digit company registration number read in Thailand is possible by the
    country's general lengths (and a toll-free number's), not as a line or a mobile."""
    return any(phonenumbers.is_possible_number_for_type(number, kind) for kind in _CALLABLE)


#: A number written with x for digits: "08x-xxx-xxxx", "+66 xx xxx xxxx".
PLACEHOLDER_TEXT = re.compile(r"(?<![\w+(])\+?(?:\([0-9xX]{1,4}\)|[0-9xX]{1,4})"
                              r"(?:[ .-]{1,2}[0-9xX]{2,5}){1,4}(?![\w])")
#: Words around a number that make it something else: a bank account, a tax or company
#: registration number, an order or invoice (English, Thai, Burmese, Japanese, Korean,
#: Chinese, Vietnamese, Indonesian, Bengali, Hindi, Arabic).
NOT_A_PHONE = re.compile(
    r"\bbank\b|account|\ba/c\b|\bacc(t)?\.? ?no|iban|swift|\btax\b|\bvat\b|"
    r"\b(reg(istration)?|licen[cs]e|company|business|permit)\.? ?(no|number|#)|"
    r"\bregistration\b|\bregistered\b|\b(tin|brn|uen|cin|gst|abn|acn|ein|npwp|nib|mst|"
    r"crn|lei|duns)\b|juristic|incorporat|法人番号|登録番号|统一社会信用代码|营业执照|統一編號|"
    r"mã số thuế|số đăng ký|mã số doanh nghiệp|السجل التجاري|الرقم الضريبي|နိုင်ငံသားမှတ်ပုံတင်|"
    r"မှတ်ပုံတင်|นิติบุคคล|ทะเบียนพาณิชย์|"
    r"\b(order|invoice|ref(erence)?|receipt|isbn|sku|id)\.? ?(no|number|#|:)|"
    r"บัญชี|ธนาคาร|เลขประจำตัวผู้เสียภาษี|ผู้เสียภาษี|ทะเบียน|ဘဏ်|口座|振込|銀行|계좌|은행|"
    r"사업자|账号|帳號|银行|銀行|tài khoản|ngân hàng|rekening|\bbank\b|হিসাব|ব্যাংক|"
    r"खाता|बैंक|حساب|بنك|مصرف", re.I)
_ASCENDING = "01234567890"
_DESCENDING = "9876543210"


def is_placeholder(raw: str) -> bool:
    """Whether a phone as written is a template leftover: digits written as x
    ("08x-xxx-xxxx"), one digit repeated ("000-000-0000"), or its last digits (up to
    nine, at least seven) one run of consecutive digits ("123 456 7890",
    "+1 234 567 890"; a real number may hold a shorter run: "09-450-123-456")."""
    if re.search(r"[xX]{2}|\d[xX]|[xX]\d", raw):
        return True
    digits = "".join(str(_digit(c)) for c in raw if c.isdigit())
    if len(digits) < 6:
        return False
    if len(set(digits[-7:])) == 1:
        return True
    tail = digits[-9:]
    return len(tail) >= 7 and (tail in _ASCENDING or tail in _DESCENDING)


def _digit(char: str) -> int:
    return unicodedata.digit(char, 0)


def split_range(raw: str) -> list[str]:
    """A range of numbers written as one ("035-721445-7": 035-721445 and 035-721447)
    as its numbers; any other string as itself. The last group must be shorter than the
    one before it, which has at least four digits."""
    match = re.fullmatch(r"(.*?(\d{4,}))[-/~](\d{1,2})", raw.strip())
    if match is None or len(match.group(3)) >= len(match.group(2)):
        return [raw]
    base, last = match.group(1), match.group(3)
    return [base, base[: len(base) - len(last)] + last]


def normalise_phones(raw: Iterable[str], region: str | None) -> tuple[list[str], list[str]]:
    """(the numbers, de-duplicated in first-seen order; the raw strings they came from,
    one per number). Each number is in E.164; one that cannot be read as a number of the
    site's country (the country unknown, and not one of the fallbacks) is kept as the
    site wrote it rather than lost, since a salesperson can still dial it. With a known
    country, a string that is not a possible number there is read in the fallback
    markets, else kept as written when it has 9-12 digits, else left out (a date, a
    price, a short code)."""
    numbers: dict[str, str] = {}
    for text in raw:
        written = " ".join(text.split())
        number = to_e164(written, region, possible=False)
        if number is None and region is not None:
            # The country read from the site may be wrong (an address abroad, a foreign
            # TLD): a number valid in the team's markets is read there before a number
            # merely possible in that country.
            number = to_e164(written, None) or to_e164(written, region)
        digits = sum(c.isdigit() for c in written)
        if number is None and (digits >= 7 if region is None else 9 <= digits <= 12):
            number = written  # unreadable, but a salesperson can still dial it
        if number is not None and number not in numbers:
            numbers[number] = written
    return list(numbers), list(numbers.values())

"""What a message says was observed on a lead's site, in plain words, in English, Thai
and Burmese: "bookings go through phone calls and LINE", never the lead's own web
address, phone number or e-mail (a rep does not quote a business's contacts back to
it). One phrase per condition of the rules (``facebook_only``, ``not:online_booking``,
``not:analytics``...), chosen for the lead's angle, so the message follows its gaps.

Also the rep's voice: the first-person pronoun and the polite particle of the language
(Thai ผม/ครับ or ดิฉัน/ค่ะ, Burmese ကျွန်တော်/ခင်ဗျာ or ကျွန်မ/ရှင်), from the
``rep_gender`` setting.
"""

from __future__ import annotations

from collections.abc import Sequence

from leadengine.facts.conditions import holds
from leadengine.facts.site_facts import SiteFacts
from leadengine.knowledge.rules import Angle

#: Condition -> language -> phrase. ``{channels}``: how the business takes bookings.
PHRASES: dict[str, dict[str, str]] = {
    "facebook_only": {
        "en": "your customers reach you mainly through your Facebook page",
        "th": "ลูกค้าติดต่อคุณผ่านเพจ Facebook เป็นหลัก",
        "my": "ဖောက်သည်တွေက Facebook စာမျက်နှာကနေ အဓိက ဆက်သွယ်နေကြတာ",
    },
    "not:online_booking": {
        "en": "bookings go through {channels}",
        "th": "การจองยังทำผ่าน{channels}",
        "my": "ဘိုကင်တွေကို {channels} နဲ့ လက်ခံနေတာ",
    },
    "not:analytics": {
        "en": "your website does not measure its visitors yet",
        "th": "เว็บไซต์ยังไม่มีระบบวัดผลผู้เข้าชม",
        "my": "website မှာ လာရောက်သူတွေကို တိုင်းတာတဲ့စနစ် မရှိသေးတာ",
    },
    "not:lead_capture_form": {
        "en": "the website has no form for enquiries",
        "th": "เว็บไซต์ยังไม่มีแบบฟอร์มให้ลูกค้าฝากข้อมูล",
        "my": "website မှာ စုံစမ်းမေးမြန်းဖို့ ပုံစံ မရှိသေးတာ",
    },
    "not:contact_form": {
        "en": "the website has no contact form",
        "th": "เว็บไซต์ยังไม่มีแบบฟอร์มติดต่อ",
        "my": "website မှာ ဆက်သွယ်ရန်ပုံစံ မရှိသေးတာ",
    },
    "not:ecommerce": {
        "en": "your products cannot be ordered on the website",
        "th": "ลูกค้ายังสั่งซื้อสินค้าผ่านเว็บไซต์ไม่ได้",
        "my": "website ကနေ ပစ္စည်းမှာယူလို့ မရသေးတာ",
    },
    "social_link": {
        "en": "you have an active following on social media",
        "th": "คุณมีผู้ติดตามบนโซเชียลมีเดียอยู่แล้ว",
        "my": "social media ပေါ်မှာ ဖော်လိုဝါတွေ ရှိနေပြီးသားဖြစ်တာ",
    },
    "has_website": {
        "en": "you already have a website of your own",
        "th": "คุณมีเว็บไซต์ของตัวเองอยู่แล้ว",
        "my": "ကိုယ်ပိုင် website ရှိပြီးသားဖြစ်တာ",
    },
    # When nothing more telling holds.
    "*": {
        "en": "there is room to bring in more enquiries online",
        "th": "ยังมีโอกาสเพิ่มลูกค้าจากช่องทางออนไลน์",
        "my": "အွန်လိုင်းကနေ ဖောက်သည်ပိုရနိုင်တဲ့ အခွင့်အလမ်း ရှိနေတာ",
    },
}
#: The same observations as a rep's note reads them (the evaluation's outreach line):
#: of the business, not to it.
NOTES: dict[str, str] = {
    "facebook_only": "customers reach them mainly through their Facebook page",
    "not:online_booking": "bookings go through {channels}",
    "not:analytics": "the website does not measure its visitors",
    "not:lead_capture_form": "the website has no form for enquiries",
    "not:contact_form": "the website has no contact form",
    "not:ecommerce": "products cannot be ordered on the website",
    "social_link": "they have a following on social media",
    "has_website": "they have a website of their own",
    "*": "no gap stands out",
}
#: How a business takes bookings, by what its site shows: a phone number, each
#: messaging network linked.
CHANNELS: dict[str, dict[str, str]] = {
    "phone": {"en": "phone calls", "th": "โทรศัพท์", "my": "ဖုန်း"},
    "line": {"en": "LINE", "th": "LINE", "my": "LINE"},
    "whatsapp": {"en": "WhatsApp", "th": "WhatsApp", "my": "WhatsApp"},
    "viber": {"en": "Viber", "th": "Viber", "my": "Viber"},
    "messenger": {"en": "Messenger", "th": "Messenger", "my": "Messenger"},
    "telegram": {"en": "Telegram", "th": "Telegram", "my": "Telegram"},
    "wechat": {"en": "WeChat", "th": "WeChat", "my": "WeChat"},
    "facebook": {"en": "Facebook messages", "th": "ข้อความ Facebook", "my": "Facebook message"},
    "any": {"en": "calls and messages", "th": "โทรศัพท์และแชท", "my": "ဖုန်းနဲ့ message"},
}
_AND = {"en": " and ", "th": "และ", "my": " နဲ့ "}
_JOIN = {"en": "; ", "th": " และ", "my": "၊ "}
#: The rep's voice: (first-person pronoun, polite particle) by language and gender.
VOICE: dict[str, dict[str, tuple[str, str]]] = {
    "en": {"male": ("I", ""), "female": ("I", "")},
    "th": {"male": ("ผม", "ครับ"), "female": ("ดิฉัน", "ค่ะ")},
    "my": {"male": ("ကျွန်တော်", "ခင်ဗျာ"), "female": ("ကျွန်မ", "ရှင်")},
}
#: The most observations one message states.
MAX_OBSERVATIONS = 2


def observations(facts: SiteFacts, angle: Angle | None, language: str,
                 notes: bool = False) -> list[str]:
    """What the site shows that makes ``angle`` apply, in plain words in ``language``:
    one phrase per condition of the angle that holds (and has a phrase); for an angle
    with none, the lead's most telling gap (Facebook alone, bookings by phone, no
    visitor measurement, no enquiry form); never nothing. ``notes``: as a rep's note
    reads them, in English ("customers reach them...")."""
    values = facts.conditions()
    conditions = [c for c in (angle.when if angle else []) if _holds(c, values)]
    if not any(c in PHRASES for c in conditions):
        conditions = [c for c in ("facebook_only", "not:lead_capture_form", "not:analytics",
                                  "not:online_booking") if _holds(c, values)]
    found = []
    for condition in [*conditions, "*"][: max(1, len(conditions))]:
        phrase = NOTES.get(condition) if notes else PHRASES.get(condition, {}).get(language)
        if phrase is not None:
            found.append(phrase.replace("{channels}", channels(facts, "en" if notes
                                                                else language)))
    if not found:
        phrase = NOTES["*"] if notes else PHRASES["*"].get(language, PHRASES["*"]["en"])
        found.append(phrase)
    return list(dict.fromkeys(found))[:MAX_OBSERVATIONS]


def sentence(phrases: Sequence[str], language: str) -> str:
    """The observations as one clause ("" when there are none)."""
    return _JOIN.get(language, "; ").join(phrases)


def channels(facts: SiteFacts, language: str) -> str:
    """How the business takes bookings, as its site shows: "phone calls and LINE"."""
    names: list[str] = [name for name in ("line", "whatsapp", "viber", "messenger",
                                          "telegram", "wechat")
                        if name in facts.contacts.social]
    if facts.contacts.phones:
        names.insert(0, "phone")
    if not names and "facebook" in facts.contacts.social:
        names = ["facebook"]
    words = [CHANNELS[name][language] for name in names[:3]] or [CHANNELS["any"][language]]
    if len(words) == 1:
        return words[0]
    if language == "en":
        return ", ".join(words[:-1]) + " and " + words[-1]
    joined = words[0]
    for word in words[1:]:  # a Latin name after Thai or Burmese gets a space before it
        joined += _AND[language] + (" " if word[:1].isascii() else "") + word
    return joined


def voice(language: str, gender: str) -> tuple[str, str]:
    """(first-person pronoun, polite particle) of a rep of ``gender`` in ``language``."""
    return VOICE.get(language, VOICE["en"]).get(gender, VOICE.get(language, VOICE["en"])
                                                ["male"])


def _holds(condition: str, values: dict[str, bool]) -> bool:
    return holds(condition, values)

"""Whether a sentence says yes or no: negation in English, Thai and Burmese, scoped
to a clause; what says no yes about the business now (a neighbour's, a plan); and a
page's own questions (an FAQ's "Do you deliver?") answered by the sentence after them."""

from __future__ import annotations

import re

#: Phrases that negate a need, and so say yes ("no booking needed": walk-ins welcome).
NO_NEED = re.compile(
    r"no need|not (?:needed|required|necessary)|no (?:prior )?(?:booking|appointment|"
    r"reservation)s? (?:is |are )?(?:needed|required|necessary)|without (?:an? )?"
    r"(?:booking|appointment|reservation)|ไม่ต้อง|ไม่จำเป็น|"
    # Burmese: what is not needed goes with it ("ကြိုတင်ချိန်းဆိုရန် မလိုပါ").
    r"[\u1000-\u109f]{0,24}(?:ရန်|စရာ)\s?မလို(?:ပါ)?(?:ဘူး|ဘဲ)?|မလို(?:ပါ)?(?:ဘူး|ဘဲ)?"
    # Without having booked: "มาโดยไม่ได้นัด", "ချိန်းမထားဘဲ".
    r"|(?:โดย)?ไม่(?:ได้)?(?:นัด|จอง)|မ(?:ချိန်း|ဘိုကင်|ဘွတ်ကင်)\S*ဘဲ|(?:ချိန်း|ဘိုကင်|ဘွတ်ကင်)\S*မ(?:ထား|လုပ်)ဘဲ"
    # Whether or not: ရှိမရှိ (is there or not), ရမရ, มีหรือไม่, "whether or not".
    r"|ရှိ\s?မရှိ|ရ\s?မရ|มีหรือไม่|ได้หรือไม่|whether or not"
    # Free is no negation: "no charge", ไม่มีค่าใช้จ่าย, ငွေမယူ (no money taken).
    r"|no (?:extra )?(?:charge|cost|fee)s?|free of charge|ไม่มีค่าใช้จ่าย|ไม่เสียค่า\S*"
    # No limit: unlimited (ไม่จำกัด, ไม่อั้น, အကန့်အသတ်မရှိ).
    r"|no limits?|unlimited|ไม่จำกัด\S*|ไม่อั้น|အကန့်အသတ်\s?မရှိ"
    # No day off: open every day.
    r"|no days? off|never closed|ไม่มีวันหยุด|ไม่เว้นวันหยุด|ไม่หยุด|ပိတ်ရက်\s?မရှိ"
    r"|ไม่คิดค่า\S*|ไม่คิดเงิน|ငွေမယူ|ခ\s?မယူ"
    # "ไม่ซ่อมไม่คิดเงิน": no repair, no charge.
    r"|ไม่\S{1,8}ไม่คิด\S*"
    # "ไม่ซื้อก็ไม่ว่า": no problem if you don't buy.
    r"|ไม่\S{0,12}ก็ไม่ว่า\S*|ไม่ว่ากัน"
    # Burmese "without coming" (ဆိုင်ကို မလာဘဲ ... မှာလို့ရ: order without coming): a manner.
    r"|(?<![\u1000-\u109f])မ(?:လာ|သွား|ဝင်)(?:ရ)?ဘဲ"
    # Burmese "without booking": ဘွတ်ကင် မလုပ်ဘဲ (not doing a booking, ...).
    r"|(?:ဘွတ်ကင်|ဘိုကင်|ချိန်းဆို|စာရင်းပေး)\s?မ[^\s။]*ဘဲ"
    # A public holiday is an "office-closed day" (ရုံးပိတ်ရက်), a holiday a "stop day".
    r"|ရုံးပိတ်ရက်|ပိတ်ရက်|วันหยุด\S*", re.I)
#: Thai "cancelled", of a service that has ended (ยกเลิกไปแล้ว, ยกเลิกบริการ,
#: ยกเลิกบัตรสะสมแต้มแล้ว: the points card is cancelled), not a
#: cancellation policy (ยกเลิกก่อน 7 วัน).
CANCELLED_TH = r"ยกเลิก(?:ไป|แล้ว|บริการ|[\u0e00-\u0e7f]{1,20}?แล้ว)"
#: A clause about what is only planned ("KBZPay coming soon", "from next month",
#: เร็วๆ นี้, กำลังจะ, နောက်လကစပြီး, စီစဉ်နေ): no yes about now.
PLANNED = re.compile(
    r"(?<![\w])(?:coming soon|soon to (?:come|be)|planned|planning|plan to|hope to|hoping to|"
    r"in the future|one day we|someday|"
    r"(?:from|starting|as of) next (?:week|month|year)|will (?:soon|start|begin)|"
    r"not (?:yet )?(?:but|until))(?![\w])"
    r"|(?<!เมื่อ)เร็ว\s?ๆ\s?นี้|กำลังจะ|เตรียมจะ|เตรียมเปิด|ตั้งแต่เดือนหน้า|ปีหน้า|เดือนหน้า|มีแผน|วางแผน"
    r"|နောက်လ|နောက်နှစ်|မကြာမီ|စီစဉ်နေ|ပြင်ဆင်နေ|လာမယ့်\s?လ", re.I)
#: A clause about what was done once and is no more ("We used to deliver", "previously",
#: เมื่อก่อน, แต่ก่อน, အရင်က): a "no" about now ("the card can be used to pay" is no past).
PAST = re.compile(
    r"(?<![\w])(?:(?<!be )(?<!is )(?<!are )(?<!was )(?<!were )used to|previously|formerly|"
    r"in the past|until last (?:week|month|year))(?![\w])"
    r"|เมื่อก่อน|แต่ก่อน|ก่อนหน้านี้|အရင်က|ယခင်က", re.I)
#: A sentence about a neighbour, not the business: "free Wi-Fi at the shopping centre
#: next door", "parking at the mall nearby", "the bakery next door delivers to us", "the
#: café downstairs (not ours!) has Wi-Fi"; or a
#: warning about fakes and scams ("beware of fakes sold online in our name").
ELSEWHERE = re.compile(
    r"(?<![a-z])(?:beware|scam|scams|scammers?|fakes?|counterfeits?|impersonat\w*)(?![a-z])|"
    r"ของปลอม|มิจฉาชีพ|แอบอ้าง|အတုတွေ|ခိုးသုံး|ခိုးယူ|"
    r"(?<![a-z])(?:next door|nearby|near by|nearest|closest|neighbou?ring|"
    r"across the (?:street|road)|doors? (?:down|up) from|belongs? to the|"
    r"(?:friend|neighbou?r)s?['’]s?|our neighbou?rs?|\(not (?:us|ours|our \w+)\W{0,2}\)|"
    r"opposite the|"
    r"shopping (?:center|centre|mall)|the mall)(?![a-z])|ข้างๆ|ข้าง ๆ|ร้านข้าง|ห้างใกล้|ตรงข้ามร้าน|ใกล้ที่สุด|"
    r"အနီးဆုံး|မျက်နှာချင်းဆိုင်|(?<!ဆိုင်)ဘေးက|ဘေးဆိုင်|အနီးနား|ကပ်လျက်", re.I)


#: A clause that says the opposite: English words, and Thai and Burmese markers.
NEGATION = re.compile(
    r"(?<![\w])(?:no(?!\.\s*(?:\d|$))|not|never|none|nobody|no one|no-one|nowhere|without|"
    r"cannot|"
    r"can't|cant|don't|dont|"
    r"doesn't|"
    r"doesnt|isn't|aren't|won't|unavailable|closed|except|n't|discontinued|cancelled|"
    r"canceled|suspended|stopped)(?![\w])"
    # Cancelled, suspended (a service that has ended; not "cancel 7 days ahead").
    r"|" + CANCELLED_TH + r"|ရပ်ဆိုင်း|ဖျက်သိမ်း"
    # ห้าม: prohibited.
    r"|ห้าม"
    # ปิด (closed) not inside เปิด (open); งด (refrain) not in งดงาม (beautiful) or
    # across two words (ส่งด่วน: express delivery; อย่างดี: well).
    r"|ไม่|(?<![\u0e48-\u0e4b])งด(?!งาม|[\u0e31\u0e34-\u0e3a\u0e47-\u0e4e])|(?<!เ)ปิด|ยกเว้น|မရှိ|မရ|(?<![ရ၂-၉\d\s])(?<!ရေ)ဘူး(?=\s*[။၊?!]|\s*$)|ပိတ်|မလက်ခံ|မပို့|မဖွင့်|မပေး|မလုပ်"
    # Burmese puts မ (not) inside a compound verb: လက်ခံ (accept) -> လက်မခံ, လာပြင် (come
    # and repair) -> လာမပြင်.
    r"|(?<=[\u103a\u1037\u1038\u102b\u102c])မ(?=[\u1000-\u1021][\u1000-\u109f]{0,12}?(?:ပါ|ဘူး|ဘဲ|နိုင်)"
    r"(?:ရှင|ခင်ဗျ|နော်|(?![\u1000-\u1021])))"
    # ...or starts a word with it: မပြုလုပ်ပါ (does not do), မယူပါ (does not take).
    r"|(?<![\u1000-\u109f])မ(?=[\u1000-\u1021][\u1000-\u109f]{0,12}?(?:ပါ|ဘူး|ဘဲ)"
    r"(?:ရှင|ခင်ဗျ|နော်|(?![\u1000-\u1021])))", re.I)
#: Burmese "because", "but", ending a clause (…ထားလို့ …, …ပေမယ့် …).
BURMESE_BECAUSE = r"(?:လို့|ပေမယ့်|ပေမဲ့|ကြောင့်)"
#: Where a line's clauses end (a negation only answers for its own clause).
#: "Parking: none" is one clause (what a label is followed by answers it), and so is a
#: parenthesis with what it annotates ("ยังไม่มีบัตรของขวัญ (gift card)").
CLAUSE = re.compile(r"[,;!?|•·။၊]|[.](?:\s|$)"
                    r"|\s(?:but|however|while|although)\s|\s[-–—]\s|—"
                    # Burmese "because", "but" before a space (not "can": မှာလို့ ရ)
                    r"|(?<=[\u1000-\u109f])" + BURMESE_BECAUSE + r"(?=\s+(?!မ?ရ))")


#: A sentence that asks (an FAQ's question): "?", Thai ไหม / มั้ย / หรือเปล่า / หรือไม่ /
#: ใช่ไหม at its end, Burmese လား / လဲ.
_ASKED = re.compile(r"[?？]\s*$|(?:ไหม|มั้ย|มั๊ย|หรือเปล่า|หรือไม่|ได้ไหม|ใช่ไหม)"
                    r"\s*(?:คะ|ครับ|ค่ะ|คับ)?\s*[?]?\s*$|(?:လား|လဲ|သလဲ)\s*[။?]?\s*$")
#: How an answer to a yes/no question begins.
_YES = re.compile(r"^\W*(?:yes|yep|yeah|sure|of course|absolutely|definitely|ใช่|ได้|มี|ဟုတ်|"
                  r"ရပါတယ်|ရှိပါတယ်|ရပါသည်|ရှိပါသည်)", re.I)
_NO = re.compile(r"^\W*(?:no|nope|sorry|unfortunately|not|we don't|we do not|we can't|"
                 r"we cannot|ไม่|ขออภัย|ขอโทษ|မရှိ|မရ|မလုပ်|မပို့|မလက်ခံ|ဟင့်အင်း)", re.I)


def is_asked(text: str) -> bool:
    """Whether the sentence is a question (an FAQ's)."""
    return _ASKED.search(text) is not None


def negated(clause: str) -> bool:
    """Whether ``clause`` says no ("no need to book" does not)."""
    return NEGATION.search(NO_NEED.sub(" ", clause)) is not None


def begins_no(answer: str) -> bool:
    """Whether an answer begins by saying no ("Sorry, none", "No", ไม่มี); "no need to
    book" does not."""
    return _NO.search(NO_NEED.sub(" ", answer)) is not None


def faq_answer(answer: str, clause: str = "") -> str:
    """What the sentence answering a page's own question says: "yes" or "no", by its
    first words, else by whether ``clause`` (the one about what was asked; by default
    its first) is negated."""
    if _NO.search(answer):
        return "no"
    if _YES.search(answer):
        return "yes"
    clause = clause or next((p for p in CLAUSE.split(answer) if p and p.strip()), answer)
    return "no" if negated(clause) else "yes"

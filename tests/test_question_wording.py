"""A team asks for a fact in its own words: "a place to leave a car" is parking, "looked
after in English" is speaking it, "someone who comes without booking" a walk-in, "send
orders out to the customer's address" delivering. Each is read as the fact, and a
page that says the fact answers it. The wordings are written from how people ask, not
copied from the labelled sets."""

from __future__ import annotations

from typing import Any

import pytest

from leadengine.judgement.matching import wanted
from leadengine.judgement.phrases import asked_as, plain_ask
from leadengine.judgement.polarity import negated
from leadengine.judgement.questions import answer_all
from leadengine.knowledge import Question


def q(ask: str) -> Question:
    return Question(id="q", ask=ask, type="yes_no")


def keys(ask: str) -> dict[str, float]:
    return {key: weight for key, weight, *_ in wanted(q(ask)).keys}


def answer(ask: str, *lines: str) -> Any:
    return answer_all([q(ask)], [("https://x.example/", "\n".join(lines))])["q"].value


@pytest.mark.parametrize(("ask", "key"), [
    ("Are customers served without a prior booking or appointment?", "walk"),
    ("Does the establishment have parking space available for customers?", "park"),
    ("Is Wi-Fi internet access provided to customers on the premises?", "wifi"),
    ("Does the business deliver its goods or services to the customer's address?", "deliv"),
    ("Is there a place for a visiting customer to leave a car or motorbike?", "park"),
    ("Somewhere to leave the car?", "park"),
    ("Where can I put my scooter when I visit?", "park"),
    ("Do they have space for customers' cars?", "park"),
    ("Can a foreigner be served in English?", "speak"),
    ("Could a tourist be looked after in English there?", "speak"),
    ("Can I come in without an appointment?", "walk"),
    ("Is it OK to turn up with no reservation?", "walk"),
    ("Can customers drop by without calling first?", "walk"),
    ("Will they send purchases or orders out to a customer's address?", "deliv"),
    ("Can they bring the order to my home?", "deliv"),
    ("Will they drop an order off at my office?", "deliv"),
    ("Can customers buy from them without visiting?", "onlin"),
    ("Do they offer home delivery?", "deliv"),
    ("Will they deliver to a customer's home or office?", "deliv"),
    ("Is there room to park?", "park"),
    ("Can I pay using my phone?", "mobil"),
    ("Will a tourist be understood in English?", "speak"),
])
def test_a_fact_asked_in_a_teams_own_words_is_read_as_the_fact(ask: str, key: str) -> None:
    found = keys(ask)
    assert found.get(key) == 1.0, found
    # what the phrase said is read, not left as keys of its own
    assert not {"leav", "car", "motorbik", "look", "appoint", "reserv", "address", "home",
                "offic", "room", "phone", "understood"} & set(found), found


@pytest.mark.parametrize(("ask", "plain"), [
    ("For the loyalty-app pitch, do they have a stamp card?", "do they have a stamp card?"),
    ("So that we call at a good time, when do they open?", "when do they open?"),
    ("Our delivery pitch depends on it: do they deliver?", "do they deliver?"),
    ("We sell card terminals, so do they take cards already?", "do they take cards already?"),
    ("Delivery to cust. addr?", "Delivery to customer address?"),
    ("Confirm: accepts card payments", "accepts card payments"),
    ("Check for customer parking", "customer parking"),
    ("Verify Sunday opening", "Sunday opening"),
    ("Check in time?", "Check in time?"),
    ("Open Sun?", "Open Sunday?"),
    ("Sat/Sun hours?", "Saturday/Sunday hours?"),
    ("Sat. open?", "Saturday open?"),
    ("Do they have sun loungers?", "Do they have sun loungers?"),
    ("For groups of ten, is there a discount?", "For groups of ten, is there a discount?"),
    ("Could you find out whether they deliver to offices?", "they deliver to offices?"),
    ("We need to know if they take cards - do they?", "they take cards"),
    ("Some of our reps only speak English, so could you check whether someone there "
     "speaks it?", "someone there speaks it?"),
    ("Could you find out what time they open?", "what time they open?"),
    ("For follow-up messages, could you check whether they have LINE?", "they have LINE?"),
    ("Cust. parking (car/moto)?", "customer parking (car/motorbike)?"),
    ("LINE acct / FB page to msg?", "LINE account / Facebook page to message?"),
    ("Walk-ins OK w/o appt.?", "Walk-ins OK without appointment?"),
    ("Do they have an English menu?", "Do they have an English menu?"),  # nothing to undo
    ("Before I plan the route, can you find out their closing time?",
     "can you find out their closing time?"),
    ("Before 9 am, are they open?", "Before 9 am, are they open?"),  # the time is asked
    ("What time do they close for the day, so nobody on the team rings them after hours?",
     "What time do they close for the day?"),
])
def test_a_question_is_read_plainly(ask: str, plain: str) -> None:
    assert plain_ask(ask) == plain


def test_no_appointment_needed_asks_for_walk_ins_not_the_other_way_round() -> None:
    assert answer("Walk-ins OK, no appt. needed?", "Walk-ins welcome!") == "yes"
    assert answer("Walk-ins OK, no appt. needed?", "Strictly by appointment only.") == "no"
    assert answer("Is an appointment needed?", "Walk-ins welcome!") == "no"


def test_a_formal_burmese_morning_is_a_morning() -> None:
    found = answer_all([Question(id="q", ask="Opening time (24h)?", type="text")],
                       [("https://x.example/",
                         "တနင်္လာ မှ စနေ၊ နံနက် ၈ နာရီခွဲ မှ ည ၇ နာရီ ထိ ဖွင့်ပါတယ်။")])["q"]
    assert found.value == "8:30"


def test_a_burmese_evening_before_a_clock_time_is_afternoon() -> None:
    ask = [Question(id="o", ask="Opening time?", type="text"),
           Question(id="c", ask="What time do they close?", type="text")]
    found = answer_all(ask, [("https://x.example/", "ဆိုင်ဖွင့်ချိန် မနက် ၁၀:၀၀ – ည ၈:၃၀")])
    assert (found["o"].value, found["c"].value) == ("10:00", "20:30")


@pytest.mark.parametrize(("cells", "said"), [
    ("ဗုဒ္ဓဟူးနေ့ တစ်ရက်ပဲ ပိတ်ပြီး ကျန်တဲ့နေ့တွေ နေ့တိုင်း ဖွင့်ပါတယ်။", "yes"),
    ("Opening hours\nMon – Fri\n9:00 – 20:00\nSat, Sun\n9:00 – 16:00", "yes"),
    ("Hours\nSat & Sun\nClosed", "no"),
    ("ဖွင့်ချိန်\nစနေ၊ တနင်္ဂနွေ\nမနက် ၉ နာရီ – ညနေ ၄ နာရီ", "yes"),
    ("Sun, sea and good coffee.", "unknown"),
    ("Hours\nEvery day\n10:30 am – 8:00 pm", "yes"),
    ("Hours\nSunday & full-moon days\nClosed", "no"),
    ("วันอาทิตย์และวันหยุดนักขัตฤกษ์ หมอพักค่ะ", "no"),
    ("ที่พักเปิดทุกวัน", "yes"),
    ("ရုံးဖွင့်ချိန်\nတနင်္ဂနွေ နဲ့ ရုံးပိတ်ရက်\nပိတ်ပါတယ်", "no"),
])
def test_a_table_row_of_listed_days_is_read_with_its_hours(cells: str, said: str) -> None:
    assert answer("Open on Sundays?", cells) == said


def test_a_formal_questionnaires_time_is_asked_of_the_business_not_its_founding() -> None:
    found = answer_all([Question(id="q", ask="At what time does the establishment open for "
                                 "business?", type="text")],
                       [("https://x.example/", "Established 1998.\nOpen daily 8:00-17:00")])
    assert found["q"].value == "8:00"


@pytest.mark.parametrize(("ask", "page", "told"), [
    ("how late r they open, closing time?", "Open daily 6.30 am – 6 pm", "18:00"),
    ("Until what time does the business stay open in the day?", "เปิดทุกวัน ๑๑ โมง – ๒ ทุ่ม",
     "20:00"),
    ("wat time they open??", "Regular clean (1–2 bedroom condo)\nOffice 8:00 - 18:00", "8:00"),
    ("shutters down at?", "Open daily 9:00 - 17:30", "17:30"),
    ("Closing time?", "เปิด 6 โมงเช้า – เที่ยงครึ่ง", "12:30"),
    ("What time do the doors open?", "Open daily 9:00 - 17:30", "9:00"),
    ("When do they open?", "General English (Levels 1–6)\nMon-Fri 9-17", "9:00"),
])
def test_a_time_asked_in_short_or_formal_words(ask: str, page: str, told: str) -> None:
    found = answer_all([Question(id="q", ask=ask, type="text")], [("https://x.example/", page)])
    assert found["q"].value == told


def test_a_time_asked_as_a_header_is_the_opening_time() -> None:
    found = answer_all([Question(id="q", ask="Opens at (24h)?", type="text")],
                       [("https://x.example/", "Open daily 9:30–18:00")])["q"]
    assert found.value == "9:30"


def test_a_word_after_or_that_only_leads_to_the_alternative_is_none() -> None:
    # "online or by chat": "by" is no alternative of "online"
    found = wanted(q("can customers book online or by chat?")).keys
    assert all("by" not in synonyms for _, _, synonyms, _ in found)


def test_a_person_sent_out_is_coming_not_delivering() -> None:
    assert "come" in keys("Can they send a technician to my house?")
    assert "deliv" not in keys("Can they send a technician to my house?")


def test_a_slot_needs_its_own_word_not_one_that_starts_with_it() -> None:
    # "card" is no car: no parking is asked
    assert "park" not in keys("Where can I leave a card for the owner?")


def test_every_asked_as_phrase_compiles_and_is_tried_in_the_files_order() -> None:
    words = [word for _, word in asked_as()]
    assert words.index("come") < words.index("deliver")
    assert len(words) >= 20


@pytest.mark.parametrize(("ask", "line", "said"), [
    ("Is there a place for a visiting customer to leave a car or motorbike?",
     "Free scooter parking in front of the studio.", "yes"),
    ("Is there a place for a visiting customer to leave a car or motorbike?",
     "We have no parking of our own.", "no"),
    ("Could a foreign customer be looked after in English by the people working there?",
     "Dr. Mali speaks fluent English.", "yes"),
    ("Could a foreign customer be looked after in English by the people working there?",
     "There is a shelf of English books in the lobby.", "unknown"),
    ("Can I come in without an appointment?", "Walk-ins are welcome all day.", "yes"),
    ("Can I come in without an appointment?", "Sorry, by appointment only.", "no"),
    ("Will they send purchases or orders out to a customer's address?",
     "We deliver anywhere in town for 50 baht.", "yes"),
    # "bank cards": which kind of card; a card said alone answers
    ("Does the shop accept Visa, Mastercard or other bank cards when a customer pays?",
     "Unfortunately we cannot take cards.", "no"),
    ("Can I pay by bank transfer?", "Transfer to our account when you book.", "yes"),
    # an alternative needs its own context: a QR code that is no payment
    ("Do they accept mobile or QR-code payments?",
     "Each dog's name tag has a QR code that links to its vaccination record.", "unknown"),
    # what comes to the business is no delivery to customers
    ("Do they deliver?", "Clear aligners are delivered to us from the lab in 3 weeks.",
     "unknown"),
    ("Do they deliver?", "Coconuts are delivered every morning from our neighbour's farm.",
     "unknown"),
    ("Do they deliver?", "Fresh deliveries from the fishing boats arrive at six.", "unknown"),
    ("Do they deliver?", "Cakes delivered from our kitchen to your door.", "yes"),
    # "home delivery" is delivery: a page saying it delivers answers, a home visit does not
    ("Do they offer home delivery?", "We deliver within 5 km.", "yes"),
    ("Do they offer home delivery?", "ส่งถึงบ้านฟรี", "yes"),
    ("Do they offer home delivery?", "Home visits for elderly patients.", "unknown"),
    # a friend's page is not theirs
    ("Can customers message them on Facebook?",
     "Our friend's restaurant next street has a Facebook page with its menu.", "unknown"),
    ("Can customers message them on Facebook?", "Message us on our Facebook page.", "yes"),
    # "without having booked" is no negation of its own: the clause's verb says
    ("Can I come in without an appointment?", "ไม่รับนักเรียนที่มาโดยไม่ได้นัดนะครับ", "no"),
    ("Can I come in without an appointment?", "มาโดยไม่ได้นัดก็ได้ค่ะ", "yes"),
    ("Can I come in without an appointment?", "ချိန်းမထားဘဲ လာလည်း ရပါတယ်", "yes"),
    ("Can I come in without an appointment?", "ချိန်းမထားဘဲ လာရင် လက်မခံပါ", "no"),
    ("Somewhere to leave the car?", "ကား၊ ဆိုင်ကယ် ရပ်လို့ ရပါတယ်", "yes"),
    ("Somewhere to leave the car?", "หน้าร้านจอดได้ค่ะ", "yes"),
    # a team's short asks: "own" and "fine" say little, "A / B / C" are alternatives
    ("own parking for customers?", "Large car park under the longan trees.", "yes"),
    ("own parking for customers?", "There's no parking on our soi, sorry.", "no"),
    ("bank transfer / QR / e-wallet ok (PromptPay, KBZPay etc)?",
     "Transfer to our Kasikorn account is fine.", "yes"),
    ("warranty / guarantee on products or work?", "1-year official brand warranty.", "yes"),
    ("Is it fine to turn up without booking ahead?",
     "အခန်းလွတ်ရင် ကြိုမဘိုကင်ဘဲ လာလည်း ရပါတယ်", "yes"),
    # "too ... to" says what cannot be done; asked about before it, it is no answer
    ("Somewhere to leave the car?", "Sorry, the soi is too narrow to park.", "no"),
    ("Do they deliver?", "Delivery is free; the shop is too small to sit in.", "yes"),
    ("Somewhere to leave the car?", "หน้าร้านห้ามจอดนะคะ", "no"),
    ("Somewhere to leave the car?", "ခြံထဲမှာ ကား ၅ စီး ရပ်လို့ရပါတယ်", "yes"),
    # "a bank or credit card" is one question about cards
    ("Will they take a bank or credit card when the customer pays?",
     "Deposit by transfer to our Kasikorn bank account, please.", "unknown"),
    ("Will they take a bank or credit card when the customer pays?",
     "ที่บ้านพักไม่มีเครื่องรูดบัตรนะคะ", "no"),
    ("Can I pay by card?", "ช่วงเที่ยงคนเยอะ รับบัตรคิวที่หน้าร้านก่อนนะคะ", "unknown"),  # a queue ticket
    # a service cancelled is no more
    ("Do they deliver?", "บริการส่งอาหารสัตว์ถึงบ้าน ยกเลิกไปตั้งแต่ต้นปี 2567 แล้วนะคะ", "no"),
    ("Do they deliver?", "Our delivery service was discontinued last year.", "no"),
    # a cancellation policy is no service cancelled
    ("Do they take walk-ins?", "รับวอล์คอินค่ะ ยกเลิกการจองก่อน 24 ชม. คืนมัดจำเต็มจำนวน", "yes"),
    # a Burmese "because" ends a clause: "no card machine yet, so cash or KBZPay"
    ("Can I pay with KBZPay or another e-wallet?",
     "Card စက် မရှိသေးလို့ ငွေသား ဒါမှမဟုတ် KBZPay နဲ့ပဲ ပေးလို့ရပါတယ်။", "yes"),
    ("Can they deliver?", "ဖုန်းနဲ့ မှာလို့ မရပါဘူး", "unknown"),  # "can" (လို့ ရ) stays whole
    # hours with the day off in brackets: the range is open, the bracket closed
    ("Are they open on Sundays?", "Showroom: Tue–Sun, 8:00–17:00 (closed Mondays).", "yes"),
    ("Are they open on Sundays?", "Hours: 9:00-18:00 (closed Sundays)", "no"),
    ("Are they open on Sundays?", "Tue – Sun 9:30 AM – 7:00 PM · Monday closed", "yes"),
    # a page's own FAQ: its answer says, not its question
    ("Are they open on Sundays?",
     "Are you open on Sundays?\nOn Sundays the office is shut; we answer WhatsApp only.", "no"),
    # settling the bill is paying; chatting in English is speaking it
    ("Could you find out whether customers can pay with a bank or credit card when they "
     "settle the bill?", "We take Visa and Mastercard at the counter.", "yes"),
    ("Is anyone there able to talk with a customer in English?",
     "Our senior stylist is happy to chat in English.", "yes"),
    ("Walk-ins OK, no appt. needed?", "Appointment နဲ့ပဲ လုပ်ပေးပါတယ်ရှင့်", "no"),
    ("Can I pay by card?", "ငွေသား (သို့) KBZPay ပဲ ရပါတယ်", "no"),
    # alternatives: a "cash and transfer only" list is a yes about transfer, not a no
    ("Pay via bank xfer / QR / e-wallet?", "รับแต่เงินสดกับโอนนะคะ", "yes"),
    ("Pay via bank xfer / QR / e-wallet?", "Cash only, sorry.", "no"),
    # a pocket Wi-Fi for hire is no Wi-Fi for customers; Shopee is no shop
    ("Free Wi-Fi for cust.?", "Pocket WiFi ให้เช่าวันละ 100 บาท", "unknown"),
    ("Do they sell on Shopee or Lazada?", "มีที่จอดมอเตอร์ไซค์หน้าร้าน", "unknown"),
    # Thai and Burmese said plainly: a vehicle left at the shop, goods sent to the door,
    # coming to the home
    ("Is there a place where a customer can leave a car or motorbike while visiting?",
     "ฝากรถไว้ที่ร้านได้ฟรีตลอดช่วงที่เช่าครับ", "yes"),
    ("Is there a place where a customer can leave a car or motorbike while visiting?",
     "ကား ၅ စီးစာ ရပ်စရာ နေရာ ရှိပါတယ်", "yes"),
    ("Will they send an order to the customer's address?", "ส่งรถถึงบ้านฟรีในเขตเมือง", "yes"),
    ("Will they send an order to the customer's address?", "ပစ္စည်း ပို့မပေးပါ", "no"),
    ("Will they come to the customer's home to do the job?",
     "အိမ်ကို လာပြီး အတိုင်းယူပေးတာ မလုပ်ပါဘူးရှင်", "no"),
    ("Cust. parking (car/moto)?", "ဆိုင်ကယ်ရော ကားရော ရပ်လို့မရပါဘူး", "no"),
    ("Delivers to cust. address?", "มีรถรับ-ส่งฟรีจากโรงแรมในคูเมือง", "unknown"),  # a shuttle
    ("Takes cards (credit/debit)?", "รับบัตรประกันสุขภาพ AIA", "unknown"),  # insurance card
    # a condition's "turns up" is no walk-in question; "any chance" only asks
    ("If a foreign client turns up, is there anyone on staff who can talk to them in "
     "English?", "พนักงานพูดภาษาอังกฤษได้ตลอด 24 ชั่วโมง", "yes"),
    ("If a foreign client turns up, is there anyone on staff who can talk to them in "
     "English?", "Seating is by reservation only.", "unknown"),
    ("any chance they're open on a Sunday?", "Closed every Monday.", "yes"),
    ("any chance they're open on a Sunday?", "We take Sundays off.", "no"),
    ("any chance they're open on a Sunday?", "ရက်ပိတ် မရှိပါ", "yes"),
    ("Do they take bank or credit cards when customers pay?", "ကတ်စက် မရှိပါ", "no"),
    ("Do they serve walk-in customers who haven't booked?", "ချိန်းစရာ မလိုပါ", "yes"),
    ("Can people just turn up without a booking and still be served?",
     "รับลูกค้าเฉพาะที่จองคิวล่วงหน้าเท่านั้นนะคะ", "no"),
    # "cash only" says no about the rest though "payment" is named beside it
    ("Do they accept payment by mobile banking transfer, QR scan or an e-wallet?",
     "Payment in cash only – kyat or US dollars.", "no"),
    # air-con, Wi-Fi and English as things sold or met there, not for customers
    ("Is the place air-conditioned?", "အဲယားကွန်း ကြေးပိုက် (တစ်ပေ)", "unknown"),
    ("Is the place air-conditioned?", "Air-conditioned bus tickets to Mandalay.", "unknown"),
    ("free wifi for customers?", "เราเตอร์ Wi-Fi TP-Link พร้อมตั้งค่าให้", "unknown"),
    ("Could a customer who only speaks English be served in English by someone there?",
     "The English Speaking Club meets here every Saturday.", "unknown"),
    # ordering by chat is buying without going there; the chat's name is no LINE account
    ("Is it possible to buy from them without going there in person?",
     "အွန်လိုင်း အော်ဒါ မလက်ခံပါ။", "no"),
    ("Do they have a LINE account or a Facebook page we can message?",
     "အွန်လိုင်း အော်ဒါ မလက်ခံပါ။", "unknown"),
    # "Sunday trading" asks about the day; a long condition's arrival is still no walk-in
    ("Sunday trading (Y/N)?", "Tuesday – Sunday 11:30 – 22:00", "yes"),
    ("Sunday trading (Y/N)?", "The studio is closed on Sundays", "no"),
    ("If one of our English-speaking clients turns up, is there anybody there who can talk "
     "with them in English?", "All treatments are by reservation only.", "unknown"),
    ("If one of our English-speaking clients turns up, is there anybody there who can talk "
     "with them in English?", "Our front desk team speak English and Chinese.", "yes"),
    ("would they serve someone who just shows up without booking?",
     "ချိန်းဆိုထားမှ လက်ခံပါတယ်", "no"),
    ("would they serve someone who just shows up without booking?",
     "ตรวจตามนัดเท่านั้น กรุณาโทรนัดก่อนมานะคะ", "no"),
    ("Do they accept bank or credit cards when the customer pays?",
     "Our reader broke, so cards can't be used for now.", "no"),
    ("Is it possible to buy from them without going there in person?",
     "สั่งเค้กผ่านไลน์ได้เลย ไม่ต้องมาที่ร้าน", "yes"),
    ("pay by bank transfer or qr / phone wallet?", "Wave Pay နဲ့ ငွေလွှဲ ပေးလို့ ရပါတယ်", "yes"),
    ("Does anyone working there speak English well enough to deal with a customer?",
     "ช่างทุกคนพูดภาษาอังกฤษได้", "yes"),
    ("Card payments accepted (Visa/Mastercard/JCB, debit or credit)?",
     "รับเงินสดกับบัตรเครดิตเท่านั้นครับ ไม่รับโอน", "yes"),
    ("bank transfer / QR / e-wallet ok?", "รับโอนรถ ย้ายทะเบียน ต่อภาษี", "unknown"),  # a car's
    ("If a customer turns up on a Sunday, will the place be open?",
     "တနင်္ဂနွေနေ့ အလုပ်မလုပ်ပါ", "no"),
    ("Parking for customers (car or motorbike)?", "ตรงข้ามจุดจอดรถตุ๊กตุ๊ก", "unknown"),
    ("Is the place air-conditioned?", "A/C minibus to Pai – 250 THB", "unknown"),
    ("Any wifi customers can use while they're there?",
     "Every suite has a Wi-Fi camera, so you can watch your dog.", "unknown"),
    # an only-list of cash and transfer leaves cards out, though a transfer names a bank
    ("Do they take Visa, Mastercard or other bank cards when a customer pays?",
     "การชำระเงิน: ชำระค่าคอร์สด้วยเงินสดหรือโอนเท่านั้น", "no"),
    ("Will they let a customer pay with a bank card or credit card?",
     "ငွေသားပဲ လက်ခံပါတယ်။", "no"),
    # a who-or-how word asks nothing else of a day ("...and find them open?")
    ("Could a customer drop by on a Sunday and find them open?",
     "Tuesday – Sunday 7:00 – 15:00", "yes"),
    ("Sunday open?", "တနင်္ဂနွေနေ့ အနားယူပါတယ်", "no"),
    ("Does the business accept payment by bank card or credit card?",
     "ค่าเรียนชำระเป็นเงินสดหรือโอนเท่านั้น ไม่รับบัตรเครดิตค่ะ", "no"),
    ("anyone there who can actually chat in English?",
     "ผู้ปกครองคุยกับครูเป็นภาษาอังกฤษได้เลยค่ะ", "yes"),
    ("If a foreign client gets in touch, is there anyone on their team who can hold a "
     "conversation in English?", "All our guides speak English.", "yes"),
    # what a question sets apart ("apart from cash and cards") is not asked
    ("Apart from cash and cards, do they take mobile-banking transfers or e-wallets?",
     "ငွေသားနဲ့သာ ပေးချေရပါမယ်", "no"),
    ("would they send an order out to the customer's address?",
     "ตัดแล้วส่งไปรษณีย์ / Flash ทั่วประเทศ", "yes"),
    # what is not needed goes with its "not needed" (no "advance appointment" left over)
    ("ok to just turn up without booking?",
     "ကြိုတင်ချိန်းဆိုရန် မလိုပါ၊ ရောက်တဲ့ အစဉ်အတိုင်း နံပါတ်ပြား ယူပြီး စောင့်ပါ။", "yes"),
    ("Parking for customers (car or motorbike)?",
     "Dash cams and car parking cameras, fitted while you wait", "unknown"),
    ("Parking for customers (car or motorbike)?", "มีที่จอดรถเข็นเด็กใต้บันได", "unknown"),
    ("Will they send an order out to the customer's home or office?",
     "ကိုရီးယား ပစ္စည်းတွေကို ကုမ္ပဏီက ဆိုင်အရောက် တိုက်ရိုက်ပို့ပေးပါတယ်။", "unknown"),
    # online is selling only where buying, ordering or a shop is said
    ("Can people buy from them without going there?",
     "ดูตารางคลาสที่อัปเดตได้ทางออนไลน์ ทุกวันจันทร์", "unknown"),
    ("Can people buy from them without going there?",
     "Bring a photo of a hairstyle you saw online.", "unknown"),
    ("Can people buy from them without going there?", "We sell our oils online too.", "yes"),
    ("Can people buy from them without going there?", "Online ကနေ မရောင်းပါ", "no"),
    # English written on things is no English spoken
    ("anyone on staff speak English?",
     "Remote ခလုတ်တွေက English လို ရေးထားပေမယ့် မြန်မာလို ရှင်းပြပေးပါတယ်", "unknown"),
    ("anyone on staff speak English?", "All our manuals are written in English.", "unknown"),
    # a Facebook group or a blogger's page is not theirs
    ("Do they have a Facebook page customers can message?",
     "\"เห็นคนแนะนำในกลุ่ม Facebook คนไทยในพัทยา เลยมาลอง\"", "unknown"),
    ("Do they have a Facebook page customers can message?",
     "\"A friend shared a photo of their cake on Facebook, so we came.\"", "unknown"),
    # "just the two kinds" (နှစ်မျိုးတည်း) is an only-list: no cards
    ("Can I pay by card?", "ငွေသား ဒါမှမဟုတ် Wave Pay နှစ်မျိုးတည်း ရပါတယ်", "no"),
    ("Can I pay by card?", "၂၀၁၅ ကတည်းက ဖွင့်ထားတဲ့ ဆိုင်ပါ", "unknown"),  # since: no "only"
    # a Facebook is theirs where a page, a message or a way to reach them is said
    ("Can we message them on Facebook?", '"Lovely staff!" - Mya, via a Facebook review',
     "unknown"),
    ("Can we message them on Facebook?",
     "ဧည့်သည်တွေ Facebook မှာ တင်ထားတဲ့ ဓာတ်ပုံတွေ ကြည့်ပြီး လာကြတယ်", "unknown"),
    ("Can we message them on Facebook?", "Facebook: Golden Lotus Tailor Taunggyi", "yes"),
    ("Can we message them on Facebook?", "ทักเพจ Facebook ได้ตลอดค่ะ", "yes"),
    ("Can we message them on Facebook?", "Sorry, we are not on Facebook.", "no"),
    ("Can we message them on Facebook?", "အခန်းစျေးနှုန်းကို Rooms စာမျက်နှာမှာ ကြည့်ပါ", "unknown"),
    # chatting or talking with someone in English is speaking it
    ("Can somebody talk with a visitor in English?", "Our receptionist speaks good English.",
     "yes"),
    ("Anyone who can chat to a tourist in English?", "พนักงานพูดภาษาอังกฤษได้ค่ะ", "yes"),
    # where it is asked ("on the premises") asks nothing more
    ("Are dogs allowed on the premises?", "Sorry, no pets inside.", "no"),
    ("Are pets welcome on the premises?", "Cat food and pet shampoo sold here.", "unknown"),
    # a walk-up is a walk-in; Burmese "must register first" is no walk-in
    ("Walk-ins OK?", "Sorry, we can't take walk-up customers.", "no"),
    ("Can people drop in without booking?", "သင်တန်းအတွက် ကြိုတင် စာရင်းပေးရပါမယ်", "no"),
    # ordering on a chat app is ordering by chat; rooms sold on a booking site are sold online
    ("Can customers order by chat?", "Order cakes on Telegram: @sweetbago", "yes"),
    ("Can you buy from them without going there?", "Rooms can be booked on Agoda.", "yes"),
    # a lower price is a discount, "15% off" one; a senior discount is not everyone's
    ("Do they give groups a lower price?", "Groups of 10+ get 15% off.", "yes"),
    ("senior discount?", "Weekday mornings: 20% off every class.", "unknown"),
    ("senior discount?", "ผู้สูงอายุ ลด 10% ทุกวันค่ะ", "yes"),
    # where it is asked ("on site") asks nothing more; explaining in English is speaking it
    ("English-speaking staff on site?", "The owner can explain everything in English.", "yes"),
    ("English-speaking staff on site?", "ที่ร้านไม่มีใครพูดภาษาอังกฤษได้ค่ะ", "no"),
    # ส่งดอกไม้ (sending flowers) holds no งด (refrain)
    ("Delivery to customer address?", "บริการส่งดอกไม้ถึงบ้านทั่วกรุงเทพฯ", "yes"),
    # "currently" only asks; a job found for a customer is no opening of theirs
    ("Are they currently hiring?", "We are hiring a barista - apply inside!", "yes"),
    ("Are they currently hiring?", "Job placement help for all our graduates.", "unknown"),
    # writing to a page is messaging it
    ("Do they have a Facebook page we could write to?", "Facebook: Golden Scissors Bago", "yes"),
    # a label answered on its own line; a question answered in its own line
    ("Parking for customers?", "Parking: sorry, none - the lane is too narrow.", "no"),
    ("Parking for customers?", "Parking: free, behind the shop.", "yes"),
    ("Walk-ins OK?", "Group classes: no need to book, just come at 9.", "yes"),
    ("Gift vouchers?", "Q: Do you sell gift vouchers? A: Not yet, sorry!", "no"),
    ("Gift vouchers?", "ถาม: มีบัตรของขวัญไหมคะ? ตอบ: มีค่ะ ราคา 500 บาท", "yes"),
    # Wi-Fi or parking for the staff only is none for customers
    ("free wifi for customers?", "Sorry, the Wi-Fi is for staff only.", "no"),
    ("Free Wi-Fi for guests?", "The studio is a Wi-Fi-free space.", "no"),
    ("Parking for customers?", "Sorry, our parking is for staff only.", "no"),
    ("Parking for customers?", "The Wi-Fi is for staff only. Park in front.", "yes"),
    # Burmese "without coming" is how they sell, not a "no"
    ("Can people buy without going there?", "ဆိုင်ကို မလာဘဲ Viber ကနေ မှာလို့ ရပါတယ်။", "yes"),
    # a member card, a discount coupon, a bus stop, a customer's quoted post are not it
    ("Card payments accepted?", "Member ကတ် စနစ် မရှိပါ။", "unknown"),
    ("Do they sell gift vouchers?", "รับคูปองส่วนลด 10% ไว้ใช้ครั้งหน้า", "unknown"),
    ("Parking for customers?", "ร้านอยู่ติดที่จอดรถเมล์สาย 8", "unknown"),
    ("Do they have a Facebook page?", "โพสต์จากเฟซบุ๊กของคุณแอน: อร่อยมาก", "unknown"),
    # a car park at a named place, or a public one's, is somewhere else's
    ("Parking for customers?", "Meet us at the car park at Patong Pier.", "unknown"),
    ("Parking for customers?", "Park at Central Festival and walk five minutes.", "unknown"),
    ("Parking for customers?", "The driver waits at the airport car park.", "unknown"),
    ("Parking for customers?", "Sorry, there is no parking at Golden Pestle.", "no"),
    ("Parking for customers?", "Parking in Soi 3 is free for our customers.", "yes"),
    # goods sent to the shop (Burmese "from ... sent"), a message sent, guests' app orders
    ("Do they deliver?", "ကော်ဖီစေ့ကို ပြင်ဦးလွင်ကနေ လစဉ် ပို့ပေးတာမို့ လတ်ဆတ်ပါတယ်။", "unknown"),
    ("Do they deliver?", "ဆိုင်ကနေ အိမ်အရောက် ပို့ပေးပါတယ်။", "yes"),
    ("Do they deliver?", "နယ်မြို့တွေကို ကားဂိတ်ကနေ ပို့ပေးပါတယ်။", "yes"),
    ("Do they deliver?", "ဓာတ်ခွဲ အဖြေကို Viber နဲ့ ပို့ပေးပါတယ်။", "unknown"),
    ("Do they deliver?", "We send your receipt by email.", "unknown"),
    ("Do they deliver?", "Grab riders can leave your food at reception.", "unknown"),
    ("Do they deliver?", "We deliver to your home within 5 km.", "yes"),
    # no need to come to the shop is buying without going; in-store only is not
    ("Can people buy from them without going there?", "ရုံးကို လာစရာ မလိုပါ၊ ဖုန်းနဲ့ မှာပါ။", "yes"),
    ("Can people buy from them without going there?", "รอรับของที่บ้านได้เลย ไม่ต้องมาที่ร้านค่ะ",
     "yes"),
    ("Do they sell online?", "We ship anywhere in Myanmar with Royal Express.", "yes"),
    ("Do they sell online?", "Our gear shop is in-store only.", "no"),
    ("Do they sell online?", "ဝယ်မယ်ဆိုရင် ဆိုင်ကို တိုက်ရိုက် လာရပါမယ်။", "no"),
    ("Do they sell online?", "ร้านซ่อมเฉพาะที่หน้าร้านเท่านั้น", "unknown"),
    # a phone's Wi-Fi fault, a Wi-Fi SIM, the tea shop next door's Wi-Fi are not theirs
    ("Free Wi-Fi for customers?", "แก้อาการ WiFi ไม่ติด / บลูทูธหาย", "unknown"),
    ("Free Wi-Fi for customers?", "Buy a Wi-Fi SIM at the airport: cheaper than roaming.",
     "unknown"),
    ("Free Wi-Fi for customers?", "ဆေးခန်းနဲ့ ကပ်လျက် လက်ဖက်ရည်ဆိုင်မှာ Wi-Fi ရပါတယ်", "unknown"),
    # a travel visa or a tasting card is no card payment
    ("credit/debit cards accepted?", "ED visa course (1 year)", "unknown"),
    ("Can I pay with a Visa card?", "Visa help for students", "unknown"),
    ("credit/debit cards accepted?", "Every bag comes with a tasting card.", "unknown"),
    # a gift or member card is no payment card: "cash only" says nothing about it
    ("Do they sell gift vouchers or gift cards?", "Cash only, sorry - no cards.", "unknown"),
    ("Member card / points?", "ငွေသားနဲ့ Wave Pay နဲ့ပဲ ပေးလို့ရပါတယ်။", "unknown"),
    ("Do they sell gift cards?", "Gift cards from 500 baht at the counter.", "yes"),
    ("Do they take cards?", "Cash only, sorry - no cards.", "no"),
    # a formal questionnaire's words only ask ("the establishment", "employ", "maintain")
    ("Does the business employ staff who are able to communicate in English?",
     "All our instructors speak English.", "yes"),
    ("Does the business maintain a LINE account through which it can be contacted?",
     "LINE: @bakery99", "yes"),
    # a gift voucher is no card payment; a cart the business parks is no parking
    ("Does the establishment accept credit or debit cards?", "Gift voucher တော့ မရောင်းသေးပါဘူး။",
     "unknown"),
    ("Parking for customers?", "On Saturdays we park our food cart at the night market.",
     "unknown"),
    # "may", "directly", "beforehand" only ask; Burmese "without registering" is a walk-in
    ("May a customer come directly to the shop without booking beforehand?",
     "No booking needed: walk in and buy your ticket at the counter.", "yes"),
    ("May customers pay with a credit card at this shop?", "Visa နဲ့ MPU ကတ် လက်ခံပါတယ်", "yes"),
    ("ok to just turn up w/o booking?", "ကြိုတင် စာရင်းမပေးဘဲ လာလို့ မရပါ", "no"),
    ("Card payments?", "Condo access card: leave it with security if you are not home.",
     "unknown"),
    # a Wi-Fi timer or a ferry's Wi-Fi on board, a van's parking pass, a brand's page,
    # a tyre bought on Shopee elsewhere, the shop's own bulk buying are not theirs
    ("Free Wi-Fi for customers?", "The orchids are misted by sprinklers on a Wi-Fi timer.",
     "unknown"),
    ("Parking for customers?", "Some condos ask for a parking pass for our van.", "unknown"),
    ("Do they have a Facebook page?", "ดูคลิปวิธีตั้งค่าได้ในเพจ Facebook ของแบรนด์ผู้ผลิต",
     "unknown"),
    ("Do they sell online?", "ยางที่ลูกค้าซื้อจาก Shopee เอามาใส่ที่ร้านได้", "unknown"),
    ("Do they sell online?", "มีร้านใน Lazada และ Shopee ค่ะ", "yes"),
    ("Does the shop accept big orders?", "We buy our soap in bulk from a factory.", "unknown"),
    ("Does the shop accept big orders?", "ขายส่งราคาพิเศษ สั่งขั้นต่ำ 10 กก.", "yes"),
    # a Burmese "because" clause is a clause of its own; Wi-Fi "only for our tablets"
    ("Air-conditioned?", "Studio ထဲမှာ အဲကွန်း ဖွင့်ထားလို့ မိတ်ကပ် မပျက်ပါဘူး။", "yes"),
    ("free wifi for customers?", "The Wi-Fi here is only for our ordering tablets, sorry!",
     "no"),
    # Burmese "without telling beforehand" is a walk-in's words; "please book ahead" is a no
    ("Can people just turn up without a booking?", "ကြိုမပြောဘဲ လာရင် လက်မခံနိုင်ပါ", "no"),
    ("Can people just turn up without a booking?",
     "ကြိုမပြောဘဲ ရောက်လာလည်း အခန်းလွတ်ရင် ပေးပါတယ်", "yes"),
    ("Can people just turn up without a booking?", "คลินิกรับเฉพาะคนไข้ที่นัดไว้ล่วงหน้าค่ะ", "no"),
    ("Can people just turn up without a booking?",
     "สำหรับกลุ่มตั้งแต่ 10 ท่านขึ้นไป กรุณาจองล่วงหน้าอย่างน้อย 1 วัน", "unknown"),
    ("Can people just turn up without a booking?",
     "ช่วงสงกรานต์ห้องเต็มเร็ว แนะนำให้จองล่วงหน้า 1 เดือน", "unknown"),
    # shut is closed; a crew is staff; sold only asks; suppliers' trucks or a parking ticket
    # book are no customer parking
    ("Is the place shut on Sundays?", "Sunday: closed", "yes"),
    ("English-speaking crew?", "Our guides speak English.", "yes"),
    ("Check whether gift vouchers are sold", "Gift vouchers from 300 baht.", "yes"),
    ("Check for customer parking", "The farm trucks park in our yard on Tuesdays.", "unknown"),
    # asked the other way round: "refused" is "accepted", answered and turned over
    ("Are credit cards refused there?", "Sorry, card payments are not available.", "yes"),
    ("Are credit cards refused there?", "Visa / Master ကတ် လက်ခံပါတယ်။", "no"),
    ("Are credit cards refused there?", "Opening hours 9-17.", "unknown"),
    # a money agent next door, sellers a shop orders from are not its payments or sales
    ("Pay by QR or e-wallet?", "ငွေထုတ်ချင်ရင် KBZPay agent ဆိုင် ရှိပါတယ်", "unknown"),
    ("Do they sell online?", "Special parts we order from Shopee sellers in Bangkok.",
     "unknown"),
    # "whether or not" (ရှိမရှိ) is no negation
    ("Can we message them on Facebook?",
     "Facebook page ကို Message ပို့ပြီး ပစ္စည်း ရှိမရှိ မေးလို့ ရပါတယ်။", "yes"),
    # one shop only is no other branch; a second shop is one
    ("Does the business have more than one branch?", "This is now our only shop.", "no"),
    ("Does the business have more than one branch?",
     "ကိုထက်ရဲ့ ဆိုင်က ဒီ ဆိုင်တစ်ဆိုင်ပဲ ရှိပါတယ်။", "no"),
    ("Does the business have more than one branch?",
     "We also run a second guest house in Hpa-An.", "yes"),
    # a customer's home or office address is where they deliver to
    ("Check whether they deliver to the customer's home or office address",
     "We deliver bikes free to hotels and condos in town.", "yes"),
    # a voucher (receipt) book, a songthaew stop are not what is asked
    ("💳 Takes cards?", "ကားပါကင် လက်မှတ်၊ ဘောက်ချာ စာအုပ်", "unknown"),
    ("Parking for customers?", "ร้านอยู่ติดจุดจอดรถแดงหน้าวัด", "unknown"),
    # a warning about fakes or stolen photos is no yes
    ("Do they sell online?", "Beware of fakes sold online under our name!", "unknown"),
    ("Do they sell online?", "ระวังกุญแจราคาถูกที่ขายใน Shopee ของปลอมเยอะ", "unknown"),
    ("Do they have a Facebook page?", "⚠️ သတိ - Facebook ပေါ်မှာ ပုံတွေကို ခိုးသုံးနေပါတယ်", "unknown"),
    ("Do they sell online?", "Sorry, we do not sell online.", "no"),
    # someone else's Facebook page, or a post shared from one
    ("Do they have a Facebook page?", "The line-up is posted on our singer Kiko's Facebook page.",
     "unknown"),
    ("Do they have a Facebook page?", "แชร์จาก Facebook เพจ Rayong Foodie: อร่อยมาก", "unknown"),
    # "don't park across the gate" or "park your board" is no customer parking
    ("Parking for customers?", "ขอความร่วมมือ ห้ามจอดรถขวางประตูโรงเรียน", "unknown"),
    ("Parking for customers?", "Park your board with us: overnight rack 100 THB.", "unknown"),
    # delivered and installed is delivered; by booking only is no walk-in
    ("Do they deliver?", "ส่งและติดตั้งฟรีในเขตอำเภอเมือง", "yes"),
    ("Walk-ins OK?", "All lessons are by booking only.", "no"),
    # "no bookings" is the walk-in itself, not a "no" about it
    ("Can guests just walk in?", "No bookings - walk in and take any free table.", "yes"),
    ("Walk-ins accepted?", "We take no reservations, first come first served.", "yes"),
    ("Walk-ins accepted?", "Sorry, no walk-ins: appointments only.", "no"),
    # each example of a kind answers as the kind does
    ("Can they be paid with a mobile wallet such as TrueMoney or KBZPay?",
     "ငွေသား နဲ့ KBZPay ပဲ လက်ခံပါတယ်။", "yes"),
    ("Do they take e-wallets, e.g. KBZPay?", "We only take cash.", "no"),
    # what is only planned is no yes about now
    ("Do they accept credit cards?", "Card payments coming soon!", "unknown"),
    ("Do they accept credit cards?", "กำลังจะมีเครื่องรูดบัตรเร็วๆ นี้ค่ะ", "unknown"),
    ("Can I pay with KBZPay?", "KBZPay ကို နောက်လမှစ၍ လက်ခံပါမည်။", "unknown"),
    ("Do they accept credit cards?", "Credit cards are accepted.", "yes"),
    # examples after a dash, closed by "anything", explain what is asked
    ("Will they get it to a customer's home - own rider, a courier, anything?",
     "เราส่งถึงบ้านในเขตเมือง", "yes"),
    ("Loyalty stuff - stamp card, points, anything like that?",
     "Buy 9 coffees, get the 10th free with our stamp card.", "yes"),
    # a service or card cancelled, its name between (ยกเลิก ... แล้ว)
    ("Do they deliver?", "บริการรับ-ส่งรถถึงบ้าน ยกเลิกแล้วตั้งแต่ปี 2566", "no"),
    ("Loyalty card?", "ร้านยกเลิกบัตรสะสมแต้มแล้ว ขอบคุณค่ะ", "no"),
    # booking by one channel only says nothing about ordering online
    ("Can a customer order online or by chat?",
     "ขอรับเฉพาะลูกค้าที่จองคิวล่วงหน้าเท่านั้น ไม่รับ walk-in ค่ะ", "unknown"),
    ("Can I book online?", "Appointments by phone only.", "no"),
    ("Can I order online?", "Orders by phone only, sorry.", "no"),
    # what was done once and is no more
    ("Do they deliver?", "We used to deliver, but the rider left last year.", "no"),
    ("QR payment?", "เมื่อก่อนร้านมีสแกนจ่าย ตอนนี้รับแต่เงินสดนะคะ", "no"),
    ("Do they deliver?", "အရင်က Foodpanda နဲ့ ပို့ခဲ့ပေမယ့် အခု မပို့တော့ပါ။", "no"),
    ("Can I pay by QR?", "The QR code at the till can be used to pay.", "yes"),
    # "nowhere", and Thai "takes only" (รับแต่)
    ("Customer parking?", "Don't come by car: there's nowhere to park on our soi.", "no"),
    ("Cards OK?", "ร้านรับแต่เงินสดค่ะ", "no"),
    # what a dash follows is asked apart ("- web shop, Shopee or chat?"); "no cash on me
    # - ..." is a condition
    ("Do they sell online - web shop, Shopee/Lazada, or orders taken over chat?",
     "ร้านไม่ได้ขายสินค้าออนไลน์นะคะ", "no"),
    ("no cash on me - can i pay by bank transfer or scan qr?",
     "Pay at the desk by card (Visa, Mastercard) or cash.", "unknown"),
    ("Do they sell online in any form - their own web shop or a marketplace?",
     "We sell on Shopee too.", "yes"),
    ("Can I pay by a wallet such as KBZPay or Wave Pay?",
     "လစဉ်ကြေးကို ငွေသား (သို့) Wave Pay နဲ့သာ ပေးသွင်းရပါမယ်။", "yes"),
    ("Can customers order by chat?", "Viber ကနေ ပစ္စည်းပုံ ပို့ပြီး မှာလို့ရပါတယ်", "yes"),
    # a page disowned is no page of theirs, and no "no" either
    ("LINE / FB page to message?",
     'ร้านเราไม่เกี่ยวข้องกับเพจ Facebook ชื่อ "Sak Laundry Jomtien" นะคะ', "unknown"),
    ("Are they hiring right now, any job ads up?", "Help wanted: a part-time shop assistant",
     "yes"),
    ("Are they hiring?", "ဝန်ထမ်းခေါ်ထားတာ ပြည့်သွားပါပြီ။", "no"),
    ("English-speaking staff on site?", "มีครูต่างชาติ สอนภาษาอังกฤษ ทุกวัน", "yes"),
    # a question asking whether there is none: answered the right way round, turned over
    ("Is it collect-in-person only, with no delivery to the customer's address?",
     "ในเมืองอุดรส่งฟรีถึงบ้านภายในวัน", "no"),
    ("Is it collect-in-person only, with no delivery to the customer's address?",
     "For safety we never courier jewellery; collect it at the shop.", "yes"),
    ("Do they take people who just turn up with no booking or appointment?",
     "ไม่ต้องจองล่วงหน้า มาเลือกรถที่ร้านได้เลยครับ", "yes"),
    # a neighbour's (not ours!), a park to visit, a marketplace shop someone else keeps
    ("Wi-Fi for customers?", "The café downstairs (not ours!) has Wi-Fi.", "unknown"),
    ("Do they deliver?", "Our neighbours at Fit Box Kitchen deliver meal-prep boxes.", "unknown"),
    ("Customer parking?", "The marine park fee (300 THB) is paid on the boat.", "unknown"),
    ("Do they sell online - a web shop, Shopee or Lazada?",
     "ยางที่ลูกค้าซื้อจาก Shopee หรือ Lazada เอามาใส่ที่ร้านได้", "unknown"),
    ("Do they sell on Shopee?", "รองเท้าบัลเล่ต์ ครูแนะนำร้านใน Shopee ให้ได้ค่ะ", "unknown"),
    # an alternative that is the opposite of the first side: the first side is asked
    ("can ppl just turn up or do they have to book first?",
     "Please book ahead: with only four bungalows we can't take walk-in guests.", "no"),
    ("can ppl just turn up or do they have to book first?",
     "No appointment needed: come in, grab a stool and dig through the crates.", "yes"),
    ("can ppl just walk in or is it appt only?",
     "Viewings are by appointment only, so that we can give you a quiet room.", "no"),
    ("Do they deliver or is it pickup only?", "Pick-up only, sorry.", "no"),
    # a negation before a list's first comma is the whole list's
    ("Do they sell online?", "Sorry, we don't ship, deliver or sell online.", "no"),
    ("Do they deliver?", "We don't do repairs, but we deliver or ship anywhere.", "yes"),
    ("Do they take cards?", "Sorry, no QR or bank transfers – cash or card only.", "yes"),
    # a day alone asks whether they are open then; "our only location"
    ("do they do sundays?", "တနင်္ဂနွေနေ့တွေမှာ နားပါတယ်။", "no"),
    ("Does the business operate from more than one branch?",
     "Ari is our only location for now.", "no"),
    # where it is delivered, named before "delivery", says it is a delivery
    ("Home/office delivery y/n?", "We deliver to your door anywhere in Yangon.", "yes"),
    ("Customer parking?", "The red door is two doors down from the Parking Lot Bar.", "unknown"),
    # a reason before a dash; a plan for next year; Burmese "not" inside "come and repair"
    ("Buyers up there don't carry cash - can you pay them by bank transfer or QR?",
     "Cash or bank transfer only (KBZ, AYA, CB Bank)", "yes"),
    ("Do they sell online?", "📢 ปีหน้ามีแผนจะเปิดร้านใน Shopee ติดตามได้เลย", "unknown"),
    ("Home visits?", "အိမ်ကို လာမပြင်ပေးတော့ပါ၊ ဆရာ အငြိမ်းစား ယူသွားလို့ပါ။", "no"),
    # a kind of thing is the thing; a statement before the question is its reason
    ("Do they have any kind of loyalty scheme?", "บัตรสะสมแต้ม ครบ 10 ดวง ทานฟรี 1 ท่าน", "yes"),
    ("Our rep only speaks English. Is there anyone on site who can chat with them in "
     "English?", "Tom handles bookings and speaks English.", "yes"),
    # bulk and wholesale are one thing; what the business buys in bulk is not it
    ("bulk/wholesale orders ok?", "Wholesale parcels for jewellers, by appointment.", "yes"),
    ("Do they take bulk or wholesale orders?", "We buy our rice in bulk from a mill.",
     "unknown"),
    # speaking is no class (the speaking group's "lessons in" is a name, not its words);
    # a course the staff took is no class for customers
    ("Do they run classes or workshops?", "We speak English, Thai and a bit of Japanese.",
     "unknown"),
    ("English staff?", "Lessons in English and Thai.", "yes"),
    ("Do they run classes or workshops?", "ช่างหนุ่มจบคอร์สบาร์เบอร์จากกรุงเทพฯ ปี 2562", "unknown"),
    ("Do they run classes or workshops?", "Our neighbour Beat Lab runs DJ courses upstairs.",
     "unknown"),
    ("Is their Facebook page there to message?",
     "เคยลงรีวิวในเพจ Facebook \"เชียงรายกินไหนดี\" ด้วยนะ", "unknown"),
    # what a condition says is lacking is not asked; what follows it is cut where it lists;
    # "like" gives examples
    ("If the customer is short of cash, can they pay by bank transfer, a QR scan like "
     "PromptPay, or a wallet app like KBZPay or Wave Pay?", "เงินสดหรือโอนเท่านั้น", "yes"),
    ("If the customer is short of cash, can they pay by bank transfer, a QR scan like "
     "PromptPay, or a wallet app like KBZPay?", "We only take cash.", "no"),
    ("If a customer only speaks English, is there someone on the staff who can talk with "
     "them?", "တရုတ်လို ပြောတတ်တဲ့ ဝန်ထမ်း ရှိပါတယ်။", "unknown"),
    ("Do they take e-wallets like PromptPay, KBZPay or Wave Pay?",
     "ဆိုင်ဘေးမှာ Wave Money ငွေလွှဲဆိုင် ရှိပါတယ်။", "unknown"),
    # bringing says how, and "onto the premises" where
    ("Are customers permitted to bring pets onto the premises?",
     "Dogs are welcome if they are friendly.", "yes"),
    ("Are customers permitted to bring pets onto the premises?",
     "ห้ามนำสัตว์เลี้ยงเข้าฟาร์มนะคะ", "no"),
    # "no need to book" (Burmese with a word between) is a walk-in, and says nothing of
    # booking by phone
    ("Is it appointment-only, i.e. do customers have to book before coming?",
     "ကြိုတင် ဘွတ်ကင် လုပ်စရာ မလိုပါ၊ စက်အားရင် ချက်ချင်း ထိုင်လို့ရပါတယ်။", "no"),
    ("Can you book an appointment by phone?",
     "ကြိုတင် ချိန်းစရာ မလိုပါ၊ ရောက်တဲ့ အစဉ်အတိုင်း ဆေးပေးပါတယ်။", "unknown"),
    ("Can you book an appointment by phone?", "Call us to book: 081 234 5678.", "yes"),
    # a thing named alone is no kind of the next one's head ("PromptPay or bank transfer");
    # words joined by a slash are either
    ("Do they take PromptPay or bank transfer?", "Pay by PromptPay QR.", "yes"),
    ("LINE/Facebook y/n", "Add our LINE: @shop123", "yes"),
    ("Transfer/QR OK?", "สแกนจ่ายพร้อมเพย์ได้", "yes"),
    # arriving, in a condition, says when; "no longer open"; PET plastic; a dog left home
    ("If a foreign customer walks in, is there anyone there who can speak English with them?",
     "ไม่ต้องนัดครับ เดินเข้ามาได้เลย", "unknown"),
    ("Open on Sundays?", "We no longer open on Sundays.", "no"),
    ("Pets allowed?", "ဘူးတွေ အားလုံး PET ပလတ်စတစ် ဖြစ်ပါတယ်။", "unknown"),
    ("Pets allowed?", "Please leave your dog at home: most of our sofas are fabric.", "no"),
    # a modifier's opposite is no "no"; Burmese ဘူး (a bottle, a box) is no "not", and a
    # topic (ကိုတော့) is answered by the verb after its reason (...လို့)
    ("If a foreign customer walks in, is there anyone there who can speak English with them?",
     "Viewings are by appointment only: the warehouse is often locked.", "unknown"),
    ("do they deliver to the customer's home or office?",
     "ရန်ကုန်မြို့တွင်း ရေဘူး ၂ ဘူးအထက် မှာရင် အိမ်အရောက် အခမဲ့ ပို့ပေးပါတယ်။", "yes"),
    ("Would they take on big orders from companies, events or resellers (bulk, wholesale or "
     "corporate jobs)?", "အလှူ၊ မင်္ဂလာဆောင်အတွက် မုန့်ဘူး အများကြီး (၅၀ ဘူးအထက်) ကိုတော့ မီးဖိုသေးလို့ "
     "လက်မခံနိုင်ပါဘူး၊ တောင်းပန်ပါတယ်။", "no"),
    # what is hoped for is only planned; others' Facebook pages
    ("Do they run classes or workshops?",
     "Later in 2025 we hope to run short home-grooming workshops for owners.", "unknown"),
    ("LINE / FB page to message?",
     "Health tips from our partner clinic are posted on their Facebook page.", "unknown"),
    ("LINE / FB page to message?", "ဆိုင်ရဲ့ Facebook page ကို Message ပို့ပြီး မေးနိုင်ပါတယ်။",
     "yes"),
    # "without cash" is a condition, not the rest of the question; a second stall; Burmese
    # "can park" with a space; a Thai heading answered by its piece about what is asked
    ("Could a customer without cash settle the bill by bank transfer?",
     "Pay the groomer in cash or by bank transfer after the groom.", "yes"),
    ("Parking for customers?", "ကုန်ကားတွေ ဆိုင်ဝင်းထဲ ရပ်လို့ ရပါတယ်။", "yes"),
    ("Do they have more than one branch?", "ဒီဆိုင် တစ်ဆိုင်ပဲ ရှိပါတယ်။", "no"),
    # ordering on a chat app is selling online, and no LINE account of theirs by that
    ("Sells online (web shop, marketplace, or order by chat)?",
     "Order on WhatsApp, pay by bank transfer, and we post it.", "yes"),
    ("Do they sell online?", "ทุเรียนสั่งทาง LINE แล้วโอนก่อน ส่งทั่วประเทศ", "yes"),
    ("Do they have a LINE account?", "ร้านไม่ได้ขายของออนไลน์ครับ", "unknown"),
    # short and sheet-style asks: where it is paid, a weekday alone, every day, e-commerce
    ("Can customers pay with a credit or debit card at the counter?",
     "รับบัตรเครดิตทุกธนาคาร", "yes"),
    ("Sun?", "วันอาทิตย์ร้านหยุด", "no"),
    ("Sun?", "Open daily 9:00-18:00", "yes"),
    ("open 7 days?", "Open Mon-Sat 9:00-18:00, closed Sundays.", "no"),
    ("Open every day?", "Open daily 9:00-18:00", "yes"),
    ("E-commerce y/n", "We don't sell online.", "no"),
    ("Do they sell on marketplaces?", "สั่งซื้อออนไลน์ได้ที่ Shopee", "yes"),
    ("Scan to pay?", "Cash only.", "no"),
    # plastic is a card
    ("Do they take plastic?", "ร้านไม่รับบัตรเครดิตนะคะ", "no"),
    # a card's brand is asked of cards; a stamp or birthday card is no payment card
    ("Will they take a Visa or Mastercard (credit or debit card)?",
     "Sorry, we don't take cards.", "no"),
    ("Visa accepted?", "ขวด ๑๐ ขวด stamp ကတ်ကို ကောင်တာမှာ တောင်းပါ။", "unknown"),
    # premises the business rents from someone are no rental to customers
    ("Can customers rent or hire gear from them?", "ဂိုဒေါင်ကို ဘေးအိမ်က ငှားထားတာပါ။", "unknown"),
    ("Can customers rent or hire gear from them?", "Bikes for rent: 200 baht a day.", "yes"),
    # the clause about the language asked, not another language's
    ("If a customer only speaks English, is there someone on the staff who can talk with "
     "them?", "ลูกค้าจากมาเลเซีย: พนักงานพูดภาษามลายูได้ แต่ภาษาอังกฤษยังไม่ได้ครับ", "no"),
    # a pet brought along, not the shop cat or a dog-leg hole; plans being prepared;
    # a day named as the question's first word; hours alone say nothing of Sunday
    ("Pets allowed?", "Ask our regulars about the famous dog-leg 7th at Laem Chabang.",
     "unknown"),
    ("Pets allowed?", "Sorry — pets can't ride in our cars.", "no"),
    ("Pets allowed?", "พาน้องหมามาได้ครับ", "yes"),
    ("Do they sell online?", "Online shop ဖွင့်ဖို့ ပြင်ဆင်နေဆဲ ပါ။", "unknown"),
    ("Do they sell online?", "We're also planning an online shop for DIY kits.", "unknown"),
    ("Do they deliver?", "Material deliveries to our yard come by lorry on Tuesdays.", "unknown"),
    ("Sunday - are they open for business?", "๙ โมงเช้า – ๖ โมงเย็น หยุดทุกวันจันทร์", "yes"),
    ("Open on Sundays?", "ဆွဲချိန်က မနက် ၉ နာရီ – ညနေ ၅ နာရီခွဲ ပါ။", "unknown"),
    ("Open on Sundays?", "Office hours: 08:00 – 19:30, every day — public holidays included.",
     "yes"),
    # stopped taking is no longer taking; others' and media pages; a loan is no card;
    # files sent by a link are no delivery; land rented for the farm is no rental
    ("Card payment?", "Sorry, we stopped taking cards after the bank took back our terminal.",
     "no"),
    ("LINE / FB page to message?",
     "Our sunrise shot was shared by the Yangon Heritage Trust Facebook page in 2023.", "unknown"),
    ("Cards OK (Visa / Mastercard / debit)?", "အုပ်စု ချေးငွေ", "unknown"),
    ("Do they deliver?", "Edited photos are delivered by Google Drive link within 5 days.",
     "unknown"),
    ("Do they deliver?", "We bring the bike to your guesthouse for free.", "yes"),
    ("Can customers rent or hire gear from them?",
     "แปลงหม่อนที่ใช้เลี้ยงไหม เราปลูกบนที่ดินที่เช่าจากวัด", "unknown"),
    # Thai "sent ... to your home" with the goods between; "no sending"; not children
    ("Do they bring orders to the customer's home or office?", "รับ-ส่งโซฟาถึงบ้านฟรีในเขตพัทยา",
     "yes"),
    ("Do they bring orders to the customer's home or office?", "ป้าไม่มีส่ง", "no"),
    ("Do they deliver?", "มีบริการรถตู้รับ-ส่งเด็กถึงบ้าน ในรัศมี 5 กม.", "unknown"),
    ("open sundays?", "Sunday: No jobs, sorry.", "no"),
    ("Branches (more than one)?", "Ari Junction is now our only spot.", "no"),
    # a member of staff is staff; Burmese "cannot order" beside "Online"
    ("Would any member of staff be able to communicate with our client in English?",
     "Classes are taught in English and Thai.", "yes"),
    ("Loyalty programme?", "A member of staff will help you.", "unknown"),
    ("Is it possible to buy from them online?", "Online နဲ့ Viber ကနေ ဆေးမှာလို့ မရပါ", "no"),
    # a free redo of work that is not right is a guarantee
    ("Do they give a warranty or guarantee on their work?", "แก้แล้วไม่พอดี แก้ใหม่ให้ฟรีภายใน ๗ วัน",
     "yes"),
    ("Do they give a warranty or guarantee on their work?",
     "အတိုင်းမကျရင် အခမဲ့ ပြန်ပြင်ပေးပါတယ်။", "yes"),
    # the business's website is online; a message is a chat
    ("Can customers book online?", "Book direct on our website for the best rate.", "yes"),
    ("can customers book online or by chat (web, LINE, Messenger, Viber)?",
     "message ပို့ပြီး ကြိုတင် ဘိုကင်လုပ်လို့ ရပါတယ်", "yes"),
    # the weekend: open by a Saturday or Sunday open, closed when both are
    ("are they open at the weekend?", "Open daily 9:00-18:00", "yes"),
    ("Open on weekends?", "Open Mon-Fri 9-17, closed weekends.", "no"),
    # "open without skipping public holidays"; motorbike parking is parking; Wave is a
    # payment kind; a Thai table or queue booked ahead is booking
    ("Do they open on public holidays?", "เปิดทุกวัน ไม่เว้นวันหยุดนักขัตฤกษ์", "yes"),
    ("Motorbike parking?", "ဆိုင်ကယ် ရပ်စရာ နေရာ ရှိပါတယ်။", "yes"),
    ("Wave Pay?", "ငွေသားသာ လက်ခံပါတယ်။", "no"),
    ("Do they take bookings?", "จองโต๊ะล่วงหน้าได้ทางไลน์", "yes"),
    # a dog or a cat brought along (not a "Dog tee"); ကြောင်း (about) holds no cat
    ("can ppl bring their dog or cat along?", "Dog tee – our best seller", "unknown"),
    ("can ppl bring their dog or cat along?", "Dogs are welcome on a leash.", "yes"),
    ("Pets allowed?", "ဝမ်းနည်းကြောင်း ကတ်လေးလည်း အခမဲ့ တွဲပေးပါတယ်။", "unknown"),
    # the clause after "but"; "no appointments on Sundays"; a walk-in cold room; an FAQ
    # answered with a plan
    ("English-speaking staff?",
     "ช่างพูดอังกฤษไม่ได้ แต่หัวหน้างาน (คุณเอก) สื่อสารภาษาอังกฤษได้", "yes"),
    ("Open on Sundays?", "Sundays I play the organ at church, so no appointments on Sundays.",
     "no"),
    ("Walk-ins OK?", "เพิ่งติดตั้งห้องเย็นแบบ walk-in เล็ก ๆ หลังร้าน", "unknown"),
    # "sales" says selling; contact by one channel only answers a messaging question;
    # Burmese ပါပဲ (that's all) is no "only"
    ("Online sales?", "online ကနေ ဆေးသုတ်ဆေး မရောင်းပါ", "no"),
    ("can we msg them on LINE or their FB page?", "ဖုန်း သို့မဟုတ် Viber နဲ့သာ ဆက်သွယ်ပါ", "no"),
    ("Cards OK?", "ဒီဇိုင်းကို Viber နဲ့ ပို့ပြီး KBZPay နဲ့ ငွေလွှဲရုံပါပဲ။", "unknown"),
    # a word a letter away from a known one is that one (a team's typing)
    ("do they take wholsale orders?", "Wholesale prices for resellers on request.", "yes"),
    ("Englsh speaking staff?", "Our staff speak English.", "yes"),
    ("Facebok page?", "Follow us on Facebook: facebook.com/bakery99", "yes"),
    # อย่างดี (well) holds no งด (refrain)
    ("Do they sell online?", "สั่งได้ที่ Shopee แพ็คกล่องอย่างดี", "yes"),
])
def test_a_page_answers_the_fact_however_it_was_asked(ask: str, line: str, said: str) -> None:
    assert answer(ask, line) == said


def test_english_spoken_times_and_a_closing_said_with_and() -> None:
    line = "We open at 10:30 in the morning and lock up at 7:30 in the evening."
    assert answer_all([Question(id="q", ask="wat time do they close up?", type="text")],
                      [("index.html", line)])["q"].value == "19:30"
    line = "Hours: Monday to Saturday, from 9 in the morning until 5 in the afternoon."
    assert answer_all([Question(id="q", ask="Opening time?", type="text")],
                      [("index.html", line)])["q"].value == "9:00"


@pytest.mark.parametrize(("ask", "line", "told"), [
    ("Closing time, please (24-hour clock)?", "เปิด ๘.๐๐ – ๑๖.๐๐ น. หยุดทุกวันอาทิตย์", "16:00"),
    ("Opening time?", "Charging takes about 4–8 hours.\nOpen 10:00 – 19:30", "10:00"),
    ("wat time do they close for the day?", "เปิดแผง ๘ โมงเช้า เก็บแผง ๕ โมงเย็น", "17:00"),
])
def test_a_time_asked_politely_and_told_beside_other_numbers(ask: str, line: str,
                                                              told: str) -> None:
    question = Question(id="q", ask=ask, type="text")
    assert answer_all([question], [("index.html", line)])["q"].value == told


def test_a_sheets_answer_form_and_an_hour_asked_formally() -> None:
    assert plain_ask("Sun open y/n?") == "Sunday open?"
    assert plain_ask("Cards (yes/no)?") == "Cards?"
    assert answer("Sun open y/n?", "วันอาทิตย์ ร้านหยุดครับ") == "no"
    ask = Question(id="q", ask="On an ordinary working day, at what hour does the business "
                   "close?", type="text")
    assert answer_all([ask], [("index.html", "Open 9:00 - 17:00")])["q"].value == "17:00"


def test_a_thai_heading_is_answered_by_the_line_under_it() -> None:
    assert answer("Customer parking?", "ที่จอดรถ", "ขออภัย ร้านไม่มีที่จอดรถยนต์นะคะ") == "no"
    assert answer("Customer parking?", "ที่จอดรถ", "จอดได้หน้าร้าน 3 คัน") == "yes"


def test_a_thai_heading_is_answered_by_the_piece_about_it_not_a_later_except() -> None:
    assert answer("Do they have more than one branch?", "แผงที่ ๒",
                  "แผงที่ ๒ อยู่ตลาดต้นพยอม น้องสาวดูแล เปิดทุกวันยกเว้นวันอาทิตย์") == "yes"


def test_an_faq_answered_with_a_plan_is_no_yes() -> None:
    assert answer("Do they run classes?", "เปิดคลาสสอนทำไหม",
                  "ปีหน้าพี่ตั้งใจจะเปิดคลาสสอนทำ cake pop ค่ะ") == "unknown"


def test_a_neighbours_line_gives_way_to_the_next_best() -> None:
    assert answer("Customer parking?", "The nearest paid car park is behind Wat Phra Singh.",
                  "Sorry, we have no parking at the hostel.") == "no"
    assert answer("Customer parking?", "The nearest paid car park is behind the temple.") \
        == "unknown"


def test_a_cancellation_policy_is_no_cancelled_service() -> None:
    assert negated("ร้านยกเลิกบัตรสะสมแต้มแล้ว")
    assert not negated("ยกเลิกก่อน 7 วัน คืนเงินเต็มจำนวน")

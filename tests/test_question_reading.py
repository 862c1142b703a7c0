"""How the offline answerer reads what a page says: opening days and hours, a page's
own FAQ, label cells, "no appointment needed", words that mean something else, prices,
counts and choices, in English, Thai and Burmese. The sentences are written from how
these languages say such things, not copied from the labelled sets."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from leadengine.judgement.days import line_sayings
from leadengine.judgement.opening import day_answer
from leadengine.judgement.polarity import negated
from leadengine.judgement.questions import answer_all
from leadengine.judgement.sentences import answer_words, site_lines
from leadengine.judgement.values import hours_of, times_in
from leadengine.knowledge import Question

SUNDAY = 6


def q(ask: str, kind: str = "yes_no", **extra: Any) -> Question:
    return Question(id="q", ask=ask, type=kind, **extra)


def answer(question: Question, *lines: str) -> tuple[Any, str]:
    found = answer_all([question], [("https://x.example/", "\n".join(lines))])["q"]
    return found.value, found.evidence


@pytest.mark.parametrize(("text", "said"), [
    ("Open Mon–Sat 9:00–18:00", "unknown"),  # Sunday left out: nothing said about it
    ("Open Tue–Sun 10am–8pm. Closed Mondays.", "yes"),  # a range through Sunday
    ("Mon-Sat 9-18, Sun closed", "no"),
    ("We are open daily from 8 am to 10 pm", "yes"),
    ("Open every day except Sunday", "no"),
    ("Open every day except Wednesday", "yes"),
    ("Closed on Wednesdays", "yes"),  # a weekly day off that is another day
    ("Sunday\nClosed", "no"),  # a table row: the day, then what it is
    ("Sunday\n10:00 - 16:00", "yes"),
    ("Sat & Sun: 10:00-16:00", "yes"),
    ("We don't open on Sundays", "no"),
    ("We are open all year round, 9am-6pm", "yes"),
    ("Closed daily 14:00-15:00 for lunch", None),  # a break, not a day off
    ("There is a Sunday market nearby.", None),  # a day, but nothing about opening
    ("We sat down with the owner. The sun is out.", None),  # "sat", "sun": no days
    ("เปิดทุกวัน 10.00-20.00 น.", "yes"),
    ("เปิด จันทร์-เสาร์ 9.00-18.00 น. หยุดวันอาทิตย์", "no"),
    ("ร้านหยุดทุกวันพุธ", "yes"),  # every Wednesday off (ทุกวันพุธ is not "every day")
    ("เปิดวันอังคาร - วันอาทิตย์ 11 โมงถึง 2 ทุ่ม", "yes"),
    ("จ.-ส. 8.30-17.30 น.", "unknown"),  # short Thai day names, the hours on their own line
    ("ไม่เปิดวันอาทิตย์", "no"),
    ("เปิดทุกวันไม่มีวันหยุด 8.00-20.00", "yes"),  # no day off: every day
    ("หยุดทุกวันจันทร์ค่ะ\nทุกวันเสาร์ 10 โมง มีคลาสสำหรับเด็ก", "yes"),  # a class is no timetable
    ("อาทิตย์ละ 2 ครั้ง เปิด 9.00", None),  # อาทิตย์ละ: "a week", not Sunday
    ("တနင်္လာမှ စနေအထိ မနက် ၉ နာရီမှ ညနေ ၆ နာရီ ဖွင့်ပါသည်။", "unknown"),
    ("တနင်္ဂနွေနေ့ ပိတ်ပါသည်။", "no"),
    ("တနင်္ဂနွေနေ့ မဖွင့်ပါ", "no"),
    ("နေ့စဉ် ဖွင့်ပါသည်။", "yes"),
    ("Sun\n11:00 - 14:00", "yes"),  # a table cell holding only the short name
    ("Sun\nclosed", "no"),
    ("Open Mon-Sat, closed Sunday", "no"),  # each part says its own
    ("Closed Mondays, open Sunday", "yes"),
    ("We don't work on Sundays.", "no"),
    ("Sunday & public holidays\nClosed", "no"),  # a holiday next to the day in a cell
    ("ဗုဒ္ဓဟူးနေ့မှလွဲ၍ နေ့တိုင်း ဖွင့်ပါတယ်", "yes"),  # Burmese: the day left out comes first
    ("ပိတ်ရက် မရှိပါ။ ရုံးပိတ်ရက်များတွင်လည်း ဖွင့်ပါသည်။", "yes"),  # no day off; holidays open
    ("တနင်္ဂနွေနှင့် ရုံးပိတ်ရက်များတွင် ဖွင့်မည် မဟုတ်ပါ", "no"),
])
def test_a_day_is_open_by_what_the_page_says_about_days(text: str, said: str | None) -> None:
    found = day_answer(SUNDAY, site_lines([("u", text)]))
    assert (found.value if found is not None else None) == said


@pytest.mark.parametrize(("text", "said"), [
    ("Closed on Sundays and public holidays", "no"),
    ("Open every day, public holidays too", "yes"),
    ("วันหยุดนักขัตฤกษ์ ร้านเปิดตามปกติ ปิดเฉพาะช่วงสงกรานต์", "yes"),  # each piece its own
    ("วันหยุดราชการ งดให้บริการ", "no"),  # its หยุด is the holiday's, งด the closing
    ("ร้านเปิดทุกวัน ไม่มีวันหยุด", "yes"),  # no day off at all
    ("ရုံးပိတ်ရက်များတွင် ဆိုင်ပိတ်ပါသည်", "no"),
    ("Open daily 9-18", "unknown"),  # "daily" says nothing of holidays
    ("Closed on Wednesdays", "unknown"),  # a weekly day off says nothing of them
])
def test_public_holidays_are_a_day_of_their_own(text: str, said: str) -> None:
    found = answer(q("Are they open on public holidays?"), text)
    assert found[0] == said


def test_a_day_answer_quotes_a_table_row_whole() -> None:
    found = day_answer(SUNDAY, site_lines([("u", "Opening hours\nSunday\nClosed")]))
    assert found is not None and (found.value, found.evidence) == ("no", "Sunday Closed")
    assert line_sayings("Hours: Mon, Wed, Fri 9:00-17:00")[0][0].open == {0, 2, 4}


@pytest.mark.parametrize(("text", "times"), [
    ("เปิดบ่ายโมง ถึง สองทุ่ม", ("13:00", "20:00")),
    ("เที่ยง - 4 ทุ่ม", ("12:00", "22:00")),
    ("เช้า 7 โมง ถึง 4 โมง", ("7:00", "16:00")),
    ("open noon to midnight", ("12:00", "0:00")),
    ("မနက် ၉ နာရီ မှ ညနေ ၆ နာရီ", ("9:00", "18:00")),
    ("Mon-Sat 9-18", ("9:00", "18:00")),
    ("9.00-17.00", ("9:00", "17:00")),
    ("เปิด 7 โมงครึ่ง – 1 ทุ่ม", ("7:30", "19:00")),
    ("บ่ายสองโมงครึ่ง ถึง สี่ทุ่มครึ่ง", ("14:30", "22:30")),
    ("ages 5-12 years", None),
])
def test_opening_hours_in_any_way_they_are_written(text: str, times: Any) -> None:
    assert hours_of(text) == times


def test_no_percentage_or_age_range_is_a_time() -> None:
    assert times_in("Happy hour: all rooms 20% off") == ()
    assert times_in("ages 5-12 years") == ()


def test_opening_and_closing_times_and_late_opening() -> None:
    page = ("Welcome to our shop", "Delivery from 9:00 to 11:00 on weekdays",
            "Opening hours: Mon-Sat 10:00 - 21:30")
    assert answer(q("What time do they open?", "text"), *page)[0] == "10:00"
    assert answer(q("What time do they close?", "text"), *page)[0] == "21:30"
    assert answer(q("Are they open after 8 pm?"), *page)[0] == "yes"
    assert answer(q("Are they open after 10 pm?"), *page)[0] == "no"
    assert answer(q("What time do they close?", "text"), "ร้านเปิด 10 โมงเช้า ถึง 2 ทุ่ม")[0] \
        == "20:00"
    # Serving customers is being open: starting it is opening, stopping it closing.
    assert answer(q("What time do they start serving customers each day?", "text"),
                  *page)[0] == "10:00"
    assert answer(q("At what time do they stop serving customers for the day?", "text"),
                  *page)[0] == "21:30"


def test_open_around_the_clock_by_what_the_hours_say() -> None:
    all_day = q("Are they open 24 hours?")
    assert answer(all_day, "Gym open 24/7 for members")[0] == "yes"
    assert answer(all_day, "နေ့စဉ် မနက် ၅ နာရီခွဲ မှ ည ၉ နာရီ အထိ ဖွင့်ပါတယ်။")[0] == "no"
    assert answer(all_day, "Fresh coffee and cake")[0] == "unknown"


def test_the_pages_own_faq_is_answered_by_the_line_after_it() -> None:
    assert answer(q("Do they deliver?"), "Do you deliver?", "No, pick-up only.") == (
        "no", "Do you deliver? No, pick-up only.")
    assert answer(q("Do they accept credit or debit cards?"), "Can I pay by card?",
                  "Cash only, kyat or US dollars.")[0] == "no"
    assert answer(q("Is there free Wi-Fi?"), "Wi-Fi in the car?",
                  "Add a pocket router for 150 THB a day, it isn't free, sorry.")[0] == "no"
    assert answer(q("Is there parking?"), "มีที่จอดรถไหมคะ", "มีค่ะ จอดได้ 10 คัน")[0] == "yes"


def test_a_faq_asked_the_other_way_round_is_answered_so() -> None:
    # The page asks whether booking is needed; "no need" says walk-ins are taken.
    asked = q("Do they take walk-ins?")
    assert answer(asked, "ต้องนัดไหม?", "ไม่ต้องนัดล่วงหน้า เดินเข้ามาได้เลยค่ะ")[0] == "yes"
    assert answer(q("Does the customer need to book first?"), "Do I need to book?",
                  "No, just come in.")[0] == "no"
    # "We are ..." is no yes by itself: the answer's own negation says no.
    assert answer(q("Do they accept credit or debit cards?"), "Can I pay by card?",
                  "We are not able to accept cards.")[0] == "no"


def test_a_label_cell_is_answered_by_the_cell_after_it() -> None:
    assert answer(q("Is there parking?"), "Parking:", "Not available, please take the BTS.")[0] \
        == "no"
    assert answer(q("Is there parking?"), "Parking: no charge for customers")[0] == "yes"
    # A short line that is not a label of what is asked says nothing about the next one.
    assert answer(q("Do they deliver?"), "บริการจัดส่งถึงบ้านฟรี", "ขออภัย ไม่มีที่จอดรถ")[0] == "yes"


@pytest.mark.parametrize(("ask", "line", "said"), [
    ("Do they take walk-ins?", "No appointment needed, just come in.", "yes"),
    ("Do they take walk-ins?", "ไม่ต้องจองล่วงหน้า มาได้เลย", "yes"),
    ("Do they take walk-ins?", "ကြိုတင်ချိန်းဆိုစရာ မလိုပါ", "yes"),
    ("Do they take walk-ins?", "ကြိုတင် ဘွတ်ကင် မလုပ်ဘဲ တိုက်ရိုက် လာလည်း ရပါတယ်", "yes"),
    ("Do they take walk-ins?", "By appointment only.", "no"),
    ("Do they take walk-ins?", "A 5-minute walk from the BTS station.", "unknown"),
    ("Do they have a LINE account?", "Order on LINE MAN or Grab.", "unknown"),
    ("Do they have a LINE account?", "Add our LINE: @sweetbake", "yes"),
    ("Do they offer home visits?", "Homemade cakes baked every morning.", "unknown"),
    ("Do they offer home visits?", "We deliver medicine to your home.", "unknown"),
    ("Do they offer home visits?", "บริการแพทย์เยี่ยมบ้านสำหรับผู้สูงอายุ", "yes"),
    ("Do they deliver to customers?", "Flour is delivered to us by our suppliers.", "unknown"),
    ("Can customers book online?", "We don't have online booking yet.", "no"),
    ("Do they sell online?", "Join our online lessons on Zoom.", "unknown"),
    ("Do the staff speak English?", "English menu available.", "unknown"),
    ("Do the staff speak English?", "We work in Myanmar, English and Chinese.", "yes"),
    ("Do the staff speak English?", "พนักงานพูดภาษาอังกฤษได้", "yes"),
    ("Do they offer takeaway?", "We take cash or Visa/Mastercard.", "unknown"),
    ("Do they accept credit or debit cards?", "บัตรเครดิต ไม่รับนะคะ", "no"),
    ("Do they accept credit or debit cards?", "รับชำระเฉพาะเงินสดและโอนพร้อมเพย์", "no"),
    ("Do they accept credit or debit cards?", "Show your member card for 10% off.", "unknown"),
    ("Is there parking for customers?", "ขออภัย ไม่มีที่จอดรถ", "no"),
    ("Do they offer a free consultation?", "ทีมงานเข้าสำรวจถึงบ้านฟรี ไม่มีค่าใช้จ่าย ปรึกษาได้", "yes"),
    ("Do they offer home visits?", "အိမ်အရောက် လာသင်ပေးခြင်း မပြုလုပ်ပါ။", "no"),
    ("Are they hiring?", "Bicycle hire: 5,000 Ks a day.", "unknown"),
    ("Are pets allowed?", "Sorry, we can't take pets.", "no"),
    ("Do they deliver to customers?", "🚚 ส่งด่วนทั่วกรุงเทพฯ ภายใน 3 ชม.", "yes"),  # no งด
    ("Do they accept credit or debit cards?", "No cards, sorry.", "no"),  # what kind: unsaid
    ("Do they accept credit or debit cards?", "Buy a 10-class card and save.", "unknown"),
    ("Do they accept credit or debit cards?", "ကတ်နဲ့တော့ ပေးလို့ မရဘူးနော်", "no"),
    ("Do they offer discounts or promotions?", "After his promotion to head teacher.",
     "unknown"),
    ("Do they have a loyalty or points program?",
     "บัตรสะสมแต้ม ครบ 10 ดวงแลกฟรี 1 แก้ว (ไม่จำกัดเมนู)", "yes"),  # no limit: no negation
    ("Can customers pay by QR code or mobile wallet?", "ငွေသား ဒါမှမဟုတ် KPay နဲ့ ပေးလို့ရတယ်",
     "yes"),
    ("Do they have a LINE account?", "We take Rabbit LINE Pay.", "unknown"),
    ("Do they run classes or training courses?", "IELTS preparation class, 8 weeks", "yes"),
    ("Do they take walk-ins?", "ချိန်းစရာ မလိုဘူး၊ တန်းလာခဲ့ဗျာ", "yes"),
    ("Do they offer free Wi-Fi?", "Free Wi-Fi at the shopping centre next door.", "unknown"),
    ("Do they sell gift vouchers or gift cards?", "We wrap every book in gift paper.",
     "unknown"),
    ("Do they sell gift vouchers or gift cards?", "Gift cards from 500 baht.", "yes"),
    ("Can customers pay by QR code or mobile wallet?", "Payment: only cash or PromptPay QR.",
     "yes"),
    ("Do they accept credit or debit cards?", "Payment: only cash or PromptPay QR.", "no"),
    ("Can customers pay by QR code or mobile wallet?", "ငွေသား နဲ့ပဲ ရောင်းပါတယ်", "no"),
    ("Do they offer home visits?", "အိမ်ကို ခေါ်ပြီး လုပ်ခိုင်းတာ လက်မခံပါရှင့်။", "no"),
    ("Do they give a free estimate?", "ส่งรูปมา เช็คราคาให้ฟรี ไม่ซื้อก็ไม่ว่ากันครับ", "yes"),
    ("Do they welcome children?", "We are an adults-only hotel.", "no"),
    ("Do they take walk-ins?", "Loft Twin: two singles, walk-in shower.", "unknown"),
    ("Do they take walk-ins?", "Sorry, we can't take people who just turn up.", "no"),
    ("Is there parking for customers?", "No parking at the shop, use the lot next door.",
     "no"),
    # An English negation after what is asked answers it only about its being there.
    ("Do they have a loyalty or points program?", "Your points never expire.", "yes"),
    ("Do they take walk-ins?", "Walk-ins are no problem at all.", "yes"),
    ("Do they give a warranty?", "Warranty: any part that doesn't work is replaced.", "yes"),
    ("Do they deliver to customers?", "Delivery is not available on weekends.", "no"),
    ("Do they accept credit or debit cards?", "Credit cards are not accepted.", "no"),
    ("Do they accept credit or debit cards?", "Credit cards: not yet.", "no"),
    ("Are pets allowed?", "Dogs and cats can't stay in the rooms.", "no"),
    ("Do the staff speak English?", "Nobody here speaks English, sorry.", "no"),
    # Speaking is asked, not the language: a menu or a sign in English is no answer.
    ("Do the staff speak English?", "Price lists are printed in Thai and English.",
     "unknown"),
    ("Do the staff speak English?", "Our instructors teach in English and Thai.", "yes"),
    ("Do the staff speak English?", "ไกด์บรรยายเป็นภาษาอังกฤษและจีน", "yes"),
    # LINE the app is written as a name in English; a queue or a washing line is not it.
    ("Do they have a LINE account?", "Line up early for the morning boat.", "unknown"),
    ("Do they have a LINE account?", "No washing line needed, the dryers do it all.",
     "unknown"),
    ("Do they have a LINE account?", "Add us on LINE: @bakehouse", "yes"),
    ("Do they have a LINE account?", "Line ID: @bakehouse", "yes"),
    ("Do they have a LINE account?", "Line: @bakehouse", "yes"),
    ("Do they have a LINE account?", "Hot Line: 09 420 111 222", "unknown"),
    ("Do they have a LINE account?", "Our Product Line: rattan chairs and tables",
     "unknown"),
    ("Do they have a LINE account?", "So there’s no need to line up – come at 8.", "unknown"),
    ("Do they have a LINE account?", "รับสักลาย fine line สไตล์มินิมอล", "unknown"),
    ("Do they have a LINE account?", "แอดไลน์ร้าน @gadgetcorner ได้เลย", "yes"),
    # A park that is a place's name is no parking.
    ("Is there parking for customers?", "We are a short walk from Maha Bandula Park.",
     "unknown"),
    ("Is there parking for customers?", "Park your car in front of the shop.", "yes"),
    # "only" (เท่านั้น) is no Facebook: the glossary's phrase "facebook only" qualifies it.
    ("Do they have a Facebook page?", "โทรสั่งได้อย่างเดียว ไม่มีขายของออนไลน์เท่านั้น",
     "unknown"),
    # A list's verb, and its negation, end a Burmese sentence.
    ("Do they accept credit or debit cards?", "ဗီဇာကတ်၊ ဘဏ်ကတ် လက်မခံပါ။", "no"),
    # A long parenthesis, and what follows a colon after a sentence, are clauses of
    # their own; an "only" list names what is taken.
    ("Do they accept credit or debit cards?", "We take Visa and JCB (no Amex, sorry).",
     "yes"),
    ("Can customers pay by bank transfer?",
     "Sorry, we cannot take Visa this month: cash or bank transfer only.", "yes"),
    ("Can customers pay by bank transfer?", "เงินสดหรือโอนเข้าบัญชีเท่านั้น", "yes"),
])
def test_what_a_sentence_says_about_what_is_asked(ask: str, line: str, said: str) -> None:
    assert answer(q(ask), line)[0] == said


def test_burmese_negation_inside_and_at_the_start_of_a_verb_but_not_in_a_noun() -> None:
    assert negated("ဘဏ်ကတ် လက်မခံပါ။")  # လက်ခံ (accept) -> လက်မခံ
    assert negated("အိမ်အရောက် မလာပါ")
    assert not negated("ပင်မဆိုင်ကနေ ပို့ပေးပါတယ်")  # ပင်မ: main (shop)
    assert not negated("မနက် ၉ နာရီ ဖွင့်ပါတယ်")  # မနက်: morning


def test_prices_counts_and_years() -> None:
    lowest = q("What is the lowest price listed?", "number")
    page = ("Thai massage 60 min 350 baht", "Foot massage ฿250", "Gift voucher 1,000 THB",
            "ถอดเจล 100.-", "Open 10-22, 20% off on Mondays")
    assert answer(lowest, *page) == (100, "ถอดเจล 100.-")
    assert answer(q("What is the highest price?", "number"), *page)[0] == 1000
    assert answer(lowest, "ราคา ၅၀,၀၀၀ ကျပ် နှင့် ၃,၀၀၀ ကျပ်")[0] == 3000
    staff = q("How many staff or employees do they have?", "number")
    assert answer(staff, "အခုဆိုရင် စားဖိုမှူး ၃ ဦး အပါအဝင် ဝန်ထမ်း ၁၂ ဦး ရှိပါတယ်။")[0] == 12
    rooms = q("How many rooms, seats or beds do they have?", "number")
    assert answer(rooms, "Happy hour: all rooms 20% off.", "We have 12 rooms on three floors")[0] \
        == 12
    years = q("How many years have they been in business?", "number")
    assert answer(years, "© 2026 Chang Printing", "ก่อตั้งตั้งแต่ พ.ศ. 2538")[0] == \
        datetime.date.today().year - 1995
    assert answer(q("In what year was the business founded?", "number"),
                  "© 2026 Chang Printing", "Founded in 2009 by two sisters")[0] == 2009


def test_choices_name_the_first_option_never_a_negated_one_and_say_when_none_is() -> None:
    languages = q("Which languages do the staff speak besides the local one?", "choice",
                  options=["English", "Chinese", "Japanese", "none stated"])
    assert answer(languages, "We speak Thai, Chinese (Mandarin) and English")[0] == "Chinese"
    assert answer(languages, "တရုတ်စကား ပြောတတ်သော ဝန်ထမ်း ရှိပါသည်")[0] == "Chinese"
    assert answer(languages, "Fresh noodles every day")[0] == "none stated"
    pay = q("Which payment methods?", "choice", options=["cash only", "cards", "unknown"])
    assert answer(pay, "Cash only, no cards.")[0] == "cash only"
    assert answer(pay, "We don't accept card payments.")[0] == "unknown"
    level = q("How are their prices described?", "choice",
              options=["budget", "mid-range", "premium", "unknown"])
    assert answer(level, "ราคาถูก อร่อย อิ่มคุ้ม")[0] == "budget"
    assert answer(level, "Mandalay's most luxurious KTV")[0] == "premium"


def test_a_small_sites_unmarked_pages_are_read_a_big_sites_are_not() -> None:
    from leadengine.website.crawl import SMALL_SITE, pick_subpages
    from leadengine.website.extract import parse_html

    small = parse_html('<a href="order.html">วิธีสั่งงาน</a><a href="contact.html">Contact</a>'
                       '<a href="gallery.html">Our work</a>')
    assert pick_subpages(small, "http://x.example/", 4) == [
        "http://x.example/contact.html", "http://x.example/order.html",
        "http://x.example/gallery.html"]
    big = parse_html("".join(f'<a href="p{i}.html">Item {i}</a>' for i in range(SMALL_SITE))
                     + '<a href="contact.html">Contact</a>')
    assert pick_subpages(big, "http://x.example/", 4) == ["http://x.example/contact.html"]


@pytest.mark.parametrize("text", [
    "က်မက" * 7500,  # Burmese without a space: every မ could start a negated verb
    "1-2 " * 7500, "9:00-" * 6000, "Mon-Tue " * 3700, "ทุกวัน" * 5000, "฿1," * 10000,
    "Do you deliver? " * 1800, "a, b or c " * 3000,
    # "only" lists, parts saying open and closed, words that are names or places
    "cash only, " * 3000, "เงินสดเท่านั้น " * 2000, "Open Mon, closed Tue, " * 1400,
    "line up " * 4000, "Lumpini Park " * 2500, "ဖုန်းဖြင့်သာ " * 2500,
])
def test_a_hostile_page_is_answered_in_bounded_time(text: str) -> None:
    import time

    asked = [q("Do they deliver?"), q("Are they open on Sundays?"),
             q("What is the lowest price?", "number"), q("What time do they close?", "text"),
             q("How many rooms, seats or beds do they have?", "number"),
             q("Which payment methods?", "choice", options=["cash only", "cards", "unknown"]),
             q("Can customers book online?"), q("Do they have a LINE account?"),
             q("Is there parking for customers?")]
    started = time.process_time()
    answer_all(asked, [("https://x.example/", text[:30_000])])
    assert time.process_time() - started < 2.0


@pytest.mark.parametrize(("ask", "line", "said"), [
    # The same facts asked in other words: the words of what is asked carry the question,
    # a word of no known concept ("easy", "foreigner", "products") weighs less.
    ("Can I just drop in without booking?", "Walk-ins are always welcome.", "yes"),
    ("Is it easy to park a car there?", "Free parking for 10 cars behind the shop.", "yes"),
    ("Can a foreigner communicate with them in English?", "Our staff speak English.",
     "yes"),
    ("Will they bring the order to my house?", "We deliver to your home within 5 km.",
     "yes"),
    ("Can I buy their products on the internet?", "Order online on Shopee or Lazada.",
     "yes"),
    ("Is the food halal?", "ร้านอาหารฮาลาล ทุกเมนู", "yes"),
    ("Can customers contact them on LINE?", "LINE ID: @riverside", "yes"),
    ("If a customer shows up on a Sunday, will they be open?", "Open Mon–Sat 9 AM–7 PM.",
     "unknown"),  # a day question read from the days, whatever its other words
    ("Is there somewhere for customers to park when they come by?", "มีที่จอดรถหน้าร้าน",
     "yes"),
    ("Would a foreigner who only speaks English be able to talk to the staff?",
     "Our receptionist speaks English.", "yes"),
    ("Can people pay with a Visa/Mastercard or other bank card there?",
     "Sorry, no bank cards, cash only.", "no"),  # the examples before "or other" are cards
    ("Do they send someone out to do the job at the customer's home?",
     "We come to your home for repairs.", "yes"),
    ("Is there anywhere for the customer to park when they visit?", "ลานจอดรถกว้าง", "yes"),
    ("Will they come to my home?", "Home", "unknown"),  # a menu's link
    # A transfer is a payment's where money or a bank is said.
    ("Can customers pay by bank transfer?", "Free data transfer from your old phone.",
     "unknown"),
    ("Can customers pay by bank transfer?", "Hotel transfers included in the price.",
     "unknown"),
    ("Can customers pay by bank transfer?", "ชำระเป็นเงินสดหรือโอนเท่านั้น", "yes"),
    # A Thai comment is one about being taken or there, not another verb ("won't leak").
    ("Do they give a warranty?", "รับประกันงานติดตั้ง 1 ปีเต็ม ไม่รั่ว ไม่ซึม", "yes"),
    # Words of one concept are one key: explaining is no English.
    ("If the customer only speaks English, will someone be able to talk to them?",
     "ภญ.อธิบายละเอียดมากค่ะ", "unknown"),
    # Whether booking is needed is whether walk-ins are taken, the other way round.
    ("Is booking ahead required before you visit?", "By appointment only.", "yes"),
    ("Do I need an appointment?", "ไม่ต้องจองล่วงหน้า มาได้เลย", "no"),
    # A phrase of the vocabulary led by a word of its group is that word: a loyalty
    # card or a SIM card is no card payment ("cash only" is no "no" about them).
    ("Do they give customers a loyalty card?", "Cash only, sorry.", "unknown"),
    ("Do they sell SIM cards?", "Cash only, sorry.", "unknown"),
    ("Do they give customers a loyalty card?", "Collect stamps on our loyalty card.", "yes"),
    # Someone who turns up is a walk-in; what is asked "instead of" is not asked; a
    # verb's past form is the verb ("sent out" is sending).
    ("Will they serve someone who turns up without booking ahead?",
     "We see patients by appointment only.", "no"),
    ("Can a customer have their order sent out to them instead of collecting it?",
     "We deliver to your hotel.", "yes"),
    ("Can a customer have their order sent out to them instead of collecting it?",
     "Collect your order at the counter.", "unknown"),
    ("Any hours on Sunday?", "Closed on Sundays.", "no"),
    # What is delivered to the business from elsewhere is no delivery to customers.
    ("Do they deliver?", "Our kegs are delivered fresh from the brewery every Thursday.",
     "unknown"),
    ("Do they deliver?", "Most parts are delivered to our workshop from Bangkok dealers.",
     "unknown"),
    ("Do they deliver?", "Orders are shipped from Chiang Mai within 2 days.", "yes"),
    ("Do they deliver?", "Cakes delivered from our kitchen to your door.", "yes"),
    # The answer words' one-word entries in any form: "shipped", "rented".
    ("Do they deliver?", "Orders are shipped within 2 days.", "yes"),
    # A card is a payment's where paying, taking or its kind is said.
    ("Can customers pay by credit or debit card?",
     "Gift cards (500 or 1,000 THB) are sold at the counter.", "unknown"),
    ("Can customers pay by credit or debit card?",
     "Please bring your pet's vaccination card to every visit.", "unknown"),
    ("Can customers pay by credit or debit card?", "Sorry, no cards.", "no"),
    ("Can customers pay by credit or debit card?", "Cards are welcome.", "unknown"),
    ("Can customers pay by credit or debit card?", "We take cards and cash.", "yes"),
    # A QR code is a payment's only where paying is said.
    ("Can customers pay by QR code or mobile wallet?",
     "Scan the QR code at reception to see the timetable.", "unknown"),
    ("Can customers pay by QR code or mobile wallet?", "Scan the QR code to pay.", "yes"),
    ("Can customers pay by QR code or mobile wallet?", "สแกน QR จ่ายได้เลย", "yes"),
    ("Are they open on Saturdays?", "ဥပုသ်နေ့တိုင်း ဆိုင်ပိတ်ပါတယ်။", "unknown"),  # sabbath
    ("Do they take walk-ins?", "We walk beside the elephants all morning.", "unknown"),
    ("Is there parking for customers?", "Opposite the Big C parking entrance.", "unknown"),
    ("Do they accept credit or debit cards?", "Visa၊ Master စက် မရှိသေးလို့ ကတ် မလက်ခံနိုင်ပါ",
     "no"),
    ("Can they send orders out to the customer, like a delivery?",
     "Event orders: call two days ahead.", "unknown"),
    ("Do they take walk-ins?", "ကြိုတင်ပြောစရာ မလိုပါဘူး၊ ဆိုင်ကို တန်းလာခဲ့ပါ", "yes"),
    ("Do they take walk-ins?", "တန်းဝင်လာရင်တော့ လက်မခံနိုင်ပါဘူး", "no"),
    ("Do they welcome children?", "Sorry, no under-16s in the studio.", "no"),
    ("Are they open on Sundays?", "တနင်္ဂနွေနေ့ အတန်းမရှိပါ။", "no"),
    # "without an appointment" says what is not needed: naming appointments is no yes.
    ("Do they take walk-ins, without an appointment or booking?",
     "Please confirm your appointment by phone.", "unknown"),
    ("Do they take walk-ins, without an appointment or booking?",
     "We can only see patients with an appointment.", "no"),
    ("Can I just drop in without booking?", "By appointment only.", "no"),
    ("Are they open 24 hours?", "We are not open 24 hours; use the key box after 9 pm.",
     "no"),
    ("Are they open 24 hours?", "ညဘက် ၂၄ နာရီ မဖွင့်ပါ။", "no"),
    ("Are they open 24 hours?", "Open 24 hours, every day.", "yes"),
    ("Can I visit them on a Sunday?", "Closed on Sundays and Mondays.", "no"),
    ("Can I pay with a Visa or Mastercard?",
     "รับเงินสดหรือโอนผ่านแอปธนาคาร ร้านไม่รับบัตรเครดิต", "no"),  # the clause that holds most
])
def test_a_question_asked_in_other_words(ask: str, line: str, said: str) -> None:
    assert answer(q(ask), line)[0] == said


@pytest.mark.parametrize(("ask", "line", "said"), [
    ("Do they accept credit or debit cards?", "We take cash and KBZPay only.", "no"),
    ("Can customers pay by bank transfer?", "Cash on the day only, please.", "no"),
    ("Can customers pay by bank transfer?", "ငွေသား နဲ့ KBZPay ဖြင့်သာ ငွေချေနိုင်ပါတယ်", "no"),
    ("Do the staff speak English?", "Our staff speak Myanmar only.", "no"),
    ("Do the staff speak English?", "We do Thai massage only.", "unknown"),  # no speaking
    ("Can customers book online?", "ကြိုတင်ချိန်းဆိုမှုကို ဖုန်းဖြင့်သာ လက်ခံပါသည်", "no"),
    ("Can customers book online?", "Bookings by phone or online only.", "yes"),
    ("Do they have a LINE account?", "Bookings by phone only.", "unknown"),  # no booking asked
    ("Can customers pay by QR code or mobile wallet?", "Cash or PromptPay only.", "yes"),
])
def test_a_list_said_with_only_leaves_the_rest_out(ask: str, line: str, said: str) -> None:
    assert answer(q(ask), line)[0] == said


@pytest.mark.parametrize(("ask", "lines", "said"), [
    ("When do they open in the morning?", ["มาได้ตั้งแต่ 7 โมงเช้า"], "7:00"),
    ("What is the latest time I can go there?", ["Open 9:00 - 21:30 every day"], "21:30"),
    ("What time do they open?", ["แผงเปิดสิบโมงเช้า วันธรรมดาเก็บร้านราวๆ 2 ทุ่ม"], "10:00"),
    ("What time do they open?", ["မနက် ၆ နာရီ ကနေ ညနေ ၅ နာရီခွဲ အထိ ဖွင့်ပါတယ်"], "6:00"),
    # Burmese says the time before its verb; ปิด inside เปิด is no closing.
    ("What time do they open?", ["မနက် ၉ နာရီခွဲ ဖွင့်ပြီး ည ၈ နာရီ ပိတ်ပါတယ်။"], "9:30"),
    ("What time do they close?", ["เปิดตีห้าครึ่ง ปิดสิบเอ็ดโมงตรง"], "11:00"),
    ("What time do they shut for the day?", ["เปิดทุกวัน หกโมงเย็น – ตีสอง"], "2:00"),
    ("what time do they close up at the end of the day?",
     ["Open 7 days, 9:30 AM – 8:30 PM (Thingyan: closed 4 days)."], "20:30"),
    ("What time do they close?", ["မနက် ၅ နာရီ မှ နေ့လည် ၁၁ နာရီ အထိ"], "11:00"),  # midday
    ("What time do they close?", ["မနက် ၉ နာရီ မှ နေ့လည် ၂ နာရီ အထိ"], "14:00"),
    # A date range is no hours.
    ("What time do they open?", ["Songkran: we are closed 13–15 April.", "Opens 9.30 am"],
     "9:30"),
    # Two sessions: the earliest opening, the latest closing; ages and weights are no hours.
    ("What time do they close?", ["Morning class 07.00 – 09.00", "Evening class 17.00 – 19.00"],
     "19:00"),
    ("What time do they close?", ["Phonics for kids 6–12", "Open 13:00 - 20:00"], "20:00"),
    ("What time do they open?", ["พันธุ์กลาง (7-20 กก.)", "เปิด 8.00-18.00 น."], "8:00"),
    # "2-3 days" is a wait, not hours.
    ("What time do they open?", ["อะไหล่มาส่งทุกวันอังคาร รอ 2-3 วัน", "เปิด 8.30 น."], "8:30"),
])
def test_times_asked_in_other_words(ask: str, lines: list[str], said: str) -> None:
    assert answer(q(ask, "text"), *lines)[0] == said



def test_every_word_of_the_answer_words_is_a_string() -> None:
    """YAML reads a bare no, yes, on or off as a boolean: each must be quoted."""
    def strings(node: Any) -> bool:
        if isinstance(node, dict):
            return all(strings(value) for value in node.values())
        if isinstance(node, list):
            return all(isinstance(item, str) or strings(item) for item in node)
        return isinstance(node, (str, int))
    data = answer_words()
    assert {"groups", "opposites", "unrelated", "context", "names"} <= set(data)
    assert all(strings(data[key]) for key in data if key != "version")

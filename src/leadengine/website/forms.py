"""What each form on a page is for, read from its fields, labels and buttons.

A form is classified by what it asks for and what it says, in English, Thai, Burmese,
Japanese, Korean, Chinese, Vietnamese, Indonesian, Bengali, Hindi and Arabic:

    login       a password field
    search      a search field, or one or two fields named q / s / search / keyword
    review      a rating, review or comment form (a blog's comment box too)
    booking     a date or time (an input, or selects of days, months or hours) together
                with booking words ("book", "appointment", จอง, 予約, 예약...), or a date or
                time without a message box
    contact     asks for a way to reach the visitor (e-mail, phone, LINE id...) and for
                something more: a message, a name, a service
    newsletter  an e-mail address alone (with a name at most), or subscribe words
    other       anything else (add to cart, quantity pickers, language switchers)

``contact`` and ``booking`` are lead capture: the visitor leaves a way to be reached.
"""

from __future__ import annotations

import re
from itertools import islice
from typing import Any
from urllib.parse import urljoin

import lxml.html

from leadengine.website.extract import Deadline

#: Forms read (each is classified by its fields and words): a page has a few.
MAX_FORMS = 100
#: Fields of a form read (a contact form has a handful; one of 120,000 fields took 0.6 s).
MAX_FIELDS = 1_000
#: Characters of a form's text read for its words (labels, buttons, headings).
_MAX_WORDS = 4_000
#: Purposes that collect a way to reach the visitor.
LEAD_PURPOSES = ("contact", "booking")

#: Words that ask to book, in the languages above (a form's words, a link's text).
BOOKING_WORDS = re.compile(
    r"\bbook(ing|ings|ed)?\b|appointment|\breserv|\bcheck[- ]?in\b|\bschedule\b|"
    r"จอง|นัดหมาย|นัด|ဘိုကင်|ချိန်းဆို|ကြိုတင်|予約|예약|预约|預約|预订|預訂|"
    r"đặt lịch|đặt bàn|đặt phòng|đặt hẹn|lịch hẹn|janji temu|reservasi|pemesanan|"
    r"অ্যাপয়েন্টমেন্ট|সিরিয়াল|बुकिंग|बुक करें|अपॉइंटमेंट|حجز|احجز|موعد", re.I)
#: Marks of a review or comment form, in the form's own id, class or action...
_REVIEW = re.compile(r"review|comment|testimonial|รีวิว|ความคิดเห็น|レビュー|口コミ|리뷰|후기|"
                     r"评价|評價|đánh giá|ulasan|مراجعة|تقييم", re.I)
#: ...or in its fields' names: a star rating.
_RATING = re.compile(r"\brating|\bstars?\b|\bscore\b|review", re.I)
_NEWSLETTER = re.compile(r"newsletter|subscri|mailing list|sign up for (our )?(news|updates)|"
                         r"รับข่าวสาร|ニュースレター|メルマガ|뉴스레터|订阅|訂閱|"
                         r"đăng ký nhận tin|berlangganan|اشترك", re.I)
_SEARCH_NAMES = re.compile(r"^(q|s|search|query|keyword|keywords|k|term|search_query)$")
_CONTACT_NAMES = re.compile(
    r"e-?mail|phone|\btel\b|mobile|\bcell|whatsapp|\bline\b|line[_-]?id|viber|telegram|"
    r"kakao|contact", re.I)
_CONTACT_WORDS = re.compile(
    r"e-?mail|phone|telephone|mobile|whatsapp|line id|"
    r"โทร|เบอร์|อีเมล|ไลน์|ဖုန်း|အီးမေးလ်|電話|メール|携帯|전화|연락처|이메일|휴대폰|"
    r"电话|電話|邮箱|郵箱|số điện thoại|điện thoại|telepon|nomor hp|ফোন|ইমেইল|"
    r"फ़ोन|फोन|ईमेल|هاتف|الهاتف|البريد|جوال", re.I)
_DATE_NAMES = re.compile(r"date|day|month|year|time|hour|slot|check[-_]?in|check[-_]?out|"
                         r"arrival|departure|วันที่|เวลา|日付|日時|時間|날짜|시간|ngày|giờ|"
                         r"tanggal|jam|তারিখ|समय|تاريخ", re.I)
_DATE_TYPES = {"date", "time", "datetime-local", "datetime", "month", "week"}
_SKIP_TYPES = ("hidden", "submit", "button", "image", "reset")


def classify_form(form: lxml.html.HtmlElement) -> str:
    """What a form is for: contact, booking, newsletter, search, login, review or other."""
    fields = _fields(form, _SKIP_TYPES)
    types = {(f.get("type") or f.tag).lower() for f in fields}
    names = " ".join(" ".join(filter(None, (f.get("name"), f.get("id"), f.get("placeholder"),
                                            f.get("aria-label"), f.get("title"))))
                     for f in fields)
    own = " ".join(filter(None, (form.get("id"), form.get("name"), form.get("class"),
                                 form.get("action"), form.get("aria-label"))))
    words = f"{names} {own} {form.text_content()[:_MAX_WORDS]}"
    if "password" in types:
        return "login"
    field_names = [(f.get("name") or f.get("id") or "").lower() for f in fields]
    if "search" in types or form.get("role") == "search" or (
            len(fields) <= 2 and any(_SEARCH_NAMES.match(n) for n in field_names)):
        return "search"
    reaches = bool(types & {"email", "tel"}) or bool(_CONTACT_NAMES.search(names)) or bool(
        _CONTACT_WORDS.search(words))
    if (_REVIEW.search(own) or _RATING.search(names)) and not types & {"tel"}:
        return "review"
    dated = bool(types & _DATE_TYPES) or any(
        f.tag == "select" and _DATE_NAMES.search(" ".join(filter(None, (f.get("name"),
                                                                         f.get("id")))))
        for f in fields)
    if dated and (BOOKING_WORDS.search(words) or "textarea" not in types):
        return "booking"
    if reaches and ("textarea" in types or len(fields) >= 3 or (
            len(fields) == 2 and not _NEWSLETTER.search(words))):
        return "contact"
    if "email" in types or _NEWSLETTER.search(words):
        return "newsletter"
    return "other"


def forms_of(tree: lxml.html.HtmlElement, url: str,
             deadline: Deadline | None = None) -> list[dict[str, Any]]:
    """The page's forms (the first :data:`MAX_FORMS`), with purpose, action and fields."""
    forms = []
    for form in islice(tree.iter("form"), MAX_FORMS):
        if deadline is not None:
            deadline.check()
        elements = _fields(form, ("hidden", "submit"))
        fields = [f.get("name") or f.get("type") or f.tag for f in elements]
        purpose = classify_form(form)
        forms.append({"page": url, "purpose": purpose,
                      "action": _join(url, form.get("action") or "") if form.get("action")
                      else url, "fields": fields[:12],
                      "message": purpose in LEAD_PURPOSES and any(
                          f.tag == "textarea" for f in elements)})
    return forms


def _fields(form: lxml.html.HtmlElement, skip: tuple[str, ...]) -> list[lxml.html.HtmlElement]:
    """The inputs (but those of a ``skip`` type), text areas and selects of ``form``, in
    document order: the first :data:`MAX_FIELDS` of its fields. (Walked, not XPath: a
    union of three paths dedups each node set against the others, quadratic.)"""
    return [field for field in islice(form.iter("input", "textarea", "select"), MAX_FIELDS)
            if field.tag != "input" or (field.get("type") or "").lower() not in skip]


def _join(base: str, href: str) -> str:
    """``href`` resolved against ``base``; as written if urllib cannot parse it ("http://[x"
    raises ValueError, which would fail the whole page)."""
    try:
        return urljoin(base, href)
    except ValueError:
        return href

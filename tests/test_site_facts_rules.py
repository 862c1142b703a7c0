"""The rules behind the facts of real sites: the service catalogue, forms by purpose,
placeholder and non-phone numbers, e-mail leftovers, Facebook-only and platform-dependent,
and the language of any script."""

from __future__ import annotations

import time
from pathlib import Path

import lxml.html
import pytest

from leadengine import ConfigError
from leadengine.website.channels import channel_flags, is_profile_link
from leadengine.website.fetch import Page
from leadengine.website.forms import classify_form
from leadengine.website.language import detect_language
from leadengine.website.phones import is_placeholder, split_range
from leadengine.website.services import catalogue, find_services, load_catalogue
from leadengine.website.signal_rules import email_kind
from leadengine.website.site import site_from_page


def site_of(body: str, url: str = "https://shop.test/") -> dict[str, object]:
    from leadengine.website.profile import build_profile

    html = f"<html><head><title>Test</title></head><body>{body}</body></html>"
    page = Page(url=url, final_url=url, status=200, content_type="text/html", html=html,
                encoding="utf-8", truncated=False, fetched_at=0.0)
    return build_profile(site_from_page(page))


# --- the service catalogue --------------------------------------------------------------

def test_the_shipped_catalogue_loads_and_names_the_issue_services() -> None:
    names = {s.name for s in catalogue()}
    assert {"Calendly", "YouCanBook.me", "Setmore", "SimplyBook.me", "Acuity Scheduling",
            "Square Appointments", "Fresha", "Booksy", "Clinicia", "Practo", "Zocdoc",
            "Naver booking", "LINE reservation", "OpenTable", "Chope", "Eatigo",
            "Hungry Hub", "GloriaFood", "SpotOn", "Toast", "Booking.com", "Agoda",
            "SiteMinder", "Cloudbeds", "Grab", "foodpanda", "LINE MAN", "Shopify",
            "WooCommerce", "Shopee", "Lazada", "LINE MyShop", "Formspree", "Web3Forms",
            "FormSubmit", "Google Forms", "Airtable form", "Typeform", "Jotform"} <= names


@pytest.mark.parametrize(("where", "text", "service"), [
    ("iframe", "https://calendly.com/dr-somchai/30min", "Calendly"),
    ("link", "https://www.fresha.com/a/bangkok-nails-xyz", "Fresha"),
    ("link", "https://www.opentable.com/r/bangkok-bistro", "OpenTable"),
    ("script", "https://www.fbgcdn.com/embedder/js/ewm2.js", "GloriaFood"),
    ("link", "https://www.agoda.com/riverside-house/hotel/bangkok-th.html", "Agoda"),
    ("link", "https://food.grab.com/th/en/restaurant/somtam-x", "Grab"),
    ("link", "https://shopee.co.th/myshop.official", "Shopee"),
    ("form action", "https://formspree.io/f/xyzabc", "Formspree"),
    ("iframe", "https://docs.google.com/forms/d/e/1faipq/viewform?embedded=true",
     "Google Forms"),
    ("link", "https://m.booking.naver.com/booking/13/bizes/123", "Naver booking"),
])
def test_a_service_is_found_by_its_address(where: str, text: str, service: str) -> None:
    hits = find_services([(where, text.lower())])
    assert [h.service.name for h in hits] == [service]
    assert hits[0].where == where and hits[0].evidence == text.lower()


def test_marketing_pages_of_a_vendor_and_bare_marketplaces_are_not_services() -> None:
    assert find_services([("link", "https://shopee.co.th/\nhttps://medical.com/x")]) == []


@pytest.mark.parametrize(("entry", "message"), [
    ("{name: Bad, kind: booking, patterns: ['calendly(']}",
     "service 'Bad': pattern 'calendly(' is not a valid regular expression"),
    ("{name: Bad, kind: booking, patterns: ['.*calendly']}",
     "service 'Bad': pattern '.*calendly' must begin with at least 4 literal characters"),
    ("{name: Bad, kind: booking, patterns: ['calendly\\.com|fresha']}",
     "service 'Bad': pattern 'calendly\\\\.com|fresha' has a top-level '|'"),
    ("{name: Bad, kind: rental, patterns: ['calendly']}",
     "service 'Bad': 'kind' must be one or more of booking, ordering, shop, form"),
    ("{name: Bad, kind: booking, patterns: 'calendly'}",
     "service 'Bad': 'patterns' must be a list of regular expressions"),
    ("{kind: booking, patterns: ['calendly']}", "service #1: each service needs a 'name'"),
    ("{name: Bad, kind: booking, patterns: ['calendly'], colour: red}",
     "service 'Bad': unknown key(s) colour"),
])
def test_a_broken_catalogue_entry_is_a_one_line_error_naming_it(tmp_path: Path, entry: str,
                                                                 message: str) -> None:
    path = tmp_path / "services.yaml"
    path.write_text(f"services:\n  - {entry}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_catalogue(path)
    assert str(caught.value) == f"{path}: {message}" or str(caught.value).startswith(
        f"{path}: {message}")
    assert "\n" not in str(caught.value)


def test_a_catalogue_that_is_not_yaml_or_empty_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "services.yaml"
    path.write_text("services: [\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"invalid YAML in the service catalogue$"):
        load_catalogue(path)
    path.write_text("services: []\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="needs a non-empty 'services' list"):
        load_catalogue(path)


def test_the_catalogue_costs_milliseconds_on_thousands_of_links() -> None:
    links = "\n".join(f"https://site{i}.test/page/{i}" for i in range(5000))
    find_services([("link", links)])
    start = time.perf_counter()
    find_services([("link", links)])
    assert time.perf_counter() - start < 0.1


# --- forms ----------------------------------------------------------------------------

def purpose(html: str) -> str:
    return classify_form(lxml.html.fromstring(html))


@pytest.mark.parametrize(("html", "expected"), [
    ('<form><input type="search" name="q"></form>', "search"),
    ('<form><input name="s"><button>Go</button></form>', "search"),
    ('<form><input name="user"><input type="password" name="pw"></form>', "login"),
    ('<form><input name="review_name"><select name="rating"></select>'
     '<textarea name="review"></textarea></form>', "review"),
    ('<form id="commentform"><input name="author"><input type="email" name="email">'
     '<textarea name="comment"></textarea></form>', "review"),
    ('<form><input type="email" name="EMAIL"><button>Subscribe</button></form>',
     "newsletter"),
    ('<form><input name="name"><input type="email" name="email">'
     '<textarea name="comments"></textarea><button>Send</button></form>', "contact"),
    # Thai labels, untyped inputs: the words say it asks for a phone.
    ('<form><label>ชื่อ</label><input name="f1"><label>เบอร์โทร</label><input name="f2">'
     '<label>ข้อความ</label><textarea name="f3"></textarea></form>', "contact"),
    # Japanese: お名前 / 電話番号 / お問い合わせ内容.
    ('<form><label>お名前</label><input name="a"><label>電話番号</label><input name="b">'
     '<textarea name="c"></textarea></form>', "contact"),
    # A date and time chosen with selects, and booking words: booking.
    ('<form><input name="name"><input type="tel" name="phone"><select name="day"></select>'
     '<select name="hour"></select><button>จองเลย</button></form>', "booking"),
    # An appointment form in Bengali with a message box: booking (and contact).
    ('<form id="appointmentForm"><input name="from_name"><input type="tel" name="phone">'
     '<input type="date" name="date"><textarea name="message"></textarea></form>', "booking"),
    # A date field in an enquiry with a message box and no booking words: contact.
    ('<form><input name="name"><input type="email" name="email"><input type="date" '
     'name="event_date"><textarea name="details"></textarea><button>Send enquiry</button>'
     '</form>', "contact"),
    ('<form><input name="qty" type="number"><button>Add to cart</button></form>', "other"),
])
def test_forms_are_read_by_their_purpose(html: str, expected: str) -> None:
    assert purpose(html) == expected


def test_hosted_and_embedded_forms_capture_leads() -> None:
    embedded = site_of('<iframe data-src="https://airtable.com/embed/appX/pagY/form">'
                       '</iframe>')
    signals = embedded["signals"]
    assert isinstance(signals, dict)
    assert signals["contact_form"] and signals["lead_capture_form"]
    linked = site_of('<a href="https://forms.gle/abc123">Register here</a>')
    assert isinstance(linked["signals"], dict)
    assert linked["signals"]["lead_capture_form"] and not linked["signals"]["contact_form"]
    newsletter = site_of('<form action="https://formspree.io/f/x"><input type="email" '
                         'name="email"><button>Subscribe</button></form>')
    assert isinstance(newsletter["signals"], dict)
    # A newsletter posted to Formspree is still a hosted form: it collects an address.
    assert not newsletter["signals"]["contact_form"]


def test_an_external_link_that_asks_to_book_is_online_booking() -> None:
    profile = site_of('<a href="https://clinic-scheduler.test/book/42">Book Appointment '
                      'Online</a><a href="#contact">Book a consultation</a>')
    assert isinstance(profile["signals"], dict) and isinstance(profile["evidence"], dict)
    assert profile["signals"]["online_booking"]
    assert profile["evidence"]["online_booking"].startswith(
        "link 'Book Appointment Online' to https://clinic-scheduler.test/book/42")
    internal = site_of('<a href="#contact">Book a consultation</a>'
                       '<a href="https://line.me/R/ti/p/@shop">จองผ่าน LINE</a>')
    assert isinstance(internal["signals"], dict)
    assert not internal["signals"]["online_booking"]


@pytest.mark.parametrize(("link", "service"), [
    ('<a href="https://liff.line.me/1657-abcd">จองคิวออนไลน์</a>', "LINE booking page"),
    ('<a href="https://t.me/SalonQueueBot">Book a slot</a>', "Telegram booking page"),
    ('<a href="https://line.me/R/ti/p/@shop/reserve">LINE</a>', "LINE booking page"),
    ('<a href="https://reserve.line.me/shop/123">จองโต๊ะ</a>', "LINE reservation"),
])
def test_a_messaging_apps_booking_page_is_online_booking_on_a_platform(
        link: str, service: str) -> None:
    profile = site_of(link)
    signals, services = profile["signals"], profile["services"]
    assert isinstance(signals, dict) and isinstance(services, list)
    assert signals["online_booking"] and signals["platform_dependent"]
    assert [s["name"] for s in services] == [service]
    assert all(s["platform"] for s in services)


@pytest.mark.parametrize("link", [
    '<a href="https://wa.me/66812345678?text=I%27d%20like%20to%20book">Book on WhatsApp</a>',
    '<a href="https://lin.ee/AbCdEf">จองผ่าน LINE</a>',
    '<a href="https://m.me/shop?ref=reserve-a-table">Reserve on Messenger</a>',
    '<a href="https://liff.line.me/1657-abcd">สมัครสมาชิก</a>',  # an app that is no booking
    '<a href="https://t.me/shop_news">Book a slot</a>',  # a channel, not a bot
])
def test_a_chat_that_asks_to_book_is_messaging_not_online_booking(link: str) -> None:
    signals = site_of(link)["signals"]
    assert isinstance(signals, dict)
    assert signals["messaging_link"] and not signals["online_booking"]


# --- phones and e-mails ---------------------------------------------------------------

@pytest.mark.parametrize("raw", ["08x-xxx-xxxx", "0XX XXX XXXX", "123 456 7890",
                                 "+1 234 567 890", "(000) 000-0000", "+123456789",
                                 "1234567890", "9876543210"])
def test_placeholder_phones(raw: str) -> None:
    assert is_placeholder(raw)


@pytest.mark.parametrize("raw", ["09-450-123-456", "+66 2 555 0147", "02-123-4567",
                                 "๐๒-๕๕๕-๐๑๔๗", "7477217141"])
def test_real_phones_are_not_placeholders(raw: str) -> None:
    assert not is_placeholder(raw)


def test_a_range_of_numbers_is_split() -> None:
    assert split_range("035-721445-7") == ["035-721445", "035-721447"]
    assert split_range("02-555-0147") == ["02-555-0147"]
    assert split_range("+66 2 555 01 47") == ["+66 2 555 01 47"]


def test_bank_accounts_tax_ids_and_placeholders_are_not_phones() -> None:
    profile = site_of(
        "<p>โทร: 08x-xxx-xxxx</p><a href='tel:08x-xxx-xxxx'>โทรเลย</a>"
        "<p><strong>เลขที่บัญชี:</strong> 012-3-45678-9</p>"
        "<p>Bank account no. 0123456789012</p><p>Tax ID: 0105561234567</p>"
        "<p>Call us: 035-721445-7</p><p><i class='fa fa-whatsapp'></i> 0812345678</p>",
        url="https://clinic.co.th/")
    contacts = profile["contacts"]
    assert isinstance(contacts, dict)
    assert contacts["phones"] == ["+6635721445", "+6635721447", "+66812345678"]
    assert contacts["placeholder_phones"] == ["08x-xxx-xxxx"]


def test_placeholder_emails_are_not_contacts() -> None:
    assert email_kind("info@example.com") == "placeholder"
    assert email_kind("email@email.com") == "placeholder"
    assert email_kind("your@yourdomain.com") == "placeholder"
    assert email_kind("logo@2x.png") is None
    assert email_kind("hello@sakura-dental.jp") == "real"
    profile = site_of("<p>hello@sakura-dental.jp</p><p>you@example.com</p>"
                      "<img src='logo@2x.png'>")
    contacts = profile["contacts"]
    assert isinstance(contacts, dict)
    assert contacts["emails"] == ["hello@sakura-dental.jp"]
    assert contacts["placeholder_emails"] == ["you@example.com"]


# --- Facebook-only and platform-dependent ---------------------------------------------

@pytest.mark.parametrize(("url", "profile"), [
    ("https://www.facebook.com", False), ("https://www.facebook.com/", False),
    ("https://www.facebook.com/sharer/sharer.php?u=x", False),
    ("https://www.facebook.com/tr?id=123&ev=PageView", False),
    ("https://www.facebook.com/share/1GJgvMDN6t/", True),
    ("https://www.facebook.com/SakuraDental", True),
    ("https://www.facebook.com/profile.php?id=1000123", True),
])
def test_a_facebook_link_is_a_page_not_the_network(url: str, profile: bool) -> None:
    assert is_profile_link(url) is profile


def flags_for(social: dict[str, str], services: list[dict[str, object]] | None = None,
              **flags: bool) -> dict[str, bool]:
    return {name: value for name, (value, _) in
            channel_flags(flags, social, services or [], False).items()}


def test_facebook_only_and_platform_dependent() -> None:
    facebook = {"facebook": "https://www.facebook.com/shop"}
    assert flags_for(facebook) == {"facebook_only": True, "platform_dependent": True}
    with_line = {**facebook, "line": "https://line.me/R/ti/p/@shop"}
    assert flags_for(with_line) == {"facebook_only": False, "platform_dependent": True}
    shopee = [{"name": "Shopee", "kinds": ["shop"], "platform": True}]
    assert flags_for(with_line, shopee, ecommerce=True) == {
        "facebook_only": False, "platform_dependent": True}
    assert flags_for(facebook, own_domain_email=True) == {
        "facebook_only": False, "platform_dependent": False}
    assert flags_for(with_line, lead_capture_form=True) == {
        "facebook_only": False, "platform_dependent": False}
    shopify = [{"name": "Shopify", "kinds": ["shop"], "platform": False}]
    assert flags_for(facebook, shopify, ecommerce=True)["platform_dependent"] is False
    assert flags_for({}) == {"facebook_only": False, "platform_dependent": False}


# --- language -------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "lang", "expected"), [
    ("สวัสดีครับ ยินดีต้อนรับสู่คลินิกของเรา Home About", "en", "th"),
    ("ရန်ကုန်မြို့ရှိ သွားဆေးခန်း", "en", "my"),
    ("東京都新宿区の婦人科クリニックです。ご予約はこちら", "en", "ja"),
    ("歯科医院 東京", "ja", "ja"),
    ("欢迎光临我们的餐厅，我们提供正宗的中国菜", "", "zh"),
    ("서울특별시 노원구 내과 진료 예약", "en", "ko"),
    ("ডেন্টাল ক্লিনিক চিকিৎসা সেবা", "en", "bn"),
    ("दंत चिकित्सा क्लिनिक में आपका स्वागत है", "", "hi"),
    ("मुंबईतील दंत चिकित्सालय", "mr", "mr"),
    ("مرحبا بكم في عيادتنا للأسنان", "en", "ar"),
    ("Chào mừng đến với phòng khám nha khoa của chúng tôi", "en", "vi"),
    ("Selamat datang di klinik kami yang terbaik untuk anda dan keluarga", "en", "id"),
    ("The best dental clinic in town for you and your family", "th", "en"),
    ("Bienvenue dans notre restaurant et nous vous proposons une cuisine", "", "fr"),
    ("", "th", "th"), ("", "", "und"), ("12345 !!!", "", "und"),
    # Lorem ipsum is in no language: the attribute (or English) decides.
    ("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
     "incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam", "en", "en"),
    # No common word of any language: the attribute, whatever language it names.
    ("Chiang Mai Thai Kitchen Meny Kontakt", "sv", "sv"),
])
def test_language_of_any_script(text: str, lang: str, expected: str) -> None:
    assert detect_language(text, lang) == expected


def test_a_page_mostly_in_english_with_a_burmese_paragraph_is_english() -> None:
    text = ("Bright Path is a language centre in Sanchaung, Yangon, established in 2014. "
            "Our team of teachers runs English and IELTS courses for adults. " * 3
            + "အင်္ဂလိပ်စကားပြော သင်တန်း")
    assert detect_language(text, "en") == "en"


def test_language_detection_is_fast_on_a_long_page() -> None:
    text = "สวัสดีครับ ยินดีต้อนรับ Welcome " * 2000
    start = time.perf_counter()
    for _ in range(10):
        detect_language(text)
    assert (time.perf_counter() - start) / 10 < 0.02


def test_a_label_makes_a_number_something_else_only_right_before_it() -> None:
    profile = site_of("<p>Tax invoice available. Tel: 02-555-0147</p>"
                      "<p>LINE ID: @shop · Tel 081-555-0198</p>"
                      "<p>Tax ID: 0105561234567</p><p>Account no.</p><p>123-4-56789-0</p>",
                      url="https://shop.co.th/")
    contacts = profile["contacts"]
    assert isinstance(contacts, dict)
    assert contacts["phones"] == ["+6625550147", "+66815550198"]


def test_the_bank_named_between_an_account_label_and_its_number_keeps_it_an_account() -> None:
    profile = site_of("<p>มัดจำ 50% โอนเข้าบัญชีกสิกรไทย 063-2-41587-2 แล้วส่งสลิปทางไลน์</p>"
                      "<p>A/C Kasikorn Bank, Siam branch 123-4-56789-0</p>"
                      "<p>Bank transfer accepted, call us 081-555-0198</p>"
                      "<p>We accept bank cards. 02-555-0147</p>",
                      url="https://shop.co.th/")
    contacts = profile["contacts"]
    assert isinstance(contacts, dict)
    assert contacts["phones"] == ["+66815550198", "+6625550147"]


def test_a_number_not_possible_in_the_country_read_is_tried_in_the_markets() -> None:
    from leadengine.website.phones import normalise_phones

    # A Thai mobile on a site whose address abroad made the country Singapore.
    assert normalise_phones(["081-555-0198"], "SG")[0] == ["+66815550198"]
    # Unreadable anywhere but long enough to dial: kept as written; a date is not.
    assert normalise_phones(["099-1234-56789", "01-01-2024"], "SG")[0] == ["099-1234-56789"]

"""Facts a rep acts on, by class of error (not by fixture): registration, tax and company
numbers are never phones; navigation words are never names; the brand a site presents
wins over its legal operator. Pages of our own, each reproducing a pattern seen on real
sites in another form, asserted field by field."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from leadengine import KnowledgeBase
from leadengine.facts import SiteFacts, site_facts
from leadengine.web.site import load_site


def facts_of(tmp_path: Path, html: str, kb: KnowledgeBase, name: str = "site") -> SiteFacts:
    page = tmp_path / name / "index.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(html, encoding="utf-8")
    return site_facts(asyncio.run(load_site(str(page))), kb.rules)


def page(body: str, lang: str = "en", head: str = "", title: str = "Acme") -> str:
    return (f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'>"
            f"<title>{title}</title>{head}</head><body>{body}</body></html>")


# --- registration, tax and company numbers are never phones -----------------------------

@pytest.mark.parametrize(("lang", "body", "phones"), [
    # Thailand: a juristic-person number in a badge of its own, beside the real phone.
    ("th", "<h1>ซีอีที ซอฟต์แวร์</h1><p>รับพัฒนาแอปและเว็บไซต์ในกรุงเทพฯ</p>"
           "<div class='badge'><strong>เลขทะเบียนนิติบุคคล</strong><span>0105561234567</span>"
           "</div><p>โทร 02-123-4567</p>", ["+6621234567"]),
    ("en", "<h1>CET Software</h1><p>Apps and websites from Bangkok, Thailand.</p>"
           "<div class='badge'><strong>Registration</strong><span>0105561234567</span></div>"
           "<p>Tel: 02-123-4567</p>", ["+6621234567"]),
    # Vietnam: the tax code is ten digits like a mobile number.
    ("vi", "<h1>Công ty Sao Mai</h1><p>Thiết kế website tại Thành phố Hồ Chí Minh, Việt Nam."
           "</p><p>MST: 0312345678</p><p>Điện thoại: 028 3822 1234</p>", ["+842838221234"]),
    # Japan: a 13-digit corporate number.
    ("ja", "<h1>さくら歯科</h1><p>東京都新宿区の歯科医院です。</p><p>法人番号 1234567890123</p>"
           "<p>TEL 03-1234-5678</p>", ["+81312345678"]),
    # Korea: the business registration number.
    ("ko", "<h1>88플러스내과</h1><p>서울 강남구 내과</p><p>사업자등록번호 123-45-67890</p>"
           "<p>전화 02-1234-5678</p>", ["+82212345678"]),
    # Myanmar: the company registration number, and a phone in Burmese digits.
    ("my", "<h1>ရွှေမြိုင် ကုမ္ပဏီ</h1><p>ရန်ကုန်မြို့ ဗဟန်းမြို့နယ်</p>"
           "<p>ကုမ္ပဏီမှတ်ပုံတင်အမှတ် 112233445</p><p>ဖုန်း ၀၉ ၄၅၀ ၁၂၃ ၄၅၆</p>",
     ["+959450123456"]),
])
def test_registration_numbers_are_never_phones(kb: KnowledgeBase, tmp_path: Path, lang: str,
                                               body: str, phones: list[str]) -> None:
    facts = facts_of(tmp_path, page(body, lang), kb)
    assert list(facts.contacts.phones) == phones


def test_json_ld_identifiers_are_never_phones(kb: KnowledgeBase, tmp_path: Path) -> None:
    """A number the JSON-LD gives as the business's taxID, vatID or leiCode is not a
    phone wherever the page writes it, even with no label beside it."""
    head = ('<script type="application/ld+json">{"@context": "https://schema.org", "@type": '
            '"Organization", "name": "Nakorn Logistics", "taxID": "0105559876543", '
            '"vatID": "TH 0-1055-59876-54-3", "telephone": "+66 2 555 0147", '
            '"address": {"@type": "PostalAddress", "addressLocality": "Bangkok", '
            '"addressCountry": "TH"}}</script>')
    body = ("<h1>Nakorn Logistics</h1><p>Freight forwarding from Bangkok.</p>"
            "<footer><span>0105559876543</span> · <span>+66 2 555 0147</span></footer>")
    facts = facts_of(tmp_path, page(body, head=head, title="Nakorn Logistics"), kb)
    assert list(facts.contacts.phones) == ["+6625550147"]


def test_a_number_too_long_for_any_line_of_its_country_is_no_phone(
        kb: KnowledgeBase, tmp_path: Path) -> None:
    facts = facts_of(tmp_path, page("<h1>Siam Print</h1><p>Print shop in Bangkok.</p>"
                                    "<p>0105561234567</p><p>Call 081 234 5678</p>", "en"), kb)
    assert list(facts.contacts.phones) == ["+66812345678"]


# --- navigation words are never names ---------------------------------------------------

@pytest.mark.parametrize(("lang", "title", "h1", "brand"), [
    ("th", "ติดต่อเรา", "ติดต่อเรา", "บ้านสวนคาเฟ่"),
    ("my", "ဆက်သွယ်ရန်", "ဆက်သွယ်ရန်", "ရွှေမြိုင် ဆေးခန်း"),
    ("en", "Contact Us", "About us", "Harbour Dental"),
    ("ja", "お問い合わせ", "会社概要", "さくら歯科"),
    ("ko", "문의하기", "회사소개", "88플러스내과"),
    ("zh", "联系我们", "关于我们", "金龙茶餐厅"),
    ("vi", "Liên hệ", "Giới thiệu", "Nhà hàng Sao Mai"),
    ("id", "Hubungi Kami", "Tentang Kami", "Klinik Sehat"),
    ("ar", "اتصل بنا", "من نحن", "مطعم الياسمين"),
])
def test_navigation_words_are_never_names(kb: KnowledgeBase, tmp_path: Path, lang: str,
                                          title: str, h1: str, brand: str) -> None:
    body = (f"<header><a href='/'><img class='logo' src='/logo.png' alt='{brand}'></a>"
            f"<nav><a href='/'>{title}</a></nav></header><h1>{h1}</h1><p>{brand}</p>")
    facts = facts_of(tmp_path, page(body, lang, title=title), kb)
    assert facts.identity.name == brand


def test_a_page_of_navigation_words_falls_back_to_its_domain(kb: KnowledgeBase,
                                                              tmp_path: Path) -> None:
    body = "<h1>Contact us</h1><p>Home | About us | Services | Contact</p>"
    facts = facts_of(tmp_path, page(body, title="Home - Contact Us"), kb, "harbourdental")
    assert facts.identity.name not in ("Contact us", "Home", "Contact Us", "About us")


# --- the brand the site presents wins over its legal operator ---------------------------

@pytest.mark.parametrize(("json_ld_name", "site_name", "expected"), [
    ("Siam Fitness Holdings Co., Ltd.", "FitHub Bangkok", "FitHub Bangkok"),
    ("บริษัท สยามฟิต จำกัด", "FitHub Bangkok", "FitHub Bangkok"),
    ("TimPaemi Co., Ltd.", "Pattaya.Gym", "Pattaya.Gym"),
    ("株式会社さくらメディカル", "さくら歯科", "さくら歯科"),
    # The legal name holds the brand: it names the same business, and stays.
    ("FitHub Bangkok Co., Ltd.", "FitHub Bangkok", "FitHub Bangkok Co., Ltd."),
    # No brand beside it: the operator's name is the only name there is.
    ("Siam Fitness Holdings Co., Ltd.", "", "Siam Fitness Holdings Co., Ltd."),
])
def test_the_brand_wins_over_the_operator(kb: KnowledgeBase, tmp_path: Path,
                                          json_ld_name: str, site_name: str,
                                          expected: str) -> None:
    head = ('<script type="application/ld+json">{"@context": "https://schema.org", '
            f'"@type": "ExerciseGym", "name": "{json_ld_name}", "telephone": '
            '"+66 2 555 0147"}</script>'
            + (f'<meta property="og:site_name" content="{site_name}">' if site_name else ""))
    body = "<h1>Gyms and classes in Bangkok</h1><p>Open daily, personal training.</p>"
    facts = facts_of(tmp_path, page(body, head=head, title="Gyms in Bangkok"), kb)
    assert facts.identity.name == expected

"""Facts a rep acts on, by class of error (not by fixture): registration, tax and company
numbers are never phones; navigation words are never names; the brand a site presents
wins over its legal operator. Pages of our own, each reproducing a pattern seen on real
sites in another form, asserted field by field."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from leadengine import KnowledgeBase
from leadengine.facts.site_facts import SiteFacts, site_facts
from leadengine.website.load import load_site


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


# --- pages of one site are one lead -------------------------------------------------------

@pytest.mark.parametrize(("given", "lead"), [
    ("https://harbourdental.example/about-us", "https://harbourdental.example/"),
    ("https://harbourdental.example/about-us/", "https://harbourdental.example/"),
    ("https://Harbourdental.example/th/contact.html?ref=nav", "https://harbourdental.example/th/"),
    ("harbourdental.example/ติดต่อเรา", "https://harbourdental.example/"),
    ("https://harbourdental.example/about/index.html", "https://harbourdental.example/"),
    # A site on a platform that hosts many: its own folder.
    ("https://someone.wixsite.com/baansuan/about", "https://someone.wixsite.com/baansuan/"),
    # Pages that are not about the business itself stay what they are.
    ("https://harbourdental.example/services", "https://harbourdental.example/services"),
    ("https://harbourdental.example/blog/about-our-new-clinic",
     "https://harbourdental.example/blog/about-our-new-clinic"),
])
def test_an_about_or_contact_page_is_its_sites_lead(given: str, lead: str) -> None:
    from leadengine.website.urls import normalise_url

    assert normalise_url(given) == lead


def test_a_batch_with_a_homepage_and_its_about_page_stores_one_lead(
        kb: KnowledgeBase, tmp_path: Path) -> None:
    from leadengine import Settings
    from leadengine.batch import run_batch
    from leadengine.store import Store

    site = tmp_path / "harbour"
    (site / "about").mkdir(parents=True)
    (site / "index.html").write_text(page("<h1>Harbour Dental</h1><p>Dentist in Yangon, "
                                          "Bahan Township.</p>", title="Harbour Dental"),
                                     encoding="utf-8")
    (site / "about" / "index.html").write_text(page("<h1>About us</h1><p>Founded in 2010."
                                                    "</p>", title="About us"),
                                               encoding="utf-8")
    (site / "contact.html").write_text(page("<h1>Contact</h1><p>Call us.</p>"),
                                       encoding="utf-8")
    rows = tmp_path / "leads.txt"
    rows.write_text(f"{site / 'index.html'}\n{site / 'about' / 'index.html'}\n"
                    f"{site / 'contact.html'}\n", encoding="utf-8")
    store = Store(tmp_path / "l.db")
    summary = asyncio.run(run_batch(rows, Settings(provider="heuristic",
                                                   retrieval_method="keyword"), kb, store))
    assert (summary.done, summary.duplicates) == (1, 2)
    [lead] = list(store.evaluations())
    assert lead["business_name"] == "Harbour Dental"
    assert lead["url"].endswith("/harbour/index.html")


# --- what kind of site a lead is ----------------------------------------------------------

def _directory_page(listings: int) -> str:
    items = ", ".join(
        f'{{"@type": "ListItem", "position": {i}, "item": {{"@type": "Dentist", '
        f'"name": "Clinic {i}", "telephone": "+66 2 555 {1000 + i}"}}}}'
        for i in range(1, listings + 1))
    head = ('<script type="application/ld+json">{"@context": "https://schema.org", '
            f'"@type": "ItemList", "itemListElement": [{items}]}}</script>')
    cards = "".join(f"<article><h3>Clinic {i}</h3><p>Sukhumvit, Bangkok</p>"
                    f"<a href='https://www.facebook.com/clinic{i}'>Facebook</a></article>"
                    for i in range(1, listings + 1))
    social = ("<footer><a href='https://www.facebook.com/bkkdentalguide'>Facebook</a> "
              "<a href='https://www.instagram.com/bkkdentalguide'>Instagram</a> "
              "<a href='https://www.youtube.com/@bkkdentalguide'>YouTube</a> "
              "<a href='https://www.tiktok.com/@bkkdentalguide'>TikTok</a></footer>")
    return page(f"<h1>Find dentists in Bangkok</h1><p>{listings} clinics reviewed.</p>"
                f"{cards}{social}", head=head,
                title=f"Bangkok Dental Guide — {listings} Dental Clinics")


def test_a_directory_is_not_facebook_only_nor_judged_as_one_business(
        kb: KnowledgeBase, tmp_path: Path) -> None:
    from leadengine import Settings
    from leadengine.pipeline import evaluate

    facts = facts_of(tmp_path, _directory_page(24), kb, "guide")
    assert facts.site_kind.value == "directory"
    assert "its JSON-LD lists 24 businesses" in facts.site_kind.evidence
    assert facts.flags["facebook_only"] is False
    evaluation = evaluate(str(tmp_path / "guide" / "index.html"),
                          Settings(provider="heuristic", retrieval_method="keyword"), kb)
    assert evaluation.site_kind["value"] == "directory"
    assert evaluation.fit_score <= 20
    assert evaluation.angle != "Platform Dependency Risk"
    assert evaluation.confidence["level"] != "high"
    assert any("directory of many businesses" in r for r in evaluation.confidence["reasons"])
    assert evaluation.outreach_message is not None
    assert "Facebook" not in evaluation.outreach_message["chat"]


def test_facebook_and_other_networks_is_not_facebook_only(kb: KnowledgeBase,
                                                           tmp_path: Path) -> None:
    body = ("<h1>Pim Nail Studio</h1><p>Gel nails and lashes in Mandalay.</p>"
            "<a href='https://www.facebook.com/pimnails'>Facebook</a> "
            "<a href='https://www.instagram.com/pimnails'>Instagram</a>")
    facts = facts_of(tmp_path, page(body, title="Pim Nail Studio"), kb)
    assert facts.flags["facebook_only"] is False
    assert facts.flags["platform_dependent"] is True
    only_facebook = facts_of(tmp_path, page(body.split(" <a href='https://www.instagram")[0],
                                            title="Pim Nail Studio"), kb, "fb")
    assert only_facebook.flags["facebook_only"] is True


@pytest.mark.parametrize(("url", "title", "headings", "types", "listed", "phones", "kind"), [
    ("https://www.facebook.com/pimnails", "Pim Nail Studio | Facebook", (), (), 0, 1,
     "profile"),
    ("https://lin.ee/abc123", "Pim Nail Studio", (), (), 0, 0, "profile"),
    ("https://news.example/", "Yangon Business News", ("Latest",),
     ("NewsArticle", "WebSite"), 0, 1, "media"),
    ("https://guide.example/", "Best cafés in Chiang Mai", ("120+ cafés reviewed",), (),
     0, 0, "directory"),
    ("https://guide.example/", "รวมร้านอาหารอร่อย เชียงใหม่", ("ร้านอาหาร 150 ร้าน",), (), 0,
     0, "directory"),
    # A business with branches, a menu's top dishes, many phone numbers of one hotel.
    ("https://smile.example/", "Smile Dental | 3 branches", ("Our branches",),
     ("Dentist",), 3, 3, "business"),
    ("https://thai.example/", "Krua Thai", ("Top 10 dishes",), ("Restaurant",), 1, 2,
     "business"),
    ("https://hotel.example/", "Royal Moat Hotel", ("Rooms",), ("Hotel",), 1, 9, "business"),
    # A distributor's list of its own dealers, a chain's branches: its own network.
    ("https://siamtyre.example/", "Authorised Dealer Directory | Siam Tyre Distribution",
     ("Authorised Dealer Directory",), (), 0, 101, "business"),
    ("https://noodles.example/", "Nong Noodles — 35 branches in Bangkok", ("Our branches",),
     (), 0, 35, "business"),
    # A business's own "Find us" section is not a directory's search.
    ("https://cafe.example/", "Little Owl Café", ("Find us in Thonglor", "Compare our blends"),
     (), 0, 2, "business"),
])
def test_kinds_of_site(url: str, title: str, headings: tuple[str, ...],
                       types: tuple[str, ...], listed: int, phones: int, kind: str) -> None:
    from leadengine.website.site_kind import site_kind

    assert site_kind(url, title, "", headings, types, listed, phones, False).value == kind

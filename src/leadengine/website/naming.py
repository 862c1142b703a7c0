"""The business's name, from the strongest source a site gives.

Best first: the JSON-LD ``name``, ``og:site_name``, the logo's ``alt`` text, the brand
in the header (an element whose class or id says brand, logo or site title), the part
of the ``<title>`` that is a name (not "Home", not a tagline), the first ``<h1>``, then
the domain. A title is split at its separators ("Home | Sakura Dental – Best Dentist
in Shinjuku") and the part that the domain, the logo, the brand or the copyright line
also names is taken; otherwise the first part that is neither a page word ("Home",
"หน้าแรก", "ホーム") nor a tagline. A candidate that addresses an AI is passed over by
the caller (:func:`leadengine.facts.site_facts.pick_business_name`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

import lxml.html

from leadengine.website.injection import find_injections

SEPARATORS = re.compile(r"\s+[|–—·•:»/]\s+|\s+-\s+|\s*\|\s*|\s+[~]\s+")
#: Title parts, headings and menu words that name a page or a part of one, not a business:
#: "Home", "Contact us", "About us", "Services" in English, Thai, Burmese, Japanese,
#: Korean, Chinese, Vietnamese, Indonesian, Malay, Arabic and a few more.
_PAGE_WORDS = re.compile(
    r"^[\s\W_]*(home|home ?page|welcome|index|main|official (web)?site|website|top|"
    r"page d'accueil|inicio|startseite|contact|contact us|contacts|get in touch|about|"
    r"about us|who we are|our story|services|our services|products|our products|menu|"
    r"gallery|portfolio|news|blog|faq|faqs|login|log in|sign in|register|book now|booking|"
    r"shop|store|careers|team|our team|pricing|prices|locations|find us|"
    r"หน้าแรก|หน้าหลัก|ติดต่อเรา|ติดต่อ|เกี่ยวกับเรา|เกี่ยวกับ|บริการ|บริการของเรา|สินค้า|"
    r"ผลงาน|แกลเลอรี่|ข่าวสาร|บทความ|คำถามที่พบบ่อย|จองคิว|จองเลย|ร้านค้า|"
    r"ပင်မစာမျက်နှာ|ဆက်သွယ်ရန်|ဆက်သွယ်ပါ|ကျွန်ုပ်တို့အကြောင်း|ကျွန်တော်တို့အကြောင်း|အကြောင်း|"
    r"ဝန်ဆောင်မှုများ|ဝန်ဆောင်မှု|ထုတ်ကုန်များ|သတင်း|"
    r"ホーム|トップ|トップページ|お問い合わせ|お問合せ|会社概要|私たちについて|サービス|製品|"
    r"アクセス|ニュース|お知らせ|홈|메인|문의|문의하기|연락처|회사소개|소개|서비스|제품|공지사항|"
    r"首页|首頁|主页|联系我们|聯絡我們|聯繫我們|关于我们|關於我們|服务|服務|产品|產品|新闻|"
    r"trang chủ|liên hệ|giới thiệu|về chúng tôi|dịch vụ|sản phẩm|tin tức|"
    r"beranda|halaman utama|hubungi kami|kontak|tentang kami|layanan|produk|berita|"
    r"hubungi|perkhidmatan|utama|الرئيسية|اتصل بنا|من نحن|خدماتنا|منتجاتنا|"
    r"হোম|যোগাযোগ|আমাদের সম্পর্কে|সেবা|होम|संपर्क|हमारे बारे में|सेवाएं)[\s\W_]*$", re.I)
_TAGLINE = re.compile(r"^(the )?(best|leading|top|no\.? ?1|#1|welcome to|your |we )", re.I)
#: Images read for a logo, and elements for a brand: the header comes first in a page.
_MAX_IMAGES = 100
_MAX_BRAND_ELEMENTS = 200
_BRAND = re.compile(r"brand|logo|site-?title|site-?name", re.I)
_COPYRIGHT = re.compile(r"(?:©|\(c\)|copyright)\s*(?:\d{4}(?:\s*[-–]\s*\d{4})?)?\s*"
                        r"(?:by\s+)?([^.|,©]{2,60})", re.I)
_NOT_LETTERS = re.compile(r"[\W_]+")
#: Names longer than this are sentences, not names.
MAX_NAME = 120


@dataclass(frozen=True)
class NameHints:
    """What a page's markup says the business is called, besides its metadata."""

    logo_alt: str = ""
    brand: str = ""
    h1: str = ""
    copyright: str = ""


def name_hints(tree: lxml.html.HtmlElement, nodes: list[str]) -> NameHints:
    """The logo's alt text, the header's brand, the first h1 and the copyright holder
    (the first :data:`_MAX_IMAGES` images and :data:`_MAX_BRAND_ELEMENTS` candidate
    elements are read: the header comes first in a page)."""
    logo = brand = ""
    for img in islice(tree.iter("img"), _MAX_IMAGES):
        alt = _clean(img.get("alt") or "")
        if alt and (_branded(f"{img.get('class') or ''} {img.get('id') or ''} "
                             f"{img.get('src') or ''}") or _in_brand_link(img)):
            logo = alt
            break
    for element in islice(tree.iter("a", "div", "span", "p", "strong", "h1", "h2"),
                          _MAX_BRAND_ELEMENTS):
        marks = element.get("class") or element.get("id")
        if marks and _branded(f"{element.get('class') or ''} {element.get('id') or ''}"):
            brand = _clean(element.text_content())
            if brand:
                break
    h1 = next((_clean(h.text_content()) for h in islice(tree.iter("h1"), 1)), "")
    copyright_holder = ""
    for node in reversed(nodes[-200:]):
        match = _COPYRIGHT.search(node)
        if match:
            copyright_holder = _clean(match.group(1))
            break
    return NameHints(logo, brand, h1, copyright_holder)


def _branded(marks: str) -> bool:
    """Whether class, id or src ``marks`` say brand or logo (substring tests first: a
    page has hundreds of classed elements)."""
    low = marks.lower()
    return "brand" in low or "logo" in low or ("site" in low and _BRAND.search(low) is not None)


def _in_brand_link(img: lxml.html.HtmlElement) -> bool:
    """An image inside a link to the homepage, in the page's header."""
    link = next(img.iterancestors("a"), None)
    return link is not None and (link.get("href") or "").strip() in ("/", "./", "index.html",
                                                                     "#", "/index.html")


def _clean(text: str) -> str:
    text = " ".join(text.split())
    return text if 1 < len(text) <= MAX_NAME else ""


def title_name(title: str, host: str = "", hints: NameHints | None = None,
               site_name: str = "") -> str:
    """The part of ``title`` that is the business's name."""
    parts = [p.strip() for p in SEPARATORS.split(title) if p and p.strip()]
    parts = [p for p in parts if not _PAGE_WORDS.match(p)]
    if not parts:
        return ""
    if len(parts) == 1:
        return parts[0]
    known = [host.split(".")[0] if host else "", site_name]
    if hints is not None:
        known += [hints.logo_alt, hints.brand, hints.copyright]
    others = [_key(v) for v in known if v]

    def score(item: tuple[int, str]) -> tuple[int, int]:
        order, part = item
        key = _key(part)
        named = sum(1 for other in others if len(key) >= 3 and len(other) >= 3 and (
            key in other or other in key))
        tagline = bool(_TAGLINE.match(part)) or len(part.split()) > 6
        return (2 * named - 2 * tagline, -order)

    return max(enumerate(parts), key=score)[1]


def _key(text: str) -> str:
    return _NOT_LETTERS.sub("", text.lower())


#: A legal form of a company name ("Co., Ltd.", "บริษัท ... จำกัด", "株式会社", "PT ..."):
#: the operator's name, which a site may give beside the brand it presents.
LEGAL_FORM = re.compile(
    r"\b(?:co\.?,?\s*ltd|company\s+limited|limited|ltd|pte\.?\s*ltd|pvt\.?\s*ltd|inc|"
    r"llc|l\.l\.c|corp(?:oration)?|gmbh|sdn\.?\s*bhd|plc|pty|k\.k|s\.a\.?r?\.?l?|jsc|"
    r"tnhh|công ty)\b\.?|บริษัท|จำกัด|ห้างหุ้นส่วน|株式会社|有限会社|合同会社|"
    r"有限公司|股份有限公司|주식회사|\(주\)|ကုမ္ပဏီ|လီမိတက်|^pt\.?\s", re.I)


def name_candidates(json_ld_name: str, site_name: str, title: str, hints: NameHints,
                    host: str) -> Iterator[tuple[str, str, str]]:
    """(where from, the text it is in, the name), best first: the brand the site presents
    when its metadata names only the legal operator (a JSON-LD "TimPaemi Co., Ltd."
    beside og:site_name "Pattaya.Gym"); the site's own metadata;
    a part of the title that another source confirms (the logo, the header's brand, the
    h1, the copyright line or the domain: one holds the other, or they begin with the
    same two words or more); the logo or brand when the domain or copyright confirms
    it; the title's most name-like part; then the logo, brand, h1 and domain alone."""
    logo = _logo_name(hints.logo_alt)
    if json_ld_name and LEGAL_FORM.search(json_ld_name):
        for source, brand in (("og:site_name", site_name), ("header brand", hints.brand),
                              ("logo alt text", logo)):
            if brand and not LEGAL_FORM.search(brand) and not _PAGE_WORDS.match(brand) \
                    and len(brand.split()) <= 6 and _key(brand) not in _key(json_ld_name):
                yield f"{source} (the brand of {json_ld_name[:60]})", brand, brand
                break
    yield "JSON-LD name", json_ld_name, json_ld_name
    yield "og:site_name", site_name, site_name
    brand = hints.brand if len(hints.brand.split()) <= 8 else ""
    domain = host.split(".")[0] if host and not host[0].isdigit() else ""
    # The h1 last: it is often the page's own headline, which the title repeats.
    others = [v for v in (logo, brand, hints.copyright, domain, hints.h1) if v]
    parts = [p.strip() for p in SEPARATORS.split(title) if p and p.strip()]
    for other in others:
        for part in (p for p in parts if not _PAGE_WORDS.match(p)):
            agreed = _agreement(part, other)
            if agreed:
                yield "title (confirmed by the page)", title, agreed
    for value, source in ((logo, "logo alt text"), (brand, "header brand")):
        if value and any(_agreement(value, v) for v in (hints.copyright, domain) if v):
            yield source, hints.logo_alt if source == "logo alt text" else value, value
    yield "title", title, title_name(title, host, hints, site_name)
    yield "logo alt text", hints.logo_alt, logo
    yield "header brand", brand, brand
    yield "h1 heading", hints.h1, hints.h1
    yield "domain", host, host


def _agreement(part: str, other: str) -> str:
    """``part`` when it and ``other`` name the same thing (one holds the other, ignoring
    case, spaces and punctuation), else their common first words when there are at least
    two ("Pim Nail Studio" in "Pim Nail Studio Korat gel nails" and "Pim Nail Studio
    💅"), else ""."""
    key, other_key = _key(part), _key(other)
    if len(key) >= 3 and len(other_key) >= 3 and (key in other_key or other_key in key):
        return part if len(key) <= len(other_key) or len(other_key) < 3 else (
            part if other_key == key else _shorter(part, other))
    words, other_words = part.split(), other.split()
    common = 0
    for mine, theirs in zip(words, other_words, strict=False):
        if _key(mine) != _key(theirs) or not _key(mine):
            break
        common += 1
    return " ".join(words[:common]).strip(" ,;:-|") if common >= 2 else ""


def _shorter(part: str, other: str) -> str:
    """Of two names one of which holds the other, the one that is held (the name
    without its tagline)."""
    return other if len(_key(other)) < len(_key(part)) else part


def _tidy(name: str) -> str:
    """``name`` without the pictographs and separators around it ("Pim Nail Studio 💅",
    "- Sakura Dental -"); a final period ("Co., Ltd.") stays."""
    start, end = 0, len(name)
    while start < end and _strippable(name[start]):
        start += 1
    while end > start and _strippable(name[end - 1]) and name[end - 1] != ".":
        end -= 1
    return name[start:end]


def _strippable(char: str) -> bool:
    """An emoji or other pictograph, a space, or a separator's punctuation ("=" stays:
    a name written like a formula is kept as written, and exported inert)."""
    return unicodedata.category(char) in ("So", "Sk", "Zs", "Cf") or char in " -–—|:;,·•*~"


def _logo_name(alt: str) -> str:
    """The alt text of a logo without the word logo ("Sakura Dental logo")."""
    name = re.sub(r"\s*\blogo\b\s*", " ", alt, flags=re.I).strip(" -|:")
    return name if len(name) > 1 and len(name.split()) <= 8 else ""


def pick_name(candidates: Iterator[tuple[str, str, str]]) -> tuple[str, str, list[str]]:
    """(name, where from, warnings): the first candidate with a name that does not address
    an AI; each one that does is passed over with a warning. "Unknown business" when none
    is left."""
    warnings = []
    for source, value, name in candidates:
        name = _tidy(name)
        if not name or _PAGE_WORDS.match(name):
            continue
        if find_injections(value):
            warnings.append(f"the {source} addresses an AI, so it is not taken as the "
                            f"business name: {value[:200]!r}")
            continue
        return name, source, warnings
    return "Unknown business", "none", warnings

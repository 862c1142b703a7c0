"""Facts read from a page's DOM that boilerplate removal throws away.

JSON-LD business data (name, address, opening hours, phone), forms and what
they are for, script and iframe sources, a street address, and the page's
language (en / th / my / other).
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urljoin

import lxml.html

_BUSINESS_TYPES = re.compile(
    r"LocalBusiness|Organization|Organisation|Clinic|Dentist|Physician|Hospital|Medical|"
    r"Restaurant|FoodEstablishment|CafeOrCoffeeShop|Bakery|Hotel|LodgingBusiness|Store|"
    r"School|EducationalOrganization|HealthAndBeautyBusiness|DaySpa|BeautySalon|"
    r"ProfessionalService|LegalService|Attorney|RealEstateAgent|HomeAndConstructionBusiness|"
    r"GeneralContractor|Corporation", re.I)
#: Words that mark a street address (with a digit in the same text node).
_ADDRESS = re.compile(r"\b(?:road|rd\.?|street|st\.|soi|avenue|ave\.|lane|township|tsp\.?|"
                      r"sukhumvit|silom)\b|ถนน|ซอย|แขวง|เขต|လမ်း|မြို့နယ်|ရပ်ကွက်")
#: Cheap substring test before the regex (most text nodes hold none of these).
_ADDRESS_HINTS = ("road", "rd", "street", "st.", "soi", "ave", "lane", "township", "tsp",
                  "sukhumvit", "silom", "ถนน", "ซอย", "แขวง", "เขต", "လမ်း", "မြို့နယ်",
                  "ရပ်ကွက်")
_DIGIT = re.compile(r"[0-9၀-၉]")
_POSTCODE = re.compile(r"(?<!\d)\d{5}(?!\d)")
_LABEL = re.compile(r"address|ที่อยู่|လိပ်စာ", re.I)
#: Text nodes examined for an address: the first and last ones of the page, where
#: contact details live (a price list of thousands of rows is not scanned).
_ADDRESS_NODES = 3000
_THAI = re.compile(r"[\u0e00-\u0e7f]+")
_MYANMAR = re.compile(r"[\u1000-\u109f\uaa60-\uaa7f]+")
_LATIN = re.compile(r"[A-Za-z]+")
_ENGLISH_HINTS = frozenset("the and of to in for with our we you your is are a on at "
                           "from by this that".split())


def json_ld_business(tree: lxml.html.HtmlElement) -> dict[str, Any]:
    """Name, type, address, hours, phone and email of the first business in the JSON-LD."""
    for block in tree.xpath("//script[@type='application/ld+json']/text()"):
        try:
            data = json.loads(block.strip())
        except ValueError:
            continue
        for item in _items(data):
            kinds = item.get("@type", "")
            kinds = " ".join(kinds) if isinstance(kinds, list) else str(kinds)
            if not _BUSINESS_TYPES.search(kinds):
                continue
            business = {"type": kinds, "name": _text(item.get("name")),
                        "address": _address(item.get("address")),
                        "telephone": _text(item.get("telephone")),
                        "email": _text(item.get("email")).removeprefix("mailto:"),
                        "hours": _hours(item)}
            return {k: v for k, v in business.items() if v}
    return {}


def classify_form(form: lxml.html.HtmlElement) -> str:
    """What a form is for: contact, booking, newsletter, search, login or other."""
    fields = form.xpath(".//input[not(@type='hidden') and not(@type='submit') and "
                        "not(@type='button')]|.//textarea|.//select")
    types = {(f.get("type") or f.tag).lower() for f in fields}
    names = " ".join(" ".join(filter(None, (f.get("name"), f.get("id"), f.get("placeholder"))))
                     for f in fields).lower()
    words = (names + " " + (form.get("action") or "") + " " +
             form.text_content()).lower()
    if "password" in types:
        return "login"
    if "search" in types or (len(fields) <= 2 and re.search(r"\b(q|s|search|query)\b", names)):
        return "search"
    if re.search(r"book|appointment|reserv|check-?in|จอง|นัด|ဘိုကင်|ချိန်း", words) or (
            types & {"date", "time", "datetime-local"} and "textarea" not in types):
        return "booking"
    if "textarea" in types or (types & {"tel"}) or (
            "email" in types and len(fields) >= 3):
        return "contact"
    if "email" in types or re.search(r"newsletter|subscribe", words):
        return "newsletter"
    return "other"


def forms_of(tree: lxml.html.HtmlElement, url: str) -> list[dict[str, Any]]:
    """Every form of the page, with its purpose, action and field names."""
    forms = []
    for form in tree.xpath("//form"):
        fields = [f.get("name") or f.get("type") or f.tag for f in form.xpath(
            ".//input[not(@type='hidden') and not(@type='submit')]|.//textarea|.//select")]
        forms.append({"page": url, "purpose": classify_form(form),
                      "action": urljoin(url, form.get("action") or "") if form.get("action")
                      else url, "fields": fields[:12]})
    return forms


def sources_of(tree: lxml.html.HtmlElement, url: str, xpath: str) -> list[str]:
    return list(dict.fromkeys(urljoin(url, s.strip()) for s in tree.xpath(xpath) if s.strip()))


def find_address(tree: lxml.html.HtmlElement, nodes: list[str]) -> str:
    """A street address: the <address> element, else the first text node that has an
    address word and a digit (among the page's first and last text nodes)."""
    for node in tree.xpath("//address"):
        value = " ".join(node.text_content().split())
        if value:
            return value[:200]
    if len(nodes) > 2 * _ADDRESS_NODES:
        nodes = nodes[:_ADDRESS_NODES] + nodes[-_ADDRESS_NODES:]
    best, best_score = "", 0
    for text in nodes:
        if len(text) >= 400:
            continue
        lowered = text.lower()
        if not any(hint in lowered for hint in _ADDRESS_HINTS) or not _DIGIT.search(text):
            continue
        score = len(_ADDRESS.findall(lowered))
        if score:
            # A postcode or an "Address:" label makes a full address likelier than a
            # heading that merely names the street.
            score += 2 * bool(_POSTCODE.search(text)) + 2 * bool(_LABEL.search(text))
            if score > best_score:
                best, best_score = text, score
    return " ".join(best.split())[:200]


def detect_language(text: str, html_lang: str = "") -> str:
    """en, th, my or other, from the script of the text (the lang attribute breaks ties)."""
    thai = sum(map(len, _THAI.findall(text)))
    burmese = sum(map(len, _MYANMAR.findall(text)))
    latin_words = _LATIN.findall(text)
    latin = sum(map(len, latin_words))
    total = thai + burmese + latin
    declared = html_lang.lower().split("-")[0]
    if total == 0:
        return declared if declared in ("en", "th", "my") else "other"
    if thai / total >= 0.3 and thai >= burmese:
        return "th"
    if burmese / total >= 0.3:
        return "my"
    words = [word.lower() for word in latin_words]
    english = sum(map(_ENGLISH_HINTS.__contains__, words))
    if declared == "en" or (words and english / len(words) >= 0.05):
        return "en"
    if not declared and len(words) < 20:
        return "en"  # a few undeclared Latin words ("Coming soon"): English is the best bet
    return declared if declared in ("th", "my") else "other"


def _items(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, list):
        return [i for d in data for i in _items(d)]
    if isinstance(data, dict):
        return [data, *(_items(data["@graph"]) if "@graph" in data else [])]
    return []


def _text(value: Any) -> str:
    if isinstance(value, list):
        value = value[0] if value else ""
    return " ".join(str(value).split()) if value else ""


def _address(value: Any) -> str:
    if isinstance(value, list):
        value = value[0] if value else ""
    if isinstance(value, dict):
        parts = [value.get(k) for k in ("streetAddress", "addressLocality", "addressRegion",
                                        "postalCode", "addressCountry")]
        return ", ".join(_text(p) for p in parts if _text(p))
    return _text(value)


def _hours(item: dict[str, Any]) -> str:
    hours = item.get("openingHours")
    if hours:
        return "; ".join(hours) if isinstance(hours, list) else _text(hours)
    specs = item.get("openingHoursSpecification")
    if isinstance(specs, dict):
        specs = [specs]
    if isinstance(specs, list):
        parts = []
        for spec in specs:
            if isinstance(spec, dict):
                days = spec.get("dayOfWeek", "")
                days = ",".join(str(d).rsplit("/", 1)[-1] for d in days) if isinstance(
                    days, list) else str(days).rsplit("/", 1)[-1]
                parts.append(f"{days} {spec.get('opens', '')}-{spec.get('closes', '')}")
        return "; ".join(parts)
    return ""

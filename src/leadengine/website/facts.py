"""Facts read from a page's DOM that boilerplate removal throws away.

JSON-LD business data (name, type, address, opening hours, phone) and every JSON-LD
type, the page's h1-h3 headings, and script and iframe sources. Forms are read by
:mod:`leadengine.website.forms`, the street address by :mod:`leadengine.website.location`, the
language by :mod:`leadengine.website.language`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from itertools import islice
from typing import Any
from urllib.parse import urljoin

import lxml.html

from leadengine.website.extract import MAX_SCANNED

_BUSINESS_TYPES = re.compile(
    r"LocalBusiness|Organization|Organisation|Clinic|Dentist|Physician|Hospital|Medical|"
    r"Restaurant|FoodEstablishment|CafeOrCoffeeShop|Bakery|Hotel|LodgingBusiness|Store|"
    r"School|EducationalOrganization|HealthAndBeautyBusiness|DaySpa|BeautySalon|"
    r"ProfessionalService|LegalService|Attorney|RealEstateAgent|HomeAndConstructionBusiness|"
    r"GeneralContractor|Corporation", re.I)
#: JSON-LD blocks read, and objects looked at in them: a page has a few; 100,000 blocks
#: took 0.6 s to parse.
MAX_JSON_LD_BLOCKS = 50
MAX_JSON_LD_ITEMS = 10_000
#: Headings read for the business's category.
MAX_HEADINGS = 60


def json_ld_business(tree: lxml.html.HtmlElement) -> dict[str, Any]:
    """Name, type, address, hours, phone and email of the first business in the JSON-LD."""
    for block in _json_ld_blocks(tree):
        try:
            data = json.loads(block.strip())
        except (ValueError, RecursionError):
            continue  # RecursionError: nested deeper than Python's stack (a hostile page)
        for item in _items(data):
            kinds = item.get("@type", "")
            kinds = " ".join(map(str, kinds)) if isinstance(kinds, list) else str(kinds)
            if not _is_business(kinds, item):
                continue
            business = {"type": kinds, "name": _text(item.get("name")),
                        "address": _address(item.get("address")),
                        "telephone": _text(item.get("telephone")),
                        "email": _text(item.get("email")).removeprefix("mailto:"),
                        "hours": _hours(item),
                        "identifiers": [value for key in IDENTIFIERS
                                        if (value := _text(item.get(key)))]}
            return {k: v for k, v in business.items() if v}
    return {}


#: Registration, tax and company numbers a JSON-LD business may give: never phones.
IDENTIFIERS = ("taxID", "vatID", "leiCode", "duns", "iso6523Code", "globalLocationNumber",
               "naics", "isicV4", "identifier")

#: JSON-LD types that are never the business (pages, parts of pages, things sold).
_NOT_BUSINESS = re.compile(
    r"^(WebSite|WebPage|\w+Page|BreadcrumbList|ListItem|ItemList|SiteNavigationElement|"
    r"WPHeader|WPFooter|ImageObject|VideoObject|Article|BlogPosting|NewsArticle|Person|"
    r"Product|Offer|AggregateOffer|Review|AggregateRating|Event|FAQPage|Question|Answer|"
    r"SearchAction|PostalAddress|GeoCoordinates|OpeningHoursSpecification|Brand|"
    r"ContactPoint|Service|HowTo|Recipe|Menu|MenuItem|MenuSection)$")
#: Properties only a place or an organisation has.
_BUSINESS_KEYS = ("address", "telephone", "openingHours", "openingHoursSpecification",
                  "geo", "priceRange", "areaServed")


def _is_business(kinds: str, item: dict[str, Any]) -> bool:
    """A known business type, or any other type (schema.org has hundreds: Physiotherapy,
    AutoRepair, TravelAgency...) that is not a page, a product or a part of one, with
    a name and a property only a business has (an address, a phone, opening hours)."""
    if _BUSINESS_TYPES.search(kinds):
        return True
    types = kinds.split()
    return bool(types) and not all(_NOT_BUSINESS.match(t) for t in types) and bool(
        item.get("name")) and any(item.get(key) for key in _BUSINESS_KEYS)


def json_ld_types(tree: lxml.html.HtmlElement) -> tuple[list[str], int]:
    """Every ``@type`` of the page's JSON-LD objects, in document order, without repeats
    ("Dentist", "Organization", "WebSite"); and how many businesses the JSON-LD lists:
    the entries of its ``ItemList``s, or its business objects when there is no list (a
    directory lists dozens, a business gives one, or a few branches)."""
    types: list[str] = []
    listed = businesses = 0
    for block in _json_ld_blocks(tree):
        try:
            data = json.loads(block.strip())
        except (ValueError, RecursionError):
            continue
        for item in _items(data):
            kinds = item.get("@type", "")
            for kind in kinds if isinstance(kinds, list) else [kinds]:
                if isinstance(kind, str) and kind and kind not in types:
                    types.append(kind)
            names = " ".join(map(str, kinds)) if isinstance(kinds, list) else str(kinds)
            elements = item.get("itemListElement")
            if "ItemList" in names and isinstance(elements, list):
                listed += len(elements)
            elif _is_business(names, item):
                businesses += 1
    return types[:50], max(listed, businesses)


def headings_of(tree: lxml.html.HtmlElement) -> list[str]:
    """The texts of the page's first :data:`MAX_HEADINGS` h1-h3 headings (each under 200
    characters: a heading that long is a paragraph styled big)."""
    texts = []
    for heading in islice(tree.iter("h1", "h2", "h3"), MAX_HEADINGS):
        text = " ".join(heading.text_content().split())
        if text and len(text) < 200:
            texts.append(text)
    return texts


def _json_ld_blocks(tree: lxml.html.HtmlElement) -> list[str]:
    """The first :data:`MAX_JSON_LD_BLOCKS` JSON-LD scripts (what
    ``//script[@type='application/ld+json']/text()`` gives: walking the scripts in C costs
    a tenth of that XPath's predicate tried on every element of a huge page)."""
    blocks = []
    for script in islice(tree.iter("script"), MAX_SCANNED):
        if script.text is not None and script.get("type") == "application/ld+json":
            blocks.append(script.text)
            if len(blocks) == MAX_JSON_LD_BLOCKS:
                break
    return blocks


def sources_of(url: str, sources: Iterable[str]) -> list[str]:
    """``sources`` (script or iframe addresses) made absolute, without repeats."""
    return list(dict.fromkeys(_join(url, s.strip()) for s in sources if s.strip()))


def _join(base: str, href: str) -> str:
    """``href`` resolved against ``base``; as written if urllib cannot parse it ("http://[x"
    raises ValueError, which would fail the whole page)."""
    try:
        return urljoin(base, href)
    except ValueError:
        return href


def _items(data: Any) -> list[dict[str, Any]]:
    """The objects of a JSON-LD document: each object then its ``@graph``, lists
    flattened, in document order (the first :data:`MAX_JSON_LD_ITEMS`). A loop, not
    recursion: a hostile page nests ``@graph`` deeper than Python's stack."""
    items: list[dict[str, Any]] = []
    stack = [data]
    while stack and len(items) < MAX_JSON_LD_ITEMS:
        value = stack.pop()
        if isinstance(value, list):
            stack.extend(reversed(value))
        elif isinstance(value, dict):
            items.append(value)
            if "@graph" in value:
                stack.append(value["@graph"])
    return items


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
        return "; ".join(map(str, hours)) if isinstance(hours, list) else _text(hours)
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

"""JSON-LD postal addresses: the PostalAddress objects (or plain address strings) of a
page's structured data, and the street, city, region, postcode and country they give."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import lxml.html

from leadengine.website.facts import _items, _json_ld_blocks
from leadengine.website.location.address_features import has_road
from leadengine.website.location.address_patterns import TEMPLATE_ADDRESS
from leadengine.website.location.place_names import cities_in, city_part
from leadengine.website.location.places import Gazetteer, Text
from leadengine.website.location.text_folding import fold
from leadengine.website.location.types import MAX_ADDRESSES, PageClues, Part, quote

#: A JSON-LD block longer than this is not read for addresses (a business's is short).
MAX_JSON_LD_CHARS = 500_000
POSTAL_FIELDS = ("streetAddress", "addressLocality", "addressRegion", "postalCode",
                 "addressCountry")
_PLACEHOLDER = re.compile(
    r"(?:city|town|state|region|province|country|street|street address|address|"
    r"your .*|n/?a|none|null|undefined|tbd|todo|lorem.*|-+|\.+|x+|0+|12345|"
    r"\d+ main st(?:reet)?|123 .*)", re.I)


# --- reading a page's JSON-LD ----------------------------------------------------------


def postal_addresses(tree: lxml.html.HtmlElement) -> list[dict[str, str]]:
    """The addresses of a page's JSON-LD: PostalAddress objects, an item's ``address``
    and its ``location``'s, a plain string as ``{"streetAddress": text}``."""
    found: list[dict[str, str]] = []
    try:
        blocks = _json_ld_blocks(tree)
    except (ValueError, TypeError):
        return found
    for block in blocks:
        if len(block) > MAX_JSON_LD_CHARS:
            continue
        try:
            data = json.loads(block.strip())
        except (ValueError, RecursionError):
            continue
        for item in _items(data):
            kinds = item.get("@type", "")
            kinds = " ".join(map(str, kinds)) if isinstance(kinds, list) else str(kinds)
            values: list[Any] = [item] if "PostalAddress" in kinds else [item.get("address")]
            place = item.get("location")
            if isinstance(place, dict):
                values.append(place.get("address"))
            for value in values:
                found += _postal(value)
            if len(found) >= MAX_ADDRESSES:
                return found[:MAX_ADDRESSES]
    return found


def _postal(value: Any) -> list[dict[str, str]]:
    if isinstance(value, list):
        return [a for v in value[:5] for a in _postal(v)]
    if isinstance(value, str):
        text = " ".join(value.split())[:500]
        return [{"streetAddress": text}] if text else []
    if isinstance(value, dict):
        address = {k: _string(value.get(k)) for k in POSTAL_FIELDS}
        address = {k: v for k, v in address.items() if v}
        return [address] if address else []
    return []


def _string(value: Any) -> str:
    if isinstance(value, list):
        value = value[0] if value else ""
    if isinstance(value, dict):
        value = value.get("name") or value.get("@id") or ""
    if isinstance(value, bool) or value is None:
        return ""
    return " ".join(str(value).split())[:500]


# --- what a site's JSON-LD address gives -------------------------------------------------


def best_postal(pages: Sequence[PageClues]) -> dict[str, str] | None:
    """The first JSON-LD address with the most useful fields (placeholders dropped)."""
    best: dict[str, str] | None = None
    for page in pages:
        for address in page.postal_addresses[:MAX_ADDRESSES]:
            if not isinstance(address, dict):
                continue
            clean = {k: " ".join(str(v).split())[:300] for k, v in address.items()
                     if k in POSTAL_FIELDS and isinstance(v, str)}
            clean = {k: v for k, v in clean.items() if v and not _PLACEHOLDER.fullmatch(v)}
            if clean and (best is None or len(clean) > len(best)):
                best = clean
    return best


def is_plain(postal: dict[str, str] | None) -> bool:
    """Whether a JSON-LD address is a plain string (read as address text)."""
    return postal is not None and set(postal) == {"streetAddress"}


def postal_street(postal: dict[str, str] | None) -> Part | None:
    """A JSON-LD streetAddress, if it is one: a plain address string is read as text."""
    if postal is None or "streetAddress" not in postal or is_plain(postal):
        return None
    value = postal["streetAddress"]
    folded = fold(value)
    # A number or a road: a district alone ("อ.สารภี", "Bang Rak") is not a street.
    if TEMPLATE_ADDRESS.search(folded):
        return None
    if any(c.isdigit() for c in folded) or has_road(folded):
        return Part(value, "JSON-LD streetAddress")
    return None


def postal_city(postal: dict[str, str] | None, country: str | None,
                places: Gazetteer) -> tuple[Part | None, Part | None]:
    """The city of the JSON-LD address: its addressLocality when the gazetteer knows it
    (a district resolved with its addressRegion), and as a fallback a city its region or
    street names, or the locality as written."""
    if postal is None:
        return None, None
    locality = postal.get("addressLocality", "")
    region = postal.get("addressRegion", "")
    if locality:
        text = Text(f"{locality}, {region}" if region else locality)
        hit = cities_in(text, country, places, within=len(locality))
        if hit is not None:
            evidence = "JSON-LD addressLocality"
            name = places.city(hit.row).name
            if hit.named and hit.named != name:
                evidence += f' "{quote(locality, 60)}", in {name}'
            return Part(name, evidence), None
    for key in ("addressRegion", "streetAddress"):
        if postal.get(key):
            hit = cities_in(Text(postal[key]), country, places)
            if hit is not None:
                return None, city_part(hit, f"JSON-LD {key}", places)
    return None, Part(locality, "JSON-LD addressLocality") if locality else None


def postal_field(postal: dict[str, str] | None, key: str, places: Gazetteer) -> Part | None:
    """The JSON-LD postalCode (normalised) or addressRegion (the gazetteer's name)."""
    value = (postal or {}).get(key, "")
    if not value or (key == "addressRegion" and value.isdigit()):
        return None
    if key == "postalCode":
        value = fold(value).upper()
    elif key == "addressRegion":
        hit = next(iter(places.region_index.find(Text(value))), None)
        if hit is not None and hit.end - hit.start >= len(value.strip(" .")) - 2:
            value = places.regions[hit.rows[0]].name
    return Part(value, f"JSON-LD {key}")


def postal_country(postal: dict[str, str] | None, places: Gazetteer) -> Part | None:
    """The JSON-LD addressCountry as an ISO code (a code, "UK" or a country's name)."""
    value = (postal or {}).get("addressCountry", "")
    if not value:
        return None
    code = value.strip().upper()
    if len(code) == 2 and code in places.countries:
        return Part(code, "JSON-LD addressCountry")
    if code == "UK":
        return Part("GB", "JSON-LD addressCountry")
    hits = places.country_index.find(Text(value))
    if hits:
        return Part(places.country_rows[hits[0].rows[0]], "JSON-LD addressCountry")
    return None


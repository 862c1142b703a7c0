"""Where a business is, against the knowledge base's target markets: the
:class:`Location` fact, read from the site's location clues (:mod:`leadengine.website.location`)
and the places its text names, with the clues' disagreements noted."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import phonenumbers

from leadengine.knowledge.keywords import Count
from leadengine.knowledge.rules import Place, Rules
from leadengine.website.location import Part, SiteLocation, country_name


@dataclass(frozen=True)
class Location:
    """Where the business is, as far as the site says."""

    #: The street address as found on the pages ("" when none).
    address: str = ""
    city: str | None = None
    country: str | None = None
    #: Province, state or region, and postal code, when the site gives them.
    region: str | None = None
    postal_code: str | None = None
    #: The country's ISO 3166-1 alpha-2 code ("TH").
    country_code: str | None = None
    #: True in a target market, False in a known place outside them, None when the site
    #: names no place of the knowledge base's geography.
    in_target_geography: bool | None = None
    #: Why: where the place (or the country alone) was read.
    evidence: str = ""
    #: The knowledge base's geography entry the site names, target or not.
    place: Place | None = None
    #: How the location's clues disagree ("" when they do not): then whether the site is
    #: in a target market is not known (``in_target_geography`` None).
    conflict: str = ""

    @property
    def target(self) -> Place | None:
        """The target market the business is in, if it is in one."""
        return self.place if self.in_target_geography else None

    @property
    def out_of_market(self) -> Place | None:
        """The known place outside the target markets where the business is, if any."""
        return self.place if self.in_target_geography is False else None



def locate(rules: Rules, web: SiteLocation, count_text: Count, address: str) -> Location:
    """Where the business is, against the knowledge base's target cities: the city its
    address, JSON-LD or map links give (:mod:`leadengine.website.location`); else the place
    of the geography its text names most (a target market unless a known place outside
    them is named more); else the city its phones' area code gives; else the country
    alone. A city that is not a target city is outside the target markets, and so is a
    country that has none."""
    code = web.country.value if web.country else None
    country = country_name(code) if code else None
    base = Location(address=address, region=web.region.value if web.region else None,
                    postal_code=web.postal_code.value if web.postal_code else None,
                    country=country, country_code=code)
    strong = web.city if web.city and not web.city.evidence.startswith("phone") else None
    if strong is not None:
        return _city_location(rules.places, strong, base)
    place, evidence = _place(rules.places, count_text, "in the site's text")
    if place is not None:
        return replace(base, city=place.name, country=place.country,
                       in_target_geography=place.target, evidence=evidence, place=place)
    if web.city is not None:
        return _city_location(rules.places, web.city, base)
    if country is None:
        return replace(base, evidence="no place named on the site")
    evidence = f"{country} ({web.country.evidence if web.country else ''})"
    targets = [p for p in rules.places if p.target]
    if any(_same_country(p.country, code, country) for p in targets):
        return replace(base, evidence=evidence)
    outside = Place(name=country, country=country, aliases=[country], target=False)
    names = ", ".join(p.name for p in targets) or "none"
    return replace(base, in_target_geography=False, place=outside,
                   evidence=f"{evidence}: no target city there (targets: {names})")


def location_conflict(location: Location, web: SiteLocation, phones: Sequence[str]) -> str:
    """How the clues of a site's location disagree, or "": a place read from the address,
    the text or the domain in one country while every phone number on the site is from
    another (a business lists at least one local number)."""
    if not location.country or not phones or not location.city:
        return ""
    if any(part is not None and part.evidence.startswith("phone")
           for part in (web.city, web.country)):
        return ""  # the place was read from the phones themselves
    countries = dict.fromkeys(phone_country_name(p) for p in phones[:10])
    if "" in countries or location.country.lower() in (c.lower() for c in countries):
        return ""
    named = ", ".join(c for c in countries)
    return (f"{location.city} is in {location.country}, but every phone number on the "
            f"site is from {named}")


@functools.lru_cache(maxsize=4096)
def phone_country_name(e164: str) -> str:
    """The country of an E.164 number, "" when unknown."""
    try:
        code = phonenumbers.region_code_for_number(phonenumbers.parse(e164, None))
    except phonenumbers.NumberParseException:
        return ""
    return country_name(code) if code and code != "ZZ" else ""


_REGION_WORD = re.compile(r"\s+(region|province|division|state|prefecture)$")


def _city_location(geography: Sequence[Place], city: Part, base: Location) -> Location:
    """The location of a city read from the site: the geography's place it names (its
    region may: a town in "Yangon Region"), else a place outside the target markets."""
    for name in (city.value, base.region or ""):
        key = _REGION_WORD.sub("", name.lower()).strip()
        place = next((p for p in geography if key and (
            key == p.name.lower() or key in (a.lower() for a in p.aliases))), None)
        if place is not None:
            where = "a target city" if place.target else "outside the target markets"
            return replace(base, city=place.name, country=place.country,
                           in_target_geography=place.target, place=place,
                           evidence=f"{place.name}, {where} ({city.evidence})")
    targets = ", ".join(p.name for p in geography if p.target) or "none"
    outside = Place(name=city.value, country=base.country or "", aliases=[city.value],
                    target=False)
    return replace(base, city=city.value, in_target_geography=False, place=outside,
                   evidence=f"{city.value}, not a target city ({targets}): {city.evidence}")


def _same_country(name: str, code: str | None, country: str) -> bool:
    return name.lower() in (country.lower(), (code or "").lower())


def _place(geography: Sequence[Place], count: Count, where: str) -> tuple[Place | None, str]:
    counts = {p.name: count(p.aliases) for p in geography}
    target = max((p for p in geography if p.target and counts[p.name]),
                 key=lambda p: counts[p.name], default=None)
    other = max((p for p in geography if not p.target and counts[p.name]),
                key=lambda p: counts[p.name], default=None)
    if other is not None and (target is None or counts[other.name] > counts[target.name]):
        also = f", more than {target.name} ({counts[target.name]}×)" if target else ""
        return other, f"{other.name} named {counts[other.name]}× {where}{also}"
    if target is not None:
        return target, f"{target.name} named {counts[target.name]}× {where}"
    return None, ""

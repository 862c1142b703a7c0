"""Where a site's phones say it is: their country code, and the city of a fixed line's
area code (libphonenumber's geocoder; Myanmar's area codes from a table of its own)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import islice

import phonenumbers

from leadengine.website.location.place_names import cities_in
from leadengine.website.location.places import Gazetteer, Text
from leadengine.website.location.types import Part

#: Phones read per site.
MAX_PHONES = 30
#: Myanmar's fixed-line area codes: libphonenumber's geocoder says only "Myanmar".
_MM_AREAS = {"1": "Yangon", "2": "Mandalay", "67": "Nay Pyi Taw", "42": "Pathein",
             "52": "Bago", "57": "Mawlamyine", "81": "Taunggyi", "74": "Myitkyina"}


def phone_numbers(phones: Sequence[str]) -> list[phonenumbers.PhoneNumber]:
    """The first :data:`MAX_PHONES` phones (E.164) that parse."""
    numbers = []
    for phone in islice(phones, MAX_PHONES):
        if not isinstance(phone, str) or not phone.strip().startswith("+"):
            continue
        try:
            numbers.append(phonenumbers.parse(phone.strip()[:40]))
        except phonenumbers.NumberParseException:
            continue
    return numbers


def phone_country(numbers: Sequence[phonenumbers.PhoneNumber]) -> tuple[str, str] | None:
    """The country most phones' country codes name, and the evidence."""
    regions = Counter(r for r in (phonenumbers.region_code_for_number(n) for n in numbers)
                      if r and r not in ("ZZ", "001"))
    if not regions:
        return None
    region = regions.most_common(1)[0][0]
    return region, f"phone country code +{phonenumbers.country_code_for_region(region)}"


def phone_city(numbers: Sequence[phonenumbers.PhoneNumber], country: str | None,
               places: Gazetteer) -> Part | None:
    """The city of the first fixed-line number's area code (a mobile says nothing)."""
    for number in numbers:
        region = phonenumbers.region_code_for_number(number)
        if not region or (country and region != country):
            continue
        national = phonenumbers.national_significant_number(number)
        if region == "MM":
            area = next((national[:n] for n in (2, 1) if national[:n] in _MM_AREAS), "")
            description = _MM_AREAS.get(area, "") if not national.startswith("9") else ""
        else:
            kind = phonenumbers.number_type(number)
            if kind not in (phonenumbers.PhoneNumberType.FIXED_LINE,
                            phonenumbers.PhoneNumberType.FIXED_LINE_OR_MOBILE):
                continue
            from phonenumbers import geocoder  # 0.3 s to import: only when needed

            description = geocoder.description_for_number(number, "en")
            area = national[:phonenumbers.length_of_geographical_area_code(number)]
        # "Chachoengsao/Chon Buri/Rayong": the biggest city the code covers; "Pune,
        # Maharashtra": the city; "Singapore": a city-state's city.
        rows = []
        for name in description.split("/"):
            hit = cities_in(Text(name.split(",")[0].strip()), region, places)
            if hit is not None and places.city(hit.row).country == region:
                rows.append(hit.row)
        if rows:
            where = f"area code +{number.country_code} {area}" if area else \
                f"country code +{number.country_code}"
            return Part(places.city(min(rows)).name, f"phone {where}")
    return None

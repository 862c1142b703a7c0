"""Finding places in a text with the gazetteer: the city, region, country and postcodes an
address (or a JSON-LD field, a map query, a phone's area) names. Read only inside such
texts, never across a page's whole text."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from leadengine.website.location.address_features import (
    STREET_ABBREVIATIONS,
    STREET_WORDS,
    Postcode,
    find_postcodes,
)
from leadengine.website.location.places import (
    AMBIGUOUS_NAMES,
    Gazetteer,
    Hit,
    Text,
    postcode_format,
)
from leadengine.website.location.types import Part

#: Words before a place name that make it a street's or building's name ("Soi Bangkok",
#: "Jalan Ipoh", "Menara Binjai").
_STREET_BEFORE = frozenset("soi thanon jalan jln lorong rue calle via avenida rua menara "
                           "wisma bangunan gedung taman".split())
#: Thai markers a short Thai place name must follow (น่าน is a province after จ.).
_THAI_MARKERS = ("จ.", "จังหวัด", "อ.", "อำเภอ", "เมือง", "ต.", "ตำบล", "เขต", "แขวง")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
#: A place named with a bigger city this near is part of it ("Hinjewadi, Pune").
CONTAINED_KM = 25.0


@dataclass(frozen=True)
class CityHit:
    row: int
    hit: Hit
    named: str  # the place named, when it is a district of ``row``


def usable(text: Text, hit: Hit) -> bool:
    """Whether a name is a place here: not a street's name ("Dundas St", "Soi Ari"), a
    Korean name not inside a longer word (대구 in 해운대구), a short Thai name only after
    จ./อ./เขต..., a Chinese one not as a road's name (中山路)."""
    key, folded = hit.key, text.folded
    if key.isascii():
        after = next((t[2] for t in text.tokens if t[0] >= hit.end), "")
        before = next((t[2] for t in reversed(text.tokens) if t[1] <= hit.start), "")
        return after not in STREET_WORDS and after not in STREET_ABBREVIATIONS \
            and before not in _STREET_BEFORE
    if _HANGUL.match(key):
        before, after = folded[hit.start - 1:hit.start], folded[hit.end:hit.end + 1]
        return not (before and _HANGUL.match(before)) and not (
            after and _HANGUL.match(after) and after not in "시구군도동읍면리특광")
    if len(key) <= 4 and "\u0e00" <= key[0] <= "\u0e7f":
        return any(m in folded[max(0, hit.start - 9):hit.start] for m in _THAI_MARKERS)
    if "\u4e00" <= key[-1] <= "\u9fff":
        return folded[hit.end:hit.end + 1] not in ("路", "街", "巷", "道", "通")
    return True


def cities_in(text: Text, country: str | None, places: Gazetteer,
              anchors: Sequence[tuple[int, int]] = (), within: int | None = None
              ) -> CityHit | None:
    """The city a text names (among names starting before ``within``, if given): in the
    site's country first; a district resolved to the city that contains it; a name that
    is also the region's only if no other city is named ("Pattaya, Chon Buri"); then the
    name next to a postcode or region; then the biggest. A name several cities of a
    country share (Kita-ku, 중구) counts only inside a city named with it."""
    regions = [(h.start, h.end, {places.regions[r].country for r in h.rows})
               for h in places.region_index.find(text)]

    def in_region(hit: Hit, country: str) -> bool:
        return any(country in countries and start < hit.end and hit.start < end
                   for start, end, countries in regions)

    found = _city_names(text, country, places)
    named = {rows[0] for rows, hit in found if not _shared(rows, hit.key, places)
             and not in_region(hit, places.city(rows[0]).country)}
    options = []
    for rows, hit in found:
        if within is not None and hit.start >= within:
            continue
        if _shared(rows, hit.key, places):
            inside = [(r, c) for r in rows if (c := _container(r, named - {r}, places, True)) != r]
            if not inside:
                continue
            row, container = inside[0]
        else:
            row = rows[0]
            container = _container(row, named, places)
        named_as = places.city(row).name if container != row else ""
        options.append(CityHit(container, hit, named_as))
    if not options:
        return None
    every = options
    cities = [o for o in options if not in_region(o.hit, places.city(o.row).country)
              and (country is None or places.city(o.row).country == country)]
    options = cities or options
    # A city far from the region named with it is a namesake elsewhere; with no city near
    # it, the city the region is called after ("東京都" -> Tokyo) is the answer.
    options = (_near_named_region(options, regions, text, places)
               or _near_named_region(every, regions, text, places) or options)

    def rank(item: CityHit) -> tuple[bool, float, bool]:
        city = places.city(item.row)
        near = any(0 <= start - item.hit.end <= 4 or 0 <= item.hit.start - end <= 3
                   for start, end in anchors)
        return (country is None or city.country == country,
                math.log10(max(city.population, 10)) + 3 * near, not item.named)

    return max(options, key=rank)


def _city_names(text: Text, country: str | None, places: Gazetteer
                ) -> list[tuple[list[int], Hit]]:
    """The city names of ``text`` worth reading, each with its cities (those of
    ``country`` first): an ambiguous name, or a small town, abroad is left out."""
    found: list[tuple[list[int], Hit]] = []
    for hit in places.city_index.find(text):
        if not usable(text, hit):
            continue
        rows = [r for r in hit.rows if places.city(r).country == country] if country else []
        rows = rows or list(hit.rows)
        city = places.city(rows[0])
        if (_ambiguous(hit.key) and city.country != country) or (
                country and city.country != country and city.population < 100_000):
            continue
        found.append((rows, hit))
    return found


#: A city farther than this from the city its named region is called after is a
#: namesake elsewhere: 春日 (Kasuga, Fukuoka) in "東京都練馬区春日町".
REGION_KM = 300.0


def _near_named_region(options: list[CityHit], regions: Sequence[tuple[int, int, set[str]]],
                       text: Text, places: Gazetteer) -> list[CityHit]:
    """The options near the city a named region is called after (Tokyo for 東京都, Chiang
    Mai for จังหวัดเชียงใหม่), when the text names such a region; [] when it names none,
    or no option is near it (the caller keeps them all)."""
    anchors = []
    for start, end, countries in regions:
        for hit in places.city_index.find(Text(text.folded[start:end])):
            anchors += [places.city(r) for r in hit.rows if places.city(r).country in countries]
    if not anchors:
        return []
    return [o for o in options if any(
        _km(places.city(o.row).lat, places.city(o.row).lng, a.lat, a.lng) <= REGION_KM
        for a in anchors)]


def city_part(hit: CityHit, evidence: str, places: Gazetteer) -> Part:
    """The city of a hit as a location part (a district named says which city it is in)."""
    name = places.city(hit.row).name
    if hit.named and hit.named != name:
        evidence += f" ({hit.named}, in {name})"
    return Part(name, evidence)


def _ambiguous(key: str) -> bool:
    """Whether a name is a common word, or a common word with a ward's suffix."""
    words = key.split()
    return key in AMBIGUOUS_NAMES or (
        len(words) == 2 and words[1] in ("ku", "gu", "ward") and words[0] in AMBIGUOUS_NAMES)


def _shared(rows: Sequence[int], key: str, places: Gazetteer) -> bool:
    """Whether a name belongs to several cities of one country, none far the biggest, or
    is a ward name many cities have (Kita-ku, Chuo-ku)."""
    words = key.split()
    if len(words) == 2 and words[1] in ("ku", "gu", "ward") and words[0] in AMBIGUOUS_NAMES:
        return True
    if len(rows) < 2:
        return False
    first, second = places.city(rows[0]), places.city(rows[1])
    return first.country == second.country and first.population < 5 * second.population


def _container(row: int, named: set[int], places: Gazetteer, only_named: bool = False
               ) -> int:
    """The city ``row`` is part of: its parent in the gazetteer (a ward, a district; with
    ``only_named``, only if the parent is named too), else the biggest city named with it
    that is near and bigger, else itself."""
    city = places.city(row)
    if city.parent >= 0 and (not only_named or city.parent in named):
        return city.parent
    best = row
    for other in named:
        big = places.city(other)
        if big.population > places.city(best).population and big.country == city.country \
                and _km(city.lat, city.lng, big.lat, big.lng) <= CONTAINED_KM:
            best = other
    return best


def _km(lat: float, lng: float, lat2: float, lng2: float) -> float:
    scale = max(math.cos(math.radians((lat + lat2) / 2)), 0.05)
    return 111.2 * math.hypot((lng2 - lng) * scale, lat2 - lat)


_ABBREVIATION = re.compile(r"(?:^|[,\s])([A-Z]{2,3})\s+([A-Z]\d[A-Z] ?\d[A-Z]\d|\d{4,5})"
                           r"(?:-\d{4})?\b")
_FINAL_ABBREVIATION = re.compile(r",\s*([A-Z]{2,3})\s*$")


def region_in(text: Text, country: str | None, places: Gazetteer) -> tuple[int, str] | None:
    """The region a text names (row, the name as written)."""
    for hit in places.region_index.find(text):
        if not usable(text, hit):
            continue
        for row in hit.rows:
            region = places.regions[row]
            if country and region.country != country:
                continue
            if not country and hit.key.isascii() and len(hit.key) < 5:
                continue
            return row, text.original[hit.start:hit.end]
    for match in _ABBREVIATION.finditer(text.original):
        for row in places.abbreviations.get(match.group(1), ()):
            region = places.regions[row]
            fmt = postcode_format(region.country)
            if (not country or region.country == country) and fmt is not None and \
                    fmt.fullmatch(match.group(2).replace(" ", "") if region.country != "CA"
                                  else match.group(2)):
                return row, match.group(1)
    end = _FINAL_ABBREVIATION.search(text.original)
    if end:  # "Austin, TX": the abbreviation of one region of the country
        rows = [r for r in places.abbreviations.get(end.group(1), ())
                if not country or places.regions[r].country == country]
        if len(rows) == 1:
            return rows[0], end.group(1)
    return None


def country_in(text: Text, places: Gazetteer) -> str | None:
    """A country named in an address: at its end in Latin ("..., Thailand"), anywhere in
    another script (ประเทศไทย, 日本)."""
    for hit in reversed(places.country_index.find(text)):
        tail = text.folded[hit.end:]
        if not hit.key.isascii() or sum(c.isalpha() for c in tail) <= 3:
            return places.country_rows[hit.rows[0]]
    return None


def postcodes_in(text: Text, country: str | None) -> list[Postcode]:
    """The postcodes of a text that fit ``country``'s format (any usual shape if the
    country is unknown; a bare 4-digit number only at the end)."""
    found = []
    fmt = postcode_format(country) if country else None
    for code in find_postcodes(text.folded):
        if code.kind == "d4" and any(c.isalnum() for c in text.folded[code.end:]):
            continue  # 4 digits mid-text are a year or a number more often than a postcode
        if country:
            if fmt is None:
                continue
            compact = code.value.replace("-", "").replace(" ", "")
            if not (fmt.fullmatch(code.value) or fmt.fullmatch(compact)):
                continue
        found.append(code)
    return found

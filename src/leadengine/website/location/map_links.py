"""Map links and embeds (Google, Kakao, Naver, Apple maps, OpenStreetMap): which links are
maps, the query (an address or a place's name) and coordinates they hold, and the city
they point at."""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlsplit

from leadengine.website.location.place_names import cities_in, city_part
from leadengine.website.location.places import Gazetteer, Text
from leadengine.website.location.types import Part

_MAP_HOSTS = re.compile(r"(?:^|\.)(?:google\.[a-z.]+|goo\.gl|map\.kakao\.com|"
                        r"map\.naver\.com|naver\.me|maps\.apple\.com|openstreetmap\.org|"
                        r"osm\.org)$")
_COORDS = re.compile(r"(-?\d{1,2}\.\d+)\s*,\s*(-?\d{1,3}\.\d+)")
#: A map query written as an address, not a business's name.
_ADDRESS_LIKE = re.compile(r"\d|,|、|،")


def host(url: str) -> str | None:
    """A URL's host name (None if it does not parse)."""
    try:
        return urlsplit(url.strip()).hostname
    except ValueError:
        return None


def is_map_link(href: str) -> bool:
    """Whether a link's or an embed's address points to a map."""
    if not ("map" in href or "goo.gl" in href or "naver.me" in href) or len(href) >= 4000:
        return False
    name = host(href) or ""
    return bool(_MAP_HOSTS.search(name)) and (
        "google" not in name or "/maps" in href or name.startswith("maps.")
        or name == "maps.app.goo.gl")


@dataclass(frozen=True)
class MapClue:
    query: str
    coords: tuple[float, float] | None
    evidence: str


def read_map_link(link: str) -> MapClue | None:
    """The query (an address or a place's name) and coordinates of a map link."""
    try:
        parts = urlsplit(link.strip())
    except ValueError:
        return None
    hostname = (parts.hostname or "").lower()
    params = parse_qs(parts.query)
    path = unquote(parts.path)

    service, query, where, coords = "", "", "", None
    if "kakao" in hostname:
        service = "Kakao Map"
        match = re.search(r"/link/(?:map|to|roadview)/([^,/]+)(?:,(-?[\d.]+),(-?[\d.]+))?", path)
        if match:
            query, where = match.group(1), "link"
            if match.group(2):
                coords = _coords(match.group(2), match.group(3))
        else:
            where, query = _param(params, "q", "query")
    elif "naver" in hostname:
        service = "Naver Map"
        match = re.search(r"/(?:search|p/search|v5/search)/([^/]+)", path)
        query, where = (match.group(1), "search") if match else ("", "")
        if not query:
            where, query = _param(params, "query", "q")
    elif "apple" in hostname:
        service = "Apple Maps"
        where, query = _param(params, "q", "address", "daddr")
        name, value = _param(params, "ll", "sll")
        coords = _coords_text(value) if name else None
    elif "openstreetmap" in hostname or hostname.endswith("osm.org"):
        service = "OpenStreetMap"
        where, query = _param(params, "query")
        lat, lng = _param(params, "mlat")[1], _param(params, "mlon")[1]
        coords = _coords(lat, lng) if lat and lng else None
        match = re.search(r"map=\d+/(-?[\d.]+)/(-?[\d.]+)", parts.fragment)
        if coords is None and match:
            coords = _coords(match.group(1), match.group(2))
    else:
        service = "Google Maps"
        query, where, coords = _google(path, params)
    query = " ".join(query.replace("+", " ").split())[:300]
    if query and _COORDS.fullmatch(query.removeprefix("loc:").strip()):
        coords, query = coords or _coords_text(query), ""
    if query:
        evidence = f"{service} link " + (
            f"{where}/{query}" if where in ("place", "search") else
            query if where == "link" else f"{where}={query}")
    elif coords is not None:
        evidence = f"{service} link @{coords[0]:.4f},{coords[1]:.4f}"
    else:
        return None
    return MapClue(query, coords, evidence)


def _param(params: dict[str, list[str]], *names: str) -> tuple[str, str]:
    """The first of ``names`` the query string gives a value, and its value."""
    for name in names:
        values = params.get(name)
        if values and values[0].strip():
            return name, " ".join(values[0].split())
    return "", ""


def _google(path: str, params: dict[str, list[str]]
            ) -> tuple[str, str, tuple[float, float] | None]:
    """A Google Maps link's query, where it was read from, and its coordinates."""
    coords: tuple[float, float] | None = None
    where, query = _param(params, "q", "query", "destination", "daddr", "address")
    match = re.search(r"/maps/(?:place|search)/([^/@]+)", path)
    if not query and match:
        query, where = match.group(1).replace("+", " "), "place"
    pb = params.get("pb", [""])[0]
    named = re.search(r"!1s0x[0-9a-f]+(?::|%3A)0x[0-9a-f]+!2s([^!]+)", pb, re.I)
    if not query and named:
        query, where = unquote(named.group(1)).replace("+", " "), "place"
    match = re.search(r"@(-?\d+\.\d+),(-?\d+\.\d+)", path)
    lat_lng = re.search(r"!3d(-?\d+\.\d+)", pb), re.search(r"!2d(-?\d+\.\d+)", pb)
    if match:
        coords = _coords(match.group(1), match.group(2))
    elif lat_lng[0] and lat_lng[1]:
        coords = _coords(lat_lng[0].group(1), lat_lng[1].group(1))
    else:
        name, value = _param(params, "ll", "center", "sll")
        coords = _coords_text(value) if name else None
    return query, where, coords


def _coords_text(text: str) -> tuple[float, float] | None:
    match = _COORDS.search(text)
    return _coords(match.group(1), match.group(2)) if match else None


def _coords(lat: str, lng: str) -> tuple[float, float] | None:
    """Coordinates, unless out of range or a template's placeholder (13.12345678...)."""
    if any(run in value for value in (lat, lng) for run in ("12345", "23456")):
        return None
    try:
        point = float(lat), float(lng)
    except ValueError:
        return None
    if not (-90 <= point[0] <= 90 and -180 <= point[1] <= 180) or point == (0.0, 0.0):
        return None
    return point


def nearest_city(point: tuple[float, float], places: Gazetteer) -> tuple[int, float] | None:
    """The city at ``point``: big and near (every 5 km away counts as a tenth of the
    population), within 25 km; a district gives its city."""
    lat, lng = point
    low = bisect_left(places.by_lat, (lat - 0.25, -1))
    high = bisect_right(places.by_lat, (lat + 0.25, places.size))
    best: tuple[float, int, float] | None = None
    scale = max(math.cos(math.radians(lat)), 0.05)
    for _, row in places.by_lat[low:high]:
        city = places.city(row)
        km = 111.2 * math.hypot((city.lng - lng) * scale, city.lat - lat)
        if km > 25:
            continue
        score = math.log10(max(city.population, 10)) - km / 5
        if best is None or score > best[0]:
            best = (score, row, km)
    if best is None:
        return None
    row = best[1]
    parent = places.city(row).parent
    return (parent if parent >= 0 else row), best[2]


def map_city(maps: Sequence[MapClue], country: str | None, places: Gazetteer) -> Part | None:
    """A city named in a map link's query, else the city at its coordinates."""
    for clue in maps:
        if clue.query:
            hit = cities_in(Text(clue.query), country, places)
            # A query is often the business's name ("Paris Bakery"): with no country
            # known, a Latin city name counts only in a query written as an address.
            if hit is not None and (places.city(hit.row).country == country or (
                    country is None and (not hit.hit.key.isascii()
                                         or _ADDRESS_LIKE.search(clue.query)))):
                return city_part(hit, clue.evidence, places)
    for clue in maps:
        if clue.coords is not None:
            near = nearest_city(clue.coords, places)
            if near is not None and (country is None or
                                     places.city(near[0]).country == country):
                row, km = near
                return Part(places.city(row).name,
                            f"{clue.evidence} ({km:.0f} km from {places.city(row).name})")
    return None


#: Head metadata that places a page: a place name, coordinates, or an ISO 3166-2 region.
GEO_NAMES = ("geo.placename", "og:locality", "business:contact_data:locality",
             "place:location:locality")
GEO_POSITIONS = ("geo.position", "icbm", "place:location:latitude")


def geo_clues(meta: Sequence[tuple[str, str]]) -> list[MapClue]:
    """Map-like clues from a page's geo metadata: ``geo.placename`` and ``og:locality``
    name a place (read like a map link's query), ``geo.position`` and ``ICBM`` give its
    coordinates ("13.7563;100.5018")."""
    clues = []
    for name, content in meta:
        content = " ".join(content.split())[:200]
        if not content:
            continue
        if name in GEO_NAMES:
            clues.append(MapClue(content, None, f'meta {name} "{content}"'))
        elif name in GEO_POSITIONS:
            point = _coords_text(content.replace(";", ","))
            if point is not None:
                clues.append(MapClue("", point, f'meta {name} "{content}"'))
    return clues


def geo_country(meta: Sequence[tuple[str, str]]) -> tuple[str, str] | None:
    """(ISO country code, evidence) from ``geo.region`` ("TH-10") or
    ``og:country-name``'s code, if the page's head has one."""
    for name, content in meta:
        code = content.strip().upper()
        if name == "geo.region" and len(code) >= 2 and code[:2].isalpha() and (
                len(code) == 2 or code[2] == "-"):
            return code[:2], f'meta geo.region "{content.strip()[:20]}"'
    return None

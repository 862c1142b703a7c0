"""The third-party services a site uses to take bookings, orders and enquiries.

The services are data, not code: ``leadengine/data/services.yaml`` lists each one with its
kinds (booking, ordering, shop, form) and the URL or script patterns that show it. Each
pattern begins with a literal host or path, found with a fast scan before the regex runs,
so the whole catalogue costs a few milliseconds on a page of thousands of links. A broken
entry stops the load with a one-line error naming it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from leadengine.errors import ConfigError
from leadengine.knowledge.yaml_data import safe_load
from leadengine.website.signal_rules import Rule

#: The catalogue shipped with the engine.
CATALOGUE = Path(__file__).resolve().parent.parent / "data" / "services.yaml"
KINDS = ("booking", "ordering", "shop", "form")
SEGMENTS = ("appointment", "restaurant", "hotel", "delivery", "marketplace", "store")
#: Literal characters a pattern must begin with (what the fast scan looks for).
MIN_PREFIX = 4
_META = set(".^$*+?{}[]|()\\")
_QUANTIFIERS = set("?*{")


@dataclass(frozen=True)
class Service:
    """One entry of the catalogue."""

    name: str
    kinds: tuple[str, ...]
    segment: str | None
    platform: bool
    rule: Rule


@dataclass(frozen=True)
class ServiceHit:
    """A service the site uses, and where it was seen."""

    service: Service
    #: "link", "script", "iframe", "form action" or "inline script".
    where: str
    #: The address (or script line) that shows it.
    evidence: str

    def as_dict(self) -> dict[str, Any]:
        """The hit as the profile's ``services`` list shows it."""
        return {"name": self.service.name, "kinds": list(self.service.kinds),
                "segment": self.service.segment, "platform": self.service.platform,
                "where": self.where, "evidence": self.evidence}


@functools.cache
def _default_catalogue() -> tuple[Service, ...]:
    return load_catalogue(CATALOGUE)


def catalogue(path: Path | None = None) -> tuple[Service, ...]:
    """The services of ``path`` (default: the shipped catalogue, loaded once)."""
    return _default_catalogue() if path is None else load_catalogue(path)


def load_catalogue(path: Path) -> tuple[Service, ...]:
    """Read and check a catalogue file; ConfigError naming the file and entry if bad."""
    try:
        data = safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the service catalogue ({exc})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}:{where} invalid YAML in the service catalogue") from None
    entries = data.get("services") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{path}: the service catalogue needs a non-empty 'services' list")
    services = [_service(path, i, entry) for i, entry in enumerate(entries, 1)]
    names = [s.name.lower() for s in services]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate:
        raise ConfigError(f"{path}: service {duplicate!r} is listed twice")
    return tuple(services)


def _service(path: Path, number: int, entry: Any) -> Service:
    label = f"{path}: service #{number}"
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        raise ConfigError(f"{label}: each service needs a 'name'")
    label = f"{path}: service {entry['name']!r}"
    unknown = set(entry) - {"name", "kind", "segment", "patterns", "platform"}
    if unknown:
        raise ConfigError(f"{label}: unknown key(s) {', '.join(sorted(unknown))}")
    kinds = entry.get("kind")
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if not isinstance(kinds, list) or not kinds or any(k not in KINDS for k in kinds):
        raise ConfigError(f"{label}: 'kind' must be one or more of {', '.join(KINDS)}")
    segment = entry.get("segment")
    if segment is not None and segment not in SEGMENTS:
        raise ConfigError(f"{label}: 'segment' must be one of {', '.join(SEGMENTS)}")
    if not isinstance(entry.get("platform", False), bool):
        raise ConfigError(f"{label}: 'platform' must be true or false")
    patterns = entry.get("patterns")
    if not isinstance(patterns, list) or not patterns or not all(
            isinstance(p, str) for p in patterns):
        raise ConfigError(f"{label}: 'patterns' must be a list of regular expressions")
    return Service(entry["name"], tuple(kinds), segment, entry.get("platform", False),
                   Rule(*(_branch(label, p) for p in patterns)))


def _branch(label: str, pattern: str) -> tuple[str, str]:
    """(literal prefix, regex rest) of ``pattern``; ConfigError if it is not a valid
    regex, has a top-level ``|``, or begins with fewer than :data:`MIN_PREFIX` literals."""
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ConfigError(f"{label}: pattern {pattern!r} is not a valid regular expression "
                          f"({exc})") from None
    if _top_level_bar(pattern):
        raise ConfigError(f"{label}: pattern {pattern!r} has a top-level '|': write each "
                          "alternative as its own pattern")
    literal, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern) and not pattern[i + 1].isalnum():
            char, step = pattern[i + 1], 2
        elif char in _META:
            break
        else:
            step = 1
        if i + step < len(pattern) and pattern[i + step] in _QUANTIFIERS:
            break  # "ab?": the b is optional, so not part of the prefix
        literal.append(char)
        i += step
    if len(literal) < MIN_PREFIX:
        raise ConfigError(f"{label}: pattern {pattern!r} must begin with at least "
                          f"{MIN_PREFIX} literal characters (a host or a path)")
    return "".join(literal), pattern[i:]


def _top_level_bar(pattern: str) -> bool:
    depth, i, in_class = 0, 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            return True
        i += 1
    return False


def find_services(texts: Sequence[tuple[str, str]],
                  services: Iterable[Service] | None = None) -> list[ServiceHit]:
    """The services seen in ``texts``: (where, lower-cased text) pairs searched in order,
    so a service's evidence comes from the first place that shows it. Which of the
    catalogue's literal prefixes each text holds is found first (a substring search
    each), and only the services with one of them are searched, in catalogue order (a
    small page: 0.6 -> 0.1 ms; walking the whole catalogue per text to find them cost
    half of that again)."""
    chosen = catalogue() if services is None else tuple(services)
    index = _default_index() if chosen is _default_catalogue() else _Index.of(chosen)
    present = [{prefix for prefix in index.prefixes if prefix in text} for _, text in texts]
    held_anywhere = set().union(*present)
    hits = []
    for number in sorted({n for prefix in held_anywhere for n in index.by_prefix[prefix]}):
        service = chosen[number]
        for (where, text), held in zip(texts, present, strict=True):
            if held.isdisjoint(service.rule.prefixes):
                continue
            match = service.rule.search(text)
            if match is not None:
                hits.append(ServiceHit(service, where, _line(text, match)))
                break
    return hits


@dataclass(frozen=True)
class _Index:
    """A catalogue's literal prefixes, each with the positions of the services that have
    it."""

    prefixes: tuple[str, ...]
    by_prefix: dict[str, tuple[int, ...]]

    @classmethod
    def of(cls, services: Sequence[Service]) -> _Index:
        by_prefix: dict[str, list[int]] = {}
        for number, service in enumerate(services):
            for prefix in sorted(service.rule.prefixes):
                by_prefix.setdefault(prefix, []).append(number)
        return cls(tuple(by_prefix),
                   {prefix: tuple(numbers) for prefix, numbers in by_prefix.items()})


@functools.cache
def _default_index() -> _Index:
    """The shipped catalogue's index (built once; another catalogue's is built per
    search)."""
    return _Index.of(_default_catalogue())


def _line(text: str, match: re.Match[str]) -> str:
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    return text[start: end if end != -1 else None].strip()[:200]

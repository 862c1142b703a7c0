"""The conditions the knowledge base's rules test (``contact_form``, ``not:analytics``,
``industry:Medical``, ``category:healthcare|beauty_wellness``...), and whether one holds."""

from __future__ import annotations

from collections.abc import Mapping

from leadengine.facts.location import Location
from leadengine.knowledge.rules import Exclusion, Industry
from leadengine.website.category import Category

#: A category less sure than this sets no ``category:`` condition.
CATEGORY_CONDITION_FLOOR = 0.35


def conditions_of(flags: Mapping[str, bool], location: Location, industry: Industry | None,
                  exclusion: Exclusion | None, category: Category | None = None
                  ) -> dict[str, bool]:
    """The values the rules' conditions read: every signal flag, ``in_target``,
    ``out_of_market``, ``excluded``, ``industry:<Name>`` and ``category:<value>``."""
    values = dict(flags)
    values["in_target"] = location.target is not None
    values["out_of_market"] = location.out_of_market is not None
    values["excluded"] = exclusion is not None
    if industry:
        values[f"industry:{industry.name}"] = True
    if category is not None and category.value != "other" \
            and category.confidence >= CATEGORY_CONDITION_FLOOR:
        values[f"category:{category.value}"] = True
    return values


def holds(condition: str, values: dict[str, bool]) -> bool:
    """Whether a rule's condition (``name`` or ``not:name``; ``category:a|b`` is any of
    the categories) holds for ``values``."""
    if condition.startswith("not:"):
        return not holds(condition[4:], values)
    if condition.startswith("category:") and "|" in condition:
        return any(values.get(f"category:{c}", False) for c in condition[9:].split("|"))
    return values.get(condition, False)
